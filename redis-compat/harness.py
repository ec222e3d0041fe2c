"""Shared harness of the Redis compatibility suite.

The suite is black-box: it starts a server binary, talks RESP to it over TCP and asserts replies byte for
byte as Redis 7.0 gives them. It must pass against the real redis-server (which proves every assertion
encodes true Redis behaviour) and is then pointed at ordis.

Environment:
  ORDIS_SERVER  path of the server binary to test (default: redis-server found on PATH, then
                /usr/bin/redis-server). IS_ORDIS is true when its file name is not redis-server; only
                then does the harness pass `--threads 2 --adaptive-threads no`, ordis-only flags.

What the harness provides:
  * Server: one server process on a free port in its own scratch directory; start() retries on a lost
    port race, waits (polling with a deadline) until the server answers PING, stop() kills it.
  * Server(keep_dir=True) keeps its directory across stop()/kill()/start() for persistence tests:
    kill() is a SIGKILL, log_text() the last process's whole log (each start gets its own log file),
    start_expecting_exit() runs it on its files expecting a refusal, remove_dir() cleans up.
  * ServerTestCase: a unittest.TestCase with a fresh server per test class (setUpClass/tearDownClass),
    FLUSHALL before every test, and helpers for raw and redis-py clients.
  * RawClient: a plain socket that sends bytes and parses RESP2 and RESP3 replies exactly, keeping the
    reply type: simple strings are Status (a str), bulk strings are bytes, errors are RespError (equal
    only to another RespError with the same full text, e.g. Err("ERR syntax error")).

redis-py 4.3 strips the "ERR " prefix of errors and has no RESP3, so exact error texts and RESP3 are
checked through RawClient; redis-py clients are used where convenience matters more than wire types.
"""

import atexit
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import redis


def _find_server():
    path = os.environ.get("ORDIS_SERVER")
    if path:
        return path
    return shutil.which("redis-server") or "/usr/bin/redis-server"


SERVER_PATH = _find_server()
IS_ORDIS = "redis-server" not in os.path.basename(SERVER_PATH)
REDIS_CLI = shutil.which("redis-cli") or "/usr/bin/redis-cli"
REDIS_BENCHMARK = shutil.which("redis-benchmark") or "/usr/bin/redis-benchmark"

START_DEADLINE_S = 15.0  # per attempt: a sanitizer build of ordis can start slowly
SOCKET_TIMEOUT_S = 20.0  # any single read longer than this is a hang, and fails the test


# ---------------------------------------------------------------------------------------------------------
# RESP values
# ---------------------------------------------------------------------------------------------------------


class Status(str):
    """A RESP simple string (+OK). Equal to the plain str with the same text, never to bytes."""

    def __repr__(self):
        return "Status(%s)" % str.__repr__(self)


class RespError:
    """A RESP error reply (-ERR ... or RESP3 blob error). `message` is the full text, prefix included."""

    def __init__(self, message):
        self.message = message

    def __eq__(self, other):
        return isinstance(other, RespError) and other.message == self.message

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.message)

    def __repr__(self):
        return "Err(%r)" % self.message

    def startswith(self, prefix):
        return self.message.startswith(prefix)


def Err(message):
    """The expected error reply with this exact text, e.g. Err("ERR syntax error")."""
    return RespError(message)


class Map(dict):
    """A RESP3 map (%)."""


class RSet(list):
    """A RESP3 set (~), kept as a list in wire order."""


class Push(list):
    """A RESP3 push (>)."""


class Verbatim(bytes):
    """A RESP3 verbatim string (=); `fmt` is its three-letter format, e.g. 'txt'."""

    fmt = "txt"


class Big(int):
    """A RESP3 big number (()."""


class ConnectionClosed(Exception):
    pass


