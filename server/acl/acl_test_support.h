// A slice of Redis 7.0's command table, with its real categories, for the ACL tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "server/acl/catalog.h"

namespace ordis::acl {

inline std::shared_ptr<const Catalog> TestCatalog() {
  struct Row {
    const char* name;
    uint32_t categories;
    const char* parent;
    bool no_auth;
  };
  // clang-format off
  const std::vector<Row> rows = {
      {"get", kRead | kString | kFast, nullptr, false},
      {"set", kWrite | kString | kSlow, nullptr, false},
      {"append", kWrite | kString | kFast, nullptr, false},
      {"del", kKeyspace | kWrite | kSlow, nullptr, false},
      {"select", kFast | kConnection, nullptr, false},
      {"auth", kFast | kConnection, nullptr, true},
      {"client", 0, nullptr, false},
      {"client|kill", kAdmin | kSlow | kDangerous | kConnection, "client", false},
      {"client|list", kAdmin | kSlow | kDangerous | kConnection, "client", false},
      {"client|id", kSlow | kConnection, "client", false},
      {"hset", kWrite | kHash | kFast, nullptr, false},
      {"hget", kRead | kHash | kFast, nullptr, false},
      {"publish", kPubSub | kFast, nullptr, false},
      {"subscribe", kPubSub | kSlow, nullptr, false},
      {"psubscribe", kPubSub | kSlow, nullptr, false},
      {"flushall", kKeyspace | kWrite | kSlow | kDangerous, nullptr, false},
      {"config", 0, nullptr, false},
      {"config|get", kAdmin | kSlow | kDangerous, "config", false},
      {"config|set", kAdmin | kSlow | kDangerous, "config", false},
  };
  // clang-format on
  std::vector<CommandInfo> infos;
  for (size_t i = 0; i < rows.size(); i++) {
    CommandInfo c;
    c.name = rows[i].name;
    c.categories = rows[i].categories;
    c.id = static_cast<int>(i);
    c.no_auth = rows[i].no_auth;
    for (size_t j = 0; j < i && rows[i].parent; j++) {
      if (std::string(rows[j].name) == rows[i].parent) c.parent_id = static_cast<int>(j);
    }
    infos.push_back(c);
  }
  return std::make_shared<const Catalog>(std::move(infos));
}

}  // namespace ordis::acl
