"""Connection commands: PING ECHO HELLO AUTH SELECT QUIT RESET CLIENT."""

import unittest

from harness import IS_ORDIS, Err, Map, ServerTestCase, encode_command, wait_until

HELLO_FIELDS = [b"server", b"version", b"proto", b"id", b"mode", b"role", b"modules"]


def parse_client_line(line):
    """One CLIENT LIST / CLIENT INFO line -> {field: value} (values as str)."""
    fields = {}
    for item in line.split(" "):
        k, sep, v = item.partition("=")
        assert sep == "=", "malformed client field %r in %r" % (item, line)
        fields[k] = v
    return fields


class PingEchoTest(ServerTestCase):
    def test_ping(self):
        self.assertReply("PONG", "PING")
        self.assertReply(b"hello", "PING", "hello")  # with an argument: a bulk string, not +hello
        self.assertReply(b"", "PING", "")
        self.assertErr("ERR wrong number of arguments for 'ping' command", "PING", "a", "b")

    def test_ping_is_case_insensitive(self):
        self.assertReply("PONG", "ping")
        self.assertReply("PONG", "PiNg")

    def test_echo(self):
        self.assertReply(b"x", "ECHO", "x")
        self.assertReply(b"", "ECHO", "")
        self.assertReply(b"a\x00b\xff\r\n", "ECHO", b"a\x00b\xff\r\n")
        self.assertErr("ERR wrong number of arguments for 'echo' command", "ECHO")
        self.assertErr("ERR wrong number of arguments for 'echo' command", "ECHO", "a", "b")

    def test_redis_py_client(self):
        self.assertTrue(self.r.ping())
        self.assertEqual(self.r.echo(b"bin\x00ary"), b"bin\x00ary")


class HelloTest(ServerTestCase):
    def check_hello_fields(self, fields, proto, client_id):
        self.assertEqual(list(fields.keys()), HELLO_FIELDS)
        self.assertEqual(fields[b"proto"], proto)
        self.assertEqual(fields[b"id"], client_id)
        self.assertEqual(fields[b"mode"], b"standalone")
        self.assertEqual(fields[b"role"], b"master")
        self.assertEqual(fields[b"modules"], [])
        self.assertIsInstance(fields[b"server"], bytes)
        self.assertIsInstance(fields[b"version"], bytes)
        if not IS_ORDIS:
            # ordis may report its own name and version; clients do not look at them.
            self.assertEqual(fields[b"server"], b"redis")
            self.assertEqual(fields[b"version"], b"7.0.15")

    def test_hello_2_is_a_flat_array(self):
        cid = self.raw.call("CLIENT", "ID")
        reply = self.raw.call("HELLO", "2")
        self.assertIsInstance(reply, list)
        self.assertEqual(len(reply), 14)
        fields = dict(zip(reply[0::2], reply[1::2]))
        self.assertEqual(reply[0::2], HELLO_FIELDS)
        self.check_hello_fields(fields, 2, cid)

    def test_hello_3_is_a_map_and_switches_protocol(self):
        c = self.raw
        cid = c.call("CLIENT", "ID")
        reply = c.call("HELLO", "3")
        self.assertIsInstance(reply, Map)
        self.check_hello_fields(reply, 3, cid)
        # RESP3 wire types: null is "_", a missing value inside an array too.
        self.assertRawReply(b"_\r\n", "GET", "nokey", client=c)
        self.assertEqual(c.call("SET", "k", "v"), "OK")
        self.assertRawReply(b"*2\r\n$1\r\nv\r\n_\r\n", "MGET", "k", "nokey", client=c)
        # HELLO with no version reports the current protocol.
        self.assertEqual(c.call("HELLO")[b"proto"], 3)
        # Back to RESP2: nulls are $-1 again.
        reply = c.call("HELLO", "2")
        self.assertIsInstance(reply, list)
        self.assertRawReply(b"$-1\r\n", "GET", "nokey", client=c)

    def test_hello_without_version(self):
        reply = self.raw.call("HELLO")
        self.assertIsInstance(reply, list)
        self.assertEqual(dict(zip(reply[0::2], reply[1::2]))[b"proto"], 2)

    def test_hello_setname(self):
        reply = self.raw.call("HELLO", "3", "SETNAME", "conn-a")
        self.assertIsInstance(reply, Map)
        self.assertReply(b"conn-a", "CLIENT", "GETNAME")

    def test_hello_auth_default_user_without_password(self):
        # No requirepass: the default user is "nopass", so any password is accepted.
        reply = self.raw.call("HELLO", "3", "AUTH", "default", "whatever")
        self.assertIsInstance(reply, Map)
        self.assertEqual(reply[b"proto"], 3)

    def test_hello_bad_protover(self):
        self.assertErr("NOPROTO unsupported protocol version", "HELLO", "4")
        self.assertErr("NOPROTO unsupported protocol version", "HELLO", "1")
        self.assertErr("NOPROTO unsupported protocol version", "HELLO", "0")
        self.assertErr("ERR Protocol version is not an integer or out of range", "HELLO", "abc")
        # A failed HELLO leaves the protocol alone.
        self.assertReply(None, "GET", "nokey")

    def test_hello_syntax_errors(self):
        self.assertErr("ERR Syntax error in HELLO option 'FOO'", "HELLO", "2", "FOO")
        self.assertErr("ERR Syntax error in HELLO option 'SETNAME'", "HELLO", "3", "SETNAME")
        self.assertErr("ERR Syntax error in HELLO option 'AUTH'", "HELLO", "3", "AUTH", "x")
        self.assertErr("ERR Client names cannot contain spaces, newlines or special characters.",
                       "HELLO", "2", "SETNAME", "a b")


