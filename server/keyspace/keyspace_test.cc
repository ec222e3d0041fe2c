// Keyspace: databases, expiry and the TTL index over one ordered store. Time is a fake clock:
// every call takes now_ms explicitly. Tests hold keyspace.mu() as the header requires: exclusive
// for writes, shared for Find/Scan/DbSize.
#include "server/keyspace/keyspace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <shared_mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "base/clock.h"
#include "base/memory.h"
#include "index/rw_lock.h"
#include "server/keyspace/expiry.h"
#include "server/keyspace/watch_registry.h"
#include "tests/printable.h"

namespace ordis::server {
namespace {

using namespace std::literals;
using index::Direction;
using index::ScanStart;

constexpr int64_t kT0 = 1'700'000'000'000;  // fake "now" in ms

ObjectPtr Str(std::string_view value, int64_t expire_at_ms = kNoExpire) {
  return NewString(value, expire_at_ms);
}

using ordis::test_support::Printable;

// The keys of db visited by a scan (live keys only), up to limit.
std::vector<std::string> ScanKeys(const Keyspace& ks, int db, const ScanStart& start, Direction dir,
                                  int64_t now, size_t limit = SIZE_MAX,
                                  std::vector<ExpiredKey>* expired = nullptr) {
  std::vector<std::string> out;
  ks.Scan(
      db, start, dir, now,
      [&](std::string_view k, Object*) {
        out.emplace_back(k);
        return out.size() < limit;
      },
      expired);
  return out;
}

// Every key physically present in db, expired or not (no time is before INT64_MIN).
std::vector<std::string> AllKeys(const Keyspace& ks, int db) {
  return ScanKeys(ks, db, ScanStart::Edge(), Direction::kForward, INT64_MIN);
}

class KeyspaceTest : public ::testing::Test {
 protected:
  Keyspace ks_{4};
  // Taken by each test body as needed.
  index::RwLock& mu() { return ks_.mu(); }
};

TEST_F(KeyspaceTest, SetFindDelete) {
  std::unique_lock lock(mu());
  EXPECT_EQ(ks_.Find(0, "k", kT0), nullptr);
  Object* o = ks_.Set(0, "k", Str("v1"));
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(StringValue(*o), "v1");
  EXPECT_EQ(ks_.Find(0, "k", kT0), o);
  EXPECT_EQ(ks_.FindForWrite(0, "k", kT0), o);
  EXPECT_EQ(ks_.DbSize(0), 1u);
  // Replacing frees the old object and keeps the count.
  Object* o2 = ks_.Set(0, "k", Str("v2"));
  EXPECT_EQ(StringValue(*ks_.Find(0, "k", kT0)), "v2");
  EXPECT_EQ(ks_.Find(0, "k", kT0), o2);
  EXPECT_EQ(ks_.DbSize(0), 1u);
  EXPECT_TRUE(ks_.Delete(0, "k"));
  EXPECT_FALSE(ks_.Delete(0, "k"));
  EXPECT_EQ(ks_.Find(0, "k", kT0), nullptr);
  EXPECT_EQ(ks_.DbSize(0), 0u);
}

TEST_F(KeyspaceTest, BinaryKeysAndTheEmptyKey) {
  std::unique_lock lock(mu());
  const std::vector<std::string> keys = {""s,
                                         "\0"s,
                                         "\0\0"s,
                                         "a"s,
                                         "a\0"s,
                                         "a\0b"s,
                                         "\xff"s,
                                         "\xff\xff"s,
                                         "\x01"s,
                                         "\x02"s,
                                         std::string(40, 'x'),
                                         std::string(40, 'x') + "\0"s};
  for (size_t i = 0; i < keys.size(); ++i) ks_.Set(1, keys[i], Str(std::to_string(i)));
  EXPECT_EQ(ks_.DbSize(1), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    Object* o = ks_.Find(1, keys[i], kT0);
    ASSERT_NE(o, nullptr) << Printable(keys[i]);
    EXPECT_EQ(StringValue(*o), std::to_string(i)) << Printable(keys[i]);
  }
  EXPECT_EQ(ks_.Find(1, "\0\0\0"s, kT0), nullptr);
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(AllKeys(ks_, 1), sorted);
  std::vector<std::string> reversed(sorted.rbegin(), sorted.rend());
  EXPECT_EQ(ScanKeys(ks_, 1, ScanStart::Edge(), Direction::kReverse, kT0), reversed);
  // Nothing leaked into the neighbouring databases.
  EXPECT_TRUE(AllKeys(ks_, 0).empty());
  EXPECT_TRUE(AllKeys(ks_, 2).empty());
  EXPECT_TRUE(ks_.Delete(1, ""));
  EXPECT_EQ(ks_.Find(1, "", kT0), nullptr);
  EXPECT_NE(ks_.Find(1, "\0"s, kT0), nullptr);
}

TEST_F(KeyspaceTest, DatabasesAreIsolated) {
  std::unique_lock lock(mu());
  // The same keys in every db, with extreme bytes, so a scan that ran past its db would show.
  for (int db = 0; db < 4; ++db) {
    for (std::string k : {""s, "\0"s, "m"s, "\xff"s, "\xff\xff\xff"s}) {
      ks_.Set(db, k, Str("db" + std::to_string(db)));
    }
  }
  ks_.Set(2, "only-in-2", Str("x"));
  for (int db = 0; db < 4; ++db) {
    SCOPED_TRACE("db " + std::to_string(db));
    EXPECT_EQ(StringValue(*ks_.Find(db, "m", kT0)), "db" + std::to_string(db));
    size_t want = db == 2 ? 6 : 5;
    EXPECT_EQ(ks_.DbSize(db), want);
    EXPECT_EQ(ScanKeys(ks_, db, ScanStart::Edge(), Direction::kForward, kT0).size(), want);
    EXPECT_EQ(ScanKeys(ks_, db, ScanStart::Edge(), Direction::kReverse, kT0).size(), want);
    // Bounded scans from beyond the db's keys in each direction see nothing else.
    EXPECT_TRUE(
        ScanKeys(ks_, db, ScanStart::After("\xff\xff\xff"), Direction::kForward, kT0).empty());
    EXPECT_TRUE(ScanKeys(ks_, db, ScanStart::After(""), Direction::kReverse, kT0).empty());
    EXPECT_EQ(ScanKeys(ks_, db, ScanStart::At(""), Direction::kReverse, kT0),
              std::vector<std::string>{""});
    EXPECT_EQ(ScanKeys(ks_, db, ScanStart::At("\xff\xff\xff\xff"), Direction::kForward, kT0).size(),
              0u);
  }
  EXPECT_EQ(ks_.Find(1, "only-in-2", kT0), nullptr);
  EXPECT_TRUE(ks_.Delete(3, "m"));
  EXPECT_NE(ks_.Find(2, "m", kT0), nullptr);
  ks_.FlushDb(1);
  EXPECT_EQ(ks_.DbSize(1), 0u);
  EXPECT_TRUE(AllKeys(ks_, 1).empty());
  EXPECT_EQ(ks_.DbSize(0), 5u);
  EXPECT_EQ(ks_.DbSize(2), 6u);
  ks_.FlushAll();
  for (int db = 0; db < 4; ++db) EXPECT_EQ(ks_.DbSize(db), 0u);
}

// The physical db id is a key byte: the last possible db (255) must scan correctly too.
TEST(Keyspace, AllDatabasesUpToTheMaximum) {
  Keyspace ks(Keyspace::kMaxDatabases);
  std::unique_lock lock(ks.mu());
  for (int db : {0, 1, 127, 128, 254, 255}) {
    ks.Set(db, "\xff", Str("a"));
    ks.Set(db, "", Str("b"));
  }
  for (int db : {0, 1, 127, 128, 254, 255}) {
    EXPECT_EQ(AllKeys(ks, db), (std::vector<std::string>{"", "\xff"})) << db;
    EXPECT_EQ(ScanKeys(ks, db, ScanStart::Edge(), Direction::kReverse, kT0),
              (std::vector<std::string>{"\xff", ""}))
        << db;
  }
  for (int db : {2, 126, 129, 253}) EXPECT_TRUE(AllKeys(ks, db).empty()) << db;
  ks.Set(255, "extra", Str("c"));
  ks.SwapDb(0, 255);
  EXPECT_EQ(ks.DbSize(0), 3u);
  EXPECT_EQ(ks.DbSize(255), 2u);
  ks.FlushDb(255);
  EXPECT_EQ(ks.DbSize(255), 0u);
  EXPECT_TRUE(AllKeys(ks, 255).empty());
  EXPECT_EQ(AllKeys(ks, 0), (std::vector<std::string>{"", "extra", "\xff"}));
  EXPECT_EQ(AllKeys(ks, 1), (std::vector<std::string>{"", "\xff"}));
}

// The store given to the constructor is the one used, and IndexStats reports it.
TEST(Keyspace, UsesTheStoreGivenAndReportsItsStats) {
  auto store = index::NewMapStore();
  index::OrderedStore* raw = store.get();
  Keyspace ks(2, std::move(store));
  std::unique_lock lock(ks.mu());
  EXPECT_EQ(ks.IndexStats().keys, 0u);
  ks.Set(0, "a", Str("1"));
  ks.Set(0, "b", Str("2"));
  ks.Set(1, "a", Str("3"));
  EXPECT_EQ(raw->size(), 3u);
  index::IndexStats stats = ks.IndexStats();
  EXPECT_EQ(stats.keys, 3u);
  EXPECT_EQ(stats.keys, ks.DbSize(0) + ks.DbSize(1));
  EXPECT_GT(stats.key_bytes, 0u);
  EXPECT_TRUE(ks.Delete(0, "a"));
  EXPECT_EQ(ks.IndexStats().keys, 2u);
  ks.FlushAll();
  EXPECT_EQ(ks.IndexStats().keys, 0u);
}

TEST_F(KeyspaceTest, ScanBoundsAndOrder) {
  std::unique_lock lock(mu());
  for (std::string k : {"a", "b", "ba", "bb", "c"}) ks_.Set(0, k, Str(k));
  using V = std::vector<std::string>;
  EXPECT_EQ(ScanKeys(ks_, 0, ScanStart::At("b"), Direction::kForward, kT0),
            (V{"b", "ba", "bb", "c"}));
  EXPECT_EQ(ScanKeys(ks_, 0, ScanStart::After("b"), Direction::kForward, kT0),
            (V{"ba", "bb", "c"}));
  EXPECT_EQ(ScanKeys(ks_, 0, ScanStart::At("b"), Direction::kReverse, kT0), (V{"b", "a"}));
  EXPECT_EQ(ScanKeys(ks_, 0, ScanStart::After("b"), Direction::kReverse, kT0), (V{"a"}));
  EXPECT_EQ(ScanKeys(ks_, 0, ScanStart::At("bz"), Direction::kReverse, kT0),
            (V{"bb", "ba", "b", "a"}));
  EXPECT_EQ(ScanKeys(ks_, 0, ScanStart::At("b\0"s), Direction::kForward, kT0),
            (V{"ba", "bb", "c"}));
  EXPECT_EQ(ScanKeys(ks_, 0, ScanStart::At("a"), Direction::kForward, kT0, 2), (V{"a", "b"}));
  EXPECT_EQ(ScanKeys(ks_, 0, ScanStart::Edge(), Direction::kReverse, kT0, 1), (V{"c"}));
  EXPECT_EQ(ScanKeys(ks_, 0, ScanStart::After("c"), Direction::kForward, kT0), V{});
  EXPECT_EQ(ScanKeys(ks_, 0, ScanStart::After("a"), Direction::kReverse, kT0), V{});
}

TEST_F(KeyspaceTest, ExpiredKeysAreInvisibleAndReported) {
  std::unique_lock lock(mu());
  ks_.Set(0, "live", Str("1"));
  ks_.Set(0, "ttl", Str("2", kT0 + 100));
  ks_.Set(0, "gone", Str("3", kT0));  // expires at kT0: gone at kT0 already
  EXPECT_EQ(ks_.DbSize(0), 3u);
  EXPECT_EQ(ks_.ExpiresCount(0), 2u);

  std::vector<ExpiredKey> expired;
  EXPECT_NE(ks_.Find(0, "ttl", kT0 + 99, &expired), nullptr);
  EXPECT_EQ(ks_.Find(0, "ttl", kT0 + 100, &expired), nullptr);
  EXPECT_EQ(ks_.Find(0, "gone", kT0, &expired), nullptr);
  EXPECT_EQ(ks_.Find(0, "gone", kT0), nullptr);  // without a report list
  ASSERT_EQ(expired.size(), 2u);
  EXPECT_EQ(expired[0].key, "ttl");
  EXPECT_EQ(expired[1].key, "gone");
  EXPECT_EQ(expired[0].db, 0);
  // Readers do not delete: DBSIZE still counts them, as Redis's does.
  EXPECT_EQ(ks_.DbSize(0), 3u);

  // Scan skips them and reports them.
  expired.clear();
  EXPECT_EQ(ScanKeys(ks_, 0, ScanStart::Edge(), Direction::kForward, kT0 + 100, SIZE_MAX, &expired),
            std::vector<std::string>{"live"});
  ASSERT_EQ(expired.size(), 2u);
  EXPECT_EQ(expired[0].key, "gone");
  EXPECT_EQ(expired[1].key, "ttl");

  // A key re-set without TTL after the report must survive ExpireReported.
  ks_.Set(0, "ttl", Str("new"));
  uint64_t before = ks_.expired_keys();
  ks_.ExpireReported(expired, kT0 + 100);
  EXPECT_EQ(ks_.expired_keys(), before + 1);
  EXPECT_EQ(ks_.Find(0, "gone", INT64_MIN), nullptr);
  EXPECT_NE(ks_.Find(0, "ttl", kT0 + 100), nullptr);
  EXPECT_EQ(ks_.DbSize(0), 2u);
  EXPECT_EQ(ks_.ExpiresCount(0), 0u);
  // Reports naming a db that no longer exists are ignored.
  ks_.ExpireReported({{99, "x"}}, kT0);
}

TEST_F(KeyspaceTest, FindForWriteDeletesExpired) {
  std::unique_lock lock(mu());
  ks_.Set(2, "k", Str("v", kT0 + 10));
  EXPECT_NE(ks_.FindForWrite(2, "k", kT0 + 9), nullptr);
  uint64_t before = ks_.expired_keys();
  EXPECT_EQ(ks_.FindForWrite(2, "k", kT0 + 10), nullptr);
  EXPECT_EQ(ks_.expired_keys(), before + 1);
  EXPECT_EQ(ks_.DbSize(2), 0u);
  EXPECT_EQ(ks_.ExpiresCount(2), 0u);
  EXPECT_TRUE(AllKeys(ks_, 2).empty());
  ks_.ResetStats();
  EXPECT_EQ(ks_.expired_keys(), 0u);
}

TEST_F(KeyspaceTest, SetExpireMaintainsTheTtlIndex) {
  std::unique_lock lock(mu());
  Object* a = ks_.Set(0, "a", Str("1"));
  Object* b = ks_.Set(0, "b", Str("2"));
  Object* c = ks_.Set(0, "c", Str("3"));
  EXPECT_EQ(ks_.ExpiresCount(0), 0u);
  // Adding a TTL moves the object (its block grows by the expire time); the index follows.
  a = ks_.SetExpire(0, "a", a, kT0 + 1000);
  b = ks_.SetExpire(0, "b", b, kT0 + 2000);
  c = ks_.SetExpire(0, "c", c, kT0 + 3000);
  EXPECT_EQ(ks_.Find(0, "a", kT0), a);
  EXPECT_EQ(ks_.Find(0, "b", kT0), b);
  EXPECT_EQ(ks_.Find(0, "c", kT0), c);
  EXPECT_EQ(StringValue(*b), "2");
  EXPECT_EQ(ks_.ExpiresCount(0), 3u);
  EXPECT_EQ(ks_.AvgTtlMs(0, kT0), 2000);
  // Changing a TTL keeps one index entry, and the object where it is.
  EXPECT_EQ(ks_.SetExpire(0, "b", b, kT0 + 5000), b);
  EXPECT_EQ(b->expire_at_ms(), kT0 + 5000);
  EXPECT_EQ(ks_.ExpiresCount(0), 3u);
  EXPECT_EQ(ks_.AvgTtlMs(0, kT0), 3000);
  // Clearing moves it again.
  a = ks_.SetExpire(0, "a", a, kNoExpire);
  EXPECT_EQ(ks_.Find(0, "a", kT0), a);
  EXPECT_FALSE(a->has_ttl());
  EXPECT_EQ(StringValue(*a), "1");
  EXPECT_EQ(ks_.ExpiresCount(0), 2u);
  EXPECT_EQ(ks_.AvgTtlMs(0, kT0), 4000);
  EXPECT_EQ(ks_.SetExpire(0, "a", a, kNoExpire), a);  // clearing twice is harmless
  EXPECT_EQ(ks_.ExpiresCount(0), 2u);
  // Deleting and replacing keys with TTLs keeps the index pointing at live keys.
  EXPECT_TRUE(ks_.Delete(0, "b"));
  EXPECT_EQ(ks_.ExpiresCount(0), 1u);
  EXPECT_EQ(ks_.AvgTtlMs(0, kT0), 3000);
  ks_.Set(0, "c", Str("no ttl"));
  EXPECT_EQ(ks_.ExpiresCount(0), 0u);
  EXPECT_EQ(ks_.AvgTtlMs(0, kT0), 0);
  ks_.Set(0, "c", Str("ttl", kT0 + 7000));
  EXPECT_EQ(ks_.ExpiresCount(0), 1u);
  EXPECT_EQ(ks_.AvgTtlMs(0, kT0), 7000);
  // Past TTLs count as 0 remaining.
  EXPECT_EQ(ks_.AvgTtlMs(0, kT0 + 8000), 0);
}

TEST_F(KeyspaceTest, WritesTouchWatchers) {
  std::unique_lock lock(mu());
  WatchState w0, w1, other;
  ks_.watches().Watch(0, "k", &w0, false);
  ks_.watches().Watch(1, "k", &w1, false);
  ks_.watches().Watch(0, "other", &other, false);
  ks_.watches().Watch(0, "k", &w0, false);  // twice: one registration
  Object* o = ks_.Set(0, "k", Str("v"));
  EXPECT_TRUE(w0.dirty.load());
  EXPECT_FALSE(w1.dirty.load());
  EXPECT_FALSE(other.dirty.load());
  w0.dirty = false;
  o = ks_.SetExpire(0, "k", o, kT0 + 10);
  EXPECT_TRUE(w0.dirty.exchange(false));
  ks_.FindForWrite(0, "k", kT0 + 10);  // deletes the expired key: a write
  EXPECT_TRUE(w0.dirty.exchange(false));
  EXPECT_FALSE(ks_.Delete(0, "k"));  // nothing to delete: not a write
  EXPECT_FALSE(w0.dirty.load());
  ks_.Set(1, "src", Str("v"));
  ks_.Move(1, "src", 0, "k");
  EXPECT_TRUE(w0.dirty.exchange(false));
  EXPECT_FALSE(w1.dirty.load());
  ks_.FlushDb(1);
  EXPECT_TRUE(w1.dirty.exchange(false));
  EXPECT_FALSE(w0.dirty.load());
  ks_.SwapDb(0, 3);
  EXPECT_TRUE(w0.dirty.exchange(false));
  EXPECT_TRUE(other.dirty.exchange(false));
  EXPECT_FALSE(w1.dirty.load());
  ks_.watches().TouchAll();
  EXPECT_TRUE(w0.dirty.exchange(false));
  EXPECT_TRUE(w1.dirty.exchange(false));
  EXPECT_TRUE(other.dirty.exchange(false));
  // After UNWATCH nothing marks them.
  ks_.watches().UnwatchAll({{0, "k"}, {0, "other"}}, &w0);
  ks_.watches().UnwatchAll({{0, "other"}}, &other);
  ks_.watches().UnwatchAll({{1, "k"}, {5, "never-watched"}}, &w1);
  ks_.Set(0, "k", Str("again"));
  ks_.Set(0, "other", Str("again"));
  ks_.Set(1, "k", Str("again"));
  ks_.FlushAll();
  EXPECT_FALSE(w0.dirty.load());
  EXPECT_FALSE(w1.dirty.load());
  EXPECT_FALSE(other.dirty.load());
}

TEST_F(KeyspaceTest, MoveCarriesTheTtlAndReplaces) {
  std::unique_lock lock(mu());
  ks_.Set(0, "src", Str("payload", kT0 + 500));
  ks_.Set(0, "filler", Str("f", kT0 + 600));
  ks_.Set(1, "dst", Str("old", kT0 + 900));
  ks_.Move(0, "src", 1, "dst");
  EXPECT_EQ(ks_.Find(0, "src", kT0), nullptr);
  Object* moved = ks_.Find(1, "dst", kT0);
  ASSERT_NE(moved, nullptr);
  EXPECT_EQ(StringValue(*moved), "payload");
  EXPECT_EQ(moved->expire_at_ms(), kT0 + 500);
  EXPECT_EQ(ks_.DbSize(0), 1u);
  EXPECT_EQ(ks_.DbSize(1), 1u);
  EXPECT_EQ(ks_.ExpiresCount(0), 1u);
  EXPECT_EQ(ks_.ExpiresCount(1), 1u);
  EXPECT_EQ(ks_.AvgTtlMs(1, kT0), 500);
  EXPECT_EQ(ks_.AvgTtlMs(0, kT0), 600);
  // Rename within a db, and moving a missing key does nothing.
  ks_.Move(1, "dst", 1, "renamed");
  EXPECT_EQ(AllKeys(ks_, 1), std::vector<std::string>{"renamed"});
  EXPECT_EQ(ks_.ExpiresCount(1), 1u);
  ks_.Move(1, "missing", 0, "x");
  EXPECT_EQ(ks_.Find(0, "x", kT0), nullptr);
  EXPECT_EQ(ks_.DbSize(0), 1u);
  // Moving onto itself keeps the key.
  ks_.Move(1, "renamed", 1, "renamed");
  EXPECT_EQ(StringValue(*ks_.Find(1, "renamed", kT0)), "payload");
  EXPECT_EQ(ks_.DbSize(1), 1u);
  EXPECT_EQ(ks_.ExpiresCount(1), 1u);
}

TEST_F(KeyspaceTest, SwapDbSwapsContentsAndTtls) {
  std::unique_lock lock(mu());
  ks_.Set(0, "a", Str("0a", kT0 + 100));
  ks_.Set(0, "b", Str("0b"));
  ks_.Set(1, "c", Str("1c"));
  ks_.SwapDb(0, 1);
  EXPECT_EQ(AllKeys(ks_, 0), std::vector<std::string>{"c"});
  EXPECT_EQ(AllKeys(ks_, 1), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ks_.DbSize(0), 1u);
  EXPECT_EQ(ks_.DbSize(1), 2u);
  EXPECT_EQ(ks_.ExpiresCount(0), 0u);
  EXPECT_EQ(ks_.ExpiresCount(1), 1u);
  // The TTL index follows its keys: operations through the new number work.
  EXPECT_EQ(ks_.FindForWrite(1, "a", kT0 + 100), nullptr);
  EXPECT_EQ(ks_.ExpiresCount(1), 0u);
  EXPECT_EQ(ks_.DbSize(1), 1u);
  ks_.Set(0, "d", Str("new", kT0 + 5));
  bool more_due;
  EXPECT_EQ(ks_.ExpireDueKeys(kT0 + 5, 20, &more_due), 1u);
  EXPECT_FALSE(more_due);
  EXPECT_EQ(AllKeys(ks_, 0), std::vector<std::string>{"c"});
  ks_.SwapDb(1, 1);
  EXPECT_EQ(AllKeys(ks_, 1), std::vector<std::string>{"b"});
}

TEST_F(KeyspaceTest, ExpireDueKeysDeletesOnlyDueKeysSoonestFirst) {
  std::unique_lock lock(mu());
  for (int i = 0; i < 50; ++i) {
    // Expire times out of key order, some in the same millisecond.
    ks_.Set(0, "expired" + std::to_string(i), Str("x", kT0 - 1 - (i * 7) % 13));
    ks_.Set(0, "future" + std::to_string(i), Str("x", kT0 + 1000 + i % 3));
    ks_.Set(0, "plain" + std::to_string(i), Str("x"));
  }
  bool more_due;
  uint64_t before = ks_.expired_keys();
  // Bounded batches, soonest first: the 20 earliest expire times go first.
  EXPECT_EQ(ks_.ExpireDueKeys(kT0, 20, &more_due), 20u);
  EXPECT_TRUE(more_due);
  std::vector<int64_t> left;
  ks_.ScanByExpiry(0, [&](std::string_view, int64_t at, Object* o) {
    EXPECT_EQ(o->expire_at_ms(), at);
    left.push_back(at);
    return true;
  });
  ASSERT_EQ(left.size(), 80u);
  EXPECT_TRUE(std::is_sorted(left.begin(), left.end()));
  EXPECT_EQ(ks_.ExpireDueKeys(kT0, 20, &more_due), 20u);
  EXPECT_TRUE(more_due);
  EXPECT_EQ(ks_.ExpireDueKeys(kT0, 20, &more_due), 10u);
  EXPECT_FALSE(more_due);
  EXPECT_EQ(ks_.expired_keys(), before + 50);
  EXPECT_EQ(ks_.ExpiresCount(0), 50u);
  EXPECT_EQ(ks_.DbSize(0), 100u);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(ks_.Find(0, "expired" + std::to_string(i), INT64_MIN), nullptr);
    EXPECT_NE(ks_.Find(0, "future" + std::to_string(i), kT0), nullptr);
  }
  EXPECT_EQ(ks_.ExpireDueKeys(kT0, 1000, &more_due), 0u);
  EXPECT_FALSE(ks_.MaybeDue(kT0));
  EXPECT_TRUE(ks_.MaybeDue(kT0 + 1000));
  EXPECT_EQ(ks_.ExpireDueKeys(kT0 + 1000, 1000, &more_due), 17u);  // i % 3 == 0
  EXPECT_EQ(ks_.ExpireDueKeys(kT0 + 2000, 1000, &more_due), 33u);
  EXPECT_EQ(ks_.ExpiresCount(0), 0u);
  EXPECT_EQ(ks_.DbSize(0), 50u);
}

// A backlog in one database does not starve the others: each call starts after the database the
// previous one stopped in.
TEST_F(KeyspaceTest, ExpireDueKeysTakesTurnsAcrossDatabases) {
  std::unique_lock lock(mu());
  for (int i = 0; i < 100; ++i) ks_.Set(0, "a" + std::to_string(i), Str("x", kT0 - 10));
  ks_.Set(2, "b", Str("x", kT0 - 1));
  bool more_due;
  EXPECT_EQ(ks_.ExpireDueKeys(kT0, 10, &more_due), 10u);
  EXPECT_TRUE(more_due);
  EXPECT_EQ(ks_.ExpireDueKeys(kT0, 10, &more_due), 10u);
  EXPECT_EQ(ks_.ExpireDueKeys(kT0, 10, &more_due), 10u);
  size_t calls = 3;
  while (ks_.DbSize(2) == 1) {
    ks_.ExpireDueKeys(kT0, 10, &more_due);
    ASSERT_LT(++calls, 6u) << "db 2 waited behind db 0's backlog";
  }
  while (more_due) ks_.ExpireDueKeys(kT0, 10, &more_due);
  EXPECT_EQ(ks_.DbSize(0), 0u);
  EXPECT_EQ(ks_.ExpiresCount(0), 0u);
}

// Nothing expires while loading (the log's replay must see what its commands saw).
TEST_F(KeyspaceTest, NothingExpiresWhileLoading) {
  std::unique_lock lock(mu());
  ks_.Set(0, "k", Str("x", kT0 - 1));
  ks_.SetLoading(true);
  bool more_due;
  EXPECT_FALSE(ks_.MaybeDue(kT0));
  EXPECT_EQ(ks_.ExpireDueKeys(kT0, 10, &more_due), 0u);
  EXPECT_NE(ks_.Find(0, "k", kT0), nullptr);
  ks_.SetLoading(false);
  EXPECT_EQ(ks_.ExpireDueKeys(kT0, 10, &more_due), 1u);
}

// Binary keys, the empty key, negative and far expire times: the TTL space orders by time first,
// whatever bytes follow.
TEST_F(KeyspaceTest, TtlSpaceOrdersByTimeForAnyKeyBytes) {
  std::unique_lock lock(mu());
  const std::vector<std::pair<std::string, int64_t>> keys = {
      {"", 5},  {"\0"s, 5},  {"\0\0"s, 4},      {"\xff"s, 4}, {"a\0b"s, 1'000'000'000'000'000},
      {"z", 0}, {"neg", -5}, {"max", INT64_MAX}};
  for (const auto& [k, at] : keys) ks_.Set(3, k, Str("v", at));
  std::vector<std::pair<std::string, int64_t>> want = keys;
  std::sort(want.begin(), want.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second, a.first) < std::tie(b.second, b.first);
  });
  std::vector<std::pair<std::string, int64_t>> got;
  ks_.ScanByExpiry(3, [&](std::string_view k, int64_t at, Object*) {
    got.emplace_back(std::string(k), at);
    return true;
  });
  EXPECT_EQ(got, want);
  // Nothing of the TTL space shows in the key space's scans, counts or random keys.
  EXPECT_EQ(AllKeys(ks_, 3).size(), keys.size());
  EXPECT_EQ(ks_.DbSize(3), keys.size());
  EXPECT_EQ(ks_.ExpiresCount(3), keys.size());
  EXPECT_TRUE(AllKeys(ks_, 2).empty());
  bool more_due;
  EXPECT_EQ(ks_.ExpireDueKeys(5, 100, &more_due), 6u);
  EXPECT_EQ(AllKeys(ks_, 3), (std::vector<std::string>{"a\0b"s, "max"}));
  ks_.FlushDb(3);
  EXPECT_EQ(ks_.ExpiresCount(3), 0u);
  EXPECT_EQ(ks_.IndexStats().keys, 0u);
}

