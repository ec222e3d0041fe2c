// What both sorted-set forms (ZSetSmall, ZSetTree) share: the callback types of their walks and
// searches. A member's length is a varint (base/coding.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "base/coding.h"

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

}  // namespace ordis::server
