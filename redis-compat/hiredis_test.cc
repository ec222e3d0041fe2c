// Black-box compatibility test through hiredis, the C client most Redis clients wrap.
//
// Usage: hiredis_test [gtest flags] [SERVER_BINARY]
// The server binary is argv[1] after GoogleTest removed its flags, else $ORDIS_SERVER, else
// /usr/bin/redis-server. One server is started for the whole run on a free port, in a scratch
// directory, with `--port N --bind 127.0.0.1 --save '' --appendonly no` (plus `--threads 2
// --adaptive-threads no` when the binary is not redis-server), and killed at exit.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/free_port.h"
#include "tests/hiredis_client.h"

namespace {

std::string g_server_path;  // set in main() before any test runs

using ordis::test::Command;
using ordis::test::Connect;
using ordis::test::Context;
using ordis::test::FreePort;
using ordis::test::GetReply;
using ordis::test::Reply;
using ordis::test::Str;

// One server process for the whole test run.
class Server : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string last_log;
    for (int attempt = 0; attempt < 5; ++attempt) {
      if (StartOnce()) return;
      last_log = LogTail();
      Stop();
    }
    FAIL() << "could not start " << g_server_path << "; last log:\n" << last_log;
  }

  void TearDown() override { Stop(); }

  static int port() { return port_; }

 private:
  bool StartOnce() {
    port_ = FreePort();
    if (port_ <= 0) return false;
    char tmpl[] = "/tmp/ordis-hiredis-XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return false;
    dir_ = tmpl;
    const bool is_redis =
        std::filesystem::path(g_server_path).filename().string().find("redis-server") !=
        std::string::npos;
    std::vector<std::string> args = {
        g_server_path, "--port", std::to_string(port_), "--bind", "127.0.0.1",
        "--save",      "",       "--appendonly",        "no"};
    if (!is_redis) {  // both threads take connections from the start: cross-thread tests
      for (const char* a : {"--threads", "2", "--adaptive-threads", "no"}) args.push_back(a);
    }
    pid_ = fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      // The server's log goes to <dir>/server.log, shown if the start fails.
      if (chdir(dir_.c_str()) != 0) _exit(127);
      FILE* log = std::fopen("server.log", "w");
      if (log != nullptr) {
        dup2(fileno(log), STDOUT_FILENO);
        dup2(fileno(log), STDERR_FILENO);
      }
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    // Poll until PING answers, with a deadline; give up early if the process died.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      Context c = Connect(port_);
      if (c && !c->err) {
        Reply r = Command(c.get(), "PING");
        if (r && r->type == REDIS_REPLY_STATUS && Str(r.get()) == "PONG") return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // poll interval
    }
    return false;
  }

  std::string LogTail() const {
    std::ifstream in(dir_ + "/server.log");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.size() > 4000 ? text.substr(text.size() - 4000) : text;
  }

  void Stop() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (waitpid(pid_, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          kill(pid_, SIGKILL);
          waitpid(pid_, &status, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      pid_ = -1;
    }
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
      dir_.clear();
    }
  }

  static inline int port_ = -1;
  pid_t pid_ = -1;
  std::string dir_;
};

class HiredisTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = Connect(Server::port());
    ASSERT_TRUE(ctx_ && !ctx_->err) << (ctx_ ? ctx_->errstr : "no context");
    Reply r = Command(ctx_.get(), "FLUSHALL");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->type, REDIS_REPLY_STATUS);
    ASSERT_EQ(Str(r.get()), "OK");
  }

  Context ctx_;
};

TEST_F(HiredisTest, Pipeline10kSetThen10kGet) {
  constexpr int kN = 10000;
  redisContext* c = ctx_.get();
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(redisAppendCommand(c, "SET key:%d value:%d", i, i), REDIS_OK);
  }
  for (int i = 0; i < kN; ++i) {
    Reply r = GetReply(c);
    ASSERT_TRUE(r) << "reply " << i << ": " << c->errstr;
    ASSERT_EQ(r->type, REDIS_REPLY_STATUS) << "reply " << i;
    ASSERT_EQ(Str(r.get()), "OK") << "reply " << i;
  }
  for (int i = 0; i < kN; ++i) {
    ASSERT_EQ(redisAppendCommand(c, "GET key:%d", i), REDIS_OK);
  }
  for (int i = 0; i < kN; ++i) {
    Reply r = GetReply(c);
    ASSERT_TRUE(r) << "reply " << i << ": " << c->errstr;
    ASSERT_EQ(r->type, REDIS_REPLY_STRING) << "reply " << i;
    ASSERT_EQ(Str(r.get()), "value:" + std::to_string(i)) << "replies out of order at " << i;
  }
  Reply size = Command(c, "DBSIZE");
  ASSERT_EQ(size->type, REDIS_REPLY_INTEGER);
  EXPECT_EQ(size->integer, kN);
}

