// The snapshot file's on-disk pieces (layout in snapshot_file.h): the file header, the block header
// (which, with sizes 0, is also the trailer) and the record encoding inside a block.
// Decoders advance the view; they check structure only, the reader turns failures into messages
// naming the file and the offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "persistence/snapshot_file.h"

namespace ordis::persistence {

inline constexpr std::string_view kSnapshotMagic = "ORDISSNP";
inline constexpr size_t kSnapshotHeaderSize = 32;
inline constexpr size_t kSnapshotBlockHeaderSize = 20;
// Raw record bytes gathered before a block is compressed: large enough for lz4 to find repeats
// and to amortize the block header, small enough that a reader holds little in memory.
inline constexpr size_t kSnapshotBlockTarget = 256 << 10;
// No block (so no record) may be larger: a reader refuses bigger sizes as corrupt instead of
// allocating them.
inline constexpr uint32_t kSnapshotMaxBlockRaw = 1u << 30;
// db, type, expire time, and two one-byte varints.
inline constexpr size_t kSnapshotMinRecordSize = 12;

struct SnapshotHeader {
  uint32_t version = kSnapshotVersion;
  uint32_t flags = 0;
  int64_t created_ms = 0;

  // Appends the 32 header bytes, checksum included.
  void EncodeTo(std::string* dst) const;
  enum class Decoded { kOk, kShort, kBadMagic, kBadChecksum };
  // Reads 32 bytes; the fields are set only for kOk.
  Decoded DecodeFrom(std::string_view* in);
};

struct SnapshotBlockHeader {
  uint32_t raw_size = 0;
  uint32_t compressed_size = 0;
  uint32_t record_count = 0;
  uint64_t checksum = 0;  // xxh64 (seed 0) of the compressed bytes; for the trailer, of the block
                          // checksums as 8-byte little-endian integers, in order

  bool is_trailer() const { return raw_size == 0 && compressed_size == 0; }
  void EncodeTo(std::string* dst) const;
  // False when fewer than 20 bytes are left.
  bool DecodeFrom(std::string_view* in);
  // Null when the sizes can describe a real block; else what is impossible about them.
  const char* CheckSizes() const;
};

// The encoded size of record inside a block.
size_t SnapshotRecordSize(const SnapshotRecord& record);
void EncodeSnapshotRecord(const SnapshotRecord& record, std::string* dst);
// False on a record cut short by the end of the view; views point into *in's buffer.
bool DecodeSnapshotRecord(std::string_view* in, SnapshotRecord* record);

}  // namespace ordis::persistence