// BulkLoad takes keys in (db, key) order and builds both spaces: the TTL entries of each database
// sorted by expire time, already expired keys dropped.
TEST(Keyspace, BulkLoadBuildsTheTtlSpace) {
  struct Row {
    int db;
    std::string key;
    int64_t at;
  };
  const std::vector<Row> rows = {{0, "", kT0 + 30}, {0, "a", kNoExpire},   {0, "b", kT0 + 10},
                                 {0, "c", kT0 - 1}, {0, "d\0"s, kT0 + 10}, {1, "x", kT0 + 5},
                                 {3, "y", kT0 + 1}, {3, "z", kT0 + 2},     {3, "\xff"s, kNoExpire}};
  Keyspace ks(4);
  std::unique_lock lock(ks.mu());
  size_t i = 0;
  ASSERT_TRUE(ks.BulkLoad(
      [&](int* db, std::string_view* key, ObjectPtr* obj) {
        if (i == rows.size()) return false;
        *db = rows[i].db;
        *key = rows[i].key;
        *obj = Str("v" + std::to_string(i), rows[i].at);
        ++i;
        return true;
      },
      kT0));
  EXPECT_EQ(ks.DbSize(0), 4u);  // "c" had expired
  EXPECT_EQ(ks.ExpiresCount(0), 3u);
  EXPECT_EQ(ks.DbSize(1), 1u);
  EXPECT_EQ(ks.ExpiresCount(1), 1u);
  EXPECT_EQ(ks.DbSize(3), 3u);
  EXPECT_EQ(ks.ExpiresCount(3), 2u);
  EXPECT_EQ(ks.IndexStats().keys, 4u + 3 + 1 + 1 + 3 + 2);
  auto by_expiry = [&](int db) {
    std::vector<std::string> keys;
    ks.ScanByExpiry(db, [&](std::string_view k, int64_t at, Object* o) {
      EXPECT_EQ(o->expire_at_ms(), at);
      EXPECT_EQ(ks.Find(db, k, kT0), o);
      keys.emplace_back(k);
      return true;
    });
    return keys;
  };
  EXPECT_EQ(by_expiry(0), (std::vector<std::string>{"b", "d\0"s, ""}));
  EXPECT_EQ(by_expiry(1), std::vector<std::string>{"x"});
  EXPECT_EQ(by_expiry(3), (std::vector<std::string>{"y", "z"}));
  EXPECT_EQ(ks.AvgTtlMs(0, kT0), (10 + 10 + 30) / 3);
  bool more_due;
  EXPECT_EQ(ks.ExpireDueKeys(kT0 + 10, 100, &more_due), 5u);
  EXPECT_EQ(AllKeys(ks, 0), (std::vector<std::string>{"", "a"}));
  EXPECT_EQ(AllKeys(ks, 3), std::vector<std::string>{"\xff"s});
}

