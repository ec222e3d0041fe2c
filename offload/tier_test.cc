// The cold tier's files and ring: segments are filled in order and refused when the tier is full;
// records written in aligned batches through io_uring come back, read many at a time and out of
// order, as they went in; a record damaged on disk is refused, not served; completions wake the
// ring's eventfd.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "offload/tier_files.h"
#include "offload/tier_ring.h"
#include "persistence/scratch_dir_test_support.h"
#include "persistence/tier_format.h"

namespace ordis::offload {
namespace {

using persistence::kTierAlign;
using persistence::ScratchDir;

constexpr uint64_t kSegment = 16 * kTierAlign;

TEST(TierFiles, FillsSegmentsInOrderUntilFull) {
  ScratchDir dir;
  // Left by an earlier run: removed, the tier holds nothing across restarts.
  std::ofstream(dir.File("tier-7.seg")) << "stale";
  std::ofstream(dir.File("keep.txt")) << "not ours";
  std::unique_ptr<TierFiles> files;
  ASSERT_TRUE(TierFiles::Open(dir.path(), kSegment, 3 * kSegment, &files).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.File("tier-7.seg")));
  EXPECT_TRUE(std::filesystem::exists(dir.File("keep.txt")));
  EXPECT_EQ(files->capacity(), 3u);
  uint32_t segment;
  uint64_t offset;
  ASSERT_TRUE(files->Reserve(10 * kTierAlign, &segment, &offset).ok());
  EXPECT_EQ(segment, 0u);
  EXPECT_EQ(offset, 0u);
  ASSERT_TRUE(files->Reserve(6 * kTierAlign, &segment, &offset).ok());
  EXPECT_EQ(segment, 0u);
  EXPECT_EQ(offset, 10 * kTierAlign);
  ASSERT_TRUE(files->Reserve(kTierAlign, &segment, &offset).ok());  // segment 0 is full
  EXPECT_EQ(segment, 1u);
  EXPECT_EQ(offset, 0u);
  EXPECT_GE(files->fd(1), 0);
  EXPECT_EQ(files->fd(2), -1);
  EXPECT_FALSE(files->Reserve(kTierAlign + 1, &segment, &offset).ok());  // not aligned
  ASSERT_TRUE(files->Reserve(kSegment, &segment, &offset).ok());
  EXPECT_EQ(segment, 2u);
  EXPECT_EQ(files->used_bytes(), 16 * kTierAlign + kTierAlign + kSegment);
  const persistence::Status full = files->Reserve(kTierAlign, &segment, &offset);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.message(), "tier: full");
  // Garbage is counted per segment; a removed segment's room is taken again.
  files->AddGarbage(0, 100);
  files->AddGarbage(2, 50);
  EXPECT_EQ(files->garbage_bytes(), 150u);
  ASSERT_TRUE(files->Remove(0).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.File("tier-0.seg")));
  EXPECT_EQ(files->garbage_bytes(), 50u);
  EXPECT_EQ(files->used_bytes(), kTierAlign + kSegment);
  ASSERT_TRUE(files->Reserve(kTierAlign, &segment, &offset).ok());
  EXPECT_EQ(segment, 0u);
  EXPECT_EQ(offset, 0u);
}

struct Written {
  std::string key;
  std::string value;
  TierLocation at;
};

// Writes `count` records in batches of `per_batch`, each batch one aligned write; returns them
// with their locations.
std::vector<Written> WriteRecords(TierFiles& files, TierRing& ring, int count, int per_batch) {
  std::vector<Written> out;
  std::mt19937_64 rng(42);
  for (int first = 0; first < count; first += per_batch) {
    std::string batch;
    std::vector<size_t> starts;
    for (int i = first; i < std::min(count, first + per_batch); ++i) {
      Written w;
      w.key = "key:" + std::to_string(i);
      // Sizes across block boundaries; every third value compressible.
      w.value.resize(rng() % 9000);
      for (char& c : w.value) c = i % 3 == 0 ? 'c' : static_cast<char>(rng());
      starts.push_back(batch.size());
      w.at.size = static_cast<uint32_t>(persistence::AppendTierRecord(w.key, w.value, &batch));
      out.push_back(std::move(w));
    }
    batch.append(persistence::TierPadding(batch.size()), '\0');
    uint32_t segment;
    uint64_t offset;
    EXPECT_TRUE(files.Reserve(batch.size(), &segment, &offset).ok());
    TierBuffer buf(batch.size());
    std::memcpy(buf.data(), batch.data(), batch.size());
    EXPECT_TRUE(
        ring.Write(files.fd(segment), buf.data(), static_cast<uint32_t>(batch.size()), offset, 0));
    EXPECT_TRUE(ring.Submit().ok());
    int result = 0;
    EXPECT_EQ(ring.Reap([&](uint64_t, int r) { result = r; }, /*wait=*/true), 1u);
    EXPECT_EQ(result, static_cast<int>(batch.size()));
    for (size_t j = 0; j < starts.size(); ++j) {
      Written& w = out[out.size() - starts.size() + j];
      w.at.segment = segment;
      w.at.offset = offset + starts[j];
    }
  }
  return out;
}

