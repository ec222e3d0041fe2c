#include "server/rdb/rdb_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "index/ordered_store.h"
#include "persistence/rdb_payload.h"

namespace ordis::server {
namespace {

constexpr int64_t kNow = 1'700'000'000'000;

namespace rdb = persistence::rdb;

// An RDB 10 file of string keys, written in the given order as Redis writes them
// (persistence/rdb_payload.h: integer-encoded and LZF-compressed keys included), no checksum (0,
// which loaders accept).
class RdbFileBuilder {
 public:
  RdbFileBuilder() : bytes_("REDIS0010") {}
  void Select(int db) {
    bytes_.push_back(static_cast<char>(rdb::kOpcodeSelectDb));
    rdb::AppendLength(&bytes_, static_cast<uint64_t>(db));
  }
  void Set(std::string_view key, std::string_view value, int64_t expire_at_ms = -1) {
    if (expire_at_ms >= 0) {
      bytes_.push_back(static_cast<char>(rdb::kOpcodeExpireTimeMs));
      rdb::AppendLittleEndian(&bytes_, static_cast<uint64_t>(expire_at_ms), 8);
    }
    bytes_.push_back(static_cast<char>(rdb::kTypeString));
    rdb::AppendString(&bytes_, key);
    rdb::AppendString(&bytes_, value);
  }
  std::string Finish() {
    bytes_.push_back(static_cast<char>(rdb::kOpcodeEof));
    bytes_.append(8, '\0');
    return bytes_;
  }

 private:
  std::string bytes_;
};

class RdbFileTest : public ::testing::Test {
 protected:
  void TearDown() override { std::remove(path_.c_str()); }

  persistence::Status Load(const std::string& file, Keyspace& ks, RdbLoadStats* stats) {
    std::ofstream(path_, std::ios::binary) << file;
    std::vector<std::string> libraries;
    return LoadRdbFile(path_, ks, kNow, RdbLimits(), /*lfu_policy=*/false, &libraries, stats);
  }

  // db's keys in the index's order with their values.
  static std::vector<std::pair<std::string, std::string>> Contents(const Keyspace& ks, int db) {
    std::vector<std::pair<std::string, std::string>> out;
    ks.Scan(db, index::ScanStart::Edge(), index::Direction::kForward, kNow,
            [&](std::string_view k, Object* obj) {
              out.emplace_back(k, StringValue(*obj));
              return true;
            });
    return out;
  }

  std::string path_ = ::testing::TempDir() + "rdb_file_test." + std::to_string(getpid()) + ".rdb";
};

// Keys that tie on their first 16 bytes (zero bytes, lengths about 16, long shared prefixes, bytes
// over 0x7F) come back in byte order with their own values, whatever order the file had them in.
TEST_F(RdbFileTest, LoadsKeysInByteOrderWhateverTheFileOrder) {
  std::vector<std::string> keys = {"",
                                   "a",
                                   std::string("a\0", 2),
                                   std::string("a\0\0", 3),
                                   "ab",
                                   std::string(16, 'k'),
                                   std::string(17, 'k'),
                                   std::string(16, 'k') + std::string(1, '\0'),
                                   std::string(15, 'k') + "\xff",
                                   std::string(40, 'k'),
                                   std::string(39, 'k') + "a",
                                   "\xff\xff",
                                   "\x80"};
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string k = "session:user:" + std::to_string(rng() % 100000);
    if (i % 3 == 0) k += ":" + std::string(rng() % 20, 'x');
    keys.push_back(k);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::map<int, std::vector<std::pair<std::string, std::string>>> want;
  std::vector<std::pair<int, std::string>> file_order;
  for (int db : {0, 3}) {
    for (const std::string& k : keys) {
      want[db].emplace_back(k, "v" + std::to_string(db) + k);
      file_order.emplace_back(db, k);
    }
  }
  std::shuffle(file_order.begin(), file_order.end(), rng);
  std::stable_sort(file_order.begin(), file_order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  RdbFileBuilder file;
  int db = -1;
  for (const auto& [d, k] : file_order) {
    if (d != db) file.Select(db = d);
    file.Set(k, "v" + std::to_string(d) + k);
  }
  Keyspace ks(4);
  RdbLoadStats stats;
  ASSERT_TRUE(Load(file.Finish(), ks, &stats).ok());
  EXPECT_EQ(stats.keys, 2 * keys.size());
  EXPECT_EQ(Contents(ks, 0), want[0]);
  EXPECT_EQ(Contents(ks, 3), want[3]);
  EXPECT_TRUE(Contents(ks, 1).empty());
}

TEST_F(RdbFileTest, KeysWithTtlsAndExpiredOnes) {
  RdbFileBuilder file;
  file.Set("later", "1", kNow + 60'000);
  file.Set("gone", "2", kNow - 1);
  file.Set("kept", "3");
  file.Set("soon", "4", kNow + 1'000);
  Keyspace ks(1);
  RdbLoadStats stats;
  ASSERT_TRUE(Load(file.Finish(), ks, &stats).ok());
  EXPECT_EQ(stats.keys, 3u);
  EXPECT_EQ(stats.expired, 1u);
  const std::vector<std::pair<std::string, std::string>> want = {
      {"kept", "3"}, {"later", "1"}, {"soon", "4"}};
  EXPECT_EQ(Contents(ks, 0), want);
  EXPECT_EQ(ks.ExpiresCount(0), 2u);
}

// A key twice in one database makes the file corrupt (as Redis says); the same key in two
// databases, or two keys that share their first 16 bytes, does not.
TEST_F(RdbFileTest, AKeyTwiceInOneDatabaseIsRefused) {
  for (const std::string& key :
       {std::string("dup"), std::string(16, 'd'), std::string(30, 'd'), std::string("d\0", 2)}) {
    RdbFileBuilder file;
    file.Set(key, "1");
    file.Set(key + "x", "2");
    file.Set(key, "3");
    Keyspace ks(1);
    RdbLoadStats stats;
    const persistence::Status status = Load(file.Finish(), ks, &stats);
    ASSERT_FALSE(status.ok()) << key;
    EXPECT_NE(status.message().find("appears twice"), std::string::npos) << status.message();
  }
  RdbFileBuilder file;
  file.Set(std::string(16, 'd') + "a", "1");
  file.Set(std::string(16, 'd') + "b", "2");
  file.Select(1);
  file.Set(std::string(16, 'd') + "a", "3");
  Keyspace ks(2);
  RdbLoadStats stats;
  ASSERT_TRUE(Load(file.Finish(), ks, &stats).ok());
  EXPECT_EQ(ks.DbSize(0), 2u);
  EXPECT_EQ(ks.DbSize(1), 1u);
}

}  // namespace
}  // namespace ordis::server
