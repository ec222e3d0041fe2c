"""Sorted sets under load: a seeded random sequence of 3000 commands checked reply by reply against the
Python model (zsetmodel), on a small set, a set that grows past 128 members (Redis's large form) and a
lex set; and connections in parallel: ZINCRBY totals, ZADD of distinct members, ZPOPMIN handing every
member out exactly once.

Threads each own a connection and pipeline batches, so the server really has several connections'
commands in flight at once."""

import math
import random
import threading
import unittest

from harness import RawClient, ServerTestCase, encode_command, run_threads
from zsetmodel import ZModel, fmt_score, parse_lex_bound, parse_score_bound

STEPS = 3000
SEED = 1122

ZADD_FLAGS = ((), ("NX",), ("XX",), ("GT",), ("LT",), ("XX", "GT"), ("XX", "LT"), ("CH",),
              ("NX", "CH"), ("GT", "CH"), ("XX", "LT", "CH"))


class DifferentialTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.rng = random.Random(SEED)
        self.c3 = self.resp3_client()
        self.models = {"s": ZModel(), "z": ZModel(), "lex": ZModel()}
        self.pools = {
            "s": [b"a", b"b", b"c", b"d", b"e", b"f", b"", b"\x00", b"a\x00", b"long" * 10] +
                 [b"s%d" % i for i in range(14)],
            "z": [b"m%03d" % i for i in range(400)],
            "lex": [bytes([c]) + bytes([d]) * k for c in b"abcxyz" for d in b"a\x00z~"
                    for k in range(3)] + [b"", b"\x00", b"\xff"] + [b"L%03d" % i for i in range(160)],
        }
        self.step = 0
        self.big_steps = 0  # steps run while "z" had more than 128 members

    # -- random arguments ------------------------------------------------------------------------

    def score(self):
        r = self.rng.random()
        if r < 0.03:
            return self.rng.choice([math.inf, -math.inf])
        if r < 0.5:
            return float(self.rng.randrange(-20, 21))
        if r < 0.7:
            return self.rng.randrange(-40, 41) / 4
        return self.rng.uniform(-1e6, 1e6)

    def member(self, key):
        return self.rng.choice(self.pools[key])

    def score_bound(self, model):
        r = self.rng.random()
        if r < 0.1:
            return self.rng.choice(["-inf", "+inf", "inf", "-inf"])
        if r < 0.6 and len(model):
            s = self.rng.choice(list(model.d.values()))
        else:
            s = self.score()
        text = fmt_score(s).decode()
        return ("(" + text) if self.rng.random() < 0.3 else text

    def narrow_score_bounds(self, model):
        """Bounds a few ranks apart (removals of wide random ranges would keep the sets small)."""
        o = model.ordered()
        if not o or self.rng.random() < 0.1:
            return self.score_bound(model), self.score_bound(model)
        i = self.rng.randrange(len(o))
        j = min(i + self.rng.randrange(4), len(o) - 1)
        return tuple(("(" if self.rng.random() < 0.3 else "") + fmt_score(o[k][1]).decode()
                     for k in (i, j))

    def narrow_lex_bounds(self, model):
        o = sorted(model.d)
        if not o or self.rng.random() < 0.1:
            return self.lex_bound(model), self.lex_bound(model)
        i = self.rng.randrange(len(o))
        j = min(i + self.rng.randrange(4), len(o) - 1)
        return tuple((b"(" if self.rng.random() < 0.3 else b"[") + o[k] for k in (i, j))

    def lex_bound(self, model):
        r = self.rng.random()
        if r < 0.15:
            return self.rng.choice([b"-", b"+"])
        m = self.rng.choice(list(model.d)) if r < 0.6 and len(model) else self.member("lex")
        return (b"(" if self.rng.random() < 0.4 else b"[") + m

    def limit(self, n):
        r = self.rng.random()
        if r < 0.5:
            return None
        return (self.rng.choice([0, 0, 1, 2, n // 2, n, -1]),
                self.rng.choice([-1, 0, 1, 3, 10, 200]))

    # -- checking --------------------------------------------------------------------------------

    def check(self, want, *args, client=None):
        got = (client or self.raw).call(*args)
        self.assertEqual(got, want, "step %d: %r" % (self.step, args))

    def check_whole(self, key):
        model = self.models[key]
        self.check(model.zrange(0, -1, withscores=True), "ZRANGE", key, "0", "-1", "WITHSCORES")
        self.check(1 if len(model) else 0, "EXISTS", key)

    # -- one random command ----------------------------------------------------------------------

    def scored_op(self, key):
        rng, m = self.rng, self.models[key]
        r = rng.random()
        if r < 0.30:
            flags = rng.choice(ZADD_FLAGS)
            incr = rng.random() < 0.15
            npairs = 1 if incr else rng.randrange(1, 13 if key == "z" else 5)
            pairs = [(self.score(), self.member(key)) for _ in range(npairs)]
            kw = {f.lower(): True for f in flags}
            args = ["ZADD", key, *flags] + (["INCR"] if incr else [])
            for s, mem in pairs:
                args += [fmt_score(s), mem]
            self.check(m.zadd(pairs, incr=incr, **kw), *args)
        elif r < 0.40:
            incr, mem = self.score(), self.member(key)
            self.check(m.zincrby(incr, mem), "ZINCRBY", key, fmt_score(incr), mem)
        elif r < 0.46:
            members = [self.member(key) for _ in range(rng.randrange(1, 4))]
            self.check(m.zrem(members), "ZREM", key, *members)
        elif r < 0.49:
            lo_s, hi_s = self.narrow_score_bounds(m)
            want = m.zremrangebyscore(parse_score_bound(lo_s), parse_score_bound(hi_s))
            self.check(want, "ZREMRANGEBYSCORE", key, lo_s, hi_s)
        elif r < 0.52:
            start = rng.randrange(-len(m) - 2, len(m) + 2)
            stop = start + rng.randrange(0, 3) if rng.random() < 0.8 else rng.randrange(-3, 3)
            self.check(m.zremrangebyrank(start, stop), "ZREMRANGEBYRANK", key, str(start),
                       str(stop))
        elif r < 0.56:
            cmd = rng.choice(["ZPOPMIN", "ZPOPMAX"])
            count = rng.choice([None, 0, 1, 2, 3])
            args = [cmd, key] + ([] if count is None else [str(count)])
            self.check(m.pop(cmd == "ZPOPMAX", count), *args)
        elif r < 0.64:
            n = len(m)
            start, stop = rng.randrange(-n - 3, n + 3), rng.randrange(-n - 3, n + 3)
            rev, ws = rng.random() < 0.5, rng.random() < 0.5
            args = ["ZRANGE", key, str(start), str(stop)] + (["REV"] if rev else []) + \
                (["WITHSCORES"] if ws else [])
            self.check(m.zrange(start, stop, rev, ws), *args)
        elif r < 0.76:
            lo_s, hi_s = self.score_bound(m), self.score_bound(m)
            lo, hi = parse_score_bound(lo_s), parse_score_bound(hi_s)
            rev, ws, limit = rng.random() < 0.5, rng.random() < 0.5, self.limit(len(m))
            off, cnt = limit if limit else (None, None)
            extra = (["WITHSCORES"] if ws else []) + \
                (["LIMIT", str(off), str(cnt)] if limit else [])
            want = m.zrangebyscore(lo, hi, rev, ws, off, cnt)
            form = rng.randrange(3)
            if form == 0:
                args = ["ZRANGE", key] + ([hi_s, lo_s, "BYSCORE", "REV"] if rev else
                                          [lo_s, hi_s, "BYSCORE"]) + extra
            elif rev:
                args = ["ZREVRANGEBYSCORE", key, hi_s, lo_s] + extra
            else:
                args = ["ZRANGEBYSCORE", key, lo_s, hi_s] + extra
            self.check(want, *args)
        elif r < 0.80:
            lo_s, hi_s = self.score_bound(m), self.score_bound(m)
            self.check(m.zcount(parse_score_bound(lo_s), parse_score_bound(hi_s)), "ZCOUNT", key,
                       lo_s, hi_s)
        elif r < 0.88:
            mem = self.member(key)
            cmd = rng.choice(["ZRANK", "ZREVRANK", "ZSCORE"])
            want = m.zscore(mem) if cmd == "ZSCORE" else m.zrank(mem, cmd == "ZREVRANK")
            self.check(want, cmd, key, mem)
        elif r < 0.92:
            members = [self.member(key) for _ in range(rng.randrange(1, 6))]
            self.check(m.zmscore(members), "ZMSCORE", key, *members)
        elif r < 0.95:
            self.check(len(m), "ZCARD", key)
        else:  # RESP3: doubles
            mem = self.member(key)
            self.check(m.d.get(mem), "ZSCORE", key, mem, client=self.c3)
            start = rng.randrange(len(m) + 1)
            want = [[x, s] for x, s in m.ordered()[start:start + 5]]
            self.check(want, "ZRANGE", key, str(start), str(start + 4), "WITHSCORES",
                       client=self.c3)

    def lex_op(self):
        rng, m, key = self.rng, self.models["lex"], "lex"
        r = rng.random()
        if r < 0.35:
            members = [self.member(key) for _ in range(rng.randrange(1, 8))]
            nx = rng.random() < 0.3
            args = ["ZADD", key] + (["NX"] if nx else [])
            for mem in members:
                args += ["0", mem]
            self.check(m.zadd([(0.0, mem) for mem in members], nx=nx), *args)
        elif r < 0.45:
            members = [self.member(key) for _ in range(rng.randrange(1, 4))]
            self.check(m.zrem(members), "ZREM", key, *members)
        elif r < 0.52:
            lo_s, hi_s = self.narrow_lex_bounds(m)
            want = m.zremrangebylex(parse_lex_bound(lo_s), parse_lex_bound(hi_s))
            self.check(want, "ZREMRANGEBYLEX", key, lo_s, hi_s)
        elif r < 0.85:
            lo_s, hi_s = self.lex_bound(m), self.lex_bound(m)
            lo, hi = parse_lex_bound(lo_s), parse_lex_bound(hi_s)
            rev, limit = rng.random() < 0.5, self.limit(len(m))
            off, cnt = limit if limit else (None, None)
            extra = ["LIMIT", str(off), str(cnt)] if limit else []
            if rng.random() < 0.5:
                args = ["ZRANGE", key] + ([hi_s, lo_s, "BYLEX", "REV"] if rev else
                                          [lo_s, hi_s, "BYLEX"]) + extra
            elif rev:
                args = ["ZREVRANGEBYLEX", key, hi_s, lo_s] + extra
            else:
                args = ["ZRANGEBYLEX", key, lo_s, hi_s] + extra
            self.check(m.zrangebylex(lo, hi, rev, off, cnt), *args)
        elif r < 0.95:
            lo_s, hi_s = self.lex_bound(m), self.lex_bound(m)
            self.check(m.zlexcount(parse_lex_bound(lo_s), parse_lex_bound(hi_s)), "ZLEXCOUNT",
                       key, lo_s, hi_s)
        else:
            cmd, count = rng.choice(["ZPOPMIN", "ZPOPMAX"]), rng.choice([1, 2])
            self.check(m.pop(cmd == "ZPOPMAX", count), cmd, key, str(count))

    def test_random_commands_match_the_model(self):
        sizes = {k: 0 for k in self.models}
        for self.step in range(STEPS):
            key = self.rng.choices(["s", "z", "lex"], weights=[3, 5, 2])[0]
            if key == "lex":
                self.lex_op()
            else:
                self.scored_op(key)
            if len(self.models["z"]) > 128:
                self.big_steps += 1
            for k, mdl in self.models.items():
                sizes[k] = max(sizes[k], len(mdl))
            if self.step % 100 == 99:
                for k in self.models:
                    self.check_whole(k)
        for k in self.models:
            self.check_whole(k)
        # The seed drives every key through a range of sizes; "z" spends long in the large form.
        self.assertGreater(sizes["z"], 128, sizes)
        self.assertGreater(sizes["lex"], 128, sizes)
        self.assertGreater(self.big_steps, STEPS // 4, self.big_steps)
        self.assertGreater(sizes["s"], 10, sizes)



class ConcurrencyTest(ServerTestCase):
    THREADS = 8
    BATCH = 100

    def test_zincrby_nothing_lost(self):
        per_thread, members = 2000, [b"a", b"b", b"c", b"d"]
        self.assertReply(1, "ZADD", "z", "0", "a")  # a starts in the set, the others do not

        def worker(i):
            incr = (i + 1) * 0.25  # exact in binary: every total is exact
            last = {}
            with RawClient(self.port) as c:
                for b in range(per_thread // self.BATCH):
                    batch = [members[(b * self.BATCH + k) % 4] for k in range(self.BATCH)]
                    c.send(b"".join(encode_command("ZINCRBY", "z", fmt_score(incr), m)
                                    for m in batch))
                    for m in batch:
                        v = float(c.read_reply())
                        if m in last and not v > last[m]:
                            raise AssertionError("ZINCRBY %r went from %r to %r" % (m, last[m], v))
                        last[m] = v

        run_threads(worker, self.THREADS)
        per_member = per_thread // 4
        total = sum(per_member * (i + 1) * 0.25 for i in range(self.THREADS))
        self.assertReply([fmt_score(total)] * 4, "ZMSCORE", "z", *members)
        self.assertReply(4, "ZCARD", "z")

    def test_zadd_distinct_members(self):
        per_thread = 600  # 4800 in all: the set converts to the large form on the way

        def worker(i):
            with RawClient(self.port) as c:
                for b in range(0, per_thread, self.BATCH):
                    c.send(b"".join(encode_command("ZADD", "z", str(k), "t%d-%d" % (i, k))
                                    for k in range(b, b + self.BATCH)))
                    for _ in range(self.BATCH):
                        v = c.read_reply()
                        if v != 1:
                            raise AssertionError("ZADD replied %r" % (v,))

        run_threads(worker, self.THREADS)
        self.assertReply(self.THREADS * per_thread, "ZCARD", "z")
        self.assertReply(self.THREADS, "ZCOUNT", "z", "0", "0")
        self.assertReply([b"t%d-%d" % (i, per_thread - 1) for i in range(self.THREADS)], "ZRANGE",
                         "z", str(-self.THREADS), "-1")
        self.assertReply(b"skiplist", "OBJECT", "ENCODING", "z")

    def test_zpopmin_hands_out_each_member_once(self):
        n = 4000
        args = []
        for k in range(n):
            args += [str(k), "p%d" % k]
        self.assertReply(n, "ZADD", "z", *args)
        popped = [[] for _ in range(self.THREADS)]

        def worker(i):
            with RawClient(self.port) as c:
                while True:
                    c.send(encode_command("ZPOPMIN", "z", "3") * 10)
                    got = []
                    for _ in range(10):
                        got += c.read_reply()
                    if not got:
                        return
                    scores = [int(s) for s in got[1::2]]
                    if popped[i] and scores and scores[0] <= popped[i][-1]:
                        raise AssertionError("one connection popped out of order")
                    if scores != sorted(scores):
                        raise AssertionError("ZPOPMIN replies out of order: %r" % scores)
                    popped[i] += scores

        run_threads(worker, self.THREADS)
        everything = sorted(s for p in popped for s in p)
        self.assertEqual(everything, list(range(n)))  # each exactly once
        self.assertReply(0, "EXISTS", "z")


if __name__ == "__main__":
    unittest.main()
