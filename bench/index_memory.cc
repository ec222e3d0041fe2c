// index_memory: what the learned tree holds per key, and whether deletes give it back (issue 13).
// Every figure comes from OrderedStore::Stats() after Quiesce(): index_bytes (nodes and insert
// buffers) plus key_bytes (key bytes stored in nodes and buffers), divided by the live keys, and
// the leaf and inner-node counts. Keys are stored as the server stores db 0's:
// [db 0x00][space 0x01]key:%012d.
//
//   load      N keys inserted in ascending order, and again in random order, into empty stores;
//             then the same keys bulk-loaded (snapshot loading).
//   window    a sliding window of W live keys with ever-increasing names: Put key i, Erase key
//             i - W, for N Puts (queues, job ids, sessions); then a fresh store given the W keys
//             left, ascending, for comparison.
//   thin      N keys in random order, then 90% of them erased at random; fresh: the 10% left,
//             inserted in random order.
//   drain     N keys, then every key erased (ascending, descending, random).
//   steady    N keys, then 2N random Puts and Erases over 2N ids (the size stays near N): what
//             merges cost a workload that never shrinks.
//
// Usage (bench/index-memory.sh builds Release into build-bench/ and passes its arguments through):
//   index_memory [--keys N] [--window W] [--ops N]
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "index/learned_store.h"
#include "index/ordered_store.h"

