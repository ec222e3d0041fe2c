// Every connected client, for CLIENT LIST / KILL / INFO and maxclients.
//
// Thread safety: thread safe. Entries are added and removed by the owning I/O thread; pointers
// read under mu_ are valid until the lock is released.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/container/btree_map.h"
#include "server/command/client_state.h"

namespace ordis::server {

class IoThread;

class ClientRegistry {
 public:
  void Add(ClientState* client, IoThread* thread);
  void Remove(uint64_t id);
  // Records that a client is moving to another thread.
  void SetOwner(uint64_t id, IoThread* thread);
  size_t size() const { return count_.load(std::memory_order_relaxed); }

  void SetName(ClientState* client, std::string_view name);
  std::string Name(const ClientState* client) const;

  // Visits clients in id order under the lock; visit must not call back into the registry.
  void ForEach(const std::function<void(ClientState&, IoThread&)>& visit) const;

 private:
  mutable std::mutex mu_;
  absl::btree_map<uint64_t, std::pair<ClientState*, IoThread*>> clients_;  // GUARDED_BY(mu_)
  std::atomic<size_t> count_{0};
};

}  // namespace ordis::server
