// Blocking pops under load, in-process so ThreadSanitizer sees the serving writers, the waiters'
// threads and the registry between them (scripts/test.sh runs it under TSAN). A real server with
// two I/O threads; hiredis connections spread over both: producers pipeline numbered jobs onto
// three queues, consumers loop on BRPOP over all three with short timeouts, a relay BLMOVEs one
// queue into another, an unblocker ends random consumers' waits with CLIENT UNBLOCK, and a mover
// hands connections between threads. The model is a set: every job is taken exactly once.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <random>
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

constexpr int kProducers = 3;
constexpr int kJobsPerProducer = 4000;
constexpr int kBatch = 40;  // divides kJobsPerProducer
constexpr int kConsumers = 5;
constexpr int kJobs = kProducers * kJobsPerProducer;

TEST(BlockingStressTest, EveryJobTakenOnceAcrossThreads) {
  RunningServer rs(2);
  ASSERT_TRUE(rs.listening());
  IoThreadPool& io = rs.server().TEST_io_threads();

  std::mutex mu;
  std::vector<int> taken(kJobs, 0);  // GUARDED_BY(mu)
  std::atomic<int> total{0};
  std::atomic<int> failures{0};
  std::atomic<bool> stop{false};
  std::vector<int64_t> consumer_ids(kConsumers, 0);
  std::vector<std::thread> threads;

  std::vector<Context> consumers;
  for (int i = 0; i < kConsumers; ++i) {
    Context c = Connect(rs.port());
    ASSERT_TRUE(c != nullptr && c->err == 0);
    Reply id = Command(c.get(), "CLIENT ID");
    ASSERT_NE(id, nullptr);
    consumer_ids[i] = id->integer;
    consumers.push_back(std::move(c));
  }
  for (int i = 0; i < kConsumers; ++i) {
    threads.emplace_back([&, i] {
      redisContext* c = consumers[i].get();
      while (total.load() < kJobs) {
        Reply r = Command(c, "BRPOP q0 q1 q2 0.05");
        if (r == nullptr) {
          ADD_FAILURE() << "consumer " << i << ": " << c->errstr;
          ++failures;
          return;
        }
        if (r->type == REDIS_REPLY_NIL) continue;  // timed out, or CLIENT UNBLOCK
        if (r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
          ADD_FAILURE() << "consumer " << i << ": reply of type " << r->type;
          ++failures;
          return;
        }
        const int job = std::stoi(Str(r->element[1]));
        if (job < 0 || job >= kJobs) {
          ADD_FAILURE() << "consumer " << i << ": job " << job;
          ++failures;
          return;
        }
        std::lock_guard lock(mu);
        ++taken[job];
        ++total;
      }
    });
  }
  // Producers: jobs p*kJobsPerProducer.. on queue job % 4 (q3 reaches consumers through the relay).
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      Context c = Connect(rs.port());
      if (c == nullptr || c->err != 0) {
        ++failures;
        return;
      }
      for (int sent = 0; sent < kJobsPerProducer; sent += kBatch) {
        for (int i = sent; i < sent + kBatch; ++i) {
          const int job = p * kJobsPerProducer + i;
          redisAppendCommand(c.get(), "LPUSH q%d %d", job % 4, job);
        }
        for (int i = 0; i < kBatch; ++i) {
          Reply r = GetReply(c.get());
          if (r == nullptr || r->type != REDIS_REPLY_INTEGER) ++failures;
        }
      }
    });
  }
  // The relay: q3 -> q0, blocking on q3.
  std::thread relay([&] {
    Context c = Connect(rs.port());
    if (c == nullptr || c->err != 0) {
      ++failures;
      return;
    }
    while (!stop.load()) {
      Reply r = Command(c.get(), "BLMOVE q3 q0 RIGHT LEFT 0.05");
      if (r == nullptr || (r->type != REDIS_REPLY_NIL && r->type != REDIS_REPLY_STRING)) {
        ++failures;
        return;
      }
    }
  });
  std::thread unblocker([&] {
    Context c = Connect(rs.port());
    if (c == nullptr || c->err != 0) {
      ++failures;
      return;
    }
    std::mt19937 rng(7);
    while (!stop.load()) {
      Reply r = Command(c.get(), "CLIENT UNBLOCK %lld TIMEOUT",
                        static_cast<long long>(consumer_ids[rng() % kConsumers]));
      if (r == nullptr || r->type != REDIS_REPLY_INTEGER) {
        ++failures;
        return;
      }
    }
  });
  std::thread mover([&] {
    for (int i = 0; !stop.load(); ++i) {
      IoThread* from = &io.thread(i % 2);
      IoThread* to = &io.thread((i + 1) % 2);
      from->Post([from, to] { from->MoveConnections(to, 2); });
      std::this_thread::yield();
    }
  });
  for (std::thread& t : threads) t.join();
  stop.store(true);
  relay.join();
  unblocker.join();
  mover.join();

  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(total.load(), kJobs);
  int missing = 0, twice = 0;
  for (int n : taken) {
    if (n == 0) ++missing;
    if (n > 1) ++twice;
  }
  EXPECT_EQ(missing, 0);
  EXPECT_EQ(twice, 0);
  Context check = Connect(rs.port());
  ASSERT_TRUE(check != nullptr && check->err == 0);
  for (const char* q : {"q0", "q1", "q2", "q3"}) {
    Reply len = Command(check.get(), "LLEN %s", q);
    ASSERT_NE(len, nullptr);
    EXPECT_EQ(len->integer, 0) << q;
  }
  // Nobody is left waiting once the consumers and the relay are done.
  consumers.clear();
  Reply info = Command(check.get(), "INFO clients");
  ASSERT_NE(info, nullptr);
  EXPECT_NE(Str(info.get()).find("blocked_clients:0\r\n"), std::string::npos);
}

}  // namespace
}  // namespace ordis::server
