// The learned tree's eviction sampling (OrderedStore::Sample): random root-to-leaf walks, a run of
// neighbours read at the end of each. A walk's nodes are cold (it goes where no lookup went), so
// one walk is a chain of cache misses; the walks of a call advance level by level together, each
// pass starting the loads the next pass needs, so a burst of evictions pays about one chain for
// all its samples rather than one per sample.
#include <algorithm>
#include <cstdint>

#include "index/learned_store_impl.h"
#include "index/prefetch.h"

namespace ordis::index::learned {
namespace {

// One run's walk: the random bits it draws from, and whether its node lies on an edge of the
// range. Only a node on an edge needs the bound searched: below a child strictly inside the range
// every key is in it (a search costs more than the rest of the descent).
struct Walk {
  Node* node = nullptr;
  uint64_t random = 0;
  bool on_lo_edge = true;
  bool on_hi_edge = true;
  int pick = 0;        // at an inner node: the child taken
  uint32_t begin = 0;  // at the leaf: its keys in the range are [begin, end)
  uint32_t end = 0;
  uint32_t start = 0;  // the run's first key, counted from begin
  size_t visited = 0;

  void Restart(Node* root) {
    node = root;
    on_lo_edge = on_hi_edge = true;
  }
  // Each level consumes a few bits; mixing keeps levels independent for any input.
  uint64_t Next(uint64_t n) {
    random = random * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    return n == 0 ? 0 : (random >> 17) % n;
  }
  // At an inner node (its header loaded): picks a child overlapping the range and starts loading
  // the pointer to it.
  void Pick(std::string_view lo, std::string_view hi) {
    auto* in = static_cast<Inner*>(node);
    const int first = on_lo_edge ? std::max(0, in->ChildFor(lo, false)) : 0;
    const int last =
        on_hi_edge ? std::max(first, in->ChildFor(hi, true)) : static_cast<int>(in->n) - 1;
    pick = first + static_cast<int>(Next(static_cast<uint64_t>(last - first + 1)));
    on_lo_edge = on_lo_edge && pick == first;
    on_hi_edge = on_hi_edge && pick == last;
    __builtin_prefetch(&in->child[pick]);
  }
  // At the leaf (its header loaded): places the run and starts loading its keys and handles, the
  // buffer's tags, which every key of the run is checked against, and its entries, which the run
  // reads for keys only the buffer holds. The walks of a group load theirs together.
  void Place(std::string_view lo, std::string_view hi, uint32_t buffer_capacity, uint32_t count) {
    const auto* leaf = static_cast<const Leaf*>(node);
    if (const InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire)) {
      InsertBuffer::Prefetch(buf, buffer_capacity);
      PrefetchLines(buf->entries, buffer_capacity * sizeof(BufferEntry));
    }
    begin = on_lo_edge ? leaf->Search(lo).pos : 0;
    end = on_hi_edge ? leaf->Search(hi).pos : leaf->n;
    if (begin >= end) return;
    start = static_cast<uint32_t>(Next(end - begin));
    // The run's first stretch, up to the range's end (where it wraps, its start is loaded too).
    const uint32_t i = begin + start;
    const uint32_t keys = std::min(end - i, std::max(count, 1u));
    const uint32_t stride = leaf->off.stride;
    PrefetchLines(leaf->handles + i, keys * sizeof(ValueHandle));
    leaf->off.Prefetch(i);
    leaf->off.Prefetch(i + keys - 1);
    if (leaf->off.width == 0) PrefetchLines(leaf->suffixes + size_t{i} * stride, keys * stride);
    if (i + count > end) {
      __builtin_prefetch(leaf->handles + begin);
      if (leaf->off.width == 0) __builtin_prefetch(leaf->suffixes + size_t{begin} * stride);
    }
  }
};

// A run takes at most this many of a buffer's added keys into its circle (buffers are 32 slots
// unless configured larger).
constexpr uint32_t kMaxSampledAdded = 64;

// No later entry of the buffer's first `entries` is for entry i's key (tags compared first).
bool NewestInBuffer(const InsertBuffer* buf, uint32_t i, uint32_t entries) {
  const std::string_view key = buf->entries[i].Key();
  for (uint32_t j = i + 1; j < entries; ++j) {
    if (buf->tags[j] == buf->tags[i] && buf->entries[j].Key() == key) return false;
  }
  return true;
}

}  // namespace

bool LearnedStore::Sample(std::string_view lo, std::string_view hi,
                          std::span<const uint64_t> randoms, size_t count,
                          SampleVisitor visit) const {
  EpochGuard guard(epochs_);
  const uint64_t read_version = read_version_.load(std::memory_order_acquire);
  for (size_t at = 0; at < randoms.size(); at += kSampleGroup) {
    SampleGroup(lo, hi, randoms.subspan(at, std::min(kSampleGroup, randoms.size() - at)), count,
                read_version, visit);
  }
  return true;
}

