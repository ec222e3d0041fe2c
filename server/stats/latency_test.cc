#include "server/stats/latency.h"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

namespace ordis::server {
namespace {

std::vector<uint64_t> Counts(const LatencyHistogram& h) {
  std::vector<uint64_t> counts;
  h.AddTo(&counts);
  return counts;
}

// Values as redis-server 7.0.15's hdr_histogram (2 significant digits) reports them.
TEST(LatencyHistogram, PercentilesAreHdrHistogramsHighestEquivalentValues) {
  LatencyHistogram h;
  for (int i = 0; i < 99; ++i) h.Record(7000);  // 7 us
  h.Record(75000);
  const auto counts = Counts(h);
  EXPECT_EQ(LatencyHistogram::ValueAtPercentile(counts, 50), 7007);
  EXPECT_EQ(LatencyHistogram::ValueAtPercentile(counts, 99), 7007);
  EXPECT_EQ(LatencyHistogram::ValueAtPercentile(counts, 99.9), 75263);
  EXPECT_EQ(LatencyHistogram::ValueAtPercentile(counts, 100), 75263);
  LatencyHistogram small;
  small.Record(1000);
  EXPECT_EQ(LatencyHistogram::ValueAtPercentile(Counts(small), 50), 1003);
  small.Record(0);              // clamped to 1 ns
  small.Record(5'000'000'000);  // clamped to 1 s
  EXPECT_EQ(LatencyHistogram::ValueAtPercentile(Counts(small), 100) / 1000000, 1002);  // 1 s
}

TEST(LatencyHistogram, PowerOfTwoBucketsAsLatencyHistogram) {
  LatencyHistogram h;
  for (int i = 0; i < 10; ++i) h.Record(1000);
  h.Record(3000);
  h.Record(40000);
  const auto buckets = LatencyHistogram::PowerOfTwoBuckets(Counts(h));
  // Redis labels the levels 1024 ns * 2^k by their highest equivalent value in microseconds:
  // 1, 2, 4, 8, 16, 33, 66 ...; only where the cumulative count grew.
  EXPECT_EQ(buckets, (std::vector<std::pair<int64_t, uint64_t>>{{1, 10}, {4, 11}, {66, 12}}));
  EXPECT_TRUE(LatencyHistogram::PowerOfTwoBuckets(std::vector<uint64_t>(LatencyHistogram::kCounts))
                  .empty());
}

TEST(LatencyMonitor, OneSampleASecondTheLargest) {
  LatencyMonitor m;
  m.Add("command", 100, 5);
  m.Add("command", 100, 9);
  m.Add("command", 100, 3);
  m.Add("command", 101, 4);
  m.Add("fast-command", 101, 2);
  std::vector<LatencyMonitor::Sample> history;
  ASSERT_TRUE(m.History("command", &history));
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].time_s, 100);
  EXPECT_EQ(history[0].ms, 9u);
  EXPECT_EQ(history[1].ms, 4u);
  auto latest = m.LatestSamples();
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest[0].event, "command");
  EXPECT_EQ(latest[0].latest_ms, 4u);
  EXPECT_EQ(latest[0].max_ms, 9u);
  for (int64_t t = 200; t < 400; ++t) m.Add("command", t, 1);
  history.clear();
  m.History("command", &history);
  EXPECT_EQ(history.size(), 160u);  // the newest 160 seconds
  EXPECT_EQ(history.front().time_s, 240);
  const std::string_view events[] = {"command", "nope"};
  EXPECT_EQ(m.Reset(events), 1u);
  EXPECT_FALSE(m.History("command", &history));
  EXPECT_EQ(m.Reset({}), 1u);
}

}  // namespace
}  // namespace ordis::server
