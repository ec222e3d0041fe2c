// MapStore against a model (std::map, which orders std::string by unsigned bytes as memcmp does),
// over several key shapes, plus concurrent tests of the thread-safety contract in ordered_store.h.
//
// The store compares 24-byte zero-padded inline prefixes before whole keys, so the adversarial
// shape concentrates on keys whose prefixes tie: shared long prefixes, trailing zero bytes ("a" vs
// "a\0"), all-0xff keys, keys that differ only after byte 24, and the empty key.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <latch>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "index/ordered_store.h"
#include "index/store_test_support.h"
#include "tests/printable.h"

namespace ordis::index {
namespace {

using ordis::test_support::Printable;
using namespace test_support;  // store_test_support.h, shared with learned_store_test.cc

// ---------------------------------------------------------------------------------------------
// Key shapes.

// Draws keys from a space small enough that Put, Erase and Get often hit existing keys.
class KeyGen {
 public:
  KeyGen(Shape shape, uint64_t seed) : shape_(shape), rng_(seed) {
    if (shape_ == Shape::kBinary16) {
      // A fixed pool of random 16-byte keys, some sharing long prefixes with others.
      for (int i = 0; i < 20000; ++i) {
        std::string k(16, '\0');
        for (char& c : k) c = static_cast<char>(Uniform(rng_, 256));
        if (i > 0 && Uniform(rng_, 4) == 0) {
          const std::string& other = pool_[Uniform(rng_, pool_.size())];
          size_t shared = Uniform(rng_, 16);
          k.replace(0, shared, other, 0, shared);
        }
        pool_.push_back(std::move(k));
      }
    }
  }

  std::string Next() {
    switch (shape_) {
      case Shape::kUserIds:
        return RandomUserId(rng_);
      case Shape::kBinary16:
        return pool_[Uniform(rng_, pool_.size())];
      case Shape::kUrlLike:
        return RandomUrl(rng_);
      case Shape::kAdversarial:
        return Adversarial();
    }
    return {};
  }

  Rng& rng() { return rng_; }

 private:
  std::string Adversarial() {
    static const std::string kShared30(30, 'p');
    static const std::string kSame24 = "abcdefghijklmnopqrstuvwx";  // exactly 24 bytes
    switch (Uniform(rng_, 9)) {
      case 0:  // a shared 30-byte prefix, differing after it
        return kShared30 + RandomTail(rng_, 3);
      case 1:  // all 0xff, varying length (ties in the prefix up to 24 bytes)
        return std::string(Uniform(rng_, 40), '\xff');
      case 2:  // dense integers as 8-byte big-endian
        return BigEndian64(Uniform(rng_, 3000));
      case 3:  // the empty key
        return std::string();
      case 4: {  // short keys with trailing zero bytes: "a" vs "a\0" vs "a\0\0" ...
        static const char* kHeads[] = {"", "a", "ab", "\xff"};
        std::string k = kHeads[Uniform(rng_, std::size(kHeads))];
        k.append(Uniform(rng_, 30), '\0');
        if (Uniform(rng_, 3) == 0) k.push_back(RandomTailByte(rng_));
        return k;
      }
      case 5:  // differing only after byte 24
        return kSame24 + RandomTail(rng_, 3);
      case 6: {  // 23, 24 and 25 bytes around the prefix boundary
        std::string k = kSame24.substr(0, 23 + Uniform(rng_, 3));
        if (!k.empty() && Uniform(rng_, 2) == 0) k.back() = RandomTailByte(rng_);
        return k;
      }
      case 7:  // a prefix of the 24-byte key, sometimes zero padded to 24 or beyond
        return kSame24.substr(0, Uniform(rng_, 25)) + std::string(Uniform(rng_, 4), '\0');
      default:  // short random bytes
        return RandomTail(rng_, 4);
    }
  }

