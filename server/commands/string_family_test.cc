// GET SET SETNX SETEX PSETEX GETSET GETDEL GETEX MGET MSET MSETNX APPEND STRLEN INCR DECR INCRBY
// DECRBY INCRBYFLOAT GETRANGE SUBSTR SETRANGE LCS, in-process. Every expectation was first checked
// against redis-server 7.0.15.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class StringFamilyTest : public FamilyTest {};

constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
constexpr std::string_view kNotFloat = "ERR value is not a valid float";

// --- GET / SET ---

TEST_F(StringFamilyTest, GetMissingIsNil) { EXPECT_EQ(Run({"get", "k"}), Nil()); }

TEST_F(StringFamilyTest, SetThenGet) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"set", "k", "v2"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("v2"));
}

TEST_F(StringFamilyTest, SetIsBinarySafe) {
  const std::string value("a\0b", 3);
  EXPECT_EQ(Run({"set", "b", value}), Ok());
  EXPECT_EQ(Run({"strlen", "b"}), Int(3));
  EXPECT_EQ(Run({"get", "b"}), Bulk(value));
  EXPECT_EQ(Run({"getrange", "b", "1", "1"}), Bulk(std::string("\0", 1)));
  EXPECT_EQ(Run({"append", "b", std::string("\0", 1)}), Int(4));
}

TEST_F(StringFamilyTest, GetWrongType) {
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"get", "l"}), Err(kWrongType));
}

TEST_F(StringFamilyTest, SetOverwritesOtherTypes) {
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"set", "l", "v"}), Ok());
  EXPECT_EQ(Run({"type", "l"}), Status("string"));
}

TEST_F(StringFamilyTest, SetNx) {
  EXPECT_EQ(Run({"set", "k", "v", "nx"}), Ok());
  EXPECT_EQ(Run({"set", "k", "v2", "NX"}), Nil());
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
}

TEST_F(StringFamilyTest, SetXx) {
  EXPECT_EQ(Run({"set", "k", "v", "xx"}), Nil());
  EXPECT_EQ(Run({"get", "k"}), Nil());
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"set", "k", "v2", "XX"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("v2"));
}

TEST_F(StringFamilyTest, SetGetReturnsOldValue) {
  EXPECT_EQ(Run({"set", "k", "v", "get"}), Nil());
  EXPECT_EQ(Run({"set", "k", "v2", "GET"}), Bulk("v"));
  EXPECT_EQ(Run({"get", "k"}), Bulk("v2"));
}

TEST_F(StringFamilyTest, SetGetWithNxAndXx) {
  EXPECT_EQ(Run({"set", "k", "v", "nx", "get"}), Nil());
  EXPECT_EQ(Run({"set", "k", "v2", "get", "nx"}), Bulk("v"));  // not written
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"set", "k", "v3", "get", "xx"}), Bulk("v"));
  EXPECT_EQ(Run({"get", "k"}), Bulk("v3"));
  EXPECT_EQ(Run({"set", "nk", "1", "get", "xx"}), Nil());
  EXPECT_EQ(Run({"exists", "nk"}), Int(0));
}

TEST_F(StringFamilyTest, SetGetWrongType) {
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"set", "l", "v", "get"}), Err(kWrongType));
  EXPECT_EQ(Run({"set", "l", "v", "nx", "get"}), Err(kWrongType));
  EXPECT_EQ(Run({"set", "l", "v", "xx", "get"}), Err(kWrongType));
  EXPECT_EQ(Run({"type", "l"}), Status("list"));
}

TEST_F(StringFamilyTest, SetExAndPx) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
  EXPECT_EQ(Run({"set", "p", "v", "PX", "100000"}), Ok());
  EXPECT_EQ(Run({"ttl", "p"}), Int(100));
}

TEST_F(StringFamilyTest, SetExatAndPxat) {
  EXPECT_EQ(Run({"set", "k", "v", "exat", "4102444800"}), Ok());
  EXPECT_EQ(Run({"expiretime", "k"}), Int(4102444800));
  EXPECT_EQ(Run({"set", "k", "v", "pxat", "4102444800123"}), Ok());
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(4102444800123));
}

TEST_F(StringFamilyTest, SetAbsoluteTimeInThePastDeletes) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"set", "k", "v", "pxat", "1"}), Ok());
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"set", "k", "w", "exat", "1", "get"}), Bulk("v"));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
}

TEST_F(StringFamilyTest, SetWithoutTtlOptionClearsTtl) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"set", "k", "v2"}), Ok());
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
}

TEST_F(StringFamilyTest, SetKeepTtl) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"set", "k", "v2", "keepttl"}), Ok());
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
  EXPECT_EQ(Run({"get", "k"}), Bulk("v2"));
  EXPECT_EQ(Run({"set", "n", "v", "KEEPTTL"}), Ok());
  EXPECT_EQ(Run({"ttl", "n"}), Int(-1));
}

TEST_F(StringFamilyTest, SetNxWithEx) {
  EXPECT_EQ(Run({"set", "k", "v", "EX", "100", "NX"}), Ok());
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
  EXPECT_EQ(Run({"set", "k", "v", "Ex", "100", "Nx"}), Nil());
}

