"""Bitmap commands: SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO. Replies and errors byte for
byte, limits (bit offsets, proto-max-bulk-len), int-encoded strings read as their text, keyspace events,
COMMAND INFO, redis-py's helpers, and (when the server under test is ordis) a randomized run that sends
the same commands to it and to redis-server and compares every reply.

Every expectation was recorded from redis-server 7.0.15 and holds against it.
"""

import os
import random
import unittest

from harness import IS_ORDIS, Err, RawClient, RespError, Server, ServerTestCase
from test_notifications import EventsClient

NOT_INT = "ERR value is not an integer or out of range"
SYNTAX = "ERR syntax error"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
BAD_OFFSET = "ERR bit offset is not an integer or out of range"
BAD_BIT = "ERR bit is not an integer or out of range"
BAD_BITPOS_BIT = "ERR The bit argument must be 1 or 0."
BAD_TYPE = ("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
            "i64 is.")
BAD_OVERFLOW = "ERR Invalid OVERFLOW type specified"
RO_WRITE = "ERR BITFIELD_RO only supports the GET subcommand"
NOT_ARITY = "ERR BITOP NOT must be called with a single source key."
I64_MAX = 9223372036854775807
I64_MIN = -9223372036854775808
REDIS_PATH = "/usr/bin/redis-server"


class SetBitGetBitTest(ServerTestCase):
    def test_set_and_get(self):
        self.assertReply(0, "SETBIT", "k", "7", "1")
        self.assertReply(b"\x01", "GET", "k")
        self.assertReply(1, "SETBIT", "k", "7", "1")
        self.assertReply(0, "SETBIT", "k", "0", "1")
        self.assertReply(1, "SETBIT", "k", "7", "0")
        self.assertReply(0, "SETBIT", "k", "23", "0")
        self.assertReply(b"\x80\x00\x00", "GET", "k")
        self.assertReply(b"raw", "OBJECT", "ENCODING", "k")
        self.assertReply(1, "GETBIT", "k", "0")
        self.assertReply(0, "GETBIT", "k", "1")
        self.assertReply(0, "GETBIT", "k", "1000000")
        self.assertReply(0, "GETBIT", "nokey", "4294967295")

    def test_int_encoded_string_is_its_text(self):
        self.assertReply("OK", "SET", "n", "1")  # '1' is 00110001
        self.assertReply(1, "GETBIT", "n", "2")
        self.assertReply(0, "GETBIT", "n", "1")
        self.assertReply(3, "BITCOUNT", "n")
        self.assertReply(0, "SETBIT", "n", "6", "1")
        self.assertReply(b"3", "GET", "n")
        self.assertReply(b"raw", "OBJECT", "ENCODING", "n")
        self.assertReply(4, "INCR", "n")

    def test_argument_errors(self):
        for offset in ["-1", "x", "#1", "4294967296", " 1", "1.0"]:
            self.assertErr(BAD_OFFSET, "SETBIT", "k", offset, "1")
            self.assertErr(BAD_OFFSET, "GETBIT", "k", offset)
        self.assertErr(BAD_OFFSET, "SETBIT", "k", "x", "2")
        for value in ["2", "-1", "x", " 1", ""]:
            self.assertErr(BAD_BIT, "SETBIT", "k", "0", value)
        self.assertReply(0, "EXISTS", "k")
        self.assertErr("ERR wrong number of arguments for 'setbit' command", "SETBIT", "k", "0")
        self.assertErr("ERR wrong number of arguments for 'getbit' command", "GETBIT", "k")

    def test_largest_offset(self):
        self.assertReply(0, "SETBIT", "k", "4294967295", "1")
        self.assertReply(536870912, "STRLEN", "k")
        self.assertReply(1, "GETBIT", "k", "4294967295")
        self.assertReply(1, "BITCOUNT", "k")
        self.assertReply(4294967295, "BITPOS", "k", "1")
        self.assertReply(1, "DEL", "k")

    def test_offset_limit_follows_proto_max_bulk_len(self):
        self.assertReply("OK", "CONFIG", "SET", "proto-max-bulk-len", "1mb")
        try:
            self.assertErr(BAD_OFFSET, "SETBIT", "k", "8388608", "1")
            self.assertReply(0, "SETBIT", "k", "8388607", "1")
            self.assertReply(1048576, "STRLEN", "k")
            self.assertReply([0], "BITFIELD", "f", "SET", "u16", "8388600", "1")
            self.assertReply(1048577, "STRLEN", "f")
            self.assertErr(BAD_OFFSET, "BITFIELD", "f", "GET", "u8", "8388608")
        finally:
            self.assertReply("OK", "CONFIG", "SET", "proto-max-bulk-len", "512mb")

    def test_ttl_kept(self):
        self.assertReply("OK", "SET", "k", "a", "EX", "100")
        self.assertReply(0, "SETBIT", "k", "100", "1")
        self.assertReply(100, "TTL", "k")

    def test_watch_sees_only_changes(self):
        other = self.raw_client()
        self.assertReply(0, "SETBIT", "k", "3", "1")
        for change, aborted in [(["SETBIT", "k", "3", "1"], False), (["SETBIT", "k", "3", "0"], True),
                                (["SETBIT", "k", "20", "0"], True),
                                (["BITFIELD", "k", "SET", "u8", "0", "0"], False),
                                (["BITFIELD", "k", "SET", "u8", "0", "9"], True),
                                (["BITFIELD", "k", "GET", "u8", "0"], False),
                                (["BITOP", "NOT", "k", "k"], True)]:
            self.assertReply("OK", "WATCH", "k")
            other.call(*change)
            self.assertReply("OK", "MULTI")
            self.assertReply("QUEUED", "PING")
            self.assertReply(None if aborted else ["PONG"], "EXEC")

    def test_wrong_type(self):
        self.assertReply(1, "RPUSH", "l", "a")
        self.assertErr(WRONGTYPE, "SETBIT", "l", "0", "1")
        self.assertErr(BAD_BIT, "SETBIT", "l", "0", "2")
        self.assertErr(WRONGTYPE, "GETBIT", "l", "0")
        self.assertErr(WRONGTYPE, "BITCOUNT", "l")
        self.assertErr(WRONGTYPE, "BITCOUNT", "l", "x", "y")
        self.assertErr(WRONGTYPE, "BITPOS", "l", "1")
        self.assertErr(BAD_BITPOS_BIT, "BITPOS", "l", "2")
        self.assertErr(WRONGTYPE, "BITOP", "AND", "d", "l")
        self.assertReply("OK", "SET", "s", "v")
        self.assertErr(WRONGTYPE, "BITOP", "OR", "d", "s", "l")
        self.assertReply(0, "EXISTS", "d")
        self.assertErr(WRONGTYPE, "BITFIELD", "l", "GET", "u8", "0")
        self.assertErr(WRONGTYPE, "BITFIELD", "l", "SET", "u8", "0", "1")
        self.assertErr(WRONGTYPE, "BITFIELD", "l")
        self.assertErr(WRONGTYPE, "BITFIELD_RO", "l", "GET", "u8", "0")