  Shape shape_;
  Rng rng_;
  std::vector<std::string> pool_;
};

// ---------------------------------------------------------------------------------------------
// Checking scans against the model.

std::vector<Visit> ModelScan(const Model& model, const ScanStart& start, Direction dir,
                             size_t limit) {
  std::vector<Visit> out;
  if (limit == 0) return out;
  std::string key(start.key);
  if (dir == Direction::kForward) {
    auto it = start.unbounded   ? model.begin()
              : start.inclusive ? model.lower_bound(key)
                                : model.upper_bound(key);
    for (; it != model.end() && out.size() < limit; ++it) out.push_back({it->first, it->second});
  } else {
    auto it = start.unbounded   ? model.end()
              : start.inclusive ? model.upper_bound(key)
                                : model.lower_bound(key);
    while (it != model.begin() && out.size() < limit) {
      --it;
      out.push_back({it->first, it->second});
    }
  }
  return out;
}

std::string Describe(const ScanStart& start, Direction dir, size_t limit) {
  std::string s = dir == Direction::kForward ? "forward " : "reverse ";
  if (start.unbounded) return s + "unbounded, limit " + std::to_string(limit);
  return s + (start.inclusive ? "At(" : "After(") + Printable(start.key) + "), limit " +
         std::to_string(limit);
}

void ExpectSameScan(const OrderedStore& store, const Model& model, const ScanStart& start,
                    Direction dir, size_t limit) {
  std::vector<Visit> got = ScanN(store, start, dir, limit);
  std::vector<Visit> want = ModelScan(model, start, dir, limit);
  if (got == want) return;
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  ADD_FAILURE() << Describe(start, dir, limit) << ": first difference at position " << i
                << ": store " << (i < got.size() ? Printable(got[i].key) : "<end>") << ", model "
                << (i < want.size() ? Printable(want[i].key) : "<end>") << " (store visited "
                << got.size() << ", model " << want.size() << ")";
}

void ExpectSameContents(const OrderedStore& store, const Model& model) {
  ASSERT_EQ(store.size(), model.size());
  ExpectSameScan(store, model, ScanStart::Edge(), Direction::kForward, SIZE_MAX);
  ExpectSameScan(store, model, ScanStart::Edge(), Direction::kReverse, SIZE_MAX);
}

// A bound for a scan: a fresh key, an existing key, or an existing key nudged to fall just
// before or after it (trailing zero byte, truncated, last byte +-1).
std::string RandomBound(KeyGen& gen, const Model& model) {
  Rng& rng = gen.rng();
  std::string k;
  if (model.empty() || Uniform(rng, 2) == 0) {
    k = gen.Next();
  } else {
    auto it = model.lower_bound(gen.Next());
    if (it == model.end()) it = model.begin();
    k = it->first;
  }
  return NudgedBound(rng, std::move(k));
}

// ---------------------------------------------------------------------------------------------
// Differential tests.

class MapStoreDifferential : public ::testing::TestWithParam<Shape> {};

TEST_P(MapStoreDifferential, RandomOpsMatchModel) {
  constexpr int kOps = 350000;
  for (uint64_t seed : {1u, 2u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    KeyGen gen(GetParam(), seed * 7919 + static_cast<uint64_t>(GetParam()));
    Rng& rng = gen.rng();
    auto store = NewMapStore();
    Model model;
    for (int op = 0; op < kOps; ++op) {
      uint64_t r = Uniform(rng, 100);
      if (r < 40) {
        std::string k = gen.Next();
        ValueHandle v = rng();
        std::optional<ValueHandle> want;
        auto it = model.find(k);
        if (it != model.end()) want = it->second;
        model[k] = v;
        ASSERT_EQ(store->Put(k, v), want) << "Put " << Printable(k) << " op " << op;
      } else if (r < 60) {
        std::string k = gen.Next();
        std::optional<ValueHandle> want;
        auto it = model.find(k);
        if (it != model.end()) {
          want = it->second;
          model.erase(it);
        }
        ASSERT_EQ(store->Erase(k), want) << "Erase " << Printable(k) << " op " << op;
      } else if (r < 85) {
        std::string k = gen.Next();
        std::optional<ValueHandle> want;
        auto it = model.find(k);
        if (it != model.end()) want = it->second;
        ASSERT_EQ(store->Get(k), want) << "Get " << Printable(k) << " op " << op;
      } else {
        Direction dir = Uniform(rng, 2) == 0 ? Direction::kForward : Direction::kReverse;
        ScanStart start;
        std::string bound;
        switch (Uniform(rng, 5)) {
          case 0:
            start = ScanStart::Edge();
            break;
          case 1:
          case 2:
            bound = RandomBound(gen, model);
            start = ScanStart::At(bound);
            break;
          default:
            bound = RandomBound(gen, model);
            start = ScanStart::After(bound);
            break;
        }
        // Mostly short scans, as SCAN and KRANGE issue them; sometimes long ones.
        size_t limit = Uniform(rng, 10) == 0 ? Uniform(rng, 2000) : Uniform(rng, 40);
        ExpectSameScan(*store, model, start, dir, limit);
        if (HasFailure()) return;
      }
      if (op % 50000 == 0) {
        ASSERT_EQ(store->size(), model.size()) << "op " << op;
      }
    }
    ExpectSameContents(*store, model);
    // Drain: erasing everything leaves an empty store that scans as empty.
    for (const auto& [k, v] : model) ASSERT_EQ(store->Erase(k), v);
    EXPECT_EQ(store->size(), 0u);
    EXPECT_TRUE(ScanN(*store, ScanStart::Edge(), Direction::kForward, SIZE_MAX).empty());
    EXPECT_TRUE(ScanN(*store, ScanStart::Edge(), Direction::kReverse, SIZE_MAX).empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, MapStoreDifferential, ::testing::ValuesIn(kShapes),
                         [](const ::testing::TestParamInfo<Shape>& info) {
                           return std::string(ShapeName(info.param));
                         });

// Every bound of every kind at and between a hand-picked set of keys whose 24-byte prefixes tie.
TEST(MapStore, PrefixTiesOrderLikeMemcmp) {
  using namespace std::string_literals;
  const std::string same24 = "abcdefghijklmnopqrstuvwx";
  std::vector<std::string> keys = {
      ""s,
      "\0"s,
      "\0\0"s,
      "a"s,
      "a\0"s,
      "a\0\0"s,
      "a\0\x01"s,
      "a\x01"s,
      std::string(23, 'a'),
      std::string(23, 'a') + "\0"s,
      std::string(24, 'a'),
      std::string(24, 'a') + "\0"s,
      std::string(24, 'a') + "\0\0"s,
      std::string(25, 'a'),
      same24,
      same24 + "\0"s,
      same24 + "\x01"s,
      same24 + "\x7f"s,
      same24 + "\x80"s,
      same24 + "\xff"s,
      same24 + "\xff\xff"s,
      same24 + "a"s,
      same24 + "aa"s,
      same24 + "b"s,
      same24.substr(0, 23) + "\0"s,
      same24.substr(0, 23) + "\0"s + "z"s,
      std::string(30, 'p') + "1"s,
      std::string(30, 'p') + "2"s,
      std::string(30, 'p'),
      "\x7f"s,
      "\x80"s,
      "\xff"s,
      std::string(23, '\xff'),
      std::string(24, '\xff'),
      std::string(25, '\xff'),
      std::string(40, '\xff'),
      BigEndian64(0),
      BigEndian64(1),
      BigEndian64(255),
      BigEndian64(256),
      BigEndian64(UINT64_MAX),
  };
  auto store = NewMapStore();
  Model model;
  ValueHandle v = 1;
  for (const std::string& k : keys) {
    EXPECT_EQ(store->Put(k, v), std::nullopt) << Printable(k);
    model[k] = v++;
  }
  ASSERT_EQ(model.size(), keys.size()) << "the list has duplicates";
  ExpectSameContents(*store, model);

  // Bounds: every key, and every key with a byte added, removed or changed.
  for (const std::string& b : BoundsAround(keys)) {
    for (Direction dir : {Direction::kForward, Direction::kReverse}) {
      for (size_t limit : {size_t{1}, size_t{3}, SIZE_MAX}) {
        ExpectSameScan(*store, model, ScanStart::At(b), dir, limit);
        ExpectSameScan(*store, model, ScanStart::After(b), dir, limit);
      }
    }
  }

  // Each key is found and replaced by its exact bytes only.
  for (const auto& [k, val] : model) {
    EXPECT_EQ(store->Get(k), val) << Printable(k);
    EXPECT_EQ(store->Put(k, val + 1000), val) << Printable(k);
  }
  EXPECT_EQ(store->Get("a\0\0\0"s), std::nullopt);
  EXPECT_EQ(store->Get(std::string(26, 'a')), std::nullopt);
  EXPECT_EQ(store->size(), keys.size());

  // Erasing "a\0" must not touch "a" or "a\0\0".
  EXPECT_TRUE(store->Erase("a\0"s).has_value());
  EXPECT_TRUE(store->Get("a"s).has_value());
  EXPECT_TRUE(store->Get("a\0\0"s).has_value());
  EXPECT_FALSE(store->Get("a\0"s).has_value());
  EXPECT_EQ(store->Erase("a\0"s), std::nullopt);
}

TEST(MapStore, EmptyStoreAndEmptyKey) {
  auto store = NewMapStore();
  EXPECT_EQ(store->size(), 0u);
  EXPECT_EQ(store->Get(""), std::nullopt);
  EXPECT_EQ(store->Erase(""), std::nullopt);
  for (Direction dir : {Direction::kForward, Direction::kReverse}) {
    EXPECT_TRUE(ScanN(*store, ScanStart::Edge(), dir, SIZE_MAX).empty());
    EXPECT_TRUE(ScanN(*store, ScanStart::At(""), dir, SIZE_MAX).empty());
    EXPECT_TRUE(ScanN(*store, ScanStart::After("x"), dir, SIZE_MAX).empty());
  }

  EXPECT_EQ(store->Put("", 7), std::nullopt);
  EXPECT_EQ(store->Put("", 8), 7u);
  EXPECT_EQ(store->Get(""), 8u);
  EXPECT_EQ(store->size(), 1u);
  // "" is the smallest key: At("") forward finds it, After("") forward does not; reverse from
  // At("") finds it, reverse from After("") finds nothing.
  EXPECT_EQ(ScanN(*store, ScanStart::At(""), Direction::kForward, SIZE_MAX).size(), 1u);
  EXPECT_EQ(ScanN(*store, ScanStart::After(""), Direction::kForward, SIZE_MAX).size(), 0u);
  EXPECT_EQ(ScanN(*store, ScanStart::At(""), Direction::kReverse, SIZE_MAX).size(), 1u);
  EXPECT_EQ(ScanN(*store, ScanStart::After(""), Direction::kReverse, SIZE_MAX).size(), 0u);
  EXPECT_EQ(store->Erase(""), 8u);
  EXPECT_EQ(store->size(), 0u);
}

TEST(MapStore, ScanStopsWhenVisitorReturnsFalse) {
  auto store = NewMapStore();
  for (int i = 0; i < 100; ++i) store->Put(BigEndian64(i), i);
  int calls = 0;
  store->Scan(ScanStart::At(BigEndian64(10)), Direction::kForward,
              [&](std::string_view, ValueHandle v) {
                EXPECT_EQ(v, static_cast<ValueHandle>(10 + calls));
                return ++calls < 5;
              });
  EXPECT_EQ(calls, 5);
  calls = 0;
  store->Scan(ScanStart::Edge(), Direction::kReverse, [&](std::string_view, ValueHandle v) {
    EXPECT_EQ(v, static_cast<ValueHandle>(99 - calls));
    ++calls;
    return false;
  });
  EXPECT_EQ(calls, 1);
}

// ---------------------------------------------------------------------------------------------
// Concurrency.

// Writers Put/Erase their own keys, readers Get, scanners scan from random bounds in both
// directions, all at once. Checks: Get returns the stable values and values that belong to the
// key asked for; each scan is strictly ordered and includes every stable key in the range it
// covered; at the end each writer's keys are exactly its own model.
TEST(MapStoreConcurrent, ReadersWritersScanners) {
  constexpr int kStable = 2000;
  constexpr int kWriterKeys = 2000;
  constexpr int kWriters = 3, kReaders = 2, kScanners = 3;  // 8 threads
  // Fixed amounts of work, started together, so that no thread's termination depends on another
  // getting the lock (a reader-preferring rwlock let looping readers starve the writers).
  constexpr int kWriterOps = 60000, kReaderOps = 120000, kScannerOps = 1500;
  auto store = NewMapStore();
  std::vector<std::string> stable;
  for (int i = 0; i < kStable; ++i) {
    stable.push_back(StableKey(i));
    store->Put(stable.back(), MakeValue(i, 0, 0));
  }

  std::latch start(kWriters + kReaders + kScanners);
  std::atomic<int64_t> scans_checked{0}, gets_checked{0};
  std::vector<Model> writer_models(kWriters);
  std::vector<std::thread> threads;

  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(100 + t);
      Model& model = writer_models[t];
      start.arrive_and_wait();
      for (int op = 0; op < kWriterOps; ++op) {
        int i = static_cast<int>(Uniform(rng, kWriterKeys));
        std::string k = WriterKey(i, t);
        if (Uniform(rng, 3) != 0) {
          ValueHandle v = MakeValue(i, t + 1, static_cast<uint32_t>(op));
          auto old = store->Put(k, v);
          auto it = model.find(k);
          EXPECT_EQ(old.has_value(), it != model.end());
          if (old && it != model.end()) {
            EXPECT_EQ(*old, it->second);
          }
          model[k] = v;
        } else {
          auto old = store->Erase(k);
          auto it = model.find(k);
          EXPECT_EQ(old.has_value(), it != model.end());
          if (it != model.end()) model.erase(it);
        }
      }
    });
  }

  for (int t = 0; t < kReaders; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(200 + t);
      int64_t n = 0;
      start.arrive_and_wait();
      while (n < kReaderOps) {
        int i = static_cast<int>(Uniform(rng, kStable));
        auto v = store->Get(stable[i]);
        EXPECT_EQ(v, MakeValue(i, 0, 0)) << stable[i];
        int w = static_cast<int>(Uniform(rng, kWriters));
        std::string k = WriterKey(static_cast<int>(Uniform(rng, kWriterKeys)), w);
        auto wv = store->Get(k);
        if (wv) {
          EXPECT_TRUE(ValueMatchesKey(k, *wv)) << k;
        }
        ++n;
        if (::testing::Test::HasFailure()) break;
      }
      gets_checked.fetch_add(n);
    });
  }

