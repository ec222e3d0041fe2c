// DEL UNLINK EXISTS TOUCH TYPE RENAME RENAMENX COPY MOVE SWAPDB OBJECT, in-process. Every
// expectation was first checked against redis-server 7.0.15.
#include <string>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class KeysFamilyTest : public FamilyTest {};

// With an LFU eviction policy, for OBJECT FREQ and OBJECT IDLETIME.
class KeysLfuFamilyTest : public FamilyTest {
 protected:
  KeysLfuFamilyTest() : FamilyTest({{"maxmemory-policy", "allkeys-lfu"}}) {}
};

constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";

// --- DEL / UNLINK ---

TEST_F(KeysFamilyTest, DelCountsDeletedKeys) {
  EXPECT_EQ(Run({"mset", "a", "1", "b", "2", "c", "3"}), Ok());
  EXPECT_EQ(Run({"del", "a", "b", "missing"}), Int(2));
  EXPECT_EQ(Run({"exists", "a", "b", "c"}), Int(1));
  EXPECT_EQ(Run({"del", "c"}), Int(1));
  EXPECT_EQ(Run({"del", "c"}), Int(0));
}

TEST_F(KeysFamilyTest, DelAnyType) {
  EXPECT_EQ(Run({"set", "x", "1"}), Ok());
  EXPECT_EQ(Run({"sadd", "s", "m"}), Int(1));
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"del", "x", "s", "l"}), Int(3));
  EXPECT_EQ(Run({"exists", "x", "s", "l"}), Int(0));
}

TEST_F(KeysFamilyTest, Unlink) {
  EXPECT_EQ(Run({"mset", "a", "1", "b", "2"}), Ok());
  EXPECT_EQ(Run({"unlink", "a", "missing", "b"}), Int(2));
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
}

TEST_F(KeysFamilyTest, DelUnlinkWrongArity) {
  EXPECT_EQ(Run({"del"}), Err("ERR wrong number of arguments for 'del' command"));
  EXPECT_EQ(Run({"unlink"}), Err("ERR wrong number of arguments for 'unlink' command"));
}

// --- EXISTS / TOUCH ---

TEST_F(KeysFamilyTest, ExistsCountsRepeats) {
  EXPECT_EQ(Run({"mset", "a", "1", "b", "2"}), Ok());
  EXPECT_EQ(Run({"exists", "a", "a", "b", "missing"}), Int(3));
  EXPECT_EQ(Run({"exists", "missing"}), Int(0));
  EXPECT_EQ(Run({"exists"}), Err("ERR wrong number of arguments for 'exists' command"));
}

TEST_F(KeysFamilyTest, Touch) {
  EXPECT_EQ(Run({"mset", "a", "1", "b", "2"}), Ok());
  EXPECT_EQ(Run({"touch", "a", "b", "missing"}), Int(2));
  EXPECT_EQ(Run({"touch"}), Err("ERR wrong number of arguments for 'touch' command"));
}

// --- TYPE ---

TEST_F(KeysFamilyTest, TypeOfEachKind) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"lpush", "l", "x"}), Int(1));
  EXPECT_EQ(Run({"sadd", "s", "x"}), Int(1));
  EXPECT_EQ(Run({"hset", "h", "f", "v"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "1", "m"}), Int(1));
  EXPECT_EQ(Run({"type", "a"}), Status("string"));
  EXPECT_EQ(Run({"type", "l"}), Status("list"));
  EXPECT_EQ(Run({"type", "s"}), Status("set"));
  EXPECT_EQ(Run({"type", "h"}), Status("hash"));
  EXPECT_EQ(Run({"type", "z"}), Status("zset"));
  EXPECT_EQ(Run({"type", "missing"}), Status("none"));
}

TEST_F(KeysFamilyTest, TypeWrongArity) {
  EXPECT_EQ(Run({"type"}), Err("ERR wrong number of arguments for 'type' command"));
  EXPECT_EQ(Run({"type", "a", "b"}), Err("ERR wrong number of arguments for 'type' command"));
}

// --- RENAME / RENAMENX ---

TEST_F(KeysFamilyTest, Rename) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"rename", "a", "a2"}), Ok());
  EXPECT_EQ(Run({"get", "a2"}), Bulk("1"));
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
}

