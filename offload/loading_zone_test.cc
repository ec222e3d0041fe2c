// The Loading Zone: a value comes back once, only for the location it was read from; a full zone
// drops its oldest; under one producer and three consumers (ThreadSanitizer in scripts/test.sh)
// every value put is taken exactly once, intact, or dropped.
#include "offload/loading_zone.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace ordis::offload {
namespace {

TierLocation At(uint32_t i) { return {i % 7, 100 + i, uint64_t{i} * 4096}; }
std::string ValueOf(uint32_t i) { return "value:" + std::to_string(i) + std::string(i % 50, 'x'); }

TEST(LoadingZone, AValueComesBackOnceForItsLocation) {
  LoadingZone zone(16);
  ASSERT_TRUE(zone.Put(1, At(1), 0, ValueOf(1)));
  ASSERT_TRUE(zone.Put(2, At(2), 0, ValueOf(2)));
  EXPECT_EQ(zone.bytes(), ValueOf(1).size() + ValueOf(2).size());
  std::string value;
  // Read from another place than the key's object points to now: stale, never returned.
  EXPECT_FALSE(zone.CheckAndReturn(1, At(3), 0, &value));
  EXPECT_FALSE(zone.CheckAndReturn(3, At(1), 0, &value));
  // The same place of a segment removed since and reused: stale too.
  EXPECT_FALSE(zone.CheckAndReturn(1, At(1), 1, &value));
  ASSERT_TRUE(zone.CheckAndReturn(1, At(1), 0, &value));
  EXPECT_EQ(value, ValueOf(1));
  EXPECT_FALSE(zone.CheckAndReturn(1, At(1), 0, &value));  // taken
  ASSERT_TRUE(zone.CheckAndReturn(2, At(2), 0, &value));
  EXPECT_EQ(value, ValueOf(2));
  EXPECT_EQ(zone.bytes(), 0u);
  EXPECT_EQ(zone.hits(), 2u);
  EXPECT_EQ(zone.dropped(), 0u);
}

TEST(LoadingZone, ValuesLeftUnaskedForAreDropped) {
  LoadingZone zone(16);  // a quarter of it: four values put after one not asked for drop it
  for (uint32_t i = 0; i < 6; ++i) ASSERT_TRUE(zone.Put(i, At(i), 0, ValueOf(i)));
  EXPECT_EQ(zone.dropped(), 1u);
  std::string value;
  EXPECT_FALSE(zone.CheckAndReturn(0, At(0), 0, &value));
  uint64_t held = 0;
  for (uint32_t i = 1; i < 6; ++i) held += ValueOf(i).size();
  EXPECT_EQ(zone.bytes(), held);  // what was dropped no longer counts
  // Values taken leave at once: nothing more is dropped while consumers keep up.
  for (uint32_t i = 1; i < 6; ++i) {
    ASSERT_TRUE(zone.CheckAndReturn(i, At(i), 0, &value)) << i;
    EXPECT_EQ(value, ValueOf(i));
  }
  for (uint32_t i = 6; i < 40; ++i) {
    ASSERT_TRUE(zone.Put(i, At(i), 0, ValueOf(i)));
    ASSERT_TRUE(zone.CheckAndReturn(i, At(i), 0, &value)) << i;
  }
  EXPECT_EQ(zone.dropped(), 1u);
  EXPECT_EQ(zone.bytes(), 0u);
}

TEST(LoadingZone, OneProducerThreeConsumersTakeEachValueOnce) {
  constexpr uint32_t kValues = 200000;
  LoadingZone zone(64);
  std::unique_ptr<std::atomic<int>[]> taken(new std::atomic<int>[kValues]);
  for (uint32_t i = 0; i < kValues; ++i) taken[i] = 0;
  std::atomic<uint32_t> produced{0};
  std::atomic<bool> done{false};
  std::atomic<uint64_t> refused{0};
  std::vector<std::thread> consumers;
  for (int c = 0; c < 3; ++c) {
    consumers.emplace_back([&, c] {
      std::string value;
      uint32_t probe = static_cast<uint32_t>(c);
      while (!done.load(std::memory_order_acquire)) {
        // Keys just produced, as commands would ask for the keys their batch prefetched.
        const uint32_t newest = produced.load(std::memory_order_acquire);
        if (newest == 0) continue;
        const uint32_t i = newest - 1 - probe++ % std::min<uint32_t>(newest, 48);
        if (zone.CheckAndReturn(i, At(i), 0, &value)) {
          ASSERT_EQ(value, ValueOf(i));
          ASSERT_EQ(taken[i].fetch_add(1), 0) << i << " taken twice";
        }
      }
    });
  }
  for (uint32_t i = 0; i < kValues; ++i) {
    if (!zone.Put(i, At(i), 0, ValueOf(i))) refused.fetch_add(1);
    produced.store(i + 1, std::memory_order_release);
  }
  done.store(true, std::memory_order_release);
  for (auto& t : consumers) t.join();
  // What is left is taken now; every value was taken once or dropped.
  std::string value;
  uint64_t taken_count = 0;
  for (uint32_t i = 0; i < kValues; ++i) {
    if (zone.CheckAndReturn(i, At(i), 0, &value)) {
      ASSERT_EQ(taken[i].fetch_add(1), 0);
    }
    taken_count += static_cast<uint64_t>(taken[i].load());
  }
  EXPECT_EQ(taken_count + zone.dropped(), kValues);
  EXPECT_GT(taken_count, 0u);
  EXPECT_LE(refused.load(), zone.dropped());
}

}  // namespace
}  // namespace ordis::offload
