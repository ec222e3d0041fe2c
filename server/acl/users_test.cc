#include "server/acl/users.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "server/acl/acl_test_support.h"
#include "server/acl/password.h"

namespace ordis::acl {
namespace {

class UsersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "acl_test_" + std::to_string(getpid()) + ".acl";
  }
  void TearDown() override { std::remove(path_.c_str()); }
  void Write(const std::string& text) { std::ofstream(path_) << text; }
  std::string Set(std::string_view name, std::vector<std::string> rules) {
    return users_.SetUser(name, rules);
  }
  Users users_{TestCatalog()};
  std::string path_;
};

TEST_F(UsersTest, SetUserErrorsAreRedisTextsAndChangeNothing) {
  EXPECT_EQ(Set("t2", {"foo"}), "ERR Error in ACL SETUSER modifier 'foo': Syntax error");
  EXPECT_EQ(Set("t2", {"+nosuch"}),
            "ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in ACL");
  EXPECT_EQ(Set("t2", {"(+get", "~a"}),
            "ERR Unmatched parenthesis in acl selector starting at '(+get'.");
  EXPECT_EQ(Set("a b", {"on"}), "ERR Usernames can't contain spaces or null characters");
  EXPECT_EQ(Set("t2", {"(+nosuch)"}),
            "ERR Error in ACL SETUSER modifier '(+nosuch)': Unknown command or category name in "
            "ACL");
  EXPECT_EQ(Set("t2", {"~*", "~a"}),
            "ERR Error in ACL SETUSER modifier '~a': Adding a pattern after the * pattern (or the "
            "'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to start "
            "with an empty list of patterns");
  EXPECT_EQ(users_.Find("t2"), nullptr);  // never created
  EXPECT_EQ(Set("u", {"on", "+get"}), "");
  EXPECT_NE(Set("u", {"off", "+set", "bogus"}), "");
  EXPECT_EQ(users_.List()[1], "user u on resetchannels -@all +get");
  EXPECT_EQ(Set("u", {"(~a", "+get)"}), "");
  EXPECT_EQ(users_.List()[1], "user u on resetchannels -@all +get (~a resetchannels -@all +get)");
}

TEST_F(UsersTest, NamesDelUserAndRefs) {
  ASSERT_EQ(Set("b", {"on", "nopass", "+@all", "allkeys"}), "");
  ASSERT_EQ(Set("a", {}), "");
  EXPECT_EQ(users_.Names(), (std::vector<std::string>{"a", "b", "default"}));
  UserRef ref = users_.Ref("b");
  ASSERT_TRUE(ref);
  ASSERT_NE(ref.Current(), nullptr);
  EXPECT_TRUE(ref.Current()->Check({users_.catalog().Find("get")->id}).ok());
  ASSERT_EQ(Set("b", {"-get"}), "");
  EXPECT_FALSE(ref.Current()->Check({users_.catalog().Find("get")->id}).ok());
  int deleted = -1;
  EXPECT_EQ(users_.DelUsers(std::vector<std::string>{"a", "default"}, &deleted),
            "ERR The 'default' user cannot be removed");
  EXPECT_EQ(users_.Names().size(), 3u);
  EXPECT_EQ(users_.DelUsers(std::vector<std::string>{"b", "nosuch"}, &deleted), "");
  EXPECT_EQ(deleted, 1);
  EXPECT_EQ(ref.Current(), nullptr);  // the client must go
  EXPECT_FALSE(users_.Ref("b"));
}

TEST_F(UsersTest, AuthenticateAndRequirePass) {
  ASSERT_EQ(Set("alice", {"on", ">secret"}), "");
  ASSERT_EQ(Set("bob", {"off", "nopass"}), "");
  EXPECT_TRUE(users_.Authenticate("alice", "secret"));
  EXPECT_FALSE(users_.Authenticate("alice", "Secret"));
  EXPECT_FALSE(users_.Authenticate("Alice", "secret"));  // names are case-sensitive
  EXPECT_FALSE(users_.Authenticate("bob", ""));          // off
  EXPECT_FALSE(users_.Authenticate("nosuch", ""));
  EXPECT_TRUE(users_.Authenticate("default", "anything"));  // nopass
  users_.SetRequirePass("foo");
  EXPECT_EQ(users_.List()[2],
            "user default on #2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae ~* "
            "&* +@all");
  EXPECT_FALSE(users_.Authenticate("default", "bar"));
  EXPECT_TRUE(users_.Authenticate("default", "foo"));
  users_.SetRequirePass("");
  EXPECT_EQ(users_.List()[2], "user default on nopass ~* &* +@all");
}

TEST_F(UsersTest, GetUserAndCategories) {
  EXPECT_FALSE(users_.GetUser("nosuch"));
  ASSERT_TRUE(users_.GetUser("default"));
  EXPECT_EQ(users_.GetUser("default")->root.commands, "+@all");
  EXPECT_EQ(*users_.CommandsInCategory("HASH"), (std::vector<std::string>{"hset", "hget"}));
  EXPECT_FALSE(users_.CommandsInCategory("nosuch"));
  EXPECT_EQ(Users::UnknownCategoryError("nosuch"), "ERR Unknown category 'nosuch'");
}

