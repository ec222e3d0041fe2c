// ZUNION ZINTER ZDIFF ZUNIONSTORE ZINTERSTORE ZDIFFSTORE ZINTERCARD, in-process. Every expectation
// was first checked against redis-server 7.0.15. Each test runs on both forms of a sorted set: the
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

class ZSetAlgebraFamilyTest : public FamilyTest, public ::testing::WithParamInterface<Form> {
 protected:
  ZSetAlgebraFamilyTest()
      : FamilyTest({{"zset-max-listpack-entries", GetParam() == Form::kListpack ? "128" : "0"}}) {}

  // What OBJECT ENCODING says of a small set in this form.
  static std::string Encoding() { return GetParam() == Form::kListpack ? "listpack" : "skiplist"; }

  // ZADD key from m<from> ... (to-1) m<to-1>, members written with 3 digits.
  static std::vector<std::string> ZAddRange(const std::string& key, int from, int to) {
    std::vector<std::string> args = {"zadd", key};
    for (int i = from; i < to; ++i) {
      char member[16];
      snprintf(member, sizeof member, "m%03d", i);
      args.push_back(std::to_string(i));
      args.push_back(member);
    }
    return args;
  }
};

INSTANTIATE_TEST_SUITE_P(, ZSetAlgebraFamilyTest,
                         ::testing::Values(Form::kListpack, Form::kSkiplist),
                         [](const ::testing::TestParamInfo<Form>& info) {
                           return info.param == Form::kListpack ? "listpack" : "skiplist";
                         });

const char kWrongType[] = "WRONGTYPE Operation against a key holding the wrong kind of value";

TEST_P(ZSetAlgebraFamilyTest, ZUnion) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"zadd", "b", "10", "y", "20", "z", "30", "w"}), Int(3));
  EXPECT_EQ(Run({"zunion", "2", "a", "b"}), Strings({"x", "y", "z", "w"}));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "withscores"}),
            Strings({"x", "1", "y", "12", "z", "23", "w", "30"}));
  EXPECT_EQ(Run({"zunion", "1", "a"}), Strings({"x", "y", "z"}));
  EXPECT_EQ(Run({"zunion", "3", "a", "missing", "b", "withscores"}),
            Strings({"x", "1", "y", "12", "z", "23", "w", "30"}));
  EXPECT_EQ(Run({"zunion", "1", "missing"}), Array({}));
}

TEST_P(ZSetAlgebraFamilyTest, ZUnionWeightsAndAggregate) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"zadd", "b", "10", "y", "20", "z", "30", "w"}), Int(3));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "weights", "2", "0.5", "withscores"}),
            Strings({"x", "2", "y", "9", "w", "15", "z", "16"}));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "aggregate", "min", "withscores"}),
            Strings({"x", "1", "y", "2", "z", "3", "w", "30"}));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "aggregate", "max", "withscores"}),
            Strings({"x", "1", "y", "10", "z", "20", "w", "30"}));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "aggregate", "sum", "withscores"}),
            Strings({"x", "1", "y", "12", "z", "23", "w", "30"}));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "weights", "1", "-1", "aggregate", "MAX", "withscores"}),
            Strings({"w", "-30", "x", "1", "y", "2", "z", "3"}));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "AGGREGATE", "min", "WEIGHTS", "3", "1", "WITHSCORES"}),
            Strings({"x", "3", "y", "6", "z", "9", "w", "30"}));
}

TEST_P(ZSetAlgebraFamilyTest, ZUnionInResp3) {
  Run({"hello", "3"});
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"zadd", "b", "10", "y", "20", "z", "30", "w"}), Int(3));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "withscores"}),
            Array({Array({Bulk("x"), Double("1")}), Array({Bulk("y"), Double("12")}),
                   Array({Bulk("z"), Double("23")}), Array({Bulk("w"), Double("30")})}));
  EXPECT_EQ(Run({"zunion", "2", "a", "b"}), Strings({"x", "y", "z", "w"}));
}

