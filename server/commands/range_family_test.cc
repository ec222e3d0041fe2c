// KRANGE KCOUNT KEYS SCAN RANDOMKEY, in-process. KEYS, RANDOMKEY and SCAN's replies and errors
// were checked against redis-server 7.0.15; KRANGE, KCOUNT and SCAN's key order are ordis's own
// (README "KRANGE and KCOUNT" and "Differences by design").
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "base/clock.h"
#include "server/commands/family_test_support.h"
#include "server/keyspace/keyspace.h"
#include "server/keyspace/object.h"

namespace ordis::server::test {
namespace {

constexpr std::string_view kBadRange = "ERR min or max not valid string range item";

class RangeFamilyTest : public FamilyTest {
 protected:
  void SetFiveKeys() {
    ASSERT_EQ(Run({"mset", "b", "2", "a", "1", "user:2", "bob", "c", "3", "user:1", "alice"}),
              Ok());
  }
  // Lets key's TTL pass without deleting it, as if its time had come and nobody touched it yet.
  void ExpireInThePast(std::string_view key) {
    Object* obj = keyspace().FindForWrite(0, key, NowMs());
    ASSERT_NE(obj, nullptr);
    obj = keyspace().SetExpire(0, key, obj, 1);
  }
};

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// --- KRANGE ---

TEST_F(RangeFamilyTest, KRangeOfAnEmptyDatabase) {
  EXPECT_EQ(Run({"krange", "-", "+"}), Array({}));
  EXPECT_EQ(Run({"kcount", "-", "+"}), Int(0));
}

TEST_F(RangeFamilyTest, KRangeListsAllKeysInByteOrder) {
  SetFiveKeys();
  EXPECT_EQ(Run({"krange", "-", "+"}), Strings({"a", "b", "c", "user:1", "user:2"}));
}

TEST_F(RangeFamilyTest, KRangeInclusiveAndExclusiveBounds) {
  SetFiveKeys();
  EXPECT_EQ(Run({"krange", "[b", "[user:1"}), Strings({"b", "c", "user:1"}));
  EXPECT_EQ(Run({"krange", "(b", "(user:1"}), Strings({"c"}));
  EXPECT_EQ(Run({"krange", "[user:", "+"}), Strings({"user:1", "user:2"}));
  EXPECT_EQ(Run({"krange", "-", "(c"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"krange", "[bb", "[bz"}), Array({}));
  EXPECT_EQ(Run({"krange", "[c", "[a"}), Array({}));  // min above max
}

TEST_F(RangeFamilyTest, KRangeEmptyWhenTheEndsAreSwapped) {
  SetFiveKeys();
  EXPECT_EQ(Run({"krange", "+", "-"}), Array({}));
  EXPECT_EQ(Run({"krange", "-", "+", "REV"}), Array({}));
}

TEST_F(RangeFamilyTest, KRangeRevTakesTheUpperBoundFirst) {
  SetFiveKeys();
  EXPECT_EQ(Run({"krange", "+", "-", "REV"}), Strings({"user:2", "user:1", "c", "b", "a"}));
  EXPECT_EQ(Run({"krange", "[c", "[a", "rev"}), Strings({"c", "b", "a"}));
  EXPECT_EQ(Run({"krange", "(user:2", "(a", "REV"}), Strings({"user:1", "c", "b"}));
}

TEST_F(RangeFamilyTest, KRangeAPrefixSortsFirst) {
  ASSERT_EQ(Run({"mset", "ab", "1", "b", "2", "a", "3", "abc", "4", "", "5"}), Ok());
  EXPECT_EQ(Run({"krange", "-", "+"}), Strings({"", "a", "ab", "abc", "b"}));
  EXPECT_EQ(Run({"krange", "(a", "[abc"}), Strings({"ab", "abc"}));
}

TEST_F(RangeFamilyTest, KRangeComparesBytesUnsigned) {
  const std::string zero("k\0", 2), high("k\xff", 2);
  ASSERT_EQ(Run({"mset", high, "h", "k", "plain", zero, "z", "kA", "a"}), Ok());
  EXPECT_EQ(Run({"krange", "-", "+"}), Strings({"k", zero, "kA", high}));
  EXPECT_EQ(Run({"krange", "(k", "+"}), Strings({zero, "kA", high}));
}

TEST_F(RangeFamilyTest, KRangeLimit) {
  SetFiveKeys();
  EXPECT_EQ(Run({"krange", "-", "+", "LIMIT", "1", "2"}), Strings({"b", "c"}));
  EXPECT_EQ(Run({"krange", "-", "+", "limit", "3", "-1"}), Strings({"user:1", "user:2"}));
  EXPECT_EQ(Run({"krange", "-", "+", "LIMIT", "0", "0"}), Array({}));
  EXPECT_EQ(Run({"krange", "-", "+", "LIMIT", "5", "10"}), Array({}));
  EXPECT_EQ(Run({"krange", "-", "+", "LIMIT", "-1", "10"}), Array({}));
  EXPECT_EQ(Run({"krange", "+", "-", "REV", "LIMIT", "1", "2"}), Strings({"user:1", "c"}));
}

TEST_F(RangeFamilyTest, KRangeWithValuesInResp2IsFlat) {
  SetFiveKeys();
  EXPECT_EQ(Run({"krange", "[user:", "+", "WITHVALUES"}),
            Strings({"user:1", "alice", "user:2", "bob"}));
  EXPECT_EQ(Run({"krange", "+", "-", "REV", "LIMIT", "0", "1", "WITHVALUES"}),
            Strings({"user:2", "bob"}));
}

TEST_F(RangeFamilyTest, KRangeWithValuesInResp3IsPairs) {
  SetFiveKeys();
  ASSERT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(Run({"krange", "[user:", "+", "WITHVALUES"}),
            Array({Strings({"user:1", "alice"}), Strings({"user:2", "bob"})}));
  EXPECT_EQ(Run({"krange", "[user:", "+"}), Strings({"user:1", "user:2"}));
}

TEST_F(RangeFamilyTest, KRangeWithValuesGivesNilForNonStrings) {
  ASSERT_EQ(Run({"rpush", "list", "x"}), Int(1));
  ASSERT_EQ(Run({"set", "str", "v"}), Ok());
  EXPECT_EQ(Run({"krange", "-", "+", "WITHVALUES"}),
            Array({Bulk("list"), Nil(), Bulk("str"), Bulk("v")}));
}

TEST_F(RangeFamilyTest, KRangeSeesOnlyTheSelectedDatabase) {
  ASSERT_EQ(Run({"set", "zero", "0"}), Ok());
  ASSERT_EQ(Run({"select", "1"}), Ok());
  ASSERT_EQ(Run({"mset", "one", "1", "uno", "1"}), Ok());
  EXPECT_EQ(Run({"krange", "-", "+"}), Strings({"one", "uno"}));
  EXPECT_EQ(Run({"kcount", "-", "+"}), Int(2));
  ASSERT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"krange", "-", "+"}), Strings({"zero"}));
}

