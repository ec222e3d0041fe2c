// NewLearnedStore against the reference MapStore, and the thread-safety contract of
// ordered_store.h under the learned tree's machinery (lock-free readers, insert buffers merged by
// background patchers, pointer-swap publication, epoch reclamation, per-thread hot-key caches).
//
// LearnedStoreDiff*: random operation sequences run on a learned store and a MapStore side by side;
// every return value, GetBatch result and scan sequence must match. Models see a key as a number
// (its first bytes), so the adversarial shape piles keys onto the same number: a shared 30-byte
// prefix, keys equal in their first 8 bytes, dense big-endian integers at a magnitude where
// neighbours round to the same double, all-0xff keys, the empty key, keys that are prefixes of
// each other ("a", "a\0", "a\0\0"); HugeKeys adds 1 MiB keys. The small options (16-key leaves,
// 4-slot insert buffers, error 2, two patchers) force a patch every few writes and constant splits.
//
// LearnedStoreConcurrent: written for ThreadSanitizer, to run in a -DORDIS_SANITIZE=thread build
// under ctest -R Concurrent (tests/CMakeLists.txt). Fixed amounts of work, no sleeps, no timing
// assertions (threads hand over through atomics, never by waiting for time to pass); each test
// checks an invariant a race would break (scan order and completeness, prefix-closed scans under
// in-order inserts, one linear history per key, bounded memory under churn).
//
// The amount of work scales with ORDIS_TEST_SCALE (a positive factor; default 1, or 0.2 in
// sanitizer builds).
#include "index/learned_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <latch>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "index/ordered_store.h"
#include "index/store_test_support.h"
#include "tests/printable.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define ORDIS_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define ORDIS_TEST_SANITIZED 1
#endif
#endif

