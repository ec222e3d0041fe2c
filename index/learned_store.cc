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
// Merges. Deletes must give memory back: keys with ever-increasing names in a sliding window
// (queues, job ids, sessions) empty every leaf behind the window, and nothing writes there again.
// A leaf is thin when its live keys fall below 3/8 of its capacity. Two triggers find thin leaves:
// a patch whose result is thin, or whose neighbour (same parent) is, merges the two; and an erase
// that thins a leaf posts a merge request at once (once per buffer), because a thinned leaf's
// buffer may never fill (the window moved on). 3/8 because a split leaves every piece at least
// half full, so merges never undo a fresh split, while leaves thinned by random erases still end
// at least 3/8 full; at 1/4 they held 1.7x a fresh store's bytes after 90% random erases (1.35x
// at 3/8), at 1/2 a steady random Put/Erase mix paid 5,700 merges per 600k operations (16 at
// 3/8). Merging needs no new protocol: the patcher seals the neighbour's buffer (moves `reserved`
// to the capacity, so it takes no more writes, and waits for the slots already reserved), and the
// merged leaves replace both in a rebuilt parent, published by one pointer store as a split is.
// A merged leaf's older version is two leaves: `prev` below the right one's fence (`prev_split`)
// and `prev_right` from it on; readers at an older version read each within its part. An inner
// node rebuilt with few children takes in its neighbour's, and a root left with one inner child
// hands the root to it, so inner nodes and depth shrink with the leaves. A leaf never vanishes
// without a merge: its range (and its older versions) always pass to a leaf that replaces it.
//
// Structure changes are serialized by one mutex held only by patchers while they re-find the
// leaf's parent and publish; merging a full buffer and training its models run outside it, in
// parallel; a merge with a neighbour seals and merges the neighbour under it.
#include "index/learned_store.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/fatal.h"
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
// A leaf is thin when its live keys fall below this fraction of its capacity: a patch then
// merges it with a neighbour (see "Merges" above).
constexpr double kThinLeafFill = 0.375;
// An inner node rebuilt with fewer children than this takes in a neighbour's under its parent;
// one that lost children does when the two fit in one segment's worth of pivots.
constexpr uint32_t kThinInner = 16;
constexpr uint32_t kJoinedInner = learned::Inner::kMaxSegmentPivots;
// A thin leaf left alone (its neighbours busy, or none under its parent) asks again at most this
// many times; after that it waits for its next write.
constexpr uint32_t kMergeAttempts = 4;

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
inline int CompareEntry(const BufferEntry& e, const Leaf* leaf, uint32_t i) {
  if (e.head != leaf->mk[i]) [[likely]]
    return e.head < leaf->mk[i] ? -1 : 1;
  return -leaf->Compare(i, e.Key());
}

// Keys with a payload each (KeyValue: a value handle; Pivot: a child), owning a copy of the key
// bytes: a patch's merged entries and a rebuild's pivots, assembled from views that do not
// outlive a visit or from nodes' prefixes and suffixes.
template <typename Item, typename Payload>
class OwnedList {
 public:
  void Add(std::string_view prefix, std::string_view suffix, Payload payload) {
    bytes_.append(prefix);
    bytes_.append(suffix);
    ends_.push_back(bytes_.size());
    payloads_.push_back(payload);
  }
  void Add(std::string_view key, Payload payload) { Add(key, {}, payload); }
  void Append(const OwnedList& other) {
    for (size_t i = 0; i < other.size(); ++i) Add(other.Key(i), other.payloads_[i]);
  }
  size_t size() const { return payloads_.size(); }
  Payload payload(size_t i) const { return payloads_[i]; }
  std::string_view Key(size_t i) const {
    size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(bytes_).substr(begin, ends_[i] - begin);
  }
  // Views into this list: valid until it changes.
  std::vector<Item> Views() const {
    std::vector<Item> out;
    out.reserve(size());
    for (size_t i = 0; i < size(); ++i) out.push_back({Key(i), payloads_[i]});
    return out;
  }

 private:
  std::string bytes_;
  std::vector<size_t> ends_;
  std::vector<Payload> payloads_;
};
using EntryList = OwnedList<KeyValue, ValueHandle>;
using PivotList = OwnedList<Pivot, Node*>;

// What a scan reuses from leaf to leaf: the buffer slots it merges, and the key it hands a
// visitor (the leaf's prefix and a suffix), valid during one visit.
struct ScanScratch {
  std::vector<uint32_t> slots;
  learned::KeyBuffer key;
};

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

