// LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LRANGE LINDEX LSET LREM LTRIM LINSERT LPOS LMOVE
// RPOPLPUSH, in-process. Every expectation was checked against redis-server 7.0.15.
#include <string>
#include <vector>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
constexpr std::string_view kNotPositive = "ERR value is out of range, must be positive";

class ListFamilyTest : public FamilyTest {};

TEST_F(ListFamilyTest, PushOrderAndLength) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"lpush", "l", "x", "y"}), Int(5));
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"y", "x", "a", "b", "c"}));
  EXPECT_EQ(Run({"llen", "l"}), Int(5));
}

TEST_F(ListFamilyTest, PushArity) {
  EXPECT_EQ(Run({"lpush", "l"}), Err("ERR wrong number of arguments for 'lpush' command"));
  EXPECT_EQ(Run({"rpush", "l"}), Err("ERR wrong number of arguments for 'rpush' command"));
  EXPECT_EQ(Run({"lpushx", "l"}), Err("ERR wrong number of arguments for 'lpushx' command"));
}

TEST_F(ListFamilyTest, PushOnStringIsWrongType) {
  EXPECT_EQ(Run({"set", "s", "v"}), Ok());
  EXPECT_EQ(Run({"lpush", "s", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"rpush", "s", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"lpushx", "s", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"rpushx", "s", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"get", "s"}), Bulk("v"));
}

TEST_F(ListFamilyTest, PushXOnlyPushesToExistingList) {
  EXPECT_EQ(Run({"lpushx", "l", "a"}), Int(0));
  EXPECT_EQ(Run({"rpushx", "l", "a"}), Int(0));
  EXPECT_EQ(Run({"exists", "l"}), Int(0));
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"lpushx", "l", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"rpushx", "l", "d"}), Int(4));
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"c", "b", "a", "d"}));
}

TEST_F(ListFamilyTest, PopSingleElementDeletesEmptyList) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"lpop", "l"}), Bulk("a"));
  EXPECT_EQ(Run({"rpop", "l"}), Bulk("c"));
  EXPECT_EQ(Run({"lpop", "l"}), Bulk("b"));
  EXPECT_EQ(Run({"exists", "l"}), Int(0));
  EXPECT_EQ(Run({"lpop", "l"}), Nil());
  EXPECT_EQ(Run({"rpop", "l"}), Nil());
}

TEST_F(ListFamilyTest, PopWithCount) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c", "d"}), Int(4));
  EXPECT_EQ(Run({"lpop", "l", "2"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"rpop", "l", "5"}), Strings({"d", "c"}));
  EXPECT_EQ(Run({"exists", "l"}), Int(0));
}

TEST_F(ListFamilyTest, PopWithCountNullsResp2) {
  EXPECT_EQ(RunRaw({"lpop", "missing", "2"}), "*-1\r\n");
  EXPECT_EQ(RunRaw({"rpop", "missing", "2"}), "*-1\r\n");
  EXPECT_EQ(RunRaw({"lpop", "missing", "0"}), "*-1\r\n");
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(RunRaw({"lpop", "l", "0"}), "*0\r\n");
  EXPECT_EQ(RunRaw({"rpop", "l", "0"}), "*0\r\n");
  EXPECT_EQ(Run({"llen", "l"}), Int(1));
}

TEST_F(ListFamilyTest, PopNullsResp3) {
  EXPECT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(RunRaw({"lpop", "missing"}), "_\r\n");
  EXPECT_EQ(RunRaw({"lpop", "missing", "2"}), "_\r\n");
  EXPECT_EQ(RunRaw({"rpop", "missing", "0"}), "_\r\n");
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(RunRaw({"lpop", "l", "0"}), "*0\r\n");
}