// A source out of order stops the load; what was loaded before it is consistent (each key's TTL
// entry is there).
TEST(Keyspace, BulkLoadOutOfOrderKeepsWhatItLoaded) {
  Keyspace ks(2);
  std::unique_lock lock(ks.mu());
  const std::vector<std::string> keys = {"a", "c", "b", "d"};
  size_t i = 0;
  EXPECT_FALSE(ks.BulkLoad(
      [&](int* db, std::string_view* key, ObjectPtr* obj) {
        if (i == keys.size()) return false;
        *db = 0;
        *key = keys[i];
        *obj = Str("v", kT0 + 100 - static_cast<int64_t>(i));
        ++i;
        return true;
      },
      kT0));
  EXPECT_EQ(AllKeys(ks, 0), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(ks.ExpiresCount(0), 2u);
  EXPECT_EQ(ks.IndexStats().keys, 4u);
  bool more_due;
  EXPECT_EQ(ks.ExpireDueKeys(kT0 + 100, 10, &more_due), 2u);
  EXPECT_EQ(ks.IndexStats().keys, 0u);
}

TEST_F(KeyspaceTest, RandomKey) {
  std::unique_lock lock(mu());
  std::string out = "unchanged";
  EXPECT_FALSE(ks_.RandomKey(0, kT0, &out));
  std::set<std::string> keys;
  for (int i = 0; i < 20; ++i) {
    std::string k = "key" + std::to_string(i);
    keys.insert(k);
    ks_.Set(0, k, Str("v"));
  }
  for (int i = 0; i < 500; ++i) {
    ASSERT_TRUE(ks_.RandomKey(0, kT0, &out));
    EXPECT_TRUE(keys.count(out)) << out;
  }
  // Only expired keys: none is returned, and the ones met are deleted.
  ks_.Set(1, "e1", Str("v", kT0));
  ks_.Set(1, "e2", Str("v", kT0));
  EXPECT_FALSE(ks_.RandomKey(1, kT0, &out));
  EXPECT_EQ(ks_.DbSize(1), 0u);
  // A mix: always a live key.
  ks_.Set(1, "live", Str("v"));
  for (int i = 0; i < 30; ++i) ks_.Set(1, "dead" + std::to_string(i), Str("v", kT0 - 5));
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(ks_.RandomKey(1, kT0, &out));
    EXPECT_EQ(out, "live");
  }
}

