#include "server/command/client_registry.h"

namespace ordis::server {

void ClientRegistry::Add(ClientState* client, ConnectionHost* host) {
  std::lock_guard lock(mu_);
  clients_[client->id] = {client, host};
  count_.store(clients_.size(), std::memory_order_relaxed);
}

void ClientRegistry::Remove(uint64_t id) {
  std::lock_guard lock(mu_);
  clients_.erase(id);
  count_.store(clients_.size(), std::memory_order_relaxed);
}

void ClientRegistry::SetHost(uint64_t id, ConnectionHost* host) {
  std::lock_guard lock(mu_);
  auto it = clients_.find(id);
  if (it != clients_.end()) it->second.second = host;
}

bool ClientRegistry::Kill(uint64_t id) {
  ConnectionHost* host;
  {
    std::lock_guard lock(mu_);
    auto it = clients_.find(id);
    if (it == clients_.end()) return false;
    it->second.first->kill_requested.store(true, std::memory_order_relaxed);
    host = it->second.second;
  }
  host->CloseConnection(id);
  return true;
}

void ClientRegistry::SetName(ClientState* client, std::string_view name) {
  std::lock_guard lock(mu_);
  client->name.assign(name);
}

std::string ClientRegistry::Name(const ClientState* client) const {
  std::lock_guard lock(mu_);
  return client->name;
}

void ClientRegistry::ForEach(const std::function<void(ClientState&)>& visit) const {
  std::lock_guard lock(mu_);
  for (const auto& [id, entry] : clients_) visit(*entry.first);
}

}  // namespace ordis::server
