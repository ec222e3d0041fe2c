#include "index/node.h"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "index/insert_buffer.h"

namespace ordis::index::learned {
namespace {

void* Allocate(size_t bytes, size_t align) {
  bytes = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(align, bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

size_t AlignUp(size_t n, size_t a) { return (n + a - 1) / a * a; }

// The arrays both node kinds keep after their header, in one allocation: the keys' common prefix,
// model keys, one 8-byte payload per key (value handle or child pointer),
// suffix offsets (none when the suffixes have one length), suffixes, kSuffixSlack, and `extra`
// bytes for the caller.
struct KeyArrays {
  char* mem;
  size_t bytes;
  size_t key_bytes;  // prefix and suffixes
  uint64_t* mk;
  void* payload;
  SuffixOffsets off;
  char* suffixes;
  char* prefix;
  char* extra;
};

template <typename KeyOf>
KeyArrays AllocateKeyed(size_t header, uint32_t n, size_t prefix_len, size_t extra, KeyOf key_of) {
  KeyArrays a{};
  size_t suffix_bytes = 0;
  bool one_length = true;
  for (uint32_t i = 0; i < n; ++i) {
    const size_t len = key_of(i).size() - prefix_len;
    suffix_bytes += len;
    one_length = one_length && len == key_of(0).size() - prefix_len;
  }
  a.key_bytes = prefix_len + suffix_bytes;
  a.off.width = one_length ? 0 : suffix_bytes <= 0xffff ? 2 : 4;
  a.off.stride = one_length && n > 0 ? static_cast<uint32_t>(key_of(0).size() - prefix_len) : 0;
  size_t at = AlignUp(header + prefix_len, 8);
  const size_t mk_at = at;
  at += n * sizeof(uint64_t);
  const size_t payload_at = at;
  at += n * sizeof(uint64_t);
  const size_t off_at = at;
  at += a.off.width == 0 ? 0 : (n + 1) * a.off.width;
  const size_t suffixes_at = at;
  at += suffix_bytes + kSuffixSlack;
  const size_t extra_at = at;
  at += extra;
  a.mem = static_cast<char*>(Allocate(at, 64));
  a.bytes = at;
  a.mk = reinterpret_cast<uint64_t*>(a.mem + mk_at);
  a.payload = a.mem + payload_at;
  if (a.off.width != 0) a.off.at = a.mem + off_at;
  a.suffixes = a.mem + suffixes_at;
  a.extra = a.mem + extra_at;
  a.prefix = a.mem + header;
  if (prefix_len > 0) std::memcpy(a.prefix, key_of(0).data(), prefix_len);
  char* offsets = a.mem + off_at;
  auto set_offset = [&](uint32_t i, uint32_t o) {
    if (a.off.width == 2) {
      const uint16_t narrow = static_cast<uint16_t>(o);
      std::memcpy(offsets + 2 * size_t{i}, &narrow, 2);
    } else if (a.off.width == 4) {
      std::memcpy(offsets + 4 * size_t{i}, &o, 4);
    }
  };
  uint32_t o = 0;
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view k = key_of(i);
    std::string_view suffix = k.substr(prefix_len);
    set_offset(i, o);
    if (!suffix.empty()) std::memcpy(a.suffixes + o, suffix.data(), suffix.size());
    o += static_cast<uint32_t>(suffix.size());
    a.mk[i] = ModelKey(k, prefix_len);
  }
  set_offset(n, o);
  return a;
}

}  // namespace

size_t CommonPrefix(std::string_view a, std::string_view b) {
  size_t n = std::min(a.size(), b.size()), i = 0;
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

int Side(const KeyColumn& col, std::string_view key) {
  if (col.prefix_len == 0) return 0;
  std::string_view prefix(col.prefix, col.prefix_len);
  size_t n = std::min(key.size(), prefix.size());
  int c = std::memcmp(key.data(), prefix.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  return key.size() < prefix.size() ? -1 : 0;
}

uint64_t Leaf::Head(std::string_view key) const {
  int side = Side(column(), key);
  if (side != 0) return side < 0 ? 0 : ~uint64_t{0};
  return ModelKey(key, prefix_len);
}

namespace {

// Lower bound of key (whose model key is q) in col, trusting the window [lo, hi) when it brackets
// the answer and searching everything when it does not (a key outside the trained range).
Found LowerBound(const KeyColumn& col, std::string_view key, uint64_t q, uint32_t lo, uint32_t hi) {
  const uint64_t* mk = col.mk;
  uint32_t i = static_cast<uint32_t>(std::lower_bound(mk + lo, mk + hi, q) - mk);
  bool window_ok = (lo == 0 || mk[lo - 1] < q) && (i < hi || hi == col.n || mk[hi] >= q);
  if (!window_ok) i = static_cast<uint32_t>(std::lower_bound(mk, mk + col.n, q) - mk);
  if (i == col.n || mk[i] != q) return {i, false};
  uint32_t end = i + 1;
  if (end < col.n && mk[end] == q) {
    end = static_cast<uint32_t>(std::upper_bound(mk + end, mk + col.n, q) - mk);
  }
  // Model keys tie: key shares the prefix (the caller checked), so suffixes decide. When both end
  // within the 8 modelled bytes, equal words leave only the lengths to compare (zero padding sorts
  // the shorter first), and key bytes are never read.
  const std::string_view rest = key.substr(col.prefix_len);
  uint32_t a = i, b = end;
  auto compare = [&](uint32_t m) {
    const size_t len = col.off.Length(m);
    if (len <= 8 && rest.size() <= 8) {
      return len < rest.size() ? -1 : len > rest.size() ? 1 : 0;
    }
    return col.Suffix(m).compare(rest);
  };
  const uint32_t run_end = b;
  while (a < b) {
    uint32_t m = a + (b - a) / 2;
    if (compare(m) < 0) {
      a = m + 1;
    } else {
      b = m;
    }
  }
  return {a, a < run_end && compare(a) == 0};
}

// The window the model gives for model key q: its segment (by first model keys), the segment
// model's prediction, widened by the segment's error. The window's model keys and lengths start
// loading at once. Requires col.n > 0.
struct Window {
  uint32_t pred, lo, hi;
};

Window PredictWindow(const KeyColumn& col, uint64_t q, int nseg, const uint64_t* seg_first,
                     const SegModel* seg) {
  int s = 0;
  while (s + 1 < nseg && seg_first[s + 1] <= q) ++s;
  const SegModel& g = seg[s];
  uint64_t pred = g.start + std::min<uint64_t>(g.model.Predict(q), g.count - 1);
  __builtin_prefetch(col.mk + pred);
  col.off.Prefetch(pred);  // the lengths that settle a model-key tie
  uint32_t lo = pred > g.error ? static_cast<uint32_t>(pred - g.error) : 0;
  uint32_t hi = static_cast<uint32_t>(std::min<uint64_t>(col.n, pred + g.error + 2));
  return {static_cast<uint32_t>(pred), lo, hi};
}

}  // namespace

Found SegmentedLowerBound(const KeyColumn& col, std::string_view key, int nseg,
                          const uint64_t* seg_first, const SegModel* seg) {
  if (col.n == 0) return {0, false};
  int side = Side(col, key);
  if (side < 0) return {0, false};
  if (side > 0) return {col.n, false};
  const uint64_t q = ModelKey(key, col.prefix_len);
  Window w = PredictWindow(col, q, nseg, seg_first, seg);
  return LowerBound(col, key, q, w.lo, w.hi);
}

uint32_t PrefetchWindow(const KeyColumn& col, std::string_view key, int nseg,
                        const uint64_t* seg_first, const SegModel* seg) {
  if (col.n == 0 || Side(col, key) != 0) return 0;
  return PredictWindow(col, ModelKey(key, col.prefix_len), nseg, seg_first, seg).pred;
}

int FitSegments(std::span<const uint64_t> xs, uint32_t max_error, int max_segments,
                uint64_t* seg_first, SegModel* seg) {
  if (xs.empty()) {
    seg_first[0] = 0;
    seg[0] = {};
    return 0;
  }
  std::vector<Segment> segs = SegmentPla(xs, max_error, xs.size());
  if (segs.size() > static_cast<size_t>(max_segments)) {
    Segment& last = segs[max_segments - 1];
    last.count = xs.size() - last.start;
    Segment tail = FitOne(xs.subspan(last.start));
    last.model = tail.model;
    last.error = tail.error;
    segs.resize(max_segments);
  }
  for (size_t i = 0; i < segs.size(); ++i) {
    seg_first[i] = xs[segs[i].start];
    seg[i] = {segs[i].model, static_cast<uint32_t>(segs[i].start),
              static_cast<uint32_t>(segs[i].count), segs[i].error};
  }
  return static_cast<int>(segs.size());
}

Leaf* NewLeaf(std::span<const KeyValue> entries, uint64_t version, const Replaced& replaced,
              uint32_t max_error) {
  const uint32_t n = static_cast<uint32_t>(entries.size());
  const size_t prefix_len =
      n == 0 ? 0 : std::min<size_t>(CommonPrefix(entries.front().key, entries.back().key), 0xffff);
  const size_t split_len = replaced.right != nullptr ? replaced.split.size() : 0;
  KeyArrays a = AllocateKeyed(sizeof(Leaf), n, prefix_len, split_len,
                              [&](uint32_t i) { return entries[i].key; });
  auto* leaf = new (a.mem) Leaf;
  leaf->kind = NodeKind::kLeaf;
  leaf->n = n;
  leaf->version = version;
  leaf->prev = replaced.left;
  leaf->prev_right = replaced.right;
  if (split_len > 0) std::memcpy(a.extra, replaced.split.data(), split_len);
  leaf->prev_split = a.extra;
  leaf->prev_split_len = static_cast<uint32_t>(split_len);
  leaf->buffer.store(nullptr, std::memory_order_relaxed);
  leaf->retired.store(0, std::memory_order_relaxed);
  leaf->claimed.store(0, std::memory_order_relaxed);
  leaf->owners.store(2, std::memory_order_relaxed);
  leaf->bytes = a.bytes;
  leaf->key_bytes = a.key_bytes;
  leaf->mk = a.mk;
  leaf->handles = static_cast<ValueHandle*>(a.payload);
  leaf->off = a.off;
  leaf->suffixes = a.suffixes;
  leaf->prefix = a.prefix;
  leaf->prefix_len = static_cast<uint16_t>(prefix_len);
  for (uint32_t i = 0; i < n; ++i) leaf->handles[i] = entries[i].value;
  leaf->nseg = static_cast<uint8_t>(
      FitSegments({leaf->mk, n}, max_error, Leaf::kMaxSegments, leaf->seg_first, leaf->seg));
  return leaf;
}

void DeleteLeaf(Leaf* leaf) {
  if (InsertBuffer* b = leaf->buffer.load(std::memory_order_acquire)) InsertBuffer::Delete(b);
  leaf->~Leaf();
  std::free(leaf);
}

int Inner::ChildFor(std::string_view key, bool strict) const {
  const KeyColumn col = column();
  Found f{0, false};
  int side = Side(col, key);
  if (side > 0) {
    f = {n, false};
  } else if (side == 0) {
    f = SegmentedLowerBound(col, key, nseg, seg_first, seg);
  }
  if (strict) return static_cast<int>(f.pos) - 1;
  return f.exact ? static_cast<int>(f.pos) : std::max(0, static_cast<int>(f.pos) - 1);
}

namespace {

// One inner node over pivots, or nullptr when its segmentation needs more than kMaxSegments.
// One inner node over pivots, whose model keys (after prefix_len) are mks, cut into segs (at
// most kMaxSegments).
Inner* NewInner(std::span<const Pivot> pivots, size_t prefix_len, std::span<const uint64_t> mks,
                std::span<const Segment> segs) {
  const uint32_t n = static_cast<uint32_t>(pivots.size());
  static_assert(sizeof(std::atomic<Node*>) == sizeof(uint64_t));
  // Entry 0 is the prefix itself (a proper prefix of pivot 1, so below it); the real pivot 0
  // goes into the extra bytes. Keys below pivot 1 still route to child 0.
  const std::string_view fence = pivots[0].key;
  KeyArrays a = AllocateKeyed(sizeof(Inner), n, prefix_len, fence.size(), [&](uint32_t i) {
    return i == 0 ? (n > 1 ? pivots[1].key.substr(0, prefix_len) : std::string_view())
                  : pivots[i].key;
  });
  if (!fence.empty()) std::memcpy(a.extra, fence.data(), fence.size());
  auto* in = new (a.mem) Inner;
  in->low_fence = a.extra;
  in->low_fence_len = static_cast<uint32_t>(fence.size());
  in->kind = NodeKind::kInner;
  in->nseg = static_cast<uint8_t>(segs.size());
  in->prefix_len = static_cast<uint16_t>(prefix_len);
  in->n = n;
  in->bytes = a.bytes;
  in->key_bytes = a.key_bytes + fence.size();
  in->mk = a.mk;
  in->child = static_cast<std::atomic<Node*>*>(a.payload);
  in->off = a.off;
  in->suffixes = a.suffixes;
  in->prefix = a.prefix;
  for (int s = 0; s < Inner::kMaxSegments; ++s) {
    in->seg_first[s] = ~uint64_t{0};
    in->seg[s] = {};
  }
  for (size_t s = 0; s < segs.size(); ++s) {
    in->seg_first[s] = mks[segs[s].start];
    in->seg[s] = {segs[s].model, static_cast<uint32_t>(segs[s].start),
                  static_cast<uint32_t>(segs[s].count), segs[s].error};
  }
  for (uint32_t i = 0; i < n; ++i) new (&in->child[i]) std::atomic<Node*>(pivots[i].child);
  return in;
}

void Build(std::span<const Pivot> pivots, uint32_t max_error, double fill,
           std::vector<Inner*>* out) {
  // The prefix of pivots 1 on, a proper prefix of pivot 1 (NewInner stores it as entry 0).
  const size_t n = pivots.size();
  const size_t prefix_len = n < 2 ? 0
                                  : std::min({CommonPrefix(pivots[1].key, pivots.back().key),
                                              pivots[1].key.size() - 1, size_t{0xffff}});
  std::vector<uint64_t> mks(n);
  mks[0] = 0;  // the prefix's own model key
  for (size_t i = 1; i < n; ++i) mks[i] = ModelKey(pivots[i].key, prefix_len);
  std::vector<Segment> segs = SegmentPla(mks, max_error, Inner::kMaxSegmentPivots);
  if (segs.size() <= static_cast<size_t>(Inner::kMaxSegments)) {
    out->push_back(NewInner(pivots, prefix_len, mks, segs));
    return;
  }
  // Too many segments for one node: split into parts of about `fill` of a full node's
  // capacity in segments (their sizes from this segmentation) and build each; a part gets its
  // own, longer prefix, so it is segmented again.
  size_t per_node = std::max<size_t>(1, static_cast<size_t>(Inner::kMaxSegments * fill));
  size_t parts = (segs.size() + per_node - 1) / per_node;
  if (parts < 2) parts = 2;
  for (size_t p = 0; p < parts; ++p) {
    size_t first_seg = segs.size() * p / parts, end_seg = segs.size() * (p + 1) / parts;
    size_t begin = segs[first_seg].start;
    size_t end = end_seg == segs.size() ? pivots.size() : segs[end_seg].start;
    if (end > begin) Build(pivots.subspan(begin, end - begin), max_error, fill, out);
  }
}

}  // namespace

std::vector<Inner*> NewInners(std::span<const Pivot> pivots, uint32_t max_error, double fill) {
  std::vector<Inner*> out;
  if (!pivots.empty()) Build(pivots, max_error, fill, &out);
  return out;
}

void DeleteInner(Inner* inner) {
  inner->~Inner();
  std::free(inner);
}

}  // namespace ordis::index::learned
