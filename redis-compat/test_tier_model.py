"""The cold tier checked against a model: a server whose maxmemory holds a fraction of its string
values answers every command exactly as a plain Redis would (a Python model of what was written
predicts each reply), under several connections at once whose batches wait for cold values read
ahead; and a SIGKILL with most values cold loses no acknowledged write (appendfsync always).
ordis-only (tier-dir and INFO tiering are ordis's); the replies the model predicts are those
redis-server 7 gives (with no maxmemory and no tier).

ORDIS_TIER_MODEL_SEED overrides the seed (printed) of the random operations.
"""

import os
import random
import re
import threading
import time
import traceback
import unittest

from harness import IS_ORDIS, RespError
from persist_util import PersistentTestCase

SEED = int(os.environ.get("ORDIS_TIER_MODEL_SEED", "20261124"))

THREADS = 8
STRING_KEYS = 2500      # per thread: 20000 keys of ~600 bytes under a 6 MB limit
INT_KEYS = 40           # per thread, holding integers (INCR)
HASH_KEYS = 10
ZSET_KEYS = 10
COMMANDS = 5000         # per thread, pipelined or not
LONG_TTL = 1_000_000    # seconds: no key expires during the test

NOT_INT = "value is not an integer or out of range"   # redis-py strips the "ERR "
OVERFLOW = "increment or decrement would overflow"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)
_INT_RE = re.compile(rb"(0|-?[1-9][0-9]*)\Z")


def big_value(rng, low=550, high=650):
    """Random bytes: nothing lz4 can shrink, so every one costs its size wherever it lives."""
    return rng.randbytes(rng.randint(low, high))


def as_int(v):
    """The integer Redis's string2ll reads from v, or None (no sign '+', no leading zeros, no
    '-0', no spaces, 64-bit range)."""
    if len(v) > 20 or not _INT_RE.match(v) or v == b"-0":
        return None
    n = int(v)
    return n if INT64_MIN <= n <= INT64_MAX else None


class Hash(dict):
    pass


class ZSet(dict):
    pass


