"""Damaged files with the real binary: files are written by the server, it is stopped cleanly, then
Python damages them and the server is started on them. A refusal must be a normal exit with a
non-zero status (never a signal: a crash on bad input is a bug) and a message naming the file;
recoverable damage (a torn log tail) must be repaired as documented. ordis-only; see persist_util.py.
"""

import os
import struct

from persist_util import (AOF_DIR, MANIFEST, SNAPSHOT, PersistentTestCase, aof_records, client,
                          last_incr_path, pipe_load, read_manifest, rewrites, wait_rewrite, xxh64)


class CorruptionTestCase(PersistentTestCase):
    def expect_refusal(self, *fragments, extra=()):
        """Starts the server expecting it to refuse; returns its log."""
        code, log = self.srv.start_expecting_exit(extra)
        self.assertIsNotNone(code, "the server started on a damaged file; log:\n" + log)
        self.assertIsInstance(code, int, log)
        self.assertGreater(code, 0, "expected a normal exit with an error status, got %r (a "
                           "negative status is a signal: a crash); log:\n%s" % (code, log))
        for f in fragments:
            self.assertIn(f, log)
        return log

    def start_ok(self, extra_args=None):
        if extra_args is not None:
            self.srv.extra_args = list(extra_args)
        self.srv.start()
        return client(self.srv.port)


