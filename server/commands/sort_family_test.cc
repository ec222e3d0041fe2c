// SORT and SORT_RO, in-process. Every expectation was first checked against redis-server 7.0.15.
#include <string>
#include <vector>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
constexpr std::string_view kNotDouble = "ERR One or more scores can't be converted into double";
constexpr std::string_view kNoPermKey =
    "NOPERM this user has no permissions to access one of the keys used as arguments";
constexpr std::string_view kByDenied =
    "ERR BY option of SORT denied due to insufficient ACL permissions.";
constexpr std::string_view kGetDenied =
    "ERR GET option of SORT denied due to insufficient ACL permissions.";

class SortFamilyTest : public FamilyTest {
 protected:
  // l: 3 1 2 10 1.0 01 " 1" 0x10 "": strtod reads them all, equal scores order by bytes.
  void PushNumbers() {
    EXPECT_EQ(Run({"rpush", "l", "3", "1", "2", "10", "1.0", "01", " 1", "0x10", ""}), Int(9));
  }
  TestClient& ClientAs(std::string_view user) {
    TestClient& c = NewClient();
    EXPECT_EQ(c.Run({"auth", std::string(user), "x"}), Ok());
    return c;
  }
};

TEST_F(SortFamilyTest, NumericEqualScoresOrderByBytes) {
  PushNumbers();
  EXPECT_EQ(Run({"sort", "l"}), Strings({"", " 1", "01", "1", "1.0", "2", "3", "10", "0x10"}));
  EXPECT_EQ(Run({"sort", "l", "desc"}),
            Strings({"0x10", "10", "3", "2", "1.0", "1", "01", " 1", ""}));
  EXPECT_EQ(Run({"sort_ro", "l", "DESC", "asc"}), Run({"sort", "l"}));
}

TEST_F(SortFamilyTest, LimitIsClamped) {
  PushNumbers();
  EXPECT_EQ(Run({"sort", "l", "limit", "-5", "2"}), Strings({"", " 1"}));
  EXPECT_EQ(Run({"sort", "l", "limit", "3", "-1"}), Strings({"1", "1.0", "2", "3", "10", "0x10"}));
  EXPECT_EQ(Run({"sort", "l", "limit", "3", "0"}), Strings({}));
  EXPECT_EQ(Run({"sort", "l", "limit", "20", "2"}), Strings({}));
  EXPECT_EQ(Run({"sort", "l", "limit", "7", "9223372036854775807"}), Strings({"10", "0x10"}));
  EXPECT_EQ(Run({"sort", "l", "limit", "9223372036854775807", "9223372036854775807"}), Strings({}));
  EXPECT_EQ(Run({"sort", "l", "desc", "limit", "1", "2"}), Strings({"10", "3"}));
  EXPECT_EQ(Run({"sort", "l", "limit", "1.5", "2"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"sort", "l", "limit", "1"}), Err("ERR syntax error"));
}

TEST_F(SortFamilyTest, ScoresStrtodCannotReadAreRefused) {
  const std::vector<std::string> values = {"abc",    "nan", "1e400",
                                           "1e-400", "2 ",  std::string("1\0xy", 4)};
  for (const std::string& bad : values) {
    SCOPED_TRACE(bad);
    EXPECT_EQ(Run({"del", "l"}).type, Reply::Type::kInteger);
    EXPECT_EQ(Run({"rpush", "l", "1", bad}), Int(2));
    if (bad[1] == '\0') {
      EXPECT_EQ(Run({"sort", "l"}).type, Reply::Type::kArray);  // strtod stops at the NUL
      continue;
    }
    EXPECT_EQ(Run({"sort", "l"}), Err(kNotDouble));
    EXPECT_EQ(Run({"sort", "l", "limit", "0", "0"}), Err(kNotDouble));
    EXPECT_EQ(Run({"sort", "l", "store", "dst"}), Err(kNotDouble));
    EXPECT_EQ(Run({"exists", "dst"}), Int(0));
  }
  EXPECT_EQ(Run({"rpush", "inf", "3", "inf", "-inf", "-0", "0"}), Int(5));
  EXPECT_EQ(Run({"sort", "inf"}), Strings({"-inf", "-0", "0", "3", "inf"}));
}

