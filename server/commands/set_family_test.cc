// SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS SPOP SRANDMEMBER SMOVE SINTER SUNION SDIFF
// SINTERSTORE SUNIONSTORE SDIFFSTORE SINTERCARD SSCAN, in-process. Every expectation was checked
// against redis-server 7.0.15. Member order is unspecified (Redis orders intsets, ordis does not),
// so member lists are compared sorted; random picks are checked by their properties.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

using Members = std::vector<std::string>;

constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
constexpr std::string_view kNotPositive = "ERR value is out of range, must be positive";

// The bulk strings of an array reply, sorted.
Members Sorted(const Reply& reply) {
  Members out = reply.Strings();
  std::sort(out.begin(), out.end());
  return out;
}

bool Distinct(const Members& members) {
  return std::set<std::string>(members.begin(), members.end()).size() == members.size();
}

class SetFamilyTest : public FamilyTest {
 protected:
  // Adds m0 ... m<n-1> to key.
  void AddNumbered(const std::string& key, int n) {
    std::vector<std::string> args = {"sadd", key};
    for (int i = 0; i < n; ++i) args.push_back("m" + std::to_string(i));
    ASSERT_EQ(Run(args), Int(n));
  }

  // Makes a = {1 2 3 x}, b = {2 3 4}, c = {3 x}.
  void MakeAlgebraSets() {
    ASSERT_EQ(Run({"sadd", "a", "1", "2", "3", "x"}), Int(4));
    ASSERT_EQ(Run({"sadd", "b", "2", "3", "4"}), Int(3));
    ASSERT_EQ(Run({"sadd", "c", "3", "x"}), Int(2));
  }

  bool IsMember(const std::string& key, const std::string& member) {
    return Run({"sismember", key, member}) == Int(1);
  }
};

TEST_F(SetFamilyTest, SAddCountsNewMembers) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b", "c"}), Int(3));
  EXPECT_EQ(Run({"sadd", "s", "a", "d"}), Int(1));
  EXPECT_EQ(Run({"scard", "s"}), Int(4));
  EXPECT_EQ(Sorted(Run({"smembers", "s"})), (Members{"a", "b", "c", "d"}));
  EXPECT_EQ(Run({"scard", "missing"}), Int(0));
}

TEST_F(SetFamilyTest, SRemCountsRemovedAndDeletesEmptySet) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b", "c", "d"}), Int(4));
  EXPECT_EQ(Run({"srem", "s", "a", "zz"}), Int(1));
  EXPECT_EQ(Run({"srem", "s", "zz"}), Int(0));
  EXPECT_EQ(Run({"srem", "missing", "a"}), Int(0));
  EXPECT_EQ(Run({"srem", "s", "b", "c", "d"}), Int(3));
  EXPECT_EQ(Run({"exists", "s"}), Int(0));
}

TEST_F(SetFamilyTest, Arity) {
  EXPECT_EQ(Run({"sadd", "s"}), Err("ERR wrong number of arguments for 'sadd' command"));
  EXPECT_EQ(Run({"srem", "s"}), Err("ERR wrong number of arguments for 'srem' command"));
  EXPECT_EQ(Run({"scard"}), Err("ERR wrong number of arguments for 'scard' command"));
  EXPECT_EQ(Run({"sismember", "s"}), Err("ERR wrong number of arguments for 'sismember' command"));
  EXPECT_EQ(Run({"smismember", "s"}),
            Err("ERR wrong number of arguments for 'smismember' command"));
  EXPECT_EQ(Run({"smove", "src", "dst"}), Err("ERR wrong number of arguments for 'smove' command"));
  EXPECT_EQ(Run({"sinter"}), Err("ERR wrong number of arguments for 'sinter' command"));
  EXPECT_EQ(Run({"sunion"}), Err("ERR wrong number of arguments for 'sunion' command"));
  EXPECT_EQ(Run({"sdiff"}), Err("ERR wrong number of arguments for 'sdiff' command"));
  EXPECT_EQ(Run({"sinterstore", "d"}),
            Err("ERR wrong number of arguments for 'sinterstore' command"));
  EXPECT_EQ(Run({"sintercard", "1"}),
            Err("ERR wrong number of arguments for 'sintercard' command"));
  EXPECT_EQ(Run({"sscan", "s"}), Err("ERR wrong number of arguments for 'sscan' command"));
}

