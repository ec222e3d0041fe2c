#include "persistence/rdb_payload.h"

#include <lzf.h>

#include <array>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace ordis::persistence::rdb {
namespace {

// RDB's length and string encodings (Redis's rdb.h).
constexpr uint8_t k6Bit = 0;
constexpr uint8_t k14Bit = 1;
constexpr uint8_t k32Bit = 0x80;
constexpr uint8_t k64Bit = 0x81;
constexpr uint8_t kEncoded = 3;  // the top two bits of a special encoding
constexpr uint8_t kEncInt8 = 0;
constexpr uint8_t kEncInt16 = 1;
constexpr uint8_t kEncInt32 = 2;
constexpr uint8_t kEncLzf = 3;

// The reflected Jones polynomial, 0xad93d23594c935a9 bit-reversed.
constexpr uint64_t kPolyReflected = 0x95ac9329ac4bc9b5ULL;

constexpr std::array<uint64_t, 256> MakeCrcTable() {
  std::array<uint64_t, 256> table{};
  for (uint64_t i = 0; i < 256; ++i) {
    uint64_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? (c >> 1) ^ kPolyReflected : c >> 1;
    table[i] = c;
  }
  return table;
}
// Slicing by 8 (table k: the CRC of a byte followed by k zero bytes), so the checksum takes 8 bytes
// a step: byte at a time it was 9% of loading a 10M-key dump.rdb (perf). No Debian library has
// Redis's CRC-64/Jones.
using CrcTables = std::array<std::array<uint64_t, 256>, 8>;
constexpr CrcTables MakeCrcTables() {
  CrcTables t{};
  t[0] = MakeCrcTable();
  for (size_t k = 1; k < 8; ++k) {
    for (size_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xff];
  }
  return t;
}
constexpr CrcTables kCrcTables = MakeCrcTables();

// Redis's rdbTryIntegerEncoding: s is the canonical text of an integer (what string2ll accepts and
// ll2string gives back) of at most 11 characters.
bool CanonicalInt(std::string_view s, int64_t* v) {
  if (s.empty() || s.size() > 11) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  if (ec != std::errc() || end != s.data() + s.size()) return false;
  char buf[24];
  auto [text_end, ec2] = std::to_chars(buf, buf + sizeof buf, *v);
  return ec2 == std::errc() && std::string_view(buf, text_end - buf) == s;
}

}  // namespace

void AppendLittleEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void AppendBinaryDouble(std::string* out, double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  AppendLittleEndian(out, bits, 8);
}

uint64_t Crc64(uint64_t crc, std::string_view bytes) {
  const auto& t = kCrcTables;
  size_t at = 0;
  for (; bytes.size() - at >= 8; at += 8) {
    crc ^= LoadLittleEndian(bytes, at, 8);
    crc = t[7][crc & 0xff] ^ t[6][(crc >> 8) & 0xff] ^ t[5][(crc >> 16) & 0xff] ^
          t[4][(crc >> 24) & 0xff] ^ t[3][(crc >> 32) & 0xff] ^ t[2][(crc >> 40) & 0xff] ^
          t[1][(crc >> 48) & 0xff] ^ t[0][crc >> 56];
  }
  for (; at < bytes.size(); ++at) {
    crc = t[0][(crc ^ static_cast<uint8_t>(bytes[at])) & 0xff] ^ (crc >> 8);
  }
  return crc;
}

void AppendLength(std::string* out, uint64_t length) {
  if (length < (1 << 6)) {
    out->push_back(static_cast<char>((k6Bit << 6) | length));
  } else if (length < (1 << 14)) {
    out->push_back(static_cast<char>((k14Bit << 6) | (length >> 8)));
    out->push_back(static_cast<char>(length & 0xff));
  } else if (length <= UINT32_MAX) {
    out->push_back(static_cast<char>(k32Bit));
    for (int i = 3; i >= 0; --i) out->push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  } else {
    out->push_back(static_cast<char>(k64Bit));
    for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>((length >> (8 * i)) & 0xff));
  }
}

void AppendString(std::string* out, std::string_view s) {
  int64_t v;
  if (CanonicalInt(s, &v)) {
    if (v >= INT8_MIN && v <= INT8_MAX) {
      out->push_back(static_cast<char>((kEncoded << 6) | kEncInt8));
      AppendLittleEndian(out, static_cast<uint64_t>(v), 1);
      return;
    }
    if (v >= INT16_MIN && v <= INT16_MAX) {
      out->push_back(static_cast<char>((kEncoded << 6) | kEncInt16));
      AppendLittleEndian(out, static_cast<uint64_t>(v), 2);
      return;
    }
    if (v >= INT32_MIN && v <= INT32_MAX) {
      out->push_back(static_cast<char>((kEncoded << 6) | kEncInt32));
      AppendLittleEndian(out, static_cast<uint64_t>(v), 4);
      return;
    }
  }
  if (s.size() > 20 && s.size() <= UINT32_MAX) {
    // As Redis: worth it only if it saves at least 4 bytes (lzf_compress gives 0 otherwise).
    std::string compressed(s.size() - 4, '\0');
    const unsigned int n =
        lzf_compress(s.data(), static_cast<unsigned int>(s.size()), compressed.data(),
                     static_cast<unsigned int>(compressed.size()));
    if (n > 0) {
      out->push_back(static_cast<char>((kEncoded << 6) | kEncLzf));
      AppendLength(out, n);
      AppendLength(out, s.size());
      out->append(compressed.data(), n);
      return;
    }
  }
  AppendLength(out, s.size());
  out->append(s);
}

