// Scripting: EVAL EVALSHA EVAL_RO EVALSHA_RO, SCRIPT LOAD|EXISTS|FLUSH|KILL|HELP, FCALL FCALL_RO
// and FUNCTION LOAD|DELETE|FLUSH|LIST|STATS|KILL|HELP.
//
// A script runs under the keyspace's exclusive lock (its commands' flags ask for it), so no other
// client's command interleaves with it on any thread. Each I/O thread has a Lua engine of its
// own, compiling from the server's one script cache on first use. Replies are Redis 7.0's.
#include <string>

#include "base/glob.h"
#include "persistence/rdb_payload.h"
#include "server/command/arg_parser.h"
#include "server/command/dispatcher.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/families.h"
#include "server/scripting/function_libraries.h"
#include "server/scripting/script.h"

namespace ordis::server {
namespace {

using scripting::ScriptFlags;

// Compiles body (named sha) into this thread's engine unless it is there; returns its flags, or
// nullptr after replying with the shebang's or the compiler's error. A script compiled is one
// the cache holds (the engine is reset when the cache is flushed).
const ScriptFlags* CompileScript(CommandContext& ctx, const std::string& sha,
                                 std::string_view body) {
  scripting::LuaEngine& lua = ctx.dispatcher.lua();
  if (const ScriptFlags* flags = lua.Compiled(sha); flags != nullptr) return flags;
  ScriptFlags flags;
  size_t code_start = 0;
  if (std::string error = scripting::ParseShebang(body, &flags, &code_start); !error.empty()) {
    ctx.out.Error(error);
    return nullptr;
  }
  if (std::string error = lua.Compile(sha, body.substr(code_start), flags); !error.empty()) {
    ctx.out.Error(error);
    return nullptr;
  }
  ctx.services.scripts.Add(body);
  return lua.Compiled(sha);
}

// The numkeys argument of EVAL and FCALL and their kin (args[2]); false after replying with the
// error (not_integer: the command's own text for a numkeys that is no integer).
bool ParseNumKeys(CommandContext& ctx, std::string_view not_integer, int64_t* numkeys) {
  if (!ParseInt64(ctx.args[2], numkeys)) {
    ctx.out.Error(not_integer);
    return false;
  }
  if (*numkeys < 0) {
    ctx.out.Error(errors::kNumKeysNegative);
    return false;
  }
  if (*numkeys > static_cast<int64_t>(ctx.args.size()) - 3) {
    ctx.out.Error(errors::kNumKeysTooMany);
    return false;
  }
  return true;
}

// EVAL script numkeys [key ...] [arg ...], and EVALSHA, EVAL_RO, EVALSHA_RO.
void Eval(CommandContext& ctx, bool by_sha, bool read_only) {
  int64_t numkeys = 0;
  if (!ParseNumKeys(ctx, errors::kNotInteger, &numkeys)) return;
  std::string sha;
  const ScriptFlags* flags = nullptr;
  if (by_sha) {
    sha = scripting::NormalizeSha(ctx.args[1]);
    flags = sha.empty() ? nullptr : ctx.dispatcher.lua().Compiled(sha);
    if (flags == nullptr) {
      std::string body;
      if (sha.empty() || !ctx.services.scripts.Find(sha, &body)) {
        ctx.out.Error(errors::kNoScript);
        return;
      }
      flags = CompileScript(ctx, sha, body);
    }
  } else {
    sha = scripting::Sha1Hex(ctx.args[1]);
    flags = CompileScript(ctx, sha, ctx.args[1]);
  }
  if (flags == nullptr) return;
  if (read_only && flags->declared && !flags->no_writes) {
    ctx.out.Error(errors::kScriptWriteFlagInRo);
    return;
  }
  // A script that declares it may write, and not that it may run out of memory, is refused
  // whole over maxmemory (the dispatcher evicted what it could before this); a script without
  // a shebang is refused command by command, as Redis does.
  if (flags->declared && !flags->no_writes && !flags->allow_oom &&
      ctx.services.memory.OverLimit()) {
    ctx.out.Error(errors::kOom);
    return;
  }
  Dispatcher::ScriptRun run{
      .name = sha, .flags = *flags, .read_only = read_only || flags->no_writes};
  const auto keys = ctx.args.subspan(3, static_cast<size_t>(numkeys));
  const auto argv = ctx.args.subspan(3 + static_cast<size_t>(numkeys));
  ctx.dispatcher.RunScript(ctx.client, run, keys, argv, ctx.out);
}

void CmdEval(CommandContext& ctx) { Eval(ctx, /*by_sha=*/false, /*read_only=*/false); }
void CmdEvalSha(CommandContext& ctx) { Eval(ctx, /*by_sha=*/true, /*read_only=*/false); }
void CmdEvalRo(CommandContext& ctx) { Eval(ctx, /*by_sha=*/false, /*read_only=*/true); }
void CmdEvalShaRo(CommandContext& ctx) { Eval(ctx, /*by_sha=*/true, /*read_only=*/true); }

// SCRIPT LOAD script
void CmdScriptLoad(CommandContext& ctx) {
  const std::string sha = scripting::Sha1Hex(ctx.args[2]);
  if (CompileScript(ctx, sha, ctx.args[2]) != nullptr) ctx.out.Bulk(sha);
}

// SCRIPT EXISTS sha1 [sha1 ...]
void CmdScriptExists(CommandContext& ctx) {
  ctx.out.ArrayHeader(static_cast<int64_t>(ctx.args.size() - 2));
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    const std::string sha = scripting::NormalizeSha(ctx.args[i]);
    ctx.out.Integer(!sha.empty() && ctx.services.scripts.Contains(sha) ? 1 : 0);
  }
}

// SCRIPT FLUSH's and FUNCTION FLUSH's optional ASYNC or SYNC.
bool FlushModeOk(const CommandContext& ctx) {
  return ctx.args.size() == 2 || (ctx.args.size() == 3 && (EqualsIgnoreCase(ctx.args[2], "ASYNC") ||
                                                           EqualsIgnoreCase(ctx.args[2], "SYNC")));
}

// SCRIPT FLUSH [ASYNC|SYNC]: the cache is small; both modes empty it at once.
void CmdScriptFlush(CommandContext& ctx) {
  if (!FlushModeOk(ctx)) {
    ctx.out.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option");
    return;
  }
  ctx.services.scripts.Flush();
  ctx.out.Ok();
}

// SCRIPT KILL stops an EVAL, FUNCTION KILL a function; each answers the other's BUSY.
void Kill(CommandContext& ctx, bool function) {
  switch (ctx.services.running_script.Kill(function)) {
    case scripting::RunningScript::KillResult::kNotRunning:
      ctx.out.Error(errors::kNotBusy);
      break;
    case scripting::RunningScript::KillResult::kOtherKind:
      ctx.out.Error(function ? errors::kBusyScript : errors::kBusyFunction);
      break;
    case scripting::RunningScript::KillResult::kUnkillable:
      ctx.out.Error(errors::kUnkillable);
      break;
    case scripting::RunningScript::KillResult::kKilled:
      ctx.out.Ok();
      break;
  }
}

// SCRIPT KILL
void CmdScriptKill(CommandContext& ctx) { Kill(ctx, /*function=*/false); }
// FUNCTION KILL
void CmdFunctionKill(CommandContext& ctx) { Kill(ctx, /*function=*/true); }

// FCALL function numkeys [key ...] [arg ...], and FCALL_RO.
void Fcall(CommandContext& ctx, bool read_only) {
  const std::optional<ScriptFlags> flags = ctx.services.functions.FindFunction(ctx.args[1]);
  if (!flags) {
    ctx.out.Error("ERR Function not found");
    return;
  }
  int64_t numkeys = 0;
  if (!ParseNumKeys(ctx, "ERR Bad number of keys provided", &numkeys)) return;
  if (read_only && !flags->no_writes) {
    ctx.out.Error(errors::kScriptWriteFlagInRo);
    return;
  }
  if (!flags->no_writes && !flags->allow_oom && ctx.services.memory.OverLimit()) {
    ctx.out.Error(errors::kOom);
    return;
  }
  Dispatcher::ScriptRun run{.name = ctx.args[1],
                            .flags = *flags,
                            .read_only = read_only || flags->no_writes,
                            .function = true,
                            .command = ctx.args};
  ctx.dispatcher.lua();  // current with the libraries
  const auto keys = ctx.args.subspan(3, static_cast<size_t>(numkeys));
  const auto argv = ctx.args.subspan(3 + static_cast<size_t>(numkeys));
  ctx.dispatcher.RunScript(ctx.client, run, keys, argv, ctx.out);
}

void CmdFcall(CommandContext& ctx) { Fcall(ctx, /*read_only=*/false); }
void CmdFcallRo(CommandContext& ctx) { Fcall(ctx, /*read_only=*/true); }

// FUNCTION LOAD [REPLACE] code: checked by running it in this thread's engine, then shared.
// A library from its code (shebang included): its name and functions, or Redis's error.
std::string CompileLibrary(CommandContext& ctx, std::string_view code,
                           scripting::Library* library) {
  size_t code_start = 0;
  std::string error = scripting::ParseLibraryShebang(code, &library->name, &code_start);
  if (error.empty()) {
    error = ctx.dispatcher.lua().CheckLibrary(code.substr(code_start), &library->functions);
  }
  if (error.empty()) library->code = std::string(code);
  return error;
}

void CmdFunctionLoad(CommandContext& ctx) {
  bool replace = false;
  if (ctx.args.size() == 4) {
    if (!EqualsIgnoreCase(ctx.args[2], "REPLACE")) {
      ctx.out.Error("ERR Unknown option given: " + std::string(ctx.args[2]));
      return;
    }
    replace = true;
  } else if (ctx.args.size() > 4) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  scripting::Library library;
  std::string error = CompileLibrary(ctx, ctx.args.back(), &library);
  if (error.empty()) {
    const std::string name = library.name;
    error = ctx.services.functions.Add(std::move(library), replace);
    if (error.empty()) {
      ctx.keyspace().CountChange();  // logged, and counted unsaved
      ctx.out.Bulk(name);
      return;
    }
  }
  ctx.out.Error(error);
}

// FUNCTION DELETE library
void CmdFunctionDelete(CommandContext& ctx) {
  if (!ctx.services.functions.Delete(ctx.args[2])) {
    ctx.out.Error("ERR Library not found");
    return;
  }
  ctx.keyspace().CountChange();
  ctx.out.Ok();
}

// FUNCTION FLUSH [ASYNC|SYNC]
void CmdFunctionFlush(CommandContext& ctx) {
  if (!FlushModeOk(ctx)) {
    ctx.out.Error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
    return;
  }
  ctx.services.functions.Flush();
  ctx.keyspace().CountChange();
  ctx.out.Ok();
}

// FUNCTION DUMP: every library's code in Redis's DUMP payload (persistence/rdb_payload.h).
void CmdFunctionDump(CommandContext& ctx) {
  std::string payload;
  for (const scripting::Library& library : ctx.services.functions.All()) {
    payload.push_back(static_cast<char>(persistence::rdb::kOpcodeFunction2));
    persistence::rdb::AppendString(&payload, library.code);
  }
  persistence::rdb::Seal(&payload);
  ctx.out.Bulk(payload);
}

// FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE]: all of the payload's libraries or none.
void CmdFunctionRestore(CommandContext& ctx) {
  scripting::RestorePolicy policy = scripting::RestorePolicy::kAppend;
  if (ctx.args.size() == 4) {
    if (EqualsIgnoreCase(ctx.args[3], "FLUSH")) {
      policy = scripting::RestorePolicy::kFlush;
    } else if (EqualsIgnoreCase(ctx.args[3], "REPLACE")) {
      policy = scripting::RestorePolicy::kReplace;
    } else if (!EqualsIgnoreCase(ctx.args[3], "APPEND")) {
      ctx.out.Error(
          "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
      return;
    }
  } else if (ctx.args.size() > 4) {
    ctx.out.Error(errors::SubcommandSyntax("function", ctx.args[1]));
    return;
  }
  const std::string_view payload = ctx.args[2];
  if (!persistence::rdb::Verify(payload)) {
    ctx.out.Error("ERR DUMP payload version or checksum are wrong");
    return;
  }
  // As Redis, libraries are read up to the trailer's start; a string may run into it.
  persistence::rdb::Reader reader(payload);
  std::vector<scripting::Library> libraries;
  while (reader.position() < payload.size() - 10) {
    uint8_t type = 0;
    std::string code;
    reader.ReadByte(&type);  // there is one: the position is before the trailer
    if (type == persistence::rdb::kOpcodeFunctionPreGa) {
      ctx.out.Error(reader.ReadString(&code) ? "ERR Pre-GA function format not supported"
                                             : "ERR Failed loading library name");
      return;
    }
    if (type != persistence::rdb::kOpcodeFunction2) {
      ctx.out.Error("ERR given type is not a function");
      return;
    }
    if (!reader.ReadString(&code)) {
      ctx.out.Error("ERR Failed loading library payload");
      return;
    }
    scripting::Library& library = libraries.emplace_back();
    if (std::string error = CompileLibrary(ctx, code, &library); !error.empty()) {
      ctx.out.Error(error);
      return;
    }
  }
  if (std::string error = ctx.services.functions.Restore(std::move(libraries), policy);
      !error.empty()) {
    ctx.out.Error(error);
    return;
  }
  ctx.keyspace().CountChange();
  ctx.out.Ok();
}

// FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE]
void CmdFunctionList(CommandContext& ctx) {
  bool with_code = false;
  std::optional<std::string_view> pattern;
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    if (EqualsIgnoreCase(ctx.args[i], "WITHCODE") && !with_code) {
      with_code = true;
    } else if (EqualsIgnoreCase(ctx.args[i], "LIBRARYNAME") && !pattern) {
      if (i + 1 == ctx.args.size()) {
        ctx.out.Error("ERR library name argument was not given");
        return;
      }
      pattern = ctx.args[++i];
    } else {
      ctx.out.Error("ERR Unknown argument " + std::string(ctx.args[i]));
      return;
    }
  }
  std::vector<scripting::Library> libraries = ctx.services.functions.All();
  if (pattern) {
    std::erase_if(libraries, [&](const scripting::Library& l) {
      return !GlobMatch(*pattern, l.name, /*nocase=*/false);
    });
  }
  resp::Writer& out = ctx.out;
  out.ArrayHeader(static_cast<int64_t>(libraries.size()));
  for (const scripting::Library& library : libraries) {
    out.MapHeader(with_code ? 4 : 3);
    out.Bulk("library_name");
    out.Bulk(library.name);
    out.Bulk("engine");
    out.Bulk("LUA");
    out.Bulk("functions");
    out.ArrayHeader(static_cast<int64_t>(library.functions.size()));
    for (const scripting::FunctionInfo& f : library.functions) {
      out.MapHeader(3);
      out.Bulk("name");
      out.Bulk(f.name);
      out.Bulk("description");
      f.description ? out.Bulk(*f.description) : out.NullBulk();
      out.Bulk("flags");
      out.SetHeader(static_cast<int64_t>(f.flag_names.size()));
      for (const std::string& flag : f.flag_names) out.SimpleString(flag);
    }
    if (with_code) {
      out.Bulk("library_code");
      out.Bulk(library.code);
    }
  }
}

// FUNCTION STATS: the running script is not named (ordis keeps no name for it): nil.
void CmdFunctionStats(CommandContext& ctx) {
  resp::Writer& out = ctx.out;
  const scripting::RunningScript& running = ctx.services.running_script;
  if (running.Busy(0) && !running.function()) {
    out.Error(errors::kBusyScript);  // as Redis: an EVAL is not a function to describe
    return;
  }
  out.MapHeader(2);
  out.Bulk("running_script");
  const bool described = running.Describe(
      NowMs(),
      [&](std::string_view name, std::span<const std::string_view> command, int64_t duration_ms) {
        out.MapHeader(3);
        out.Bulk("name");
        out.Bulk(name);
        out.Bulk("command");
        out.ArrayHeader(static_cast<int64_t>(command.size()));
        for (std::string_view arg : command) out.Bulk(arg);
        out.Bulk("duration_ms");
        out.Integer(duration_ms);
      });
  if (!described) out.NullBulk();
  out.Bulk("engines");
  out.MapHeader(1);
  out.Bulk("LUA");
  out.MapHeader(2);
  out.Bulk("libraries_count");
  out.Integer(static_cast<int64_t>(ctx.services.functions.library_count()));
  out.Bulk("functions_count");
  out.Integer(static_cast<int64_t>(ctx.services.functions.function_count()));
}

void CmdFunctionHelp(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "LOAD [REPLACE] <FUNCTION CODE>",
      "    Create a new library with the given library name and code.",
      "DELETE <LIBRARY NAME>",
      "    Delete the given library.",
      "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
      "    Return general information on all the libraries:",
      "    * Library name",
      "    * The engine used to run the Library",
      "    * Library description",
      "    * Functions list",
      "    * Library code (if WITHCODE is given)",
      "    It also possible to get only function that matches a pattern using LIBRARYNAME "
      "argument.",
      "STATS",
      "    Return information about the current function running:",
      "    * Function name",
      "    * Command used to run the function",
      "    * Duration in MS that the function is running",
      "    If no function is running, return nil",
      "    In addition, returns a list of available engines.",
      "KILL",
      "    Kill the current running function.",
      "FLUSH [ASYNC|SYNC]",
      "    Delete all the libraries.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the libraries.",
      "    * SYNC: Synchronously flush the libraries.",
      "DUMP",
      "    Return a serialized payload representing the current libraries, can be restored using "
      "FUNCTION RESTORE command",
      "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
      "    Restore the libraries represented by the given payload, it is possible to give a "
      "restore policy to",
      "    control how to handle existing libraries (default APPEND):",
      "    * FLUSH: delete all existing libraries.",
      "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
      "abort.",
      "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
      "replace the old",
      "      libraries with the new libraries (notice that even on this option there is a chance "
      "of failure",
      "      in case of functions name collision with another library).",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.out, kLines);
}

