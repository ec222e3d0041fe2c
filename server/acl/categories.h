// Redis 7.0's ACL command categories (+@read, -@dangerous, ACL CAT): one bit each, in the order
// ACL CAT lists them. That order also breaks ties when ACL LIST describes a user by categories,
// so it is part of the output format: never reorder.
#pragma once

#include <cstdint>
#include <string_view>

namespace ordis::acl {

enum Category : uint32_t {
  kKeyspace = 1u << 0,
  kRead = 1u << 1,
  kWrite = 1u << 2,
  kSet = 1u << 3,
  kSortedSet = 1u << 4,
  kList = 1u << 5,
  kHash = 1u << 6,
  kString = 1u << 7,
  kBitmap = 1u << 8,
  kHyperLogLog = 1u << 9,
  kGeo = 1u << 10,
  kStream = 1u << 11,
  kPubSub = 1u << 12,
  kAdmin = 1u << 13,
  kFast = 1u << 14,
  kSlow = 1u << 15,
  kBlocking = 1u << 16,
  kDangerous = 1u << 17,
  kConnection = 1u << 18,
  kTransaction = 1u << 19,
  kScripting = 1u << 20,
};

inline constexpr int kCategoryCount = 21;

// The name of the category with bit (1 << index), as ACL CAT prints it ("sortedset").
std::string_view CategoryName(int index);

// The bit of the category named name (case-insensitive, without the '@'), or 0 if none is.
// "all" is not a category: +@all is a rule of its own.
uint32_t CategoryByName(std::string_view name);

}  // namespace ordis::acl
