// Lazy free under concurrency, in the server's locking pattern: writers delete, overwrite and
// flush large values (every value here is a set past the lazy-free threshold) under the exclusive
// lock while readers read them under the shared lock, the active expiry thread expires some, and
// the lazy-free thread frees them all behind everyone's back. Written for ThreadSanitizer (and
// AddressSanitizer: a value freed while still reachable is a use after free); the checks are the
// model's: a reader never sees a value partly freed, and every value that left the keyspace is
// freed exactly once (the thread's count equals the model's deletions).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <random>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "server/keyspace/expiry.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server {
namespace {

constexpr int kMembers = 100;  // past LazyFree::kThreshold: every value goes to the thread
constexpr int kKeys = 64;

std::string KeyName(uint64_t n) {
  std::string key = "key:";
  key += std::to_string(n);
  return key;
}

ObjectPtr BigSet(uint64_t tag, int64_t expire_at_ms) {
  ObjectPtr obj = NewObject(ObjType::kSet, expire_at_ms);
  for (int i = 0; i < kMembers; ++i) {
    std::string member = std::to_string(tag) + ":" + std::to_string(i);
    member.resize(24, '.');  // past the small-string buffer: an allocation per member
    obj->set().insert(member);
  }
  return obj;
}

TEST(LazyFreeStress, ReadersWritersExpiryAndFlushesWhileTheThreadFrees) {
  Keyspace ks(2);
  ks.SetLazyFreePolicy({.eviction = true, .expire = true, .server_del = true});
  ActiveExpiry expiry(ks);
  expiry.Start();

  constexpr int kWriters = 2, kReaders = 2;
  constexpr int kWriterOps = 20000;
  std::atomic<int> writers_left{kWriters};
  // Values that left the keyspace other than by expiry (which Keyspace counts itself).
  std::atomic<uint64_t> removed{0};
  std::atomic<uint64_t> reads_found{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937_64 rng(w + 1);
      for (int op = 0; op < kWriterOps; ++op) {
        const int db = static_cast<int>(rng() % 2);
        const std::string key = KeyName(rng() % kKeys);
        const int64_t now = NowMs();
        std::unique_lock lock(ks.mu());
        const uint64_t dice = rng() % 100;
        if (dice < 45) {
          // SET: overwrites (server-side delete) whatever is there; some values live a few ms.
          if (ks.FindForWrite(db, key, now) != nullptr) ++removed;
          const int64_t ttl = rng() % 4 == 0 ? now + 1 + static_cast<int64_t>(rng() % 10) : -1;
          ks.Set(db, key, BigSet(rng(), ttl));
        } else if (dice < 80) {
          // UNLINK.
          if (ks.FindForWrite(db, key, now) != nullptr && ks.Delete(db, key, FreeMode::kLazy)) {
            ++removed;
          }
        } else if (dice < 90) {
          // RENAME onto another key: the target's value goes.
          const std::string to = KeyName(rng() % kKeys);
          if (key != to && ks.FindForWrite(db, key, now) != nullptr) {
            if (ks.FindForWrite(db, to, now) != nullptr) ++removed;
            ks.Move(db, key, db, to);
          }
        } else if (dice < 99) {
          // Eviction of whatever is there.
          if (ks.Evict(db, key, false)) ++removed;
        } else {
          removed += ks.DbSize(db);
          ks.FlushDb(db, FreeMode::kLazy);
        }
      }
      --writers_left;
    });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937_64 rng(100 + r);
      std::vector<ExpiredKey> expired;
      while (writers_left.load() > 0) {
        const int db = static_cast<int>(rng() % 2);
        const std::string key = KeyName(rng() % kKeys);
        {
          std::shared_lock lock(ks.mu());
          const Object* obj = ks.Find(db, key, NowMs(), &expired);
          if (obj != nullptr) {
            // The whole value, every member readable: nothing of it freed under the reader.
            ASSERT_EQ(obj->type(), ObjType::kSet);
            size_t bytes = 0;
            for (const std::string& m : std::get<SetValue>(obj->collection())) bytes += m.size();
            ASSERT_EQ(bytes, size_t{kMembers} * 24);
            ++reads_found;
          }
        }
        if (!expired.empty()) {
          std::unique_lock lock(ks.mu());
          ks.ExpireReported(expired, NowMs());
          expired.clear();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  expiry.Stop();
  ASSERT_TRUE(ks.lazy_free().WaitIdle(std::chrono::seconds(60)));
  EXPECT_GT(reads_found.load(), 0u);
  EXPECT_GT(ks.expired_keys(), 0u);
  // Every value that left went through the thread, once.
  EXPECT_EQ(ks.lazy_free().freed(), removed.load() + ks.expired_keys());
  EXPECT_EQ(ks.lazy_free().pending(), 0u);
}

}  // namespace
}  // namespace ordis::server
