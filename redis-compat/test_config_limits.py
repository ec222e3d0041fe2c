"""Start-up configuration and client limits: a redis.conf-style file (comments, quotes, include) with
`--name value` flags over it, --help and start-up errors, CONFIG REWRITE, CONFIG SET atomicity and
immutable parameters, maxclients, timeout, client-output-buffer-limit, proto-max-bulk-len,
requirepass set at runtime, and SHUTDOWN NOSAVE."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

import redis

from harness import (IS_ORDIS, SERVER_PATH, ConnectionClosed, Err, RawClient, Server, ServerTestCase,
                     config_get, encode_command, free_port, info, wait_until)

NOAUTH = "NOAUTH Authentication required."
WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled."
MAXCLIENTS = "ERR max number of clients reached"
BAD_BULK = "ERR Protocol error: invalid bulk length"
TOO_BIG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)"
DEFAULT_OBUF = b"normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"


class ConfServer(Server):
    """A server started as `<binary> <config file> [--flags]`: the file must be the first argument.

    With a template, every start attempt writes the file from it (with @PORT@ replaced by the port of
    that attempt), so the port, bind and save settings come from the file. Without one, the existing
    file is used as it is and --port (a flag after the file, so it wins) picks the port.
    """

    def __init__(self, conf_path, template=None, extra_args=()):
        super().__init__(extra_args)
        self.conf_path = conf_path
        self.template = template

    def args(self, port):
        a = [self.path, self.conf_path]
        if self.template is not None:
            with open(self.conf_path, "w") as f:
                f.write(self.template.replace("@PORT@", str(port)))
        else:
            a += ["--port", str(port)]
        a += self.extra_args
        if "redis-server" not in os.path.basename(self.path):
            a += ["--threads", str(self.threads)]
        return a


def stop_cleanly(test, server):
    status, log = server.stop()
    test.assertIn(status, (0, -signal.SIGTERM), "server did not exit cleanly; log tail:\n" + log)


# ---------------------------------------------------------------------------------------------------------
# Config file, include and flags
# ---------------------------------------------------------------------------------------------------------


class ConfigFileTest(ServerTestCase):
    """Values from a config file, a file it includes, and flags given after the file."""

    password = "s3cret pass"

    MAIN = """# ordis compat: main config file
   # an indented comment

port @PORT@
bind 127.0.0.1
save ""
appendonly no
dir "{dir}"
timeout 300
include {included}
requirepass "s3cret pass"
PROTO-MAX-BULK-LEN 2mb
maxmemory-policy 'allkeys-lru'
databases 4
"""
    INCLUDED = """# included file: maxclients is only set here; databases is overridden by the main file,
