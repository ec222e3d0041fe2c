"""The append-only log with the real binary: round trips through the log and a restart, replay
semantics (sequences, relative TTLs as absolute times, SPOP, MULTI/EXEC, FLUSHDB/FLUSHALL, expired
keys), BGREWRITEAOF and CONFIG SET appendonly at run time. ordis-only; see persist_util.py.
"""

import os
import random
import time
import unittest

import redis

from harness import Err, ServerTestCase
from persist_util import (AOF_DIR, MANIFEST, SNAPSHOT, PersistentTestCase, assert_same_data,
                          dump_all, fill_all_types, info_persistence, pipe_load, read_manifest,
                          rewrites, saves, wait_bgsave, wait_rewrite, wait_until)


class AofRoundTripTest(PersistentTestCase):
    server_args = ("--appendonly", "yes", "--appendfsync", "always")

    def test_every_type_all_databases(self):
        fill_all_types(self.srv.port)
        before = dump_all(self.srv.port)
        self.restart()
        assert_same_data(self, before, dump_all(self.srv.port), "after log replay")
        self.assertFalse(os.path.exists(self.path(SNAPSHOT)), "the log alone must carry the data")

    def test_every_type_everysec_clean_stop(self):
        fill_all_types(self.srv.port)
        before = dump_all(self.srv.port)
        self.restart(["--appendonly", "yes", "--appendfsync", "everysec"])
        assert_same_data(self, before, dump_all(self.srv.port), "after everysec log replay")

    def test_sequences_replay_exactly(self):
        r = self.r()
        for i in range(200):
            r.incr("ctr")
            r.incrby("ctr2", i - 100)
            r.append("s", b"%d\x00," % i)
            r.lpush("l", i)
            if i % 7 == 0:
                r.rpop("l")
            r.hincrby("h", "f%d" % (i % 5), i)
            r.zincrby("z", 0.5, "m%d" % (i % 9))
            r.incrbyfloat("f", 0.1)
        r.setrange("s", 3, b"XY")
        r.linsert("l", "BEFORE", "100", "ins")
        r.lset("l", 0, "first")
        r.ltrim("l", 0, 150)
        before = dump_all(self.srv.port)
        self.restart()
        assert_same_data(self, before, dump_all(self.srv.port), "after replay of sequences")
        r = self.r()
        self.assertEqual(r.get("ctr"), b"200")
        self.assertEqual(r.incr("ctr"), 201)

    def test_relative_ttls_replay_as_absolute(self):
        r = self.r()
        r.set("ex", "v", ex=60)
        r.set("px", "v", px=60_000)
        r.set("plain", "v")
        r.expire("plain", 60)
        r.set("short", "v", px=600)
        r.getex("px2", ex=60)  # no key: nothing
        r.set("gx", "v")
        r.getex("gx", px=60_000)
        r.set("per", "v", ex=60)
        r.persist("per")
        r.sadd("st", "a")
        r.pexpire("st", 60_000)
        set_at = time.monotonic()
        self.stop_clean()
        time.sleep(max(0.0, 1.5 - (time.monotonic() - set_at)))  # the clock passes "short"'s TTL
        r = self.restart()
        down_ms = int((time.monotonic() - set_at) * 1000)
        for k in ("ex", "px", "plain", "gx", "st"):
            pttl = r.pttl(k)
            # If the log kept "EXPIRE 60" it would be back near 60000 after replay.
            self.assertLessEqual(pttl, 60_000 - down_ms + 100, k)
            self.assertGreater(pttl, 60_000 - down_ms - 5000, k)
        self.assertEqual(r.pttl("per"), -1)
        self.assertIsNone(r.get("short"))
        self.assertEqual(r.exists("px2"), 0)
        self.assertEqual(r.dbsize(), 6)

    def test_spop_and_srandmember_replay_the_same_removal(self):
        r = self.r()
        r.sadd("s", *range(500))
        r.sadd("small", *["m%d" % i for i in range(20)])
        popped = [r.spop("s") for _ in range(30)]
        popped += r.spop("s", 40)
        popped += r.spop("small", 5)
        r.srandmember("s", 10)  # a read: nothing to replay
        before_s, before_small = r.smembers("s"), r.smembers("small")
        self.assertEqual(len(before_s), 430)
        r = self.restart()
        self.assertEqual(r.smembers("s"), before_s)
        self.assertEqual(r.smembers("small"), before_small)

    def test_multi_exec(self):
        r = self.r()
        p = r.pipeline(transaction=True)
        p.set("a", "1").incr("a").rpush("l", "x", "y").sadd("s", "m").expire("a", 100)
        p.execute()
        p = r.pipeline(transaction=True)
        p.set("b", "1").incr("b").lpush("b", "oops").set("c", "after-error")
        with self.assertRaises(Exception):
            p.execute()  # LPUSH on a string fails inside EXEC; the others still apply
        p = r.pipeline(transaction=True)
        p.set("discarded", "1")
        p.reset()
        before = dump_all(self.srv.port)
        r = self.restart()
        assert_same_data(self, before, dump_all(self.srv.port), "after MULTI/EXEC replay")
        self.assertEqual(r.get("b"), b"2")
        self.assertEqual(r.get("c"), b"after-error")
        self.assertIsNone(r.get("discarded"))
        self.assertGreater(r.ttl("a"), 90)

    def test_flushdb_flushall_swapdb_move(self):
        r0, r3 = self.r(db=0), self.r(db=3)
        r0.set("gone", "1")
        r3.set("gone3", "1")
        r0.flushall()
        r0.set("a", "1")
        r3.set("b", "2")
        r3.set("c", "3")
        r3.flushdb()
        r3.set("d", "4")
        r0.swapdb(0, 3)
        r0.move("d", 7)
        before = dump_all(self.srv.port)
        self.restart()
        after = dump_all(self.srv.port)
        assert_same_data(self, before, after, "after FLUSH*/SWAPDB/MOVE replay")
        self.assertEqual(set(after[3]), {b"a"})
        self.assertEqual(set(after[7]), {b"d"})
        self.assertEqual(sum(len(d) for d in after), 2)

    def test_keys_expired_before_shutdown_stay_gone(self):
        r = self.r()
        r.set("lazy", "v", px=100)
        r.set("active", "v", px=100)
        r.set("reborn", "v", px=100)
        r.set("keep", "v")
        r.rpush("lst", "a")
        r.pexpire("lst", 100)
        # Wait until active expiry has removed what nobody touches (DBSIZE does not expire keys).
        self.assertTrue(wait_until(lambda: r.dbsize() == 1, 5), "active expiry did not run")
        self.assertIsNone(r.get("lazy"))
        r.set("reborn", "new")  # recreated without a TTL after it expired
        self.restart()
        r = self.r()
        self.assertEqual(sorted(r.keys("*")), [b"keep", b"reborn"])
        self.assertEqual(r.get("reborn"), b"new")
        self.assertEqual(r.pttl("reborn"), -1)

    def test_lazily_expired_key_stays_gone(self):
        # Only a lazy expiry (GET) can remove it before shutdown: a very long active-expiry gap is
        # not configurable, so this checks the key is absent whichever path removed it.
        r = self.r()
        r.set("k", "v", px=50)
        r.set("k2", "v")
        deadline = time.monotonic() + 5
        while r.get("k") is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertIsNone(r.get("k"))
        r = self.restart()
        self.assertEqual(r.keys("*"), [b"k2"])

    def test_large_log(self):
        n = 200_000
        pipe_load(self.srv.port, (("SET", "key:%d" % i, str(i * 10)) for i in range(n)))
        pipe_load(self.srv.port, (("INCR", "key:%d" % i) for i in range(0, n, 3)),)
        t0 = time.monotonic()
        r = self.restart()
        t = time.monotonic() - t0
        self.assertEqual(r.dbsize(), n)
        rng = random.Random(3)
        sample = [rng.randrange(n) for _ in range(1000)]
        self.assertEqual(r.mget(["key:%d" % i for i in sample]),
                         [b"%d" % (i * 10 + (i % 3 == 0)) for i in sample])
        print("\n200k-record log replayed in %.2fs" % t)


