"""Set commands: SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS SPOP SRANDMEMBER SMOVE SINTER SUNION SDIFF
SINTERSTORE SUNIONSTORE SDIFFSTORE SINTERCARD SSCAN; RESP3 set replies, binary members, emptied keys,
OBJECT ENCODING, WATCH, WRONGTYPE both ways, redis-benchmark.

Member order is unspecified (Redis orders intsets numerically, ordis does not), so unordered replies are
compared as sets."""

import re
import subprocess
import unittest

from harness import IS_ORDIS, REDIS_BENCHMARK, RSet, ServerTestCase

NOT_INT = "ERR value is not an integer or out of range"
NOT_POSITIVE = "ERR value is out of range, must be positive"
SYNTAX = "ERR syntax error"
INVALID_CURSOR = "ERR invalid cursor"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
BINARY = [b"", b"\x00", b"a\x00b", b"\xff\xfe\x00\x01", b"\r\n", b"$3\r\nfoo\r\n", bytes(range(256))]


def arity(cmd):
    return "ERR wrong number of arguments for '%s' command" % cmd


class SetCase(ServerTestCase):
    def members(self, key, client=None):
        """SMEMBERS as a Python set (asserting the reply has no duplicates)."""
        got = (client or self.raw).call("SMEMBERS", key)
        self.assertIsInstance(got, list)
        self.assertEqual(len(got), len(set(got)), got)
        return set(got)

    def assertMembers(self, expected, key):
        self.assertEqual(self.members(key), {m.encode() if isinstance(m, str) else m for m in expected})


class AddRemoveTest(SetCase):
    def test_sadd_srem_scard(self):
        self.assertReply(3, "SADD", "s", "a", "b", "c")
        self.assertReply(1, "SADD", "s", "c", "d", "d")  # repeats in one call count once
        self.assertReply(0, "SADD", "s", "a")
        self.assertReply(4, "SCARD", "s")
        self.assertReply(2, "SREM", "s", "a", "b", "a", "zz")
        self.assertReply(0, "SREM", "s", "zz")
        self.assertReply(0, "SREM", "nokey", "a")
        self.assertReply(2, "SCARD", "s")
        self.assertReply(0, "SCARD", "nokey")
        self.assertReply("set", "TYPE", "s")
        self.assertMembers({"c", "d"}, "s")

    def test_sismember_smismember(self):
        self.assertReply(2, "SADD", "s", "a", "1")
        self.assertReply(1, "SISMEMBER", "s", "a")
        self.assertReply(1, "SISMEMBER", "s", "1")
        self.assertReply(0, "SISMEMBER", "s", "b")
        self.assertReply(0, "SISMEMBER", "nokey", "a")
        self.assertReply([1, 0, 1, 1], "SMISMEMBER", "s", "a", "b", "1", "a")
        self.assertReply([0, 0], "SMISMEMBER", "nokey", "a", "b")

    def test_arity(self):
        for args in (["SADD", "s"], ["SREM", "s"], ["SCARD"], ["SISMEMBER", "s"], ["SMISMEMBER", "s"],
                     ["SMEMBERS"], ["SPOP"], ["SRANDMEMBER"], ["SMOVE", "a", "b"], ["SINTER"],
                     ["SUNION"], ["SDIFF"], ["SINTERSTORE", "d"], ["SUNIONSTORE", "d"],
                     ["SDIFFSTORE", "d"], ["SINTERCARD", "1"], ["SSCAN", "s"]):
            self.assertErr(arity(args[0].lower()), *args)
        self.assertErr(arity("scard"), "SCARD", "a", "b")
        self.assertErr(arity("sismember"), "SISMEMBER", "a", "b", "c")

    def test_binary_members(self):
        self.assertReply(len(BINARY), "SADD", "s", *BINARY)
        self.assertReply(len(BINARY), "SCARD", "s")
        self.assertMembers(BINARY, "s")
        for m in BINARY:
            self.assertReply(1, "SISMEMBER", "s", m)
        self.assertReply(0, "SISMEMBER", "s", b"a\x00")  # a prefix is another member
        self.assertReply(1, "SREM", "s", b"a\x00b")
        self.assertReply(0, "SISMEMBER", "s", b"a\x00b")
        self.assertReply(1, "SADD", b"k\x00\xff", b"\x00")
        self.assertReply([b"\x00"], "SMEMBERS", b"k\x00\xff")

    def test_large_set(self):
        members = ["m%d" % i for i in range(5000)]
        self.assertReply(5000, "SADD", "s", *members)
        self.assertMembers(members, "s")
        self.assertReply(2500, "SREM", "s", *members[::2])
        self.assertMembers(members[1::2], "s")

    def test_redis_py(self):
        self.assertEqual(self.r.sadd("s", "a", "b", b"\x00"), 3)
        self.assertEqual(self.r.smembers("s"), {b"a", b"b", b"\x00"})
        self.assertTrue(self.r.sismember("s", "a"))
        self.assertEqual(self.r.scard("s"), 3)