void Seal(std::string* payload) {
  AppendLittleEndian(payload, kVersion, 2);
  AppendLittleEndian(payload, Crc64(0, *payload), 8);
}

bool Verify(std::string_view payload) {
  if (payload.size() < 10) return false;
  const auto byte = [&](size_t i) {
    return static_cast<uint64_t>(static_cast<uint8_t>(payload[i]));
  };
  const size_t n = payload.size();
  const uint64_t version = byte(n - 10) | (byte(n - 9) << 8);
  if (version > kVersion) return false;
  uint64_t crc = 0;
  for (int i = 0; i < 8; ++i) crc |= byte(n - 8 + i) << (8 * i);
  return Crc64(0, payload.substr(0, n - 8)) == crc;
}

bool Reader::ReadByte(uint8_t* b) {
  if (pos_ >= in_.size()) return false;
  *b = static_cast<uint8_t>(in_[pos_++]);
  return true;
}

bool Reader::ReadLength(uint64_t* length) {
  uint8_t first;
  if (!ReadByte(&first)) return false;
  const uint8_t kind = first >> 6;
  if (kind == k6Bit) {
    *length = first & 0x3f;
    return true;
  }
  if (kind == k14Bit) {
    uint8_t second;
    if (!ReadByte(&second)) return false;
    *length = (static_cast<uint64_t>(first & 0x3f) << 8) | second;
    return true;
  }
  if (first != k32Bit && first != k64Bit) return false;  // an encoding, not a length
  const int bytes = first == k32Bit ? 4 : 8;
  if (in_.size() - pos_ < static_cast<size_t>(bytes)) return false;
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(in_[pos_++]);
  *length = v;
  return true;
}

bool Reader::ReadString(std::string* s) {
  std::string_view view;
  if (!ReadStringView(&view, s)) return false;
  if (view.data() != s->data()) s->assign(view);
  return true;
}

bool Reader::ReadStringView(std::string_view* view, std::string* s) {
  if (pos_ >= in_.size()) return false;
  const uint8_t first = static_cast<uint8_t>(in_[pos_]);
  if ((first >> 6) != kEncoded) {
    uint64_t length;
    if (!ReadLength(&length) || length > in_.size() - pos_) return false;
    *view = in_.substr(pos_, length);
    pos_ += length;
    return true;
  }
  ++pos_;
  const uint8_t encoding = first & 0x3f;
  if (encoding == kEncInt8 || encoding == kEncInt16 || encoding == kEncInt32) {
    const size_t bytes = encoding == kEncInt8 ? 1 : encoding == kEncInt16 ? 2 : 4;
    if (in_.size() - pos_ < bytes) return false;
    uint64_t u = 0;
    for (size_t i = 0; i < bytes; ++i)
      u |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
    pos_ += bytes;
    const int shift = static_cast<int>(64 - 8 * bytes);
    const int64_t v = static_cast<int64_t>(u << shift) >> shift;  // sign-extended
    *s = std::to_string(v);
    *view = *s;
    return true;
  }
  if (encoding != kEncLzf) return false;
  uint64_t compressed, length;
  if (!ReadLength(&compressed) || !ReadLength(&length)) return false;
  if (compressed > in_.size() - pos_ || compressed == 0 || length == 0) return false;
  // LZF expands at most ~100x (a back reference of 264 bytes in 3): a larger claim is corrupt,
  // and refusing it keeps an allocation proportional to what was sent.
  if (length > compressed * 128 || length > UINT32_MAX) return false;
  s->resize(length);
  const unsigned int n = lzf_decompress(in_.data() + pos_, static_cast<unsigned int>(compressed),
                                        s->data(), static_cast<unsigned int>(length));
  if (n != length) return false;
  pos_ += compressed;
  *view = *s;
  return true;
}

bool Reader::ReadLittleEndian(int bytes, uint64_t* v) {
  if (remaining() < static_cast<size_t>(bytes)) return false;
  *v = LoadLittleEndian(in_, pos_, bytes);
  pos_ += bytes;
  return true;
}

bool Reader::ReadBinaryDouble(double* d) {
  uint64_t bits;
  if (!ReadLittleEndian(8, &bits)) return false;
  std::memcpy(d, &bits, sizeof bits);
  return true;
}

bool Reader::ReadTextDouble(double* d) {
  uint8_t n;
  if (!ReadByte(&n)) return false;
  if (n >= 253) {
    *d = n == 253   ? std::numeric_limits<double>::quiet_NaN()
         : n == 254 ? std::numeric_limits<double>::infinity()
                    : -std::numeric_limits<double>::infinity();
    return true;
  }
  if (remaining() < n) return false;
  const std::string text(in_.substr(pos_, n));
  pos_ += n;
  char* end = nullptr;
  *d = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && n > 0;
}

}  // namespace ordis::persistence::rdb
