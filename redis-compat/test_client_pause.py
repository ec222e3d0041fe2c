"""CLIENT PAUSE [WRITE|ALL] and CLIENT UNPAUSE: paused clients' commands wait (in WRITE mode only
writes and the commands Redis 7.0 says may replicate: EVAL, PUBLISH, a transaction holding a
write...) until UNPAUSE or the pause's end, in order, while reads go on; the I/O threads keep
serving everyone else meanwhile. Every expectation holds against redis-server 7.0.15 too.

Nothing sleeps to pass: a held command is seen held through INFO's blocked_clients, then released.
"""

import select
import time
import unittest

from harness import Err, ServerTestCase, info, wait_until

LONG_MS = 60000  # a pause no test waits out


class ClientPauseTest(ServerTestCase):
    def tearDown(self):
        self.raw_client().call("CLIENT", "UNPAUSE")
        super().tearDown()

    def blocked(self):
        return int(info(self.raw, "clients")["blocked_clients"])

    def assertNothingYet(self, c):
        """c has no reply waiting (its command is held)."""
        self.assertEqual(len(c.buf) - c.pos, 0)
        readable, _, _ = select.select([c.sock], [], [], 0.05)
        self.assertEqual(readable, [])

    def test_write_pause_holds_writes_and_lets_reads_through(self):
        self.raw.call("SET", "k", "old")
        self.assertEqual(self.raw.call("CLIENT", "PAUSE", LONG_MS, "WRITE"), "OK")
        writer = self.raw_client()
        reader = self.raw_client()
        writer.send_command("SET", "k", "new")
        writer.send_command("GET", "k")  # behind the held write, in order
        wait_until(lambda: self.blocked() == 1, 5)
        self.assertEqual(self.blocked(), 1)
        self.assertEqual(reader.call("GET", "k"), b"old")
        self.assertEqual(reader.call("EVAL_RO", "return redis.call('get', 'k')", "0"), b"old")
        self.assertNothingYet(writer)
        flags = [line for line in self.raw.call("CLIENT", "LIST").decode().splitlines()
                 if "cmd=set" in line]
        self.assertEqual(len(flags), 1)
        self.assertIn("flags=b ", flags[0])
        self.assertEqual(self.raw.call("CLIENT", "UNPAUSE"), "OK")
        self.assertEqual(writer.read_reply(), "OK")
        self.assertEqual(writer.read_reply(), b"new")
        self.assertEqual(self.blocked(), 0)

    def test_may_replicate_commands_wait_too(self):
        self.assertEqual(self.raw.call("CLIENT", "PAUSE", LONG_MS, "WRITE"), "OK")
        held = []
        for command in (("PUBLISH", "ch", "m"), ("EVAL", "return 1", "0"), ("DEL", "nokey")):
            c = self.raw_client()
            c.send_command(*command)
            held.append(c)
        queued = self.raw_client()
        self.assertEqual(queued.call("MULTI"), "OK")
        queued.send_command("SET", "a", "1")  # even queuing a write waits
        reads = self.raw_client()
        self.assertEqual(reads.call("MULTI"), "OK")
        self.assertEqual(reads.call("GET", "a"), "QUEUED")
        self.assertEqual(reads.call("EXEC"), [None])  # a transaction of reads runs
        wait_until(lambda: self.blocked() == 4, 5)
        self.assertEqual(self.blocked(), 4)
        self.raw.call("CLIENT", "UNPAUSE")
        self.assertEqual([c.read_reply() for c in held], [0, 1, 0])
        self.assertEqual(queued.read_reply(), "QUEUED")
        self.assertEqual(queued.call("EXEC"), ["OK"])

    def test_scripts_declared_read_only_run_during_a_write_pause(self):
        """A script's shebang decides: no-writes scripts and functions run (also queued in MULTI),
        one that may write waits, and so does one without a shebang (EVAL may replicate)."""
        no_writes = "#!lua flags=no-writes\nreturn redis.call('get', 'k')"
        sha = self.raw.call("SCRIPT", "LOAD", no_writes)
        self.raw.call("FUNCTION", "LOAD", "#!lua name=pauselib\n"
                      "redis.register_function{function_name='ro', callback=function() return 1 end, "
                      "flags={'no-writes'}}\n"
                      "redis.register_function('rw', function() return 2 end)")
        self.raw.call("SET", "k", "v")
        self.assertEqual(self.raw.call("CLIENT", "PAUSE", LONG_MS, "WRITE"), "OK")
        c = self.raw_client()
        self.assertEqual(c.call("EVAL", no_writes, "0"), b"v")
        self.assertEqual(c.call("EVALSHA", sha, "0"), b"v")
        self.assertEqual(c.call("FCALL", "ro", "0"), 1)
        self.assertEqual(c.call("MULTI"), "OK")
        self.assertEqual(c.call("EVAL", no_writes, "0"), "QUEUED")
        self.assertEqual(c.call("EXEC"), [b"v"])
        held = []
        for command in (("EVAL", "#!lua\nreturn 3", "0"), ("FCALL", "rw", "0")):
            h = self.raw_client()
            h.send_command(*command)
            held.append(h)
        wait_until(lambda: self.blocked() == 2, 5)
        self.assertEqual(self.blocked(), 2)
        self.raw.call("CLIENT", "UNPAUSE")
        self.assertEqual([h.read_reply() for h in held], [3, 2])

    def test_all_pause_ends_at_its_deadline(self):
        c = self.raw_client()
        start = time.monotonic()
        self.assertEqual(self.raw.call("CLIENT", "PAUSE", "300", "ALL"), "OK")
        self.assertEqual(c.call("PING"), "PONG")  # held until the pause ends by itself
        self.assertGreaterEqual(time.monotonic() - start, 0.25)

    def test_pause_keeps_the_later_end_and_stronger_mode(self):
        # (UNPAUSE is a command too: under ALL it waits for the end like any other.)
        start = time.monotonic()
        self.assertEqual(self.raw.call("CLIENT", "PAUSE", "800", "WRITE"), "OK")
        self.assertEqual(self.raw.call("CLIENT", "PAUSE", "1", "ALL"), "OK")
        c = self.raw_client()
        self.assertEqual(c.call("PING"), "PONG")  # ALL now, and still until the 800 ms
        self.assertGreaterEqual(time.monotonic() - start, 0.7)

    def test_errors(self):
        c = self.raw
        self.assertEqual(c.call("CLIENT", "PAUSE", "abc"),
                         Err("ERR timeout is not an integer or out of range"))
        self.assertEqual(c.call("CLIENT", "PAUSE", "-1"), Err("ERR timeout is negative"))
        self.assertEqual(c.call("CLIENT", "PAUSE", "100", "xx"),
                         Err("ERR CLIENT PAUSE mode must be WRITE or ALL"))
        self.assertEqual(c.call("CLIENT", "PAUSE", "100", "write", "x"),
                         Err("ERR unknown subcommand or wrong number of arguments for 'PAUSE'. "
                             "Try CLIENT HELP."))
        self.assertEqual(c.call("CLIENT", "PAUSE"),
                         Err("ERR wrong number of arguments for 'client|pause' command"))
        self.assertEqual(c.call("CLIENT", "UNPAUSE", "x"),
                         Err("ERR wrong number of arguments for 'client|unpause' command"))

    def test_monitor_is_never_paused(self):
        m = self.raw_client()
        self.assertEqual(m.call("MONITOR"), "OK")
        self.assertEqual(self.raw.call("CLIENT", "PAUSE", "500", "ALL"), "OK")
        c = self.raw_client()
        c.send_command("PING")
        self.assertEqual(m.call("PING"), "PONG")  # while c waits
        self.assertNothingYet(c)
        self.assertEqual(c.read_reply(), "PONG")


if __name__ == "__main__":
    unittest.main()
