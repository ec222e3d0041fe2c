// The cold tier's store: a demoted value reads back at once (from its batch in memory) and after
// its batch is on disk; batches fill segments and the tier refuses demotions when full, changing
// nothing; released records, padding and unfilled room count as garbage; a record damaged on disk
// or asked for under another key is refused.
#include "offload/tier_store.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "persistence/scratch_dir_test_support.h"
#include "persistence/tier_format.h"

namespace ordis::offload {
namespace {

using persistence::kTierAlign;
using persistence::ScratchDir;

struct Demoted {
  std::string key;
  std::string value;
  TierLocation at;
};

// Batches of 4 blocks in segments of 32, room for 4 segments, a ring 8 deep.
class TierStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(4 * 32 * kTierAlign); }
  void Open(uint64_t max_bytes) {
    store_.reset();
    TierStoreOptions options;
    options.dir = dir_.path();
    options.max_bytes = max_bytes;
    options.segment_bytes = 32 * kTierAlign;
    options.batch_bytes = 4 * kTierAlign;
    options.ring_depth = 8;
    const persistence::Status status = TierStore::Open(options, &store_);
    if (!status.ok()) GTEST_SKIP() << status.message();  // no io_uring here: no tier
  }
  // Values of 0 to 6000 bytes, every third compressible.
  std::vector<Demoted> DemoteMany(int count, const std::string& prefix = "key:") {
    std::vector<Demoted> out;
    std::mt19937_64 rng(count);
    for (int i = 0; i < count; ++i) {
      Demoted d;
      d.key = prefix + std::to_string(i);
      d.value.resize(rng() % 6000);
      for (char& c : d.value) c = i % 3 == 0 ? 'z' : static_cast<char>(rng());
      const persistence::Status status = store_->Demote(d.key, d.value, &d.at);
      EXPECT_TRUE(status.ok()) << status.message();
      out.push_back(std::move(d));
    }
    return out;
  }
  void ExpectAll(const std::vector<Demoted>& all) {
    for (const Demoted& d : all) {
      std::string value;
      const persistence::Status status = store_->Read(d.at, d.key, &value);
      ASSERT_TRUE(status.ok()) << d.key << ": " << status.message();
      EXPECT_EQ(value, d.value) << d.key;
    }
  }
  ScratchDir dir_;
  std::unique_ptr<TierStore> store_;
};

TEST_F(TierStoreTest, ValuesReadBackWhilePendingAndFromDisk) {
  std::vector<Demoted> all = DemoteMany(60);
  ExpectAll(all);  // many still in memory: the batch being filled, batches being written
  const uint64_t from_memory = store_->stats().reads - store_->stats().disk_reads;
  EXPECT_GT(from_memory, 0u);
  ASSERT_TRUE(store_->Drain().ok());
  EXPECT_EQ(store_->stats().pending_batches, 0u);
  const uint64_t disk_before = store_->stats().disk_reads;
  ExpectAll(all);
  EXPECT_EQ(store_->stats().disk_reads - disk_before, all.size());
  EXPECT_EQ(store_->stats().demoted, all.size());
  EXPECT_EQ(store_->stats().read_errors, 0u);
  EXPECT_EQ(store_->stats().write_errors, 0u);
  EXPECT_GT(store_->stats().batches, 1u);
  // A record bigger than a batch gets one of its own.
  Demoted big{"big", std::string(9 * kTierAlign, 'b'), {}};
  big.value[100] = 'x';
  ASSERT_TRUE(store_->Demote(big.key, big.value, &big.at).ok());
  ASSERT_TRUE(store_->Drain().ok());
  ExpectAll({big});
}

TEST_F(TierStoreTest, GarbageIsReleasedRecordsPaddingAndUnfilledRoom) {
  std::vector<Demoted> all = DemoteMany(20);
  ASSERT_TRUE(store_->Drain().ok());
  const TierFiles& files = store_->files();
  uint64_t records = 0;
  for (const Demoted& d : all) records += d.at.size;
  // Everything reserved is a record or garbage.
  EXPECT_EQ(files.used_bytes(), records + files.garbage_bytes());
  const uint64_t before = files.garbage_bytes();
  store_->Release(all[3].at);
  EXPECT_EQ(files.garbage_bytes(), before + all[3].at.size);
  EXPECT_EQ(files.garbage(all[3].at.segment) > 0, true);
}

