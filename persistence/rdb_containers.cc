#include "persistence/rdb_containers.h"

#include <algorithm>
#include <charconv>

#include "base/number.h"
#include "persistence/rdb_payload.h"

namespace ordis::persistence::rdb {
namespace {

// The low `bits` bits of u as a signed value.
int64_t SignExtend(uint64_t u, int bits) {
  const int shift = 64 - bits;
  return static_cast<int64_t>(u << shift) >> shift;
}

std::string_view IntText(int64_t v, char (&digits)[24]) {
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v);
  return {digits, static_cast<size_t>(end - digits)};
}

// Listpack (listpack.c): entry encodings, by their first byte.
constexpr uint8_t kLpEnd = 0xff;
constexpr uint8_t kLpStr32 = 0xf0;
constexpr uint8_t kLpInt16 = 0xf1;
constexpr uint8_t kLpInt24 = 0xf2;
constexpr uint8_t kLpInt32 = 0xf3;
constexpr uint8_t kLpInt64 = 0xf4;
constexpr size_t kLpHeader = 6;  // total bytes (4), element count (2)
constexpr uint32_t kLpCountUnknown = 65535;

// The back-length: an entry's size (encoding and data), written so that it reads from its last
// byte backwards, 7 bits per byte, the high bit set on every byte but the leftmost.
void AppendBacklen(std::string* out, uint64_t l) {
  if (l <= 127) {
    out->push_back(static_cast<char>(l));
    return;
  }
  int bytes = l < 16383 ? 2 : l < 2097151 ? 3 : l < 268435455 ? 4 : 5;
  out->push_back(static_cast<char>(l >> (7 * (bytes - 1))));
  for (int i = bytes - 2; i >= 0; --i)
    out->push_back(static_cast<char>(((l >> (7 * i)) & 127) | 128));
}

size_t BacklenSize(uint64_t l) {
  return l <= 127 ? 1 : l < 16383 ? 2 : l < 2097151 ? 3 : l < 268435455 ? 4 : 5;
}

}  // namespace

ListpackWriter::ListpackWriter() : body_(kLpHeader, '\0') {}

void ListpackWriter::AppendInt(int64_t v) {
  const size_t start = body_.size();
  if (v >= 0 && v <= 127) {
    body_.push_back(static_cast<char>(v));
  } else if (v >= -4096 && v <= 4095) {
    const uint64_t u = static_cast<uint64_t>(v) & 0x1fff;
    body_.push_back(static_cast<char>(0xc0 | (u >> 8)));
    body_.push_back(static_cast<char>(u & 0xff));
  } else {
    const int bytes = v >= INT16_MIN && v <= INT16_MAX   ? 2
                      : v >= -8388608 && v <= 8388607    ? 3
                      : v >= INT32_MIN && v <= INT32_MAX ? 4
                                                         : 8;
    body_.push_back(static_cast<char>(bytes == 2   ? kLpInt16
                                      : bytes == 3 ? kLpInt24
                                      : bytes == 4 ? kLpInt32
                                                   : kLpInt64));
    AppendLittleEndian(&body_, static_cast<uint64_t>(v), bytes);
  }
  AppendBacklen(&body_, body_.size() - start);
  ++count_;
}

void ListpackWriter::Append(std::string_view element) {
  int64_t v;
  if (ParseInt64(element, &v)) {
    AppendInt(v);
    return;
  }
  const size_t start = body_.size();
  const size_t n = element.size();
  if (n < 64) {
    body_.push_back(static_cast<char>(0x80 | n));
  } else if (n < 4096) {
    body_.push_back(static_cast<char>(0xe0 | (n >> 8)));
    body_.push_back(static_cast<char>(n & 0xff));
  } else {
    body_.push_back(static_cast<char>(kLpStr32));
    AppendLittleEndian(&body_, n, 4);
  }
  body_.append(element);
  AppendBacklen(&body_, body_.size() - start);
  ++count_;
}

