#include "server/acl/catalog.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "server/acl/acl_test_support.h"
#include "server/acl/categories.h"

namespace ordis::acl {
namespace {

TEST(Categories, AclCatOrder) {
  // What redis-server 7.0.15 prints for ACL CAT.
  const char* expected[] = {
      "keyspace", "read",   "write",       "set",       "sortedset",  "list",        "hash",
      "string",   "bitmap", "hyperloglog", "geo",       "stream",     "pubsub",      "admin",
      "fast",     "slow",   "blocking",    "dangerous", "connection", "transaction", "scripting"};
  ASSERT_EQ(kCategoryCount, 21);
  for (int i = 0; i < kCategoryCount; i++) {
    EXPECT_EQ(CategoryName(i), expected[i]);
    EXPECT_EQ(CategoryByName(expected[i]), 1u << i);
  }
  EXPECT_EQ(CategoryByName("SortedSet"), kSortedSet);
  EXPECT_EQ(CategoryByName("all"), 0u);
  EXPECT_EQ(CategoryByName("nosuch"), 0u);
}

TEST(Catalog, FindIsCaseInsensitive) {
  auto catalog = TestCatalog();
  ASSERT_NE(catalog->Find("GET"), nullptr);
  EXPECT_EQ(catalog->Find("GET")->name, "get");
  ASSERT_NE(catalog->Find("Client|KILL"), nullptr);
  EXPECT_EQ(catalog->Find("client|kill")->parent_id, catalog->Find("client")->id);
  EXPECT_EQ(catalog->Find("nosuch"), nullptr);
  EXPECT_EQ(catalog->Find("client|nosuch"), nullptr);
}

TEST(Catalog, CategoriesAndSubcommands) {
  auto catalog = TestCatalog();
  std::vector<std::string> names;
  for (int id : catalog->InCategory(kString)) names.push_back(catalog->at(id).name);
  EXPECT_EQ(names, (std::vector<std::string>{"get", "set", "append"}));
  names.clear();
  for (int id : catalog->Subcommands(catalog->Find("config")->id)) {
    names.push_back(catalog->at(id).name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"config|get", "config|set"}));
  EXPECT_TRUE(catalog->InCategory(kRead | kWrite).empty());
}

TEST(Catalog, RejectsSparseIds) {
  std::vector<CommandInfo> infos = {{"get", kRead, 0, -1}, {"set", kWrite, 2, -1}};
  EXPECT_THROW(Catalog{infos}, std::invalid_argument);
}

}  // namespace
}  // namespace ordis::acl
