// The blocking commands (BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP BZPOPMIN BZPOPMAX BZMPOP) and the
// multi-key pops (LMPOP ZMPOP), in-process: a client that blocks replies nothing until a write
// from another client serves it (TestClient::Resume takes the reply its wait ended with), or its
// deadline passes, or CLIENT UNBLOCK ends it. Every expectation was first checked against
// redis-server 7.0.15.
#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "server/command/client_state.h"
#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

class BlockingFamilyTest : public FamilyTest {
 protected:
  // Runs a command that must block: it replies nothing and the client waits.
  void Block(TestClient& c, std::vector<std::string> args) {
    EXPECT_EQ(c.RunRaw(std::move(args)), "");
    EXPECT_TRUE(c.blocked());
  }
  std::string Info(std::string_view field) {
    const std::string info = Run({"info", "clients"}).str;
    const size_t at = info.find(std::string(field) + ":");
    if (at == std::string::npos) return "?";
    const size_t start = at + field.size() + 1;
    return info.substr(start, info.find('\r', start) - start);
  }
};

TEST_F(BlockingFamilyTest, PopsAtOnceFromTheFirstKeyHoldingAList) {
  Run({"rpush", "b", "b1", "b2"});
  Run({"rpush", "c", "c1"});
  EXPECT_EQ(Run({"blpop", "a", "b", "c", "0"}), Strings({"b", "b1"}));
  EXPECT_EQ(Run({"brpop", "a", "b", "c", "0"}), Strings({"b", "b2"}));
  EXPECT_EQ(Run({"exists", "b"}), Int(0));
  EXPECT_EQ(Run({"brpop", "a", "b", "c", "0"}), Strings({"c", "c1"}));
}

