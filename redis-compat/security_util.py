"""Shared pieces of the security modules (test_security.py, test_security_limits.py): a test case with
one fresh server per test, clients whose peer address is not 127.0.0.1, a network namespace for a
truly remote client, INFO parsing and /proc readings of the server process.

Every expectation in those modules was checked against redis-server 7.0.15.
"""

import json
import select
import os
import shutil
import signal
import socket
import subprocess
import unittest

from harness import SOCKET_TIMEOUT_S, RawClient, Server, close_all, info

HARNESS_DIR = os.path.dirname(os.path.abspath(__file__))

DENIED = ("DENIED Redis is running in protected mode because protected mode is enabled and no password "
          "is set for the default user. In this mode connections are only accepted from the loopback "
          "interface. If you want to connect from external computers to Redis you may adopt one of the "
          "following solutions: 1) Just disable protected mode sending the command 'CONFIG SET "
          "protected-mode no' from the loopback interface by connecting to Redis from the same host the "
          "server is running, however MAKE SURE Redis is not publicly accessible from internet if you do "
          "so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable "
          "the protected mode by editing the Redis configuration file, and setting the protected mode "
          "option to 'no', and then restarting the server. 3) If you started the server manually just "
          "for testing, restart it with the '--protected-mode no' option. 4) Setup a an authentication "
          "password for the default user. NOTE: You only need to do one of the above things in order "
          "for the server to start accepting connections from the outside.")
DENIED_LINE = ("-" + DENIED + "\r\n").encode()

NOAUTH = "NOAUTH Authentication required."
WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled."
MAXCLIENTS = "ERR max number of clients reached"


def protected_config_error(name):
    return ("ERR CONFIG SET failed (possibly related to argument '%s') - can't set protected config"
            % name)


class SourceClient(RawClient):
    """A RawClient whose connection comes from `source` (e.g. 127.0.0.2): the server sees that peer
    address. Redis 7.0 treats only the peer texts "127.0.0.1" and "::1" as local."""

    def __init__(self, port, source="127.0.0.2", host="127.0.0.1", timeout=SOCKET_TIMEOUT_S):
        self.sock = socket.create_connection((host, port), timeout=timeout, source_address=(source, 0))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.pos = 0


def denied_exchange(client, timeout=10.0):
    """What a refused client receives: everything up to the server's close.

    Redis writes the DENIED error as soon as it accepts, before any command, and closes. A server that
    answers the first command instead gets a PING when nothing has arrived within 2 s.
    """
    readable, _, _ = select.select([client.sock], [], [], 2.0)
    if not readable:
        client.send(b"PING\r\n")
    return client.wait_closed(timeout=timeout)


def errorstat(client, prefix):
    """The count of errorstat_<prefix> in INFO errorstats (0 when absent)."""
    v = info(client, "errorstats").get("errorstat_" + prefix)
    if v is None:
        return 0
    assert v.startswith("count="), v
    return int(v[len("count="):])


def client_ids(client):
    """The ids in CLIENT LIST."""
    text = client.call("CLIENT", "LIST")
    assert isinstance(text, bytes), text
    ids = set()
    for line in text.decode().splitlines():
        for item in line.split(" "):
            if item.startswith("id="):
                ids.add(int(item[3:]))
    return ids


def proc_cpu_seconds(pid):
    """utime + stime of a process (all its threads) in seconds, from /proc/<pid>/stat."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # After the command name: state is field 3, utime 14, stime 15 (1-based over the whole line).
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def proc_rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS for pid %d" % pid)


class PerTestServerCase(unittest.TestCase):
    """One server per test (self.srv), started with server_args; clients made by the helpers are closed
    after the test, and the server must still be alive then."""

    server_args = ()

    def setUp(self):
        self._clients = []
        self.srv = self.make_server().start()
        self.port = self.srv.port

    def make_server(self):
        return Server(self.server_args)

    def tearDown(self):
        close_all(self._clients)
        alive = self.srv.alive()
        log = self.srv.log_tail()
        status, _ = self.srv.stop()
        if not alive:
            self.fail("server process died; log tail:\n" + log)
        if status not in (0, -signal.SIGTERM):
            self.fail("server did not exit cleanly (%s); log tail:\n%s" % (status, log))

    def client(self, password=None, user=None):
        c = RawClient(self.port)
        self._clients.append(c)
        if password is not None:
            args = ("AUTH", user, password) if user else ("AUTH", password)
            self.assertEqual(c.call(*args), "OK")
        return c

    def remote_client(self, source="127.0.0.2"):
        c = SourceClient(self.port, source)
        self._clients.append(c)
        return c


# ---------------------------------------------------------------------------------------------------------
# A network namespace joined to this one by a veth pair
# ---------------------------------------------------------------------------------------------------------

_NETNS_CLIENT = r"""
import json, select, socket, sys
sys.path.insert(0, sys.argv[1])
from harness import ConnectionClosed, RawClient, RespError
host, port, mode, commands = sys.argv[2], int(sys.argv[3]), sys.argv[4], json.loads(sys.argv[5])
c = RawClient(port, host=host, timeout=20)
out = []
if mode == "denied":
    readable, _, _ = select.select([c.sock], [], [], 2.0)
    if not readable:
        c.send(b"PING\r\n")
    out.append(c.wait_closed(10.0).decode("latin-1"))
