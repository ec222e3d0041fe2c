// The `struct` library of Redis's scripts (Roberto Ierusalimschy's lstruct, as Redis bundles it):
// struct.pack(fmt, ...), struct.unpack(fmt, s [, pos]) and struct.size(fmt), with its format
// language and error texts. Written here because Debian packages no Lua struct library.
//
// Format: '<' little-endian, '>' big-endian, '=' native, '![n]' alignment to n (default: the
// machine's largest); 'b'/'B' char, 'h'/'H' short, 'l'/'L' long, 'T' size_t, 'i[n]'/'I[n]' an
// n-byte integer (default int), lower case signed; 'f' float, 'd' double; 'x' a zero byte;
// 'c[n]' n bytes (c0: the whole string when packing, the length unpacked just before when
// unpacking); 's' a zero-terminated string; ' ' ignored.
//
// Every function here may leave by longjmp (luaL_error): only trivially destructible locals.
#include <bit>
#include <cctype>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <lua.hpp>

#include "server/scripting/lua_libraries.h"

namespace ordis::server::scripting {
namespace {

constexpr int kMaxIntSize = 32;
constexpr int kLittle = 0;
constexpr int kBig = 1;
constexpr int kNative = std::endian::native == std::endian::little ? kLittle : kBig;
constexpr int kMaxAlign = alignof(std::max_align_t) > 8 ? 8 : alignof(std::max_align_t);

struct Options {
  int endian = kNative;
  int align = 1;
};

int ReadCount(lua_State* lua, const char** fmt, int otherwise) {
  if (!std::isdigit(static_cast<unsigned char>(**fmt))) return otherwise;
  int count = 0;
  do {
    const int digit = *((*fmt)++) - '0';
    if (count > (INT_MAX - digit) / 10) luaL_error(lua, "integral size overflow");
    count = count * 10 + digit;
  } while (std::isdigit(static_cast<unsigned char>(**fmt)));
  return count;
}

// The size of option opt (0 for those without one: controls, 's').
size_t OptionSize(lua_State* lua, char opt, const char** fmt) {
  switch (opt) {
    case 'B':
    case 'b':
      return sizeof(char);
    case 'H':
    case 'h':
      return sizeof(short);
    case 'L':
    case 'l':
      return sizeof(long);
    case 'T':
      return sizeof(size_t);
    case 'f':
      return sizeof(float);
    case 'd':
      return sizeof(double);
    case 'x':
      return 1;
    case 'c':
      return static_cast<size_t>(ReadCount(lua, fmt, 1));
    case 'i':
    case 'I': {
      const int size = ReadCount(lua, fmt, sizeof(int));
      if (size > kMaxIntSize) {
        luaL_error(lua, "integral size %d is larger than limit of %d", size, kMaxIntSize);
      }
      return static_cast<size_t>(size);
    }
    default:
      return 0;
  }
}

// Padding before an item of `size` at offset `at`.
size_t Padding(size_t at, const Options& options, char opt, size_t size) {
  if (size == 0 || opt == 'c') return 0;
  if (size > static_cast<size_t>(options.align)) size = static_cast<size_t>(options.align);
  return (size - (at & (size - 1))) & (size - 1);
}

void Control(lua_State* lua, char opt, const char** fmt, Options* options) {
  switch (opt) {
    case ' ':
      return;
    case '>':
      options->endian = kBig;
      return;
    case '<':
      options->endian = kLittle;
      return;
    case '=':
      options->endian = kNative;
      return;
    case '!': {
      const int align = ReadCount(lua, fmt, kMaxAlign);
      if (align <= 0 || (align & (align - 1)) != 0) {
        luaL_error(lua, "alignment %d is not a power of 2", align);
      }
      options->align = align;
      return;
    }
    default:
      luaL_argerror(lua, 1, lua_pushfstring(lua, "invalid format option '%c'", opt));
  }
}

// Bytes in the byte order asked for (the machine's order in memory).
void Reorder(char* bytes, size_t size, int endian) {
  if (endian == kNative) return;
  for (size_t i = 0, j = size - 1; i < j; ++i, --j) {
    const char t = bytes[i];
    bytes[i] = bytes[j];
    bytes[j] = t;
  }
}

void PackInteger(lua_State* lua, luaL_Buffer* out, int arg, int endian, size_t size) {
  const lua_Number n = luaL_checknumber(lua, arg);
  uint64_t value =
      n < 0 ? static_cast<uint64_t>(static_cast<int64_t>(n)) : static_cast<uint64_t>(n);
  char bytes[kMaxIntSize];
  // Past 8 bytes the value is extended with zeros (lstruct's rule, even for negatives).
  for (size_t i = 0; i < size; ++i) {
    bytes[endian == kLittle ? i : size - 1 - i] = static_cast<char>(value & 0xff);
    value = i < sizeof(uint64_t) - 1 ? value >> 8 : 0;
  }
  luaL_addlstring(out, bytes, size);
}

// A float or double in the byte order asked for.
template <typename T>
void PackFloat(lua_State* lua, luaL_Buffer* out, int arg, int endian) {
  const T value = static_cast<T>(luaL_checknumber(lua, arg));
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  Reorder(bytes, sizeof(T), endian);
  luaL_addlstring(out, bytes, sizeof(T));
}

template <typename T>
lua_Number UnpackFloat(const char* data, int endian) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, data, sizeof(T));
  Reorder(bytes, sizeof(T), endian);
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

int Pack(lua_State* lua) {
  const char* fmt = luaL_checkstring(lua, 1);
  Options options;
  int arg = 2;
  size_t total = 0;
  lua_pushnil(lua);  // the buffer's stack use starts above the arguments
  luaL_Buffer out;
  luaL_buffinit(lua, &out);
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = OptionSize(lua, opt, &fmt);
    size_t padding = Padding(total, options, opt, size);
    total += padding;
    while (padding-- > 0) luaL_addchar(&out, '\0');
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        PackInteger(lua, &out, arg++, options.endian, size);
        break;
      case 'x':
        luaL_addchar(&out, '\0');
        break;
      case 'f':
        PackFloat<float>(lua, &out, arg++, options.endian);
        break;
      case 'd':
        PackFloat<double>(lua, &out, arg++, options.endian);
        break;
      case 'c':
      case 's': {
        size_t len = 0;
        const char* s = luaL_checklstring(lua, arg++, &len);
        if (size == 0) size = len;
        // lstruct names the argument after the string (its counter moved on): Redis's text.
        luaL_argcheck(lua, len >= size, arg, "string too short");
        luaL_addlstring(&out, s, size);
        if (opt == 's') {
          luaL_addchar(&out, '\0');
          ++size;
        }
        break;
      }
      default:
        Control(lua, opt, &fmt, &options);
    }
    total += size;
  }
  luaL_pushresult(&out);
  return 1;
}