# which sets it after the include line
maxclients 50
databases 8
"""

    @classmethod
    def setUpClass(cls):
        cls.conf_dir = tempfile.mkdtemp(prefix="ordis-compat-conf-")
        included = os.path.join(cls.conf_dir, "included.conf")
        with open(included, "w") as f:
            f.write(cls.INCLUDED)
        template = cls.MAIN.format(dir=cls.conf_dir, included=included)
        conf = os.path.join(cls.conf_dir, "main.conf")
        try:
            # --timeout comes after the file, so it overrides the file's "timeout 300".
            cls.server = ConfServer(conf, template, ["--timeout", "200"]).start()
        except Exception:
            shutil.rmtree(cls.conf_dir, ignore_errors=True)
            raise
        cls.port = cls.server.port

    @classmethod
    def tearDownClass(cls):
        try:
            super().tearDownClass()
        finally:
            shutil.rmtree(cls.conf_dir, ignore_errors=True)

    def test_values(self):
        expected = {
            "port": str(self.port).encode(),
            "maxclients": b"50",  # from the included file
            "timeout": b"200",  # the flag wins over the file
            "databases": b"4",  # the main file's line after the include wins
            "proto-max-bulk-len": b"2097152",  # upper-case directive, memory unit
            "maxmemory-policy": b"allkeys-lru",  # single-quoted
            "requirepass": b"s3cret pass",  # double-quoted, with a space
        }
        for name, value in expected.items():
            self.assertEqual(config_get(self.raw, name), value, name)

    def test_requirepass_from_file(self):
        c = self.raw_client(auth=False)
        self.assertErr(NOAUTH, "GET", "a", client=c)
        self.assertErr(WRONGPASS, "AUTH", "s3cret", client=c)
        self.assertErr(NOAUTH, "GET", "a", client=c)
        self.assertReply("OK", "AUTH", "s3cret pass", client=c)
        self.assertReply(None, "GET", "a", client=c)
        r = self.redis_client()
        self.assertTrue(r.ping())

    def test_databases_from_file(self):
        self.assertReply("OK", "SELECT", "3")
        self.assertErr("ERR DB index is out of range", "SELECT", "4")
        self.assertErr("ERR DB index is out of range", "SELECT", "8")


# ---------------------------------------------------------------------------------------------------------
# --help and start-up errors
# ---------------------------------------------------------------------------------------------------------


class StartupErrorTest(unittest.TestCase):
    """A bad directive, value or flag makes the server exit non-zero naming it. The texts differ
    between servers, so only the exit code and the offending name are checked."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ordis-compat-bad-")
        self.port = free_port()  # should the server start after all, it does not take 6379

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_server(self, *args):
        try:
            p = subprocess.run([SERVER_PATH] + list(args), cwd=self.dir, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=10)
        except subprocess.TimeoutExpired as e:  # run() has killed it
            self.fail("server %r did not exit within 10 s; output:\n%s" % (args, e.output))
        return p.returncode, p.stdout.decode("utf-8", "replace")

    def assertStartFails(self, naming, *args):
        rc, out = self.run_server(*args)
        self.assertNotEqual(rc, 0, "server started with %r; output:\n%s" % (args, out))
        self.assertIn(naming, out, "the start-up error does not name %r" % naming)

    def good_lines(self):
        return "# comment\nport %d\nbind 127.0.0.1\nsave \"\"\n" % self.port

    @unittest.skipUnless(IS_ORDIS, "redis-server --help prints only a usage text")
    def test_help_lists_parameters(self):
        rc, out = self.run_server("--help")
        self.assertEqual(rc, 0, out)
        for name in ("port", "maxclients", "timeout", "requirepass", "databases",
                     "proto-max-bulk-len", "client-output-buffer-limit"):
            self.assertIn(name, out)

    def test_bad_directive_in_file(self):
        conf = self.write("bad.conf", self.good_lines() + "bogus-directive yes\n")
        self.assertStartFails("bogus-directive", conf)

    def test_bad_directive_in_included_file(self):
        inc = self.write("inc.conf", "# included\nno-such-directive 1\n")
        conf = self.write("main.conf", self.good_lines() + "include %s\n" % inc)
        self.assertStartFails("no-such-directive", conf)

    def test_bad_value_in_file(self):
        conf = self.write("bad.conf", self.good_lines() + "maxclients abc\n")
        self.assertStartFails("maxclients", conf)

    def test_unbalanced_quotes_in_file(self):
        conf = self.write("bad.conf", self.good_lines() + 'requirepass "abc\n')
        self.assertStartFails("requirepass", conf)

    def test_missing_include_file(self):
        missing = os.path.join(self.dir, "nope.conf")
        conf = self.write("main.conf", self.good_lines() + "include %s\n" % missing)
        self.assertStartFails(missing, conf)

    def test_missing_config_file(self):
        missing = os.path.join(self.dir, "missing.conf")
        self.assertStartFails(missing, missing, "--port", str(self.port))

    def test_unknown_flag(self):
        self.assertStartFails("no-such-flag", "--port", str(self.port), "--bind", "127.0.0.1",
                              "--no-such-flag", "1")

    def test_bad_flag_value(self):
        self.assertStartFails("timeout", "--port", str(self.port), "--bind", "127.0.0.1",
                              "--timeout", "-5")


# ---------------------------------------------------------------------------------------------------------
# CONFIG REWRITE
# ---------------------------------------------------------------------------------------------------------


