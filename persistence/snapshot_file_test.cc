#include "persistence/snapshot_file.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "base/coding.h"
#include "persistence/file_size_limit_test_support.h"
#include "persistence/scratch_dir_test_support.h"
#include "persistence/snapshot_format.h"

namespace ordis::persistence {
namespace {

// The work scales with ORDIS_TEST_SCALE (a positive factor; default 1, or 0.2 in sanitizer
// builds), as in index/learned_store_test.cc: fewer records, sparser corruption offsets.
double Scale() {
  static const double scale = [] {
    if (const char* env = std::getenv("ORDIS_TEST_SCALE")) {
      const double s = std::atof(env);
      if (s > 0) return s;
    }
#ifdef ORDIS_TEST_SANITIZED
    return 0.2;
#else
    return 1.0;
#endif
  }();
  return scale;
}

size_t Scaled(size_t n) { return std::max<size_t>(1, static_cast<size_t>(n * Scale())); }
// Every stride-th offset at scale 1, sparser below.
size_t Stride(size_t stride) { return std::max<size_t>(1, static_cast<size_t>(stride / Scale())); }

struct OwnedRecord {
  uint8_t db = 0;
  uint8_t type = 0;
  int64_t expire_at_ms = -1;
  std::string key;
  std::string payload;

  bool operator==(const OwnedRecord&) const = default;
};

OwnedRecord Own(const SnapshotRecord& r) {
  return {r.db, r.type, r.expire_at_ms, std::string(r.key), std::string(r.payload)};
}

std::string RandomBytes(std::mt19937_64& rng, size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// Text-like bytes: compressible, as real payloads mostly are.
std::string Wordy(std::mt19937_64& rng, size_t n) {
  static constexpr std::string_view kWords[] = {"user:", "session", "0042",     "name", "\x00\xff",
                                                "cart",  "item-",   "{\"id\":", "true", ","};
  std::string s;
  while (s.size() < n) s += kWords[rng() % std::size(kWords)];
  s.resize(n);
  return s;
}

constexpr int64_t kExpireValues[] = {-1, 0, 1, 1'700'000'000'000, INT64_MAX};

std::vector<OwnedRecord> MakeRecords(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<OwnedRecord> records(n);
  for (size_t i = 0; i < n; ++i) {
    OwnedRecord& r = records[i];
    r.db = static_cast<uint8_t>(i);
    r.type = static_cast<uint8_t>(rng() % 7);
    r.expire_at_ms = kExpireValues[rng() % std::size(kExpireValues)];
    r.key = "key:" + std::to_string(i) + std::string(1, '\0') + std::string(1, '\xff');
    const size_t size = rng() % 10 == 0 ? rng() % 4000 : rng() % 64;
    r.payload = rng() % 2 ? Wordy(rng, size) : RandomBytes(rng, size);
  }
  return records;
}

Status WriteSnapshot(const std::string& path, const std::vector<OwnedRecord>& records,
                     int64_t created_ms = 1234) {
  std::unique_ptr<SnapshotWriter> writer;
  if (Status s = SnapshotWriter::Open(path + ".tmp", path, created_ms, &writer); !s.ok()) return s;
  for (const OwnedRecord& r : records) {
    if (Status s = writer->Add({r.db, r.type, r.expire_at_ms, r.key, r.payload}); !s.ok()) return s;
  }
  Status s = writer->Commit();
  EXPECT_EQ(writer->records(), records.size());
  if (s.ok()) {
    EXPECT_EQ(writer->bytes_written(), ReadWholeFile(path).size());
  }
  return s;
}

// Reads every record; the status is the first error, or ok after the trailer.
Status ReadSnapshot(const std::string& path, std::vector<OwnedRecord>* out,
                    int64_t* created_ms = nullptr) {
  out->clear();
  std::unique_ptr<SnapshotReader> reader;
  if (Status s = SnapshotReader::Open(path, &reader); !s.ok()) return s;
  if (created_ms != nullptr) *created_ms = reader->created_ms();
  for (;;) {
    SnapshotRecord record;
    bool done = false;
    if (Status s = reader->Next(&record, &done); !s.ok()) return s;
    if (done) break;
    out->push_back(Own(record));
  }
  // Done is sticky.
  SnapshotRecord record;
  bool done = false;
  EXPECT_TRUE(reader->Next(&record, &done).ok());
  EXPECT_TRUE(done);
  return Status::Ok();
}

// Offsets of the block headers after the file header, the trailer's last.
std::vector<size_t> BlockOffsets(const std::string& file) {
  std::vector<size_t> offsets;
  size_t at = kSnapshotHeaderSize;
  while (at + kSnapshotBlockHeaderSize <= file.size()) {
    offsets.push_back(at);
    std::string_view view(file.data() + at, kSnapshotBlockHeaderSize);
    SnapshotBlockHeader header;
    header.DecodeFrom(&view);
    if (header.is_trailer()) break;
    at += kSnapshotBlockHeaderSize + header.compressed_size;
  }
  return offsets;
}

void ExpectRoundTrip(const std::vector<OwnedRecord>& records, int64_t created_ms = 1234) {
  ScratchDir dir;
  const std::string path = dir.File("dump.osnap");
  ASSERT_TRUE(WriteSnapshot(path, records, created_ms).ok());
  EXPECT_FALSE(FileExists(path + ".tmp"));
  std::vector<OwnedRecord> read;
  int64_t created = 0;
  const Status s = ReadSnapshot(path, &read, &created);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(created, created_ms);
  ASSERT_EQ(read.size(), records.size());
  for (size_t i = 0; i < records.size(); ++i) ASSERT_EQ(read[i], records[i]) << "record " << i;
}

TEST(SnapshotFile, RoundTripsZeroRecords) { ExpectRoundTrip({}, -5); }

TEST(SnapshotFile, RoundTripsOneRecord) {
  ExpectRoundTrip({{3, 1, -1, "k", "v"}}, 1'700'000'000'123);
}

TEST(SnapshotFile, RoundTripsEmptyKeyAndPayload) { ExpectRoundTrip({{0, 0, 0, "", ""}}); }

TEST(SnapshotFile, RoundTripsEveryDbTypeAndBinaryBytes) {
  std::vector<OwnedRecord> records;
  for (int db = 0; db < 256; ++db) {
    OwnedRecord r;
    r.db = static_cast<uint8_t>(db);
    r.type = static_cast<uint8_t>(255 - db);
    r.expire_at_ms = kExpireValues[db % std::size(kExpireValues)];
    r.key = std::string(1, static_cast<char>(db)) + std::string("\x00\xff\x00", 3);
    r.payload = std::string(static_cast<size_t>(db), static_cast<char>(db % 2 ? 0xff : 0x00));
    records.push_back(r);
  }
  ExpectRoundTrip(records);
}

TEST(SnapshotFile, RoundTripsManyRecordsOverSeveralBlocks) {
  std::vector<OwnedRecord> records = MakeRecords(Scaled(300'000), 7);
  std::mt19937_64 rng(8);
  // Large payloads get blocks of their own; zeros compress at lz4's maximum ratio.
  records[1000].payload = RandomBytes(rng, 3 << 20);
  records[2000].payload = std::string(3 << 20, '\0');
  records[2001].payload = Wordy(rng, kSnapshotBlockTarget);
  ExpectRoundTrip(records);

  ScratchDir dir;
  const std::string path = dir.File("dump.osnap");
  ASSERT_TRUE(WriteSnapshot(path, records).ok());
  const std::string file = ReadWholeFile(path);
  EXPECT_GT(BlockOffsets(file).size(), 5u);
}

// ---- corruption ----

// Compressible records, enough for a few blocks in a file small enough to read once per
// corrupted byte.
std::vector<OwnedRecord> MakeSmallRecords(size_t n, uint64_t seed) {
  std::vector<OwnedRecord> records = MakeRecords(n, seed);
  std::mt19937_64 rng(seed);
  for (OwnedRecord& r : records) r.payload = Wordy(rng, rng() % 200);
  return records;
}

struct CorruptionFixture {
  ScratchDir dir;
  std::string path = dir.File("dump.osnap");
  std::vector<OwnedRecord> records = MakeSmallRecords(8000, 11);
  std::string file;

  CorruptionFixture() {
    EXPECT_TRUE(WriteSnapshot(path, records).ok());
    file = ReadWholeFile(path);
  }

  // Reading bytes must fail, and whatever came out before the failure must be what was written.
  void ExpectFailure(const std::string& bytes, const std::string& what) {
    const std::string bad_path = dir.File("bad.osnap");
    WriteWholeFile(bad_path, bytes);
    std::vector<OwnedRecord> read;
    const Status s = ReadSnapshot(bad_path, &read);
    ASSERT_FALSE(s.ok()) << what << ": read " << read.size() << " records without an error";
    EXPECT_NE(s.message().find(bad_path), std::string::npos) << s.message();
    ASSERT_LE(read.size(), records.size()) << what;
    for (size_t i = 0; i < read.size(); ++i)
      ASSERT_EQ(read[i], records[i]) << what << " record " << i;
  }
};

TEST(SnapshotFile, EveryFlippedByteIsReported) {
  CorruptionFixture f;
  const std::vector<size_t> blocks = BlockOffsets(f.file);
  ASSERT_GE(blocks.size(), 4u);  // three data blocks or more, then the trailer
  std::vector<size_t> positions;
  for (size_t i = 0; i < f.file.size(); i += Stride(97)) positions.push_back(i);
  for (size_t i = 0; i < kSnapshotHeaderSize; ++i) positions.push_back(i);
  for (size_t block : blocks) {
    for (size_t i = 0; i < kSnapshotBlockHeaderSize; ++i) positions.push_back(block + i);
    if (block + kSnapshotBlockHeaderSize < f.file.size()) {
      positions.push_back(block + kSnapshotBlockHeaderSize);  // first compressed byte
    }
    if (block > 0) positions.push_back(block - 1);  // last byte of the previous block
  }
  positions.push_back(f.file.size() - 1);
  std::mt19937_64 rng(3);
  for (size_t pos : positions) {
    ASSERT_LT(pos, f.file.size());
    std::string bad = f.file;
    bad[pos] = static_cast<char>(bad[pos] ^ (1 + rng() % 255));
    f.ExpectFailure(bad, "flip at " + std::to_string(pos));
  }
}

TEST(SnapshotFile, EveryTruncationOfASmallFileIsReported) {
  ScratchDir dir;
  const std::string path = dir.File("small.osnap");
  const std::vector<OwnedRecord> records = MakeSmallRecords(12, 5);
  ASSERT_TRUE(WriteSnapshot(path, records).ok());
  const std::string file = ReadWholeFile(path);
  for (size_t len = 0; len < file.size(); ++len) {
    WriteWholeFile(path, file.substr(0, len));
    std::vector<OwnedRecord> read;
    ASSERT_FALSE(ReadSnapshot(path, &read).ok()) << "length " << len;
  }
}

TEST(SnapshotFile, TruncationsOfALargeFileAreReported) {
  CorruptionFixture f;
  std::vector<size_t> lengths;
  for (size_t len = 0; len < f.file.size(); len += Stride(89)) lengths.push_back(len);
  for (size_t block : BlockOffsets(f.file)) {
    for (size_t delta : {size_t{0}, size_t{1}, kSnapshotBlockHeaderSize - 1,
                         kSnapshotBlockHeaderSize, kSnapshotBlockHeaderSize + 1}) {
      if (block + delta < f.file.size()) lengths.push_back(block + delta);
    }
  }
  lengths.push_back(f.file.size() - 1);
  for (size_t len : lengths)
    f.ExpectFailure(f.file.substr(0, len), "length " + std::to_string(len));
}

TEST(SnapshotFile, BytesAfterTheTrailerAreReported) {
  CorruptionFixture f;
  f.ExpectFailure(f.file + std::string(1, '\0'), "one zero after the trailer");
  f.ExpectFailure(f.file + f.file, "the file twice");
}

Status OpenStatus(const std::string& path) {
  std::unique_ptr<SnapshotReader> reader;
  return SnapshotReader::Open(path, &reader);
}

TEST(SnapshotFile, EmptyFileIsNotASnapshot) {
  ScratchDir dir;
  WriteWholeFile(dir.File("empty"), "");
  const Status s = OpenStatus(dir.File("empty"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("empty"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("not a snapshot"), std::string::npos) << s.message();
}

TEST(SnapshotFile, MissingFileNamesThePath) {
  ScratchDir dir;
  const Status s = OpenStatus(dir.File("nope"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir.File("nope")), std::string::npos) << s.message();
}

TEST(SnapshotFile, WrongMagicIsNotASnapshot) {
  ScratchDir dir;
  const std::string path = dir.File("dump.osnap");
  ASSERT_TRUE(WriteSnapshot(path, {{1, 2, 3, "k", "v"}}).ok());
  std::string file = ReadWholeFile(path);
  file.replace(0, 8, "REDIS001");
  WriteWholeFile(path, file);
  Status s = OpenStatus(path);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not a snapshot"), std::string::npos) << s.message();

  WriteWholeFile(path, "*1\r\n$4\r\nPING\r\n");  // short and not ours
  s = OpenStatus(path);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not a snapshot"), std::string::npos) << s.message();
}

// A header with a valid checksum whose fields the reader must refuse.
std::string FileWithHeader(const SnapshotHeader& header, const std::string& path) {
  EXPECT_TRUE(WriteSnapshot(path, {{1, 2, 3, "k", "v"}}).ok());
  std::string file = ReadWholeFile(path);
  std::string encoded;
  header.EncodeTo(&encoded);
  file.replace(0, kSnapshotHeaderSize, encoded);
  return file;
}

TEST(SnapshotFile, NewerVersionIsRefused) {
  ScratchDir dir;
  const std::string path = dir.File("dump.osnap");
  SnapshotHeader header;
  header.version = kSnapshotVersion + 1;
  WriteWholeFile(path, FileWithHeader(header, path));
  const Status s = OpenStatus(path);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("newer"), std::string::npos) << s.message();

  header.version = 0;
  WriteWholeFile(path, FileWithHeader(header, path));
  EXPECT_FALSE(OpenStatus(path).ok());
  header.version = kSnapshotVersion;
  header.flags = 1;
  WriteWholeFile(path, FileWithHeader(header, path));
  EXPECT_FALSE(OpenStatus(path).ok());
}

// A block header with a matching checksum but sizes that must not be believed.
TEST(SnapshotFile, ImpossibleBlockSizesAreRefusedWithoutAllocating) {
  ScratchDir dir;
  const std::string path = dir.File("dump.osnap");
  const std::string data(10, 'x');
  struct Case {
    uint32_t raw, compressed, count;
  };
  for (const Case& c : {Case{0x7fffffff, 10, 1}, Case{1u << 30, 10, 1}, Case{0xffffffff, 10, 1},
                        Case{100, 10, 0}, Case{100, 10, 1000}, Case{0, 10, 1}, Case{5, 0, 1},
                        Case{1000, 0xfffffff0, 1}, Case{1000, 10, 1}}) {
    std::string file;
    SnapshotHeader{}.EncodeTo(&file);
    SnapshotBlockHeader block{c.raw, c.compressed, c.count, XXH64(data.data(), data.size(), 0)};
    block.EncodeTo(&file);
    file += data;
    WriteWholeFile(path, file);
    std::vector<OwnedRecord> read;
    const Status s = ReadSnapshot(path, &read);
    ASSERT_FALSE(s.ok()) << c.raw << " " << c.compressed << " " << c.count;
    EXPECT_NE(s.message().find("block at offset 32"), std::string::npos) << s.message();
  }
}

TEST(SnapshotFile, ChecksumErrorNamesFileAndOffset) {
  CorruptionFixture f;
  const std::vector<size_t> blocks = BlockOffsets(f.file);
  std::string bad = f.file;
  bad[blocks[1] + kSnapshotBlockHeaderSize + 5] ^= 0x10;
  const std::string bad_path = f.dir.File("bad.osnap");
  WriteWholeFile(bad_path, bad);
  std::vector<OwnedRecord> read;
  const Status s = ReadSnapshot(bad_path, &read);
  EXPECT_EQ(s.message(), "snapshot " + bad_path + ": block at offset " + std::to_string(blocks[1]) +
                             ": checksum mismatch");
}

// ---- writer lifecycle ----

TEST(SnapshotFile, WriterWithoutCommitLeavesTheOldFile) {
  ScratchDir dir;
  const std::string path = dir.File("dump.osnap");
  const std::vector<OwnedRecord> old_records = MakeRecords(10, 1);
  ASSERT_TRUE(WriteSnapshot(path, old_records).ok());
  {
    std::unique_ptr<SnapshotWriter> writer;
    ASSERT_TRUE(SnapshotWriter::Open(path + ".tmp", path, 99, &writer).ok());
    for (const OwnedRecord& r : MakeRecords(50'000, 2)) {
      ASSERT_TRUE(writer->Add({r.db, r.type, r.expire_at_ms, r.key, r.payload}).ok());
    }
    EXPECT_TRUE(FileExists(path + ".tmp"));
  }
  EXPECT_FALSE(FileExists(path + ".tmp"));
  std::vector<OwnedRecord> read;
  ASSERT_TRUE(ReadSnapshot(path, &read).ok());
  EXPECT_EQ(read, old_records);
}

TEST(SnapshotFile, FailedCommitRemovesTheTemporaryFile) {
  ScratchDir dir;
  // rename(2) cannot replace a non-empty directory.
  const std::string path = dir.File("taken");
  ASSERT_TRUE(std::filesystem::create_directory(path));
  WriteWholeFile(path + "/inside", "x");
  {
    std::unique_ptr<SnapshotWriter> writer;
    ASSERT_TRUE(SnapshotWriter::Open(path + ".tmp", path, 1, &writer).ok());
    ASSERT_TRUE(writer->Add({0, 0, -1, "k", "v"}).ok());
    const Status s = writer->Commit();
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("rename"), std::string::npos) << s.message();
    EXPECT_FALSE(writer->Add({0, 0, -1, "k", "v"}).ok());  // a failed writer stays failed
  }
  EXPECT_FALSE(FileExists(path + ".tmp"));
  EXPECT_TRUE(FileExists(path + "/inside"));
}

// A write error part way (here the file size limit) fails the writer for good, and destroying it
// removes the partial temporary file and leaves the old snapshot as it was.
TEST(SnapshotFile, WriteErrorFailsTheWriterAndKeepsTheOldFile) {
  ScratchDir dir;
  const std::string path = dir.File("dump.osnap");
  const std::vector<OwnedRecord> old_records = MakeRecords(10, 1);
  ASSERT_TRUE(WriteSnapshot(path, old_records).ok());
  {
    std::unique_ptr<SnapshotWriter> writer;
    ASSERT_TRUE(SnapshotWriter::Open(path + ".tmp", path, 99, &writer).ok());
    FileSizeLimit limit(100'000);
    Status s = Status::Ok();
    for (const OwnedRecord& r : MakeRecords(50'000, 2)) {
      s = writer->Add({r.db, r.type, r.expire_at_ms, r.key, r.payload});
      if (!s.ok()) break;
    }
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(path + ".tmp"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("offset 100000"), std::string::npos) << s.message();
    EXPECT_FALSE(writer->Commit().ok());
    EXPECT_FALSE(writer->Add({0, 0, -1, "k", "v"}).ok());
  }
  EXPECT_FALSE(FileExists(path + ".tmp"));
  std::vector<OwnedRecord> read;
  ASSERT_TRUE(ReadSnapshot(path, &read).ok());
  EXPECT_EQ(read, old_records);
}

TEST(SnapshotFile, OpenFailsInAMissingDirectory) {
  ScratchDir dir;
  std::unique_ptr<SnapshotWriter> writer;
  const Status s = SnapshotWriter::Open(dir.File("no/dump.tmp"), dir.File("no/dump"), 1, &writer);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("No such file"), std::string::npos) << s.message();
}

TEST(SnapshotFile, CommitReplacesTheOldFile) {
  ScratchDir dir;
  const std::string path = dir.File("dump.osnap");
  ASSERT_TRUE(WriteSnapshot(path, MakeRecords(10, 1), 1).ok());
  const std::vector<OwnedRecord> records = MakeRecords(20, 2);
  ASSERT_TRUE(WriteSnapshot(path, records, 2).ok());
  std::vector<OwnedRecord> read;
  int64_t created = 0;
  ASSERT_TRUE(ReadSnapshot(path, &read, &created).ok());
  EXPECT_EQ(read, records);
  EXPECT_EQ(created, 2);
}

}  // namespace
}  // namespace ordis::persistence
