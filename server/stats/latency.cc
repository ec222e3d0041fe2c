#include "server/stats/latency.h"

#include <algorithm>
#include <bit>

namespace ordis::server {

void LatencyMonitor::Add(std::string_view event, int64_t now_s, uint32_t ms) {
  std::lock_guard lock(mu_);
  auto it = series_.find(event);
  if (it == series_.end()) it = series_.emplace(std::string(event), Series{}).first;
  Series& s = it->second;
  s.max_ms = std::max(s.max_ms, ms);
  Sample& previous = s.samples[(s.next + kSamples - 1) % kSamples];
  if (previous.time_s == now_s) {  // one sample a second: its largest
    previous.ms = std::max(previous.ms, ms);
    return;
  }
  s.samples[s.next] = {now_s, ms};
  s.next = (s.next + 1) % kSamples;
}

std::vector<LatencyMonitor::Latest> LatencyMonitor::LatestSamples() const {
  std::lock_guard lock(mu_);
  std::vector<Latest> out;
  for (const auto& [event, s] : series_) {
    const Sample& last = s.samples[(s.next + kSamples - 1) % kSamples];
    out.push_back({event, last.time_s, last.ms, s.max_ms});
  }
  return out;
}

bool LatencyMonitor::History(std::string_view event, std::vector<Sample>* out) const {
  std::lock_guard lock(mu_);
  auto it = series_.find(event);
  if (it == series_.end()) return false;
  for (size_t i = 0; i < kSamples; ++i) {
    const Sample& s = it->second.samples[(it->second.next + i) % kSamples];
    if (s.time_s != 0) out->push_back(s);
  }
  return true;
}

size_t LatencyMonitor::Reset(std::span<const std::string_view> events) {
  std::lock_guard lock(mu_);
  if (events.empty()) {
    const size_t n = series_.size();
    series_.clear();
    return n;
  }
  size_t n = 0;
  for (std::string_view e : events) {
    auto it = series_.find(e);
    if (it != series_.end()) {
      series_.erase(it);
      ++n;
    }
  }
  return n;
}

namespace {

// hdr_histogram's arithmetic for a lowest value of 1 (unit magnitude 0) and 256 sub-buckets.
constexpr int kHalfBits = LatencyHistogram::kSubBucketBits - 1;
constexpr int64_t kHalfCount = int64_t{1} << kHalfBits;
constexpr int64_t kSubBucketMask = (int64_t{1} << LatencyHistogram::kSubBucketBits) - 1;
constexpr int64_t kMinNs = 1;
constexpr int64_t kMaxNs = 1'000'000'000;  // Redis's LATENCY_HISTOGRAM_MAX_VALUE

int BucketIndex(int64_t v) {
  return 64 - std::countl_zero(static_cast<uint64_t>(v | kSubBucketMask)) -
         (LatencyHistogram::kSubBucketBits);
}

size_t CountsIndex(int64_t v) {
  const int bucket = BucketIndex(v);
  const int64_t sub = v >> bucket;
  return static_cast<size_t>(((int64_t{bucket} + 1) << kHalfBits) + (sub - kHalfCount));
}

int64_t ValueAtIndex(size_t index) {
  int bucket = static_cast<int>(index >> kHalfBits) - 1;
  int64_t sub = static_cast<int64_t>(index & (kHalfCount - 1)) + kHalfCount;
  if (bucket < 0) {
    sub -= kHalfCount;
    bucket = 0;
  }
  return sub << bucket;
}

// The largest value counted in the same slot as v.
int64_t HighestEquivalent(int64_t v) {
  const int bucket = BucketIndex(v);
  const int64_t sub = v >> bucket;
  const int width_bucket = sub >= (kHalfCount << 1) ? bucket + 1 : bucket;
  return (sub << bucket) + (int64_t{1} << width_bucket) - 1;
}

}  // namespace

LatencyHistogram::~LatencyHistogram() {
  for (auto& block : blocks_) delete[] block.load(std::memory_order_relaxed);
}

void LatencyHistogram::Record(int64_t ns) {
  ns = std::clamp(ns, kMinNs, kMaxNs);
  const size_t index = CountsIndex(ns);
  std::atomic<uint64_t>* block = blocks_[index / kBlockCounts].load(std::memory_order_relaxed);
  if (block == nullptr) {  // only the owner writes: no other thread makes this block
    block = new std::atomic<uint64_t>[kBlockCounts]();
    blocks_[index / kBlockCounts].store(block, std::memory_order_release);
  }
  std::atomic<uint64_t>& c = block[index % kBlockCounts];
  c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

void LatencyHistogram::AddTo(std::vector<uint64_t>* counts) const {
  counts->resize(kCounts);
  for (size_t b = 0; b < kBlocks; ++b) {
    const std::atomic<uint64_t>* block = blocks_[b].load(std::memory_order_acquire);
    if (block == nullptr) continue;
    for (size_t i = 0; i < kBlockCounts; ++i) {
      (*counts)[b * kBlockCounts + i] += block[i].load(std::memory_order_relaxed);
    }
  }
}

void LatencyHistogram::Clear() {
  for (auto& b : blocks_) {
    std::atomic<uint64_t>* block = b.load(std::memory_order_acquire);
    if (block == nullptr) continue;
    for (size_t i = 0; i < kBlockCounts; ++i) block[i].store(0, std::memory_order_relaxed);
  }
}

int64_t LatencyHistogram::ValueAtPercentile(const std::vector<uint64_t>& counts,
                                            double percentile) {
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  const double p = std::min(percentile, 100.0);
  const uint64_t wanted =
      std::max<uint64_t>(1, static_cast<uint64_t>(p / 100 * static_cast<double>(total) + 0.5));
  uint64_t seen = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    seen += counts[i];
    if (seen >= wanted) return HighestEquivalent(ValueAtIndex(i));
  }
  return 0;
}

std::vector<std::pair<int64_t, uint64_t>> LatencyHistogram::PowerOfTwoBuckets(
    const std::vector<uint64_t>& counts) {
  uint64_t total = 0;
  for (uint64_t c : counts) total += c;
  std::vector<std::pair<int64_t, uint64_t>> out;
  uint64_t cumulative = 0, reported = 0;
  size_t next_index = 0;
  for (int64_t level = 1024; reported < total && level <= 2 * kMaxNs; level *= 2) {
    const size_t through = std::min(CountsIndex(level), counts.size() - 1);
    for (; next_index <= through; ++next_index) cumulative += counts[next_index];
    if (cumulative > reported) {
      out.emplace_back(HighestEquivalent(level) / 1000, cumulative);
      reported = cumulative;
    }
  }
  return out;
}

CommandHistograms::~CommandHistograms() {
  for (size_t i = 0; i < size_; ++i) delete histograms_[i].load(std::memory_order_relaxed);
}

void CommandHistograms::Record(size_t command_id, int64_t ns) {
  LatencyHistogram* h = histograms_[command_id].load(std::memory_order_relaxed);
  if (h == nullptr) {
    h = new LatencyHistogram;
    histograms_[command_id].store(h, std::memory_order_release);
  }
  h->Record(ns);
}

bool CommandHistograms::AddTo(size_t command_id, std::vector<uint64_t>* counts) const {
  const LatencyHistogram* h = histograms_[command_id].load(std::memory_order_acquire);
  if (h == nullptr) return false;
  h->AddTo(counts);
  return true;
}

void CommandHistograms::Reset() {
  // A histogram stays allocated (its owner may be writing); its counts go back to zero.
  for (size_t i = 0; i < size_; ++i) {
    LatencyHistogram* h = histograms_[i].load(std::memory_order_acquire);
    if (h != nullptr) h->Clear();
  }
}

}  // namespace ordis::server