TEST_F(SetFamilyTest, SIsMemberAndSMIsMember) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"sismember", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"sismember", "s", "zz"}), Int(0));
  EXPECT_EQ(Run({"sismember", "missing", "a"}), Int(0));
  EXPECT_EQ(Run({"smismember", "s", "a", "zz", "b"}), Array({Int(1), Int(0), Int(1)}));
  EXPECT_EQ(Run({"smismember", "missing", "a", "b"}), Array({Int(0), Int(0)}));
}

TEST_F(SetFamilyTest, SetCommandsOnStringAreWrongType) {
  EXPECT_EQ(Run({"set", "str", "x"}), Ok());
  const std::vector<std::vector<std::string>> commands = {{"sadd", "str", "a"},
                                                          {"srem", "str", "a"},
                                                          {"scard", "str"},
                                                          {"sismember", "str", "a"},
                                                          {"smismember", "str", "a"},
                                                          {"smembers", "str"},
                                                          {"spop", "str"},
                                                          {"spop", "str", "2"},
                                                          {"spop", "str", "0"},
                                                          {"srandmember", "str"},
                                                          {"srandmember", "str", "-2"},
                                                          {"srandmember", "str", "0"},
                                                          {"sscan", "str", "0"},
                                                          {"smove", "str", "s", "a"},
                                                          {"sinter", "str"},
                                                          {"sunion", "str"},
                                                          {"sdiff", "str"},
                                                          {"sinterstore", "d", "str"},
                                                          {"sintercard", "1", "str"}};
  for (const auto& command : commands) EXPECT_EQ(Run(command), Err(kWrongType)) << command[0];
  EXPECT_EQ(Run({"get", "str"}), Bulk("x"));
}

TEST_F(SetFamilyTest, Resp2Replies) {
  EXPECT_EQ(RunRaw({"smembers", "nokey"}), "*0\r\n");
  EXPECT_EQ(RunRaw({"spop", "nokey"}), "$-1\r\n");
  EXPECT_EQ(RunRaw({"spop", "nokey", "2"}), "*0\r\n");
  EXPECT_EQ(RunRaw({"srandmember", "nokey"}), "$-1\r\n");
  EXPECT_EQ(Run({"sadd", "s", "a"}), Int(1));
  EXPECT_EQ(RunRaw({"smembers", "s"}), "*1\r\n$1\r\na\r\n");
  EXPECT_EQ(RunRaw({"sinter", "s"}), "*1\r\n$1\r\na\r\n");
  EXPECT_EQ(RunRaw({"srandmember", "s", "1"}), "*1\r\n$1\r\na\r\n");
}

TEST_F(SetFamilyTest, Resp3SetReplies) {
  EXPECT_EQ(Run({"sadd", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"sadd", "t", "a"}), Int(1));
  EXPECT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(RunRaw({"smembers", "nokey"}), "~0\r\n");
  EXPECT_EQ(RunRaw({"smembers", "s"}), "~1\r\n$1\r\na\r\n");
  EXPECT_EQ(RunRaw({"sinter", "s", "t"}), "~1\r\n$1\r\na\r\n");
  EXPECT_EQ(RunRaw({"sunion", "s", "t"}), "~1\r\n$1\r\na\r\n");
  EXPECT_EQ(RunRaw({"sdiff", "s", "nokey"}), "~1\r\n$1\r\na\r\n");
  EXPECT_EQ(RunRaw({"sinter", "s", "nokey"}), "~0\r\n");
  EXPECT_EQ(RunRaw({"sdiff", "s", "t"}), "~0\r\n");
  EXPECT_EQ(RunRaw({"smismember", "s", "a", "b"}), "*2\r\n:1\r\n:0\r\n");
  EXPECT_EQ(RunRaw({"sscan", "s", "0"}), "*2\r\n$1\r\n0\r\n*1\r\n$1\r\na\r\n");
}

