// Little-endian fixed-width integers and LEB128 varints (7 bits a byte, low bits first): the
// encoding of every format ordis writes (snapshot and log records, sorted-set entries, the object
// codec). Decoders of untrusted bytes take a view, check that it holds enough bytes, and advance it
// past what they read; they return false (leaving the view unspecified) on a short or malformed
// input, never reading out of bounds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace ordis {

// In place, into p[0..4) or p[0..8): a header filled in after what it describes.
inline void EncodeFixed32(char* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>(v >> (8 * i));
}

inline void EncodeFixed64(char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>(v >> (8 * i));
}

inline void PutFixed32(std::string* dst, uint32_t v) {
  char buf[4];
  EncodeFixed32(buf, v);
  dst->append(buf, 4);
}

inline void PutFixed64(std::string* dst, uint64_t v) {
  char buf[8];
  EncodeFixed64(buf, v);
  dst->append(buf, 8);
}

inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

inline bool GetFixed32(std::string_view* in, uint32_t* v) {
  if (in->size() < 4) return false;
  *v = DecodeFixed32(in->data());
  in->remove_prefix(4);
  return true;
}

inline bool GetFixed64(std::string_view* in, uint64_t* v) {
  if (in->size() < 8) return false;
  *v = DecodeFixed64(in->data());
  in->remove_prefix(8);
  return true;
}

inline void PutVarint(std::string* dst, uint64_t v) {
  while (v >= 0x80) {
    dst->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  dst->push_back(static_cast<char>(v));
}

inline size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}

// False on a varint cut short by the end of the view or longer than ten bytes.
inline bool GetVarint(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (size_t i = 0; i < in->size() && i < 10; ++i) {
    const auto byte = static_cast<uint8_t>((*in)[i]);
    result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if (byte < 0x80) {
      *v = result;
      in->remove_prefix(i + 1);
      return true;
    }
  }
  return false;
}

// A varint length followed by that many bytes.
inline void PutLengthPrefixed(std::string* dst, std::string_view s) {
  PutVarint(dst, s.size());
  dst->append(s);
}
inline bool GetLengthPrefixed(std::string_view* in, std::string_view* out) {
  uint64_t n = 0;
  if (!GetVarint(in, &n) || n > in->size()) return false;
  *out = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

// In-memory forms whose bytes were written by PutVarintAt and are trusted (a sorted set's packed
// entries): T is uint32_t (at most 5 bytes) or uint64_t (at most 10). PutVarintAt returns the end
// of what it wrote, GetVarintAt the end of what it read.
template <typename T>
inline char* PutVarintAt(char* p, T v) {
  static_assert(std::is_unsigned_v<T>);
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}
template <typename T>
inline const char* GetVarintAt(const char* p, T* v) {
  static_assert(std::is_unsigned_v<T>);
  T result = 0;
  for (int shift = 0;; shift += 7) {
    const auto byte = static_cast<uint8_t>(*p++);
    result |= static_cast<T>(byte & 0x7f) << shift;
    if (byte < 0x80) break;
  }
  *v = result;
  return p;
}

}  // namespace ordis
