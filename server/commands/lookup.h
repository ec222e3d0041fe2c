// How command handlers reach keys: lookups that do the bookkeeping every access needs (the access
// time for OBJECT IDLETIME and LRU, the LFU counter for OBJECT FREQ, keyspace hit/miss statistics)
// and typed collection lookups that reply WRONGTYPE.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <string_view>

#include "server/command/command.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/keyspace/eviction.h"
#include "server/keyspace/object.h"

namespace ordis::server {

// Under an LFU policy, the access counter first (its decay counts from the previous access).
// Nothing for a client with CLIENT NO-TOUCH ON (TOUCH lifts it for its own run).
inline void RecordAccess(CommandContext& ctx, Object* obj) {
  if (ctx.client.no_touch) return;
  if (ctx.config().lfu_policy()) {
    thread_local std::minstd_rand rng(12345);
    LfuAccess(obj, ctx.now_ms, ctx.config().lfu_log_factor(), ctx.config().lfu_decay_time(),
              std::uniform_real_distribution<double>(0, 1)(rng));
  }
  obj->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
}

// Counts a read lookup of key's hit or miss; a miss raises "keymiss" (Redis's lookupKey).
inline void CountLookup(CommandContext& ctx, std::string_view key, const Object* obj) {
  ThreadStats& stats = ctx.stats();
  if (obj == nullptr) {
    Bump(stats[Stat::kKeyspaceMisses]);
    ctx.Notify(keyspace_events::kKeyMiss, "keymiss", key);
  } else {
    Bump(stats[Stat::kKeyspaceHits]);
  }
}

// Counts a read lookup's hit or miss and records the access.
inline Object* CountRead(CommandContext& ctx, std::string_view key, Object* obj) {
  CountLookup(ctx, key, obj);
  if (obj != nullptr) RecordAccess(ctx, obj);
  return obj;
}

// A read lookup: counts a hit or miss and records the access.
inline Object* LookupRead(CommandContext& ctx, std::string_view key) {
  return CountRead(ctx, key, ctx.keyspace().Find(ctx.db(), key, ctx.now_ms, ctx.expired));
}

// A look at a key's header that is counted but is not an access (Redis's LOOKUP_NOTOUCH: EXISTS,
// TYPE, TTL and friends leave OBJECT IDLETIME and the LFU counter as they were). The object may
// be cold (Keyspace::FindHeader): no cold value is read for it.
inline Object* LookupHeaderNoTouch(CommandContext& ctx, std::string_view key) {
  Object* obj = ctx.keyspace().FindHeader(ctx.db(), key, ctx.now_ms, ctx.expired);
  CountLookup(ctx, key, obj);
  return obj;
}

// The collection of type t at key for a write command. A missing key yields a new empty object
// stored at key when create is true (nullptr otherwise). A key of another type yields nullptr
// with *wrong_type set, after replying WRONGTYPE.
inline Object* FindCollectionForWrite(CommandContext& ctx, std::string_view key, ObjType t,
                                      bool create, bool* wrong_type) {
  *wrong_type = false;
  Object* obj = ctx.keyspace().FindForWrite(ctx.db(), key, ctx.now_ms);
  if (obj != nullptr && obj->type() != t) {
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

// The first of keys holding a collection of type t for a write (the multi-key pops: collections
// are never empty), or nullptr; *index is its position. A key of another type met first replies
// WRONGTYPE (*wrong_type), as Redis checks them in order.
inline Object* FirstCollectionForWrite(CommandContext& ctx, std::span<const std::string_view> keys,
                                       ObjType t, size_t* index, bool* wrong_type) {
  for (size_t i = 0; i < keys.size(); ++i) {
    Object* obj = FindCollectionForWrite(ctx, keys[i], t, false, wrong_type);
    if (*wrong_type) return nullptr;
    if (obj != nullptr) {
      *index = i;
      return obj;
    }
  }
  return nullptr;
}

// The collection of type t at key for a read command: nullptr if missing, or (with *wrong_type
// set, after replying WRONGTYPE) if the key holds another type.
inline Object* FindCollectionForRead(CommandContext& ctx, std::string_view key, ObjType t,
                                     bool* wrong_type) {
  *wrong_type = false;
  Object* obj = LookupRead(ctx, key);
  if (obj != nullptr && obj->type() != t) {
    *wrong_type = true;
    ctx.out.Error(errors::kWrongType);
    return nullptr;
  }
  return obj;
}

// After a write command changed the collection at key in place (and raised its keyspace event):
// signals watchers and deletes the key if the collection is now empty, as Redis does, with its
// "del" event.
inline void FinishCollectionWrite(CommandContext& ctx, std::string_view key, Object* obj) {
  if (obj->EmptyCollection()) {
    ctx.keyspace().Delete(ctx.db(), key);
    ctx.Notify(keyspace_events::kGeneric, "del", key);
  } else {
    ctx.keyspace().SignalModified(ctx.db(), key);
  }
}

}  // namespace ordis::server
