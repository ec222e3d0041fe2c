// Sorted-set commands on single members and whole sets: ZADD ZINCRBY ZREM ZCARD ZSCORE ZMSCORE
// ZRANK ZREVRANK ZPOPMIN ZPOPMAX ZMPOP ZRANDMEMBER ZSCAN, and the blocking pops BZPOPMIN BZPOPMAX
// BZMPOP (list_family.cc says how they block). Ranges are in zset_range_family.cc, unions,
// intersections and differences in zset_algebra_family.cc.
//
// A sorted set is a ZSetValue (server/types/zset_value.h): entries ordered by (score, member),
// members compared bytewise, as Redis orders them. Scores are replied as Redis 7.0 does
// (Writer::Double: "%.17g", "inf", "-inf"; a RESP3 double).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/glob.h"
#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/commands/blocking_args.h"
#include "server/commands/collection_scan.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/random_members.h"
#include "server/commands/zset_access.h"

namespace ordis::server {
namespace {

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
                   const ZSetLimits& limits, double* new_score) {
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
    z.Insert(member, score, limits);
    return ZAddOutcome::kUpdated;
  }
  if (flags.xx) return ZAddOutcome::kSkipped;
  *new_score = score;
  z.Insert(member, score, limits);
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
    if (EqualsIgnoreCase(opt, "NX"))
      flags.nx = true;
    else if (EqualsIgnoreCase(opt, "XX"))
      flags.xx = true;
    else if (EqualsIgnoreCase(opt, "CH"))
      ch = true;
    else if (EqualsIgnoreCase(opt, "INCR"))
      flags.incr = true;
    else if (EqualsIgnoreCase(opt, "GT"))
      flags.gt = true;
    else if (EqualsIgnoreCase(opt, "LT"))
      flags.lt = true;
    else
      break;
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
    const ZSetLimits limits = ZSetLimitsOf(ctx);
    for (size_t j = 0; j < elements && !nan; ++j) {
      switch (OpZAdd(z, ctx.args[i + 2 * j + 1], scores[j], flags, limits, &score)) {
        case ZAddOutcome::kAdded:
          ++added, ++processed;
          break;
        case ZAddOutcome::kUpdated:
          ++updated, ++processed;
          break;
        case ZAddOutcome::kUnchanged:
          ++processed;
          break;
        case ZAddOutcome::kSkipped:
          break;
        case ZAddOutcome::kNaN:
          nan = true;
          break;
      }
    }
    if (added + updated > 0) {
      ctx.Notify(keyspace_events::kZset, flags.incr ? "zincr" : "zadd", key);
      FinishCollectionWrite(ctx, key, obj);
    } else if (obj->EmptyCollection()) {
      ctx.keyspace().Delete(ctx.db(), key);  // made for the command, never a key of its own
    }
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
    for (size_t i = 2; i < ctx.args.size() && !z.empty(); ++i) removed += z.Erase(ctx.args[i]);
    if (removed > 0) {
      ctx.Notify(keyspace_events::kZset, "zrem", ctx.args[1]);
      FinishCollectionWrite(ctx, ctx.args[1], obj);
    }
  }
  ctx.out.Integer(removed);
}

