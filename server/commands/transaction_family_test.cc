// MULTI EXEC DISCARD WATCH UNWATCH, in-process. Every expectation was checked against
// redis-server 7.0.15.
#include "server/commands/family_test_support.h"

namespace ordis::server::test {
namespace {

constexpr std::string_view kExecAbort =
    "EXECABORT Transaction discarded because of previous errors.";
constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";

class TransactionFamilyTest : public FamilyTest {
 protected:
  // Runs MULTI, one queued PING and EXEC on client c, returning EXEC's reply.
  Reply PingTransaction(TestClient& c) {
    EXPECT_EQ(c.Run({"multi"}), Ok());
    EXPECT_EQ(c.Run({"ping"}), Status("QUEUED"));
    return c.Run({"exec"});
  }
};

TEST_F(TransactionFamilyTest, QueuedCommandsRunAtExec) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "a", "1"}), Status("QUEUED"));
  EXPECT_EQ(Run({"incr", "a"}), Status("QUEUED"));
  EXPECT_EQ(Run({"get", "a"}), Status("QUEUED"));
  EXPECT_EQ(Run({"get", "nokey"}), Status("QUEUED"));
  EXPECT_EQ(Run({"ping"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Ok(), Int(2), Bulk("2"), Nil(), Status("PONG")}));
}

TEST_F(TransactionFamilyTest, ExecRepliesAsOneArrayOnTheWire) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"incr", "n"}), Status("QUEUED"));
  EXPECT_EQ(Run({"incr", "n"}), Status("QUEUED"));
  EXPECT_EQ(RunRaw({"exec"}), "*2\r\n:1\r\n:2\r\n");
}

TEST_F(TransactionFamilyTest, QueuedCommandsDoNotRunBeforeExec) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "a", "1"}), Status("QUEUED"));
  EXPECT_EQ(other.Run({"get", "a"}), Nil());
  EXPECT_EQ(Run({"exec"}), Array({Ok()}));
  EXPECT_EQ(other.Run({"get", "a"}), Bulk("1"));
}

TEST_F(TransactionFamilyTest, EmptyTransaction) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(RunRaw({"exec"}), "*0\r\n");
}

TEST_F(TransactionFamilyTest, DiscardDropsTheQueue) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "d", "1"}), Status("QUEUED"));
  EXPECT_EQ(Run({"discard"}), Ok());
  EXPECT_EQ(Run({"get", "d"}), Nil());  // runs now, not queued; the SET never ran
  EXPECT_EQ(Run({"discard"}), Err("ERR DISCARD without MULTI"));
}

TEST_F(TransactionFamilyTest, ExecAndDiscardWithoutMulti) {
  EXPECT_EQ(Run({"exec"}), Err("ERR EXEC without MULTI"));
  EXPECT_EQ(Run({"discard"}), Err("ERR DISCARD without MULTI"));
}

TEST_F(TransactionFamilyTest, NestedMultiIsRefusedWithoutAbortingTheTransaction) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "x", "3"}), Status("QUEUED"));
  EXPECT_EQ(Run({"multi"}), Err("ERR MULTI calls can not be nested"));
  EXPECT_EQ(Run({"exec"}), Array({Ok()}));
  EXPECT_EQ(Run({"get", "x"}), Bulk("3"));
}

TEST_F(TransactionFamilyTest, RuntimeErrorsDoNotAbortTheTransaction) {
  EXPECT_EQ(Run({"lpush", "l", "a"}), Int(1));
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "b", "1"}), Status("QUEUED"));
  EXPECT_EQ(Run({"incr", "l"}), Status("QUEUED"));
  EXPECT_EQ(Run({"incr", "b"}), Status("QUEUED"));
  EXPECT_EQ(Run({"set", "c", "1", "EX", "0"}), Status("QUEUED"));  // argument errors show at EXEC
  EXPECT_EQ(Run({"exec"}), Array({Ok(), Err(kWrongType), Int(2),
                                  Err("ERR invalid expire time in 'set' command")}));
  EXPECT_EQ(Run({"get", "b"}), Bulk("2"));
}

