"""List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP (with count) LLEN LRANGE LINDEX LSET LREM LTRIM
LINSERT LPOS LMOVE RPOPLPUSH; WRONGTYPE both ways, binary elements, deletion of emptied lists, WATCH
signalling, TYPE / OBJECT ENCODING, and redis-benchmark's list tests."""

import re
import subprocess
import unittest

from harness import REDIS_BENCHMARK, ServerTestCase

NOT_INT = "ERR value is not an integer or out of range"
SYNTAX = "ERR syntax error"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
MUST_BE_POSITIVE = "ERR value is out of range, must be positive"
RANK_ZERO = ("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
             "or use negative to start from the end of the list")
I64_MAX = 9223372036854775807
I64_MIN = -9223372036854775808


def arity(cmd):
    return "ERR wrong number of arguments for '%s' command" % cmd


class PushPopTest(ServerTestCase):
    def test_push_order_and_length(self):
        self.assertReply(1, "RPUSH", "l", "a")
        self.assertReply(3, "RPUSH", "l", "b", "c")
        self.assertReply(5, "LPUSH", "l", "x", "y")  # each element goes to the head in turn
        self.assertReply([b"y", b"x", b"a", b"b", b"c"], "LRANGE", "l", "0", "-1")
        self.assertReply(5, "LLEN", "l")
        self.assertReply(0, "LLEN", "nokey")

    def test_pushx(self):
        self.assertReply(0, "LPUSHX", "l", "a")
        self.assertReply(0, "RPUSHX", "l", "a", "b")
        self.assertReply(0, "EXISTS", "l")
        self.assertReply(1, "RPUSH", "l", "m")
        self.assertReply(3, "LPUSHX", "l", "b", "a")
        self.assertReply(5, "RPUSHX", "l", "y", "z")
        self.assertReply([b"a", b"b", b"m", b"y", b"z"], "LRANGE", "l", "0", "-1")

    def test_pop_single(self):
        self.assertReply(3, "RPUSH", "l", "a", "b", "c")
        self.assertReply(b"a", "LPOP", "l")
        self.assertReply(b"c", "RPOP", "l")
        self.assertReply(b"b", "LPOP", "l")
        self.assertReply(0, "EXISTS", "l")  # the emptied list is deleted
        self.assertRawReply(b"$-1\r\n", "LPOP", "l")
        self.assertRawReply(b"$-1\r\n", "RPOP", "nokey")

    def test_pop_count(self):
        self.assertReply(5, "RPUSH", "l", "a", "b", "c", "d", "e")
        self.assertReply([b"a", b"b"], "LPOP", "l", "2")
        self.assertReply([b"e", b"d"], "RPOP", "l", "2")
        self.assertReply([], "LPOP", "l", "0")  # existing key, count 0: an empty array
        self.assertReply(1, "LLEN", "l")
        self.assertReply([b"c"], "RPOP", "l", "10")  # more than there is: all of it
        self.assertReply(0, "EXISTS", "l")

    def test_pop_count_nulls_resp2(self):
        # A missing key with a count is a null *array*, even for count 0.
        self.assertRawReply(b"*-1\r\n", "LPOP", "nokey", "2")
        self.assertRawReply(b"*-1\r\n", "RPOP", "nokey", "0")
        self.assertReply(1, "RPUSH", "l", "a")
        self.assertRawReply(b"*0\r\n", "LPOP", "l", "0")
        self.assertRawReply(b"*1\r\n$1\r\na\r\n", "LPOP", "l", "1")

    def test_pop_count_nulls_resp3(self):
        c = self.resp3_client()
        self.assertRawReply(b"_\r\n", "LPOP", "nokey", client=c)
        self.assertRawReply(b"_\r\n", "LPOP", "nokey", "2", client=c)
        self.assertRawReply(b"_\r\n", "RPOP", "nokey", "0", client=c)
        self.assertReply(1, "RPUSH", "l", "a", client=c)
        self.assertRawReply(b"*0\r\n", "RPOP", "l", "0", client=c)

    def test_pop_errors(self):
        self.assertReply(1, "RPUSH", "l", "a")
        for cmd in ("LPOP", "RPOP"):
            self.assertErr(MUST_BE_POSITIVE, cmd, "l", "-1")
            self.assertErr(MUST_BE_POSITIVE, cmd, "l", "abc")
            self.assertErr(MUST_BE_POSITIVE, cmd, "nokey", "1.5")
            self.assertErr(arity(cmd.lower()), cmd, "l", "1", "2")
            self.assertErr(arity(cmd.lower()), cmd)
        self.assertReply([b"a"], "LRANGE", "l", "0", "-1")

    def test_arity(self):
        self.assertErr(arity("lpush"), "LPUSH", "l")
        self.assertErr(arity("rpushx"), "RPUSHX", "l")
        self.assertErr(arity("llen"), "LLEN", "l", "x")
        self.assertErr(arity("lrange"), "LRANGE", "l", "0")
        self.assertErr(arity("lindex"), "LINDEX", "l")
        self.assertErr(arity("lset"), "LSET", "l", "0")
        self.assertErr(arity("lrem"), "LREM", "l", "0")
        self.assertErr(arity("ltrim"), "LTRIM", "l", "0")
        self.assertErr(arity("linsert"), "LINSERT", "l", "BEFORE", "a")
        self.assertErr(arity("lpos"), "LPOS", "l")
        self.assertErr(arity("lmove"), "LMOVE", "a", "b", "LEFT")
        self.assertErr(arity("rpoplpush"), "RPOPLPUSH", "a")

    def test_binary_elements(self):
        blobs = [b"", b"\x00", b"a\x00b", b"\xff\xfe", b"\r\n", b"$3\r\nfoo\r\n", bytes(range(256))]
        key = b"bin\x00\xff"
        self.assertReply(len(blobs), "RPUSH", key, *blobs)
        self.assertReply(blobs, "LRANGE", key, "0", "-1")
        self.assertReply(0, "EXISTS", b"bin")
        self.assertReply(2, "LPOS", key, b"a\x00b")
        self.assertReply(None, "LPOS", key, b"a")
        self.assertReply(bytes(range(256)), "LINDEX", key, "-1")
        self.assertReply(1, "LREM", key, "0", b"\x00")
        self.assertReply(b"", "LPOP", key)
        self.assertReply(b"a\x00b", "LMOVE", key, b"other\x00", "LEFT", "RIGHT")
        self.assertReply([b"a\x00b"], "LRANGE", b"other\x00", "0", "-1")

    def test_large_list(self):
        n = 10000
        for start in range(0, n, 1000):
            self.assertReply(start + 1000, "RPUSH", "big", *[str(i) for i in range(start, start + 1000)])
        self.assertReply(n, "LLEN", "big")
        got = self.raw.call("LRANGE", "big", "0", "-1")
        self.assertEqual(got, [str(i).encode() for i in range(n)])
        self.assertReply(b"5000", "LINDEX", "big", "5000")
        self.assertReply(b"9999", "LINDEX", "big", "-1")
        self.assertReply(4000, "LPOS", "big", "4000")

    def test_redis_py(self):
        self.assertEqual(self.r.rpush("l", 1, 2, 3), 3)
        self.assertEqual(self.r.lrange("l", 0, -1), [b"1", b"2", b"3"])
        self.assertEqual(self.r.lpop("l", 2), [b"1", b"2"])
        self.assertIsNone(self.r.lpop("nokey"))


class IndexRangeTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.assertReply(5, "RPUSH", "l", "a", "b", "c", "d", "e")

    def test_lrange(self):
        cases = [
            ((0, -1), [b"a", b"b", b"c", b"d", b"e"]),
            ((1, 2), [b"b", b"c"]),
            ((-2, -1), [b"d", b"e"]),
            ((-100, 1), [b"a", b"b"]),
            ((3, 100), [b"d", b"e"]),
            ((2, 1), []),
            ((5, 10), []),
            ((-1, -2), []),
            ((0, 0), [b"a"]),
            ((-5, -5), [b"a"]),
            ((-6, -6), []),
            ((I64_MIN, I64_MAX), [b"a", b"b", b"c", b"d", b"e"]),
        ]
        for (start, stop), want in cases:
            self.assertReply(want, "LRANGE", "l", str(start), str(stop))
        self.assertReply([], "LRANGE", "nokey", "0", "-1")

    def test_lrange_errors(self):
        self.assertErr(NOT_INT, "LRANGE", "l", "x", "1")
        self.assertErr(NOT_INT, "LRANGE", "l", "0", "1.0")
        self.assertErr(NOT_INT, "LRANGE", "nokey", "0", "")  # parsed before the lookup
        self.assertErr(NOT_INT, "LRANGE", "l", "0", "9223372036854775808")

    def test_lindex(self):
        self.assertReply(b"a", "LINDEX", "l", "0")
        self.assertReply(b"e", "LINDEX", "l", "4")
        self.assertReply(b"e", "LINDEX", "l", "-1")
        self.assertReply(b"a", "LINDEX", "l", "-5")
        self.assertRawReply(b"$-1\r\n", "LINDEX", "l", "5")
        self.assertRawReply(b"$-1\r\n", "LINDEX", "l", "-6")
        self.assertRawReply(b"$-1\r\n", "LINDEX", "nokey", "0")
        self.assertErr(NOT_INT, "LINDEX", "l", "abc")
        # A missing key answers nil before the index is parsed.
        self.assertRawReply(b"$-1\r\n", "LINDEX", "nokey", "abc")

    def test_lset(self):
        self.assertReply("OK", "LSET", "l", "0", "A")
        self.assertReply("OK", "LSET", "l", "-1", "E")
        self.assertReply("OK", "LSET", "l", "-5", "AA")
        self.assertReply([b"AA", b"b", b"c", b"d", b"E"], "LRANGE", "l", "0", "-1")
        self.assertErr("ERR index out of range", "LSET", "l", "5", "x")
        self.assertErr("ERR index out of range", "LSET", "l", "-6", "x")
        self.assertErr(NOT_INT, "LSET", "l", "abc", "x")
        self.assertErr("ERR no such key", "LSET", "nokey", "0", "x")
        self.assertErr("ERR no such key", "LSET", "nokey", "abc", "x")  # lookup first
        self.assertReply(0, "EXISTS", "nokey")


