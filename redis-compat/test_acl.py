"""ACL users (permissions, AUTH, ACL LIST/USERS/GETUSER/LOG, HELLO AUTH, ACL SAVE/LOAD, `user` in a config
file), and failed AUTH attempts being counted.

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

from test_security import ConfFileCase
from harness import IS_ORDIS, Err, Map, Server, info
from security_util import NOAUTH, WRONGPASS, PerTestServerCase, errorstat

ALICE_PW_HASH = "30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee46e26170c4"  # sha256("pw")
BOB_PW_HASH = "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881"  # sha256("x")
# Redis lists a user's commands in command-id order, and ids follow the command table's hashing, so
# "+get +set" and "+set +get" both occur from one start to the next.
ALICE_COMMANDS = (b"-@all +get +set", b"-@all +set +get")
ALICE_RULES = tuple(b"user alice on #%s ~k* resetchannels %s" % (ALICE_PW_HASH.encode(), cmds)
                    for cmds in ALICE_COMMANDS)
DEFAULT_RULE = "user default on nopass ~* &* +@all"
NOPERM_KEY = "NOPERM this user has no permissions to access one of the keys used as arguments"
DEBUG_REFUSED = ('ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", '
                 "you can run it from a local connection, otherwise you need to set this option in the "
                 "configuration file, and then restart the server.")


def noperm_cmd(name):
    return "NOPERM this user has no permissions to run the '%s' command" % name


def add_alice(client):
    assert client.call("ACL", "SETUSER", "alice", "on", ">pw", "~k*", "+get", "+set") == "OK"


# ---------------------------------------------------------------------------------------------------------
# ACL
# ---------------------------------------------------------------------------------------------------------


class AclTest(PerTestServerCase):
    def test_whoami_default(self):
        self.assertEqual(self.client().call("ACL", "WHOAMI"), b"default")

    def test_user_key_and_command_permissions(self):
        add_alice(self.client())
        c = self.client()
        self.assertEqual(c.call("AUTH", "alice", "pw"), "OK")
        self.assertEqual(c.call("SET", "k1", "v"), "OK")
        self.assertEqual(c.call("GET", "k1"), b"v")
        self.assertEqual(c.call("SET", "other", "v"), Err(NOPERM_KEY))
        self.assertEqual(c.call("DEL", "k1"), Err(noperm_cmd("del")))
        self.assertEqual(c.call("ACL", "WHOAMI"), Err(noperm_cmd("acl|whoami")))
        d = self.client()
        self.assertEqual(d.call("EXISTS", "other"), 0)
        self.assertEqual(d.call("GET", "k1"), b"v")

    def test_username_is_case_sensitive(self):
        add_alice(self.client())
        c = self.client()
        self.assertEqual(c.call("AUTH", "Alice", "pw"), Err(WRONGPASS))
        self.assertEqual(c.call("AUTH", "alice", "PW"), Err(WRONGPASS))
        self.assertEqual(c.call("ACL", "WHOAMI"), b"default")  # still the default user

    def test_list_users_getuser(self):
        c = self.client()
        add_alice(c)
        listed = c.call("ACL", "LIST")
        self.assertEqual(len(listed), 2, listed)
        self.assertIn(listed[0], ALICE_RULES)
        self.assertEqual(listed[1], DEFAULT_RULE.encode())
        self.assertEqual(c.call("ACL", "USERS"), [b"alice", b"default"])
        got = c.call("ACL", "GETUSER", "alice")
        self.assertIn(got[5], ALICE_COMMANDS)
        self.assertEqual(got[:5] + got[6:],
                         [b"flags", [b"on"], b"passwords", [ALICE_PW_HASH.encode()],
                          b"commands", b"keys", b"~k*", b"channels", b"", b"selectors", []])
        self.assertIsNone(c.call("ACL", "GETUSER", "nobody"))

    def test_log_records_key_and_command_denials(self):
        add_alice(self.client())
        c = self.client("pw", "alice")
        self.assertEqual(c.call("SET", "other", "v"), Err(NOPERM_KEY))
        self.assertEqual(c.call("DEL", "k1"), Err(noperm_cmd("del")))
        log = self.client().call("ACL", "LOG")
        self.assertEqual(len(log), 2, log)
        newest, oldest = [dict(zip(e[0::2], e[1::2])) for e in log]
        self.assertEqual(log[0][0::2], [b"count", b"reason", b"context", b"object", b"username",
                                        b"age-seconds", b"client-info"])
        self.assertEqual((newest[b"count"], newest[b"reason"], newest[b"context"], newest[b"object"],
                          newest[b"username"]), (1, b"command", b"toplevel", b"del", b"alice"))
        self.assertEqual((oldest[b"count"], oldest[b"reason"], oldest[b"context"], oldest[b"object"],
                          oldest[b"username"]), (1, b"key", b"toplevel", b"other", b"alice"))
        self.assertIn(b" user=alice ", newest[b"client-info"])
        self.assertEqual(self.client().call("ACL", "LOG", "RESET"), "OK")
        self.assertEqual(self.client().call("ACL", "LOG"), [])

    def test_log_records_auth_failure(self):
        add_alice(self.client())
        self.assertEqual(self.client().call("AUTH", "Alice", "pw"), Err(WRONGPASS))
        log = self.client().call("ACL", "LOG")
        self.assertEqual(len(log), 1, log)
        e = dict(zip(log[0][0::2], log[0][1::2]))
        self.assertEqual((e[b"count"], e[b"reason"], e[b"context"], e[b"object"], e[b"username"]),
                         (1, b"auth", b"toplevel", b"AUTH", b"Alice"))

    def test_denials_counted_in_info(self):
        add_alice(self.client())
        c = self.client()
        self.assertEqual(c.call("AUTH", "alice", "nope"), Err(WRONGPASS))
        self.assertEqual(c.call("AUTH", "alice", "pw"), "OK")
        self.assertEqual(c.call("SET", "other", "v"), Err(NOPERM_KEY))
        self.assertEqual(c.call("DEL", "k1"), Err(noperm_cmd("del")))
        d = self.client()
        stats = info(d, "stats")
        self.assertEqual(int(stats["total_error_replies"]), 3)
        acl_fields = {"acl_access_denied_auth": 1, "acl_access_denied_cmd": 1,
                      "acl_access_denied_key": 1, "acl_access_denied_channel": 0}
        if IS_ORDIS:
            # Redis 7.2's counters (ordis has no INFO errorstats yet: README).
            for name, expected in acl_fields.items():
                self.assertEqual(int(stats[name]), expected, name)
        else:
            # Redis 7.0.15 has none of the 7.2 counters; its errorstats count by error code.
            for name in acl_fields:
                self.assertNotIn(name, stats)
            self.assertEqual(errorstat(d, "WRONGPASS"), 1)
            self.assertEqual(errorstat(d, "NOPERM"), 2)

    def test_hello_auth(self):
        add_alice(self.client())
        c = self.client()
        reply = c.call("HELLO", "3", "AUTH", "alice", "pw")
        self.assertIsInstance(reply, Map)
        self.assertEqual(reply[b"proto"], 3)
        self.assertEqual(c.call("SET", "k1", "v"), "OK")
        self.assertEqual(c.call("SET", "other", "v"), Err(NOPERM_KEY))
        d = self.client()
        self.assertEqual(d.call("HELLO", "3", "AUTH", "alice", "bad"), Err(WRONGPASS))
        self.assertEqual(d.call("ACL", "WHOAMI"), b"default")  # protocol and user unchanged
        self.assertEqual(d.call("GET", "nokey"), None)


class RequirepassUserTest(PerTestServerCase):
    server_args = ["--requirepass", "s3cret"]

    def test_default_user_name_is_case_sensitive(self):
        c = self.client()
        self.assertEqual(c.call("AUTH", "DEFAULT", "s3cret"), Err(WRONGPASS))
        self.assertEqual(c.call("PING"), Err(NOAUTH))
        self.assertEqual(c.call("AUTH", "default", "s3cret"), "OK")
        self.assertEqual(c.call("ACL", "WHOAMI"), b"default")

    def test_auth_with_password_only(self):
        c = self.client()
        self.assertEqual(c.call("AUTH", "s3cret"), "OK")
        self.assertEqual(c.call("PING"), "PONG")

    def test_default_user_has_the_password(self):
        c = self.client("s3cret")
        self.assertEqual(c.call("ACL", "LIST"),
                         [b"user default on #1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f"
                          b"99fcba0 ~* &* +@all"])  # sha256("s3cret")


class AclFileTest(PerTestServerCase):
    """ACL SAVE and ACL LOAD with --aclfile (the file must exist when the server starts)."""

    def make_server(self):
        self.acl_dir = tempfile.mkdtemp(prefix="ordis-compat-sec-acl-")
        self.addCleanup(shutil.rmtree, self.acl_dir, True)
        self.acl_path = os.path.join(self.acl_dir, "users.acl")
        open(self.acl_path, "w").close()
        return Server(["--aclfile", self.acl_path])

    def test_save_and_load_round_trip(self):
        c = self.client()
        add_alice(c)
        self.assertEqual(c.call("ACL", "SAVE"), "OK")
        with open(self.acl_path, "rb") as f:
            saved = f.read()
        self.assertIn(saved, [rule + b"\n" + DEFAULT_RULE.encode() + b"\n" for rule in ALICE_RULES])
        self.assertEqual(c.call("ACL", "SETUSER", "carol", "on"), "OK")
        self.assertEqual(c.call("ACL", "DELUSER", "alice"), 1)
        self.assertEqual(c.call("ACL", "USERS"), [b"carol", b"default"])
        self.assertEqual(c.call("ACL", "LOAD"), "OK")
        self.assertEqual(c.call("ACL", "USERS"), [b"alice", b"default"])
        self.assertEqual(c.call("ACL", "LIST"), saved.splitlines())
        a = self.client("pw", "alice")
        self.assertEqual(a.call("SET", "k1", "v"), "OK")

    def test_load_of_a_bad_file_changes_nothing(self):
        c = self.client()
        add_alice(c)
        self.assertEqual(c.call("ACL", "SAVE"), "OK")
        with open(self.acl_path, "a") as f:
            f.write("garbage line\n")
        self.assertEqual(c.call("ACL", "SETUSER", "carol", "on"), "OK")
        self.assertEqual(c.call("ACL", "LOAD"),
                         Err("ERR %s:3 should start with user keyword followed by the username. "
                             "WARNING: ACL errors detected, no change to the previously active ACL "
                             "rules was performed" % self.acl_path))
        self.assertEqual(c.call("ACL", "USERS"), [b"alice", b"carol", b"default"])


class UserDirectiveTest(ConfFileCase):
    CONF = """port @PORT@
