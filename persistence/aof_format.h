// The append-only log's record framing (layout and recovery rules in aof_file.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ordis::persistence {

inline constexpr size_t kAofRecordHeaderSize = 16;
// The length field is 32 bits wide.
inline constexpr uint64_t kAofMaxPayload = UINT32_MAX;

// Appends header and payload; payload.size() must be at most kAofMaxPayload.
void AppendAofRecord(std::string_view payload, std::string* dst);

struct AofRecordHeader {
  uint32_t length = 0;
  uint64_t payload_checksum = 0;

  // Reads 16 bytes (the caller checks there are); false when the header's own check fails, that
  // is when the length cannot be trusted.
  bool DecodeFrom(std::string_view* in);
};

uint64_t AofPayloadChecksum(std::string_view payload);

}  // namespace ordis::persistence
