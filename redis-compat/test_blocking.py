"""Blocking commands: BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP BZPOPMIN BZPOPMAX BZMPOP (and the
non-blocking LMPOP ZMPOP beside them), CLIENT UNBLOCK, INFO blocked_clients, CLIENT LIST flag b.

A waiter and the client that serves it are separate connections. The harness runs ordis with two
I/O threads and deals consecutive connections to different threads, so waiters sit on both
threads and are served by pushes from the other one. A test never sleeps to pass: it waits for a
client to be blocked by polling INFO blocked_clients (wait_blocked) and reads replies with socket
timeouts. The only fixed waits are short windows in which nothing may arrive (assertNothing) and
two that place one request against another in a race (each outcome of the race is checked).

Covered: the exact reply bytes of every blocking command served at once, served after blocking and
timed out, in RESP2 and RESP3, inside MULTI and in scripts; first-blocked first-served across
threads; sub-second timeouts; pipelines behind a blocked command; CLIENT UNBLOCK, CLIENT KILL,
disconnects and the idle `timeout`, and their races with pushes; DEL/SET/FLUSHALL/SWAPDB/MOVE/COPY/
RENAME of waited keys; BLMOVE chains; MULTI and scripts serving waiters; keyspace events, WATCH and
ACL changes around served waiters; clients that block again after moving between ordis's I/O
threads; a Sidekiq-style worker loop with 8 producers; the append-only log across a restart (clean
and kill -9); SHUTDOWN and SIGTERM with blocked clients; redis-py's own methods. Every expectation
holds against redis-server 7.0.15 and ordis.
"""

import hashlib
import random
import select
import signal
import threading
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

import redis

from harness import (IS_ORDIS, SOCKET_TIMEOUT_S, Err, RawClient, Server, ServerTestCase, close_all,
                     encode_command, info, wait_until)

WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
UNBLOCKED = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
BLOCK_WAIT_S = 10.0  # how long a client may take to show up as blocked


def blocked_clients(client):
    return int(info(client, "clients")["blocked_clients"])


def noscript_err(body):
    sha = hashlib.sha1(body.encode()).hexdigest()
    return Err("ERR This Redis command is not allowed from script script: %s, on @user_script:1."
               % sha)


class BlockingTestCase(ServerTestCase):
    def wait_blocked(self, n, client=None):
        """Waits until exactly n clients are blocked."""
        c = client or self.raw
        got = wait_until(lambda: blocked_clients(c) == n, BLOCK_WAIT_S, 0.005)
        self.assertTrue(got, "blocked_clients is %d, expected %d" % (blocked_clients(c), n))

    def block(self, client, *args):
        """Sends a command that must block on client, and waits until it is blocked."""
        before = blocked_clients(self.raw)
        client.send_command(*args)
        self.wait_blocked(before + 1)

    def assertNothing(self, client, window=0.2):
        """Nothing arrives on client within window seconds (a negative check, not a wait)."""
        ready, _, _ = select.select([client.sock], [], [], window)
        if ready or client.pos < len(client.buf):
            data = bytes(client.buf[client.pos:])
            if ready:
                data += client.sock.recv(65536)
            self.fail("unexpected bytes %r" % data)

    def assertReplyBytes(self, client, expected):
        self.assertEqual(client.read_raw(len(expected)), expected)
        # No more bytes: the next reply is PING's.
        self.assertEqual(client.call("PING"), "PONG")

    def client_id(self, client):
        cid = client.call("CLIENT", "ID")
        self.assertIsInstance(cid, int)
        return cid


# -------------------------------------------------------------------------------------------------
# Reply bytes
# -------------------------------------------------------------------------------------------------

# (blocking command, the push that serves it, RESP2 reply, RESP3 reply)
SERVED = [
    (("BLPOP", "a", "b", "0"), ("RPUSH", "b", "x", "y"),
     b"*2\r\n$1\r\nb\r\n$1\r\nx\r\n", None),
    (("BRPOP", "a", "b", "0"), ("RPUSH", "b", "x", "y"),
     b"*2\r\n$1\r\nb\r\n$1\r\ny\r\n", None),
    (("BLMOVE", "a", "d", "LEFT", "RIGHT", "0"), ("RPUSH", "a", "x", "y"),
     b"$1\r\nx\r\n", None),
    (("BRPOPLPUSH", "a", "d", "0"), ("RPUSH", "a", "x", "y"),
     b"$1\r\ny\r\n", None),
    (("BLMPOP", "0", "2", "a", "b", "RIGHT", "COUNT", "2"), ("RPUSH", "b", "x", "y", "z"),
     b"*2\r\n$1\r\nb\r\n*2\r\n$1\r\nz\r\n$1\r\ny\r\n", None),
    (("BLMPOP", "0", "1", "a", "LEFT"), ("RPUSH", "a", "x", "y", "z"),
     b"*2\r\n$1\r\na\r\n*1\r\n$1\r\nx\r\n", None),
    (("BZPOPMIN", "y", "z", "0"), ("ZADD", "z", "2.5", "m", "3", "n"),
     b"*3\r\n$1\r\nz\r\n$1\r\nm\r\n$3\r\n2.5\r\n", b"*3\r\n$1\r\nz\r\n$1\r\nm\r\n,2.5\r\n"),
    (("BZPOPMAX", "z", "0"), ("ZADD", "z", "2.5", "m", "3", "n"),
     b"*3\r\n$1\r\nz\r\n$1\r\nn\r\n$1\r\n3\r\n", b"*3\r\n$1\r\nz\r\n$1\r\nn\r\n,3\r\n"),
    (("BZMPOP", "0", "1", "z", "MIN", "COUNT", "5"), ("ZADD", "z", "1", "a", "2", "b"),
     b"*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n",
     b"*2\r\n$1\r\nz\r\n*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2\r\n"),
    (("BZMPOP", "0", "2", "y", "z", "MAX"), ("ZADD", "z", "1", "a", "-inf", "b", "inf", "c"),
     b"*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nc\r\n$3\r\ninf\r\n",
     b"*2\r\n$1\r\nz\r\n*1\r\n*2\r\n$1\r\nc\r\n,inf\r\n"),
]

# Each blocking command with a short timeout, on keys that stay empty.
TIMING_OUT = [
    ("BLPOP", "a", "b", "0.01"),
    ("BRPOP", "a", "0.01"),
    ("BLMOVE", "a", "d", "LEFT", "LEFT", "0.01"),
    ("BRPOPLPUSH", "a", "d", "0.01"),
    ("BLMPOP", "0.01", "2", "a", "b", "LEFT"),
    ("BZPOPMIN", "a", "0.01"),
    ("BZPOPMAX", "a", "b", "0.01"),
    ("BZMPOP", "0.01", "1", "a", "MAX", "COUNT", "3"),
]


