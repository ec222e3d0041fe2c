// HSET HSETNX HMSET HGET HMGET HDEL HLEN HSTRLEN HEXISTS HKEYS HVALS HGETALL HINCRBY HINCRBYFLOAT
// HRANDFIELD HSCAN, in-process. Every expectation was checked against redis-server 7.0.15. A hash's
// field order is unspecified, so whole-hash replies are compared sorted.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
constexpr std::string_view kNotFloat = "ERR value is not a valid float";

// The bulk strings of an array reply, sorted.
std::vector<std::string> Sorted(const Reply& reply) {
  std::vector<std::string> out = reply.Strings();
  std::sort(out.begin(), out.end());
  return out;
}

// A flat field, value, field, value ... array of bulk strings as a map (fails on repeats).
std::map<std::string, std::string> Pairs(const std::vector<Reply>& flat) {
  std::map<std::string, std::string> out;
  EXPECT_EQ(flat.size() % 2, 0u);
  for (size_t i = 0; i + 1 < flat.size(); i += 2) {
    EXPECT_EQ(flat[i].type, Reply::Type::kBulk) << flat[i];
    EXPECT_TRUE(out.emplace(flat[i].str, flat[i + 1].str).second) << flat[i];
  }
  return out;
}

class HashFamilyTest : public FamilyTest {
 protected:
  // Makes h = {f0: v0 ... f9: v9}.
  void MakeTenFields() {
    std::vector<std::string> args = {"hset", "h"};
    for (int i = 0; i < 10; ++i) {
      args.push_back("f" + std::to_string(i));
      args.push_back("v" + std::to_string(i));
    }
    ASSERT_EQ(Run(args), Int(10));
  }
};

TEST_F(HashFamilyTest, HSetCountsNewFieldsAndHGetReads) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2"}), Int(2));
  EXPECT_EQ(Run({"hset", "h", "a", "10", "c", "3"}), Int(1));
  EXPECT_EQ(Run({"hget", "h", "a"}), Bulk("10"));
  EXPECT_EQ(Run({"hget", "h", "zz"}), Nil());
  EXPECT_EQ(Run({"hget", "missing", "a"}), Nil());
  EXPECT_EQ(Run({"hlen", "h"}), Int(3));
  EXPECT_EQ(Run({"hlen", "missing"}), Int(0));
}

TEST_F(HashFamilyTest, HSetAndHMSetArity) {
  EXPECT_EQ(Run({"hset", "h", "a"}), Err("ERR wrong number of arguments for 'hset' command"));
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b"}),
            Err("ERR wrong number of arguments for 'hset' command"));
  EXPECT_EQ(Run({"hmset", "h", "a", "1", "b"}),
            Err("ERR wrong number of arguments for 'hmset' command"));
  EXPECT_EQ(Run({"hmset", "h", "a"}), Err("ERR wrong number of arguments for 'hmset' command"));
  EXPECT_EQ(Run({"hget", "h"}), Err("ERR wrong number of arguments for 'hget' command"));
  EXPECT_EQ(Run({"exists", "h"}), Int(0));
}

TEST_F(HashFamilyTest, HMSetRepliesOk) {
  EXPECT_EQ(Run({"hmset", "h", "a", "1", "b", "2"}), Ok());
  EXPECT_EQ(Run({"hmset", "h", "a", "3"}), Ok());
  EXPECT_EQ(Run({"hget", "h", "a"}), Bulk("3"));
  EXPECT_EQ(Run({"hget", "h", "b"}), Bulk("2"));
}

TEST_F(HashFamilyTest, HSetNxOnlySetsNewFields) {
  EXPECT_EQ(Run({"hset", "h", "a", "3"}), Int(1));
  EXPECT_EQ(Run({"hsetnx", "h", "a", "9"}), Int(0));
  EXPECT_EQ(Run({"hsetnx", "h", "n", "9"}), Int(1));
  EXPECT_EQ(Run({"hget", "h", "a"}), Bulk("3"));
  EXPECT_EQ(Run({"hget", "h", "n"}), Bulk("9"));
  EXPECT_EQ(Run({"hsetnx", "new", "f", "v"}), Int(1));
  EXPECT_EQ(Run({"hgetall", "new"}), Strings({"f", "v"}));
  EXPECT_EQ(Run({"hsetnx", "h", "n"}), Err("ERR wrong number of arguments for 'hsetnx' command"));
}