TEST_F(StringFamilyTest, SetSyntaxErrors) {
  const Reply syntax = Err("ERR syntax error");
  EXPECT_EQ(Run({"set", "k", "v", "nx", "xx"}), syntax);
  EXPECT_EQ(Run({"set", "k", "v", "xx", "nx"}), syntax);
  EXPECT_EQ(Run({"set", "k", "v", "ex", "10", "px", "100"}), syntax);
  EXPECT_EQ(Run({"set", "k", "v", "px", "100", "ex", "10"}), syntax);
  EXPECT_EQ(Run({"set", "k", "v", "keepttl", "ex", "10"}), syntax);
  EXPECT_EQ(Run({"set", "k", "v", "ex", "10", "keepttl"}), syntax);
  EXPECT_EQ(Run({"set", "k", "v", "ex"}), syntax);
  EXPECT_EQ(Run({"set", "k", "v", "foo"}), syntax);
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
}

TEST_F(StringFamilyTest, SetInvalidExpireTime) {
  const Reply invalid = Err("ERR invalid expire time in 'set' command");
  EXPECT_EQ(Run({"set", "k", "v", "ex", "0"}), invalid);
  EXPECT_EQ(Run({"set", "k", "v", "ex", "-1"}), invalid);
  EXPECT_EQ(Run({"set", "k", "v", "px", "0"}), invalid);
  EXPECT_EQ(Run({"set", "k", "v", "exat", "0"}), invalid);
  EXPECT_EQ(Run({"set", "k", "v", "ex", "9223372036854775807"}), invalid);
  EXPECT_EQ(Run({"set", "k", "v", "px", "9223372036854775807"}), invalid);
  EXPECT_EQ(Run({"set", "k", "v", "ex", "abc"}), Err(kNotInteger));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
}

TEST_F(StringFamilyTest, SetInvalidExpireTimeBeforeWrongType) {
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"set", "l", "v", "get", "ex", "0"}),
            Err("ERR invalid expire time in 'set' command"));
}

TEST_F(StringFamilyTest, SetWrongArity) {
  EXPECT_EQ(Run({"set"}), Err("ERR wrong number of arguments for 'set' command"));
  EXPECT_EQ(Run({"set", "k"}), Err("ERR wrong number of arguments for 'set' command"));
}

// --- SETNX / SETEX / PSETEX ---

TEST_F(StringFamilyTest, SetNxCommand) {
  EXPECT_EQ(Run({"setnx", "k", "v"}), Int(1));
  EXPECT_EQ(Run({"setnx", "k", "w"}), Int(0));
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"setnx", "l", "v"}), Int(0));
  EXPECT_EQ(Run({"setnx", "k"}), Err("ERR wrong number of arguments for 'setnx' command"));
}

TEST_F(StringFamilyTest, SetExCommand) {
  EXPECT_EQ(Run({"setex", "s", "100", "v"}), Ok());
  EXPECT_EQ(Run({"ttl", "s"}), Int(100));
  EXPECT_EQ(Run({"get", "s"}), Bulk("v"));
  EXPECT_EQ(Run({"setex", "s", "200", "w"}), Ok());
  EXPECT_EQ(Run({"ttl", "s"}), Int(200));
  EXPECT_EQ(Run({"get", "s"}), Bulk("w"));
}

TEST_F(StringFamilyTest, SetExOverwritesOtherTypes) {
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"setex", "l", "100", "v"}), Ok());
  EXPECT_EQ(Run({"type", "l"}), Status("string"));
}

TEST_F(StringFamilyTest, SetExErrors) {
  const Reply invalid = Err("ERR invalid expire time in 'setex' command");
  EXPECT_EQ(Run({"setex", "s", "0", "v"}), invalid);
  EXPECT_EQ(Run({"setex", "s", "-5", "v"}), invalid);
  EXPECT_EQ(Run({"setex", "s", "9223372036854775807", "v"}), invalid);
  EXPECT_EQ(Run({"setex", "s", "abc", "v"}), Err(kNotInteger));
  EXPECT_EQ(Run({"setex", "s", "100"}), Err("ERR wrong number of arguments for 'setex' command"));
  EXPECT_EQ(Run({"exists", "s"}), Int(0));
}

TEST_F(StringFamilyTest, PSetExCommand) {
  EXPECT_EQ(Run({"psetex", "p", "1500", "v"}), Ok());
  Reply pttl = Run({"pttl", "p"});
  ASSERT_EQ(pttl.type, Reply::Type::kInteger) << pttl;
  EXPECT_GT(pttl.integer, 1000);
  EXPECT_LE(pttl.integer, 1500);
  EXPECT_EQ(Run({"get", "p"}), Bulk("v"));
}

TEST_F(StringFamilyTest, PSetExErrors) {
  EXPECT_EQ(Run({"psetex", "p", "0", "v"}), Err("ERR invalid expire time in 'psetex' command"));
  EXPECT_EQ(Run({"psetex", "p", "abc", "v"}), Err(kNotInteger));
  EXPECT_EQ(Run({"exists", "p"}), Int(0));
}

// --- GETSET / GETDEL ---

TEST_F(StringFamilyTest, GetSet) {
  EXPECT_EQ(Run({"getset", "k", "v"}), Nil());
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"getset", "k", "x"}), Bulk("v"));
  EXPECT_EQ(Run({"get", "k"}), Bulk("x"));
}

TEST_F(StringFamilyTest, GetSetClearsTtl) {
  EXPECT_EQ(Run({"set", "x", "1", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"getset", "x", "2"}), Bulk("1"));
  EXPECT_EQ(Run({"ttl", "x"}), Int(-1));
}

