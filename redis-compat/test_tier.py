"""The cold tier (issue 14) with the real binary: a server whose maxmemory holds a fraction of its
values keeps every key, with every value readable and writable, by demoting values to tier-dir;
snapshots hold cold values; a tier that cannot open leaves the server running without it.
ordis-only (tier-dir and INFO tiering are ordis's); the replies checked are those redis-server
gives with no maxmemory (a model of what was written).
"""

import os
import random
import threading
import time
import unittest

from harness import IS_ORDIS, encode_command, info
from persist_util import PersistentTestCase

KEYS = 4000
VALUE_SIZE = 1000  # 4 MB of values under a 3 MB limit


def value_of(i, version=0):
    """VALUE_SIZE bytes that lz4 cannot shrink much, different per key and version."""
    rng = random.Random(i * 7919 + version)
    return bytes(rng.randrange(33, 127) for _ in range(VALUE_SIZE))


@unittest.skipUnless(IS_ORDIS, "tier-dir is ordis's")
class ColdTierTest(PersistentTestCase):
    server_args = ("--maxmemory", "3mb", "--maxmemory-policy", "noeviction", "--tier-dir", "tier")

    def fill(self, r):
        model = {}
        for first in range(0, KEYS, 200):
            p = r.pipeline(transaction=False)
            for i in range(first, min(KEYS, first + 200)):
                key = "key:%06d" % i
                model[key] = value_of(i)
                p.set(key, model[key])
            self.assertEqual(p.execute(), [True] * (min(KEYS, first + 200) - first))
        return model

    def tiering(self, r):
        return {k: v for k, v in r.info("tiering").items()}

    def assert_values(self, r, model):
        keys = sorted(model)
        for first in range(0, len(keys), 200):
            chunk = keys[first:first + 200]
            self.assertEqual(r.mget(chunk), [model[k] for k in chunk])

    def test_values_beyond_memory_stay_readable_and_writable(self):
        r = self.r()
        model = self.fill(r)
        tier = self.tiering(r)
        self.assertEqual(tier["tier_enabled"], 1)
        self.assertGreater(tier["tier_cold_keys"], KEYS // 4, tier)
        self.assertEqual(r.dbsize(), KEYS)
        self.assertEqual(int(r.info("stats")["evicted_keys"]), 0)
        self.assertLessEqual(int(r.info("memory")["used_memory"]), 3 * 1024 * 1024 * 1.05)
        self.assertEqual(r.object("encoding", "key:000000"), b"raw")
        self.assert_values(r, model)
        self.assertGreater(self.tiering(r)["tier_reads"], 0)
        # Every string command on values that are now mostly cold again.
        rng = random.Random(5)
        for n in range(300):
            key = rng.choice(sorted(model))
            i = int(key[4:])
            op = n % 6
            if op == 0:
                self.assertEqual(r.strlen(key), len(model[key]))
            elif op == 1:
                self.assertEqual(r.getrange(key, 10, 29), model[key][10:30])
            elif op == 2:
                self.assertEqual(r.append(key, b"+tail"), len(model[key]) + 5)
                model[key] += b"+tail"
            elif op == 3:
                model[key] = value_of(i, n)
                self.assertTrue(r.set(key, model[key]))
            elif op == 4:
                self.assertEqual(r.getset(key, b"short"), model[key])
                model[key] = b"short"
            else:
                self.assertEqual(r.delete(key), 1)
                del model[key]
        self.assertEqual(r.dbsize(), len(model))
        self.assertTrue(r.expire("key:000001", 1000) or "key:000001" not in model)
        self.assert_values(r, model)
        tier = self.tiering(r)
        self.assertEqual(tier["tier_read_errors"], 0)
        self.assertEqual(tier["tier_write_errors"], 0)
        self.assertGreater(tier["tier_promotions"], 0)
        self.assertGreater(tier["tier_garbage_bytes"], 0)

    def test_commands_that_never_look_at_a_value_do_not_read_it(self):
        r = self.r()
        model = self.fill(r)
        cold = self.tiering(r)["tier_cold_keys"]
        self.assertGreater(cold, KEYS // 4)
        before = self.tiering(r)
        keys = sorted(model)[:400]
        # A TTL set or removed changes the key's header, not its value.
        self.assertTrue(r.expire("key:000002", 1000))
        self.assertTrue(r.pexpire("key:000003", 1000000))
        self.assertTrue(r.persist("key:000003"))
        self.assertEqual(r.ttl("key:000003"), -1)
        self.assertEqual(self.tiering(r)["tier_promotions"], before["tier_promotions"])
        self.assertEqual(r.exists(*keys), len(keys))
        for k in keys[:100]:
            self.assertEqual(r.type(k), b"string")
            self.assertEqual(r.object("encoding", k), b"raw")
            self.assertIn(r.ttl(k), (-1, 1000))
        usage = [r.memory_usage(k) for k in keys]
        after = self.tiering(r)
        self.assertEqual(after["tier_reads"], before["tier_reads"])
        self.assertEqual(after["tier_prefetch_reads"], before["tier_prefetch_reads"])
        # Nor do deletions.
        self.assertEqual(r.delete(*keys[200:300]), 100)
        self.assertEqual(r.unlink(*keys[300:400]), 100)
        self.assertEqual(self.tiering(r)["tier_reads"], before["tier_reads"])
        # A cold key's MEMORY USAGE counts what is resident: not its value.
        self.assertLess(min(usage), VALUE_SIZE)
        self.assertTrue(r.set("fresh", value_of(KEYS)))  # the hottest value: resident
        self.assertGreater(r.memory_usage("fresh"), VALUE_SIZE)  # a resident one counts its value
        self.assertEqual(r.get("key:000002"), model["key:000002"])
        self.assertEqual(r.get("key:000003"), model["key:000003"])
        self.assertIn(r.ttl("key:000002"), (999, 1000))

    def test_batches_wait_for_cold_values_read_ahead(self):
        r = self.r()
        model = self.fill(r)
        keys = sorted(model)
        rng = random.Random(11)

        def read_all_pipelined():
            order = keys[:]
            rng.shuffle(order)
            for first in range(0, len(order), 50):
                chunk = order[first:first + 50]
                p = r.pipeline(transaction=False)
                for k in chunk:
                    p.get(k)
                self.assertEqual(p.execute(), [model[k] for k in chunk])

        before = self.tiering(r)
        self.assertEqual(before["tier_prefetch"], "yes")
        read_all_pipelined()
        after = self.tiering(r)
        waited = after["tier_batches_waited"] - before["tier_batches_waited"]
        hits = after["tier_loading_zone_hits"] - before["tier_loading_zone_hits"]
        sync = after["tier_reads"] - before["tier_reads"]
        self.assertGreater(waited, 0, after)
        # Most cold values came from the Loading Zone, not from reads the commands waited on.
        self.assertGreater(hits, 4 * sync, after)
        self.assertEqual(after["tier_prefetch_damaged"], 0)
        # A transaction's queued reads are read ahead when EXEC arrives, in its batch or a later.
        p = r.pipeline(transaction=True)
        for k in keys[:20]:
            p.get(k)
        self.assertEqual(p.execute(), [model[k] for k in keys[:20]])
        r.execute_command("MULTI")
        for k in keys[-20:]:
            r.execute_command("GET", k)
        self.assertEqual(r.execute_command("EXEC"), [model[k] for k in keys[-20:]])
        # Prefetch off: the same reads are all synchronous.
        self.assertTrue(r.config_set("tier-prefetch", "no"))
        before = self.tiering(r)
        read_all_pipelined()
        after = self.tiering(r)
        self.assertEqual(after["tier_batches_waited"], before["tier_batches_waited"])
        self.assertEqual(after["tier_prefetch_reads"], before["tier_prefetch_reads"])
        # (A value read ahead twice, once for each of two batches, may still be in the zone.)
        self.assertGreater(after["tier_reads"], before["tier_reads"] + len(keys) // 2)

    def test_input_that_arrives_while_a_batch_waits_is_read_after_it(self):
        # One write of 3000 GETs of mostly cold keys and a PING (about 100 KB, many reads of
        # the server's): while a batch waits for its values, the rest arrives and waits in the
        # socket, and is read, parsed and answered in order once the batch has run.
        r = self.r()
        model = self.fill(r)
        keys = sorted(model)
        rng = random.Random(13)
        order = [rng.choice(keys) for _ in range(3000)]
        before = self.tiering(r)
        raw = self.raw()
        replies = raw.pipeline([("GET", k) for k in order] + [("PING",)])
        self.assertEqual(replies[-1], "PONG")
        self.assertEqual(replies[:-1], [model[k] for k in order])
        after = self.tiering(r)
        self.assertGreater(after["tier_batches_waited"], before["tier_batches_waited"], after)
        self.assertEqual(r.ping(), True)

    def send_between_cold_gets(self, raw, model, seed, command):
        """Sends 40 GETs of random (mostly cold) keys, `command`, and 2000 more GETs (about
        70 KB) in one write; returns the keys of the GETs before and after it."""
        keys = sorted(model)
        rng = random.Random(seed)
        before = [rng.choice(keys) for _ in range(40)]
        after = [rng.choice(keys) for _ in range(2000)]
        commands = [("GET", k) for k in before] + [command] + [("GET", k) for k in after]
        raw.send(b"".join(encode_command(*c) for c in commands))
        return before, after

    def test_a_blocking_pop_in_a_batch_that_waits_blocks_once_its_values_are_in(self):
        # The GETs before the pop are answered, the pop blocks until another client pushes, and
        # the input behind it (arriving while batches waited, read on while the client is
        # blocked) is answered after it, in order.
        r = self.r()
        model = self.fill(r)
        raw = self.raw()
        before, after = self.send_between_cold_gets(raw, model, 17, ("BLPOP", "queue", 0))
        self.assertEqual([raw.read_reply() for _ in before], [model[k] for k in before])
        # Pushed before or after the pop blocked, the pop takes it: the same reply either way.
        self.assertEqual(r.rpush("queue", "job"), 1)
        self.assertEqual(raw.read_reply(), [b"queue", b"job"])
        self.assertEqual([raw.read_reply() for _ in after], [model[k] for k in after])
        self.assertEqual(r.llen("queue"), 0)

    def test_a_write_paused_in_a_batch_that_waited_runs_with_the_input_behind_it(self):
        # Under CLIENT PAUSE WRITE the SET after the cold GETs waits for the UNPAUSE, and so does
        # the input behind it; then all of it is answered in order.
        r = self.r()
        model = self.fill(r)
        self.assertTrue(r.execute_command("CLIENT", "PAUSE", 60000, "WRITE"))
        raw = self.raw()
        before, after = self.send_between_cold_gets(raw, model, 19, ("SET", "flag", "1"))
        self.assertEqual([raw.read_reply() for _ in before], [model[k] for k in before])
        self.assertEqual(r.get("flag"), None)  # reads go on during the pause
        self.assertTrue(r.execute_command("CLIENT", "UNPAUSE"))
        self.assertEqual(raw.read_reply(), "OK")
        self.assertEqual([raw.read_reply() for _ in after], [model[k] for k in after])
        self.assertEqual(r.get("flag"), b"1")

    def test_a_select_in_the_batch_reads_ahead_in_its_database(self):
        r1 = self.r(db=1)
        model = self.fill(r1)
        r = self.r()  # database 0, which holds nothing
        keys = sorted(model)
        before = self.tiering(r)
        for first in range(0, len(keys), 50):
            chunk = keys[first:first + 50]
            p = r.pipeline(transaction=False)
            p.execute_command("SELECT", 1)
            for k in chunk:
                p.get(k)
            p.execute_command("SELECT", 0)
            self.assertEqual(p.execute(), [True] + [model[k] for k in chunk] + [True])
        after = self.tiering(r)
        hits = after["tier_loading_zone_hits"] - before["tier_loading_zone_hits"]
        sync = after["tier_reads"] - before["tier_reads"]
        # The GETs after SELECT 1 were read ahead in database 1, not looked for in database 0.
        self.assertGreater(hits, 4 * sync, after)

    def test_writes_racing_reads_ahead_are_never_lost(self):
        """Writers overwrite cold keys while readers' batches read them ahead: a GET never
        answers a value older than the last write acknowledged before it was sent."""
        r = self.r()
        self.fill(r)
        lock = threading.Lock()
        acked = {}    # key -> last version acknowledged
        started = {}  # key -> last version sent
        errors = []
        stop = threading.Event()
        keys = ["key:%06d" % i for i in range(0, KEYS, 7)]

        def versioned(key, version):
            head = b"%s:%d:" % (key.encode(), version)
            return head + value_of(hash(key) % 1000, version)[len(head):]

        def writer(mine):
            w = self.r()
            version = 0
            while not stop.is_set():
                version += 1
                for first in range(0, len(mine), 25):
                    chunk = mine[first:first + 25]
                    with lock:
                        for k in chunk:
                            started[k] = version
                    p = w.pipeline(transaction=False)
                    for k in chunk:
                        p.set(k, versioned(k, version))
                    p.execute()
                    with lock:
                        for k in chunk:
                            acked[k] = version

        def reader(seed):
            rd = self.r()
            rng = random.Random(seed)
            while not stop.is_set():
                chunk = rng.sample(keys, 40)
                with lock:
                    floor = {k: acked.get(k, 0) for k in chunk}
                p = rd.pipeline(transaction=False)
                for k in chunk:
                    p.get(k)
                replies = p.execute()
                with lock:
                    ceiling = {k: started.get(k, 0) for k in chunk}
                for k, v in zip(chunk, replies):
                    if v is None:
                        errors.append("%s: no value" % k)
                        continue
                    head = v.split(b":")
                    mine = len(head) > 2 and head[0] + b":" + head[1] == k.encode()
                    version = int(head[2]) if mine else 0  # fill's value: version 0
                    if not floor[k] <= version <= ceiling[k]:
                        errors.append("%s: version %d outside [%d, %d]" %
                                      (k, version, floor[k], ceiling[k]))

        half = len(keys) // 2
        threads = [threading.Thread(target=writer, args=(keys[:half],)),
                   threading.Thread(target=writer, args=(keys[half:],))]
        threads += [threading.Thread(target=reader, args=(s,)) for s in range(4)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline and not errors:
            stop.wait(0.2)
        stop.set()
        for t in threads:
            t.join()
        self.assertEqual(errors[:5], [])
        tier = self.tiering(r)
        self.assertGreater(tier["tier_loading_zone_hits"], 0, tier)
        self.assertEqual(tier["tier_read_errors"], 0)

    def fill_collections(self, r):
        """800 collections of about 5 KB each (hashes, lists, sets, sorted sets, streams), with
        what each holds as the model reads it back."""
        model = {}
        for i in range(800):
            key = "coll:%04d" % i
            v = [value_of(i * 10 + j)[:100] for j in range(50)]
            kind = i % 5
            if kind == 0:
                r.hset(key, mapping={b"f%d" % j: v[j] for j in range(50)})
                model[key] = ("hash", {b"f%d" % j: v[j] for j in range(50)})
            elif kind == 1:
                r.rpush(key, *v)
                model[key] = ("list", v)
            elif kind == 2:
                r.sadd(key, *v)
                model[key] = ("set", set(v))
            elif kind == 3:
                r.zadd(key, {v[j]: j for j in range(50)})
                model[key] = ("zset", [(v[j], float(j)) for j in range(50)])
            else:
                for j in range(50):
                    r.xadd(key, {"v": v[j]}, id="%d-1" % (j + 1))
                model[key] = ("stream", [(b"%d-1" % (j + 1), {b"v": v[j]}) for j in range(50)])
        return model

    def read_collection(self, r, key, kind):
        if kind == "hash":
            return r.hgetall(key)
        if kind == "list":
            return r.lrange(key, 0, -1)
        if kind == "set":
            return r.smembers(key)
        if kind == "zset":
            return r.zrange(key, 0, -1, withscores=True)
        return r.xrange(key)

    def test_collections_go_cold_whole(self):
        r = self.r()
        model = self.fill_collections(r)
        encodings = {k: r.object("encoding", k) for k in model}
        tier = self.tiering(r)
        self.assertGreater(tier["tier_cold_keys"], 200, tier)
        self.assertEqual(int(r.info("stats")["evicted_keys"]), 0)
        self.assertLessEqual(int(r.info("memory")["used_memory"]), 3 * 1024 * 1024 * 1.05)
        # What never reads a value: no read, and cold keys count only what is resident.
        before = self.tiering(r)
        for kind in ("hash", "list", "set", "zset", "stream"):
            keys = [k for k in model if model[k][0] == kind]
            self.assertEqual(r.exists(*keys), len(keys))
            self.assertEqual({r.type(k) for k in keys}, {kind.encode()})
        usage = [r.memory_usage(k) for k in model]
        self.assertEqual(self.tiering(r)["tier_reads"], before["tier_reads"])
        self.assertLess(min(usage), 1000)
        self.assertGreater(max(usage), 5000)
        # Every collection reads back whole, with the encoding it had.
        for key, (kind, want) in sorted(model.items()):
            self.assertEqual(self.read_collection(r, key, kind), want, key)
            self.assertEqual(r.object("encoding", key), encodings[key], key)
        # Writes to cold collections promote them and change them.
        rng = random.Random(3)
        for key in rng.sample(sorted(model), 200):
            kind, want = model[key]
            if kind == "hash":
                self.assertEqual(r.hset(key, "new", "x"), 1)
                want[b"new"] = b"x"
            elif kind == "list":
                self.assertEqual(r.lpop(key), want.pop(0))
            elif kind == "set":
                self.assertEqual(r.srem(key, next(iter(sorted(want)))), 1)
                want.discard(next(iter(sorted(want))))
            elif kind == "zset":
                self.assertEqual(r.zincrby(key, 100, want[0][0]), 100.0)
                want.append((want.pop(0)[0], 100.0))
            else:
                self.assertEqual(r.xdel(key, want[0][0]), 1)
                want.pop(0)
        for key, (kind, want) in sorted(model.items()):
            self.assertEqual(self.read_collection(r, key, kind), want, key)
        tier = self.tiering(r)
        self.assertGreater(tier["tier_promotions"], 0)
        self.assertEqual(tier["tier_read_errors"], 0)
        # And they survive a snapshot and a restart.
        self.assertTrue(r.save())
        r = self.restart()
        for key, (kind, want) in sorted(model.items()):
            self.assertEqual(self.read_collection(r, key, kind), want, key)

    def test_snapshot_holds_cold_values(self):
        r = self.r()
        model = self.fill(r)
        self.assertGreater(self.tiering(r)["tier_cold_keys"], 0)
        self.assertTrue(r.save())
        r = self.restart()
        self.assertEqual(r.dbsize(), KEYS)
        self.assert_values(r, model)


@unittest.skipUnless(IS_ORDIS, "tier-dir is ordis's")
class TierUnavailableTest(PersistentTestCase):
    def test_the_server_runs_without_it_and_says_why(self):
        self.assertEqual(self.r().info("tiering")["tier_enabled"], 0)
        # A regular file where the directory should be: the tier cannot open.
        with open(os.path.join(self.dir, "not-a-dir"), "w") as f:
            f.write("a file")
        r = self.restart(["--tier-dir", "not-a-dir/tier"])
        tier = r.info("tiering")
        self.assertEqual(tier["tier_enabled"], 0)
        self.assertIn("tier_unavailable", tier)
        self.assertTrue(r.set("k", "v" * 1000))
        self.assertEqual(r.get("k"), b"v" * 1000)


if __name__ == "__main__":
    unittest.main()
