"""Keyspace commands: DEL UNLINK EXISTS TYPE RENAME RENAMENX KEYS SCAN RANDOMKEY, the EXPIRE family, TTL
PTTL EXPIRETIME PEXPIRETIME PERSIST TOUCH COPY MOVE SWAPDB OBJECT, WRONGTYPE."""

import time
import unittest

from harness import IS_ORDIS, ServerTestCase

NOT_INT = "ERR value is not an integer or out of range"
SYNTAX = "ERR syntax error"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
DB_RANGE = "ERR DB index is out of range"
SAME_OBJECT = "ERR source and destination objects are the same"


class DelExistsTypeTest(ServerTestCase):
    def test_del(self):
        self.assertReply("OK", "MSET", "a", "1", "b", "2")
        self.assertReply(2, "DEL", "a", "b", "c")
        self.assertReply(0, "DEL", "a")
        self.assertReply("OK", "SET", "a", "1")
        self.assertReply(1, "DEL", "a", "a")  # a key counts once
        self.assertErr("ERR wrong number of arguments for 'del' command", "DEL")

    def test_unlink(self):
        self.assertReply("OK", "MSET", "a", "1", "b", "2")
        self.assertReply(2, "UNLINK", "a", "b", "c")
        self.assertReply(0, "EXISTS", "a", "b")

    def test_exists_counts_repeats(self):
        self.assertReply("OK", "MSET", "a", "1", "b", "2")
        self.assertReply(3, "EXISTS", "a", "a", "b", "nokey")
        self.assertReply(0, "EXISTS", "nokey")
        self.assertErr("ERR wrong number of arguments for 'exists' command", "EXISTS")

    def test_type(self):
        self.assertReply("OK", "SET", "s", "x")
        self.assertReply("string", "TYPE", "s")  # a simple string, not bulk
        self.assertReply("none", "TYPE", "nokey")
        self.assertReply("OK", "SET", "i", "12")
        self.assertReply("string", "TYPE", "i")

    def test_type_of_other_kinds(self):
        expected = self.make_wrongtype_key("l")
        self.assertReply(expected, "TYPE", "l")


class RenameTest(ServerTestCase):
    def test_rename(self):
        self.assertReply("OK", "SET", "a", "1")
        self.assertReply("OK", "RENAME", "a", "b")
        self.assertReply(None, "GET", "a")
        self.assertReply(b"1", "GET", "b")
        self.assertReply("OK", "SET", "c", "3")
        self.assertReply("OK", "RENAME", "b", "c")  # overwrites
        self.assertReply(b"1", "GET", "c")
        self.assertReply("OK", "RENAME", "c", "c")  # same name: OK when it exists
        self.assertReply(b"1", "GET", "c")
        self.assertErr("ERR no such key", "RENAME", "nokey", "x")
        self.assertErr("ERR no such key", "RENAME", "nokey", "nokey")

    def test_rename_keeps_ttl(self):
        self.assertReply("OK", "SET", "t", "1", "EX", "100")
        self.assertReply("OK", "RENAME", "t", "t2")
        self.assertReply(100, "TTL", "t2")
        self.assertReply("OK", "SET", "p", "1")
        self.assertReply("OK", "SET", "q", "1", "EX", "100")
        self.assertReply("OK", "RENAME", "p", "q")
        self.assertReply(-1, "TTL", "q")  # the destination's TTL is not kept

    def test_renamenx(self):
        self.assertReply("OK", "MSET", "a", "1", "b", "2")
        self.assertReply(0, "RENAMENX", "a", "b")
        self.assertReply([b"1", b"2"], "MGET", "a", "b")
        self.assertReply(1, "RENAMENX", "a", "c")
        self.assertReply([None, b"1"], "MGET", "a", "c")
        self.assertReply(0, "RENAMENX", "c", "c")
        self.assertErr("ERR no such key", "RENAMENX", "nokey", "x")

    def test_rename_binary(self):
        self.assertReply("OK", "SET", b"\x00k\xff", "v")
        self.assertReply("OK", "RENAME", b"\x00k\xff", b"\x00k\xff\x00")
        self.assertReply(b"v", "GET", b"\x00k\xff\x00")
        self.assertReply(0, "EXISTS", b"\x00k\xff")


