// INFO, in-process. Section headers and the fields asserted here were checked against
// redis-server 7.0.15; the Threads and Index sections and ordis_version are ordis's own (README).
// Counters kept by the I/O threads (commands processed, hits, net bytes) read 0 in-process and
// are not asserted.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "server/commands/family_test_support.h"
#include "server/keyspace/keyspace.h"
#include "server/keyspace/object.h"

namespace ordis::server::test {
namespace {

class InfoFamilyTest : public FamilyTest {
 protected:
  InfoFamilyTest() = default;
  explicit InfoFamilyTest(std::vector<std::pair<std::string, std::string>> config)
      : FamilyTest(std::move(config)) {}

  std::string Info(std::vector<std::string> sections) {
    sections.insert(sections.begin(), "info");
    Reply r = Run(std::move(sections));
    EXPECT_EQ(r.type, Reply::Type::kBulk) << r;
    return r.str;
  }
  static bool HasLine(const std::string& text, std::string_view line) {
    const std::string whole = "\r\n" + text;
    return whole.find("\r\n" + std::string(line) + "\r\n") != std::string::npos;
  }
  // The value of field in text ("" and a test failure when it is missing).
  static std::string Field(const std::string& text, std::string_view name) {
    const std::string whole = "\r\n" + text;
    const size_t at = whole.find("\r\n" + std::string(name) + ":");
    if (at == std::string::npos) {
      ADD_FAILURE() << "no field " << name;
      return "";
    }
    const size_t begin = at + 2 + name.size() + 1;
    return whole.substr(begin, whole.find("\r\n", begin) - begin);
  }
  // The section headers ("# Server" ...) in order.
  static std::vector<std::string> Headers(const std::string& text) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find("\r\n", pos);
      if (end == std::string::npos) end = text.size();
      if (text.compare(pos, 2, "# ") == 0) out.push_back(text.substr(pos, end - pos));
      pos = end + 2;
    }
    return out;
  }
};

TEST_F(InfoFamilyTest, KeyspaceOfAnEmptyServer) {
  EXPECT_EQ(RunRaw({"info", "keyspace"}), "$12\r\n# Keyspace\r\n\r\n");
}

TEST_F(InfoFamilyTest, KeyspaceHasALinePerNonEmptyDatabase) {
  ASSERT_EQ(Run({"mset", "a", "1", "b", "2", "c", "3"}), Ok());
  ASSERT_EQ(Run({"select", "2"}), Ok());
  ASSERT_EQ(Run({"set", "z", "1"}), Ok());
  EXPECT_EQ(Run({"info", "keyspace"}), Bulk("# Keyspace\r\ndb0:keys=3,expires=0,avg_ttl=0\r\n"
                                            "db2:keys=1,expires=0,avg_ttl=0\r\n"));
}

TEST_F(InfoFamilyTest, KeyspaceCountsKeysWithATtl) {
  ASSERT_EQ(Run({"mset", "a", "1", "b", "2", "c", "3"}), Ok());
  ASSERT_EQ(Run({"expire", "a", "100"}), Int(1));
  const std::string text = Info({"keyspace"});
  // avg_ttl is left out: Redis estimates it by sampling, so it reads 0 here at first.
  EXPECT_TRUE(Field(text, "db0").starts_with("keys=3,expires=1,avg_ttl=")) << text;
}

TEST_F(InfoFamilyTest, KeyspaceLineGoesWhenTheDatabaseEmpties) {
  ASSERT_EQ(Run({"set", "a", "1"}), Ok());
  ASSERT_EQ(Run({"flushall"}), Ok());
  EXPECT_EQ(Run({"info", "keyspace"}), Bulk("# Keyspace\r\n"));
}

TEST_F(InfoFamilyTest, SectionNamesIgnoreCase) {
  ASSERT_EQ(Run({"set", "a", "1"}), Ok());
  EXPECT_EQ(Run({"info", "KEYSPACE"}), Run({"info", "keyspace"}));
  EXPECT_EQ(Headers(Info({"RePlIcAtIoN"})), std::vector<std::string>{"# Replication"});
}

TEST_F(InfoFamilyTest, UnknownSectionIsEmpty) {
  EXPECT_EQ(RunRaw({"info", "nosuch"}), "$0\r\n\r\n");
}

