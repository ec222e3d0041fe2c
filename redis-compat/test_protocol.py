"""RESP protocol over raw sockets: big pipelines, protocol errors (exact reply, then the connection is
closed while other clients keep being served), inline commands, commands split across many sends."""

import socket
import struct
import time
import unittest

from harness import Err, RawClient, ServerTestCase, encode_command


class PipelineTest(ServerTestCase):
    def test_10k_pipeline_in_one_send(self):
        c = self.raw
        n = 10000
        cmds = []
        for i in range(n):
            if i % 3 == 0:
                cmds.append(encode_command("SET", "k%d" % i, "v%d" % i))
            elif i % 3 == 1:
                cmds.append(encode_command("GET", "k%d" % (i - 1)))
            else:
                cmds.append(encode_command("INCR", "counter"))
        c.send(b"".join(cmds))
        incr = 0
        for i in range(n):
            reply = c.read_reply()
            if i % 3 == 0:
                self.assertEqual(reply, "OK", i)
            elif i % 3 == 1:
                self.assertEqual(reply, b"v%d" % (i - 1), i)
            else:
                incr += 1
                self.assertEqual(reply, incr, i)
        self.assertEqual(c.call("GET", "counter"), str(incr).encode())

    def test_pipeline_with_errors_in_the_middle(self):
        replies = self.raw.pipeline([["SET", "a", "1"], ["GET"], ["NOSUCH", "x"], ["INCR", "a"],
                                     ["SET", "a", "1", "EX", "0"], ["GET", "a"]])
        self.assertEqual(replies, ["OK", Err("ERR wrong number of arguments for 'get' command"),
                                   Err("ERR unknown command 'NOSUCH', with args beginning with: 'x' "),
                                   2, Err("ERR invalid expire time in 'set' command"), b"2"])

    def test_same_key_pipelined_writes_see_each_other(self):
        cmds = []
        for i in range(1000):
            cmds.append(["APPEND", "s", "%d," % i])
        replies = self.raw.pipeline(cmds)
        want = b"".join(b"%d," % i for i in range(1000))
        total = 0
        for i, r in enumerate(replies):
            total += len(b"%d," % i)
            self.assertEqual(r, total)
        self.assertEqual(self.raw.call("GET", "s"), want)

    def test_large_bulk_values(self):
        v = bytes(range(256)) * (4 * 1024 * 4)  # 4 MiB
        self.assertReply("OK", "SET", "big", v)
        self.assertReply(v, "GET", "big")
        replies = self.raw.pipeline([["SET", "x%d" % i, v[:100000 + i]] for i in range(10)] +
                                    [["GET", "x%d" % i] for i in range(10)])
        self.assertEqual(replies[:10], ["OK"] * 10)
        for i in range(10):
            self.assertEqual(replies[10 + i], v[:100000 + i])

    def test_unread_replies_do_not_stall_the_server(self):
        # A client that sends a lot without reading must not block others.
        slow = self.raw_client()
        slow.send(b"".join(encode_command("GET", "big") for _ in range(200)))
        self.assertReply("OK", "SET", "big", b"x" * 100000)
        self.assertReply(b"hi", "ECHO", "hi")
        for _ in range(200):
            self.assertIn(slow.read_reply(), (None, b"x" * 100000))


class SplitSendTest(ServerTestCase):
    def test_command_split_byte_by_byte(self):
        c = self.raw
        data = encode_command("SET", "split", b"v\x00\r\nvalue") + encode_command("GET", "split")
        for i in range(len(data)):
            c.send(data[i:i + 1])
            if i % 7 == 0:
                time.sleep(0.001)  # makes separate TCP segments likely; correctness must not care
        self.assertEqual(c.read_reply(), "OK")
        self.assertEqual(c.read_reply(), b"v\x00\r\nvalue")

    def test_split_at_every_position(self):
        c = self.raw
        data = encode_command("SET", "key", "some value") + encode_command("GET", "key")
        for cut in range(1, len(data)):
            c.send(data[:cut])
            time.sleep(0.0005)
            c.send(data[cut:])
            self.assertEqual(c.read_reply(), "OK", cut)
            self.assertEqual(c.read_reply(), b"some value", cut)

    def test_big_value_in_chunks(self):
        c = self.raw
        v = bytes(range(256)) * 4000
        data = encode_command("SET", "big", v)
        for i in range(0, len(data), 1000):
            c.send(data[i:i + 1000])
        self.assertEqual(c.read_reply(), "OK")
        self.assertEqual(c.call("GET", "big"), v)

    def test_inline_split(self):
        c = self.raw
        for ch in b"ECHO hello\r\n":
            c.send(bytes([ch]))
        self.assertEqual(c.read_reply(), b"hello")


