// COMMAND (COUNT INFO LIST DOCS GETKEYS GETKEYSANDFLAGS HELP), in-process, and the key-spec
// table (key_specs.h) with what acl_bridge derives from it. Every expectation was checked against
// redis-server 7.0.15. ordis supports fewer commands than Redis, so counts are checked for
// consistency, not against Redis's 240; where ordis's COMMAND INFO differs from Redis's (flags,
// ACL categories, tips) only the fields that agree are asserted. redis-compat/test_command_docs.py
// compares every command's key specs and documented arguments with a redis-server's.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "server/acl/user.h"
#include "server/command/acl_bridge.h"
#include "server/command/key_specs.h"
#include "server/commands/families.h"
#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class CommandDocsFamilyTest : public FamilyTest {
 protected:
  // COMMAND INFO name's one entry.
  Reply InfoOf(const std::string& name) {
    Reply r = Run({"command", "info", name});
    EXPECT_EQ(r.type, Reply::Type::kArray) << r;
    if (r.elements.size() != 1) {
      ADD_FAILURE() << r;
      return Reply();
    }
    return r.elements[0];
  }
  // COMMAND DOCS name's field (summary, since, group).
  std::string DocField(const std::string& name, const std::string& field) {
    Reply r = Run({"command", "docs", name});
    if (r.type != Reply::Type::kArray || r.elements.size() != 2 || r.elements[0] != Bulk(name)) {
      ADD_FAILURE() << r;
      return "";
    }
    const std::vector<Reply>& doc = r.elements[1].elements;
    for (size_t i = 0; i + 1 < doc.size(); i += 2) {
      if (doc[i] == Bulk(field)) return doc[i + 1].str;
    }
    ADD_FAILURE() << "no " << field << " in " << r;
    return "";
  }
};