// Regression: Keyspace::RandomKey seeks to 8 uniformly random bytes and takes the next key,
// wrapping to the first. Keys sharing a prefix ("user:1", "user:2" ... as most Redis keys do)
// occupy a tiny sliver of that byte space, so nearly every seek lands before or after all of them
// and returns the db's first key: with "key0".."key19", 2000 calls return "key0" every time.
// Redis's RANDOMKEY picks uniformly (dictGetFairRandomKey).
TEST_F(KeyspaceTest, RandomKeyIsSpreadOverKeysWithACommonPrefix) {
  std::unique_lock lock(mu());
  std::set<std::string> keys;
  for (int i = 0; i < 20; ++i) {
    keys.insert("key" + std::to_string(i));
    ks_.Set(0, "key" + std::to_string(i), Str("v"));
  }
  std::map<std::string, int> seen;
  std::string out;
  for (int i = 0; i < 2000; ++i) {
    ASSERT_TRUE(ks_.RandomKey(0, kT0, &out));
    ++seen[out];
  }
  // Uniform draws miss one of 20 keys in 2000 tries with probability ~20 * 0.95^2000.
  EXPECT_EQ(seen.size(), keys.size());
  for (const auto& [k, n] : seen) EXPECT_LT(n, 400) << k;
}

TEST_F(KeyspaceTest, MemoryUsageGrowsWithTheValue) {
  ObjectPtr small = Str("x"), large = Str(std::string(1000, 'x'));
  ObjectPtr small_ttl = Str("x", kT0);
  EXPECT_GT(Keyspace::MemoryUsage("key", *small), 3u);
  EXPECT_GT(Keyspace::MemoryUsage("key", *large), Keyspace::MemoryUsage("key", *small) + 999);
  EXPECT_GT(Keyspace::MemoryUsage(std::string(100, 'k'), *small),
            Keyspace::MemoryUsage("k", *small));
  // A TTL costs its index entry (and 8 bytes in the object).
  EXPECT_GT(Keyspace::MemoryUsage("key", *small_ttl), Keyspace::MemoryUsage("key", *small) + 8);
}

