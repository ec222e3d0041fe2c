"""Shared pieces of the persistence modules (test_persistence_*.py): a test case whose server keeps its
directory across restarts, INFO persistence parsing, a canonical dump of the whole data set to compare
before and after a restart, bulk loading, and the on-disk formats needed to damage files on purpose.

These tests are ordis-only: ordis writes its own snapshot format (dump.osnap) and log records, and
has ordis-only options (aof-load-corrupted), so they are skipped against redis-server.
"""

import os
import signal
import struct
import subprocess
import time
import unittest

import redis

from harness import (IS_ORDIS, REDIS_CLI, SOCKET_TIMEOUT_S, RawClient, Server, close_all,
                     encode_command, info, wait_until)

SNAPSHOT = "dump.osnap"
AOF_DIR = "appendonlydir"
MANIFEST = "appendonly.aof.manifest"


def info_persistence(client):
    """INFO persistence as a dict of str -> str (client: RawClient or redis.Redis)."""
    if not isinstance(client, RawClient):
        return {k: str(v) for k, v in client.info("persistence").items()}
    return info(client, "persistence")



def _wait_counter(client, in_progress, counter, before, timeout):
    # Not just "in_progress is 0": before 66a0550 ordis raised that flag on the job's thread, so
    # right after the reply it could still read 0 and a poller saw "done" before the job began.
    # The job's success counter (rdb_saves, aof_rewrites) rules that out whatever the flag does.
    def done():
        info = info_persistence(client)
        return info[in_progress] == "0" and int(info[counter]) > before
    if not wait_until(done, timeout, 0.01):
        raise AssertionError("background job not done after %.0fs: %r"
                             % (timeout, info_persistence(client)))


def saves(client):
    return int(info_persistence(client)["rdb_saves"])


def rewrites(client):
    return int(info_persistence(client)["aof_rewrites"])


def wait_bgsave(client, saves_before, timeout=60.0):
    """Waits until a BGSAVE issued after saves_before = saves(client) has succeeded and finished."""
    _wait_counter(client, "rdb_bgsave_in_progress", "rdb_saves", saves_before, timeout)


def wait_rewrite(client, rewrites_before, timeout=60.0):
    _wait_counter(client, "aof_rewrite_in_progress", "aof_rewrites", rewrites_before, timeout)


def client(port, **kw):
    return redis.Redis(host="127.0.0.1", port=port, socket_timeout=SOCKET_TIMEOUT_S, **kw)


@unittest.skipUnless(IS_ORDIS, "ordis's own persistence files and options")
class PersistentTestCase(unittest.TestCase):
    """One server per test, in a directory kept across restarts (self.srv)."""

    server_args = ()

    def setUp(self):
        self.srv = Server(self.server_args, keep_dir=True).start()
        self._clients = []

    def tearDown(self):
        close_all(self._clients)
        status = None
        if self.srv.proc is not None:
            status, log = self.srv.stop()
        self.srv.remove_dir()
        if status not in (None, 0, -signal.SIGTERM):
            self.fail("server did not exit cleanly (%s); log:\n%s" % (status, log))

    @property
    def dir(self):
        return self.srv.dir

    def r(self, **kw):
        c = client(self.srv.port, **kw)
        self._clients.append(c)
        return c

    def raw(self):
        c = RawClient(self.srv.port)
        self._clients.append(c)
        return c

    def stop_clean(self):
        status, log = self.srv.stop()
        self.assertIn(status, (0, -signal.SIGTERM), "unclean exit; log:\n" + log)
        return log

    def restart(self, extra_args=None):
        """Clean stop (SIGTERM: no save since the harness passes --save ""), then start again in the
        same directory, with extra_args replacing the server's extra flags if given."""
        if self.srv.proc is not None:
            self.stop_clean()
        if extra_args is not None:
            self.srv.extra_args = list(extra_args)
        self.srv.start()
        return self.r()

    def path(self, *parts):
        return os.path.join(self.dir, *parts)


# ---------------------------------------------------------------------------------------------------
# A canonical picture of the whole data set
# ---------------------------------------------------------------------------------------------------


