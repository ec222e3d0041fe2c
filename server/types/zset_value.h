// The payload of a sorted-set key: distinct byte-string members, each with a double score, in one
// order by (score, member) with members compared bytewise (Redis's order). Every question a
// command asks is answered through ranks in that order, so rank, score and lex ranges share one
// path and each costs O(log n + m), as in Redis.
//
// Representation (two forms, switched as Redis switches listpack and skiplist):
//   - small (ZSetSmall, server/types/zset_small.h): the entries packed in one sorted byte array. A
//   set of
//     at most `max_small_entries` members, none longer than `max_small_member` bytes
//     (zset-max-listpack-entries / -value), pays a few bytes per member; every operation is a
//     linear pass over at most that many entries.
//   - large (ZSetTree, server/types/zset_tree.h): each member's bytes and score in one allocation,
//   found
//     by a hash index (ZSCORE, ZADD and ZREM are O(1) to find the member), and ordered by a counted
//     B+tree of (score, member pointer) entries whose inner nodes keep subtree sizes (rank
//     operations are O(log n), range reads walk packed leaves).
// Why not the keyspace's learned tree (DESIGN.md's member and score records)? Ranks need subtree
// counts, which the learned tree has no place for, and a sorted set is changed under the keyspace
// lock one command at a time, which wants a plain single-writer structure, not the learned tree's
// buffers and patchers. See the measurements in README.md ("Sorted sets").
//
// A small set turns large when an insertion would break a limit; a large set stays large (as in
// Redis) until it is rebuilt by a command that makes a new set (ZRANGESTORE, Z*STORE).
//
// Thread safety: as the standard containers: const methods may run concurrently with each other;
// a non-const method needs exclusive access (the keyspace lock held exclusively).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <variant>

#include "server/types/zset_entry.h"
#include "server/types/zset_small.h"
#include "server/types/zset_tree.h"

namespace ordis::server {

// When a set is small: zset-max-listpack-entries and zset-max-listpack-value.
struct ZSetLimits {
  size_t max_small_entries = 128;
  size_t max_small_member = 64;
};

class ZSetValue {
 public:
  using Visit = ZVisit;  // server/types/zset_entry.h
  using Before = ZBefore;

  ZSetValue() = default;
  ZSetValue(const ZSetValue& other) = default;  // deep copy, O(n)
  ZSetValue& operator=(const ZSetValue& other) = default;
  ZSetValue(ZSetValue&&) noexcept = default;
  ZSetValue& operator=(ZSetValue&&) noexcept = default;

  size_t size() const;
  bool empty() const { return size() == 0; }
  // True while the small form holds the set (OBJECT ENCODING "listpack", else "skiplist").
  bool is_small() const { return std::holds_alternative<ZSetSmall>(rep_); }

  // The member's score, or nullopt if it is absent.
  std::optional<double> Score(std::string_view member) const;
  // Adds member with score, or moves it to score if present; true iff it was added. A score of -0
  // is stored as 0. score must not be NaN. May turn the set large (never small).
  bool Insert(std::string_view member, double score, const ZSetLimits& limits);
  // Removes member; true iff it was present.
  bool Erase(std::string_view member);

  // The 0-based ascending rank of member, or nullopt if it is absent.
  std::optional<size_t> Rank(std::string_view member) const;
  // The number of entries for which before(score, member) is true, i.e. the rank of the first
  // entry for which it is false (size() if none).
  size_t CountBefore(Before before) const;
  // Calls visit for ranks first, first+1, ... (ascending) or first, first-1, ... (descending,
  // when reverse) until it returns false or the set's end is passed. first < size().
  void VisitFrom(size_t first, bool reverse, Visit visit) const;
  // Removes ranks first..last (inclusive, ascending ranks), first <= last < size().
  void EraseRanks(size_t first, size_t last);
  // Heap bytes owned by the set (MEMORY USAGE).
  size_t MemoryUsage() const;

 private:
  std::variant<ZSetSmall, ZSetTree> rep_;
};

}  // namespace ordis::server
