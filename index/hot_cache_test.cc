// HotCache against a model of what it holds, WriteStamps invalidation, and a concurrent test of the
// cross-thread protocol: readers with their own caches must never return a value older than one
// they have already seen.
#include "index/hot_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <latch>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace ordis::index {
namespace {

constexpr uint64_t kNoWrites = 0;  // the stamp of a stripe never written: Stable

// The value cached for key; nullopt when nothing, or absence, is cached.
std::optional<ValueHandle> Present(HotCache& cache, std::string_view key, uint64_t hash,
                                   uint64_t stamp) {
  ValueHandle value;
  if (cache.Lookup(key, hash, stamp, &value) != HotCache::Known::kPresent) return std::nullopt;
  return value;
}

TEST(HotCache, AbsentKeyIsCachedUntilAWriteToItsStripe) {
  WriteStamps stamps;
  HotCache cache;
  uint64_t h = HashKey("job:7");
  ValueHandle v = 0;
  EXPECT_EQ(cache.Lookup("job:7", h, stamps.Load(h), &v), HotCache::Known::kNothing);
  cache.Offer("job:7", h, std::nullopt, stamps.Load(h), /*force=*/true);
  EXPECT_EQ(cache.Lookup("job:7", h, stamps.Load(h), &v), HotCache::Known::kAbsent);
  EXPECT_EQ(cache.hits(), 1u);
  // The key is created: its write bumps the stripe, and the absence is forgotten.
  stamps.BeginWrite(h);
  stamps.EndWrite(h);
  EXPECT_EQ(cache.Lookup("job:7", h, stamps.Load(h), &v), HotCache::Known::kNothing);
  // Present again after an offer of its value, in the same way.
  cache.Offer("job:7", h, 5, stamps.Load(h));
  EXPECT_EQ(cache.Lookup("job:7", h, stamps.Load(h), &v), HotCache::Known::kPresent);
  EXPECT_EQ(v, 5u);
  cache.Offer("job:7", h, std::nullopt, stamps.Load(h));
  EXPECT_EQ(cache.Lookup("job:7", h, stamps.Load(h), &v), HotCache::Known::kAbsent);
}

TEST(HotCache, ForcedOfferHits) {
  HotCache cache;
  uint64_t h = HashKey("user:1");
  EXPECT_FALSE(Present(cache, "user:1", h, kNoWrites));
  cache.Offer("user:1", h, 42, kNoWrites, /*force=*/true);
  EXPECT_EQ(Present(cache, "user:1", h, kNoWrites), 42u);
  EXPECT_EQ(cache.lookups(), 2u);
  EXPECT_EQ(cache.hits(), 1u);
}

// Same hash means same bucket and tag: only the key bytes tell them apart.
TEST(HotCache, SameHashDifferentKeyMisses) {
  HotCache cache;
  uint64_t h = HashKey("a");
  cache.Offer("a", h, 1, kNoWrites, true);
  EXPECT_FALSE(Present(cache, "b", h, kNoWrites));
  cache.Offer("b", h, 2, kNoWrites, true);
  EXPECT_EQ(Present(cache, "a", h, kNoWrites), 1u);
  EXPECT_EQ(Present(cache, "b", h, kNoWrites), 2u);
}

// Random offers, invalidations and clears in a small cache, so ways are evicted all the time. After
// every step, every key of the universe hits iff it is in its bucket, with the value last offered
// for it.
TEST(HotCache, EveryKeyInItsBucketHitsWithItsLastValue) {
  HotCache cache(/*buckets=*/8, /*admit_one_in=*/2);
  std::mt19937_64 rng(7);
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) keys.push_back("k" + std::to_string(i));
  std::map<std::string, ValueHandle> last_offered;
  int admissions = 0;
  for (int step = 0; step < 20000; ++step) {
    const std::string& key = keys[rng() % keys.size()];
    uint64_t h = HashKey(key);
    uint64_t op = rng() % 100;
    if (op < 80) {
      bool was_in = cache.TEST_InBucket(key, h);
      cache.Offer(key, h, step, kNoWrites, op < 40);
      if (cache.TEST_InBucket(key, h)) last_offered[key] = step;
      if (!was_in && cache.TEST_InBucket(key, h)) ++admissions;
    } else if (op < 99) {
      cache.Invalidate(key, h);
      ASSERT_FALSE(cache.TEST_InBucket(key, h));
    } else {
      cache.Clear();
    }
    if (step % 7 != 0) continue;
    for (const std::string& k : keys) {
      uint64_t kh = HashKey(k);
      std::optional<ValueHandle> hit = Present(cache, k, kh, kNoWrites);
      ASSERT_EQ(hit.has_value(), cache.TEST_InBucket(k, kh)) << k << " at step " << step;
      if (hit) {
        ASSERT_EQ(*hit, last_offered[k]) << k;
      }
    }
  }
  EXPECT_GT(admissions, 8 * 4 * 10);  // many times the 32 ways: evictions happened
}

