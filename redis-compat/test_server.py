"""Server commands: INFO CONFIG DBSIZE FLUSHDB FLUSHALL COMMAND TIME DEBUG MEMORY, and the generic
unknown-command and arity errors."""

import re
import time
import unittest

from harness import IS_ORDIS, ServerTestCase, info, wait_until

SYNTAX = "ERR syntax error"


def parse_info(text):
    """INFO text -> ({section: {field: value}}, [section names in order])."""
    sections, order, current = {}, [], None
    for line in text.split("\r\n"):
        if not line:
            continue
        if line.startswith("# "):
            current = line[2:].lower()
            order.append(current)
            sections[current] = {}
            continue
        assert current is not None, "INFO field before any section header: %r" % line
        k, sep, v = line.partition(":")
        assert sep, "INFO line without a colon: %r" % line
        sections[current][k] = v
    return sections, order


class InfoTest(ServerTestCase):
    def info(self, *args):
        raw = self.raw.call("INFO", *args)
        self.assertIsInstance(raw, bytes)  # a bulk string in RESP2
        text = raw.decode()
        self.assertTrue(text == "" or text.endswith("\r\n"), text[-20:])
        return parse_info(text)

    def test_default_sections(self):
        sections, order = self.info()
        for s in ("server", "clients", "memory", "stats", "keyspace"):
            self.assertIn(s, sections)
        self.assertNotIn("commandstats", sections)  # not part of the default set
        self.assertEqual(order[0], "server")
        self.assertIn("redis_version", sections["server"])
        self.assertIn("tcp_port", sections["server"])
        self.assertEqual(sections["server"]["tcp_port"], str(self.port))
        self.assertIn("connected_clients", sections["clients"])
        self.assertIn("used_memory", sections["memory"])
        self.assertRegex(sections["memory"]["used_memory"], r"^\d+$")
        for f in ("total_connections_received", "total_commands_processed", "expired_keys",
                  "keyspace_hits", "keyspace_misses"):
            self.assertRegex(sections["stats"].get(f, ""), r"^\d+$", f)
        if not IS_ORDIS:
            self.assertEqual(sections["server"]["redis_version"], "7.0.15")

    def test_single_sections(self):
        for name in ("server", "clients", "memory", "stats", "keyspace", "commandstats"):
            sections, order = self.info(name)
            self.assertEqual(order, [name])
        sections, order = self.info("server", "clients")
        self.assertEqual(order, ["server", "clients"])
        sections, order = self.info("SERVER")
        self.assertEqual(order, ["server"])
        self.assertReply(b"", "INFO", "nosuchsection")

    def test_all_and_everything(self):
        for arg in ("all", "everything"):
            sections, _ = self.info(arg)
            for s in ("server", "clients", "memory", "stats", "keyspace", "commandstats"):
                self.assertIn(s, sections, arg)

    def connected_clients(self):
        return int(self.info("clients")[0]["clients"]["connected_clients"])

    def test_connected_clients(self):
        # Connections of earlier tests close asynchronously: wait until only self.raw is left.
        self.assertEqual(wait_until(lambda: self.connected_clients() == 1, 5.0), True)
        extra = [self.raw_client() for _ in range(3)]
        for c in extra:
            self.assertEqual(c.call("PING"), "PONG")
        self.assertEqual(self.connected_clients(), 4)
        for c in extra:
            c.close()
        self.assertEqual(wait_until(lambda: self.connected_clients() == 1, 5.0), True)

    def test_keyspace_lines(self):
        self.assertEqual(self.info("keyspace")[0]["keyspace"], {})  # empty server: no db lines
        self.assertReply("OK", "MSET", "a", "1", "b", "2")
        self.assertReply("OK", "SET", "c", "3", "EX", "100")
        self.assertReply("OK", "SELECT", "2")
        self.assertReply("OK", "SET", "z", "1")
        self.assertReply("OK", "SELECT", "0")
        ks = self.info("keyspace")[0]["keyspace"]
        self.assertEqual(sorted(ks), ["db0", "db2"])
        for db, (keys, expires) in {"db0": (3, 1), "db2": (1, 0)}.items():
            m = re.fullmatch(r"keys=(\d+),expires=(\d+),avg_ttl=(\d+)", ks[db])
            self.assertIsNotNone(m, ks[db])
            self.assertEqual((int(m.group(1)), int(m.group(2))), (keys, expires))

    def test_keyspace_wire_format(self):
        self.assertReply("OK", "SET", "a", "1")
        raw = self.raw.call("INFO", "keyspace")
        self.assertRegex(raw, rb"^# Keyspace\r\ndb0:keys=1,expires=0,avg_ttl=\d+\r\n$")

    def test_commandstats(self):
        self.assertReply("OK", "CONFIG", "RESETSTAT")
        self.assertReply("OK", "SET", "a", "1")
        self.assertReply("OK", "SET", "a", "2")
        self.assertReply(b"2", "GET", "a")
        stats = self.info("commandstats")[0]["commandstats"]
        self.assertIn("cmdstat_set", stats)
        self.assertIn("cmdstat_get", stats)
        m = re.match(r"calls=(\d+),usec=(\d+),usec_per_call=([\d.]+)", stats["cmdstat_set"])
        self.assertIsNotNone(m, stats["cmdstat_set"])
        self.assertEqual(int(m.group(1)), 2)
        self.assertTrue(stats["cmdstat_get"].startswith("calls=1,"), stats["cmdstat_get"])

    def test_keyspace_hits_misses_and_resetstat(self):
        self.assertReply("OK", "CONFIG", "RESETSTAT")
        self.assertReply("OK", "SET", "a", "1")
        self.assertReply(b"1", "GET", "a")
        self.assertReply(None, "GET", "nokey")
        self.assertReply(None, "GET", "nokey2")
        stats = self.info("stats")[0]["stats"]
        self.assertEqual((stats["keyspace_hits"], stats["keyspace_misses"]), ("1", "2"))
        self.assertReply("OK", "CONFIG", "RESETSTAT")
        stats = self.info("stats")[0]["stats"]
        self.assertEqual((stats["keyspace_hits"], stats["keyspace_misses"]), ("0", "0"))
        self.assertNotIn("cmdstat_get", self.info("commandstats")[0]["commandstats"])