class BitCountTest(ServerTestCase):
    def test_ranges(self):
        self.assertReply("OK", "SET", "k", "foobar")
        cases = [((), 26), (("0", "0"), 4), (("1", "1"), 6), (("1", "1", "byte"), 6),
                 (("5", "30", "BIT"), 17), (("0", "-1"), 26), (("-2", "-1"), 7),
                 (("-100", "100"), 26), (("-1", "-2"), 0), (("3", "1"), 0), (("6", "100"), 0),
                 (("0", "0", "bit"), 0), (("1", "2", "bit"), 2), (("-3", "-1", "bit"), 1),
                 (("-1000", "-47", "bit"), 1), (("3", "12", "bit"), 5)]
        for args, expected in cases:
            self.assertReply(expected, "BITCOUNT", "k", *args)

    def test_long_string(self):
        v = bytes((i * 37 + 11) & 0xff for i in range(1000))
        self.assertReply("OK", "SET", "k", v)
        self.assertReply(sum(bin(b).count("1") for b in v), "BITCOUNT", "k")
        self.assertReply(sum(bin(b).count("1") for b in v[3:991]), "BITCOUNT", "k", "3", "990")
        bits = "".join(format(b, "08b") for b in v)
        self.assertReply(bits[29:7926].count("1"), "BITCOUNT", "k", "29", "7925", "BIT")

    def test_arguments(self):
        # Redis 7.0 answers a missing key before it reads the range.
        self.assertReply(0, "BITCOUNT", "nokey")
        self.assertReply(0, "BITCOUNT", "nokey", "0")
        self.assertReply(0, "BITCOUNT", "nokey", "x", "y", "z")
        self.assertReply("OK", "SET", "k", "a")
        self.assertErr(SYNTAX, "BITCOUNT", "k", "0")
        self.assertErr(SYNTAX, "BITCOUNT", "k", "0", "1", "bit", "x")
        self.assertErr(NOT_INT, "BITCOUNT", "k", "x", "1")
        self.assertErr(NOT_INT, "BITCOUNT", "k", "0", "x")
        self.assertErr(SYNTAX, "BITCOUNT", "k", "0", "1", "bits")
        self.assertReply(0, "BITCOUNT", "k", "-1", "-5", "foo")  # empty before the unit is read
        self.assertErr(SYNTAX, "BITCOUNT", "k", "0", "-1", "foo")
        self.assertReply(3, "BITCOUNT", "k", "0", "-1", b"bit\x00x")  # a C string
        self.assertReply("OK", "SET", "e", "")
        self.assertReply(0, "BITCOUNT", "e")
        self.assertReply(0, "BITCOUNT", "e", "0", "-1", "bit")