TEST_F(HashFamilyTest, HMGet) {
  EXPECT_EQ(Run({"hset", "h", "a", "hello", "b", ""}), Int(2));
  EXPECT_EQ(Run({"hmget", "h", "a", "b", "zz"}), Array({Bulk("hello"), Bulk(""), Nil()}));
  EXPECT_EQ(Run({"hmget", "missing", "a", "b"}), Array({Nil(), Nil()}));
  EXPECT_EQ(Run({"hmget", "h"}), Err("ERR wrong number of arguments for 'hmget' command"));
}

TEST_F(HashFamilyTest, HStrLenAndHExists) {
  EXPECT_EQ(Run({"hset", "h", "a", "hello", "b", ""}), Int(2));
  EXPECT_EQ(Run({"hstrlen", "h", "a"}), Int(5));
  EXPECT_EQ(Run({"hstrlen", "h", "b"}), Int(0));
  EXPECT_EQ(Run({"hstrlen", "h", "zz"}), Int(0));
  EXPECT_EQ(Run({"hstrlen", "missing", "a"}), Int(0));
  EXPECT_EQ(Run({"hexists", "h", "a"}), Int(1));
  EXPECT_EQ(Run({"hexists", "h", "zz"}), Int(0));
  EXPECT_EQ(Run({"hexists", "missing", "a"}), Int(0));
}

TEST_F(HashFamilyTest, HDelCountsRemovedAndDeletesEmptyHash) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2", "c", "3"}), Int(3));
  EXPECT_EQ(Run({"hdel", "h", "a", "zz", "a"}), Int(1));
  EXPECT_EQ(Run({"hdel", "h", "zz"}), Int(0));
  EXPECT_EQ(Run({"hdel", "missing", "a"}), Int(0));
  EXPECT_EQ(Run({"hdel", "h", "b", "c"}), Int(2));
  EXPECT_EQ(Run({"exists", "h"}), Int(0));
  EXPECT_EQ(Run({"hdel", "h"}), Err("ERR wrong number of arguments for 'hdel' command"));
}

