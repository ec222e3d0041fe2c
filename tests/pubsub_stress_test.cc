// Pub/sub under load, in-process so ThreadSanitizer sees publishers, subscribers and the I/O
// threads alike (scripts/test.sh runs it under TSAN). A real server with two I/O threads; eight
// hiredis connections spread over both: four publishers pipeline numbered messages to a channel
// each, four subscribers (two by channel, two by pattern) check that every message arrives once
// and each channel's in order, while a churner subscribes and unsubscribes to the same channels
// and a mover hands connections from thread to thread (messages then wait in an outbox whose
// nudge may reach the thread the connection left).
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

constexpr int kChannels = 4;
constexpr int kMessages = 2000;  // per channel
constexpr int kBatch = 50;

// Reads one subscriber's kChannels * kMessages messages; false on any loss, duplicate or reorder.
bool ReadAll(redisContext* c, bool pattern, std::string* why) {
  std::vector<int> next(kChannels, 0);
  for (int i = 0; i < kChannels * kMessages; ++i) {
    Reply r = GetReply(c);
    const size_t parts = pattern ? 4 : 3;
    if (r == nullptr || r->type != REDIS_REPLY_ARRAY || r->elements != parts) {
      *why = "bad frame after " + std::to_string(i) + " messages";
      return false;
    }
    const std::string kind = Str(r->element[0]);
    const std::string channel = Str(r->element[parts - 2]);
    const int seq = std::stoi(Str(r->element[parts - 1]));
    const int ch = channel.size() == 2 ? channel[1] - '0' : -1;
    if (kind != (pattern ? "pmessage" : "message") || ch < 0 || ch >= kChannels ||
        seq != next[ch]) {
      *why = kind + " " + channel + " " + std::to_string(seq) + ", expected " +
             (ch >= 0 && ch < kChannels ? std::to_string(next[ch]) : "a channel c0..c3");
      return false;
    }
    ++next[ch];
  }
  return true;
}

TEST(PubSubStressTest, EveryMessageOnceInChannelOrderAcrossThreads) {
  RunningServer rs(2);
  ASSERT_TRUE(rs.listening());
  IoThreadPool& io = rs.server().TEST_io_threads();

  // Subscribers first, each confirmed before anything is published.
  std::vector<Context> subscribers;
  for (int s = 0; s < 4; ++s) {
    Context c = Connect(rs.port());
    ASSERT_TRUE(c != nullptr && c->err == 0);
    Reply r = s < 2 ? Command(c.get(), "SUBSCRIBE c0 c1 c2 c3") : Command(c.get(), "PSUBSCRIBE c*");
    ASSERT_NE(r, nullptr);
    for (int i = 1; i < (s < 2 ? kChannels : 1); ++i) ASSERT_NE(GetReply(c.get()), nullptr);
    subscribers.push_back(std::move(c));
  }

  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<std::string> why(4);
  std::vector<std::thread> threads;
  for (int s = 0; s < 4; ++s) {
    threads.emplace_back([&, s] {
      if (!ReadAll(subscribers[s].get(), /*pattern=*/s >= 2, &why[s])) ++failures;
    });
  }
  for (int p = 0; p < kChannels; ++p) {
    threads.emplace_back([&, p] {
      Context c = Connect(rs.port());
      if (c == nullptr || c->err != 0) {
        ++failures;
        return;
      }
      for (int sent = 0; sent < kMessages; sent += kBatch) {
        for (int i = sent; i < sent + kBatch; ++i)
          redisAppendCommand(c.get(), "PUBLISH c%d %d", p, i);
        for (int i = 0; i < kBatch; ++i) {
          Reply r = GetReply(c.get());
          // The four subscribers, and the churner while it is subscribed.
          if (r == nullptr || r->type != REDIS_REPLY_INTEGER || r->integer < 4) ++failures;
        }
      }
    });
  }
  // Subscriptions change while messages flow to the same channels.
  std::thread churner([&] {
    Context c = Connect(rs.port());
    if (c == nullptr || c->err != 0) {
      ++failures;
      return;
    }
    for (int round = 0; !stop.load(); ++round) {
      redisAppendCommand(c.get(), "SUBSCRIBE c%d", round % kChannels);
      redisAppendCommand(c.get(), "PSUBSCRIBE c%d*", round % kChannels);
      redisAppendCommand(c.get(), "UNSUBSCRIBE");
      redisAppendCommand(c.get(), "PUNSUBSCRIBE");
      // Replies and messages interleave; the last reply leaves it unsubscribed from everything.
      for (;;) {
        Reply r = GetReply(c.get());
        if (r == nullptr || r->type != REDIS_REPLY_ARRAY || r->elements < 3) {
          ++failures;
          return;
        }
        if (Str(r->element[0]) == "punsubscribe" && r->element[2]->integer == 0) break;
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
  churner.join();
  mover.join();
  EXPECT_EQ(failures.load(), 0);
  for (const std::string& w : why) EXPECT_EQ(w, "");

  Context check = Connect(rs.port());
  ASSERT_TRUE(check != nullptr && check->err == 0);
  Reply numsub = Command(check.get(), "PUBSUB NUMSUB c0 c1 c2 c3");
  ASSERT_NE(numsub, nullptr);
  ASSERT_EQ(numsub->elements, 8u);
  for (int i = 0; i < kChannels; ++i) EXPECT_EQ(numsub->element[2 * i + 1]->integer, 2);
  Reply numpat = Command(check.get(), "PUBSUB NUMPAT");
  ASSERT_NE(numpat, nullptr);
  EXPECT_EQ(numpat->integer, 1);
  Reply info = Command(check.get(), "INFO threads");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(Str(info.get()).find("connections_moved:0\r\n"), std::string::npos);
}

}  // namespace
}  // namespace ordis::server
