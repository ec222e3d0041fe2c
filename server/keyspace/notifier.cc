#include "server/keyspace/notifier.h"

#include <string>

#include "base/number.h"

namespace ordis::server {

void KeyspaceNotifier::Publish(uint32_t classes, std::string_view event, int db,
                               std::string_view key) const {
  if (sink_ == nullptr) return;
  // One channel buffer per thread: events come from every I/O thread and the expiry thread.
  thread_local std::string channel;
  if (classes & keyspace_events::kKeyspace) {
    channel.assign("__keyspace@");
    AppendInt64(&channel, db);
    channel.append("__:");
    channel.append(key);
    sink_->PublishEvent(channel, event);
  }
  if (classes & keyspace_events::kKeyevent) {
    channel.assign("__keyevent@");
    AppendInt64(&channel, db);
    channel.append("__:");
    channel.append(event);
    sink_->PublishEvent(channel, key);
  }
}

}  // namespace ordis::server
