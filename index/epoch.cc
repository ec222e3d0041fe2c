#include "index/epoch.h"

#include <cstdio>
#include <cstdlib>

#include "base/fatal.h"

namespace ordis::index {
namespace {

// Thread slot indexes are process-wide: a thread takes the lowest free index the first time it
// enters any domain and gives it back when it exits, so slots of dead threads are reused.
std::atomic<bool> g_index_used[EpochDomain::kMaxThreads];
// One past the highest index ever taken: Reclaim scans only slots below it.
std::atomic<int> g_index_limit{0};

struct ThreadIndex {
  int index = -1;
  ThreadIndex() {
    for (int i = 0; i < EpochDomain::kMaxThreads; ++i) {
      bool expected = false;
      if (!g_index_used[i].load(std::memory_order_relaxed) &&
          g_index_used[i].compare_exchange_strong(expected, true)) {
        index = i;
        int limit = g_index_limit.load(std::memory_order_relaxed);
        while (limit < i + 1 && !g_index_limit.compare_exchange_weak(limit, i + 1)) {
        }
        return;
      }
    }
    Fatal("ordis: more than " + std::to_string(EpochDomain::kMaxThreads) +
          " threads use the index at once");
  }
  ~ThreadIndex() { g_index_used[index].store(false, std::memory_order_release); }
};

ThreadIndex& Self() {
  thread_local ThreadIndex self;
  return self;
}

}  // namespace

EpochDomain::EpochDomain() = default;

EpochDomain::~EpochDomain() {
  for (const Retired& r : retired_) r.deleter(r.p);
}

EpochDomain::Slot& EpochDomain::ThreadSlot() { return slots_[Self().index]; }

EpochGuard::EpochGuard(EpochDomain& domain) : slot_(&domain.ThreadSlot()) {
  outer_ = slot_->epoch.load(std::memory_order_relaxed) == 0;
  if (outer_) {
    // seq_cst: the announcement must be visible before any load of the shared structure, or a
    // reclaimer could miss this thread and free what it is about to read.
    slot_->epoch.store(domain.epoch_.load(std::memory_order_seq_cst), std::memory_order_seq_cst);
  }
}

EpochGuard::~EpochGuard() {
  if (outer_) slot_->epoch.store(0, std::memory_order_release);
}

void EpochDomain::Retire(void* p, void (*deleter)(void*), size_t bytes) {
  uint64_t e = epoch_.load(std::memory_order_seq_cst);
  std::lock_guard lock(retired_mu_);
  retired_.push_back({p, deleter, e, bytes});
  pending_bytes_.fetch_add(bytes, std::memory_order_relaxed);
}

size_t EpochDomain::Reclaim() {
  uint64_t current = epoch_.load(std::memory_order_seq_cst);
  uint64_t oldest = current;
  const int limit = g_index_limit.load(std::memory_order_seq_cst);
  for (int i = 0; i < limit; ++i) {
    uint64_t e = slots_[i].epoch.load(std::memory_order_seq_cst);
    if (e != 0 && e < oldest) oldest = e;
  }
  // Every active guard has seen `current`: later guards will see current + 1, so what is retired
  // from now on is distinguishable from what they might hold.
  if (oldest == current) epoch_.compare_exchange_strong(current, current + 1);

  // A guard announcing epoch e may hold anything retired at epoch >= e.
  std::vector<Retired> ready;
  {
    std::lock_guard lock(retired_mu_);
    size_t kept = 0;
    uint64_t bytes = 0;
    for (const Retired& r : retired_) {
      if (r.epoch < oldest) {
        ready.push_back(r);
        bytes += r.bytes;
      } else {
        retired_[kept++] = r;
      }
    }
    retired_.resize(kept);
    // With the entries, under the lock: pending() and pending_bytes() agree for a reader taking
    // both after a Quiesce while another thread's Reclaim is still freeing what it took.
    pending_bytes_.fetch_sub(bytes, std::memory_order_relaxed);
  }
  for (const Retired& r : ready) r.deleter(r.p);
  std::lock_guard lock(retired_mu_);
  return retired_.size();
}

size_t EpochDomain::pending() const {
  std::lock_guard lock(retired_mu_);
  return retired_.size();
}

}  // namespace ordis::index
