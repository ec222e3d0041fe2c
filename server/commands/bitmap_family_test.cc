// SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO, in-process. Every fixed expectation
// was first checked against redis-server 7.0.15 (redis-compat/test_bitmaps.py runs the same cases
// through both binaries); the randomized test compares the commands with a bit-by-bit model.
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
constexpr std::string_view kSyntax = "ERR syntax error";
constexpr std::string_view kBadOffset = "ERR bit offset is not an integer or out of range";
constexpr std::string_view kBadBit = "ERR bit is not an integer or out of range";
constexpr std::string_view kBadType =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 "
    "is.";

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

class BitmapFamilyTest : public FamilyTest {};

// --- SETBIT / GETBIT -----------------------------------------------------------------------------

TEST_F(BitmapFamilyTest, SetBitRepliesTheOldBitAndGrowsTheString) {
  EXPECT_EQ(Run({"setbit", "k", "7", "1"}), Int(0));
  EXPECT_EQ(Run({"get", "k"}), Bulk(Bytes({0x01})));
  EXPECT_EQ(Run({"setbit", "k", "7", "1"}), Int(1));
  EXPECT_EQ(Run({"setbit", "k", "0", "1"}), Int(0));
  EXPECT_EQ(Run({"get", "k"}), Bulk(Bytes({0x81})));
  EXPECT_EQ(Run({"setbit", "k", "7", "0"}), Int(1));
  EXPECT_EQ(Run({"setbit", "k", "23", "0"}), Int(0));  // grows with zero bytes
  EXPECT_EQ(Run({"get", "k"}), Bulk(Bytes({0x80, 0, 0})));
  EXPECT_EQ(Run({"object", "encoding", "k"}), Bulk("raw"));
}

TEST_F(BitmapFamilyTest, GetBit) {
  EXPECT_EQ(Run({"getbit", "nokey", "0"}), Int(0));
  EXPECT_EQ(Run({"getbit", "nokey", "4294967295"}), Int(0));
  EXPECT_EQ(Run({"set", "k", Bytes({0x40})}), Ok());
  EXPECT_EQ(Run({"getbit", "k", "0"}), Int(0));
  EXPECT_EQ(Run({"getbit", "k", "1"}), Int(1));
  EXPECT_EQ(Run({"getbit", "k", "8"}), Int(0));  // past the end
  EXPECT_EQ(Run({"getbit", "k", "1000000"}), Int(0));
  EXPECT_EQ(Run({"strlen", "k"}), Int(1));
}

TEST_F(BitmapFamilyTest, IntEncodedStringsAreTheirDecimalText) {
  EXPECT_EQ(Run({"set", "n", "1"}), Ok());  // '1' is 0x31: 00110001
  EXPECT_EQ(Run({"object", "encoding", "n"}), Bulk("int"));
  EXPECT_EQ(Run({"getbit", "n", "2"}), Int(1));
  EXPECT_EQ(Run({"getbit", "n", "7"}), Int(1));
  EXPECT_EQ(Run({"getbit", "n", "1"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "n"}), Int(3));
  EXPECT_EQ(Run({"setbit", "n", "6", "1"}), Int(0));  // 0x33: '3'
  EXPECT_EQ(Run({"get", "n"}), Bulk("3"));
  EXPECT_EQ(Run({"object", "encoding", "n"}), Bulk("raw"));
  EXPECT_EQ(Run({"incr", "n"}), Int(4));
  EXPECT_EQ(Run({"set", "m", "-12"}), Ok());
  EXPECT_EQ(Run({"bitfield", "m", "get", "u24", "0"}), Array({Int(0x2d3132)}));
}

TEST_F(BitmapFamilyTest, SetBitArgumentErrors) {
  EXPECT_EQ(Run({"setbit", "k", "-1", "1"}), Err(kBadOffset));
  EXPECT_EQ(Run({"setbit", "k", "x", "1"}), Err(kBadOffset));
  EXPECT_EQ(Run({"setbit", "k", "#1", "1"}), Err(kBadOffset));
  EXPECT_EQ(Run({"setbit", "k", "4294967296", "1"}), Err(kBadOffset));  // 512 MB of bits
  EXPECT_EQ(Run({"setbit", "k", "x", "2"}), Err(kBadOffset));           // the offset first
  EXPECT_EQ(Run({"setbit", "k", "0", "2"}), Err(kBadBit));
  EXPECT_EQ(Run({"setbit", "k", "0", "-1"}), Err(kBadBit));
  EXPECT_EQ(Run({"setbit", "k", "0", "x"}), Err(kBadBit));
  EXPECT_EQ(Run({"setbit", "k", "0", " 1"}), Err(kBadBit));
  EXPECT_EQ(Run({"getbit", "k", "-1"}), Err(kBadOffset));
  EXPECT_EQ(Run({"getbit", "k", "4294967296"}), Err(kBadOffset));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"setbit", "k"}), Err("ERR wrong number of arguments for 'setbit' command"));
  EXPECT_EQ(Run({"getbit", "k"}), Err("ERR wrong number of arguments for 'getbit' command"));
}

TEST_F(BitmapFamilyTest, OffsetLimitFollowsProtoMaxBulkLen) {
  EXPECT_EQ(Run({"config", "set", "proto-max-bulk-len", "1mb"}), Ok());
  EXPECT_EQ(Run({"setbit", "k", "8388608", "1"}), Err(kBadOffset));
  EXPECT_EQ(Run({"getbit", "k", "8388608"}), Err(kBadOffset));
  EXPECT_EQ(Run({"setbit", "k", "8388607", "1"}), Int(0));
  EXPECT_EQ(Run({"strlen", "k"}), Int(1048576));
  EXPECT_EQ(Run({"bitcount", "k"}), Int(1));
  // A field may end past the limit: only its first bit is checked.
  EXPECT_EQ(Run({"bitfield", "f", "set", "u16", "8388600", "1"}), Array({Int(0)}));
  EXPECT_EQ(Run({"strlen", "f"}), Int(1048577));
  EXPECT_EQ(Run({"bitfield", "f", "get", "u8", "8388608"}), Err(kBadOffset));
}

TEST_F(BitmapFamilyTest, LargestOffset) {
  EXPECT_EQ(Run({"setbit", "k", "4294967295", "1"}), Int(0));
  EXPECT_EQ(Run({"strlen", "k"}), Int(536870912));
  EXPECT_EQ(Run({"getbit", "k", "4294967295"}), Int(1));
  EXPECT_EQ(Run({"bitcount", "k"}), Int(1));
  EXPECT_EQ(Run({"bitpos", "k", "1"}), Int(4294967295));
  EXPECT_EQ(Run({"bitpos", "k", "0", "-1"}), Int(4294967288));
  EXPECT_EQ(Run({"del", "k"}), Int(1));
}

