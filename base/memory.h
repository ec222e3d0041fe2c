// The heap as the allocator counts it: `used_memory` and the allocator's own figures.
//
// ordis links jemalloc (as Redis does) except in sanitizer builds, whose allocators replace it.
// Chosen over mimalloc and glibc by measurement before the compact object existed (1M keys
// `key:%012d`, LD_PRELOAD on one binary): RSS per key within 7% of each other and server CPU per
// GET/SET within noise, so the deciding facts were the others: per-thread allocation counters
// that make UsedMemory() exact and cheap, the statistics Redis's INFO reports (allocator_*), arena
// purging for MEMORY PURGE, and size classes (8, 16, 32, 48, 64, 80 ...) that compact objects can
// be fitted to.
//
// UsedMemory() sums the cumulative allocated and freed byte counters of every accounted thread,
// so it costs a few loads per thread and is exact at the moment of reading; a thread's traffic
// counts only while it is accounted, so every long-lived thread that allocates holds a
// MemoryAccountedThread (main, I/O threads, patchers, background jobs). Memory an unaccounted
// thread allocates and an accounted one frees would make the sum drift low: don't hand off
// allocations from unaccounted threads.
//
// Thread safety: everything here is thread safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ordis::base {

// Counts the calling thread's heap traffic toward UsedMemory() from its start until this object
// is destroyed, when what the thread left allocated is kept in the total. One per thread (nested
// ones do nothing).
class MemoryAccountedThread {
 public:
  MemoryAccountedThread();
  ~MemoryAccountedThread();
  MemoryAccountedThread(const MemoryAccountedThread&) = delete;
  MemoryAccountedThread& operator=(const MemoryAccountedThread&) = delete;

 private:
  int slot_;  // -1 when another instance (or none available) accounts this thread
};

// Bytes allocated and not freed, in allocator size classes (Redis's used_memory). Exact with
// jemalloc; in sanitizer builds the sanitizer's count; otherwise glibc's (slow: walks arenas).
uint64_t UsedMemory();

// The allocator's own statistics (Redis's allocator_* fields). Slow (tens of microseconds):
// INFO and MEMORY only. Zero where the allocator does not say.
struct AllocatorStats {
  uint64_t allocated = 0;  // as UsedMemory, from the allocator's merged statistics
  uint64_t active = 0;     // pages holding allocations
  uint64_t resident = 0;   // pages the allocator has touched and not returned
  uint64_t mapped = 0;
  uint64_t retained = 0;  // address space kept without pages
};
AllocatorStats ReadAllocatorStats();

// "jemalloc-5.3.0" or "libc" (INFO's mem_allocator).
std::string_view AllocatorName();

// Returns unused dirty pages to the system (MEMORY PURGE). False when the allocator cannot.
bool PurgeAllocator();

// Starts the allocator's own threads that return dirty pages to the system over time, so RSS
// follows used memory on an idle server too (Redis's jemalloc-bg-thread, on by default). False
// when the allocator has none.
bool StartAllocatorBackgroundPurge();

// The allocator's own statistics report as text (MEMORY MALLOC-STATS); "" when it has none.
std::string AllocatorReport();

}  // namespace ordis::base
