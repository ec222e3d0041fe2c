// The Host View over rte_hash: membership as added and removed, bulk lookups of any length, a
// full view leaving keys out, and readers that see stable keys resident and absent ones not
// while a writer churns others.
#include "offload/host_view.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "offload/dpdk.h"

namespace ordis::offload {
namespace {

// EAL refuses to start on some machines (the server then runs without the Host View).
#define START_DPDK_OR_SKIP()                            \
  do {                                                  \
    const persistence::Status status = StartDpdk();     \
    if (!status.ok()) GTEST_SKIP() << status.message(); \
  } while (0)

uint64_t D(int i) { return HostView::Digest("\x00\x01key:" + std::to_string(i)); }

TEST(HostView, MembershipFollowsAddsAndRemoves) {
  START_DPDK_OR_SKIP();
  std::unique_ptr<HostView> view;
  ASSERT_TRUE(HostView::Create(1024, &view).ok());
  EXPECT_NE(HostView::Digest("a"), HostView::Digest("b"));
  EXPECT_EQ(HostView::Digest("a"), HostView::Digest("a"));
  for (int i = 0; i < 300; i += 2) ASSERT_TRUE(view->Add(D(i)));
  EXPECT_EQ(view->size(), 150u);
  // 300 at once: more than one bulk call of 64.
  std::vector<uint64_t> digests;
  for (int i = 0; i < 300; ++i) digests.push_back(D(i));
  std::vector<char> resident(digests.size());
  auto lookup = [&] {
    std::unique_ptr<bool[]> out(new bool[digests.size()]);
    view->Lookup(digests, std::span<bool>(out.get(), digests.size()));
    for (size_t i = 0; i < digests.size(); ++i) resident[i] = out[i];
  };
  lookup();
  for (int i = 0; i < 300; ++i) EXPECT_EQ(resident[i], i % 2 == 0) << i;
  for (int i = 0; i < 300; i += 4) view->Remove(D(i));
  view->Remove(D(1));  // never added: nothing happens
  lookup();
  for (int i = 0; i < 300; ++i) EXPECT_EQ(resident[i], i % 4 == 2) << i;
  EXPECT_EQ(view->size(), 75u);
}

TEST(HostView, AFullViewLeavesKeysOut) {
  START_DPDK_OR_SKIP();
  std::unique_ptr<HostView> view;
  ASSERT_TRUE(HostView::Create(64, &view).ok());
  int added = 0, refused = 0;
  for (int i = 0; i < 1000; ++i) (view->Add(D(i)) ? added : refused)++;
  EXPECT_GE(added, 32);
  EXPECT_GT(refused, 0);
  EXPECT_EQ(view->size(), static_cast<size_t>(added));
}

TEST(HostView, ReadersSeeStableKeysWhileAWriterChurns) {
  START_DPDK_OR_SKIP();
  std::unique_ptr<HostView> view;
  ASSERT_TRUE(HostView::Create(1 << 16, &view).ok());
  constexpr int kStable = 1000;
  for (int i = 0; i < kStable; ++i) ASSERT_TRUE(view->Add(D(i)));
  std::atomic<bool> stop{false};
  std::atomic<int> rounds{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      std::vector<uint64_t> digests;
      for (int i = 0; i < kStable; ++i) digests.push_back(D(i));
      for (int i = 0; i < kStable; ++i) digests.push_back(D(-1 - i));  // never added
      std::unique_ptr<bool[]> out(new bool[digests.size()]);
      while (!stop.load()) {
        view->Lookup(digests, std::span<bool>(out.get(), digests.size()));
        for (size_t i = 0; i < digests.size(); ++i) {
          ASSERT_EQ(out[i], i < kStable) << i;
        }
        rounds.fetch_add(1);
      }
    });
  }
  for (int n = 0; n < 200000 || rounds.load() < 20; ++n) {
    const uint64_t churn = D(kStable + n % 5000);
    if (n % 2 == 0) {
      view->Add(churn);
    } else {
      view->Remove(D(kStable + (n - 1) % 5000));
    }
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_GE(rounds.load(), 20);
}

}  // namespace
}  // namespace ordis::offload
