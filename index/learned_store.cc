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
#include <cstring>
#include <string>
#include <vector>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "base/memory.h"
#include "index/learned_store_impl.h"

namespace ordis::index::learned {
namespace {

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

}  // namespace

LearnedStore::LearnedStore(const LearnedStoreOptions& options)
    : opt_(Sanitize(options)),
      thin_leaf_(std::max(1, static_cast<int>(opt_.leaf_capacity * kThinLeafFill))) {
  Leaf* leaf = NewLeaf({}, 0, {}, 0);
  Pivot p{std::string_view(), leaf};
  root_.store(NewInners({&p, 1}, opt_.inner_error, 1.0).front());
  for (int i = 0; i < opt_.patcher_threads; ++i)
    patchers_.emplace_back([this, i] {
      base::MemoryAccountedThread accounted;  // the nodes live on after the thread
      PatchLoop(/*sweeper=*/i == 0 && opt_.idle_flush_ms > 0);
    });
}

LearnedStore::~LearnedStore() {
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

std::optional<ValueHandle> LearnedStore::GetHashed(std::string_view key, uint64_t hash) const {
  if (!opt_.hot_cache) return Lookup(key, hash);
  ThreadCache& tc = LocalCache();
  // The stamp is read before the lookup: a write beginning after it invalidates the entry.
  uint64_t stamp = stamps_.Load(hash);
  ValueHandle cached;
  if (const HotCache::Known known = tc.cache.Lookup(key, hash, stamp, &cached);
      known != HotCache::Known::kNothing) {
    CountCache(tc);
    return known == HotCache::Known::kPresent ? std::optional(cached) : std::nullopt;
  }
  std::optional<ValueHandle> found = Lookup(key, hash);
  if (found) tc.cache.Offer(key, hash, *found, stamp);
  CountCache(tc);
  return found;
}

void LearnedStore::GetBatch(std::span<const std::string_view> keys,
                            std::span<std::optional<ValueHandle>> found,
                            std::span<const bool> writes) const {
  constexpr size_t kGroup = 32;
  for (size_t base = 0; base < keys.size(); base += kGroup) {
    size_t n = std::min(kGroup, keys.size() - base);
    GetGroup(keys.subspan(base, n), found.subspan(base, n),
             writes.empty() ? writes : writes.subspan(base, n));
  }
}

std::optional<ValueHandle> LearnedStore::Erase(std::string_view key) {
  // An absent key needs no delete marker (and no buffer slot).
  const uint64_t hash = HashKey(key);
  if (!GetHashed(key, hash)) return std::nullopt;
  return Write(key, hash, 0, /*erase=*/true);
}

void LearnedStore::Scan(const ScanStart& start, Direction direction, ScanVisitor visit) const {
  EpochGuard guard(epochs_);
  uint64_t read_version = read_version_.load(std::memory_order_acquire);
  ScanScratch scratch;  // not thread_local: a visitor may scan too
  Path path;
  // A current leaf holds only keys within its fences, so one reached from its neighbour needs
  // no bound searched; one reached by a descent may be a merge that also holds keys the scan
  // has passed, and an older version (prev) covers other ranges: they need the scan's bound.
  // Fences are assembled from the inner nodes' prefixes and suffixes, into two buffers that
  // trade places as the scan moves: the bound of one leaf is the fence of the one before.
  KeyBuffer fences[2];
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

bool LearnedStore::StepToSibling(Path* path, int step) {
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

void LearnedStore::Quiesce() {
  queue_cv_.notify_all();
  std::unique_lock lock(queue_mu_);
  idle_cv_.wait(lock, [&] { return queue_.empty() && in_flight_ == 0; });
  lock.unlock();
  // Readers pin at most the last two epochs; a few rounds free everything they do not hold.
  for (int i = 0; i < 8 && epochs_.Reclaim() > 0; ++i) std::this_thread::yield();
}

LearnedStoreOptions LearnedStore::Sanitize(LearnedStoreOptions o) {
  o.leaf_error = std::max(o.leaf_error, 0);
  o.inner_error = std::max(o.inner_error, 0);
  o.leaf_capacity = std::max(o.leaf_capacity, 2);
  o.insert_buffer = std::max(o.insert_buffer, 1);
  o.patcher_threads = std::max(o.patcher_threads, 1);
  o.idle_flush_ms = std::max(o.idle_flush_ms, 0);
  return o;
}

void LearnedStore::Descend(std::string_view key, bool strict, bool rightmost, Path* path) const {
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

Leaf* LearnedStore::FindLeaf(std::string_view key) const {
  Node* node = root_.load(std::memory_order_acquire);
  while (node->kind == NodeKind::kInner) {
    auto* in = static_cast<Inner*>(node);
    node = in->child[in->ChildFor(key, false)].load(std::memory_order_acquire);
    PrefetchHeader(node);
  }
  return static_cast<Leaf*>(node);
}

const Leaf* LearnedStore::Resolve(const Leaf* leaf, uint64_t read_version, std::string_view key) {
  while (leaf->version > read_version) {
    leaf = leaf->prev_right != nullptr && key >= leaf->PrevSplit() ? leaf->prev_right : leaf->prev;
  }
  return leaf;
}

bool LearnedStore::VisitAt(const Leaf* leaf, uint64_t read_version, const Bound& from,
                           const Bound& to, bool reverse, ScanVisitor visit, ScanScratch* scratch) {
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

std::optional<ValueHandle> LearnedStore::ReadLeaf(const Leaf* leaf, std::string_view key,
                                                  uint64_t hash, uint64_t read_version,
                                                  bool* in_leaf) {
  leaf = Resolve(leaf, read_version, key);
  const InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
  if (buf != nullptr) {
    // The buffer's lines load while the leaf is searched (the paper's prefetch of the insert
    // buffer during the model computation); the buffer still decides first.
    __builtin_prefetch(buf);
    __builtin_prefetch(buf->tags);
  }
  Found f = leaf->Search(key);
  if (in_leaf != nullptr) *in_leaf = f.exact;
  if (const BufferEntry* e = NewestBuffered(buf, key, hash, read_version)) {
    if (e->erase) return std::nullopt;
    return e->value;
  }
  if (!f.exact) return std::nullopt;
  return leaf->handles[f.pos];
}

const BufferEntry* LearnedStore::NewestBuffered(const InsertBuffer* buf, std::string_view key,
                                                uint64_t hash, uint64_t read_version) {
  if (buf == nullptr) return nullptr;
  uint32_t n = std::min(buf->published.load(std::memory_order_acquire), buf->capacity);
  const uint32_t tag = InsertBuffer::Tag(hash);
  // Four tags per compare into a bit mask (a match is rare: most lookups compare every tag),
  // then the matches newest first. SSE2 is in every x86-64; elsewhere one tag at a time.
  for (uint32_t block = (n + 31) / 32; block-- > 0;) {
    const uint32_t from = block * 32, to = std::min(n, from + 32);
    uint32_t matches = 0;
    uint32_t i = from;
#ifdef __SSE2__
    const __m128i want = _mm_set1_epi32(static_cast<int>(tag));
    for (; i + 4 <= to; i += 4) {
      __m128i four = _mm_loadu_si128(reinterpret_cast<const __m128i*>(buf->tags + i));
      uint32_t bits =
          static_cast<uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(four, want))));
      matches |= bits << (i - from);
    }
#endif
    for (; i < to; ++i) matches |= static_cast<uint32_t>(buf->tags[i] == tag) << (i - from);
    while (matches != 0) {
      const uint32_t bit = 31 - static_cast<uint32_t>(__builtin_clz(matches));
      matches &= ~(uint32_t{1} << bit);
      const BufferEntry& e = buf->entries[from + bit];
      if (e.version <= read_version && e.Key() == key) return &e;
    }
  }
  return nullptr;
}

void LearnedStore::GetGroup(std::span<const std::string_view> keys,
                            std::span<std::optional<ValueHandle>> found,
                            std::span<const bool> writes) const {
  const size_t n = keys.size();
  uint64_t hash[32], stamp[32];
  uint8_t miss[32];
  size_t misses = 0;
  ThreadCache* tc = opt_.hot_cache ? &LocalCache() : nullptr;
  for (size_t i = 0; i < n; ++i) {
    hash[i] = HashKey(keys[i]);
    if (tc != nullptr) {
      stamp[i] = stamps_.Load(hash[i]);
      ValueHandle cached;
      const HotCache::Known known = tc->cache.Lookup(keys[i], hash[i], stamp[i], &cached);
      if (known != HotCache::Known::kNothing) {
        found[i] = known == HotCache::Known::kPresent ? std::optional(cached) : std::nullopt;
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
      auto* leaf = static_cast<Leaf*>(at[m]);
      found[i] = ReadLeaf(leaf, keys[i], hash[i], read_version);
      // The write's entry lands in the buffer's next slot unless another comes first: its lines
      // arrive while the batch runs, not inside the write's critical section, whose release
      // waits for its stores (5.7% of the CPU of SET at maxmemory, 1.0% with this).
      if (!writes.empty() && writes[i]) {
        InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
        if (buf != nullptr) buf->PrefetchNextSlot();
      }
      // A batch announces its keys (the request pre-parser): admit them all, absent ones too
      // (a SET of a new key looks it up first), so the command's own Get that follows is a
      // cache hit rather than a second descent.
      if (tc != nullptr) tc->cache.Offer(keys[i], hash[i], found[i], stamp[i], /*force=*/true);
    }
  }
  if (tc != nullptr) CountCache(*tc);
}

ThreadCache& LearnedStore::LocalCache() const {
  thread_local ThreadCache tc;
  if (tc.store_id != id_) {
    tc.cache.Clear();
    tc.store_id = id_;
    tc.flushed_lookups = tc.cache.lookups();
    tc.flushed_hits = tc.cache.hits();
  }
  return tc;
}

void LearnedStore::CountCache(ThreadCache& tc) const {
  uint64_t lookups = tc.cache.lookups();
  if (lookups - tc.flushed_lookups < 1024) return;
  cache_lookups_.fetch_add(lookups - tc.flushed_lookups, std::memory_order_relaxed);
  cache_hits_.fetch_add(tc.cache.hits() - tc.flushed_hits, std::memory_order_relaxed);
  tc.flushed_lookups = lookups;
  tc.flushed_hits = tc.cache.hits();
}

std::optional<ValueHandle> LearnedStore::Write(std::string_view key, uint64_t hash,
                                               ValueHandle value, bool erase, bool* full) {
  // Other threads' cached entries for this key die with the stamp bump; the write must be
  // visible (read version released) before EndWrite.
  if (opt_.hot_cache) stamps_.BeginWrite(hash);
  std::optional<ValueHandle> old = Append(key, hash, value, erase, full);
  if (opt_.hot_cache) stamps_.EndWrite(hash);
  return old;
}

std::optional<ValueHandle> LearnedStore::Append(std::string_view key, uint64_t hash,
                                                ValueHandle value, bool erase, bool* full) {
  EpochGuard guard(epochs_);
  for (;;) {
    Path path;
    Descend(key, false, false, &path);
    Leaf* leaf = path.leaf;
    InsertBuffer* buf = BufferOf(leaf);
    uint32_t slot = buf->reserved.fetch_add(1, std::memory_order_acq_rel);
    if (slot >= buf->capacity) {
      if (full != nullptr) {
        *full = true;
        return std::nullopt;
      }
      // Full: help rather than wait. Once every slot is published, the first to claim the
      // patch (this writer or a patcher thread) applies it; the others wait for the leaves
      // that replace this one and retry there. Helping spares the writer a patcher's wake-up
      // latency, which on a loaded machine is far longer than the patch itself.
      if (buf->published.load(std::memory_order_acquire) == buf->capacity &&
          leaf->claimed.exchange(1, std::memory_order_acq_rel) == 0) {
        KeyBuffer fence;
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
      bool in_leaf = false;
      old = ReadLeaf(leaf, key, hash, kNewest, &in_leaf);
      uint64_t version = read_version_.load(std::memory_order_relaxed) + 1;
      BufferEntry& e = buf->entries[slot];
      e.version = version;
      e.head = leaf->Head(key);
      buf->tags[slot] = InsertBuffer::Tag(hash);
      e.value = value;
      e.key = buf->CopyKey(key);
      e.len = static_cast<uint32_t>(key.size());
      e.erase = erase;
      e.added = !erase && !in_leaf;
      buf->published.store(slot + 1, std::memory_order_release);
      read_version_.store(version, std::memory_order_release);
    }

    const int32_t added = !erase && !old ? 1 : erase && old ? -1 : 0;
    if (added != 0) keys_.fetch_add(added, std::memory_order_relaxed);
    const int32_t live = static_cast<int32_t>(leaf->n) + added +
                         buf->live_delta.fetch_add(added, std::memory_order_relaxed);
    if (slot + 1 == buf->capacity) {
      KeyBuffer fence;
      PostRequest({leaf, std::string(path.LowFence(&fence)), 0});
    } else if (added < 0 && live < thin_leaf_ &&
               !buf->merge_posted.exchange(true, std::memory_order_relaxed)) {
      // An erase thinned the leaf: it asks once to be merged rather than wait for its buffer
      // to fill, which may never happen (the keys of a sliding window move on).
      KeyBuffer fence;
      PostRequest({nullptr, std::string(path.LowFence(&fence)), 0});
    }
    return old;
  }
}

void LearnedStore::PostRequest(PatchRequest request) {
  bool wake;
  {
    std::lock_guard lock(queue_mu_);
    queue_.push_back(std::move(request));
    ++in_flight_;
    wake = queue_.size() >= kWakeBacklog;
  }
  if (wake) queue_cv_.notify_one();
}

InsertBuffer* LearnedStore::BufferOf(Leaf* leaf) const {
  InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
  if (buf != nullptr) return buf;
  InsertBuffer* fresh = InsertBuffer::New(static_cast<uint32_t>(opt_.insert_buffer));
  if (leaf->buffer.compare_exchange_strong(buf, fresh, std::memory_order_acq_rel)) return fresh;
  InsertBuffer::Delete(fresh);
  return buf;
}

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
  KeyBuffer& key = scratch->key;
  key.Assign(leaf->Prefix(), {});
  const size_t prefix_len = leaf->prefix_len;
  // Copies: the visitor is opaque to the compiler, which would otherwise reload them per key.
  const SuffixOffsets off = leaf->off;
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

void LearnedStore::BulkLoad(BulkSource next) {
  // Requests still queued (merge checks of an emptied tree) must not meet the tree freed below,
  // nor may the idle sweep walk it.
  std::lock_guard sweep(sweep_mu_);
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
        NewInners(level.Views(), static_cast<uint32_t>(opt_.inner_error), 1.0);
    level = PivotList();
    for (Inner* in : made) level.Add(in->Parts(0).head, in->Parts(0).tail, in);
    if (made.size() == 1) break;
  }
  Node* old = root_.exchange(level.payload(0), std::memory_order_acq_rel);
  FreeTree(old);
  keys_.store(static_cast<int64_t>(entries.size()), std::memory_order_relaxed);
  // Lookups of the empty store may have cached the loaded keys as absent.
  ForgetCachedEntries();
}

void LearnedStore::Clear() {
  // Patches still queued refer to leaves of the tree being dropped: let them finish first (no
  // writer can post more, by the precondition), and keep the idle sweep from sealing its leaves.
  std::lock_guard sweep(sweep_mu_);
  Quiesce();
  Leaf* leaf = NewLeaf({}, 0, {}, 0);
  Pivot p{std::string_view(), leaf};
  Inner* fresh = NewInners({&p, 1}, static_cast<uint32_t>(opt_.inner_error), 1.0).front();
  {
    std::lock_guard lock(structure_mu_);
    Node* old = root_.exchange(fresh, std::memory_order_acq_rel);
    RetireTree(old);  // readers still inside it finish before it is freed
    keys_.store(0, std::memory_order_relaxed);
  }
  ForgetCachedEntries();
  epochs_.Reclaim();
}

void LearnedStore::ForgetCachedEntries() {
  // Every thread's cached entries die with a bump of every stamp stripe.
  for (size_t s = 0; s < WriteStamps::kStripes; ++s) {
    const uint64_t stripe_hash = uint64_t{s} << 52;
    stamps_.BeginWrite(stripe_hash);
    stamps_.EndWrite(stripe_hash);
  }
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
    void AddModels(const SegModel* seg, int nseg) {
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
  s.idle_flushes = idle_flushes_.load(std::memory_order_relaxed);
  s.retired_pending = epochs_.pending();
  s.retired_bytes = epochs_.pending_bytes();
  s.hot_cache_lookups = cache_lookups_.load(std::memory_order_relaxed);
  s.hot_cache_hits = cache_hits_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace ordis::index::learned

namespace ordis::index {

std::unique_ptr<OrderedStore> NewLearnedStore(const LearnedStoreOptions& options) {
  return std::make_unique<learned::LearnedStore>(options);
}

std::unique_ptr<OrderedStore> NewLearnedStore() { return NewLearnedStore(LearnedStoreOptions{}); }

}  // namespace ordis::index
