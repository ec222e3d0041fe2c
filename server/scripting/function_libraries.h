// FUNCTION LOAD's libraries: the server's one registry of library code and the functions each
// registered. Every thread's Lua engine loads them from here (again when the generation moves),
// as it compiles EVAL scripts from the script cache.
//
// Thread safety: all methods are thread safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/scripting/script.h"

namespace ordis::server::scripting {

struct FunctionInfo {
  std::string name;
  std::optional<std::string> description;
  std::vector<std::string> flag_names;  // as given, for FUNCTION LIST
  ScriptFlags flags;
};

struct Library {
  std::string name;
  std::string code;  // the whole FUNCTION LOAD argument, shebang included
  std::vector<FunctionInfo> functions;
};

// Reads FUNCTION LOAD's "#!lua name=<library>" line: "" or Redis's error (without '-'); sets
// *name and *code_start (the Lua code begins at the line's newline, keeping line numbers).
std::string ParseLibraryShebang(std::string_view code, std::string* name, size_t* code_start);
// Letters, digits and underscores, at least one: library and function names.
bool ValidFunctionName(std::string_view name);

// FUNCTION RESTORE's policies: keep what is loaded and refuse a library that exists (APPEND),
// replace a library of the same name (REPLACE), or drop everything first (FLUSH).
enum class RestorePolicy { kAppend, kReplace, kFlush };

class FunctionLibraries {
 public:
  // "" or Redis's error: the library exists (without replace), or one of its functions is
  // another library's.
  std::string Add(Library library, bool replace);
  // FUNCTION RESTORE: all of libraries, or (with Redis's error) none; a library or function
  // named twice in them is refused whatever the policy.
  std::string Restore(std::vector<Library> libraries, RestorePolicy policy);
  bool Delete(std::string_view name);
  void Flush();

  // Every library, by name.
  std::vector<Library> All() const;
  // The flags of function `name` (without case), or nullopt.
  std::optional<ScriptFlags> FindFunction(std::string_view name) const;

  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  size_t library_count() const;
  size_t function_count() const;
  size_t code_bytes() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, Library, std::less<>> libraries_;  // GUARDED_BY(mu_)
  // Lower-cased function name -> library.
  std::map<std::string, std::string, std::less<>> function_to_library_;  // GUARDED_BY(mu_)
  std::atomic<uint64_t> generation_{0};
};

}  // namespace ordis::server::scripting