TEST_F(KeysFamilyTest, RenameOverwritesDestination) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "2", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"rename", "a", "b"}), Ok());
  EXPECT_EQ(Run({"get", "b"}), Bulk("1"));
  EXPECT_EQ(Run({"ttl", "b"}), Int(-1));
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
}

TEST_F(KeysFamilyTest, RenameCarriesTtlAndType) {
  EXPECT_EQ(Run({"set", "e", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"lpush", "l", "q"}), Int(1));
  EXPECT_EQ(Run({"rename", "e", "l"}), Ok());
  EXPECT_EQ(Run({"type", "l"}), Status("string"));
  EXPECT_EQ(Run({"ttl", "l"}), Int(100));
}

TEST_F(KeysFamilyTest, RenameToItself) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"rename", "a", "a"}), Ok());
  EXPECT_EQ(Run({"get", "a"}), Bulk("1"));
}

TEST_F(KeysFamilyTest, RenameErrors) {
  EXPECT_EQ(Run({"rename", "missing", "x"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"rename", "missing", "missing"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"rename", "x"}), Err("ERR wrong number of arguments for 'rename' command"));
}

TEST_F(KeysFamilyTest, RenameNx) {
  EXPECT_EQ(Run({"set", "b", "1"}), Ok());
  EXPECT_EQ(Run({"renamenx", "b", "c"}), Int(1));
  EXPECT_EQ(Run({"get", "c"}), Bulk("1"));
  EXPECT_EQ(Run({"exists", "b"}), Int(0));
}

TEST_F(KeysFamilyTest, RenameNxExistingDestination) {
  EXPECT_EQ(Run({"mset", "x", "1", "y", "2"}), Ok());
  EXPECT_EQ(Run({"renamenx", "x", "y"}), Int(0));
  EXPECT_EQ(Run({"mget", "x", "y"}), Strings({"1", "2"}));
  EXPECT_EQ(Run({"renamenx", "x", "x"}), Int(0));
}

TEST_F(KeysFamilyTest, RenameNxKeepsSourceTtlWhenRefused) {
  EXPECT_EQ(Run({"set", "t", "1", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"set", "u", "2"}), Ok());
  EXPECT_EQ(Run({"renamenx", "t", "u"}), Int(0));
  EXPECT_EQ(Run({"ttl", "t"}), Int(100));
}

TEST_F(KeysFamilyTest, RenameNxErrors) {
  EXPECT_EQ(Run({"renamenx", "missing", "x"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"renamenx", "missing", "missing"}), Err("ERR no such key"));
  EXPECT_EQ(Run({"renamenx", "x"}), Err("ERR wrong number of arguments for 'renamenx' command"));
}

// --- COPY ---

TEST_F(KeysFamilyTest, Copy) {
  EXPECT_EQ(Run({"set", "c", "v"}), Ok());
  EXPECT_EQ(Run({"copy", "c", "d"}), Int(1));
  EXPECT_EQ(Run({"get", "d"}), Bulk("v"));
  EXPECT_EQ(Run({"get", "c"}), Bulk("v"));
  EXPECT_EQ(Run({"copy", "missing", "d"}), Int(0));
}

TEST_F(KeysFamilyTest, CopyExistingDestinationNeedsReplace) {
  EXPECT_EQ(Run({"mset", "a", "1", "b", "2"}), Ok());
  EXPECT_EQ(Run({"copy", "a", "b"}), Int(0));
  EXPECT_EQ(Run({"get", "b"}), Bulk("2"));
  EXPECT_EQ(Run({"copy", "a", "b", "replace"}), Int(1));
  EXPECT_EQ(Run({"get", "b"}), Bulk("1"));
  EXPECT_EQ(Run({"copy", "a", "b", "REPLACE", "REPLACE"}), Int(1));
}

TEST_F(KeysFamilyTest, CopyIsIndependentOfSource) {
  EXPECT_EQ(Run({"rpush", "l", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"copy", "l", "l2"}), Int(1));
  EXPECT_EQ(Run({"lrange", "l2", "0", "-1"}), Strings({"a", "b", "c"}));
  EXPECT_EQ(Run({"rpush", "l2", "d"}), Int(4));
  EXPECT_EQ(Run({"llen", "l"}), Int(3));
}