class EmptiedKeyTest(SetCase):
    def test_srem_last_member_deletes_key(self):
        self.assertReply(2, "SADD", "s", "a", "b")
        self.assertReply(2, "SREM", "s", "a", "b", "c")
        self.assertReply(0, "EXISTS", "s")
        self.assertReply("none", "TYPE", "s")
        self.assertReply([], "SMEMBERS", "s")

    def test_spop_last_member_deletes_key(self):
        self.assertReply(1, "SADD", "s", "a")
        self.assertReply(b"a", "SPOP", "s")
        self.assertReply(0, "EXISTS", "s")
        self.assertReply(2, "SADD", "s", "a", "b")
        self.assertEqual(set(self.raw.call("SPOP", "s", "5")), {b"a", b"b"})
        self.assertReply(0, "EXISTS", "s")

    def test_smove_last_member_deletes_source(self):
        self.assertReply(1, "SADD", "src", "a")
        self.assertReply(1, "SMOVE", "src", "dst", "a")
        self.assertReply(0, "EXISTS", "src")
        self.assertReply([b"a"], "SMEMBERS", "dst")

    def test_ttl_kept_by_in_place_writes(self):
        self.assertReply(2, "SADD", "s", "a", "b")
        self.assertReply(1, "EXPIRE", "s", "100")
        self.assertReply(1, "SADD", "s", "c")
        self.assertReply(1, "SREM", "s", "a")
        self.assertReply(100, "TTL", "s")


class ReplyTypeTest(SetCase):
    def test_resp2_arrays(self):
        self.assertRawReply(b"*0\r\n", "SMEMBERS", "nokey")
        self.assertReply(1, "SADD", "s", "a")
        self.assertRawReply(b"*1\r\n$1\r\na\r\n", "SMEMBERS", "s")
        self.assertRawReply(b"*1\r\n$1\r\na\r\n", "SINTER", "s")
        self.assertRawReply(b"*1\r\n$1\r\na\r\n", "SRANDMEMBER", "s", "1")
        self.assertRawReply(b"$-1\r\n", "SPOP", "nokey")
        self.assertRawReply(b"*0\r\n", "SPOP", "nokey", "2")
        self.assertRawReply(b"$-1\r\n", "SRANDMEMBER", "nokey")

    def test_resp3_sets(self):
        c = self.resp3_client()
        self.assertRawReply(b"~0\r\n", "SMEMBERS", "nokey", client=c)
        self.assertReply(1, "SADD", "s", "a", client=c)
        self.assertReply(1, "SADD", "t", "a", client=c)
        for args in (["SMEMBERS", "s"], ["SINTER", "s", "t"], ["SUNION", "s", "t"],
                     ["SDIFF", "s", "nokey"]):
            self.assertRawReply(b"~1\r\n$1\r\na\r\n", *args, client=c)
        self.assertRawReply(b"~0\r\n", "SINTER", "s", "nokey", client=c)
        self.assertRawReply(b"~0\r\n", "SDIFF", "s", "t", client=c)
        # SRANDMEMBER with a count is an array, SPOP with a count a set; without a count, a bulk.
        self.assertRawReply(b"*1\r\n$1\r\na\r\n", "SRANDMEMBER", "s", "1", client=c)
        self.assertRawReply(b"*0\r\n", "SRANDMEMBER", "s", "0", client=c)
        self.assertRawReply(b"*0\r\n", "SRANDMEMBER", "nokey", "3", client=c)
        self.assertRawReply(b"_\r\n", "SRANDMEMBER", "nokey", client=c)
        self.assertRawReply(b"_\r\n", "SPOP", "nokey", client=c)
        self.assertRawReply(b"~0\r\n", "SPOP", "nokey", "1", client=c)
        self.assertRawReply(b"~0\r\n", "SPOP", "s", "0", client=c)
        self.assertRawReply(b"~1\r\n$1\r\na\r\n", "SPOP", "s", "1", client=c)
        self.assertReply(3, "SADD", "s", "a", "b", "c", client=c)
        got = c.call("SPOP", "s", "2")
        self.assertIsInstance(got, RSet)
        self.assertEqual(len(got), 2)
        self.assertRawReply(b"*2\r\n$1\r\n0\r\n*1\r\n$1\r\n", "SSCAN", "s", "0", client=c)
        self.assertIn(c.read_raw(3), (b"a\r\n", b"b\r\n", b"c\r\n"))