TEST_F(HiredisTest, BinarySafeKeysAndValues) {
  redisContext* c = ctx_.get();
  const std::vector<std::string> keys = {std::string("\0", 1),        std::string("a\0b", 3),
                                         std::string("\xff\xfe", 2),  std::string("k\r\nk", 4),
                                         std::string("$3\r\nfoo", 8), std::string()};
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string value = "v" + std::to_string(i) + std::string("\0\xff\r\n", 4) + keys[i];
    Reply r = Command(c, "SET %b %b", keys[i].data(), keys[i].size(), value.data(), value.size());
    ASSERT_EQ(r->type, REDIS_REPLY_STATUS);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string value = "v" + std::to_string(i) + std::string("\0\xff\r\n", 4) + keys[i];
    Reply r = Command(c, "GET %b", keys[i].data(), keys[i].size());
    ASSERT_EQ(r->type, REDIS_REPLY_STRING) << "key " << i;
    EXPECT_EQ(Str(r.get()), value) << "key " << i;
  }
  // "a" is not "a\0b": keys are compared by length and bytes, never as C strings.
  Reply miss = Command(c, "GET %b", "a", size_t{1});
  EXPECT_EQ(miss->type, REDIS_REPLY_NIL);
  Reply n = Command(c, "EXISTS %b %b", keys[0].data(), keys[0].size(), "\0\0", size_t{2});
  ASSERT_EQ(n->type, REDIS_REPLY_INTEGER);
  EXPECT_EQ(n->integer, 1);
  Reply del =
      Command(c, "DEL %b %b", keys[1].data(), keys[1].size(), keys[2].data(), keys[2].size());
  ASSERT_EQ(del->type, REDIS_REPLY_INTEGER);
  EXPECT_EQ(del->integer, 2);
  Reply size = Command(c, "DBSIZE");
  EXPECT_EQ(size->integer, static_cast<long long>(keys.size()) - 2);
}

TEST_F(HiredisTest, ErrorRepliesAreExact) {
  redisContext* c = ctx_.get();
  Reply r = Command(c, "GET");
  ASSERT_EQ(r->type, REDIS_REPLY_ERROR);
  EXPECT_EQ(Str(r.get()), "ERR wrong number of arguments for 'get' command");
  r = Command(c, "SET k notanumber");
  r = Command(c, "INCR k");
  ASSERT_EQ(r->type, REDIS_REPLY_ERROR);
  EXPECT_EQ(Str(r.get()), "ERR value is not an integer or out of range");
  r = Command(c, "NOSUCHCOMMAND a b");
  ASSERT_EQ(r->type, REDIS_REPLY_ERROR);
  EXPECT_EQ(Str(r.get()),
            "ERR unknown command 'NOSUCHCOMMAND', with args beginning with: 'a' 'b' ");
  r = Command(c, "PING");
  ASSERT_EQ(r->type, REDIS_REPLY_STATUS);
  EXPECT_EQ(Str(r.get()), "PONG");
}

TEST_F(HiredisTest, TransactionReplies) {
  redisContext* c = ctx_.get();
  ASSERT_EQ(redisAppendCommand(c, "MULTI"), REDIS_OK);
  ASSERT_EQ(redisAppendCommand(c, "INCR n"), REDIS_OK);
  ASSERT_EQ(redisAppendCommand(c, "GET n"), REDIS_OK);
  ASSERT_EQ(redisAppendCommand(c, "EXEC"), REDIS_OK);
  for (int i = 0; i < 3; ++i) {
    Reply r = GetReply(c);
    ASSERT_EQ(r->type, REDIS_REPLY_STATUS);
    EXPECT_EQ(Str(r.get()), i == 0 ? "OK" : "QUEUED");
  }
  Reply exec = GetReply(c);
  ASSERT_EQ(exec->type, REDIS_REPLY_ARRAY);
  ASSERT_EQ(exec->elements, 2u);
  EXPECT_EQ(exec->element[0]->type, REDIS_REPLY_INTEGER);
  EXPECT_EQ(exec->element[0]->integer, 1);
  EXPECT_EQ(Str(exec->element[1]), "1");
}

TEST_F(HiredisTest, EightThreadsTenThousandIncrEach) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 10000;
  constexpr int kBatch = 100;  // commands in flight per connection
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures] {
      Context c = Connect(Server::port());
      if (!c || c->err) {
        failures[t] = "connect failed";
        return;
      }
      long long last = 0;
      for (int done = 0; done < kPerThread; done += kBatch) {
        for (int i = 0; i < kBatch; ++i) redisAppendCommand(c.get(), "INCR counter");
        for (int i = 0; i < kBatch; ++i) {
          Reply r = GetReply(c.get());
          if (!r || r->type != REDIS_REPLY_INTEGER) {
            failures[t] = std::string("bad INCR reply: ") + (r ? Str(r.get()) : c->errstr);
            return;
          }
          if (r->integer <= last) {  // one connection's replies come back in order
            failures[t] = "INCR replies not increasing";
            return;
          }
          last = r->integer;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
  Reply r = Command(ctx_.get(), "GET counter");
  ASSERT_EQ(r->type, REDIS_REPLY_STRING);
  EXPECT_EQ(Str(r.get()), std::to_string(kThreads * kPerThread));
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc > 1) {
    g_server_path = argv[1];
  } else if (const char* env = std::getenv("ORDIS_SERVER"); env != nullptr && *env != '\0') {
    g_server_path = env;
  } else {
    g_server_path = "/usr/bin/redis-server";
  }
  signal(SIGPIPE, SIG_IGN);
  ::testing::AddGlobalTestEnvironment(new Server);  // gtest owns and deletes it
  return RUN_ALL_TESTS();
}