class ConfigTest(ServerTestCase):
    def config_get(self, *patterns):
        reply = self.raw.call("CONFIG", "GET", *patterns)
        self.assertIsInstance(reply, list)
        self.assertEqual(len(reply) % 2, 0)
        return dict(zip(reply[0::2], reply[1::2]))

    def test_get_single(self):
        self.assertReply([b"maxmemory", b"0"], "CONFIG", "GET", "maxmemory")
        self.assertEqual(self.config_get("save"), {b"save": b""})  # started with --save ''
        self.assertEqual(self.config_get("appendonly"), {b"appendonly": b"no"})
        self.assertEqual(self.config_get("databases"), {b"databases": b"16"})
        self.assertEqual(self.config_get("port"), {b"port": str(self.port).encode()})
        self.assertReply([], "CONFIG", "GET", "nosuchparam")

    def test_get_glob(self):
        got = self.config_get("maxmemory*")
        self.assertIn(b"maxmemory", got)
        self.assertIn(b"maxmemory-policy", got)
        for name in got:
            self.assertTrue(name.startswith(b"maxmemory"), name)
        self.assertEqual(got[b"maxmemory-policy"], b"noeviction")
        if not IS_ORDIS:
            # ordis has fewer parameters; the glob only has to cover the ones it has.
            self.assertEqual(set(got), {b"maxmemory", b"maxmemory-policy", b"maxmemory-samples",
                                        b"maxmemory-eviction-tenacity", b"maxmemory-clients"})
        all_params = self.config_get("*")
        self.assertIn(b"maxmemory", all_params)
        self.assertIn(b"port", all_params)
        self.assertEqual(self.config_get("?ort"), {b"port": str(self.port).encode()})

    def test_get_case_insensitive(self):
        got = self.config_get("MAXMEMORY")
        self.assertEqual([v for v in got.values()], [b"0"])
        self.assertEqual([k.lower() for k in got], [b"maxmemory"])

    def test_get_multiple(self):
        self.assertEqual(self.config_get("maxmemory", "timeout"), {b"maxmemory": b"0", b"timeout": b"0"})
        got = self.config_get("maxmemory", "maxmemory*")  # overlapping patterns: reported once
        self.assertEqual(list(got).count(b"maxmemory"), 1)
        reply = self.raw.call("CONFIG", "GET", "maxmemory", "maxmemory")
        self.assertEqual(reply, [b"maxmemory", b"0"])

    def test_set_and_get(self):
        try:
            self.assertReply("OK", "CONFIG", "SET", "maxmemory", "10mb")
            self.assertEqual(self.config_get("maxmemory"), {b"maxmemory": b"10485760"})
            self.assertReply("OK", "CONFIG", "SET", "maxmemory", "1gb")
            self.assertEqual(self.config_get("maxmemory"), {b"maxmemory": b"1073741824"})
            self.assertReply("OK", "CONFIG", "SET", "maxmemory", "12345")
            self.assertEqual(self.config_get("maxmemory"), {b"maxmemory": b"12345"})
            self.assertReply("OK", "CONFIG", "SET", "MAXMEMORY-POLICY", "allkeys-lru")
            self.assertEqual(self.config_get("maxmemory-policy"),
                             {b"maxmemory-policy": b"allkeys-lru"})
        finally:
            self.assertReply("OK", "CONFIG", "SET", "maxmemory", "0")
            self.assertReply("OK", "CONFIG", "SET", "maxmemory-policy", "noeviction")

    def test_set_multiple(self):
        try:
            self.assertReply("OK", "CONFIG", "SET", "maxmemory", "1mb", "timeout", "100")
            self.assertEqual(self.config_get("maxmemory", "timeout"),
                             {b"maxmemory": b"1048576", b"timeout": b"100"})
            # All or nothing: a bad value leaves the other parameter alone.
            self.assertErrPrefix("ERR CONFIG SET failed", "CONFIG", "SET", "maxmemory", "2mb",
                                 "timeout", "-1")
            self.assertEqual(self.config_get("maxmemory"), {b"maxmemory": b"1048576"})
        finally:
            self.assertReply("OK", "CONFIG", "SET", "maxmemory", "0", "timeout", "0")

    def test_set_errors(self):
        self.assertErr("ERR Unknown option or number of arguments for CONFIG SET - 'foo'",
                       "CONFIG", "SET", "foo", "bar")
        self.assertErr(SYNTAX, "CONFIG", "SET", "maxmemory", "1", "timeout")
        self.assertErr("ERR wrong number of arguments for 'config|set' command", "CONFIG", "SET", "foo")
        self.assertErr("ERR wrong number of arguments for 'config|get' command", "CONFIG", "GET")
        self.assertErr("ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument "
                       "must be a memory value", "CONFIG", "SET", "maxmemory", "abc")
        self.assertErr("ERR CONFIG SET failed (possibly related to argument 'timeout') - argument must "
                       "be between 0 and 2147483647 inclusive", "CONFIG", "SET", "timeout", "-1")
        self.assertErr("ERR CONFIG SET failed (possibly related to argument 'maxmemory') - duplicate "
                       "parameter", "CONFIG", "SET", "maxmemory", "0", "maxmemory", "1")
        self.assertErr("ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - "
                       "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                       "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, "
                       "noeviction", "CONFIG", "SET", "maxmemory-policy", "bogus")
        self.assertErr("ERR unknown subcommand 'FOO'. Try CONFIG HELP.", "CONFIG", "FOO")
        self.assertErr("ERR wrong number of arguments for 'config' command", "CONFIG")
        self.assertEqual(self.config_get("maxmemory"), {b"maxmemory": b"0"})

    def test_resetstat(self):
        self.assertReply("OK", "CONFIG", "RESETSTAT")
        self.assertErr("ERR wrong number of arguments for 'config|resetstat' command",
                       "CONFIG", "RESETSTAT", "x")

    def test_redis_py(self):
        self.assertEqual(self.r.config_get("maxmemory"), {"maxmemory": "0"})


