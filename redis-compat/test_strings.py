"""String commands: GET SET and options, SETNX SETEX PSETEX GETSET GETDEL GETEX MGET MSET MSETNX APPEND
STRLEN INCR DECR INCRBY DECRBY INCRBYFLOAT GETRANGE SETRANGE SUBSTR, binary values."""

import time
import unittest

from harness import ServerTestCase

NOT_INT = "ERR value is not an integer or out of range"
NOT_FLOAT = "ERR value is not a valid float"
OVERFLOW = "ERR increment or decrement would overflow"
SYNTAX = "ERR syntax error"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
I64_MAX = 9223372036854775807
I64_MIN = -9223372036854775808


class GetSetTest(ServerTestCase):
    def test_get_set(self):
        self.assertReply(None, "GET", "k")
        self.assertReply("OK", "SET", "k", "v")
        self.assertReply(b"v", "GET", "k")
        self.assertReply("OK", "SET", "k", "v2")
        self.assertReply(b"v2", "GET", "k")
        self.assertReply("OK", "SET", "", "empty key")
        self.assertReply(b"empty key", "GET", "")
        self.assertReply("OK", "SET", "e", "")
        self.assertReply(b"", "GET", "e")

    def test_arity(self):
        self.assertErr("ERR wrong number of arguments for 'set' command", "SET")
        self.assertErr("ERR wrong number of arguments for 'set' command", "SET", "a")
        self.assertErr("ERR wrong number of arguments for 'get' command", "GET")
        self.assertErr("ERR wrong number of arguments for 'get' command", "GET", "a", "b")

    def test_binary_values_and_keys(self):
        blobs = [b"\x00", b"a\x00b", b"\xff\xfe\x00\x01", b"\r\n", b"$3\r\nfoo\r\n", bytes(range(256))]
        for i, v in enumerate(blobs):
            self.assertReply("OK", "SET", b"bin\x00\xff%d" % i, v)
        for i, v in enumerate(blobs):
            self.assertReply(v, "GET", b"bin\x00\xff%d" % i)
        self.assertReply(None, "GET", b"bin\x00")  # prefix of a key is a different key
        self.assertReply(None, "GET", b"bin")
        self.assertReply(1, "EXISTS", b"bin\x00\xff0")
        self.assertReply(256, "STRLEN", b"bin\x00\xff5")

    def test_large_value(self):
        v = bytes(range(256)) * 4096  # 1 MiB
        self.assertReply("OK", "SET", "big", v)
        self.assertReply(v, "GET", "big")
        self.assertReply(len(v), "STRLEN", "big")

    def test_redis_py(self):
        self.assertTrue(self.r.set("a", b"\x00\xff"))
        self.assertEqual(self.r.get("a"), b"\x00\xff")
        self.assertIsNone(self.r.get("nokey"))


