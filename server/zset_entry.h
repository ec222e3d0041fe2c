// What both sorted-set forms (ZSetSmall, ZSetTree) share: the callback types of their walks and
// searches, and the length prefix of a member's bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace ordis::server {

// Called with each entry of a walk; returning false stops the walk.
using ZVisit = absl::FunctionRef<bool(std::string_view member, double score)>;
// Monotone in the order: true for a prefix of the entries (those "before" some bound), false for
// the rest. Searches call it O(log n) times.
using ZBefore = absl::FunctionRef<bool(double score, std::string_view member)>;

// (score, member) order: scores numerically, ties by member bytes. Scores are never NaN.
inline bool ZLess(double a_score, std::string_view a_member, double b_score,
                  std::string_view b_member) {
  if (a_score != b_score) return a_score < b_score;
  return a_member < b_member;
}

// A member's length as an LEB128 varint: one byte below 128, at most 5 for 32-bit lengths.
inline size_t VarintSize(uint32_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}
inline char* PutVarint(char* p, uint32_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}
inline const char* GetVarint(const char* p, uint32_t* v) {
  uint32_t result = 0;
  for (int shift = 0;; shift += 7) {
    const auto byte = static_cast<uint8_t>(*p++);
    result |= static_cast<uint32_t>(byte & 0x7f) << shift;
    if (byte < 0x80) break;
  }
  *v = result;
  return p;
}

}  // namespace ordis::server
