// Server commands: CONFIG DBSIZE FLUSHDB FLUSHALL TIME SHUTDOWN WAIT ROLE, and cluster mode's
// READONLY READWRITE ASKING (refused: no cluster). DEBUG is in debug_family.cc.
// INFO is in info.cc, COMMAND in command_docs.cc.
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "base/logging.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/blocking_args.h"
#include "server/commands/families.h"

namespace ordis::server {
namespace {

// CONFIG GET parameter [parameter ...]
void CmdConfigGet(CommandContext& ctx) {
  std::vector<std::string> patterns(ctx.args.begin() + 2, ctx.args.end());
  auto found = ctx.config().Get(patterns);
  ctx.out.MapHeader(static_cast<int64_t>(found.size()));
  for (const auto& [name, value] : found) {
    ctx.out.Bulk(name);
    ctx.out.Bulk(value);
  }
}

// Redis 7's enable-debug-command / enable-protected-configs: "yes", "no", or "local" (the client
// is local, net/session.h).
bool AllowedBySetting(const CommandContext& ctx, std::string_view setting) {
  return setting == "yes" || (setting == "local" && ctx.client.local);
}

// CONFIG SET parameter value [parameter value ...]
void CmdConfigSet(CommandContext& ctx) {
  if (ctx.args.size() % 2 != 0) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  std::vector<std::pair<std::string, std::string>> pairs;
  for (size_t i = 2; i + 1 < ctx.args.size(); i += 2) {
    pairs.emplace_back(ctx.args[i], ctx.args[i + 1]);
  }
  std::string error = ctx.config().Set(
      pairs, AllowedBySetting(ctx, ctx.config().Value("enable-protected-configs")));
  if (error.empty()) {
    // Parameters whose values live in the ACL's objects or the keyspace, and a lower maxmemory,
    // which evicts at once (in the background, step by step).
    ctx.keyspace().SetLazyFreePolicy(LazyFreePolicyOf(ctx.config()));
    ctx.keyspace().notifier().SetClasses(ctx.config().notify_keyspace_events());
    for (const auto& [name, value] : pairs) {
      if (EqualsIgnoreCase(name, "maxmemory")) ctx.services.memory.LimitChanged();
      if (EqualsIgnoreCase(name, "requirepass")) ctx.services.users.SetRequirePass(value);
      if (EqualsIgnoreCase(name, "acllog-max-len")) {
        ctx.services.acl_log.SetMaxLen(std::stoull(ctx.config().Value("acllog-max-len")));
      }
      if (EqualsIgnoreCase(name, "acl-pubsub-default")) {
        ctx.services.users.SetAllChannelsDefault(ctx.config().Value("acl-pubsub-default") ==
                                                 "allchannels");
      }
    }
    ctx.out.Ok();
  } else {
    ctx.out.Error(error);
  }
}

// CONFIG RESETSTAT
void CmdConfigResetStat(CommandContext& ctx) {
  ctx.services.stats.Reset();
  ctx.keyspace().ResetStats();
  ctx.out.Ok();
}

// CONFIG REWRITE
void CmdConfigRewrite(CommandContext& ctx) {
  std::string error = ctx.config().Rewrite();
  if (error.empty()) {
    ctx.out.Ok();
  } else {
    ctx.out.Error(error);
  }
}

// CONFIG HELP
void CmdConfigHelp(CommandContext& ctx) {
  static constexpr std::string_view kHelp[] = {
      "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET <pattern>",
      "    Return parameters matching the glob-like <pattern> and their values.",
      "SET <directive> <value>",
      "    Set the configuration <directive> to <value>.",
      "RESETSTAT",
      "    Reset statistics reported by the INFO command.",
      "REWRITE",
      "    Rewrite the configuration file.",
      "HELP",
      "    Print this help."};
  ReplyHelp(ctx.out, kHelp);
}

// DBSIZE
void CmdDbSize(CommandContext& ctx) {
  ctx.out.Integer(static_cast<int64_t>(ctx.keyspace().DbSize(ctx.db())));
}

// FLUSHDB and FLUSHALL's [ASYNC | SYNC]: how the flushed values are freed (without either, as
// lazyfree-lazy-user-flush says). Replies and returns false on a syntax error.
bool ParseFlushMode(CommandContext& ctx, FreeMode* free) {
  if (ctx.args.size() == 1) {
    *free = ctx.config().lazyfree_lazy_user_flush() ? FreeMode::kLazy : FreeMode::kSync;
    return true;
  }
  if (ctx.args.size() == 2 && EqualsIgnoreCase(ctx.args[1], "SYNC")) {
    *free = FreeMode::kSync;
    return true;
  }
  if (ctx.args.size() == 2 && EqualsIgnoreCase(ctx.args[1], "ASYNC")) {
    *free = FreeMode::kLazy;
    return true;
  }
  ctx.out.Error(errors::kSyntax);
  return false;
}

// FLUSHDB [ASYNC | SYNC]
void CmdFlushDb(CommandContext& ctx) {
  FreeMode free;
  if (!ParseFlushMode(ctx, &free)) return;
  ctx.keyspace().FlushDb(ctx.db(), free);
  ctx.out.Ok();
}

// FLUSHALL [ASYNC | SYNC]
void CmdFlushAll(CommandContext& ctx) {
  FreeMode free;
  if (!ParseFlushMode(ctx, &free)) return;
  ctx.keyspace().FlushAll(free);
  ctx.out.Ok();
}

// TIME
void CmdTime(CommandContext& ctx) {
  timeval tv;
  gettimeofday(&tv, nullptr);
  ctx.out.ArrayHeader(2);
  ctx.out.Bulk(std::to_string(tv.tv_sec));
  ctx.out.Bulk(std::to_string(tv.tv_usec));
}

// WAIT numreplicas timeout: ordis has no replicas, so none ever acknowledges. As Redis with none
// connected: 0 at once when 0 replicas are asked for (or the client may not block: MULTI, a
// script), else the client waits out its timeout (0: forever, until CLIENT UNBLOCK) and gets 0.
void CmdWait(CommandContext& ctx) {
  int64_t replicas, timeout_ms;
  if (!ParseInt64(ctx.args[1], &replicas)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  if (!ParseBlockTimeout(ctx, ctx.args[2], TimeoutUnit::kMilliseconds, &timeout_ms)) return;
  if (replicas <= 0 || ctx.block == nullptr) {
    ctx.out.Integer(0);
    return;
  }
  BlockRequest& block = *ctx.block;
  block.blocked = true;
  block.keys.clear();
  block.timeout_ms = timeout_ms;
  block.unblock_on_delete = false;
  block.timeout_replies_zero = true;
}

// ROLE: a master without replicas, at replication offset 0.
void CmdRole(CommandContext& ctx) {
  ctx.out.ArrayHeader(3);
  ctx.out.Bulk("master");
  ctx.out.Integer(0);
  ctx.out.ArrayHeader(0);
}

// READONLY, READWRITE, ASKING: cluster mode's, refused as Redis refuses them without it.
void CmdClusterOnly(CommandContext& ctx) { ctx.out.Error(errors::kClusterDisabled); }

// SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]
// Saves when asked or when save points are configured, and syncs the append-only log; a failed
// save keeps the server running (unless FORCE), as Redis does.
void CmdShutdown(CommandContext& ctx) {
  bool save = !ctx.config().Value("save").empty(), force = false, nosave = false;
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    std::string_view opt = ctx.args[i];
    if (EqualsIgnoreCase(opt, "SAVE")) {
      save = true;
      continue;
    }
    if (EqualsIgnoreCase(opt, "NOSAVE")) {
      save = false;
      nosave = true;
      continue;
    }
    if (EqualsIgnoreCase(opt, "FORCE")) force = true;
    if (EqualsIgnoreCase(opt, "ABORT")) {
      ctx.out.Error(errors::kNoShutdownInProgress);
      return;
    }
    if (!EqualsIgnoreCase(opt, "NOSAVE") && !EqualsIgnoreCase(opt, "NOW") &&
        !EqualsIgnoreCase(opt, "FORCE")) {
      ctx.out.Error(errors::kSyntax);
      return;
    }
  }
  // A busy script keeps the keyspace lock (and its thread) until it ends: only NOSAVE may stop
  // the server then, at once, as Redis answers anything else with BUSY.
  const scripting::RunningScript& running = ctx.services.running_script;
  if (running.Busy(ctx.config().busy_reply_threshold_ms())) {
    if (!nosave) {
      ctx.out.Error(running.function() ? errors::kBusyFunction : errors::kBusyScript);
      return;
    }
    ctx.services.control.ExitNow();
  }
  persistence::Status status = ctx.services.durability.Shutdown(save, force);
  if (!status.ok()) {
    log::Warning("Error trying to shut down: {}", status.message());
    if (!force) {
      ctx.out.Error(errors::kShutdownFailed);
      return;
    }
  }
  // Redis closes the connection without a reply when it shuts down.
  ctx.services.control.MarkShutdownSaved();
}

}  // namespace

void RegisterServerFamily(CommandTable* table) {
  using namespace cmd;
  // One row per command.
  // clang-format off
  table->Register({
      {"config", -2, kAdmin | kNoScript | kLoading | kStale, 0, 0, 0, nullptr, "server",
       "A container for server configuration commands",
       {
           {"config|get", -3, kAdmin | kNoScript | kLoading | kStale, 0, 0, 0, CmdConfigGet,
            "server", "Get the values of configuration parameters"},
           {"config|set", -4, kAdmin | kNoScript | kLoading | kStale, 0, 0, 0, CmdConfigSet,
            "server", "Set configuration parameters to the given values"},
           {"config|resetstat", 2, kAdmin | kNoScript | kLoading | kStale, 0, 0, 0,
            CmdConfigResetStat, "server", "Reset the stats returned by INFO"},
           {"config|rewrite", 2, kAdmin | kNoScript | kLoading | kStale, 0, 0, 0,
            CmdConfigRewrite, "server", "Rewrite the configuration file with the in memory configuration"},
           {"config|help", 2, kLoading | kStale, 0, 0, 0, CmdConfigHelp, "server",
            "Show helpful text about the different subcommands"},
       }},
      {"dbsize", 1, kReadonly | kFast, 0, 0, 0, CmdDbSize, "server",
       "Return the number of keys in the selected database"},
      {"flushdb", -1, kWrite | kKeyspaceWide, 0, 0, 0, CmdFlushDb, "server",
       "Remove all keys from the current database"},
      {"flushall", -1, kWrite | kKeyspaceWide, 0, 0, 0, CmdFlushAll, "server",
       "Remove all keys from all databases"},
      {"time", 1, kLoading | kStale | kFast, 0, 0, 0, CmdTime, "server", "Return the current server time"},
      {"role", 1, kNoScript | kLoading | kStale | kFast, 0, 0, 0, CmdRole, "server",
       "Return the role of the instance in the context of replication"},
      {"readonly", 1, kLoading | kStale | kFast, 0, 0, 0, CmdClusterOnly, "cluster",
       "Enables read queries for a connection to a cluster replica node"},
      {"readwrite", 1, kLoading | kStale | kFast, 0, 0, 0, CmdClusterOnly, "cluster",
       "Disables read queries for a connection to a cluster replica node"},
      {"asking", 1, kFast, 0, 0, 0, CmdClusterOnly, "cluster",
       "Sent by cluster clients after an -ASK redirect"},
      {"wait", 3, kNoScript, 0, 0, 0, CmdWait, "generic",
       "Wait for the synchronous replication of all the write commands sent in the context of the current connection"},
      {"shutdown", -1, kAllowBusy | kAdmin | kNoScript | kLoading | kStale | kNoMulti, 0, 0, 0, CmdShutdown,
       "server", "Synchronously save the dataset to disk and then shut down the server"},
  });
  // clang-format on
}

}  // namespace ordis::server