def encode_command(*args):
    """The RESP array of bulk strings for one command."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, bytes):
            b = a
        elif isinstance(a, str):
            b = a.encode("utf-8")
        elif isinstance(a, (int, float)):
            b = repr(a).encode() if isinstance(a, float) else str(a).encode()
        else:
            raise TypeError("cannot encode %r" % (a,))
        out.append(b"$%d\r\n" % len(b))
        out.append(b)
        out.append(b"\r\n")
    return b"".join(out)


# ---------------------------------------------------------------------------------------------------------
# Raw client
# ---------------------------------------------------------------------------------------------------------


class RawClient:
    """One TCP connection that sends raw bytes and parses RESP2/RESP3 replies exactly."""

    def __init__(self, port, host="127.0.0.1", timeout=SOCKET_TIMEOUT_S):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.pos = 0

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- sending ----------------------------------------------------------------------------------------

    def send(self, data):
        self.sock.sendall(data)

    def send_command(self, *args):
        self.send(encode_command(*args))

    def call(self, *args):
        """Sends one command and returns its parsed reply."""
        self.send_command(*args)
        return self.read_reply()

    def pipeline(self, commands):
        """Sends all commands in one write, then returns their replies in order."""
        self.send(b"".join(encode_command(*c) for c in commands))
        return [self.read_reply() for _ in commands]

    # -- receiving --------------------------------------------------------------------------------------

    def _fill(self):
        data = self.sock.recv(1 << 16)
        if not data:
            raise ConnectionClosed("server closed the connection")
        if self.pos > 0 and self.pos == len(self.buf):
            self.buf = bytearray()
            self.pos = 0
        self.buf += data

    def _readline(self):
        while True:
            i = self.buf.find(b"\r\n", self.pos)
            if i >= 0:
                line = bytes(self.buf[self.pos:i])
                self.pos = i + 2
                return line
            self._fill()

    def _readexact(self, n):
        while len(self.buf) - self.pos < n + 2:
            self._fill()
        data = bytes(self.buf[self.pos:self.pos + n])
        if self.buf[self.pos + n:self.pos + n + 2] != b"\r\n":
            raise AssertionError("bulk payload not followed by CRLF")
        self.pos += n + 2
        return data

    def read_reply(self):
        line = self._readline()
        if not line:
            raise AssertionError("empty RESP line")
        t, rest = line[:1], line[1:]
        if t == b"+":
            return Status(rest.decode("latin-1"))
        if t == b"-":
            return RespError(rest.decode("latin-1"))
        if t == b":":
            return int(rest)
        if t == b"$":
            n = int(rest)
            return None if n < 0 else self._readexact(n)
        if t == b"*":
            n = int(rest)
            return None if n < 0 else [self.read_reply() for _ in range(n)]
        # RESP3
        if t == b"_":
            return None
        if t == b",":
            return float(rest.decode())
        if t == b"#":
            if rest not in (b"t", b"f"):
                raise AssertionError("bad RESP3 boolean %r" % line)
            return rest == b"t"
        if t == b"(":
            return Big(int(rest))
        if t == b"=":
            data = self._readexact(int(rest))
            v = Verbatim(data[4:])
            v.fmt = data[:3].decode()
            return v
        if t == b"!":
            return RespError(self._readexact(int(rest)).decode("latin-1"))
        if t == b"%":
            n = int(rest)
            m = Map()
            for _ in range(n):
                k = self.read_reply()
                m[k] = self.read_reply()
            return m
        if t == b"~":
            return RSet(self.read_reply() for _ in range(int(rest)))
        if t == b">":
            return Push(self.read_reply() for _ in range(int(rest)))
        if t == b"|":
            for _ in range(2 * int(rest)):
                self.read_reply()  # attributes are out-of-band; skip them
            return self.read_reply()
        raise AssertionError("unknown RESP type byte in %r" % line)

    def read_raw(self, n):
        """Exactly n raw bytes of the reply stream."""
        while len(self.buf) - self.pos < n:
            self._fill()
        data = bytes(self.buf[self.pos:self.pos + n])
        self.pos += n
        return data

    def wait_closed(self, timeout=5.0):
        """Reads until the server closes the connection; returns the leftover bytes received.

        Raises AssertionError if the connection is still open after timeout seconds.
        """
        deadline = time.monotonic() + timeout
        rest = bytes(self.buf[self.pos:])
        self.buf, self.pos = bytearray(), 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("server did not close the connection within %.1fs" % timeout)
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(1 << 16)
            except socket.timeout:
                continue
            except ConnectionResetError:
                return rest
            if not data:
                return rest
            rest += data


# ---------------------------------------------------------------------------------------------------------
# Server process
# ---------------------------------------------------------------------------------------------------------

_live_servers = set()


@atexit.register
def _kill_leftovers():
    for s in list(_live_servers):
        s.stop()


def free_port():
    """A TCP port that was free a moment ago (bind to port 0). start() retries if it is lost."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerStartError(Exception):
    pass


