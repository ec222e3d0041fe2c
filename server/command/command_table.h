// The command table: every command's spec, looked up case-insensitively by name.
// Built once at start-up, read-only afterwards (safe to read from every thread).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/command/command.h"

namespace ordis::server {

class CommandTable {
 public:
  CommandTable() = default;
  // by_name_ and flat_ point into specs_: a table is never copied; WithRenames builds a new one.
  CommandTable(const CommandTable&) = delete;
  CommandTable& operator=(const CommandTable&) = delete;

  // rename-command: a frozen copy of base whose commands answer to new names ("" disables one);
  // nullptr and *error (Redis's text) when a rename names an unknown command or a taken name.
  // Specs keep their ids, so per-command statistics line up with base's.
  static std::unique_ptr<CommandTable> WithRenames(
      const CommandTable& base, const std::vector<std::pair<std::string, std::string>>& renames,
      std::string* error);

  void Register(std::initializer_list<CommandSpec> specs);
  const CommandSpec* Find(std::string_view name) const;
  // By the command's own name, whatever rename-command made of it: the append-only log records
  // and replays commands under these names, so a log outlives a change of renames.
  const CommandSpec* FindOriginal(std::string_view name) const;
  bool has_renames() const { return !renamed_.empty(); }
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
  // The names renamed commands answer to, by their spec's name; "" for a disabled one. Owns the
  // strings by_name_ views.
  std::map<std::string_view, std::string> renamed_;
  std::vector<const CommandSpec*> flat_;
  absl::flat_hash_map<std::string_view, const CommandSpec*, CaseInsensitiveHash, CaseInsensitiveEq>
      by_name_;
  absl::flat_hash_map<std::string_view, const CommandSpec*, CaseInsensitiveHash, CaseInsensitiveEq>
      by_original_name_;  // only with renames
};

}  // namespace ordis::server