else:
    for cmd in commands:
        try:
            r = c.call(*cmd)
        except (ConnectionClosed, ConnectionResetError, BrokenPipeError):
            out.append(["closed"])
            break
        if isinstance(r, RespError):
            out.append(["err", r.message])
        elif isinstance(r, bytes):
            out.append(["bulk", r.decode("latin-1")])
        else:
            out.append(["value", r])
print(json.dumps(out))
"""


class NetNamespace:
    """A network namespace with a veth pair: this side HOST_ADDR, the namespace's side PEER_ADDR.

    A server bound to 0.0.0.0 here is reached from the namespace at host_addr, and sees peer_addr, a
    real non-loopback address. Needs root and `ip`; use in a `with` block (the namespace and the pair
    are deleted on exit)."""

    _count = 0

    @staticmethod
    def unavailable():
        """None if a namespace can be made here, else the reason why not."""
        if os.geteuid() != 0:
            return "network namespaces need root"
        if shutil.which("ip") is None:
            return "no `ip` command"
        return None

    def __init__(self):
        NetNamespace._count += 1
        n = NetNamespace._count
        tag = "%d%d" % (os.getpid() % 100000, n)
        self.name = "ordis-sec-%s" % tag
        self.veth_host = "osh%s" % tag[-11:]
        self.veth_peer = "osp%s" % tag[-11:]
        third = os.getpid() % 250
        fourth = (n % 60) * 4
        self.host_addr = "10.213.%d.%d" % (third, fourth + 1)
        self.peer_addr = "10.213.%d.%d" % (third, fourth + 2)
        self.created = False

    def _ip(self, *args, ns=False):
        cmd = ["ip"] + (["netns", "exec", self.name, "ip"] if ns else []) + list(args)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
        if p.returncode != 0:
            raise OSError("%s: %s" % (" ".join(cmd), p.stdout.decode(errors="replace")))

    def __enter__(self):
        self._ip("netns", "add", self.name)
        self.created = True
        try:
            self._ip("link", "add", self.veth_host, "type", "veth", "peer", "name", self.veth_peer)
            self._ip("link", "set", self.veth_peer, "netns", self.name)
            self._ip("addr", "add", self.host_addr + "/30", "dev", self.veth_host)
            self._ip("link", "set", self.veth_host, "up")
            self._ip("addr", "add", self.peer_addr + "/30", "dev", self.veth_peer, ns=True)
            self._ip("link", "set", self.veth_peer, "up", ns=True)
            self._ip("link", "set", "lo", "up", ns=True)
        except Exception:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        # Deleting the namespace deletes the peer end, and with it the pair; the host end is deleted
        # explicitly in case the peer never moved in.
        subprocess.run(["ip", "link", "del", self.veth_host], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=30)
        if self.created:
            subprocess.run(["ip", "netns", "del", self.name], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=30)
            self.created = False

    def run_client(self, port, commands=(), denied=False):
        """Runs a RawClient inside the namespace against host_addr:port. With denied=True: returns
        the text received up to the server's close (see denied_exchange). Otherwise sends the commands
        in order and returns their replies as ["err", text], ["bulk", text], ["value", v] (a status or
        integer) or ["closed"]."""
        cmd = ["ip", "netns", "exec", self.name, "/usr/bin/python3", "-c", _NETNS_CLIENT, HARNESS_DIR,
               self.host_addr, str(port), "denied" if denied else "commands",
               json.dumps([list(c) for c in commands])]
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, env=env)
        if p.returncode != 0:
            raise AssertionError("client in namespace failed: %s" % p.stderr.decode(errors="replace"))
        out = json.loads(p.stdout)
        return out[0] if denied else out
