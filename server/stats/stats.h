// Server statistics, kept per I/O thread so the hot path touches only its own cache lines, and
// summed when INFO asks. Counters are atomics only so that INFO and CONFIG RESETSTAT can read and
// reset them from other threads; relaxed everywhere: they order nothing. Only the owning thread
// adds, so Bump is a plain load and store rather than a locked read-modify-write (a reset racing
// with an add may be lost; it is a statistic).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace ordis::server {

using Counter = std::atomic<uint64_t>;

inline void Bump(Counter& c, uint64_t n = 1) {
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}
inline uint64_t Read(const Counter& c) { return c.load(std::memory_order_relaxed); }

struct CommandStats {
  Counter calls{0};
  Counter usec{0};
  Counter rejected_calls{0};  // refused before running: arity, auth, unknown in MULTI
  Counter failed_calls{0};    // ran and replied with an error
};

struct ThreadStats {
  explicit ThreadStats(size_t num_commands)
      : per_command(std::make_unique<CommandStats[]>(num_commands)) {}

  std::unique_ptr<CommandStats[]> per_command;
  Counter commands_processed{0};
  Counter connections_received{0};
  Counter rejected_connections{0};
  Counter connections_moved{0};  // handed to another I/O thread by the balancer
  Counter net_input_bytes{0};
  Counter net_output_bytes{0};
  Counter keyspace_hits{0};
  Counter keyspace_misses{0};
  Counter error_replies{0};
  Counter output_limit_disconnections{0};
};

}  // namespace ordis::server