class KeyspaceAdminTest(ServerTestCase):
    def fill(self, db, n):
        self.assertReply("OK", "SELECT", str(db))
        args = []
        for i in range(n):
            args += ["k%d" % i, "v"]
        self.assertReply("OK", "MSET", *args)

    def test_dbsize(self):
        self.assertReply(0, "DBSIZE")
        self.fill(0, 10)
        self.assertReply(10, "DBSIZE")
        self.fill(3, 4)
        self.assertReply(4, "DBSIZE")
        self.assertReply("OK", "SELECT", "0")
        self.assertReply(10, "DBSIZE")
        self.assertErr("ERR wrong number of arguments for 'dbsize' command", "DBSIZE", "x")

    def test_flushdb(self):
        self.fill(1, 5)
        self.fill(0, 5)
        self.assertReply("OK", "FLUSHDB")
        self.assertReply(0, "DBSIZE")
        self.assertReply("OK", "SELECT", "1")
        self.assertReply(5, "DBSIZE")  # other dbs untouched
        for mode in ("ASYNC", "SYNC", "async"):
            self.fill(1, 5)
            self.assertReply("OK", "FLUSHDB", mode)
            self.assertReply(0, "DBSIZE")
        self.assertErr(SYNTAX, "FLUSHDB", "FOO")

    def test_flushall(self):
        for mode in ([], ["SYNC"], ["ASYNC"]):
            self.fill(0, 5)
            self.fill(7, 5)
            self.assertReply("OK", "FLUSHALL", *mode)
            self.assertReply(0, "DBSIZE")
            self.assertReply("OK", "SELECT", "0")
            self.assertReply(0, "DBSIZE")
            self.assertReply(None, "GET", "k1")
        self.assertErr(SYNTAX, "FLUSHALL", "FOO")
        self.assertErr(SYNTAX, "FLUSHALL", "SYNC", "ASYNC")

    def test_flushall_from_other_client_seen_immediately(self):
        self.fill(0, 100)
        other = self.raw_client()
        self.assertEqual(other.call("FLUSHALL", "ASYNC"), "OK")
        self.assertReply(0, "DBSIZE")
        self.assertReply(None, "GET", "k5")