TEST_F(BitmapFamilyTest, WrongType) {
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"setbit", "l", "0", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"setbit", "l", "0", "2"}), Err(kBadBit));  // arguments first
  EXPECT_EQ(Run({"getbit", "l", "0"}), Err(kWrongType));
  EXPECT_EQ(Run({"bitcount", "l"}), Err(kWrongType));
  EXPECT_EQ(Run({"bitcount", "l", "x", "y"}), Err(kWrongType));  // the key first
  EXPECT_EQ(Run({"bitpos", "l", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"bitpos", "l", "2"}), Err("ERR The bit argument must be 1 or 0."));
  EXPECT_EQ(Run({"bitop", "and", "d", "l"}), Err(kWrongType));
  EXPECT_EQ(Run({"set", "s", "v"}), Ok());
  EXPECT_EQ(Run({"bitop", "or", "d", "s", "l"}), Err(kWrongType));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  EXPECT_EQ(Run({"bitfield", "l", "get", "u8", "0"}), Err(kWrongType));
  EXPECT_EQ(Run({"bitfield", "l", "set", "u8", "0", "1"}), Err(kWrongType));
  EXPECT_EQ(Run({"bitfield", "l"}), Err(kWrongType));
  EXPECT_EQ(Run({"bitfield_ro", "l", "get", "u8", "0"}), Err(kWrongType));
  EXPECT_EQ(Run({"lrange", "l", "0", "-1"}), Strings({"a"}));
}

TEST_F(BitmapFamilyTest, SetBitKeepsTheTtl) {
  EXPECT_EQ(Run({"set", "k", "a", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"setbit", "k", "100", "1"}), Int(0));
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
  EXPECT_EQ(Run({"bitfield", "k", "incrby", "u8", "0", "1"}), Array({Int(0x62)}));
  EXPECT_EQ(Run({"ttl", "k"}), Int(100));
}

TEST_F(BitmapFamilyTest, WatchSeesOnlyChanges) {
  EXPECT_EQ(Run({"setbit", "k", "3", "1"}), Int(0));
  EXPECT_EQ(WatchedExec("k", {"setbit", "k", "3", "1"}), Array({Status("PONG")}));  // unchanged
  EXPECT_EQ(WatchedExec("k", {"setbit", "k", "3", "0"}), NilArray());
  EXPECT_EQ(WatchedExec("k", {"setbit", "k", "20", "0"}), NilArray());  // grown
  EXPECT_EQ(WatchedExec("k", {"bitfield", "k", "set", "u8", "0", "0"}), Array({Status("PONG")}));
  EXPECT_EQ(WatchedExec("k", {"bitfield", "k", "set", "u8", "0", "9"}), NilArray());
  EXPECT_EQ(WatchedExec("k", {"bitfield", "k", "get", "u8", "0"}), Array({Status("PONG")}));
  EXPECT_EQ(WatchedExec("d", {"bitop", "not", "d", "k"}), NilArray());
}

// --- BITCOUNT ------------------------------------------------------------------------------------

TEST_F(BitmapFamilyTest, BitCountRanges) {
  EXPECT_EQ(Run({"set", "k", "foobar"}), Ok());
  EXPECT_EQ(Run({"bitcount", "k"}), Int(26));
  EXPECT_EQ(Run({"bitcount", "k", "0", "0"}), Int(4));
  EXPECT_EQ(Run({"bitcount", "k", "1", "1"}), Int(6));
  EXPECT_EQ(Run({"bitcount", "k", "1", "1", "byte"}), Int(6));
  EXPECT_EQ(Run({"bitcount", "k", "5", "30", "BIT"}), Int(17));
  EXPECT_EQ(Run({"bitcount", "k", "0", "-1"}), Int(26));
  EXPECT_EQ(Run({"bitcount", "k", "-2", "-1"}), Int(7));
  EXPECT_EQ(Run({"bitcount", "k", "-100", "100"}), Int(26));
  EXPECT_EQ(Run({"bitcount", "k", "-1", "-2"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "k", "3", "1"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "k", "6", "100"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "k", "0", "0", "bit"}), Int(0));  // 'f' is 01100110
  EXPECT_EQ(Run({"bitcount", "k", "1", "2", "bit"}), Int(2));
  EXPECT_EQ(Run({"bitcount", "k", "-3", "-1", "bit"}), Int(1));  // 'r' ends in 010
  EXPECT_EQ(Run({"bitcount", "k", "-1000", "-47", "bit"}), Int(1));
  EXPECT_EQ(Run({"bitcount", "k", "3", "12", "bit"}), Int(5));
}

TEST_F(BitmapFamilyTest, BitCountLongStrings) {
  std::string v;
  for (int i = 0; i < 1000; ++i) v.push_back(static_cast<char>(i * 37 + 11));
  int64_t total = 0;
  for (unsigned char c : v) total += __builtin_popcount(c);
  EXPECT_EQ(Run({"set", "k", v}), Ok());
  EXPECT_EQ(Run({"bitcount", "k"}), Int(total));
  int64_t middle = 0;
  for (size_t i = 3; i <= 990; ++i) middle += __builtin_popcount(static_cast<unsigned char>(v[i]));
  EXPECT_EQ(Run({"bitcount", "k", "3", "990"}), Int(middle));
  // Bits 29..7925: bytes 3..990 less bits 24..28 of byte 3 and bits 7926..7927 of byte 990.
  const auto b3 = static_cast<unsigned char>(v[3]), b990 = static_cast<unsigned char>(v[990]);
  EXPECT_EQ(Run({"bitcount", "k", "29", "7925", "bit"}),
            Int(middle - __builtin_popcount(b3 & 0xf8) - __builtin_popcount(b990 & 0x03)));
}

TEST_F(BitmapFamilyTest, BitCountArguments) {
  // Redis 7.0 answers a missing key before it reads the range.
  EXPECT_EQ(Run({"bitcount", "nokey"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "nokey", "0"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "nokey", "x", "y", "z"}), Int(0));
  EXPECT_EQ(Run({"set", "k", "a"}), Ok());
  EXPECT_EQ(Run({"bitcount", "k", "0"}), Err(kSyntax));
  EXPECT_EQ(Run({"bitcount", "k", "0", "1", "bit", "x"}), Err(kSyntax));
  EXPECT_EQ(Run({"bitcount", "k", "x", "1"}), Err(kNotInteger));
  EXPECT_EQ(Run({"bitcount", "k", "0", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"bitcount", "k", "0", "1", "bits"}), Err(kSyntax));
  EXPECT_EQ(Run({"bitcount", "k", "-1", "-5", "foo"}), Int(0));  // empty before the unit
  EXPECT_EQ(Run({"bitcount", "k", "0", "-1", "foo"}), Err(kSyntax));
  EXPECT_EQ(Run({"bitcount", "k", "0", "-1", std::string("bit\0x", 5)}), Int(3));  // a C string
  EXPECT_EQ(Run({"bitcount"}), Err("ERR wrong number of arguments for 'bitcount' command"));
  EXPECT_EQ(Run({"set", "e", ""}), Ok());
  EXPECT_EQ(Run({"bitcount", "e"}), Int(0));
  EXPECT_EQ(Run({"bitcount", "e", "0", "-1", "bit"}), Int(0));
}

// --- BITPOS --------------------------------------------------------------------------------------

