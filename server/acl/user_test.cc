#include "server/acl/user.h"

#include <gtest/gtest.h>

#include "server/acl/acl_test_support.h"
#include "server/acl/password.h"
#include "server/acl/users.h"

namespace ordis::acl {
namespace {

class UserTest : public ::testing::Test {
 protected:
  User Make(std::initializer_list<std::string_view> rules) {
    User u("u", catalog_);
    for (std::string_view r : rules) {
      EXPECT_EQ(u.Apply(r), RuleError::kOk) << r;
    }
    return u;
  }
  Verdict Run(const User& u, std::string_view cmd, std::vector<KeyRef> keys = {},
              std::vector<ChannelRef> channels = {},
              std::optional<std::string_view> first_arg = std::nullopt) {
    const CommandInfo* info = catalog_->Find(cmd);
    EXPECT_NE(info, nullptr) << cmd;
    Request r;
    r.command_id = info->id;
    r.first_arg = first_arg;
    r.keys = keys;
    r.channels = channels;
    return u.Check(r);
  }
  std::shared_ptr<const Catalog> catalog_ = TestCatalog();
};

TEST_F(UserTest, DefaultAndNewUsersDescribeAsRedis) {
  // redis-server 7.0.15: ACL LIST after start-up, and after ACL SETUSER t.
  EXPECT_EQ(User::Default(catalog_).Describe(), "on nopass ~* &* +@all");
  EXPECT_EQ(User("t", catalog_).Describe(), "off resetchannels -@all");
  EXPECT_EQ(Make({"reset"}).Describe(), "off sanitize-payload resetchannels -@all");
  EXPECT_EQ(Make({"skip-sanitize-payload"}).Describe(),
            "off skip-sanitize-payload resetchannels -@all");
}

TEST_F(UserTest, CommandRulesDescribeByBestFit) {
  EXPECT_EQ(Make({"+get"}).Describe(), "off resetchannels -@all +get");
  EXPECT_EQ(Make({"+get", "+@string"}).Describe(), "off resetchannels -@all +@string");
  EXPECT_EQ(Make({"+@string", "-get", "+get"}).Describe(), "off resetchannels -@all +@string");
  EXPECT_EQ(Make({"+@string", "-set"}).Describe(), "off resetchannels -@all +@string -set");
  EXPECT_EQ(Make({"+@all", "-@admin"}).Describe(), "off resetchannels +@all -@admin");
  // -@admin clears bits but not +@all's future-commands mark.
  EXPECT_EQ(Make({"+@all", "-@admin", "+@admin"}).Describe(), "off resetchannels +@all");
  EXPECT_EQ(Make({"+set", "-set"}).Describe(), "off resetchannels -@all");
  EXPECT_EQ(Make({"+@hash", "+@string", "-@hash"}).Describe(), "off resetchannels -@all +@string");
  // In this small catalog the client subcommands are most of @connection, so the best fit
  // starts from the category (Redis's real table has many more connection commands).
  EXPECT_EQ(Make({"-@all", "+client"}).Describe(),
            "off resetchannels -@all +@connection -select -auth +client");
  EXPECT_EQ(Make({"+client", "-client|kill"}).Describe(),
            "off resetchannels -@all +client -client|kill");
  EXPECT_EQ(Make({"+client|kill", "-client"}).Describe(), "off resetchannels -@all");
  EXPECT_EQ(Make({"+select|0", "+select|1"}).Describe(),
            "off resetchannels -@all +select|0 +select|1");
  EXPECT_EQ(Make({"+select|0", "+select"}).Describe(), "off resetchannels -@all +select");
  EXPECT_EQ(Make({"+get|a", "+get|b", "+get|A"}).Describe(),
            "off resetchannels -@all +get|a +get|b");
  EXPECT_EQ(Make({"+get|a", "-get"}).Describe(), "off resetchannels -@all");
  EXPECT_EQ(Make({"allcommands", "nocommands", "+@connection"}).Describe(),
            "off resetchannels -@all +@connection");
}

TEST_F(UserTest, KeyAndChannelPatternsDescribeAsRedis) {
  // The u1 example checked against redis-server 7.0.15.
  User u = Make({"on", ">pw", "~a*", "%R~b*", "%W~c*", "%RW~d*", "&ch*"});
  EXPECT_EQ(u.Describe(),
            "on #30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4 ~a* %R~b* "
            "%W~c* ~d* resetchannels &ch* -@all");
  EXPECT_EQ(Make({"%R~a", "%W~a"}).Describe(), "off ~a resetchannels -@all");
  EXPECT_EQ(Make({"%RW"}).Describe(), "off ~ resetchannels -@all");
  // A difference from Redis, which shows "~* %R~r*" here: that reads back as allkeys followed by
  // a pattern, an error, so Redis's ACL SAVE of this user writes a file ACL LOAD refuses.
  User star = Make({"%RW~*", "%R~r*"});
  EXPECT_EQ(star.Describe(), "off %RW~* %R~r* resetchannels -@all");
  EXPECT_EQ(Make({"%RW~*", "%R~r*", "%RW~*"}).Describe(), star.Describe());
  EXPECT_EQ(Make({"%R"}).Describe(), "off %R~ resetchannels -@all");
  EXPECT_EQ(Make({"&"}).Describe(), "off resetchannels & -@all");
  EXPECT_EQ(Make({"&a", "&b", "&a", "allchannels"}).Describe(), "off &* -@all");
  EXPECT_EQ(Make({"allkeys", "resetkeys", "~x"}).Describe(), "off ~x resetchannels -@all");
  EXPECT_EQ(Make({"+@all", "(+get ~x)", "clearselectors"}).Describe(), "off resetchannels +@all");
  EXPECT_EQ(Make({"on", "(~a +get)", "(%R~b +set)"}).Describe(),
            "on resetchannels -@all (~a resetchannels -@all +get) (%R~b resetchannels -@all "
            "+set)");
  EXPECT_EQ(Make({"()"}).Describe(), "off resetchannels -@all (resetchannels -@all)");
  EXPECT_EQ(Make({"( +get  ~a )"}).Describe(),
            "off resetchannels -@all (~a resetchannels -@all +get)");
}

TEST_F(UserTest, RuleErrors) {
  User u("u", catalog_);
  EXPECT_EQ(u.Apply("foo"), RuleError::kSyntax);
  EXPECT_EQ(u.Apply("+nosuch"), RuleError::kUnknownCommand);
  EXPECT_EQ(u.Apply("+@nosuch"), RuleError::kUnknownCommand);
  EXPECT_EQ(u.Apply("-select|0"), RuleError::kUnknownCommand);
  EXPECT_EQ(u.Apply("+client|nosuch"), RuleError::kUnknownCommand);
  EXPECT_EQ(u.Apply("+client|kill|x"), RuleError::kFirstArgOfSubcommand);
  EXPECT_EQ(u.Apply("+select|"), RuleError::kSyntax);
  EXPECT_EQ(u.Apply("%X~a"), RuleError::kSyntax);
  EXPECT_EQ(u.Apply("%~a"), RuleError::kSyntax);
  EXPECT_EQ(u.Apply("~a b"), RuleError::kSyntax);
  EXPECT_EQ(u.Apply("(on)"), RuleError::kSyntax);
  EXPECT_EQ(u.Apply("<nope"), RuleError::kNoSuchPassword);
  EXPECT_EQ(u.Apply("#abc"), RuleError::kBadHash);
  EXPECT_EQ(u.Apply("#" + std::string(64, 'A')), RuleError::kBadHash);
  EXPECT_EQ(u.Apply("~*"), RuleError::kOk);
  EXPECT_EQ(u.Apply("~a"), RuleError::kKeyAfterAllKeys);
  EXPECT_EQ(u.Apply("%R~a"), RuleError::kKeyAfterAllKeys);
  EXPECT_EQ(u.Apply("&*"), RuleError::kOk);
  EXPECT_EQ(u.Apply("&a"), RuleError::kChannelAfterAllChannels);
  EXPECT_EQ(u.Apply(""), RuleError::kOk);
}

TEST_F(UserTest, PasswordsAreSha256OnlyAndDeduplicated) {
  EXPECT_EQ(HashPassword("x"), "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881");
  User u = Make({">a", ">b", ">a"});
  EXPECT_EQ(u.Describe(),
            "off #ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb "
            "#3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d resetchannels "
            "-@all");
  EXPECT_FALSE(u.PasswordMatches("a"));  // off
  u.Apply("on");
  EXPECT_TRUE(u.PasswordMatches("a"));
  EXPECT_TRUE(u.PasswordMatches("b"));
  EXPECT_FALSE(u.PasswordMatches("c"));
  EXPECT_EQ(u.Apply("!" + HashPassword("a")), RuleError::kOk);
  EXPECT_FALSE(u.PasswordMatches("a"));
  EXPECT_EQ(u.Apply("<b"), RuleError::kOk);
  EXPECT_FALSE(u.PasswordMatches("b"));
  u.Apply("nopass");
  EXPECT_TRUE(u.PasswordMatches("anything"));
  u.Apply("#" + HashPassword("z"));  // a password clears nopass
  EXPECT_FALSE(u.nopass());
  EXPECT_TRUE(u.PasswordMatches("z"));
  EXPECT_FALSE(u.PasswordMatches("anything"));
  u.Apply("resetpass");
  EXPECT_FALSE(u.PasswordMatches("z"));
  EXPECT_EQ(Make({">x", "nopass"}).Describe(), "off nopass resetchannels -@all");
}

TEST_F(UserTest, DigestsEqualComparesWholeStrings) {
  EXPECT_TRUE(DigestsEqual("abcd", "abcd"));
  EXPECT_FALSE(DigestsEqual("abcd", "abce"));
  EXPECT_FALSE(DigestsEqual("xbcd", "abcd"));
  EXPECT_FALSE(DigestsEqual("abc", "abcd"));
  EXPECT_TRUE(IsPasswordHash(HashPassword("q")));
  EXPECT_FALSE(IsPasswordHash(HashPassword("q").substr(1)));
}

TEST_F(UserTest, CommandsSubcommandsAndFirstArgs) {
  User u = Make({"allkeys", "+get", "+client|list", "+select|0", "+config", "-config|set"});
  EXPECT_TRUE(Run(u, "get", {{"k", kKeyRead}}).ok());
  EXPECT_EQ(Run(u, "set", {{"k", kKeyWrite}}).kind, Verdict::kDeniedCommand);
  EXPECT_TRUE(Run(u, "client|list").ok());
  EXPECT_FALSE(Run(u, "client|kill").ok());
  EXPECT_TRUE(Run(u, "config|get").ok());
  EXPECT_FALSE(Run(u, "config|set").ok());
  EXPECT_TRUE(Run(u, "select", {}, {}, "0").ok());
  EXPECT_FALSE(Run(u, "select", {}, {}, "1").ok());
  EXPECT_FALSE(Run(u, "select").ok());
  EXPECT_TRUE(Make({"+select|db"}).Check({catalog_->Find("select")->id, "DB"}).ok());
  // AUTH is no-auth: every user may run it.
  EXPECT_TRUE(Run(Make({}), "auth").ok());
}

TEST_F(UserTest, KeyReadWritePermissions) {
  User u = Make({"+@all", "%R~r*", "%W~w*", "~b*"});
  EXPECT_TRUE(Run(u, "get", {{"r1", kKeyRead}}).ok());
  EXPECT_EQ(Run(u, "set", {{"r1", kKeyWrite}}).kind, Verdict::kDeniedKey);
  EXPECT_TRUE(Run(u, "set", {{"w1", kKeyWrite}}).ok());
  EXPECT_FALSE(Run(u, "get", {{"w1", kKeyRead}}).ok());
  EXPECT_TRUE(Run(u, "append", {{"b1", kKeyRead | kKeyWrite}}).ok());
  EXPECT_FALSE(Run(u, "append", {{"r1", kKeyRead | kKeyWrite}}).ok());
  EXPECT_TRUE(Run(u, "del", {{"r1", 0}}).ok());  // no access flags: any matching pattern
  EXPECT_FALSE(Run(u, "del", {{"x", 0}}).ok());
  Verdict v = Run(u, "get", {{"b1", kKeyRead}, {"x", kKeyRead}, {"r2", kKeyRead}});
  EXPECT_EQ(v.kind, Verdict::kDeniedKey);
  EXPECT_EQ(v.index, 1);
  EXPECT_TRUE(Run(Make({"+get", "%R~*"}), "get", {{"anything", kKeyRead}}).ok());
}

TEST_F(UserTest, ChannelPatterns) {
  User u = Make({"+@all", "allkeys", "&news.*"});
  EXPECT_TRUE(Run(u, "publish", {}, {{"news.a", false}}).ok());
  EXPECT_FALSE(Run(u, "publish", {}, {{"sport", false}}).ok());
  // A pattern subscription needs the very same ACL pattern.
  EXPECT_TRUE(Run(u, "psubscribe", {}, {{"news.*", true}}).ok());
  EXPECT_FALSE(Run(u, "psubscribe", {}, {{"news.a*", true}}).ok());
  EXPECT_FALSE(Run(u, "psubscribe", {}, {{"*", true}}).ok());
  EXPECT_FALSE(Run(u, "subscribe", {}, {{"*", false}}).ok());
  Verdict v = Run(u, "subscribe", {}, {{"news.x", false}, {"a", false}});
  EXPECT_EQ(v.kind, Verdict::kDeniedChannel);
  EXPECT_EQ(v.index, 1);
  EXPECT_TRUE(u.CheckChannel("news.b", false));
  EXPECT_FALSE(u.CheckChannel("x", false));
}

TEST_F(UserTest, SelectorsAllowWhenAnyOneAllowsAll) {
  User u = Make({"+get", "~a*", "(+set ~b*)"});
  EXPECT_TRUE(Run(u, "get", {{"a1", kKeyRead}}).ok());
  EXPECT_TRUE(Run(u, "set", {{"b1", kKeyWrite}}).ok());
  EXPECT_FALSE(Run(u, "get", {{"b1", kKeyRead}}).ok());
  // Root denies the command, the selector the key: the key is the more relevant reason.
  Verdict v = Run(u, "set", {{"a1", kKeyWrite}});
  EXPECT_EQ(v.kind, Verdict::kDeniedKey);
  EXPECT_EQ(v.index, 0);
  EXPECT_EQ(Run(u, "hset", {{"a1", kKeyWrite}}).kind, Verdict::kDeniedCommand);
  EXPECT_TRUE(u.CheckKey("b2", kKeyWrite));
  EXPECT_FALSE(u.CheckKey("c", kKeyRead));
}

TEST_F(UserTest, GetUserInfo) {
  User u = Make({"on", ">pw", "~a*", "%R~b*", "&ch*", "+@string", "-set", "(%R~x +get)"});
  UserInfo info = u.Info();
  EXPECT_EQ(info.flags, (std::vector<std::string>{"on"}));
  EXPECT_EQ(info.passwords, (std::vector<std::string>{HashPassword("pw")}));
  EXPECT_EQ(info.root.commands, "-@all +@string -set");
  EXPECT_EQ(info.root.keys, "~a* %R~b*");
  EXPECT_EQ(info.root.channels, "&ch*");
  ASSERT_EQ(info.selectors.size(), 1u);
  EXPECT_EQ(info.selectors[0].commands, "-@all +get");
  EXPECT_EQ(info.selectors[0].keys, "%R~x");
  EXPECT_EQ(info.selectors[0].channels, "");
  UserInfo d = User::Default(catalog_).Info();
  EXPECT_EQ(d.flags, (std::vector<std::string>{"on", "nopass"}));
  EXPECT_EQ(d.root.keys, "~*");
  EXPECT_EQ(d.root.channels, "&*");
  EXPECT_EQ(d.root.commands, "+@all");
}

}  // namespace
}  // namespace ordis::acl