class BitPosTest(ServerTestCase):
    def test_positions(self):
        self.assertReply("OK", "SET", "k", b"\xff\xf0\x00")
        self.assertReply(12, "BITPOS", "k", "0")
        self.assertReply("OK", "SET", "k", b"\x00\xff\xf0")
        cases = [(("1", "0"), 8), (("1", "2"), 16), (("1", "2", "-1", "byte"), 16),
                 (("1", "7", "15", "bit"), 8), (("1", "7", "-3", "bit"), 8),
                 (("0", "8", "19", "bit"), -1), (("0", "8", "20", "bit"), 20),
                 (("0", "9", "10", "bit"), -1), (("1", "-1", "-1", "bit"), -1), (("1", "3", "1"), -1)]
        for args, expected in cases:
            self.assertReply(expected, "BITPOS", "k", *args)
        self.assertReply("OK", "SET", "k", b"\x00\x00\x00")
        self.assertReply(-1, "BITPOS", "k", "1")
        self.assertReply(0, "BITPOS", "k", "0")
        self.assertReply(-1, "BITPOS", "nokey", "1")
        self.assertReply(0, "BITPOS", "nokey", "0")

    def test_clear_bit_past_the_end_only_without_end(self):
        self.assertReply("OK", "SET", "k", b"\xff\xff\xff")
        cases = [(("0",), 24), (("0", "0"), 24), (("0", "2"), 24), (("0", "0", "-1"), -1),
                 (("0", "0", "100"), -1), (("0", "0", "-1", "bit"), -1), (("1", "0", "-1", "bit"), 0)]
        for args, expected in cases:
            self.assertReply(expected, "BITPOS", "k", *args)
        self.assertReply("OK", "SET", "e", "")
        self.assertReply(-1, "BITPOS", "e", "0")
        self.assertReply(-1, "BITPOS", "e", "1")

    def test_reversed_negative_range_is_clamped(self):
        self.assertReply("OK", "SET", "k", b"\x01\x00\x00")
        self.assertReply(7, "BITPOS", "k", "1", "-10", "-20")
        self.assertReply(0, "BITCOUNT", "k", "-10", "-20")

    def test_long_string(self):
        self.assertReply("OK", "SET", "k", bytes(5000))
        self.assertReply(-1, "BITPOS", "k", "1")
        self.assertReply(0, "SETBIT", "k", "39001", "1")
        self.assertReply(39001, "BITPOS", "k", "1")
        self.assertReply(39001, "BITPOS", "k", "1", "3", "4875")
        self.assertReply(-1, "BITPOS", "k", "1", "3", "4874")
        self.assertReply(39001, "BITPOS", "k", "1", "39001", "39001", "BIT")
        self.assertReply(-1, "BITPOS", "k", "1", "39002", "-1", "BIT")
        self.assertReply(5000, "BITOP", "NOT", "n", "k")
        self.assertReply(39001, "BITPOS", "n", "0")
        self.assertReply(40000, "BITPOS", "n", "0", "4876")
        self.assertReply(-1, "BITPOS", "n", "0", "4876", "-1")

    def test_arguments(self):
        self.assertErr(BAD_BITPOS_BIT, "BITPOS", "nokey", "2")
        self.assertErr(NOT_INT, "BITPOS", "nokey", "x")
        self.assertReply(0, "BITPOS", "nokey", "0", "x", "y", "z")
        self.assertReply("OK", "SET", "k", "a")
        self.assertErr(NOT_INT, "BITPOS", "k", "1", "x")
        self.assertErr(NOT_INT, "BITPOS", "k", "1", "x", "0", "foo")  # start, then the unit, then end
        self.assertErr(SYNTAX, "BITPOS", "k", "1", "0", "x", "foo")
        self.assertErr(NOT_INT, "BITPOS", "k", "1", "0", "x", "bit")
        self.assertErr(SYNTAX, "BITPOS", "k", "1", "0", "1", "bit", "x")
        self.assertErr("ERR wrong number of arguments for 'bitpos' command", "BITPOS", "k")


