#include "base/memory.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ORDIS_SANITIZER_ALLOCATOR 1
#include <cstddef>
// The sanitizers' runtimes define it; GCC ships no header declaring it.
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#elif defined(ORDIS_WITH_JEMALLOC)
#include <jemalloc/jemalloc.h>
#else
#include <malloc.h>
#endif

#include <atomic>
#include <mutex>
#include <string>

namespace ordis::base {

#if !defined(ORDIS_SANITIZER_ALLOCATOR) && defined(ORDIS_WITH_JEMALLOC)
namespace {

// One per accounted thread: pointers to jemalloc's cumulative per-thread counters (its
// thread.allocatedp and thread.deallocatedp), which live in that thread's TLS. `reading` is the
// owner's flag while it sums other threads' counters: an exiting thread waits for it to drop
// before its TLS may go away. A line each, so flags and counters do not share lines.
struct alignas(64) Slot {
  std::atomic<bool> taken{false};
  std::atomic<bool> reading{false};
  std::atomic<const uint64_t*> allocated{nullptr};
  std::atomic<const uint64_t*> freed{nullptr};
  // The part of the thread's net (allocated - freed) already in exited_net: a thread accounted
  // twice in its life must not count its first period again.
  std::atomic<uint64_t> counted{0};
};

constexpr int kMaxSlots = 256;
Slot slots[kMaxSlots];
std::atomic<int> slot_end{0};  // slots at or past it were never taken
// allocated - freed of threads that stopped being accounted (modulo 2^64: one thread may free
// what another allocated).
std::atomic<uint64_t> exited_net{0};
// Odd while an exiting thread moves its counters into exited_net: a sum taken across that
// moment would count them twice or not at all, so it is retaken.
std::atomic<uint64_t> exit_seq{0};
// Serializes exits, and sums by threads without a slot (which cannot raise a reading flag).
std::mutex exit_mu;
thread_local int current_slot = -1;
thread_local uint64_t net_counted = 0;  // see Slot::counted

uint64_t SumCounters() {
  while (true) {
    uint64_t seq = exit_seq.load(std::memory_order_acquire);
    if (seq & 1) continue;
    uint64_t total = exited_net.load(std::memory_order_relaxed);
    int end = slot_end.load(std::memory_order_acquire);
    for (int i = 0; i < end; ++i) {
      const uint64_t* allocated = slots[i].allocated.load(std::memory_order_seq_cst);
      if (allocated == nullptr) continue;
      const uint64_t* freed = slots[i].freed.load(std::memory_order_acquire);
      // The owner updates its counters without atomics; aligned 8-byte loads are whole on every
      // target ordis builds for, and a value a moment old is as good as one a moment new.
      total += *allocated - *freed - slots[i].counted.load(std::memory_order_relaxed);
    }
    if (exit_seq.load(std::memory_order_acquire) == seq) return total;
  }
}

template <typename T>
T ReadCtl(const char* name) {
  T value{};
  size_t size = sizeof(value);
  if (mallctl(name, &value, &size, nullptr, 0) != 0) return T{};
  return value;
}

}  // namespace

MemoryAccountedThread::MemoryAccountedThread() : slot_(-1) {
  if (current_slot >= 0) return;
  auto* allocated = ReadCtl<uint64_t*>("thread.allocatedp");
  auto* freed = ReadCtl<uint64_t*>("thread.deallocatedp");
  if (allocated == nullptr || freed == nullptr) return;
  for (int i = 0; i < kMaxSlots; ++i) {
    bool expected = false;
    if (!slots[i].taken.compare_exchange_strong(expected, true)) continue;
    slots[i].freed.store(freed, std::memory_order_relaxed);
    slots[i].counted.store(net_counted, std::memory_order_relaxed);
    slots[i].allocated.store(allocated, std::memory_order_seq_cst);
    int end = slot_end.load();
    while (end < i + 1 && !slot_end.compare_exchange_weak(end, i + 1)) {
    }
    current_slot = slot_ = i;
    return;
  }
}

MemoryAccountedThread::~MemoryAccountedThread() {
  if (slot_ < 0) return;
  Slot& mine = slots[slot_];
  {
    std::lock_guard lock(exit_mu);
    exit_seq.fetch_add(1, std::memory_order_acq_rel);
    const uint64_t* allocated = mine.allocated.load(std::memory_order_relaxed);
    const uint64_t* freed = mine.freed.load(std::memory_order_relaxed);
    uint64_t net = *allocated - *freed;
    exited_net.fetch_add(net - net_counted, std::memory_order_relaxed);
    net_counted = net;
    mine.allocated.store(nullptr, std::memory_order_seq_cst);
    exit_seq.fetch_add(1, std::memory_order_acq_rel);
    // A reader that raised its flag before our store above may still dereference our counters;
    // one that raises it after sees nullptr (both sides are sequentially consistent).
    int end = slot_end.load(std::memory_order_acquire);
    for (int i = 0; i < end; ++i) {
      while (i != slot_ && slots[i].reading.load(std::memory_order_seq_cst)) {
      }
    }
  }
  mine.freed.store(nullptr, std::memory_order_relaxed);
  mine.taken.store(false, std::memory_order_release);
  current_slot = -1;
}

uint64_t UsedMemory() {
  int me = current_slot;
  if (me < 0) {
    std::lock_guard lock(exit_mu);
    return SumCounters();
  }
  slots[me].reading.store(true, std::memory_order_seq_cst);
  uint64_t total = SumCounters();
  slots[me].reading.store(false, std::memory_order_release);
  return total;
}

AllocatorStats ReadAllocatorStats() {
  uint64_t epoch = 1;
  size_t size = sizeof(epoch);
  mallctl("epoch", &epoch, &size, &epoch, size);  // merges the arenas' statistics
  AllocatorStats s;
  s.allocated = ReadCtl<size_t>("stats.allocated");
  s.active = ReadCtl<size_t>("stats.active");
  s.resident = ReadCtl<size_t>("stats.resident");
  s.mapped = ReadCtl<size_t>("stats.mapped");
  s.retained = ReadCtl<size_t>("stats.retained");
  return s;
}

std::string_view AllocatorName() {
  // "5.3.0-0-g54eaed1..." as INFO shows it, Redis's "jemalloc-5.3.0".
  static const std::string name = [] {
    std::string version = ReadCtl<const char*>("version");
    return "jemalloc-" + version.substr(0, version.find('-'));
  }();
  return name;
}

bool PurgeAllocator() {
  // MALLCTL_ARENAS_ALL names every arena.
  static const std::string purge_all = "arena." + std::to_string(MALLCTL_ARENAS_ALL) + ".purge";
  return mallctl(purge_all.c_str(), nullptr, nullptr, nullptr, 0) == 0;
}

bool StartAllocatorBackgroundPurge() {
  bool enable = true;
  return mallctl("background_thread", nullptr, nullptr, &enable, sizeof(enable)) == 0;
}

std::string AllocatorReport() {
  std::string text;
  malloc_stats_print(
      [](void* out, const char* line) { static_cast<std::string*>(out)->append(line); }, &text,
      nullptr);
  return text;
}

#else  // sanitizer or glibc: no per-thread counters to sum

MemoryAccountedThread::MemoryAccountedThread() : slot_(-1) {}
MemoryAccountedThread::~MemoryAccountedThread() = default;

uint64_t UsedMemory() {
#if defined(ORDIS_SANITIZER_ALLOCATOR)
  return __sanitizer_get_current_allocated_bytes();
#else
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
#endif
}

AllocatorStats ReadAllocatorStats() {
  AllocatorStats s;
  s.allocated = UsedMemory();
  return s;
}

std::string_view AllocatorName() { return "libc"; }

bool StartAllocatorBackgroundPurge() { return false; }

bool PurgeAllocator() {
#if defined(ORDIS_SANITIZER_ALLOCATOR)
  return false;
#else
  return malloc_trim(0) >= 0;
#endif
}

std::string AllocatorReport() { return ""; }

#endif

}  // namespace ordis::base