void LearnedStore::SampleGroup(std::string_view lo, std::string_view hi,
                               std::span<const uint64_t> randoms, size_t count,
                               uint64_t read_version, SampleVisitor visit) const {
  Walk walks[kSampleGroup];
  size_t n = randoms.size();
  for (size_t w = 0; w < n; ++w) walks[w].random = randoms[w];
  Walk* active[kSampleGroup];
  for (size_t w = 0; w < n; ++w) active[w] = &walks[w];
  const auto buffer_capacity = static_cast<uint32_t>(opt_.insert_buffer);
  // An edge leaf of the range may hold nothing in it: the walks that found nothing try again.
  for (int attempt = 0; attempt < 4 && n > 0; ++attempt) {
    Node* root = root_.load(std::memory_order_acquire);
    for (size_t w = 0; w < n; ++w) active[w]->Restart(root);
    // Two passes per level: one picks each walk's child (headers loaded by the previous pass) and
    // prefetches the pointer to it, the other follows the pointers and prefetches the headers.
    for (bool inner = root->kind == NodeKind::kInner; inner;) {
      inner = false;
      for (size_t w = 0; w < n; ++w) {
        if (active[w]->node->kind == NodeKind::kInner) active[w]->Pick(lo, hi);
      }
      for (size_t w = 0; w < n; ++w) {
        Walk& walk = *active[w];
        if (walk.node->kind != NodeKind::kInner) continue;
        walk.node =
            static_cast<Inner*>(walk.node)->child[walk.pick].load(std::memory_order_acquire);
        PrefetchHeader(walk.node);
        inner = true;
      }
    }
    for (size_t w = 0; w < n; ++w) {
      active[w]->Place(lo, hi, buffer_capacity, static_cast<uint32_t>(count));
    }
    size_t unlucky = 0;
    for (size_t w = 0; w < n; ++w) {
      Walk& walk = *active[w];
      const auto* leaf = static_cast<const Leaf*>(walk.node);
      const InsertBuffer* buf = leaf->buffer.load(std::memory_order_acquire);
      if (walk.begin < walk.end) {
        // A run of the leaf's keys from the random position, wrapping inside the range. A key's
        // current value is the leaf's handle unless a newer buffer entry replaced or erased it;
        // a leaf newer than this reader's version is read the slow way, through its history.
        // Keys the buffer added since the leaf was built are not among the leaf's: they follow
        // its keys in the circle the run is cut from, so every key is as likely to be in a run
        // (recent keys too: an LFU policy evicts new keys first, and with a cold tier recent
        // values are most of what is resident when the limit is small).
        uint32_t added[kMaxSampledAdded];
        uint32_t num_added = 0;
        if (buf != nullptr) {
          const uint32_t entries =
              std::min(buf->published.load(std::memory_order_acquire), buf->capacity);
          for (uint32_t i = 0; i < entries && num_added < kMaxSampledAdded; ++i) {
            const BufferEntry& e = buf->entries[i];
            if (!e.added || e.version > read_version || e.Key() < lo || e.Key() >= hi) continue;
            if (NewestInBuffer(buf, i, entries)) added[num_added++] = i;
          }
        }
        const bool current = leaf->version <= read_version;
        const uint32_t span = walk.end - walk.begin;
        const uint32_t circle = span + num_added;
        const uint32_t keys = std::min<uint32_t>(static_cast<uint32_t>(count), circle);
        const uint32_t start =
            num_added == 0 ? walk.start : static_cast<uint32_t>(walk.Next(circle));
        KeyBuffer key;
        for (uint32_t k = 0; k < keys; ++k) {
          const uint32_t at = (start + k) % circle;
          if (at >= span) {
            const BufferEntry& e = buf->entries[added[at - span]];
            visit(e.Key(), e.value);
            ++walk.visited;
            continue;
          }
          const uint32_t i = walk.begin + at;
          std::string_view ki = leaf->Key(i, &key);
          std::optional<ValueHandle> value;
          if (!current) {
            value = ReadLeaf(leaf, ki, HashKey(ki), read_version);
          } else if (const BufferEntry* e = NewestBuffered(buf, ki, HashKey(ki), read_version)) {
            if (!e->erase) value = e->value;
          } else {
            value = leaf->handles[i];
          }
          if (value) {
            visit(ki, *value);
            ++walk.visited;
          }
        }
        if (walk.visited > 0) continue;
        // Every key of the run was erased since the leaf was built (evictions leave such runs
        // behind until the leaf's patch): its buffer, then another leaf.
      }
      // A leaf with no live key in range may have some in its buffer (a small store may hold all
      // its keys in buffers): the newest entry per key decides.
      if (buf != nullptr) {
        const uint32_t entries =
            std::min(buf->published.load(std::memory_order_acquire), buf->capacity);
        const auto first = static_cast<uint32_t>(walk.Next(entries));
        for (uint32_t k = 0; k < entries && walk.visited < count; ++k) {
          const uint32_t i = (first + k) % entries;
          const BufferEntry& e = buf->entries[i];
          if (e.erase || e.version > read_version || e.Key() < lo || e.Key() >= hi) continue;
          if (!NewestInBuffer(buf, i, entries)) continue;
          visit(e.Key(), e.value);
          ++walk.visited;
        }
      }
      if (walk.visited == 0) active[unlucky++] = &walk;
    }
    n = unlucky;
  }
}

}  // namespace ordis::index::learned