TEST_F(SortFamilyTest, NulInElementsAndScores) {
  const std::string one_tail("1\0abc", 5), zero_tail("0\0", 2);
  EXPECT_EQ(Run({"rpush", "z", one_tail, "2", zero_tail}), Int(3));
  EXPECT_EQ(Run({"sort", "z"}), Strings({zero_tail, one_tail, "2"}));
}

TEST_F(SortFamilyTest, AlphaCollatesUpToNulStoreComparesBytes) {
  const std::string bb("b\0b", 3), ba("b\0a", 3);
  EXPECT_EQ(Run({"rpush", "al", bb, ba, "a", "B", "\xc3\xa9", "e", "f", "E"}), Int(8));
  // Without STORE, "b\0b" and "b\0a" compare equal (strcoll stops at the NUL): list order stays.
  EXPECT_EQ(Run({"sort", "al", "alpha"}), Strings({"B", "E", "a", bb, ba, "e", "f", "\xc3\xa9"}));
  EXPECT_EQ(Run({"sort", "al", "alpha", "desc"}),
            Strings({"\xc3\xa9", "f", "e", bb, ba, "a", "E", "B"}));
  EXPECT_EQ(Run({"sort", "al", "alpha", "store", "x"}), Int(8));
  EXPECT_EQ(Run({"lrange", "x", "0", "-1"}),
            Strings({"B", "E", "a", ba, bb, "e", "f", "\xc3\xa9"}));
}

TEST_F(SortFamilyTest, ByPatternNumeric) {
  EXPECT_EQ(Run({"rpush", "l", "3", "1", "2"}), Int(3));
  EXPECT_EQ(Run({"set", "w1", "5"}), Ok());
  // w2 and w3 are missing: score 0, ties by the element.
  EXPECT_EQ(Run({"sort", "l", "by", "w*"}), Strings({"2", "3", "1"}));
  EXPECT_EQ(Run({"sort", "l", "by", "w*", "desc"}), Strings({"1", "3", "2"}));
  EXPECT_EQ(Run({"sort", "l", "by", "w*", "limit", "0", "1"}), Strings({"2"}));
  EXPECT_EQ(Run({"set", "w2", "x"}), Ok());
  EXPECT_EQ(Run({"sort", "l", "by", "w*"}), Err(kNotDouble));
  EXPECT_EQ(Run({"rpush", "w2", "9"}), Err(kWrongType));
  EXPECT_EQ(Run({"del", "w2"}), Int(1));
  EXPECT_EQ(Run({"rpush", "w2", "x"}), Int(1));  // not a string: as if missing
  EXPECT_EQ(Run({"sort", "l", "by", "w*"}), Strings({"2", "3", "1"}));
}

TEST_F(SortFamilyTest, ByHashField) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"hset", "h_a", "f", "5"}), Int(1));
  EXPECT_EQ(Run({"hset", "h_b", "f", "3"}), Int(1));
  EXPECT_EQ(Run({"hset", "h_c", "g", "1"}), Int(1));
  EXPECT_EQ(Run({"sort", "l", "by", "h_*->f"}), Strings({"c", "b", "a"}));
  // "->" with nothing after it is part of the key name: h_a-> ... are missing.
  EXPECT_EQ(Run({"sort", "l", "by", "h_*->", "alpha"}), Strings({"a", "b", "c"}));
  EXPECT_EQ(Run({"set", "s_a", "9"}), Ok());
  EXPECT_EQ(Run({"sort", "l", "by", "s_*->f"}), Strings({"a", "b", "c"}));  // s_a: not a hash
}

TEST_F(SortFamilyTest, AlphaByTiesKeepTheListOrder) {
  EXPECT_EQ(Run({"rpush", "t", "c", "a", "b", "d", "e"}), Int(5));
  EXPECT_EQ(Run({"mset", "w_a", "x", "w_b", "x", "w_c", "x", "w_d", "y"}), Ok());
  // w_e missing sorts first; c a b tie and stay in list order, DESC too.
  EXPECT_EQ(Run({"sort", "t", "by", "w_*", "alpha"}), Strings({"e", "c", "a", "b", "d"}));
  EXPECT_EQ(Run({"sort", "t", "by", "w_*", "alpha", "desc"}), Strings({"d", "c", "a", "b", "e"}));
  EXPECT_EQ(Run({"sort", "t", "by", "w_*", "alpha", "limit", "1", "3"}), Strings({"c", "a", "b"}));
  EXPECT_EQ(Run({"sort", "t", "by", "w_*", "alpha", "desc", "limit", "0", "2"}),
            Strings({"d", "c"}));
  EXPECT_EQ(Run({"sort", "t", "by", "w_*"}), Err(kNotDouble));
  // Int values compare as their digits.
  EXPECT_EQ(Run({"rpush", "n", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"mset", "v_a", "10", "v_b", "9", "v_c", "100"}), Ok());
  EXPECT_EQ(Run({"sort", "n", "by", "v_*", "alpha"}), Strings({"a", "c", "b"}));
  EXPECT_EQ(Run({"sort", "n", "by", "v_*", "alpha", "desc", "store", "d"}), Int(3));
  EXPECT_EQ(Run({"lrange", "d", "0", "-1"}), Strings({"b", "c", "a"}));
}