TEST_F(ListFamilyTest, PopCountErrors) {
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"lpop", "l", "-1"}), Err(kNotPositive));
  EXPECT_EQ(Run({"rpop", "l", "-1"}), Err(kNotPositive));
  EXPECT_EQ(Run({"lpop", "l", "x"}), Err(kNotPositive));
  EXPECT_EQ(Run({"lpop", "l", "1.5"}), Err(kNotPositive));
  EXPECT_EQ(Run({"lpop", "l", "1", "2"}), Err("ERR wrong number of arguments for 'lpop' command"));
  EXPECT_EQ(Run({"rpop", "l", "1", "2"}), Err("ERR wrong number of arguments for 'rpop' command"));
  EXPECT_EQ(Run({"llen", "l"}), Int(1));
}

TEST_F(ListFamilyTest, ReadAndWriteCommandsOnStringAreWrongType) {
  EXPECT_EQ(Run({"set", "s", "v"}), Ok());
  EXPECT_EQ(Run({"lpop", "s"}), Err(kWrongType));
  EXPECT_EQ(Run({"rpop", "s", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"llen", "s"}), Err(kWrongType));
  EXPECT_EQ(Run({"lrange", "s", "0", "-1"}), Err(kWrongType));
  EXPECT_EQ(Run({"lindex", "s", "0"}), Err(kWrongType));
  EXPECT_EQ(Run({"lset", "s", "0", "x"}), Err(kWrongType));
  EXPECT_EQ(Run({"lrem", "s", "0", "x"}), Err(kWrongType));
  EXPECT_EQ(Run({"ltrim", "s", "0", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"linsert", "s", "before", "a", "b"}), Err(kWrongType));
  EXPECT_EQ(Run({"lpos", "s", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"lmove", "s", "d", "left", "left"}), Err(kWrongType));
  EXPECT_EQ(Run({"rpoplpush", "s", "d"}), Err(kWrongType));
  EXPECT_EQ(Run({"get", "s"}), Bulk("v"));
}

TEST_F(ListFamilyTest, LLenOfMissingKeyIsZero) { EXPECT_EQ(Run({"llen", "missing"}), Int(0)); }

TEST_F(ListFamilyTest, LRangeIndexes) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c", "d", "e"}), Int(5));
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"a", "b", "c", "d", "e"}));
  EXPECT_EQ(Run({"lrange", "l", "-2", "-1"}), Strings({"d", "e"}));
  EXPECT_EQ(Run({"lrange", "l", "1", "1"}), Strings({"b"}));
  EXPECT_EQ(Run({"lrange", "l", "3", "-1"}), Strings({"d", "e"}));
  EXPECT_EQ(Run({"lrange", "l", "-100", "100"}), Strings({"a", "b", "c", "d", "e"}));
}

TEST_F(ListFamilyTest, LRangeEmptyRanges) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c", "d", "e"}), Int(5));
  EXPECT_EQ(Run({"lrange", "l", "5", "10"}), Strings({}));
  EXPECT_EQ(Run({"lrange", "l", "2", "1"}), Strings({}));
  EXPECT_EQ(Run({"lrange", "l", "-1", "-5"}), Strings({}));
  EXPECT_EQ(Run({"lrange", "missing", "0", "-1"}), Strings({}));
}

TEST_F(ListFamilyTest, LRangeErrors) {
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"lrange", "l", "0", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"lrange", "l", "x", "0"}), Err(kNotInteger));
  EXPECT_EQ(Run({"lrange", "l", "0"}), Err("ERR wrong number of arguments for 'lrange' command"));
}

TEST_F(ListFamilyTest, LIndex) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"lindex", "l", "0"}), Bulk("a"));
  EXPECT_EQ(Run({"lindex", "l", "-1"}), Bulk("c"));
  EXPECT_EQ(Run({"lindex", "l", "3"}), Nil());
  EXPECT_EQ(Run({"lindex", "l", "-4"}), Nil());
  EXPECT_EQ(Run({"lindex", "l", "x"}), Err(kNotInteger));
}

TEST_F(ListFamilyTest, LIndexOfMissingKeyIsNilBeforeIndexIsParsed) {
  EXPECT_EQ(Run({"lindex", "missing", "0"}), Nil());
  EXPECT_EQ(Run({"lindex", "missing", "x"}), Nil());
}