TEST_F(HashFamilyTest, HKeysHValsHGetAll) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2"}), Int(2));
  EXPECT_EQ(Sorted(Run({"hkeys", "h"})), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(Sorted(Run({"hvals", "h"})), (std::vector<std::string>{"1", "2"}));
  Reply all = Run({"hgetall", "h"});
  ASSERT_EQ(all.type, Reply::Type::kArray) << all;
  EXPECT_EQ(Pairs(all.elements), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
}

TEST_F(HashFamilyTest, HKeysHValsHGetAllOfMissingKeyAreEmpty) {
  EXPECT_EQ(Run({"hkeys", "missing"}), Strings({}));
  EXPECT_EQ(Run({"hvals", "missing"}), Strings({}));
  EXPECT_EQ(Run({"hgetall", "missing"}), Strings({}));
}

TEST_F(HashFamilyTest, HGetAllIsMapOnResp3) {
  EXPECT_EQ(Run({"hset", "one", "a", "b"}), Int(1));
  EXPECT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(RunRaw({"hgetall", "one"}), "%1\r\n$1\r\na\r\n$1\r\nb\r\n");
  EXPECT_EQ(RunRaw({"hgetall", "missing"}), "%0\r\n");
  EXPECT_EQ(RunRaw({"hkeys", "one"}), "*1\r\n$1\r\na\r\n");
}

TEST_F(HashFamilyTest, HashCommandsOnStringAreWrongType) {
  EXPECT_EQ(Run({"set", "s", "v"}), Ok());
  const std::vector<std::vector<std::string>> commands = {{"hset", "s", "a", "1"},
                                                          {"hmset", "s", "a", "1"},
                                                          {"hsetnx", "s", "a", "1"},
                                                          {"hget", "s", "a"},
                                                          {"hmget", "s", "a"},
                                                          {"hdel", "s", "a"},
                                                          {"hlen", "s"},
                                                          {"hstrlen", "s", "a"},
                                                          {"hexists", "s", "a"},
                                                          {"hkeys", "s"},
                                                          {"hvals", "s"},
                                                          {"hgetall", "s"},
                                                          {"hincrby", "s", "a", "1"},
                                                          {"hincrbyfloat", "s", "a", "1"},
                                                          {"hrandfield", "s"},
                                                          {"hrandfield", "s", "2"},
                                                          {"hscan", "s", "0"}};
  for (const auto& command : commands) EXPECT_EQ(Run(command), Err(kWrongType)) << command[0];
  EXPECT_EQ(Run({"get", "s"}), Bulk("v"));
}

TEST_F(HashFamilyTest, HIncrBy) {
  EXPECT_EQ(Run({"hincrby", "h", "a", "5"}), Int(5));
  EXPECT_EQ(Run({"hincrby", "h", "a", "-7"}), Int(-2));
  EXPECT_EQ(Run({"hget", "h", "a"}), Bulk("-2"));
}

TEST_F(HashFamilyTest, HIncrByOverflow) {
  EXPECT_EQ(Run({"hset", "h", "big", "9223372036854775807", "min", "-9223372036854775808"}),
            Int(2));
  EXPECT_EQ(Run({"hincrby", "h", "big", "1"}), Err("ERR increment or decrement would overflow"));
  EXPECT_EQ(Run({"hincrby", "h", "big", "-1"}), Int(9223372036854775806));
  EXPECT_EQ(Run({"hincrby", "h", "min", "-1"}), Err("ERR increment or decrement would overflow"));
  EXPECT_EQ(Run({"hincrby", "h", "min", "0"}), Int(INT64_MIN));
}

TEST_F(HashFamilyTest, HIncrByErrors) {
  EXPECT_EQ(Run({"hset", "h", "s", "foo", "sp", " 1", "f", "1.5"}), Int(3));
  EXPECT_EQ(Run({"hincrby", "h", "s", "1"}), Err("ERR hash value is not an integer"));
  EXPECT_EQ(Run({"hincrby", "h", "sp", "1"}), Err("ERR hash value is not an integer"));
  EXPECT_EQ(Run({"hincrby", "h", "f", "1"}), Err("ERR hash value is not an integer"));
  EXPECT_EQ(Run({"hget", "h", "s"}), Bulk("foo"));
  EXPECT_EQ(Run({"hincrby", "h", "a", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"hincrby", "h", "a", "1.0"}), Err(kNotInteger));
  EXPECT_EQ(Run({"hincrby", "nokey", "a", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"hincrby", "nokey", "a", "9223372036854775808"}), Err(kNotInteger));
  EXPECT_EQ(Run({"exists", "nokey"}), Int(0));
  EXPECT_EQ(Run({"hincrby", "h", "a"}), Err("ERR wrong number of arguments for 'hincrby' command"));
}

TEST_F(HashFamilyTest, HIncrByAcceptsOnlyCanonicalIntegers) {
  EXPECT_EQ(Run({"hincrby", "h", "i", "+5"}), Err(kNotInteger));
  EXPECT_EQ(Run({"hincrby", "h", "i", " 5"}), Err(kNotInteger));
  EXPECT_EQ(Run({"hincrby", "h", "i", "007"}), Err(kNotInteger));
  EXPECT_EQ(Run({"hset", "h", "k", "007", "z", "-0", "m", "12345678901234567890"}), Int(3));
  EXPECT_EQ(Run({"hincrby", "h", "k", "1"}), Err("ERR hash value is not an integer"));
  EXPECT_EQ(Run({"hincrby", "h", "z", "1"}), Err("ERR hash value is not an integer"));
  EXPECT_EQ(Run({"hincrby", "h", "m", "1"}), Err("ERR hash value is not an integer"));
}

TEST_F(HashFamilyTest, HIncrByFloat) {
  EXPECT_EQ(Run({"hincrbyfloat", "h", "a", "10.5"}), Bulk("10.5"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "a", "0.1"}), Bulk("10.6"));
  EXPECT_EQ(Run({"hget", "h", "a"}), Bulk("10.6"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "b", "5.0e3"}), Bulk("5000"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "b", "2.0e2"}), Bulk("5200"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "c", "3.0e1"}), Bulk("30"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "c", "-30"}), Bulk("0"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "x", "1e-5"}), Bulk("0.00001"));
}

TEST_F(HashFamilyTest, HIncrByFloatParsesLikeStrtold) {
  EXPECT_EQ(Run({"hset", "h", "x", "1e5", "hex", "0x10"}), Int(2));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "x", "1"}), Bulk("100001"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "hex", "1"}), Bulk("17"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "y", "0x10"}), Bulk("16"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "s", "+5"}), Bulk("5"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "u", "-0"}), Bulk("0"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "w", "1.5e-10"}), Bulk("0.00000000015"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "v", "123456789012345678901234567890"}),
            Bulk("123456789012345678899921813504"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "t", " 1"}), Err(kNotFloat));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "t", "1 "}), Err(kNotFloat));
}

