"""Hash commands: HSET HSETNX HMSET HGET HMGET HDEL HLEN HSTRLEN HEXISTS HKEYS HVALS HGETALL (RESP3 map)
HINCRBY HINCRBYFLOAT HRANDFIELD HSCAN; WRONGTYPE both ways, binary fields and values, deletion of
emptied hashes, WATCH signalling, TYPE / OBJECT ENCODING.

Field order is unspecified (Redis keeps insertion order only while a hash is listpack-encoded), so
replies listing fields are compared as sets or sorted."""

import unittest

from harness import Map, ServerTestCase

NOT_INT = "ERR value is not an integer or out of range"
NOT_FLOAT = "ERR value is not a valid float"
OVERFLOW = "ERR increment or decrement would overflow"
SYNTAX = "ERR syntax error"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
I64_MAX = 9223372036854775807
I64_MIN = -9223372036854775808


def arity(cmd):
    return "ERR wrong number of arguments for '%s' command" % cmd


def pairs(flat):
    """[f1, v1, f2, v2, ...] -> {f1: v1, f2: v2, ...}, failing on a repeated field."""
    assert len(flat) % 2 == 0, flat
    d = dict(zip(flat[0::2], flat[1::2]))
    assert len(d) == len(flat) // 2, "repeated field in %r" % (flat,)
    return d


