// Sorted-set algebra: ZUNION ZINTER ZDIFF ZUNIONSTORE ZINTERSTORE ZDIFFSTORE ZINTERCARD.
//
// As Redis's zunionInterDiffGenericCommand: the inputs may be sorted sets or plain sets (every
// member of a plain set scores 1); a missing key is an empty input. The result is computed as
// (member view, score) pairs into the inputs, sorted by (score, member), then replied or copied
// into a new set for the destination (which may be one of the inputs).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/zset_access.h"

namespace ordis::server {
namespace {

enum class ZSetOp { kUnion, kInter, kDiff };
enum class Aggregate { kSum, kMin, kMax };

// One input key: a sorted set, a plain set, or neither (a missing key).
struct Input {
  const ZSetValue* zset = nullptr;
  const SetValue* set = nullptr;
  double weight = 1;

  size_t size() const { return zset ? zset->size() : set ? set->size() : 0; }
  // The member's unweighted score, or nullopt if it is absent.
  std::optional<double> Score(std::string_view member) const {
    if (zset) return zset->Score(member);
    if (set && set->contains(member)) return 1.0;
    return std::nullopt;
  }
  // Calls visit(member, unweighted score) for every entry.
  template <typename Visit>
  void ForEach(Visit visit) const {
    if (zset && !zset->empty()) {
      zset->VisitFrom(0, false, [&](std::string_view member, double score) {
        visit(member, score);
        return true;
      });
    } else if (set) {
      for (const std::string& member : *set) visit(std::string_view(member), 1.0);
    }
  }
};

struct AlgebraRequest {
  std::vector<Input> inputs;
  Aggregate aggregate = Aggregate::kSum;
  bool withscores = false;
  int64_t limit = 0;  // ZINTERCARD: stop counting there; 0 means no limit
};

// Redis's zunionInterDiffGenericCommand up to the computation: numkeys at args[numkeys_arg], the
// keys after it, then the options the command takes (WEIGHTS and AGGREGATE but for ZDIFF and
// ZINTERCARD, WITHSCORES when not storing, LIMIT for ZINTERCARD only). The keys are looked up
// (WRONGTYPE for anything but a sorted set or a set) before the options are read, as in Redis.
// Replies the error and returns false for a bad request.
bool ParseAlgebraRequest(CommandContext& ctx, size_t numkeys_arg, ZSetOp op, bool store,
                         bool cardinality_only, AlgebraRequest* req) {
  int64_t numkeys;
  if (!ParseInt64(ctx.args[numkeys_arg], &numkeys)) {
    ctx.out.Error(errors::kNotInteger);
    return false;
  }
  if (numkeys < 1) {
    ctx.out.Error(errors::AtLeastOneInputKey(ctx.args[0]));
    return false;
  }
  const size_t first_key = numkeys_arg + 1;
  if (static_cast<uint64_t>(numkeys) > ctx.args.size() - first_key) {
    ctx.out.Error(errors::kSyntax);
    return false;
  }
  const auto n = static_cast<size_t>(numkeys);
  req->inputs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    Object* obj = LookupRead(ctx, ctx.args[first_key + i]);
    if (obj == nullptr) continue;
    if (obj->type() == ObjType::kZSet) {
      req->inputs[i].zset = &obj->zset();
    } else if (obj->type() == ObjType::kSet) {
      req->inputs[i].set = &obj->set();
    } else {
      ctx.out.Error(errors::kWrongType);
      return false;
    }
  }
  const bool weighted = op != ZSetOp::kDiff && !cardinality_only;
  ArgParser p(ctx.args, first_key + n);
  while (p.HasNext() && p.ok()) {
    if (weighted && p.remaining() >= n + 1 && p.Accept("WEIGHTS")) {
      for (size_t i = 0; i < n && p.ok(); ++i) {
        if (!ParseDouble(p.Next(), &req->inputs[i].weight)) p.Fail(errors::kWeightNotFloat);
      }
    } else if (weighted && p.remaining() >= 2 && p.Accept("AGGREGATE")) {
      if (p.Accept("SUM")) {
        req->aggregate = Aggregate::kSum;
      } else if (p.Accept("MIN")) {
        req->aggregate = Aggregate::kMin;
      } else if (p.Accept("MAX")) {
        req->aggregate = Aggregate::kMax;
      } else {
        p.Fail(errors::kSyntax);
      }
    } else if (!store && !cardinality_only && p.Accept("WITHSCORES")) {
      req->withscores = true;
    } else if (cardinality_only && p.remaining() >= 2 && p.Accept("LIMIT")) {
      if (!ParseNonNegative(p.Next(), &req->limit)) p.Fail(errors::kLimitNegative);
    } else {
      p.Fail(errors::kSyntax);
    }
  }
  if (!p.ok()) {
    ctx.out.Error(p.error());
    return false;
  }
  return true;
}

// Redis's zunionInterAggregate: a SUM of +inf and -inf is 0; MIN and MAX keep the target when
// value is NaN.
void AggregateInto(double* target, double value, Aggregate aggregate) {
  switch (aggregate) {
    case Aggregate::kSum:
      *target += value;
      if (std::isnan(*target)) *target = 0;
      break;
    case Aggregate::kMin:
      *target = value < *target ? value : *target;
      break;
    case Aggregate::kMax:
      *target = value > *target ? value : *target;
      break;
  }
}

using Entries = std::vector<std::pair<std::string_view, double>>;

// The intersection, in the order of the smallest input; for a non-zero limit, at most that many
// entries. inputs are sorted by size.
Entries Intersect(const std::vector<Input>& inputs, Aggregate aggregate, size_t limit) {
  Entries out;
  if (inputs[0].size() == 0) return out;
  bool done = false;
  inputs[0].ForEach([&](std::string_view member, double score) {
    if (done) return;
    double total = inputs[0].weight * score;
    if (std::isnan(total)) total = 0;
    for (size_t j = 1; j < inputs.size(); ++j) {
      std::optional<double> other = inputs[j].Score(member);
      if (!other) return;
      AggregateInto(&total, *other * inputs[j].weight, aggregate);
    }
    out.emplace_back(member, total);
    done = limit != 0 && out.size() >= limit;
  });
  return out;
}

// The result of op as entries sorted by (score, member), views into the inputs.
Entries Compute(ZSetOp op, AlgebraRequest& req) {
  std::vector<Input>& inputs = req.inputs;
  // Smallest first, as Redis orders them (which also fixes the order in which SUM adds scores).
  if (op != ZSetOp::kDiff) {
    std::stable_sort(inputs.begin(), inputs.end(),
                     [](const Input& a, const Input& b) { return a.size() < b.size(); });
  }
  Entries out;
  switch (op) {
    case ZSetOp::kInter:
      out = Intersect(inputs, req.aggregate, 0);
      break;
    case ZSetOp::kUnion: {
      absl::flat_hash_map<std::string_view, double> scores;
      scores.reserve(inputs.back().size());
      for (const Input& in : inputs) {
        in.ForEach([&](std::string_view member, double score) {
          double weighted = in.weight * score;
          if (std::isnan(weighted)) weighted = 0;
          auto [it, added] = scores.try_emplace(member, weighted);
          if (!added) AggregateInto(&it->second, weighted, req.aggregate);
        });
      }
      out.assign(scores.begin(), scores.end());
      break;
    }
    case ZSetOp::kDiff:
      inputs[0].ForEach([&](std::string_view member, double score) {
        for (size_t j = 1; j < inputs.size(); ++j) {
          if (inputs[j].Score(member)) return;
        }
        out.emplace_back(member, score);
      });
      break;
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second < b.second || (a.second == b.second && a.first < b.first);
  });
  return out;
}

