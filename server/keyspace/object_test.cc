// Object: the encodings a value is held in (int, embstr, raw, collection), their boundaries, the
// block sizes they land in, TTL on and off, and the changes between them.
#include "server/keyspace/object.h"

#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

#include "tests/printable.h"

namespace ordis::server {
namespace {

using namespace std::literals;
using ordis::test_support::Printable;

constexpr int64_t kAt = 1'700'000'000'000;

// What SET would store, described: encoding, block size, bytes.
struct Shape {
  ObjEncoding encoding;
  size_t block;
};

void ExpectString(const Object& obj, std::string_view bytes, ObjEncoding encoding) {
  EXPECT_EQ(obj.type(), ObjType::kString);
  EXPECT_EQ(obj.encoding(), encoding) << Printable(bytes);
  IntText scratch;
  EXPECT_EQ(obj.StringBytes(&scratch), bytes);
  EXPECT_EQ(obj.StringSize(), bytes.size());
  EXPECT_EQ(StringValue(obj), bytes);
}

TEST(Object, HeaderIsEightBytesAndTheSmallestBlockSixteen) {
  EXPECT_EQ(sizeof(Object), 16u);
  ObjectPtr obj = NewString("abc");
  EXPECT_EQ(obj->block_size(), 16u);
  EXPECT_EQ(obj->lfu.load(), kLfuInit);
  EXPECT_EQ(obj->access_s.load(), 0u);
  EXPECT_FALSE(obj->has_ttl());
  EXPECT_EQ(obj->expire_at_ms(), kNoExpire);
}

// Redis's tryObjectEncoding: "int" only for what string2ll accepts in at most 20 characters.
TEST(Object, IntEncodingFollowsString2ll) {
  const std::vector<std::pair<std::string, bool>> cases = {
      {"0", true},
      {"1", true},
      {"-1", true},
      {"12345", true},
      {"9223372036854775807", true},
      {"-9223372036854775808", true},  // INT64_MIN: 20 characters
      {"9223372036854775808", false},  // INT64_MAX + 1
      {"-9223372036854775809", false},
      {"99999999999999999999", false},  // 20 digits, too large
      {"-0", false},
      {"007", false},
      {"+5", false},
      {" 5", false},
      {"5 ", false},
      {"1e3", false},
      {"", false},
      {"-", false},
      {"0x10", false},
      {"1\0"s, false},
  };
  for (const auto& [text, is_int] : cases) {
    ObjectPtr obj = NewString(text);
    ExpectString(*obj, text, is_int ? ObjEncoding::kInt : ObjEncoding::kEmbStr);
    int64_t v;
    EXPECT_EQ(obj->StringAsInt(&v), is_int) << Printable(text);
    if (is_int) {
      EXPECT_EQ(std::to_string(v), text);
    }
    EXPECT_EQ(obj->block_size(), 16u + (text.size() > 8 && !is_int ? 16 : 0)) << Printable(text);
  }
}

TEST(Object, EmbstrUpTo44BytesThenRaw) {
  for (size_t n : {0, 1, 7, 8, 9, 24, 40, 43, 44, 45, 46, 100, 1000}) {
    std::string text(n, 'x');
    if (n > 0) text[n / 2] = '\0';  // any bytes
    for (int64_t at : {kNoExpire, kAt}) {
      ObjectPtr obj = NewString(text, at);
      SCOPED_TRACE("size " + std::to_string(n) + (at == kNoExpire ? "" : " with TTL"));
      ExpectString(*obj, text, n <= 44 ? ObjEncoding::kEmbStr : ObjEncoding::kRaw);
      EXPECT_EQ(obj->expire_at_ms(), at);
      const size_t ttl = at == kNoExpire ? 0 : 8;
      if (n <= 44) {
        EXPECT_EQ(obj->block_size(), (8 + ttl + std::max<size_t>(n, 8) + 15) / 16 * 16);
        EXPECT_EQ(obj->raw_buffer_bytes(), 0u);
      } else {
        EXPECT_EQ(obj->block_size(), ttl == 0 ? 16u : 32u);
        EXPECT_EQ(obj->raw_buffer_bytes(), sizeof(RawString) + n);
      }
    }
  }
}

// The sizes the issue aims at, in jemalloc's classes.
TEST(Object, CommonValuesLandInSmallBlocks) {
  EXPECT_EQ(NewString("abc")->block_size(), 16u);
  EXPECT_EQ(NewString("abc", kAt)->block_size(), 32u);
  EXPECT_EQ(NewString("12345678")->block_size(), 16u);  // int
  EXPECT_EQ(NewString(std::string(32, 'v'), kAt)->block_size(), 48u);
  EXPECT_EQ(NewString(std::string(32, 'v'))->block_size(), 48u);
  EXPECT_EQ(NewString(std::string(40, 'v'))->block_size(), 48u);
  EXPECT_EQ(NewString(std::string(44, 'v'))->block_size(), 64u);
  EXPECT_EQ(NewString(std::string(44, 'v'), kAt)->block_size(), 64u);
  EXPECT_EQ(NewObject(ObjType::kList)->block_size(), 16u);
  EXPECT_EQ(NewObject(ObjType::kZSet, kAt)->block_size(), 32u);
}

TEST(Object, RulesOtherThanTryInt) {
  // INCRBYFLOAT's result: never int.
  ExpectString(*NewString("11", kNoExpire, StringRule::kBytes), "11", ObjEncoding::kEmbStr);
  ExpectString(*NewString(std::string(45, '1'), kNoExpire, StringRule::kBytes),
               std::string(45, '1'), ObjEncoding::kRaw);
  // SETRANGE of a missing key: raw whatever the size.
  ExpectString(*NewString("\0\0ab"s, kNoExpire, StringRule::kRaw), "\0\0ab"s, ObjEncoding::kRaw);
  ExpectString(*NewString("", kNoExpire, StringRule::kRaw), "", ObjEncoding::kRaw);
  // INCR of a missing key.
  ExpectString(*NewInt(INT64_MIN), "-9223372036854775808", ObjEncoding::kInt);
  ExpectString(*NewInt(0, kAt), "0", ObjEncoding::kInt);
}

// APPEND and SETRANGE make the value raw, in place (the object does not move), from any encoding.
TEST(Object, AppendAndWriteMakeTheValueRaw) {
  for (const std::string& start : {"123"s, "abc"s, std::string(44, 'e'), std::string(60, 'r')}) {
    for (int64_t at : {kNoExpire, kAt}) {
      SCOPED_TRACE(start + (at == kNoExpire ? "" : " with TTL"));
      ObjectPtr obj = NewString(start, at);
      const size_t block = obj->block_size();
      obj->AppendString("4");
      ExpectString(*obj, start + "4", ObjEncoding::kRaw);
      EXPECT_EQ(obj->block_size(), block);
      EXPECT_EQ(obj->expire_at_ms(), at);
      obj->AppendString("");
      ExpectString(*obj, start + "4", ObjEncoding::kRaw);
      // Growth is amortized: a thousand appends of one byte reallocate rarely (not checked here)
      // and keep every byte.
      std::string want = start + "4";
      for (int i = 0; i < 1000; ++i) {
        obj->AppendString(std::string(1, static_cast<char>('a' + i % 26)));
        want.push_back(static_cast<char>('a' + i % 26));
      }
      ExpectString(*obj, want, ObjEncoding::kRaw);
      EXPECT_GE(obj->raw_buffer_bytes(), sizeof(RawString) + want.size());
    }
  }
  ObjectPtr obj = NewString("12");
  obj->WriteString(1, "x");
  ExpectString(*obj, "1x", ObjEncoding::kRaw);
  obj->WriteString(5, "yz");  // zero-fills the gap
  ExpectString(*obj, "1x\0\0\0yz"s, ObjEncoding::kRaw);
  obj->WriteString(0, "");
  ExpectString(*obj, "1x\0\0\0yz"s, ObjEncoding::kRaw);
  ObjectPtr embstr = NewString("hello");
  embstr->WriteString(0, "J");  // within the value: still raw, as Redis's unshare makes it
  ExpectString(*embstr, "Jello", ObjEncoding::kRaw);
}

TEST(Object, SetIntFromEveryEncoding) {
  for (const std::string& start : {"5"s, "abc"s, std::string(44, 'e'), std::string(60, 'r')}) {
    ObjectPtr obj = NewString(start, kAt);
    obj->SetInt(-42);
    ExpectString(*obj, "-42", ObjEncoding::kInt);
    EXPECT_EQ(obj->raw_buffer_bytes(), 0u);  // a raw buffer is freed
    EXPECT_EQ(obj->expire_at_ms(), kAt);
    int64_t v;
    ASSERT_TRUE(obj->StringAsInt(&v));
    EXPECT_EQ(v, -42);
    obj->SetInt(INT64_MAX);
    ExpectString(*obj, "9223372036854775807", ObjEncoding::kInt);
  }
  // An embstr or raw holding digits reads as an int too (INCR of an APPENDed number).
  ObjectPtr raw = NewString("1");
  raw->AppendString("0");
  int64_t v;
  ASSERT_TRUE(raw->StringAsInt(&v));
  EXPECT_EQ(v, 10);
  EXPECT_FALSE(NewString("-0")->StringAsInt(&v));
}

// In place only when the new value needs a block of the same size.
TEST(Object, TryAssignStringKeepsTheBlockOrRefuses) {
  ObjectPtr obj = NewString("abc");
  EXPECT_TRUE(obj->TryAssignString("xyz", StringRule::kTryInt));
  ExpectString(*obj, "xyz", ObjEncoding::kEmbStr);
  EXPECT_TRUE(obj->TryAssignString("12345678", StringRule::kTryInt));  // int: 8 bytes
  ExpectString(*obj, "12345678", ObjEncoding::kInt);
  EXPECT_TRUE(obj->TryAssignString("", StringRule::kTryInt));
  ExpectString(*obj, "", ObjEncoding::kEmbStr);
  EXPECT_TRUE(obj->TryAssignString(std::string(50, 'r'), StringRule::kTryInt));  // raw: pointer
  ExpectString(*obj, std::string(50, 'r'), ObjEncoding::kRaw);
  EXPECT_FALSE(obj->TryAssignString("123456789", StringRule::kBytes));  // 9 bytes: 32-byte block
  ExpectString(*obj, std::string(50, 'r'), ObjEncoding::kRaw);
  EXPECT_TRUE(obj->TryAssignString("11", StringRule::kBytes));
  ExpectString(*obj, "11", ObjEncoding::kEmbStr);
  EXPECT_EQ(obj->block_size(), 16u);
  ObjectPtr big = NewString(std::string(40, 'b'), kAt);  // 64-byte block with its TTL
  EXPECT_FALSE(big->TryAssignString("abc", StringRule::kTryInt));
  EXPECT_TRUE(big->TryAssignString(std::string(44, 'c'), StringRule::kTryInt));
  ExpectString(*big, std::string(44, 'c'), ObjEncoding::kEmbStr);
  EXPECT_EQ(big->expire_at_ms(), kAt);
}

// Adding or removing a TTL moves the value to a block of the new size, statistics included;
// changing it does not move anything.
TEST(Object, SetObjectExpireMovesOnlyWhenTheShapeChanges) {
  auto check = [](ObjectPtr start, const std::string& bytes, ObjEncoding encoding) {
    SCOPED_TRACE(Printable(bytes));
    start->lfu.store(77);
    start->access_s.store(1234);
    Object* obj = start.release();
    Object* moved = SetObjectExpire(obj, kAt);
    EXPECT_TRUE(moved->has_ttl());
    EXPECT_EQ(moved->expire_at_ms(), kAt);
    ExpectString(*moved, bytes, encoding);
    EXPECT_EQ(moved->lfu.load(), 77);
    EXPECT_EQ(moved->access_s.load(), 1234u);
    EXPECT_EQ(SetObjectExpire(moved, kAt + 1), moved);
    EXPECT_EQ(moved->expire_at_ms(), kAt + 1);
    Object* back = SetObjectExpire(moved, kNoExpire);
    EXPECT_FALSE(back->has_ttl());
    ExpectString(*back, bytes, encoding);
    EXPECT_EQ(SetObjectExpire(back, kNoExpire), back);
    FreeObject(back);
  };
  check(NewString("abc"), "abc", ObjEncoding::kEmbStr);
  check(NewString("-77"), "-77", ObjEncoding::kInt);
  check(NewString(std::string(44, 'e')), std::string(44, 'e'), ObjEncoding::kEmbStr);
  check(NewString(std::string(45, 'r')), std::string(45, 'r'), ObjEncoding::kRaw);
  ObjectPtr list = NewObject(ObjType::kList);
  list->list().push_back("x");
  Object* moved = SetObjectExpire(list.release(), kAt);
  EXPECT_EQ(moved->type(), ObjType::kList);
  EXPECT_EQ(moved->list().front(), "x");
  FreeObject(moved);
}

TEST(Object, CloneKeepsEncodingPayloadAndTtl) {
  std::vector<ObjectPtr> originals;
  originals.push_back(NewString("42", kAt));
  originals.push_back(NewString("abc"));
  originals.push_back(NewString(std::string(100, 'z'), kAt));
  originals.push_back(NewString("ab"));
  originals.back()->AppendString("c");  // raw, short
  for (const ObjectPtr& obj : originals) {
    obj->lfu.store(99);
    ObjectPtr copy = CloneObject(*obj);
    EXPECT_EQ(copy->encoding(), obj->encoding());
    EXPECT_EQ(copy->expire_at_ms(), obj->expire_at_ms());
    EXPECT_EQ(StringValue(*copy), StringValue(*obj));
    EXPECT_EQ(copy->lfu.load(), kLfuInit);
  }
  ObjectPtr hash = NewObject(ObjType::kHash, kAt);
  hash->hash()["f"] = "v";
  ObjectPtr copy = CloneObject(*hash);
  hash->hash()["f"] = "changed";
  EXPECT_EQ(copy->hash().at("f"), "v");
  EXPECT_EQ(copy->expire_at_ms(), kAt);
}

TEST(Object, ARawStringGoesColdAndComesBack) {
  const std::string value(300, 'v');
  ObjectPtr obj = NewString(value);
  ASSERT_EQ(obj->encoding(), ObjEncoding::kRaw);
  EXPECT_FALSE(obj->cold());
  const offload::TierLocation at{3, 340, 8192};
  obj->MakeCold(at);
  EXPECT_TRUE(obj->cold());
  EXPECT_EQ(obj->encoding(), ObjEncoding::kRaw);  // OBJECT ENCODING does not change
  EXPECT_EQ(obj->block_size(), 16u);              // the location packed in the payload
  EXPECT_EQ(obj->cold_location().segment, 3u);
  EXPECT_EQ(obj->cold_location().offset, 8192u);
  EXPECT_EQ(obj->cold_location().size, 340u);
  EXPECT_EQ(obj->raw_buffer_bytes(), 0u);
  // The largest place a cold object can point to, and the first it cannot.
  const offload::TierLocation last{(1u << 14) - 1, (1u << 24) - 1, (1ull << 26) - 1};
  ASSERT_TRUE(Object::FitsCold(last));
  obj->MoveCold(last);
  EXPECT_EQ(obj->cold_location().segment, last.segment);
  EXPECT_EQ(obj->cold_location().size, last.size);
  EXPECT_EQ(obj->cold_location().offset, last.offset);
  EXPECT_FALSE(Object::FitsCold({1u << 14, 1, 0}));
  EXPECT_FALSE(Object::FitsCold({0, 1u << 24, 0}));
  EXPECT_FALSE(Object::FitsCold({0, 1, 1ull << 26}));
  obj->MoveCold(at);
  // A TTL added moves the block: the cold payload and its flag move with it.
  Object* moved = SetObjectExpire(obj.release(), kAt);
  ObjectPtr held(moved);
  EXPECT_TRUE(held->cold());
  EXPECT_EQ(held->expire_at_ms(), kAt);
  EXPECT_EQ(held->cold_location().size, 340u);
  held->MakeResident(value);
  EXPECT_FALSE(held->cold());
  ExpectString(*held, value, ObjEncoding::kRaw);
  EXPECT_EQ(held->expire_at_ms(), kAt);
  // Freed cold (AddressSanitizer: nothing leaks).
  ObjectPtr other = NewString(value);
  other->MakeCold(at);
}

TEST(Object, Collections) {
  for (ObjType t : {ObjType::kList, ObjType::kSet, ObjType::kZSet, ObjType::kHash}) {
    ObjectPtr obj = NewObject(t);
    EXPECT_EQ(obj->type(), t);
    EXPECT_EQ(obj->encoding(), ObjEncoding::kCollection);
    EXPECT_TRUE(obj->EmptyCollection());
  }
  EXPECT_FALSE(NewString("")->EmptyCollection());
  ObjectPtr set = NewObject(ObjType::kSet);
  set->set().insert("m");
  EXPECT_FALSE(set->EmptyCollection());
}

}  // namespace
}  // namespace ordis::server
