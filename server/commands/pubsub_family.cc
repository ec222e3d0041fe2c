// Pub/sub commands: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE SSUBSCRIBE SUNSUBSCRIBE PUBLISH
// SPUBLISH PUBSUB. The subscriptions and the delivery live in command/pubsub.h.
#include <optional>
#include <string>
#include <vector>

#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/families.h"

namespace ordis::server {
namespace {

// SUBSCRIBE channel [channel ...]
void CmdSubscribe(CommandContext& ctx) {
  ctx.services.pubsub.Subscribe(ctx.client, SubscriptionKind::kChannel, ctx.args.subspan(1),
                                ctx.out);
}

// PSUBSCRIBE pattern [pattern ...]
void CmdPSubscribe(CommandContext& ctx) {
  ctx.services.pubsub.Subscribe(ctx.client, SubscriptionKind::kPattern, ctx.args.subspan(1),
                                ctx.out);
}

// SSUBSCRIBE shardchannel [shardchannel ...]
void CmdSSubscribe(CommandContext& ctx) {
  ctx.services.pubsub.Subscribe(ctx.client, SubscriptionKind::kShard, ctx.args.subspan(1), ctx.out);
}

// UNSUBSCRIBE [channel [channel ...]]
void CmdUnsubscribe(CommandContext& ctx) {
  ctx.services.pubsub.Unsubscribe(ctx.client, SubscriptionKind::kChannel, ctx.args.subspan(1),
                                  ctx.out);
}

// PUNSUBSCRIBE [pattern [pattern ...]]
void CmdPUnsubscribe(CommandContext& ctx) {
  ctx.services.pubsub.Unsubscribe(ctx.client, SubscriptionKind::kPattern, ctx.args.subspan(1),
                                  ctx.out);
}

// SUNSUBSCRIBE [shardchannel [shardchannel ...]]
void CmdSUnsubscribe(CommandContext& ctx) {
  ctx.services.pubsub.Unsubscribe(ctx.client, SubscriptionKind::kShard, ctx.args.subspan(1),
                                  ctx.out);
}

// PUBLISH channel message
void CmdPublish(CommandContext& ctx) {
  ctx.out.Integer(
      ctx.services.pubsub.Publish(SubscriptionKind::kChannel, ctx.args[1], ctx.args[2]));
}

// SPUBLISH shardchannel message
void CmdSPublish(CommandContext& ctx) {
  ctx.out.Integer(ctx.services.pubsub.Publish(SubscriptionKind::kShard, ctx.args[1], ctx.args[2]));
}

// PUBSUB CHANNELS [pattern] / PUBSUB SHARDCHANNELS [pattern]
void ReplyChannels(CommandContext& ctx, SubscriptionKind kind) {
  if (ctx.args.size() > 3) {
    ctx.out.Error(errors::SubcommandSyntax("pubsub", ctx.args[1]));
    return;
  }
  std::optional<std::string_view> pattern;
  if (ctx.args.size() == 3) pattern = ctx.args[2];
  const std::vector<std::string> channels = ctx.services.pubsub.Channels(kind, pattern);
  ctx.out.ArrayHeader(static_cast<int64_t>(channels.size()));
  for (const std::string& channel : channels) ctx.out.Bulk(channel);
}

void CmdPubSubChannels(CommandContext& ctx) { ReplyChannels(ctx, SubscriptionKind::kChannel); }
void CmdPubSubShardChannels(CommandContext& ctx) { ReplyChannels(ctx, SubscriptionKind::kShard); }

// PUBSUB NUMSUB [channel ...] / PUBSUB SHARDNUMSUB [shardchannel ...]: a flat array of pairs, in
// RESP3 too (Redis 7.0).
void ReplyNumSub(CommandContext& ctx, SubscriptionKind kind) {
  ctx.out.ArrayHeader(static_cast<int64_t>(2 * (ctx.args.size() - 2)));
  for (size_t i = 2; i < ctx.args.size(); ++i) {
    ctx.out.Bulk(ctx.args[i]);
    ctx.out.Integer(static_cast<int64_t>(ctx.services.pubsub.Subscribers(kind, ctx.args[i])));
  }
}

void CmdPubSubNumSub(CommandContext& ctx) { ReplyNumSub(ctx, SubscriptionKind::kChannel); }
void CmdPubSubShardNumSub(CommandContext& ctx) { ReplyNumSub(ctx, SubscriptionKind::kShard); }

// PUBSUB NUMPAT
void CmdPubSubNumPat(CommandContext& ctx) {
  ctx.out.Integer(static_cast<int64_t>(ctx.services.pubsub.Count(SubscriptionKind::kPattern)));
}

// PUBSUB HELP
void CmdPubSubHelp(CommandContext& ctx) {
  static constexpr std::string_view kHelp[] = {
      "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "CHANNELS [<pattern>]",
      "    Return the currently active channels matching a <pattern> (default: '*').",
      "NUMPAT",
      "    Return number of subscriptions to patterns.",
      "NUMSUB [<channel> ...]",
      "    Return the number of subscribers for the specified channels, excluding",
      "    pattern subscriptions(default: no channels).",
      "SHARDCHANNELS [<pattern>]",
      "    Return the currently active shard level channels matching a <pattern> (default: '*').",
      "SHARDNUMSUB [<shardchannel> ...]",
      "    Return the number of subscribers for the specified shard level channel(s)",
      "HELP",
      "    Prints this help."};
  ReplyHelp(ctx.out, kHelp);
}

}  // namespace

void RegisterPubSubFamily(CommandTable* table) {
  using namespace cmd;
  // Redis 7.0's flags; (un)subscribing is what a RESP2 subscriber may still do.
  constexpr uint32_t kSubscribing = kPubSub | kNoScript | kLoading | kStale | kSubscriberMode;
  constexpr uint32_t kPublishing = kPubSub | kLoading | kStale | kFast;
  constexpr uint32_t kIntrospection = kPubSub | kLoading | kStale;
  // One row per command.
  // clang-format off
  table->Register({
      {"subscribe", -2, kSubscribing, 0, 0, 0, CmdSubscribe, "pubsub",
       "Listen for messages published to the given channels"},
      {"unsubscribe", -1, kSubscribing, 0, 0, 0, CmdUnsubscribe, "pubsub",
       "Stop listening for messages posted to the given channels"},
      {"psubscribe", -2, kSubscribing, 0, 0, 0, CmdPSubscribe, "pubsub",
       "Listen for messages published to channels matching the given patterns"},
      {"punsubscribe", -1, kSubscribing, 0, 0, 0, CmdPUnsubscribe, "pubsub",
       "Stop listening for messages posted to channels matching the given patterns"},
      {"ssubscribe", -2, kSubscribing, 0, 0, 0, CmdSSubscribe, "pubsub",
       "Listen for messages published to the given shard channels"},
      {"sunsubscribe", -1, kSubscribing, 0, 0, 0, CmdSUnsubscribe, "pubsub",
       "Stop listening for messages posted to the given shard channels"},
      {"publish", 3, kPublishing | kMayReplicate, 0, 0, 0, CmdPublish, "pubsub", "Post a message to a channel"},
      {"spublish", 3, kPublishing | kMayReplicate, 0, 0, 0, CmdSPublish, "pubsub",
       "Post a message to a shard channel"},
      {"pubsub", -2, 0, 0, 0, 0, nullptr, "pubsub", "A container for Pub/Sub commands",
       {
           {"pubsub|channels", -2, kIntrospection, 0, 0, 0, CmdPubSubChannels, "pubsub",
            "List active channels"},
           {"pubsub|numpat", 2, kIntrospection, 0, 0, 0, CmdPubSubNumPat, "pubsub",
            "Get the count of unique patterns pattern subscriptions"},
           {"pubsub|numsub", -2, kIntrospection, 0, 0, 0, CmdPubSubNumSub, "pubsub",
            "Get the count of subscribers for channels"},
           {"pubsub|shardchannels", -2, kIntrospection, 0, 0, 0, CmdPubSubShardChannels, "pubsub",
            "List active shard channels"},
           {"pubsub|shardnumsub", -2, kIntrospection, 0, 0, 0, CmdPubSubShardNumSub, "pubsub",
            "Get the count of subscribers for shard channels"},
           {"pubsub|help", 2, kLoading | kStale, 0, 0, 0, CmdPubSubHelp, "pubsub",
            "Show helpful text about the different subcommands"},
       }},
  });
  // clang-format on
}

}  // namespace ordis::server
