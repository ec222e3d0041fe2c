"""Migration to and from Redis: DUMP/RESTORE payloads, MIGRATE, dump.rdb files (issue 17).

Every expectation passes against redis-server 7.0.15 (ORDIS_SERVER=/usr/bin/redis-server). The
cross-server tests also start a reference redis-server (REDIS_REFERENCE, default
/usr/bin/redis-server) beside the server under test and move keys of every type and encoding
between them: DUMP on one RESTOREd on the other (byte-compared where Redis's bytes follow from the
value alone), MIGRATE both ways, the reference's SAVEd dump.rdb loaded at start-up, an RDB 9 file
as Redis 6 writes it (ziplists, quicklist of ziplists, intset) loaded, and on ordis an ordis
snapshot converted by ordis-rdb and loaded by the reference. Without a reference they are
skipped.
"""

import os
import random
import shutil
import struct
import subprocess
import tempfile
import time
import unittest

import redis

from harness import CrossServerTestCase, IS_ORDIS, REFERENCE_SERVER, SERVER_PATH, Server, ServerTestCase
from persist_util import dump_db

RDB_TOOL = os.path.join(os.path.dirname(SERVER_PATH), "ordis-rdb")


def fill(r, seed=1):
    """Keys of every type, in small and large forms, in databases 0 and 5; returns the key names."""
    rng = random.Random(seed)
    p = r.pipeline(transaction=False)
    p.set("str:small", "hello")
    p.set("str:int", 12345)
    p.set("str:neg", -7)
    p.set("str:bigint", 5000000000)
    p.set("str:binary", b"\x00\xff\r\nbinary\x00")
    p.set("str:compressible", "abc" * 40000)
    p.set("str:random", bytes(rng.getrandbits(8) for _ in range(10000)))
    p.set(b"key:\x00\xfe", "binary key")
    p.rpush("list:small", "a", 1, -5000, "hello world", 70000, 5000000000, "")
    p.rpush("list:large", *["e" * (i % 300) + str(i) for i in range(5000)])
    p.rpush("list:huge-elements", "x" * 20000, "y" * 9000, "z")
    p.sadd("set:intset", *range(-50, 50, 3))
    p.sadd("set:wide-intset", 1, 2 ** 40, -(2 ** 35))
    p.sadd("set:ints-over-limit", *range(600))
    p.sadd("set:strings", *["m%d" % i for i in range(200)])
    p.zadd("zset:small", {"a": 1, "b": 2.5, "c": -0.5, "d": 1e300, "e": float("inf"),
                          "f": float("-inf"), "g": 0.1})
    p.zadd("zset:large", {"m%d" % i: i / 7 for i in range(500)})
    p.zadd("zset:long-member", {"x" * 100: 1, "y": 2})
    p.hset("hash:small", mapping={"f1": "v1", "f2": "2", "f3": ""})
    p.hset("hash:large", mapping={"f%d" % i: "v" * (i % 50) for i in range(700)})
    p.hset("hash:long-value", mapping={"f": "v" * 100})
    p.set("ttl:str", "v", px=3_600_000)
    p.rpush("ttl:list", "a")
    p.pexpire("ttl:list", 7_200_000)
    p.execute()
    for i in range(1, 301):
        r.xadd("stream", {"a": i, "b": "x" * (i % 7)} if i % 5 else {"c": i}, id="%d-%d" % (i, i % 3))
    for i in range(10, 300, 10):
        r.xdel("stream", "%d-%d" % (i, i % 3))
    r.xgroup_create("stream", "g1", id="0")
    r.xgroup_create("stream", "g2", id="$")
    r.xreadgroup("g1", "alice", {"stream": ">"}, count=5)
    r.xreadgroup("g1", "bob", {"stream": ">"}, count=3)
    r.xack("stream", "g1", "1-1")
    r.xgroup_create("empty-stream", "g", id="$", mkstream=True)
    r5 = redis.Redis(port=r.connection_pool.connection_kwargs["port"], db=5)
    r5.set("db5:key", "in db 5")
    r5.zadd("db5:zset", {"a": 1})


def deterministic(key, t):
    """Whether Redis's DUMP of the key follows from its value alone: not for hashes (a listpack in
    insertion order, a table in hash order) nor sets held as tables."""
    return t in ("string", "list", "zset", "stream") or key.startswith(b"set:intset")