class ReplyBytesTest(BlockingTestCase):
    def test_served_after_blocking(self):
        for proto in (2, 3):
            for command, push, resp2, resp3 in SERVED:
                expected = resp3 if proto == 3 and resp3 is not None else resp2
                with self.subTest(proto=proto, command=command):
                    self.raw.call("FLUSHALL")
                    waiter = self.resp3_client() if proto == 3 else self.raw_client()
                    self.block(waiter, *command)
                    self.assertNothing(waiter, 0.05)
                    self.assertIsInstance(self.raw.call(*push), int)
                    self.assertReplyBytes(waiter, expected)
                    self.assertEqual(blocked_clients(self.raw), 0)
                    waiter.close()

    def test_served_at_once(self):
        for proto in (2, 3):
            c = self.resp3_client() if proto == 3 else self.raw_client()
            for command, push, resp2, resp3 in SERVED:
                expected = resp3 if proto == 3 and resp3 is not None else resp2
                with self.subTest(proto=proto, command=command):
                    self.raw.call("FLUSHALL")
                    self.assertIsInstance(self.raw.call(*push), int)
                    c.send_command(*command)
                    self.assertReplyBytes(c, expected)

    def test_what_served_waiters_leave(self):
        # What each SERVED row leaves behind, read back after the waiter was served.
        after = {
            "BLPOP": [("LRANGE", "b", "0", "-1", [b"y"])],
            "BRPOP": [("LRANGE", "b", "0", "-1", [b"x"])],
            "BLMOVE": [("LRANGE", "a", "0", "-1", [b"y"]), ("LRANGE", "d", "0", "-1", [b"x"])],
            "BRPOPLPUSH": [("LRANGE", "a", "0", "-1", [b"x"]), ("LRANGE", "d", "0", "-1", [b"y"])],
            "BZPOPMIN": [("ZRANGE", "z", "0", "-1", "WITHSCORES", [b"n", b"3"])],
            "BZPOPMAX": [("ZRANGE", "z", "0", "-1", "WITHSCORES", [b"m", b"2.5"])],
        }
        for command, push, _, _ in SERVED:
            if command[0] not in after:
                continue
            with self.subTest(command=command):
                self.raw.call("FLUSHALL")
                waiter = self.raw_client()
                self.block(waiter, *command)
                self.raw.call(*push)
                waiter.read_reply()
                for *read, want in after[command[0]]:
                    self.assertEqual(self.raw.call(*read), want, read)
                waiter.close()

    def test_timeout_replies(self):
        for proto, expected in ((2, b"*-1\r\n"), (3, b"_\r\n")):
            c = self.resp3_client() if proto == 3 else self.raw_client()
            for command in TIMING_OUT:
                with self.subTest(proto=proto, command=command):
                    c.send_command(*command)
                    self.assertReplyBytes(c, expected)
        self.assertEqual(blocked_clients(self.raw), 0)
        self.assertEqual(self.raw.call("DBSIZE"), 0)

    def test_inside_multi_they_answer_as_their_timeout(self):
        commands = [
            ("BLPOP", "k", "0"), ("BRPOP", "k", "0"), ("BLMOVE", "k", "d", "LEFT", "LEFT", "0"),
            ("BRPOPLPUSH", "k", "d", "0"), ("BLMPOP", "0", "1", "k", "LEFT"),
            ("BZPOPMIN", "k", "0"), ("BZPOPMAX", "k", "0"), ("BZMPOP", "0", "1", "k", "MIN"),
        ]
        for proto, expected in (
                (2, b"*8\r\n*-1\r\n*-1\r\n$-1\r\n$-1\r\n*-1\r\n*-1\r\n*-1\r\n*-1\r\n"),
                (3, b"*8\r\n" + b"_\r\n" * 8)):
            with self.subTest(proto=proto):
                c = self.resp3_client() if proto == 3 else self.raw_client()
                self.assertEqual(c.call("MULTI"), "OK")
                for command in commands:
                    self.assertEqual(c.call(*command), "QUEUED")
                c.send_command("EXEC")
                self.assertReplyBytes(c, expected)
        # With something to pop, they pop inside the transaction as outside.
        self.raw.call("RPUSH", "k", "a", "b", "c")
        self.raw.call("ZADD", "z", "1", "m")
        self.assertEqual(self.raw.pipeline([("MULTI",), ("BLPOP", "k", "0"),
                                            ("BLMOVE", "k", "d", "LEFT", "RIGHT", "0"),
                                            ("BZPOPMIN", "z", "0"), ("BZPOPMIN", "z", "0"),
                                            ("EXEC",)])[-1],
                         [[b"k", b"a"], b"b", [b"z", b"m", b"1"], None])
        self.assertEqual(blocked_clients(self.raw), 0)

    def test_in_scripts(self):
        # Redis 7.0 marks BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BZPOPMIN and BZPOPMAX noscript; BLMPOP
        # and BZMPOP may run in a script, where they answer as their timeout would.
        for command in ("blpop", "brpop", "bzpopmin", "bzpopmax"):
            body = "return redis.call('%s', KEYS[1], 0)" % command
            self.assertEqual(self.raw.call("EVAL", body, "1", "k"), noscript_err(body))
        for body in ("return redis.call('blmove', KEYS[1], 'd', 'left', 'left', 0)",
                     "return redis.call('brpoplpush', KEYS[1], 'd', 0)"):
            self.assertEqual(self.raw.call("EVAL", body, "1", "k"), noscript_err(body))
        self.assertEqual(self.raw.call("EVAL", "return redis.pcall('blpop', KEYS[1], 0)", "1", "k"),
                         Err("ERR This Redis command is not allowed from script"))
        blmpop = "return redis.call('blmpop', 0, 1, KEYS[1], 'left', 'count', 2)"
        bzmpop = "return redis.call('bzmpop', 0, 1, KEYS[1], 'max')"
        for proto, nil in ((2, b"$-1\r\n"), (3, b"_\r\n")):
            c = self.resp3_client() if proto == 3 else self.raw_client()
            for body in (blmpop, bzmpop):
                with self.subTest(proto=proto, body=body):
                    c.send_command("EVAL", body, "1", "k")
                    self.assertReplyBytes(c, nil)
        self.assertEqual(blocked_clients(self.raw), 0)
        self.raw.call("RPUSH", "k", "a", "b", "c")
        self.assertEqual(self.raw.call("EVAL", blmpop, "1", "k"), [b"k", [b"a", b"b"]])
        self.raw.call("ZADD", "z", "1", "m", "2", "n")
        self.assertEqual(self.raw.call("EVAL", bzmpop, "1", "z"), [b"z", [[b"n", b"2"]]])

    def test_lmpop_zmpop(self):
        self.assertEqual(self.raw.call("LMPOP", "2", "a", "b", "LEFT"), None)
        self.assertEqual(self.raw.call("ZMPOP", "1", "z", "MIN"), None)
        self.raw.call("RPUSH", "b", "1", "2", "3")
        self.raw.call("ZADD", "z", "1", "a", "2", "b", "3", "c")
        self.assertEqual(self.raw.call("LMPOP", "2", "a", "b", "RIGHT", "COUNT", "2"),
                         [b"b", [b"3", b"2"]])
        self.assertEqual(self.raw.call("ZMPOP", "1", "z", "MAX", "COUNT", "10"),
                         [b"z", [[b"c", b"3"], [b"b", b"2"], [b"a", b"1"]]])
        self.assertEqual(self.raw.call("EXISTS", "z"), 0)
        c = self.resp3_client()
        c.send_command("ZMPOP", "1", "z", "MIN")
        self.assertReplyBytes(c, b"_\r\n")

    def test_argument_errors(self):
        self.assertEqual(self.raw.call("BLPOP", "k", "-1"), Err("ERR timeout is negative"))
        self.assertEqual(self.raw.call("BLPOP", "k", "abc"),
                         Err("ERR timeout is not a float or out of range"))
        self.assertEqual(self.raw.call("BLMPOP", "0", "0", "k", "LEFT"),
                         Err("ERR numkeys should be greater than 0"))
        self.assertEqual(self.raw.call("BZMPOP", "0", "1", "k", "MIN", "COUNT", "0"),
                         Err("ERR count should be greater than 0"))
        self.assertEqual(self.raw.call("BLMOVE", "a", "b", "UP", "LEFT", "0"),
                         Err("ERR syntax error"))
        self.raw.call("SET", "s", "x")
        self.assertEqual(self.raw.call("BLPOP", "s", "0"), Err(WRONGTYPE))
        self.assertEqual(self.raw.call("BZPOPMIN", "s", "0"), Err(WRONGTYPE))
        self.assertEqual(blocked_clients(self.raw), 0)

    def test_client_list_and_info(self):
        waiter = self.raw_client()
        wid = self.client_id(waiter)
        self.block(waiter, "BLPOP", "k", "0")
        lines = self.raw.call("CLIENT", "LIST", "ID", str(wid)).decode().split()
        fields = dict(f.split("=", 1) for f in lines)
        self.assertEqual((fields["flags"], fields["cmd"]), ("b", "blpop"))
        self.assertEqual(info(self.raw, "clients")["blocked_clients"], "1")
        self.raw.call("RPUSH", "k", "v")
        self.assertEqual(waiter.read_reply(), [b"k", b"v"])
        self.wait_blocked(0)
        lines = self.raw.call("CLIENT", "LIST", "ID", str(wid)).decode().split()
        self.assertEqual(dict(f.split("=", 1) for f in lines)["flags"], "N")


# -------------------------------------------------------------------------------------------------
# Who is served
# -------------------------------------------------------------------------------------------------


