"""Snapshots with the real binary: SAVE / BGSAVE / SHUTDOWN round trips through a restart, TTLs kept as
absolute times, a 1M-key data set, BGSAVE point-in-time consistency under concurrent writers, save
rules and INFO persistence. ordis-only (its own file format); see persist_util.py.
"""

import os
import random
import threading
import time
import unittest

from harness import Err, RawClient, encode_command
from persist_util import (SNAPSHOT, PersistentTestCase, assert_same_data, client, dump_all,
                          fill_all_types, info_persistence, pipe_load, saves, wait_bgsave,
                          wait_until)


class SnapshotRoundTripTest(PersistentTestCase):
    def test_every_type_all_databases_through_save(self):
        fill_all_types(self.srv.port)
        before = dump_all(self.srv.port)
        self.assertEqual(before[9], {}, "database 9 is the empty one")
        self.assertTrue(all(before[db] for db in range(16) if db != 9))
        r = self.r()
        self.assertTrue(r.save())
        # Written after the SAVE: with no save points, a SIGTERM does not save, so it must be lost.
        r.set("after-save", "1")
        r = self.restart()
        after = dump_all(self.srv.port)
        assert_same_data(self, before, after, "after SAVE + restart")
        self.assertEqual(int(info_persistence(r)["rdb_last_load_keys_loaded"]),
                         sum(len(d) for d in before))

    def test_bgsave_then_restart(self):
        fill_all_types(self.srv.port)
        before = dump_all(self.srv.port)
        r = self.r()
        n = saves(r)
        r.bgsave()
        wait_bgsave(r, n)
        self.assertEqual(info_persistence(r)["rdb_last_bgsave_status"], "ok")
        self.restart()
        assert_same_data(self, before, dump_all(self.srv.port), "after BGSAVE + restart")

    def test_shutdown_save_and_nosave(self):
        r = self.r()
        r.set("a", "1")
        with self.assertRaises(Exception):
            r.execute_command("SHUTDOWN", "SAVE")  # the connection closes
        self.assertTrue(wait_until(lambda: self.srv.proc.poll() is not None, 10))
        self.assertEqual(self.srv.proc.returncode, 0)
        self.srv.proc = None
        self.assertTrue(os.path.exists(self.path(SNAPSHOT)))
        r = self.restart()
        self.assertEqual(r.get("a"), b"1")
        r.set("b", "2")
        with self.assertRaises(Exception):
            r.execute_command("SHUTDOWN", "NOSAVE")
        self.assertTrue(wait_until(lambda: self.srv.proc.poll() is not None, 10))
        self.srv.proc = None
        r = self.restart()
        self.assertEqual(r.get("a"), b"1")
        self.assertIsNone(r.get("b"), "SHUTDOWN NOSAVE saved anyway")

    def test_sigterm_saves_when_save_points_are_configured(self):
        self.srv.extra_args = ["--save", "3600 1"]
        r = self.restart()
        r.set("k", "v")
        self.stop_clean()  # SIGTERM
        self.assertTrue(os.path.exists(self.path(SNAPSHOT)))
        r = self.restart(["--save", ""])
        self.assertEqual(r.get("k"), b"v")

    def test_ttl_is_an_absolute_time(self):
        r = self.r()
        r.set("long", "v", px=60_000)
        r.set("short", "v", px=700)
        r.set("plain", "v")
        self.assertTrue(r.save())
        saved_at = time.monotonic()
        self.stop_clean()
        # The clock must pass "short"'s expiry while the server is down (not a wait for an outcome).
        time.sleep(max(0.0, 1.2 - (time.monotonic() - saved_at)))
        r = self.restart()
        down = time.monotonic() - saved_at
        self.assertIsNone(r.get("short"), "a key whose TTL passed while down came back")
        self.assertEqual(r.dbsize(), 2, "an expired key is not loaded at all")
        pttl = r.pttl("long")
        self.assertLessEqual(pttl, 60_000 - int(down * 1000) + 50)
        self.assertGreater(pttl, 60_000 - int(down * 1000) - 3000)
        self.assertEqual(r.pttl("plain"), -1)

    def test_swapdb_move_effects(self):
        r0, r1 = self.r(db=0), self.r(db=1)
        r0.set("in0", "zero")
        r1.set("in1", "one")
        r0.set("mover", "m")
        self.assertTrue(r0.swapdb(0, 1))
        self.assertTrue(r1.move("mover", 5))
        r0.flushdb()  # holds in1 now
        r0.set("fresh", "f")
        self.assertTrue(r0.save())
        self.restart()
        r0, r1, r5 = self.r(db=0), self.r(db=1), self.r(db=5)
        self.assertEqual(r0.keys("*"), [b"fresh"])
        self.assertEqual(r1.keys("*"), [b"in0"])
        self.assertEqual(r5.keys("*"), [b"mover"])

    def test_overwrites_and_deletes_before_save(self):
        r = self.r()
        r.set("x", "1")
        r.delete("x")
        r.rpush("l", "a", "b")
        r.lpop("l")
        r.set("y", "old")
        r.set("y", "new")
        r.expire("y", 1000)
        r.persist("y")
        self.assertTrue(r.save())
        r = self.restart()
        self.assertEqual(sorted(r.keys("*")), [b"l", b"y"])
        self.assertEqual(r.lrange("l", 0, -1), [b"b"])
        self.assertEqual(r.get("y"), b"new")
        self.assertEqual(r.pttl("y"), -1)

    def test_empty_data_set(self):
        r = self.r()
        self.assertTrue(r.save())
        r = self.restart()
        self.assertEqual(r.dbsize(), 0)
        self.assertEqual(info_persistence(r)["rdb_last_load_keys_loaded"], "0")


