// Conversions between RESP replies and Lua values, as Redis 7.0 documents them: a command's reply
// becomes a Lua value for redis.call (RESP2: status {ok=}, error {err=}, nil false; RESP3 adds
// nil, booleans, {double=}, {map=}, {set=}, {big_number=}, {verbatim_string=}); a script's
// result becomes the reply (numbers truncated to integers, tables arrays up to their first nil).
#pragma once

#include <string_view>

#include "resp/writer.h"

struct lua_State;

namespace ordis::server::scripting {

// Parses one reply from the front of *bytes (the server's own output, well formed), pushes its
// Lua value, and advances *bytes past it.
void PushReply(lua_State* lua, std::string_view* bytes);

// Writes the Lua value at the top of the stack as a reply, in out's protocol. script_protocol is
// the script's redis.setresp version: under 2 a boolean true is 1 and false is null.
void WriteLuaValue(lua_State* lua, int script_protocol, resp::Writer& out);

}  // namespace ordis::server::scripting
