"""Key expiry: active (keys nobody touches still go away) and lazy (an expired key is never returned)."""

import time
import unittest

from harness import ServerTestCase, wait_until


def info_field(client, section, field):
    for line in client.call("INFO", section).decode().split("\r\n"):
        k, _, v = line.partition(":")
        if k == field:
            return v
    raise AssertionError("INFO %s has no %s" % (section, field))


def wait_for_clock(ms_from_now):
    """Waits until the wall clock has moved past a TTL set ms_from_now ago (not for any outcome)."""
    time.sleep(ms_from_now / 1000.0)


class ActiveExpiryTest(ServerTestCase):
    def test_untouched_key_disappears(self):
        self.assertReply("OK", "CONFIG", "RESETSTAT")
        self.assertReply("OK", "SET", "forever", "1")
        self.assertReply("OK", "SET", "short", "1", "EX", "1")
        self.assertReply(2, "DBSIZE")
        # Never touch "short" again: only DBSIZE (which does not expire keys) until it is gone.
        gone = wait_until(lambda: self.raw.call("DBSIZE") == 1, timeout=5.0, interval=0.05)
        self.assertTrue(gone, "a key with a 1 s TTL was still counted after 5 s")
        self.assertGreaterEqual(int(info_field(self.raw, "stats", "expired_keys")), 1)
        self.assertReply(b"1", "GET", "forever")

    def test_many_keys_expire_actively(self):
        n = 500
        args = []
        for i in range(n):
            args.append(["SET", "t%d" % i, "v", "PX", str(200 + i)])
        self.assertEqual(self.raw.pipeline(args), ["OK"] * n)
        self.assertReply("OK", "SET", "keep", "1")
        gone = wait_until(lambda: self.raw.call("DBSIZE") == 1, timeout=10.0, interval=0.05)
        self.assertTrue(gone, "DBSIZE stayed at %r" % self.raw.call("DBSIZE"))

    def test_keyspace_info_counts_expires(self):
        self.assertReply("OK", "SET", "a", "1", "EX", "100")
        self.assertReply("OK", "SET", "b", "1")
        line = info_field(self.raw, "keyspace", "db0")
        self.assertTrue(line.startswith("keys=2,expires=1,avg_ttl="), line)


class ExpiryChurnTest(ServerTestCase):
    """Short-lived keys nobody reads again: active expiry keeps pace with them (issue 13)."""

    def test_200k_keys_with_px_100_are_gone_within_2_s_of_expiring(self):
        n, chunk = 200000, 10000
        self.assertReply("OK", "CONFIG", "RESETSTAT")
        self.assertReply("OK", "SET", "keep", "1")
        self.assertReply("OK", "SET", "keep-ttl", "1", "EX", "3600")
        for start in range(0, n, chunk):
            replies = self.raw.pipeline(
                [["SET", "key:%012d" % i, "v", "PX", "100"] for i in range(start, start + chunk)])
            self.assertEqual(replies, ["OK"] * chunk)
        loaded = time.monotonic()
        # The last key expires 100 ms after it was set; DBSIZE expires nothing itself.
        gone = wait_until(lambda: self.raw.call("DBSIZE") == 2, timeout=2.1, interval=0.01)
        took = time.monotonic() - loaded
        self.assertTrue(gone, "DBSIZE was %r 2.1 s after the last SET" % self.raw.call("DBSIZE"))
        self.assertGreaterEqual(int(info_field(self.raw, "stats", "expired_keys")), n)
        self.assertReply(b"1", "GET", "keep")
        self.assertReply(b"1", "GET", "keep-ttl")
        line = info_field(self.raw, "keyspace", "db0")
        self.assertTrue(line.startswith("keys=2,expires=1,"), line)
        print("\n200k keys PX 100: empty %.2f s after the last SET" % took)


class LazyExpiryTest(ServerTestCase):
    def test_expired_key_is_never_returned(self):
        self.assertReply("OK", "SET", "k", "v", "PX", "100")
        self.assertReply(b"v", "GET", "k")
        wait_for_clock(150)
        # Whether active expiry already removed it or this access does, it must be gone.
        self.assertReply(None, "GET", "k")
        self.assertReply(0, "EXISTS", "k")
        self.assertReply(-2, "TTL", "k")
        self.assertReply(-2, "PTTL", "k")

    def test_every_read_path_hides_expired_keys(self):
        for i in range(20):
            self.assertReply("OK", "SET", "e%d" % i, "v", "PX", "100")
        self.assertReply("OK", "SET", "live", "v")
        wait_for_clock(150)
        self.assertReply([None, None, b"v"], "MGET", "e0", "e1", "live")
        self.assertReply(0, "EXISTS", "e2", "e3")
        self.assertReply([b"live"], "KEYS", "*")
        cursor, seen = b"0", []
        while True:
            cursor, keys = self.raw.call("SCAN", cursor, "COUNT", "5")
            seen += keys
            if cursor == b"0":
                break
        self.assertEqual(seen, [b"live"])
        self.assertReply(0, "STRLEN", "e4")
        self.assertReply(b"", "GETRANGE", "e5", "0", "-1")
        self.assertReply(None, "GETDEL", "e6")
        self.assertReply("none", "TYPE", "e7")
        self.assertReply(b"live", "RANDOMKEY")

    def test_writes_treat_expired_key_as_missing(self):
        self.assertReply("OK", "MSET", "a", "1", "b", "5", "c", "x", "d", "1", "r", "1")
        for k in ("a", "b", "c", "d", "r"):
            self.assertReply(1, "PEXPIRE", k, "100")
        wait_for_clock(150)
        self.assertReply("OK", "SET", "a", "new", "NX")
        self.assertReply(-1, "TTL", "a")
        self.assertReply(1, "INCR", "b")  # starts from zero, not from 5
        self.assertReply(1, "APPEND", "c", "y")
        self.assertReply(1, "SETNX", "d", "2")
        self.assertReply(0, "EXPIRE", "d2", "10")
        self.assertErr("ERR no such key", "RENAME", "r", "r2")

    def test_expired_key_counted_in_stats(self):
        self.assertReply("OK", "CONFIG", "RESETSTAT")
        self.assertReply("OK", "SET", "k", "v", "PX", "50")
        wait_for_clock(100)
        self.assertReply(None, "GET", "k")
        self.assertGreaterEqual(int(info_field(self.raw, "stats", "expired_keys")), 1)

    def test_ttl_counts_down(self):
        self.assertReply("OK", "SET", "k", "v", "PX", "3000")
        first = self.raw.call("PTTL", "k")
        wait_for_clock(100)
        second = self.raw.call("PTTL", "k")
        self.assertTrue(0 < second <= first - 100, (first, second))

    def test_expiry_inside_transaction_queue(self):
        self.assertReply("OK", "SET", "k", "v", "PX", "100")
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "GET", "k")
        wait_for_clock(150)
        self.assertReply([None], "EXEC")


if __name__ == "__main__":
    unittest.main()
