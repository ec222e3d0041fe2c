// ACL LOG: the recent denials, newest first, as Redis 7.0 keeps them. A denial like one of the 10
// newest entries (same reason, context, object and user, within 60 s) bumps that entry's count
// and moves it to the front instead of adding one, so a retrying client does not flood the log.
//
// Thread safety: every method takes the log's mutex; denials are rare, so one lock is enough.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace ordis::acl {

enum class DenyReason : uint8_t { kCommand, kKey, kChannel, kAuth };
enum class LogContext : uint8_t { kTopLevel, kMulti, kLua, kModule };

std::string_view DenyReasonName(DenyReason r);  // "command", "key", "channel", "auth"
std::string_view LogContextName(LogContext c);  // "toplevel", "multi", "lua", "module"

struct LogEntry {
  uint64_t count = 1;
  DenyReason reason = DenyReason::kCommand;
  LogContext context = LogContext::kTopLevel;
  std::string object;       // the command's full name, the key, the channel, or AUTH's argv[0]
  std::string username;     // the client's user; for AUTH the name tried
  int64_t time_ms = 0;      // of the latest occurrence
  std::string client_info;  // CLIENT LIST line of the latest client
};

class AclLog {
 public:
  static constexpr size_t kDefaultMaxLen = 128;  // acllog-max-len
  static constexpr int64_t kGroupingMs = 60000;
  static constexpr int kGroupingScan = 10;  // only the newest entries are searched, bounding work

  explicit AclLog(size_t max_len = kDefaultMaxLen) : max_len_(max_len) {}

  void Add(DenyReason reason, LogContext context, std::string_view object,
           std::string_view username, std::string_view client_info, int64_t now_ms);

  // Up to count entries, newest first (ACL LOG [count]: 10 by default, negative means 0). The
  // reply's age-seconds is (now_ms - time_ms) / 1000.0.
  std::vector<LogEntry> Entries(long count = 10) const;
  void Reset();
  // CONFIG SET acllog-max-len; a shorter log drops its oldest entries at the next Add, as Redis.
  void SetMaxLen(size_t max_len);
  size_t size() const;

 private:
  mutable std::mutex mu_;
  size_t max_len_;                // GUARDED_BY(mu_)
  std::deque<LogEntry> entries_;  // GUARDED_BY(mu_); newest first
};

}  // namespace ordis::acl