class PopRandomTest(SetCase):
    def test_spop(self):
        members = {b"a", b"b", b"c", b"1", b"2"}
        self.assertReply(5, "SADD", "s", *members)
        popped = set()
        for left in range(4, -1, -1):
            m = self.raw.call("SPOP", "s")
            self.assertIn(m, members)
            self.assertNotIn(m, popped)
            popped.add(m)
            self.assertReply(left, "SCARD", "s")
        self.assertEqual(popped, members)
        self.assertReply(None, "SPOP", "s")

    def test_spop_count(self):
        members = {b"m%d" % i for i in range(100)}
        self.assertReply(100, "SADD", "s", *members)
        self.assertReply([], "SPOP", "s", "0")
        self.assertReply(100, "SCARD", "s")
        seen = set()
        for count, left in ((10, 90), (80, 10), (1, 9)):  # few, most (Redis's other strategy), one
            got = self.raw.call("SPOP", "s", str(count))
            self.assertEqual(len(got), count)
            self.assertEqual(len(set(got)), count)
            self.assertTrue(set(got) <= members - seen)
            seen |= set(got)
            self.assertReply(left, "SCARD", "s")
            self.assertEqual(self.members("s"), members - seen)
        got = self.raw.call("SPOP", "s", "100")
        self.assertEqual(set(got), members - seen)
        self.assertReply(0, "EXISTS", "s")

    def test_spop_errors(self):
        self.assertReply(1, "SADD", "s", "a")
        self.assertErr(NOT_POSITIVE, "SPOP", "s", "-1")
        self.assertErr(NOT_POSITIVE, "SPOP", "s", "x")
        self.assertErr(NOT_POSITIVE, "SPOP", "nokey", "-3")  # the count is checked first
        self.assertErr(SYNTAX, "SPOP", "s", "1", "2")
        self.assertReply(1, "SCARD", "s")

    def test_srandmember(self):
        members = {b"a", b"b", b"c"}
        self.assertReply(3, "SADD", "s", *members)
        for _ in range(20):
            self.assertIn(self.raw.call("SRANDMEMBER", "s"), members)
        self.assertReply([], "SRANDMEMBER", "s", "0")
        got = self.raw.call("SRANDMEMBER", "s", "2")
        self.assertEqual(len(set(got)), 2)
        self.assertTrue(set(got) <= members)
        self.assertEqual(sorted(self.raw.call("SRANDMEMBER", "s", "3")), sorted(members))
        self.assertEqual(sorted(self.raw.call("SRANDMEMBER", "s", "10")), sorted(members))
        # A negative count repeats members; 300 draws from 3 cover all of them (miss: (2/3)^300).
        got = self.raw.call("SRANDMEMBER", "s", "-300")
        self.assertEqual(len(got), 300)
        self.assertEqual(set(got), members)
        self.assertIn(self.raw.call("SRANDMEMBER", "s", "-1")[0], members)
        self.assertReply(3, "SCARD", "s")  # nothing removed

    def test_srandmember_distinct_sample_of_large_set(self):
        members = {b"%d" % i for i in range(1000)}
        self.assertReply(1000, "SADD", "s", *members)
        for count in (1, 10, 400, 900, 999):
            got = self.raw.call("SRANDMEMBER", "s", str(count))
            self.assertEqual(len(got), count)
            self.assertEqual(len(set(got)), count)
            self.assertTrue(set(got) <= members)

    def test_srandmember_errors(self):
        self.assertReply(1, "SADD", "s", "a")
        self.assertErr(NOT_INT, "SRANDMEMBER", "s", "x")
        self.assertErr("ERR value is out of range, value must between -9223372036854775807 and "
                       "9223372036854775807", "SRANDMEMBER", "s", "-9223372036854775808")
        self.assertErr(SYNTAX, "SRANDMEMBER", "s", "1", "2")
        self.assertReply(None, "SRANDMEMBER", "nokey")
        self.assertReply([], "SRANDMEMBER", "nokey", "-5")
        self.assertReply([], "SRANDMEMBER", "nokey", "-9223372036854775807")

    @unittest.skipUnless(IS_ORDIS, "Redis 7.0.15 tries to build the reply and runs out of memory")
    def test_srandmember_repeats_capped(self):
        self.assertReply(1, "SADD", "s", "a")
        self.assertErr("ERR value is out of range", "SRANDMEMBER", "s", "-9223372036854775807")
        self.assertErr("ERR value is out of range", "SRANDMEMBER", "s", str(-(1 << 24) - 1))
        self.assertEqual(len(self.raw.call("SRANDMEMBER", "s", "9223372036854775807")), 1)


