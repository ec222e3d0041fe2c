"""Sorted-set algebra: ZUNION ZINTER ZDIFF ZUNIONSTORE ZINTERSTORE ZDIFFSTORE ZINTERCARD. WEIGHTS,
AGGREGATE SUM|MIN|MAX, WITHSCORES, plain sets as inputs (every member scores 1), missing keys as empty
sets, destinations replaced or deleted, inf arithmetic (inf + -inf and 0 * inf give 0, as Redis does),
exact errors, RESP3 pairs; and a seeded grid against Python arithmetic on both forms.

Scores and weights in the model test are small multiples of 1/4 and never 0, so every sum is exact
whatever order the server adds in and no result is -0."""

import random
import unittest

from harness import ServerTestCase
from zsetmodel import fmt_score

SYNTAX = "ERR syntax error"
NOT_INT = "ERR value is not an integer or out of range"
WEIGHT_ERR = "ERR weight value is not a float"
LIMIT_NEG = "ERR LIMIT can't be negative"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"


def arity(cmd):
    return "ERR wrong number of arguments for '%s' command" % cmd


def no_keys(cmd):
    return "ERR at least 1 input key is needed for '%s' command" % cmd


def flat(pairs):
    out = []
    for m, s in sorted(pairs.items(), key=lambda kv: (kv[1], kv[0])):
        out += [m, fmt_score(s)]
    return out


class AlgebraCase(ServerTestCase):
    def setup_abc(self):
        self.assertReply(3, "ZADD", "a", "1", "x", "2", "y", "3", "z")
        self.assertReply(3, "ZADD", "b", "10", "y", "20", "z", "30", "w")
        self.assertReply(2, "ZADD", "c", "5", "z", "6", "v")


class UnionTest(AlgebraCase):
    def test_union(self):
        self.setup_abc()
        self.assertReply([b"x", b"y", b"z", b"w"], "ZUNION", "2", "a", "b")
        self.assertReply([b"x", b"1", b"y", b"12", b"z", b"23", b"w", b"30"], "ZUNION", "2", "a",
                         "b", "WITHSCORES")
        self.assertReply([b"x", b"2", b"y", b"14", b"z", b"26", b"w", b"30"], "ZUNION", "2", "a",
                         "b", "WEIGHTS", "2", "1", "WITHSCORES")
        self.assertReply([b"x", b"1", b"y", b"2", b"z", b"3", b"v", b"6", b"w", b"30"], "ZUNION",
                         "3", "a", "b", "c", "AGGREGATE", "MIN", "WITHSCORES")
        self.assertReply([b"x", b"1", b"v", b"6", b"y", b"10", b"z", b"20", b"w", b"30"], "ZUNION",
                         "3", "a", "b", "c", "aggregate", "max", "withscores")
        self.assertReply([b"w", b"-30", b"z", b"-9", b"y", b"-6", b"x", b"2", b"v", b"6"],
                         "ZUNION", "3", "a", "b", "c", "WEIGHTS", "2", "-1", "1", "WITHSCORES")
        self.assertReply([b"x", b"0.5", b"y", b"1", b"z", b"1.5"], "ZUNION", "1", "a", "WEIGHTS",
                         "0.5", "WITHSCORES")
        self.assertReply([b"x", b"3", b"y", b"6", b"z", b"9"], "ZUNION", "1", "a", "AGGREGATE",
                         "MIN", "WITHSCORES", "WEIGHTS", "3")  # options in any order
        self.assertReply([b"x", b"2", b"y", b"4", b"z", b"6"], "ZUNION", "2", "a", "a",
                         "WITHSCORES")
        self.assertReply([b"x", b"y", b"z"], "ZUNION", "2", "a", "nokey")
        self.assertReply([], "ZUNION", "2", "nokey", "nokey2", "WITHSCORES")

    def test_unionstore(self):
        self.setup_abc()
        self.assertReply(5, "ZUNIONSTORE", "d", "3", "a", "b", "c")
        self.assertReply([b"x", b"1", b"v", b"6", b"y", b"12", b"z", b"28", b"w", b"30"],
                         "ZRANGE", "d", "0", "-1", "WITHSCORES")
        self.assertReply(4, "ZUNIONSTORE", "d", "2", "a", "b", "WEIGHTS", "1", "0.25", "AGGREGATE",
                         "MAX")
        self.assertReply([b"x", b"1", b"y", b"2.5", b"z", b"5", b"w", b"7.5"], "ZRANGE", "d", "0",
                         "-1", "WITHSCORES")
        self.assertReply(3, "ZUNIONSTORE", "a", "2", "a", "a")  # a source as the destination
        self.assertReply([b"x", b"2", b"y", b"4", b"z", b"6"], "ZRANGE", "a", "0", "-1",
                         "WITHSCORES")


