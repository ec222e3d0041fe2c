#include "server/acl/categories.h"

#include <strings.h>

#include <array>

namespace ordis::acl {
namespace {

constexpr std::array<std::string_view, kCategoryCount> kNames = {
    "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
    "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
    "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting",
};

}  // namespace

std::string_view CategoryName(int index) { return kNames[index]; }

uint32_t CategoryByName(std::string_view name) {
  for (int i = 0; i < kCategoryCount; i++) {
    if (name.size() == kNames[i].size() &&
        strncasecmp(name.data(), kNames[i].data(), name.size()) == 0) {
      return 1u << i;
    }
  }
  return 0;
}

}  // namespace ordis::acl