class BitOpTest(ServerTestCase):
    def test_operations(self):
        self.assertReply("OK", "SET", "a", b"\xf0\x0f\xaa")
        self.assertReply("OK", "SET", "b", b"\xff\x01")
        for op, expected in [("and", b"\xf0\x01\x00"), ("OR", b"\xff\x0f\xaa"), ("Xor", b"\x0f\x0e\xaa")]:
            self.assertReply(3, "BITOP", op, "d", "a", "b")
            self.assertReply(expected, "GET", "d")
        self.assertReply(3, "BITOP", "NOT", "d", "a")
        self.assertReply(b"\x0f\xf0\x55", "GET", "d")
        self.assertReply(b"raw", "OBJECT", "ENCODING", "d")

    def test_missing_and_empty(self):
        self.assertReply("OK", "SET", "a", "abc")
        self.assertReply(3, "BITOP", "AND", "d", "a", "nokey")
        self.assertReply(b"\x00\x00\x00", "GET", "d")
        self.assertReply(3, "BITOP", "OR", "d", "nokey", "a")
        self.assertReply(b"abc", "GET", "d")
        self.assertReply("OK", "SET", "d", "x", "EX", "100")
        self.assertReply(0, "BITOP", "OR", "d", "nokey", "nokey2")
        self.assertReply(0, "EXISTS", "d")
        self.assertReply("OK", "SET", "e", "")
        self.assertReply("OK", "SET", "d", "x")
        self.assertReply(0, "BITOP", "AND", "d", "e")
        self.assertReply(0, "EXISTS", "d")

    def test_destination_replaced(self):
        self.assertReply("OK", "SET", "a", "1")
        self.assertReply(1, "RPUSH", "d", "x")
        self.assertReply(1, "EXPIRE", "d", "100")
        self.assertReply(1, "BITOP", "NOT", "d", "a")
        self.assertReply(b"\xce", "GET", "d")
        self.assertReply(-1, "TTL", "d")
        self.assertReply("OK", "SET", "s", "ab")
        self.assertReply(2, "BITOP", "XOR", "s", "s", "a")
        self.assertReply(bytes([ord("a") ^ ord("1"), ord("b")]), "GET", "s")

    def test_long_strings(self):
        rnd = random.Random(7)
        a, b, c = (bytes(rnd.randrange(256) for _ in range(n)) for n in (10000, 7003, 9999))
        for k, v in (("a", a), ("b", b), ("c", c)):
            self.assertReply("OK", "SET", k, v)
        pad = lambda v: v + bytes(10000 - len(v))
        x, y, z = pad(a), pad(b), pad(c)
        expected = {"AND": bytes(p & q & r for p, q, r in zip(x, y, z)),
                    "OR": bytes(p | q | r for p, q, r in zip(x, y, z)),
                    "XOR": bytes(p ^ q ^ r for p, q, r in zip(x, y, z))}
        for op, value in expected.items():
            self.assertReply(10000, "BITOP", op, "d", "a", "b", "c")
            self.assertReply(value, "GET", "d")
        self.assertReply(10000, "BITOP", "NOT", "d", "a")
        self.assertReply(bytes(255 - p for p in a), "GET", "d")

    def test_arguments(self):
        self.assertErr(SYNTAX, "BITOP", "NAND", "d", "a")
        self.assertErr(SYNTAX, "BITOP", "DIFF", "d", "a", "b")
        self.assertErr(NOT_ARITY, "BITOP", "NOT", "d", "a", "b")
        self.assertErr("ERR wrong number of arguments for 'bitop' command", "BITOP", "AND", "d")
        self.assertReply(0, "BITOP", b"and\x00", "d", "a")