class KeysTest(ServerTestCase):
    KEYS = [b"hello", b"hallo", b"hxllo", b"hllo", b"heeeello", b"hbllo", b"h*llo", b"h?llo",
            b"h[llo", b"h]llo", b"h\\llo", b"a", b"b", b"c", b"d", b"a\x00b", b"ab"]

    def keys(self, pattern):
        reply = self.raw.call("KEYS", pattern)
        self.assertIsInstance(reply, list)
        return sorted(reply)  # KEYS order is unspecified (hash order in Redis, key order in ordis)

    def setUp(self):
        super().setUp()
        args = []
        for k in self.KEYS:
            args += [k, b"1"]
        self.assertReply("OK", "MSET", *args)

    def test_star_question(self):
        self.assertEqual(self.keys("*"), sorted(self.KEYS))
        self.assertEqual(self.keys("h?llo"),
                         sorted([b"hello", b"hallo", b"hxllo", b"hbllo", b"h*llo", b"h?llo", b"h[llo",
                                 b"h]llo", b"h\\llo"]))
        self.assertEqual(self.keys("h*llo"), sorted(
            [k for k in self.KEYS if k.startswith(b"h") and k.endswith(b"llo")]))
        self.assertEqual(self.keys("a?b"), [b"a\x00b"])  # ? matches a zero byte
        self.assertEqual(self.keys("a*"), sorted([b"a", b"a\x00b", b"ab"]))
        self.assertEqual(self.keys("nomatch*"), [])
        self.assertEqual(self.keys("hello"), [b"hello"])

    def test_classes(self):
        self.assertEqual(self.keys("h[ae]llo"), [b"hallo", b"hello"])
        self.assertEqual(self.keys("h[a-b]llo"), [b"hallo", b"hbllo"])
        self.assertEqual(self.keys("[a-c]"), [b"a", b"b", b"c"])
        self.assertEqual(self.keys("[c-a]"), [b"a", b"b", b"c"])  # reversed ranges work
        self.assertEqual(self.keys("[^a]"), [b"b", b"c", b"d"])
        self.assertEqual(self.keys("[!a]"), [b"a"])  # "!" is not negation in Redis globs
        self.assertEqual(self.keys("h[^e]llo"), sorted(
            [b"hallo", b"hxllo", b"hbllo", b"h*llo", b"h?llo", b"h[llo", b"h]llo", b"h\\llo"]))

    def test_escapes(self):
        self.assertEqual(self.keys(b"h\\*llo"), [b"h*llo"])
        self.assertEqual(self.keys(b"h\\?llo"), [b"h?llo"])
        self.assertEqual(self.keys(b"h\\[llo"), [b"h[llo"])
        self.assertEqual(self.keys(b"h[\\[]llo"), [b"h[llo"])
        self.assertEqual(self.keys(b"h[\\]]llo"), [b"h]llo"])
        self.assertEqual(self.keys(b"h\\\\llo"), [b"h\\llo"])
        self.assertEqual(self.keys(b"hel\\lo"), [b"hello"])  # escaping a plain char is that char

    def test_malformed_patterns_match_nothing(self):
        self.assertEqual(self.keys(b"h["), [])
        self.assertEqual(self.keys(b"h[a-"), [])
        self.assertEqual(self.keys(b"*\\"), [])

    def test_keys_skips_expired_and_other_dbs(self):
        self.assertReply("OK", "SELECT", "1")
        self.assertReply("OK", "SET", "hello-db1", "1")
        self.assertReply("OK", "SELECT", "0")
        self.assertEqual(self.keys("hello*"), [b"hello"])
        self.assertReply("OK", "SET", "hello-gone", "1", "PX", "1")
        time.sleep(0.01)  # lets the 1 ms TTL lapse; KEYS must then never return the key
        self.assertEqual(self.keys("hello*"), [b"hello"])

    def test_arity(self):
        self.assertErr("ERR wrong number of arguments for 'keys' command", "KEYS")


