// Expiry commands: EXPIRE PEXPIRE EXPIREAT PEXPIREAT TTL PTTL EXPIRETIME PEXPIRETIME PERSIST.
#include <string>

#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/commands/expire_option.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"

namespace ordis::server {
namespace {

using keyspace_events::kGeneric;

// EXPIRE key seconds [NX | XX | GT | LT] and its PEXPIRE / EXPIREAT / PEXPIREAT variants.
void ExpireGeneric(CommandContext& ctx, TimeUnit unit, bool absolute, std::string_view name) {
  bool nx = false, xx = false, gt = false, lt = false;
  for (size_t i = 3; i < ctx.args.size(); ++i) {
    std::string_view opt = ctx.args[i];
    if (EqualsIgnoreCase(opt, "NX"))
      nx = true;
    else if (EqualsIgnoreCase(opt, "XX"))
      xx = true;
    else if (EqualsIgnoreCase(opt, "GT"))
      gt = true;
    else if (EqualsIgnoreCase(opt, "LT"))
      lt = true;
    else {
      ctx.out.Error(errors::UnsupportedOption(opt));
      return;
    }
  }
  if (nx && (xx || gt || lt)) {
    ctx.out.Error(errors::kNxAndXxGtLt);
    return;
  }
  if (gt && lt) {
    ctx.out.Error(errors::kGtAndLt);
    return;
  }
  int64_t when;
  if (!ParseInt64(ctx.args[2], &when)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  int64_t expire_at;
  const int64_t clock_ms = ctx.ClockMs();
  if (!ToAbsoluteMs(when, unit, absolute, clock_ms, /*allow_non_positive=*/true, &expire_at)) {
    ctx.out.Error(errors::InvalidExpireTime(name));
    return;
  }
  Keyspace& ks = ctx.keyspace();
  std::string_view key = ctx.args[1];
  // A TTL is the key's header: a cold value stays cold (SetExpire moves its object).
  Object* obj = ks.FindHeaderForWrite(ctx.db(), key, ctx.now_ms);
  if (obj == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  const bool has_ttl = obj->has_ttl();
  // No TTL counts as an infinite one for GT and LT.
  if ((nx && has_ttl) || (xx && !has_ttl) ||
      (gt && (!has_ttl || expire_at <= obj->expire_at_ms())) ||
      (lt && has_ttl && expire_at >= obj->expire_at_ms())) {
    ctx.out.Integer(0);
    return;
  }
  if (expire_at <= clock_ms && !ks.loading()) {  // a replayed log keeps the TTL (Redis)
    ks.Delete(ctx.db(), key, ks.expire_free_mode());
    ctx.Notify(kGeneric, "del", key);
  } else {
    obj = ks.SetExpire(ctx.db(), key, obj, expire_at);
    ctx.Notify(kGeneric, "expire", key);
  }
  ctx.out.Integer(1);
}

void CmdExpire(CommandContext& ctx) { ExpireGeneric(ctx, TimeUnit::kSeconds, false, "expire"); }
void CmdPExpire(CommandContext& ctx) {
  ExpireGeneric(ctx, TimeUnit::kMilliseconds, false, "pexpire");
}
void CmdExpireAt(CommandContext& ctx) { ExpireGeneric(ctx, TimeUnit::kSeconds, true, "expireat"); }
void CmdPExpireAt(CommandContext& ctx) {
  ExpireGeneric(ctx, TimeUnit::kMilliseconds, true, "pexpireat");
}

enum class TtlQuery { kTtl, kPTtl, kExpireTime, kPExpireTime };

// TTL/PTTL: remaining time; EXPIRETIME/PEXPIRETIME: absolute time. -2 missing, -1 no TTL.
void TtlGeneric(CommandContext& ctx, TtlQuery query) {
  Object* obj = LookupHeaderNoTouch(ctx, ctx.args[1]);
  if (obj == nullptr) {
    ctx.out.Integer(-2);
    return;
  }
  if (!obj->has_ttl()) {
    ctx.out.Integer(-1);
    return;
  }
  int64_t left = obj->expire_at_ms() - ctx.ClockMs();
  if (left < 0) left = 0;
  switch (query) {
    case TtlQuery::kTtl:
      ctx.out.Integer((left + 500) / 1000);
      break;
    case TtlQuery::kPTtl:
      ctx.out.Integer(left);
      break;
    case TtlQuery::kExpireTime:
      ctx.out.Integer(obj->expire_at_ms() / 1000);
      break;
    case TtlQuery::kPExpireTime:
      ctx.out.Integer(obj->expire_at_ms());
      break;
  }
}

void CmdTtl(CommandContext& ctx) { TtlGeneric(ctx, TtlQuery::kTtl); }
void CmdPTtl(CommandContext& ctx) { TtlGeneric(ctx, TtlQuery::kPTtl); }
void CmdExpireTime(CommandContext& ctx) { TtlGeneric(ctx, TtlQuery::kExpireTime); }
void CmdPExpireTime(CommandContext& ctx) { TtlGeneric(ctx, TtlQuery::kPExpireTime); }

// PERSIST key
void CmdPersist(CommandContext& ctx) {
  Object* obj = ctx.keyspace().FindHeaderForWrite(ctx.db(), ctx.args[1], ctx.now_ms);
  if (obj == nullptr || !obj->has_ttl()) {
    ctx.out.Integer(0);
    return;
  }
  obj = ctx.keyspace().SetExpire(ctx.db(), ctx.args[1], obj, kNoExpire);
  ctx.Notify(kGeneric, "persist", ctx.args[1]);
  ctx.out.Integer(1);
}

}  // namespace

void RegisterExpireFamily(CommandTable* table) {
  using namespace cmd;
  // One row per command.
  // clang-format off
  table->Register({
      {"expire", -3, kWrite | kFast | kHeaderOnly, 1, 1, 1, CmdExpire, "generic", "Set a key's time to live in seconds"},
      {"pexpire", -3, kWrite | kFast | kHeaderOnly, 1, 1, 1, CmdPExpire, "generic", "Set a key's time to live in milliseconds"},
      {"expireat", -3, kWrite | kFast | kHeaderOnly, 1, 1, 1, CmdExpireAt, "generic", "Set the expiration for a key as a UNIX timestamp"},
      {"pexpireat", -3, kWrite | kFast | kHeaderOnly, 1, 1, 1, CmdPExpireAt, "generic", "Set the expiration for a key as a UNIX timestamp specified in milliseconds"},
      {"ttl", 2, kReadonly | kFast | kHeaderOnly, 1, 1, 1, CmdTtl, "generic", "Get the time to live for a key in seconds"},
      {"pttl", 2, kReadonly | kFast | kHeaderOnly, 1, 1, 1, CmdPTtl, "generic", "Get the time to live for a key in milliseconds"},
      {"expiretime", 2, kReadonly | kFast | kHeaderOnly, 1, 1, 1, CmdExpireTime, "generic", "Get the expiration Unix timestamp for a key"},
      {"pexpiretime", 2, kReadonly | kFast | kHeaderOnly, 1, 1, 1, CmdPExpireTime, "generic", "Get the expiration Unix timestamp for a key in milliseconds"},
      {"persist", 2, kWrite | kFast | kHeaderOnly, 1, 1, 1, CmdPersist, "generic", "Remove the expiration from a key"},
  });
  // clang-format on
}

}  // namespace ordis::server