TEST_F(BitmapFamilyTest, BitPos) {
  EXPECT_EQ(Run({"set", "k", Bytes({0xff, 0xf0, 0x00})}), Ok());
  EXPECT_EQ(Run({"bitpos", "k", "0"}), Int(12));
  EXPECT_EQ(Run({"set", "k", Bytes({0x00, 0xff, 0xf0})}), Ok());
  EXPECT_EQ(Run({"bitpos", "k", "1", "0"}), Int(8));
  EXPECT_EQ(Run({"bitpos", "k", "1", "2"}), Int(16));
  EXPECT_EQ(Run({"bitpos", "k", "1", "2", "-1", "byte"}), Int(16));
  EXPECT_EQ(Run({"bitpos", "k", "1", "7", "15", "bit"}), Int(8));
  EXPECT_EQ(Run({"bitpos", "k", "1", "7", "-3", "bit"}), Int(8));
  EXPECT_EQ(Run({"bitpos", "k", "0", "8", "19", "bit"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "0", "8", "20", "bit"}), Int(20));
  EXPECT_EQ(Run({"bitpos", "k", "0", "9", "10", "bit"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "1", "-1", "-1", "bit"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "1", "3", "1"}), Int(-1));  // empty range
  EXPECT_EQ(Run({"set", "k", Bytes({0x00, 0x00, 0x00})}), Ok());
  EXPECT_EQ(Run({"bitpos", "k", "1"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "0"}), Int(0));
  EXPECT_EQ(Run({"bitpos", "nokey", "1"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "nokey", "0"}), Int(0));
}

TEST_F(BitmapFamilyTest, BitPosClearBitPastTheEndOnlyWithoutEnd) {
  EXPECT_EQ(Run({"set", "k", Bytes({0xff, 0xff, 0xff})}), Ok());
  EXPECT_EQ(Run({"bitpos", "k", "0"}), Int(24));
  EXPECT_EQ(Run({"bitpos", "k", "0", "0"}), Int(24));
  EXPECT_EQ(Run({"bitpos", "k", "0", "2"}), Int(24));
  EXPECT_EQ(Run({"bitpos", "k", "0", "0", "-1"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "0", "0", "100"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "0", "0", "-1", "bit"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "1", "0", "-1", "bit"}), Int(0));
  EXPECT_EQ(Run({"set", "e", ""}), Ok());
  EXPECT_EQ(Run({"bitpos", "e", "0"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "e", "1"}), Int(-1));
}

TEST_F(BitmapFamilyTest, BitPosNegativeRangesAreNotEmptied) {
  // Unlike BITCOUNT, BITPOS clamps a reversed negative range instead of answering at once.
  EXPECT_EQ(Run({"set", "k", Bytes({0x01, 0x00, 0x00})}), Ok());
  EXPECT_EQ(Run({"bitpos", "k", "1", "-10", "-20"}), Int(7));
  EXPECT_EQ(Run({"bitcount", "k", "-10", "-20"}), Int(0));
}

TEST_F(BitmapFamilyTest, BitPosLongStrings) {
  std::string v(5000, '\0');
  EXPECT_EQ(Run({"set", "k", v}), Ok());
  EXPECT_EQ(Run({"bitpos", "k", "1"}), Int(-1));
  EXPECT_EQ(Run({"setbit", "k", "39001", "1"}), Int(0));
  EXPECT_EQ(Run({"bitpos", "k", "1"}), Int(39001));
  EXPECT_EQ(Run({"bitpos", "k", "1", "3", "4875"}), Int(39001));
  EXPECT_EQ(Run({"bitpos", "k", "1", "3", "4874"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "1", "39001", "39001", "bit"}), Int(39001));
  EXPECT_EQ(Run({"bitpos", "k", "1", "39002", "-1", "bit"}), Int(-1));
  EXPECT_EQ(Run({"bitpos", "k", "1", "17", "39000", "bit"}), Int(-1));
  EXPECT_EQ(Run({"bitop", "not", "n", "k"}), Int(5000));
  EXPECT_EQ(Run({"bitpos", "n", "0"}), Int(39001));
  EXPECT_EQ(Run({"bitpos", "n", "0", "4876"}), Int(40000));
  EXPECT_EQ(Run({"bitpos", "n", "0", "4876", "-1"}), Int(-1));
}

TEST_F(BitmapFamilyTest, BitPosArguments) {
  EXPECT_EQ(Run({"bitpos", "nokey", "2"}), Err("ERR The bit argument must be 1 or 0."));
  EXPECT_EQ(Run({"bitpos", "nokey", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"bitpos", "nokey", "0", "x", "y", "z"}), Int(0));  // a missing key: nothing read
  EXPECT_EQ(Run({"set", "k", "a"}), Ok());
  EXPECT_EQ(Run({"bitpos", "k", "1", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"bitpos", "k", "1", "x", "0", "foo"}), Err(kNotInteger));  // start, unit, end
  EXPECT_EQ(Run({"bitpos", "k", "1", "0", "x", "foo"}), Err(kSyntax));
  EXPECT_EQ(Run({"bitpos", "k", "1", "0", "x", "bit"}), Err(kNotInteger));
  EXPECT_EQ(Run({"bitpos", "k", "1", "0", "1", "bit", "x"}), Err(kSyntax));
  EXPECT_EQ(Run({"bitpos", "k"}), Err("ERR wrong number of arguments for 'bitpos' command"));
}

// --- BITOP ---------------------------------------------------------------------------------------

TEST_F(BitmapFamilyTest, BitOpOperations) {
  EXPECT_EQ(Run({"set", "a", Bytes({0xf0, 0x0f, 0xaa})}), Ok());
  EXPECT_EQ(Run({"set", "b", Bytes({0xff, 0x01})}), Ok());
  EXPECT_EQ(Run({"bitop", "and", "d", "a", "b"}), Int(3));
  EXPECT_EQ(Run({"get", "d"}), Bulk(Bytes({0xf0, 0x01, 0x00})));
  EXPECT_EQ(Run({"bitop", "OR", "d", "a", "b"}), Int(3));
  EXPECT_EQ(Run({"get", "d"}), Bulk(Bytes({0xff, 0x0f, 0xaa})));
  EXPECT_EQ(Run({"bitop", "Xor", "d", "a", "b"}), Int(3));
  EXPECT_EQ(Run({"get", "d"}), Bulk(Bytes({0x0f, 0x0e, 0xaa})));
  EXPECT_EQ(Run({"bitop", "not", "d", "a"}), Int(3));
  EXPECT_EQ(Run({"get", "d"}), Bulk(Bytes({0x0f, 0xf0, 0x55})));
  EXPECT_EQ(Run({"object", "encoding", "d"}), Bulk("raw"));
  EXPECT_EQ(Run({"bitop", "xor", "d", "a", "a", "a"}), Int(3));
  EXPECT_EQ(Run({"get", "d"}), Bulk(Bytes({0xf0, 0x0f, 0xaa})));
}

TEST_F(BitmapFamilyTest, BitOpMissingKeysAreEmptyStrings) {
  EXPECT_EQ(Run({"set", "a", "abc"}), Ok());
  EXPECT_EQ(Run({"bitop", "and", "d", "a", "nokey"}), Int(3));
  EXPECT_EQ(Run({"get", "d"}), Bulk(Bytes({0, 0, 0})));
  EXPECT_EQ(Run({"bitop", "or", "d", "nokey", "a"}), Int(3));
  EXPECT_EQ(Run({"get", "d"}), Bulk("abc"));
  EXPECT_EQ(Run({"set", "d", "x", "ex", "100"}), Ok());
  EXPECT_EQ(Run({"bitop", "or", "d", "nokey", "nokey2"}), Int(0));  // empty: deleted
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  EXPECT_EQ(Run({"bitop", "not", "d", "nokey"}), Int(0));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
  EXPECT_EQ(Run({"set", "e", ""}), Ok());
  EXPECT_EQ(Run({"set", "d", "x"}), Ok());
  EXPECT_EQ(Run({"bitop", "and", "d", "e"}), Int(0));
  EXPECT_EQ(Run({"exists", "d"}), Int(0));
}

