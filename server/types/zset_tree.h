// The large form of a sorted set (Redis's skiplist + dict): members found by hash, ordered by a
// counted B+tree.
//
//   - A member's record is one allocation: its score, a varint length and its bytes.
//   - The hash index holds record pointers, hashed and compared by member bytes (ZSCORE, and the
//     first step of ZADD and ZREM, are O(1)).
//   - The B+tree orders record pointers by (score, member). Leaves pack kLeafCapacity pointers and
//     are linked both ways for range walks. Inner nodes keep each child's entry count (rank
//     operations are O(log n)) and a copy of the separating key (score and member bytes), so a
//     descent reads records only at the leaf level and a separator outlives the member it was
//     copied from.
//   - Sequential appends split the rightmost leaf unevenly (the old leaf stays full), so a set
//     loaded in order packs its leaves; otherwise nodes split in halves and merge or share entries
//     with a sibling when they fall below a quarter full.
//
// Against Redis's skiplist (a node of 40-64 bytes per member, a dict entry of 32 and a bucket of
// 8-16), this costs a record (the member plus 9 bytes, rounded up to jemalloc's size class), a leaf
// pointer (8.4 bytes in full leaves), a hash slot (9 bytes over a load of 7/16 to 7/8) and about
// one byte of inner nodes. 1M members of 14 bytes: 32 + 8.4 + 21 (2^21 slots, a 20 MiB block) + 1.
//
// Thread safety: as the standard containers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "server/types/zset_entry.h"

namespace ordis::server {

class ZSetTree {
 public:
  ZSetTree();
  ZSetTree(const ZSetTree& other);
  ZSetTree& operator=(const ZSetTree& other);
  ZSetTree(ZSetTree&& other) noexcept;
  ZSetTree& operator=(ZSetTree&& other) noexcept;
  ~ZSetTree();

  size_t size() const { return index_.size(); }

  std::optional<double> Score(std::string_view member) const;
  // Adds or moves member; true iff added.
  bool Insert(std::string_view member, double score);
  bool Erase(std::string_view member);
  std::optional<size_t> Rank(std::string_view member) const;
  size_t CountBefore(ZBefore before) const;
  void VisitFrom(size_t first, bool reverse, ZVisit visit) const;
  void EraseRanks(size_t first, size_t last);
  size_t MemoryUsage() const;

  // Checks every structural invariant (orders, counts, separators, links, fill, index); for tests.
  // Returns an empty string when all hold, else what failed.
  std::string Validate() const;

 private:
  struct Leaf;
  struct Inner;
  struct Path;
  // A record: score, varint length, member bytes.
  using Record = char;

  struct RecordHash {
    using is_transparent = void;
    size_t operator()(std::string_view member) const {
      return absl::HashOf(absl::string_view(member.data(), member.size()));
    }
    size_t operator()(const Record* r) const { return (*this)(MemberOf(r)); }
  };
  struct RecordEq {
    using is_transparent = void;
    static std::string_view View(std::string_view s) { return s; }
    static std::string_view View(const Record* r) { return MemberOf(r); }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return View(a) == View(b);
    }
  };

  static Record* NewRecord(std::string_view member, double score);
  static void FreeRecord(Record* r);
  static double ScoreOf(const Record* r);
  static void SetScore(Record* r, double score);
  static std::string_view MemberOf(const Record* r);
  static size_t RecordSize(const Record* r);

  // Descends to the leaf holding the first entry for which before is false; returns its
  // position in that leaf (which may be the leaf's size) and fills path.
  size_t Descend(ZBefore before, Path* path) const;
  // Descends to the leaf holding rank (< size()); returns its position in that leaf.
  size_t DescendToRank(size_t rank, Path* path) const;
  void TreeInsert(double score, Record* r);
  void TreeErase(double score, Record* r);
  // Subtracts removed from the counts along path, then merges or rebalances underfull nodes
  // bottom-up and drops a root left with one child.
  void FinishErase(Path* path, size_t removed);
  void RebalanceChildren(Inner* parent, size_t left, bool children_are_leaves);
  void Clear();

  absl::flat_hash_set<Record*, RecordHash, RecordEq> index_;
  void* root_;
  int height_ = 0;  // number of inner levels; 0 when the root is a leaf
  size_t leaves_ = 1;
  size_t inners_ = 0;
  size_t record_bytes_ = 0;
};

}  // namespace ordis::server