std::string ListpackWriter::Finish() {
  std::string lp = std::move(body_);
  lp.push_back(static_cast<char>(kLpEnd));
  std::string header;
  AppendLittleEndian(&header, lp.size(), 4);
  AppendLittleEndian(&header, count_ < kLpCountUnknown ? count_ : kLpCountUnknown, 2);
  lp.replace(0, kLpHeader, header);
  body_.assign(kLpHeader, '\0');
  count_ = 0;
  return lp;
}

ListpackReader::ListpackReader(std::string_view lp) : lp_(lp), pos_(kLpHeader) {
  if (lp.size() < kLpHeader + 1 || LoadLittleEndian(lp, 0, 4) != lp.size() ||
      static_cast<uint8_t>(lp.back()) != kLpEnd) {
    ok_ = false;
    return;
  }
  header_count_ = static_cast<uint32_t>(LoadLittleEndian(lp, 4, 2));
}

bool ListpackReader::Next(std::string_view* element) {
  if (!ok_ || done_) return false;
  // The last byte is the end marker, so an entry must finish before it.
  const size_t end = lp_.size() - 1;
  auto fail = [&] {
    ok_ = false;
    return false;
  };
  if (pos_ > end) return fail();
  const size_t start = pos_;
  const uint8_t b = static_cast<uint8_t>(lp_[pos_]);
  if (b == kLpEnd) {
    done_ = true;
    // The end, and as many entries as the header says (when it knows).
    if (pos_ != end || (header_count_ != kLpCountUnknown && header_count_ != read_)) return fail();
    return false;
  }
  auto need = [&](size_t n) { return end - pos_ >= n; };
  if ((b & 0x80) == 0) {  // 7-bit unsigned
    *element = IntText(b, digits_);
    pos_ += 1;
  } else if ((b & 0xc0) == 0x80) {  // string, 6-bit length
    const size_t n = b & 0x3f;
    if (!need(1 + n)) return fail();
    *element = lp_.substr(pos_ + 1, n);
    pos_ += 1 + n;
  } else if ((b & 0xe0) == 0xc0) {  // 13-bit signed
    if (!need(2)) return fail();
    const uint64_t u = (static_cast<uint64_t>(b & 0x1f) << 8) | static_cast<uint8_t>(lp_[pos_ + 1]);
    *element = IntText(SignExtend(u, 13), digits_);
    pos_ += 2;
  } else if ((b & 0xf0) == 0xe0) {  // string, 12-bit length
    if (!need(2)) return fail();
    const size_t n = (static_cast<size_t>(b & 0x0f) << 8) | static_cast<uint8_t>(lp_[pos_ + 1]);
    if (!need(2 + n)) return fail();
    *element = lp_.substr(pos_ + 2, n);
    pos_ += 2 + n;
  } else if (b == kLpStr32) {
    if (!need(5)) return fail();
    const uint64_t n = LoadLittleEndian(lp_, pos_ + 1, 4);
    if (!need(5 + n)) return fail();
    *element = lp_.substr(pos_ + 5, n);
    pos_ += 5 + n;
  } else if (b >= kLpInt16 && b <= kLpInt64) {
    const int bytes = b == kLpInt16 ? 2 : b == kLpInt24 ? 3 : b == kLpInt32 ? 4 : 8;
    if (!need(1 + bytes)) return fail();
    *element = IntText(SignExtend(LoadLittleEndian(lp_, pos_ + 1, bytes), 8 * bytes), digits_);
    pos_ += 1 + bytes;
  } else {
    return fail();
  }
  // The back-length must name the entry just read.
  const size_t size = pos_ - start;
  const size_t backlen = BacklenSize(size);
  if (!need(backlen)) return fail();
  std::string expected;
  AppendBacklen(&expected, size);
  if (lp_.substr(pos_, backlen) != expected) return fail();
  pos_ += backlen;
  ++read_;
  return true;
}

ZiplistReader::ZiplistReader(std::string_view zl) : zl_(zl), pos_(10) {
  // zlbytes (4), zltail (4), zllen (2), entries, 0xff.
  if (zl.size() < 11 || LoadLittleEndian(zl, 0, 4) != zl.size() ||
      static_cast<uint8_t>(zl.back()) != 0xff) {
    ok_ = false;
  }
}

