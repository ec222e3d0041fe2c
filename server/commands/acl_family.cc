// ACL: SETUSER GETUSER DELUSER LIST USERS WHOAMI CAT GENPASS LOG DRYRUN LOAD SAVE HELP. The users
// and their checks live in server/acl; the dispatcher runs the checks (command/acl_bridge.h).
#include <algorithm>
#include <string>
#include <vector>

#include "base/logging.h"
#include "base/number.h"
#include "server/acl/categories.h"
#include "server/acl/password.h"
#include "server/command/acl_bridge.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/client_info.h"
#include "server/commands/families.h"

namespace ordis::server {
namespace {

constexpr std::string_view kNoAclFile =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify users "
    "via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis "
    "configuration file set) in order to store users in the Redis configuration.";

std::vector<std::string> Rest(const CommandContext& ctx, size_t from) {
  return std::vector<std::string>(ctx.args.begin() + static_cast<std::ptrdiff_t>(from),
                                  ctx.args.end());
}

// ACL CAT [category]
void CmdAclCat(CommandContext& ctx) {
  if (ctx.args.size() > 3) {
    ctx.out.Error(errors::SubcommandSyntax("acl", ctx.args[1]));
    return;
  }
  if (ctx.args.size() == 2) {
    ctx.out.ArrayHeader(acl::kCategoryCount);
    for (int i = 0; i < acl::kCategoryCount; ++i) ctx.out.Bulk(acl::CategoryName(i));
    return;
  }
  std::optional<std::vector<std::string>> names =
      ctx.services.users.CommandsInCategory(ctx.args[2]);
  if (!names) {
    ctx.out.Error(acl::Users::UnknownCategoryError(ctx.args[2]));
    return;
  }
  ctx.out.ArrayHeader(static_cast<int64_t>(names->size()));
  for (const std::string& name : *names) ctx.out.Bulk(name);
}

// ACL SETUSER username [rule ...]
// As Redis 7.0's ACLKillPubsubClientsIfNeeded: the clients of user `name` subscribed to a channel
// or pattern its rules no longer allow are closed.
void KillRevokedSubscribers(CommandContext& ctx, std::string_view name) {
  std::shared_ptr<const acl::User> user = ctx.services.users.Find(name);
  if (user == nullptr) return;
  std::vector<uint64_t> ids;
  ctx.services.clients.ForEach([&](ClientState& c) {
    if (c.user_name != name || !c.pubsub.load(std::memory_order_relaxed)) return;
    if (ctx.services.pubsub.SubscribedOutside(c, [&](std::string_view channel, bool pattern) {
          return user->CheckChannel(channel, pattern);
        })) {
      ids.push_back(c.id);
    }
  });
  for (uint64_t id : ids) KillClient(ctx, id);
}

void CmdAclSetUser(CommandContext& ctx) {
  std::string error = ctx.services.users.SetUser(ctx.args[2], Rest(ctx, 3));
  if (error.empty()) {
    KillRevokedSubscribers(ctx, ctx.args[2]);
    ctx.out.Ok();
  } else {
    ctx.out.Error(error);
  }
}

// ACL DELUSER username [username ...]
void CmdAclDelUser(CommandContext& ctx) {
  int deleted = 0;
  const std::vector<std::string> names = Rest(ctx, 2);
  std::string error = ctx.services.users.DelUsers(names, &deleted);
  if (error.empty()) {
    KillClientsOfUsers(ctx, [&](std::string_view user) {
      return std::find(names.begin(), names.end(), user) != names.end();
    });
    ctx.out.Integer(deleted);
  } else {
    ctx.out.Error(error);
  }
}

void ReplySelector(resp::Writer& out, const acl::SelectorInfo& s) {
  out.MapHeader(3);
  out.Bulk("commands");
  out.Bulk(s.commands);
  out.Bulk("keys");
  out.Bulk(s.keys);
  out.Bulk("channels");
  out.Bulk(s.channels);
}

// ACL GETUSER username
void CmdAclGetUser(CommandContext& ctx) {
  std::optional<acl::UserInfo> info = ctx.services.users.GetUser(ctx.args[2]);
  if (!info) {
    ctx.out.NullBulk();
    return;
  }
  ctx.out.MapHeader(6);
  ctx.out.Bulk("flags");
  ctx.out.ArrayHeader(static_cast<int64_t>(info->flags.size()));
  for (const std::string& flag : info->flags) ctx.out.Bulk(flag);
  ctx.out.Bulk("passwords");
  ctx.out.ArrayHeader(static_cast<int64_t>(info->passwords.size()));
  for (const std::string& hash : info->passwords) ctx.out.Bulk(hash);
  ctx.out.Bulk("commands");
  ctx.out.Bulk(info->root.commands);
  ctx.out.Bulk("keys");
  ctx.out.Bulk(info->root.keys);
  ctx.out.Bulk("channels");
  ctx.out.Bulk(info->root.channels);
  ctx.out.Bulk("selectors");
  ctx.out.ArrayHeader(static_cast<int64_t>(info->selectors.size()));
  for (const acl::SelectorInfo& s : info->selectors) ReplySelector(ctx.out, s);
}

// ACL LIST
void CmdAclList(CommandContext& ctx) {
  std::vector<std::string> lines = ctx.services.users.List();
  ctx.out.ArrayHeader(static_cast<int64_t>(lines.size()));
  for (const std::string& line : lines) ctx.out.Bulk(line);
}

// ACL USERS
void CmdAclUsers(CommandContext& ctx) {
  std::vector<std::string> names = ctx.services.users.Names();
  ctx.out.ArrayHeader(static_cast<int64_t>(names.size()));
  for (const std::string& name : names) ctx.out.Bulk(name);
}

// ACL WHOAMI
void CmdAclWhoAmI(CommandContext& ctx) {
  const acl::User* user = ctx.client.user ? ctx.client.user.Current() : nullptr;
  ctx.out.Bulk(user != nullptr ? std::string_view(user->name()) : "default");
}

// ACL GENPASS [bits]
void CmdAclGenPass(CommandContext& ctx) {
  if (ctx.args.size() > 3) {
    ctx.out.Error(errors::SubcommandSyntax("acl", ctx.args[1]));
    return;
  }
  int64_t bits = 256;
  if (ctx.args.size() == 3 && !ParseInt64(ctx.args[2], &bits)) {
    ctx.out.Error(errors::kNotInteger);
    return;
  }
  std::optional<std::string> password = acl::GenPass(static_cast<long>(bits));
  if (!password) {
    ctx.out.Error(acl::kGenPassError);
    return;
  }
  ctx.out.Bulk(*password);
}

// ACL LOG [count | RESET]
void CmdAclLog(CommandContext& ctx) {
  if (ctx.args.size() > 3) {
    ctx.out.Error(errors::SubcommandSyntax("acl", ctx.args[1]));
    return;
  }
  int64_t count = 10;
  if (ctx.args.size() == 3) {
    if (EqualsIgnoreCase(ctx.args[2], "RESET")) {
      ctx.services.acl_log.Reset();
      ctx.out.Ok();
      return;
    }
    if (!ParseInt64(ctx.args[2], &count)) {
      ctx.out.Error(errors::kNotInteger);
      return;
    }
  }
  std::vector<acl::LogEntry> entries = ctx.services.acl_log.Entries(static_cast<long>(count));
  ctx.out.ArrayHeader(static_cast<int64_t>(entries.size()));
  for (const acl::LogEntry& e : entries) {
    ctx.out.MapHeader(7);
    ctx.out.Bulk("count");
    ctx.out.Integer(static_cast<int64_t>(e.count));
    ctx.out.Bulk("reason");
    ctx.out.Bulk(acl::DenyReasonName(e.reason));
    ctx.out.Bulk("context");
    ctx.out.Bulk(acl::LogContextName(e.context));
    ctx.out.Bulk("object");
    ctx.out.Bulk(e.object);
    ctx.out.Bulk("username");
    ctx.out.Bulk(e.username);
    ctx.out.Bulk("age-seconds");
    ctx.out.Double(static_cast<double>(ctx.now_ms - e.time_ms) / 1000.0);
    ctx.out.Bulk("client-info");
    ctx.out.Bulk(e.client_info);
  }
}

// ACL DRYRUN username command [arg ...]: the verdict the dispatcher would reach, as text.
void CmdAclDryRun(CommandContext& ctx) {
  std::shared_ptr<const acl::User> user = ctx.services.users.Find(ctx.args[2]);
  if (user == nullptr) {
    ctx.out.Error("ERR User '" + std::string(ctx.args[2]) + "' not found");
    return;
  }
  std::span<const std::string_view> call = ctx.args.subspan(3);
  const CommandSpec* spec = ctx.services.commands.Find(call[0]);
  if (spec != nullptr && !spec->subcommands.empty() && call.size() >= 2) {
    spec = CommandTable::FindSubcommand(*spec, call[1]);
  }
  if (spec == nullptr) {
    ctx.out.Error("ERR Command '" + std::string(call[0]) + "' not found");
    return;
  }
  const size_t argc = call.size();
  if (spec->arity > 0 ? argc != static_cast<size_t>(spec->arity)
                      : argc < static_cast<size_t>(-spec->arity)) {
    ctx.out.Error(errors::WrongArity(spec->name));
    return;
  }
  std::vector<acl::KeyRef> keys;
  std::vector<acl::ChannelRef> channels;
  const acl::Verdict verdict = CheckCommand(*user, *spec, call, &keys, &channels);
  switch (verdict.kind) {
    case acl::Verdict::kOk:
      ctx.out.Ok();
      return;
    case acl::Verdict::kDeniedKey:
      ctx.out.Bulk("This user has no permissions to access the '" +
                   std::string(keys[verdict.index].name) + "' key");
      return;
    case acl::Verdict::kDeniedChannel:
      ctx.out.Bulk("This user has no permissions to access the '" +
                   std::string(channels[verdict.index].name) + "' channel");
      return;
    default:
      ctx.out.Bulk("This user has no permissions to run the '" + std::string(spec->name) +
                   "' command");
      return;
  }
}

// The aclfile parameter, or "" after replying that there is none (ACL LOAD, ACL SAVE).
std::string AclFile(CommandContext& ctx) {
  std::string path = ctx.config().Value("aclfile");
  if (path.empty()) ctx.out.Error(kNoAclFile);
  return path;
}

// ACL LOAD
void CmdAclLoad(CommandContext& ctx) {
  const std::string path = AclFile(ctx);
  if (path.empty()) return;
  std::string error = ctx.services.users.LoadFile(path);
  if (error.empty()) {
    // Every user but default was replaced: their clients go, as in Redis.
    KillClientsOfUsers(ctx, [](std::string_view user) { return user != "default"; });
    ctx.out.Ok();
  } else {
    ctx.out.Error("ERR " + error);
  }
}

// ACL SAVE
void CmdAclSave(CommandContext& ctx) {
  const std::string path = AclFile(ctx);
  if (path.empty()) return;
  std::string error = ctx.services.users.SaveFile(path);
  if (error.empty()) {
    ctx.out.Ok();
  } else {
    log::Warning("Saving the ACL file {}: {}", path, error);
    ctx.out.Error(acl::Users::kSaveError);
  }
}

void CmdAclHelp(CommandContext& ctx) {
  static constexpr std::string_view kHelp[] = {
      "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CAT [<category>]",
      "    List all commands that belong to <category>, or all command categories",
      "    when no category is specified.",
      "DELUSER <username> [<username> ...]",
      "    Delete a list of users.",
      "DRYRUN <username> <command> [<arg> ...]",
      "    Returns whether the user can execute the given command without executing the command.",
      "GETUSER <username>",
      "    Get the user's details.",
      "GENPASS [<bits>]",
      "    Generate a secure 256-bit user password. The optional `bits` argument can",
      "    be used to specify a different size.",
      "LIST",
      "    Show users details in config file format.",
      "LOAD",
      "    Reload users from the ACL file.",
      "LOG [<count> | RESET]",
      "    Show the ACL log entries.",
      "SAVE",
      "    Save the current config to the ACL file.",
      "SETUSER <username> <attribute> [<attribute> ...]",
      "    Create or modify a user with the specified attributes.",
      "USERS",
      "    List all the registered usernames.",
      "WHOAMI",
      "    Return the current connection username.",
      "HELP",
      "    Prints this help."};
  ReplyHelp(ctx.out, kHelp);
}

}  // namespace

void RegisterAclFamily(CommandTable* table) {
  using namespace cmd;
  constexpr uint32_t kAdminAcl = kAdmin | kNoScript | kLoading | kStale;
  constexpr uint32_t kOpenAcl = kNoScript | kLoading | kStale;
  // One row per command.
  // clang-format off
  table->Register({
      {"acl", -2, 0, 0, 0, 0, nullptr, "server", "A container for Access List Control commands",
       {
           {"acl|cat", -2,kNoScript | kOpenAcl, 0, 0, 0, CmdAclCat, "server",
            "List the ACL categories or the commands inside a category"},
           {"acl|deluser", -3,kNoScript | kAdminAcl, 0, 0, 0, CmdAclDelUser, "server",
            "Remove the specified ACL users and the associated rules"},
           {"acl|dryrun", -4,kNoScript | kAdminAcl, 0, 0, 0, CmdAclDryRun, "server",
            "Returns whether the user can execute the given command without executing the command."},
           {"acl|genpass", -2,kNoScript | kOpenAcl, 0, 0, 0, CmdAclGenPass, "server",
            "Generate a pseudorandom secure password to use for ACL users"},
           {"acl|getuser", 3,kNoScript | kAdminAcl, 0, 0, 0, CmdAclGetUser, "server",
            "Get the rules for a specific ACL user"},
           {"acl|list", 2,kNoScript | kAdminAcl, 0, 0, 0, CmdAclList, "server",
            "List the current ACL rules in ACL config file format"},
           {"acl|load", 2,kNoScript | kAdminAcl, 0, 0, 0, CmdAclLoad, "server",
            "Reload the ACLs from the configured ACL file"},
           {"acl|log", -2,kNoScript | kAdminAcl, 0, 0, 0, CmdAclLog, "server",
            "List latest events denied because of ACLs in place"},
           {"acl|save", 2,kNoScript | kAdminAcl, 0, 0, 0, CmdAclSave, "server",
            "Save the current ACL rules in the configured ACL file"},
           {"acl|setuser", -3,kNoScript | kAdminAcl, 0, 0, 0, CmdAclSetUser, "server",
            "Modify or create the rules for a specific ACL user"},
           {"acl|users", 2,kNoScript | kAdminAcl, 0, 0, 0, CmdAclUsers, "server",
            "List the username of all the configured ACL rules"},
           {"acl|whoami", 2,kNoScript | kOpenAcl, 0, 0, 0, CmdAclWhoAmI, "server",
            "Return the name of the user associated to the current connection"},
           {"acl|help", 2, kLoading | kStale, 0, 0, 0, CmdAclHelp, "server",
            "Show helpful text about the different subcommands"},
       }},
  });
  // clang-format on
}

}  // namespace ordis::server