class EditTest(ServerTestCase):
    def test_lrem(self):
        self.assertReply(8, "RPUSH", "l", "a", "b", "a", "c", "a", "b", "a", "d")
        self.assertReply(2, "LREM", "l", "2", "a")  # first two from the head
        self.assertReply([b"b", b"c", b"a", b"b", b"a", b"d"], "LRANGE", "l", "0", "-1")
        self.assertReply(1, "LREM", "l", "-1", "b")  # last one from the tail
        self.assertReply([b"b", b"c", b"a", b"a", b"d"], "LRANGE", "l", "0", "-1")
        self.assertReply(2, "LREM", "l", "0", "a")  # all
        self.assertReply([b"b", b"c", b"d"], "LRANGE", "l", "0", "-1")
        self.assertReply(0, "LREM", "l", "0", "zz")
        self.assertReply(1, "LREM", "l", str(I64_MIN), "c")
        self.assertReply(0, "LREM", "nokey", "0", "a")
        self.assertErr(NOT_INT, "LREM", "l", "x", "a")
        self.assertErr(NOT_INT, "LREM", "nokey", "x", "a")
        self.assertReply(1, "LREM", "l", "1", "b")
        self.assertReply(1, "LREM", "l", "1", "d")
        self.assertReply(0, "EXISTS", "l")

    def test_ltrim(self):
        self.assertReply(5, "RPUSH", "l", "a", "b", "c", "d", "e")
        self.assertReply("OK", "LTRIM", "l", "1", "-2")
        self.assertReply([b"b", b"c", b"d"], "LRANGE", "l", "0", "-1")
        self.assertReply("OK", "LTRIM", "l", "-100", "100")
        self.assertReply([b"b", b"c", b"d"], "LRANGE", "l", "0", "-1")
        self.assertReply("OK", "LTRIM", "l", "1", "1")
        self.assertReply([b"c"], "LRANGE", "l", "0", "-1")
        self.assertReply("OK", "LTRIM", "l", "1", "0")  # empty range: removes everything
        self.assertReply(0, "EXISTS", "l")
        self.assertReply("OK", "LTRIM", "nokey", "0", "1")
        self.assertReply(0, "EXISTS", "nokey")
        self.assertErr(NOT_INT, "LTRIM", "nokey", "x", "1")
        self.assertReply(2, "RPUSH", "m", "a", "b")
        self.assertReply("OK", "LTRIM", "m", "5", "10")
        self.assertReply(0, "EXISTS", "m")

    def test_linsert(self):
        self.assertReply(3, "RPUSH", "l", "a", "b", "a")
        self.assertReply(4, "LINSERT", "l", "BEFORE", "a", "x")  # the first pivot from the head
        self.assertReply(5, "LINSERT", "l", "after", "b", "y")
        self.assertReply(6, "LINSERT", "l", "AFTER", "a", "z")
        self.assertReply([b"x", b"a", b"z", b"b", b"y", b"a"], "LRANGE", "l", "0", "-1")
        self.assertReply(-1, "LINSERT", "l", "BEFORE", "nothere", "q")
        self.assertReply(0, "LINSERT", "nokey", "BEFORE", "a", "q")
        self.assertReply(0, "EXISTS", "nokey")
        self.assertErr(SYNTAX, "LINSERT", "l", "MIDDLE", "a", "q")
        self.assertErr(SYNTAX, "LINSERT", "nokey", "MIDDLE", "a", "q")
        self.assertReply(6, "LLEN", "l")


class LPosTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.assertReply(8, "RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c")

    def test_basic(self):
        self.assertReply(2, "LPOS", "l", "c")
        self.assertReply(None, "LPOS", "l", "zz")
        self.assertRawReply(b"$-1\r\n", "LPOS", "nokey", "a")
        self.assertReply([], "LPOS", "nokey", "a", "COUNT", "0")

    def test_rank(self):
        self.assertReply(6, "LPOS", "l", "c", "RANK", "2")
        self.assertReply(7, "LPOS", "l", "c", "RANK", "-1")
        self.assertReply(6, "LPOS", "l", "c", "RANK", "-2")
        self.assertReply(None, "LPOS", "l", "c", "RANK", "4")
        self.assertReply(2, "LPOS", "l", "c", "RANK", "2", "RANK", "1")  # the last one wins
        self.assertReply(7, "LPOS", "l", "c", "rank", str(I64_MIN))  # Redis's -rank wraps

    def test_count(self):
        self.assertReply([2, 6], "LPOS", "l", "c", "COUNT", "2")
        self.assertReply([2, 6, 7], "LPOS", "l", "c", "COUNT", "0")
        self.assertReply([2, 6, 7], "LPOS", "l", "c", "COUNT", str(I64_MAX))
        self.assertReply([6, 7], "LPOS", "l", "c", "RANK", "2", "COUNT", "0")
        self.assertReply([7, 6], "LPOS", "l", "c", "RANK", "-1", "COUNT", "2")
        self.assertReply([6, 2], "LPOS", "l", "c", "RANK", "-2", "COUNT", "0")
        self.assertReply([], "LPOS", "l", "zz", "COUNT", "1")
        self.assertReply([0], "LPOS", "l", "a", "COUNT", "1")
        self.assertReply([7, 6, 2], "LPOS", "l", "c", "RANK", str(I64_MIN), "COUNT", "1")

    def test_maxlen(self):
        self.assertReply(None, "LPOS", "l", "c", "MAXLEN", "2")
        self.assertReply(2, "LPOS", "l", "c", "MAXLEN", "3")
        self.assertReply([2], "LPOS", "l", "c", "COUNT", "0", "MAXLEN", "6")
        self.assertReply([7, 6], "LPOS", "l", "c", "RANK", "-1", "COUNT", "0", "MAXLEN", "2")
        self.assertReply([2, 6, 7], "LPOS", "l", "c", "COUNT", "0", "MAXLEN", "0")

    def test_errors(self):
        self.assertErr(RANK_ZERO, "LPOS", "l", "c", "RANK", "0")
        self.assertErr(NOT_INT, "LPOS", "l", "c", "RANK", "x")
        self.assertErr(NOT_INT, "LPOS", "l", "c", "RANK", "9223372036854775808")
        self.assertErr("ERR COUNT can't be negative", "LPOS", "l", "c", "COUNT", "-1")
        self.assertErr("ERR COUNT can't be negative", "LPOS", "l", "c", "COUNT", "x")
        self.assertErr("ERR MAXLEN can't be negative", "LPOS", "l", "c", "MAXLEN", "-1")
        self.assertErr("ERR MAXLEN can't be negative", "LPOS", "l", "c", "MAXLEN", "1.5")
        self.assertErr(SYNTAX, "LPOS", "l", "c", "RANK")
        self.assertErr(SYNTAX, "LPOS", "l", "c", "FOO", "1")
        self.assertErr(SYNTAX, "LPOS", "l", "c", "COUNT", "1", "MAXLEN")
        self.assertErr(RANK_ZERO, "LPOS", "nokey", "c", "RANK", "0")  # options before the lookup