TEST_F(KeysFamilyTest, CopyKeepsTtl) {
  EXPECT_EQ(Run({"set", "t", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"copy", "t", "t2"}), Int(1));
  EXPECT_EQ(Run({"ttl", "t2"}), Int(100));
}

TEST_F(KeysFamilyTest, CopyReplaceDropsDestinationTtl) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "2", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"copy", "a", "b", "replace"}), Int(1));
  EXPECT_EQ(Run({"ttl", "b"}), Int(-1));
}

TEST_F(KeysFamilyTest, CopyToAnotherDb) {
  EXPECT_EQ(Run({"set", "t", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"copy", "t", "t", "db", "1"}), Int(1));
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"get", "t"}), Bulk("v"));
  EXPECT_EQ(Run({"ttl", "t"}), Int(100));
}

TEST_F(KeysFamilyTest, CopyLastDbOptionWins) {
  EXPECT_EQ(Run({"set", "c", "v"}), Ok());
  EXPECT_EQ(Run({"copy", "c", "e", "db", "1", "db", "2"}), Int(1));
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"exists", "e"}), Int(0));
  EXPECT_EQ(Run({"select", "2"}), Ok());
  EXPECT_EQ(Run({"get", "e"}), Bulk("v"));
}

TEST_F(KeysFamilyTest, CopyToOtherDbNeedsReplace) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"set", "b", "other"}), Ok());
  EXPECT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"copy", "a", "b", "db", "1"}), Int(0));
  EXPECT_EQ(Run({"copy", "a", "b", "db", "1", "replace"}), Int(1));
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"get", "b"}), Bulk("1"));
}

TEST_F(KeysFamilyTest, CopySameObject) {
  const Reply same = Err("ERR source and destination objects are the same");
  EXPECT_EQ(Run({"set", "c", "v"}), Ok());
  EXPECT_EQ(Run({"copy", "c", "c"}), same);
  EXPECT_EQ(Run({"copy", "c", "c", "db", "0"}), same);
  EXPECT_EQ(Run({"copy", "missing", "missing"}), same);
}

TEST_F(KeysFamilyTest, CopyErrors) {
  EXPECT_EQ(Run({"set", "c", "v"}), Ok());
  EXPECT_EQ(Run({"copy", "c", "e", "db", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"copy", "c", "e", "db", "-1"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"copy", "c", "e", "db", "abc"}), Err(kNotInteger));
  EXPECT_EQ(Run({"copy", "c", "e", "db"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"copy", "c", "e", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"copy", "c"}), Err("ERR wrong number of arguments for 'copy' command"));
  EXPECT_EQ(Run({"exists", "e"}), Int(0));
}

// --- MOVE ---

TEST_F(KeysFamilyTest, Move) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"move", "k", "1"}), Int(1));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"move", "k", "1"}), Int(0));
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
}

TEST_F(KeysFamilyTest, MoveKeepsTtl) {
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"move", "k", "1"}), Int(1));
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
}

TEST_F(KeysFamilyTest, MoveRefusedWhenDestinationHasKey) {
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"set", "k", "other"}), Ok());
  EXPECT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"move", "k", "1"}), Int(0));
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("other"));
}

TEST_F(KeysFamilyTest, MoveMissingKey) { EXPECT_EQ(Run({"move", "missing", "1"}), Int(0)); }

TEST_F(KeysFamilyTest, MoveErrors) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"move", "k", "0"}), Err("ERR source and destination objects are the same"));
  EXPECT_EQ(Run({"move", "k", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"move", "k", "-1"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"move", "k", "abc"}), Err(kNotInteger));
  EXPECT_EQ(Run({"move", "k"}), Err("ERR wrong number of arguments for 'move' command"));
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
}

// --- SWAPDB ---

TEST_F(KeysFamilyTest, SwapDb) {
  EXPECT_EQ(Run({"set", "a", "0"}), Ok());
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"swapdb", "0", "1"}), Ok());
  EXPECT_EQ(Run({"get", "a"}), Bulk("0"));
  EXPECT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"get", "a"}), Bulk("1"));
}

TEST_F(KeysFamilyTest, SwapDbSeenByOtherClients) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());
  EXPECT_EQ(other.Run({"select", "1"}), Ok());
  EXPECT_EQ(other.Run({"get", "k"}), Nil());
  EXPECT_EQ(Run({"swapdb", "0", "1"}), Ok());
  EXPECT_EQ(other.Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(other.Run({"ttl", "k"}), Int(100));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
}