class ScanTest(ServerTestCase):
    def scan_all(self, *opts, client=None):
        """Full SCAN iteration; returns the list of keys in returned order and the call count."""
        c = client or self.raw
        cursor, out, calls = b"0", [], 0
        while True:
            reply = c.call("SCAN", cursor, *opts)
            self.assertIsInstance(reply, list)
            self.assertEqual(len(reply), 2)
            cursor, keys = reply
            self.assertIsInstance(cursor, bytes)  # the cursor is a bulk string
            self.assertTrue(cursor.isdigit(), cursor)
            out += keys
            calls += 1
            self.assertLess(calls, 100000, "SCAN does not terminate")
            if cursor == b"0":
                return out, calls

    def test_full_iteration_returns_each_key_once(self):
        keys = [b"key:%d" % i for i in range(1000)] + [b"", b"\x00", b"\xff\x00bin"]
        for i in range(0, len(keys), 100):
            chunk = keys[i:i + 100]
            args = []
            for k in chunk:
                args += [k, b"v"]
            self.assertReply("OK", "MSET", *args)
        for count in ([], ["COUNT", "7"], ["COUNT", "1000"]):
            got, calls = self.scan_all(*count)
            self.assertEqual(len(got), len(keys), "a key was returned twice or missed")
            self.assertEqual(set(got), set(keys))
        _, calls = self.scan_all("COUNT", "10")
        self.assertGreater(calls, 1)  # the iteration is really incremental

    def test_empty_db(self):
        self.assertReply([b"0", []], "SCAN", "0")

    def test_match(self):
        for i in range(200):
            self.assertReply("OK", "SET", "user:%d" % i, "x")
            self.assertReply("OK", "SET", "item:%d" % i, "x")
        got, _ = self.scan_all("MATCH", "user:1*", "COUNT", "50")
        self.assertEqual(sorted(got), sorted(b"user:%d" % i for i in range(200)
                                             if str(i).startswith("1")))
        self.assertEqual(len(got), len(set(got)))

    def test_type(self):
        for i in range(50):
            self.assertReply("OK", "SET", "s%d" % i, "x")
        kind = self.make_wrongtype_key("other")
        got, _ = self.scan_all("TYPE", "string", "COUNT", "100")
        self.assertEqual(sorted(got), sorted(b"s%d" % i for i in range(50)))
        got, _ = self.scan_all("TYPE", kind)
        self.assertEqual(got, [b"other"])
        got, _ = self.scan_all("TYPE", "nosuchtype")
        self.assertEqual(got, [])

    def test_other_db_not_seen(self):
        self.assertReply("OK", "SET", "db0", "x")
        c = self.raw_client()
        self.assertEqual(c.call("SELECT", "2"), "OK")
        self.assertEqual(c.call("SET", "db2", "x"), "OK")
        got, _ = self.scan_all(client=c)
        self.assertEqual(got, [b"db2"])

    def test_errors(self):
        self.assertErr("ERR invalid cursor", "SCAN", "abc")
        self.assertErr("ERR invalid cursor", "SCAN", "18446744073709551616")
        self.assertErr(SYNTAX, "SCAN", "0", "COUNT", "0")
        self.assertErr(NOT_INT, "SCAN", "0", "COUNT", "x")
        self.assertErr(SYNTAX, "SCAN", "0", "MATCH")
        self.assertErr(SYNTAX, "SCAN", "0", "FOO", "bar")
        self.assertErr("ERR wrong number of arguments for 'scan' command", "SCAN")

    def test_redis_py_scan_iter(self):
        for i in range(300):
            self.r.set("k%d" % i, i)
        got = list(self.r.scan_iter(count=25))
        self.assertEqual(len(got), 300)
        self.assertEqual(set(got), {b"k%d" % i for i in range(300)})