class BitfieldTest(ServerTestCase):
    def test_set_get_incrby(self):
        self.assertReply([0, 100], "BITFIELD", "k", "SET", "i8", "0", "100", "GET", "i8", "0")
        self.assertReply([1, 6], "BITFIELD", "k", "INCRBY", "i5", "100", "1", "GET", "u4", "0")
        self.assertReply(14, "STRLEN", "k")
        self.assertReply([0, 255, -1], "BITFIELD", "k", "SET", "u8", "#1", "255", "GET", "u8", "8",
                         "GET", "i8", "8")
        self.assertReply([0x64ff, 2, -4], "BITFIELD", "k", "GET", "u16", "#0", "GET", "u3", "4",
                         "GET", "i3", "5")
        self.assertReply([], "BITFIELD", "k")
        self.assertReply([0, 0], "BITFIELD", "nokey", "GET", "u8", "0", "GET", "i64", "1000")
        self.assertReply(0, "EXISTS", "nokey")
        self.assertReply("OK", "SET", "m", "-12")
        self.assertReply([0x2d3132], "BITFIELD", "m", "GET", "u24", "0")

    def test_widths(self):
        self.assertReply([0, -2, I64_MAX - 1], "BITFIELD", "k", "SET", "i64", "3", "-2", "GET", "i64", "3",
                         "GET", "u63", "4")
        self.assertReply(b"\x1f\xff\xff\xff\xff\xff\xff\xff\xc0", "GET", "k")
        self.assertReply([-2, I64_MIN], "BITFIELD", "k", "SET", "i64", "3", str(I64_MIN), "GET", "i64", "3")
        self.assertReply([0, -1, 1], "BITFIELD", "k", "SET", "u1", "0", "1", "GET", "i1", "0",
                         "GET", "u1", "0")
        self.assertReply([0], "BITFIELD", "k", "SET", "u63", "#1", str(I64_MAX))
        self.assertReply([I64_MAX, I64_MAX], "BITFIELD", "k", "GET", "u63", "63", "GET", "i64", "62")

    def test_overflow(self):
        cmd = ("BITFIELD", "k", "INCRBY", "u2", "100", "1", "OVERFLOW", "SAT", "INCRBY", "u2", "102", "1")
        for expected in ([1, 1], [2, 2], [3, 3], [0, 3]):
            self.assertReply(expected, *cmd)
        self.assertReply([None], "BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u2", "102", "1")
        self.assertReply([3], "BITFIELD", "k", "GET", "u2", "102")
        self.assertReply([0, -128], "BITFIELD", "s", "SET", "i8", "0", "127", "INCRBY", "i8", "0", "1")
        self.assertReply([-128, 127], "BITFIELD", "s", "OVERFLOW", "SAT", "INCRBY", "i8", "0", "-1000",
                         "INCRBY", "i8", "0", "1000")
        self.assertReply([None, None, 127, -128], "BITFIELD", "s", "OVERFLOW", "FAIL", "INCRBY", "i8",
                         "0", "1", "SET", "i8", "0", "128", "SET", "i8", "0", "-128", "GET", "i8", "0")
        self.assertReply([-128, -56], "BITFIELD", "s", "OVERFLOW", "WRAP", "SET", "i8", "0", "200",
                         "GET", "i8", "0")
        self.assertReply([200, 255], "BITFIELD", "s", "OVERFLOW", "SAT", "SET", "u8", "0", "300",
                         "GET", "u8", "0")
        self.assertReply([255, I64_MAX, 0], "BITFIELD", "u", "OVERFLOW", "WRAP", "INCRBY", "u8", "0", "-1",
                         "INCRBY", "u63", "8", "-1", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "-300")
        self.assertReply([I64_MAX, I64_MIN, I64_MIN, I64_MIN], "BITFIELD", "w", "INCRBY", "i64", "0",
                         str(I64_MAX), "INCRBY", "i64", "0", "1", "OVERFLOW", "SAT", "INCRBY", "i64",
                         "0", "-1", "INCRBY", "i64", "0", str(I64_MIN))

    def test_overflow_quirks(self):
        self.assertReply([0, 255], "BITFIELD", "q", "OVERFLOW", "SAT", "SET", "u8", "0", "-5",
                         "GET", "u8", "0")
        self.assertReply([0, 127], "BITFIELD", "r", "OVERFLOW", "SAT", "SET", "i8", "0", str(I64_MIN),
                         "GET", "i8", "0")
        self.assertReply([127, -128], "BITFIELD", "r", "OVERFLOW", "SAT", "SET", "i8", "0",
                         "-4611686018427387904", "GET", "i8", "0")
        self.assertReply([-128, 0], "BITFIELD", "r", "OVERFLOW", "WRAP", "SET", "i8", "0", str(I64_MIN),
                         "GET", "i8", "0")
        self.assertReply([255], "BITFIELD", "q", "GET", "u8", "#2305843009213693952")

    def test_fail_still_grows(self):
        self.assertReply([None], "BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u8", "16", "300")
        self.assertReply(b"\x00\x00\x00", "GET", "k")

    def test_arguments(self):
        for t in ["u64", "i65", "i0", "I8", "i08", "", "u", "8"]:
            self.assertErr(BAD_TYPE, "BITFIELD", "k", "GET", t, "0")
        self.assertReply([0], "BITFIELD", "k", "GET", b"u8\x00x", "0")
        for offset in ["-1", "#-1", "#536870912", " 1", "x"]:
            self.assertErr(BAD_OFFSET, "BITFIELD", "k", "GET", "u8", offset)
        self.assertReply([0], "BITFIELD", "k", "GET", "u8", "#536870911")
        self.assertErr(SYNTAX, "BITFIELD", "k", "GET", "u8")
        self.assertErr(SYNTAX, "BITFIELD", "k", "SET", "u8", "0")
        self.assertErr(SYNTAX, "BITFIELD", "k", "INCRBY", "u8", "0")
        self.assertErr(NOT_INT, "BITFIELD", "k", "SET", "u8", "0", "x")
        self.assertErr(SYNTAX, "BITFIELD", "k", "OVERFLOW")
        self.assertErr(BAD_OVERFLOW, "BITFIELD", "k", "OVERFLOW", "foo", "GET", "u8", "0")
        self.assertErr(SYNTAX, "BITFIELD", "k", "foo")
        self.assertErr(BAD_TYPE, "BITFIELD", "k", "SET", "u8", "0", "1", "GET", "u64", "0")
        self.assertReply(0, "EXISTS", "k")

    def test_bitfield_ro(self):
        self.assertReply("OK", "SET", "k", b"\x12\x34")
        self.assertReply([0x12, 4], "BITFIELD_RO", "k", "GET", "u8", "0", "GET", "i4", "#3")
        self.assertReply([], "BITFIELD_RO", "k")
        self.assertErr(RO_WRITE, "BITFIELD_RO", "k", "GET", "u8", "0", "SET", "u8", "0", "1")
        self.assertErr(BAD_OFFSET, "BITFIELD_RO", "k", "SET", "u8", "0", "1", "GET", "u8", "x")
        self.assertReply([0x12], "BITFIELD_RO", "k", "OVERFLOW", "SAT", "GET", "u8", "0")
        self.assertReply(b"\x12\x34", "GET", "k")


