// maxmemory: before a command runs, while used memory is over the limit, keys go as
// maxmemory-policy says (Redis's performEvictions); a command that may grow memory is refused with
// -OOM when nothing more can go. Also the figures INFO memory derives from used memory: its peak
// and its value at start-up.
//
// Eviction holds the keyspace's exclusive lock, so it is cut into bounded steps: a command evicts
// for at most kStepUs, and if memory is still over the limit after that while keys are still
// going, the command runs anyway (as Redis's EVICT_RUNNING) and a background thread goes on
// evicting, one step per lock hold, until memory is under the limit. Lowering maxmemory at run
// time starts the same background eviction.
//
// Lazy free: memory handed to the lazy-free thread (keyspace/lazy_free.h) is on its way back, and
// keys evicted in its place would go for nothing (with lazyfree-lazy-eviction, every eviction of a
// large value would otherwise go on evicting until the thread caught up). So while values are
// pending, a command evicts nothing more and runs, and the background thread waits up to
// kLazyFreeWait for the thread before its next step. Past that wait the thread is lagging and
// eviction goes on as if nothing were pending, until a wait finds it idle again. When nothing is
// left to evict, a command waits one step's time for pending values before -OOM (as Redis's
// performEvictions).
//
// Thread safety: thread safe; Evict needs the keyspace's exclusive lock.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "server/config/config.h"
#include "server/keyspace/eviction.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server {

class MemoryGuard {
 public:
  using UsedMemoryFn = std::function<uint64_t()>;
  // used: bytes in use (base::UsedMemory in the server; tests count what they like).
  // lazy_free_wait: see kLazyFreeWait (tests choose theirs).
  MemoryGuard(Keyspace& keyspace, const Config& config, UsedMemoryFn used,
              std::chrono::milliseconds lazy_free_wait = kLazyFreeWait);
  ~MemoryGuard();
  MemoryGuard(const MemoryGuard&) = delete;
  MemoryGuard& operator=(const MemoryGuard&) = delete;

  uint64_t Used() const { return used_(); }
  // maxmemory is set and used memory, less what is on its way back (Counted), exceeds it. Cheap:
  // checked before every command.
  bool OverLimit() const {
    int64_t limit = config_.maxmemory();
    return limit > 0 && Counted() > static_cast<uint64_t>(limit);
  }

  // Memory is well under the limit (an eighth of it free), or there is none: a value read back
  // from the cold tier may come back into memory without pushing another value out. Eviction
  // keeps memory just under the limit (the slack below), so OverLimit alone would let every
  // cold read promote and demote another in its place: uniform reads over data larger than
  // memory would turn each read into a write.
  bool RoomToPromote() const {
    int64_t limit = config_.maxmemory();
    return limit <= 0 || Counted() < static_cast<uint64_t>(limit) / 8 * 7;
  }

  enum class Outcome {
    kUnder,     // memory is under the limit
    kEvicting,  // still over after the step's time, keys going: the background goes on
    kFull,      // over the limit and nothing the policy allows is left to evict
  };
  // keyspace exclusive lock held. Evicts until memory is a little under the limit (the slack
  // below), the policy finds nothing more, or the step's time is spent.
  Outcome Evict(int64_t now_ms);

  // Starts background eviction if memory is over the limit (maxmemory lowered).
  void LimitChanged();

  // Thread 0's cron, with a cold tier: completed tier writes let go of, and one compaction step
  // (a segment at least half garbage, its live records moved) under the keyspace's exclusive
  // lock. Takes the lock itself.
  void TierCron();

  // used_memory_peak: the highest Used() seen by NotePeak (the cron and INFO call it).
  uint64_t NotePeak();
  // used_memory_startup: Used() when the server finished starting.
  void NoteStartup() { startup_.store(used_(), std::memory_order_relaxed); }
  uint64_t startup() const { return startup_.load(std::memory_order_relaxed); }

  // Once over the limit, eviction goes on until memory is this far under it: min(maxmemory /
  // kSlackDivisor, kMaxSlack). Redis stops as soon as it is under, so each write of a new key
  // evicts one; evictions in bursts share their samples' and deletes' cache misses (the
  // evictor's bursts), and a burst's overshoot of a few KB is noise against the limit. Small
  // enough that a burst of small keys finishes well inside one step. Limits under kMinSlackLimit
  // (tests, toys) are kept exactly, as Redis keeps them.
  static constexpr uint64_t kSlackDivisor = 256;
  static constexpr uint64_t kMaxSlack = 8 << 10;
  static constexpr uint64_t kMinSlackLimit = 1 << 20;
  // How long one eviction step may hold the exclusive lock (Redis's time limit at the default
  // maxmemory-eviction-tenacity).
  static constexpr int64_t kStepUs = 500;
  // How long background eviction waits for the lazy-free thread before it evicts regardless:
  // about what freeing a value of a million members takes.
  static constexpr auto kLazyFreeWait = std::chrono::milliseconds(10);

 private:
  // Used memory as maxmemory counts it: less the index nodes retired and waiting for readers to
  // move on (index::OrderedStore::RetiredBytes), up to 1/kRetiredShare of the limit. They are
  // freed within a patch or two, like values pending on the lazy-free thread; counted, a reader
  // preempted inside the index for a few milliseconds under a write storm held hundreds of KB of
  // them, and eviction drained the cache for memory that came back by itself. The bound keeps
  // used_memory within a few percent of the limit when readers hold them longer.
  static constexpr uint64_t kRetiredShare = 32;
  uint64_t Counted() const {
    const uint64_t used = used_();
    const uint64_t forgiven =
        std::min(keyspace_.IndexRetiredBytes(),
                 static_cast<uint64_t>(std::max<int64_t>(config_.maxmemory(), 0)) / kRetiredShare);
    return used - std::min(used, forgiven);
  }
  EvictionOptions Options() const;
  void Background();
  // Values are pending on the lazy-free thread and it is not lagging: wait for it, not evict.
  bool AwaitingLazyFree() const {
    return keyspace_.lazy_free().pending() > 0 &&
           !lazy_free_lagging_.load(std::memory_order_relaxed);
  }

  Keyspace& keyspace_;
  const Config& config_;
  const UsedMemoryFn used_;
  const std::chrono::milliseconds lazy_free_wait_;
  Evictor evictor_;                            // under the keyspace's exclusive lock
  Evictor demoter_{Evictor::Action::kDemote};  // the same
  static constexpr int kDemotionBackoff =
      64;                  // Evict calls that skip demotion after a fruitless one
  int skip_demotion_ = 0;  // under the keyspace's exclusive lock
  std::atomic<uint64_t> peak_{0};
  std::atomic<uint64_t> startup_{0};
  // The background's last wait for the lazy-free thread timed out (see the header comment).
  std::atomic<bool> lazy_free_lagging_{false};

  std::mutex mu_;
  std::condition_variable wake_;
  bool wanted_ = false;  // GUARDED_BY(mu_)
  bool stop_ = false;    // GUARDED_BY(mu_)
  std::thread background_;
};

}  // namespace ordis::server