class AofReplayOverMaxmemoryTest(PersistentTestCase):
    server_args = ("--appendonly", "yes", "--appendfsync", "always",
                   "--maxmemory-policy", "noeviction")

    def test_replay_refuses_nothing_over_maxmemory(self):
        """Every acknowledged write comes back even when the log holds more than maxmemory: as
        redis-server 7.0, which loads 20000 keys under a 2 MB limit (a replay that refused OOM
        kept 1420 of them, silently)."""
        pipe_load(self.srv.port, (("SET", "k:%d" % i, "x" * 200) for i in range(20000)))
        r = self.restart(list(self.server_args) + ["--maxmemory", "2mb"])
        self.assertEqual(r.dbsize(), 20000)
        self.assertEqual(r.get("k:19999"), b"x" * 200)
        # And then, as Redis: over the limit with noeviction, writes are refused.
        with self.assertRaises(redis.exceptions.ResponseError) as e:
            r.set("another", "v")
        self.assertIn("OOM", str(e.exception))


class AofRewriteTest(PersistentTestCase):
    server_args = ("--appendonly", "yes", "--appendfsync", "always")

    def test_bgrewriteaof_switches_files(self):
        r = self.r()
        for i in range(100):
            r.set("k%d" % i, i)
        files = read_manifest(self.dir)
        self.assertEqual([t for _, _, t in files], ["b", "i"])
        n = rewrites(r)
        r.bgrewriteaof()
        wait_rewrite(r, n)
        new_files = read_manifest(self.dir)
        self.assertEqual([t for _, _, t in new_files], ["b", "i"])
        self.assertGreater(new_files[0][1], files[0][1], "a new base")
        self.assertNotEqual(new_files[1][0], files[1][0], "a new incremental file")
        listing = set(os.listdir(self.path(AOF_DIR)))
        self.assertEqual(listing, {MANIFEST, new_files[0][0], new_files[1][0]},
                         "old files are deleted")
        info = info_persistence(r)
        self.assertEqual(info["aof_last_bgrewrite_status"], "ok")
        self.assertEqual(int(info["aof_base_size"]),
                         os.path.getsize(self.path(AOF_DIR, new_files[0][0])))
        for i in range(100, 150):
            r.set("k%d" % i, i)
        r.delete("k0")
        before = dump_all(self.srv.port)
        self.restart()
        assert_same_data(self, before, dump_all(self.srv.port), "after rewrite + restart")

    def test_rewrite_with_writes_during_it(self):
        pipe_load(self.srv.port, (("SET", "k%d" % i, "0") for i in range(300_000)))
        r = self.r()
        n = rewrites(r)
        r.bgrewriteaof()
        writes = 0
        while info_persistence(r)["aof_rewrite_in_progress"] == "1" or writes < 100:
            r.incr("k%d" % (writes * 7919 % 300_000))
            r.set("new%d" % writes, writes)
            writes += 1
        wait_rewrite(r, n)
        before = {k: r.get(k) for k in ["k%d" % (i * 7919 % 300_000) for i in range(writes)]}
        self.restart()
        r = self.r()
        self.assertEqual(r.dbsize(), 300_000 + writes)
        self.assertEqual({k: r.get(k) for k in before}, before)
        self.assertEqual(r.get("new%d" % (writes - 1)), b"%d" % (writes - 1))


