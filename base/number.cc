#include "base/number.h"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ordis {

bool ParseDouble(std::string_view s, double* out) {
  if (s.empty() || s.size() > 5 * 1024) return false;
  if (std::isspace(static_cast<unsigned char>(s[0]))) return false;
  std::string buf(s);  // strtod needs a terminated string
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size()) return false;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || std::fpclassify(v) == FP_ZERO)) {
    return false;
  }
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

bool ParseLongDouble(std::string_view s, long double* out) {
  if (s.empty() || s.size() > 5 * 1024) return false;
  if (std::isspace(static_cast<unsigned char>(s[0]))) return false;
  std::string buf(s);
  char* end = nullptr;
  errno = 0;
  long double v = std::strtold(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size()) return false;
  if (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || std::fpclassify(v) == FP_ZERO)) {
    return false;
  }
  if (std::isnan(v)) return false;
  *out = v;
  return true;
}

std::string FormatLongDouble(long double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[5 * 1024 + 64];
  int n = std::snprintf(buf, sizeof(buf), "%.17Lf", v);
  if (n <= 0 || n >= static_cast<int>(sizeof(buf))) return "0";
  if (std::memchr(buf, '.', n) != nullptr) {
    while (buf[n - 1] == '0') --n;
    if (buf[n - 1] == '.') --n;
  }
  if (n == 2 && buf[0] == '-' && buf[1] == '0') return "0";
  return std::string(buf, n);
}

void AppendInt64(std::string* out, int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, res.ptr);
}

bool ParseMemory(std::string_view s, int64_t* out) {
  size_t digits = 0;
  while (digits < s.size() &&
         (std::isdigit(static_cast<unsigned char>(s[digits])) || (digits == 0 && s[0] == '-'))) {
    ++digits;
  }
  std::string unit(s.substr(digits));
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  int64_t mul;
  if (unit.empty() || unit == "b")
    mul = 1;
  else if (unit == "k")
    mul = 1000;
  else if (unit == "kb")
    mul = 1024;
  else if (unit == "m")
    mul = 1000 * 1000;
  else if (unit == "mb")
    mul = 1024 * 1024;
  else if (unit == "g")
    mul = 1000LL * 1000 * 1000;
  else if (unit == "gb")
    mul = 1024LL * 1024 * 1024;
  else
    return false;
  int64_t v;
  if (!ParseInt64(s.substr(0, digits), &v)) return false;
  if (v != 0 && (v > INT64_MAX / mul || v < INT64_MIN / mul)) return false;
  *out = v * mul;
  return true;
}

}  // namespace ordis