TEST_F(TierStoreTest, AFullTierRefusesDemotionsAndChangesNothing) {
  Open(32 * kTierAlign);  // one segment: 8 batches
  std::vector<Demoted> kept;
  persistence::Status status = persistence::Status::Ok();
  std::mt19937_64 rng(1);
  for (int i = 0; status.ok(); ++i) {
    Demoted d{"k" + std::to_string(i), std::string(3000, ' '), {}};
    for (char& c : d.value) c = static_cast<char>(rng());  // incompressible
    status = store_->Demote(d.key, d.value, &d.at);
    if (status.ok()) kept.push_back(std::move(d));
    ASSERT_LT(i, 1000);
  }
  EXPECT_EQ(status.message(), "tier: full");
  const uint64_t demoted = store_->stats().demoted;
  EXPECT_EQ(demoted, kept.size());
  EXPECT_FALSE(store_->Demote("again", std::string(3000, 'q'), &kept[0].at).ok());
  EXPECT_EQ(store_->stats().demoted, demoted);
  ASSERT_TRUE(store_->Drain().ok());
  ExpectAll(kept);
  EXPECT_FALSE(store_->Demote("huge", std::string(40 * kTierAlign, 'h'), &kept[0].at).ok());
}

// A full tier keeps its last segment for compaction: once enough is garbage, compaction moves the
// live records there and frees a segment, and demotions go on.
TEST_F(TierStoreTest, AFullTierCompactsIntoItsSpareSegment) {
  std::vector<Demoted> kept;
  persistence::Status status = persistence::Status::Ok();
  std::mt19937_64 rng(2);
  for (int i = 0; status.ok(); ++i) {
    Demoted d{"f" + std::to_string(i), std::string(3000, ' '), {}};
    for (char& c : d.value) c = static_cast<char>(rng());
    status = store_->Demote(d.key, d.value, &d.at);
    if (status.ok()) kept.push_back(std::move(d));
    ASSERT_LT(i, 10000);
  }
  EXPECT_EQ(status.message(), "tier: full");
  ASSERT_TRUE(store_->Drain().ok());
  EXPECT_EQ(store_->files().free_segments(), 1u);  // the spare
  std::map<std::string, Demoted> live;
  for (const Demoted& d : kept) {
    if (d.at.segment == 0 && d.key.back() % 4 != 0) {
      store_->Release(d.at);
    } else {
      live[d.key] = d;
    }
  }
  int64_t segment = -1;
  ASSERT_TRUE(
      store_
          ->Compact(
              0.5,
              [&](std::string_view key, const TierLocation& at) {
                auto it = live.find(std::string(key));
                return it != live.end() && it->second.at.offset == at.offset &&
                       it->second.at.segment == at.segment;
              },
              [&](std::string_view key, const TierLocation& to) { live[std::string(key)].at = to; },
              &segment)
          .ok());
  EXPECT_EQ(segment, 0);
  Demoted again{"again", std::string(3000, 'a'), {}};
  EXPECT_TRUE(store_->Demote(again.key, again.value, &again.at).ok());
  live[again.key] = again;
  std::vector<Demoted> all;
  for (const auto& [key, d] : live) all.push_back(d);
  ExpectAll(all);
}