class RandomKeyTest(ServerTestCase):
    def test_randomkey(self):
        self.assertReply(None, "RANDOMKEY")
        keys = {b"a", b"b", b"c"}
        for k in keys:
            self.assertReply("OK", "SET", k, "1")
        for _ in range(20):
            self.assertIn(self.raw.call("RANDOMKEY"), keys)
        self.assertReply("OK", "SELECT", "9")
        self.assertReply(None, "RANDOMKEY")


class ExpireTest(ServerTestCase):
    def test_expire_ttl(self):
        self.assertReply(0, "EXPIRE", "nokey", "10")
        self.assertReply("OK", "SET", "a", "1")
        self.assertReply(-1, "TTL", "a")
        self.assertReply(-1, "PTTL", "a")
        self.assertReply(-2, "TTL", "nokey")
        self.assertReply(-2, "PTTL", "nokey")
        self.assertReply(1, "EXPIRE", "a", "100")
        self.assertReply(100, "TTL", "a")
        pttl = self.raw.call("PTTL", "a")
        self.assertTrue(99000 < pttl <= 100000, pttl)
        self.assertReply(1, "PEXPIRE", "a", "5000")
        self.assertTrue(4000 < self.raw.call("PTTL", "a") <= 5000)

    def test_expireat_and_expiretime(self):
        self.assertReply("OK", "SET", "c", "1")
        self.assertReply(-1, "EXPIRETIME", "c")
        self.assertReply(-1, "PEXPIRETIME", "c")
        self.assertReply(-2, "EXPIRETIME", "nokey")
        self.assertReply(-2, "PEXPIRETIME", "nokey")
        self.assertReply(1, "EXPIREAT", "c", "4000000000")
        self.assertReply(4000000000, "EXPIRETIME", "c")
        self.assertReply(4000000000000, "PEXPIRETIME", "c")
        self.assertReply(1, "PEXPIREAT", "c", "4000000000123")
        self.assertReply(4000000000123, "PEXPIRETIME", "c")
        self.assertReply(4000000000, "EXPIRETIME", "c")  # rounded down
        self.assertReply(0, "EXPIREAT", "nokey", "4000000000")

    def test_non_positive_and_past_delete(self):
        for cmd in [["EXPIRE", "d", "0"], ["EXPIRE", "d", "-5"], ["PEXPIRE", "d", "0"],
                    ["EXPIREAT", "d", "1"], ["PEXPIREAT", "d", "100"]]:
            self.assertReply("OK", "SET", "d", "1")
            self.assertReply(1, *cmd)
            self.assertReply(0, "EXISTS", "d")
            self.assertReply(None, "GET", "d")

    def test_nx_xx_gt_lt(self):
        self.assertReply("OK", "SET", "a", "1")
        # No TTL yet: XX and GT refuse (no TTL counts as infinite), NX and LT set it.
        self.assertReply(0, "EXPIRE", "a", "100", "XX")
        self.assertReply(0, "EXPIRE", "a", "100", "GT")
        self.assertReply(-1, "TTL", "a")
        self.assertReply(1, "EXPIRE", "a", "100", "NX")
        self.assertReply(0, "EXPIRE", "a", "50", "NX")
        self.assertReply(1, "EXPIRE", "a", "200", "XX")
        self.assertReply(200, "TTL", "a")
        self.assertReply(0, "EXPIRE", "a", "100", "GT")
        self.assertReply(1, "EXPIRE", "a", "300", "GT")
        self.assertReply(0, "EXPIRE", "a", "400", "LT")
        self.assertReply(1, "EXPIRE", "a", "100", "LT")
        self.assertReply(100, "TTL", "a")
        self.assertReply(1, "PERSIST", "a")
        self.assertReply(1, "EXPIRE", "a", "100", "lt")  # case-insensitive
        self.assertReply(100, "TTL", "a")
        self.assertReply(1, "PEXPIRE", "a", "50000", "LT")
        self.assertReply(0, "PEXPIREAT", "a", "1", "GT")
        self.assertReply(1, "EXISTS", "a")

    def test_option_errors(self):
        self.assertReply("OK", "SET", "a", "1")
        self.assertErr("ERR NX and XX, GT or LT options at the same time are not compatible",
                       "EXPIRE", "a", "100", "NX", "XX")
        self.assertErr("ERR NX and XX, GT or LT options at the same time are not compatible",
                       "EXPIRE", "a", "100", "NX", "GT")
        self.assertErr("ERR GT and LT options at the same time are not compatible",
                       "EXPIRE", "a", "100", "GT", "LT")
        self.assertErr("ERR Unsupported option FOO", "EXPIRE", "a", "100", "FOO")
        self.assertErr(NOT_INT, "EXPIRE", "a", "abc")
        self.assertErr(NOT_INT, "EXPIRE", "a", "1.5")
        self.assertErr("ERR wrong number of arguments for 'expire' command", "EXPIRE", "a")
        self.assertReply(-1, "TTL", "a")

    def test_overflowing_expire(self):
        self.assertReply("OK", "SET", "a", "1")
        # Seconds are converted to milliseconds and added to now: overflow is an error, not a wrap.
        for v in ["9223372036854775807", "9223372036854775", "-9223372036854775808"]:
            self.assertErr("ERR invalid expire time in 'expire' command", "EXPIRE", "a", v)
        self.assertErr("ERR invalid expire time in 'pexpire' command",
                       "PEXPIRE", "a", "9223372036854775807")
        self.assertErr("ERR invalid expire time in 'expireat' command",
                       "EXPIREAT", "a", "9223372036854775807")
        self.assertReply(-1, "TTL", "a")
        self.assertReply(1, "EXPIRE", "a", "9223372036854")  # large but representable
        self.assertReply(1, "EXISTS", "a")

    def test_persist(self):
        self.assertReply(0, "PERSIST", "nokey")
        self.assertReply("OK", "SET", "a", "1")
        self.assertReply(0, "PERSIST", "a")
        self.assertReply(1, "EXPIRE", "a", "100")
        self.assertReply(1, "PERSIST", "a")
        self.assertReply(-1, "TTL", "a")
        self.assertReply(-1, "PEXPIRETIME", "a")

    def test_touch(self):
        self.assertReply("OK", "MSET", "a", "1", "b", "2")
        self.assertReply(2, "TOUCH", "a", "b", "nokey")
        self.assertReply(0, "TOUCH", "nokey")

    def test_redis_py(self):
        self.r.set("k", "v")
        self.assertTrue(self.r.expire("k", 100))
        self.assertEqual(self.r.ttl("k"), 100)
        self.assertTrue(self.r.persist("k"))
        self.assertEqual(self.r.ttl("k"), -1)