// ZUNION numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
// ZINTER numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
// ZDIFF numkeys key [key ...] [WITHSCORES]
void ZAlgebra(CommandContext& ctx, ZSetOp op) {
  AlgebraRequest req;
  if (!ParseAlgebraRequest(ctx, 1, op, /*store=*/false, /*cardinality_only=*/false, &req)) return;
  const Entries entries = Compute(op, req);
  ReplyEntriesHeader(ctx, entries.size(), req.withscores);
  for (const auto& [member, score] : entries) ReplyEntry(ctx, member, score, req.withscores);
}

void CmdZUnion(CommandContext& ctx) { ZAlgebra(ctx, ZSetOp::kUnion); }
void CmdZInter(CommandContext& ctx) { ZAlgebra(ctx, ZSetOp::kInter); }
void CmdZDiff(CommandContext& ctx) { ZAlgebra(ctx, ZSetOp::kDiff); }

// ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX]
// ZINTERSTORE destination numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX]
// ZDIFFSTORE destination numkeys key [key ...]
void ZAlgebraStore(CommandContext& ctx, ZSetOp op) {
  AlgebraRequest req;
  if (!ParseAlgebraRequest(ctx, 2, op, /*store=*/true, /*cardinality_only=*/false, &req)) return;
  const Entries entries = Compute(op, req);
  // Copied before the destination is replaced: it may be one of the inputs.
  ZSetValue result;
  const ZSetLimits limits = ZSetLimitsOf(ctx);
  for (const auto& [member, score] : entries) result.Insert(member, score, limits);
  StoreZSetResult(ctx, ctx.args[1], std::move(result),
                  op == ZSetOp::kUnion   ? "zunionstore"
                  : op == ZSetOp::kInter ? "zinterstore"
                                         : "zdiffstore");
}

