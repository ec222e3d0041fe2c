// The ACL categories and key access the command layer gives each command (command/acl_bridge.h),
// pinned for a sample of commands to what redis-server 7.0.15 says (COMMAND INFO's ACL categories
// and key-spec flags, ACL CAT <category>): a change of flags, group or table that moves a command
// out of Redis's categories fails here.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "server/acl/categories.h"
#include "server/acl/user.h"
#include "server/command/acl_bridge.h"
#include "server/commands/families.h"

namespace ordis::server {
namespace {

// "config|get" names a subcommand.
const CommandSpec& Spec(std::string_view name) {
  const size_t bar = name.find('|');
  const CommandSpec* spec = AllCommands().Find(name.substr(0, bar));
  if (spec != nullptr && bar != std::string_view::npos) {
    spec = CommandTable::FindSubcommand(*spec, name.substr(bar + 1));
  }
  if (spec == nullptr) {
    ADD_FAILURE() << "no command " << name;
    static const CommandSpec kNone{};
    return kNone;
  }
  return *spec;
}

std::set<std::string> CategoryNames(const CommandSpec& spec) {
  const uint32_t bits = AclCategories(spec);
  std::set<std::string> names;
  for (int i = 0; i < acl::kCategoryCount; ++i) {
    if (bits & (1u << i)) names.insert(std::string(acl::CategoryName(i)));
  }
  return names;
}

TEST(AclCategoriesTest, AsRedis) {
  struct Want {
    std::string_view name;
    std::set<std::string> categories;
  };
  // From redis-server 7.0.15's COMMAND INFO.
  const std::vector<Want> wants = {
      {"get", {"fast", "read", "string"}},
      {"set", {"slow", "string", "write"}},
      {"del", {"keyspace", "slow", "write"}},
      {"keys", {"dangerous", "keyspace", "read", "slow"}},
      {"flushall", {"dangerous", "keyspace", "slow", "write"}},
      {"flushdb", {"dangerous", "keyspace", "slow", "write"}},
      {"dbsize", {"fast", "keyspace", "read"}},
      {"info", {"dangerous", "slow"}},
      {"lastsave", {"admin", "dangerous", "fast"}},
      {"config", {"slow"}},
      {"config|get", {"admin", "dangerous", "slow"}},
      {"config|set", {"admin", "dangerous", "slow"}},
      {"client", {"slow"}},
      {"client|list", {"admin", "connection", "dangerous", "slow"}},
      {"client|kill", {"admin", "connection", "dangerous", "slow"}},
      {"object", {"slow"}},
      {"object|encoding", {"keyspace", "read", "slow"}},
      {"command", {"connection", "slow"}},
      {"command|info", {"connection", "slow"}},
      {"zadd", {"fast", "sortedset", "write"}},
      {"zrange", {"read", "slow", "sortedset"}},
      {"zunionstore", {"slow", "sortedset", "write"}},
      {"hset", {"fast", "hash", "write"}},
      {"lpush", {"fast", "list", "write"}},
      {"sadd", {"fast", "set", "write"}},
      {"smembers", {"read", "set", "slow"}},
      {"multi", {"fast", "transaction"}},
      {"exec", {"slow", "transaction"}},
      {"watch", {"fast", "transaction"}},
      {"ping", {"connection", "fast"}},
      {"auth", {"connection", "fast"}},
      {"hello", {"connection", "fast"}},
      {"select", {"connection", "fast"}},
      {"acl", {"slow"}},
      {"acl|cat", {"slow"}},
      {"acl|setuser", {"admin", "dangerous", "slow"}},
      {"acl|whoami", {"slow"}},
      {"save", {"admin", "dangerous", "slow"}},
      {"bgsave", {"admin", "dangerous", "slow"}},
      {"expire", {"fast", "keyspace", "write"}},
      {"exists", {"fast", "keyspace", "read"}},
      {"swapdb", {"dangerous", "fast", "keyspace", "write"}},
      {"debug", {"admin", "dangerous", "slow"}},
      {"memory|usage", {"read", "slow"}},
      {"echo", {"connection", "fast"}},
      {"append", {"fast", "string", "write"}},
      {"incr", {"fast", "string", "write"}},
      {"mget", {"fast", "read", "string"}},
      {"scan", {"keyspace", "read", "slow"}},
      {"randomkey", {"keyspace", "read", "slow"}},
      {"rename", {"keyspace", "slow", "write"}},
      {"type", {"fast", "keyspace", "read"}},
      {"quit", {"connection", "fast"}},
      {"reset", {"connection", "fast"}},
      {"shutdown", {"admin", "dangerous", "slow"}},
  };
  for (const Want& w : wants) {
    EXPECT_EQ(CategoryNames(Spec(w.name)), w.categories) << w.name;
  }
}

TEST(AclCategoriesTest, EveryCommandIsFastOrSlowNotBoth) {
  for (const CommandSpec* spec : AllCommands().flat()) {
    const uint32_t bits = AclCategories(*spec);
    EXPECT_NE(((bits & acl::kFast) != 0), ((bits & acl::kSlow) != 0)) << spec->name;
  }
}

TEST(AclKeyAccessTest, AsRedisKeySpecs) {
  constexpr uint8_t kNone = 0, kR = acl::kKeyRead, kW = acl::kKeyWrite, kRW = kR | kW;
  struct Want {
    std::string_view name;
    uint8_t access;
  };
  // RO ACCESS -> R; RW ACCESS UPDATE/DELETE -> RW; OW / RM / RW INSERT, DELETE or UPDATE without
  // ACCESS -> W; RO without ACCESS -> none.
  const std::vector<Want> wants = {
      {"get", kR},
      {"mget", kR},
      {"lrange", kR},
      {"zscore", kR},
      {"incr", kRW},
      {"getdel", kRW},
      {"getset", kRW},
      {"lpop", kRW},
      {"spop", kRW},
      {"hincrby", kRW},
      {"set", kW},
      {"mset", kW},
      {"setnx", kW},
      {"setrange", kW},
      {"append", kW},
      {"del", kW},
      {"unlink", kW},
      {"expire", kW},
      {"persist", kW},
      {"lpush", kW},
      {"lrem", kW},
      {"ltrim", kW},
      {"lset", kW},
      {"hset", kW},
      {"hdel", kW},
      {"sadd", kW},
      {"srem", kW},
      {"zadd", kW},
      {"zrem", kW},
      {"zremrangebyscore", kW},
      {"exists", kNone},
      {"type", kNone},
      {"strlen", kNone},
      {"llen", kNone},
      {"scard", kNone},
      {"zcard", kNone},
      {"hexists", kNone},
      {"touch", kNone},
      {"watch", kNone},
      {"object|encoding", kNone},
      {"memory|usage", kNone},
      // Several key specs: one access for all the keys, the strictest (Redis: source RW ACCESS
      // DELETE, destination OW UPDATE).
      {"rename", kRW},
  };
  for (const Want& w : wants) {
    EXPECT_EQ(AclKeyAccess(Spec(w.name)), w.access) << w.name;
  }
}

TEST(AclKeyAccessTest, SetWithGetReadsItsKey) {
  const CommandSpec& set = Spec("set");
  auto access = [&](std::vector<std::string_view> args) { return AclKeyAccess(set, args); };
  EXPECT_EQ(access({"set", "k", "v"}), acl::kKeyWrite);
  EXPECT_EQ(access({"set", "k", "v", "EX", "10"}), acl::kKeyWrite);
  EXPECT_EQ(access({"set", "k", "get"}), acl::kKeyWrite);  // the value, not the option
  EXPECT_EQ(access({"set", "k", "v", "GeT"}), acl::kKeyRead | acl::kKeyWrite);
  EXPECT_EQ(access({"set", "k", "v", "nx", "get"}), acl::kKeyRead | acl::kKeyWrite);
}

}  // namespace
}  // namespace ordis::server