// True iff no key lies within [from, to].
bool Empty(const Bound& from, const Bound& to) {
  if (from.unbounded || to.unbounded) return false;
  int c = from.key.compare(to.key);
  return c > 0 || (c == 0 && !(from.inclusive && to.inclusive));
}

// A root-to-leaf descent: the inner nodes passed and the child index taken in each.
struct Path {
  Inner* nodes[kMaxDepth] = {};
  int idx[kMaxDepth] = {};
  int depth = 0;
  Leaf* leaf = nullptr;

  // The least key the leaf may hold (its pivot in the deepest inner node), assembled in *out.
  std::string_view LowFence(learned::KeyBuffer* out) const {
    return nodes[depth - 1]->Key(static_cast<uint32_t>(idx[depth - 1]), out);
  }
  // The least key of the next leaf (assembled in *out), or unbounded for the last leaf.
  Bound HighFence(learned::KeyBuffer* out) const {
    for (int d = depth - 1; d >= 0; --d) {
      if (static_cast<uint32_t>(idx[d]) + 1 < nodes[d]->n) {
        return {nodes[d]->Key(static_cast<uint32_t>(idx[d]) + 1, out), false, false};
      }
    }
    return {};
  }
};

// A full buffer's patch (leaf set), or a merge check of the leaf holding `fence` (leaf null).
struct PatchRequest {
  Leaf* leaf = nullptr;
  std::string fence;  // a key of the leaf's range (its low fence): routes a descent to it
  uint32_t attempts = 0;
};

class LearnedStore final : public OrderedStore {
 public:
  explicit LearnedStore(const LearnedStoreOptions& options)
      : opt_(Sanitize(options)),
        thin_leaf_(std::max(1, static_cast<int>(opt_.leaf_capacity * kThinLeafFill))) {
    Leaf* leaf = learned::NewLeaf({}, 0, {}, 0);
    Pivot p{std::string_view(), leaf};
    root_.store(learned::NewInners({&p, 1}, opt_.inner_error, 1.0).front());
    for (int i = 0; i < opt_.patcher_threads; ++i) patchers_.emplace_back([this] { PatchLoop(); });
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
      if (r.leaf != nullptr && r.leaf->claimed.load(std::memory_order_acquire) != 0) {
        Release(r.leaf);
      }
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
    ScanScratch scratch;  // not thread_local: a visitor may scan too
    Path path;
    // A current leaf holds only keys within its fences, so one reached from its neighbour needs
    // no bound searched; one reached by a descent may be a merge that also holds keys the scan
    // has passed, and an older version (prev) covers other ranges: they need the scan's bound.
    // Fences are assembled from the inner nodes' prefixes and suffixes, into two buffers that
    // trade places as the scan moves: the bound of one leaf is the fence of the one before.
    learned::KeyBuffer fences[2];
    int next = 0;
    if (direction == Direction::kForward) {
      Bound from{start.key, start.inclusive, start.unbounded};
      Descend(from.unbounded ? std::string_view() : from.key, false, false, &path);
      for (bool descended = true;;) {
        Bound to = path.HighFence(&fences[next]);
        const bool current = path.leaf->version <= read_version;
        Bound lower = descended || !current ? from : Bound{};
        Bound upper = current ? Bound{} : to;
        if (!VisitAt(path.leaf, read_version, lower, upper, false, visit, &scratch)) return;
        if (to.unbounded) return;
        from = {to.key, true, false};
        next ^= 1;
        descended = !StepToSibling(&path, +1);
        if (descended) Descend(from.key, false, false, &path);
      }
    }
    Bound upto{start.key, start.inclusive, start.unbounded};
    if (!upto.unbounded && !upto.inclusive && upto.key.empty()) return;  // nothing below ""
    Descend(upto.key, !upto.inclusive, upto.unbounded, &path);
    for (bool descended = true;;) {
      std::string_view low = path.LowFence(&fences[next]);
      const bool current = path.leaf->version <= read_version;
      Bound lower = current ? Bound{} : Bound{low, true, false};
      Bound upper = descended || !current ? upto : Bound{};
      if (!VisitAt(path.leaf, read_version, lower, upper, true, visit, &scratch)) return;
      if (low.empty()) return;  // the first leaf: its fence is the empty key
      upto = {low, false, false};
      next ^= 1;
      descended = !StepToSibling(&path, -1);
      if (descended) Descend(upto.key, true, false, &path);
    }
  }

