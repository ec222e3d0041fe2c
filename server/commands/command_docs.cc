// COMMAND [COUNT | INFO [name ...] | LIST [FILTERBY ...] | DOCS [name ...] | GETKEYS cmd ...]
// Everything here is generated from the command table, so it cannot drift from what runs.
#include <string>
#include <vector>

#include "base/glob.h"
#include "server/acl/categories.h"
#include "server/command/acl_bridge.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/families.h"

namespace ordis::server {
namespace {

// In Redis's order (addReplyCommandFlags).
std::vector<std::string_view> FlagNames(const CommandSpec& spec) {
  static constexpr std::pair<uint32_t, std::string_view> kNames[] = {
      {cmd::kWrite, "write"},       {cmd::kReadonly, "readonly"},
      {cmd::kDenyOom, "denyoom"},   {cmd::kAdmin, "admin"},
      {cmd::kPubSub, "pubsub"},     {cmd::kNoScript, "noscript"},
      {cmd::kBlocking, "blocking"}, {cmd::kLoading, "loading"},
      {cmd::kStale, "stale"},       {cmd::kSkipMonitor, "skip_monitor"},
      {cmd::kFast, "fast"},         {cmd::kNoAuth, "no_auth"},
      {cmd::kNoMulti, "no_multi"}};
  std::vector<std::string_view> out;
  for (const auto& [bit, name] : kNames) {
    if (spec.flags & bit) out.push_back(name);
  }
  if (spec.movable_keys()) out.push_back("movablekeys");
  if (spec.flags & cmd::kAllowBusy) out.push_back("allow_busy");
  return out;
}

// The ACL categories the ACL itself uses (ACL CAT, +@category), in Redis's order.
std::vector<std::string> AclCategoryNames(const CommandSpec& spec) {
  const uint32_t bits = AclCategories(spec);
  std::vector<std::string> out;
  for (int i = 0; i < acl::kCategoryCount; ++i) {
    if (bits & (1u << i)) out.push_back("@" + std::string(acl::CategoryName(i)));
  }
  return out;
}

// A keyword key spec (XREAD's and XREADGROUP's, both RO ACCESS in Redis 7.0): the keys after the
// keyword, half of what follows it.
void WriteKeywordKeySpec(resp::Writer& out, const CommandSpec& spec) {
  out.ArrayHeader(1);
  out.MapHeader(3);
  out.Bulk("flags");
  out.SetHeader(2);
  out.SimpleString("RO");
  out.SimpleString("access");
  out.Bulk("begin_search");
  out.MapHeader(2);
  out.Bulk("type");
  out.Bulk("keyword");
  out.Bulk("spec");
  out.MapHeader(2);
  out.Bulk("keyword");
  std::string keyword(spec.keys_keyword);
  for (char& c : keyword) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
  out.Bulk(keyword);
  out.Bulk("startfrom");
  out.Integer(spec.keys_keyword_from);
  out.Bulk("find_keys");
  out.MapHeader(2);
  out.Bulk("type");
  out.Bulk("range");
  out.Bulk("spec");
  out.MapHeader(3);
  out.Bulk("lastkey");
  out.Integer(-1);
  out.Bulk("keystep");
  out.Integer(1);
  out.Bulk("limit");
  out.Integer(2);
}

void WriteKeySpecs(resp::Writer& out, const CommandSpec& spec) {
  if (!spec.keys_keyword.empty()) {
    WriteKeywordKeySpec(out, spec);
    return;
  }
  if (spec.first_key <= 0) {
    out.ArrayHeader(0);
    return;
  }
  out.ArrayHeader(1);
  out.MapHeader(3);
  out.Bulk("flags");
  bool write = spec.flags & cmd::kWrite;
  out.SetHeader(2);
  out.SimpleString(write ? "RW" : "RO");
  out.SimpleString(write ? "update" : "access");
  out.Bulk("begin_search");
  out.MapHeader(2);
  out.Bulk("type");
  out.Bulk("index");
  out.Bulk("spec");
  out.MapHeader(1);
  out.Bulk("index");
  out.Integer(spec.first_key);
  out.Bulk("find_keys");
  out.MapHeader(2);
  out.Bulk("type");
  out.Bulk("range");
  out.Bulk("spec");
  out.MapHeader(3);
  out.Bulk("lastkey");
  out.Integer(spec.last_key < 0 ? spec.last_key : spec.last_key - spec.first_key);
  out.Bulk("keystep");
  out.Integer(spec.key_step);
  out.Bulk("limit");
  out.Integer(0);
}

void WriteInfo(resp::Writer& out, const CommandSpec& spec) {
  out.ArrayHeader(10);
  out.Bulk(spec.name);
  out.Integer(spec.arity);
  auto flags = FlagNames(spec);
  out.SetHeader(static_cast<int64_t>(flags.size()));
  for (auto f : flags) out.SimpleString(f);
  out.Integer(spec.first_key);
  out.Integer(spec.last_key);
  out.Integer(spec.key_step);
  auto cats = AclCategoryNames(spec);
  out.SetHeader(static_cast<int64_t>(cats.size()));
  for (const auto& c : cats) out.SimpleString(c);
  out.SetHeader(0);  // tips
  WriteKeySpecs(out, spec);
  out.ArrayHeader(static_cast<int64_t>(spec.subcommands.size()));
  for (const CommandSpec& sub : spec.subcommands) WriteInfo(out, sub);
}

void WriteDocs(resp::Writer& out, const CommandSpec& spec) {
  out.Bulk(spec.name);
  out.MapHeader(3);
  out.Bulk("summary");
  out.Bulk(spec.summary);
  out.Bulk("since");
  out.Bulk("1.0.0");
  out.Bulk("group");
  out.Bulk(spec.group);
}

void WriteAllInfo(resp::Writer& out, const CommandTable& table) {
  out.ArrayHeader(static_cast<int64_t>(table.all().size()));
  for (const auto& spec : table.all()) WriteInfo(out, spec);
}

// COMMAND
void CmdCommand(CommandContext& ctx) { WriteAllInfo(ctx.out, ctx.services.commands); }

// COMMAND COUNT
void CmdCommandCount(CommandContext& ctx) {
  ctx.out.Integer(static_cast<int64_t>(ctx.services.commands.all().size()));
}

// COMMAND INFO [command-name ...]
void CmdCommandInfo(CommandContext& ctx) {
  const CommandTable& table = ctx.services.commands;
  if (ctx.args.size() == 2) {
    WriteAllInfo(ctx.out, table);
    return;
  }
  ctx.out.ArrayHeader(static_cast<int64_t>(ctx.args.size() - 2));
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    const CommandSpec* spec = table.Find(ctx.args[i]);
    if (spec == nullptr) {
      ctx.out.NullArray();
    } else {
      WriteInfo(ctx.out, *spec);
    }
  }
}

// COMMAND DOCS [command-name ...]
void CmdCommandDocs(CommandContext& ctx) {
  const CommandTable& table = ctx.services.commands;
  std::vector<const CommandSpec*> specs;
  if (ctx.args.size() == 2) {
    for (const auto& spec : table.all()) specs.push_back(&spec);
  } else {
    for (size_t i = 2; i < ctx.args.size(); ++i) {
      if (const CommandSpec* spec = table.Find(ctx.args[i])) specs.push_back(spec);
    }
  }
  ctx.out.MapHeader(static_cast<int64_t>(specs.size()));
  for (const CommandSpec* spec : specs) WriteDocs(ctx.out, *spec);
}

// COMMAND LIST [FILTERBY MODULE module-name | ACLCAT category | PATTERN pattern]
void CmdCommandList(CommandContext& ctx) {
  resp::Writer& out = ctx.out;
  std::string_view pattern, category;
  size_t argc = ctx.args.size();
  if (argc == 5 && EqualsIgnoreCase(ctx.args[2], "FILTERBY")) {
    if (EqualsIgnoreCase(ctx.args[3], "PATTERN")) {
      pattern = ctx.args[4];
    } else if (EqualsIgnoreCase(ctx.args[3], "ACLCAT")) {
      category = ctx.args[4];
    } else if (EqualsIgnoreCase(ctx.args[3], "MODULE")) {
      out.ArrayHeader(0);  // no modules
      return;
    } else {
      out.Error(errors::kSyntax);
      return;
    }
  } else if (argc != 2) {
    out.Error(errors::kSyntax);
    return;
  }
  std::vector<std::string_view> names;
  for (const CommandSpec* spec : ctx.services.commands.flat()) {
    if (!pattern.empty() && !GlobMatch(pattern, spec->name, true)) continue;
    if (!category.empty()) {
      bool in = false;
      for (const auto& c : AclCategoryNames(*spec))
        in = in || EqualsIgnoreCase(c.substr(1), category);
      if (!in) continue;
    }
    names.push_back(spec->name);
  }
  out.ArrayHeader(static_cast<int64_t>(names.size()));
  for (auto n : names) out.Bulk(n);
}

// COMMAND GETKEYS command [arg ...]
void CmdCommandGetKeys(CommandContext& ctx) {
  const CommandTable& table = ctx.services.commands;
  std::span<const std::string_view> cmd_args = ctx.args.subspan(2);
  const CommandSpec* spec = table.Find(cmd_args[0]);
  if (spec != nullptr && !spec->subcommands.empty() && cmd_args.size() >= 2) {
    spec = CommandTable::FindSubcommand(*spec, cmd_args[1]);
  }
  if (spec == nullptr) {
    ctx.out.Error(errors::kInvalidCommandSpecified);
    return;
  }
  bool arity_ok = spec->arity > 0 ? cmd_args.size() == static_cast<size_t>(spec->arity)
                                  : cmd_args.size() >= static_cast<size_t>(-spec->arity);
  if (!arity_ok) {
    ctx.out.Error(errors::kInvalidArgCountSpecified);
    return;
  }
  std::vector<size_t> positions;
  KeyPositions(*spec, cmd_args, &positions);
  if (positions.empty()) {
    ctx.out.Error(errors::kNoKeyArguments);
    return;
  }
  ctx.out.ArrayHeader(static_cast<int64_t>(positions.size()));
  for (size_t pos : positions) ctx.out.Bulk(cmd_args[pos]);
}

// COMMAND HELP
void CmdCommandHelp(CommandContext& ctx) {
  static constexpr std::string_view kHelp[] = {
      "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "(no subcommand)",
      "    Return details about all Redis commands.",
      "COUNT",
      "    Return the total number of commands in this Redis server.",
      "LIST",
      "    Return a list of all commands in this Redis server.",
      "INFO [<command-name> ...]",
      "    Return details about multiple Redis commands.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about multiple Redis commands.",
      "GETKEYS <full-command>",
      "    Return the keys from a full Redis command.",
      "HELP",
      "    Print this help."};
  ReplyHelp(ctx.out, kHelp);
}

}  // namespace

void RegisterCommandDocs(CommandTable* table) {
  using namespace cmd;
  // One row per command.
  // clang-format off
  table->Register({
      {"command", -1, kLoading | kStale, 0, 0, 0, CmdCommand, "server",
       "Get array of Redis command details",
       {
           {"command|count", 2, kLoading | kStale, 0, 0, 0, CmdCommandCount, "server",
            "Get total number of Redis commands"},
           {"command|docs", -2, kLoading | kStale, 0, 0, 0, CmdCommandDocs, "server",
            "Get array of specific Redis command documentation"},
           {"command|getkeys", -3, kLoading | kStale, 0, 0, 0, CmdCommandGetKeys, "server",
            "Extract keys given a full Redis command"},
           {"command|info", -2, kLoading | kStale, 0, 0, 0, CmdCommandInfo, "server",
            "Get array of specific Redis command details, or all when no argument is given"},
           {"command|list", -2, kLoading | kStale, 0, 0, 0, CmdCommandList, "server",
            "Get an array of Redis command names"},
           {"command|help", 2, kLoading | kStale, 0, 0, 0, CmdCommandHelp, "server",
            "Show helpful text about the different subcommands"},
       }},
  });
  // clang-format on
}

}  // namespace ordis::server
