// The cold tier's record (issue 14): a value demoted out of memory, kept in a segment file of
// `tier-dir` until its key is written, deleted or promoted again and compaction drops it.
//
// Segment file: records back to back from offset 0. Each batch of appends is padded with zero
// bytes to a multiple of kTierAlign, since segments are written with O_DIRECT (whole aligned
// blocks); a record never starts inside padding, and padding never starts with the magic.
//
// Record (little-endian):
//   u32 magic "OTR1", u32 key length, u32 stored length, u32 raw length (0: the stored bytes are
//   the value; otherwise an lz4 block that decompresses to that many bytes), u64 xxh64 of the key
//   and the stored bytes seeded with the xxh64 (seed 0) of the 16 bytes before it; then the key,
//   then the stored bytes.
//
// The index keeps each cold value's location (segment, offset, record size). A reader reads the
// aligned span holding the record and checks the magic, the checksum, that the lengths fit the
// size it was told and that the key is the one it asked for: a torn, corrupt or misdirected
// record is reported, never served as a value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "persistence/status.h"

namespace ordis::persistence {

inline constexpr uint32_t kTierMagic = 0x3152544f;  // "OTR1" on disk
inline constexpr size_t kTierRecordHeaderSize = 24;
inline constexpr size_t kTierAlign = 4096;
// Keys and values larger than this are not demoted; a reader refuses larger lengths as corrupt
// instead of allocating them (Redis's proto-max-bulk-len default).
inline constexpr uint32_t kTierMaxLength = 512u << 20;
// Values shorter than this are stored as they are: lz4 rarely saves a block's overhead on them.
inline constexpr size_t kTierMinCompress = 128;

// Appends the record of (key, value) to *dst and returns its size. The value is stored lz4
// compressed when that saves at least an eighth of it. Precondition: key and value are at most
// kTierMaxLength bytes.
size_t AppendTierRecord(std::string_view key, std::string_view value, std::string* dst);

// The size of the record starting at `in`, from its header alone (a segment scan steps with it);
// false when `in` holds no plausible record header there (padding, a torn write, garbage).
bool PeekTierRecordSize(std::string_view in, size_t* size);

// Decodes the record at the start of `in`, which must hold all of it. On success *key views `in`
// and *value holds the value (decompressed). Errors name what failed; `expected_key`, when given,
// must equal the record's key.
Status DecodeTierRecord(std::string_view in, std::string_view* key, std::string* value);
Status DecodeTierRecord(std::string_view in, std::string_view expected_key, std::string* value);

// Bytes of zero padding that bring `size` to a multiple of kTierAlign.
inline size_t TierPadding(size_t size) { return (kTierAlign - size % kTierAlign) % kTierAlign; }

}  // namespace ordis::persistence
