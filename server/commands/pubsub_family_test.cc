// SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE SSUBSCRIBE SUNSUBSCRIBE PUBLISH SPUBLISH PUBSUB,
// subscriber mode, and what CLIENT, INFO and the ACL see of them, in-process. Messages to other
// clients are read from their outboxes (TestClient::TakeMessages). Every expectation was first
// checked against redis-server 7.0.15.
#include <algorithm>
#include <string>

#include "resp/out_buffer.h"
#include "server/command/client_state.h"
#include "server/commands/family_test_support.h"
#include "server/config/config.h"

namespace ordis::server::test {
namespace {

class PubSubFamilyTest : public FamilyTest {};

constexpr std::string_view kSubscriberMode =
    "ERR Can't execute '{}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
    "allowed in this context";

std::string NotInSubscriberMode(std::string_view command) {
  std::string text(kSubscriberMode);
  text.replace(text.find("{}"), 2, command);
  return text;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST_F(PubSubFamilyTest, SubscribeRepliesOncePerChannelWithTheCount) {
  EXPECT_EQ(client().RunAll({"subscribe", "a", "b"}),
            (std::vector<Reply>{Subscribed("subscribe", "a", 1), Subscribed("subscribe", "b", 2)}));
  // Again: the same count.
  EXPECT_EQ(client().RunAll({"subscribe", "a"}),
            (std::vector<Reply>{Subscribed("subscribe", "a", 2)}));
  EXPECT_EQ(
      client().RunAll({"unsubscribe", "b", "b", "zz"}),
      (std::vector<Reply>{Subscribed("unsubscribe", "b", 1), Subscribed("unsubscribe", "b", 1),
                          Subscribed("unsubscribe", "zz", 1)}));
  EXPECT_EQ(client().RunAll({"unsubscribe"}),
            (std::vector<Reply>{Subscribed("unsubscribe", "a", 0)}));
  // Nothing left: one reply with a nil channel.
  EXPECT_EQ(client().RunAll({"unsubscribe"}),
            (std::vector<Reply>{Subscribed("unsubscribe", nullptr, 0)}));
  EXPECT_EQ(Run({"get", "x"}), Nil());  // out of subscriber mode
}

TEST_F(PubSubFamilyTest, PatternsCountWithChannelsShardChannelsApart) {
  EXPECT_EQ(
      client().RunAll({"psubscribe", "a*", "a*"}),
      (std::vector<Reply>{Subscribed("psubscribe", "a*", 1), Subscribed("psubscribe", "a*", 1)}));
  EXPECT_EQ(client().RunAll({"subscribe", "ab"}),
            (std::vector<Reply>{Subscribed("subscribe", "ab", 2)}));
  EXPECT_EQ(
      client().RunAll({"ssubscribe", "s1", "s1", "s2"}),
      (std::vector<Reply>{Subscribed("ssubscribe", "s1", 1), Subscribed("ssubscribe", "s1", 1),
                          Subscribed("ssubscribe", "s2", 2)}));
  EXPECT_EQ(client().RunAll({"punsubscribe", "a*", "zz"}),
            (std::vector<Reply>{Subscribed("punsubscribe", "a*", 1),
                                Subscribed("punsubscribe", "zz", 1)}));
  EXPECT_EQ(client().RunAll({"unsubscribe"}),
            (std::vector<Reply>{Subscribed("unsubscribe", "ab", 0)}));
  // Shard channels alone keep the client in subscriber mode.
  EXPECT_EQ(Run({"get", "x"}), Err(NotInSubscriberMode("get")));
  EXPECT_EQ(client().RunAll({"unsubscribe"}),
            (std::vector<Reply>{Subscribed("unsubscribe", nullptr, 0)}));
  EXPECT_EQ(client().RunAll({"sunsubscribe", "s1"}),
            (std::vector<Reply>{Subscribed("sunsubscribe", "s1", 1)}));
  EXPECT_EQ(client().RunAll({"sunsubscribe"}),
            (std::vector<Reply>{Subscribed("sunsubscribe", "s2", 0)}));
  EXPECT_EQ(client().RunAll({"punsubscribe"}),
            (std::vector<Reply>{Subscribed("punsubscribe", nullptr, 0)}));
  EXPECT_EQ(Run({"get", "x"}), Nil());
}

TEST_F(PubSubFamilyTest, PatternsUnsubscribeInSubscriptionOrder) {
  client().RunAll({"psubscribe", "c*", "a*", "b*"});
  EXPECT_EQ(
      client().RunAll({"punsubscribe"}),
      (std::vector<Reply>{Subscribed("punsubscribe", "c*", 2), Subscribed("punsubscribe", "a*", 1),
                          Subscribed("punsubscribe", "b*", 0)}));
}

TEST_F(PubSubFamilyTest, PublishReachesChannelsThenPatterns) {
  TestClient& sub = NewClient();
  TestClient& psub = NewClient();
  sub.RunAll({"subscribe", "news"});
  psub.RunAll({"psubscribe", "n*", "*s", "x*"});
  EXPECT_EQ(Run({"publish", "news", "hello"}), Int(3));
  EXPECT_EQ(sub.TakeMessages(), (std::vector<Reply>{Message({"message", "news", "hello"})}));
  // One per matching pattern, in no particular order (Redis's dict of patterns).
  std::vector<Reply> pmessages = psub.TakeMessages();
  std::sort(pmessages.begin(), pmessages.end(),
            [](const Reply& a, const Reply& b) { return a.elements[1].str < b.elements[1].str; });
  EXPECT_EQ(pmessages, (std::vector<Reply>{Message({"pmessage", "*s", "news", "hello"}),
                                           Message({"pmessage", "n*", "news", "hello"})}));
  EXPECT_EQ(Run({"publish", "other", "x"}), Int(0));
  EXPECT_EQ(sub.TakeMessages(), std::vector<Reply>{});
  // Binary-safe, empty messages included, in publish order.
  const std::string binary("a\0b\r\n", 5);
  EXPECT_EQ(Run({"publish", "news", binary}), Int(3));
  EXPECT_EQ(Run({"publish", "news", ""}), Int(3));
  EXPECT_EQ(sub.TakeMessages(), (std::vector<Reply>{Message({"message", "news", binary}),
                                                    Message({"message", "news", ""})}));
}

TEST_F(PubSubFamilyTest, EachSubscriptionOfAClientCountsAsAReceiver) {
  TestClient& sub = NewClient();
  sub.RunAll({"subscribe", "news"});
  sub.RunAll({"psubscribe", "*"});
  EXPECT_EQ(Run({"publish", "news", "m"}), Int(2));
  EXPECT_EQ(sub.TakeMessages(), (std::vector<Reply>{Message({"message", "news", "m"}),
                                                    Message({"pmessage", "*", "news", "m"})}));
}

TEST_F(PubSubFamilyTest, ShardChannelsAreANamespaceOfTheirOwn) {
  TestClient& shard = NewClient();
  TestClient& plain = NewClient();
  shard.RunAll({"ssubscribe", "s"});
  plain.RunAll({"subscribe", "s"});
  plain.RunAll({"psubscribe", "*"});
  EXPECT_EQ(Run({"spublish", "s", "m"}), Int(1));
  EXPECT_EQ(shard.TakeMessages(), (std::vector<Reply>{Message({"smessage", "s", "m"})}));
  EXPECT_EQ(plain.TakeMessages(), std::vector<Reply>{});
  EXPECT_EQ(Run({"publish", "s", "p"}), Int(2));
  EXPECT_EQ(shard.TakeMessages(), std::vector<Reply>{});
  EXPECT_EQ(Run({"pubsub", "shardchannels"}), Strings({"s"}));
  EXPECT_EQ(Run({"pubsub", "shardnumsub", "s", "t"}),
            Array({Bulk("s"), Int(1), Bulk("t"), Int(0)}));
  EXPECT_EQ(Run({"pubsub", "numsub", "s"}), Array({Bulk("s"), Int(1)}));
}

TEST_F(PubSubFamilyTest, Resp3RepliesArePushesAndOwnMessagesPrecedeTheReply) {
  EXPECT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(client().RunAll({"subscribe", "ch"}),
            (std::vector<Reply>{Subscribed("subscribe", "ch", 1, /*resp3=*/true)}));
  // Any command runs in RESP3; a message the command publishes to its own client comes first.
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
  EXPECT_EQ(client().RunAll({"publish", "ch", "hi"}),
            (std::vector<Reply>{PushMessage({"message", "ch", "hi"}), Int(1)}));
  // Messages from others wait in the outbox, as pushes.
  TestClient& other = NewClient();
  EXPECT_EQ(other.Run({"publish", "ch", "yo"}), Int(1));
  EXPECT_EQ(client().TakeMessages(), (std::vector<Reply>{PushMessage({"message", "ch", "yo"})}));
  EXPECT_EQ(client().RunAll({"unsubscribe"}),
            (std::vector<Reply>{Subscribed("unsubscribe", "ch", 0, true)}));
  EXPECT_EQ(client().RunAll({"unsubscribe"}),
            (std::vector<Reply>{Subscribed("unsubscribe", nullptr, 0, true)}));
}

TEST_F(PubSubFamilyTest, WaitingMessagesComeBeforeASubscriptionReply) {
  TestClient& sub = NewClient();
  sub.RunAll({"subscribe", "a"});
  EXPECT_EQ(Run({"publish", "a", "1"}), Int(1));
  // Published before the change: the reply follows it.
  EXPECT_EQ(
      sub.RunAll({"unsubscribe", "a"}),
      (std::vector<Reply>{Message({"message", "a", "1"}), Subscribed("unsubscribe", "a", 0)}));
  EXPECT_EQ(Run({"publish", "a", "2"}), Int(0));
  EXPECT_EQ(sub.TakeMessages(), std::vector<Reply>{});
}

TEST_F(PubSubFamilyTest, SubscriberModeAllowsOnlySubscriptionsPingQuitReset) {
  client().RunAll({"subscribe", "a"});
  EXPECT_EQ(Run({"get", "x"}), Err(NotInSubscriberMode("get")));
  EXPECT_EQ(Run({"publish", "a", "m"}), Err(NotInSubscriberMode("publish")));
  EXPECT_EQ(Run({"client", "list"}), Err(NotInSubscriberMode("client|list")));
  EXPECT_EQ(Run({"pubsub", "numpat"}), Err(NotInSubscriberMode("pubsub|numpat")));
  EXPECT_EQ(Run({"multi"}), Err(NotInSubscriberMode("multi")));
  EXPECT_EQ(Run({"hello", "3"}), Err(NotInSubscriberMode("hello")));
  // Unknown commands and bad arities are refused as always.
  EXPECT_EQ(Run({"nosuch"}), Err("ERR unknown command 'nosuch', with args beginning with: "));
  EXPECT_EQ(Run({"ping"}), Strings({"pong", ""}));
  EXPECT_EQ(Run({"ping", "x"}), Strings({"pong", "x"}));
  EXPECT_EQ(Run({"reset"}), Status("RESET"));
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
  EXPECT_EQ(Run({"pubsub", "numsub", "a"}), Array({Bulk("a"), Int(0)}));
}

TEST_F(PubSubFamilyTest, ResetSendsWaitingMessagesThenUnsubscribesAll) {
  TestClient& sub = NewClient();
  sub.RunAll({"subscribe", "a", "b"});
  sub.RunAll({"psubscribe", "p*"});
  sub.RunAll({"ssubscribe", "s"});
  EXPECT_EQ(Run({"publish", "a", "1"}), Int(1));
  EXPECT_EQ(sub.RunAll({"reset"}),
            (std::vector<Reply>{Message({"message", "a", "1"}), Status("RESET")}));
  EXPECT_EQ(Run({"publish", "a", "2"}), Int(0));
  EXPECT_EQ(Run({"pubsub", "numpat"}), Int(0));
  EXPECT_EQ(Run({"pubsub", "shardchannels"}), Strings({}));
  EXPECT_EQ(sub.Run({"get", "x"}), Nil());
}

TEST_F(PubSubFamilyTest, ClosingAClientUnsubscribesIt) {
  TestClient& sub = NewClient();
  sub.RunAll({"subscribe", "a"});
  sub.RunAll({"psubscribe", "a*"});
  EXPECT_EQ(Run({"publish", "a", "x"}), Int(2));
  CloseClient(sub);
  EXPECT_EQ(Run({"publish", "a", "x"}), Int(0));
  EXPECT_EQ(Run({"pubsub", "numpat"}), Int(0));
  EXPECT_EQ(Run({"pubsub", "channels"}), Strings({}));
}

TEST_F(PubSubFamilyTest, PubSubIntrospection) {
  TestClient& one = NewClient();
  TestClient& two = NewClient();
  one.RunAll({"subscribe", "news.tech", "news.art", "weather"});
  two.RunAll({"subscribe", "news.tech"});
  two.RunAll({"psubscribe", "news.*", "w*"});
  NewClient().RunAll({"psubscribe", "news.*"});
  EXPECT_EQ(Sorted(Run({"pubsub", "channels"}).Strings()),
            (std::vector<std::string>{"news.art", "news.tech", "weather"}));
  EXPECT_EQ(Sorted(Run({"pubsub", "channels", "news.*"}).Strings()),
            (std::vector<std::string>{"news.art", "news.tech"}));
  EXPECT_EQ(Run({"pubsub", "channels", "x*"}), Strings({}));
  EXPECT_EQ(Run({"pubsub", "numsub", "news.tech", "weather", "news.*", "none"}),
            Array({Bulk("news.tech"), Int(2), Bulk("weather"), Int(1), Bulk("news.*"), Int(0),
                   Bulk("none"), Int(0)}));
  EXPECT_EQ(Run({"pubsub", "numsub"}), Array({}));
  EXPECT_EQ(Run({"pubsub", "numpat"}), Int(2));  // distinct patterns
  EXPECT_EQ(Run({"pubsub", "channels", "a", "b"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'channels'. Try PUBSUB "
                "HELP."));
  EXPECT_EQ(Run({"pubsub", "numpat", "x"}),
            Err("ERR wrong number of arguments for 'pubsub|numpat' command"));
  EXPECT_EQ(Run({"pubsub", "x"}), Err("ERR unknown subcommand 'x'. Try PUBSUB HELP."));
  EXPECT_EQ(Run({"pubsub"}), Err("ERR wrong number of arguments for 'pubsub' command"));
  EXPECT_EQ(Run({"publish", "a"}), Err("ERR wrong number of arguments for 'publish' command"));
  EXPECT_EQ(Run({"subscribe"}), Err("ERR wrong number of arguments for 'subscribe' command"));
  EXPECT_EQ(Run({"pubsub", "help"}).elements.size(), 14u);
  EXPECT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(Run({"pubsub", "numsub", "weather"}), Array({Bulk("weather"), Int(1)}));
}

TEST_F(PubSubFamilyTest, ClientListAndInfoCountSubscriptions) {
  TestClient& sub = NewClient();
  sub.RunAll({"subscribe", "a", "b"});
  sub.RunAll({"psubscribe", "p*"});
  sub.RunAll({"ssubscribe", "s"});
  const std::string list = Run({"client", "list"}).str;
  EXPECT_NE(list.find("flags=P db=0 sub=2 psub=1 ssub=1 "), std::string::npos) << list;
  EXPECT_NE(list.find("flags=N db=0 sub=0 psub=0 ssub=0 "), std::string::npos) << list;
  const std::string pubsub_type = Run({"client", "list", "type", "pubsub"}).str;
  EXPECT_NE(pubsub_type.find("flags=P"), std::string::npos);
  EXPECT_EQ(pubsub_type.find("flags=N"), std::string::npos);
  const std::string normal_type = Run({"client", "list", "type", "normal"}).str;
  EXPECT_EQ(normal_type.find("flags=P"), std::string::npos);
  const std::string info = Run({"info", "stats"}).str;
  EXPECT_NE(info.find("\r\npubsub_channels:2\r\npubsub_patterns:1\r\npubsubshard_channels:1\r\n"),
            std::string::npos)
      << info;
  EXPECT_EQ(Run({"client", "kill", "type", "pubsub"}), Int(1));
  EXPECT_TRUE(sub.state().kill_requested.load());
}

TEST_F(PubSubFamilyTest, TransactionsQueuePublishAndSubscribe) {
  TestClient& sub = NewClient();
  sub.RunAll({"subscribe", "a"});
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"publish", "a", "1"}), Status("QUEUED"));
  EXPECT_EQ(Run({"subscribe", "b"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Int(1), Array({Bulk("subscribe"), Bulk("b"), Int(1)})}));
  EXPECT_EQ(Run({"get", "x"}), Err(NotInSubscriberMode("get")));
  EXPECT_EQ(sub.TakeMessages(), (std::vector<Reply>{Message({"message", "a", "1"})}));
}

TEST_F(PubSubFamilyTest, AclChannelPermissions) {
  EXPECT_EQ(Run({"acl", "setuser", "u", "on", "nopass", "+@all", "~*", "resetchannels", "&a*"}),
            Ok());
  EXPECT_EQ(Run({"acl", "dryrun", "u", "publish", "b", "x"}),
            Bulk("This user has no permissions to access the 'b' channel"));
  EXPECT_EQ(Run({"acl", "dryrun", "u", "publish", "ab", "x"}), Ok());
  EXPECT_EQ(Run({"acl", "dryrun", "u", "subscribe", "ab", "zz", "q"}),
            Bulk("This user has no permissions to access the 'zz' channel"));
  // A pattern passes only an equal ACL pattern.
  EXPECT_EQ(Run({"acl", "dryrun", "u", "psubscribe", "a*"}), Ok());
  EXPECT_EQ(Run({"acl", "dryrun", "u", "psubscribe", "ab*"}),
            Bulk("This user has no permissions to access the 'ab*' channel"));
  // Unsubscribing and introspection are never checked.
  EXPECT_EQ(Run({"acl", "dryrun", "u", "unsubscribe", "zz"}), Ok());
  EXPECT_EQ(Run({"acl", "dryrun", "u", "pubsub", "numsub", "zz"}), Ok());
  EXPECT_EQ(Run({"acl", "dryrun", "u", "spublish", "zz", "x"}),
            Bulk("This user has no permissions to access the 'zz' channel"));
  EXPECT_EQ(Run({"acl", "dryrun", "u", "ssubscribe", "zz"}),
            Bulk("This user has no permissions to access the 'zz' channel"));

  TestClient& u = NewClient();
  EXPECT_EQ(u.Run({"auth", "u", "x"}), Ok());
  const Reply denied =
      Err("NOPERM this user has no permissions to access one of the channels used as arguments");
  EXPECT_EQ(u.Run({"publish", "zz", "x"}), denied);
  EXPECT_EQ(u.Run({"subscribe", "ab", "zz"}), denied);
  EXPECT_EQ(u.Run({"pubsub", "numsub", "ab"}), Array({Bulk("ab"), Int(0)}));  // nothing subscribed
  EXPECT_EQ(u.Run({"publish", "ab", "x"}), Int(0));
  const Reply log = Run({"acl", "log", "1"});
  ASSERT_EQ(log.elements.size(), 1u);
  const std::vector<Reply>& entry = log.elements[0].elements;
  EXPECT_EQ(entry[0], Bulk("count"));
  EXPECT_EQ(entry[1], Int(2));
  EXPECT_EQ(entry[3], Bulk("channel"));
  EXPECT_EQ(entry[7], Bulk("zz"));
  const std::string stats = Run({"info", "stats"}).str;
  EXPECT_NE(stats.find("acl_access_denied_channel:2\r\n"), std::string::npos) << stats;
}

TEST_F(PubSubFamilyTest, RevokingChannelsClosesTheSubscribersTheyNoLongerAllow) {
  EXPECT_EQ(
      Run({"acl", "setuser", "u", "on", "nopass", "+@all", "~*", "resetchannels", "&a*", "&b"}),
      Ok());
  TestClient& channel = NewClient();
  TestClient& pattern = NewClient();
  TestClient& other = NewClient();
  TestClient& idle = NewClient();
  for (TestClient* c : {&channel, &pattern, &other, &idle})
    EXPECT_EQ(c->Run({"auth", "u", "x"}), Ok());
  channel.RunAll({"subscribe", "ab"});
  pattern.RunAll({"psubscribe", "a*"});
  other.RunAll({"subscribe", "b"});
  EXPECT_EQ(Run({"acl", "setuser", "u", "resetchannels", "&ab"}), Ok());
  EXPECT_FALSE(channel.state().kill_requested.load());  // ab still matches
  EXPECT_TRUE(pattern.state().kill_requested.load());   // a* is no longer an ACL pattern of u
  EXPECT_TRUE(other.state().kill_requested.load());
  EXPECT_FALSE(idle.state().kill_requested.load());  // subscribed to nothing
}

TEST_F(PubSubFamilyTest, ASubscriberPastItsOutputLimitIsDroppedNotThePublisher) {
  EXPECT_EQ(Run({"config", "set", "client-output-buffer-limit", "pubsub 1kb 0 0"}), Ok());
  TestClient& slow = NewClient();
  TestClient& fast = NewClient();
  slow.RunAll({"subscribe", "ch"});
  fast.RunAll({"subscribe", "ch"});
  const std::string message(300, 'm');
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(Run({"publish", "ch", message}), Int(2));
    // One reads along, the other never does.
    EXPECT_EQ(fast.TakeMessages().size(), 1u);
  }
  resp::OutBuffer out;
  EXPECT_TRUE(slow.state().pushes.Take(&out));  // past its limit: its connection closes it
  EXPECT_TRUE(out.empty());
}

TEST_F(PubSubFamilyTest, CommandInfoFlagsAndCategories) {
  EXPECT_EQ(Run({"command", "info", "publish"}).elements[0].elements[2],
            Array({Status("pubsub"), Status("loading"), Status("stale"), Status("fast")}));
  EXPECT_EQ(Run({"command", "info", "subscribe"}).elements[0].elements[6],
            Array({Status("@pubsub"), Status("@slow")}));
  const Reply pubsub = Run({"command", "info", "pubsub"}).elements[0];
  for (const Reply& sub : pubsub.elements[9].elements) {
    if (sub.elements[0] == Bulk("pubsub|help")) {
      EXPECT_EQ(sub.elements[6], Array({Status("@slow")}));
    } else {
      EXPECT_EQ(sub.elements[6], Array({Status("@pubsub"), Status("@slow")})) << sub;
    }
  }
}

}  // namespace
}  // namespace ordis::server::test
