#include "server/scripting/function_libraries.h"

#include <algorithm>
#include <cctype>

namespace ordis::server::scripting {
namespace {

// Function names compare without case, as Redis's (FCALL tf calls TF).
std::string FoldCase(std::string_view name) {
  std::string folded(name);
  for (char& c : folded) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return folded;
}

}  // namespace

bool ValidFunctionName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string ParseLibraryShebang(std::string_view code, std::string* name, size_t* code_start) {
  if (!code.starts_with("#!")) return "ERR Missing library metadata";
  const size_t eol = code.find('\n');
  if (eol == std::string_view::npos) return "ERR Invalid library metadata";
  std::string_view line = code.substr(2, eol - 2);
  const size_t space = line.find(' ');
  const std::string_view engine = line.substr(0, space);
  if (engine != "lua") return "ERR Engine '" + std::string(engine) + "' not found";
  name->clear();
  bool named = false;
  std::string_view rest = space == std::string_view::npos ? "" : line.substr(space + 1);
  while (!rest.empty()) {
    const size_t end = rest.find(' ');
    const std::string_view part = rest.substr(0, end);
    rest = end == std::string_view::npos ? "" : rest.substr(end + 1);
    if (part.empty()) continue;
    if (!part.starts_with("name=")) return "ERR Invalid metadata value given: " + std::string(part);
    *name = std::string(part.substr(5));
    named = true;
  }
  if (!named) return "ERR Library name was not given";
  if (!ValidFunctionName(*name)) {
    return "ERR Library names can only contain letters, numbers, or underscores(_) and must be at "
           "least one character long";
  }
  *code_start = eol;
  return "";
}

std::string FunctionLibraries::Add(Library library, bool replace) {
  std::lock_guard lock(mu_);
  auto existing = libraries_.find(library.name);
  if (existing != libraries_.end() && !replace) {
    return "ERR Library '" + library.name + "' already exists";
  }
  for (const FunctionInfo& f : library.functions) {
    auto owner = function_to_library_.find(FoldCase(f.name));
    if (owner != function_to_library_.end() && owner->second != library.name) {
      return "ERR Function " + f.name + " already exists";
    }
  }
  if (existing != libraries_.end()) {
    for (const FunctionInfo& f : existing->second.functions) {
      function_to_library_.erase(FoldCase(f.name));
    }
    libraries_.erase(existing);
  }
  for (const FunctionInfo& f : library.functions) {
    function_to_library_[FoldCase(f.name)] = library.name;
  }
  std::string name = library.name;
  libraries_.emplace(std::move(name), std::move(library));
  generation_.fetch_add(1, std::memory_order_release);
  return "";
}

std::string FunctionLibraries::Restore(std::vector<Library> libraries, RestorePolicy policy) {
  // As Redis: the payload loads into libraries of its own (its duplicates are FUNCTION LOAD's
  // errors), which then join the loaded ones.
  std::map<std::string, std::string, std::less<>> payload_functions;  // folded name -> library
  for (size_t i = 0; i < libraries.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (libraries[j].name == libraries[i].name) {
        return "ERR Library '" + libraries[i].name + "' already exists";
      }
    }
    for (const FunctionInfo& f : libraries[i].functions) {
      if (!payload_functions.emplace(FoldCase(f.name), libraries[i].name).second) {
        return "ERR Function " + f.name + " already exists";
      }
    }
  }
  std::lock_guard lock(mu_);
  if (policy != RestorePolicy::kFlush) {
    for (const Library& library : libraries) {
      if (policy == RestorePolicy::kAppend && libraries_.contains(library.name)) {
        return "ERR Library " + library.name + " already exists";
      }
    }
    for (const Library& library : libraries) {
      for (const FunctionInfo& f : library.functions) {
        auto owner = function_to_library_.find(FoldCase(f.name));
        // A function of a library the payload replaces goes with it.
        const bool replaced =
            owner != function_to_library_.end() &&
            std::any_of(libraries.begin(), libraries.end(),
                        [&](const Library& l) { return l.name == owner->second; });
        if (owner != function_to_library_.end() && !replaced) {
          return "ERR Function " + f.name + " already exists";
        }
      }
    }
  }
  if (policy == RestorePolicy::kFlush) {
    libraries_.clear();
    function_to_library_.clear();
  }
  for (Library& library : libraries) {
    if (auto existing = libraries_.find(library.name); existing != libraries_.end()) {
      for (const FunctionInfo& f : existing->second.functions) {
        function_to_library_.erase(FoldCase(f.name));
      }
      libraries_.erase(existing);
    }
    for (const FunctionInfo& f : library.functions) {
      function_to_library_[FoldCase(f.name)] = library.name;
    }
    std::string name = library.name;
    libraries_.emplace(std::move(name), std::move(library));
  }
  generation_.fetch_add(1, std::memory_order_release);
  return "";
}

bool FunctionLibraries::Delete(std::string_view name) {
  std::lock_guard lock(mu_);
  auto it = libraries_.find(name);
  if (it == libraries_.end()) return false;
  for (const FunctionInfo& f : it->second.functions) function_to_library_.erase(FoldCase(f.name));
  libraries_.erase(it);
  generation_.fetch_add(1, std::memory_order_release);
  return true;
}

void FunctionLibraries::Flush() {
  std::lock_guard lock(mu_);
  libraries_.clear();
  function_to_library_.clear();
  generation_.fetch_add(1, std::memory_order_release);
}

std::vector<Library> FunctionLibraries::All() const {
  std::lock_guard lock(mu_);
  std::vector<Library> all;
  all.reserve(libraries_.size());
  for (const auto& [name, library] : libraries_) all.push_back(library);
  return all;
}

std::optional<ScriptFlags> FunctionLibraries::FindFunction(std::string_view name) const {
  std::lock_guard lock(mu_);
  const std::string folded = FoldCase(name);
  auto owner = function_to_library_.find(folded);
  if (owner == function_to_library_.end()) return std::nullopt;
  for (const FunctionInfo& f : libraries_.find(owner->second)->second.functions) {
    if (FoldCase(f.name) == folded) return f.flags;
  }
  return std::nullopt;
}

size_t FunctionLibraries::library_count() const {
  std::lock_guard lock(mu_);
  return libraries_.size();
}

size_t FunctionLibraries::function_count() const {
  std::lock_guard lock(mu_);
  return function_to_library_.size();
}

size_t FunctionLibraries::code_bytes() const {
  std::lock_guard lock(mu_);
  size_t bytes = 0;
  for (const auto& [name, library] : libraries_) bytes += name.size() + library.code.size();
  return bytes;
}

}  // namespace ordis::server::scripting