  // Moves path to the leaf beside its leaf (step +1: next, -1: previous) through their parent,
  // sparing a descent from the root, when that is as good as one: the sibling has not been
  // replaced. A leaf is replaced only after its insert buffer fills or is sealed, so a sibling
  // whose buffer is not full when looked at is current; anything written to its range after
  // that look has a version above this scan's. False when the step would leave the parent or the
  // sibling's buffer is full (the caller descends again).
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

  // The version of leaf a reader at read_version must see for key.
  static const Leaf* Resolve(const Leaf* leaf, uint64_t read_version, std::string_view key) {
    while (leaf->version > read_version) {
      leaf =
          leaf->prev_right != nullptr && key >= leaf->PrevSplit() ? leaf->prev_right : leaf->prev;
    }
    return leaf;
  }

  // Visits leaf as a reader at read_version sees it, within [from, to]: the leaf, or what it
  // replaced (for a merge, both leaves, each within its part of the range).
  static bool VisitAt(const Leaf* leaf, uint64_t read_version, const Bound& from, const Bound& to,
                      bool reverse, ScanVisitor visit, ScanScratch* scratch) {
    if (Empty(from, to)) return true;
    while (leaf->version > read_version && leaf->prev_right == nullptr) leaf = leaf->prev;
    if (leaf->version <= read_version) {
      return VisitRange(leaf, read_version, from, to, reverse, visit, scratch);
    }
    const std::string_view split = leaf->PrevSplit();
    const Bound left_to = to.unbounded || to.key >= split ? Bound{split, false, false} : to;
    const Bound right_from = from.unbounded || from.key < split ? Bound{split, true, false} : from;
    if (!reverse) {
      return VisitAt(leaf->prev, read_version, from, left_to, false, visit, scratch) &&
             VisitAt(leaf->prev_right, read_version, right_from, to, false, visit, scratch);
    }
    return VisitAt(leaf->prev_right, read_version, right_from, to, true, visit, scratch) &&
           VisitAt(leaf->prev, read_version, from, left_to, true, visit, scratch);
  }