class BackgroundJobConflictsTest(ServerTestCase):
    """BGSAVE and BGREWRITEAOF meeting each other: the same replies as Redis 7.0 (this class runs
    against redis-server too). 300k keys keep the first job busy while the pipelined second
    command arrives."""

    server_args = ("--appendonly", "yes")

    def setUp(self):
        super().setUp()
        pipe_load(self.port, (("SET", "k%d" % i, "x" * 100) for i in range(300_000)))
        # The start-up rewrite / a previous test's job must be over.
        wait_until(lambda: info_persistence(self.raw)["aof_rewrite_in_progress"] == "0"
                   and info_persistence(self.raw)["rdb_bgsave_in_progress"] == "0", 30)

    def tearDown(self):
        wait_until(lambda: info_persistence(self.raw)["aof_rewrite_in_progress"] == "0"
                   and info_persistence(self.raw)["rdb_bgsave_in_progress"] == "0", 30)
        super().tearDown()

    def test_second_bgrewriteaof_is_refused(self):
        n = rewrites(self.raw)
        self.assertEqual(self.raw.pipeline([("BGREWRITEAOF",), ("BGREWRITEAOF",)]),
                         ["Background append only file rewriting started",
                          Err("ERR Background append only file rewriting already in progress")])
        wait_rewrite(self.raw, n)
        self.assertEqual(rewrites(self.raw), n + 1)

    def test_bgrewriteaof_during_bgsave_is_scheduled_and_runs(self):
        n, m = saves(self.raw), rewrites(self.raw)
        self.assertEqual(self.raw.pipeline([("BGSAVE",), ("BGREWRITEAOF",)]),
                         ["Background saving started",
                          "Background append only file rewriting scheduled"])
        wait_bgsave(self.raw, n)
        wait_rewrite(self.raw, m, timeout=10)

    def test_bgsave_during_rewrite_is_refused(self):
        n = rewrites(self.raw)
        replies = self.raw.pipeline([("BGREWRITEAOF",), ("BGSAVE",)])
        wait_rewrite(self.raw, n)
        self.assertEqual(replies, [
            "Background append only file rewriting started",
            Err("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE "
                "SCHEDULE in order to schedule a BGSAVE whenever possible.")])

    def test_bgsave_schedule_during_rewrite_runs_after_it(self):
        n, m = saves(self.raw), rewrites(self.raw)
        self.assertEqual(self.raw.pipeline([("BGREWRITEAOF",), ("BGSAVE", "SCHEDULE")]),
                         ["Background append only file rewriting started",
                          "Background saving scheduled"])
        wait_rewrite(self.raw, m)
        # Redis starts the scheduled save as soon as the rewrite ends (no save points needed).
        wait_bgsave(self.raw, n, timeout=10)


class AofAtRunTimeTest(PersistentTestCase):
    def test_config_set_appendonly_then_restart(self):
        r = self.r()
        fill_all_types(self.srv.port)
        self.assertEqual(info_persistence(r)["aof_enabled"], "0")
        r.config_set("appendonly", "yes")
        # Turning the log on writes its base with a rewrite (on the cron, as Redis).
        wait_rewrite(r, 0, timeout=10)
        self.assertEqual(info_persistence(r)["aof_enabled"], "1")
        r.set("after", "1")
        before = dump_all(self.srv.port)
        self.assertTrue(os.path.exists(self.path(AOF_DIR, MANIFEST)))
        self.restart(["--appendonly", "yes"])
        assert_same_data(self, before, dump_all(self.srv.port), "after CONFIG SET appendonly yes")


if __name__ == "__main__":
    unittest.main()