TEST(HotCache, WriteMakesEntryStale) {
  WriteStamps stamps;
  HotCache cache;
  uint64_t h = HashKey("counter");
  uint64_t s = stamps.Load(h);
  cache.Offer("counter", h, 1, s, true);
  EXPECT_EQ(Present(cache, "counter", h, stamps.Load(h)), 1u);

  stamps.BeginWrite(h);
  uint64_t mid = stamps.Load(h);
  EXPECT_FALSE(WriteStamps::Stable(mid));
  EXPECT_FALSE(Present(cache, "counter", h, mid));  // a writer is in progress
  // A value read while a writer is in progress is not admitted, even forced.
  cache.Offer("other", h, 9, mid, true);
  EXPECT_FALSE(cache.TEST_InBucket("other", h));
  stamps.EndWrite(h);

  uint64_t after = stamps.Load(h);
  EXPECT_TRUE(WriteStamps::Stable(after));
  EXPECT_NE(after, s);
  EXPECT_FALSE(Present(cache, "counter", h, after));  // the write began after the entry's stamp
  cache.Offer("counter", h, 2, after);                // refreshes: the key is cached, no sampling
  EXPECT_EQ(Present(cache, "counter", h, stamps.Load(h)), 2u);

  // A write on another stripe leaves the entry valid.
  uint64_t elsewhere = h ^ (uint64_t{1} << 63);
  stamps.BeginWrite(elsewhere);
  stamps.EndWrite(elsewhere);
  EXPECT_EQ(Present(cache, "counter", h, stamps.Load(h)), 2u);
}

TEST(HotCache, InvalidateAndClearDrop) {
  HotCache cache(256);
  for (int i = 0; i < 50; ++i) {
    std::string k = "k" + std::to_string(i);
    cache.Offer(k, HashKey(k), i, kNoWrites, true);
  }
  cache.Invalidate("k3", HashKey("k3"));
  cache.Invalidate("absent", HashKey("absent"));
  EXPECT_FALSE(Present(cache, "k3", HashKey("k3"), kNoWrites));
  EXPECT_EQ(Present(cache, "k4", HashKey("k4"), kNoWrites), 4u);
  cache.Clear();
  int hits = 0;
  for (int i = 0; i < 50; ++i) {
    std::string k = "k" + std::to_string(i);
    hits += Present(cache, k, HashKey(k), kNoWrites).has_value();
  }
  EXPECT_EQ(hits, 0);
  EXPECT_EQ(cache.lookups(), 52u);
  EXPECT_EQ(cache.hits(), 1u);
}

// Keys are bytes: empty, NULs, around the 24-byte inline limit, 1 KiB. Each is cached next to a
// look-alike with the same hash, which must not be mistaken for it.
TEST(HotCache, KeysOfAnyBytes) {
  std::string kib(1024, 'x');
  std::vector<std::string> keys = {"",
                                   std::string(1, '\0'),
                                   std::string(2, '\0'),
                                   std::string(24, 'a'),
                                   std::string(25, 'a'),
                                   std::string(23, 'a'),
                                   std::string(40, '\xff'),
                                   kib,
                                   kib.substr(0, 1023) + 'y'};
  HotCache cache(1024);
  for (size_t i = 0; i < keys.size(); ++i) {
    cache.Offer(keys[i], HashKey(keys[i]), 100 + i, kNoWrites, true);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    uint64_t h = HashKey(keys[i]);
    EXPECT_EQ(Present(cache, keys[i], h, kNoWrites), 100 + i) << "key " << i;
    EXPECT_FALSE(Present(cache, keys[i] + '\0', h, kNoWrites)) << "key " << i;
    if (!keys[i].empty()) {
      EXPECT_FALSE(Present(cache, keys[i].substr(1), h, kNoWrites)) << "key " << i;
    }
  }
  cache.Invalidate(kib, HashKey(kib));  // frees the heap copy (checked by ASAN builds)
  EXPECT_FALSE(Present(cache, kib, HashKey(kib), kNoWrites));
}

