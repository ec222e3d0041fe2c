#include "persistence/snapshot_file.h"

#include <fcntl.h>
#include <lz4.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cstdio>
#include <string>

#include "base/coding.h"
#include "persistence/internal/posix_file.h"
#include "persistence/snapshot_format.h"

namespace ordis::persistence {

using internal::ErrnoText;
using internal::ScopedFd;

namespace {

struct Xxh64StateFree {
  void operator()(XXH64_state_t* state) const { XXH64_freeState(state); }
};
using Xxh64State = std::unique_ptr<XXH64_state_t, Xxh64StateFree>;

Xxh64State NewXxh64State() {
  Xxh64State state(XXH64_createState());
  XXH64_reset(state.get(), 0);
  return state;
}

// The trailer's checksum chains the block checksums in their on-disk byte order.
void ChainChecksum(XXH64_state_t* state, uint64_t block_checksum) {
  std::string bytes;
  PutFixed64(&bytes, block_checksum);
  XXH64_update(state, bytes.data(), bytes.size());
}

std::string At(uint64_t offset) { return " at offset " + std::to_string(offset); }

}  // namespace

// ---- writer ----

struct SnapshotWriter::Impl {
  std::string path_tmp;
  std::string path;
  ScopedFd fd;
  std::string raw;  // records of the block being gathered
  uint32_t raw_records = 0;
  std::string out;  // block header and compressed bytes, reused
  Xxh64State chain = NewXxh64State();
  uint64_t records = 0;
  uint64_t bytes_written = 0;
  Status failed = Status::Ok();  // sticky: a failed writer never produces a file
  bool committed = false;

  Status Fail(const std::string& what, int err = 0) {
    std::string message = "snapshot " + path_tmp + ": " + what;
    if (err != 0) message += ": " + ErrnoText(err);
    failed = Status::Error(std::move(message));
    return failed;
  }

  Status Write(const std::string& bytes) {
    size_t written = 0;
    const int err = internal::WriteAll(fd.get(), bytes.data(), bytes.size(), &written);
    const uint64_t at = bytes_written;
    bytes_written += written;
    if (err != 0) return Fail("write" + At(at + written) + " failed", err);
    return Status::Ok();
  }

  Status WriteBlock() {
    const int bound = LZ4_compressBound(static_cast<int>(raw.size()));
    out.resize(kSnapshotBlockHeaderSize + static_cast<size_t>(bound));
    const int compressed = LZ4_compress_default(raw.data(), out.data() + kSnapshotBlockHeaderSize,
                                                static_cast<int>(raw.size()), bound);
    if (compressed <= 0) return Fail("lz4 compression of a block failed");
    SnapshotBlockHeader header;
    header.raw_size = static_cast<uint32_t>(raw.size());
    header.compressed_size = static_cast<uint32_t>(compressed);
    header.record_count = raw_records;
    header.checksum = XXH64(out.data() + kSnapshotBlockHeaderSize, compressed, 0);
    std::string encoded;
    header.EncodeTo(&encoded);
    out.replace(0, kSnapshotBlockHeaderSize, encoded);
    out.resize(kSnapshotBlockHeaderSize + static_cast<size_t>(compressed));
    ChainChecksum(chain.get(), header.checksum);
    raw.clear();
    raw_records = 0;
    return Write(out);
  }
};

Status SnapshotWriter::Open(const std::string& path_tmp, const std::string& path, int64_t now_ms,
                            std::unique_ptr<SnapshotWriter>* out) {
  auto impl = std::make_unique<Impl>();
  impl->path_tmp = path_tmp;
  impl->path = path;
  impl->fd.Reset(internal::OpenFile(path_tmp, O_WRONLY | O_CREAT | O_TRUNC));
  if (!impl->fd.valid()) {
    return Status::Error("snapshot " + path_tmp + ": cannot create: " + ErrnoText(errno));
  }
  SnapshotHeader header;
  header.created_ms = now_ms;
  std::string bytes;
  header.EncodeTo(&bytes);
  // From here on the destructor removes path_tmp if anything fails.
  out->reset(new SnapshotWriter(std::move(impl)));
  Status status = (*out)->impl_->Write(bytes);
  if (!status.ok()) out->reset();
  return status;
}

SnapshotWriter::SnapshotWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

SnapshotWriter::~SnapshotWriter() {
  if (impl_->committed) return;
  impl_->fd.Reset();
  ::unlink(impl_->path_tmp.c_str());
}

Status SnapshotWriter::Add(const SnapshotRecord& record) {
  Impl& s = *impl_;
  if (!s.failed.ok()) return s.failed;
  if (s.committed) return s.Fail("Add after Commit");
  const size_t size = SnapshotRecordSize(record);
  if (size > kSnapshotMaxBlockRaw) {
    return Status::Error("snapshot " + s.path_tmp + ": a record of " + std::to_string(size) +
                         " bytes is above the 1 GiB limit");
  }
  // A record that would overflow the block starts the next one; a large record gets its own.
  if (!s.raw.empty() && s.raw.size() + size > kSnapshotBlockTarget) {
    if (Status st = s.WriteBlock(); !st.ok()) return st;
  }
  EncodeSnapshotRecord(record, &s.raw);
  ++s.raw_records;
  ++s.records;
  if (s.raw.size() >= kSnapshotBlockTarget) return s.WriteBlock();
  return Status::Ok();
}

Status SnapshotWriter::Commit() {
  Impl& s = *impl_;
  if (!s.failed.ok()) return s.failed;
  if (s.committed) return s.Fail("Commit called twice");
  if (!s.raw.empty()) {
    if (Status st = s.WriteBlock(); !st.ok()) return st;
  }
  SnapshotBlockHeader trailer;
  trailer.record_count = static_cast<uint32_t>(s.records);  // low 32 bits, see snapshot_file.h
  trailer.checksum = XXH64_digest(s.chain.get());
  std::string bytes;
  trailer.EncodeTo(&bytes);
  if (Status st = s.Write(bytes); !st.ok()) return st;
  if (const int err = internal::SyncAll(s.fd.get()); err != 0) return s.Fail("fsync failed", err);
  if (const int err = s.fd.Close(); err != 0) return s.Fail("close failed", err);
  if (::rename(s.path_tmp.c_str(), s.path.c_str()) != 0) {
    return s.Fail("rename to " + s.path + " failed", errno);
  }
  // The new file is in place: the destructor must not remove anything any more.
  s.committed = true;
  const std::string dir = internal::DirName(s.path);
  if (const int err = internal::SyncDir(dir); err != 0) {
    return Status::Error("snapshot " + s.path + ": fsync of directory " + dir +
                         " failed (the rename may not survive a crash): " + ErrnoText(err));
  }
  return Status::Ok();
}

uint64_t SnapshotWriter::records() const { return impl_->records; }
uint64_t SnapshotWriter::bytes_written() const { return impl_->bytes_written; }

// ---- reader ----

struct SnapshotReader::Impl {
  std::string path;
  ScopedFd fd;
  uint64_t file_size = 0;
  int64_t created_ms = 0;
  uint64_t offset = 0;  // of the next block header
  std::string compressed;
  std::unique_ptr<char[]> raw;
  size_t raw_capacity = 0;
  std::string_view rest;  // records of the current block not yet returned
  uint32_t left_in_block = 0;
  uint64_t records = 0;
  Xxh64State chain = NewXxh64State();
  Status failed = Status::Ok();
  bool done = false;

