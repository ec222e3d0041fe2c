"""Memory that follows the live set, not the history (issue 13): after a long churn the server holds
about what a fresh server holding only the surviving keys holds.

Two histories, each on its own fresh server, fed through `redis-cli --pipe` (as bench/index-churn.sh
and bench/expiry.sh do) so millions of commands take seconds:
  * a sliding window of WINDOW live keys with ever-increasing names (queues, job ids, sessions):
    SET key:i, then DEL key:(i - WINDOW), for i up to CHURN_OPS;
  * the same WINDOW keys, then EXPIRING keys set with PX 100 that nobody touches again.

The live set is the same WINDOW keys in both (key:%012d for the last WINDOW values of i, "abc" each).
A reference server, started fresh, is loaded with just those keys. "Within 20% of the live set's
size" is then, for a churned server A and the reference R, each measured against its own empty
start:

    used_memory(A) - used_memory(A, empty) <= 1.2 x (used_memory(R) - used_memory(R, empty)) + USED_SLACK
    RSS(A) - RSS(A, empty)                 <= 1.2 x (RSS(R) - RSS(R, empty)) + RSS_SLACK

and, for ordis's learned index (INFO index, ordis only), leaves(A) <= LEAF_FACTOR x leaves(R) + 1.
Both are polled with a deadline: the patchers merge emptied leaves and the allocator returns pages
in the background.
"""

import subprocess
import time
import unittest

from harness import IS_ORDIS, REDIS_CLI, RawClient, Server, info, wait_until

WINDOW = 10000
CHURN_OPS = 3000000
EXPIRING = 1000000

# What a server may hold beyond 1.2x the live set's growth, in absolute bytes:
#  * USED_SLACK, 256 KiB: the 20% of a 10k-key live set is only ~100-300 KB, less than what a
#    server keeps for itself after a burst that the fresh reference never saw: the connection's
#    query and reply buffers kept at their grown size (Redis shrinks them in its cron), the
#    database's hash table sized for the window plus what was in flight (Redis), retired index
#    nodes awaiting their epoch (ordis). The history's own cost, the failure this test exists for,
#    was 59,999 leaves and hundreds of MB.
#  * RSS_SLACK, 4 MiB: RSS moves in pages and per-arena chunks the allocator keeps (jemalloc holds
#    dirty pages for its decay time and per-thread caches); a server that has run 3M commands has
#    touched more of both than one that loaded 10k keys.
USED_SLACK = 256 << 10
RSS_SLACK = 4 << 20
# Leaves thinned by deletes merge with a neighbour once they fall under 3/8 of a leaf, so a tree
# shaped by deletes may hold leaves from 3/8 full up; the fresh load's leaves are full. 8/3 is the
# bound that follows.
LEAF_FACTOR = 8 / 3
SETTLE_DEADLINE_S = 30.0