lua_Number UnpackInteger(const char* bytes, int endian, bool is_signed, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i) {
    value = (value << 8) | static_cast<unsigned char>(bytes[endian == kBig ? i : size - 1 - i]);
  }
  if (!is_signed || size == 0 || size > sizeof(uint64_t)) return static_cast<lua_Number>(value);
  const uint64_t sign = ~uint64_t{0} << (size * 8 - 1);
  if (value & sign) value |= sign;
  return static_cast<lua_Number>(static_cast<int64_t>(value));
}

int Unpack(lua_State* lua) {
  const char* fmt = luaL_checkstring(lua, 1);
  size_t len = 0;
  const char* data = luaL_checklstring(lua, 2, &len);
  const lua_Integer start = luaL_optinteger(lua, 3, 1);
  luaL_argcheck(lua, start > 0, 3, "offset must be 1 or greater");
  size_t pos = static_cast<size_t>(start) - 1;
  int results = 0;
  Options options;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    size_t size = OptionSize(lua, opt, &fmt);
    pos += Padding(pos, options, opt, size);
    luaL_argcheck(lua, size <= len && pos <= len - size, 2, "data string too short");
    luaL_checkstack(lua, 2, "too many results");
    switch (opt) {
      case 'b':
      case 'B':
      case 'h':
      case 'H':
      case 'l':
      case 'L':
      case 'T':
      case 'i':
      case 'I':
        lua_pushnumber(lua, UnpackInteger(data + pos, options.endian,
                                          std::islower(static_cast<unsigned char>(opt)), size));
        ++results;
        break;
      case 'x':
        break;
      case 'f':
        lua_pushnumber(lua, UnpackFloat<float>(data + pos, options.endian));
        ++results;
        break;
      case 'd':
        lua_pushnumber(lua, UnpackFloat<double>(data + pos, options.endian));
        ++results;
        break;
      case 'c': {
        if (size == 0) {
          if (results == 0 || !lua_isnumber(lua, -1)) {
            luaL_error(lua, "format 'c0' needs a previous size");
          }
          size = static_cast<size_t>(lua_tonumber(lua, -1));
          lua_pop(lua, 1);
          --results;
          luaL_argcheck(lua, size <= len && pos <= len - size, 2, "data string too short");
        }
        lua_pushlstring(lua, data + pos, size);
        ++results;
        break;
      }
      case 's': {
        const char* end = static_cast<const char*>(std::memchr(data + pos, '\0', len - pos));
        if (end == nullptr) luaL_error(lua, "unfinished string in data");
        size = static_cast<size_t>(end - (data + pos)) + 1;
        lua_pushlstring(lua, data + pos, size - 1);
        ++results;
        break;
      }
      default:
        Control(lua, opt, &fmt, &options);
    }
    pos += size;
  }
  lua_pushinteger(lua, static_cast<lua_Integer>(pos) + 1);  // where to go on from
  return results + 1;
}

int Size(lua_State* lua) {
  const char* fmt = luaL_checkstring(lua, 1);
  Options options;
  size_t pos = 0;
  while (*fmt != '\0') {
    const char opt = *fmt++;
    const size_t size = OptionSize(lua, opt, &fmt);
    pos += Padding(pos, options, opt, size);
    if (opt == 's') {
      luaL_argerror(lua, 1, "option 's' has no fixed size");
    } else if (opt == 'c' && size == 0) {
      luaL_argerror(lua, 1, "option 'c0' has no fixed size");
    }
    if (!std::isalnum(static_cast<unsigned char>(opt))) Control(lua, opt, &fmt, &options);
    pos += size;
  }
  lua_pushinteger(lua, static_cast<lua_Integer>(pos));
  return 1;
}

}  // namespace

void OpenStruct(lua_State* lua) {
  static const luaL_Reg kFunctions[] = {
      {"pack", Pack}, {"unpack", Unpack}, {"size", Size}, {nullptr, nullptr}};
  lua_newtable(lua);
  luaL_register(lua, nullptr, kFunctions);
  lua_setglobal(lua, "struct");
}

}  // namespace ordis::server::scripting