namespace ordis::index {
namespace test_support {

// Shapes print by name in this file's CTest names ("... # GetParam() = (UserIds, 0)"); MapStore's
// names print the raw bytes, so the printer is not shared. In Shape's namespace for gtest's ADL.
void PrintTo(Shape s, std::ostream* os) { *os << ShapeName(s); }

}  // namespace test_support

namespace {

using namespace test_support;  // store_test_support.h, shared with map_store_test.cc
using ::testing::AssertionFailure;
using ::testing::AssertionResult;
using ::testing::AssertionSuccess;

// ---------------------------------------------------------------------------------------------
// Scale, options, helpers.

double Scale() {
  static const double scale = [] {
    if (const char* env = std::getenv("ORDIS_TEST_SCALE")) {
      double s = std::atof(env);
      if (s > 0) return s;
    }
#ifdef ORDIS_TEST_SANITIZED
    return 0.2;
#else
    return 1.0;
#endif
  }();
  return scale;
}

// n scaled, but at least `floor`.
int Scaled(int n, int floor = 1) { return std::max(floor, static_cast<int>(n * Scale())); }

struct Config {
  const char* name;
  LearnedStoreOptions options;
  bool default_factory;  // built by NewLearnedStore() rather than NewLearnedStore(options)
};

LearnedStoreOptions SmallOptions() {
  LearnedStoreOptions o;
  o.leaf_capacity = 16;
  o.insert_buffer = 4;
  o.leaf_error = 2;
  o.inner_error = 2;
  o.patcher_threads = 2;
  o.idle_flush_ms = 1;  // the idle sweep flushes buffers under every test's readers and writers
  return o;
}

// 0: small leaves and buffers, hot cache on, buffers idle for 1 ms flushed; 1: the same with the
// hot cache off, one patcher and no idle flushes; 2: the defaults.
const Config& GetConfig(int i) {
  static const Config configs[] = {
      {"Small", SmallOptions(), false},
      {"SmallNoHotCache",
       [] {
         LearnedStoreOptions o = SmallOptions();
         o.hot_cache = false;
         o.patcher_threads = 1;
         o.idle_flush_ms = 0;
         return o;
       }(),
       false},
      {"Default", LearnedStoreOptions{}, true},
  };
  return configs[i];
}
constexpr int kConfigs = 3;

std::unique_ptr<OrderedStore> MakeStore(int config) {
  const Config& c = GetConfig(config);
  return c.default_factory ? NewLearnedStore() : NewLearnedStore(c.options);
}

// A key for assertion messages: printable, and cut short if long.
std::string Show(std::string_view k) {
  if (k.size() <= 80) return ordis::test_support::Printable(k);
  return ordis::test_support::Printable(k.substr(0, 40)) + "...(" + std::to_string(k.size()) +
         " bytes)";
}

// Key with a decimal number: prefix + n zero-padded to `width` digits. (Not string concatenation
// of a literal: GCC 12's false -Wrestrict.)
std::string Numbered(std::string_view prefix, int64_t n, int width) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%0*lld", width, static_cast<long long>(n));
  std::string s(prefix);
  s += buf;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Key shapes.

// Draws keys from a space small enough that Put, Erase and Get often hit existing keys.
class KeyGen {
 public:
  KeyGen(Shape shape, uint64_t seed) : shape_(shape), rng_(seed) {
    if (shape_ == Shape::kBinary16) {
      // A fixed pool of random 16-byte keys: any bytes, a quarter of them drawn from {00 01 fe ff}
      // only, a quarter sharing a random-length prefix with an earlier key.
      static const char kEdgeBytes[] = {'\0', '\x01', '\xfe', '\xff'};
      for (int i = 0; i < 20000; ++i) {
        std::string k(16, '\0');
        bool edge = Uniform(rng_, 4) == 0;
        for (char& c : k) {
          c = edge ? kEdgeBytes[Uniform(rng_, 4)] : static_cast<char>(Uniform(rng_, 256));
        }
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
    static const std::string kSame8[] = {"abcdefgh", std::string(8, '\0'), std::string(8, '\xff')};
    switch (Uniform(rng_, 12)) {
      case 0:  // a shared 30-byte prefix, differing after it
        return kShared30 + RandomTail(rng_, 3);
      case 1:  // all 0xff, varying length
        return std::string(Uniform(rng_, 40), '\xff');
      case 2:  // dense small integers as 8-byte big-endian
        return BigEndian64(Uniform(rng_, 3000));
      case 3:  // the empty key
        return std::string();
      case 4: {  // prefixes of each other: "a", "a\0", "a\0\0", ... and "", "\0", "\0\0", ...
        static const char* kHeads[] = {"", "a", "ab", "\xff"};
        std::string k = kHeads[Uniform(rng_, std::size(kHeads))];
        k.append(Uniform(rng_, 20), '\0');
        if (Uniform(rng_, 3) == 0) k.push_back(RandomTailByte(rng_));
        return k;
      }
      case 5:  // 8 equal bytes, then a varying suffix: same first word, different keys
        return kSame8[Uniform(rng_, std::size(kSame8))] + RandomTail(rng_, 4);
      case 6: {  // 7, 8 and 9 bytes around the word boundary
        std::string k = std::string("abcdefghi").substr(0, 7 + Uniform(rng_, 3));
        if (Uniform(rng_, 2) == 0) k.back() = RandomTailByte(rng_);
        return k;
      }
      case 7:  // a prefix of the 8-byte key, sometimes zero padded to 8 or beyond
        return kSame8[0].substr(0, Uniform(rng_, 9)) + std::string(Uniform(rng_, 4), '\0');
      case 8:  // dense integers near 2^64: distinct as uint64, equal as doubles
        return BigEndian64(0xfedcba9876540000ull + Uniform(rng_, 3000));
      case 9: {  // 16 bytes equal in the first 15
        std::string k = "fifteen-bytes..";
        k.push_back(static_cast<char>(Uniform(rng_, 256)));
        return k;
      }
      case 10: {  // long keys (100-300 bytes) with a long shared prefix and a counter at the end
        std::string k(100 + Uniform(rng_, 3) * 100, 'q');
        return k + BigEndian64(Uniform(rng_, 500));
      }
      default:  // short random bytes
        return RandomTail(rng_, 4);
    }
  }

  Shape shape_;
  Rng rng_;
  std::vector<std::string> pool_;
};

// ---------------------------------------------------------------------------------------------
// A learned store and its MapStore model, and comparisons between them.

std::string Describe(const ScanStart& start, Direction dir, size_t limit) {
  std::string s = dir == Direction::kForward ? "forward " : "reverse ";
  s += start.unbounded ? "Edge()" : (start.inclusive ? "At(" : "After(") + Show(start.key) + ")";
  s += limit == SIZE_MAX ? ", no limit" : ", limit " + std::to_string(limit);
  return s;
}

struct Twin {
  explicit Twin(int config) : store(MakeStore(config)) {}
  Twin(std::unique_ptr<OrderedStore> s, std::unique_ptr<OrderedStore> m)
      : store(std::move(s)), model(std::move(m)) {}
  std::unique_ptr<OrderedStore> store;  // the learned store under test
  std::unique_ptr<OrderedStore> model = NewMapStore();
};

AssertionResult SameScan(const Twin& t, const ScanStart& start, Direction dir, size_t limit) {
  std::vector<Visit> got = ScanN(*t.store, start, dir, limit);
  std::vector<Visit> want = ScanN(*t.model, start, dir, limit);
  if (got == want) return AssertionSuccess();
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  auto show = [&](const std::vector<Visit>& v) {
    return i < v.size() ? Show(v[i].key) + " = " + std::to_string(v[i].value) : "<end>";
  };
  return AssertionFailure() << Describe(start, dir, limit) << ": first difference at position " << i
                            << ": store " << show(got) << ", model " << show(want)
                            << " (store visited " << got.size() << ", model " << want.size() << ")";
}

AssertionResult SameContents(const Twin& t) {
  if (t.store->size() != t.model->size()) {
    return AssertionFailure() << "size " << t.store->size() << ", model " << t.model->size();
  }
  for (Direction dir : {Direction::kForward, Direction::kReverse}) {
    AssertionResult r = SameScan(t, ScanStart::Edge(), dir, SIZE_MAX);
    if (!r) return r;
  }
  return AssertionSuccess();
}

// Quiesces the store, then checks what its Stats must satisfy with nothing in flight.
AssertionResult QuiescedStatsConsistent(OrderedStore& store) {
  store.Quiesce();
  IndexStats s = store.Stats();
  size_t n = store.size();
  if (s.keys != n) return AssertionFailure() << "Stats().keys " << s.keys << " != size() " << n;
  if (s.buffered_entries > s.buffer_slots) {
    return AssertionFailure() << "buffered_entries " << s.buffered_entries << " > buffer_slots "
                              << s.buffer_slots;
  }
  if (s.hot_cache_hits > s.hot_cache_lookups) {
    return AssertionFailure() << "hot_cache_hits " << s.hot_cache_hits << " > lookups "
                              << s.hot_cache_lookups;
  }
  // max is in whole positions; the mean may carry a fraction of the largest error.
  if (s.mean_model_error > static_cast<double>(s.max_model_error) + 1) {
    return AssertionFailure() << "mean_model_error " << s.mean_model_error << " > max "
                              << s.max_model_error;
  }
  if (s.leaves > 0 && s.depth < 1) return AssertionFailure() << "leaves but depth " << s.depth;
  if (s.inner_nodes > 0 && s.depth < 2) {
    return AssertionFailure() << "inner nodes but depth " << s.depth;
  }
  return AssertionSuccess();
}

// BulkLoad from sorted pairs through one reused key buffer, overwritten between calls and after
// the load: the store must copy each key before asking for the next.
void BulkLoadFrom(OrderedStore& store, const std::vector<Visit>& items) {
  size_t i = 0;
  std::string buf;
  store.BulkLoad([&](std::string_view* k, ValueHandle* v) {
    std::fill(buf.begin(), buf.end(), '\x5a');
    if (i == items.size()) return false;
    buf = items[i].key;
    *k = buf;
    *v = items[i].value;
    ++i;
    return true;
  });
  std::fill(buf.begin(), buf.end(), '\xa5');
}

// A scan bound: a fresh key, or an existing key (the model's neighbour of a fresh one), nudged
// sometimes to fall just before or after it (trailing zero byte, truncated, last byte +-1).
std::string RandomBound(KeyGen& gen, const OrderedStore& model) {
  Rng& rng = gen.rng();
  std::string k = gen.Next();
  if (Uniform(rng, 2) == 0) {
    Direction d = Uniform(rng, 2) == 0 ? Direction::kForward : Direction::kReverse;
    std::vector<Visit> near = ScanN(model, ScanStart::At(k), d, 1);
    if (!near.empty()) k = near[0].key;
  }
  return NudgedBound(rng, std::move(k));
}

// How often RandomOps writes, per 1000 operations: Put below `put`, Erase below `erase`; the
// rest reads (Get, GetBatch, Scan, size).
struct OpMix {
  int put = 380;
  int erase = 580;
  bool erase_present = false;  // half the erases take a present key (the model's next one)
};
// Erases outnumber Puts almost three to one and hit present keys even where the key space is
// large (URLs): leaves thin and empty, and patches merge them.
constexpr OpMix kEraseHeavy{150, 580, true};

// `ops` random operations on both stores, comparing every result. Quiesces at random points and
// then compares Stats and the whole contents.
void RandomOps(Twin& t, KeyGen& gen, int ops, OpMix mix = {}) {
  Rng& rng = gen.rng();
  for (int op = 0; op < ops; ++op) {
    uint64_t r = Uniform(rng, 1000);
    if (r < static_cast<uint64_t>(mix.put)) {
      std::string k = gen.Next();
      ValueHandle v = rng();
      std::optional<ValueHandle> want = t.model->Put(k, v);
      ASSERT_EQ(t.store->Put(k, v), want) << "op " << op << ": Put " << Show(k);
      if (Uniform(rng, 4) == 0) {
        ASSERT_EQ(t.store->Get(k), v) << "op " << op << ": Get after Put " << Show(k);
      }
    } else if (r < static_cast<uint64_t>(mix.erase)) {
      std::string k = gen.Next();
      if (mix.erase_present && Uniform(rng, 2) == 0) {
        std::vector<Visit> near = ScanN(*t.model, ScanStart::At(k), Direction::kForward, 1);
        if (!near.empty()) k = near[0].key;
      }
      std::optional<ValueHandle> want = t.model->Erase(k);
      // ErasePresent is meant for present keys but must be right for absent ones too.
      // TryErasePresent may refuse (the key's buffer full): then nothing changed.
      const uint64_t how = Uniform(rng, 4);
      std::optional<ValueHandle> erased;
      if (how == 0) {
        ASSERT_EQ(t.store->ErasePresent(k), want) << "op " << op << ": ErasePresent " << Show(k);
      } else if (how == 1 && t.store->TryErasePresent(k, &erased)) {
        ASSERT_EQ(erased, want) << "op " << op << ": TryErasePresent " << Show(k);
      } else if (how == 1) {
        ASSERT_EQ(t.store->Get(k), want) << "op " << op << ": refused TryErasePresent " << Show(k);
        ASSERT_EQ(t.store->ErasePresent(k), want) << "op " << op << ": ErasePresent " << Show(k);
      } else {
        ASSERT_EQ(t.store->Erase(k), want) << "op " << op << ": Erase " << Show(k);
      }
      if (Uniform(rng, 4) == 0) {
        ASSERT_EQ(t.store->Get(k), std::nullopt) << "op " << op << ": Get after Erase " << Show(k);
      }
    } else if (r < 800) {
      std::string k = gen.Next();
      ASSERT_EQ(t.store->Get(k), t.model->Get(k)) << "op " << op << ": Get " << Show(k);
    } else if (r < 870) {
      // A batch of fresh keys, existing keys and repeats, sometimes prefetched first.
      size_t n = Uniform(rng, 33);
      std::vector<std::string> keys;
      for (size_t i = 0; i < n; ++i) {
        uint64_t kind = Uniform(rng, 4);
        if (kind == 0 && !keys.empty()) {
          keys.push_back(keys[Uniform(rng, keys.size())]);
        } else if (kind == 1) {
          std::vector<Visit> near =
              ScanN(*t.model, ScanStart::At(gen.Next()), Direction::kForward, 1);
          keys.push_back(near.empty() ? gen.Next() : near[0].key);
        } else {
          keys.push_back(gen.Next());
        }
      }
      std::vector<std::string_view> views(keys.begin(), keys.end());
      if (Uniform(rng, 2) == 0) t.store->Prefetch(views);
      // Pre-filled with garbage: GetBatch must write every slot, nullopt included.
      std::vector<std::optional<ValueHandle>> got(n, ValueHandle{0xdeadbeef}), want(n);
      // Sometimes announced as the keys of writes (which load ahead where the writes go).
      bool writes[32];
      for (size_t i = 0; i < n; ++i) writes[i] = Uniform(rng, 2) == 0;
      if (Uniform(rng, 2) == 0) {
        t.store->GetBatch(views, got, std::span<const bool>(writes, n));
      } else {
        t.store->GetBatch(views, got);
      }
      t.model->GetBatch(views, want);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(got[i], want[i])
            << "op " << op << ": GetBatch[" << i << "] of " << n << " " << Show(keys[i]);
      }
    } else if (r < 990) {
      Direction dir = Uniform(rng, 2) == 0 ? Direction::kForward : Direction::kReverse;
      ScanStart start;
      std::string bound;
      switch (Uniform(rng, 5)) {
        case 0:
          start = ScanStart::Edge();
          break;
        case 1:
        case 2:
          bound = RandomBound(gen, *t.model);
          start = ScanStart::At(bound);
          break;
        default:
          bound = RandomBound(gen, *t.model);
          start = ScanStart::After(bound);
          break;
      }
      // Mostly short scans, as SCAN and KRANGE issue them; sometimes long or unlimited ones.
      size_t limit = Uniform(rng, 10) != 0   ? 1 + Uniform(rng, 40)
                     : Uniform(rng, 10) != 0 ? 1 + Uniform(rng, 2000)
                                             : SIZE_MAX;
      ASSERT_TRUE(SameScan(t, start, dir, limit)) << "op " << op;
    } else {
      ASSERT_EQ(t.store->size(), t.model->size()) << "op " << op;
    }
    if (Uniform(rng, 5000) == 0) {
      ASSERT_TRUE(QuiescedStatsConsistent(*t.store)) << "op " << op;
      ASSERT_TRUE(SameContents(t)) << "op " << op << ", after Quiesce";
    }
  }
}

std::vector<Visit> Contents(const OrderedStore& store) {
  return ScanN(store, ScanStart::Edge(), Direction::kForward, SIZE_MAX);
}

// ---------------------------------------------------------------------------------------------
// Differential: random operations, per key shape and options.

class LearnedStoreDiff : public ::testing::TestWithParam<std::tuple<Shape, int>> {};

// Per seed: random operations on an empty store; then the contents bulk-loaded into a fresh store
// and more random operations on it, then erase-heavy ones (thinned leaves merge under every
// operation); then every key erased in random order.
TEST_P(LearnedStoreDiff, RandomOpsMatchMapStore) {
  const auto [shape, config] = GetParam();
  const int phase1 = Scaled(150000, 2000), phase2 = Scaled(100000, 2000);
  for (uint64_t seed : {1u, 2u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    KeyGen gen(shape, seed * 7919 + static_cast<uint64_t>(shape) * 31 + config);
    Rng& rng = gen.rng();
    auto t = std::make_unique<Twin>(config);
    {
      SCOPED_TRACE("phase 1: random operations from empty");
      ASSERT_NO_FATAL_FAILURE(RandomOps(*t, gen, phase1));
      ASSERT_TRUE(QuiescedStatsConsistent(*t->store));
      ASSERT_TRUE(SameContents(*t));
    }
    {
      SCOPED_TRACE("phase 2: bulk-loaded, then random operations");
      std::vector<Visit> items = Contents(*t->model);
      t = std::make_unique<Twin>(config);
      BulkLoadFrom(*t->store, items);
      BulkLoadFrom(*t->model, items);
      ASSERT_EQ(t->store->size(), items.size());
      // Seed 1 compares straight after the load, seed 2 after Quiesce.
      if (seed == 2) {
        ASSERT_TRUE(QuiescedStatsConsistent(*t->store));
      }
      ASSERT_TRUE(SameContents(*t));
      ASSERT_NO_FATAL_FAILURE(RandomOps(*t, gen, phase2));
      ASSERT_TRUE(SameContents(*t));
    }
    {
      SCOPED_TRACE("phase 3: erase-heavy random operations");
      const uint64_t merges_before = t->store->Stats().merges;
      ASSERT_NO_FATAL_FAILURE(RandomOps(*t, gen, phase2, kEraseHeavy));
      ASSERT_TRUE(QuiescedStatsConsistent(*t->store));
      ASSERT_TRUE(SameContents(*t));
      EXPECT_GT(t->store->Stats().merges, merges_before);
    }
    {
      SCOPED_TRACE("phase 4: erase everything in random order");
      std::vector<Visit> items = Contents(*t->model);
      std::shuffle(items.begin(), items.end(), rng);
      for (size_t i = 0; i < items.size(); ++i) {
        ASSERT_EQ(t->store->Erase(items[i].key), items[i].value) << Show(items[i].key);
        ASSERT_EQ(t->model->Erase(items[i].key), items[i].value);
        if (i % 1000 == 999) {
          ASSERT_TRUE(SameScan(*t, ScanStart::At(items[i].key), Direction::kForward, 50));
          ASSERT_TRUE(SameScan(*t, ScanStart::At(items[i].key), Direction::kReverse, 50));
        }
      }
      EXPECT_EQ(t->store->size(), 0u);
      EXPECT_TRUE(Contents(*t->store).empty());
      EXPECT_TRUE(ScanN(*t->store, ScanStart::Edge(), Direction::kReverse, SIZE_MAX).empty());
      ASSERT_TRUE(QuiescedStatsConsistent(*t->store));
      // Emptied leaves were merged away: one leaf under the root is left.
      EXPECT_EQ(t->store->Stats().leaves, 1u);
      EXPECT_EQ(t->store->Stats().depth, 2u);
      // The emptied store is still usable.
      ASSERT_NO_FATAL_FAILURE(RandomOps(*t, gen, 2000));
      ASSERT_TRUE(SameContents(*t));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, LearnedStoreDiff,
                         ::testing::Combine(::testing::ValuesIn(kShapes),
                                            ::testing::Range(0, kConfigs)),
                         [](const ::testing::TestParamInfo<std::tuple<Shape, int>>& info) {
                           return std::string(ShapeName(std::get<0>(info.param))) + "_" +
                                  GetConfig(std::get<1>(info.param)).name;
                         });

// ---------------------------------------------------------------------------------------------
// Differential: hand-picked cases, each under every configuration.

#define FOR_EACH_CONFIG(c)                        \
  for (int c = 0; c < kConfigs; ++c)              \
    if (SCOPED_TRACE(GetConfig(c).name); false) { \
    } else

// Every bound of every kind at and around keys that tie in their first 8 bytes, are prefixes of
// each other, or are distinct integers that round to the same double.
TEST(LearnedStoreDiffCases, PrefixTiesOrderLikeMemcmp) {
  using namespace std::string_literals;
  const std::string same8 = "abcdefgh";
  std::vector<std::string> keys = {
      ""s,
      "\0"s,
      "\0\0"s,
      "\0\0\0\0\0\0\0\0"s,
      "\0\0\0\0\0\0\0\0\0"s,
      "\0\0\0\0\0\0\0\0\x01"s,
      "a"s,
      "a\0"s,
      "a\0\0"s,
      "a\0\x01"s,
      "a\x01"s,
      same8.substr(0, 7),
      same8.substr(0, 7) + "\0"s,
      same8.substr(0, 7) + "\0z"s,
      same8,
      same8 + "\0"s,
      same8 + "\0\0"s,
      same8 + "\x01"s,
      same8 + "\x7f"s,
      same8 + "\x80"s,
      same8 + "\xff"s,
      same8 + "\xff\xff"s,
      same8 + "a"s,
      same8 + "aa"s,
      same8 + "b"s,
      same8 + "i"s,
      same8 + "ijklmnop"s,
      same8 + "ijklmnop\0"s,
      same8 + "ijklmnoq"s,
      std::string(30, 'p'),
      std::string(30, 'p') + "1"s,
      std::string(30, 'p') + "2"s,
      "fifteen-bytes..\x00"s,
      "fifteen-bytes..\x01"s,
      "fifteen-bytes..\xfe"s,
      "fifteen-bytes..\xff"s,
      "\x7f"s,
      "\x80"s,
      "\xff"s,
      std::string(7, '\xff'),
      std::string(8, '\xff'),
      std::string(9, '\xff'),
      std::string(40, '\xff'),
      BigEndian64(1),
      BigEndian64(255),
      BigEndian64(256),
      BigEndian64(0xfedcba9876540000ull),
      BigEndian64(0xfedcba9876540001ull),
      BigEndian64(0xfedcba9876540002ull),
      BigEndian64(0xfedcba98765407ffull),
      BigEndian64(0xfedcba9876540800ull),
      BigEndian64(0xfedcba9876540000ull) + "\0"s,
      BigEndian64(UINT64_MAX - 1),
      std::string(8, '\xff') + "\0"s,
  };
  std::set<std::string> unique(keys.begin(), keys.end());
  ASSERT_EQ(unique.size(), keys.size()) << "the list has duplicates";

  // Bounds: every key, and every key with a byte added, removed or changed.
  const std::vector<std::string> bounds = BoundsAround(keys);
  auto check_all_bounds = [&](const Twin& t) {
    for (const std::string& b : bounds) {
      for (Direction dir : {Direction::kForward, Direction::kReverse}) {
        for (size_t limit : {size_t{1}, size_t{3}, SIZE_MAX}) {
          ASSERT_TRUE(SameScan(t, ScanStart::At(b), dir, limit));
          ASSERT_TRUE(SameScan(t, ScanStart::After(b), dir, limit));
        }
      }
      ASSERT_EQ(t.store->Get(b), t.model->Get(b)) << Show(b);
    }
  };

  FOR_EACH_CONFIG(c) {
    Twin t(c);
    std::vector<std::string> order = keys;
    std::shuffle(order.begin(), order.end(), Rng(c + 1));
    ValueHandle v = 1;
    for (const std::string& k : order) {
      ASSERT_EQ(t.store->Put(k, v), std::nullopt) << Show(k);
      t.model->Put(k, v++);
    }
    ASSERT_TRUE(SameContents(t));
    ASSERT_NO_FATAL_FAILURE(check_all_bounds(t));
    ASSERT_TRUE(QuiescedStatsConsistent(*t.store));
    ASSERT_NO_FATAL_FAILURE(check_all_bounds(t));

    // Each key is found and replaced by its exact bytes only.
    for (const Visit& e : Contents(*t.model)) {
      ASSERT_EQ(t.store->Get(e.key), e.value) << Show(e.key);
      ASSERT_EQ(t.store->Put(e.key, e.value + 1000), e.value) << Show(e.key);
      t.model->Put(e.key, e.value + 1000);
    }
    EXPECT_EQ(t.store->Get("a\0\0\0"s), std::nullopt);
    EXPECT_EQ(t.store->Get(same8 + "\0\0\0"s), std::nullopt);
    EXPECT_EQ(t.store->Get(BigEndian64(0xfedcba9876540003ull)), std::nullopt);

    // Erasing "a\0" leaves "a" and "a\0\0"; erasing one of the same-as-double integers leaves its
    // neighbours.
    EXPECT_TRUE(t.store->Erase("a\0"s).has_value());
    t.model->Erase("a\0"s);
    EXPECT_TRUE(t.store->Get("a"s).has_value());
    EXPECT_TRUE(t.store->Get("a\0\0"s).has_value());
    EXPECT_EQ(t.store->Get("a\0"s), std::nullopt);
    EXPECT_EQ(t.store->Erase("a\0"s), std::nullopt);
    EXPECT_TRUE(t.store->Erase(BigEndian64(0xfedcba9876540001ull)).has_value());
    t.model->Erase(BigEndian64(0xfedcba9876540001ull));
    EXPECT_TRUE(t.store->Get(BigEndian64(0xfedcba9876540000ull)).has_value());
    EXPECT_TRUE(t.store->Get(BigEndian64(0xfedcba9876540002ull)).has_value());
    ASSERT_TRUE(SameContents(t));
    ASSERT_NO_FATAL_FAILURE(check_all_bounds(t));

    // The same keys once more among many fillers that share their first bytes, so that they are
    // spread over many leaves and patches.
    Rng rng(100 + c);
    for (int i = 0; i < 3000; ++i) {
      std::string k = keys[Uniform(rng, keys.size())];
      k += static_cast<char>(Uniform(rng, 256));
      k += std::to_string(i);
      ASSERT_EQ(t.store->Put(k, i), t.model->Put(k, i)) << Show(k);
    }
    ASSERT_TRUE(SameContents(t));
    ASSERT_NO_FATAL_FAILURE(check_all_bounds(t));
    ASSERT_TRUE(QuiescedStatsConsistent(*t.store));
  }
}

TEST(LearnedStoreDiffCases, EmptyStoreAndEmptyKey) {
  FOR_EACH_CONFIG(c) {
    auto store = MakeStore(c);
    EXPECT_EQ(store->size(), 0u);
    EXPECT_EQ(store->Get(""), std::nullopt);
    EXPECT_EQ(store->Erase(""), std::nullopt);
    EXPECT_EQ(store->Erase("x"), std::nullopt);
    for (Direction dir : {Direction::kForward, Direction::kReverse}) {
      EXPECT_TRUE(ScanN(*store, ScanStart::Edge(), dir, SIZE_MAX).empty());
      EXPECT_TRUE(ScanN(*store, ScanStart::At(""), dir, SIZE_MAX).empty());
      EXPECT_TRUE(ScanN(*store, ScanStart::After("x"), dir, SIZE_MAX).empty());
    }
    EXPECT_TRUE(QuiescedStatsConsistent(*store));
    EXPECT_EQ(store->Stats().keys, 0u);

    EXPECT_EQ(store->Put("", 7), std::nullopt);
    EXPECT_EQ(store->Put("", 8), 7u);
    EXPECT_EQ(store->Get(""), 8u);
    EXPECT_EQ(store->Get(std::string(1, '\0')), std::nullopt);
    EXPECT_EQ(store->size(), 1u);
    // "" is the smallest key: At("") forward finds it, After("") forward does not; reverse from
    // At("") finds it, reverse from After("") finds nothing.
    EXPECT_EQ(ScanN(*store, ScanStart::At(""), Direction::kForward, SIZE_MAX).size(), 1u);
    EXPECT_EQ(ScanN(*store, ScanStart::After(""), Direction::kForward, SIZE_MAX).size(), 0u);
    EXPECT_EQ(ScanN(*store, ScanStart::At(""), Direction::kReverse, SIZE_MAX).size(), 1u);
    EXPECT_EQ(ScanN(*store, ScanStart::After(""), Direction::kReverse, SIZE_MAX).size(), 0u);
    EXPECT_TRUE(QuiescedStatsConsistent(*store));
    EXPECT_EQ(store->Erase(""), 8u);
    EXPECT_EQ(store->size(), 0u);
    EXPECT_EQ(store->Get(""), std::nullopt);

    // "" among other keys, after Quiesce, and bulk-loaded as the first key.
    for (int i = 0; i < 100; ++i) store->Put(BigEndian64(i), i);
    store->Put("", 5);
    store->Quiesce();
    EXPECT_EQ(store->Get(""), 5u);
    auto first = ScanN(*store, ScanStart::Edge(), Direction::kForward, 1);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0], (Visit{"", 5}));
    auto last = ScanN(*store, ScanStart::After(BigEndian64(0)), Direction::kReverse, SIZE_MAX);
    ASSERT_EQ(last.size(), 1u);
    EXPECT_EQ(last[0], (Visit{"", 5}));

    auto loaded = MakeStore(c);
    BulkLoadFrom(*loaded, {{"", 1}, {std::string(1, '\0'), 2}, {"a", 3}});
    EXPECT_EQ(loaded->Get(""), 1u);
    EXPECT_EQ(loaded->Get(std::string(1, '\0')), 2u);
    EXPECT_EQ(loaded->Erase(""), 1u);
    EXPECT_EQ(loaded->size(), 2u);
  }
}

// The visitor is called exactly as many times as it takes to return false, at every position
// relative to leaf and buffer boundaries.
TEST(LearnedStoreDiffCases, ScanStopsWhenVisitorReturnsFalse) {
  FOR_EACH_CONFIG(c) {
    auto store = MakeStore(c);
    constexpr int kKeys = 1000;
    // Even keys loaded, odd ones inserted afterwards so that some sit in insert buffers.
    std::vector<Visit> even;
    for (int i = 0; i < kKeys; i += 2)
      even.push_back({BigEndian64(i), static_cast<ValueHandle>(i)});
    BulkLoadFrom(*store, even);
    for (int i = 1; i < kKeys; i += 2) store->Put(BigEndian64(i), i);
    for (int from = 0; from < kKeys; from += 37) {
      for (int stop = 1; stop <= 40; stop += 3) {
        for (Direction dir : {Direction::kForward, Direction::kReverse}) {
          int calls = 0;
          bool ok = true;
          store->Scan(ScanStart::At(BigEndian64(from)), dir, [&](std::string_view, ValueHandle v) {
            int want = dir == Direction::kForward ? from + calls : from - calls;
            if (v != static_cast<ValueHandle>(want)) ok = false;
            return ++calls < stop;
          });
          int avail = dir == Direction::kForward ? kKeys - from : from + 1;
          ASSERT_TRUE(ok) << "from " << from << " stop " << stop;
          ASSERT_EQ(calls, std::min(stop, avail)) << "from " << from << " stop " << stop;
        }
      }
    }
  }
}

// 1 MiB keys and their neighbours (one byte longer, last byte changed, all 0x00, all 0xff, 64 KiB)
// among ordinary keys, through inserts, scans from their bounds, overwrite, erase and bulk load.
TEST(LearnedStoreDiffCases, HugeKeys) {
  constexpr size_t kMiB = 1 << 20;
  std::string big(kMiB, 'k');
  std::string big_plus = big + std::string(1, '\0');
  std::string big_lower = big;
  big_lower.back() = 'j';
  std::string big_shorter = big.substr(0, kMiB - 1);
  std::vector<std::string> huge = {big,
                                   big_plus,
                                   big_lower,
                                   big_shorter,
                                   std::string(kMiB, '\0'),
                                   std::string(kMiB, '\xff'),
                                   std::string(64 << 10, 'k')};
  FOR_EACH_CONFIG(c) {
    Twin t(c);
    Rng rng(7 + c);
    for (int i = 0; i < 2000; ++i) {
      std::string k = Numbered(Uniform(rng, 2) ? "k" : "kk", i, 5);
      t.store->Put(k, i);
      t.model->Put(k, i);
      if (i % 300 == 0) {
        const std::string& h = huge[(i / 300) % huge.size()];
        ASSERT_EQ(t.store->Put(h, 100000 + i), t.model->Put(h, 100000 + i)) << Show(h);
      }
    }
    for (const std::string& h : huge) {
      ASSERT_EQ(t.store->Put(h, h.size()), t.model->Put(h, h.size())) << Show(h);
    }
    ASSERT_TRUE(SameContents(t));
    auto check_bounds = [&] {
      for (const std::string& h : huge) {
        ASSERT_EQ(t.store->Get(h), t.model->Get(h)) << Show(h);
        for (Direction dir : {Direction::kForward, Direction::kReverse}) {
          ASSERT_TRUE(SameScan(t, ScanStart::At(h), dir, 3));
          ASSERT_TRUE(SameScan(t, ScanStart::After(h), dir, 3));
          std::string longer = h + std::string(1, '\0');
          ASSERT_TRUE(SameScan(t, ScanStart::At(longer), dir, 3));
        }
      }
    };
    ASSERT_NO_FATAL_FAILURE(check_bounds());
    ASSERT_TRUE(QuiescedStatsConsistent(*t.store));
    ASSERT_NO_FATAL_FAILURE(check_bounds());

    ASSERT_EQ(t.store->Erase(big), t.model->Erase(big));
    ASSERT_EQ(t.store->Get(big), std::nullopt);
    ASSERT_TRUE(t.store->Get(big_plus).has_value());
    ASSERT_TRUE(t.store->Get(big_shorter).has_value());
    ASSERT_NO_FATAL_FAILURE(check_bounds());

    Twin loaded(c);
    std::vector<Visit> items = Contents(*t.model);
    BulkLoadFrom(*loaded.store, items);
    BulkLoadFrom(*loaded.model, items);
    ASSERT_TRUE(SameContents(loaded));
    ASSERT_EQ(loaded.store->Put(big, 1), loaded.model->Put(big, 1));
    ASSERT_EQ(loaded.store->Erase(big_lower), loaded.model->Erase(big_lower));
    ASSERT_TRUE(SameContents(loaded));
    ASSERT_TRUE(QuiescedStatsConsistent(*loaded.store));
  }
}

// Ascending appends, descending inserts, interleaving fills, then erasing in ascending and
// descending runs: the access patterns that grow or empty one edge of the tree.
TEST(LearnedStoreDiffCases, MonotoneInsertsAndErases) {
  const int n = Scaled(40000, 1000);
  FOR_EACH_CONFIG(c) {
    Twin t(c);
    auto put = [&](uint64_t i) {
      std::string k = BigEndian64(i * 4);
      ASSERT_EQ(t.store->Put(k, i), t.model->Put(k, i)) << i;
    };
    auto erase = [&](uint64_t i) {
      std::string k = BigEndian64(i * 4);
      ASSERT_EQ(t.store->Erase(k), t.model->Erase(k)) << i;
    };
    auto spot_check = [&](uint64_t i) {
      for (uint64_t j = i > 20 ? i - 20 : 0; j < i + 20; ++j) {
        ASSERT_EQ(t.store->Get(BigEndian64(j * 4)), t.model->Get(BigEndian64(j * 4))) << j;
      }
      ASSERT_TRUE(SameScan(t, ScanStart::At(BigEndian64(i * 4)), Direction::kReverse, 30));
      ASSERT_TRUE(SameScan(t, ScanStart::At(BigEndian64(i * 4)), Direction::kForward, 30));
    };
    // Ascending appends of the lower half, descending inserts of the upper half from the top.
    for (int i = 0; i < n / 2; ++i) {
      ASSERT_NO_FATAL_FAILURE(put(i));
      if (i % 997 == 0) {
        ASSERT_NO_FATAL_FAILURE(spot_check(i));
      }
    }
    for (int i = n - 1; i >= n / 2; --i) {
      ASSERT_NO_FATAL_FAILURE(put(i));
      if (i % 997 == 0) {
        ASSERT_NO_FATAL_FAILURE(spot_check(i));
      }
    }
    ASSERT_TRUE(SameContents(t));
    ASSERT_TRUE(QuiescedStatsConsistent(*t.store));
    // Fill the gaps (odd multiples of 2): into every leaf, ascending.
    for (int i = 0; i < n; ++i) {
      std::string k = BigEndian64(static_cast<uint64_t>(i) * 4 + 2);
      ASSERT_EQ(t.store->Put(k, i), t.model->Put(k, i));
    }
    ASSERT_TRUE(SameContents(t));
    // Erase the lower half ascending, the upper half descending, checking near the edge.
    for (int i = 0; i < n / 2; ++i) {
      ASSERT_NO_FATAL_FAILURE(erase(i));
      if (i % 997 == 0) {
        ASSERT_NO_FATAL_FAILURE(spot_check(i));
      }
    }
    for (int i = n - 1; i >= n / 2; --i) {
      ASSERT_NO_FATAL_FAILURE(erase(i));
      if (i % 997 == 0) {
        ASSERT_NO_FATAL_FAILURE(spot_check(i));
      }
    }
    ASSERT_EQ(t.store->size(), static_cast<size_t>(n));
    ASSERT_TRUE(SameContents(t));
    ASSERT_TRUE(QuiescedStatsConsistent(*t.store));
    // Erase the rest descending, then insert everything again ascending.
    for (int i = n - 1; i >= 0; --i) {
      std::string k = BigEndian64(static_cast<uint64_t>(i) * 4 + 2);
      ASSERT_EQ(t.store->Erase(k), t.model->Erase(k));
    }
    ASSERT_EQ(t.store->size(), 0u);
    ASSERT_TRUE(SameContents(t));
    for (int i = 0; i < n; ++i) ASSERT_NO_FATAL_FAILURE(put(i));
    ASSERT_TRUE(SameContents(t));
    ASSERT_TRUE(QuiescedStatsConsistent(*t.store));
  }
}

// Bulk loads of sizes around the leaf capacity and large ones, then point operations at the edges
// and between every pair of loaded keys.
TEST(LearnedStoreDiffCases, BulkLoadSizes) {
  const std::vector<int> sizes = {0,  1,  2,   3,   15,  16,  17,   31,
                                  32, 33, 100, 127, 128, 129, 1000, Scaled(300000, 5000)};
  FOR_EACH_CONFIG(c) {
    for (int n : sizes) {
      SCOPED_TRACE("size " + std::to_string(n));
      Twin t(c);
      std::vector<Visit> items;
      for (int i = 0; i < n; ++i)
        items.push_back({Numbered("bulk:", 2 * i + 1, 9), static_cast<ValueHandle>(i)});
      BulkLoadFrom(*t.store, items);
      BulkLoadFrom(*t.model, items);
      ASSERT_EQ(t.store->size(), static_cast<size_t>(n));
      ASSERT_TRUE(SameContents(t));
      // Every loaded key and every gap (including before the first and after the last).
      const int step = n > 2000 ? 97 : 1;
      for (int i = 0; i <= n; i += step) {
        std::string gap = Numbered("bulk:", 2 * i, 9);
        ASSERT_EQ(t.store->Get(gap), std::nullopt) << gap;
        ASSERT_TRUE(SameScan(t, ScanStart::At(gap), Direction::kForward, 2));
        ASSERT_TRUE(SameScan(t, ScanStart::At(gap), Direction::kReverse, 2));
        if (i < n) {
          ASSERT_EQ(t.store->Get(items[i].key), items[i].value) << items[i].key;
        }
      }
      ASSERT_TRUE(QuiescedStatsConsistent(*t.store));
      // Writes into the loaded structure: before the first key, after the last, in the gaps,
      // over existing keys, erasing loaded keys.
      for (const std::string& k : {std::string("bulk:"), std::string("bulk:~"), std::string()}) {
        ASSERT_EQ(t.store->Put(k, 1), t.model->Put(k, 1));
      }
      Rng rng(n + c);
      for (int j = 0; j < std::min(n, 3000) + 10; ++j) {
        int i = static_cast<int>(Uniform(rng, n + 1));
        std::string k = Numbered("bulk:", 2 * i + Uniform(rng, 2), 9);
        if (Uniform(rng, 3) == 0) {
          ASSERT_EQ(t.store->Erase(k), t.model->Erase(k)) << k;
        } else {
          ASSERT_EQ(t.store->Put(k, j), t.model->Put(k, j)) << k;
        }
      }
      ASSERT_TRUE(SameContents(t));
      ASSERT_TRUE(QuiescedStatsConsistent(*t.store));
    }
  }
}

TEST(LearnedStoreDiffCases, GetBatchAndPrefetchEdgeCases) {
  FOR_EACH_CONFIG(c) {
    Twin t(c);
    for (int i = 0; i < 5000; ++i) {
      std::string k = Numbered("gb:", i * 2, 6);
      t.store->Put(k, i);
      t.model->Put(k, i);
    }
    // Empty spans.
    t.store->Prefetch({});
    t.store->GetBatch({}, {});
    // Absent, empty, huge and duplicate keys; a batch of everything (5000 present, 5000 absent).
    std::vector<std::string> keys = {"",          std::string(1 << 16, 'g'),
                                     "gb:",       "gb:000000",
                                     "gb:000000", "gb:000001",
                                     "gb:009998", "gb:009999",
                                     "gb:\xff"};
    for (int i = 0; i < 10000; ++i) keys.push_back(Numbered("gb:", i, 6));
    std::shuffle(keys.begin(), keys.end(), Rng(c));
    std::vector<std::string_view> views(keys.begin(), keys.end());
    t.store->Prefetch(views);
    for (size_t batch : {size_t{1}, size_t{2}, size_t{7}, size_t{64}, views.size()}) {
      for (size_t off = 0; off < views.size(); off += batch) {
        size_t n = std::min(batch, views.size() - off);
        std::span<const std::string_view> part(views.data() + off, n);
        std::vector<std::optional<ValueHandle>> got(n, ValueHandle{0xdeadbeef}), want(n);
        t.store->GetBatch(part, got);
        t.model->GetBatch(part, want);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ(got[i], want[i]) << Show(part[i]);
        if (batch == 1 && off > 200) break;
      }
    }
    // Batches see the writes just made, by this thread, through any cache.
    for (int round = 0; round < 50; ++round) {
      std::string k = Numbered("gb:", round * 2, 6);
      std::string_view kv = k;
      std::optional<ValueHandle> found[1];
      if (round % 2 == 0) {
        t.store->Put(k, 777000 + round);
        t.store->GetBatch({&kv, 1}, found);
        ASSERT_EQ(found[0], 777000u + round);
      } else {
        t.store->Erase(k);
        t.store->GetBatch({&kv, 1}, found);
        ASSERT_EQ(found[0], std::nullopt);
      }
    }
  }
}

// The per-thread hot cache must belong to its store: two stores with the same keys in one
// thread, and stores destroyed and recreated (often at the same address).
TEST(LearnedStoreDiffCases, HotCacheIsPerStore) {
  FOR_EACH_CONFIG(c) {
    auto a = MakeStore(c), b = MakeStore(c);
    for (int i = 0; i < 64; ++i) {
      std::string k = Numbered("hot:", i, 3);
      a->Put(k, i);
      if (i % 2 == 0) b->Put(k, 1000 + i);
    }
    for (int rep = 0; rep < 200; ++rep) {
      int i = rep % 64;
      std::string k = Numbered("hot:", i, 3);
      ASSERT_EQ(a->Get(k), static_cast<ValueHandle>(i)) << k;
      ASSERT_EQ(b->Get(k), i % 2 == 0 ? std::optional<ValueHandle>(1000 + i) : std::nullopt) << k;
    }
    for (int gen = 0; gen < 300; ++gen) {
      auto s = MakeStore(c);
      ASSERT_EQ(s->Get("hot:same"), std::nullopt) << "generation " << gen;
      ASSERT_EQ(s->Put("hot:same", gen), std::nullopt) << "generation " << gen;
      for (int rep = 0; rep < 20; ++rep)
        ASSERT_EQ(s->Get("hot:same"), static_cast<ValueHandle>(gen));
      if (gen % 3 == 0) {
        ASSERT_EQ(s->Erase("hot:same"), static_cast<ValueHandle>(gen));
        ASSERT_EQ(s->Get("hot:same"), std::nullopt);
      }
    }
  }
}

// The hot cache also caches absent keys (a batch's lookups): a bulk load or a clear, which bypass
// the write path, must not leave those answers behind.
TEST(LearnedStoreDiffCases, BulkLoadAndClearForgetCachedAbsences) {
  FOR_EACH_CONFIG(c) {
    auto s = MakeStore(c);
    std::vector<std::string> keys;
    for (int i = 0; i < 40; ++i) keys.push_back(Numbered("load:", i, 3));
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<std::optional<ValueHandle>> found(keys.size());
    s->GetBatch(views, found);  // every key absent, and cached so
    for (const std::string& k : keys) ASSERT_EQ(s->Get(k), std::nullopt) << k;
    size_t next = 0;
    s->BulkLoad([&](std::string_view* key, ValueHandle* value) {
      if (next == keys.size()) return false;
      *key = keys[next];
      *value = next++;
      return true;
    });
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(s->Get(keys[i]), static_cast<ValueHandle>(i)) << keys[i];
    }
    s->GetBatch(views, found);  // now cached as present
    s->Clear();
    for (const std::string& k : keys) ASSERT_EQ(s->Get(k), std::nullopt) << k;
  }
}

// ---------------------------------------------------------------------------------------------
// Merges: leaves thinned or emptied by erases are merged with a neighbour, inner nodes that lose
// children shrink with them, and the index's memory follows the live keys, not the history.

uint64_t Footprint(const IndexStats& s) { return s.index_bytes + s.key_bytes; }

// What a fresh store of configuration `config` holding `keys` (Put in the order given) reports
// once quiesced.
IndexStats FreshStats(int config, const std::vector<std::string>& keys) {
  auto store = MakeStore(config);
  for (size_t i = 0; i < keys.size(); ++i) store->Put(keys[i], i);
  store->Quiesce();
  return store->Stats();
}

// The memory bounds after a churn: leaves and bytes within `slack` of a fresh store holding the
// same keys; inner nodes (a few hundred bytes each) at least 8 children each on average, and one
// level more than the fresh store at most.
AssertionResult NearFresh(const IndexStats& got, const IndexStats& fresh, double slack) {
  auto over = [&](uint64_t g, uint64_t f) { return static_cast<double>(g) > slack * f + 2; };
  if (over(got.leaves, fresh.leaves) || over(Footprint(got), Footprint(fresh)) ||
      got.inner_nodes > got.leaves / 8 + 2 || got.depth > fresh.depth + 1) {
    return AssertionFailure() << "churned: " << got.leaves << " leaves, " << got.inner_nodes
                              << " inner nodes, depth " << got.depth << ", " << Footprint(got)
                              << " bytes; fresh: " << fresh.leaves << " leaves, "
                              << fresh.inner_nodes << " inner nodes, depth " << fresh.depth << ", "
                              << Footprint(fresh) << " bytes (slack " << slack << ")";
  }
  return AssertionSuccess();
}

// Keys with ever-increasing names (queues, job ids, sessions) in a sliding window: Put key i,
// Erase key i - live. The leaves the window leaves behind empty and must go, so after a million
// operations the store is the size of a fresh one holding the live keys (it held 5.5k leaves
// per 10k keys at 1M operations before merges, and grew with the operations).
// Sample (the eviction pool's source): every entry it offers is in the range, live, and with its
// current handle, though overwrites and erases still sit in insert buffers over older leaf
// entries; every key of the range is offered sometimes, none far more often than the rest.
// Keys added since their leaf was built live only in its insert buffer until the next patch:
// sampled all the same (eviction must see recent keys: LFU evicts new ones first).
TEST(LearnedStoreSample, OffersKeysStillInInsertBuffers) {
  auto store = NewLearnedStore();
  for (int i = 0; i < 4000; ++i) ASSERT_EQ(store->Put(Numbered("in:", i, 8), i), std::nullopt);
  store->Quiesce();
  // A few new keys per leaf, far fewer than a buffer holds: no patch takes them in. Half are
  // written twice (the newest entry is not the one that added the key); and some of the leaves'
  // own keys are deleted and written again (they are the leaf's: offered once a run, not twice).
  std::set<std::string> recent;
  for (int i = 0; i < 4000; i += 40) {
    const std::string k = Numbered("in:", i, 8) + "+";
    ASSERT_EQ(store->Put(k, 1), std::nullopt);
    if (i % 80 == 0) {
      ASSERT_EQ(store->Put(k, 2), std::optional<ValueHandle>(1));
    }
    recent.insert(k);
    const std::string own = Numbered("in:", i + 7, 8);
    ASSERT_TRUE(store->Erase(own).has_value());
    ASSERT_EQ(store->Put(own, 3), std::nullopt);
  }
  ASSERT_GT(store->Stats().buffered_entries, recent.size() / 2);
  std::mt19937_64 rng(11);
  std::vector<uint64_t> randoms(1);
  for (int call = 0; call < 16000 && !recent.empty(); ++call) {
    randoms[0] = rng();
    std::set<std::string> in_run;
    ASSERT_TRUE(store->Sample("in:", "in;", randoms, 20, [&](std::string_view k, ValueHandle) {
      ASSERT_TRUE(in_run.insert(std::string(k)).second) << "offered twice in a run: " << Show(k);
      recent.erase(std::string(k));
    }));
    ASSERT_LE(in_run.size(), 20u);
  }
  EXPECT_TRUE(recent.empty()) << recent.size() << " buffered keys never sampled";
}

TEST(LearnedStoreSample, OffersLiveEntriesOfTheRangeWithCurrentValues) {
  const int n = Scaled(20000, 4000);
  FOR_EACH_CONFIG(c) {
    auto store = MakeStore(c);
    std::map<std::string, ValueHandle> model;
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(store->Put(Numbered("in:", i, 8), i), std::nullopt);
      model[Numbered("in:", i, 8)] = i;
    }
    for (int i = 0; i < 100; ++i) ASSERT_EQ(store->Put(Numbered("a:", i, 8), 1), std::nullopt);
    for (int i = 0; i < 100; ++i) ASSERT_EQ(store->Put(Numbered("z:", i, 8), 1), std::nullopt);
    store->Quiesce();
    // Newer values and deletes, some of them still buffered when sampled.
    std::mt19937_64 rng(7);
    for (int i = 0; i < n / 10; ++i) {
      std::string k = Numbered("in:", static_cast<int64_t>(rng() % n), 8);
      if (rng() % 2 == 0) {
        store->Put(k, 1000000 + i);
        model[k] = 1000000 + i;
      } else {
        store->Erase(k);
        model.erase(k);
      }
    }
    std::map<std::string, int> seen;
    // Single runs, and calls of 40 runs (more than one group of walks descending together).
    std::vector<uint64_t> randoms;
    for (int runs = 0, call = 0; runs < n * 4; runs += static_cast<int>(randoms.size()), ++call) {
      randoms.resize(call % 2 == 0 ? 1 : 40);
      for (uint64_t& r : randoms) r = rng();
      size_t visited = 0;
      ASSERT_TRUE(store->Sample("in:", "in;", randoms, 5, [&](std::string_view k, ValueHandle v) {
        ++visited;
        auto it = model.find(std::string(k));
        ASSERT_NE(it, model.end()) << "offered a key not live or not in range: " << Show(k);
        ASSERT_EQ(v, it->second) << Show(k);
        ++seen[std::string(k)];
      }));
      ASSERT_LE(visited, 5 * randoms.size());
    }
    // About 20 offers per key: each live key is seen, and none 10x more than its share.
    size_t unseen = 0;
    int most = 0;
    for (const auto& [k, v] : model) {
      auto it = seen.find(k);
      if (it == seen.end()) {
        ++unseen;
      } else {
        most = std::max(most, it->second);
      }
    }
    EXPECT_LE(unseen, model.size() / 50) << GetConfig(c).name;
    EXPECT_LE(most, 200) << GetConfig(c).name;
    // An empty range offers nothing.
    const uint64_t points[] = {rng(), rng(), rng()};
    ASSERT_TRUE(store->Sample("m:", "m;", points, 5, [&](std::string_view k, ValueHandle) {
      ADD_FAILURE() << "offered " << Show(k) << " from an empty range";
    }));
  }
}

// Erasing neighbours back to back fills each leaf's 4-slot buffer long before a patcher (1 ms
// poll) replaces the leaf: the next erase there is refused and changes nothing, the others erase.
TEST(LearnedStoreTryErase, RefusesOnlyWhileTheLeafsBufferIsFull) {
  LearnedStoreOptions o = SmallOptions();
  o.patcher_threads = 1;
  o.idle_flush_ms = 0;
  auto s = NewLearnedStore(o);
  constexpr int kKeys = 4000;
  for (int i = 0; i < kKeys; ++i) s->Put(Numbered("te:", i, 6), i);
  s->Quiesce();
  int refused = 0;
  for (int i = 0; i < kKeys; ++i) {
    const std::string k = Numbered("te:", i, 6);
    std::optional<ValueHandle> erased;
    if (s->TryErasePresent(k, &erased)) {
      ASSERT_EQ(erased, ValueHandle(i)) << k;
      ASSERT_EQ(s->Get(k), std::nullopt) << k;
    } else {
      ++refused;
      ASSERT_EQ(s->Get(k), ValueHandle(i)) << k;
      ASSERT_EQ(s->ErasePresent(k), ValueHandle(i)) << k;
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_EQ(s->size(), 0u);
  // An absent key: nothing to erase, whether refused or not.
  std::optional<ValueHandle> erased = 1;
  if (s->TryErasePresent("te:absent", &erased)) EXPECT_EQ(erased, std::nullopt);
  EXPECT_EQ(s->size(), 0u);
}

TEST(LearnedStoreMerges, SlidingWindowReturnsMemory) {
  const int live = 10000, ops = Scaled(1000000, 100000);
  auto key = [](int i) { return Numbered("window:", i, 10); };
  FOR_EACH_CONFIG(c) {
    auto store = MakeStore(c);
    for (int i = 0; i < ops; ++i) {
      ASSERT_EQ(store->Put(key(i), i), std::nullopt) << key(i);
      if (i >= live) {
        ASSERT_EQ(store->Erase(key(i - live)), static_cast<ValueHandle>(i - live)) << i;
      }
      if (i % 65536 == 65535) {
        // The window's edges, where leaves empty and merge.
        ASSERT_EQ(store->Get(key(i - live)), std::nullopt);
        ASSERT_EQ(store->Get(key(i - live + 1)), static_cast<ValueHandle>(i - live + 1));
        std::vector<Visit> first = ScanN(*store, ScanStart::Edge(), Direction::kForward, 3);
        ASSERT_EQ(first.size(), 3u);
        ASSERT_EQ(first[0].key, key(i - live + 1));
        std::vector<Visit> down =
            ScanN(*store, ScanStart::At(key(i - live + 100)), Direction::kReverse, SIZE_MAX);
        ASSERT_EQ(down.size(), 100u);
      }
    }
    store->Quiesce();
    const IndexStats s = store->Stats();
    ASSERT_EQ(s.keys, static_cast<uint64_t>(live));
    EXPECT_GT(s.merges, 0u);
    std::vector<std::string> left;
    for (int i = ops - live; i < ops; ++i) left.push_back(key(i));
    EXPECT_TRUE(NearFresh(s, FreshStats(c, left), 1.2));
    std::vector<Visit> all = Contents(*store);
    ASSERT_EQ(all.size(), left.size());
    for (size_t i = 0; i < left.size(); ++i) ASSERT_EQ(all[i].key, left[i]);
  }
}

// Erases at random thin every leaf: 90% of the keys go, and the leaves and bytes follow. A fresh
// store of the survivors (inserted in random order, as they were) is the yardstick; thinned
// leaves end between 3/8 and all of their capacity (1.35x the fresh store's leaves and bytes
// when written), so the bound is looser than the window's.
TEST(LearnedStoreMerges, RandomErasesThinEveryLeaf) {
  const int n = Scaled(200000, 20000);
  FOR_EACH_CONFIG(c) {
    std::vector<std::string> keys;
    for (int i = 0; i < n; ++i) keys.push_back(Numbered("thin:", i, 9));
    Rng rng(40 + c);
    std::shuffle(keys.begin(), keys.end(), rng);
    Twin t(c);
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(t.store->Put(keys[i], i), t.model->Put(keys[i], i));
    }
    t.store->Quiesce();
    const IndexStats full = t.store->Stats();
    std::shuffle(keys.begin(), keys.end(), rng);
    const size_t erased = keys.size() - keys.size() / 10;
    for (size_t i = 0; i < erased; ++i) {
      ASSERT_EQ(t.store->Erase(keys[i]), t.model->Erase(keys[i])) << keys[i];
    }
    ASSERT_TRUE(QuiescedStatsConsistent(*t.store));
    ASSERT_TRUE(SameContents(t));
    const IndexStats s = t.store->Stats();
    std::vector<std::string> left(keys.begin() + static_cast<ptrdiff_t>(erased), keys.end());
    EXPECT_TRUE(NearFresh(s, FreshStats(c, left), 1.5));
    EXPECT_LT(s.leaves, full.leaves / 4) << "full: " << full.leaves;
  }
}

// Every key erased, in ascending, descending and random order, from stores built by Puts and by
// bulk load: one empty leaf under the root is left, and the store works again.
TEST(LearnedStoreMerges, EraseEverythingLeavesOneLeaf) {
  const int n = Scaled(100000, 10000);
  FOR_EACH_CONFIG(c) {
    for (const char* order : {"ascending", "descending", "random"}) {
      for (bool bulk : {false, true}) {
        SCOPED_TRACE(std::string(order) + (bulk ? ", bulk-loaded" : ", Put"));
        Twin t(c);
        std::vector<Visit> items;
        for (int i = 0; i < n; ++i) items.push_back({Numbered("all:", i, 8), ValueHandle(i)});
        if (bulk) {
          BulkLoadFrom(*t.store, items);
          BulkLoadFrom(*t.model, items);
        } else {
          for (const Visit& v : items) t.store->Put(v.key, v.value), t.model->Put(v.key, v.value);
        }
        if (order[0] == 'd') std::reverse(items.begin(), items.end());
        if (order[0] == 'r') std::shuffle(items.begin(), items.end(), Rng(c));
        for (size_t i = 0; i < items.size(); ++i) {
          ASSERT_EQ(t.store->Erase(items[i].key), items[i].value) << items[i].key;
          t.model->Erase(items[i].key);
          if (i % 4999 == 0) {
            ASSERT_TRUE(SameScan(t, ScanStart::At(items[i].key), Direction::kForward, 20));
            ASSERT_TRUE(SameScan(t, ScanStart::At(items[i].key), Direction::kReverse, 20));
          }
        }
        ASSERT_TRUE(QuiescedStatsConsistent(*t.store));
        const IndexStats s = t.store->Stats();
        EXPECT_EQ(s.keys, 0u);
        EXPECT_EQ(s.leaves, 1u);
        EXPECT_EQ(s.inner_nodes, 1u);
        EXPECT_EQ(s.depth, 2u);
        EXPECT_LT(Footprint(s), 16u << 10);
        EXPECT_TRUE(Contents(*t.store).empty());
        for (int i = 0; i < 1000; ++i) {
          ASSERT_EQ(t.store->Put(items[i].key, i), std::nullopt);
          t.model->Put(items[i].key, i);
        }
        ASSERT_TRUE(SameContents(t));
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Concurrency. Each test runs under every configuration.

class LearnedStoreConcurrent : public ::testing::TestWithParam<int> {
 protected:
  std::unique_ptr<OrderedStore> NewStore() const { return MakeStore(GetParam()); }
};

INSTANTIATE_TEST_SUITE_P(Configs, LearnedStoreConcurrent, ::testing::Range(0, kConfigs),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(GetConfig(info.param).name);
                         });

// The whole contents equal `want`, by size, both full scans and Get of every key.
AssertionResult ContentsEqual(const OrderedStore& store, const Model& want) {
  if (store.size() != want.size()) {
    return AssertionFailure() << "size " << store.size() << ", want " << want.size();
  }
  std::vector<Visit> fwd = Contents(store);
  std::vector<Visit> rev = ScanN(store, ScanStart::Edge(), Direction::kReverse, SIZE_MAX);
  std::reverse(rev.begin(), rev.end());
  std::vector<Visit> expect;
  for (const auto& [k, v] : want) expect.push_back({k, v});
  for (const auto* got : {&fwd, &rev}) {
    if (*got != expect) {
      size_t i = 0;
      while (i < got->size() && i < expect.size() && (*got)[i] == expect[i]) ++i;
      return AssertionFailure() << (got == &fwd ? "forward" : "reverse")
                                << " scan differs at position " << i << ": store "
                                << (i < got->size() ? Show((*got)[i].key) : "<end>") << ", want "
                                << (i < expect.size() ? Show(expect[i].key) : "<end>");
    }
  }
  for (const auto& [k, v] : want) {
    if (store.Get(k) != v) return AssertionFailure() << "Get " << Show(k);
  }
  return AssertionSuccess();
}

// Checks one scan's result: strictly ordered in its direction (so no duplicates), each value
// belonging to its key, and every stable key inside the range the scan covered present. The
// covered range runs from the start bound (or the edge) to the last key visited, or to the other
// edge when the scan ran out of keys (`exhausted`).
AssertionResult CheckScan(const std::vector<std::string>& stable, const ScanStart& start,
                          Direction dir, const std::vector<Visit>& seen, bool exhausted,
                          bool (*value_ok)(std::string_view, ValueHandle)) {
  for (size_t j = 0; j < seen.size(); ++j) {
    if (!value_ok(seen[j].key, seen[j].value)) {
      return AssertionFailure() << "value " << seen[j].value << " under key " << Show(seen[j].key);
    }
    if (j == 0) continue;
    bool ordered =
        dir == Direction::kForward ? seen[j - 1].key < seen[j].key : seen[j - 1].key > seen[j].key;
    if (!ordered) {
      return AssertionFailure() << Describe(start, dir, SIZE_MAX) << " out of order or repeated at "
                                << j << ": " << Show(seen[j - 1].key) << ", then "
                                << Show(seen[j].key);
    }
  }
  std::vector<std::string> keys;
  for (const Visit& v : seen) keys.push_back(v.key);
  if (dir == Direction::kReverse) std::reverse(keys.begin(), keys.end());
  std::string bound(start.key);
  auto lo = stable.begin(), hi = stable.end();
  if (dir == Direction::kForward) {
    if (!start.unbounded) {
      lo = start.inclusive ? std::lower_bound(stable.begin(), stable.end(), bound)
                           : std::upper_bound(stable.begin(), stable.end(), bound);
    }
    if (!exhausted) hi = std::upper_bound(stable.begin(), stable.end(), seen.back().key);
  } else {
    if (!start.unbounded) {
      hi = start.inclusive ? std::upper_bound(stable.begin(), stable.end(), bound)
                           : std::lower_bound(stable.begin(), stable.end(), bound);
    }
    if (!exhausted) lo = std::lower_bound(stable.begin(), stable.end(), seen.back().key);
  }
  for (auto it = lo; it < hi; ++it) {
    if (!std::binary_search(keys.begin(), keys.end(), *it)) {
      return AssertionFailure() << Describe(start, dir, SIZE_MAX) << " missed stable key "
                                << Show(*it) << " (visited " << seen.size() << ")";
    }
  }
  return AssertionSuccess();
}

// Writers Put/Erase their own keys, readers Get and GetBatch, scanners scan from random bounds in
// both directions, 8 threads at once, on a store bulk-loaded with the stable keys and half the
// writers' keys. Checks: readers always find the stable values, and values that belong to the key
// asked for; each scan is strictly ordered and includes every stable key in the range it covered;
// every writer's Put/Erase returns what its own model says; at the end the store is exactly the
// stable set plus each writer's model. Stats and Quiesce are called concurrently too.
TEST_P(LearnedStoreConcurrent, ReadersWritersScanners) {
  constexpr int kStable = 2000, kWriterKeys = 2000;
  constexpr int kWriters = 3, kReaders = 2, kScanners = 3;
  const int writer_ops = Scaled(60000, 2000), reader_ops = Scaled(60000, 2000),
            scanner_ops = Scaled(1000, 50);
  auto store = NewStore();
  std::vector<std::string> stable;
  std::vector<Model> writer_models(kWriters);
  {
    Model initial;
    for (int i = 0; i < kStable; ++i) {
      stable.push_back(StableKey(i));
      initial[stable.back()] = MakeValue(i, 0, 0);
      for (int t = 0; t < kWriters; ++t) {
        if ((i + t) % 2 == 0) {
          writer_models[t][WriterKey(i, t)] = MakeValue(i, t + 1, 0);
          initial[WriterKey(i, t)] = MakeValue(i, t + 1, 0);
        }
      }
    }
    std::vector<Visit> items;
    for (const auto& [k, v] : initial) items.push_back({k, v});
    BulkLoadFrom(*store, items);
  }

  std::latch start(kWriters + kReaders + kScanners);
  std::atomic<int64_t> scans_checked{0}, gets_checked{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(100 + t);
      Model& model = writer_models[t];
      start.arrive_and_wait();
      for (int op = 1; op <= writer_ops; ++op) {
        int i = static_cast<int>(Uniform(rng, kWriterKeys));
        std::string k = WriterKey(i, t);
        auto it = model.find(k);
        std::optional<ValueHandle> want;
        if (it != model.end()) want = it->second;
        if (Uniform(rng, 3) != 0) {
          ValueHandle v = MakeValue(i, t + 1, static_cast<uint32_t>(op));
          auto old = store->Put(k, v);
          EXPECT_EQ(old, want) << "writer " << t << " Put " << k;
          model[k] = v;
        } else {
          auto old = store->Erase(k);
          EXPECT_EQ(old, want) << "writer " << t << " Erase " << k;
          if (it != model.end()) model.erase(it);
        }
        if (::testing::Test::HasFailure()) break;
      }
    });
  }
  for (int t = 0; t < kReaders; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(200 + t);
      int64_t n = 0;
      start.arrive_and_wait();
      for (; n < reader_ops; ++n) {
        if (n % 8 == 0) {
          // A batch mixing stable keys and writers' keys, prefetched first half the time.
          std::vector<std::string> keys;
          for (int j = 0; j < 16; ++j) {
            int i = static_cast<int>(Uniform(rng, kStable));
            keys.push_back(j % 2 ? StableKey(i)
                                 : WriterKey(i, static_cast<int>(Uniform(rng, kWriters))));
          }
          std::vector<std::string_view> views(keys.begin(), keys.end());
          if (Uniform(rng, 2) == 0) store->Prefetch(views);
          std::optional<ValueHandle> found[16];
          store->GetBatch(views, found);
          for (int j = 0; j < 16; ++j) {
            if (j % 2) {
              EXPECT_TRUE(found[j].has_value() && ValueMatchesKey(keys[j], *found[j])) << keys[j];
            } else if (found[j]) {
              EXPECT_TRUE(ValueMatchesKey(keys[j], *found[j])) << keys[j];
            }
          }
        } else {
          int i = static_cast<int>(Uniform(rng, kStable));
          EXPECT_EQ(store->Get(stable[i]), MakeValue(i, 0, 0)) << stable[i];
          std::string k = WriterKey(static_cast<int>(Uniform(rng, kWriterKeys)),
                                    static_cast<int>(Uniform(rng, kWriters)));
          auto wv = store->Get(k);
          if (wv) {
            EXPECT_TRUE(ValueMatchesKey(k, *wv)) << k;
          }
        }
        if (t == 0 && n % 1000 == 0) {
          IndexStats s = store->Stats();  // racing the writers: only that it is safe to call
          (void)s;
        }
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
      for (; n < scanner_ops; ++n) {
        Direction dir = Uniform(rng, 2) == 0 ? Direction::kForward : Direction::kReverse;
        std::string bound;
        ScanStart from = ScanStart::Edge();
        if (Uniform(rng, 8) != 0) {
          int i = static_cast<int>(Uniform(rng, kStable));
          bound = Uniform(rng, 2) ? StableKey(i)
                                  : WriterKey(i, static_cast<int>(Uniform(rng, kWriters)));
          from = Uniform(rng, 2) ? ScanStart::At(bound) : ScanStart::After(bound);
        }
        size_t limit = Uniform(rng, 10) == 0 ? SIZE_MAX : 1 + Uniform(rng, 300);
        std::vector<Visit> seen = ScanN(*store, from, dir, limit);
        ASSERT_TRUE(CheckScan(stable, from, dir, seen, seen.size() < limit, ValueMatchesKey));
        if (t == 0 && n % 100 == 50) store->Quiesce();  // racing the writers: must return
      }
      scans_checked.fetch_add(n);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(scans_checked.load(), int64_t{kScanners} * scanner_ops);
  EXPECT_EQ(gets_checked.load(), int64_t{kReaders} * reader_ops);

  Model all;
  for (int i = 0; i < kStable; ++i) all[stable[i]] = MakeValue(i, 0, 0);
  for (const Model& m : writer_models) all.insert(m.begin(), m.end());
  EXPECT_TRUE(ContentsEqual(*store, all));
  EXPECT_TRUE(QuiescedStatsConsistent(*store));
  EXPECT_TRUE(ContentsEqual(*store, all));
}

// One writer inserts k_0 < k_1 < ... < k_{n-1} in increasing order (ascending) or decreasing order
// while scanners scan the range forward and backward, from the edges of the range and from random
// keys inside it, sometimes stopping early. Whatever it visits must be contiguous in the insert
// order: an ascending writer's keys are seen as a prefix {k_0..k_j}, a descending writer's as a
// suffix {k_j..k_{n-1}} (seeing k_j without an earlier-inserted key is the bug), and a scan sees
// at least every key whose Put returned before the scan started. Neighbouring keys outside the
// range make the scans stop on the range rather than at the store's edge.
void MonotoneInsertScans(OrderedStore& store, bool ascending) {
  const int n = Scaled(40000, 4000);
  constexpr int kScanners = 3;
  store.Put("lim", 1);
  store.Put("lin;", 2);
  auto key = [](int i) { return Numbered("lin:", i, 8); };
  std::atomic<int> published{0};  // how many Puts have returned
  std::atomic<bool> done{false};
  std::atomic<int64_t> scans{0};
  std::latch start(1 + kScanners);
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    start.arrive_and_wait();
    for (int j = 0; j < n; ++j) {
      int i = ascending ? j : n - 1 - j;
      store.Put(key(i), static_cast<ValueHandle>(i));
      // release: pairs with the scanners' acquire; they must see this Put's key.
      published.store(j + 1, std::memory_order_release);
    }
    done.store(true);
  });
  for (int t = 0; t < kScanners; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(400 + t);
      int64_t count = 0;
      start.arrive_and_wait();
      // Until the writer is done (scans take longer as the range grows, so this is bounded).
      while (!done.load() || count < 20) {
        const int before = published.load(std::memory_order_acquire);
        // Certainly present: [0, before) ascending, [n - before, n) descending.
        const int lo_present = ascending ? 0 : n - before, hi_present = ascending ? before : n;
        Direction dir = Uniform(rng, 2) == 0 ? Direction::kForward : Direction::kReverse;
        ScanStart from;
        std::string bound;
        int from_index = -1;  // the scan's start inside the range, or -1 from the range's edge
        if (Uniform(rng, 3) == 0) {
          from_index = static_cast<int>(Uniform(rng, n));
          bound = key(from_index);
          from = ScanStart::At(bound);
        } else if (dir == Direction::kForward) {
          from = ScanStart::At("lin:");
        } else {
          from = ScanStart::After("lin:\xff");
        }
        size_t limit = Uniform(rng, 4) == 0 ? 1 + Uniform(rng, 100) : SIZE_MAX;
        std::vector<int> seen;
        bool stopped = false;
        store.Scan(from, dir, [&](std::string_view k, ValueHandle v) {
          if (k.substr(0, 4) != "lin:") return false;
          seen.push_back(static_cast<int>(v));
          if (seen.size() == limit) stopped = true;
          return !stopped;
        });
        // Consecutive in the scan's direction.
        const int step = dir == Direction::kForward ? 1 : -1;
        for (size_t j = 1; j < seen.size(); ++j) {
          ASSERT_EQ(seen[j], seen[j - 1] + step)
              << (ascending ? "ascending" : "descending") << " writer: scan visited k"
              << seen[j - 1] << " then k" << seen[j];
        }
        // Where the visited run must start and end, given what was certainly present.
        int first_want, last_reachable;
        if (dir == Direction::kForward) {
          first_want = from_index < 0 ? 0 : from_index;
          last_reachable = hi_present - 1;  // at least up to here, unless stopped
        } else {
          first_want = from_index < 0 ? n - 1 : from_index;
          last_reachable = lo_present;
        }
        bool first_present = first_want >= lo_present && first_want < hi_present;
        if (first_present) {
          ASSERT_FALSE(seen.empty())
              << "scan from k" << first_want << " saw nothing; " << before << " published";
          ASSERT_EQ(seen.front(), first_want);
        }
        if (!seen.empty()) {
          // Ascending writer: every key seen came with all keys below it (a prefix), so a forward
          // scan from k_m sees m.., a reverse scan ends at k_0 unless stopped. Descending: mirror.
          if (ascending) {
            if (dir == Direction::kReverse && !stopped) {
              ASSERT_EQ(seen.back(), 0);
            }
            if (dir == Direction::kForward) {
              ASSERT_EQ(seen.front(), first_want);
            }
          } else {
            if (dir == Direction::kForward && !stopped) {
              ASSERT_EQ(seen.back(), n - 1);
            }
            if (dir == Direction::kReverse) {
              ASSERT_EQ(seen.front(), first_want);
            }
          }
          if (!stopped && first_present) {
            bool reached = dir == Direction::kForward ? seen.back() >= last_reachable
                                                      : seen.back() <= last_reachable;
            ASSERT_TRUE(reached) << "scan stopped at k" << seen.back() << " but k" << last_reachable
                                 << " was published before it started";
          }
        }
        ++count;
      }
      scans.fetch_add(count);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_GE(scans.load(), 20 * kScanners);
  EXPECT_EQ(store.size(), static_cast<size_t>(n + 2));
  store.Quiesce();
  std::vector<Visit> all = Contents(store);
  ASSERT_EQ(all.size(), static_cast<size_t>(n + 2));
  for (int i = 0; i < n; ++i) ASSERT_EQ(all[i + 1], (Visit{key(i), static_cast<ValueHandle>(i)}));
}

TEST_P(LearnedStoreConcurrent, AscendingInsertsAreSeenAsPrefixes) {
  auto store = NewStore();
  MonotoneInsertScans(*store, /*ascending=*/true);
}

TEST_P(LearnedStoreConcurrent, DescendingInsertsAreSeenAsSuffixes) {
  auto store = NewStore();
  MonotoneInsertScans(*store, /*ascending=*/false);
}

// A stable set S (every key whose number ends in 0) is present throughout while writers insert
// and erase the other keys around and between them. Every scan - whole-range, from random bounds,
// stopped early, or paginated with After(last key) as SCAN does - is strictly ordered and contains
// every key of S in the range it covered; readers always find S.
bool StableValueOk(std::string_view k, ValueHandle v) {
  // "s" + 7 digits; the value's low 32 bits are the number.
  return k.size() == 8 && k[0] == 's' &&
         static_cast<int64_t>(v & 0xffffffffu) == std::stoll(std::string(k.substr(1)));
}

TEST_P(LearnedStoreConcurrent, ScansNeverMissStableKeys) {
  const int m = Scaled(20000, 4000) / 10 * 10;
  constexpr int kWriters = 3, kReaders = 2, kScanners = 3;
  const int writer_ops = Scaled(50000, 2000);
  auto key = [](int i) { return Numbered("s", i, 7); };
  auto store = NewStore();
  std::vector<std::string> stable;
  for (int i = 0; i < m; i += 10) {
    stable.push_back(key(i));
    store->Put(stable.back(), i);
  }
  // Writer t owns the keys whose last digit d (1..9) has d % 3 == t; half of them start present.
  for (int i = 0; i < m; ++i) {
    if (i % 10 != 0 && i % 2 == 0) store->Put(key(i), i);
  }
  std::atomic<int> writers_left{kWriters};
  std::latch start(kWriters + kReaders + kScanners);
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(500 + t);
      start.arrive_and_wait();
      for (int op = 0; op < writer_ops; ++op) {
        int i = static_cast<int>(Uniform(rng, m / 10)) * 10 + 1 +
                static_cast<int>(Uniform(rng, 3)) * 3 + t;
        if (i % 10 == 0) continue;  // unreachable: digits 1..9
        if (Uniform(rng, 2) == 0) {
          store->Put(key(i), (static_cast<uint64_t>(op) << 32) | static_cast<uint64_t>(i));
        } else {
          store->Erase(key(i));
        }
      }
      writers_left.fetch_sub(1);
    });
  }
  for (int t = 0; t < kReaders; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(600 + t);
      start.arrive_and_wait();
      int64_t n = 0;
      while (writers_left.load() > 0 || n < 100) {
        int s = static_cast<int>(Uniform(rng, stable.size()));
        auto v = store->Get(stable[s]);
        ASSERT_EQ(v, static_cast<ValueHandle>(s * 10)) << stable[s];
        std::string other = key(static_cast<int>(Uniform(rng, m)));
        if (auto ov = store->Get(other)) {
          ASSERT_TRUE(StableValueOk(other, *ov)) << other;
        }
        ++n;
      }
    });
  }
  std::atomic<int64_t> scans{0};
  for (int t = 0; t < kScanners; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(700 + t);
      start.arrive_and_wait();
      int64_t n = 0;
      while (writers_left.load() > 0 || n < 20) {
        Direction dir = Uniform(rng, 2) == 0 ? Direction::kForward : Direction::kReverse;
        uint64_t kind = Uniform(rng, 4);
        if (kind == 0) {
          // Paginated: pages of up to 64, each resuming After the last key of the previous one;
          // the pages together must cover the whole range.
          std::vector<Visit> all;
          ScanStart from = ScanStart::Edge();
          std::string resume;
          for (;;) {
            std::vector<Visit> page = ScanN(*store, from, dir, 64);
            all.insert(all.end(), page.begin(), page.end());
            if (page.size() < 64) break;
            resume = page.back().key;
            from = ScanStart::After(resume);
          }
          ASSERT_TRUE(CheckScan(stable, ScanStart::Edge(), dir, all, true, StableValueOk))
              << "paginated";
        } else {
          ScanStart from = ScanStart::Edge();
          std::string bound;
          if (kind != 1) {
            bound = key(static_cast<int>(Uniform(rng, m)));
            if (Uniform(rng, 3) == 0) bound.push_back('\0');
            from = Uniform(rng, 2) ? ScanStart::At(bound) : ScanStart::After(bound);
          }
          size_t limit = kind == 3 ? 1 + Uniform(rng, 200) : SIZE_MAX;
          std::vector<Visit> seen = ScanN(*store, from, dir, limit);
          ASSERT_TRUE(CheckScan(stable, from, dir, seen, seen.size() < limit, StableValueOk));
        }
        ++n;
      }
      scans.fetch_add(n);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_GE(scans.load(), 20 * kScanners);
  std::vector<Visit> all = Contents(*store);
  EXPECT_TRUE(CheckScan(stable, ScanStart::Edge(), Direction::kForward, all, true, StableValueOk));
  EXPECT_TRUE(QuiescedStatsConsistent(*store));
}

// Writers slide windows of live keys over the key space (Put key i, Erase key i - window), so
// leaves empty behind them and merge with their neighbours, and inner nodes lose children, while
// readers Get and scanners scan; stable keys spread over the whole space stay throughout.
// Checks: readers always find the stable keys with their values and never another key's value;
// each scan is strictly ordered and misses no stable key in its range; each writer's Put and
// Erase return what its window says; at the end the store holds exactly the stable keys and the
// windows, merges happened, and its memory is near a fresh store's holding the same keys.
TEST_P(LearnedStoreConcurrent, MergesUnderReadersAndScanners) {
  constexpr int kWriters = 2, kReaders = 2, kScanners = 2, kStableEvery = 50, kWindow = 2000;
  const int span = Scaled(200000, 20000);
  auto store = NewStore();
  std::vector<std::string> stable;
  for (int i = 0; i < span; i += kStableEvery) {
    stable.push_back(StableKey(i));
    store->Put(stable.back(), MakeValue(i, 0, 0));
  }
  std::atomic<int> writers_left{kWriters};
  std::latch start(kWriters + kReaders + kScanners);
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < span; ++i) {
        ASSERT_EQ(store->Put(WriterKey(i, t), MakeValue(i, t + 1, 1)), std::nullopt) << i;
        if (i >= kWindow) {
          ASSERT_EQ(store->Erase(WriterKey(i - kWindow, t)), MakeValue(i - kWindow, t + 1, 1)) << i;
        }
      }
      writers_left.fetch_sub(1);
    });
  }
  for (int t = 0; t < kReaders; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(1100 + t);
      start.arrive_and_wait();
      for (int64_t n = 0; writers_left.load() > 0 || n < 100; ++n) {
        const int s = static_cast<int>(Uniform(rng, stable.size()));
        ASSERT_EQ(store->Get(stable[s]), MakeValue(s * kStableEvery, 0, 0)) << stable[s];
        std::string other = WriterKey(static_cast<int>(Uniform(rng, span)),
                                      static_cast<int>(Uniform(rng, kWriters)));
        if (auto v = store->Get(other)) {
          ASSERT_TRUE(ValueMatchesKey(other, *v)) << other;
        }
        if (n % 16 == 0) {
          std::vector<std::string> keys = {stable[s], other, stable[(s + 1) % stable.size()]};
          std::vector<std::string_view> views(keys.begin(), keys.end());
          std::optional<ValueHandle> found[3];
          store->GetBatch(views, found);
          ASSERT_EQ(found[0], MakeValue(s * kStableEvery, 0, 0)) << keys[0];
          ASSERT_TRUE(found[2].has_value()) << keys[2];
          if (found[1]) {
            ASSERT_TRUE(ValueMatchesKey(other, *found[1])) << other;
          }
        }
      }
    });
  }
  std::atomic<int64_t> scans{0};
  for (int t = 0; t < kScanners; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(1200 + t);
      start.arrive_and_wait();
      int64_t n = 0;
      for (; writers_left.load() > 0 || n < 20; ++n) {
        Direction dir = Uniform(rng, 2) == 0 ? Direction::kForward : Direction::kReverse;
        if (Uniform(rng, 4) == 0) {
          // Pages of 64, each resuming after the previous one's last key.
          std::vector<Visit> all;
          ScanStart from = ScanStart::Edge();
          std::string resume;
          for (;;) {
            std::vector<Visit> page = ScanN(*store, from, dir, 64);
            all.insert(all.end(), page.begin(), page.end());
            if (page.size() < 64) break;
            resume = page.back().key;
            from = ScanStart::After(resume);
          }
          ASSERT_TRUE(CheckScan(stable, ScanStart::Edge(), dir, all, true, ValueMatchesKey))
              << "paginated";
          continue;
        }
        const int i = static_cast<int>(Uniform(rng, span));
        std::string bound = Uniform(rng, 2) == 0 ? StableKey(i) : WriterKey(i, 0);
        if (Uniform(rng, 3) == 0) bound.pop_back();
        ScanStart from = Uniform(rng, 2) == 0 ? ScanStart::At(bound) : ScanStart::After(bound);
        size_t limit = Uniform(rng, 3) == 0 ? SIZE_MAX : 1 + Uniform(rng, 500);
        std::vector<Visit> seen = ScanN(*store, from, dir, limit);
        ASSERT_TRUE(CheckScan(stable, from, dir, seen, seen.size() < limit, ValueMatchesKey));
      }
      scans.fetch_add(n);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_GE(scans.load(), 20 * kScanners);
  Model want;
  std::vector<std::string> live;
  for (int i = 0; i < span; ++i) {
    if (i % kStableEvery == 0) want[StableKey(i)] = MakeValue(i, 0, 0);
    for (int t = 0; t < kWriters; ++t) {
      if (i >= span - kWindow) want[WriterKey(i, t)] = MakeValue(i, t + 1, 1);
    }
  }
  for (const auto& [k, v] : want) live.push_back(k);
  ASSERT_TRUE(QuiescedStatsConsistent(*store));
  ASSERT_TRUE(ContentsEqual(*store, want));
  const IndexStats s = store->Stats();
  EXPECT_GT(s.merges, 0u);
  // Looser than the single-threaded bounds: the leaves under the stable keys keep insert buffers
  // (2.4 KB each) holding the windows' erase markers, which the fresh store (ascending Puts)
  // does not have.
  EXPECT_TRUE(NearFresh(s, FreshStats(GetParam(), live), 2.0));
}

