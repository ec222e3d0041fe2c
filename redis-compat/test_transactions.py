"""MULTI / EXEC / DISCARD / WATCH / UNWATCH."""

import time
import unittest

from harness import Err, ServerTestCase

EXECABORT = "EXECABORT Transaction discarded because of previous errors."
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"


class MultiExecTest(ServerTestCase):
    def test_queued_replies(self):
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "SET", "a", "1")
        self.assertReply("QUEUED", "INCR", "a")
        self.assertReply("QUEUED", "GET", "a")
        self.assertReply("QUEUED", "GET", "nokey")
        self.assertReply("QUEUED", "PING")
        self.assertReply(["OK", 2, b"2", None, "PONG"], "EXEC")

    def test_commands_not_run_before_exec(self):
        other = self.raw_client()
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "SET", "a", "1")
        self.assertEqual(other.call("GET", "a"), None)
        self.assertReply(["OK"], "EXEC")
        self.assertEqual(other.call("GET", "a"), b"1")

    def test_empty_transaction(self):
        self.assertReply("OK", "MULTI")
        self.assertReply([], "EXEC")

    def test_discard(self):
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "SET", "a", "1")
        self.assertReply("OK", "DISCARD")
        self.assertReply(None, "GET", "a")  # not queued any more, and the SET never ran
        self.assertErr("ERR DISCARD without MULTI", "DISCARD")

    def test_exec_discard_without_multi(self):
        self.assertErr("ERR EXEC without MULTI", "EXEC")
        self.assertErr("ERR DISCARD without MULTI", "DISCARD")

    def test_nested_multi(self):
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "SET", "x", "3")
        self.assertErr("ERR MULTI calls can not be nested", "MULTI")
        # The nested MULTI does not abort the transaction.
        self.assertReply(["OK"], "EXEC")
        self.assertReply(b"3", "GET", "x")

    def test_runtime_errors_do_not_abort(self):
        self.make_wrongtype_key("l")
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "SET", "b", "1")
        self.assertReply("QUEUED", "INCR", "l")
        self.assertReply("QUEUED", "INCR", "b")
        self.assertReply("QUEUED", "SET", "c", "1", "EX", "0")  # argument errors surface at EXEC
        self.assertReply("QUEUED", "SET", "c", "1", "EX")
        self.assertReply(["OK", Err(WRONGTYPE), 2, Err("ERR invalid expire time in 'set' command"),
                          Err("ERR syntax error")], "EXEC")
        self.assertReply(b"2", "GET", "b")

    def test_unknown_command_aborts(self):
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "SET", "c", "1")
        self.assertErr("ERR unknown command 'FOO', with args beginning with: ", "FOO")
        self.assertReply("QUEUED", "GET", "c")
        self.assertErr(EXECABORT, "EXEC")
        self.assertReply(None, "GET", "c")  # nothing ran, and the transaction is over

    def test_arity_error_aborts(self):
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "SET", "c", "1")
        self.assertErr("ERR wrong number of arguments for 'get' command", "GET")
        self.assertErr(EXECABORT, "EXEC")
        self.assertReply(None, "GET", "c")
        self.assertErr("ERR EXEC without MULTI", "EXEC")

    def test_discard_after_queue_error(self):
        self.assertReply("OK", "MULTI")
        self.assertErr("ERR wrong number of arguments for 'set' command", "SET", "x")
        self.assertReply("OK", "DISCARD")
        self.assertReply("PONG", "PING")

    def test_exec_with_arguments(self):
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "SET", "x", "2")
        self.assertErr("EXECABORT Transaction discarded because of: wrong number of arguments for "
                       "'exec' command", "EXEC", "a")
        self.assertErr("ERR EXEC without MULTI", "EXEC")
        self.assertReply(None, "GET", "x")

    def test_shutdown_refused_inside_multi(self):
        # SHUTDOWN is not allowed in a transaction: refused at once, and the server keeps running.
        self.assertReply("OK", "MULTI")
        self.assertErr("ERR Command not allowed inside a transaction", "SHUTDOWN", "NOSAVE")
        self.assertErr(EXECABORT, "EXEC")
        self.assertReply("PONG", "PING")

    def test_select_inside_multi(self):
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "SELECT", "3")
        self.assertReply("QUEUED", "SET", "x", "y")
        self.assertReply(["OK", "OK"], "EXEC")
        self.assertReply(b"y", "GET", "x")  # still on db 3 after EXEC
        self.assertReply("OK", "SELECT", "0")
        self.assertReply(None, "GET", "x")

    def test_pipelined_transaction(self):
        c = self.raw
        replies = c.pipeline([["MULTI"], ["INCR", "n"], ["INCR", "n"], ["EXEC"], ["GET", "n"]])
        self.assertEqual(replies, ["OK", "QUEUED", "QUEUED", [1, 2], b"2"])

    def test_redis_py_pipeline(self):
        p = self.r.pipeline(transaction=True)
        p.set("a", "1").incr("a").get("a")
        self.assertEqual(p.execute(), [True, 2, b"2"])