std::set<std::string> AsSet(const Reply& r) {
  std::set<std::string> out;
  for (const Reply& e : r.elements) out.insert(e.str);
  return out;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// --- COMMAND COUNT / COMMAND / LIST ---

TEST_F(CommandDocsFamilyTest, CountIsTheNumberOfTopLevelCommands) {
  Reply count = Run({"command", "count"});
  ASSERT_EQ(count.type, Reply::Type::kInteger) << count;
  EXPECT_GT(count.integer, 100);
  EXPECT_EQ(static_cast<int64_t>(Run({"command"}).elements.size()), count.integer);
  EXPECT_EQ(static_cast<int64_t>(Run({"command", "info"}).elements.size()), count.integer);
  EXPECT_EQ(static_cast<int64_t>(Run({"command", "docs"}).elements.size()), 2 * count.integer);
  // LIST names the subcommands too ("config|get" ...).
  int64_t top_level = 0;
  for (const std::string& name : Run({"command", "list"}).Strings()) {
    if (name.find('|') == std::string::npos) ++top_level;
  }
  EXPECT_EQ(top_level, count.integer);
}

TEST_F(CommandDocsFamilyTest, CountArityAndUnknownSubcommand) {
  EXPECT_EQ(Run({"command", "count", "x"}),
            Err("ERR wrong number of arguments for 'command|count' command"));
  EXPECT_EQ(Run({"command", "foo"}), Err("ERR unknown subcommand 'foo'. Try COMMAND HELP."));
}

TEST_F(CommandDocsFamilyTest, ListFilterByPattern) {
  EXPECT_EQ(Sorted(Run({"command", "list", "filterby", "pattern", "zrange*"}).Strings()),
            Sorted({"zrangebylex", "zrangestore", "zrange", "zrangebyscore"}));
  EXPECT_EQ(Sorted(Run({"command", "list", "FILTERBY", "PATTERN", "config*"}).Strings()),
            Sorted({"config", "config|rewrite", "config|set", "config|help", "config|resetstat",
                    "config|get"}));
}

TEST_F(CommandDocsFamilyTest, ListFilterByAclCategory) {
  EXPECT_EQ(Sorted(Run({"command", "list", "filterby", "aclcat", "transaction"}).Strings()),
            Sorted({"discard", "watch", "multi", "exec", "unwatch"}));
  EXPECT_EQ(Run({"command", "list", "filterby", "aclcat", "nosuchcat"}), Array({}));
}

TEST_F(CommandDocsFamilyTest, ListFilterByModuleIsEmpty) {
  EXPECT_EQ(Run({"command", "list", "filterby", "module", "x"}), Array({}));
}

TEST_F(CommandDocsFamilyTest, ListSyntaxErrors) {
  EXPECT_EQ(Run({"command", "list", "filterby", "foo", "x"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"command", "list", "x"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"command", "list", "filterby"}), Err("ERR syntax error"));
}

// --- COMMAND INFO ---

TEST_F(CommandDocsFamilyTest, InfoOfGetIsRedisByteForByte) {
  const std::string get =
      "*10\r\n$3\r\nget\r\n:2\r\n*2\r\n+readonly\r\n+fast\r\n:1\r\n:1\r\n:1\r\n*3\r\n+@read\r\n"
      "+@string\r\n+@fast\r\n*0\r\n*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n"
      "$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$"
      "5\r\nindex\r\n"
      ":1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\n"
      "lastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n*0\r\n";
  EXPECT_EQ(RunRaw({"command", "info", "get"}), "*1\r\n" + get);
  EXPECT_EQ(RunRaw({"command", "info", "GET"}), "*1\r\n" + get);
}

TEST_F(CommandDocsFamilyTest, InfoNameArityFlagsKeysAndCategories) {
  struct Want {
    std::string name;
    int64_t arity;
    std::set<std::string> flags;
    int64_t first, last, step;
    std::set<std::string> categories;
  };
  const std::set<std::string> kReadonlyScript = {
      "readonly", "noscript", "stale", "skip_monitor", "no_mandatory_keys", "movablekeys"};
  const std::vector<Want> wants = {
      {"ping", -1, {"fast"}, 0, 0, 0, {"@fast", "@connection"}},
      {"incr", 2, {"write", "denyoom", "fast"}, 1, 1, 1, {"@write", "@string", "@fast"}},
      {"del", -2, {"write"}, 1, -1, 1, {"@keyspace", "@write", "@slow"}},
      {"mset", -3, {"write", "denyoom"}, 1, -1, 2, {"@write", "@string", "@slow"}},
      {"exists", -2, {"readonly", "fast"}, 1, -1, 1, {"@keyspace", "@read", "@fast"}},
      {"keys", 2, {"readonly"}, 0, 0, 0, {"@keyspace", "@read", "@slow", "@dangerous"}},
      {"select", 2, {"loading", "stale", "fast"}, 0, 0, 0, {"@fast", "@connection"}},
      {"hget", 3, {"readonly", "fast"}, 1, 1, 1, {"@read", "@hash", "@fast"}},
      // Read-only scripts are readonly but not @read; containers have no flags of their own.
      {"eval_ro", -3, kReadonlyScript, 0, 0, 0, {"@slow", "@scripting"}},
      {"evalsha_ro", -3, kReadonlyScript, 0, 0, 0, {"@slow", "@scripting"}},
      {"fcall_ro", -3, kReadonlyScript, 0, 0, 0, {"@slow", "@scripting"}},
      {"script", -2, {}, 0, 0, 0, {"@slow"}},
      {"client", -2, {}, 0, 0, 0, {"@slow"}},
      {"script|exists", -3, {"noscript"}, 0, 0, 0, {"@slow", "@scripting"}},
  };
  for (const Want& w : wants) {
    const Reply info = InfoOf(w.name);
    ASSERT_EQ(info.elements.size(), 10u) << info;
    EXPECT_EQ(info.elements[0], Bulk(w.name));
    EXPECT_EQ(info.elements[1], Int(w.arity)) << w.name;
    EXPECT_EQ(AsSet(info.elements[2]), w.flags) << w.name;
    EXPECT_EQ(info.elements[3], Int(w.first)) << w.name;
    EXPECT_EQ(info.elements[4], Int(w.last)) << w.name;
    EXPECT_EQ(info.elements[5], Int(w.step)) << w.name;
    EXPECT_EQ(AsSet(info.elements[6]), w.categories) << w.name;
  }
}

TEST_F(CommandDocsFamilyTest, InfoArityAndKeysOfServerCommands) {
  struct Want {
    std::string name;
    int64_t arity, first, last, step;
  };
  const std::vector<Want> wants = {
      {"multi", 1, 0, 0, 0},     {"exec", 1, 0, 0, 0},     {"watch", -2, 1, -1, 1},
      {"unwatch", 1, 0, 0, 0},   {"discard", 1, 0, 0, 0},  {"dbsize", 1, 0, 0, 0},
      {"flushall", -1, 0, 0, 0}, {"flushdb", -1, 0, 0, 0}, {"scan", -2, 0, 0, 0},
      {"time", 1, 0, 0, 0},      {"save", 1, 0, 0, 0},     {"bgsave", -1, 0, 0, 0},
      {"lastsave", 1, 0, 0, 0},  {"info", -1, 0, 0, 0},    {"config", -2, 0, 0, 0},
      {"command", -1, 0, 0, 0},  {"memory", -2, 0, 0, 0},  {"randomkey", 1, 0, 0, 0},
  };
  for (const Want& w : wants) {
    const Reply info = InfoOf(w.name);
    ASSERT_EQ(info.elements.size(), 10u) << info;
    EXPECT_EQ(info.elements[0], Bulk(w.name));
    EXPECT_EQ(info.elements[1], Int(w.arity)) << w.name;
    EXPECT_EQ(info.elements[3], Int(w.first)) << w.name;
    EXPECT_EQ(info.elements[4], Int(w.last)) << w.name;
    EXPECT_EQ(info.elements[5], Int(w.step)) << w.name;
  }
}

TEST_F(CommandDocsFamilyTest, InfoListsConfigSubcommands) {
  const Reply info = InfoOf("config");
  ASSERT_EQ(info.elements.size(), 10u) << info;
  std::map<std::string, int64_t> arities;
  for (const Reply& sub : info.elements[9].elements) {
    ASSERT_GE(sub.elements.size(), 2u) << sub;
    arities[sub.elements[0].str] = sub.elements[1].integer;
  }
  const std::map<std::string, int64_t> want = {{"config|get", -3},
                                               {"config|set", -4},
                                               {"config|resetstat", 2},
                                               {"config|rewrite", 2},
                                               {"config|help", 2}};
  EXPECT_EQ(arities, want);
}

TEST_F(CommandDocsFamilyTest, InfoOfSeveralKeepsTheirOrder) {
  const Reply r = Run({"command", "info", "get", "hget"});
  ASSERT_EQ(r.elements.size(), 2u) << r;
  EXPECT_EQ(r.elements[0].elements[0], Bulk("get"));
  EXPECT_EQ(r.elements[1].elements[0], Bulk("hget"));
}

// --- COMMAND DOCS ---

TEST_F(CommandDocsFamilyTest, DocsSummarySinceAndGroup) {
  EXPECT_EQ(DocField("get", "summary"), "Get the value of a key");
  EXPECT_EQ(DocField("get", "since"), "1.0.0");
  EXPECT_EQ(DocField("get", "group"), "string");
  EXPECT_EQ(DocField("dbsize", "summary"), "Return the number of keys in the selected database");
  EXPECT_EQ(DocField("dbsize", "since"), "1.0.0");
  EXPECT_EQ(DocField("dbsize", "group"), "server");
  EXPECT_EQ(DocField("del", "group"), "generic");
  EXPECT_EQ(DocField("save", "since"), "1.0.0");
  EXPECT_EQ(DocField("flushall", "group"), "server");
}

TEST_F(CommandDocsFamilyTest, DocsSummaryAndGroupOfLaterCommands) {
  EXPECT_EQ(DocField("multi", "summary"), "Mark the start of a transaction block");
  EXPECT_EQ(DocField("multi", "group"), "transactions");
  EXPECT_EQ(DocField("watch", "group"), "transactions");
  EXPECT_EQ(DocField("scan", "summary"), "Incrementally iterate the keys space");
  EXPECT_EQ(DocField("scan", "group"), "generic");
  EXPECT_EQ(DocField("time", "summary"), "Return the current server time");
  EXPECT_EQ(DocField("swapdb", "summary"), "Swaps two Redis databases");
}

TEST_F(CommandDocsFamilyTest, DocsIgnoreUnknownNames) {
  EXPECT_EQ(Run({"command", "docs", "nosuch"}), Array({}));
  const Reply r = Run({"command", "docs", "GET", "nosuch"});
  ASSERT_EQ(r.elements.size(), 2u) << r;
  EXPECT_EQ(r.elements[0], Bulk("get"));
}

// --- COMMAND GETKEYS ---

TEST_F(CommandDocsFamilyTest, GetKeys) {
  EXPECT_EQ(Run({"command", "getkeys", "set", "k", "v"}), Strings({"k"}));
  EXPECT_EQ(Run({"command", "getkeys", "SET", "k", "v"}), Strings({"k"}));
  EXPECT_EQ(Run({"command", "getkeys", "mset", "a", "1", "b", "2"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"command", "getkeys", "del", "a", "b", "c"}), Strings({"a", "b", "c"}));
  EXPECT_EQ(Run({"command", "getkeys", "lmove", "a", "b", "left", "right"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"command", "getkeys", "memory", "usage", "k"}), Strings({"k"}));
}

TEST_F(CommandDocsFamilyTest, GetKeysErrors) {
  EXPECT_EQ(Run({"command", "getkeys", "nosuch", "a"}), Err("ERR Invalid command specified"));
  EXPECT_EQ(Run({"command", "getkeys", "get", "a", "b"}),
            Err("ERR Invalid number of arguments specified for command"));
  EXPECT_EQ(Run({"command", "getkeys", "config", "get", "x"}),
            Err("ERR The command has no key arguments"));
  EXPECT_EQ(Run({"command", "getkeys"}),
            Err("ERR wrong number of arguments for 'command|getkeys' command"));
}

TEST_F(CommandDocsFamilyTest, GetKeysFollowsRedisChecks) {
  // A command without keys says so before its arity is looked at.
  EXPECT_EQ(Run({"command", "getkeys", "ping", "x", "y"}),
            Err("ERR The command has no key arguments"));
  EXPECT_EQ(Run({"command", "getkeys", "spublish", "ch", "m"}),
            Err("ERR The command has no key arguments"));  // its channel is not a key
  EXPECT_EQ(Run({"command", "getkeys", "get"}),
            Err("ERR wrong number of arguments for 'command|getkeys' command"));
  // Calls the key specs reject.
  EXPECT_EQ(Run({"command", "getkeys", "zunionstore", "d", "0", "a"}),
            Err("ERR Invalid arguments specified for command"));
  EXPECT_EQ(Run({"command", "getkeys", "zunionstore", "d", "3", "a", "b"}),
            Err("ERR Invalid arguments specified for command"));
  EXPECT_EQ(Run({"command", "getkeys", "pfmerge", "d"}),
            Err("ERR Invalid arguments specified for command"));
  EXPECT_EQ(Run({"command", "getkeys", "migrate", "h", "1", "k", "0", "1", "keys", "a"}),
            Err("ERR Invalid arguments specified for command"));
  // Scripts may name no key.
  EXPECT_EQ(Run({"command", "getkeys", "eval", "s", "0"}), Array({}));
  EXPECT_EQ(Run({"command", "getkeys", "fcall", "f", "5", "a"}), Array({}));
  EXPECT_EQ(Run({"command", "getkeys", "xread", "count", "1", "streams", "a", "b", "0"}),
            Strings({"a"}));
  EXPECT_EQ(Run({"command", "getkeys", "sort", "a", "by", "x", "get", "y", "store", "d"}),
            Strings({"a", "d"}));
  // A KEYS keyword last is no keyword (nothing follows it): the key argument, "", is the key.
  EXPECT_EQ(Run({"command", "getkeys", "migrate", "h", "1", "", "0", "1", "keys"}), Strings({""}));
  EXPECT_EQ(Run({"command", "getkeys", "migrate", "h", "1", "", "0", "1", "keys", "a", "b"}),
            Strings({"a", "b"}));
}

// --- COMMAND GETKEYSANDFLAGS ---

Reply KeyFlags(const std::string& key, std::vector<std::string> flags) {
  std::vector<Reply> statuses;
  for (const std::string& f : flags) statuses.push_back(Status(f));
  return Array({Bulk(key), Array(std::move(statuses))});
}

TEST_F(CommandDocsFamilyTest, GetKeysAndFlags) {
  auto keys = [&](std::vector<std::string> call) {
    call.insert(call.begin(), {"command", "getkeysandflags"});
    return Run(call);
  };
  EXPECT_EQ(keys({"lmove", "a", "b", "left", "right"}),
            Array({KeyFlags("a", {"RW", "access", "delete"}), KeyFlags("b", {"RW", "insert"})}));
  EXPECT_EQ(keys({"get", "a"}), Array({KeyFlags("a", {"RO", "access"})}));
  EXPECT_EQ(keys({"exists", "a", "b"}), Array({KeyFlags("a", {"RO"}), KeyFlags("b", {"RO"})}));
  EXPECT_EQ(keys({"del", "a"}), Array({KeyFlags("a", {"RM", "delete"})}));
  EXPECT_EQ(keys({"mset", "a", "1", "b", "2"}),
            Array({KeyFlags("a", {"OW", "update"}), KeyFlags("b", {"OW", "update"})}));
  // Variable flags: resolved for the call.
  EXPECT_EQ(keys({"set", "a", "b"}), Array({KeyFlags("a", {"OW", "update"})}));
  EXPECT_EQ(keys({"set", "a", "b", "ex", "1", "GET"}),
            Array({KeyFlags("a", {"RW", "access", "update"})}));
  EXPECT_EQ(keys({"bitfield", "k", "overflow", "sat", "get", "u8", "0"}),
            Array({KeyFlags("k", {"RO", "access"})}));
  EXPECT_EQ(keys({"bitfield", "k", "get", "u8"}),  // malformed: a write, the safe side
            Array({KeyFlags("k", {"RW", "access", "update"})}));
  EXPECT_EQ(keys({"bitfield", "k", "incrby", "u8", "0", "1"}),
            Array({KeyFlags("k", {"RW", "access", "update"})}));
  // Several specs: each key its own.
  EXPECT_EQ(keys({"zunionstore", "d", "2", "a", "b"}),
            Array({KeyFlags("d", {"OW", "update"}), KeyFlags("a", {"RO", "access"}),
                   KeyFlags("b", {"RO", "access"})}));
  EXPECT_EQ(keys({"georadius", "k", "1", "2", "3", "m", "store", "s", "storedist", "t"}),
            Array({KeyFlags("k", {"RO", "access"}), KeyFlags("s", {"OW", "update"}),
                   KeyFlags("t", {"OW", "update"})}));
  // Keys no spec can place, found by the command's own reading (no "incomplete" on a key).
  EXPECT_EQ(keys({"sort", "a", "limit", "0", "1", "store", "d", "get", "#"}),
            Array({KeyFlags("a", {"RO", "access"}), KeyFlags("d", {"OW", "update"})}));
  EXPECT_EQ(keys({"migrate", "h", "1", "", "0", "1", "auth2", "u", "p", "keys", "a", "b"}),
            Array({KeyFlags("a", {"RW", "access", "delete"}),
                   KeyFlags("b", {"RW", "access", "delete"})}));
  EXPECT_EQ(keys({"memory", "usage", "k"}), Array({KeyFlags("k", {"RO"})}));
  EXPECT_EQ(keys({"xreadgroup", "group", "g", "c", "streams", "a", "b", ">", ">"}),
            Array({KeyFlags("a", {"RO", "access"}), KeyFlags("b", {"RO", "access"})}));
}

TEST_F(CommandDocsFamilyTest, GetKeysAndFlagsErrorsAsGetKeys) {
  EXPECT_EQ(Run({"command", "getkeysandflags", "nosuch", "a"}),
            Err("ERR Invalid command specified"));
  EXPECT_EQ(Run({"command", "getkeysandflags", "get", "a", "b"}),
            Err("ERR Invalid number of arguments specified for command"));
  EXPECT_EQ(Run({"command", "getkeysandflags", "config", "get", "x"}),
            Err("ERR The command has no key arguments"));
  EXPECT_EQ(Run({"command", "getkeysandflags", "get"}),
            Err("ERR wrong number of arguments for 'command|getkeysandflags' command"));
  EXPECT_EQ(Run({"command", "getkeysandflags", "zinterstore", "d", "0", "a"}),
            Err("ERR Invalid arguments specified for command"));
  EXPECT_EQ(Run({"command", "getkeysandflags", "eval", "s", "0"}), Array({}));
}

TEST_F(CommandDocsFamilyTest, GetKeysAndFlagsResp3FlagsAreASet) {
  Run({"hello", "3"});
  EXPECT_EQ(RunRaw({"command", "getkeysandflags", "lmove", "a", "b", "left", "right"}),
            "*2\r\n*2\r\n$1\r\na\r\n~3\r\n+RW\r\n+access\r\n+delete\r\n*2\r\n$1\r\nb\r\n~2\r\n"
            "+RW\r\n+insert\r\n");
}

// --- key specs in COMMAND INFO ---

TEST_F(CommandDocsFamilyTest, InfoOfLmoveIsRedisByteForByteInResp3) {
  Run({"hello", "3"});
  const std::string range0 =
      "$9\r\nfind_keys\r\n%2\r\n$4\r\ntype\r\n$5\r\nrange\r\n$4\r\nspec\r\n%3\r\n$7\r\nlastkey\r\n"
      ":0\r\n$7\r\nkeystep\r\n:1\r\n$5\r\nlimit\r\n:0\r\n";
  auto index = [](int i) {
    return "$12\r\nbegin_search\r\n%2\r\n$4\r\ntype\r\n$5\r\nindex\r\n$4\r\nspec\r\n%1\r\n$5\r\n"
           "index\r\n:" +
           std::to_string(i) + "\r\n";
  };
  EXPECT_EQ(RunRaw({"command", "info", "lmove"}),
            "*1\r\n*10\r\n$5\r\nlmove\r\n:5\r\n~2\r\n+write\r\n+denyoom\r\n:1\r\n:2\r\n:1\r\n~3\r\n"
            "+@write\r\n+@list\r\n+@slow\r\n~0\r\n~2\r\n%3\r\n$5\r\nflags\r\n~3\r\n+RW\r\n"
            "+access\r\n+delete\r\n" +
                index(1) + range0 + "%3\r\n$5\r\nflags\r\n~2\r\n+RW\r\n+insert\r\n" + index(2) +
                range0 + "~0\r\n");
}

Reply Spec(std::vector<std::string> flags, Reply begin, Reply find) {
  std::vector<Reply> statuses;
  for (const std::string& f : flags) statuses.push_back(Status(f));
  return Array({Bulk("flags"), Array(std::move(statuses)), Bulk("begin_search"), std::move(begin),
                Bulk("find_keys"), std::move(find)});
}
Reply IndexAt(int64_t i) {
  return Array({Bulk("type"), Bulk("index"), Bulk("spec"), Array({Bulk("index"), Int(i)})});
}
Reply KeywordFrom(const std::string& keyword, int64_t from) {
  return Array({Bulk("type"), Bulk("keyword"), Bulk("spec"),
                Array({Bulk("keyword"), Bulk(keyword), Bulk("startfrom"), Int(from)})});
}
Reply RangeOf(int64_t last, int64_t step, int64_t limit) {
  return Array(
      {Bulk("type"), Bulk("range"), Bulk("spec"),
       Array({Bulk("lastkey"), Int(last), Bulk("keystep"), Int(step), Bulk("limit"), Int(limit)})});
}
Reply KeynumOf(int64_t idx, int64_t first, int64_t step) {
  return Array({Bulk("type"), Bulk("keynum"), Bulk("spec"),
                Array({Bulk("keynumidx"), Int(idx), Bulk("firstkey"), Int(first), Bulk("keystep"),
                       Int(step)})});
}
Reply Unknown() { return Array({Bulk("type"), Bulk("unknown"), Bulk("spec"), Array({})}); }

TEST_F(CommandDocsFamilyTest, InfoKeySpecsAsRedis) {
  auto specs = [&](const std::string& name) { return InfoOf(name).elements.at(8); };
  EXPECT_EQ(
      specs("set"),
      Array({Spec({"RW", "access", "update", "variable_flags"}, IndexAt(1), RangeOf(0, 1, 0))}));
  EXPECT_EQ(specs("mset"), Array({Spec({"OW", "update"}, IndexAt(1), RangeOf(-1, 2, 0))}));
  EXPECT_EQ(specs("xread"),
            Array({Spec({"RO", "access"}, KeywordFrom("STREAMS", 1), RangeOf(-1, 1, 2))}));
  EXPECT_EQ(specs("zunionstore"), Array({Spec({"OW", "update"}, IndexAt(1), RangeOf(0, 1, 0)),
                                         Spec({"RO", "access"}, IndexAt(2), KeynumOf(0, 1, 1))}));
  EXPECT_EQ(specs("sort"), Array({Spec({"RO", "access"}, IndexAt(1), RangeOf(0, 1, 0)),
                                  Spec({"RO", "access"}, Unknown(), Unknown()),
                                  Spec({"OW", "update"}, Unknown(), Unknown())}));
  EXPECT_EQ(specs("migrate"), Array({Spec({"RW", "access", "delete"}, IndexAt(3), RangeOf(0, 1, 0)),
                                     Spec({"RW", "access", "delete", "incomplete"},
                                          KeywordFrom("KEYS", -2), RangeOf(-1, 1, 0))}));
  EXPECT_EQ(specs("spublish"), Array({Spec({"not_key"}, IndexAt(1), RangeOf(0, 1, 0))}));
  EXPECT_EQ(specs("ping"), Array({}));
  EXPECT_EQ(specs("krange"), Array({}));  // its bounds are not keys
  // A subcommand's.
  const Reply xinfo = InfoOf("xinfo");
  bool found = false;
  for (const Reply& sub : xinfo.elements.at(9).elements) {
    if (sub.elements.at(0) != Bulk("xinfo|stream")) continue;
    found = true;
    EXPECT_EQ(sub.elements.at(8), Array({Spec({"RO", "access"}, IndexAt(2), RangeOf(0, 1, 0))}));
  }
  EXPECT_TRUE(found);
}

TEST_F(CommandDocsFamilyTest, InfoFlagsNameNoMandatoryKeys) {
  EXPECT_EQ(InfoOf("eval").elements.at(2),
            Array({Status("noscript"), Status("stale"), Status("skip_monitor"),
                   Status("no_mandatory_keys"), Status("movablekeys")}));
}

TEST_F(CommandDocsFamilyTest, InfoAndDocsTakeSubcommandNames) {
  const Reply info = Run({"command", "info", "CONFIG|GET", "get|x", "config|get|x"});
  ASSERT_EQ(info.elements.size(), 3u) << info;
  EXPECT_EQ(info.elements[0].elements.at(0), Bulk("config|get"));
  EXPECT_EQ(info.elements[1], NilArray());
  EXPECT_EQ(info.elements[2], NilArray());
  const Reply docs = Run({"command", "docs", "config|get"});
  ASSERT_EQ(docs.elements.size(), 2u) << docs;
  EXPECT_EQ(docs.elements[0], Bulk("config|get"));
}

TEST_F(CommandDocsFamilyTest, InfoResp3EmptySubcommandsAndKeySpecsAreSets) {
  Run({"hello", "3"});
  const std::string raw = RunRaw({"command", "info", "ping"});
  // ... tips, key specs, subcommands: three empty sets, as Redis 7.0 writes them.
  EXPECT_EQ(raw.substr(raw.size() - 12), "~0\r\n~0\r\n~0\r\n") << raw;
}

// Every command whose keys ordis reads has Redis's key specs, and they place the keys where
// ordis's own reading finds them, for a call of each command's arity.
TEST(KeySpecsTest, EveryCommandWithKeysHasSpecs) {
  int checked = 0;
  for (const CommandSpec* spec : AllCommands().flat()) {
    if (spec->first_key <= 0 && !spec->movable_keys()) continue;
    const CommandKeySpecs* keys = KeySpecsOf(spec->name);
    EXPECT_TRUE(keys != nullptr && !keys->specs.empty()) << spec->name;
    ++checked;
  }
  EXPECT_GT(checked, 150);
}

std::vector<std::string> CallOf(const CommandSpec& spec) {
  std::vector<std::string> args = CommandWords(spec.name);
  // One more than the least for variadic commands, so every spec has a key to find.
  const size_t argc =
      spec.arity > 0 ? static_cast<size_t>(spec.arity) : static_cast<size_t>(-spec.arity) + 1;
  while (args.size() < argc) args.push_back("k" + std::to_string(args.size()));
  return args;
}

void ExpectSpecsAgree(const CommandSpec& spec, const std::vector<std::string>& call) {
  std::vector<std::string_view> args(call.begin(), call.end());
  std::vector<size_t> ordis;
  KeyPositions(spec, args, &ordis);
  std::vector<std::pair<size_t, uint16_t>> redis;
  ASSERT_TRUE(GetKeysAsRedis(spec, args, &redis));
  std::vector<size_t> positions;
  for (const auto& [pos, flags] : redis) positions.push_back(pos);
  EXPECT_EQ(positions, ordis);
}

TEST(KeySpecsTest, SpecsFindTheKeysOrdisReads) {
  int checked = 0;
  for (const CommandSpec* spec : AllCommands().flat()) {
    if (spec->first_key <= 0 || spec->movable_keys()) continue;
    SCOPED_TRACE(std::string(spec->name));
    ExpectSpecsAgree(*spec, CallOf(*spec));
    ++checked;
  }
  EXPECT_GT(checked, 150);
  // Commands whose keys move with their arguments: one call each, and every such command here.
  const std::vector<std::vector<std::string>> calls = {
      {"zunionstore", "d", "2", "a", "b"},
      {"zinterstore", "d", "1", "a", "weights", "2"},
      {"zdiffstore", "d", "2", "a", "b"},
      {"zunion", "2", "a", "b"},
      {"zinter", "2", "a", "b", "withscores"},
      {"zdiff", "1", "a"},
      {"zintercard", "2", "a", "b"},
      {"sintercard", "2", "a", "b", "limit", "1"},
      {"lmpop", "2", "a", "b", "left"},
      {"blmpop", "0", "2", "a", "b", "right", "count", "2"},
      {"zmpop", "1", "a", "min"},
      {"bzmpop", "0", "1", "a", "max"},
      {"eval", "s", "2", "a", "b", "x"},
      {"evalsha", "s", "1", "a"},
      {"eval_ro", "s", "1", "a"},
      {"evalsha_ro", "s", "1", "a"},
      {"fcall", "f", "2", "a", "b"},
      {"fcall_ro", "f", "1", "a"},
      {"xread", "count", "1", "streams", "a", "b", "0", "0"},
      {"xreadgroup", "group", "g", "c", "noack", "streams", "a", ">"},
      {"sort", "a", "by", "w", "get", "x", "store", "d"},
      {"sort_ro", "a", "by", "w", "get", "x"},
      {"migrate", "h", "1", "k", "0", "1"},
      {"migrate", "h", "1", "", "0", "1", "copy", "keys", "a", "b"},
      {"georadius", "k", "1", "2", "3", "m", "store", "s", "storedist", "t"},
      {"georadiusbymember", "k", "m", "3", "km", "count", "1", "storedist", "t"},
      {"georadius_ro", "k", "1", "2", "3", "m"},
      {"georadiusbymember_ro", "k", "m", "3", "km"},
  };
  std::set<std::string> covered;
  for (const std::vector<std::string>& call : calls) {
    SCOPED_TRACE(call[0]);
    const CommandSpec* spec = AllCommands().Find(call[0]);
    if (spec == nullptr) continue;  // a family not registered yet
    ExpectSpecsAgree(*spec, call);
    covered.insert(call[0]);
  }
  for (const CommandSpec* spec : AllCommands().flat()) {
    if (spec->movable_keys()) {
      EXPECT_TRUE(covered.count(std::string(spec->name))) << spec->name;
    }
  }
}

// acl_bridge's key access is the key specs' (ACCESS reads; INSERT, DELETE, UPDATE write).
TEST(KeySpecsTest, AclKeyAccessDerivesFromTheSpecs) {
  constexpr uint8_t kR = acl::kKeyRead, kW = acl::kKeyWrite;
  auto access = [](std::vector<std::string_view> args) {
    std::vector<uint8_t> out;
    ForEachKeyAccess(*AllCommands().Find(args[0]), args,
                     [&](size_t, uint8_t a) { out.push_back(a); });
    return out;
  };
  using V = std::vector<uint8_t>;
  EXPECT_EQ(access({"xadd", "s", "*", "f", "v"}), V({kW}));  // RW UPDATE
  EXPECT_EQ(access({"pfcount", "a", "b"}), V({kR, kR}));     // RW ACCESS
  EXPECT_EQ(access({"ttl", "a"}), V({kR}));                  // RO ACCESS
  EXPECT_EQ(access({"xlen", "a"}), V({0}));                  // RO
  EXPECT_EQ(access({"getex", "a"}), V({kR | kW}));
  EXPECT_EQ(access({"bitfield", "k", "get", "u8", "0"}), V({kR}));
  EXPECT_EQ(access({"bitfield", "k", "set", "u8", "0", "1"}), V({kR | kW}));
  EXPECT_EQ(access({"sort", "a", "store", "d"}), V({kR, kW}));
  EXPECT_EQ(access({"georadius", "k", "1", "2", "3", "m", "storedist", "t"}), V({kR, kW}));
  EXPECT_EQ(access({"pfmerge", "d", "a"}), V({kR | kW, kR}));
  EXPECT_EQ(access({"xreadgroup", "group", "g", "c", "streams", "a", ">"}), V({kR}));
  EXPECT_EQ(AclKeyAccess(*AllCommands().Find("rename")), kR | kW);  // the union of its specs
  EXPECT_EQ(AclKeyAccess(*AllCommands().Find("set")), kW);          // without GET
}

// --- COMMAND DOCS: since and arguments ---

TEST_F(CommandDocsFamilyTest, DocsOfLmoveAreRedisLessItsComplexity) {
  Run({"hello", "3"});
  auto token = [](const std::string& name, const std::string& tok) {
    return "%3\r\n$4\r\nname\r\n$" + std::to_string(name.size()) + "\r\n" + name +
           "\r\n$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n$" + std::to_string(tok.size()) +
           "\r\n" + tok + "\r\n";
  };
  const std::string left_right =
      "$9\r\narguments\r\n*2\r\n" + token("left", "LEFT") + token("right", "RIGHT");
  EXPECT_EQ(
      RunRaw({"command", "docs", "lmove"}),
      "%1\r\n$5\r\nlmove\r\n%4\r\n$7\r\nsummary\r\n$65\r\nPop an element from a list, push "
      "it to another list and return it\r\n$5\r\nsince\r\n$5\r\n6.2.0\r\n$5\r\ngroup\r\n$4\r\n"
      "list\r\n$9\r\narguments\r\n*4\r\n%3\r\n$4\r\nname\r\n$6\r\nsource\r\n$4\r\ntype\r\n$3\r\n"
      "key\r\n$14\r\nkey_spec_index\r\n:0\r\n%3\r\n$4\r\nname\r\n$11\r\ndestination\r\n$4\r\n"
      "type\r\n$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:1\r\n%3\r\n$4\r\nname\r\n$9\r\n"
      "wherefrom\r\n$4\r\ntype\r\n$5\r\noneof\r\n" +
          left_right + "%3\r\n$4\r\nname\r\n$7\r\nwhereto\r\n$4\r\ntype\r\n$5\r\noneof\r\n" +
          left_right);
}

// The value of field in a RESP2 docs map (a flat array), or Nil().
Reply Field(const Reply& doc, const std::string& field) {
  for (size_t i = 0; i + 1 < doc.elements.size(); i += 2) {
    if (doc.elements[i] == Bulk(field)) return doc.elements[i + 1];
  }
  return Nil();
}

TEST_F(CommandDocsFamilyTest, DocsOfDeprecatedCommands) {
  const Reply r = Run({"command", "docs", "getset"});
  ASSERT_EQ(r.elements.size(), 2u) << r;
  const Reply& doc = r.elements[1];
  EXPECT_EQ(Field(doc, "since"), Bulk("1.0.0"));
  EXPECT_EQ(Field(doc, "doc_flags"), Array({Status("deprecated")}));
  EXPECT_EQ(Field(doc, "deprecated_since"), Bulk("6.2.0"));
  EXPECT_EQ(Field(doc, "replaced_by"), Bulk("`SET` with the `!GET` argument"));
  EXPECT_EQ(Field(doc, "complexity"), Nil());  // not carried: Redis's prose, Redis's costs
  EXPECT_EQ(Field(doc, "history"), Nil());
}

TEST_F(CommandDocsFamilyTest, DocsArgumentsNestAndCarryFlags) {
  const Reply r = Run({"command", "docs", "set"});
  ASSERT_EQ(r.elements.size(), 2u) << r;
  const Reply args = Field(r.elements[1], "arguments");
  ASSERT_EQ(args.elements.size(), 5u) << args;
  EXPECT_EQ(args.elements[3], Array({Bulk("name"), Bulk("get"), Bulk("type"), Bulk("pure-token"),
                                     Bulk("token"), Bulk("GET"), Bulk("since"), Bulk("6.2.0"),
                                     Bulk("flags"), Array({Status("optional")})}));
  const Reply expiration = args.elements[4];
  EXPECT_EQ(Field(expiration, "type"), Bulk("oneof"));
  const Reply choices = Field(expiration, "arguments");
  ASSERT_EQ(choices.elements.size(), 5u) << choices;
  EXPECT_EQ(choices.elements[4],
            Array({Bulk("name"), Bulk("keepttl"), Bulk("type"), Bulk("pure-token"), Bulk("token"),
                   Bulk("KEEPTTL"), Bulk("since"), Bulk("6.0.0")}));
  // MIGRATE's empty token is a token.
  const Reply migrate = Field(Run({"command", "docs", "migrate"}).elements.at(1), "arguments");
  const Reply key_or_empty = Field(migrate.elements.at(2), "arguments");
  EXPECT_EQ(key_or_empty.elements.at(1), Array({Bulk("name"), Bulk("empty_string"), Bulk("type"),
                                                Bulk("pure-token"), Bulk("token"), Bulk("")}));
}

TEST_F(CommandDocsFamilyTest, DocsOfContainersListTheirSubcommands) {
  const Reply r = Run({"command", "docs", "config"});
  ASSERT_EQ(r.elements.size(), 2u) << r;
  const Reply subs = Field(r.elements[1], "subcommands");
  std::map<std::string, std::string> since;
  for (size_t i = 0; i + 1 < subs.elements.size(); i += 2) {
    since[subs.elements[i].str] = Field(subs.elements[i + 1], "since").str;
  }
  const std::map<std::string, std::string> want = {{"config|get", "2.0.0"},
                                                   {"config|set", "2.0.0"},
                                                   {"config|resetstat", "2.0.0"},
                                                   {"config|rewrite", "2.8.0"},
                                                   {"config|help", "5.0.0"}};
  EXPECT_EQ(since, want);
}

TEST_F(CommandDocsFamilyTest, DocsOfOrdisOwnCommands) {
  const Reply r = Run({"command", "docs", "krange"});
  ASSERT_EQ(r.elements.size(), 2u) << r;
  const Reply args = Field(r.elements[1], "arguments");
  ASSERT_EQ(args.elements.size(), 5u) << args;
  EXPECT_EQ(args.elements[3],
            Array({Bulk("name"), Bulk("limit"), Bulk("type"), Bulk("block"), Bulk("token"),
                   Bulk("LIMIT"), Bulk("flags"), Array({Status("optional")}), Bulk("arguments"),
                   Array({Array({Bulk("name"), Bulk("offset"), Bulk("type"), Bulk("integer")}),
                          Array({Bulk("name"), Bulk("count"), Bulk("type"), Bulk("integer")})})}));
  EXPECT_EQ(Field(Run({"command", "docs", "kcount"}).elements.at(1), "since"), Bulk("0.1.0"));
}

// Every command and subcommand has its since (and so its entry in command_docs_data.inc).
TEST_F(CommandDocsFamilyTest, EveryCommandHasDocs) {
  const Reply all = Run({"command", "docs"});
  int checked = 0;
  for (size_t i = 0; i + 1 < all.elements.size(); i += 2) {
    const Reply& doc = all.elements[i + 1];
    EXPECT_EQ(Field(doc, "since").type, Reply::Type::kBulk) << all.elements[i];
    ++checked;
    const Reply subs = Field(doc, "subcommands");
    for (size_t j = 0; j + 1 < subs.elements.size(); j += 2) {
      EXPECT_EQ(Field(subs.elements[j + 1], "since").type, Reply::Type::kBulk) << subs.elements[j];
      ++checked;
    }
  }
  EXPECT_GT(checked, 300);
}

TEST_F(CommandDocsFamilyTest, HelpIsRedis) {
  const std::vector<std::string> lines = {
      "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "(no subcommand)",
      "    Return details about all Redis commands.",
      "COUNT",
      "    Return the total number of commands in this Redis server.",
      "LIST",
      "    Return a list of all commands in this Redis server.",
      "INFO [<command-name> ...]",
      "    Return details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "GETKEYS <full-command>",
      "    Return the keys from a full Redis command.",
      "GETKEYSANDFLAGS <full-command>",
      "    Return the keys and the access flags from a full Redis command.",
      "HELP",
      "    Prints this help."};
  std::vector<Reply> want;
  for (const std::string& line : lines) want.push_back(Status(line));
  EXPECT_EQ(Run({"command", "help"}), Array(want));
}

}  // namespace
}  // namespace ordis::server::test
