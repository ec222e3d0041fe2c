#include "persistence/aof_file.h"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <random>
#include <string>
#include <vector>

#include "base/coding.h"
#include "persistence/aof_format.h"
#include "persistence/file_size_limit_test_support.h"
#include "persistence/scratch_dir_test_support.h"

namespace ordis::persistence {
namespace {

struct ReadResult {
  std::vector<std::string> payloads;
  AofReader::End end = AofReader::End::kClean;
  uint64_t good_offset = 0;
  std::string error;
};

ReadResult ReadAof(const std::string& path) {
  ReadResult result;
  std::unique_ptr<AofReader> reader;
  const Status s = AofReader::Open(path, &reader);
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return result;
  std::string_view payload;
  while (reader->Next(&payload)) result.payloads.emplace_back(payload);
  EXPECT_FALSE(reader->Next(&payload));  // the end is sticky
  result.end = reader->end();
  result.good_offset = reader->good_offset();
  result.error = reader->error();
  return result;
}

std::string Payload(std::mt19937_64& rng, size_t n) {
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

// Writes payloads and returns each record's start offset, then the file's end.
std::vector<uint64_t> WriteAof(const std::string& path, const std::vector<std::string>& payloads) {
  std::unique_ptr<AofWriter> writer;
  EXPECT_TRUE(AofWriter::Open(path, &writer).ok());
  std::vector<uint64_t> offsets;
  uint64_t at = writer->size();
  for (const std::string& p : payloads) {
    offsets.push_back(at);
    writer->Add(p);
    at += kAofRecordHeaderSize + p.size();
  }
  offsets.push_back(at);
  EXPECT_TRUE(writer->Flush(false).ok());
  EXPECT_EQ(writer->size(), at);
  return offsets;
}

std::vector<std::string> SomePayloads(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> payloads;
  for (size_t i = 0; i < n; ++i) {
    payloads.push_back("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n" + Payload(rng, 10 + rng() % 90));
  }
  return payloads;
}

TEST(AofFile, RoundTripsOverManyFlushes) {
  for (bool sync : {false, true}) {
    ScratchDir dir;
    const std::string path = dir.File("appendonly.aof");
    std::mt19937_64 rng(sync ? 2 : 1);
    std::vector<std::string> written;
    std::unique_ptr<AofWriter> writer;
    ASSERT_TRUE(AofWriter::Open(path, &writer).ok());
    EXPECT_EQ(writer->size(), 0u);
    EXPECT_FALSE(writer->has_pending());
    const int flushes = sync ? 30 : 300;
    for (int f = 0; f < flushes; ++f) {
      const size_t batch = rng() % 40;
      for (size_t i = 0; i < batch; ++i) {
        // Mostly small, sometimes empty, rarely larger than the reader's 1 MiB chunk.
        const size_t size = rng() % 1000 == 0 ? (1 << 20) + rng() % (2 << 20)
                            : rng() % 20 == 0 ? 0
                                              : rng() % 3000;
        written.push_back(Payload(rng, size));
        writer->Add(written.back());
      }
      EXPECT_EQ(writer->has_pending(), batch > 0);
      ASSERT_TRUE(writer->Flush(sync).ok());
      EXPECT_FALSE(writer->has_pending());
      EXPECT_EQ(writer->size(), std::filesystem::file_size(path));
    }
    ASSERT_TRUE(writer->Sync().ok());
    const ReadResult read = ReadAof(path);
    EXPECT_EQ(read.end, AofReader::End::kClean) << read.error;
    EXPECT_EQ(read.good_offset, writer->size());
    ASSERT_EQ(read.payloads.size(), written.size());
    for (size_t i = 0; i < written.size(); ++i) ASSERT_EQ(read.payloads[i], written[i]) << i;
  }
}

TEST(AofFile, ReopenAppendsAtTheEnd) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof");
  const std::vector<std::string> first = SomePayloads(100, 1);
  const std::vector<std::string> second = SomePayloads(100, 2);
  const uint64_t first_end = WriteAof(path, first).back();
  const std::vector<uint64_t> offsets = WriteAof(path, second);
  EXPECT_EQ(offsets.front(), first_end);
  const ReadResult read = ReadAof(path);
  EXPECT_EQ(read.end, AofReader::End::kClean);
  std::vector<std::string> all = first;
  all.insert(all.end(), second.begin(), second.end());
  EXPECT_EQ(read.payloads, all);
}

TEST(AofFile, EmptyFileIsClean) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof");
  WriteWholeFile(path, "");
  const ReadResult read = ReadAof(path);
  EXPECT_EQ(read.end, AofReader::End::kClean);
  EXPECT_TRUE(read.payloads.empty());
  EXPECT_EQ(read.good_offset, 0u);
  EXPECT_TRUE(read.error.empty());
}

TEST(AofFile, MissingFileFailsToOpen) {
  ScratchDir dir;
  std::unique_ptr<AofReader> reader;
  const Status s = AofReader::Open(dir.File("nope.aof"), &reader);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir.File("nope.aof")), std::string::npos) << s.message();
}

