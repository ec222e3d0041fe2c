#include "server/command/slowlog.h"

#include <algorithm>

#include "server/command/redaction.h"

namespace ordis::server {
namespace {

constexpr size_t kMaxArgs = 32;
constexpr size_t kMaxArgBytes = 128;

}  // namespace

void SlowLog::Record(std::span<const std::string_view> args, int64_t time_s, int64_t duration_us,
                     std::string_view addr, std::string_view name, size_t max_len) {
  Entry e{0, time_s, duration_us, {}, std::string(addr), std::string(name)};
  const size_t kept = args.size() > kMaxArgs ? kMaxArgs - 1 : args.size();
  e.args.reserve(kept + (kept < args.size() ? 1 : 0));
  for (size_t i = 0; i < kept; ++i) {
    if (IsSecretArgument(args, i)) {
      e.args.emplace_back(kRedacted);
    } else if (args[i].size() > kMaxArgBytes) {
      e.args.push_back(std::string(args[i].substr(0, kMaxArgBytes)) + "... (" +
                       std::to_string(args[i].size() - kMaxArgBytes) + " more bytes)");
    } else {
      e.args.emplace_back(args[i]);
    }
  }
  if (kept < args.size()) {
    e.args.push_back("... (" + std::to_string(args.size() - kept) + " more arguments)");
  }
  std::lock_guard lock(mu_);
  e.id = next_id_++;
  entries_.push_front(std::move(e));
  while (entries_.size() > max_len) entries_.pop_back();
}

std::vector<SlowLog::Entry> SlowLog::Newest(int64_t count) const {
  std::lock_guard lock(mu_);
  const size_t n =
      count < 0 ? entries_.size() : std::min(entries_.size(), static_cast<size_t>(count));
  return {entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(n)};
}

size_t SlowLog::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

void SlowLog::Reset() {
  std::lock_guard lock(mu_);
  entries_.clear();
}

}  // namespace ordis::server
