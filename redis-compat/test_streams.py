"""Streams through the real binary: replies in RESP2 and RESP3, redis-py's stream API, a differential
test against redis-server (a seeded random sequence of XADD XTRIM XDEL XRANGE XREVRANGE XREADGROUP
XACK XCLAIM XAUTOCLAIM XINFO sent to both, every reply compared, with small nodes so that trimming
and deletion cross many of them), and consumer groups under crashes: consumers that read and never
acknowledge, and one that takes their entries over with XAUTOCLAIM, every entry acknowledged exactly
once.

Every expectation passes against redis-server 7.0.15 (ORDIS_SERVER=/usr/bin/redis-server); the
differential test then compares redis-server with itself. REFERENCE_SERVER names the reference
(default /usr/bin/redis-server); without one the differential test is skipped."""

import os
import random
import threading
import time
import unittest

from harness import IS_ORDIS, REFERENCE_SERVER, RawClient, Server, ServerTestCase, run_threads



class StreamReplies(ServerTestCase):
    def test_xadd_xrange_resp2_and_resp3(self):
        self.assertReply(b"1-1", "XADD", "s", "1-1", "f", "v", "g", "w")
        self.assertReply(b"1-2", "XADD", "s", "1-*", "f", "x")
        self.assertReply([[b"1-1", [b"f", b"v", b"g", b"w"]], [b"1-2", [b"f", b"x"]]],
                         "XRANGE", "s", "-", "+")
        self.assertRawReply(b"*1\r\n*2\r\n$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nx\r\n",
                            "XREVRANGE", "s", "+", "-", "COUNT", "1")
        c3 = self.resp3_client()
        self.assertRawReply(b"%1\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-2\r\n*2\r\n$1\r\nf\r\n$1\r\nx\r\n",
                            "XREAD", "STREAMS", "s", "1-1", client=c3)
        self.assertRawReply(b"_\r\n", "XREAD", "STREAMS", "s", "$", client=c3)
        self.assertRawReply(b"*-1\r\n", "XREAD", "STREAMS", "s", "$")
        self.assertReply("stream", "TYPE", "s")
        self.assertReply(b"stream", "OBJECT", "ENCODING", "s")
        self.assertErr("ERR Invalid stream ID specified as stream command argument",
                       "XREAD", "STREAMS", "s", "+")

    def test_errors(self):
        self.raw.call("XADD", "s", "5-5", "f", "v")
        self.assertErr("ERR The ID specified in XADD is equal or smaller than the target stream top "
                       "item", "XADD", "s", "5-5", "f", "v")
        self.assertErr("ERR The ID specified in XADD must be greater than 0-0",
                       "XADD", "s", "0-0", "f", "v")
        self.assertErr("ERR wrong number of arguments for 'xadd' command", "XADD", "s", "*", "f")
        self.assertErr("ERR syntax error, LIMIT cannot be used without the special ~ option",
                       "XADD", "s", "MAXLEN", "1", "LIMIT", "1", "*", "f", "v")
        self.assertErr("NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP "
                       "option", "XREADGROUP", "GROUP", "g", "c", "STREAMS", "s", ">")
        self.assertReply("OK", "XGROUP", "CREATE", "s", "g", "0")
        self.assertErr("BUSYGROUP Consumer Group name already exists", "XGROUP", "CREATE", "s",
                       "g", "0")
        self.raw.call("SET", "str", "x")
        self.assertErr("WRONGTYPE Operation against a key holding the wrong kind of value",
                       "XADD", "str", "*", "f", "v")

    def test_redis_py_consumer_group(self):
        r = self.r
        ids = [r.xadd("jobs", {"n": str(i)}) for i in range(5)]
        self.assertEqual(r.xlen("jobs"), 5)
        r.xgroup_create("jobs", "workers", id="0")
        got = r.xreadgroup("workers", "w1", {"jobs": ">"}, count=3)
        self.assertEqual([e[0] for e in got[0][1]], ids[:3])
        self.assertEqual(r.xack("jobs", "workers", *ids[:3]), 3)
        pending = r.xpending("jobs", "workers")
        self.assertEqual(pending["pending"], 0)
        info = r.xinfo_stream("jobs")
        self.assertEqual(info["length"], 5)
        self.assertEqual(info["entries-added"], 5)
        self.assertEqual(r.xtrim("jobs", maxlen=2, approximate=False), 3)
        self.assertEqual(r.xrange("jobs")[0][0], ids[3])

    def test_keyspace_commands(self):
        self.raw.call("XADD", "s", "1-1", "f", "v")
        self.raw.call("XGROUP", "CREATE", "s", "g", "$")
        self.assertReply(1, "COPY", "s", "t")
        self.assertReply("OK", "RENAME", "t", "u")
        keys = self.raw.call("SCAN", "0", "TYPE", "stream", "COUNT", "100")[1]
        self.assertEqual(sorted(keys), [b"s", b"u"])
        self.assertReply([[b"name", b"g", b"consumers", 0, b"pending", 0, b"last-delivered-id",
                           b"1-1", b"entries-read", None, b"lag", 0]], "XINFO", "GROUPS", "u")
        self.assertGreater(self.raw.call("MEMORY", "USAGE", "u"), 0)
        self.assertReply([b"a", b"b"], "COMMAND", "GETKEYS", "XREAD", "COUNT", "2", "STREAMS",
                         "a", "b", "0", "0")


