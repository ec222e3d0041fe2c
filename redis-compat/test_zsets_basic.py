"""Sorted-set commands, first set: ZADD (NX XX GT LT CH INCR) ZINCRBY ZREM ZCARD ZSCORE ZMSCORE ZPOPMIN
ZPOPMAX ZRANGE by index (REV, WITHSCORES) ZREVRANGE ZRANK ZREVRANK; score parsing and printing, RESP3
doubles and pairs, binary members, emptied keys, OBJECT ENCODING, WATCH, WRONGTYPE both ways,
redis-benchmark. (BYSCORE, BYLEX and the store and algebra commands belong to a later module.)"""

import random
import re
import subprocess
import unittest

from harness import REDIS_BENCHMARK, ServerTestCase

NOT_INT = "ERR value is not an integer or out of range"
NOT_FLOAT = "ERR value is not a valid float"
NOT_POSITIVE = "ERR value is out of range, must be positive"
SYNTAX = "ERR syntax error"
NAN = "ERR resulting score is not a number (NaN)"
XX_NX = "ERR XX and NX options at the same time are not compatible"
GT_LT_NX = "ERR GT, LT, and/or NX options at the same time are not compatible"
INCR_PAIR = "ERR INCR option supports a single increment-element pair"
LIMIT_RANK = ("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
              "BYLEX")
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
BINARY = [b"", b"\x00", b"a\x00b", b"\xff\xfe\x00\x01", b"\r\n", b"$3\r\nfoo\r\n", bytes(range(256))]


def arity(cmd):
    return "ERR wrong number of arguments for '%s' command" % cmd


