#include "server/types/zset_tree.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

namespace ordis::server {
namespace {

// A leaf fills jemalloc's 512-byte size class exactly (a block is rounded up to its class: the
// 1,048-byte leaf of 64 scores and pointers cost 1,280): 24 bytes of header and 61 record pointers.
// An inner node is 8 + 32 children of 56 bytes, 1,800 of a 2,048 class (a byte a member): 36
// would fill it, but rank descents scan the counts linearly, and ZRANGEBYLEX then ran 1.6% more
// instructions (bench/zset-instructions.sh).
constexpr size_t kLeafCapacity = 61;
constexpr size_t kInnerCapacity = 32;
constexpr size_t kLeafMin = kLeafCapacity / 4;
constexpr size_t kInnerMin = kInnerCapacity / 4;
// 2^32 entries with nodes a quarter full need fewer levels than this.
constexpr int kMaxHeight = 24;

}  // namespace

// Entries are record pointers only, scores stay in the records: a search in a leaf compares
// members, so it reads the records anyway, and a record's score sits just before its member's
// bytes. Scores kept here too cost 8 bytes a member and moved twice the bytes on each insertion.
struct ZSetTree::Leaf {
  uint32_t n = 0;
  Leaf* prev = nullptr;
  Leaf* next = nullptr;
  Record* rec[kLeafCapacity];
};

// Child i holds the entries e with sep[i] <= e < sep[i + 1] (sep[0] is unused).
struct ZSetTree::Inner {
  uint32_t n = 0;
  uint64_t count[kInnerCapacity];
  void* child[kInnerCapacity];
  double sep_score[kInnerCapacity];
  std::string sep_member[kInnerCapacity];
};

// The inner nodes of a descent, root first, with the index of the child taken in each.
struct ZSetTree::Path {
  Inner* node[kMaxHeight];
  size_t idx[kMaxHeight];
  Leaf* leaf = nullptr;