class Server:
    """One server process. Use start()/stop() or a `with` block."""

    def __init__(self, extra_args=(), path=SERVER_PATH, threads=2, dir=None, keep_dir=False):
        """dir: run in this existing directory (kept by stop()); keep_dir: make one scratch directory
        on the first start and keep it across stop()/kill()/start() (remove_dir() deletes it), so a
        server can be restarted on its own files."""
        self.path = path
        self.extra_args = list(extra_args)
        self.threads = threads
        self.proc = None
        self.port = None
        self.dir = dir
        self.keep_dir = keep_dir or dir is not None
        self.log_path = None
        self.starts = 0  # processes started; each gets its own log file in a kept directory

    def args(self, port):
        a = [self.path, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        if "redis-server" not in os.path.basename(self.path):
            # Connections spread over both threads from the start, so every suite exercises
            # cross-thread behaviour; test_threads covers the adaptive default. extra_args come
            # after: a later flag wins.
            a += ["--threads", str(self.threads), "--adaptive-threads", "no"]
        a += self.extra_args
        return a

    def start(self, attempts=5):
        last = ""
        for _ in range(attempts):
            port = free_port()
            self._spawn(port)
            if self._wait_ready(START_DEADLINE_S):
                return self
            last = self.log_tail()
            self.stop()
        raise ServerStartError("could not start %s after %d attempts; last log:\n%s"
                               % (self.path, attempts, last))

    def _spawn(self, port, extra=()):
        if self.dir is None or not self.keep_dir:
            self.dir = tempfile.mkdtemp(prefix="ordis-compat-")
        name = "server.log" if self.starts == 0 else "server.%d.log" % self.starts
        self.starts += 1
        self.log_path = os.path.join(self.dir, name)
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(self.args(port) + list(extra), cwd=self.dir, stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.port = port
        _live_servers.add(self)

    def start_expecting_exit(self, extra=(), timeout=START_DEADLINE_S):
        """Starts the server (in its directory, with extra flags for this run only) expecting it to
        exit on its own, e.g. refusing a damaged data file. Returns (return code, whole log); the
        return code is None if it came up and answered PING instead (it is then stopped, and the
        directory kept if keep_dir)."""
        self._spawn(free_port(), extra)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                _live_servers.discard(self)
                code, self.proc = self.proc.returncode, None
                return code, self.log_text()
            if self._wait_ready(0.05):
                self.stop()
                return None, self.log_text()
        self.kill()
        return "no exit and no PONG within %.0fs" % timeout, self.log_text()

    def _wait_ready(self, deadline_s):
        """Polls until the server answers PING (+PONG, or -NOAUTH when a password is set)."""
        deadline = time.monotonic() + deadline_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False  # exited: bad flags, or the port was taken
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1.0) as s:
                    s.sendall(b"PING\r\n")
                    data = s.recv(256)
                    if data.startswith(b"+PONG") or data.startswith(b"-NOAUTH"):
                        return True
            except OSError:
                pass
            time.sleep(0.02)  # poll interval, not a wait for an outcome
        return False

    def log_text(self):
        """The whole log (stdout and stderr) of the last process started."""
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except (OSError, TypeError):
            return ""

    def kill(self):
        """SIGKILL (a crash: nothing is flushed or saved); keeps the directory. Returns the status."""
        _live_servers.discard(self)
        status = None
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
            status = self.proc.returncode
        self.proc = None
        return status

    def remove_dir(self):
        """Deletes a kept directory (after the last stop())."""
        if self.proc is not None:
            self.kill()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def log_tail(self, n=4000):
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""

    def stop(self):
        """Stops the server (SIGTERM, then SIGKILL after 10 s) and removes its directory (unless
        keep_dir: then the directory and its files stay for the next start()).

        Returns (exit status, log tail): status 0 or -SIGTERM is a clean exit; anything else (a
        sanitizer report, a crash on shutdown, a hang) is worth failing for.
        """
        _live_servers.discard(self)
        status, log = None, ""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
                    status = "hung on SIGTERM"
            if status is None:
                status = self.proc.returncode
            log = self.log_tail()
        self.proc = None
        if self.dir and not self.keep_dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        return status, log

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


# ---------------------------------------------------------------------------------------------------------
# Test base class
# ---------------------------------------------------------------------------------------------------------


class ServerTestCase(unittest.TestCase):
    """A fresh server per test class; FLUSHALL before each test.

    Subclasses may set `server_args` (extra --name value flags) and `flush_between_tests`.
    Attributes: self.port, self.server, self.raw (a RawClient), self.r (a redis.Redis).
    """

    server_args = ()
    password = None
    flush_between_tests = True

    @classmethod
    def setUpClass(cls):
        cls.server = Server(cls.server_args).start()
        cls.port = cls.server.port

    @classmethod
    def tearDownClass(cls):
        status, log = cls.server.stop()
        if status not in (0, -signal.SIGTERM):
            raise AssertionError("server did not exit cleanly (%s); log tail:\n%s" % (status, log))

    def setUp(self):
        self._clients = []
        self.raw = self.raw_client()
        self.r = self.redis_client()
        if self.flush_between_tests:
            self.assertEqual(self.raw.call("FLUSHALL"), "OK")

    def tearDown(self):
        close_all(self._clients)
        # A test that crashed the server must fail loudly, not make later tests fail oddly.
        if not self.server.alive():
            self.fail("server process died; log tail:\n" + self.server.log_tail())

    # -- clients ----------------------------------------------------------------------------------------

    def raw_client(self, auth=True):
        c = RawClient(self.port)
        self._clients.append(c)
        if auth and self.password is not None:
            assert c.call("AUTH", self.password) == "OK"
        return c

    def redis_client(self, **kw):
        kw.setdefault("password", self.password)
        c = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=SOCKET_TIMEOUT_S, **kw)
        self._clients.append(c)
        return c

    def resp3_client(self):
        """A RawClient switched to RESP3 with HELLO 3."""
        c = self.raw_client()
        reply = c.call("HELLO", "3")
        assert isinstance(reply, Map), reply
        return c

    # -- assertions -------------------------------------------------------------------------------------

    def assertReply(self, expected, *args, client=None):
        """Sends args on the raw client and asserts the reply equals expected (types included)."""
        c = client or self.raw
        got = c.call(*args)
        # Status is a str and bulk replies are bytes, so equality also checks the RESP type.
        self.assertEqual(got, expected, "reply to %r" % (args,))
        return got

    def assertRawReply(self, expected_bytes, *args, client=None):
        """Sends args and asserts the exact reply bytes (for RESP3 wire types and framing)."""
        c = client or self.raw
        c.send_command(*args)
        self.assertEqual(c.read_raw(len(expected_bytes)), expected_bytes, "raw reply to %r" % (args,))

    def assertErr(self, expected_text, *args, client=None):
        """Asserts that the command gets exactly this error reply."""
        got = (client or self.raw).call(*args)
        self.assertEqual(got, RespError(expected_text), "error reply to %r" % (args,))

    def assertErrPrefix(self, prefix, *args, client=None):
        got = (client or self.raw).call(*args)
        self.assertIsInstance(got, RespError, "reply to %r" % (args,))
        self.assertTrue(got.message.startswith(prefix), "error to %r: %r" % (args, got))
        return got

    def make_wrongtype_key(self, key, client=None):
        """Makes `key` hold a non-string value and returns its TYPE name.

        A list on Redis ("list"); ordis has no lists yet, so a sorted set ("zset") if ZADD works,
        and the calling test is skipped when it has neither.
        """
        c = client or self.raw
        if not IS_ORDIS:
            self.assertEqual(c.call("RPUSH", key, "x"), 1)
            return "list"
        reply = c.call("ZADD", key, "1", "x")
        if isinstance(reply, RespError):
            if "unknown command" in reply.message:
                self.skipTest("server has neither lists nor sorted sets")
            self.fail("ZADD failed: %r" % reply)
        self.assertEqual(reply, 1)
        return "zset"


