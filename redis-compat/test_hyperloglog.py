"""HyperLogLog: PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST, on values in Redis's exact byte format.

Every expectation was checked against redis-server 7.0.15 (ORDIS_SERVER=/usr/bin/redis-server).
CrossServerTest also starts a reference redis-server (REDIS_REFERENCE, default /usr/bin/redis-server)
beside the server under test and holds them to the same bytes: GET after the same PFADDs (sparse
growth, promotion to dense at several hll-sparse-max-bytes, dense), the same PFCOUNT at sizes up to
200k elements, the same PFMERGE results and unions, the same replies to corrupt values, and DUMP on
either server RESTOREd on the other counting the same. Without a reference it is skipped.
"""

import random
import unittest

from harness import CrossServerTestCase, Err, RawClient, RespError, ServerTestCase, info, wait_until
from test_notifications import EventsClient


NOT_HLL = "WRONGTYPE Key is not a valid HyperLogLog string value."
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
CORRUPT = "INVALIDOBJ Corrupted HLL object detected"
NOPERM_KEY = "NOPERM this user has no permissions to access one of the keys used as arguments"
REGISTERS = 16384
DENSE_SIZE = 16 + REGISTERS * 6 // 8


def header(encoding, card=b"\x00" * 8):
    return b"HYLL" + bytes([encoding]) + b"\x00\x00\x00" + card


