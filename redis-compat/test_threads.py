"""ordis's adaptive I/O threads: connections start on one thread and move between threads (INFO
threads, CONFIG SET adaptive-threads). A connection that moves keeps everything it had: selected
database, protocol, name, MULTI queue, WATCH list, half-sent command, unsent replies.

`adaptive-threads no` spreads connections over every thread at once; `yes` on an idle server
gathers them back on thread 0 within a few balancer windows (50 ms each). The tests switch between
the two to move connections on demand and wait for INFO to show the move (polling, with a
deadline). Skipped against redis-server, which has no such thing.
"""

import threading
import unittest

from harness import (IS_ORDIS, RawClient, ServerTestCase, assert_increasing, encode_command,
                     pipelined_incrs, run_threads, wait_until)

MOVE_TIMEOUT_S = 10


def thread_info(client):
    """INFO threads as a dict; io_thread_N values become their connection counts, and
    io_thread_N_lock_wait_us the microseconds its commands waited for the keyspace lock."""
    text = client.call("INFO", "threads").decode()
    info = {}
    for line in text.splitlines():
        if ":" not in line or line.startswith("#"):
            continue
        name, value = line.split(":", 1)
        if name.startswith("io_thread_"):
            fields = dict(field.split("=", 1) for field in value.split(","))
            info[name + "_lock_wait_us"] = int(fields["keyspace_lock_wait_us"])
            value = fields["connections"]
        info[name] = int(value) if value.lstrip("-").isdigit() else value
    return info


