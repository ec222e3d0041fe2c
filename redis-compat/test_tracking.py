"""Client-side caching: CLIENT TRACKING (default and BCAST modes, PREFIX, OPTIN/OPTOUT, NOLOOP,
REDIRECT), CLIENT CACHING, CLIENT GETREDIR, CLIENT TRACKINGINFO, invalidation pushes (RESP3) and
__redis__:invalidate messages (RESP2 redirect), flushes, expiry, RESET.

The harness runs ordis with two I/O threads and deals connections to the less loaded one, so a
tracking client and the writer invalidating its keys are on different threads. Every expectation
holds against redis-server 7.0.15 too. Nothing sleeps to pass: a test that expects no invalidation
has the writer change a tracked key afterwards and checks that its invalidation is the next frame.
"""

import re
import time
import unittest

import redis

from harness import Err, Push, RawClient, ServerTestCase, info, wait_until


def invalidate(*keys):
    return Push([b"invalidate", list(keys)])


FLUSHED = Push([b"invalidate", None])


def client_id(c):
    return c.call("CLIENT", "ID")


def client_field(c, field):
    line = c.call("CLIENT", "INFO").decode()
    return re.search(r"\b%s=(\S*)" % field, line).group(1)


class DefaultModeTest(ServerTestCase):
    def tracking_client(self, *options):
        c = self.resp3_client()
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", *options), "OK")
        return c

    def test_client_side_caching_flow(self):
        # What redis-py's client-side cache does over RESP3: read, cache, drop on invalidation.
        cache = {}
        c = self.tracking_client()
        writer = self.raw_client()
        writer.call("SET", "user:1", "ann")
        cache[b"user:1"] = c.call("GET", "user:1")
        self.assertEqual(cache, {b"user:1": b"ann"})
        self.assertEqual(writer.call("SET", "user:1", "bob"), "OK")
        push = c.read_reply()
        self.assertEqual(push, invalidate(b"user:1"))
        for key in push[1]:
            cache.pop(key, None)
        self.assertEqual(cache, {})
        # Forgotten once invalidated: a second write says nothing until the key is read again.
        writer.call("SET", "user:1", "cid")
        self.assertEqual(c.call("GET", "user:1"), b"cid")
        writer.call("SET", "user:1", "dan")
        self.assertEqual(c.read_reply(), invalidate(b"user:1"))

    def test_only_keys_read_are_invalidated(self):
        c = self.tracking_client()
        writer = self.raw_client()
        c.call("MGET", "a", "b")
        c.call("HGET", "h", "f")
        writer.call("SET", "unread", "1")  # nothing for c
        writer.call("SET", "b", "1")
        self.assertEqual(c.read_reply(), invalidate(b"b"))
        writer.call("HSET", "h", "f", "v")
        self.assertEqual(c.read_reply(), invalidate(b"h"))
        # Keys are tracked without their database.
        writer.call("SELECT", "3")
        writer.call("DEL", "a")  # no such key there: nothing changes
        writer.call("SET", "a", "x")
        self.assertEqual(c.read_reply(), invalidate(b"a"))

    def test_every_kind_of_change_invalidates(self):
        c = self.tracking_client()
        writer = self.raw_client()
        writer.call("SET", "s", "v")
        writer.call("RPUSH", "l", "1", "2")
        changes = [
            ("s", ("APPEND", "s", "x")),
            ("s", ("EXPIRE", "s", "100")),
            ("s", ("PERSIST", "s")),
            ("l", ("LPOP", "l")),
            ("l", ("DEL", "l")),
            ("n", ("INCR", "n")),
            ("s", ("RENAME", "s", "t")),
            ("t", ("GETDEL", "t")),
            ("z", ("ZADD", "z", "1", "m")),
        ]
        for key, command in changes:
            c.call("EXISTS", key)
            writer.call(*command)
            self.assertEqual(c.read_reply(), invalidate(key.encode()), command)

    def test_own_change_invalidates_after_the_reply(self):
        c = self.tracking_client()
        c.call("GET", "k")
        c.send_command("SET", "k", "1")
        self.assertEqual(c.read_reply(), "OK")
        self.assertEqual(c.read_reply(), invalidate(b"k"))
        # A transaction's and a script's invalidations follow EXEC's and EVAL's replies.
        c.call("GET", "k")
        c.call("GET", "j")
        c.call("MULTI")
        c.call("SET", "k", "2")
        c.call("SET", "j", "2")
        self.assertEqual(c.call("EXEC"), ["OK", "OK"])
        self.assertEqual([c.read_reply(), c.read_reply()], [invalidate(b"k"), invalidate(b"j")])
        c.call("GET", "k")
        self.assertEqual(c.call("EVAL", "return redis.call('set', KEYS[1], 'x')", "1", "k"), "OK")
        self.assertEqual(c.read_reply(), invalidate(b"k"))

    def test_script_reads_are_tracked_for_its_caller(self):
        c = self.tracking_client()
        writer = self.raw_client()
        self.assertIsNone(c.call("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "q"))
        writer.call("SET", "q", "1")
        self.assertEqual(c.read_reply(), invalidate(b"q"))

    def test_read_only_script_keys_are_no_reads(self):
        # EVAL_RO and FCALL_RO are readonly commands (COMMAND INFO), but only their scripts'
        # commands read: the keys they declare are not remembered by themselves.
        c = self.tracking_client()
        writer = self.raw_client()
        self.assertEqual(c.call("EVAL_RO", "return 1", "1", "q"), 1)
        writer.call("SET", "q", "1")
        self.assertEqual(c.call("PING"), "PONG")  # no invalidation before the reply

    def test_noloop_leaves_out_own_changes(self):
        c = self.tracking_client("NOLOOP")
        writer = self.raw_client()
        c.call("GET", "k")
        c.call("GET", "j")
        self.assertEqual(c.call("SET", "k", "1"), "OK")  # no invalidation of its own change
        writer.call("SET", "k", "2")  # k was forgotten at the change: nothing either
        writer.call("SET", "j", "2")
        self.assertEqual(c.read_reply(), invalidate(b"j"))

    def test_flush_invalidates_everything_with_null(self):
        c = self.tracking_client()
        writer = self.raw_client()
        c.call("GET", "k")
        self.assertEqual(writer.call("FLUSHALL"), "OK")
        self.assertEqual(c.read_reply(), FLUSHED)
        # Any database's FLUSHDB, and the tracked keys are forgotten.
        writer.call("SELECT", "5")
        self.assertEqual(writer.call("FLUSHDB"), "OK")
        self.assertEqual(c.read_reply(), FLUSHED)
        writer.call("SELECT", "0")
        writer.call("SET", "k", "1")
        c.call("GET", "j")
        writer.call("SET", "j", "1")
        self.assertEqual(c.read_reply(), invalidate(b"j"))

    def test_expiry_invalidates(self):
        c = self.tracking_client()
        writer = self.raw_client()
        writer.call("SET", "e", "v", "PX", "300")
        self.assertEqual(c.call("GET", "e"), b"v")
        self.assertEqual(c.read_reply(), invalidate(b"e"))  # active expiry, within seconds

    def test_optin_tracks_only_after_caching_yes(self):
        c = self.tracking_client("OPTIN")
        writer = self.raw_client()
        c.call("GET", "x1")  # not tracked
        self.assertEqual(c.call("CLIENT", "CACHING", "yes"), "OK")
        c.call("CLIENT", "ID")  # a CLIENT command keeps the flag for the next one
        c.call("GET", "x2")
        c.call("GET", "x3")  # the flag applied to one command only
        c.call("CLIENT", "CACHING", "yes")
        c.call("MULTI")
        c.call("GET", "x4")
        c.call("GET", "x5")
        c.call("EXEC")  # ... or to one transaction
        c.call("GET", "x6")
        writer.call("MSET", "x1", "1", "x2", "1", "x3", "1", "x4", "1", "x5", "1", "x6", "1")
        self.assertEqual([c.read_reply() for _ in range(3)],
                         [invalidate(b"x2"), invalidate(b"x4"), invalidate(b"x5")])
        self.assertEqual(c.call("PING"), "PONG")

    def test_optout_tracks_all_but_caching_no(self):
        c = self.tracking_client("OPTOUT")
        writer = self.raw_client()
        c.call("GET", "y1")
        c.call("CLIENT", "CACHING", "no")
        c.call("GET", "y2")
        c.call("GET", "y3")
        writer.call("MSET", "y1", "1", "y2", "1", "y3", "1")
        self.assertEqual([c.read_reply(), c.read_reply()], [invalidate(b"y1"), invalidate(b"y3")])

    def test_resp2_client_gets_nothing_without_redirect(self):
        c = self.raw_client()
        writer = self.raw_client()
        self.assertEqual(c.call("CLIENT", "TRACKING", "on"), "OK")
        c.call("GET", "k")
        writer.call("SET", "k", "1")
        self.assertEqual(c.call("PING"), "PONG")

    def test_reset_stops_tracking(self):
        c = self.tracking_client("OPTIN")
        self.assertEqual(c.call("RESET"), "RESET")
        self.assertEqual(c.call("CLIENT", "TRACKINGINFO"),
                         [b"flags", [b"off"], b"redirect", -1, b"prefixes", []])
        self.assertEqual(c.call("CLIENT", "GETREDIR"), -1)
        # (Clients of earlier tests close on the server's side soon after they disconnect.)
        tracking = lambda: info(self.raw, "clients")["tracking_clients"]
        self.assertEqual(wait_until(lambda: tracking() == "0", 5) and tracking(), "0")


class RedirectTest(ServerTestCase):
    def test_redirect_to_resp2_subscriber(self):
        sub = self.raw_client()
        sub_id = client_id(sub)
        sub.call("SUBSCRIBE", "__redis__:invalidate")
        c = self.raw_client()
        writer = self.raw_client()
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "REDIRECT", sub_id), "OK")
        self.assertEqual(c.call("CLIENT", "GETREDIR"), sub_id)
        self.assertEqual(client_field(c, "flags"), "t")
        self.assertEqual(client_field(c, "redir"), str(sub_id))
        c.call("GET", "k")
        writer.call("SET", "k", "1")
        self.assertEqual(sub.read_reply(), [b"message", b"__redis__:invalidate", [b"k"]])
        c.call("GET", "k")
        writer.call("FLUSHDB")
        self.assertEqual(sub.read_reply(), [b"message", b"__redis__:invalidate", None])

    def test_redirect_through_redis_py_pubsub(self):
        r = redis.Redis(host="127.0.0.1", port=self.port)
        self._clients.append(r)
        p = r.pubsub()
        p.subscribe("__redis__:invalidate")
        self.assertEqual(p.get_message(timeout=5)["type"], "subscribe")
        sub_id = [c["id"] for c in r.client_list() if c["flags"] == "P"][0]
        c = self.raw_client()
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "REDIRECT", sub_id), "OK")
        c.call("GET", "cached")
        self.raw.call("SET", "cached", "v")
        msg = p.get_message(timeout=5)
        self.assertEqual((msg["type"], msg["channel"], msg["data"]),
                         ("message", b"__redis__:invalidate", [b"cached"]))
        p.close()

    def test_redirect_to_a_client_that_went_away(self):
        target = self.raw_client()
        target_id = client_id(target)
        c = self.raw_client()
        writer = self.raw_client()
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "REDIRECT", target_id), "OK")
        target.close()
        wait_until(lambda: str(target_id) not in self.raw.call("CLIENT", "LIST").decode(), 5)
        c.call("GET", "k")
        writer.call("SET", "k", "1")
        self.assertEqual(c.call("CLIENT", "TRACKINGINFO"),
                         [b"flags", [b"on", b"broken_redirect"], b"redirect", target_id,
                          b"prefixes", []])
        self.assertEqual(client_field(c, "flags"), "tR")
        # A RESP3 client is told.
        c.call("HELLO", "3")
        c.call("GET", "k")
        writer.call("SET", "k", "2")
        self.assertEqual(c.read_reply(), Push([b"tracking-redir-broken", target_id]))

    def test_redirect_errors(self):
        c = self.raw_client()
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "REDIRECT", "999999"),
                         Err("ERR The client ID you want redirect to does not exist"))
        self.assertEqual(c.call("CLIENT", "TRACKING", "off", "REDIRECT", "0"),
                         Err("ERR The client ID you want redirect to does not exist"))
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "REDIRECT", "abc"),
                         Err("ERR value is not an integer or out of range"))
        me = client_id(c)
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "REDIRECT", me, "REDIRECT", me),
                         Err("ERR A client can only redirect to a single other client"))


