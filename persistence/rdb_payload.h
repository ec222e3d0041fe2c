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

inline constexpr uint16_t kVersion = 10;  // Redis 7.0's RDB_VERSION

// Value types (rdb.h RDB_TYPE_*), the first byte of a DUMP payload and of a key's record.
enum Type : uint8_t {
  kTypeString = 0,
  kTypeList = 1,  // a linked list (before Redis 3.2)
  kTypeSet = 2,
  kTypeZSet = 3,  // scores as text
  kTypeHash = 4,
  kTypeZSet2 = 5,  // scores as binary doubles
  kTypeModule = 6,
  kTypeModule2 = 7,
  kTypeHashZipmap = 9,
  kTypeListZiplist = 10,
  kTypeSetIntset = 11,
  kTypeZSetZiplist = 12,
  kTypeHashZiplist = 13,
  kTypeListQuicklist = 14,  // nodes are ziplists (Redis 3.2 to 6)
  kTypeStreamListpacks = 15,
  kTypeHashListpack = 16,
  kTypeZSetListpack = 17,
  kTypeListQuicklist2 = 18,  // nodes are listpacks or plain elements (Redis 7)
  kTypeStreamListpacks2 = 19,
  kTypeSetListpack = 20,       // Redis 7.2 (RDB 11)
  kTypeStreamListpacks3 = 21,  // Redis 7.2: consumers' active time too
};

// Opcodes of an RDB file (rdb.h RDB_OPCODE_*).
inline constexpr uint8_t kOpcodeFunction2 = 245;  // a function library: its code, one string
inline constexpr uint8_t kOpcodeFunctionPreGa = 246;
inline constexpr uint8_t kOpcodeModuleAux = 247;
inline constexpr uint8_t kOpcodeIdle = 248;
inline constexpr uint8_t kOpcodeFreq = 249;
inline constexpr uint8_t kOpcodeAux = 250;
inline constexpr uint8_t kOpcodeResizeDb = 251;
inline constexpr uint8_t kOpcodeExpireTimeMs = 252;
inline constexpr uint8_t kOpcodeExpireTime = 253;
inline constexpr uint8_t kOpcodeSelectDb = 254;
inline constexpr uint8_t kOpcodeEof = 255;

// A quicklist 2 node's container (quicklist.h).
inline constexpr uint64_t kQuicklistPlain = 1;
inline constexpr uint64_t kQuicklistPacked = 2;

// Redis's crc64 (CRC-64/Jones, reflected, no final xor), continuing from crc.
uint64_t Crc64(uint64_t crc, std::string_view bytes);

void AppendLength(std::string* out, uint64_t length);
// A string as Redis's rdbSaveRawString writes it with rdbcompression on: a canonical integer of at
// most 11 characters that fits 32 bits as an integer encoding, one longer than 20 bytes
// LZF-compressed when that saves at least 4 bytes, otherwise length and bytes.
void AppendString(std::string* out, std::string_view s);
// v as `bytes` little-endian bytes (expire times, stream IDs' parts, binary doubles).
void AppendLittleEndian(std::string* out, uint64_t v, int bytes);
// The `bytes` little-endian bytes of s at pos (the caller checked they are there).
inline uint64_t LoadLittleEndian(std::string_view s, size_t pos, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{static_cast<uint8_t>(s[pos + i])} << (8 * i);
  return v;
}
void AppendBinaryDouble(std::string* out, double d);
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
  // The same without a copy where it can: *s views the input for a raw string, else the decoded
  // bytes in *scratch (an integer's text, an LZF string's contents). Valid until the next read
  // into scratch.
  bool ReadStringView(std::string_view* s, std::string* scratch);
  // `bytes` little-endian bytes.
  bool ReadLittleEndian(int bytes, uint64_t* v);
  bool ReadBinaryDouble(double* d);
  // A score as old sorted sets (type 3) write it: a length byte (253 nan, 254 inf, 255 -inf) and
  // that much text.
  bool ReadTextDouble(double* d);
  // Bytes not read yet.
  size_t remaining() const { return in_.size() - pos_; }

 private:
  std::string_view in_;
  size_t pos_ = 0;
};

}  // namespace ordis::persistence::rdb
