// The patchers (DPA-Store 3.2.1-3.2.2, the host patchers and stitchers in one): a full insert
// buffer's patch, merges of thinned leaves, and the structure changes both make (splits, merges,
// rebuilt parents, the root) published by pointer swap. learned_store.cc's opening comment
// explains the protocol.
#include <algorithm>
#include <string>
#include <vector>

#include "base/fatal.h"
#include "index/learned_store_impl.h"

namespace ordis::index::learned {
namespace {

// The version of the newest entry a patch of leaf's first `count` buffer entries merges in.
uint64_t NewestVersion(const Leaf* leaf, uint32_t count) {
  if (count == 0) return leaf->version;
  return leaf->buffer.load(std::memory_order_acquire)->entries[count - 1].version;
}

}  // namespace

void LearnedStore::PatchLoop(bool sweeper) {
  // The poll backs off while there is no work, so an idle server's patchers stay asleep.
  std::chrono::milliseconds poll = kPatchPoll;
  const std::chrono::milliseconds sweep_every =
      std::min(kSweepEvery, std::chrono::milliseconds(opt_.idle_flush_ms));
  auto next_sweep = std::chrono::steady_clock::now();
  for (;;) {
    PatchRequest request;
    bool requested = false;
    {
      std::unique_lock lock(queue_mu_);
      queue_cv_.wait_for(lock, poll, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      if (queue_.empty()) {
        poll = std::min(poll * 2, std::chrono::milliseconds(128));
      } else {
        poll = kPatchPoll;
        request = std::move(queue_.front());
        queue_.pop_front();
        requested = true;
      }
    }
    if (sweeper) {
      const auto now = std::chrono::steady_clock::now();
      if (now >= next_sweep) {
        SweepIdleBuffers(static_cast<uint32_t>(
            std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count()));
        next_sweep = now + sweep_every;
      }
    }
    if (!requested) {
      // Nodes retired by the last patches (or a Clear) are otherwise freed only by the next
      // patch: an idle store would hold them, and used_memory with them, indefinitely.
      if (epochs_.pending() > 0) epochs_.Reclaim();
      continue;
    }
    if (request.leaf == nullptr) {
      TryMerge(request.fence, request.attempts);
    } else {
      if (request.leaf->claimed.exchange(1, std::memory_order_acq_rel) == 0) {
        Patch(request.leaf, request.fence, static_cast<uint32_t>(opt_.insert_buffer), 0);
      }
      Release(request.leaf);
    }
    Applied();
  }
}

void LearnedStore::Applied() {
  std::lock_guard lock(queue_mu_);
  --in_flight_;
  if (queue_.empty() && in_flight_ == 0) idle_cv_.notify_all();
}

// One step of the idle sweep: visits the leaves of whole parents from the cursor on, marks each
// buffer's published count, and flushes those whose count held for idle_flush_ms.
void LearnedStore::SweepIdleBuffers(uint32_t now_ms) {
  std::unique_lock sweep(sweep_mu_, std::try_to_lock);
  if (!sweep.owns_lock()) return;  // a Clear or BulkLoad is replacing the tree
  std::vector<std::string> idle;
  {
    EpochGuard guard(epochs_);
    for (size_t visited = 0; visited < kSweepLeaves;) {
      Path path;
      Descend(sweep_cursor_, false, false, &path);
      const int d = path.depth - 1;
      Inner* parent = path.nodes[d];
      for (uint32_t i = static_cast<uint32_t>(path.idx[d]); i < parent->n; ++i, ++visited) {
        auto* leaf = static_cast<Leaf*>(parent->child[i].load(std::memory_order_acquire));
        InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
        if (buf == nullptr) continue;
        const uint32_t published = buf->published.load(std::memory_order_acquire);
        // Full (its patch is posted or under way) or being written: not idle. A thin leaf is
        // left to the merges: it is thin because erases thinned it (they post its merge) or
        // because a split just cut it off the end that keys arrive at, where a flush would merge
        // it back into its neighbour and split the two in halves (after a sliding window of
        // ascending keys, 1.5x the leaves of a fresh store).
        if (published == 0 || published >= buf->capacity ||
            buf->reserved.load(std::memory_order_acquire) != published ||
            LiveKeys(leaf) < thin_leaf_) {
          continue;
        }
        if (published != buf->swept_published) {
          buf->swept_published = published;
          buf->swept_ms = now_ms;
        } else if (now_ms - buf->swept_ms >= static_cast<uint32_t>(opt_.idle_flush_ms)) {
          path.idx[d] = static_cast<int>(i);
          KeyBuffer fence;
          idle.emplace_back(path.LowFence(&fence));
        }
      }
      // On to the next parent's leaves, or back to the first leaf at the tree's end.
      path.idx[d] = static_cast<int>(parent->n) - 1;
      KeyBuffer next;
      const Bound high = path.HighFence(&next);
      if (high.unbounded) {
        sweep_cursor_.clear();
        break;
      }
      sweep_cursor_.assign(high.key);
    }
  }
  if (idle.empty()) return;
  // Quiesce waits for these patches as for posted ones.
  {
    std::lock_guard lock(queue_mu_);
    ++in_flight_;
  }
  for (const std::string& fence : idle) FlushIdle(fence);
  Applied();
}

// Merges the idle buffer of the leaf holding fence into it, unless a patch replaced the leaf
// since the sweep saw it (its buffer filled or was sealed) or it turned thin.
void LearnedStore::FlushIdle(const std::string& fence) {
  EpochGuard guard(epochs_);
  Path path;
  Descend(fence, false, false, &path);
  if (path.leaf->buffer.load(std::memory_order_acquire) == nullptr ||
      LiveKeys(path.leaf) < thin_leaf_) {
    return;
  }
  if (std::optional<uint32_t> count = Seal(path.leaf)) {
    idle_flushes_.fetch_add(1, std::memory_order_relaxed);
    Patch(path.leaf, fence, *count, 0);
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
      for (Leaf* leaf : leaves) DeleteLeaf(leaf);
      // The right one's fence is where the old versions part: a reader at an older version
      // reads the left leaf below it and the right one from it on.
      const bool right = at > self;
      EntryList theirs = Collect(neighbour);
      EntryList& all = right ? mine : theirs;
      all.Append(right ? theirs : mine);
      KeyBuffer split;
      const Replaced lineage{right ? old : neighbour, right ? neighbour : old,
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
                                             const Replaced& replaced, Growth growth) const {
  std::vector<Leaf*> out;
  const size_t cap = static_cast<size_t>(opt_.leaf_capacity);
  const size_t n = entries.size();
  auto add = [&](size_t begin, size_t end) {
    out.push_back(NewLeaf(entries.subspan(begin, end - begin), version, replaced, LeafError()));
  };
  if (n <= cap) {
    add(0, n);
    return out;
  }
  const size_t max_count = std::max<size_t>(1, static_cast<size_t>(cap * kSplitFill));
  if (growth != Growth::kAnywhere) {
    // Keys arrive at one end (ascending or descending ids, timestamps): the pieces away from it
    // will take no more keys, so they are cut at the retrain bound and the rest stays at the
    // growing end. A rest under half full would be thin: the growing end then keeps half the
    // bound and the pieces away from it share the others equally (a patch of a few entries,
    // as an idle flush is, took 17 keys of 16-key leaves to halves, 8 and 9, before).
    const bool append = growth == Growth::kAppend;
    const size_t full = (n - cap + max_count - 1) / max_count;
    const size_t rest = n - full * max_count;
    const size_t end_piece = rest >= max_count / 2 ? rest : max_count / 2;
    const size_t others = n - end_piece;
    const size_t pieces = (others + max_count - 1) / max_count;
    const size_t lo = append ? 0 : end_piece;  // where the pieces away from the end begin
    if (!append) add(0, end_piece);
    for (size_t p = 0; p < pieces; ++p) {
      add(lo + others * p / pieces, lo + others * (p + 1) / pieces);
    }
    if (append) add(others, n);
    return out;
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
        NewInners(pivots.Views(), static_cast<uint32_t>(opt_.inner_error), kSplitFill);
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
          NewInners(replacement.Views(), static_cast<uint32_t>(opt_.inner_error), 1.0);
      replacement = PivotList();
      for (Inner* in : made) add_first(in, &replacement);
    }
    Node* root = replacement.payload(0);
    while (static_cast<Inner*>(root)->n == 1 &&
           static_cast<Inner*>(root)->child[0].load(std::memory_order_relaxed)->kind ==
               NodeKind::kInner) {
      auto* top = static_cast<Inner*>(root);
      root = top->child[0].load(std::memory_order_relaxed);
      DeleteInner(top);
    }
    root_.store(root, std::memory_order_release);
  }
  for (Inner* in : retired) epochs_.Retire(in, DeleteInnerThunk, NodeBytes(in));
}

void LearnedStore::FreeTree(Node* node) {
  if (node->kind == NodeKind::kLeaf) {
    DeleteLeaf(static_cast<Leaf*>(node));
    return;
  }
  auto* in = static_cast<Inner*>(node);
  for (uint32_t i = 0; i < in->n; ++i) FreeTree(in->child[i].load(std::memory_order_relaxed));
  DeleteInner(in);
}

void LearnedStore::RetireTree(Node* node) {
  if (node->kind == NodeKind::kLeaf) {
    epochs_.Retire(node, DeleteLeafThunk, NodeBytes(static_cast<Leaf*>(node)));
    return;
  }
  auto* in = static_cast<Inner*>(node);
  for (uint32_t i = 0; i < in->n; ++i) RetireTree(in->child[i].load(std::memory_order_relaxed));
  epochs_.Retire(in, DeleteInnerThunk, NodeBytes(in));
}

}  // namespace ordis::index::learned
