#include "base/memory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

namespace ordis::base {
namespace {

constexpr size_t kBlock = 1 << 20;
constexpr int kBlocks = 16;

// Other threads of the process (gtest's) allocate a little meanwhile.
constexpr int64_t kSlack = 256 << 10;

int64_t Used() { return static_cast<int64_t>(UsedMemory()); }

std::vector<std::unique_ptr<char[]>> Allocate() {
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < kBlocks; ++i) blocks.emplace_back(new char[kBlock]);
  return blocks;
}

TEST(UsedMemory, CountsWhatIsAllocatedUntilFreed) {
  MemoryAccountedThread accounted;
  int64_t before = Used();
  auto blocks = Allocate();
  int64_t during = Used();
  EXPECT_GE(during - before, int64_t{kBlocks} * kBlock);
  EXPECT_LE(during - before, int64_t{kBlocks} * kBlock + kSlack);
  blocks.clear();
  EXPECT_LE(std::abs(Used() - before), kSlack);
}

TEST(UsedMemory, KeepsWhatAnExitedThreadLeftAllocated) {
  MemoryAccountedThread accounted;
  int64_t before = Used();
  std::vector<std::unique_ptr<char[]>> blocks;
  std::thread([&] {
    MemoryAccountedThread worker;
    blocks = Allocate();
  }).join();
  EXPECT_GE(Used() - before, int64_t{kBlocks} * kBlock);
  // Freed by another thread than the one that allocated.
  blocks.clear();
  EXPECT_LE(std::abs(Used() - before), kSlack);
}

TEST(UsedMemory, ReadableFromAnUnaccountedThread) {
  MemoryAccountedThread accounted;
  auto blocks = Allocate();
  int64_t seen = 0;
  std::thread([&] { seen = Used(); }).join();
  EXPECT_GE(seen, int64_t{kBlocks} * kBlock);
}

TEST(UsedMemory, NestedAccountingCountsOnce) {
  MemoryAccountedThread outer;
  int64_t before = Used();
  {
    MemoryAccountedThread inner;
    auto blocks = Allocate();
    EXPECT_LE(Used() - before, int64_t{kBlocks} * kBlock + kSlack);
  }
  EXPECT_LE(std::abs(Used() - before), kSlack);
}

// Threads come and go, allocating and freeing, while others read the total: every read is
// sane and the total returns to where it started.
TEST(UsedMemory, ThreadsExitingWhileOthersRead) {
  MemoryAccountedThread accounted;
  int64_t before = Used();
  std::atomic<bool> stop{false};
  std::atomic<int64_t> worst{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      MemoryAccountedThread reader;
      while (!stop.load()) {
        int64_t deviation = std::abs(Used() - before);
        int64_t w = worst.load();
        while (deviation > w && !worst.compare_exchange_weak(w, deviation)) {
        }
      }
    });
  }
  for (int round = 0; round < 100; ++round) {
    std::vector<std::thread> workers;
    for (int w = 0; w < 4; ++w) {
      workers.emplace_back([] {
        MemoryAccountedThread worker;
        std::vector<std::unique_ptr<char[]>> blocks;
        for (int i = 0; i < 64; ++i) blocks.emplace_back(new char[4096]);
      });
    }
    for (std::thread& t : workers) t.join();
  }
  stop.store(true);
  for (std::thread& t : readers) t.join();
  // At most every worker's blocks at once, plus what thread start-up allocates.
  EXPECT_LE(worst.load(), 4 * 64 * 4096 + kSlack);
  EXPECT_LE(std::abs(Used() - before), kSlack);
}

TEST(Allocator, ReportsItself) {
  EXPECT_FALSE(AllocatorName().empty());
  AllocatorStats s = ReadAllocatorStats();
  EXPECT_GT(s.allocated, 0u);
  EXPECT_TRUE(PurgeAllocator() || AllocatorName() == "libc");
}

TEST(Allocator, StartsItsBackgroundPurge) {
  // jemalloc purges from its own threads once asked; the sanitizers' allocator cannot.
  EXPECT_EQ(StartAllocatorBackgroundPurge(), AllocatorName().starts_with("jemalloc"));
}

}  // namespace
}  // namespace ordis::base