class SetOptionsTest(ServerTestCase):
    def test_ex_px(self):
        self.assertReply("OK", "SET", "a", "1", "EX", "100")
        self.assertReply(100, "TTL", "a")
        self.assertReply("OK", "SET", "b", "1", "PX", "100000")
        pttl = self.raw.call("PTTL", "b")
        self.assertTrue(99000 < pttl <= 100000, pttl)
        self.assertReply("OK", "SET", "c", "1", "ex", "50")  # options are case-insensitive
        self.assertReply(50, "TTL", "c")

    def test_exat_pxat(self):
        now = int(time.time())
        self.assertReply("OK", "SET", "a", "1", "EXAT", str(now + 1000))
        self.assertReply(now + 1000, "EXPIRETIME", "a")
        self.assertReply("OK", "SET", "b", "1", "PXAT", str((now + 1000) * 1000 + 123))
        self.assertReply((now + 1000) * 1000 + 123, "PEXPIRETIME", "b")
        # An absolute time in the past is accepted and the key is gone at once.
        self.assertReply("OK", "SET", "c", "1", "EXAT", "1")
        self.assertReply(None, "GET", "c")
        self.assertReply(0, "EXISTS", "c")

    def test_invalid_expire(self):
        e = "ERR invalid expire time in 'set' command"
        for opt, val in [("EX", "0"), ("EX", "-1"), ("PX", "0"), ("PX", "-100"), ("EXAT", "0"),
                         ("PXAT", "0"), ("EX", "9999999999999999"), ("EX", str(I64_MAX)),
                         ("PX", str(I64_MAX))]:
            self.assertErr(e, "SET", "a", "1", opt, val)
        self.assertErr(NOT_INT, "SET", "a", "1", "EX", "abc")
        self.assertErr(NOT_INT, "SET", "a", "1", "EX", "1.5")
        self.assertErr(NOT_INT, "SET", "a", "1", "PX", "")
        self.assertReply(0, "EXISTS", "a")  # no failed SET wrote anything

    def test_syntax_errors(self):
        for opts in [["EX"], ["EX", "10", "PX", "100"], ["NX", "XX"], ["KEEPTTL", "EX", "10"],
                     ["FOO"], ["EX", "10", "EXAT", "20"], ["PXAT", "1", "KEEPTTL"], ["GET", "FOO"]]:
            self.assertErr(SYNTAX, "SET", "a", "1", *opts)
        self.assertReply(0, "EXISTS", "a")

    def test_nx_xx(self):
        self.assertReply(None, "SET", "k", "1", "XX")
        self.assertReply(0, "EXISTS", "k")
        self.assertReply("OK", "SET", "k", "1", "NX")
        self.assertReply(None, "SET", "k", "2", "NX")
        self.assertReply(b"1", "GET", "k")
        self.assertReply("OK", "SET", "k", "3", "XX")
        self.assertReply(b"3", "GET", "k")

    def test_keepttl(self):
        self.assertReply("OK", "SET", "a", "1", "EX", "100")
        self.assertReply("OK", "SET", "a", "2", "KEEPTTL")
        self.assertReply(100, "TTL", "a")
        self.assertReply(b"2", "GET", "a")
        # A plain SET drops the TTL.
        self.assertReply("OK", "SET", "a", "3")
        self.assertReply(-1, "TTL", "a")

    def test_get_option(self):
        self.assertReply(None, "SET", "a", "1", "GET")
        self.assertReply(b"1", "SET", "a", "2", "GET")
        self.assertReply(b"2", "GET", "a")
        # With NX (allowed since 7.0): returns the old value and does not set.
        self.assertReply(b"2", "SET", "a", "3", "NX", "GET")
        self.assertReply(b"2", "GET", "a")
        self.assertReply(None, "SET", "new", "4", "NX", "GET")
        self.assertReply(b"4", "GET", "new")
        # With XX: returns the old value, or nil and no write.
        self.assertReply(b"2", "SET", "a", "5", "XX", "GET")
        self.assertReply(None, "SET", "missing", "5", "XX", "GET")
        self.assertReply(0, "EXISTS", "missing")
        self.assertReply(b"5", "SET", "a", "6", "GET", "EX", "100")
        self.assertReply(100, "TTL", "a")


