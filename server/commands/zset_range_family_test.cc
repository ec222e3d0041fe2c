// ZRANGE ZREVRANGE ZRANGEBYSCORE ZREVRANGEBYSCORE ZRANGEBYLEX ZREVRANGEBYLEX ZRANGESTORE ZCOUNT
// ZLEXCOUNT ZREMRANGEBYRANK ZREMRANGEBYSCORE ZREMRANGEBYLEX, in-process. Every expectation was
// first checked against redis-server 7.0.15. Each test runs on both forms of a sorted set: the
// small packed one (OBJECT ENCODING "listpack") and the tree (zset-max-listpack-entries 0, so every
// set is a "skiplist").
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

enum class Form { kListpack, kSkiplist };

void PrintTo(Form form, std::ostream* os) {
  *os << (form == Form::kListpack ? "listpack" : "skiplist");
}

class ZSetRangeFamilyTest : public FamilyTest, public ::testing::WithParamInterface<Form> {
 protected:
  ZSetRangeFamilyTest()
      : FamilyTest({{"zset-max-listpack-entries", GetParam() == Form::kListpack ? "128" : "0"}}) {}

  // What OBJECT ENCODING says of a small set in this form.
  static std::string Encoding() { return GetParam() == Form::kListpack ? "listpack" : "skiplist"; }

  // ZADD key 0 m000 1 m001 ... (n-1) m<n-1>.
  static std::vector<std::string> ZAddMany(const std::string& key, int n) {
    std::vector<std::string> args = {"zadd", key};
    for (int i = 0; i < n; ++i) {
      char member[16];
      snprintf(member, sizeof member, "m%03d", i);
      args.push_back(std::to_string(i));
      args.push_back(member);
    }
    return args;
  }
};

INSTANTIATE_TEST_SUITE_P(, ZSetRangeFamilyTest, ::testing::Values(Form::kListpack, Form::kSkiplist),
                         [](const ::testing::TestParamInfo<Form>& info) {
                           return info.param == Form::kListpack ? "listpack" : "skiplist";
                         });

const char kWrongType[] = "WRONGTYPE Operation against a key holding the wrong kind of value";

