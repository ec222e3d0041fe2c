"""Sorted sets, second set: every basic command on both of Redis's forms (a small listpack and a large
skiplist, by size or by a member longer than 64 bytes), OBJECT ENCODING transitions, binary members in
the large form, sorted-set keys in the keyspace (TYPE DEL UNLINK EXISTS PEXPIRE RENAME COPY MOVE
MEMORY USAGE SCAN TYPE), WRONGTYPE for every sorted-set command both ways, MULTI/EXEC and WATCH, and
redis-cli. test_zsets_basic has the small-set option and score-parsing cases; test_zset_ranges the
score and lex ranges, ZRANGESTORE, ZRANDMEMBER and ZSCAN; test_zset_algebra the union, intersection
and difference commands; test_zset_model the randomized differential and the concurrency tests."""

import subprocess
import unittest

from harness import IS_ORDIS, REDIS_CLI, RespError, ServerTestCase, wait_until
from zsetmodel import ZModel, fmt_score

WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
NOT_FLOAT = "ERR value is not a valid float"

# (name, member count, member padding, expected OBJECT ENCODING)
FORMS = (("listpack", 8, 0, b"listpack"),
         ("skiplist by size", 300, 0, b"skiplist"),
         ("skiplist by member length", 10, 70, b"skiplist"))


def member(i, pad=0):
    return b"m%03d" % i + b"x" * pad


