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
#include "absl/functional/function_ref.h"
#include "server/command/client_state.h"
#include "server/net/connection_host.h"

namespace ordis::server {

class CommandTable;

// Appends CLIENT LIST's line for c, ending in "\n". Caller holds the registry lock (ForEach).
void AppendClientInfo(const CommandTable& commands, const ClientState& c, int64_t now_ms,
                      std::string* out);

class ClientRegistry {
 public:
  void Add(ClientState* client, ConnectionHost* host);
  void Remove(uint64_t id);
  // Records that a client is moving to another I/O thread.
  void SetHost(uint64_t id, ConnectionHost* host);
  // CLIENT KILL: marks client id killed and asks its thread to close it; false if no such client.
  bool Kill(uint64_t id);
  // The I/O thread client id is on, or nullptr if there is no such client.
  ConnectionHost* Host(uint64_t id) const;
  size_t size() const { return count_.load(std::memory_order_relaxed); }
  // Calls visit with client id under the lock (visit must not call back into the registry); false
  // if there is no such client.
  bool WithClient(uint64_t id, absl::FunctionRef<void(ClientState&)> visit) const;
  // CLIENT UNPAUSE: asks client id's thread to run its postponed command; false if no such client.
  bool ResumePostponed(uint64_t id);

  void SetName(ClientState* client, std::string_view name);
  std::string Name(const ClientState* client) const;
  void SetUserName(ClientState* client, std::string_view name);
  // CLIENT SETINFO: LIB-NAME (lib_name) or LIB-VER.
  void SetLibInfo(ClientState* client, bool lib_name, std::string_view value);
  // CLIENT LIST's line for client, without the newline (ACL LOG's client-info).
  std::string Describe(const CommandTable& commands, const ClientState& client,
                       int64_t now_ms) const;

  // Visits clients in id order under the lock; visit must not call back into the registry.
  void ForEach(const std::function<void(ClientState&)>& visit) const;

 private:
  mutable std::mutex mu_;
  absl::btree_map<uint64_t, std::pair<ClientState*, ConnectionHost*>> clients_;  // GUARDED_BY(mu_)
  std::atomic<size_t> count_{0};
};

}  // namespace ordis::server