TEST_F(ListFamilyTest, LSet) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"lset", "l", "0", "x"}), Ok());
  EXPECT_EQ(Run({"lset", "l", "-1", "z"}), Ok());
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"x", "b", "z"}));
}

TEST_F(ListFamilyTest, LSetErrors) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"lset", "l", "3", "q"}), Err("ERR index out of range"));
  EXPECT_EQ(Run({"lset", "l", "-4", "q"}), Err("ERR index out of range"));
  EXPECT_EQ(Run({"lset", "l", "x", "q"}), Err(kNotInteger));
  EXPECT_EQ(Run({"lset", "missing", "0", "q"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"lset", "missing", "x", "q"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"a", "b", "c"}));
}

TEST_F(ListFamilyTest, LRemFromHead) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "a", "c", "a"}), Int(5));
  EXPECT_EQ(Run({"lrem", "l", "2", "a"}), Int(2));
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"b", "c", "a"}));
  EXPECT_EQ(Run({"lrem", "l", "0", "zz"}), Int(0));
}

TEST_F(ListFamilyTest, LRemFromTail) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "a", "c", "a"}), Int(5));
  EXPECT_EQ(Run({"lrem", "l", "-2", "a"}), Int(2));
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"a", "b", "c"}));
}

TEST_F(ListFamilyTest, LRemAll) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "a", "c", "a"}), Int(5));
  EXPECT_EQ(Run({"lrem", "l", "0", "a"}), Int(3));
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"b", "c"}));
}

TEST_F(ListFamilyTest, LRemMissingKeyErrorsAndEmptying) {
  EXPECT_EQ(Run({"lrem", "missing", "0", "a"}), Int(0));
  EXPECT_EQ(Run({"rpush", "m", "a", "a"}), Int(2));
  EXPECT_EQ(Run({"lrem", "m", "x", "a"}), Err(kNotInteger));
  EXPECT_EQ(Run({"lrem", "m", "0", "a"}), Int(2));
  EXPECT_EQ(Run({"exists", "m"}), Int(0));
}

TEST_F(ListFamilyTest, LTrim) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c", "d", "e"}), Int(5));
  EXPECT_EQ(Run({"ltrim", "l", "1", "-2"}), Ok());
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"b", "c", "d"}));
  EXPECT_EQ(Run({"ltrim", "l", "-2", "-1"}), Ok());
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"c", "d"}));
}

TEST_F(ListFamilyTest, LTrimToEmptyRangeDeletesKey) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"ltrim", "l", "5", "10"}), Ok());
  EXPECT_EQ(Run({"exists", "l"}), Int(0));
  EXPECT_EQ(Run({"rpush", "m", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"ltrim", "m", "2", "1"}), Ok());
  EXPECT_EQ(Run({"exists", "m"}), Int(0));
  EXPECT_EQ(Run({"ltrim", "missing", "0", "1"}), Ok());
}

TEST_F(ListFamilyTest, LTrimErrors) {
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"ltrim", "l", "x", "1"}), Err(kNotInteger));
  EXPECT_EQ(Run({"ltrim", "l", "0", "y"}), Err(kNotInteger));
  EXPECT_EQ(Run({"ltrim", "l", "0"}), Err("ERR wrong number of arguments for 'ltrim' command"));
}

TEST_F(ListFamilyTest, LInsertBeforeAndAfter) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"linsert", "l", "before", "b", "x"}), Int(4));
  EXPECT_EQ(Run({"linsert", "l", "AFTER", "c", "y"}), Int(5));
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"a", "x", "b", "c", "y"}));
}

TEST_F(ListFamilyTest, LInsertMissingPivotKeyAndSyntax) {
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"linsert", "l", "before", "zz", "q"}), Int(-1));
  EXPECT_EQ(Run({"linsert", "missing", "before", "a", "b"}), Int(0));
  EXPECT_EQ(Run({"exists", "missing"}), Int(0));
  EXPECT_EQ(Run({"linsert", "l", "middle", "a", "b"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"linsert", "missing", "middle", "a", "b"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"linsert", "l", "before", "a"}),
            Err("ERR wrong number of arguments for 'linsert' command"));
}

