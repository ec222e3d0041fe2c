"""Access control: protected mode, protected configs and the DEBUG command, rename-command. ACL users
are in test_acl.py.

Every expectation here (each error text, each reply) was checked against redis-server 7.0.15; the
resource limits (descriptors, timeouts, unauthenticated output) are in test_security_limits.py.

A "non-loopback" client is made in two ways: a connection from 127.0.0.2 (Redis 7.0 compares the
peer's address text with "127.0.0.1" and "::1", so 127.0.0.2 is remote to it), and, when running as
root with `ip`, a client in its own network namespace reaching the server over a veth pair.
"""

import os
import shutil
import tempfile
import unittest

from harness import IS_ORDIS, Err, RawClient, Server, config_get
from security_util import (DENIED_LINE, NOAUTH, NetNamespace, PerTestServerCase, denied_exchange,
                           protected_config_error)

DEBUG_REFUSED = ('ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", '
                 "you can run it from a local connection, otherwise you need to set this option in the "
                 "configuration file, and then restart the server.")


class FileConfServer(Server):
    """A server started as `<binary> <config file>`; the file is written from a template (with @PORT@
    replaced) on every start attempt."""

    def __init__(self, conf_path, template, extra_args=()):
        super().__init__(extra_args)
        self.conf_path = conf_path
        self.template = template

    def args(self, port):
        with open(self.conf_path, "w") as f:
            f.write(self.template.replace("@PORT@", str(port)))
        a = [self.path, self.conf_path] + self.extra_args
        if IS_ORDIS:
            a += ["--threads", str(self.threads), "--adaptive-threads", "no"]
        return a


class DefaultBindServer(Server):
    """A server without the harness's `--bind 127.0.0.1`: the binary's default bind."""

    def args(self, port):
        a = super().args(port)
        i = a.index("--bind")
        del a[i:i + 2]
        return a


class ConfFileCase(PerTestServerCase):
    """A server per test started from a config file (CONF, with @PORT@)."""

    CONF = ""

    def make_server(self):
        self.conf_dir = tempfile.mkdtemp(prefix="ordis-compat-sec-")
        self.addCleanup(shutil.rmtree, self.conf_dir, True)
        return FileConfServer(os.path.join(self.conf_dir, "server.conf"), self.CONF)


# ---------------------------------------------------------------------------------------------------------
# Protected mode
# ---------------------------------------------------------------------------------------------------------