class ServingTest(BlockingTestCase):
    def test_fifo_across_threads(self):
        # 6 waiters, dealt alternately to the two I/O threads, one push of 6 elements from a
        # seventh connection: the i-th waiter to block gets the i-th element to pop.
        elements = ["e%d" % i for i in range(6)]
        for command, push, order in (("BRPOP", "LPUSH", elements),
                                     ("BLPOP", "LPUSH", elements[::-1]),
                                     ("BLPOP", "RPUSH", elements)):
            with self.subTest(command=command, push=push):
                waiters = [self.raw_client() for _ in range(6)]
                for w in waiters:
                    self.block(w, command, "q", "0")
                pusher = self.raw_client()
                self.assertEqual(pusher.call(push, "q", *elements), 6)
                for w, element in zip(waiters, order):
                    self.assertEqual(w.read_reply(), [b"q", element.encode()])
                self.wait_blocked(0)
                self.assertEqual(self.raw.call("EXISTS", "q"), 0)
                close_all(waiters)

    def test_fifo_with_fewer_elements_than_waiters(self):
        waiters = [self.raw_client() for _ in range(5)]
        for w in waiters:
            self.block(w, "BLPOP", "q", "0")
        for round_, take in enumerate((2, 1, 2)):
            first = sum((2, 1, 2)[:round_])
            self.assertEqual(self.raw.call("RPUSH", "q", *["r%d-%d" % (round_, i)
                                                           for i in range(take)]), take)
            for i in range(take):
                self.assertEqual(waiters[first + i].read_reply(),
                                 [b"q", b"r%d-%d" % (round_, i)])
            self.wait_blocked(5 - first - take)
            for w in waiters[first + take:]:
                self.assertNothing(w, 0.02)

    def test_many_keys_and_waiters(self):
        w0, w1, w2 = (self.raw_client() for _ in range(3))
        self.block(w0, "BLPOP", "a", "b", "0")
        self.block(w1, "BLPOP", "b", "0")
        self.block(w2, "BRPOP", "c", "a", "0")
        self.assertEqual(self.raw.call("RPUSH", "b", "1", "2", "3"), 3)
        self.assertEqual(w0.read_reply(), [b"b", b"1"])
        self.assertEqual(w1.read_reply(), [b"b", b"2"])
        self.assertEqual(self.raw.call("LRANGE", "b", "0", "-1"), [b"3"])
        self.assertNothing(w2, 0.05)
        self.assertEqual(self.raw.call("RPUSH", "a", "x", "y"), 2)
        self.assertEqual(w2.read_reply(), [b"a", b"y"])
        self.assertEqual(self.raw.call("LRANGE", "a", "0", "-1"), [b"x"])

    def test_pushes_in_multi_and_scripts_serve_after_they_end(self):
        w0, w1 = self.raw_client(), self.raw_client()
        self.block(w0, "BLPOP", "k", "0")
        self.block(w1, "BLPOP", "k", "0")
        self.assertEqual(self.raw.pipeline([("MULTI",), ("RPUSH", "k", "a"), ("RPUSH", "k", "b"),
                                            ("LLEN", "k"), ("EXEC",)])[-1], [1, 2, 2])
        self.assertEqual(w0.read_reply(), [b"k", b"a"])
        self.assertEqual(w1.read_reply(), [b"k", b"b"])
        # A key pushed and deleted in one transaction serves nobody.
        self.block(w0, "BLPOP", "k", "0")
        self.assertEqual(self.raw.pipeline([("MULTI",), ("RPUSH", "k", "a"), ("DEL", "k"),
                                            ("EXEC",)])[-1], [1, 1])
        self.assertNothing(w0, 0.1)
        self.assertEqual(blocked_clients(self.raw), 1)
        # A script's pushes serve once it returns; it sees the list whole.
        self.block(w1, "BZPOPMIN", "z", "0")
        body = ("redis.call('rpush', KEYS[1], 'x', 'y'); redis.call('zadd', KEYS[2], 1, 'm'); "
                "return redis.call('llen', KEYS[1])")
        self.assertEqual(self.raw.call("EVAL", body, "2", "k", "z"), 2)
        self.assertEqual(w0.read_reply(), [b"k", b"x"])
        self.assertEqual(w1.read_reply(), [b"z", b"m", b"1"])
        self.assertEqual(self.raw.call("LRANGE", "k", "0", "-1"), [b"y"])

    def test_bzpopmin_served_by_zadd(self):
        waiters = [self.raw_client() for _ in range(4)]
        for w in waiters[:2]:
            self.block(w, "BZPOPMIN", "z", "0")
        for w in waiters[2:]:
            self.block(w, "BZPOPMAX", "z", "0")
        self.assertEqual(self.raw.call("ZADD", "z", "5", "e", "1", "a", "3", "c", "4", "d",
                                       "2", "b"), 5)
        self.assertEqual([w.read_reply() for w in waiters],
                         [[b"z", b"a", b"1"], [b"z", b"b", b"2"], [b"z", b"e", b"5"],
                          [b"z", b"d", b"4"]])
        self.assertEqual(self.raw.call("ZRANGE", "z", "0", "-1"), [b"c"])
        # ZINCRBY making a member, and ZUNIONSTORE/ZRANGESTORE storing a set, serve too.
        self.raw.call("DEL", "z")
        self.block(waiters[0], "BZPOPMIN", "z", "0")
        self.assertEqual(self.raw.call("ZINCRBY", "z", "7", "m"), b"7")
        self.assertEqual(waiters[0].read_reply(), [b"z", b"m", b"7"])
        self.raw.call("ZADD", "src", "1", "a", "2", "b")
        self.block(waiters[1], "BZPOPMAX", "u", "0")
        self.assertEqual(self.raw.call("ZUNIONSTORE", "u", "1", "src"), 2)
        self.assertEqual(waiters[1].read_reply(), [b"u", b"b", b"2"])
        self.block(waiters[2], "BZMPOP", "0", "1", "r", "MIN", "COUNT", "5")
        self.assertEqual(self.raw.call("ZRANGESTORE", "r", "src", "0", "-1"), 2)
        self.assertEqual(waiters[2].read_reply(), [b"r", [[b"a", b"1"], [b"b", b"2"]]])

    def test_blmpop_bzmpop_with_count(self):
        w0, w1, w2 = (self.raw_client() for _ in range(3))
        self.block(w0, "BLMPOP", "0", "2", "a", "b", "LEFT", "COUNT", "3")
        self.block(w1, "BLMPOP", "0", "1", "b", "RIGHT", "COUNT", "10")
        self.block(w2, "BLMPOP", "0", "1", "b", "LEFT")
        self.assertEqual(self.raw.call("RPUSH", "b", "1", "2", "3", "4", "5"), 5)
        self.assertEqual(w0.read_reply(), [b"b", [b"1", b"2", b"3"]])
        self.assertEqual(w1.read_reply(), [b"b", [b"5", b"4"]])
        self.assertNothing(w2, 0.05)  # the list is gone; it waits on
        self.assertEqual(self.raw.call("EXISTS", "b"), 0)
        self.assertEqual(self.raw.call("LPUSH", "b", "6"), 1)
        self.assertEqual(w2.read_reply(), [b"b", [b"6"]])
        self.block(w0, "BZMPOP", "0", "2", "y", "z", "MAX", "COUNT", "2")
        self.block(w1, "BZMPOP", "0", "1", "z", "MIN", "COUNT", "2")
        self.assertEqual(self.raw.call("ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d",
                                       "5", "e"), 5)
        self.assertEqual(w0.read_reply(), [b"z", [[b"e", b"5"], [b"d", b"4"]]])
        self.assertEqual(w1.read_reply(), [b"z", [[b"a", b"1"], [b"b", b"2"]]])
        self.assertEqual(self.raw.call("ZRANGE", "z", "0", "-1"), [b"c"])

    def test_blmove_chain(self):
        # A BLMOVE waiter on c1 pushes onto c2, where a BLMOVE waiter pushes onto c3, where a BLPOP
        # waits: one push serves all three, in one go.
        w1, w2, w3 = (self.raw_client() for _ in range(3))
        self.block(w1, "BLMOVE", "c1", "c2", "LEFT", "RIGHT", "0")
        self.block(w2, "BRPOPLPUSH", "c2", "c3", "0")
        self.block(w3, "BLPOP", "c3", "0")
        self.assertEqual(self.raw.call("RPUSH", "c1", "v", "w"), 2)
        self.assertEqual(w1.read_reply(), b"v")
        self.assertEqual(w2.read_reply(), b"v")
        self.assertEqual(w3.read_reply(), [b"c3", b"v"])
        self.wait_blocked(0)
        self.assertEqual(self.raw.call("LRANGE", "c1", "0", "-1"), [b"w"])
        self.assertEqual(self.raw.call("EXISTS", "c2", "c3"), 0)

    def test_blmove_cycle_and_a_blpop_ahead(self):
        # Two BLMOVEs waiting on each other's source: one push goes round once.
        w1, w2 = self.raw_client(), self.raw_client()
        self.block(w1, "BLMOVE", "a", "b", "LEFT", "RIGHT", "0")
        self.block(w2, "BLMOVE", "b", "a", "LEFT", "RIGHT", "0")
        self.assertEqual(self.raw.call("RPUSH", "a", "x"), 1)
        self.assertEqual((w1.read_reply(), w2.read_reply()), (b"x", b"x"))
        self.assertEqual(self.raw.call("LRANGE", "a", "0", "-1"), [b"x"])
        self.assertEqual(self.raw.call("EXISTS", "b"), 0)
        # A BLPOP that blocked first takes the first element; the BLMOVE behind it the next.
        self.raw.call("DEL", "a")
        self.block(w1, "BLPOP", "a", "0")
        self.block(w2, "BLMOVE", "a", "b", "LEFT", "RIGHT", "0")
        self.assertEqual(self.raw.call("RPUSH", "a", "x", "y"), 2)
        self.assertEqual((w1.read_reply(), w2.read_reply()), ([b"a", b"x"], b"y"))
        self.assertEqual(self.raw.call("LRANGE", "b", "0", "-1"), [b"y"])

    def test_commands_that_make_a_key_serve_and_those_that_do_not(self):
        w = self.raw_client()
        self.raw.call("RPUSH", "src", "s1", "s2", "s3")
        self.raw.call("ZADD", "z1", "1", "a", "2", "b")
        self.raw.call("ZADD", "z2", "2", "a")
        for block, make, want in (
                (("BLPOP", "l1", "0"), ("RPOPLPUSH", "src", "l1"), [b"l1", b"s3"]),
                (("BLPOP", "l2", "0"), ("LMOVE", "src", "l2", "LEFT", "LEFT"), [b"l2", b"s1"]),
                (("BZPOPMIN", "zi", "0"), ("ZINTERSTORE", "zi", "2", "z1", "z2"),
                 [b"zi", b"a", b"3"]),
                (("BZPOPMAX", "zd", "0"), ("ZDIFFSTORE", "zd", "2", "z1", "z2"),
                 [b"zd", b"b", b"2"]),
                (("BZPOPMIN", "zx", "0"), ("ZADD", "zx", "INCR", "5", "m"), [b"zx", b"m", b"5"])):
            with self.subTest(make=make):
                self.block(w, *block)
                self.assertNotIsInstance(self.raw.call(*make), type(Err("")))
                self.assertEqual(w.read_reply(), want)
        # Writes that make no key leave the waiter blocked.
        self.block(w, "BZPOPMIN", "none", "0")
        self.assertEqual(self.raw.call("ZADD", "none", "XX", "1", "m"), 0)
        self.assertEqual(self.raw.call("ZUNIONSTORE", "none", "1", "nosuch"), 0)
        self.assertEqual(self.raw.call("LPUSHX", "none", "v"), 0)
        self.assertNothing(w, 0.1)
        self.assertEqual(blocked_clients(self.raw), 1)

    def test_blmove_to_itself_rotates(self):
        w = self.raw_client()
        self.block(w, "BLMOVE", "r", "r", "LEFT", "RIGHT", "0")
        self.assertEqual(self.raw.call("RPUSH", "r", "a", "b"), 2)
        self.assertEqual(w.read_reply(), b"a")
        self.assertEqual(self.raw.call("LRANGE", "r", "0", "-1"), [b"b", b"a"])

    def test_blmove_onto_a_wrong_type_destination(self):
        # The waiter gets WRONGTYPE when served; the source keeps its elements.
        self.raw.call("SET", "d", "string")
        w = self.raw_client()
        self.block(w, "BLMOVE", "s", "d", "LEFT", "RIGHT", "0")
        self.assertEqual(self.raw.call("RPUSH", "s", "x", "y"), 2)
        self.assertEqual(w.read_reply(), Err(WRONGTYPE))
        self.wait_blocked(0)
        self.assertEqual(self.raw.call("LRANGE", "s", "0", "-1"), [b"x", b"y"])
        self.assertEqual(self.raw.call("GET", "d"), b"string")

    def test_del_set_flushall_leave_the_waiter_blocked(self):
        w = self.raw_client()
        self.block(w, "BLPOP", "k", "0")
        self.assertEqual(self.raw.call("SET", "k", "string"), "OK")
        self.assertEqual(self.raw.call("LPUSH", "k", "x"), Err(WRONGTYPE))
        self.assertEqual(self.raw.call("DEL", "k"), 1)
        self.assertEqual(self.raw.call("FLUSHALL"), "OK")
        self.assertEqual(self.raw.call("FLUSHDB"), "OK")
        self.assertNothing(w, 0.1)
        self.assertEqual(blocked_clients(self.raw), 1)
        self.assertEqual(self.raw.call("LPUSH", "k", "x"), 1)
        self.assertEqual(w.read_reply(), [b"k", b"x"])
        # A list made on a key a BZPOPMIN waits on is the wrong type: it waits on.
        self.block(w, "BZPOPMIN", "z", "0")
        self.assertEqual(self.raw.call("RPUSH", "z", "x"), 1)
        self.assertNothing(w, 0.1)
        self.assertEqual(self.raw.call("DEL", "z"), 1)
        self.assertEqual(self.raw.call("ZADD", "z", "1", "m"), 1)
        self.assertEqual(w.read_reply(), [b"z", b"m", b"1"])

    def test_keys_appearing_by_swapdb_move_copy_rename(self):
        w = self.raw_client()
        other = self.raw_client()
        self.assertEqual(other.call("SELECT", "1"), "OK")
        # SWAPDB
        self.block(w, "BLPOP", "sk", "0")
        other.call("RPUSH", "sk", "swapped")
        self.assertNothing(w, 0.05)  # another database
        self.assertEqual(other.call("SWAPDB", "0", "1"), "OK")
        self.assertEqual(w.read_reply(), [b"sk", b"swapped"])
        # MOVE from database 1
        self.block(w, "BZPOPMAX", "mk", "0")
        other.call("ZADD", "mk", "1", "moved")
        self.assertEqual(other.call("MOVE", "mk", "0"), 1)
        self.assertEqual(w.read_reply(), [b"mk", b"moved", b"1"])
        # COPY (within a database, and into another)
        self.block(w, "BLPOP", "ck", "0")
        self.raw.call("RPUSH", "src", "copied")
        self.assertEqual(self.raw.call("COPY", "src", "ck"), 1)
        self.assertEqual(w.read_reply(), [b"ck", b"copied"])
        self.block(w, "BLPOP", "ck", "0")
        other.call("RPUSH", "src1", "copied-over")
        self.assertEqual(other.call("COPY", "src1", "ck", "DB", "0"), 1)
        self.assertEqual(w.read_reply(), [b"ck", b"copied-over"])
        # RENAME
        self.block(w, "BRPOP", "rk", "0")
        self.raw.call("RPUSH", "src2", "renamed")
        self.assertEqual(self.raw.call("RENAME", "src2", "rk"), "OK")
        self.assertEqual(w.read_reply(), [b"rk", b"renamed"])
        self.assertEqual(self.raw.call("EXISTS", "src2", "rk"), 0)

    def test_a_key_named_twice(self):
        w = self.raw_client()
        self.block(w, "BLPOP", "k", "k", "0")
        self.assertEqual(self.raw.call("RPUSH", "k", "a", "b"), 2)
        self.assertEqual(w.read_reply(), [b"k", b"a"])
        self.assertEqual(self.raw.call("LRANGE", "k", "0", "-1"), [b"b"])
        self.block(w, "BZMPOP", "0", "3", "z", "y", "z", "MIN", "COUNT", "2")
        self.assertEqual(self.raw.call("ZADD", "z", "1", "a"), 1)
        self.assertEqual(w.read_reply(), [b"z", [[b"a", b"1"]]])
        self.wait_blocked(0)

    def test_keyspace_events_of_served_pops(self):
        # The push's event, then the served pop's as its non-blocking command raises them.
        self.assertEqual(self.raw.call("CONFIG", "SET", "notify-keyspace-events", "KEA"), "OK")
        try:
            sub = self.raw_client()
            self.assertEqual(sub.call("PSUBSCRIBE", "__keyevent@0__:*"),
                             [b"psubscribe", b"__keyevent@0__:*", 1])
            w = self.raw_client()
            for block, push, events in (
                    (("BLPOP", "k", "0"), ("RPUSH", "k", "a"),
                     [(b"rpush", b"k"), (b"lpop", b"k"), (b"del", b"k")]),
                    (("BLMOVE", "s", "d", "LEFT", "RIGHT", "0"), ("RPUSH", "s", "a", "b"),
                     [(b"rpush", b"s"), (b"rpush", b"d"), (b"lpop", b"s")]),
                    (("BZPOPMIN", "z", "0"), ("ZADD", "z", "1", "a"),
                     [(b"zadd", b"z"), (b"zpopmin", b"z"), (b"del", b"z")]),
                    (("BLMPOP", "0", "1", "l", "RIGHT", "COUNT", "3"), ("RPUSH", "l", "1", "2"),
                     [(b"rpush", b"l"), (b"rpop", b"l"), (b"del", b"l")]),
                    (("BZMPOP", "0", "1", "y", "MAX", "COUNT", "3"),
                     ("ZADD", "y", "1", "a", "2", "b", "3", "c", "4", "d"),
                     [(b"zadd", b"y"), (b"zpopmax", b"y")])):
                with self.subTest(command=block):
                    self.block(w, *block)
                    self.raw.call(*push)
                    self.assertIsNotNone(w.read_reply())
                    got = []
                    for _ in events:
                        kind, _, channel, key = sub.read_reply()
                        self.assertEqual(kind, b"pmessage")
                        got.append((channel.split(b":", 1)[1], key))
                    self.assertEqual(got, events)
                    self.assertNothing(sub, 0.05)
        finally:
            self.raw.call("CONFIG", "SET", "notify-keyspace-events", "")

    def test_a_served_move_touches_watched_keys(self):
        # Only the served BLMOVE writes dst: a WATCH on dst sees it.
        watcher, w = self.raw_client(), self.raw_client()
        self.assertEqual(watcher.call("WATCH", "dst"), "OK")
        self.block(w, "BLMOVE", "src", "dst", "LEFT", "RIGHT", "0")
        self.assertEqual(self.raw.call("RPUSH", "src", "x"), 1)
        self.assertEqual(w.read_reply(), b"x")
        self.assertEqual(watcher.pipeline([("MULTI",), ("SET", "o", "1"), ("EXEC",)]),
                         ["OK", "QUEUED", None])
        self.assertEqual(self.raw.call("EXISTS", "o"), 0)

    def test_acl_change_while_blocked(self):
        # Redis 7.0 serves a waiter by what it was allowed when it blocked: revoking the command
        # or the key meanwhile does not stop it.
        self.assertEqual(self.raw.call("ACL", "SETUSER", "u", "on", "nopass", "+@all", "~*"), "OK")
        try:
            w = self.raw_client()
            self.assertEqual(w.call("AUTH", "u", "x"), "OK")
            self.block(w, "BLPOP", "acl", "0")
            self.assertEqual(self.raw.call("ACL", "SETUSER", "u", "-blpop", "resetkeys", "~other"),
                             "OK")
            self.assertEqual(self.raw.call("RPUSH", "acl", "v"), 1)
            self.assertEqual(w.read_reply(), [b"acl", b"v"])
            self.assertEqual(w.call("BLPOP", "acl", "0"),
                             Err("NOPERM this user has no permissions to run the 'blpop' command"))
        finally:
            self.raw.call("ACL", "DELUSER", "u")

    def test_waiters_in_other_databases(self):
        w0, w1 = self.raw_client(), self.raw_client()
        self.assertEqual(w1.call("SELECT", "1"), "OK")
        self.block(w0, "BLPOP", "k", "0")
        self.block(w1, "BLPOP", "k", "0")
        pusher = self.raw_client()
        self.assertEqual(pusher.call("SELECT", "1"), "OK")
        self.assertEqual(pusher.call("RPUSH", "k", "one"), 1)
        self.assertEqual(w1.read_reply(), [b"k", b"one"])
        self.assertNothing(w0, 0.05)
        self.assertEqual(self.raw.call("RPUSH", "k", "zero"), 1)
        self.assertEqual(w0.read_reply(), [b"k", b"zero"])


