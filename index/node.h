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
  const uint64_t* mk2;  // the next 8 bytes: orders a run of equal model keys without key bytes
  const uint32_t* off;  // n + 1 offsets into bytes
  const char* bytes;
  uint32_t n;
  uint32_t prefix_len;
  const char* prefix;  // a copy next to the node's header: checking it costs no extra line

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

// How many leading bytes a and b share.
size_t CommonPrefix(std::string_view a, std::string_view b);

// Which side of col's common prefix key falls: -1 below every key of col, +1 above every key, 0
// sharing the prefix.
int Side(const KeyColumn& col, std::string_view key);

// One PLA segment of a node: positions [start, start + count), predicted within error.
struct SegModel {
  LinearModel model;
  uint32_t start;
  uint32_t count;
  uint32_t error;
};

// Lower bound of key in col through its segments: the segment is chosen by comparing the model
// key with each segment's first model key, then its model gives the search window.
Found SegmentedLowerBound(const KeyColumn& col, std::string_view key, int nseg,
                          const uint64_t* seg_first, const SegModel* seg);

// Starts loading the lines a SegmentedLowerBound of key will read (the model's search window),
// returning the predicted position; a batch of lookups calls it for every key before searching any.
uint32_t PrefetchWindow(const KeyColumn& col, std::string_view key, int nseg,
                        const uint64_t* seg_first, const SegModel* seg);

// Cuts xs into at most max_segments segments predicting within max_error where it can (the
// last segment takes whatever is left, with its measured error).
int FitSegments(std::span<const uint64_t> xs, uint32_t max_error, int max_segments,
                uint64_t* seg_first, SegModel* seg);

struct Leaf : Node {
  static constexpr int kMaxSegments = 4;

  uint8_t nseg;
  uint16_t prefix_len;
  uint32_t n;
  uint64_t seg_first[kMaxSegments];
  SegModel seg[kMaxSegments];
  // Write version of the newest entry merged in; readers at an older version read what this leaf
  // replaced: `prev`, or for a merge `prev` below `prev_split` and `prev_right` from it on.
  uint64_t version;
  Leaf* prev;
  Leaf* prev_right;
  const char* prev_split;  // a copy in this leaf's allocation
  uint32_t prev_split_len;
  std::atomic<InsertBuffer*> buffer;
  std::atomic<uint32_t> retired;  // replaced by a patch: writers meeting a full buffer retry
  std::atomic<uint32_t> claimed;  // a patcher or a helping writer has taken its patch
  // Two owners release a patched leaf: the patch that replaced it, and the queued patch request
  // that still points at it. The last one retires it.
  std::atomic<uint32_t> owners;
  size_t bytes;  // allocation size
  size_t key_bytes;
  uint64_t* mk;
  uint64_t* mk2;
  ValueHandle* handles;
  uint32_t* off;
  char* keys;
  char* prefix;

  KeyColumn column() const { return {mk, mk2, off, keys, n, prefix_len, prefix}; }
  std::string_view Key(uint32_t i) const { return column().Key(i); }
  std::string_view PrevSplit() const { return {prev_split, prev_split_len}; }
  Found Search(std::string_view key) const {
    return SegmentedLowerBound(column(), key, nseg, seg_first, seg);
  }
  void PrefetchFor(std::string_view key) const {
    uint32_t at = PrefetchWindow(column(), key, nseg, seg_first, seg);
    __builtin_prefetch(handles + at);
  }
  // A 64-bit summary of key that orders like the key (ties need the full compare): its model key
  // when it shares the leaf's prefix, else 0 or all ones.
  uint64_t Head(std::string_view key) const;
};

struct KeyValue {
  std::string_view key;
  ValueHandle value;
};

// What a new leaf replaced: one leaf, or two neighbours merged (`right` held the keys >= `split`).
struct Replaced {
  Leaf* left = nullptr;
  Leaf* right = nullptr;
  std::string_view split;
};

// A new leaf holding entries (sorted, distinct); its insert buffer starts empty.
Leaf* NewLeaf(std::span<const KeyValue> entries, uint64_t version, const Replaced& replaced,
              uint32_t max_error);
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
  SegModel seg[kMaxSegments];
  size_t bytes;
  size_t key_bytes;
  uint64_t* mk;
  uint64_t* mk2;
  std::atomic<Node*>* child;
  uint32_t* off;
  char* keys;
  char* prefix;

  KeyColumn column() const { return {mk, mk2, off, keys, n, prefix_len, prefix}; }
  std::string_view Key(uint32_t i) const { return column().Key(i); }
  void PrefetchFor(std::string_view key) const {
    uint32_t at = PrefetchWindow(column(), key, nseg, seg_first, seg);
    __builtin_prefetch(child + at);
  }
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