TEST_F(UsersTest, GenPass) {
  EXPECT_EQ(GenPass()->size(), 64u);
  EXPECT_EQ(GenPass(5)->size(), 2u);
  EXPECT_EQ(GenPass(4096)->size(), 1024u);
  EXPECT_FALSE(GenPass(0));
  EXPECT_FALSE(GenPass(4097));
  EXPECT_NE(*GenPass(), *GenPass());
  const std::string pass = *GenPass(128);
  EXPECT_EQ(pass.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST_F(UsersTest, LoadFileReportsEveryBadLineAndChangesNothing) {
  ASSERT_EQ(Set("keep", {"on"}), "");
  // The file of the redis-server 7.0.15 experiment; its error text, with our path.
  Write(
      "user a on >x +nosuch ~k*\n\n# comment\nuser a on\nfoo bar\nuser b (+get\n"
      "user c on ~* ~a\n   user d \"x y\"\nuser e on %X~k\n");
  const std::string p = path_;
  EXPECT_EQ(users_.LoadFile(path_),
            p +
                ":1: Error in applying operation '+nosuch': Unknown command or category name in "
                "ACL. " +
                p + ":3 should start with user keyword followed by the username. " +
                "WARNING: Duplicate user 'a' found on line 4. " + p +
                ":5 should start with user keyword followed by the username. " + p +
                ":6: Unmatched parenthesis in selector definition." + p +
                ":7: Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid "
                "and does not have any effect. Try 'resetkeys' to start with an empty list of "
                "patterns. " +
                p + ":8: Syntax error. " + p + ":9: Syntax error. " +
                "WARNING: ACL errors detected, no change to the previously active ACL rules was "
                "performed");
  EXPECT_EQ(users_.Names(), (std::vector<std::string>{"default", "keep"}));
  Write("user a +nosuch +nosuch2 foo\nuser a on\nuser  b on\nuser c on  +get\n");
  EXPECT_EQ(users_.LoadFile(path_),
            p +
                ":1: Error in applying operation '+nosuch': Unknown command or category name in "
                "ACL. " +
                p +
                ":1: Error in applying operation '+nosuch2': Unknown command or category name in "
                "ACL. " +
                p + ":1: Syntax error. WARNING: Duplicate user 'a' found on line 2. " + p +
                ":3: Syntax error. WARNING: ACL errors detected, no change to the previously "
                "active ACL rules was performed");
  EXPECT_EQ(users_.LoadFile(path_ + ".missing"),
            "Error loading ACLs, opening file '" + p + ".missing': No such file or directory");
}

TEST_F(UsersTest, SaveLoadRoundTrip) {
  ASSERT_EQ(Set("x", {"on", ">pw", "~a*", "%R~b", "&c*", "+@string", "-set", "+select|0",
                      "(%W~w +hset)"}),
            "");
  ASSERT_EQ(Set("y", {"off", "nopass", "allkeys", "allchannels", "+@all", "-@dangerous"}), "");
  users_.SetRequirePass("rp");
  const std::vector<std::string> before = users_.List();
  UserRef default_ref = users_.DefaultUser();
  UserRef x_ref = users_.Ref("x");
  ASSERT_EQ(users_.SaveFile(path_), "");
  std::ifstream in(path_);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  EXPECT_EQ(lines, before);

  ASSERT_EQ(Set("z", {"on"}), "");
  ASSERT_EQ(Set("x", {"-get"}), "");
  ASSERT_EQ(users_.LoadFile(path_), "");
  EXPECT_EQ(users_.List(), before);
  EXPECT_NE(default_ref.Current(), nullptr);  // the default user survives ACL LOAD
  EXPECT_TRUE(users_.Authenticate("default", "rp"));
  EXPECT_EQ(x_ref.Current(), nullptr);  // other users are replaced
  EXPECT_TRUE(users_.Authenticate("x", "pw"));

  // A file without the default user gives a fresh one.
  Write("user only on nopass\r\n");
  ASSERT_EQ(users_.LoadFile(path_), "");
  EXPECT_EQ(users_.List(), (std::vector<std::string>{"user default on nopass ~* &* +@all",
                                                     "user only on nopass resetchannels -@all"}));
  EXPECT_NE(default_ref.Current(), nullptr);
}

TEST_F(UsersTest, ConfigUserDirectives) {
  using V = std::vector<std::string>;
  // redis-server 7.0.15's texts, including naming args[j] for the j-th rule.
  EXPECT_EQ(users_.ParseUserDirective(V{"user", "a", "foo"}),
            "Error in user declaration 'user': Syntax error");
  EXPECT_EQ(users_.ParseUserDirective(V{"user", "a", "on", "foo"}),
            "Error in user declaration 'a': Syntax error");
  EXPECT_EQ(users_.ParseUserDirective(V{"user", "a", "on", "+nosuch"}), "");  // checked later
  EXPECT_EQ(users_.ParseUserDirective(V{"user", "a", "off"}),
            "Error in user declaration 'a': Duplicate user found. A user can only be defined once "
            "in config files");
  EXPECT_EQ(users_.LoadConfiguredUsers(),
            "Error loading ACL rule '+nosuch' for the user named 'a': Unknown command or category "
            "name in ACL");
  Users fresh(TestCatalog());
  EXPECT_EQ(fresh.ParseUserDirective(V{"user", "default", "on", ">p", "+get", "allkeys"}), "");
  EXPECT_EQ(fresh.ParseUserDirective(V{"user", "b", "on", "(~a", "+get)"}), "");
  EXPECT_EQ(fresh.LoadConfiguredUsers(), "");
  EXPECT_EQ(fresh.List(),
            (std::vector<std::string>{"user b on resetchannels -@all (~a resetchannels -@all +get)",
                                      "user default on sanitize-payload #" + HashPassword("p") +
                                          " ~* resetchannels -@all +get"}));
}

}  // namespace
}  // namespace ordis::acl
