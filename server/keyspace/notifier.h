// Keyspace notifications (notify-keyspace-events): a change raises an event of a class
// (base/keyspace_events.h) and, when the class is on, it is published as Redis publishes it:
// PUBLISH __keyspace@<db>__:<key> <event> (K), then PUBLISH __keyevent@<db>__:<event> <key> (E).
// Commands raise their events through it (CommandContext::Notify), the keyspace its own (expired,
// evicted, new); where the messages go is the sink's business (the pub/sub layer).
//
// Off, an event costs one relaxed atomic load and a bit test.
//
// Thread safety: thread safe; Notify may be called under the keyspace lock, either mode (the sink
// takes a lock of its own, after it).
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "base/keyspace_events.h"

namespace ordis::server {

// Where events go: a PUBLISH of message to channel.
class KeyspaceEventSink {
 public:
  virtual void PublishEvent(std::string_view channel, std::string_view message) = 0;

 protected:
  ~KeyspaceEventSink() = default;
};

class KeyspaceNotifier {
 public:
  // At start-up, before any event: where events go.
  void SetSink(KeyspaceEventSink* sink) { sink_ = sink; }
  // notify-keyspace-events changed (keyspace_events::Class bits).
  void SetClasses(uint32_t classes) { classes_.store(classes, std::memory_order_relaxed); }
  // Whether events of cls are published (a caller may skip work that only feeds them).
  bool Enabled(uint32_t cls) const { return (classes_.load(std::memory_order_relaxed) & cls) != 0; }
  // Event `event` (Redis's name: "set", "expired" ...) of class cls happened to key in db.
  void Notify(uint32_t cls, std::string_view event, int db, std::string_view key) const {
    const uint32_t classes = classes_.load(std::memory_order_relaxed);
    if ((classes & cls) != 0) Publish(classes, event, db, key);
  }

 private:
  void Publish(uint32_t classes, std::string_view event, int db, std::string_view key) const;

  std::atomic<uint32_t> classes_{0};
  KeyspaceEventSink* sink_ = nullptr;
};

}  // namespace ordis::server