def strip_idle(entries):
    return [{k: v for k, v in e.items() if k != "time_since_delivered"} for e in entries]


def dump_db(r):
    """{key: (type, value, has_ttl)} of the selected database, values in canonical form. A stream's
    value is its entries, length, groups and pending entries (without their idle times)."""
    out = {}
    for key in r.scan_iter(count=1000):
        t = r.type(key).decode()
        if t == "string":
            v = r.get(key)
        elif t == "list":
            v = tuple(r.lrange(key, 0, -1))
        elif t == "set":
            v = frozenset(r.smembers(key))
        elif t == "hash":
            v = tuple(sorted(r.hgetall(key).items()))
        elif t == "zset":
            v = tuple(r.zrange(key, 0, -1, withscores=True))
        elif t == "stream":
            groups = r.execute_command("XINFO", "GROUPS", key)
            v = (r.xrange(key), r.xlen(key), [g[:8] for g in groups],
                 [strip_idle(r.xpending_range(key, g[1], "-", "+", 1000)) for g in groups])
        else:
            raise AssertionError("unexpected type %r of %r" % (t, key))
        out[key] = (t, v, r.pttl(key) >= 0)
    return out


def dump_all(port, dbs=16):
    out = []
    for db in range(dbs):
        c = client(port, db=db)
        try:
            out.append(dump_db(c))
        finally:
            c.close()
    return out


def fill_all_types(port):
    """Every type, binary keys and values, scores with inf/-inf/fractions, TTLs, all 16 databases
    (database 9 filled and then flushed, so it is empty). Returns nothing; compare with dump_all."""
    big = b"\x00\xff" * 5000 + bytes(range(256))
    for db in range(16):
        r = client(port, db=db)
        p = r.pipeline(transaction=False)
        p.set(b"str", b"db%d" % db)
        p.set(b"bin\x00\xff", b"\x00\xff\x00value\r\n\xff")
        p.set(b"", b"empty-key-db%d" % db)
        p.set(b"\xff" * 3, b"")
        p.set(b"int", 12345 + db)
        p.set(b"big", big)
        p.set(b"ttl", b"x", px=3600_000)
        p.rpush(b"list", *[b"e%d" % i for i in range(20)], b"\x00", b"\xff")
        p.rpush(b"biglist", *[b"%d" % i for i in range(1000)])
        p.sadd(b"set", b"a", b"b", b"\x00", b"\xff\xfe")
        p.sadd(b"intset", *range(300))
        p.sadd(b"bigset", *[b"m%d" % i for i in range(500)])
        p.hset(b"hash", mapping={b"f1": b"v1", b"\x00f": b"\xffv", b"n": b"17"})
        p.hset(b"bighash", mapping={b"f%d" % i: b"v%d" % i for i in range(300)})
        p.zadd(b"zsmall", {b"a": 1.5, b"b": -2.25, b"c": float("inf"), b"d": float("-inf"),
                           b"e": 0, b"\x00": 1e-300, b"f": 3.141592653589793})
        members = {b"z%d" % i: i / 7.0 for i in range(300)}
        members.update({b"pinf": float("inf"), b"ninf": float("-inf")})
        p.zadd(b"zbig", members)
        p.zadd(b"zttl", {b"q": 1})
        p.pexpire(b"zttl", 3600_000)
        p.execute()
        if db == 9:
            r.flushdb()
        r.close()


def assert_same_data(tc, before, after, what):
    """Same keys, types and values per database; a key had a TTL before iff it has one after."""
    tc.assertEqual(len(before), len(after))
    for db, (b, a) in enumerate(zip(before, after)):
        if b != a:
            missing = set(b) - set(a)
            extra = set(a) - set(b)
            diff = [k for k in set(a) & set(b) if a[k] != b[k]]
            tc.fail("%s: db %d differs: missing %r, extra %r, changed %r" %
                    (what, db, sorted(missing)[:5], sorted(extra)[:5], sorted(diff)[:5]))


# ---------------------------------------------------------------------------------------------------
# Bulk loading
# ---------------------------------------------------------------------------------------------------


