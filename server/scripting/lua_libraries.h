// The libraries a script sees and the sandbox around them, as Redis 7.0 sets up its Lua state.
#pragma once

struct lua_State;

namespace ordis::server::scripting {

// Opens base, table, string and math, then cjson (lua-cjson), bit (lua-bitop) and cmsgpack (its
// API over lua-MessagePack), as globals; removes what Redis removes (loadfile, dofile, print,
// require, module, newproxy ...).
void OpenLibraries(lua_State* lua);

// Makes the globals and every library table read-only for scripts: the globals become a proxy
// whose writes raise "Attempt to modify a readonly table" and whose reads of a missing name raise
// "Script attempted to access nonexistent global variable"; rawset refuses the proxies. The real
// globals table stays reachable from C (pushed by PushRealGlobals) for KEYS and ARGV.
void ProtectGlobals(lua_State* lua);

// The struct library (lua_struct.cc), as global `struct`.
void OpenStruct(lua_State* lua);
void PushRealGlobals(lua_State* lua);
// Pushes the (weak) set of read-only proxies, which rawset refuses: a table made read-only
// elsewhere joins it.
void PushReadonlySet(lua_State* lua);

}  // namespace ordis::server::scripting
