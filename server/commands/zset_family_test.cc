// ZADD ZINCRBY ZREM ZCARD ZSCORE ZMSCORE ZPOPMIN ZPOPMAX ZRANK ZREVRANK ZRANDMEMBER ZSCAN,
// in-process. Every expectation was first checked against redis-server 7.0.15. Each test runs on
// both forms of a sorted set: the small packed one (OBJECT ENCODING "listpack") and the tree
// (zset-max-listpack-entries 0, so every set is a "skiplist").
#include <algorithm>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

enum class Form { kListpack, kSkiplist };

void PrintTo(Form form, std::ostream* os) {
  *os << (form == Form::kListpack ? "listpack" : "skiplist");
}

class ZSetFamilyTest : public FamilyTest, public ::testing::WithParamInterface<Form> {
 protected:
  ZSetFamilyTest()
      : FamilyTest({{"zset-max-listpack-entries", GetParam() == Form::kListpack ? "128" : "0"}}) {}

  // What OBJECT ENCODING says of a small set in this form.
  static std::string Encoding() { return GetParam() == Form::kListpack ? "listpack" : "skiplist"; }
};

INSTANTIATE_TEST_SUITE_P(, ZSetFamilyTest, ::testing::Values(Form::kListpack, Form::kSkiplist),
                         [](const ::testing::TestParamInfo<Form>& info) {
                           return info.param == Form::kListpack ? "listpack" : "skiplist";
                         });

const char kWrongType[] = "WRONGTYPE Operation against a key holding the wrong kind of value";

TEST_P(ZSetFamilyTest, ZAddCountsNewMembers) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c"}), Int(3));
  EXPECT_EQ(Run({"zadd", "z", "4", "a", "5", "d"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "1", "e", "2", "e"}), Int(1));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}),
            Strings({"b", "2", "e", "2", "c", "3", "a", "4", "d", "5"}));
  EXPECT_EQ(Run({"zcard", "z"}), Int(5));
}

TEST_P(ZSetFamilyTest, ZAddNxAddsOnly) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "nx", "5", "a", "2", "b"}), Int(1));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}), Strings({"a", "1", "b", "2"}));
}

TEST_P(ZSetFamilyTest, ZAddXxUpdatesOnly) {
  EXPECT_EQ(Run({"zadd", "z", "xx", "1", "a"}), Int(0));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
  EXPECT_EQ(Run({"zadd", "z", "1", "a"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "xx", "5", "a", "2", "b"}), Int(0));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}), Strings({"a", "5"}));
}

TEST_P(ZSetFamilyTest, ZAddChCountsChangedMembers) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b"}), Int(2));
  EXPECT_EQ(Run({"zadd", "z", "ch", "1", "a", "3", "b", "4", "c"}), Int(2));
  EXPECT_EQ(Run({"zadd", "z", "ch", "1", "a", "3", "b"}), Int(0));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}), Strings({"a", "1", "b", "3", "c", "4"}));
}

TEST_P(ZSetFamilyTest, ZAddGtAndLt) {
  EXPECT_EQ(Run({"zadd", "z", "5", "a", "5", "b"}), Int(2));
  EXPECT_EQ(Run({"zadd", "z", "gt", "ch", "3", "a", "7", "b"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "lt", "ch", "3", "a", "9", "b"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "gt", "1", "c"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "lt", "9", "d"}), Int(1));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}),
            Strings({"c", "1", "a", "3", "b", "7", "d", "9"}));
}

TEST_P(ZSetFamilyTest, ZAddIncr) {
  EXPECT_EQ(Run({"zadd", "z", "incr", "2.5", "a"}), Bulk("2.5"));
  EXPECT_EQ(Run({"zadd", "z", "incr", "1", "a"}), Bulk("3.5"));
  EXPECT_EQ(Run({"zadd", "z", "nx", "incr", "1", "a"}), Nil());
  EXPECT_EQ(Run({"zadd", "z", "xx", "incr", "1", "b"}), Nil());
  EXPECT_EQ(Run({"zadd", "z", "gt", "incr", "-1", "a"}), Nil());
  EXPECT_EQ(Run({"zadd", "z", "lt", "incr", "-1", "a"}), Bulk("2.5"));
  EXPECT_EQ(Run({"zadd", "z", "xx", "incr", "1", "a"}), Bulk("3.5"));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}), Strings({"a", "3.5"}));
}