class ZAddTest(ServerTestCase):
    def test_add_and_update(self):
        self.assertReply(3, "ZADD", "z", "1", "a", "2", "b", "3", "c")
        self.assertReply(1, "ZADD", "z", "10", "a", "4", "d")  # updates are not counted
        self.assertReply(0, "ZADD", "z", "10", "a")
        self.assertReply(4, "ZCARD", "z")
        self.assertReply(b"10", "ZSCORE", "z", "a")
        self.assertReply("zset", "TYPE", "z")
        self.assertReply(1, "ZADD", "z", "5", "e", "6", "e")  # the last score of a repeat wins
        self.assertReply(b"6", "ZSCORE", "z", "e")
        self.assertReply([b"b", b"c", b"d", b"e", b"a"], "ZRANGE", "z", "0", "-1")

    def test_nx_xx(self):
        self.assertReply(1, "ZADD", "z", "1", "a")
        self.assertReply(1, "ZADD", "z", "NX", "5", "a", "2", "b")
        self.assertReply(b"1", "ZSCORE", "z", "a")
        self.assertReply(0, "ZADD", "z", "XX", "5", "a", "3", "c")
        self.assertReply(b"5", "ZSCORE", "z", "a")
        self.assertReply(None, "ZSCORE", "z", "c")
        self.assertReply(0, "ZADD", "nokey", "XX", "1", "a")
        self.assertReply(0, "EXISTS", "nokey")  # XX never creates the key

    def test_gt_lt(self):
        self.assertReply(2, "ZADD", "z", "5", "a", "5", "b")
        self.assertReply(1, "ZADD", "z", "GT", "4", "a", "6", "b", "1", "new")  # GT still adds
        self.assertReply([b"new", b"1", b"a", b"5", b"b", b"6"], "ZRANGE", "z", "0", "-1",
                         "WITHSCORES")
        self.assertReply(0, "ZADD", "z", "LT", "7", "a", "2", "b")
        self.assertReply([b"new", b"1", b"b", b"2", b"a", b"5"], "ZRANGE", "z", "0", "-1",
                         "WITHSCORES")
        self.assertReply(0, "ZADD", "z", "XX", "GT", "9", "a", "9", "missing")
        self.assertReply(b"9", "ZSCORE", "z", "a")
        self.assertReply(None, "ZSCORE", "z", "missing")

    def test_ch(self):
        self.assertReply(2, "ZADD", "z", "1", "a", "2", "b")
        self.assertReply(2, "ZADD", "z", "CH", "1", "a", "3", "b", "4", "c")  # b changed, c added
        self.assertReply(1, "ZADD", "z", "ch", "XX", "5", "a", "3", "b", "7", "d")
        self.assertReply(0, "ZADD", "z", "CH", "NX", "9", "a")
        self.assertReply(1, "ZADD", "z", "CH", "GT", "1", "a", "9", "b")

    def test_incr(self):
        self.assertReply(b"1.5", "ZADD", "z", "INCR", "1.5", "a")
        self.assertReply(b"4", "ZADD", "z", "INCR", "2.5", "a")
        self.assertReply(None, "ZADD", "z", "NX", "INCR", "1", "a")  # nothing done: nil
        self.assertReply(b"1", "ZADD", "z", "NX", "INCR", "1", "b")
        self.assertReply(None, "ZADD", "z", "XX", "INCR", "1", "c")
        self.assertReply(b"3", "ZADD", "z", "XX", "INCR", "-1", "a")
        self.assertReply(None, "ZADD", "z", "GT", "INCR", "-1", "a")
        self.assertReply(None, "ZADD", "z", "GT", "INCR", "0", "a")  # equal is not greater
        self.assertReply(b"3", "ZADD", "z", "INCR", "0", "a")
        self.assertReply(b"2", "ZADD", "z", "LT", "INCR", "-1", "a")
        self.assertReply(None, "ZADD", "nokey", "XX", "INCR", "1", "a")
        self.assertReply(0, "EXISTS", "nokey")

    def test_option_errors(self):
        self.assertErr(XX_NX, "ZADD", "z", "NX", "XX", "1", "a")
        self.assertErr(GT_LT_NX, "ZADD", "z", "GT", "LT", "1", "a")
        self.assertErr(GT_LT_NX, "ZADD", "z", "NX", "GT", "1", "a")
        self.assertErr(GT_LT_NX, "ZADD", "z", "LT", "NX", "1", "a")
        self.assertErr(INCR_PAIR, "ZADD", "z", "INCR", "1", "a", "2", "b")
        self.assertErr(SYNTAX, "ZADD", "z", "1", "a", "2")
        self.assertErr(SYNTAX, "ZADD", "z", "NX", "CH", "1")
        self.assertErr(SYNTAX, "ZADD", "z", "NX", "XX", "1")  # the pair count is checked first
        self.assertErr(NOT_FLOAT, "ZADD", "z", "1", "a", "x", "b")
        self.assertErr(NOT_FLOAT, "ZADD", "z", "FOO", "a")  # an unknown option is a score
        self.assertErr(SYNTAX, "ZADD", "z", "FOO", "1", "a")
        self.assertErr(arity("zadd"), "ZADD", "z", "1")
        self.assertReply(0, "EXISTS", "z")  # nothing was created by any of these

    def test_nan_result(self):
        self.assertReply(1, "ZADD", "z", "inf", "a")
        self.assertErr(NAN, "ZADD", "z", "INCR", "-inf", "a")
        self.assertErr(NAN, "ZINCRBY", "z", "-inf", "a")
        self.assertReply(b"inf", "ZSCORE", "z", "a")
        self.assertReply(b"inf", "ZINCRBY", "z", "inf", "a")
        self.assertErr(NOT_FLOAT, "ZADD", "z", "nan", "b")
        self.assertErr(NOT_FLOAT, "ZINCRBY", "z", "NaN", "a")

    def test_zincrby(self):
        self.assertReply(b"5", "ZINCRBY", "z", "5", "a")
        self.assertReply(b"2.5", "ZINCRBY", "z", "-2.5", "a")
        self.assertReply(b"0.10000000000000001", "ZINCRBY", "y", "0.1", "m")
        self.assertReply(b"0.30000000000000004", "ZINCRBY", "y", "0.2", "m")
        self.assertErr(NOT_FLOAT, "ZINCRBY", "z", "abc", "a")
        self.assertErr(SYNTAX, "ZINCRBY", "z", "nx", "a")  # Redis reads "nx" as a ZADD option
        self.assertErr(arity("zincrby"), "ZINCRBY", "z", "1")
        self.assertReply(b"2.5", "ZSCORE", "z", "a")

    def test_redis_py(self):
        self.assertEqual(self.r.zadd("z", {"a": 1, "b": 2.5}), 2)
        self.assertEqual(self.r.zrange("z", 0, -1, withscores=True), [(b"a", 1.0), (b"b", 2.5)])
        self.assertEqual(self.r.zincrby("z", 2, "a"), 3.0)
        self.assertEqual(self.r.zscore("z", "b"), 2.5)