TEST_P(ZSetRangeFamilyTest, ZRangeByRank) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1"}), Strings({"a", "b", "c", "d", "e"}));
  EXPECT_EQ(Run({"zrange", "z", "1", "2"}), Strings({"b", "c"}));
  EXPECT_EQ(Run({"zrange", "z", "-2", "-1"}), Strings({"d", "e"}));
  EXPECT_EQ(Run({"zrange", "z", "-100", "1"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"zrange", "z", "3", "100"}), Strings({"d", "e"}));
  EXPECT_EQ(Run({"zrange", "z", "3", "1"}), Array({}));
  EXPECT_EQ(Run({"zrange", "z", "5", "10"}), Array({}));
  EXPECT_EQ(Run({"zrange", "z", "-1", "-2"}), Array({}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeWithScores) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrange", "z", "0", "1", "withscores"}), Strings({"a", "1", "b", "2"}));
  EXPECT_EQ(Run({"zrange", "z", "0", "1", "WITHSCORES"}), Strings({"a", "1", "b", "2"}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeWithScoresInResp3) {
  Run({"hello", "3"});
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrange", "z", "0", "1", "withscores"}),
            Array({Array({Bulk("a"), Double("1")}), Array({Bulk("b"), Double("2")})}));
  EXPECT_EQ(Run({"zrange", "z", "0", "1"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "4", "+inf", "withscores"}),
            Array({Array({Bulk("d"), Double("4")}), Array({Bulk("e"), Double("5")})}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeRev) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrange", "z", "0", "1", "rev"}), Strings({"e", "d"}));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "rev", "withscores"}),
            Strings({"e", "5", "d", "4", "c", "3", "b", "2", "a", "1"}));
  EXPECT_EQ(Run({"zrange", "z", "-1", "-1", "rev"}), Strings({"a"}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeByScoreOption) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrange", "z", "2", "4", "byscore"}), Strings({"b", "c", "d"}));
  EXPECT_EQ(Run({"zrange", "z", "(2", "4", "byscore"}), Strings({"c", "d"}));
  EXPECT_EQ(Run({"zrange", "z", "2", "(4", "byscore", "withscores"}),
            Strings({"b", "2", "c", "3"}));
  EXPECT_EQ(Run({"zrange", "z", "-inf", "+inf", "byscore"}), Strings({"a", "b", "c", "d", "e"}));
  EXPECT_EQ(Run({"zrange", "z", "4", "2", "byscore"}), Array({}));
  EXPECT_EQ(Run({"zrange", "z", "4", "2", "byscore", "rev"}), Strings({"d", "c", "b"}));
  EXPECT_EQ(Run({"zrange", "z", "(4", "(2", "byscore", "rev", "withscores"}), Strings({"c", "3"}));
  EXPECT_EQ(Run({"zrange", "z", "-inf", "+inf", "byscore", "limit", "1", "2"}),
            Strings({"b", "c"}));
  EXPECT_EQ(Run({"zrange", "z", "+inf", "-inf", "byscore", "rev", "limit", "1", "2"}),
            Strings({"d", "c"}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeByLexOption) {
  EXPECT_EQ(Run({"zadd", "z", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"}), Int(5));
  EXPECT_EQ(Run({"zrange", "z", "[b", "[d", "bylex"}), Strings({"b", "c", "d"}));
  EXPECT_EQ(Run({"zrange", "z", "(b", "[d", "bylex"}), Strings({"c", "d"}));
  EXPECT_EQ(Run({"zrange", "z", "-", "+", "bylex", "limit", "1", "2"}), Strings({"b", "c"}));
  EXPECT_EQ(Run({"zrange", "z", "[d", "[b", "bylex", "rev"}), Strings({"d", "c", "b"}));
  EXPECT_EQ(Run({"zrange", "z", "+", "-", "bylex", "rev", "limit", "0", "2"}), Strings({"e", "d"}));
  EXPECT_EQ(Run({"zrange", "z", "[d", "[b", "bylex"}), Array({}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeLimit) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrange", "z", "0", "10", "byscore", "limit", "0", "-1"}),
            Strings({"a", "b", "c", "d", "e"}));
  EXPECT_EQ(Run({"zrange", "z", "0", "10", "byscore", "limit", "3", "10"}), Strings({"d", "e"}));
  EXPECT_EQ(Run({"zrange", "z", "0", "10", "byscore", "limit", "5", "1"}), Array({}));
  EXPECT_EQ(Run({"zrange", "z", "0", "10", "byscore", "limit", "-1", "2"}), Array({}));
  EXPECT_EQ(Run({"zrange", "z", "0", "10", "byscore", "limit", "1", "0"}), Array({}));
  EXPECT_EQ(Run({"zrange", "z", "0", "10", "byscore", "limit", "2", "-5"}),
            Strings({"c", "d", "e"}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeOptionErrors) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(
      Run({"zrange", "z", "0", "1", "limit", "0", "1"}),
      Err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"));
  EXPECT_EQ(Run({"zrange", "z", "0", "1", "limit", "0", "-1"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"zrange", "z", "a", "b", "bylex", "withscores"}),
            Err("ERR syntax error, WITHSCORES not supported in combination with BYLEX"));
  EXPECT_EQ(Run({"zrange", "z", "0", "1", "byscore", "bylex"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrange", "z", "0", "1", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrange", "z", "0", "1", "limit", "0"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrange", "z", "0", "1", "byscore", "limit", "x", "1"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zrange", "z", "0", "1", "rev", "rev"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrange", "z", "x", "1"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zrange", "z", "0", "1.5"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zrange", "z", "x", "1", "byscore"}), Err("ERR min or max is not a float"));
  EXPECT_EQ(Run({"zrange", "z", "a", "b", "bylex"}),
            Err("ERR min or max not valid string range item"));
  EXPECT_EQ(Run({"zrange", "z", "0"}), Err("ERR wrong number of arguments for 'zrange' command"));
}

TEST_P(ZSetRangeFamilyTest, ZRangeOnMissingKeyAndWrongType) {
  EXPECT_EQ(Run({"zrange", "missing", "0", "-1"}), Array({}));
  EXPECT_EQ(Run({"zrange", "missing", "0", "1", "byscore"}), Array({}));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zrange", "s", "0", "-1"}), Err(kWrongType));
  EXPECT_EQ(Run({"zrange", "s", "0", "1", "byscore"}), Err(kWrongType));
  EXPECT_EQ(Run({"zrangebylex", "s", "-", "+"}), Err(kWrongType));
  EXPECT_EQ(Run({"zrange", "s", "x", "1"}), Err("ERR value is not an integer or out of range"));
}

TEST_P(ZSetRangeFamilyTest, ZRevRange) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrevrange", "z", "0", "1"}), Strings({"e", "d"}));
  EXPECT_EQ(Run({"zrevrange", "z", "0", "-1", "withscores"}),
            Strings({"e", "5", "d", "4", "c", "3", "b", "2", "a", "1"}));
  EXPECT_EQ(Run({"zrevrange", "z", "-2", "-1"}), Strings({"b", "a"}));
  EXPECT_EQ(Run({"zrevrange", "z", "0", "1", "byscore"}), Err("ERR syntax error"));
  EXPECT_EQ(
      Run({"zrevrange", "z", "0", "1", "limit", "0", "1"}),
      Err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"));
  EXPECT_EQ(Run({"zrevrange", "z", "x", "1"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zrevrange", "missing", "0", "-1"}), Array({}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeByScore) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrangebyscore", "z", "2", "4"}), Strings({"b", "c", "d"}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "(1", "(5", "withscores"}),
            Strings({"b", "2", "c", "3", "d", "4"}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "-inf", "+inf", "limit", "1", "2"}), Strings({"b", "c"}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "-inf", "+inf", "withscores", "limit", "3", "5"}),
            Strings({"d", "4", "e", "5"}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "4", "2"}), Array({}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "6", "+inf"}), Array({}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "(3", "3"}), Array({}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "3", "3"}), Strings({"c"}));
  EXPECT_EQ(Run({"zrangebyscore", "missing", "0", "1"}), Array({}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeByScoreErrors) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrangebyscore", "z", "x", "1"}), Err("ERR min or max is not a float"));
  EXPECT_EQ(Run({"zrangebyscore", "z", "0", "(x"}), Err("ERR min or max is not a float"));
  EXPECT_EQ(Run({"zrangebyscore", "z", "nan", "1"}), Err("ERR min or max is not a float"));
  EXPECT_EQ(Run({"zrangebyscore", "z", "(", "1"}), Strings({"a"}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "0", "1", "rev"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrangebyscore", "z", "0", "1", "byscore"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrangebyscore", "z", "0", "1", "limit", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrangebyscore", "z", "0", "1", "limit", "a", "1"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zrangebyscore", "z", "0", "1", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrangebyscore", "z", "0"}),
            Err("ERR wrong number of arguments for 'zrangebyscore' command"));
}

TEST_P(ZSetRangeFamilyTest, ZRangeByScoreAcceptsLooseFloats) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrangebyscore", "z", "", "2"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "0x1", "2"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "inf", "-inf"}), Array({}));
  EXPECT_EQ(Run({"zrangebyscore", "z", "-inf", "inf"}), Strings({"a", "b", "c", "d", "e"}));
}

TEST_P(ZSetRangeFamilyTest, ZRevRangeByScore) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrevrangebyscore", "z", "4", "2"}), Strings({"d", "c", "b"}));
  EXPECT_EQ(Run({"zrevrangebyscore", "z", "(5", "(1", "withscores"}),
            Strings({"d", "4", "c", "3", "b", "2"}));
  EXPECT_EQ(Run({"zrevrangebyscore", "z", "+inf", "-inf", "limit", "1", "2"}), Strings({"d", "c"}));
  EXPECT_EQ(Run({"zrevrangebyscore", "z", "2", "4"}), Array({}));
  EXPECT_EQ(Run({"zrevrangebyscore", "z", "x", "1"}), Err("ERR min or max is not a float"));
  EXPECT_EQ(Run({"zrevrangebyscore", "missing", "1", "0"}), Array({}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeByLex) {
  EXPECT_EQ(Run({"zadd", "z", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"}), Int(5));
  EXPECT_EQ(Run({"zrangebylex", "z", "-", "+"}), Strings({"a", "b", "c", "d", "e"}));
  EXPECT_EQ(Run({"zrangebylex", "z", "[b", "(d"}), Strings({"b", "c"}));
  EXPECT_EQ(Run({"zrangebylex", "z", "(b", "[d"}), Strings({"c", "d"}));
  EXPECT_EQ(Run({"zrangebylex", "z", "-", "[c", "limit", "1", "5"}), Strings({"b", "c"}));
  EXPECT_EQ(Run({"zrangebylex", "z", "+", "-"}), Array({}));
  EXPECT_EQ(Run({"zrangebylex", "z", "[c", "[c"}), Strings({"c"}));
  EXPECT_EQ(Run({"zrangebylex", "z", "(c", "[c"}), Array({}));
  EXPECT_EQ(Run({"zrangebylex", "z", "[bb", "+"}), Strings({"c", "d", "e"}));
  EXPECT_EQ(Run({"zrangebylex", "z", "[", "+"}), Strings({"a", "b", "c", "d", "e"}));
  EXPECT_EQ(Run({"zrangebylex", "missing", "-", "+"}), Array({}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeByLexErrors) {
  EXPECT_EQ(Run({"zadd", "z", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"}), Int(5));
  EXPECT_EQ(Run({"zrangebylex", "z", "a", "+"}), Err("ERR min or max not valid string range item"));
  EXPECT_EQ(Run({"zrangebylex", "z", "-", "b"}), Err("ERR min or max not valid string range item"));
  EXPECT_EQ(Run({"zrangebylex", "z", "", "+"}), Err("ERR min or max not valid string range item"));
  EXPECT_EQ(Run({"zrangebylex", "z", "-", "+", "withscores"}),
            Err("ERR syntax error, WITHSCORES not supported in combination with BYLEX"));
  EXPECT_EQ(Run({"zrangebylex", "z", "-", "+", "limit", "0"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrangebylex", "z", "-", "+", "limit", "x", "1"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zrangebylex", "z", "-", "+", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrangebylex", "z", "-"}),
            Err("ERR wrong number of arguments for 'zrangebylex' command"));
}

TEST_P(ZSetRangeFamilyTest, ZRevRangeByLex) {
  EXPECT_EQ(Run({"zadd", "z", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"}), Int(5));
  EXPECT_EQ(Run({"zrevrangebylex", "z", "+", "-"}), Strings({"e", "d", "c", "b", "a"}));
  EXPECT_EQ(Run({"zrevrangebylex", "z", "[d", "(b"}), Strings({"d", "c"}));
  EXPECT_EQ(Run({"zrevrangebylex", "z", "+", "-", "limit", "1", "2"}), Strings({"d", "c"}));
  EXPECT_EQ(Run({"zrevrangebylex", "z", "-", "+"}), Array({}));
  EXPECT_EQ(Run({"zrevrangebylex", "z", "x", "-"}),
            Err("ERR min or max not valid string range item"));
}

TEST_P(ZSetRangeFamilyTest, LexRangesAreBytewise) {
  EXPECT_EQ(Run({"zadd", "z", "0", "A", "0", "a", "0", "B", "0", "ab", "0", "", "0", "b"}), Int(6));
  EXPECT_EQ(Run({"zrangebylex", "z", "-", "+"}), Strings({"", "A", "B", "a", "ab", "b"}));
  EXPECT_EQ(Run({"zrangebylex", "z", "[a", "(b"}), Strings({"a", "ab"}));
  EXPECT_EQ(Run({"zrangebylex", "z", "(", "[B"}), Strings({"A", "B"}));
  EXPECT_EQ(Run({"zlexcount", "z", "[A", "[a"}), Int(3));
}

TEST_P(ZSetRangeFamilyTest, ZRangeStore) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "1", "3"}), Int(3));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1", "withscores"}),
            Strings({"b", "2", "c", "3", "d", "4"}));
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "2", "4", "byscore", "rev"}), Int(0));
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "4", "2", "byscore", "rev"}), Int(3));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1"}), Strings({"b", "c", "d"}));
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "0", "10", "byscore", "limit", "1", "2"}), Int(2));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1"}), Strings({"b", "c"}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeStoreByLex) {
  EXPECT_EQ(Run({"zadd", "z", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"}), Int(5));
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "[b", "[d", "bylex"}), Int(3));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1"}), Strings({"b", "c", "d"}));
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "[d", "[b", "bylex", "rev", "limit", "0", "1"}),
            Int(1));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1"}), Strings({"d"}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeStoreEmptyResultDeletesDestination) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"set", "dst", "x"}), Ok());
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "10", "20"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
  EXPECT_EQ(Run({"zrangestore", "dst", "missing", "0", "-1"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
}

TEST_P(ZSetRangeFamilyTest, ZRangeStoreReplacesDestination) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"set", "dst", "x"}), Ok());
  EXPECT_EQ(Run({"expire", "dst", "100"}), Int(1));
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "0", "0"}), Int(1));
  EXPECT_EQ(Run({"ttl", "dst"}), Int(-1));
  EXPECT_EQ(Run({"type", "dst"}), Status("zset"));
  EXPECT_EQ(Run({"zrangestore", "z", "z", "1", "2"}), Int(2));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}), Strings({"b", "2", "c", "3"}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeStoreErrors) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "0", "1", "withscores"}), Err("ERR syntax error"));
  EXPECT_EQ(
      Run({"zrangestore", "dst", "z", "0", "1", "limit", "0", "1"}),
      Err("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"));
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "x", "1"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "0"}),
            Err("ERR wrong number of arguments for 'zrangestore' command"));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zrangestore", "dst", "s", "0", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"zrangestore", "s", "z", "0", "1"}), Int(2));
  EXPECT_EQ(Run({"type", "s"}), Status("zset"));
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "a", "b", "bylex"}),
            Err("ERR min or max not valid string range item"));
}