class InterTest(AlgebraCase):
    def test_inter(self):
        self.setup_abc()
        self.assertReply([b"y", b"z"], "ZINTER", "2", "a", "b")
        self.assertReply([b"y", b"12", b"z", b"23"], "ZINTER", "2", "a", "b", "WITHSCORES")
        self.assertReply([b"z", b"28"], "ZINTER", "3", "a", "b", "c", "WITHSCORES")
        self.assertReply([b"z", b"3"], "ZINTER", "3", "a", "b", "c", "AGGREGATE", "MIN",
                         "WITHSCORES")
        self.assertReply([b"z", b"20"], "ZINTER", "3", "a", "b", "c", "AGGREGATE", "MAX",
                         "WITHSCORES")
        self.assertReply([b"z", b"-9", b"y", b"-6"], "ZINTER", "2", "a",
                         "b", "WEIGHTS", "-3", "0", "WITHSCORES")
        self.assertReply([], "ZINTER", "2", "a", "nokey")
        self.assertReply([], "ZINTER", "2", "nokey", "a", "WITHSCORES")
        self.assertReply([b"x", b"y", b"z"], "ZINTER", "1", "a")

    def test_interstore(self):
        self.setup_abc()
        self.assertReply(2, "ZINTERSTORE", "d", "2", "b", "a", "WEIGHTS", "0.5", "2")
        self.assertReply([b"y", b"9", b"z", b"16"], "ZRANGE", "d", "0", "-1", "WITHSCORES")
        self.assertReply(1, "ZINTERSTORE", "d", "3", "a", "b", "c", "AGGREGATE", "MIN")
        self.assertReply([b"z", b"3"], "ZRANGE", "d", "0", "-1", "WITHSCORES")
        self.assertReply(0, "ZINTERSTORE", "d", "2", "a", "nokey")
        self.assertReply(0, "EXISTS", "d")

    def test_intercard(self):
        self.setup_abc()
        self.assertReply(2, "ZINTERCARD", "2", "a", "b")
        self.assertReply(1, "ZINTERCARD", "3", "a", "b", "c")
        self.assertReply(3, "ZINTERCARD", "1", "a")
        self.assertReply(1, "ZINTERCARD", "2", "a", "b", "LIMIT", "1")
        self.assertReply(2, "ZINTERCARD", "2", "a", "b", "LIMIT", "5")
        self.assertReply(2, "ZINTERCARD", "2", "a", "b", "limit", "0")  # 0: no limit
        self.assertReply(0, "ZINTERCARD", "2", "a", "nokey")
        self.assertReply(0, "ZINTERCARD", "2", "nokey", "a")
        self.assertErr(LIMIT_NEG, "ZINTERCARD", "1", "a", "LIMIT", "-1")
        self.assertErr(LIMIT_NEG, "ZINTERCARD", "1", "a", "LIMIT", "x")
        self.assertErr(LIMIT_NEG, "ZINTERCARD", "1", "a", "LIMIT", "1.5")
        self.assertErr(SYNTAX, "ZINTERCARD", "1", "a", "LIMIT")
        self.assertErr(SYNTAX, "ZINTERCARD", "1", "a", "FOO")
        self.assertErr(SYNTAX, "ZINTERCARD", "1", "a", "WEIGHTS", "1")
        self.assertErr(SYNTAX, "ZINTERCARD", "2", "a")
        self.assertErr(NOT_INT, "ZINTERCARD", "x", "a")
        self.assertErr(no_keys("zintercard"), "ZINTERCARD", "0", "a")
        self.assertErr(no_keys("zintercard"), "ZINTERCARD", "-1", "a")
        self.assertErr(arity("zintercard"), "ZINTERCARD", "1")


