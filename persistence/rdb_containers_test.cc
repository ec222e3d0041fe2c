#include "persistence/rdb_containers.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "base/hex_test_support.h"

namespace ordis::persistence::rdb {
namespace {

using base::FromHex;

std::vector<std::string> ReadListpack(std::string_view lp, bool* ok) {
  std::vector<std::string> out;
  ListpackReader reader(lp);
  std::string_view e;
  while (reader.Next(&e)) out.emplace_back(e);
  *ok = reader.ok();
  return out;
}

// The listpack inside redis-server 7.0.15's DUMP of
// RPUSH l a 1 -5000 "hello world" 300 127 128 -1 70000 -9000000 5000000000 "": every encoding.
const char kRedisListpack[] =
    "3f0000000c008161020101f178ec038b68656c6c6f20776f726c640cc12c027f01c08002dfff02f270110104f3c0ab"
    "76ff05f400f2052a01000000098001ff";
const std::vector<std::string> kElements = {"a",     "1",        "-5000",      "hello world",
                                            "300",   "127",      "128",        "-1",
                                            "70000", "-9000000", "5000000000", ""};

TEST(Listpack, SameBytesAsRedis) {
  ListpackWriter writer;
  for (const auto& e : kElements) writer.Append(e);
  EXPECT_EQ(writer.bytes(), 63u);
  EXPECT_EQ(writer.Finish(), FromHex(kRedisListpack));
}

TEST(Listpack, ReadsRedisBytes) {
  bool ok;
  EXPECT_EQ(ReadListpack(FromHex(kRedisListpack), &ok), kElements);
  EXPECT_TRUE(ok);
  // A sorted set's: member, score; "-0.5" stays text, "1" becomes an integer.
  const std::string zset =
      FromHex("220000000800816302842d302e3505816102010181620283322e35048164026401ff");
  EXPECT_EQ(ReadListpack(zset, &ok),
            (std::vector<std::string>{"c", "-0.5", "a", "1", "b", "2.5", "d", "100"}));
  EXPECT_TRUE(ok);
}

TEST(Listpack, RoundTripsEveryLengthClass) {
  std::vector<std::string> elements;
  for (size_t n : {0, 1, 63, 64, 4095, 4096, 70000}) elements.emplace_back(n, 'x');
  for (int64_t v : {INT64_MIN, int64_t{-4097}, int64_t{-4096}, int64_t{4095}, int64_t{4096},
                    int64_t{32768}, int64_t{-8388609}, int64_t{2147483648LL}, INT64_MAX}) {
    elements.push_back(std::to_string(v));
  }
  elements.push_back("007");  // not canonical: text
  elements.push_back("-0");
  ListpackWriter writer;
  for (const auto& e : elements) writer.Append(e);
  const std::string lp = writer.Finish();
  bool ok;
  EXPECT_EQ(ReadListpack(lp, &ok), elements);
  EXPECT_TRUE(ok);
}

TEST(Listpack, MalformedBytesEndTheWalk) {
  const std::string good = FromHex(kRedisListpack);
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string bad = good;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int f = 0; f < flips; ++f) bad[rng() % bad.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) bad.resize(rng() % bad.size());
    bool ok;
    ReadListpack(bad, &ok);  // must not read outside the blob (ASAN)
  }
  bool ok;
  ReadListpack(good.substr(0, good.size() - 1), &ok);
  EXPECT_FALSE(ok);
  std::string wrong_backlen = good;
  wrong_backlen[8] = 3;  // "a"'s back-length
  ReadListpack(wrong_backlen, &ok);
  EXPECT_FALSE(ok);
}

// A ziplist as Redis 6 writes one: RPUSH of "a", 1, -5000, 300, 12, 13, 70000, 5000000000 and a
// 300-byte string (prevlen of the next entry takes five bytes after it).
std::string MakeZiplist() {
  std::string body;
  size_t prev = 0;
  auto entry = [&](std::string enc_and_data) {
    std::string e;
    if (prev < 254) {
      e.push_back(static_cast<char>(prev));
    } else {
      e.push_back(static_cast<char>(0xfe));
      for (int i = 0; i < 4; ++i) e.push_back(static_cast<char>((prev >> (8 * i)) & 0xff));
    }
    e += enc_and_data;
    prev = e.size();
    body += e;
  };
  entry(
      std::string("\x01"
                  "a",
                  2));
  entry(std::string("\xf2", 1));                                  // immediate 1
  entry(std::string("\xc0\x78\xec", 3));                          // int16 -5000
  entry(std::string("\xc0\x2c\x01", 3));                          // int16 300
  entry(std::string("\xfd", 1));                                  // immediate 12
  entry(std::string("\xfe\x0d", 2));                              // int8 13
  entry(std::string("\xf0\x70\x11\x01", 4));                      // int24 70000
  entry(std::string("\xe0\x00\xf2\x05\x2a\x01\x00\x00\x00", 9));  // int64
  entry(std::string("\x41\x2c", 2) + std::string(300, 'z'));      // 14-bit length
  entry(std::string("\x00", 1));                                  // ""
  std::string zl(10, '\0');
  zl += body;
  zl.push_back(static_cast<char>(0xff));
  const uint32_t bytes = static_cast<uint32_t>(zl.size());
  for (int i = 0; i < 4; ++i) zl[i] = static_cast<char>((bytes >> (8 * i)) & 0xff);
  zl[8] = 10;
  return zl;
}

TEST(Ziplist, ReadsEveryEncoding) {
  const std::string zl = MakeZiplist();
  ZiplistReader reader(zl);
  std::vector<std::string> got;
  std::string_view e;
  while (reader.Next(&e)) got.emplace_back(e);
  EXPECT_TRUE(reader.ok());
  EXPECT_EQ(got, (std::vector<std::string>{"a", "1", "-5000", "300", "12", "13", "70000",
                                           "5000000000", std::string(300, 'z'), ""}));
  std::mt19937 rng(11);
  for (int i = 0; i < 20000; ++i) {
    std::string bad = zl;
    bad[rng() % bad.size()] = static_cast<char>(rng());
    ZiplistReader r(bad);
    while (r.Next(&e)) {
    }
  }
}

TEST(Intset, SameBytesAsRedisAndBack) {
  // SADD s 5 -3 70000 in redis-server 7.0.15: 4-byte members, ascending.
  const std::string redis = FromHex("0400000003000000fdffffff0500000070110100");
  EXPECT_EQ(BuildIntset({5, -3, 70000}), redis);
  IntsetReader reader(redis);
  std::vector<std::string> got;
  std::string_view m;
  while (reader.Next(&m)) got.emplace_back(m);
  EXPECT_TRUE(reader.ok());
  EXPECT_EQ(got, (std::vector<std::string>{"-3", "5", "70000"}));
  EXPECT_EQ(BuildIntset({1, 2}).size(), 8u + 2 * 2);
  EXPECT_EQ(BuildIntset({1, INT64_MIN}).size(), 8u + 2 * 8);
  // Out of order: malformed.
  const std::string unordered_bytes = FromHex("02000000020000000500fdff");  // the reader views it
  IntsetReader unordered(unordered_bytes);
  while (unordered.Next(&m)) {
  }
  EXPECT_FALSE(unordered.ok());
  EXPECT_FALSE(IntsetReader(FromHex("0300000000000000")).ok());    // width 3
  EXPECT_FALSE(IntsetReader(FromHex("020000000200000005")).ok());  // cut short
}

}  // namespace
}  // namespace ordis::persistence::rdb