  Status Fail(const std::string& what) {
    failed = Status::Error("snapshot " + path + ": " + what);
    return failed;
  }

  // Reads exactly n bytes at the current position; a short read is reported through *got.
  Status Read(char* buf, size_t n, size_t* got) {
    if (const int err = internal::ReadFull(fd.get(), buf, n, got); err != 0) {
      return Fail("read" + At(offset) + " failed: " + ErrnoText(err));
    }
    return Status::Ok();
  }

  // Reads the next block (or the trailer) and checks everything about it before any of its
  // records is handed out, so a corrupt block yields no record at all.
  Status LoadBlock() {
    const uint64_t block_offset = offset;
    char header_bytes[kSnapshotBlockHeaderSize];
    size_t got = 0;
    if (Status st = Read(header_bytes, sizeof(header_bytes), &got); !st.ok()) return st;
    if (got == 0) return Fail("file ends" + At(block_offset) + " without a trailer");
    if (got < sizeof(header_bytes)) {
      return Fail("block" + At(block_offset) + ": truncated block header (" + std::to_string(got) +
                  " of " + std::to_string(sizeof(header_bytes)) + " bytes)");
    }
    std::string_view view(header_bytes, sizeof(header_bytes));
    SnapshotBlockHeader header;
    header.DecodeFrom(&view);
    offset += kSnapshotBlockHeaderSize;
    if (header.is_trailer()) return CheckTrailer(header, block_offset);

    const std::string where = "block" + At(block_offset) + ": ";
    if (const char* problem = header.CheckSizes()) return Fail(where + problem);
    if (header.compressed_size > file_size - offset) {
      return Fail(where + "truncated: " + std::to_string(header.compressed_size) +
                  " compressed bytes announced, " + std::to_string(file_size - offset) + " left");
    }
    compressed.resize(header.compressed_size);
    if (Status st = Read(compressed.data(), compressed.size(), &got); !st.ok()) return st;
    if (got < compressed.size()) return Fail(where + "truncated");
    offset += header.compressed_size;
    if (XXH64(compressed.data(), compressed.size(), 0) != header.checksum) {
      return Fail(where + "checksum mismatch");
    }
    if (raw_capacity < header.raw_size) {
      raw = std::make_unique_for_overwrite<char[]>(header.raw_size);
      raw_capacity = header.raw_size;
    }
    const int n =
        LZ4_decompress_safe(compressed.data(), raw.get(), static_cast<int>(compressed.size()),
                            static_cast<int>(header.raw_size));
    if (n != static_cast<int>(header.raw_size)) {
      return Fail(where + "lz4 data does not decompress to the block's raw size");
    }
    // Walk the records once: their count and extent must match the header exactly.
    std::string_view records_view(raw.get(), header.raw_size);
    std::string_view walk = records_view;
    SnapshotRecord record;
    for (uint32_t i = 0; i < header.record_count; ++i) {
      if (!DecodeSnapshotRecord(&walk, &record)) {
        return Fail(where + "record " + std::to_string(i) + " runs past the block's end");
      }
    }
    if (!walk.empty()) return Fail(where + "bytes left after the block's last record");
    ChainChecksum(chain.get(), header.checksum);
    records += header.record_count;
    rest = records_view;
    left_in_block = header.record_count;
    return Status::Ok();
  }

