#include "server/commands/client_commands.h"

#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/client_info.h"

namespace ordis::server {

// MONITOR
void CmdMonitor(CommandContext& ctx) {
  if (ctx.client.in_multi) {
    // At EXEC: Redis's clients in a transaction expect one reply per command.
    ctx.out.Error(errors::kMonitorInTransaction);
    return;
  }
  // Again: ignored, without a reply (as Redis).
  if (ctx.services.monitors.Add(ctx.client)) ctx.out.Ok();
}

// CLIENT TRACKING (ON|OFF) [REDIRECT id] [BCAST] [PREFIX prefix [PREFIX prefix ...]] [OPTIN]
//                          [OPTOUT] [NOLOOP]
void CmdClientTracking(CommandContext& ctx) {
  const auto& args = ctx.args;
  TrackingOptions options;
  for (size_t j = 3; j < args.size(); ++j) {
    const bool more = j + 1 < args.size();
    if (EqualsIgnoreCase(args[j], "REDIRECT") && more) {
      ++j;
      if (options.redirect != 0) {
        ctx.out.Error(errors::kTrackingOneRedirect);
        return;
      }
      int64_t id;
      if (!ParseInt64(args[j], &id)) {
        ctx.out.Error(errors::kNotInteger);
        return;
      }
      // It must exist now, though it may go later (the client is then told its redirect broke).
      if (!ctx.services.clients.WithClient(static_cast<uint64_t>(id), [](ClientState&) {})) {
        ctx.out.Error(errors::kTrackingNoRedirectClient);
        return;
      }
      options.redirect = static_cast<uint64_t>(id);
    } else if (EqualsIgnoreCase(args[j], "BCAST")) {
      options.bcast = true;
    } else if (EqualsIgnoreCase(args[j], "OPTIN")) {
      options.optin = true;
    } else if (EqualsIgnoreCase(args[j], "OPTOUT")) {
      options.optout = true;
    } else if (EqualsIgnoreCase(args[j], "NOLOOP")) {
      options.noloop = true;
    } else if (EqualsIgnoreCase(args[j], "PREFIX") && more) {
      options.prefixes.push_back(args[++j]);
    } else {
      ctx.out.Error(errors::kSyntax);
      return;
    }
  }
  if (EqualsIgnoreCase(args[2], "ON")) {
    if (std::string error = ctx.services.tracking.Enable(ctx.client, options); !error.empty()) {
      ctx.out.Error(error);
      return;
    }
  } else if (EqualsIgnoreCase(args[2], "OFF")) {
    ctx.services.tracking.Disable(ctx.client);
  } else {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  ctx.out.Ok();
}

// CLIENT CACHING (YES|NO)
void CmdClientCaching(CommandContext& ctx) {
  TrackingState& t = ctx.client.tracking;
  if (!t.on) {
    ctx.out.Error(errors::kCachingNeedsTracking);
    return;
  }
  if (EqualsIgnoreCase(ctx.args[2], "YES")) {
    if (!t.optin) {
      ctx.out.Error(errors::kCachingYesNeedsOptIn);
      return;
    }
  } else if (EqualsIgnoreCase(ctx.args[2], "NO")) {
    if (!t.optout) {
      ctx.out.Error(errors::kCachingNoNeedsOptOut);
      return;
    }
  } else {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  t.caching = true;  // for the next command (Dispatcher::ClearCaching)
  ctx.out.Ok();
}

// CLIENT GETREDIR
void CmdClientGetRedir(CommandContext& ctx) {
  const TrackingState& t = ctx.client.tracking;
  ctx.out.Integer(t.on ? static_cast<int64_t>(t.redirect) : -1);
}

// CLIENT TRACKINGINFO
void CmdClientTrackingInfo(CommandContext& ctx) {
  const TrackingState& t = ctx.client.tracking;
  resp::Writer& out = ctx.out;
  out.MapHeader(3);
  out.Bulk("flags");
  std::vector<std::string_view> flags = {t.on ? "on" : "off"};
  if (t.bcast) flags.push_back("bcast");
  if (t.optin) {
    flags.push_back("optin");
    if (t.caching) flags.push_back("caching-yes");
  }
  if (t.optout) {
    flags.push_back("optout");
    if (t.caching) flags.push_back("caching-no");
  }
  if (t.noloop) flags.push_back("noloop");
  if (t.broken_redirect) flags.push_back("broken_redirect");
  out.SetHeader(static_cast<int64_t>(flags.size()));
  for (std::string_view flag : flags) out.Bulk(flag);
  out.Bulk("redirect");
  out.Integer(t.on ? static_cast<int64_t>(t.redirect) : -1);
  out.Bulk("prefixes");
  out.ArrayHeader(static_cast<int64_t>(t.prefixes.size()));
  for (const std::string& prefix : t.prefixes) out.Bulk(prefix);
}

// CLIENT PAUSE timeout [WRITE|ALL]
void CmdClientPause(CommandContext& ctx) {
  const auto& args = ctx.args;
  ClientPause::Mode mode = ClientPause::Mode::kAll;
  if (args.size() == 4) {
    if (EqualsIgnoreCase(args[3], "WRITE")) {
      mode = ClientPause::Mode::kWrite;
    } else if (!EqualsIgnoreCase(args[3], "ALL")) {
      ctx.out.Error(errors::kPauseMode);
      return;
    }
  } else if (args.size() > 4) {
    ctx.out.Error(errors::SubcommandSyntax("client", args[1]));
    return;
  }
  int64_t timeout_ms;
  // Redis's getTimeoutFromObjectOrReply: an integer (a double is refused), not negative.
  if (!ParseInt64(args[2], &timeout_ms)) {
    ctx.out.Error(errors::kPauseTimeoutNotInteger);
    return;
  }
  if (timeout_ms < 0) {
    ctx.out.Error(errors::kPauseTimeoutNegative);
    return;
  }
  const int64_t now_ms = NowMs();
  const int64_t end_ms = timeout_ms > INT64_MAX - now_ms ? INT64_MAX : now_ms + timeout_ms;
  ctx.services.pause.Pause(end_ms, mode);
  ctx.out.Ok();
}

// CLIENT UNPAUSE
void CmdClientUnpause(CommandContext& ctx) {
  ctx.services.pause.Unpause();
  ctx.out.Ok();
}

// CLIENT SETINFO <LIB-NAME libname | LIB-VER libver> (Redis 7.2)
void CmdClientSetInfo(CommandContext& ctx) {
  std::string_view option = ctx.args[2];
  std::string_view value = ctx.args[3];
  const bool name = EqualsIgnoreCase(option, "LIB-NAME");
  if (!name && !EqualsIgnoreCase(option, "LIB-VER")) {
    ctx.out.Error(errors::SetInfoUnrecognized(option));
    return;
  }
  if (!ValidClientName(value)) {
    ctx.out.Error(errors::SetInfoBadValue(option));
    return;
  }
  ctx.services.clients.SetLibInfo(&ctx.client, name, value);
  ctx.out.Ok();
}

// CLIENT NO-TOUCH (ON|OFF) (Redis 7.2)
void CmdClientNoTouch(CommandContext& ctx) {
  if (EqualsIgnoreCase(ctx.args[2], "ON")) {
    ctx.client.no_touch = true;
  } else if (EqualsIgnoreCase(ctx.args[2], "OFF")) {
    ctx.client.no_touch = false;
  } else {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  ctx.out.Ok();
}

}  // namespace ordis::server
