// ACL CAT DELUSER DRYRUN GENPASS GETUSER LIST LOAD LOG SAVE SETUSER USERS WHOAMI HELP, and the
// dispatcher's permission checks (NOPERM for commands, keys, subcommands and first arguments,
// inside MULTI and at EXEC), AUTH and RESET with users, requirepass: in-process. The replies
// were checked against redis-server 7.0.15.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "server/command/client_state.h"
#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

constexpr std::string_view kNoPermKey =
    "NOPERM this user has no permissions to access one of the keys used as arguments";
constexpr std::string_view kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
constexpr std::string_view kNoAclFile =
    "ERR This Redis instance is not configured to use an ACL file. You may want to specify users "
    "via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis "
    "configuration file set) in order to store users in the Redis configuration.";
// SHA-256 of "p1".
constexpr std::string_view kP1Hash =
    "f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a";

std::string NoPermCommand(std::string_view name) {
  return "NOPERM this user has no permissions to run the '" + std::string(name) + "' command";
}

// The value of field in a RESP2 key/value array (ACL LOG entries, ACL GETUSER).
Reply Field(const Reply& pairs, std::string_view field) {
  for (size_t i = 0; i + 1 < pairs.elements.size(); i += 2) {
    if (pairs.elements[i] == Bulk(field)) return pairs.elements[i + 1];
  }
  ADD_FAILURE() << "no field " << field << " in " << pairs;
  return Nil();
}

// An ACL LOG entry's fields that do not depend on time or the client's address.
struct LogEntry {
  int64_t count;
  std::string reason, context, object, username;
  bool operator==(const LogEntry&) const = default;
};

std::ostream& operator<<(std::ostream& os, const LogEntry& e) {
  return os << "{" << e.count << " " << e.reason << " " << e.context << " " << e.object << " "
            << e.username << "}";
}

using Log = std::vector<LogEntry>;

std::vector<LogEntry> LogEntries(const Reply& log) {
  std::vector<LogEntry> entries;
  EXPECT_EQ(log.type, Reply::Type::kArray) << log;
  for (const Reply& e : log.elements) {
    EXPECT_EQ(e.elements.size(), 14u) << e;
    entries.push_back({Field(e, "count").integer, Field(e, "reason").str, Field(e, "context").str,
                       Field(e, "object").str, Field(e, "username").str});
  }
  return entries;
}

class AclFamilyTest : public FamilyTest {
 protected:
  // A client logged in as user (a nopass user takes any password).
  TestClient& ClientAs(std::string_view user) {
    TestClient& c = NewClient();
    EXPECT_EQ(c.Run({"auth", std::string(user), "x"}), Ok());
    return c;
  }
};

