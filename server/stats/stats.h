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
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "server/stats/latency.h"

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

// Error replies by their code (INFO errorstats: errorstat_ERR, errorstat_WRONGTYPE ...). As Redis,
// at most 128 codes are tracked; errors of codes beyond them are not counted here.
class ErrorCounts {
 public:
  static constexpr size_t kMaxCodes = 128;
  void Add(std::string_view code, uint64_t n) {
    std::lock_guard lock(mu_);
    auto it = counts_.find(code);
    if (it == counts_.end()) {
      if (counts_.size() >= kMaxCodes) return;
      it = counts_.emplace(std::string(code), 0).first;
    }
    it->second += n;
  }
  // Adds this thread's counts to *sum.
  void AddTo(std::map<std::string, uint64_t, std::less<>>* sum) const {
    std::lock_guard lock(mu_);
    for (const auto& [code, n] : counts_) (*sum)[code] += n;
  }
  void Reset() {
    std::lock_guard lock(mu_);
    counts_.clear();
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, uint64_t, std::less<>> counts_;
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
  kReadsProcessed,     // reads from client sockets that returned data
  kWritesProcessed,    // flushes of replies to client sockets
  // Microseconds commands waited for the keyspace lock another thread held (ThreadBalancer: are
  // the threads taking turns rather than running side by side?).
  kKeyspaceLockWaitUs,
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
        num_commands(num_commands),
        latency(num_commands) {}

  Counter& operator[](Stat s) { return counters[s]; }
  void Reset() {
    counters.Reset();
    for (size_t i = 0; i < num_commands; ++i) per_command[i].Reset();
    latency.Reset();
    errors.Reset();
  }

  Counters<Stat> counters;
  std::unique_ptr<Counters<CommandStat>[]> per_command;  // by CommandSpec::id
  size_t num_commands;
  CommandHistograms latency;  // by CommandSpec::id, with latency-tracking
  ErrorCounts errors;
};

// Redis's instantaneous metrics (trackInstantaneousMetric): a total sampled every 100 ms, its rate
// per second the mean of the last 16 samples. Sampled by the server's cron; read by INFO.
class RateTracker {
 public:
  void Sample(uint64_t total, int64_t now_ms) {
    std::lock_guard lock(mu_);
    if (last_ms_ != 0 && now_ms > last_ms_) {
      rates_[next_++ % kSamples] = static_cast<double>(total - last_total_) * 1000.0 /
                                   static_cast<double>(now_ms - last_ms_);
    }
    last_total_ = total;
    last_ms_ = now_ms;
  }
  double PerSecond() const {
    std::lock_guard lock(mu_);
    double sum = 0;
    for (double r : rates_) sum += r;
    return sum / kSamples;
  }

 private:
  static constexpr size_t kSamples = 16;
  mutable std::mutex mu_;
  double rates_[kSamples] = {};
  size_t next_ = 0;
  uint64_t last_total_ = 0;
  int64_t last_ms_ = 0;
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
  // A command's latency histogram over every thread (empty if never recorded).
  std::vector<uint64_t> Histogram(size_t command_id) const {
    std::vector<uint64_t> counts;
    for (const auto& b : blocks_) b->latency.AddTo(command_id, &counts);
    return counts;
  }
  std::map<std::string, uint64_t, std::less<>> ErrorCodes() const {
    std::map<std::string, uint64_t, std::less<>> sum;
    for (const auto& b : blocks_) b->errors.AddTo(&sum);
    return sum;
  }
  void Reset() {
    for (auto& b : blocks_) b->Reset();
  }

  LatencyMonitor monitor;
  // Commands, input bytes and output bytes per second (INFO instantaneous_*).
  RateTracker ops_rate, input_rate, output_rate;
  void SampleRates(int64_t now_ms) {
    ops_rate.Sample(Sum(Stat::kCommandsProcessed), now_ms);
    input_rate.Sample(Sum(Stat::kNetInputBytes), now_ms);
    output_rate.Sample(Sum(Stat::kNetOutputBytes), now_ms);
  }

 private:
  std::vector<std::unique_ptr<ThreadStats>> blocks_;
};

}  // namespace ordis::server
