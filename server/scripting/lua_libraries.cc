#include "server/scripting/lua_libraries.h"

#include <lua.hpp>
#include <string>
#include <string_view>

#include "base/fatal.h"

extern "C" {
#include <lua-bitop.h>
#include <lua-cjson.h>
}

namespace ordis::server::scripting {

extern const std::string_view kMessagePackSource;  // generated from lua-MessagePack

namespace {

constexpr const char* kRealGlobalsKey = "ordis.globals";
constexpr const char* kReadonlyKey = "ordis.readonly";  // weak set of the read-only proxies

void OpenLib(lua_State* lua, lua_CFunction open, const char* name) {
  lua_pushcfunction(lua, open);
  lua_pushstring(lua, name);
  lua_call(lua, 1, 0);
}

// Runs a chunk of our own Lua (library glue), which must not fail.
void RunChunk(lua_State* lua, std::string_view code, const char* name, int nargs, int nresults) {
  if (luaL_loadbuffer(lua, code.data(), code.size(), name) != 0) {
    Fatal(std::string("Lua: loading ") + name + ": " + lua_tostring(lua, -1));
  }
  if (nargs > 0) lua_insert(lua, -(nargs + 1));
  if (lua_pcall(lua, nargs, nresults, 0) != 0) {
    Fatal(std::string("Lua: running ") + name + ": " + lua_tostring(lua, -1));
  }
}

// cmsgpack's API (pack(...) of any number of values into one string; unpack(s) of every value in
// s) over lua-MessagePack, which packs and unpacks one value at a time. Numbers pack as
// lua-MessagePack packs them: integers in the smallest encoding, like cmsgpack, and other numbers
// as 64-bit floats (cmsgpack uses 32-bit ones when exact: both decode to the same number).
constexpr std::string_view kCmsgpackGlue = R"lua(
local mp = ...
local select, concat, unpack = select, table.concat, unpack
mp.set_string('string')
mp.set_number('double')
mp.set_array('without_hole')
local cmsgpack = {}
function cmsgpack.pack(...)
  local n = select('#', ...)
  if n == 0 then error('MessagePack pack needs input.', 2) end
  local parts = {}
  for i = 1, n do parts[i] = mp.pack((select(i, ...))) end
  return concat(parts)
end
function cmsgpack.unpack(s)
  local values, n = {}, 0
  for _, v in mp.unpacker(s) do
    n = n + 1
    values[n] = v
  end
  return unpack(values, 1, n)
end
return cmsgpack
)lua";

void OpenCmsgpack(lua_State* lua) {
  // lua-MessagePack takes its dependencies through require; give it the ones it asks for.
  constexpr std::string_view kLoader = R"lua(
local source, string, table, math = ...
local loaded = {string = string, table = table, math = math}
local env = setmetatable({require = function(name)
  local m = loaded[name]
  if m == nil then error('module ' .. name .. ' not found') end
  return m
end}, {__index = _G})
local chunk = assert(loadstring(source, '=MessagePack'))
setfenv(chunk, env)
return chunk()
)lua";
  lua_pushlstring(lua, kMessagePackSource.data(), kMessagePackSource.size());
  lua_getglobal(lua, "string");
  lua_getglobal(lua, "table");
  lua_getglobal(lua, "math");
  RunChunk(lua, kLoader, "=messagepack_loader", 4, 1);
  RunChunk(lua, kCmsgpackGlue, "=cmsgpack", 1, 1);
  lua_setglobal(lua, "cmsgpack");
}

// rawset, refusing the read-only proxies (Redis's read-only tables refuse it too).
int SafeRawset(lua_State* lua) {
  luaL_checktype(lua, 1, LUA_TTABLE);
  luaL_checkany(lua, 2);
  luaL_checkany(lua, 3);
  lua_getfield(lua, LUA_REGISTRYINDEX, kReadonlyKey);
  lua_pushvalue(lua, 1);
  lua_rawget(lua, -2);
  const bool readonly = lua_toboolean(lua, -1);
  lua_pop(lua, 2);
  if (readonly) {
    // Without a position, as Redis's read-only tables raise it.
    lua_pushstring(lua, "Attempt to modify a readonly table");
    return lua_error(lua);
  }
  lua_settop(lua, 3);
  lua_rawset(lua, 1);
  return 1;
}

