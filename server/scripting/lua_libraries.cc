#include "server/scripting/lua_libraries.h"

#include <bit>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <lua.hpp>
#include <string>
#include <string_view>
#include <utility>

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
// s) over lua-MessagePack, which packs and unpacks one value at a time. Numbers are packed by
// PackNumber, in cmsgpack's encodings.
constexpr std::string_view kCmsgpackGlue = R"lua(
local mp, pack_number = ...
local select, concat, unpack, error, type = select, table.concat, unpack, error, type
local pcall, tostring, find = pcall, tostring, string.find
mp.set_string('string')
mp.set_array('without_hole')
mp.packers['number'] = function(buffer, n) buffer[#buffer + 1] = pack_number(n) end
-- lua-MessagePack's errors, worded as cmsgpack words them.
local function data_error(e)
  if find(tostring(e), 'missing bytes', 1, true) then return 'Missing bytes in input.' end
  return 'Bad data format in input.'
end
local cmsgpack = {}
function cmsgpack.pack(...)
  local n = select('#', ...)
  if n == 0 then error("bad argument #0 to 'pack' (MessagePack pack needs input.)", 0) end
  local parts = {}
  for i = 1, n do parts[i] = mp.pack((select(i, ...))) end
  return concat(parts)
end
-- Up to limit values (0: all) from byte offset (0-based) of s: the offset after them (-1 at the
-- end of s), then the values.
local function unpack_full(s, limit, offset, name)
  if type(s) ~= 'string' then
    error("bad argument #1 to '" .. name .. "' (string expected, got " ..
          (s == nil and 'no value' or type(s)) .. ")", 0)
  end
  local cursor = {s = s, i = offset + 1, j = #s, underflow = function() error('missing bytes') end}
  local values, n = {}, 0
  while cursor.i <= cursor.j and (limit == 0 or n < limit) do
    local ok, v = pcall(mp.unpack_cursor, cursor)
    if not ok then error(data_error(v), 0) end
    n = n + 1
    values[n] = v
  end
  return cursor.i <= cursor.j and cursor.i - 1 or -1, values, n
end
-- limit <= 0 decodes everything and returns only the values, as cmsgpack does.
local function unpack_limited(s, limit, offset, name)
  local next_offset, values, n = unpack_full(s, limit, offset, name)
  if limit <= 0 then return unpack(values, 1, n) end
  return next_offset, unpack(values, 1, n)
end
function cmsgpack.unpack(s)
  local _, values, n = unpack_full(s, 0, 0, 'unpack')
  return unpack(values, 1, n)
end
function cmsgpack.unpack_one(s, offset)
  return unpack_limited(s, 1, offset or 0, 'unpack_one')
end
function cmsgpack.unpack_limit(s, limit, offset)
  return unpack_limited(s, limit or 0, offset or 0, 'unpack_limit')
end
return cmsgpack
)lua";

// pack_number(n): n in cmsgpack's encoding. A whole number in int64's range is an integer in
// the smallest of msgpack's forms (unsigned ones for n >= 0, as cmsgpack picks them), so 2^53 to
// 2^63 - 1 are uint64 and -2^63 int64; any other number is a float32 when one holds it exactly
// (2^63, 2^64, 1.5, the infinities), else a float64.
int PackNumber(lua_State* lua) {
  const double n = luaL_checknumber(lua, 1);
  unsigned char out[9];
  size_t size = 0;
  auto put = [&](unsigned char tag, uint64_t bits, int bytes) {
    out[0] = tag;
    for (int i = 0; i < bytes; ++i) {
      out[1 + i] = static_cast<unsigned char>(bits >> (8 * (bytes - 1 - i)));  // big-endian
    }
    size = 1 + bytes;
  };
  if (n >= -0x1p63 && n < 0x1p63 && n == std::trunc(n)) {
    const int64_t i = static_cast<int64_t>(n);
    const uint64_t u = static_cast<uint64_t>(i);
    if (i >= 0) {
      if (i <= 0x7f) {
        out[0] = static_cast<unsigned char>(i);
        size = 1;
      } else if (i <= 0xff) {
        put(0xcc, u, 1);
      } else if (i <= 0xffff) {
        put(0xcd, u, 2);
      } else if (i <= 0xffffffffll) {
        put(0xce, u, 4);
      } else {
        put(0xcf, u, 8);
      }
    } else if (i >= -32) {
      out[0] = static_cast<unsigned char>(u);  // negative fixint
      size = 1;
    } else if (i >= INT8_MIN) {
      put(0xd0, u, 1);
    } else if (i >= INT16_MIN) {
      put(0xd1, u, 2);
    } else if (i >= INT32_MIN) {
      put(0xd2, u, 4);
    } else {
      put(0xd3, u, 8);
    }
  } else if (std::isinf(n) || (std::fabs(n) <= FLT_MAX && static_cast<float>(n) == n)) {
    // (float)n is undefined past float's range, where only the infinities are exact.
    put(0xca, std::bit_cast<uint32_t>(static_cast<float>(n)), 4);
  } else {
    put(0xcb, std::bit_cast<uint64_t>(n), 8);
  }
  lua_pushlstring(lua, reinterpret_cast<const char*>(out), size);
  return 1;
}

constexpr const char* kCmsgpackLoaderKey = "ordis.cmsgpack_loader";
constexpr const char* kCmsgpackKey = "ordis.cmsgpack";

// Returns a function that loads lua-MessagePack and the glue over it, given their sources: what
// they use is captured now, while the sandbox still has loadstring and setfenv.
constexpr std::string_view kCmsgpackLoader = R"lua(
local string, table, math, globals = ...
local loadstring, setfenv, setmetatable, assert, error = loadstring, setfenv, setmetatable, assert, error
return function(source, glue, pack_number)
  -- lua-MessagePack takes its dependencies through require; give it the ones it asks for.
  local loaded = {string = string, table = table, math = math}
  local env = setmetatable({require = function(name)
    local m = loaded[name]
    if m == nil then error('module ' .. name .. ' not found') end
    return m
  end}, {__index = globals})
  local chunk = assert(loadstring(source, '=MessagePack'))
  setfenv(chunk, env)
  local wrap = assert(loadstring(glue, '=cmsgpack'))
  setfenv(wrap, globals)
  return wrap(chunk(), pack_number)
end
)lua";

