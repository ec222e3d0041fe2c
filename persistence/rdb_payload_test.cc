#include "persistence/rdb_payload.h"

#include <gtest/gtest.h>

#include <string>

#include "base/hex_test_support.h"

namespace ordis::persistence::rdb {
namespace {

using base::FromHex;

std::string RoundTrip(std::string_view s, std::string* encoded = nullptr) {
  std::string out;
  AppendString(&out, s);
  if (encoded != nullptr) *encoded = out;
  Reader reader(out);
  std::string back;
  EXPECT_TRUE(reader.ReadString(&back));
  EXPECT_EQ(reader.position(), out.size());
  return back;
}

TEST(RdbPayload, Crc64IsRedisJones) {
  EXPECT_EQ(Crc64(0, "123456789"), 0xe9c6d914c4b8d9caULL);  // Redis's crc64 self-test vector
  EXPECT_EQ(Crc64(Crc64(0, "1234"), "56789"), 0xe9c6d914c4b8d9caULL);
  // Eight bytes a step give what a bit at a time gives, at every length and split.
  auto bitwise = [](uint64_t crc, std::string_view bytes) {
    for (unsigned char b : bytes) {
      crc ^= b;
      for (int i = 0; i < 8; ++i) crc = (crc & 1) ? (crc >> 1) ^ 0x95ac9329ac4bc9b5ULL : crc >> 1;
    }
    return crc;
  };
  std::string data;
  for (int i = 0; i < 300; ++i) data.push_back(static_cast<char>(i * 131 + 7));
  for (size_t len = 0; len <= data.size(); len += 7) {
    const std::string_view part = std::string_view(data).substr(0, len);
    EXPECT_EQ(Crc64(0, part), bitwise(0, part)) << len;
    EXPECT_EQ(Crc64(Crc64(0, part.substr(0, len / 3)), part.substr(len / 3)), bitwise(0, part));
  }
}

TEST(RdbPayload, LengthEncodings) {
  for (uint64_t n : {0ULL, 63ULL, 64ULL, 16383ULL, 16384ULL, 4294967295ULL, 4294967296ULL}) {
    std::string out;
    AppendLength(&out, n);
    EXPECT_EQ(out.size(), n < 64 ? 1u : n < 16384 ? 2u : n <= 4294967295ULL ? 5u : 9u) << n;
    Reader reader(out);
    uint64_t back;
    ASSERT_TRUE(reader.ReadLength(&back));
    EXPECT_EQ(back, n);
  }
}

TEST(RdbPayload, StringEncodings) {
  std::string encoded;
  EXPECT_EQ(RoundTrip("-128", &encoded), "-128");
  EXPECT_EQ(encoded, "\xc0\x80");
  EXPECT_EQ(RoundTrip("1000", &encoded), "1000");
  EXPECT_EQ(encoded.size(), 3u);
  EXPECT_EQ(RoundTrip("-2147483648", &encoded), "-2147483648");
  EXPECT_EQ(encoded.size(), 5u);
  // Not canonical, or too large: raw.
  EXPECT_EQ(RoundTrip("007", &encoded), "007");
  EXPECT_EQ(encoded, std::string("\x03"
                                 "007"));
  EXPECT_EQ(RoundTrip("2147483648", &encoded), "2147483648");
  EXPECT_EQ(encoded.size(), 11u);
  const std::string repetitive(1000, 'a');
  EXPECT_EQ(RoundTrip(repetitive, &encoded), repetitive);
  EXPECT_EQ(static_cast<uint8_t>(encoded[0]), 0xc3);  // LZF
  EXPECT_LT(encoded.size(), 100u);
  EXPECT_EQ(RoundTrip("short and not compressible"), "short and not compressible");
  EXPECT_EQ(RoundTrip(""), "");
}

// FUNCTION DUMP of one library, byte for byte as redis-server 7.0.15 gave it.
TEST(RdbPayload, SameBytesAsRedisFunctionDump) {
  const std::string redis = FromHex(
      "f5c34056405b1f23216c7561206e616d653d6d796c69620a72656469732e72656769737465725f0b66756e637469"
      "6f6e28276d79400b02272c2040066012116b6579732c2061726773292072657475726e600c075b315d20656e6429"
      "0a008d5936adc6e707da");
  const std::string code =
      "#!lua name=mylib\nredis.register_function('myfunc', function(keys, args) return args[1] "
      "end)";
  std::string ours(1, static_cast<char>(kOpcodeFunction2));
  AppendString(&ours, code);
  Seal(&ours);
  EXPECT_EQ(ours, redis);
  EXPECT_TRUE(Verify(redis));
  Reader reader(redis);
  uint8_t type;
  std::string back;
  ASSERT_TRUE(reader.ReadByte(&type));
  EXPECT_EQ(type, kOpcodeFunction2);
  ASSERT_TRUE(reader.ReadString(&back));
  EXPECT_EQ(back, code);
  EXPECT_EQ(reader.position(), redis.size() - 10);
}

TEST(RdbPayload, DamageIsRefused) {
  std::string payload =
      "\xf5\x03"
      "abc";
  Seal(&payload);
  ASSERT_TRUE(Verify(payload));
  for (size_t i = 0; i < payload.size(); ++i) {
    std::string damaged = payload;
    damaged[i] ^= 0x01;
    EXPECT_FALSE(Verify(damaged)) << i;
  }
  EXPECT_FALSE(Verify("short"));
  std::string future = "";
  future += static_cast<char>(kVersion + 1);
  future += '\0';
  uint64_t crc = Crc64(0, future);
  for (int i = 0; i < 8; ++i) future += static_cast<char>((crc >> (8 * i)) & 0xff);
  EXPECT_FALSE(Verify(future));  // a version this reader does not know
  // Lengths past the end, and an LZF claim out of proportion, read nothing.
  std::string s;
  EXPECT_FALSE(Reader("\x05"
                      "abc")
                   .ReadString(&s));
  EXPECT_FALSE(Reader("\xc3\x02\x81\x00\x00\x00\x01\x00\x00\x00\x00"
                      "ab")
                   .ReadString(&s));
  EXPECT_FALSE(Reader("\xc3\x03\x10"
                      "abc")
                   .ReadString(&s));                // not LZF data of 16 bytes
  EXPECT_FALSE(Reader("\xc4").ReadString(&s));      // no such encoding
  EXPECT_FALSE(Reader("\xc1\x01").ReadString(&s));  // int16 cut short
}

}  // namespace
}  // namespace ordis::persistence::rdb