TEST_F(StringFamilyTest, GetSetWrongType) {
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"getset", "l", "x"}), Err(kWrongType));
  EXPECT_EQ(Run({"type", "l"}), Status("list"));
}

TEST_F(StringFamilyTest, GetDel) {
  EXPECT_EQ(Run({"set", "k", "x"}), Ok());
  EXPECT_EQ(Run({"getdel", "k"}), Bulk("x"));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"getdel", "k"}), Nil());
}

TEST_F(StringFamilyTest, GetDelErrors) {
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"getdel", "l"}), Err(kWrongType));
  EXPECT_EQ(Run({"exists", "l"}), Int(1));
  EXPECT_EQ(Run({"getdel"}), Err("ERR wrong number of arguments for 'getdel' command"));
}

// --- GETEX ---

TEST_F(StringFamilyTest, GetExWithoutOptionKeepsTtl) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"getex", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
  EXPECT_EQ(Run({"set", "t", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"getex", "t"}), Bulk("v"));
  EXPECT_EQ(Run({"ttl", "t"}), Int(100));
}

TEST_F(StringFamilyTest, GetExSetsTtl) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"getex", "k", "ex", "100"}), Bulk("v"));
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
  EXPECT_EQ(Run({"getex", "k", "PX", "50000"}), Bulk("v"));
  EXPECT_EQ(Run({"ttl", "k"}), Int(50));
  EXPECT_EQ(Run({"getex", "k", "exat", "4102444801"}), Bulk("v"));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(4102444801000));
  EXPECT_EQ(Run({"getex", "k", "pxat", "99999999999000"}), Bulk("v"));
  EXPECT_EQ(Run({"pexpiretime", "k"}), Int(99999999999000));
}

TEST_F(StringFamilyTest, GetExPersist) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"getex", "k", "persist"}), Bulk("v"));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
}

TEST_F(StringFamilyTest, GetExAbsoluteTimeInThePastDeletes) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"getex", "k", "pxat", "1"}), Bulk("v"));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"set", "k2", "v"}), Ok());
  EXPECT_EQ(Run({"getex", "k2", "exat", "1"}), Bulk("v"));
  EXPECT_EQ(Run({"exists", "k2"}), Int(0));
}

TEST_F(StringFamilyTest, GetExMissingIsNil) {
  EXPECT_EQ(Run({"getex", "missing"}), Nil());
  EXPECT_EQ(Run({"getex", "missing", "ex", "10"}), Nil());
  EXPECT_EQ(Run({"exists", "missing"}), Int(0));
}

TEST_F(StringFamilyTest, GetExSyntaxErrors) {
  const Reply syntax = Err("ERR syntax error");
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"getex", "k", "ex"}), syntax);
  EXPECT_EQ(Run({"getex", "k", "ex", "10", "px", "10"}), syntax);
  EXPECT_EQ(Run({"getex", "k", "persist", "ex", "10"}), syntax);
  EXPECT_EQ(Run({"getex", "k", "foo"}), syntax);
  EXPECT_EQ(Run({"getex", "missing", "foo"}), syntax);
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
}

TEST_F(StringFamilyTest, GetExInvalidExpireTime) {
  const Reply invalid = Err("ERR invalid expire time in 'getex' command");
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"getex", "k", "ex", "0"}), invalid);
  EXPECT_EQ(Run({"getex", "k", "ex", "-1"}), invalid);
  EXPECT_EQ(Run({"getex", "k", "px", "0"}), invalid);
  EXPECT_EQ(Run({"getex", "k", "exat", "0"}), invalid);
  EXPECT_EQ(Run({"getex", "k", "ex", "abc"}), Err(kNotInteger));
  EXPECT_EQ(Run({"ttl", "k"}), Int(-1));
}

TEST_F(StringFamilyTest, GetExWrongType) {
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"getex", "l"}), Err(kWrongType));
  EXPECT_EQ(Run({"getex", "l", "ex", "10"}), Err(kWrongType));
  EXPECT_EQ(Run({"getex", "l", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"getex"}), Err("ERR wrong number of arguments for 'getex' command"));
}

// --- MGET / MSET / MSETNX ---

TEST_F(StringFamilyTest, MSetMGet) {
  EXPECT_EQ(Run({"mset", "a", "1", "b", "2", "c", "3"}), Ok());
  EXPECT_EQ(Run({"mget", "a", "b", "c", "missing"}),
            Array({Bulk("1"), Bulk("2"), Bulk("3"), Nil()}));
}

TEST_F(StringFamilyTest, MGetOtherTypeIsNil) {
  EXPECT_EQ(Run({"mset", "a", "1", "b", "2"}), Ok());
  EXPECT_EQ(Run({"lpush", "l", "x"}), Int(1));
  EXPECT_EQ(Run({"mget", "a", "l", "b"}), Array({Bulk("1"), Nil(), Bulk("2")}));
}

TEST_F(StringFamilyTest, MSetLastValueOfRepeatedKeyWins) {
  EXPECT_EQ(Run({"mset", "a", "1", "a", "2"}), Ok());
  EXPECT_EQ(Run({"get", "a"}), Bulk("2"));
}

TEST_F(StringFamilyTest, MSetClearsTtl) {
  EXPECT_EQ(Run({"set", "w", "1", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"mset", "w", "2"}), Ok());
  EXPECT_EQ(Run({"ttl", "w"}), Int(-1));
}