TEST_F(RangeFamilyTest, KRangeAndKCountSkipExpiredKeys) {
  SetFiveKeys();
  ExpireInThePast("b");
  ExpireInThePast("user:2");
  EXPECT_EQ(Run({"krange", "-", "+"}), Strings({"a", "c", "user:1"}));
  EXPECT_EQ(Run({"krange", "+", "-", "REV"}), Strings({"user:1", "c", "a"}));
  EXPECT_EQ(Run({"kcount", "-", "+"}), Int(3));
}

TEST_F(RangeFamilyTest, KRangeBadBound) {
  SetFiveKeys();
  EXPECT_EQ(Run({"krange", "a", "+"}), Err(kBadRange));
  EXPECT_EQ(Run({"krange", "-", "z"}), Err(kBadRange));
  EXPECT_EQ(Run({"krange", "", "+"}), Err(kBadRange));
  EXPECT_EQ(Run({"krange", "[a", "[z", "REV"}), Array({}));  // REV: the valid bounds swap roles
  EXPECT_EQ(Run({"krange", "+", "x", "REV"}), Err(kBadRange));
}

TEST_F(RangeFamilyTest, KRangeOptionErrors) {
  EXPECT_EQ(Run({"krange", "-"}), Err("ERR wrong number of arguments for 'krange' command"));
  EXPECT_EQ(Run({"krange", "-", "+", "LIMIT", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"krange", "-", "+", "LIMIT"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"krange", "-", "+", "LIMIT", "x", "1"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"krange", "-", "+", "LIMIT", "0", "1.5"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"krange", "-", "+", "WITHSCORES"}), Err("ERR syntax error"));
}

// --- KCOUNT ---

