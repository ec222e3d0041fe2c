// COMMAND (COUNT INFO LIST DOCS GETKEYS), in-process. Every expectation was checked against
// redis-server 7.0.15. ordis supports fewer commands than Redis, so counts are checked for
// consistency, not against Redis's 240; where ordis's COMMAND INFO differs from Redis's (flags,
// ACL categories, tips) only the fields that agree are asserted.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

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
  const std::vector<Want> wants = {
      {"ping", -1, {"fast"}, 0, 0, 0, {"@fast", "@connection"}},
      {"incr", 2, {"write", "denyoom", "fast"}, 1, 1, 1, {"@write", "@string", "@fast"}},
      {"del", -2, {"write"}, 1, -1, 1, {"@keyspace", "@write", "@slow"}},
      {"mset", -3, {"write", "denyoom"}, 1, -1, 2, {"@write", "@string", "@slow"}},
      {"exists", -2, {"readonly", "fast"}, 1, -1, 1, {"@keyspace", "@read", "@fast"}},
      {"keys", 2, {"readonly"}, 0, 0, 0, {"@keyspace", "@read", "@slow", "@dangerous"}},
      {"select", 2, {"loading", "stale", "fast"}, 0, 0, 0, {"@fast", "@connection"}},
      {"hget", 3, {"readonly", "fast"}, 1, 1, 1, {"@read", "@hash", "@fast"}},
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

}  // namespace
}  // namespace ordis::server::test
