// DEBUG <subcommand>: the subcommands tools and test suites use, as Redis 7.0's debug.c replies
// them, behind enable-debug-command: SLEEP, OBJECT, RELOAD, POPULATE, SET-ACTIVE-EXPIRE, DIGEST,
// DIGEST-VALUE, PROTOCOL, LOG, ERROR, HELP. The ones that crash or corrupt the server on purpose
// (SEGFAULT, PANIC, OOM, ASSERT, LEAK, CRASH-AND-RECOVER), replication's and the allocator's are
// not built (the README says which and why).
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "base/logging.h"
#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/object_info.h"
#include "server/commands/string_access.h"
#include "server/rdb/rdb_value.h"

namespace ordis::server {
namespace {

bool AllowedBySetting(const CommandContext& ctx, std::string_view setting) {
  return setting == "yes" || (setting == "local" && ctx.client.local);
}

// Redis's dataset digest (DEBUG DIGEST, DIGEST-VALUE): SHA-1s xored together where order does not
// matter (a set's members, a hash's fields, a database's keys) and chained ("mixed": the digest
// is hashed again after each xor) where it does (a list's elements, a key before its value).
using Digest = std::array<unsigned char, 20>;

void XorDigest(Digest& digest, std::string_view bytes) {
  unsigned char hash[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), hash, &len, EVP_sha1(), nullptr);
  for (size_t i = 0; i < digest.size(); ++i) digest[i] ^= hash[i];
}

void MixDigest(Digest& digest, std::string_view bytes) {
  XorDigest(digest, bytes);
  unsigned int len = 0;
  EVP_Digest(digest.data(), digest.size(), digest.data(), &len, EVP_sha1(), nullptr);
}

std::string_view AsBytes(const Digest& d) {
  return {reinterpret_cast<const char*>(d.data()), d.size()};
}

// The digest of obj's type, value and whether it expires (Redis's xorObjectDigest). A stream's
// value is mixed as its RDB encoding, which differs from Redis's walk of its radix tree.
void XorObjectDigest(const Object& obj, const RdbLimits& limits, Digest& digest) {
  const uint32_t type_be = __builtin_bswap32(static_cast<uint32_t>(RedisTypeCode(obj.type())));
  MixDigest(digest, std::string_view(reinterpret_cast<const char*>(&type_be), 4));
  char buf[32];
  switch (obj.type()) {
    case ObjType::kString: {
      IntText scratch;
      MixDigest(digest, obj.StringBytes(&scratch));
      break;
    }
    case ObjType::kList:
      for (const std::string& e : std::get<ListValue>(obj.collection())) MixDigest(digest, e);
      break;
    case ObjType::kSet:
      for (const std::string& m : std::get<SetValue>(obj.collection())) XorDigest(digest, m);
      break;
    case ObjType::kZSet: {
      const ZSetValue& z = obj.zset();
      if (z.empty()) break;
      z.VisitFrom(0, false, [&](std::string_view member, double score) {
        Digest entry{};
        MixDigest(entry, member);
        const int n = std::snprintf(buf, sizeof buf, "%.17g", score);
        MixDigest(entry, std::string_view(buf, static_cast<size_t>(n)));
        XorDigest(digest, AsBytes(entry));
        return true;
      });
      break;
    }
    case ObjType::kHash:
      for (const auto& [field, value] : std::get<HashValue>(obj.collection())) {
        Digest entry{};
        MixDigest(entry, field);
        MixDigest(entry, value);
        XorDigest(digest, AsBytes(entry));
      }
      break;
    case ObjType::kStream: {
      std::string encoded;
      AppendRdbValue(obj, limits, &encoded);
      MixDigest(digest, encoded);
      break;
    }
  }
  if (obj.has_ttl()) XorDigest(digest, "!!expire!!");
}

std::string Hex(const Digest& d) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : d) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

