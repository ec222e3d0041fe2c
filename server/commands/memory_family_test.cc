// MEMORY, maxmemory and the eviction policies, in-process. The server's used memory is replaced
// by a count the tests control (FakeUsedMemory): a base plus a fixed cost per key. Every reply
// was first checked against redis-server 7.0.15.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "base/clock.h"
#include "server/commands/family_test_support.h"
#include "server/config/config.h"
#include "server/keyspace/eviction.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server::test {
namespace {

constexpr std::string_view kOom = "OOM command not allowed when used memory > 'maxmemory'.";
constexpr uint64_t kPerKey = 100;

class MemoryFamilyTest : public FamilyTest {
 protected:
  explicit MemoryFamilyTest(std::string policy = "noeviction")
      : FamilyTest({{"maxmemory-policy", policy}, {"maxmemory-samples", "64"}}) {
    FakeUsedMemory([this] { return extra.load() + kPerKey * Keys(); });
  }

  uint64_t Keys() {
    uint64_t n = 0;
    for (int db = 0; db < keyspace().num_dbs(); ++db) n += keyspace().DbSize(db);
    return n;
  }
  // Room for `keys` keys under maxmemory (set by a client of its own: the default one may be in
  // MULTI). 0 lifts the limit.
  void Limit(uint64_t keys) {
    if (admin_ == nullptr) admin_ = &NewClient();
    EXPECT_EQ(admin_->Run({"config", "set", "maxmemory", std::to_string(keys * kPerKey)}), Ok());
  }
  // Makes key look idle for `seconds` (LRU) and sets its LFU counter.
  void Age(const std::string& key, uint32_t seconds, uint8_t lfu = kLfuInit) {
    Object* obj = keyspace().FindAny(0, key);
    ASSERT_NE(obj, nullptr) << key;
    obj->access_s.store(LruClockS(NowMs()) - seconds);
    obj->lfu.store(lfu);
  }
  int64_t Evicted() { return static_cast<int64_t>(keyspace().evicted_keys()); }

  std::atomic<uint64_t> extra{0};  // memory that is not keys

 private:
  TestClient* admin_ = nullptr;
};

// INFO memory, MEMORY STATS and MEMORY DOCTOR run under the shared lock their rows ask for and
// must not take it again: a writer waiting between the two (the lock prefers writers, and the
// active expiry thread is one) deadlocked the server.
TEST_F(MemoryFamilyTest, ReportsDoNotRetakeTheLockAWriterWaitsFor) {
  std::atomic<bool> done{false};
  std::thread writer([&] {
    while (!done.load()) std::unique_lock lock(keyspace().mu());
  });
  auto reports = std::async(std::launch::async, [&] {
    for (int i = 0; i < 2000; ++i) {
      Run({"info", "memory"});
      Run({"memory", "stats"});
      Run({"memory", "doctor"});
    }
  });
  const bool finished = reports.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  done = true;
  if (!finished) {
    std::fprintf(stderr, "INFO / MEMORY STATS deadlocked against a waiting writer\n");
    std::abort();  // the stuck thread cannot be joined
  }
  writer.join();
}

// --- noeviction ---

TEST_F(MemoryFamilyTest, NoEvictionRefusesWritesButServesReadsAndDeletes) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "2"}), Ok());
  Limit(1);
  EXPECT_EQ(Run({"set", "c", "3"}), Err(kOom));
  EXPECT_EQ(Run({"append", "a", "x"}), Err(kOom));
  EXPECT_EQ(Run({"get", "a"}), Bulk("1"));
  EXPECT_EQ(Run({"del", "a"}), Int(1));
  EXPECT_EQ(Run({"exists", "b"}), Int(1));
  EXPECT_EQ(Evicted(), 0);
  // Under the limit again (one key left), writes run.
  EXPECT_EQ(Run({"set", "b", "3"}), Ok());
}

