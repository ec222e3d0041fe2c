// The prefetcher: reads asked for by waiters land in the Loading Zone with their records checked,
// a waiter is named once all its reads landed, a record asked for twice is read once, a damaged
// or misdirected record never reaches the zone (its waiter is still named), and a full ring
// refuses rather than blocks.
#include "offload/prefetcher.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "offload/host_view.h"
#include "offload/tier_store.h"
#include "persistence/scratch_dir_test_support.h"
#include "persistence/tier_format.h"

namespace ordis::offload {
namespace {

using persistence::kTierAlign;

class PrefetcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TierStoreOptions options;
    options.dir = dir_.path();
    options.max_bytes = 4 * 64 * kTierAlign;
    options.segment_bytes = 64 * kTierAlign;
    options.batch_bytes = 4 * kTierAlign;
    if (!TierStore::Open(options, &store_).ok()) GTEST_SKIP() << "no io_uring here";
    ASSERT_TRUE(Prefetcher::Create(/*depth=*/4, /*zone_entries=*/16, &prefetcher_).ok());
  }
  // key:i with a value of its own, on disk.
  void DemoteOnDisk(int count) {
    for (int i = 0; i < count; ++i) {
      const std::string key = "key:" + std::to_string(i);
      values_[key] = std::string(500 + i * 37, static_cast<char>('a' + i % 26)) + key;
      ASSERT_TRUE(store_->Demote(key, values_[key], &at_[key]).ok());
    }
    ASSERT_TRUE(store_->Drain().ok());
  }
  bool Ask(uint64_t waiter, const std::string& key, const std::string& as_key) {
    int fd;
    uint32_t generation;
    TierSpan span;
    EXPECT_TRUE(store_->DiskSpan(at_[key], &fd, &generation, &span));
    return prefetcher_->Read(waiter, HostView::Digest(as_key), as_key, at_[key], fd, generation,
                             span);
  }
  // Reaps until `want` waiters were named (the event fd says when reads landed).
  std::vector<uint64_t> ReapUntil(size_t want) {
    std::vector<uint64_t> ready;
    while (ready.size() < want) {
      pollfd p{prefetcher_->event_fd(), POLLIN, 0};
      EXPECT_EQ(poll(&p, 1, 10'000), 1);
      prefetcher_->Reap([&](uint64_t waiter) { ready.push_back(waiter); });
    }
    return ready;
  }
  bool Take(const std::string& key, std::string* value) {
    const TierLocation& at = at_[key];
    return prefetcher_->zone().CheckAndReturn(HostView::Digest(key), at,
                                              store_->files().generation(at.segment), value);
  }

  persistence::ScratchDir dir_;
  std::unique_ptr<TierStore> store_;
  std::unique_ptr<Prefetcher> prefetcher_;
  std::map<std::string, std::string> values_;
  std::map<std::string, TierLocation> at_;
};

TEST_F(PrefetcherTest, ReadsLandInTheZoneAndNameTheirWaiters) {
  DemoteOnDisk(3);
  ASSERT_TRUE(Ask(7, "key:0", "key:0"));
  ASSERT_TRUE(Ask(7, "key:1", "key:1"));
  ASSERT_TRUE(Ask(8, "key:1", "key:1"));  // shares waiter 7's read
  ASSERT_TRUE(Ask(8, "key:2", "key:2"));
  ASSERT_TRUE(prefetcher_->Submit().ok());
  std::vector<uint64_t> ready = ReapUntil(2);
  std::sort(ready.begin(), ready.end());
  EXPECT_EQ(ready, (std::vector<uint64_t>{7, 8}));
  EXPECT_EQ(prefetcher_->in_flight(), 0u);
  const Prefetcher::Stats stats = prefetcher_->stats();
  EXPECT_EQ(stats.reads, 3u);
  EXPECT_EQ(stats.shared, 1u);
  EXPECT_EQ(stats.landed, 3u);
  for (const char* key : {"key:0", "key:1", "key:2"}) {
    std::string value;
    ASSERT_TRUE(Take(key, &value)) << key;
    EXPECT_EQ(value, values_[key]);
    EXPECT_FALSE(Take(key, &value)) << key;  // taken once
  }
  EXPECT_EQ(prefetcher_->stats().zone_hits, 3u);
}

TEST_F(PrefetcherTest, AMisdirectedRecordNeverReachesTheZone) {
  DemoteOnDisk(2);
  // key:1's record asked for as key:0's: the record's own key does not match.
  at_["key:0"] = at_["key:1"];
  ASSERT_TRUE(Ask(1, "key:1", "key:0"));
  ASSERT_TRUE(prefetcher_->Submit().ok());
  EXPECT_EQ(ReapUntil(1), (std::vector<uint64_t>{1}));
  EXPECT_EQ(prefetcher_->stats().damaged, 1u);
  EXPECT_EQ(prefetcher_->stats().landed, 0u);
  std::string value;
  EXPECT_FALSE(Take("key:0", &value));
}

TEST_F(PrefetcherTest, AFullRingRefusesAndRecovers) {
  DemoteOnDisk(6);
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(Ask(i, "key:" + std::to_string(i), "key:" + std::to_string(i)));
  EXPECT_FALSE(Ask(9, "key:4", "key:4"));  // depth 4
  EXPECT_EQ(prefetcher_->stats().ring_full, 1u);
  ASSERT_TRUE(prefetcher_->Submit().ok());
  EXPECT_EQ(ReapUntil(4).size(), 4u);
  ASSERT_TRUE(Ask(9, "key:4", "key:4"));
  ASSERT_TRUE(Ask(9, "key:5", "key:5"));
  ASSERT_TRUE(prefetcher_->Submit().ok());
  EXPECT_EQ(ReapUntil(1), (std::vector<uint64_t>{9}));
  std::string value;
  ASSERT_TRUE(Take("key:5", &value));
  EXPECT_EQ(value, values_["key:5"]);
}

TEST_F(PrefetcherTest, ReadsAheadHoldNoMoreThanTheirBudget) {
  DemoteOnDisk(4);
  // Room for the first two reads' spans, not for the third's too.
  uint64_t spans = 0;
  for (const char* key : {"key:0", "key:1", "key:2"}) spans += TierRecordSpan(at_[key]).length;
  prefetcher_->set_max_bytes(spans - 1);
  ASSERT_TRUE(Ask(1, "key:0", "key:0"));
  ASSERT_TRUE(Ask(1, "key:1", "key:1"));
  EXPECT_FALSE(Ask(1, "key:2", "key:2"));
  ASSERT_TRUE(prefetcher_->Submit().ok());
  EXPECT_EQ(ReapUntil(1), (std::vector<uint64_t>{1}));
  // The zone holds their values now: room for more once they are taken.
  std::string value;
  ASSERT_TRUE(Take("key:0", &value));
  ASSERT_TRUE(Take("key:1", &value));
  EXPECT_EQ(prefetcher_->zone().bytes(), 0u);
  ASSERT_TRUE(Ask(2, "key:2", "key:2"));
  ASSERT_TRUE(prefetcher_->Submit().ok());
  EXPECT_EQ(ReapUntil(1), (std::vector<uint64_t>{2}));
}

TEST_F(PrefetcherTest, ARecordStillInMemoryIsNotReadFromDisk) {
  TierLocation at;
  ASSERT_TRUE(store_->Demote("k", std::string(300, 'v'), &at).ok());  // its batch still filling
  int fd;
  uint32_t generation;
  TierSpan span;
  EXPECT_FALSE(store_->DiskSpan(at, &fd, &generation, &span));
}

}  // namespace
}  // namespace ordis::offload
