// Generic key commands: DEL UNLINK EXISTS TYPE RENAME RENAMENX TOUCH COPY MOVE SWAPDB OBJECT.
#include <climits>
#include <memory>
#include <string>

#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/object_info.h"
#include "server/rdb/rdb_value.h"

namespace ordis::server {
namespace {

void Delete(CommandContext& ctx, FreeMode free) {
  int64_t deleted = 0;
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    // An expired key is deleted on sight and not counted; a cold value is not read to go.
    if (ctx.keyspace().FindForReplace(ctx.db(), ctx.args[i], ctx.now_ms) != nullptr &&
        ctx.keyspace().Delete(ctx.db(), ctx.args[i], free)) {
      ctx.Notify(keyspace_events::kGeneric, "del", ctx.args[i]);
      ++deleted;
    }
  }
  ctx.out.Integer(deleted);
}

// DEL key [key ...]
void CmdDel(CommandContext& ctx) {
  Delete(ctx, ctx.config().lazyfree_lazy_user_del() ? FreeMode::kLazy : FreeMode::kSync);
}

// UNLINK key [key ...]
void CmdUnlink(CommandContext& ctx) { Delete(ctx, FreeMode::kLazy); }

// EXISTS key [key ...]
void CmdExists(CommandContext& ctx) {
  int64_t found = 0;
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    if (LookupHeaderNoTouch(ctx, ctx.args[i]) != nullptr) ++found;
  }
  ctx.out.Integer(found);
}

// TOUCH key [key ...]
void CmdTouch(CommandContext& ctx) {
  // TOUCH records the access even for a client with CLIENT NO-TOUCH ON (Redis 7.2).
  const bool no_touch = ctx.client.no_touch;
  ctx.client.no_touch = false;
  int64_t touched = 0;
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    Object* obj = ctx.keyspace().FindHeader(ctx.db(), ctx.args[i], ctx.now_ms, ctx.expired);
    if (CountRead(ctx, ctx.args[i], obj) != nullptr) ++touched;
  }
  ctx.client.no_touch = no_touch;
  ctx.out.Integer(touched);
}

// TYPE key
void CmdType(CommandContext& ctx) {
  Object* obj = LookupHeaderNoTouch(ctx, ctx.args[1]);
  ctx.out.SimpleString(obj == nullptr ? "none" : TypeName(obj->type()));
}

void Rename(CommandContext& ctx, bool nx) {
  Keyspace& ks = ctx.keyspace();
  std::string_view from = ctx.args[1], to = ctx.args[2];
  if (ks.FindForWrite(ctx.db(), from, ctx.now_ms) == nullptr) {
    ctx.out.Error(errors::kNoSuchKey);
    return;
  }
  if (from == to) {
    if (nx) {
      ctx.out.Integer(0);
    } else {
      ctx.out.Ok();
    }
    return;
  }
  if (ks.FindForWrite(ctx.db(), to, ctx.now_ms) != nullptr) {
    if (nx) {
      ctx.out.Integer(0);
      return;
    }
    // As Redis: the target goes first, so the key is added anew ("new" event).
    ks.Delete(ctx.db(), to);
  }
  ks.Move(ctx.db(), from, ctx.db(), to);
  ctx.Notify(keyspace_events::kGeneric, "rename_from", from);
  ctx.Notify(keyspace_events::kGeneric, "rename_to", to);
  if (nx) {
    ctx.out.Integer(1);
  } else {
    ctx.out.Ok();
  }
}

// RENAME key newkey
void CmdRename(CommandContext& ctx) { Rename(ctx, false); }
// RENAMENX key newkey
void CmdRenameNx(CommandContext& ctx) { Rename(ctx, true); }

// Parses a database index the way MOVE/COPY/SWAPDB do; replies and returns false on error.
bool ParseDb(CommandContext& ctx, std::string_view arg, std::string_view not_int_error, int* db) {
  int64_t v;
  if (!ParseInt64(arg, &v) || v < INT_MIN || v > INT_MAX) {
    ctx.out.Error(not_int_error);
    return false;
  }
  if (v < 0 || v >= ctx.keyspace().num_dbs()) {
    ctx.out.Error(errors::kDbIndexOutOfRange);
    return false;
  }
  *db = static_cast<int>(v);
  return true;
}