TEST_P(ZSetFamilyTest, ZAddIncrReplyIsADoubleInResp3) {
  Run({"hello", "3"});
  EXPECT_EQ(Run({"zadd", "z", "incr", "2.5", "a"}), Double("2.5"));
  EXPECT_EQ(Run({"zadd", "z", "nx", "incr", "1", "a"}), Nil());
  EXPECT_EQ(Run({"zincrby", "z", "1", "a"}), Double("3.5"));
}

TEST_P(ZSetFamilyTest, ZAddOptionConflicts) {
  EXPECT_EQ(Run({"zadd", "z", "nx", "xx", "1", "a"}),
            Err("ERR XX and NX options at the same time are not compatible"));
  EXPECT_EQ(Run({"zadd", "z", "gt", "lt", "1", "a"}),
            Err("ERR GT, LT, and/or NX options at the same time are not compatible"));
  EXPECT_EQ(Run({"zadd", "z", "gt", "nx", "1", "a"}),
            Err("ERR GT, LT, and/or NX options at the same time are not compatible"));
  EXPECT_EQ(Run({"zadd", "z", "lt", "nx", "1", "a"}),
            Err("ERR GT, LT, and/or NX options at the same time are not compatible"));
  EXPECT_EQ(Run({"zadd", "z", "incr", "1", "a", "2", "b"}),
            Err("ERR INCR option supports a single increment-element pair"));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
}

TEST_P(ZSetFamilyTest, ZAddSyntaxErrors) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zadd", "z", "nx", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zadd", "z", "ch"}), Err("ERR wrong number of arguments for 'zadd' command"));
  EXPECT_EQ(Run({"zadd", "z", "foo", "1", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zadd", "z", "1"}), Err("ERR wrong number of arguments for 'zadd' command"));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
}

TEST_P(ZSetFamilyTest, ZAddRejectsBadScoresAtomically) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "x", "b"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"zadd", "z", "nan", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"zadd", "z", "", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"zadd", "z", " 1", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"zadd", "z", "1x", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
  EXPECT_EQ(Run({"zadd", "z", "0x10", "a"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "1e3", "b"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "-.5", "c"}), Int(1));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}),
            Strings({"c", "-0.5", "a", "16", "b", "1000"}));
}

TEST_P(ZSetFamilyTest, ZAddInfiniteScores) {
  EXPECT_EQ(Run({"zadd", "z", "inf", "a", "-inf", "b", "+inf", "c", "0", "d"}), Int(4));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}),
            Strings({"b", "-inf", "d", "0", "a", "inf", "c", "inf"}));
  EXPECT_EQ(Run({"zscore", "z", "b"}), Bulk("-inf"));
  EXPECT_EQ(Run({"zadd", "z", "incr", "-inf", "a"}),
            Err("ERR resulting score is not a number (NaN)"));
  EXPECT_EQ(Run({"zincrby", "z", "-inf", "c"}), Err("ERR resulting score is not a number (NaN)"));
  EXPECT_EQ(Run({"zscore", "z", "a"}), Bulk("inf"));
  EXPECT_EQ(Run({"zincrby", "z", "inf", "a"}), Bulk("inf"));
}

TEST_P(ZSetFamilyTest, ScoresAreFormattedAsRedisDoes) {
  EXPECT_EQ(Run({"zadd", "z", "0.1", "a", "3.0", "b", "1e20", "c", "1.5e-7", "e",
                 "123456789012345678", "f"}),
            Int(5));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}),
            Strings({"e", "1.4999999999999999e-07", "a", "0.10000000000000001", "b", "3", "f",
                     "1.2345678901234568e+17", "c", "1e+20"}));
  EXPECT_EQ(Run({"zscore", "z", "a"}), Bulk("0.10000000000000001"));
  EXPECT_EQ(Run({"zmscore", "z", "b", "c"}), Strings({"3", "1e+20"}));
}

