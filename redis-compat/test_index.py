"""ordis's ordered index as the server exposes it (ordis only; skipped on redis-server): the start-up
only parameters `index` and `index-*` (CONFIG GET, CONFIG SET refused as Redis refuses immutable
parameters, --help, start-up errors), INFO's `# Index` section, and servers started with the
reference map store or with small leaves and insert buffers keeping every key, in order.

Which store stands behind `index learned` is the index's business: the INFO checks here hold for any
store, and the tree-shape checks (leaves, splits, buffers) apply when the store reports a tree.
"""

import random
import re
import subprocess
import time
import unittest

from harness import IS_ORDIS, SERVER_PATH, ServerTestCase, free_port

INDEX_DEFAULTS = {
    b"index": b"learned",
    b"index-leaf-error": b"8",
    b"index-inner-error": b"4",
    b"index-leaf-capacity": b"128",
    b"index-insert-buffer": b"32",
    b"index-patcher-threads": b"1",
    b"index-hot-cache": b"yes",
}

INT_FIELDS = ("index_keys", "index_leaves", "index_inner_nodes", "index_depth", "index_model_error_max",
              "index_buffered_entries", "index_buffer_slots", "index_patches", "index_splits",
              "index_merges", "index_idle_flushes", "index_bytes", "index_key_bytes", "index_retired_pending", "index_retired_bytes",
              "hot_cache_lookups", "hot_cache_hits")
FIXED2_FIELDS = ("index_model_error_mean", "index_buffer_fill", "index_bytes_per_key",
                 "hot_cache_hit_rate")
INDEX_FIELDS = ["index_kind", "index_keys", "index_leaves", "index_inner_nodes", "index_depth",
                "index_model_error_mean", "index_model_error_max", "index_buffered_entries",
                "index_buffer_slots", "index_buffer_fill", "index_patches", "index_splits",
                "index_merges", "index_idle_flushes", "index_bytes", "index_key_bytes", "index_bytes_per_key", "index_retired_pending",
                "index_retired_bytes", "hot_cache", "hot_cache_lookups", "hot_cache_hits",
                "hot_cache_hit_rate"]


def immutable(name):
    return "ERR CONFIG SET failed (possibly related to argument '%s') - can't set immutable config" % name


def info_sections(client, *args):
    """INFO [args] -> [section names in order] (lower case)."""
    text = client.call("INFO", *args)
    assert isinstance(text, bytes), text
    return [line[2:].lower() for line in text.decode().split("\r\n") if line.startswith("# ")]


def index_info(client):
    """INFO index -> {field: value} in wire order (values as str)."""
    text = client.call("INFO", "index")
    assert isinstance(text, bytes), text
    lines = text.decode().split("\r\n")
    assert lines[0] == "# Index", lines[:2]
    fields = {}
    for line in lines[1:]:
        if line:
            k, sep, v = line.partition(":")
            assert sep, line
            fields[k] = v
    return fields


def dbsize_sum(client, dbs=16):
    total = 0
    for db in range(dbs):
        client.call("SELECT", str(db))
        total += client.call("DBSIZE")
    client.call("SELECT", "0")
    return total


def index_entries(client):
    """The index's entries: one per key, and one more per key with a TTL (INFO keyspace's expires)."""
    total = dbsize_sum(client)
    for line in client.call("INFO", "keyspace").decode().split("\r\n"):
        if line.startswith("db"):
            fields = dict(f.split("=") for f in line.partition(":")[2].split(","))
            total += int(fields["expires"])
    return total


def percent(part, whole):
    return 0.0 if whole == 0 else 100.0 * part / whole