class RedisPyTest(ServerTestCase):
    def test_helpers(self):
        r = self.r
        self.assertEqual(r.setbit("k", 7, 1), 0)
        self.assertEqual(r.setbit("k", 7, 0), 1)
        self.assertEqual(r.getbit("k", 7), 0)
        r.set("f", "foobar")
        self.assertEqual(r.bitcount("f"), 26)
        self.assertEqual(r.bitcount("f", 1, 1), 6)
        self.assertEqual(r.bitcount("f", 5, 30, mode="BIT"), 17)
        self.assertEqual(r.bitpos("f", 1), 1)
        self.assertEqual(r.bitpos("f", 0, 2, -1, mode="BYTE"), 16)
        self.assertEqual(r.bitop("AND", "d", "f", "k"), 6)
        self.assertEqual(r.get("d"), b"\x00" * 6)
        self.assertEqual(r.bitfield("bf").set("u8", 0, 200).incrby("u8", 0, 100).get("i8", 0).execute(),
                         [0, 44, 44])
        self.assertEqual(r.bitfield("bf", default_overflow="SAT").incrby("u8", 0, 300).execute(), [255])
        self.assertEqual(r.bitfield("bf").overflow("FAIL").incrby("u8", 0, 1).execute(), [None])
        self.assertEqual(r.bitfield("bf").incrby("u4", "#1", 3, overflow="WRAP").execute(), [2])
        self.assertEqual(r.execute_command("BITFIELD_RO", "bf", "GET", "u8", "0"), [242])


class EventsTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.events = EventsClient(self.port)
        self._clients.append(self.events)
        self.assertReply("OK", "CONFIG", "SET", "notify-keyspace-events", "AKEn")

    def tearDown(self):
        self.raw.call("CONFIG", "SET", "notify-keyspace-events", "")
        super().tearDown()

    def test_events(self):
        cases = [
            ([], ["SETBIT", "b", "3", "1"], ["new b", "setbit b"]),
            ([["SETBIT", "b", "3", "1"]], ["SETBIT", "b", "3", "1"], []),
            ([["SETBIT", "b", "3", "1"]], ["SETBIT", "b", "3", "0"], ["setbit b"]),
            ([["SETBIT", "b", "3", "0"]], ["SETBIT", "b", "100", "0"], ["setbit b"]),
            ([], ["BITFIELD", "c", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "300"], ["new c"]),
            ([["SET", "c", "a"]], ["BITFIELD", "c", "SET", "u8", "0", "97"], []),
            ([["SET", "c", "a"]], ["BITFIELD", "c", "SET", "u8", "0", "1", "SET", "u8", "0", "2"],
             ["setbit c"]),
            ([["SET", "c", "a"]], ["BITFIELD", "c", "SET", "u8", "16", "0"], ["setbit c"]),
            ([["SET", "c", "a"]], ["BITFIELD", "c", "OVERFLOW", "FAIL", "INCRBY", "u8", "16", "300"], []),
            ([["SET", "c", "a"]], ["BITFIELD", "c", "GET", "u8", "0"], []),
            ([["SET", "c", "a"]], ["BITFIELD_RO", "c", "GET", "u8", "0"], []),
            ([["SET", "a", "1"]], ["BITOP", "OR", "d", "a"], ["new d", "set d"]),
            ([["SET", "a", "1"], ["SET", "d", "x"]], ["BITOP", "OR", "d", "a"], ["set d"]),
            ([["SET", "d", "x"]], ["BITOP", "AND", "d", "nokey"], ["del d"]),
            ([], ["BITOP", "AND", "d", "nokey"], []),
            ([["SET", "a", "1"]], ["GETBIT", "a", "0"], []),
            ([["SET", "a", "1"]], ["BITCOUNT", "a"], []),
        ]
        for setup, command, expected in cases:
            self.raw.call("FLUSHALL")
            for s in setup:
                self.raw.call(*s)
            self.events.until_marker(self.raw)
            self.assertNotIsInstance(self.raw.call(*command), RespError, command)
            self.assertEqual(self.events.events(self.raw), expected, (setup, command))

    def test_keymiss(self):
        self.assertReply("OK", "CONFIG", "SET", "notify-keyspace-events", "Em")
        self.events.until_marker(self.raw)
        self.raw.call("SETBIT", "a", "0", "1")  # a write's lookup: no keymiss
        self.raw.call("BITOP", "OR", "d", "a", "m1")
        self.raw.call("GETBIT", "m2", "0")
        self.raw.call("BITCOUNT", "m3")
        self.raw.call("BITPOS", "m4", "1")
        self.raw.call("BITFIELD", "m5", "GET", "u8", "0")
        self.raw.call("BITFIELD_RO", "m6", "GET", "u8", "0")
        self.raw.call("BITFIELD", "m7", "SET", "u8", "0", "1")
        self.assertEqual(self.events.until_marker(self.raw),
                         [("__keyevent@0__:keymiss", k) for k in ("m1", "m2", "m3", "m4", "m5", "m6")])