  static std::optional<ValueHandle> ReadLeaf(const Leaf* leaf, std::string_view key, uint64_t hash,
                                             uint64_t read_version) {
    leaf = Resolve(leaf, read_version, key);
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
      InsertBuffer* buf = BufferOf(leaf);
      uint32_t slot = buf->reserved.fetch_add(1, std::memory_order_acq_rel);
      if (slot >= buf->capacity) {
        // Full: help rather than wait. Once every slot is published, the first to claim the
        // patch (this writer or a patcher thread) applies it; the others wait for the leaves
        // that replace this one and retry there. Helping spares the writer a patcher's wake-up
        // latency, which on a loaded machine is far longer than the patch itself.
        if (buf->published.load(std::memory_order_acquire) == buf->capacity &&
            leaf->claimed.exchange(1, std::memory_order_acq_rel) == 0) {
          learned::KeyBuffer fence;
          Patch(leaf, path.LowFence(&fence), buf->capacity, 0);
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

      const int32_t added = !erase && !old ? 1 : erase && old ? -1 : 0;
      if (added != 0) keys_.fetch_add(added, std::memory_order_relaxed);
      const int32_t live = static_cast<int32_t>(leaf->n) + added +
                           buf->live_delta.fetch_add(added, std::memory_order_relaxed);
      if (slot + 1 == buf->capacity) {
        learned::KeyBuffer fence;
        PostRequest({leaf, std::string(path.LowFence(&fence)), 0});
      } else if (added < 0 && live < thin_leaf_ &&
                 !buf->merge_posted.exchange(true, std::memory_order_relaxed)) {
        // An erase thinned the leaf: it asks once to be merged rather than wait for its buffer
        // to fill, which may never happen (the keys of a sliding window move on).
        learned::KeyBuffer fence;
        PostRequest({nullptr, std::string(path.LowFence(&fence)), 0});
      }
      return old;
    }
  }

  // Entries of leaf (resolved to read_version) in [from, to), buffer entries included, in order.
  // Visits the entries of leaf (resolved to read_version) in [from, to], buffer entries merged
  // in, in key order or reverse; false when the visitor stopped.
  static bool VisitRange(const Leaf* leaf, uint64_t read_version, const Bound& from,
                         const Bound& to, bool reverse, ScanVisitor visit, ScanScratch* scratch);

  // Patchers are woken only when requests pile up; otherwise they poll every kPatchPoll. A
  // wake-up per request cost 23% of the server's CPU under SET -P 16 (futex wake and context
  // switch: perf, _raw_spin_unlock_irqrestore and finish_task_switch). A full leaf never waits
  // for the poll: the next writer to it applies the patch itself.
  static constexpr size_t kWakeBacklog = 16;
  static constexpr std::chrono::milliseconds kPatchPoll{1};

  void PostRequest(PatchRequest request) {
    bool wake;
    {
      std::lock_guard lock(queue_mu_);
      queue_.push_back(std::move(request));
      ++in_flight_;
      wake = queue_.size() >= kWakeBacklog;
    }
    if (wake) queue_cv_.notify_one();
  }

  // The leaf's insert buffer, allocated on its first write (or seal): read-mostly leaves do not
  // pay for one.
  InsertBuffer* BufferOf(Leaf* leaf) const {
    InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
    if (buf != nullptr) return buf;
    InsertBuffer* fresh = InsertBuffer::New(static_cast<uint32_t>(opt_.insert_buffer));
    if (leaf->buffer.compare_exchange_strong(buf, fresh, std::memory_order_acq_rel)) return fresh;
    InsertBuffer::Delete(fresh);
    return buf;
  }

  // Keys the leaf holds at the newest version.
  static int32_t LiveKeys(const Leaf* leaf) {
    const InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
    return static_cast<int32_t>(leaf->n) +
           (buf == nullptr ? 0 : buf->live_delta.load(std::memory_order_relaxed));
  }

  // Drops one owner of a patched leaf; the last retires it.
  void Release(Leaf* leaf) {
    if (leaf->owners.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      epochs_.Retire(leaf, DeleteLeafThunk);
    }
  }

  static EntryList Collect(const Leaf* leaf);
  void PatchLoop();
  std::optional<uint32_t> Seal(Leaf* leaf);
  void TryMerge(const std::string& fence, uint32_t attempts);
  void Patch(Leaf* old, std::string_view fence, uint32_t count, uint32_t attempts);
  Path Locate(std::string_view fence, const Leaf* leaf) const;
  Leaf* SealNeighbour(const Path& path, bool thin, uint32_t* at, uint32_t* count);
  // Where a patch's new keys landed in its leaf: past its last key, before its first, or either.
  enum class Growth { kAnywhere, kAppend, kPrepend };
  static Growth GrowthOf(const Leaf* leaf, uint32_t count);
  std::vector<Leaf*> BuildLeaves(std::span<const KeyValue> entries, uint64_t version,
                                 const learned::Replaced& replaced,
                                 Growth growth = Growth::kAnywhere) const;
  void Replace(const Path& path, uint32_t at, uint32_t count, const std::vector<Leaf*>& leaves);
  void FreeTree(Node* node);
  void RetireTree(Node* node);

  const LearnedStoreOptions opt_;
  const int32_t thin_leaf_;  // live keys below which a leaf is thin
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
  std::atomic<uint64_t> merges_{0};

  const uint64_t id_ = g_next_store_id.fetch_add(1);
  mutable WriteStamps stamps_;
  mutable std::atomic<uint64_t> cache_lookups_{0};
  mutable std::atomic<uint64_t> cache_hits_{0};
};

bool LearnedStore::VisitRange(const Leaf* leaf, uint64_t read_version, const Bound& from,
                              const Bound& to, bool reverse, ScanVisitor visit,
                              ScanScratch* scratch) {
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
  std::vector<uint32_t>& slots = scratch->slots;
  slots.clear();
  if (buf != nullptr) {
    uint32_t n = std::min(buf->published.load(std::memory_order_acquire), buf->capacity);
    for (uint32_t i = 0; i < n; ++i) {
      const BufferEntry& e = buf->entries[i];
      if (e.version <= read_version && after_from(e.Key()) && before_to(e.Key())) {
        slots.push_back(i);
      }
    }
    NewestPerKey(buf, &slots);
  }
  // The leaf's keys are handed out whole: its prefix, written once, then each key's suffix after
  // it.
  learned::KeyBuffer& key = scratch->key;
  key.Assign(leaf->Prefix(), {});
  const size_t prefix_len = leaf->prefix_len;
  // Copies: the visitor is opaque to the compiler, which would otherwise reload them per key.
  const learned::SuffixOffsets off = leaf->off;
  const char* const suffixes = leaf->suffixes;
  auto key_at = [&](uint32_t i) {
    return key.Replace(prefix_len, {suffixes + off.Begin(i), off.Length(i)});
  };
  // Merge leaf [begin, end) with the buffer entries, which win on equal keys and hide deleted
  // ones, visiting in the scan's direction.
  const size_t m = slots.size();
  if (!reverse) {
    size_t j = 0;
    for (uint32_t i = begin; i < end || j < m;) {
      if (j < m) {
        const BufferEntry& e = buf->entries[slots[j]];
        int c = i < end ? CompareEntry(e, leaf, i) : -1;
        if (c <= 0) {
          if (!e.erase && !visit(e.Key(), e.value)) return false;
          ++j;
          if (c == 0) ++i;
          continue;
        }
      }
      if (!visit(key_at(i), leaf->handles[i])) return false;
      ++i;
    }
    return true;
  }
  size_t j = m;
  for (uint32_t i = end; i > begin || j > 0;) {
    if (j > 0) {
      const BufferEntry& e = buf->entries[slots[j - 1]];
      int c = i > begin ? CompareEntry(e, leaf, i - 1) : 1;
      if (c >= 0) {
        if (!e.erase && !visit(e.Key(), e.value)) return false;
        --j;
        if (c == 0) --i;
        continue;
      }
    }
    --i;
    if (!visit(key_at(i), leaf->handles[i])) return false;
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
    if (request.leaf == nullptr) {
      TryMerge(request.fence, request.attempts);
    } else {
      if (request.leaf->claimed.exchange(1, std::memory_order_acq_rel) == 0) {
        Patch(request.leaf, request.fence, static_cast<uint32_t>(opt_.insert_buffer), 0);
      }
      Release(request.leaf);
    }
    {
      std::lock_guard lock(queue_mu_);
      --in_flight_;
      if (queue_.empty() && in_flight_ == 0) idle_cv_.notify_all();
    }
  }
}

// Stops writes to leaf before its buffer fills, so that a patch may replace it: moves `reserved`
// to the capacity and waits until the writers that reserved slots below it have published.
// Returns how many entries the replacement must merge, or nullopt when the buffer was full
// already (its patch is posted or under way, and only that patch may replace the leaf).
std::optional<uint32_t> LearnedStore::Seal(Leaf* leaf) {
  InsertBuffer* buf = BufferOf(leaf);
  uint32_t reserved = buf->reserved.load(std::memory_order_acquire);
  do {
    if (reserved >= buf->capacity) return std::nullopt;
  } while (
      !buf->reserved.compare_exchange_weak(reserved, buf->capacity, std::memory_order_acq_rel));
  // No patch request will name this leaf (no writer filled its last slot): the patch that
  // replaces it is its only owner.
  leaf->owners.fetch_sub(1, std::memory_order_acq_rel);
  WaitUntil([&] { return buf->published.load(std::memory_order_acquire) == reserved; });
  return reserved;
}

// A writer's erase thinned the leaf holding fence (or a patch left it thin and alone): merges it
// with a neighbour unless it has filled up again, is being patched anyway, or is the only leaf.
void LearnedStore::TryMerge(const std::string& fence, uint32_t attempts) {
  EpochGuard guard(epochs_);
  Path path;
  Descend(fence, false, false, &path);
  Leaf* leaf = path.leaf;
  if (path.depth == 1 && path.nodes[0]->n == 1) return;
  if (LiveKeys(leaf) >= thin_leaf_) {
    // Filled again: a later erase may ask again.
    if (InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire)) {
      buf->merge_posted.store(false, std::memory_order_relaxed);
    }
    return;
  }
  // A full buffer's patch merges a thin result itself.
  if (std::optional<uint32_t> count = Seal(leaf)) Patch(leaf, fence, *count, attempts);
}

