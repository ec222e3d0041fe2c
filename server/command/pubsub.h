// Pub/sub: channels, patterns and shard channels with their subscribers, and the delivery of
// PUBLISH, SPUBLISH (shard channels are a namespace of their own, as in a Redis without cluster)
// and keyspace notifications to them.
//
// Every delivery and every change of subscriptions happens under one mutex, so every subscriber
// sees messages in one order (a channel's in the order they were published, whichever threads
// publish them), and a client's (un)subscribe replies fall exactly between the messages published
// before the change and after it. A message goes to each receiver's outbox (net/push_outbox.h) in
// the receiver's protocol (RESP2 arrays, RESP3 pushes) and the receiver's I/O thread is nudged: a
// publisher never waits for a subscriber, and one past the pubsub class of
// client-output-buffer-limit is closed by its thread. The client whose command publishes (PUBLISH
// to itself, the keyspace event of its own write, in RESP3) gets the message in its reply stream,
// before the command's reply, as from Redis (PubSub::Running).
//
// Thread safety: thread safe. A client's subscriptions change only on its own thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "resp/writer.h"
#include "server/command/client_state.h"
#include "server/config/config.h"
#include "server/keyspace/notifier.h"

namespace ordis::server {

enum class SubscriptionKind { kChannel, kPattern, kShard };

class PubSub final : public KeyspaceEventSink {
 public:
  explicit PubSub(const Config& config) : config_(config) {}
  PubSub(const PubSub&) = delete;
  PubSub& operator=(const PubSub&) = delete;

  // SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE: client subscribes to each name (again is a no-op), with a
  // reply for each carrying the client's count (Subscriptions::count, or its shard channels).
  void Subscribe(ClientState& client, SubscriptionKind kind,
                 std::span<const std::string_view> names, resp::Writer& out);
  // UNSUBSCRIBE, PUNSUBSCRIBE, SUNSUBSCRIBE: from each name, or without names from every
  // subscription of kind (one reply with a nil name when there is none), replying as Subscribe.
  void Unsubscribe(ClientState& client, SubscriptionKind kind,
                   std::span<const std::string_view> names, resp::Writer& out);
  // RESET (out: the messages still waiting go there first) and the connection's end (nullptr):
  // every subscription dropped, nothing replied.
  void UnsubscribeAll(ClientState& client, resp::Writer* out);

  // PUBLISH (kChannel: the channel's subscribers, then every matching pattern's) and SPUBLISH
  // (kShard): how many received it.
  int64_t Publish(SubscriptionKind kind, std::string_view channel, std::string_view message);

  // PUBSUB CHANNELS / SHARDCHANNELS: the channels of kind with subscribers, matching pattern when
  // given, in no particular order.
  std::vector<std::string> Channels(SubscriptionKind kind,
                                    std::optional<std::string_view> pattern) const;
  // PUBSUB NUMSUB / SHARDNUMSUB: channel's subscribers (patterns not counted).
  size_t Subscribers(SubscriptionKind kind, std::string_view channel) const;
  // Channels, distinct patterns (PUBSUB NUMPAT) or shard channels with subscribers (INFO).
  size_t Count(SubscriptionKind kind) const;
  // Any thread: whether client holds a subscription allowed(name, is_pattern) refuses (ACL
  // SETUSER revoking channels; shard channels are channels there).
  bool SubscribedOutside(
      const ClientState& client,
      absl::FunctionRef<bool(std::string_view name, bool is_pattern)> allowed) const;

  // KeyspaceEventSink: keyspace notifications are PUBLISHes.
  void PublishEvent(std::string_view channel, std::string_view message) override {
    Publish(SubscriptionKind::kChannel, channel, message);
  }

  // While client's command runs on this thread, replying through out: messages to client go to
  // out, after those waiting in its outbox. Restores the previous one on destruction (EXEC runs
  // commands inside its own).
  class Running {
   public:
    Running(ClientState& client, resp::OutBuffer* out);
    ~Running();
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;

   private:
    ClientState* client_;
    resp::OutBuffer* out_;
  };

 private:
  using SubscriberList = std::vector<ClientState*>;  // in subscription order
  using ChannelMap = absl::flat_hash_map<std::string, SubscriberList>;

  ChannelMap& MapOf(SubscriptionKind kind) {
    return kind == SubscriptionKind::kChannel ? channels_
           : kind == SubscriptionKind::kShard ? shard_channels_
                                              : patterns_;
  }
  const ChannelMap& MapOf(SubscriptionKind kind) const {
    return const_cast<PubSub*>(this)->MapOf(kind);
  }
  // REQUIRES(mu_). False if client was subscribed already / was not subscribed.
  bool Add(ClientState& client, SubscriptionKind kind, std::string_view name);
  bool Remove(ClientState& client, SubscriptionKind kind, std::string_view name);
  // REQUIRES(mu_). "subscribe" ch n, "punsubscribe" nil n, ...
  static void Reply(const ClientState& client, SubscriptionKind kind, bool subscribed,
                    const std::string* name, resp::Writer& out);
  // REQUIRES(mu_). The client's counts other threads read, after a change.
  static void UpdateCounts(ClientState& client);
  // REQUIRES(mu_). Messages waiting for client go to out first: they were published before
  // what follows.
  static void TakeWaiting(ClientState& client, resp::OutBuffer* out);
  // REQUIRES(mu_). One message to client: frame is its RESP2 form, whose first byte becomes '>'
  // for a RESP3 client.
  void Deliver(ClientState& client, std::string& frame, const OutputBufferLimit& limit);

  const Config& config_;
  mutable std::mutex mu_;
  ChannelMap channels_;        // GUARDED_BY(mu_)
  ChannelMap patterns_;        // GUARDED_BY(mu_)
  ChannelMap shard_channels_;  // GUARDED_BY(mu_)
  std::string frame_;          // GUARDED_BY(mu_): Publish's scratch
};

}  // namespace ordis::server