TEST_F(ListFamilyTest, LPosFirstMatch) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c", "a", "b", "c", "a"}), Int(7));
  EXPECT_EQ(Run({"lpos", "l", "a"}), Int(0));
  EXPECT_EQ(Run({"lpos", "l", "b"}), Int(1));
  EXPECT_EQ(Run({"lpos", "l", "zz"}), Nil());
  EXPECT_EQ(Run({"lpos", "missing", "a"}), Nil());
  EXPECT_EQ(Run({"lpos", "missing", "a", "count", "1"}), Array({}));
}

TEST_F(ListFamilyTest, LPosRank) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c", "a", "b", "c", "a"}), Int(7));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "2"}), Int(3));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "-1"}), Int(6));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "-2"}), Int(3));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "4"}), Nil());
}

TEST_F(ListFamilyTest, LPosCount) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c", "a", "b", "c", "a"}), Int(7));
  EXPECT_EQ(Run({"lpos", "l", "a", "count", "0"}), Array({Int(0), Int(3), Int(6)}));
  EXPECT_EQ(Run({"lpos", "l", "a", "count", "2"}), Array({Int(0), Int(3)}));
  EXPECT_EQ(Run({"lpos", "l", "a", "count", "2", "rank", "2"}), Array({Int(3), Int(6)}));
  EXPECT_EQ(Run({"lpos", "l", "a", "count", "0", "rank", "-1"}), Array({Int(6), Int(3), Int(0)}));
  EXPECT_EQ(Run({"lpos", "l", "zz", "count", "0"}), Array({}));
}

TEST_F(ListFamilyTest, LPosMaxLen) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c", "a", "b", "c", "a"}), Int(7));
  EXPECT_EQ(Run({"lpos", "l", "a", "count", "0", "maxlen", "4"}), Array({Int(0), Int(3)}));
  EXPECT_EQ(Run({"lpos", "l", "a", "count", "2", "maxlen", "3"}), Array({Int(0)}));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "-1", "maxlen", "2"}), Int(6));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "-1", "count", "0", "maxlen", "1"}), Array({Int(6)}));
  EXPECT_EQ(Run({"lpos", "l", "a", "RANK", "1", "COUNT", "1", "MAXLEN", "0"}), Array({Int(0)}));
}

TEST_F(ListFamilyTest, LPosErrors) {
  const std::string rank_zero =
      "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use "
      "negative to start from the end of the list";
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "0"}), Err(rank_zero));
  EXPECT_EQ(Run({"lpos", "missing", "a", "rank", "0"}), Err(rank_zero));
  EXPECT_EQ(Run({"lpos", "l", "a", "count", "-1"}), Err("ERR COUNT can't be negative"));
  EXPECT_EQ(Run({"lpos", "l", "a", "maxlen", "-1"}), Err("ERR MAXLEN can't be negative"));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"lpos", "l", "a", "count", "x"}), Err("ERR COUNT can't be negative"));
  EXPECT_EQ(Run({"lpos", "l", "a", "maxlen", "x"}), Err("ERR MAXLEN can't be negative"));
  EXPECT_EQ(Run({"lpos", "l", "a", "foo", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lpos", "l"}), Err("ERR wrong number of arguments for 'lpos' command"));
}

TEST_F(ListFamilyTest, LPosExtremeRankAndCount) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "a"}), Int(3));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "-9223372036854775808"}), Int(2));
  EXPECT_EQ(Run({"lpos", "l", "a", "rank", "9223372036854775807"}), Nil());
  EXPECT_EQ(Run({"lpos", "l", "a", "count", "9223372036854775807"}), Array({Int(0), Int(2)}));
}