TEST(AofFile, EveryCutInsideTheLastRecordIsATornTail) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof");
  const std::vector<std::string> payloads = SomePayloads(5, 3);
  const std::vector<uint64_t> offsets = WriteAof(path, payloads);
  const std::string file = ReadWholeFile(path);
  const uint64_t last = offsets[4];
  for (uint64_t len = last; len < file.size(); ++len) {
    WriteWholeFile(path, file.substr(0, len));
    const ReadResult read = ReadAof(path);
    ASSERT_EQ(read.payloads, std::vector<std::string>(payloads.begin(), payloads.begin() + 4));
    ASSERT_EQ(read.good_offset, last) << "length " << len;
    if (len == last) {
      EXPECT_EQ(read.end, AofReader::End::kClean);
    } else {
      ASSERT_EQ(read.end, AofReader::End::kTornTail) << "length " << len << ": " << read.error;
      EXPECT_NE(read.error.find("offset " + std::to_string(last)), std::string::npos) << read.error;
    }
  }
}

TEST(AofFile, ZerosAfterTheLastRecordAreATornTail) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof");
  const std::vector<std::string> payloads = SomePayloads(5, 4);
  const uint64_t end = WriteAof(path, payloads).back();
  const std::string file = ReadWholeFile(path);
  for (size_t zeros : {1, 15, 16, 17, 100, 4096, 3 << 20}) {
    WriteWholeFile(path, file + std::string(zeros, '\0'));
    const ReadResult read = ReadAof(path);
    EXPECT_EQ(read.end, AofReader::End::kTornTail) << zeros << " zeros: " << read.error;
    EXPECT_EQ(read.good_offset, end);
    EXPECT_EQ(read.payloads, payloads);
  }
}

TEST(AofFile, ZeroedLastPayloadIsATornTail) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof");
  const std::vector<std::string> payloads = SomePayloads(5, 5);
  const std::vector<uint64_t> offsets = WriteAof(path, payloads);
  std::string file = ReadWholeFile(path);
  // The header reached the disk, the payload did not: the file was extended with zeros.
  std::fill(file.begin() + offsets[4] + kAofRecordHeaderSize, file.end(), '\0');
  WriteWholeFile(path, file);
  const ReadResult read = ReadAof(path);
  EXPECT_EQ(read.end, AofReader::End::kTornTail) << read.error;
  EXPECT_EQ(read.good_offset, offsets[4]);
  EXPECT_EQ(read.payloads.size(), 4u);
}

TEST(AofFile, FlippedLastPayloadByteIsATornTail) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof");
  const std::vector<std::string> payloads = SomePayloads(5, 6);
  const std::vector<uint64_t> offsets = WriteAof(path, payloads);
  std::string file = ReadWholeFile(path);
  file.back() ^= 1;
  WriteWholeFile(path, file);
  const ReadResult read = ReadAof(path);
  EXPECT_EQ(read.end, AofReader::End::kTornTail) << read.error;
  EXPECT_EQ(read.good_offset, offsets[4]);
}

// Flips each byte of a middle record in turn: every one must be corruption at that record.
TEST(AofFile, FlippedByteInAMiddleRecordIsCorruption) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof");
  const std::vector<std::string> payloads = SomePayloads(9, 7);
  const std::vector<uint64_t> offsets = WriteAof(path, payloads);
  const std::string file = ReadWholeFile(path);
  const uint64_t middle = offsets[4];
  for (uint64_t pos = middle; pos < offsets[5]; ++pos) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string bad = file;
      bad[pos] = static_cast<char>(bad[pos] ^ mask);
      WriteWholeFile(path, bad);
      const ReadResult read = ReadAof(path);
      const std::string what = "byte " + std::to_string(pos - middle) + " of the record";
      ASSERT_EQ(read.end, AofReader::End::kCorrupt) << what << ": " << read.error;
      EXPECT_EQ(read.good_offset, middle) << what;
      ASSERT_EQ(read.payloads, std::vector<std::string>(payloads.begin(), payloads.begin() + 4))
          << what;
      EXPECT_NE(read.error.find(path), std::string::npos) << read.error;
      EXPECT_NE(read.error.find("offset " + std::to_string(middle)), std::string::npos)
          << read.error;
    }
  }
}