TEST_F(MemoryFamilyTest, OomInsideMulti) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "b", "1"}), Status("QUEUED"));
  extra = 10 * kPerKey;
  Limit(1);
  TestClient& other = NewClient();
  EXPECT_EQ(other.Run({"multi"}), Ok());
  // Queuing takes memory: even a read is refused, and the transaction is then discarded.
  EXPECT_EQ(other.Run({"get", "a"}), Err(kOom));
  EXPECT_EQ(other.Run({"exec"}),
            Err("EXECABORT Transaction discarded because of previous errors."));
  // An EXEC whose queue may grow memory is refused and discards the transaction.
  EXPECT_EQ(Run({"exec"}),
            Err("EXECABORT Transaction discarded because of: OOM command not allowed when used "
                "memory > 'maxmemory'."));
  EXPECT_EQ(Run({"discard"}), Err("ERR DISCARD without MULTI"));
  EXPECT_EQ(Run({"exists", "b"}), Int(0));
}

TEST_F(MemoryFamilyTest, ReadOnlyTransactionRunsWhenFull) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"get", "a"}), Status("QUEUED"));
  Limit(0);
  Limit(1);
  extra = 10 * kPerKey;
  EXPECT_EQ(Run({"exec"}), Array({Bulk("1")}));
}

// --- allkeys-* ---

class AllKeysLruTest : public MemoryFamilyTest {
 protected:
  AllKeysLruTest() : MemoryFamilyTest("allkeys-lru") {}
};

TEST_F(AllKeysLruTest, EvictsTheLeastRecentlyUsed) {
  for (int i = 0; i < 8; ++i) EXPECT_EQ(Run({"set", "k" + std::to_string(i), "v"}), Ok());
  for (int i = 0; i < 8; ++i) Age("k" + std::to_string(i), 100 + i * 10);  // k7 idlest
  Limit(8);
  EXPECT_EQ(Run({"set", "new", "v"}), Ok());
  EXPECT_EQ(Run({"exists", "k7"}), Int(0));
  EXPECT_EQ(Run({"exists", "new", "k0", "k6"}), Int(3));
  EXPECT_EQ(Evicted(), 1);
  EXPECT_EQ(Run({"set", "new2", "v"}), Ok());
  EXPECT_EQ(Run({"exists", "k6"}), Int(0));
  EXPECT_EQ(Run({"dbsize"}), Int(8));
}

TEST_F(AllKeysLruTest, EvictsAcrossDatabases) {
  EXPECT_EQ(Run({"select", "3"}), Ok());
  EXPECT_EQ(Run({"set", "old", "v"}), Ok());
  Object* obj = keyspace().FindAny(3, "old");
  ASSERT_NE(obj, nullptr);
  obj->access_s.store(LruClockS(NowMs()) - 1000);
  EXPECT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"set", "a", "v"}), Ok());
  Limit(2);
  EXPECT_EQ(Run({"set", "b", "v"}), Ok());
  EXPECT_EQ(Run({"select", "3"}), Ok());
  EXPECT_EQ(Run({"exists", "old"}), Int(0));
}

TEST_F(AllKeysLruTest, FullWhenNothingIsLeftToEvict) {
  EXPECT_EQ(Run({"set", "a", "v"}), Ok());
  extra = 10 * kPerKey;  // memory that eviction cannot give back
  Limit(5);
  EXPECT_EQ(Run({"set", "b", "v"}), Err(kOom));
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Evicted(), 1);
  // Reads still run.
  EXPECT_EQ(Run({"get", "b"}), Nil());
}

class AllKeysLfuTest : public MemoryFamilyTest {
 protected:
  AllKeysLfuTest() : MemoryFamilyTest("allkeys-lfu") {}
};