TEST_F(KeysFamilyTest, SwapDbWithItself) {
  EXPECT_EQ(Run({"set", "a", "0"}), Ok());
  EXPECT_EQ(Run({"swapdb", "0", "0"}), Ok());
  EXPECT_EQ(Run({"get", "a"}), Bulk("0"));
}

TEST_F(KeysFamilyTest, SwapDbErrors) {
  EXPECT_EQ(Run({"swapdb", "0", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"swapdb", "16", "0"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"swapdb", "-1", "0"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"swapdb", "abc", "0"}), Err("ERR invalid first DB index"));
  EXPECT_EQ(Run({"swapdb", "0", "abc"}), Err("ERR invalid second DB index"));
  EXPECT_EQ(Run({"swapdb", "99999999999", "0"}), Err("ERR invalid first DB index"));
  EXPECT_EQ(Run({"swapdb", "0", "99999999999"}), Err("ERR invalid second DB index"));
  EXPECT_EQ(Run({"swapdb", "0"}), Err("ERR wrong number of arguments for 'swapdb' command"));
}

// --- OBJECT ---

TEST_F(KeysFamilyTest, ObjectEncodingOfStrings) {
  EXPECT_EQ(Run({"mset", "i", "123", "neg", "-5", "n2", "0", "e", "hello"}), Ok());
  EXPECT_EQ(Run({"object", "encoding", "i"}), Bulk("int"));
  EXPECT_EQ(Run({"object", "encoding", "neg"}), Bulk("int"));
  EXPECT_EQ(Run({"object", "encoding", "n2"}), Bulk("int"));
  EXPECT_EQ(Run({"object", "encoding", "e"}), Bulk("embstr"));
}

TEST_F(KeysFamilyTest, ObjectEncodingEmbstrLimits) {
  EXPECT_EQ(Run({"set", "r44", std::string(44, 'x')}), Ok());
  EXPECT_EQ(Run({"set", "r45", std::string(45, 'x')}), Ok());
  EXPECT_EQ(Run({"set", "big", "12345678901234567890"}), Ok());
  EXPECT_EQ(Run({"set", "nz", "-0"}), Ok());
  EXPECT_EQ(Run({"object", "encoding", "r44"}), Bulk("embstr"));
  EXPECT_EQ(Run({"object", "encoding", "r45"}), Bulk("raw"));
  EXPECT_EQ(Run({"object", "encoding", "big"}), Bulk("embstr"));
  EXPECT_EQ(Run({"object", "encoding", "nz"}), Bulk("embstr"));
}

TEST_F(KeysFamilyTest, ObjectEncodingAfterStringCommands) {
  EXPECT_EQ(Run({"set", "e", "hello"}), Ok());
  EXPECT_EQ(Run({"append", "e", "x"}), Int(6));
  EXPECT_EQ(Run({"object", "encoding", "e"}), Bulk("raw"));
  EXPECT_EQ(Run({"set", "e2", "x"}), Ok());
  EXPECT_EQ(Run({"setrange", "e2", "0", "y"}), Int(1));
  EXPECT_EQ(Run({"object", "encoding", "e2"}), Bulk("raw"));
  EXPECT_EQ(Run({"set", "i", "123"}), Ok());
  EXPECT_EQ(Run({"incr", "i"}), Int(124));
  EXPECT_EQ(Run({"object", "encoding", "i"}), Bulk("int"));
  EXPECT_EQ(Run({"set", "f", "1.5"}), Ok());
  EXPECT_EQ(Run({"incrbyfloat", "f", "1"}), Bulk("2.5"));
  EXPECT_EQ(Run({"object", "encoding", "f"}), Bulk("embstr"));
}

