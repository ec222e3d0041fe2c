#include "server/keyspace/scan_cursors.h"

namespace ordis::server {

uint64_t ScanCursors::Save(std::string last_key) {
  std::lock_guard lock(mu_);
  // Cursors look random-ish to clients as Redis's do, and never repeat within a run.
  // An odd multiplier is a bijection on 64-bit numbers, so cursors are distinct and never 0.
  uint64_t cursor = next_++ * 0x9E3779B97F4A7C15ull;
  key_bytes_ += last_key.size();
  resume_after_[cursor] = std::move(last_key);
  order_.push_back(cursor);
  while (order_.size() > 1 && (order_.size() > kMaxCursors || key_bytes_ > kMaxKeyBytes)) {
    auto it = resume_after_.find(order_.front());
    key_bytes_ -= it->second.size();
    resume_after_.erase(it);
    order_.pop_front();
  }
  return cursor;
}

std::optional<std::string> ScanCursors::Load(uint64_t cursor) const {
  std::lock_guard lock(mu_);
  auto it = resume_after_.find(cursor);
  if (it == resume_after_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ordis::server
