#include "server/command/tracking.h"

#include <algorithm>
#include <cstring>

#include "base/number.h"
#include "server/command/errors.h"

namespace ordis::server {
namespace {

// The top-level command running on this thread (Tracking::Running), and the invalidations it
// caused to its own client: keys, or nullopt for a flush.
thread_local ClientState* running_client = nullptr;
thread_local std::vector<std::optional<std::string>> running_pending;

absl::string_view Key(std::string_view s) { return {s.data(), s.size()}; }

void AppendBulk(std::string* out, std::string_view s) {
  out->push_back('$');
  AppendInt64(out, static_cast<int64_t>(s.size()));
  out->append("\r\n");
  out->append(s);
  out->append("\r\n");
}

// Redis's stringCheckPrefix: one is a prefix of the other.
bool Overlap(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  return std::memcmp(a.data(), b.data(), n) == 0;
}

std::string_view NullOf(const ClientState& c) {
  return c.protocol.load(std::memory_order_relaxed) == 3 ? "_\r\n" : "$-1\r\n";
}

}  // namespace

std::string Tracking::Enable(ClientState& client, const TrackingOptions& options) {
  TrackingState& t = client.tracking;
  // Redis's checks, in its order.
  if (!options.bcast && !options.prefixes.empty()) {
    return std::string(errors::kTrackingPrefixNeedsBcast);
  }
  std::lock_guard lock(mu_);
  if (t.on && t.bcast != options.bcast) {
    return std::string(errors::kTrackingBcastSwitch);
  }
  if (options.bcast && (options.optin || options.optout)) {
    return std::string(errors::kTrackingOptInOutBcast);
  }
  if (options.optin && options.optout) {
    return std::string(errors::kTrackingOptInAndOut);
  }
  if ((options.optin && t.optout) || (options.optout && t.optin)) {
    return std::string(errors::kTrackingOptInOutSwitch);
  }
  if (options.bcast) {
    const auto& given = options.prefixes;
    for (size_t i = 0; i < given.size(); ++i) {
      for (const std::string& existing : t.prefixes) {
        if (Overlap(existing, given[i])) {
          return errors::TrackingPrefixOverlap(given[i], existing, /*existing=*/true);
        }
      }
      for (size_t j = i + 1; j < given.size(); ++j) {
        // Redis 7.0 replies this error and then, for a pair after the first prefix, +OK as well,
        // having enabled tracking: ordis replies the error alone (see README).
        if (Overlap(given[i], given[j])) {
          return errors::TrackingPrefixOverlap(given[i], given[j], /*existing=*/false);
        }
      }
    }
  }
  if (!t.on) {
    t.on = true;
    on_[client.id] = &client;
    clients_on_.fetch_add(1, std::memory_order_relaxed);
  }
  t.broken_redirect = t.bcast = t.optin = t.optout = t.noloop = false;
  t.redirect = options.redirect;
  if (options.bcast) {
    t.bcast = true;
    auto add = [&](std::string_view prefix) {
      if (!t.prefixes.emplace(prefix).second) return;
      auto it = prefixes_.find(prefix);
      if (it == prefixes_.end()) it = prefixes_.emplace(std::string(prefix), Prefix{}).first;
      it->second.clients.push_back(&client);
    };
    if (options.prefixes.empty()) add("");
    for (std::string_view prefix : options.prefixes) add(prefix);
  }
  t.optin = options.optin;
  t.optout = options.optout;
  t.noloop = options.noloop;
  PublishFlags(client);
  UpdateActive();
  return "";
}

void Tracking::Disable(ClientState& client) {
  TrackingState& t = client.tracking;
  std::lock_guard lock(mu_);
  for (const std::string& name : t.prefixes) {
    auto it = prefixes_.find(name);
    std::vector<ClientState*>& list = it->second.clients;
    list.erase(std::find(list.begin(), list.end(), &client));
    if (list.empty()) prefixes_.erase(it);
  }
  t.prefixes.clear();
  if (t.on) {
    on_.erase(client.id);
    clients_on_.fetch_sub(1, std::memory_order_relaxed);
  }
  t.on = t.broken_redirect = t.bcast = t.optin = t.optout = t.caching = t.noloop = false;
  PublishFlags(client);
  UpdateActive();
}

void Tracking::PublishFlags(ClientState& client) {
  const TrackingState& t = client.tracking;
  uint8_t flags = 0;
  if (t.on) flags |= kTrackingOn;
  if (t.broken_redirect) flags |= kTrackingBrokenRedirect;
  if (t.bcast) flags |= kTrackingBcast;
  client.tracking_flags.store(flags, std::memory_order_relaxed);
  client.tracking_redirect.store(t.on ? static_cast<int64_t>(t.redirect) : -1,
                                 std::memory_order_relaxed);
}

void Tracking::UpdateActive() {
  tracker_.SetActive(!on_.empty() || !table_.empty() || !prefixes_.empty());
}

void Tracking::Remember(ClientState& caller, std::span<const std::string_view> args,
                        std::span<const size_t> key_positions) {
  if (!Remembers(caller) || key_positions.empty()) return;
  std::lock_guard lock(mu_);
  for (size_t i : key_positions) {
    if (table_[Key(args[i])].insert(caller.id).second) ++items_;
  }
  UpdateActive();
}

void Tracking::Deliver(ClientState& c, std::string_view frame) {
  if (&c == self_client_) {
    self_out_->Append(frame);  // FinishRunning's: after the command's reply
    return;
  }
  const OutputBufferLimit limit = c.pubsub.load(std::memory_order_relaxed)
                                      ? config_.pubsub_output_limit()
                                      : config_.normal_output_limit();
  ConnectionHost* host =
      c.pushes.Add(frame, c.output_buffer_bytes.load(std::memory_order_relaxed), limit);
  if (host != nullptr) host->DeliverPushes(c.id);
}

void Tracking::Send(ClientState& client, std::string_view payload) {
  const TrackingState& t = client.tracking;
  auto frame_for = [&](const ClientState& target, bool redirected) -> bool {
    if (target.protocol.load(std::memory_order_relaxed) == 3) {
      frame_.assign(">2\r\n$10\r\ninvalidate\r\n");
    } else if (redirected && target.pubsub.load(std::memory_order_relaxed)) {
      frame_.assign("*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n");
    } else {
      return false;  // RESP2 has no pushes outside subscriber mode
    }
    frame_.append(payload);
    return true;
  };
  if (t.redirect == 0) {
    if (frame_for(client, false)) Deliver(client, frame_);
    return;
  }
  const bool found = clients_.WithClient(t.redirect, [&](ClientState& target) {
    if (frame_for(target, true)) Deliver(target, frame_);
  });
  if (found) return;
  client.tracking.broken_redirect = true;
  PublishFlags(client);
  if (client.protocol.load(std::memory_order_relaxed) == 3) {
    frame_.assign(">2\r\n$21\r\ntracking-redir-broken\r\n:");
    AppendInt64(&frame_, static_cast<int64_t>(t.redirect));
    frame_.append("\r\n");
    Deliver(client, frame_);
  }
}

void Tracking::KeyChanged(std::string_view key) {
  std::lock_guard lock(mu_);
  const uint64_t changer = running_client != nullptr ? running_client->id : 0;
  for (auto& [name, prefix] : prefixes_) {
    if (key.substr(0, name.size()) != name) continue;
    auto it = prefix.keys.find(key);
    if (it == prefix.keys.end()) {
      prefix.keys.emplace(std::string(key), changer);
    } else {
      it->second = changer;
    }
    broadcast_pending_.store(true, std::memory_order_relaxed);
  }
  auto entry = table_.find(Key(key));
  if (entry == table_.end()) return;
  const absl::flat_hash_set<uint64_t> ids = std::move(entry->second);
  items_ -= ids.size();
  table_.erase(entry);
  std::string payload = "*1\r\n";
  AppendBulk(&payload, key);
  for (uint64_t id : ids) {
    auto it = on_.find(id);
    if (it == on_.end() || it->second->tracking.bcast) continue;
    ClientState& target = *it->second;
    if (&target == running_client) {
      // Not its own change with NOLOOP; else after the reply of the command making it.
      if (!target.tracking.noloop) running_pending.emplace_back(std::string(key));
      continue;
    }
    Send(target, payload);
  }
  UpdateActive();
}

void Tracking::KeysFlushed() {
  std::lock_guard lock(mu_);
  for (const auto& [id, client] : on_) {
    if (client == running_client) {
      running_pending.emplace_back(std::nullopt);
    } else {
      Send(*client, NullOf(*client));
    }
  }
  table_.clear();
  items_ = 0;
  UpdateActive();
}

void Tracking::BroadcastPending() {
  // relaxed: a change queued by another thread meanwhile is sent by its own thread's call.
  if (!broadcast_pending_.load(std::memory_order_relaxed)) return;
  std::lock_guard lock(mu_);
  broadcast_pending_.store(false, std::memory_order_relaxed);
  std::string all;
  std::string mine;
  for (auto& [name, prefix] : prefixes_) {
    if (prefix.keys.empty()) continue;
    all = "*";
    AppendInt64(&all, static_cast<int64_t>(prefix.keys.size()));
    all.append("\r\n");
    for (const auto& [key, changer] : prefix.keys) AppendBulk(&all, key);
    for (ClientState* client : prefix.clients) {
      if (!client->tracking.noloop) {
        Send(*client, all);
        continue;
      }
      // NOLOOP: without the keys the client changed itself.
      size_t count = 0;
      std::string keys;
      for (const auto& [key, changer] : prefix.keys) {
        if (changer == client->id) continue;
        ++count;
        AppendBulk(&keys, key);
      }
      if (count == 0) continue;
      mine = "*";
      AppendInt64(&mine, static_cast<int64_t>(count));
      mine.append("\r\n");
      mine.append(keys);
      Send(*client, mine);
    }
    prefix.keys.clear();
  }
}

Tracking::Running::Running(Tracking& tracking, ClientState& client, resp::Writer& out)
    : tracking_(tracking), client_(client), out_(out) {
  running_client = &client;
}

Tracking::Running::~Running() {
  running_client = nullptr;
  tracking_.FinishRunning(client_, out_);
}

void Tracking::FinishRunning(ClientState& client, resp::Writer& out) {
  std::vector<std::optional<std::string>>& pending = running_pending;
  if (pending.empty()) return;
  std::lock_guard lock(mu_);
  // Sent as Send sends them, but its own messages go to out, after the command's reply.
  for (const std::optional<std::string>& key : pending) {
    std::string payload;
    if (key) {
      payload = "*1\r\n";
      AppendBulk(&payload, *key);
    } else {
      payload = NullOf(client);
    }
    self_out_ = out.out();
    self_client_ = &client;
    Send(client, payload);
    self_out_ = nullptr;
    self_client_ = nullptr;
  }
  pending.clear();
}

size_t Tracking::total_keys() const {
  std::lock_guard lock(mu_);
  return table_.size();
}

size_t Tracking::total_items() const {
  std::lock_guard lock(mu_);
  return items_;
}

size_t Tracking::total_prefixes() const {
  std::lock_guard lock(mu_);
  return prefixes_.size();
}

}  // namespace ordis::server