class SMoveTest(SetCase):
    def test_smove(self):
        self.assertReply(2, "SADD", "src", "a", "b")
        self.assertReply(1, "SADD", "dst", "c")
        self.assertReply(1, "SMOVE", "src", "dst", "a")
        self.assertMembers({"b"}, "src")
        self.assertMembers({"a", "c"}, "dst")
        self.assertReply(0, "SMOVE", "src", "dst", "zz")
        self.assertReply(0, "SMOVE", "nokey", "dst", "a")
        self.assertReply(1, "SADD", "dst", "b")
        self.assertReply(1, "SMOVE", "src", "dst", "b")  # already in dst: still moved
        self.assertReply(0, "EXISTS", "src")
        self.assertMembers({"a", "b", "c"}, "dst")
        self.assertReply(1, "SMOVE", "dst", "new", "c")
        self.assertReply([b"c"], "SMEMBERS", "new")

    def test_smove_same_key(self):
        self.assertReply(1, "SADD", "s", "a")
        self.assertReply(1, "SMOVE", "s", "s", "a")
        self.assertReply(0, "SMOVE", "s", "s", "b")
        self.assertReply([b"a"], "SMEMBERS", "s")

    def test_smove_wrong_types(self):
        self.assertReply("OK", "SET", "str", "x")
        self.assertReply(1, "SADD", "s", "a")
        self.assertErr(WRONGTYPE, "SMOVE", "str", "s", "a")
        self.assertErr(WRONGTYPE, "SMOVE", "s", "str", "a")
        self.assertReply(0, "SMOVE", "nokey", "str", "a")  # a missing source answers first
        self.assertReply([b"a"], "SMEMBERS", "s")
        self.assertReply(b"x", "GET", "str")