class ProtectedModeTest(PerTestServerCase):
    """bind 0.0.0.0 and no password: only loopback clients are served."""

    server_args = ["--bind", "0.0.0.0"]  # after the harness's --bind 127.0.0.1: it wins

    def test_remote_client_gets_denied_and_is_closed(self):
        self.assertEqual(denied_exchange(self.remote_client()), DENIED_LINE)

    def test_remote_set_does_nothing(self):
        c = self.remote_client()
        c.send(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n")
        try:
            got = c.wait_closed(timeout=10.0)
        except ConnectionResetError:
            got = b""
        # Redis answers at accept; the SET arriving on a closing socket may turn the close into a
        # reset that drops the error, so an empty read is accepted too, but never +OK.
        self.assertIn(got, (DENIED_LINE, b""))
        self.assertEqual(self.client().call("EXISTS", "k"), 0)

    def test_loopback_client_is_served(self):
        c = self.client()
        self.assertEqual(c.call("PING"), "PONG")
        self.assertEqual(c.call("SET", "k", "v"), "OK")
        self.assertEqual(c.call("GET", "k"), b"v")

    def test_protected_mode_reported(self):
        self.assertEqual(config_get(self.client(), "protected-mode"), b"yes")


class ProtectedModeDefaultBindTest(PerTestServerCase):
    """The same with the binary's default bind."""

    def make_server(self):
        return DefaultBindServer(self.server_args)

    def test_remote_client_gets_denied_and_is_closed(self):
        self.assertEqual(denied_exchange(self.remote_client()), DENIED_LINE)

    def test_loopback_client_is_served(self):
        self.assertEqual(self.client().call("PING"), "PONG")


class ProtectedModeOffTest(PerTestServerCase):
    server_args = ["--bind", "0.0.0.0", "--protected-mode", "no"]

    def test_remote_client_is_served(self):
        c = self.remote_client()
        self.assertEqual(c.call("PING"), "PONG")
        self.assertEqual(c.call("SET", "k", "v"), "OK")
        self.assertEqual(self.client().call("GET", "k"), b"v")


class ProtectedModeWithPasswordTest(PerTestServerCase):
    server_args = ["--bind", "0.0.0.0", "--requirepass", "x"]

    def test_remote_client_is_served_after_auth(self):
        c = self.remote_client()
        self.assertEqual(c.call("PING"), Err(NOAUTH))
        self.assertEqual(c.call("AUTH", "x"), "OK")
        self.assertEqual(c.call("PING"), "PONG")

    def test_loopback_client_needs_auth_too(self):
        c = self.client()
        self.assertEqual(c.call("PING"), Err(NOAUTH))
        self.assertEqual(c.call("AUTH", "x"), "OK")
        self.assertEqual(c.call("PING"), "PONG")


class ProtectedModeNamespaceTest(unittest.TestCase):
    """A client in another network namespace, seen by the server as 10.213.x.2."""

    def setUp(self):
        reason = NetNamespace.unavailable()
        if reason:
            self.skipTest(reason)
        self.ns = NetNamespace()
        try:
            self.ns.__enter__()
        except OSError as e:
            self.skipTest("cannot make a network namespace here: %s" % e)
        self.addCleanup(self.ns.__exit__)
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.stop()

    def start(self, *args):
        s = Server(["--bind", "0.0.0.0"] + list(args))
        self.servers.append(s)
        return s.start()

    def test_remote_client_gets_denied(self):
        s = self.start()
        self.assertEqual(self.ns.run_client(s.port, denied=True), DENIED_LINE.decode())
        with RawClient(s.port) as c:
            self.assertEqual(c.call("PING"), "PONG")

    def test_remote_set_does_nothing(self):
        s = self.start()
        replies = self.ns.run_client(s.port, [("SET", "k", "v")])
        self.assertIn(replies, ([["err", DENIED_LINE[1:-2].decode()]], [["closed"]]))
        with RawClient(s.port) as c:
            self.assertEqual(c.call("EXISTS", "k"), 0)

    def test_protected_mode_no_serves_remote_client(self):
        s = self.start("--protected-mode", "no")
        self.assertEqual(self.ns.run_client(s.port, [("PING",), ("SET", "k", "v")]),
                         [["value", "PONG"], ["value", "OK"]])

    def test_password_serves_remote_client_after_auth(self):
        s = self.start("--requirepass", "x")
        self.assertEqual(self.ns.run_client(s.port, [("PING",), ("AUTH", "x"), ("PING",)]),
                         [["err", NOAUTH], ["value", "OK"], ["value", "PONG"]])


# ---------------------------------------------------------------------------------------------------------
# Protected configs and the DEBUG command
# ---------------------------------------------------------------------------------------------------------


class ProtectedConfigsDefaultTest(PerTestServerCase):
    def test_config_set_dir_refused(self):
        c = self.client()
        before = config_get(c, "dir")
        self.assertEqual(c.call("CONFIG", "SET", "dir", "/tmp/x"), Err(protected_config_error("dir")))
        self.assertEqual(config_get(c, "dir"), before)

    def test_config_set_dbfilename_refused(self):
        c = self.client()
        before = config_get(c, "dbfilename")
        self.assertEqual(c.call("CONFIG", "SET", "dbfilename", "evil.sh"),
                         Err(protected_config_error("dbfilename")))
        self.assertEqual(config_get(c, "dbfilename"), before)

    def test_enable_protected_configs_is_immutable(self):
        c = self.client()
        self.assertEqual(config_get(c, "enable-protected-configs"), b"no")
        self.assertEqual(c.call("CONFIG", "SET", "enable-protected-configs", "yes"),
                         Err("ERR CONFIG SET failed (possibly related to argument "
                             "'enable-protected-configs') - can't set immutable config"))

    def test_debug_refused_by_default(self):
        c = self.client()
        self.assertEqual(config_get(c, "enable-debug-command"), b"no")
        self.assertEqual(c.call("DEBUG", "SLEEP", "0"), Err(DEBUG_REFUSED))

    def test_appendfilename_is_immutable(self):
        self.assertEqual(self.client().call("CONFIG", "SET", "appendfilename", "a/b"),
                         Err("ERR CONFIG SET failed (possibly related to argument 'appendfilename') - "
                             "can't set immutable config"))


class ProtectedConfigsEnabledTest(PerTestServerCase):
    server_args = ["--enable-protected-configs", "yes", "--enable-debug-command", "yes"]

    def test_config_set_dir_accepted(self):
        other = tempfile.mkdtemp(prefix="ordis-compat-sec-dir-")
        self.addCleanup(shutil.rmtree, other, True)
        c = self.client()
        self.assertEqual(c.call("CONFIG", "SET", "dir", other), "OK")
        self.assertEqual(config_get(c, "dir"), other.encode())

    def test_config_set_dbfilename_accepted(self):
        c = self.client()
        self.assertEqual(c.call("CONFIG", "SET", "dbfilename", "evil.sh"), "OK")
        self.assertEqual(config_get(c, "dbfilename"), b"evil.sh")

    def test_dbfilename_cannot_be_a_path(self):
        c = self.client()
        before = config_get(c, "dbfilename")
        self.assertEqual(c.call("CONFIG", "SET", "dbfilename", "../escape.rdb"),
                         Err("ERR CONFIG SET failed (possibly related to argument 'dbfilename') - "
                             "dbfilename can't be a path, just a filename"))
        self.assertEqual(config_get(c, "dbfilename"), before)

    def test_debug_accepted(self):
        self.assertEqual(self.client().call("DEBUG", "SLEEP", "0"), "OK")


class ProtectedConfigsLocalTest(PerTestServerCase):
    # protected-mode no, so that the 127.0.0.2 client is served at all.
    server_args = ["--enable-protected-configs", "local", "--enable-debug-command", "local",
                   "--protected-mode", "no"]

    def test_loopback_client_may_set_dir(self):
        other = tempfile.mkdtemp(prefix="ordis-compat-sec-dir-")
        self.addCleanup(shutil.rmtree, other, True)
        c = self.client()
        self.assertEqual(c.call("CONFIG", "SET", "dir", other), "OK")
        self.assertEqual(config_get(c, "dir"), other.encode())

    def test_remote_client_may_not_set_dir(self):
        c = self.remote_client()
        self.assertEqual(c.call("CONFIG", "SET", "dir", "/tmp"), Err(protected_config_error("dir")))
        self.assertEqual(c.call("CONFIG", "SET", "dbfilename", "x.rdb"),
                         Err(protected_config_error("dbfilename")))

    def test_debug_local_only(self):
        self.assertEqual(self.client().call("DEBUG", "SLEEP", "0"), "OK")
        self.assertEqual(self.remote_client().call("DEBUG", "SLEEP", "0"), Err(DEBUG_REFUSED))


class FilenameAtStartTest(unittest.TestCase):
    """A path as dbfilename or appendfilename is refused at start-up, protected configs or not."""

    def start_fails(self, *args):
        s = Server(list(args))
        try:
            code, log = s.start_expecting_exit()
        finally:
            s.stop()
        self.assertIsNotNone(code, "the server started with %r" % (args,))
        self.assertNotEqual(code, 0)
        return log

    def test_dbfilename_path_refused(self):
        log = self.start_fails("--enable-protected-configs", "yes", "--dbfilename", "../escape.rdb")
        self.assertIn("dbfilename can't be a path, just a filename", log)

    def test_appendfilename_path_refused(self):
        log = self.start_fails("--enable-protected-configs", "yes", "--appendfilename", "a/b")
        self.assertIn("appendfilename can't be a path, just a filename", log)


# ---------------------------------------------------------------------------------------------------------
# rename-command
# ---------------------------------------------------------------------------------------------------------


class RenameCommandTest(ConfFileCase):
    CONF = """port @PORT@
bind 127.0.0.1
save ""
appendonly no
rename-command CONFIG ""
rename-command GET get2
"""

    def test_config_removed(self):
        self.assertEqual(self.client().call("CONFIG", "GET", "port"),
                         Err("ERR unknown command 'CONFIG', with args beginning with: 'GET' 'port' "))

    def test_get_renamed(self):
        c = self.client()
        self.assertEqual(c.call("SET", "a", "b"), "OK")
        self.assertEqual(c.call("GET", "a"), Err("ERR unknown command 'GET', with args beginning with: 'a' "))
        self.assertEqual(c.call("GET2", "a"), b"b")
        self.assertEqual(c.call("get2", "a"), b"b")


if __name__ == "__main__":
    unittest.main()