TEST_P(ZSetFamilyTest, ScoresAreDoublesInResp3) {
  Run({"hello", "3"});
  EXPECT_EQ(Run({"zadd", "z", "0.1", "a", "3.0", "b", "inf", "c", "-inf", "d"}), Int(4));
  EXPECT_EQ(Run({"zscore", "z", "a"}), Double("0.10000000000000001"));
  EXPECT_EQ(Run({"zscore", "z", "b"}), Double("3"));
  EXPECT_EQ(Run({"zmscore", "z", "c", "d", "x"}), Array({Double("inf"), Double("-inf"), Nil()}));
  EXPECT_EQ(Run({"zscore", "z", "missing"}), Nil());
}

TEST_P(ZSetFamilyTest, ZAddWrongTypeAndArity) {
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zadd", "s", "1", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"zadd", "s", "xx", "1", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"zadd", "z", "1"}), Err("ERR wrong number of arguments for 'zadd' command"));
  EXPECT_EQ(Run({"zadd", "z"}), Err("ERR wrong number of arguments for 'zadd' command"));
}

TEST_P(ZSetFamilyTest, ZIncrBy) {
  EXPECT_EQ(Run({"zincrby", "z", "2", "a"}), Bulk("2"));
  EXPECT_EQ(Run({"zincrby", "z", "1.5", "a"}), Bulk("3.5"));
  EXPECT_EQ(Run({"zincrby", "z", "-10", "b"}), Bulk("-10"));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}), Strings({"b", "-10", "a", "3.5"}));
}

TEST_P(ZSetFamilyTest, ZIncrByErrors) {
  EXPECT_EQ(Run({"zincrby", "z", "x", "a"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"zincrby", "z", "nx", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zincrby", "z", "1"}), Err("ERR wrong number of arguments for 'zincrby' command"));
  EXPECT_EQ(Run({"zincrby", "z", "1", "a", "b"}),
            Err("ERR wrong number of arguments for 'zincrby' command"));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zincrby", "s", "1", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
}

TEST_P(ZSetFamilyTest, ZRem) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c"}), Int(3));
  EXPECT_EQ(Run({"zrem", "z", "a", "b", "nosuch"}), Int(2));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1"}), Strings({"c"}));
  EXPECT_EQ(Run({"zrem", "z", "a"}), Int(0));
  EXPECT_EQ(Run({"zrem", "z", "c"}), Int(1));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
  EXPECT_EQ(Run({"zrem", "missing", "a"}), Int(0));
}

TEST_P(ZSetFamilyTest, ZRemErrors) {
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zrem", "s", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"zrem", "z"}), Err("ERR wrong number of arguments for 'zrem' command"));
}

TEST_P(ZSetFamilyTest, ZCard) {
  EXPECT_EQ(Run({"zcard", "missing"}), Int(0));
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b"}), Int(2));
  EXPECT_EQ(Run({"zcard", "z"}), Int(2));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zcard", "s"}), Err(kWrongType));
  EXPECT_EQ(Run({"zcard", "z", "z"}), Err("ERR wrong number of arguments for 'zcard' command"));
}

TEST_P(ZSetFamilyTest, ZScore) {
  EXPECT_EQ(Run({"zadd", "z", "1.5", "a"}), Int(1));
  EXPECT_EQ(Run({"zscore", "z", "a"}), Bulk("1.5"));
  EXPECT_EQ(Run({"zscore", "z", "b"}), Nil());
  EXPECT_EQ(Run({"zscore", "missing", "a"}), Nil());
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zscore", "s", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"zscore", "z"}), Err("ERR wrong number of arguments for 'zscore' command"));
  EXPECT_EQ(Run({"zscore", "z", "a", "b"}),
            Err("ERR wrong number of arguments for 'zscore' command"));
}

TEST_P(ZSetFamilyTest, ZMScore) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b"}), Int(2));
  EXPECT_EQ(Run({"zmscore", "z", "a", "x", "b"}), Array({Bulk("1"), Nil(), Bulk("2")}));
  EXPECT_EQ(Run({"zmscore", "missing", "a", "b"}), Array({Nil(), Nil()}));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zmscore", "s", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"zmscore", "z"}), Err("ERR wrong number of arguments for 'zmscore' command"));
}

TEST_P(ZSetFamilyTest, ZPopMinWithoutCount) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c"}), Int(3));
  EXPECT_EQ(Run({"zpopmin", "z"}), Strings({"a", "1"}));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1"}), Strings({"b", "c"}));
  EXPECT_EQ(Run({"zpopmax", "z"}), Strings({"c", "3"}));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1"}), Strings({"b"}));
}