def all_contents(port):
    return {db: dump_db(redis.Redis(port=port, db=db)) for db in (0, 5)}


class DumpRestoreTest(ServerTestCase):
    def test_errors_as_redis(self):
        c = self.raw_client()
        c.call("SET", "k", "v")
        payload = c.call("DUMP", "k")
        self.assertErr("BUSYKEY Target key name already exists.", "RESTORE", "k", "0", payload)
        self.assertErr("ERR Invalid TTL value, must be >= 0", "RESTORE", "n", "-1", payload)
        self.assertErr("ERR value is not an integer or out of range", "RESTORE", "n", "x", payload)
        self.assertErr("ERR syntax error", "RESTORE", "n", "0", payload, "BOGUS")
        self.assertErr("ERR Invalid IDLETIME value, must be >= 0",
                       "RESTORE", "n", "0", payload, "IDLETIME", "-1")
        self.assertErr("ERR Invalid FREQ value, must be >= 0 and <= 255",
                       "RESTORE", "n", "0", payload, "FREQ", "300")
        self.assertErr("ERR syntax error", "RESTORE", "n", "0", payload, "IDLETIME", "1", "FREQ", "1")
        bad = bytearray(payload)
        bad[2] ^= 0x40
        self.assertErr("ERR DUMP payload version or checksum are wrong", "RESTORE", "n", "0",
                       bytes(bad))
        self.assertErr("ERR DUMP payload version or checksum are wrong", "RESTORE", "n", "0", "x")
        # A newer RDB version than 7.0's (10) is refused too.
        newer = bytearray(payload)
        newer[-10] = 11
        self.assertErr("ERR DUMP payload version or checksum are wrong", "RESTORE", "n", "0",
                       bytes(newer))
        self.assertReply(0, "EXISTS", "n")
        self.assertReply(None, "DUMP", "missing")
        self.assertErr("ERR wrong number of arguments for 'restore' command", "RESTORE", "n", "0")

    def test_every_type_round_trips(self):
        r = self.redis_client()
        fill(r)
        before = dump_db(r)
        for key, (t, _, _) in before.items():
            payload = r.dump(key)
            r.restore(b"copy:" + key, 0, payload)
            if deterministic(key, t):
                self.assertEqual(r.dump(b"copy:" + key), payload, key)
        after = dump_db(r)
        for key, (t, v, _) in before.items():
            self.assertEqual(after[b"copy:" + key][:2], (t, v), key)

    def test_ttl_replace_absttl_idletime(self):
        r = self.redis_client()
        r.set("k", "v")
        payload = r.dump("k")
        r.restore("t", 50_000, payload)
        self.assertTrue(49_000 < r.pttl("t") <= 50_000)
        r.restore("t", 0, payload, replace=True)
        self.assertEqual(r.pttl("t"), -1)
        r.restore("t", 1, payload, replace=True, absttl=True)  # in the past: gone
        self.assertEqual(r.exists("t"), 0)
        r.restore("i", 0, payload, idletime=3600)
        self.assertGreaterEqual(r.object("idletime", "i"), 3600)