class WatchTest(ServerTestCase):
    def test_watch_of_already_expired_key_is_not_dirtied_by_its_deletion(self):
        self.assertReply("OK", "SET", "wk", "v", "PX", "1")
        # Let the TTL pass without touching the key (a read would delete it before WATCH).
        # Active expiry may still delete it first; then the test checks the plain case.
        time.sleep(0.02)
        self.assertReply("OK", "WATCH", "wk")
        self.assertReply(None, "GET", "wk")  # lazily deletes the expired key
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "PING")
        self.assertReply(["PONG"], "EXEC")

    def test_watch_abort_on_other_client_write(self):
        a, b = self.raw_client(), self.raw_client()
        self.assertEqual(a.call("SET", "k", "1"), "OK")
        self.assertEqual(a.call("WATCH", "k"), "OK")
        self.assertEqual(b.call("SET", "k", "2"), "OK")
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("SET", "k", "3"), "QUEUED")
        self.assertEqual(a.call("EXEC"), None)  # nil: aborted
        self.assertEqual(a.call("GET", "k"), b"2")
        # After EXEC the watch is gone: a new transaction goes through.
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("SET", "k", "4"), "QUEUED")
        self.assertEqual(a.call("EXEC"), ["OK"])

    def test_exec_nil_on_the_wire(self):
        a, b = self.raw_client(), self.raw_client()
        self.assertEqual(a.call("WATCH", "k"), "OK")
        self.assertEqual(b.call("SET", "k", "2"), "OK")
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("PING"), "QUEUED")
        self.assertRawReply(b"*-1\r\n", "EXEC", client=a)  # RESP2: a null array

    def test_watch_missing_key_then_created(self):
        a, b = self.raw_client(), self.raw_client()
        self.assertEqual(a.call("WATCH", "nokey"), "OK")
        self.assertEqual(b.call("SET", "nokey", "x"), "OK")
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("GET", "nokey"), "QUEUED")
        self.assertEqual(a.call("EXEC"), None)

    def test_watch_deleted_and_expired_by_command(self):
        a, b = self.raw_client(), self.raw_client()
        self.assertEqual(a.call("MSET", "d", "1", "e", "1"), "OK")
        self.assertEqual(a.call("WATCH", "d"), "OK")
        self.assertEqual(b.call("DEL", "d"), 1)
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("PING"), "QUEUED")
        self.assertEqual(a.call("EXEC"), None)
        self.assertEqual(a.call("WATCH", "e"), "OK")
        self.assertEqual(b.call("EXPIRE", "e", "100"), 1)
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("PING"), "QUEUED")
        self.assertEqual(a.call("EXEC"), None)

    def test_watch_unrelated_key_does_not_abort(self):
        a, b = self.raw_client(), self.raw_client()
        self.assertEqual(a.call("WATCH", "k"), "OK")
        self.assertEqual(b.call("SET", "other", "2"), "OK")
        self.assertEqual(b.call("GET", "k"), None)  # reads do not touch the watch
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("SET", "k", "3"), "QUEUED")
        self.assertEqual(a.call("EXEC"), ["OK"])

    def test_watch_same_name_other_db(self):
        a, b = self.raw_client(), self.raw_client()
        self.assertEqual(a.call("WATCH", "k"), "OK")
        self.assertEqual(b.call("SELECT", "1"), "OK")
        self.assertEqual(b.call("SET", "k", "x"), "OK")
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("SET", "k", "3"), "QUEUED")
        self.assertEqual(a.call("EXEC"), ["OK"])

    def test_own_write_before_multi_aborts(self):
        a = self.raw_client()
        self.assertEqual(a.call("WATCH", "k"), "OK")
        self.assertEqual(a.call("SET", "k", "mine"), "OK")
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("GET", "k"), "QUEUED")
        self.assertEqual(a.call("EXEC"), None)

    def test_unwatch(self):
        a, b = self.raw_client(), self.raw_client()
        self.assertEqual(a.call("WATCH", "k"), "OK")
        self.assertEqual(a.call("UNWATCH"), "OK")
        self.assertEqual(b.call("SET", "k", "2"), "OK")
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("SET", "k", "3"), "QUEUED")
        self.assertEqual(a.call("EXEC"), ["OK"])
        self.assertEqual(a.call("UNWATCH"), "OK")  # harmless without WATCH

    def test_discard_unwatches(self):
        a, b = self.raw_client(), self.raw_client()
        self.assertEqual(a.call("WATCH", "k"), "OK")
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("DISCARD"), "OK")
        self.assertEqual(b.call("SET", "k", "2"), "OK")
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("SET", "k", "3"), "QUEUED")
        self.assertEqual(a.call("EXEC"), ["OK"])

    def test_watch_inside_multi(self):
        self.assertReply("OK", "MULTI")
        self.assertErr("ERR WATCH inside MULTI is not allowed", "WATCH", "a")
        self.assertReply("QUEUED", "SET", "x", "1")
        self.assertReply(["OK"], "EXEC")  # the refused WATCH does not abort the transaction
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "UNWATCH")  # UNWATCH is queued
        self.assertReply(["OK"], "EXEC")

    def test_watch_arity(self):
        self.assertErr("ERR wrong number of arguments for 'watch' command", "WATCH")

    def test_multiple_watched_keys(self):
        a, b = self.raw_client(), self.raw_client()
        self.assertEqual(a.call("WATCH", "k1", "k2", "k3"), "OK")
        self.assertEqual(b.call("SET", "k3", "x"), "OK")
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("PING"), "QUEUED")
        self.assertEqual(a.call("EXEC"), None)

    def test_redis_py_watch_error(self):
        import redis
        self.r.set("w", "1")
        other = self.redis_client()
        with self.r.pipeline() as p:
            p.watch("w")
            other.set("w", "2")
            p.multi()
            p.set("w", "3")
            with self.assertRaises(redis.WatchError):
                p.execute()
        self.assertEqual(self.r.get("w"), b"2")


if __name__ == "__main__":
    unittest.main()
