// Sorted-set commands, first set: ZADD ZINCRBY ZREM ZCARD ZSCORE ZMSCORE ZPOPMIN ZPOPMAX
// ZRANGE (by index) ZREVRANGE ZRANK ZREVRANK.
//
// Scores are replied as Redis 7.0 does (Writer::Double: "%.17g", "inf", "-inf"; a RESP3 double).
// Entries are ordered by (score, member), members compared bytewise, as Redis's skiplist orders
// them.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "server/access.h"
#include "server/arg_parser.h"
#include "server/command_table.h"
#include "server/errors.h"
#include "server/number.h"

namespace ordis::server {
namespace {

// --- The representation -------------------------------------------------------------------------
// Thin wrappers over ZSetValue (server/zset_value.h) while the commands are ported to it.

size_t ZSize(const ZSetValue& z) { return z.size(); }

void ZAdd(ZSetValue& z, std::string_view member, double score) { z.Insert(member, score, {}); }

bool ZRemove(ZSetValue& z, std::string_view member) { return z.Erase(member); }

int64_t ZRank(const ZSetValue& z, std::string_view member, bool reverse) {
  auto rank = z.Rank(member);
  if (!rank) return -1;
  return reverse ? static_cast<int64_t>(z.size() - 1 - *rank) : static_cast<int64_t>(*rank);
}

template <typename Visit>
void ZWalkRanks(const ZSetValue& z, size_t start, size_t end, bool reverse, Visit visit) {
  size_t left = end - start + 1;
  z.VisitFrom(reverse ? z.size() - 1 - start : start, reverse, [&](std::string_view m, double s) {
    visit(m, s);
    return --left > 0;
  });
}

template <typename Visit>
void ZPopEntries(ZSetValue& z, size_t count, bool max, Visit visit) {
  if (count == 0) return;
  ZWalkRanks(z, 0, count - 1, max, visit);
  if (max) {
    z.EraseRanks(z.size() - count, z.size() - 1);
  } else {
    z.EraseRanks(0, count - 1);
  }
}

// --- Operations ----------------------------------------------------------------------------------

struct ZAddFlags {
  bool nx = false, xx = false, gt = false, lt = false, incr = false;
};

enum class ZAddOutcome {
  kAdded,      // a new member
  kUpdated,    // the score changed
  kUnchanged,  // processed, but the score stayed the same
  kSkipped,    // NX, XX, GT or LT left it alone
  kNaN,        // INCR would make the score NaN; nothing changed
};

// Redis's zsetAdd: adds or updates member under flags; *new_score is the resulting score when the
// outcome is kAdded, kUpdated or kUnchanged. score is never NaN (ParseDouble rejects it).
ZAddOutcome OpZAdd(ZSetValue& z, std::string_view member, double score, const ZAddFlags& flags,
                   double* new_score) {
  if (std::optional<double> current_score = z.Score(member)) {
    const double current = *current_score;
    if (flags.nx) return ZAddOutcome::kSkipped;
    if (flags.incr) {
      score += current;
      if (std::isnan(score)) return ZAddOutcome::kNaN;
    }
    if ((flags.lt && score >= current) || (flags.gt && score <= current)) {
      return ZAddOutcome::kSkipped;
    }
    *new_score = score;
    if (score == current) return ZAddOutcome::kUnchanged;
    ZAdd(z, member, score);
    return ZAddOutcome::kUpdated;
  }
  if (flags.xx) return ZAddOutcome::kSkipped;
  *new_score = score;
  ZAdd(z, member, score);
  return ZAddOutcome::kAdded;
}

// --- Commands ------------------------------------------------------------------------------------

// ZADD key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]
// ZINCRBY key increment member (the same path with INCR set, as in Redis, quirks included:
// "ZINCRBY key nx member" is a syntax error because "nx" is read as an option).
void ZAddGeneric(CommandContext& ctx, ZAddFlags flags) {
  bool ch = false;
  size_t i = 2;
  for (; i < ctx.args.size(); ++i) {
    std::string_view opt = ctx.args[i];
    if (EqualsIgnoreCase(opt, "NX")) flags.nx = true;
    else if (EqualsIgnoreCase(opt, "XX")) flags.xx = true;
    else if (EqualsIgnoreCase(opt, "CH")) ch = true;
    else if (EqualsIgnoreCase(opt, "INCR")) flags.incr = true;
    else if (EqualsIgnoreCase(opt, "GT")) flags.gt = true;
    else if (EqualsIgnoreCase(opt, "LT")) flags.lt = true;
    else break;
  }
  const size_t rest = ctx.args.size() - i;
  if (rest == 0 || rest % 2 != 0) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  const size_t elements = rest / 2;
  if (flags.nx && flags.xx) {
    ctx.out.Error(errors::kXxAndNx);
    return;
  }
  if ((flags.gt && flags.nx) || (flags.lt && flags.nx) || (flags.gt && flags.lt)) {
    ctx.out.Error(errors::kGtLtNx);
    return;
  }
  if (flags.incr && elements > 1) {
    ctx.out.Error(errors::kIncrSinglePair);
    return;
  }
  // Every score is checked before anything changes: the command runs fully or not at all.
  std::vector<double> scores(elements);
  for (size_t j = 0; j < elements; ++j) {
    if (!ParseDouble(ctx.args[i + 2 * j], &scores[j])) {
      ctx.out.Error(errors::kNotFloat);
      return;
    }
  }
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kZSet, !flags.xx, &wrong_type);
  if (wrong_type) return;
  int64_t added = 0, updated = 0, processed = 0;
  double score = 0;
  bool nan = false;
  if (obj != nullptr) {
    ZSetValue& z = obj->zset();
    for (size_t j = 0; j < elements && !nan; ++j) {
      switch (OpZAdd(z, ctx.args[i + 2 * j + 1], scores[j], flags, &score)) {
        case ZAddOutcome::kAdded: ++added, ++processed; break;
        case ZAddOutcome::kUpdated: ++updated, ++processed; break;
        case ZAddOutcome::kUnchanged: ++processed; break;
        case ZAddOutcome::kSkipped: break;
        case ZAddOutcome::kNaN: nan = true; break;
      }
    }
    if (added + updated > 0 || obj->EmptyCollection()) FinishCollectionWrite(ctx, key, obj);
  }
  if (nan) {
    ctx.out.Error(errors::kScoreNaN);
  } else if (flags.incr) {
    if (processed > 0) {
      ctx.out.Double(score);
    } else {
      ctx.out.NullBulk();
    }
  } else {
    ctx.out.Integer(ch ? added + updated : added);
  }
}

void CmdZAdd(CommandContext& ctx) { ZAddGeneric(ctx, ZAddFlags{}); }
void CmdZIncrBy(CommandContext& ctx) { ZAddGeneric(ctx, ZAddFlags{.incr = true}); }

// ZREM key member [member ...]
void CmdZRem(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, ctx.args[1], ObjType::kZSet, false, &wrong_type);
  if (wrong_type) return;
  int64_t removed = 0;
  if (obj != nullptr) {
    ZSetValue& z = obj->zset();
    for (size_t i = 2; i < ctx.args.size() && ZSize(z) > 0; ++i) removed += ZRemove(z, ctx.args[i]);
    if (removed > 0) FinishCollectionWrite(ctx, ctx.args[1], obj);
  }
  ctx.out.Integer(removed);
}