TEST_F(BitmapFamilyTest, BitOpReplacesTheDestination) {
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());  // int-encoded: its text
  EXPECT_EQ(Run({"lpush", "d", "x"}), Int(1));
  EXPECT_EQ(Run({"expire", "d", "100"}), Int(1));
  EXPECT_EQ(Run({"bitop", "not", "d", "a"}), Int(1));
  EXPECT_EQ(Run({"get", "d"}), Bulk(Bytes({0xce})));
  EXPECT_EQ(Run({"ttl", "d"}), Int(-1));
  // The destination among the sources.
  EXPECT_EQ(Run({"set", "s", "ab"}), Ok());
  EXPECT_EQ(Run({"bitop", "xor", "s", "s", "a"}), Int(2));
  EXPECT_EQ(Run({"get", "s"}), Bulk(Bytes({'a' ^ '1', 'b'})));
}

TEST_F(BitmapFamilyTest, BitOpLongStrings) {
  std::string a(10000, '\0'), b(7003, '\0'), c(9999, '\0');
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<char>(i * 7);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<char>(i * 13 + 5);
  for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<char>(~(i * 3));
  EXPECT_EQ(Run({"set", "a", a}), Ok());
  EXPECT_EQ(Run({"set", "b", b}), Ok());
  EXPECT_EQ(Run({"set", "c", c}), Ok());
  std::string and_r(10000, '\0'), or_r(10000, '\0'), xor_r(10000, '\0'), not_r(10000, '\0');
  for (size_t i = 0; i < 10000; ++i) {
    const unsigned char x = a[i], y = i < b.size() ? b[i] : 0, z = i < c.size() ? c[i] : 0;
    and_r[i] = static_cast<char>(x & y & z);
    or_r[i] = static_cast<char>(x | y | z);
    xor_r[i] = static_cast<char>(x ^ y ^ z);
    not_r[i] = static_cast<char>(~x);
  }
  EXPECT_EQ(Run({"bitop", "and", "d", "a", "b", "c"}), Int(10000));
  EXPECT_EQ(Run({"get", "d"}), Bulk(and_r));
  EXPECT_EQ(Run({"bitop", "or", "d", "a", "b", "c"}), Int(10000));
  EXPECT_EQ(Run({"get", "d"}), Bulk(or_r));
  EXPECT_EQ(Run({"bitop", "xor", "d", "b", "a", "c"}), Int(10000));
  EXPECT_EQ(Run({"get", "d"}), Bulk(xor_r));
  EXPECT_EQ(Run({"bitop", "not", "d", "a"}), Int(10000));
  EXPECT_EQ(Run({"get", "d"}), Bulk(not_r));
}

TEST_F(BitmapFamilyTest, BitOpArguments) {
  EXPECT_EQ(Run({"bitop", "nand", "d", "a"}), Err(kSyntax));
  EXPECT_EQ(Run({"bitop", "diff", "d", "a", "b"}), Err(kSyntax));  // Redis 8's, not 7.0's
  EXPECT_EQ(Run({"bitop", "not", "d", "a", "b"}),
            Err("ERR BITOP NOT must be called with a single source key."));
  EXPECT_EQ(Run({"bitop", "and", "d"}), Err("ERR wrong number of arguments for 'bitop' command"));
  EXPECT_EQ(Run({"bitop", std::string("and\0", 4), "d", "a"}), Int(0));  // a C string
}

// --- BITFIELD ------------------------------------------------------------------------------------

TEST_F(BitmapFamilyTest, BitfieldSetGetIncrBy) {
  EXPECT_EQ(Run({"bitfield", "k", "set", "i8", "0", "100", "get", "i8", "0"}),
            Array({Int(0), Int(100)}));
  EXPECT_EQ(Run({"bitfield", "k", "incrby", "i5", "100", "1", "get", "u4", "0"}),
            Array({Int(1), Int(6)}));
  EXPECT_EQ(Run({"strlen", "k"}), Int(14));
  EXPECT_EQ(Run({"bitfield", "k", "set", "u8", "#1", "255", "get", "u8", "8", "get", "i8", "8"}),
            Array({Int(0), Int(255), Int(-1)}));
  EXPECT_EQ(Run({"bitfield", "k", "get", "u16", "#0", "get", "u3", "4", "get", "i3", "5"}),
            Array({Int(0x64ff), Int(2), Int(-4)}));
  EXPECT_EQ(Run({"bitfield", "k"}), Array({}));
  EXPECT_EQ(Run({"bitfield", "nokey", "get", "u8", "0", "get", "i64", "1000"}),
            Array({Int(0), Int(0)}));
  EXPECT_EQ(Run({"exists", "nokey"}), Int(0));
}

TEST_F(BitmapFamilyTest, BitfieldWidthsAndUnalignedFields) {
  EXPECT_EQ(Run({"bitfield", "k", "set", "i64", "3", "-2", "get", "i64", "3", "get", "u63", "4"}),
            Array({Int(0), Int(-2), Int(INT64_MAX - 1)}));
  EXPECT_EQ(Run({"get", "k"}), Bulk(Bytes({0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xc0})));
  EXPECT_EQ(Run({"bitfield", "k", "set", "i64", "3", "-9223372036854775808", "get", "i64", "3"}),
            Array({Int(-2), Int(INT64_MIN)}));
  EXPECT_EQ(Run({"bitfield", "k", "set", "u1", "0", "1", "get", "i1", "0", "get", "u1", "0"}),
            Array({Int(0), Int(-1), Int(1)}));
  EXPECT_EQ(Run({"bitfield", "k", "set", "u63", "#1", "9223372036854775807"}), Array({Int(0)}));
  EXPECT_EQ(Run({"bitfield", "k", "get", "u63", "63", "get", "i64", "62"}),
            Array({Int(INT64_MAX), Int(INT64_MAX)}));
}

