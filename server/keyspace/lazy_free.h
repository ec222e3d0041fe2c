// Lazy free (Redis's lazyfree.c): values that take long to free are destroyed on a thread of their
// own, so deleting a set of 10M members does not hold the keyspace's exclusive lock, and with it
// every I/O thread, while 10M strings are freed.
//
// The keyspace unlinks the value under its exclusive lock, as for any deletion: the key is gone at
// once, observers and watchers are told, both index entries are erased. Only the destruction of
// the unlinked Object is deferred; once handed over, nothing but this class refers to it.
//
// Which values go: those whose FreeEffort exceeds kThreshold (Redis's LAZYFREE_THRESHOLD); below
// it, handing a value over costs more than freeing it. A flushed dataset goes whole, whatever its
// values (Redis's emptyDbAsync).
//
// Bounded: while more than kMaxPending objects wait, Free frees inline (the deleting thread pays,
// as without lazy free) rather than queue more behind a thread that is not keeping up; pending()
// (INFO's lazyfree_pending_objects) shows the backlog. Flushed datasets are always queued: their
// size is bounded by the memory they held.
//
// Here, in the keyspace layer, because it destroys Objects (base/ knows no Object). Its thread is
// a base::MemoryAccountedThread: it frees what the I/O threads allocated, and uncounted, every
// value it freed would stay in used_memory. The thread starts with the first value handed over
// (most keyspaces, tests' among them, never hand one over); the destructor frees everything still
// queued, then joins it.
//
// Thread safety: thread safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "server/keyspace/object.h"

namespace ordis::server {

// The work of freeing obj, in allocations (Redis's lazyfreeGetFreeEffort): the elements of a
// collection, each a string or node of its own; 1 for a string (one or two blocks, whatever its
// length) and for a small sorted set (one packed array, Redis's listpack).
size_t FreeEffort(const Object& obj);

class LazyFree {
 public:
  static constexpr size_t kThreshold = 64;          // Redis's LAZYFREE_THRESHOLD
  static constexpr uint64_t kMaxPending = 1 << 20;  // objects waiting before Free goes inline

  LazyFree() = default;
  // Frees whatever is still queued, then returns.
  ~LazyFree();
  LazyFree(const LazyFree&) = delete;
  LazyFree& operator=(const LazyFree&) = delete;

  // Frees obj, unlinked from the keyspace: on the thread when its effort exceeds kThreshold and
  // fewer than kMaxPending objects wait, else here and now. True iff handed over.
  bool Free(Object* obj);
  // Hands every object of objs (a flushed dataset's, in batches) over to the thread.
  void FreeAll(std::span<Object* const> objs);

  // Objects handed over and not freed yet (INFO's lazyfree_pending_objects).
  uint64_t pending() const { return pending_.load(std::memory_order_acquire); }
  // Objects the thread has freed since start or ResetStats (INFO's lazyfreed_objects). Relaxed:
  // a statistic.
  uint64_t freed() const { return freed_.load(std::memory_order_relaxed); }
  void ResetStats() { freed_.store(0, std::memory_order_relaxed); }

  // Waits until nothing is pending or timeout has passed; true iff nothing is pending.
  bool WaitIdle(std::chrono::microseconds timeout);

  // Tests: while held, the thread frees nothing (the destructor still frees everything).
  void TEST_Hold(bool hold);

 private:
  // Appends objs to the queue, starting the thread if needed; false (nothing queued) when it
  // cannot start.
  bool Enqueue(std::span<Object* const> objs);
  void Run();

  std::mutex mu_;
  std::condition_variable work_;  // the queue has objects (and is not held), or stop_
  std::condition_variable idle_;  // pending() reached 0
  std::vector<Object*> queue_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool held_ ABSL_GUARDED_BY(mu_) = false;  // TEST_Hold
  std::thread thread_ ABSL_GUARDED_BY(mu_);
  // Raised (under mu_) before objects are queued, lowered by the thread as each is freed.
  std::atomic<uint64_t> pending_{0};
  std::atomic<uint64_t> freed_{0};
};

}  // namespace ordis::server
