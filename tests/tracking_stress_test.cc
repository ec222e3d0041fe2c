// Client-side caching, MONITOR and CLIENT PAUSE under load, in-process so ThreadSanitizer sees the
// tracking table, the monitors and the pause gate from both I/O threads (scripts/test.sh runs it
// under TSAN). A real server with two I/O threads; in rounds, four tracking readers (RESP2, each
// redirecting to a subscriber of its own on __redis__:invalidate) read every key, then two writers
// on both threads overwrite every key: each subscriber must get exactly one invalidation per key.
// Meanwhile a churner turns tracking on and off (BCAST and default) over the same keys, a pauser
// pauses writes for a few milliseconds at a time (writers' commands are postponed and resumed), a
// monitor reads every command, and a mover hands connections from thread to thread.
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/net/io_thread.h"
#include "tests/hiredis_client.h"
#include "tests/running_server.h"

namespace ordis::server {
namespace {

using ordis::test::Command;
using ordis::test::Connect;
using ordis::test::Context;
using ordis::test::GetReply;
using ordis::test::Reply;
using ordis::test::RunningServer;
using ordis::test::Str;

constexpr int kReaders = 4;
constexpr int kWriters = 2;
constexpr int kKeys = 64;
constexpr int kRounds = 200;

TEST(TrackingStressTest, EveryReadKeyInvalidatedOnceAcrossThreads) {
  RunningServer rs(2);
  ASSERT_TRUE(rs.listening());
  IoThreadPool& io = rs.server().TEST_io_threads();

  std::vector<Context> readers;
  std::vector<Context> subscribers;
  for (int r = 0; r < kReaders; ++r) {
    Context sub = Connect(rs.port());
    Context reader = Connect(rs.port());
    ASSERT_TRUE(sub != nullptr && sub->err == 0 && reader != nullptr && reader->err == 0);
    Reply id = Command(sub.get(), "CLIENT ID");
    ASSERT_NE(id, nullptr);
    ASSERT_NE(Command(sub.get(), "SUBSCRIBE __redis__:invalidate"), nullptr);
    Reply on = Command(reader.get(), "CLIENT TRACKING on REDIRECT %lld", id->integer);
    ASSERT_TRUE(on != nullptr && Str(on.get()) == "OK");
    readers.push_back(std::move(reader));
    subscribers.push_back(std::move(sub));
  }

  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<std::string> why(kReaders);
  std::barrier round_barrier(kReaders + kWriters);
  std::vector<std::thread> threads;
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      redisContext* reader = readers[r].get();
      redisContext* sub = subscribers[r].get();
      for (int round = 0; round < kRounds; ++round) {
        for (int k = 0; k < kKeys; ++k) redisAppendCommand(reader, "GET k%d", k);
        for (int k = 0; k < kKeys; ++k) {
          if (GetReply(reader) == nullptr) ++failures;
        }
        round_barrier.arrive_and_wait();  // every key read: the writers go
        round_barrier.arrive_and_wait();  // every key written
        std::set<std::string> invalidated;
        for (int k = 0; k < kKeys; ++k) {
          Reply m = GetReply(sub);
          if (m == nullptr || m->type != REDIS_REPLY_ARRAY || m->elements != 3 ||
              m->element[2]->type != REDIS_REPLY_ARRAY || m->element[2]->elements != 1) {
            why[r] = "bad invalidation in round " + std::to_string(round);
            ++failures;
            return;
          }
          invalidated.insert(Str(m->element[2]->element[0]));
        }
        if (invalidated.size() != kKeys) {
          why[r] = "a key invalidated twice in round " + std::to_string(round);
          ++failures;
        }
        round_barrier.arrive_and_wait();
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      Context c = Connect(rs.port());
      if (c == nullptr || c->err != 0) {
        ++failures;
        return;
      }
      for (int round = 0; round < kRounds; ++round) {
        round_barrier.arrive_and_wait();
        int sent = 0;
        for (int k = w; k < kKeys; k += kWriters, ++sent) {
          redisAppendCommand(c.get(), "SET k%d %d", k, round);
        }
        for (int i = 0; i < sent; ++i) {
          Reply r = GetReply(c.get());
          if (r == nullptr || Str(r.get()) != "OK") ++failures;
        }
        round_barrier.arrive_and_wait();
        round_barrier.arrive_and_wait();
      }
    });
  }
  // Tracking turned on and off, over the same keys, while they are read and written.
  std::thread churner([&] {
    Context c = Connect(rs.port());
    for (int i = 0; c != nullptr && c->err == 0 && !stop.load(); ++i) {
      redisAppendCommand(c.get(),
                         i % 2 ? "CLIENT TRACKING on BCAST PREFIX k" : "CLIENT TRACKING on");
      redisAppendCommand(c.get(), "GET k%d", i % kKeys);
      redisAppendCommand(c.get(), "CLIENT TRACKING off");
      for (int j = 0; j < 3; ++j) {
        if (GetReply(c.get()) == nullptr) ++failures;
      }
    }
  });
  // Writes paused a few milliseconds at a time: writers' commands wait and resume.
  std::thread pauser([&] {
    Context c = Connect(rs.port());
    while (c != nullptr && c->err == 0 && !stop.load()) {
      if (Command(c.get(), "CLIENT PAUSE 3 WRITE") == nullptr) ++failures;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (Command(c.get(), "CLIENT UNPAUSE") == nullptr) ++failures;
    }
  });
  Context monitor = Connect(rs.port());
  ASSERT_TRUE(monitor != nullptr && monitor->err == 0);
  ASSERT_NE(Command(monitor.get(), "MONITOR"), nullptr);
  std::atomic<int> lines{0};
  std::thread watcher([&] {
    for (;;) {
      Reply line = GetReply(monitor.get());
      if (line == nullptr || line->type != REDIS_REPLY_STATUS) {
        ++failures;
        return;
      }
      ++lines;
      if (Str(line.get()).find("\"sentinel\"") != std::string::npos) return;
    }
  });
  std::thread mover([&] {
    for (int i = 0; !stop.load(); ++i) {
      IoThread* from = &io.thread(i % 2);
      IoThread* to = &io.thread((i + 1) % 2);
      from->Post([from, to] { from->MoveConnections(to, 2); });
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  for (std::thread& t : threads) t.join();
  stop.store(true);
  churner.join();
  pauser.join();
  mover.join();
  Context last = Connect(rs.port());
  ASSERT_NE(Command(last.get(), "CLIENT UNPAUSE"), nullptr);
  ASSERT_NE(Command(last.get(), "SET sentinel 1"), nullptr);
  watcher.join();
  EXPECT_EQ(failures.load(), 0);
  for (const std::string& w : why) EXPECT_EQ(w, "");
  // Every GET and SET of the rounds at least.
  EXPECT_GE(lines.load(), kRounds * kKeys * (kReaders + 1));
}

}  // namespace
}  // namespace ordis::server