class LargeSnapshotTest(PersistentTestCase):
    N = 1_000_000

    def test_million_keys(self):
        t0 = time.monotonic()
        pipe_load(self.srv.port, (("SET", "key:%d" % i, "value-%d" % (i * 7)) for i in range(self.N)))
        t_load = time.monotonic() - t0
        r = self.r()
        self.assertEqual(r.dbsize(), self.N)
        t0 = time.monotonic()
        self.assertTrue(r.save())
        t_save = time.monotonic() - t0
        t0 = time.monotonic()
        r = self.restart()
        t_restart = time.monotonic() - t0
        self.assertEqual(r.dbsize(), self.N)
        rng = random.Random(7)
        sample = [rng.randrange(self.N) for _ in range(2000)] + [0, self.N - 1]
        got = r.mget(["key:%d" % i for i in sample])
        self.assertEqual(got, [b"value-%d" % (i * 7) for i in sample])
        print("\n1M keys: load %.2fs, SAVE %.2fs (%d bytes), restart %.2fs" %
              (t_load, t_save, os.path.getsize(self.path(SNAPSHOT)), t_restart))


class BgsaveConsistencyTest(PersistentTestCase):
    """A BGSAVE while writers run must be point-in-time: each writer transaction changes its keys and
    the `total` / `txns` counters atomically (MULTI/EXEC), so in the snapshot the sum of the keys
    equals `total` only if no transaction is half in it."""

    N = 300_000
    WRITERS = 3

    POOL = 1000  # per writer, churn variant: keys only that writer deletes and recreates

    def run_case(self, churn):
        port = self.srv.port
        step = self.N // self.POOL
        # Pool keys sort among the k-keys, so the dump meets deletions and creations all along.
        pool = [["k%d:d%d" % (j * step, w) for j in range(self.POOL)] for w in range(self.WRITERS)]
        load = [("SET", "k%d" % i, "0") for i in range(self.N)]
        total0 = 0
        if churn:
            load += [("SET", k, "1") for keys in pool for k in keys]
            total0 = self.WRITERS * self.POOL
        pipe_load(port, load + [("SET", "total", str(total0)), ("SET", "txns", "0")])
        stop = threading.Event()
        acked = [0] * self.WRITERS       # transactions whose EXEC reply arrived
        sent = [0] * self.WRITERS        # transactions sent
        errors = []

        def writer(w):
            rng = random.Random(1000 + w)
            value = {k: 1 for k in pool[w]}  # this writer's pool keys -> value (None: deleted)
            created = 0
            try:
                with RawClient(port) as c:
                    while not stop.is_set():
                        batch = []
                        for _ in range(20):
                            op = rng.random()
                            if not churn or op < 0.5:
                                k = "k%d" % rng.randrange(self.N)
                                cmds = [("INCR", k), ("INCR", "total")]
                            elif op < 0.9:
                                k = rng.choice(pool[w])
                                v = value[k]
                                if v is None:
                                    v = rng.randrange(1, 100)
                                    cmds = [("SET", k, str(v)), ("INCRBY", "total", v)]
                                    value[k] = v
                                else:
                                    cmds = [("DEL", k), ("DECRBY", "total", v)]
                                    value[k] = None
                            else:
                                created += 1
                                k = "k%d:n%d:%d" % (rng.randrange(self.N), w, created)
                                cmds = [("SET", k, "3"), ("INCRBY", "total", 3)]
                            batch.append(cmds)
                        payload = b""
                        for cmds in batch:
                            payload += encode_command("MULTI")
                            for cmd in cmds + [("INCR", "txns")]:
                                payload += encode_command(*cmd)
                            payload += encode_command("EXEC")
                        sent[w] += len(batch)
                        c.send(payload)
                        for cmds in batch:
                            replies = [c.read_reply() for _ in range(len(cmds) + 3)]
                            if not isinstance(replies[-1], list):
                                raise AssertionError("EXEC replied %r" % (replies[-1],))
                            acked[w] += 1
            except BaseException as e:  # noqa: B902
                errors.append(e)

        threads = [threading.Thread(target=writer, args=(w,)) for w in range(self.WRITERS)]
        for t in threads:
            t.start()
        r = self.r()
        self.assertTrue(wait_until(lambda: sum(acked) >= 200, 20), "writers made no progress")
        n = saves(r)
        low = sum(acked)
        r.bgsave()
        acked_at_reply = sum(acked)
        wait_bgsave(r, n)
        high = sum(sent)
        during = sum(acked) - acked_at_reply
        stop.set()
        for t in threads:
            t.join(30)
        self.assertFalse(errors, errors[:1])
        self.assertEqual(info_persistence(r)["rdb_last_bgsave_status"], "ok")
        live_txns = int(r.get("txns"))
        r = self.restart()
        txns = int(r.get("txns"))
        total = int(r.get("total"))
        # The snapshot's moment is between the BGSAVE command and its completion.
        self.assertGreaterEqual(txns, low)
        self.assertLessEqual(txns, high)
        self.assertLess(txns, live_txns, "the snapshot should not contain the writes made after it")
        keys = [k for k in r.scan_iter(count=10000) if k not in (b"total", b"txns")]
        self.assertGreaterEqual(len(keys), self.N)
        s = 0
        for i in range(0, len(keys), 5000):
            vals = r.mget(keys[i:i + 5000])
            self.assertNotIn(None, vals)
            s += sum(int(v) for v in vals)
        self.assertEqual(s, total, "snapshot not point-in-time: sum of keys %d != total %d" % (s, total))
        print("\nBGSAVE consistency (churn=%s): %d txns before BGSAVE, %d in the snapshot, %d acked "
              "while it ran, %d keys in it" % (churn, low, txns, during, len(keys)))
        # The check is only meaningful if writes overlapped the dump.
        self.assertGreater(during, 0, "no write overlapped the BGSAVE: the test proves nothing")

    def test_incr_pairs(self):
        self.run_case(churn=False)

    def test_incr_pairs_with_created_keys(self):
        self.run_case(churn=True)