@unittest.skipUnless(IS_ORDIS, "ordis only: adaptive I/O threads")
class AdaptiveThreadsTest(ServerTestCase):
    server_args = ("--threads", "2", "--adaptive-threads", "yes")

    def setUp(self):
        super().setUp()
        self.admin = self.raw_client()
        self.assertEqual(self.admin.call("CONFIG", "SET", "adaptive-threads", "yes"), "OK")
        self.wait_gathered()

    def info(self):
        return thread_info(self.admin)

    def wait_gathered(self):
        """Until every connection is on thread 0 (an idle server in adaptive mode)."""
        ok = wait_until(lambda: (lambda i: i["io_threads_active"] == 1 and i["io_thread_1"] == 0)(
            self.info()), MOVE_TIMEOUT_S)
        self.assertTrue(ok, "connections not gathered on thread 0: %r" % (self.info(),))

    def spread(self):
        """Moves about half the connections to thread 1; returns once INFO shows it."""
        moved_before = self.info()["connections_moved"]
        self.assertEqual(self.admin.call("CONFIG", "SET", "adaptive-threads", "no"), "OK")
        ok = wait_until(lambda: (lambda i: i["io_threads_active"] == 2 and
                                 i["connections_moved"] > moved_before and
                                 abs(i["io_thread_0"] - i["io_thread_1"]) <= 2)(self.info()),
                        MOVE_TIMEOUT_S)
        self.assertTrue(ok, "connections not spread: %r" % (self.info(),))

    def gather(self):
        self.assertEqual(self.admin.call("CONFIG", "SET", "adaptive-threads", "yes"), "OK")
        self.wait_gathered()

    def all_on_thread_0(self):
        """Whether INFO threads counts every listed client on thread 0 (polled: connections
        closed by earlier tests leave the server's lists as their close is read)."""
        connected = len(self.r.client_list())
        info = self.info()
        return info["io_thread_0"] == connected and info["io_thread_1"] == 0

    def test_info_threads(self):
        info = self.info()
        self.assertEqual(info["io_threads"], 2)
        self.assertEqual(info["adaptive_threads"], "yes")
        self.assertTrue(wait_until(self.all_on_thread_0, MOVE_TIMEOUT_S), self.info())
        self.assertIn(b"io_threads_active:1", self.admin.call("INFO", "server"))

    def test_a_command_waiting_for_another_threads_script_counts_its_wait(self):
        clients = [self.raw_client() for _ in range(6)]
        self.spread()  # so some of them are on the thread the script does not run on
        waited = lambda i: i["io_thread_0_lock_wait_us"] + i["io_thread_1_lock_wait_us"]
        before = waited(self.info())
        busy = ("local t = redis.call('TIME') while true do local n = redis.call('TIME') "
                "if (n[1] - t[1]) * 1000000 + (n[2] - t[2]) > 300000 then return 1 end end")
        script = threading.Thread(target=lambda: clients[0].call("EVAL", busy, "0"))

        replies = []

        def write(c):
            # Writes from the script's thread queue behind it; those from the other thread, sent
            # while it holds the lock, wait for the lock until it ends.
            while script.is_alive():
                replies.append(c.call("SET", "k", "v"))
        writers = [threading.Thread(target=write, args=(c,)) for c in clients[1:]]
        script.start()
        for w in writers:
            w.start()
        for w in writers + [script]:
            w.join()
        self.assertEqual(set(replies), {"OK"})
        self.assertGreater(waited(self.info()) - before, 100000, self.info())

    def test_idle_server_keeps_new_connections_on_one_thread(self):
        moved_before = self.info()["connections_moved"]
        clients = [self.raw_client() for _ in range(6)]
        for c in clients:
            self.assertEqual(c.call("PING"), "PONG")
        self.assertTrue(wait_until(self.all_on_thread_0, MOVE_TIMEOUT_S), self.info())
        self.assertEqual(self.info()["connections_moved"], moved_before)  # placed there, not moved

    def test_config_switches_modes(self):
        clients = [self.raw_client() for _ in range(8)]
        self.spread()
        self.assertEqual(self.info()["adaptive_threads"], "no")
        self.gather()
        for c in clients:
            self.assertEqual(c.call("PING"), "PONG")

    def test_connection_state_survives_moves(self):
        clients = [self.raw_client() for _ in range(8)]
        for i, c in enumerate(clients):
            self.assertEqual(c.call("SELECT", str(i)), "OK")
            self.assertEqual(c.call("CLIENT", "SETNAME", "c%d" % i), "OK")
            self.assertEqual(c.call("SET", "k", "db%d" % i), "OK")
        resp3 = clients[0]
        self.assertEqual(resp3.call("HELLO", "3")[b"proto"], 3)
        watcher, in_multi = clients[1], clients[2]
        self.assertEqual(watcher.call("WATCH", "k"), "OK")
        self.assertEqual(in_multi.call("MULTI"), "OK")
        self.assertEqual(in_multi.call("INCR", "n"), "QUEUED")
        self.spread()
        self.assertEqual(in_multi.call("INCR", "n"), "QUEUED")
        self.gather()
        self.assertEqual(in_multi.call("EXEC"), [1, 2])
        # A write from another connection after WATCH, seen across the moves: EXEC aborts.
        other = self.raw_client()
        self.assertEqual(other.call("SELECT", "1"), "OK")
        self.assertEqual(other.call("SET", "k", "changed"), "OK")
        self.spread()
        self.assertEqual(watcher.call("MULTI"), "OK")
        self.assertEqual(watcher.call("SET", "k", "mine"), "QUEUED")
        self.assertIsNone(watcher.call("EXEC"))
        for i, c in enumerate(clients):
            self.assertEqual(c.call("CLIENT", "GETNAME"), ("c%d" % i).encode())
            want = b"changed" if i == 1 else b"db%d" % i
            self.assertEqual(c.call("GET", "k"), want)
        self.assertEqual(resp3.call("HELLO")[b"proto"], 3)

    def test_half_sent_command_completes_after_move(self):
        clients = [self.raw_client() for _ in range(6)]
        command = encode_command("SET", "split", "x" * 1000)
        # Cut inside the value, then inside the header: moving both ways.
        for cut, move in ((500, self.spread), (3, self.gather)):
            for c in clients:
                c.send(command[:cut])
            move()
            for c in clients:
                c.send(command[cut:])
                self.assertEqual(c.read_reply(), "OK")

    def test_unsent_replies_follow_the_connection(self):
        # A client that does not read: its replies wait in the server (32 MB: more than the
        # sockets' buffers take) while it moves, then all arrive, whole and in order.
        value = b"v" * (4 << 20)
        self.assertEqual(self.admin.call("SET", "big", value), "OK")
        slow = self.raw_client()
        self.assertEqual(slow.call("CLIENT", "SETNAME", "slow"), "OK")
        slow.send(encode_command("GET", "big") * 8 + encode_command("PING"))

        def slow_has_pending_output():
            for c in self.r.client_list():
                if c["name"] == "slow":
                    return int(c["omem"]) > 0
            return False

        self.assertTrue(wait_until(slow_has_pending_output, MOVE_TIMEOUT_S))
        self.spread()
        self.gather()
        for _ in range(8):
            self.assertEqual(slow.read_reply(), value)
        self.assertEqual(slow.read_reply(), "PONG")

    def test_client_kill_reaches_moving_connections(self):
        victims = [self.raw_client() for _ in range(8)]
        ids = [c.call("CLIENT", "ID") for c in victims]
        self.spread()
        self.assertEqual(self.admin.call("CONFIG", "SET", "adaptive-threads", "yes"), "OK")
        # Killed while the balancer gathers them back: each closes wherever it is.
        for i in ids:
            self.assertEqual(self.admin.call("CLIENT", "KILL", "ID", str(i)), 1)
        for c in victims:
            c.wait_closed()
        self.wait_gathered()
        listed = self.r.client_list()
        self.assertFalse(set(ids) & {int(c["id"]) for c in listed})

    def test_incr_from_8_connections_while_moving(self):
        threads, batch, min_moves = 8, 50, 6
        seen = [None] * threads
        done = threading.Event()
        moves_done = [0]
        moved_before = self.info()["connections_moved"]

        def worker(i):
            with RawClient(self.port) as c:
                got = []
                # Until the mover has moved connections back and forth several times.
                while moves_done[0] < min_moves and not done.is_set():
                    got += pipelined_incrs(c, "counter", batch)
                assert_increasing(got)
                seen[i] = got

        def mover():
            with RawClient(self.port) as admin:
                moves = 0
                while not done.is_set():
                    mode = "no" if moves % 2 == 0 else "yes"
                    if admin.call("CONFIG", "SET", "adaptive-threads", mode) != "OK":
                        raise AssertionError("CONFIG SET failed")
                    before = thread_info(admin)["connections_moved"]
                    if not wait_until(lambda: done.is_set() or
                                      thread_info(admin)["connections_moved"] > before,
                                      MOVE_TIMEOUT_S):
                        done.set()  # the workers stop; the test fails below
                    moves += 1
                    moves_done[0] = moves

        mover_thread = threading.Thread(target=mover)
        mover_thread.start()
        try:
            run_threads(worker, threads)
        finally:
            done.set()
            mover_thread.join(60)
        self.assertGreaterEqual(moves_done[0], min_moves)
        total = sum(len(got) for got in seen)
        self.assertEqual(self.admin.call("GET", "counter"), str(total).encode())
        self.assertEqual(sorted(v for got in seen for v in got), list(range(1, total + 1)))
        self.assertGreater(self.info()["connections_moved"], moved_before)


if __name__ == "__main__":
    unittest.main()