class ScoreTest(ServerTestCase):
    def score_of(self, text):
        self.assertReply("OK", "SELECT", "0")
        reply = self.raw.call("ZADD", "z", text, "m")
        if isinstance(reply, int):
            return self.raw.call("ZSCORE", "z", "m")
        return reply

    def test_valid_forms(self):
        for text, printed in (("0", b"0"), ("1", b"1"), ("-1", b"-1"), ("1.5", b"1.5"),
                              ("1.1", b"1.1000000000000001"), ("inf", b"inf"), ("+inf", b"inf"),
                              ("-inf", b"-inf"), ("Infinity", b"inf"), ("-INF", b"-inf"),
                              ("1E3", b"1000"), ("1e3", b"1000"), ("1.5e2", b"150"),
                              ("-2.5E-3", b"-0.0025000000000000001"), (".5", b"0.5"),
                              ("5.", b"5"), ("+7", b"7"), ("1e308", b"1e+308"),
                              ("-1e308", b"-1e+308"), ("1e20", b"1e+20"),
                              ("123456789012345678", b"1.2345678901234568e+17"),
                              ("1e-310", b"9.9999999999999694e-311"), ("0x10", b"16"),
                              ("-0", b"0"), ("007", b"7")):
            self.assertEqual(self.score_of(text), printed, text)

    def test_invalid_forms(self):
        for text in ("", " 1", "1 ", "1e308*10", "1e309", "-1e309", "1e-400", "abc", "1a", "nan",
                     "NaN", "-nan", "1,5", "--1", "e3", "\x001"):
            self.assertErr(NOT_FLOAT, "ZADD", "z", text, "m")
            self.assertErr(NOT_FLOAT, "ZINCRBY", "z", text, "m")
        self.assertReply(0, "EXISTS", "z")

    def test_negative_zero(self):
        self.assertReply(b"-0", "ZADD", "z", "INCR", "-0", "a")  # the reply is the score given
        self.assertReply(b"0", "ZSCORE", "z", "a")  # stored as 0, as Redis's listpack does
        self.assertReply(b"0", "ZADD", "z", "INCR", "-0", "a")
        self.assertReply(2, "ZADD", "y", "-0.0", "a", "0", "b")
        self.assertReply([b"a", b"0", b"b", b"0"], "ZRANGE", "y", "0", "-1", "WITHSCORES")

    def test_resp3_doubles(self):
        c = self.resp3_client()
        self.assertRawReply(b",1.5\r\n", "ZADD", "z", "INCR", "1.5", "a", client=c)
        self.assertRawReply(b",2.5\r\n", "ZINCRBY", "z", "1", "a", client=c)
        self.assertRawReply(b",2.5\r\n", "ZSCORE", "z", "a", client=c)
        self.assertRawReply(b"_\r\n", "ZSCORE", "z", "nothere", client=c)
        self.assertRawReply(b"_\r\n", "ZADD", "z", "NX", "INCR", "1", "a", client=c)
        self.assertReply(1, "ZADD", "z", "-inf", "b", client=c)
        self.assertRawReply(b"*3\r\n,2.5\r\n,-inf\r\n_\r\n", "ZMSCORE", "z", "a", "b", "c", client=c)
        self.assertRawReply(b",1.1000000000000001\r\n", "ZINCRBY", "y", "1.1", "m", client=c)
        self.assertRawReply(b",inf\r\n", "ZINCRBY", "y", "inf", "m", client=c)


class ReadTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.assertReply(5, "ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")

    def test_zscore_zmscore_zcard(self):
        self.assertReply(b"3", "ZSCORE", "z", "c")
        self.assertReply(None, "ZSCORE", "z", "x")
        self.assertReply(None, "ZSCORE", "nokey", "a")
        self.assertReply([b"1", None, b"5"], "ZMSCORE", "z", "a", "x", "e")
        self.assertReply([None, None], "ZMSCORE", "nokey", "a", "b")
        self.assertReply(5, "ZCARD", "z")
        self.assertReply(0, "ZCARD", "nokey")
        self.assertErr(arity("zmscore"), "ZMSCORE", "z")
        self.assertErr(arity("zscore"), "ZSCORE", "z")

    def test_zrank(self):
        for i, m in enumerate("abcde"):
            self.assertReply(i, "ZRANK", "z", m)
            self.assertReply(4 - i, "ZREVRANK", "z", m)
        self.assertReply(None, "ZRANK", "z", "x")
        self.assertReply(None, "ZREVRANK", "z", "x")
        self.assertReply(None, "ZRANK", "nokey", "a")
        self.assertErr(arity("zrank"), "ZRANK", "z", "a", "WITHSCORE")  # 7.2's option, not 7.0's

    def test_zrange_indexes(self):
        def ranks(seq, start, stop):  # Redis's index arithmetic
            n = len(seq)
            start, stop = start + n if start < 0 else start, stop + n if stop < 0 else stop
            start = max(start, 0)
            if start > stop or start >= n:
                return []
            return [m.encode() for m in seq[start:min(stop, n - 1) + 1]]

        for start, stop in ((0, -1), (1, 3), (-2, -1), (-100, 1), (3, 100), (2, 1), (5, 10),
                            (-1, -2), (0, 0), (-1, -1), (-5, -5), (-6, -5), (-7, -6), (4, 4)):
            want = ranks("abcde", start, stop)
            self.assertReply(want, "ZRANGE", "z", str(start), str(stop))
            want_rev = ranks("edcba", start, stop)
            self.assertReply(want_rev, "ZREVRANGE", "z", str(start), str(stop))
            self.assertReply(want_rev, "ZRANGE", "z", str(start), str(stop), "REV")
        self.assertReply([b"e", b"d", b"c"], "ZREVRANGE", "z", "0", "2")
        self.assertReply([b"e", b"d", b"c"], "ZRANGE", "z", "0", "2", "REV")
        self.assertReply([b"b", b"a"], "ZREVRANGE", "z", "-2", "-1")
        self.assertReply([b"b", b"2", b"a", b"1"], "ZREVRANGE", "z", "3", "10", "WITHSCORES")
        self.assertReply([b"a", b"1"], "ZRANGE", "z", "-1", "-1", "rev", "withscores")
        self.assertReply([], "ZRANGE", "nokey", "0", "-1")

    def test_zrange_errors(self):
        self.assertErr(NOT_INT, "ZRANGE", "z", "a", "1")
        self.assertErr(NOT_INT, "ZRANGE", "z", "0", "1.5")
        self.assertErr(NOT_INT, "ZRANGE", "nokey", "a", "b")  # checked before the key
        self.assertErr(LIMIT_RANK, "ZRANGE", "z", "0", "-1", "LIMIT", "0", "1")
        self.assertErr(LIMIT_RANK, "ZREVRANGE", "z", "0", "-1", "LIMIT", "0", "1")
        self.assertErr(LIMIT_RANK, "ZRANGE", "z", "a", "b", "LIMIT", "0", "1")  # options first
        self.assertErr(NOT_INT, "ZRANGE", "z", "0", "-1", "LIMIT", "x", "1")
        self.assertErr(SYNTAX, "ZRANGE", "z", "0", "-1", "LIMIT", "0")
        self.assertErr(SYNTAX, "ZRANGE", "z", "0", "-1", "REV", "REV")
        self.assertErr(SYNTAX, "ZREVRANGE", "z", "0", "-1", "REV")
        self.assertErr(SYNTAX, "ZRANGE", "z", "0", "-1", "FOO")
        self.assertErr(SYNTAX, "ZRANGE", "nokey", "0", "1", "FOO")
        self.assertReply([b"a", b"1"], "ZRANGE", "z", "0", "0", "WITHSCORES", "WITHSCORES")
        self.assertErr(arity("zrange"), "ZRANGE", "z", "0")

    def test_resp3_pairs(self):
        c = self.resp3_client()
        self.assertRawReply(b"*2\r\n*2\r\n$1\r\na\r\n,1\r\n*2\r\n$1\r\nb\r\n,2\r\n",
                            "ZRANGE", "z", "0", "1", "WITHSCORES", client=c)
        self.assertRawReply(b"*1\r\n*2\r\n$1\r\ne\r\n,5\r\n", "ZREVRANGE", "z", "0", "0",
                            "WITHSCORES", client=c)
        self.assertRawReply(b"*2\r\n$1\r\na\r\n$1\r\nb\r\n", "ZRANGE", "z", "0", "1", client=c)
        self.assertRawReply(b"*0\r\n", "ZRANGE", "z", "3", "1", "WITHSCORES", client=c)
        self.assertRawReply(b"*0\r\n", "ZRANGE", "nokey", "0", "1", client=c)
        self.assertRawReply(b"*2\r\n$1\r\na\r\n$1\r\n1\r\n", "ZRANGE", "z", "0", "0",
                            "WITHSCORES")  # RESP2: flat, scores as bulk strings


