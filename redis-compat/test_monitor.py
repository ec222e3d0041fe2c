"""MONITOR: every command of every client as Redis 7.0 shows it (after it ran, with the db it
leaves; a transaction's commands at EXEC, before EXEC; a script's commands as [db lua], after the
EVAL that runs them; credentials redacted; administrative commands hidden), what a monitoring
client may still do, and RESET and QUIT ending it.

The monitor and the clients it watches are on different I/O threads (the harness deals connections
to the less loaded of two). Every expectation holds against redis-server 7.0.15 too.
"""

import re
import unittest

from harness import ConnectionClosed, Err, ServerTestCase

LINE = re.compile(r"^(\d+)\.(\d{6}) \[(\d+) ([^\]]+)\] (.*)$", re.S)


class MonitorTest(ServerTestCase):
    def monitor(self):
        m = self.raw_client()
        self.assertEqual(m.call("MONITOR"), "OK")
        return m

    def read_lines(self, m, n, addr):
        """The next n lines, each as (db, origin, arguments) with addr shown as ADDR."""
        out = []
        for _ in range(n):
            line = m.read_reply()
            self.assertIsInstance(line, str)  # a status line
            match = LINE.match(line)
            self.assertIsNotNone(match, line)
            origin = "ADDR" if match.group(4) == addr else match.group(4)
            out.append((int(match.group(3)), origin, match.group(5)))
        return out

    def addr_of(self, c):
        return re.search(r"addr=(\S+)", c.call("CLIENT", "INFO").decode()).group(1)

    def test_commands_of_another_client(self):
        m = self.monitor()
        c = self.raw_client()
        addr = self.addr_of(c)  # CLIENT INFO is shown too
        self.assertEqual(c.call("SET", "k", b"a b\"\\\n\t\r\x07\x08\x01\xff"), "OK")
        self.assertEqual(c.call("SELECT", "2"), "OK")
        self.assertIsNone(c.call("GET", "k"))
        c.call("SELECT", "0")
        self.assertEqual(self.read_lines(m, 5, addr), [
            (0, "ADDR", '"CLIENT" "INFO"'),
            (0, "ADDR", r'"SET" "k" "a b\"\\\n\t\r\a\b\x01\xff"'),
            (2, "ADDR", '"SELECT" "2"'),  # shown after it ran: in the db it selected
            (2, "ADDR", '"GET" "k"'),
            (0, "ADDR", '"SELECT" "0"'),
        ])

    def test_transaction_and_script(self):
        m = self.monitor()
        c = self.raw_client()
        addr = self.addr_of(c)
        c.call("MULTI")
        c.call("SET", "x", "1")
        c.call("INCR", "x")
        self.assertEqual(c.call("EXEC"), ["OK", 2])
        self.assertEqual(
            c.call("EVAL", "redis.call('set', KEYS[1], '1'); redis.call('select', 3); "
                   "return redis.call('get', KEYS[1])", "1", "y"), None)
        self.assertEqual(self.read_lines(m, 9, addr), [
            (0, "ADDR", '"CLIENT" "INFO"'),
            (0, "ADDR", '"MULTI"'),
            (0, "ADDR", '"SET" "x" "1"'),
            (0, "ADDR", '"INCR" "x"'),
            (0, "ADDR", '"EXEC"'),
            (0, "ADDR", '"EVAL" "redis.call(\'set\', KEYS[1], \'1\'); redis.call(\'select\', 3); '
             'return redis.call(\'get\', KEYS[1])" "1" "y"'),
            (0, "lua", '"set" "y" "1"'),
            (3, "lua", '"select" "3"'),
            (3, "lua", '"get" "y"'),
        ])

    def test_hidden_and_redacted(self):
        m = self.monitor()
        c = self.raw_client()
        addr = self.addr_of(c)
        c.call("CONFIG", "GET", "maxmemory")  # admin: hidden
        c.call("CLIENT", "LIST")  # admin: hidden
        c.call("NOSUCH", "x")  # refused before running: hidden
        c.call("GET")  # wrong arity: hidden
        c.call("AUTH", "secret")  # an error, but shown, without the password
        c.call("HELLO", "2", "AUTH", "default", "secret", "SETNAME", "n")
        c.call("PING")
        self.assertEqual(self.read_lines(m, 4, addr), [
            (0, "ADDR", '"CLIENT" "INFO"'),
            (0, "ADDR", '"AUTH" "(redacted)"'),
            (0, "ADDR", '"HELLO" "2" "AUTH" "(redacted)" "(redacted)" "SETNAME" "n"'),
            (0, "ADDR", '"PING"'),
        ])

    def test_migrate_credentials_redacted(self):
        # As far as MIGRATE's parser reads options: a word after KEYS is a key, not AUTH's. HELLO
        # refused for its version redacts nothing.
        m = self.monitor()
        c = self.raw_client()
        addr = self.addr_of(c)
        c.call("MIGRATE", "127.0.0.1", "1", "", "0", "10", "AUTH", "pw", "KEYS", "nokey")
        c.call("MIGRATE", "127.0.0.1", "1", "", "0", "10", "COPY", "AUTH2", "u", "pw", "KEYS",
               "auth", "nokey")
        c.call("HELLO", "4", "AUTH", "u", "pw")
        self.assertEqual(self.read_lines(m, 4, addr), [
            (0, "ADDR", '"CLIENT" "INFO"'),
            (0, "ADDR", '"MIGRATE" "127.0.0.1" "1" "" "0" "10" "AUTH" "(redacted)" "KEYS" "nokey"'),
            (0, "ADDR", '"MIGRATE" "127.0.0.1" "1" "" "0" "10" "COPY" "AUTH2" "(redacted)" '
             '"(redacted)" "KEYS" "auth" "nokey"'),
            (0, "ADDR", '"HELLO" "4" "AUTH" "u" "pw"'),
        ])

    def test_monitoring_client(self):
        m = self.monitor()
        addr = self.addr_of(m)
        self.assertEqual(self.read_lines(m, 1, addr), [(0, "ADDR", '"CLIENT" "INFO"')])
        self.assertEqual(re.search(r"flags=(\S+)", m.call("CLIENT", "INFO").decode()).group(1), "O")
        self.read_lines(m, 1, addr)
        # MONITOR again: ignored, no reply.
        m.send_command("MONITOR")
        # No key access: it is a replica to Redis.
        self.assertEqual(m.call("GET", "k"), Err("ERR Replica can't interact with the keyspace"))
        # Read-only scripts are readonly commands: refused too.
        self.assertEqual(m.call("EVAL_RO", "return 1", "0"),
                         Err("ERR Replica can't interact with the keyspace"))
        self.assertEqual(m.call("PING"), "PONG")
        self.assertEqual(self.read_lines(m, 1, addr), [(0, "ADDR", '"PING"')])
        # RESET ends it (its own line is fed after it stopped monitoring).
        self.assertEqual(m.call("RESET"), "RESET")
        self.raw.call("SET", "after", "1")
        self.assertEqual(m.call("GET", "after"), b"1")  # no line in between

    def test_monitor_in_transaction_refused(self):
        c = self.raw_client()
        c.call("MULTI")
        self.assertEqual(c.call("MONITOR"), "QUEUED")
        self.assertEqual(c.call("EXEC"), [Err("ERR MONITOR isn't allowed for DENY BLOCKING client")])

    def test_quit_closes_a_monitor(self):
        m = self.monitor()
        self.assertEqual(m.call("QUIT"), "OK")
        self.assertRaises(ConnectionClosed, m.read_reply)

    def test_many_monitors_see_one_order(self):
        monitors = [self.monitor() for _ in range(3)]
        writers = [self.raw_client() for _ in range(4)]
        for i in range(50):
            writers[i % 4].call("SET", "k%d" % i, "v")
        seen = []
        for m in monitors:
            lines = [m.read_reply() for _ in range(50)]
            seen.append([line.split("] ", 1)[1] for line in lines])
        self.assertEqual(seen[0], ['"SET" "k%d" "v"' % i for i in range(50)])
        self.assertEqual(seen[0], seen[1])
        self.assertEqual(seen[0], seen[2])


if __name__ == "__main__":
    unittest.main()