// Under structure_mu_: the path to leaf, which a patcher owns (nothing else can replace it).
Path LearnedStore::Locate(std::string_view fence, const Leaf* leaf) const {
  Path path;
  Descend(fence, false, false, &path);
  if (path.leaf != leaf) {
    // Only patchers change structure, under structure_mu_, and a leaf is owned by one patch.
    Fatal("ordis: index patch lost its leaf (fence " + std::to_string(fence.size()) + " bytes)");
  }
  return path;
}

// Under structure_mu_: seals and returns the neighbour (under the same parent) that the patch of
// path's leaf merges with, setting *at to its index and *count to its entries to merge. A thin
// result takes the thinner neighbour that can be sealed; any result takes a thin neighbour.
// Nullptr when there is none.
Leaf* LearnedStore::SealNeighbour(const Path& path, bool thin, uint32_t* at, uint32_t* count) {
  Inner* parent = path.nodes[path.depth - 1];
  const uint32_t self = static_cast<uint32_t>(path.idx[path.depth - 1]);
  uint32_t candidates[2];
  int32_t live[2];
  int k = 0;
  for (uint32_t c : {self + 1, self - 1}) {
    if (c >= parent->n) continue;  // self - 1 wraps around for the first child
    live[k] = LiveKeys(static_cast<Leaf*>(parent->child[c].load(std::memory_order_relaxed)));
    candidates[k++] = c;
  }
  if (k == 2 && live[1] < live[0]) {
    std::swap(candidates[0], candidates[1]);
    std::swap(live[0], live[1]);
  }
  for (int i = 0; i < k; ++i) {
    if (!thin && live[i] >= thin_leaf_) break;
    auto* leaf = static_cast<Leaf*>(parent->child[candidates[i]].load(std::memory_order_relaxed));
    if (std::optional<uint32_t> sealed = Seal(leaf)) {
      *at = candidates[i];
      *count = *sealed;
      return leaf;
    }
  }
  return nullptr;
}

