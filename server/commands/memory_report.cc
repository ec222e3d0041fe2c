#include "server/commands/memory_report.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>

namespace ordis::server {
namespace {

uint64_t ResidentBytes() {
  long pages = 0, resident = 0;
  uint64_t bytes = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) == 2) {
      bytes = static_cast<uint64_t>(resident) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    }
    std::fclose(f);
  }
  return bytes;
}

}  // namespace

double MemoryReport::dataset_percentage() const {
  uint64_t net = used > startup ? used - startup : 0;
  return net ? 100.0 * dataset() / net : 0;
}

MemoryReport ReadMemoryReport(const Services& services) {
  MemoryReport r;
  r.used = services.memory.Used();
  r.peak = services.memory.NotePeak();
  r.startup = services.memory.startup();
  r.overhead = r.startup + services.keyspace.IndexStats().index_bytes;
  r.rss = ResidentBytes();
  r.total_system_memory =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  for (int db = 0; db < services.keyspace.num_dbs(); ++db) r.keys += services.keyspace.DbSize(db);
  r.allocator = base::ReadAllocatorStats();
  r.maxmemory = services.config.maxmemory();
  r.policy = services.config.maxmemory_policy();
  return r;
}

std::string HumanBytes(uint64_t bytes) {
  char buf[64];
  double b = static_cast<double>(bytes);
  if (bytes < 1024)
    std::snprintf(buf, sizeof(buf), "%" PRIu64 "B", bytes);
  else if (bytes < 1024 * 1024)
    std::snprintf(buf, sizeof(buf), "%.2fK", b / 1024);
  else if (bytes < 1024ull * 1024 * 1024)
    std::snprintf(buf, sizeof(buf), "%.2fM", b / (1024 * 1024));
  else
    std::snprintf(buf, sizeof(buf), "%.2fG", b / (1024.0 * 1024 * 1024));
  return buf;
}

}  // namespace ordis::server