class Error:
    """An error reply as redis-py gives it: a ResponseError (exactly that class) with this text."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return "Error(%r)" % self.text


class TTLSet:
    """TTL of a key with a timeout: 0 < ttl <= LONG_TTL."""

    def __repr__(self):
        return "TTL in (0, %d]" % LONG_TTL


TTL_SET = TTLSet()


def matches(expected, got):
    if isinstance(expected, Error):
        return type(got).__name__ == "ResponseError" and str(got) == expected.text
    if isinstance(expected, RespError):
        return got == expected
    if expected is TTL_SET:
        return type(got) is int and 0 < got <= LONG_TTL
    if isinstance(got, Exception):
        return False
    # bool/int are told apart: redis-py answers True/False to EXPIRE and PERSIST, ints to DEL.
    return type(expected) is type(got) and expected == got


def getrange(v, start, end):
    """GETRANGE as t_string.c computes it (Redis 7.0)."""
    n = len(v)
    if start < 0 and end < 0 and start > end:
        return b""
    if start < 0:
        start += n
    if end < 0:
        end += n
    start, end = max(start, 0), max(end, 0)
    if end >= n:
        end = n - 1
    if start > end or n == 0:
        return b""
    return v[start:end + 1]


class Model:
    """One connection's keys: key -> bytes | Hash | ZSet, and the keys that have a timeout. Every
    method applies a command and returns the reply redis-py gives for it."""

    def __init__(self):
        self.data = {}
        self.ttl = set()

    def _string(self, k):
        v = self.data.get(k)
        if v is not None and not isinstance(v, bytes):
            return Error(WRONGTYPE)
        return v

    def get(self, k):
        return self._string(k)

    def set(self, k, v):
        self.data[k] = v
        self.ttl.discard(k)
        return True

    def append(self, k, s):
        v = self._string(k)
        if isinstance(v, Error):
            return v
        self.data[k] = (v or b"") + s
        return len(self.data[k])

    def incr(self, k):
        v = self._string(k)
        if isinstance(v, Error):
            return v
        n = 0 if v is None else as_int(v)
        if n is None:
            return Error(NOT_INT)
        if n == INT64_MAX:
            return Error(OVERFLOW)
        self.data[k] = b"%d" % (n + 1)
        return n + 1

    def delete(self, *keys):
        n = 0
        for k in keys:
            if k in self.data:
                del self.data[k]
                self.ttl.discard(k)
                n += 1
        return n

    def expire(self, k, seconds):
        if k not in self.data:
            return False
        self.ttl.add(k)
        return True

    def ttl_of(self, k):
        if k not in self.data:
            return -2
        return TTL_SET if k in self.ttl else -1

    def persist(self, k):
        if k not in self.ttl:
            return False
        self.ttl.discard(k)
        return True

    def exists(self, *keys):
        return sum(k in self.data for k in keys)

    def strlen(self, k):
        v = self._string(k)
        return v if isinstance(v, Error) else len(v or b"")

    def getrange(self, k, start, end):
        v = self._string(k)
        return v if isinstance(v, Error) else getrange(v or b"", start, end)

    def mget(self, keys):
        return [v if isinstance(v, bytes) else None for v in map(self.data.get, keys)]

    def hset(self, k, field, value):
        h = self.data.get(k)
        if h is None:
            h = self.data[k] = Hash()
        new = field not in h
        h[field] = value
        return int(new)

    def hgetall(self, k):
        h = self.data.get(k)
        if h is None:
            return {}
        return dict(h) if isinstance(h, Hash) else Error(WRONGTYPE)

    def zadd(self, k, mapping):
        z = self.data.get(k)
        if z is None:
            z = self.data[k] = ZSet()
        new = sum(m not in z for m in mapping)
        z.update(mapping)
        return new

    def zrange_withscores(self, k):
        z = self.data.get(k)
        if z is None:
            return []
        if not isinstance(z, ZSet):
            return Error(WRONGTYPE)
        return [(m, float(s)) for m, s in sorted(z.items(), key=lambda ms: (ms[1], ms[0]))]


class Worker:
    """One thread's keys, model and random commands. A command is (redis-py method, args, kwargs,
    expected reply); the model is applied when the command is made, so a batch's expected replies
    are those of its commands in order."""

    def __init__(self, t, rng):
        self.t = t
        self.rng = rng
        self.model = Model()
        self.strings = ["t%d:s:%04d" % (t, i) for i in range(STRING_KEYS)]
        self.ints = ["t%d:n:%02d" % (t, i) for i in range(INT_KEYS)]
        self.hashes = ["t%d:h:%02d" % (t, i) for i in range(HASH_KEYS)]
        self.zsets = ["t%d:z:%02d" % (t, i) for i in range(ZSET_KEYS)]
        self.all_keys = self.strings + self.ints + self.hashes + self.zsets
        self.counts = {}
        self.commands = 0

    # -- the initial data set (loaded by the main thread) ------------------------------------------

    def initial(self):
        rng, m = self.rng, self.model
        cmds = []
        for k in self.strings:
            v = big_value(rng)
            cmds.append(("set", (k, v), {}, m.set(k, v)))
        for k in self.ints:
            v = b"%d" % rng.randint(-1000, 1000000)
            cmds.append(("set", (k, v), {}, m.set(k, v)))
        for k in self.hashes:
            mapping = {b"f%d" % i: b"v%d" % rng.randrange(1000) for i in range(5)}
            m.data[k] = Hash(mapping)
            cmds.append(("hset", (k,), {"mapping": mapping}, 5))
        for k in self.zsets:
            mapping = {b"m%d" % i: rng.randint(-100, 100) / 4 for i in range(5)}
            cmds.append(("zadd", (k, mapping), {}, m.zadd(k, mapping)))
        return cmds

    # -- random commands -------------------------------------------------------------------------

    def string_key(self):
        return self.rng.choice(self.strings)

    def int_key(self):
        return self.rng.choice(self.ints)

    def any_key(self):
        r = self.rng.random()
        if r < 0.6:
            return self.string_key()
        if r < 0.8:
            return self.int_key()
        return self.rng.choice(self.hashes if r < 0.9 else self.zsets)

    def new_value(self):
        r = self.rng.random()
        if r < 0.1:
            return self.rng.randbytes(self.rng.randint(1, 63))   # short: stays in memory
        if r < 0.15:
            return b"%d" % self.rng.randint(-50, 50)             # an integer after all
        return big_value(self.rng, 64, 1200)

    def make(self, name, args, kwargs=None):
        self.counts[name] = self.counts.get(name, 0) + 1
        return (name, args, kwargs or {})

    def random_commands(self):
        """One or two commands (EXPIRE is followed by TTL) with their expected replies."""
        rng, m = self.rng, self.model
        op = rng.choices(
            ["get", "set", "append", "incr", "incr_string", "del", "expire", "persist", "ttl",
             "exists", "strlen", "getrange", "mget", "hset", "hgetall", "zadd", "zrange",
             "wrongtype"],
            [16, 8, 5, 8, 2, 3, 4, 3, 2, 4, 5, 6, 6, 3, 3, 3, 3, 2])[0]
        if op == "get":
            k = self.string_key() if rng.random() < 0.85 else self.int_key()
            return [self.make("get", (k,)) + (m.get(k),)]
        if op == "set":
            if rng.random() < 0.8:
                k, v = self.string_key(), self.new_value()
            else:
                k, v = self.int_key(), b"%d" % rng.randint(-10**6, 10**6)
            return [self.make("set", (k, v)) + (m.set(k, v),)]
        if op == "append":
            if rng.random() < 0.7:
                k, s = self.string_key(), rng.randbytes(rng.randint(1, 100))
            else:
                k, s = self.int_key(), rng.choice([b"7", b"0", b"12", b"x"])
            return [self.make("append", (k, s)) + (m.append(k, s),)]
        if op == "incr":
            k = self.int_key()
            return [self.make("incr", (k,)) + (m.incr(k),)]
        if op == "incr_string":  # mostly a 600-byte value, likely cold: not an integer
            k = self.string_key()
            return [self.make("incr", (k,)) + (m.incr(k),)]
        if op == "del":
            keys = [self.any_key() for _ in range(rng.choice([1, 1, 1, 2, 3]))]
            return [self.make("delete", tuple(keys)) + (m.delete(*keys),)]
        if op == "expire":
            k = self.any_key()
            return [self.make("expire", (k, LONG_TTL)) + (m.expire(k, LONG_TTL),),
                    self.make("ttl", (k,)) + (m.ttl_of(k),)]
        if op == "persist":
            k = self.any_key()
            return [self.make("persist", (k,)) + (m.persist(k),)]
        if op == "ttl":
            k = self.any_key()
            return [self.make("ttl", (k,)) + (m.ttl_of(k),)]
        if op == "exists":
            keys = [self.any_key() for _ in range(rng.randint(1, 4))]
            return [self.make("exists", tuple(keys)) + (m.exists(*keys),)]
        if op == "strlen":
            k = self.string_key() if rng.random() < 0.85 else self.int_key()
            return [self.make("strlen", (k,)) + (m.strlen(k),)]
        if op == "getrange":
            k = self.string_key()
            r = rng.random()
            if r < 0.6:
                start = rng.randint(0, 700)
                end = start + rng.randint(-5, 200)
            elif r < 0.9:
                start, end = rng.randint(-700, 50), rng.randint(-700, 700)
            else:
                start, end = 0, -1
            return [self.make("getrange", (k, start, end)) + (m.getrange(k, start, end),)]
        if op == "mget":
            keys = [self.string_key() for _ in range(rng.randint(2, 10))]
            if rng.random() < 0.3:
                keys.append(self.int_key())
            if rng.random() < 0.1:
                keys.append(rng.choice(self.hashes + self.zsets))  # not a string: nil
            rng.shuffle(keys)
            return [self.make("mget", (keys,)) + (m.mget(keys),)]
        if op == "hset":
            k = rng.choice(self.hashes)
            f = b"f%d" % rng.randrange(12)
            v = rng.randbytes(rng.randint(1, 100))
            return [self.make("hset", (k, f, v)) + (m.hset(k, f, v),)]
        if op == "hgetall":
            k = rng.choice(self.hashes)
            return [self.make("hgetall", (k,)) + (m.hgetall(k),)]
        if op == "zadd":
            k = rng.choice(self.zsets)
            mapping = {b"m%d" % rng.randrange(12): rng.randint(-100, 100) / 4
                       for _ in range(rng.randint(1, 3))}
            return [self.make("zadd", (k, mapping)) + (m.zadd(k, mapping),)]
        if op == "zrange":
            k = rng.choice(self.zsets)
            return [self.make("zrange", (k, 0, -1), {"withscores": True}) +
                    (m.zrange_withscores(k),)]
        # wrongtype: string reads of a hash or zset, HGETALL and ZRANGE of a string
        r = rng.random()
        if r < 0.5:
            k = rng.choice(self.hashes + self.zsets)
            name = rng.choice(["get", "strlen"])
            return [self.make(name, (k,)) + (getattr(m, name)(k),)]
        k = self.string_key()
        if r < 0.75:
            return [self.make("hgetall", (k,)) + (m.hgetall(k),)]
        return [self.make("zrange", (k, 0, -1), {"withscores": True}) + (m.zrange_withscores(k),)]

    # -- running ---------------------------------------------------------------------------------

    def check(self, what, cmds, replies):
        if len(replies) != len(cmds):
            raise AssertionError("thread %d, %s: %d replies to %d commands" %
                                 (self.t, what, len(replies), len(cmds)))
        for i, ((name, args, kwargs, want), got) in enumerate(zip(cmds, replies)):
            if not matches(want, got):
                raise AssertionError(
                    "seed %d, thread %d, %s, command %d of %d: %s%s%s\n  expected %s\n  got      "
                    "%s" % (SEED, self.t, what, i + 1, len(cmds), name.upper(), _short(args),
                            " %r" % kwargs if kwargs else "", _short(want), _short(got)))

    def run(self, r, raw, stop):
        rng = self.rng
        step = 0
        while self.commands < COMMANDS and not stop.is_set():
            step += 1
            kind = rng.random()
            if kind < 0.45:
                cmds = self.random_commands()
                replies = []
                for name, args, kwargs, _ in cmds:
                    try:
                        replies.append(getattr(r, name)(*args, **kwargs))
                    except Exception as e:  # noqa: B902 - the error is the reply
                        replies.append(e)
                self.check("step %d (single)" % step, cmds, replies)
            elif kind < 0.5:
                # INCR through a raw connection: the error's exact text, "ERR " included.
                k = self.int_key() if rng.random() < 0.6 else self.string_key()
                want = self.model.incr(k)
                if isinstance(want, Error):
                    want = RespError(("" if want.text.startswith("WRONGTYPE") else "ERR ") +
                                     want.text)
                self.counts["raw incr"] = self.counts.get("raw incr", 0) + 1
                self.check("step %d (raw)" % step, [("incr", (k,), {}, want)],
                           [raw.call("INCR", k)])
                self.commands += 1
                continue
            else:
                transaction = kind >= 0.85
                size = rng.randint(3, 12) if transaction else rng.randint(10, 40)
                cmds = []
                while len(cmds) < size:
                    cmds += self.random_commands()
                p = r.pipeline(transaction=transaction)
                for name, args, kwargs, _ in cmds:
                    getattr(p, name)(*args, **kwargs)
                replies = p.execute(raise_on_error=False)
                self.check("step %d (%s of %d)" % (step, "MULTI/EXEC" if transaction else
                                                   "pipeline", len(cmds)), cmds, replies)
                self.counts["multi" if transaction else "pipeline"] = \
                    self.counts.get("multi" if transaction else "pipeline", 0) + 1
            self.commands += len(cmds)


def _short(v, n=120):
    s = repr(v)
    return s if len(s) <= n else s[:n] + "...(%d chars)" % len(s)


@unittest.skipUnless(IS_ORDIS, "tier-dir is ordis's")
class TierModelTest(PersistentTestCase):
    server_args = ("--maxmemory", "6mb", "--maxmemory-policy", "noeviction", "--tier-dir", "tier")

    def tiering(self, r):
        return dict(r.info("tiering"))

    def test_threads_match_a_model(self):
        print("\nTierModelTest: seed %d (ORDIS_TIER_MODEL_SEED)" % SEED)
        started = time.monotonic()
        r = self.r()
        workers = [Worker(t, random.Random(SEED * 31 + t)) for t in range(THREADS)]
        for w in workers:
            cmds = w.initial()
            for first in range(0, len(cmds), 500):
                chunk = cmds[first:first + 500]
                p = r.pipeline(transaction=False)
                for name, args, kwargs, _ in chunk:
                    getattr(p, name)(*args, **kwargs)
                w.check("initial load", chunk, p.execute(raise_on_error=False))
        size = sum(len(w.model.data) for w in workers)
        self.assertEqual(r.dbsize(), size)
        tier = self.tiering(r)
        self.assertEqual(tier["tier_enabled"], 1)
        self.assertGreater(tier["tier_cold_keys"], THREADS * STRING_KEYS // 2, tier)
        loaded = time.monotonic()

        errors = []
        stop = threading.Event()

        def run(w):
            try:
                w.run(self.r(), self.raw(), stop)
            except BaseException:  # noqa: B902 - reported by the main thread
                errors.append(traceback.format_exc())
                stop.set()

        threads = [threading.Thread(target=run, args=(w,), daemon=True) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        self.assertFalse(any(t.is_alive() for t in threads), "a worker thread hung")
        if errors:
            self.fail("%d of %d threads failed:\n%s" % (len(errors), THREADS, "\n".join(errors)))
        ran = time.monotonic()

        # Every key as the model has it: values, types, timeouts, and nothing else.
        for w in workers:
            m = w.model
            strings = [k for k in w.all_keys if not isinstance(m.data.get(k), (Hash, ZSet))]
            for first in range(0, len(strings), 500):
                chunk = strings[first:first + 500]
                w.check("final MGET", [("mget", (chunk,), {}, m.mget(chunk))], [r.mget(chunk)])
            p = r.pipeline(transaction=False)
            cmds = []
            for k in w.hashes + w.zsets:
                if isinstance(m.data.get(k), ZSet):
                    cmds.append(("zrange", (k, 0, -1), {"withscores": True},
                                 m.zrange_withscores(k)))
                else:
                    cmds.append(("hgetall", (k,), {}, m.hgetall(k)))
            for k in w.all_keys:
                cmds.append(("ttl", (k,), {}, m.ttl_of(k)))
            for name, args, kwargs, _ in cmds:
                getattr(p, name)(*args, **kwargs)
            w.check("final check", cmds, p.execute(raise_on_error=False))
        self.assertEqual(r.dbsize(), sum(len(w.model.data) for w in workers))
        tier = self.tiering(r)
        self.assertEqual(tier["tier_read_errors"], 0, tier)
        self.assertEqual(tier["tier_write_errors"], 0, tier)
        self.assertGreater(tier["tier_loading_zone_hits"], 0, tier)
        self.assertGreater(tier["tier_batches_waited"], 0, tier)
        counts = {}
        for w in workers:
            for name, n in w.counts.items():
                counts[name] = counts.get(name, 0) + n
        print("TierModelTest: %d keys loaded in %.1fs (%d cold); %d commands in %.1fs: %s; "
              "checked in %.1fs; tier: %d zone hits, %d synchronous reads, %d batches waited" %
              (size, loaded - started, self.tiering(r)["tier_cold_keys"],
               sum(w.commands for w in workers), ran - loaded,
               ", ".join("%s %d" % kv for kv in sorted(counts.items())), time.monotonic() - ran,
               tier["tier_loading_zone_hits"], tier["tier_reads"], tier["tier_batches_waited"]))


CRASH_KEYS = 6000


@unittest.skipUnless(IS_ORDIS, "tier-dir is ordis's")
class TierCrashTest(PersistentTestCase):
    """SIGKILL with most values cold: every write acknowledged before it (appendfsync always) is
    there after the restart, twice over (the second crash recovers from files the first one's
    recovery wrote)."""

    server_args = ("--appendonly", "yes", "--appendfsync", "always", "--maxmemory", "4mb",
                   "--maxmemory-policy", "noeviction", "--tier-dir", "tier")

    def check_all(self, r, model, keys, what):
        for first in range(0, len(keys), 500):
            chunk = keys[first:first + 500]
            got = r.mget(chunk)
            want = [model.get(k) for k in chunk]
            if got != want:
                bad = [(k, _short(model.get(k), 40), _short(g, 40))
                       for k, g in zip(chunk, got) if g != model.get(k)]
                self.fail("%s: %d keys differ (key, acknowledged, read), e.g. %s" %
                          (what, len(bad), bad[:5]))
        self.assertEqual(r.dbsize(), len(model), what)

    def writes(self, r, rng, model, keys, n_round):
        """Overwrites, appends and deletes, some one by one and some pipelined; each reply is the
        acknowledgement, checked, and only then is the model updated."""
        order = keys[:]
        rng.shuffle(order)
        overwrite, append, delete = order[:300], order[300:400], order[400:700]
        recreate = delete[:50]        # deleted, then written again
        overwrite_twice = overwrite[:50]
        cmds = ([("set", k, rng.randbytes(rng.randint(900, 1100))) for k in overwrite] +
                [("append", k, b"+appended in round %d" % n_round) for k in append] +
                [("delete", k, None) for k in delete])
        rng.shuffle(cmds)
        cmds += [("set", k, rng.randbytes(1000)) for k in recreate + overwrite_twice]
        cmds += [("delete", k, None) for k in overwrite[50:80]]   # overwritten, then deleted
        i = 0
        while i < len(cmds):
            batch = cmds[i:i + (1 if rng.random() < 0.5 else rng.randint(2, 30))]
            i += len(batch)
            p = r.pipeline(transaction=False)
            for name, k, v in batch:
                getattr(p, name)(*((k,) if v is None else (k, v)))
            replies = p.execute()
            for (name, k, v), got in zip(batch, replies):
                if name == "set":
                    self.assertIs(got, True, k)
                    model[k] = v
                elif name == "append":
                    model[k] = model.get(k, b"") + v
                    self.assertEqual(got, len(model[k]), k)
                else:
                    self.assertEqual(got, int(k in model), k)
                    model.pop(k, None)
        return len(cmds)

    def test_kill_keeps_every_acknowledged_write(self):
        rng = random.Random(SEED + 7)
        r = self.r()
        model = {}
        keys = ["crash:%05d" % i for i in range(CRASH_KEYS)]
        started = time.monotonic()
        for first in range(0, CRASH_KEYS, 200):
            chunk = keys[first:first + 200]
            values = [rng.randbytes(rng.randint(900, 1100)) for _ in chunk]
            p = r.pipeline(transaction=False)
            for k, v in zip(chunk, values):
                p.set(k, v)
            self.assertEqual(p.execute(), [True] * len(chunk))
            model.update(zip(chunk, values))
        tier = dict(r.info("tiering"))
        self.assertGreater(tier["tier_cold_keys"], CRASH_KEYS // 2, tier)
        for n_round in range(2):
            n = self.writes(r, rng, model, keys, n_round)
            cold = r.info("tiering")["tier_cold_keys"]
            self.assertEqual(self.srv.kill(), -9)
            self.srv.start()
            r = self.r()
            self.check_all(r, model, keys, "after crash %d (%d writes after the load, %d cold "
                           "keys at the kill)" % (n_round + 1, n, cold))
            tier = dict(r.info("tiering"))
            self.assertEqual(tier["tier_read_errors"], 0, tier)
            self.assertGreater(tier["tier_cold_keys"], 0, tier)
        print("\nTierCrashTest: %d keys, 2 crashes, %.1fs" % (CRASH_KEYS, time.monotonic() - started))


if __name__ == "__main__":
    unittest.main()
