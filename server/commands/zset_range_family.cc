// Sorted-set range commands: ZRANGE ZREVRANGE ZRANGEBYSCORE ZREVRANGEBYSCORE ZRANGEBYLEX
// ZREVRANGEBYLEX ZRANGESTORE ZCOUNT ZLEXCOUNT ZREMRANGEBYRANK ZREMRANGEBYSCORE ZREMRANGEBYLEX.
//
// Every range becomes an interval of ascending ranks (zset_access.h: two O(log n) searches), so a
// count costs O(log n) and a read or removal O(log n + m), as in Redis. LIMIT moves within the
// interval, and a reverse range walks it from its top.
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>

#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/zset_access.h"

namespace ordis::server {
namespace {

// What the range arguments select by; kAuto until an option or the command decides.
enum class RangeBy { kAuto, kRank, kScore, kLex };
enum class Direction { kAuto, kForward, kReverse };

struct RangeRequest {
  RangeBy by = RangeBy::kRank;
  bool reverse = false;
  bool withscores = false;
  int64_t offset = 0;           // LIMIT offset count
  int64_t count = -1;           // negative: no limit
  int64_t start = 0, stop = 0;  // by rank
  ScoreRange score;             // by score
  LexRange lex;                 // by lex
};

// Redis's zrangeGenericCommand, steps 1 and 2: the source key is args[key_arg], the two range
// arguments follow it, then the options (no WITHSCORES when storing; REV, BYSCORE and BYLEX only
// where the command leaves them open). Replies the error and returns false for a bad request.
// Errors come in Redis's order: options, conflicts between them, then the range arguments.
bool ParseRangeRequest(CommandContext& ctx, size_t key_arg, bool store, RangeBy by,
                       Direction direction, RangeRequest* req) {
  bool limit = false;
  ArgParser p(ctx.args, key_arg + 3);
  while (p.HasNext() && p.ok()) {
    if (!store && p.Accept("WITHSCORES")) {
      req->withscores = true;
    } else if (p.remaining() >= 3 && p.Accept("LIMIT")) {
      req->offset = p.NextInt();
      req->count = p.NextInt();
      limit = true;
    } else if (direction == Direction::kAuto && p.Accept("REV")) {
      direction = Direction::kReverse;
    } else if (by == RangeBy::kAuto && p.Accept("BYLEX")) {
      by = RangeBy::kLex;
    } else if (by == RangeBy::kAuto && p.Accept("BYSCORE")) {
      by = RangeBy::kScore;
    } else {
      p.Fail(errors::kSyntax);
    }
  }
  if (!p.ok()) {
    ctx.out.Error(p.error());
    return false;
  }
  req->by = by == RangeBy::kAuto ? RangeBy::kRank : by;
  req->reverse = direction == Direction::kReverse;
  // Redis tests the count against -1, so "LIMIT 5 -1" passes with a rank range (and is ignored).
  if (limit && req->count != -1 && req->by == RangeBy::kRank) {
    ctx.out.Error(errors::kLimitNeedsByScoreOrLex);
    return false;
  }
  if (req->withscores && req->by == RangeBy::kLex) {
    ctx.out.Error(errors::kWithScoresByLex);
    return false;
  }
  std::string_view min = ctx.args[key_arg + 1], max = ctx.args[key_arg + 2];
  // A reverse score or lex range is written max first.
  if (req->reverse && req->by != RangeBy::kRank) std::swap(min, max);
  switch (req->by) {
    case RangeBy::kAuto:
    case RangeBy::kRank:
      if (!ParseInt64(min, &req->start) || !ParseInt64(max, &req->stop)) {
        ctx.out.Error(errors::kNotInteger);
        return false;
      }
      break;
    case RangeBy::kScore:
      if (!ParseScoreRange(min, max, &req->score)) {
        ctx.out.Error(errors::kMinMaxNotFloat);
        return false;
      }
      break;
    case RangeBy::kLex:
      if (!ParseLexRange(min, max, &req->lex)) {
        ctx.out.Error(errors::kInvalidLexRange);
        return false;
      }
      break;
  }
  return true;
}

// A request's entries: count ranks from first, walking down when reverse.
struct RankWalk {
  size_t first = 0, count = 0;
  bool reverse = false;
};

// Redis's index sanitizing for a rank range (negative counts from the end; out-of-range parts
// clipped), as the ascending interval [*first, *last]. False when it selects nothing.
bool ClipRankRange(int64_t start, int64_t stop, size_t size, size_t* first, size_t* last) {
  const auto n = static_cast<int64_t>(size);
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  if (start < 0) start = 0;
  if (start > stop || start >= n) return false;
  if (stop >= n) stop = n - 1;
  *first = static_cast<size_t>(start);
  *last = static_cast<size_t>(stop);
  return true;
}

RankWalk SelectRanks(const ZSetValue& z, const RangeRequest& req) {
  RankWalk walk;
  walk.reverse = req.reverse;
  if (req.by == RangeBy::kRank) {
    size_t first, last;
    if (!ClipRankRange(req.start, req.stop, z.size(), &first, &last)) return walk;
    walk.count = last - first + 1;
    // Ranks of a reverse range count from the top.
    walk.first = req.reverse ? z.size() - 1 - first : first;
    return walk;
  }
  const RankInterval in =
      req.by == RangeBy::kScore ? RanksInScoreRange(z, req.score) : RanksInLexRange(z, req.lex);
  // A negative offset selects nothing: Redis skips entries until it walks off the set.
  if (req.offset < 0 || static_cast<uint64_t>(req.offset) >= in.size()) return walk;
  const size_t offset = static_cast<size_t>(req.offset);
  const size_t available = in.size() - offset;
  walk.count =
      req.count < 0
          ? available
          : static_cast<size_t>(std::min<uint64_t>(available, static_cast<uint64_t>(req.count)));
  walk.first = req.reverse ? in.end - 1 - offset : in.first + offset;
  return walk;
}

// Calls visit(member, score) for the walk's entries, in its order.
template <typename Visit>
void VisitWalk(const ZSetValue& z, const RankWalk& walk, Visit visit) {
  if (walk.count == 0) return;
  size_t left = walk.count;
  z.VisitFrom(walk.first, walk.reverse, [&](std::string_view member, double score) {
    visit(member, score);
    return --left > 0;
  });
}

// ZRANGE key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
// ZREVRANGE key start stop [WITHSCORES]
// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
// ZRANGEBYLEX key min max [LIMIT offset count]
// ZREVRANGEBYLEX key max min [LIMIT offset count]
void ZRangeGeneric(CommandContext& ctx, RangeBy by, Direction direction) {
  RangeRequest req;
  if (!ParseRangeRequest(ctx, 1, /*store=*/false, by, direction, &req)) return;
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.ArrayHeader(0);
    return;
  }
  const ZSetValue& z = obj->zset();
  const RankWalk walk = SelectRanks(z, req);
  ReplyEntriesHeader(ctx, walk.count, req.withscores);
  VisitWalk(z, walk, [&](std::string_view member, double score) {
    ReplyEntry(ctx, member, score, req.withscores);
  });
}

void CmdZRange(CommandContext& ctx) { ZRangeGeneric(ctx, RangeBy::kAuto, Direction::kAuto); }
void CmdZRevRange(CommandContext& ctx) { ZRangeGeneric(ctx, RangeBy::kRank, Direction::kReverse); }
void CmdZRangeByScore(CommandContext& ctx) {
  ZRangeGeneric(ctx, RangeBy::kScore, Direction::kForward);
}
void CmdZRevRangeByScore(CommandContext& ctx) {
  ZRangeGeneric(ctx, RangeBy::kScore, Direction::kReverse);
}
void CmdZRangeByLex(CommandContext& ctx) { ZRangeGeneric(ctx, RangeBy::kLex, Direction::kForward); }
void CmdZRevRangeByLex(CommandContext& ctx) {
  ZRangeGeneric(ctx, RangeBy::kLex, Direction::kReverse);
}

// ZRANGESTORE dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]
// The selection is copied into a new set before dst is replaced, so dst may be src.
void CmdZRangeStore(CommandContext& ctx) {
  RangeRequest req;
  if (!ParseRangeRequest(ctx, 2, /*store=*/true, RangeBy::kAuto, Direction::kAuto, &req)) return;
  bool wrong_type;
  Object* src = FindCollectionForRead(ctx, ctx.args[2], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  ZSetValue result;
  if (src != nullptr) {
    const ZSetValue& z = src->zset();
    const ZSetLimits limits = ZSetLimitsOf(ctx);
    VisitWalk(z, SelectRanks(z, req),
              [&](std::string_view member, double score) { result.Insert(member, score, limits); });
  }
  StoreZSetResult(ctx, ctx.args[1], std::move(result), "zrangestore");
}

// ZCOUNT key min max
void CmdZCount(CommandContext& ctx) {
  ScoreRange range;
  if (!ParseScoreRange(ctx.args[2], ctx.args[3], &range)) {
    ctx.out.Error(errors::kMinMaxNotFloat);
    return;
  }
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  const size_t n = obj == nullptr ? 0 : RanksInScoreRange(obj->zset(), range).size();
  ctx.out.Integer(static_cast<int64_t>(n));
}

// ZLEXCOUNT key min max
void CmdZLexCount(CommandContext& ctx) {
  LexRange range;
  if (!ParseLexRange(ctx.args[2], ctx.args[3], &range)) {
    ctx.out.Error(errors::kInvalidLexRange);
    return;
  }
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kZSet, &wrong_type);
  if (wrong_type) return;
  const size_t n = obj == nullptr ? 0 : RanksInLexRange(obj->zset(), range).size();
  ctx.out.Integer(static_cast<int64_t>(n));
}

// ZREMRANGEBYRANK key start stop / ZREMRANGEBYSCORE key min max / ZREMRANGEBYLEX key min max
// Redis's zremrangeGenericCommand: the range is parsed before the key is looked at.
void ZRemRangeGeneric(CommandContext& ctx, RangeBy by) {
  int64_t start = 0, stop = 0;
  ScoreRange score;
  LexRange lex;
  bool ok = true;
  switch (by) {
    case RangeBy::kAuto:
    case RangeBy::kRank:
      ok = ParseInt64(ctx.args[2], &start) && ParseInt64(ctx.args[3], &stop);
      if (!ok) ctx.out.Error(errors::kNotInteger);
      break;
    case RangeBy::kScore:
      ok = ParseScoreRange(ctx.args[2], ctx.args[3], &score);
      if (!ok) ctx.out.Error(errors::kMinMaxNotFloat);
      break;
    case RangeBy::kLex:
      ok = ParseLexRange(ctx.args[2], ctx.args[3], &lex);
      if (!ok) ctx.out.Error(errors::kInvalidLexRange);
      break;
  }
  if (!ok) return;
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kZSet, false, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  ZSetValue& z = obj->zset();
  RankInterval in;
  if (by == RangeBy::kScore) {
    in = RanksInScoreRange(z, score);
  } else if (by == RangeBy::kLex) {
    in = RanksInLexRange(z, lex);
  } else {
    size_t last;
    if (ClipRankRange(start, stop, z.size(), &in.first, &last)) in.end = last + 1;
  }
  const size_t removed = in.size();
  if (removed > 0) {
    z.EraseRanks(in.first, in.end - 1);
    ctx.Notify(keyspace_events::kZset,
               by == RangeBy::kScore ? "zremrangebyscore"
               : by == RangeBy::kLex ? "zremrangebylex"
                                     : "zremrangebyrank",
               key);
    FinishCollectionWrite(ctx, key, obj);
  }
  ctx.out.Integer(static_cast<int64_t>(removed));
}

void CmdZRemRangeByRank(CommandContext& ctx) { ZRemRangeGeneric(ctx, RangeBy::kRank); }
void CmdZRemRangeByScore(CommandContext& ctx) { ZRemRangeGeneric(ctx, RangeBy::kScore); }
void CmdZRemRangeByLex(CommandContext& ctx) { ZRemRangeGeneric(ctx, RangeBy::kLex); }

}  // namespace