TEST_P(ZSetAlgebraFamilyTest, ZInter) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"zadd", "b", "10", "y", "20", "z", "30", "w"}), Int(3));
  EXPECT_EQ(Run({"zinter", "2", "a", "b"}), Strings({"y", "z"}));
  EXPECT_EQ(Run({"zinter", "2", "a", "b", "withscores"}), Strings({"y", "12", "z", "23"}));
  EXPECT_EQ(Run({"zinter", "2", "a", "b", "weights", "2", "1", "aggregate", "max", "withscores"}),
            Strings({"y", "10", "z", "20"}));
  EXPECT_EQ(Run({"zinter", "2", "a", "b", "aggregate", "min", "withscores"}),
            Strings({"y", "2", "z", "3"}));
  EXPECT_EQ(Run({"zinter", "2", "a", "missing"}), Array({}));
  EXPECT_EQ(Run({"zinter", "1", "a", "withscores"}), Strings({"x", "1", "y", "2", "z", "3"}));
}

TEST_P(ZSetAlgebraFamilyTest, ZDiff) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"zadd", "b", "10", "y", "20", "z", "30", "w"}), Int(3));
  EXPECT_EQ(Run({"zdiff", "2", "a", "b"}), Strings({"x"}));
  EXPECT_EQ(Run({"zdiff", "2", "a", "b", "withscores"}), Strings({"x", "1"}));
  EXPECT_EQ(Run({"zdiff", "2", "b", "a", "withscores"}), Strings({"w", "30"}));
  EXPECT_EQ(Run({"zdiff", "1", "a"}), Strings({"x", "y", "z"}));
  EXPECT_EQ(Run({"zdiff", "2", "a", "missing"}), Strings({"x", "y", "z"}));
  EXPECT_EQ(Run({"zdiff", "2", "missing", "a"}), Array({}));
  EXPECT_EQ(Run({"zdiff", "3", "a", "b", "a"}), Array({}));
}

TEST_P(ZSetAlgebraFamilyTest, PlainSetsScoreOne) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"sadd", "s", "y", "w", "v"}), Int(3));
  EXPECT_EQ(Run({"zunion", "2", "a", "s", "withscores"}),
            Strings({"v", "1", "w", "1", "x", "1", "y", "3", "z", "3"}));
  EXPECT_EQ(Run({"zinter", "2", "a", "s", "withscores"}), Strings({"y", "3"}));
  EXPECT_EQ(Run({"zinter", "2", "s", "a", "weights", "5", "1", "withscores"}), Strings({"y", "7"}));
  EXPECT_EQ(Run({"zdiff", "2", "s", "a", "withscores"}), Strings({"v", "1", "w", "1"}));
  EXPECT_EQ(Run({"zdiff", "2", "a", "s"}), Strings({"x", "z"}));
  EXPECT_EQ(Run({"zintercard", "2", "a", "s"}), Int(1));
  EXPECT_EQ(Run({"zunionstore", "dst", "1", "s"}), Int(3));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1", "withscores"}),
            Strings({"v", "1", "w", "1", "y", "1"}));
  EXPECT_EQ(Run({"type", "dst"}), Status("zset"));
}

TEST_P(ZSetAlgebraFamilyTest, InfinitiesAndSums) {
  EXPECT_EQ(Run({"zadd", "a", "inf", "x", "-inf", "y", "1", "z"}), Int(3));
  EXPECT_EQ(Run({"zadd", "b", "-inf", "x", "-inf", "y", "inf", "z"}), Int(3));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "withscores"}),
            Strings({"y", "-inf", "x", "0", "z", "inf"}));
  EXPECT_EQ(Run({"zinter", "2", "a", "b", "withscores"}),
            Strings({"y", "-inf", "x", "0", "z", "inf"}));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "weights", "0", "1", "withscores"}),
            Strings({"x", "-inf", "y", "-inf", "z", "inf"}));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "aggregate", "max", "withscores"}),
            Strings({"y", "-inf", "x", "inf", "z", "inf"}));
}