TEST_F(ListFamilyTest, ExtremeIndexes) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "a"}), Int(3));
  EXPECT_EQ(Run({"lrange", "l", "9223372036854775807", "-9223372036854775808"}), Strings({}));
  EXPECT_EQ(Run({"lrange", "l", "-9223372036854775808", "9223372036854775807"}),
            Strings({"a", "b", "a"}));
  EXPECT_EQ(Run({"lindex", "l", "9223372036854775807"}), Nil());
  EXPECT_EQ(Run({"lindex", "l", "-9223372036854775808"}), Nil());
  EXPECT_EQ(Run({"lindex", "l", "99999999999999999999"}), Err(kNotInteger));
  EXPECT_EQ(Run({"ltrim", "l", "-9223372036854775808", "9223372036854775807"}), Ok());
  EXPECT_EQ(Run({"lrem", "l", "-9223372036854775808", "a"}), Int(2));
  EXPECT_EQ(Run({"lpop", "l", "9223372036854775807"}), Strings({"b"}));
}

TEST_F(ListFamilyTest, LMoveDirections) {
  EXPECT_EQ(Run({"rpush", "a", "1", "2", "3"}), Int(3));
  EXPECT_EQ(Run({"rpush", "b", "x", "y"}), Int(2));
  EXPECT_EQ(Run({"lmove", "a", "b", "left", "left"}), Bulk("1"));
  EXPECT_EQ(Run({"lmove", "a", "b", "right", "right"}), Bulk("3"));
  EXPECT_EQ(Run({"lrange", "a", "0", "-1"}), Strings({"2"}));
  EXPECT_EQ(Run({"lrange", "b", "0", "-1"}), Strings({"1", "x", "y", "3"}));
  EXPECT_EQ(Run({"lmove", "b", "a", "left", "right"}), Bulk("1"));
  EXPECT_EQ(Run({"lmove", "b", "a", "right", "left"}), Bulk("3"));
  EXPECT_EQ(Run({"lrange", "a", "0", "-1"}), Strings({"3", "2", "1"}));
  EXPECT_EQ(Run({"lrange", "b", "0", "-1"}), Strings({"x", "y"}));
}

TEST_F(ListFamilyTest, LMoveSameKeyRotates) {
  EXPECT_EQ(Run({"rpush", "a", "1", "2", "3"}), Int(3));
  EXPECT_EQ(Run({"lmove", "a", "a", "left", "right"}), Bulk("1"));
  EXPECT_EQ(Run({"lrange", "a", "0", "-1"}), Strings({"2", "3", "1"}));
  EXPECT_EQ(Run({"lmove", "a", "a", "right", "left"}), Bulk("1"));
  EXPECT_EQ(Run({"lrange", "a", "0", "-1"}), Strings({"1", "2", "3"}));
}

TEST_F(ListFamilyTest, LMoveLastElementDeletesSourceAndCreatesDestination) {
  EXPECT_EQ(Run({"rpush", "c", "1"}), Int(1));
  EXPECT_EQ(Run({"lmove", "c", "new", "LEFT", "Right"}), Bulk("1"));
  EXPECT_EQ(Run({"exists", "c"}), Int(0));
  EXPECT_EQ(Run({"lrange", "new", "0", "-1"}), Strings({"1"}));
  EXPECT_EQ(Run({"lmove", "missing", "new", "left", "left"}), Nil());
}

