// Set commands: SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS SPOP SRANDMEMBER SMOVE SINTER SUNION
// SDIFF SINTERSTORE SUNIONSTORE SDIFFSTORE SINTERCARD SSCAN.
//
// Replies follow Redis 7.0: member lists that Redis sends as sets (SMEMBERS, SINTER, SUNION, SDIFF,
// SPOP with a count) use the RESP3 set type, SRANDMEMBER with a count an array. Member order is the
// set's (see set_value.h), which Redis does not promise either.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "base/glob.h"
#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/commands/collection_scan.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/random_members.h"

namespace ordis::server {
namespace {

void ReplyMembers(CommandContext& ctx, const SetValue& set) {
  ctx.out.SetHeader(static_cast<int64_t>(set.size()));
  for (const std::string& m : set) ctx.out.Bulk(m);
}

// SADD key member [member ...]
void CmdSAdd(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, ctx.args[1], ObjType::kSet, true, &wrong_type);
  if (wrong_type) return;
  SetValue& set = obj->set();
  int64_t added = 0;
  for (size_t i = 2; i < ctx.args.size(); ++i) added += set.insert(ctx.args[i]);
  if (added > 0) {
    ctx.Notify(keyspace_events::kSet, "sadd", ctx.args[1]);
    FinishCollectionWrite(ctx, ctx.args[1], obj);
  }
  ctx.out.Integer(added);
}

// SREM key member [member ...]
void CmdSRem(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, ctx.args[1], ObjType::kSet, false, &wrong_type);
  if (wrong_type) return;
  int64_t removed = 0;
  if (obj != nullptr) {
    SetValue& set = obj->set();
    for (size_t i = 2; i < ctx.args.size() && !set.empty(); ++i) {
      removed += set.erase(ctx.args[i]);
    }
    if (removed > 0) {
      ctx.Notify(keyspace_events::kSet, "srem", ctx.args[1]);
      FinishCollectionWrite(ctx, ctx.args[1], obj);
    }
  }
  ctx.out.Integer(removed);
}

// SCARD key
void CmdSCard(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kSet, &wrong_type);
  if (wrong_type) return;
  ctx.out.Integer(obj == nullptr ? 0 : static_cast<int64_t>(obj->set().size()));
}

// SISMEMBER key member
void CmdSIsMember(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kSet, &wrong_type);
  if (wrong_type) return;
  ctx.out.Integer(obj != nullptr && obj->set().contains(ctx.args[2]) ? 1 : 0);
}

// SMISMEMBER key member [member ...]
void CmdSMIsMember(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kSet, &wrong_type);
  if (wrong_type) return;
  ctx.out.ArrayHeader(static_cast<int64_t>(ctx.args.size() - 2));
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    ctx.out.Integer(obj != nullptr && obj->set().contains(ctx.args[i]) ? 1 : 0);
  }
}

// SMEMBERS key
void CmdSMembers(CommandContext& ctx) {
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kSet, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ctx.out.SetHeader(0);
  } else {
    ReplyMembers(ctx, obj->set());
  }
}

// SPOP key [count]
void CmdSPop(CommandContext& ctx) {
  if (ctx.args.size() > 3) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  const bool with_count = ctx.args.size() == 3;
  int64_t count = 1;
  if (with_count && !ParseNonNegative(ctx.args[2], &count)) {
    ctx.out.Error(errors::kNotPositive);
    return;
  }
  std::string_view key = ctx.args[1];
  bool wrong_type;
  Object* obj = FindCollectionForWrite(ctx, key, ObjType::kSet, false, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    if (with_count) {
      ctx.out.SetHeader(0);
    } else {
      ctx.out.NullBulk();
    }
    return;
  }
  SetValue& set = obj->set();
  // The pick is random: the log records the members removed (SREM), as Redis propagates it.
  std::vector<std::string>* removed = ctx.propagate;
  if (removed != nullptr) removed->assign({"SREM", std::string(key)});
  auto pop = [&] {
    std::string member = set.PopRandom(CommandRng());
    ctx.out.Bulk(member);
    if (removed != nullptr) removed->push_back(std::move(member));
  };
  if (!with_count) {
    pop();
  } else if (count == 0) {
    ctx.out.SetHeader(0);
    return;
  } else if (static_cast<uint64_t>(count) >= set.size()) {
    ReplyMembers(ctx, set);
    if (removed != nullptr) removed->assign({"DEL", std::string(key)});
    set.clear();
  } else {
    ctx.out.SetHeader(count);  // O(count): each pop is O(1) expected
    for (int64_t i = 0; i < count; ++i) pop();
  }
  ctx.Notify(keyspace_events::kSet, "spop", key);
  FinishCollectionWrite(ctx, key, obj);
}