# -------------------------------------------------------------------------------------------------
# Timeouts, pipelines, ends of a wait
# -------------------------------------------------------------------------------------------------


class TimeoutTest(BlockingTestCase):
    def test_sub_second_timeouts(self):
        for command in (("BLPOP", "k", "0.2"), ("BRPOP", "a", "b", "0.2"),
                        ("BLMOVE", "k", "d", "RIGHT", "LEFT", "0.2"), ("BZPOPMIN", "z", "0.2"),
                        ("BLMPOP", "0.2", "1", "k", "LEFT"), ("BZMPOP", "0.2", "1", "z", "MAX")):
            with self.subTest(command=command):
                c = self.raw_client()
                start = time.monotonic()
                c.send_command(*command)
                self.assertEqual(c.read_reply(), None)
                elapsed = time.monotonic() - start
                self.assertGreaterEqual(elapsed, 0.195)
                self.assertLess(elapsed, 1.0)
        self.assertEqual(blocked_clients(self.raw), 0)

    def test_timeouts_up_to_the_end_of_time_wait(self):
        """Timeouts near the int64 millisecond limit block until served (nothing overflows)."""
        for command, push in ((("BLPOP", "k", "1e13"), ("RPUSH", "k", "a")),
                              (("BLPOP", "k", "9223372036854775.807"), ("RPUSH", "k", "b")),
                              (("XREAD", "BLOCK", "9000000000000000000", "STREAMS", "s", "$"),
                               ("XADD", "s", "1-1", "f", "v")),
                              (("XREAD", "BLOCK", "9223372036854775807", "STREAMS", "s", "$"),
                               ("XADD", "s", "2-1", "f", "v"))):
            with self.subTest(command=command):
                c = self.raw_client()
                self.block(c, *command)
                self.assertNothing(c, 0.05)
                self.raw.call(*push)
                self.assertIsNotNone(c.read_reply())
        self.assertEqual(blocked_clients(self.raw), 0)

    def test_concurrent_timeouts_on_both_threads(self):
        timeouts = [0.5, 0.1, 0.3, 0.2, 0.4, 0.15]
        clients = [self.raw_client() for _ in timeouts]
        start = time.monotonic()
        for c, t in zip(clients, timeouts):
            c.send_command("BLPOP", "k", repr(t))
        done = {}

        def read(i):
            self.assertEqual(clients[i].read_reply(), None)
            done[i] = time.monotonic() - start

        with ThreadPoolExecutor(len(clients)) as pool:
            for f in [pool.submit(read, i) for i in range(len(clients))]:
                f.result(timeout=SOCKET_TIMEOUT_S)
        for i, t in enumerate(timeouts):
            self.assertGreaterEqual(done[i], t - 0.005, i)
            self.assertLess(done[i], t + 0.8, i)
        self.assertEqual(blocked_clients(self.raw), 0)

    def test_timeout_racing_a_push_loses_nothing(self):
        # The push lands about when the waiter's deadline passes: either it is served, or the
        # element stays in the list; never both, never neither.
        w, pusher = self.raw_client(), self.raw_client()
        for i in range(150):
            timeout = "0.00%d" % (1 + i % 3)
            w.send_command("BLPOP", "k", timeout)
            if i % 2:
                time.sleep(0.001 * (i % 4))  # vary the race, not a wait for an outcome
            self.assertEqual(pusher.call("RPUSH", "k", "v%d" % i), 1)
            got = w.read_reply()
            left = pusher.call("LRANGE", "k", "0", "-1")
            if got is None:
                self.assertEqual(left, [b"v%d" % i], i)
                pusher.call("DEL", "k")
            else:
                self.assertEqual((got, left), ([b"k", b"v%d" % i], []), i)
        self.assertEqual(blocked_clients(self.raw), 0)

    def test_zero_waits_until_served(self):
        w = self.raw_client()
        self.block(w, "BRPOP", "k", "0")
        self.assertNothing(w, 0.3)
        self.raw.call("RPUSH", "k", "late")
        self.assertEqual(w.read_reply(), [b"k", b"late"])


