#include "server/command/memory_guard.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "base/clock.h"
#include "base/memory.h"

namespace ordis::server {

MemoryGuard::MemoryGuard(Keyspace& keyspace, const Config& config, UsedMemoryFn used,
                         std::chrono::milliseconds lazy_free_wait)
    : keyspace_(keyspace),
      config_(config),
      used_(std::move(used)),
      lazy_free_wait_(lazy_free_wait) {
  background_ = std::thread([this] { Background(); });
}

MemoryGuard::~MemoryGuard() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  background_.join();
}

EvictionOptions MemoryGuard::Options() const {
  EvictionOptions options;
  // The parameter's choices are the policies' names: it always parses.
  options.policy =
      ParseEvictionPolicy(config_.maxmemory_policy()).value_or(EvictionPolicy::kNoEviction);
  options.samples = config_.maxmemory_samples();
  options.lfu_decay_minutes = config_.lfu_decay_time();
  return options;
}

MemoryGuard::Outcome MemoryGuard::Evict(int64_t now_ms) {
  if (!OverLimit()) return Outcome::kUnder;
  const EvictionOptions options = Options();
  if (options.policy != EvictionPolicy::kNoEviction && AwaitingLazyFree()) {
    LimitChanged();
    return Outcome::kEvicting;
  }
  const uint64_t limit = static_cast<uint64_t>(config_.maxmemory());
  const uint64_t target =
      limit < kMinSlackLimit ? limit : limit - std::min(limit / kSlackDivisor, kMaxSlack);
  const auto start = std::chrono::steady_clock::now();
  int evicted = 0;
  std::optional<Outcome> stopped;
  evictor_.Evict(keyspace_, options, now_ms, [&] {
    if (Counted() <= target) {
      stopped = Outcome::kUnder;
    } else if (AwaitingLazyFree()) {  // that key's value went to the lazy-free thread
      stopped = Outcome::kEvicting;
    } else if (++evicted % 16 == 0 &&
               std::chrono::steady_clock::now() - start > std::chrono::microseconds(kStepUs)) {
      // The clock every 16 keys, as Redis: reading it costs more than a small key's eviction.
      stopped = Outcome::kEvicting;
    }
    return !stopped;
  });
  if (stopped) {
    if (*stopped == Outcome::kEvicting) LimitChanged();
    return *stopped;
  }
  // Nothing more may go.
  if (OverLimit() && keyspace_.lazy_free().pending() > 0) {
    keyspace_.lazy_free().WaitIdle(std::chrono::microseconds(kStepUs));
  }
  return OverLimit() ? Outcome::kFull : Outcome::kUnder;
}

void MemoryGuard::LimitChanged() {
  {
    std::lock_guard lock(mu_);
    wanted_ = true;
  }
  wake_.notify_one();
}

void MemoryGuard::Background() {
  base::MemoryAccountedThread accounted;  // frees what other threads allocated
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return wanted_ || stop_; });
    if (stop_) return;
    wanted_ = false;
    lock.unlock();
    // One step per lock hold: commands waiting for the lock run between steps.
    Outcome outcome = Outcome::kEvicting;
    while (outcome == Outcome::kEvicting) {
      const bool idle = keyspace_.lazy_free().WaitIdle(lazy_free_wait_);
      lazy_free_lagging_.store(!idle, std::memory_order_relaxed);
      std::unique_lock keyspace_lock(keyspace_.mu());
      outcome = Evict(NowMs());
      keyspace_lock.unlock();
      std::lock_guard stop_check(mu_);
      if (stop_) return;
      wanted_ = false;  // this loop is the work a LimitChanged() during it asked for
    }
    lazy_free_lagging_.store(false, std::memory_order_relaxed);
    lock.lock();
  }
}

uint64_t MemoryGuard::NotePeak() {
  uint64_t used = used_();
  uint64_t peak = peak_.load(std::memory_order_relaxed);
  while (used > peak && !peak_.compare_exchange_weak(peak, used, std::memory_order_relaxed)) {
  }
  return std::max(used, peak);
}

}  // namespace ordis::server
