#include <string>
#include <vector>

#include "server/commands/family_test_support.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server::test {
namespace {

constexpr std::string_view kDebugNotAllowed =
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you "
    "can run it from a local connection, otherwise you need to set this option in the "
    "configuration file, and then restart the server.";

class DebugRefusedTest : public FamilyTest {};

// DEBUG is allowed ("yes"); the in-process clients are local too.
class DebugFamilyTest : public FamilyTest {
 protected:
  DebugFamilyTest() : FamilyTest({{"enable-debug-command", "yes"}}) {}
};

TEST_F(DebugRefusedTest, ByDefault) {
  EXPECT_EQ(Run({"debug", "sleep", "0"}), Err(kDebugNotAllowed));
  EXPECT_EQ(Run({"debug", "help"}), Err(kDebugNotAllowed));
  EXPECT_EQ(Run({"debug"}), Err("ERR wrong number of arguments for 'debug' command"));
}

TEST_F(DebugFamilyTest, Sleep) {
  EXPECT_EQ(Run({"debug", "sleep", "0"}), Ok());
  EXPECT_EQ(Run({"DEBUG", "SLEEP", "0.001"}), Ok());
  EXPECT_EQ(Run({"debug", "sleep", "-1"}), Ok());
}

TEST_F(DebugFamilyTest, UnknownSubcommandOrArity) {
  EXPECT_EQ(Run({"debug", "FOO"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'FOO'. Try DEBUG HELP."));
  EXPECT_EQ(Run({"debug", "SLEEP"}), Err("ERR unknown subcommand or wrong number of arguments for "
                                         "'SLEEP'. Try DEBUG HELP."));
  EXPECT_EQ(Run({"debug", "sleep", "0", "1"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'sleep'. Try DEBUG "
                "HELP."));
  EXPECT_EQ(Run({"debug"}), Err("ERR wrong number of arguments for 'debug' command"));
}

// Digests as redis-server 7.0.15 computes them for the same keys.
TEST_F(DebugFamilyTest, DigestsAreRedisOwn) {
  const std::string zero(40, '0');
  EXPECT_EQ(Run({"debug", "digest"}), Status(zero));
  Run({"set", "s", "abc"});
  Run({"set", "i", "123"});
  Run({"rpush", "l", "a", "b", "c"});
  Run({"zadd", "z", "1.5", "a", "0.1", "b"});
  Run({"sadd", "st", "x", "y", "1"});
  Run({"hset", "h", "f", "v", "g", "w"});
  Run({"set", "e", "v", "ex", "100"});
  EXPECT_EQ(Run({"debug", "digest-value", "s", "i", "l", "z", "st", "h", "e", "nosuch"}),
            Array({Status("21ffcd2d36aebffca02995acb412bcb827d4c1db"),
                   Status("89f7f51b707418f666d5b45e053bd5bbbf82ac2b"),
                   Status("8bf72d812571eea9b927f3c11beb0c4165a6ff89"),
                   Status("09248147a8d667e310816b5412a4796dae07d20c"),
                   Status("03ee76a1ebe8db27d61b3ea784011d5acc537675"),
                   Status("d127864ed50239662bf61bafc9bda63c17da5b37"),
                   Status("311b17018163335616e089f6b951c82c477335ac"), Status(zero)}));
  EXPECT_EQ(Run({"debug", "digest"}), Status("25af02a2df9498f9646045a5e71030e6247bd03d"));
}

TEST_F(DebugFamilyTest, PopulateKeepsExistingKeys) {
  Run({"set", "key:1", "mine"});
  EXPECT_EQ(Run({"debug", "populate", "3"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(3));
  EXPECT_EQ(Run({"get", "key:2"}), Bulk("value:2"));
  EXPECT_EQ(Run({"get", "key:1"}), Bulk("mine"));
  EXPECT_EQ(Run({"debug", "populate", "1", "p", "9"}), Ok());
  EXPECT_EQ(Run({"get", "p:0"}), Bulk(std::string("value:0\0\0", 9)));
  EXPECT_EQ(Run({"debug", "populate", "-1"}), Err("ERR value is out of range, must be positive"));
  EXPECT_EQ(Run({"debug", "populate", "1", "p", "-1"}),
            Err("ERR value is out of range, must be positive"));
}

TEST_F(DebugFamilyTest, ObjectLine) {
  Run({"rpush", "l", "a", "b", "c"});
  const Reply line = Run({"debug", "object", "l"});
  ASSERT_EQ(line.type, Reply::Type::kStatus);
  EXPECT_NE(line.str.find(" refcount:1 encoding:quicklist serializedlength:19 lru:"),
            std::string::npos)
      << line;
  EXPECT_NE(line.str.find(" ql_nodes:1 ql_avg_node:3.00 ql_listpack_max:-2 ql_compressed:0 "
                          "ql_uncompressed_size:16"),
            std::string::npos)
      << line;
  EXPECT_EQ(Run({"debug", "object", "nosuch"}), Err("ERR no such key"));
}

TEST_F(DebugFamilyTest, ProtocolTypes) {
  EXPECT_EQ(Run({"debug", "protocol", "map"}),
            Array({Int(0), Int(0), Int(1), Int(1), Int(2), Int(0)}));
  EXPECT_EQ(Run({"debug", "protocol", "push"}), Err("ERR RESP2 is not supported by this command"));
  Run({"hello", "3"});
  EXPECT_EQ(RunRaw({"debug", "protocol", "double"}), ",3.141\r\n");
  EXPECT_EQ(RunRaw({"debug", "protocol", "true"}), "#t\r\n");
  EXPECT_EQ(RunRaw({"debug", "protocol", "attrib"}),
            "|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n"
            "$39\r\nSome real reply following the attribute\r\n");
  EXPECT_EQ(Run({"debug", "error", "FOO bar"}), Err("FOO bar"));
}

TEST_F(DebugFamilyTest, ReloadSavesAndLoadsBack) {
  Run({"set", "s", "abc"});
  Run({"rpush", "l", "a", "b"});
  Run({"set", "t", "v", "ex", "100"});
  Run({"select", "3"});
  Run({"sadd", "st", "x"});
  const Reply digest = Run({"debug", "digest"});
  EXPECT_EQ(Run({"debug", "reload"}), Ok());
  EXPECT_EQ(Run({"debug", "digest"}), digest);
  EXPECT_EQ(Run({"dbsize"}), Int(1));
  // NOSAVE: what was saved comes back, later changes go.
  Run({"sadd", "st", "y"});
  Run({"set", "new", "1"});
  EXPECT_EQ(Run({"debug", "reload", "nosave"}), Ok());
  EXPECT_EQ(Run({"debug", "digest"}), digest);
  // NOFLUSH MERGE: keys of the snapshot replace their namesakes, the others stay.
  Run({"set", "new", "1"});
  Run({"sadd", "st", "z"});
  EXPECT_EQ(Run({"debug", "reload", "nosave", "noflush", "merge"}), Ok());
  EXPECT_EQ(Run({"get", "new"}), Bulk("1"));
  EXPECT_EQ(Run({"smembers", "st"}), Strings({"x"}));
  EXPECT_EQ(Run({"debug", "reload", "foo"}),
            Err("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options."));
}

TEST_F(DebugFamilyTest, SetActiveExpireSwitchesTheKeyspace) {
  EXPECT_EQ(Run({"debug", "set-active-expire", "0"}), Ok());
  EXPECT_FALSE(keyspace().active_expire());
  EXPECT_EQ(Run({"debug", "set-active-expire", "1"}), Ok());
  EXPECT_TRUE(keyspace().active_expire());
}

}  // namespace
}  // namespace ordis::server::test