// A length with a matching header check that runs past the end of the file: a torn tail, found
// without allocating the length.
TEST(AofFile, HugeLengthPastTheEndIsATornTail) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof");
  const std::vector<std::string> payloads = SomePayloads(3, 8);
  const uint64_t end = WriteAof(path, payloads).back();
  std::string file = ReadWholeFile(path);
  std::string length;
  PutFixed32(&length, 0xfffffff0u);
  file += length;
  PutFixed32(&file, static_cast<uint32_t>(XXH64(length.data(), 4, 0)));
  PutFixed64(&file, 12345);
  file += "short payload";
  WriteWholeFile(path, file);
  const ReadResult read = ReadAof(path);
  EXPECT_EQ(read.end, AofReader::End::kTornTail) << read.error;
  EXPECT_EQ(read.good_offset, end);
  EXPECT_EQ(read.payloads, payloads);
}

TEST(AofFile, TruncateFileRemovesATornTail) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof");
  const std::vector<std::string> payloads = SomePayloads(20, 9);
  const std::vector<uint64_t> offsets = WriteAof(path, payloads);
  const std::string file = ReadWholeFile(path);
  WriteWholeFile(path, file.substr(0, file.size() - 3));
  ReadResult read = ReadAof(path);
  ASSERT_EQ(read.end, AofReader::End::kTornTail);
  ASSERT_TRUE(TruncateFile(path, read.good_offset).ok());
  EXPECT_EQ(ReadWholeFile(path).size(), offsets[19]);
  read = ReadAof(path);
  EXPECT_EQ(read.end, AofReader::End::kClean) << read.error;
  EXPECT_EQ(read.payloads, std::vector<std::string>(payloads.begin(), payloads.end() - 1));

  // Appending after recovery continues from the truncation point.
  WriteAof(path, {"after"});
  read = ReadAof(path);
  EXPECT_EQ(read.end, AofReader::End::kClean);
  EXPECT_EQ(read.payloads.back(), "after");
  EXPECT_EQ(read.payloads.size(), 20u);

  EXPECT_FALSE(TruncateFile(dir.File("nope"), 0).ok());
}

TEST(AofFile, WriterCreatesTheFileAndKeepsPendingUntilFlushed) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof");
  std::unique_ptr<AofWriter> writer;
  ASSERT_TRUE(AofWriter::Open(path, &writer).ok());
  EXPECT_TRUE(FileExists(path));
  writer->Add("one");
  writer->Add("");
  EXPECT_TRUE(writer->has_pending());
  EXPECT_EQ(writer->size(), 0u);
  EXPECT_EQ(ReadWholeFile(path).size(), 0u);  // no I/O before Flush
  ASSERT_TRUE(writer->Flush(true).ok());
  EXPECT_EQ(writer->size(), 2 * kAofRecordHeaderSize + 3);
  EXPECT_EQ(ReadAof(path).payloads, (std::vector<std::string>{"one", ""}));
  EXPECT_TRUE(writer->Flush(true).ok());  // nothing pending: only the sync
}

// A write that stops short (the file size limit) keeps what did not reach the file pending; the
// next Flush writes exactly the rest.
TEST(AofFile, FailedFlushKeepsPendingAndRetries) {
  ScratchDir dir;
  const std::string path = dir.File("appendonly.aof");
  const std::vector<std::string> payloads = SomePayloads(50, 10);
  std::unique_ptr<AofWriter> writer;
  ASSERT_TRUE(AofWriter::Open(path, &writer).ok());
  for (const std::string& p : payloads) writer->Add(p);
  {
    FileSizeLimit limit(1000);
    const Status s = writer->Flush(false);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("offset 1000"), std::string::npos) << s.message();
    EXPECT_TRUE(writer->has_pending());
    EXPECT_EQ(writer->size(), 1000u);
    // What a crash now would leave: a torn tail inside the record spanning offset 1000.
    const ReadResult torn = ReadAof(path);
    EXPECT_EQ(torn.end, AofReader::End::kTornTail) << torn.error;
    EXPECT_FALSE(writer->Flush(false).ok());  // still over the limit
  }
  ASSERT_TRUE(writer->Flush(true).ok());
  EXPECT_FALSE(writer->has_pending());
  const ReadResult read = ReadAof(path);
  EXPECT_EQ(read.end, AofReader::End::kClean) << read.error;
  EXPECT_EQ(read.payloads, payloads);
  EXPECT_EQ(read.good_offset, writer->size());
}

}  // namespace
}  // namespace ordis::persistence