class PipelineTest(BlockingTestCase):
    def test_commands_behind_a_blocked_command_wait(self):
        c = self.raw_client()
        c.send(encode_command("BLPOP", "k", "0") + encode_command("PING"))
        self.wait_blocked(1)
        self.assertNothing(c, 0.2)
        self.assertEqual(self.raw.call("RPUSH", "k", "v"), 1)
        self.assertEqual(c.read_reply(), [b"k", b"v"])
        self.assertEqual(c.read_reply(), "PONG")

    def test_the_rest_of_the_pipeline_runs_once_served(self):
        c = self.raw_client()
        c.send(b"".join(encode_command(*cmd) for cmd in (
            ("SET", "before", "1"), ("BLPOP", "k", "0"), ("SET", "after", "1"),
            ("INCR", "after"), ("BLPOP", "k2", "0.05"), ("BRPOP", "k", "0"), ("GET", "after"),
            ("PING",))))
        self.wait_blocked(1)
        self.assertEqual(c.read_reply(), "OK")
        self.assertNothing(c, 0.1)
        self.assertEqual(self.raw.call("GET", "after"), None)
        self.assertEqual(self.raw.call("RPUSH", "k", "a"), 1)
        self.assertEqual(c.read_reply(), [b"k", b"a"])
        self.assertEqual(c.read_reply(), "OK")
        self.assertEqual(c.read_reply(), 2)
        self.assertEqual(c.read_reply(), None)  # timed out inside the pipeline
        self.wait_blocked(1)  # BRPOP k
        self.assertNothing(c, 0.05)
        self.assertEqual(self.raw.call("RPUSH", "k", "b", "c"), 2)
        self.assertEqual(c.read_reply(), [b"k", b"c"])
        self.assertEqual(c.read_reply(), b"2")
        self.assertEqual(c.read_reply(), "PONG")
        self.assertEqual(self.raw.call("LRANGE", "k", "0", "-1"), [b"b"])

    def test_pipelined_pops_served_at_once_and_after_blocking(self):
        self.raw.call("RPUSH", "k", "a", "b")
        c = self.raw_client()
        c.send(encode_command("BLPOP", "k", "0") * 4 + encode_command("PING"))
        self.assertEqual(c.read_reply(), [b"k", b"a"])
        self.assertEqual(c.read_reply(), [b"k", b"b"])
        self.wait_blocked(1)
        self.assertNothing(c, 0.05)
        # One push of two elements serves the blocked BLPOP and the one behind it.
        self.assertEqual(self.raw.call("RPUSH", "k", "c", "d"), 2)
        self.assertEqual(c.read_reply(), [b"k", b"c"])
        self.assertEqual(c.read_reply(), [b"k", b"d"])
        self.assertEqual(c.read_reply(), "PONG")
        self.assertEqual(blocked_clients(self.raw), 0)

    def test_second_waiter_served_before_the_pipeline_of_the_first(self):
        # w1's pipelined BLPOP after its served one queues behind w2, which blocked first.
        w1, w2 = self.raw_client(), self.raw_client()
        self.block(w1, "BLPOP", "k", "0")
        self.block(w2, "BLPOP", "k", "0")
        w1.send(encode_command("BLPOP", "k", "0"))
        self.assertEqual(self.raw.call("RPUSH", "k", "1"), 1)
        self.assertEqual(w1.read_reply(), [b"k", b"1"])
        self.wait_blocked(2)
        self.assertEqual(self.raw.call("RPUSH", "k", "2", "3"), 2)
        self.assertEqual(w2.read_reply(), [b"k", b"2"])
        self.assertEqual(w1.read_reply(), [b"k", b"3"])