class SetVariantsTest(ServerTestCase):
    def test_setnx(self):
        self.assertReply(1, "SETNX", "a", "1")
        self.assertReply(0, "SETNX", "a", "2")
        self.assertReply(b"1", "GET", "a")

    def test_setex_psetex(self):
        self.assertReply("OK", "SETEX", "a", "10", "x")
        self.assertReply(10, "TTL", "a")
        self.assertReply(b"x", "GET", "a")
        self.assertReply("OK", "PSETEX", "b", "10000", "y")
        self.assertTrue(9000 < self.raw.call("PTTL", "b") <= 10000)
        self.assertErr("ERR invalid expire time in 'setex' command", "SETEX", "a", "0", "x")
        self.assertErr("ERR invalid expire time in 'setex' command", "SETEX", "a", "-5", "x")
        self.assertErr("ERR invalid expire time in 'psetex' command", "PSETEX", "a", "0", "x")
        self.assertErr(NOT_INT, "SETEX", "a", "abc", "x")
        self.assertErr("ERR wrong number of arguments for 'setex' command", "SETEX", "a", "10")

    def test_getset(self):
        self.assertReply(None, "GETSET", "a", "1")
        self.assertReply(b"1", "GETSET", "a", "2")
        self.assertReply(b"2", "GET", "a")
        self.assertReply("OK", "SET", "t", "1", "EX", "100")
        self.assertReply(b"1", "GETSET", "t", "2")
        self.assertReply(-1, "TTL", "t")  # GETSET drops the TTL

    def test_getdel(self):
        self.assertReply("OK", "SET", "a", "1")
        self.assertReply(b"1", "GETDEL", "a")
        self.assertReply(None, "GETDEL", "a")
        self.assertReply(0, "EXISTS", "a")

    def test_getex(self):
        self.assertReply(None, "GETEX", "missing")
        self.assertReply(None, "GETEX", "missing", "EX", "10")
        self.assertReply(0, "EXISTS", "missing")
        self.assertReply("OK", "SET", "a", "v")
        self.assertReply(b"v", "GETEX", "a")
        self.assertReply(-1, "TTL", "a")
        self.assertReply(b"v", "GETEX", "a", "EX", "100")
        self.assertReply(100, "TTL", "a")
        self.assertReply(b"v", "GETEX", "a", "PX", "50000")
        self.assertTrue(49000 < self.raw.call("PTTL", "a") <= 50000)
        self.assertReply(b"v", "GETEX", "a", "PERSIST")
        self.assertReply(-1, "TTL", "a")
        now = int(time.time())
        self.assertReply(b"v", "GETEX", "a", "EXAT", str(now + 500))
        self.assertReply(now + 500, "EXPIRETIME", "a")
        self.assertReply(b"v", "GETEX", "a", "PXAT", str((now + 500) * 1000 + 7))
        self.assertReply((now + 500) * 1000 + 7, "PEXPIRETIME", "a")

    def test_getex_errors(self):
        self.assertReply("OK", "SET", "a", "v")
        e = "ERR invalid expire time in 'getex' command"
        self.assertErr(e, "GETEX", "a", "EX", "0")
        self.assertErr(e, "GETEX", "a", "EX", "-1")
        self.assertErr(e, "GETEX", "a", "PX", "0")
        self.assertErr(e, "GETEX", "a", "EXAT", "0")
        self.assertErr(NOT_INT, "GETEX", "a", "EX", "x")
        for opts in [["PX", "10", "EX", "10"], ["FOO"], ["PERSIST", "EX", "10"], ["KEEPTTL"], ["EX"]]:
            self.assertErr(SYNTAX, "GETEX", "a", *opts)
        self.assertReply(-1, "TTL", "a")


class MultiKeyTest(ServerTestCase):
    def test_mset_mget(self):
        self.assertReply("OK", "MSET", "a", "1", "b", "2", "c", "3")
        self.assertReply([b"1", b"2", None, b"3"], "MGET", "a", "b", "nokey", "c")
        self.assertReply("OK", "MSET", "a", "x", "a", "y")  # the last one wins
        self.assertReply(b"y", "GET", "a")
        self.assertErr("ERR wrong number of arguments for 'mset' command", "MSET", "a", "1", "b")
        self.assertErr("ERR wrong number of arguments for 'mset' command", "MSET")
        self.assertErr("ERR wrong number of arguments for 'mget' command", "MGET")

    def test_msetnx(self):
        self.assertReply(1, "MSETNX", "a", "1", "b", "2")
        self.assertReply(0, "MSETNX", "b", "x", "c", "3")  # all or nothing
        self.assertReply([b"1", b"2", None], "MGET", "a", "b", "c")
        self.assertErr("ERR wrong number of arguments for 'msetnx' command", "MSETNX", "c", "3", "d")

    def test_mset_clears_ttl(self):
        self.assertReply("OK", "SET", "a", "1", "EX", "100")
        self.assertReply("OK", "MSET", "a", "2")
        self.assertReply(-1, "TTL", "a")

    def test_mget_wrong_type_is_nil(self):
        self.make_wrongtype_key("l")
        self.assertReply("OK", "SET", "a", "1")
        self.assertReply([b"1", None], "MGET", "a", "l")


