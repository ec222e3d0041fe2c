#include "server/net/push_outbox.h"

#include "base/clock.h"

namespace ordis::server {

ConnectionHost* PushOutbox::Add(std::string_view frame, uint64_t held,
                                const OutputBufferLimit& limit) {
  std::lock_guard lock(mu_);
  if (over_limit_) return nullptr;
  const int64_t total = static_cast<int64_t>(held + queued_.size() + frame.size());
  bool over = limit.hard_bytes > 0 && total > limit.hard_bytes;
  if (!over && limit.soft_bytes > 0 && total > limit.soft_bytes) {
    // As Redis: the soft limit counts from the first message that passed it, and is passed once
    // the output stayed above it longer than soft_seconds.
    const int64_t now_ms = CoarseNowMs();
    if (soft_since_ms_ < 0) {
      soft_since_ms_ = now_ms;
    } else {
      over = now_ms - soft_since_ms_ > limit.soft_seconds * 1000;
    }
  } else if (!over) {
    soft_since_ms_ = -1;
  }
  if (over) {
    over_limit_ = true;
    queued_.Clear();
  } else {
    queued_.Append(frame);
  }
  if (nudged_) return nullptr;
  nudged_ = true;
  return host_;
}

bool PushOutbox::Take(resp::OutBuffer* out) {
  std::lock_guard lock(mu_);
  if (over_limit_) return true;
  nudged_ = false;
  queued_.MoveTo(out);
  return false;
}

void PushOutbox::SetHost(ConnectionHost* host) {
  std::lock_guard lock(mu_);
  host_ = host;
}

}  // namespace ordis::server
