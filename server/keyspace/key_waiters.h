// Who waits for keys to change: the clients blocked on them (BLPOP, BZPOPMIN, XREAD BLOCK ...;
// command/blocking.h). The keyspace tells it of every key it changes, as it tells WATCHers, so a
// write through any path (a push, a MOVE or RENAME to the key, RESTORE, SWAPDB ...) makes the
// key ready to serve them.
#pragma once

#include <atomic>
#include <string_view>

namespace ordis::server {

class KeyWaiters {
 public:
  // Whether anyone waits at all: the keyspace's only cost on a write when no client is blocked.
  // Set under the keyspace's exclusive lock (a client blocks inside its command), so a writer
  // holding the lock sees it.
  bool waiting() const { return waiting_.load(std::memory_order_relaxed); }
  // exclusive. key in db was created, changed, moved or deleted.
  virtual void KeyChanged(int db, std::string_view key) = 0;
  // exclusive. Every key of db may have changed (FLUSHDB, FLUSHALL, SWAPDB).
  virtual void DbChanged(int db) = 0;

 protected:
  ~KeyWaiters() = default;
  std::atomic<bool> waiting_{false};
};

}  // namespace ordis::server
