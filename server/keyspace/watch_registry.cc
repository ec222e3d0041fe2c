#include "server/keyspace/watch_registry.h"

#include <algorithm>

namespace ordis::server {

std::string WatchRegistry::Encode(int db, std::string_view key) {
  std::string out;
  out.reserve(key.size() + 2);
  out.push_back(static_cast<char>(db >> 8));
  out.push_back(static_cast<char>(db & 0xff));
  out.append(key);
  return out;
}

void WatchRegistry::Watch(int db, std::string_view key, WatchState* watcher, bool expired) {
  std::lock_guard lock(mu_);
  auto& list = watchers_[Encode(db, key)];
  for (const Watcher& w : list) {
    if (w.state == watcher) return;
  }
  list.push_back({watcher, expired});
  watched_keys_.fetch_add(1, std::memory_order_relaxed);
}

void WatchRegistry::UnwatchAll(const std::vector<std::pair<int, std::string>>& keys,
                               WatchState* watcher) {
  std::lock_guard lock(mu_);
  for (const auto& [db, key] : keys) {
    auto it = watchers_.find(Encode(db, key));
    if (it == watchers_.end()) continue;
    auto& list = it->second;
    auto pos = std::find_if(list.begin(), list.end(),
                            [watcher](const Watcher& w) { return w.state == watcher; });
    if (pos == list.end()) continue;
    list.erase(pos);
    watched_keys_.fetch_sub(1, std::memory_order_relaxed);
    if (list.empty()) watchers_.erase(it);
  }
}

void WatchRegistry::Touch(int db, std::string_view key, bool deleted) {
  // relaxed: Watch() registers under mu_ before the watcher reads the key under the keyspace
  // lock, and this writer holds that lock exclusively, so a registration it must see is visible.
  if (watched_keys_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(mu_);
  auto it = watchers_.find(Encode(db, key));
  if (it == watchers_.end()) return;
  for (Watcher& w : it->second) {
    if (w.expired) {
      w.expired = false;  // from now on the key is simply absent
      if (deleted) continue;
    }
    w.state->dirty.store(true, std::memory_order_release);
  }
}

void WatchRegistry::TouchDb(int db) {
  if (watched_keys_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(mu_);
  for (auto& [encoded, list] : watchers_) {
    int key_db =
        (static_cast<unsigned char>(encoded[0]) << 8) | static_cast<unsigned char>(encoded[1]);
    if (key_db != db) continue;
    for (Watcher& w : list) w.state->dirty.store(true, std::memory_order_release);
  }
}

void WatchRegistry::TouchAll() {
  if (watched_keys_.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(mu_);
  for (auto& [encoded, list] : watchers_) {
    for (Watcher& w : list) w.state->dirty.store(true, std::memory_order_release);
  }
}

}  // namespace ordis::server