TEST_P(ZSetRangeFamilyTest, ZCount) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zcount", "z", "2", "4"}), Int(3));
  EXPECT_EQ(Run({"zcount", "z", "(2", "4"}), Int(2));
  EXPECT_EQ(Run({"zcount", "z", "-inf", "+inf"}), Int(5));
  EXPECT_EQ(Run({"zcount", "z", "4", "2"}), Int(0));
  EXPECT_EQ(Run({"zcount", "z", "(3", "3"}), Int(0));
  EXPECT_EQ(Run({"zcount", "missing", "0", "1"}), Int(0));
}

TEST_P(ZSetRangeFamilyTest, ZCountErrors) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zcount", "z", "x", "1"}), Err("ERR min or max is not a float"));
  EXPECT_EQ(Run({"zcount", "z", "1", "("}), Int(0));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zcount", "s", "0", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"zcount", "z", "0"}), Err("ERR wrong number of arguments for 'zcount' command"));
  EXPECT_EQ(Run({"zcount", "z", "0", "1", "2"}),
            Err("ERR wrong number of arguments for 'zcount' command"));
}

TEST_P(ZSetRangeFamilyTest, ZLexCount) {
  EXPECT_EQ(Run({"zadd", "z", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"}), Int(5));
  EXPECT_EQ(Run({"zlexcount", "z", "-", "+"}), Int(5));
  EXPECT_EQ(Run({"zlexcount", "z", "[b", "(d"}), Int(2));
  EXPECT_EQ(Run({"zlexcount", "z", "+", "-"}), Int(0));
  EXPECT_EQ(Run({"zlexcount", "z", "(c", "[c"}), Int(0));
  EXPECT_EQ(Run({"zlexcount", "missing", "-", "+"}), Int(0));
}

TEST_P(ZSetRangeFamilyTest, ZLexCountErrors) {
  EXPECT_EQ(Run({"zadd", "z", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"}), Int(5));
  EXPECT_EQ(Run({"zlexcount", "z", "a", "+"}), Err("ERR min or max not valid string range item"));
  EXPECT_EQ(Run({"zlexcount", "z", "-", "+x"}), Err("ERR min or max not valid string range item"));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zlexcount", "s", "-", "+"}), Err(kWrongType));
  EXPECT_EQ(Run({"zlexcount", "z", "-"}),
            Err("ERR wrong number of arguments for 'zlexcount' command"));
}

TEST_P(ZSetRangeFamilyTest, ZRemRangeByRank) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zremrangebyrank", "z", "1", "2"}), Int(2));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1"}), Strings({"a", "d", "e"}));
  EXPECT_EQ(Run({"zremrangebyrank", "z", "-1", "-1"}), Int(1));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1"}), Strings({"a", "d"}));
  EXPECT_EQ(Run({"zremrangebyrank", "z", "5", "10"}), Int(0));
  EXPECT_EQ(Run({"zremrangebyrank", "z", "0", "-1"}), Int(2));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
  EXPECT_EQ(Run({"zremrangebyrank", "missing", "0", "-1"}), Int(0));
}

TEST_P(ZSetRangeFamilyTest, ZRemRangeByScore) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zremrangebyscore", "z", "(1", "3"}), Int(2));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1"}), Strings({"a", "d", "e"}));
  EXPECT_EQ(Run({"zremrangebyscore", "z", "5", "1"}), Int(0));
  EXPECT_EQ(Run({"zremrangebyscore", "z", "-inf", "+inf"}), Int(3));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
  EXPECT_EQ(Run({"zremrangebyscore", "missing", "0", "1"}), Int(0));
}

