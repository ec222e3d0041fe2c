#include "server/command/monitor.h"

#include <sys/time.h>

#include <algorithm>
#include <cstdio>

#include "base/number.h"
#include "server/command/redaction.h"

namespace ordis::server {
namespace {

// Redis's sdscatrepr: a quoted string with \\ \" \n \r \t \a \b escaped, other bytes that are not
// printable as \xHH.
void AppendRepr(std::string_view s, std::string* out) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '\\':
      case '"':
        out->push_back('\\');
        out->push_back(static_cast<char>(c));
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      case '\a':
        out->append("\\a");
        break;
      case '\b':
        out->append("\\b");
        break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          out->push_back(static_cast<char>(c));
        } else {
          char hex[5];
          std::snprintf(hex, sizeof(hex), "\\x%02x", c);
          out->append(hex);
        }
    }
  }
  out->push_back('"');
}

}  // namespace

bool Monitors::Add(ClientState& client) {
  std::lock_guard lock(mu_);
  if (client.monitor.load(std::memory_order_relaxed)) return false;
  monitors_.push_back(&client);
  client.monitor.store(true, std::memory_order_relaxed);
  count_.store(monitors_.size(), std::memory_order_relaxed);
  return true;
}

void Monitors::Remove(ClientState& client) {
  if (!client.monitor.load(std::memory_order_relaxed)) return;  // only its own thread sets it
  std::lock_guard lock(mu_);
  monitors_.erase(std::find(monitors_.begin(), monitors_.end(), &client));
  client.monitor.store(false, std::memory_order_relaxed);
  count_.store(monitors_.size(), std::memory_order_relaxed);
}

void Monitors::AppendLine(int db, std::string_view origin, std::span<const std::string_view> args,
                          std::string* out) {
  out->append(" [");
  AppendInt64(out, db);
  out->push_back(' ');
  out->append(origin);
  out->push_back(']');
  for (size_t i = 0; i < args.size(); ++i) {
    out->push_back(' ');
    AppendRepr(IsSecretArgument(args, i) ? kRedacted : args[i], out);
  }
  out->append("\r\n");
}

void Monitors::Feed(int db, std::string_view origin, std::span<const std::string_view> args) {
  timeval tv;
  gettimeofday(&tv, nullptr);
  const OutputBufferLimit limit = config_.replica_output_limit();
  std::lock_guard lock(mu_);
  if (monitors_.empty()) return;
  char time[48];
  std::snprintf(time, sizeof(time), "+%ld.%06ld", static_cast<long>(tv.tv_sec),
                static_cast<long>(tv.tv_usec));
  line_.assign(time);
  AppendLine(db, origin, args, &line_);
  for (ClientState* monitor : monitors_) {
    ConnectionHost* host = monitor->pushes.Add(
        line_, monitor->output_buffer_bytes.load(std::memory_order_relaxed), limit);
    if (host != nullptr) host->DeliverPushes(monitor->id);
  }
}

}  // namespace ordis::server