class IndexTestCase(ServerTestCase):
    def check_index_info(self, want_kind, want_hot_cache, want_keys, leaf_capacity=None):
        """Asserts INFO index's fields, formats and the relations between them; returns them."""
        f = index_info(self.raw)
        self.assertEqual(list(f), INDEX_FIELDS)
        for name in INT_FIELDS:
            self.assertRegex(f[name], r"^\d+$", name)
        for name in FIXED2_FIELDS:
            self.assertRegex(f[name], r"^\d+\.\d\d$", name)
        n = {name: int(f[name]) for name in INT_FIELDS}
        x = {name: float(f[name]) for name in FIXED2_FIELDS}
        self.assertEqual(f["index_kind"], want_kind)
        self.assertEqual(f["hot_cache"], "enabled" if want_hot_cache else "disabled")
        self.assertEqual(n["index_keys"], want_keys)

        self.assertLessEqual(n["index_buffered_entries"], n["index_buffer_slots"])
        self.assertAlmostEqual(x["index_buffer_fill"],
                               percent(n["index_buffered_entries"], n["index_buffer_slots"]), delta=0.006)
        self.assertLessEqual(x["index_buffer_fill"], 100.0)
        self.assertLessEqual(n["hot_cache_hits"], n["hot_cache_lookups"])
        self.assertAlmostEqual(x["hot_cache_hit_rate"],
                               percent(n["hot_cache_hits"], n["hot_cache_lookups"]), delta=0.006)
        if not want_hot_cache:
            self.assertEqual(n["hot_cache_lookups"], 0)
        self.assertLessEqual(x["index_model_error_mean"], n["index_model_error_max"] + 0.005)
        keys = n["index_keys"]
        self.assertAlmostEqual(x["index_bytes_per_key"], n["index_bytes"] / keys if keys else 0.0,
                               delta=0.006)
        if keys:
            self.assertGreater(n["index_bytes"], 0)
            self.assertGreater(n["index_key_bytes"], 0)
        else:
            self.assertEqual(f["index_bytes_per_key"], "0.00")
        if n["index_leaves"] > 0:  # a store that reports a tree
            self.assertGreaterEqual(n["index_depth"], 1)
            if n["index_depth"] > 1:
                self.assertGreater(n["index_inner_nodes"], 0)
            if leaf_capacity is not None:
                # Every key not waiting in a buffer is in a leaf of at most leaf_capacity keys.
                self.assertGreaterEqual(n["index_leaves"] * leaf_capacity,
                                        keys - n["index_buffered_entries"])
        return f

    def load(self, keys, client=None):
        c = client or self.raw
        for i in range(0, len(keys), 500):
            args = []
            for k in keys[i:i + 500]:
                args += [k, b"v:" + k]
            self.assertEqual(c.call("MSET", *args), "OK")

    def check_values(self, keys, client=None):
        c = client or self.raw
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            self.assertEqual(c.call("MGET", *chunk), [b"v:" + k for k in chunk])

    def scan_all(self, count):
        cursor, out = b"0", []
        while True:
            cursor, keys = self.raw.call("SCAN", cursor, "COUNT", str(count))
            out += keys
            if cursor == b"0":
                return out

    def check_order(self, keys):
        want = sorted(keys)
        self.assertEqual(self.raw.call("KRANGE", "-", "+"), want)
        self.assertEqual(self.raw.call("KRANGE", "+", "-", "REV"), want[::-1])
        self.assertEqual(self.raw.call("KCOUNT", "-", "+"), len(want))
        self.assertEqual(self.scan_all(100), want)
        self.assertEqual(self.scan_all(7), want)
        rng = random.Random(len(keys))
        for _ in range(50):
            a, b = sorted(rng.sample(want, 2))
            got = self.raw.call("KRANGE", b"[" + a, b"(" + b)
            self.assertEqual(got, [k for k in want if a <= k < b], (a, b))
            lo = want.index(a)
            self.assertEqual(self.raw.call("KRANGE", b"(" + a, b"+", "LIMIT", "0", "10"),
                             want[lo + 1:lo + 11], a)

    def workload(self, n=5000, seed=5000):
        """n keys written in random order (with binary ones), read back and checked in order, then
        a third deleted and some overwritten; returns the keys left."""
        rng = random.Random(seed)
        keys = [b"user:%06d" % i for i in range(n - 10)]
        keys += [b"", b"\x00", b"\x00\x01", b"\x7f", b"\x80", b"\xff", b"\xff\xff", b"a\x00b",
                 b"user:", b"user:000000\x00"]
        rng.shuffle(keys)
        self.load(keys)
        self.assertEqual(self.raw.call("DBSIZE"), n)
        self.check_values(keys)
        self.check_order(keys)
        doomed = keys[::3]
        for i in range(0, len(doomed), 500):
            chunk = doomed[i:i + 500]
            self.assertEqual(self.raw.call("DEL", *chunk), len(chunk))
        gone = set(doomed)
        left = [k for k in keys if k not in gone]
        self.load(left[::5])  # overwrites with the same values: nothing changes
        self.assertEqual(self.raw.call("DBSIZE"), len(left))
        self.check_values(left)
        self.assertEqual(self.raw.call("MGET", *doomed[:100]), [None] * len(doomed[:100]))
        self.check_order(left)
        return left


