#include "server/command/pubsub.h"

#include <algorithm>

#include "base/glob.h"
#include "base/number.h"
#include "resp/writer.h"

namespace ordis::server {
namespace {

// The command running on this thread, whose client gets its own messages in its reply stream.
thread_local ClientState* running_client = nullptr;
thread_local resp::OutBuffer* running_out = nullptr;

// The maps' heterogeneous lookups take absl's string_view (a type of its own in Debian's abseil).
absl::string_view Key(std::string_view s) { return {s.data(), s.size()}; }

std::string_view Verb(SubscriptionKind kind, bool subscribed) {
  switch (kind) {
    case SubscriptionKind::kChannel:
      return subscribed ? "subscribe" : "unsubscribe";
    case SubscriptionKind::kPattern:
      return subscribed ? "psubscribe" : "punsubscribe";
    case SubscriptionKind::kShard:
      break;
  }
  return subscribed ? "ssubscribe" : "sunsubscribe";
}

}  // namespace

PubSub::Running::Running(ClientState& client, resp::OutBuffer* out)
    : client_(running_client), out_(running_out) {
  running_client = &client;
  running_out = out;
}

PubSub::Running::~Running() {
  running_client = client_;
  running_out = out_;
}

bool PubSub::Add(ClientState& client, SubscriptionKind kind, std::string_view name) {
  Subscriptions& subs = client.subscriptions;
  switch (kind) {
    case SubscriptionKind::kChannel:
      if (!subs.channels.emplace(name).second) return false;
      break;
    case SubscriptionKind::kShard:
      if (!subs.shard.emplace(name).second) return false;
      break;
    case SubscriptionKind::kPattern:
      if (std::find(subs.patterns.begin(), subs.patterns.end(), name) != subs.patterns.end()) {
        return false;
      }
      subs.patterns.emplace_back(name);
      break;
  }
  MapOf(kind)[Key(name)].push_back(&client);
  return true;
}

bool PubSub::Remove(ClientState& client, SubscriptionKind kind, std::string_view name) {
  Subscriptions& subs = client.subscriptions;
  switch (kind) {
    case SubscriptionKind::kChannel: {
      auto it = subs.channels.find(Key(name));
      if (it == subs.channels.end()) return false;
      subs.channels.erase(it);
      break;
    }
    case SubscriptionKind::kShard: {
      auto it = subs.shard.find(Key(name));
      if (it == subs.shard.end()) return false;
      subs.shard.erase(it);
      break;
    }
    case SubscriptionKind::kPattern: {
      auto it = std::find(subs.patterns.begin(), subs.patterns.end(), name);
      if (it == subs.patterns.end()) return false;
      subs.patterns.erase(it);
      break;
    }
  }
  ChannelMap& map = MapOf(kind);
  auto entry = map.find(Key(name));
  SubscriberList& list = entry->second;
  list.erase(std::find(list.begin(), list.end(), &client));
  if (list.empty()) map.erase(entry);
  return true;
}

void PubSub::Reply(const ClientState& client, SubscriptionKind kind, bool subscribed,
                   const std::string* name, resp::Writer& out) {
  const Subscriptions& subs = client.subscriptions;
  out.PushHeader(3);
  out.Bulk(Verb(kind, subscribed));
  if (name != nullptr) {
    out.Bulk(*name);
  } else {
    out.NullBulk();
  }
  out.Integer(
      static_cast<int64_t>(kind == SubscriptionKind::kShard ? subs.shard.size() : subs.count()));
}

void PubSub::UpdateCounts(ClientState& client) {
  const Subscriptions& subs = client.subscriptions;
  client.sub_count.store(static_cast<int>(subs.channels.size()), std::memory_order_relaxed);
  client.psub_count.store(static_cast<int>(subs.patterns.size()), std::memory_order_relaxed);
  client.ssub_count.store(static_cast<int>(subs.shard.size()), std::memory_order_relaxed);
  client.pubsub.store(subs.any(), std::memory_order_relaxed);
}

void PubSub::TakeWaiting(ClientState& client, resp::OutBuffer* out) {
  // A client past its output limit takes nothing: the nudge that marked it closes it.
  client.pushes.Take(out);
}

void PubSub::Subscribe(ClientState& client, SubscriptionKind kind,
                       std::span<const std::string_view> names, resp::Writer& out) {
  std::lock_guard lock(mu_);
  TakeWaiting(client, out.out());
  for (std::string_view name : names) {
    Add(client, kind, name);
    const std::string copy(name);
    Reply(client, kind, /*subscribed=*/true, &copy, out);
  }
  UpdateCounts(client);
}

void PubSub::Unsubscribe(ClientState& client, SubscriptionKind kind,
                         std::span<const std::string_view> names, resp::Writer& out) {
  std::lock_guard lock(mu_);
  TakeWaiting(client, out.out());
  if (names.empty()) {
    // Every subscription of the kind, in the client's order (hash order for channels, as
    // Redis's dict; subscription order for patterns, as its list).
    std::vector<std::string> all;
    const Subscriptions& subs = client.subscriptions;
    switch (kind) {
      case SubscriptionKind::kChannel:
        all.assign(subs.channels.begin(), subs.channels.end());
        break;
      case SubscriptionKind::kShard:
        all.assign(subs.shard.begin(), subs.shard.end());
        break;
      case SubscriptionKind::kPattern:
        all = subs.patterns;
        break;
    }
    for (const std::string& name : all) {
      Remove(client, kind, name);
      Reply(client, kind, /*subscribed=*/false, &name, out);
    }
    if (all.empty()) Reply(client, kind, /*subscribed=*/false, nullptr, out);
  } else {
    for (std::string_view name : names) {
      Remove(client, kind, name);
      const std::string copy(name);
      Reply(client, kind, /*subscribed=*/false, &copy, out);
    }
  }
  UpdateCounts(client);
}

void PubSub::UnsubscribeAll(ClientState& client, resp::Writer* out) {
  std::lock_guard lock(mu_);
  if (out != nullptr) TakeWaiting(client, out->out());
  Subscriptions& subs = client.subscriptions;
  if (!subs.any()) return;
  for (const std::string& name :
       std::vector<std::string>(subs.channels.begin(), subs.channels.end())) {
    Remove(client, SubscriptionKind::kChannel, name);
  }
  for (const std::string& name : std::vector<std::string>(subs.shard.begin(), subs.shard.end())) {
    Remove(client, SubscriptionKind::kShard, name);
  }
  while (!subs.patterns.empty()) {
    const std::string name = subs.patterns.back();
    Remove(client, SubscriptionKind::kPattern, name);
  }
  UpdateCounts(client);
}

void PubSub::Deliver(ClientState& client, std::string& frame, const OutputBufferLimit& limit) {
  frame[0] = client.protocol.load(std::memory_order_relaxed) == 3 ? '>' : '*';
  if (&client == running_client) {
    // Its own command published this: the message goes before the command's reply, after
    // what was published before it.
    if (!client.pushes.Take(running_out)) running_out->Append(frame);
    return;
  }
  ConnectionHost* host =
      client.pushes.Add(frame, client.output_buffer_bytes.load(std::memory_order_relaxed), limit);
  if (host != nullptr) host->DeliverPushes(client.id);
}

int64_t PubSub::Publish(SubscriptionKind kind, std::string_view channel, std::string_view message) {
  const OutputBufferLimit limit = config_.pubsub_output_limit();
  int64_t receivers = 0;
  std::lock_guard lock(mu_);
  const ChannelMap& map = MapOf(kind);
  if (auto it = map.find(Key(channel)); it != map.end()) {
    frame_.assign("*3\r\n");
    resp::AppendBulk(&frame_, kind == SubscriptionKind::kShard ? "smessage" : "message");
    resp::AppendBulk(&frame_, channel);
    resp::AppendBulk(&frame_, message);
    for (ClientState* client : it->second) Deliver(*client, frame_, limit);
    receivers += static_cast<int64_t>(it->second.size());
  }
  if (kind != SubscriptionKind::kChannel) return receivers;
  for (const auto& [pattern, clients] : patterns_) {
    if (!GlobMatch(pattern, channel)) continue;
    frame_.assign("*4\r\n");
    resp::AppendBulk(&frame_, "pmessage");
    resp::AppendBulk(&frame_, pattern);
    resp::AppendBulk(&frame_, channel);
    resp::AppendBulk(&frame_, message);
    for (ClientState* client : clients) Deliver(*client, frame_, limit);
    receivers += static_cast<int64_t>(clients.size());
  }
  return receivers;
}

std::vector<std::string> PubSub::Channels(SubscriptionKind kind,
                                          std::optional<std::string_view> pattern) const {
  std::vector<std::string> out;
  std::lock_guard lock(mu_);
  for (const auto& [name, clients] : MapOf(kind)) {
    if (!pattern || GlobMatch(*pattern, name)) out.push_back(name);
  }
  return out;
}

size_t PubSub::Subscribers(SubscriptionKind kind, std::string_view channel) const {
  std::lock_guard lock(mu_);
  const ChannelMap& map = MapOf(kind);
  auto it = map.find(Key(channel));
  return it == map.end() ? 0 : it->second.size();
}

size_t PubSub::Count(SubscriptionKind kind) const {
  std::lock_guard lock(mu_);
  return MapOf(kind).size();
}

bool PubSub::SubscribedOutside(
    const ClientState& client,
    absl::FunctionRef<bool(std::string_view name, bool is_pattern)> allowed) const {
  // Under the lock: the client's own thread changes its subscriptions only while holding it.
  std::lock_guard lock(mu_);
  const Subscriptions& subs = client.subscriptions;
  for (const std::string& c : subs.channels) {
    if (!allowed(c, false)) return true;
  }
  for (const std::string& c : subs.shard) {
    if (!allowed(c, false)) return true;
  }
  for (const std::string& p : subs.patterns) {
    if (!allowed(p, true)) return true;
  }
  return false;
}

}  // namespace ordis::server
