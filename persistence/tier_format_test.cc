// The cold tier's record: values of every shape come back as they went in, lz4 only where it pays;
// a record damaged anywhere (a flipped bit, a torn tail) or holding another key is refused; a
// segment of records and padding is scanned record by record.
#include "persistence/tier_format.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace ordis::persistence {
namespace {

std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

struct Case {
  std::string key;
  std::string value;
};

std::vector<Case> Cases() {
  return {
      {"user:1", "v"},
      {"", ""},  // Redis allows an empty key
      {std::string("bin\0ary", 7), std::string("\0\1\2", 3)},
      {"compressible", std::string(100000, 'x')},              // stored as lz4
      {"incompressible", RandomBytes(5000, 1)},                // stored as it is
      {"just-under", std::string(kTierMinCompress - 1, 'y')},  // too short to try
  };
}

TEST(TierRecord, RoundTripsEveryShape) {
  for (const Case& c : Cases()) {
    std::string record;
    const size_t size = AppendTierRecord(c.key, c.value, &record);
    EXPECT_EQ(size, record.size()) << c.key;
    size_t peeked = 0;
    ASSERT_TRUE(PeekTierRecordSize(record, &peeked)) << c.key;
    EXPECT_EQ(peeked, size);
    std::string_view key;
    std::string value;
    ASSERT_TRUE(DecodeTierRecord(record, &key, &value).ok()) << c.key;
    EXPECT_EQ(key, c.key);
    EXPECT_EQ(value, c.value);
    ASSERT_TRUE(DecodeTierRecord(record, std::string_view(c.key), &value).ok());
    EXPECT_EQ(value, c.value);
  }
}

TEST(TierRecord, CompressesOnlyWhatShrinks) {
  std::string record;
  AppendTierRecord("k", std::string(100000, 'x'), &record);
  EXPECT_LT(record.size(), 1000u);
  record.clear();
  const std::string noise = RandomBytes(5000, 2);
  AppendTierRecord("k", noise, &record);
  EXPECT_EQ(record.size(), kTierRecordHeaderSize + 1 + noise.size());
}

TEST(TierRecord, AnyFlippedBitIsRefused) {
  for (const Case& c : {Case{"key:1", "a small value"}, Case{"key:2", std::string(4000, 'z')}}) {
    std::string record;
    AppendTierRecord(c.key, c.value, &record);
    for (size_t i = 0; i < record.size(); ++i) {
      for (int bit = 0; bit < 8; bit += 3) {
        std::string damaged = record;
        damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
        std::string_view key;
        std::string value;
        EXPECT_FALSE(DecodeTierRecord(damaged, &key, &value).ok())
            << c.key << ": byte " << i << " bit " << bit;
      }
    }
  }
}

TEST(TierRecord, TornRecordsAreRefused) {
  std::string record;
  AppendTierRecord("key", std::string(1000, 'q') + "tail", &record);
  for (size_t n = 0; n < record.size(); ++n) {
    std::string_view key;
    std::string value;
    const Status status = DecodeTierRecord(std::string_view(record).substr(0, n), &key, &value);
    EXPECT_FALSE(status.ok()) << n;
  }
}

TEST(TierRecord, AnotherKeysRecordIsRefused) {
  std::string record;
  AppendTierRecord("a", "value of a", &record);
  std::string value;
  const Status status = DecodeTierRecord(record, std::string_view("b"), &value);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "tier record: holds another key");
  EXPECT_TRUE(value.empty());
}

// Appends as the tier writes a segment, in batches padded to kTierAlign; a scan stepping by the
// record headers and skipping padding to the next aligned block finds every record in order.
TEST(TierRecord, SegmentScanFindsEveryRecord) {
  std::string segment;
  std::vector<std::pair<size_t, Case>> written;
  int n = 0;
  for (int batch = 0; batch < 5; ++batch) {
    for (int i = 0; i < 3 + batch; ++i, ++n) {
      Case c{"key:" + std::to_string(n),
             std::string(static_cast<size_t>(n * 97 % 3000), 'a' + n % 26)};
      written.push_back({segment.size(), c});
      AppendTierRecord(c.key, c.value, &segment);
    }
    segment.append(TierPadding(segment.size()), '\0');
    ASSERT_EQ(segment.size() % kTierAlign, 0u);
  }
  size_t found = 0;
  for (size_t at = 0; at < segment.size();) {
    size_t size = 0;
    if (!PeekTierRecordSize(std::string_view(segment).substr(at), &size)) {
      at += kTierAlign - at % kTierAlign;
      continue;
    }
    ASSERT_LT(found, written.size());
    EXPECT_EQ(at, written[found].first);
    std::string value;
    ASSERT_TRUE(DecodeTierRecord(std::string_view(segment).substr(at, size),
                                 std::string_view(written[found].second.key), &value)
                    .ok());
    EXPECT_EQ(value, written[found].second.value);
    ++found;
    at += size;
  }
  EXPECT_EQ(found, written.size());
}

}  // namespace
}  // namespace ordis::persistence
