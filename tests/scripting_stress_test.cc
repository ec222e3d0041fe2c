// Scripts under load, in-process so ThreadSanitizer sees the I/O threads' Lua engines, the
// shared script cache and function registry, and the keyspace lock (scripts/test.sh runs it
// under TSAN). A real server with two I/O threads; eight hiredis connections dealt over both:
// six run EVAL scripts and one FCALLs a function, each script incrementing one shared counter and
// checking that nothing interleaved between its own commands, while the eighth flushes the
// script cache and reloads the function library (every engine resets or reloads under them).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/hiredis_client.h"
#include "tests/running_server.h"

namespace ordis::server {
namespace {

using ordis::test::Command;
using ordis::test::Connect;
using ordis::test::Context;
using ordis::test::Reply;
using ordis::test::RunningServer;
using ordis::test::Str;

#ifdef ORDIS_TEST_SANITIZED
constexpr int kCalls = 300;  // per connection
#else
constexpr int kCalls = 2000;
#endif

// Increments the counter, copies it to the mirror, reads both back: 1 iff no other command ran
// in between (a script is atomic on every thread).
constexpr const char* kScript =
    "local n = redis.call('incr', KEYS[1]) redis.call('set', KEYS[2], n) "
    "return tonumber(redis.call('get', KEYS[2])) == n and "
    "tonumber(redis.call('get', KEYS[1])) == n and 1 or 0";

constexpr const char* kLibrary =
    "#!lua name=stress\n"
    "redis.register_function('bump', function(keys) "
    "local n = redis.call('incr', keys[1]) redis.call('set', keys[2], n) "
    "return tonumber(redis.call('get', keys[2])) == n and 1 or 0 end)";

TEST(ScriptingStressTest, ScriptsAreAtomicAcrossThreadsWhileCachesChange) {
  RunningServer rs(2);
  ASSERT_TRUE(rs.listening());
  {
    Context c = Connect(rs.port());
    ASSERT_TRUE(c != nullptr && c->err == 0);
    Reply r = Command(c.get(), "FUNCTION LOAD %s", kLibrary);
    ASSERT_NE(r, nullptr);
    ASSERT_EQ(Str(r.get()), "stress");
  }
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::atomic<int> succeeded{0};
  std::vector<std::string> why(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 7; ++t) {
    threads.emplace_back([&, t] {
      Context c = Connect(rs.port());
      if (c == nullptr || c->err != 0) {
        why[t] = "connect";
        ++failures;
        return;
      }
      for (int i = 0; i < kCalls; ++i) {
        Reply r = t < 6 ? Command(c.get(), "EVAL %s 2 counter mirror", kScript)
                        : Command(c.get(), "FCALL bump 2 counter mirror");
        if (r == nullptr || r->type != REDIS_REPLY_INTEGER || r->integer != 1) {
          why[t] = r == nullptr ? "no reply" : r->type == REDIS_REPLY_ERROR ? Str(r.get()) : "0";
          ++failures;
          return;
        }
        ++succeeded;
      }
    });
  }
  threads.emplace_back([&] {
    Context c = Connect(rs.port());
    if (c == nullptr || c->err != 0) return;
    while (!stop.load()) {
      Reply flushed = Command(c.get(), "SCRIPT FLUSH");
      Reply loaded = Command(c.get(), "FUNCTION LOAD REPLACE %s", kLibrary);
      if (flushed == nullptr || loaded == nullptr || Str(loaded.get()) != "stress") {
        why[7] = loaded == nullptr ? "no reply" : Str(loaded.get());
        ++failures;
        return;
      }
    }
  });
  for (int t = 0; t < 7; ++t) threads[t].join();
  stop.store(true);
  threads[7].join();
  for (const std::string& w : why) EXPECT_EQ(w, "");
  ASSERT_EQ(failures.load(), 0);
  Context c = Connect(rs.port());
  Reply r = Command(c.get(), "GET counter");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(Str(r.get()), std::to_string(7 * kCalls));
  EXPECT_EQ(succeeded.load(), 7 * kCalls);
}

}  // namespace
}  // namespace ordis::server
