"""Sorted-set ranges: ZRANGE BYSCORE and BYLEX (REV, LIMIT, WITHSCORES), ZRANGEBYSCORE ZREVRANGEBYSCORE
ZRANGEBYLEX ZREVRANGEBYLEX ZCOUNT ZLEXCOUNT ZREMRANGEBYSCORE ZREMRANGEBYRANK ZREMRANGEBYLEX ZRANGESTORE
ZRANDMEMBER ZSCAN: literal small cases with Redis 7.0's exact replies and errors, and a grid of bounds
checked against a Python model (zsetmodel) on both of Redis's forms (listpack and skiplist)."""

import itertools
import unittest

from harness import ServerTestCase
from zsetmodel import ZModel, fmt_score, parse_lex_bound, parse_score_bound

SYNTAX = "ERR syntax error"
NOT_INT = "ERR value is not an integer or out of range"
NOT_FLOAT_RANGE = "ERR min or max is not a float"
NOT_LEX_RANGE = "ERR min or max not valid string range item"
LIMIT_RANK = ("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or "
              "BYLEX")
WITHSCORES_LEX = "ERR syntax error, WITHSCORES not supported in combination with BYLEX"
INVALID_CURSOR = "ERR invalid cursor"

# (name, member count, member padding, expected OBJECT ENCODING)
FORMS = (("listpack", 9, 0, b"listpack"),
         ("skiplist by size", 300, 0, b"skiplist"),
         ("skiplist by member length", 9, 66, b"skiplist"))


def arity(cmd):
    return "ERR wrong number of arguments for '%s' command" % cmd


def member(i, pad=0):
    return b"m%03d" % i + b"x" * pad