// ZCARD key
void CmdZCard(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  ctx.out.Integer(obj == nullptr ? 0 : static_cast<int64_t>(ZSize(obj->zset())));
}

// ZSCORE key member
void CmdZScore(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  std::optional<double> score;
  if (obj != nullptr) score = obj->zset().Score(ctx.args[2]);
  if (!score) {
    ctx.out.NullBulk();
  } else {
    ctx.out.Double(*score);
  }
}

// ZMSCORE key member [member ...]
void CmdZMScore(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  ctx.out.ArrayHeader(static_cast<int64_t>(ctx.args.size() - 2));
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    std::optional<double> score;
    if (obj != nullptr) score = obj->zset().Score(ctx.args[i]);
    if (!score) {
      ctx.out.NullBulk();
    } else {
      ctx.out.Double(*score);
    }
  }
}

// ZPOPMIN key [count] / ZPOPMAX key [count]
// Without a count: a flat [member, score]. With one: RESP2 a flat array, RESP3 [member, score]
// pairs.
void ZPopCommand(CommandContext& ctx, bool max) {
  if (ctx.args.size() > 3) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  int64_t count = -1;  // no count argument
  if (ctx.args.size() == 3 && (!ParseInt64(ctx.args[2], &count) || count < 0)) {
    ctx.out.Error(errors::kNotPositive);
    return;
  }
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kZSet, false, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr || count == 0) {
    ctx.out.ArrayHeader(0);
    return;
  }
  const bool nested = ctx.out.protocol() >= 3 && count != -1;
  ZSetValue& z = obj->zset();
  const size_t n = count == -1 ? 1 : std::min(static_cast<size_t>(count), ZSize(z));
  ctx.out.ArrayHeader(static_cast<int64_t>(nested ? n : 2 * n));
  ZPopEntries(z, n, max, [&](std::string_view member, double score) {
    if (nested) ctx.out.ArrayHeader(2);
    ctx.out.Bulk(member);
    ctx.out.Double(score);
  });
  FinishCollectionWrite(ctx, key, obj);
}

void CmdZPopMin(CommandContext& ctx) { ZPopCommand(ctx, false); }
void CmdZPopMax(CommandContext& ctx) { ZPopCommand(ctx, true); }

