// Number parsing and printing with Redis's exact rules (util.c string2ll, string2ld, ld2string):
// the one place the server, the RESP parser and the configuration read numbers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ordis {

// Redis's string2ll: optional '-', digits, no leading zeros (except "0"), no "-0", no spaces, no
// '+', fewer than 21 characters, fits in int64. Inline: the RESP parser reads every length with it.
inline bool ParseInt64(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  if (s.size() == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  size_t i = 0;
  const bool negative = s[0] == '-';
  if (negative && s.size() == 1) return false;
  if (negative) i = 1;
  if (s[i] < '1' || s[i] > '9') return false;
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    const uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  if (negative) {
    if (v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *out = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(v);
  }
  return true;
}
// strtod rules as Redis's getDoubleFromObject: no leading space, whole string, not NaN; "inf" ok.
bool ParseDouble(std::string_view s, double* out);
// As Redis's string2ld, used by INCRBYFLOAT.
bool ParseLongDouble(std::string_view s, long double* out);
// Redis's ld2string in human mode: "%.17Lf" with trailing zeros removed ("3.5", "10", "-0" -> "0").
std::string FormatLongDouble(long double v);
// *sum = a + b, or false when that overflows int64 (INCRBY's "increment or decrement would
// overflow").
inline bool CheckedAdd(int64_t a, int64_t b, int64_t* sum) {
  return !__builtin_add_overflow(a, b, sum);
}
// Appends the decimal form of v.
void AppendInt64(std::string* out, int64_t v);
// Redis's memtoull: "100", "1k" (1000), "1kb" (1024), "1mb", "1gb", case-insensitive.
bool ParseMemory(std::string_view s, int64_t* out);

}  // namespace ordis
