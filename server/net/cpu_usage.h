// CPU time readings for the I/O thread balancer: the machine's idle time and one thread's CPU
// time. Both are cumulative; the caller differences two readings over a window.
#pragma once

#include <ctime>
#include <string_view>

namespace ordis::server {

// Seconds the machine's CPUs have spent idle or waiting for I/O since boot, summed over CPUs
// (/proc/stat); negative if unknown.
double MachineIdleSeconds();
// The same from the text of /proc/stat (its "cpu " line) and the kernel's clock ticks per second.
double ParseIdleSeconds(std::string_view proc_stat, long ticks_per_second);

// The CPU clock of the calling thread, for ThreadCpuSeconds from any thread; kNoCpuClock if none.
inline constexpr clockid_t kNoCpuClock = -1;  // no valid clock id: clock_gettime fails on it
clockid_t CurrentThreadCpuClock();
// CPU seconds the thread with this clock has used; negative if unknown.
double ThreadCpuSeconds(clockid_t clock);

}  // namespace ordis::server