class SnapshotCorruptionTest(CorruptionTestCase):
    N = 50_000

    def setUp(self):
        super().setUp()
        pipe_load(self.srv.port, (("SET", "key:%d" % i, "value-%d-" % i + "x" * 50)
                                  for i in range(self.N)))
        r = client(self.srv.port)
        self.assertTrue(r.save())
        r.close()
        self.stop_clean()
        self.snap = self.path(SNAPSHOT)
        with open(self.snap, "rb") as f:
            self.data = f.read()
        self.assertGreater(len(self.data), 100_000, "want several blocks")

    def write(self, data):
        with open(self.snap, "wb") as f:
            f.write(data)

    def test_intact_file_loads(self):
        r = self.start_ok()
        self.assertEqual(r.dbsize(), self.N)
        r.close()

    def test_flipped_byte_in_the_middle(self):
        for pos in (len(self.data) // 2, len(self.data) // 3, 40):
            d = bytearray(self.data)
            d[pos] ^= 0x01
            self.write(bytes(d))
            self.expect_refusal(self.snap)

    def test_flipped_byte_in_the_header(self):
        d = bytearray(self.data)
        d[20] ^= 0x80  # creation time, covered by the header checksum
        self.write(bytes(d))
        self.expect_refusal(self.snap)

    def test_truncated(self):
        for size in (len(self.data) // 2, len(self.data) - 1, len(self.data) - 20, 33, 31, 8):
            self.write(self.data[:size])
            self.expect_refusal(self.snap)

    def test_bytes_after_the_trailer(self):
        self.write(self.data + b"\x00")
        self.expect_refusal(self.snap)

    def test_empty_file(self):
        self.write(b"")
        self.expect_refusal(self.snap)

    def test_not_a_snapshot(self):
        self.write(b"REDIS0011" + b"\x00" * 100)
        self.expect_refusal(self.snap)

    def test_newer_version(self):
        header = self.data[:32]
        self.assertEqual(header[:8], b"ORDISSNP")
        (version,) = struct.unpack_from("<I", header, 8)
        self.assertEqual(version, 1)
        # The pure-Python xxh64 must reproduce the server's own header checksum before it is used.
        self.assertEqual(struct.unpack_from("<Q", header, 24)[0], xxh64(header[:24]))
        newer = header[:8] + struct.pack("<I", version + 1) + header[12:24]
        newer += struct.pack("<Q", xxh64(newer))
        self.write(newer + self.data[32:])
        log = self.expect_refusal(self.snap)
        self.assertIn("newer", log)


class LogCorruptionTest(CorruptionTestCase):
    server_args = ("--appendonly", "yes", "--appendfsync", "always")
    N = 20

    def setUp(self):
        super().setUp()
        r = client(self.srv.port)
        for i in range(self.N):
            r.set("k%d" % i, "v%d" % i)  # one record each
        r.close()
        self.stop_clean()
        self.incr = last_incr_path(self.dir)
        with open(self.incr, "rb") as f:
            self.data = f.read()
        self.records = aof_records(self.data)
        self.assertEqual(len(self.records), self.N)
        self.assertEqual(sum(n for _, n in self.records), len(self.data))

    def write(self, data):
        with open(self.incr, "wb") as f:
            f.write(data)

    def keys_present(self, r):
        return sorted(int(k[1:]) for k in r.keys("k*"))

    def test_torn_tail_is_truncated_with_a_warning(self):
        last_off, last_len = self.records[-1]
        for cut in (last_off + last_len // 2, last_off + 5):  # inside the payload, the header
            self.write(self.data[:cut])
            r = self.start_ok()
            self.assertEqual(self.keys_present(r), list(range(self.N - 1)))
            log = self.srv.log_text()
            self.assertIn("Warning", log)
            self.assertIn(self.incr, log)
            self.assertEqual(os.path.getsize(self.incr), last_off, "torn tail not truncated")
            r.close()
            self.stop_clean()
        # The repaired log takes new records and replays them.
        r = self.start_ok()
        r.set("after", "1")
        r.close()
        self.stop_clean()
        r = self.start_ok()
        self.assertEqual(r.get("after"), b"1")
        self.assertEqual(self.keys_present(r), list(range(self.N - 1)))
        r.close()

    def test_zero_filled_tail_is_a_torn_tail(self):
        # A crash after the file was extended but before the data reached the disk leaves zeros.
        self.write(self.data + b"\x00" * 4096)
        r = self.start_ok()
        self.assertEqual(self.keys_present(r), list(range(self.N)))
        self.assertIn("Warning", self.srv.log_text())
        self.assertEqual(os.path.getsize(self.incr), len(self.data))
        r.close()

    def test_torn_tail_refused_with_aof_load_truncated_no(self):
        last_off, last_len = self.records[-1]
        cut = self.data[:last_off + last_len // 2]
        self.write(cut)
        self.expect_refusal(self.incr, extra=("--aof-load-truncated", "no"))
        with open(self.incr, "rb") as f:
            self.assertEqual(f.read(), cut, "a refused file must be left as it was")

    def test_corruption_in_the_middle(self):
        mid = self.N // 2
        off, n = self.records[mid]
        d = bytearray(self.data)
        d[off + 16 + n // 2 - 8] ^= 0x20  # inside the payload of record #mid
        self.write(bytes(d))
        log = self.expect_refusal(self.incr, "offset %d" % off)
        with open(self.incr, "rb") as f:
            self.assertEqual(f.read(), bytes(d), "a refused file must be left as it was")
        # Opting in loads the records before it.
        r = self.start_ok(list(self.server_args) + ["--aof-load-corrupted", "yes"])
        self.assertEqual(self.keys_present(r), list(range(mid)))
        self.assertIn("Warning", self.srv.log_text())
        r.set("after", "1")
        r.close()
        self.stop_clean()
        # A new base replaced the damaged log: the next start needs no opt-in and keeps both.
        r = self.start_ok()
        self.assertEqual(self.keys_present(r), list(range(mid)))
        self.assertEqual(r.get("after"), b"1")
        r.close()
        del log

    def test_corrupt_record_header_in_the_middle(self):
        mid = self.N // 2
        off, _ = self.records[mid]
        d = bytearray(self.data)
        d[off] ^= 0x01  # the length: the header's own check must catch it
        self.write(bytes(d))
        self.expect_refusal(self.incr, "offset %d" % off)

    def test_empty_incr_file(self):
        self.write(b"")
        r = self.start_ok()
        self.assertEqual(r.dbsize(), 0)  # the base is empty; the records were all in the file
        r.set("x", "1")
        r.close()
        self.stop_clean()
        r = self.start_ok()
        self.assertEqual(r.get("x"), b"1")
        r.close()

    def test_empty_incr_after_rewrite_keeps_the_base(self):
        r = self.start_ok()
        n = rewrites(r)
        r.bgrewriteaof()
        wait_rewrite(r, n)
        r.close()
        self.stop_clean()
        incr = last_incr_path(self.dir)
        self.assertEqual(os.path.getsize(incr), 0)
        r = self.start_ok()
        self.assertEqual(self.keys_present(r), list(range(self.N)))
        r.close()

    def test_missing_base(self):
        files = read_manifest(self.dir)
        base = [name for name, _, t in files if t == "b"][0]
        os.unlink(self.path(AOF_DIR, base))
        self.expect_refusal(base)

    def test_missing_incr(self):
        os.unlink(self.incr)
        self.expect_refusal(os.path.basename(self.incr))

    def test_malformed_manifest(self):
        manifest = self.path(AOF_DIR, MANIFEST)
        with open(manifest, "rb") as f:
            good = f.read()
        for bad in (b"garbage\n", good.rstrip(b"\n"), good + b"file x seq 0 type b\n",
                    good.replace(b"type i", b"type q"), b"file ../../etc/passwd seq 1 type b\n"):
            with open(manifest, "wb") as f:
                f.write(bad)
            self.expect_refusal(MANIFEST)

    def test_flipped_byte_in_the_base(self):
        r = self.start_ok()
        pipe_load(self.srv.port, (("SET", "b%d" % i, "x" * 50) for i in range(20_000)))
        n = rewrites(r)
        r.bgrewriteaof()
        wait_rewrite(r, n)
        r.close()
        self.stop_clean()
        base = self.path(AOF_DIR, read_manifest(self.dir)[0][0])
        with open(base, "rb") as f:
            d = bytearray(f.read())
        d[len(d) // 2] ^= 0x04
        with open(base, "wb") as f:
            f.write(bytes(d))
        self.expect_refusal(base)
