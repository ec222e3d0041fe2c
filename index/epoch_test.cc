// EpochDomain: what is retired while a guard is active waits for it, and its bytes are counted
// as pending until freed (maxmemory does not count them: server/command/memory_guard.h).
#include "index/epoch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

namespace ordis::index {
namespace {

std::atomic<int> g_freed{0};
void FreeCounted(void* p) {
  std::free(p);
  g_freed.fetch_add(1);
}

TEST(EpochDomain, RetiredBytesArePendingUntilNoGuardCanReachThem) {
  EpochDomain domain;
  g_freed = 0;
  std::atomic<bool> entered{false}, release{false};
  std::thread reader([&] {
    EpochGuard guard(domain);
    entered = true;
    while (!release.load()) std::this_thread::yield();
  });
  while (!entered.load()) std::this_thread::yield();
  domain.Retire(std::malloc(100), FreeCounted, 100);
  domain.Retire(std::malloc(50), FreeCounted, 50);
  EXPECT_EQ(domain.pending_bytes(), 150u);
  // The reader entered before the retirements: nothing may go while it stays.
  for (int i = 0; i < 4; ++i) EXPECT_EQ(domain.Reclaim(), 2u);
  EXPECT_EQ(domain.pending_bytes(), 150u);
  EXPECT_EQ(g_freed.load(), 0);
  release = true;
  reader.join();
  for (int i = 0; i < 4 && domain.Reclaim() > 0; ++i) {
  }
  EXPECT_EQ(domain.pending(), 0u);
  EXPECT_EQ(domain.pending_bytes(), 0u);
  EXPECT_EQ(g_freed.load(), 2);
}

}  // namespace
}  // namespace ordis::index