TEST_P(ZSetFamilyTest, ZPopWithCount) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  EXPECT_EQ(Run({"zpopmin", "z", "2"}), Strings({"a", "1", "b", "2"}));
  EXPECT_EQ(Run({"zpopmax", "z", "2"}), Strings({"e", "5", "d", "4"}));
  EXPECT_EQ(Run({"zpopmin", "z", "0"}), Array({}));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1"}), Strings({"c"}));
  EXPECT_EQ(Run({"zpopmax", "z", "10"}), Strings({"c", "3"}));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
}

TEST_P(ZSetFamilyTest, ZPopOfTiesFollowsMemberOrder) {
  EXPECT_EQ(Run({"zadd", "z", "1", "b", "1", "a", "1", "c"}), Int(3));
  EXPECT_EQ(Run({"zpopmin", "z"}), Strings({"a", "1"}));
  EXPECT_EQ(Run({"zpopmax", "z"}), Strings({"c", "1"}));
  EXPECT_EQ(Run({"zpopmin", "z", "5"}), Strings({"b", "1"}));
}

TEST_P(ZSetFamilyTest, ZPopOnMissingKey) {
  EXPECT_EQ(Run({"zpopmin", "missing"}), Array({}));
  EXPECT_EQ(Run({"zpopmax", "missing", "3"}), Array({}));
  EXPECT_EQ(Run({"zpopmin", "missing", "0"}), Array({}));
  EXPECT_EQ(Run({"exists", "missing"}), Int(0));
}

TEST_P(ZSetFamilyTest, ZPopErrors) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a"}), Int(1));
  EXPECT_EQ(Run({"zpopmin", "z", "-1"}), Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(Run({"zpopmax", "z", "x"}), Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(Run({"zpopmin", "z", "1", "2"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zpopmax", "z", "1", "2"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zpopmin", "s"}), Err(kWrongType));
  EXPECT_EQ(Run({"zpopmax", "s", "2"}), Err(kWrongType));
  EXPECT_EQ(Run({"zpopmin"}), Err("ERR wrong number of arguments for 'zpopmin' command"));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1"}), Strings({"a"}));
}

TEST_P(ZSetFamilyTest, ZPopReplyShapesInResp3) {
  Run({"hello", "3"});
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d"}), Int(4));
  EXPECT_EQ(Run({"zpopmin", "z"}), Array({Bulk("a"), Double("1")}));
  EXPECT_EQ(Run({"zpopmax", "z"}), Array({Bulk("d"), Double("4")}));
  EXPECT_EQ(Run({"zpopmin", "z", "1"}), Array({Array({Bulk("b"), Double("2")})}));
  EXPECT_EQ(Run({"zpopmax", "z", "5"}), Array({Array({Bulk("c"), Double("3")})}));
  EXPECT_EQ(Run({"zpopmin", "missing"}), Array({}));
  EXPECT_EQ(Run({"zpopmin", "missing", "2"}), Array({}));
}

TEST_P(ZSetFamilyTest, ZRankAndZRevRank) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "2", "bb"}), Int(4));
  EXPECT_EQ(Run({"zrank", "z", "a"}), Int(0));
  EXPECT_EQ(Run({"zrank", "z", "bb"}), Int(2));
  EXPECT_EQ(Run({"zrank", "z", "c"}), Int(3));
  EXPECT_EQ(Run({"zrevrank", "z", "a"}), Int(3));
  EXPECT_EQ(Run({"zrevrank", "z", "c"}), Int(0));
  EXPECT_EQ(Run({"zrevrank", "z", "b"}), Int(2));
  EXPECT_EQ(Run({"zrank", "z", "x"}), Nil());
  EXPECT_EQ(Run({"zrevrank", "z", "x"}), Nil());
  EXPECT_EQ(Run({"zrank", "missing", "a"}), Nil());
  EXPECT_EQ(Run({"zrevrank", "missing", "a"}), Nil());
}

