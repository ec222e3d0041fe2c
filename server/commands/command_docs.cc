// COMMAND [COUNT | INFO [name ...] | LIST [FILTERBY ...] | DOCS [name ...] | GETKEYS cmd ... |
// GETKEYSANDFLAGS cmd ...]
// Names, arity, flags and summaries come from the command table, key specs from key_specs.h, the
// documented syntax (since, arguments) from command_docs_data.inc: generated from Redis's COMMAND
// DOCS by scripts/gen_command_docs.py.
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "base/glob.h"
#include "server/acl/categories.h"
#include "server/command/acl_bridge.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/key_specs.h"
#include "server/command/services.h"
#include "server/commands/families.h"

namespace ordis::server {
namespace {

// Not in errors.h: only COMMAND GETKEYS says it.
constexpr std::string_view kInvalidArgumentsSpecified =
    "ERR Invalid arguments specified for command";

// --- COMMAND DOCS's data ---

enum class ArgType : uint8_t {
  kString,
  kInteger,
  kDouble,
  kKey,
  kPattern,
  kUnixTime,
  kPureToken,
  kOneof,
  kBlock,
};
enum ArgFlag : uint8_t { kOptional = 1 << 0, kMultiple = 1 << 1, kMultipleToken = 1 << 2 };
enum DocFlag : uint8_t { kDeprecated = 1 << 0, kSyscmd = 1 << 1 };

// One argument of a command's syntax; nullptr strings are absent (a token may be "": MIGRATE's).
struct DocArg {
  int depth;  // 0: the command's own; its block's or oneof's nested arguments follow it, deeper
  const char* name;
  ArgType type;
  int key_spec_index;  // -1: not a key
  const char* token;
  const char* since;
  const char* deprecated_since;
  uint8_t flags;  // ArgFlag
};

struct CommandDoc {
  const char* name;
  const char* since;
  uint8_t doc_flags;  // DocFlag
  const char* deprecated_since;
  const char* replaced_by;
  std::span<const DocArg> arguments;
};

#include "server/commands/command_docs_data.inc"

const CommandDoc* DocOf(std::string_view name) {
  static const auto* docs = [] {
    auto* m = new absl::flat_hash_map<std::string_view, const CommandDoc*>;
    for (const CommandDoc& doc : kCommandDocs) m->emplace(doc.name, &doc);
    return m;
  }();
  auto it = docs->find(name);
  return it == docs->end() ? nullptr : it->second;
}

std::string_view ArgTypeName(ArgType type) {
  switch (type) {
    case ArgType::kString:
      return "string";
    case ArgType::kInteger:
      return "integer";
    case ArgType::kDouble:
      return "double";
    case ArgType::kKey:
      return "key";
    case ArgType::kPattern:
      return "pattern";
    case ArgType::kUnixTime:
      return "unix-time";
    case ArgType::kPureToken:
      return "pure-token";
    case ArgType::kOneof:
      return "oneof";
    case ArgType::kBlock:
      return "block";
  }
  return "string";
}

// A command or subcommand by its full name ("config|get", any case), as COMMAND INFO and DOCS
// take them.
const CommandSpec* FindByFullName(const CommandTable& table, std::string_view name) {
  const size_t bar = name.find('|');
  if (bar == std::string_view::npos) return table.Find(name);
  const std::string_view sub = name.substr(bar + 1);
  if (sub.find('|') != std::string_view::npos) return nullptr;
  const CommandSpec* container = table.Find(name.substr(0, bar));
  return container == nullptr ? nullptr : CommandTable::FindSubcommand(*container, sub);
}

// In Redis's order (addReplyCommandFlags).
std::vector<std::string_view> FlagNames(const CommandSpec& spec) {
  static constexpr std::pair<uint32_t, std::string_view> kNames[] = {
      {cmd::kWrite, "write"},
      {cmd::kReadonly, "readonly"},
      {cmd::kDenyOom, "denyoom"},
      {cmd::kAdmin, "admin"},
      {cmd::kPubSub, "pubsub"},
      {cmd::kNoScript, "noscript"},
      {cmd::kBlocking, "blocking"},
      {cmd::kLoading, "loading"},
      {cmd::kStale, "stale"},
      {cmd::kSkipMonitor, "skip_monitor"},
      {cmd::kSkipSlowlog, "skip_slowlog"},
      {cmd::kAsking, "asking"},
      {cmd::kFast, "fast"},
      {cmd::kNoAuth, "no_auth"},
      {cmd::kNoMulti, "no_multi"}};
  std::vector<std::string_view> out;
  for (const auto& [bit, name] : kNames) {
    if (spec.flags & bit) out.push_back(name);
  }
  // A fact of the key specs' table, listed between no_auth and no_multi as Redis orders them.
  if (const CommandKeySpecs* keys = KeySpecsOf(spec.name); keys && keys->no_mandatory_keys) {
    auto no_multi = out.end();
    if (!out.empty() && out.back() == "no_multi") --no_multi;
    out.insert(no_multi, "no_mandatory_keys");
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

void WriteKeySpecFlags(resp::Writer& out, uint16_t flags) {
  const std::vector<std::string_view> names = KeySpecFlagNames(flags);
  out.SetHeader(static_cast<int64_t>(names.size()));
  for (std::string_view name : names) out.SimpleString(name);
}

void WriteKeySpec(resp::Writer& out, const KeySpec& ks) {
  out.MapHeader(3);
  out.Bulk("flags");
  WriteKeySpecFlags(out, ks.flags);
  out.Bulk("begin_search");
  out.MapHeader(2);
  out.Bulk("type");
  switch (ks.begin.type) {
    case KeySpec::BeginSearch::kIndex:
      out.Bulk("index");
      out.Bulk("spec");
      out.MapHeader(1);
      out.Bulk("index");
      out.Integer(ks.begin.pos);
      break;
    case KeySpec::BeginSearch::kKeyword:
      out.Bulk("keyword");
      out.Bulk("spec");
      out.MapHeader(2);
      out.Bulk("keyword");
      out.Bulk(ks.begin.keyword);
      out.Bulk("startfrom");
      out.Integer(ks.begin.pos);
      break;
    case KeySpec::BeginSearch::kUnknown:
      out.Bulk("unknown");
      out.Bulk("spec");
      out.MapHeader(0);
      break;
  }
  out.Bulk("find_keys");
  out.MapHeader(2);
  out.Bulk("type");
  switch (ks.find.type) {
    case KeySpec::FindKeys::kRange:
      out.Bulk("range");
      out.Bulk("spec");
      out.MapHeader(3);
      out.Bulk("lastkey");
      out.Integer(ks.find.a);
      out.Bulk("keystep");
      out.Integer(ks.find.b);
      out.Bulk("limit");
      out.Integer(ks.find.c);
      break;
    case KeySpec::FindKeys::kKeynum:
      out.Bulk("keynum");
      out.Bulk("spec");
      out.MapHeader(3);
      out.Bulk("keynumidx");
      out.Integer(ks.find.a);
      out.Bulk("firstkey");
      out.Integer(ks.find.b);
      out.Bulk("keystep");
      out.Integer(ks.find.c);
      break;
    case KeySpec::FindKeys::kUnknown:
      out.Bulk("unknown");
      out.Bulk("spec");
      out.MapHeader(0);
      break;
  }
}

// A set in RESP3, as Redis 7.0 writes it.
void WriteKeySpecs(resp::Writer& out, const CommandSpec& spec) {
  const CommandKeySpecs* keys = KeySpecsOf(spec.name);
  if (keys == nullptr) {
    out.SetHeader(0);
    return;
  }
  out.SetHeader(static_cast<int64_t>(keys->specs.size()));
  for (const KeySpec& ks : keys->specs) WriteKeySpec(out, ks);
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
  // Redis 7.0 writes "no subcommands" as an empty set (RESP3 ~0), subcommands as an array.
  if (spec.subcommands.empty()) {
    out.SetHeader(0);
    return;
  }
  out.ArrayHeader(static_cast<int64_t>(spec.subcommands.size()));
  for (const CommandSpec& sub : spec.subcommands) WriteInfo(out, sub);
}

void WriteDocArgs(resp::Writer& out, std::span<const DocArg> args);

// arg, whose nested arguments are children; fields in Redis's order.
void WriteDocArg(resp::Writer& out, const DocArg& arg, std::span<const DocArg> children) {
  const int64_t fields = 2 + (arg.key_spec_index >= 0) + (arg.token != nullptr) +
                         (arg.since != nullptr) + (arg.deprecated_since != nullptr) +
                         (arg.flags != 0) + !children.empty();
  out.MapHeader(fields);
  out.Bulk("name");
  out.Bulk(arg.name);
  out.Bulk("type");
  out.Bulk(ArgTypeName(arg.type));
  if (arg.key_spec_index >= 0) {
    out.Bulk("key_spec_index");
    out.Integer(arg.key_spec_index);
  }
  if (arg.token != nullptr) {
    out.Bulk("token");
    out.Bulk(arg.token);
  }
  if (arg.since != nullptr) {
    out.Bulk("since");
    out.Bulk(arg.since);
  }
  if (arg.deprecated_since != nullptr) {
    out.Bulk("deprecated_since");
    out.Bulk(arg.deprecated_since);
  }
  if (arg.flags != 0) {
    static constexpr std::pair<uint8_t, std::string_view> kNames[] = {
        {kOptional, "optional"}, {kMultiple, "multiple"}, {kMultipleToken, "multiple_token"}};
    int64_t n = 0;
    for (const auto& [bit, name] : kNames) n += (arg.flags & bit) != 0;
    out.Bulk("flags");
    out.SetHeader(n);
    for (const auto& [bit, name] : kNames) {
      if (arg.flags & bit) out.SimpleString(name);
    }
  }
  if (!children.empty()) {
    out.Bulk("arguments");
    WriteDocArgs(out, children);
  }
}

// args: sibling arguments (those of the smallest depth) each followed by its nested ones.
void WriteDocArgs(resp::Writer& out, std::span<const DocArg> args) {
  const int depth = args.front().depth;
  int64_t n = 0;
  for (const DocArg& a : args) n += a.depth == depth;
  out.ArrayHeader(n);
  for (size_t i = 0; i < args.size();) {
    size_t end = i + 1;
    while (end < args.size() && args[end].depth > depth) ++end;
    WriteDocArg(out, args[i], args.subspan(i + 1, end - i - 1));
    i = end;
  }
}

// name, then its docs map: fields in Redis's order; Redis's prose beyond the summary (complexity,
// history) is not carried.
void WriteDocs(resp::Writer& out, const CommandSpec& spec) {
  out.Bulk(spec.name);
  const CommandDoc* doc = DocOf(spec.name);
  const bool since = doc != nullptr && doc->since != nullptr;
  const bool doc_flags = doc != nullptr && doc->doc_flags != 0;
  const bool deprecated_since = doc != nullptr && doc->deprecated_since != nullptr;
  const bool replaced_by = doc != nullptr && doc->replaced_by != nullptr;
  const bool arguments = doc != nullptr && !doc->arguments.empty();
  const bool subcommands = !spec.subcommands.empty();
  out.MapHeader(2 + since + doc_flags + deprecated_since + replaced_by + arguments + subcommands);
  out.Bulk("summary");
  out.Bulk(spec.summary);
  if (since) {
    out.Bulk("since");
    out.Bulk(doc->since);
  }
  out.Bulk("group");
  out.Bulk(spec.group);
  if (doc_flags) {
    out.Bulk("doc_flags");
    out.SetHeader(((doc->doc_flags & kDeprecated) != 0) + ((doc->doc_flags & kSyscmd) != 0));
    if (doc->doc_flags & kDeprecated) out.SimpleString("deprecated");
    if (doc->doc_flags & kSyscmd) out.SimpleString("syscmd");
  }
  if (deprecated_since) {
    out.Bulk("deprecated_since");
    out.Bulk(doc->deprecated_since);
  }
  if (replaced_by) {
    out.Bulk("replaced_by");
    out.Bulk(doc->replaced_by);
  }
  if (arguments) {
    out.Bulk("arguments");
    WriteDocArgs(out, doc->arguments);
  }
  if (subcommands) {
    out.Bulk("subcommands");
    out.MapHeader(static_cast<int64_t>(spec.subcommands.size()));
    for (const CommandSpec& sub : spec.subcommands) WriteDocs(out, sub);
  }
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
    const CommandSpec* spec = FindByFullName(table, ctx.args[i]);
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
      if (const CommandSpec* spec = FindByFullName(table, ctx.args[i])) specs.push_back(spec);
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

// The keys of the command COMMAND GETKEYS[ANDFLAGS] names, with their flags; false after replying
// an error, in Redis's order of checks (a command without keys says so before its arity is
// checked). A call that names no key answers an empty array when keys are optional (EVAL s 0).
bool GetKeys(CommandContext& ctx, std::vector<std::pair<size_t, uint16_t>>* keys,
             std::span<const std::string_view>* cmd_args) {
  *cmd_args = ctx.args.subspan(2);
  const CommandSpec* spec = ctx.services.commands.Find((*cmd_args)[0]);
  if (spec != nullptr && !spec->subcommands.empty() && cmd_args->size() >= 2) {
    spec = CommandTable::FindSubcommand(*spec, (*cmd_args)[1]);
  }
  if (spec == nullptr) {
    ctx.out.Error(errors::kInvalidCommandSpecified);
    return false;
  }
  if (!HasKeys(*spec)) {
    ctx.out.Error(errors::kNoKeyArguments);
    return false;
  }
  const bool arity_ok = spec->arity > 0 ? cmd_args->size() == static_cast<size_t>(spec->arity)
                                        : cmd_args->size() >= static_cast<size_t>(-spec->arity);
  if (!arity_ok) {
    ctx.out.Error(errors::kInvalidArgCountSpecified);
    return false;
  }
  if (!GetKeysAsRedis(*spec, *cmd_args, keys)) {
    const CommandKeySpecs* specs = KeySpecsOf(spec->name);
    if (specs != nullptr && specs->no_mandatory_keys) {
      ctx.out.ArrayHeader(0);
    } else {
      ctx.out.Error(kInvalidArgumentsSpecified);
    }
    return false;
  }
  return true;
}

// COMMAND GETKEYS command [arg ...]
void CmdCommandGetKeys(CommandContext& ctx) {
  std::vector<std::pair<size_t, uint16_t>> keys;
  std::span<const std::string_view> cmd_args;
  if (!GetKeys(ctx, &keys, &cmd_args)) return;
  ctx.out.ArrayHeader(static_cast<int64_t>(keys.size()));
  for (const auto& [pos, flags] : keys) ctx.out.Bulk(cmd_args[pos]);
}

// COMMAND GETKEYSANDFLAGS command [arg ...]: each key with its key spec's flags for this call.
void CmdCommandGetKeysAndFlags(CommandContext& ctx) {
  std::vector<std::pair<size_t, uint16_t>> keys;
  std::span<const std::string_view> cmd_args;
  if (!GetKeys(ctx, &keys, &cmd_args)) return;
  ctx.out.ArrayHeader(static_cast<int64_t>(keys.size()));
  for (const auto& [pos, flags] : keys) {
    ctx.out.ArrayHeader(2);
    ctx.out.Bulk(cmd_args[pos]);
    WriteKeySpecFlags(ctx.out, flags);
  }
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
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "DOCS [<command-name> ...]",
      "    Return documentation details about multiple Redis commands.",
      "    If no command names are given, documentation details for all",
      "    commands are returned.",
      "GETKEYS <full-command>",
      "    Return the keys from a full Redis command.",
      "GETKEYSANDFLAGS <full-command>",
      "    Return the keys and the access flags from a full Redis command.",
      "HELP",
      "    Prints this help."};
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
           {"command|getkeys", -4, kLoading | kStale, 0, 0, 0, CmdCommandGetKeys, "server",
            "Extract keys given a full Redis command"},
           {"command|getkeysandflags", -4, kLoading | kStale, 0, 0, 0, CmdCommandGetKeysAndFlags,
            "server", "Extract keys and their access flags given a full command"},
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
