"""Pub/sub: SUBSCRIBE PSUBSCRIBE SSUBSCRIBE and their UN- forms, PUBLISH SPUBLISH PUBSUB, subscriber
mode, RESP3 pushes, the pubsub output buffer limit, ACL channel rules.

Subscribers and publishers are separate connections; the harness runs ordis with two I/O threads and
deals connections to the less loaded one, so consecutive connections land on different threads and
messages cross between them. Every expectation holds against redis-server 7.0.15 too.
"""

import select
import socket
import subprocess
import threading
import time
import unittest

import redis

from harness import (IS_ORDIS, REDIS_CLI, ConnectionClosed, Err, Push, RawClient, ServerTestCase,
                     encode_command, info, wait_until)

SUBSCRIBER_MODE = ("ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
                   "RESET are allowed in this context")
NOPERM_CHANNEL = "NOPERM this user has no permissions to access one of the channels used as arguments"


def numsub(client, channel):
    reply = client.call("PUBSUB", "NUMSUB", channel)
    return reply[1]


class SubscribeRepliesTest(ServerTestCase):
    def test_subscribe_and_unsubscribe_bytes(self):
        c = self.raw
        want = (b"*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"
                b"*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n")
        c.send_command("SUBSCRIBE", "a", "b")
        self.assertEqual(c.read_raw(len(want)), want)
        self.assertEqual(c.call("SUBSCRIBE", "a"), [b"subscribe", b"a", 2])
        self.assertEqual(c.call("UNSUBSCRIBE", "zz"), [b"unsubscribe", b"zz", 2])
        # Every channel, in no particular order (Redis's dict), the count going down.
        c.send_command("UNSUBSCRIBE")
        got = [c.read_reply(), c.read_reply()]
        self.assertEqual(sorted(name for _, name, _ in got), [b"a", b"b"])
        self.assertEqual([(kind, count) for kind, _, count in got],
                         [(b"unsubscribe", 1), (b"unsubscribe", 0)])
        self.assertEqual(c.call("UNSUBSCRIBE"), [b"unsubscribe", None, 0])
        self.assertEqual(c.call("GET", "x"), None)  # out of subscriber mode

    def test_patterns_and_shard_channels_count_apart(self):
        c = self.raw
        self.assertEqual(c.call("PSUBSCRIBE", "a*"), [b"psubscribe", b"a*", 1])
        self.assertEqual(c.call("SUBSCRIBE", "ab"), [b"subscribe", b"ab", 2])
        self.assertEqual(c.call("SSUBSCRIBE", "s1"), [b"ssubscribe", b"s1", 1])
        self.assertEqual(c.call("PUNSUBSCRIBE", "a*"), [b"punsubscribe", b"a*", 1])
        self.assertEqual(c.call("UNSUBSCRIBE"), [b"unsubscribe", b"ab", 0])
        # A shard channel alone keeps the connection in subscriber mode.
        self.assertEqual(c.call("GET", "x"), Err(SUBSCRIBER_MODE % "get"))
        self.assertEqual(c.call("SUNSUBSCRIBE"), [b"sunsubscribe", b"s1", 0])
        self.assertEqual(c.call("GET", "x"), None)

    def test_subscriber_mode(self):
        c = self.raw
        c.call("SUBSCRIBE", "a")
        self.assertEqual(c.call("GET", "x"), Err(SUBSCRIBER_MODE % "get"))
        self.assertEqual(c.call("CLIENT", "LIST"), Err(SUBSCRIBER_MODE % "client|list"))
        self.assertEqual(c.call("PUBLISH", "a", "m"), Err(SUBSCRIBER_MODE % "publish"))
        want = b"*2\r\n$4\r\npong\r\n$0\r\n\r\n"
        c.send_command("PING")
        self.assertEqual(c.read_raw(len(want)), want)
        self.assertEqual(c.call("PING", "hi"), [b"pong", b"hi"])
        self.assertEqual(c.call("RESET"), "RESET")
        self.assertEqual(c.call("PING"), "PONG")
        self.assertEqual(numsub(self.raw_client(), "a"), 0)

    def test_quit_in_subscriber_mode_closes(self):
        c = self.raw_client()
        c.call("SUBSCRIBE", "a")
        self.assertEqual(c.call("QUIT"), "OK")
        self.assertEqual(c.wait_closed(), b"")
        wait_until(lambda: numsub(self.raw, "a") == 0, 5)
        self.assertEqual(numsub(self.raw, "a"), 0)

    def test_introspection(self):
        one, two = self.raw_client(), self.raw_client()
        one.call("SUBSCRIBE", "news.tech")
        one.call("SUBSCRIBE", "weather")
        two.call("SUBSCRIBE", "news.tech")
        two.call("PSUBSCRIBE", "news.*")
        two.call("SSUBSCRIBE", "shard")
        c = self.raw
        self.assertEqual(sorted(c.call("PUBSUB", "CHANNELS")), [b"news.tech", b"weather"])
        self.assertEqual(c.call("PUBSUB", "CHANNELS", "w*"), [b"weather"])
        self.assertEqual(c.call("PUBSUB", "NUMSUB", "news.tech", "news.*", "none"),
                         [b"news.tech", 2, b"news.*", 0, b"none", 0])
        self.assertEqual(c.call("PUBSUB", "NUMPAT"), 1)
        self.assertEqual(c.call("PUBSUB", "SHARDCHANNELS"), [b"shard"])
        self.assertEqual(c.call("PUBSUB", "SHARDNUMSUB", "shard"), [b"shard", 1])
        self.assertEqual(c.call("PUBSUB", "CHANNELS", "a", "b"),
                         Err("ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. "
                             "Try PUBSUB HELP."))
        self.assertEqual(c.call("PUBSUB", "NOPE"),
                         Err("ERR unknown subcommand 'NOPE'. Try PUBSUB HELP."))
        self.assertEqual(len(c.call("PUBSUB", "HELP")), 14)
        fields = info(c, "stats")
        self.assertEqual((fields["pubsub_channels"], fields["pubsub_patterns"],
                          fields["pubsubshard_channels"]), ("2", "1", "1"))
        lines = c.call("CLIENT", "LIST").decode().splitlines()
        subscribed = [line for line in lines if " flags=P " in line]
        self.assertEqual(len(subscribed), 2, lines)
        self.assertTrue(any(" sub=1 psub=1 ssub=1 " in line for line in subscribed), subscribed)
        self.assertEqual(len(c.call("CLIENT", "LIST", "TYPE", "pubsub").decode().splitlines()), 2)