// ZRANGE key start stop [REV] [WITHSCORES] / ZREVRANGE key start stop [WITHSCORES]
// Ranks only for now: BYSCORE and BYLEX come with the sorted-set issue and until then are syntax
// errors, as is LIMIT (which Redis allows only with them). Options are checked in Redis's order:
// the option words, LIMIT, then start and stop, then the key.
void ZRangeGeneric(CommandContext& ctx, bool reverse_command) {
  bool withscores = false, reverse = reverse_command, rev_option = false, limit = false;
  ArgParser p(ctx.args, 4);
  while (p.HasNext() && p.ok()) {
    if (p.Accept("WITHSCORES")) {
      withscores = true;
    } else if (p.remaining() >= 3 && p.Accept("LIMIT")) {
      p.NextInt();  // offset
      p.NextInt();  // count
      limit = true;
    } else if (!reverse_command && !rev_option && p.Accept("REV")) {
      reverse = rev_option = true;
    } else {
      p.Fail(errors::kSyntax);
    }
  }
  if (!p.ok()) {
    ctx.out.Error(p.error());
    return;
  }
  if (limit) {
    ctx.out.Error(errors::kLimitNeedsByScoreOrLex);
    return;
  }
  int64_t start, end;
  if (!ParseInt64(ctx.args[2], &start) || !ParseInt64(ctx.args[3], &end)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.ArrayHeader(0);
    return;
  }
  const ZSetValue& z = obj->zset();
  const auto n = static_cast<int64_t>(ZSize(z));
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  if (start > end || start >= n) {
    ctx.out.ArrayHeader(0);
    return;
  }
  if (end >= n) end = n - 1;
  const int64_t len = end - start + 1;
  // RESP3 WITHSCORES: [member, score] pairs, kept in order (not a map).
  const bool pairs = withscores && ctx.out.protocol() >= 3;
  ctx.out.ArrayHeader(withscores && !pairs ? 2 * len : len);
  ZWalkRanks(z, static_cast<size_t>(start), static_cast<size_t>(end), reverse,
             [&](std::string_view member, double score) {
               if (pairs) ctx.out.ArrayHeader(2);
               ctx.out.Bulk(member);
               if (withscores) ctx.out.Double(score);
             });
}

void CmdZRange(CommandContext& ctx) { ZRangeGeneric(ctx, false); }
void CmdZRevRange(CommandContext& ctx) { ZRangeGeneric(ctx, true); }

// ZRANK key member / ZREVRANK key member
void ZRankCommand(CommandContext& ctx, bool reverse) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  const int64_t rank = obj == nullptr ? -1 : ZRank(obj->zset(), ctx.args[2], reverse);
  if (rank < 0) {
    ctx.out.NullBulk();
  } else {
    ctx.out.Integer(rank);
  }
}

void CmdZRank(CommandContext& ctx) { ZRankCommand(ctx, false); }
void CmdZRevRank(CommandContext& ctx) { ZRankCommand(ctx, true); }

}  // namespace

void RegisterZSetFamily(CommandTable* table) {
  using namespace cmd;
  constexpr uint32_t kW = kWrite | kDenyOom;
  constexpr std::string_view kGroup = "sorted-set";  // COMMAND DOCS group, as Redis names it
  table->Register({
      {"zadd", -4, kW | kFast, 1, 1, 1, CmdZAdd, kGroup, "Add one or more members to a sorted set, or update its score if it already exists"},
      {"zincrby", 4, kW | kFast, 1, 1, 1, CmdZIncrBy, kGroup, "Increment the score of a member in a sorted set"},
      {"zrem", -3, kWrite | kFast, 1, 1, 1, CmdZRem, kGroup, "Remove one or more members from a sorted set"},
      {"zcard", 2, kReadonly | kFast, 1, 1, 1, CmdZCard, kGroup, "Get the number of members in a sorted set"},
      {"zscore", 3, kReadonly | kFast, 1, 1, 1, CmdZScore, kGroup, "Get the score associated with the given member in a sorted set"},
      {"zmscore", -3, kReadonly | kFast, 1, 1, 1, CmdZMScore, kGroup, "Get the score associated with the given members in a sorted set"},
      {"zpopmin", -2, kWrite | kFast, 1, 1, 1, CmdZPopMin, kGroup, "Remove and return members with the lowest scores in a sorted set"},
      {"zpopmax", -2, kWrite | kFast, 1, 1, 1, CmdZPopMax, kGroup, "Remove and return members with the highest scores in a sorted set"},
      {"zrange", -4, kReadonly, 1, 1, 1, CmdZRange, kGroup, "Return a range of members in a sorted set"},
      {"zrevrange", -4, kReadonly, 1, 1, 1, CmdZRevRange, kGroup, "Return a range of members in a sorted set, by index, with scores ordered from high to low"},
      {"zrank", 3, kReadonly | kFast, 1, 1, 1, CmdZRank, kGroup, "Determine the index of a member in a sorted set"},
      {"zrevrank", 3, kReadonly | kFast, 1, 1, 1, CmdZRevRank, kGroup, "Determine the index of a member in a sorted set, with scores ordered from high to low"},
  });
}

}  // namespace ordis::server