class DiffTest(AlgebraCase):
    def test_diff(self):
        self.setup_abc()
        self.assertReply([b"x"], "ZDIFF", "2", "a", "b")
        self.assertReply([b"x", b"1", b"y", b"2"], "ZDIFF", "2", "a", "c", "WITHSCORES")
        self.assertReply([b"x", b"1"], "ZDIFF", "3", "a", "b", "c", "WITHSCORES")
        self.assertReply([b"v", b"6"], "ZDIFF", "3", "c", "a", "b", "WITHSCORES")
        self.assertReply([b"x", b"1", b"y", b"2", b"z", b"3"], "ZDIFF", "2", "a", "nokey",
                         "WITHSCORES")
        self.assertReply([], "ZDIFF", "2", "nokey", "a")
        self.assertReply([], "ZDIFF", "2", "a", "a")
        self.assertReply([b"x", b"y", b"z"], "ZDIFF", "1", "a")

    def test_diffstore(self):
        self.setup_abc()
        self.assertReply(1, "ZDIFFSTORE", "d", "2", "b", "a")
        self.assertReply([b"w", b"30"], "ZRANGE", "d", "0", "-1", "WITHSCORES")
        self.assertReply(1, "ZDIFFSTORE", "a", "3", "a", "b", "c")
        self.assertReply([b"x", b"1"], "ZRANGE", "a", "0", "-1", "WITHSCORES")
        self.assertReply(0, "ZDIFFSTORE", "d", "2", "a", "a")
        self.assertReply(0, "EXISTS", "d")

    def test_options_rejected(self):
        self.setup_abc()
        self.assertErr(SYNTAX, "ZDIFF", "1", "a", "WEIGHTS", "1")
        self.assertErr(SYNTAX, "ZDIFF", "1", "a", "AGGREGATE", "SUM")
        self.assertErr(SYNTAX, "ZDIFFSTORE", "d", "1", "a", "WITHSCORES")
        self.assertErr(SYNTAX, "ZDIFFSTORE", "d", "1", "a", "WEIGHTS", "1")


