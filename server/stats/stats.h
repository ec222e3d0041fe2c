// Server statistics, kept per I/O thread so the hot path touches only its own cache lines, and
// summed when INFO asks. Counters are atomics only so that INFO and CONFIG RESETSTAT can read and
// reset them from other threads; relaxed everywhere: they order nothing. Only the owning thread
// adds, so Bump is a plain load and store rather than a locked read-modify-write (a reset racing
// with an add may be lost; it is a statistic).
//
// Every counter is an entry of an enum, so summing and resetting walk the enum and cannot miss one.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ordis::server {

using Counter = std::atomic<uint64_t>;

inline void Bump(Counter& c, uint64_t n = 1) {
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}
inline uint64_t Read(const Counter& c) { return c.load(std::memory_order_relaxed); }

// A fixed set of counters named by the enum E, whose last entry is kCount.
template <typename E>
class Counters {
 public:
  Counter& operator[](E e) { return counters_[static_cast<size_t>(e)]; }
  uint64_t operator[](E e) const { return Read(counters_[static_cast<size_t>(e)]); }
  void Reset() {
    for (Counter& c : counters_) c.store(0, std::memory_order_relaxed);
  }

 private:
  std::array<Counter, static_cast<size_t>(E::kCount)> counters_{};
};

// One thread's counters (INFO stats, INFO threads).
enum class Stat {
  kCommandsProcessed,
  kConnectionsReceived,
  kRejectedConnections,
  kConnectionsMoved,  // handed to another I/O thread by the balancer
  kNetInputBytes,
  kNetOutputBytes,
  kKeyspaceHits,
  kKeyspaceMisses,
  kErrorReplies,
  kOutputLimitDisconnections,
  // ACL denials, as Redis 7.2's INFO stats names them (acl_access_denied_*).
  kAclDeniedAuth,
  kAclDeniedCmd,
  kAclDeniedKey,
  kAclDeniedChannel,
  kTierBatchesWaited,  // batches that waited for cold values to be read ahead
  kCount
};

// One command's counters on one thread (INFO commandstats).
enum class CommandStat {
  kCalls,
  kUsec,
  kRejectedCalls,  // refused before running: arity, auth, unknown in MULTI
  kFailedCalls,    // ran and replied with an error
  kCount
};

struct ThreadStats {
  explicit ThreadStats(size_t num_commands)
      : per_command(std::make_unique<Counters<CommandStat>[]>(num_commands)),
        num_commands(num_commands) {}

  Counter& operator[](Stat s) { return counters[s]; }
  void Reset() {
    counters.Reset();
    for (size_t i = 0; i < num_commands; ++i) per_command[i].Reset();
  }

  Counters<Stat> counters;
  std::unique_ptr<Counters<CommandStat>[]> per_command;  // by CommandSpec::id
  size_t num_commands;
};

// Every I/O thread's statistics, one block each.
class ServerStats {
 public:
  ServerStats(size_t threads, size_t num_commands) {
    for (size_t i = 0; i < threads; ++i) {
      blocks_.push_back(std::make_unique<ThreadStats>(num_commands));
    }
  }
  ThreadStats& thread(size_t i) { return *blocks_[i]; }

  uint64_t Sum(Stat s) const {
    uint64_t total = 0;
    for (const auto& b : blocks_) total += b->counters[s];
    return total;
  }
  uint64_t Sum(size_t command_id, CommandStat s) const {
    uint64_t total = 0;
    for (const auto& b : blocks_) total += b->per_command[command_id][s];
    return total;
  }
  void Reset() {
    for (auto& b : blocks_) b->Reset();
  }

 private:
  std::vector<std::unique_ptr<ThreadStats>> blocks_;
};

}  // namespace ordis::server