  // The number of entries before position pos of the leaf.
  size_t RankOf(int height, size_t pos) const {
    size_t rank = pos;
    for (int level = 0; level < height; ++level) {
      for (size_t i = 0; i < idx[level]; ++i) rank += node[level]->count[i];
    }
    return rank;
  }
};

// --- Records ------------------------------------------------------------------------------------

ZSetTree::Record* ZSetTree::NewRecord(std::string_view member, double score) {
  const auto len = static_cast<uint32_t>(member.size());
  auto* r = static_cast<Record*>(::operator new(sizeof(double) + VarintSize(len) + len));
  std::memcpy(r, &score, sizeof score);
  char* bytes = PutVarintAt(r + sizeof(double), len);
  std::memcpy(bytes, member.data(), len);
  return r;
}

void ZSetTree::FreeRecord(Record* r) { ::operator delete(r); }

double ZSetTree::ScoreOf(const Record* r) {
  double score;
  std::memcpy(&score, r, sizeof score);
  return score;
}

void ZSetTree::SetScore(Record* r, double score) { std::memcpy(r, &score, sizeof score); }

std::string_view ZSetTree::MemberOf(const Record* r) {
  uint32_t len;
  const char* bytes = GetVarintAt(r + sizeof(double), &len);
  return {bytes, len};
}

// --- Life cycle ---------------------------------------------------------------------------------

ZSetTree::ZSetTree() : root_(new Leaf) {
  static_assert(sizeof(Leaf) == 512 && sizeof(Inner) <= 2048);
}

ZSetTree::ZSetTree(const ZSetTree& other) : ZSetTree() {
  index_.reserve(other.size());
  if (other.size() == 0) return;
  // In order: every insertion appends to the rightmost leaf, which leaves the copy packed.
  other.VisitFrom(0, false, [this](std::string_view member, double score) {
    Insert(member, score);
    return true;
  });
}

ZSetTree& ZSetTree::operator=(const ZSetTree& other) {
  if (this != &other) *this = ZSetTree(other);
  return *this;
}

ZSetTree::ZSetTree(ZSetTree&& other) noexcept : ZSetTree() { *this = std::move(other); }

ZSetTree& ZSetTree::operator=(ZSetTree&& other) noexcept {
  if (this == &other) return *this;
  Clear();
  std::swap(index_, other.index_);
  std::swap(root_, other.root_);
  std::swap(height_, other.height_);
  std::swap(leaves_, other.leaves_);
  std::swap(inners_, other.inners_);
  std::swap(record_bytes_, other.record_bytes_);
  return *this;
}

ZSetTree::~ZSetTree() {
  Clear();
  delete static_cast<Leaf*>(root_);
}

// Frees every record and node, leaving one empty root leaf.
void ZSetTree::Clear() {
  for (Record* r : index_) FreeRecord(r);
  index_.clear();
  record_bytes_ = 0;
  auto free_subtree = [](auto& self, void* node, int height) -> void {
    if (height == 0) {
      delete static_cast<Leaf*>(node);
      return;
    }
    auto* in = static_cast<Inner*>(node);
    for (size_t i = 0; i < in->n; ++i) self(self, in->child[i], height - 1);
    delete in;
  };
  if (height_ > 0) {
    free_subtree(free_subtree, root_, height_);
    root_ = new Leaf;
  } else {
    static_cast<Leaf*>(root_)->n = 0;
  }
  height_ = 0;
  leaves_ = 1;
  inners_ = 0;
}

// --- Descents -----------------------------------------------------------------------------------

size_t ZSetTree::Descend(ZBefore before, Path* path) const {
  void* node = root_;
  for (int level = 0; level < height_; ++level) {
    auto* in = static_cast<Inner*>(node);
    // The last child whose separator is before the bound (or the first child).
    size_t lo = 1, hi = in->n;
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (before(in->sep_score[mid], in->sep_member[mid])) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    path->node[level] = in;
    path->idx[level] = lo - 1;
    node = in->child[lo - 1];
  }
  auto* leaf = static_cast<Leaf*>(node);
  path->leaf = leaf;
  // The search below reads the records of about log2(n) entries, one after the other; fetching
  // every record's first line at once overlaps those misses.
  for (size_t i = 0; i < leaf->n; ++i) __builtin_prefetch(leaf->rec[i]);
  size_t lo = 0, hi = leaf->n;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const Record* r = leaf->rec[mid];
    if (before(ScoreOf(r), MemberOf(r))) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

size_t ZSetTree::DescendToRank(size_t rank, Path* path) const {
  void* node = root_;
  for (int level = 0; level < height_; ++level) {
    auto* in = static_cast<Inner*>(node);
    size_t i = 0;
    while (rank >= in->count[i]) rank -= in->count[i++];
    path->node[level] = in;
    path->idx[level] = i;
    node = in->child[i];
  }
  path->leaf = static_cast<Leaf*>(node);
  return rank;
}

// --- Tree updates -------------------------------------------------------------------------------

void ZSetTree::TreeInsert(double score, Record* r) {
  const std::string_view member = MemberOf(r);
  Path path;
  // Entries <= the new one come first: the insertion point then lies in the child whose
  // separators bracket it, even when a separator equals it.
  size_t pos =
      Descend([&](double s, std::string_view m) { return !ZLess(score, member, s, m); }, &path);
  bool rightmost = true;  // every step of the descent took the last child
  for (int level = 0; level < height_; ++level) {
    Inner* in = path.node[level];
    ++in->count[path.idx[level]];
    rightmost = rightmost && path.idx[level] + 1 == in->n;
  }
  Leaf* leaf = path.leaf;
  auto insert_at = [](Leaf* l, size_t at, Record* rec) {
    std::memmove(&l->rec[at + 1], &l->rec[at], (l->n - at) * sizeof(Record*));
    l->rec[at] = rec;
    ++l->n;
  };
  if (leaf->n < kLeafCapacity) {
    insert_at(leaf, pos, r);
    return;
  }

  // Split the leaf. An append to the rightmost leaf keeps the old leaf full (ordered loads).
  auto* right = new Leaf;
  ++leaves_;
  const bool append = rightmost && pos == leaf->n;
  const size_t keep = append ? leaf->n : leaf->n / 2;
  right->n = leaf->n - static_cast<uint32_t>(keep);
  std::memcpy(right->rec, &leaf->rec[keep], right->n * sizeof(Record*));
  leaf->n = static_cast<uint32_t>(keep);
  right->next = leaf->next;
  if (right->next != nullptr) right->next->prev = right;
  right->prev = leaf;
  leaf->next = right;
  if (pos < keep) {
    insert_at(leaf, pos, r);
  } else {
    insert_at(right, pos - keep, r);
  }

  // Hand the new node up until a parent has room.
  void* new_child = right;
  double sep_score = ScoreOf(right->rec[0]);
  std::string sep_member(MemberOf(right->rec[0]));
  uint64_t new_count = right->n;
  for (int level = height_ - 1; level >= 0; --level) {
    Inner* in = path.node[level];
    const size_t at = path.idx[level] + 1;
    in->count[at - 1] -= new_count;
    if (in->n < kInnerCapacity) {
      for (size_t i = in->n; i > at; --i) {
        in->count[i] = in->count[i - 1];
        in->child[i] = in->child[i - 1];
        in->sep_score[i] = in->sep_score[i - 1];
        in->sep_member[i] = std::move(in->sep_member[i - 1]);
      }
      in->count[at] = new_count;
      in->child[at] = new_child;
      in->sep_score[at] = sep_score;
      in->sep_member[at] = std::move(sep_member);
      ++in->n;
      return;
    }
    // Split the inner node: lay out its children with the new one, then cut.
    constexpr size_t kAll = kInnerCapacity + 1;
    uint64_t counts[kAll];
    void* children[kAll];
    double sep_scores[kAll];
    std::string sep_members[kAll];
    for (size_t i = 0, j = 0; i < kAll; ++i) {
      if (i == at) {
        counts[i] = new_count;
        children[i] = new_child;
        sep_scores[i] = sep_score;
        sep_members[i] = std::move(sep_member);
      } else {
        counts[i] = in->count[j];
        children[i] = in->child[j];
        sep_scores[i] = in->sep_score[j];
        sep_members[i] = std::move(in->sep_member[j]);
        ++j;
      }
    }
    const bool inner_append = append && at == in->n;
    const size_t left_n = inner_append ? kInnerCapacity : kAll / 2;
    auto* right_in = new Inner;
    ++inners_;
    in->n = static_cast<uint32_t>(left_n);
    right_in->n = static_cast<uint32_t>(kAll - left_n);
    new_count = 0;
    for (size_t i = 0; i < kAll; ++i) {
      Inner* dst = i < left_n ? in : right_in;
      const size_t k = i < left_n ? i : i - left_n;
      dst->count[k] = counts[i];
      dst->child[k] = children[i];
      dst->sep_score[k] = sep_scores[i];
      dst->sep_member[k] = std::move(sep_members[i]);
      if (dst == right_in) new_count += counts[i];
    }
    // The right node's first separator moves up.
    new_child = right_in;
    sep_score = right_in->sep_score[0];
    sep_member = std::move(right_in->sep_member[0]);
    right_in->sep_member[0].clear();
  }

  // The root split: grow a level.
  auto* root = new Inner;
  ++inners_;
  uint64_t total = 0;
  if (height_ == 0) {
    total = static_cast<Leaf*>(root_)->n;
  } else {
    auto* old = static_cast<Inner*>(root_);
    for (size_t i = 0; i < old->n; ++i) total += old->count[i];
  }
  root->n = 2;
  root->child[0] = root_;
  root->count[0] = total;
  root->child[1] = new_child;
  root->count[1] = new_count;
  root->sep_score[1] = sep_score;
  root->sep_member[1] = std::move(sep_member);
  root_ = root;
  ++height_;
}

void ZSetTree::TreeErase(double score, Record* r) {
  const std::string_view member = MemberOf(r);
  Path path;
  const size_t pos =
      Descend([&](double s, std::string_view m) { return !ZLess(score, member, s, m); }, &path);
  // Entries <= r end at pos, and r is in the path's leaf (see TreeInsert): it is the last.
  Leaf* leaf = path.leaf;
  const size_t at = pos - 1;
  std::memmove(&leaf->rec[at], &leaf->rec[at + 1], (leaf->n - at - 1) * sizeof(Record*));
  --leaf->n;
  FinishErase(&path, 1);
}

void ZSetTree::FinishErase(Path* path, size_t removed) {
  for (int level = 0; level < height_; ++level)
    path->node[level]->count[path->idx[level]] -= removed;
  for (int level = height_ - 1; level >= 0; --level) {
    Inner* parent = path->node[level];
    const size_t k = path->idx[level];
    const bool leaves = level == height_ - 1;
    const size_t n =
        leaves ? static_cast<Leaf*>(parent->child[k])->n : static_cast<Inner*>(parent->child[k])->n;
    if (n >= (leaves ? kLeafMin : kInnerMin) || parent->n < 2) break;
    RebalanceChildren(parent, k > 0 ? k - 1 : k, leaves);
  }
  while (height_ > 0 && static_cast<Inner*>(root_)->n == 1) {
    auto* old = static_cast<Inner*>(root_);
    root_ = old->child[0];
    delete old;
    --inners_;
    --height_;
  }
}

// Merges children a and a + 1 of parent when they fit in one node, else evens them out.
void ZSetTree::RebalanceChildren(Inner* parent, size_t a, bool children_are_leaves) {
  const size_t b = a + 1;
  auto remove_slot_b = [&] {
    parent->count[a] += parent->count[b];
    for (size_t i = b; i + 1 < parent->n; ++i) {
      parent->count[i] = parent->count[i + 1];
      parent->child[i] = parent->child[i + 1];
      parent->sep_score[i] = parent->sep_score[i + 1];
      parent->sep_member[i] = std::move(parent->sep_member[i + 1]);
    }
    --parent->n;
    parent->sep_member[parent->n].clear();
    parent->sep_member[parent->n].shrink_to_fit();
  };

  if (children_are_leaves) {
    auto* l = static_cast<Leaf*>(parent->child[a]);
    auto* r = static_cast<Leaf*>(parent->child[b]);
    if (l->n + r->n <= kLeafCapacity) {
      std::memcpy(&l->rec[l->n], r->rec, r->n * sizeof(Record*));
      l->n += r->n;
      l->next = r->next;
      if (l->next != nullptr) l->next->prev = l;
      delete r;
      --leaves_;
      remove_slot_b();
      return;
    }
    const size_t half = (l->n + r->n) / 2;
    if (l->n < half) {  // r's first entries move to l's end
      const size_t m = half - l->n;
      std::memcpy(&l->rec[l->n], r->rec, m * sizeof(Record*));
      std::memmove(r->rec, &r->rec[m], (r->n - m) * sizeof(Record*));
      l->n += static_cast<uint32_t>(m);
      r->n -= static_cast<uint32_t>(m);
    } else {  // l's last entries move to r's front
      const size_t m = l->n - half;
      std::memmove(&r->rec[m], r->rec, r->n * sizeof(Record*));
      std::memcpy(r->rec, &l->rec[l->n - m], m * sizeof(Record*));
      l->n -= static_cast<uint32_t>(m);
      r->n += static_cast<uint32_t>(m);
    }
    parent->count[a] = l->n;
    parent->count[b] = r->n;
    parent->sep_score[b] = ScoreOf(r->rec[0]);
    parent->sep_member[b].assign(MemberOf(r->rec[0]));
    return;
  }

  auto* l = static_cast<Inner*>(parent->child[a]);
  auto* r = static_cast<Inner*>(parent->child[b]);
  // r's first child is bracketed by the parent's separator b; it moves with that child.
  auto move_child = [](Inner* dst, size_t i, Inner* src, size_t j) {
    dst->count[i] = src->count[j];
    dst->child[i] = src->child[j];
    dst->sep_score[i] = src->sep_score[j];
    dst->sep_member[i] = std::move(src->sep_member[j]);
  };
  if (l->n + r->n <= kInnerCapacity) {
    for (size_t j = 0; j < r->n; ++j) move_child(l, l->n + j, r, j);
    l->sep_score[l->n] = parent->sep_score[b];
    l->sep_member[l->n] = std::move(parent->sep_member[b]);
    l->n += r->n;
    delete r;
    --inners_;
    remove_slot_b();
    return;
  }
  const size_t half = (l->n + r->n) / 2;
  uint64_t moved = 0;
  if (l->n < half) {  // r's first m children move to l's end
    const size_t m = half - l->n;
    for (size_t j = 0; j < m; ++j) {
      moved += r->count[j];
      move_child(l, l->n + j, r, j);
    }
    l->sep_score[l->n] = parent->sep_score[b];
    l->sep_member[l->n] = std::move(parent->sep_member[b]);
    parent->sep_score[b] = r->sep_score[m];
    parent->sep_member[b] = std::move(r->sep_member[m]);
    for (size_t j = m; j < r->n; ++j) move_child(r, j - m, r, j);
    l->n += static_cast<uint32_t>(m);
    r->n -= static_cast<uint32_t>(m);
    parent->count[a] += moved;
    parent->count[b] -= moved;
  } else {  // l's last m children move to r's front
    const size_t m = l->n - half;
    for (size_t j = r->n; j-- > 0;) move_child(r, j + m, r, j);
    r->sep_score[m] = parent->sep_score[b];
    r->sep_member[m] = std::move(parent->sep_member[b]);
    for (size_t j = 0; j < m; ++j) {
      moved += l->count[l->n - m + j];
      move_child(r, j, l, l->n - m + j);
    }
    parent->sep_score[b] = r->sep_score[0];
    parent->sep_member[b] = std::move(r->sep_member[0]);
    r->sep_member[0].clear();
    l->n -= static_cast<uint32_t>(m);
    r->n += static_cast<uint32_t>(m);
    parent->count[a] -= moved;
    parent->count[b] += moved;
  }
}

// --- Operations ---------------------------------------------------------------------------------

std::optional<double> ZSetTree::Score(std::string_view member) const {
  auto it = index_.find(member);
  if (it == index_.end()) return std::nullopt;
  return ScoreOf(*it);
}

bool ZSetTree::Insert(std::string_view member, double score) {
  auto it = index_.find(member);
  if (it != index_.end()) {
    Record* r = *it;
    const double old = ScoreOf(r);
    if (old == score) return false;
    TreeErase(old, r);
    SetScore(r, score);
    TreeInsert(score, r);
    return false;
  }
  Record* r = NewRecord(member, score);
  record_bytes_ += RecordSize(r);
  index_.insert(r);
  TreeInsert(score, r);
  return true;
}

bool ZSetTree::Erase(std::string_view member) {
  auto it = index_.find(member);
  if (it == index_.end()) return false;
  Record* r = *it;
  index_.erase(it);
  TreeErase(ScoreOf(r), r);
  record_bytes_ -= RecordSize(r);
  FreeRecord(r);
  return true;
}

std::optional<size_t> ZSetTree::Rank(std::string_view member) const {
  auto it = index_.find(member);
  if (it == index_.end()) return std::nullopt;
  const double score = ScoreOf(*it);
  member = MemberOf(*it);
  Path path;
  const size_t pos =
      Descend([&](double s, std::string_view m) { return !ZLess(score, member, s, m); }, &path);
  return path.RankOf(height_, pos) - 1;
}

size_t ZSetTree::CountBefore(ZBefore before) const {
  Path path;
  const size_t pos = Descend(before, &path);
  return path.RankOf(height_, pos);
}

void ZSetTree::VisitFrom(size_t first, bool reverse, ZVisit visit) const {
  Path path;
  size_t pos = DescendToRank(first, &path);
  const Leaf* leaf = path.leaf;
  // Records are separate allocations: ask for a few ahead while replying the current one.
  constexpr size_t kAhead = 4;
  if (!reverse) {
    for (;;) {
      for (; pos < leaf->n; ++pos) {
        if (pos + kAhead < leaf->n) __builtin_prefetch(leaf->rec[pos + kAhead]);
        if (!visit(MemberOf(leaf->rec[pos]), ScoreOf(leaf->rec[pos]))) return;
      }
      leaf = leaf->next;
      if (leaf == nullptr) return;
      pos = 0;
    }
  }
  for (;;) {
    for (size_t i = pos + 1; i-- > 0;) {
      if (i >= kAhead) __builtin_prefetch(leaf->rec[i - kAhead]);
      if (!visit(MemberOf(leaf->rec[i]), ScoreOf(leaf->rec[i]))) return;
    }
    leaf = leaf->prev;
    if (leaf == nullptr) return;
    pos = leaf->n - 1;
  }
}

void ZSetTree::EraseRanks(size_t first, size_t last) {
  // Leaf by leaf: one descent and one fix-up per leaf touched, so O(log n + m) overall.
  for (size_t remaining = last - first + 1; remaining > 0;) {
    Path path;
    const size_t pos = DescendToRank(first, &path);
    Leaf* leaf = path.leaf;
    const size_t k = std::min(remaining, leaf->n - pos);
    for (size_t i = pos; i < pos + k; ++i) {
      Record* r = leaf->rec[i];
      index_.erase(r);
      record_bytes_ -= RecordSize(r);
      FreeRecord(r);
    }
    std::memmove(&leaf->rec[pos], &leaf->rec[pos + k], (leaf->n - pos - k) * sizeof(Record*));
    leaf->n -= static_cast<uint32_t>(k);
    FinishErase(&path, k);
    remaining -= k;
  }
}

size_t ZSetTree::MemoryUsage() const {
  return sizeof(*this) + record_bytes_ + leaves_ * sizeof(Leaf) + inners_ * sizeof(Inner) +
         index_.capacity() * (sizeof(Record*) + 1);
}

size_t ZSetTree::RecordSize(const Record* r) {
  const size_t len = MemberOf(r).size();
  return sizeof(double) + VarintSize(static_cast<uint32_t>(len)) + len;
}

// --- Validation ---------------------------------------------------------------------------------

std::string ZSetTree::Validate() const {
  std::string error;
  size_t entries = 0, leaves = 0, inners = 0;
  const Leaf* expected_prev = nullptr;
  const Leaf* last_leaf = nullptr;
  bool have_last = false;
  double last_score = 0;
  std::string last_member;
  auto fail = [&](std::string what) {
    if (error.empty()) error = std::move(what);
  };
  // Returns the subtree's entry count; lo/hi bracket its keys (nullptr: unbounded).
  struct Key {
    double score;
    std::string_view member;
  };
  auto walk = [&](auto& self, const void* node, int height, const Key* lo, const Key* hi,
                  bool root) -> uint64_t {
    if (height == 0) {
      const auto* leaf = static_cast<const Leaf*>(node);
      ++leaves;
      if (!root && leaf->n == 0) fail("empty non-root leaf");
      if (leaf->prev != expected_prev) fail("leaf prev link");
      if (expected_prev != nullptr && expected_prev->next != leaf) fail("leaf next link");
      expected_prev = leaf;
      last_leaf = leaf;
      for (size_t i = 0; i < leaf->n; ++i) {
        const Record* r = leaf->rec[i];
        const std::string_view m = MemberOf(r);
        const double score = ScoreOf(r);
        if (!index_.contains(m)) fail("leaf member missing from index");
        if (have_last && !ZLess(last_score, last_member, score, m)) fail("order");
        if (lo != nullptr && ZLess(score, m, lo->score, lo->member)) fail("below sep");
        if (hi != nullptr && !ZLess(score, m, hi->score, hi->member)) fail("above sep");
        have_last = true;
        last_score = score;
        last_member.assign(m);
      }
      return leaf->n;
    }
    const auto* in = static_cast<const Inner*>(node);
    ++inners;
    if (in->n == 0 || (root && in->n < 2)) fail("inner node too small");
    uint64_t total = 0;
    for (size_t i = 0; i < in->n; ++i) {
      Key sep_lo{in->sep_score[i], in->sep_member[i]};
      Key sep_hi{i + 1 < in->n ? in->sep_score[i + 1] : 0,
                 i + 1 < in->n ? std::string_view(in->sep_member[i + 1]) : std::string_view()};
      if (i + 1 < in->n && i > 0 &&
          !ZLess(sep_lo.score, sep_lo.member, sep_hi.score, sep_hi.member)) {
        fail("separators out of order");
      }
      const uint64_t c = self(self, in->child[i], height - 1, i == 0 ? lo : &sep_lo,
                              i + 1 < in->n ? &sep_hi : hi, false);
      if (c != in->count[i]) fail("child count");
      total += c;
    }
    return total;
  };
  entries = walk(walk, root_, height_, nullptr, nullptr, true);
  if (last_leaf != nullptr && last_leaf->next != nullptr) fail("last leaf has a next");
  if (entries != index_.size()) fail("tree and index sizes differ");
  if (leaves != leaves_ || inners != inners_) fail("node counters");
  return error;
}

}  // namespace ordis::server