namespace ordis::bench {
namespace {

std::string Key(uint64_t i) {
  char buf[32];
  int len = std::snprintf(buf, sizeof(buf), "%c%ckey:%012" PRIu64, 0, 1, i);
  return std::string(buf, static_cast<size_t>(len));
}

struct Figures {
  index::IndexStats s;
  double bytes_per_key() const {
    return s.keys == 0 ? 0.0 : static_cast<double>(s.index_bytes + s.key_bytes) / s.keys;
  }
};

Figures Measure(index::OrderedStore& store) {
  store.Quiesce();
  return {store.Stats()};
}

void Print(const char* what, const Figures& f) {
  std::printf("%-34s keys %9" PRIu64 "  leaves %7" PRIu64 "  inner %5" PRIu64 "  depth %2" PRIu64
              "  index %10" PRIu64 " B  key %9" PRIu64 " B  (index+key)/key %7.1f\n",
              what, f.s.keys, f.s.leaves, f.s.inner_nodes, f.s.depth, f.s.index_bytes,
              f.s.key_bytes, f.bytes_per_key());
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void Load(size_t n) {
  std::printf("== load: %zu keys \\x00\\x01key:%%012d ==\n", n);
  {
    auto store = index::NewLearnedStore();
    for (size_t i = 0; i < n; ++i) store->Put(Key(i), i);
    Print("ascending Put", Measure(*store));
  }
  {
    std::vector<uint64_t> ids(n);
    for (size_t i = 0; i < n; ++i) ids[i] = i;
    std::shuffle(ids.begin(), ids.end(), std::mt19937_64(1));
    auto store = index::NewLearnedStore();
    for (uint64_t id : ids) store->Put(Key(id), id);
    Print("random-order Put", Measure(*store));
  }
  {
    auto store = index::NewLearnedStore();
    size_t i = 0;
    std::string k;
    store->BulkLoad([&](std::string_view* key, index::ValueHandle* value) {
      if (i == n) return false;
      k = Key(i);
      *key = k;
      *value = i++;
      return true;
    });
    Print("bulk load", Measure(*store));
  }
}

void Window(size_t window, size_t ops) {
  std::printf("== window: %zu live keys, %zu Puts each followed by the Erase of key i - %zu ==\n",
              window, ops, window);
  auto store = index::NewLearnedStore();
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < ops; ++i) {
    store->Put(Key(i), i);
    if (i >= window) store->Erase(Key(i - window));
  }
  double secs = Seconds(start);
  Figures churned = Measure(*store);
  Print("after the churn", churned);
  std::printf("  (%.2f s, %.0f ns per Put+Erase; patches %" PRIu64 ", splits %" PRIu64
              ", merges %" PRIu64 ")\n",
              secs, secs * 1e9 / static_cast<double>(ops), churned.s.patches, churned.s.splits,
              churned.s.merges);
  auto fresh = index::NewLearnedStore();
  for (size_t i = ops - std::min(ops, window); i < ops; ++i) fresh->Put(Key(i), i);
  Figures f = Measure(*fresh);
  Print("fresh store, same keys ascending", f);
  std::printf("  churned / fresh (index+key bytes): %.2f\n",
              static_cast<double>(churned.s.index_bytes + churned.s.key_bytes) /
                  static_cast<double>(f.s.index_bytes + f.s.key_bytes));
}

void Thin(size_t n) {
  std::printf("== thin: %zu keys in random order, then 90%% erased at random ==\n", n);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i;
  std::mt19937_64 rng(2);
  std::shuffle(ids.begin(), ids.end(), rng);
  auto store = index::NewLearnedStore();
  for (uint64_t id : ids) store->Put(Key(id), id);
  Print("full", Measure(*store));
  std::shuffle(ids.begin(), ids.end(), rng);
  const size_t erased = n - n / 10;
  for (size_t i = 0; i < erased; ++i) store->Erase(Key(ids[i]));
  Figures thinned = Measure(*store);
  Print("after erasing 90%", thinned);
  auto fresh = index::NewLearnedStore();
  for (size_t i = erased; i < n; ++i) fresh->Put(Key(ids[i]), ids[i]);
  Figures f = Measure(*fresh);
  Print("fresh store, same keys random order", f);
  std::printf("  thinned / fresh (index+key bytes): %.2f\n",
              static_cast<double>(thinned.s.index_bytes + thinned.s.key_bytes) /
                  static_cast<double>(f.s.index_bytes + f.s.key_bytes));
}

void Drain(size_t n) {
  std::printf("== drain: %zu keys, then every key erased ==\n", n);
  for (const char* order : {"ascending", "descending", "random"}) {
    auto store = index::NewLearnedStore();
    std::vector<uint64_t> ids(n);
    for (size_t i = 0; i < n; ++i) ids[i] = i;
    for (uint64_t id : ids) store->Put(Key(id), id);
    if (order[0] == 'd') std::reverse(ids.begin(), ids.end());
    if (order[0] == 'r') std::shuffle(ids.begin(), ids.end(), std::mt19937_64(3));
    for (uint64_t id : ids) store->Erase(Key(id));
    std::string what = std::string("erased ") + order;
    Print(what.c_str(), Measure(*store));
  }
}

void Steady(size_t n) {
  std::printf("== steady: %zu keys, then %zu random Puts and Erases over %zu ids ==\n", n, 2 * n,
              2 * n);
  auto store = index::NewLearnedStore();
  std::mt19937_64 rng(4);
  for (size_t i = 0; i < n; ++i) store->Put(Key(2 * i), i);
  Figures before = Measure(*store);
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < 2 * n; ++i) {
    uint64_t id = rng() % (2 * n);
    if (rng() % 2 == 0) {
      store->Put(Key(id), i);
    } else {
      store->Erase(Key(id));
    }
  }
  double secs = Seconds(start);
  Figures after = Measure(*store);
  Print("after", after);
  std::printf("  (%.0f ns per operation; patches %" PRIu64 ", splits %" PRIu64 ", merges %" PRIu64
              ")\n",
              secs * 1e9 / static_cast<double>(2 * n), after.s.patches - before.s.patches,
              after.s.splits - before.s.splits, after.s.merges - before.s.merges);
}

int Main(int argc, char** argv) {
  size_t keys = 1000000, window = 10000, ops = 3000000;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool has_value = i + 1 < argc;
    if (a == "--keys" && has_value) {
      keys = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--window" && has_value) {
      window = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--ops" && has_value) {
      ops = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: %s [--keys N] [--window W] [--ops N]\n", argv[0]);
      return 2;
    }
  }
  Load(keys);
  Window(window, ops);
  Thin(keys);
  Drain(keys / 10);
  Steady(keys);
  return 0;
}

}  // namespace
}  // namespace ordis::bench

int main(int argc, char** argv) { return ordis::bench::Main(argc, argv); }
