// How command handlers reach keys: lookups that do the bookkeeping every access needs (access
// time for OBJECT IDLETIME, the LFU counter for OBJECT FREQ, keyspace hit/miss statistics), typed
// collection lookups that reply WRONGTYPE, and the random source of random-member commands.
#pragma once

#include <cstdint>
#include <random>

#include "absl/container/flat_hash_map.h"
#include "server/command/services.h"
#include "server/command/arg_parser.h"
#include "server/command/command.h"
#include "server/command/errors.h"
#include "server/config/config.h"
#include "base/number.h"
#include "server/keyspace/object.h"

namespace ordis::server {

inline uint32_t LruClockS(int64_t now_ms) { return static_cast<uint32_t>(now_ms / 1000); }

// Redis's LFULogIncr with lfu-log-factor 10: the counter grows logarithmically with accesses.
inline void LfuIncrement(Object* obj) {
  thread_local std::minstd_rand rng(12345);
  uint8_t counter = obj->lfu.load(std::memory_order_relaxed);
  if (counter == 255) return;
  constexpr int kInit = 5, kFactor = 10;
  double base = counter > kInit ? counter - kInit : 0;
  double p = 1.0 / (base * kFactor + 1);
  if (std::uniform_real_distribution<double>(0, 1)(rng) < p) {
    obj->lfu.store(static_cast<uint8_t>(counter + 1), std::memory_order_relaxed);
  }
}

inline void RecordAccess(CommandContext& ctx, Object* obj) {
  obj->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
  if (ctx.config().lfu_policy()) LfuIncrement(obj);
}

// A read lookup: counts a hit or miss and records the access.
inline Object* LookupRead(CommandContext& ctx, std::string_view key) {
  Object* obj = ctx.keyspace().Find(ctx.db(), key, ctx.now_ms, ctx.expired);
  ThreadStats& stats = ctx.stats();
  if (obj == nullptr) {
    Bump(stats[Stat::kKeyspaceMisses]);
  } else {
    Bump(stats[Stat::kKeyspaceHits]);
    RecordAccess(ctx, obj);
  }
  return obj;
}

// The I/O thread's generator for commands that pick members at random (SPOP, SRANDMEMBER,
// HRANDFIELD, ZRANDMEMBER).
inline std::mt19937_64& CommandRng() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

// Calls visit(pos) for k distinct positions chosen uniformly from [0, n); requires k <= n.
// When 3k > n (Redis's SRANDMEMBER_SUB_STRATEGY_MUL and ZRANDMEMBER_SUB_STRATEGY_MUL), selection
// sampling (Knuth's Algorithm S): one pass over the positions in order, O(n) time: under three
// times the O(k) reply.
// Otherwise a partial Fisher-Yates shuffle of the virtual array 0..n-1 that remembers only the
// displaced entries: O(k) time and space, positions in random order.
template <typename Visit>
void SampleDistinctPositions(size_t n, size_t k, Visit visit) {
  if (k * 3 > n) {
    size_t left = n, wanted = k;
    for (size_t pos = 0; wanted > 0; ++pos, --left) {
      if (std::uniform_int_distribution<size_t>(0, left - 1)(CommandRng()) < wanted) {
        visit(pos);
        --wanted;
      }
    }
    return;
  }
  // Entry i of the virtual array is displaced[i] if present, else i. Step i swaps entry i with a
  // random entry j >= i and emits the new entry i; entry i is never read again, so only entry j
  // is stored.
  absl::flat_hash_map<size_t, size_t> displaced;
  displaced.reserve(k);
  auto entry = [&](size_t i) {
    auto it = displaced.find(i);
    return it == displaced.end() ? i : it->second;
  };
  for (size_t i = 0; i < k; ++i) {
    const size_t j = std::uniform_int_distribution<size_t>(i, n - 1)(CommandRng());
    const size_t picked = entry(j);
    displaced[j] = entry(i);
    visit(picked);
  }
}

// A count argument that must be >= 0, as Redis's getPositiveLongFromObjectOrReply: anything else
// (not an integer included) is errors::kNotPositive (or the command's own message).
inline bool ParseNonNegative(std::string_view arg, int64_t* out) {
  return ParseInt64(arg, out) && *out >= 0;
}

// The count of SRANDMEMBER / HRANDFIELD / ZRANDMEMBER: an integer in Redis's range [-LONG_MAX, LONG_MAX].
// Replies the error and returns false otherwise.
inline bool ParseRandomCount(CommandContext& ctx, std::string_view arg, int64_t* count) {
  if (!ParseInt64(arg, count)) {
    ctx.out.Error(errors::kNotInteger);
    return false;
  }
  if (*count == INT64_MIN) {
    ctx.out.Error(errors::kSRandCountRange);
    return false;
  }
  return true;
}

// The arguments of HRANDFIELD / ZRANDMEMBER: key [count [WITH...]], where with_word is
// "withvalues" or "withscores". Replies the error and returns false if they are malformed.
inline bool ParseRandomPairArgs(CommandContext& ctx, std::string_view with_word, bool* has_count,
                                int64_t* count, bool* with) {
  *has_count = ctx.args.size() >= 3;
  *with = false;
  *count = 0;
  if (!*has_count) return true;
  if (!ParseRandomCount(ctx, ctx.args[2], count)) return false;
  *with = ctx.args.size() == 4;
  if (ctx.args.size() > 4 || (*with && !EqualsIgnoreCase(ctx.args[3], with_word))) {
    ctx.out.Error(errors::kSyntax);
    return false;
  }
  // Redis's guard against count * 2 overflowing the reply length.
  if (*with && (*count < -INT64_MAX / 2 || *count > INT64_MAX / 2)) {
    ctx.out.Error(errors::kOutOfRange);
    return false;
  }
  return true;
}

// The reply of SRANDMEMBER / HRANDFIELD / ZRANDMEMBER for a missing key: an empty array when a count was
// given, else a null.
inline void ReplyNoRandomMembers(CommandContext& ctx, bool with_count) {
  if (with_count) {
    ctx.out.ArrayHeader(0);
  } else {
    ctx.out.NullBulk();
  }
}

// The collection of type t at key for a write command. A missing key yields a new empty object
// stored at key when create is true (nullptr otherwise). A key of another type yields nullptr
// with *wrong_type set, after replying WRONGTYPE.
inline Object* FindCollectionForWrite(CommandContext& ctx, std::string_view key, ObjType t,
                                      bool create, bool* wrong_type) {
  *wrong_type = false;
  Object* obj = ctx.keyspace().FindForWrite(ctx.db(), key, ctx.now_ms);
  if (obj != nullptr && obj->type != t) {
    *wrong_type = true;
    ctx.out.Error(errors::kWrongType);
    return nullptr;
  }
  if (obj == nullptr && create) {
    auto fresh = NewObject(t);
    fresh->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
    obj = ctx.keyspace().Set(ctx.db(), key, std::move(fresh));
  } else if (obj != nullptr) {
    RecordAccess(ctx, obj);
  }
  return obj;
}

// The collection of type t at key for a read command: nullptr if missing, or (with *wrong_type
// set, after replying WRONGTYPE) if the key holds another type.
inline Object* FindCollectionForRead(CommandContext& ctx, std::string_view key, ObjType t,
                                     bool* wrong_type) {
  *wrong_type = false;
  Object* obj = LookupRead(ctx, key);
  if (obj != nullptr && obj->type != t) {
    *wrong_type = true;
    ctx.out.Error(errors::kWrongType);
    return nullptr;
  }
  return obj;
}

// After a write command changed the collection at key in place: signals watchers and deletes the
// key if the collection is now empty, as Redis does.
inline void FinishCollectionWrite(CommandContext& ctx, std::string_view key, Object* obj) {
  if (obj->EmptyCollection()) {
    ctx.keyspace().Delete(ctx.db(), key);
  } else {
    ctx.keyspace().SignalModified(ctx.db(), key);
  }
}

// HSCAN / SSCAN / ZSCAN key cursor [MATCH pattern] [COUNT count], up to the walk. ordis answers
// every collection scan in one reply with next cursor "0", whatever the cursor (Redis does the
// same for listpack-encoded collections): a complete iteration is then one call, which meets
// SCAN's guarantees trivially; COUNT is validated and ignored. Returns the collection of type t,
// or nullptr after replying (an error, WRONGTYPE, or the empty scan of a missing key, for which
// Redis does not look at the options). *pattern is empty when every element matches.
inline Object* BeginCollectionScan(CommandContext& ctx, ObjType t, std::string_view* pattern) {
  uint64_t cursor;
  if (!ParseScanCursor(ctx.args[2], &cursor)) {
    ctx.out.Error(errors::kInvalidCursor);
    return nullptr;
  }
  bool wrong_type;
  Object* obj = FindCollectionForRead(ctx, ctx.args[1], t, &wrong_type);
  if (wrong_type) return nullptr;
  if (obj == nullptr) {
    ctx.out.ArrayHeader(2);
    ctx.out.Bulk("0");
    ctx.out.ArrayHeader(0);
    return nullptr;
  }
  *pattern = {};
  ArgParser p(ctx.args, 3);
  while (p.HasNext() && p.ok()) {
    const bool has_value = p.remaining() >= 2;
    if (has_value && p.Accept("COUNT")) {
      int64_t count = p.NextInt();
      if (p.ok() && count < 1) p.Fail(errors::kSyntax);
    } else if (has_value && p.Accept("MATCH")) {
      *pattern = p.Next();
      if (*pattern == "*") *pattern = {};
    } else {
      p.Fail(errors::kSyntax);
    }
  }
  if (!p.ok()) {
    ctx.out.Error(p.error());
    return nullptr;
  }
  return obj;
}

}  // namespace ordis::server