void CmdScriptHelp(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "EXISTS <sha1> [<sha1> ...]",
      "    Return information about the existence of the scripts in the script cache.",
      "FLUSH [ASYNC|SYNC]",
      "    Flush the Lua scripts cache. Very dangerous on replicas.",
      "    When called without the optional mode argument, the behavior is determined by the",
      "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
      "    * ASYNC: Asynchronously flush the scripts cache.",
      "    * SYNC: Synchronously flush the scripts cache.",
      "KILL",
      "    Kill the currently executing Lua script.",
      "LOAD <script>",
      "    Load a script into the scripts cache without executing it.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.out, kLines);
}

}  // namespace

void RegisterScriptingFamily(CommandTable* table) {
  using namespace cmd;
  // A script takes the exclusive lock: it runs whole with nothing interleaved (its writes and
  // reads are those of the commands it calls, checked one by one).
  constexpr uint32_t kScript = kNoScript | kStale | kExclusiveLock;
  // One row per command.
  // clang-format off
  table->Register({
      {"eval", -3, kScript | kSkipMonitor | kMayReplicate, 0, 0, 0, CmdEval, "scripting", "Execute a Lua script server side", {}, 2},
      {"evalsha", -3, kScript | kSkipMonitor | kMayReplicate, 0, 0, 0, CmdEvalSha, "scripting", "Execute a Lua script server side", {}, 2},
      {"eval_ro", -3, kScript | kReadonly | kSkipMonitor, 0, 0, 0, CmdEvalRo, "scripting", "Execute a read-only Lua script server side", {}, 2},
      {"evalsha_ro", -3, kScript | kReadonly | kSkipMonitor, 0, 0, 0, CmdEvalShaRo, "scripting", "Execute a read-only Lua script server side", {}, 2},
      {"script", -2, 0, 0, 0, 0, nullptr, "scripting", "A container for Lua scripts management commands",
       {
           {"script|load", 3, kNoScript | kStale, 0, 0, 0, CmdScriptLoad, "scripting",
            "Load the specified Lua script into the script cache."},
           {"script|exists", -3, kNoScript, 0, 0, 0, CmdScriptExists, "scripting",
            "Check existence of scripts in the script cache."},
           {"script|flush", -2, kNoScript, 0, 0, 0, CmdScriptFlush, "scripting",
            "Remove all the scripts from the script cache."},
           {"script|kill", 2, kNoScript | kAllowBusy, 0, 0, 0, CmdScriptKill, "scripting",
            "Kill the script currently in execution."},
           {"script|help", 2, kLoading | kStale, 0, 0, 0, CmdScriptHelp, "scripting",
            "Show helpful text about the different subcommands"},
       }},
      {"fcall", -3, kScript | kSkipMonitor | kMayReplicate, 0, 0, 0, CmdFcall, "scripting", "Invoke a function", {}, 2},
      {"fcall_ro", -3, kScript | kReadonly | kSkipMonitor, 0, 0, 0, CmdFcallRo, "scripting", "Invoke a read-only function", {}, 2},
      {"function", -2, 0, 0, 0, 0, nullptr, "scripting", "A container for function commands",
       {
           {"function|load", -3, kWrite | kNoScript | kDenyOom, 0, 0, 0, CmdFunctionLoad, "scripting",
            "Create a function with the given arguments (name, code, description)"},
           {"function|delete", 3, kWrite | kNoScript, 0, 0, 0, CmdFunctionDelete, "scripting",
            "Delete a function by name"},
           {"function|flush", -2, kWrite | kNoScript, 0, 0, 0, CmdFunctionFlush, "scripting",
            "Deleting all functions"},
           {"function|list", -2, kNoScript, 0, 0, 0, CmdFunctionList, "scripting",
            "List information about all the functions"},
           {"function|stats", 2, kNoScript | kAllowBusy, 0, 0, 0, CmdFunctionStats, "scripting",
            "Return information about the function currently running (name, description, duration)"},
           {"function|kill", 2, kNoScript | kAllowBusy, 0, 0, 0, CmdFunctionKill, "scripting",
            "Kill the function currently in execution."},
           {"function|dump", 2, kNoScript, 0, 0, 0, CmdFunctionDump, "scripting",
            "Dump all functions into a serialized binary payload"},
           {"function|restore", -3, kWrite | kNoScript | kDenyOom, 0, 0, 0, CmdFunctionRestore,
            "scripting", "Restore all the functions on the given payload"},
           {"function|help", 2, kLoading | kStale, 0, 0, 0, CmdFunctionHelp, "scripting",
            "Show helpful text about the different subcommands"},
       }},
  });
  // clang-format on
}

}  // namespace ordis::server