// cmsgpack.<upvalue 1>(...): the library is loaded on first use, so that the Lua heap of scripts
// that never pack (most) stays small: lua-MessagePack compiled is 56 KB of the 104 live, and the GC
// step forced every 50 scripts (LUA_GCSTEP, as Redis) walks what is live. A C function stays on the
// stack when a script tail-calls it (`return cmsgpack.pack(x)`), so its errors can name the
// script's line as C libraries' errors do: a string error gets the caller's position prefixed.
int CallCmsgpack(lua_State* lua) {
  lua_getfield(lua, LUA_REGISTRYINDEX, kCmsgpackKey);
  if (lua_isnil(lua, -1)) {
    lua_pop(lua, 1);
    lua_getfield(lua, LUA_REGISTRYINDEX, kCmsgpackLoaderKey);
    lua_pushlstring(lua, kMessagePackSource.data(), kMessagePackSource.size());
    lua_pushlstring(lua, kCmsgpackGlue.data(), kCmsgpackGlue.size());
    lua_pushcfunction(lua, PackNumber);
    lua_call(lua, 3, 1);  // our own code: an error here is a bug, raised as any other
    lua_pushvalue(lua, -1);
    lua_setfield(lua, LUA_REGISTRYINDEX, kCmsgpackKey);
  }
  lua_pushvalue(lua, lua_upvalueindex(1));
  lua_gettable(lua, -2);
  lua_replace(lua, -2);
  lua_insert(lua, 1);
  if (lua_pcall(lua, lua_gettop(lua) - 1, LUA_MULTRET, 0) != 0) {
    if (lua_type(lua, -1) == LUA_TSTRING) {
      luaL_where(lua, 1);
      lua_insert(lua, -2);
      lua_concat(lua, 2);
    }
    return lua_error(lua);
  }
  return lua_gettop(lua);
}

void OpenCmsgpack(lua_State* lua) {
  lua_getglobal(lua, "string");
  lua_getglobal(lua, "table");
  lua_getglobal(lua, "math");
  lua_pushvalue(lua, LUA_GLOBALSINDEX);
  RunChunk(lua, kCmsgpackLoader, "=messagepack_loader", 4, 1);
  lua_setfield(lua, LUA_REGISTRYINDEX, kCmsgpackLoaderKey);
  lua_newtable(lua);
  for (const char* name : {"pack", "unpack", "unpack_one", "unpack_limit"}) {
    lua_pushstring(lua, name);
    lua_pushcclosure(lua, CallCmsgpack, 1);
    lua_setfield(lua, -2, name);
  }
  // As cmsgpack describes itself.
  const std::pair<const char*, const char*> kAbout[] = {
      {"_NAME", "cmsgpack"},
      {"_VERSION", "lua-cmsgpack 0.4.0"},
      {"_COPYRIGHT", "Copyright (C) 2012, Salvatore Sanfilippo"},
      {"_DESCRIPTION", "MessagePack C implementation for Lua"},
  };
  for (const auto& [field, text] : kAbout) {
    lua_pushstring(lua, text);
    lua_setfield(lua, -2, field);
  }
  lua_setglobal(lua, "cmsgpack");
}