bind 127.0.0.1
save ""
appendonly no
user bob on >x ~* +@all
"""

    def test_user_from_config_file(self):
        c = self.client()
        self.assertEqual(c.call("ACL", "LIST"),
                         [b"user bob on #%s ~* resetchannels +@all" % BOB_PW_HASH.encode(),
                          DEFAULT_RULE.encode()])
        self.assertEqual(c.call("ACL", "USERS"), [b"bob", b"default"])
        b = self.client()
        self.assertEqual(b.call("AUTH", "bob", "y"), Err(WRONGPASS))
        self.assertEqual(b.call("AUTH", "bob", "x"), "OK")
        self.assertEqual(b.call("ACL", "WHOAMI"), b"bob")
        self.assertEqual(b.call("SET", "a", "1"), "OK")


# ---------------------------------------------------------------------------------------------------------
# AUTH brute force
# ---------------------------------------------------------------------------------------------------------


class AuthFailureCountTest(PerTestServerCase):
    server_args = ["--requirepass", "s3cret"]
    ATTEMPTS = 25

    def test_wrong_passwords_counted(self):
        # The harness's start-up probe (a PING without AUTH) may have left NOAUTH errors: count from
        # here on.
        d = self.client("s3cret")
        noauth_before = 0 if IS_ORDIS else errorstat(d, "NOAUTH")
        errors_before = int(info(d, "stats")["total_error_replies"])
        c = self.client()
        for i in range(self.ATTEMPTS):
            self.assertEqual(c.call("AUTH", "guess%d" % i), Err(WRONGPASS))
        self.assertEqual(c.call("PING"), Err(NOAUTH))
        # No lock-out: the right password still works.
        self.assertEqual(c.call("AUTH", "s3cret"), "OK")
        stats = info(c, "stats")
        self.assertEqual(int(stats["total_error_replies"]), errors_before + self.ATTEMPTS + 1)
        if IS_ORDIS:
            self.assertEqual(int(stats["acl_access_denied_auth"]), self.ATTEMPTS)
        else:
            self.assertNotIn("acl_access_denied_auth", stats)  # Redis 7.2 and later
            self.assertEqual(errorstat(c, "WRONGPASS"), self.ATTEMPTS)
            self.assertEqual(errorstat(c, "NOAUTH"), noauth_before + 1)
        # The ACL log folds the attempts of one client with one user name into one entry.
        log = c.call("ACL", "LOG")
        self.assertEqual(len(log), 1, log)
        e = dict(zip(log[0][0::2], log[0][1::2]))
        self.assertEqual((e[b"count"], e[b"reason"], e[b"object"], e[b"username"]),
                         (self.ATTEMPTS, b"auth", b"AUTH", b"default"))


if __name__ == "__main__":
    unittest.main()
