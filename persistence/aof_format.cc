#include "persistence/aof_format.h"

#include <xxhash.h>

#include "base/coding.h"

namespace ordis::persistence {

namespace {

// Low half of xxh64 over the length's four on-disk bytes.
uint32_t LengthCheck(const char* length_bytes) {
  return static_cast<uint32_t>(XXH64(length_bytes, 4, 0));
}

}  // namespace

uint64_t AofPayloadChecksum(std::string_view payload) {
  return XXH64(payload.data(), payload.size(), 0);
}

void AppendAofRecord(std::string_view payload, std::string* dst) {
  const size_t start = dst->size();
  PutFixed32(dst, static_cast<uint32_t>(payload.size()));
  PutFixed32(dst, LengthCheck(dst->data() + start));
  PutFixed64(dst, AofPayloadChecksum(payload));
  dst->append(payload);
}

bool AofRecordHeader::DecodeFrom(std::string_view* in) {
  const char* p = in->data();
  length = DecodeFixed32(p);
  const uint32_t check = DecodeFixed32(p + 4);
  payload_checksum = DecodeFixed64(p + 8);
  in->remove_prefix(kAofRecordHeaderSize);
  return check == LengthCheck(p);
}

}  // namespace ordis::persistence