TEST_F(HashFamilyTest, HIncrByFloatOnIntegerField) {
  EXPECT_EQ(Run({"hset", "h", "i", "7"}), Int(1));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "i", "0.25"}), Bulk("7.25"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "i", "-10"}), Bulk("-2.75"));
}

TEST_F(HashFamilyTest, HIncrByFloatPrintsLargeValuesInFull) {
  EXPECT_EQ(Run({"hset", "h", "m", "1.7976931348623157e308"}), Int(1));
  EXPECT_EQ(Run({"hget", "h", "m"}), Bulk("1.7976931348623157e308"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "m", "1.7976931348623157e308"}),
            Bulk("359538626972463139991842093548208868096772893888658356970628841530353257046248"
                 "792709403737216774171128857586838851041378617416726902272110715794556052955234"
                 "146997955372576789671236326588091188869859074894581254961338834769297758245552"
                 "436667197907705664206565009503223382416235440319971852753604933726679072768"));
}

TEST_F(HashFamilyTest, HIncrByFloatErrors) {
  EXPECT_EQ(Run({"hset", "h", "s", "foo", "inf", "inf", "sp", " 1"}), Int(3));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "s", "1"}), Err("ERR hash value is not a float"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "sp", "1"}), Err("ERR hash value is not a float"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "inf", "1"}),
            Err("ERR increment would produce NaN or Infinity"));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "a", "abc"}), Err(kNotFloat));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "a", "nan"}), Err(kNotFloat));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "a", ""}), Err(kNotFloat));
  EXPECT_EQ(Run({"hincrbyfloat", "h", "a", "inf"}), Err("ERR value is NaN or Infinity"));
  EXPECT_EQ(Run({"hexists", "h", "a"}), Int(0));
}

TEST_F(HashFamilyTest, HIncrByFloatErrorsOnMissingKeyCreateNothing) {
  EXPECT_EQ(Run({"hincrbyfloat", "nokey", "a", "-inf"}), Err("ERR value is NaN or Infinity"));
  EXPECT_EQ(Run({"hincrbyfloat", "nokey", "a", "x"}), Err(kNotFloat));
  EXPECT_EQ(Run({"exists", "nokey"}), Int(0));
}

TEST_F(HashFamilyTest, HRandFieldSingle) {
  MakeTenFields();
  for (int i = 0; i < 20; ++i) {
    Reply r = Run({"hrandfield", "h"});
    ASSERT_EQ(r.type, Reply::Type::kBulk) << r;
    EXPECT_EQ(Run({"hexists", "h", r.str}), Int(1)) << r;
  }
  EXPECT_EQ(RunRaw({"hrandfield", "nokey"}), "$-1\r\n");
}

TEST_F(HashFamilyTest, HRandFieldPositiveCountIsDistinct) {
  MakeTenFields();
  for (int n : {1, 3, 9}) {
    std::vector<std::string> got = Run({"hrandfield", "h", std::to_string(n)}).Strings();
    EXPECT_EQ(got.size(), static_cast<size_t>(n));
    EXPECT_EQ(std::set<std::string>(got.begin(), got.end()).size(), static_cast<size_t>(n));
    for (const std::string& f : got) EXPECT_EQ(Run({"hexists", "h", f}), Int(1)) << f;
  }
}

TEST_F(HashFamilyTest, HRandFieldCountOverSizeGivesWholeHash) {
  MakeTenFields();
  const std::vector<std::string> fields = Sorted(Run({"hkeys", "h"}));
  EXPECT_EQ(Sorted(Run({"hrandfield", "h", "10"})), fields);
  EXPECT_EQ(Sorted(Run({"hrandfield", "h", "11"})), fields);
  EXPECT_EQ(Sorted(Run({"hrandfield", "h", "9223372036854775807"})), fields);
}

TEST_F(HashFamilyTest, HRandFieldZeroAndMissingKeyGiveEmptyArray) {
  MakeTenFields();
  EXPECT_EQ(Run({"hrandfield", "h", "0"}), Strings({}));
  EXPECT_EQ(Run({"hrandfield", "h", "0", "withvalues"}), Strings({}));
  EXPECT_EQ(Run({"hrandfield", "nokey", "5"}), Strings({}));
  EXPECT_EQ(Run({"hrandfield", "nokey", "-5", "withvalues"}), Strings({}));
}