TEST_F(InfoFamilyTest, SeveralSectionsComeInTheUsualOrder) {
  const std::string text = Info({"keyspace", "replication"});
  EXPECT_EQ(Headers(text), (std::vector<std::string>{"# Replication", "# Keyspace"}));
  EXPECT_TRUE(text.ends_with("\r\n\r\n# Keyspace\r\n")) << text;
}

TEST_F(InfoFamilyTest, DefaultSections) {
  const std::vector<std::string> headers = Headers(Info({}));
  const std::vector<std::string> in_order = {"# Server",      "# Clients", "# Memory",
                                             "# Persistence", "# Stats",   "# Replication",
                                             "# CPU",         "# Keyspace"};
  size_t next = 0;
  for (const std::string& h : headers) {
    if (next < in_order.size() && h == in_order[next]) ++next;
    EXPECT_NE(h, "# Commandstats");
  }
  EXPECT_EQ(next, in_order.size()) << ::testing::PrintToString(headers);
  EXPECT_EQ(Headers(Info({"default"})), headers);
}

TEST_F(InfoFamilyTest, AllAndEverythingAddCommandstats) {
  for (const char* which : {"all", "everything"}) {
    const std::vector<std::string> headers = Headers(Info({which}));
    bool commandstats = false;
    for (const std::string& h : headers) commandstats = commandstats || h == "# Commandstats";
    EXPECT_TRUE(commandstats) << which;
    EXPECT_EQ(headers.front(), "# Server") << which;
    EXPECT_EQ(headers.back(), "# Keyspace") << which;
  }
  EXPECT_EQ(Headers(Info({"commandstats"})), std::vector<std::string>{"# Commandstats"});
}

TEST_F(InfoFamilyTest, ServerFields) {
  const std::string text = Info({"server"});
  EXPECT_TRUE(text.starts_with("# Server\r\n")) << text;
  EXPECT_TRUE(HasLine(text, "redis_version:7.0.15")) << text;
  EXPECT_TRUE(HasLine(text, "redis_mode:standalone")) << text;
  EXPECT_TRUE(HasLine(text, "arch_bits:64")) << text;
  EXPECT_TRUE(HasLine(text, "multiplexing_api:epoll")) << text;
  EXPECT_TRUE(HasLine(text, "hz:10")) << text;
  EXPECT_TRUE(HasLine(text, "uptime_in_days:0")) << text;
  EXPECT_TRUE(HasLine(text, "config_file:")) << text;  // started without one
  EXPECT_TRUE(Field(text, "os").starts_with("Linux ")) << text;
  EXPECT_FALSE(Field(text, "ordis_version").empty()) << text;
}

TEST_F(InfoFamilyTest, ClientsFields) {
  std::string text = Info({"clients"});
  EXPECT_TRUE(HasLine(text, "connected_clients:1")) << text;
  EXPECT_TRUE(HasLine(text, "maxclients:10000")) << text;
  EXPECT_TRUE(HasLine(text, "blocked_clients:0")) << text;
  EXPECT_TRUE(HasLine(text, "tracking_clients:0")) << text;
  NewClient();
  text = Info({"clients"});
  EXPECT_TRUE(HasLine(text, "connected_clients:2")) << text;
}

TEST_F(InfoFamilyTest, MemoryFieldsFollowTheConfig) {
  std::string text = Info({"memory"});
  EXPECT_TRUE(HasLine(text, "maxmemory:0")) << text;
  EXPECT_TRUE(HasLine(text, "maxmemory_policy:noeviction")) << text;
  EXPECT_FALSE(Field(text, "used_memory").empty()) << text;
  ASSERT_EQ(Run({"config", "set", "maxmemory-policy", "allkeys-lru", "maxmemory", "1mb"}), Ok());
  text = Info({"memory"});
  EXPECT_TRUE(HasLine(text, "maxmemory:1048576")) << text;
  EXPECT_TRUE(HasLine(text, "maxmemory_policy:allkeys-lru")) << text;
}