class CommandTest(ServerTestCase):
    GET_INFO = [b"get", 2, ["readonly", "fast"], 1, 1, 1, ["@read", "@string", "@fast"], [],
                [[b"flags", ["RO", "access"],
                  b"begin_search", [b"type", b"index", b"spec", [b"index", 1]],
                  b"find_keys", [b"type", b"range", b"spec", [b"lastkey", 0, b"keystep", 1,
                                                              b"limit", 0]]]],
                []]

    def test_count(self):
        n = self.raw.call("COMMAND", "COUNT")
        self.assertIsInstance(n, int)
        self.assertGreater(n, 0)
        if not IS_ORDIS:
            self.assertEqual(n, 240)

    def test_info_get(self):
        # Redis 7 layout: name, arity, flags, first key, last key, step, ACL categories, tips,
        # key specs, subcommands. GET has arity 2 (exactly two words); SET has -3 (at least three).
        reply = self.raw.call("COMMAND", "INFO", "get")
        self.assertEqual(reply, [self.GET_INFO])
        info_set = self.raw.call("COMMAND", "INFO", "SET")[0]
        self.assertEqual(info_set[:7], [b"set", -3, ["write", "denyoom"], 1, 1, 1,
                                        ["@write", "@string", "@slow"]])
        info_mset = self.raw.call("COMMAND", "INFO", "mset")[0]
        self.assertEqual(info_mset[:6], [b"mset", -3, ["write", "denyoom"], 1, -1, 2])

    def test_info_unknown(self):
        self.assertReply([None], "COMMAND", "INFO", "nosuch")
        self.assertReply([self.GET_INFO, None], "COMMAND", "INFO", "get", "nosuch")

    def test_list(self):
        names = self.raw.call("COMMAND", "LIST")
        self.assertIsInstance(names, list)
        for n in (b"get", b"set", b"incr", b"multi", b"exec", b"scan", b"config"):
            self.assertIn(n, names)
        self.assertEqual(len(names), len(set(names)))
        pattern = self.raw.call("COMMAND", "LIST", "FILTERBY", "PATTERN", "ge*")
        self.assertIn(b"get", pattern)
        self.assertIn(b"getrange", pattern)
        self.assertNotIn(b"set", pattern)

    def test_getkeys(self):
        self.assertReply([b"a"], "COMMAND", "GETKEYS", "set", "a", "b")
        self.assertReply([b"a", b"c"], "COMMAND", "GETKEYS", "mset", "a", "b", "c", "d")

    def test_redis_py(self):
        self.assertGreater(self.r.command_count(), 0)


