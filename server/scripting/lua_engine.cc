#include "server/scripting/lua_engine.h"

#include <sys/uio.h>

#include <cstdio>
#include <cstring>
#include <lua.hpp>

#include "base/logging.h"
#include "resp/out_buffer.h"
#include "server/scripting/lua_libraries.h"
#include "server/scripting/lua_reply.h"
#include "server/scripting/script.h"

namespace ordis::server::scripting {

// lua_error and luaL_error leave a C function by longjmp: no C++ object with a destructor may be
// alive in a frame they leave. The functions below do their C++ work in helpers that return
// before the error is raised.
struct LuaEngineAccess {
  static LuaEngine& Of(lua_State* lua) {
    return *static_cast<LuaEngine*>(lua_touserdata(lua, lua_upvalueindex(1)));
  }
  static CommandCaller* caller(LuaEngine& e) { return e.caller_; }
  static int& script_protocol(LuaEngine& e) { return e.script_protocol_; }
  static std::vector<std::string>& number_args(LuaEngine& e) { return e.number_args_; }
  static std::string& reply(LuaEngine& e) { return e.reply_; }
  static std::vector<std::string_view>& arg_views(LuaEngine& e) { return e.arg_views_; }
  static resp::OutBuffer& reply_buffer(LuaEngine& e) { return e.reply_buffer_; }
};

namespace {

constexpr const char* kScriptsKey = "ordis.scripts";
constexpr const char* kErrorHandlerKey = "ordis.error_handler";
// Lua instructions between two looks at SCRIPT KILL (Redis's LUA_MASKCOUNT period).
constexpr int kHookPeriod = 100000;
// Scripts between two steps of the collector beyond its own (Redis's LUA_GC_CYCLE_PERIOD).
constexpr uint64_t kGcPeriod = 50;
constexpr int kRedisVersionNum = (7 << 16) | (0 << 8) | 15;
constexpr const char* kRedisVersion = "7.0.15";

// Pushes {err = message}.
void PushErrorTable(lua_State* lua, std::string_view message) {
  lua_newtable(lua);
  lua_pushstring(lua, "err");
  lua_pushlstring(lua, message.data(), message.size());
  lua_settable(lua, -3);
}

// redis.call's arguments as strings: views of the Lua strings on the stack (they stay there while
// the command runs) and of numbers written into `numbers` as Redis 7.0 writes them ("%.17g": 3.7
// is 3.7000000000000002); false if one is neither.
bool CollectArgs(lua_State* lua, int argc, std::vector<std::string>* numbers,
                 std::vector<std::string_view>* args) {
  numbers->resize(static_cast<size_t>(argc));  // before any view of them is taken
  args->resize(static_cast<size_t>(argc));
  for (int i = 1; i <= argc; ++i) {
    std::string_view& arg = (*args)[static_cast<size_t>(i - 1)];
    const int type = lua_type(lua, i);
    if (type == LUA_TNUMBER) {
      char buf[64];
      const int len = std::snprintf(buf, sizeof(buf), "%.17g", lua_tonumber(lua, i));
      std::string& number = (*numbers)[static_cast<size_t>(i - 1)];
      number.assign(buf, static_cast<size_t>(len));
      arg = number;
    } else if (type == LUA_TSTRING) {
      size_t len = 0;
      const char* s = lua_tolstring(lua, i, &len);
      arg = std::string_view(s, len);
    } else {
      return false;
    }
  }
  return true;
}

// The command a redis lib call (redis.call, pcall, acl_check_cmd) names with the arguments on the
// stack, into the engine's scratch views (reused call after call: redis.call allocates nothing in
// the steady state), and the caller to give it to; nullptr after pushing the error table when
// there are no arguments, one is neither a string nor a number, or no script runs.
CommandCaller* TakeCommand(lua_State* lua, LuaEngine& engine, const char* outside_error) {
  std::vector<std::string_view>& args = LuaEngineAccess::arg_views(engine);
  const int argc = lua_gettop(lua);
  if (argc == 0) {
    PushErrorTable(lua, "ERR Please specify at least one argument for this redis lib call");
    return nullptr;
  }
  if (!CollectArgs(lua, argc, &LuaEngineAccess::number_args(engine), &args)) {
    PushErrorTable(lua, "ERR Lua redis lib command arguments must be strings or integers");
    return nullptr;
  }
  CommandCaller* caller = LuaEngineAccess::caller(engine);
  // Called outside a script (a function kept from one, run later by a metamethod).
  if (caller == nullptr) PushErrorTable(lua, outside_error);
  return caller;
}

// Runs the command of the arguments on the stack; pushes its reply as a Lua value. Returns
// whether that value is an error table.
bool CallCommand(lua_State* lua, LuaEngine& engine) {
  CommandCaller* caller =
      TakeCommand(lua, engine, "ERR redis.call is not allowed outside of a running script");
  if (caller == nullptr) return true;
  std::vector<std::string_view>& args = LuaEngineAccess::arg_views(engine);
  resp::OutBuffer& buffer = LuaEngineAccess::reply_buffer(engine);
  resp::Writer writer(&buffer);
  writer.set_protocol(LuaEngineAccess::script_protocol(engine));
  caller->Call(args, writer);
  std::string& reply = LuaEngineAccess::reply(engine);
  reply.clear();
  struct iovec iov[64];
  while (!buffer.empty()) {
    const int n = buffer.FillIovec(iov, 64);
    size_t taken = 0;
    for (int i = 0; i < n; ++i) {
      reply.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
      taken += iov[i].iov_len;
    }
    buffer.Consume(taken);
  }
  if (reply.empty()) {
    // The command did not run (the server is shutting down) and wrote nothing.
    PushErrorTable(lua, "ERR the server is shutting down");
    return true;
  }
  std::string_view bytes = reply;
  PushReply(lua, &bytes);
  return !reply.empty() && reply[0] == '-';
}

// Raises {err = "ERR " .. message}, without a position: Redis's errors of its redis.* functions.
int RaiseError(lua_State* lua, const char* message) {
  lua_newtable(lua);
  lua_pushstring(lua, "err");
  lua_pushfstring(lua, "ERR %s", message);
  lua_settable(lua, -3);
  return lua_error(lua);
}

// Lua's pcall as Redis 7.0 wraps it: an error table (redis.call's) becomes its err string.
int ScriptPcall(lua_State* lua) {
  luaL_checkany(lua, 1);
  const int argc = lua_gettop(lua);
  lua_pushboolean(lua, 1);
  lua_insert(lua, 1);
  if (lua_pcall(lua, argc - 1, LUA_MULTRET, 0) != 0) {
    lua_remove(lua, 1);
    if (lua_istable(lua, -1)) {
      lua_getfield(lua, -1, "err");
      if (lua_isstring(lua, -1)) {
        lua_replace(lua, -2);
      } else {
        lua_pop(lua, 1);
      }
    }
    lua_pushboolean(lua, 0);
    lua_insert(lua, 1);
  }
  return lua_gettop(lua);
}

int RedisCall(lua_State* lua) {
  if (CallCommand(lua, LuaEngineAccess::Of(lua))) {
    // The command counted its error already (Redis marks it so, for its error statistics).
    lua_pushstring(lua, "ignore_error_stats_update");
    lua_pushboolean(lua, 1);
    lua_settable(lua, -3);
    return lua_error(lua);
  }
  return 1;
}

int RedisPcall(lua_State* lua) {
  CallCommand(lua, LuaEngineAccess::Of(lua));
  return 1;
}

// Raises its errors (Redis's luaError), where redis.pcall returns them.
int RedisAclCheckCmd(lua_State* lua) {
  LuaEngine& engine = LuaEngineAccess::Of(lua);
  CommandCaller* caller = TakeCommand(
      lua, engine, "ERR redis.acl_check_cmd can only be called inside a script invocation");
  if (caller == nullptr) return lua_error(lua);
  const std::optional<bool> may = caller->UserMayRun(LuaEngineAccess::arg_views(engine));
  if (!may) return RaiseError(lua, "Invalid command passed to redis.acl_check_cmd()");
  lua_pushboolean(lua, *may ? 1 : 0);
  return 1;
}

int RedisSha1Hex(lua_State* lua) {
  if (lua_gettop(lua) != 1) return RaiseError(lua, "wrong number of arguments");
  size_t len = 0;
  const char* s = lua_tolstring(lua, 1, &len);
  char hex[41];
  {
    const std::string sha = Sha1Hex(std::string_view(s != nullptr ? s : "", len));
    std::memcpy(hex, sha.data(), 40);
  }
  lua_pushlstring(lua, hex, 40);
  return 1;
}

// Redis's error tables: "-CODE message" keeps its code, a bare "message" gets "ERR".
void PushErrorReplyTable(lua_State* lua, std::string_view text) {
  std::string message;
  if (text.starts_with('-')) {
    const size_t space = text.find(' ');
    message = space == std::string_view::npos ? "ERR " + std::string(text.substr(1))
                                              : std::string(text.substr(1, space - 1)) + " " +
                                                    std::string(text.substr(space + 1));
  } else {
    message = "ERR " + std::string(text);
  }
  while (!message.empty() && (message.back() == '\r' || message.back() == '\n')) message.pop_back();
  PushErrorTable(lua, message);
}

int RedisErrorReply(lua_State* lua) {
  if (lua_gettop(lua) != 1 || lua_type(lua, 1) != LUA_TSTRING) {
    PushErrorTable(lua, "ERR wrong number or type of arguments");  // returned, as Redis
    return 1;
  }
  size_t len = 0;
  const char* s = lua_tolstring(lua, 1, &len);
  // As Redis: a '-' is prepended when missing, then "-E1 x" is the error "E1 x" and "-E1" (no
  // message) "ERR E1".
  PushErrorReplyTable(lua, s[0] == '-' ? std::string(s, len) : "-" + std::string(s, len));
  return 1;
}

int RedisStatusReply(lua_State* lua) {
  if (lua_gettop(lua) != 1 || lua_type(lua, 1) != LUA_TSTRING) {
    PushErrorTable(lua, "ERR wrong number or type of arguments");
    return 1;
  }
  lua_newtable(lua);
  lua_pushstring(lua, "ok");
  lua_pushvalue(lua, 1);
  lua_settable(lua, -3);
  return 1;
}

void WriteLog(lua_State* lua, int argc, log::Level level) {
  std::string message;
  for (int i = 2; i <= argc; ++i) {
    size_t len = 0;
    const char* s = lua_tolstring(lua, i, &len);
    if (s == nullptr) continue;
    if (!message.empty()) message += ' ';
    message.append(s, len);
  }
  log::Write(level, message);
}

int RedisLog(lua_State* lua) {
  const int argc = lua_gettop(lua);
  if (argc < 2) return RaiseError(lua, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(lua, 1)) return RaiseError(lua, "First argument must be a number (log level).");
  const int level = static_cast<int>(lua_tonumber(lua, 1));
  if (level < 0 || level > 3) return RaiseError(lua, "Invalid debug level.");
  const log::Level levels[] = {log::Level::kDebug, log::Level::kVerbose, log::Level::kNotice,
                               log::Level::kWarning};
  if (log::Enabled(levels[level])) WriteLog(lua, argc, levels[level]);
  return 0;
}

int RedisSetResp(lua_State* lua) {
  if (lua_gettop(lua) != 1) return RaiseError(lua, "redis.setresp() requires one argument.");
  const int version = static_cast<int>(lua_tonumber(lua, 1));
  if (version != 2 && version != 3) return RaiseError(lua, "RESP version must be 2 or 3.");
  LuaEngineAccess::script_protocol(LuaEngineAccess::Of(lua)) = version;
  return 0;
}

// redis.set_repl(flags): REPL_AOF's bit (1) says whether the script's next commands reach the
// append-only log; REPL_REPLICA's (2) is for replicas, which ordis has none of. Redis 7 always
// replicates effects, not scripts, so replicate_commands is true.
int RedisSetRepl(lua_State* lua) {
  if (lua_gettop(lua) != 1) return RaiseError(lua, "redis.set_repl() requires two arguments.");
  const int flags = static_cast<int>(lua_tonumber(lua, 1));
  if (flags < 0 || flags > 3)
    return RaiseError(
        lua, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  if (CommandCaller* caller = LuaEngineAccess::caller(LuaEngineAccess::Of(lua))) {
    caller->SetLogged((flags & 1) != 0);
  }
  return 0;
}

int RedisReplicateCommands(lua_State* lua) {
  lua_pushboolean(lua, 1);
  return 1;
}

// Outside Redis's script debugger (which ordis does not have) these do nothing, as in Redis.
int RedisBreakpoint(lua_State* lua) {
  lua_pushboolean(lua, 0);
  return 1;
}

int RedisDebug(lua_State*) { return 0; }

// The error handler of every script run: a string error becomes {err = "ERR " .. msg}; the
// table gets the source and line of the script code that raised it (past C functions such as
// error and redis.call), which the reply names.
int ErrorHandler(lua_State* lua) {
  // The nearest frame of script code: past C functions and our own Lua (the read-only globals'
  // metamethods, cmsgpack), whose chunk names start with '='.
  lua_Debug ar;
  bool have = false;
  for (int level = 1; !have && lua_getstack(lua, level, &ar); ++level) {
    have = lua_getinfo(lua, "nSl", &ar) && std::strcmp(ar.what, "C") != 0 && ar.source[0] != '=';
  }
  if (lua_type(lua, 1) != LUA_TTABLE) {
    // 'ERR ' .. tostring(err), as Redis's handler: error() raises "ERR nil".
    lua_getfield(lua, LUA_GLOBALSINDEX, "tostring");
    lua_pushvalue(lua, 1);
    lua_call(lua, 1, 1);
    const char* msg = lua_tostring(lua, -1);
    lua_newtable(lua);
    lua_pushstring(lua, "err");
    lua_pushfstring(lua, "ERR %s", msg != nullptr ? msg : "");
    lua_settable(lua, -3);
    lua_replace(lua, 1);
    lua_settop(lua, 1);
  }
  if (have) {
    lua_pushstring(lua, "source");
    lua_pushstring(lua, ar.source);
    lua_settable(lua, 1);
    lua_pushstring(lua, "line");
    lua_pushinteger(lua, ar.currentline);
    lua_settable(lua, 1);
  }
  lua_settop(lua, 1);
  return 1;
}

void KillHook(lua_State* lua, lua_Debug*) {
  LuaEngine* engine = nullptr;
  lua_getfield(lua, LUA_REGISTRYINDEX, "ordis.engine");
  engine = static_cast<LuaEngine*>(lua_touserdata(lua, -1));
  lua_pop(lua, 1);
  CommandCaller* caller = LuaEngineAccess::caller(*engine);
  if (caller == nullptr || !caller->Killed()) return;
  // From now on at every instruction: a pcall in the script must not swallow the kill.
  lua_sethook(lua, KillHook, LUA_MASKCOUNT, 1);
  const std::string_view error = caller->KilledError();
  PushErrorTable(lua, error);
  lua_error(lua);
}

void SetField(lua_State* lua, const char* name, lua_CFunction fn, void* engine) {
  lua_pushlightuserdata(lua, engine);
  lua_pushcclosure(lua, fn, 1);
  lua_setfield(lua, -2, name);
}

void SetNumber(lua_State* lua, const char* name, int value) {
  lua_pushinteger(lua, value);
  lua_setfield(lua, -2, name);
}

}  // namespace

LuaEngine::LuaEngine() { Open(); }

LuaEngine::~LuaEngine() {
  if (lua_ != nullptr) lua_close(lua_);
}

void LuaEngine::Open() {
  lua_ = luaL_newstate();
  OpenLibraries(lua_);
  lua_pushlightuserdata(lua_, this);
  lua_setfield(lua_, LUA_REGISTRYINDEX, "ordis.engine");
  // FCALL's redis table, then EVAL's: the same with the debugger's functions and
  // replicate_commands, which Redis 7.0 gives scripts only.
  lua_newtable(lua_);
  SetField(lua_, "call", RedisCall, this);
  SetField(lua_, "pcall", RedisPcall, this);
  SetField(lua_, "acl_check_cmd", RedisAclCheckCmd, this);
  SetField(lua_, "sha1hex", RedisSha1Hex, this);
  SetField(lua_, "error_reply", RedisErrorReply, this);
  SetField(lua_, "status_reply", RedisStatusReply, this);
  SetField(lua_, "log", RedisLog, this);
  SetField(lua_, "setresp", RedisSetResp, this);
  SetField(lua_, "set_repl", RedisSetRepl, this);
  SetNumber(lua_, "LOG_DEBUG", 0);
  SetNumber(lua_, "LOG_VERBOSE", 1);
  SetNumber(lua_, "LOG_NOTICE", 2);
  SetNumber(lua_, "LOG_WARNING", 3);
  SetNumber(lua_, "REPL_NONE", 0);
  SetNumber(lua_, "REPL_AOF", 1);
  SetNumber(lua_, "REPL_SLAVE", 2);
  SetNumber(lua_, "REPL_REPLICA", 2);
  SetNumber(lua_, "REPL_ALL", 3);
  SetNumber(lua_, "REDIS_VERSION_NUM", kRedisVersionNum);
  lua_pushstring(lua_, kRedisVersion);
  lua_setfield(lua_, -2, "REDIS_VERSION");
  lua_newtable(lua_);
  lua_pushnil(lua_);
  while (lua_next(lua_, -3) != 0) {
    lua_pushvalue(lua_, -2);
    lua_insert(lua_, -2);
    lua_settable(lua_, -4);
  }
  SetField(lua_, "replicate_commands", RedisReplicateCommands, this);
  SetField(lua_, "breakpoint", RedisBreakpoint, this);
  SetField(lua_, "debug", RedisDebug, this);
  lua_setglobal(lua_, "redis");
  lua_setfield(lua_, LUA_REGISTRYINDEX, "ordis.function_redis");  // for the function loader
  // Lua's own pcall and setfenv, for the function loader (scripts see neither).
  lua_getglobal(lua_, "pcall");
  lua_setfield(lua_, LUA_REGISTRYINDEX, "ordis.lua_pcall");
  lua_getglobal(lua_, "setfenv");
  lua_setfield(lua_, LUA_REGISTRYINDEX, "ordis.setfenv");
  lua_pushcfunction(lua_, ScriptPcall);
  lua_setglobal(lua_, "pcall");
  ProtectGlobals(lua_);
  lua_newtable(lua_);
  lua_setfield(lua_, LUA_REGISTRYINDEX, kScriptsKey);
  lua_pushcfunction(lua_, ErrorHandler);
  lua_setfield(lua_, LUA_REGISTRYINDEX, kErrorHandlerKey);
  OpenFunctionLoader();
}

void LuaEngine::Reset(uint64_t generation) {
  lua_close(lua_);
  compiled_.clear();
  Open();
  generation_ = generation;
  function_generation_ = UINT64_MAX;  // the new state has no functions: load them again
}

size_t LuaEngine::memory_bytes() const {
  return static_cast<size_t>(lua_gc(lua_, LUA_GCCOUNT, 0)) * 1024 +
         static_cast<size_t>(lua_gc(lua_, LUA_GCCOUNTB, 0));
}

std::string LuaEngine::Compile(std::string_view sha, std::string_view code,
                               const ScriptFlags& flags) {
  if (luaL_loadbuffer(lua_, code.data(), code.size(), "@user_script") != 0) {
    std::string error =
        std::string("ERR Error compiling script (new function): ") + lua_tostring(lua_, -1);
    lua_pop(lua_, 1);
    return error;
  }
  lua_getfield(lua_, LUA_REGISTRYINDEX, kScriptsKey);
  lua_pushlstring(lua_, sha.data(), sha.size());
  lua_pushvalue(lua_, -3);
  lua_settable(lua_, -3);
  lua_pop(lua_, 2);
  compiled_.insert_or_assign(std::string(sha), flags);
  return "";
}

namespace {

// Sets global `name` (on the real globals table, which scripts cannot write) to an array.
void SetArrayGlobal(lua_State* lua, const char* name, std::span<const std::string_view> values) {
  PushRealGlobals(lua);
  lua_pushstring(lua, name);
  lua_createtable(lua, static_cast<int>(values.size()), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    lua_pushlstring(lua, values[i].data(), values[i].size());
    lua_rawseti(lua, -2, static_cast<int>(i + 1));
  }
  lua_rawset(lua, -3);
  lua_pop(lua, 1);
}

// The error a failed script replies with, from the value its error handler returned.
std::string ScriptError(lua_State* lua, std::string_view name) {
  if (lua_type(lua, -1) != LUA_TTABLE) {
    const char* msg = lua_tostring(lua, -1);
    return "ERR Error running script " + std::string(name) + ", " +
           std::string(std::string_view(msg != nullptr ? msg : "execution failure").substr(0, 100));
  }
  auto field = [&](const char* key) {
    lua_getfield(lua, -1, key);
    size_t len = 0;
    const char* s = lua_type(lua, -1) == LUA_TSTRING || lua_type(lua, -1) == LUA_TNUMBER
                        ? lua_tolstring(lua, -1, &len)
                        : nullptr;
    std::string value = s != nullptr ? std::string(s, len) : std::string();
    lua_pop(lua, 1);
    return value;
  };
  std::string error = field("err");
  const std::string source = field("source");
  const std::string line = field("line");
  if (!source.empty() && !line.empty()) {
    error += " script: " + std::string(name) + ", on " + source + ":" + line + ".";
  }
  return error;
}

}  // namespace

void LuaEngine::Run(std::string_view sha, std::span<const std::string_view> keys,
                    std::span<const std::string_view> argv, CommandCaller& caller,
                    resp::Writer& out) {
  lua_getfield(lua_, LUA_REGISTRYINDEX, kScriptsKey);
  lua_pushlstring(lua_, sha.data(), sha.size());
  lua_gettable(lua_, -2);
  lua_remove(lua_, -2);
  SetArrayGlobal(lua_, "KEYS", keys);
  SetArrayGlobal(lua_, "ARGV", argv);
  Invoke(sha, 0, caller, out);
}

void LuaEngine::Invoke(std::string_view name, int nargs, CommandCaller& caller, resp::Writer& out) {
  const int base = lua_gettop(lua_) - nargs - 1;
  lua_getfield(lua_, LUA_REGISTRYINDEX, kErrorHandlerKey);
  lua_insert(lua_, base + 1);
  caller_ = &caller;
  script_protocol_ = 2;
  lua_sethook(lua_, KillHook, LUA_MASKCOUNT, kHookPeriod);
  const int status = lua_pcall(lua_, nargs, 1, base + 1);
  lua_sethook(lua_, nullptr, 0, 0);
  caller_ = nullptr;
  if (status == 0) {
    WriteLuaValue(lua_, script_protocol_, out);
  } else {
    out.Error(ScriptError(lua_, name));
  }
  lua_settop(lua_, base);
  if (++runs_ % kGcPeriod == 0) lua_gc(lua_, LUA_GCSTEP, static_cast<int>(kGcPeriod));
}

}  // namespace ordis::server::scripting