@unittest.skipUnless(IS_ORDIS, "the index parameters and INFO index are ordis's")
class DefaultIndexTest(IndexTestCase):
    def test_config_get_defaults(self):
        self.assertReply([b"index-leaf-error", b"8"], "CONFIG", "GET", "index-leaf-error")
        reply = self.raw.call("CONFIG", "GET", "index*")
        self.assertEqual(dict(zip(reply[::2], reply[1::2])), INDEX_DEFAULTS)

    def test_config_set_is_refused(self):
        self.assertErr(immutable("index-leaf-error"), "CONFIG", "SET", "index-leaf-error", "4")
        for name, value in INDEX_DEFAULTS.items():
            self.assertErr(immutable(name.decode()), "CONFIG", "SET", name, value)
        self.assertErr(immutable("index"), "CONFIG", "SET", "index", "map")
        # All or nothing: the mutable parameter before it is not applied either.
        self.assertErr(immutable("index-hot-cache"), "CONFIG", "SET", "timeout", "7", "index-hot-cache",
                       "no")
        self.assertReply([b"timeout", b"0"], "CONFIG", "GET", "timeout")
        reply = self.raw.call("CONFIG", "GET", "index*")
        self.assertEqual(dict(zip(reply[::2], reply[1::2])), INDEX_DEFAULTS)

    def test_info_sections(self):
        self.assertEqual(info_sections(self.raw, "index"), ["index"])
        self.assertEqual(info_sections(self.raw, "INDEX"), ["index"])
        self.assertEqual(info_sections(self.raw, "index", "keyspace"), ["index", "keyspace"])
        for args in ((), ("default",), ("all",), ("everything",)):
            sections = info_sections(self.raw, *args)
            self.assertIn("index", sections, args)
            self.assertEqual(sections.count("index"), 1, args)
            self.assertLess(sections.index("server"), sections.index("index"), args)
        self.assertRegex(self.raw.call("INFO", "index"), rb"^# Index\r\nindex_kind:learned\r\n")

    def test_empty(self):
        self.check_index_info("learned", True, 0)

    def test_info_after_writes(self):
        rng = random.Random(7)
        keys = [b"k:%d:%d" % (rng.randrange(10 ** 9), i) for i in range(3000)]
        self.load(keys)
        other = self.raw_client()
        self.assertEqual(other.call("SELECT", "5"), "OK")
        self.load(keys[:700], client=other)
        self.assertReply("OK", "SET", "ttl", "v", "EX", "1000")
        self.check_values(keys)
        self.assertEqual(dbsize_sum(self.raw), 3701)
        self.assertEqual(index_entries(self.raw), 3702)  # the TTL has an entry of its own
        self.check_index_info("learned", True, 3702, leaf_capacity=128)

        # Deletes and flushes are reflected at once.
        self.assertEqual(self.raw.call("DEL", *keys[:1000]), 1000)
        self.assertEqual(other.call("FLUSHDB"), "OK")
        self.check_index_info("learned", True, index_entries(self.raw), leaf_capacity=128)
        self.assertEqual(dbsize_sum(self.raw), 2001)
        self.assertReply("OK", "FLUSHALL")
        self.check_index_info("learned", True, 0)

    def test_hot_cache_counters_only_grow(self):
        keys = [b"hot:%d" % i for i in range(200)]
        self.load(keys)
        before = index_info(self.raw)
        for _ in range(20):
            self.check_values(keys[:10])
        after = self.check_index_info("learned", True, 200)
        for name in ("hot_cache_lookups", "hot_cache_hits"):
            self.assertGreaterEqual(int(after[name]), int(before[name]), name)


    def test_idle_buffers_are_merged_into_their_leaves(self):
        """Keys written in random order leave most leaves with a partly filled insert buffer; once
        writes stop, the patchers merge them into the leaves (after a second without writes) and
        free them, and the keys read back the same."""
        left = self.workload(n=20000, seed=20000)
        written = index_info(self.raw)
        self.assertGreater(int(written["index_buffer_slots"]), 0)
        deadline = time.monotonic() + 60
        f = written
        while int(f["index_buffer_slots"]) > 0 and time.monotonic() < deadline:
            time.sleep(0.05)
            f = index_info(self.raw)
        self.assertEqual(f["index_buffer_slots"], "0")
        self.assertEqual(f["index_buffered_entries"], "0")
        self.assertGreater(int(f["index_idle_flushes"]), 0)
        self.assertLess(int(f["index_bytes"]), int(written["index_bytes"]))
        self.check_index_info("learned", True, len(left))
        self.check_values(left)
        self.check_order(left)