// A cycle deletes batch after batch until its budget is spent: with none, exactly one batch.
TEST(ActiveExpiry, ACycleStopsAtItsBudget) {
  Keyspace ks(1);
  const int64_t past = NowMs() - 1000;
  {
    std::unique_lock lock(ks.mu());
    for (size_t i = 0; i < 3 * kExpireBatchKeys; ++i) ks.Set(0, std::to_string(i), Str("v", past));
    ks.Set(0, "later", Str("v", NowMs() + 3'600'000));
  }
  EXPECT_TRUE(RunExpiryCycle(ks, std::chrono::microseconds(0)));
  {
    std::shared_lock lock(ks.mu());
    EXPECT_EQ(ks.DbSize(0), 2 * kExpireBatchKeys + 1);
  }
  EXPECT_FALSE(RunExpiryCycle(ks, std::chrono::seconds(10)));
  std::shared_lock lock(ks.mu());
  EXPECT_EQ(ks.DbSize(0), 1u);
  EXPECT_EQ(ks.expired_keys(), 3 * kExpireBatchKeys);
}

// The expiry thread frees what I/O threads allocated: it must be counted in used_memory, or every
// key it expires stays in the total (1M keys with PX 100 left 130 MB of used_memory behind).
TEST(ActiveExpiry, ItsFreesCountInUsedMemory) {
  base::MemoryAccountedThread accounted;  // this thread plays the I/O thread
  auto keyspace = std::make_unique<Keyspace>(1, index::NewMapStore());
  const uint64_t before = base::UsedMemory();
  constexpr int kKeys = 200000;
  {
    std::unique_lock lock(keyspace->mu());
    const int64_t soon = NowMs() + 20;
    for (int i = 0; i < kKeys; ++i) {
      keyspace->Set(0, "key:" + std::to_string(i), Str(std::string(40, 'v'), soon));
    }
  }
  const uint64_t loaded = base::UsedMemory();
  ASSERT_GT(loaded, before + kKeys * 64u);  // at least the 64-byte objects
  ActiveExpiry expiry(*keyspace);
  expiry.Start();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  size_t left = kKeys;
  while (left > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::shared_lock lock(keyspace->mu());
    left = keyspace->DbSize(0);
  }
  expiry.Stop();
  ASSERT_EQ(left, 0u);
  // What is left: the emptied map store's tables, not the objects.
  EXPECT_LT(base::UsedMemory(), before + (loaded - before) / 4);
}