TEST_F(BitmapFamilyTest, BitfieldOverflow) {
  // Redis's documented example, run four times.
  const std::vector<std::string> twice = {"bitfield", "k",   "incrby", "u2", "100", "1",
                                          "overflow", "sat", "incrby", "u2", "102", "1"};
  EXPECT_EQ(Run(twice), Array({Int(1), Int(1)}));
  EXPECT_EQ(Run(twice), Array({Int(2), Int(2)}));
  EXPECT_EQ(Run(twice), Array({Int(3), Int(3)}));
  EXPECT_EQ(Run(twice), Array({Int(0), Int(3)}));
  EXPECT_EQ(Run({"bitfield", "k", "overflow", "fail", "incrby", "u2", "102", "1"}), Array({Nil()}));
  EXPECT_EQ(Run({"bitfield", "k", "get", "u2", "102"}), Array({Int(3)}));
  // Signed: WRAP wraps to the negative end, SAT stops at the ends, FAIL refuses.
  EXPECT_EQ(Run({"bitfield", "s", "set", "i8", "0", "127", "incrby", "i8", "0", "1"}),
            Array({Int(0), Int(-128)}));
  EXPECT_EQ(Run({"bitfield", "s", "overflow", "sat", "incrby", "i8", "0", "-1000", "incrby", "i8",
                 "0", "1000"}),
            Array({Int(-128), Int(127)}));
  EXPECT_EQ(Run({"bitfield", "s", "overflow", "fail", "incrby", "i8", "0", "1", "set", "i8", "0",
                 "128", "set", "i8", "0", "-128", "get", "i8", "0"}),
            Array({Nil(), Nil(), Int(127), Int(-128)}));
  EXPECT_EQ(Run({"bitfield", "s", "overflow", "wrap", "set", "i8", "0", "200", "get", "i8", "0"}),
            Array({Int(-128), Int(-56)}));
  EXPECT_EQ(Run({"bitfield", "s", "overflow", "sat", "set", "u8", "0", "300", "get", "u8", "0"}),
            Array({Int(200), Int(255)}));
  EXPECT_EQ(Run({"bitfield", "u", "overflow", "wrap", "incrby", "u8", "0", "-1", "incrby", "u63",
                 "8", "-1", "overflow", "sat", "incrby", "u8", "0", "-300"}),
            Array({Int(255), Int(INT64_MAX), Int(0)}));
  EXPECT_EQ(Run({"bitfield", "w",
                 "incrby",   "i64",
                 "0",        "9223372036854775807",
                 "incrby",   "i64",
                 "0",        "1",
                 "overflow", "sat",
                 "incrby",   "i64",
                 "0",        "-1",
                 "incrby",   "i64",
                 "0",        "-9223372036854775808"}),
            Array({Int(INT64_MAX), Int(INT64_MIN), Int(INT64_MIN), Int(INT64_MIN)}));
}

TEST_F(BitmapFamilyTest, BitfieldOverflowQuirksOfRedis) {
  // A negative SET value is a huge unsigned one: SAT stores the maximum.
  EXPECT_EQ(Run({"bitfield", "q", "overflow", "sat", "set", "u8", "0", "-5", "get", "u8", "0"}),
            Array({Int(0), Int(255)}));
  // Near INT64_MIN a SET value saturates to the maximum, as Redis's range arithmetic wraps.
  EXPECT_EQ(Run({"bitfield", "r", "overflow", "sat", "set", "i8", "0", "-9223372036854775808",
                 "get", "i8", "0"}),
            Array({Int(0), Int(127)}));
  EXPECT_EQ(Run({"bitfield", "r", "overflow", "sat", "set", "i8", "0", "-4611686018427387904",
                 "get", "i8", "0"}),
            Array({Int(127), Int(-128)}));
  EXPECT_EQ(Run({"bitfield", "r", "overflow", "wrap", "set", "i8", "0", "-9223372036854775808",
                 "get", "i8", "0"}),
            Array({Int(-128), Int(0)}));
  // "#n" multiplies in wrapping 64-bit arithmetic: 2^61 fields of 8 bits is offset 0.
  EXPECT_EQ(Run({"bitfield", "q", "get", "u8", "#2305843009213693952"}), Array({Int(255)}));
}

TEST_F(BitmapFamilyTest, BitfieldFailStillGrowsTheString) {
  EXPECT_EQ(Run({"bitfield", "k", "overflow", "fail", "incrby", "u8", "16", "300"}),
            Array({Nil()}));
  EXPECT_EQ(Run({"get", "k"}), Bulk(Bytes({0, 0, 0})));
  EXPECT_EQ(Run({"bitfield", "k", "overflow", "fail", "incrby", "u8", "40", "300"}),
            Array({Nil()}));
  EXPECT_EQ(Run({"strlen", "k"}), Int(6));
}

TEST_F(BitmapFamilyTest, BitfieldArguments) {
  EXPECT_EQ(Run({"bitfield", "k", "get", "u64", "0"}), Err(kBadType));
  EXPECT_EQ(Run({"bitfield", "k", "get", "i65", "0"}), Err(kBadType));
  EXPECT_EQ(Run({"bitfield", "k", "get", "i0", "0"}), Err(kBadType));
  EXPECT_EQ(Run({"bitfield", "k", "get", "I8", "0"}), Err(kBadType));
  EXPECT_EQ(Run({"bitfield", "k", "get", "i08", "0"}), Err(kBadType));
  EXPECT_EQ(Run({"bitfield", "k", "get", "", "0"}), Err(kBadType));
  EXPECT_EQ(Run({"bitfield", "k", "get", "u", "0"}), Err(kBadType));
  EXPECT_EQ(Run({"bitfield", "k", "get", std::string("u8\0x", 4), "0"}), Array({Int(0)}));
  EXPECT_EQ(Run({"bitfield", "k", "get", "u8", "-1"}), Err(kBadOffset));
  EXPECT_EQ(Run({"bitfield", "k", "get", "u8", "#-1"}), Err(kBadOffset));
  EXPECT_EQ(Run({"bitfield", "k", "get", "u8", "#536870912"}), Err(kBadOffset));
  EXPECT_EQ(Run({"bitfield", "k", "get", "u8", "#536870911"}), Array({Int(0)}));
  EXPECT_EQ(Run({"bitfield", "k", "get", "u8", " 1"}), Err(kBadOffset));
  EXPECT_EQ(Run({"bitfield", "k", "get", "u8"}), Err(kSyntax));
  EXPECT_EQ(Run({"bitfield", "k", "set", "u8", "0"}), Err(kSyntax));
  EXPECT_EQ(Run({"bitfield", "k", "incrby", "u8", "0"}), Err(kSyntax));
  EXPECT_EQ(Run({"bitfield", "k", "set", "u8", "0", "x"}), Err(kNotInteger));
  EXPECT_EQ(Run({"bitfield", "k", "overflow"}), Err(kSyntax));
  EXPECT_EQ(Run({"bitfield", "k", "overflow", "foo", "get", "u8", "0"}),
            Err("ERR Invalid OVERFLOW type specified"));
  EXPECT_EQ(Run({"bitfield", "k", "foo"}), Err(kSyntax));
  // The first bad argument wins, after which nothing runs.
  EXPECT_EQ(Run({"bitfield", "k", "set", "u8", "0", "1", "get", "u64", "0"}), Err(kBadType));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(Run({"bitfield"}), Err("ERR wrong number of arguments for 'bitfield' command"));
}

TEST_F(BitmapFamilyTest, BitfieldRo) {
  EXPECT_EQ(Run({"set", "k", Bytes({0x12, 0x34})}), Ok());
  EXPECT_EQ(Run({"bitfield_ro", "k", "get", "u8", "0", "GET", "i4", "#3"}),
            Array({Int(0x12), Int(4)}));
  EXPECT_EQ(Run({"bitfield_ro", "k"}), Array({}));
  EXPECT_EQ(Run({"bitfield_ro", "k", "get", "u8", "0", "set", "u8", "0", "1"}),
            Err("ERR BITFIELD_RO only supports the GET subcommand"));
  EXPECT_EQ(Run({"bitfield_ro", "k", "set", "u8", "0", "1", "get", "u8", "x"}), Err(kBadOffset));
  EXPECT_EQ(Run({"bitfield_ro", "k", "overflow", "sat", "get", "u8", "0"}), Array({Int(0x12)}));
  EXPECT_EQ(Run({"get", "k"}), Bulk(Bytes({0x12, 0x34})));
}