def rss_bytes(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS for pid %d" % pid)


def key(i):
    return b"key:%012d" % i


def set_command(i, value=b"abc"):
    return b"*3\r\n$3\r\nSET\r\n$16\r\n%s\r\n$%d\r\n%s\r\n" % (key(i), len(value), value)


def pipe(port, chunks):
    """Feeds the RESP commands of `chunks` (an iterable of (bytes, command count)) to
    `redis-cli --pipe`; asserts every command got a reply and none an error."""
    proc = subprocess.Popen([REDIS_CLI, "-p", str(port), "--pipe"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sent = 0
    try:
        for data, count in chunks:
            proc.stdin.write(data)
            sent += count
        proc.stdin.close()
        out = proc.stdout.read().decode()
    finally:
        proc.stdout.close()
        proc.wait(timeout=120)
    assert proc.returncode == 0, out
    assert ("errors: 0, replies: %d" % sent) in out, out
    return sent


def window_chunks(start, stop, chunk=20000):
    """SET key:i for i in [start, stop)."""
    for first in range(start, stop, chunk):
        last = min(first + chunk, stop)
        yield b"".join(set_command(i) for i in range(first, last)), last - first


def churn_chunks(ops, window, chunk=20000):
    """SET key:i then DEL key:(i - window) for i in [0, ops): a window of live keys sliding up."""
    set_del = (b"*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$3\r\nabc\r\n"
               b"*2\r\n$3\r\nDEL\r\n$16\r\nkey:%012d\r\n")
    yield b"".join(set_command(i) for i in range(window)), window
    for first in range(window, ops, chunk):
        last = min(first + chunk, ops)
        yield b"".join(set_del % (i, i - window) for i in range(first, last)), 2 * (last - first)


def expiring_chunks(count, chunk=20000):
    """SET exp:i v PX 100 for i in [0, count)."""
    template = b"*5\r\n$3\r\nSET\r\n$16\r\nexp:%012d\r\n$1\r\nv\r\n$2\r\nPX\r\n$3\r\n100\r\n"
    for first in range(0, count, chunk):
        last = min(first + chunk, count)
        yield b"".join(template % i for i in range(first, last)), last - first


class Footprint:
    """A server's used_memory, RSS and (ordis) index leaves."""

    def __init__(self, server, client):
        self.used = int(info(client, "memory")["used_memory"])
        self.rss = rss_bytes(server.proc.pid)
        self.leaves = None
        if IS_ORDIS:
            index = info(client, "index")
            if "index_leaves" in index:
                self.leaves = int(index["index_leaves"])

    def __repr__(self):
        return "used_memory %.2f MB, RSS %.2f MB, leaves %s" % (self.used / 1048576, self.rss / 1048576,
                                                                self.leaves)


class MemoryChurnTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # The reference: a fresh server holding just the live set.
        with Server() as server, RawClient(server.port) as c:
            cls.ref_empty = Footprint(server, c)
            pipe(server.port, window_chunks(CHURN_OPS - WINDOW, CHURN_OPS))
            cls.ref_loaded = Footprint(server, c)
        cls.live_used = cls.ref_loaded.used - cls.ref_empty.used
        cls.live_rss = cls.ref_loaded.rss - cls.ref_empty.rss
        print("\nreference, %d keys loaded fresh: %r (empty: %r)"
              % (WINDOW, cls.ref_loaded, cls.ref_empty))

    def within_bounds(self, now, empty):
        """(used_memory and leaves within bounds, RSS within bounds) for footprint now."""
        used_ok = (now.used - empty.used <= 1.2 * self.live_used + USED_SLACK
                   and (now.leaves is None or self.ref_loaded.leaves is None
                        or now.leaves <= LEAF_FACTOR * self.ref_loaded.leaves + 1))
        rss_ok = now.rss - empty.rss <= 1.2 * self.live_rss + RSS_SLACK
        return used_ok, rss_ok

    def assertSettled(self, what, server, client, empty):
        """Polls (until SETTLE_DEADLINE_S) until the footprint is within bounds; fails if
        used_memory, RSS or the leaves are not."""
        last = []

        def poll():
            last[:] = [Footprint(server, client)]
            return all(self.within_bounds(last[0], empty))

        start = time.monotonic()
        wait_until(poll, SETTLE_DEADLINE_S, interval=0.1)
        now = last[0]
        print("%s: %r after %.1f s (empty: %r)" % (what, now, time.monotonic() - start, empty))
        used_ok, rss_ok = self.within_bounds(now, empty)
        detail = ("%s: %r, empty %r; the live set loaded fresh grows used_memory by %d and RSS by "
                  "%d from %r" % (what, now, empty, self.live_used, self.live_rss, self.ref_empty))
        self.assertTrue(used_ok, detail)
        self.assertTrue(rss_ok, detail)

    def test_sliding_window_of_live_keys_through_3m_set_del(self):
        with Server() as server, RawClient(server.port) as c:
            empty = Footprint(server, c)
            pipe(server.port, churn_chunks(CHURN_OPS, WINDOW))
            self.assertEqual(c.call("DBSIZE"), WINDOW)
            self.assertEqual(c.call("GET", key(CHURN_OPS - 1)), b"abc")
            self.assertEqual(c.call("GET", key(CHURN_OPS - WINDOW - 1)), None)
            self.assertSettled("after %d SET+DEL" % CHURN_OPS, server, c, empty)

    def test_1m_keys_with_px_100_leave_only_the_live_set(self):
        with Server() as server, RawClient(server.port) as c:
            empty = Footprint(server, c)
            pipe(server.port, window_chunks(CHURN_OPS - WINDOW, CHURN_OPS))
            pipe(server.port, expiring_chunks(EXPIRING))
            # DBSIZE expires nothing itself: only active expiry brings it down.
            gone = wait_until(lambda: c.call("DBSIZE") == WINDOW, SETTLE_DEADLINE_S, interval=0.05)
            self.assertTrue(gone, "DBSIZE %r %.0f s after the last PX 100 key"
                            % (c.call("DBSIZE"), SETTLE_DEADLINE_S))
            self.assertEqual(c.call("GET", key(CHURN_OPS - 1)), b"abc")
            self.assertSettled("after %d keys with PX 100 expired" % EXPIRING, server, c, empty)

    # FLUSHALL retires the old tree; an idle store frees it too (its patchers reclaim when idle).
    def test_flushall_gives_memory_back(self):
        with Server() as server, RawClient(server.port) as c:
            empty = Footprint(server, c)
            pipe(server.port, window_chunks(0, 200000))
            self.assertEqual(c.call("FLUSHALL"), "OK")
            back = wait_until(lambda: Footprint(server, c).used - empty.used <= USED_SLACK,
                              SETTLE_DEADLINE_S / 3, interval=0.05)
            now = Footprint(server, c)
            print("\nafter FLUSHALL of 200k keys: %r (empty: %r)" % (now, empty))
            self.assertTrue(back, "after FLUSHALL: %r, empty: %r" % (now, empty))

if __name__ == "__main__":
    unittest.main()