class SourcesTest(AlgebraCase):
    def test_plain_sets_score_one(self):
        self.assertReply(3, "ZADD", "z", "1", "a", "2", "b", "3", "c")
        self.assertReply(3, "SADD", "s", "a", "x", "y")
        self.assertReply([b"x", b"1", b"y", b"1", b"a", b"2", b"b", b"2", b"c", b"3"], "ZUNION",
                         "2", "z", "s", "WITHSCORES")
        self.assertReply([b"a", b"2"], "ZINTER", "2", "z", "s", "WITHSCORES")
        self.assertReply([b"a", b"7"], "ZINTER", "2", "z", "s", "WEIGHTS", "2", "5", "WITHSCORES")
        self.assertReply([b"a", b"1"], "ZINTER", "2", "z", "s", "AGGREGATE", "MIN", "WITHSCORES")
        self.assertReply([b"x", b"1", b"y", b"1"], "ZDIFF", "2", "s", "z", "WITHSCORES")
        self.assertReply([b"b", b"c"], "ZDIFF", "2", "z", "s")
        self.assertReply(1, "ZINTERCARD", "2", "z", "s")
        self.assertReply([b"a", b"1.5", b"x", b"1.5", b"y", b"1.5"], "ZUNION", "1", "s", "WEIGHTS",
                         "1.5", "WITHSCORES")
        self.assertReply(5, "ZUNIONSTORE", "s", "2", "z", "s")  # the set becomes a sorted set
        self.assertReply("zset", "TYPE", "s")
        self.assertReply([b"x", b"1", b"y", b"1", b"a", b"2", b"b", b"2", b"c", b"3"], "ZRANGE",
                         "s", "0", "-1", "WITHSCORES")
        self.assertReply(200, "SADD", "big", *["m%d" % i for i in range(200)])  # hashtable form
        self.assertReply(200, "ZUNIONSTORE", "d", "1", "big")
        self.assertReply([b"m0", b"m1", b"m10"], "ZRANGE", "d", "0", "2")
        self.assertReply(b"skiplist", "OBJECT", "ENCODING", "d")

    def test_wrong_types(self):
        self.assertReply(1, "ZADD", "z", "1", "a")
        self.assertReply("OK", "SET", "str", "x")
        self.assertReply(1, "RPUSH", "list", "a")
        for bad in ("str", "list"):
            for cmd in (["ZUNION", "2", "z", bad], ["ZINTER", "2", bad, "z"],
                        ["ZDIFF", "2", "z", bad], ["ZDIFF", "2", bad, "z"],
                        ["ZINTERCARD", "2", "z", bad], ["ZUNIONSTORE", "d", "2", "z", bad],
                        ["ZINTERSTORE", "d", "2", "nokey", bad],
                        ["ZDIFFSTORE", "d", "2", "nokey", bad]):
                self.assertErr(WRONGTYPE, *cmd)
        self.assertReply(0, "EXISTS", "d")

    def test_destination(self):
        self.assertReply(2, "ZADD", "z", "1", "a", "2", "b")
        for cmd in (["ZUNIONSTORE", "d", "1", "z"], ["ZINTERSTORE", "d", "1", "z"],
                    ["ZDIFFSTORE", "d", "1", "z"]):
            self.assertReply("OK", "SET", "d", "string")
            self.assertReply(1, "EXPIRE", "d", "100")
            self.assertReply(2, *cmd)
            self.assertReply("zset", "TYPE", "d")
            self.assertReply(-1, "TTL", "d")  # replaced, TTL gone
        for cmd in (["ZUNIONSTORE", "d", "1", "nokey"], ["ZINTERSTORE", "d", "2", "z", "nokey"],
                    ["ZDIFFSTORE", "d", "2", "z", "z"]):
            self.assertReply("OK", "SET", "d", "string")
            self.assertReply(0, *cmd)
            self.assertReply(0, "EXISTS", "d")  # empty result: the destination is deleted
            self.assertReply(0, *cmd)
            self.assertReply(0, "EXISTS", "d")


class ArithmeticTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.assertReply(3, "ZADD", "p", "inf", "a", "1", "b", "-inf", "c")
        self.assertReply(3, "ZADD", "n", "-inf", "a", "2", "b", "inf", "c")

    def test_inf_sum_is_zero(self):
        self.assertReply([b"a", b"0", b"c", b"0", b"b", b"3"], "ZUNION", "2", "p", "n",
                         "WITHSCORES")
        self.assertReply([b"a", b"0", b"c", b"0", b"b", b"3"], "ZINTER", "2", "p", "n",
                         "WITHSCORES")
        self.assertReply(3, "ZINTERSTORE", "d", "2", "p", "n")
        self.assertReply([b"a", b"0", b"c", b"0", b"b", b"3"], "ZRANGE", "d", "0", "-1",
                         "WITHSCORES")

    def test_min_max(self):
        self.assertReply([b"a", b"-inf", b"c", b"-inf", b"b", b"1"], "ZUNION", "2", "p", "n",
                         "AGGREGATE", "MIN", "WITHSCORES")
        self.assertReply([b"b", b"2", b"a", b"inf", b"c", b"inf"], "ZUNION", "2", "p", "n",
                         "AGGREGATE", "MAX", "WITHSCORES")

    def test_weights_with_inf(self):
        self.assertReply([b"a", b"0", b"b", b"0", b"c", b"0"], "ZUNION", "1", "p", "WEIGHTS", "0",
                         "WITHSCORES")  # 0 * inf is 0, not NaN
        self.assertReply([b"a", b"-inf", b"b", b"2", b"c", b"inf"], "ZUNION", "2", "p", "n",
                         "WEIGHTS", "0", "1", "WITHSCORES")
        self.assertReply([b"a", b"-inf", b"b", b"1", b"c", b"inf"], "ZUNION", "2", "p", "n",
                         "WEIGHTS", "-1", "1", "WITHSCORES")
        self.assertReply([b"c", b"-inf", b"a", b"inf", b"b", b"inf"], "ZUNION", "1", "p",
                         "WEIGHTS", "inf", "WITHSCORES")
        self.assertReply([b"a", b"-inf", b"b", b"-inf", b"c", b"inf"], "ZUNION", "1", "p",
                         "WEIGHTS", "-inf", "WITHSCORES")
        self.assertReply([b"c", b"-inf", b"b", b"1.5", b"a", b"inf"], "ZUNION", "1", "p",
                         "WEIGHTS", "1.5", "WITHSCORES")

    def test_float_printing(self):
        self.assertReply(1, "ZADD", "f", "0.1", "m")
        self.assertReply(1, "ZADD", "g", "0.2", "m")
        self.assertReply([b"m", b"0.30000000000000004"], "ZUNION", "2", "f", "g", "WITHSCORES")
        self.assertReply([b"m", b"1.0000000000000001e+300"], "ZUNION", "1", "f", "WEIGHTS",
                         "1e301", "WITHSCORES")

    def test_resp3(self):
        c = self.resp3_client()
        self.assertRawReply(b"*3\r\n*2\r\n$1\r\na\r\n,0\r\n*2\r\n$1\r\nc\r\n,0\r\n"
                            b"*2\r\n$1\r\nb\r\n,3\r\n", "ZUNION", "2", "p", "n", "WITHSCORES",
                            client=c)
        self.assertRawReply(b"*3\r\n$1\r\na\r\n$1\r\nc\r\n$1\r\nb\r\n", "ZINTER", "2", "p", "n",
                            client=c)
        self.assertRawReply(b"*3\r\n*2\r\n$1\r\nc\r\n,-inf\r\n*2\r\n$1\r\nb\r\n,1\r\n"
                            b"*2\r\n$1\r\na\r\n,inf\r\n", "ZDIFF", "2", "p", "nokey",
                            "WITHSCORES", client=c)
        self.assertRawReply(b"*0\r\n", "ZINTER", "2", "p", "nokey", "WITHSCORES", client=c)
        self.assertRawReply(b":3\r\n", "ZUNIONSTORE", "d", "1", "p", client=c)
        self.assertRawReply(b":3\r\n", "ZINTERCARD", "2", "p", "n", client=c)


class ErrorsTest(ServerTestCase):
    def test_numkeys_and_options(self):
        self.assertReply(2, "ZADD", "z", "1", "a", "2", "b")
        for cmd, pre in (("ZUNION", []), ("ZINTER", []), ("ZDIFF", []),
                         ("ZUNIONSTORE", ["d"]), ("ZINTERSTORE", ["d"]), ("ZDIFFSTORE", ["d"])):
            self.assertErr(no_keys(cmd.lower()), cmd, *pre, "0", "z")
            self.assertErr(no_keys(cmd.lower()), cmd, *pre, "-1", "z")
            self.assertErr(NOT_INT, cmd, *pre, "x", "z")
            self.assertErr(NOT_INT, cmd, *pre, "1.5", "z")
            self.assertErr(SYNTAX, cmd, *pre, "3", "z")
            self.assertErr(SYNTAX, cmd, *pre, "2", "z")
            self.assertErr(SYNTAX, cmd, *pre, "9999999999", "z")
            self.assertErr(SYNTAX, cmd, *pre, "1", "z", "FOO")
            self.assertErr(arity(cmd.lower()), cmd, *pre, "1")
        for cmd, pre in (("ZUNION", []), ("ZINTER", []), ("ZUNIONSTORE", ["d"]),
                         ("ZINTERSTORE", ["d"])):
            self.assertErr(SYNTAX, cmd, *pre, "2", "z", "z", "WEIGHTS", "1")
            self.assertErr(SYNTAX, cmd, *pre, "1", "z", "WEIGHTS", "1", "2")
            self.assertErr(SYNTAX, cmd, *pre, "1", "z", "WEIGHTS")
            for w in ("x", "nan", "(1", ""):
                self.assertErr(WEIGHT_ERR, cmd, *pre, "1", "z", "WEIGHTS", w)
            self.assertErr(SYNTAX, cmd, *pre, "1", "z", "AGGREGATE", "AVG")
            self.assertErr(SYNTAX, cmd, *pre, "1", "z", "AGGREGATE")
        self.assertErr(SYNTAX, "ZUNIONSTORE", "d", "1", "z", "WITHSCORES")
        self.assertErr(SYNTAX, "ZINTERSTORE", "d", "1", "z", "WITHSCORES")
        self.assertErr(arity("zunionstore"), "ZUNIONSTORE", "d")
        self.assertReply(0, "EXISTS", "d")