// --- Keyspace events -----------------------------------------------------------------------------

class BitmapEventsFamilyTest : public FamilyTest {
 protected:
  BitmapEventsFamilyTest() : sub_(NewClient()) {
    EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "KEA"}), Ok());
    sub_.RunAll({"psubscribe", "__keyevent@*"});
  }
  // "event key" of each keyevent message since the last call.
  std::vector<std::string> Events() { return TakeKeyEvents(sub_); }
  TestClient& sub_;
};

using EventList = std::vector<std::string>;

TEST_F(BitmapEventsFamilyTest, SetBitRaisesSetbitOnlyWhenItChangesTheString) {
  EXPECT_EQ(Run({"setbit", "b", "3", "1"}), Int(0));
  EXPECT_EQ(Run({"setbit", "b", "3", "1"}), Int(1));
  EXPECT_EQ(Events(), EventList{"setbit b"});
  EXPECT_EQ(Run({"setbit", "b", "3", "0"}), Int(1));
  EXPECT_EQ(Run({"setbit", "b", "100", "0"}), Int(0));  // grown
  EXPECT_EQ(Run({"setbit", "b", "100", "0"}), Int(0));
  EXPECT_EQ(Run({"getbit", "b", "3"}), Int(0));
  EXPECT_EQ(Events(), (EventList{"setbit b", "setbit b"}));
}

TEST_F(BitmapEventsFamilyTest, BitfieldRaisesSetbitForWrites) {
  EXPECT_EQ(Run({"bitfield", "c", "overflow", "fail", "incrby", "u8", "0", "300"}), Array({Nil()}));
  EXPECT_EQ(Run({"exists", "c"}), Int(1));
  EXPECT_EQ(Events(), EventList{});  // created, but nothing written
  EXPECT_EQ(Run({"bitfield", "c", "set", "u8", "0", "0"}), Array({Int(0)}));
  EXPECT_EQ(Events(), EventList{});  // unchanged
  EXPECT_EQ(Run({"bitfield", "c", "set", "u8", "0", "1", "set", "u8", "0", "2"}),
            Array({Int(0), Int(1)}));
  EXPECT_EQ(Events(), EventList{"setbit c"});  // one per command
  EXPECT_EQ(Run({"bitfield", "c", "set", "u8", "16", "0"}), Array({Int(0)}));
  EXPECT_EQ(Events(), EventList{"setbit c"});  // grown, the value unchanged
  EXPECT_EQ(Run({"bitfield", "n", "set", "u8", "0", "0"}), Array({Int(0)}));
  EXPECT_EQ(Run({"bitfield", "c", "get", "u8", "0"}), Array({Int(2)}));
  EXPECT_EQ(Run({"bitfield_ro", "c", "get", "u8", "0"}), Array({Int(2)}));
  EXPECT_EQ(Events(), EventList{"setbit n"});
}

TEST_F(BitmapEventsFamilyTest, BitOpRaisesSetOrDel) {
  EXPECT_EQ(Run({"setbit", "b", "0", "1"}), Int(0));
  EXPECT_EQ(Run({"bitop", "or", "d", "b"}), Int(1));
  EXPECT_EQ(Run({"bitop", "and", "d", "nokey"}), Int(0));
  EXPECT_EQ(Run({"bitop", "and", "d", "nokey"}), Int(0));  // nothing to delete
  EXPECT_EQ(Events(), (EventList{"setbit b", "set d", "del d"}));
}

TEST_F(BitmapEventsFamilyTest, NewAndKeymissEvents) {
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "Enm$"}), Ok());
  EXPECT_EQ(Run({"setbit", "b", "0", "1"}), Int(0));
  EXPECT_EQ(Run({"bitop", "or", "d", "b", "nokey"}), Int(1));
  EXPECT_EQ(Run({"getbit", "nokey", "0"}), Int(0));
  EXPECT_EQ(Run({"bitfield", "nokey2", "set", "u8", "0", "1"}), Array({Int(0)}));
  EXPECT_EQ(Run({"bitcount", "nokey3"}), Int(0));
  EXPECT_EQ(Run({"bitfield", "nokey4", "get", "u8", "0"}), Array({Int(0)}));
  EXPECT_EQ(Run({"bitfield", "nokey5", "overflow", "fail", "set", "u8", "0", "500"}),
            Array({Nil()}));
  // A write's lookup raises no keymiss.
  EXPECT_EQ(Events(), (EventList{"new b", "setbit b", "keymiss nokey", "new d", "set d",
                                 "keymiss nokey", "new nokey2", "setbit nokey2", "keymiss nokey3",
                                 "keymiss nokey4", "new nokey5"}));
}

// --- The command table ---------------------------------------------------------------------------

TEST_F(BitmapFamilyTest, CommandInfoAsRedis) {
  // name, arity, flags, first key, last key, step, ACL categories: Redis 7.0.15's.
  struct Expected {
    std::string name;
    int64_t arity;
    std::vector<std::string> flags;
    int64_t first, last, step;
    std::vector<std::string> categories;
  };
  const std::vector<Expected> expected = {
      {"setbit", 4, {"write", "denyoom"}, 1, 1, 1, {"@write", "@bitmap", "@slow"}},
      {"getbit", 3, {"readonly", "fast"}, 1, 1, 1, {"@read", "@bitmap", "@fast"}},
      {"bitcount", -2, {"readonly"}, 1, 1, 1, {"@read", "@bitmap", "@slow"}},
      {"bitpos", -3, {"readonly"}, 1, 1, 1, {"@read", "@bitmap", "@slow"}},
      {"bitop", -4, {"write", "denyoom"}, 2, -1, 1, {"@write", "@bitmap", "@slow"}},
      {"bitfield", -2, {"write", "denyoom"}, 1, 1, 1, {"@write", "@bitmap", "@slow"}},
      {"bitfield_ro", -2, {"readonly", "fast"}, 1, 1, 1, {"@read", "@bitmap", "@fast"}},
  };
  for (const Expected& e : expected) {
    const Reply info = Run({"command", "info", e.name});
    ASSERT_EQ(info.elements.size(), 1u) << e.name;
    const std::vector<Reply>& f = info.elements[0].elements;
    ASSERT_GE(f.size(), 7u) << e.name;
    EXPECT_EQ(f[0], Bulk(e.name));
    EXPECT_EQ(f[1], Int(e.arity)) << e.name;
    std::vector<std::string> flags, categories;
    for (const Reply& r : f[2].elements) flags.push_back(r.str);
    for (const Reply& r : f[6].elements) categories.push_back(r.str);
    EXPECT_EQ(flags, e.flags) << e.name;
    EXPECT_EQ(f[3], Int(e.first)) << e.name;
    EXPECT_EQ(f[4], Int(e.last)) << e.name;
    EXPECT_EQ(f[5], Int(e.step)) << e.name;
    EXPECT_EQ(categories, e.categories) << e.name;
  }
  EXPECT_EQ(Run({"command", "getkeys", "bitop", "and", "d", "a", "b"}), Strings({"d", "a", "b"}));
}

// --- Randomized: the commands against a bit-by-bit model
// ------------------------------------------