class MiscServerTest(ServerTestCase):
    def test_time(self):
        reply = self.raw.call("TIME")
        self.assertIsInstance(reply, list)
        self.assertEqual(len(reply), 2)
        sec, usec = reply
        self.assertIsInstance(sec, bytes)
        self.assertIsInstance(usec, bytes)
        self.assertLess(abs(int(sec) - time.time()), 5)
        self.assertTrue(0 <= int(usec) < 1000000)
        self.assertErr("ERR wrong number of arguments for 'time' command", "TIME", "x")

    def test_memory_usage(self):
        self.assertReply("OK", "SET", "a", "1")
        usage = self.raw.call("MEMORY", "USAGE", "a")
        self.assertIsInstance(usage, int)
        self.assertGreater(usage, 0)
        self.assertReply("OK", "SET", "big", "x" * 10000)
        self.assertGreaterEqual(self.raw.call("MEMORY", "USAGE", "big"), 10000)
        self.assertReply(None, "MEMORY", "USAGE", "nokey")
        self.assertIsInstance(self.raw.call("MEMORY", "USAGE", "a", "SAMPLES", "5"), int)
        self.assertErr(SYNTAX, "MEMORY", "USAGE", "a", "FOO")

    def test_debug_disabled_by_default(self):
        # Redis 7 refuses DEBUG unless enable-debug-command is set (see DebugEnabledTest).
        self.assertErr('ERR DEBUG command not allowed. If the enable-debug-command option is set to '
                       '"local", you can run it from a local connection, otherwise you need to set '
                       'this option in the configuration file, and then restart the server.',
                       "DEBUG", "SLEEP", "0")

    def test_unknown_command(self):
        self.assertErr("ERR unknown command 'foo', with args beginning with: 'a' 'b' ", "foo", "a", "b")
        self.assertErr("ERR unknown command 'FOO', with args beginning with: ", "FOO")
        self.assertErr("ERR unknown command 'foo', with args beginning with: '' 'b' ", "foo", "", "b")
        # Each argument is quoted; newlines become spaces; the list stops after 128 characters.
        self.assertErr("ERR unknown command 'foo', with args beginning with: 'a b' ", "foo", "a\nb")
        self.assertErr("ERR unknown command 'foo', with args beginning with: '%s' " % ("a" * 128),
                       "foo", "a" * 140, "b")
        self.assertReply("PONG", "PING")  # the connection stays usable

    def test_wrong_arity(self):
        self.assertErr("ERR wrong number of arguments for 'get' command", "GET")
        self.assertErr("ERR wrong number of arguments for 'get' command", "GET", "a", "b")
        self.assertErr("ERR wrong number of arguments for 'get' command", "gEt", "a", "b")
        self.assertErr("ERR wrong number of arguments for 'incr' command", "INCR")
        self.assertErr("ERR wrong number of arguments for 'mget' command", "MGET")


class DebugEnabledTest(ServerTestCase):
    server_args = ["--enable-debug-command", "yes"]

    def test_debug_sleep_0(self):
        self.assertReply("OK", "DEBUG", "SLEEP", "0")
        self.assertReply("PONG", "PING")


class WaitTest(ServerTestCase):
    """WAIT with no replica connected: none ever acknowledges."""

    def test_no_replicas_asked_replies_at_once(self):
        self.assertReply(0, "WAIT", "0", "0")
        self.assertReply(0, "WAIT", "-1", "0")
        self.assertErr("ERR value is not an integer or out of range", "WAIT", "x", "0")
        self.assertErr("ERR timeout is not an integer or out of range", "WAIT", "1", "x")
        self.assertErr("ERR timeout is negative", "WAIT", "1", "-5")

    def test_waits_out_its_timeout(self):
        start = time.monotonic()
        self.assertReply(0, "WAIT", "1", "150")
        self.assertGreaterEqual(time.monotonic() - start, 0.14)

    def test_forever_until_client_unblock(self):
        waiter = self.raw_client()
        waiter_id = waiter.call("CLIENT", "ID")
        waiter.send_command("WAIT", "2", "0")
        wait_until(lambda: info(self.raw, "clients")["blocked_clients"] == "1", 5)
        self.assertReply(1, "CLIENT", "UNBLOCK", str(waiter_id))
        self.assertEqual(waiter.read_reply(), 0)
        self.assertReply(b"PONG", "ECHO", "PONG")

    def test_in_multi_does_not_block(self):
        self.assertReply("OK", "MULTI")
        self.raw.call("WAIT", "1", "0")
        self.assertReply([0], "EXEC")



class RoleTest(ServerTestCase):
    def test_role_of_a_master_without_replicas(self):
        self.assertReply([b"master", 0, []], "ROLE")
        self.assertEqual(self.r.role(), [b"master", 0, []])

    def test_cluster_only_commands_refused(self):
        for command in ("READONLY", "READWRITE", "ASKING"):
            self.assertErr("ERR This instance has cluster support disabled", command)


if __name__ == "__main__":
    unittest.main()