TEST_F(StringFamilyTest, MSetMGetWrongArity) {
  EXPECT_EQ(Run({"mset", "a", "1", "b"}), Err("ERR wrong number of arguments for 'mset' command"));
  EXPECT_EQ(Run({"mset", "a"}), Err("ERR wrong number of arguments for 'mset' command"));
  EXPECT_EQ(Run({"mget"}), Err("ERR wrong number of arguments for 'mget' command"));
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
}

TEST_F(StringFamilyTest, MSetNx) {
  EXPECT_EQ(Run({"msetnx", "x", "1", "y", "2"}), Int(1));
  EXPECT_EQ(Run({"mget", "x", "y"}), Strings({"1", "2"}));
  EXPECT_EQ(Run({"msetnx", "y", "3", "z", "4"}), Int(0));
  EXPECT_EQ(Run({"mget", "y", "z"}), Array({Bulk("2"), Nil()}));
}

TEST_F(StringFamilyTest, MSetNxAnyTypeBlocks) {
  EXPECT_EQ(Run({"lpush", "l", "x"}), Int(1));
  EXPECT_EQ(Run({"msetnx", "l", "1", "q", "2"}), Int(0));
  EXPECT_EQ(Run({"exists", "q"}), Int(0));
}

TEST_F(StringFamilyTest, MSetNxRepeatedKey) {
  EXPECT_EQ(Run({"msetnx", "n", "1", "n", "2"}), Int(1));
  EXPECT_EQ(Run({"get", "n"}), Bulk("2"));
}

TEST_F(StringFamilyTest, MSetNxWrongArity) {
  EXPECT_EQ(Run({"msetnx", "x", "1", "y"}),
            Err("ERR wrong number of arguments for 'msetnx' command"));
  EXPECT_EQ(Run({"exists", "x"}), Int(0));
}

// --- APPEND / STRLEN ---

TEST_F(StringFamilyTest, Append) {
  EXPECT_EQ(Run({"append", "s", "hello"}), Int(5));
  EXPECT_EQ(Run({"append", "s", " world"}), Int(11));
  EXPECT_EQ(Run({"get", "s"}), Bulk("hello world"));
}

TEST_F(StringFamilyTest, AppendToInteger) {
  EXPECT_EQ(Run({"set", "i", "10"}), Ok());
  EXPECT_EQ(Run({"append", "i", "5"}), Int(3));
  EXPECT_EQ(Run({"get", "i"}), Bulk("105"));
}

TEST_F(StringFamilyTest, AppendKeepsTtl) {
  EXPECT_EQ(Run({"set", "y", "1", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"append", "y", "2"}), Int(2));
  EXPECT_EQ(Run({"ttl", "y"}), Int(100));
}

TEST_F(StringFamilyTest, AppendErrors) {
  EXPECT_EQ(Run({"lpush", "l", "x"}), Int(1));
  EXPECT_EQ(Run({"append", "l", "x"}), Err(kWrongType));
  EXPECT_EQ(Run({"append", "s"}), Err("ERR wrong number of arguments for 'append' command"));
}

TEST_F(StringFamilyTest, StrLen) {
  EXPECT_EQ(Run({"strlen", "missing"}), Int(0));
  EXPECT_EQ(Run({"set", "s", "hello world"}), Ok());
  EXPECT_EQ(Run({"strlen", "s"}), Int(11));
  EXPECT_EQ(Run({"set", "e", ""}), Ok());
  EXPECT_EQ(Run({"strlen", "e"}), Int(0));
}

TEST_F(StringFamilyTest, StrLenErrors) {
  EXPECT_EQ(Run({"lpush", "l", "x"}), Int(1));
  EXPECT_EQ(Run({"strlen", "l"}), Err(kWrongType));
  EXPECT_EQ(Run({"strlen"}), Err("ERR wrong number of arguments for 'strlen' command"));
}

// --- INCR / DECR / INCRBY / DECRBY ---

TEST_F(StringFamilyTest, IncrDecr) {
  EXPECT_EQ(Run({"incr", "n"}), Int(1));
  EXPECT_EQ(Run({"incr", "n"}), Int(2));
  EXPECT_EQ(Run({"decr", "n"}), Int(1));
  EXPECT_EQ(Run({"get", "n"}), Bulk("1"));
  EXPECT_EQ(Run({"decr", "m"}), Int(-1));
}

TEST_F(StringFamilyTest, IncrByDecrBy) {
  EXPECT_EQ(Run({"incrby", "n", "10"}), Int(10));
  EXPECT_EQ(Run({"incrby", "n", "-3"}), Int(7));
  EXPECT_EQ(Run({"decrby", "n", "5"}), Int(2));
  EXPECT_EQ(Run({"decrby", "n", "-5"}), Int(7));
  EXPECT_EQ(Run({"get", "n"}), Bulk("7"));
}

TEST_F(StringFamilyTest, IncrKeepsTtl) {
  EXPECT_EQ(Run({"set", "i", "5", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"incrby", "i", "2"}), Int(7));
  EXPECT_EQ(Run({"ttl", "i"}), Int(100));
}

