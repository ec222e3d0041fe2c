#include "server/command/client_pause.h"

#include <algorithm>

#include "base/clock.h"

namespace ordis::server {

void ClientPause::Pause(int64_t end_ms, Mode mode) {
  std::lock_guard lock(mu_);
  const auto current = static_cast<Mode>(mode_.load(std::memory_order_relaxed));
  if (current == Mode::kOff) {
    end_ms_ = end_ms;
  } else {
    end_ms_ = std::max(end_ms_, end_ms);
  }
  mode_.store(static_cast<uint8_t>(std::max(current, mode)), std::memory_order_relaxed);
}

void ClientPause::EndLocked(std::vector<uint64_t>* waiting) {
  mode_.store(static_cast<uint8_t>(Mode::kOff), std::memory_order_relaxed);
  waiting->swap(waiting_);
  waiting_.clear();
}

void ClientPause::Resume(const std::vector<uint64_t>& ids) {
  // A client closed meanwhile is gone; one its deadline resumed already ignores the nudge.
  for (uint64_t id : ids) clients_.ResumePostponed(id);
}

void ClientPause::Unpause() {
  std::vector<uint64_t> waiting;
  {
    std::lock_guard lock(mu_);
    EndLocked(&waiting);
  }
  Resume(waiting);
}

bool ClientPause::PostponeSlow(ClientState& client, bool writes) {
  if (client.monitor.load(std::memory_order_relaxed)) return false;
  const int64_t now_ms = NowMs();
  std::vector<uint64_t> waiting;
  {
    std::lock_guard lock(mu_);
    const auto mode = static_cast<Mode>(mode_.load(std::memory_order_relaxed));
    if (mode != Mode::kOff && now_ms >= end_ms_) {
      EndLocked(&waiting);
    } else if (mode == Mode::kAll || (mode == Mode::kWrite && writes)) {
      waiting_.push_back(client.id);
      client.postponed_until_ms = end_ms_;
      client.postponed.store(true, std::memory_order_relaxed);
      return true;
    }
  }
  Resume(waiting);
  return false;
}

}  // namespace ordis::server
