#include "server/acl/catalog.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace ordis::acl {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

Catalog::Catalog(std::vector<CommandInfo> commands) : commands_(commands.size()) {
  const int n = static_cast<int>(commands.size());
  std::vector<bool> seen(n);
  for (CommandInfo& c : commands) {
    if (c.id < 0 || c.id >= n || seen[c.id]) {
      throw std::invalid_argument("acl catalog: ids must be dense and unique: " + c.name);
    }
    seen[c.id] = true;
    c.name = Lower(c.name);
    commands_[c.id] = std::move(c);
  }
  subcommands_.resize(n);
  by_category_.resize(kCategoryCount);
  for (const CommandInfo& c : commands_) {
    if (c.parent_id == -1) {
      top_level_.push_back(c.id);
    } else if (c.parent_id < 0 || c.parent_id >= n || commands_[c.parent_id].parent_id != -1) {
      throw std::invalid_argument("acl catalog: bad parent of " + c.name);
    } else {
      subcommands_[c.parent_id].push_back(c.id);
    }
    for (uint32_t bits = c.categories; bits != 0; bits &= bits - 1) {
      by_category_[std::countr_zero(bits)].push_back(c.id);
    }
    by_name_.emplace_back(c.name, c.id);
  }
  std::sort(by_name_.begin(), by_name_.end());
}

const CommandInfo* Catalog::Find(std::string_view name) const {
  std::string key = Lower(name);
  auto it = std::lower_bound(by_name_.begin(), by_name_.end(), key,
                             [](const auto& e, const std::string& k) { return e.first < k; });
  if (it == by_name_.end() || it->first != key) return nullptr;
  return &commands_[it->second];
}

std::span<const int> Catalog::InCategory(uint32_t category) const {
  if (category == 0 || (category & (category - 1)) != 0) return {};
  int index = std::countr_zero(category);
  if (index >= kCategoryCount) return {};
  return by_category_[index];
}

}  // namespace ordis::acl