class ConfigRewriteTest(unittest.TestCase):
    TEMPLATE = """# keep this comment
port @PORT@
bind 127.0.0.1
save ""
appendonly no
dir "{dir}"
databases 5
timeout 10
"""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ordis-compat-rewrite-")
        self.conf = os.path.join(self.dir, "ordis.conf")
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, template):
        s = ConfServer(self.conf, template)
        self.servers.append(s)
        return s.start()

    def test_rewrite_persists_across_restart(self):
        # The file names its own "dir": Redis writes the working directory into the rewritten file,
        # so it must outlive the first server's scratch directory.
        first = self.start(self.TEMPLATE.format(dir=self.dir))
        with RawClient(first.port) as c:
            self.assertEqual(c.call("CONFIG", "SET", "maxclients", "77", "timeout", "20"), "OK")
            self.assertEqual(c.call("CONFIG", "REWRITE"), "OK")
        stop_cleanly(self, first)

        with open(self.conf) as f:
            lines = f.read().splitlines()
        self.assertIn("# keep this comment", lines)  # comments survive a rewrite
        self.assertIn("maxclients 77", lines)
        self.assertIn("timeout 20", lines)
        self.assertNotIn("timeout 10", lines)

        second = self.start(None)  # the rewritten file as it is, with --port after it
        with RawClient(second.port) as c:
            self.assertEqual(config_get(c, "maxclients"), b"77")
            self.assertEqual(config_get(c, "timeout"), b"20")
            self.assertEqual(config_get(c, "databases"), b"5")  # untouched by the rewrite
            self.assertEqual(config_get(c, "port"), str(second.port).encode())
        stop_cleanly(self, second)


# ---------------------------------------------------------------------------------------------------------
# CONFIG SET: immutable parameters, all or nothing, REWRITE without a file
# ---------------------------------------------------------------------------------------------------------


class ConfigSetTest(ServerTestCase):
    def test_rewrite_without_config_file(self):
        self.assertErr("ERR The server is running without a config file", "CONFIG", "REWRITE")

    def test_immutable_databases(self):
        self.assertErr("ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
                       "immutable config", "CONFIG", "SET", "databases", "32")
        self.assertEqual(config_get(self.raw, "databases"), b"16")

    def test_second_bad_parameter_changes_neither(self):
        self.assertErr("ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument "
                       "couldn't be parsed into an integer",
                       "CONFIG", "SET", "timeout", "100", "maxclients", "abc")
        self.assertErr("ERR CONFIG SET failed (possibly related to argument 'databases') - can't set "
                       "immutable config", "CONFIG", "SET", "maxclients", "77", "databases", "4")
        self.assertErr("ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'",
                       "CONFIG", "SET", "timeout", "100", "nosuch", "1")
        self.assertEqual(config_get(self.raw, "timeout"), b"0")
        self.assertEqual(config_get(self.raw, "maxclients"), b"10000")
        self.assertEqual(config_get(self.raw, "databases"), b"16")

    def test_proto_max_bulk_len_minimum(self):
        self.assertErr("ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - "
                       "argument must be between 1048576 and 9223372036854775807 inclusive",
                       "CONFIG", "SET", "proto-max-bulk-len", "1000")


# ---------------------------------------------------------------------------------------------------------
# maxclients
# ---------------------------------------------------------------------------------------------------------