class CopyMoveSwapTest(ServerTestCase):
    def test_copy(self):
        self.assertReply("OK", "SET", "a", "1", "EX", "100")
        self.assertReply(1, "COPY", "a", "b")
        self.assertReply(b"1", "GET", "b")
        self.assertReply(100, "TTL", "b")  # the TTL is copied
        self.assertReply(0, "COPY", "a", "b")  # destination exists
        self.assertReply("OK", "SET", "a", "2")
        self.assertReply(1, "COPY", "a", "b", "REPLACE")
        self.assertReply(b"2", "GET", "b")
        self.assertReply(-1, "TTL", "b")
        self.assertReply(0, "COPY", "nokey", "b")
        self.assertReply(b"2", "GET", "a")  # the source is untouched

    def test_copy_db(self):
        self.assertReply("OK", "SET", "a", "1")
        self.assertReply(1, "COPY", "a", "b", "DB", "1")
        self.assertReply(1, "COPY", "a", "a", "DB", "1")  # same name, other db: fine
        self.assertReply(0, "COPY", "a", "a", "DB", "1")
        self.assertReply("OK", "SET", "a", "2")
        self.assertReply(1, "COPY", "a", "a", "DB", "1", "REPLACE")
        self.assertReply("OK", "SELECT", "1")
        self.assertReply([b"2", b"1"], "MGET", "a", "b")
        self.assertReply("OK", "SELECT", "0")
        self.assertReply(None, "GET", "b")

    def test_copy_errors(self):
        self.assertReply("OK", "SET", "a", "1")
        self.assertErr(SAME_OBJECT, "COPY", "a", "a")
        self.assertErr(DB_RANGE, "COPY", "a", "b", "DB", "16")
        self.assertErr(DB_RANGE, "COPY", "a", "b", "DB", "-1")
        self.assertErr(NOT_INT, "COPY", "a", "b", "DB", "abc")
        self.assertErr(SYNTAX, "COPY", "a", "b", "FOO")
        self.assertReply(0, "EXISTS", "b")

    def test_move(self):
        self.assertReply("OK", "SET", "m", "x", "EX", "100")
        self.assertReply(1, "MOVE", "m", "1")
        self.assertReply(0, "EXISTS", "m")
        self.assertReply(0, "MOVE", "m", "1")  # no longer here
        self.assertReply(0, "MOVE", "nokey", "1")
        self.assertReply("OK", "SELECT", "1")
        self.assertReply(b"x", "GET", "m")
        self.assertReply(100, "TTL", "m")
        self.assertReply("OK", "SELECT", "0")
        self.assertReply("OK", "SET", "m", "y")
        self.assertReply(0, "MOVE", "m", "1")  # exists in the target db
        self.assertReply(b"y", "GET", "m")
        self.assertErr(SAME_OBJECT, "MOVE", "m", "0")
        self.assertErr(DB_RANGE, "MOVE", "m", "16")
        self.assertErr(NOT_INT, "MOVE", "m", "abc")

    def test_swapdb(self):
        self.assertReply("OK", "SET", "s0", "zero")
        other = self.raw_client()
        self.assertEqual(other.call("SELECT", "1"), "OK")
        self.assertEqual(other.call("SET", "s1", "one"), "OK")
        self.assertReply("OK", "SWAPDB", "0", "1")
        # Connections stay on their db index and see the swapped contents.
        self.assertReply([None, b"one"], "MGET", "s0", "s1")
        self.assertEqual(other.call("MGET", "s0", "s1"), [b"zero", None])
        self.assertReply("OK", "SWAPDB", "1", "0")
        self.assertReply(b"zero", "GET", "s0")
        self.assertReply("OK", "SWAPDB", "0", "0")
        self.assertReply(b"zero", "GET", "s0")

    def test_swapdb_errors(self):
        self.assertErr(DB_RANGE, "SWAPDB", "0", "16")
        self.assertErr(DB_RANGE, "SWAPDB", "0", "-1")
        self.assertErr("ERR invalid first DB index", "SWAPDB", "abc", "0")
        self.assertErr("ERR invalid second DB index", "SWAPDB", "0", "abc")