// SRANDMEMBER key [count]
// A negative count returns |count| members, repeats allowed (at most kMaxRandomReplyElements,
// ordis's cap); a positive one distinct members.
void CmdSRandMember(CommandContext& ctx) {
  if (ctx.args.size() > 3) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  const bool with_count = ctx.args.size() == 3;
  int64_t count = 0;
  if (with_count && !ParseRandomCount(ctx, ctx.args[2], &count)) return;
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], ObjType::kSet, &wrong_type);
  if (wrong_type) return;
  if (obj == nullptr) {
    ReplyNoRandomMembers(ctx, with_count);
    return;
  }
  const SetValue& set = obj->set();
  if (!with_count) {
    ctx.out.Bulk(set.RandomMember(CommandRng()));
  } else if (count < 0) {
    if (static_cast<uint64_t>(-count) > kMaxRandomReplyElements) {  // ordis's cap, see command.h
      ctx.out.Error(errors::kOutOfRange);
      return;
    }
    // Independent uniform picks.
    ctx.out.ArrayHeader(-count);
    for (int64_t i = 0; i < -count; ++i) ctx.out.Bulk(set.RandomMember(CommandRng()));
  } else if (static_cast<uint64_t>(count) >= set.size()) {
    ctx.out.ArrayHeader(static_cast<int64_t>(set.size()));
    for (const std::string& m : set) ctx.out.Bulk(m);
  } else {
    ctx.out.ArrayHeader(count);
    SampleDistinctPositions(set.size(), static_cast<size_t>(count),
                            [&](size_t pos) { ctx.out.Bulk(set[pos]); });
  }
}

// SMOVE source destination member
void CmdSMove(CommandContext& ctx) {
  std::string_view src_key = ctx.args[1], dst_key = ctx.args[2], member = ctx.args[3];
  Keyspace& ks = ctx.keyspace();
  Object* src = ks.FindForWrite(ctx.db(), src_key, ctx.now_ms);
  Object* dst = ks.FindForWrite(ctx.db(), dst_key, ctx.now_ms);
  if (src == nullptr) {  // Redis answers 0 before looking at the destination's type
    ctx.out.Integer(0);
    return;
  }
  if (src->type() != ObjType::kSet || (dst != nullptr && dst->type() != ObjType::kSet)) {
    ctx.out.Error(errors::kWrongType);
    return;
  }
  RecordAccess(ctx, src);
  if (src == dst) {
    ctx.out.Integer(src->set().contains(member) ? 1 : 0);
    return;
  }
  if (!src->set().erase(member)) {
    ctx.out.Integer(0);
    return;
  }
  ctx.Notify(keyspace_events::kSet, "srem", src_key);
  FinishCollectionWrite(ctx, src_key, src);
  bool unused;
  dst = FindCollectionForWrite(ctx, dst_key, ObjType::kSet, true, &unused);
  if (dst->set().insert(member)) {
    ks.SignalModified(ctx.db(), dst_key);
    ctx.Notify(keyspace_events::kSet, "sadd", dst_key);
  }
  ctx.out.Integer(1);
}

// The sets at keys for reading, nullptr for a missing key. Returns false after replying WRONGTYPE
// for the first key of another type (missing keys before it do not stop the check, as in Redis).
bool LookupSets(CommandContext& ctx, std::span<const std::string_view> keys,
                std::vector<const SetValue*>* sets) {
  sets->clear();
  for (std::string_view key : keys) {
    bool wrong_type;
    Object* obj = FindCollectionForRead(ctx, key, ObjType::kSet, &wrong_type);
    if (wrong_type) return false;
    sets->push_back(obj == nullptr ? nullptr : &obj->set());
  }
  return true;
}

enum class SetOp { kUnion, kInter, kDiff };

