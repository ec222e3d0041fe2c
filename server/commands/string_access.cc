#include "server/commands/string_access.h"

#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/lookup.h"

namespace ordis::server {

bool StoreString(CommandContext& ctx, std::string_view key, std::string_view value,
                 int64_t expire_at_ms, Object* existing, StringRule rule) {
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

Object* FindStringForWrite(CommandContext& ctx, std::string_view key, bool* failed, bool reads) {
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

bool WithinBulkLimit(CommandContext& ctx, uint64_t size) {
  if (size > static_cast<uint64_t>(ctx.config().proto_max_bulk_len())) {
    ctx.out.Error(errors::kStringTooLong);
    return false;
  }
  return true;
}

}  // namespace ordis::server
