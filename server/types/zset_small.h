// The small form of a sorted set (Redis's listpack): entries packed in one byte array in
// (score, member) order, each an 8-byte score, a varint member length and the member's bytes.
// Every operation is one linear pass, which at the sizes the small form is used for (at most
// zset-max-listpack-entries, 128 by default) costs less than following pointers would, and the
// set pays 9 bytes beyond its members' bytes per entry.
//
// Thread safety: as the standard containers.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "server/types/zset_entry.h"

namespace ordis::server {

class ZSetSmall {
 public:
  size_t size() const { return size_; }
  // The length of the longest member (the small form's other limit).
  size_t max_member_size() const { return max_member_; }

  std::optional<double> Score(std::string_view member) const;
  // Adds or moves member; true iff added.
  bool Insert(std::string_view member, double score);
  bool Erase(std::string_view member);
  std::optional<size_t> Rank(std::string_view member) const;
  size_t CountBefore(ZBefore before) const;
  void VisitFrom(size_t first, bool reverse, ZVisit visit) const;
  void EraseRanks(size_t first, size_t last);
  size_t MemoryUsage() const { return bytes_.capacity(); }

 private:
  struct Cursor;
  // The byte offset of member's entry, or npos.
  size_t Find(std::string_view member) const;
  // Removes the entry at offset.
  void EraseAt(size_t offset);

  std::string bytes_;
  size_t size_ = 0;
  // An upper bound of the longest member: it only grows (a set that had a long member is already
  // large, and a large set never turns small again).
  size_t max_member_ = 0;
};

}  // namespace ordis::server
