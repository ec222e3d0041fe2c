// String commands: GET SET SETNX SETEX PSETEX GETSET GETDEL GETEX MGET MSET MSETNX APPEND STRLEN
// INCR DECR INCRBY DECRBY INCRBYFLOAT GETRANGE SETRANGE SUBSTR.
#include <memory>
#include <string>

#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/expire_option.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"

namespace ordis::server {
namespace {

using keyspace_events::kExpired;
using keyspace_events::kGeneric;
using keyspace_events::kString;

// Writes value at key as a string encoded by rule, with the given TTL (kNoExpire for none).
// `existing` is what the caller's FindForReplace (or FindForWrite) returned for key (nullptr if
// nothing): a resident string there whose block has the new value's size is overwritten in place,
// saving a second index lookup and an allocation. An absolute TTL already in the past deletes the
// key instead (false returned), where Redis stores it expired. The LFU counter carries over to the
// new value, as Redis's dbSetValue keeps it. The caller raises the command's keyspace event.
bool StoreString(CommandContext& ctx, std::string_view key, std::string_view value,
                 int64_t expire_at_ms, Object* existing, StringRule rule = StringRule::kTryInt) {
  Keyspace& ks = ctx.keyspace();
  if (expire_at_ms != kNoExpire && expire_at_ms <= ctx.now_ms) {
    ks.Delete(ctx.db(), key);
    return false;
  }
  if (existing != nullptr && existing->type() == ObjType::kString && !existing->cold() &&
      existing->has_ttl() == (expire_at_ms != kNoExpire) &&
      existing->TryAssignString(value, rule)) {
    existing->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
    // The TTL only changes its time here, so the object stays where it is.
    existing = ks.SetExpire(ctx.db(), key, existing, expire_at_ms);  // also signals watchers
    return true;
  }
  ObjectPtr obj = NewString(value, expire_at_ms, rule);
  obj->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
  if (existing != nullptr) {
    obj->lfu.store(existing->lfu.load(std::memory_order_relaxed), std::memory_order_relaxed);
  }
  ks.Set(ctx.db(), key, std::move(obj));
  return true;
}

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
    if (!ToAbsoluteMs(ttl_value, unit, absolute, ctx.now_ms, false, &expire_at)) {
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
  if (!ToAbsoluteMs(ttl, unit, false, ctx.now_ms, false, &expire_at)) {
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

// The string at key for a write command, or nullptr; replies WRONGTYPE and sets *failed when the
// key holds another type. `reads`: the command returns the value it replaces (GETSET, GETDEL,
// GETEX), which Redis looks up as a read: the hit or miss is counted, a miss raises "keymiss".
Object* FindStringForWrite(CommandContext& ctx, std::string_view key, bool* failed,
                           bool reads = false) {
  Object* obj = ctx.keyspace().FindForWrite(ctx.db(), key, ctx.now_ms);
  if (reads) CountLookup(ctx, key, obj);
  *failed = false;
  if (obj != nullptr && obj->type() != ObjType::kString) {
    ctx.out.Error(errors::kWrongType);
    *failed = true;
    return nullptr;
  }
  if (obj != nullptr) RecordAccess(ctx, obj);
  return obj;
}

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
    if (!ToAbsoluteMs(value, unit, kind == kExat || kind == kPxat, ctx.now_ms, false, &expire_at)) {
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

bool WithinBulkLimit(CommandContext& ctx, uint64_t size) {
  if (size > static_cast<uint64_t>(ctx.config().proto_max_bulk_len())) {
    ctx.out.Error(errors::kStringTooLong);
    return false;
  }
  return true;
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
  });
  // clang-format on
}

}  // namespace ordis::server
