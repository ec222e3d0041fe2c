// MONITOR, CLIENT TRACKING | CACHING | GETREDIR | TRACKINGINFO | PAUSE | UNPAUSE | SETINFO |
// NO-TOUCH and RESET, in-process. Messages to other clients (invalidations, monitor lines) are read
// from their outboxes (TestClient::TakeMessages). Every expectation but SETINFO's and NO-TOUCH's
// (Redis 7.2 commands) was first checked against redis-server 7.0.15.
#include <regex>
#include <string>
#include <vector>

#include "server/command/client_state.h"
#include "server/command/monitor.h"
#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class ClientCommandsTest : public FamilyTest {};

Reply Invalidate(std::vector<std::string> keys) {
  Reply r = Array({Bulk("invalidate"), Strings(std::move(keys))});
  r.type = Reply::Type::kPush;
  return r;
}

Reply Flushed() {
  Reply r = Array({Bulk("invalidate"), Nil()});
  r.type = Reply::Type::kPush;
  return r;
}

TestClient& Resp3Tracking(TestClient& c, std::vector<std::string> options) {
  c.Run({"hello", "3"});
  std::vector<std::string> args = {"client", "tracking", "on"};
  args.insert(args.end(), options.begin(), options.end());
  EXPECT_EQ(c.Run(args), Ok());
  return c;
}

TEST_F(ClientCommandsTest, DefaultModeInvalidatesKeysRead) {
  TestClient& reader = Resp3Tracking(NewClient(), {});
  EXPECT_EQ(reader.Run({"get", "k"}), Nil());
  EXPECT_EQ(reader.Run({"mget", "a", "b"}), Array({Nil(), Nil()}));
  EXPECT_EQ(Run({"set", "unread", "1"}), Ok());
  EXPECT_EQ(reader.TakeMessages(), std::vector<Reply>{});
  EXPECT_EQ(Run({"mset", "k", "1", "b", "2"}), Ok());
  EXPECT_EQ(reader.TakeMessages(), (std::vector<Reply>{Invalidate({"k"}), Invalidate({"b"})}));
  // Forgotten once invalidated.
  EXPECT_EQ(Run({"set", "k", "2"}), Ok());
  EXPECT_EQ(reader.TakeMessages(), std::vector<Reply>{});
  // The reader's own change: after its reply.
  EXPECT_EQ(reader.Run({"get", "a"}), Nil());
  EXPECT_EQ(reader.RunAll({"set", "a", "1"}), (std::vector<Reply>{Ok(), Invalidate({"a"})}));
  // A flush: null, to every tracking client.
  EXPECT_EQ(Run({"flushall"}), Ok());
  EXPECT_EQ(reader.TakeMessages(), std::vector<Reply>{Flushed()});
  EXPECT_EQ(reader.RunAll({"flushdb"}), (std::vector<Reply>{Ok(), Flushed()}));
}

TEST_F(ClientCommandsTest, NoLoopAndOptInOut) {
  TestClient& c = Resp3Tracking(NewClient(), {"noloop"});
  c.Run({"get", "k"});
  EXPECT_EQ(c.RunAll({"set", "k", "1"}), std::vector<Reply>{Ok()});
  EXPECT_EQ(c.Run({"client", "tracking", "off"}), Ok());
  EXPECT_EQ(c.Run({"client", "tracking", "on", "optin"}), Ok());
  c.Run({"get", "x1"});
  EXPECT_EQ(c.Run({"client", "caching", "yes"}), Ok());
  EXPECT_EQ(c.Run({"client", "trackinginfo"}),
            Map({Bulk("flags"), Set({Bulk("on"), Bulk("optin"), Bulk("caching-yes")}),
                 Bulk("redirect"), Int(0), Bulk("prefixes"), Array({})}));
  c.Run({"get", "x2"});
  c.Run({"get", "x3"});
  EXPECT_EQ(Run({"mset", "x1", "1", "x2", "1", "x3", "1"}), Ok());
  EXPECT_EQ(c.TakeMessages(), std::vector<Reply>{Invalidate({"x2"})});
}