class AuthTest(ServerTestCase):
    server_args = ["--requirepass", "sekret"]
    password = "sekret"

    NOAUTH = "NOAUTH Authentication required."
    WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled."
    NOAUTH_HELLO = ("NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                    "HELLO AUTH <user> <pass> option can be used to authenticate the client and select "
                    "the RESP protocol version at the same time")

    def test_commands_need_auth(self):
        c = self.raw_client(auth=False)
        self.assertErr(self.NOAUTH, "PING", client=c)
        self.assertErr(self.NOAUTH, "GET", "a", client=c)
        self.assertErr(self.NOAUTH, "ECHO", "x", client=c)
        self.assertErr(self.NOAUTH, "CLIENT", "ID", client=c)
        self.assertErr(self.NOAUTH_HELLO, "HELLO", "2", client=c)
        self.assertErr(self.NOAUTH_HELLO, "HELLO", client=c)

    def test_auth_password(self):
        c = self.raw_client(auth=False)
        self.assertErr(self.WRONGPASS, "AUTH", "wrong", client=c)
        self.assertErr(self.NOAUTH, "GET", "a", client=c)
        self.assertReply("OK", "AUTH", "sekret", client=c)
        self.assertReply(None, "GET", "a", client=c)
        self.assertReply("PONG", "PING", client=c)

    def test_auth_username_password(self):
        c = self.raw_client(auth=False)
        self.assertErr(self.WRONGPASS, "AUTH", "default", "nope", client=c)
        self.assertErr(self.WRONGPASS, "AUTH", "bob", "sekret", client=c)
        self.assertReply("OK", "AUTH", "default", "sekret", client=c)
        self.assertReply("PONG", "PING", client=c)

    def test_auth_syntax(self):
        c = self.raw_client(auth=False)
        self.assertErr("ERR syntax error", "AUTH", "a", "b", "c", client=c)
        self.assertErr("ERR wrong number of arguments for 'auth' command", "AUTH", client=c)

    def test_quit_allowed_without_auth(self):
        c = self.raw_client(auth=False)
        self.assertReply("OK", "QUIT", client=c)
        c.wait_closed()

    def test_hello_auth(self):
        c = self.raw_client(auth=False)
        self.assertErr(self.WRONGPASS, "HELLO", "3", "AUTH", "default", "wrong", client=c)
        self.assertErr(self.NOAUTH, "GET", "a", client=c)
        reply = c.call("HELLO", "3", "AUTH", "default", "sekret")
        self.assertIsInstance(reply, Map)
        self.assertEqual(reply[b"proto"], 3)
        self.assertReply("PONG", "PING", client=c)

    def test_reset_deauthenticates(self):
        c = self.raw_client(auth=True)
        self.assertReply("OK", "SET", "k", "v", client=c)
        self.assertReply("RESET", "RESET", client=c)
        self.assertErr(self.NOAUTH, "GET", "k", client=c)

    def test_unauthenticated_protocol_limits(self):
        # An unauthenticated client may not announce more than 10 arguments or bulks over 16 KiB.
        c = self.raw_client(auth=False)
        c.send(b"*11\r\n")
        self.assertEqual(c.read_reply(), Err("ERR Protocol error: unauthenticated multibulk length"))
        c.wait_closed()
        c = self.raw_client(auth=False)
        c.send(b"*1\r\n$16385\r\n")
        self.assertEqual(c.read_reply(), Err("ERR Protocol error: unauthenticated bulk length"))
        c.wait_closed()
        # Once authenticated, both are fine.
        c = self.raw_client(auth=True)
        self.assertEqual(c.call("ECHO", b"x" * 20000), b"x" * 20000)
        self.assertEqual(c.call("DEL", *["k%d" % i for i in range(20)]), 0)

    def test_redis_py_with_password(self):
        self.assertTrue(self.r.set("a", "1"))
        self.assertEqual(self.r.get("a"), b"1")