class ObjectTest(ServerTestCase):
    def encoding(self, key):
        return self.raw.call("OBJECT", "ENCODING", key)

    def test_encoding(self):
        cases = [("i", "123", b"int"), ("neg", "-5", b"int"), ("big", "12345678901234567890", b"embstr"),
                 ("lead", "0123", b"embstr"), ("short", "abcd", b"embstr"),
                 ("e44", "x" * 44, b"embstr"), ("e45", "x" * 45, b"raw")]
        for key, value, want in cases:
            self.assertReply("OK", "SET", key, value)
            self.assertEqual(self.encoding(key), want, key)
            self.assertReply("OK", "SET", key + "-ttl", value, "EX", "100")
            self.assertEqual(self.encoding(key + "-ttl"), want, key)
        self.assertReply(None, "OBJECT", "ENCODING", "nokey")

    def test_header_queries_do_not_touch(self):
        """EXISTS, TYPE, TTL, PTTL, EXPIRETIME, PEXPIRETIME leave the access time (LOOKUP_NOTOUCH)."""
        self.raw.call("SET", "src", "v")
        payload = self.raw.call("DUMP", "src")
        for query in ("EXISTS", "TYPE", "TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME", "OBJECT"):
            self.raw.call("DEL", "k")
            self.assertReply("OK", "RESTORE", "k", "0", payload, "IDLETIME", "1000")
            if query == "OBJECT":
                self.raw.call("OBJECT", "ENCODING", "k")
            else:
                self.raw.call(query, "k")
            self.assertIdle(1000, "k")
        self.raw.call("GET", "k")
        self.assertIdle(0, "k")
        self.raw.call("DEL", "k")
        self.assertReply("OK", "RESTORE", "k", "0", payload, "IDLETIME", "1000")
        self.assertReply(1, "TOUCH", "k", "nosuch")
        self.assertIdle(0, "k")

    def assertIdle(self, expected, key):
        """Idle times count whole seconds of the server's clock, which may tick between two
        commands: `expected` or one more."""
        self.assertIn(self.raw.call("OBJECT", "IDLETIME", key), (expected, expected + 1))

    def test_encoding_after_changes(self):
        self.assertReply("OK", "SET", "e", "abcd")
        self.assertReply(5, "APPEND", "e", "x")
        self.assertReply("OK", "SET", "r", "1")
        self.assertReply(2, "APPEND", "r", "2")
        self.assertReply(13, "INCR", "r")
        got = [self.encoding("e"), self.encoding("r")]
        self.assertEqual(got, [b"raw", b"int"])  # APPEND makes raw; INCR makes int again

    def test_encoding_of_every_string_path(self):
        """Each way a string is made or changed gives Redis's encoding (and keeps the TTL)."""
        def check(key, want):
            self.assertEqual(self.encoding(key), want, key)

        self.assertReply("OK", "SET", "f", "10")
        self.assertReply(b"11", "INCRBYFLOAT", "f", "1")
        check("f", b"embstr")  # a new string object, never int
        self.assertReply(b"3", "INCRBYFLOAT", "nf", "3")
        check("nf", b"embstr")
        self.assertReply("OK", "SET", "big", "1")
        self.assertEqual(len(self.raw.call("INCRBYFLOAT", "big", "1e50")), 51)
        check("big", b"raw")
        self.assertReply(3, "APPEND", "a1", "123")
        check("a1", b"int")  # APPEND to a missing key stores its argument as SET would
        self.assertReply(3, "APPEND", "a2", "abc")
        check("a2", b"embstr")
        self.assertReply("OK", "SET", "ap", "5")
        self.assertReply(1, "APPEND", "ap", "")
        check("ap", b"raw")
        self.assertReply(2, "SETRANGE", "s1", "0", "ab")
        check("s1", b"raw")  # SETRANGE of a missing key makes a raw string
        self.assertReply("OK", "SET", "s2", "hello")
        self.assertReply(5, "SETRANGE", "s2", "0", "")
        check("s2", b"embstr")  # nothing written: unchanged
        self.assertReply("OK", "SET", "n", "123")
        self.assertReply(3, "SETRANGE", "n", "0", "4")
        check("n", b"raw")
        self.assertReply(b"423", "GET", "n")
        self.assertReply(1, "INCR", "i1")
        check("i1", b"int")
        self.assertReply("OK", "SET", "k", "12", "EX", "100")
        self.assertReply(13, "INCR", "k")
        check("k", b"int")
        self.assertReply(100, "TTL", "k")
        self.assertReply("OK", "SET", "ff", "1.5", "EX", "100")
        self.assertReply(b"2.5", "INCRBYFLOAT", "ff", "1")
        check("ff", b"embstr")
        self.assertReply(100, "TTL", "ff")
        self.assertReply(None, "GETSET", "g", "5")
        check("g", b"int")
        self.assertReply("OK", "SET", "r", "abc")
        self.assertReply(4, "APPEND", "r", "d")
        self.assertReply(1, "COPY", "r", "rc")
        check("rc", b"raw")
        self.assertReply("OK", "SET", "r", "xyz")
        check("r", b"embstr")
        self.assertReply("OK", "SET", "x", "123", "EX", "100")
        self.assertReply(1, "COPY", "x", "xc")
        check("xc", b"int")
        self.assertReply(100, "TTL", "xc")
        self.assertReply("OK", "RENAME", "x", "x2")
        check("x2", b"int")
        self.assertReply("OK", "SET", "m", "-9223372036854775808")
        check("m", b"int")
        self.assertReply("OK", "SET", "e", "hello")
        self.assertReply(1, "EXPIRE", "e", "100")
        check("e", b"embstr")
        self.assertReply(1, "PERSIST", "e")
        check("e", b"embstr")
        self.assertReply(b"hello", "GET", "e")
        self.assertReply("OK", "SET", "t", "1", "KEEPTTL")
        check("t", b"int")

    def test_idletime(self):
        self.assertReply("OK", "SET", "k", "v")
        idle = self.raw.call("OBJECT", "IDLETIME", "k")
        self.assertIsInstance(idle, int)
        self.assertTrue(0 <= idle <= 2, idle)
        self.assertReply(None, "OBJECT", "IDLETIME", "nokey")

    def test_freq(self):
        self.assertReply("OK", "SET", "k", "v")
        self.assertErr("ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
                       "Please note that when switching between policies at runtime LRU and LFU data "
                       "will take some time to adjust.", "OBJECT", "FREQ", "k")
        self.assertReply(None, "OBJECT", "FREQ", "nokey")
        self.assertReply("OK", "CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
        try:
            freq = self.raw.call("OBJECT", "FREQ", "k")
            self.assertIsInstance(freq, int)
            self.assertGreaterEqual(freq, 0)
            self.assertErr("ERR An LFU maxmemory policy is selected, idle time not tracked. Please "
                           "note that when switching between policies at runtime LRU and LFU data "
                           "will take some time to adjust.", "OBJECT", "IDLETIME", "k")
        finally:
            self.assertReply("OK", "CONFIG", "SET", "maxmemory-policy", "noeviction")

    def test_refcount(self):
        self.assertReply("OK", "SET", "e", "abcdef")
        rc = self.raw.call("OBJECT", "REFCOUNT", "e")
        self.assertIsInstance(rc, int)
        self.assertGreaterEqual(rc, 1)
        if not IS_ORDIS:
            self.assertEqual(rc, 1)
        self.assertReply(None, "OBJECT", "REFCOUNT", "nokey")

    def test_errors(self):
        self.assertErr("ERR unknown subcommand 'FOO'. Try OBJECT HELP.", "OBJECT", "FOO")
        self.assertErr("ERR wrong number of arguments for 'object|encoding' command",
                       "OBJECT", "ENCODING")


class WrongTypeKeysTest(ServerTestCase):
    def test_generic_commands_work_on_any_type(self):
        kind = self.make_wrongtype_key("l")
        self.assertReply(1, "EXISTS", "l")
        self.assertReply(kind, "TYPE", "l")
        self.assertReply(1, "EXPIRE", "l", "100")
        self.assertReply(100, "TTL", "l")
        self.assertReply("OK", "RENAME", "l", "l2")
        self.assertReply(kind, "TYPE", "l2")
        self.assertReply(1, "COPY", "l2", "l3")
        self.assertReply(kind, "TYPE", "l3")
        self.assertReply(2, "DEL", "l2", "l3")

    def test_string_commands_refuse(self):
        self.make_wrongtype_key("l")
        self.assertErr(WRONGTYPE, "GET", "l")
        self.assertErr(WRONGTYPE, "INCR", "l")
        self.assertErr(WRONGTYPE, "APPEND", "l", "x")
        self.assertErr(WRONGTYPE, "STRLEN", "l")


if __name__ == "__main__":
    unittest.main()