class MaxClientsTest(ServerTestCase):
    server_args = ["--maxclients", "2"]

    def connected(self):
        return int(info(self.raw, "clients")["connected_clients"])

    def try_connect(self):
        """A PING on a new connection: the client if it was accepted, None if it was turned away."""
        c = RawClient(self.port)
        try:
            reply = c.call("PING")
        except (ConnectionClosed, ConnectionResetError, BrokenPipeError):
            reply = None  # the rejection was lost to the reset our PING provoked
        if reply == "PONG":
            self._clients.append(c)
            return c
        c.close()
        self.assertIn(reply, (None, Err(MAXCLIENTS)))
        return None

    def test_third_connection_rejected(self):
        # The start-up probe's connection may still be counted for a moment.
        self.assertTrue(wait_until(lambda: self.connected() == 1, 5.0))
        self.assertReply("OK", "CONFIG", "RESETSTAT")
        second = self.raw_client()
        self.assertEqual(second.call("PING"), "PONG")

        third = RawClient(self.port)
        try:
            # The server writes the error on its own, without a command, then closes.
            self.assertEqual(third.read_reply(), Err(MAXCLIENTS))
            self.assertEqual(third.wait_closed(), b"")
        finally:
            third.close()

        self.assertReply("PONG", "PING")
        self.assertEqual(second.call("SET", "k", "v"), "OK")
        self.assertEqual(self.connected(), 2)
        self.assertGreaterEqual(int(info(self.raw, "stats")["rejected_connections"]), 1)

        # Once one disconnects, a new connection is accepted (the server notices the close
        # asynchronously, so poll).
        second.close()
        fourth = wait_until(self.try_connect, 5.0)
        self.assertIsNotNone(fourth, "no connection accepted after a client left")
        self.assertEqual(fourth.call("GET", "k"), b"v")


# ---------------------------------------------------------------------------------------------------------
# timeout
# ---------------------------------------------------------------------------------------------------------


class IdleTimeoutTest(ServerTestCase):
    def test_idle_client_closed_active_client_kept(self):
        active = self.raw_client()
        self.assertEqual(active.call("CONFIG", "SET", "timeout", "1"), "OK")
        try:
            idle = self.raw_client()
            self.assertEqual(idle.call("PING"), "PONG")
            start = time.monotonic()
            idle_closed_after = None
            # The active client sends a command every 300 ms; in between, the idle one is watched
            # for the close. Redis checks idle clients in its cron at one-second granularity, so the
            # close comes after 1-3 s.
            while True:
                elapsed = time.monotonic() - start
                if elapsed >= 3.0 and (idle_closed_after is not None or elapsed >= 4.5):
                    break
                self.assertEqual(active.call("PING"), "PONG", "active client at %.1fs" % elapsed)
                if idle_closed_after is None:
                    idle.sock.settimeout(0.3)
                    try:
                        data = idle.sock.recv(1024)
                    except socket.timeout:
                        continue
                    except ConnectionResetError:
                        data = b""
                    self.assertEqual(data, b"", "the idle client got data")
                    idle_closed_after = time.monotonic() - start
                else:
                    time.sleep(0.3)  # the active client's pace
            self.assertIsNotNone(idle_closed_after, "idle client not closed within 4.5 s")
            self.assertGreaterEqual(idle_closed_after, 0.9)
            self.assertEqual(active.call("SET", "still", "here"), "OK")
        finally:
            self.assertEqual(active.call("CONFIG", "SET", "timeout", "0"), "OK")


# ---------------------------------------------------------------------------------------------------------
# client-output-buffer-limit
# ---------------------------------------------------------------------------------------------------------