class SetGetTest(ServerTestCase):
    def test_hset_hget(self):
        self.assertReply(2, "HSET", "h", "a", "1", "b", "2")
        self.assertReply(1, "HSET", "h", "a", "10", "c", "3")  # counts new fields only
        self.assertReply(0, "HSET", "h", "a", "11")
        self.assertReply(1, "HSET", "h2", "x", "1", "x", "2")  # a repeated field: the last wins
        self.assertReply(b"2", "HGET", "h2", "x")
        self.assertReply(b"11", "HGET", "h", "a")
        self.assertRawReply(b"$-1\r\n", "HGET", "h", "nofield")
        self.assertRawReply(b"$-1\r\n", "HGET", "nokey", "a")
        self.assertReply(3, "HLEN", "h")
        self.assertReply(0, "HLEN", "nokey")
        self.assertReply(1, "HSET", "h", "", "")  # empty field and value
        self.assertReply(b"", "HGET", "h", "")
        self.assertReply(1, "HEXISTS", "h", "")

    def test_hmset_hsetnx(self):
        self.assertReply("OK", "HMSET", "h", "a", "1", "b", "2")
        self.assertReply("OK", "HMSET", "h", "a", "3")
        self.assertReply(b"3", "HGET", "h", "a")
        self.assertReply(0, "HSETNX", "h", "a", "9")
        self.assertReply(b"3", "HGET", "h", "a")
        self.assertReply(1, "HSETNX", "h", "c", "9")
        self.assertReply(1, "HSETNX", "new", "f", "v")
        self.assertReply(b"v", "HGET", "new", "f")

    def test_hset_arity(self):
        self.assertErr(arity("hset"), "HSET", "h", "a")
        self.assertErr(arity("hset"), "HSET", "h", "a", "1", "b")
        self.assertErr(arity("hmset"), "HMSET", "h", "a")
        self.assertErr(arity("hmset"), "HMSET", "h", "a", "1", "b")
        self.assertReply(0, "EXISTS", "h")
        self.assertErr(arity("hsetnx"), "HSETNX", "h", "a")
        self.assertErr(arity("hget"), "HGET", "h")
        self.assertErr(arity("hmget"), "HMGET", "h")
        self.assertErr(arity("hdel"), "HDEL", "h")
        self.assertErr(arity("hlen"), "HLEN", "h", "x")
        self.assertErr(arity("hstrlen"), "HSTRLEN", "h")
        self.assertErr(arity("hexists"), "HEXISTS", "h")
        self.assertErr(arity("hgetall"), "HGETALL", "h", "x")
        self.assertErr(arity("hincrby"), "HINCRBY", "h", "f")
        self.assertErr(arity("hincrbyfloat"), "HINCRBYFLOAT", "h", "f")
        self.assertErr(arity("hrandfield"), "HRANDFIELD")
        self.assertErr(arity("hscan"), "HSCAN", "h")

    def test_hmget_hstrlen_hexists(self):
        self.assertReply(2, "HSET", "h", "a", "1", "b", "hello")
        self.assertReply([b"1", None, b"hello", b"1"], "HMGET", "h", "a", "x", "b", "a")
        self.assertReply([None, None], "HMGET", "nokey", "a", "b")
        self.assertReply(5, "HSTRLEN", "h", "b")
        self.assertReply(0, "HSTRLEN", "h", "x")
        self.assertReply(0, "HSTRLEN", "nokey", "x")
        self.assertReply(1, "HEXISTS", "h", "a")
        self.assertReply(0, "HEXISTS", "h", "x")
        self.assertReply(0, "HEXISTS", "nokey", "a")
        self.assertReply(1, "HSET", "h", "n", "-12345")  # an integer-looking value keeps its text
        self.assertReply(6, "HSTRLEN", "h", "n")

    def test_hdel(self):
        self.assertReply(3, "HSET", "h", "a", "1", "b", "2", "c", "3")
        self.assertReply(2, "HDEL", "h", "a", "b", "x", "a")
        self.assertReply(0, "HDEL", "h", "a")
        self.assertReply(0, "HDEL", "nokey", "a")
        self.assertReply(1, "HLEN", "h")
        self.assertReply(1, "HDEL", "h", "c")
        self.assertReply(0, "EXISTS", "h")  # the emptied hash is deleted
        self.assertReply(0, "HLEN", "h")

    def test_keys_vals_getall(self):
        self.assertReply([], "HKEYS", "nokey")
        self.assertReply([], "HVALS", "nokey")
        self.assertReply([], "HGETALL", "nokey")
        data = {b"f%d" % i: b"v%d" % i for i in range(50)}
        self.assertReply(50, "HSET", "h", *[x for kv in data.items() for x in kv])
        keys = self.raw.call("HKEYS", "h")
        vals = self.raw.call("HVALS", "h")
        flat = self.raw.call("HGETALL", "h")
        self.assertEqual(sorted(keys), sorted(data))
        self.assertEqual(sorted(vals), sorted(data.values()))
        self.assertEqual(pairs(flat), data)
        # HKEYS and HVALS walk the hash in the same order as HGETALL.
        self.assertEqual(keys, flat[0::2])
        self.assertEqual(vals, flat[1::2])

    def test_getall_resp3(self):
        c = self.resp3_client()
        self.assertRawReply(b"%0\r\n", "HGETALL", "nokey", client=c)
        self.assertRawReply(b"*0\r\n", "HKEYS", "nokey", client=c)
        self.assertReply(1, "HSET", "h", "a", "1", client=c)
        self.assertRawReply(b"%1\r\n$1\r\na\r\n$1\r\n1\r\n", "HGETALL", "h", client=c)
        self.assertReply(2, "HSET", "h", "b", "2", "c", "3", client=c)
        got = c.call("HGETALL", "h")
        self.assertIsInstance(got, Map)
        self.assertEqual(got, {b"a": b"1", b"b": b"2", b"c": b"3"})
        self.assertRawReply(b"_\r\n", "HGET", "h", "x", client=c)
        self.assertReply([b"1", None], "HMGET", "h", "a", "x", client=c)

    def test_binary(self):
        blobs = [b"\x00", b"a\x00b", b"\xff\xfe", b"\r\n", b"$3\r\nfoo\r\n", bytes(range(256))]
        key = b"h\x00\xff"
        args = []
        for i, b in enumerate(blobs):
            args += [b, b"v" + b]
        self.assertReply(len(blobs), "HSET", key, *args)
        for b in blobs:
            self.assertReply(b"v" + b, "HGET", key, b)
        self.assertReply(0, "HEXISTS", key, b"a")  # a prefix of a field is a different field
        self.assertEqual(pairs(self.raw.call("HGETALL", key)), {b: b"v" + b for b in blobs})
        self.assertReply(0, "EXISTS", b"h")
        self.assertReply(len(blobs), "HDEL", key, *blobs)
        self.assertReply(0, "EXISTS", key)

    def test_redis_py(self):
        self.assertEqual(self.r.hset("h", mapping={"a": 1, "b": 2}), 2)
        self.assertEqual(self.r.hgetall("h"), {b"a": b"1", b"b": b"2"})
        self.assertEqual(self.r.hincrby("h", "a", 5), 6)
        self.assertEqual(self.r.hincrbyfloat("h", "b", 0.5), 2.5)
        self.assertEqual(self.r.hmget("h", "a", "zz"), [b"6", None])