// ZCARD key
void CmdZCard(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  ctx.out.Integer(obj == nullptr ? 0 : static_cast<int64_t>(obj->zset().size()));
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

// Pops n (> 0, at most its size) entries from the min (or max) end of the set at key, replying
// each as [member, score] when pairs, else flat member, score; raises the event and deletes an
// emptied key.
void PopEntries(CommandContext& ctx, std::string_view key, Object* obj, bool max, size_t n,
                bool pairs) {
  ZSetValue& z = obj->zset();
  size_t left = n;
  z.VisitFrom(max ? z.size() - 1 : 0, max, [&](std::string_view member, double score) {
    if (pairs) ctx.out.ArrayHeader(2);
    ctx.out.Bulk(member);
    ctx.out.Double(score);
    return --left > 0;
  });
  if (max) {
    z.EraseRanks(z.size() - n, z.size() - 1);
  } else {
    z.EraseRanks(0, n - 1);
  }
  ctx.Notify(keyspace_events::kZset, max ? "zpopmax" : "zpopmin", key);
  FinishCollectionWrite(ctx, key, obj);
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
  if (ctx.args.size() == 3 && !ParseNonNegative(ctx.args[2], &count)) {
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
  const size_t n = count == -1 ? 1 : std::min(static_cast<size_t>(count), obj->zset().size());
  ctx.out.ArrayHeader(static_cast<int64_t>(nested ? n : 2 * n));
  PopEntries(ctx, key, obj, max, n, nested);
}

void CmdZPopMin(CommandContext& ctx) { ZPopCommand(ctx, false); }
void CmdZPopMax(CommandContext& ctx) { ZPopCommand(ctx, true); }

// The log's record of a pop: ZPOPMIN|ZPOPMAX key [count], as Redis propagates the blocking and
// multi-key pops.
void PropagatePop(CommandContext& ctx, std::string_view key, bool max, std::optional<size_t> n) {
  if (ctx.propagate == nullptr) return;
  *ctx.propagate = {max ? "zpopmax" : "zpopmin", std::string(key)};
  if (n) ctx.propagate->push_back(std::to_string(*n));
}

// BZPOPMIN / BZPOPMAX key [key ...] timeout: [key, member, score].
void BlockingZPop(CommandContext& ctx, bool max) {
  int64_t timeout_ms;
  if (!ParseBlockTimeout(ctx, ctx.args.back(), TimeoutUnit::kSeconds, &timeout_ms)) return;
  std::span<const std::string_view> keys = ctx.args.subspan(1, ctx.args.size() - 2);
  size_t index;
  bool wrong_type;
  Object* obj = FirstCollectionForWrite(ctx, keys, ObjType::kZSet, &index, &wrong_type);
  if (wrong_type) return;
  if (obj != nullptr) {
    ctx.out.ArrayHeader(3);
    ctx.out.Bulk(keys[index]);
    PopEntries(ctx, keys[index], obj, max, 1, /*pairs=*/false);
    PropagatePop(ctx, keys[index], max, std::nullopt);
    return;
  }
  if (BlockOn(ctx, keys, timeout_ms, ObjType::kZSet)) return;
  ctx.out.NullArray();
}

// BZPOPMIN key [key ...] timeout
void CmdBZPopMin(CommandContext& ctx) { BlockingZPop(ctx, false); }
// BZPOPMAX key [key ...] timeout
void CmdBZPopMax(CommandContext& ctx) { BlockingZPop(ctx, true); }

// ZMPOP / BZMPOP's arguments after the timeout: numkeys key [key ...] MIN|MAX [COUNT count].
// Replies [key, [[member, score] ...]] in both protocols.
void ZMultiPop(CommandContext& ctx, std::span<const std::string_view> args,
               std::optional<int64_t> timeout_ms) {
  MPopArgs parsed;
  if (!ParseMPopArgs(ctx, args, "min", "max", &parsed)) return;
  size_t index;
  bool wrong_type;
  Object* obj = FirstCollectionForWrite(ctx, parsed.keys, ObjType::kZSet, &index, &wrong_type);
  if (wrong_type) return;
  if (obj != nullptr) {
    const std::string_view key = parsed.keys[index];
    const size_t n = std::min(static_cast<size_t>(parsed.count), obj->zset().size());
    ctx.out.ArrayHeader(2);
    ctx.out.Bulk(key);
    ctx.out.ArrayHeader(static_cast<int64_t>(n));
    PopEntries(ctx, key, obj, parsed.second, n, /*pairs=*/true);
    PropagatePop(ctx, key, parsed.second, n);
    return;
  }
  if (timeout_ms && BlockOn(ctx, parsed.keys, *timeout_ms, ObjType::kZSet)) return;
  ctx.out.NullArray();
}

// ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]
void CmdZMPop(CommandContext& ctx) { ZMultiPop(ctx, ctx.args.subspan(1), std::nullopt); }

// BZMPOP timeout numkeys key [key ...] MIN|MAX [COUNT count]
void CmdBZMPop(CommandContext& ctx) {
  int64_t timeout_ms;
  if (!ParseBlockTimeout(ctx, ctx.args[1], TimeoutUnit::kSeconds, &timeout_ms)) return;
  ZMultiPop(ctx, ctx.args.subspan(2), timeout_ms);
}

// ZRANK key member / ZREVRANK key member
void ZRankCommand(CommandContext& ctx, bool reverse) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  std::optional<size_t> rank;
  if (obj != nullptr) rank = obj->zset().Rank(ctx.args[2]);
  if (!rank) {
    ctx.out.NullBulk();
  } else {
    const size_t size = obj->zset().size();
    ctx.out.Integer(static_cast<int64_t>(reverse ? size - 1 - *rank : *rank));
  }
}

void CmdZRank(CommandContext& ctx) { ZRankCommand(ctx, false); }
void CmdZRevRank(CommandContext& ctx) { ZRankCommand(ctx, true); }

// ZRANDMEMBER key [count [WITHSCORES]]
// Each member is found by a random rank (O(log n)). A negative count allows repeats; a positive
// one asks for distinct members: the whole set when it has no more than count, else count
// distinct ranks (SampleDistinctPositions).
void CmdZRandMember(CommandContext& ctx) {
  bool has_count, withscores;
  int64_t count;
  if (!ParseRandomPairArgs(ctx, "withscores", &has_count, &count, &withscores)) return;
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ReplyNoRandomMembers(ctx, has_count);
    return;
  }
  const ZSetValue& z = obj->zset();
  const size_t size = z.size();  // a stored set is not empty
  std::uniform_int_distribution<size_t> pick(0, size - 1);
  auto reply_rank = [&](size_t rank) {
    z.VisitFrom(rank, false, [&](std::string_view member, double score) {
      ReplyEntry(ctx, member, score, withscores);
      return false;
    });
  };
  if (!has_count) {
    z.VisitFrom(pick(CommandRng()), false, [&](std::string_view member, double) {
      ctx.out.Bulk(member);
      return false;
    });
    return;
  }
  const uint64_t n = count < 0 ? 0 - static_cast<uint64_t>(count) : static_cast<uint64_t>(count);
  if (n == 0) {
    ctx.out.ArrayHeader(0);
    return;
  }
  if (count < 0 || n == 1) {
    if (n > kMaxRandomReplyElements) {
      ctx.out.Error(errors::kOutOfRange);
      return;
    }
    ReplyEntriesHeader(ctx, n, withscores);
    for (uint64_t i = 0; i < n; ++i) reply_rank(pick(CommandRng()));
    return;
  }
  if (n >= size) {
    // The whole set, from the highest entry down, as Redis's zuiNext walks it.
    ReplyEntriesHeader(ctx, size, withscores);
    z.VisitFrom(size - 1, true, [&](std::string_view member, double score) {
      ReplyEntry(ctx, member, score, withscores);
      return true;
    });
    return;
  }
  ReplyEntriesHeader(ctx, n, withscores);
  SampleDistinctPositions(size, n, reply_rank);
}

