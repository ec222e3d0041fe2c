#include "server/keyspace/expiry.h"

#include <mutex>
#include <shared_mutex>

#include "base/clock.h"
#include "base/memory.h"

namespace ordis::server {

bool RunExpiryCycle(Keyspace& keyspace, std::chrono::microseconds budget) {
  const auto start = std::chrono::steady_clock::now();
  if (!keyspace.active_expire()) return false;
  {
    // Most cycles find nothing due: they need not stop every reader to learn that.
    std::shared_lock lock(keyspace.mu());
    if (!keyspace.MaybeDue(NowMs())) return false;
  }
  while (true) {
    bool more_due;
    {
      std::unique_lock lock(keyspace.mu());
      keyspace.ExpireDueKeys(NowMs(), kExpireBatchKeys, &more_due);
    }
    if (!more_due) return false;
    if (std::chrono::steady_clock::now() - start >= budget) return true;
  }
}

void ActiveExpiry::Start() {
  {
    std::lock_guard lock(mu_);
    stop_ = false;
  }
  thread_ = std::thread([this] { Run(); });
}

void ActiveExpiry::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool ActiveExpiry::WaitUntil(std::chrono::steady_clock::time_point until) {
  std::unique_lock lock(mu_);
  return !wake_.wait_until(lock, until, [this] { return stop_; });
}

void ActiveExpiry::Run() {
  // It frees what the I/O threads allocated: uncounted, each expired key would stay in
  // used_memory.
  base::MemoryAccountedThread accounted;
  using Clock = std::chrono::steady_clock;
  Clock::time_point next_slow = Clock::now();
  while (true) {
    bool behind = RunExpiryCycle(keyspace_, kSlowCycleBudget);
    next_slow += kExpirePeriod;
    if (next_slow < Clock::now()) next_slow = Clock::now() + kExpirePeriod;
    while (behind) {
      Clock::time_point next_fast = Clock::now() + (kFastCycleEvery - kFastCycleBudget);
      if (next_fast + kFastCycleBudget > next_slow) break;
      if (!WaitUntil(next_fast)) return;
      behind = RunExpiryCycle(keyspace_, kFastCycleBudget);
    }
    if (!WaitUntil(next_slow)) return;
  }
}

}  // namespace ordis::server
