"""Many connections at once: atomic INCR, MULTI/EXEC isolation, WATCH seeing other connections' writes.

Threads each own a connection. Python threads interleave at the GIL, so each thread pipelines batches
of commands: the server then really has several connections' commands in flight at once.
"""

import threading
import unittest

from harness import (RawClient, ServerTestCase, assert_increasing, encode_command,
                     pipelined_incrs, run_threads)



class IncrTest(ServerTestCase):
    THREADS = 8
    PER_THREAD = 10000
    BATCH = 100

    def test_8_threads_10k_incr(self):
        seen = [None] * self.THREADS

        def worker(i):
            with RawClient(self.port) as c:
                got = []
                for _ in range(self.PER_THREAD // self.BATCH):
                    got += pipelined_incrs(c, "counter", self.BATCH)
                assert_increasing(got)
                seen[i] = got

        run_threads(worker, self.THREADS)
        total = self.THREADS * self.PER_THREAD
        self.assertReply(str(total).encode(), "GET", "counter")
        # Linearizable: every value 1..total was handed out exactly once.
        all_values = sorted(v for got in seen for v in got)
        self.assertEqual(all_values, list(range(1, total + 1)))

    def test_incr_on_many_keys(self):
        keys = ["k%d" % i for i in range(16)]

        def worker(i):
            with RawClient(self.port) as c:
                for _ in range(10):
                    c.send(b"".join(encode_command("INCRBY", k, "2") for k in keys))
                    for _ in keys:
                        v = c.read_reply()
                        if not isinstance(v, int):
                            raise AssertionError(repr(v))

        run_threads(worker, 4)
        self.assertReply([b"80"] * len(keys), "MGET", *keys)


class MultiIsolationTest(ServerTestCase):
    def test_reader_never_sees_partial_transaction(self):
        rounds = 100
        done = threading.Event()
        bad = []

        def writer(_):
            with RawClient(self.port) as c:
                for _ in range(rounds):
                    cmds = [["MULTI"]] + [["INCR", "x"]] * 100 + [["INCR", "y"], ["EXEC"]]
                    replies = c.pipeline(cmds)
                    if replies[0] != "OK" or not isinstance(replies[-1], list) or \
                            len(replies[-1]) != 101:
                        raise AssertionError("transaction failed: %r" % (replies[-1],))
            done.set()

        def reader(_):
            with RawClient(self.port) as c:
                reads = 0
                while not done.is_set() or reads < 10:
                    x, y = c.call("MGET", "x", "y")
                    xi, yi = int(x or 0), int(y or 0)
                    if xi % 100 != 0 or xi != yi * 100:
                        bad.append((xi, yi))
                    reads += 1

        def role(i):
            (writer if i == 0 else reader)(i)

        run_threads(role, 3)
        self.assertEqual(bad, [], "a reader saw a transaction half applied")
        self.assertReply([str(rounds * 100).encode(), str(rounds).encode()], "MGET", "x", "y")

    def test_concurrent_transactions_serialize(self):
        def worker(i):
            with RawClient(self.port) as c:
                for _ in range(50):
                    replies = c.pipeline([["MULTI"], ["INCR", "a"], ["INCR", "b"], ["EXEC"]])
                    a, b = replies[-1]
                    # Another transaction cannot slip between the two INCRs.
                    if a != b:
                        raise AssertionError("interleaved transactions: a=%r b=%r" % (a, b))

        run_threads(worker, 4)
        self.assertReply([b"200", b"200"], "MGET", "a", "b")


class WatchConcurrencyTest(ServerTestCase):
    def test_watch_sees_other_connections(self):
        a, b = self.raw_client(), self.raw_client()
        self.assertEqual(a.call("SET", "k", "0"), "OK")
        aborted, k = 0, 0
        for i in range(50):
            self.assertEqual(a.call("WATCH", "k"), "OK")
            if i % 2:
                k += 1
                self.assertEqual(b.call("INCR", "k"), k)
            replies = a.pipeline([["MULTI"], ["SET", "mark", str(i)], ["EXEC"]])
            if i % 2:
                self.assertIsNone(replies[-1], i)
                aborted += 1
            else:
                self.assertEqual(replies[-1], ["OK"], i)
        self.assertEqual(aborted, 25)

    def test_optimistic_counter(self):
        """Check-and-set increments with WATCH from several connections never lose an update."""
        per_thread = 100
        threads = 4
        retries = [0] * threads

        def worker(i):
            with RawClient(self.port) as c:
                done = 0
                while done < per_thread:
                    if c.call("WATCH", "cas") != "OK":
                        raise AssertionError("WATCH failed")
                    v = int(c.call("GET", "cas") or 0)
                    replies = c.pipeline([["MULTI"], ["SET", "cas", str(v + 1)], ["EXEC"]])
                    if replies[-1] is None:
                        retries[i] += 1
                    elif replies[-1] == ["OK"]:
                        done += 1
                    else:
                        raise AssertionError("EXEC replied %r" % (replies[-1],))

        run_threads(worker, threads)
        self.assertReply(str(per_thread * threads).encode(), "GET", "cas")


if __name__ == "__main__":
    unittest.main()
