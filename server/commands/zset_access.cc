#include "server/commands/zset_access.h"

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "server/commands/lookup.h"

namespace ordis::server {
namespace {

// One bound of zslParseRange.
bool ParseScoreBound(std::string_view arg, double* value, bool* exclusive) {
  *exclusive = !arg.empty() && arg[0] == '(';
  if (*exclusive) arg.remove_prefix(1);
  // strtod stops at the first NUL, as it does on Redis's sds argument.
  const std::string text(arg);
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return *end == '\0' && !std::isnan(*value);
}

}  // namespace

bool ParseScoreRange(std::string_view min, std::string_view max, ScoreRange* out) {
  return ParseScoreBound(min, &out->min, &out->min_exclusive) &&
         ParseScoreBound(max, &out->max, &out->max_exclusive);
}

bool ParseLexRange(std::string_view min, std::string_view max, LexRange* out) {
  return ParseLexBound(min, &out->min) && ParseLexBound(max, &out->max);
}

RankInterval RanksInScoreRange(const ZSetValue& z, const ScoreRange& range) {
  RankInterval out;
  // Unbounded ends need no search (a descent costs cache misses at every level).
  const bool from_start = range.min == -HUGE_VAL && !range.min_exclusive;
  const bool to_end = range.max == HUGE_VAL && !range.max_exclusive;
  out.first = from_start ? 0 : z.CountBefore([&](double score, std::string_view) {
    return range.min_exclusive ? score <= range.min : score < range.min;
  });
  out.end = to_end ? z.size() : z.CountBefore([&](double score, std::string_view) {
    return range.max_exclusive ? score < range.max : score <= range.max;
  });
  return out;
}

RankInterval RanksInLexRange(const ZSetValue& z, const LexRange& range) {
  RankInterval out;
  // Redis's zslIsInLexRange: nothing when the last entry is below min or the first above max.
  // Implied when all scores are equal; with unequal scores (where Redis leaves the result
  // undefined) it makes ordis answer as Redis does in the common cases.
  if (z.empty()) return out;
  const bool from_start = range.min.kind == LexBound::kMinusInf;
  const bool to_end = range.max.kind == LexBound::kPlusInf;
  bool in_range = true;
  if (!from_start) {
    z.VisitFrom(z.size() - 1, true, [&](std::string_view member, double) {
      in_range = range.min.AllowsAsMin(member);
      return false;
    });
  }
  if (!to_end) {
    z.VisitFrom(0, false, [&](std::string_view member, double) {
      in_range = in_range && range.max.AllowsAsMax(member);
      return false;
    });
  }
  if (!in_range) return out;
  out.first = from_start ? 0 : z.CountBefore([&](double, std::string_view member) {
    return !range.min.AllowsAsMin(member);
  });
  out.end = to_end ? z.size() : z.CountBefore([&](double, std::string_view member) {
    return range.max.AllowsAsMax(member);
  });
  return out;
}

void StoreZSetResult(CommandContext& ctx, std::string_view dst, ZSetValue result,
                     std::string_view event) {
  Keyspace& ks = ctx.keyspace();
  if (result.empty()) {
    if (ks.FindForWrite(ctx.db(), dst, ctx.now_ms) != nullptr) {
      ks.Delete(ctx.db(), dst);
      ctx.Notify(keyspace_events::kGeneric, "del", dst);
    }
    ctx.out.Integer(0);
    return;
  }
  const auto size = static_cast<int64_t>(result.size());
  auto obj = NewObject(ObjType::kZSet);
  obj->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
  obj->zset() = std::move(result);
  ks.Set(ctx.db(), dst, std::move(obj));
  ctx.Notify(keyspace_events::kZset, event, dst);
  ctx.out.Integer(size);
}

}  // namespace ordis::server
