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

class OrderedStore {
 public:
  virtual ~OrderedStore() = default;

  virtual std::optional<ValueHandle> Get(std::string_view key) const = 0;
  // Get of each key at once: found[i] is keys[i]'s handle, or nullopt.
  virtual void GetBatch(std::span<const std::string_view> keys,
                        std::span<std::optional<ValueHandle>> found) const = 0;
  // Inserts or replaces; returns the handle it replaced, if any.
  virtual std::optional<ValueHandle> Put(std::string_view key, ValueHandle value) = 0;
  // Returns the handle it removed, if any.
  virtual std::optional<ValueHandle> Erase(std::string_view key) = 0;
  virtual void Scan(const ScanStart& start, Direction direction, ScanVisitor visit) const = 0;
  // A hint that Get or Put of these keys follows soon: starts loading what their lookups will
  // touch, so a batch of lookups overlaps its cache misses instead of paying them one by one.
  virtual void Prefetch(std::span<const std::string_view> keys) const { (void)keys; }
  virtual size_t size() const = 0;
};

// The first implementation: a B-tree of entries (24-byte inline key prefixes) for order plus a hash
// index over the same entries for point operations, under a writer-preferring reader-writer lock
// (map_store.cc). It stays as the reference model for differential tests of the learned-index tree.
std::unique_ptr<OrderedStore> NewMapStore();

}  // namespace ordis::index