// The members of op applied to sets (nullptr is an empty set) as views into them, valid while the
// sets are; each member once. For kInter a non-zero limit stops after that many members.
std::vector<std::string_view> OpSetAlgebra(SetOp op, std::vector<const SetValue*> sets,
                                           size_t limit = 0) {
  std::vector<std::string_view> out;
  switch (op) {
    case SetOp::kUnion: {
      absl::flat_hash_set<std::string_view> seen;
      for (const SetValue* s : sets) {
        if (s == nullptr) continue;
        for (const std::string& m : *s) {
          if (seen.insert(m).second) out.push_back(m);
        }
      }
      break;
    }
    case SetOp::kInter: {
      for (const SetValue* s : sets) {
        if (s == nullptr) return out;
      }
      // Walk the smallest set, probing the others.
      std::sort(sets.begin(), sets.end(),
                [](const SetValue* a, const SetValue* b) { return a->size() < b->size(); });
      for (const std::string& m : *sets[0]) {
        bool everywhere = true;
        for (size_t j = 1; j < sets.size() && everywhere; ++j) {
          everywhere = sets[j] == sets[0] || sets[j]->contains(m);
        }
        if (!everywhere) continue;
        out.push_back(m);
        if (limit != 0 && out.size() >= limit) break;
      }
      break;
    }
    case SetOp::kDiff: {
      if (sets[0] == nullptr) return out;
      for (const std::string& m : *sets[0]) {
        bool elsewhere = false;
        for (size_t j = 1; j < sets.size() && !elsewhere; ++j) {
          elsewhere = sets[j] != nullptr && (sets[j] == sets[0] || sets[j]->contains(m));
        }
        if (!elsewhere) out.push_back(m);
      }
      break;
    }
  }
  return out;
}

// SINTER key [key ...] / SUNION key [key ...] / SDIFF key [key ...]
void SetAlgebra(CommandContext& ctx, SetOp op) {
  std::vector<const SetValue*> sets;
  if (!LookupSets(ctx, ctx.args.subspan(1), &sets)) return;
  std::vector<std::string_view> members = OpSetAlgebra(op, std::move(sets));
  ctx.out.SetHeader(static_cast<int64_t>(members.size()));
  for (std::string_view m : members) ctx.out.Bulk(m);
}

void CmdSInter(CommandContext& ctx) { SetAlgebra(ctx, SetOp::kInter); }
void CmdSUnion(CommandContext& ctx) { SetAlgebra(ctx, SetOp::kUnion); }
void CmdSDiff(CommandContext& ctx) { SetAlgebra(ctx, SetOp::kDiff); }

// SINTERSTORE destination key [key ...] (and SUNIONSTORE, SDIFFSTORE)
// The destination is replaced (its TTL dropped) by the result, or deleted if the result is empty.
void SetAlgebraStore(CommandContext& ctx, SetOp op) {
  std::vector<const SetValue*> sets;
  if (!LookupSets(ctx, ctx.args.subspan(2), &sets)) return;
  std::vector<std::string_view> members = OpSetAlgebra(op, std::move(sets));
  std::string_view dst = ctx.args[1];
  Keyspace& ks = ctx.keyspace();
  if (members.empty()) {
    if (ks.FindForWrite(ctx.db(), dst, ctx.now_ms) != nullptr) {
      ks.Delete(ctx.db(), dst);
      ctx.Notify(keyspace_events::kGeneric, "del", dst);
    }
    ctx.out.Integer(0);
    return;
  }
  // Copy before Set(): dst may be one of the sources the views point into.
  auto result = NewObject(ObjType::kSet);
  result->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
  SetValue& set = result->set();
  set.reserve(members.size());
  for (std::string_view m : members) set.insert(m);
  ks.Set(ctx.db(), dst, std::move(result));
  ctx.Notify(keyspace_events::kSet,
             op == SetOp::kInter   ? "sinterstore"
             : op == SetOp::kUnion ? "sunionstore"
                                   : "sdiffstore",
             dst);
  ctx.out.Integer(static_cast<int64_t>(members.size()));
}

void CmdSInterStore(CommandContext& ctx) { SetAlgebraStore(ctx, SetOp::kInter); }
void CmdSUnionStore(CommandContext& ctx) { SetAlgebraStore(ctx, SetOp::kUnion); }
void CmdSDiffStore(CommandContext& ctx) { SetAlgebraStore(ctx, SetOp::kDiff); }

