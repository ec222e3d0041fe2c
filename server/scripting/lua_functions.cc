// FUNCTION libraries in a LuaEngine: a library's code runs once in Redis 7.0's load-time
// environment, where the only global is a redis table of register_function, log, LOG_* and
// REDIS_VERSION(_NUM), and the callbacks it registered are kept by name; FCALL calls them with
// their keys and arguments as parameters, seeing the scripts' globals.
#include <cctype>
#include <lua.hpp>
#include <string>

#include "server/scripting/lua_engine.h"
#include "server/scripting/lua_libraries.h"

namespace ordis::server::scripting {
namespace {

constexpr const char* kLoaderKey = "ordis.function_loader";
constexpr const char* kFunctionsKey = "ordis.functions";

// Given the real globals, the functions' redis table (not yet read-only), Lua's own pcall and
// setfenv and the set of read-only proxies, returns load(chunk): runs a library's chunk and
// returns the functions it registered ({name, callback, flags, description} each), or nil and the
// error.
constexpr std::string_view kLoaderGlue = R"lua(
local real, function_api, lua_pcall, setfenv, readonly_set = ...
local error, type, tostring, setmetatable, find = error, type, tostring, setmetatable, string.find
local select, pairs, ipairs = select, pairs, ipairs
local state = {loading = false, registered = nil, names = nil}
local function refuse() error('Attempt to modify a readonly table', 2) end
local function missing(name)
  error("Script attempted to access nonexistent global variable '" .. tostring(name) .. "'", 3)
end
local function fail(message) error({err = 'ERR ' .. message}) end
local known_flags = {['no-writes'] = true, ['allow-oom'] = true, ['allow-stale'] = true,
                     ['no-cluster'] = true, ['allow-cross-slot-keys'] = true}
local function add(name, callback, flags, description)
  if name == nil then fail('redis.register_function must get a function name argument') end
  if callback == nil then fail('redis.register_function must get a callback argument') end
  name = tostring(name)
  if name == '' or find(name, '[^%w_]') then
    fail('Library names can only contain letters, numbers, or underscores(_) and must be at least one character long')
  end
  if state.names[name] then fail('Function already exists in the library') end
  local flag_names = {}
  if flags ~= nil then
    for _, flag in ipairs(flags) do
      if type(flag) ~= 'string' or not known_flags[flag] then fail('unknown flag given') end
      flag_names[#flag_names + 1] = flag
    end
  end
  state.names[name] = true
  state.registered[#state.registered + 1] =
      {name = name, callback = callback, flags = flag_names, description = description}
end
local load_api = {
  register_function = function(...)
    if not state.loading then fail('redis.register_function can only be called on FUNCTION LOAD command') end
    local n = select('#', ...)
    local a, b = ...
    if n == 1 then
      if type(a) ~= 'table' then
        fail('calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).')
      end
      local name, callback, flags, description
      for k, v in pairs(a) do
        if k == 'function_name' then
          if type(v) ~= 'string' then fail('function_name argument given to redis.register_function must be a string') end
          name = v
        elseif k == 'callback' then
          if type(v) ~= 'function' then fail('callback argument given to redis.register_function must be a function') end
          callback = v
        elseif k == 'flags' then
          if type(v) ~= 'table' then fail('flags argument to redis.register_function must be a table representing function flags') end
          flags = v
        elseif k == 'description' then
          if type(v) ~= 'string' then fail('description argument given to redis.register_function must be a string') end
          description = v
        else
          fail('unknown argument given to redis.register_function')
        end
      end
      return add(name, callback, flags, description)
    end
    if n ~= 2 then fail('wrong number of arguments to redis.register_function') end
    if type(a) ~= 'string' and type(a) ~= 'number' then fail('first argument to redis.register_function must be a string') end
    if type(b) ~= 'function' then fail('second argument to redis.register_function must be a function') end
    return add(a, b, nil, nil)
  end,
  log = function_api.log,
  LOG_DEBUG = 0, LOG_VERBOSE = 1, LOG_NOTICE = 2, LOG_WARNING = 3,
  REDIS_VERSION = function_api.REDIS_VERSION, REDIS_VERSION_NUM = function_api.REDIS_VERSION_NUM,
}
local load_redis = setmetatable({}, {
  __index = function(_, name)
    local v = load_api[name]
    if v == nil then missing(name) end
    return v
  end,
  __newindex = refuse, __metatable = {}})
local function_redis = setmetatable({}, {__index = function_api, __newindex = refuse,
                                         __metatable = {}})
readonly_set[load_redis], readonly_set[function_redis] = true, true
-- Functions see the scripts' globals, without KEYS and ARGV (their parameters instead). While
-- their library loads, the load-time redis table is the only global, as in Redis 7.0.
local env = setmetatable({}, {
  __index = function(_, name)
    if name == 'redis' then return state.loading and load_redis or function_redis end
    if state.loading then missing(name) end
    local v = real[name]
    if v == nil or name == 'KEYS' or name == 'ARGV' then missing(name) end
    return v
  end,
  __newindex = refuse, __metatable = {}})
return function(chunk)
  setfenv(chunk, env)
  state.loading, state.registered, state.names = true, {}, {}
  local ok, err = lua_pcall(chunk)
  local registered = state.registered
  state.loading, state.registered, state.names = false, nil, nil
  if ok then return registered end
  if type(err) == 'table' then return nil, tostring(err.err) end
  return nil, 'ERR ' .. tostring(err)
end
)lua";

}  // namespace

void LuaEngine::OpenFunctionLoader() {
  if (luaL_loadbuffer(lua_, kLoaderGlue.data(), kLoaderGlue.size(), "=functions") != 0) {
    lua_error(lua_);  // our own code: cannot happen
  }
  PushRealGlobals(lua_);
  lua_getfield(lua_, LUA_REGISTRYINDEX, "ordis.function_redis");
  lua_getfield(lua_, LUA_REGISTRYINDEX, "ordis.lua_pcall");
  lua_getfield(lua_, LUA_REGISTRYINDEX, "ordis.setfenv");
  PushReadonlySet(lua_);
  lua_call(lua_, 5, 1);
  lua_setfield(lua_, LUA_REGISTRYINDEX, kLoaderKey);
  lua_newtable(lua_);
  lua_setfield(lua_, LUA_REGISTRYINDEX, kFunctionsKey);
}

namespace {

// Replaces the string on the stack's top by its lower-case form (function names have no case).
void FoldCase(lua_State* lua) {
  size_t len = 0;
  const char* s = lua_tolstring(lua, -1, &len);
  std::string folded(s, len);
  for (char& c : folded) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  lua_pop(lua, 1);
  lua_pushlstring(lua, folded.data(), folded.size());
}

std::string FieldString(lua_State* lua, const char* key) {
  lua_getfield(lua, -1, key);
  std::string value;
  if (lua_type(lua, -1) == LUA_TSTRING) {
    size_t len = 0;
    const char* s = lua_tolstring(lua, -1, &len);
    value.assign(s, len);
  }
  lua_pop(lua, 1);
  return value;
}

// Runs code's chunk through the loader: leaves the registered functions' table on the stack and
// returns "", or returns the error (nothing left on the stack).
std::string RunLoader(lua_State* lua, std::string_view code) {
  if (luaL_loadbuffer(lua, code.data(), code.size(), "@user_function") != 0) {
    std::string error = std::string("ERR Error compiling function: ") + lua_tostring(lua, -1);
    lua_pop(lua, 1);
    return error;
  }
  lua_getfield(lua, LUA_REGISTRYINDEX, kLoaderKey);
  lua_insert(lua, -2);
  lua_call(lua, 1, 2);
  if (lua_isnil(lua, -2)) {
    std::string error = "ERR Error registering functions: ";
    const char* message = lua_tostring(lua, -1);
    error += message != nullptr ? message : "";
    lua_pop(lua, 2);
    return error;
  }
  lua_pop(lua, 1);
  return "";
}

}  // namespace

std::string LuaEngine::CheckLibrary(std::string_view code, std::vector<FunctionInfo>* functions) {
  functions->clear();
  if (std::string error = RunLoader(lua_, code); !error.empty()) return error;
  const int n = static_cast<int>(lua_objlen(lua_, -1));
  for (int i = 1; i <= n; ++i) {
    lua_rawgeti(lua_, -1, i);
    FunctionInfo& f = functions->emplace_back();
    f.name = FieldString(lua_, "name");
    lua_getfield(lua_, -1, "description");
    if (lua_type(lua_, -1) == LUA_TSTRING) f.description = lua_tostring(lua_, -1);
    lua_pop(lua_, 1);
    lua_getfield(lua_, -1, "flags");
    f.flags.declared = true;
    const int flag_count = static_cast<int>(lua_objlen(lua_, -1));
    for (int j = 1; j <= flag_count; ++j) {
      lua_rawgeti(lua_, -1, j);
      const std::string flag = lua_tostring(lua_, -1);
      lua_pop(lua_, 1);
      f.flag_names.push_back(flag);
      if (flag == "no-writes") f.flags.no_writes = true;
      if (flag == "allow-oom") f.flags.allow_oom = true;
      if (flag == "allow-stale") f.flags.allow_stale = true;
      if (flag == "no-cluster") f.flags.no_cluster = true;
      if (flag == "allow-cross-slot-keys") f.flags.allow_cross_slot_keys = true;
    }
    lua_pop(lua_, 2);
  }
  lua_pop(lua_, 1);
  if (functions->empty()) return "ERR No functions registered";
  return "";
}

void LuaEngine::LoadFunctions(const std::vector<Library>& libraries, uint64_t generation) {
  lua_newtable(lua_);  // name -> callback
  for (const Library& library : libraries) {
    std::string name;
    size_t code_start = 0;
    if (!ParseLibraryShebang(library.code, &name, &code_start).empty()) continue;
    const std::string_view code = std::string_view(library.code).substr(code_start);
    // Checked when loaded; a library that no longer loads (it cannot) registers nothing here.
    if (!RunLoader(lua_, code).empty()) continue;
    const int n = static_cast<int>(lua_objlen(lua_, -1));
    for (int i = 1; i <= n; ++i) {
      lua_rawgeti(lua_, -1, i);
      lua_getfield(lua_, -1, "name");
      FoldCase(lua_);
      lua_getfield(lua_, -2, "callback");
      lua_settable(lua_, -5);
      lua_pop(lua_, 1);
    }
    lua_pop(lua_, 1);
  }
  lua_setfield(lua_, LUA_REGISTRYINDEX, kFunctionsKey);
  function_generation_ = generation;
}

void LuaEngine::CallFunction(std::string_view name, std::span<const std::string_view> keys,
                             std::span<const std::string_view> argv, CommandCaller& caller,
                             resp::Writer& out) {
  lua_getfield(lua_, LUA_REGISTRYINDEX, kFunctionsKey);
  lua_pushlstring(lua_, name.data(), name.size());
  FoldCase(lua_);
  lua_gettable(lua_, -2);
  lua_remove(lua_, -2);
  for (std::span<const std::string_view> values : {keys, argv}) {
    lua_createtable(lua_, static_cast<int>(values.size()), 0);
    for (size_t i = 0; i < values.size(); ++i) {
      lua_pushlstring(lua_, values[i].data(), values[i].size());
      lua_rawseti(lua_, -2, static_cast<int>(i + 1));
    }
  }
  Invoke(name, 2, caller, out);
}

}  // namespace ordis::server::scripting