class BroadcastTest(ServerTestCase):
    def test_prefixes_one_message_each(self):
        c = self.resp3_client()
        writer = self.raw_client()
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "user:", "PREFIX",
                                "obj:"), "OK")
        self.assertEqual(client_field(c, "flags"), "tB")
        writer.call("MSET", "user:3", "a", "obj:2", "b", "other", "c", "user:1", "d")
        # One message per prefix, in prefix order, its keys in order, without any read first.
        self.assertEqual([c.read_reply(), c.read_reply()],
                         [invalidate(b"obj:2"), invalidate(b"user:1", b"user:3")])
        writer.call("SET", "other", "x")
        writer.call("DEL", "user:1")
        self.assertEqual(c.read_reply(), invalidate(b"user:1"))
        self.assertEqual(info(self.raw, "stats")["tracking_total_prefixes"], "2")
        self.assertEqual(c.call("CLIENT", "TRACKINGINFO"),
                         {b"flags": [b"on", b"bcast"], b"redirect": 0,
                          b"prefixes": [b"obj:", b"user:"]})

    def test_no_prefix_is_every_key_and_noloop(self):
        c = self.resp3_client()
        writer = self.raw_client()
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "BCAST", "NOLOOP"), "OK")
        self.assertEqual(c.call("MSET", "a", "1", "b", "2"), "OK")  # its own: nothing
        writer.call("SET", "z", "1")
        self.assertEqual(c.read_reply(), invalidate(b"z"))
        writer.call("FLUSHALL")
        self.assertEqual(c.read_reply(), FLUSHED)

    def test_option_errors(self):
        c = self.resp3_client()
        cases = [
            (("on", "PREFIX", "a"), "ERR PREFIX option requires BCAST mode to be enabled"),
            (("on", "BCAST", "OPTIN"), "ERR OPTIN and OPTOUT are not compatible with BCAST"),
            (("on", "OPTIN", "OPTOUT"), "ERR You can't specify both OPTIN mode and OPTOUT mode"),
            (("maybe",), "ERR syntax error"),
            (("on", "foo"), "ERR syntax error"),
            (("on", "PREFIX"), "ERR syntax error"),
        ]
        for args, error in cases:
            self.assertEqual(c.call("CLIENT", "TRACKING", *args), Err(error), args)
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "a", "PREFIX", "ab"),
                         Err("ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes "
                             "for a single client must not overlap."))
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "user:"), "OK")
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "BCAST", "PREFIX", "user:x"),
                         Err("ERR Prefix 'user:x' overlaps with an existing prefix 'user:'. "
                             "Prefixes for a single client must not overlap."))
        self.assertEqual(c.call("CLIENT", "TRACKING", "on"),
                         Err("ERR You can't switch BCAST mode on/off before disabling tracking "
                             "for this client, and then re-enabling it with a different mode."))
        self.assertEqual(c.call("CLIENT", "TRACKING", "off"), "OK")
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "OPTIN"), "OK")
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "OPTOUT"),
                         Err("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking "
                             "for this client, and then re-enabling it with a different mode."))