class AppendStrlenTest(ServerTestCase):
    def test_append(self):
        self.assertReply(5, "APPEND", "e", "hello")
        self.assertReply(11, "APPEND", "e", " world")
        self.assertReply(b"hello world", "GET", "e")
        self.assertReply(11, "APPEND", "e", "")
        self.assertReply(14, "APPEND", "e", b"\x00\xff\x00")
        self.assertReply(b"hello world\x00\xff\x00", "GET", "e")

    def test_append_keeps_ttl(self):
        self.assertReply("OK", "SET", "a", "x", "EX", "100")
        self.assertReply(2, "APPEND", "a", "y")
        self.assertReply(100, "TTL", "a")

    def test_append_to_integer(self):
        self.assertReply("OK", "SET", "n", "12")
        self.assertReply(3, "APPEND", "n", "3")
        self.assertReply(124, "INCR", "n")

    def test_strlen(self):
        self.assertReply(0, "STRLEN", "nokey")
        self.assertReply("OK", "SET", "a", "hello")
        self.assertReply(5, "STRLEN", "a")
        self.assertReply("OK", "SET", "n", "12345")
        self.assertReply(5, "STRLEN", "n")
        self.assertReply("OK", "SET", "neg", "-1")
        self.assertReply(2, "STRLEN", "neg")


class CounterTest(ServerTestCase):
    def test_incr_decr(self):
        self.assertReply(1, "INCR", "n")
        self.assertReply(-1, "DECR", "d")
        self.assertReply("OK", "SET", "n", "10")
        self.assertReply(11, "INCR", "n")
        self.assertReply(10, "DECR", "n")
        self.assertReply(15, "INCRBY", "n", "5")
        self.assertReply(12, "DECRBY", "n", "3")
        self.assertReply(2, "INCRBY", "n", "-10")
        self.assertReply(b"2", "GET", "n")  # stored back as a string
        self.assertReply(-5, "DECRBY", "n", "7")
        self.assertReply(b"-5", "GET", "n")

    def test_incr_keeps_ttl(self):
        self.assertReply("OK", "SET", "n", "1", "EX", "100")
        self.assertReply(2, "INCR", "n")
        self.assertReply(100, "TTL", "n")

    def test_not_an_integer(self):
        for v in ["abc", " 1", "1 ", "01", "+1", "-0", "0x10", "", "1.5", "1e3",
                  "9223372036854775808", "-9223372036854775809"]:
            self.assertReply("OK", "SET", "s", v)
            self.assertErr(NOT_INT, "INCR", "s")
            self.assertReply(v.encode(), "GET", "s")  # unchanged
        self.assertReply("OK", "SET", "n", "1")
        self.assertErr(NOT_INT, "INCRBY", "n", "abc")
        self.assertErr(NOT_INT, "INCRBY", "n", "1.5")
        self.assertErr(NOT_INT, "INCRBY", "n", "")
        self.assertErr(NOT_INT, "DECRBY", "n", "9223372036854775808")

    def test_overflow(self):
        self.assertReply("OK", "SET", "big", str(I64_MAX))
        self.assertErr(OVERFLOW, "INCR", "big")
        self.assertErr(OVERFLOW, "INCRBY", "big", "1")
        self.assertErr(OVERFLOW, "DECRBY", "big", "-1")
        self.assertReply(str(I64_MAX).encode(), "GET", "big")
        self.assertReply("OK", "SET", "small", str(I64_MIN))
        self.assertErr(OVERFLOW, "DECR", "small")
        self.assertErr(OVERFLOW, "INCRBY", "small", "-1")
        self.assertReply(I64_MIN + 1, "INCR", "small")
        # DECRBY cannot negate INT64_MIN: a distinct message.
        self.assertReply("OK", "SET", "n", "0")
        self.assertErr("ERR decrement would overflow", "DECRBY", "n", str(I64_MIN))
        self.assertReply(I64_MAX, "INCRBY", "n", str(I64_MAX))
        self.assertReply(-1, "INCRBY", "n", str(I64_MIN))

    def test_redis_py(self):
        self.assertEqual(self.r.incr("c"), 1)
        self.assertEqual(self.r.incrby("c", 41), 42)
        self.assertEqual(self.r.decr("c"), 41)