TEST_F(SortFamilyTest, NosortKeepsListAndSortedSetOrder) {
  EXPECT_EQ(Run({"rpush", "t", "c", "a", "b", "d", "e"}), Int(5));
  EXPECT_EQ(Run({"sort", "t", "by", "nosort"}), Strings({"c", "a", "b", "d", "e"}));
  EXPECT_EQ(Run({"sort", "t", "by", "nosort", "desc"}), Strings({"e", "d", "b", "a", "c"}));
  EXPECT_EQ(Run({"sort", "t", "by", "nosort", "limit", "1", "2"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"sort", "t", "by", "nosort", "desc", "limit", "1", "2"}), Strings({"d", "b"}));
  EXPECT_EQ(Run({"sort", "t", "by", "nosort", "desc", "limit", "1", "2", "store", "s"}), Int(2));
  EXPECT_EQ(Run({"lrange", "s", "0", "-1"}), Strings({"d", "b"}));
  // Any BY without '*' does not sort, and stays so once given.
  EXPECT_EQ(Run({"sort", "t", "by", "h_*->f", "by", "const"}), Run({"sort", "t", "by", "nosort"}));
  EXPECT_EQ(Run({"sort", "t", "by", "const", "by", "w_*"}), Run({"sort", "t", "by", "nosort"}));

  EXPECT_EQ(Run({"zadd", "zs", "3", "a", "1", "b", "2", "c", "5", "d"}), Int(4));
  EXPECT_EQ(Run({"sort", "zs", "by", "nosort"}), Strings({"b", "c", "a", "d"}));
  EXPECT_EQ(Run({"sort", "zs", "by", "nosort", "desc"}), Strings({"d", "a", "c", "b"}));
  EXPECT_EQ(Run({"sort", "zs", "by", "nosort", "desc", "limit", "1", "2"}), Strings({"a", "c"}));
  EXPECT_EQ(Run({"sort", "zs", "by", "nosort", "limit", "1", "2"}), Strings({"c", "a"}));
  EXPECT_EQ(Run({"sort", "zs", "alpha"}), Strings({"a", "b", "c", "d"}));
}

TEST_F(SortFamilyTest, NosortSetIsSortedForStoreAndScripts) {
  EXPECT_EQ(Run({"sadd", "st", "c", "a", "b", "10", "2"}), Int(5));
  EXPECT_EQ(Run({"sort", "st", "by", "nosort", "store", "s"}), Int(5));
  EXPECT_EQ(Run({"lrange", "s", "0", "-1"}), Strings({"10", "2", "a", "b", "c"}));
  EXPECT_EQ(Run({"eval", "return redis.call('sort', KEYS[1], 'by', 'nosort')", "1", "st"}),
            Strings({"10", "2", "a", "b", "c"}));
  EXPECT_EQ(Run({"eval", "return redis.call('sort_ro', KEYS[1], 'by', 'x', 'desc')", "1", "st"}),
            Strings({"c", "b", "a", "2", "10"}));
  // Otherwise the set's own order (SMEMBERS's), DESC ignored.
  const Reply members = Run({"smembers", "st"});
  std::vector<std::string> order = members.Strings();
  EXPECT_EQ(Run({"sort", "st", "by", "nosort"}), Strings(order));
  EXPECT_EQ(Run({"sort", "st", "by", "nosort", "desc"}), Strings(order));
  EXPECT_EQ(Run({"sort", "st", "by", "nosort", "limit", "1", "2"}), Strings({order[1], order[2]}));
}