TEST_P(ZSetFamilyTest, ZRankErrors) {
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zrank", "s", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"zrevrank", "s", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"zrank", "z"}), Err("ERR wrong number of arguments for 'zrank' command"));
  EXPECT_EQ(Run({"zrevrank", "z", "a", "b"}),
            Err("ERR wrong number of arguments for 'zrevrank' command"));
  EXPECT_EQ(Run({"zrank", "z", "a", "withscore"}),
            Err("ERR wrong number of arguments for 'zrank' command"));
}

TEST_P(ZSetFamilyTest, ZRandMemberErrors) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a"}), Int(1));
  EXPECT_EQ(Run({"zrandmember", "z", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zrandmember", "z", "1", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrandmember", "z", "1", "withscores", "x"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zrandmember", "z", "-9223372036854775808"}),
            Err("ERR value is out of range, value must between -9223372036854775807 and "
                "9223372036854775807"));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zrandmember", "s"}), Err(kWrongType));
  EXPECT_EQ(Run({"zrandmember", "s", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"zrandmember"}), Err("ERR wrong number of arguments for 'zrandmember' command"));
}

TEST_P(ZSetFamilyTest, ZRandMemberOnMissingKey) {
  EXPECT_EQ(Run({"zrandmember", "missing"}), Nil());
  EXPECT_EQ(Run({"zrandmember", "missing", "3"}), Array({}));
  EXPECT_EQ(Run({"zrandmember", "missing", "-3", "withscores"}), Array({}));
}

TEST_P(ZSetFamilyTest, ZRandMemberCountZero) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a"}), Int(1));
  EXPECT_EQ(Run({"zrandmember", "z", "0"}), Array({}));
  EXPECT_EQ(Run({"zrandmember", "z", "0", "withscores"}), Array({}));
}

TEST_P(ZSetFamilyTest, ZRandMemberWholeSet) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c"}), Int(3));
  EXPECT_EQ(Run({"zrandmember", "z", "3"}), Strings({"c", "b", "a"}));
  EXPECT_EQ(Run({"zrandmember", "z", "10", "withscores"}), Strings({"c", "3", "b", "2", "a", "1"}));
}

TEST_P(ZSetFamilyTest, ZScanErrors) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a"}), Int(1));
  EXPECT_EQ(Run({"zscan", "z", "x"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"zscan", "z", "0", "count", "0"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zscan", "z", "0", "count", "x"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zscan", "z", "0", "match"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zscan", "z", "0", "foo", "bar"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Run({"zscan", "s", "0"}), Err(kWrongType));
  EXPECT_EQ(Run({"zscan", "z"}), Err("ERR wrong number of arguments for 'zscan' command"));
}

TEST_P(ZSetFamilyTest, ZScanOfMissingKey) {
  EXPECT_EQ(Run({"zscan", "missing", "0"}), Array({Bulk("0"), Array({})}));
}

TEST_P(ZSetFamilyTest, Encoding) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a"}), Int(1));
  EXPECT_EQ(Run({"object", "encoding", "z"}), Bulk(Encoding()));
  EXPECT_EQ(Run({"zadd", "big", "1",
                 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}),
            Int(1));
  EXPECT_EQ(Run({"object", "encoding", "big"}), Bulk("skiplist"));
}

TEST_P(ZSetFamilyTest, ZScanScoresAreBulkStringsInResp3) {
  Run({"hello", "3"});
  EXPECT_EQ(Run({"zadd", "z", "1.5", "a"}), Int(1));
  EXPECT_EQ(Run({"zscan", "z", "0"}), Array({Bulk("0"), Strings({"a", "1.5"})}));
}

TEST_P(ZSetFamilyTest, ZScanCountIsIgnoredForASingleMember) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a"}), Int(1));
  EXPECT_EQ(Run({"zscan", "z", "0", "count", "1"}), Array({Bulk("0"), Strings({"a", "1"})}));
  EXPECT_EQ(Run({"zscan", "z", "0", "count", "100", "match", "a"}),
            Array({Bulk("0"), Strings({"a", "1"})}));
}

