// Epoch-based reclamation (DPA-Store section 3.2.3; Honeycomb's epoch GC): memory unlinked from a
// shared structure is freed only once every thread that might still hold a pointer to it has
// left the critical section it was in when the memory was unlinked.
//
// Readers wrap each operation in an EpochGuard (cheap: one store to a thread-owned cache line on
// entry and one on exit). Writers unlink, then Retire; Reclaim frees what no guard can reach.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace ordis::index {

class EpochDomain {
 public:
  static constexpr int kMaxThreads = 512;

  EpochDomain();
  ~EpochDomain();  // frees everything still retired: no guard may be active
  EpochDomain(const EpochDomain&) = delete;
  EpochDomain& operator=(const EpochDomain&) = delete;

  // Takes ownership of p; deleter(p) runs once no guard entered before this call is active.
  // `bytes`: the memory deleter(p) gives back, counted in pending_bytes() until then.
  void Retire(void* p, void (*deleter)(void*), size_t bytes = 0);
  // Advances the epoch when every active guard has caught up, then frees what is safe. Returns
  // how many retired objects are still waiting.
  size_t Reclaim();
  size_t pending() const;
  // Bytes retired and not yet freed: memory on its way back once readers move on.
  uint64_t pending_bytes() const { return pending_bytes_.load(std::memory_order_relaxed); }

 private:
  friend class EpochGuard;
  struct alignas(64) Slot {
    std::atomic<uint64_t> epoch{0};  // 0: not in a critical section
  };
  struct Retired {
    void* p;
    void (*deleter)(void*);
    uint64_t epoch;
    size_t bytes;
  };

  Slot& ThreadSlot();

  std::atomic<uint64_t> epoch_{1};
  Slot slots_[kMaxThreads];
  mutable std::mutex retired_mu_;
  std::vector<Retired> retired_;            // GUARDED_BY(retired_mu_)
  std::atomic<uint64_t> pending_bytes_{0};  // changes with retired_, under retired_mu_
};

// Marks the calling thread as inside a critical section of `domain` for its lifetime. Nests.
class EpochGuard {
 public:
  explicit EpochGuard(EpochDomain& domain);
  ~EpochGuard();
  EpochGuard(const EpochGuard&) = delete;
  EpochGuard& operator=(const EpochGuard&) = delete;

 private:
  EpochDomain::Slot* slot_;
  bool outer_;
};

}  // namespace ordis::index
