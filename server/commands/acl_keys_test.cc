// Key permissions on every command of every family: for each command with keys, a call built from
// its key positions is allowed when every key matches the user's pattern and refused, naming the
// first key that does not, otherwise. Checked through CheckCommand, the check the dispatcher runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "server/acl/users.h"
#include "server/command/acl_bridge.h"
#include "server/commands/families.h"
#include "server/commands/family_test_support.h"

namespace ordis::server {
namespace {

// args for spec: the name (and subcommand), then placeholders, with `key(i)` at each key position.
template <typename KeyName>
std::vector<std::string> Call(const CommandSpec& spec, KeyName key) {
  std::vector<std::string> args = test::CommandWords(spec.name);
  size_t argc = static_cast<size_t>(spec.arity > 0 ? spec.arity : -spec.arity) + 2;
  if (spec.numkeys_arg > 0) argc = std::max(argc, static_cast<size_t>(spec.numkeys_arg) + 4);
  while (args.size() < argc) args.emplace_back("0");
  if (spec.numkeys_arg > 0) args[spec.numkeys_arg] = "2";  // ZUNION 2 a b ...
  std::vector<std::string_view> views(args.begin(), args.end());
  std::vector<size_t> positions;
  KeyPositions(spec, views, &positions);
  size_t n = 0;
  for (size_t i : positions) args[i] = key(n++);
  return args;
}

class AclKeysTest : public ::testing::Test {
 protected:
  AclKeysTest() : users_(BuildAclCatalog(AllCommands())) {
    std::vector<std::string> rules = {"on", "nopass", "~allowed:*", "+@all"};
    EXPECT_EQ(users_.SetUser("u", rules), "");
    user_ = users_.Find("u");
  }
  // The verdict's keys_ and channels_ are views into args_, the call's arguments, kept until the
  // next call.
  acl::Verdict Check(const CommandSpec& spec, std::vector<std::string> args) {
    args_ = std::move(args);
    std::vector<std::string_view> views(args_.begin(), args_.end());
    return CheckCommand(*user_, spec, views, &keys_, &channels_);
  }
  acl::Users users_;
  std::vector<std::string> args_;
  std::shared_ptr<const acl::User> user_;
  std::vector<acl::KeyRef> keys_;
  std::vector<acl::ChannelRef> channels_;
};

TEST_F(AclKeysTest, EveryCommandWithKeys) {
  int checked = 0;
  for (const CommandSpec* spec : AllCommands().flat()) {
    if (spec->first_key <= 0 && spec->numkeys_arg <= 0) continue;
    SCOPED_TRACE(std::string(spec->name));
    auto allowed = Call(*spec, [](size_t i) { return "allowed:" + std::to_string(i); });
    EXPECT_TRUE(Check(*spec, std::move(allowed)).ok());
    // The last key outside the pattern: refused, and the verdict names it.
    size_t keys = keys_.size();
    ASSERT_GT(keys, 0u);
    auto last_denied = Call(*spec, [keys](size_t i) {
      return (i + 1 == keys ? "denied:" : "allowed:") + std::to_string(i);
    });
    acl::Verdict verdict = Check(*spec, std::move(last_denied));
    ASSERT_EQ(verdict.kind, acl::Verdict::kDeniedKey);
    EXPECT_EQ(keys_[verdict.index].name, "denied:" + std::to_string(keys - 1));
    ++checked;
  }
  EXPECT_GT(checked, 100);  // every family's keyed commands, not a handful
}

// The keys numkeys counts are checked too: ZUNION and its kin would otherwise read any key.
TEST_F(AclKeysTest, NumKeysCommands) {
  auto check = [&](std::vector<std::string> args) {
    const CommandSpec& spec = *AllCommands().Find(args[0]);
    return Check(spec, std::move(args));
  };
  EXPECT_TRUE(check({"zunion", "2", "allowed:a", "allowed:b"}).ok());
  acl::Verdict verdict = check({"zunion", "2", "allowed:a", "secret:b", "WITHSCORES"});
  ASSERT_EQ(verdict.kind, acl::Verdict::kDeniedKey);
  EXPECT_EQ(keys_[verdict.index].name, "secret:b");
  EXPECT_EQ(check({"zunionstore", "allowed:d", "1", "secret:s"}).kind, acl::Verdict::kDeniedKey);
  EXPECT_EQ(check({"zinterstore", "secret:d", "1", "allowed:s"}).kind, acl::Verdict::kDeniedKey);
  EXPECT_EQ(check({"zintercard", "1", "secret:s"}).kind, acl::Verdict::kDeniedKey);
  EXPECT_EQ(check({"sintercard", "1", "secret:s"}).kind, acl::Verdict::kDeniedKey);
  EXPECT_EQ(check({"zdiff", "1", "secret:s"}).kind, acl::Verdict::kDeniedKey);
}

// %R~ and %W~: reads need read access, writes that return nothing of the old value only write.
TEST_F(AclKeysTest, ReadAndWritePatterns) {
  std::vector<std::string> rules = {"on", "nopass", "%R~r:*", "%W~w:*", "~rw:*", "+@all"};
  ASSERT_EQ(users_.SetUser("split", rules), "");
  std::shared_ptr<const acl::User> split = users_.Find("split");
  auto verdict = [&](std::string_view command, std::vector<std::string> args) {
    std::vector<std::string_view> views(args.begin(), args.end());
    return CheckCommand(*split, *AllCommands().Find(command), views, &keys_, &channels_).kind;
  };
  EXPECT_EQ(verdict("get", {"get", "r:1"}), acl::Verdict::kOk);
  EXPECT_EQ(verdict("get", {"get", "w:1"}), acl::Verdict::kDeniedKey);
  EXPECT_EQ(verdict("set", {"set", "w:1", "v"}), acl::Verdict::kOk);
  EXPECT_EQ(verdict("set", {"set", "r:1", "v"}), acl::Verdict::kDeniedKey);
  EXPECT_EQ(verdict("del", {"del", "w:1"}), acl::Verdict::kOk);
  EXPECT_EQ(verdict("incr", {"incr", "w:1"}), acl::Verdict::kDeniedKey);  // reads the old value
  EXPECT_EQ(verdict("incr", {"incr", "rw:1"}), acl::Verdict::kOk);
  EXPECT_EQ(verdict("lpush", {"lpush", "w:1", "x"}), acl::Verdict::kOk);
  EXPECT_EQ(verdict("lpop", {"lpop", "w:1"}), acl::Verdict::kDeniedKey);
  // Two key specs, as Redis's: COPY reads its source and writes its destination; the moves read
  // and write their source and write their destination; *STORE write the destination and read
  // the sources.
  EXPECT_EQ(verdict("copy", {"copy", "r:1", "w:2"}), acl::Verdict::kOk);
  EXPECT_EQ(verdict("copy", {"copy", "w:1", "w:2"}), acl::Verdict::kDeniedKey);
  EXPECT_EQ(verdict("copy", {"copy", "r:1", "r:2"}), acl::Verdict::kDeniedKey);
  EXPECT_EQ(verdict("rename", {"rename", "rw:1", "w:2"}), acl::Verdict::kOk);
  EXPECT_EQ(verdict("rename", {"rename", "w:1", "w:2"}), acl::Verdict::kDeniedKey);
  EXPECT_EQ(verdict("lmove", {"lmove", "rw:1", "w:2", "LEFT", "RIGHT"}), acl::Verdict::kOk);
  EXPECT_EQ(verdict("smove", {"smove", "rw:1", "r:2", "m"}), acl::Verdict::kDeniedKey);
  EXPECT_EQ(verdict("sinterstore", {"sinterstore", "w:d", "r:1", "r:2"}), acl::Verdict::kOk);
  EXPECT_EQ(verdict("sinterstore", {"sinterstore", "r:d", "r:1"}), acl::Verdict::kDeniedKey);
  EXPECT_EQ(verdict("sinterstore", {"sinterstore", "w:d", "w:1"}), acl::Verdict::kDeniedKey);
  EXPECT_EQ(verdict("zunionstore", {"zunionstore", "w:d", "2", "r:1", "rw:2"}), acl::Verdict::kOk);
  EXPECT_EQ(verdict("zrangestore", {"zrangestore", "w:d", "r:1", "0", "-1"}), acl::Verdict::kOk);
}

}  // namespace
}  // namespace ordis::server
