#include "server/scripting/lua_reply.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <lua.hpp>
#include <string>

namespace ordis::server::scripting {
namespace {

// The line at the front of *bytes (after its type byte), without CRLF; advances past it.
std::string_view TakeLine(std::string_view* bytes) {
  const size_t end = bytes->find("\r\n");
  std::string_view line = bytes->substr(1, end - 1);
  bytes->remove_prefix(end + 2);
  return line;
}

int64_t ToInt(std::string_view s) {
  int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

// {name = value on the stack's top}
void WrapInTable(lua_State* lua, const char* name) {
  lua_newtable(lua);
  lua_pushstring(lua, name);
  lua_pushvalue(lua, -3);
  lua_settable(lua, -3);
  lua_remove(lua, -2);
}

void PushString(lua_State* lua, std::string_view s) { lua_pushlstring(lua, s.data(), s.size()); }

}  // namespace

void PushReply(lua_State* lua, std::string_view* bytes) {
  lua_checkstack(lua, 8);
  const char type = bytes->front();
  const std::string_view line = TakeLine(bytes);
  switch (type) {
    case '+':
      PushString(lua, line);
      WrapInTable(lua, "ok");
      return;
    case '-':
      PushString(lua, line);
      WrapInTable(lua, "err");
      return;
    case ':':
      lua_pushnumber(lua, static_cast<lua_Number>(ToInt(line)));
      return;
    case '$':
    case '=': {
      const int64_t len = ToInt(line);
      if (len < 0) {
        lua_pushboolean(lua, 0);
        return;
      }
      std::string_view text = bytes->substr(0, static_cast<size_t>(len));
      bytes->remove_prefix(static_cast<size_t>(len) + 2);
      if (type == '$') {
        PushString(lua, text);
        return;
      }
      // Verbatim: "fmt:text".
      lua_newtable(lua);
      lua_pushstring(lua, "format");
      PushString(lua, text.substr(0, 3));
      lua_settable(lua, -3);
      lua_pushstring(lua, "string");
      PushString(lua, text.size() > 4 ? text.substr(4) : std::string_view());
      lua_settable(lua, -3);
      WrapInTable(lua, "verbatim_string");
      return;
    }
    case '*':
    case '>': {
      const int64_t n = ToInt(line);
      if (n < 0) {
        lua_pushboolean(lua, 0);
        return;
      }
      lua_createtable(lua, static_cast<int>(n), 0);
      for (int64_t i = 1; i <= n; ++i) {
        PushReply(lua, bytes);
        lua_rawseti(lua, -2, static_cast<int>(i));
      }
      return;
    }
    case '%':
    case '~': {
      const int64_t n = ToInt(line);
      lua_createtable(lua, 0, static_cast<int>(n));
      for (int64_t i = 0; i < n; ++i) {
        PushReply(lua, bytes);
        if (type == '%') {
          PushReply(lua, bytes);
        } else {
          lua_pushboolean(lua, 1);
        }
        lua_settable(lua, -3);
      }
      WrapInTable(lua, type == '%' ? "map" : "set");
      return;
    }
    case '_':
      lua_pushnil(lua);
      return;
    case '#':
      lua_pushboolean(lua, line == "t");
      return;
    case ',': {
      const std::string text(line);
      lua_pushnumber(lua, std::strtod(text.c_str(), nullptr));  // "inf", "-inf", "nan" too
      WrapInTable(lua, "double");
      return;
    }
    case '(':
      PushString(lua, line);
      WrapInTable(lua, "big_number");
      return;
    default:
      lua_pushnil(lua);
      return;
  }
}

namespace {

// The string field `name` of the table on the top of the stack; false if it is not a string.
bool StringField(lua_State* lua, const char* name, std::string* value) {
  lua_pushstring(lua, name);
  lua_rawget(lua, -2);
  const bool found = lua_type(lua, -1) == LUA_TSTRING;
  if (found) {
    size_t len = 0;
    const char* s = lua_tolstring(lua, -1, &len);
    value->assign(s, len);
  }
  lua_pop(lua, 1);
  return found;
}

// Pushes field `name` of the table on the top of the stack; true if it has type `type`, else pops
// it.
bool PushField(lua_State* lua, const char* name, int type) {
  lua_pushstring(lua, name);
  lua_rawget(lua, -2);
  if (lua_type(lua, -1) == type) return true;
  lua_pop(lua, 1);
  return false;
}

std::string WithoutNewlines(std::string s) {
  for (char& c : s) {
    if (c == '\r' || c == '\n') c = ' ';
  }
  return s;
}

}  // namespace

void WriteLuaValue(lua_State* lua, int script_protocol, resp::Writer& out) {
  // A table nested too deep (or containing itself) ends where Lua's stack does, as in Redis.
  if (!lua_checkstack(lua, 4)) {
    out.Error("ERR reached lua stack limit");
    return;
  }
  switch (lua_type(lua, -1)) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(lua, -1, &len);
      out.Bulk(std::string_view(s, len));
      break;
    }
    case LUA_TBOOLEAN: {
      const bool b = lua_toboolean(lua, -1) != 0;
      if (script_protocol == 2) {
        b ? out.Integer(1) : out.NullBulk();
      } else {
        out.Bool(b);
      }
      break;
    }
    case LUA_TNUMBER:
      out.Integer(static_cast<int64_t>(lua_tonumber(lua, -1)));
      break;
    case LUA_TTABLE: {
      std::string text;
      if (StringField(lua, "err", &text)) {
        out.Error(text);
        break;
      }
      if (StringField(lua, "ok", &text)) {
        out.SimpleString(WithoutNewlines(std::move(text)));
        break;
      }
      if (PushField(lua, "double", LUA_TNUMBER)) {
        out.Double(lua_tonumber(lua, -1));
        lua_pop(lua, 1);
        break;
      }
      if (StringField(lua, "big_number", &text)) {
        out.BigNumber(WithoutNewlines(std::move(text)));
        break;
      }
      if (PushField(lua, "map", LUA_TTABLE)) {
        int64_t n = 0;
        for (lua_pushnil(lua); lua_next(lua, -2) != 0; lua_pop(lua, 1)) ++n;
        out.MapHeader(n);
        for (lua_pushnil(lua); lua_next(lua, -2) != 0; lua_pop(lua, 1)) {
          lua_pushvalue(lua, -2);
          WriteLuaValue(lua, script_protocol, out);  // the key
          lua_pop(lua, 1);
          WriteLuaValue(lua, script_protocol, out);  // the value
        }
        lua_pop(lua, 1);
        break;
      }
      if (PushField(lua, "set", LUA_TTABLE)) {
        int64_t n = 0;
        for (lua_pushnil(lua); lua_next(lua, -2) != 0; lua_pop(lua, 1)) ++n;
        out.SetHeader(n);
        for (lua_pushnil(lua); lua_next(lua, -2) != 0; lua_pop(lua, 1)) {
          lua_pushvalue(lua, -2);
          WriteLuaValue(lua, script_protocol, out);
          lua_pop(lua, 1);
        }
        lua_pop(lua, 1);
        break;
      }
      if (PushField(lua, "verbatim_string", LUA_TTABLE)) {
        std::string format, string;
        if (StringField(lua, "format", &format) && StringField(lua, "string", &string) &&
            format.size() == 3) {
          out.Verbatim(format, string);
        } else {
          out.NullBulk();
        }
        lua_pop(lua, 1);
        break;
      }
      // An array: its elements up to the first nil.
      int64_t n = 0;
      while (true) {
        lua_rawgeti(lua, -1, static_cast<int>(n + 1));
        const bool end = lua_isnil(lua, -1);
        lua_pop(lua, 1);
        if (end) break;
        ++n;
      }
      out.ArrayHeader(n);
      for (int64_t i = 1; i <= n; ++i) {
        lua_rawgeti(lua, -1, static_cast<int>(i));
        WriteLuaValue(lua, script_protocol, out);
        lua_pop(lua, 1);
      }
      break;
    }
    default:
      out.NullBulk();
      break;
  }
}

}  // namespace ordis::server::scripting