# The redis-server that cross-server tests compare with (REDIS_REFERENCE names another).
REFERENCE_SERVER = os.environ.get("REDIS_REFERENCE", "/usr/bin/redis-server")


class CrossServerTestCase(unittest.TestCase):
    """The server under test (cls.server) beside a reference redis-server (cls.reference), both fresh
    for the class, for tests that send both the same commands and compare what they answer.
    Skipped where no reference is installed. Run against redis-server, it compares Redis with
    itself, which checks the test."""

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(REFERENCE_SERVER):
            raise unittest.SkipTest("no reference redis-server at " + REFERENCE_SERVER)
        cls.reference = Server(path=REFERENCE_SERVER).start()
        try:
            cls.server = Server().start()
        except Exception:
            cls.reference.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.reference.stop()


def close_all(clients):
    """Closes every client (RawClient or redis.Redis) of a test, whatever state it is in."""
    for c in clients:
        try:
            c.close()
        except Exception:
            pass


def wait_until(predicate, timeout, interval=0.02):
    """Polls predicate until it returns a truthy value or timeout elapses; returns the last value."""
    deadline = time.monotonic() + timeout
    while True:
        v = predicate()
        if v or time.monotonic() >= deadline:
            return v
        time.sleep(interval)

def pipelined_incrs(client, key, n):
    """Sends n INCR key in one write and returns the n replies, which must all be integers."""
    client.send(encode_command("INCR", key) * n)
    got = []
    for _ in range(n):
        v = client.read_reply()
        if not isinstance(v, int):
            raise AssertionError("INCR replied %r" % (v,))
        got.append(v)
    return got


def info(client, section):
    """One INFO section as {field: value} (values as str), read through a RawClient."""
    text = client.call("INFO", section)
    assert isinstance(text, bytes), text
    fields = {}
    for line in text.decode().split("\r\n"):
        if line and not line.startswith("#"):
            k, _, v = line.partition(":")
            fields[k] = v
    return fields


def config_get(client, name):
    """CONFIG GET of one parameter, read through a RawClient."""
    reply = client.call("CONFIG", "GET", name)
    assert isinstance(reply, list) and len(reply) == 2, reply
    return reply[1]


def assert_increasing(values):
    """One connection's INCR replies come back in order: strictly increasing."""
    if any(b <= a for a, b in zip(values, values[1:])):
        raise AssertionError("replies of one connection out of order")


def run_threads(target, n):
    """Runs target(i) in n threads; re-raises the first exception from any of them."""
    errors = []

    def wrap(i):
        try:
            target(i)
        except BaseException as e:  # noqa: B902 - reported to the main thread
            errors.append(e)

    threads = [threading.Thread(target=wrap, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
        if t.is_alive():
            raise AssertionError("a worker thread hung")
    if errors:
        raise errors[0]
