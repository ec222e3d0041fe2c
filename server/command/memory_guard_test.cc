// MemoryGuard and lazy free: memory handed to the lazy-free thread is on its way back, so eviction
// waits for it rather than evict other keys in its place; and only for a while. Used memory is a
// count the test controls: a cost per key plus a large cost per value still pending.
#include "server/command/memory_guard.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>

#include "base/clock.h"
#include "index/ordered_store.h"
#include "server/config/config.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server {
namespace {

using namespace std::chrono_literals;

constexpr uint64_t kPerKey = 100;
constexpr uint64_t kPerPendingValue = 5000;  // a large value not freed yet
constexpr int kStrings = 9;

template <typename Pred>
bool Eventually(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

class MemoryGuardLazyFreeTest : public ::testing::Test {
 protected:
  MemoryGuardLazyFreeTest() {
    EXPECT_EQ(config_.Set({{"maxmemory-policy", "allkeys-lru"},
                           {"maxmemory-samples", "64"},
                           {"lazyfree-lazy-eviction", "yes"},
                           {"maxmemory", std::to_string(10 * kPerKey)}}),
              "");
    ks_.SetLazyFreePolicy({.eviction = true});
    // Ten keys, at the limit: the oldest a set of 100 members (freed lazily), then strings.
    std::unique_lock lock(ks_.mu());
    ObjectPtr set = NewObject(ObjType::kSet);
    for (int i = 0; i < 100; ++i) set->set().insert("member:" + std::to_string(i));
    ks_.Set(0, "big", std::move(set))->access_s.store(LruClockS(NowMs()) - 1000);
    for (int i = 0; i < kStrings; ++i) {
      ks_.Set(0, "s" + std::to_string(i), NewString("v"))->access_s.store(LruClockS(NowMs()));
    }
  }

  uint64_t Used() {
    uint64_t keys = 0;
    for (int db = 0; db < ks_.num_dbs(); ++db) keys += ks_.DbSize(db);
    return kPerKey * keys + kPerPendingValue * ks_.lazy_free().pending();
  }
  // A write's eviction, as the dispatcher runs it before the command.
  MemoryGuard::Outcome Write(MemoryGuard& guard, const std::string& key) {
    std::unique_lock lock(ks_.mu());
    MemoryGuard::Outcome outcome = guard.Evict(NowMs());
    if (outcome != MemoryGuard::Outcome::kFull) {
      ks_.Set(0, key, NewString("v"))->access_s.store(LruClockS(NowMs()));  // as a command would
    }
    return outcome;
  }
  size_t DbSize() {
    std::shared_lock lock(ks_.mu());
    return ks_.DbSize(0);
  }

  Config config_;
  Keyspace ks_{1};
};

TEST_F(MemoryGuardLazyFreeTest, EvictionWaitsForValuesPendingOnTheThread) {
  ks_.lazy_free().TEST_Hold(true);
  MemoryGuard guard(
      ks_, config_, [this] { return Used(); }, /*lazy_free_wait=*/1h);
  ASSERT_EQ(Write(guard, "new"), MemoryGuard::Outcome::kUnder);  // at the limit, not over
  // Over: the set goes, to the thread; its memory is on the way back, so the write runs and no
  // other key goes in its place (without the wait, every string would go, then -OOM).
  EXPECT_EQ(Write(guard, "newer"), MemoryGuard::Outcome::kEvicting);
  EXPECT_EQ(ks_.evicted_keys(), 1u);
  EXPECT_EQ(ks_.lazy_free().pending(), 1u);
  EXPECT_EQ(Write(guard, "newest"), MemoryGuard::Outcome::kEvicting);
  EXPECT_EQ(ks_.evicted_keys(), 1u);
  EXPECT_EQ(DbSize(), 1u + kStrings + 2);
  // Freed: the background's step finds memory two keys over and evicts two strings.
  ks_.lazy_free().TEST_Hold(false);
  EXPECT_TRUE(Eventually([&] { return DbSize() == 10; })) << DbSize();
  EXPECT_EQ(ks_.evicted_keys(), 3u);
  EXPECT_EQ(ks_.lazy_free().freed(), 1u);
}

TEST_F(MemoryGuardLazyFreeTest, ALaggingThreadHoldsEvictionBackOnlyForItsWait) {
  ks_.lazy_free().TEST_Hold(true);
  MemoryGuard guard(
      ks_, config_, [this] { return Used(); }, /*lazy_free_wait=*/1ms);
  ASSERT_EQ(Write(guard, "new"), MemoryGuard::Outcome::kUnder);
  EXPECT_EQ(Write(guard, "newer"), MemoryGuard::Outcome::kEvicting);
  // The thread frees nothing: after its wait the background evicts as if nothing were pending,
  // here everything, since the pending value alone is over the limit.
  EXPECT_TRUE(Eventually([&] { return DbSize() == 0; })) << DbSize();
  ks_.lazy_free().TEST_Hold(false);
  EXPECT_TRUE(ks_.lazy_free().WaitIdle(20s));
}

TEST_F(MemoryGuardLazyFreeTest, NoevictionWaitsAStepForPendingValuesThenRefuses) {
  ASSERT_EQ(config_.Set({{"maxmemory-policy", "noeviction"}}), "");
  ks_.lazy_free().TEST_Hold(true);
  MemoryGuard guard(ks_, config_, [this] { return Used(); });
  {
    std::unique_lock lock(ks_.mu());
    ASSERT_TRUE(ks_.Delete(0, "big", FreeMode::kLazy));  // UNLINK
  }
  EXPECT_EQ(Write(guard, "new"), MemoryGuard::Outcome::kFull);
  ks_.lazy_free().TEST_Hold(false);
  ASSERT_TRUE(ks_.lazy_free().WaitIdle(20s));
  EXPECT_EQ(Write(guard, "new"), MemoryGuard::Outcome::kUnder);
}

// Bursts: over a limit of a megabyte or more, eviction goes on to a little under it (so the
// writes that follow evict nothing until memory is over again); under a megabyte it stops as soon
// as memory is under, as Redis does.
TEST(MemoryGuardSlack, EvictsALittleUnderALimitOfAMegabyteOrMore) {
  constexpr uint64_t kBytesPerKey = 1024;
  for (const uint64_t limit : {uint64_t{4} << 20, uint64_t{1000} * kBytesPerKey}) {
    SCOPED_TRACE(limit);
    Config config;
    ASSERT_EQ(
        config.Set({{"maxmemory-policy", "allkeys-lru"}, {"maxmemory", std::to_string(limit)}}),
        "");
    // Over the reference store, which retires nothing: the learned tree's retired nodes, which
    // maxmemory forgives up to a bound, come and go with its patcher's timing.
    Keyspace ks(1, index::NewMapStore());
    MemoryGuard guard(ks, config, [&] { return kBytesPerKey * ks.DbSize(0); });
    const uint64_t at_limit = limit / kBytesPerKey;
    const uint64_t slack =
        limit >= MemoryGuard::kMinSlackLimit
            ? std::min(limit / MemoryGuard::kSlackDivisor, MemoryGuard::kMaxSlack)
            : 0;
    const uint64_t after_burst = (limit - slack) / kBytesPerKey;
    std::unique_lock lock(ks.mu());
    int next = 0;
    auto write = [&] {
      MemoryGuard::Outcome outcome = guard.Evict(NowMs());
      ks.Set(0, "k" + std::to_string(next++), NewString("v"));
      return outcome;
    };
    while (ks.DbSize(0) < at_limit + 1) ASSERT_EQ(write(), MemoryGuard::Outcome::kUnder);
    ASSERT_EQ(ks.evicted_keys(), 0u);
    // One key over: the write evicts down to the slack's worth under the limit.
    ASSERT_EQ(write(), MemoryGuard::Outcome::kUnder);
    EXPECT_EQ(ks.evicted_keys(), at_limit + 1 - after_burst);
    EXPECT_EQ(ks.DbSize(0), after_burst + 1);
    // The writes that fill the slack evict nothing; the next one over evicts again.
    const uint64_t evicted = ks.evicted_keys();
    while (ks.DbSize(0) < at_limit + 1) ASSERT_EQ(write(), MemoryGuard::Outcome::kUnder);
    EXPECT_EQ(ks.evicted_keys(), evicted);
    ASSERT_EQ(write(), MemoryGuard::Outcome::kUnder);
    EXPECT_EQ(ks.evicted_keys(), evicted + at_limit + 1 - after_burst);
  }
}

}  // namespace
}  // namespace ordis::server
