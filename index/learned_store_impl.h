// The learned tree's machinery, shared by learned_store.cc (reads, writes, scans, bulk load, stats)
// and patcher.cc (patches, merges, structure changes); learned_store.cc's opening comment explains
// the layout and the concurrency protocol. Internal to index/: the public header is
// learned_store.h.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "index/epoch.h"
#include "index/hot_cache.h"
#include "index/insert_buffer.h"
#include "index/learned_store.h"
#include "index/node.h"
#include "index/ordered_store.h"

namespace ordis::index::learned {

constexpr int kMaxDepth = 32;
// A read version above every write's: reads everything published.
constexpr uint64_t kNewest = ~uint64_t{0};
// Retrain bound: a split leaves about a quarter of each new node free, so the next patches are
// absorbed without splitting again.
constexpr double kSplitFill = 0.75;
// A leaf is thin when its live keys fall below this fraction of its capacity: a patch then
// merges it with a neighbour (see "Merges" in learned_store.cc).
constexpr double kThinLeafFill = 0.375;
// An inner node rebuilt with fewer children than this takes in a neighbour's under its parent;
// one that lost children does when the two fit in one segment's worth of pivots.
constexpr uint32_t kThinInner = 16;
constexpr uint32_t kJoinedInner = Inner::kMaxSegmentPivots;
// A thin leaf left alone (its neighbours busy, or none under its parent) asks again at most this
// many times; after that it waits for its next write.
constexpr uint32_t kMergeAttempts = 4;

// Compares a buffer entry of leaf with the leaf's key i: model keys first (the entry's head is
// relative to the same leaf), key bytes only on a tie.
inline int CompareEntry(const BufferEntry& e, const Leaf* leaf, uint32_t i) {
  if (e.head != leaf->mk[i]) return e.head < leaf->mk[i] ? -1 : 1;
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
  KeyBuffer key;
};

// The calling thread's hot-entry cache, bound to one store at a time. Hit counters reach the
// store in batches so lookups never write a shared cache line.
struct ThreadCache {
  uint64_t store_id = 0;
  HotCache cache;
  uint64_t flushed_lookups = 0;
  uint64_t flushed_hits = 0;
};

inline std::atomic<uint64_t> g_next_store_id{1};

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

inline void DeleteLeafThunk(void* p) { DeleteLeaf(static_cast<Leaf*>(p)); }
inline void DeleteInnerThunk(void* p) { DeleteInner(static_cast<Inner*>(p)); }
// What deleting a node gives back (a leaf's insert buffer with it), for the epochs' count of
// retired bytes.
inline size_t NodeBytes(const Leaf* leaf) {
  const InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
  return leaf->bytes + (buf == nullptr ? 0 : InsertBuffer::BytesFor(buf->capacity));
}
inline size_t NodeBytes(const Inner* in) { return in->bytes; }

// One end of a key range.
struct Bound {
  std::string_view key;
  bool inclusive = true;
  bool unbounded = true;
};

// True iff no key lies within [from, to].
inline bool Empty(const Bound& from, const Bound& to) {
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
  std::string_view LowFence(KeyBuffer* out) const {
    return nodes[depth - 1]->Key(static_cast<uint32_t>(idx[depth - 1]), out);
  }
  // The least key of the next leaf (assembled in *out), or unbounded for the last leaf.
  Bound HighFence(KeyBuffer* out) const {
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
  explicit LearnedStore(const LearnedStoreOptions& options);

  ~LearnedStore() override;

  std::optional<ValueHandle> Get(std::string_view key) const override {
    return GetHashed(key, HashKey(key));
  }

  std::optional<ValueHandle> GetHashed(std::string_view key, uint64_t hash) const;

  using OrderedStore::GetBatch;
  void GetBatch(std::span<const std::string_view> keys, std::span<std::optional<ValueHandle>> found,
                std::span<const bool> writes) const override;

  std::optional<ValueHandle> Put(std::string_view key, ValueHandle value) override {
    return Write(key, HashKey(key), value, /*erase=*/false);
  }

  std::optional<ValueHandle> Erase(std::string_view key) override;
  std::optional<ValueHandle> ErasePresent(std::string_view key) override {
    return Write(key, HashKey(key), 0, /*erase=*/true);
  }
  bool TryErasePresent(std::string_view key, std::optional<ValueHandle>* erased) override {
    bool full = false;
    *erased = Write(key, HashKey(key), 0, /*erase=*/true, &full);
    return !full;
  }

  void Scan(const ScanStart& start, Direction direction, ScanVisitor visit) const override;

  // Moves path to the leaf beside its leaf (step +1: next, -1: previous) through their parent,
  // sparing a descent from the root, when that is as good as one: the sibling has not been
  // replaced. A leaf is replaced only after its insert buffer fills or is sealed, so a sibling
  // whose buffer is not full when looked at is current; anything written to its range after
  // that look has a version above this scan's. False when the step would leave the parent or the
  // sibling's buffer is full (the caller descends again).
  static bool StepToSibling(Path* path, int step);

  bool Sample(std::string_view lo, std::string_view hi, std::span<const uint64_t> randoms,
              size_t count, SampleVisitor visit) const override;

  uint64_t RetiredBytes() const override { return epochs_.pending_bytes(); }

  size_t size() const override {
    int64_t n = keys_.load(std::memory_order_relaxed);
    return n < 0 ? 0 : static_cast<size_t>(n);
  }

  void BulkLoad(BulkSource next) override;
  void Clear() override;
  IndexStats Stats() const override;
  void Quiesce() override;

 private:
  uint32_t LeafError() const { return static_cast<uint32_t>(opt_.leaf_error); }

  static LearnedStoreOptions Sanitize(LearnedStoreOptions o);

  // Descends to the leaf whose range holds key (strict: the leaf holding the greatest keys <
  // key; rightmost: the last leaf).
  void Descend(std::string_view key, bool strict, bool rightmost, Path* path) const;

  Leaf* FindLeaf(std::string_view key) const;

  // A node's first lines: metadata and segment first keys, then the segment models.
  static void PrefetchHeader(const Node* node) {
    __builtin_prefetch(node);
    __builtin_prefetch(reinterpret_cast<const char*>(node) + 64);
    __builtin_prefetch(reinterpret_cast<const char*>(node) + 128);
  }

  // The version of leaf a reader at read_version must see for key.
  static const Leaf* Resolve(const Leaf* leaf, uint64_t read_version, std::string_view key);

  // Visits leaf as a reader at read_version sees it, within [from, to]: the leaf, or what it
  // replaced (for a merge, both leaves, each within its part of the range).
  static bool VisitAt(const Leaf* leaf, uint64_t read_version, const Bound& from, const Bound& to,
                      bool reverse, ScanVisitor visit, ScanScratch* scratch);

  // The newest entry for key among buf's published entries visible at read_version, or null.
  static const BufferEntry* NewestBuffered(const InsertBuffer* buf, std::string_view key,
                                           uint64_t hash, uint64_t read_version);
  // key's value at read_version in leaf (or its history); *in_leaf, when given, tells whether key
  // is among the leaf's own keys (not only in its buffer).
  static std::optional<ValueHandle> ReadLeaf(const Leaf* leaf, std::string_view key, uint64_t hash,
                                             uint64_t read_version, bool* in_leaf = nullptr);

  // Sample of at most kSampleGroup runs (learned_sample.cc): their descents go level by level
  // together, as GetGroup's.
  static constexpr size_t kSampleGroup = 32;
  void SampleGroup(std::string_view lo, std::string_view hi, std::span<const uint64_t> randoms,
                   size_t count, uint64_t read_version, SampleVisitor visit) const;

  // GetBatch of at most 32 keys: hot-cache hits first, then the misses descend level by level
  // together, each next node prefetched, so their cache misses overlap instead of queueing.
  void GetGroup(std::span<const std::string_view> keys, std::span<std::optional<ValueHandle>> found,
                std::span<const bool> writes) const;

  std::optional<ValueHandle> Lookup(std::string_view key, uint64_t hash) const {
    EpochGuard guard(epochs_);
    uint64_t read_version = read_version_.load(std::memory_order_acquire);
    return ReadLeaf(FindLeaf(key), key, hash, read_version);
  }

  ThreadCache& LocalCache() const;
  // Makes every thread's hot-cache entries of this store stale (a change that bypassed Write).
  void ForgetCachedEntries();

  void CountCache(ThreadCache& tc) const;

  // With `full` given, a write that finds the leaf's buffer full sets it and changes nothing
  // rather than apply (or wait for) the leaf's patch.
  std::optional<ValueHandle> Write(std::string_view key, uint64_t hash, ValueHandle value,
                                   bool erase, bool* full = nullptr);

  std::optional<ValueHandle> Append(std::string_view key, uint64_t hash, ValueHandle value,
                                    bool erase, bool* full);

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

  void PostRequest(PatchRequest request);

  // The leaf's insert buffer, allocated on its first write (or seal): read-mostly leaves do not
  // pay for one.
  InsertBuffer* BufferOf(Leaf* leaf) const;

  // Keys the leaf holds at the newest version.
  static int32_t LiveKeys(const Leaf* leaf) {
    const InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
    return static_cast<int32_t>(leaf->n) +
           (buf == nullptr ? 0 : buf->live_delta.load(std::memory_order_relaxed));
  }

  // Drops one owner of a patched leaf; the last retires it.
  void Release(Leaf* leaf) {
    if (leaf->owners.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      epochs_.Retire(leaf, DeleteLeafThunk, NodeBytes(leaf));
    }
  }

  static EntryList Collect(const Leaf* leaf);
  // sweeper: this patcher also runs the idle sweep (one of them does).
  void PatchLoop(bool sweeper);
  // One piece of in-flight work (a posted request, a sweep's flushes) is done: Quiesce may return.
  void Applied();
  // Idle buffers. A leaf written at random keeps a partly filled buffer (2.4 KB at the default 32
  // slots) until its buffer fills, which for a leaf no longer written is never: after 950k random
  // SETs the buffers held 21 of the index's 40 MB, and every lookup of those leaves searched them.
  // The sweep visits up to kSweepLeaves leaves every kSweepEvery (a cursor walks the tree), and
  // a buffer whose published count stayed the same for idle_flush_ms between visits is sealed
  // and merged into its leaf, as a merge seals one.
  static constexpr size_t kSweepLeaves = 1024;
  static constexpr std::chrono::milliseconds kSweepEvery{100};
  void SweepIdleBuffers(uint32_t now_ms);
  void FlushIdle(const std::string& fence);
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
  std::atomic<uint64_t> idle_flushes_{0};
  // Held by a sweep step (which only tries it) and by Clear and BulkLoad, which replace the tree
  // whole: a sweep never seals or walks a tree being dropped.
  std::mutex sweep_mu_;
  std::string sweep_cursor_;  // where the sweep's next step starts (empty: the first leaf)

  const uint64_t id_ = g_next_store_id.fetch_add(1);
  mutable WriteStamps stamps_;
  mutable std::atomic<uint64_t> cache_lookups_{0};
  mutable std::atomic<uint64_t> cache_hits_{0};
};

}  // namespace ordis::index::learned