// Each string kept in the encoding Redis gives it: how it was made decides, not what it holds.
TEST_F(KeysFamilyTest, ObjectEncodingFollowsHowTheStringWasMade) {
  EXPECT_EQ(Run({"set", "f", "10", "EX", "100"}), Ok());
  EXPECT_EQ(Run({"incrbyfloat", "f", "1"}), Bulk("11"));
  EXPECT_EQ(Run({"object", "encoding", "f"}), Bulk("embstr"));  // never int
  EXPECT_EQ(Run({"ttl", "f"}), Int(100));
  EXPECT_EQ(Run({"append", "a", "123"}), Int(3));
  EXPECT_EQ(Run({"object", "encoding", "a"}), Bulk("int"));
  EXPECT_EQ(Run({"append", "a", ""}), Int(3));
  EXPECT_EQ(Run({"object", "encoding", "a"}), Bulk("raw"));
  EXPECT_EQ(Run({"incr", "a"}), Int(124));
  EXPECT_EQ(Run({"object", "encoding", "a"}), Bulk("int"));
  EXPECT_EQ(Run({"setrange", "s", "2", "ab"}), Int(4));
  EXPECT_EQ(Run({"object", "encoding", "s"}), Bulk("raw"));
  EXPECT_EQ(Run({"get", "s"}), Bulk(std::string("\0\0ab", 4)));
  EXPECT_EQ(Run({"set", "s", "xyz"}), Ok());
  EXPECT_EQ(Run({"object", "encoding", "s"}), Bulk("embstr"));
  EXPECT_EQ(Run({"setrange", "s", "0", ""}), Int(3));
  EXPECT_EQ(Run({"object", "encoding", "s"}), Bulk("embstr"));
  EXPECT_EQ(Run({"set", "e", "hello"}), Ok());
  EXPECT_EQ(Run({"expire", "e", "100"}), Int(1));
  EXPECT_EQ(Run({"object", "encoding", "e"}), Bulk("embstr"));
  EXPECT_EQ(Run({"persist", "e"}), Int(1));
  EXPECT_EQ(Run({"get", "e"}), Bulk("hello"));
  EXPECT_EQ(Run({"append", "e", "!"}), Int(6));
  EXPECT_EQ(Run({"copy", "e", "c"}), Int(1));
  EXPECT_EQ(Run({"object", "encoding", "c"}), Bulk("raw"));
  EXPECT_EQ(Run({"set", "m", "-9223372036854775808", "PX", "100000"}), Ok());
  EXPECT_EQ(Run({"object", "encoding", "m"}), Bulk("int"));
  EXPECT_EQ(Run({"get", "m"}), Bulk("-9223372036854775808"));
}

