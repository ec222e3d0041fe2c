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

TEST_F(ConnectionFamilyTest, ResetForgetsDatabaseNameAndTransaction) {
  EXPECT_EQ(Run({"select", "3"}), Ok());
  EXPECT_EQ(Run({"client", "setname", "n1"}), Ok());
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"reset"}), Status("RESET"));
  EXPECT_EQ(Run({"client", "getname"}), Nil());
  EXPECT_EQ(Run({"exec"}), Err("ERR EXEC without MULTI"));
  EXPECT_EQ(client().state().db.load(), 0);
}

TEST_F(ConnectionFamilyTest, HelloSyntaxErrors) {
  EXPECT_EQ(Run({"hello", "1"}), Err("NOPROTO unsupported protocol version"));
  EXPECT_EQ(Run({"hello", "x"}), Err("ERR Protocol version is not an integer or out of range"));
  EXPECT_EQ(Run({"hello", "3", "bogus"}), Err("ERR Syntax error in HELLO option 'bogus'"));
  EXPECT_EQ(Run({"hello", "2", "setname", "a b"}),
            Err("ERR Client names cannot contain spaces, newlines or special characters."));
  EXPECT_EQ(client().state().protocol.load(), 2);  // a failed HELLO changes nothing
}

TEST_F(ConnectionFamilyTest, ClientListTypeAndIdFilters) {
  EXPECT_EQ(Run({"client", "list", "type", "bogus"}), Err("ERR Unknown client type 'bogus'"));
  EXPECT_EQ(Run({"client", "list", "id", "x"}), Err("ERR Invalid client ID"));
  Reply pubsub = Run({"client", "list", "type", "pubsub"});
  EXPECT_EQ(pubsub, Bulk(""));  // no pub/sub clients
  const std::string id = std::to_string(client().state().id);
  Reply mine = Run({"client", "list", "id", id});
  ASSERT_EQ(mine.type, Reply::Type::kBulk) << mine;
  EXPECT_TRUE(mine.str.starts_with("id=" + id + " addr=")) << mine;
  EXPECT_NE(mine.str.find(" cmd=client|list "), std::string::npos) << mine;
}

TEST_F(ConnectionFamilyTest, ClientInfoDescribesTheCaller) {
  EXPECT_EQ(Run({"client", "setname", "me"}), Ok());
  EXPECT_EQ(Run({"select", "2"}), Ok());
  Reply info = Run({"client", "info"});
  ASSERT_EQ(info.type, Reply::Type::kBulk) << info;
  const std::string id = std::to_string(client().state().id);
  EXPECT_TRUE(info.str.starts_with("id=" + id + " ")) << info;
  EXPECT_NE(info.str.find(" name=me "), std::string::npos) << info;
  EXPECT_NE(info.str.find(" db=2 "), std::string::npos) << info;
  EXPECT_NE(info.str.find(" cmd=client|info "), std::string::npos) << info;
  EXPECT_TRUE(info.str.ends_with(" resp=2\n")) << info;
}

TEST_F(ConnectionFamilyTest, ClientKillFilterErrors) {
  EXPECT_EQ(Run({"client", "kill", "skipme", "maybe"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "kill", "type", "bogus"}), Err("ERR Unknown client type 'bogus'"));
  EXPECT_EQ(Run({"client", "kill", "user", "bob"}), Err("ERR No such user 'bob'"));
  EXPECT_EQ(Run({"client", "no-evict", "maybe"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"client", "no-evict", "on"}), Ok());
}

TEST_F(ConnectionFamilyTest, ClientKillSkipsTheCallerUnlessAsked) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"client", "kill", "type", "normal"}), Int(1));  // the other one only
  EXPECT_TRUE(other.state().kill_requested.load());
  EXPECT_FALSE(client().state().close_after_reply);
  EXPECT_EQ(Run({"client", "kill", "id", std::to_string(client().state().id), "skipme", "no"}),
            Int(1));
  EXPECT_TRUE(client().state().close_after_reply);
}

class ConnectionAuthFamilyTest : public FamilyTest {
 protected:
  ConnectionAuthFamilyTest() : FamilyTest({{"requirepass", "s3cret"}}) {}
};

TEST_F(ConnectionAuthFamilyTest, CommandsWaitForAuth) {
  EXPECT_EQ(Run({"ping"}), Err("NOAUTH Authentication required."));
  EXPECT_EQ(Run({"auth", "wrong"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"auth", "default", "wrong"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"auth", "s3cret"}), Ok());
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
  EXPECT_EQ(Run({"auth", "a", "b", "c"}), Err("ERR syntax error"));
}

TEST_F(ConnectionAuthFamilyTest, HelloAuthenticatesOrRefuses) {
  EXPECT_EQ(Run({"hello", "3", "auth", "default", "wrong"}),
            Err("WRONGPASS invalid username-password pair or user is disabled."));
  EXPECT_EQ(Run({"hello", "3", "setname", "x"}),
            Err("NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                "HELLO AUTH <user> <pass> option can be used to authenticate the client and select "
                "the RESP protocol version at the same time"));
  Reply hello = Run({"hello", "3", "auth", "default", "s3cret"});
  EXPECT_EQ(hello.type, Reply::Type::kMap) << hello;
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
}

TEST_F(ConnectionAuthFamilyTest, ResetDeauthenticates) {
  EXPECT_EQ(Run({"auth", "s3cret"}), Ok());
  EXPECT_EQ(Run({"reset"}), Status("RESET"));
  EXPECT_EQ(Run({"ping"}), Err("NOAUTH Authentication required."));
}

}  // namespace
}  // namespace ordis::server::test
