// The learned-index tree (DPA-Store, ../shared/seeds/000 sections 3.1-3.2.4) on CPU threads.
//
// Roles: the callers' threads are DPA-Store's traversers: they descend without locks and serve
// reads from leaves and insert buffers. Writes append to the leaf's insert buffer; the writer that
// fills it posts a patch request. Patcher threads (the paper's host patchers and stitchers in one)
// merge buffer and leaf into new leaves, re-segment, split at the retrain bound, rebuild parents
// bottom-up and publish with one atomic pointer store. Replaced nodes go to epoch reclamation.
//
// Versions (Honeycomb, ../shared/seeds/001 section 3.2): every write, in its leaf's publish turn,
// takes the next global version, publishes its entry and advances the global read version to it,
// under one short mutex (Honeycomb releases versions in order the same way). A reader takes the
// read version once and ignores buffer entries above it; a leaf built by a patch carries the newest
// version it merged and a pointer to the leaf it replaced, so a reader at an older version reads
// the old leaf (still reachable: the reader's epoch guard was entered before it was retired). Every
// read, point or range, therefore sees the state at its read version: scans are linearizable, never
// return a key twice or out of order, and never miss one that existed throughout. A scan moves leaf
// to leaf through their parent when the next leaf is provably current, else by descending again
// from the previous leaf's fence (the paper's "re-descend with the smallest key larger than the
// last returned"): no sibling pointers.
//
// Structure changes are serialized by one mutex held only by patchers while they re-find the
// leaf's parent and publish; merging and model training run outside it, in parallel.
#include "index/learned_store.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/fatal.h"
#include "base/memory.h"
#include "index/epoch.h"
#include "index/hot_cache.h"
#include "index/insert_buffer.h"
#include "index/node.h"