TEST_F(InfoFamilyTest, PersistenceFieldsOfAFreshServer) {
  const std::string text = Info({"persistence"});
  for (std::string_view line :
       {"loading:0", "async_loading:0", "rdb_changes_since_last_save:0", "rdb_bgsave_in_progress:0",
        "rdb_last_bgsave_status:ok", "rdb_last_bgsave_time_sec:-1",
        "rdb_current_bgsave_time_sec:-1", "rdb_saves:0", "aof_enabled:0",
        "aof_rewrite_in_progress:0", "aof_last_rewrite_time_sec:-1", "aof_last_bgrewrite_status:ok",
        "aof_rewrites:0", "aof_last_write_status:ok"}) {
    EXPECT_TRUE(HasLine(text, line)) << line << " in " << text;
  }
}

TEST_F(InfoFamilyTest, PersistenceCountsChanges) {
  ASSERT_EQ(Run({"mset", "a", "1", "b", "2", "c", "3"}), Ok());
  EXPECT_TRUE(HasLine(Info({"persistence"}), "rdb_changes_since_last_save:3"));
}

TEST_F(InfoFamilyTest, StatsCountExpiredKeys) {
  std::string text = Info({"stats"});
  EXPECT_TRUE(HasLine(text, "expired_keys:0")) << text;
  EXPECT_TRUE(HasLine(text, "evicted_keys:0")) << text;
  ASSERT_EQ(Run({"set", "a", "1"}), Ok());
  // The key's time passes untouched; the GET that meets it deletes it.
  Object* obj = keyspace().FindForWrite(0, "a", NowMs());
  ASSERT_NE(obj, nullptr);
  obj = keyspace().SetExpire(0, "a", obj, 1);
  EXPECT_EQ(Run({"get", "a"}), Nil());
  text = Info({"stats"});
  EXPECT_TRUE(HasLine(text, "expired_keys:1")) << text;
}

TEST_F(InfoFamilyTest, ReplicationFields) {
  const std::string text = Info({"replication"});
  EXPECT_TRUE(text.starts_with("# Replication\r\nrole:master\r\nconnected_slaves:0\r\n")) << text;
}

TEST_F(InfoFamilyTest, CpuFields) {
  const std::string text = Info({"cpu"});
  for (std::string_view name : {"used_cpu_sys", "used_cpu_user"}) {
    const std::string value = Field(text, name);
    const size_t dot = value.find('.');
    ASSERT_NE(dot, std::string::npos) << value;
    EXPECT_EQ(value.size() - dot - 1, 6u) << value;  // six decimals, as Redis prints
  }
}

TEST_F(InfoFamilyTest, Resp3IsAVerbatimString) {
  ASSERT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(RunRaw({"info", "keyspace"}), "=16\r\ntxt:# Keyspace\r\n\r\n");
}

// ordis only (README "The learned index" and "Adaptive threads").

TEST_F(InfoFamilyTest, IndexSectionNamesTheStoreAndCountsKeys) {
  ASSERT_EQ(Run({"mset", "a", "1", "b", "2", "c", "3"}), Ok());
  ASSERT_EQ(Run({"select", "2"}), Ok());
  ASSERT_EQ(Run({"set", "z", "1"}), Ok());
  const std::string text = Info({"index"});
  EXPECT_TRUE(text.starts_with("# Index\r\nindex_kind:learned\r\n")) << text;
  EXPECT_TRUE(HasLine(text, "index_keys:4")) << text;
  EXPECT_TRUE(HasLine(text, "hot_cache:enabled")) << text;
}

// The reference store (`index map`).
class InfoMapStoreFamilyTest : public InfoFamilyTest {
 protected:
  InfoMapStoreFamilyTest() : InfoFamilyTest({{"index", "map"}}) {}
};

TEST_F(InfoMapStoreFamilyTest, IndexSectionNamesTheMapStore) {
  const std::string text = Info({"index"});
  EXPECT_TRUE(text.starts_with("# Index\r\nindex_kind:map\r\n")) << text;
  EXPECT_TRUE(HasLine(text, "hot_cache:disabled")) << text;
}

TEST_F(InfoFamilyTest, ThreadsSectionReportsTheAdaptiveSetting) {
  const std::string text = Info({"threads"});
  EXPECT_TRUE(text.starts_with("# Threads\r\n")) << text;
  EXPECT_TRUE(HasLine(text, "adaptive_threads:yes")) << text;
  EXPECT_TRUE(HasLine(text, "connections_moved:0")) << text;
}

}  // namespace
}  // namespace ordis::server::test