TEST_F(KeysFamilyTest, ObjectEncodingOfCollections) {
  const std::string long_value(65, 'x');
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"sadd", "s", "1", "2"}), Int(2));
  EXPECT_EQ(Run({"sadd", "s2", "a"}), Int(1));
  EXPECT_EQ(Run({"sadd", "s3", "1", "a"}), Int(2));
  EXPECT_EQ(Run({"hset", "h", "f", "v"}), Int(1));
  EXPECT_EQ(Run({"hset", "h2", "f", long_value}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "1", "m"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z2", "1", long_value}), Int(1));
  EXPECT_EQ(Run({"object", "encoding", "l"}), Bulk("quicklist"));
  EXPECT_EQ(Run({"object", "encoding", "s"}), Bulk("intset"));
  EXPECT_EQ(Run({"object", "encoding", "s2"}), Bulk("hashtable"));
  EXPECT_EQ(Run({"object", "encoding", "s3"}), Bulk("hashtable"));
  EXPECT_EQ(Run({"object", "encoding", "h"}), Bulk("listpack"));
  EXPECT_EQ(Run({"object", "encoding", "h2"}), Bulk("hashtable"));
  EXPECT_EQ(Run({"object", "encoding", "z"}), Bulk("listpack"));
  EXPECT_EQ(Run({"object", "encoding", "z2"}), Bulk("skiplist"));
}

TEST_F(KeysFamilyTest, ObjectOfMissingKeyIsNil) {
  EXPECT_EQ(Run({"object", "encoding", "missing"}), Nil());
  EXPECT_EQ(Run({"object", "refcount", "missing"}), Nil());
  EXPECT_EQ(Run({"object", "idletime", "missing"}), Nil());
  EXPECT_EQ(Run({"object", "freq", "missing"}), Nil());
}

TEST_F(KeysFamilyTest, ObjectRefcountOfUnsharedValue) {
  EXPECT_EQ(Run({"set", "e", "hello"}), Ok());
  EXPECT_EQ(Run({"object", "refcount", "e"}), Int(1));
  EXPECT_EQ(Run({"set", "big", "10000"}), Ok());
  EXPECT_EQ(Run({"object", "refcount", "big"}), Int(1));
}

// Idle times count whole seconds of the clock, which may tick between two commands: `expected`
// or one more.
::testing::AssertionResult IdleIs(const Reply& idle, int64_t expected) {
  if (idle.type == Reply::Type::kInteger &&
      (idle.integer == expected || idle.integer == expected + 1)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << idle << " is not " << expected << " or one more";
}

TEST_F(KeysFamilyTest, ObjectIdletimeOfFreshKey) {
  EXPECT_EQ(Run({"set", "x", "v"}), Ok());
  EXPECT_TRUE(IdleIs(Run({"object", "idletime", "x"}), 0));
}

// EXISTS, TYPE and the TTL queries are not accesses (Redis's LOOKUP_NOTOUCH); GET is.
TEST_F(KeysFamilyTest, HeaderQueriesDoNotTouch) {
  Run({"set", "src", "v"});
  const Reply payload = Run({"dump", "src"});
  for (const char* query : {"exists", "type", "ttl", "pttl", "expiretime", "pexpiretime"}) {
    Run({"del", "k"});
    ASSERT_EQ(Run({"restore", "k", "0", payload.str, "idletime", "1000"}), Ok());
    Run({query, "k"});
    EXPECT_TRUE(IdleIs(Run({"object", "idletime", "k"}), 1000)) << query;
  }
  Run({"get", "k"});
  EXPECT_TRUE(IdleIs(Run({"object", "idletime", "k"}), 0));
  Run({"del", "k"});
  ASSERT_EQ(Run({"restore", "k", "0", payload.str, "idletime", "1000"}), Ok());
  EXPECT_EQ(Run({"touch", "k", "nosuch"}), Int(1));
  EXPECT_TRUE(IdleIs(Run({"object", "idletime", "k"}), 0));
}

TEST_F(KeysFamilyTest, ObjectFreqNeedsLfuPolicy) {
  EXPECT_EQ(Run({"set", "e", "v"}), Ok());
  EXPECT_EQ(Run({"object", "freq", "e"}),
            Err("ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
                "Please note that when switching between policies at runtime LRU and LFU data "
                "will take some time to adjust."));
}

TEST_F(KeysFamilyTest, ObjectHelp) {
  Reply help = Run({"object", "help"});
  ASSERT_EQ(help.type, Reply::Type::kArray) << help;
  ASSERT_EQ(help.elements.size(), 15u);
  EXPECT_EQ(help.elements[0],
            Status("OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(help.elements[1], Status("ENCODING <key>"));
  EXPECT_EQ(help.elements[4], Status("FREQ <key>"));
  EXPECT_EQ(help.elements[7], Status("IDLETIME <key>"));
  EXPECT_EQ(help.elements[10], Status("REFCOUNT <key>"));
  EXPECT_EQ(help.elements[13], Status("HELP"));
}

TEST_F(KeysFamilyTest, ObjectErrors) {
  EXPECT_EQ(Run({"object"}), Err("ERR wrong number of arguments for 'object' command"));
  EXPECT_EQ(Run({"object", "foo"}), Err("ERR unknown subcommand 'foo'. Try OBJECT HELP."));
  EXPECT_EQ(Run({"object", "encoding"}),
            Err("ERR wrong number of arguments for 'object|encoding' command"));
  EXPECT_EQ(Run({"object", "encoding", "a", "b"}),
            Err("ERR wrong number of arguments for 'object|encoding' command"));
  EXPECT_EQ(Run({"object", "help", "x"}),
            Err("ERR wrong number of arguments for 'object|help' command"));
}

TEST_F(KeysLfuFamilyTest, ObjectFreqOfNewKey) {
  EXPECT_EQ(Run({"set", "y", "hello"}), Ok());
  EXPECT_EQ(Run({"object", "freq", "y"}), Int(5));
}

TEST_F(KeysLfuFamilyTest, ObjectIdletimeNotTrackedUnderLfu) {
  EXPECT_EQ(Run({"set", "y", "hello"}), Ok());
  EXPECT_EQ(Run({"object", "idletime", "y"}),
            Err("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note "
                "that when switching between policies at runtime LRU and LFU data will take "
                "some time to adjust."));
}

}  // namespace
}  // namespace ordis::server::test