class AlgebraTest(SetCase):
    def setUp(self):
        super().setUp()
        self.assertReply(4, "SADD", "a", "1", "2", "3", "x")
        self.assertReply(3, "SADD", "b", "2", "3", "4")
        self.assertReply(2, "SADD", "c", "3", "x")

    def call_set(self, *args):
        got = self.raw.call(*args)
        self.assertIsInstance(got, list, args)
        self.assertEqual(len(got), len(set(got)), args)
        return {m.decode() for m in got}

    def test_sinter(self):
        self.assertEqual(self.call_set("SINTER", "a", "b"), {"2", "3"})
        self.assertEqual(self.call_set("SINTER", "a", "b", "c"), {"3"})
        self.assertEqual(self.call_set("SINTER", "a"), {"1", "2", "3", "x"})
        self.assertEqual(self.call_set("SINTER", "a", "a"), {"1", "2", "3", "x"})
        self.assertEqual(self.call_set("SINTER", "a", "nokey"), set())

    def test_sunion(self):
        self.assertEqual(self.call_set("SUNION", "a", "b"), {"1", "2", "3", "4", "x"})
        self.assertEqual(self.call_set("SUNION", "nokey", "c"), {"3", "x"})
        self.assertEqual(self.call_set("SUNION", "nokey"), set())

    def test_sdiff(self):
        self.assertEqual(self.call_set("SDIFF", "a", "b"), {"1", "x"})
        self.assertEqual(self.call_set("SDIFF", "a", "b", "c"), {"1"})
        self.assertEqual(self.call_set("SDIFF", "a", "nokey"), {"1", "2", "3", "x"})
        self.assertEqual(self.call_set("SDIFF", "a", "a"), set())
        self.assertEqual(self.call_set("SDIFF", "nokey", "a"), set())

    def test_store(self):
        self.assertReply(2, "SINTERSTORE", "d1", "a", "b")
        self.assertMembers({"2", "3"}, "d1")
        self.assertReply(5, "SUNIONSTORE", "d2", "a", "b", "nokey")
        self.assertMembers({"1", "2", "3", "4", "x"}, "d2")
        self.assertReply(2, "SDIFFSTORE", "d3", "a", "b")
        self.assertMembers({"1", "x"}, "d3")
        # The destination may be a source; it is replaced by the result.
        self.assertReply(1, "SINTERSTORE", "a", "a", "c", "b")
        self.assertMembers({"3"}, "a")

    def test_store_replaces_any_type_and_drops_ttl(self):
        self.assertReply("OK", "SET", "dst", "string", "EX", "100")
        self.assertReply(2, "SINTERSTORE", "dst", "a", "b")
        self.assertReply("set", "TYPE", "dst")
        self.assertReply(-1, "TTL", "dst")

    def test_empty_result_deletes_destination(self):
        self.assertReply(1, "SADD", "other", "zz")
        for cmd, srcs in (("SINTERSTORE", ["a", "nokey"]), ("SINTERSTORE", ["a", "other"]),
                          ("SUNIONSTORE", ["nokey"]), ("SDIFFSTORE", ["a", "a"]),
                          ("SDIFFSTORE", ["nokey", "a"])):
            self.assertReply("OK", "SET", "dst", "x")
            self.assertReply(0, cmd, "dst", *srcs)
            self.assertReply(0, "EXISTS", "dst")
            self.assertReply(0, cmd, "dst", *srcs)  # nothing to delete the second time

    def test_wrong_types(self):
        self.assertReply("OK", "SET", "str", "x")
        for cmd in ("SINTER", "SUNION", "SDIFF"):
            self.assertErr(WRONGTYPE, cmd, "a", "str")
            self.assertErr(WRONGTYPE, cmd, "str", "a")
            self.assertErr(WRONGTYPE, cmd, "nokey", "str")  # a missing key before does not stop it
        for cmd in ("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"):
            self.assertErr(WRONGTYPE, cmd, "d", "a", "str")
            self.assertReply(0, "EXISTS", "d")
        self.assertReply(2, "SINTERSTORE", "str", "a", "b")  # a destination of any type is fine

    def test_sintercard(self):
        self.assertReply(2, "SINTERCARD", "2", "a", "b")
        self.assertReply(1, "SINTERCARD", "3", "a", "b", "c")
        self.assertReply(4, "SINTERCARD", "1", "a")
        self.assertReply(0, "SINTERCARD", "2", "a", "nokey")
        self.assertReply(1, "SINTERCARD", "2", "a", "b", "LIMIT", "1")
        self.assertReply(2, "SINTERCARD", "2", "a", "b", "limit", "0")  # 0: no limit
        self.assertReply(2, "SINTERCARD", "2", "a", "b", "LIMIT", "10")
        self.assertReply(1, "SINTERCARD", "2", "a", "b", "LIMIT", "5", "LIMIT", "1")

    def test_sintercard_errors(self):
        self.assertReply("OK", "SET", "str", "x")
        self.assertErr("ERR numkeys should be greater than 0", "SINTERCARD", "0", "a")
        self.assertErr("ERR numkeys should be greater than 0", "SINTERCARD", "-1", "a")
        self.assertErr("ERR numkeys should be greater than 0", "SINTERCARD", "x", "a")
        self.assertErr("ERR Number of keys can't be greater than number of args",
                       "SINTERCARD", "3", "a", "b")
        self.assertErr("ERR LIMIT can't be negative", "SINTERCARD", "1", "a", "LIMIT", "-1")
        self.assertErr("ERR LIMIT can't be negative", "SINTERCARD", "1", "a", "LIMIT", "x")
        self.assertErr(SYNTAX, "SINTERCARD", "1", "a", "LIMIT")
        self.assertErr(SYNTAX, "SINTERCARD", "1", "a", "b")
        self.assertErr(WRONGTYPE, "SINTERCARD", "2", "nokey", "str")
        self.assertErr(WRONGTYPE, "SINTERCARD", "2", "a", "str")