TEST_F(TierStoreTest, ADamagedOrMisdirectedRecordIsRefused) {
  std::vector<Demoted> all = DemoteMany(5);
  ASSERT_TRUE(store_->Drain().ok());
  std::string value;
  EXPECT_FALSE(store_->Read(all[1].at, all[2].key, &value).ok());  // another key's location
  EXPECT_TRUE(value.empty());
  const Demoted& d = all[2];
  {
    // Another descriptor, buffered, as a failing disk or a stray writer would damage it.
    const int fd = open(dir_.File("tier-" + std::to_string(d.at.segment) + ".seg").c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    char byte;
    const off_t at = static_cast<off_t>(d.at.offset + d.at.size - 1);
    ASSERT_EQ(pread(fd, &byte, 1, at), 1);
    byte = static_cast<char>(byte ^ 1);
    ASSERT_EQ(pwrite(fd, &byte, 1, at), 1);
    ASSERT_EQ(fsync(fd), 0);
    close(fd);
  }
  EXPECT_FALSE(store_->Read(d.at, d.key, &value).ok());
  EXPECT_TRUE(value.empty());
  EXPECT_EQ(store_->stats().read_errors, 2u);
  EXPECT_TRUE(store_->Read(all[3].at, all[3].key, &value).ok());  // the rest still read
  EXPECT_EQ(value, all[3].value);
}

// Compaction over a model of which keys are live where: dead records are left behind, live ones
// (a record bigger than a batch among them) move and still read back, and each compacted
// segment's file goes; the segment still taking batches is never taken.
TEST_F(TierStoreTest, CompactionMovesLiveRecordsAndDeletesTheSegment) {
  std::vector<Demoted> all = DemoteMany(90);
  Demoted big{"big", std::string(5 * kTierAlign + 100, ' '), {}};
  std::mt19937_64 rng(3);
  for (char& c : big.value) c = static_cast<char>(rng());
  ASSERT_TRUE(store_->Demote(big.key, big.value, &big.at).ok());
  all.push_back(big);
  for (Demoted& d : DemoteMany(10, "more:")) all.push_back(d);  // "big" is not in the active one
  ASSERT_TRUE(store_->Drain().ok());
  std::map<std::string, Demoted> live;
  for (size_t i = 0; i < all.size(); ++i) {
    if (i % 3 == 1 && all[i].key != "big") {  // incompressible ones: every third is tiny
      store_->Release(all[i].at);
    } else {
      live[all[i].key] = all[i];
    }
  }
  const uint64_t used_before = store_->files().used_bytes();
  int compacted = 0;
  for (;;) {
    int64_t segment = -2;
    uint64_t moved_here = 0;
    const persistence::Status status = store_->Compact(
        0.2,
        [&](std::string_view key, const TierLocation& at) {
          auto it = live.find(std::string(key));
          return it != live.end() && it->second.at.segment == at.segment &&
                 it->second.at.offset == at.offset;
        },
        [&](std::string_view key, const TierLocation& to) {
          live[std::string(key)].at = to;
          ++moved_here;
        },
        &segment);
    ASSERT_TRUE(status.ok()) << status.message();
    if (segment < 0) break;
    EXPECT_NE(segment, store_->files().active());
    EXPECT_FALSE(std::filesystem::exists(dir_.File("tier-" + std::to_string(segment) + ".seg")));
    EXPECT_GT(moved_here, 0u);
    ++compacted;
    ASSERT_LT(compacted, 10);
    for (const auto& [key, d] : live) EXPECT_NE(d.at.segment, segment) << key;
  }
  EXPECT_GE(compacted, 2);
  // Moved (a window grew to hold it): elsewhere, or in its old segment's slot made anew.
  EXPECT_TRUE(live["big"].at.segment != big.at.segment || live["big"].at.offset != big.at.offset);
  EXPECT_EQ(store_->stats().compactions, static_cast<uint64_t>(compacted));
  std::vector<Demoted> kept;
  for (const auto& [key, d] : live) kept.push_back(d);
  ExpectAll(kept);  // moved ones partly from memory
  ASSERT_TRUE(store_->Drain().ok());
  ExpectAll(kept);
  EXPECT_LT(store_->files().used_bytes(), used_before);
}

TEST_F(TierStoreTest, ACorruptRecordKeepsItsSegment) {
  std::vector<Demoted> all = DemoteMany(40);
  DemoteMany(40);  // another segment to fill
  ASSERT_TRUE(store_->Drain().ok());
  ASSERT_EQ(all[0].at.segment, 0u);
  for (const Demoted& d : all) {
    if (d.at.segment == 0) store_->Release(d.at);
  }
  {
    const int fd = open(dir_.File("tier-0.seg").c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    const char junk = 'J';
    ASSERT_EQ(pwrite(fd, &junk, 1, static_cast<off_t>(all[1].at.offset)), 1);  // its magic
    ASSERT_EQ(fsync(fd), 0);
    close(fd);
  }
  int64_t segment = -2;
  const persistence::Status status = store_->Compact(
      0.2, [](std::string_view, const TierLocation&) { return false; },
      [](std::string_view, const TierLocation&) {}, &segment);
  EXPECT_EQ(segment, 0);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("segment 0"), std::string::npos) << status.message();
  EXPECT_TRUE(std::filesystem::exists(dir_.File("tier-0.seg")));
  EXPECT_EQ(store_->stats().compactions, 0u);
}

}  // namespace
}  // namespace ordis::offload