// Strings as vectors of bits, with the commands' rules written out plainly.
class BitModel {
 public:
  bool Has(const std::string& key) const { return bits_.count(key) != 0; }
  const std::vector<bool>& Bits(const std::string& key) const { return bits_.at(key); }

  // The string's bytes (size a multiple of 8 bits always).
  std::string Value(const std::string& key) const {
    const std::vector<bool>& b = bits_.at(key);
    std::string s(b.size() / 8, '\0');
    for (size_t i = 0; i < b.size(); ++i) {
      if (b[i]) s[i / 8] = static_cast<char>(s[i / 8] | (0x80 >> (i % 8)));
    }
    return s;
  }
  void Store(const std::string& key, const std::string& bytes) {
    std::vector<bool>& b = bits_[key];
    b.assign(bytes.size() * 8, false);
    for (size_t i = 0; i < b.size(); ++i) b[i] = (bytes[i / 8] >> (7 - i % 8)) & 1;
  }
  void Delete(const std::string& key) { bits_.erase(key); }

  // Grows key (created if missing) to hold bit `last`, in whole bytes; true if it grew.
  bool Reach(const std::string& key, uint64_t last) {
    const bool existed = Has(key);
    std::vector<bool>& b = bits_[key];
    const size_t need = (last / 8 + 1) * 8;
    if (b.size() >= need) return !existed;
    b.resize(need, false);
    return true;
  }
  bool Get(const std::string& key, uint64_t i) const {
    auto it = bits_.find(key);
    return it != bits_.end() && i < it->second.size() && it->second[i];
  }
  void Set(const std::string& key, uint64_t i, bool v) { bits_[key][i] = v; }

 private:
  std::map<std::string, std::vector<bool>> bits_;
};

// Redis's clamping of BITCOUNT's and BITPOS's ranges: negatives from the end, then into the
// string; empty when start > end.
void Clamp(int64_t total, int64_t* start, int64_t* end) {
  if (*start < 0) *start = total + *start;
  if (*end < 0) *end = total + *end;
  *start = std::max<int64_t>(*start, 0);
  *end = std::max<int64_t>(*end, 0);
  *end = std::min<int64_t>(*end, total - 1);
}

class BitmapModelFamilyTest : public FamilyTest {
 protected:
  std::mt19937_64 rng_{20240601};
  BitModel model_;
  const std::vector<std::string> keys_ = {"a", "b", "c", "d"};

  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  const std::string& AnyKey() { return keys_[static_cast<size_t>(Uniform(0, 3))]; }
  int64_t KeyBytes(const std::string& key) {
    return model_.Has(key) ? static_cast<int64_t>(model_.Bits(key).size() / 8) : 0;
  }
  static std::string Shown(const std::vector<std::string>& args) {
    std::string shown;
    for (const std::string& a : args) shown += a + " ";
    return shown;
  }

  void SetBit() {
    const std::string& key = AnyKey();
    const uint64_t offset = static_cast<uint64_t>(Uniform(0, 300));
    const bool v = Uniform(0, 1) == 1;
    const bool old = model_.Get(key, offset);
    model_.Reach(key, offset);
    model_.Set(key, offset, v);
    ASSERT_EQ(Run({"setbit", key, std::to_string(offset), v ? "1" : "0"}), Int(old ? 1 : 0));
  }

  void GetBit() {
    const std::string& key = AnyKey();
    const uint64_t offset = static_cast<uint64_t>(Uniform(0, 350));
    ASSERT_EQ(Run({"getbit", key, std::to_string(offset)}), Int(model_.Get(key, offset)));
  }

  // A random range of BITCOUNT or BITPOS: *args gets start [end [unit]] (how many: `parts`).
  // Ranges reach a little past both ends of the string (of `bytes` bytes).
  void RandomRange(int parts, int64_t bytes, std::vector<std::string>* args, int64_t* start,
                   int64_t* end, bool* bit_unit) {
    *bit_unit = parts == 3 && Uniform(0, 1) == 1;
    const int64_t span = (bytes + 4) * (*bit_unit ? 8 : 1);
    *start = Uniform(-span, span);
    *end = Uniform(-span, span);
    args->push_back(std::to_string(*start));
    if (parts >= 2) args->push_back(std::to_string(*end));
    if (parts == 3) args->push_back(*bit_unit ? "BIT" : "byte");
  }

  void BitCount() {
    const std::string& key = AnyKey();
    std::vector<std::string> args = {"bitcount", key};
    const int parts = static_cast<int>(Uniform(0, 2)) == 0 ? 0 : static_cast<int>(Uniform(2, 3));
    int64_t start = 0, end = -1;
    bool bit_unit = false;
    if (parts > 0) RandomRange(parts, KeyBytes(key), &args, &start, &end, &bit_unit);
    int64_t expected = 0;
    if (model_.Has(key)) {
      const std::vector<bool>& b = model_.Bits(key);
      const auto bytes = static_cast<int64_t>(b.size() / 8);
      if (!(start < 0 && end < 0 && start > end)) {
        Clamp(bit_unit ? bytes * 8 : bytes, &start, &end);
        const int64_t unit = bit_unit ? 1 : 8;
        for (int64_t i = start * unit; start <= end && i < (end + 1) * unit; ++i) expected += b[i];
      }
    }
    ASSERT_EQ(Run(args), Int(expected)) << Shown(args);
  }

  void BitPos() {
    const std::string& key = AnyKey();
    const bool bit = Uniform(0, 1) == 1;
    std::vector<std::string> args = {"bitpos", key, bit ? "1" : "0"};
    const int parts = static_cast<int>(Uniform(0, 3));
    int64_t start = 0, end = -1;
    bool bit_unit = false;
    if (parts > 0) RandomRange(parts, KeyBytes(key), &args, &start, &end, &bit_unit);
    int64_t expected;
    if (!model_.Has(key)) {
      expected = bit ? -1 : 0;
    } else {
      const std::vector<bool>& b = model_.Bits(key);
      const auto bytes = static_cast<int64_t>(b.size() / 8);
      if (parts < 2) end = bytes - 1;
      Clamp(bit_unit ? bytes * 8 : bytes, &start, &end);
      const int64_t unit = bit_unit ? 1 : 8;
      expected = -1;
      if (start <= end) {
        for (int64_t i = start * unit; i < (end + 1) * unit; ++i) {
          if (b[i] == bit) {
            expected = i;
            break;
          }
        }
        // Clear bits continue past the string when no end was given.
        if (expected < 0 && !bit && parts < 2) expected = (end + 1) * unit;
      }
    }
    ASSERT_EQ(Run(args), Int(expected)) << Shown(args);
  }