  for (int t = 0; t < kScanners; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(300 + t);
      int64_t n = 0;
      start.arrive_and_wait();
      while (n < kScannerOps) {
        Direction dir = Uniform(rng, 2) == 0 ? Direction::kForward : Direction::kReverse;
        std::string bound;
        ScanStart start = ScanStart::Edge();
        if (Uniform(rng, 8) != 0) {
          int i = static_cast<int>(Uniform(rng, kStable));
          bound = Uniform(rng, 2) ? StableKey(i)
                                  : WriterKey(i, static_cast<int>(Uniform(rng, kWriters)));
          start = Uniform(rng, 2) ? ScanStart::At(bound) : ScanStart::After(bound);
        }
        size_t limit = Uniform(rng, 10) == 0 ? SIZE_MAX : 1 + Uniform(rng, 300);
        std::vector<std::string> seen;
        bool values_ok = true;
        store->Scan(start, dir, [&](std::string_view k, ValueHandle v) {
          if (!ValueMatchesKey(k, v)) values_ok = false;
          seen.emplace_back(k);
          return seen.size() < limit;
        });
        EXPECT_TRUE(values_ok);
        for (size_t j = 1; j < seen.size(); ++j) {
          bool ordered = dir == Direction::kForward ? seen[j - 1] < seen[j] : seen[j - 1] > seen[j];
          ASSERT_TRUE(ordered) << "scan out of order at " << j << ": " << seen[j - 1] << ", "
                               << seen[j];
        }
        // The covered range: from the bound (or the edge) to the last key visited, or to the
        // other edge when the scan ran out of keys.
        std::vector<std::string> forward_seen = seen;
        if (dir == Direction::kReverse) std::reverse(forward_seen.begin(), forward_seen.end());
        bool exhausted = seen.size() < limit;
        auto lo = stable.begin(), hi = stable.end();
        if (dir == Direction::kForward) {
          if (!start.unbounded) {
            lo = start.inclusive ? std::lower_bound(stable.begin(), stable.end(), bound)
                                 : std::upper_bound(stable.begin(), stable.end(), bound);
          }
          if (!exhausted) hi = std::upper_bound(stable.begin(), stable.end(), seen.back());
        } else {
          if (!start.unbounded) {
            hi = start.inclusive ? std::upper_bound(stable.begin(), stable.end(), bound)
                                 : std::lower_bound(stable.begin(), stable.end(), bound);
          }
          if (!exhausted) lo = std::lower_bound(stable.begin(), stable.end(), seen.back());
        }
        for (auto it = lo; it < hi; ++it) {
          ASSERT_TRUE(std::binary_search(forward_seen.begin(), forward_seen.end(), *it))
              << "scan missed stable key " << *it;
        }
        ++n;
      }
      scans_checked.fetch_add(n);
    });
  }

  for (auto& th : threads) th.join();
  EXPECT_GT(scans_checked.load(), 0);
  EXPECT_GT(gets_checked.load(), 0);

  // Quiescent: the store is exactly the stable set plus each writer's model.
  Model all;
  for (int i = 0; i < kStable; ++i) all[stable[i]] = MakeValue(i, 0, 0);
  for (const Model& m : writer_models) all.insert(m.begin(), m.end());
  ExpectSameContents(*store, all);
}