class IncrByFloatTest(ServerTestCase):
    def test_basic(self):
        # Replies are bulk strings, shortest form, no trailing zeros (Redis computes in long double).
        self.assertReply("OK", "SET", "f", "10.5")
        self.assertReply(b"10.6", "INCRBYFLOAT", "f", "0.1")
        self.assertReply(b"5.6", "INCRBYFLOAT", "f", "-5")
        self.assertReply(b"5.6", "GET", "f")
        self.assertReply(b"1.5", "INCRBYFLOAT", "new", "1.5")
        self.assertReply("OK", "SET", "i", "3")
        self.assertReply(b"3", "INCRBYFLOAT", "i", "0")
        self.assertReply(b"4", "INCRBYFLOAT", "i", "1.0")
        self.assertReply("OK", "SET", "e", "5.0e3")
        self.assertReply(b"5200", "INCRBYFLOAT", "e", "2.0e2")
        self.assertReply("OK", "SET", "one", "1")
        self.assertReply(b"1.1", "INCRBYFLOAT", "one", "0.1")
        self.assertReply(b"11.6", "INCRBYFLOAT", "one", "10.5")
        self.assertReply(b"-0.5", "INCRBYFLOAT", "neg", "-0.5")

    def test_errors(self):
        self.assertReply("OK", "SET", "f", "1")
        self.assertErr(NOT_FLOAT, "INCRBYFLOAT", "f", "abc")
        self.assertErr(NOT_FLOAT, "INCRBYFLOAT", "f", "")
        self.assertErr(NOT_FLOAT, "INCRBYFLOAT", "f", " 1")
        self.assertErr(NOT_FLOAT, "INCRBYFLOAT", "f", "nan")
        self.assertErr("ERR increment would produce NaN or Infinity", "INCRBYFLOAT", "f", "inf")
        self.assertReply("OK", "SET", "s", "hello")
        self.assertErr(NOT_FLOAT, "INCRBYFLOAT", "s", "1")
        self.assertReply(b"1", "GET", "f")
        self.assertReply("OK", "SET", "f", "10.5")
        self.assertErr(NOT_INT, "INCR", "f")

    def test_keeps_ttl(self):
        self.assertReply("OK", "SET", "f", "1", "EX", "100")
        self.assertReply(b"2.5", "INCRBYFLOAT", "f", "1.5")
        self.assertReply(100, "TTL", "f")


