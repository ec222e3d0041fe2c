#include "server/command/memory_guard.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "base/clock.h"
#include "base/logging.h"
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
  if (ColdTier* tier = keyspace_.tier(); tier != nullptr) {
    // The doorkeeper, asked only over the limit, follows how many values memory holds (small
    // ones that never go count too), in at most a 64th of maxmemory.
    tier->SizeDoorkeeper(keyspace_.ResidentKeys(), static_cast<uint64_t>(config_.maxmemory()) / 64);
  }
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
  auto more = [&] {
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
  };
  // With a cold tier, values go to disk first; keys go only when no value can (the tier full or
  // failed, or nothing demotable left).
  if (keyspace_.tier() != nullptr && keyspace_.tier()->accepting()) {
    if (skip_demotion_ > 0) {
      --skip_demotion_;
    } else if (demoter_.Evict(keyspace_, options, now_ms, more) == 0) {
      // Nothing demotable was found (every sampled value cold or small): sampling for it on
      // every write would cost more than the evictions it precedes. Look again later.
      skip_demotion_ = kDemotionBackoff;
    }
  }
  if (!stopped) evictor_.Evict(keyspace_, options, now_ms, more);
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

void MemoryGuard::TierCron() {
  ColdTier* tier = keyspace_.tier();
  if (tier == nullptr) return;
  tier->Poll();
  const ColdTier::Stats stats = tier->stats();
  // A segment is compacted once half of it is garbage: not before there is that much in all
  // (the check that spares the exclusive lock).
  if (stats.garbage_bytes < ColdTier::kSegmentBytes / 2) return;
  std::unique_lock lock(keyspace_.mu());
  int64_t segment = -1;
  const persistence::Status status = keyspace_.CompactTier(0.5, &segment);
  if (!status.ok()) log::Warning("Cold tier compaction: {}", status.message());
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