TEST_F(RangeFamilyTest, KCountCountsTheRange) {
  SetFiveKeys();
  EXPECT_EQ(Run({"kcount", "-", "+"}), Int(5));
  EXPECT_EQ(Run({"kcount", "[user:", "+"}), Int(2));
  EXPECT_EQ(Run({"kcount", "(a", "(c"}), Int(1));
  EXPECT_EQ(Run({"kcount", "[b", "[c"}), Int(2));
  EXPECT_EQ(Run({"kcount", "[c", "[a"}), Int(0));
  EXPECT_EQ(Run({"kcount", "+", "-"}), Int(0));
}

TEST_F(RangeFamilyTest, KCountErrors) {
  EXPECT_EQ(Run({"kcount", "a", "+"}), Err(kBadRange));
  EXPECT_EQ(Run({"kcount", "-", "(x", "y"}),
            Err("ERR wrong number of arguments for 'kcount' command"));
  EXPECT_EQ(Run({"kcount", "-"}), Err("ERR wrong number of arguments for 'kcount' command"));
}

// --- KEYS ---

TEST_F(RangeFamilyTest, KeysMatchesGlobPatterns) {
  ASSERT_EQ(Run({"mset", "hello", "1", "hallo", "2", "hxllo", "3", "hllo", "4", "heeello", "5"}),
            Ok());
  EXPECT_EQ(Sorted(Run({"keys", "*"}).Strings()),
            Sorted({"hello", "hallo", "hxllo", "hllo", "heeello"}));
  EXPECT_EQ(Sorted(Run({"keys", "h?llo"}).Strings()), Sorted({"hallo", "hxllo", "hello"}));
  EXPECT_EQ(Sorted(Run({"keys", "h*llo"}).Strings()),
            Sorted({"heeello", "hallo", "hllo", "hxllo", "hello"}));
  EXPECT_EQ(Sorted(Run({"keys", "h[ae]llo"}).Strings()), Sorted({"hallo", "hello"}));
  EXPECT_EQ(Sorted(Run({"keys", "h[^e]llo"}).Strings()), Sorted({"hallo", "hxllo"}));
  EXPECT_EQ(Run({"keys", "h[a-b]llo"}), Strings({"hallo"}));
  EXPECT_EQ(Run({"keys", "nomatch*"}), Array({}));
}

TEST_F(RangeFamilyTest, KeysOfAnEmptyDatabaseAndArity) {
  EXPECT_EQ(Run({"keys", "*"}), Array({}));
  EXPECT_EQ(Run({"keys"}), Err("ERR wrong number of arguments for 'keys' command"));
  EXPECT_EQ(Run({"keys", "a", "b"}), Err("ERR wrong number of arguments for 'keys' command"));
}

TEST_F(RangeFamilyTest, KeysSkipsExpiredKeys) {
  SetFiveKeys();
  ExpireInThePast("user:1");
  EXPECT_EQ(Run({"keys", "user:*"}), Strings({"user:2"}));
}

// --- SCAN ---

TEST_F(RangeFamilyTest, ScanOfAnEmptyDatabase) {
  EXPECT_EQ(RunRaw({"scan", "0"}), "*2\r\n$1\r\n0\r\n*0\r\n");
}

TEST_F(RangeFamilyTest, ScanReturnsEveryKeyWithCursorZeroWhenCountCovers) {
  SetFiveKeys();
  ASSERT_EQ(Run({"rpush", "list", "x"}), Int(1));
  EXPECT_EQ(Run({"scan", "0"}),
            Array({Bulk("0"), Strings({"a", "b", "c", "list", "user:1", "user:2"})}));
  EXPECT_EQ(Run({"scan", "0", "COUNT", "6"}),
            Array({Bulk("0"), Strings({"a", "b", "c", "list", "user:1", "user:2"})}));
}

TEST_F(RangeFamilyTest, ScanPagesThroughKeysInOrder) {
  SetFiveKeys();
  Reply page = Run({"scan", "0", "COUNT", "2"});
  ASSERT_EQ(page.type, Reply::Type::kArray);
  ASSERT_EQ(page.elements.size(), 2u);
  EXPECT_NE(page.elements[0], Bulk("0"));
  EXPECT_EQ(page.elements[1], Strings({"a", "b"}));
  page = Run({"scan", page.elements[0].str, "COUNT", "2"});
  ASSERT_EQ(page.elements.size(), 2u);
  EXPECT_NE(page.elements[0], Bulk("0"));
  EXPECT_EQ(page.elements[1], Strings({"c", "user:1"}));
  page = Run({"scan", page.elements[0].str, "COUNT", "2"});
  EXPECT_EQ(page, Array({Bulk("0"), Strings({"user:2"})}));
}