TEST_P(ZSetFamilyTest, HugeCountsTakeTheWholeSet) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b"}), Int(2));
  EXPECT_EQ(Run({"zrandmember", "z", "9223372036854775807"}), Strings({"b", "a"}));
  EXPECT_EQ(Run({"zpopmin", "z", "9223372036854775807"}), Strings({"a", "1", "b", "2"}));
  EXPECT_EQ(Run({"exists", "z"}), Int(0));
}

TEST_P(ZSetFamilyTest, ScoresOverflowToInfinity) {
  EXPECT_EQ(Run({"zadd", "z", "1e400", "c"}), Err("ERR value is not a valid float"));
  EXPECT_EQ(Run({"zincrby", "z", "1e308", "a"}), Bulk("1e+308"));
  EXPECT_EQ(Run({"zincrby", "z", "1e308", "a"}), Bulk("inf"));
  EXPECT_EQ(Run({"zadd", "z", "1.7976931348623157e308", "e"}), Int(1));
  EXPECT_EQ(Run({"zscore", "z", "e"}), Bulk("1.7976931348623157e+308"));
  EXPECT_EQ(Run({"zrange", "z", "0", "-1", "withscores"}),
            Strings({"e", "1.7976931348623157e+308", "a", "inf"}));
}

TEST_P(ZSetFamilyTest, ConvertsToSkiplistPastTheEntryLimit) {
  std::vector<std::string> zadd = {"zadd", "z"};
  for (int i = 0; i < 128; ++i) {
    zadd.push_back(std::to_string(i));
    zadd.push_back("m" + std::to_string(i));
  }
  EXPECT_EQ(Run(zadd), Int(128));
  EXPECT_EQ(Run({"object", "encoding", "z"}), Bulk(Encoding()));
  EXPECT_EQ(Run({"zadd", "z", "128", "m128"}), Int(1));
  EXPECT_EQ(Run({"object", "encoding", "z"}), Bulk("skiplist"));
  EXPECT_EQ(Run({"zcard", "z"}), Int(129));
  EXPECT_EQ(Run({"zrank", "z", "m100"}), Int(100));
  EXPECT_EQ(Run({"zscore", "z", "m128"}), Bulk("128"));
  // A tree stays a tree when it shrinks again.
  EXPECT_EQ(Run({"zremrangebyrank", "z", "1", "-1"}), Int(128));
  EXPECT_EQ(Run({"object", "encoding", "z"}), Bulk("skiplist"));
}

TEST_P(ZSetFamilyTest, ZRandMemberWithoutCount) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c"}), Int(3));
  for (int i = 0; i < 20; ++i) {
    const Reply r = Run({"zrandmember", "z"});
    ASSERT_EQ(r.type, Reply::Type::kBulk) << r;
    EXPECT_TRUE(r.str == "a" || r.str == "b" || r.str == "c") << r;
  }
}

TEST_P(ZSetFamilyTest, ZRandMemberPositiveCountIsDistinct) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"}), Int(5));
  for (int i = 0; i < 20; ++i) {
    const std::vector<std::string> got = Run({"zrandmember", "z", "3"}).Strings();
    ASSERT_EQ(got.size(), 3u);
    const std::set<std::string> distinct(got.begin(), got.end());
    EXPECT_EQ(distinct.size(), 3u);
    for (const std::string& m : got) EXPECT_TRUE(m >= "a" && m <= "e") << m;
  }
}

TEST_P(ZSetFamilyTest, ZRandMemberNegativeCountMayRepeat) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b"}), Int(2));
  const std::vector<std::string> got = Run({"zrandmember", "z", "-20"}).Strings();
  ASSERT_EQ(got.size(), 20u);
  for (const std::string& m : got) EXPECT_TRUE(m == "a" || m == "b") << m;
  const std::vector<std::string> one = Run({"zrandmember", "z", "-1"}).Strings();
  ASSERT_EQ(one.size(), 1u);
}

TEST_P(ZSetFamilyTest, ZRandMemberWithScoresPairsMembersAndScores) {
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c"}), Int(3));
  for (const char* count : {"2", "-7"}) {
    const std::vector<std::string> got = Run({"zrandmember", "z", count, "withscores"}).Strings();
    ASSERT_EQ(got.size(), count[0] == '-' ? 14u : 4u);
    for (size_t i = 0; i < got.size(); i += 2) {
      EXPECT_EQ(got[i + 1], std::string(1, static_cast<char>('1' + (got[i][0] - 'a')))) << got[i];
    }
  }
}