# --------------------------------------------------------------------------------------------------
# Differential: the same random commands to the server under test and to redis-server.
# --------------------------------------------------------------------------------------------------

SEED = int(os.environ.get("STREAM_DIFF_SEED", "1616"))
STEPS = 2500
KEYS = ("s1", "s2")
FIELDS = [b"f", b"g", b"h", b"name", b"x" * 70]
GROUPS = ("ga", "gb")
CONSUMERS = ("c1", "c2", "c3")


TIME_FIELDS = (b"seen-time", b"active-time")


def no_times(reply):
    """XINFO STREAM FULL without what the clock decides: consumers' seen and active times and the
    delivery times of pending entries (group PEL entries [id, consumer, time, count], consumer
    ones [id, time, count])."""
    if not isinstance(reply, list):
        return reply
    out = []
    pairs = len(reply) % 2 == 0 and all(isinstance(k, bytes) for k in reply[::2])
    for i, v in enumerate(reply):
        key = reply[i - 1] if pairs and i % 2 == 1 else None
        if key in TIME_FIELDS:
            v = 0
        elif key == b"pending" and isinstance(v, list):
            v = [e[:len(e) - 2] + [0] + e[-1:] if isinstance(e, list) else e for e in v]
        else:
            v = no_times(v)
        out.append(v)
    return out


