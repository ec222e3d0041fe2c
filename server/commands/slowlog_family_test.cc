#include <string>
#include <vector>

#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class SlowlogFamilyTest : public FamilyTest {
 protected:
  // The arguments of each entry, newest first.
  std::vector<Reply> LoggedArgs() {
    std::vector<Reply> out;
    for (const Reply& e : Run({"slowlog", "get", "-1"}).elements) out.push_back(e.elements[3]);
    return out;
  }
};

TEST_F(SlowlogFamilyTest, LogsCommandsOverTheThresholdAsRedis) {
  EXPECT_EQ(Run({"slowlog", "len"}), Int(0));
  Run({"config", "set", "slowlog-log-slower-than", "0"});
  EXPECT_EQ(Run({"slowlog", "reset"}), Ok());
  Run({"set", "k", std::string(200, 'v')});
  std::vector<std::string> push = {"rpush", "l"};
  for (int i = 0; i < 40; ++i) push.push_back(std::to_string(i));
  Run(push);
  Run({"auth", "default", "secret"});
  Run({"config", "set", "requirepass", "", "maxmemory", "0"});
  Run({"multi"});
  Run({"incr", "x"});
  Run({"exec"});  // skip_slowlog: its commands are logged, not itself
  std::vector<Reply> args = LoggedArgs();
  ASSERT_EQ(args.size(), 7u);
  EXPECT_EQ(args[0], Strings({"incr", "x"}));
  EXPECT_EQ(args[1], Strings({"multi"}));
  EXPECT_EQ(args[2], Strings({"config", "set", "requirepass", "(redacted)", "maxmemory", "0"}));
  EXPECT_EQ(args[3], Strings({"auth", "(redacted)", "(redacted)"}));
  std::vector<std::string> kept(push.begin(), push.begin() + 31);
  kept.push_back("... (11 more arguments)");
  EXPECT_EQ(args[4], Strings(kept));
  EXPECT_EQ(args[5], Strings({"set", "k", std::string(128, 'v') + "... (72 more bytes)"}));
  EXPECT_EQ(args[6], Strings({"slowlog", "reset"}));
  // Entry ids count up from the first ever; GET's count; the length limit.
  Reply newest = Run({"slowlog", "get", "1"});
  ASSERT_EQ(newest.elements.size(), 1u);
  EXPECT_EQ(newest.elements[0].elements.size(), 6u);
  Run({"config", "set", "slowlog-max-len", "2"});
  Run({"ping"});
  EXPECT_EQ(Run({"slowlog", "len"}), Int(2));
  Run({"config", "set", "slowlog-log-slower-than", "-1"});
  Run({"slowlog", "reset"});
  Run({"ping"});
  EXPECT_EQ(Run({"slowlog", "len"}), Int(0));
}

TEST_F(SlowlogFamilyTest, Errors) {
  EXPECT_EQ(Run({"slowlog", "get", "x"}), Err("ERR count should be greater than or equal to -1"));
  EXPECT_EQ(Run({"slowlog", "get", "-2"}), Err("ERR count should be greater than or equal to -1"));
  EXPECT_EQ(Run({"slowlog", "get", "1", "2"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG "
                "HELP."));
  EXPECT_EQ(Run({"slowlog", "foo"}), Err("ERR unknown subcommand 'foo'. Try SLOWLOG HELP."));
}

}  // namespace
}  // namespace ordis::server::test