TEST_F(HashFamilyTest, HRandFieldNegativeCountRepeats) {
  MakeTenFields();
  std::vector<std::string> got = Run({"hrandfield", "h", "-30"}).Strings();
  EXPECT_EQ(got.size(), 30u);
  for (const std::string& f : got) EXPECT_EQ(Run({"hexists", "h", f}), Int(1)) << f;
  EXPECT_EQ(Run({"hset", "one", "a", "b"}), Int(1));
  EXPECT_EQ(Run({"hrandfield", "one", "-3"}), Strings({"a", "a", "a"}));
  EXPECT_EQ(Run({"hrandfield", "one", "-2", "WITHVALUES"}), Strings({"a", "b", "a", "b"}));
  EXPECT_EQ(Run({"hrandfield", "one", "5", "withvalues"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"hrandfield", "one", "1"}), Strings({"a"}));
}

TEST_F(HashFamilyTest, HRandFieldWithValuesPairsMatchHash) {
  MakeTenFields();
  for (int n : {3, 10, 50, -20, 1, -1}) {
    Reply r = Run({"hrandfield", "h", std::to_string(n), "WithValues"});
    ASSERT_EQ(r.type, Reply::Type::kArray) << r;
    const size_t want = n > 0 ? std::min(n, 10) : -n;
    ASSERT_EQ(r.elements.size(), 2 * want) << n;
    std::set<std::string> fields;
    for (size_t i = 0; i < r.elements.size(); i += 2) {
      fields.insert(r.elements[i].str);
      EXPECT_EQ(Run({"hget", "h", r.elements[i].str}), r.elements[i + 1]);
    }
    if (n > 0) {
      EXPECT_EQ(fields.size(), want) << n;
    }
  }
}

TEST_F(HashFamilyTest, HRandFieldResp3) {
  EXPECT_EQ(Run({"hset", "one", "a", "b"}), Int(1));
  EXPECT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(RunRaw({"hrandfield", "nokey"}), "_\r\n");
  EXPECT_EQ(RunRaw({"hrandfield", "one", "5", "withvalues"}), "*1\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  EXPECT_EQ(RunRaw({"hrandfield", "one", "-2", "withvalues"}),
            "*2\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n");
  EXPECT_EQ(RunRaw({"hrandfield", "one", "5"}), "*1\r\n$1\r\na\r\n");
}

TEST_F(HashFamilyTest, HRandFieldErrors) {
  EXPECT_EQ(Run({"hset", "h", "a", "1"}), Int(1));
  EXPECT_EQ(Run({"hrandfield", "h", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"hrandfield", "nokey", "1.5"}), Err(kNotInteger));
  EXPECT_EQ(Run({"hrandfield", "h", "1", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"hrandfield", "h", "1", "withvalues", "x"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"hrandfield", "nokey", "1", "foo"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"hrandfield", "h", "-9223372036854775808"}),
            Err("ERR value is out of range, value must between -9223372036854775807 and "
                "9223372036854775807"));
  EXPECT_EQ(Run({"hrandfield", "h", "-9223372036854775807", "withvalues"}),
            Err("ERR value is out of range"));
  EXPECT_EQ(Run({"hrandfield", "nokey", "4611686018427387904", "withvalues"}),
            Err("ERR value is out of range"));
  EXPECT_EQ(Run({"hrandfield", "nokey", "4611686018427387903", "withvalues"}), Strings({}));
}

TEST_F(HashFamilyTest, HScanOfMissingKeyIgnoresOptions) {
  EXPECT_EQ(Run({"hscan", "nokey", "0"}), Array({Bulk("0"), Strings({})}));
  EXPECT_EQ(Run({"hscan", "nokey", "0", "COUNT", "0"}), Array({Bulk("0"), Strings({})}));
}