TEST_F(TransactionFamilyTest, UnknownCommandAbortsExec) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "c", "1"}), Status("QUEUED"));
  EXPECT_EQ(Run({"FOO"}), Err("ERR unknown command 'FOO', with args beginning with: "));
  EXPECT_EQ(Run({"get", "c"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Err(kExecAbort));
  EXPECT_EQ(Run({"get", "c"}), Nil());  // nothing ran, and the transaction is over
}

TEST_F(TransactionFamilyTest, ArityErrorAbortsExec) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "c", "1"}), Status("QUEUED"));
  EXPECT_EQ(Run({"get"}), Err("ERR wrong number of arguments for 'get' command"));
  EXPECT_EQ(Run({"exec"}), Err(kExecAbort));
  EXPECT_EQ(Run({"get", "c"}), Nil());
  EXPECT_EQ(Run({"exec"}), Err("ERR EXEC without MULTI"));
}

TEST_F(TransactionFamilyTest, DiscardAfterAQueueingError) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "x"}), Err("ERR wrong number of arguments for 'set' command"));
  EXPECT_EQ(Run({"discard"}), Ok());
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
}

TEST_F(TransactionFamilyTest, ExecWithArgumentsDiscardsTheTransaction) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "x", "2"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec", "a"}), Err("EXECABORT Transaction discarded because of: wrong number "
                                    "of arguments for 'exec' command"));
  EXPECT_EQ(Run({"exec"}), Err("ERR EXEC without MULTI"));
  EXPECT_EQ(Run({"get", "x"}), Nil());
}

TEST_F(TransactionFamilyTest, ArityErrorsOutsideMulti) {
  EXPECT_EQ(Run({"watch"}), Err("ERR wrong number of arguments for 'watch' command"));
  EXPECT_EQ(Run({"multi", "x"}), Err("ERR wrong number of arguments for 'multi' command"));
  EXPECT_EQ(Run({"discard", "x"}), Err("ERR wrong number of arguments for 'discard' command"));
  EXPECT_EQ(Run({"unwatch", "x"}), Err("ERR wrong number of arguments for 'unwatch' command"));
}

TEST_F(TransactionFamilyTest, MultiWithArgumentsInsideMultiAbortsExec) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"multi", "x"}), Err("ERR wrong number of arguments for 'multi' command"));
  EXPECT_EQ(Run({"exec"}), Err(kExecAbort));
}

TEST_F(TransactionFamilyTest, WatchArityErrorInsideMultiAbortsExec) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"watch"}), Err("ERR wrong number of arguments for 'watch' command"));
  EXPECT_EQ(Run({"exec"}), Err(kExecAbort));
}

TEST_F(TransactionFamilyTest, WatchInsideMultiIsRefusedWithoutAborting) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"watch", "x"}), Err("ERR WATCH inside MULTI is not allowed"));
  EXPECT_EQ(Run({"set", "x", "1"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Ok()}));
}

TEST_F(TransactionFamilyTest, UnwatchInsideMultiIsQueued) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"unwatch"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Ok()}));
}

TEST_F(TransactionFamilyTest, NoMultiCommandIsRefusedAndAbortsExec) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"save"}), Err("ERR Command not allowed inside a transaction"));
  EXPECT_EQ(Run({"exec"}), Err(kExecAbort));
  EXPECT_EQ(Run({"ping"}), Status("PONG"));
}

TEST_F(TransactionFamilyTest, SelectInsideMultiLastsAfterExec) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"select", "3"}), Status("QUEUED"));
  EXPECT_EQ(Run({"set", "x", "y"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Ok(), Ok()}));
  EXPECT_EQ(Run({"get", "x"}), Bulk("y"));
  EXPECT_EQ(Run({"select", "0"}), Ok());
  EXPECT_EQ(Run({"get", "x"}), Nil());
}

TEST_F(TransactionFamilyTest, WatchedKeyWrittenByAnotherClientAbortsExec) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"set", "k", "1"}), Ok());
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(other.Run({"set", "k", "2"}), Ok());
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "k", "3"}), Status("QUEUED"));
  EXPECT_EQ(RunRaw({"exec"}), "*-1\r\n");  // RESP2: a null array
  EXPECT_EQ(Run({"get", "k"}), Bulk("2"));
}

TEST_F(TransactionFamilyTest, AbortedExecIsNullInResp3) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(other.Run({"set", "k", "9"}), Ok());
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"ping"}), Status("QUEUED"));
  EXPECT_EQ(RunRaw({"exec"}), "_\r\n");
}