TEST_F(AllKeysLfuTest, EvictsTheLeastFrequentlyUsed) {
  for (int i = 0; i < 8; ++i) EXPECT_EQ(Run({"set", "k" + std::to_string(i), "v"}), Ok());
  for (int i = 0; i < 7; ++i) Age("k" + std::to_string(i), 0, static_cast<uint8_t>(20 - i));
  Age("k7", 0, 1);
  Limit(8);
  // Over the limit after it; the next command makes room. New keys start at 5: k7, at 1, goes.
  EXPECT_EQ(Run({"set", "new", "v"}), Ok());
  EXPECT_EQ(Run({"exists", "k7"}), Int(0));
  EXPECT_EQ(Run({"exists", "k0", "k6", "new"}), Int(3));
  // EXISTS counted an access of `new` (at 5 an access always counts): the next new key is now
  // the least used.
  EXPECT_EQ(Run({"set", "new2", "v"}), Ok());
  EXPECT_EQ(Run({"exists", "new2"}), Int(0));
  EXPECT_EQ(Run({"exists", "new"}), Int(1));
}

TEST_F(AllKeysLfuTest, ObjectFreqDecaysWithIdleMinutes) {
  EXPECT_EQ(Run({"set", "a", "v"}), Ok());
  Age("a", 3 * 60 + 5, 10);  // three lfu-decay-time periods of one minute
  EXPECT_EQ(Run({"object", "freq", "a"}), Int(7));
  EXPECT_EQ(Run({"config", "set", "lfu-decay-time", "0"}), Ok());
  EXPECT_EQ(Run({"object", "freq", "a"}), Int(10));
}

class AllKeysRandomTest : public MemoryFamilyTest {
 protected:
  AllKeysRandomTest() : MemoryFamilyTest("allkeys-random") {}
};