class InlineTest(ServerTestCase):
    def test_inline_ping(self):
        self.raw.send(b"PING\r\n")
        self.assertEqual(self.raw.read_reply(), "PONG")
        self.raw.send(b"PING\n")  # a bare LF ends an inline command too
        self.assertEqual(self.raw.read_reply(), "PONG")
        self.raw.send(b"   PING   \r\n")
        self.assertEqual(self.raw.read_reply(), "PONG")

    def test_inline_quotes(self):
        c = self.raw
        c.send(b'set a "b c"\r\n')
        self.assertEqual(c.read_reply(), "OK")
        self.assertEqual(c.call("GET", "a"), b"b c")
        c.send(b"set a 'single quoted'\r\n")
        self.assertEqual(c.read_reply(), "OK")
        self.assertEqual(c.call("GET", "a"), b"single quoted")
        c.send(b'ECHO "a\\x41\\n\\"b"\r\n')  # hex and C escapes inside double quotes
        self.assertEqual(c.read_reply(), b'aA\n"b')
        c.send(b'ECHO "" \r\n')
        self.assertEqual(c.read_reply(), b"")

    def test_inline_errors(self):
        c = self.raw
        c.send(b'ECHO "a" "b"\r\n')
        self.assertEqual(c.read_reply(), Err("ERR wrong number of arguments for 'echo' command"))
        c.send(b"NOSUCH a\r\n")
        self.assertEqual(c.read_reply(),
                         Err("ERR unknown command 'NOSUCH', with args beginning with: 'a' "))

    def test_empty_lines_are_ignored(self):
        c = self.raw
        c.send(b"\r\n\r\n\n")
        c.send(b"PING\r\n")
        self.assertEqual(c.read_reply(), "PONG")

    def test_mixed_inline_and_multibulk(self):
        c = self.raw
        c.send(b"SET m 1\r\n" + encode_command("INCR", "m") + b"GET m\r\n")
        self.assertEqual([c.read_reply() for _ in range(3)], ["OK", 2, b"2"])

    def test_negative_and_zero_multibulk_are_ignored(self):
        c = self.raw
        c.send(b"*0\r\n*-1\r\n" + encode_command("PING"))
        self.assertEqual(c.read_reply(), "PONG")