TEST_F(AclFamilyTest, CatListsCategoriesAndTheirCommands) {
  EXPECT_EQ(
      Run({"acl", "cat"}),
      Strings({"keyspace",   "read",        "write",    "set",         "sortedset", "list",
               "hash",       "string",      "bitmap",   "hyperloglog", "geo",       "stream",
               "pubsub",     "admin",       "fast",     "slow",        "blocking",  "dangerous",
               "connection", "transaction", "scripting"}));
  Reply transaction = Run({"acl", "cat", "transaction"});
  std::vector<std::string> names = transaction.Strings();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"discard", "exec", "multi", "unwatch", "watch"}));
  EXPECT_EQ(Run({"acl", "cat", "nosuch"}), Err("ERR Unknown category 'nosuch'"));
  // The category name is case-insensitive.
  EXPECT_EQ(Run({"acl", "cat", "TRANSACTION"}).elements.size(), 5u);
  // Past the subcommand's arity (-2), Redis's subcommand syntax error, the name as typed.
  EXPECT_EQ(Run({"acl", "CAT", "a", "b"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'CAT'. Try ACL HELP."));
}

TEST_F(AclFamilyTest, SetUserGetUserListUsers) {
  EXPECT_EQ(Run({"acl", "setuser", "alice", "on", ">p1", "~k*", "+get"}), Ok());
  EXPECT_EQ(
      Run({"acl", "getuser", "alice"}),
      Array({Bulk("flags"), Strings({"on"}), Bulk("passwords"), Strings({std::string(kP1Hash)}),
             Bulk("commands"), Bulk("-@all +get"), Bulk("keys"), Bulk("~k*"), Bulk("channels"),
             Bulk(""), Bulk("selectors"), Array({})}));
  EXPECT_EQ(Run({"acl", "getuser", "nobody"}), Nil());
  EXPECT_EQ(Run({"acl", "list"}),
            Strings({"user alice on #" + std::string(kP1Hash) + " ~k* resetchannels -@all +get",
                     "user default on nopass ~* &* +@all"}));
  EXPECT_EQ(Run({"acl", "users"}), Strings({"alice", "default"}));
  // Selectors: each "(...)" adds one.
  EXPECT_EQ(Run({"acl", "setuser", "sel", "~a*", "+get", "(~b*", "+set)"}), Ok());
  EXPECT_EQ(Run({"acl", "getuser", "sel"}),
            Array({Bulk("flags"), Strings({"off"}), Bulk("passwords"), Strings({}),
                   Bulk("commands"), Bulk("-@all +get"), Bulk("keys"), Bulk("~a*"),
                   Bulk("channels"), Bulk(""), Bulk("selectors"),
                   Array({Array({Bulk("commands"), Bulk("-@all +set"), Bulk("keys"), Bulk("~b*"),
                                 Bulk("channels"), Bulk("")})})}));
  EXPECT_EQ(Run({"acl", "getuser", "default"}),
            Array({Bulk("flags"), Strings({"on", "nopass"}), Bulk("passwords"), Strings({}),
                   Bulk("commands"), Bulk("+@all"), Bulk("keys"), Bulk("~*"), Bulk("channels"),
                   Bulk("&*"), Bulk("selectors"), Array({})}));
}

TEST_F(AclFamilyTest, SetUserErrors) {
  EXPECT_EQ(Run({"acl", "setuser"}),
            Err("ERR wrong number of arguments for 'acl|setuser' command"));
  EXPECT_EQ(Run({"acl", "setuser", "bob", "bogus"}),
            Err("ERR Error in ACL SETUSER modifier 'bogus': Syntax error"));
  EXPECT_EQ(Run({"acl", "setuser", "bob", "+nosuch"}),
            Err("ERR Error in ACL SETUSER modifier '+nosuch': Unknown command or category name in "
                "ACL"));
  EXPECT_EQ(Run({"acl", "setuser", "bob", "~*", "~x"}),
            Err("ERR Error in ACL SETUSER modifier '~x': Adding a pattern after the * pattern (or "
                "the 'allkeys' flag) is not valid and does not have any effect. Try 'resetkeys' to "
                "start with an empty list of patterns"));
  EXPECT_EQ(Run({"acl", "setuser", "bob", "<nope"}),
            Err("ERR Error in ACL SETUSER modifier '<nope': The password you are trying to remove "
                "from the user does not exist"));
  EXPECT_EQ(Run({"acl", "setuser", "bob", "#abc"}),
            Err("ERR Error in ACL SETUSER modifier '#abc': The password hash must be exactly 64 "
                "characters and contain only lowercase hexadecimal characters"));
  // A failed SETUSER creates nothing.
  EXPECT_EQ(Run({"acl", "users"}), Strings({"default"}));
}

TEST_F(AclFamilyTest, DelUser) {
  EXPECT_EQ(Run({"acl", "setuser", "alice"}), Ok());
  EXPECT_EQ(Run({"acl", "deluser", "alice", "nobody"}), Int(1));
  EXPECT_EQ(Run({"acl", "deluser", "alice"}), Int(0));
  EXPECT_EQ(Run({"acl", "deluser", "default"}), Err("ERR The 'default' user cannot be removed"));
  EXPECT_EQ(Run({"acl", "deluser"}),
            Err("ERR wrong number of arguments for 'acl|deluser' command"));
}

TEST_F(AclFamilyTest, DelUserClosesItsClients) {
  EXPECT_EQ(Run({"acl", "setuser", "u1", "on", "nopass", "~*", "+@all"}), Ok());
  TestClient& u1 = ClientAs("u1");
  EXPECT_EQ(u1.Run({"ping"}), Status("PONG"));
  EXPECT_EQ(Run({"acl", "deluser", "u1"}), Int(1));
  EXPECT_TRUE(u1.state().kill_requested.load());  // closed at once, as Redis
  // Had it sent a command before closing, it is not run or answered.
  EXPECT_EQ(u1.RunRaw({"set", "k", "v"}), "");
  EXPECT_TRUE(u1.state().close_after_reply);
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_FALSE(client().state().close_after_reply);
}

TEST_F(AclFamilyTest, WhoAmI) {
  EXPECT_EQ(Run({"acl", "whoami"}), Bulk("default"));
  EXPECT_EQ(Run({"acl", "setuser", "w", "on", "nopass", "+acl|whoami"}), Ok());
  TestClient& w = ClientAs("w");
  EXPECT_EQ(w.Run({"acl", "whoami"}), Bulk("w"));
  EXPECT_EQ(w.Run({"acl", "whoami", "x"}),
            Err("ERR wrong number of arguments for 'acl|whoami' command"));
}

TEST_F(AclFamilyTest, GenPass) {
  Reply pass = Run({"acl", "genpass"});
  ASSERT_EQ(pass.type, Reply::Type::kBulk) << pass;
  EXPECT_EQ(pass.str.size(), 64u);
  EXPECT_EQ(pass.str.find_first_not_of("0123456789abcdef"), std::string::npos) << pass;
  EXPECT_NE(Run({"acl", "genpass"}), pass);
  EXPECT_EQ(Run({"acl", "genpass", "32"}).str.size(), 8u);
  EXPECT_EQ(Run({"acl", "genpass", "1"}).str.size(), 1u);
  EXPECT_EQ(Run({"acl", "genpass", "5"}).str.size(), 2u);
  EXPECT_EQ(Run({"acl", "genpass", "4096"}).str.size(), 1024u);
  const Reply range_error =
      Err("ERR ACL GENPASS argument must be the number of bits for the output password, a "
          "positive number up to 4096");
  EXPECT_EQ(Run({"acl", "genpass", "0"}), range_error);
  EXPECT_EQ(Run({"acl", "genpass", "-1"}), range_error);
  EXPECT_EQ(Run({"acl", "genpass", "4097"}), range_error);
  EXPECT_EQ(Run({"acl", "genpass", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(
      Run({"acl", "genpass", "1", "2"}),
      Err("ERR unknown subcommand or wrong number of arguments for 'genpass'. Try ACL HELP."));
}

TEST_F(AclFamilyTest, LoadAndSaveNeedAnAclFile) {
  EXPECT_EQ(Run({"acl", "load"}), Err(kNoAclFile));
  EXPECT_EQ(Run({"acl", "save"}), Err(kNoAclFile));
  EXPECT_EQ(Run({"acl", "load", "x"}), Err("ERR wrong number of arguments for 'acl|load' command"));
}

std::string AclFilePath() {
  return ::testing::TempDir() + "/ordis_acl_family_test_" + std::to_string(getpid()) + ".acl";
}

class AclFileTest : public FamilyTest {
 protected:
  AclFileTest() : FamilyTest({{"aclfile", Create()}}) {}
  ~AclFileTest() override { std::filesystem::remove(AclFilePath()); }
  static std::string Create() {
    std::ofstream(AclFilePath()) << "user default on nopass ~* &* +@all\n"
                                 << "user bob on #" << kP1Hash << " ~b* +get\n";
    return AclFilePath();
  }
};

TEST_F(AclFileTest, SaveThenLoad) {
  EXPECT_EQ(Run({"acl", "users"}), Strings({"bob", "default"}));
  EXPECT_EQ(Run({"acl", "setuser", "carol", "on", "nopass", "+ping"}), Ok());
  EXPECT_EQ(Run({"acl", "save"}), Ok());
  EXPECT_EQ(Run({"acl", "deluser", "carol", "bob"}), Int(2));
  EXPECT_EQ(Run({"acl", "load"}), Ok());
  EXPECT_EQ(Run({"acl", "list"}),
            Strings({"user bob on #" + std::string(kP1Hash) + " ~b* resetchannels -@all +get",
                     "user carol on nopass resetchannels -@all +ping",
                     "user default on nopass ~* &* +@all"}));
  TestClient& bob = NewClient();
  EXPECT_EQ(bob.Run({"auth", "bob", "p1"}), Ok());
  EXPECT_EQ(bob.Run({"get", "b1"}), Nil());
  // A reload replaces every user but default: their clients are closed, the default user's stay.
  TestClient& plain = NewClient();
  EXPECT_EQ(Run({"acl", "load"}), Ok());
  EXPECT_TRUE(bob.state().kill_requested.load());
  EXPECT_FALSE(plain.state().kill_requested.load());
  EXPECT_FALSE(client().state().close_after_reply);
}

TEST_F(AclFamilyTest, Help) {
  Reply help = Run({"acl", "help"});
  ASSERT_EQ(help.type, Reply::Type::kArray) << help;
  ASSERT_EQ(help.elements.size(), 29u);
  EXPECT_EQ(help.elements.front(),
            Status("ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
  EXPECT_EQ(help.elements[7],
            Status("    Returns whether the user can execute the given command without executing "
                   "the command."));
  EXPECT_EQ(help.elements.back(), Status("    Prints this help."));
  EXPECT_EQ(Run({"acl"}), Err("ERR wrong number of arguments for 'acl' command"));
  EXPECT_EQ(Run({"acl", "nosuch"}), Err("ERR unknown subcommand 'nosuch'. Try ACL HELP."));
}

TEST_F(AclFamilyTest, DryRun) {
  EXPECT_EQ(Run({"acl", "setuser", "dr", "on", "nopass", "~a*", "+get", "+set", "+config|get",
                 "+select|1"}),
            Ok());
  auto dry = [&](std::vector<std::string> call) {
    call.insert(call.begin(), {"acl", "dryrun", "dr"});
    return Run(call);
  };
  EXPECT_EQ(dry({"get", "a1"}), Ok());
  EXPECT_EQ(dry({"get", "b1"}), Bulk("This user has no permissions to access the 'b1' key"));
  EXPECT_EQ(dry({"set", "b1", "v"}), Bulk("This user has no permissions to access the 'b1' key"));
  EXPECT_EQ(dry({"del", "a1"}), Bulk("This user has no permissions to run the 'del' command"));
  EXPECT_EQ(dry({"config", "get", "x"}), Ok());
  EXPECT_EQ(dry({"config", "set", "x", "y"}),
            Bulk("This user has no permissions to run the 'config|set' command"));
  EXPECT_EQ(dry({"select", "1"}), Ok());
  EXPECT_EQ(dry({"select", "2"}), Bulk("This user has no permissions to run the 'select' command"));
  EXPECT_EQ(dry({"acl", "whoami"}),
            Bulk("This user has no permissions to run the 'acl|whoami' command"));
  EXPECT_EQ(dry({"nosuch"}), Err("ERR Command 'nosuch' not found"));
  EXPECT_EQ(dry({"config", "nosuch"}), Err("ERR Command 'config' not found"));
  EXPECT_EQ(dry({"get"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(dry({"get", "a", "b"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(dry({"config"}), Err("ERR wrong number of arguments for 'config' command"));
  EXPECT_EQ(Run({"acl", "dryrun", "nobody", "get", "a"}), Err("ERR User 'nobody' not found"));
  EXPECT_EQ(Run({"acl", "dryrun", "default", "get", "x"}), Ok());
  EXPECT_EQ(Run({"acl", "dryrun", "dr"}),
            Err("ERR wrong number of arguments for 'acl|dryrun' command"));
  // A dry run is not a denial: nothing is logged.
  EXPECT_EQ(Run({"acl", "log"}), Array({}));
}

TEST_F(AclFamilyTest, ReadOnlyAndWriteOnlyKeys) {
  EXPECT_EQ(Run({"acl", "setuser", "ro", "on", "nopass", "%R~*", "+@all"}), Ok());
  EXPECT_EQ(Run({"acl", "setuser", "wo", "on", "nopass", "%W~*", "+@all"}), Ok());
  TestClient& ro = ClientAs("ro");
  TestClient& wo = ClientAs("wo");
  EXPECT_EQ(ro.Run({"set", "k", "v"}), Err(kNoPermKey));
  EXPECT_EQ(ro.Run({"get", "k"}), Nil());
  EXPECT_EQ(ro.Run({"acl", "whoami"}), Bulk("ro"));
  EXPECT_EQ(wo.Run({"get", "k"}), Err(kNoPermKey));
  EXPECT_EQ(wo.Run({"set", "k", "v"}), Ok());         // SET's key spec: OW UPDATE, no ACCESS
  EXPECT_EQ(wo.Run({"lpush", "l", "a"}), Int(1));     // RW INSERT
  EXPECT_EQ(wo.Run({"incr", "n"}), Err(kNoPermKey));  // RW ACCESS UPDATE: reads too
  EXPECT_EQ(ro.Run({"get", "k"}), Bulk("v"));
  // SET ... GET returns the old value: it reads its key too (Redis's variable key-spec flags).
  EXPECT_EQ(wo.Run({"set", "k", "v", "get"}), Err(kNoPermKey));
  EXPECT_EQ(wo.Run({"set", "k", "get"}), Ok());  // "get" as the value
  // Commands that look at a key's existence, type or size need neither: any pattern will do.
  EXPECT_EQ(wo.Run({"exists", "k"}), Int(1));
  EXPECT_EQ(wo.Run({"type", "k"}), Status("string"));
  EXPECT_EQ(wo.Run({"strlen", "k"}), Int(3));
  EXPECT_EQ(ro.Run({"exists", "k"}), Int(1));
  EXPECT_EQ(ro.Run({"del", "k"}), Err(kNoPermKey));
  EXPECT_EQ(wo.Run({"hdel", "h", "f"}), Int(0));  // RW DELETE, no ACCESS
  EXPECT_EQ(Run({"acl", "dryrun", "wo", "set", "k", "v", "GET"}),
            Bulk("This user has no permissions to access the 'k' key"));
  EXPECT_EQ(Run({"acl", "dryrun", "wo", "exists", "k"}), Ok());
}

TEST_F(AclFamilyTest, Selectors) {
  EXPECT_EQ(Run({"acl", "setuser", "sel", "on", "nopass", "~a*", "+get", "(~b*", "+set)"}), Ok());
  TestClient& sel = ClientAs("sel");
  EXPECT_EQ(sel.Run({"get", "a1"}), Nil());
  EXPECT_EQ(sel.Run({"get", "b1"}), Err(kNoPermKey));
  EXPECT_EQ(sel.Run({"set", "b1", "v"}), Ok());
  EXPECT_EQ(sel.Run({"set", "a1", "v"}), Err(kNoPermKey));
  EXPECT_EQ(sel.Run({"acl", "getuser", "sel"}), Err(NoPermCommand("acl|getuser")));
}

TEST_F(AclFamilyTest, SubcommandAndFirstArgRules) {
  EXPECT_EQ(Run({"acl", "setuser", "cg", "on", "nopass", "~*", "+config|get", "+select|0"}), Ok());
  TestClient& cg = ClientAs("cg");
  EXPECT_EQ(cg.Run({"config", "get", "maxmemory"}), Strings({"maxmemory", "0"}));
  EXPECT_EQ(cg.Run({"config", "set", "maxmemory", "0"}), Err(NoPermCommand("config|set")));
  EXPECT_EQ(cg.Run({"select", "0"}), Ok());
  EXPECT_EQ(cg.Run({"select", "1"}), Err(NoPermCommand("select")));
  EXPECT_EQ(cg.Run({"ping"}), Err(NoPermCommand("ping")));
  EXPECT_EQ(LogEntries(Run({"acl", "log"})), (Log{{1, "command", "toplevel", "ping", "cg"},
                                                  {1, "command", "toplevel", "select", "cg"},
                                                  {1, "command", "toplevel", "config|set", "cg"}}));
}

TEST_F(AclFamilyTest, DenialWhileQueuingAbortsExec) {
  EXPECT_EQ(Run({"acl", "setuser", "ro", "on", "nopass", "%R~*", "+@all"}), Ok());
  TestClient& ro = ClientAs("ro");
  EXPECT_EQ(ro.Run({"multi"}), Ok());
  EXPECT_EQ(ro.Run({"set", "k", "v"}), Err(kNoPermKey));
  EXPECT_EQ(ro.Run({"get", "k"}), Status("QUEUED"));
  EXPECT_EQ(ro.Run({"exec"}), Err("EXECABORT Transaction discarded because of previous errors."));
  // Logged with the "multi" context, as Redis does for a client inside MULTI.
  EXPECT_EQ(LogEntries(Run({"acl", "log"})), (Log{{1, "key", "multi", "k", "ro"}}));
}

TEST_F(AclFamilyTest, PermissionRevokedBeforeExec) {
  EXPECT_EQ(Run({"acl", "setuser", "u1", "on", "nopass", "~*", "+@all"}), Ok());
  TestClient& u1 = ClientAs("u1");
  EXPECT_EQ(u1.Run({"multi"}), Ok());
  EXPECT_EQ(u1.Run({"set", "k", "v"}), Status("QUEUED"));
  EXPECT_EQ(u1.Run({"get", "k"}), Status("QUEUED"));
  EXPECT_EQ(u1.Run({"ping"}), Status("QUEUED"));
  EXPECT_EQ(Run({"acl", "setuser", "u1", "-set", "resetkeys", "~z*"}), Ok());
  EXPECT_EQ(u1.Run({"exec"}),
            Array({Err("NOPERM ACLs rules changed between the moment the transaction was "
                       "accumulated and the EXEC call. This command is no longer allowed for the "
                       "following reason: no permission to execute the command or subcommand"),
                   Err("NOPERM ACLs rules changed between the moment the transaction was "
                       "accumulated and the EXEC call. This command is no longer allowed for the "
                       "following reason: no permission to touch the specified keys"),
                   Status("PONG")}));
  EXPECT_EQ(Run({"exists", "k"}), Int(0));
  EXPECT_EQ(LogEntries(Run({"acl", "log"})),
            (Log{{1, "key", "multi", "k", "u1"}, {1, "command", "multi", "set", "u1"}}));
}

TEST_F(AclFamilyTest, LogCountsResetsAndLimits) {
  EXPECT_EQ(Run({"acl", "log"}), Array({}));
  EXPECT_EQ(Run({"acl", "setuser", "u", "on", "nopass", "~a*", "+get"}), Ok());
  TestClient& u = ClientAs("u");
  EXPECT_EQ(u.Run({"get", "b"}), Err(kNoPermKey));
  EXPECT_EQ(u.Run({"get", "b"}), Err(kNoPermKey));  // the same denial: counted in one entry
  EXPECT_EQ(u.Run({"get", "c"}), Err(kNoPermKey));
  EXPECT_EQ(u.Run({"set", "a", "v"}), Err(NoPermCommand("set")));
  EXPECT_EQ(LogEntries(Run({"acl", "log"})), (Log{{1, "command", "toplevel", "set", "u"},
                                                  {1, "key", "toplevel", "c", "u"},
                                                  {2, "key", "toplevel", "b", "u"}}));
  Reply one = Run({"acl", "log", "1"});
  ASSERT_EQ(one.elements.size(), 1u) << one;
  const Reply entry = one.elements[0];
  EXPECT_EQ(entry.elements[0], Bulk("count"));
  EXPECT_EQ(entry.elements[10], Bulk("age-seconds"));
  EXPECT_EQ(entry.elements[11].type, Reply::Type::kBulk);  // a double, RESP2
  EXPECT_EQ(entry.elements[12], Bulk("client-info"));
  EXPECT_NE(entry.elements[13].str.find(" cmd=set user=u "), std::string::npos)
      << entry.elements[13];
  EXPECT_EQ(Run({"acl", "log", "0"}), Array({}));
  EXPECT_EQ(Run({"acl", "log", "-1"}), Array({}));
  EXPECT_EQ(Run({"acl", "log", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"acl", "LOG", "1", "2"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'LOG'. Try ACL HELP."));
  EXPECT_EQ(Run({"acl", "log", "reset"}), Ok());
  EXPECT_EQ(Run({"acl", "log"}), Array({}));
}

TEST_F(AclFamilyTest, AuthFailuresAndNames) {
  EXPECT_EQ(Run({"acl", "setuser", "Bob", "on", ">pw", "+acl|whoami"}), Ok());
  TestClient& c = NewClient();
  EXPECT_EQ(c.Run({"auth", "nobody", "x"}), Err(kWrongPass));
  EXPECT_EQ(c.Run({"AUTH", "default", "x"}), Ok());             // nopass: any password
  EXPECT_EQ(c.Run({"auth", "DEFAULT", "x"}), Err(kWrongPass));  // names are case-sensitive
  EXPECT_EQ(c.Run({"auth", "bob", "pw"}), Err(kWrongPass));
  EXPECT_EQ(c.Run({"auth", "Bob", "wrong"}), Err(kWrongPass));
  EXPECT_EQ(c.Run({"acl", "whoami"}), Bulk("default"));  // failures leave the user as it was
  EXPECT_EQ(c.Run({"auth", "Bob", "pw"}), Ok());
  EXPECT_EQ(c.Run({"acl", "whoami"}), Bulk("Bob"));
  EXPECT_EQ(c.Run({"ping"}), Err(NoPermCommand("ping")));
  EXPECT_EQ(Run({"acl", "setuser", "off1", "off", "nopass", "+@all"}), Ok());
  EXPECT_EQ(c.Run({"auth", "off1", "x"}), Err(kWrongPass));  // a disabled user
  EXPECT_EQ(c.Run({"hello", "3", "auth", "nobody", "x"}), Err(kWrongPass));
  EXPECT_EQ(LogEntries(Run({"acl", "log"})), (Log{{1, "auth", "toplevel", "hello", "nobody"},
                                                  {1, "auth", "toplevel", "auth", "off1"},
                                                  {1, "command", "toplevel", "ping", "Bob"},
                                                  {1, "auth", "toplevel", "auth", "Bob"},
                                                  {1, "auth", "toplevel", "auth", "bob"},
                                                  {1, "auth", "toplevel", "auth", "DEFAULT"},
                                                  {1, "auth", "toplevel", "auth", "nobody"}}));
  Reply stats = Run({"info", "stats"});
  EXPECT_NE(stats.str.find("\r\nacl_access_denied_auth:6\r\n"), std::string::npos) << stats;
  EXPECT_NE(stats.str.find("\r\nacl_access_denied_cmd:1\r\n"), std::string::npos) << stats;
}

TEST_F(AclFamilyTest, ResetReturnsToTheDefaultUser) {
  EXPECT_EQ(Run({"acl", "setuser", "u", "on", "nopass", "+@all", "~*"}), Ok());
  TestClient& u = ClientAs("u");
  EXPECT_EQ(u.Run({"acl", "whoami"}), Bulk("u"));
  EXPECT_EQ(u.Run({"reset"}), Status("RESET"));
  EXPECT_EQ(u.Run({"acl", "whoami"}), Bulk("default"));
}

TEST_F(AclFamilyTest, RequirePassGivesTheDefaultUserAPassword) {
  EXPECT_EQ(Run({"config", "set", "requirepass", "s3"}), Ok());
  EXPECT_EQ(Run({"ping"}), Status("PONG"));  // clients already connected stay authenticated
  Reply user = Run({"acl", "getuser", "default"});
  EXPECT_EQ(Field(user, "flags"), Strings({"on"}));
  EXPECT_EQ(Field(user, "passwords"),
            Strings({"41242b9fae56fad4e6e77dfe33cb18d1c3fc583f988cf25ef9f2d9be0d440bbb"}));
  TestClient& c = NewClient();
  EXPECT_EQ(c.Run({"ping"}), Err("NOAUTH Authentication required."));
  EXPECT_EQ(c.Run({"acl", "whoami"}), Err("NOAUTH Authentication required."));
  EXPECT_EQ(c.Run({"auth", "wrong"}), Err(kWrongPass));
  EXPECT_EQ(c.Run({"auth", "s3"}), Ok());
  EXPECT_EQ(c.Run({"acl", "whoami"}), Bulk("default"));
  EXPECT_EQ(c.Run({"reset"}), Status("RESET"));
  EXPECT_EQ(c.Run({"ping"}), Err("NOAUTH Authentication required."));
  EXPECT_EQ(Run({"config", "set", "requirepass", ""}), Ok());
  EXPECT_EQ(Field(Run({"acl", "getuser", "default"}), "flags"), Strings({"on", "nopass"}));
  EXPECT_EQ(c.Run({"ping"}), Status("PONG"));
  EXPECT_EQ(c.Run({"auth", "x"}),
            Err("ERR AUTH <password> called without any password configured for the default "
                "user. Are you sure your configuration is correct?"));
}

// KRANGE names no keys but WITHVALUES returns values: each returned key must be readable, or the
// range would read keys the user's patterns exclude. Names alone, as SCAN and KEYS, stay visible.
TEST_F(AclFamilyTest, KRangeWithValuesChecksEveryKey) {
  EXPECT_EQ(Run({"mset", "pub:a", "1", "pub:b", "2", "secret:c", "3"}), Ok());
  EXPECT_EQ(Run({"acl", "setuser", "u", "on", "nopass", "~pub:*", "+@all"}), Ok());
  TestClient& u = ClientAs("u");
  EXPECT_EQ(u.Run({"krange", "[pub:", "[pub:~", "WITHVALUES"}),
            Strings({"pub:a", "1", "pub:b", "2"}));
  EXPECT_EQ(u.Run({"krange", "-", "+", "WITHVALUES"}),
            Err("NOPERM this user has no permissions to access one of the keys used as arguments"));
  EXPECT_EQ(u.Run({"krange", "-", "+"}), Strings({"pub:a", "pub:b", "secret:c"}));
  // The default user reads everything.
  EXPECT_EQ(Run({"krange", "[secret:", "+", "WITHVALUES"}), Strings({"secret:c", "3"}));
}

}  // namespace
}  // namespace ordis::server::test
