// Keyspace notifications (notify-keyspace-events), in-process: the classes, the two channels, the
// keyspace's own events (expired, evicted, new) and a sample of every family's, read from a
// subscriber's outbox. Every expectation was first checked against redis-server 7.0.15
// (redis-compat/test_notifications.py covers every command through the real binary).
#include <mutex>
#include <string>
#include <vector>

#include "base/clock.h"
#include "server/commands/family_test_support.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server::test {
namespace {

class NotificationsTest : public FamilyTest {
 protected:
  NotificationsTest() : sub_(NewClient()) { sub_.RunAll({"psubscribe", "__key*__:*"}); }

  // The events published since the last call, as "event key" from keyspace-channel messages
  // ("event key@db" outside db 0), each checked to be followed by its keyevent twin when both
  // channels are on.
  std::vector<std::string> Published() {
    std::vector<std::string> out;
    const std::vector<Reply> messages = sub_.TakeMessages();
    for (size_t i = 0; i < messages.size(); ++i) {
      const std::vector<std::string> m = messages[i].Strings();
      EXPECT_EQ(m.size(), 4u);
      const std::string& channel = m[2];
      const size_t colon = channel.find("__:");
      const std::string db = channel.substr(channel.find('@') + 1, colon - channel.find('@') - 1);
      const std::string name = channel.substr(colon + 3);
      if (channel.starts_with("__keyspace@")) {
        out.push_back(m[3] + " " + name + (db == "0" ? "" : "@" + db));
      } else {
        out.push_back("E:" + name + " " + m[3] + (db == "0" ? "" : "@" + db));
      }
    }
    return out;
  }

  TestClient& sub_;
};

using Events = std::vector<std::string>;

TEST_F(NotificationsTest, OffByDefault) {
  EXPECT_EQ(Run({"config", "get", "notify-keyspace-events"}),
            Strings({"notify-keyspace-events", ""}));
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"del", "k"}), Int(1));
  EXPECT_EQ(Published(), Events{});
}

TEST_F(NotificationsTest, BothChannelsInRedisOrder) {
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "KEA"}), Ok());
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(sub_.TakeMessages(),
            (std::vector<Reply>{Message({"pmessage", "__key*__:*", "__keyspace@0__:k", "set"}),
                                Message({"pmessage", "__key*__:*", "__keyevent@0__:set", "k"})}));
  EXPECT_EQ(Run({"select", "3"}), Ok());
  EXPECT_EQ(Run({"incrby", "n", "2"}), Int(2));
  EXPECT_EQ(Published(), (Events{"incrby n@3", "E:incrby n@3"}));
}

TEST_F(NotificationsTest, OneChannelAndClassFilters) {
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "K$"}), Ok());
  EXPECT_EQ(Run({"config", "get", "notify-keyspace-events"}),
            Strings({"notify-keyspace-events", "$K"}));
  EXPECT_EQ(Run({"set", "k", "v", "ex", "100"}), Ok());  // "expire" is generic: filtered
  EXPECT_EQ(Run({"del", "k"}), Int(1));
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Published(), (Events{"set k"}));
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "El"}), Ok());
  EXPECT_EQ(Run({"rpop", "l"}), Bulk("a"));
  EXPECT_EQ(Published(), (Events{"E:rpop l"}));
  // A class without a channel, or a channel without a class, publishes nothing.
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "g$"}), Ok());
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "KE"}), Ok());
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Published(), Events{});
}

TEST_F(NotificationsTest, ConfigSetRefusesUnknownClasses) {
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "KEQ"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - "
                "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."));
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "Ag$lshzxeKEtmdn"}), Ok());
  // Redis writes no n beside A, but it is on.
  EXPECT_EQ(Run({"config", "get", "notify-keyspace-events"}),
            Strings({"notify-keyspace-events", "AKEm"}));
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Published(), (Events{"new k", "E:new k", "set k", "E:set k"}));
}

TEST_F(NotificationsTest, NewKeysComeFirst) {
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "KAn"}), Ok());
  EXPECT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"set", "a", "2"}), Ok());
  EXPECT_EQ(Run({"set", "b", "2"}), Ok());
  EXPECT_EQ(Run({"rename", "a", "b"}), Ok());  // b goes first: added anew
  EXPECT_EQ(Run({"copy", "b", "c", "db", "1"}), Int(1));
  EXPECT_EQ(Published(), (Events{"new a", "set a", "set a", "new b", "set b", "new b",
                                 "rename_from a", "rename_to b", "new c@1", "copy_to c@1"}));
}