// ---------------------------------------------------------------------------------------------
// Differential test: Keyspace against a model of maps, over random operations with a fake clock.

struct ModelEntry {
  std::string value;
  int64_t expire_at = kNoExpire;
  bool ExpiredAt(int64_t now) const { return expire_at != kNoExpire && expire_at <= now; }
};
using ModelDb = std::map<std::string, ModelEntry>;

class Differential {
 public:
  static constexpr int kDbs = 4;

  explicit Differential(uint64_t seed) : rng_(seed) {}

  void Run(int ops) {
    for (int op = 0; op < ops; ++op) {
      SCOPED_TRACE("op " + std::to_string(op));
      Step();
      if (::testing::Test::HasFatalFailure() || ::testing::Test::HasNonfatalFailure()) return;
      if (op % 1000 == 0) CheckAll();
    }
    CheckAll();
  }

 private:
  uint64_t Uniform(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }
  int RandomDb() { return static_cast<int>(Uniform(kDbs)); }

  std::string RandomKey() {
    static const std::vector<std::string> kSpecial = {""s,
                                                      "\0"s,
                                                      "\0\0"s,
                                                      "a"s,
                                                      "a\0"s,
                                                      "\xff"s,
                                                      "\xff\xff"s,
                                                      std::string(30, 'z') + "1",
                                                      std::string(30, 'z') + "2",
                                                      std::string(30, 'z')};
    if (Uniform(8) == 0) return kSpecial[Uniform(kSpecial.size())];
    std::string k = "k" + std::to_string(Uniform(150));
    if (Uniform(4) == 0) k.push_back(static_cast<char>(Uniform(256)));
    return k;
  }