class OutputBufferLimitTest(ServerTestCase):
    VALUE = b"v" * (100 * 1024)
    GETS = 200  # 20 MB of replies: far more than the kernel's socket buffers absorb

    def setUp(self):
        super().setUp()
        self.assertReply("OK", "SET", "big", self.VALUE)

    def tearDown(self):
        self.assertEqual(self.raw.call("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0"),
                         "OK")
        super().tearDown()

    def connected(self):
        return int(info(self.raw, "clients")["connected_clients"])

    def disconnections(self):
        """INFO stats client_output_buffer_limit_disconnections, or None on Redis 7.0.

        The counter came with Redis 7.2; 7.0.15 does not have it. ordis reports it (deliberately
        ahead of 7.0), so only there is it checked.
        """
        stats = info(self.raw, "stats")
        if not IS_ORDIS:
            self.assertNotIn("client_output_buffer_limit_disconnections", stats)
            return None
        return int(stats["client_output_buffer_limit_disconnections"])

    def assertDisconnectionsGrew(self, before):
        if IS_ORDIS:
            self.assertGreaterEqual(self.disconnections(), before + 1)

    def flood_without_reading(self):
        """A new client that pipelines GETBIG GETS times and never reads. Returns it."""
        self.assertTrue(wait_until(lambda: self.connected() == 1, 5.0))
        c = self.raw_client()
        self.assertEqual(c.call("PING"), "PONG")
        self.assertEqual(self.connected(), 2)
        c.send(encode_command("GET", "big") * self.GETS)
        return c

    def test_hard_limit_disconnects_a_client_that_does_not_read(self):
        self.assertReply("OK", "CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0")
        self.assertEqual(config_get(self.raw, "client-output-buffer-limit"),
                         b"normal 1048576 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60")
        before = self.disconnections()
        c = self.flood_without_reading()
        self.assertTrue(wait_until(lambda: self.connected() == 1, 5.0),
                        "the flooding client is still connected")
        self.assertDisconnectionsGrew(before)
        c.wait_closed(timeout=5.0)  # what reached the socket before the close, then EOF
        self.assertReply("PONG", "PING")

    def test_hard_limit_spares_a_client_that_reads(self):
        self.assertReply("OK", "CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0")
        before = self.disconnections()
        c = self.raw_client()
        for _ in range(self.GETS):
            self.assertEqual(c.call("GET", "big"), self.VALUE)
        # A small pipeline stays well under 1 MB.
        self.assertEqual(c.pipeline([("GET", "big")] * 5), [self.VALUE] * 5)
        self.assertEqual(c.call("PING"), "PONG")
        self.assertEqual(self.disconnections(), before)

    def test_soft_limit_disconnects_after_its_seconds(self):
        self.assertReply("OK", "CONFIG", "SET", "client-output-buffer-limit", "normal 0 512kb 1")
        self.assertEqual(config_get(self.raw, "client-output-buffer-limit"),
                         b"normal 0 524288 1 slave 268435456 67108864 60 pubsub 33554432 8388608 60")
        before = self.disconnections()
        start = time.monotonic()
        c = self.flood_without_reading()
        # Over the soft limit for more than 1 s: closed, though no command arrives after the flood.
        self.assertTrue(wait_until(lambda: self.connected() == 1, 5.0),
                        "still connected 5 s over the soft limit")
        self.assertGreaterEqual(time.monotonic() - start, 0.9, "closed before the soft limit's 1 s")
        self.assertDisconnectionsGrew(before)
        c.wait_closed(timeout=5.0)


# ---------------------------------------------------------------------------------------------------------
# proto-max-bulk-len
# ---------------------------------------------------------------------------------------------------------


