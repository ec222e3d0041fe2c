// Node layouts of the learned tree (DPA-Store section 3.1, Figure 4) and the searches over them.
//
// Both kinds store their keys' common prefix once and, per key, sorted, only the bytes after it
// (the suffix) and one 8-byte model key: the 8 bytes that follow the prefix, big-endian and
// zero-padded. The models predict positions from model keys; the last-mile search compares model
// keys first and suffixes only on a tie, so a lookup reads a window of 8-byte integers and rarely
// touches key bytes. A whole key is assembled (prefix + suffix) only where one is handed out.
//
// Nodes are immutable once published, except a leaf's insert buffer and retired flag and an inner
// node's child pointers, which patchers swap in place (RCU).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
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

// Nodes keep this many readable bytes after their last suffix, so suffixes are copied in whole
// 16-byte blocks.
inline constexpr size_t kSuffixSlack = 16;

// A whole key assembled from a node's prefix and one of its suffixes, to hand out: the first
// kInline bytes live in the object, so a scan assembles every key it visits without allocating,
// and a suffix is copied 16 bytes at a time (kSuffixSlack).
class KeyBuffer {
 public:
  KeyBuffer() = default;
  KeyBuffer(const KeyBuffer&) = delete;
  KeyBuffer& operator=(const KeyBuffer&) = delete;

  // prefix, then a node's suffix.
  std::string_view Assign(std::string_view prefix, std::string_view node_suffix) {
    Reserve(prefix.size());
    if (!prefix.empty()) std::memcpy(data_, prefix.data(), prefix.size());
    return Replace(prefix.size(), node_suffix);
  }
  // The first `keep` bytes held (an Assign's prefix), then a node's suffix.
  std::string_view Replace(size_t keep, std::string_view node_suffix) {
    Reserve(keep + node_suffix.size() + kSuffixSlack);
    for (size_t k = 0; k < node_suffix.size(); k += kSuffixSlack) {
      std::memcpy(data_ + keep + k, node_suffix.data() + k, kSuffixSlack);
    }
    size_ = keep + node_suffix.size();
    return view();
  }
  std::string_view view() const { return {data_, size_}; }

 private:
  static constexpr size_t kInline = 128;

  // Keeps every byte held so far (a prefix just written is not counted in size_ yet).
  void Reserve(size_t n) {
    if (n <= cap_) return;
    const size_t cap = std::max(n, 2 * cap_);
    auto bigger = std::make_unique<char[]>(cap);
    std::memcpy(bigger.get(), data_, cap_);
    heap_ = std::move(bigger);
    data_ = heap_.get();
    cap_ = cap;
  }

  char inline_[kInline];
  std::unique_ptr<char[]> heap_;
  char* data_ = inline_;
  size_t size_ = 0;
  size_t cap_ = kInline;
};

// Where each key's suffix lies in a node's suffix bytes. Keys of one node often have suffixes of
// one length (fixed-width ids, counters, hashes): then suffix i starts at i * stride and no
// offsets are stored. Otherwise n + 1 offsets, of 2 bytes when the suffixes total under 64 KiB
// (nearly always), else 4.
struct SuffixOffsets {
  const void* at = nullptr;  // the offsets; none for a fixed stride
  uint32_t stride = 0;
  uint8_t width = 0;  // bytes per offset: 0 (fixed stride), 2 or 4

  uint32_t Begin(uint32_t i) const {
    switch (width) {
      case 0:
        return i * stride;
      case 2:
        return static_cast<const uint16_t*>(at)[i];
      default:
        return static_cast<const uint32_t*>(at)[i];
    }
  }
  uint32_t Length(uint32_t i) const {
    switch (width) {
      case 0:
        return stride;
      case 2:
        return static_cast<uint32_t>(static_cast<const uint16_t*>(at)[i + 1] -
                                     static_cast<const uint16_t*>(at)[i]);
      default:
        return static_cast<const uint32_t*>(at)[i + 1] - static_cast<const uint32_t*>(at)[i];
    }
  }
  // Starts loading what Begin(i) and Length(i) read.
  void Prefetch(uint32_t i) const {
    if (width != 0) __builtin_prefetch(static_cast<const char*>(at) + size_t{i} * width);
  }
};

// Sorted keys, stored as one prefix and per-key suffixes, with their model keys: the search view
// shared by leaves and inner nodes.
struct KeyColumn {
  const uint64_t* mk;
  SuffixOffsets off;     // where each suffix lies in `suffixes`
  const char* suffixes;  // each key's bytes after the prefix
  uint32_t n;
  uint32_t prefix_len;
  const char* prefix;  // next to the node's header: checking it costs no extra line

  std::string_view Prefix() const { return {prefix, prefix_len}; }
  std::string_view Suffix(uint32_t i) const { return {suffixes + off.Begin(i), off.Length(i)}; }
  // Key i, assembled in *out (the view is of *out).
  std::string_view Key(uint32_t i, KeyBuffer* out) const {
    return out->Assign(Prefix(), Suffix(i));
  }
  // Negative, zero or positive as key i orders before, equal to or after key.
  int Compare(uint32_t i, std::string_view key) const {
    const size_t n = std::min<size_t>(prefix_len, key.size());
    if (int c = n == 0 ? 0 : std::memcmp(prefix, key.data(), n); c != 0) return c;
    if (key.size() < prefix_len) return 1;
    return Suffix(i).compare(key.substr(prefix_len));
  }
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
  size_t bytes;      // allocation size
  size_t key_bytes;  // the prefix and the suffixes
  uint64_t* mk;
  ValueHandle* handles;
  SuffixOffsets off;
  char* suffixes;
  char* prefix;

  KeyColumn column() const { return {mk, off, suffixes, n, prefix_len, prefix}; }
  std::string_view Prefix() const { return {prefix, prefix_len}; }
  std::string_view Suffix(uint32_t i) const { return {suffixes + off.Begin(i), off.Length(i)}; }
  std::string_view Key(uint32_t i, KeyBuffer* out) const { return column().Key(i, out); }
  // Negative, zero or positive as key i orders before, equal to or after key.
  int Compare(uint32_t i, std::string_view key) const {
    const size_t n = std::min<size_t>(prefix_len, key.size());
    if (int c = n == 0 ? 0 : std::memcmp(prefix, key.data(), n); c != 0) return c;
    if (key.size() < prefix_len) return 1;
    return Suffix(i).compare(key.substr(prefix_len));
  }
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
  size_t key_bytes;  // the prefix and the suffixes
  uint64_t* mk;
  std::atomic<Node*>* child;
  SuffixOffsets off;
  char* suffixes;
  char* prefix;
  // Pivot 0, the node's low fence, is kept whole here; the column holds the prefix in its place
  // (see NewInners), so pivot 0 does not cut the prefix short: on the left edge it is the empty
  // key, and every pivot would tie in its model key.
  const char* low_fence;
  uint32_t low_fence_len;

  KeyColumn column() const { return {mk, off, suffixes, n, prefix_len, prefix}; }
  // Pivot i as two pieces to concatenate.
  struct KeyParts {
    std::string_view head, tail;
  };
  KeyParts Parts(uint32_t i) const {
    if (i == 0) return {{low_fence, low_fence_len}, {}};
    return {{prefix, prefix_len}, {suffixes + off.Begin(i), off.Length(i)}};
  }
  std::string_view Key(uint32_t i, KeyBuffer* out) const {
    KeyParts k = Parts(i);
    return out->Assign(k.head, k.tail);
  }
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