TEST_P(ZSetRangeFamilyTest, ZRemRangeByLex) {
  EXPECT_EQ(Run({"zadd", "z", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e"}), Int(5));
  EXPECT_EQ(Run({"zremrangebylex", "z", "[b", "(d"}), Int(2));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1"}), Strings({"a", "d", "e"}));
  EXPECT_EQ(Run({"zremrangebylex", "z", "+", "-"}), Int(0));
  EXPECT_EQ(Run({"zremrangebylex", "z", "-", "+"}), Int(3));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
  EXPECT_EQ(Run({"zremrangebylex", "missing", "-", "+"}), Int(0));
}

TEST_P(ZSetRangeFamilyTest, ZRemRangeErrors) {
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zremrangebyrank", "z", "x", "1"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zremrangebyscore", "z", "x", "1"}), Err("ERR min or max is not a float"));
  EXPECT_EQ(Run({"zremrangebylex", "z", "x", "+"}),
            Err("ERR min or max not valid string range item"));
  EXPECT_EQ(Run({"zremrangebyrank", "s", "0", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"zremrangebyscore", "s", "0", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"zremrangebylex", "s", "-", "+"}), Err(kWrongType));
  EXPECT_EQ(Run({"zremrangebyrank", "s", "x", "1"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zremrangebyrank", "z", "0"}),
            Err("ERR wrong number of arguments for 'zremrangebyrank' command"));
  EXPECT_EQ(Run({"zremrangebyscore", "z", "0", "1", "2"}),
            Err("ERR wrong number of arguments for 'zremrangebyscore' command"));
}

TEST_P(ZSetRangeFamilyTest, RangesOverALargeSet) {
  EXPECT_EQ(Run(ZAddMany("big", 300)), Int(300));
  EXPECT_EQ(Run({"object", "encoding", "big"}), Bulk("skiplist"));
  EXPECT_EQ(Run({"zrange", "big", "100", "104"}),
            Strings({"m100", "m101", "m102", "m103", "m104"}));
  EXPECT_EQ(Run({"zrevrange", "big", "0", "2", "withscores"}),
            Strings({"m299", "299", "m298", "298", "m297", "297"}));
  EXPECT_EQ(Run({"zrangebyscore", "big", "(250", "+inf", "limit", "10", "3"}),
            Strings({"m261", "m262", "m263"}));
  EXPECT_EQ(Run({"zrevrangebyscore", "big", "200", "-inf", "limit", "5", "2"}),
            Strings({"m195", "m194"}));
  EXPECT_EQ(Run({"zrangebylex", "big", "[m297", "+"}), Strings({"m297", "m298", "m299"}));
  EXPECT_EQ(Run({"zcount", "big", "10", "(200"}), Int(190));
  EXPECT_EQ(Run({"zremrangebyrank", "big", "0", "99"}), Int(100));
  EXPECT_EQ(Run({"zcard", "big"}), Int(200));
  EXPECT_EQ(Run({"zrank", "big", "m150"}), Int(50));
  EXPECT_EQ(Run({"zremrangebyscore", "big", "150", "(160"}), Int(10));
  EXPECT_EQ(Run({"zrange", "big", "48", "52"}), Strings({"m148", "m149", "m160", "m161", "m162"}));
  EXPECT_EQ(Run({"zremrangebylex", "big", "[m290", "+"}), Int(10));
  EXPECT_EQ(Run({"zrevrange", "big", "0", "0"}), Strings({"m289"}));
  EXPECT_EQ(Run({"zrangestore", "dst", "big", "0", "199"}), Int(180));
  EXPECT_EQ(Run({"object", "encoding", "dst"}), Bulk("skiplist"));
  EXPECT_EQ(Run({"zrangestore", "dst", "big", "0", "4"}), Int(5));
  EXPECT_EQ(Run({"object", "encoding", "dst"}), Bulk(Encoding()));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1"}), Strings({"m100", "m101", "m102", "m103", "m104"}));
}

TEST_P(ZSetRangeFamilyTest, ZRangeStoreResultEncoding) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zrangestore", "dst", "z", "0", "2"}), Int(3));
  EXPECT_EQ(Run({"object", "encoding", "dst"}), Bulk(Encoding()));
}

}  // namespace
}  // namespace ordis::server::test