class IntrospectionTest(ServerTestCase):
    def test_caching_errors(self):
        c = self.raw_client()
        self.assertEqual(c.call("CLIENT", "CACHING", "yes"),
                         Err("ERR CLIENT CACHING can be called only when the client is in "
                             "tracking mode with OPTIN or OPTOUT mode enabled"))
        c.call("CLIENT", "TRACKING", "on", "OPTIN")
        self.assertEqual(c.call("CLIENT", "CACHING", "no"),
                         Err("ERR CLIENT CACHING NO is only valid when tracking is enabled in "
                             "OPTOUT mode."))
        self.assertEqual(c.call("CLIENT", "CACHING", "maybe"), Err("ERR syntax error"))
        self.assertEqual(c.call("CLIENT", "CACHING", "yes"), "OK")
        self.assertEqual(c.call("CLIENT", "TRACKINGINFO"),
                         [b"flags", [b"on", b"optin", b"caching-yes"], b"redirect", 0,
                          b"prefixes", []])

    def test_trackinginfo_getredir_and_info(self):
        tracking = lambda: info(self.raw, "clients")["tracking_clients"]
        wait_until(lambda: tracking() == "0", 5)  # earlier tests' clients gone
        c = self.raw_client()
        self.assertEqual(c.call("CLIENT", "GETREDIR"), -1)
        self.assertEqual(client_field(c, "redir"), "-1")
        self.assertEqual(c.call("CLIENT", "TRACKING", "on", "NOLOOP"), "OK")
        self.assertEqual(c.call("CLIENT", "GETREDIR"), 0)
        self.assertEqual(c.call("CLIENT", "TRACKINGINFO"),
                         [b"flags", [b"on", b"noloop"], b"redirect", 0, b"prefixes", []])
        c.call("MGET", "a", "b")
        other = self.raw_client()
        other.call("CLIENT", "TRACKING", "on")
        other.call("GET", "a")
        stats = info(self.raw, "stats")
        self.assertEqual((stats["tracking_total_keys"], stats["tracking_total_items"]), ("2", "3"))
        self.assertEqual(info(self.raw, "clients")["tracking_clients"], "2")
        self.assertEqual(c.call("CLIENT", "TRACKING", "off"), "OK")
        self.assertEqual(info(self.raw, "clients")["tracking_clients"], "1")


if __name__ == "__main__":
    unittest.main()
