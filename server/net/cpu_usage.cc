#include "server/net/cpu_usage.h"

#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace ordis::server {

double ParseIdleSeconds(std::string_view proc_stat, long ticks_per_second) {
  // "cpu  user nice system idle iowait irq softirq steal ..." in clock ticks.
  if (ticks_per_second <= 0 || proc_stat.substr(0, 4) != "cpu ") return -1;
  std::string line(proc_stat.substr(0, proc_stat.find('\n')));
  const char* p = line.c_str() + 4;
  unsigned long long fields[5];
  for (unsigned long long& f : fields) {
    char* end = nullptr;
    f = std::strtoull(p, &end, 10);
    if (end == p) return -1;
    p = end;
  }
  return static_cast<double>(fields[3] + fields[4]) / static_cast<double>(ticks_per_second);
}

double MachineIdleSeconds() {
  FILE* f = std::fopen("/proc/stat", "re");
  if (f == nullptr) return -1;
  char buf[512];
  size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  return ParseIdleSeconds(std::string_view(buf, n), sysconf(_SC_CLK_TCK));
}

clockid_t CurrentThreadCpuClock() {
  clockid_t clock;
  if (pthread_getcpuclockid(pthread_self(), &clock) != 0) return kNoCpuClock;
  return clock;
}

double ThreadCpuSeconds(clockid_t clock) {
  timespec ts{};
  if (clock == kNoCpuClock || clock_gettime(clock, &ts) != 0) return -1;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace ordis::server