  int64_t RandomExpire() {
    // Mostly in the near future, some already past; never kNoExpire (-1).
    return now_ + static_cast<int64_t>(Uniform(400)) - 50;
  }

  void Step() {
    uint64_t r = Uniform(1000);
    if (r < 300) {
      DoSet();
    } else if (r < 400) {
      DoDelete();
    } else if (r < 530) {
      DoFind();
    } else if (r < 620) {
      DoFindForWriteAndExpire();
    } else if (r < 700) {
      DoScan();
    } else if (r < 760) {
      DoMove();
    } else if (r < 820) {
      DoActiveExpire();
    } else if (r < 850) {
      DoRandomKey();
    } else if (r < 853) {
      DoFlushDb();
    } else if (r < 856) {
      DoSwapDb();
    } else if (r < 857) {
      std::unique_lock lock(ks_.mu());
      ks_.FlushAll();
      for (auto& db : model_) db.clear();
    } else {
      now_ += static_cast<int64_t>(Uniform(20));
    }
  }

  void DoSet() {
    int db = RandomDb();
    std::string key = RandomKey();
    std::string value = std::to_string(rng_());
    int64_t expire = Uniform(3) == 0 ? RandomExpire() : kNoExpire;
    std::unique_lock lock(ks_.mu());
    Object* o = ks_.Set(db, key, Str(value, expire));
    ASSERT_EQ(StringValue(*o), value);
    model_[db][key] = {value, expire};
  }

  void DoDelete() {
    int db = RandomDb();
    std::string key = RandomKey();
    std::unique_lock lock(ks_.mu());
    bool existed = model_[db].erase(key) > 0;
    ASSERT_EQ(ks_.Delete(db, key), existed) << Printable(key);
  }

  // A reader under the shared lock, then the caller's lazy expiry under the exclusive lock, as
  // the dispatcher does.
  void DoFind() {
    int db = RandomDb();
    std::string key = RandomKey();
    std::vector<ExpiredKey> expired;
    {
      std::shared_lock lock(ks_.mu());
      Object* o = ks_.Find(db, key, now_, &expired);
      auto it = model_[db].find(key);
      if (it == model_[db].end()) {
        ASSERT_EQ(o, nullptr) << Printable(key);
        ASSERT_TRUE(expired.empty());
      } else if (it->second.ExpiredAt(now_)) {
        ASSERT_EQ(o, nullptr) << Printable(key);
        ASSERT_EQ(expired.size(), 1u);
        ASSERT_EQ(expired[0].key, key);
        ASSERT_EQ(expired[0].db, db);
      } else {
        ASSERT_NE(o, nullptr) << Printable(key);
        ASSERT_EQ(StringValue(*o), it->second.value);
        ASSERT_EQ(o->expire_at_ms(), it->second.expire_at);
        ASSERT_TRUE(expired.empty());
      }
    }
    if (Uniform(2) == 0) now_ += static_cast<int64_t>(Uniform(5));  // time may pass meanwhile
    std::unique_lock lock(ks_.mu());
    ks_.ExpireReported(expired, now_);
    for (const ExpiredKey& e : expired) {
      auto it = model_[e.db].find(e.key);
      if (it != model_[e.db].end() && it->second.ExpiredAt(now_)) model_[e.db].erase(it);
    }
  }

  // EXPIRE / PERSIST / in-place update on a live key.
  void DoFindForWriteAndExpire() {
    int db = RandomDb();
    std::string key = RandomKey();
    std::unique_lock lock(ks_.mu());
    Object* o = ks_.FindForWrite(db, key, now_);
    auto it = model_[db].find(key);
    if (it != model_[db].end() && it->second.ExpiredAt(now_)) {
      model_[db].erase(it);
      it = model_[db].end();
    }
    if (it == model_[db].end()) {
      ASSERT_EQ(o, nullptr) << Printable(key);
      return;
    }
    ASSERT_NE(o, nullptr) << Printable(key);
    ASSERT_EQ(StringValue(*o), it->second.value);
    switch (Uniform(3)) {
      case 0: {
        int64_t e = RandomExpire();
        o = ks_.SetExpire(db, key, o, e);
        ASSERT_EQ(o, ks_.Find(db, key, INT64_MIN));
        it->second.expire_at = e;
        break;
      }
      case 1:
        o = ks_.SetExpire(db, key, o, kNoExpire);
        ASSERT_EQ(o, ks_.Find(db, key, INT64_MIN));
        it->second.expire_at = kNoExpire;
        break;
      default:
        o->AppendString("+");
        it->second.value += "+";
        break;
    }
  }

  void DoScan() {
    int db = RandomDb();
    Direction dir = Uniform(2) == 0 ? Direction::kForward : Direction::kReverse;
    std::string bound = RandomKey();
    ScanStart start = ScanStart::Edge();
    switch (Uniform(3)) {
      case 0:
        break;
      case 1:
        start = ScanStart::At(bound);
        break;
      default:
        start = ScanStart::After(bound);
        break;
    }
    size_t limit = 1 + Uniform(Uniform(4) == 0 ? 300 : 10);
    std::vector<std::string> got;
    std::vector<ExpiredKey> got_expired;
    {
      std::shared_lock lock(ks_.mu());
      ks_.Scan(
          db, start, dir, now_,
          [&](std::string_view k, Object* o) {
            auto it = model_[db].find(std::string(k));
            EXPECT_TRUE(it != model_[db].end() && it->second.value == StringValue(*o))
                << Printable(k);
            got.emplace_back(k);
            return got.size() < limit;
          },
          &got_expired);
    }
    // The model's walk: expired entries are reported until the scan stops at the limit.
    std::vector<std::string> want, want_expired;
    auto visit = [&](const std::pair<const std::string, ModelEntry>& e) {
      if (e.second.ExpiredAt(now_)) {
        want_expired.push_back(e.first);
        return true;
      }
      want.push_back(e.first);
      return want.size() < limit;
    };
    const ModelDb& m = model_[db];
    if (dir == Direction::kForward) {
      auto it = start.unbounded   ? m.begin()
                : start.inclusive ? m.lower_bound(bound)
                                  : m.upper_bound(bound);
      for (; it != m.end(); ++it)
        if (!visit(*it)) break;
    } else {
      auto it = start.unbounded   ? m.end()
                : start.inclusive ? m.upper_bound(bound)
                                  : m.lower_bound(bound);
      while (it != m.begin())
        if (!visit(*--it)) break;
    }
    ASSERT_EQ(got, want) << (dir == Direction::kForward ? "forward" : "reverse") << " from "
                         << (start.unbounded ? "edge" : Printable(bound)) << " limit " << limit;
    std::vector<std::string> got_expired_keys;
    for (const ExpiredKey& e : got_expired) {
      ASSERT_EQ(e.db, db);
      got_expired_keys.push_back(e.key);
    }
    ASSERT_EQ(got_expired_keys, want_expired);
    std::unique_lock lock(ks_.mu());
    ks_.ExpireReported(got_expired, now_);
    for (const std::string& k : want_expired) model_[db].erase(k);
  }

