// Append-only log files: a sequence of records, each one batch of commands as RESP (a SELECT first
// when the batch's database differs from the previous record's, as Redis writes its AOF).
//
// Record layout (little-endian): u32 payload length, u32 low half of xxh64(length bytes),
// u64 xxh64(payload), payload. The header's own check tells a corrupt length from a short tail.
//
// Recovery (AofReader):
//   - a torn tail (the file ends inside a record's header or payload, or the last record's
//     payload checksum fails with nothing after it) is what a crash during a write leaves: the
//     reader reports it as kTornTail with the offset of the last whole record, and the caller
//     truncates the file there and logs a warning (Redis's aof-load-truncated yes);
//   - anything else (a bad header check, or a bad payload checksum with more bytes after it) is
//     corruption: kCorrupt with the file name and record offset; the caller stops unless the
//     operator opted in to loading the records before it.
//
// Thread safety: AofWriter is not thread safe (the server's group commit serializes it); a reader
// belongs to one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "persistence/status.h"

namespace ordis::persistence {

class AofWriter {
 public:
  // Opens path for appending (creating it), positioned at its end.
  static Status Open(const std::string& path, std::unique_ptr<AofWriter>* out);
  ~AofWriter();

  // Frames payload as one record into the pending buffer (no I/O).
  void Add(std::string_view payload);
  bool has_pending() const;
  // Writes everything pending with one write (looping on short writes) and, if sync, one
  // fdatasync. On error nothing pending is dropped; the next Flush retries.
  Status Flush(bool sync);
  // fdatasync of what has been written (everysec's background sync).
  Status Sync();
  // Bytes in the file (written, not pending).
  uint64_t size() const;

 private:
  struct Impl;
  explicit AofWriter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

class AofReader {
 public:
  enum class End { kClean, kTornTail, kCorrupt };

  static Status Open(const std::string& path, std::unique_ptr<AofReader>* out);
  ~AofReader();

  // The next record's payload (valid until the next call), or false at the end of the readable
  // records; end() then says why and good_offset() is the offset just past the last good record.
  bool Next(std::string_view* payload);
  End end() const;
  uint64_t good_offset() const;
  // For kCorrupt / kTornTail: what went wrong, naming the file and the offset.
  const std::string& error() const;

 private:
  struct Impl;
  explicit AofReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Truncates path to size bytes and fsyncs it (after a torn tail).
Status TruncateFile(const std::string& path, uint64_t size);

}  // namespace ordis::persistence
