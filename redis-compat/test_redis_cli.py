"""The stock tools against the server: redis-cli (commands, --pipe mass insertion, INFO) and
redis-benchmark. With stdout not a terminal, redis-cli prints raw replies, one per line."""

import re
import subprocess
import unittest

from harness import REDIS_BENCHMARK, REDIS_CLI, ServerTestCase, encode_command


class RedisCliTest(ServerTestCase):
    def cli(self, *args, input=None, timeout=60):
        r = subprocess.run([REDIS_CLI, "-p", str(self.port)] + list(args), input=input,
                           capture_output=True, timeout=timeout)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_set_get(self):
        self.assertEqual(self.cli("set", "a", "1"), b"OK\n")
        self.assertEqual(self.cli("get", "a"), b"1\n")
        self.assertEqual(self.cli("incr", "a"), b"2\n")
        self.assertEqual(self.cli("get", "nokey"), b"\n")
        self.assertEqual(self.cli("mget", "a", "nokey"), b"2\n\n")
        self.assertEqual(self.cli("exists", "a"), b"1\n")

    def test_error_output(self):
        self.assertEqual(self.cli("foo", "a"),
                         b"ERR unknown command 'foo', with args beginning with: 'a' \n\n")

    def test_pipe_mass_insertion(self):
        n = 10000
        data = b"".join(encode_command("SET", "k%d" % i, "v%d" % i) for i in range(n))
        out = self.cli("--pipe", input=data).decode()
        self.assertIn("errors: 0, replies: %d" % n, out)
        self.assertReply(n, "DBSIZE")
        self.assertReply(b"v9999", "GET", "k9999")
        self.assertReply(b"v0", "GET", "k0")

    def test_info_server(self):
        out = self.cli("info", "server").decode()
        self.assertTrue(out.startswith("# Server\r\n"), out[:40])
        self.assertRegex(out, r"\r\ntcp_port:%d\r\n" % self.port)

    def test_interactive_style_stdin(self):
        # redis-cli reads commands from stdin when given none on the command line.
        out = self.cli(input=b"set x hello\nappend x world\nget x\n")
        self.assertEqual(out, b"OK\n10\nhelloworld\n")


class RedisBenchmarkTest(ServerTestCase):
    def test_benchmark_quick(self):
        r = subprocess.run([REDIS_BENCHMARK, "-p", str(self.port), "-q", "-n", "20000",
                            "-t", "set,get,incr,mset", "-P", "16"],
                           capture_output=True, timeout=120)
        out = (r.stdout + r.stderr).decode("utf-8", "replace")
        self.assertEqual(r.returncode, 0, out)
        self.assertNotIn("ERR", out)
        # -q prints one final line per test, after carriage-return progress updates.
        finals = [l.split("\r")[-1].strip() for l in out.split("\n")]
        for name in ("SET", "GET", "INCR", "MSET (10 keys)"):
            self.assertTrue(any(re.match(re.escape(name) + r": [\d.]+ requests per second", f)
                                for f in finals), "%s missing from:\n%s" % (name, out))
        self.assertReply(b"20000", "GET", "counter:__rand_int__")  # INCR ran 20000 times


if __name__ == "__main__":
    unittest.main()