class OrderTest(ServerTestCase):
    def test_equal_scores_order_by_member_bytes(self):
        members = [b"b", b"a", b"", b"A", b"ab", b"\x00", b"\xff", b"a\x00", b"B"]
        args = []
        for m in members:
            args += ["1", m]
        self.assertReply(len(members), "ZADD", "z", *args)
        self.assertReply(sorted(members), "ZRANGE", "z", "0", "-1")
        self.assertReply(sorted(members)[::-1], "ZREVRANGE", "z", "0", "-1")
        self.assertReply(sorted(members).index(b"a"), "ZRANK", "z", b"a")

    def test_binary_members(self):
        args = []
        for i, m in enumerate(BINARY):
            args += [str(i), m]
        self.assertReply(len(BINARY), "ZADD", "z", *args)
        self.assertReply(BINARY, "ZRANGE", "z", "0", "-1")
        for i, m in enumerate(BINARY):
            self.assertReply(str(i).encode(), "ZSCORE", "z", m)
            self.assertReply(i, "ZRANK", "z", m)
        self.assertReply(1, "ZREM", "z", b"a\x00b")
        self.assertReply(None, "ZSCORE", "z", b"a\x00b")
        self.assertReply(None, "ZSCORE", "z", b"a\x00")

    def test_against_a_model(self):
        rng = random.Random(7)
        model = {}
        for _ in range(3):
            args = []
            for _ in range(400):
                m = "m%d" % rng.randrange(600)
                s = rng.choice([rng.randrange(-50, 50), rng.uniform(-1e6, 1e6)])
                args += [repr(float(s)), m]
                model[m] = float(s)
            self.raw.call("ZADD", "z", *args)
        order = sorted(model, key=lambda m: (model[m], m.encode()))
        self.assertReply(len(model), "ZCARD", "z")
        self.assertReply([m.encode() for m in order], "ZRANGE", "z", "0", "-1")
        self.assertReply([m.encode() for m in order[::-1]], "ZREVRANGE", "z", "0", "-1")
        self.assertReply([m.encode() for m in order[100:151]], "ZRANGE", "z", "100", "150")
        self.assertReply([m.encode() for m in order[::-1][-60:-9]], "ZREVRANGE", "z", "-60",
                         "-10")
        for m in rng.sample(order, 50):
            self.assertReply(order.index(m), "ZRANK", "z", m)
            self.assertReply(len(order) - 1 - order.index(m), "ZREVRANK", "z", m)
            self.assertEqual(float(self.raw.call("ZSCORE", "z", m)), model[m])
        popped = self.raw.call("ZPOPMIN", "z", "10")
        self.assertEqual(popped[0::2], [m.encode() for m in order[:10]])
        popped = self.raw.call("ZPOPMAX", "z", "10")
        self.assertEqual(popped[0::2], [m.encode() for m in order[::-1][:10]])
        self.assertReply(len(model) - 20, "ZCARD", "z")


