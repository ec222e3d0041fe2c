// What the sorted-set command families share (zset_family.cc, zset_range_family.cc,
// zset_algebra_family.cc): the insertion limits, score and lex range arguments and the rank
// intervals they select in a ZSetValue, entry replies, and storing a computed set at a
// destination key.
#pragma once

#include <cstddef>
#include <string_view>

#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/types/lex_bound.h"
#include "server/types/zset_value.h"

namespace ordis::server {

// The insertion limits of the server configuration (zset-max-listpack-entries / -value).
inline ZSetLimits ZSetLimitsOf(const CommandContext& ctx) {
  const Config& config = ctx.config();
  return {static_cast<size_t>(config.zset_max_listpack_entries()),
          static_cast<size_t>(config.zset_max_listpack_value())};
}

// A ZRANGEBYSCORE interval: "1.5" includes its bound, "(1.5" excludes it.
struct ScoreRange {
  double min = 0, max = 0;
  bool min_exclusive = false, max_exclusive = false;
};

// Redis's zslParseRange: after an optional '(', strtod must take the whole argument (so "-inf",
// "+inf", "inf", " 1", "0x10" and "" (which is 0) pass), and NaN is refused. false means
// errors::kMinMaxNotFloat.
bool ParseScoreRange(std::string_view min, std::string_view max, ScoreRange* out);

// A ZRANGEBYLEX interval (LexBound: "-", "+", "[a", "(a"). Members are compared bytewise, and
// the interval means what Redis says it means only when all scores are equal (otherwise both
// Redis and ordis answer by searching as if members were in order, and may differ).
struct LexRange {
  LexBound min, max;
};

// Redis's zslParseLexRange; false means errors::kInvalidLexRange. The bounds view min and max.
bool ParseLexRange(std::string_view min, std::string_view max, LexRange* out);

// The ascending ranks [first, end) of a set's entries in a range; empty when end <= first (a range
// with min above max, or equal bounds with one excluded).
struct RankInterval {
  size_t first = 0, end = 0;
  size_t size() const { return end > first ? end - first : 0; }
};

RankInterval RanksInScoreRange(const ZSetValue& z, const ScoreRange& range);
RankInterval RanksInLexRange(const ZSetValue& z, const LexRange& range);

// Replies of entries, as Redis 7.0 shapes them: the members, or with scores [member, score, ...]
// on RESP2 and [[member, score], ...] on RESP3 (pairs in an array, not a map: order matters).
// ReplyEntriesHeader for n entries, then ReplyEntry for each.
inline void ReplyEntriesHeader(CommandContext& ctx, size_t n, bool withscores) {
  const bool flat_pairs = withscores && ctx.out.protocol() < 3;
  ctx.out.ArrayHeader(static_cast<int64_t>(flat_pairs ? 2 * n : n));
}
inline void ReplyEntry(CommandContext& ctx, std::string_view member, double score,
                       bool withscores) {
  if (withscores && ctx.out.protocol() >= 3) ctx.out.ArrayHeader(2);
  ctx.out.Bulk(member);
  if (withscores) ctx.out.Double(score);
}

// ZRANGESTORE and Z*STORE: stores result at dst, replacing what is there (its TTL too), raises
// event on it and replies its size; an empty result deletes dst instead ("del") and replies 0.
void StoreZSetResult(CommandContext& ctx, std::string_view dst, ZSetValue result,
                     std::string_view event);

}  // namespace ordis::server