TEST_F(StringFamilyTest, IncrOnNonIntegerValues) {
  for (const char* value : {"abc", "1.5", " 1", "01", "+1", ""}) {
    EXPECT_EQ(Run({"set", "s", value}), Ok());
    EXPECT_EQ(Run({"incr", "s"}), Err(kNotInteger)) << value;
    EXPECT_EQ(Run({"get", "s"}), Bulk(value));
  }
  EXPECT_EQ(Run({"set", "s", "abc"}), Ok());
  EXPECT_EQ(Run({"decr", "s"}), Err(kNotInteger));
  EXPECT_EQ(Run({"incrby", "s", "1"}), Err(kNotInteger));
}

TEST_F(StringFamilyTest, IncrByNonIntegerIncrement) {
  EXPECT_EQ(Run({"incrby", "n", "abc"}), Err(kNotInteger));
  EXPECT_EQ(Run({"incrby", "n", "1.5"}), Err(kNotInteger));
  EXPECT_EQ(Run({"incrby", "n", "99999999999999999999"}), Err(kNotInteger));
  EXPECT_EQ(Run({"decrby", "n", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"exists", "n"}), Int(0));
}

TEST_F(StringFamilyTest, IncrOverflow) {
  const Reply overflow = Err("ERR increment or decrement would overflow");
  EXPECT_EQ(Run({"set", "big", "9223372036854775807"}), Ok());
  EXPECT_EQ(Run({"incr", "big"}), overflow);
  EXPECT_EQ(Run({"incrby", "big", "1"}), overflow);
  EXPECT_EQ(Run({"get", "big"}), Bulk("9223372036854775807"));
  EXPECT_EQ(Run({"set", "small", "-9223372036854775808"}), Ok());
  EXPECT_EQ(Run({"decr", "small"}), overflow);
  EXPECT_EQ(Run({"decrby", "small", "1"}), overflow);
}

TEST_F(StringFamilyTest, DecrByInt64Min) {
  EXPECT_EQ(Run({"set", "z", "0"}), Ok());
  EXPECT_EQ(Run({"decrby", "z", "-9223372036854775808"}), Err("ERR decrement would overflow"));
  EXPECT_EQ(Run({"decrby", "z", "9223372036854775807"}), Int(-9223372036854775807));
  EXPECT_EQ(Run({"incrby", "z", "-9223372036854775808"}),
            Err("ERR increment or decrement would overflow"));
  EXPECT_EQ(Run({"get", "z"}), Bulk("-9223372036854775807"));
}

TEST_F(StringFamilyTest, IncrWrongTypeAndArity) {
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"incr", "l"}), Err(kWrongType));
  EXPECT_EQ(Run({"decrby", "l", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"incr"}), Err("ERR wrong number of arguments for 'incr' command"));
  EXPECT_EQ(Run({"incrby", "n"}), Err("ERR wrong number of arguments for 'incrby' command"));
}

// --- INCRBYFLOAT ---

TEST_F(StringFamilyTest, IncrByFloat) {
  EXPECT_EQ(Run({"incrbyfloat", "f", "1.5"}), Bulk("1.5"));
  EXPECT_EQ(Run({"incrbyfloat", "f", "0.1"}), Bulk("1.6"));
  EXPECT_EQ(Run({"incrbyfloat", "f", "-5"}), Bulk("-3.4"));
  EXPECT_EQ(Run({"get", "f"}), Bulk("-3.4"));
}

TEST_F(StringFamilyTest, IncrByFloatFormatting) {
  EXPECT_EQ(Run({"set", "i", "10"}), Ok());
  EXPECT_EQ(Run({"incrbyfloat", "i", "0"}), Bulk("10"));
  EXPECT_EQ(Run({"incrbyfloat", "i", "5.0e3"}), Bulk("5010"));
  EXPECT_EQ(Run({"set", "y", "10.50"}), Ok());
  EXPECT_EQ(Run({"incrbyfloat", "y", "0"}), Bulk("10.5"));
  EXPECT_EQ(Run({"incrbyfloat", "h", "0.1"}), Bulk("0.1"));
  EXPECT_EQ(Run({"incrbyfloat", "h", "0.2"}), Bulk("0.3"));
  EXPECT_EQ(Run({"incrbyfloat", "j", "5.0000000000000001"}), Bulk("5.0000000000000001"));
  EXPECT_EQ(Run({"incrbyfloat", "m", "-0"}), Bulk("0"));
  EXPECT_EQ(Run({"incrbyfloat", "n", "1e-20"}), Bulk("0"));
  EXPECT_EQ(Run({"incrbyfloat", "o", "3e20"}), Bulk("300000000000000000000"));
}

TEST_F(StringFamilyTest, IncrByFloatNotAFloat) {
  EXPECT_EQ(Run({"incrbyfloat", "f", "abc"}), Err(kNotFloat));
  EXPECT_EQ(Run({"incrbyfloat", "f", "nan"}), Err(kNotFloat));
  EXPECT_EQ(Run({"incrbyfloat", "f", " 1"}), Err(kNotFloat));
  EXPECT_EQ(Run({"incrbyfloat", "f", ""}), Err(kNotFloat));
  EXPECT_EQ(Run({"exists", "f"}), Int(0));
  EXPECT_EQ(Run({"set", "s", "abc"}), Ok());
  EXPECT_EQ(Run({"incrbyfloat", "s", "1"}), Err(kNotFloat));
  EXPECT_EQ(Run({"set", "sp", " 1"}), Ok());
  EXPECT_EQ(Run({"incrbyfloat", "sp", "1"}), Err(kNotFloat));
}