def pipe_load(port, commands, timeout=120):
    """Sends an iterable of argument tuples with redis-cli --pipe; asserts no errors."""
    data = b"".join(encode_command(*c) for c in commands)
    proc = subprocess.run([REDIS_CLI, "-h", "127.0.0.1", "-p", str(port), "--pipe"], input=data,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    out = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != 0 or "errors: 0" not in out:
        raise AssertionError("redis-cli --pipe failed (%d): %s" % (proc.returncode, out))
    return out


def raw_bulk(port, commands, batch=2000):
    """Pipelines commands on one RawClient; returns the replies."""
    replies = []
    with RawClient(port) as c:
        for i in range(0, len(commands), batch):
            replies += c.pipeline(commands[i:i + batch])
    return replies


# ---------------------------------------------------------------------------------------------------
# On-disk formats (persistence/snapshot_file.h, persistence/aof_file.h)
# ---------------------------------------------------------------------------------------------------

_M64 = (1 << 64) - 1
_P1, _P2, _P3, _P4, _P5 = (11400714785074694791, 14029467366897019727, 1609587929392839161,
                           9650029242287828579, 2870177450012600261)


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & _M64


def _round(acc, lane):
    acc = (acc + lane * _P2) & _M64
    return (_rotl(acc, 31) * _P1) & _M64


def _merge(acc, val):
    acc ^= _round(0, val)
    return (acc * _P1 + _P4) & _M64


def xxh64(data, seed=0):
    """XXH64 in pure Python (python3-xxhash is not installed); checked against a header the server
    wrote before it is trusted (see test_persistence_corruption)."""
    n = len(data)
    i = 0
    if n >= 32:
        v1 = (seed + _P1 + _P2) & _M64
        v2 = (seed + _P2) & _M64
        v3 = seed & _M64
        v4 = (seed - _P1) & _M64
        while i + 32 <= n:
            a, b, c, d = struct.unpack_from("<4Q", data, i)
            v1, v2, v3, v4 = _round(v1, a), _round(v2, b), _round(v3, c), _round(v4, d)
            i += 32
        h = (_rotl(v1, 1) + _rotl(v2, 7) + _rotl(v3, 12) + _rotl(v4, 18)) & _M64
        for v in (v1, v2, v3, v4):
            h = _merge(h, v)
    else:
        h = (seed + _P5) & _M64
    h = (h + n) & _M64
    while i + 8 <= n:
        (k,) = struct.unpack_from("<Q", data, i)
        h ^= _round(0, k)
        h = (_rotl(h, 27) * _P1 + _P4) & _M64
        i += 8
    if i + 4 <= n:
        (k,) = struct.unpack_from("<I", data, i)
        h ^= (k * _P1) & _M64
        h = (_rotl(h, 23) * _P2 + _P3) & _M64
        i += 4
    while i < n:
        h ^= (data[i] * _P5) & _M64
        h = (_rotl(h, 11) * _P1) & _M64
        i += 1
    h ^= h >> 33
    h = (h * _P2) & _M64
    h ^= h >> 29
    h = (h * _P3) & _M64
    h ^= h >> 32
    return h


def aof_records(data):
    """[(offset, total length)] of the whole records of a log file (16-byte header + payload)."""
    out = []
    off = 0
    while off + 16 <= len(data):
        (length,) = struct.unpack_from("<I", data, off)
        if off + 16 + length > len(data):
            break
        out.append((off, 16 + length))
        off += 16 + length
    return out


def read_manifest(dir_):
    """[(name, seq, type)] from the manifest."""
    out = []
    with open(os.path.join(dir_, AOF_DIR, MANIFEST)) as f:
        for line in f:
            w = line.split()
            assert w[0] == "file" and w[2] == "seq" and w[4] == "type", line
            out.append((w[1], int(w[3]), w[5]))
    return out


def last_incr_path(dir_):
    files = read_manifest(dir_)
    incr = [f for f in files if f[2] == "i"]
    assert incr, files
    return os.path.join(dir_, AOF_DIR, incr[-1][0])