bool ZiplistReader::Next(std::string_view* element) {
  if (!ok_ || done_) return false;
  const size_t end = zl_.size() - 1;
  auto fail = [&] {
    ok_ = false;
    return false;
  };
  if (pos_ > end) return fail();
  if (static_cast<uint8_t>(zl_[pos_]) == 0xff) {
    done_ = true;
    if (pos_ != end) return fail();
    return false;
  }
  auto need = [&](size_t n) { return end - pos_ >= n; };
  // The previous entry's length: one byte, or 0xfe and four.
  const size_t prevlen_size = static_cast<uint8_t>(zl_[pos_]) < 0xfe ? 1 : 5;
  if (!need(prevlen_size + 1)) return fail();
  pos_ += prevlen_size;
  const uint8_t b = static_cast<uint8_t>(zl_[pos_]);
  switch (b >> 6) {
    case 0: {
      const size_t n = b & 0x3f;
      if (!need(1 + n)) return fail();
      *element = zl_.substr(pos_ + 1, n);
      pos_ += 1 + n;
      return true;
    }
    case 1: {
      if (!need(2)) return fail();
      const size_t n = (static_cast<size_t>(b & 0x3f) << 8) | static_cast<uint8_t>(zl_[pos_ + 1]);
      if (!need(2 + n)) return fail();
      *element = zl_.substr(pos_ + 2, n);
      pos_ += 2 + n;
      return true;
    }
    case 2: {
      if (!need(5)) return fail();
      uint64_t n = 0;
      for (int i = 1; i <= 4; ++i) n = (n << 8) | static_cast<uint8_t>(zl_[pos_ + i]);
      if (!need(5 + n)) return fail();
      *element = zl_.substr(pos_ + 5, n);
      pos_ += 5 + n;
      return true;
    }
    default:
      break;
  }
  int bytes;
  switch (b) {
    case 0xc0:
      bytes = 2;
      break;
    case 0xd0:
      bytes = 4;
      break;
    case 0xe0:
      bytes = 8;
      break;
    case 0xf0:
      bytes = 3;
      break;
    case 0xfe:
      bytes = 1;
      break;
    default:
      if (b >= 0xf1 && b <= 0xfd) {  // a 4-bit immediate, 0 to 12
        *element = IntText((b & 0x0f) - 1, digits_);
        pos_ += 1;
        return true;
      }
      return fail();
  }
  if (!need(1 + bytes)) return fail();
  *element = IntText(SignExtend(LoadLittleEndian(zl_, pos_ + 1, bytes), 8 * bytes), digits_);
  pos_ += 1 + bytes;
  return true;
}

IntsetReader::IntsetReader(std::string_view is) : is_(is) {
  if (is.size() < 8) {
    ok_ = false;
    return;
  }
  width_ = static_cast<uint32_t>(LoadLittleEndian(is, 0, 4));
  size_ = static_cast<uint32_t>(LoadLittleEndian(is, 4, 4));
  if ((width_ != 2 && width_ != 4 && width_ != 8) ||
      is.size() != 8 + static_cast<uint64_t>(size_) * width_) {
    ok_ = false;
  }
}

bool IntsetReader::Next(std::string_view* member) {
  if (!ok_ || index_ >= size_) return false;
  const int bits = static_cast<int>(8 * width_);
  const int64_t v =
      SignExtend(LoadLittleEndian(is_, 8 + static_cast<size_t>(index_) * width_, width_), bits);
  if (index_ > 0 && v <= last_) {
    ok_ = false;
    return false;
  }
  last_ = v;
  ++index_;
  *member = IntText(v, digits_);
  return true;
}

std::string BuildIntset(std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  uint32_t width = 2;
  for (int64_t v : values) {
    if (v < INT32_MIN || v > INT32_MAX) {
      width = 8;
      break;
    }
    if (v < INT16_MIN || v > INT16_MAX) width = 4;
  }
  std::string out;
  out.reserve(8 + values.size() * width);
  AppendLittleEndian(&out, width, 4);
  AppendLittleEndian(&out, values.size(), 4);
  for (int64_t v : values)
    AppendLittleEndian(&out, static_cast<uint64_t>(v), static_cast<int>(width));
  return out;
}

}  // namespace ordis::persistence::rdb
