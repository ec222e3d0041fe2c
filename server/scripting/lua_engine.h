// One Lua 5.1 state, sandboxed as Redis 7.0 sandboxes its own: the libraries scripts use (base,
// table, string, math, cjson, bit, cmsgpack, struct), the redis table (call, pcall, error_reply,
// status_reply, sha1hex, log, setresp ...), no os, io, loadfile, dofile, require; globals and
// library tables read-only. EVAL scripts are compiled into it by name and run with KEYS and ARGV.
//
// Thread safety: none. One engine per thread that runs scripts; scripts run one at a time under
// the keyspace's exclusive lock, so engines never see each other's effects half done.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "resp/out_buffer.h"
#include "resp/writer.h"
#include "server/scripting/function_libraries.h"
#include "server/scripting/script.h"

struct lua_State;

namespace ordis::server::scripting {

// What redis.call and redis.pcall reach.
class CommandCaller {
 public:
  // Runs args (at least one argument) as a command of the running script and writes its reply
  // to out, in out's protocol (the script's redis.setresp version).
  virtual void Call(std::span<const std::string_view> args, resp::Writer& out) = 0;
  // redis.acl_check_cmd: whether the script's user may run args (at least one argument) as a
  // command, its keys and channels included, without running it or logging a denial; nullopt
  // when args name no command.
  virtual std::optional<bool> UserMayRun(std::span<const std::string_view> args) = 0;
  // redis.set_repl: whether the script's commands from now on go to the append-only log
  // (REPL_AOF, REPL_ALL) or not (REPL_NONE, REPL_REPLICA: ordis has no replicas). A run starts
  // logged.
  virtual void SetLogged(bool /*logged*/) {}
  // Whether the script must stop now (SCRIPT KILL): asked every so many Lua instructions.
  virtual bool Killed() { return false; }
  // The error a stopped script ends with (without '-').
  virtual std::string_view KilledError() const { return ""; }

 protected:
  ~CommandCaller() = default;
};

class LuaEngine {
 public:
  LuaEngine();
  ~LuaEngine();
  LuaEngine(const LuaEngine&) = delete;
  LuaEngine& operator=(const LuaEngine&) = delete;

  // Compiles the Lua code of the script named sha (EVAL's body after its shebang), with the flags
  // its shebang declared. "" or Redis's error ("ERR Error compiling script (new function):
  // user_script:1: ...").
  std::string Compile(std::string_view sha, std::string_view code, const ScriptFlags& flags);
  // The flags of the script sha compiled, or nullptr if it is not.
  const ScriptFlags* Compiled(std::string_view sha) const {
    // absl's string-keyed maps look up an absl::string_view without copying it into a key.
    auto it = compiled_.find(absl::string_view(sha.data(), sha.size()));
    return it == compiled_.end() ? nullptr : &it->second;
  }

  // Runs the compiled script sha with KEYS and ARGV and writes its reply to out (in out's
  // protocol, the caller's), or the error it raised, named after sha as Redis names it.
  void Run(std::string_view sha, std::span<const std::string_view> keys,
           std::span<const std::string_view> argv, CommandCaller& caller, resp::Writer& out);

  // FUNCTION LOAD's check: runs a library's Lua code (after its shebang) with nothing but the
  // load-time redis table (register_function, log, LOG_*, REDIS_VERSION*) as globals, as Redis
  // 7.0, and lists the functions it registered; "" or Redis's error ("ERR Error compiling
  // function: ...", "ERR Error registering functions: ...").
  std::string CheckLibrary(std::string_view code, std::vector<FunctionInfo>* functions);
  // Makes this engine's functions those of `libraries`, the registry's at `generation`.
  void LoadFunctions(const std::vector<Library>& libraries, uint64_t generation);
  uint64_t function_generation() const { return function_generation_; }
  // Runs function `name` (loaded) with its keys and arguments, as Run runs a script.
  void CallFunction(std::string_view name, std::span<const std::string_view> keys,
                    std::span<const std::string_view> argv, CommandCaller& caller,
                    resp::Writer& out);

  // A fresh state: every compiled script forgotten (SCRIPT FLUSH). generation is the script
  // cache's, for the caller to tell when it must reset.
  void Reset(uint64_t generation);
  uint64_t generation() const { return generation_; }

  // Bytes the Lua state holds (INFO's used_memory_lua).
  size_t memory_bytes() const;

 private:
  friend struct LuaEngineAccess;  // the C functions of the redis table
  void Open();
  lua_State* lua_ = nullptr;
  absl::flat_hash_map<std::string, ScriptFlags> compiled_;
  uint64_t generation_ = 0;
  uint64_t function_generation_ = UINT64_MAX;  // none loaded
  // Runs the function on the stack's top (keys and arguments pushed by push_args) under the
  // error handler and the kill hook; replies through out, errors naming `name`.
  void Invoke(std::string_view name, int nargs, CommandCaller& caller, resp::Writer& out);
  void OpenFunctionLoader();
  uint64_t runs_ = 0;
  // The running script's: what its redis.call reaches, the protocol redis.setresp chose.
  CommandCaller* caller_ = nullptr;
  int script_protocol_ = 2;
  // redis.call's scratch: its numeric arguments as text, views of every argument, the reply's
  // bytes.
  std::vector<std::string> number_args_;
  std::vector<std::string_view> arg_views_;
  resp::OutBuffer reply_buffer_;
  std::string reply_;
};

}  // namespace ordis::server::scripting
