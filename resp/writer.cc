#include "resp/writer.h"

#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

namespace ordis::resp {

namespace {

// Longest header: type byte, "-9223372036854775808", CRLF.
constexpr size_t kHeaderMax = 1 + 20 + 2;
// Bulk strings up to this size are assembled on the stack and appended once.
constexpr size_t kSmallBulk = 128;

constexpr char kDigitPairs[] =
    "00010203040506070809"
    "10111213141516171819"
    "20212223242526272829"
    "30313233343536373839"
    "40414243444546474849"
    "50515253545556575859"
    "60616263646566676869"
    "70717273747576777879"
    "80818283848586878889"
    "90919293949596979899";

// Writes v in decimal at `out` (which has room for 20 bytes) and returns the length. Replies are
// mostly headers and counters, so this avoids snprintf's format parsing on every one.
size_t FormatUint(uint64_t v, char* out) {
  char tmp[20];
  char* p = tmp + sizeof(tmp);
  while (v >= 100) {
    const size_t i = static_cast<size_t>(v % 100) * 2;
    v /= 100;
    *--p = kDigitPairs[i + 1];
    *--p = kDigitPairs[i];
  }
  if (v >= 10) {
    const size_t i = static_cast<size_t>(v) * 2;
    *--p = kDigitPairs[i + 1];
    *--p = kDigitPairs[i];
  } else {
    *--p = static_cast<char>('0' + v);
  }
  const size_t len = static_cast<size_t>(tmp + sizeof(tmp) - p);
  memcpy(out, p, len);
  return len;
}

size_t FormatInt(int64_t v, char* out) {
  if (v >= 0) return FormatUint(static_cast<uint64_t>(v), out);
  *out = '-';
  // 0 - v in unsigned arithmetic is the magnitude, INT64_MIN included.
  return 1 + FormatUint(0 - static_cast<uint64_t>(v), out + 1);
}

// Writes "<type><n>\r\n" at `out` (kHeaderMax bytes) and returns the length.
size_t FormatHeader(char type, int64_t n, char* out) {
  out[0] = type;
  size_t len = 1 + FormatInt(n, out + 1);
  out[len++] = '\r';
  out[len++] = '\n';
  return len;
}

// Redis 7.0 addReplyDouble's text: infinities spelled out explicitly (libc spellings vary),
// everything else "%.17g", which round-trips but prints 1.1 as 1.1000000000000001. The view points
// into buf or at a literal.
std::string_view DoubleText(double d, char (&buf)[64]) {
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  const int len = snprintf(buf, sizeof(buf), "%.17g", d);
  return std::string_view(buf, static_cast<size_t>(len));
}

}  // namespace

void Writer::Header(char type, int64_t n) {
  char buf[kHeaderMax];
  out_->Append(std::string_view(buf, FormatHeader(type, n, buf)));
}

void Writer::SimpleString(std::string_view s) {
  out_->Append('+');
  out_->Append(s);
  out_->Append("\r\n");
}

void Writer::Error(std::string_view message) {
  ++errors_written_;
  const size_t space = message.substr(0, sizeof error_code_).find(' ');
  const std::string_view code = space == std::string_view::npos ? "ERR" : message.substr(0, space);
  std::memcpy(error_code_, code.data(), code.size());
  error_code_len_ = code.size();
  out_->Append('-');
  // A CR or LF would end the error line early and desynchronise the client.
  if (message.find_first_of("\r\n") == std::string_view::npos) {
    out_->Append(message);
  } else {
    std::string clean(message);
    for (char& c : clean) {
      if (c == '\r' || c == '\n') c = ' ';
    }
    out_->Append(clean);
  }
  out_->Append("\r\n");
}

void Writer::Integer(int64_t v) { Header(':', v); }

void Writer::Bulk(std::string_view s) {
  if (s.size() <= kSmallBulk) {
    // Formatted in place in the output buffer: one copy of the value.
    char* buf = out_->Reserve(kHeaderMax + s.size() + 2);
    size_t len = FormatHeader('$', static_cast<int64_t>(s.size()), buf);
    memcpy(buf + len, s.data(), s.size());
    len += s.size();
    buf[len++] = '\r';
    buf[len++] = '\n';
    out_->Commit(len);
    return;
  }
  Header('$', static_cast<int64_t>(s.size()));
  out_->Append(s);
  out_->Append("\r\n");
}

void Writer::NullBulk() { out_->Append(protocol_ >= 3 ? "_\r\n" : "$-1\r\n"); }

void Writer::NullArray() { out_->Append(protocol_ >= 3 ? "_\r\n" : "*-1\r\n"); }

void Writer::ArrayHeader(int64_t n) { Header('*', n); }

void Writer::MapHeader(int64_t n) {
  if (protocol_ >= 3) {
    Header('%', n);
  } else {
    Header('*', n * 2);  // RESP2 flattens a map into key, value, key, value...
  }
}

void Writer::SetHeader(int64_t n) { Header(protocol_ >= 3 ? '~' : '*', n); }

void Writer::PushHeader(int64_t n) { Header(protocol_ >= 3 ? '>' : '*', n); }

void Writer::Double(double d) {
  char buf[64];
  std::string_view text = DoubleText(d, buf);
  if (protocol_ >= 3) {
    out_->Append(',');
    out_->Append(text);
    out_->Append("\r\n");
  } else {
    Bulk(text);
  }
}

void Writer::BulkDouble(double d) {
  char buf[64];
  Bulk(DoubleText(d, buf));
}

void Writer::Bool(bool b) {
  if (protocol_ >= 3) {
    out_->Append(b ? "#t\r\n" : "#f\r\n");
  } else {
    out_->Append(b ? ":1\r\n" : ":0\r\n");
  }
}

void Writer::Verbatim(std::string_view format, std::string_view text) {
  if (protocol_ < 3) {
    Bulk(text);
    return;
  }
  assert(format.size() == 3);
  Header('=', static_cast<int64_t>(format.size() + 1 + text.size()));  // "fmt:" then the text
  out_->Append(format);
  out_->Append(':');
  out_->Append(text);
  out_->Append("\r\n");
}

void Writer::BigNumber(std::string_view digits) {
  if (protocol_ < 3) {
    Bulk(digits);
    return;
  }
  out_->Append('(');
  out_->Append(digits);
  out_->Append("\r\n");
}

void AppendBulk(std::string* out, std::string_view s) {
  char digits[24];
  out->push_back('$');
  out->append(digits, static_cast<size_t>(
                          std::to_chars(digits, digits + sizeof digits, s.size()).ptr - digits));
  out->append("\r\n");
  out->append(s);
  out->append("\r\n");
}

void AppendCommand(std::string* out, std::span<const std::string_view> args) {
  char digits[24];
  out->push_back('*');
  out->append(digits, static_cast<size_t>(
                          std::to_chars(digits, digits + sizeof digits, args.size()).ptr - digits));
  out->append("\r\n");
  for (std::string_view a : args) AppendBulk(out, a);
}

}  // namespace ordis::resp
