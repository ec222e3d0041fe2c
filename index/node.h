// Node layouts of the learned tree (DPA-Store section 3.1, Figure 4) and the searches over them.
//
// Both kinds store full keys, sorted, with one 8-byte model key per key: the 8 bytes that follow
// the node's common prefix, big-endian and zero-padded. The models predict positions from model
// keys; the last-mile search compares model keys first and full keys only on a tie, so a lookup
// reads a window of 8-byte integers and rarely touches key bytes.
//
// Nodes are immutable once published, except a leaf's insert buffer and retired flag and an inner
// node's child pointers, which patchers swap in place (RCU).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "index/ordered_store.h"
#include "index/pla.h"

namespace ordis::index::learned {

enum class NodeKind : uint8_t { kLeaf, kInner };

struct Node {
  NodeKind kind;
};

struct InsertBuffer;

// Sorted full keys with their model keys: the search view shared by leaves and inner nodes.
struct KeyColumn {
  const uint64_t* mk;
  const uint32_t* off;  // n + 1 offsets into bytes
  const char* bytes;
  uint32_t n;
  uint32_t prefix_len;

  std::string_view Key(uint32_t i) const { return {bytes + off[i], off[i + 1] - off[i]}; }
};

struct Found {
  uint32_t pos;  // first key >= the probe
  bool exact;    // key at pos equals the probe
};

// The 8 key bytes after `prefix_len`, big-endian, zero-padded.
inline uint64_t ModelKey(std::string_view key, size_t prefix_len) {
  unsigned char buf[8] = {};
  if (key.size() > prefix_len) {
    std::memcpy(buf, key.data() + prefix_len, std::min<size_t>(8, key.size() - prefix_len));
  }
  uint64_t v;
  std::memcpy(&v, buf, 8);
  return __builtin_bswap64(v);
}

// Lower bound of key in col, trusting the model's window [lo, hi) when it brackets the answer and
// searching everything when it does not (a key outside the node's trained range).
Found LowerBound(const KeyColumn& col, std::string_view key, uint32_t lo, uint32_t hi);
// Lower bound with the window from a model prediction.
Found ModelLowerBound(const KeyColumn& col, std::string_view key, const LinearModel& model,
                      uint32_t error, uint32_t seg_start, uint32_t seg_count);

struct Leaf : Node {
  uint16_t prefix_len;
  uint32_t n;
  uint32_t error;
  LinearModel model;
  // Write version of the newest entry merged in; readers at an older version read `prev`.
  uint64_t version;
  Leaf* prev;
  std::atomic<InsertBuffer*> buffer;
  std::atomic<uint32_t> retired;  // replaced by a patch: writers meeting a full buffer retry
  size_t bytes;                   // allocation size
  size_t key_bytes;
  uint64_t* mk;
  ValueHandle* handles;
  uint32_t* off;
  char* keys;

  KeyColumn column() const { return {mk, off, keys, n, prefix_len}; }
  std::string_view Key(uint32_t i) const { return column().Key(i); }
  Found Search(std::string_view key) const {
    return ModelLowerBound(column(), key, model, error, 0, n);
  }
};

struct KeyValue {
  std::string_view key;
  ValueHandle value;
};

// A new leaf holding entries (sorted, distinct); its insert buffer starts empty.
Leaf* NewLeaf(std::span<const KeyValue> entries, uint64_t version, Leaf* prev);
// Frees the leaf and its insert buffer.
void DeleteLeaf(Leaf* leaf);

// An inner node: up to 7 segments. Metadata and the segments' first model keys fill the first
// cache line, which a traverser reads before anything else; the segment models follow, then the
// pivots' model keys, child pointers and key bytes in separate arrays (more pivots per line).
struct alignas(64) Inner : Node {
  static constexpr int kMaxSegments = 7;
  static constexpr uint32_t kMaxSegmentPivots = 128;

  uint8_t nseg;
  uint16_t prefix_len;
  uint32_t n;
  uint64_t seg_first[kMaxSegments];  // with the fields above: the first cache line
  // --- second cache line on
  struct Seg {
    LinearModel model;
    uint32_t start;
    uint32_t count;
    uint32_t error;
  } seg[kMaxSegments];
  size_t bytes;
  size_t key_bytes;
  uint64_t* mk;
  std::atomic<Node*>* child;
  uint32_t* off;
  char* keys;

  KeyColumn column() const { return {mk, off, keys, n, prefix_len}; }
  std::string_view Key(uint32_t i) const { return column().Key(i); }
  // Index of the child whose range holds key (its pivot <= key); with `strict`, of the child
  // holding the greatest keys < key (its pivot < key), -1 if none.
  int ChildFor(std::string_view key, bool strict) const;
};

struct Pivot {
  std::string_view key;  // the least key the child may hold
  Node* child;
};

// Inner nodes over pivots (sorted, distinct): one node when its PLA segmentation fits in
// kMaxSegments, else several, each filled to about `fill` of kMaxSegments.
std::vector<Inner*> NewInners(std::span<const Pivot> pivots, uint32_t max_error, double fill);
void DeleteInner(Inner* inner);

}  // namespace ordis::index::learned
