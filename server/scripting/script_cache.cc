#include "server/scripting/script_cache.h"

#include "server/scripting/script.h"

namespace ordis::server::scripting {

std::string ScriptCache::Add(std::string_view body) {
  std::string sha = Sha1Hex(body);
  std::lock_guard lock(mu_);
  auto [it, added] = scripts_.try_emplace(sha, body);
  if (added) bytes_ += sha.size() + body.size();
  return sha;
}

bool ScriptCache::Find(std::string_view sha, std::string* body) const {
  std::lock_guard lock(mu_);
  auto it = scripts_.find(std::string(sha));
  if (it == scripts_.end()) return false;
  *body = it->second;
  return true;
}

bool ScriptCache::Contains(std::string_view sha) const {
  std::lock_guard lock(mu_);
  return scripts_.contains(std::string(sha));
}

void ScriptCache::Flush() {
  std::lock_guard lock(mu_);
  scripts_.clear();
  bytes_ = 0;
  generation_.fetch_add(1, std::memory_order_release);
}

size_t ScriptCache::size() const {
  std::lock_guard lock(mu_);
  return scripts_.size();
}

size_t ScriptCache::bytes() const {
  std::lock_guard lock(mu_);
  return bytes_;
}

}  // namespace ordis::server::scripting