class AuthWithoutPasswordTest(ServerTestCase):
    def test_auth_without_requirepass(self):
        self.assertErr("ERR AUTH <password> called without any password configured for the default "
                       "user. Are you sure your configuration is correct?", "AUTH", "x")
        # The default user has no password: any password works in the two-argument form.
        self.assertReply("OK", "AUTH", "default", "x")


class SelectTest(ServerTestCase):
    def test_select_range(self):
        for db in range(16):
            self.assertReply("OK", "SELECT", str(db))
        self.assertErr("ERR DB index is out of range", "SELECT", "16")
        self.assertErr("ERR DB index is out of range", "SELECT", "-1")
        self.assertErr("ERR value is not an integer or out of range", "SELECT", "abc")
        self.assertErr("ERR value is not an integer or out of range", "SELECT", "1.5")
        self.assertErr("ERR value is not an integer or out of range", "SELECT", "")
        self.assertErr("ERR wrong number of arguments for 'select' command", "SELECT")
        self.assertErr("ERR wrong number of arguments for 'select' command", "SELECT", "0", "1")

    def test_databases_are_separate(self):
        c = self.raw
        self.assertReply("OK", "SET", "k", "db0")
        self.assertReply("OK", "SELECT", "7")
        self.assertReply(None, "GET", "k")
        self.assertReply("OK", "SET", "k", "db7")
        self.assertReply(1, "DBSIZE")
        self.assertReply("OK", "SELECT", "0")
        self.assertReply(b"db0", "GET", "k")
        # SELECT is per connection.
        other = self.raw_client()
        self.assertEqual(other.call("GET", "k"), b"db0")
        self.assertEqual(c.call("SELECT", "7"), "OK")
        self.assertEqual(other.call("GET", "k"), b"db0")
        self.assertEqual(c.call("GET", "k"), b"db7")


class QuitResetTest(ServerTestCase):
    def test_quit(self):
        c = self.raw_client()
        c.send(encode_command("QUIT"))
        self.assertEqual(c.read_reply(), "OK")
        self.assertEqual(c.wait_closed(), b"")

    def test_quit_discards_pipelined_commands(self):
        c = self.raw_client()
        c.send(encode_command("QUIT") + encode_command("SET", "after-quit", "1"))
        self.assertEqual(c.read_reply(), "OK")
        c.wait_closed()
        self.assertReply(0, "EXISTS", "after-quit")

    def test_reset(self):
        c = self.raw_client()
        self.assertEqual(c.call("SELECT", "3"), "OK")
        self.assertEqual(c.call("CLIENT", "SETNAME", "nm"), "OK")
        self.assertIsInstance(c.call("HELLO", "3"), Map)
        self.assertEqual(c.call("MULTI"), "OK")
        c.send(encode_command("RESET"))
        self.assertEqual(c.read_raw(8), b"+RESET\r\n")
        # Back to db 0, no name, RESP2, no transaction.
        self.assertEqual(c.call("SET", "k", "v"), "OK")  # not QUEUED
        self.assertEqual(c.call("SELECT", "0"), "OK")
        self.assertEqual(c.call("GET", "k"), b"v")
        self.assertEqual(c.call("CLIENT", "GETNAME"), None)
        self.assertRawReply(b"$-1\r\n", "GET", "nokey", client=c)
        info = parse_client_line(c.call("CLIENT", "INFO").decode().rstrip("\n"))
        self.assertEqual(info["db"], "0")
        self.assertEqual(info["resp"], "2")
        self.assertErr("ERR wrong number of arguments for 'reset' command", "RESET", "x", client=c)

    def test_reset_unwatches(self):
        c = self.raw_client()
        other = self.raw_client()
        self.assertEqual(c.call("SET", "w", "1"), "OK")
        self.assertEqual(c.call("WATCH", "w"), "OK")
        self.assertEqual(other.call("SET", "w", "2"), "OK")
        self.assertEqual(c.call("RESET"), "RESET")
        self.assertEqual(c.call("MULTI"), "OK")
        self.assertEqual(c.call("SET", "w", "3"), "QUEUED")
        self.assertEqual(c.call("EXEC"), ["OK"])


