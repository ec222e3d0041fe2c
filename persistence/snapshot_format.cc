#include "persistence/snapshot_format.h"

#include <lz4.h>
#include <xxhash.h>

#include "base/coding.h"

namespace ordis::persistence {

// The checksum covers magic, version, flags and creation time.
static constexpr size_t kHeaderCheckedSize = kSnapshotHeaderSize - 8;

void SnapshotHeader::EncodeTo(std::string* dst) const {
  const size_t start = dst->size();
  dst->append(kSnapshotMagic);
  PutFixed32(dst, version);
  PutFixed32(dst, flags);
  PutFixed64(dst, static_cast<uint64_t>(created_ms));
  PutFixed64(dst, XXH64(dst->data() + start, kHeaderCheckedSize, 0));
}

SnapshotHeader::Decoded SnapshotHeader::DecodeFrom(std::string_view* in) {
  if (in->size() < kSnapshotHeaderSize) return Decoded::kShort;
  if (in->substr(0, kSnapshotMagic.size()) != kSnapshotMagic) return Decoded::kBadMagic;
  const uint64_t expected = XXH64(in->data(), kHeaderCheckedSize, 0);
  in->remove_prefix(kSnapshotMagic.size());
  uint64_t created = 0, checksum = 0;
  GetFixed32(in, &version);
  GetFixed32(in, &flags);
  GetFixed64(in, &created);
  GetFixed64(in, &checksum);
  created_ms = static_cast<int64_t>(created);
  return checksum == expected ? Decoded::kOk : Decoded::kBadChecksum;
}

void SnapshotBlockHeader::EncodeTo(std::string* dst) const {
  PutFixed32(dst, raw_size);
  PutFixed32(dst, compressed_size);
  PutFixed32(dst, record_count);
  PutFixed64(dst, checksum);
}

bool SnapshotBlockHeader::DecodeFrom(std::string_view* in) {
  if (in->size() < kSnapshotBlockHeaderSize) return false;
  GetFixed32(in, &raw_size);
  GetFixed32(in, &compressed_size);
  GetFixed32(in, &record_count);
  GetFixed64(in, &checksum);
  return true;
}

const char* SnapshotBlockHeader::CheckSizes() const {
  if (raw_size == 0) return "compressed bytes without raw bytes";
  if (raw_size > kSnapshotMaxBlockRaw) return "raw size above the 1 GiB block limit";
  if (compressed_size == 0) return "raw bytes without compressed bytes";
  if (compressed_size > static_cast<uint32_t>(LZ4_compressBound(static_cast<int>(raw_size)))) {
    return "compressed size larger than lz4 can produce for the raw size";
  }
  // lz4 spends at least one byte per 255 bytes of match, so it cannot expand more than that: a
  // corrupt raw size is refused here rather than allocated.
  if (raw_size / 255 > compressed_size) return "raw size larger than lz4 can expand to";
  if (record_count == 0) return "no records";
  if (record_count > raw_size / kSnapshotMinRecordSize)
    return "more records than the raw size holds";
  return nullptr;
}

size_t SnapshotRecordSize(const SnapshotRecord& record) {
  return 2 + 8 + VarintSize(record.key.size()) + record.key.size() +
         VarintSize(record.payload.size()) + record.payload.size();
}

void EncodeSnapshotRecord(const SnapshotRecord& record, std::string* dst) {
  dst->push_back(static_cast<char>(record.db));
  dst->push_back(static_cast<char>(record.type));
  PutFixed64(dst, static_cast<uint64_t>(record.expire_at_ms));
  PutVarint(dst, record.key.size());
  dst->append(record.key);
  PutVarint(dst, record.payload.size());
  dst->append(record.payload);
}

bool DecodeSnapshotRecord(std::string_view* in, SnapshotRecord* record) {
  if (in->size() < 2) return false;
  record->db = static_cast<uint8_t>((*in)[0]);
  record->type = static_cast<uint8_t>((*in)[1]);
  in->remove_prefix(2);
  uint64_t expire = 0;
  if (!GetFixed64(in, &expire)) return false;
  record->expire_at_ms = static_cast<int64_t>(expire);
  return GetLengthPrefixed(in, &record->key) && GetLengthPrefixed(in, &record->payload);
}

}  // namespace ordis::persistence
