// Lazy free through the commands: UNLINK, DEL, FLUSHDB/FLUSHALL [ASYNC|SYNC], the lazyfree-lazy-*
// switches, and INFO memory's lazyfree_pending_objects and lazyfreed_objects. Every count was
// first checked against redis-server 7.0.15 (whose sets of 100 members are hashtables: freed
// lazily; its strings and small values inline).
#include <chrono>
#include <string>
#include <vector>

#include "server/commands/family_test_support.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server::test {
namespace {

using namespace std::chrono_literals;

class LazyFreeFamilyTest : public FamilyTest {
 protected:
  // A set of 100 members at key: past the lazy-free threshold.
  void BigSet(const std::string& key) {
    std::vector<std::string> args = {"sadd", key};
    for (int i = 0; i < 100; ++i) args.push_back("member:" + std::to_string(i));
    ASSERT_EQ(Run(args), Int(100));
  }
  // INFO memory's field, once the lazy-free thread has nothing pending.
  std::string Field(std::string_view name) {
    EXPECT_TRUE(keyspace().lazy_free().WaitIdle(20s));
    const std::string info = "\r\n" + Run({"info", "memory"}).str;
    const size_t at = info.find("\r\n" + std::string(name) + ":");
    if (at == std::string::npos) return "missing";
    const size_t begin = at + 3 + name.size();
    return info.substr(begin, info.find("\r\n", begin) - begin);
  }
  std::string Freed() { return Field("lazyfreed_objects"); }
};

TEST_F(LazyFreeFamilyTest, InfoMemoryReportsBothFieldsAfterActiveDefrag) {
  const std::string info = Run({"info", "memory"}).str;
  EXPECT_NE(info.find("\r\nactive_defrag_running:0\r\nlazyfree_pending_objects:0\r\n"
                      "lazyfreed_objects:0\r\n"),
            std::string::npos)
      << info;
}

TEST_F(LazyFreeFamilyTest, UnlinkFreesLargeValuesOnTheThread) {
  BigSet("big");
  ASSERT_EQ(Run({"set", "small", "v"}), Ok());
  EXPECT_EQ(Run({"unlink", "big", "small", "missing"}), Int(2));
  EXPECT_EQ(Run({"exists", "big", "small"}), Int(0));
  EXPECT_EQ(Run({"smembers", "big"}), Array({}));
  EXPECT_EQ(Freed(), "1");  // the set; the string went inline
  EXPECT_EQ(Field("lazyfree_pending_objects"), "0");
  EXPECT_EQ(Run({"config", "resetstat"}), Ok());
  EXPECT_EQ(Freed(), "0");
}

TEST_F(LazyFreeFamilyTest, DelFollowsLazyfreeLazyUserDel) {
  EXPECT_EQ(Run({"config", "get", "lazyfree-lazy-user-del"}),
            Strings({"lazyfree-lazy-user-del", "no"}));
  BigSet("big");
  EXPECT_EQ(Run({"del", "big"}), Int(1));
  EXPECT_EQ(Freed(), "0");
  EXPECT_EQ(Run({"config", "set", "lazyfree-lazy-user-del", "yes"}), Ok());
  BigSet("big");
  EXPECT_EQ(Run({"del", "big", "missing"}), Int(1));
  EXPECT_EQ(Freed(), "1");
}

TEST_F(LazyFreeFamilyTest, FlushAsyncHandsOverEveryKey) {
  ASSERT_EQ(Run({"mset", "a", "1", "b", "2"}), Ok());
  BigSet("s");
  ASSERT_EQ(Run({"select", "1"}), Ok());
  ASSERT_EQ(Run({"set", "c", "3"}), Ok());
  EXPECT_EQ(Run({"flushdb", "async"}), Ok());  // db 1's one key, small as it is
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Freed(), "1");
  ASSERT_EQ(Run({"set", "c", "3"}), Ok());
  EXPECT_EQ(Run({"flushall", "ASYNC"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  ASSERT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Freed(), "5");
  EXPECT_EQ(Run({"flushall", "async"}), Ok());  // nothing to hand over
  EXPECT_EQ(Freed(), "5");
  EXPECT_EQ(Run({"flushall", "async", "sync"}), Err("ERR syntax error"));
}

TEST_F(LazyFreeFamilyTest, PlainFlushFollowsLazyfreeLazyUserFlush) {
  BigSet("s");
  EXPECT_EQ(Run({"flushall"}), Ok());
  EXPECT_EQ(Freed(), "0");
  EXPECT_EQ(Run({"config", "set", "lazyfree-lazy-user-flush", "yes"}), Ok());
  BigSet("s");
  EXPECT_EQ(Run({"flushall"}), Ok());
  EXPECT_EQ(Freed(), "1");
  BigSet("s");
  EXPECT_EQ(Run({"flushdb"}), Ok());
  EXPECT_EQ(Freed(), "2");
  BigSet("s");
  EXPECT_EQ(Run({"flushall", "sync"}), Ok());
  EXPECT_EQ(Freed(), "2");
}

// Values a command deletes or overwrites as a side effect.
TEST_F(LazyFreeFamilyTest, ServerSideDeletesFollowLazyfreeLazyServerDel) {
  BigSet("s");
  ASSERT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Freed(), "0");
  EXPECT_EQ(Run({"config", "set", "lazyfree-lazy-server-del", "yes"}), Ok());
  ASSERT_EQ(Run({"del", "s"}), Int(1));
  BigSet("s");
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  EXPECT_EQ(Freed(), "1");
  BigSet("a");
  BigSet("b");
  EXPECT_EQ(Run({"rename", "a", "b"}), Ok());
  EXPECT_EQ(Freed(), "2");
  EXPECT_EQ(Run({"scard", "b"}), Int(100));
  EXPECT_EQ(Run({"sinterstore", "b", "nosuchkey"}), Int(0));
  EXPECT_EQ(Freed(), "3");
  BigSet("c");
  BigSet("d");
  EXPECT_EQ(Run({"copy", "c", "d", "replace"}), Int(1));
  EXPECT_EQ(Freed(), "4");
  // An explicit DEL is the user's, not the server's.
  EXPECT_EQ(Run({"del", "d"}), Int(1));
  EXPECT_EQ(Freed(), "4");
}

TEST_F(LazyFreeFamilyTest, ExpireInThePastFollowsLazyfreeLazyExpire) {
  BigSet("s");
  EXPECT_EQ(Run({"expire", "s", "-1"}), Int(1));
  EXPECT_EQ(Freed(), "0");
  EXPECT_EQ(Run({"config", "set", "lazyfree-lazy-expire", "yes"}), Ok());
  BigSet("s");
  EXPECT_EQ(Run({"pexpireat", "s", "1"}), Int(1));
  EXPECT_EQ(Run({"exists", "s"}), Int(0));
  EXPECT_EQ(Freed(), "1");
}

TEST_F(LazyFreeFamilyTest, TheSwitchesAreBooleans) {
  EXPECT_EQ(Run({"config", "set", "lazyfree-lazy-eviction", "maybe"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'lazyfree-lazy-eviction') - "
                "argument must be 'yes' or 'no'"));
  EXPECT_EQ(Run({"config", "set", "lazyfree-lazy-eviction", "yes", "lazyfree-lazy-expire", "yes"}),
            Ok());
  EXPECT_EQ(Run({"config", "get", "lazyfree-lazy-eviction"}),
            Strings({"lazyfree-lazy-eviction", "yes"}));
  EXPECT_EQ(Run({"config", "get", "lazyfree-lazy-expire"}),
            Strings({"lazyfree-lazy-expire", "yes"}));
}

}  // namespace
}  // namespace ordis::server::test
