// Connections moving between I/O threads under load, in-process so ThreadSanitizer sees both
// sides (scripts/test.sh runs it under TSAN and ASAN). A real server on a free port with three I/O
// threads; client threads pipeline INCRs on one key and check every reply, while a mover hands
// connections from thread to thread (IoThread::MoveConnections, what the balancer does), another
// client lists clients and reads INFO (the registry and the per-connection counters other
// threads read), and a killer closes connections with CLIENT KILL as they move. The clients are
// hiredis connections.
#include <gtest/gtest.h>

#include <atomic>
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

TEST(ConnectionMoveTest, IncrementsExactWhileConnectionsMove) {
  constexpr int kThreads = 3;
  constexpr int kClients = 6;
  constexpr int kBatch = 20;
  constexpr int kRounds = 1000;
  RunningServer rs(kThreads);
  ASSERT_TRUE(rs.listening());
  IoThreadPool& io = rs.server().TEST_io_threads();

  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      Context client = Connect(rs.port());
      if (client == nullptr || client->err != 0) {
        ++failures;
        return;
      }
      long long last = 0;
      for (int round = 0; round < kRounds; ++round) {
        for (int i = 0; i < kBatch; ++i) redisAppendCommand(client.get(), "INCR counter");
        for (int i = 0; i < kBatch; ++i) {
          Reply reply = GetReply(client.get());
          if (reply == nullptr) {
            ++failures;
            return;
          }
          if (reply->type != REDIS_REPLY_INTEGER || reply->integer <= last) {
            ++failures;  // one connection's replies come back in order
          }
          last = reply->integer;
        }
      }
    });
  }
  // Hands connections around the ring of threads as fast as the threads take the requests.
  std::thread mover([&] {
    for (int i = 0; !stop.load(); ++i) {
      IoThread* from = &io.thread(i % kThreads);
      IoThread* to = &io.thread((i + 1) % kThreads);
      from->Post([from, to] { from->MoveConnections(to, 3); });
      std::this_thread::yield();
    }
  });
  // Reads what other threads' connections publish, while they move.
  std::thread observer([&] {
    Context client = Connect(rs.port());
    while (!stop.load()) {
      if (client == nullptr || client->err != 0 ||
          Command(client.get(), "CLIENT LIST") == nullptr ||
          Command(client.get(), "INFO threads") == nullptr) {
        ++failures;
        return;
      }
    }
  });
  // Connections killed while they move close wherever they are.
  std::thread killer([&] {
    for (int round = 0; round < 20 && !stop.load(); ++round) {
      Context victim = Connect(rs.port());
      Context admin = Connect(rs.port());
      bool connected = victim && !victim->err && admin && !admin->err;
      Reply id = connected ? Command(victim.get(), "CLIENT ID") : nullptr;
      Reply killed = id ? Command(admin.get(), "CLIENT KILL ID %lld", id->integer) : nullptr;
      if (killed == nullptr || killed->type != REDIS_REPLY_INTEGER || killed->integer != 1) {
        ++failures;
        return;
      }
      // Blocks until the server closes the connection: then there is no reply to read.
      if (GetReply(victim.get()) != nullptr) ++failures;
    }
  });
  for (std::thread& t : clients) t.join();
  killer.join();
  stop.store(true);
  mover.join();
  observer.join();
  EXPECT_EQ(failures.load(), 0);

  Context check = Connect(rs.port());
  ASSERT_TRUE(check != nullptr && check->err == 0);
  Reply counter = Command(check.get(), "GET counter");
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(Str(counter.get()), std::to_string(kClients * kBatch * kRounds));
  Reply info = Command(check.get(), "INFO threads");
  ASSERT_NE(info, nullptr);
  std::string text = Str(info.get());
  EXPECT_EQ(text.find("connections_moved:0\r\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace ordis::server