class MessagesTest(ServerTestCase):
    def test_publish_reaches_channel_and_pattern_subscribers(self):
        sub = self.raw_client()
        psub = self.raw_client()
        sub.call("SUBSCRIBE", "news")
        psub.call("PSUBSCRIBE", "n*")
        self.assertEqual(self.raw.call("PUBLISH", "news", "hello"), 2)
        self.assertEqual(sub.read_reply(), [b"message", b"news", b"hello"])
        self.assertEqual(psub.read_reply(), [b"pmessage", b"n*", b"news", b"hello"])
        self.assertEqual(self.raw.call("PUBLISH", "other", "x"), 0)
        self.assertEqual(self.raw.call("SPUBLISH", "news", "x"), 0)  # another namespace
        self.assertEqual(self.raw.call("PUBLISH", "news", b"\x00\r\nbin"), 2)
        self.assertEqual(sub.read_reply(), [b"message", b"news", b"\x00\r\nbin"])

    def test_shard_messages(self):
        sub = self.raw_client()
        sub.call("SSUBSCRIBE", "s")
        self.assertEqual(self.raw.call("SPUBLISH", "s", "m"), 1)
        self.assertEqual(sub.read_reply(), [b"smessage", b"s", b"m"])

    def test_redis_py_get_message(self):
        p = self.r.pubsub()
        p.subscribe("ch")
        p.psubscribe("c*")
        self.assertEqual(p.get_message(timeout=5)["type"], "subscribe")
        self.assertEqual(p.get_message(timeout=5)["type"], "psubscribe")
        publisher = self.redis_client()
        for i in range(50):
            self.assertEqual(publisher.publish("ch", "m%d" % i), 2)
        got = []
        while len(got) < 100:
            m = p.get_message(timeout=10)
            self.assertIsNotNone(m, "missing messages after %d" % len(got))
            got.append(m)
        self.assertEqual([m["data"] for m in got if m["type"] == "message"],
                         [b"m%d" % i for i in range(50)])
        self.assertEqual([m["data"] for m in got if m["type"] == "pmessage"],
                         [b"m%d" % i for i in range(50)])
        p.close()

    def test_redis_py_run_in_thread(self):
        received = []
        done = threading.Event()

        def handler(message):
            received.append(message["data"])
            if len(received) == 200:
                done.set()

        p = self.r.pubsub()
        p.subscribe(**{"feed": handler})
        worker = p.run_in_thread(sleep_time=0.01)
        try:
            publisher = self.redis_client()
            self.assertTrue(wait_until(lambda: publisher.pubsub_numsub("feed")[0][1] == 1, 5))
            pipe = publisher.pipeline(transaction=False)
            for i in range(200):
                pipe.publish("feed", i)
            self.assertEqual(pipe.execute(), [1] * 200)
            self.assertTrue(done.wait(20), "received %d of 200" % len(received))
            self.assertEqual(received, [str(i).encode() for i in range(200)])
        finally:
            worker.stop()
            worker.join(10)
            p.close()

    def test_many_subscribers_many_publishers_keep_channel_order(self):
        channels = ["c%d" % i for i in range(3)]
        subs = []
        for _ in range(4):
            s = self.raw_client()
            s.send(b"".join(encode_command("SUBSCRIBE", ch) for ch in channels))
            for _ in channels:
                s.read_reply()
            subs.append(s)
        per_channel = 300

        def publish(i):
            c = RawClient(self.port)
            try:
                c.send(b"".join(encode_command("PUBLISH", channels[i], "%d" % n)
                                for n in range(per_channel)))
                for _ in range(per_channel):
                    assert c.read_reply() == 4
            finally:
                c.close()

        threads = [threading.Thread(target=publish, args=(i,)) for i in range(len(channels))]
        for t in threads:
            t.start()
        for s in subs:
            seen = {ch: [] for ch in channels}
            for _ in range(per_channel * len(channels)):
                kind, ch, data = s.read_reply()
                self.assertEqual(kind, b"message")
                seen[ch.decode()].append(int(data))
            for ch in channels:
                self.assertEqual(seen[ch], list(range(per_channel)), ch)
        for t in threads:
            t.join(30)

    def test_closed_subscriber_is_unsubscribed(self):
        sub = RawClient(self.port)
        sub.call("SUBSCRIBE", "gone")
        sub.call("PSUBSCRIBE", "go*")
        self.assertEqual(self.raw.call("PUBLISH", "gone", "x"), 2)
        sub.close()
        self.assertTrue(wait_until(lambda: self.raw.call("PUBLISH", "gone", "x") == 0, 5))
        self.assertEqual(self.raw.call("PUBSUB", "NUMPAT"), 0)

    def test_redis_cli_subscribe(self):
        proc = subprocess.Popen([REDIS_CLI, "-p", str(self.port), "SUBSCRIBE", "cli"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            self.assertTrue(wait_until(lambda: numsub(self.raw, "cli") == 1, 10))
            self.assertEqual(self.raw.call("PUBLISH", "cli", "from-test"), 1)
            out = b""
            deadline = time.monotonic() + 10
            while b"from-test" not in out and time.monotonic() < deadline:
                ready, _, _ = select.select([proc.stdout], [], [], 0.5)
                if ready:
                    out += proc.stdout.read1(4096)
            self.assertEqual(out.decode().split("\n")[:6],
                             ["subscribe", "cli", "1", "message", "cli", "from-test"])
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()


class Resp3Test(ServerTestCase):
    def test_pushes_beside_replies(self):
        c = self.resp3_client()
        want = b">3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n"
        c.send_command("SUBSCRIBE", "ch")
        self.assertEqual(c.read_raw(len(want)), want)
        self.assertEqual(c.call("GET", "x"), None)  # every command runs in RESP3
        self.assertEqual(c.call("PING"), "PONG")
        # A message of its own command comes before the reply.
        want = b">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n:1\r\n"
        c.send_command("PUBLISH", "ch", "hi")
        self.assertEqual(c.read_raw(len(want)), want)
        self.assertEqual(self.raw.call("PUBLISH", "ch", "yo"), 1)
        self.assertEqual(c.read_reply(), Push([b"message", b"ch", b"yo"]))
        self.assertEqual(c.call("PUBSUB", "NUMSUB", "ch"), [b"ch", 1])  # an array in RESP3 too
        self.assertEqual(c.call("UNSUBSCRIBE"), Push([b"unsubscribe", b"ch", 0]))
        self.assertEqual(c.call("UNSUBSCRIBE"), Push([b"unsubscribe", None, 0]))

    def test_pattern_push(self):
        c = self.resp3_client()
        self.assertEqual(c.call("PSUBSCRIBE", "p*"), Push([b"psubscribe", b"p*", 1]))
        self.assertEqual(self.raw.call("PUBLISH", "pq", "m"), 1)
        self.assertEqual(c.read_reply(), Push([b"pmessage", b"p*", b"pq", b"m"]))


class OutputLimitTest(ServerTestCase):
    server_args = ("--client-output-buffer-limit", "pubsub 1mb 0 0")

    def test_slow_subscriber_is_disconnected_others_are_not(self):
        slow = socket.create_connection(("127.0.0.1", self.port))
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.sendall(encode_command("SUBSCRIBE", "flood"))
        fast = self.raw_client()
        fast.call("SUBSCRIBE", "flood")
        self.assertTrue(wait_until(lambda: numsub(self.raw, "flood") == 2, 5))
        payload = b"x" * 8192
        total = 3000  # 24 MB: far past what the kernel's buffers hold for the slow one
        publisher = self.raw_client()
        counts = []
        # The fast subscriber reads each batch before the next is published: its output never
        # nears the limit, while the slow one's only grows.
        for _ in range(0, total, 10):
            publisher.send(encode_command("PUBLISH", "flood", payload) * 10)
            counts += [publisher.read_reply() for _ in range(10)]
            for _ in range(10):
                self.assertEqual(fast.read_reply(), [b"message", b"flood", payload])
        # Every publish answered; the slow subscriber was counted until it went.
        self.assertTrue(all(c in (1, 2) for c in counts), set(counts))
        self.assertEqual(counts[0], 2)
        self.assertEqual(counts[-1], 1)
        self.assertTrue(wait_until(lambda: numsub(self.raw, "flood") == 1, 5))
        # Closed, not just unsubscribed: the server lists one subscriber left. (Reading the slow
        # socket to its end would take minutes: megabytes the kernel took before the close trickle
        # through its 4 KB window.)
        listed = self.raw.call("CLIENT", "LIST", "TYPE", "pubsub").decode().splitlines()
        self.assertEqual(len(listed), 1, listed)
        slow.close()
        if IS_ORDIS:
            self.assertGreaterEqual(
                int(info(self.raw, "stats")["client_output_buffer_limit_disconnections"]), 1)

    def test_config_reports_the_pubsub_class(self):
        self.assertEqual(self.raw.call("CONFIG", "GET", "client-output-buffer-limit"),
                         [b"client-output-buffer-limit",
                          b"normal 0 0 0 slave 268435456 67108864 60 pubsub 1048576 0 0"])


class AclChannelsTest(ServerTestCase):
    def test_channel_rules(self):
        self.assertEqual(self.raw.call("ACL", "SETUSER", "u", "on", ">pw", "+@all", "~*",
                                       "resetchannels", "&news.*"), "OK")
        u = self.raw_client()
        self.assertEqual(u.call("AUTH", "u", "pw"), "OK")
        self.assertEqual(u.call("PUBLISH", "news.tech", "x"), 0)
        self.assertEqual(u.call("PUBLISH", "sports", "x"), Err(NOPERM_CHANNEL))
        self.assertEqual(u.call("SPUBLISH", "sports", "x"), Err(NOPERM_CHANNEL))
        self.assertEqual(u.call("SUBSCRIBE", "news.a", "sports"), Err(NOPERM_CHANNEL))
        self.assertEqual(u.call("PSUBSCRIBE", "news.a*"), Err(NOPERM_CHANNEL))
        self.assertEqual(u.call("PSUBSCRIBE", "news.*"), [b"psubscribe", b"news.*", 1])
        self.assertEqual(u.call("UNSUBSCRIBE", "sports"), [b"unsubscribe", b"sports", 1])
        entry = self.raw.call("ACL", "LOG", "1")[0]
        fields = dict(zip(entry[::2], entry[1::2]))
        self.assertEqual((fields[b"reason"], fields[b"object"], fields[b"username"]),
                         (b"channel", b"news.a*", b"u"))
        self.assertEqual(self.raw.call("ACL", "DRYRUN", "u", "PUBLISH", "sports", "x"),
                         b"This user has no permissions to access the 'sports' channel")

    def test_revoked_channels_close_their_subscribers(self):
        self.assertEqual(self.raw.call("ACL", "SETUSER", "v", "on", "nopass", "+@all", "~*",
                                       "resetchannels", "&a*", "&b"), "OK")
        clients = {}
        for name, command in (("channel", ("SUBSCRIBE", "ab")), ("pattern", ("PSUBSCRIBE", "a*")),
                              ("other", ("SUBSCRIBE", "b")), ("idle", ("GET", "x"))):
            c = clients[name] = self.raw_client()
            self.assertEqual(c.call("AUTH", "v", "x"), "OK")
            c.call(*command)
        self.assertEqual(self.raw.call("ACL", "SETUSER", "v", "resetchannels", "&ab"), "OK")
        self.assertEqual(clients["pattern"].wait_closed(), b"")
        self.assertEqual(clients["other"].wait_closed(), b"")
        self.assertEqual(clients["channel"].call("PING"), [b"pong", b""])
        self.assertEqual(clients["idle"].call("PING"), "PONG")


if __name__ == "__main__":
    unittest.main()
