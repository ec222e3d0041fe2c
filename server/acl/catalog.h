// The commands the ACL knows, as the command layer describes them. The ACL library never sees the
// command table: it gets this catalog once, at start-up, and refers to commands by dense id so a
// selector's allowed commands are a bitset and a check is a bit test.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/acl/categories.h"

namespace ordis::acl {

struct CommandInfo {
  std::string name;         // lower case: "get", or "client|kill" for a subcommand
  uint32_t categories = 0;  // Category bits, the implicit ones (@slow, @write...) included
  int id = -1;              // dense: 0 <= id < catalog size
  int parent_id = -1;       // the container's id for a subcommand, -1 for a top-level command
  bool no_auth = false;     // Redis's CMD_NO_AUTH (AUTH, HELLO): every user may run it
};

// Immutable once built; safe to share between threads.
class Catalog {
 public:
  // The ids must be exactly 0..n-1 (in any order) and every parent_id must name a top-level
  // command. Throws std::invalid_argument otherwise (start-up only).
  explicit Catalog(std::vector<CommandInfo> commands);

  int size() const { return static_cast<int>(commands_.size()); }
  const CommandInfo& at(int id) const { return commands_[id]; }

  // The command named name, case-insensitive ("CLIENT|Kill" finds client|kill), or nullptr.
  const CommandInfo* Find(std::string_view name) const;

  // Ids of the commands (containers and subcommands) in the category bits, in id order.
  std::span<const int> InCategory(uint32_t category) const;

  // Top-level command ids in id order, and a container's subcommand ids in id order.
  std::span<const int> TopLevel() const { return top_level_; }
  std::span<const int> Subcommands(int id) const { return subcommands_[id]; }

 private:
  std::vector<CommandInfo> commands_;                 // indexed by id
  std::vector<std::pair<std::string, int>> by_name_;  // sorted by name
  std::vector<int> top_level_;
  std::vector<std::vector<int>> subcommands_;  // by id
  std::vector<std::vector<int>> by_category_;  // by category index
};

}  // namespace ordis::acl