TEST(HotCache, AdmissionIsSampled) {
  HotCache sampled(/*buckets=*/4096, /*admit_one_in=*/8);
  HotCache always(/*buckets=*/4096, /*admit_one_in=*/1);
  int admitted = 0, admitted_always = 0;
  for (int i = 0; i < 1000; ++i) {
    std::string k = "key:" + std::to_string(i);
    uint64_t h = HashKey(k);
    sampled.Offer(k, h, i, kNoWrites);
    always.Offer(k, h, i, kNoWrites);
    admitted += sampled.TEST_InBucket(k, h);
    admitted_always += always.TEST_InBucket(k, h);
  }
  // Binomial(1000, 1/8): mean 125, standard deviation 10.5; the bounds are 7 deviations out.
  EXPECT_GT(admitted, 50);
  EXPECT_LT(admitted, 200);
  EXPECT_GT(admitted_always, 990);  // all but the odd overfull bucket's evictions
}

// Readers, each with its own HotCache, and writers share per-key counters (incremented under
// BeginWrite/EndWrite, so they only grow). Readers sometimes read a counter directly, then look it
// up through their cache: a hit older than a value the reader has already seen means a write went
// unnoticed. Half the keys are never written, so hits certainly happen.
TEST(HotCacheConcurrent, ReadersNeverSeeValuesGoBack) {
  constexpr int kKeys = 64, kWritten = 32, kReaders = 3, kWriters = 2;
  constexpr int kMinWrites = 20000, kMinReads = 40000;

  // Keys on distinct stripes, so the never-written keys' stamps stay put.
  std::vector<std::string> keys;
  std::vector<uint64_t> hashes;
  std::set<uint64_t> stripes;
  for (int i = 0; keys.size() < kKeys; ++i) {
    std::string k = "key:" + std::to_string(i);
    if (!stripes.insert(HashKey(k) >> 52).second) continue;
    keys.push_back(k);
    hashes.push_back(HashKey(k));
  }
  WriteStamps stamps;
  std::unique_ptr<std::atomic<uint64_t>[]> values(new std::atomic<uint64_t>[kKeys]);
  for (int i = 0; i < kKeys; ++i) values[i].store(0);

  std::atomic<int> writers_running{kWriters}, readers_short{kReaders};
  std::atomic<uint64_t> total_writes{0};
  std::atomic<uint64_t> total_hits{0}, went_back{0};
  std::latch start(kReaders + kWriters);
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(100 + t);
      uint64_t writes = 0;
      start.arrive_and_wait();
      // Writes go on until every reader has done its minimum, so reads and writes overlap.
      for (int i = 0; i < kMinWrites || readers_short.load() > 0; ++i) {
        int k = rng() % kWritten;
        stamps.BeginWrite(hashes[k]);
        values[k].fetch_add(1, std::memory_order_release);  // release: the protocol's publish
        stamps.EndWrite(hashes[k]);
        ++writes;
      }
      total_writes.fetch_add(writes);
      writers_running.fetch_sub(1);
    });
  }
  for (int t = 0; t < kReaders; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(200 + t);
      HotCache cache(/*buckets=*/8, /*admit_one_in=*/2);
      std::vector<uint64_t> seen(kKeys, 0);
      uint64_t bad = 0;
      start.arrive_and_wait();
      for (int i = 0; i < kMinReads || writers_running.load() > 0; ++i) {
        if (i == kMinReads) readers_short.fetch_sub(1);
        int k = rng() % kKeys;
        auto observe = [&](uint64_t v) {
          bad += v < seen[k];
          seen[k] = std::max(seen[k], v);
        };
        // acquire: the protocol's reader side (a later stamp Load cannot move above it).
        if (rng() % 4 == 0) observe(values[k].load(std::memory_order_acquire));
        uint64_t s = stamps.Load(hashes[k]);
        if (std::optional<ValueHandle> hit = Present(cache, keys[k], hashes[k], s)) {
          observe(*hit);
        } else {
          uint64_t v = values[k].load(std::memory_order_acquire);
          observe(v);
          cache.Offer(keys[k], hashes[k], v, s);
        }
      }
      total_hits.fetch_add(cache.hits());
      went_back.fetch_add(bad);
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(went_back.load(), 0u);
  EXPECT_GT(total_hits.load(), 0u);
  uint64_t sum = 0;
  for (int i = 0; i < kKeys; ++i) sum += values[i].load();
  EXPECT_EQ(sum, total_writes.load());
}

}  // namespace
}  // namespace ordis::index