TEST_F(StringFamilyTest, IncrByFloatInfinity) {
  EXPECT_EQ(Run({"set", "f", "1"}), Ok());
  EXPECT_EQ(Run({"incrbyfloat", "f", "inf"}), Err("ERR increment would produce NaN or Infinity"));
  EXPECT_EQ(Run({"incrbyfloat", "f", "+inf"}), Err("ERR increment would produce NaN or Infinity"));
  EXPECT_EQ(Run({"get", "f"}), Bulk("1"));
}

TEST_F(StringFamilyTest, IncrByFloatWrongTypeAndArity) {
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"incrbyfloat", "l", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"incrbyfloat", "l", "abc"}), Err(kWrongType));
  EXPECT_EQ(Run({"incrbyfloat"}), Err("ERR wrong number of arguments for 'incrbyfloat' command"));
}

// --- GETRANGE / SUBSTR ---

TEST_F(StringFamilyTest, GetRange) {
  EXPECT_EQ(Run({"set", "s", "Hello World"}), Ok());
  EXPECT_EQ(Run({"getrange", "s", "0", "4"}), Bulk("Hello"));
  EXPECT_EQ(Run({"getrange", "s", "-5", "-1"}), Bulk("World"));
  EXPECT_EQ(Run({"getrange", "s", "0", "-1"}), Bulk("Hello World"));
  EXPECT_EQ(Run({"getrange", "s", "6", "100"}), Bulk("World"));
  EXPECT_EQ(Run({"getrange", "s", "-100", "2"}), Bulk("Hel"));
  EXPECT_EQ(Run({"getrange", "s", "0", "0"}), Bulk("H"));
  EXPECT_EQ(Run({"getrange", "s", "-3", "-3"}), Bulk("r"));
}

TEST_F(StringFamilyTest, GetRangeEmptyResults) {
  EXPECT_EQ(Run({"set", "s", "Hello World"}), Ok());
  EXPECT_EQ(Run({"getrange", "s", "5", "2"}), Bulk(""));
  EXPECT_EQ(Run({"getrange", "s", "-1", "-5"}), Bulk(""));
  EXPECT_EQ(Run({"getrange", "s", "20", "30"}), Bulk(""));
  EXPECT_EQ(Run({"getrange", "s", "3", "-100"}), Bulk(""));
  EXPECT_EQ(Run({"getrange", "missing", "0", "5"}), Bulk(""));
  EXPECT_EQ(Run({"set", "e", ""}), Ok());
  EXPECT_EQ(Run({"getrange", "e", "0", "-1"}), Bulk(""));
  EXPECT_EQ(Run({"getrange", "e", "0", "0"}), Bulk(""));
}

TEST_F(StringFamilyTest, GetRangeEndBeforeStartClampsToFirstByte) {  // Redis 7.0's quirk
  EXPECT_EQ(Run({"set", "s", "Hello World"}), Ok());
  EXPECT_EQ(Run({"getrange", "s", "0", "-100"}), Bulk("H"));
}

TEST_F(StringFamilyTest, SubStrIsGetRange) {
  EXPECT_EQ(Run({"set", "s", "Hello World"}), Ok());
  EXPECT_EQ(Run({"substr", "s", "0", "4"}), Bulk("Hello"));
  EXPECT_EQ(Run({"substr", "s", "-5", "-1"}), Bulk("World"));
  EXPECT_EQ(Run({"substr", "s", "0"}), Err("ERR wrong number of arguments for 'substr' command"));
}

TEST_F(StringFamilyTest, GetRangeErrors) {
  EXPECT_EQ(Run({"set", "s", "Hello World"}), Ok());
  EXPECT_EQ(Run({"getrange", "s", "a", "1"}), Err(kNotInteger));
  EXPECT_EQ(Run({"getrange", "s", "0", "b"}), Err(kNotInteger));
  EXPECT_EQ(Run({"getrange", "missing", "a", "b"}), Err(kNotInteger));
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"getrange", "l", "0", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"getrange", "l", "x", "1"}), Err(kNotInteger));
  EXPECT_EQ(Run({"getrange", "s", "0"}),
            Err("ERR wrong number of arguments for 'getrange' command"));
}

// --- SETRANGE ---

TEST_F(StringFamilyTest, SetRangeOverwrites) {
  EXPECT_EQ(Run({"set", "s", "Hello World"}), Ok());
  EXPECT_EQ(Run({"setrange", "s", "6", "Redis"}), Int(11));
  EXPECT_EQ(Run({"get", "s"}), Bulk("Hello Redis"));
  EXPECT_EQ(Run({"set", "i", "123"}), Ok());
  EXPECT_EQ(Run({"setrange", "i", "1", "9"}), Int(3));
  EXPECT_EQ(Run({"get", "i"}), Bulk("193"));
}

TEST_F(StringFamilyTest, SetRangePadsWithZeroBytes) {
  EXPECT_EQ(Run({"set", "s", "Hello World"}), Ok());
  EXPECT_EQ(Run({"setrange", "s", "20", "x"}), Int(21));
  EXPECT_EQ(Run({"getrange", "s", "11", "20"}), Bulk(std::string(9, '\0') + "x"));
  EXPECT_EQ(Run({"setrange", "n", "3", "ab"}), Int(5));
  EXPECT_EQ(Run({"get", "n"}), Bulk(std::string(3, '\0') + "ab"));
}

