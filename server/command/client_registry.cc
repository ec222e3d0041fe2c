#include "server/command/client_registry.h"

#include <algorithm>

#include "base/number.h"
#include "resp/out_buffer.h"
#include "server/command/command_table.h"

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

ConnectionHost* ClientRegistry::Host(uint64_t id) const {
  std::lock_guard lock(mu_);
  auto it = clients_.find(id);
  return it == clients_.end() ? nullptr : it->second.second;
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

bool ClientRegistry::WithClient(uint64_t id, absl::FunctionRef<void(ClientState&)> visit) const {
  std::lock_guard lock(mu_);
  auto it = clients_.find(id);
  if (it == clients_.end()) return false;
  visit(*it->second.first);
  return true;
}

bool ClientRegistry::ResumePostponed(uint64_t id) {
  ConnectionHost* host;
  {
    std::lock_guard lock(mu_);
    auto it = clients_.find(id);
    if (it == clients_.end()) return false;
    host = it->second.second;
  }
  // A postponed connection never moves, so host is still its thread.
  host->ResumePostponed(id);
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

void AppendClientInfo(const CommandTable& commands, const ClientState& c, int64_t now_ms,
                      std::string* out) {
  auto num = [&](std::string_view field, int64_t v) {
    out->append(field);
    out->push_back('=');
    AppendInt64(out, v);
    out->push_back(' ');
  };
  auto str = [&](std::string_view field, std::string_view v) {
    out->append(field);
    out->push_back('=');
    out->append(v);
    out->push_back(' ');
  };
  num("id", static_cast<int64_t>(c.id));
  str("addr", c.addr);
  str("laddr", c.laddr);
  num("fd", c.fd);
  str("name", c.name);
  num("age", (now_ms - c.created_ms) / 1000);
  num("idle", (now_ms - c.last_interaction_ms.load(std::memory_order_relaxed)) / 1000);
  int multi = c.multi_count.load(std::memory_order_relaxed);
  // Redis's order of flag letters: O (monitor), P (subscribed), x (in MULTI), b (blocked, or a
  // command postponed by CLIENT PAUSE), t (tracking), R (its redirect is gone), B (broadcast
  // tracking); N when none.
  std::string flags;
  if (c.monitor.load(std::memory_order_relaxed)) flags.push_back('O');
  if (c.pubsub.load(std::memory_order_relaxed)) flags.push_back('P');
  if (multi >= 0) flags.push_back('x');
  if (c.blocked.load(std::memory_order_relaxed) || c.postponed.load(std::memory_order_relaxed)) {
    flags.push_back('b');
  }
  const uint8_t tracking = c.tracking_flags.load(std::memory_order_relaxed);
  if (tracking & kTrackingOn) flags.push_back('t');
  if (tracking & kTrackingBrokenRedirect) flags.push_back('R');
  if (tracking & kTrackingBcast) flags.push_back('B');
  if (flags.empty()) flags.push_back('N');
  str("flags", flags);
  num("db", c.db.load(std::memory_order_relaxed));
  num("sub", c.sub_count.load(std::memory_order_relaxed));
  num("psub", c.psub_count.load(std::memory_order_relaxed));
  num("ssub", c.ssub_count.load(std::memory_order_relaxed));
  num("multi", multi);
  // The buffers as Redis reports its own: the first reply chunk is its static reply buffer (rbs,
  // obl, rbp), the others its reply list (oll, omem).
  auto load = [](const auto& field) {
    return static_cast<int64_t>(field.load(std::memory_order_relaxed));
  };
  const int64_t qbuf = load(c.query_buffer_bytes);
  const int64_t qbuf_capacity = std::max(load(c.query_buffer_capacity), qbuf);
  const int64_t argv = load(c.argv_bytes);
  const int64_t multi_mem = load(c.multi_bytes);
  const int64_t pending = load(c.output_buffer_bytes);
  const int64_t chunks = load(c.output_buffer_chunks);
  constexpr int64_t kChunk = resp::OutBuffer::kChunkSize;
  const int64_t obl = std::min(pending, kChunk);
  num("qbuf", qbuf);
  num("qbuf-free", qbuf_capacity - qbuf);
  num("argv-mem", argv);
  num("multi-mem", multi_mem);
  num("rbs", kChunk);
  num("rbp", std::min(load(c.output_peak_bytes), kChunk));
  num("obl", obl);
  num("oll", std::max<int64_t>(chunks - 1, 0));
  num("omem", pending - obl);
  num("tot-mem", static_cast<int64_t>(sizeof(ClientState)) + qbuf_capacity + argv + multi_mem +
                     std::max<int64_t>(chunks, 1) * kChunk);
  str("events", pending > 0 ? "rw" : "r");
  int cmd_id = c.last_command_id.load(std::memory_order_relaxed);
  const auto& all = commands.flat();
  str("cmd", cmd_id >= 0 && cmd_id < static_cast<int>(all.size()) ? all[cmd_id]->name : "NULL");
  str("user", c.user_name);
  num("redir", c.tracking_redirect.load(std::memory_order_relaxed));
  out->append("resp=");
  AppendInt64(out, c.protocol.load(std::memory_order_relaxed));
  out->push_back('\n');
}

std::string ClientRegistry::Describe(const CommandTable& commands, const ClientState& client,
                                     int64_t now_ms) const {
  std::string line;
  std::lock_guard lock(mu_);
  AppendClientInfo(commands, client, now_ms, &line);
  line.pop_back();  // the newline
  return line;
}

void ClientRegistry::SetUserName(ClientState* client, std::string_view name) {
  std::lock_guard lock(mu_);
  client->user_name.assign(name);
}

void ClientRegistry::SetLibInfo(ClientState* client, bool lib_name, std::string_view value) {
  std::lock_guard lock(mu_);
  (lib_name ? client->lib_name : client->lib_ver).assign(value);
}

void ClientRegistry::ForEach(const std::function<void(ClientState&)>& visit) const {
  std::lock_guard lock(mu_);
  for (const auto& [id, entry] : clients_) visit(*entry.first);
}

}  // namespace ordis::server