@unittest.skipUnless(os.path.exists(REFERENCE_SERVER), "no reference redis-server")
class StreamDifferential(ServerTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.reference = Server(path=REFERENCE_SERVER).start()

    @classmethod
    def tearDownClass(cls):
        cls.reference.stop()
        super().tearDownClass()

    def setUp(self):
        super().setUp()
        self.ref = RawClient(self.reference.port)
        self._clients.append(self.ref)
        self.ref.call("FLUSHALL")
        self.rng = random.Random(SEED)
        self.next_id = {k: [1, 0] for k in KEYS}
        self.known = {k: [] for k in KEYS}
        self.step = -1

    def both(self, *args):
        if os.environ.get("STREAM_DIFF_TRACE"):
            print(self.step, args)
        a = self.raw.call(*args)
        b = self.ref.call(*args)
        return a, b

    def check(self, *args, mask=None):
        a, b = self.both(*args)
        if mask is not None:
            a, b = mask(a), mask(b)
        self.assertEqual(a, b, "step %d: %r" % (self.step, args))

    # -- random arguments ---------------------------------------------------------------------------

    def new_id(self, key):
        ms, seq = self.next_id[key]
        r = self.rng.random()
        if r < 0.5:
            seq += 1
        elif r < 0.9:
            ms += self.rng.randrange(1, 5)
            seq = self.rng.randrange(0, 3)
        else:
            ms += self.rng.randrange(100, 100000)
            seq = 0
        self.next_id[key] = [ms, seq]
        return "%d-%d" % (ms, seq)

    def some_id(self, key):
        ids = self.known[key]
        r = self.rng.random()
        if ids and r < 0.7:
            return self.rng.choice(ids)
        ms, seq = self.next_id[key]
        return "%d-%d" % (self.rng.randrange(0, ms + 2), self.rng.randrange(0, 4))

    def bound(self, key, low):
        r = self.rng.random()
        if r < 0.15:
            return "-" if low else "+"
        i = self.some_id(key)
        if r < 0.35:
            return "(" + i
        if r < 0.45:
            return i.split("-")[0]
        return i

    def fields(self):
        if self.rng.random() < 0.8:
            names = [b"f", b"g"]
        else:
            names = self.rng.sample(FIELDS, self.rng.randrange(1, 4))
        out = []
        for n in names:
            size = self.rng.choice((0, 1, 5, 20, 300, 900)) if self.rng.random() < 0.3 else 3
            out += [n, (b"%d" % self.rng.randrange(100000)) if size == 3 else b"v" * size]
        return out

    # -- the run ------------------------------------------------------------------------------------

    def test_random_sequence(self):
        for cfg in (("stream-node-max-entries", "7"), ("stream-node-max-bytes", "2048")):
            self.both("CONFIG", "SET", *cfg)
        for key in KEYS:
            for group in GROUPS:
                self.check("XGROUP", "CREATE", key, group, "0", "MKSTREAM")
        ops = [(30, self.op_xadd), (6, self.op_xtrim), (6, self.op_xdel), (10, self.op_range),
               (10, self.op_readgroup), (8, self.op_ack), (5, self.op_claim), (4, self.op_autoclaim),
               (4, self.op_info), (2, self.op_setid), (3, self.op_xread), (1, self.op_xsetid)]
        weights = [w for w, _ in ops]
        for self.step in range(STEPS):
            key = self.rng.choice(KEYS)
            self.rng.choices(ops, weights)[0][1](key)
        for key in KEYS:
            self.check("XRANGE", key, "-", "+")
            self.check("XINFO", "STREAM", key)
            self.check("XINFO", "STREAM", key, "FULL", mask=no_times)

    def op_xadd(self, key):
        args = ["XADD", key]
        r = self.rng.random()
        if r < 0.15:
            args += ["MAXLEN", self.rng.choice(["~", "=", "~"]), str(self.rng.randrange(0, 60))]
        elif r < 0.2:
            args += ["MINID", self.rng.choice(["~", "="]), self.some_id(key)]
        i = self.new_id(key)
        if self.rng.random() < 0.1:
            i = i.split("-")[0] + "-*"
        args.append(i)
        args += self.fields()
        a, b = self.both(*args)
        self.assertEqual(a, b, "step %d: %r" % (self.step, args))
        if isinstance(a, bytes):
            self.known[key].append(a.decode())
            ms, seq = a.decode().split("-")
            self.next_id[key] = [int(ms), int(seq)]

    def op_xtrim(self, key):
        if self.rng.random() < 0.6:
            args = ["XTRIM", key, "MAXLEN", self.rng.choice(["~", "="]),
                    str(self.rng.randrange(0, 80))]
        else:
            args = ["XTRIM", key, "MINID", self.rng.choice(["~", "="]), self.some_id(key)]
        if args[3] == "~" and self.rng.random() < 0.3:
            args += ["LIMIT", str(self.rng.randrange(0, 30))]
        self.check(*args)

    def op_xdel(self, key):
        self.check("XDEL", key, *[self.some_id(key) for _ in range(self.rng.randrange(1, 4))])

    def op_range(self, key):
        cmd = self.rng.choice(("XRANGE", "XREVRANGE"))
        lo, hi = self.bound(key, True), self.bound(key, False)
        args = [cmd, key] + ([lo, hi] if cmd == "XRANGE" else [hi, lo])
        if self.rng.random() < 0.5:
            args += ["COUNT", str(self.rng.randrange(-1, 12))]
        self.check(*args)
        self.check("XLEN", key)

    def op_readgroup(self, key):
        args = ["XREADGROUP", "GROUP", self.rng.choice(GROUPS), self.rng.choice(CONSUMERS)]
        if self.rng.random() < 0.8:
            args += ["COUNT", str(self.rng.randrange(1, 15))]
        if self.rng.random() < 0.1:
            args.append("NOACK")
        args += ["STREAMS", key, ">" if self.rng.random() < 0.75 else self.some_id(key)]
        self.check(*args)

    def op_ack(self, key):
        self.check("XACK", key, self.rng.choice(GROUPS),
                   *[self.some_id(key) for _ in range(self.rng.randrange(1, 5))])

    def op_claim(self, key):
        args = ["XCLAIM", key, self.rng.choice(GROUPS), self.rng.choice(CONSUMERS), "0"]
        args += [self.some_id(key) for _ in range(self.rng.randrange(1, 4))]
        if self.rng.random() < 0.5:
            args.append("JUSTID")
        if self.rng.random() < 0.2:
            args.append("FORCE")
        if self.rng.random() < 0.2:
            args += ["RETRYCOUNT", str(self.rng.randrange(0, 9))]
        self.check(*args)

    def op_autoclaim(self, key):
        args = ["XAUTOCLAIM", key, self.rng.choice(GROUPS), self.rng.choice(CONSUMERS), "0",
                self.bound(key, True), "COUNT", str(self.rng.randrange(1, 10))]
        if self.rng.random() < 0.5:
            args.append("JUSTID")
        self.check(*args)

    def op_info(self, key):
        self.check("XINFO", "STREAM", key)
        if self.rng.random() < 0.3:
            self.check("XINFO", "STREAM", key, "FULL", "COUNT", str(self.rng.randrange(0, 6)),
                       mask=no_times)
        self.check("XINFO", "GROUPS", key)
        self.check("XPENDING", key, self.rng.choice(GROUPS))

        def no_idle(reply):  # idle times are the clock's, not the model's
            return [e[:2] + e[3:] for e in reply] if isinstance(reply, list) else reply
        self.check("XPENDING", key, self.rng.choice(GROUPS), "-", "+", "20", mask=no_idle)

    def op_setid(self, key):
        args = ["XGROUP", "SETID", key, self.rng.choice(GROUPS), self.some_id(key)]
        if self.rng.random() < 0.5:
            args += ["ENTRIESREAD", str(self.rng.randrange(-1, 50))]
        self.check(*args)

    def op_xsetid(self, key):
        ms, seq = self.next_id[key]
        if self.rng.random() < 0.3:
            target = self.some_id(key)  # mostly below the top: the error
        else:
            target = "%d-%d" % (ms + self.rng.randrange(0, 3), self.rng.randrange(0, 5))
        args = ["XSETID", key, target]
        if self.rng.random() < 0.3:
            args += ["ENTRIESADDED", str(self.rng.randrange(0, 400))]
        if self.rng.random() < 0.3:
            args += ["MAXDELETEDID", self.some_id(key)]
        a, b = self.both(*args)
        self.assertEqual(a, b, "step %d: %r" % (self.step, args))
        if a == "OK":
            t_ms, t_seq = (int(x) for x in target.split("-"))
            self.next_id[key] = [t_ms, t_seq]

    def op_xread(self, key):
        self.check("XREAD", "COUNT", str(self.rng.randrange(1, 6)), "STREAMS", key,
                   self.some_id(key))


# --------------------------------------------------------------------------------------------------
# Crash and claim: every entry acknowledged exactly once.
# --------------------------------------------------------------------------------------------------


class CrashAndClaim(ServerTestCase):
    ENTRIES = 600

    def test_every_entry_acknowledged_once(self):
        producer = self.raw_client()
        producer.call("XGROUP", "CREATE", "jobs", "workers", "$", "MKSTREAM")
        all_ids = [producer.call("XADD", "jobs", "*", "n", str(i)) for i in range(self.ENTRIES)]
        acked = {}
        lock = threading.Lock()
        done = threading.Event()

        def record(c, worker, ids):
            for i in ids:
                if c.call("XACK", "jobs", "workers", i) == 1:
                    with lock:
                        acked[i] = acked.get(i, 0) + 1
                        acked.setdefault(("by", worker), 0)

        def crashing(name):
            # Reads a batch, acknowledges none of it, and is gone.
            c = RawClient(self.port)
            c.call("XREADGROUP", "GROUP", "workers", name, "COUNT", "50", "STREAMS", "jobs", ">")
            c.close()

        def healthy(name):
            c = RawClient(self.port)
            while not done.is_set():
                reply = c.call("XREADGROUP", "GROUP", "workers", name, "COUNT", "20", "STREAMS",
                               "jobs", ">")
                if reply is None:
                    break
                record(c, name, [e[0] for e in reply[0][1]])
            c.close()

        def claimer():
            c = RawClient(self.port)
            deadline = time.time() + 30
            while time.time() < deadline:
                cursor = b"0-0"
                while True:
                    nxt, claimed, deleted = c.call("XAUTOCLAIM", "jobs", "workers", "rescuer", "50",
                                                   cursor, "COUNT", "25")
                    record(c, "rescuer", [e[0] for e in claimed])
                    cursor = nxt
                    if cursor == b"0-0":
                        break
                if c.call("XPENDING", "jobs", "workers")[0] == 0 and len(
                        [k for k in acked if not isinstance(k, tuple)]) == self.ENTRIES:
                    break
                time.sleep(0.02)
            c.close()

        run_threads(lambda i: crashing("crash%d" % i), 3)
        workers = [lambda: healthy("h1"), lambda: healthy("h2"), claimer]
        run_threads(lambda i: workers[i](), len(workers))
        done.set()
        counts = {k: v for k, v in acked.items() if not isinstance(k, tuple)}
        self.assertEqual(sorted(counts), sorted(all_ids))
        self.assertTrue(all(v == 1 for v in counts.values()))
        self.assertIn(("by", "rescuer"), acked)
        self.assertEqual(producer.call("XPENDING", "jobs", "workers")[0], 0)


# --------------------------------------------------------------------------------------------------
# Persistence: the append-only log replays to the same stream, groups and PELs; a snapshot keeps them.
# --------------------------------------------------------------------------------------------------


class StreamPersistence(unittest.TestCase):
    def setUp(self):
        self.server = Server(["--appendonly", "yes", "--appendfsync", "always"], keep_dir=True)
        self.server.start()

    def tearDown(self):
        self.server.stop()
        self.server.remove_dir()

    def state(self, times, counters=True):
        """Everything a stream shows; delivery and seen times only when times (a log replay gives
        them the replay's clock), groups' entries-read and lag only when counters (Redis's log
        does not carry them: it propagates XREADGROUP as XCLAIMs; ordis's log does)."""
        c = RawClient(self.server.port)
        groups = c.call("XINFO", "GROUPS", "s")
        if not counters:
            groups = [g[:8] for g in groups]
        out = [c.call("XRANGE", "s", "-", "+"), c.call("XINFO", "STREAM", "s"), groups]
        for g in (b"g1", b"g2"):
            out.append([e[:2] + e[3:] for e in c.call("XPENDING", "s", g, "-", "+", "100")])
            out.append([e[:2] for e in c.call("XINFO", "CONSUMERS", "s", g)])
        if times:
            out.append(c.call("XINFO", "STREAM", "s", "FULL", "COUNT", "0"))
        c.close()
        return out

    def test_an_approximate_trim_that_empties_the_stream_stays_empty(self):
        c = RawClient(self.server.port)
        c.call("XADD", "s", "1-1", "a", "1")
        c.call("XADD", "s", "2-1", "a", "1")
        self.assertEqual(c.call("XTRIM", "s", "MINID", "~", "100"), 2)
        c.call("XADD", "t", "1-1", "a", "1")
        self.assertEqual(c.call("XADD", "t", "MINID", "~", "100", "2-1", "a", "1"), b"2-1")
        lengths = [c.call("XLEN", "s"), c.call("XLEN", "t")]
        c.close()
        self.assertEqual(lengths, [0, 0])  # XADD trims after adding: its own entry goes too
        self.server.stop()
        self.server.start()
        c = RawClient(self.server.port)
        self.assertEqual([c.call("XLEN", "s"), c.call("XLEN", "t")], lengths)
        c.close()

    def test_an_approximate_trim_that_removed_nothing_replays_as_nothing(self):
        c = RawClient(self.server.port)
        self.assertEqual(c.call("CONFIG", "SET", "stream-node-max-entries", "100"), "OK")
        for i in range(1, 6):
            c.call("XADD", "s", "%d-1" % i, "a", "1")
        self.assertEqual(c.call("XTRIM", "s", "MAXLEN", "~", "3"), 0)  # one node: nothing goes
        c.close()
        self.server.stop()
        # Replayed where a node holds 2 entries, the trim would remove whole nodes verbatim.
        self.server.extra_args = self.server.extra_args + ["--stream-node-max-entries", "2"]
        self.server.start()
        c = RawClient(self.server.port)
        self.assertEqual(c.call("XLEN", "s"), 5)
        c.close()

    def test_log_and_snapshot_keep_groups(self):
        c = RawClient(self.server.port)
        for i in range(260):
            c.call("XADD", "s", "*", "n", str(i), "pad", "x" * (i % 50))
        c.call("XGROUP", "CREATE", "s", "g1", "0")
        c.call("XGROUP", "CREATE", "s", "g2", "$")
        c.call("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "30", "STREAMS", "s", ">")
        c.call("XREADGROUP", "GROUP", "g1", "bob", "COUNT", "20", "NOACK", "STREAMS", "s", ">")
        c.call("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "5", "STREAMS", "s", "0")
        first = c.call("XRANGE", "s", "-", "+", "COUNT", "40")
        c.call("XCLAIM", "s", "g1", "carol", "0", first[3][0], first[4][0], "RETRYCOUNT", "9")
        c.call("XDEL", "s", first[5][0])
        c.call("XAUTOCLAIM", "s", "g1", "dave", "0", "0", "COUNT", "6")
        c.call("XACK", "s", "g1", first[7][0], first[8][0])
        c.call("XADD", "s", "MAXLEN", "~", "150", "*", "n", "last")
        c.call("XGROUP", "CREATECONSUMER", "s", "g2", "erin")
        c.call("XADD", "s", "*", "n", "after")
        c.call("XREADGROUP", "GROUP", "g2", "erin", "STREAMS", "s", ">")
        c.close()
        before = self.state(False, IS_ORDIS)
        self.server.stop()
        self.server.start()
        self.assertEqual(self.state(False, IS_ORDIS), before)
        # A snapshot keeps delivery times and seen times too.
        c = RawClient(self.server.port)
        self.assertEqual(c.call("SAVE"), "OK")
        c.close()
        full = self.state(True)
        self.server.stop()
        self.server.extra_args = ["--appendonly", "no"]
        self.server.start()
        self.assertEqual(self.state(True), full)


if __name__ == "__main__":
    unittest.main()