// The version of the newest entry a patch of leaf's first `count` buffer entries merges in.
uint64_t NewestVersion(const Leaf* leaf, uint32_t count) {
  if (count == 0) return leaf->version;
  return leaf->buffer.load(std::memory_order_acquire)->entries[count - 1].version;
}

// The entries of leaf with its buffer's merged in, as a reader at the newest version sees them:
// the buffer of a leaf being patched takes no more entries (full, or sealed).
EntryList LearnedStore::Collect(const Leaf* leaf) {
  EntryList out;
  ScanScratch scratch;
  VisitRange(
      leaf, kNewest, Bound{}, Bound{}, false,
      [&](std::string_view key, ValueHandle value) {
        out.Add(key, value);
        return true;
      },
      &scratch);
  return out;
}

LearnedStore::Growth LearnedStore::GrowthOf(const Leaf* leaf, uint32_t count) {
  if (leaf->n == 0 || count == 0) return Growth::kAnywhere;
  const InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
  bool after = true, before = true;
  for (uint32_t i = 0; i < count && (after || before); ++i) {
    const BufferEntry& e = buf->entries[i];
    after = after && CompareEntry(e, leaf, leaf->n - 1) > 0;
    before = before && CompareEntry(e, leaf, 0) < 0;
  }
  return after ? Growth::kAppend : before ? Growth::kPrepend : Growth::kAnywhere;
}

// Replaces old, whose buffer is full (count = capacity) or sealed with `count` entries, by leaves
// holding its entries merged with the buffer's; a thin result, or a thin neighbour, merges with
// the neighbour. Drops the patch's ownership of old (and of the neighbour).
void LearnedStore::Patch(Leaf* old, std::string_view fence, uint32_t count, uint32_t attempts) {
  EpochGuard guard(epochs_);
  EntryList mine = Collect(old);
  // Versions rise with slots (each is taken in its slot's publish turn): the last is the newest.
  // The new leaves may be published only once the read version covers it, or a reader entering
  // after `old` is retired could still be sent to it through `prev`.
  const uint64_t version = NewestVersion(old, count);
  WaitUntil([&] { return read_version_.load(std::memory_order_acquire) >= version; });
  const bool thin = mine.size() < static_cast<size_t>(thin_leaf_);
  // Model training runs outside the lock, in parallel with other patches, unless a merge needs
  // the neighbour's entries too.
  std::vector<Leaf*> leaves;
  if (!thin) leaves = BuildLeaves(mine.Views(), version, {old, nullptr, {}}, GrowthOf(old, count));
  Leaf* neighbour = nullptr;
  uint32_t replaced = 1;
  bool retry = false;
  {
    std::lock_guard lock(structure_mu_);
    const Path path = Locate(fence, old);
    const int d = path.depth - 1;
    Inner* parent = path.nodes[d];
    const uint32_t self = static_cast<uint32_t>(path.idx[d]);
    uint32_t at = self, their_count = 0;
    neighbour = SealNeighbour(path, thin, &at, &their_count);
    if (neighbour != nullptr) {
      for (Leaf* leaf : leaves) learned::DeleteLeaf(leaf);
      // The right one's fence is where the old versions part: a reader at an older version
      // reads the left leaf below it and the right one from it on.
      const bool right = at > self;
      EntryList theirs = Collect(neighbour);
      EntryList& all = right ? mine : theirs;
      all.Append(right ? theirs : mine);
      learned::KeyBuffer split;
      const learned::Replaced lineage{right ? old : neighbour, right ? neighbour : old,
                                      parent->Key(right ? at : self, &split)};
      leaves = BuildLeaves(all.Views(), std::max(version, NewestVersion(neighbour, their_count)),
                           lineage);
      at = std::min(at, self);
      replaced = 2;
    } else if (thin) {
      leaves = BuildLeaves(mine.Views(), version, {old, nullptr, {}});
      // Left thin: its neighbours were busy (their own patches take it in), or it has none under
      // its parent (rebuilt below, the parent takes in a neighbour's children): look again later.
      retry = attempts < kMergeAttempts && !(path.depth == 1 && parent->n == 1);
    }
    Replace(path, at, replaced, leaves);
  }
  if (leaves.size() > replaced) {
    splits_.fetch_add(leaves.size() - replaced, std::memory_order_relaxed);
  }
  old->retired.store(1, std::memory_order_release);
  Release(old);
  if (neighbour != nullptr) {
    neighbour->retired.store(1, std::memory_order_release);
    Release(neighbour);
    merges_.fetch_add(1, std::memory_order_relaxed);
  }
  patches_.fetch_add(1, std::memory_order_relaxed);
  if (retry) PostRequest({nullptr, std::string(fence), attempts + 1});
  epochs_.Reclaim();
}

