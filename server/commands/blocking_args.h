// What the blocking commands and the multi-key pops share: their timeout argument, read as Redis
// 7.0 reads it (seconds as a long double for BLPOP, BZPOPMIN, BLMOVE ...; milliseconds as an
// integer for XREAD BLOCK; 0 meaning forever), LMPOP's and ZMPOP's "numkeys key ... where [COUNT
// count]", and the request to wait.
#pragma once

#include <cmath>
#include <cstdint>
#include <span>
#include <string_view>

#include "base/number.h"
#include "server/command/command.h"
#include "server/command/errors.h"

namespace ordis::server {

enum class TimeoutUnit { kSeconds, kMilliseconds };

// *ms: the timeout in milliseconds (0: forever). Replies the error and returns false on a bad
// one. Seconds round up to whole milliseconds (1e-5 waits 1 ms, not forever); one too large for
// milliseconds in int64, infinity included, is "negative", as Redis's conversion makes it.
inline bool ParseBlockTimeout(CommandContext& ctx, std::string_view arg, TimeoutUnit unit,
                              int64_t* ms) {
  if (unit == TimeoutUnit::kSeconds) {
    long double seconds;
    if (!ParseLongDouble(arg, &seconds)) {
      ctx.out.Error(errors::kTimeoutNotFloat);
      return false;
    }
    const long double millis = std::ceil(seconds * 1000.0L);
    if (!(millis >= 0) || !(millis <= 9223372036854775807.0L)) {
      ctx.out.Error(errors::kTimeoutNegative);
      return false;
    }
    *ms = static_cast<int64_t>(millis);
    return true;
  }
  if (!ParseInt64(arg, ms)) {
    ctx.out.Error(errors::kTimeoutNotInteger);
    return false;
  }
  if (*ms < 0) {
    ctx.out.Error(errors::kTimeoutNegative);
    return false;
  }
  return true;
}

// LMPOP / ZMPOP numkeys key [key ...] <first|second> [COUNT count], from args[0] = numkeys.
struct MPopArgs {
  std::span<const std::string_view> keys;
  bool second = false;  // the end named second (RIGHT, MAX) rather than first (LEFT, MIN)
  int64_t count = 1;
};
// Replies the error and returns false on bad arguments, with Redis's texts and precedence.
inline bool ParseMPopArgs(CommandContext& ctx, std::span<const std::string_view> args,
                          std::string_view first, std::string_view second, MPopArgs* out) {
  int64_t numkeys;
  if (!ParseInt64(args[0], &numkeys) || numkeys <= 0) {
    ctx.out.Error(errors::kNumKeysNotPositive);
    return false;
  }
  // The keys, then the end: at least numkeys + 1 arguments after numkeys.
  if (numkeys >= static_cast<int64_t>(args.size()) - 1) {
    ctx.out.Error(errors::kSyntax);
    return false;
  }
  out->keys = args.subspan(1, static_cast<size_t>(numkeys));
  size_t i = static_cast<size_t>(numkeys) + 1;
  if (EqualsIgnoreCase(args[i], second)) {
    out->second = true;
  } else if (!EqualsIgnoreCase(args[i], first)) {
    ctx.out.Error(errors::kSyntax);
    return false;
  }
  bool counted = false;
  for (++i; i < args.size(); ++i) {
    if (!counted && EqualsIgnoreCase(args[i], "count") && i + 1 < args.size()) {
      if (!ParseInt64(args[i + 1], &out->count) || out->count <= 0) {
        ctx.out.Error(errors::kCountNotPositive);
        return false;
      }
      counted = true;
      ++i;
    } else {
      ctx.out.Error(errors::kSyntax);
      return false;
    }
  }
  return true;
}

// Asks to wait for keys (in the client's db) for timeout_ms, for a value of type: true if the
// client now waits (the command replies nothing); false where it may not block (MULTI, scripts),
// and the command replies as its timeout would.
inline bool BlockOn(CommandContext& ctx, std::span<const std::string_view> keys, int64_t timeout_ms,
                    ObjType type) {
  if (ctx.block == nullptr) return false;
  BlockRequest& request = *ctx.block;
  request.blocked = true;
  request.keys.assign(keys.begin(), keys.end());
  request.timeout_ms = timeout_ms;
  request.type = type;
  return true;
}

}  // namespace ordis::server
