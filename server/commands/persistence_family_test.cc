// SAVE BGSAVE BGREWRITEAOF LASTSAVE, in-process. Every expectation was checked against
// redis-server 7.0.15; the snapshot's file name (dump.osnap) is ordis's own (README
// "Configuration").
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "base/clock.h"
#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class PersistenceFamilyTest : public FamilyTest {
 protected:
  PersistenceFamilyTest() = default;
  explicit PersistenceFamilyTest(std::vector<std::pair<std::string, std::string>> config)
      : FamilyTest(std::move(config)) {}

  std::string InfoPersistence() { return Run({"info", "persistence"}).str; }
  bool HasLine(const std::string& line) {
    return InfoPersistence().find("\r\n" + line + "\r\n") != std::string::npos;
  }
  // Waits (without sleeping) for the background job BGSAVE started to end.
  bool WaitForBgSave() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (HasLine("rdb_bgsave_in_progress:0")) return true;
      std::this_thread::yield();
    }
    return false;
  }
  std::filesystem::path Snapshot() const { return std::filesystem::path(dir()) / "dump.osnap"; }
};

class PersistenceDbFilenameFamilyTest : public PersistenceFamilyTest {
 protected:
  PersistenceDbFilenameFamilyTest() : PersistenceFamilyTest({{"dbfilename", "other.osnap"}}) {}
};

TEST_F(PersistenceFamilyTest, SaveWritesTheSnapshotInDir) {
  ASSERT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_FALSE(std::filesystem::exists(Snapshot()));
  EXPECT_EQ(Run({"save"}), Ok());
  ASSERT_TRUE(std::filesystem::exists(Snapshot()));
  EXPECT_GT(std::filesystem::file_size(Snapshot()), 0u);
}

TEST_F(PersistenceFamilyTest, SaveOfAnEmptyKeyspace) {
  EXPECT_EQ(Run({"save"}), Ok());
  EXPECT_TRUE(std::filesystem::exists(Snapshot()));
}

TEST_F(PersistenceDbFilenameFamilyTest, SaveUsesDbfilename) {
  ASSERT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"save"}), Ok());
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir()) / "other.osnap"));
  EXPECT_FALSE(std::filesystem::exists(Snapshot()));
}

TEST_F(PersistenceFamilyTest, LastSaveIsTheTimeOfTheLastSave) {
  const int64_t before_s = NowMs() / 1000;
  EXPECT_EQ(Run({"save"}), Ok());
  const int64_t after_s = NowMs() / 1000;
  Reply r = Run({"lastsave"});
  ASSERT_EQ(r.type, Reply::Type::kInteger) << r;
  EXPECT_GE(r.integer, before_s);
  EXPECT_LE(r.integer, after_s);
}

TEST_F(PersistenceFamilyTest, SaveResetsTheChangesSinceTheLastSave) {
  EXPECT_EQ(Run({"save"}), Ok());
  EXPECT_TRUE(HasLine("rdb_changes_since_last_save:0"));
  EXPECT_TRUE(HasLine("rdb_saves:1"));
  ASSERT_EQ(Run({"mset", "a", "1", "b", "2", "c", "3"}), Ok());
  EXPECT_TRUE(HasLine("rdb_changes_since_last_save:3"));
  ASSERT_EQ(Run({"del", "nosuch"}), Int(0));  // no change
  EXPECT_TRUE(HasLine("rdb_changes_since_last_save:3"));
  EXPECT_EQ(Run({"save"}), Ok());
  EXPECT_TRUE(HasLine("rdb_changes_since_last_save:0"));
  EXPECT_TRUE(HasLine("rdb_saves:2"));
}

TEST_F(PersistenceFamilyTest, BgSaveWritesTheSnapshotInTheBackground) {
  ASSERT_EQ(Run({"set", "k", "v"}), Ok());
  const int64_t before_s = NowMs() / 1000;
  EXPECT_EQ(Run({"bgsave"}), Status("Background saving started"));
  ASSERT_TRUE(WaitForBgSave());
  EXPECT_TRUE(std::filesystem::exists(Snapshot()));
  EXPECT_TRUE(HasLine("rdb_last_bgsave_status:ok"));
  EXPECT_TRUE(HasLine("rdb_changes_since_last_save:0"));
  Reply r = Run({"lastsave"});
  ASSERT_EQ(r.type, Reply::Type::kInteger) << r;
  EXPECT_GE(r.integer, before_s);
}

TEST_F(PersistenceFamilyTest, BgSaveScheduleStartsAtOnceWhenIdle) {
  EXPECT_EQ(Run({"bgsave", "SCHEDULE"}), Status("Background saving started"));
  ASSERT_TRUE(WaitForBgSave());
  EXPECT_TRUE(std::filesystem::exists(Snapshot()));
}

TEST_F(PersistenceFamilyTest, BgSaveSyntaxErrors) {
  EXPECT_EQ(Run({"bgsave", "x"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"bgsave", "SCHEDULE", "x"}), Err("ERR syntax error"));
  EXPECT_FALSE(std::filesystem::exists(Snapshot()));
}

TEST_F(PersistenceFamilyTest, Arity) {
  EXPECT_EQ(Run({"save", "x"}), Err("ERR wrong number of arguments for 'save' command"));
  EXPECT_EQ(Run({"lastsave", "x"}), Err("ERR wrong number of arguments for 'lastsave' command"));
  EXPECT_EQ(Run({"bgrewriteaof", "x"}),
            Err("ERR wrong number of arguments for 'bgrewriteaof' command"));
}

TEST_F(PersistenceFamilyTest, SaveIsNotAllowedInMulti) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"save"}), Err("ERR Command not allowed inside a transaction"));
  EXPECT_EQ(Run({"exec"}), Err("EXECABORT Transaction discarded because of previous errors."));
  EXPECT_FALSE(std::filesystem::exists(Snapshot()));
}

}  // namespace
}  // namespace ordis::server::test
