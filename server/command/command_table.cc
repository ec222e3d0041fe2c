#include "server/command/command_table.h"

#include <cassert>

#include "absl/hash/hash.h"
#include "base/fatal.h"

namespace ordis::server {
namespace {

inline char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

}  // namespace

size_t CommandTable::CaseInsensitiveHash::operator()(std::string_view s) const {
  // Command names are short: fold case into a small stack copy, then hash.
  char buf[32];
  if (s.size() > sizeof(buf)) return absl::Hash<std::string_view>{}(s.substr(0, 0)) ^ s.size();
  for (size_t i = 0; i < s.size(); ++i) buf[i] = Lower(s[i]);
  return absl::Hash<std::string_view>{}(std::string_view(buf, s.size()));
}

bool CommandTable::CaseInsensitiveEq::operator()(std::string_view a, std::string_view b) const {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

void CommandTable::Register(std::initializer_list<CommandSpec> specs) {
  auto check = [](const CommandSpec& spec) {
    // ForEachKeyPosition steps by key_step: 0 would never end.
    if (spec.first_key > 0 && spec.key_step < 1) {
      Fatal("command " + std::string(spec.name) + ": keys with a key step below 1");
    }
  };
  for (const CommandSpec& spec : specs) {
    check(spec);
    for (const CommandSpec& sub : spec.subcommands) check(sub);
    specs_.push_back(spec);
  }
}

void CommandTable::Freeze() {
  by_name_.clear();
  by_original_name_.clear();
  flat_.clear();
  for (CommandSpec& spec : specs_) {
    spec.id = static_cast<int>(flat_.size());
    flat_.push_back(&spec);
    for (CommandSpec& sub : spec.subcommands) {
      sub.id = static_cast<int>(flat_.size());
      flat_.push_back(&sub);
    }
    std::string_view name = spec.name;
    if (!renamed_.empty()) by_original_name_.emplace(spec.name, &spec);
    if (auto it = renamed_.find(spec.name); it != renamed_.end()) {
      if (it->second.empty()) continue;  // disabled
      name = it->second;
    }
    bool inserted = by_name_.emplace(name, &spec).second;
    assert(inserted && "duplicate command name");
    (void)inserted;
  }
}

std::unique_ptr<CommandTable> CommandTable::WithRenames(
    const CommandTable& base, const std::vector<std::pair<std::string, std::string>>& renames,
    std::string* error) {
  auto table = std::make_unique<CommandTable>();
  table->specs_ = base.specs_;
  table->renamed_ = base.renamed_;
  table->Freeze();
  for (const auto& [from, to] : renames) {
    const CommandSpec* spec = table->Find(from);
    if (spec == nullptr) {
      *error = "No such command in rename-command";
      return nullptr;
    }
    if (!to.empty() && table->Find(to) != nullptr) {
      *error = "Target command name already exists";
      return nullptr;
    }
    std::string& name = table->renamed_[spec->name];
    name.clear();
    for (char c : to) name += Lower(c);
    table->Freeze();
  }
  return table;
}

const CommandSpec* CommandTable::FindSubcommand(const CommandSpec& container,
                                                std::string_view sub) {
  CaseInsensitiveEq eq;
  for (const CommandSpec& spec : container.subcommands) {
    std::string_view name = spec.name.substr(spec.name.find('|') + 1);
    if (eq(name, sub)) return &spec;
  }
  return nullptr;
}

const CommandSpec* CommandTable::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

const CommandSpec* CommandTable::FindOriginal(std::string_view name) const {
  if (renamed_.empty()) return Find(name);
  auto it = by_original_name_.find(name);
  return it == by_original_name_.end() ? nullptr : it->second;
}

void KeyPositions(const CommandSpec& spec, std::span<const std::string_view> args,
                  std::vector<size_t>* out) {
  out->clear();
  ForEachKeyPosition(spec, args, [out](size_t i) {
    out->push_back(i);
    return true;
  });
}

}  // namespace ordis::server
