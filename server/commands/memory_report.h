// The memory figures INFO memory, MEMORY STATS and MEMORY DOCTOR report, gathered in one place
// with Redis's definitions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/memory.h"
#include "server/command/services.h"

namespace ordis::server {

struct MemoryReport {
  uint64_t used = 0;     // used_memory: the heap in allocator size classes
  uint64_t peak = 0;     // used_memory_peak
  uint64_t startup = 0;  // used_memory_startup: before the data set was loaded
  // used_memory_overhead: what is not the data set: start-up memory and the index's nodes (the
  // counterpart of Redis's dictionary tables).
  uint64_t overhead = 0;
  uint64_t rss = 0;  // resident set of the process
  uint64_t total_system_memory = 0;
  uint64_t keys = 0;  // in every database
  base::AllocatorStats allocator;
  int64_t maxmemory = 0;
  std::string_view policy;

  uint64_t dataset() const { return used > overhead ? used - overhead : 0; }
  // Share of the memory grown since start-up that is data, in percent.
  double dataset_percentage() const;
  double peak_percentage() const { return peak ? 100.0 * used / peak : 0; }
  // Ratios and differences of Redis's fragmentation fields: allocator (active / allocated),
  // allocator RSS (resident / active), RSS overhead (rss / resident), and rss / used.
  static double Ratio(uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / b : 0; }
  static int64_t Difference(uint64_t a, uint64_t b) {
    return static_cast<int64_t>(a) - static_cast<int64_t>(b);
  }
};

// The keyspace lock held (shared). Reads the allocator's statistics: tens of microseconds.
MemoryReport ReadMemoryReport(const Services& services);

// Redis's bytesToHuman: 1023B, 1.50K, 2.00M, 3.25G ...
std::string HumanBytes(uint64_t bytes);

}  // namespace ordis::server