TEST_F(StringFamilyTest, SetRangeEmptyValue) {
  EXPECT_EQ(Run({"setrange", "m", "0", ""}), Int(0));
  EXPECT_EQ(Run({"setrange", "m", "5", ""}), Int(0));
  EXPECT_EQ(Run({"exists", "m"}), Int(0));
  EXPECT_EQ(Run({"set", "s", "Hello"}), Ok());
  EXPECT_EQ(Run({"setrange", "s", "0", ""}), Int(5));
  EXPECT_EQ(Run({"setrange", "s", "100", ""}), Int(5));
  EXPECT_EQ(Run({"get", "s"}), Bulk("Hello"));
}

TEST_F(StringFamilyTest, SetRangeKeepsTtl) {
  EXPECT_EQ(Run({"set", "y", "12", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"setrange", "y", "0", "5"}), Int(2));
  EXPECT_EQ(Run({"ttl", "y"}), Int(100));
}

TEST_F(StringFamilyTest, SetRangeErrors) {
  EXPECT_EQ(Run({"set", "s", "Hello"}), Ok());
  EXPECT_EQ(Run({"setrange", "s", "-1", "x"}), Err("ERR offset is out of range"));
  EXPECT_EQ(Run({"setrange", "missing", "-1", "x"}), Err("ERR offset is out of range"));
  EXPECT_EQ(Run({"setrange", "s", "abc", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"setrange", "q", "536870912", "x"}),
            Err("ERR string exceeds maximum allowed size (proto-max-bulk-len)"));
  EXPECT_EQ(Run({"exists", "q"}), Int(0));
  EXPECT_EQ(Run({"setrange", "s", "0"}),
            Err("ERR wrong number of arguments for 'setrange' command"));
}

TEST_F(StringFamilyTest, SetRangeWrongType) {
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"setrange", "l", "0", "x"}), Err(kWrongType));
  EXPECT_EQ(Run({"setrange", "l", "0", ""}), Err(kWrongType));
  EXPECT_EQ(Run({"setrange", "l", "-1", "x"}), Err("ERR offset is out of range"));
}

// --- LCS ---

constexpr std::string_view kLcsNotStrings = "ERR The specified keys must contain string values";
constexpr std::string_view kLcsTooBig =
    "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len";

// An IDX match as RESP2 shows it: [[a_first, a_last], [b_first, b_last]] and the length.
Reply LcsMatchReply(int64_t a0, int64_t a1, int64_t b0, int64_t b1, bool with_len) {
  std::vector<Reply> m = {Array({Int(a0), Int(a1)}), Array({Int(b0), Int(b1)})};
  if (with_len) m.push_back(Int(a1 - a0 + 1));
  return Array(std::move(m));
}

TEST_F(StringFamilyTest, LcsForms) {
  EXPECT_EQ(Run({"mset", "a", "ohmytext", "b", "mynewtext"}), Ok());
  EXPECT_EQ(Run({"lcs", "a", "b"}), Bulk("mytext"));
  EXPECT_EQ(Run({"lcs", "a", "b", "LEN"}), Int(6));
  EXPECT_EQ(Run({"lcs", "a", "b", "idx"}),
            Array({Bulk("matches"),
                   Array({LcsMatchReply(4, 7, 5, 8, false), LcsMatchReply(2, 3, 0, 1, false)}),
                   Bulk("len"), Int(6)}));
  EXPECT_EQ(
      Run({"lcs", "a", "b", "idx", "minmatchlen", "4", "withmatchlen"}),
      Array({Bulk("matches"), Array({LcsMatchReply(4, 7, 5, 8, true)}), Bulk("len"), Int(6)}));
  EXPECT_EQ(Run({"lcs", "a", "b", "idx", "minmatchlen", "-3", "withmatchlen"}),
            Array({Bulk("matches"),
                   Array({LcsMatchReply(4, 7, 5, 8, true), LcsMatchReply(2, 3, 0, 1, true)}),
                   Bulk("len"), Int(6)}));
  // WITHMATCHLEN and MINMATCHLEN change nothing without IDX.
  EXPECT_EQ(Run({"lcs", "a", "b", "len", "withmatchlen"}), Int(6));
  EXPECT_EQ(Run({"lcs", "a", "b", "minmatchlen", "2"}), Bulk("mytext"));
}

TEST_F(StringFamilyTest, LcsIdxIsAMapInResp3) {
  EXPECT_EQ(Run({"mset", "a", "ohmytext", "b", "mynewtext"}), Ok());
  EXPECT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(RunRaw({"lcs", "a", "b", "idx", "minmatchlen", "3", "withmatchlen"}),
            "%2\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n"
            "$3\r\nlen\r\n:6\r\n");
}

TEST_F(StringFamilyTest, LcsMissingKeysAndInts) {
  EXPECT_EQ(Run({"set", "a", "ohmytext"}), Ok());
  EXPECT_EQ(Run({"lcs", "a", "nokey"}), Bulk(""));
  EXPECT_EQ(Run({"lcs", "nokey", "a", "len"}), Int(0));
  EXPECT_EQ(Run({"lcs", "a", "nokey", "idx"}),
            Array({Bulk("matches"), Array({}), Bulk("len"), Int(0)}));
  EXPECT_EQ(Run({"mset", "i1", "12345", "i2", "2345"}), Ok());
  EXPECT_EQ(
      Run({"lcs", "i1", "i2", "idx", "withmatchlen"}),
      Array({Bulk("matches"), Array({LcsMatchReply(1, 4, 0, 3, true)}), Bulk("len"), Int(4)}));
}

