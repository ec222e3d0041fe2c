// The expiry options shared by SET, GETEX and the EXPIRE family: relative or absolute, seconds or
// milliseconds, turned into an absolute unix time in ms with Redis's range checks.
#pragma once

#include <cstdint>

namespace ordis::server {

enum class TimeUnit { kSeconds, kMilliseconds };

// Returns false (Redis: "invalid expire time") when value is out of range. For SET/GETEX
// (allow_non_positive false) a value <= 0 is invalid; the EXPIRE family accepts it (the key is
// deleted at once).
inline bool ToAbsoluteMs(int64_t value, TimeUnit unit, bool absolute, int64_t now_ms,
                         bool allow_non_positive, int64_t* out) {
  if (!allow_non_positive && value <= 0) return false;
  if (unit == TimeUnit::kSeconds) {
    if (value > INT64_MAX / 1000 || value < INT64_MIN / 1000) return false;
    value *= 1000;
  }
  if (!absolute) {
    if (value > 0 && value > INT64_MAX - now_ms) return false;  // now_ms > 0: only this overflows
    value += now_ms;
  }
  if (!allow_non_positive && value <= 0) return false;
  *out = value;
  return true;
}

}  // namespace ordis::server