class MoveTest(ServerTestCase):
    def test_lmove_directions(self):
        self.assertReply(3, "RPUSH", "src", "a", "b", "c")
        self.assertReply(b"a", "LMOVE", "src", "dst", "LEFT", "LEFT")
        self.assertReply(b"c", "LMOVE", "src", "dst", "RIGHT", "LEFT")
        self.assertReply(b"b", "LMOVE", "src", "dst", "left", "right")
        self.assertReply(0, "EXISTS", "src")  # the emptied source is deleted
        self.assertReply([b"c", b"a", b"b"], "LRANGE", "dst", "0", "-1")
        self.assertReply(b"b", "LMOVE", "dst", "src", "RIGHT", "RIGHT")
        self.assertReply([b"b"], "LRANGE", "src", "0", "-1")
        self.assertRawReply(b"$-1\r\n", "LMOVE", "nokey", "dst", "LEFT", "LEFT")
        self.assertReply(0, "EXISTS", "nokey")

    def test_rpoplpush(self):
        self.assertReply(3, "RPUSH", "src", "a", "b", "c")
        self.assertReply(b"c", "RPOPLPUSH", "src", "dst")
        self.assertReply(b"b", "RPOPLPUSH", "src", "dst")
        self.assertReply([b"b", b"c"], "LRANGE", "dst", "0", "-1")
        self.assertReply([b"a"], "LRANGE", "src", "0", "-1")
        self.assertRawReply(b"$-1\r\n", "RPOPLPUSH", "nokey", "dst")

    def test_same_key_rotation(self):
        self.assertReply(3, "RPUSH", "l", "a", "b", "c")
        self.assertReply(b"c", "RPOPLPUSH", "l", "l")
        self.assertReply([b"c", b"a", b"b"], "LRANGE", "l", "0", "-1")
        self.assertReply(b"c", "LMOVE", "l", "l", "LEFT", "RIGHT")
        self.assertReply([b"a", b"b", b"c"], "LRANGE", "l", "0", "-1")
        self.assertReply(b"a", "LMOVE", "l", "l", "LEFT", "LEFT")
        self.assertReply([b"a", b"b", b"c"], "LRANGE", "l", "0", "-1")
        self.assertReply(1, "RPUSH", "one", "x")  # a single element survives its own rotation
        self.assertReply(b"x", "RPOPLPUSH", "one", "one")
        self.assertReply([b"x"], "LRANGE", "one", "0", "-1")

    def test_errors(self):
        self.assertReply(1, "RPUSH", "src", "a")
        self.assertErr(SYNTAX, "LMOVE", "src", "dst", "LEFT", "MIDDLE")
        self.assertErr(SYNTAX, "LMOVE", "src", "dst", "UP", "LEFT")
        self.assertErr(SYNTAX, "LMOVE", "nokey", "dst", "UP", "LEFT")
        self.assertReply("OK", "SET", "str", "v")
        # A destination of the wrong type fails before anything is popped.
        self.assertErr(WRONGTYPE, "LMOVE", "src", "str", "LEFT", "LEFT")
        self.assertErr(WRONGTYPE, "RPOPLPUSH", "src", "str")
        self.assertReply([b"a"], "LRANGE", "src", "0", "-1")
        self.assertErr(WRONGTYPE, "RPOPLPUSH", "str", "dst")
        self.assertReply(0, "EXISTS", "dst")
        # A missing source answers nil without looking at the destination.
        self.assertRawReply(b"$-1\r\n", "RPOPLPUSH", "nokey", "str")


