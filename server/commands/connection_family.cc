// Connection commands: PING ECHO HELLO AUTH SELECT QUIT RESET CLIENT.
#include <algorithm>
#include <optional>
#include <string>

#include "server/command/arg_parser.h"
#include "server/command/services.h"
#include "server/command/transaction.h"
#include "server/commands/client_commands.h"
#include "server/commands/client_info.h"
#include "server/commands/families.h"

namespace ordis::server {
namespace {

// PING [message]
void CmdPing(CommandContext& ctx) {
  if (ctx.args.size() > 2) {
    ctx.out.Error(errors::WrongArity("ping"));
  } else if (ctx.client.pubsub.load(std::memory_order_relaxed) &&
             ctx.client.protocol.load(std::memory_order_relaxed) == 2) {
    // A RESP2 subscriber's reply is shaped as a message: ["pong", message or ""].
    ctx.out.ArrayHeader(2);
    ctx.out.Bulk("pong");
    ctx.out.Bulk(ctx.args.size() > 1 ? ctx.args[1] : "");
  } else if (ctx.args.size() > 1) {
    ctx.out.Bulk(ctx.args[1]);
  } else {
    ctx.out.SimpleString("PONG");
  }
}

// ECHO message
void CmdEcho(CommandContext& ctx) { ctx.out.Bulk(ctx.args[1]); }

// AUTH's check (user names are case-sensitive, passwords compared as SHA-256 digests in constant
// time): logs the client in as user, or records the failure in ACL LOG and INFO stats.
bool Authenticate(CommandContext& ctx, std::string_view user, std::string_view password) {
  acl::UserRef ref = ctx.services.users.Authenticate(user, password);
  if (!ref) {
    Bump(ctx.stats()[Stat::kAclDeniedAuth]);
    ctx.services.acl_log.Add(
        acl::DenyReason::kAuth,
        ctx.client.in_multi ? acl::LogContext::kMulti : acl::LogContext::kTopLevel,
        ctx.args[0] /* as typed: "auth", "HELLO" */, user,
        ctx.services.clients.Describe(ctx.services.commands, ctx.client, ctx.now_ms), ctx.now_ms);
    return false;
  }
  ctx.client.user = std::move(ref);
  ctx.client.authenticated = true;
  ctx.services.clients.SetUserName(&ctx.client, user);
  return true;
}

// AUTH [username] password
void CmdAuth(CommandContext& ctx) {
  if (ctx.args.size() > 3) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  std::string_view user = ctx.args.size() == 3 ? ctx.args[1] : "default";
  std::string_view password = ctx.args.back();
  if (ctx.args.size() == 2 && !ctx.services.DefaultUserNeedsAuth()) {
    ctx.out.Error(errors::kAuthNotConfigured);
    return;
  }
  if (Authenticate(ctx, user, password)) {
    ctx.out.Ok();
  } else {
    ctx.out.Error(errors::kWrongPass);
  }
}

// HELLO [protover [AUTH username password] [SETNAME clientname]]
void CmdHello(CommandContext& ctx) {
  int64_t version = ctx.client.protocol.load(std::memory_order_relaxed);
  size_t i = 1;
  if (ctx.args.size() > 1) {
    if (!ParseInt64(ctx.args[1], &version)) {
      ctx.out.Error(errors::kProtoVersionNotInteger);
      return;
    }
    if (version < 2 || version > 3) {
      ctx.out.Error(errors::kNoProto);
      return;
    }
    i = 2;
  }
  std::string_view setname;
  bool has_setname = false;
  for (; i < ctx.args.size(); ++i) {
    size_t left = ctx.args.size() - i - 1;
    if (EqualsIgnoreCase(ctx.args[i], "AUTH") && left >= 2) {
      if (!Authenticate(ctx, ctx.args[i + 1], ctx.args[i + 2])) {
        ctx.out.Error(errors::kWrongPass);
        return;
      }
      i += 2;
    } else if (EqualsIgnoreCase(ctx.args[i], "SETNAME") && left >= 1) {
      setname = ctx.args[i + 1];
      has_setname = true;
      ++i;
    } else {
      ctx.out.Error(errors::HelloSyntax(ctx.args[i]));
      return;
    }
  }
  if (ctx.services.NeedsAuth(ctx.client)) {
    ctx.out.Error(errors::kHelloNoAuth);
    return;
  }
  if (has_setname) {
    if (!ValidClientName(setname)) {
      ctx.out.Error(errors::kClientNameSpaces);
      return;
    }
    ctx.services.clients.SetName(&ctx.client, setname);
  }
  ctx.client.protocol.store(static_cast<int>(version), std::memory_order_relaxed);
  resp::Writer& out = ctx.out;
  out.set_protocol(static_cast<int>(version));
  out.MapHeader(7);
  out.Bulk("server");
  out.Bulk("redis");
  out.Bulk("version");
  out.Bulk(kRedisVersion);
  out.Bulk("proto");
  out.Integer(version);
  out.Bulk("id");
  out.Integer(static_cast<int64_t>(ctx.client.id));
  out.Bulk("mode");
  out.Bulk("standalone");
  out.Bulk("role");
  out.Bulk("master");
  out.Bulk("modules");
  out.ArrayHeader(0);
}

// SELECT index
void CmdSelect(CommandContext& ctx) {
  int64_t db;
  if (!ParseInt64(ctx.args[1], &db)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  if (db < 0 || db >= ctx.keyspace().num_dbs()) {
    ctx.out.Error(errors::kDbIndexOutOfRange);
    return;
  }
  ctx.client.db.store(static_cast<int>(db), std::memory_order_relaxed);
  ctx.out.Ok();
}

// QUIT
void CmdQuit(CommandContext& ctx) {
  ctx.out.Ok();
  ctx.client.close_after_reply = true;
}

// RESET
void CmdReset(CommandContext& ctx) {
  ClientState& c = ctx.client;
  DiscardTransaction(ctx.keyspace(), c);
  // Messages published before this go out before its reply, none after.
  ctx.services.pubsub.UnsubscribeAll(c, &ctx.out);
  // No more MONITOR, tracking or NO-TOUCH (Redis 7.2 clears it too); a pause stays.
  ctx.services.monitors.Remove(c);
  ctx.services.tracking.Disable(c);
  c.no_touch = false;
  c.db.store(0, std::memory_order_relaxed);
  c.reply_mode = ReplyMode::kOn;
  ctx.services.clients.SetName(&c, "");
  // Back to the default user, logged in only if it needs no password.
  c.user = ctx.services.users.DefaultUser();
  c.authenticated = !ctx.services.DefaultUserNeedsAuth();
  ctx.services.clients.SetUserName(&c, "default");
  c.protocol.store(2, std::memory_order_relaxed);
  ctx.out.set_protocol(2);
  // With replies off until now, this one is sent: the connection sends the reply of a command
  // that turned replies on.
  ctx.out.SimpleString("RESET");
}

// CLIENT KILL ip:port | CLIENT KILL <filter> <value> [<filter> <value> ...]
void CmdClientKill(CommandContext& ctx) {
  auto& args = ctx.args;
  if (args.size() == 3) {
    // Old form: CLIENT KILL addr:port
    uint64_t target = 0;
    ctx.services.clients.ForEach([&](ClientState& c) {
      if (c.addr == args[2]) target = c.id;
    });
    if (target == 0) {
      ctx.out.Error(errors::kNoSuchClient);
      return;
    }
    KillClient(ctx, target);
    ctx.out.Ok();
    return;
  }
  if (args.size() % 2 != 0) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  ClientFilter filter;
  std::string error = ParseClientFilter(args.subspan(2), &filter);
  if (!error.empty()) {
    ctx.out.Error(error);
    return;
  }
  std::vector<uint64_t> victims;
  int64_t now_ms = NowMs();
  ctx.services.clients.ForEach([&](ClientState& c) {
    if (filter.skip_me && c.id == ctx.client.id) return;
    if (filter.Matches(c, now_ms)) victims.push_back(c.id);
  });
  for (uint64_t id : victims) KillClient(ctx, id);
  ctx.out.Integer(static_cast<int64_t>(victims.size()));
}

// CLIENT UNBLOCK client-id [TIMEOUT|ERROR]: a client blocked by BLPOP and the like gets its
// timeout's reply now, or with ERROR an UNBLOCKED error. Under the exclusive lock, as the writes
// that serve waiters: a client is blocked or served, never caught in between, so the answer is
// Redis's (0 for one a write just served).
void CmdClientUnblock(CommandContext& ctx) {
  int64_t id;
  if (!ParseInt64(ctx.args[2], &id)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  bool error = false;
  if (ctx.args.size() == 4) {
    if (EqualsIgnoreCase(ctx.args[3], "error")) {
      error = true;
    } else if (!EqualsIgnoreCase(ctx.args[3], "timeout")) {
      ctx.out.Error(errors::kClientUnblockReason);
      return;
    }
  } else if (ctx.args.size() > 4) {
    ctx.out.Error(errors::SubcommandSyntax("client", ctx.args[1]));
    return;
  }
  const bool unblocked =
      id > 0 && ctx.services.blocked.Unblock(static_cast<uint64_t>(id),
                                             error ? errors::kUnblockedByClient : "");
  ctx.out.Integer(unblocked ? 1 : 0);
}

// CLIENT LIST [TYPE type] [ID client-id ...]
void CmdClientList(CommandContext& ctx) {
  std::vector<uint64_t> ids;
  bool filter_ids = false;
  std::optional<ClientType> type;
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    if (EqualsIgnoreCase(ctx.args[i], "TYPE") && i + 1 < ctx.args.size()) {
      std::string_view name = ctx.args[++i];
      ClientType parsed;
      if (!ParseClientType(name, &parsed)) {
        ctx.out.Error(errors::UnknownClientType(name));
        return;
      }
      type = parsed;
    } else if (EqualsIgnoreCase(ctx.args[i], "ID") && i + 1 < ctx.args.size()) {
      filter_ids = true;
      for (++i; i < ctx.args.size(); ++i) {
        int64_t id;
        if (!ParseInt64(ctx.args[i], &id) || id <= 0) {
          ctx.out.Error(errors::kInvalidClientId);
          return;
        }
        ids.push_back(static_cast<uint64_t>(id));
      }
    } else {
      ctx.out.Error(errors::kSyntax);
      return;
    }
  }
  std::string text;
  int64_t now_ms = NowMs();
  ctx.services.clients.ForEach([&](ClientState& c) {
    if (filter_ids && std::find(ids.begin(), ids.end(), c.id) == ids.end()) return;
    if (type && *type != TypeOf(c)) return;
    AppendClientInfo(ctx.services.commands, c, now_ms, &text);
  });
  ctx.out.Verbatim("txt", text);
}

// CLIENT ID
void CmdClientId(CommandContext& ctx) { ctx.out.Integer(static_cast<int64_t>(ctx.client.id)); }

// CLIENT SETNAME connection-name
void CmdClientSetName(CommandContext& ctx) {
  if (!ValidClientName(ctx.args[2])) {
    ctx.out.Error(errors::kClientNameSpaces);
    return;
  }
  ctx.services.clients.SetName(&ctx.client, ctx.args[2]);
  ctx.out.Ok();
}

// CLIENT GETNAME
void CmdClientGetName(CommandContext& ctx) {
  std::string name = ctx.services.clients.Name(&ctx.client);
  if (name.empty()) {
    ctx.out.NullBulk();
  } else {
    ctx.out.Bulk(name);
  }
}

// CLIENT INFO
void CmdClientInfo(CommandContext& ctx) {
  std::string text;
  ctx.services.clients.ForEach([&](ClientState& c) {
    if (c.id == ctx.client.id) AppendClientInfo(ctx.services.commands, c, NowMs(), &text);
  });
  ctx.out.Verbatim("txt", text);
}

// CLIENT NO-EVICT ON|OFF
void CmdClientNoEvict(CommandContext& ctx) {
  // It exempts a client from client eviction (maxmemory-clients), which ordis does not do: there
  // is nothing to exempt it from. Key eviction (maxmemory) never disconnects a client.
  if (EqualsIgnoreCase(ctx.args[2], "ON") || EqualsIgnoreCase(ctx.args[2], "OFF")) {
    ctx.out.Ok();
  } else {
    ctx.out.Error(errors::kSyntax);
  }
}

// CLIENT REPLY ON|OFF|SKIP
void CmdClientReply(CommandContext& ctx) {
  std::string_view mode = ctx.args[2];
  if (EqualsIgnoreCase(mode, "ON")) {
    ctx.client.reply_mode = ReplyMode::kOn;
    // This OK is sent even after OFF: the connection sends the reply of a command that turned
    // replies on.
    ctx.out.Ok();
  } else if (EqualsIgnoreCase(mode, "OFF")) {
    ctx.client.reply_mode = ReplyMode::kOff;
  } else if (EqualsIgnoreCase(mode, "SKIP")) {
    if (ctx.client.reply_mode != ReplyMode::kOff) ctx.client.reply_mode = ReplyMode::kSkipNext;
  } else {
    ctx.out.Error(errors::kSyntax);
  }
}

// CLIENT HELP
void CmdClientHelp(CommandContext& ctx) {
  // Redis 7.0.15's text: CLIENT SETINFO and NO-TOUCH (7.2) are not in it.
  static constexpr std::string_view kHelp[] = {
      "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CACHING (YES|NO)",
      "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
      "GETREDIR",
      "    Return the client ID we are redirecting to when tracking is enabled.",
      "GETNAME",
      "    Return the name of the current connection.",
      "ID",
      "    Return the ID of the current connection.",
      "INFO",
      "    Return information about the current client connection.",
      "KILL <ip:port>",
      "    Kill connection made from <ip:port>.",
      "KILL <option> <value> [<option> <value> [...]]",
      "    Kill connections. Options are:",
      "    * ADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made from the specified address",
      "    * LADDR (<ip:port>|<unixsocket>:0)",
      "      Kill connections made to specified local address",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Kill connections by type.",
      "    * USER <username>",
      "      Kill connections authenticated by <username>.",
      "    * SKIPME (YES|NO)",
      "      Skip killing current connection (default: yes).",
      "LIST [options ...]",
      "    Return information about client connections. Options:",
      "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
      "      Return clients of specified type.",
      "UNPAUSE",
      "    Stop the current client pause, resuming traffic.",
      "PAUSE <timeout> [WRITE|ALL]",
      "    Suspend all, or just write, clients for <timeout> milliseconds.",
      "REPLY (ON|OFF|SKIP)",
      "    Control the replies sent to the current connection.",
      "SETNAME <name>",
      "    Assign the name <name> to the current connection.",
      "UNBLOCK <clientid> [TIMEOUT|ERROR]",
      "    Unblock the specified blocked client.",
      "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
      "         [OPTIN] [OPTOUT] [NOLOOP]",
      "    Control server assisted client side caching.",
      "TRACKINGINFO",
      "    Report tracking status for the current connection.",
      "NO-EVICT (ON|OFF)",
      "    Protect current client connection from eviction.",
      "HELP",
      "    Prints this help."};
  ReplyHelp(ctx.out, kHelp);
}

}  // namespace

void RegisterConnectionFamily(CommandTable* table) {
  using namespace cmd;
  // One row per command.
  // clang-format off
  table->Register({
      {"ping", -1, kFast | kSubscriberMode, 0, 0, 0, CmdPing, "connection", "Ping the server"},
      {"echo", 2, kFast, 0, 0, 0, CmdEcho, "connection", "Echo the given string"},
      {"auth", -2, kAllowBusy | kNoAuth | kFast | kNoScript | kLoading | kStale, 0, 0, 0, CmdAuth, "connection",
       "Authenticate to the server"},
      {"hello", -1, kAllowBusy | kNoAuth | kFast | kNoScript | kLoading | kStale, 0, 0, 0, CmdHello,
       "connection", "Handshake with Redis"},
      {"select", 2, kFast | kLoading | kStale, 0, 0, 0, CmdSelect, "connection",
       "Change the selected database for the current connection"},
      {"quit", -1, kAllowBusy | kNoScript | kNoAuth | kFast | kTransactionControl | kLoading | kStale | kSubscriberMode, 0, 0, 0, CmdQuit, "connection",
       "Close the connection"},
      {"reset", 1, kAllowBusy | kNoAuth | kFast | kTransactionControl | kNoScript | kLoading | kStale | kSubscriberMode, 0, 0, 0, CmdReset,
       "connection", "Reset the connection"},
      {"client", -2, 0, 0, 0, 0, nullptr, "connection",
       "A container for client connection commands",
       {
           {"client|id", 2, kNoScript | kLoading | kStale, 0, 0, 0, CmdClientId, "connection",
            "Returns the client ID for the current connection"},
           {"client|setname", 3, kNoScript | kLoading | kStale, 0, 0, 0, CmdClientSetName,
            "connection", "Set the current connection name"},
           {"client|getname", 2, kNoScript | kLoading | kStale, 0, 0, 0, CmdClientGetName,
            "connection", "Get the current connection name"},
           {"client|list", -2, kAdmin | kNoScript | kLoading | kStale, 0, 0, 0, CmdClientList,
            "connection", "Get the list of client connections"},
           {"client|info", 2, kNoScript | kLoading | kStale, 0, 0, 0, CmdClientInfo,
            "connection", "Returns information about the current client connection."},
           {"client|kill", -3, kAdmin | kNoScript | kLoading | kStale, 0, 0, 0, CmdClientKill,
            "connection", "Kill the connection of a client"},
           {"client|no-evict", 3, kAdmin | kNoScript | kLoading | kStale, 0, 0, 0,
            CmdClientNoEvict, "connection", "Set client eviction mode for the current connection"},
           {"client|reply", 3, kNoScript | kLoading | kStale, 0, 0, 0, CmdClientReply,
            "connection", "Instruct the server whether to reply to commands"},
           {"client|unblock", -3, kAdmin | kNoScript | kLoading | kStale | kExclusiveLock, 0, 0, 0, CmdClientUnblock,
            "connection", "Unblock a client blocked in a blocking command from a different connection"},
           {"client|help", 2, kLoading | kStale, 0, 0, 0, CmdClientHelp, "connection",
            "Show helpful text about the different subcommands"},
           {"client|tracking", -3, kNoScript | kLoading | kStale, 0, 0, 0, CmdClientTracking,
            "connection", "Enable or disable server assisted client side caching support"},
           {"client|caching", 3, kNoScript | kLoading | kStale, 0, 0, 0, CmdClientCaching,
            "connection", "Instruct the server about tracking or not keys in the next request"},
           {"client|getredir", 2, kNoScript | kLoading | kStale, 0, 0, 0, CmdClientGetRedir,
            "connection", "Get tracking notifications redirection client ID if any"},
           {"client|trackinginfo", 2, kNoScript | kLoading | kStale, 0, 0, 0,
            CmdClientTrackingInfo, "connection",
            "Return information about server assisted client side caching for the current "
            "connection"},
           {"client|pause", -3, kAdmin | kNoScript | kLoading | kStale, 0, 0, 0, CmdClientPause,
            "connection", "Stop processing commands from clients for some time"},
           {"client|unpause", 2, kAdmin | kNoScript | kLoading | kStale, 0, 0, 0,
            CmdClientUnpause, "connection", "Resume processing of clients that were paused"},
           {"client|setinfo", 4, kNoScript | kLoading | kStale, 0, 0, 0, CmdClientSetInfo,
            "connection", "Set client or connection specific info"},
           {"client|no-touch", 3, kNoScript | kLoading | kStale, 0, 0, 0, CmdClientNoTouch,
            "connection",
            "Controls whether commands sent by the client will alter the LRU/LFU of the keys they "
            "access."},
       }},
      {"monitor", 1, kAdmin | kNoScript | kLoading | kStale, 0, 0, 0, CmdMonitor, "server",
       "Listen for all requests received by the server in real time"},
  });
  // clang-format on
}

}  // namespace ordis::server