class RangeCase(ServerTestCase):
    def fill(self, key, n, pad, lex=False):
        """n members; scores scrambled with ties (or all 0 when lex); returns the model."""
        model = ZModel()
        args = []
        for i in range(n):
            s = 0.0 if lex else float((i * 37) % n // 3) + (0.5 if i % 5 == 2 else 0.0)
            model.d[member(i, pad)] = s
            args += [fmt_score(s), member(i, pad)]
        self.assertReply(n, "ZADD", key, *args)
        return model

    def each_form(self, body, lex=False):
        for name, n, pad, encoding in FORMS:
            with self.subTest(form=name):
                self.assertReply("OK", "FLUSHALL")
                model = self.fill("z", n, pad, lex)
                self.assertReply(encoding, "OBJECT", "ENCODING", "z")
                body(n, pad, model)

    def small(self):
        self.assertReply(5, "ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")

    def small_lex(self):
        self.assertReply(6, "ZADD", "z", "0", "a", "0", "b", "0", "c", "0", "d", "0", "e", "0", "")


class ByScoreTest(RangeCase):
    def test_literal(self):
        self.small()
        self.assertReply([b"a", b"b", b"c"], "ZRANGE", "z", "1", "3", "BYSCORE")
        self.assertReply([b"b", b"c"], "ZRANGE", "z", "(1", "3", "BYSCORE")
        self.assertReply([b"b"], "ZRANGE", "z", "(1", "(3", "BYSCORE")
        self.assertReply([b"c", b"b", b"a"], "ZRANGE", "z", "3", "1", "BYSCORE", "REV")
        self.assertReply([], "ZRANGE", "z", "1", "3", "BYSCORE", "REV")  # REV: max comes first
        self.assertReply([b"b", b"c"], "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "1", "2")
        self.assertReply([b"b", b"c", b"d", b"e"], "ZRANGE", "z", "-inf", "+inf", "BYSCORE",
                         "LIMIT", "1", "-1")
        self.assertReply([b"d", b"4", b"c", b"3"], "ZRANGE", "z", "+inf", "-inf", "BYSCORE",
                         "REV", "LIMIT", "1", "2", "WITHSCORES")
        self.assertReply([b"a", b"1", b"b", b"2"], "ZRANGEBYSCORE", "z", "1", "3", "WITHSCORES",
                         "LIMIT", "0", "2")
        self.assertReply([b"c", b"3", b"b", b"2", b"a", b"1"], "ZREVRANGEBYSCORE", "z", "3", "1",
                         "WITHSCORES")
        self.assertReply([b"b"], "ZREVRANGEBYSCORE", "z", "3", "1", "LIMIT", "1", "1")
        self.assertReply([], "ZREVRANGEBYSCORE", "z", "1", "3")
        self.assertReply(3, "ZCOUNT", "z", "2", "4")
        self.assertReply(2, "ZCOUNT", "z", "(2", "4")
        self.assertReply(3, "ZCOUNT", "z", "(1", "(5")
        self.assertReply(0, "ZCOUNT", "z", "3", "2")
        self.assertReply(0, "ZCOUNT", "nokey", "-inf", "+inf")
        self.assertReply([], "ZRANGEBYSCORE", "nokey", "-inf", "+inf")

    def test_bound_forms(self):
        self.small()
        for lo, hi, want in (("-inf", "+inf", "abcde"), ("-INF", "INF", "abcde"),
                             ("-Infinity", "inf", "abcde"), ("(inf", "+inf", ""),
                             ("-inf", "(-inf", ""), ("2", "2", "b"), ("2", "(2", ""),
                             ("(2", "2", ""), ("2.0", "4e0", "bcd"), ("(1.5", "3.5", "bc"),
                             ("-1e308", "1e308", "abcde"), ("0x2", "3", "bc"), ("+3", "+3", "c")):
            self.assertReply([c.encode() for c in want], "ZRANGEBYSCORE", "z", lo, hi)
            self.assertReply(len(want), "ZCOUNT", "z", lo, hi)

    def test_inf_scores(self):
        self.assertReply(4, "ZADD", "z", "-inf", "lo", "inf", "hi", "0", "mid", "inf", "hi2")
        self.assertReply([b"lo", b"-inf", b"mid", b"0"], "ZRANGEBYSCORE", "z", "-inf", "0",
                         "WITHSCORES")
        self.assertReply([b"hi2", b"hi"], "ZREVRANGEBYSCORE", "z", "inf", "inf")
        self.assertReply([b"mid"], "ZRANGEBYSCORE", "z", "(-inf", "(inf")
        self.assertReply(2, "ZCOUNT", "z", "(0", "+inf")
        c = self.resp3_client()
        self.assertRawReply(b"*2\r\n*2\r\n$2\r\nlo\r\n,-inf\r\n*2\r\n$3\r\nmid\r\n,0\r\n",
                            "ZRANGE", "z", "-inf", "0", "BYSCORE", "WITHSCORES", client=c)
        self.assertRawReply(b"*1\r\n*2\r\n$2\r\nhi\r\n,inf\r\n", "ZREVRANGEBYSCORE", "z", "+inf",
                            "-inf", "WITHSCORES", "LIMIT", "1", "1", client=c)
        self.assertRawReply(b"*1\r\n$3\r\nmid\r\n", "ZRANGEBYSCORE", "z", "0", "0", client=c)

    def test_errors(self):
        self.small()
        for lo, hi in (("x", "1"), ("1", "x"), ("nan", "1"), ("1", "NaN"), ("((1", "2"),
                       ("(x", "2"), ("1 ", "2"), ("1", "2a"), ("(", "x")):
            self.assertErr(NOT_FLOAT_RANGE, "ZRANGEBYSCORE", "z", lo, hi)
            self.assertErr(NOT_FLOAT_RANGE, "ZREVRANGEBYSCORE", "z", hi, lo)
            self.assertErr(NOT_FLOAT_RANGE, "ZRANGE", "z", lo, hi, "BYSCORE")
            self.assertErr(NOT_FLOAT_RANGE, "ZCOUNT", "z", lo, hi)
            self.assertErr(NOT_FLOAT_RANGE, "ZCOUNT", "nokey", lo, hi)
            self.assertErr(NOT_FLOAT_RANGE, "ZREMRANGEBYSCORE", "z", lo, hi)
            self.assertErr(NOT_FLOAT_RANGE, "ZRANGESTORE", "d", "z", lo, hi, "BYSCORE")
        self.assertErr(NOT_FLOAT_RANGE, "ZRANGE", "nokey", "x", "y", "BYSCORE")
        self.assertErr(SYNTAX, "ZRANGEBYSCORE", "z", "1", "3", "LIMIT", "0")
        self.assertErr(SYNTAX, "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT")
        self.assertErr(NOT_INT, "ZRANGEBYSCORE", "z", "1", "3", "LIMIT", "0", "x")
        self.assertErr(NOT_INT, "ZRANGEBYSCORE", "z", "1", "3", "LIMIT", "0",
                       "9223372036854775808")
        self.assertErr(SYNTAX, "ZRANGEBYSCORE", "z", "1", "3", "FOO")
        self.assertErr(SYNTAX, "ZRANGEBYSCORE", "z", "1", "3", "REV")
        self.assertErr(SYNTAX, "ZRANGEBYSCORE", "z", "1", "3", "BYSCORE")
        self.assertErr(SYNTAX, "ZRANGE", "z", "1", "3", "BYSCORE", "BYSCORE")
        self.assertErr(SYNTAX, "ZRANGE", "z", "1", "3", "BYSCORE", "BYLEX")
        self.assertErr(LIMIT_RANK, "ZRANGE", "z", "0", "-1", "WITHSCORES", "LIMIT", "0", "1")
        self.assertErr(arity("zrangebyscore"), "ZRANGEBYSCORE", "z", "1")
        self.assertErr(arity("zrevrangebyscore"), "ZREVRANGEBYSCORE", "z", "1")
        self.assertErr(arity("zcount"), "ZCOUNT", "z", "1")
        self.assertReply([b"a", b"1"], "ZRANGEBYSCORE", "z", "1", "1", "WITHSCORES", "WITHSCORES")

    def test_limit(self):
        self.small()
        for offset, count, want, want_rev in (
                (0, -1, "abcde", "edcba"), (1, -5, "bcde", "dcba"), (-1, 2, "", ""),
                (-1, -1, "", ""), (5, 1, "", ""), (4, 10, "e", "a"), (1, 0, "", ""),
                (0, 1, "a", "e"), (1, 2, "bc", "dc"), (9223372036854775807, 1, "", ""),
                (0, 9223372036854775807, "abcde", "edcba"),
                (0, -9223372036854775808, "abcde", "edcba")):
            want = [c.encode() for c in want]
            self.assertReply(want, "ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", str(offset),
                             str(count))
            self.assertReply(want, "ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", str(offset),
                             str(count))
            self.assertReply([c.encode() for c in want_rev], "ZREVRANGEBYSCORE", "z", "+inf",
                             "-inf", "LIMIT", str(offset), str(count))

    def test_against_model_both_forms(self):
        def body(n, pad, model):
            top = float(n // 3)
            bounds = ["-inf", "+inf", "0", "(0", "1", "(1", "2.5", "(2.5", str(top // 2),
                      "(%s" % (top // 2), str(top - 1), str(top + 1), "(%s" % top]
            limits = (None, (0, 3), (2, -1), (5, 10), (-1, 3), (n - 1, 5))
            for lo_s, hi_s in itertools.product(bounds, repeat=2):
                lo, hi = parse_score_bound(lo_s), parse_score_bound(hi_s)
                self.assertReply(model.zcount(lo, hi), "ZCOUNT", "z", lo_s, hi_s)
                for limit in limits:
                    extra = ["LIMIT", str(limit[0]), str(limit[1])] if limit else []
                    off, cnt = limit if limit else (None, None)
                    want = model.zrangebyscore(lo, hi, False, False, off, cnt)
                    self.assertReply(want, "ZRANGEBYSCORE", "z", lo_s, hi_s, *extra)
                    want = model.zrangebyscore(lo, hi, True, True, off, cnt)
                    self.assertReply(want, "ZREVRANGEBYSCORE", "z", hi_s, lo_s, "WITHSCORES",
                                     *extra)
                    self.assertReply(want, "ZRANGE", "z", hi_s, lo_s, "BYSCORE", "REV",
                                     "WITHSCORES", *extra)
        self.each_form(body)


class ByLexTest(RangeCase):
    def test_literal(self):
        self.small_lex()
        self.assertReply([b"a", b"b", b"c"], "ZRANGE", "z", "[a", "[c", "BYLEX")
        self.assertReply([b"", b"a", b"b", b"c", b"d", b"e"], "ZRANGE", "z", "-", "+", "BYLEX")
        self.assertReply([b"e", b"d", b"c", b"b", b"a", b""], "ZRANGE", "z", "+", "-", "BYLEX",
                         "REV")
        self.assertReply([b"c", b"b", b"a"], "ZRANGE", "z", "[c", "[a", "BYLEX", "REV")
        self.assertReply([b"b"], "ZRANGE", "z", "[c", "[a", "BYLEX", "REV", "LIMIT", "1", "1")
        self.assertReply([b"b", b"c", b"d", b"e"], "ZRANGE", "z", "-", "+", "BYLEX", "LIMIT", "2",
                         "-5")
        self.assertReply([b"", b"a", b"b"], "ZRANGEBYLEX", "z", "[", "[b")
        self.assertReply([b"a", b"b"], "ZRANGEBYLEX", "z", "(", "[b")
        self.assertReply([b""], "ZRANGEBYLEX", "z", "-", "[")
        self.assertReply([b"a", b"b"], "ZRANGEBYLEX", "z", "-", "+", "LIMIT", "1", "2")
        self.assertReply([], "ZRANGEBYLEX", "z", "[c", "[a")
        for lo, hi in (("+", "-"), ("-", "-"), ("+", "+"), ("(b", "(b"), ("[b", "(b")):
            self.assertReply([], "ZRANGEBYLEX", "z", lo, hi)
        self.assertReply([b"b"], "ZRANGEBYLEX", "z", "[b", "[b")
        self.assertReply([b"c", b"b", b"a"], "ZREVRANGEBYLEX", "z", "[c", "[a")
        self.assertReply([b"b", b"a", b""], "ZREVRANGEBYLEX", "z", "(c", "-")
        self.assertReply([b"e", b"d"], "ZREVRANGEBYLEX", "z", "+", "-", "LIMIT", "0", "2")
        self.assertReply([b"b"], "ZRANGEBYLEX", "z", "(a", "(bb")
        self.assertReply(6, "ZLEXCOUNT", "z", "-", "+")
        self.assertReply(5, "ZLEXCOUNT", "z", "(", "+")
        self.assertReply(2, "ZLEXCOUNT", "z", "[b", "(d")
        self.assertReply(0, "ZLEXCOUNT", "z", "+", "-")
        self.assertReply(0, "ZLEXCOUNT", "nokey", "-", "+")
        self.assertReply([], "ZRANGEBYLEX", "nokey", "-", "+")

    def test_errors(self):
        self.small_lex()
        for lo, hi in (("a", "[c"), ("[a", "c"), ("-a", "+"), ("-", "+b"), ("", "+"), ("-", ""),
                       ("{a", "+"), ("1", "2")):
            self.assertErr(NOT_LEX_RANGE, "ZRANGEBYLEX", "z", lo, hi)
            self.assertErr(NOT_LEX_RANGE, "ZREVRANGEBYLEX", "z", hi, lo)
            self.assertErr(NOT_LEX_RANGE, "ZRANGE", "z", lo, hi, "BYLEX")
            self.assertErr(NOT_LEX_RANGE, "ZLEXCOUNT", "z", lo, hi)
            self.assertErr(NOT_LEX_RANGE, "ZREMRANGEBYLEX", "z", lo, hi)
            self.assertErr(NOT_LEX_RANGE, "ZRANGESTORE", "d", "z", lo, hi, "BYLEX")
        for cmd in ("ZRANGEBYLEX", "ZLEXCOUNT", "ZREMRANGEBYLEX"):
            self.assertErr(NOT_LEX_RANGE, cmd, "nokey", "x", "y")  # checked before the key
        self.assertErr(WITHSCORES_LEX, "ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES")
        self.assertErr(WITHSCORES_LEX, "ZRANGEBYLEX", "z", "-", "+", "WITHSCORES")
        self.assertErr(WITHSCORES_LEX, "ZREVRANGEBYLEX", "z", "+", "-", "WITHSCORES")
        self.assertErr(SYNTAX, "ZRANGE", "z", "-", "+", "BYLEX", "BYLEX")
        self.assertErr(SYNTAX, "ZRANGEBYLEX", "z", "-", "+", "LIMIT", "0")
        self.assertErr(SYNTAX, "ZRANGEBYLEX", "z", "-", "+", "FOO")
        self.assertErr(NOT_INT, "ZRANGEBYLEX", "z", "-", "+", "LIMIT", "a", "1")
        self.assertErr(arity("zrangebylex"), "ZRANGEBYLEX", "z", "-")
        self.assertErr(arity("zlexcount"), "ZLEXCOUNT", "z", "-")

    def test_against_model_both_forms(self):
        def body(n, pad, model):
            ms = sorted(model.d)
            picks = [ms[0], ms[1], ms[n // 2], ms[-2], ms[-1], b"m", b"m0", b"m999", b""]
            bounds = ["-", "+"] + [p + m for m in picks for p in (b"[", b"(")]
            limits = (None, (0, 2), (1, -1), (-1, 2), (n - 1, 3))
            for lo_s, hi_s in itertools.product(bounds, repeat=2):
                lo, hi = parse_lex_bound(lo_s), parse_lex_bound(hi_s)
                self.assertReply(model.zlexcount(lo, hi), "ZLEXCOUNT", "z", lo_s, hi_s)
                for limit in limits:
                    extra = ["LIMIT", str(limit[0]), str(limit[1])] if limit else []
                    off, cnt = limit if limit else (None, None)
                    self.assertReply(model.zrangebylex(lo, hi, False, off, cnt), "ZRANGEBYLEX",
                                     "z", lo_s, hi_s, *extra)
                    want = model.zrangebylex(lo, hi, True, off, cnt)
                    self.assertReply(want, "ZREVRANGEBYLEX", "z", hi_s, lo_s, *extra)
                    self.assertReply(want, "ZRANGE", "z", hi_s, lo_s, "BYLEX", "REV", *extra)
        self.each_form(body, lex=True)


class RemoveRangeTest(RangeCase):
    def test_literal(self):
        self.small()
        self.assertReply(2, "ZREMRANGEBYSCORE", "z", "2", "3")
        self.assertReply([b"a", b"d", b"e"], "ZRANGE", "z", "0", "-1")
        self.assertReply(1, "ZREMRANGEBYSCORE", "z", "(4", "+inf")
        self.assertReply(0, "ZREMRANGEBYSCORE", "z", "(4", "+inf")
        self.assertReply(0, "ZREMRANGEBYSCORE", "nokey", "1", "2")
        self.assertReply(2, "ZREMRANGEBYSCORE", "z", "-inf", "+inf")
        self.assertReply(0, "EXISTS", "z")
        self.small()
        self.assertReply(2, "ZREMRANGEBYRANK", "z", "0", "1")
        self.assertReply(1, "ZREMRANGEBYRANK", "z", "-1", "-1")
        self.assertReply(0, "ZREMRANGEBYRANK", "z", "5", "10")
        self.assertReply(0, "ZREMRANGEBYRANK", "z", "2", "1")
        self.assertReply([b"c", b"d"], "ZRANGE", "z", "0", "-1")
        self.assertReply(2, "ZREMRANGEBYRANK", "z", "-100", "100")
        self.assertReply(0, "EXISTS", "z")
        self.assertReply(0, "ZREMRANGEBYRANK", "nokey", "0", "-1")
        self.small_lex()
        self.assertReply(2, "ZREMRANGEBYLEX", "z", "[b", "(d")
        self.assertReply([b"", b"a", b"d", b"e"], "ZRANGE", "z", "0", "-1")
        self.assertReply(1, "ZREMRANGEBYLEX", "z", "-", "[")
        self.assertReply(0, "ZREMRANGEBYLEX", "z", "+", "-")
        self.assertReply(3, "ZREMRANGEBYLEX", "z", "-", "+")
        self.assertReply(0, "EXISTS", "z")
        self.assertReply(0, "ZREMRANGEBYLEX", "nokey", "-", "+")

    def test_errors(self):
        self.small()
        self.assertErr(NOT_INT, "ZREMRANGEBYRANK", "z", "x", "1")
        self.assertErr(NOT_INT, "ZREMRANGEBYRANK", "z", "0", "1.5")
        self.assertErr(NOT_INT, "ZREMRANGEBYRANK", "nokey", "0", "x")
        self.assertErr(arity("zremrangebyrank"), "ZREMRANGEBYRANK", "z", "0")
        self.assertErr(arity("zremrangebyscore"), "ZREMRANGEBYSCORE", "z", "0", "1", "2")
        self.assertErr(arity("zremrangebylex"), "ZREMRANGEBYLEX", "z", "[a")
        self.assertReply(5, "ZCARD", "z")

    def test_against_model_both_forms(self):
        def body(n, pad, model):
            for start, stop in ((n, n + 5), (-2, -1), (0, 0), (3, 1), (n // 3, n // 3 + 4)):
                self.assertReply(model.zremrangebyrank(start, stop), "ZREMRANGEBYRANK", "z",
                                 str(start), str(stop))
                self.assertReply(model.zrange(0, -1, withscores=True), "ZRANGE", "z", "0", "-1",
                                 "WITHSCORES")
            for lo_s, hi_s in (("5", "4"), ("(1", "2"), ("-inf", "0"), ("(%d" % (n // 6), "+inf")):
                lo, hi = parse_score_bound(lo_s), parse_score_bound(hi_s)
                self.assertReply(model.zremrangebyscore(lo, hi), "ZREMRANGEBYSCORE", "z", lo_s,
                                 hi_s)
                self.assertReply(model.zrange(0, -1, withscores=True), "ZRANGE", "z", "0", "-1",
                                 "WITHSCORES")
            self.assertReply(len(model), "ZREMRANGEBYRANK", "z", "0", "-1")
            self.assertReply(0, "EXISTS", "z")
        self.each_form(body)

    def test_lex_against_model_both_forms(self):
        def body(n, pad, model):
            ms = sorted(model.d)
            for lo_s, hi_s in ((b"[" + ms[-1], b"-"), (b"(" + ms[0], b"[" + ms[2]),
                               (b"[" + ms[n // 2], b"(" + ms[n // 2 + 3]), (b"(m", b"[" + ms[0]),
                               (b"[" + ms[-1], b"+")):
                lo, hi = parse_lex_bound(lo_s), parse_lex_bound(hi_s)
                self.assertReply(model.zremrangebylex(lo, hi), "ZREMRANGEBYLEX", "z", lo_s, hi_s)
                self.assertReply(model.zrange(0, -1), "ZRANGE", "z", "0", "-1")
            self.assertReply(len(model), "ZREMRANGEBYLEX", "z", "-", "+")
            self.assertReply(0, "EXISTS", "z")
        self.each_form(body, lex=True)


class RangeStoreTest(RangeCase):
    def test_zrangestore(self):
        self.small()
        self.assertReply(3, "ZRANGESTORE", "dst", "z", "1", "3")
        self.assertReply([b"b", b"2", b"c", b"3", b"d", b"4"], "ZRANGE", "dst", "0", "-1",
                         "WITHSCORES")
        self.assertReply(2, "ZRANGESTORE", "dst", "z", "3", "1", "BYSCORE", "REV", "LIMIT", "0",
                         "2")
        self.assertReply([b"b", b"2", b"c", b"3"], "ZRANGE", "dst", "0", "-1", "WITHSCORES")
        self.assertReply(4, "ZRANGESTORE", "dst", "z", "(1", "+inf", "BYSCORE", "LIMIT", "0", "-1")
        self.assertReply(2, "ZRANGESTORE", "dst", "z", "0", "1", "REV")
        self.assertReply([b"d", b"e"], "ZRANGE", "dst", "0", "-1")
        self.assertReply(0, "ZRANGESTORE", "dst", "nokey", "0", "-1")
        self.assertReply(0, "EXISTS", "dst")

    def test_bylex_and_self(self):
        self.small_lex()
        self.assertReply(2, "ZRANGESTORE", "dst", "z", "[b", "[c", "BYLEX")
        self.assertReply([b"b", b"c"], "ZRANGE", "dst", "0", "-1")
        self.assertReply(1, "ZRANGESTORE", "dst", "z", "+", "-", "BYLEX", "REV", "LIMIT", "0", "1")
        self.assertReply([b"e"], "ZRANGE", "dst", "0", "-1")
        self.assertReply(2, "ZRANGESTORE", "z", "z", "1", "2")  # source and destination the same
        self.assertReply([b"a", b"b"], "ZRANGE", "z", "0", "-1")

    def test_destination_replaced_or_deleted(self):
        self.small()
        self.assertReply("OK", "SET", "dst", "x")
        self.assertReply(1, "EXPIRE", "dst", "100")
        self.assertReply(1, "ZRANGESTORE", "dst", "z", "0", "0")
        self.assertReply("zset", "TYPE", "dst")
        self.assertReply(-1, "TTL", "dst")
        self.assertReply(0, "ZRANGESTORE", "dst", "z", "10", "20")  # empty result: deleted
        self.assertReply(0, "EXISTS", "dst")
        self.assertReply("OK", "SET", "dst", "x")
        self.assertReply(0, "ZRANGESTORE", "dst", "z", "(5", "+inf", "BYSCORE")
        self.assertReply(0, "EXISTS", "dst")

    def test_errors(self):
        self.small()
        self.assertErr(SYNTAX, "ZRANGESTORE", "dst", "z", "0", "-1", "WITHSCORES")
        self.assertErr(SYNTAX, "ZRANGESTORE", "dst", "z", "-", "+", "BYLEX", "WITHSCORES")
        self.assertErr(LIMIT_RANK, "ZRANGESTORE", "dst", "z", "0", "-1", "LIMIT", "0", "1")
        self.assertErr(NOT_INT, "ZRANGESTORE", "dst", "z", "0", "x")
        self.assertErr(arity("zrangestore"), "ZRANGESTORE", "dst", "z", "0")
        self.assertReply(0, "EXISTS", "dst")

    def test_against_model_both_forms(self):
        def body(n, pad, model):
            for args, want in ((["0", "-1"], model.ordered()),
                               (["2", "-3", "REV"], model.ordered()[::-1][2:-2]),
                               (["(1", "+inf", "BYSCORE", "LIMIT", "1", "130"],
                                [p for p in model.ordered() if p[1] > 1][1:131])):
                self.assertReply(len(want), "ZRANGESTORE", "d", "z", *args)
                self.assertReply(ZModel.flat(sorted(want, key=lambda p: (p[1], p[0])), True),
                                 "ZRANGE", "d", "0", "-1", "WITHSCORES")
        self.each_form(body)


class RandMemberTest(RangeCase):
    def check_sample(self, model, count, withscores):
        args = ["ZRANDMEMBER", "z", str(count)] + (["WITHSCORES"] if withscores else [])
        got = self.raw.call(*args)
        self.assertIsInstance(got, list)
        if withscores:
            members, scores = got[0::2], got[1::2]
            for m, s in zip(members, scores):
                self.assertEqual(s, model.zscore(m), m)
        else:
            members = got
        self.assertTrue(set(members) <= set(model.d), members)
        if count >= 0:
            self.assertEqual(len(members), min(count, len(model)))
            self.assertEqual(len(set(members)), len(members))  # distinct
        else:
            self.assertEqual(len(members), -count)  # repeats allowed
        return members

    def test_both_forms(self):
        def body(n, pad, model):
            for count in (1, 3, n // 2, n - 1, n, n + 5, 100, 250, 0):
                for withscores in (False, True):
                    members = self.check_sample(model, count, withscores)
                    if count >= n:
                        self.assertEqual(set(members), set(model.d))
                    self.check_sample(model, -count, withscores)
            self.check_sample(model, -1000, False)
            for _ in range(20):
                self.assertIn(self.raw.call("ZRANDMEMBER", "z"), model.d)
            self.assertReply(n, "ZCARD", "z")  # nothing removed
        self.each_form(body)

    def test_missing_key_and_errors(self):
        self.assertReply(None, "ZRANDMEMBER", "nokey")
        self.assertReply([], "ZRANDMEMBER", "nokey", "2")
        self.assertReply([], "ZRANDMEMBER", "nokey", "-2", "WITHSCORES")
        self.small()
        self.assertReply([], "ZRANDMEMBER", "z", "0")
        self.assertReply([], "ZRANDMEMBER", "z", "0", "withscores")
        self.assertErr(NOT_INT, "ZRANDMEMBER", "z", "x")
        self.assertErr(NOT_INT, "ZRANDMEMBER", "nokey", "x")
        self.assertErr(NOT_INT, "ZRANDMEMBER", "z", "1.5")
        self.assertErr(SYNTAX, "ZRANDMEMBER", "z", "1", "FOO")
        self.assertErr(SYNTAX, "ZRANDMEMBER", "z", "1", "WITHSCORES", "WITHSCORES")
        self.assertErr(arity("zrandmember"), "ZRANDMEMBER")
        self.assertErr("ERR value is out of range, value must between -9223372036854775807 and "
                       "9223372036854775807", "ZRANDMEMBER", "z", "-9223372036854775808")

    def test_resp3_shape(self):
        self.assertReply(2, "ZADD", "z", "1.5", "a", "1.5", "b")
        c = self.resp3_client()
        got = c.call("ZRANDMEMBER", "z", "2", "WITHSCORES")
        self.assertIsInstance(got, list, got)
        self.assertEqual(sorted(got), [[b"a", 1.5], [b"b", 1.5]])
        got = c.call("ZRANDMEMBER", "z", "-3", "WITHSCORES")
        self.assertEqual(len(got), 3)
        for pair in got:
            self.assertIn(pair, ([b"a", 1.5], [b"b", 1.5]))
        self.assertEqual(sorted(c.call("ZRANDMEMBER", "z", "2")), [b"a", b"b"])
        self.assertRawReply(b"*1\r\n*2\r\n$1\r\n", "ZRANDMEMBER", "z", "1", "WITHSCORES",
                            client=c)
        self.assertIn(c.read_raw(9), (b"a\r\n,1.5\r\n", b"b\r\n,1.5\r\n"))
        self.assertRawReply(b"_\r\n", "ZRANDMEMBER", "nokey", client=c)
        self.assertRawReply(b"*0\r\n", "ZRANDMEMBER", "nokey", "1", "WITHSCORES", client=c)


class RandMemberHugeCountTest(ServerTestCase):
    """A WITHSCORES count too big to answer is refused (a server that tried would hang; own class)."""

    def test_huge_withscores_count(self):
        self.assertReply(1, "ZADD", "z", "1", "a")
        self.assertErr("ERR value is out of range", "ZRANDMEMBER", "z", "-9223372036854775807",
                       "WITHSCORES")
        self.assertErr("ERR value is out of range", "ZRANDMEMBER", "z", "9223372036854775807",
                       "WITHSCORES")


class ZScanTest(RangeCase):
    def scan_all(self, key, *options, client=None):
        """Follows the cursor until 0; returns the flat list of all member, score items."""
        c = client or self.raw
        items, cursor = [], b"0"
        for _ in range(10000):
            reply = c.call("ZSCAN", key, cursor, *options)
            self.assertIsInstance(reply, list, reply)
            cursor, chunk = reply
            self.assertEqual(len(chunk) % 2, 0)
            items += chunk
            if cursor == b"0":
                return items
        self.fail("ZSCAN did not finish")

    def assertScanned(self, items, model, members=None):
        got = {}
        for m, s in zip(items[0::2], items[1::2]):
            self.assertEqual(s, model.zscore(m), m)  # scores as bulk strings, %.17g
            got[m] = s
        self.assertEqual(set(got), set(model.d) if members is None else set(members))

    def test_both_forms(self):
        def body(n, pad, model):
            self.assertScanned(self.scan_all("z"), model)
            self.assertScanned(self.scan_all("z", "COUNT", "7"), model)
            self.assertScanned(self.scan_all("z", "COUNT", "1000"), model)
            self.assertScanned(self.scan_all("z", "MATCH", "m00*"), model,
                               [m for m in model.d if m.startswith(b"m00")])
            self.assertScanned(self.scan_all("z", "MATCH", "*[13]", "COUNT", "5"), model,
                               [m for m in model.d if m.endswith(b"1") or m.endswith(b"3")])
            self.assertScanned(self.scan_all("z", "MATCH", "nothing*"), model, [])
        self.each_form(body)

    def test_scores_and_binary(self):
        self.assertReply(4, "ZADD", "z", "0.1", "a", "-inf", b"\x00", "1e300", b"a*b", "2", b"")
        self.assertEqual(sorted(self.scan_all("z")), sorted(
            [b"a", b"0.10000000000000001", b"\x00", b"-inf", b"a*b", b"1.0000000000000001e+300",
             b"", b"2"]))
        self.assertEqual(self.scan_all("z", "MATCH", "a\\*b"), [b"a*b", b"1.0000000000000001e+300"])
        c = self.resp3_client()
        items = self.scan_all("z", "MATCH", "a", client=c)
        self.assertEqual(items, [b"a", b"0.10000000000000001"])  # RESP3 too: bulk strings
        self.assertReply([b"0", []], "ZSCAN", "nokey", "0")

    def test_errors(self):
        self.small()
        self.assertErr(INVALID_CURSOR, "ZSCAN", "z", "x")
        self.assertErr(INVALID_CURSOR, "ZSCAN", "z", "18446744073709551616")
        self.assertErr(SYNTAX, "ZSCAN", "z", "0", "COUNT", "0")
        self.assertErr(SYNTAX, "ZSCAN", "z", "0", "COUNT", "-1")
        self.assertErr(NOT_INT, "ZSCAN", "z", "0", "COUNT", "x")
        self.assertErr(SYNTAX, "ZSCAN", "z", "0", "MATCH")
        self.assertErr(SYNTAX, "ZSCAN", "z", "0", "TYPE", "zset")
        self.assertErr(SYNTAX, "ZSCAN", "z", "0", "NOVALUES")
        self.assertErr(arity("zscan"), "ZSCAN", "z")


if __name__ == "__main__":
    unittest.main()