class ModelTest(ServerTestCase):
    """Seeded random inputs of both forms; replies checked against exact Python arithmetic."""

    def make(self, rng, key, n, universe, plain=False):
        members = rng.sample(universe, n)
        if plain:
            self.assertReply(n, "SADD", key, *members)
            return {m: 1.0 for m in members}
        d = {m: rng.choice([-1, 1]) * rng.randrange(1, 400) / 4 for m in members}
        args = []
        for m, s in d.items():
            args += [fmt_score(s), m]
        self.assertReply(n, "ZADD", key, *args)
        return d

    def test_against_python(self):
        rng = random.Random(20261122)
        universe = [b"e%03d" % i for i in range(400)] + [b"x" * 70]
        biggest = {"union": 0, "inter": 0, "diff": 0}
        for round_ in range(12):
            self.assertReply("OK", "FLUSHALL")
            nkeys = rng.randrange(1, 4)
            keys = ["k%d" % i for i in range(nkeys)]
            sets = [self.make(rng, k, rng.choice([3, 20, 150, 300]), universe,
                              plain=(i == 1 and round_ % 3 == 0)) for i, k in enumerate(keys)]
            weights = [rng.choice([1, 2, -1, 0.5, 3, -0.25]) for _ in keys]
            agg = rng.choice(["SUM", "MIN", "MAX"])
            fold = {"SUM": lambda a, b: a + b, "MIN": min, "MAX": max}[agg]
            union, inter = {}, None
            for d, w in zip(sets, weights):
                weighted = {m: w * s for m, s in d.items()}
                for m, s in weighted.items():
                    union[m] = fold(union[m], s) if m in union else s
                inter = (weighted if inter is None else
                         {m: fold(s, weighted[m]) for m, s in inter.items() if m in weighted})
            diff = {m: s for m, s in sets[0].items() if not any(m in d for d in sets[1:])}
            for name, result in (("union", union), ("inter", inter), ("diff", diff)):
                biggest[name] = max(biggest[name], len(result))
            opts = ["WEIGHTS"] + [fmt_score(w) for w in weights] + ["AGGREGATE", agg]
            with self.subTest(round=round_, sizes=[len(d) for d in sets], agg=agg):
                n = str(nkeys)
                self.assertReply(flat(union), "ZUNION", n, *keys, *opts, "WITHSCORES")
                self.assertReply(flat(inter), "ZINTER", n, *keys, *opts, "WITHSCORES")
                self.assertReply(flat(diff), "ZDIFF", n, *keys, "WITHSCORES")
                self.assertReply(len(inter), "ZINTERCARD", n, *keys)
                self.assertReply(min(len(inter), 5) if inter else 0, "ZINTERCARD", n, *keys,
                                 "LIMIT", "5")
                for cmd, want in (("ZUNIONSTORE", union), ("ZINTERSTORE", inter)):
                    self.assertReply(len(want), cmd, "dst", n, *keys, *opts)
                    self.assertReply(flat(want), "ZRANGE", "dst", "0", "-1", "WITHSCORES")
                self.assertReply(len(diff), "ZDIFFSTORE", "dst", n, *keys)
                self.assertReply(flat(diff), "ZRANGE", "dst", "0", "-1", "WITHSCORES")
        # The seed gives large results of every kind (the skiplist form on both sides).
        self.assertGreater(min(biggest.values()), 128, biggest)


if __name__ == "__main__":
    unittest.main()