@unittest.skipUnless(IS_ORDIS, "--index is ordis's")
class MapIndexTest(IndexTestCase):
    server_args = ("--index", "map")

    def test_config_and_info(self):
        self.assertReply([b"index", b"map"], "CONFIG", "GET", "index")
        self.assertErr(immutable("index"), "CONFIG", "SET", "index", "learned")
        self.check_index_info("map", False, 0)

    def test_5000_keys(self):
        left = self.workload()
        self.check_index_info("map", False, len(left))


@unittest.skipUnless(IS_ORDIS, "the index-* parameters are ordis's")
class SmallLeavesTest(IndexTestCase):
    """Leaves of 16 keys with 4-slot insert buffers: 5000 keys need hundreds of leaves."""

    server_args = ("--index-leaf-capacity", "16", "--index-insert-buffer", "4")

    def test_config(self):
        want = dict(INDEX_DEFAULTS)
        want[b"index-leaf-capacity"] = b"16"
        want[b"index-insert-buffer"] = b"4"
        reply = self.raw.call("CONFIG", "GET", "index*")
        self.assertEqual(dict(zip(reply[::2], reply[1::2])), want)

    def test_5000_keys(self):
        left = self.workload()
        f = self.check_index_info("learned", True, len(left), leaf_capacity=16)
        if int(f["index_leaves"]) > 1:  # a store that reports a tree grew one from an empty leaf
            self.assertGreater(int(f["index_splits"]), 0)
            self.assertGreater(int(f["index_patches"]), 0)


@unittest.skipUnless(IS_ORDIS, "the index-* parameters are ordis's")
class TunedIndexTest(IndexTestCase):
    """Every parameter away from its default, the hot cache off."""

    server_args = ("--index-leaf-error", "2", "--index-inner-error", "2", "--index-leaf-capacity", "32",
                   "--index-insert-buffer", "8", "--index-patcher-threads", "2", "--index-hot-cache", "no")

    def test_5000_keys(self):
        reply = self.raw.call("CONFIG", "GET", "index*")
        self.assertEqual(dict(zip(reply[::2], reply[1::2])), {
            b"index": b"learned", b"index-leaf-error": b"2", b"index-inner-error": b"2",
            b"index-leaf-capacity": b"32", b"index-insert-buffer": b"8",
            b"index-patcher-threads": b"2", b"index-hot-cache": b"no"})
        left = self.workload(seed=99)
        self.check_index_info("learned", False, len(left), leaf_capacity=32)


@unittest.skipUnless(IS_ORDIS, "the index parameters are ordis's")
class IndexStartupTest(unittest.TestCase):
    def run_server(self, *args):
        """Runs the server with args; it must exit (an error, or --help) within 10 s."""
        cmd = [SERVER_PATH] + list(args)
        if args != ("--help",):  # should it start after all, it must not take 6379
            cmd += ["--port", str(free_port()), "--bind", "127.0.0.1"]
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=10)
        except subprocess.TimeoutExpired as e:  # run() has killed it
            self.fail("server %r did not exit within 10 s; output:\n%s" % (args, e.output))
        return p.returncode, p.stdout.decode("utf-8", "replace")

    def test_help_lists_the_parameters(self):
        rc, out = self.run_server("--help")
        self.assertEqual(rc, 0, out)
        for name, value in INDEX_DEFAULTS.items():
            self.assertRegex(out, r"(?m)^  %s \(default: %s\) \[start-up only\]$"
                             % (re.escape(name.decode()), value.decode()))

    def test_bad_values_stop_the_start(self):
        for args, naming in [(("--index", "btree"), "index"),
                             (("--index-leaf-error", "0"), "index-leaf-error"),
                             (("--index-inner-error", "1025"), "index-inner-error"),
                             (("--index-leaf-capacity", "4"), "index-leaf-capacity"),
                             (("--index-insert-buffer", "0"), "index-insert-buffer"),
                             (("--index-patcher-threads", "65"), "index-patcher-threads"),
                             (("--index-hot-cache", "maybe"), "index-hot-cache"),
                             (("--index-leaf-error", "64", "--index-leaf-capacity", "64"),
                              "index-leaf-error (64) must be less than index-leaf-capacity (64)")]:
            rc, out = self.run_server(*args)
            self.assertNotEqual(rc, 0, "server started with %r; output:\n%s" % (args, out))
            self.assertIn(naming, out, args)


if __name__ == "__main__":
    unittest.main()