class CommandInfoTest(ServerTestCase):
    EXPECTED = {
        "setbit": [4, ["write", "denyoom"], 1, 1, 1, ["@write", "@bitmap", "@slow"]],
        "getbit": [3, ["readonly", "fast"], 1, 1, 1, ["@read", "@bitmap", "@fast"]],
        "bitcount": [-2, ["readonly"], 1, 1, 1, ["@read", "@bitmap", "@slow"]],
        "bitpos": [-3, ["readonly"], 1, 1, 1, ["@read", "@bitmap", "@slow"]],
        "bitop": [-4, ["write", "denyoom"], 2, -1, 1, ["@write", "@bitmap", "@slow"]],
        "bitfield": [-2, ["write", "denyoom"], 1, 1, 1, ["@write", "@bitmap", "@slow"]],
        "bitfield_ro": [-2, ["readonly", "fast"], 1, 1, 1, ["@read", "@bitmap", "@fast"]],
    }

    def test_command_info(self):
        for name, expected in self.EXPECTED.items():
            info = self.raw.call("COMMAND", "INFO", name)[0]
            self.assertEqual(info[0], name.encode())
            self.assertEqual(info[1:7], expected, name)

    def test_getkeys(self):
        self.assertReply([b"d", b"a", b"b"], "COMMAND", "GETKEYS", "BITOP", "AND", "d", "a", "b")
        self.assertReply([b"k"], "COMMAND", "GETKEYS", "BITFIELD", "k", "GET", "u8", "0")

    def test_acl_category(self):
        cat = self.raw.call("ACL", "CAT", "bitmap")
        self.assertEqual(sorted(cat), sorted(n.encode() for n in self.EXPECTED))


class AclKeyAccessTest(ServerTestCase):
    """Redis 7.0's key specs: BITOP's destination is written only (OW) and its sources read (RO);
    BITFIELD with nothing but GET and OVERFLOW reads its key (RO), otherwise reads and writes it."""

    NOPERM = "NOPERM this user has no permissions to access one of the keys used as arguments"

    def test_read_and_write_patterns(self):
        self.assertReply("OK", "ACL", "SETUSER", "bm", "on", "nopass", "%R~src*", "%W~dst*", "+@all")
        self.assertReply("OK", "SET", "src1", "a")
        user = self.raw_client()
        self.assertReply("OK", "AUTH", "bm", "x", client=user)
        cases = [(["BITOP", "AND", "dst", "src1"], 1), (["BITOP", "NOT", "dst", "src1"], 1),
                 (["BITOP", "OR", "dst", "src1", "dst"], None), (["BITOP", "OR", "src1", "dst"], None),
                 (["BITFIELD", "src1", "GET", "u8", "0"], [97]), (["BITFIELD", "src1"], []),
                 (["BITFIELD", "src1", "OVERFLOW", "SAT", "GET", "u8", "0"], [97]),
                 (["BITFIELD", "src1", "GET", "u8", "0", "foo"], None),
                 (["BITFIELD", "src1", "GET", "u8"], None),
                 (["BITFIELD", "src1", "GET", "u8", "0", "INCRBY", "u8", "0", "1"], None),
                 (["BITFIELD", "dst", "GET", "u8", "0"], None), (["SETBIT", "dst", "0", "1"], None),
                 (["BITFIELD_RO", "src1", "GET", "u8", "0"], [97]), (["GETBIT", "src1", "0"], 0),
                 (["GETBIT", "dst", "0"], None)]
        for command, expected in cases:
            self.assertReply(Err(self.NOPERM) if expected is None else expected, *command, client=user)
        self.assertReply(1, "ACL", "DELUSER", "bm")


# ---------------------------------------------------------------------------------------------------------
# Randomized: the same commands to the server under test and to redis-server
# ---------------------------------------------------------------------------------------------------------


