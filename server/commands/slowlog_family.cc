// SLOWLOG GET|LEN|RESET|HELP over the shared slow log (command/slowlog.h), as Redis 7.0.
#include <string_view>

#include "base/number.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/families.h"

namespace ordis::server {
namespace {

// SLOWLOG GET [count]: the newest count entries (10 by default, -1: all).
void CmdSlowlogGet(CommandContext& ctx) {
  int64_t count = 10;
  if (ctx.args.size() > 3) {
    ctx.out.Error(errors::SubcommandSyntax("SLOWLOG", ctx.args[1]));
    return;
  }
  if (ctx.args.size() == 3 && (!ParseInt64(ctx.args[2], &count) || count < -1)) {
    ctx.out.Error("ERR count should be greater than or equal to -1");
    return;
  }
  const auto entries = ctx.services.slowlog.Newest(count);
  ctx.out.ArrayHeader(static_cast<int64_t>(entries.size()));
  for (const SlowLog::Entry& e : entries) {
    ctx.out.ArrayHeader(6);
    ctx.out.Integer(static_cast<int64_t>(e.id));
    ctx.out.Integer(e.time_s);
    ctx.out.Integer(e.duration_us);
    ctx.out.ArrayHeader(static_cast<int64_t>(e.args.size()));
    for (const std::string& a : e.args) ctx.out.Bulk(a);
    ctx.out.Bulk(e.addr);
    ctx.out.Bulk(e.name);
  }
}

void CmdSlowlogLen(CommandContext& ctx) {
  ctx.out.Integer(static_cast<int64_t>(ctx.services.slowlog.size()));
}

void CmdSlowlogReset(CommandContext& ctx) {
  ctx.services.slowlog.Reset();
  ctx.out.Ok();
}

void CmdSlowlogHelp(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "GET [<count>]",
      "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
      "    Entries are made of:",
      "    id, timestamp, time in microseconds, arguments array, client IP and port,",
      "    client name",
      "LEN",
      "    Return the length of the slowlog.",
      "RESET",
      "    Reset the slowlog.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.out, kLines);
}

}  // namespace

void RegisterSlowlogFamily(CommandTable* table) {
  using namespace cmd;
  constexpr uint32_t kSub = kAdmin | kLoading | kStale;
  // clang-format off
  table->Register({
      {"slowlog", -2, 0, 0, 0, 0, nullptr, "server", "A container for slow log commands",
       {
           {"slowlog|get", -2, kSub, 0, 0, 0, CmdSlowlogGet, "server", "Get the slow log's entries"},
           {"slowlog|len", 2, kSub, 0, 0, 0, CmdSlowlogLen, "server", "Get the slow log's length"},
           {"slowlog|reset", 2, kSub, 0, 0, 0, CmdSlowlogReset, "server",
            "Clear all entries from the slow log"},
           {"slowlog|help", 2, kLoading | kStale, 0, 0, 0, CmdSlowlogHelp, "server",
            "Show helpful text about the different subcommands"},
       }},
  });
  // clang-format on
}

}  // namespace ordis::server