TEST_P(ZSetAlgebraFamilyTest, EqualScoresOrderByMember) {
  EXPECT_EQ(Run({"zadd", "a", "1", "c", "1", "a"}), Int(2));
  EXPECT_EQ(Run({"zadd", "b", "1", "b", "0", "a"}), Int(2));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "withscores"}), Strings({"a", "1", "b", "1", "c", "1"}));
  EXPECT_EQ(Run({"zunion", "2", "a", "b", "aggregate", "min", "withscores"}),
            Strings({"a", "0", "b", "1", "c", "1"}));
}

TEST_P(ZSetAlgebraFamilyTest, ZUnionInterDiffErrors) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"set", "str", "v"}), Ok());
  EXPECT_EQ(Run({"zunion", "0", "a"}),
            Err("ERR at least 1 input key is needed for 'zunion' command"));
  EXPECT_EQ(Run({"zinter", "0", "a"}),
            Err("ERR at least 1 input key is needed for 'zinter' command"));
  EXPECT_EQ(Run({"zdiff", "0", "a"}),
            Err("ERR at least 1 input key is needed for 'zdiff' command"));
  EXPECT_EQ(Run({"zunion", "-1", "a"}),
            Err("ERR at least 1 input key is needed for 'zunion' command"));
  EXPECT_EQ(Run({"zunion", "x", "a"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zunion", "3", "a", "b"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunion", "2", "a", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"zinter", "2", "str", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"zdiff", "2", "a", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"zunion", "1", "a", "weights"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunion", "1", "a", "weights", "x"}), Err("ERR weight value is not a float"));
  EXPECT_EQ(Run({"zunion", "2", "a", "a", "weights", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunion", "1", "a", "weights", "1", "2"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunion", "1", "a", "aggregate"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunion", "1", "a", "aggregate", "avg"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunion", "1", "a", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zdiff", "1", "a", "weights", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zdiff", "1", "a", "aggregate", "sum"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunion", "1", "a", "withscores", "withscores"}),
            Strings({"x", "1", "y", "2", "z", "3"}));
  EXPECT_EQ(Run({"zunion", "1"}), Err("ERR wrong number of arguments for 'zunion' command"));
  EXPECT_EQ(Run({"zdiff", "1"}), Err("ERR wrong number of arguments for 'zdiff' command"));
}

TEST_P(ZSetAlgebraFamilyTest, WrongTypeComesBeforeOptionErrors) {
  EXPECT_EQ(Run({"set", "str", "v"}), Ok());
  EXPECT_EQ(Run({"zunion", "1", "str", "foo"}), Err(kWrongType));
  EXPECT_EQ(Run({"zinter", "1", "missing", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunionstore", "dst", "1", "str", "foo"}), Err(kWrongType));
}

TEST_P(ZSetAlgebraFamilyTest, ZUnionStore) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"zadd", "b", "10", "y", "20", "z", "30", "w"}), Int(3));
  EXPECT_EQ(Run({"zunionstore", "dst", "2", "a", "b"}), Int(4));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1", "withscores"}),
            Strings({"x", "1", "y", "12", "z", "23", "w", "30"}));
  EXPECT_EQ(Run({"zunionstore", "dst", "2", "a", "b", "weights", "1", "2", "aggregate", "max"}),
            Int(4));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1", "withscores"}),
            Strings({"x", "1", "y", "20", "z", "40", "w", "60"}));
  EXPECT_EQ(Run({"zunionstore", "a", "2", "a", "b"}), Int(4));
  EXPECT_EQ(Run({"zrange", "a", "0", "-1", "withscores"}),
            Strings({"x", "1", "y", "12", "z", "23", "w", "30"}));
}

TEST_P(ZSetAlgebraFamilyTest, ZInterStore) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"zadd", "b", "10", "y", "20", "z", "30", "w"}), Int(3));
  EXPECT_EQ(Run({"zinterstore", "dst", "2", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1", "withscores"}), Strings({"y", "12", "z", "23"}));
  EXPECT_EQ(Run({"zinterstore", "dst", "2", "a", "b", "aggregate", "min", "weights", "1", "1"}),
            Int(2));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1", "withscores"}), Strings({"y", "2", "z", "3"}));
  EXPECT_EQ(Run({"zinterstore", "dst", "2", "a", "missing"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
}

TEST_P(ZSetAlgebraFamilyTest, ZDiffStore) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"zadd", "b", "10", "y", "20", "z", "30", "w"}), Int(3));
  EXPECT_EQ(Run({"zdiffstore", "dst", "2", "a", "b"}), Int(1));
  EXPECT_EQ(Run({"zrange", "dst", "0", "-1", "withscores"}), Strings({"x", "1"}));
  EXPECT_EQ(Run({"zdiffstore", "dst", "2", "a", "a"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
  EXPECT_EQ(Run({"zdiffstore", "b", "2", "b", "a"}), Int(1));
  EXPECT_EQ(Run({"zrange", "b", "0", "-1", "withscores"}), Strings({"w", "30"}));
}

TEST_P(ZSetAlgebraFamilyTest, StoreReplacesDestination) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"set", "dst", "v"}), Ok());
  EXPECT_EQ(Run({"expire", "dst", "100"}), Int(1));
  EXPECT_EQ(Run({"zunionstore", "dst", "1", "a"}), Int(3));
  EXPECT_EQ(Run({"ttl", "dst"}), Int(-1));
  EXPECT_EQ(Run({"type", "dst"}), Status("zset"));
  EXPECT_EQ(Run({"object", "encoding", "dst"}), Bulk(Encoding()));
  EXPECT_EQ(Run({"set", "dst2", "v"}), Ok());
  EXPECT_EQ(Run({"zinterstore", "dst2", "2", "a", "missing"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst2"}), Int(0));
}

TEST_P(ZSetAlgebraFamilyTest, StoreErrors) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"set", "str", "v"}), Ok());
  EXPECT_EQ(Run({"zunionstore", "dst", "0", "a"}),
            Err("ERR at least 1 input key is needed for 'zunionstore' command"));
  EXPECT_EQ(Run({"zinterstore", "dst", "0", "a"}),
            Err("ERR at least 1 input key is needed for 'zinterstore' command"));
  EXPECT_EQ(Run({"zdiffstore", "dst", "0", "a"}),
            Err("ERR at least 1 input key is needed for 'zdiffstore' command"));
  EXPECT_EQ(Run({"zunionstore", "dst", "2", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunionstore", "dst", "1", "a", "withscores"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zinterstore", "dst", "1", "a", "withscores"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zdiffstore", "dst", "1", "a", "withscores"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zdiffstore", "dst", "1", "a", "weights", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zunionstore", "dst", "1", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"zunionstore", "dst", "x", "a"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zunionstore", "dst", "1", "a", "weights", "nan"}),
            Err("ERR weight value is not a float"));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
  EXPECT_EQ(Run({"zunionstore", "dst"}),
            Err("ERR wrong number of arguments for 'zunionstore' command"));
  EXPECT_EQ(Run({"zdiffstore", "dst", "1"}),
            Err("ERR wrong number of arguments for 'zdiffstore' command"));
}