// SINTERCARD numkeys key [key ...] [LIMIT limit]
void CmdSInterCard(CommandContext& ctx) {
  int64_t numkeys;
  if (!ParseInt64(ctx.args[1], &numkeys) || numkeys < 1) {
    ctx.out.Error(errors::kNumKeysNotPositive);
    return;
  }
  if (static_cast<uint64_t>(numkeys) > ctx.args.size() - 2) {
    ctx.out.Error(errors::kNumKeysTooMany);
    return;
  }
  int64_t limit = 0;
  for (size_t i = 2 + static_cast<size_t>(numkeys); i < ctx.args.size(); ++i) {
    if (EqualsIgnoreCase(ctx.args[i], "LIMIT") && i + 1 < ctx.args.size()) {
      if (!ParseNonNegative(ctx.args[++i], &limit)) {
        ctx.out.Error(errors::kLimitNegative);
        return;
      }
    } else {
      ctx.out.Error(errors::kSyntax);
      return;
    }
  }
  std::vector<const SetValue*> sets;
  if (!LookupSets(ctx, ctx.args.subspan(2, static_cast<size_t>(numkeys)), &sets)) return;
  auto members = OpSetAlgebra(SetOp::kInter, std::move(sets), static_cast<size_t>(limit));
  ctx.out.Integer(static_cast<int64_t>(members.size()));
}

// SSCAN key cursor [MATCH pattern] [COUNT count]: one reply (BeginCollectionScan).
void CmdSScan(CommandContext& ctx) {
  std::string_view pattern;
  Object* obj = BeginCollectionScan(ctx, ObjType::kSet, &pattern);
  if (obj == nullptr) return;
  const bool use_pattern = !pattern.empty();
  std::vector<std::string_view> found;
  for (const std::string& m : obj->set()) {
    if (!use_pattern || GlobMatch(pattern, m)) found.push_back(m);
  }
  ctx.out.ArrayHeader(2);
  ctx.out.Bulk("0");
  ctx.out.ArrayHeader(static_cast<int64_t>(found.size()));
  for (std::string_view m : found) ctx.out.Bulk(m);
}

}  // namespace

void RegisterSetFamily(CommandTable* table) {
  using namespace cmd;
  constexpr uint32_t kW = kWrite | kDenyOom;
  // One row per command.
  // clang-format off
  table->Register({
      {"sadd", -3, kW | kFast, 1, 1, 1, CmdSAdd, "set", "Add one or more members to a set"},
      {"srem", -3, kWrite | kFast, 1, 1, 1, CmdSRem, "set", "Remove one or more members from a set"},
      {"scard", 2, kReadonly | kFast, 1, 1, 1, CmdSCard, "set", "Get the number of members in a set"},
      {"sismember", 3, kReadonly | kFast, 1, 1, 1, CmdSIsMember, "set", "Determine if a given value is a member of a set"},
      {"smismember", -3, kReadonly | kFast, 1, 1, 1, CmdSMIsMember, "set", "Returns the membership associated with the given elements for a set"},
      {"smembers", 2, kReadonly, 1, 1, 1, CmdSMembers, "set", "Get all the members in a set"},
      {"spop", -2, kWrite | kFast, 1, 1, 1, CmdSPop, "set", "Remove and return one or multiple random members from a set"},
      {"srandmember", -2, kReadonly, 1, 1, 1, CmdSRandMember, "set", "Get one or multiple random members from a set"},
      {"smove", 4, kWrite | kFast, 1, 2, 1, CmdSMove, "set", "Move a member from one set to another"},
      {"sinter", -2, kReadonly, 1, -1, 1, CmdSInter, "set", "Intersect multiple sets"},
      {"sunion", -2, kReadonly, 1, -1, 1, CmdSUnion, "set", "Add multiple sets"},
      {"sdiff", -2, kReadonly, 1, -1, 1, CmdSDiff, "set", "Subtract multiple sets"},
      {"sinterstore", -3, kW, 1, -1, 1, CmdSInterStore, "set", "Intersect multiple sets and store the resulting set in a key"},
      {"sunionstore", -3, kW, 1, -1, 1, CmdSUnionStore, "set", "Add multiple sets and store the resulting set in a key"},
      {"sdiffstore", -3, kW, 1, -1, 1, CmdSDiffStore, "set", "Subtract multiple sets and store the resulting set in a key"},
      // Redis reports 0 0 0: its keys are found through numkeys (movablekeys).
      {"sintercard", -3, kReadonly, 0, 0, 0, CmdSInterCard, "set", "Intersect multiple sets and return the cardinality of the result", {}, 1},
      {"sscan", -3, kReadonly, 1, 1, 1, CmdSScan, "set", "Incrementally iterate Set elements"},
  });
  // clang-format on
}

}  // namespace ordis::server