class ProtoMaxBulkLenTest(ServerTestCase):
    MB = 1024 * 1024

    def setUp(self):
        super().setUp()
        self.assertReply("OK", "CONFIG", "SET", "proto-max-bulk-len", "1mb")
        self.assertEqual(config_get(self.raw, "proto-max-bulk-len"), b"1048576")

    def tearDown(self):
        self.assertEqual(self.raw.call("CONFIG", "SET", "proto-max-bulk-len", "512mb"), "OK")
        super().tearDown()

    def test_bulk_over_the_limit_closes_the_connection(self):
        c = self.raw_client()
        # Only the header: the server rejects the length before reading the payload.
        c.send(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n" % (2 * self.MB))
        self.assertEqual(c.read_reply(), Err(BAD_BULK))
        self.assertEqual(c.wait_closed(), b"")
        c = self.raw_client()
        c.send(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n" % (self.MB + 1))
        self.assertEqual(c.read_reply(), Err(BAD_BULK))
        self.assertEqual(c.wait_closed(), b"")
        self.assertReply(0, "EXISTS", "k")

    def test_bulk_at_the_limit_is_accepted(self):
        self.assertReply("OK", "SET", "k", b"x" * self.MB)
        self.assertReply(self.MB, "STRLEN", "k")

    def test_append_past_the_limit(self):
        part = 600 * 1024
        self.assertReply("OK", "SET", "k", b"a" * part)
        self.assertErr(TOO_BIG, "APPEND", "k", b"b" * part)
        self.assertReply(part, "STRLEN", "k")  # unchanged
        self.assertReply(self.MB, "APPEND", "k", b"c" * (self.MB - part))  # exactly the limit
        self.assertErr(TOO_BIG, "APPEND", "k", "d")
        self.assertErr(TOO_BIG, "SETRANGE", "k", str(self.MB), "x")
        self.assertReply(self.MB, "STRLEN", "k")
        self.assertReply("PONG", "PING")  # the connection stays open


# ---------------------------------------------------------------------------------------------------------
# requirepass set at runtime
# ---------------------------------------------------------------------------------------------------------


class RuntimeRequirepassTest(ServerTestCase):
    PASSWORD = "runtime-pw"

    def setUp(self):
        super().setUp()
        self.assertReply("OK", "SET", "k", "v")
        self.bystander = self.raw_client()  # connected before the password exists
        self.assertEqual(self.bystander.call("PING"), "PONG")
        self.assertReply("OK", "CONFIG", "SET", "requirepass", self.PASSWORD)

    def tearDown(self):
        # On a fresh, authenticated connection: the test may have closed or broken the others.
        c = self.raw_client()
        self.assertEqual(c.call("AUTH", self.PASSWORD), "OK")
        self.assertEqual(c.call("CONFIG", "SET", "requirepass", ""), "OK")
        c = self.raw_client()
        self.assertEqual(c.call("GET", "k"), b"v")  # no password needed again
        super().tearDown()

    def test_existing_connections_stay_authenticated(self):
        # Connections made while no password was required remain authenticated: the one that set
        # it and any other.
        self.assertReply(b"v", "GET", "k")
        self.assertReply("OK", "SET", "k2", "v2")
        self.assertReply(b"v2", "GET", "k2", client=self.bystander)

    def test_new_connection_needs_auth(self):
        c = self.raw_client()
        self.assertErr(NOAUTH, "GET", "k", client=c)
        self.assertErr(WRONGPASS, "AUTH", "wrong", client=c)
        self.assertReply("OK", "AUTH", self.PASSWORD, client=c)
        self.assertReply(b"v", "GET", "k", client=c)

        r = self.redis_client()
        with self.assertRaises(redis.exceptions.AuthenticationError):
            r.get("k")
        self.assertEqual(self.redis_client(password=self.PASSWORD).get("k"), b"v")

    def test_unauthenticated_multibulk_length(self):
        # Before AUTH, a request may not announce more than 10 arguments.
        c = self.raw_client()
        c.send(encode_command("MSET", *(["a", "b"] * 6)))
        self.assertEqual(c.read_reply(), Err("ERR Protocol error: unauthenticated multibulk length"))
        self.assertEqual(c.wait_closed(), b"")
        # ... while an authenticated one may.
        c = self.raw_client()
        self.assertReply("OK", "AUTH", self.PASSWORD, client=c)
        self.assertReply("OK", "MSET", *(["a", "b"] * 6), client=c)


# ---------------------------------------------------------------------------------------------------------
# SHUTDOWN NOSAVE
# ---------------------------------------------------------------------------------------------------------


class ShutdownTest(unittest.TestCase):
    def setUp(self):
        self.server = Server().start()

    def tearDown(self):
        self.server.stop()

    def assertExitedCleanly(self):
        try:
            rc = self.server.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.fail("server still running 10 s after SHUTDOWN NOSAVE")
        self.assertEqual(rc, 0, self.server.log_tail())

    def test_raw_connection_closed_without_reply(self):
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=10) as s:
            s.sendall(encode_command("SHUTDOWN", "NOSAVE"))
            self.assertEqual(s.recv(1024), b"")
        self.assertExitedCleanly()

    def test_redis_py_sees_connection_error(self):
        r = redis.Redis(host="127.0.0.1", port=self.server.port, socket_timeout=10)
        self.assertTrue(r.ping())
        with self.assertRaises(redis.exceptions.ConnectionError):
            r.execute_command("SHUTDOWN", "NOSAVE")
        r.close()
        self.assertExitedCleanly()


if __name__ == "__main__":
    unittest.main()