class EndOfWaitTest(BlockingTestCase):
    def test_client_unblock(self):
        w = self.raw_client()
        wid = self.client_id(w)
        admin = self.raw_client()
        self.assertEqual(admin.call("CLIENT", "UNBLOCK", str(wid)), 0)  # not blocked
        self.block(w, "BLPOP", "k", "0")
        self.assertEqual(admin.call("CLIENT", "UNBLOCK", str(wid), "ERROR"), 1)
        self.assertEqual(w.read_reply(), Err(UNBLOCKED))
        self.assertEqual(admin.call("CLIENT", "UNBLOCK", str(wid), "ERROR"), 0)
        self.block(w, "BLMOVE", "k", "d", "LEFT", "LEFT", "0")
        self.assertEqual(admin.call("CLIENT", "UNBLOCK", str(wid)), 1)
        self.assertReplyBytes(w, b"*-1\r\n")
        self.block(w, "BZMPOP", "0", "1", "z", "MIN")
        self.assertEqual(admin.call("CLIENT", "UNBLOCK", str(wid), "TIMEOUT"), 1)
        self.assertReplyBytes(w, b"*-1\r\n")
        self.assertEqual(w.call("HELLO", "3")[b"proto"], 3)
        self.block(w, "BRPOPLPUSH", "k", "d", "0")
        self.assertEqual(admin.call("CLIENT", "UNBLOCK", str(wid), "TIMEOUT"), 1)
        self.assertReplyBytes(w, b"_\r\n")
        self.block(w, "BZPOPMIN", "k", "0")
        self.assertEqual(admin.call("CLIENT", "UNBLOCK", str(wid), "ERROR"), 1)
        self.assertReplyBytes(w, b"-" + UNBLOCKED.encode() + b"\r\n")
        self.assertEqual(admin.call("CLIENT", "UNBLOCK", str(wid), "NOPE"),
                         Err("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"))
        self.assertEqual(admin.call("CLIENT", "UNBLOCK", "abc"),
                         Err("ERR value is not an integer or out of range"))
        self.assertEqual(blocked_clients(self.raw), 0)
        # Unblocked, the client is no longer a waiter: a push stays in the list.
        self.assertEqual(self.raw.call("RPUSH", "k", "x"), 1)
        self.assertEqual(w.call("LRANGE", "k", "0", "-1"), [b"x"])

    def test_client_unblock_then_pipeline_continues(self):
        w = self.raw_client()
        wid = self.client_id(w)
        w.send(encode_command("BLPOP", "k", "0") + encode_command("SET", "after", "1"))
        self.wait_blocked(1)
        self.assertEqual(self.raw.call("CLIENT", "UNBLOCK", str(wid)), 1)
        self.assertEqual(w.read_reply(), None)
        self.assertEqual(w.read_reply(), "OK")

    def test_client_unblock_racing_a_push_loses_nothing(self):
        # Whichever comes first, no element is lost or taken twice. (Whether CLIENT UNBLOCK's
        # answer agrees with what the waiter got is test_client_unblock_during_a_long_serve's.)
        w, pusher, admin = self.raw_client(), self.raw_client(), self.raw_client()
        wid = str(self.client_id(w))
        go = threading.Barrier(2, timeout=10)

        def unblock():
            go.wait()
            return admin.call("CLIENT", "UNBLOCK", wid)

        with ThreadPoolExecutor(1) as pool:
            for i in range(60):
                self.block(w, "BLPOP", "k", "0")
                f = pool.submit(unblock)
                go.wait()
                self.assertEqual(pusher.call("RPUSH", "k", "v"), 1)
                unblocked = f.result(timeout=10)
                got = w.read_reply()
                left = pusher.call("LLEN", "k")
                if got is None:
                    self.assertEqual((unblocked, left), (1, 1), i)
                    pusher.call("DEL", "k")
                else:
                    self.assertEqual((unblocked, got, left), (0, [b"k", b"v"], 0), i)
                self.wait_blocked(0)

    def test_client_unblock_during_a_long_serve(self):
        # CLIENT UNBLOCK answers 1 only when it ended the wait (the waiter gets its timeout's
        # reply); a waiter the push serves first gets the elements, and CLIENT UNBLOCK 0. The
        # serving run here pops 1M elements (RENAME makes them appear at once), so a CLIENT
        # UNBLOCK sent 5 ms after the RENAME lands while it runs. ordis answers 1 and serves the
        # waiter anyway: BlockedClients::Unblock returns true for a waiter in a serving run.
        n = 1_000_000
        for _ in range(0, n, 10_000):
            self.raw.call("RPUSH", "src", *["x"] * 10_000)
        served = b"*2\r\n$1\r\nk\r\n*%d\r\n" % n + b"$1\r\nx\r\n" * n
        w, pusher, admin = self.raw_client(), self.raw_client(), self.raw_client()
        wid = str(self.client_id(w))
        conclusive = 0
        for _ in range(5):
            self.assertEqual(self.raw.call("COPY", "src", "big"), 1)
            self.block(w, "BLMPOP", "0", "1", "k", "LEFT", "COUNT", str(n))
            pusher.send_command("RENAME", "big", "k")
            time.sleep(0.005)  # places the CLIENT UNBLOCK after the RENAME; not a wait for a result
            unblocked = admin.call("CLIENT", "UNBLOCK", wid)
            self.assertEqual(pusher.read_reply(), "OK")
            left = self.raw.call("LLEN", "k")
            self.raw.call("DEL", "k")
            if unblocked == 1 and left == n:
                self.assertEqual(w.read_reply(), None)
                continue  # CLIENT UNBLOCK came before the RENAME ran: try again
            conclusive += 1
            self.assertEqual((unblocked, left), (0, 0), "CLIENT UNBLOCK answered 1, yet the "
                             "waiter was served")
            self.assertEqual(w.read_raw(len(served)), served)
        self.assertGreater(conclusive, 0, "CLIENT UNBLOCK always ran before the RENAME")

    def test_client_kill(self):
        w1, w2 = self.raw_client(), self.raw_client()
        wid = self.client_id(w1)
        self.block(w1, "BLPOP", "k", "0")
        self.block(w2, "BLPOP", "k", "0")
        self.assertEqual(self.raw.call("CLIENT", "KILL", "ID", str(wid)), 1)
        self.assertEqual(w1.wait_closed(), b"")
        self.wait_blocked(1)
        self.assertEqual(self.raw.call("RPUSH", "k", "x", "y"), 2)
        self.assertEqual(w2.read_reply(), [b"k", b"x"])
        self.assertEqual(self.raw.call("LRANGE", "k", "0", "-1"), [b"y"])
        self.assertEqual(blocked_clients(self.raw), 0)

    def test_disconnect(self):
        w1, w2, w3 = self.raw_client(), self.raw_client(), self.raw_client()
        self.block(w1, "BLPOP", "k", "0")
        self.block(w2, "BZPOPMIN", "z", "0")
        self.block(w3, "BLPOP", "k", "0")
        w1.close()
        w2.close()
        self.wait_blocked(1)
        self.assertEqual(self.raw.call("RPUSH", "k", "a", "b"), 2)
        self.assertEqual(w3.read_reply(), [b"k", b"a"])
        self.assertEqual(self.raw.call("ZADD", "z", "1", "m"), 1)
        self.assertEqual(self.raw.call("LRANGE", "k", "0", "-1"), [b"b"])
        self.assertEqual(self.raw.call("ZRANGE", "z", "0", "-1"), [b"m"])
        self.assertEqual(blocked_clients(self.raw), 0)

    def test_disconnect_with_a_pipeline_behind(self):
        w = self.raw_client()
        w.send(encode_command("BLPOP", "k", "0") + encode_command("SET", "never", "1"))
        self.wait_blocked(1)
        w.close()
        self.wait_blocked(0)
        self.assertEqual(self.raw.call("RPUSH", "k", "a"), 1)
        self.assertEqual(self.raw.call("LRANGE", "k", "0", "-1"), [b"a"])
        self.assertEqual(self.raw.call("EXISTS", "never"), 0)

    def test_many_waiters_come_and_go(self):
        # 12 waiters on both threads: 4 disconnect, 2 are unblocked, the other 6 are served, in the
        # order they blocked, by one push; what they do not take stays.
        clients = [self.raw_client() for _ in range(12)]
        ids = [self.client_id(c) for c in clients]
        for i, c in enumerate(clients):
            self.block(c, "BLPOP", "k", "0" if i % 2 else "30")
        for c in clients[::3]:
            c.close()
        self.wait_blocked(8)
        for i in (1, 5):
            self.assertEqual(self.raw.call("CLIENT", "UNBLOCK", str(ids[i])), 1)
            self.assertEqual(clients[i].read_reply(), None)
        self.wait_blocked(6)
        live = [c for i, c in enumerate(clients) if i % 3 and i not in (1, 5)]
        self.assertEqual(self.raw.call("RPUSH", "k", *["v%d" % i for i in range(20)]), 20)
        self.assertEqual([c.read_reply() for c in live], [[b"k", b"v%d" % i] for i in range(6)])
        self.assertEqual(self.raw.call("LRANGE", "k", "0", "-1"),
                         [b"v%d" % i for i in range(6, 20)])
        self.wait_blocked(0)