class IncrTest(ServerTestCase):
    def test_hincrby(self):
        self.assertReply(5, "HINCRBY", "h", "a", "5")  # creates the key and the field
        self.assertReply(2, "HINCRBY", "h", "a", "-3")
        self.assertReply(b"2", "HGET", "h", "a")
        self.assertReply(-7, "HINCRBY", "h", "b", "-7")
        self.assertReply(1, "HSET", "h", "big", str(I64_MAX))
        self.assertErr(OVERFLOW, "HINCRBY", "h", "big", "1")
        self.assertReply(I64_MAX - 1, "HINCRBY", "h", "big", "-1")
        self.assertReply(I64_MIN, "HINCRBY", "h", "min", str(I64_MIN))
        self.assertErr(OVERFLOW, "HINCRBY", "h", "min", "-1")
        self.assertReply(str(I64_MIN).encode(), "HGET", "h", "min")

    def test_hincrby_errors(self):
        self.assertReply(3, "HSET", "h", "s", "foo", "sp", " 1", "f", "1.5")
        for field in ("s", "sp", "f"):
            self.assertErr("ERR hash value is not an integer", "HINCRBY", "h", field, "1")
        self.assertReply(b"foo", "HGET", "h", "s")
        self.assertErr(NOT_INT, "HINCRBY", "h", "a", "x")
        self.assertErr(NOT_INT, "HINCRBY", "h", "a", "1.0")
        self.assertErr(NOT_INT, "HINCRBY", "nokey", "a", "x")
        self.assertErr(NOT_INT, "HINCRBY", "nokey", "a", "9223372036854775808")
        self.assertReply(0, "EXISTS", "nokey")  # a failed increment creates nothing

    def test_hincrbyfloat(self):
        self.assertReply(b"10.5", "HINCRBYFLOAT", "h", "a", "10.5")
        self.assertReply(b"10.6", "HINCRBYFLOAT", "h", "a", "0.1")
        self.assertReply(b"10.6", "HGET", "h", "a")
        self.assertReply(b"5000", "HINCRBYFLOAT", "h", "b", "5.0e3")
        self.assertReply(b"5200", "HINCRBYFLOAT", "h", "b", "2.0e2")
        self.assertReply(b"5200", "HGET", "h", "b")
        self.assertReply(b"30", "HINCRBYFLOAT", "h", "c", "3.0e1")
        self.assertReply(b"0", "HINCRBYFLOAT", "h", "c", "-30")
        self.assertReply(1, "HSET", "h", "i", "7")
        self.assertReply(b"7.25", "HINCRBYFLOAT", "h", "i", "0.25")
        self.assertReply(b"-2.75", "HINCRBYFLOAT", "h", "i", "-10")
        huge = ("359538626972463139991842093548208868096772893888658356970628841530353257046248792709"
                "403737216774171128857586838851041378617416726902272110715794556052955234146997955372"
                "576789671236326588091188869859074894581254961338834769297758245552436667197907705664"
                "206565009503223382416235440319971852753604933726679072768").encode()
        self.assertReply(1, "HSET", "h", "m", "1.7976931348623157e308")
        self.assertReply(huge, "HINCRBYFLOAT", "h", "m", "1.7976931348623157e308")

    def test_hincrbyfloat_errors(self):
        self.assertReply(3, "HSET", "h", "s", "foo", "inf", "inf", "sp", " 1")
        self.assertErr("ERR hash value is not a float", "HINCRBYFLOAT", "h", "s", "1")
        self.assertErr("ERR hash value is not a float", "HINCRBYFLOAT", "h", "sp", "1")
        self.assertErr("ERR increment would produce NaN or Infinity", "HINCRBYFLOAT", "h", "inf", "1")
        self.assertErr(NOT_FLOAT, "HINCRBYFLOAT", "h", "a", "abc")
        self.assertErr(NOT_FLOAT, "HINCRBYFLOAT", "h", "a", "nan")
        self.assertErr(NOT_FLOAT, "HINCRBYFLOAT", "h", "a", "")
        self.assertErr(NOT_FLOAT, "HINCRBYFLOAT", "h", "a", " 1")
        self.assertErr("ERR value is NaN or Infinity", "HINCRBYFLOAT", "h", "a", "inf")
        self.assertErr("ERR value is NaN or Infinity", "HINCRBYFLOAT", "nokey", "a", "-inf")
        self.assertErr(NOT_FLOAT, "HINCRBYFLOAT", "nokey", "a", "x")
        self.assertReply(0, "EXISTS", "nokey")
        self.assertReply(0, "HEXISTS", "h", "a")
        self.assertReply(1, "HSET", "h", "m", "1.7976931348623157e308")
        self.assertReply(b"1.7976931348623157e308", "HGET", "h", "m")


class RandFieldTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.data = {b"f%d" % i: b"v%d" % i for i in range(10)}
        self.assertReply(10, "HSET", "h", *[x for kv in self.data.items() for x in kv])

    def test_single(self):
        for _ in range(20):
            self.assertIn(self.raw.call("HRANDFIELD", "h"), self.data)
        self.assertRawReply(b"$-1\r\n", "HRANDFIELD", "nokey")
        self.assertRawReply(b"_\r\n", "HRANDFIELD", "nokey", client=self.resp3_client())

    def test_positive_count(self):
        for n in (1, 3, 9):
            got = self.raw.call("HRANDFIELD", "h", str(n))
            self.assertEqual(len(got), n)
            self.assertEqual(len(set(got)), n)  # distinct
            self.assertTrue(set(got) <= set(self.data))
        for n in (10, 11, I64_MAX):
            self.assertEqual(sorted(self.raw.call("HRANDFIELD", "h", str(n))), sorted(self.data))
        self.assertReply([], "HRANDFIELD", "h", "0")
        self.assertReply([], "HRANDFIELD", "h", "0", "WITHVALUES")
        self.assertReply([], "HRANDFIELD", "nokey", "5")
        self.assertReply([], "HRANDFIELD", "nokey", "-5", "withvalues")

    def test_negative_count(self):
        got = self.raw.call("HRANDFIELD", "h", "-30")
        self.assertEqual(len(got), 30)  # repeats allowed
        self.assertTrue(set(got) <= set(self.data))
        self.assertReply(1, "HSET", "one", "a", "b")
        self.assertReply([b"a"] * 5, "HRANDFIELD", "one", "-5")
        self.assertReply([b"a", b"b"] * 3, "HRANDFIELD", "one", "-3", "WITHVALUES")

    def test_withvalues(self):
        for n in ("3", "10", "50", "-20", "1", "-1"):
            flat = self.raw.call("HRANDFIELD", "h", n, "WITHVALUES")
            want = min(int(n), 10) if int(n) > 0 else -int(n)  # distinct, or with repeats
            self.assertEqual(len(flat), 2 * want)
            for f, v in zip(flat[0::2], flat[1::2]):
                self.assertEqual(self.data[f], v)
            if int(n) > 0:
                self.assertEqual(len(set(flat[0::2])), len(flat) // 2)

    def test_withvalues_resp3(self):
        c = self.resp3_client()
        got = c.call("HRANDFIELD", "h", "4", "withvalues")
        self.assertEqual(len(got), 4)
        for pair in got:
            self.assertEqual(len(pair), 2)
            self.assertEqual(self.data[pair[0]], pair[1])
        got = c.call("HRANDFIELD", "h", "-12", "WITHVALUES")
        self.assertEqual(len(got), 12)
        for f, v in got:
            self.assertEqual(self.data[f], v)
        self.assertReply(1, "HSET", "one", "a", "b", client=c)
        self.assertRawReply(b"*1\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n", "HRANDFIELD", "one", "5",
                            "WITHVALUES", client=c)
        self.assertRawReply(b"*1\r\n$1\r\na\r\n", "HRANDFIELD", "one", "5", client=c)

    def test_errors(self):
        self.assertErr(NOT_INT, "HRANDFIELD", "h", "x")
        self.assertErr(NOT_INT, "HRANDFIELD", "nokey", "1.5")
        self.assertErr(SYNTAX, "HRANDFIELD", "h", "1", "foo")
        self.assertErr(SYNTAX, "HRANDFIELD", "h", "1", "WITHVALUES", "x")
        self.assertErr(SYNTAX, "HRANDFIELD", "nokey", "1", "foo")
        self.assertErr("ERR value is out of range, value must between -9223372036854775807 and "
                       "9223372036854775807", "HRANDFIELD", "h", str(I64_MIN))
        self.assertErr("ERR value is out of range", "HRANDFIELD", "h", str(-I64_MAX), "WITHVALUES")
        self.assertErr("ERR value is out of range", "HRANDFIELD", "nokey", str(I64_MAX // 2 + 1),
                       "WITHVALUES")


class ScanTest(ServerTestCase):
    def scan_all(self, key, *opts):
        """Follows HSCAN cursors until 0; returns {field: value}."""
        cursor, seen = b"0", {}
        for _ in range(10000):
            reply = self.raw.call("HSCAN", key, cursor, *opts)
            self.assertEqual(len(reply), 2)
            cursor, flat = reply
            self.assertEqual(len(flat) % 2, 0)
            seen.update(zip(flat[0::2], flat[1::2]))
            if cursor == b"0":
                return seen
        self.fail("HSCAN did not finish")

    def test_small(self):
        self.assertReply([b"0", []], "HSCAN", "nokey", "0")
        self.assertReply([b"0", []], "HSCAN", "nokey", "0", "COUNT", "0")  # options unchecked
        self.assertReply(2, "HSET", "h", "a", "1", "b", "2")
        reply = self.raw.call("HSCAN", "h", "0")
        self.assertEqual(reply[0], b"0")
        self.assertEqual(pairs(reply[1]), {b"a": b"1", b"b": b"2"})
        self.assertReply([b"0", [b"b", b"2"]], "HSCAN", "h", "0", "MATCH", "b*", "COUNT", "1")
        self.assertReply([b"0", [b"b", b"2"]], "HSCAN", "h", "0", "MATCH", "a*", "match", "b*")
        self.assertReply([b"0", []], "HSCAN", "h", "0", "MATCH", "zz*")

    def test_large(self):
        data = {b"field:%d" % i: b"%d" % i for i in range(1000)}
        self.assertReply(1000, "HSET", "h", *[x for kv in data.items() for x in kv])
        self.assertEqual(self.scan_all("h"), data)
        self.assertEqual(self.scan_all("h", "COUNT", "7"), data)
        want = {f: v for f, v in data.items() if f.startswith(b"field:1")}
        self.assertEqual(self.scan_all("h", "MATCH", "field:1*", "COUNT", "50"), want)
        want = {f: v for f, v in data.items() if len(f) == 7}
        self.assertEqual(self.scan_all("h", "MATCH", "field:?"), want)

    def test_binary(self):
        self.assertReply(2, "HSET", b"h\x00", b"\x00a", b"\xff", b"b", b"")
        self.assertEqual(self.scan_all(b"h\x00"), {b"\x00a": b"\xff", b"b": b""})
        self.assertEqual(self.scan_all(b"h\x00", "MATCH", b"\x00*"), {b"\x00a": b"\xff"})

    def test_errors(self):
        self.assertReply(1, "HSET", "h", "a", "1")
        self.assertErr("ERR invalid cursor", "HSCAN", "h", "abc")
        self.assertErr("ERR invalid cursor", "HSCAN", "h", " 1")
        self.assertErr("ERR invalid cursor", "HSCAN", "h", "18446744073709551616")
        self.assertErr("ERR invalid cursor", "HSCAN", "nokey", "x")  # parsed before the lookup
        self.assertErr(SYNTAX, "HSCAN", "h", "0", "COUNT", "0")
        self.assertErr(SYNTAX, "HSCAN", "h", "0", "COUNT", "-1")
        self.assertErr(NOT_INT, "HSCAN", "h", "0", "COUNT", "x")
        self.assertErr(SYNTAX, "HSCAN", "h", "0", "MATCH")
        self.assertErr(SYNTAX, "HSCAN", "h", "0", "FOO", "bar")
        self.assertErr(SYNTAX, "HSCAN", "h", "0", "TYPE", "hash")


class TypeTest(ServerTestCase):
    def test_wrongtype_hash_commands_on_string(self):
        self.assertReply("OK", "SET", "s", "v")
        for args in [("HSET", "s", "a", "1"), ("HMSET", "s", "a", "1"), ("HSETNX", "s", "a", "1"),
                     ("HGET", "s", "a"), ("HMGET", "s", "a"), ("HDEL", "s", "a"), ("HLEN", "s"),
                     ("HSTRLEN", "s", "a"), ("HEXISTS", "s", "a"), ("HKEYS", "s"), ("HVALS", "s"),
                     ("HGETALL", "s"), ("HINCRBY", "s", "a", "1"), ("HINCRBYFLOAT", "s", "a", "1"),
                     ("HRANDFIELD", "s"), ("HRANDFIELD", "s", "2"), ("HSCAN", "s", "0")]:
            self.assertErr(WRONGTYPE, *args)
        self.assertReply(b"v", "GET", "s")

    def test_wrongtype_other_commands_on_hash(self):
        self.assertReply(1, "HSET", "h", "a", "1")
        for args in [("GET", "h"), ("INCR", "h"), ("APPEND", "h", "x"), ("LPUSH", "h", "x"),
                     ("LRANGE", "h", "0", "-1"), ("LLEN", "h"), ("RPOPLPUSH", "h", "d")]:
            self.assertErr(WRONGTYPE, *args)
        self.assertReply([None], "MGET", "h")
        self.assertReply(b"1", "HGET", "h", "a")

    def test_type_and_encoding(self):
        self.assertReply(1, "HSET", "h", "a", "1")
        self.assertReply("hash", "TYPE", "h")
        self.assertReply(b"listpack", "OBJECT", "ENCODING", "h")
        # The limit is set explicitly: this tests the conversion, not the default (512 in Redis 7.0).
        self.assertReply("OK", "CONFIG", "SET", "hash-max-listpack-entries", "128")
        try:
            self.check_conversions()
        finally:
            self.assertReply("OK", "CONFIG", "SET", "hash-max-listpack-entries", "512")

    def check_conversions(self):
        # hash-max-listpack-entries 128: the 129th field converts the hash.
        self.assertReply(127, "HSET", "h", *[x for i in range(127) for x in ("f%d" % i, "v")])
        self.assertReply(b"listpack", "OBJECT", "ENCODING", "h")
        self.assertReply(1, "HSET", "h", "last", "v")
        self.assertReply(b"hashtable", "OBJECT", "ENCODING", "h")
        # hash-max-listpack-value 64: a 65-byte value or field converts it.
        self.assertReply(1, "HSET", "v", "a", "x" * 64)
        self.assertReply(b"listpack", "OBJECT", "ENCODING", "v")
        self.assertReply(0, "HSET", "v", "a", "x" * 65)
        self.assertReply(b"hashtable", "OBJECT", "ENCODING", "v")
        self.assertReply(1, "HSET", "f", "y" * 65, "1")
        self.assertReply(b"hashtable", "OBJECT", "ENCODING", "f")
        self.assertReply(1, "HINCRBY", "n", "a", "1")
        self.assertReply(b"listpack", "OBJECT", "ENCODING", "n")

    def test_del_and_expire(self):
        self.assertReply(1, "HSET", "h", "a", "1")
        self.assertReply(1, "EXPIRE", "h", "100")
        self.assertReply(1, "HSET", "h", "b", "2")  # modifying keeps the TTL
        self.assertReply(100, "TTL", "h")
        self.assertReply(1, "DEL", "h")
        self.assertReply(0, "HLEN", "h")


class WatchTest(ServerTestCase):
    def watched_exec(self, change):
        """Makes hash h, WATCHes h and d, runs change on another client; returns EXEC's reply."""
        a = self.raw_client()
        self.raw.call("FLUSHALL")
        self.raw.call("HSET", "h", "a", "1", "b", "x")
        self.assertEqual(a.call("WATCH", "h", "d"), "OK")
        self.raw.call(*change)
        self.assertEqual(a.call("MULTI"), "OK")
        self.assertEqual(a.call("PING"), "QUEUED")
        return a.call("EXEC")

    def test_writes_abort_exec(self):
        for change in [("HSET", "h", "c", "3"), ("HSET", "h", "a", "1"), ("HMSET", "h", "a", "2"),
                       ("HSETNX", "h", "c", "3"), ("HDEL", "h", "a"), ("HINCRBY", "h", "a", "1"),
                       ("HINCRBYFLOAT", "h", "a", "1.5"), ("HSET", "d", "a", "1"),
                       ("HINCRBY", "d", "a", "1")]:
            self.assertIsNone(self.watched_exec(change), change)

    def test_no_op_writes_do_not_abort(self):
        for change in [("HSETNX", "h", "a", "2"), ("HDEL", "h", "zz"), ("HDEL", "d", "a"),
                       ("HINCRBY", "h", "b", "1"), ("HINCRBYFLOAT", "h", "b", "1"),
                       ("HGETALL", "h"), ("HSCAN", "h", "0")]:
            self.assertEqual(self.watched_exec(change), ["PONG"], change)


if __name__ == "__main__":
    unittest.main()