TEST_P(ZSetFamilyTest, ZRandMemberWithScoresInResp3) {
  Run({"hello", "3"});
  EXPECT_EQ(Run({"zadd", "z", "1", "a"}), Int(1));
  EXPECT_EQ(Run({"zrandmember", "z", "1", "withscores"}), Array({Array({Bulk("a"), Double("1")})}));
  EXPECT_EQ(Run({"zrandmember", "z", "-2", "withscores"}),
            Array({Array({Bulk("a"), Double("1")}), Array({Bulk("a"), Double("1")})}));
}

using Pairs = std::vector<std::pair<std::string, std::string>>;

// A ZSCAN page's (member, score) pairs: in the order they came for a packed set, which Redis scans
// in order, sorted for a tree, which Redis scans in its hash table's order.
Pairs PagePairs(const Reply& page) {
  const std::vector<std::string> flat = page.elements.at(1).Strings();
  Pairs pairs;
  for (size_t i = 0; i + 1 < flat.size(); i += 2) pairs.emplace_back(flat[i], flat[i + 1]);
  if (ZSetFamilyTest::GetParam() == Form::kSkiplist) std::sort(pairs.begin(), pairs.end());
  return pairs;
}

TEST_P(ZSetFamilyTest, ZScanReturnsMembersAndScores) {
  EXPECT_EQ(Run({"zadd", "z", "3", "a", "2", "b", "1", "c", "2.5", "ab"}), Int(4));
  const Reply page = Run({"zscan", "z", "0"});
  ASSERT_EQ(page.elements.size(), 2u) << page;
  EXPECT_EQ(page.elements[0], Bulk("0"));
  if (GetParam() == Form::kListpack) {
    EXPECT_EQ(PagePairs(page), (Pairs{{"c", "1"}, {"b", "2"}, {"ab", "2.5"}, {"a", "3"}}));
  } else {
    EXPECT_EQ(PagePairs(page), (Pairs{{"a", "3"}, {"ab", "2.5"}, {"b", "2"}, {"c", "1"}}));
  }
}

TEST_P(ZSetFamilyTest, ZScanMatch) {
  EXPECT_EQ(Run({"zadd", "z", "3", "a", "2", "b", "1", "c", "2.5", "ab"}), Int(4));
  const Reply page = Run({"zscan", "z", "0", "match", "a*"});
  ASSERT_EQ(page.elements.size(), 2u) << page;
  EXPECT_EQ(page.elements[0], Bulk("0"));
  if (GetParam() == Form::kListpack) {
    EXPECT_EQ(PagePairs(page), (Pairs{{"ab", "2.5"}, {"a", "3"}}));
  } else {
    EXPECT_EQ(PagePairs(page), (Pairs{{"a", "3"}, {"ab", "2.5"}}));
  }
  EXPECT_EQ(Run({"zscan", "z", "0", "match", "x*"}), Array({Bulk("0"), Array({})}));
}

TEST_P(ZSetFamilyTest, ZScanWithCountVisitsEveryMember) {
  EXPECT_EQ(Run({"zadd", "z", "3", "a", "2", "b", "1", "c", "2.5", "ab"}), Int(4));
  std::set<std::pair<std::string, std::string>> seen;
  std::string cursor = "0";
  for (int pages = 0; pages < 100; ++pages) {
    const Reply page = Run({"zscan", "z", cursor, "count", "1"});
    ASSERT_EQ(page.elements.size(), 2u) << page;
    cursor = page.elements[0].str;
    for (const auto& pair : PagePairs(page)) seen.insert(pair);
    if (cursor == "0") break;
  }
  EXPECT_EQ(cursor, "0");
  EXPECT_EQ(seen, (std::set<std::pair<std::string, std::string>>{
                      {"a", "3"}, {"ab", "2.5"}, {"b", "2"}, {"c", "1"}}));
}

}  // namespace
}  // namespace ordis::server::test