class RemovePopTest(ServerTestCase):
    def test_zrem(self):
        self.assertReply(3, "ZADD", "z", "1", "a", "2", "b", "3", "c")
        self.assertReply(2, "ZREM", "z", "a", "b", "x", "a")
        self.assertReply(0, "ZREM", "z", "x")
        self.assertReply(0, "ZREM", "nokey", "a")
        self.assertReply(1, "ZREM", "z", "c")
        self.assertReply(0, "EXISTS", "z")  # emptied: deleted
        self.assertErr(arity("zrem"), "ZREM", "z")

    def test_zpopmin_zpopmax(self):
        self.assertReply(4, "ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d")
        self.assertReply([b"a", b"1"], "ZPOPMIN", "z")
        self.assertReply([b"d", b"4"], "ZPOPMAX", "z")
        self.assertReply([], "ZPOPMIN", "z", "0")
        self.assertReply([b"b", b"2"], "ZPOPMIN", "z", "1")
        self.assertReply([b"c", b"3"], "ZPOPMAX", "z", "10")
        self.assertReply(0, "EXISTS", "z")  # emptied: deleted
        self.assertReply([], "ZPOPMIN", "z")
        self.assertReply([], "ZPOPMAX", "nokey", "3")
        self.assertReply(3, "ZADD", "z", "1", "a", "2", "b", "3", "c")
        self.assertReply([b"c", b"3", b"b", b"2"], "ZPOPMAX", "z", "2")
        self.assertReply([b"a", b"1"], "ZPOPMIN", "z", "5")
        self.assertReply(0, "EXISTS", "z")

    def test_zpop_errors(self):
        self.assertReply(1, "ZADD", "z", "1", "a")
        self.assertErr(NOT_POSITIVE, "ZPOPMIN", "z", "-1")
        self.assertErr(NOT_POSITIVE, "ZPOPMAX", "z", "x")
        self.assertErr(NOT_POSITIVE, "ZPOPMIN", "nokey", "-1")
        self.assertErr(SYNTAX, "ZPOPMIN", "z", "1", "2")
        self.assertErr(arity("zpopmin"), "ZPOPMIN")
        self.assertReply(1, "ZCARD", "z")

    def test_zpop_resp3(self):
        c = self.resp3_client()
        self.assertReply(3, "ZADD", "z", "1", "a", "2", "b", "3", "c", client=c)
        # Without a count: a flat pair. With one: nested pairs.
        self.assertRawReply(b"*2\r\n$1\r\na\r\n,1\r\n", "ZPOPMIN", "z", client=c)
        self.assertRawReply(b"*1\r\n*2\r\n$1\r\nc\r\n,3\r\n", "ZPOPMAX", "z", "1", client=c)
        self.assertRawReply(b"*0\r\n", "ZPOPMAX", "z", "0", client=c)
        self.assertRawReply(b"*1\r\n*2\r\n$1\r\nb\r\n,2\r\n", "ZPOPMAX", "z", "5", client=c)
        self.assertRawReply(b"*0\r\n", "ZPOPMIN", "z", client=c)
        self.assertRawReply(b"*0\r\n", "ZPOPMIN", "z", "2", client=c)


class EncodingTest(ServerTestCase):
    def test_listpack_and_skiplist(self):
        self.assertReply(1, "ZADD", "small", "1", "a")
        self.assertReply(b"listpack", "OBJECT", "ENCODING", "small")
        args = []
        for i in range(128):
            args += [str(i), "m%d" % i]
        self.assertReply(128, "ZADD", "z", *args)
        self.assertReply(b"listpack", "OBJECT", "ENCODING", "z")
        self.assertReply(1, "ZADD", "z", "200", "one-more")
        self.assertReply(b"skiplist", "OBJECT", "ENCODING", "z")
        self.assertReply(1, "ZADD", "long", "1", "x" * 64)
        self.assertReply(b"listpack", "OBJECT", "ENCODING", "long")
        self.assertReply(1, "ZADD", "longer", "1", "x" * 65)
        self.assertReply(b"skiplist", "OBJECT", "ENCODING", "longer")
        self.assertReply([b"x" * 65], "ZRANGE", "longer", "0", "-1")