  void DoMove() {
    int db = RandomDb(), to_db = RandomDb();
    std::string from = RandomKey(), to = RandomKey();
    std::unique_lock lock(ks_.mu());
    ks_.Move(db, from, to_db, to);
    auto it = model_[db].find(from);
    if (it == model_[db].end()) return;
    ModelEntry e = it->second;
    model_[db].erase(it);
    model_[to_db][to] = e;
  }

  // Which keys the keyspace deleted is its random choice: accept any subset of the expired keys.
  void SyncDeletedExpired(int db) {
    std::vector<std::string> present = AllKeys(ks_, db);
    std::set<std::string> present_set(present.begin(), present.end());
    for (auto it = model_[db].begin(); it != model_[db].end();) {
      if (present_set.count(it->first)) {
        ++it;
        continue;
      }
      ASSERT_TRUE(it->second.ExpiredAt(now_)) << "deleted a live key " << Printable(it->first);
      it = model_[db].erase(it);
    }
  }

  // Deletes up to max due keys: exactly min(max, due) of them, and within each database the
  // soonest (expire time, then key).
  void DoActiveExpire() {
    std::unique_lock lock(ks_.mu());
    size_t max_keys = 1 + Uniform(30);
    std::set<std::pair<int64_t, std::string>> due_before[kDbs];
    size_t due = 0;
    for (int db = 0; db < kDbs; ++db) {
      for (const auto& [k, e] : model_[db]) {
        if (e.ExpiredAt(now_)) due_before[db].insert({e.expire_at, k});
      }
      due += due_before[db].size();
    }
    bool more_due;
    size_t deleted = ks_.ExpireDueKeys(now_, max_keys, &more_due);
    ASSERT_EQ(deleted, std::min(max_keys, due));
    ASSERT_EQ(more_due, due > max_keys);
    for (int db = 0; db < kDbs; ++db) {
      SyncDeletedExpired(db);
      // What remains due in db is a suffix of what was due.
      bool kept = false;
      for (const auto& [at, k] : due_before[db]) {
        bool present = model_[db].count(k) > 0;
        ASSERT_FALSE(kept && !present) << "deleted " << Printable(k) << " before a sooner key";
        kept = kept || present;
      }
    }
  }

  void DoRandomKey() {
    int db = RandomDb();
    std::unique_lock lock(ks_.mu());
    std::string out;
    size_t before = model_[db].size();
    bool found = ks_.RandomKey(db, now_, &out);
    SyncDeletedExpired(db);
    size_t deleted = before - model_[db].size();
    if (found) {
      auto it = model_[db].find(out);
      ASSERT_TRUE(it != model_[db].end()) << Printable(out);
      ASSERT_FALSE(it->second.ExpiredAt(now_));
    } else if (deleted < 100) {
      // Not given up after 100 expired keys: there is no live key.
      for (const auto& [k, e] : model_[db]) ASSERT_TRUE(e.ExpiredAt(now_)) << Printable(k);
    }
  }

  void DoFlushDb() {
    int db = RandomDb();
    std::unique_lock lock(ks_.mu());
    ks_.FlushDb(db);
    model_[db].clear();
  }

  void DoSwapDb() {
    int a = RandomDb(), b = RandomDb();
    std::unique_lock lock(ks_.mu());
    ks_.SwapDb(a, b);
    std::swap(model_[a], model_[b]);
  }

  void CheckAll() {
    std::shared_lock lock(ks_.mu());
    for (int db = 0; db < kDbs; ++db) {
      SCOPED_TRACE("db " + std::to_string(db));
      const ModelDb& m = model_[db];
      ASSERT_EQ(ks_.DbSize(db), m.size());
      size_t with_ttl = 0;
      int64_t ttl_sum = 0;
      for (const auto& [k, e] : m) {
        if (e.expire_at == kNoExpire) continue;
        ++with_ttl;
        ttl_sum += std::max<int64_t>(0, e.expire_at - now_);
      }
      ASSERT_EQ(ks_.ExpiresCount(db), with_ttl);
      if (with_ttl > 0) {
        ASSERT_EQ(ks_.AvgTtlMs(db, now_), ttl_sum / static_cast<int64_t>(with_ttl));
      }
      // The TTL space names exactly the keys with a TTL, in (expire time, key) order, each
      // pointing at the key's object.
      std::vector<std::pair<int64_t, std::string>> want_ttls, got_ttls;
      for (const auto& [k, e] : m) {
        if (e.expire_at != kNoExpire) want_ttls.push_back({e.expire_at, k});
      }
      std::sort(want_ttls.begin(), want_ttls.end());
      ks_.ScanByExpiry(db, [&](std::string_view k, int64_t at, Object* o) {
        EXPECT_EQ(o, ks_.Find(db, k, INT64_MIN)) << Printable(k);
        got_ttls.push_back({at, std::string(k)});
        return true;
      });
      ASSERT_EQ(got_ttls, want_ttls);
      std::vector<std::pair<std::string, ModelEntry>> got;
      ks_.Scan(db, ScanStart::Edge(), Direction::kForward, INT64_MIN,
               [&](std::string_view k, Object* o) {
                 got.push_back({std::string(k), {StringValue(*o), o->expire_at_ms()}});
                 return true;
               });
      ASSERT_EQ(got.size(), m.size());
      auto it = m.begin();
      for (const auto& [k, e] : got) {
        ASSERT_EQ(k, it->first);
        ASSERT_EQ(e.value, it->second.value) << Printable(k);
        ASSERT_EQ(e.expire_at, it->second.expire_at) << Printable(k);
        ++it;
      }
    }
    // And the index holds nothing else: one entry per key, one more per TTL.
    size_t entries = 0;
    for (int db = 0; db < kDbs; ++db) entries += ks_.DbSize(db) + ks_.ExpiresCount(db);
    ASSERT_EQ(ks_.IndexStats().keys, entries);
  }

  std::mt19937_64 rng_;
  Keyspace ks_{kDbs};
  ModelDb model_[kDbs];
  int64_t now_ = kT0;
};

TEST(KeyspaceDifferential, RandomOpsMatchModel) {
  for (uint64_t seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Differential d(seed);
    d.Run(100000);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace ordis::server