namespace ordis::index {
namespace {

using learned::BufferEntry;
using learned::Found;
using learned::Inner;
using learned::InsertBuffer;
using learned::KeyValue;
using learned::Leaf;
using learned::Node;
using learned::NodeKind;
using learned::Pivot;

constexpr int kMaxDepth = 32;
// A read version above every write's: reads everything published.
constexpr uint64_t kNewest = ~uint64_t{0};
// Retrain bound: a split leaves about a quarter of each new node free, so the next patches are
// absorbed without splitting again.
constexpr double kSplitFill = 0.75;

// Orders buffer entries by key, newest first within a key: the model-key head decides most
// comparisons without touching key bytes.
bool EntryBefore(const InsertBuffer* buf, uint32_t a, uint32_t b) {
  const BufferEntry& x = buf->entries[a];
  const BufferEntry& y = buf->entries[b];
  if (x.head != y.head) return x.head < y.head;
  int c = x.Key().compare(y.Key());
  return c != 0 ? c < 0 : a > b;
}

// Sorts slot numbers of buf by key and keeps each key's newest.
void NewestPerKey(const InsertBuffer* buf, std::vector<uint32_t>* slots) {
  std::sort(slots->begin(), slots->end(),
            [&](uint32_t a, uint32_t b) { return EntryBefore(buf, a, b); });
  slots->erase(std::unique(slots->begin(), slots->end(),
                           [&](uint32_t a, uint32_t b) {
                             return buf->entries[a].head == buf->entries[b].head &&
                                    buf->entries[a].Key() == buf->entries[b].Key();
                           }),
               slots->end());
}

// Compares a buffer entry of leaf with the leaf's key i: model keys first (the entry's head is
// relative to the same leaf), key bytes only on a tie.
int CompareEntry(const BufferEntry& e, const Leaf* leaf, uint32_t i) {
  if (e.head != leaf->mk[i]) return e.head < leaf->mk[i] ? -1 : 1;
  return e.Key().compare(leaf->Key(i));
}

// The calling thread's hot-entry cache, bound to one store at a time. Hit counters reach the
// store in batches so lookups never write a shared cache line.
struct ThreadCache {
  uint64_t store_id = 0;
  HotCache cache;
  uint64_t flushed_lookups = 0;
  uint64_t flushed_hits = 0;
};

std::atomic<uint64_t> g_next_store_id{1};

inline void CpuRelax() { __builtin_ia32_pause(); }

// Spins briefly, then yields: the thread waited on is usually mid-way through a few hundred
// nanoseconds of work, but on an oversubscribed machine it may need this core to finish.
template <typename Done>
void WaitUntil(Done done) {
  for (int i = 0; !done(); ++i) {
    if (i < 64) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
}

void DeleteLeafThunk(void* p) { learned::DeleteLeaf(static_cast<Leaf*>(p)); }
void DeleteInnerThunk(void* p) { learned::DeleteInner(static_cast<Inner*>(p)); }

// One end of a key range.
struct Bound {
  std::string_view key;
  bool inclusive = true;
  bool unbounded = true;
};

// A root-to-leaf descent: the inner nodes passed and the child index taken in each.
struct Path {
  Inner* nodes[kMaxDepth] = {};
  int idx[kMaxDepth] = {};
  int depth = 0;
  Leaf* leaf = nullptr;

  // The least key the leaf may hold (its pivot in the deepest inner node).
  std::string_view LowFence() const {
    return nodes[depth - 1]->Key(static_cast<uint32_t>(idx[depth - 1]));
  }
  // The least key of the next leaf, or unbounded for the last leaf.
  Bound HighFence() const {
    for (int d = depth - 1; d >= 0; --d) {
      if (static_cast<uint32_t>(idx[d]) + 1 < nodes[d]->n) {
        return {nodes[d]->Key(static_cast<uint32_t>(idx[d]) + 1), false, false};
      }
    }
    return {};
  }
};

struct PatchRequest {
  Leaf* leaf;
  std::string fence;  // the leaf's low fence: routes a descent to it
};

class LearnedStore final : public OrderedStore {
 public:
  explicit LearnedStore(const LearnedStoreOptions& options) : opt_(Sanitize(options)) {
    Leaf* leaf = learned::NewLeaf({}, 0, nullptr, 0);
    Pivot p{std::string_view(), leaf};
    root_.store(learned::NewInners({&p, 1}, opt_.inner_error, 1.0).front());
    for (int i = 0; i < opt_.patcher_threads; ++i)
      patchers_.emplace_back([this] {
        base::MemoryAccountedThread accounted;  // the nodes live on after the thread
        PatchLoop();
      });
  }

  ~LearnedStore() override {
    {
      std::lock_guard lock(queue_mu_);
      stop_ = true;
    }
    queue_cv_.notify_all();
    for (std::thread& t : patchers_) t.join();
    // Requests still queued: a claimed leaf was already replaced (a writer helped) and waits for
    // this request's release; an unclaimed one is still in the tree, freed with it.
    for (const PatchRequest& r : queue_) {
      if (r.leaf->claimed.load(std::memory_order_acquire) != 0) Release(r.leaf);
    }
    FreeTree(root_.load());
  }

  std::optional<ValueHandle> Get(std::string_view key) const override {
    return GetHashed(key, HashKey(key));
  }

  std::optional<ValueHandle> GetHashed(std::string_view key, uint64_t hash) const {
    if (!opt_.hot_cache) return Lookup(key, hash);
    ThreadCache& tc = LocalCache();
    // The stamp is read before the lookup: a write beginning after it invalidates the entry.
    uint64_t stamp = stamps_.Load(hash);
    if (auto hit = tc.cache.Lookup(key, hash, stamp)) {
      CountCache(tc);
      return hit;
    }
    std::optional<ValueHandle> found = Lookup(key, hash);
    if (found) tc.cache.Offer(key, hash, *found, stamp);
    CountCache(tc);
    return found;
  }

  void GetBatch(std::span<const std::string_view> keys,
                std::span<std::optional<ValueHandle>> found) const override {
    constexpr size_t kGroup = 32;
    for (size_t base = 0; base < keys.size(); base += kGroup) {
      size_t n = std::min(kGroup, keys.size() - base);
      GetGroup(keys.subspan(base, n), found.subspan(base, n));
    }
  }

  std::optional<ValueHandle> Put(std::string_view key, ValueHandle value) override {
    return Write(key, HashKey(key), value, /*erase=*/false);
  }

  std::optional<ValueHandle> Erase(std::string_view key) override {
    // An absent key needs no delete marker (and no buffer slot).
    const uint64_t hash = HashKey(key);
    if (!GetHashed(key, hash)) return std::nullopt;
    return Write(key, hash, 0, /*erase=*/true);
  }

  void Scan(const ScanStart& start, Direction direction, ScanVisitor visit) const override {
    EpochGuard guard(epochs_);
    uint64_t read_version = read_version_.load(std::memory_order_acquire);
    std::vector<uint32_t> scratch;  // not thread_local: a visitor may scan too
    Path path;
    if (direction == Direction::kForward) {
      Bound from{start.key, start.inclusive, start.unbounded};
      Descend(from.unbounded ? std::string_view() : from.key, false, false, &path);
      for (bool first = true;; first = false) {
        Bound to = path.HighFence();
        const Leaf* leaf = Resolve(path.leaf, read_version);
        // A current leaf holds only keys within its fences, so past the first leaf neither bound
        // needs a search; an older version (prev) covers a wider range and needs both.
        const bool current = leaf == path.leaf;
        Bound lower = first || !current ? from : Bound{};
        Bound upper = current ? Bound{} : to;
        if (!VisitRange(leaf, read_version, lower, upper, false, visit, &scratch)) return;
        if (to.unbounded) return;
        from = {to.key, true, false};
        if (!StepToSibling(&path, +1)) Descend(from.key, false, false, &path);
      }
    }
    Bound upto{start.key, start.inclusive, start.unbounded};
    if (!upto.unbounded && !upto.inclusive && upto.key.empty()) return;  // nothing below ""
    Descend(upto.key, !upto.inclusive, upto.unbounded, &path);
    for (bool first = true;; first = false) {
      std::string_view low = path.LowFence();
      const Leaf* leaf = Resolve(path.leaf, read_version);
      const bool current = leaf == path.leaf;
      Bound lower = current ? Bound{} : Bound{low, true, false};
      Bound upper = first || !current ? upto : Bound{};
      if (!VisitRange(leaf, read_version, lower, upper, true, visit, &scratch)) return;
      if (low.empty()) return;  // the first leaf: its fence is the empty key
      upto = {low, false, false};
      if (!StepToSibling(&path, -1)) Descend(upto.key, true, false, &path);
    }
  }

  // Moves path to the leaf beside its leaf (step +1: next, -1: previous) through their parent,
  // sparing a descent from the root, when that is as good as one: the sibling has not been
  // replaced. A leaf is replaced only after its insert buffer fills, so a sibling whose buffer is
  // not full when looked at is current; anything written to its range after that look has a
  // version above this scan's. False when the step would leave the parent or the sibling's
  // buffer is full (the caller descends again).
  static bool StepToSibling(Path* path, int step) {
    const int d = path->depth - 1;
    const int next = path->idx[d] + step;
    Inner* parent = path->nodes[d];
    if (next < 0 || static_cast<uint32_t>(next) >= parent->n) return false;
    auto* leaf = static_cast<Leaf*>(parent->child[next].load(std::memory_order_acquire));
    const InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
    if (buf != nullptr && buf->reserved.load(std::memory_order_acquire) >= buf->capacity) {
      return false;
    }
    path->idx[d] = next;
    path->leaf = leaf;
    return true;
  }

  std::string RandomPoint(std::string_view lo, std::string_view hi,
                          uint64_t random) const override {
    EpochGuard guard(epochs_);
    // Each level consumes a few bits; mixing keeps levels independent for any input.
    auto next = [&](uint64_t n) {
      random = random * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
      return n == 0 ? 0 : (random >> 17) % n;
    };
    // An edge leaf of the range may hold nothing in it: a few more tries, then the range's start.
    for (int attempt = 0; attempt < 4; ++attempt) {
      Node* node = root_.load(std::memory_order_acquire);
      while (node->kind == NodeKind::kInner) {
        auto* in = static_cast<Inner*>(node);
        int first = std::max(0, in->ChildFor(lo, false));
        int last = std::max(first, in->ChildFor(hi, true));
        node = in->child[first + next(last - first + 1)].load(std::memory_order_acquire);
      }
      const Leaf* leaf = static_cast<Leaf*>(node);
      const uint32_t begin = leaf->Search(lo).pos, end = leaf->Search(hi).pos;
      if (begin < end)
        return std::string(leaf->Key(begin + static_cast<uint32_t>(next(end - begin))));
      // A leaf with no key in range yet may have some in its buffer (a small store may hold all
      // its keys in buffers). Entries are read below `published` only, which never change.
      constexpr uint32_t kMaxBuffered = 64;  // of longer buffers, the first 64 entries
      uint32_t buffered[kMaxBuffered];
      uint32_t nbuffered = 0;
      const InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
      if (buf != nullptr) {
        uint32_t n = std::min(buf->published.load(std::memory_order_acquire), buf->capacity);
        for (uint32_t i = 0; i < n && nbuffered < kMaxBuffered; ++i) {
          const BufferEntry& e = buf->entries[i];
          if (!e.erase && e.Key() >= lo && e.Key() < hi) buffered[nbuffered++] = i;
        }
      }
      if (nbuffered > 0) return std::string(buf->entries[buffered[next(nbuffered)]].Key());
    }
    return std::string(lo);
  }

  size_t size() const override {
    int64_t n = keys_.load(std::memory_order_relaxed);
    return n < 0 ? 0 : static_cast<size_t>(n);
  }

  void BulkLoad(BulkSource next) override;
  void Clear() override;
  IndexStats Stats() const override;
  void Quiesce() override {
    queue_cv_.notify_all();
    std::unique_lock lock(queue_mu_);
    idle_cv_.wait(lock, [&] { return queue_.empty() && in_flight_ == 0; });
    lock.unlock();
    // Readers pin at most the last two epochs; a few rounds free everything they do not hold.
    for (int i = 0; i < 8 && epochs_.Reclaim() > 0; ++i) std::this_thread::yield();
  }

 private:
  uint32_t LeafError() const { return static_cast<uint32_t>(opt_.leaf_error); }

  static LearnedStoreOptions Sanitize(LearnedStoreOptions o) {
    o.leaf_error = std::max(o.leaf_error, 0);
    o.inner_error = std::max(o.inner_error, 0);
    o.leaf_capacity = std::max(o.leaf_capacity, 2);
    o.insert_buffer = std::max(o.insert_buffer, 1);
    o.patcher_threads = std::max(o.patcher_threads, 1);
    return o;
  }

  // Descends to the leaf whose range holds key (strict: the leaf holding the greatest keys <
  // key; rightmost: the last leaf).
  void Descend(std::string_view key, bool strict, bool rightmost, Path* path) const {
    Node* node = root_.load(std::memory_order_acquire);
    path->depth = 0;
    while (node->kind == NodeKind::kInner) {
      auto* in = static_cast<Inner*>(node);
      int i = rightmost ? static_cast<int>(in->n) - 1 : std::max(0, in->ChildFor(key, strict));
      path->nodes[path->depth] = in;
      path->idx[path->depth] = i;
      ++path->depth;
      node = in->child[i].load(std::memory_order_acquire);
    }
    path->leaf = static_cast<Leaf*>(node);
  }

  Leaf* FindLeaf(std::string_view key) const {
    Node* node = root_.load(std::memory_order_acquire);
    while (node->kind == NodeKind::kInner) {
      auto* in = static_cast<Inner*>(node);
      node = in->child[in->ChildFor(key, false)].load(std::memory_order_acquire);
      PrefetchHeader(node);
    }
    return static_cast<Leaf*>(node);
  }

  // A node's first lines: metadata and segment first keys, then the segment models.
  static void PrefetchHeader(const Node* node) {
    __builtin_prefetch(node);
    __builtin_prefetch(reinterpret_cast<const char*>(node) + 64);
    __builtin_prefetch(reinterpret_cast<const char*>(node) + 128);
  }

  // The version of leaf a reader at read_version must see.
  static const Leaf* Resolve(const Leaf* leaf, uint64_t read_version) {
    while (leaf->version > read_version) leaf = leaf->prev;
    return leaf;
  }

  static std::optional<ValueHandle> ReadLeaf(const Leaf* leaf, std::string_view key, uint64_t hash,
                                             uint64_t read_version) {
    leaf = Resolve(leaf, read_version);
    const InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
    if (buf != nullptr) {
      // The buffer's lines load while the leaf is searched (the paper's prefetch of the insert
      // buffer during the model computation); the buffer still decides first.
      __builtin_prefetch(buf);
      __builtin_prefetch(buf->tags);
    }
    Found f = leaf->Search(key);
    if (buf != nullptr) {
      uint32_t n = std::min(buf->published.load(std::memory_order_acquire), buf->capacity);
      const uint32_t tag = InsertBuffer::Tag(hash);
      for (uint32_t i = n; i-- > 0;) {
        if (buf->tags[i] != tag) continue;
        const BufferEntry& e = buf->entries[i];
        if (e.version > read_version || e.Key() != key) continue;
        if (e.erase) return std::nullopt;
        return e.value;
      }
    }
    if (!f.exact) return std::nullopt;
    return leaf->handles[f.pos];
  }

  // GetBatch of at most 32 keys: hot-cache hits first, then the misses descend level by level
  // together, each next node prefetched, so their cache misses overlap instead of queueing.
  void GetGroup(std::span<const std::string_view> keys,
                std::span<std::optional<ValueHandle>> found) const {
    const size_t n = keys.size();
    uint64_t hash[32], stamp[32];
    uint8_t miss[32];
    size_t misses = 0;
    ThreadCache* tc = opt_.hot_cache ? &LocalCache() : nullptr;
    for (size_t i = 0; i < n; ++i) {
      hash[i] = HashKey(keys[i]);
      if (tc != nullptr) {
        stamp[i] = stamps_.Load(hash[i]);
        if (auto hit = tc->cache.Lookup(keys[i], hash[i], stamp[i])) {
          found[i] = hit;
          continue;
        }
      }
      miss[misses++] = static_cast<uint8_t>(i);
    }
    if (misses > 0) {
      EpochGuard guard(epochs_);
      uint64_t read_version = read_version_.load(std::memory_order_acquire);
      Node* at[32];
      Node* root = root_.load(std::memory_order_acquire);
      for (size_t m = 0; m < misses; ++m) at[m] = root;
      // Two passes per level: the first evaluates every key's model and prefetches its search
      // window, the second searches (lines now arriving) and prefetches the child's header.
      for (bool inner = true; inner;) {
        inner = false;
        for (size_t m = 0; m < misses; ++m) {
          if (at[m]->kind == NodeKind::kInner) {
            static_cast<Inner*>(at[m])->PrefetchFor(keys[miss[m]]);
          } else {
            auto* leaf = static_cast<Leaf*>(at[m]);
            leaf->PrefetchFor(keys[miss[m]]);
            if (const InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire)) {
              InsertBuffer::Prefetch(buf, static_cast<uint32_t>(opt_.insert_buffer));
            }
          }
        }
        for (size_t m = 0; m < misses; ++m) {
          if (at[m]->kind != NodeKind::kInner) continue;
          auto* in = static_cast<Inner*>(at[m]);
          at[m] = in->child[in->ChildFor(keys[miss[m]], false)].load(std::memory_order_acquire);
          PrefetchHeader(at[m]);
          inner = true;
        }
      }
      for (size_t m = 0; m < misses; ++m) {
        size_t i = miss[m];
        found[i] = ReadLeaf(static_cast<Leaf*>(at[m]), keys[i], hash[i], read_version);
        // A batch announces its keys (the request pre-parser): admit them all, so the command's
        // own Get that follows is a cache hit rather than a second descent.
        if (tc != nullptr && found[i]) {
          tc->cache.Offer(keys[i], hash[i], *found[i], stamp[i], /*force=*/true);
        }
      }
    }
    if (tc != nullptr) CountCache(*tc);
  }

  std::optional<ValueHandle> Lookup(std::string_view key, uint64_t hash) const {
    EpochGuard guard(epochs_);
    uint64_t read_version = read_version_.load(std::memory_order_acquire);
    return ReadLeaf(FindLeaf(key), key, hash, read_version);
  }

  ThreadCache& LocalCache() const {
    thread_local ThreadCache tc;
    if (tc.store_id != id_) {
      tc.cache.Clear();
      tc.store_id = id_;
      tc.flushed_lookups = tc.cache.lookups();
      tc.flushed_hits = tc.cache.hits();
    }
    return tc;
  }

  void CountCache(ThreadCache& tc) const {
    uint64_t lookups = tc.cache.lookups();
    if (lookups - tc.flushed_lookups < 1024) return;
    cache_lookups_.fetch_add(lookups - tc.flushed_lookups, std::memory_order_relaxed);
    cache_hits_.fetch_add(tc.cache.hits() - tc.flushed_hits, std::memory_order_relaxed);
    tc.flushed_lookups = lookups;
    tc.flushed_hits = tc.cache.hits();
  }

  std::optional<ValueHandle> Write(std::string_view key, uint64_t hash, ValueHandle value,
                                   bool erase) {
    // Other threads' cached entries for this key die with the stamp bump; the write must be
    // visible (read version released) before EndWrite.
    if (opt_.hot_cache) stamps_.BeginWrite(hash);
    std::optional<ValueHandle> old = Append(key, hash, value, erase);
    if (opt_.hot_cache) stamps_.EndWrite(hash);
    return old;
  }

  std::optional<ValueHandle> Append(std::string_view key, uint64_t hash, ValueHandle value,
                                    bool erase) {
    EpochGuard guard(epochs_);
    for (;;) {
      Path path;
      Descend(key, false, false, &path);
      Leaf* leaf = path.leaf;
      InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
      if (buf == nullptr) {
        // Buffers are allocated on a leaf's first write: read-mostly leaves do not pay for one.
        InsertBuffer* fresh = InsertBuffer::New(static_cast<uint32_t>(opt_.insert_buffer));
        if (leaf->buffer.compare_exchange_strong(buf, fresh, std::memory_order_acq_rel)) {
          buf = fresh;
        } else {
          InsertBuffer::Delete(fresh);
        }
      }
      uint32_t slot = buf->reserved.fetch_add(1, std::memory_order_acq_rel);
      if (slot >= buf->capacity) {
        // Full: help rather than wait. Once every slot is published, the first to claim the
        // patch (this writer or a patcher thread) applies it; the others wait for the leaves
        // that replace this one and retry there. Helping spares the writer a patcher's wake-up
        // latency, which on a loaded machine is far longer than the patch itself.
        if (buf->published.load(std::memory_order_acquire) == buf->capacity &&
            leaf->claimed.exchange(1, std::memory_order_acq_rel) == 0) {
          Patch({leaf, std::string(path.LowFence())});
        } else {
          WaitUntil([&] { return leaf->retired.load(std::memory_order_acquire) != 0; });
        }
        continue;
      }
      WaitUntil([&] { return buf->published.load(std::memory_order_acquire) == slot; });
      std::optional<ValueHandle> old;
      {
        // Version, entry and read-version release in one short critical section, so versions
        // are released in order without writers spinning on each other: a writer preempted here
        // makes the others sleep on the mutex instead of burning the cores it needs.
        std::lock_guard lock(publish_mu_);
        // Holding the turn, the buffer's published entries are exactly those before `slot`, and
        // the leaf is current: the newest version of everything is the key's present value.
        old = ReadLeaf(leaf, key, hash, kNewest);
        uint64_t version = read_version_.load(std::memory_order_relaxed) + 1;
        BufferEntry& e = buf->entries[slot];
        e.version = version;
        e.head = leaf->Head(key);
        buf->tags[slot] = InsertBuffer::Tag(hash);
        e.value = value;
        e.key = buf->CopyKey(key);
        e.len = static_cast<uint32_t>(key.size());
        e.erase = erase;
        buf->published.store(slot + 1, std::memory_order_release);
        read_version_.store(version, std::memory_order_release);
      }

      if (!erase && !old) keys_.fetch_add(1, std::memory_order_relaxed);
      if (erase && old) keys_.fetch_sub(1, std::memory_order_relaxed);
      if (slot + 1 == buf->capacity) PostPatch(leaf, path.LowFence());
      return old;
    }
  }

  // Entries of leaf (resolved to read_version) in [from, to), buffer entries included, in order.
  // Visits the entries of leaf (resolved to read_version) in [from, to], buffer entries merged
  // in, in key order or reverse; false when the visitor stopped.
  static bool VisitRange(const Leaf* leaf, uint64_t read_version, const Bound& from,
                         const Bound& to, bool reverse, ScanVisitor visit,
                         std::vector<uint32_t>* scratch);

  // Patchers are woken only when requests pile up; otherwise they poll every kPatchPoll. A
  // wake-up per request cost 23% of the server's CPU under SET -P 16 (futex wake and context
  // switch: perf, _raw_spin_unlock_irqrestore and finish_task_switch). A full leaf never waits
  // for the poll: the next writer to it applies the patch itself.
  static constexpr size_t kWakeBacklog = 16;
  static constexpr std::chrono::milliseconds kPatchPoll{1};

  void PostPatch(Leaf* leaf, std::string_view fence) {
    bool wake;
    {
      std::lock_guard lock(queue_mu_);
      queue_.push_back({leaf, std::string(fence)});
      ++in_flight_;
      wake = queue_.size() >= kWakeBacklog;
    }
    if (wake) queue_cv_.notify_one();
  }

  // Drops one owner of a patched leaf; the last retires it.
  void Release(Leaf* leaf) {
    if (leaf->owners.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      epochs_.Retire(leaf, DeleteLeafThunk);
    }
  }

  void PatchLoop();
  void Patch(const PatchRequest& request);
  std::vector<Leaf*> BuildLeaves(std::span<const KeyValue> entries, uint64_t version,
                                 Leaf* prev) const;
  void Replace(const Path& path, std::string_view fence, const std::vector<Leaf*>& leaves);
  void FreeTree(Node* node);
  void RetireTree(Node* node);

  const LearnedStoreOptions opt_;
  std::atomic<Node*> root_{nullptr};
  // Every write takes the next version and releases it before it returns (publish_mu_), so the
  // read version is also the newest version taken.
  std::mutex publish_mu_;
  std::atomic<uint64_t> read_version_{0};
  std::atomic<int64_t> keys_{0};
  mutable EpochDomain epochs_;

  mutable std::mutex structure_mu_;  // patchers' structural changes; Stats' walk

  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::condition_variable idle_cv_;
  std::deque<PatchRequest> queue_;  // GUARDED_BY(queue_mu_)
  int in_flight_ = 0;               // GUARDED_BY(queue_mu_): posted, not yet applied
  bool stop_ = false;               // GUARDED_BY(queue_mu_)
  std::vector<std::thread> patchers_;

  std::atomic<uint64_t> patches_{0};
  std::atomic<uint64_t> splits_{0};

  const uint64_t id_ = g_next_store_id.fetch_add(1);
  mutable WriteStamps stamps_;
  mutable std::atomic<uint64_t> cache_lookups_{0};
  mutable std::atomic<uint64_t> cache_hits_{0};
};

bool LearnedStore::VisitRange(const Leaf* leaf, uint64_t read_version, const Bound& from,
                              const Bound& to, bool reverse, ScanVisitor visit,
                              std::vector<uint32_t>* scratch) {
  auto after_from = [&](std::string_view k) {
    return from.unbounded || (from.inclusive ? k >= from.key : k > from.key);
  };
  auto before_to = [&](std::string_view k) {
    return to.unbounded || (to.inclusive ? k <= to.key : k < to.key);
  };
  uint32_t begin = 0, end = leaf->n;
  if (!from.unbounded) {
    Found f = leaf->Search(from.key);
    begin = f.pos + (f.exact && !from.inclusive ? 1 : 0);
  }
  if (!to.unbounded) {
    Found f = leaf->Search(to.key);
    end = f.pos + (f.exact && to.inclusive ? 1 : 0);
  }
  end = std::max(begin, end);

  // Buffer entries in range and visible at read_version, newest per key, in key order.
  const InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
  scratch->clear();
  if (buf != nullptr) {
    uint32_t n = std::min(buf->published.load(std::memory_order_acquire), buf->capacity);
    for (uint32_t i = 0; i < n; ++i) {
      const BufferEntry& e = buf->entries[i];
      if (e.version <= read_version && after_from(e.Key()) && before_to(e.Key())) {
        scratch->push_back(i);
      }
    }
    NewestPerKey(buf, scratch);
  }
  // Merge leaf [begin, end) with the buffer entries, which win on equal keys and hide deleted
  // ones, visiting in the scan's direction.
  const size_t m = scratch->size();
  if (!reverse) {
    size_t j = 0;
    for (uint32_t i = begin; i < end || j < m;) {
      if (j < m) {
        const BufferEntry& e = buf->entries[(*scratch)[j]];
        int c = i < end ? CompareEntry(e, leaf, i) : -1;
        if (c <= 0) {
          if (!e.erase && !visit(e.Key(), e.value)) return false;
          ++j;
          if (c == 0) ++i;
          continue;
        }
      }
      if (!visit(leaf->Key(i), leaf->handles[i])) return false;
      ++i;
    }
    return true;
  }
  size_t j = m;
  for (uint32_t i = end; i > begin || j > 0;) {
    if (j > 0) {
      const BufferEntry& e = buf->entries[(*scratch)[j - 1]];
      int c = i > begin ? CompareEntry(e, leaf, i - 1) : 1;
      if (c >= 0) {
        if (!e.erase && !visit(e.Key(), e.value)) return false;
        --j;
        if (c == 0) --i;
        continue;
      }
    }
    --i;
    if (!visit(leaf->Key(i), leaf->handles[i])) return false;
  }
  return true;
}

void LearnedStore::PatchLoop() {
  // The poll backs off while there is no work, so an idle server's patchers stay asleep.
  std::chrono::milliseconds poll = kPatchPoll;
  for (;;) {
    PatchRequest request;
    {
      std::unique_lock lock(queue_mu_);
      queue_cv_.wait_for(lock, poll, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      if (queue_.empty()) {
        poll = std::min(poll * 2, std::chrono::milliseconds(128));
        continue;
      }
      poll = kPatchPoll;
      request = std::move(queue_.front());
      queue_.pop_front();
    }
    if (request.leaf->claimed.exchange(1, std::memory_order_acq_rel) == 0) Patch(request);
    Release(request.leaf);
    {
      std::lock_guard lock(queue_mu_);
      --in_flight_;
      if (queue_.empty() && in_flight_ == 0) idle_cv_.notify_all();
    }
  }
}

void LearnedStore::Patch(const PatchRequest& request) {
  EpochGuard guard(epochs_);
  Leaf* old = request.leaf;
  const InsertBuffer* buf = old->buffer.load(std::memory_order_acquire);
  // The poster filled the last slot after every earlier slot was published: all are readable.
  const uint32_t cap = buf->capacity;

  // The leaf's entries with the buffer's merged in, as a scan at the newest version sees them.
  std::vector<KeyValue> merged;
  merged.reserve(old->n + cap);
  std::vector<uint32_t> scratch;
  VisitRange(
      old, kNewest, Bound{}, Bound{}, false,
      [&](std::string_view key, ValueHandle value) {
        merged.push_back({key, value});
        return true;
      },
      &scratch);

  // Versions rise with slots (each is taken in its slot's publish turn): the last is the newest.
  // The new leaves may be published only once the read version covers it, or a reader entering
  // after `old` is retired could still be sent to it through `prev`.
  const uint64_t version = buf->entries[cap - 1].version;
  std::vector<Leaf*> leaves = BuildLeaves(merged, version, old);
  WaitUntil([&] { return read_version_.load(std::memory_order_acquire) >= version; });
  if (leaves.size() > 1) splits_.fetch_add(leaves.size() - 1, std::memory_order_relaxed);
  {
    std::lock_guard lock(structure_mu_);
    Path path;
    Descend(request.fence, false, false, &path);
    if (path.leaf != old) {
      // Only patchers change structure, under this lock, and a leaf is posted once.
      Fatal("ordis: index patch lost its leaf (fence " + std::to_string(request.fence.size()) +
            " bytes)");
    }
    Replace(path, request.fence, leaves);
  }
  old->retired.store(1, std::memory_order_release);
  Release(old);
  patches_.fetch_add(1, std::memory_order_relaxed);
  epochs_.Reclaim();
}

std::vector<Leaf*> LearnedStore::BuildLeaves(std::span<const KeyValue> entries, uint64_t version,
                                             Leaf* prev) const {
  std::vector<Leaf*> out;
  const size_t cap = static_cast<size_t>(opt_.leaf_capacity);
  if (entries.size() <= cap) {
    out.push_back(learned::NewLeaf(entries, version, prev, LeafError()));
    return out;
  }
  // PLA segmentation with the leaf error bound, each segment a leaf of at most the retrain
  // bound; segments far below it are joined with their neighbour so skewed keys do not leave
  // a trail of tiny leaves.
  const size_t prefix = learned::CommonPrefix(entries.front().key, entries.back().key);
  std::vector<uint64_t> mks(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) mks[i] = learned::ModelKey(entries[i].key, prefix);
  const size_t max_count = std::max<size_t>(1, static_cast<size_t>(cap * kSplitFill));
  std::vector<Segment> segs = SegmentPla(mks, static_cast<uint32_t>(opt_.leaf_error), max_count);
  size_t start = 0, count = 0;
  for (const Segment& seg : segs) {
    if (count > 0 && count + seg.count > max_count) {
      out.push_back(learned::NewLeaf(entries.subspan(start, count), version, prev, LeafError()));
      start += count;
      count = 0;
    }
    count += seg.count;
    if (count >= max_count / 2) {
      out.push_back(learned::NewLeaf(entries.subspan(start, count), version, prev, LeafError()));
      start += count;
      count = 0;
    }
  }
  if (count > 0)
    out.push_back(learned::NewLeaf(entries.subspan(start, count), version, prev, LeafError()));
  return out;
}

void LearnedStore::Replace(const Path& path, std::string_view fence,
                           const std::vector<Leaf*>& leaves) {
  std::vector<Pivot> replacement;
  for (size_t k = 0; k < leaves.size(); ++k) {
    replacement.push_back({k == 0 ? fence : leaves[k]->Key(0), leaves[k]});
  }
  std::vector<Inner*> retired;
  for (int level = path.depth - 1;; --level) {
    if (replacement.size() == 1) {
      // One node replaces one: a single pointer store publishes everything below it.
      if (level < 0) {
        root_.store(replacement[0].child, std::memory_order_release);
      } else {
        path.nodes[level]->child[path.idx[level]].store(replacement[0].child,
                                                        std::memory_order_release);
      }
      break;
    }
    std::vector<Pivot> pivots;
    double fill = kSplitFill;
    if (level < 0) {
      pivots = replacement;  // the root split: a new root above its parts
      fill = 1.0;
    } else {
      Inner* parent = path.nodes[level];
      const uint32_t at = static_cast<uint32_t>(path.idx[level]);
      pivots.reserve(parent->n + replacement.size());
      for (uint32_t c = 0; c < at; ++c) {
        pivots.push_back({parent->Key(c), parent->child[c].load(std::memory_order_relaxed)});
      }
      pivots.insert(pivots.end(), replacement.begin(), replacement.end());
      for (uint32_t c = at + 1; c < parent->n; ++c) {
        pivots.push_back({parent->Key(c), parent->child[c].load(std::memory_order_relaxed)});
      }
      retired.push_back(parent);
    }
    std::vector<Inner*> made =
        learned::NewInners(pivots, static_cast<uint32_t>(opt_.inner_error), fill);
    if (made.size() > 1 && level >= 0)
      splits_.fetch_add(made.size() - 1, std::memory_order_relaxed);
    replacement.clear();
    for (Inner* in : made) replacement.push_back({in->Key(0), in});
    if (level < 0) {
      ++level;  // keep building above until one node remains; it becomes the root
      if (made.size() == 1) {
        root_.store(made[0], std::memory_order_release);
        break;
      }
    }
  }
  for (Inner* in : retired) epochs_.Retire(in, DeleteInnerThunk);
}

void LearnedStore::FreeTree(Node* node) {
  if (node->kind == NodeKind::kLeaf) {
    learned::DeleteLeaf(static_cast<Leaf*>(node));
    return;
  }
  auto* in = static_cast<Inner*>(node);
  for (uint32_t i = 0; i < in->n; ++i) FreeTree(in->child[i].load(std::memory_order_relaxed));
  learned::DeleteInner(in);
}

void LearnedStore::BulkLoad(BulkSource next) {
  // Keys are only valid until the next call: pack them first.
  std::string bytes;
  std::vector<size_t> starts{0};
  std::vector<ValueHandle> values;
  std::string_view key;
  ValueHandle value;
  while (next(&key, &value)) {
    bytes.append(key);
    starts.push_back(bytes.size());
    values.push_back(value);
  }
  std::vector<KeyValue> entries(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    entries[i] = {std::string_view(bytes).substr(starts[i], starts[i + 1] - starts[i]), values[i]};
  }

  std::vector<Leaf*> leaves;
  if (entries.empty()) {
    leaves.push_back(learned::NewLeaf({}, 0, nullptr, 0));
  } else {
    // Leaves as patches cut them (PLA segments within the retrain bound), a window of keys at
    // a time so each window's model keys start after its own common prefix.
    const size_t window = static_cast<size_t>(opt_.leaf_capacity) * 16;
    for (size_t at = 0; at < entries.size();) {
      size_t end = std::min(entries.size(), at + window);
      std::vector<Leaf*> part = BuildLeaves(std::span(entries).subspan(at, end - at), 0, nullptr);
      leaves.insert(leaves.end(), part.begin(), part.end());
      at = end;
    }
  }
  std::vector<Pivot> level;
  for (size_t i = 0; i < leaves.size(); ++i) {
    level.push_back({i == 0 ? std::string_view() : leaves[i]->Key(0), leaves[i]});
  }
  for (;;) {
    std::vector<Inner*> made =
        learned::NewInners(level, static_cast<uint32_t>(opt_.inner_error), 1.0);
    level.clear();
    for (Inner* in : made) level.push_back({in->Key(0), in});
    if (made.size() == 1) break;
  }
  Node* old = root_.exchange(level[0].child, std::memory_order_acq_rel);
  FreeTree(old);
  keys_.store(static_cast<int64_t>(entries.size()), std::memory_order_relaxed);
}

void LearnedStore::Clear() {
  // Patches still queued refer to leaves of the tree being dropped: let them finish first (no
  // writer can post more, by the precondition).
  Quiesce();
  Leaf* leaf = learned::NewLeaf({}, 0, nullptr, 0);
  Pivot p{std::string_view(), leaf};
  Inner* fresh = learned::NewInners({&p, 1}, static_cast<uint32_t>(opt_.inner_error), 1.0).front();
  {
    std::lock_guard lock(structure_mu_);
    Node* old = root_.exchange(fresh, std::memory_order_acq_rel);
    RetireTree(old);  // readers still inside it finish before it is freed
    keys_.store(0, std::memory_order_relaxed);
  }
  // Every thread's cached entries die with a bump of every stamp stripe.
  for (size_t s = 0; s < WriteStamps::kStripes; ++s) {
    const uint64_t stripe_hash = uint64_t{s} << 52;
    stamps_.BeginWrite(stripe_hash);
    stamps_.EndWrite(stripe_hash);
  }
  epochs_.Reclaim();
}

void LearnedStore::RetireTree(Node* node) {
  if (node->kind == NodeKind::kLeaf) {
    epochs_.Retire(node, DeleteLeafThunk);
    return;
  }
  auto* in = static_cast<Inner*>(node);
  for (uint32_t i = 0; i < in->n; ++i) RetireTree(in->child[i].load(std::memory_order_relaxed));
  epochs_.Retire(in, DeleteInnerThunk);
}

IndexStats LearnedStore::Stats() const {
  IndexStats s;
  std::lock_guard lock(structure_mu_);
  EpochGuard guard(epochs_);
  uint64_t error_sum = 0, models = 0;
  struct Walker {
    IndexStats& s;
    uint64_t& error_sum;
    uint64_t& models;
    void AddModels(const learned::SegModel* seg, int nseg) {
      for (int g = 0; g < nseg; ++g) {
        error_sum += seg[g].error;
        ++models;
        s.max_model_error = std::max<uint64_t>(s.max_model_error, seg[g].error);
      }
    }
    void Visit(const Node* node, uint64_t depth) {
      s.depth = std::max(s.depth, depth);
      if (node->kind == NodeKind::kLeaf) {
        auto* leaf = static_cast<const Leaf*>(node);
        ++s.leaves;
        AddModels(leaf->seg, leaf->nseg);
        s.index_bytes += leaf->bytes - leaf->key_bytes;
        s.key_bytes += leaf->key_bytes;
        if (const InsertBuffer* b = leaf->buffer.load(std::memory_order_acquire)) {
          uint32_t used = std::min(b->published.load(std::memory_order_acquire), b->capacity);
          s.buffer_slots += b->capacity;
          s.buffered_entries += used;
          s.index_bytes += b->bytes();
          for (uint32_t i = 0; i < used; ++i) s.key_bytes += b->entries[i].len;
        }
        return;
      }
      auto* in = static_cast<const Inner*>(node);
      ++s.inner_nodes;
      AddModels(in->seg, in->nseg);
      s.index_bytes += in->bytes - in->key_bytes;
      s.key_bytes += in->key_bytes;
      for (uint32_t i = 0; i < in->n; ++i) {
        Visit(in->child[i].load(std::memory_order_acquire), depth + 1);
      }
    }
  } walker{s, error_sum, models};
  walker.Visit(root_.load(std::memory_order_acquire), 1);
  s.keys = size();
  s.mean_model_error = models == 0 ? 0 : static_cast<double>(error_sum) / models;
  s.patches = patches_.load(std::memory_order_relaxed);
  s.splits = splits_.load(std::memory_order_relaxed);
  s.retired_pending = epochs_.pending();
  s.hot_cache_lookups = cache_lookups_.load(std::memory_order_relaxed);
  s.hot_cache_hits = cache_hits_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace

std::unique_ptr<OrderedStore> NewLearnedStore(const LearnedStoreOptions& options) {
  return std::make_unique<LearnedStore>(options);
}

std::unique_ptr<OrderedStore> NewLearnedStore() { return NewLearnedStore(LearnedStoreOptions{}); }

}  // namespace ordis::index