class CrossServerTest(CrossServerTestCase):

    def setUp(self):
        self.ref = redis.Redis(port=self.reference.port)
        self.ours = redis.Redis(port=self.server.port)
        self.ref.flushall()
        self.ours.flushall()

    def test_dump_from_each_restores_on_the_other(self):
        fill(self.ref)
        expected = dump_db(self.ref)
        for key, (t, _, _) in expected.items():
            payload = self.ref.dump(key)
            self.ours.restore(key, 0, payload)
            if deterministic(key, t):
                self.assertEqual(self.ours.dump(key), payload, key)
        self.assertEqual({k: v[:2] for k, v in dump_db(self.ours).items()},
                         {k: v[:2] for k, v in expected.items()})
        # And back: ordis's payloads restore in Redis with the same content.
        self.ref.flushall()
        for key in expected:
            self.ref.restore(key, 0, self.ours.dump(key))
        self.assertEqual({k: v[:2] for k, v in dump_db(self.ref).items()},
                         {k: v[:2] for k, v in expected.items()})

    def test_migrate_both_ways(self):
        fill(self.ref)
        expected = dump_db(self.ref)
        keys = list(expected)
        self.assertEqual(self.ref.migrate("127.0.0.1", self.server.port, keys, 0, 5000), b"OK")
        self.assertEqual(self.ref.dbsize(), 0)
        self.assertEqual(dump_db(self.ours), expected)
        # Back into database 3 of the reference, copying, then replacing.
        self.assertEqual(self.ours.migrate("127.0.0.1", self.reference.port, keys, 3, 5000,
                                           copy=True), b"OK")
        self.assertEqual(len(dump_db(self.ours)), len(keys))
        with self.assertRaises(redis.ResponseError) as busy:
            self.ours.migrate("127.0.0.1", self.reference.port, keys[:1], 3, 5000)
        self.assertIn("Target instance replied with error: BUSYKEY", str(busy.exception))
        self.assertEqual(self.ours.migrate("127.0.0.1", self.reference.port, keys, 3, 5000,
                                           replace=True), b"OK")
        self.assertEqual(self.ours.dbsize(), 0)
        self.assertEqual(dump_db(redis.Redis(port=self.reference.port, db=3)), expected)
        self.assertEqual(self.ours.migrate("127.0.0.1", self.reference.port, ["gone"], 0, 1000),
                         b"NOKEY")

    def _start_on(self, directory, filename, path=SERVER_PATH):
        server = Server(["--dbfilename", filename], path=path, dir=directory)
        server.start()
        self.addCleanup(server.stop)
        return server

    def test_dump_rdb_from_redis_loads(self):
        fill(self.ref)
        self.ref.function_load(
            "#!lua name=lib\nredis.register_function('f', function(keys, args) return 7 end)")
        expected = all_contents(self.reference.port)
        self.ref.save()
        directory = tempfile.mkdtemp(prefix="ordis-rdb-")
        self.addCleanup(shutil.rmtree, directory, True)
        shutil.copy(os.path.join(self.reference.dir, "dump.rdb"), os.path.join(directory, "in.rdb"))
        server = self._start_on(directory, "in.rdb")
        self.assertEqual(all_contents(server.port), expected)
        self.assertEqual(redis.Redis(port=server.port).fcall("f", 0), 7)

    def test_rdb9_as_redis6_writes_it_loads(self):
        directory = tempfile.mkdtemp(prefix="ordis-rdb9-")
        self.addCleanup(shutil.rmtree, directory, True)
        with open(os.path.join(directory, "v9.rdb"), "wb") as f:
            f.write(redis6_rdb())
        server = self._start_on(directory, "v9.rdb")
        r = redis.Redis(port=server.port)
        self.assertEqual(r.lrange("list", 0, -1), [b"a", b"1", b"-5000", b"300", b"70000",
                                                   b"5000000000", b"x" * 300])
        self.assertEqual(r.hgetall("hash"), {b"f": b"v", b"n": b"12"})
        self.assertEqual(r.zrange("zset", 0, -1, withscores=True), [(b"c", -0.5), (b"a", 1.0),
                                                                    (b"b", 2.5)])
        self.assertEqual(sorted(r.smembers("intset")), [b"-3", b"5", b"70000"])
        self.assertEqual(r.get("str"), b"value")
        self.assertTrue(0 < r.pttl("str") <= 3_600_000)
        self.assertEqual(r.dbsize(), 5)  # "expired" was skipped
        self.assertEqual(redis.Redis(port=server.port, db=2).get("other"), b"db 2")

    def test_corrupt_rdb_is_refused(self):
        fill(self.ref)
        self.ref.save()
        with open(os.path.join(self.reference.dir, "dump.rdb"), "rb") as f:
            data = bytearray(f.read())
        data[len(data) // 2] ^= 0x55
        directory = tempfile.mkdtemp(prefix="ordis-rdb-bad-")
        self.addCleanup(shutil.rmtree, directory, True)
        with open(os.path.join(directory, "bad.rdb"), "wb") as f:
            f.write(data)
        server = Server(["--dbfilename", "bad.rdb"], dir=directory)
        code, log = server.start_expecting_exit()
        self.assertIsInstance(code, int, log)  # it exited rather than serving
        self.assertNotEqual(code, 0, log)

    @unittest.skipUnless(IS_ORDIS, "ordis-rdb converts ordis's snapshots")
    def test_ordis_snapshot_converts_to_rdb_redis_loads(self):
        fill(self.ours)
        self.ours.function_load(
            "#!lua name=lib\nredis.register_function('f', function(keys, args) return 7 end)")
        expected = all_contents(self.server.port)
        self.ours.save()
        directory = tempfile.mkdtemp(prefix="ordis-rdb-out-")
        self.addCleanup(shutil.rmtree, directory, True)
        snapshot = os.path.join(self.server.dir, "dump.osnap")
        out = subprocess.run([RDB_TOOL, snapshot, os.path.join(directory, "dump.rdb")],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        reference = self._start_on(directory, "dump.rdb", path=REFERENCE_SERVER)
        self.assertEqual(all_contents(reference.port), expected)
        self.assertEqual(redis.Redis(port=reference.port).fcall("f", 0), 7)


# --- an RDB 9 file as Redis 6 writes one, built here byte by byte ---

def crc64(data):
    """Redis's CRC-64 (Jones polynomial, reflected)."""
    poly = 0x95AC9329AC4BC9B5
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ poly if crc & 1 else crc >> 1
    return crc


def rdb_len(n):
    if n < 64:
        return bytes([n])
    if n < 16384:
        return bytes([0x40 | (n >> 8), n & 0xFF])
    return b"\x80" + struct.pack(">I", n)


def rdb_str(s):
    return rdb_len(len(s)) + s


def ziplist(elements):
    """A ziplist as Redis 6 builds it: integers in their smallest encoding, strings raw."""
    body, prev = b"", 0
    for e in elements:
        entry = bytes([prev]) if prev < 254 else b"\xfe" + struct.pack("<I", prev)
        try:
            v = int(e)
            canonical = str(v).encode() == e
        except ValueError:
            canonical = False
        if canonical and 0 <= v <= 12:
            entry += bytes([0xF1 + v])
        elif canonical and -128 <= v <= 127:
            entry += b"\xfe" + struct.pack("<b", v)
        elif canonical and -32768 <= v <= 32767:
            entry += b"\xc0" + struct.pack("<h", v)
        elif canonical and -(2 ** 23) <= v < 2 ** 23:
            entry += b"\xf0" + struct.pack("<i", v)[:3]
        elif canonical and -(2 ** 31) <= v < 2 ** 31:
            entry += b"\xd0" + struct.pack("<i", v)
        elif canonical:
            entry += b"\xe0" + struct.pack("<q", v)
        elif len(e) < 64:
            entry += bytes([len(e)]) + e
        else:
            entry += bytes([0x40 | (len(e) >> 8), len(e) & 0xFF]) + e
        prev = len(entry)
        body += entry
    tail = 10 + len(body) - prev
    total = 10 + len(body) + 1
    return struct.pack("<IIH", total, tail, len(elements)) + body + b"\xff"


def redis6_rdb():
    out = b"REDIS0009" + b"\xfa" + rdb_str(b"redis-ver") + rdb_str(b"6.0.16")
    out += b"\xfe\x00" + b"\xfb" + rdb_len(6) + rdb_len(2)
    # A quicklist (type 14) of two ziplist nodes.
    out += b"\x0e" + rdb_str(b"list") + rdb_len(2)
    out += rdb_str(ziplist([b"a", b"1", b"-5000", b"300"]))
    out += rdb_str(ziplist([b"70000", b"5000000000", b"x" * 300]))
    out += b"\x0d" + rdb_str(b"hash") + rdb_str(ziplist([b"f", b"v", b"n", b"12"]))
    out += b"\x0c" + rdb_str(b"zset") + rdb_str(ziplist([b"c", b"-0.5", b"a", b"1", b"b", b"2.5"]))
    out += b"\x0b" + rdb_str(b"intset") + rdb_str(struct.pack("<IIiii", 4, 3, -3, 5, 70000))
    now_ms = int(time.time() * 1000)
    out += b"\xfc" + struct.pack("<Q", now_ms + 3_600_000) + b"\x00" + rdb_str(b"str") + rdb_str(b"value")
    out += b"\xfc" + struct.pack("<Q", now_ms - 1000) + b"\x00" + rdb_str(b"expired") + rdb_str(b"old")
    out += b"\xfe\x02" + b"\x00" + rdb_str(b"other") + rdb_str(b"db 2")
    out += b"\xff"
    return out + struct.pack("<Q", crc64(out))


if __name__ == "__main__":
    unittest.main()