def dense(registers, card=b"\x00" * 7 + b"\x80"):
    """A dense value holding registers (16384 values of 0-63)."""
    out = bytearray(REGISTERS * 6 // 8)
    for i, v in enumerate(registers):
        bit = i * 6
        word = v << (bit % 8)
        out[bit // 8] |= word & 0xff
        if word >> 8:
            out[bit // 8 + 1] |= word >> 8
    return header(0, card) + bytes(out)


EMPTY = header(1, b"\x00" * 7 + b"\x80") + b"\x7f\xff"  # PFADD h: XZERO:16384, cache stale
# PFADD h a b c; PFCOUNT h
ABC = header(1, b"\x03" + b"\x00" * 7) + bytes.fromhex("60f38050b1844bfb80425a")
ABC_DECODED = b"Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603"

STALE = b"\x00" * 7 + b"\x80"  # a cached count marked stale
# Values that pass the type check (the header) but whose opcodes do not cover 16384 registers.
SHORT = header(1, STALE) + b"\x7f\xfe"        # XZERO:16383
PAST = header(1, STALE) + b"\x7f\xff\x80"     # XZERO:16384 VAL:1,1
NO_OPCODES = header(1, STALE)
VAL_PAST = header(1, STALE) + b"\x7f\xfd\x83"  # XZERO:16382 VAL:1,4
CUT_XZERO = header(1, STALE) + b"\x7f"         # an XZERO missing its second byte


def ends_in_cut_xzero(value):
    """Whether a sparse value's last opcode is an XZERO missing its second byte. Redis reads the
    byte past the end of its string for it (the terminator, or what its last edit left there);
    ordis reads it as 0 and refuses to edit such an opcode (INVALIDOBJ), never reading past the
    value."""
    if len(value) < 16 or value[4] != 1:
        return False
    i = 16
    while i < len(value):
        i += 2 if value[i] & 0xc0 == 0x40 else 1
    return i > len(value)


def elements(start, stop, form="e%d"):
    return [form % i for i in range(start, stop)]


class HyperLogLogTest(ServerTestCase):
    def add(self, key, items, batch=1000):
        c = self.raw
        replies = c.pipeline([["PFADD", key] + items[i:i + batch]
                              for i in range(0, len(items), batch)])
        for r in replies:
            self.assertIn(r, (0, 1))

    def test_pfadd_makes_redis_bytes(self):
        self.assertReply(1, "PFADD", "h")
        self.assertReply(EMPTY, "GET", "h")
        self.assertReply(0, "PFADD", "h")
        self.assertReply(b"raw", "OBJECT", "ENCODING", "h")
        self.assertReply("string", "TYPE", "h")
        self.assertReply(1, "PFADD", "h", "a", "b", "c")
        self.assertReply(0, "PFADD", "h", "a", "c")
        self.assertReply(3, "PFCOUNT", "h")
        self.assertReply(ABC, "GET", "h")
        self.assertReply(ABC_DECODED, "PFDEBUG", "DECODE", "h")
        self.assertReply(1, "PFADD", "new", "x")
        self.assertReply(1, "PFCOUNT", "new")

    def test_arity(self):
        for cmd in ("pfadd", "pfcount", "pfmerge"):
            self.assertErr("ERR wrong number of arguments for '%s' command" % cmd, cmd.upper())
        self.assertErr("ERR wrong number of arguments for 'pfdebug' command", "PFDEBUG", "GETREG")
        self.assertErr("ERR wrong number of arguments for 'pfdebug' command",
                       "PFDEBUG", "GETREG", "a", "b")
        self.assertErr("ERR wrong number of arguments for 'pfselftest' command", "PFSELFTEST", "x")

    def test_type_errors(self):
        self.raw.call("RPUSH", "list", "x")
        self.raw.call("PFADD", "h", "a")
        for args in (["PFADD", "list", "a"], ["PFCOUNT", "list"], ["PFCOUNT", "h", "list"],
                     ["PFMERGE", "list"], ["PFMERGE", "h", "list"], ["PFMERGE", "list", "h"],
                     ["PFDEBUG", "ENCODING", "list"]):
            self.assertErr(WRONGTYPE, *args)
        not_hll = [b"foo", b"12345678901234567", b"HYLL", header(1)[:15], header(2) + b"\x7f\xff",
                   header(0) + b"\x7f\xff", dense([0] * REGISTERS) + b"\x00",
                   b"HYLX" + EMPTY[4:]]
        for i, value in enumerate(not_hll):
            key = "s%d" % i
            self.raw.call("SET", key, value)
            for args in (["PFADD", key, "a"], ["PFADD", key], ["PFCOUNT", key], ["PFCOUNT", key, "h"],
                         ["PFMERGE", key, "h"], ["PFMERGE", "h", key], ["PFDEBUG", "GETREG", key],
                         ["PFDEBUG", "BOGUS", key]):
                self.assertErr(NOT_HLL, *args)
            self.assertReply(value, "GET", key)
        self.assertReply(1, "PFCOUNT", "h")

    def test_corrupt_values(self):
        for i, value in enumerate([SHORT, PAST, NO_OPCODES, VAL_PAST, CUT_XZERO]):
            key = "c%d" % i
            self.raw.call("SET", key, value)
            self.assertErr(CORRUPT, "PFCOUNT", key)
            self.assertErr(CORRUPT, "PFCOUNT", key, "missing")
            self.assertErr(CORRUPT, "PFMERGE", "dest", key)
            self.assertErr(CORRUPT, "PFMERGE", key)
            self.assertErr(CORRUPT, "PFDEBUG", "GETREG", key)
            self.assertErr(CORRUPT, "PFDEBUG", "TODENSE", key)
            self.assertReply("sparse", "PFDEBUG", "ENCODING", key)
            self.assertReply(value, "GET", key)
        self.assertReply(0, "EXISTS", "dest")
        self.assertReply(b"Z:16383", "PFDEBUG", "DECODE", "c0")
        self.assertReply(b"", "PFDEBUG", "DECODE", "c2")
        self.assertReply(b"Z:16129", "PFDEBUG", "DECODE", "c4")
        # An element whose register the opcodes never reach: "r7803" is register 16383, past
        # XZERO:16383. Nothing changes, even for the elements before it.
        self.assertErr(CORRUPT, "PFADD", "c0", "r7803")
        self.assertErr(CORRUPT, "PFADD", "c2", "a")
        self.assertReply(SHORT, "GET", "c0")
        self.assertReply(NO_OPCODES, "GET", "c2")
        # A register the opcodes reach can still be set, as Redis sets it: PFCOUNT then refuses.
        self.assertReply(1, "PFADD", "c1", "a")
        self.assertReply(b"Z:12711 v:2,1 Z:3672 v:1,1", "PFDEBUG", "DECODE", "c1")
        self.assertErr(CORRUPT, "PFCOUNT", "c1")
        # A valid cache is believed, whatever the registers.
        self.raw.call("SET", "cached", header(1, b"\x07" + b"\x00" * 7) + b"\x7f\xfe")
        self.assertReply(7, "PFCOUNT", "cached")
        self.assertErr(CORRUPT, "PFCOUNT", "cached", "c0")

    def test_pfcount_caches_in_the_value(self):
        self.add("h", elements(0, 1000))
        stale = self.raw.call("GET", "h")
        self.assertEqual(stale[15] & 0x80, 0x80)
        self.assertReply(1008, "PFCOUNT", "h")
        cached = self.raw.call("GET", "h")
        self.assertEqual(cached[8:16], (1008).to_bytes(8, "little"))
        self.assertEqual(cached[16:], stale[16:])
        self.assertReply(1008, "PFCOUNT", "h")
        # A change marks the cache stale and keeps the old count's other bits.
        self.assertReply(1, "PFADD", "h", "new element")
        changed = self.raw.call("GET", "h")
        self.assertEqual(changed[8:16], (1008 | 1 << 63).to_bytes(8, "little"))
        # Several keys: their union, written nowhere.
        self.add("g", elements(500, 1500))
        before = [self.raw.call("GET", k) for k in ("h", "g")]
        self.assertReply(1510, "PFCOUNT", "h", "g", "missing")
        self.assertReply(before, "MGET", "h", "g")
        self.assertReply(0, "PFCOUNT", "missing", "missing2")
        self.assertReply(0, "PFCOUNT", "missing")

    def test_counts_at_sizes(self):
        # (elements, PFCOUNT, PFDEBUG ENCODING) from redis-server 7.0.15
        expected = [(1, 1, "sparse"), (10, 10, "sparse"), (100, 100, "sparse"),
                    (500, 506, "sparse"), (1000, 1008, "sparse"), (1500, 1509, "sparse"),
                    (2000, 2000, "dense"), (5000, 4968, "dense"), (20000, 19901, "dense"),
                    (100000, 100853, "dense"), (200000, 200859, "dense")]
        done = 0
        for n, count, encoding in expected:
            self.add("h", elements(done, n))
            done = n
            self.assertReply(encoding, "PFDEBUG", "ENCODING", "h")
            self.assertReply(count, "PFCOUNT", "h")

    def test_extreme_registers(self):
        # The estimate overflows Redis's rounding for registers all at 50 or more.
        for v in (63, 51, 50):
            self.raw.call("SET", "d%d" % v, dense([v] * REGISTERS))
            self.assertReply(-9223372036854775808, "PFCOUNT", "d%d" % v)
            self.assertReply(header(0, b"\x00" * 7 + b"\x80"), "GETRANGE", "d%d" % v, "0", "15")
        self.raw.call("SET", "m", dense([51] * 8000 + [0] * 8384))
        self.assertReply(12712, "PFCOUNT", "m")
        self.raw.call("SET", "m3", dense([51] * 8000 + [3] * 8384))
        self.assertReply(184766, "PFCOUNT", "m3")
        self.assertReply(-9223372036854775808, "PFCOUNT", "d63", "m")
        self.assertReply(184766, "PFCOUNT", "m", "m3")

    def test_pfmerge(self):
        self.assertReply("OK", "PFMERGE", "empty")
        self.assertReply(EMPTY, "GET", "empty")
        self.assertReply("OK", "PFMERGE", "d", "missing")
        self.assertReply(EMPTY, "GET", "d")
        self.raw.call("PFADD", "abc", "a", "b", "c")
        self.raw.call("PFADD", "x", "x")
        self.assertReply("OK", "PFMERGE", "x", "abc", "missing")
        self.assertReply(4, "PFCOUNT", "x")  # the destination's own registers count
        self.assertReply("sparse", "PFDEBUG", "ENCODING", "x")
        self.add("big", elements(0, 3000))
        self.assertReply("dense", "PFDEBUG", "ENCODING", "big")
        self.assertReply("OK", "PFMERGE", "x", "big")
        self.assertReply("dense", "PFDEBUG", "ENCODING", "x")
        self.assertReply(self.raw.call("PFCOUNT", "abc", "big", "x"), "PFCOUNT", "x")
        self.assertReply("OK", "PFMERGE", "s", "abc")
        self.assertReply("sparse", "PFDEBUG", "ENCODING", "s")
        self.raw.call("PFADD", "t", "a")
        self.raw.call("EXPIRE", "t", "100")
        self.assertReply("OK", "PFMERGE", "t", "big")
        self.assertReply(100, "TTL", "t")

    def test_pfdebug(self):
        self.assertErr("ERR The specified key does not exist", "PFDEBUG", "GETREG", "missing")
        self.assertErr("ERR The specified key does not exist", "PFDEBUG", "BOGUS", "missing")
        self.raw.call("PFADD", "h", "a", "b", "c")
        self.assertErr("ERR Unknown PFDEBUG subcommand 'Bogus'", "PFDEBUG", "Bogus", "h")
        self.assertReply("sparse", "PFDEBUG", "encoding", "h")
        self.assertReply(ABC_DECODED, "PFDEBUG", "Decode", "h")
        registers = self.raw.call("PFDEBUG", "GETREG", "h")  # makes it dense
        self.assertEqual(len(registers), REGISTERS)
        self.assertEqual([(i, v) for i, v in enumerate(registers) if v],
                         [(8436, 1), (12711, 2), (15780, 1)])
        self.assertReply("dense", "PFDEBUG", "ENCODING", "h")
        self.assertErr("ERR HLL encoding is not sparse", "PFDEBUG", "DECODE", "h")
        self.assertReply(0, "PFDEBUG", "TODENSE", "h")
        self.raw.call("PFADD", "g", "a")
        self.assertReply(1, "PFDEBUG", "TODENSE", "g")
        self.assertReply(0, "PFDEBUG", "TODENSE", "g")
        value = self.raw.call("GET", "g")
        self.assertEqual(len(value), DENSE_SIZE)
        self.assertEqual(value[:16], header(0, b"\x00" * 7 + b"\x80"))
        self.assertReply(1, "PFCOUNT", "g")

    def test_pfselftest(self):
        self.assertReply("OK", "PFSELFTEST")

    def test_hll_sparse_max_bytes(self):
        self.assertReply("OK", "CONFIG", "SET", "hll-sparse-max-bytes", "0")
        try:
            self.assertReply(1, "PFADD", "h")
            self.assertReply("sparse", "PFDEBUG", "ENCODING", "h")
            self.assertReply(1, "PFADD", "h", "a")  # the first split grows it past 0 bytes
            self.assertReply("dense", "PFDEBUG", "ENCODING", "h")
            self.assertReply("OK", "CONFIG", "SET", "hll-sparse-max-bytes", "100")
            for i in range(40):
                self.raw.call("PFADD", "s", "e%d" % i)
                encoding = self.raw.call("PFDEBUG", "ENCODING", "s")
                if encoding == "dense":
                    break
                self.assertLessEqual(self.raw.call("STRLEN", "s"), 100)
            self.assertEqual((i, encoding), (28, "dense"))
        finally:
            self.raw.call("CONFIG", "SET", "hll-sparse-max-bytes", "3000")

    def test_commands_make_embstr_values_raw(self):
        self.raw.call("PFADD", "src", "a")
        value = self.raw.call("GET", "src")
        cases = [(["PFADD", "k", "a"], b"raw"), (["PFCOUNT", "k"], b"raw"),
                 (["PFDEBUG", "ENCODING", "k"], b"raw"), (["PFCOUNT", "k", "src"], b"embstr"),
                 (["PFMERGE", "other", "k"], b"embstr"), (["PFMERGE", "k"], b"raw")]
        for command, encoding in cases:
            self.raw.call("SET", "k", value)
            self.assertReply(b"embstr", "OBJECT", "ENCODING", "k")
            self.assertNotIsInstance(self.raw.call(*command), RespError)
            self.assertReply(encoding, "OBJECT", "ENCODING", "k")

    def watched_exec(self, setup, change, key="h"):
        self.raw.call("FLUSHALL")
        for s in setup:
            self.raw.call(*s)
        other = self.raw_client()
        self.assertReply("OK", "WATCH", key)
        other.call(*change)
        self.raw.call("MULTI")
        self.raw.call("PING")
        return self.raw.call("EXEC")

    def test_watch(self):
        a = ["PFADD", "h", "a"]
        cases = [([a], ["PFCOUNT", "h"], None), ([a, ["PFCOUNT", "h"]], ["PFCOUNT", "h"], ["PONG"]),
                 ([a], ["PFCOUNT", "h", "x"], ["PONG"]), ([a], ["PFADD", "h", "a"], ["PONG"]),
                 ([a], ["PFADD", "h", "b"], None), ([a], ["PFMERGE", "h"], None),
                 ([a], ["PFMERGE", "x", "h"], ["PONG"]),
                 ([a], ["PFDEBUG", "TODENSE", "h"], ["PONG"]),
                 ([a], ["PFDEBUG", "GETREG", "h"], ["PONG"])]
        for setup, change, expected in cases:
            self.assertEqual(self.watched_exec(setup, change), expected, change)

    def test_keyspace_events(self):
        events = EventsClient(self.port)
        self._clients.append(events)
        self.assertReply("OK", "CONFIG", "SET", "notify-keyspace-events", "AKEnm")
        try:
            cases = [([], ["PFADD", "h"], ["new h", "pfadd h"]),
                     ([], ["PFADD", "h", "a"], ["new h", "pfadd h"]),
                     ([["PFADD", "h", "a"]], ["PFADD", "h", "b"], ["pfadd h"]),
                     ([["PFADD", "h", "a"]], ["PFADD", "h", "a"], []),
                     ([["PFADD", "h", "a"]], ["PFCOUNT", "h"], []),
                     ([["PFADD", "h", "a"]], ["PFCOUNT", "h", "g"], ["keymiss g"]),
                     ([["PFADD", "h", "a"]], ["PFMERGE", "d", "h"], ["keymiss d", "new d", "pfadd d"]),
                     ([["PFADD", "h", "a"]], ["PFMERGE", "h"], ["pfadd h"]),
                     ([["PFADD", "h", "a"]], ["PFDEBUG", "TODENSE", "h"], []),
                     ([["SET", "h", "x"]], ["PFADD", "h", "a"], [])]
            for setup, command, expected in cases:
                self.raw.call("FLUSHALL")
                for s in setup:
                    self.raw.call(*s)
                events.until_marker(self.raw)
                self.raw.call(*command)
                self.assertEqual(events.events(self.raw), expected, (setup, command))
            self.raw.call("FLUSHALL")
            events.until_marker(self.raw)
            self.raw.call("PFCOUNT", "missing")
            self.assertEqual(events.events(self.raw), ["keymiss missing"])
        finally:
            self.raw.call("CONFIG", "SET", "notify-keyspace-events", "")

    def test_write_pause_holds_pfcount_too(self):
        # PFCOUNT may replicate (its cache), so CLIENT PAUSE WRITE holds it with the writes. The
        # held clients may resume in any order (ordis runs them on two I/O threads), so no held
        # command touches a key another one reads.
        self.raw.call("PFADD", "h", "a")
        self.assertReply("OK", "CLIENT", "PAUSE", "60000", "WRITE")
        try:
            held = []
            for command in (["PFADD", "h2", "b"], ["PFCOUNT", "h"], ["PFCOUNT", "h", "g"],
                            ["PFMERGE", "d", "h"], ["PFDEBUG", "ENCODING", "h"]):
                c = self.raw_client()
                c.send_command(*command)
                held.append(c)
            wait_until(lambda: int(info(self.raw, "clients")["blocked_clients"]) == 5, 5)
            self.assertEqual(int(info(self.raw, "clients")["blocked_clients"]), 5)
            self.assertReply(EMPTY[:8], "GETRANGE", "h", "0", "7")  # reads go on
        finally:
            self.raw.call("CLIENT", "UNPAUSE")
        self.assertEqual([c.read_reply() for c in held], [1, 1, 1, "OK", "sparse"])

    def test_keyspace_hits_and_misses(self):
        def counts():
            stats = info(self.raw, "stats")
            return int(stats["keyspace_hits"]), int(stats["keyspace_misses"])

        self.raw.call("PFADD", "h", "a")
        cases = [(["PFADD", "h", "b"], (0, 0)), (["PFADD", "new", "b"], (0, 0)),
                 (["PFCOUNT", "h"], (1, 0)), (["PFCOUNT", "missing"], (0, 1)),
                 (["PFCOUNT", "h", "missing", "h"], (2, 1)), (["PFMERGE", "d2", "h"], (1, 1)),
                 (["PFMERGE", "d2", "h"], (2, 0)), (["PFDEBUG", "ENCODING", "h"], (0, 0))]
        for command, (hits, misses) in cases:
            before = counts()
            self.raw.call(*command)
            after = counts()
            self.assertEqual((after[0] - before[0], after[1] - before[1]), (hits, misses), command)

    def test_command_info(self):
        expected = {
            "pfadd": [-2, ["write", "denyoom", "fast"], 1, 1, 1, ["@write", "@hyperloglog", "@fast"]],
            "pfcount": [-2, ["readonly"], 1, -1, 1, ["@read", "@hyperloglog", "@slow"]],
            "pfmerge": [-2, ["write", "denyoom"], 1, -1, 1, ["@write", "@hyperloglog", "@slow"]],
            "pfdebug": [3, ["write", "denyoom", "admin"], 2, 2, 1,
                        ["@write", "@hyperloglog", "@admin", "@slow", "@dangerous"]],
            "pfselftest": [1, ["admin"], 0, 0, 0, ["@hyperloglog", "@admin", "@slow", "@dangerous"]],
        }
        for name, want in expected.items():
            reply = self.raw.call("COMMAND", "INFO", name)[0]
            self.assertEqual(reply[0], name.encode())
            got = [reply[1], list(reply[2]), reply[3], reply[4], reply[5], list(reply[6])]
            self.assertEqual(got, want, name)
        self.assertEqual(sorted(self.raw.call("ACL", "CAT", "hyperloglog")),
                         [b"pfadd", b"pfcount", b"pfdebug", b"pfmerge", b"pfselftest"])

    def test_acl_key_permissions(self):
        # PFADD writes its key without reading it (RW INSERT), PFCOUNT and PFDEBUG read theirs,
        # PFMERGE reads and writes its destination and reads its sources.
        for key in ("r1", "w1", "rw1"):
            self.raw.call("PFADD", key, "a")
        self.assertReply("OK", "ACL", "SETUSER", "hll", "on", ">p", "%R~r*", "%W~w*", "~rw*",
                         "+@hyperloglog")
        try:
            u = self.raw_client()
            self.assertReply("OK", "AUTH", "hll", "p", client=u)
            cases = [(["PFADD", "w1", "b"], 1), (["PFADD", "r1", "b"], Err(NOPERM_KEY)),
                     (["PFCOUNT", "r1"], 1), (["PFCOUNT", "w1"], Err(NOPERM_KEY)),
                     (["PFCOUNT", "r1", "rw1"], 1), (["PFMERGE", "rw1", "r1"], "OK"),
                     (["PFMERGE", "w1", "r1"], Err(NOPERM_KEY)),
                     (["PFMERGE", "r1", "r1"], Err(NOPERM_KEY)),
                     (["PFMERGE", "rw1", "w1"], Err(NOPERM_KEY)),
                     (["PFDEBUG", "ENCODING", "r1"], "sparse"),
                     (["PFDEBUG", "ENCODING", "w1"], Err(NOPERM_KEY)), (["PFSELFTEST"], "OK")]
            for command, expected in cases:
                self.assertReply(expected, *command, client=u)
        finally:
            self.raw.call("ACL", "DELUSER", "hll")


class CrossServerTest(CrossServerTestCase):
    """The server under test and a reference redis-server, given the same commands, hold the same
    bytes and answer the same."""

    def setUp(self):
        self.ref = RawClient(self.reference.port)
        self.ours = RawClient(self.server.port)
        for c in (self.ref, self.ours):
            self.assertEqual(c.call("FLUSHALL"), "OK")
            self.assertEqual(c.call("CONFIG", "SET", "hll-sparse-max-bytes", "3000"), "OK")

    def tearDown(self):
        self.ref.close()
        self.ours.close()

    def both(self, *args):
        """Runs the command on both servers and asserts the same reply; returns it."""
        expected = self.ref.call(*args)
        self.assertEqual(self.ours.call(*args), expected, args)
        return expected

    def both_pipeline(self, commands):
        expected = self.ref.pipeline(commands)
        self.assertEqual(self.ours.pipeline(commands), expected)
        return expected

    def same_value(self, key):
        value = self.ref.call("GET", key)
        self.assertEqual(self.ours.call("GET", key), value, key)
        return value

    def test_same_pfadds_same_bytes_and_counts(self):
        sizes = [0, 1, 2, 5, 10, 50, 100, 300, 700, 1000, 1500, 1800, 2000, 3000, 5000, 10000,
                 20000, 50000, 100000, 150000, 200000]
        forms = ["e%d", "%d", "user:%d:session"]
        for form in forms:
            key = "h:" + form
            done = 0
            for n in sizes:
                items = elements(done, n, form)
                self.both_pipeline([["PFADD", key] + items[i:i + 500]
                                    for i in range(0, len(items), 500)])
                done = n
                self.same_value(key)
                self.both("PFCOUNT", key)
                self.same_value(key)
        self.both("PFCOUNT", *["h:" + f for f in forms])

    def test_one_element_at_a_time(self):
        # Each PFADD edits the stored value: sparse growth and shrinking in place, then dense.
        rng = random.Random(7)
        items = [bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 24))) for _ in range(4000)]
        for i, item in enumerate(items):
            self.both("PFADD", "h", item)
            if i % 97 == 0:
                self.same_value("h")
                self.both("PFCOUNT", "h")
        self.same_value("h")
        self.both("PFCOUNT", "h")
        self.both("PFDEBUG", "ENCODING", "h")

    def test_sparse_limits(self):
        for limit in ("0", "30", "200", "1000", "5000", "20000"):
            for c in (self.ref, self.ours):
                self.assertEqual(c.call("CONFIG", "SET", "hll-sparse-max-bytes", limit), "OK")
            key = "h" + limit
            for start in range(0, 6000, 150):
                self.both("PFADD", key, *elements(start, start + 150, limit + ":%d"))
                self.same_value(key)
                self.both("PFDEBUG", "ENCODING", key)
            self.both("PFCOUNT", key)
            self.same_value(key)

    def test_pfmerge_same_bytes(self):
        self.both("PFADD", "a", *elements(0, 300))
        self.both("PFADD", "b", *elements(200, 900))
        self.both("PFADD", "c", *elements(0, 5000, "c%d"))
        self.both("PFADD", "d", *elements(0, 40, "d%d"))
        cases = [["m1", "a", "b"], ["m2", "a", "c"], ["d", "a"], ["m3"], ["m3", "m3"],
                 ["b", "a", "b", "d"], ["m4", "missing", "d"], ["a", "c"]]
        for args in cases:
            self.both("PFMERGE", *args)
            self.same_value(args[0])
            self.both("PFDEBUG", "ENCODING", args[0])
            self.both("PFCOUNT", *args)
            self.both("PFCOUNT", args[0])
            self.same_value(args[0])
        for c in (self.ref, self.ours):
            c.call("CONFIG", "SET", "hll-sparse-max-bytes", "300")
        self.both("PFMERGE", "small", "d", "b")  # past the limit part way: turns dense
        self.same_value("small")

    def test_dump_restore_both_ways(self):
        self.ref.call("PFADD", "sparse", *elements(0, 50))
        self.ref.call("PFADD", "counted", *elements(0, 800))
        self.ref.call("PFCOUNT", "counted")
        self.ref.call("PFADD", "dense", *elements(0, 30000))
        self.ref.call("PFADD", "empty")
        for key in ("sparse", "counted", "dense", "empty"):
            payload = self.ref.call("DUMP", key)
            self.assertEqual(self.ours.call("RESTORE", key, "0", payload), "OK")
            self.same_value(key)
            self.both("PFCOUNT", key)
            self.both("PFADD", key, *elements(0, 100, "more%d"))
            self.same_value(key)
            self.both("PFCOUNT", key)
            # And back: ordis's payload restores on Redis to the same value.
            payload = self.ours.call("DUMP", key)
            self.assertEqual(self.ref.call("RESTORE", key + ":back", "0", payload), "OK")
            self.assertEqual(self.ref.call("GET", key + ":back"), self.ours.call("GET", key))
            self.assertEqual(self.ref.call("PFCOUNT", key + ":back"), self.ours.call("PFCOUNT", key))

    def test_odd_values_answer_the_same(self):
        values = [SHORT, PAST, NO_OPCODES, VAL_PAST, CUT_XZERO, EMPTY, ABC,
                  header(1) + b"\x3f\x3f\x3f\x3e\x7f",  # 255 zeros and a cut XZERO: 16384
                  header(1) + b"\x80" * 16384,  # VAL:1,1 all along
                  header(1, b"\x05" + b"\x00" * 7) + b"\x7f\xff",  # a valid cache of 5
                  dense([v % 64 for v in range(REGISTERS)]),
                  dense([33] * REGISTERS),
                  dense([0] * REGISTERS, b"\xff" * 8)]
        rng = random.Random(3)
        for _ in range(30):
            body = bytes(rng.choice([0x00, 0x3f, 0x40, 0x7f, 0x80, 0xff, rng.getrandbits(8)])
                         for _ in range(rng.randrange(0, 40)))
            values.append(header(1) + body)
        for i, value in enumerate(values):
            key = "v%d" % i
            for c in (self.ref, self.ours):
                c.call("SET", key, value)
                c.call("PFADD", "fine", "a", "b")
            self.both("PFCOUNT", key)
            self.both("PFCOUNT", key, "fine")
            self.both("PFMERGE", "dest%d" % i, key, "fine")
            self.same_value("dest%d" % i)
            self.both("PFDEBUG", "DECODE", key)
            self.both("PFDEBUG", "ENCODING", key)
            if not ends_in_cut_xzero(value):
                for element in ("a", "b", "c", "hello", "x" * 50):
                    self.both("PFADD", key, element)
                    self.same_value(key)
            self.both("PFCOUNT", key)
            self.both("PFDEBUG", "GETREG", key)
            self.same_value(key)


if __name__ == "__main__":
    unittest.main()