// Reads every record back, `depth` in flight at a time, in random order.
void ReadBack(TierFiles& files, TierRing& ring, std::vector<Written> records, unsigned depth) {
  std::shuffle(records.begin(), records.end(), std::mt19937_64(7));
  std::map<uint64_t, TierBuffer> buffers;  // by cookie: the record's index
  size_t next = 0, checked = 0;
  while (checked < records.size()) {
    while (next < records.size() && ring.in_flight() < depth) {
      const TierSpan span = TierRecordSpan(records[next].at);
      TierBuffer& buf = buffers[next];
      buf = TierBuffer(span.length);
      ASSERT_TRUE(ring.Read(files.fd(records[next].at.segment), buf.data(), span.length,
                            span.offset, next));
      ++next;
    }
    ASSERT_TRUE(ring.Submit().ok());
    ring.Reap(
        [&](uint64_t cookie, int result) {
          const Written& w = records[cookie];
          const TierSpan span = TierRecordSpan(w.at);
          ASSERT_GE(result, static_cast<int>(span.skip + w.at.size)) << w.key;
          std::string value;
          const persistence::Status status = persistence::DecodeTierRecord(
              std::string_view(buffers[cookie].data() + span.skip, w.at.size), w.key, &value);
          ASSERT_TRUE(status.ok()) << w.key << ": " << status.message();
          EXPECT_EQ(value, w.value) << w.key;
          buffers.erase(cookie);
          ++checked;
        },
        /*wait=*/true);
  }
}

// Segments of 64 blocks, room for 16 of them, and a ring 64 deep. A kernel that refuses io_uring
// (too old, or a sandbox's seccomp filter) skips these tests: the server then runs without the
// tier.
class TierRingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(TierFiles::Open(dir_.path(), 64 * kTierAlign, 1024 * kTierAlign, &files_).ok());
    const persistence::Status status = TierRing::Create(64, &ring_);
    if (!status.ok()) GTEST_SKIP() << status.message();
  }
  ScratchDir dir_;
  std::unique_ptr<TierFiles> files_;
  std::unique_ptr<TierRing> ring_;
};

TEST_F(TierRingTest, RecordsComeBackManyInFlightAndOutOfOrder) {
  const std::vector<Written> records = WriteRecords(*files_, *ring_, 300, 7);
  EXPECT_GT(files_->used_bytes(), 64 * kTierAlign);  // more than one segment
  ReadBack(*files_, *ring_, records, 64);
  ReadBack(*files_, *ring_, records, 1);
}

TEST_F(TierRingTest, ARecordDamagedOnDiskIsRefused) {
  const std::vector<Written> records = WriteRecords(*files_, *ring_, 3, 3);
  const Written& w = records[1];
  {
    // Another descriptor, buffered, as a failing disk or a stray writer would damage it.
    const int fd = open(dir_.File("tier-0.seg").c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    const char flipped = static_cast<char>(w.key.back() ^ 0x20);
    const uint64_t at = w.at.offset + persistence::kTierRecordHeaderSize + w.key.size() - 1;
    ASSERT_EQ(pwrite(fd, &flipped, 1, static_cast<off_t>(at)), 1);
    ASSERT_EQ(fsync(fd), 0);
    close(fd);
  }
  const TierSpan span = TierRecordSpan(w.at);
  TierBuffer buf(span.length);
  ASSERT_TRUE(ring_->Read(files_->fd(0), buf.data(), span.length, span.offset, 1));
  ASSERT_TRUE(ring_->Submit().ok());
  int result = 0;
  ring_->Reap([&](uint64_t, int r) { result = r; }, /*wait=*/true);
  ASSERT_GT(result, 0);
  std::string value;
  const persistence::Status status = persistence::DecodeTierRecord(
      std::string_view(buf.data() + span.skip, w.at.size), w.key, &value);
  EXPECT_FALSE(status.ok());
  EXPECT_TRUE(value.empty());
}

TEST_F(TierRingTest, CompletionsWakeTheEventFd) {
  pollfd p{ring_->event_fd(), POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 0), 0);  // nothing yet
  uint32_t segment;
  uint64_t offset;
  ASSERT_TRUE(files_->Reserve(kTierAlign, &segment, &offset).ok());
  TierBuffer buf(kTierAlign);
  std::memset(buf.data(), 0, kTierAlign);
  ASSERT_TRUE(ring_->Write(files_->fd(segment), buf.data(), kTierAlign, offset, 9));
  ASSERT_TRUE(ring_->Submit().ok());
  EXPECT_EQ(poll(&p, 1, 10000), 1);
  uint64_t cookie = 0;
  EXPECT_EQ(ring_->Reap([&](uint64_t c, int) { cookie = c; }), 1u);
  EXPECT_EQ(cookie, 9u);
  EXPECT_EQ(poll(&p, 1, 0), 0);  // drained
  EXPECT_EQ(ring_->in_flight(), 0u);
}

}  // namespace
}  // namespace ordis::offload
