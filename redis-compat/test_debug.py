"""DEBUG's subcommands that tools and test suites use, with enable-debug-command on: OBJECT,
POPULATE, SET-ACTIVE-EXPIRE, DIGEST, DIGEST-VALUE (Redis's digests, so equal content gives the same
hex on both servers), PROTOCOL (each RESP type, in RESP2 and RESP3), LOG, ERROR, SLEEP."""

import re
import time
import unittest

from harness import Err, ServerTestCase, Status, wait_until

ZERO = Status("0" * 40)


class DebugTest(ServerTestCase):
    server_args = ("--enable-debug-command", "yes")

    def load_every_type(self):
        c = self.raw
        c.call("SET", "s", "abc")
        c.call("SET", "i", "123")
        c.call("RPUSH", "l", "a", "b", "c")
        c.call("ZADD", "z", "1.5", "a", "0.1", "b")
        c.call("SADD", "st", "x", "y", "1")
        c.call("HSET", "h", "f", "v", "g", "w")
        c.call("SET", "e", "v", "EX", "100")

    def test_digest_value_of_each_type(self):
        self.load_every_type()
        # Values from redis-server 7.0.15 for the same keys.
        self.assertReply([
            Status("21ffcd2d36aebffca02995acb412bcb827d4c1db"),
            Status("89f7f51b707418f666d5b45e053bd5bbbf82ac2b"),
            Status("8bf72d812571eea9b927f3c11beb0c4165a6ff89"),
            Status("09248147a8d667e310816b5412a4796dae07d20c"),
            Status("03ee76a1ebe8db27d61b3ea784011d5acc537675"),
            Status("d127864ed50239662bf61bafc9bda63c17da5b37"),
            Status("311b17018163335616e089f6b951c82c477335ac"),
            ZERO,
        ], "DEBUG", "DIGEST-VALUE", "s", "i", "l", "z", "st", "h", "e", "nosuch")
        self.assertReply(Status("25af02a2df9498f9646045a5e71030e6247bd03d"), "DEBUG", "DIGEST")

    def test_digest_follows_content_not_history(self):
        self.assertReply(ZERO, "DEBUG", "DIGEST")
        self.raw.call("RPUSH", "l", "a", "b")
        self.raw.call("SADD", "s", "1", "2", "3")
        first = self.raw.call("DEBUG", "DIGEST")
        self.raw.call("SREM", "s", "2")
        self.assertNotEqual(self.raw.call("DEBUG", "DIGEST"), first)
        self.raw.call("SADD", "s", "2")
        self.assertEqual(self.raw.call("DEBUG", "DIGEST"), first)
        self.raw.call("LPUSH", "l", "x")
        self.raw.call("LPOP", "l")
        self.assertEqual(self.raw.call("DEBUG", "DIGEST"), first)
        # The same content in another database differs.
        self.raw.call("MOVE", "l", "1")
        self.assertNotEqual(self.raw.call("DEBUG", "DIGEST"), first)

    def test_object(self):
        self.load_every_type()
        line = self.raw.call("DEBUG", "OBJECT", "s")
        self.assertRegex(line, r"^Value at:0x[0-9a-f]+ refcount:1 encoding:embstr "
                               r"serializedlength:4 lru:\d+ lru_seconds_idle:\d+$")
        line = self.raw.call("DEBUG", "OBJECT", "l")
        self.assertRegex(line, r" encoding:quicklist serializedlength:19 lru:\d+ lru_seconds_idle:\d+ "
                               r"ql_nodes:1 ql_avg_node:3\.00 ql_listpack_max:-2 ql_compressed:0 "
                               r"ql_uncompressed_size:16$")
        self.assertRegex(self.raw.call("DEBUG", "OBJECT", "z"),
                         r" encoding:listpack serializedlength:33 ")
        self.assertErr("ERR no such key", "DEBUG", "OBJECT", "nosuch")

    def test_populate(self):
        self.raw.call("SET", "key:1", "mine")
        self.assertReply("OK", "DEBUG", "POPULATE", "3")
        self.assertReply(3, "DBSIZE")
        self.assertReply(b"value:0", "GET", "key:0")
        self.assertReply(b"mine", "GET", "key:1")  # existing keys are kept
        self.assertReply("OK", "DEBUG", "POPULATE", "2", "p", "10")
        self.assertReply(b"value:1\x00\x00\x00", "GET", "p:1")
        self.assertReply("OK", "DEBUG", "POPULATE", "1", "q", "3")
        self.assertReply(b"val", "GET", "q:0")
        self.assertReply("OK", "DEBUG", "POPULATE", "0")
        for bad in (("-1",), ("x",), ("1", "p", "-1"), ("1", "p", "y")):
            self.assertErr("ERR value is out of range, must be positive", "DEBUG", "POPULATE", *bad)

    def test_set_active_expire(self):
        self.assertReply("OK", "DEBUG", "SET-ACTIVE-EXPIRE", "0")
        try:
            self.raw.call("SET", "k", "v", "PX", "1")
            time.sleep(0.3)  # several active-expiry cycles: none may take the key
            self.assertEqual(self.raw.call("DBSIZE"), 1)
            self.assertReply("OK", "DEBUG", "SET-ACTIVE-EXPIRE", "1")
            self.assertTrue(wait_until(lambda: self.raw.call("DBSIZE") == 0, 5))
        finally:
            self.raw.call("DEBUG", "SET-ACTIVE-EXPIRE", "1")

    def test_protocol_resp2(self):
        c = self.raw
        c.send_command("DEBUG", "PROTOCOL", "double")
        self.assertEqual(c.read_raw(11), b"$5\r\n3.141\r\n")
        expected = {
            "string": b"Hello World",
            "integer": 12345,
            "bignum": b"1234567999999999999999999999999999999",
            "null": None,
            "array": [0, 1, 2],
            "set": [0, 1, 2],
            "map": [0, 0, 1, 1, 2, 0],
            "attrib": b"Some real reply following the attribute",
            "verbatim": b"This is a verbatim\nstring",
            "true": 1,
            "false": 0,
        }
        for name, value in expected.items():
            self.assertEqual(c.call("DEBUG", "PROTOCOL", name), value, name)
        self.assertErr("ERR RESP2 is not supported by this command", "DEBUG", "PROTOCOL", "push")
        self.assertErr("ERR Wrong protocol type name. Please use one of the following: "
                       "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|"
                       "true|false", "DEBUG", "PROTOCOL", "nosuch")

    def test_protocol_resp3(self):
        c = self.resp3_client()
        for name, wire in [
            ("double", b",3.141\r\n"),
            ("bignum", b"(1234567999999999999999999999999999999\r\n"),
            ("null", b"_\r\n"),
            ("set", b"~3\r\n:0\r\n:1\r\n:2\r\n"),
            ("map", b"%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n"),
            ("attrib", b"|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n"
                       b"$39\r\nSome real reply following the attribute\r\n"),
            ("push", b">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n"
                     b"$40\r\nSome real reply following the push reply\r\n"),
            ("verbatim", b"=29\r\ntxt:This is a verbatim\nstring\r\n"),
            ("true", b"#t\r\n"),
        ]:
            c.send_command("DEBUG", "PROTOCOL", name)
            self.assertEqual(c.read_raw(len(wire)), wire, name)

    def test_reload(self):
        self.load_every_type()
        digest = self.raw.call("DEBUG", "DIGEST")
        self.assertReply("OK", "DEBUG", "RELOAD")
        self.assertEqual(self.raw.call("DEBUG", "DIGEST"), digest)
        self.assertGreater(self.raw.call("TTL", "e"), 0)
        self.raw.call("SET", "later", "x")
        self.assertReply("OK", "DEBUG", "RELOAD", "NOSAVE")
        self.assertEqual(self.raw.call("DEBUG", "DIGEST"), digest)
        self.raw.call("SET", "later", "x")
        self.raw.call("SET", "s", "changed")
        self.assertReply("OK", "DEBUG", "RELOAD", "NOSAVE", "NOFLUSH", "MERGE")
        self.assertReply(b"x", "GET", "later")
        self.assertReply(b"abc", "GET", "s")
        self.assertErr("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.",
                       "DEBUG", "RELOAD", "foo")

    def test_error_log_sleep_and_arity(self):
        self.assertEqual(self.raw.call("DEBUG", "ERROR", "FOO bar"), Err("FOO bar"))
        self.assertReply("OK", "DEBUG", "LOG", "hello from the test")
        self.assertReply("OK", "DEBUG", "SLEEP", "x")  # strtod: 0 seconds
        for sub in ("SET-ACTIVE-EXPIRE", "OBJECT", "POPULATE", "DIGEST x", "LOG", "SLEEP",
                    "PROTOCOL", "NOSUCH"):
            words = sub.split()
            self.assertErr("ERR unknown subcommand or wrong number of arguments for '%s'. "
                           "Try DEBUG HELP." % words[0], "DEBUG", *words)


class DebugDisabledTest(ServerTestCase):
    def test_refused(self):
        reply = self.raw.call("DEBUG", "DIGEST")
        self.assertTrue(re.match(r"ERR DEBUG command not allowed", reply.message), reply)


if __name__ == "__main__":
    unittest.main()