// One writer inserts k1 < k2 < ... < kn in that order while scanners scan the range: a scan that
// sees k_j must also see every k_i, i < j (an insert is visible to a scan that starts after it
// completed), in both directions.
TEST(MapStoreConcurrent, InOrderInsertsAreSeenAsPrefixes) {
  constexpr int kKeys = 30000;
  constexpr int kScanners = 3;
  auto store = NewMapStore();
  // Neighbours on both sides, so scans must stop on the prefix rather than at an edge.
  store->Put("lim", 1);
  store->Put("lin;", 2);
  auto key = [](int i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "lin:%08d", i);
    return std::string(buf);
  };
  std::atomic<bool> done{false};
  std::atomic<int64_t> scans{0};
  std::latch start(1 + kScanners);
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    start.arrive_and_wait();
    for (int i = 0; i < kKeys; ++i) store->Put(key(i), static_cast<ValueHandle>(i));
    done.store(true);
  });
  for (int t = 0; t < kScanners; ++t) {
    threads.emplace_back([&, t] {
      int64_t n = 0;
      Rng rng(400 + t);
      start.arrive_and_wait();
      // Until the writer is done, but bounded in case the lock starves it.
      while (n < 50 || (!done.load() && n < 2000)) {
        // Written before the scan started: the scan must see at least these.
        int64_t floor = static_cast<int64_t>(store->size()) - 2;
        std::vector<ValueHandle> seen;
        if (Uniform(rng, 2) == 0) {
          store->Scan(ScanStart::At("lin:"), Direction::kForward,
                      [&](std::string_view k, ValueHandle v) {
                        if (k.substr(0, 4) != "lin:") return false;
                        seen.push_back(v);
                        return true;
                      });
        } else {
          store->Scan(ScanStart::After("lin:\xff"), Direction::kReverse,
                      [&](std::string_view k, ValueHandle v) {
                        if (k.substr(0, 4) != "lin:") return false;
                        seen.push_back(v);
                        return true;
                      });
          std::reverse(seen.begin(), seen.end());
        }
        ASSERT_GE(static_cast<int64_t>(seen.size()), floor);
        for (size_t j = 0; j < seen.size(); ++j) {
          ASSERT_EQ(seen[j], j) << "scan saw k" << seen[j] << " without every earlier key";
        }
        ++n;
      }
      scans.fetch_add(n);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_GE(scans.load(), 50 * kScanners);
  EXPECT_EQ(store->size(), static_cast<size_t>(kKeys + 2));
}

}  // namespace
}  // namespace ordis::index