TEST_F(NotificationsTest, CollectionsRaiseTheirEventsThenDel) {
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "KA"}), Ok());
  EXPECT_EQ(Run({"rpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"lmove", "l", "m", "right", "left"}), Bulk("a"));
  EXPECT_EQ(Published(), (Events{"rpush l", "lpush m", "rpop l", "del l"}));
  EXPECT_EQ(Run({"hset", "h", "f", "v"}), Int(1));
  EXPECT_EQ(Run({"hdel", "h", "nope"}), Int(0));
  EXPECT_EQ(Run({"hdel", "h", "f"}), Int(1));
  EXPECT_EQ(Published(), (Events{"hset h", "hdel h", "del h"}));
  EXPECT_EQ(Run({"sadd", "s", "a"}), Int(1));
  EXPECT_EQ(Run({"smove", "s", "t", "a"}), Int(1));
  EXPECT_EQ(Published(), (Events{"sadd s", "srem s", "del s", "sadd t"}));
  EXPECT_EQ(Run({"zadd", "z", "1", "a"}), Int(1));
  EXPECT_EQ(Run({"zadd", "z", "incr", "2", "a"}), Bulk("3"));
  EXPECT_EQ(Run({"zadd", "z", "xx", "1", "nope"}), Int(0));
  EXPECT_EQ(Run({"zadd", "none", "xx", "1", "a"}), Int(0));
  EXPECT_EQ(Run({"zunionstore", "d", "1", "z"}), Int(1));
  EXPECT_EQ(Run({"zinterstore", "d", "2", "z", "missing"}), Int(0));
  EXPECT_EQ(Published(), (Events{"zadd z", "zincr z", "zunionstore d", "del d"}));
}

TEST_F(NotificationsTest, ExpiredLazilyAndActively) {
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "KEx"}), Ok());
  EXPECT_EQ(Run({"set", "lazy", "v", "px", "1"}), Ok());
  EXPECT_EQ(Run({"set", "active", "v", "px", "1"}), Ok());
  {
    // Aged past their TTL without a sleep: the test moves the expiry, not the clock.
    std::unique_lock lock(keyspace().mu());
    (void)keyspace().SetExpire(0, "lazy", keyspace().FindAny(0, "lazy"), /*expire_at_ms=*/1);
    (void)keyspace().SetExpire(0, "active", keyspace().FindAny(0, "active"), 1);
  }
  EXPECT_EQ(Run({"set", "lazy", "w", "nx"}), Ok());  // a write deletes it on sight
  EXPECT_EQ(Published(), (Events{"expired lazy", "E:expired lazy"}));
  {
    std::unique_lock lock(keyspace().mu());
    bool more = false;
    EXPECT_EQ(keyspace().ExpireDueKeys(NowMs(), 16, &more), 1u);
  }
  EXPECT_EQ(Published(), (Events{"expired active", "E:expired active"}));
}

TEST_F(NotificationsTest, Evicted) {
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "Ee"}), Ok());
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  {
    std::unique_lock lock(keyspace().mu());
    EXPECT_TRUE(keyspace().Evict(0, "k", /*only_with_ttl=*/false));
  }
  EXPECT_EQ(Published(), (Events{"E:evicted k"}));
}

TEST_F(NotificationsTest, KeyMissOnReadsOnly) {
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "Em"}), Ok());
  EXPECT_EQ(Run({"get", "a"}), Nil());
  EXPECT_EQ(Run({"mget", "b", "c"}), Array({Nil(), Nil()}));
  EXPECT_EQ(Run({"type", "d"}), Status("none"));
  EXPECT_EQ(Run({"incr", "e"}), Int(1));  // a write's lookup is no miss
  EXPECT_EQ(Run({"getdel", "f"}), Nil());
  EXPECT_EQ(Published(),
            (Events{"E:keymiss a", "E:keymiss b", "E:keymiss c", "E:keymiss d", "E:keymiss f"}));
}

TEST_F(NotificationsTest, Resp3SubscriberGetsItsOwnEventBeforeTheReply) {
  TestClient& self = NewClient();
  EXPECT_EQ(self.Run({"hello", "3"}).type, Reply::Type::kMap);
  self.RunAll({"subscribe", "__keyevent@0__:set"});
  EXPECT_EQ(Run({"config", "set", "notify-keyspace-events", "E$"}), Ok());
  EXPECT_EQ(self.RunAll({"set", "k", "v"}),
            (std::vector<Reply>{PushMessage({"message", "__keyevent@0__:set", "k"}), Ok()}));
}

}  // namespace
}  // namespace ordis::server::test
