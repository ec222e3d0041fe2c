// index_bench: the keyspace's ordered map against std::map and absl::btree_map, side by side in one
// run, with every result also given as a ratio to absl::btree_map.
//
// Usage (bench/index.sh builds Release into build-bench/ and passes its arguments through):
//
//   bench/index.sh                  10,000,000 keys per shape (about 8 GB peak RSS and 15-20
//                                   minutes on 2 cores, extrapolated from 840 MB and 100 s at 1M)
//   bench/index.sh --quick          200,000 keys
//   bench/index.sh --keys N         N keys
//   bench/index.sh --shape url      one shape only: user, binary or url
//   bench/index.sh --reps R         lookup and scan phases run R times; the fastest counts
//
// Per key shape, every contender runs these phases, one contender after another within a phase:
//
//   insert          the N keys, in random order, into an empty structure
//   lookup (hit)    point lookups of present keys, uniformly random
//   scan 100        forward scan of 100 entries from a random present key; the visitor reads each
//                   key's size and first byte and the value, as a SCAN reply would
//   95/5 mix        95% lookups of present keys, 5% inserts of new keys, interleaved at random
//   index bytes/key see HeapInUse() below
//
// each with 1 and with 2 threads; the threads share the structure and split the operations into
// disjoint slices. Lookup, scan and mix run on the structure the 1-thread insert built; each mix
// inserts ReadOps()/20 new keys into it (50,000 at --quick, 200,000 at 10M), so the 2-thread mix
// runs on a larger structure (+25% at --quick, +2% at 10M). The 2-thread insert builds a second
// structure, dropped right after.
//
// Reading the table. ns/op is wall-clock time of the whole phase divided by the operations of all
// threads together (inverse throughput), so two threads that scale perfectly halve it; for scans an
// operation is the whole 100-entry scan. "x" is absl::btree_map's ns/op divided by the contender's:
// higher = faster, 1.00 = as fast as absl::btree_map. The 2T/1T rows are the 2-thread throughput
// over the 1-thread one (2.00 = perfect). In the memory rows "x" goes the other way: the
// contender's bytes over absl::btree_map's, so <= 1.00 means "no more than absl::btree_map".
//
// Keys are generated once per shape from fixed seeds, so every contender, and every run, sees the
// same keys in the same order, and every lookup, scan and mix stream is the same too. Each stream
// is packed end to end in one buffer read in order, so the harness's own cache misses stay out of
// the numbers. Results are cross-checked: a missed lookup, or a checksum of what a phase read that
// differs from the first contender's, stops the run.
//
// The machine the numbers come from is usually shared: quote the ratios, not the absolute ns, and
// trust the 2-thread rows only when two cores were idle (the header prints the load average). The
// server stores each key behind a 2-byte (db, space) prefix (server/keyspace/keyspace.cc
// EncodeKey); the shapes here are stored as they are.
//
// Adding a contender (the learned-index tree, say) is one row in kContenders.
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <latch>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "index/learned_store.h"
#include "index/ordered_store.h"

namespace ordis::bench {
namespace {

// ---------------------------------------------------------------------------------------------
// Contenders

// Folds one visited entry into a scan checksum; order-sensitive, so two contenders agree only if
// they visit the same entries in the same order.
uint64_t Fold(uint64_t sum, std::string_view key, uint64_t value) {
  uint64_t first = key.empty() ? 0 : static_cast<unsigned char>(key[0]);
  return sum * 1000003 + key.size() * 257 + first + value;
}

// The one interface the harness drives. Thread safety: every method may be called concurrently.
class Contender {
 public:
  virtual ~Contender() = default;
  // Returns true iff key is present, and then sets *value.
  virtual bool Get(std::string_view key, uint64_t* value) const = 0;
  // Inserts or replaces.
  virtual void Put(std::string_view key, uint64_t value) = 0;
  // Visits up to `limit` entries in key order, from the first key >= start; returns the Fold of
  // all of them, starting from 0.
  virtual uint64_t Scan(std::string_view start, size_t limit) const = 0;
  virtual size_t size() const = 0;
};

// A standard ordered map of std::string under a std::shared_mutex: shared for Get and Scan,
// exclusive for Put. Map must find and lower_bound by a View of the key (std::map with std::less<>
// by std::string_view; absl::btree_map<std::string, ...> by absl::string_view, which Debian's
// abseil builds as its own type, not std::string_view), so a lookup builds no std::string.
template <typename Map, typename View = std::string_view>
class LockedMap final : public Contender {
 public:
  bool Get(std::string_view key, uint64_t* value) const override {
    std::shared_lock lock(mu_);
    auto it = map_.find(View(key.data(), key.size()));
    if (it == map_.end()) return false;
    *value = it->second;
    return true;
  }