// ZSCAN key cursor [MATCH pattern] [COUNT count]: one reply (BeginCollectionScan), in order. A
// rank cursor would be cheap but would break SCAN's guarantee: ranks shift when entries before
// the cursor change, so a member present throughout could be skipped. Scores are bulk strings in
// both protocols, as Redis sends them.
void CmdZScan(CommandContext& ctx) {
  std::string_view pattern;
  Object* obj = BeginCollectionScan(ctx, ObjType::kZSet, &pattern);
  if (obj == nullptr) return;
  const bool use_pattern = !pattern.empty();
  const ZSetValue& z = obj->zset();
  std::vector<std::pair<std::string_view, double>> found;  // views into z, unchanged meanwhile
  if (!use_pattern) found.reserve(z.size());
  z.VisitFrom(0, false, [&](std::string_view member, double score) {
    if (!use_pattern || GlobMatch(pattern, member)) found.emplace_back(member, score);
    return true;
  });
  ctx.out.ArrayHeader(2);
  ctx.out.Bulk("0");
  ctx.out.ArrayHeader(static_cast<int64_t>(2 * found.size()));
  for (const auto& [member, score] : found) {
    ctx.out.Bulk(member);
    ctx.out.BulkDouble(score);
  }
}

}  // namespace

void RegisterZSetFamily(CommandTable* table) {
  using namespace cmd;
  constexpr uint32_t kW = kWrite | kDenyOom;
  constexpr std::string_view kGroup = "sorted-set";  // COMMAND DOCS group, as Redis names it
  // One row per command.
  // clang-format off
  table->Register({
      {"zadd", -4, kW | kFast, 1, 1, 1, CmdZAdd, kGroup, "Add one or more members to a sorted set, or update its score if it already exists"},
      {"zincrby", 4, kW | kFast, 1, 1, 1, CmdZIncrBy, kGroup, "Increment the score of a member in a sorted set"},
      {"zrem", -3, kWrite | kFast, 1, 1, 1, CmdZRem, kGroup, "Remove one or more members from a sorted set"},
      {"zcard", 2, kReadonly | kFast, 1, 1, 1, CmdZCard, kGroup, "Get the number of members in a sorted set"},
      {"zscore", 3, kReadonly | kFast, 1, 1, 1, CmdZScore, kGroup, "Get the score associated with the given member in a sorted set"},
      {"zmscore", -3, kReadonly | kFast, 1, 1, 1, CmdZMScore, kGroup, "Get the score associated with the given members in a sorted set"},
      {"zpopmin", -2, kWrite | kFast, 1, 1, 1, CmdZPopMin, kGroup, "Remove and return members with the lowest scores in a sorted set"},
      {"zpopmax", -2, kWrite | kFast, 1, 1, 1, CmdZPopMax, kGroup, "Remove and return members with the highest scores in a sorted set"},
      {"bzpopmin", -3, kWrite | kNoScript | kBlocking | kFast, 1, -2, 1, CmdBZPopMin, kGroup, "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available"},
      {"bzpopmax", -3, kWrite | kNoScript | kBlocking | kFast, 1, -2, 1, CmdBZPopMax, kGroup, "Remove and return the member with the highest score from one or more sorted sets, or block until one is available"},
      {"zmpop", -4, kWrite, 0, 0, 0, CmdZMPop, kGroup, "Remove and return members with scores in a sorted set", {}, 1},
      {"bzmpop", -5, kWrite | kBlocking, 0, 0, 0, CmdBZMPop, kGroup, "Remove and return members with scores in a sorted set or block until one is available", {}, 2},
      {"zrank", 3, kReadonly | kFast, 1, 1, 1, CmdZRank, kGroup, "Determine the index of a member in a sorted set"},
      {"zrevrank", 3, kReadonly | kFast, 1, 1, 1, CmdZRevRank, kGroup, "Determine the index of a member in a sorted set, with scores ordered from high to low"},
      {"zrandmember", -2, kReadonly, 1, 1, 1, CmdZRandMember, kGroup, "Get one or multiple random elements from a sorted set"},
      {"zscan", -3, kReadonly, 1, 1, 1, CmdZScan, kGroup, "Incrementally iterate sorted sets elements and associated scores"},
  });
  // clang-format on
}

}  // namespace ordis::server