void RegisterZSetRangeFamily(CommandTable* table) {
  using namespace cmd;
  constexpr std::string_view kGroup = "sorted-set";  // COMMAND DOCS group, as Redis names it
  // One row per command.
  // clang-format off
  table->Register({
      {"zrange", -4, kReadonly, 1, 1, 1, CmdZRange, kGroup, "Return a range of members in a sorted set"},
      {"zrevrange", -4, kReadonly, 1, 1, 1, CmdZRevRange, kGroup, "Return a range of members in a sorted set, by index, with scores ordered from high to low"},
      {"zrangebyscore", -4, kReadonly, 1, 1, 1, CmdZRangeByScore, kGroup, "Return a range of members in a sorted set, by score"},
      {"zrevrangebyscore", -4, kReadonly, 1, 1, 1, CmdZRevRangeByScore, kGroup, "Return a range of members in a sorted set, by score, with scores ordered from high to low"},
      {"zrangebylex", -4, kReadonly, 1, 1, 1, CmdZRangeByLex, kGroup, "Return a range of members in a sorted set, by lexicographical range"},
      {"zrevrangebylex", -4, kReadonly, 1, 1, 1, CmdZRevRangeByLex, kGroup, "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings."},
      {"zrangestore", -5, kWrite | kDenyOom, 1, 2, 1, CmdZRangeStore, kGroup, "Store a range of members from sorted set into another key"},
      {"zcount", 4, kReadonly | kFast, 1, 1, 1, CmdZCount, kGroup, "Count the members in a sorted set with scores within the given values"},
      {"zlexcount", 4, kReadonly | kFast, 1, 1, 1, CmdZLexCount, kGroup, "Count the number of members in a sorted set between a given lexicographical range"},
      {"zremrangebyrank", 4, kWrite, 1, 1, 1, CmdZRemRangeByRank, kGroup, "Remove all members in a sorted set within the given indexes"},
      {"zremrangebyscore", 4, kWrite, 1, 1, 1, CmdZRemRangeByScore, kGroup, "Remove all members in a sorted set within the given scores"},
      {"zremrangebylex", 4, kWrite, 1, 1, 1, CmdZRemRangeByLex, kGroup, "Remove all members in a sorted set between the given lexicographical range"},
  });
  // clang-format on
}

}  // namespace ordis::server