void CmdZUnionStore(CommandContext& ctx) { ZAlgebraStore(ctx, ZSetOp::kUnion); }
void CmdZInterStore(CommandContext& ctx) { ZAlgebraStore(ctx, ZSetOp::kInter); }
void CmdZDiffStore(CommandContext& ctx) { ZAlgebraStore(ctx, ZSetOp::kDiff); }

// ZINTERCARD numkeys key [key ...] [LIMIT limit]
void CmdZInterCard(CommandContext& ctx) {
  AlgebraRequest req;
  if (!ParseAlgebraRequest(ctx, 1, ZSetOp::kInter, /*store=*/false, /*cardinality_only=*/true,
                           &req)) {
    return;
  }
  std::stable_sort(req.inputs.begin(), req.inputs.end(),
                   [](const Input& a, const Input& b) { return a.size() < b.size(); });
  const Entries entries = Intersect(req.inputs, Aggregate::kSum, static_cast<size_t>(req.limit));
  ctx.out.Integer(static_cast<int64_t>(entries.size()));
}

}  // namespace

void RegisterZSetAlgebraFamily(CommandTable* table) {
  using namespace cmd;
  constexpr uint32_t kW = kWrite | kDenyOom;
  constexpr std::string_view kGroup = "sorted-set";  // COMMAND DOCS group, as Redis names it
  // Redis's legacy key positions name only the destination (1 1 1) or nothing (0 0 0): the
  // inputs are found through numkeys (movablekeys), the argument numkeys_arg names.
  // One row per command.
  // clang-format off
  table->Register({
      {"zunion", -3, kReadonly, 0, 0, 0, CmdZUnion, kGroup, "Add multiple sorted sets", {}, 1},
      {"zinter", -3, kReadonly, 0, 0, 0, CmdZInter, kGroup, "Intersect multiple sorted sets", {}, 1},
      {"zdiff", -3, kReadonly, 0, 0, 0, CmdZDiff, kGroup, "Subtract multiple sorted sets", {}, 1},
      {"zunionstore", -4, kW, 1, 1, 1, CmdZUnionStore, kGroup, "Add multiple sorted sets and store the resulting sorted set in a new key", {}, 2},
      {"zinterstore", -4, kW, 1, 1, 1, CmdZInterStore, kGroup, "Intersect multiple sorted sets and store the resulting sorted set in a new key", {}, 2},
      {"zdiffstore", -4, kW, 1, 1, 1, CmdZDiffStore, kGroup, "Subtract multiple sorted sets and store the resulting sorted set in a new key", {}, 2},
      {"zintercard", -3, kReadonly, 0, 0, 0, CmdZInterCard, kGroup, "Intersect multiple sorted sets and return the cardinality of the result", {}, 1},
  });
  // clang-format on
}

}  // namespace ordis::server
