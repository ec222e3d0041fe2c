// The small form of a sorted set (Redis's listpack): entries packed in one byte array in
// (score, member) order, each a score, a varint member length and the member's bytes. A score is
// a varint v: an integral score of at most 2^53 in magnitude (exact in a double) is v = 2 *
// ZigZag(score), one byte up to +-31 and five for a timestamp in seconds, as Redis's listpack
// keeps integers; any other score is v = 1 followed by the double's 8 bytes.
// Every operation is one linear pass, which at the sizes the small form is used for (at most
// zset-max-listpack-entries, 128 by default) costs less than following pointers would. The array
// is one malloc'd block of the entries' bytes rounded up to the allocator's size class, resized
// when a change leaves that class, as a listpack is (a std::string's doubling left up to half its
// block unused): a set of 5 members of 14 bytes with small integer scores is one 80-byte block
// (with 8-byte scores and a string: 128).
//
// Thread safety: as the standard containers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "server/types/zset_entry.h"

namespace ordis::server {

class ZSetSmall {
 public:
  ZSetSmall() = default;
  ZSetSmall(const ZSetSmall& other);
  ZSetSmall& operator=(const ZSetSmall& other);
  ZSetSmall(ZSetSmall&& other) noexcept;
  ZSetSmall& operator=(ZSetSmall&& other) noexcept;
  ~ZSetSmall();

  size_t size() const { return size_; }

  std::optional<double> Score(std::string_view member) const;
  // Adds or moves member; true iff added.
  bool Insert(std::string_view member, double score);
  bool Erase(std::string_view member);
  std::optional<size_t> Rank(std::string_view member) const;
  size_t CountBefore(ZBefore before) const;
  void VisitFrom(size_t first, bool reverse, ZVisit visit) const;
  void EraseRanks(size_t first, size_t last);
  size_t MemoryUsage() const { return capacity_; }
  // The entries' bytes (the block holds at least these).
  size_t encoded_size() const { return used_; }

 private:
  struct Cursor;
  static constexpr size_t kNotFound = SIZE_MAX;

  // The byte offset of member's entry, or kNotFound.
  size_t Find(std::string_view member) const;
  // Replaces the removed bytes at offset with a gap of inserted bytes, resizing the block to fit;
  // returns the gap (nullptr when the set is left with no bytes).
  char* Splice(size_t offset, size_t removed, size_t inserted);

  char* bytes_ = nullptr;  // used_ bytes; nullptr when empty
  size_t used_ = 0;
  size_t capacity_ = 0;  // the block's usable size: its allocator size class
  size_t size_ = 0;      // entries
};

}  // namespace ordis::server
