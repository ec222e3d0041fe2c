// Number parsing and printing with Redis's exact rules (util.c string2ll, string2ld, ld2string).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ordis::server {

// Strict: optional '-', digits, no leading zeros (except "0"), no spaces, no '+', fits in int64.
bool ParseInt64(std::string_view s, int64_t* out);
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

}  // namespace ordis::server