class SScanTest(SetCase):
    def scan_all(self, key, *options):
        cursor, seen = b"0", []
        for _ in range(10000):
            reply = self.raw.call("SSCAN", key, cursor, *options)
            self.assertEqual(len(reply), 2)
            cursor, batch = reply
            seen += batch
            if cursor == b"0":
                return seen
        self.fail("SSCAN did not finish")

    def test_small_set_in_one_reply(self):
        self.assertReply(3, "SADD", "s", "1", "2", "3")
        cursor, members = self.raw.call("SSCAN", "s", "0")
        self.assertEqual(cursor, b"0")
        self.assertEqual(sorted(members), [b"1", b"2", b"3"])
        cursor, members = self.raw.call("SSCAN", "s", "0", "MATCH", "2*", "COUNT", "1")
        self.assertEqual((cursor, members), (b"0", [b"2"]))
        self.assertReply([b"0", []], "SSCAN", "nokey", "0")

    def test_full_iteration(self):
        members = {b"m%d" % i for i in range(1000)} | {b"", b"\x00bin"}
        self.assertReply(len(members), "SADD", "s", *members)
        got = self.scan_all("s")
        self.assertEqual(set(got), members)  # Redis may repeat members across calls; none missing
        got = self.scan_all("s", "COUNT", "100", "MATCH", "m1*")
        self.assertEqual(set(got), {m for m in members if m.startswith(b"m1")})
        self.assertEqual(set(self.scan_all("s", "MATCH", "zz*")), set())

    def test_glob_patterns(self):
        self.assertReply(5, "SADD", "s", "hello", "hallo", "hxllo", "hllo", "h*llo")
        self.assertEqual(set(self.scan_all("s", "MATCH", "h?llo")),
                         {b"hello", b"hallo", b"hxllo", b"h*llo"})
        self.assertEqual(set(self.scan_all("s", "MATCH", "h[ae]llo")), {b"hello", b"hallo"})
        self.assertEqual(set(self.scan_all("s", "MATCH", "h\\*llo")), {b"h*llo"})
        self.assertEqual(len(self.scan_all("s", "MATCH", "*")), 5)

    def test_cursor_and_option_errors(self):
        self.assertReply(1, "SADD", "s", "a")
        self.assertErr(INVALID_CURSOR, "SSCAN", "s", "abc")
        self.assertErr(INVALID_CURSOR, "SSCAN", "s", " 1")
        self.assertErr(INVALID_CURSOR, "SSCAN", "s", "99999999999999999999999")
        self.assertErr(SYNTAX, "SSCAN", "s", "0", "COUNT", "0")
        self.assertErr(NOT_INT, "SSCAN", "s", "0", "COUNT", "x")
        self.assertErr(SYNTAX, "SSCAN", "s", "0", "MATCH")
        self.assertErr(SYNTAX, "SSCAN", "s", "0", "TYPE", "string")  # TYPE is SCAN's only
        # Options are checked only when the key holds a set.
        self.assertReply([b"0", []], "SSCAN", "nokey", "0", "COUNT", "0")
        self.assertReply("OK", "SET", "str", "x")
        self.assertErr(WRONGTYPE, "SSCAN", "str", "0", "COUNT", "0")
        self.assertErr(INVALID_CURSOR, "SSCAN", "str", "x")  # the cursor is checked first


class EncodingTest(SetCase):
    def encoding(self, key):
        return self.raw.call("OBJECT", "ENCODING", key)

    def test_intset_and_hashtable(self):
        self.assertReply(3, "SADD", "ints", "1", "-5", "9223372036854775807")
        self.assertReply(b"intset", "OBJECT", "ENCODING", "ints")
        self.assertReply(1, "SADD", "ints", "x")
        self.assertReply(b"hashtable", "OBJECT", "ENCODING", "ints")
        self.assertReply(1, "SADD", "strs", "a")
        self.assertReply(b"hashtable", "OBJECT", "ENCODING", "strs")
        for not_int in ("01", "+1", " 1", "1.0", "9223372036854775808"):
            self.assertReply(1, "SADD", "k" + not_int, not_int)
            self.assertReply(b"hashtable", "OBJECT", "ENCODING", "k" + not_int)

    def test_size_limit(self):
        self.assertReply(512, "SADD", "s", *[str(i) for i in range(512)])
        self.assertReply(b"intset", "OBJECT", "ENCODING", "s")
        self.assertReply(1, "SADD", "s", "512")
        self.assertReply(b"hashtable", "OBJECT", "ENCODING", "s")

    def test_store_result_encoding(self):
        self.assertReply(3, "SADD", "a", "1", "2", "3")
        self.assertReply(2, "SADD", "b", "2", "3")
        self.assertReply(2, "SINTERSTORE", "d", "a", "b")
        self.assertReply(b"intset", "OBJECT", "ENCODING", "d")