class CommandGenerator:
    """Random bitmap commands, valid and not, over a few keys (one of them a list)."""

    KEYS = [b"a", b"b", b"c", b"d", b"l"]

    def __init__(self, seed):
        self.rnd = random.Random(seed)

    def key(self):
        return self.rnd.choice(self.KEYS)

    def case(self, word):
        return self.rnd.choice([word.lower(), word.upper(), word.capitalize()])

    def number(self, lo, hi):
        r = self.rnd.random()
        if r < 0.03:
            return self.rnd.choice(["x", "", "1.5", " 1", "+1", "01", "-0", "9223372036854775808"])
        return str(self.rnd.randint(lo, hi))

    def offset(self, bits=0):
        r = self.rnd.random()
        if r < 0.03:
            # Bad ones only: a valid offset near 2^32 would make every later command copy 512 MB.
            return self.rnd.choice(["-1", "4294967296", "x", "#2", "2305843009213693952", " 1"])
        if bits and r < 0.25:
            return "#%d" % self.rnd.randint(0, 6)
        return str(self.rnd.randint(0, 400))

    def field_type(self):
        if self.rnd.random() < 0.03:
            return self.rnd.choice(["u64", "i65", "i0", "U8", "x", "i08"])
        signed = self.rnd.random() < 0.5
        return ("i%d" if signed else "u%d") % self.rnd.randint(1, 64 if signed else 63)

    def value(self):
        r = self.rnd.random()
        if r < 0.3:
            return str(self.rnd.randint(-3, 3))
        if r < 0.6:
            return str(self.rnd.randint(-300, 300))
        if r < 0.95:
            return str(self.rnd.randint(I64_MIN, I64_MAX))
        return self.rnd.choice([str(I64_MIN), str(I64_MAX), "x"])

    def string_value(self):
        """Short texts and ints, or long runs of zeros or ones with a few other bytes: the word-wise
        paths of BITCOUNT, BITPOS and BITOP."""
        if self.rnd.random() < 0.5:
            return self.rnd.choice([b"", b"1", b"-12", b"foobar", b"\xff\x00\xff"])
        fill = self.rnd.choice([0, 0xFF])
        v = bytearray([fill]) * self.rnd.randint(0, 1500)
        for _ in range(self.rnd.randint(0, 3)):
            if v:
                v[self.rnd.randrange(len(v))] = self.rnd.randrange(256)
        return bytes(v)

    def range_args(self, max_parts):
        parts = self.rnd.randint(0, max_parts)
        span = self.rnd.choice([60, 2000, 12000])
        args = [self.number(-span, span) for _ in range(min(parts, 2))]
        if parts == 3:
            args.append(self.rnd.choice(["bit", "BYTE", "Bit", "byte", "bits"]))
        if parts > 3:
            args.append("extra")
        return args

    def command(self):
        kind = self.rnd.randrange(10)
        if kind < 2:
            return ["SETBIT", self.key(), self.offset(), self.rnd.choice(["0", "1", "1", "0", "2"])]
        if kind == 2:
            return ["GETBIT", self.key(), self.offset()]
        if kind == 3:
            return ["BITCOUNT", self.key()] + self.range_args(4)
        if kind == 4:
            return ["BITPOS", self.key(), self.rnd.choice(["0", "1", "1", "0", "2"])] + self.range_args(4)
        if kind == 5:
            op = self.rnd.choice(["AND", "OR", "XOR", "NOT", "NOT", "NAND"])
            n = 1 if op == "NOT" and self.rnd.random() < 0.9 else self.rnd.randint(1, 4)
            return ["BITOP", self.case(op), self.key()] + [self.key() for _ in range(n)]
        if kind == 6:
            return ["SET", self.key(), self.string_value()]
        name = "BITFIELD_RO" if self.rnd.random() < 0.15 else "BITFIELD"
        args = [name, self.key()]
        for _ in range(self.rnd.randint(0, 4)):
            r = self.rnd.random()
            if r < 0.2:
                args += [self.case("overflow"), self.rnd.choice(["WRAP", "sat", "Fail", "fail", "nope"])]
                continue
            if r < 0.45:
                args += [self.case("get"), self.field_type(), self.offset(bits=1)]
            else:
                t = self.field_type()
                args += [self.case(self.rnd.choice(["set", "incrby"])), t, self.offset(bits=1),
                         self.value()]
        return args


@unittest.skipUnless(IS_ORDIS and os.path.exists(REDIS_PATH), "compares ordis with redis-server")
class DifferentialTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.servers = [Server().start(), Server(path=REDIS_PATH).start()]

    @classmethod
    def tearDownClass(cls):
        for s in cls.servers:
            s.stop()

    def test_random_commands_reply_alike(self):
        clients = [RawClient(s.port) for s in self.servers]
        try:
            for c in clients:
                self.assertEqual(c.call("FLUSHALL"), "OK")
                self.assertEqual(c.call("RPUSH", "l", "x"), 1)
            gen = CommandGenerator(20240601)
            for i in range(10000):
                command = gen.command()
                ours, theirs = (c.call(*command) for c in clients)
                self.assertEqual(ours, theirs, "command %d: %r" % (i, command))
                if i % 100 == 0:
                    for key in CommandGenerator.KEYS[:4]:
                        ours, theirs = (c.call("GET", key) for c in clients)
                        self.assertEqual(ours, theirs, key)
        finally:
            for c in clients:
                c.close()


if __name__ == "__main__":
    unittest.main()