class RangeTest(ServerTestCase):
    def test_getrange(self):
        self.assertReply("OK", "SET", "s", "This is a string")
        cases = [("0", "3", b"This"), ("-3", "-1", b"ing"), ("0", "-1", b"This is a string"),
                 ("10", "100", b"string"), ("5", "3", b""), ("-100", "-50", b"T"), ("-1", "-5", b""),
                 ("100", "200", b""), ("0", str(I64_MAX), b"This is a string"),
                 (str(I64_MIN), "2", b"Thi")]
        for start, end, want in cases:
            self.assertReply(want, "GETRANGE", "s", start, end)
        self.assertReply(b"", "GETRANGE", "nokey", "0", "-1")
        self.assertReply("OK", "SET", "e", "")
        self.assertReply(b"", "GETRANGE", "e", "0", "-1")
        self.assertErr(NOT_INT, "GETRANGE", "s", "a", "1")
        self.assertErr("ERR wrong number of arguments for 'getrange' command", "GETRANGE", "s", "0")

    def test_getrange_integer_encoded(self):
        self.assertReply("OK", "SET", "n", "123456")
        self.assertReply(b"234", "GETRANGE", "n", "1", "3")

    def test_substr(self):
        self.assertReply("OK", "SET", "s", "This is a string")
        self.assertReply(b"This", "SUBSTR", "s", "0", "3")
        self.assertReply(b"ing", "SUBSTR", "s", "-3", "-1")

    def test_setrange(self):
        self.assertReply("OK", "SET", "s", "This is a string")
        self.assertReply(16, "SETRANGE", "s", "5", "XX")
        self.assertReply(b"This XX a string", "GET", "s")
        self.assertReply(18, "SETRANGE", "s", "14", "NG!!")
        self.assertReply(b"This XX a striNG!!", "GET", "s")
        # Padding with zero bytes, on a new key too.
        self.assertReply(6, "SETRANGE", "k", "3", "abc")
        self.assertReply(b"\x00\x00\x00abc", "GET", "k")
        # An empty value does not create the key and does not change an existing one.
        self.assertReply(0, "SETRANGE", "k2", "0", "")
        self.assertReply(0, "EXISTS", "k2")
        self.assertReply(18, "SETRANGE", "s", "100", "")
        self.assertReply(18, "STRLEN", "s")

    def test_setrange_integer_encoded(self):
        self.assertReply("OK", "SET", "n", "123")
        self.assertReply(3, "SETRANGE", "n", "0", "9")
        self.assertReply(b"923", "GET", "n")
        self.assertReply(924, "INCR", "n")

    def test_setrange_errors(self):
        self.assertReply("OK", "SET", "s", "abc")
        self.assertErr("ERR offset is out of range", "SETRANGE", "s", "-1", "x")
        self.assertErr(NOT_INT, "SETRANGE", "s", "a", "x")
        # offset + len(value) > 512 MiB (proto-max-bulk-len); nothing is allocated.
        self.assertErr("ERR string exceeds maximum allowed size (proto-max-bulk-len)",
                       "SETRANGE", "s", "536870912", "x")
        self.assertErr("ERR string exceeds maximum allowed size (proto-max-bulk-len)",
                       "SETRANGE", "new", "536870911", "xy")
        self.assertReply(0, "EXISTS", "new")
        self.assertReply(b"abc", "GET", "s")


class WrongTypeTest(ServerTestCase):
    def test_string_commands_on_wrong_type(self):
        self.make_wrongtype_key("l")
        for cmd in [["GET", "l"], ["GETSET", "l", "y"], ["GETDEL", "l"], ["GETEX", "l"],
                    ["GETEX", "l", "EX", "10"], ["APPEND", "l", "x"], ["STRLEN", "l"],
                    ["INCR", "l"], ["DECR", "l"], ["INCRBY", "l", "2"], ["DECRBY", "l", "2"],
                    ["INCRBYFLOAT", "l", "1"], ["GETRANGE", "l", "0", "1"],
                    ["SETRANGE", "l", "0", "x"], ["SUBSTR", "l", "0", "1"], ["SET", "l", "1", "GET"],
                    ["SET", "l", "1", "NX", "GET"]]:
            self.assertErr(WRONGTYPE, *cmd)
        self.assertReply(0, "SETNX", "l", "x")
        self.assertReply(0, "MSETNX", "l", "x")
        self.assertReply(1, "EXISTS", "l")
        # Plain SET overwrites a value of any type.
        self.assertReply("OK", "SET", "l", "now a string")
        self.assertReply(b"now a string", "GET", "l")
        self.assertReply("string", "TYPE", "l")


if __name__ == "__main__":
    unittest.main()