  void BitOp() {
    static const char* kOps[] = {"and", "or", "xor", "not"};
    const std::string op = kOps[Uniform(0, 3)];
    const std::string& dest = AnyKey();
    std::vector<std::string> sources;
    const int64_t n = op == "not" ? 1 : Uniform(1, 4);
    for (int64_t i = 0; i < n; ++i) sources.push_back(AnyKey());
    std::vector<std::string> values;
    size_t maxlen = 0;
    for (const std::string& s : sources) {
      values.push_back(model_.Has(s) ? model_.Value(s) : "");
      maxlen = std::max(maxlen, values.back().size());
    }
    std::string result(maxlen, '\0');
    for (size_t i = 0; i < maxlen; ++i) {
      auto at = [&](size_t v) -> unsigned char {
        return i < values[v].size() ? static_cast<unsigned char>(values[v][i]) : 0;
      };
      unsigned char r = at(0);
      if (op == "not") r = static_cast<unsigned char>(~r);
      for (size_t v = 1; v < values.size(); ++v) {
        if (op == "and") r &= at(v);
        if (op == "or") r |= at(v);
        if (op == "xor") r ^= at(v);
      }
      result[i] = static_cast<char>(r);
    }
    std::vector<std::string> args = {"bitop", op, dest};
    args.insert(args.end(), sources.begin(), sources.end());
    ASSERT_EQ(Run(args), Int(static_cast<int64_t>(maxlen)));
    if (maxlen == 0) {
      model_.Delete(dest);
    } else {
      model_.Store(dest, result);
    }
  }

  // A field's value as the model reads it.
  __int128 ReadField(const std::string& key, uint64_t offset, int bits, bool is_signed) {
    uint64_t v = 0;
    for (int i = 0; i < bits; ++i) v = (v << 1) | (model_.Get(key, offset + i) ? 1 : 0);
    if (is_signed && (v >> (bits - 1)) & 1) return static_cast<__int128>(v) - (__int128{1} << bits);
    return v;
  }

  void Bitfield() {
    const std::string& key = AnyKey();
    std::vector<std::string> args = {"bitfield", key};
    std::vector<Reply> replies;
    struct Op {
      int kind;  // 0 get, 1 set, 2 incrby
      bool is_signed;
      int bits;
      uint64_t offset;
      int64_t value;
      int overflow;  // 0 wrap, 1 sat, 2 fail
    };
    std::vector<Op> ops;
    int overflow = 0;
    const int64_t count = Uniform(1, 4);
    for (int64_t n = 0; n < count; ++n) {
      if (Uniform(0, 3) == 0) {
        overflow = static_cast<int>(Uniform(0, 2));
        args.push_back("overflow");
        args.push_back(overflow == 0 ? "wrap" : overflow == 1 ? "SAT" : "fail");
      }
      Op op;
      op.kind = static_cast<int>(Uniform(0, 2));
      op.is_signed = Uniform(0, 1) == 1;
      op.bits = static_cast<int>(Uniform(1, op.is_signed ? 64 : 63));
      const bool by_index = Uniform(0, 3) == 0;
      const uint64_t index = static_cast<uint64_t>(Uniform(0, 4));
      op.offset = by_index ? index * static_cast<uint64_t>(op.bits)
                           : static_cast<uint64_t>(Uniform(0, 200));
      op.overflow = overflow;
      // Signed SET values stay within +-2^62: beyond, Redis's range arithmetic has quirks
      // (BitfieldOverflowQuirksOfRedis).
      switch (Uniform(0, 3)) {
        case 0:
          op.value = Uniform(-3, 3);
          break;
        case 1:
          op.value = Uniform(-300, 300);
          break;
        case 2:
          op.value = Uniform(-(int64_t{1} << 62), int64_t{1} << 62);
          break;
        default:
          op.value = Uniform(INT64_MIN, INT64_MAX);
          if (op.kind == 1 && op.is_signed) op.value /= 2;
          break;
      }
      static const char* kKinds[] = {"get", "set", "incrby"};
      args.push_back(kKinds[op.kind]);
      args.push_back((op.is_signed ? "i" : "u") + std::to_string(op.bits));
      args.push_back(by_index ? "#" + std::to_string(index) : std::to_string(op.offset));
      if (op.kind != 0) args.push_back(std::to_string(op.value));
      ops.push_back(op);
    }
    uint64_t highest = 0;
    bool writes = false;
    for (const Op& op : ops) {
      if (op.kind != 0) {
        writes = true;
        highest = std::max(highest, op.offset + op.bits - 1);
      }
    }
    if (writes) model_.Reach(key, highest);
    for (const Op& op : ops) {
      const __int128 old = ReadField(key, op.offset, op.bits, op.is_signed);
      if (op.kind == 0) {
        replies.push_back(Int(static_cast<int64_t>(old)));
        continue;
      }
      const __int128 lo = op.is_signed ? -(__int128{1} << (op.bits - 1)) : 0;
      const __int128 hi =
          op.is_signed ? (__int128{1} << (op.bits - 1)) - 1 : (__int128{1} << op.bits) - 1;
      // An unsigned field takes a SET value as its 64-bit pattern (a negative one is huge).
      __int128 target = op.kind == 2   ? old + op.value
                        : op.is_signed ? __int128{op.value}
                                       : __int128{static_cast<uint64_t>(op.value)};
      if (target < lo || target > hi) {
        if (op.overflow == 2) {
          replies.push_back(Nil());
          continue;
        }
        if (op.overflow == 1) {
          target = target < lo ? lo : hi;
        } else {
          const __int128 m = __int128{1} << op.bits;
          target = ((target - lo) % m + m) % m + lo;
        }
      }
      replies.push_back(Int(static_cast<int64_t>(op.kind == 2 ? target : old)));
      const auto pattern = static_cast<unsigned __int128>(target);
      for (int i = 0; i < op.bits; ++i) {
        model_.Set(key, op.offset + i, (pattern >> (op.bits - 1 - i)) & 1);
      }
    }
    ASSERT_EQ(Run(args), Array(replies)) << Shown(args);
  }

  void CheckValues() {
    for (const std::string& key : keys_) {
      ASSERT_EQ(Run({"get", key}), model_.Has(key) ? Bulk(model_.Value(key)) : Nil()) << key;
    }
  }
};

TEST_F(BitmapModelFamilyTest, MatchesTheModel) {
  for (int i = 0; i < 20000; ++i) {
    switch (Uniform(0, 9)) {
      case 0:
      case 1:
        SetBit();
        break;
      case 2:
        GetBit();
        break;
      case 3:
      case 4:
        BitCount();
        break;
      case 5:
      case 6:
        BitPos();
        break;
      case 7:
        BitOp();
        break;
      default:
        Bitfield();
        break;
    }
    if (HasFatalFailure()) return;
    if (i % 50 == 0) {
      CheckValues();
      if (HasFatalFailure()) return;
    }
  }
  CheckValues();
}

// Long random strings for the word-wise paths of BITCOUNT, BITPOS and BITOP, at every alignment.
TEST_F(BitmapModelFamilyTest, LongStringsMatchTheModel) {
  for (int round = 0; round < 30; ++round) {
    for (const std::string& key : keys_) {
      std::string v(static_cast<size_t>(Uniform(0, 700)), '\0');
      const int density = static_cast<int>(Uniform(0, 3));  // sparse, mixed, dense, all ones
      for (char& c : v) {
        const auto r = static_cast<unsigned char>(Uniform(0, 255));
        c = static_cast<char>(density == 0   ? (Uniform(0, 60) == 0 ? r : 0)
                              : density == 1 ? r
                              : density == 2 ? (Uniform(0, 60) == 0 ? r : 0xff)
                                             : 0xff);
      }
      ASSERT_EQ(Run({"set", key, v}), Ok());
      model_.Store(key, v);
    }
    for (int i = 0; i < 60; ++i) {
      BitCount();
      BitPos();
      if (i % 6 == 0) BitOp();
      if (HasFatalFailure()) return;
    }
    CheckValues();
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace ordis::server::test
