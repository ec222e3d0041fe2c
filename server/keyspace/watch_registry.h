// WATCH bookkeeping: which connections watch which (db, key). A write to a watched key marks every
// watcher dirty so its next EXEC aborts.
//
// Thread safety: all methods are thread safe. Touch* are called by writers holding the keyspace's
// exclusive lock; they first check an atomic count so the unwatched common case costs one load.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace ordis::server {

// One connection's WATCH state, shared with the registry.
struct WatchState {
  // Set by any thread that modifies a watched key; read by the owner at EXEC.
  // release/acquire: the owner that sees dirty==false also sees no later-started write missed.
  std::atomic<bool> dirty{false};
};

class WatchRegistry {
 public:
  // expired: the key exists but its TTL had passed when watched. Its deletion then changes nothing
  // logically and does not dirty the watcher (Redis 7.0's watchedKey.expired).
  void Watch(int db, std::string_view key, WatchState* watcher, bool expired);
  void UnwatchAll(const std::vector<std::pair<int, std::string>>& keys, WatchState* watcher);
  // deleted: the key no longer exists after the change.
  void Touch(int db, std::string_view key, bool deleted = false);
  void TouchDb(int db);
  void TouchAll();

 private:
  static std::string Encode(int db, std::string_view key);

  std::atomic<size_t> watched_keys_{0};
  std::mutex mu_;
  struct Watcher {
    WatchState* state;
    bool expired;
  };
  absl::flat_hash_map<std::string, std::vector<Watcher>> watchers_;  // GUARDED_BY(mu_)
};

}  // namespace ordis::server
