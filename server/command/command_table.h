// The command table: every command's spec, looked up case-insensitively by name.
// Built once at start-up, read-only afterwards (safe to read from every thread).
#pragma once

#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/command/command.h"

namespace ordis::server {

class CommandTable {
 public:
  void Register(std::initializer_list<CommandSpec> specs);
  const CommandSpec* Find(std::string_view name) const;
  // The subcommand of container named sub (case-insensitive), or nullptr.
  static const CommandSpec* FindSubcommand(const CommandSpec& container, std::string_view sub);
  // Top-level commands.
  const std::vector<CommandSpec>& all() const { return specs_; }
  // Every command and subcommand, indexed by CommandSpec::id.
  const std::vector<const CommandSpec*>& flat() const { return flat_; }
  void Freeze();  // after registration: builds the name index

 private:
  struct CaseInsensitiveHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const;
  };
  struct CaseInsensitiveEq {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const;
  };

  std::vector<CommandSpec> specs_;
  std::vector<const CommandSpec*> flat_;
  absl::flat_hash_map<std::string_view, const CommandSpec*, CaseInsensitiveHash, CaseInsensitiveEq>
      by_name_;
};

}  // namespace ordis::server
