// Latency statistics: the latency monitor (LATENCY LATEST/HISTORY/RESET: events slower than
// latency-monitor-threshold, Redis 7.0's latency.c: a series of 160 per-second samples per event,
// its latest and all-time maximum) and per-command latency histograms (LATENCY HISTOGRAM, INFO
// latencystats: latency-tracking).
//
// Thread safety: thread safe. The monitor takes a mutex only for samples over the threshold; the
// histograms are per thread (CommandHistograms), their buckets relaxed atomics, summed on read.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ordis::server {

class LatencyMonitor {
 public:
  struct Sample {
    int64_t time_s = 0;
    uint32_t ms = 0;
  };
  struct Latest {
    std::string event;
    int64_t time_s;
    uint32_t latest_ms;
    uint32_t max_ms;
  };

  // Adds a sample of event at now_s (samples within one second keep the largest).
  void Add(std::string_view event, int64_t now_s, uint32_t ms);
  // Every event's latest sample and maximum (LATENCY LATEST), by event name.
  std::vector<Latest> LatestSamples() const;
  // The event's samples, oldest first; false if the event has none.
  bool History(std::string_view event, std::vector<Sample>* out) const;
  // Forgets the named events (all if none named); returns how many had samples.
  size_t Reset(std::span<const std::string_view> events);

 private:
  static constexpr size_t kSamples = 160;  // Redis's LATENCY_TS_LEN
  struct Series {
    Sample samples[kSamples];
    size_t next = 0;
    uint32_t max_ms = 0;
  };
  mutable std::mutex mu_;
  std::map<std::string, Series, std::less<>> series_;
};

// A latency histogram with hdr_histogram's layout at 2 significant digits over 1 ns .. 1 s (what
// Redis 7.0 keeps per command), so its percentiles and log-scale buckets are Redis's. Written by
// one thread; read (summed) by any. Hand-written: Debian 12 packages no C HdrHistogram.
class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 8;  // 256 sub-buckets: 2 significant digits
  static constexpr int kBuckets = 23;       // up to 2^30 ns, past Redis's 1 s maximum
  static constexpr size_t kCounts = (kBuckets + 1) * (size_t{1} << (kSubBucketBits - 1));

  LatencyHistogram() = default;
  ~LatencyHistogram();
  LatencyHistogram(const LatencyHistogram&) = delete;
  LatencyHistogram& operator=(const LatencyHistogram&) = delete;

  // Records a duration in nanoseconds (clamped to 1 ns .. 1 s).
  void Record(int64_t ns);
  // Adds this histogram's counts to counts (kCounts entries).
  void AddTo(std::vector<uint64_t>* counts) const;
  void Clear();

  // On summed counts: the value at percentile (hdr_value_at_percentile), in nanoseconds.
  static int64_t ValueAtPercentile(const std::vector<uint64_t>& counts, double percentile);
  // On summed counts: LATENCY HISTOGRAM's (microseconds, cumulative count) pairs, by powers of
  // two from 1024 ns, each where the cumulative count grew.
  static std::vector<std::pair<int64_t, uint64_t>> PowerOfTwoBuckets(
      const std::vector<uint64_t>& counts);

 private:
  // The counts in blocks of one power of two's sub-buckets (1 KB), made when first recorded into:
  // a command's latencies span a few powers of two, so it costs a few KB instead of the 24 KB of
  // every slot (which maxmemory counted, per command and thread).
  static constexpr size_t kBlockCounts = size_t{1} << (kSubBucketBits - 1);
  static constexpr size_t kBlocks = kCounts / kBlockCounts;
  std::atomic<std::atomic<uint64_t>*> blocks_[kBlocks] = {};
};

// One thread's histograms, one per command (by CommandSpec::id), made on first use.
class CommandHistograms {
 public:
  explicit CommandHistograms(size_t num_commands)
      : histograms_(std::make_unique<std::atomic<LatencyHistogram*>[]>(num_commands)),
        size_(num_commands) {}
  ~CommandHistograms();
  CommandHistograms(const CommandHistograms&) = delete;
  CommandHistograms& operator=(const CommandHistograms&) = delete;

  // The owning thread only.
  void Record(size_t command_id, int64_t ns);
  // Any thread: adds command_id's counts (false: never recorded here).
  bool AddTo(size_t command_id, std::vector<uint64_t>* counts) const;
  // Any thread (CONFIG RESETSTAT): zeroes every count.
  void Reset();

 private:
  std::unique_ptr<std::atomic<LatencyHistogram*>[]> histograms_;
  size_t size_;
};

}  // namespace ordis::server