TEST_F(AllKeysRandomTest, StaysAtTheLimit) {
  Limit(10);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(Run({"set", "k" + std::to_string(i), "v"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(10));
  EXPECT_EQ(Evicted(), 90);
  EXPECT_EQ(Run({"info", "stats"}).str.find("evicted_keys:90\r\n") != std::string::npos, true);
}

// --- volatile-* ---

class VolatileLruTest : public MemoryFamilyTest {
 protected:
  VolatileLruTest() : MemoryFamilyTest("volatile-lru") {}
};

TEST_F(VolatileLruTest, EvictsOnlyKeysWithATtlThenRefuses) {
  EXPECT_EQ(Run({"set", "p1", "v"}), Ok());
  EXPECT_EQ(Run({"set", "p2", "v"}), Ok());
  EXPECT_EQ(Run({"set", "t1", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"set", "t2", "v", "ex", "100"}), Ok());
  Age("p1", 1000);
  Age("t1", 10);
  Age("t2", 20);
  Limit(4);
  EXPECT_EQ(Run({"set", "p3", "v"}), Ok());
  EXPECT_EQ(Run({"exists", "t2"}), Int(0));
  EXPECT_EQ(Run({"set", "p4", "v"}), Ok());
  EXPECT_EQ(Run({"exists", "t1"}), Int(0));
  // At the limit, not over it: the write runs, and the next finds nothing it may evict.
  EXPECT_EQ(Run({"set", "p5", "v"}), Ok());
  EXPECT_EQ(Run({"set", "p6", "v"}), Err(kOom));
  EXPECT_EQ(Run({"exists", "p1", "p2", "p3", "p4", "p5", "p6"}), Int(5));
  EXPECT_EQ(Evicted(), 2);
}

class VolatileTtlTest : public MemoryFamilyTest {
 protected:
  VolatileTtlTest() : MemoryFamilyTest("volatile-ttl") {}
};

TEST_F(VolatileTtlTest, EvictsTheSoonestToExpire) {
  EXPECT_EQ(Run({"set", "late", "v", "ex", "1000"}), Ok());
  EXPECT_EQ(Run({"set", "soon", "v", "ex", "10"}), Ok());
  EXPECT_EQ(Run({"set", "mid", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"set", "forever", "v"}), Ok());
  Limit(4);
  EXPECT_EQ(Run({"set", "x", "v"}), Ok());
  EXPECT_EQ(Run({"exists", "soon"}), Int(0));
  EXPECT_EQ(Run({"set", "y", "v"}), Ok());
  EXPECT_EQ(Run({"exists", "mid"}), Int(0));
  EXPECT_EQ(Run({"exists", "late", "forever"}), Int(2));
}

class VolatileRandomTest : public MemoryFamilyTest {
 protected:
  VolatileRandomTest() : MemoryFamilyTest("volatile-random") {}
};

TEST_F(VolatileRandomTest, KeysWithoutTtlSurvive) {
  for (int i = 0; i < 5; ++i) EXPECT_EQ(Run({"set", "p" + std::to_string(i), "v"}), Ok());
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(Run({"set", "t" + std::to_string(i), "v", "px", "100000"}), Ok());
  }
  Limit(10);
  EXPECT_EQ(Run({"set", "x", "v"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(10));
  EXPECT_EQ(Run({"exists", "p0", "p1", "p2", "p3", "p4", "x"}), Int(6));
}

// --- MEMORY ---

TEST_F(MemoryFamilyTest, MemoryUsage) {
  EXPECT_EQ(Run({"memory", "usage", "missing"}), Nil());
  EXPECT_EQ(Run({"set", "a", "v"}), Ok());
  EXPECT_EQ(Run({"memory", "usage", "a"}).type, Reply::Type::kInteger);
  EXPECT_EQ(Run({"memory", "usage", "a", "samples", "0"}).type, Reply::Type::kInteger);
  EXPECT_EQ(Run({"memory", "usage", "a", "samples", "-1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"memory", "usage", "a", "samples", "x"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"memory", "usage", "a", "foo", "1"}), Err("ERR syntax error"));
}

TEST_F(MemoryFamilyTest, MemoryStatsFields) {
  EXPECT_EQ(Run({"set", "a", "v"}), Ok());
  std::vector<std::string> names;
  Reply stats = Run({"memory", "stats"});
  ASSERT_EQ(stats.type, Reply::Type::kArray);  // RESP2: a flat list of names and values
  for (size_t i = 0; i < stats.elements.size(); i += 2) names.push_back(stats.elements[i].str);
  for (std::string_view want :
       {"peak.allocated", "total.allocated", "startup.allocated", "overhead.total", "keys.count",
        "keys.bytes-per-key", "dataset.bytes", "dataset.percentage", "fragmentation"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  auto at = [&](std::string_view name) {
    auto it = std::find(names.begin(), names.end(), name);
    return stats.elements[2 * (it - names.begin()) + 1];
  };
  EXPECT_EQ(at("keys.count"), Int(1));
  EXPECT_EQ(at("total.allocated"), Int(static_cast<int64_t>(extra + kPerKey)));
}

TEST_F(MemoryFamilyTest, MemoryDoctorPurgeMallocStatsHelp) {
  EXPECT_EQ(Run({"memory", "doctor"}).type, Reply::Type::kBulk);
  EXPECT_EQ(Run({"memory", "doctor", "x"}),
            Err("ERR wrong number of arguments for 'memory|doctor' command"));
  EXPECT_EQ(Run({"memory", "purge"}), Ok());
  EXPECT_EQ(Run({"memory", "purge", "x"}),
            Err("ERR wrong number of arguments for 'memory|purge' command"));
  EXPECT_EQ(Run({"memory", "malloc-stats"}).type, Reply::Type::kBulk);
  EXPECT_EQ(Run({"memory", "help"}).elements.size(), 14u);
}

TEST_F(MemoryFamilyTest, InfoMemoryReportsTheLimitAndPolicy) {
  Limit(7);
  std::string info = Run({"info", "memory"}).str;
  EXPECT_NE(info.find("\r\nmaxmemory:700\r\n"), std::string::npos) << info;
  EXPECT_NE(info.find("\r\nmaxmemory_human:700B\r\n"), std::string::npos);
  EXPECT_NE(info.find("\r\nmaxmemory_policy:noeviction\r\n"), std::string::npos);
  EXPECT_NE(info.find("\r\nused_memory_peak:"), std::string::npos);
  EXPECT_NE(info.find("\r\nmem_allocator:"), std::string::npos);
}

}  // namespace
}  // namespace ordis::server::test
