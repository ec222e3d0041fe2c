// Redis's DUMP / RESTORE payload (FUNCTION DUMP's too): RDB-encoded values, then the RDB version
// (2 bytes, little-endian) and a CRC-64 (Jones polynomial, reflected; 8 bytes, little-endian) of
// everything before it. Inside, RDB's length and string encodings: lengths of 6, 14, 32 or 64
// bits, strings raw, as small integers, or LZF-compressed. The format is Redis 7.0's (rdb.h); the
// code is ours, with Debian's liblzf, the same LZF Redis embeds, so a dump made here restores in
// Redis and one made there restores here.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ordis::persistence::rdb {

inline constexpr uint16_t kVersion = 10;          // Redis 7.0's RDB_VERSION
inline constexpr uint8_t kOpcodeFunction2 = 245;  // a function library: its code, one string
inline constexpr uint8_t kOpcodeFunctionPreGa = 246;

// Redis's crc64 (CRC-64/Jones, reflected, no final xor), continuing from crc.
uint64_t Crc64(uint64_t crc, std::string_view bytes);

void AppendLength(std::string* out, uint64_t length);
// A string as Redis's rdbSaveRawString writes it with rdbcompression on: a canonical integer of at
// most 11 characters that fits 32 bits as an integer encoding, one longer than 20 bytes
// LZF-compressed when that saves at least 4 bytes, otherwise length and bytes.
void AppendString(std::string* out, std::string_view s);
// Appends the version and the checksum: payload becomes a whole DUMP payload.
void Seal(std::string* payload);
// Whether payload ends in a version this reader knows (<= kVersion) and a checksum that matches.
bool Verify(std::string_view payload);

// Reads RDB encodings from a view, failing (false) on anything cut short or malformed; every
// length is checked against the bytes left before anything is allocated.
class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  size_t position() const { return pos_; }
  bool ReadByte(uint8_t* b);
  bool ReadLength(uint64_t* length);
  bool ReadString(std::string* s);

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace ordis::persistence::rdb