// COPY source destination [DB destination-db] [REPLACE]
void CmdCopy(CommandContext& ctx) {
  int dst_db = ctx.db();
  bool replace = false;
  for (size_t i = 3; i < ctx.args.size(); ++i) {
    if (EqualsIgnoreCase(ctx.args[i], "REPLACE")) {
      replace = true;
    } else if (EqualsIgnoreCase(ctx.args[i], "DB") && i + 1 < ctx.args.size()) {
      if (!ParseDb(ctx, ctx.args[++i], errors::kNotInteger, &dst_db)) return;
    } else {
      ctx.out.Error(errors::kSyntax);
      return;
    }
  }
  std::string_view from = ctx.args[1], to = ctx.args[2];
  if (dst_db == ctx.db() && from == to) {
    ctx.out.Error(errors::kSameObject);
    return;
  }
  Keyspace& ks = ctx.keyspace();
  Object* src = ks.FindForWrite(ctx.db(), from, ctx.now_ms);
  CountLookup(ctx, from, src);  // the source is read (Redis's lookupKeyRead)
  if (src == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  if (ks.FindForWrite(dst_db, to, ctx.now_ms) != nullptr) {
    if (!replace) {
      ctx.out.Integer(0);
      return;
    }
    // As Redis: the target goes first, so the copy is added anew ("new" event).
    ks.Delete(dst_db, to);
  }
  auto copy = CloneObject(*src);
  copy->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
  ks.Set(dst_db, to, std::move(copy));
  ks.notifier().Notify(keyspace_events::kGeneric, "copy_to", dst_db, to);
  ctx.out.Integer(1);
}

// MOVE key db
void CmdMove(CommandContext& ctx) {
  int dst_db;
  if (!ParseDb(ctx, ctx.args[2], errors::kNotInteger, &dst_db)) return;
  if (dst_db == ctx.db()) {
    ctx.out.Error(errors::kSameObject);
    return;
  }
  Keyspace& ks = ctx.keyspace();
  std::string_view key = ctx.args[1];
  if (ks.FindForWrite(ctx.db(), key, ctx.now_ms) == nullptr ||
      ks.FindForWrite(dst_db, key, ctx.now_ms) != nullptr) {
    ctx.out.Integer(0);
    return;
  }
  ks.Move(ctx.db(), key, dst_db, key);
  ctx.Notify(keyspace_events::kGeneric, "move_from", key);
  ks.notifier().Notify(keyspace_events::kGeneric, "move_to", dst_db, key);
  ctx.out.Integer(1);
}

// SWAPDB index1 index2
void CmdSwapDb(CommandContext& ctx) {
  int a, b;
  if (!ParseDb(ctx, ctx.args[1], errors::kInvalidFirstDbIndex, &a)) return;
  if (!ParseDb(ctx, ctx.args[2], errors::kInvalidSecondDbIndex, &b)) return;
  if (a != b) ctx.keyspace().SwapDb(a, b);
  ctx.out.Ok();
}

// OBJECT HELP
void CmdObjectHelp(CommandContext& ctx) {
  static constexpr std::string_view kHelp[] = {
      "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "ENCODING <key>",
      "    Return the kind of internal representation used in order to store the value",
      "    associated with a <key>.",
      "FREQ <key>",
      "    Return the access frequency index of the <key>. The returned integer is",
      "    proportional to the logarithm of the recent access frequency of the key.",
      "IDLETIME <key>",
      "    Return the idle time of the <key>, that is the approximated number of",
      "    seconds elapsed since the last access to the key.",
      "REFCOUNT <key>",
      "    Return the number of references of the value associated with the specified",
      "    <key>.",
      "HELP",
      "    Print this help."};
  ReplyHelp(ctx.out, kHelp);
}

// The object OBJECT <sub> key inspects, or nullptr after replying nil. Not an access.
Object* ObjectTarget(CommandContext& ctx) {
  Object* obj = ctx.keyspace().FindHeader(ctx.db(), ctx.args[2], ctx.now_ms, ctx.expired);
  if (obj == nullptr) ctx.out.NullBulk();
  return obj;
}

// OBJECT ENCODING key
void CmdObjectEncoding(CommandContext& ctx) {
  Object* obj = ObjectTarget(ctx);
  // A cold collection's encoding is named from its value (a cold string's is "raw").
  if (obj != nullptr && obj->cold() && obj->type() != ObjType::kString) {
    obj = ctx.keyspace().Find(ctx.db(), ctx.args[2], ctx.now_ms, ctx.expired);
    if (obj == nullptr) {  // its record could not be read: the key is gone
      ctx.out.NullBulk();
      return;
    }
  }
  if (obj != nullptr) ctx.out.Bulk(EncodingName(*obj, ctx.config()));
}

// OBJECT REFCOUNT key
void CmdObjectRefcount(CommandContext& ctx) {
  if (Object* obj = ObjectTarget(ctx)) ctx.out.Integer(ObjectRefcount(*obj));
}

// OBJECT IDLETIME key
void CmdObjectIdletime(CommandContext& ctx) {
  Object* obj = ObjectTarget(ctx);
  if (obj == nullptr) return;
  if (ctx.config().lfu_policy()) {
    ctx.out.Error(errors::kLfuSelectedNoIdletime);
    return;
  }
  int64_t idle =
      static_cast<int64_t>(LruClockS(ctx.now_ms)) - obj->access_s.load(std::memory_order_relaxed);
  ctx.out.Integer(idle < 0 ? 0 : idle);
}

// OBJECT FREQ key
void CmdObjectFreq(CommandContext& ctx) {
  Object* obj = ObjectTarget(ctx);
  if (obj == nullptr) return;
  if (!ctx.config().lfu_policy()) {
    ctx.out.Error(errors::kLfuNotSelected);
    return;
  }
  ctx.out.Integer(LfuDecayed(*obj, ctx.now_ms, ctx.config().lfu_decay_time()));
}

}  // namespace