std::vector<Leaf*> LearnedStore::BuildLeaves(std::span<const KeyValue> entries, uint64_t version,
                                             const learned::Replaced& replaced,
                                             Growth growth) const {
  std::vector<Leaf*> out;
  const size_t cap = static_cast<size_t>(opt_.leaf_capacity);
  const size_t n = entries.size();
  auto add = [&](size_t begin, size_t end) {
    out.push_back(
        learned::NewLeaf(entries.subspan(begin, end - begin), version, replaced, LeafError()));
  };
  if (n <= cap) {
    add(0, n);
    return out;
  }
  const size_t max_count = std::max<size_t>(1, static_cast<size_t>(cap * kSplitFill));
  if (growth != Growth::kAnywhere) {
    // Keys arrive at one end (ascending or descending ids, timestamps): the pieces away from it
    // will take no more keys, so they are cut at the retrain bound and the rest stays at the
    // growing end, unless it would be under half full.
    const size_t full = (n - cap + max_count - 1) / max_count;
    const size_t rest = n - full * max_count;
    if (rest >= max_count / 2) {
      const bool append = growth == Growth::kAppend;
      if (!append) add(0, rest);
      for (size_t p = 0, at = append ? 0 : rest; p < full; ++p, at += max_count) {
        add(at, at + max_count);
      }
      if (append) add(full * max_count, n);
      return out;
    }
  }
  // The fewest leaves of at most the retrain bound, equal in size: each keeps about a quarter
  // free for the next patches, and none is thin (a thin piece would be merged straight back).
  const size_t pieces = (n + max_count - 1) / max_count;
  for (size_t p = 0; p < pieces; ++p) add(n * p / pieces, n * (p + 1) / pieces);
  return out;
}