  void Put(std::string_view key, uint64_t value) override {
    std::string owned(key);  // built outside the lock, as a careful caller would
    std::unique_lock lock(mu_);
    map_.insert_or_assign(std::move(owned), value);
  }

  uint64_t Scan(std::string_view start, size_t limit) const override {
    std::shared_lock lock(mu_);
    uint64_t sum = 0;
    for (auto it = map_.lower_bound(View(start.data(), start.size()));
         it != map_.end() && limit > 0; ++it, --limit) {
      sum = Fold(sum, it->first, it->second);
    }
    return sum;
  }

  size_t size() const override {
    std::shared_lock lock(mu_);
    return map_.size();
  }

 private:
  mutable std::shared_mutex mu_;
  Map map_;  // GUARDED_BY(mu_)
};

// Any index::OrderedStore; its own lock is the only one.
class StoreContender final : public Contender {
 public:
  explicit StoreContender(std::unique_ptr<index::OrderedStore> store) : store_(std::move(store)) {}

  bool Get(std::string_view key, uint64_t* value) const override {
    std::optional<index::ValueHandle> v = store_->Get(key);
    if (!v) return false;
    *value = *v;
    return true;
  }

  void Put(std::string_view key, uint64_t value) override { store_->Put(key, value); }

  uint64_t Scan(std::string_view start, size_t limit) const override {
    uint64_t sum = 0;
    if (limit == 0) return sum;
    store_->Scan(index::ScanStart::At(start), index::Direction::kForward,
                 [&](std::string_view key, index::ValueHandle value) {
                   sum = Fold(sum, key, value);
                   return --limit > 0;
                 });
    return sum;
  }

  size_t size() const override { return store_->size(); }

 private:
  std::unique_ptr<index::OrderedStore> store_;
};

template <typename T>
std::unique_ptr<Contender> Make() {
  return std::make_unique<T>();
}
template <std::unique_ptr<index::OrderedStore> (*New)()>
std::unique_ptr<Contender> MakeStore() {
  return std::make_unique<StoreContender>(New());
}

struct ContenderKind {
  const char* name;  // at most 18 characters: a table column
  std::unique_ptr<Contender> (*make)();
};

constexpr ContenderKind kContenders[] = {
    {"std::map", Make<LockedMap<std::map<std::string, uint64_t, std::less<>>>>},
    {"absl::btree_map", Make<LockedMap<absl::btree_map<std::string, uint64_t>, absl::string_view>>},
    {"ordis MapStore", MakeStore<index::NewMapStore>},
    {"learned tree", MakeStore<index::NewLearnedStore>},
};
constexpr size_t kNumContenders = std::size(kContenders);
constexpr size_t kBaseline = 1;  // every ratio is against this row: absl::btree_map
static_assert(kBaseline < kNumContenders);

// ---------------------------------------------------------------------------------------------
// Keys

// Byte strings packed end to end in one buffer: no allocation per key, and a list read in order
// touches memory sequentially. Views stay valid until the list is destroyed or added to.
class KeyList {
 public:
  void Reserve(size_t keys, size_t bytes) {
    starts_.reserve(keys + 1);
    bytes_.reserve(bytes);
  }
  void Add(std::string_view key) {
    bytes_.append(key);
    starts_.push_back(bytes_.size());
  }
  size_t size() const { return starts_.size() - 1; }
  size_t bytes() const { return bytes_.size(); }
  std::string_view operator[](size_t i) const {
    return {bytes_.data() + starts_[i], starts_[i + 1] - starts_[i]};
  }