TEST_F(TransactionFamilyTest, ExecForgetsTheWatches) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(other.Run({"set", "k", "1"}), Ok());
  EXPECT_EQ(PingTransaction(client()), NilArray());
  EXPECT_EQ(other.Run({"set", "k", "2"}), Ok());
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "k", "4"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Ok()}));
  EXPECT_EQ(other.Run({"get", "k"}), Bulk("4"));
}

TEST_F(TransactionFamilyTest, WatchedMissingKeyCreatedAbortsExec) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"watch", "nokey"}), Ok());
  EXPECT_EQ(other.Run({"set", "nokey", "x"}), Ok());
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"get", "nokey"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), NilArray());
}

TEST_F(TransactionFamilyTest, WatchedKeyDeletedAbortsExec) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"set", "d", "1"}), Ok());
  EXPECT_EQ(Run({"watch", "d"}), Ok());
  EXPECT_EQ(other.Run({"del", "d"}), Int(1));
  EXPECT_EQ(PingTransaction(client()), NilArray());
}

TEST_F(TransactionFamilyTest, WatchedKeyGivenATtlAbortsExec) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"set", "e", "1"}), Ok());
  EXPECT_EQ(Run({"watch", "e"}), Ok());
  EXPECT_EQ(other.Run({"expire", "e", "100"}), Int(1));
  EXPECT_EQ(PingTransaction(client()), NilArray());
}

TEST_F(TransactionFamilyTest, ReadsAndOtherKeysDoNotAbortExec) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"set", "k", "4"}), Ok());
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(other.Run({"set", "other", "2"}), Ok());
  EXPECT_EQ(other.Run({"get", "k"}), Bulk("4"));
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "k", "5"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Ok()}));
}

TEST_F(TransactionFamilyTest, SameKeyNameInAnotherDbDoesNotAbortExec) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(other.Run({"select", "1"}), Ok());
  EXPECT_EQ(other.Run({"set", "k", "x"}), Ok());
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"set", "k", "6"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Ok()}));
}

TEST_F(TransactionFamilyTest, OwnWriteBeforeMultiAbortsExec) {
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(Run({"set", "k", "mine"}), Ok());
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), NilArray());
}

TEST_F(TransactionFamilyTest, UnwatchForgetsTheWatches) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(Run({"unwatch"}), Ok());
  EXPECT_EQ(other.Run({"set", "k", "7"}), Ok());
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Bulk("7")}));
  EXPECT_EQ(Run({"unwatch"}), Ok());  // harmless without WATCH
}

TEST_F(TransactionFamilyTest, DiscardForgetsTheWatches) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"discard"}), Ok());
  EXPECT_EQ(other.Run({"set", "k", "8"}), Ok());
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Bulk("8")}));
}

TEST_F(TransactionFamilyTest, AnyOfSeveralWatchedKeysAbortsExec) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"watch", "k1", "k2", "k3"}), Ok());
  EXPECT_EQ(other.Run({"set", "k3", "x"}), Ok());
  EXPECT_EQ(PingTransaction(client()), NilArray());
}

TEST_F(TransactionFamilyTest, WatchingAKeyTwiceStillAborts) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(other.Run({"set", "k", "1"}), Ok());
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(PingTransaction(client()), NilArray());
}

TEST_F(TransactionFamilyTest, FlushAllOfAWatchedKeyAbortsExec) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"set", "k", "1"}), Ok());
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(other.Run({"flushall"}), Ok());
  EXPECT_EQ(PingTransaction(client()), NilArray());
}

TEST_F(TransactionFamilyTest, FlushDbOfAWatchedKeyAbortsExec) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"set", "k", "1"}), Ok());
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(other.Run({"flushdb"}), Ok());
  EXPECT_EQ(PingTransaction(client()), NilArray());
}

TEST_F(TransactionFamilyTest, SwapDbOfAWatchedKeyAbortsExec) {
  TestClient& other = NewClient();
  EXPECT_EQ(Run({"set", "k", "1"}), Ok());
  EXPECT_EQ(Run({"watch", "k"}), Ok());
  EXPECT_EQ(other.Run({"swapdb", "0", "1"}), Ok());
  EXPECT_EQ(PingTransaction(client()), NilArray());
}

}  // namespace
}  // namespace ordis::server::test