class ClientTest(ServerTestCase):
    def client_fields(self, c):
        return parse_client_line(c.call("CLIENT", "INFO").decode().rstrip("\n"))

    def test_client_id(self):
        a = self.raw_client()
        ida = a.call("CLIENT", "ID")
        b = self.raw_client()  # connected after a was served
        idb = b.call("CLIENT", "ID")
        self.assertIsInstance(ida, int)
        self.assertGreater(ida, 0)
        self.assertGreater(idb, ida)  # ids increase with each new connection
        self.assertEqual(a.call("CLIENT", "ID"), ida)
        self.assertErr("ERR wrong number of arguments for 'client|id' command", "CLIENT", "ID", "x")

    def test_setname_getname(self):
        self.assertReply(None, "CLIENT", "GETNAME")
        self.assertReply("OK", "CLIENT", "SETNAME", "a-b_c:1")
        self.assertReply(b"a-b_c:1", "CLIENT", "GETNAME")
        self.assertErr("ERR Client names cannot contain spaces, newlines or special characters.",
                       "CLIENT", "SETNAME", "a b")
        self.assertErr("ERR Client names cannot contain spaces, newlines or special characters.",
                       "CLIENT", "SETNAME", "a\nb")
        self.assertReply(b"a-b_c:1", "CLIENT", "GETNAME")
        # An empty name clears it.
        self.assertReply("OK", "CLIENT", "SETNAME", "")
        self.assertReply(None, "CLIENT", "GETNAME")
        self.assertErr("ERR wrong number of arguments for 'client|setname' command",
                       "CLIENT", "SETNAME")
        self.assertErr("ERR wrong number of arguments for 'client|getname' command",
                       "CLIENT", "GETNAME", "x")

    def test_client_info(self):
        c = self.raw_client()
        cid = c.call("CLIENT", "ID")
        c.call("CLIENT", "SETNAME", "infoname")
        c.call("SELECT", "4")
        raw = c.call("CLIENT", "INFO")
        self.assertIsInstance(raw, bytes)
        self.assertTrue(raw.endswith(b"\n"))
        self.assertEqual(raw.count(b"\n"), 1)
        f = parse_client_line(raw.decode().rstrip("\n"))
        self.assertEqual(list(f)[:2], ["id", "addr"])
        self.assertEqual(f["id"], str(cid))
        self.assertEqual(f["name"], "infoname")
        self.assertEqual(f["db"], "4")
        self.assertEqual(f["cmd"], "client|info")
        self.assertEqual(f["resp"], "2")
        host, _, port = f["addr"].rpartition(":")
        self.assertEqual(host, "127.0.0.1")
        self.assertEqual(int(port), c.sock.getsockname()[1])
        self.assertEqual(f["laddr"], "127.0.0.1:%d" % self.port)
        for field in ("fd", "age", "idle", "flags", "multi", "user"):
            self.assertIn(field, f)

    def test_client_list(self):
        a, b = self.raw_client(), self.raw_client()
        a.call("CLIENT", "SETNAME", "alpha")
        b.call("CLIENT", "SETNAME", "beta")
        ida, idb = a.call("CLIENT", "ID"), b.call("CLIENT", "ID")
        raw = a.call("CLIENT", "LIST")
        self.assertIsInstance(raw, bytes)
        self.assertTrue(raw.endswith(b"\n"))
        lines = [parse_client_line(l) for l in raw.decode().split("\n") if l]
        by_id = {int(l["id"]): l for l in lines}
        self.assertEqual(by_id[ida]["name"], "alpha")
        self.assertEqual(by_id[idb]["name"], "beta")
        self.assertEqual(by_id[ida]["cmd"], "client|list")
        self.assertEqual(by_id[idb]["cmd"], "client|id")  # the last command it ran
        # Filters.
        only_b = a.call("CLIENT", "LIST", "ID", str(idb))
        self.assertEqual([parse_client_line(l)["id"] for l in only_b.decode().split("\n") if l],
                         [str(idb)])
        self.assertReply(b"", "CLIENT", "LIST", "ID", "999999")
        self.assertErr("ERR Invalid client ID", "CLIENT", "LIST", "ID", "abc")
        self.assertErr("ERR Unknown client type 'foo'", "CLIENT", "LIST", "TYPE", "foo")
        self.assertErr("ERR syntax error", "CLIENT", "LIST", "FOO")
        normal = a.call("CLIENT", "LIST", "TYPE", "normal")
        self.assertIn(str(idb), [parse_client_line(l)["id"] for l in normal.decode().split("\n") if l])

    def test_kill_by_id(self):
        victim = self.raw_client()
        vid = victim.call("CLIENT", "ID")
        self.assertReply(1, "CLIENT", "KILL", "ID", str(vid))
        self.assertEqual(victim.wait_closed(), b"")
        self.assertReply(0, "CLIENT", "KILL", "ID", str(vid))  # already gone
        self.assertReply(0, "CLIENT", "KILL", "ID", "999999")
        self.assertErr("ERR client-id should be greater than 0", "CLIENT", "KILL", "ID", "0")
        self.assertErr("ERR client-id should be greater than 0", "CLIENT", "KILL", "ID", "abc")
        self.assertReply("PONG", "PING")  # the killer is fine

    def test_kill_self_skipme(self):
        c = self.raw_client()
        cid = c.call("CLIENT", "ID")
        # SKIPME defaults to yes in the filter form.
        self.assertEqual(c.call("CLIENT", "KILL", "ID", str(cid)), 0)
        self.assertEqual(c.call("CLIENT", "KILL", "ID", str(cid), "SKIPME", "yes"), 0)
        c.send(encode_command("CLIENT", "KILL", "ID", str(cid), "SKIPME", "no"))
        self.assertEqual(c.read_reply(), 1)
        c.wait_closed()

    def test_kill_by_addr(self):
        victim = self.raw_client()
        addr = self.client_fields(victim)["addr"]
        self.assertReply(1, "CLIENT", "KILL", "ADDR", addr)
        victim.wait_closed()
        self.assertReply(0, "CLIENT", "KILL", "ADDR", addr)
        self.assertReply(0, "CLIENT", "KILL", "ADDR", "1.2.3.4:5")

    def test_kill_old_form(self):
        victim = self.raw_client()
        addr = self.client_fields(victim)["addr"]
        # CLIENT KILL ip:port (the old form) replies +OK, or an error when nothing matched.
        self.assertReply("OK", "CLIENT", "KILL", addr)
        victim.wait_closed()
        self.assertErr("ERR No such client", "CLIENT", "KILL", addr)
        self.assertErr("ERR No such client", "CLIENT", "KILL", "1.2.3.4:5")

    def test_kill_errors(self):
        self.assertErr("ERR wrong number of arguments for 'client|kill' command", "CLIENT", "KILL")
        self.assertErr("ERR syntax error", "CLIENT", "KILL", "FOO", "bar")
        self.assertErr("ERR syntax error", "CLIENT", "KILL", "SKIPME", "maybe")

    def test_reply_off_on(self):
        c = self.raw_client()
        c.send(encode_command("CLIENT", "REPLY", "OFF") + encode_command("SET", "x", "1") +
               encode_command("GET", "x") + encode_command("NOSUCHCMD") +
               encode_command("CLIENT", "REPLY", "ON"))
        self.assertEqual(c.read_reply(), "OK")  # only the reply of CLIENT REPLY ON
        self.assertEqual(c.call("GET", "x"), b"1")  # the SET ran

    def test_reset_replies_after_reply_off(self):
        c = self.raw_client()
        c.send(encode_command("CLIENT", "REPLY", "OFF") + encode_command("RESET") +
               encode_command("PING"))
        self.assertEqual(c.read_reply(), "RESET")  # RESET turns replies back on, itself included
        self.assertEqual(c.read_reply(), "PONG")

    def test_reply_skip(self):
        c = self.raw_client()
        c.send(encode_command("CLIENT", "REPLY", "SKIP") + encode_command("SET", "y", "2") +
               encode_command("GET", "y"))
        self.assertEqual(c.read_reply(), b"2")
        self.assertEqual(c.call("PING"), "PONG")  # nothing else was pending

    def test_reply_errors(self):
        self.assertErr("ERR syntax error", "CLIENT", "REPLY", "FOO")
        self.assertErr("ERR wrong number of arguments for 'client|reply' command", "CLIENT", "REPLY")
        self.assertReply("OK", "CLIENT", "REPLY", "ON")

    def test_client_unknown_subcommand(self):
        self.assertErr("ERR unknown subcommand 'FOO'. Try CLIENT HELP.", "CLIENT", "FOO")
        self.assertErr("ERR wrong number of arguments for 'client' command", "CLIENT")

    def test_client_help(self):
        # Redis 7.0.15's text, line for line (it lists neither SETINFO nor NO-TOUCH, from 7.2).
        self.assertReply([
            "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "CACHING (YES|NO)",
            "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
            "GETREDIR",
            "    Return the client ID we are redirecting to when tracking is enabled.",
            "GETNAME",
            "    Return the name of the current connection.",
            "ID",
            "    Return the ID of the current connection.",
            "INFO",
            "    Return information about the current client connection.",
            "KILL <ip:port>",
            "    Kill connection made from <ip:port>.",
            "KILL <option> <value> [<option> <value> [...]]",
            "    Kill connections. Options are:",
            "    * ADDR (<ip:port>|<unixsocket>:0)",
            "      Kill connections made from the specified address",
            "    * LADDR (<ip:port>|<unixsocket>:0)",
            "      Kill connections made to specified local address",
            "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
            "      Kill connections by type.",
            "    * USER <username>",
            "      Kill connections authenticated by <username>.",
            "    * SKIPME (YES|NO)",
            "      Skip killing current connection (default: yes).",
            "LIST [options ...]",
            "    Return information about client connections. Options:",
            "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
            "      Return clients of specified type.",
            "UNPAUSE",
            "    Stop the current client pause, resuming traffic.",
            "PAUSE <timeout> [WRITE|ALL]",
            "    Suspend all, or just write, clients for <timeout> milliseconds.",
            "REPLY (ON|OFF|SKIP)",
            "    Control the replies sent to the current connection.",
            "SETNAME <name>",
            "    Assign the name <name> to the current connection.",
            "UNBLOCK <clientid> [TIMEOUT|ERROR]",
            "    Unblock the specified blocked client.",
            "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
            "         [OPTIN] [OPTOUT] [NOLOOP]",
            "    Control server assisted client side caching.",
            "TRACKINGINFO",
            "    Report tracking status for the current connection.",
            "NO-EVICT (ON|OFF)",
            "    Protect current client connection from eviction.",
            "HELP",
            "    Prints this help.",
        ], "CLIENT", "HELP")