 private:
  std::string bytes_;
  std::vector<size_t> starts_ = {0};
};

KeyList Pack(std::vector<std::string> keys) {
  size_t bytes = 0;
  for (const std::string& k : keys) bytes += k.size();
  KeyList list;
  list.Reserve(keys.size(), bytes);
  for (const std::string& k : keys) list.Add(k);
  return list;
}

// `user:%012d` over ids 0..n-1, in random order. 17 bytes.
std::vector<std::string> UserKeys(size_t n, std::mt19937_64& rng) {
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i;
  std::shuffle(ids.begin(), ids.end(), rng);
  std::vector<std::string> keys(n);
  char buf[32];
  for (size_t i = 0; i < n; ++i) {
    int len = std::snprintf(buf, sizeof(buf), "user:%012" PRIu64, ids[i]);
    keys[i].assign(buf, static_cast<size_t>(len));
  }
  return keys;
}

// 16 uniformly random bytes. Random order by construction; two equal keys among 10^7 have
// probability ~1e-25, and the size check after each build would catch them anyway.
std::vector<std::string> BinaryKeys(size_t n, std::mt19937_64& rng) {
  std::vector<std::string> keys(n, std::string(16, '\0'));
  for (std::string& k : keys) {
    uint64_t w[2] = {rng(), rng()};
    std::memcpy(k.data(), w, sizeof(w));
  }
  return keys;
}

// "https://host{0..999}.example/{1-6 path segments}/{unique id}", 26 to 90 bytes. A thousand hosts
// give long shared prefixes (thousands of keys per host at 10M), and the first 24 bytes are the
// scheme and host: the case MapStore's 24-byte inline prefix cannot settle alone.
std::vector<std::string> UrlKeys(size_t n, std::mt19937_64& rng) {
  static constexpr std::string_view kSegments[] = {
      "api",     "v1",       "v2",      "users",    "items",      "static",
      "img",     "docs",     "search",  "en-us",    "blog",       "2024",
      "catalog", "products", "account", "settings", "thumbnails", "checkout"};
  constexpr size_t kMaxBytes = 90;
  std::vector<std::string> keys(n);
  for (size_t i = 0; i < n; ++i) {
    // Appends, not operator+: GCC 12 gives a false -Wrestrict on "literal" + std::string&&.
    std::string id = "/";
    id += std::to_string(i);
    std::string k = "https://host";
    k += std::to_string(rng() % 1000);
    k += ".example";
    int segments = 1 + static_cast<int>(rng() % 6);
    for (int s = 0; s < segments; ++s) {
      std::string_view seg = kSegments[rng() % std::size(kSegments)];
      if (k.size() + 1 + seg.size() + id.size() > kMaxBytes) break;
      k += '/';
      k += seg;
    }
    k += id;
    keys[i] = std::move(k);
  }
  std::shuffle(keys.begin(), keys.end(), rng);  // insert order unrelated to the ids
  return keys;
}

struct Shape {
  const char* name;
  const char* description;
  std::vector<std::string> (*generate)(size_t n, std::mt19937_64& rng);
  uint64_t seed;
};

constexpr Shape kShapes[] = {
    {"user", "user:%012d, inserted in random order", UserKeys, 0x5eed0001},
    {"binary", "random 16-byte binary", BinaryKeys, 0x5eed0002},
    {"url", "URL-like https://host{n}.example/{path}/{id}", UrlKeys, 0x5eed0003},
};

// ---------------------------------------------------------------------------------------------
// Workload: everything a shape's phases read, built before any timing.

constexpr int kThreadCounts[] = {1, 2};
constexpr size_t kNumThreadCounts = std::size(kThreadCounts);
constexpr size_t kScanLength = 100;
constexpr size_t kMixInsertEvery = 20;  // 1 in 20 mix operations is an insert: 95/5

struct MixStream {
  KeyList keys;
  std::vector<uint8_t> is_insert;  // else a lookup of a present key
};

struct Workload {
  size_t n = 0;                       // keys[0, n) are the preloaded set, in insert order
  KeyList keys;                       // then each mix stream's new keys
  size_t key_bytes = 0;               // of keys[0, n)
  KeyList lookups;                    // present keys, uniformly random
  KeyList scan_starts;                // present keys, uniformly random
  MixStream mixes[kNumThreadCounts];  // one per thread count: each inserts its own new keys
};

// Read and mix phases run a fixed number of operations, not N: enough to last well past timer and
// thread start-up at small N, bounded at large N.
size_t ReadOps(size_t n) { return std::clamp<size_t>(n, 1'000'000, 4'000'000); }

Workload BuildWorkload(const Shape& shape, size_t n) {
  Workload w;
  w.n = n;
  const size_t mix_ops = ReadOps(n);
  const size_t mix_inserts = mix_ops / kMixInsertEvery;
  std::mt19937_64 rng(shape.seed);
  w.keys = Pack(shape.generate(n + kNumThreadCounts * mix_inserts, rng));
  for (size_t i = 0; i < n; ++i) w.key_bytes += w.keys[i].size();

  auto random_present = [&](size_t count, KeyList* out) {
    out->Reserve(count, count * (w.key_bytes / n + 1));
    for (size_t i = 0; i < count; ++i) out->Add(w.keys[rng() % n]);
  };
  random_present(ReadOps(n), &w.lookups);
  random_present(ReadOps(n) / 10, &w.scan_starts);

  for (size_t run = 0; run < kNumThreadCounts; ++run) {
    MixStream& m = w.mixes[run];
    m.is_insert.assign(mix_ops, 0);
    std::fill_n(m.is_insert.begin(), mix_inserts, 1);
    std::shuffle(m.is_insert.begin(), m.is_insert.end(), rng);
    m.keys.Reserve(mix_ops, mix_ops * (w.key_bytes / n + 1));
    size_t next_new = n + run * mix_inserts;
    for (size_t i = 0; i < mix_ops; ++i) {
      m.keys.Add(m.is_insert[i] ? w.keys[next_new++] : w.keys[rng() % n]);
    }
  }
  return w;
}

// ---------------------------------------------------------------------------------------------
// Running and measuring

using Clock = std::chrono::steady_clock;

struct alignas(64) Tally {  // one per thread, on its own cache line
  uint64_t checksum = 0;
  uint64_t misses = 0;
};

struct PhaseResult {
  double ns_per_op = 0;
  uint64_t checksum = 0;  // sum over threads, so independent of how the slices finish
  uint64_t misses = 0;
};

// Runs body(begin, end, tally) over `threads` disjoint contiguous slices of [0, ops), one thread
// each, all released at once; times from the release until the last thread finishes. One thread
// runs on the caller's thread (so a 1-thread insert allocates in the main malloc arena).
template <typename Body>
PhaseResult RunThreads(int threads, size_t ops, const Body& body) {
  std::vector<Tally> tallies(static_cast<size_t>(threads));
  Clock::time_point start;
  if (threads == 1) {
    start = Clock::now();
    body(size_t{0}, ops, &tallies[0]);
  } else {
    std::latch ready(threads);
    std::atomic<bool> go{false};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      size_t begin = ops * t / threads, end = ops * (t + 1) / threads;
      pool.emplace_back([&, begin, end, t] {
        ready.count_down();
        // acquire: pairs with the release below; nothing is published, it only orders the start.
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        body(begin, end, &tallies[t]);
      });
    }
    ready.wait();
    start = Clock::now();
    go.store(true, std::memory_order_release);
    for (std::thread& th : pool) th.join();
  }
  std::chrono::duration<double, std::nano> elapsed = Clock::now() - start;
  PhaseResult r;
  r.ns_per_op = elapsed.count() / static_cast<double>(ops);
  for (const Tally& t : tallies) {
    r.checksum += t.checksum;
    r.misses += t.misses;
  }
  return r;
}

PhaseResult Insert(Contender* c, const Workload& w, int threads) {
  return RunThreads(threads, w.n, [&](size_t begin, size_t end, Tally*) {
    for (size_t i = begin; i < end; ++i) c->Put(w.keys[i], i);
  });
}

PhaseResult Lookup(const Contender* c, const Workload& w, int threads) {
  return RunThreads(threads, w.lookups.size(), [&](size_t begin, size_t end, Tally* tally) {
    uint64_t sum = 0, misses = 0;
    for (size_t i = begin; i < end; ++i) {
      uint64_t v;
      if (c->Get(w.lookups[i], &v)) {
        sum += v;
      } else {
        ++misses;
      }
    }
    *tally = {sum, misses};
  });
}

PhaseResult Scan(const Contender* c, const Workload& w, int threads) {
  return RunThreads(threads, w.scan_starts.size(), [&](size_t begin, size_t end, Tally* tally) {
    uint64_t sum = 0;
    for (size_t i = begin; i < end; ++i) sum += c->Scan(w.scan_starts[i], kScanLength);
    tally->checksum = sum;
  });
}

PhaseResult Mix(Contender* c, const MixStream& m, int threads) {
  return RunThreads(threads, m.keys.size(), [&](size_t begin, size_t end, Tally* tally) {
    uint64_t sum = 0, misses = 0;
    for (size_t i = begin; i < end; ++i) {
      if (m.is_insert[i]) {
        c->Put(m.keys[i], i);
        continue;
      }
      uint64_t v;
      if (c->Get(m.keys[i], &v)) {
        sum += v;
      } else {
        ++misses;
      }
    }
    *tally = {sum, misses};
  });
}

// Heap bytes in use: glibc's in-use chunk bytes over all arenas (mallinfo2().uordblks) plus the
// bytes of chunks it mmapped (hblkhd: where large arrays such as a hash index's go). Chunk headers
// and size-class rounding count; free memory does not.
//
// Index bytes per key = (HeapInUse() after the 1-thread insert - before it
//                        - the N keys' bytes - 8 bytes of value per key) / N.
// That is everything a structure spends beyond the payload itself: nodes, pointers, slack in
// half-full nodes, std::string headers, per-allocation malloc overhead, hash tables. Measured on
// the whole process, so no contender can under-report, and a future structure needs no node
// counting of its own. It can go below zero for a structure that stores keys compressed (prefix
// truncation, say): it then saves more on keys than its index costs. A hash table's share moves
// with N, as its capacity doubles at 7/8 full: MapStore's hash index is ~12 bytes/key at 200,000
// keys, ~19 at 1M, ~15 at 10M (9 bytes per slot: a pointer and a control byte).
size_t HeapInUse() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

void Fail(const char* what, const char* shape, const char* contender) {
  std::fprintf(stderr, "FAIL: %s (shape %s, contender %s)\n", what, shape, contender);
  std::exit(1);
}

// Stops the run when a contender missed a present key or read something other than the first
// contender did.
void Check(const PhaseResult (&r)[kNumContenders], const char* phase, const Shape& shape) {
  for (size_t c = 0; c < kNumContenders; ++c) {
    if (r[c].misses != 0) Fail(phase, shape.name, kContenders[c].name);
    if (r[c].checksum != r[0].checksum) Fail(phase, shape.name, kContenders[c].name);
  }
}

enum Op { kInsert, kLookup, kScan, kMix, kNumOps };
constexpr const char* kOpNames[kNumOps] = {"insert (empty)", "lookup (hit)", "scan 100",
                                           "95/5 read/insert"};

struct ShapeResults {
  double ns[kNumOps][kNumThreadCounts][kNumContenders] = {};
  double heap_bytes_per_key[kNumContenders] = {};
  double index_bytes_per_key[kNumContenders] = {};
};

void Progress(const Shape& shape, const char* what) {
  std::fprintf(stderr, "  [%s] %s\n", shape.name, what);
}

ShapeResults RunShape(const Shape& shape, const Workload& w, int reps) {
  ShapeResults res;
  PhaseResult r[kNumContenders];
  const double n = static_cast<double>(w.n);

  Progress(shape, "insert, 1 thread");
  std::unique_ptr<Contender> built[kNumContenders];
  for (size_t c = 0; c < kNumContenders; ++c) {
    size_t before = HeapInUse();
    built[c] = kContenders[c].make();
    r[c] = Insert(built[c].get(), w, 1);
    double heap = static_cast<double>(HeapInUse() - before);
    if (built[c]->size() != w.n) Fail("size after insert", shape.name, kContenders[c].name);
    res.ns[kInsert][0][c] = r[c].ns_per_op;
    res.heap_bytes_per_key[c] = heap / n;
    res.index_bytes_per_key[c] =
        (heap - static_cast<double>(w.key_bytes) - sizeof(uint64_t) * n) / n;
  }

  for (size_t t = 0; t < kNumThreadCounts; ++t) {
    for (Op op : {kLookup, kScan}) {
      Progress(shape, op == kLookup ? "lookup" : "scan");
      for (int rep = 0; rep < reps; ++rep) {
        for (size_t c = 0; c < kNumContenders; ++c) {
          r[c] = op == kLookup ? Lookup(built[c].get(), w, kThreadCounts[t])
                               : Scan(built[c].get(), w, kThreadCounts[t]);
          double& best = res.ns[op][t][c];
          best = rep == 0 ? r[c].ns_per_op : std::min(best, r[c].ns_per_op);
        }
        Check(r, kOpNames[op], shape);
      }
    }
  }

  Progress(shape, "95/5 mix");
  size_t expected_size = w.n;
  for (size_t t = 0; t < kNumThreadCounts; ++t) {
    for (size_t c = 0; c < kNumContenders; ++c) {
      r[c] = Mix(built[c].get(), w.mixes[t], kThreadCounts[t]);
      res.ns[kMix][t][c] = r[c].ns_per_op;
    }
    Check(r, kOpNames[kMix], shape);
    expected_size += w.mixes[t].keys.size() / kMixInsertEvery;
    for (size_t c = 0; c < kNumContenders; ++c) {
      if (built[c]->size() != expected_size) {
        Fail("size after mix", shape.name, kContenders[c].name);
      }
    }
  }
  for (auto& b : built) b.reset();

  for (size_t t = 1; t < kNumThreadCounts; ++t) {
    Progress(shape, "insert, 2 threads");
    for (size_t c = 0; c < kNumContenders; ++c) {
      std::unique_ptr<Contender> fresh = kContenders[c].make();
      r[c] = Insert(fresh.get(), w, kThreadCounts[t]);
      if (fresh->size() != w.n) Fail("size after insert", shape.name, kContenders[c].name);
      res.ns[kInsert][t][c] = r[c].ns_per_op;
    }
  }
  return res;
}

// ---------------------------------------------------------------------------------------------
// Output

// 10000000 -> "10,000,000".
std::string Grouped(size_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void PrintShape(const Shape& shape, const Workload& w, const ShapeResults& res) {
  const char* base = kContenders[kBaseline].name;
  std::printf("\n== %s: %s; %s keys, %.1f bytes/key on average ==\n", shape.name, shape.description,
              Grouped(w.n).c_str(), static_cast<double>(w.key_bytes) / static_cast<double>(w.n));
  std::printf("ns/op: wall-clock ns / ops of all threads (a scan op = 100 entries)\n");
  std::printf("x: %s ns/op / this ns/op, higher = faster (1.00 = %s)\n", base, base);
  std::printf("%-18s %3s", "", "");
  for (const ContenderKind& k : kContenders) std::printf(" %19s", k.name);
  std::printf("\n%-18s %3s", "operation", "thr");
  for (size_t c = 0; c < kNumContenders; ++c) std::printf(" %11s %7s", "ns/op", "x");
  std::printf("\n");
  for (int op = 0; op < kNumOps; ++op) {
    for (size_t t = 0; t < kNumThreadCounts; ++t) {
      std::printf("%-18s %3d", kOpNames[op], kThreadCounts[t]);
      for (size_t c = 0; c < kNumContenders; ++c) {
        double ns = res.ns[op][t][c];
        std::printf(" %11.1f %6.2fx", ns, res.ns[op][t][kBaseline] / ns);
      }
      std::printf("\n");
    }
  }
  std::printf("scaling, 2T/1T throughput (2.00 = perfect)\n");
  for (int op : {kLookup, kMix}) {
    std::printf("%-18s %3s", kOpNames[op], "");
    for (size_t c = 0; c < kNumContenders; ++c) {
      std::printf(" %11.2f %7s", res.ns[op][0][c] / res.ns[op][1][c], "");
    }
    std::printf("\n");
  }
  std::printf("memory after the 1-thread insert; x: this / %s, <= 1.00 = no more than %s\n", base,
              base);
  std::printf("%-18s %3s", "heap bytes/key", "");
  for (size_t c = 0; c < kNumContenders; ++c) {
    std::printf(" %11.1f %6.2fx", res.heap_bytes_per_key[c],
                res.heap_bytes_per_key[c] / res.heap_bytes_per_key[kBaseline]);
  }
  std::printf("\n%-18s %3s", "index bytes/key", "");
  for (size_t c = 0; c < kNumContenders; ++c) {
    std::printf(" %11.1f %6.2fx", res.index_bytes_per_key[c],
                res.index_bytes_per_key[c] / res.index_bytes_per_key[kBaseline]);
  }
  std::printf("\n  (index bytes/key = heap bytes/key - %.1f key bytes - 8 value bytes)\n",
              static_cast<double>(w.key_bytes) / static_cast<double>(w.n));
  std::fflush(stdout);
}

// ---------------------------------------------------------------------------------------------

[[noreturn]] void Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--keys N | --quick] [--shape user|binary|url] [--reps R]\n"
               "  --keys N   keys per shape (default 10000000)\n"
               "  --quick    200000 keys\n"
               "  --shape S  run one key shape only\n"
               "  --reps R   run lookup and scan phases R times, keep the fastest (default 1)\n",
               argv0);
  std::exit(2);
}