// lua-bitop's tohex negates its digit count: for -2^31 that overflows and writes past its buffer
// (CVE-2024-31449; Debian's lua-bitop 1.0.2-7 lacks the fix). As Redis's fix: -2^31 becomes
// -(2^31 - 1), before lua-bitop sees it.
void GuardBitToHex(lua_State* lua) {
  constexpr std::string_view kGuard = R"lua(
local bit = ...
local tohex, tobit = bit.tohex, bit.tobit
bit.tohex = function(x, n)
  if n == nil then return tohex(x) end
  if tobit(n) == -2147483648 then n = -2147483647 end
  return tohex(x, n)
end
)lua";
  lua_getglobal(lua, "bit");
  RunChunk(lua, kGuard, "=bit", 1, 0);
}

// math.random and math.randomseed as Redis's: rand48 (the 48-bit linear congruential generator
// of POSIX's lrand48, state in the closures' userdata), so a seeded script draws Redis's numbers.
uint64_t& Rand48State(lua_State* lua) {
  return *static_cast<uint64_t*>(lua_touserdata(lua, lua_upvalueindex(1)));
}

int32_t NextRand48(lua_State* lua) {
  uint64_t& x = Rand48State(lua);
  x = (0x5DEECE66Dull * x + 0xB) & ((uint64_t{1} << 48) - 1);
  return static_cast<int32_t>(x >> 17);
}

int MathRandom(lua_State* lua) {
  constexpr int32_t kMax = INT32_MAX;
  const lua_Number r =
      static_cast<lua_Number>(NextRand48(lua) % kMax) / static_cast<lua_Number>(kMax);
  switch (lua_gettop(lua)) {
    case 0:
      lua_pushnumber(lua, r);
      return 1;
    case 1: {
      const int upper = luaL_checkint(lua, 1);
      luaL_argcheck(lua, 1 <= upper, 1, "interval is empty");
      lua_pushnumber(lua, std::floor(r * upper) + 1);
      return 1;
    }
    case 2: {
      const int lower = luaL_checkint(lua, 1);
      const int upper = luaL_checkint(lua, 2);
      luaL_argcheck(lua, lower <= upper, 2, "interval is empty");
      lua_pushnumber(lua, std::floor(r * (upper - lower + 1)) + lower);
      return 1;
    }
    default:
      return luaL_error(lua, "wrong number of arguments");
  }
}

int MathRandomSeed(lua_State* lua) {
  const uint32_t seed = static_cast<uint32_t>(luaL_checkint(lua, 1));
  Rand48State(lua) = (uint64_t{seed} << 16) | 0x330E;
  return 0;
}

void OpenRand48(lua_State* lua) {
  lua_getglobal(lua, "math");
  auto* state = static_cast<uint64_t*>(lua_newuserdata(lua, sizeof(uint64_t)));
  *state = 0x1234ABCD330Eull;  // rand48's state before any seed
  lua_pushvalue(lua, -1);
  lua_pushcclosure(lua, MathRandom, 1);
  lua_setfield(lua, -3, "random");
  lua_pushcclosure(lua, MathRandomSeed, 1);
  lua_setfield(lua, -2, "randomseed");
  lua_pop(lua, 1);
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
for _, name in pairs({'string', 'table', 'math', 'coroutine', 'cjson', 'bit', 'cmsgpack', 'struct', 'redis'}) do
  if type(real[name]) == 'table' then real[name] = readonly(real[name]) end
end
real.rawset = safe_rawset
-- As in Redis 7.0, scripts have no getfenv or setfenv (they would reach the real globals).
real.getfenv, real.setfenv = nil, nil
local globals
local string_metatable = getmetatable('')
string_metatable.__index = real.string
string_metatable.__metatable = readonly(string_metatable)
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
  GuardBitToHex(lua);
  OpenStruct(lua);
  OpenRand48(lua);
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

void PushReadonlySet(lua_State* lua) { lua_getfield(lua, LUA_REGISTRYINDEX, kReadonlyKey); }

}  // namespace ordis::server::scripting
