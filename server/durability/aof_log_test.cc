// AofLog: records staged by many threads (under a stand-in for the keyspace lock) reach the file
// whole, once each, in staging order, across a switch of files; Commit returns only after the
// caller's record was written. Runs under ThreadSanitizer in CI.
#include "server/durability/aof_log.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "resp/parser.h"

namespace ordis::server {
namespace {

std::vector<std::vector<std::string>> ReadCommands(const std::string& path,
                                                   std::vector<size_t>* record_sizes) {
  std::unique_ptr<persistence::AofReader> reader;
  EXPECT_TRUE(persistence::AofReader::Open(path, &reader).ok());
  std::vector<std::vector<std::string>> commands;
  std::string_view payload;
  resp::Parser parser;
  std::vector<std::string_view> args;
  while (reader->Next(&payload)) {
    size_t n = 0;
    while (!payload.empty()) {
      size_t consumed = 0;
      EXPECT_EQ(parser.Parse(payload, &consumed, &args), resp::ParseStatus::kCommand);
      commands.emplace_back(args.begin(), args.end());
      payload.remove_prefix(consumed);
      ++n;
    }
    if (record_sizes != nullptr) record_sizes->push_back(n);
  }
  EXPECT_EQ(reader->end(), persistence::AofReader::End::kClean);
  return commands;
}

class AofLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/ordis-aof-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override {
    for (const char* name : {"/a.aof", "/b.aof"}) unlink((dir_ + name).c_str());
    rmdir(dir_.c_str());
  }
  std::unique_ptr<persistence::AofWriter> Open(const std::string& name) {
    std::unique_ptr<persistence::AofWriter> writer;
    EXPECT_TRUE(persistence::AofWriter::Open(dir_ + name, &writer).ok());
    return writer;
  }
  std::string dir_;
};

TEST_F(AofLogTest, SelectsTtlsAndGroups) {
  AofLog log(Open("/a.aof"), FsyncPolicy::kAlways);
  const std::string_view set[] = {"SET", "k", "v"};
  log.NoteExpire(0, "k", 1234);
  EXPECT_EQ(log.StageCommand(0, set), 1u);
  EXPECT_EQ(log.StageCommand(2, set), 2u);
  log.BeginGroup();
  log.StageCommand(2, set);
  log.StageExpired(3, "old");
  EXPECT_EQ(log.EndGroup(), 3u);
  ASSERT_TRUE(log.Commit(3).ok());
  std::vector<size_t> sizes;
  const auto commands = ReadCommands(dir_ + "/a.aof", &sizes);
  const std::vector<std::vector<std::string>> expected = {
      {"SELECT", "0"}, {"SET", "k", "v"}, {"PEXPIREAT", "k", "1234"},
      {"SELECT", "2"}, {"SET", "k", "v"}, {"SET", "k", "v"},
      {"SELECT", "3"}, {"DEL", "old"}};
  EXPECT_EQ(commands, expected);
  EXPECT_EQ(sizes, (std::vector<size_t>{3, 2, 3}));
}

// A command left out of the log (a script's after redis.set_repl(REPL_NONE)) leaves out the TTL
// it set too: the next command's record carries only its own.
TEST_F(AofLogTest, SkippedCommandsTtlIsNotLogged) {
  AofLog log(Open("/a.aof"), FsyncPolicy::kAlways);
  log.BeginGroup();
  log.NoteExpire(0, "unlogged", 1234);
  log.SkipCommand();
  const std::string_view set[] = {"SET", "k", "v"};
  log.StageCommand(0, set);
  EXPECT_EQ(log.EndGroup(), 1u);
  ASSERT_TRUE(log.Commit(1).ok());
  const std::vector<std::vector<std::string>> expected = {{"SELECT", "0"}, {"SET", "k", "v"}};
  EXPECT_EQ(ReadCommands(dir_ + "/a.aof", nullptr), expected);
}

TEST_F(AofLogTest, ConcurrentCommitsKeepEveryRecordInOrder) {
  for (FsyncPolicy policy : {FsyncPolicy::kAlways, FsyncPolicy::kEverySec}) {
    AofLog log(Open("/a.aof"), policy);
    std::mutex keyspace;  // stands in for the keyspace's exclusive lock
    constexpr int kThreads = 6, kWrites = 300;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kWrites; ++i) {
          uint64_t seq;
          {
            std::lock_guard lock(keyspace);
            if (t == 0 && i == kWrites / 2) {
              ASSERT_TRUE(log.SwitchWriter(Open("/b.aof")).ok());
            }
            const std::string key = "t" + std::to_string(t), value = std::to_string(i);
            const std::string_view cmd[] = {"SET", key, value};
            seq = log.StageCommand(t % 3, cmd);
          }
          ASSERT_TRUE(log.Commit(seq).ok());
          if (t == 1) log.SyncIfDue(i * 100);
        }
      });
    }
    for (auto& th : threads) th.join();
    ASSERT_TRUE(log.Drain().ok());
    auto commands = ReadCommands(dir_ + "/a.aof", nullptr);
    auto second = ReadCommands(dir_ + "/b.aof", nullptr);
    commands.insert(commands.end(), second.begin(), second.end());
    std::map<std::string, int> next;  // per thread: the value its next SET must carry
    size_t sets = 0;
    for (const auto& c : commands) {
      if (c[0] == "SELECT") continue;
      ASSERT_EQ(c[0], "SET");
      EXPECT_EQ(c[2], std::to_string(next[c[1]]++));
      ++sets;
    }
    EXPECT_EQ(sets, static_cast<size_t>(kThreads * kWrites));
    unlink((dir_ + "/a.aof").c_str());
    unlink((dir_ + "/b.aof").c_str());
  }
}

}  // namespace
}  // namespace ordis::server