TEST_F(ListFamilyTest, LMoveSyntaxErrors) {
  EXPECT_EQ(Run({"rpush", "a", "1"}), Int(1));
  EXPECT_EQ(Run({"lmove", "a", "b", "up", "left"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lmove", "a", "b", "left", "down"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lmove", "missing", "b", "up", "left"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lmove", "a", "b", "left"}),
            Err("ERR wrong number of arguments for 'lmove' command"));
  EXPECT_EQ(Run({"llen", "a"}), Int(1));
}

TEST_F(ListFamilyTest, MoveToWrongTypeDestinationPopsNothing) {
  EXPECT_EQ(Run({"rpush", "a", "1", "2"}), Int(2));
  EXPECT_EQ(Run({"set", "s", "v"}), Ok());
  EXPECT_EQ(Run({"lmove", "a", "s", "left", "left"}), Err(kWrongType));
  EXPECT_EQ(Run({"rpoplpush", "a", "s"}), Err(kWrongType));
  EXPECT_EQ(Run({"lrange", "a", "0", "-1"}), Strings({"1", "2"}));
  EXPECT_EQ(Run({"lmove", "missing", "s", "left", "left"}), Nil());
  EXPECT_EQ(Run({"rpoplpush", "missing", "s"}), Nil());
}

TEST_F(ListFamilyTest, RPopLPush) {
  EXPECT_EQ(Run({"rpush", "a", "1", "2", "3"}), Int(3));
  EXPECT_EQ(Run({"rpoplpush", "a", "b"}), Bulk("3"));
  EXPECT_EQ(Run({"rpoplpush", "a", "b"}), Bulk("2"));
  EXPECT_EQ(Run({"lrange", "a", "0", "-1"}), Strings({"1"}));
  EXPECT_EQ(Run({"lrange", "b", "0", "-1"}), Strings({"2", "3"}));
  EXPECT_EQ(Run({"rpoplpush", "a", "b"}), Bulk("1"));
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
  EXPECT_EQ(Run({"rpoplpush", "a", "b"}), Nil());
  EXPECT_EQ(Run({"rpoplpush", "a"}), Err("ERR wrong number of arguments for 'rpoplpush' command"));
}

TEST_F(ListFamilyTest, RPopLPushSameKeyRotates) {
  EXPECT_EQ(Run({"rpush", "b", "2", "3"}), Int(2));
  EXPECT_EQ(Run({"rpoplpush", "b", "b"}), Bulk("3"));
  EXPECT_EQ(Run({"lrange", "b", "0", "-1"}), Strings({"3", "2"}));
}

TEST_F(ListFamilyTest, BinaryElements) {
  const std::string nul("a\0b", 3);
  EXPECT_EQ(Run({"rpush", "l", "", nul, "\r\n"}), Int(3));
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"", nul, "\r\n"}));
  EXPECT_EQ(Run({"lpos", "l", nul}), Int(1));
  EXPECT_EQ(Run({"lpos", "l", "a"}), Nil());
  EXPECT_EQ(Run({"lindex", "l", "0"}), Bulk(""));
}

TEST_F(ListFamilyTest, TypeEncodingAndTtlKeptOnWrites) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"type", "l"}), Status("list"));
  EXPECT_EQ(Run({"object", "encoding", "l"}), Bulk("quicklist"));
  EXPECT_EQ(Run({"expire", "l", "100"}), Int(1));
  EXPECT_EQ(Run({"rpush", "l", "c"}), Int(3));
  EXPECT_EQ(Run({"lpop", "l"}), Bulk("a"));
  EXPECT_EQ(Run({"ttl", "l"}), Int(100));
}

TEST_F(ListFamilyTest, PushByAnotherClientAbortsExec) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b"}), Int(2));
  EXPECT_EQ(WatchedExec("l", {"lpush", "l", "x"}), NilArray());
}

TEST_F(ListFamilyTest, LTrimOfWholeListStillAbortsExec) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b"}), Int(2));
  EXPECT_EQ(WatchedExec("l", {"ltrim", "l", "0", "-1"}), NilArray());
}

TEST_F(ListFamilyTest, NoOpLRemDoesNotAbortExec) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b"}), Int(2));
  EXPECT_EQ(WatchedExec("l", {"lrem", "l", "0", "zz"}), Array({Status("PONG")}));
}

TEST_F(ListFamilyTest, PopOfZeroDoesNotAbortExec) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b"}), Int(2));
  EXPECT_EQ(WatchedExec("l", {"lpop", "l", "0"}), Array({Status("PONG")}));
}

}  // namespace
}  // namespace ordis::server::test