TEST_P(ZSetAlgebraFamilyTest, ZInterCard) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"zadd", "b", "10", "y", "20", "z", "30", "w"}), Int(3));
  EXPECT_EQ(Run({"zintercard", "2", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"zintercard", "1", "a"}), Int(3));
  EXPECT_EQ(Run({"zintercard", "2", "a", "b", "limit", "1"}), Int(1));
  EXPECT_EQ(Run({"zintercard", "2", "a", "b", "limit", "0"}), Int(2));
  EXPECT_EQ(Run({"zintercard", "2", "a", "b", "limit", "10"}), Int(2));
  EXPECT_EQ(Run({"zintercard", "2", "a", "missing"}), Int(0));
  EXPECT_EQ(Run({"zintercard", "1", "missing"}), Int(0));
  EXPECT_EQ(Run({"zintercard", "2", "a", "a", "LIMIT", "2"}), Int(2));
}

TEST_P(ZSetAlgebraFamilyTest, ZInterCardErrors) {
  EXPECT_EQ(Run({"zadd", "a", "1", "x", "2", "y", "3", "z"}), Int(3));
  EXPECT_EQ(Run({"set", "str", "v"}), Ok());
  EXPECT_EQ(Run({"zintercard", "0", "a"}),
            Err("ERR at least 1 input key is needed for 'zintercard' command"));
  EXPECT_EQ(Run({"zintercard", "-1", "a"}),
            Err("ERR at least 1 input key is needed for 'zintercard' command"));
  EXPECT_EQ(Run({"zintercard", "x", "a"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"zintercard", "2", "a"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zintercard", "1", "a", "limit", "-1"}), Err("ERR LIMIT can't be negative"));
  EXPECT_EQ(Run({"zintercard", "1", "a", "limit", "x"}), Err("ERR LIMIT can't be negative"));
  EXPECT_EQ(Run({"zintercard", "1", "a", "limit"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zintercard", "1", "a", "withscores"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zintercard", "1", "a", "weights", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zintercard", "1", "a", "aggregate", "sum"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zintercard", "1", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"zintercard", "1"}),
            Err("ERR wrong number of arguments for 'zintercard' command"));
}

TEST_P(ZSetAlgebraFamilyTest, AlgebraOverLargeSets) {
  EXPECT_EQ(Run(ZAddRange("big", 0, 200)), Int(200));
  EXPECT_EQ(Run(ZAddRange("big2", 150, 300)), Int(150));
  EXPECT_EQ(Run({"zintercard", "2", "big", "big2"}), Int(50));
  EXPECT_EQ(Run({"zinterstore", "dst", "2", "big", "big2", "aggregate", "max"}), Int(50));
  EXPECT_EQ(Run({"zrange", "dst", "0", "0", "withscores"}), Strings({"m150", "150"}));
  EXPECT_EQ(Run({"zrange", "dst", "-1", "-1", "withscores"}), Strings({"m199", "199"}));
  EXPECT_EQ(Run({"zunionstore", "dst", "2", "big", "big2"}), Int(300));
  EXPECT_EQ(Run({"object", "encoding", "dst"}), Bulk("skiplist"));
  EXPECT_EQ(Run({"zrange", "dst", "148", "152", "withscores"}),
            Strings({"m148", "148", "m149", "149", "m200", "200", "m201", "201", "m202", "202"}));
  EXPECT_EQ(Run({"zdiffstore", "dst", "2", "big", "big2"}), Int(150));
  EXPECT_EQ(Run({"zcard", "dst"}), Int(150));
  EXPECT_EQ(Run({"zinterstore", "dst", "2", "big", "big2"}), Int(50));
  EXPECT_EQ(Run({"object", "encoding", "dst"}), Bulk(Encoding()));
  EXPECT_EQ(Run({"zrange", "dst", "0", "1", "withscores"}),
            Strings({"m150", "300", "m151", "302"}));
}

TEST_P(ZSetAlgebraFamilyTest, InfiniteWeights) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"zadd", "z", "0", "a"}), Int(1));
  EXPECT_EQ(Run({"zunion", "2", "s", "z", "weights", "inf", "1", "withscores"}),
            Strings({"a", "inf", "b", "inf"}));
  EXPECT_EQ(Run({"zinter", "2", "z", "s", "weights", "1", "-inf", "withscores"}),
            Strings({"a", "-inf"}));
  EXPECT_EQ(Run({"zunion", "2", "z", "z", "weights", "inf", "0", "withscores"}),
            Strings({"a", "0"}));
  EXPECT_EQ(
      Run({"zinter", "2", "s", "z", "aggregate", "min", "weights", "inf", "-inf", "withscores"}),
      Strings({"a", "0"}));
}

}  // namespace
}  // namespace ordis::server::test