class FormCase(ServerTestCase):
    def fill(self, key, n, pad, client=None):
        """Adds n members with scrambled, partly tied, partly fractional scores; returns the model."""
        model = ZModel()
        args = []
        for i in range(n):
            s = float((i * 37) % n // 2) + (0.5 if i % 4 == 1 else 0.0)
            args += [fmt_score(s), member(i, pad)]
            model.d[member(i, pad)] = s
        self.assertReply(n, "ZADD", key, *args, client=client)
        return model

    def each_form(self, body):
        """Calls body(n, pad, encoding, model of key "z") for each form, on a flushed server."""
        for name, n, pad, encoding in FORMS:
            with self.subTest(form=name):
                self.assertReply("OK", "FLUSHALL")
                body(n, pad, encoding, self.fill("z", n, pad))

    def assertSame(self, model, key="z"):
        self.assertReply(len(model), "ZCARD", key)
        self.assertReply(model.zrange(0, -1, withscores=True), "ZRANGE", key, "0", "-1",
                         "WITHSCORES")


class FormsTest(FormCase):
    def test_reads(self):
        def body(n, pad, encoding, model):
            self.assertReply(encoding, "OBJECT", "ENCODING", "z")
            self.assertSame(model)
            members = [m for m, _ in model.ordered()]
            self.assertEqual(self.raw.pipeline([("ZSCORE", "z", m) for m in members]),
                             [model.zscore(m) for m in members])
            self.assertEqual(self.raw.pipeline([("ZRANK", "z", m) for m in members]),
                             list(range(n)))
            self.assertEqual(self.raw.pipeline([("ZREVRANK", "z", m) for m in members]),
                             list(range(n - 1, -1, -1)))
            probe = members[::2] + [b"nope", member(0, pad + 1), member(0, pad)[:-1]]
            self.assertReply(model.zmscore(probe), "ZMSCORE", "z", *probe)
            self.assertReply(None, "ZSCORE", "z", member(0, pad + 1))
            self.assertReply(None, "ZRANK", "z", member(n, pad))
            for start, stop in ((0, 0), (1, 3), (-3, -1), (n // 2, n // 2 + 7), (-n - 5, 2),
                                (n - 2, n + 10), (3, 2), (n, n + 1), (-1, -n)):
                for rev in (False, True):
                    args = ["ZRANGE", "z", str(start), str(stop)] + (["REV"] if rev else [])
                    self.assertReply(model.zrange(start, stop, rev), *args)
                    self.assertReply(model.zrange(start, stop, rev, True), *args, "WITHSCORES")
                self.assertReply(model.zrange(start, stop, True), "ZREVRANGE", "z", str(start),
                                 str(stop))
        self.each_form(body)

    def test_zadd_options_on_existing_members(self):
        def body(n, pad, encoding, model):
            first, mid, last = member(0, pad), member(n // 2, pad), member(n - 1, pad)
            new = member(n + 1, pad)
            cases = (
                (dict(), [(-5.0, mid), (1e9, first), (7.25, new)]),
                (dict(nx=True), [(100.0, mid), (2.0, member(n + 2, pad))]),
                (dict(xx=True, ch=True), [(0.5, last), (3.0, member(n + 3, pad)), (1e9, first)]),
                (dict(gt=True, ch=True), [(-100.0, mid), (1e10, last), (1.0, member(n + 4, pad))]),
                (dict(lt=True), [(-1e10, first), (1e11, last)]),
                (dict(ch=True), [(1e9 + 1, first), (1e9 + 1, first)]),
                (dict(incr=True), [(2.5, mid)]),
                (dict(incr=True, xx=True), [(1.0, member(n + 9, pad))]),
                (dict(incr=True, nx=True), [(1.0, mid)]),
                (dict(incr=True, gt=True), [(-1.0, mid)]),
                (dict(incr=True, lt=True), [(-1.0, mid)]),
            )
            for flags, pairs in cases:
                args = ["ZADD", "z"] + [f.upper() for f in flags]
                for s, m in pairs:
                    args += [fmt_score(s), m]
                self.assertReply(model.zadd(pairs, **flags), *args)
                self.assertSame(model)
            self.assertReply(encoding, "OBJECT", "ENCODING", "z")
        self.each_form(body)

    def test_zincrby_moves_members(self):
        def body(n, pad, encoding, model):
            m0, m1 = member(1, pad), member(n - 2, pad)
            for incr, m in ((1e6, m0), (-1e6, m1), (0.0, m0), (0.1, m0), (-1e6 - 0.1, m0),
                            (3.0, member(n + 5, pad)), (float("inf"), m1), (float("inf"), m1)):
                self.assertReply(model.zincrby(incr, m), "ZINCRBY", "z", fmt_score(incr), m)
                self.assertReply(model.zrank(m), "ZRANK", "z", m)
                self.assertReply(model.zrank(m, rev=True), "ZREVRANK", "z", m)
            self.assertErr("ERR resulting score is not a number (NaN)", "ZINCRBY", "z", "-inf", m1)
            self.assertErr(NOT_FLOAT, "ZINCRBY", "z", "nan", m1)
            self.assertReply(b"inf", "ZSCORE", "z", m1)
            self.assertSame(model)
        self.each_form(body)

    def test_zrem_and_pop(self):
        def body(n, pad, encoding, model):
            victims = [m for m, _ in model.ordered()][1::3] + [b"nope"]
            self.assertReply(model.zrem(victims), "ZREM", "z", *victims)
            self.assertSame(model)
            self.assertReply(model.pop(False), "ZPOPMIN", "z")
            self.assertReply(model.pop(True), "ZPOPMAX", "z")
            self.assertReply(model.pop(False, 2), "ZPOPMIN", "z", "2")
            self.assertSame(model)
            self.assertReply(encoding, "OBJECT", "ENCODING", "z")
            self.assertReply(model.pop(True, 1), "ZPOPMAX", "z", "1")
            half = len(model) // 2
            self.assertReply(model.pop(True, half), "ZPOPMAX", "z", str(half))
            self.assertReply(model.pop(False, len(model) + 10), "ZPOPMIN", "z", str(n + 10))
            self.assertReply(0, "EXISTS", "z")
            self.assertReply([], "ZPOPMIN", "z")
        self.each_form(body)


class EncodingTest(ServerTestCase):
    def add_n(self, key, n, start=0):
        args = []
        for i in range(start, start + n):
            args += [str(i), "m%d" % i]
        self.assertReply(n, "ZADD", key, *args)

    def assertEncoding(self, expected, key):
        self.assertReply(expected, "OBJECT", "ENCODING", key)

    def test_each_write_converts_at_129_members(self):
        for i, cmd in enumerate((["ZADD", "k0", "1", "new"], ["ZINCRBY", "k1", "1", "new"],
                                 ["ZADD", "k2", "INCR", "1", "new"], ["ZADD", "k3", "NX", "1", "new"],
                                 ["ZADD", "k4", "GT", "CH", "1", "new"])):
            key = "k%d" % i
            self.add_n(key, 128)
            self.assertEncoding(b"listpack", key)
            self.raw.call("ZADD", key, "XX", "5", "m1")  # an update does not convert
            self.assertEncoding(b"listpack", key)
            self.assertIsNotNone(self.raw.call(*cmd))
            self.assertEncoding(b"skiplist", key)
            self.assertReply(129, "ZCARD", key)

    def test_each_write_converts_on_a_65_byte_member(self):
        for i, cmd in enumerate((["ZADD", "k0", "1", "y" * 65], ["ZINCRBY", "k1", "1", "y" * 65],
                                 ["ZADD", "k2", "INCR", "1", "y" * 65])):
            key = "k%d" % i
            self.add_n(key, 3)
            self.raw.call("ZADD", key, "2", "y" * 64)
            self.assertEncoding(b"listpack", key)
            self.raw.call(*cmd)
            self.assertEncoding(b"skiplist", key)
            self.assertReply([b"m0", b"m1", b"y" * 65, b"m2", b"y" * 64], "ZRANGE", key, "0", "-1")

    def test_shrinking_keeps_the_skiplist(self):
        self.add_n("z", 200)
        self.assertReply(195, "ZREMRANGEBYRANK", "z", "5", "-1")
        self.assertEncoding(b"skiplist", "z")
        self.assertReply([b"m0", b"0"], "ZPOPMIN", "z")
        self.assertEncoding(b"skiplist", "z")
        self.assertReply([b"m1", b"m2", b"m3", b"m4"], "ZRANGE", "z", "0", "-1")
        self.assertReply(4, "ZREM", "z", "m1", "m2", "m3", "m4")
        self.add_n("z", 3)  # deleted when emptied: created afresh, small
        self.assertEncoding(b"listpack", "z")

    def test_store_commands_choose_by_result(self):
        self.add_n("big", 200)
        self.add_n("small", 3)
        self.raw.call("ZADD", "long", "1", "y" * 65)
        for cmd, n, encoding in ((["ZRANGESTORE", "d", "big", "0", "127"], 128, b"listpack"),
                                 (["ZRANGESTORE", "d", "big", "0", "128"], 129, b"skiplist"),
                                 (["ZRANGESTORE", "d", "big", "0", "4"], 5, b"listpack"),
                                 (["ZUNIONSTORE", "d", "1", "big"], 200, b"skiplist"),
                                 (["ZUNIONSTORE", "d", "2", "small", "long"], 4, b"skiplist"),
                                 (["ZINTERSTORE", "d", "2", "big", "small"], 3, b"listpack"),
                                 (["ZDIFFSTORE", "d", "2", "big", "small"], 197, b"skiplist"),
                                 (["ZRANGESTORE", "d", "long", "0", "-1"], 1, b"skiplist")):
            self.assertReply(n, *cmd)
            self.assertEncoding(encoding, "d")
            self.assertReply(n, "ZCARD", "d")

    def test_encoding_of_big_value_reads(self):
        self.add_n("z", 1000)
        self.assertReply([b"m500", b"500", b"m501", b"501"], "ZRANGE", "z", "500", "501",
                         "WITHSCORES")
        self.assertReply(b"999", "ZSCORE", "z", "m999")
        self.assertReply(999, "ZREVRANK", "z", "m0")


class BinaryTest(ServerTestCase):
    MEMBERS = [b"", b"\x00", b"\x00\x00", b"a\x00b", b"\xff", b"\xff\xfe\x00\x01", b"\r\n",
               b"*1\r\n$1\r\nx\r\n", bytes(range(256)), bytes(range(255, -1, -1)), b" ", b"a b"]

    def test_binary_members_both_forms(self):
        for extra in (0, 200):  # plus 200 plain members: the large form
            with self.subTest(extra=extra):
                self.assertReply("OK", "FLUSHALL")
                members = self.MEMBERS + [b"p%03d" % i for i in range(extra)]
                args = []
                for m in members:
                    args += ["0", m]
                self.assertReply(len(members), "ZADD", "z", *args)
                self.assertReply(b"skiplist", "OBJECT", "ENCODING", "z")  # bytes(range(256))
                want = sorted(members)
                self.assertReply(want, "ZRANGE", "z", "0", "-1")
                self.assertReply(want, "ZRANGEBYLEX", "z", "-", "+")
                self.assertReply([b"", b"\x00"], "ZRANGEBYLEX", "z", "-", b"[\x00")
                self.assertReply([b"\x00\x00", bytes(range(256)), b"\r\n"], "ZRANGEBYLEX", "z",
                                 b"(\x00", b"(\x20")
                self.assertReply([m for m in want if m >= b"\xff"], "ZRANGEBYLEX", "z", b"[\xff",
                                 "+")
                for m in self.MEMBERS:
                    self.assertReply(want.index(m), "ZRANK", "z", m)
                    self.assertReply(b"0", "ZSCORE", "z", m)
                for m in self.MEMBERS:
                    self.assertReply(b"1", "ZINCRBY", "z", "1", m)
                self.assertReply(sorted(self.MEMBERS), "ZRANGEBYSCORE", "z", "1", "1")
                self.assertReply(len(self.MEMBERS), "ZREM", "z", *self.MEMBERS)
                self.assertReply(extra, "ZCARD", "z")

    def test_binary_keys(self):
        self.assertReply(1, "ZADD", b"k\x00\xff", "1", b"\x00")
        self.assertReply([b"\x00", b"1"], "ZRANGE", b"k\x00\xff", "0", "-1", "WITHSCORES")
        self.assertReply(1, "ZUNIONSTORE", b"d\x00", "1", b"k\x00\xff")
        self.assertReply([b"\x00"], "ZRANGE", b"d\x00", "0", "-1")


class KeyspaceTest(FormCase):
    def test_type_exists_del_unlink(self):
        def body(n, pad, encoding, model):
            self.fill("y", n, pad)
            self.assertReply("zset", "TYPE", "z")
            self.assertReply(2, "EXISTS", "z", "y")
            self.assertReply(1, "DEL", "z")
            self.assertReply(1, "UNLINK", "y")
            self.assertReply(0, "EXISTS", "z", "y")
            self.assertReply("none", "TYPE", "z")
            self.assertReply(0, "ZCARD", "y")
            self.assertReply([], "ZRANGE", "z", "0", "-1")
        self.each_form(body)

    def test_pexpire_then_gone(self):
        def body(n, pad, encoding, model):
            self.assertReply(1, "PEXPIRE", "z", "400")
            ttl = self.raw.call("PTTL", "z")
            self.assertTrue(0 < ttl <= 400, ttl)
            self.assertTrue(wait_until(lambda: self.raw.call("EXISTS", "z") == 0, 10.0),
                            "the sorted set did not expire")
            self.assertReply(0, "ZCARD", "z")
            self.assertReply(None, "ZSCORE", "z", member(0, pad))
            self.assertReply(1, "ZADD", "z", "1", "a")  # created afresh, without a TTL
            self.assertReply(-1, "TTL", "z")
        self.each_form(body)

    def test_ttl_kept_by_writes_and_dropped_by_stores(self):
        self.assertReply(2, "ZADD", "z", "1", "a", "2", "b")
        self.assertReply(1, "EXPIRE", "z", "100")
        for cmd in (["ZADD", "z", "3", "c"], ["ZINCRBY", "z", "1", "a"], ["ZREM", "z", "c"],
                    ["ZPOPMIN", "z"], ["ZREMRANGEBYSCORE", "z", "100", "200"]):
            self.raw.call(*cmd)
            self.assertReply(100, "TTL", "z")
        self.assertReply(1, "ZADD", "src", "1", "x")
        self.assertReply(1, "ZUNIONSTORE", "z", "1", "src")  # the destination is replaced
        self.assertReply(-1, "TTL", "z")
        self.assertReply(1, "EXPIRE", "z", "100")
        self.assertReply(1, "ZREM", "z", "x")  # emptied: deleted, TTL with it
        self.assertReply(1, "ZADD", "z", "1", "x")
        self.assertReply(-1, "TTL", "z")

    def test_rename(self):
        def body(n, pad, encoding, model):
            self.assertReply(1, "EXPIRE", "z", "100")
            self.assertReply("OK", "RENAME", "z", "r")
            self.assertReply(0, "EXISTS", "z")
            self.assertReply(100, "TTL", "r")
            self.assertSame(model, "r")
            self.assertReply(encoding, "OBJECT", "ENCODING", "r")
            self.assertReply("OK", "SET", "s", "x")
            self.assertReply(0, "RENAMENX", "r", "s")
            self.assertReply("OK", "RENAME", "r", "s")  # replaces the string
            self.assertReply("zset", "TYPE", "s")
        self.each_form(body)

    def test_copy_is_independent(self):
        def body(n, pad, encoding, model):
            self.assertReply(1, "COPY", "z", "c")
            self.assertReply(0, "COPY", "z", "c")
            self.assertSame(model, "c")
            self.assertReply(encoding, "OBJECT", "ENCODING", "c")
            self.assertReply(1, "ZADD", "c", "-1", "only-in-copy")
            self.assertReply(1, "ZREM", "c", member(0, pad))
            self.assertSame(model, "z")
            self.assertReply(None, "ZSCORE", "z", "only-in-copy")
            self.assertReply(1, "COPY", "z", "c", "REPLACE")
            self.assertSame(model, "c")
            self.assertReply(1, "COPY", "z", "c", "DB", "2")
            self.assertReply("OK", "SELECT", "2")
            self.assertSame(model, "c")
            self.assertReply("OK", "SELECT", "0")
        self.each_form(body)

    def test_move(self):
        def body(n, pad, encoding, model):
            self.assertReply(1, "MOVE", "z", "1")
            self.assertReply(0, "EXISTS", "z")
            self.assertReply("OK", "SELECT", "1")
            self.assertSame(model)
            self.assertReply(1, "ZADD", "back", "1", "x")
            self.assertReply("OK", "SELECT", "0")
            self.assertReply(1, "ZADD", "back", "2", "y")
            self.assertReply(0, "MOVE", "back", "1")  # the target exists
            self.assertReply([b"y"], "ZRANGE", "back", "0", "-1")
        self.each_form(body)

    def test_memory_usage_grows(self):
        self.assertReply(1, "ZADD", "z", "1", "a")
        small = self.raw.call("MEMORY", "USAGE", "z")
        self.assertIsInstance(small, int)
        self.assertGreater(small, 0)
        args = []
        for i in range(2000):
            args += [str(i), "member-%d" % i]
        self.assertReply(2000, "ZADD", "z", *args)
        big = self.raw.call("MEMORY", "USAGE", "z")
        self.assertIsInstance(big, int)
        self.assertGreater(big, small + 2000 * 8)
        self.assertReply(None, "MEMORY", "USAGE", "nokey")

    def test_scan_type_zset(self):
        zsets = {b"z%d" % i for i in range(30)}
        for k in zsets:
            self.assertReply(1, "ZADD", k, "1", "m")
        for i in range(30):
            self.raw.call("SET", "s%d" % i, "v")
            self.raw.call("SADD", "set%d" % i, "m")
            self.raw.call("HSET", "h%d" % i, "f", "v")
        found, cursor = [], b"0"
        for _ in range(1000):
            cursor, keys = self.raw.call("SCAN", cursor, "TYPE", "zset", "COUNT", "7")
            found += keys
            if cursor == b"0":
                break
        self.assertEqual(cursor, b"0")
        self.assertEqual(set(found), zsets)
        self.assertReply(120, "DBSIZE")


@unittest.skipUnless(IS_ORDIS, "KRANGE and KCOUNT are ordis's")
class OrderedKeysTest(ServerTestCase):
    def test_krange_lists_a_sorted_set_key_once(self):
        self.assertReply(1, "ZADD", "a", "1", "m")
        args = []
        for i in range(300):  # the large form
            args += [str(i), "m%d" % i]
        self.assertReply(300, "ZADD", "b", *args)
        self.assertReply("OK", "SET", "c", "v")
        self.assertReply([b"a", b"b", b"c"], "KRANGE", "-", "+")
        self.assertReply(3, "KCOUNT", "-", "+")
        self.assertReply([b"b"], "KRANGE", "(a", "(c")


class WrongTypeTest(ServerTestCase):
    ZSET_COMMANDS = (
        ["ZADD", "k", "1", "a"], ["ZINCRBY", "k", "1", "a"], ["ZREM", "k", "a"], ["ZCARD", "k"],
        ["ZSCORE", "k", "a"], ["ZMSCORE", "k", "a"], ["ZRANK", "k", "a"], ["ZREVRANK", "k", "a"],
        ["ZCOUNT", "k", "-inf", "+inf"], ["ZLEXCOUNT", "k", "-", "+"], ["ZRANGE", "k", "0", "-1"],
        ["ZRANGE", "k", "0", "1", "BYSCORE"], ["ZRANGE", "k", "-", "+", "BYLEX"],
        ["ZRANGEBYSCORE", "k", "0", "1"], ["ZREVRANGEBYSCORE", "k", "1", "0"],
        ["ZRANGEBYLEX", "k", "-", "+"], ["ZREVRANGEBYLEX", "k", "+", "-"],
        ["ZREVRANGE", "k", "0", "-1"], ["ZREMRANGEBYLEX", "k", "-", "+"],
        ["ZREMRANGEBYSCORE", "k", "0", "1"], ["ZREMRANGEBYRANK", "k", "0", "1"],
        ["ZPOPMIN", "k"], ["ZPOPMAX", "k", "2"], ["ZRANDMEMBER", "k"], ["ZRANDMEMBER", "k", "2"],
        ["ZRANGESTORE", "d", "k", "0", "-1"], ["ZUNIONSTORE", "d", "1", "k"],
        ["ZINTERSTORE", "d", "2", "nokey", "k"], ["ZDIFFSTORE", "d", "2", "nokey", "k"],
        ["ZUNION", "1", "k"], ["ZINTER", "2", "nokey", "k"], ["ZDIFF", "2", "nokey", "k"],
        ["ZINTERCARD", "2", "nokey", "k"], ["ZSCAN", "k", "0"])

    def test_zset_commands_on_other_types(self):
        for setup in (["SET", "k", "str"], ["RPUSH", "k", "a"], ["HSET", "k", "a", "1"]):
            self.assertReply("OK", "FLUSHALL")
            self.raw.call(*setup)
            self.assertReply(1, "ZADD", "d", "1", "keep")
            for cmd in self.ZSET_COMMANDS:
                self.assertErr(WRONGTYPE, *cmd)
            self.assertReply([b"keep"], "ZRANGE", "d", "0", "-1")  # no store touched d

    def test_other_commands_on_a_zset(self):
        self.assertReply(1, "ZADD", "k", "1", "a")
        for cmd in (["GET", "k"], ["SET", "k", "x", "XX", "GET"], ["GETSET", "k", "x"],
                    ["GETDEL", "k"], ["STRLEN", "k"], ["GETRANGE", "k", "0", "1"],
                    ["SETRANGE", "k", "0", "x"], ["INCRBYFLOAT", "k", "1"], ["DECR", "k"],
                    ["LPUSH", "k", "x"], ["LRANGE", "k", "0", "-1"], ["LLEN", "k"],
                    ["HSET", "k", "f", "v"], ["HGETALL", "k"], ["SISMEMBER", "k", "a"],
                    ["SINTER", "k"], ["SUNIONSTORE", "d", "k"], ["SINTERCARD", "1", "k"]):
            self.assertErr(WRONGTYPE, *cmd)
        self.assertReply([None], "MGET", "k")
        self.assertReply([b"a", b"1"], "ZRANGE", "k", "0", "-1", "WITHSCORES")


class TransactionTest(ServerTestCase):
    def test_multi_exec(self):
        self.assertReply(1, "ZADD", "src", "5", "x")
        self.assertReply("OK", "MULTI")
        for cmd in (["ZADD", "z", "1", "a", "2", "b"], ["ZINCRBY", "z", "2", "a"],
                    ["ZADD", "z", "x", "c"], ["ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES"],
                    ["ZUNIONSTORE", "u", "2", "z", "src"], ["ZPOPMIN", "z"], ["ZCARD", "z"],
                    ["ZRANGE", "u", "0", "-1", "REV"], ["SET", "z", "s"], ["ZCARD", "z"]):
            self.assertReply("QUEUED", *cmd)
        self.assertReply([2, b"3", RespError(NOT_FLOAT), [b"b", b"2", b"a", b"3"], 3,
                          [b"b", b"2"], 1, [b"x", b"a", b"b"], "OK", RespError(WRONGTYPE)],
                         "EXEC")

    def test_queue_time_error_aborts(self):
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "ZADD", "z", "1", "a")
        self.assertErr("ERR wrong number of arguments for 'zrangebyscore' command",
                       "ZRANGEBYSCORE", "z", "0")
        self.assertErr("EXECABORT Transaction discarded because of previous errors.", "EXEC")
        self.assertReply(0, "EXISTS", "z")

    def watch_then(self, setup, *cmd):
        self.assertReply("OK", "FLUSHALL")
        for s in setup:
            self.raw.call(*s)
        self.assertReply("OK", "WATCH", "w")
        reply = self.raw_client().call(*cmd)
        self.assertNotIsInstance(reply, RespError, cmd)
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "PING")
        return self.raw.call("EXEC") is not None

    def test_watch(self):
        z = [["ZADD", "w", "1", "a", "2", "b", "3", "c"], ["ZADD", "src", "1", "x"]]
        for cmd in (["ZREMRANGEBYSCORE", "w", "2", "2"], ["ZREMRANGEBYRANK", "w", "0", "0"],
                    ["ZREMRANGEBYLEX", "w", "-", "+"], ["ZUNIONSTORE", "w", "1", "src"],
                    ["ZRANGESTORE", "w", "src", "0", "-1"], ["ZINTERSTORE", "w", "1", "nokey"],
                    ["ZDIFFSTORE", "w", "1", "w"]):
            self.assertFalse(self.watch_then(z, *cmd), cmd)
        for cmd in (["ZREMRANGEBYSCORE", "w", "5", "9"], ["ZREMRANGEBYRANK", "w", "5", "9"],
                    ["ZRANGESTORE", "other", "w", "0", "-1"], ["ZUNIONSTORE", "other", "1", "w"],
                    ["ZINTERCARD", "1", "w"], ["ZCOUNT", "w", "0", "5"]):
            self.assertTrue(self.watch_then(z, *cmd), cmd)
        # An empty result for a destination that does not exist changes nothing.
        self.assertTrue(self.watch_then([], "ZINTERSTORE", "w", "1", "nokey"))


class RedisCliTest(ServerTestCase):
    def cli(self, *args):
        r = subprocess.run([REDIS_CLI, "-p", str(self.port)] + list(args), capture_output=True,
                           timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_zset_commands(self):
        self.assertEqual(self.cli("zadd", "z", "1", "a", "2.5", "b", "3", "c"), b"3\n")
        self.assertEqual(self.cli("zrange", "z", "0", "-1", "withscores"),
                         b"a\n1\nb\n2.5\nc\n3\n")
        self.assertEqual(self.cli("zincrby", "z", "0.1", "a"), b"1.1000000000000001\n")
        self.assertEqual(self.cli("zrangebyscore", "z", "(1.1", "+inf", "WITHSCORES"),
                         b"b\n2.5\nc\n3\n")
        self.assertEqual(self.cli("zscore", "z", "nope"), b"\n")
        self.assertEqual(self.cli("zadd", "lex", "0", "apple", "0", "banana", "0", "cherry",
                                  "0", "date"), b"4\n")
        self.assertEqual(self.cli("zrangebylex", "lex", "[b", "(d"), b"banana\ncherry\n")
        self.assertEqual(self.cli("zrevrangebylex", "lex", "+", "-", "LIMIT", "0", "2"),
                         b"date\ncherry\n")
        self.assertEqual(self.cli("zlexcount", "lex", "-", "+"), b"4\n")
        self.assertEqual(self.cli("zrangebylex", "lex", "b", "d"),
                         b"ERR min or max not valid string range item\n\n")
        self.assertEqual(self.cli("zunionstore", "u", "2", "z", "lex", "WEIGHTS", "2", "1"),
                         b"7\n")
        self.assertEqual(self.cli("zrange", "u", "0", "2", "withscores"),
                         b"apple\n0\nbanana\n0\ncherry\n0\n")
        self.assertEqual(self.cli("zpopmax", "u"), b"c\n6\n")


if __name__ == "__main__":
    unittest.main()