TEST_F(ClientCommandsTest, BroadcastSendsOneMessagePerPrefixAtTheEndOfTheTurn) {
  TestClient& c = Resp3Tracking(NewClient(), {"bcast", "prefix", "user:", "prefix", "obj:"});
  EXPECT_EQ(Run({"mset", "user:3", "a", "obj:2", "b", "other", "c", "user:1", "d"}), Ok());
  EXPECT_EQ(c.TakeMessages(),
            (std::vector<Reply>{Invalidate({"obj:2"}), Invalidate({"user:1", "user:3"})}));
  EXPECT_EQ(c.Run({"client", "trackinginfo"}),
            Map({Bulk("flags"), Set({Bulk("on"), Bulk("bcast")}), Bulk("redirect"), Int(0),
                 Bulk("prefixes"), Strings({"obj:", "user:"})}));
}

TEST_F(ClientCommandsTest, RedirectToAResp2Subscriber) {
  TestClient& sub = NewClient();
  const int64_t sub_id = sub.Run({"client", "id"}).integer;
  sub.Run({"subscribe", "__redis__:invalidate"});
  TestClient& c = NewClient();
  EXPECT_EQ(c.Run({"client", "tracking", "on", "redirect", std::to_string(sub_id)}), Ok());
  EXPECT_EQ(c.Run({"client", "getredir"}), Int(sub_id));
  c.Run({"get", "k"});
  Run({"set", "k", "1"});
  EXPECT_EQ(
      sub.TakeMessages(),
      std::vector<Reply>{Array({Bulk("message"), Bulk("__redis__:invalidate"), Strings({"k"})})});
  Run({"flushall"});
  EXPECT_EQ(sub.TakeMessages(),
            std::vector<Reply>{Array({Bulk("message"), Bulk("__redis__:invalidate"), Nil()})});
  CloseClient(sub);
  c.Run({"get", "k"});
  Run({"set", "k", "2"});
  EXPECT_EQ(c.Run({"client", "trackinginfo"}),
            Array({Bulk("flags"), Strings({"on", "broken_redirect"}), Bulk("redirect"), Int(sub_id),
                   Bulk("prefixes"), Array({})}));
}

TEST_F(ClientCommandsTest, TrackingErrors) {
  EXPECT_EQ(Run({"client", "tracking", "on", "prefix", "a"}),
            Err("ERR PREFIX option requires BCAST mode to be enabled"));
  EXPECT_EQ(Run({"client", "tracking", "on", "optin", "optout"}),
            Err("ERR You can't specify both OPTIN mode and OPTOUT mode"));
  EXPECT_EQ(Run({"client", "tracking", "on", "redirect", "999999"}),
            Err("ERR The client ID you want redirect to does not exist"));
  EXPECT_EQ(Run({"client", "tracking", "on", "bcast", "prefix", "a", "prefix", "ab"}),
            Err("ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single "
                "client must not overlap."));
  EXPECT_EQ(Run({"client", "caching", "yes"}),
            Err("ERR CLIENT CACHING can be called only when the client is in tracking mode with "
                "OPTIN or OPTOUT mode enabled"));
  EXPECT_EQ(Run({"client", "getredir"}), Int(-1));
}

