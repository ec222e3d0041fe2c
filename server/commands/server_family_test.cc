// CONFIG DBSIZE FLUSHDB FLUSHALL TIME DEBUG MEMORY (and SWAPDB, registered with the keys family),
// in-process. Every expectation was checked against redis-server 7.0.15. SHUTDOWN is not run here.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/number.h"
#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class ServerFamilyTest : public FamilyTest {};

// CONFIG GET's name/value pairs sorted by name (Redis's order follows its dict).
std::vector<std::pair<std::string, std::string>> SortedPairs(const Reply& r) {
  std::vector<std::pair<std::string, std::string>> pairs;
  EXPECT_EQ(r.elements.size() % 2, 0u) << r;
  for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
    pairs.emplace_back(r.elements[i].str, r.elements[i + 1].str);
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// --- CONFIG ---

TEST_F(ServerFamilyTest, ConfigGetReturnsNameAndValue) {
  EXPECT_EQ(RunRaw({"config", "get", "maxclients"}), "*2\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n");
  EXPECT_EQ(Run({"config", "get", "databases"}), Strings({"databases", "16"}));
  EXPECT_EQ(Run({"config", "get", "maxmemory-policy"}),
            Strings({"maxmemory-policy", "noeviction"}));
  EXPECT_EQ(Run({"config", "get", "timeout"}), Strings({"timeout", "0"}));
  EXPECT_EQ(Run({"config", "get", "hz"}), Strings({"hz", "10"}));
  EXPECT_EQ(Run({"config", "get", "requirepass"}), Strings({"requirepass", ""}));
  EXPECT_EQ(Run({"config", "get", "appendonly"}), Strings({"appendonly", "no"}));
  EXPECT_EQ(Run({"config", "get", "maxmemory"}), Strings({"maxmemory", "0"}));
  EXPECT_EQ(Run({"config", "get", "proto-max-bulk-len"}),
            Strings({"proto-max-bulk-len", "536870912"}));
}

TEST_F(ServerFamilyTest, ConfigGetOfAnUnknownParameterIsEmpty) {
  EXPECT_EQ(Run({"config", "get", "nosuch"}), Array({}));
}

TEST_F(ServerFamilyTest, ConfigGetGlobAndSeveralPatterns) {
  EXPECT_EQ(Run({"config", "get", "maxmemory-p*"}), Strings({"maxmemory-policy", "noeviction"}));
  const auto pairs = SortedPairs(Run({"config", "get", "maxclients", "databases"}));
  const std::vector<std::pair<std::string, std::string>> want = {{"databases", "16"},
                                                                 {"maxclients", "10000"}};
  EXPECT_EQ(pairs, want);
}

TEST_F(ServerFamilyTest, ConfigGetIsAMapInResp3) {
  ASSERT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(RunRaw({"config", "get", "maxclients"}), "%1\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n");
}

TEST_F(ServerFamilyTest, ConfigSetThenGet) {
  EXPECT_EQ(Run({"config", "set", "timeout", "30"}), Ok());
  EXPECT_EQ(Run({"config", "get", "timeout"}), Strings({"timeout", "30"}));
  EXPECT_EQ(Run({"config", "set", "maxmemory-policy", "allkeys-lru"}), Ok());
  EXPECT_EQ(Run({"config", "get", "maxmemory-policy"}),
            Strings({"maxmemory-policy", "allkeys-lru"}));
}

TEST_F(ServerFamilyTest, ConfigSetMemoryUnits) {
  EXPECT_EQ(Run({"config", "set", "maxmemory", "1mb"}), Ok());
  EXPECT_EQ(Run({"config", "get", "maxmemory"}), Strings({"maxmemory", "1048576"}));
}

TEST_F(ServerFamilyTest, ConfigSetSeveralParameters) {
  EXPECT_EQ(Run({"config", "set", "timeout", "5", "hz", "20"}), Ok());
  EXPECT_EQ(Run({"config", "get", "timeout"}), Strings({"timeout", "5"}));
  EXPECT_EQ(Run({"config", "get", "hz"}), Strings({"hz", "20"}));
}

TEST_F(ServerFamilyTest, ConfigSetIsAllOrNothing) {
  EXPECT_EQ(Run({"config", "set", "timeout", "8", "nosuch", "1"}),
            Err("ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'"));
  EXPECT_EQ(Run({"config", "get", "timeout"}), Strings({"timeout", "0"}));
}

TEST_F(ServerFamilyTest, ConfigSetErrors) {
  EXPECT_EQ(Run({"config", "set", "timeout", "x"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'timeout') - argument "
                "couldn't be parsed into an integer"));
  EXPECT_EQ(Run({"config", "set", "timeout", "-1"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'timeout') - argument must "
                "be between 0 and 2147483647 inclusive"));
  EXPECT_EQ(Run({"config", "set", "nosuch", "1"}),
            Err("ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'"));
  EXPECT_EQ(Run({"config", "set", "databases", "4"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
                "immutable config"));
  EXPECT_EQ(Run({"config", "set", "maxmemory-policy", "bogus"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - "
                "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
                "noeviction"));
  EXPECT_EQ(Run({"config", "set", "timeout", "6", "timeout", "7"}),
            Err("ERR CONFIG SET failed (possibly related to argument 'timeout') - duplicate "
                "parameter"));
}

TEST_F(ServerFamilyTest, ConfigSetArity) {
  EXPECT_EQ(Run({"config", "set", "timeout"}),
            Err("ERR wrong number of arguments for 'config|set' command"));
  EXPECT_EQ(Run({"config", "set", "timeout", "1", "hz"}), Err("ERR syntax error"));
}

TEST_F(ServerFamilyTest, ConfigSubcommandErrors) {
  EXPECT_EQ(Run({"config"}), Err("ERR wrong number of arguments for 'config' command"));
  EXPECT_EQ(Run({"config", "get"}), Err("ERR wrong number of arguments for 'config|get' command"));
  EXPECT_EQ(Run({"config", "FOO"}), Err("ERR unknown subcommand 'FOO'. Try CONFIG HELP."));
}

TEST_F(ServerFamilyTest, ConfigResetStat) {
  EXPECT_EQ(Run({"config", "resetstat"}), Ok());
  EXPECT_EQ(Run({"config", "resetstat", "x"}),
            Err("ERR wrong number of arguments for 'config|resetstat' command"));
}

TEST_F(ServerFamilyTest, ConfigRewriteWithoutAConfigFile) {
  EXPECT_EQ(Run({"config", "rewrite"}), Err("ERR The server is running without a config file"));
}

// --- DBSIZE FLUSHDB FLUSHALL ---

TEST_F(ServerFamilyTest, DbSizeCountsTheSelectedDatabase) {
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  ASSERT_EQ(Run({"mset", "a", "1", "b", "2"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(2));
  ASSERT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Run({"dbsize", "x"}), Err("ERR wrong number of arguments for 'dbsize' command"));
}

TEST_F(ServerFamilyTest, FlushDbEmptiesOnlyTheSelectedDatabase) {
  ASSERT_EQ(Run({"mset", "a", "1", "b", "2"}), Ok());
  ASSERT_EQ(Run({"select", "1"}), Ok());
  ASSERT_EQ(Run({"set", "c", "3"}), Ok());
  EXPECT_EQ(Run({"flushdb"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  ASSERT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(2));
}

TEST_F(ServerFamilyTest, FlushDbModes) {
  ASSERT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"flushdb", "ASYNC"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  ASSERT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"flushdb", "sync"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Run({"flushdb", "SYNC"}), Ok());
}

TEST_F(ServerFamilyTest, FlushDbSyntaxErrors) {
  ASSERT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"flushdb", "FOO"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"flushdb", "SYNC", "ASYNC"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"dbsize"}), Int(1));
}

TEST_F(ServerFamilyTest, FlushAllEmptiesEveryDatabase) {
  ASSERT_EQ(Run({"set", "a", "1"}), Ok());
  ASSERT_EQ(Run({"select", "2"}), Ok());
  ASSERT_EQ(Run({"set", "b", "1"}), Ok());
  EXPECT_EQ(Run({"flushall"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  ASSERT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
}

TEST_F(ServerFamilyTest, FlushAllModesAndSyntaxErrors) {
  ASSERT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"flushall", "FOO"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"flushall", "SYNC", "x"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"dbsize"}), Int(1));
  EXPECT_EQ(Run({"flushall", "ASYNC"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  EXPECT_EQ(Run({"flushall", "sync"}), Ok());
}

// --- SWAPDB (keys family) ---

TEST_F(ServerFamilyTest, SwapDbExchangesTwoDatabases) {
  ASSERT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"swapdb", "0", "1"}), Ok());
  EXPECT_EQ(Run({"dbsize"}), Int(0));
  ASSERT_EQ(Run({"select", "1"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
}

TEST_F(ServerFamilyTest, SwapDbErrors) {
  EXPECT_EQ(Run({"swapdb", "0", "16"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"swapdb", "-1", "0"}), Err("ERR DB index is out of range"));
  EXPECT_EQ(Run({"swapdb", "x", "1"}), Err("ERR invalid first DB index"));
  EXPECT_EQ(Run({"swapdb", "0", "x"}), Err("ERR invalid second DB index"));
  EXPECT_EQ(Run({"swapdb", "0"}), Err("ERR wrong number of arguments for 'swapdb' command"));
}

// --- TIME ---

TEST_F(ServerFamilyTest, TimeIsSecondsAndMicroseconds) {
  const int64_t before_s = NowMs() / 1000;
  Reply r = Run({"time"});
  const int64_t after_s = NowMs() / 1000;
  ASSERT_EQ(r.type, Reply::Type::kArray) << r;
  ASSERT_EQ(r.elements.size(), 2u);
  int64_t seconds = 0, micros = 0;
  ASSERT_TRUE(ParseInt64(r.elements[0].str, &seconds)) << r;
  ASSERT_TRUE(ParseInt64(r.elements[1].str, &micros)) << r;
  EXPECT_GE(seconds, before_s);
  EXPECT_LE(seconds, after_s);
  EXPECT_GE(micros, 0);
  EXPECT_LT(micros, 1000000);
}

TEST_F(ServerFamilyTest, TimeArity) {
  EXPECT_EQ(Run({"time", "x"}), Err("ERR wrong number of arguments for 'time' command"));
}

// --- DEBUG ---

// --- MEMORY ---

TEST_F(ServerFamilyTest, MemoryUsage) {
  EXPECT_EQ(Run({"memory", "usage", "nokey"}), Nil());
  EXPECT_EQ(Run({"memory", "usage", "nokey", "SAMPLES", "5"}), Nil());
  ASSERT_EQ(Run({"set", "k", "v"}), Ok());
  Reply r = Run({"memory", "usage", "k"});
  ASSERT_EQ(r.type, Reply::Type::kInteger) << r;
  EXPECT_GT(r.integer, 0);
  EXPECT_EQ(Run({"memory", "usage", "k", "SAMPLES", "0"}), r);
}

TEST_F(ServerFamilyTest, MemoryUsageGrowsWithTheValue) {
  ASSERT_EQ(Run({"set", "small", "v"}), Ok());
  ASSERT_EQ(Run({"set", "big", std::string(10000, 'x')}), Ok());
  const Reply small = Run({"memory", "usage", "small"});
  const Reply big = Run({"memory", "usage", "big"});
  EXPECT_GT(big.integer, small.integer + 9000);
}

TEST_F(ServerFamilyTest, MemoryErrors) {
  ASSERT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"memory", "usage", "k", "SAMPLES", "x"}),
            Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"memory", "usage", "k", "SAMPLES"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"memory", "usage", "k", "FOO", "1"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"memory", "usage"}),
            Err("ERR wrong number of arguments for 'memory|usage' command"));
  EXPECT_EQ(Run({"memory"}), Err("ERR wrong number of arguments for 'memory' command"));
  EXPECT_EQ(Run({"memory", "FOO"}), Err("ERR unknown subcommand 'FOO'. Try MEMORY HELP."));
  EXPECT_EQ(Run({"memory", "help", "x"}),
            Err("ERR wrong number of arguments for 'memory|help' command"));
}