TEST_F(RangeFamilyTest, ScanMatch) {
  SetFiveKeys();
  EXPECT_EQ(Run({"scan", "0", "MATCH", "[a-c]"}), Array({Bulk("0"), Strings({"a", "b", "c"})}));
  EXPECT_EQ(Run({"scan", "0", "match", "user:*", "count", "100"}),
            Array({Bulk("0"), Strings({"user:1", "user:2"})}));
  EXPECT_EQ(Run({"scan", "0", "MATCH", "*"}),
            Array({Bulk("0"), Strings({"a", "b", "c", "user:1", "user:2"})}));
  EXPECT_EQ(Run({"scan", "0", "MATCH", "nomatch"}), Array({Bulk("0"), Array({})}));
}

TEST_F(RangeFamilyTest, ScanCountLimitsKeysExaminedNotKeysReturned) {
  SetFiveKeys();
  // COUNT 1 examines "a", which MATCH rejects: an empty page that is not the last.
  Reply page = Run({"scan", "0", "MATCH", "[bc]", "COUNT", "1"});
  ASSERT_EQ(page.elements.size(), 2u);
  EXPECT_NE(page.elements[0], Bulk("0"));
  EXPECT_EQ(page.elements[1], Array({}));
  page = Run({"scan", page.elements[0].str, "MATCH", "[bc]", "COUNT", "1"});
  ASSERT_EQ(page.elements.size(), 2u);
  EXPECT_EQ(page.elements[1], Strings({"b"}));
}

TEST_F(RangeFamilyTest, ScanType) {
  SetFiveKeys();
  ASSERT_EQ(Run({"rpush", "list", "x"}), Int(1));
  EXPECT_EQ(Run({"scan", "0", "TYPE", "list"}), Array({Bulk("0"), Strings({"list"})}));
  EXPECT_EQ(Run({"scan", "0", "TYPE", "LIST"}), Array({Bulk("0"), Strings({"list"})}));
  EXPECT_EQ(Run({"scan", "0", "TYPE", "string", "COUNT", "100"}),
            Array({Bulk("0"), Strings({"a", "b", "c", "user:1", "user:2"})}));
  EXPECT_EQ(Run({"scan", "0", "TYPE", "nosuch"}), Array({Bulk("0"), Array({})}));
  EXPECT_EQ(Run({"scan", "0", "match", "a*", "count", "10", "type", "string"}),
            Array({Bulk("0"), Strings({"a"})}));
}

TEST_F(RangeFamilyTest, ScanSkipsExpiredKeys) {
  SetFiveKeys();
  ExpireInThePast("c");
  EXPECT_EQ(Run({"scan", "0"}), Array({Bulk("0"), Strings({"a", "b", "user:1", "user:2"})}));
}

TEST_F(RangeFamilyTest, ScanErrors) {
  EXPECT_EQ(Run({"scan", "x"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"scan", "1.5"}), Err("ERR invalid cursor"));
  EXPECT_EQ(Run({"scan", "0", "COUNT", "0"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scan", "0", "COUNT", "-1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scan", "0", "COUNT", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"scan", "0", "MATCH"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scan", "0", "COUNT"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scan", "0", "TYPE"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scan", "0", "FOO"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"scan"}), Err("ERR wrong number of arguments for 'scan' command"));
}

// --- RANDOMKEY ---

TEST_F(RangeFamilyTest, RandomKeyOfAnEmptyDatabaseIsNil) {
  EXPECT_EQ(RunRaw({"randomkey"}), "$-1\r\n");
}

TEST_F(RangeFamilyTest, RandomKeyOfOneKey) {
  ASSERT_EQ(Run({"set", "only", "v"}), Ok());
  EXPECT_EQ(Run({"randomkey"}), Bulk("only"));
}

TEST_F(RangeFamilyTest, RandomKeyIsALiveKey) {
  SetFiveKeys();
  ExpireInThePast("a");
  const std::set<std::string> live = {"b", "c", "user:1", "user:2"};
  for (int i = 0; i < 20; ++i) {
    Reply r = Run({"randomkey"});
    ASSERT_EQ(r.type, Reply::Type::kBulk) << r;
    EXPECT_TRUE(live.contains(r.str)) << r.str;
  }
}

TEST_F(RangeFamilyTest, RandomKeyArity) {
  EXPECT_EQ(Run({"randomkey", "x"}), Err("ERR wrong number of arguments for 'randomkey' command"));
}

}  // namespace
}  // namespace ordis::server::test