  Status CheckTrailer(const SnapshotBlockHeader& trailer, uint64_t trailer_offset) {
    const std::string where = "trailer" + At(trailer_offset) + ": ";
    if (trailer.record_count != static_cast<uint32_t>(records)) {
      return Fail(where + "it counts " + std::to_string(trailer.record_count) +
                  " records, the blocks hold " + std::to_string(records));
    }
    if (trailer.checksum != XXH64_digest(chain.get())) {
      return Fail(where + "checksum of the block checksums mismatch");
    }
    if (offset != file_size) {
      return Fail(where + std::to_string(file_size - offset) + " unexpected bytes after it");
    }
    done = true;
    return Status::Ok();
  }
};

Status SnapshotReader::Open(const std::string& path, std::unique_ptr<SnapshotReader>* out) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->fd.Reset(internal::OpenFile(path, O_RDONLY));
  if (!impl->fd.valid())
    return Status::Error("snapshot " + path + ": cannot open: " + ErrnoText(errno));
  struct stat st;
  if (::fstat(impl->fd.get(), &st) != 0) {
    return Status::Error("snapshot " + path + ": fstat failed: " + ErrnoText(errno));
  }
  impl->file_size = static_cast<uint64_t>(st.st_size);
  if (impl->file_size == 0)
    return Status::Error("snapshot " + path + ": empty file, not a snapshot");

  char bytes[kSnapshotHeaderSize];
  size_t got = 0;
  if (Status s = impl->Read(bytes, sizeof(bytes), &got); !s.ok()) return s;
  std::string_view view(bytes, got);
  SnapshotHeader header;
  const std::string where = "snapshot " + path + ": ";
  switch (header.DecodeFrom(&view)) {
    case SnapshotHeader::Decoded::kShort:
      // A short file with the right magic is a cut snapshot; anything else is not one.
      if (std::string_view(bytes, got).substr(0, kSnapshotMagic.size()) ==
          kSnapshotMagic.substr(0, std::min(got, kSnapshotMagic.size()))) {
        return Status::Error(where + "truncated header (" + std::to_string(got) + " of " +
                             std::to_string(kSnapshotHeaderSize) + " bytes)");
      }
      return Status::Error(where + "not a snapshot (bad magic)");
    case SnapshotHeader::Decoded::kBadMagic:
      return Status::Error(where + "not a snapshot (bad magic)");
    case SnapshotHeader::Decoded::kBadChecksum:
      return Status::Error(where + "header at offset 0: checksum mismatch");
    case SnapshotHeader::Decoded::kOk:
      break;
  }
  if (header.version > kSnapshotVersion) {
    return Status::Error(where + "format version " + std::to_string(header.version) +
                         " was created by a newer ordis (this one reads up to version " +
                         std::to_string(kSnapshotVersion) + ")");
  }
  if (header.version == 0) return Status::Error(where + "unknown format version 0");
  if (header.flags != 0) {
    return Status::Error(where + "unknown header flags " + std::to_string(header.flags));
  }
  impl->created_ms = header.created_ms;
  impl->offset = kSnapshotHeaderSize;
  out->reset(new SnapshotReader(std::move(impl)));
  return Status::Ok();
}

SnapshotReader::SnapshotReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SnapshotReader::~SnapshotReader() = default;

Status SnapshotReader::Next(SnapshotRecord* record, bool* done) {
  Impl& s = *impl_;
  *done = false;
  if (!s.failed.ok()) return s.failed;
  while (s.left_in_block == 0) {
    if (s.done) {
      *done = true;
      return Status::Ok();
    }
    if (Status st = s.LoadBlock(); !st.ok()) return st;
  }
  DecodeSnapshotRecord(&s.rest, record);  // cannot fail: LoadBlock walked the block
  --s.left_in_block;
  return Status::Ok();
}

int64_t SnapshotReader::created_ms() const { return impl_->created_ms; }

}  // namespace ordis::persistence