// Under structure_mu_: replaces `count` children of path's deepest inner node, from index `at`,
// with leaves, and rebuilds the inner nodes above bottom-up as far as they change; the highest
// change is published with one pointer store. Every node's first pivot stays equal to its pivot
// in its parent (its low fence). An inner node rebuilt with fewer than kThinInner children takes
// in a neighbour's (under its parent), and a root left with one inner child gives the root to it,
// so inner nodes and depth shrink as leaves merge.
void LearnedStore::Replace(const Path& path, uint32_t at, uint32_t count,
                           const std::vector<Leaf*>& leaves) {
  // Pivots [begin, end) of node, with their children, onto list.
  auto add_pivots = [](const Inner* node, uint32_t begin, uint32_t end, PivotList* list) {
    for (uint32_t c = begin; c < end; ++c) {
      Inner::KeyParts k = node->Parts(c);
      list->Add(k.head, k.tail, node->child[c].load(std::memory_order_relaxed));
    }
  };
  auto add_first = [](Inner* node, PivotList* list) {
    Inner::KeyParts k = node->Parts(0);
    list->Add(k.head, k.tail, node);
  };
  PivotList replacement;
  for (size_t k = 0; k < leaves.size(); ++k) {
    if (k == 0) {
      Inner::KeyParts fence = path.nodes[path.depth - 1]->Parts(at);
      replacement.Add(fence.head, fence.tail, leaves[0]);
    } else {
      replacement.Add(leaves[k]->Prefix(), leaves[k]->Suffix(0), leaves[k]);
    }
  }
  std::vector<Inner*> retired;
  int level = path.depth - 1;
  for (; level >= 0; --level) {
    Inner* node = path.nodes[level];
    Inner* parent = level > 0 ? path.nodes[level - 1] : nullptr;
    const uint32_t up_at = level > 0 ? static_cast<uint32_t>(path.idx[level - 1]) : 0;
    const size_t n = node->n - count + replacement.size();
    // The smaller neighbour under the parent, if any.
    Inner* neighbour = nullptr;
    uint32_t neighbour_at = 0;
    if (parent != nullptr) {
      for (uint32_t c : {up_at + 1, up_at - 1}) {
        if (c >= parent->n) continue;  // up_at - 1 wraps around for the first child
        auto* in = static_cast<Inner*>(parent->child[c].load(std::memory_order_relaxed));
        if (neighbour == nullptr || in->n < neighbour->n) neighbour = in, neighbour_at = c;
      }
    }
    const bool join = neighbour != nullptr &&
                      (n < kThinInner || (n < node->n && n + neighbour->n <= kJoinedInner));
    if (count == 1 && replacement.size() == 1 && !join) {
      // One node replaces one: a single pointer store publishes everything below it.
      node->child[at].store(replacement.payload(0), std::memory_order_release);
      break;
    }
    PivotList pivots;
    if (join && neighbour_at < up_at) add_pivots(neighbour, 0, neighbour->n, &pivots);
    add_pivots(node, 0, at, &pivots);
    pivots.Append(replacement);
    add_pivots(node, at + count, node->n, &pivots);
    if (join && neighbour_at > up_at) add_pivots(neighbour, 0, neighbour->n, &pivots);
    retired.push_back(node);
    uint32_t next_at = up_at, next_count = 1;
    if (join) {
      retired.push_back(neighbour);
      next_at = std::min(up_at, neighbour_at);
      next_count = 2;
    }
    std::vector<Inner*> made =
        learned::NewInners(pivots.Views(), static_cast<uint32_t>(opt_.inner_error), kSplitFill);
    if (made.size() > next_count) {
      splits_.fetch_add(made.size() - next_count, std::memory_order_relaxed);
    }
    replacement = PivotList();
    for (Inner* in : made) add_first(in, &replacement);
    at = next_at;
    count = next_count;
  }
  if (level < 0) {
    // The root was rebuilt: a new root above its parts while there are several (the tree grows
    // a level); a root with one inner child gives the root to it (the tree loses one). Nodes
    // made here and passed over were never published.
    while (replacement.size() > 1) {
      std::vector<Inner*> made =
          learned::NewInners(replacement.Views(), static_cast<uint32_t>(opt_.inner_error), 1.0);
      replacement = PivotList();
      for (Inner* in : made) add_first(in, &replacement);
    }
    Node* root = replacement.payload(0);
    while (static_cast<Inner*>(root)->n == 1 &&
           static_cast<Inner*>(root)->child[0].load(std::memory_order_relaxed)->kind ==
               NodeKind::kInner) {
      auto* top = static_cast<Inner*>(root);
      root = top->child[0].load(std::memory_order_relaxed);
      learned::DeleteInner(top);
    }
    root_.store(root, std::memory_order_release);
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
  // Requests still queued (merge checks of an emptied tree) must not meet the tree freed below.
  Quiesce();
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

  // Leaves as patches cut them: at most the retrain bound each, room left for the next writes.
  std::vector<Leaf*> leaves = BuildLeaves(entries, 0, {});
  PivotList level;
  for (size_t i = 0; i < leaves.size(); ++i) {
    level.Add(i == 0 ? std::string_view() : leaves[i]->Prefix(),
              i == 0 ? std::string_view() : leaves[i]->Suffix(0), leaves[i]);
  }
  for (;;) {
    std::vector<Inner*> made =
        learned::NewInners(level.Views(), static_cast<uint32_t>(opt_.inner_error), 1.0);
    level = PivotList();
    for (Inner* in : made) level.Add(in->Parts(0).head, in->Parts(0).tail, in);
    if (made.size() == 1) break;
  }
  Node* old = root_.exchange(level.payload(0), std::memory_order_acq_rel);
  FreeTree(old);
  keys_.store(static_cast<int64_t>(entries.size()), std::memory_order_relaxed);
}

void LearnedStore::Clear() {
  // Patches still queued refer to leaves of the tree being dropped: let them finish first (no
  // writer can post more, by the precondition).
  Quiesce();
  Leaf* leaf = learned::NewLeaf({}, 0, {}, 0);
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
  s.merges = merges_.load(std::memory_order_relaxed);
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