// DEBUG DIGEST: every database's keys and values; 40 zeros when there are none.
void DebugDigest(CommandContext& ctx) {
  const RdbLimits limits = RdbLimits::FromConfig(ctx.config());
  Keyspace& ks = ctx.keyspace();
  Digest final_digest{};
  for (int db = 0; db < ks.num_dbs(); ++db) {
    if (ks.DbSize(db) == 0) continue;
    const uint32_t db_be = __builtin_bswap32(static_cast<uint32_t>(db));
    MixDigest(final_digest, std::string_view(reinterpret_cast<const char*>(&db_be), 4));
    ks.Scan(db, index::ScanStart::Edge(), index::Direction::kForward, ctx.now_ms,
            [&](std::string_view key, Object* obj) {
              const Object* value = ks.Resident(db, key, obj);
              if (value == nullptr) return true;  // an unreadable cold record: the key is lost
              Digest digest{};
              MixDigest(digest, key);
              XorObjectDigest(*value, limits, digest);
              XorDigest(final_digest, AsBytes(digest));
              return true;
            });
  }
  ctx.out.SimpleString(Hex(final_digest));
}

// DEBUG DIGEST-VALUE key [key ...]: each value's digest (its key not mixed in); zeros if missing.
void DebugDigestValue(CommandContext& ctx) {
  const RdbLimits limits = RdbLimits::FromConfig(ctx.config());
  ctx.out.ArrayHeader(static_cast<int64_t>(ctx.args.size() - 2));
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    Digest digest{};
    if (const Object* obj = ctx.keyspace().Find(ctx.db(), ctx.args[i], ctx.now_ms, ctx.expired)) {
      XorObjectDigest(*obj, limits, digest);
    }
    ctx.out.SimpleString(Hex(digest));
  }
}

// DEBUG OBJECT key: Redis's line. refcount is OBJECT REFCOUNT's; serializedlength the value's RDB
// encoding without its type byte; lru the 24-bit clock of its last access. Not an access.
void DebugObject(CommandContext& ctx) {
  const Object* obj = ctx.keyspace().Find(ctx.db(), ctx.args[2], ctx.now_ms, ctx.expired);
  if (obj == nullptr) {
    ctx.out.Error(errors::kNoSuchKey);
    return;
  }
  const RdbLimits limits = RdbLimits::FromConfig(ctx.config());
  std::string encoded;
  AppendRdbValue(*obj, limits, &encoded);
  const uint32_t access_s = obj->access_s.load(std::memory_order_relaxed);
  const int64_t idle = std::max<int64_t>(0, int64_t{LruClockS(ctx.now_ms)} - access_s);
  char line[512];
  int n = std::snprintf(line, sizeof line,
                        "Value at:%p refcount:%lld encoding:%s serializedlength:%zu lru:%u "
                        "lru_seconds_idle:%lld",
                        static_cast<const void*>(obj), static_cast<long long>(ObjectRefcount(*obj)),
                        std::string(EncodingName(*obj, ctx.config())).c_str(), encoded.size() - 1,
                        access_s & ((1u << 24) - 1), static_cast<long long>(idle));
  std::string text(line, static_cast<size_t>(n));
  if (obj->type() == ObjType::kList) {
    const QuicklistShape q = QuicklistShapeOf(std::get<ListValue>(obj->collection()), limits);
    n = std::snprintf(line, sizeof line,
                      " ql_nodes:%zu ql_avg_node:%.2f ql_listpack_max:%lld ql_compressed:0 "
                      "ql_uncompressed_size:%zu",
                      q.nodes, q.nodes == 0 ? 0.0 : static_cast<double>(q.elements) / q.nodes,
                      static_cast<long long>(limits.list_max_listpack_size), q.bytes);
    text.append(line, static_cast<size_t>(n));
  }
  ctx.out.SimpleString(text);
}

// DEBUG POPULATE count [prefix [size]]: keys prefix:0 .. prefix:count-1 holding "value:<n>"
// (or exactly size bytes of it, zero-padded), skipping keys that exist. Like Redis's, they are
// not logged or announced.
void DebugPopulate(CommandContext& ctx) {
  int64_t count = 0, size = 0;
  if (!ParseInt64(ctx.args[2], &count) || count < 0 ||
      (ctx.args.size() > 4 && (!ParseInt64(ctx.args[4], &size) || size < 0))) {
    ctx.out.Error(errors::kNotPositive);
    return;
  }
  if (!WithinBulkLimit(ctx, static_cast<uint64_t>(size))) return;
  const std::string prefix(ctx.args.size() > 3 ? ctx.args[3] : "key");
  std::string key, value;
  for (int64_t i = 0; i < count; ++i) {
    key = prefix + ":" + std::to_string(i);
    if (ctx.keyspace().FindForReplace(ctx.db(), key, ctx.now_ms) != nullptr) continue;
    value = "value:" + std::to_string(i);
    if (size > 0) value.resize(static_cast<size_t>(size), '\0');
    StoreString(ctx, key, value, kNoExpire, nullptr);
  }
  ctx.out.Ok();
}

// DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: a snapshot saved (unless NOSAVE), the keyspace emptied
// (unless NOFLUSH) and the snapshot loaded back. With NOFLUSH a key in both is replaced by the
// snapshot's, MERGE or not (Redis without MERGE stops the server on such a key).
void DebugReload(CommandContext& ctx) {
  bool save = true, flush = true;
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    if (EqualsIgnoreCase(ctx.args[i], "NOSAVE")) {
      save = false;
    } else if (EqualsIgnoreCase(ctx.args[i], "NOFLUSH")) {
      flush = false;
    } else if (!EqualsIgnoreCase(ctx.args[i], "MERGE")) {
      ctx.out.Error(errors::kDebugReloadOptions);
      return;
    }
  }
  const persistence::Status status = ctx.services.durability.Reload(save, flush);
  if (status.ok()) {
    ctx.out.Ok();
    return;
  }
  log::Warning("DEBUG RELOAD failed: {}", status.message());
  ctx.out.Error(status.message().starts_with("save") ? errors::kDebugReloadSave
                                                     : errors::kDebugReloadLoad);
}

// DEBUG PROTOCOL type: a value of each RESP type, as Redis sends it in RESP2 and RESP3.
void DebugProtocol(CommandContext& ctx) {
  const std::string_view type = ctx.args[2];
  resp::Writer& out = ctx.out;
  const bool resp3 = out.protocol() == 3;
  if (EqualsIgnoreCase(type, "string")) {
    out.Bulk("Hello World");
  } else if (EqualsIgnoreCase(type, "integer")) {
    out.Integer(12345);
  } else if (EqualsIgnoreCase(type, "double")) {
    out.Double(3.141);
  } else if (EqualsIgnoreCase(type, "bignum")) {
    out.BigNumber("1234567999999999999999999999999999999");
  } else if (EqualsIgnoreCase(type, "null")) {
    out.NullBulk();
  } else if (EqualsIgnoreCase(type, "array") || EqualsIgnoreCase(type, "set")) {
    if (EqualsIgnoreCase(type, "set")) {
      out.SetHeader(3);
    } else {
      out.ArrayHeader(3);
    }
    for (int i = 0; i < 3; ++i) out.Integer(i);
  } else if (EqualsIgnoreCase(type, "map")) {
    out.MapHeader(3);
    for (int i = 0; i < 3; ++i) {
      out.Integer(i);
      out.Bool(i == 1);
    }
  } else if (EqualsIgnoreCase(type, "attrib")) {
    if (resp3) {  // RESP2 has no attributes: only the reply follows
      out.Raw("|1\r\n");
      out.Bulk("key-popularity");
      out.ArrayHeader(2);
      out.Bulk("key:123");
      out.Integer(90);
    }
    out.Bulk("Some real reply following the attribute");
  } else if (EqualsIgnoreCase(type, "push")) {
    if (!resp3) {
      out.Error(errors::kResp2NotSupported);
      return;
    }
    out.PushHeader(2);
    out.Bulk("server-cpu-usage");
    out.Integer(42);
    out.Bulk("Some real reply following the push reply");
  } else if (EqualsIgnoreCase(type, "verbatim")) {
    out.Verbatim("txt", "This is a verbatim\nstring");
  } else if (EqualsIgnoreCase(type, "true") || EqualsIgnoreCase(type, "false")) {
    out.Bool(EqualsIgnoreCase(type, "true"));
  } else {
    out.Error(errors::kDebugProtocolType);
  }
}