TEST_F(SortFamilyTest, SetsAndSortedSetsSort) {
  EXPECT_EQ(Run({"sadd", "st", "5", "-1", "3.5"}), Int(3));
  EXPECT_EQ(Run({"sort", "st"}), Strings({"-1", "3.5", "5"}));
  EXPECT_EQ(Run({"zadd", "zs", "1", "9", "2", "8", "3", "x"}), Int(3));
  EXPECT_EQ(Run({"sort", "zs", "alpha", "desc"}), Strings({"x", "9", "8"}));
  EXPECT_EQ(Run({"sort", "zs"}), Err(kNotDouble));
}

TEST_F(SortFamilyTest, GetPatterns) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"hset", "h_a", "f", "5"}), Int(1));
  EXPECT_EQ(Run({"hset", "h_b", "f", "3"}), Int(1));
  EXPECT_EQ(Run({"set", "s_a", "9"}), Ok());
  EXPECT_EQ(Run({"lpush", "s_b", "x"}), Int(1));
  EXPECT_EQ(Run({"sort", "l", "by", "h_*->f", "get", "h_*->f", "get", "s_*", "get", "#", "get",
                 "h_*->", "get", "h_*->nof"}),
            Array({Bulk("3"), Nil(), Bulk("b"), Nil(), Nil(), Bulk("5"), Bulk("9"), Bulk("a"),
                   Nil(), Nil()}));
  EXPECT_EQ(Run({"sort", "l", "alpha", "get", "nostar"}), Array({Nil(), Nil()}));
  EXPECT_EQ(Run({"set", "a", "AA"}), Ok());
  EXPECT_EQ(Run({"sort", "l", "alpha", "get", "*"}), Array({Bulk("AA"), Nil()}));
  EXPECT_EQ(Run({"sort", "l", "alpha", "get", "**"}), Array({Nil(), Nil()}));  // key "a*"
  EXPECT_EQ(Run({"sort", "l", "alpha", "get", "#x"}), Array({Nil(), Nil()}));
  // The field starts after the first "->" following the '*'.
  EXPECT_EQ(Run({"hset", "ha", "->b", "Y"}), Int(1));
  EXPECT_EQ(Run({"sort", "l", "alpha", "get", "h*->->b"}), Array({Bulk("Y"), Nil()}));
  EXPECT_EQ(Run({"sort", "l", "alpha", "get", "*->->b"}), Array({Nil(), Nil()}));
  EXPECT_EQ(Run({"set", "n_a", "12"}), Ok());  // an int value
  EXPECT_EQ(Run({"sort", "l", "alpha", "get", "n_*", "limit", "0", "1"}), Array({Bulk("12")}));
}

TEST_F(SortFamilyTest, GetNilIsResp3Null) {
  EXPECT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(Run({"rpush", "l", "1"}), Int(1));
  EXPECT_EQ(RunRaw({"sort", "l", "get", "#", "get", "k*"}), "*2\r\n$1\r\n1\r\n_\r\n");
}

TEST_F(SortFamilyTest, StoreWritesAList) {
  EXPECT_EQ(Run({"rpush", "l", "3", "1", "2"}), Int(3));
  EXPECT_EQ(Run({"set", "dst", "old", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"sort", "l", "store", "dst"}), Int(3));
  EXPECT_EQ(Run({"type", "dst"}), Status("list"));
  EXPECT_EQ(Run({"ttl", "dst"}), Int(-1));
  EXPECT_EQ(Run({"lrange", "dst", "0", "-1"}), Strings({"1", "2", "3"}));
  // Missing GET values store as "", and each GET adds one element per sorted element.
  EXPECT_EQ(Run({"set", "w2", "two"}), Ok());
  EXPECT_EQ(Run({"sort", "l", "get", "#", "get", "w*", "store", "dst"}), Int(6));
  EXPECT_EQ(Run({"lrange", "dst", "0", "-1"}), Strings({"1", "", "2", "two", "3", ""}));
  // The source itself may be the destination.
  EXPECT_EQ(Run({"sort", "l", "desc", "store", "l"}), Int(3));
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"3", "2", "1"}));
  // The last STORE counts.
  EXPECT_EQ(Run({"sort", "l", "store", "x", "store", "y"}), Int(3));
  EXPECT_EQ(Run({"exists", "x", "y"}), Int(1));
}