// No replica ever acknowledges: 0 at once for 0 replicas or where a client cannot block,
// else 0 when the timeout ends the wait.
TEST_F(ServerFamilyTest, WaitWithoutReplicas) {
  EXPECT_EQ(Run({"wait", "0", "0"}), Int(0));
  EXPECT_EQ(Run({"wait", "-3", "100"}), Int(0));
  EXPECT_EQ(Run({"wait", "x", "0"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"wait", "1", "x"}), Err("ERR timeout is not an integer or out of range"));
  EXPECT_EQ(Run({"wait", "1", "-1"}), Err("ERR timeout is negative"));
  EXPECT_EQ(Run({"wait", "1"}), Err("ERR wrong number of arguments for 'wait' command"));
  TestClient& waiter = NewClient();
  EXPECT_EQ(waiter.Run({"wait", "1", "50"}), Nil());  // no reply yet: it waits
  EXPECT_TRUE(waiter.blocked());
  EXPECT_EQ(waiter.Resume(), std::nullopt);
  EXPECT_EQ(waiter.Resume(/*timed_out=*/true), Int(0));
  EXPECT_FALSE(waiter.blocked());
  // In a transaction it cannot block.
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"wait", "1", "0"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Int(0)}));
}

TEST_F(ServerFamilyTest, RoleAndClusterOnlyCommands) {
  EXPECT_EQ(Run({"role"}), Array({Bulk("master"), Int(0), Array({})}));
  EXPECT_EQ(Run({"role", "x"}), Err("ERR wrong number of arguments for 'role' command"));
  for (const char* command : {"readonly", "readwrite", "asking"}) {
    EXPECT_EQ(Run({command}), Err("ERR This instance has cluster support disabled")) << command;
  }
}

}  // namespace
}  // namespace ordis::server::test