class WrongTypeTest(ServerTestCase):
    def test_zset_commands_on_a_string(self):
        self.assertReply("OK", "SET", "str", "x")
        for cmd in (["ZADD", "str", "1", "a"], ["ZADD", "str", "XX", "1", "a"],
                    ["ZADD", "str", "INCR", "1", "a"], ["ZINCRBY", "str", "1", "a"],
                    ["ZREM", "str", "a"], ["ZCARD", "str"], ["ZSCORE", "str", "a"],
                    ["ZMSCORE", "str", "a"], ["ZPOPMIN", "str"], ["ZPOPMAX", "str", "0"],
                    ["ZRANGE", "str", "0", "-1"], ["ZREVRANGE", "str", "0", "-1"],
                    ["ZRANK", "str", "a"], ["ZREVRANK", "str", "a"]):
            self.assertErr(WRONGTYPE, *cmd)
        self.assertReply(b"x", "GET", "str")

    def test_zset_commands_on_a_set(self):
        self.assertReply(1, "SADD", "s", "a")
        self.assertErr(WRONGTYPE, "ZADD", "s", "1", "a")
        self.assertErr(WRONGTYPE, "ZRANGE", "s", "0", "-1")
        self.assertErr(WRONGTYPE, "ZPOPMIN", "s")

    def test_other_commands_on_a_zset(self):
        self.assertReply(1, "ZADD", "z", "1", "a")
        for cmd in (["GET", "z"], ["INCR", "z"], ["APPEND", "z", "x"], ["SADD", "z", "a"],
                    ["SMEMBERS", "z"], ["SCARD", "z"]):
            self.assertErr(WRONGTYPE, *cmd)
        self.assertReply("OK", "SET", "z", "now a string")
        self.assertReply("string", "TYPE", "z")


class WatchTest(ServerTestCase):
    """Every write that changes a sorted set signals WATCHers; one that changes nothing does not."""

    def exec_after(self, *cmd):
        other = self.raw_client()
        self.assertReply("OK", "WATCH", "z")
        other.call(*cmd)
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "PING")
        return self.raw.call("EXEC") is not None

    def test_changes_abort(self):
        for cmd in (["ZADD", "z", "5", "new"], ["ZADD", "z", "9", "a"], ["ZINCRBY", "z", "1", "a"],
                    ["ZADD", "z", "INCR", "1", "a"], ["ZREM", "z", "a"], ["ZPOPMIN", "z"],
                    ["ZPOPMAX", "z", "5"]):
            self.assertReply("OK", "FLUSHALL")
            self.assertReply(2, "ZADD", "z", "1", "a", "2", "b")
            self.assertFalse(self.exec_after(*cmd), cmd)

    def test_no_change_no_abort(self):
        for cmd in (["ZADD", "z", "1", "a"], ["ZADD", "z", "NX", "7", "a"],
                    ["ZADD", "z", "XX", "7", "zz"], ["ZADD", "z", "GT", "0", "a"],
                    ["ZINCRBY", "z", "0", "a"], ["ZREM", "z", "zz"], ["ZPOPMIN", "z", "0"],
                    ["ZRANGE", "z", "0", "-1"], ["ZADD", "z", "INCR", "-inf", "inf-member"]):
            self.assertReply("OK", "FLUSHALL")
            self.assertReply(2, "ZADD", "z", "1", "a", "2", "b")
            if cmd[-1] == "inf-member":
                self.assertReply(1, "ZADD", "z", "inf", "inf-member")
            self.assertTrue(self.exec_after(*cmd), cmd)


class BenchmarkTest(ServerTestCase):
    def test_redis_benchmark_zadd_zpopmin(self):
        r = subprocess.run([REDIS_BENCHMARK, "-p", str(self.port), "-q", "-n", "20000",
                            "-t", "zadd,zpopmin"], capture_output=True, timeout=120)
        out = (r.stdout + r.stderr).decode("utf-8", "replace")
        self.assertEqual(r.returncode, 0, out)
        self.assertNotIn("ERR", out)
        finals = [l.split("\r")[-1].strip() for l in out.split("\n")]
        for name in ("ZADD", "ZPOPMIN"):
            self.assertTrue(any(re.match(name + r": [\d.]+ requests per second", f) for f in finals),
                            "%s missing from:\n%s" % (name, out))


if __name__ == "__main__":
    unittest.main()