TEST_F(HashFamilyTest, HScanReturnsAllPairsInOneReply) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2"}), Int(2));
  for (const char* cursor : {"0", "5", "18446744073709551615"}) {
    Reply r = Run({"hscan", "h", cursor});
    ASSERT_EQ(r.type, Reply::Type::kArray) << r;
    ASSERT_EQ(r.elements.size(), 2u) << r;
    EXPECT_EQ(r.elements[0], Bulk("0"));
    EXPECT_EQ(Pairs(r.elements[1].elements),
              (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
  }
}

TEST_F(HashFamilyTest, HScanMatch) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "2"}), Int(2));
  EXPECT_EQ(Run({"hscan", "h", "0", "MATCH", "b*", "COUNT", "1"}),
            Array({Bulk("0"), Strings({"b", "2"})}));
  EXPECT_EQ(Run({"hscan", "h", "0", "MATCH", "a*", "match", "b*"}),
            Array({Bulk("0"), Strings({"b", "2"})}));
  EXPECT_EQ(Run({"hscan", "h", "0", "MATCH", "zz*"}), Array({Bulk("0"), Strings({})}));
  EXPECT_EQ(Run({"hscan", "h", "0", "MATCH", "a?"}), Array({Bulk("0"), Strings({})}));
  Reply r = Run({"hscan", "h", "0", "match", "[ab]", "count", "10"});
  ASSERT_EQ(r.elements.size(), 2u) << r;
  EXPECT_EQ(Pairs(r.elements[1].elements),
            (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}}));
}

TEST_F(HashFamilyTest, HScanErrors) {
  EXPECT_EQ(Run({"hset", "h", "a", "1"}), Int(1));
  EXPECT_EQ(Run({"hscan", "h", "abc"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"hscan", "h", " 1"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"hscan", "h", "18446744073709551616"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"hscan", "nokey", "x"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"hscan", "h", "0", "COUNT", "0"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"hscan", "h", "0", "COUNT", "-1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"hscan", "h", "0", "COUNT", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"hscan", "h", "0", "MATCH"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"hscan", "h", "0", "FOO", "bar"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"hscan", "h", "0", "TYPE", "hash"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"hscan", "h"}), Err("ERR wrong number of arguments for 'hscan' command"));
}

TEST_F(HashFamilyTest, BinaryFieldsAndValues) {
  const std::string field("\0a", 2);
  EXPECT_EQ(Run({"hset", "h", field, "\xff", "b", ""}), Int(2));
  EXPECT_EQ(Run({"hget", "h", field}), Bulk("\xff"));
  EXPECT_EQ(Run({"hscan", "h", "0", "match", std::string("\0*", 2)}),
            Array({Bulk("0"), Strings({field, "\xff"})}));
}

TEST_F(HashFamilyTest, TypeEncodingAndTtlKeptOnWrites) {
  EXPECT_EQ(Run({"hset", "h", "a", "1"}), Int(1));
  EXPECT_EQ(Run({"type", "h"}), Status("hash"));
  EXPECT_EQ(Run({"object", "encoding", "h"}), Bulk("listpack"));
  EXPECT_EQ(Run({"expire", "h", "100"}), Int(1));
  EXPECT_EQ(Run({"hset", "h", "b", "2"}), Int(1));
  EXPECT_EQ(Run({"hdel", "h", "a"}), Int(1));
  EXPECT_EQ(Run({"hincrby", "h", "n", "1"}), Int(1));
  EXPECT_EQ(Run({"ttl", "h"}), Int(100));
}

TEST_F(HashFamilyTest, HSetOfSameValueAbortsExec) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "x"}), Int(2));
  EXPECT_EQ(WatchedExec("h", {"hset", "h", "a", "1"}), NilArray());
}

TEST_F(HashFamilyTest, HDelOfFieldAbortsExec) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "x"}), Int(2));
  EXPECT_EQ(WatchedExec("h", {"hdel", "h", "a"}), NilArray());
}

TEST_F(HashFamilyTest, NoOpHSetNxDoesNotAbortExec) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "x"}), Int(2));
  EXPECT_EQ(WatchedExec("h", {"hsetnx", "h", "a", "2"}), Array({Status("PONG")}));
}

TEST_F(HashFamilyTest, NoOpHDelDoesNotAbortExec) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "x"}), Int(2));
  EXPECT_EQ(WatchedExec("h", {"hdel", "h", "zz"}), Array({Status("PONG")}));
}

TEST_F(HashFamilyTest, FailedHIncrByDoesNotAbortExec) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "x"}), Int(2));
  EXPECT_EQ(WatchedExec("h", {"hincrby", "h", "b", "1"}), Array({Status("PONG")}));
}

TEST_F(HashFamilyTest, FailedHIncrByFloatDoesNotAbortExec) {
  EXPECT_EQ(Run({"hset", "h", "a", "1", "b", "x"}), Int(2));
  EXPECT_EQ(WatchedExec("h", {"hincrbyfloat", "h", "b", "1"}), Array({Status("PONG")}));
}

}  // namespace
}  // namespace ordis::server::test