def client_fields(line):
    return dict(part.split("=", 1) for part in line.split())


class ClientListBuffersTest(ServerTestCase):
    """CLIENT LIST's buffer fields follow the real buffers (the numbers both servers agree on)."""

    def own_line(self, client):
        return client_fields(client.call("CLIENT", "INFO").decode())

    def test_running_command_and_query_buffer(self):
        fields = self.own_line(self.raw)
        # CLIENT INFO's own request is in the buffer while it runs: 26 bytes, arguments 6 + 4.
        self.assertEqual(fields["qbuf"], "26")
        self.assertEqual(fields["argv-mem"], "10")
        self.assertGreater(int(fields["qbuf-free"]), 0)
        self.assertEqual(fields["rbs"], "16384")
        self.assertEqual(fields["events"], "r")

    def test_multi_mem_counts_queued_arguments(self):
        other = self.raw_client()
        mine = other.call("CLIENT", "ID")
        self.assertEqual(other.call("MULTI"), "OK")
        other.call("SET", "a", "b")
        other.call("SET", "abc", "defgh")
        line = self.raw.call("CLIENT", "LIST", "ID", str(mine)).decode()
        fields = client_fields(line)
        self.assertEqual(fields["multi"], "2")
        self.assertEqual(fields["multi-mem"], "64")  # 16 argument bytes and 6 pointers
        other.call("DISCARD")
        fields = client_fields(self.raw.call("CLIENT", "LIST", "ID", str(mine)).decode())
        self.assertEqual(fields["multi-mem"], "0")

    def test_unread_replies_fill_the_reply_list(self):
        self.raw.call("SET", "big", "x" * 1_000_000)
        reader = self.raw_client()
        reader_id = reader.call("CLIENT", "ID")
        for _ in range(20):
            reader.send_command("GET", "big")  # and never read

        def pending():
            fields = client_fields(
                self.raw.call("CLIENT", "LIST", "ID", str(reader_id)).decode())
            return int(fields["omem"]), int(fields["oll"]), fields["events"]

        self.assertTrue(wait_until(lambda: pending()[0] > 1_000_000, 10), pending())
        omem, oll, events = pending()
        self.assertGreater(oll, 0)
        self.assertEqual(events, "rw")


if __name__ == "__main__":
    unittest.main()
