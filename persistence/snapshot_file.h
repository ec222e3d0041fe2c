// Snapshot files: ordis's own format, type-agnostic. A record is (db, type, expire time, key,
// payload); what a payload means is the server's business (server/durability/object_codec.h).
//
// Layout (integers little-endian):
//   header   "ORDISSNP" (8 bytes), u32 format version (kSnapshotVersion), u32 flags (0),
//            u64 creation time (unix ms), u64 xxh64 of the preceding 24 bytes
//   blocks   u32 raw size, u32 compressed size, u32 record count, u64 xxh64 of the compressed
//            bytes, then the lz4 block (LZ4_compress_default) of the records:
//              u8 db, u8 type, i64 expire_at_ms (-1: none), varint key length, key,
//              varint payload length, payload
//   trailer  a block header with raw size 0 and compressed size 0, record count = total records
//            (its low 32 bits), checksum = xxh64 of all block checksums in order, each as its 8
//            little-endian bytes; nothing follows the trailer
// All xxh64 are seed 0. A block holds about 256 KiB of raw records (snapshot_format.h); a larger
// record gets a block of its own; no block exceeds 1 GiB raw.
// A reader that meets a bad checksum, an impossible size, a truncated block, a missing trailer or
// bytes after it stops with an error naming the file and the offset of the block; a header with a
// newer version is refused ("created by a newer ordis"). A block is checked whole before any of
// its records is returned, so every record returned is one that was written.
//
// Thread safety: a writer or reader belongs to one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "persistence/status.h"

namespace ordis::persistence {

inline constexpr uint32_t kSnapshotVersion = 1;

struct SnapshotRecord {
  uint8_t db = 0;
  uint8_t type = 0;
  int64_t expire_at_ms = -1;
  std::string_view key;
  std::string_view payload;
};

class SnapshotWriter {
 public:
  // Creates (truncates) path_tmp and writes the header. Add records, then Commit, which makes the
  // file durable and renames it to path (and fsyncs the directory): a crash at any moment leaves
  // either the old file at path or the complete new one.
  static Status Open(const std::string& path_tmp, const std::string& path, int64_t now_ms,
                     std::unique_ptr<SnapshotWriter>* out);
  ~SnapshotWriter();  // without Commit: closes and removes path_tmp

  // Errors from Add and Commit are sticky, except Add's refusal of a record above 1 GiB encoded.
  Status Add(const SnapshotRecord& record);
  Status Commit();
  uint64_t records() const;
  uint64_t bytes_written() const;

 private:
  struct Impl;
  explicit SnapshotWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class SnapshotReader {
 public:
  // Opens path and checks its header.
  static Status Open(const std::string& path, std::unique_ptr<SnapshotReader>* out);
  ~SnapshotReader();

  // Reads the next record into *record (views valid until the next call). Returns ok with
  // *done = true after the trailer has been verified.
  Status Next(SnapshotRecord* record, bool* done);
  int64_t created_ms() const;

 private:
  struct Impl;
  explicit SnapshotReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ordis::persistence
