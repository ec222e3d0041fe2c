// Lazy free: which values go to the thread, that the thread frees them (used_memory falls back),
// that its queue is bounded and drained at shutdown, and that each keyspace deletion path frees
// lazily exactly when its switch says so, with the key gone at once.
#include "server/keyspace/lazy_free.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/memory.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kT0 = 1'700'000'000'000;  // fake "now" in ms

// A set of n members of 32 bytes each (past the small-string buffer: one allocation each).
ObjectPtr BigSet(int n, int64_t expire_at_ms = kNoExpire) {
  ObjectPtr obj = NewObject(ObjType::kSet, expire_at_ms);
  for (int i = 0; i < n; ++i) {
    std::string member = "member:" + std::to_string(i);
    member.resize(32, '.');
    obj->set().insert(member);
  }
  return obj;
}

// Polls (with a deadline, never a fixed sleep) until pred holds; returns whether it did.
template <typename Pred>
bool Eventually(Pred pred, std::chrono::seconds limit = 20s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(FreeEffort, CountsTheAllocationsToFree) {
  EXPECT_EQ(FreeEffort(*NewString(std::string(100000, 'x'))), 1u);
  EXPECT_EQ(FreeEffort(*NewInt(5)), 1u);
  EXPECT_EQ(FreeEffort(*BigSet(65)), 65u);
  ObjectPtr list = NewObject(ObjType::kList);
  for (int i = 0; i < 70; ++i) list->list().push_back("e");
  EXPECT_EQ(FreeEffort(*list), 70u);
  ObjectPtr hash = NewObject(ObjType::kHash);
  for (int i = 0; i < 3; ++i) hash->hash()[std::to_string(i)] = "v";
  EXPECT_EQ(FreeEffort(*hash), 3u);
  // A small sorted set is one packed array (Redis's listpack); a large one a node per member.
  const ZSetLimits limits;  // Redis's defaults: 128 entries
  ObjectPtr small = NewObject(ObjType::kZSet);
  for (int i = 0; i < 100; ++i) small->zset().Insert(std::to_string(i), i, limits);
  ASSERT_TRUE(small->zset().is_small());
  EXPECT_EQ(FreeEffort(*small), 1u);
  ObjectPtr large = NewObject(ObjType::kZSet);
  for (int i = 0; i < 200; ++i) large->zset().Insert(std::to_string(i), i, limits);
  ASSERT_FALSE(large->zset().is_small());
  EXPECT_EQ(FreeEffort(*large), 200u);
}

TEST(LazyFree, SmallValuesAreFreedInline) {
  LazyFree lazy;
  EXPECT_FALSE(lazy.Free(NewString("abc").release()));
  EXPECT_FALSE(lazy.Free(BigSet(LazyFree::kThreshold).release()));  // at the threshold: inline
  EXPECT_EQ(lazy.pending(), 0u);
  EXPECT_EQ(lazy.freed(), 0u);
}

TEST(LazyFree, LargeValuesAreFreedOnItsThreadAndCounted) {
  base::MemoryAccountedThread accounted;  // this thread plays the I/O thread
  const uint64_t before = base::UsedMemory();
  std::vector<ObjectPtr> sets;
  for (int i = 0; i < 20; ++i) sets.push_back(BigSet(5000));
  const uint64_t loaded = base::UsedMemory();
  ASSERT_GT(loaded, before + 20 * 5000 * 32u);
  LazyFree lazy;
  lazy.TEST_Hold(true);
  for (ObjectPtr& s : sets) EXPECT_TRUE(lazy.Free(s.release()));
  EXPECT_EQ(lazy.pending(), 20u);
  EXPECT_FALSE(lazy.WaitIdle(1ms));
  EXPECT_GT(base::UsedMemory(), before + (loaded - before) / 2);  // nothing freed while held
  lazy.TEST_Hold(false);
  ASSERT_TRUE(lazy.WaitIdle(20s));
  EXPECT_EQ(lazy.pending(), 0u);
  EXPECT_EQ(lazy.freed(), 20u);
  // The thread is accounted: what it freed leaves used_memory.
  EXPECT_TRUE(Eventually([&] { return base::UsedMemory() < before + (loaded - before) / 10; }))
      << "before " << before << " loaded " << loaded << " now " << base::UsedMemory();
  lazy.ResetStats();
  EXPECT_EQ(lazy.freed(), 0u);
}

// Shutdown with a queue still full: the destructor frees it all (LeakSanitizer would see what it
// did not, and used_memory would stay up).
TEST(LazyFree, TheDestructorFreesWhatIsPending) {
  base::MemoryAccountedThread accounted;
  const uint64_t before = base::UsedMemory();
  uint64_t loaded;
  {
    LazyFree lazy;
    lazy.TEST_Hold(true);
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(lazy.Free(BigSet(2000).release()));
    std::vector<Object*> dataset;
    for (int i = 0; i < 10000; ++i) dataset.push_back(NewString(std::string(40, 'v')).release());
    lazy.FreeAll(dataset);
    EXPECT_EQ(lazy.pending(), 50u + 10000u);
    loaded = base::UsedMemory();
    ASSERT_GT(loaded, before + 50 * 2000 * 32u);
  }
  EXPECT_LT(base::UsedMemory(), before + (loaded - before) / 10);
}

// The queue is bounded: past kMaxPending waiting objects, Free frees inline.
TEST(LazyFree, PastTheBoundValuesAreFreedInline) {
  LazyFree lazy;
  lazy.TEST_Hold(true);
  std::vector<Object*> dataset(LazyFree::kMaxPending);
  for (Object*& obj : dataset) obj = NewInt(1).release();
  lazy.FreeAll(dataset);  // a flushed dataset is queued whatever the bound
  EXPECT_EQ(lazy.pending(), LazyFree::kMaxPending);
  EXPECT_FALSE(lazy.Free(BigSet(100).release()));
  EXPECT_EQ(lazy.pending(), LazyFree::kMaxPending);
  lazy.TEST_Hold(false);
  ASSERT_TRUE(lazy.WaitIdle(20s));
  EXPECT_TRUE(lazy.Free(BigSet(100).release()));
  ASSERT_TRUE(lazy.WaitIdle(20s));
  EXPECT_EQ(lazy.freed(), LazyFree::kMaxPending + 1);
}

// ---------------------------------------------------------------------------------------------
// The keyspace's deletion paths.

// Records what the observer is told, reading the object it is shown (which must still be whole).
class RecordingObserver : public KeyspaceObserver {
 public:
  void BeforeKeyChange(int, std::string_view key, const Object* obj) override {
    changes.push_back(std::string(key) + ":" +
                      (obj == nullptr ? "none" : std::string(TypeName(obj->type()))));
  }
  void BeforeDbChange(int db) override { changes.push_back("db:" + std::to_string(db)); }
  void KeyExpired(int, std::string_view key) override {
    changes.push_back("expired:" + std::string(key));
  }
  void KeyEvicted(int, std::string_view key) override {
    changes.push_back("evicted:" + std::string(key));
  }
  void ExpireSet(int, std::string_view, int64_t) override {}
  std::vector<std::string> changes;
};

class KeyspaceLazyFreeTest : public ::testing::Test {
 protected:
  KeyspaceLazyFreeTest() { ks_.SetObserver(&observer_); }
  ~KeyspaceLazyFreeTest() override { ks_.SetObserver(nullptr); }

  // Waits for the thread, then how many values it freed.
  uint64_t Freed() {
    EXPECT_TRUE(ks_.lazy_free().WaitIdle(20s));
    return ks_.lazy_free().freed();
  }

  Keyspace ks_{2};
  RecordingObserver observer_;
};

TEST_F(KeyspaceLazyFreeTest, LazyDeleteUnlinksAtOnceAndFreesLargeValuesOnTheThread) {
  std::unique_lock lock(ks_.mu());
  ks_.lazy_free().TEST_Hold(true);
  ks_.Set(0, "big", BigSet(1000, kT0 + 60000));
  ks_.Set(0, "small", NewString("v"));
  observer_.changes.clear();
  EXPECT_TRUE(ks_.Delete(0, "big", FreeMode::kLazy));
  EXPECT_TRUE(ks_.Delete(0, "small", FreeMode::kLazy));
  EXPECT_FALSE(ks_.Delete(0, "missing", FreeMode::kLazy));
  // Gone from both spaces at once, the observer told while the value was whole.
  EXPECT_EQ(ks_.FindAny(0, "big"), nullptr);
  EXPECT_EQ(ks_.DbSize(0), 0u);
  EXPECT_EQ(ks_.ExpiresCount(0), 0u);
  EXPECT_EQ(observer_.changes, (std::vector<std::string>{"big:set", "small:string"}));
  EXPECT_EQ(ks_.lazy_free().pending(), 1u);  // the set; the string was freed inline
  ks_.lazy_free().TEST_Hold(false);
  EXPECT_EQ(Freed(), 1u);
  EXPECT_FALSE(ks_.MaybeDue(kT0 + 120000));
}

TEST_F(KeyspaceLazyFreeTest, SyncDeleteAndServerSideDeletesFollowTheirSwitches) {
  std::unique_lock lock(ks_.mu());
  ks_.Set(0, "a", BigSet(100));
  EXPECT_TRUE(ks_.Delete(0, "a", FreeMode::kSync));
  // Overwritten and deleted as a command's side effect: lazyfree-lazy-server-del.
  ks_.Set(0, "b", BigSet(100));
  ks_.Set(0, "b", NewString("x"));
  ks_.Set(0, "c", BigSet(100));
  EXPECT_TRUE(ks_.Delete(0, "c"));
  EXPECT_EQ(Freed(), 0u);
  ks_.SetLazyFreePolicy({.server_del = true});
  ks_.Set(0, "b", BigSet(100));
  ks_.Set(0, "b", NewString("x"));  // SET over a set
  ks_.Set(0, "c", BigSet(100));
  EXPECT_TRUE(ks_.Delete(0, "c"));  // a *STORE's emptied destination
  ks_.Set(0, "d", BigSet(100));
  ks_.Set(0, "e", BigSet(100));
  ks_.Move(0, "d", 0, "e");  // RENAME over a set
  EXPECT_EQ(Freed(), 3u);
  ASSERT_NE(ks_.FindAny(0, "e"), nullptr);
  EXPECT_EQ(ks_.FindAny(0, "e")->set().size(), 100u);
  // The other switches are not this one.
  EXPECT_TRUE(ks_.Evict(0, "e", false));
  EXPECT_EQ(Freed(), 3u);
}

TEST_F(KeyspaceLazyFreeTest, ExpiryAndEvictionFollowTheirSwitches) {
  std::unique_lock lock(ks_.mu());
  ks_.SetLazyFreePolicy({.eviction = true, .expire = true});
  ks_.Set(0, "active", BigSet(100, kT0 + 10));
  ks_.Set(0, "on-sight", BigSet(100, kT0 + 10));
  ks_.Set(1, "reported", BigSet(100, kT0 + 10));
  ks_.Set(0, "evicted", BigSet(100));
  EXPECT_EQ(ks_.FindForWrite(0, "on-sight", kT0 + 20), nullptr);
  ks_.ExpireReported({{1, "reported"}}, kT0 + 20);
  bool more_due;
  EXPECT_EQ(ks_.ExpireDueKeys(kT0 + 20, 100, &more_due), 1u);
  EXPECT_EQ(ks_.expire_free_mode(), FreeMode::kLazy);
  EXPECT_TRUE(ks_.Evict(0, "evicted", false));
  EXPECT_EQ(Freed(), 4u);
  EXPECT_EQ(ks_.DbSize(0) + ks_.DbSize(1), 0u);
  EXPECT_EQ(ks_.expired_keys(), 3u);
  EXPECT_EQ(ks_.evicted_keys(), 1u);
  ks_.ResetStats();
  EXPECT_EQ(ks_.lazy_free().freed(), 0u);
}

TEST_F(KeyspaceLazyFreeTest, LazyFlushHandsOverEveryValue) {
  std::unique_lock lock(ks_.mu());
  for (int i = 0; i < 10000; ++i) {
    ks_.Set(0, "k" + std::to_string(i), NewString("v", i % 2 ? kT0 + 60000 : kNoExpire));
  }
  ks_.Set(1, "other", BigSet(100));
  ks_.lazy_free().TEST_Hold(true);
  observer_.changes.clear();
  ks_.FlushDb(0, FreeMode::kLazy);
  EXPECT_EQ(observer_.changes, (std::vector<std::string>{"db:0"}));
  EXPECT_EQ(ks_.DbSize(0), 0u);
  EXPECT_EQ(ks_.ExpiresCount(0), 0u);
  EXPECT_EQ(ks_.DbSize(1), 1u);
  // Every key's value, small ones too (as Redis's FLUSHDB ASYNC counts them).
  EXPECT_EQ(ks_.lazy_free().pending(), 10000u);
  ks_.lazy_free().TEST_Hold(false);
  EXPECT_EQ(Freed(), 10000u);
  // The only database with keys: dropped whole.
  ks_.Set(0, "again", BigSet(100));
  ks_.FlushAll(FreeMode::kLazy);
  EXPECT_EQ(ks_.DbSize(0) + ks_.DbSize(1), 0u);
  EXPECT_EQ(Freed(), 10002u);
  ks_.Set(0, "sync", BigSet(100));
  ks_.FlushAll(FreeMode::kSync);
  EXPECT_EQ(Freed(), 10002u);
}

}  // namespace
}  // namespace ordis::server
