// What names a script and what its first line may declare: the SHA-1 of its body, and a shebang
// ("#!lua flags=no-writes,allow-oom") as Redis 7.0 reads it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ordis::server::scripting {

// Lowercase hex SHA-1 of bytes (redis.sha1hex, EVAL's script names).
std::string Sha1Hex(std::string_view bytes);

// A 40-character SHA-1 in lowercase, as EVALSHA looks it up; "" when sha is not 40 characters.
std::string NormalizeSha(std::string_view sha);

struct ScriptFlags {
  bool declared = false;  // a shebang was given: the flags below are what it said
  bool no_writes = false;
  bool allow_oom = false;
  bool allow_stale = false;
  bool no_cluster = false;
  bool allow_cross_slot_keys = false;
};

// Reads an EVAL body's shebang. Returns "" and sets *flags and *code_start (where the Lua code
// begins: at the shebang line's newline, so that line numbers stay the body's) or returns Redis's
// error reply (without '-') for a bad shebang. A body without one gives the undeclared flags.
std::string ParseShebang(std::string_view body, ScriptFlags* flags, size_t* code_start);

}  // namespace ordis::server::scripting