TEST_F(SetFamilyTest, Resp3RandomReplies) {
  EXPECT_EQ(Run({"sadd", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(RunRaw({"srandmember", "s", "1"}), "*1\r\n$1\r\na\r\n");
  EXPECT_EQ(RunRaw({"srandmember", "s", "0"}), "*0\r\n");
  EXPECT_EQ(RunRaw({"srandmember", "nokey", "3"}), "*0\r\n");
  EXPECT_EQ(RunRaw({"srandmember", "nokey"}), "_\r\n");
  EXPECT_EQ(RunRaw({"spop", "nokey"}), "_\r\n");
  EXPECT_EQ(RunRaw({"spop", "nokey", "1"}), "~0\r\n");
  EXPECT_EQ(RunRaw({"spop", "s", "0"}), "~0\r\n");
  EXPECT_EQ(RunRaw({"spop", "s", "1"}), "~1\r\n$1\r\na\r\n");
}

TEST_F(SetFamilyTest, SPopRemovesEachMemberOnce) {
  const Members members = {"1", "2", "a", "b", "c"};
  EXPECT_EQ(Run({"sadd", "s", "a", "b", "c", "1", "2"}), Int(5));
  std::set<std::string> popped;
  for (int left = 4; left >= 0; --left) {
    Reply r = Run({"spop", "s"});
    ASSERT_EQ(r.type, Reply::Type::kBulk) << r;
    EXPECT_TRUE(std::binary_search(members.begin(), members.end(), r.str)) << r;
    EXPECT_TRUE(popped.insert(r.str).second) << r;
    EXPECT_EQ(Run({"scard", "s"}), Int(left));
  }
  EXPECT_EQ(Run({"exists", "s"}), Int(0));
  EXPECT_EQ(Run({"spop", "s"}), Nil());
}

TEST_F(SetFamilyTest, SPopWithCount) {
  AddNumbered("s", 100);
  EXPECT_EQ(Run({"spop", "s", "0"}), Strings({}));
  EXPECT_EQ(Run({"scard", "s"}), Int(100));
  std::set<std::string> seen;
  for (auto [count, left] : {std::pair{10, 90}, {80, 10}, {1, 9}}) {
    Members got = Run({"spop", "s", std::to_string(count)}).Strings();
    EXPECT_EQ(got.size(), static_cast<size_t>(count));
    EXPECT_TRUE(Distinct(got));
    for (const std::string& m : got) {
      EXPECT_TRUE(seen.insert(m).second) << m;
      EXPECT_FALSE(IsMember("s", m)) << m;
    }
    EXPECT_EQ(Run({"scard", "s"}), Int(left));
  }
  Members rest = Run({"spop", "s", "100"}).Strings();
  EXPECT_EQ(rest.size(), 9u);
  for (const std::string& m : rest) EXPECT_TRUE(seen.insert(m).second) << m;
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_EQ(Run({"exists", "s"}), Int(0));
}

TEST_F(SetFamilyTest, SPopOfHugeCountTakesWholeSet) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(Sorted(Run({"spop", "s", "9223372036854775807"})), (Members{"a", "b"}));
  EXPECT_EQ(Run({"exists", "s"}), Int(0));
}

TEST_F(SetFamilyTest, SPopErrors) {
  EXPECT_EQ(Run({"sadd", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"spop", "s", "-1"}), Err(kNotPositive));
  EXPECT_EQ(Run({"spop", "s", "x"}), Err(kNotPositive));
  EXPECT_EQ(Run({"spop", "nokey", "-3"}), Err(kNotPositive));
  EXPECT_EQ(Run({"spop", "s", "1", "2"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scard", "s"}), Int(1));
}

TEST_F(SetFamilyTest, SPopOfMissingKeyWithCountIsEmpty) {
  EXPECT_EQ(Run({"spop", "nokey", "2"}), Strings({}));
  EXPECT_EQ(Run({"spop", "nokey", "0"}), Strings({}));
}

TEST_F(SetFamilyTest, SRandMember) {
  const Members members = {"a", "b", "c"};
  EXPECT_EQ(Run({"sadd", "s", "a", "b", "c"}), Int(3));
  for (int i = 0; i < 20; ++i) {
    Reply r = Run({"srandmember", "s"});
    ASSERT_EQ(r.type, Reply::Type::kBulk) << r;
    EXPECT_TRUE(std::binary_search(members.begin(), members.end(), r.str)) << r;
  }
  EXPECT_EQ(Run({"srandmember", "s", "0"}), Strings({}));
  Members two = Run({"srandmember", "s", "2"}).Strings();
  EXPECT_EQ(two.size(), 2u);
  EXPECT_TRUE(Distinct(two));
  for (const std::string& m : two) EXPECT_TRUE(IsMember("s", m)) << m;
  EXPECT_EQ(Sorted(Run({"srandmember", "s", "3"})), members);
  EXPECT_EQ(Sorted(Run({"srandmember", "s", "10"})), members);
  EXPECT_EQ(Run({"scard", "s"}), Int(3));
}

TEST_F(SetFamilyTest, SRandMemberNegativeCountRepeats) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b", "c"}), Int(3));
  Members got = Run({"srandmember", "s", "-300"}).Strings();
  EXPECT_EQ(got.size(), 300u);
  // 300 draws from 3 members miss one with probability 3 * (2/3)^300.
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), (std::set<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Run({"sadd", "one", "a"}), Int(1));
  EXPECT_EQ(Run({"srandmember", "one", "-3"}), Strings({"a", "a", "a"}));
  EXPECT_EQ(Run({"srandmember", "one", "9223372036854775807"}), Strings({"a"}));
}

TEST_F(SetFamilyTest, SRandMemberDistinctSampleOfLargeSet) {
  AddNumbered("s", 1000);
  for (int count : {1, 10, 400, 900, 999}) {
    Members got = Run({"srandmember", "s", std::to_string(count)}).Strings();
    EXPECT_EQ(got.size(), static_cast<size_t>(count));
    EXPECT_TRUE(Distinct(got)) << count;
    for (const std::string& m : got) EXPECT_TRUE(IsMember("s", m)) << m;
  }
  EXPECT_EQ(Run({"scard", "s"}), Int(1000));
}

TEST_F(SetFamilyTest, SRandMemberErrorsAndMissingKey) {
  EXPECT_EQ(Run({"sadd", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"srandmember", "s", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"srandmember", "s", "-9223372036854775808"}),
            Err("ERR value is out of range, value must between -9223372036854775807 and "
                "9223372036854775807"));
  EXPECT_EQ(Run({"srandmember", "s", "1", "2"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"srandmember", "nokey"}), Nil());
  EXPECT_EQ(Run({"srandmember", "nokey", "-5"}), Strings({}));
  EXPECT_EQ(Run({"srandmember", "nokey", "-9223372036854775807"}), Strings({}));
}

TEST_F(SetFamilyTest, SMove) {
  EXPECT_EQ(Run({"sadd", "src", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"sadd", "dst", "c"}), Int(1));
  EXPECT_EQ(Run({"smove", "src", "dst", "a"}), Int(1));
  EXPECT_EQ(Run({"smembers", "src"}), Strings({"b"}));
  EXPECT_EQ(Sorted(Run({"smembers", "dst"})), (Members{"a", "c"}));
  EXPECT_EQ(Run({"smove", "src", "dst", "zz"}), Int(0));
  EXPECT_EQ(Run({"smove", "nokey", "dst", "a"}), Int(0));
}

TEST_F(SetFamilyTest, SMoveMemberAlreadyInDestinationAndLastMember) {
  EXPECT_EQ(Run({"sadd", "src", "b"}), Int(1));
  EXPECT_EQ(Run({"sadd", "dst", "b", "c"}), Int(2));
  EXPECT_EQ(Run({"smove", "src", "dst", "b"}), Int(1));
  EXPECT_EQ(Run({"exists", "src"}), Int(0));
  EXPECT_EQ(Run({"scard", "dst"}), Int(2));
  EXPECT_EQ(Run({"smove", "dst", "new", "c"}), Int(1));
  EXPECT_EQ(Run({"smembers", "new"}), Strings({"c"}));
}

TEST_F(SetFamilyTest, SMoveSameKey) {
  EXPECT_EQ(Run({"sadd", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"smove", "s", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"smove", "s", "s", "b"}), Int(0));
  EXPECT_EQ(Run({"smembers", "s"}), Strings({"a"}));
}

TEST_F(SetFamilyTest, SMoveWrongTypes) {
  EXPECT_EQ(Run({"set", "str", "x"}), Ok());
  EXPECT_EQ(Run({"sadd", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"smove", "str", "s", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"smove", "s", "str", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"smove", "s", "str", "zz"}), Err(kWrongType));
  EXPECT_EQ(Run({"smove", "nokey", "str", "a"}), Int(0));  // a missing source answers first
  EXPECT_EQ(Run({"smembers", "s"}), Strings({"a"}));
  EXPECT_EQ(Run({"get", "str"}), Bulk("x"));
}

TEST_F(SetFamilyTest, SInter) {
  MakeAlgebraSets();
  EXPECT_EQ(Sorted(Run({"sinter", "a", "b"})), (Members{"2", "3"}));
  EXPECT_EQ(Run({"sinter", "a", "b", "c"}), Strings({"3"}));
  EXPECT_EQ(Sorted(Run({"sinter", "a"})), (Members{"1", "2", "3", "x"}));
  EXPECT_EQ(Sorted(Run({"sinter", "a", "a"})), (Members{"1", "2", "3", "x"}));
  EXPECT_EQ(Run({"sinter", "a", "nokey"}), Strings({}));
  EXPECT_EQ(Run({"sinter", "nokey", "a"}), Strings({}));
}

TEST_F(SetFamilyTest, SUnion) {
  MakeAlgebraSets();
  EXPECT_EQ(Sorted(Run({"sunion", "a", "b"})), (Members{"1", "2", "3", "4", "x"}));
  EXPECT_EQ(Sorted(Run({"sunion", "nokey", "c"})), (Members{"3", "x"}));
  EXPECT_EQ(Run({"sunion", "nokey"}), Strings({}));
}

TEST_F(SetFamilyTest, SDiff) {
  MakeAlgebraSets();
  EXPECT_EQ(Sorted(Run({"sdiff", "a", "b"})), (Members{"1", "x"}));
  EXPECT_EQ(Run({"sdiff", "a", "b", "c"}), Strings({"1"}));
  EXPECT_EQ(Sorted(Run({"sdiff", "a", "nokey"})), (Members{"1", "2", "3", "x"}));
  EXPECT_EQ(Run({"sdiff", "a", "a"}), Strings({}));
  EXPECT_EQ(Run({"sdiff", "nokey", "a"}), Strings({}));
}

TEST_F(SetFamilyTest, StoreVariants) {
  MakeAlgebraSets();
  EXPECT_EQ(Run({"sinterstore", "d1", "a", "b"}), Int(2));
  EXPECT_EQ(Sorted(Run({"smembers", "d1"})), (Members{"2", "3"}));
  EXPECT_EQ(Run({"sunionstore", "d2", "a", "b", "nokey"}), Int(5));
  EXPECT_EQ(Sorted(Run({"smembers", "d2"})), (Members{"1", "2", "3", "4", "x"}));
  EXPECT_EQ(Run({"sdiffstore", "d3", "a", "b"}), Int(2));
  EXPECT_EQ(Sorted(Run({"smembers", "d3"})), (Members{"1", "x"}));
}

TEST_F(SetFamilyTest, StoreIntoOneOfItsSources) {
  MakeAlgebraSets();
  EXPECT_EQ(Run({"sinterstore", "a", "a", "c", "b"}), Int(1));
  EXPECT_EQ(Run({"smembers", "a"}), Strings({"3"}));
}

TEST_F(SetFamilyTest, StoreReplacesAnyTypeAndDropsTtl) {
  EXPECT_EQ(Run({"sadd", "a", "1", "2"}), Int(2));
  EXPECT_EQ(Run({"sadd", "b", "2", "3"}), Int(2));
  EXPECT_EQ(Run({"set", "dst", "string", "EX", "100"}), Ok());
  EXPECT_EQ(Run({"sinterstore", "dst", "a", "b"}), Int(1));
  EXPECT_EQ(Run({"type", "dst"}), Status("set"));
  EXPECT_EQ(Run({"ttl", "dst"}), Int(-1));
  EXPECT_EQ(Run({"smembers", "dst"}), Strings({"2"}));
}

TEST_F(SetFamilyTest, StoreOfEmptyResultDeletesDestination) {
  EXPECT_EQ(Run({"sadd", "a", "1", "2"}), Int(2));
  EXPECT_EQ(Run({"set", "dst", "x"}), Ok());
  EXPECT_EQ(Run({"sinterstore", "dst", "a", "nokey"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
  EXPECT_EQ(Run({"sinterstore", "dst", "a", "nokey"}), Int(0));
  EXPECT_EQ(Run({"set", "dst", "x"}), Ok());
  EXPECT_EQ(Run({"sunionstore", "dst", "nokey"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
  EXPECT_EQ(Run({"set", "dst", "x"}), Ok());
  EXPECT_EQ(Run({"sdiffstore", "dst", "a", "a"}), Int(0));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
}

TEST_F(SetFamilyTest, AlgebraWrongTypes) {
  EXPECT_EQ(Run({"sadd", "a", "1", "2", "3", "x"}), Int(4));
  EXPECT_EQ(Run({"set", "str", "x"}), Ok());
  EXPECT_EQ(Run({"sinter", "a", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"sinter", "str", "a"}), Err(kWrongType));
  EXPECT_EQ(Run({"sinter", "nokey", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"sunion", "nokey", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"sdiff", "nokey", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"sdiff", "a", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"sinterstore", "d", "a", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"sunionstore", "d", "a", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"sdiffstore", "d", "nokey", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  EXPECT_EQ(Run({"sinterstore", "str", "a", "a"}), Int(4));  // any destination type is fine
  EXPECT_EQ(Run({"type", "str"}), Status("set"));
}

TEST_F(SetFamilyTest, SInterCard) {
  MakeAlgebraSets();
  EXPECT_EQ(Run({"sintercard", "2", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"sintercard", "3", "a", "b", "c"}), Int(1));
  EXPECT_EQ(Run({"sintercard", "1", "a"}), Int(4));
  EXPECT_EQ(Run({"sintercard", "2", "a", "nokey"}), Int(0));
}

TEST_F(SetFamilyTest, SInterCardLimit) {
  MakeAlgebraSets();
  EXPECT_EQ(Run({"sintercard", "2", "a", "b", "LIMIT", "1"}), Int(1));
  EXPECT_EQ(Run({"sintercard", "2", "a", "b", "limit", "0"}), Int(2));
  EXPECT_EQ(Run({"sintercard", "2", "a", "b", "LIMIT", "10"}), Int(2));
  EXPECT_EQ(Run({"sintercard", "2", "a", "b", "LIMIT", "5", "LIMIT", "1"}), Int(1));
}

TEST_F(SetFamilyTest, SInterCardErrors) {
  MakeAlgebraSets();
  EXPECT_EQ(Run({"set", "str", "x"}), Ok());
  EXPECT_EQ(Run({"sintercard", "0", "a"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"sintercard", "-1", "a"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"sintercard", "x", "a"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"sintercard", "3", "a", "b"}),
            Err("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(Run({"sintercard", "1", "a", "LIMIT", "-1"}), Err("ERR LIMIT can't be negative"));
  EXPECT_EQ(Run({"sintercard", "1", "a", "LIMIT", "x"}), Err("ERR LIMIT can't be negative"));
  EXPECT_EQ(Run({"sintercard", "1", "a", "LIMIT"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sintercard", "1", "a", "b"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sintercard", "2", "nokey", "str"}), Err(kWrongType));
  EXPECT_EQ(Run({"sintercard", "2", "a", "str"}), Err(kWrongType));
}

TEST_F(SetFamilyTest, SInterCardExtremeArguments) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"sintercard", "9223372036854775807", "s"}),
            Err("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(Run({"sintercard", "18446744073709551617", "s"}),
            Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"sintercard", "1", "s", "limit", "9223372036854775808"}),
            Err("ERR LIMIT can't be negative"));
  EXPECT_EQ(Run({"sintercard", "1", "s", "limit", "-0"}), Err("ERR LIMIT can't be negative"));
}

TEST_F(SetFamilyTest, SScanReturnsAllMembersInOneReply) {
  EXPECT_EQ(Run({"sadd", "s", "1", "2", "3"}), Int(3));
  Reply r = Run({"sscan", "s", "0"});
  ASSERT_EQ(r.type, Reply::Type::kArray) << r;
  ASSERT_EQ(r.elements.size(), 2u) << r;
  EXPECT_EQ(r.elements[0], Bulk("0"));
  EXPECT_EQ(Sorted(r.elements[1]), (Members{"1", "2", "3"}));
  EXPECT_EQ(Run({"sscan", "s", "0", "MATCH", "2*", "COUNT", "1"}),
            Array({Bulk("0"), Strings({"2"})}));
  EXPECT_EQ(Run({"sscan", "nokey", "0"}), Array({Bulk("0"), Strings({})}));
}

TEST_F(SetFamilyTest, SScanGlobPatterns) {
  EXPECT_EQ(Run({"sadd", "s", "hello", "hallo", "hxllo", "hllo", "h*llo"}), Int(5));
  Reply r = Run({"sscan", "s", "0", "MATCH", "h[ae]llo"});
  ASSERT_EQ(r.elements.size(), 2u) << r;
  EXPECT_EQ(Sorted(r.elements[1]), (Members{"hallo", "hello"}));
  EXPECT_EQ(Run({"sscan", "s", "0", "MATCH", "h\\*llo"}), Array({Bulk("0"), Strings({"h*llo"})}));
}

TEST_F(SetFamilyTest, SScanErrors) {
  EXPECT_EQ(Run({"sadd", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"sscan", "s", "abc"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"sscan", "s", " 1"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"sscan", "s", "99999999999999999999999"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"sscan", "s", "0", "COUNT", "0"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sscan", "s", "0", "COUNT", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"sscan", "s", "0", "MATCH"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"sscan", "s", "0", "TYPE", "string"}), Err("ERR syntax error"));
}

TEST_F(SetFamilyTest, SScanChecksCursorFirstAndOptionsOnlyOnSets) {
  EXPECT_EQ(Run({"sscan", "nokey", "0", "COUNT", "0"}), Array({Bulk("0"), Strings({})}));
  EXPECT_EQ(Run({"sscan", "nokey", "x"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"set", "str", "x"}), Ok());
  EXPECT_EQ(Run({"sscan", "str", "0", "COUNT", "0"}), Err(kWrongType));
  EXPECT_EQ(Run({"sscan", "str", "x"}), Err("ERR invalid cursor"));
}

TEST_F(SetFamilyTest, BinaryMembers) {
  const std::string nul("a\0b", 3);
  EXPECT_EQ(Run({"sadd", "s", "", nul, "\r\n"}), Int(3));
  EXPECT_EQ(Run({"sismember", "s", nul}), Int(1));
  EXPECT_EQ(Run({"sismember", "s", "a"}), Int(0));
  EXPECT_EQ(Sorted(Run({"smembers", "s"})), (Members{"", "\r\n", nul}));
  EXPECT_EQ(Run({"srem", "s", ""}), Int(1));
}

TEST_F(SetFamilyTest, TypeEncodingAndTtlKeptOnWrites) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"type", "s"}), Status("set"));
  EXPECT_EQ(Run({"object", "encoding", "s"}), Bulk("hashtable"));
  EXPECT_EQ(Run({"sadd", "i", "1", "2"}), Int(2));
  EXPECT_EQ(Run({"object", "encoding", "i"}), Bulk("intset"));
  EXPECT_EQ(Run({"expire", "s", "100"}), Int(1));
  EXPECT_EQ(Run({"sadd", "s", "c"}), Int(1));
  EXPECT_EQ(Run({"srem", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"ttl", "s"}), Int(100));
}

TEST_F(SetFamilyTest, SAddOfNewMemberAbortsExec) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(WatchedExec("s", {"sadd", "s", "new"}), NilArray());
}

TEST_F(SetFamilyTest, SPopAbortsExec) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(WatchedExec("s", {"spop", "s"}), NilArray());
}

TEST_F(SetFamilyTest, SMoveIntoWatchedSetAbortsExec) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(Run({"sadd", "t", "t1"}), Int(1));
  EXPECT_EQ(WatchedExec("s", {"smove", "t", "s", "t1"}), NilArray());
}

TEST_F(SetFamilyTest, EmptyStoreOverWatchedSetAbortsExec) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(WatchedExec("s", {"sunionstore", "s", "nokey"}), NilArray());
}

TEST_F(SetFamilyTest, SAddOfExistingMemberDoesNotAbortExec) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(WatchedExec("s", {"sadd", "s", "a"}), Array({Status("PONG")}));
}

TEST_F(SetFamilyTest, NoOpSRemDoesNotAbortExec) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(WatchedExec("s", {"srem", "s", "zz"}), Array({Status("PONG")}));
}

TEST_F(SetFamilyTest, SMoveWithinSameSetDoesNotAbortExec) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(WatchedExec("s", {"smove", "s", "s", "a"}), Array({Status("PONG")}));
}

TEST_F(SetFamilyTest, SPopOfZeroDoesNotAbortExec) {
  EXPECT_EQ(Run({"sadd", "s", "a", "b"}), Int(2));
  EXPECT_EQ(WatchedExec("s", {"spop", "s", "0"}), Array({Status("PONG")}));
}

}  // namespace
}  // namespace ordis::server::test
