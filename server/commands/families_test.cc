#include "server/commands/families.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>
#include <vector>

namespace ordis::server {
namespace {

std::vector<const CommandSpec*> EverySpec() {
  std::vector<const CommandSpec*> out;
  for (const CommandSpec& spec : AllCommands().all()) {
    out.push_back(&spec);
    for (const CommandSpec& sub : spec.subcommands) out.push_back(&sub);
  }
  return out;
}

bool IsLower(std::string_view s) {
  for (char c : s) {
    if (std::isupper(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

TEST(CommandTable, EverySpecIsWellFormed) {
  std::set<std::string_view> names;
  for (const CommandSpec* spec : EverySpec()) {
    SCOPED_TRACE(std::string(spec->name));
    EXPECT_FALSE(spec->name.empty());
    EXPECT_TRUE(IsLower(spec->name));
    EXPECT_TRUE(names.insert(spec->name).second) << "duplicate name";
    EXPECT_NE(spec->arity, 0);
    EXPECT_FALSE(spec->group.empty());
    EXPECT_FALSE(spec->summary.empty());
    EXPECT_FALSE((spec->flags & cmd::kWrite) && (spec->flags & cmd::kReadonly));
    // A container without a handler of its own always dispatches to a subcommand.
    if (spec->handler == nullptr) {
      EXPECT_FALSE(spec->subcommands.empty());
    }

    // Key positions: step > 0 when there are keys, and the first key (and a positive last key)
    // exist in the shortest call the arity admits.
    size_t min_argc = static_cast<size_t>(spec->arity > 0 ? spec->arity : -spec->arity);
    EXPECT_GE(spec->first_key, 0);
    if (spec->first_key > 0) {
      EXPECT_GT(spec->key_step, 0);
      EXPECT_LT(static_cast<size_t>(spec->first_key), min_argc);
      EXPECT_NE(spec->last_key, 0);
      if (spec->last_key > 0) {
        EXPECT_GE(spec->last_key, spec->first_key);
        EXPECT_LT(static_cast<size_t>(spec->last_key), min_argc);
      }
      // A command that names keys runs under one of the keyspace locks.
      EXPECT_NE(
          spec->flags & (cmd::kWrite | cmd::kReadonly | cmd::kSharedLock | cmd::kExclusiveLock),
          0u);
    } else {
      EXPECT_EQ(spec->last_key, 0);
      EXPECT_EQ(spec->key_step, 0);
    }
  }
  EXPECT_GT(names.size(), 50u);
}

TEST(CommandTable, SubcommandsAreNamedAfterTheirContainer) {
  for (const CommandSpec& spec : AllCommands().all()) {
    EXPECT_EQ(spec.name.find('|'), std::string_view::npos) << spec.name;
    for (const CommandSpec& sub : spec.subcommands) {
      SCOPED_TRACE(std::string(sub.name));
      EXPECT_EQ(sub.name.substr(0, spec.name.size() + 1), std::string(spec.name) + "|");
      EXPECT_NE(sub.handler, nullptr);
      EXPECT_TRUE(sub.subcommands.empty());
      // The subcommand's name is an argument of its own: |arity| >= 2.
      EXPECT_GE(sub.arity > 0 ? sub.arity : -sub.arity, 2);
      std::string_view short_name = sub.name.substr(spec.name.size() + 1);
      EXPECT_EQ(CommandTable::FindSubcommand(spec, short_name), &sub);
      std::string upper(short_name);
      for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      EXPECT_EQ(CommandTable::FindSubcommand(spec, upper), &sub);
    }
    EXPECT_EQ(CommandTable::FindSubcommand(spec, "no-such-subcommand"), nullptr);
    EXPECT_EQ(CommandTable::FindSubcommand(spec, ""), nullptr);
  }
}

TEST(CommandTable, IdsIndexTheFlatList) {
  const auto& flat = AllCommands().flat();
  std::set<int> ids;
  for (const CommandSpec* spec : EverySpec()) {
    ASSERT_GE(spec->id, 0) << spec->name;
    ASSERT_LT(static_cast<size_t>(spec->id), flat.size()) << spec->name;
    EXPECT_EQ(flat[spec->id], spec) << spec->name;
    EXPECT_TRUE(ids.insert(spec->id).second) << spec->name;
  }
  EXPECT_EQ(ids.size(), flat.size());
}

TEST(CommandTable, FindIsCaseInsensitive) {
  const CommandTable& table = AllCommands();
  const CommandSpec* get = table.Find("get");
  ASSERT_NE(get, nullptr);
  EXPECT_EQ(get->name, "get");
  EXPECT_EQ(table.Find("GET"), get);
  EXPECT_EQ(table.Find("gEt"), get);
  EXPECT_EQ(table.Find("IncrByFloat"), table.Find("incrbyfloat"));
  EXPECT_NE(table.Find("incrbyfloat"), nullptr);
  for (const CommandSpec& spec : table.all()) {
    std::string upper(spec.name);
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_EQ(table.Find(upper), &spec) << upper;
    EXPECT_EQ(table.Find(spec.name), &spec) << spec.name;
  }
}

TEST(CommandTable, FindRejectsUnknownNames) {
  const CommandTable& table = AllCommands();
  EXPECT_EQ(table.Find(""), nullptr);
  EXPECT_EQ(table.Find("nosuchcommand"), nullptr);
  EXPECT_EQ(table.Find("ge"), nullptr);
  EXPECT_EQ(table.Find("gett"), nullptr);
  EXPECT_EQ(table.Find("get "), nullptr);
  EXPECT_EQ(table.Find(std::string_view("get\0", 4)), nullptr);
  // Subcommands are not top-level names.
  EXPECT_EQ(table.Find("config|get"), nullptr);
  // Longer than any command name (the hash folds case in a 32-byte buffer).
  EXPECT_EQ(table.Find(std::string(33, 'a')), nullptr);
  EXPECT_EQ(table.Find(std::string(1000, 'G')), nullptr);
}

// Arities and key positions as Redis 7 declares them (COMMAND INFO), for the commands ordis has.
// rename-command: the new name finds the command, the old one nothing; "" disables it; the
// log's replay still finds every command by its own name.
TEST(CommandTable, WithRenames) {
  std::string error;
  auto table = CommandTable::WithRenames(AllCommands(), {{"GET", "Get2"}, {"config", ""}}, &error);
  ASSERT_NE(table, nullptr) << error;
  EXPECT_EQ(table->Find("get"), nullptr);
  EXPECT_EQ(table->Find("config"), nullptr);
  ASSERT_NE(table->Find("GET2"), nullptr);
  EXPECT_EQ(table->Find("get2")->name, "get");
  EXPECT_EQ(table->Find("get2")->id, AllCommands().Find("get")->id);
  ASSERT_NE(table->FindOriginal("GET"), nullptr);
  EXPECT_EQ(table->FindOriginal("config")->name, "config");
  EXPECT_EQ(table->FindOriginal("get2"), nullptr);
  EXPECT_TRUE(table->has_renames());
  EXPECT_EQ(table->flat().size(), AllCommands().flat().size());

  EXPECT_EQ(CommandTable::WithRenames(AllCommands(), {{"nosuch", "x"}}, &error), nullptr);
  EXPECT_EQ(error, "No such command in rename-command");
  EXPECT_EQ(CommandTable::WithRenames(AllCommands(), {{"get", "set"}}, &error), nullptr);
  EXPECT_EQ(error, "Target command name already exists");
  auto none = CommandTable::WithRenames(AllCommands(), {}, &error);
  ASSERT_NE(none, nullptr);
  EXPECT_FALSE(none->has_renames());
  EXPECT_EQ(none->FindOriginal("get"), none->Find("get"));
}

TEST(CommandTable, RedisArities) {
  struct Want {
    std::string_view name;
    int arity;
  };
  const Want kRequired[] = {
      {"get", 2},     {"set", -3},    {"mset", -3},   {"del", -2},     {"exists", -2},
      {"expire", -3}, {"krange", -3}, {"kcount", 3},  {"multi", 1},    {"exec", 1},
      {"ping", -1},   {"client", -2}, {"config", -2}, {"command", -1},
  };
  for (const Want& w : kRequired) {
    const CommandSpec* spec = AllCommands().Find(w.name);
    ASSERT_NE(spec, nullptr) << w.name;
    EXPECT_EQ(spec->arity, w.arity) << w.name;
  }
  // Checked when present.
  // clang-format off
  const Want kRedis[] = {
      {"echo", 2},        {"auth", -2},        {"hello", -1},      {"select", 2},
      {"reset", 1},       {"unlink", -2},      {"touch", -2},      {"type", 2},
      {"rename", 3},      {"renamenx", 3},     {"copy", -3},       {"move", 3},
      {"swapdb", 3},      {"keys", 2},         {"scan", -2},       {"randomkey", 1},
      {"dbsize", 1},      {"flushdb", -1},     {"flushall", -1},   {"time", 1},
      {"lastsave", 1},    {"info", -1},        {"shutdown", -1},   {"setnx", 3},
      {"setex", 4},       {"psetex", 4},       {"getset", 3},      {"getdel", 2},
      {"getex", -2},      {"mget", -2},        {"msetnx", -3},     {"append", 3},
      {"strlen", 2},      {"incr", 2},         {"decr", 2},        {"incrby", 3},
      {"decrby", 3},      {"incrbyfloat", 3},  {"getrange", 4},    {"substr", 4},
      {"setrange", 4},    {"pexpire", -3},     {"expireat", -3},   {"pexpireat", -3},
      {"ttl", 2},         {"pttl", 2},         {"expiretime", 2},  {"pexpiretime", 2},
      {"persist", 2},     {"discard", 1},      {"watch", -2},      {"unwatch", 1},
      {"object", -2},     {"memory", -2},      {"debug", -2},
      {"zadd", -4},       {"zincrby", 4},      {"zrem", -3},       {"zcard", 2},
      {"zscore", 3},      {"zmscore", -3},     {"zrank", 3},       {"zrevrank", 3},
      {"zcount", 4},      {"zlexcount", 4},    {"zrange", -4},     {"zrevrange", -4},
      {"zrangebyscore", -4}, {"zrevrangebyscore", -4}, {"zrangebylex", -4},
      {"zrevrangebylex", -4}, {"zremrangebyrank", 4}, {"zremrangebyscore", 4},
      {"zremrangebylex", 4}, {"zpopmin", -2},  {"zpopmax", -2},    {"zrandmember", -2},
      {"zrangestore", -5}, {"zunionstore", -4}, {"zinterstore", -4}, {"zdiffstore", -4},
      {"zunion", -3},     {"zinter", -3},      {"zdiff", -3},      {"zintercard", -3},
      {"zscan", -3},
  };
  // clang-format on
  for (const Want& w : kRedis) {
    const CommandSpec* spec = AllCommands().Find(w.name);
    if (spec == nullptr) continue;
    EXPECT_EQ(spec->arity, w.arity) << w.name;
  }
  const Want kRedisSub[] = {
      {"config|get", -3},      {"config|set", -4},     {"config|rewrite", 2},
      {"config|resetstat", 2}, {"config|help", 2},     {"client|id", 2},
      {"client|setname", 3},   {"client|getname", 2},  {"client|list", -2},
      {"client|info", 2},      {"client|kill", -3},    {"client|reply", 3},
      {"client|no-evict", 3},  {"client|help", 2},     {"command|count", 2},
      {"command|docs", -2},    {"command|info", -2},   {"command|list", -2},
      {"command|getkeys", -4}, {"command|help", 2},    {"object|encoding", 3},
      {"object|freq", 3},      {"object|idletime", 3}, {"object|refcount", 3},
      {"object|help", 2},      {"memory|usage", -3},   {"memory|help", 2},
  };
  for (const Want& w : kRedisSub) {
    std::string_view container = w.name.substr(0, w.name.find('|'));
    const CommandSpec* parent = AllCommands().Find(container);
    if (parent == nullptr) continue;
    const CommandSpec* sub =
        CommandTable::FindSubcommand(*parent, w.name.substr(container.size() + 1));
    if (sub == nullptr) continue;
    EXPECT_EQ(sub->arity, w.arity) << w.name;
  }
}

TEST(CommandTable, RedisKeyPositions) {
  struct Want {
    std::string_view name;
    int first, last, step;
  };
  const Want kRedis[] = {
      {"get", 1, 1, 1},         {"set", 1, 1, 1},         {"mset", 1, -1, 2},
      {"msetnx", 1, -1, 2},     {"mget", 1, -1, 1},       {"del", 1, -1, 1},
      {"exists", 1, -1, 1},     {"rename", 1, 2, 1},      {"copy", 1, 2, 1},
      {"expire", 1, 1, 1},      {"watch", 1, -1, 1},      {"ping", 0, 0, 0},
      {"multi", 0, 0, 0},       {"swapdb", 0, 0, 0},      {"zadd", 1, 1, 1},
      {"zrangestore", 1, 2, 1}, {"zunionstore", 1, 1, 1}, {"zinterstore", 1, 1, 1},
      {"zdiffstore", 1, 1, 1},  {"zunion", 0, 0, 0},      {"zinter", 0, 0, 0},
      {"zdiff", 0, 0, 0},       {"zintercard", 0, 0, 0},  {"zscan", 1, 1, 1},
  };
  for (const Want& w : kRedis) {
    const CommandSpec* spec = AllCommands().Find(w.name);
    if (spec == nullptr) continue;
    EXPECT_EQ(spec->first_key, w.first) << w.name;
    EXPECT_EQ(spec->last_key, w.last) << w.name;
    EXPECT_EQ(spec->key_step, w.step) << w.name;
  }
}

CommandSpec Spec(int arity, int first, int last, int step) {
  CommandSpec s{};
  s.name = "test";
  s.arity = arity;
  s.first_key = first;
  s.last_key = last;
  s.key_step = step;
  return s;
}

std::vector<size_t> Keys(const CommandSpec& spec, std::vector<std::string_view> args) {
  std::vector<size_t> out = {999};  // KeyPositions must clear what it is given
  KeyPositions(spec, args, &out);
  return out;
}

std::vector<size_t> Keys(const CommandSpec& spec, size_t argc) {
  return Keys(spec, std::vector<std::string_view>(argc, "x"));
}

TEST(KeyPositions, FromSpecs) {
  using V = std::vector<size_t>;
  EXPECT_EQ(Keys(Spec(-1, 0, 0, 0), 3), V{});            // no keys
  EXPECT_EQ(Keys(Spec(2, 1, 1, 1), 2), V{1});            // GET k
  EXPECT_EQ(Keys(Spec(-3, 1, 1, 1), 5), V{1});           // SET k v EX 10
  EXPECT_EQ(Keys(Spec(-2, 1, -1, 1), 4), (V{1, 2, 3}));  // DEL a b c
  EXPECT_EQ(Keys(Spec(-3, 1, -1, 2), 5), (V{1, 3}));     // MSET a 1 b 2
  EXPECT_EQ(Keys(Spec(3, 1, 2, 1), 3), (V{1, 2}));       // RENAME a b
  EXPECT_EQ(Keys(Spec(-3, 2, 2, 1), 4), V{2});           // MEMORY USAGE k SAMPLES 5
  EXPECT_EQ(Keys(Spec(-3, 1, -2, 1), 5), (V{1, 2, 3}));  // all but the last argument
  // Short argument lists never produce positions past the end.
  EXPECT_EQ(Keys(Spec(3, 1, 2, 1), 2), V{1});
  EXPECT_EQ(Keys(Spec(2, 1, 1, 1), 1), V{});
  EXPECT_EQ(Keys(Spec(-2, 1, -1, 1), 1), V{});
  // A malformed MSET (odd pairs) still lists only key slots that exist.
  EXPECT_EQ(Keys(Spec(-3, 1, -1, 2), 4), (V{1, 3}));
}

// ZUNIONSTORE dst numkeys key ... [WEIGHTS ...]: the destination, then numkeys keys.
TEST(KeyPositions, NumKeys) {
  using V = std::vector<size_t>;
  const CommandSpec& store = *AllCommands().Find("zunionstore");
  EXPECT_EQ(Keys(store, {"zunionstore", "d", "2", "a", "b", "WEIGHTS", "1", "2"}), (V{1, 3, 4}));
  EXPECT_EQ(Keys(store, {"zunionstore", "d", "1", "a", "b"}), (V{1, 3}));
  const CommandSpec& zunion = *AllCommands().Find("zunion");
  EXPECT_EQ(Keys(zunion, {"zunion", "2", "a", "b", "WITHSCORES"}), (V{2, 3}));
  EXPECT_EQ(Keys(*AllCommands().Find("sintercard"), {"sintercard", "2", "a", "b", "LIMIT", "1"}),
            (V{2, 3}));
  // A numkeys the command refuses names no keys: not a number, not positive, past the end.
  EXPECT_EQ(Keys(zunion, {"zunion", "x", "a"}), V{});
  EXPECT_EQ(Keys(zunion, {"zunion", "0", "a"}), V{});
  EXPECT_EQ(Keys(zunion, {"zunion", "-1", "a"}), V{});
  EXPECT_EQ(Keys(zunion, {"zunion", "3", "a", "b"}), V{});
  EXPECT_EQ(Keys(store, {"zunionstore", "d", "9", "a"}), V{1});
}

TEST(KeyPositions, TableSpecsProduceValidPositions) {
  std::vector<size_t> out;
  for (const CommandSpec* spec : EverySpec()) {
    for (size_t argc = 1; argc < 12; ++argc) {
      KeyPositions(*spec, std::vector<std::string_view>(argc, "1"), &out);
      for (size_t i = 0; i < out.size(); ++i) {
        EXPECT_GE(out[i], 1u) << spec->name;
        EXPECT_LT(out[i], argc) << spec->name;
        if (i > 0) {
          EXPECT_GT(out[i], out[i - 1]) << spec->name;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ordis::server
