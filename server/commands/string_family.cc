// String commands: GET SET SETNX SETEX PSETEX GETSET GETDEL GETEX MGET MSET MSETNX APPEND STRLEN
// INCR DECR INCRBY DECRBY INCRBYFLOAT GETRANGE SETRANGE SUBSTR LCS.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/expire_option.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/string_access.h"

namespace ordis::server {
namespace {

using keyspace_events::kExpired;
using keyspace_events::kGeneric;
using keyspace_events::kString;

// The string value of obj as bytes, an int rendered into *scratch.
std::string_view Bytes(const Object* obj, IntText* scratch) { return obj->StringBytes(scratch); }

// GET key
void CmdGet(CommandContext& ctx) {
  Object* obj = LookupRead(ctx, ctx.args[1]);
  if (obj == nullptr) {
    ctx.out.NullBulk();
  } else if (obj->type() != ObjType::kString) {
    ctx.out.Error(errors::kWrongType);
  } else {
    IntText scratch;
    ctx.out.Bulk(Bytes(obj, &scratch));
  }
}

// SET key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds |
//   PXAT unix-time-milliseconds | KEEPTTL]
void CmdSet(CommandContext& ctx) {
  enum { kNone, kEx, kPx, kExat, kPxat, kKeepTtl } ttl_kind = kNone;
  bool nx = false, xx = false, get = false;
  int64_t ttl_value = 0;
  ArgParser p(ctx.args, 3);
  while (p.HasNext() && p.ok()) {
    auto set_ttl = [&](decltype(ttl_kind) kind, bool takes_value) {
      if (ttl_kind != kNone) return p.Fail(errors::kSyntax);
      ttl_kind = kind;
      if (takes_value) {
        if (!p.HasNext()) return p.Fail(errors::kSyntax);
        ttl_value = p.NextInt();
      }
    };
    if (p.Accept("NX")) {
      if (xx) p.Fail(errors::kSyntax);
      nx = true;
    } else if (p.Accept("XX")) {
      if (nx) p.Fail(errors::kSyntax);
      xx = true;
    } else if (p.Accept("GET")) {
      get = true;
    } else if (p.Accept("EX")) {
      set_ttl(kEx, true);
    } else if (p.Accept("PX")) {
      set_ttl(kPx, true);
    } else if (p.Accept("EXAT")) {
      set_ttl(kExat, true);
    } else if (p.Accept("PXAT")) {
      set_ttl(kPxat, true);
    } else if (p.Accept("KEEPTTL")) {
      set_ttl(kKeepTtl, false);
    } else {
      p.Fail(errors::kSyntax);
    }
  }
  if (!p.ok()) {
    ctx.out.Error(p.error());
    return;
  }
  int64_t expire_at = kNoExpire;
  if (ttl_kind != kNone && ttl_kind != kKeepTtl) {
    TimeUnit unit =
        (ttl_kind == kEx || ttl_kind == kExat) ? TimeUnit::kSeconds : TimeUnit::kMilliseconds;
    bool absolute = ttl_kind == kExat || ttl_kind == kPxat;
    if (!ToAbsoluteMs(ttl_value, unit, absolute, ctx.ClockMs(), false, &expire_at)) {
      ctx.out.Error(errors::InvalidExpireTime("set"));
      return;
    }
  }
  std::string_view key = ctx.args[1];
  // Only GET needs the old value: a cold one is not read back otherwise.
  Object* old = get ? ctx.keyspace().FindForWrite(ctx.db(), key, ctx.now_ms)
                    : ctx.keyspace().FindForReplace(ctx.db(), key, ctx.now_ms);
  if (get) CountLookup(ctx, key, old);  // GET reads it as Redis's lookupKeyRead
  if (get && old != nullptr && old->type() != ObjType::kString) {
    ctx.out.Error(errors::kWrongType);
    return;
  }
  bool write = !(nx && old != nullptr) && !(xx && old == nullptr);
  if (get) {
    if (old == nullptr) {
      ctx.out.NullBulk();
    } else {
      IntText scratch;
      ctx.out.Bulk(Bytes(old, &scratch));  // written before the store below changes old
    }
  }
  if (write) {
    if (ttl_kind == kKeepTtl && old != nullptr) expire_at = old->expire_at_ms();
    const bool kept = StoreString(ctx, key, ctx.args[2], expire_at, old);
    ctx.Notify(kString, "set", key);
    if (ttl_kind != kNone && ttl_kind != kKeepTtl) ctx.Notify(kGeneric, "expire", key);
    // Redis keeps the key, expired, until a lookup or its expiry cycle deletes it.
    if (!kept) ctx.Notify(kExpired, "expired", key);
  }
  if (!get) {
    if (write) {
      ctx.out.Ok();
    } else {
      ctx.out.NullBulk();
    }
  }
}

// SETNX key value
void CmdSetNx(CommandContext& ctx) {
  if (ctx.keyspace().FindForReplace(ctx.db(), ctx.args[1], ctx.now_ms) != nullptr) {
    ctx.out.Integer(0);
    return;
  }
  StoreString(ctx, ctx.args[1], ctx.args[2], kNoExpire, nullptr);
  ctx.Notify(kString, "set", ctx.args[1]);
  ctx.out.Integer(1);
}

void SetWithTtl(CommandContext& ctx, TimeUnit unit, std::string_view command) {
  int64_t ttl;
  if (!ParseInt64(ctx.args[2], &ttl)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  int64_t expire_at;
  if (!ToAbsoluteMs(ttl, unit, false, ctx.ClockMs(), false, &expire_at)) {
    ctx.out.Error(errors::InvalidExpireTime(command));
    return;
  }
  Object* existing = ctx.keyspace().FindForReplace(ctx.db(), ctx.args[1], ctx.now_ms);
  StoreString(ctx, ctx.args[1], ctx.args[3], expire_at, existing);
  ctx.Notify(kString, "set", ctx.args[1]);
  ctx.Notify(kGeneric, "expire", ctx.args[1]);
  ctx.out.Ok();
}

// SETEX key seconds value
void CmdSetEx(CommandContext& ctx) { SetWithTtl(ctx, TimeUnit::kSeconds, "setex"); }
// PSETEX key milliseconds value
void CmdPSetEx(CommandContext& ctx) { SetWithTtl(ctx, TimeUnit::kMilliseconds, "psetex"); }

// GETSET key value
void CmdGetSet(CommandContext& ctx) {
  bool failed;
  Object* old = FindStringForWrite(ctx, ctx.args[1], &failed, /*reads=*/true);
  if (failed) return;
  if (old == nullptr) {
    ctx.out.NullBulk();
  } else {
    IntText scratch;
    ctx.out.Bulk(Bytes(old, &scratch));
  }
  StoreString(ctx, ctx.args[1], ctx.args[2], kNoExpire, old);
  ctx.Notify(kString, "set", ctx.args[1]);
}

// GETDEL key
void CmdGetDel(CommandContext& ctx) {
  bool failed;
  Object* obj = FindStringForWrite(ctx, ctx.args[1], &failed, /*reads=*/true);
  if (failed) return;
  if (obj == nullptr) {
    ctx.out.NullBulk();
    return;
  }
  IntText scratch;
  ctx.out.Bulk(Bytes(obj, &scratch));
  ctx.keyspace().Delete(ctx.db(), ctx.args[1]);
  ctx.Notify(kGeneric, "del", ctx.args[1]);
}

// GETEX key [EX seconds | PX milliseconds | EXAT unix-time-seconds |
//   PXAT unix-time-milliseconds | PERSIST]
void CmdGetEx(CommandContext& ctx) {
  enum { kNone, kEx, kPx, kExat, kPxat, kPersist } kind = kNone;
  int64_t value = 0;
  ArgParser p(ctx.args, 2);
  while (p.HasNext() && p.ok()) {
    auto take = [&](decltype(kind) k, bool takes_value) {
      if (kind != kNone) return p.Fail(errors::kSyntax);
      kind = k;
      if (takes_value) {
        if (!p.HasNext()) return p.Fail(errors::kSyntax);
        value = p.NextInt();
      }
    };
    if (p.Accept("EX"))
      take(kEx, true);
    else if (p.Accept("PX"))
      take(kPx, true);
    else if (p.Accept("EXAT"))
      take(kExat, true);
    else if (p.Accept("PXAT"))
      take(kPxat, true);
    else if (p.Accept("PERSIST"))
      take(kPersist, false);
    else
      p.Fail(errors::kSyntax);
  }
  if (!p.ok()) {
    ctx.out.Error(p.error());
    return;
  }
  int64_t expire_at = kNoExpire;
  if (kind != kNone && kind != kPersist) {
    TimeUnit unit = (kind == kEx || kind == kExat) ? TimeUnit::kSeconds : TimeUnit::kMilliseconds;
    if (!ToAbsoluteMs(value, unit, kind == kExat || kind == kPxat, ctx.ClockMs(), false,
                      &expire_at)) {
      ctx.out.Error(errors::InvalidExpireTime("getex"));
      return;
    }
  }
  bool failed;
  Object* obj = FindStringForWrite(ctx, ctx.args[1], &failed, /*reads=*/true);
  if (failed) return;
  if (obj == nullptr) {
    ctx.out.NullBulk();
    return;
  }
  IntText scratch;
  ctx.out.Bulk(Bytes(obj, &scratch));
  Keyspace& ks = ctx.keyspace();
  if (kind == kPersist) {
    if (obj->has_ttl()) {
      obj = ks.SetExpire(ctx.db(), ctx.args[1], obj, kNoExpire);
      ctx.Notify(kGeneric, "persist", ctx.args[1]);
    }
  } else if (kind != kNone) {
    if (expire_at <= ctx.now_ms) {
      ks.Delete(ctx.db(), ctx.args[1]);
      ctx.Notify(kGeneric, "del", ctx.args[1]);
    } else {
      obj = ks.SetExpire(ctx.db(), ctx.args[1], obj, expire_at);
      ctx.Notify(kGeneric, "expire", ctx.args[1]);
    }
  }
}

// MGET key [key ...]
void CmdMGet(CommandContext& ctx) {
  ctx.out.ArrayHeader(static_cast<int64_t>(ctx.args.size() - 1));
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    Object* obj = LookupRead(ctx, ctx.args[i]);
    if (obj == nullptr || obj->type() != ObjType::kString) {
      ctx.out.NullBulk();
    } else {
      IntText scratch;
      ctx.out.Bulk(Bytes(obj, &scratch));
    }
  }
}

// MSET key value [key value ...]
void CmdMSet(CommandContext& ctx) {
  if (ctx.args.size() % 2 == 0) {
    ctx.out.Error(errors::WrongArity("mset"));
    return;
  }
  for (size_t i = 1; i < ctx.args.size(); i += 2) {
    Object* existing = ctx.keyspace().FindForReplace(ctx.db(), ctx.args[i], ctx.now_ms);
    StoreString(ctx, ctx.args[i], ctx.args[i + 1], kNoExpire, existing);
    ctx.Notify(kString, "set", ctx.args[i]);
  }
  ctx.out.Ok();
}

// MSETNX key value [key value ...]
void CmdMSetNx(CommandContext& ctx) {
  if (ctx.args.size() % 2 == 0) {
    ctx.out.Error(errors::WrongArity("msetnx"));
    return;
  }
  for (size_t i = 1; i < ctx.args.size(); i += 2) {
    if (ctx.keyspace().FindForReplace(ctx.db(), ctx.args[i], ctx.now_ms) != nullptr) {
      ctx.out.Integer(0);
      return;
    }
  }
  for (size_t i = 1; i < ctx.args.size(); i += 2) {
    // Looked up again: a key named twice exists the second time.
    Object* existing = ctx.keyspace().FindForReplace(ctx.db(), ctx.args[i], ctx.now_ms);
    StoreString(ctx, ctx.args[i], ctx.args[i + 1], kNoExpire, existing);
    ctx.Notify(kString, "set", ctx.args[i]);
  }
  ctx.out.Integer(1);
}

// APPEND key value
void CmdAppend(CommandContext& ctx) {
  bool failed;
  Object* obj = FindStringForWrite(ctx, ctx.args[1], &failed);
  if (failed) return;
  if (obj == nullptr) {
    StoreString(ctx, ctx.args[1], ctx.args[2], kNoExpire, nullptr);
    ctx.Notify(kString, "append", ctx.args[1]);
    ctx.out.Integer(static_cast<int64_t>(ctx.args[2].size()));
    return;
  }
  if (!WithinBulkLimit(ctx, obj->StringSize() + ctx.args[2].size())) return;
  obj->AppendString(ctx.args[2]);
  ctx.keyspace().SignalModified(ctx.db(), ctx.args[1]);
  ctx.Notify(kString, "append", ctx.args[1]);
  ctx.out.Integer(static_cast<int64_t>(obj->StringSize()));
}

// STRLEN key
void CmdStrLen(CommandContext& ctx) {
  Object* obj = LookupRead(ctx, ctx.args[1]);
  if (obj == nullptr) {
    ctx.out.Integer(0);
  } else if (obj->type() != ObjType::kString) {
    ctx.out.Error(errors::kWrongType);
  } else {
    ctx.out.Integer(static_cast<int64_t>(obj->StringSize()));
  }
}

void IncrBy(CommandContext& ctx, int64_t delta) {
  bool failed;
  std::string_view key = ctx.args[1];
  Object* obj = FindStringForWrite(ctx, key, &failed);
  if (failed) return;
  int64_t current = 0;
  if (obj != nullptr && !obj->StringAsInt(&current)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  int64_t result;
  if (!CheckedAdd(current, delta, &result)) {
    ctx.out.Error(errors::kOverflow);
    return;
  }
  if (obj == nullptr) {
    ObjectPtr fresh = NewInt(result);
    fresh->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
    ctx.keyspace().Set(ctx.db(), key, std::move(fresh));
  } else {
    obj->SetInt(result);  // "int" afterwards, as Redis's new or updated object is
    ctx.keyspace().SignalModified(ctx.db(), key);
  }
  ctx.Notify(kString, "incrby", key);
  ctx.out.Integer(result);
}

// INCR key / DECR key
void CmdIncr(CommandContext& ctx) { IncrBy(ctx, 1); }
void CmdDecr(CommandContext& ctx) { IncrBy(ctx, -1); }

// INCRBY key increment
void CmdIncrBy(CommandContext& ctx) {
  int64_t delta;
  if (!ParseInt64(ctx.args[2], &delta)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  IncrBy(ctx, delta);
}

// DECRBY key decrement
void CmdDecrBy(CommandContext& ctx) {
  int64_t delta;
  if (!ParseInt64(ctx.args[2], &delta)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  if (delta == INT64_MIN) {
    ctx.out.Error(errors::kDecrementOverflow);
    return;
  }
  IncrBy(ctx, -delta);
}

// INCRBYFLOAT key increment
void CmdIncrByFloat(CommandContext& ctx) {
  bool failed;
  std::string_view key = ctx.args[1];
  Object* obj = FindStringForWrite(ctx, key, &failed);
  if (failed) return;
  long double current = 0, delta;
  IntText scratch;
  if (obj != nullptr && !ParseLongDouble(Bytes(obj, &scratch), &current)) {
    ctx.out.Error(errors::kNotFloat);
    return;
  }
  if (!ParseLongDouble(ctx.args[2], &delta)) {
    ctx.out.Error(errors::kNotFloat);
    return;
  }
  long double result = current + delta;
  if (std::isnan(result) || std::isinf(result)) {
    ctx.out.Error(errors::kIncrFloatNaN);
    return;
  }
  // Redis makes the result a new string object (createStringObject: "embstr" or "raw", never
  // "int"), keeping the key's TTL.
  std::string text = FormatLongDouble(result);
  StoreString(ctx, key, text, obj == nullptr ? kNoExpire : obj->expire_at_ms(), obj,
              StringRule::kBytes);
  ctx.Notify(kString, "incrbyfloat", key);
  ctx.out.Bulk(text);
}

// GETRANGE key start end (and SUBSTR)
void CmdGetRange(CommandContext& ctx) {
  int64_t start, end;
  if (!ParseInt64(ctx.args[2], &start) || !ParseInt64(ctx.args[3], &end)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  Object* obj = LookupRead(ctx, ctx.args[1]);
  if (obj == nullptr) {
    ctx.out.Bulk("");
    return;
  }
  if (obj->type() != ObjType::kString) {
    ctx.out.Error(errors::kWrongType);
    return;
  }
  IntText scratch;
  const std::string_view bytes = Bytes(obj, &scratch);
  // Redis 7.0's getrangeCommand arithmetic, including its quirks.
  int64_t len = static_cast<int64_t>(bytes.size());
  if (start < 0 && end < 0 && start > end) {
    ctx.out.Bulk("");
    return;
  }
  if (start < 0) start = len + start;
  if (end < 0) end = len + end;
  if (start < 0) start = 0;
  if (end < 0) end = 0;
  if (end >= len) end = len - 1;
  if (start > end || len == 0) {
    ctx.out.Bulk("");
    return;
  }
  ctx.out.Bulk(bytes.substr(start, end - start + 1));
}

// SETRANGE key offset value
void CmdSetRange(CommandContext& ctx) {
  int64_t offset;
  if (!ParseInt64(ctx.args[2], &offset)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  if (offset < 0) {
    ctx.out.Error(errors::kOffsetOutOfRange);
    return;
  }
  std::string_view value = ctx.args[3];
  bool failed;
  Object* obj = FindStringForWrite(ctx, ctx.args[1], &failed);
  if (failed) return;
  if (obj == nullptr) {
    if (value.empty()) {
      ctx.out.Integer(0);
      return;
    }
    if (!WithinBulkLimit(ctx, static_cast<uint64_t>(offset) + value.size())) return;
    // Redis makes a raw string of offset zero bytes followed by value.
    std::string text(static_cast<size_t>(offset), '\0');
    text.append(value);
    StoreString(ctx, ctx.args[1], text, kNoExpire, nullptr, StringRule::kRaw);
    ctx.Notify(kString, "setrange", ctx.args[1]);
    ctx.out.Integer(static_cast<int64_t>(text.size()));
    return;
  }
  if (value.empty()) {
    ctx.out.Integer(static_cast<int64_t>(obj->StringSize()));
    return;
  }
  if (!WithinBulkLimit(ctx, static_cast<uint64_t>(offset) + value.size())) return;
  obj->WriteString(static_cast<size_t>(offset), value);
  ctx.keyspace().SignalModified(ctx.db(), ctx.args[1]);
  ctx.Notify(kString, "setrange", ctx.args[1]);
  ctx.out.Integer(static_cast<int64_t>(obj->StringSize()));
}

// One run of matching bytes on the LCS walk: a[a_first..a_last] equals b[b_first..b_last].
struct LcsMatch {
  uint32_t a_first, a_last, b_first, b_last;
};

// The longest common subsequence of a and b (each shorter than 2^32 - 1 bytes). Its length goes
// to *length; when text or matches is given, the table of prefix LCS lengths L(i, j) is walked
// back from the ends as Redis walks it (where the bytes differ, towards the larger of L(i - 1, j)
// and L(i, j - 1), shortening b on a tie), so the subsequence and its matches are Redis's: the
// matches are the walk's maximal runs of matching bytes, last first, those shorter than
// min_match_len (when it is not 0) left out. False when the memory cannot be had.
//
// A row of the table is held as bits (Allison and Dix's bit-vector LCS): bit j - 1 of V is set
// iff L(i, j) = L(i, j - 1). With M the positions in b of the byte a[i - 1], the next row is
// (V + (V & M)) | (V & ~M), computed 64 columns at a time; the addition's carry into bit j - 1 is
// L(i, j - 1) - L(i - 1, j - 1), so the walk's choice where the bytes differ, L(i - 1, j) >
// L(i, j - 1), is the bit of ~(M | V | carries): one bit per cell, kept per row for the walk.
// O(|a| * |b| / 64) time; memory |b| / 8 bytes per distinct byte of a, plus |a| * |b| / 8 for the
// walk.
bool LongestCommonSubsequence(std::string_view a, std::string_view b, uint64_t min_match_len,
                              uint32_t* length, std::string* text, std::vector<LcsMatch>* matches) {
  *length = 0;
  const size_t n = a.size(), m = b.size();
  if (n == 0 || m == 0) return true;
  const size_t words = (m + 63) / 64;
  int slot[256];
  std::fill(std::begin(slot), std::end(slot), -1);
  size_t distinct = 0;
  for (char c : a) {
    int& s = slot[static_cast<unsigned char>(c)];
    if (s < 0) s = static_cast<int>(distinct++);
  }
  // masks: for each distinct byte of a, the positions in b holding it; row: V.
  std::unique_ptr<uint64_t[]> state(new (std::nothrow) uint64_t[(distinct + 1) * words]());
  if (state == nullptr) return false;
  uint64_t* masks = state.get();
  uint64_t* row = masks + distinct * words;
  for (size_t j = 0; j < m; ++j) {
    const int s = slot[static_cast<unsigned char>(b[j])];
    if (s >= 0) masks[static_cast<size_t>(s) * words + j / 64] |= uint64_t{1} << (j % 64);
  }
  std::fill(row, row + words, ~uint64_t{0});
  const bool walk = text != nullptr || matches != nullptr;
  std::unique_ptr<uint64_t[]> up_bits;
  if (walk) {
    up_bits.reset(new (std::nothrow) uint64_t[n * words]);
    if (up_bits == nullptr) return false;
  }
  for (size_t i = 0; i < n; ++i) {
    const uint64_t* mask =
        masks + static_cast<size_t>(slot[static_cast<unsigned char>(a[i])]) * words;
    uint64_t* up = walk ? up_bits.get() + i * words : nullptr;
    uint64_t carry = 0;
    for (size_t w = 0; w < words; ++w) {
      const uint64_t v = row[w], match = mask[w], u = v & match;
      const uint64_t partial = v + u;
      const uint64_t sum = partial + carry;
      const uint64_t carries = sum ^ v ^ u;  // the carry into each bit
      carry = static_cast<uint64_t>(partial < v) | static_cast<uint64_t>(sum < partial);
      if (walk) up[w] = ~(match | v | carries);
      row[w] = sum | (v & ~match);
    }
  }
  size_t zeros = 0;
  for (size_t w = 0; w < words; ++w) {
    const size_t bits = w + 1 < words || m % 64 == 0 ? 64 : m % 64;
    const uint64_t valid = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
    zeros += static_cast<size_t>(__builtin_popcountll(~row[w] & valid));
  }
  *length = static_cast<uint32_t>(zeros);
  if (!walk) return true;

  if (text != nullptr) text->resize(*length);
  size_t remaining = *length;
  size_t i = n, j = m;
  bool in_run = false;
  uint32_t a_last = 0, b_last = 0;
  // The run ends at a[i], b[j] (0-based): the walk left the diagonal or reached a start.
  auto end_run = [&] {
    const uint32_t len = a_last - static_cast<uint32_t>(i) + 1;
    if (matches != nullptr && (min_match_len == 0 || len >= min_match_len)) {
      matches->push_back({static_cast<uint32_t>(i), a_last, static_cast<uint32_t>(j), b_last});
    }
    in_run = false;
  };
  while (i > 0 && j > 0) {
    if (a[i - 1] == b[j - 1]) {
      if (text != nullptr) (*text)[--remaining] = a[i - 1];
      if (!in_run) {
        in_run = true;
        a_last = static_cast<uint32_t>(i - 1);
        b_last = static_cast<uint32_t>(j - 1);
      }
      --i;
      --j;
      if (i == 0 || j == 0) end_run();
    } else {
      if (in_run) end_run();
      const uint64_t* up = up_bits.get() + (i - 1) * words;
      if ((up[(j - 1) / 64] >> ((j - 1) % 64)) & 1) {
        --i;
      } else {
        --j;
      }
    }
  }
  return true;
}

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]
void CmdLcs(CommandContext& ctx) {
  // Both keys are looked up (and counted) before either is checked, as Redis does.
  Object* obj_a = LookupRead(ctx, ctx.args[1]);
  Object* obj_b = LookupRead(ctx, ctx.args[2]);
  if ((obj_a != nullptr && obj_a->type() != ObjType::kString) ||
      (obj_b != nullptr && obj_b->type() != ObjType::kString)) {
    ctx.out.Error("ERR The specified keys must contain string values");
    return;
  }
  bool len = false, idx = false, with_match_len = false;
  int64_t min_match_len = 0;
  for (size_t j = 3; j < ctx.args.size(); ++j) {
    const std::string_view opt = ctx.args[j];
    if (EqualsIgnoreCase(opt, "IDX")) {
      idx = true;
    } else if (EqualsIgnoreCase(opt, "LEN")) {
      len = true;
    } else if (EqualsIgnoreCase(opt, "WITHMATCHLEN")) {
      with_match_len = true;
    } else if (EqualsIgnoreCase(opt, "MINMATCHLEN") && j + 1 < ctx.args.size()) {
      if (!ParseInt64(ctx.args[++j], &min_match_len)) {
        ctx.out.Error(errors::kNotInteger);
        return;
      }
      if (min_match_len < 0) min_match_len = 0;
    } else {
      ctx.out.Error(errors::kSyntax);
      return;
    }
  }
  if (idx && len) {
    ctx.out.Error("ERR If you want both the length and indexes, please just use IDX.");
    return;
  }
  IntText scratch_a, scratch_b;
  const std::string_view a = obj_a != nullptr ? Bytes(obj_a, &scratch_a) : std::string_view();
  const std::string_view b = obj_b != nullptr ? Bytes(obj_b, &scratch_b) : std::string_view();
  if (a.size() >= UINT32_MAX - 1 || b.size() >= UINT32_MAX - 1) {
    ctx.out.Error("ERR String too long for LCS");
    return;
  }
  // Redis's guard against a table that would exhaust memory: refused when its table, 4 bytes a
  // cell of (|a| + 1) * (|b| + 1), would pass proto-max-bulk-len (ordis's is 32 times smaller,
  // but the same inputs are refused).
  constexpr std::string_view kNoMemory =
      "ERR Insufficient memory, failed allocating transient memory for LCS";
  const uint64_t cells = (static_cast<uint64_t>(a.size()) + 1) * (b.size() + 1);
  if (cells > UINT64_MAX / 4) {
    ctx.out.Error(kNoMemory);
    return;
  }
  if (cells * 4 > static_cast<uint64_t>(ctx.config().proto_max_bulk_len())) {
    ctx.out.Error("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
    return;
  }
  uint32_t length;
  std::string text;
  std::vector<LcsMatch> matches;
  if (!LongestCommonSubsequence(a, b, static_cast<uint64_t>(min_match_len), &length,
                                idx || len ? nullptr : &text, idx ? &matches : nullptr)) {
    ctx.out.Error(kNoMemory);
    return;
  }
  if (idx) {
    ctx.out.MapHeader(2);
    ctx.out.Bulk("matches");
    ctx.out.ArrayHeader(static_cast<int64_t>(matches.size()));
    for (const LcsMatch& match : matches) {
      ctx.out.ArrayHeader(with_match_len ? 3 : 2);
      ctx.out.ArrayHeader(2);
      ctx.out.Integer(match.a_first);
      ctx.out.Integer(match.a_last);
      ctx.out.ArrayHeader(2);
      ctx.out.Integer(match.b_first);
      ctx.out.Integer(match.b_last);
      if (with_match_len) ctx.out.Integer(match.a_last - match.a_first + 1);
    }
    ctx.out.Bulk("len");
    ctx.out.Integer(length);
  } else if (len) {
    ctx.out.Integer(length);
  } else {
    ctx.out.Bulk(text);
  }
}

}  // namespace

void RegisterStringFamily(CommandTable* table) {
  using namespace cmd;
  constexpr uint32_t kW = kWrite | kDenyOom;
  // One row per command.
  // clang-format off
  table->Register({
      {"get", 2, kReadonly | kFast, 1, 1, 1, CmdGet, "string", "Get the value of a key"},
      {"set", -3, kW, 1, 1, 1, CmdSet, "string", "Set the string value of a key"},
      {"setnx", 3, kW | kFast, 1, 1, 1, CmdSetNx, "string", "Set the value of a key, only if the key does not exist"},
      {"setex", 4, kW, 1, 1, 1, CmdSetEx, "string", "Set the value and expiration of a key"},
      {"psetex", 4, kW, 1, 1, 1, CmdPSetEx, "string", "Set the value and expiration in milliseconds of a key"},
      {"getset", 3, kW | kFast, 1, 1, 1, CmdGetSet, "string", "Set the string value of a key and return its old value"},
      {"getdel", 2, kWrite | kFast, 1, 1, 1, CmdGetDel, "string", "Get the value of a key and delete the key"},
      {"getex", -2, kWrite | kFast, 1, 1, 1, CmdGetEx, "string", "Get the value of a key and optionally set its expiration"},
      {"mget", -2, kReadonly | kFast, 1, -1, 1, CmdMGet, "string", "Get the values of all the given keys"},
      {"mset", -3, kW, 1, -1, 2, CmdMSet, "string", "Set multiple keys to multiple values"},
      {"msetnx", -3, kW, 1, -1, 2, CmdMSetNx, "string", "Set multiple keys to multiple values, only if none of the keys exist"},
      {"append", 3, kW | kFast, 1, 1, 1, CmdAppend, "string", "Append a value to a key"},
      {"strlen", 2, kReadonly | kFast, 1, 1, 1, CmdStrLen, "string", "Get the length of the value stored in a key"},
      {"incr", 2, kW | kFast, 1, 1, 1, CmdIncr, "string", "Increment the integer value of a key by one"},
      {"decr", 2, kW | kFast, 1, 1, 1, CmdDecr, "string", "Decrement the integer value of a key by one"},
      {"incrby", 3, kW | kFast, 1, 1, 1, CmdIncrBy, "string", "Increment the integer value of a key by the given amount"},
      {"decrby", 3, kW | kFast, 1, 1, 1, CmdDecrBy, "string", "Decrement the integer value of a key by the given number"},
      {"incrbyfloat", 3, kW | kFast, 1, 1, 1, CmdIncrByFloat, "string", "Increment the float value of a key by the given amount"},
      {"getrange", 4, kReadonly, 1, 1, 1, CmdGetRange, "string", "Get a substring of the string stored at a key"},
      {"substr", 4, kReadonly, 1, 1, 1, CmdGetRange, "string", "Get a substring of the string stored at a key"},
      {"setrange", 4, kW, 1, 1, 1, CmdSetRange, "string", "Overwrite part of a string at key starting at the specified offset"},
      {"lcs", -3, kReadonly, 1, 2, 1, CmdLcs, "string", "Find longest common substring"},
  });
  // clang-format on
}

}  // namespace ordis::server