constexpr std::string_view kProtect = R"lua(
local real, readonly_set, safe_rawset = ...
local error, tostring, setmetatable, pairs, type = error, tostring, setmetatable, pairs, type
local function refuse() error('Attempt to modify a readonly table', 2) end
local function readonly(t)
  local proxy = setmetatable({}, {__index = t, __newindex = refuse, __metatable = {}})
  readonly_set[proxy] = true
  return proxy
end
for _, name in pairs({'string', 'table', 'math', 'coroutine', 'cjson', 'bit', 'cmsgpack', 'redis'}) do
  if type(real[name]) == 'table' then real[name] = readonly(real[name]) end
end
real.rawset = safe_rawset
-- The real globals never reach a script: not as a function's environment, not as the thread's.
local getfenv, setfenv = getfenv, setfenv
local globals
real.getfenv = function(f)
  if f == nil then f = 1 end
  local env = getfenv(type(f) == 'number' and f > 0 and f + 1 or f)
  if env == real then return globals end
  return env
end
real.setfenv = function(f, env)
  if f == 0 then error('Attempt to modify a readonly table', 2) end
  return setfenv(type(f) == 'number' and f + 1 or f, env)
end
local string_metatable = getmetatable('')
string_metatable.__index = real.string
string_metatable.__metatable = {}
globals = setmetatable({}, {
  __index = function(_, name)
    local v = real[name]
    if v == nil then
      error("Script attempted to access nonexistent global variable '" .. tostring(name) .. "'", 2)
    end
    return v
  end,
  __newindex = refuse,
  __metatable = {},
})
readonly_set[globals] = true
real._G = globals
return globals
)lua";

}  // namespace

void OpenLibraries(lua_State* lua) {
  OpenLib(lua, luaopen_base, "");
  OpenLib(lua, luaopen_table, LUA_TABLIBNAME);
  OpenLib(lua, luaopen_string, LUA_STRLIBNAME);
  OpenLib(lua, luaopen_math, LUA_MATHLIBNAME);
  // luaopen_cjson returns its table without setting a global; luaopen_bit sets "bit" as well.
  lua_pushcfunction(lua, luaopen_cjson);
  lua_call(lua, 0, 1);
  lua_setglobal(lua, "cjson");
  lua_pushcfunction(lua, luaopen_bit);
  lua_call(lua, 0, 1);
  lua_setglobal(lua, "bit");
  OpenCmsgpack(lua);
  // Not in Redis's sandbox: files, modules, printing to the server's stdout.
  for (const char* name : {"loadfile", "dofile", "print", "require", "module", "newproxy"}) {
    lua_pushnil(lua);
    lua_setglobal(lua, name);
  }
}

void ProtectGlobals(lua_State* lua) {
  lua_pushvalue(lua, LUA_GLOBALSINDEX);
  lua_setfield(lua, LUA_REGISTRYINDEX, kRealGlobalsKey);
  lua_newtable(lua);  // the set of read-only proxies, weak-keyed
  lua_newtable(lua);
  lua_pushstring(lua, "k");
  lua_setfield(lua, -2, "__mode");
  lua_setmetatable(lua, -2);
  lua_pushvalue(lua, -1);
  lua_setfield(lua, LUA_REGISTRYINDEX, kReadonlyKey);
  lua_pushvalue(lua, LUA_GLOBALSINDEX);
  lua_insert(lua, -2);
  lua_pushcfunction(lua, SafeRawset);
  RunChunk(lua, kProtect, "=protect", 3, 1);
  // What scripts compiled from now on, and the C functions' lookups, see as their globals.
  lua_replace(lua, LUA_GLOBALSINDEX);
}

void PushRealGlobals(lua_State* lua) { lua_getfield(lua, LUA_REGISTRYINDEX, kRealGlobalsKey); }

}  // namespace ordis::server::scripting