// Threads overwrite the same 10k keys (and erase and re-put some) round after round, with readers
// holding epochs open; after each round, Quiesce and read the memory figures. A store that leaks
// replaced nodes, buffers or keys grows with the number of rounds; a correct one settles at the
// same size (the live set never changes). The bound: round 10 within 2x (plus slack) of round 2
// for index_bytes, key_bytes and retired_pending.
TEST_P(LearnedStoreConcurrent, ChurnKeepsMemoryBounded) {
  constexpr int kKeys = 10000, kRounds = 10, kWriters = 4, kReaders = 2;
  const int writes_per_round = Scaled(kKeys, 2000);  // per writer
  auto key = [](int i) { return Numbered("churn:", i, 6); };
  auto store = NewStore();
  for (int i = 0; i < kKeys; ++i) store->Put(key(i), i);
  std::vector<IndexStats> after(kRounds + 1);
  std::vector<int> last_written(kKeys, 0);  // the last round that wrote each key
  for (int round = 1; round <= kRounds; ++round) {
    std::vector<std::vector<char>> touched(kWriters, std::vector<char>(kKeys, 0));
    std::atomic<int> writers_left{kWriters};
    std::latch start(kWriters + kReaders);
    std::vector<std::thread> threads;
    for (int t = 0; t < kWriters; ++t) {
      threads.emplace_back([&, t] {
        Rng rng(round * 100 + t);
        start.arrive_and_wait();
        for (int j = 0; j < writes_per_round; ++j) {
          int i = static_cast<int>(Uniform(rng, kKeys));
          // The value names the round, so the final check can tell this round's values apart.
          ValueHandle v =
              (static_cast<uint64_t>(round) << 48) | (static_cast<uint64_t>(t) << 40) | j;
          if (Uniform(rng, 8) == 0) store->Erase(key(i));
          // Every Erase is followed by this thread's Put of the same key, so every key ends
          // present.
          store->Put(key(i), v);
          touched[t][i] = 1;
        }
        writers_left.fetch_sub(1);
      });
    }
    for (int t = 0; t < kReaders; ++t) {
      threads.emplace_back([&, t] {
        Rng rng(round * 100 + 50 + t);
        start.arrive_and_wait();
        while (writers_left.load() > 0) {
          store->Get(key(static_cast<int>(Uniform(rng, kKeys))));
          if (Uniform(rng, 16) == 0) {
            std::vector<Visit> seen =
                ScanN(*store, ScanStart::At(key(static_cast<int>(Uniform(rng, kKeys)))),
                      Direction::kForward, 32);
            for (size_t j = 1; j < seen.size(); ++j) ASSERT_LT(seen[j - 1].key, seen[j].key);
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    for (int i = 0; i < kKeys; ++i) {
      for (int t = 0; t < kWriters; ++t) {
        if (touched[t][i]) last_written[i] = round;
      }
    }
    store->Quiesce();
    after[round] = store->Stats();
    ASSERT_EQ(after[round].keys, static_cast<uint64_t>(kKeys)) << "round " << round;
    ASSERT_EQ(store->size(), static_cast<size_t>(kKeys)) << "round " << round;
  }
  const IndexStats& base = after[2];
  for (int round = 3; round <= kRounds; ++round) {
    const IndexStats& s = after[round];
    EXPECT_LE(s.index_bytes, 2 * base.index_bytes + (64 << 10))
        << "round " << round << " vs round 2";
    EXPECT_LE(s.key_bytes, 2 * base.key_bytes + (64 << 10)) << "round " << round << " vs round 2";
    EXPECT_LE(s.retired_pending, 2 * base.retired_pending + 256)
        << "round " << round << " vs round 2";
  }
  // Every key holds a value from the last round that wrote it (rounds are separated by joins):
  // an older value resurfacing after patches and reclamation is a lost update.
  std::vector<Visit> all = Contents(*store);
  ASSERT_EQ(all.size(), static_cast<size_t>(kKeys));
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_EQ(all[i].key, key(i));
    ASSERT_EQ(static_cast<int>(all[i].value >> 48), last_written[i]) << key(i);
  }
}

// 4 threads Put the same key with distinct values. The Puts form one history: each returns the
// value it replaced, so every value written is returned exactly once (by the Put that replaced
// it) except the last one, which stays in the store; exactly one Put (the first) returns nullopt.
// And a thread's own values come back in its writing order, its previous value whenever the
// replaced value is its own.
TEST_P(LearnedStoreConcurrent, SameKeyPutsFormOneHistory) {
  constexpr int kThreads = 4;
  const int puts = Scaled(50000, 2000);
  auto store = NewStore();
  // Neighbours, so the key lives in a leaf with others and gets patched and split around.
  for (int i = 0; i < 200; ++i) store->Put(Numbered("same:", i, 4), i);
  const std::string k = "same:0100x";
  std::vector<std::vector<std::optional<ValueHandle>>> olds(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  auto value = [](int t, int seq) { return (static_cast<uint64_t>(t + 1) << 32) | seq; };
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      olds[t].reserve(puts);
      start.arrive_and_wait();
      for (int seq = 1; seq <= puts; ++seq) {
        olds[t].push_back(store->Put(k, value(t, seq)));
        // Other threads' keys change around it.
        if (seq % 16 == 0) store->Put(Numbered("same:", (seq * (t + 1)) % 200, 4), seq);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::optional<ValueHandle> final_value = store->Get(k);
  ASSERT_TRUE(final_value.has_value());
  int nullopts = 0;
  std::set<ValueHandle> returned;
  for (int t = 0; t < kThreads; ++t) {
    std::vector<int> last_seen_from(kThreads, 0);  // the highest seq seen from each writer
    for (int seq = 1; seq <= puts; ++seq) {
      const std::optional<ValueHandle>& old = olds[t][seq - 1];
      if (!old) {
        ++nullopts;
        continue;
      }
      int owner = static_cast<int>(*old >> 32) - 1;
      int oseq = static_cast<int>(*old & 0xffffffffu);
      ASSERT_TRUE(owner >= 0 && owner < kThreads && oseq >= 1 && oseq <= puts)
          << "thread " << t << " Put " << seq << " returned " << *old << ", never written";
      ASSERT_TRUE(returned.insert(*old).second)
          << "value " << owner << ":" << oseq << " returned twice";
      if (owner == t) {
        ASSERT_EQ(oseq, seq - 1) << "thread " << t << " Put " << seq
                                 << " replaced its own older value";
      }
      ASSERT_GT(oseq, last_seen_from[owner])
          << "thread " << t << " saw writer " << owner << "'s values out of order";
      last_seen_from[owner] = oseq;
    }
  }
  EXPECT_EQ(nullopts, 1);
  ASSERT_EQ(returned.count(*final_value), 0u) << "the final value was also returned as replaced";
  EXPECT_EQ(returned.size() + 1, static_cast<size_t>(kThreads) * puts)
      << "some written values were never returned nor final: lost updates";
}

// 4 threads Put and Erase a shared set of 256 keys (small leaves: constant patches and splits
// under them) while a scanner checks order. Per key the operations form one history: every value
// written is returned exactly once, by the Put or Erase that removed it, or is the final value;
// and the Puts that returned nullopt are exactly the starts of the key's absent periods:
// 1 (initially absent) + successful Erases - (1 if the key ends absent).
TEST_P(LearnedStoreConcurrent, SharedKeysPutEraseHistories) {
  constexpr int kThreads = 4, kKeys = 256;
  const int ops = Scaled(100000, 2000);
  auto key = [](int i) { return Numbered("h", i, 5); };
  struct Op {
    int key;
    bool put;
    ValueHandle value;  // written, for a Put
    std::optional<ValueHandle> returned;
  };
  auto store = NewStore();
  std::vector<std::vector<Op>> log(kThreads);
  std::atomic<int> writers_left{kThreads};
  std::latch start(kThreads + 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Rng rng(800 + t);
      log[t].reserve(ops);
      start.arrive_and_wait();
      for (int j = 1; j <= ops; ++j) {
        int i = static_cast<int>(Uniform(rng, kKeys));
        if (Uniform(rng, 10) < 7) {
          ValueHandle v = (static_cast<uint64_t>(t + 1) << 32) | static_cast<uint64_t>(j);
          log[t].push_back({i, true, v, store->Put(key(i), v)});
        } else {
          log[t].push_back({i, false, 0, store->Erase(key(i))});
        }
      }
      writers_left.fetch_sub(1);
    });
  }
  threads.emplace_back([&] {
    Rng rng(899);
    start.arrive_and_wait();
    while (writers_left.load() > 0) {
      Direction dir = Uniform(rng, 2) == 0 ? Direction::kForward : Direction::kReverse;
      std::vector<Visit> seen = ScanN(*store, ScanStart::Edge(), dir, SIZE_MAX);
      for (size_t j = 1; j < seen.size(); ++j) {
        bool ordered = dir == Direction::kForward ? seen[j - 1].key < seen[j].key
                                                  : seen[j - 1].key > seen[j].key;
        ASSERT_TRUE(ordered) << Show(seen[j - 1].key) << " then " << Show(seen[j].key);
      }
      ASSERT_LE(seen.size(), static_cast<size_t>(kKeys));
    }
  });
  for (auto& th : threads) th.join();

  struct PerKey {
    std::vector<ValueHandle> written, consumed;
    int put_nullopts = 0, erase_hits = 0;
  };
  std::vector<PerKey> per(kKeys);
  for (const auto& l : log) {
    for (const Op& op : l) {
      PerKey& p = per[op.key];
      if (op.put) {
        p.written.push_back(op.value);
        if (!op.returned) ++p.put_nullopts;
      } else if (op.returned) {
        ++p.erase_hits;
      }
      if (op.returned) p.consumed.push_back(*op.returned);
    }
  }
  for (int i = 0; i < kKeys; ++i) {
    PerKey& p = per[i];
    std::optional<ValueHandle> final_value = store->Get(key(i));
    if (final_value) p.consumed.push_back(*final_value);
    std::sort(p.written.begin(), p.written.end());
    std::sort(p.consumed.begin(), p.consumed.end());
    ASSERT_EQ(p.consumed, p.written)
        << key(i) << ": values returned (plus the final one) differ from the values written ("
        << p.consumed.size() << " vs " << p.written.size() << ")";
    EXPECT_EQ(p.put_nullopts, 1 + p.erase_hits - (final_value ? 0 : 1)) << key(i);
  }
  EXPECT_TRUE(QuiescedStatsConsistent(*store));
}

// Another thread's Put or Erase, once it happens-before a Get, is what the Get returns - whatever
// the reading thread's hot cache holds. Two threads take turns: one writes one of 8 keys, hands
// over through an atomic, and the other reads all 8 (Get, repeated, and GetBatch) and must see
// exactly the current values; the roles alternate so both threads' caches stay hot.
TEST_P(LearnedStoreConcurrent, HotCacheSeesOtherThreadsWrites) {
  constexpr int kKeys = 8;
  const int rounds = Scaled(20000, 500);
  auto store = NewStore();
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i) keys.push_back(Numbered("hc:", i, 2));
  // Filler around them, so their leaves split and get patched while the cache holds them.
  for (int i = 0; i < 300; ++i) store->Put(Numbered("hc:", i, 2) + "f", i);
  std::optional<ValueHandle> current[kKeys];  // written by the thread whose turn it is
  // 2r: round r's write is next; 2r+1: its reads are next; -1: a player failed, stop.
  std::atomic<int> turn{0};
  std::atomic<int> rounds_read{0};
  // Waits for `target`; false if the other player gave up.
  auto await = [&](int target) {
    for (int v; (v = turn.load(std::memory_order_acquire)) != target;) {
      // acquire: pairs with the other player's release; its write (or reads) are done.
      if (v < 0) return false;
      turn.wait(v, std::memory_order_acquire);
    }
    return true;
  };
  auto player = [&](int me) {
    Rng rng(900 + me);
    for (int r = 0; r < rounds; ++r) {
      // Round r is written by thread r % 2 and then read by the other.
      int writer = r % 2;
      if (me == writer) {
        if (!await(2 * r)) return;
        int i = static_cast<int>(Uniform(rng, kKeys));
        if (Uniform(rng, 4) == 0) {
          EXPECT_EQ(store->Erase(keys[i]), current[i]);
          current[i] = std::nullopt;
        } else {
          ValueHandle v = (static_cast<uint64_t>(r) << 8) | static_cast<uint64_t>(i);
          EXPECT_EQ(store->Put(keys[i], v), current[i]);
          current[i] = v;
        }
        // Filler writes, so the structure under the keys changes.
        store->Put(Numbered("hc:", static_cast<int>(Uniform(rng, 8)), 2) + "g" + std::to_string(r),
                   r);
        // release: the reader must see this round's write.
        turn.store(2 * r + 1, std::memory_order_release);
        turn.notify_all();
      } else {
        if (!await(2 * r + 1)) return;
        for (int rep = 0; rep < 3; ++rep) {
          for (int i = 0; i < kKeys; ++i) {
            ASSERT_EQ(store->Get(keys[i]), current[i]) << "round " << r << " key " << i;
          }
        }
        std::vector<std::string_view> views(keys.begin(), keys.end());
        std::optional<ValueHandle> found[kKeys];
        store->GetBatch(views, found);
        for (int i = 0; i < kKeys; ++i) {
          ASSERT_EQ(found[i], current[i]) << "GetBatch, round " << r << " key " << i;
        }
        rounds_read.fetch_add(1, std::memory_order_relaxed);
        turn.store(2 * r + 2, std::memory_order_release);
        turn.notify_all();
      }
    }
  };
  // A player that fails an ASSERT returns early and tells the other to stop waiting.
  auto run = [&](int me) {
    player(me);
    if (::testing::Test::HasFatalFailure()) {
      turn.store(-1, std::memory_order_release);
      turn.notify_all();
    }
  };
  std::thread a(run, 0), b(run, 1);
  a.join();
  b.join();
  EXPECT_EQ(rounds_read.load(), rounds);
  EXPECT_TRUE(QuiescedStatsConsistent(*store));
}

// Clear (FLUSHALL) while readers and scanners run: each read sees the whole old contents or none,
// the store is empty and usable after, and the index's memory goes back to one empty leaf.
TEST_P(LearnedStoreConcurrent, ClearWhileReadersRun) {
  const int keys = Scaled(20000, 2000);
  auto store = NewStore();
  for (int i = 0; i < keys; ++i) store->Put(Numbered("clear:", i, 8), i + 1);
  store->Quiesce();
  const IndexStats full = store->Stats();
  std::atomic<bool> cleared{false};
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&, t] {
      uint64_t n = 0;
      while (!stop.load(std::memory_order_acquire)) {
        bool was_cleared = cleared.load(std::memory_order_acquire);
        int i = static_cast<int>((n++ * 7919 + t) % keys);
        std::optional<ValueHandle> v = store->Get(Numbered("clear:", i, 8));
        if (was_cleared) {
          EXPECT_FALSE(v.has_value());
        } else if (v) {
          EXPECT_EQ(*v, static_cast<ValueHandle>(i + 1));
        }
        size_t seen = 0;
        store->Scan(ScanStart::Edge(), Direction::kForward, [&](std::string_view, ValueHandle) {
          ++seen;
          return seen < 64;
        });
        // A scan sees the old contents or none: 64 keys (it stops there) or 0.
        EXPECT_TRUE(seen == 0 || seen == 64) << seen;
        if (was_cleared) {
          EXPECT_EQ(seen, 0u);
        }
      }
    });
  }
  store->Clear();
  cleared.store(true, std::memory_order_release);
  // Readers observe the cleared store for a while before stopping.
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(store->Get(Numbered("clear:", i % keys, 8)));
  stop.store(true, std::memory_order_release);
  for (auto& th : readers) th.join();
  EXPECT_EQ(store->size(), 0u);
  store->Quiesce();
  const IndexStats empty = store->Stats();
  EXPECT_EQ(empty.keys, 0u);
  EXPECT_EQ(empty.leaves, 1u);
  EXPECT_LT(empty.index_bytes, full.index_bytes / 10);
  EXPECT_EQ(empty.retired_pending, 0u);
  EXPECT_EQ(empty.retired_bytes, 0u);
  // Usable again.
  for (int i = 0; i < 1000; ++i) store->Put(Numbered("again:", i, 8), i);
  EXPECT_EQ(store->size(), 1000u);
  EXPECT_EQ(store->Get(Numbered("again:", 999, 8)), std::optional<ValueHandle>(999));
}