TEST_F(StringFamilyTest, LcsErrors) {
  EXPECT_EQ(Run({"mset", "a", "x", "b", "y"}), Ok());
  EXPECT_EQ(Run({"lcs", "a"}), Err("ERR wrong number of arguments for 'lcs' command"));
  EXPECT_EQ(Run({"lcs", "a", "b", "len", "idx"}),
            Err("ERR If you want both the length and indexes, please just use IDX."));
  EXPECT_EQ(Run({"lcs", "a", "b", "minmatchlen", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"lcs", "a", "b", "minmatchlen", "99999999999999999999"}), Err(kNotInteger));
  EXPECT_EQ(Run({"lcs", "a", "b", "minmatchlen"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lcs", "a", "b", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"rpush", "l", "1"}), Int(1));
  EXPECT_EQ(Run({"lcs", "a", "l"}), Err(kLcsNotStrings));
  EXPECT_EQ(Run({"lcs", "l", "a", "foo"}), Err(kLcsNotStrings));  // before the options
}

// Redis refuses inputs whose 4-byte-a-cell table would pass proto-max-bulk-len, whatever the
// option (ordis's table is smaller, but the same inputs are refused).
TEST_F(StringFamilyTest, LcsTableGuard) {
  EXPECT_EQ(Run({"config", "set", "proto-max-bulk-len", "1048576"}), Ok());
  EXPECT_EQ(Run({"set", "p", std::string(511, 'a')}), Ok());
  EXPECT_EQ(Run({"set", "q", std::string(512, 'a')}), Ok());
  EXPECT_EQ(Run({"lcs", "p", "p", "len"}), Int(511));  // 512 * 512 * 4: exactly the limit
  EXPECT_EQ(Run({"lcs", "p", "q", "len"}), Err(kLcsTooBig));
  EXPECT_EQ(Run({"lcs", "q", "p"}), Err(kLcsTooBig));
  EXPECT_EQ(Run({"lcs", "q", "nokey", "idx"}),
            Array({Bulk("matches"), Array({}), Bulk("len"), Int(0)}));
  EXPECT_EQ(Run({"lcs", "p", "q", "foo"}), Err("ERR syntax error"));  // options first
}

// Redis's algorithm, as a model: the whole table of prefix LCS lengths, walked back from the
// ends (on a tie, shortening b), each maximal run of matches emitted when the walk leaves it.
struct LcsModel {
  std::string text;
  std::vector<Reply> matches;
  int64_t length = 0;
};
LcsModel ModelLcs(const std::string& a, const std::string& b, int64_t min_len, bool with_len) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<uint32_t>> t(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    }
  }
  LcsModel model;
  model.length = t[n][m];
  size_t i = n, j = m;
  int64_t run = 0;
  auto emit = [&](size_t a_first, size_t b_first) {
    if (min_len == 0 || run >= min_len) {
      model.matches.push_back(LcsMatchReply(
          static_cast<int64_t>(a_first), static_cast<int64_t>(a_first) + run - 1,
          static_cast<int64_t>(b_first), static_cast<int64_t>(b_first) + run - 1, with_len));
    }
    run = 0;
  };
  while (i > 0 && j > 0) {
    if (a[i - 1] == b[j - 1]) {
      model.text.insert(model.text.begin(), a[i - 1]);
      ++run;
      --i;
      --j;
      if (i == 0 || j == 0) emit(i, j);
    } else {
      if (run > 0) emit(i, j);
      if (t[i - 1][j] > t[i][j - 1]) {
        --i;
      } else {
        --j;
      }
    }
  }
  return model;
}

TEST_F(StringFamilyTest, LcsMatchesTheModelOnRandomStrings) {
  std::mt19937 rng(17);
  for (int round = 0; round < 300; ++round) {
    auto random_string = [&] {
      const size_t len = std::uniform_int_distribution<size_t>(0, round < 200 ? 20 : 300)(rng);
      const int alphabet = std::uniform_int_distribution<int>(1, 4)(rng);
      std::string s;
      for (size_t k = 0; k < len; ++k) {
        s.push_back(static_cast<char>('a' + std::uniform_int_distribution<int>(0, alphabet)(rng)));
      }
      return s;
    };
    const std::string a = random_string(), b = random_string();
    const int64_t min_len = std::uniform_int_distribution<int64_t>(0, 3)(rng);
    SCOPED_TRACE(a + " / " + b + " min " + std::to_string(min_len));
    EXPECT_EQ(Run({"mset", "a", a, "b", b}), Ok());
    const LcsModel model = ModelLcs(a, b, min_len, true);
    EXPECT_EQ(Run({"lcs", "a", "b"}), Bulk(model.text));
    EXPECT_EQ(Run({"lcs", "a", "b", "len"}), Int(model.length));
    EXPECT_EQ(Run({"lcs", "a", "b", "idx", "minmatchlen", std::to_string(min_len), "withmatchlen"}),
              Array({Bulk("matches"), Array(model.matches), Bulk("len"), Int(model.length)}));
  }
}

}  // namespace
}  // namespace ordis::server::test
