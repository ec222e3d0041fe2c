#include "server/net/thread_balancer.h"

#include <gtest/gtest.h>

#include <vector>

#include "server/net/cpu_usage.h"

namespace ordis::server {
namespace {

// Feeds the same window `times` times; returns the active count after the last.
int Feed(ThreadBalancer& b, std::vector<double> cpu, double idle, int times) {
  for (int i = 0; i < times; ++i) b.Update(cpu, idle);
  return b.active();
}

TEST(ThreadBalancerTest, StartsWithOneThread) {
  ThreadBalancer b(4);
  EXPECT_EQ(b.active(), 1);
}

TEST(ThreadBalancerTest, GrowsWhenSaturatedWithIdleCores) {
  // Measured on 2 cores, pipelined GET: one thread at a full core, 0.66 cores idle.
  ThreadBalancer b(2);
  EXPECT_EQ(Feed(b, {1.0}, 0.66, 1), 2);
  EXPECT_EQ(Feed(b, {0.6, 0.6}, 0.3, 20), 2);  // and it stays: 1.2 cores do not fit in one
  EXPECT_EQ(Feed(b, {1.0, 1.0}, 0.9, 20), 2);  // never beyond the threads there are
}

// A thread added is kept only if the commands per second grow with it.
TEST(ThreadBalancerTest, KeepsAThreadThatRaisesThroughput) {
  // Pipelined GET on 2 cores: 1.3x the requests/s with the second thread.
  ThreadBalancer b(2);
  EXPECT_EQ(b.Update(std::vector<double>{1.0}, 0.66, 600'000), 2);
  for (int i = 0; i < 1 + ThreadBalancer::kTrialWindows; ++i) {
    EXPECT_EQ(b.Update(std::vector<double>{0.7, 0.7}, 0.3, 780'000), 2) << i;
  }
  EXPECT_EQ(b.Update(std::vector<double>{0.7, 0.7}, 0.3, 780'000), 2);
}

TEST(ThreadBalancerTest, GivesBackAThreadThatOnlyTakesTurnsAndWaitsBeforeTryingAgain) {
  // SET at maxmemory on 2 cores: saturated on one thread, the same requests/s on two (they take
  // turns at the exclusive lock).
  ThreadBalancer b(2);
  const std::vector<double> one = {1.0}, two = {0.66, 0.4};
  EXPECT_EQ(b.Update(one, 0.5, 349'000), 2);
  EXPECT_EQ(b.Update(two, 0.3, 329'000), 2);  // the window after a change: skipped
  for (int i = 0; i < ThreadBalancer::kTrialWindows - 1; ++i) {
    EXPECT_EQ(b.Update(two, 0.3, 329'000), 2) << i;
  }
  EXPECT_EQ(b.Update(two, 0.3, 329'000), 1);  // no gain: given back
  // Saturated again, yet growth waits out its backoff.
  for (int i = 0; i < ThreadBalancer::kFirstBackoff - 2; ++i) {
    ASSERT_EQ(b.Update(one, 0.5, 349'000), 1) << i;
  }
  // Saturated windows with the rate they ran at; returns the active count after them.
  auto saturated = [&](int windows) {
    for (int i = 0; i < windows; ++i) b.Update(one, 0.5, 349'000);
    return b.active();
  };
  EXPECT_EQ(saturated(3), 2);  // then it is tried again
  // Failing again doubles the wait.
  for (int i = 0; i < 1 + ThreadBalancer::kTrialWindows; ++i) b.Update(two, 0.3, 330'000);
  EXPECT_EQ(b.active(), 1);
  EXPECT_EQ(saturated(ThreadBalancer::kFirstBackoff + 10), 1);
  EXPECT_EQ(saturated(ThreadBalancer::kFirstBackoff - 10), 2);  // 2 x kFirstBackoff in all
}

TEST(ThreadBalancerTest, NoTrialWithoutARate) {
  ThreadBalancer b(2);
  EXPECT_EQ(b.Update(std::vector<double>{1.0}, 0.66), 2);
  EXPECT_EQ(Feed(b, {0.6, 0.6}, 0.3, 20), 2);
}

// Two threads that passed their trial while a cache filled, then reached maxmemory: every write
// evicts and the threads take turns at the keyspace lock.
class LockBoundTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EXPECT_EQ(b_.Update(one_, 0.6, 400'000), 2);
    for (int i = 0; i < 1 + ThreadBalancer::kTrialWindows; ++i) {
      ASSERT_EQ(b_.Update(two_, 0.2, 520'000, 0.05), 2) << i;  // 1.3x: kept
    }
  }
  // Windows of two threads waiting `wait` cores for the lock at `rate`; the count after them.
  int Waiting(int windows, double wait, double rate) {
    for (int i = 0; i < windows; ++i) b_.Update(two_, 0.2, rate, wait);
    return b_.active();
  }
  ThreadBalancer b_{2};
  const std::vector<double> one_ = {1.0}, two_ = {0.9, 0.9};
};

TEST_F(LockBoundTest, GivesBackAThreadThatOnlyWaitsForTheLock) {
  // Measured: 0.33 cores each waiting, at the requests/s one thread manages too.
  EXPECT_EQ(Waiting(ThreadBalancer::kLockWindows - 1, 0.66, 300'000), 2);
  EXPECT_EQ(Waiting(1, 0.66, 300'000), 1);
  // On trial: one thread runs as fast, so it stays at one ...
  b_.Update(one_, 0.6, 290'000);  // (the window after a change: skipped)
  for (int i = 0; i < ThreadBalancer::kTrialWindows; ++i) b_.Update(one_, 0.6, 290'000);
  EXPECT_EQ(b_.active(), 1);
  // ... and growing waits as after a failed growth trial.
  for (int i = 0; i < ThreadBalancer::kFirstBackoff - 6; ++i) {
    ASSERT_EQ(b_.Update(one_, 0.6, 290'000), 1) << i;
  }
  for (int i = 0; i < 6; ++i) b_.Update(one_, 0.6, 290'000);
  EXPECT_EQ(b_.active(), 2);
}

TEST_F(LockBoundTest, BringsTheThreadBackWhenThroughputFallsWithoutIt) {
  // Pipelined writes that wait for the lock yet run faster on two threads.
  EXPECT_EQ(Waiting(ThreadBalancer::kLockWindows, 0.5, 500'000), 1);
  b_.Update(one_, 0.6, 350'000);
  for (int i = 0; i < ThreadBalancer::kTrialWindows - 1; ++i) {
    ASSERT_EQ(b_.Update(one_, 0.6, 350'000), 1) << i;
  }
  EXPECT_EQ(b_.Update(one_, 0.6, 350'000), 2);  // 0.7x without it: it comes back
  // And the lock starts no trial until its backoff is over.
  EXPECT_EQ(Waiting(ThreadBalancer::kFirstBackoff - 2, 0.5, 500'000), 2);
  EXPECT_EQ(Waiting(ThreadBalancer::kLockWindows + 1, 0.5, 500'000), 1);
}

TEST_F(LockBoundTest, BriefOrSmallWaitsStartNoTrial) {
  // An unpipelined write load waited 0.01 cores; a pause in the waits starts the count over.
  EXPECT_EQ(Waiting(20, 0.01, 500'000), 2);
  EXPECT_EQ(Waiting(20, -1, 500'000), 2);  // unknown
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(Waiting(ThreadBalancer::kLockWindows - 1, 0.66, 500'000), 2);
    EXPECT_EQ(Waiting(1, 0.1, 500'000), 2);
  }
}

TEST(ThreadBalancerTest, StaysWhenTheMachineIsBusy) {
  // Unpipelined GET beside redis-benchmark: the thread is saturated but so is the machine; a
  // second thread would only add wake-ups.
  ThreadBalancer b(2);
  EXPECT_EQ(Feed(b, {0.96}, 0.04, 20), 1);
}

TEST(ThreadBalancerTest, StaysWhileTheThreadHasRoom) {
  ThreadBalancer b(8);
  EXPECT_EQ(Feed(b, {0.7}, 7.0, 20), 1);
}

TEST(ThreadBalancerTest, GrowsOnThreadCpuAloneWhenIdleIsUnknown) {
  ThreadBalancer b(2);
  EXPECT_EQ(Feed(b, {0.95}, -1, 1), 2);
}

TEST(ThreadBalancerTest, ShrinksAfterALullOfThreeWindows) {
  // Unpipelined GET on two threads: 0.38 cores each, which one thread can carry.
  ThreadBalancer b(2);
  b.Reset(2);
  EXPECT_EQ(Feed(b, {0.38, 0.38}, 0.47, 2), 2);
  EXPECT_EQ(Feed(b, {0.38, 0.38}, 0.47, 1), 1);
}

TEST(ThreadBalancerTest, SettlesAfterAChange) {
  ThreadBalancer b(3);
  EXPECT_EQ(Feed(b, {1.0}, 2.0, 1), 2);
  // The window right after a change is skipped whatever it says.
  EXPECT_EQ(Feed(b, {0.95, 0.95}, 2.0, 1), 2);
  EXPECT_EQ(Feed(b, {0.95, 0.95}, 1.0, 1), 3);
}

TEST(ThreadBalancerTest, AnInterruptedLullStartsOver) {
  ThreadBalancer b(2);
  b.Reset(2);
  b.Update(std::vector<double>{0.1, 0.1}, 1.0);
  b.Update(std::vector<double>{0.1, 0.1}, 1.0);
  b.Update(std::vector<double>{0.9, 0.9}, 0.0);
  b.Update(std::vector<double>{0.1, 0.1}, 1.0);
  b.Update(std::vector<double>{0.1, 0.1}, 1.0);
  EXPECT_EQ(b.active(), 2);
  b.Update(std::vector<double>{0.1, 0.1}, 1.0);
  EXPECT_EQ(b.active(), 1);
}

TEST(ThreadBalancerTest, IdleServerShrinksToOne) {
  ThreadBalancer b(4);
  b.Reset(4);
  EXPECT_EQ(Feed(b, {0, 0, 0, 0}, 4.0, 3), 3);
  EXPECT_EQ(Feed(b, {0, 0, 0}, 4.0, 4), 2);  // one settling window, then three
  EXPECT_EQ(Feed(b, {0, 0}, 4.0, 4), 1);
  EXPECT_EQ(Feed(b, {0}, 4.0, 10), 1);
}

TEST(ThreadBalancerTest, ResetClampsAndForgetsVotes) {
  ThreadBalancer b(2);
  b.Reset(5);
  EXPECT_EQ(b.active(), 2);
  b.Update(std::vector<double>{0.1, 0.1}, 1.0);
  b.Update(std::vector<double>{0.1, 0.1}, 1.0);
  b.Reset(2);
  b.Update(std::vector<double>{0.1, 0.1}, 1.0);  // the votes before Reset do not count
  EXPECT_EQ(b.active(), 2);
  b.Reset(0);
  EXPECT_EQ(b.active(), 1);
}

std::vector<size_t> Apply(std::vector<size_t> assigned, int active) {
  for (const ConnectionMove& m : PlanMoves(assigned, active)) {
    EXPECT_NE(m.from, m.to);
    EXPECT_LE(m.count, assigned[m.from]);
    assigned[m.from] -= m.count;
    assigned[m.to] += m.count;
  }
  return assigned;
}

TEST(PlanMovesTest, SpreadsWhenAThreadIsAdded) {
  EXPECT_EQ(Apply({50, 0}, 2), (std::vector<size_t>{25, 25}));
  EXPECT_EQ(Apply({51, 0, 0}, 3), (std::vector<size_t>{17, 17, 17}));
  EXPECT_EQ(Apply({30, 30, 0}, 3), (std::vector<size_t>{20, 20, 20}));
}

TEST(PlanMovesTest, EmptiesInactiveThreads) {
  EXPECT_EQ(Apply({25, 25}, 1), (std::vector<size_t>{50, 0}));
  EXPECT_EQ(Apply({10, 10, 1}, 2), (std::vector<size_t>{11, 10, 0}));
  EXPECT_EQ(Apply({0, 0, 3}, 2), (std::vector<size_t>{2, 1, 0}));
}

TEST(PlanMovesTest, LeavesSmallImbalancesAlone) {
  EXPECT_TRUE(PlanMoves(std::vector<size_t>{26, 24}, 2).empty());
  EXPECT_TRUE(PlanMoves(std::vector<size_t>{1, 0}, 2).empty());
  EXPECT_TRUE(PlanMoves(std::vector<size_t>{0, 0}, 2).empty());
  EXPECT_TRUE(PlanMoves(std::vector<size_t>{7}, 1).empty());
  EXPECT_FALSE(PlanMoves(std::vector<size_t>{40, 10}, 2).empty());
}

TEST(CpuUsageTest, ParsesIdleAndIowait) {
  // user nice system idle iowait ...: (idle + iowait) / ticks.
  EXPECT_DOUBLE_EQ(ParseIdleSeconds("cpu  10 0 5 300 20 0 0 0 0 0\ncpu0 ...", 100), 3.2);
  EXPECT_LT(ParseIdleSeconds("cpu0 1 2 3 4 5\n", 100), 0);
  EXPECT_LT(ParseIdleSeconds("cpu  1 2 3\n", 100), 0);
  EXPECT_LT(ParseIdleSeconds("", 100), 0);
  EXPECT_GT(MachineIdleSeconds(), 0);
  EXPECT_GT(ThreadCpuSeconds(CurrentThreadCpuClock()), 0);
  EXPECT_LT(ThreadCpuSeconds(kNoCpuClock), 0);
}

}  // namespace
}  // namespace ordis::server