// Random writes leave most leaves with a partly filled buffer; once they stop, the idle sweep
// merges every buffer into its leaf and frees it, and readers see the same contents. A leaf
// written again takes a buffer again; the rest stay without one.
TEST(LearnedStoreIdleFlush, IdleBuffersAreMergedIntoTheirLeaves) {
  LearnedStoreOptions options;
  options.idle_flush_ms = 20;
  auto store = NewLearnedStore(options);
  const int n = Scaled(100000, 20000);
  Model want;
  Rng rng(17);
  for (int i = 0; i < n; ++i) {
    std::string key = Numbered("idle:", static_cast<int64_t>(Uniform(rng, uint64_t{10} * n)), 12);
    store->Put(key, i);
    want[key] = i;
  }
  const IndexStats written = store->Stats();
  ASSERT_GT(written.buffered_entries, 0u);
  // The sweep runs by itself; the test fails if it has not emptied the buffers within 60 s.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (store->Stats().buffer_slots > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  store->Quiesce();
  const IndexStats idle = store->Stats();
  EXPECT_EQ(idle.buffer_slots, 0u);
  EXPECT_EQ(idle.buffered_entries, 0u);
  EXPECT_GT(idle.idle_flushes, 0u);
  EXPECT_LT(idle.index_bytes, written.index_bytes * 3 / 4);
  EXPECT_TRUE(ContentsEqual(*store, want));
  store->Put(want.begin()->first, 7);
  EXPECT_EQ(store->Stats().buffer_slots, static_cast<uint64_t>(options.insert_buffer));
  EXPECT_EQ(store->Get(want.begin()->first), std::optional<ValueHandle>(7));
}

// With the sweep off, nothing but a full buffer (or a merge) replaces a leaf.
TEST(LearnedStoreIdleFlush, ZeroTurnsTheSweepOff) {
  LearnedStoreOptions options;
  options.idle_flush_ms = 0;
  auto store = NewLearnedStore(options);
  for (int i = 0; i < 1000; ++i) store->Put(Numbered("off:", i * 7919 % 1000, 4), i);
  store->Quiesce();
  const IndexStats s = store->Stats();
  EXPECT_EQ(s.idle_flushes, 0u);
  EXPECT_GT(s.buffered_entries, 0u);
}

}  // namespace
}  // namespace ordis::index