class WrongTypeTest(SetCase):
    def test_set_commands_on_a_string(self):
        self.assertReply("OK", "SET", "str", "x")
        for cmd in (["SADD", "str", "a"], ["SREM", "str", "a"], ["SCARD", "str"],
                    ["SISMEMBER", "str", "a"], ["SMISMEMBER", "str", "a"], ["SMEMBERS", "str"],
                    ["SPOP", "str"], ["SPOP", "str", "2"], ["SPOP", "str", "0"],
                    ["SRANDMEMBER", "str"], ["SRANDMEMBER", "str", "-2"],
                    ["SRANDMEMBER", "str", "0"], ["SSCAN", "str", "0"]):
            self.assertErr(WRONGTYPE, *cmd)
        self.assertReply(b"x", "GET", "str")

    def test_set_commands_on_a_sorted_set(self):
        self.assertReply(1, "ZADD", "z", "1", "a")
        self.assertErr(WRONGTYPE, "SADD", "z", "a")
        self.assertErr(WRONGTYPE, "SMEMBERS", "z")
        self.assertErr(WRONGTYPE, "SINTER", "z")

    def test_other_commands_on_a_set(self):
        self.assertReply(1, "SADD", "s", "a")
        for cmd in (["GET", "s"], ["APPEND", "s", "x"], ["INCR", "s"], ["STRLEN", "s"],
                    ["ZADD", "s", "1", "a"], ["ZSCORE", "s", "a"], ["ZRANGE", "s", "0", "-1"]):
            self.assertErr(WRONGTYPE, *cmd)
        self.assertReply("OK", "SET", "s", "now a string")  # SET overwrites any type
        self.assertReply("string", "TYPE", "s")


class WatchTest(SetCase):
    """Every write that changes a set signals WATCHers; a write that changes nothing does not."""

    def exec_after(self, *cmd):
        """WATCH s, run cmd on another connection, then MULTI/EXEC: True iff EXEC ran."""
        other = self.raw_client()
        self.assertReply("OK", "WATCH", "s")
        other.call(*cmd)
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "PING")
        return self.raw.call("EXEC") is not None

    def test_changes_abort(self):
        for cmd in (["SADD", "s", "new"], ["SREM", "s", "a"], ["SPOP", "s"], ["SPOP", "s", "1"],
                    ["SMOVE", "s", "t", "a"], ["SMOVE", "t", "s", "t1"],
                    ["SINTERSTORE", "s", "t"], ["SUNIONSTORE", "s", "nokey"], ["DEL", "s"]):
            self.assertReply("OK", "FLUSHALL")
            self.assertReply(2, "SADD", "s", "a", "b")
            self.assertReply(1, "SADD", "t", "t1")
            self.assertFalse(self.exec_after(*cmd), cmd)

    def test_no_change_no_abort(self):
        for cmd in (["SADD", "s", "a"], ["SREM", "s", "zz"], ["SPOP", "s", "0"],
                    ["SMOVE", "s", "t", "zz"], ["SMOVE", "s", "s", "a"], ["SRANDMEMBER", "s"],
                    ["SUNIONSTORE", "other", "s"]):
            self.assertReply("OK", "FLUSHALL")
            self.assertReply(2, "SADD", "s", "a", "b")
            self.assertTrue(self.exec_after(*cmd), cmd)


class BenchmarkTest(ServerTestCase):
    def test_redis_benchmark_sadd_spop(self):
        r = subprocess.run([REDIS_BENCHMARK, "-p", str(self.port), "-q", "-n", "20000",
                            "-t", "sadd,spop"], capture_output=True, timeout=120)
        out = (r.stdout + r.stderr).decode("utf-8", "replace")
        self.assertEqual(r.returncode, 0, out)
        self.assertNotIn("ERR", out)
        finals = [l.split("\r")[-1].strip() for l in out.split("\n")]
        for name in ("SADD", "SPOP"):
            self.assertTrue(any(re.match(name + r": [\d.]+ requests per second", f) for f in finals),
                            "%s missing from:\n%s" % (name, out))


if __name__ == "__main__":
    unittest.main()
