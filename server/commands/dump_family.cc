// DUMP, RESTORE (and RESTORE-ASKING) and MIGRATE: a key's value in Redis 7.0's payload format
// (server/rdb/rdb_value.h), so a key moves between ordis and redis-server either way.
#include <string>
#include <vector>

#include "base/number.h"
#include "persistence/rdb_payload.h"
#include "resp/writer.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/migrate_target.h"
#include "server/keyspace/eviction.h"
#include "server/rdb/rdb_value.h"

namespace ordis::server {
namespace {

namespace rdb = persistence::rdb;

// DUMP key
void CmdDump(CommandContext& ctx) {
  Object* obj = LookupRead(ctx, ctx.args[1]);
  if (obj == nullptr) {
    ctx.out.NullBulk();
    return;
  }
  ctx.out.Bulk(DumpPayload(*obj, RdbLimits::FromConfig(ctx.config())));
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
// Checks in Redis's order: options, an existing key, the TTL, the payload's footer, its value.
void CmdRestore(CommandContext& ctx) {
  bool replace = false, absttl = false;
  int64_t idle_s = -1, freq = -1;
  for (size_t i = 4; i < ctx.args.size(); ++i) {
    const bool has_value = i + 1 < ctx.args.size();
    if (EqualsIgnoreCase(ctx.args[i], "REPLACE")) {
      replace = true;
    } else if (EqualsIgnoreCase(ctx.args[i], "ABSTTL")) {
      absttl = true;
    } else if (EqualsIgnoreCase(ctx.args[i], "IDLETIME") && has_value && freq == -1) {
      if (!ParseInt64(ctx.args[++i], &idle_s)) return ctx.out.Error(errors::kNotInteger);
      if (idle_s < 0) return ctx.out.Error("ERR Invalid IDLETIME value, must be >= 0");
    } else if (EqualsIgnoreCase(ctx.args[i], "FREQ") && has_value && idle_s == -1) {
      if (!ParseInt64(ctx.args[++i], &freq)) return ctx.out.Error(errors::kNotInteger);
      if (freq < 0 || freq > 255) {
        return ctx.out.Error("ERR Invalid FREQ value, must be >= 0 and <= 255");
      }
    } else {
      return ctx.out.Error(errors::kSyntax);
    }
  }
  Keyspace& ks = ctx.keyspace();
  const std::string_view key = ctx.args[1];
  const bool exists = ks.FindForReplace(ctx.db(), key, ctx.now_ms) != nullptr;
  if (exists && !replace) return ctx.out.Error(errors::kBusyKey);
  int64_t ttl;
  if (!ParseInt64(ctx.args[2], &ttl)) return ctx.out.Error(errors::kNotInteger);
  if (ttl < 0) return ctx.out.Error("ERR Invalid TTL value, must be >= 0");
  const std::string_view payload = ctx.args[3];
  if (!rdb::Verify(payload)) return ctx.out.Error(errors::kDumpPayload);
  int64_t expire_at = kNoExpire;
  if (ttl > 0 && !CheckedAdd(ttl, absttl ? 0 : ctx.now_ms, &expire_at)) expire_at = INT64_MAX;
  rdb::Reader in(payload.substr(0, payload.size() - 10));  // without version and checksum
  uint8_t type;
  ObjectPtr obj;
  if (!in.ReadByte(&type) || ReadRdbValue(type, &in, RdbLimits::FromConfig(ctx.config()), expire_at,
                                          &obj) != RdbValueStatus::kOk) {
    return ctx.out.Error(errors::kBadDataFormat);
  }
  if (exists) ks.Delete(ctx.db(), key);
  if (expire_at != kNoExpire && expire_at <= ctx.now_ms) {
    // Already expired: the key is gone (a replaced one deleted), as Redis.
    if (exists) ctx.Notify(keyspace_events::kGeneric, "del", key);
    return ctx.out.Ok();
  }
  if (ctx.config().lfu_policy()) {
    if (freq >= 0) obj->lfu.store(static_cast<uint8_t>(freq), std::memory_order_relaxed);
    obj->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
  } else {
    const uint32_t now_s = LruClockS(ctx.now_ms);
    const uint64_t idle = idle_s > 0 ? static_cast<uint64_t>(idle_s) : 0;
    obj->access_s.store(idle < now_s ? static_cast<uint32_t>(now_s - idle) : 0,
                        std::memory_order_relaxed);
  }
  ks.Set(ctx.db(), key, std::move(obj));
  ctx.Notify(keyspace_events::kGeneric, "restore", key);
  ctx.out.Ok();
}

// MIGRATE's keys: the key argument, or with KEYS (the key argument then empty) the keys after it.
// AUTH's password and AUTH2's username and password are skipped: a password "keys" is no keyword.
void MigrateKeys(std::span<const std::string_view> args, std::vector<size_t>* out) {
  for (size_t i = 6; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "AUTH")) {
      ++i;
      continue;
    }
    if (EqualsIgnoreCase(args[i], "AUTH2")) {
      i += 2;
      continue;
    }
    if (EqualsIgnoreCase(args[i], "KEYS")) {
      if (!args[3].empty()) return;  // refused when it runs
      for (size_t k = i + 1; k < args.size(); ++k) out->push_back(k);
      return;
    }
  }
  if (args.size() > 3) out->push_back(3);
}

// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password |
//   AUTH2 username password] [KEYS key [key ...]]
// As Redis 7.0's: one connection (not cached between calls, so each call connects), AUTH and
// SELECT, a RESTORE per key, then the replies; keys the target took are deleted here unless COPY.
void CmdMigrate(CommandContext& ctx) {
  const auto& args = ctx.args;
  bool copy = false, replace = false;
  std::string_view username, password;
  size_t first_key = 3, num_keys = 1;
  for (size_t j = 6; j < args.size(); ++j) {
    const size_t more = args.size() - j - 1;
    if (EqualsIgnoreCase(args[j], "COPY")) {
      copy = true;
    } else if (EqualsIgnoreCase(args[j], "REPLACE")) {
      replace = true;
    } else if (EqualsIgnoreCase(args[j], "AUTH")) {
      if (more < 1) return ctx.out.Error(errors::kSyntax);
      password = args[++j];
    } else if (EqualsIgnoreCase(args[j], "AUTH2")) {
      if (more < 2) return ctx.out.Error(errors::kSyntax);
      username = args[++j];
      password = args[++j];
    } else if (EqualsIgnoreCase(args[j], "KEYS")) {
      if (!args[3].empty()) {
        return ctx.out.Error(
            "ERR When using MIGRATE KEYS option, the key argument must be set to the empty "
            "string");
      }
      first_key = j + 1;
      num_keys = args.size() - j - 1;
      break;
    } else {
      return ctx.out.Error(errors::kSyntax);
    }
  }
  int64_t timeout, dbid;
  if (!ParseInt64(args[5], &timeout) || !ParseInt64(args[4], &dbid) || dbid < INT32_MIN ||
      dbid > INT32_MAX) {
    return ctx.out.Error(errors::kNotInteger);
  }
  if (timeout <= 0) timeout = 1000;
  // The keys that exist, with their payloads and remaining TTLs.
  struct Moving {
    std::string_view key;
    std::string ttl;
    std::string payload;
  };
  std::vector<Moving> moving;
  const RdbLimits limits = RdbLimits::FromConfig(ctx.config());
  for (size_t i = first_key; i < first_key + num_keys; ++i) {
    Object* obj = LookupRead(ctx, args[i]);
    if (obj == nullptr) continue;
    int64_t ttl = 0;
    if (obj->has_ttl()) {
      ttl = obj->expire_at_ms() - ctx.now_ms;
      if (ttl < 0) continue;
      if (ttl < 1) ttl = 1;
    }
    moving.push_back({args[i], std::to_string(ttl), DumpPayload(*obj, limits)});
  }
  if (moving.empty()) return ctx.out.SimpleString("NOKEY");
  MigrateTarget target;
  if (!target.Connect(std::string(args[1]), std::string(args[2]), timeout)) {
    return ctx.out.Error("IOERR error or timeout connecting to the client");
  }
  std::string request;
  if (!password.empty()) {
    if (username.empty()) {
      const std::string_view auth[] = {"AUTH", password};
      resp::AppendCommand(&request, auth);
    } else {
      const std::string_view auth[] = {"AUTH", username, password};
      resp::AppendCommand(&request, auth);
    }
  }
  const std::string db_text = std::to_string(dbid);
  const std::string_view select[] = {"SELECT", db_text};
  resp::AppendCommand(&request, select);
  for (const Moving& m : moving) {
    std::vector<std::string_view> restore = {"RESTORE", m.key, m.ttl, m.payload};
    if (replace) restore.push_back("REPLACE");
    resp::AppendCommand(&request, restore);
  }
  if (!target.Write(request))
    return ctx.out.Error("IOERR error or timeout writing to target instance");
  std::string auth_reply, select_reply, reply;
  if ((!password.empty() && !target.ReadLine(&auth_reply)) || !target.ReadLine(&select_reply)) {
    return ctx.out.Error("IOERR error or timeout reading to target instance");
  }
  // The first error the target gave (AUTH's, SELECT's, else a RESTORE's) is the reply; keys it
  // restored before or after still move.
  std::string target_error;
  if (!auth_reply.empty() && auth_reply[0] == '-') target_error = auth_reply.substr(1);
  if (target_error.empty() && select_reply[0] == '-') target_error = select_reply.substr(1);
  std::vector<std::string> deleted = {"del"};
  bool socket_error = false;
  for (const Moving& m : moving) {
    if (!target.ReadLine(&reply)) {
      socket_error = true;
      break;
    }
    const bool failed = (!auth_reply.empty() && auth_reply[0] == '-') || select_reply[0] == '-' ||
                        (!reply.empty() && reply[0] == '-');
    if (failed) {
      if (target_error.empty()) target_error = reply.substr(1);
    } else if (!copy) {
      ctx.keyspace().Delete(ctx.db(), m.key);
      ctx.Notify(keyspace_events::kGeneric, "del", m.key);
      deleted.emplace_back(m.key);
    }
  }
  // The log records the deletions, never the migration itself.
  if (ctx.propagate != nullptr && deleted.size() > 1) *ctx.propagate = std::move(deleted);
  if (!target_error.empty()) {
    return ctx.out.Error("ERR Target instance replied with error: " + target_error);
  }
  if (socket_error) return ctx.out.Error("IOERR error or timeout reading to target instance");
  ctx.out.Ok();
}

}  // namespace

void RegisterDumpFamily(CommandTable* table) {
  using namespace cmd;
  // clang-format off
  table->Register({
      {"dump", 2, kReadonly, 1, 1, 1, CmdDump, "generic",
       "Return a serialized version of the value stored at the specified key."},
      {"restore", -4, kWrite | kDenyOom, 1, 1, 1, CmdRestore, "generic",
       "Create a key using the provided serialized value, previously obtained using DUMP."},
      {"restore-asking", -4, kWrite | kDenyOom | kAsking, 1, 1, 1, CmdRestore, "server",
       "An internal command for migrating keys in a cluster"},
      {.name = "migrate", .arity = -6, .flags = kWrite, .first_key = 3, .last_key = 3,
       .key_step = 1, .handler = CmdMigrate, .group = "generic",
       .summary = "Atomically transfer a key from a Redis instance to another one.",
       .find_keys = MigrateKeys},
  });
  // clang-format on
}

}  // namespace ordis::server
