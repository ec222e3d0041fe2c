#include "server/acl/log.h"

#include <algorithm>

namespace ordis::acl {

std::string_view DenyReasonName(DenyReason r) {
  switch (r) {
    case DenyReason::kCommand:
      return "command";
    case DenyReason::kKey:
      return "key";
    case DenyReason::kChannel:
      return "channel";
    case DenyReason::kAuth:
      return "auth";
  }
  return "unknown";
}

std::string_view LogContextName(LogContext c) {
  switch (c) {
    case LogContext::kTopLevel:
      return "toplevel";
    case LogContext::kMulti:
      return "multi";
    case LogContext::kLua:
      return "lua";
    case LogContext::kModule:
      return "module";
  }
  return "unknown";
}

void AclLog::Add(DenyReason reason, LogContext context, std::string_view object,
                 std::string_view username, std::string_view client_info, int64_t now_ms) {
  std::lock_guard lock(mu_);
  int scanned = 0;
  for (auto it = entries_.begin(); it != entries_.end() && scanned < kGroupingScan;
       ++it, ++scanned) {
    int64_t delta = it->time_ms - now_ms;
    if (delta < 0) delta = -delta;
    if (it->reason != reason || it->context != context || delta > kGroupingMs ||
        it->object != object || it->username != username) {
      continue;
    }
    LogEntry e = std::move(*it);
    entries_.erase(it);
    e.count++;
    e.time_ms = now_ms;
    e.client_info = client_info;
    entries_.push_front(std::move(e));
    return;
  }
  entries_.push_front(LogEntry{1, reason, context, std::string(object), std::string(username),
                               now_ms, std::string(client_info)});
  while (entries_.size() > max_len_) entries_.pop_back();
}

std::vector<LogEntry> AclLog::Entries(long count) const {
  std::lock_guard lock(mu_);
  size_t n = count < 0 ? 0 : std::min(static_cast<size_t>(count), entries_.size());
  return std::vector<LogEntry>(entries_.begin(), entries_.begin() + n);
}

void AclLog::Reset() {
  std::lock_guard lock(mu_);
  entries_.clear();
}

void AclLog::SetMaxLen(size_t max_len) {
  std::lock_guard lock(mu_);
  max_len_ = max_len;
}

size_t AclLog::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace ordis::acl
