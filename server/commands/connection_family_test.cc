// PING ECHO HELLO AUTH SELECT QUIT RESET CLIENT, in-process.
#include "server/command/client_state.h"
#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class ConnectionFamilyTest : public FamilyTest {};

TEST_F(ConnectionFamilyTest, PingAndEcho) {
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
  EXPECT_EQ(Run({"PING", "hello"}), Bulk("hello"));
  EXPECT_EQ(Run({"ping", "a", "b"}), Err("ERR wrong number of arguments for 'ping' command"));
  EXPECT_EQ(Run({"echo", "x y"}), Bulk("x y"));
  EXPECT_EQ(Run({"echo"}), Err("ERR wrong number of arguments for 'echo' command"));
  EXPECT_EQ(Run({"nosuch", "a"}),
            Err("ERR unknown command 'nosuch', with args beginning with: 'a' "));
}

TEST_F(ConnectionFamilyTest, SelectKeepsDatabasesApart) {
  EXPECT_EQ(Run({"set", "k", "0"}), Ok());
  EXPECT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Nil());
  EXPECT_EQ(Run({"select", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"select", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("0"));
}

TEST_F(ConnectionFamilyTest, ClientReplyOffSkipOn) {
  EXPECT_EQ(RunRaw({"client", "reply", "off"}), "");
  EXPECT_EQ(RunRaw({"set", "k", "v"}), "");
  EXPECT_EQ(Run({"client", "reply", "on"}), Ok());  // turning replies on is answered
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(RunRaw({"client", "reply", "skip"}), "");
  EXPECT_EQ(RunRaw({"get", "k"}), "");  // skipped
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"client", "reply", "maybe"}), Err("ERR syntax error"));
}

TEST_F(ConnectionFamilyTest, HelloSwitchesProtocol) {
  Reply hello = Run({"hello", "3"});
  ASSERT_EQ(hello.type, Reply::Type::kMap) << hello;
  ASSERT_EQ(hello.elements.size(), 14u);
  EXPECT_EQ(hello.elements[4], Bulk("proto"));
  EXPECT_EQ(hello.elements[5], Int(3));
  EXPECT_EQ(client().state().protocol.load(), 3);
  EXPECT_EQ(Run({"get", "missing"}), Nil());
  EXPECT_EQ(RunRaw({"get", "missing"}), "_\r\n");
  EXPECT_EQ(Run({"hello", "4"}), Err("NOPROTO unsupported protocol version"));
  EXPECT_EQ(Run({"reset"}), Status("RESET"));
  EXPECT_EQ(RunRaw({"get", "missing"}), "$-1\r\n");
}

TEST_F(ConnectionFamilyTest, QuitClosesAfterItsReply) {
  EXPECT_EQ(Run({"quit"}), Ok());
  EXPECT_TRUE(client().state().close_after_reply);
}

TEST_F(ConnectionFamilyTest, ClientIdNameKill) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"client", "id"}), Int(static_cast<int64_t>(client().state().id)));
  EXPECT_EQ(Run({"client", "getname"}), Nil());
  EXPECT_EQ(Run({"client", "setname", "worker 1"}),
            Err("ERR Client names cannot contain spaces, newlines or special characters."));
  EXPECT_EQ(Run({"client", "setname", "worker"}), Ok());
  EXPECT_EQ(Run({"client", "getname"}), Bulk("worker"));
  const std::string other_id = std::to_string(other.state().id);
  EXPECT_EQ(Run({"client", "kill", "id", other_id}), Int(1));
  EXPECT_TRUE(other.state().kill_requested.load());
  EXPECT_EQ(Run({"client", "kill", "id", "999999"}), Int(0));
  EXPECT_EQ(Run({"client", "kill", "1.2.3.4:5"}), Err("ERR No such client"));
}

}  // namespace
}  // namespace ordis::server::test