class TypeTest(ServerTestCase):
    def test_wrongtype_list_commands_on_string(self):
        self.assertReply("OK", "SET", "s", "v")
        for args in [("LPUSH", "s", "a"), ("RPUSH", "s", "a"), ("LPUSHX", "s", "a"),
                     ("RPUSHX", "s", "a"), ("LPOP", "s"), ("RPOP", "s"), ("LPOP", "s", "2"),
                     ("LLEN", "s"), ("LRANGE", "s", "0", "-1"), ("LINDEX", "s", "0"),
                     ("LSET", "s", "0", "x"), ("LREM", "s", "0", "a"), ("LTRIM", "s", "0", "1"),
                     ("LINSERT", "s", "BEFORE", "a", "b"), ("LPOS", "s", "a"),
                     ("LMOVE", "s", "d", "LEFT", "LEFT"), ("RPOPLPUSH", "s", "d")]:
            self.assertErr(WRONGTYPE, *args)
        self.assertReply(b"v", "GET", "s")
        self.assertReply(0, "EXISTS", "d")

    def test_wrongtype_string_commands_on_list(self):
        self.assertReply(1, "RPUSH", "l", "a")
        for args in [("GET", "l"), ("APPEND", "l", "x"), ("INCR", "l"), ("STRLEN", "l"),
                     ("GETRANGE", "l", "0", "1"), ("HGET", "l", "f"), ("HSET", "l", "f", "v")]:
            self.assertErr(WRONGTYPE, *args)
        self.assertReply([None], "MGET", "l")
        self.assertReply([b"a"], "LRANGE", "l", "0", "-1")

    def test_type_and_encoding(self):
        self.assertReply(1, "RPUSH", "l", "a")
        self.assertReply("list", "TYPE", "l")
        self.assertReply(b"quicklist", "OBJECT", "ENCODING", "l")
        self.assertReply(1001, "RPUSH", "l", *(["x" * 100] * 1000))
        self.assertReply(b"quicklist", "OBJECT", "ENCODING", "l")
        self.assertReply("OK", "SET", "l", "v")  # SET replaces a list
        self.assertReply("string", "TYPE", "l")

    def test_del_and_expire(self):
        self.assertReply(2, "RPUSH", "l", "a", "b")
        self.assertReply(1, "EXPIRE", "l", "100")
        self.assertReply(3, "RPUSH", "l", "c")  # modifying keeps the TTL
        self.assertReply(100, "TTL", "l")
        self.assertReply(1, "DEL", "l")
        self.assertReply(0, "LLEN", "l")


class WatchTest(ServerTestCase):
    def watched_exec(self, setup, change):
        """Runs setup, WATCHes l and d, runs change on another client; returns EXEC's reply."""
        a = self.raw_client()
        for cmd in setup:
            self.raw.call(*cmd)
        self.assertEqual(a.call("WATCH", "l", "d"), "OK")
        self.raw.call(*change)
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("PING"), "QUEUED")
        return a.call("EXEC")

    def test_writes_abort_exec(self):
        setup = [("FLUSHALL",), ("RPUSH", "l", "a", "b", "a")]
        for change in [("LPUSH", "l", "x"), ("RPUSHX", "l", "x"), ("LPOP", "l"), ("RPOP", "l", "2"),
                       ("LSET", "l", "0", "z"), ("LREM", "l", "0", "a"), ("LTRIM", "l", "0", "-1"),
                       ("LINSERT", "l", "AFTER", "b", "c"), ("LMOVE", "l", "d", "LEFT", "LEFT"),
                       ("RPOPLPUSH", "l", "l"), ("LPUSH", "d", "x"), ("RPOPLPUSH", "l", "d")]:
            self.assertIsNone(self.watched_exec(setup, change), change)

    def test_no_op_writes_do_not_abort(self):
        setup = [("FLUSHALL",), ("RPUSH", "l", "a", "b")]
        for change in [("LREM", "l", "0", "zz"), ("LINSERT", "l", "BEFORE", "zz", "c"),
                       ("LPUSHX", "d", "x"), ("LPOP", "l", "0"), ("LPOP", "d"),
                       ("LSET", "l", "9", "x"), ("LRANGE", "l", "0", "-1")]:
            self.assertEqual(self.watched_exec(setup, change), ["PONG"], change)


class ListBenchmarkTest(ServerTestCase):
    def test_benchmark(self):
        tests = "lpush,rpush,lpop,rpop,lrange_100,hset"
        r = subprocess.run([REDIS_BENCHMARK, "-p", str(self.port), "-q", "-n", "20000", "-t", tests],
                           capture_output=True, timeout=180)
        out = (r.stdout + r.stderr).decode("utf-8", "replace")
        self.assertEqual(r.returncode, 0, out)
        self.assertNotIn("ERR", out)
        finals = [l.split("\r")[-1].strip() for l in out.split("\n")]
        for name in ("LPUSH", "RPUSH", "LPOP", "RPOP", "LRANGE_100 (first 100 elements)", "HSET"):
            self.assertTrue(any(re.match(re.escape(name) + r": [\d.]+ requests per second", f)
                                for f in finals), "%s missing from:\n%s" % (name, out))
        # Every pushed element is still there or was popped: both tests ran 20000 times each.
        self.assertEqual(self.raw.call("TYPE", "mylist"), "list")


if __name__ == "__main__":
    unittest.main()