bool ParseCount(const char* s, size_t* out) {
  char* end = nullptr;
  unsigned long long v = std::strtoull(s, &end, 10);
  if (end == s || *end != '\0' || v == 0) return false;
  *out = static_cast<size_t>(v);
  return true;
}

int Main(int argc, char** argv) {
  size_t keys = 10'000'000;
  size_t reps = 1;
  std::string_view only;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--quick") {
      keys = 200'000;
    } else if (a == "--keys" && has_value) {
      if (!ParseCount(argv[++i], &keys)) Usage(argv[0]);
    } else if (a == "--reps" && has_value) {
      if (!ParseCount(argv[++i], &reps)) Usage(argv[0]);
    } else if (a == "--shape" && has_value) {
      only = argv[++i];
    } else {
      Usage(argv[0]);
    }
  }
  if (!only.empty() && std::none_of(std::begin(kShapes), std::end(kShapes),
                                    [&](const Shape& s) { return only == s.name; })) {
    Usage(argv[0]);
  }

  // The 2-thread rows mean something only with two idle cores: say how busy the machine was.
  double load[1] = {0};
  getloadavg(load, 1);
  std::printf("index_bench: %s keys per shape, %u hardware threads, load average %.2f, reps %zu\n",
              Grouped(keys).c_str(), std::thread::hardware_concurrency(), load[0], reps);
  for (const Shape& shape : kShapes) {
    if (!only.empty() && only != shape.name) continue;
    Progress(shape, "generating keys");
    Workload w = BuildWorkload(shape, keys);
    ShapeResults res = RunShape(shape, w, static_cast<int>(reps));
    PrintShape(shape, w, res);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  std::printf("\npeak RSS %.0f MB\n", static_cast<double>(ru.ru_maxrss) / 1024.0);
  return 0;
}

}  // namespace
}  // namespace ordis::bench

int main(int argc, char** argv) { return ordis::bench::Main(argc, argv); }