class BgsaveDatabaseOpsTest(PersistentTestCase):
    """Point-in-time under whole-database changes: in each of databases 0-2, transactions keep the
    sum of the k-keys equal to that database's `total` (INCR pairs; in database 2 also FLUSHDB +
    SET total 0 as one transaction). SWAPDB 0 1 moves whole databases, totals included, so each
    database's invariant survives it; the snapshot must show every database consistent."""

    N = 100_000  # per database

    def test_swapdb_and_flushdb_during_bgsave(self):
        port = self.srv.port
        for db in range(3):
            pipe_load(port, [("SELECT", str(db))] + [("SET", "k%d" % i, "0") for i in range(self.N)]
                      + [("SET", "total", "0")])
        stop = threading.Event()
        acked = [0, 0, 0]
        errors = []

        def writer(db):
            rng = random.Random(77 + db)
            try:
                with RawClient(port) as c:
                    self.assertEqual(c.call("SELECT", str(db)), "OK")
                    while not stop.is_set():
                        payload, count = b"", 0
                        for _ in range(20):
                            if db == 2 and rng.random() < 0.02:
                                cmds = [("FLUSHDB",), ("SET", "total", "0")]
                            else:
                                cmds = [("INCR", "k%d" % rng.randrange(self.N)), ("INCR", "total")]
                            payload += encode_command("MULTI")
                            payload += b"".join(encode_command(*cmd) for cmd in cmds)
                            payload += encode_command("EXEC")
                            count += 1
                        c.send(payload)
                        for _ in range(count):
                            replies = [c.read_reply() for _ in range(4)]
                            if not isinstance(replies[-1], list):
                                raise AssertionError("EXEC replied %r" % (replies[-1],))
                            acked[db] += 1
            except BaseException as e:  # noqa: B902
                errors.append(e)

        swaps = [0]

        def swapper():
            try:
                with RawClient(port) as c:
                    while not stop.is_set():
                        if c.call("SWAPDB", "0", "1") != "OK":
                            raise AssertionError("SWAPDB failed")
                        swaps[0] += 1
                        time.sleep(0.005)  # pacing of the swaps, not a wait for an outcome
            except BaseException as e:  # noqa: B902
                errors.append(e)

        threads = [threading.Thread(target=writer, args=(db,)) for db in range(3)]
        threads.append(threading.Thread(target=swapper))
        for t in threads:
            t.start()
        r = self.r()
        self.assertTrue(wait_until(lambda: min(acked) >= 100 and swaps[0] >= 5, 20))
        n = saves(r)
        r.bgsave()
        at_reply = (sum(acked), swaps[0])
        wait_bgsave(r, n)
        during = (sum(acked) - at_reply[0], swaps[0] - at_reply[1])
        stop.set()
        for t in threads:
            t.join(30)
        self.assertFalse(errors, errors[:1])
        self.restart()
        for db in range(3):
            c = self.r(db=db)
            keys = [k for k in c.scan_iter(count=10000) if k != b"total"]
            s = 0
            for i in range(0, len(keys), 5000):
                s += sum(int(v) for v in c.mget(keys[i:i + 5000]))
            total = int(c.get("total"))
            self.assertEqual(s, total, "db %d in the snapshot: sum %d != total %d (%d keys)"
                             % (db, s, total, len(keys)))
        print("\nBGSAVE under SWAPDB/FLUSHDB: %d transactions and %d swaps while it ran" % during)
        self.assertGreater(during[0], 0, "no write overlapped the BGSAVE")


