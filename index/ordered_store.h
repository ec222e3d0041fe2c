// index/: the ordered keyspace. Maps byte-string keys (any bytes, any length, ordered by memcmp,
// shorter first on a common prefix) to 64-bit value handles. The store never interprets handles;
// the layer above owns what they point to.
//
// Thread safety: every method may be called concurrently from any thread. A Scan sees each entry
// at most once, in key order; an entry present for the whole Scan is always visited.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace ordis::index {

using ValueHandle = uint64_t;

enum class Direction { kForward, kReverse };

// Where a scan starts. Forward: the first key >= key (> key if !inclusive); reverse: the last key
// <= key (< key if !inclusive). `unbounded` starts at the first (forward) or last (reverse) key.
struct ScanStart {
  std::string_view key;
  bool inclusive = true;
  bool unbounded = false;

  static ScanStart At(std::string_view k) { return {k, true, false}; }
  static ScanStart After(std::string_view k) { return {k, false, false}; }
  static ScanStart Edge() { return {{}, true, true}; }
};

// Return false to stop the scan. The key view is valid only during the call.
using ScanVisitor = absl::FunctionRef<bool(std::string_view key, ValueHandle value)>;

// Bulk-load input: fills *key and *value with the next pair and returns true, or returns false at
// the end. Keys come in strictly increasing order; *key stays valid until the next call.
using BulkSource = absl::FunctionRef<bool(std::string_view* key, ValueHandle* value)>;

// What INFO's index section reports. Fields a store does not have stay zero.
struct IndexStats {
  uint64_t keys = 0;
  uint64_t leaves = 0;
  uint64_t inner_nodes = 0;
  uint64_t depth = 0;           // levels, leaves included
  double mean_model_error = 0;  // over leaf and inner models, in positions
  uint64_t max_model_error = 0;
  uint64_t buffered_entries = 0;  // writes waiting in insert buffers
  uint64_t buffer_slots = 0;      // capacity of the insert buffers allocated
  uint64_t patches = 0;           // insert buffers merged into their leaves
  uint64_t splits = 0;            // leaves and inner nodes split by patches
  uint64_t merges = 0;            // leaves merged with a neighbour by patches
  uint64_t idle_flushes = 0;      // partly filled buffers merged after their leaf went idle
  uint64_t index_bytes = 0;       // node memory, excluding key bytes
  uint64_t key_bytes = 0;         // key bytes stored in nodes and buffers
  uint64_t retired_pending = 0;   // replaced nodes waiting for epoch reclamation
  uint64_t retired_bytes = 0;     // their memory
  uint64_t hot_cache_lookups = 0;
  uint64_t hot_cache_hits = 0;
};

class OrderedStore {
 public:
  virtual ~OrderedStore() = default;

  virtual std::optional<ValueHandle> Get(std::string_view key) const = 0;
  // Get of each key at once: found[i] is keys[i]'s handle, or nullopt.
  void GetBatch(std::span<const std::string_view> keys,
                std::span<std::optional<ValueHandle>> found) const {
    GetBatch(keys, found, {});
  }
  // The same for a batch whose commands write some of its keys next (writes[i]: keys[i] is;
  // empty: none): a store may also start loading for write where those writes will go.
  virtual void GetBatch(std::span<const std::string_view> keys,
                        std::span<std::optional<ValueHandle>> found,
                        std::span<const bool> writes) const = 0;
  // Inserts or replaces; returns the handle it replaced, if any.
  virtual std::optional<ValueHandle> Put(std::string_view key, ValueHandle value) = 0;
  // Returns the handle it removed, if any.
  virtual std::optional<ValueHandle> Erase(std::string_view key) = 0;
  // Erase of a key the caller has just found and no one else writes: the same result, without
  // the lookup Erase may make first so that absent keys cost nothing (an absent key is still
  // handled right, at the price of a write buffer slot).
  virtual std::optional<ValueHandle> ErasePresent(std::string_view key) { return Erase(key); }
  // ErasePresent, unless the key's node must be rebuilt before it takes the erase (a learned
  // leaf whose write buffer is full, its patch not yet applied): then nothing changes and it
  // returns false. For a caller that may as well erase another key (eviction), so that it
  // leaves the rebuild to the store's background threads.
  virtual bool TryErasePresent(std::string_view key, std::optional<ValueHandle>* erased) {
    *erased = ErasePresent(key);
    return true;
  }
  virtual void Scan(const ScanStart& start, Direction direction, ScanVisitor visit) const = 0;
  // A hint that Get or Put of these keys follows soon: starts loading what their lookups will
  // touch, so a batch of lookups overlaps its cache misses instead of paying them one by one.
  virtual void Prefetch(std::span<const std::string_view> keys) const { (void)keys; }
  virtual size_t size() const = 0;
  // Memory of nodes unlinked and waiting for readers that may still hold them to move on (epoch
  // reclamation): on its way back, usually within a patch or two. Cheap: one atomic load.
  virtual uint64_t RetiredBytes() const { return 0; }
  // Runs of up to `count` entries of [lo, hi), one run per element of `randoms` (picked from its
  // bits), for the eviction pool, each entry visited with its current value: without rank counts,
  // a store descends through random children overlapping the range and takes a run of neighbours
  // from a random position of the leaf it reaches, so every key is about equally likely to be
  // among them. A run visits fewer when its leaf holds fewer; entries still in a write buffer are
  // offered only from a leaf whose run found no live key of the range. The runs of one call may
  // descend together so that their cache misses overlap (an eviction burst asks for many). False
  // when the store cannot sample (the caller falls back on something coarser). Precondition: no
  // concurrent writers (the sample is not a snapshot).
  using SampleVisitor = absl::FunctionRef<void(std::string_view key, ValueHandle value)>;
  virtual bool Sample(std::string_view lo, std::string_view hi, std::span<const uint64_t> randoms,
                      size_t count, SampleVisitor visit) const {
    (void)lo, (void)hi, (void)randoms, (void)count, (void)visit;
    return false;
  }

  // Loads sorted input into an empty store (snapshot loading). Precondition: size() == 0 and no
  // concurrent callers.
  virtual void BulkLoad(BulkSource next) = 0;
  // Removes every key and returns the memory the structure held (FLUSHALL). Precondition: no
  // concurrent writers; concurrent readers are fine and see all keys or none.
  virtual void Clear() = 0;
  virtual IndexStats Stats() const = 0;
  // Returns once background work queued before the call (patches) has been applied. Stats and
  // memory figures are stable after it; lookups are correct without it.
  virtual void Quiesce() {}
};

// The first implementation: a B-tree of entries (24-byte inline key prefixes) for order plus a hash
// index over the same entries for point operations, under a writer-preferring reader-writer lock
// (map_store.cc). It stays as the reference model for differential tests of the learned-index tree.
std::unique_ptr<OrderedStore> NewMapStore();

}  // namespace ordis::index