TEST_F(SortFamilyTest, StoreOfNothingDeletesTheDestination) {
  EXPECT_EQ(Run({"set", "dst", "v"}), Ok());
  EXPECT_EQ(Run({"sort", "nokey", "store", "dst"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
  EXPECT_EQ(Run({"rpush", "l", "1"}), Int(1));
  EXPECT_EQ(Run({"set", "dst", "v"}), Ok());
  EXPECT_EQ(Run({"sort", "l", "limit", "5", "1", "store", "dst"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
}

TEST_F(SortFamilyTest, StoreEventsAndWatch) {
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "KA"}), Ok());
  TestClient& sub = NewClient();
  sub.RunAll({"psubscribe", "__keyspace@0__:*"});
  EXPECT_EQ(Run({"rpush", "l", "1"}), Int(1));
  sub.TakeMessages();
  EXPECT_EQ(Run({"sort", "l", "store", "d"}), Int(1));
  EXPECT_EQ(Run({"sort", "nokey", "store", "d"}), Int(0));
  EXPECT_EQ(Run({"sort", "nokey", "store", "d"}), Int(0));  // nothing to delete: no event
  EXPECT_EQ(sub.TakeMessages(),
            (std::vector<Reply>{
                Message({"pmessage", "__keyspace@0__:*", "__keyspace@0__:d", "sortstore"}),
                Message({"pmessage", "__keyspace@0__:*", "__keyspace@0__:d", "del"})}));
  EXPECT_EQ(WatchedExec("d", {"sort", "l", "store", "d"}), NilArray());
  EXPECT_EQ(WatchedExec("l", {"sort", "l", "store", "d"}).type, Reply::Type::kArray);
}

TEST_F(SortFamilyTest, Errors) {
  EXPECT_EQ(Run({"sort"}), Err("ERR wrong number of arguments for 'sort' command"));
  EXPECT_EQ(Run({"sort_ro"}), Err("ERR wrong number of arguments for 'sort_ro' command"));
  EXPECT_EQ(Run({"set", "s", "1"}), Ok());
  EXPECT_EQ(Run({"sort", "s"}), Err(kWrongType));
  EXPECT_EQ(Run({"sort", "s", "foo"}), Err("ERR syntax error"));  // options come first
  EXPECT_EQ(Run({"sort", "nokey", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sort", "nokey"}), Strings({}));
  EXPECT_EQ(Run({"sort", "s", "store"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sort", "s", "by"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sort", "s", "get"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"rpush", "l", "1"}), Int(1));
  EXPECT_EQ(Run({"sort_ro", "l", "store", "x"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sort", "s", "store", "x"}), Err(kWrongType));
  EXPECT_EQ(Run({"get", "s"}), Bulk("1"));
}

TEST_F(SortFamilyTest, GetKeysFindsTheLastStore) {
  EXPECT_EQ(Run({"command", "getkeys", "sort", "a", "store", "b"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"command", "getkeys", "sort", "a", "by", "x", "store", "b", "get", "c"}),
            Strings({"a", "b"}));
  EXPECT_EQ(Run({"command", "getkeys", "sort", "a", "store"}), Strings({"a"}));
  EXPECT_EQ(Run({"command", "getkeys", "sort", "a", "store", "b", "store", "c"}),
            Strings({"a", "c"}));
  EXPECT_EQ(Run({"command", "getkeys", "sort", "a", "limit", "store", "1", "store", "c"}),
            Strings({"a", "c"}));
  EXPECT_EQ(Run({"command", "getkeys", "sort", "a", "get", "store", "store", "c"}),
            Strings({"a", "c"}));
  EXPECT_EQ(Run({"command", "getkeys", "sort_ro", "a", "by", "x"}), Strings({"a"}));
}

TEST_F(SortFamilyTest, PatternsNeedReadAccessToEveryKey) {
  EXPECT_EQ(Run({"rpush", "k", "3", "1", "2"}), Int(3));
  EXPECT_EQ(Run({"acl", "setuser", "some", "on", "nopass", "~k*", "+@all"}), Ok());
  EXPECT_EQ(Run({"acl", "setuser", "all", "on", "nopass", "allkeys", "+@all"}), Ok());
  EXPECT_EQ(Run({"acl", "setuser", "readall", "on", "nopass", "%R~*", "~k*", "+@all"}), Ok());
  EXPECT_EQ(Run({"acl", "setuser", "writeall", "on", "nopass", "%W~*", "~k*", "+@all"}), Ok());
  EXPECT_EQ(Run({"acl", "setuser", "sel", "on", "nopass", "~k*", "+@all", "(~* +sort)"}), Ok());
  EXPECT_EQ(Run({"acl", "setuser", "nosel", "on", "nopass", "~k*", "+@all", "(~* -sort)"}), Ok());
  TestClient& some = ClientAs("some");
  EXPECT_EQ(some.Run({"sort", "k"}), Strings({"1", "2", "3"}));
  EXPECT_EQ(some.Run({"sort", "k", "by", "nosort"}), Strings({"3", "1", "2"}));
  EXPECT_EQ(some.Run({"sort", "k", "by", "w*"}), Err(kByDenied));
  EXPECT_EQ(some.Run({"sort", "k", "get", "#"}), Err(kGetDenied));
  EXPECT_EQ(some.Run({"sort_ro", "k", "get", "w*"}), Err(kGetDenied));
  EXPECT_EQ(some.Run({"sort", "k", "by", "w*", "foo"}), Err(kByDenied));  // in argument order
  EXPECT_EQ(some.Run({"sort", "k", "foo", "by", "w*"}), Err("ERR syntax error"));
  EXPECT_EQ(some.Run({"sort", "k", "store", "other"}), Err(kNoPermKey));
  EXPECT_EQ(some.Run({"sort", "nok", "get", "w*"}), Err(kNoPermKey));
  for (std::string_view user : {"all", "readall", "sel"}) {
    SCOPED_TRACE(user);
    TestClient& c = ClientAs(user);
    EXPECT_EQ(c.Run({"sort", "k", "by", "w*", "get", "#"}), Strings({"1", "2", "3"}));
    EXPECT_EQ(c.Run({"sort", "k", "by", "w*", "store", "kd"}), Int(3));
  }
  EXPECT_EQ(ClientAs("sel").Run({"sort_ro", "k", "get", "w*"}), Err(kGetDenied));
  for (std::string_view user : {"writeall", "nosel"}) {
    SCOPED_TRACE(user);
    TestClient& c = ClientAs(user);
    EXPECT_EQ(c.Run({"sort", "k", "by", "w*"}), Err(kByDenied));
    EXPECT_EQ(c.Run({"sort", "k", "get", "w*"}), Err(kGetDenied));
  }
  // In a script, the caller's rules.
  EXPECT_EQ(some.Run({"eval", "return redis.call('sort', KEYS[1], 'get', '#')", "1", "k"}).type,
            Reply::Type::kError);
}

// The destination is only written (Redis's OW key spec): write access to it is enough.
TEST_F(SortFamilyTest, StoreNeedsOnlyWriteAccessToTheDestination) {
  EXPECT_EQ(Run({"rpush", "k", "3", "1", "2"}), Int(3));
  EXPECT_EQ(Run({"acl", "setuser", "w", "on", "nopass", "%W~*", "~k*", "+@all"}), Ok());
  EXPECT_EQ(Run({"acl", "setuser", "r", "on", "nopass", "%R~*", "~k*", "+@all"}), Ok());
  EXPECT_EQ(ClientAs("w").Run({"sort", "k", "store", "other"}), Int(3));
  EXPECT_EQ(ClientAs("r").Run({"sort", "k", "store", "other2"}), Err(kNoPermKey));
  EXPECT_EQ(Run({"lrange", "other", "0", "-1"}), Strings({"1", "2", "3"}));
}

TEST_F(SortFamilyTest, LargeListSortsWithLimit) {
  std::vector<std::string> push = {"rpush", "big"};
  for (int i = 0; i < 1000; ++i) push.push_back(std::to_string((i * 7919) % 1000));
  EXPECT_EQ(Run(push), Int(1000));
  EXPECT_EQ(Run({"sort", "big", "limit", "0", "3"}), Strings({"0", "1", "2"}));
  EXPECT_EQ(Run({"sort", "big", "desc", "limit", "10", "2"}), Strings({"989", "988"}));
  EXPECT_EQ(Run({"sort", "big", "limit", "998", "5"}), Strings({"998", "999"}));
  const Reply all = Run({"sort", "big", "alpha"});
  ASSERT_EQ(all.elements.size(), 1000u);
  EXPECT_EQ(all.elements[0], Bulk("0"));
  EXPECT_EQ(all.elements[1], Bulk("1"));
  EXPECT_EQ(all.elements[2], Bulk("10"));
  EXPECT_EQ(all.elements[999], Bulk("999"));
}

}  // namespace
}  // namespace ordis::server::test