class ProtocolErrorTest(ServerTestCase):
    CASES = [
        (b"*1\r\n$-5\r\n", "ERR Protocol error: invalid bulk length"),
        (b"*1\r\n$abc\r\n", "ERR Protocol error: invalid bulk length"),
        (b"*1\r\n$\r\n", "ERR Protocol error: invalid bulk length"),
        (b"*1\r\n$+4\r\nPING\r\n", "ERR Protocol error: invalid bulk length"),
        (b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$-1\r\n", "ERR Protocol error: invalid bulk length"),
        (b"*1\r\n$536870913\r\n", "ERR Protocol error: invalid bulk length"),  # > proto-max-bulk-len
        (b"*abc\r\n", "ERR Protocol error: invalid multibulk length"),
        (b"*\r\n", "ERR Protocol error: invalid multibulk length"),
        (b"*+1\r\n", "ERR Protocol error: invalid multibulk length"),
        (b"*2147483648\r\n", "ERR Protocol error: invalid multibulk length"),  # > INT_MAX
        (b"*1\r\nx\r\n", "ERR Protocol error: expected '$', got 'x'"),
        (b"*1\r\n:1\r\n", "ERR Protocol error: expected '$', got ':'"),
        (b"*2\r\n$4\r\nECHO\r\n+hi\r\n", "ERR Protocol error: expected '$', got '+'"),
        (b'set a "b\r\n', "ERR Protocol error: unbalanced quotes in request"),
        (b"set a 'b\r\n", "ERR Protocol error: unbalanced quotes in request"),
        (b'set a "b"c\r\n', "ERR Protocol error: unbalanced quotes in request"),
        (b"a" * (64 * 1024 + 1), "ERR Protocol error: too big inline request"),
        (b"*" + b"1" * (64 * 1024 + 1), "ERR Protocol error: too big mbulk count string"),
        (b"*1\r\n$" + b"1" * (64 * 1024 + 1), "ERR Protocol error: too big bulk count string"),
    ]

    def test_each_error_replies_then_closes(self):
        bystander = self.raw_client()
        self.assertEqual(bystander.call("SET", "alive", "1"), "OK")
        expected_alive = 1
        for data, message in self.CASES:
            with self.subTest(data=data[:40]):
                c = RawClient(self.port)
                try:
                    c.send(data)
                    self.assertEqual(c.read_reply(), Err(message))
                    self.assertEqual(c.wait_closed(), b"", "bytes after the protocol error")
                finally:
                    c.close()
                # Another client keeps being served.
                expected_alive += 1
                self.assertEqual(bystander.call("INCR", "alive"), expected_alive)
        self.assertEqual(bystander.call("PING"), "PONG")

    def test_replies_before_the_error_are_sent(self):
        c = self.raw_client()
        c.send(encode_command("SET", "x", "1") + encode_command("INCR", "x") + b"*1\r\n$-5\r\n" +
               encode_command("INCR", "x"))
        self.assertEqual(c.read_reply(), "OK")
        self.assertEqual(c.read_reply(), 2)
        self.assertEqual(c.read_reply(), Err("ERR Protocol error: invalid bulk length"))
        c.wait_closed()
        self.assertReply(b"2", "GET", "x")  # the command after the error never ran

    def test_error_inside_multi_closes_and_discards(self):
        c = self.raw_client()
        self.assertEqual(c.call("MULTI"), "OK")
        self.assertEqual(c.call("SET", "m", "1"), "QUEUED")
        c.send(b"*1\r\n$abc\r\n")
        self.assertEqual(c.read_reply(), Err("ERR Protocol error: invalid bulk length"))
        c.wait_closed()
        self.assertReply(0, "EXISTS", "m")

    def test_many_bad_clients_in_parallel(self):
        clients = [RawClient(self.port) for _ in range(20)]
        try:
            for i, c in enumerate(clients):
                c.send(self.CASES[i % len(self.CASES)][0])
            for i, c in enumerate(clients):
                self.assertEqual(c.read_reply(), Err(self.CASES[i % len(self.CASES)][1]))
                c.wait_closed()
        finally:
            for c in clients:
                c.close()
        self.assertReply("PONG", "PING")


class ConnectionLifecycleTest(ServerTestCase):
    def test_client_disconnect_mid_command(self):
        c = RawClient(self.port)
        c.send(b"*3\r\n$3\r\nSET\r\n$1\r\na\r\n$100\r\nonly part")
        c.close()
        self.assertReply("PONG", "PING")
        self.assertReply(0, "EXISTS", "a")

    def test_abrupt_reset(self):
        s = socket.create_connection(("127.0.0.1", self.port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close sends RST
        s.sendall(encode_command("GET", "x") * 100)
        s.close()  # RST with unread replies
        self.assertReply("PONG", "PING")

    def test_many_connections(self):
        clients = [self.raw_client() for _ in range(100)]
        for i, c in enumerate(clients):
            c.send_command("SET", "c%d" % i, str(i))
        for c in clients:
            self.assertEqual(c.read_reply(), "OK")
        self.assertReply(100, "DBSIZE")


if __name__ == "__main__":
    unittest.main()
