// Persistence commands: SAVE BGSAVE BGREWRITEAOF LASTSAVE (SHUTDOWN's save is in server_family.cc).
// Replies are Redis 7's, word for word.
#include <string>

#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/families.h"

namespace ordis::server {
namespace {

// SAVE: a snapshot now; the reply waits for it (other clients keep being served).
void CmdSave(CommandContext& ctx) {
  bool busy;
  persistence::Status status = ctx.services.durability.Save(&busy);
  if (busy) {
    ctx.out.Error(errors::kBgSaveInProgress);
    return;
  }
  if (!status.ok()) {
    ctx.out.Error("ERR " + status.message());
    return;
  }
  ctx.out.Ok();
}

// BGSAVE [SCHEDULE]
void CmdBgSave(CommandContext& ctx) {
  bool schedule = false;
  if (ctx.args.size() == 2) {
    if (!EqualsIgnoreCase(ctx.args[1], "SCHEDULE")) {
      ctx.out.Error(errors::kSyntax);
      return;
    }
    schedule = true;
  } else if (ctx.args.size() > 2) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  bool scheduled;
  const std::string error = ctx.services.durability.StartBgSave(schedule, &scheduled);
  if (!error.empty()) {
    ctx.out.Error(error);
  } else if (scheduled) {
    ctx.out.SimpleString("Background saving scheduled");
  } else {
    ctx.out.SimpleString("Background saving started");
  }
}

// BGREWRITEAOF
void CmdBgRewriteAof(CommandContext& ctx) {
  bool scheduled;
  const std::string error = ctx.services.durability.StartRewrite(&scheduled);
  if (!error.empty()) {
    ctx.out.Error(error);
  } else if (scheduled) {
    ctx.out.SimpleString("Background append only file rewriting scheduled");
  } else {
    ctx.out.SimpleString("Background append only file rewriting started");
  }
}

// LASTSAVE: unix time of the last successful save (the start time before any).
void CmdLastSave(CommandContext& ctx) { ctx.out.Integer(ctx.services.durability.last_save_s()); }

}  // namespace

void RegisterPersistenceFamily(CommandTable* table) {
  using namespace cmd;
  // One row per command.
  // clang-format off
  table->Register({
      {"save", 1, kAdmin | kNoScript | kNoMulti, 0, 0, 0, CmdSave, "server",
       "Synchronously save the dataset to disk"},
      {"bgsave", -1, kAdmin | kNoScript, 0, 0, 0, CmdBgSave, "server",
       "Asynchronously save the dataset to disk"},
      {"bgrewriteaof", 1, kAdmin | kNoScript, 0, 0, 0, CmdBgRewriteAof, "server",
       "Asynchronously rewrite the append-only file"},
      {"lastsave", 1, kLoading | kStale | kFast, 0, 0, 0, CmdLastSave, "server",
       "Get the UNIX time stamp of the last successful save to disk"},
  });
  // clang-format on
}

}  // namespace ordis::server