void DebugHelp(CommandContext& ctx) {
  static constexpr std::string_view kHelp[] = {
      "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DIGEST",
      "    Output a hex signature representing the current DB content.",
      "DIGEST-VALUE <key> [<key> ...]",
      "    Output a hex signature of the values of all the specified keys.",
      "ERROR <string>",
      "    Return a Redis protocol error with <string> as message. Useful for clients",
      "    unit tests to simulate Redis errors.",
      "LOG <message>",
      "    Write <message> to the server log.",
      "OBJECT <key>",
      "    Show low level info about `key` and associated value.",
      "POPULATE <count> [<prefix>] [<size>]",
      "    Create <count> string keys named key:<num>. If <prefix> is specified then",
      "    it is used instead of the 'key' prefix.",
      "RELOAD [option ...]",
      "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
      "    * MERGE: conflicting keys will be loaded from RDB.",
      "    * NOFLUSH: the existing database will not be removed before load, but",
      "      conflicting keys will generate an exception and kill the server.",
      "    * NOSAVE: the database will be loaded from an existing RDB file.",
      "PROTOCOL <type>",
      "    Reply with a test value of the specified type. <type> can be: string,",
      "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
      "    true, false.",
      "SET-ACTIVE-EXPIRE <0|1>",
      "    Setting it to 0 disables expiring keys in background when they are not",
      "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
      "    default.",
      "SLEEP <seconds>",
      "    Stop the server for <seconds>. Decimals allowed.",
      "HELP",
      "    Prints this help."};
  ReplyHelp(ctx.out, kHelp);
}

void CmdDebug(CommandContext& ctx) {
  if (!AllowedBySetting(ctx, ctx.config().Value("enable-debug-command"))) {
    ctx.out.Error(errors::kDebugNotAllowed);
    return;
  }
  const std::string_view sub = ctx.args[1];
  const size_t n = ctx.args.size();
  auto is = [&](std::string_view name) { return EqualsIgnoreCase(sub, name); };
  if (is("SLEEP") && n == 3) {
    // Redis reads the seconds with strtod and no check: a bad number sleeps 0.
    double seconds = 0;
    if (!ParseDouble(ctx.args[2], &seconds)) seconds = 0;
    // Blocks this I/O thread, as it blocks Redis's single thread.
    if (seconds > 0) {
      constexpr double kMaxSeconds = 1e9;  // keeps the conversion to microseconds defined
      const double us = std::min(seconds, kMaxSeconds) * 1e6;
      std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(us)));
    }
    ctx.out.Ok();
  } else if (is("OBJECT") && n == 3) {
    DebugObject(ctx);
  } else if (is("RELOAD")) {
    DebugReload(ctx);
  } else if (is("POPULATE") && n >= 3 && n <= 5) {
    DebugPopulate(ctx);
  } else if (is("SET-ACTIVE-EXPIRE") && n == 3) {
    int64_t on = 0;  // Redis's atoi: anything but a number is 0
    ParseInt64(ctx.args[2], &on);
    ctx.keyspace().SetActiveExpire(on != 0);
    ctx.out.Ok();
  } else if (is("DIGEST") && n == 2) {
    DebugDigest(ctx);
  } else if (is("DIGEST-VALUE") && n >= 2) {
    DebugDigestValue(ctx);
  } else if (is("PROTOCOL") && n == 3) {
    DebugProtocol(ctx);
  } else if (is("LOG") && n == 3) {
    log::Warning("DEBUG LOG: {}", ctx.args[2]);
    ctx.out.Ok();
  } else if (is("ERROR") && n == 3) {
    ctx.out.Error(ctx.args[2]);  // verbatim: no code added
  } else if (is("HELP") && n == 2) {
    DebugHelp(ctx);
  } else {
    ctx.out.Error(errors::DebugUnknownSubcommand(sub));
  }
}

}  // namespace

void RegisterDebugFamily(CommandTable* table) {
  using namespace cmd;
  // clang-format off
  table->Register({
      {"debug", -2, kAdmin | kNoScript | kLoading | kStale, 0, 0, 0, CmdDebug, "server",
       "A container for debugging commands"},
  });
  // clang-format on
}

}  // namespace ordis::server