TEST_F(BlockingFamilyTest, WrongTypeBeforeAnyListIsAnError) {
  Run({"set", "s", "x"});
  Run({"rpush", "l", "v"});
  EXPECT_EQ(Run({"blpop", "s", "l", "0"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"blpop", "l", "s", "0"}), Strings({"l", "v"}));
  EXPECT_EQ(Run({"bzpopmin", "s", "0"}),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
}

TEST_F(BlockingFamilyTest, TimeoutArgument) {
  EXPECT_EQ(Run({"blpop", "a", "-1"}), Err("ERR timeout is negative"));
  EXPECT_EQ(Run({"blpop", "a", "x"}), Err("ERR timeout is not a float or out of range"));
  EXPECT_EQ(Run({"blpop", "a", " 1"}), Err("ERR timeout is not a float or out of range"));
  EXPECT_EQ(Run({"blpop", "a", "nan"}), Err("ERR timeout is not a float or out of range"));
  // Too many milliseconds for an int64 is "negative", as Redis's conversion makes it.
  EXPECT_EQ(Run({"blpop", "a", "1e20"}), Err("ERR timeout is negative"));
  EXPECT_EQ(Run({"blpop", "a", "inf"}), Err("ERR timeout is negative"));
  EXPECT_EQ(Run({"bzmpop", "x", "1", "a", "min"}),
            Err("ERR timeout is not a float or out of range"));
  EXPECT_EQ(Run({"blmove", "a", "b", "up", "left", "0"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"blpop", "a"}), Err("ERR wrong number of arguments for 'blpop' command"));
  EXPECT_EQ(Run({"info", "clients"}).type, Reply::Type::kBulk);
  EXPECT_EQ(Info("blocked_clients"), "0");
}

TEST_F(BlockingFamilyTest, APushServesTheBlockedClient) {
  TestClient& waiter = NewClient();
  Block(waiter, {"blpop", "a", "b", "0"});
  EXPECT_EQ(waiter.Resume(), std::nullopt);  // nothing yet
  EXPECT_EQ(Info("blocked_clients"), "1");
  EXPECT_EQ(Run({"rpush", "b", "x", "y"}), Int(2));
  EXPECT_EQ(waiter.Resume(), Strings({"b", "x"}));
  EXPECT_FALSE(waiter.blocked());
  EXPECT_EQ(Run({"lrange", "b", "0", "-1"}), Strings({"y"}));
  EXPECT_EQ(Info("blocked_clients"), "0");
}

TEST_F(BlockingFamilyTest, ClientsAreServedInTheOrderTheyBlocked) {
  TestClient& first = NewClient();
  TestClient& second = NewClient();
  TestClient& third = NewClient();
  Block(first, {"brpop", "q", "0"});
  Block(second, {"brpop", "q", "0"});
  Block(third, {"brpop", "other", "q", "0"});
  EXPECT_EQ(Run({"lpush", "q", "1", "2"}), Int(2));
  EXPECT_EQ(first.Resume(), Strings({"q", "1"}));
  EXPECT_EQ(second.Resume(), Strings({"q", "2"}));
  EXPECT_EQ(third.Resume(), std::nullopt);
  EXPECT_EQ(Run({"exists", "q"}), Int(0));
  EXPECT_EQ(Run({"rpush", "other", "o"}), Int(1));
  EXPECT_EQ(third.Resume(), Strings({"other", "o"}));
}

TEST_F(BlockingFamilyTest, TimeoutRepliesANullArray) {
  TestClient& waiter = NewClient();
  Block(waiter, {"blmove", "a", "b", "left", "right", "0.01"});
  EXPECT_GT(waiter.state().block_deadline_ms, 0);
  EXPECT_EQ(waiter.Resume(/*timed_out=*/true), NilArray());
  EXPECT_FALSE(waiter.blocked());
  // A later push serves nobody.
  Run({"rpush", "a", "x"});
  EXPECT_EQ(Run({"llen", "a"}), Int(1));
  // 0 waits forever.
  Block(waiter, {"blpop", "z", "0"});
  EXPECT_EQ(waiter.state().block_deadline_ms, 0);
}

TEST_F(BlockingFamilyTest, InsideMultiTheyReplyAsTheirTimeout) {
  Run({"multi"});
  Run({"blpop", "a", "0"});
  Run({"blmove", "a", "b", "left", "right", "0"});
  Run({"brpoplpush", "a", "b", "0"});
  Run({"bzpopmin", "a", "0"});
  Run({"blmpop", "0", "1", "a", "left"});
  Run({"bzmpop", "0", "1", "a", "min"});
  EXPECT_EQ(Run({"exec"}), Array({NilArray(), Nil(), Nil(), NilArray(), NilArray(), NilArray()}));
  EXPECT_FALSE(client().blocked());
}

TEST_F(BlockingFamilyTest, AKeyOfAnotherTypeLeavesTheClientWaiting) {
  TestClient& waiter = NewClient();
  Block(waiter, {"blpop", "k", "0"});
  Run({"set", "k", "string"});
  EXPECT_EQ(waiter.Resume(), std::nullopt);
  Run({"del", "k"});
  Run({"zadd", "k", "1", "m"});
  EXPECT_EQ(waiter.Resume(), std::nullopt);
  Run({"del", "k"});
  Run({"rpush", "k", "v"});
  EXPECT_EQ(waiter.Resume(), Strings({"k", "v"}));
}

TEST_F(BlockingFamilyTest, ServedMoveServesTheNextWaiter) {
  TestClient& mover = NewClient();
  TestClient& popper = NewClient();
  Block(mover, {"blmove", "src", "dst", "right", "left", "0"});
  Block(popper, {"blpop", "dst", "0"});
  EXPECT_EQ(Run({"rpush", "src", "a", "b"}), Int(2));
  EXPECT_EQ(mover.Resume(), Bulk("b"));
  EXPECT_EQ(popper.Resume(), Strings({"dst", "b"}));
  EXPECT_EQ(Run({"lrange", "src", "0", "-1"}), Strings({"a"}));
  EXPECT_EQ(Run({"exists", "dst"}), Int(0));
}

TEST_F(BlockingFamilyTest, MoveToAWrongTypeDestinationEndsWithTheError) {
  TestClient& mover = NewClient();
  Block(mover, {"brpoplpush", "src", "dst", "0"});
  Run({"set", "dst", "x"});
  Run({"rpush", "src", "a"});
  EXPECT_EQ(mover.Resume(),
            Err("WRONGTYPE Operation against a key holding the wrong kind of value"));
  EXPECT_EQ(Run({"lrange", "src", "0", "-1"}), Strings({"a"}));  // nothing popped
}

TEST_F(BlockingFamilyTest, ATransactionServesAfterItsLastCommand) {
  TestClient& waiter = NewClient();
  Block(waiter, {"blpop", "k", "0"});
  Run({"multi"});
  Run({"rpush", "k", "a"});
  Run({"rpush", "k", "b"});
  Run({"lpop", "k"});
  EXPECT_EQ(Run({"exec"}), Array({Int(1), Int(2), Bulk("a")}));
  EXPECT_EQ(waiter.Resume(), Strings({"k", "b"}));
}

TEST_F(BlockingFamilyTest, TheWaitIsInTheClientsDatabase) {
  TestClient& waiter = NewClient();
  waiter.Run({"select", "1"});
  Block(waiter, {"blpop", "k", "0"});
  Run({"rpush", "k", "db0"});
  EXPECT_EQ(waiter.Resume(), std::nullopt);
  // MOVE makes the key a list in db 1: that serves it.
  EXPECT_EQ(Run({"move", "k", "1"}), Int(1));
  EXPECT_EQ(waiter.Resume(), Strings({"k", "db0"}));
}

TEST_F(BlockingFamilyTest, SwapDbServesWaitersOfKeysThatAppear) {
  TestClient& waiter = NewClient();
  Block(waiter, {"blpop", "k", "0"});
  Run({"select", "1"});
  Run({"rpush", "k", "from1"});
  EXPECT_EQ(Run({"swapdb", "0", "1"}), Ok());
  EXPECT_EQ(waiter.Resume(), Strings({"k", "from1"}));
}

TEST_F(BlockingFamilyTest, ClientUnblock) {
  TestClient& waiter = NewClient();
  const std::string id = std::to_string(waiter.state().id);
  EXPECT_EQ(Run({"client", "unblock", id}), Int(0));
  Block(waiter, {"blpop", "k", "0"});
  EXPECT_EQ(Run({"client", "list", "id", id}).str.find("flags=b ") != std::string::npos, true);
  EXPECT_EQ(Run({"client", "unblock", id, "timeout"}), Int(1));
  EXPECT_EQ(waiter.Resume(), NilArray());
  Block(waiter, {"bzpopmax", "k", "0"});
  EXPECT_EQ(Run({"client", "unblock", id, "foo"}),
            Err("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"));
  EXPECT_EQ(Run({"client", "unblock", id, "ERROR"}), Int(1));
  EXPECT_EQ(waiter.Resume(), Err("UNBLOCKED client unblocked via CLIENT UNBLOCK"));
  EXPECT_EQ(Run({"client", "unblock", id}), Int(0));
  EXPECT_EQ(Run({"client", "unblock", "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"client", "unblock", id, "timeout", "x"}),
            Err("ERR unknown subcommand or wrong number of arguments for 'unblock'. Try CLIENT "
                "HELP."));
}

TEST_F(BlockingFamilyTest, AClientThatLeavesIsForgotten) {
  TestClient& waiter = NewClient();
  Block(waiter, {"blpop", "k", "0"});
  EXPECT_EQ(Info("blocked_clients"), "1");
  CloseClient(waiter);
  EXPECT_EQ(Info("blocked_clients"), "0");
  EXPECT_EQ(Run({"rpush", "k", "v"}), Int(1));
  EXPECT_EQ(Run({"llen", "k"}), Int(1));
}

TEST_F(BlockingFamilyTest, SortedSetPops) {
  TestClient& min = NewClient();
  TestClient& max = NewClient();
  Block(min, {"bzpopmin", "z", "0"});
  Block(max, {"bzpopmax", "z", "0"});
  EXPECT_EQ(Run({"zadd", "z", "1", "a", "2", "b", "3", "c"}), Int(3));
  EXPECT_EQ(min.Resume(), Strings({"z", "a", "1"}));
  EXPECT_EQ(max.Resume(), Strings({"z", "c", "3"}));
  EXPECT_EQ(Run({"bzpopmin", "y", "z", "0"}), Strings({"z", "b", "2"}));
  TestClient& many = NewClient();
  Block(many, {"bzmpop", "0", "2", "y", "z", "max", "count", "5"});
  Run({"zadd", "y", "5", "e", "4", "d"});
  EXPECT_EQ(many.Resume(), Array({Bulk("y"), Array({Strings({"e", "5"}), Strings({"d", "4"})})}));
}

TEST_F(BlockingFamilyTest, ListMultiPop) {
  TestClient& waiter = NewClient();
  Block(waiter, {"blmpop", "0", "2", "a", "b", "right", "count", "2"});
  Run({"rpush", "b", "1", "2", "3"});
  EXPECT_EQ(waiter.Resume(), Array({Bulk("b"), Strings({"3", "2"})}));
  EXPECT_EQ(Run({"lmpop", "2", "a", "b", "left", "count", "10"}),
            Array({Bulk("b"), Strings({"1"})}));
  EXPECT_EQ(Run({"lmpop", "1", "b", "left"}), NilArray());
}

TEST_F(BlockingFamilyTest, MultiPopArguments) {
  EXPECT_EQ(Run({"lmpop", "0", "a", "left"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"lmpop", "x", "a", "left"}), Err("ERR numkeys should be greater than 0"));
  EXPECT_EQ(Run({"lmpop", "5", "a", "left"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lmpop", "2147483648", "a", "left"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lmpop", "1", "a", "left", "count"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lmpop", "1", "a", "left", "count", "0"}),
            Err("ERR count should be greater than 0"));
  EXPECT_EQ(Run({"lmpop", "1", "a", "left", "count", "x"}),
            Err("ERR count should be greater than 0"));
  EXPECT_EQ(Run({"lmpop", "1", "a", "left", "count", "1", "count", "2"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"lmpop", "1", "a", "up"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zmpop", "1", "a", "left"}), Err("ERR syntax error"));
  EXPECT_EQ(Run({"zmpop", "1", "a", "min"}), NilArray());
  EXPECT_EQ(Run({"blmpop", "0.01", "0", "a", "left"}), Err("ERR numkeys should be greater than 0"));
  // COMMAND GETKEYS finds the keys after numkeys.
  EXPECT_EQ(Run({"command", "getkeys", "blmpop", "0", "2", "a", "b", "left"}), Strings({"a", "b"}));
  EXPECT_EQ(Run({"command", "getkeys", "blpop", "a", "b", "0"}), Strings({"a", "b"}));
}

TEST_F(BlockingFamilyTest, Resp3Replies) {
  TestClient& waiter = NewClient();
  waiter.Run({"hello", "3"});
  Block(waiter, {"bzpopmin", "z", "0.5"});
  Run({"zadd", "z", "1.5", "m"});
  EXPECT_EQ(waiter.Resume(), Array({Bulk("z"), Bulk("m"), Double("1.5")}));
  Block(waiter, {"blpop", "l", "0.5"});
  EXPECT_EQ(waiter.Resume(/*timed_out=*/true), Nil());
}

// Random pushes, pops, blocking pops, timeouts and CLIENT UNBLOCKs by six clients over three keys,
// against a model: lists of strings, and the waiters in the order they blocked. After a push the
// model serves the key's waiters in that order while the list has elements (the other keys of a
// waiter are empty, or it would not wait), each taking one from the left. After every step each
// client's reply (or its still waiting) and every list must match the model's.
TEST_F(BlockingFamilyTest, DifferentialAgainstAModel) {
  const std::vector<std::string> keys = {"a", "b", "c"};
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Run({"flushall"});
    std::mt19937 rng(seed);
    std::vector<TestClient*> clients;
    for (int i = 0; i < 6; ++i) clients.push_back(&NewClient());
    std::map<std::string, std::deque<std::string>> lists;
    struct Waiter {
      size_t client;
      std::vector<std::string> keys;
    };
    std::deque<Waiter> waiters;                             // in the order they blocked
    std::vector<std::optional<Reply>> due(clients.size());  // what each must get now
    auto waiting = [&](size_t c) {
      for (const Waiter& w : waiters) {
        if (w.client == c) return true;
      }
      return false;
    };
    auto end_wait = [&](size_t c) {
      for (auto it = waiters.begin(); it != waiters.end(); ++it) {
        if (it->client == c) {
          waiters.erase(it);
          return;
        }
      }
    };
    int next_value = 0;
    for (int step = 0; step < 300; ++step) {
      const size_t c = rng() % clients.size();
      const std::string& key = keys[rng() % keys.size()];
      switch (rng() % 5) {
        case 0: {  // BLPOP on some keys, in some order
          if (waiting(c)) break;
          std::vector<std::string> mine = keys;
          std::shuffle(mine.begin(), mine.end(), rng);
          mine.resize(1 + rng() % keys.size());
          std::vector<std::string> args = {"blpop"};
          args.insert(args.end(), mine.begin(), mine.end());
          args.push_back("0");
          std::optional<Reply> want;
          for (const std::string& k : mine) {
            if (!lists[k].empty()) {
              want = Strings({k, lists[k].front()});
              lists[k].pop_front();
              break;
            }
          }
          if (want) {
            ASSERT_EQ(clients[c]->Run(args), *want) << "seed " << seed << " step " << step;
          } else {
            ASSERT_EQ(clients[c]->RunRaw(args), "") << "seed " << seed << " step " << step;
            waiters.push_back({c, mine});
          }
          break;
        }
        case 1: {  // RPUSH, then the key's waiters are served in order
          std::vector<std::string> args = {"rpush", key};
          const int n = 1 + static_cast<int>(rng() % 3);
          for (int i = 0; i < n; ++i) {
            args.push_back(std::to_string(next_value));
            lists[key].push_back(std::to_string(next_value++));
          }
          const int64_t len = static_cast<int64_t>(lists[key].size());
          ASSERT_EQ(Run(args), Int(len)) << "seed " << seed << " step " << step;
          for (auto it = waiters.begin(); it != waiters.end() && !lists[key].empty();) {
            if (std::find(it->keys.begin(), it->keys.end(), key) == it->keys.end()) {
              ++it;
              continue;
            }
            due[it->client] = Strings({key, lists[key].front()});
            lists[key].pop_front();
            it = waiters.erase(it);
          }
          break;
        }
        case 2: {  // LPOP by someone who does not wait
          std::optional<Reply> want = Nil();
          if (!lists[key].empty()) {
            want = Bulk(lists[key].front());
            lists[key].pop_front();
          }
          ASSERT_EQ(Run({"lpop", key}), *want) << "seed " << seed << " step " << step;
          break;
        }
        case 3:  // the deadline passes
          if (!waiting(c)) break;
          end_wait(c);
          ASSERT_EQ(clients[c]->Resume(/*timed_out=*/true), NilArray())
              << "seed " << seed << " step " << step;
          break;
        case 4: {  // CLIENT UNBLOCK, waiting or not
          const bool was = waiting(c);
          ASSERT_EQ(Run({"client", "unblock", std::to_string(clients[c]->state().id)}),
                    Int(was ? 1 : 0))
              << "seed " << seed << " step " << step;
          if (was) {
            end_wait(c);
            due[c] = NilArray();
          }
          break;
        }
      }
      for (size_t i = 0; i < clients.size(); ++i) {
        if (due[i]) {
          ASSERT_EQ(clients[i]->Resume(), *due[i]) << "seed " << seed << " step " << step;
          due[i].reset();
        }
        ASSERT_EQ(clients[i]->blocked(), waiting(i)) << "seed " << seed << " step " << step;
      }
    }
    for (const std::string& k : keys) {
      std::vector<std::string> want(lists[k].begin(), lists[k].end());
      ASSERT_EQ(Run({"lrange", k, "0", "-1"}), Strings(want)) << "seed " << seed;
    }
    for (TestClient* client : clients) CloseClient(*client);
  }
}

}  // namespace
}  // namespace ordis::server::test