class IdleTimeoutTest(BlockingTestCase):
    def test_idle_timeout_does_not_close_a_blocked_client(self):
        admin = self.raw_client()
        self.assertEqual(admin.call("CONFIG", "SET", "timeout", "1"), "OK")
        try:
            idle = self.raw_client()
            self.assertEqual(idle.call("PING"), "PONG")
            w = self.raw_client()
            start = time.monotonic()
            w.send_command("BLPOP", "k", "3")
            self.assertEqual(w.read_reply(), None)
            elapsed = time.monotonic() - start
            self.assertGreaterEqual(elapsed, 2.99)
            self.assertLess(elapsed, 4.5)
            self.assertEqual(w.call("PING"), "PONG")  # not closed
            # The timeout is on: the idle connection was closed meanwhile.
            self.assertEqual(idle.wait_closed(timeout=3), b"")
        finally:
            with RawClient(self.port) as c:
                self.assertEqual(c.call("CONFIG", "SET", "timeout", "0"), "OK")


@unittest.skipUnless(IS_ORDIS, "ordis only: adaptive I/O threads move connections")
class ThreadMoveTest(BlockingTestCase):
    """Clients that blocked before (and so armed a timeout timer on their thread) move to the other
    thread between waits (CONFIG SET adaptive-threads no spreads connections, yes gathers them back;
    a blocked client does not move), then block again: their timeouts fire, pushes serve them,
    CLIENT UNBLOCK and disconnects end their waits, wherever they now are."""

    server_args = ("--threads", "2", "--adaptive-threads", "yes")

    def threads(self):
        from test_threads import thread_info
        return thread_info(self.raw)

    def move(self, mode):
        before = self.threads()["connections_moved"]
        self.assertEqual(self.raw.call("CONFIG", "SET", "adaptive-threads", mode), "OK")
        self.assertTrue(wait_until(lambda: self.threads()["connections_moved"] > before,
                                   BLOCK_WAIT_S), self.threads())

    def test_waits_after_moves(self):
        self.assertEqual(self.raw.call("CONFIG", "SET", "adaptive-threads", "yes"), "OK")
        self.assertTrue(wait_until(lambda: self.threads()["io_thread_1"] == 0, BLOCK_WAIT_S))
        clients = [self.raw_client() for _ in range(8)]
        ids = [self.client_id(c) for c in clients]
        for round_ in range(6):
            # Each client times out once where it is, arming its timer there.
            for c in clients:
                c.send_command("BLPOP", "k", "0.01")
            for c in clients:
                self.assertEqual(c.read_reply(), None)
            self.move("no" if round_ % 2 == 0 else "yes")
            # Timeouts where they are now.
            start = time.monotonic()
            for c in clients:
                c.send_command("BZPOPMIN", "z", "0.05")
            for c in clients:
                self.assertEqual(c.read_reply(), None)
            self.assertLess(time.monotonic() - start, 1.0)
            # Served with a timer pending.
            for c in clients[:4]:
                self.block(c, "BLPOP", "k", "5")
            self.assertEqual(self.raw.call("RPUSH", "k", "a", "b", "c", "d"), 4)
            self.assertEqual([c.read_reply() for c in clients[:4]],
                             [[b"k", b"a"], [b"k", b"b"], [b"k", b"c"], [b"k", b"d"]])
            # Unblocked with a timer pending.
            for c in clients[4:]:
                self.block(c, "BLMOVE", "k", "d", "LEFT", "LEFT", "5")
            for i in ids[4:]:
                self.assertEqual(self.raw.call("CLIENT", "UNBLOCK", str(i)), 1)
            for c in clients[4:]:
                self.assertEqual(c.read_reply(), None)
            self.wait_blocked(0)
            for c in clients:
                self.assertEqual(c.call("PING"), "PONG")
        # Disconnected with a timer pending, after the moves.
        for c in clients:
            self.block(c, "BLPOP", "k", "5")
        close_all(clients)
        self.wait_blocked(0)
        self.assertEqual(self.raw.call("RPUSH", "k", "kept"), 1)
        self.assertEqual(self.raw.call("LRANGE", "k", "0", "-1"), [b"kept"])


# -------------------------------------------------------------------------------------------------
# A worker loop, real clients
# -------------------------------------------------------------------------------------------------


class WorkerLoopTest(BlockingTestCase):
    def test_sidekiq_style_workers(self):
        # 4 workers in `BRPOP q1 q2 q3 1` loops, 8 producers LPUSHing 2000 unique jobs: every job is
        # delivered exactly once, and a worker sees one producer's jobs on one queue in push order.
        queues = ["q1", "q2", "q3"]
        n_jobs, n_producers, n_workers = 2000, 8, 4
        received = [[] for _ in range(n_workers)]
        producers_done = threading.Event()
        give_up = [None]  # set with producers_done: when workers stop waiting for lost jobs
        total = [0]
        lock = threading.Lock()

        def worker(i):
            r = self.redis_client()
            while True:
                got = r.brpop(queues, timeout=1)
                if got is not None:
                    received[i].append(got)
                    with lock:
                        total[0] += 1
                elif producers_done.is_set():
                    with lock:
                        if total[0] >= n_jobs or time.monotonic() > give_up[0]:
                            return

        def producer(p):
            r = self.redis_client()
            rng = random.Random(p)
            mine = list(range(p, n_jobs, n_producers))
            at = 0
            while at < len(mine):
                # Mostly single pushes, some of several jobs at once (each to one queue).
                take = 1 if rng.random() < 0.7 else rng.randint(2, 5)
                batch = mine[at:at + take]
                at += take
                q = queues[batch[0] % 3]
                r.lpush(q, *["%s:%d:%d" % (q, p, j) for j in batch])

        with ThreadPoolExecutor(n_workers + n_producers) as pool:
            workers = [pool.submit(worker, i) for i in range(n_workers)]
            self.wait_blocked(n_workers)
            for f in [pool.submit(producer, p) for p in range(n_producers)]:
                f.result(timeout=60)
            give_up[0] = time.monotonic() + 20
            producers_done.set()
            for f in workers:
                f.result(timeout=60)

        jobs = [job for got in received for _, job in got]
        self.assertEqual(len(jobs), n_jobs)
        self.assertEqual(len(set(jobs)), n_jobs, "a job was delivered twice")
        for got in received:
            for q, job in got:
                self.assertEqual(job.split(b":")[0], q)  # from the queue it was pushed onto
            seen = {}
            for _, job in got:
                q, p, j = job.split(b":")
                self.assertGreater(int(j), seen.get((q, p), -1), "out of order: %r" % job)
                seen[(q, p)] = int(j)
        self.assertEqual(sorted(int(job.split(b":")[2]) for job in jobs), list(range(n_jobs)))
        self.assertEqual(self.raw.call("EXISTS", *queues), 0)
        self.assertTrue(all(received), "a worker got no job: %r" % [len(g) for g in received])
        self.wait_blocked(0)