class SaveRulesAndInfoTest(PersistentTestCase):
    def test_info_fields_move(self):
        r = self.r()
        info = info_persistence(r)
        self.assertEqual(info["aof_enabled"], "0")
        self.assertEqual(info["rdb_bgsave_in_progress"], "0")
        for i in range(5):
            r.set("k%d" % i, i)
        info = info_persistence(r)
        self.assertEqual(int(info["rdb_changes_since_last_save"]), 5)
        last = r.lastsave()
        t_before = int(info["rdb_last_save_time"])
        # LASTSAVE has one-second resolution: let the clock pass a second boundary.
        self.assertTrue(wait_until(lambda: int(time.time()) > t_before, 3))
        self.assertTrue(r.save())
        info = info_persistence(r)
        self.assertEqual(int(info["rdb_changes_since_last_save"]), 0)
        self.assertGreater(int(info["rdb_last_save_time"]), t_before)
        self.assertGreater(r.lastsave(), last)
        self.assertEqual(int(info["rdb_saves"]), 1)
        r.set("k", "v")
        self.assertEqual(int(info_persistence(r)["rdb_changes_since_last_save"]), 1)
        n = saves(r)
        r.bgsave()
        wait_bgsave(r, n)
        info = info_persistence(r)
        self.assertEqual(int(info["rdb_changes_since_last_save"]), 0)
        self.assertEqual(info["rdb_last_bgsave_status"], "ok")

    def test_bgsave_while_one_runs(self):
        pipe_load(self.srv.port, (("SET", "key:%d" % i, "x" * 100) for i in range(300_000)))
        raw = RawClient(self.srv.port)
        self._clients.append(raw)
        n = saves(raw)
        replies = raw.pipeline([("BGSAVE",), ("BGSAVE",)])
        self.assertEqual(str(replies[0]), "Background saving started")
        self.assertEqual(replies[1], Err("ERR Background save already in progress"))
        wait_bgsave(raw, n)
        self.assertEqual(saves(raw), n + 1, "the refused BGSAVE must not have saved")

    def test_bgsave_in_progress_visible_right_after_reply(self):
        # Redis sets rdb_bgsave_in_progress before it replies (the child is forked first), so a
        # client that polls INFO for completion (as Redis's own tests do) never sees "done" before
        # the save has even begun. 300k keys take ordis ~0.1 s to dump, so the flag is up then.
        pipe_load(self.srv.port, (("SET", "key:%d" % i, "x" * 100) for i in range(300_000)))
        raw = RawClient(self.srv.port)
        self._clients.append(raw)
        n = saves(raw)
        replies = raw.pipeline([("BGSAVE",), ("INFO", "persistence")])
        self.assertEqual(str(replies[0]), "Background saving started")
        text = replies[1].decode()
        started_or_done = ("rdb_bgsave_in_progress:1" in text or
                           "rdb_saves:%d" % (n + 1) in text)
        wait_bgsave(raw, n)
        self.assertTrue(started_or_done, "INFO right after the BGSAVE reply shows neither a save in "
                        "progress nor a finished one:\n" + text)

    def test_bgsave_accepted_once_info_says_done(self):
        # Once INFO says no save is in progress, a new BGSAVE must be accepted (Redis clears the
        # flag when it reaps the child, the same moment it allows the next one).
        pipe_load(self.srv.port, (("SET", "key:%d" % i, "x" * 100) for i in range(100_000)))
        raw = RawClient(self.srv.port)
        self._clients.append(raw)
        for _ in range(3):
            n = saves(raw)
            self.assertEqual(str(raw.call("BGSAVE")), "Background saving started")
            wait_bgsave(raw, n)
        # and right after the job ends:
        n = saves(raw)
        self.assertEqual(str(raw.call("BGSAVE")), "Background saving started")
        wait_bgsave(raw, n)
        self.assertEqual(str(raw.call("BGSAVE")), "Background saving started")

    def test_save_rule_triggers_background_save(self):
        r = self.restart(["--save", "1 1"])
        self.assertFalse(os.path.exists(self.path(SNAPSHOT)))
        r.set("k", "v")
        ok = wait_until(lambda: info_persistence(r)["rdb_changes_since_last_save"] == "0", 5)
        self.assertTrue(ok, "no background save within 5s of a write under save 1 1: %r" %
                        info_persistence(r))
        self.assertTrue(os.path.exists(self.path(SNAPSHOT)))
        self.assertIn("Saving", self.srv.log_text())
        r = self.restart(["--save", ""])
        self.assertEqual(r.get("k"), b"v")


if __name__ == "__main__":
    unittest.main()