// Redis 7.0.15's text (all 48 lines are compared with redis-server by test_connection.py).
TEST_F(ClientCommandsTest, HelpAsRedis) {
  const Reply help = Run({"client", "help"});
  ASSERT_EQ(help.type, Reply::Type::kArray) << help;
  ASSERT_EQ(help.elements.size(), 48u);
  EXPECT_EQ(help.elements[0],
            Status("CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(help.elements[1], Status("CACHING (YES|NO)"));
  EXPECT_EQ(help.elements[40], Status("         [OPTIN] [OPTOUT] [NOLOOP]"));
  EXPECT_EQ(help.elements.back(), Status("    Prints this help."));
}

TEST_F(ClientCommandsTest, MonitorLines) {
  std::string line;
  const std::vector<std::string_view> args = {"SET", "k", "a b\"\\\n\t\r\a\b\x01\xff"};
  Monitors::AppendLine(3, "127.0.0.1:5000", args, &line);
  EXPECT_EQ(line, " [3 127.0.0.1:5000] \"SET\" \"k\" \"a b\\\"\\\\\\n\\t\\r\\a\\b\\x01\\xff\"\r\n");
  line.clear();
  const std::vector<std::string_view> hello = {"HELLO", "3", "AUTH", "u", "p", "SETNAME", "n"};
  Monitors::AppendLine(0, "lua", hello, &line);
  EXPECT_EQ(
      line,
      " [0 lua] \"HELLO\" \"3\" \"AUTH\" \"(redacted)\" \"(redacted)\" \"SETNAME\" \"n\"\r\n");
  // MIGRATE's AUTH and AUTH2, as far as its parser reads options (KEYS ends them).
  const std::vector<std::string_view> migrate = {"MIGRATE", "h",    "1",    "",     "0",
                                                 "10",      "COPY", "AUTH", "pw",   "AUTH2",
                                                 "u",       "p2",   "KEYS", "auth", "k"};
  line.clear();
  Monitors::AppendLine(0, "c", migrate, &line);
  EXPECT_EQ(line,
            " [0 c] \"MIGRATE\" \"h\" \"1\" \"\" \"0\" \"10\" \"COPY\" \"AUTH\" \"(redacted)\" "
            "\"AUTH2\" \"(redacted)\" \"(redacted)\" \"KEYS\" \"auth\" \"k\"\r\n");

  TestClient& m = NewClient();
  EXPECT_EQ(m.Run({"monitor"}), Ok());
  EXPECT_EQ(m.RunRaw({"monitor"}), "");  // again: ignored
  EXPECT_EQ(m.Run({"get", "k"}), Err("ERR Replica can't interact with the keyspace"));
  Run({"set", "k", "v"});
  Run({"config", "get", "maxmemory"});  // admin: not shown
  Run({"eval", "return redis.call('get', KEYS[1])", "1", "k"});
  std::vector<std::string> lines;
  for (const Reply& r : m.TakeMessages()) {
    ASSERT_EQ(r.type, Reply::Type::kStatus);
    lines.push_back(
        std::regex_replace(r.str, std::regex(R"(^\d+\.\d{6} \[(\d+) [^\]]+\])"), "[$1]"));
  }
  EXPECT_EQ(lines,
            (std::vector<std::string>{R"x([0] "set" "k" "v")x",
                                      R"x([0] "eval" "return redis.call('get', KEYS[1])" "1" "k")x",
                                      R"x([0] "get" "k")x"}));
  EXPECT_EQ(m.Run({"reset"}), Status("RESET"));
  Run({"set", "k", "w"});
  EXPECT_EQ(m.TakeMessages(), std::vector<Reply>{});
}

TEST_F(ClientCommandsTest, PausePostponesWritesOnly) {
  EXPECT_EQ(Run({"client", "pause", "60000", "write"}), Ok());
  TestClient& c = NewClient();
  EXPECT_EQ(c.Run({"get", "k"}), Nil());
  EXPECT_FALSE(c.state().postponed.load());
  EXPECT_EQ(c.RunRaw({"set", "k", "v"}), "");  // its connection would run it again later
  EXPECT_TRUE(c.state().postponed.load());
  c.state().postponed.store(false);  // as the connection does when it resumes
  EXPECT_EQ(Run({"client", "unpause"}), Ok());
  EXPECT_EQ(c.Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"client", "pause", "x"}), Err("ERR timeout is not an integer or out of range"));
  EXPECT_EQ(Run({"client", "pause", "10", "some"}),
            Err("ERR CLIENT PAUSE mode must be WRITE or ALL"));
}

TEST_F(ClientCommandsTest, SetInfoAndNoTouch) {
  EXPECT_EQ(Run({"client", "setinfo", "lib-name", "redis-py"}), Ok());
  EXPECT_EQ(Run({"client", "setinfo", "LIB-VER", "5.0.1"}), Ok());
  EXPECT_EQ(client().state().lib_name, "redis-py");
  EXPECT_EQ(Run({"client", "setinfo", "lib-name", "a b"}),
            Err("ERR lib-name cannot contain spaces, newlines or special characters."));
  EXPECT_EQ(Run({"client", "setinfo", "other", "x"}), Err("ERR Unrecognized option 'other'"));

  EXPECT_EQ(Run({"config", "set", "maxmemory-policy", "allkeys-lfu"}), Ok());
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"object", "freq", "k"}), Int(5));  // a new key's LFU counter
  EXPECT_EQ(Run({"client", "no-touch", "on"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"object", "freq", "k"}), Int(5));
  EXPECT_EQ(Run({"touch", "k"}), Int(1));  // TOUCH touches anyway
  EXPECT_EQ(Run({"object", "freq", "k"}), Int(6));
  EXPECT_EQ(Run({"client", "no-touch", "maybe"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"reset"}), Status("RESET"));
  EXPECT_FALSE(client().state().no_touch);
}

}  // namespace
}  // namespace ordis::server::test
