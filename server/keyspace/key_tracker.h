// Client-side caching's view of the keyspace: every change to a key (a write, a TTL change, a
// deletion, expiry, eviction) and every flush is reported to a listener (the command layer's
// Tracking, command/tracking.h), which sends the invalidation messages.
//
// Off (no listener, or the listener has nothing to invalidate), a change costs one relaxed
// atomic load.
//
// Thread safety: thread safe. The keyspace reports under its exclusive lock; the listener takes
// a lock of its own, after it.
#pragma once

#include <atomic>
#include <string_view>

namespace ordis::server {

class KeyChangeListener {
 public:
  // key (of any database: tracking names keys without their database, as Redis) changed.
  virtual void KeyChanged(std::string_view key) = 0;
  // FLUSHDB or FLUSHALL: every tracked key is invalid.
  virtual void KeysFlushed() = 0;

 protected:
  ~KeyChangeListener() = default;
};

class KeyTracker {
 public:
  // At start-up, before any change.
  void SetListener(KeyChangeListener* listener) { listener_ = listener; }
  // Whether changes are reported: the listener turns it on while it has something to invalidate.
  void SetActive(bool active) { active_.store(active, std::memory_order_relaxed); }

  void KeyChanged(std::string_view key) const {
    // relaxed: a listener turns itself on before the read it will invalidate is done (under the
    // keyspace lock, which orders the read before any later write's report).
    if (active_.load(std::memory_order_relaxed)) listener_->KeyChanged(key);
  }
  void KeysFlushed() const {
    if (active_.load(std::memory_order_relaxed)) listener_->KeysFlushed();
  }

 private:
  std::atomic<bool> active_{false};
  KeyChangeListener* listener_ = nullptr;
};

}  // namespace ordis::server