class RedisPyTest(BlockingTestCase):
    def run_blocked(self, fn, n=1):
        """Runs fn on another thread; returns its future once n clients are blocked."""
        pool = ThreadPoolExecutor(1)
        self.addCleanup(pool.shutdown)
        future = pool.submit(fn)
        self.wait_blocked(n)
        return future

    def test_redis_py_methods(self):
        r = self.r
        waiter = self.redis_client()
        self.assertIsNone(r.blpop(["a", "b"], timeout=0.1))
        self.assertIsNone(r.brpop("a", timeout=0.1))
        f = self.run_blocked(lambda: waiter.blpop(["a", "b"], timeout=10))
        self.assertEqual(r.rpush("b", "x"), 1)
        self.assertEqual(f.result(10), (b"b", b"x"))
        f = self.run_blocked(lambda: waiter.brpoplpush("src", "dst", timeout=10))
        self.assertEqual(r.rpush("src", "1", "2"), 2)
        self.assertEqual(f.result(10), b"2")
        self.assertEqual(r.lrange("dst", 0, -1), [b"2"])
        f = self.run_blocked(lambda: waiter.blmove("src2", "dst", 10, "LEFT", "LEFT"))
        self.assertEqual(r.lpush("src2", "0"), 1)
        self.assertEqual(f.result(10), b"0")
        self.assertEqual(r.lrange("dst", 0, -1), [b"0", b"2"])
        f = self.run_blocked(lambda: waiter.bzpopmin(["z1", "z2"], timeout=10))
        self.assertEqual(r.zadd("z2", {"m": 1.5, "n": 2}), 2)
        self.assertEqual(f.result(10), (b"z2", b"m", 1.5))
        self.assertEqual(waiter.bzpopmax("z2", timeout=1), (b"z2", b"n", 2.0))
        self.assertIsNone(waiter.bzpopmax("z2", timeout=0.05))
        f = self.run_blocked(lambda: waiter.blmpop(10, 2, "l1", "l2", direction="RIGHT", count=2))
        self.assertEqual(r.rpush("l2", "a", "b", "c"), 3)
        self.assertEqual(f.result(10), [b"l2", [b"c", b"b"]])
        self.assertIsNone(waiter.blmpop(0.05, 1, "none", direction="LEFT"))
        f = self.run_blocked(lambda: waiter.bzmpop(10, 1, ["zz"], min=True, count=2))
        self.assertEqual(r.zadd("zz", {"a": 1, "b": 2, "c": 3}), 3)
        self.assertEqual(f.result(10), [b"zz", [[b"a", b"1"], [b"b", b"2"]]])
        self.assertEqual(r.lmpop(1, "l2", direction="LEFT"), [b"l2", [b"a"]])
        self.assertEqual(r.zmpop(1, ["zz"], max=True), [b"zz", [[b"c", b"3"]]])

    def test_redis_py_client_unblock(self):
        waiter = self.redis_client()
        wid = waiter.client_id()
        f = self.run_blocked(lambda: waiter.blpop("k", timeout=0))
        self.assertTrue(self.r.client_unblock(wid, error=True))
        with self.assertRaises(redis.exceptions.ResponseError) as cm:
            f.result(10)
        self.assertIn("UNBLOCKED", str(cm.exception))
        f = self.run_blocked(lambda: waiter.bzpopmin("k", timeout=0))
        self.assertTrue(self.r.client_unblock(wid))
        self.assertIsNone(f.result(10))


# -------------------------------------------------------------------------------------------------
# The append-only log; shutdown
# -------------------------------------------------------------------------------------------------


def dump(client):
    """Every key of database 0 with its type and contents, read through a RawClient."""
    out = {}
    for key in client.call("KEYS", "*"):
        kind = client.call("TYPE", key)
        if kind == "list":
            out[key] = ("list", client.call("LRANGE", key, "0", "-1"))
        elif kind == "zset":
            out[key] = ("zset", client.call("ZRANGE", key, "0", "-1", "WITHSCORES"))
        else:
            out[key] = (str(kind), None)
    return out


class AppendOnlyLogTest(unittest.TestCase):
    """Waiters served by pushes with the log on; after a restart the data is what it was."""

    def setUp(self):
        self.srv = Server(("--appendonly", "yes", "--appendfsync", "always"), keep_dir=True).start()
        self.clients = []

    def tearDown(self):
        close_all(self.clients)
        self.srv.stop()
        self.srv.remove_dir()

    def client(self):
        c = RawClient(self.srv.port)
        self.clients.append(c)
        return c

    def wait_blocked(self, admin, n):
        self.assertTrue(wait_until(lambda: blocked_clients(admin) == n, BLOCK_WAIT_S, 0.005),
                        "blocked_clients is %d, expected %d" % (blocked_clients(admin), n))

    def serve_waiters(self):
        admin = self.client()
        self.assertEqual(admin.call("RPUSH", "d", "d0"), 1)
        waits = [
            (("BLPOP", "l1", "0"), [b"l1", b"a"]),
            (("BRPOP", "l1", "0"), [b"l1", b"c"]),
            (("BLMOVE", "s", "d", "LEFT", "RIGHT", "0"), b"x"),
            (("BRPOPLPUSH", "s", "d2", "0"), b"z"),
            (("BZPOPMIN", "z", "0"), [b"z", b"m1", b"1"]),
            (("BZPOPMAX", "z", "0"), [b"z", b"m3", b"3"]),
            (("BLMPOP", "0", "2", "none", "l2", "RIGHT", "COUNT", "2"), [b"l2", [b"4", b"3"]]),
            (("BZMPOP", "0", "1", "z2", "MIN", "COUNT", "2"),
             [b"z2", [[b"a", b"1"], [b"b", b"2"]]]),
            # A chain: c1 -> c2, where a BLPOP waits.
            (("BLMOVE", "c1", "c2", "RIGHT", "LEFT", "0"), b"cv"),
            (("BLPOP", "c2", "0"), [b"c2", b"cv"]),
            # One that times out changes nothing.
            (("BLPOP", "t", "0.05"), None),
        ]
        waiters = []
        for i, (command, _) in enumerate(waits):
            w = self.client()
            w.send_command(*command)
            if i < len(waits) - 1:  # the last one times out: no wait for it
                self.wait_blocked(admin, i + 1)
            waiters.append(w)
        self.assertEqual(admin.call("RPUSH", "l1", "a", "b", "c"), 3)
        self.assertEqual(admin.call("RPUSH", "s", "x", "y", "z"), 3)
        self.assertEqual(admin.call("ZADD", "z", "1", "m1", "2", "m2", "3", "m3"), 3)
        self.assertEqual(admin.call("RPUSH", "l2", "1", "2", "3", "4"), 4)
        self.assertEqual(admin.call("ZADD", "z2", "1", "a", "2", "b", "3", "c"), 3)
        self.assertEqual(admin.call("RPUSH", "c1", "cv"), 1)
        for w, (command, want) in zip(waiters, waits):
            self.assertEqual(w.read_reply(), want, command)
        self.wait_blocked(admin, 0)
        before = dump(admin)
        self.assertEqual(before, {
            b"l1": ("list", [b"b"]),
            b"s": ("list", [b"y"]),
            b"d": ("list", [b"d0", b"x"]),
            b"d2": ("list", [b"z"]),
            b"z": ("zset", [b"m2", b"2"]),
            b"l2": ("list", [b"1", b"2"]),
            b"z2": ("zset", [b"c", b"3"]),
        })
        return before

    def test_restart(self):
        before = self.serve_waiters()
        close_all(self.clients)
        status, log = self.srv.stop()
        self.assertIn(status, (0, -signal.SIGTERM), log)
        self.srv.start()
        self.assertEqual(dump(self.client()), before)

    def test_kill_after_the_replies(self):
        # appendfsync always: a waiter's reply leaves only after its pop is in the log.
        before = self.serve_waiters()
        self.srv.kill()
        self.srv.start()
        self.assertEqual(dump(self.client()), before)


class ShutdownTest(unittest.TestCase):
    """Blocked clients see EOF when the server shuts down, and the server exits cleanly."""

    def setUp(self):
        self.srv = Server().start()
        self.clients = []
        admin = self.client()
        for command in (("BLPOP", "k", "0"), ("BZPOPMIN", "z", "0"), ("BLMOVE", "a", "b", "LEFT",
                        "LEFT", "0"), ("BLMPOP", "100", "1", "k", "LEFT")):
            self.client().send_command(*command)
        self.assertTrue(wait_until(lambda: blocked_clients(admin) == 4, BLOCK_WAIT_S, 0.005))
        self.waiters = self.clients[1:]

    def tearDown(self):
        close_all(self.clients)
        self.srv.stop()

    def client(self):
        c = RawClient(self.srv.port)
        self.clients.append(c)
        return c

    def assertWaitersClosed(self):
        for w in self.waiters:
            self.assertEqual(w.wait_closed(timeout=10), b"")

    def test_shutdown_nosave(self):
        admin = self.clients[0]
        admin.send_command("SHUTDOWN", "NOSAVE")
        self.assertEqual(admin.wait_closed(timeout=10), b"")
        self.assertWaitersClosed()
        self.assertEqual(self.srv.proc.wait(timeout=10), 0, self.srv.log_tail())

    def test_sigterm(self):
        self.srv.proc.send_signal(signal.SIGTERM)
        self.assertWaitersClosed()
        self.assertIn(self.srv.proc.wait(timeout=10), (0, -signal.SIGTERM), self.srv.log_tail())


if __name__ == "__main__":
    unittest.main()