void RegisterKeysFamily(CommandTable* table) {
  using namespace cmd;
  // One row per command.
  // clang-format off
  table->Register({
      {"del", -2, kWrite, 1, -1, 1, CmdDel, "generic", "Delete a key"},
      {"unlink", -2, kWrite | kFast, 1, -1, 1, CmdUnlink, "generic",
       "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking."},
      {"exists", -2, kReadonly | kFast | kHeaderOnly, 1, -1, 1, CmdExists, "generic", "Determine if a key exists"},
      {"touch", -2, kReadonly | kFast | kHeaderOnly, 1, -1, 1, CmdTouch, "generic",
       "Alters the last access time of a key(s). Returns the number of existing keys specified."},
      {"type", 2, kReadonly | kFast | kHeaderOnly, 1, 1, 1, CmdType, "generic", "Determine the type stored at key"},
      {"rename", 3, kWrite, 1, 2, 1, CmdRename, "generic", "Rename a key"},
      {"renamenx", 3, kWrite | kFast, 1, 2, 1, CmdRenameNx, "generic",
       "Rename a key, only if the new key does not exist"},
      {"copy", -3, kWrite | kDenyOom, 1, 2, 1, CmdCopy, "generic", "Copy a key"},
      {"move", 3, kWrite | kFast, 1, 1, 1, CmdMove, "generic", "Move a key to another database"},
      {"swapdb", 3, kWrite | kFast, 0, 0, 0, CmdSwapDb, "server", "Swaps two Redis databases"},
      {"object", -2, 0, 0, 0, 0, nullptr, "generic",
       "A container for object introspection commands",
       {
           {"object|encoding", 3, kReadonly, 2, 2, 1, CmdObjectEncoding, "generic",
            "Inspect the internal encoding of a Redis object"},
           {"object|freq", 3, kReadonly, 2, 2, 1, CmdObjectFreq, "generic",
            "Get the logarithmic access frequency counter of a Redis object"},
           {"object|idletime", 3, kReadonly, 2, 2, 1, CmdObjectIdletime, "generic",
            "Get the time since a Redis object was last accessed"},
           {"object|refcount", 3, kReadonly, 2, 2, 1, CmdObjectRefcount, "generic",
            "Get the number of references to the value of the key"},
           {"object|help", 2, kLoading | kStale, 0, 0, 0, CmdObjectHelp, "generic",
            "Show helpful text about the different subcommands"},
       }},
  });
  // clang-format on
}

}  // namespace ordis::server
