"""Lazy free: UNLINK, FLUSHDB/FLUSHALL ASYNC, the lazyfree-lazy-* switches, INFO memory's
lazyfree_pending_objects and lazyfreed_objects, and used_memory coming back once a large value is
freed in the background."""

import unittest

from harness import ServerTestCase, config_get, info, wait_until

SYNTAX = "ERR syntax error"
SWITCHES = ("lazyfree-lazy-eviction", "lazyfree-lazy-expire", "lazyfree-lazy-server-del",
            "lazyfree-lazy-user-del", "lazyfree-lazy-user-flush")


class LazyFreeTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        for name in SWITCHES:
            self.assertReply("OK", "CONFIG", "SET", name, "no")
        self.assertReply("OK", "CONFIG", "RESETSTAT")

    def big_set(self, key, members=1000):
        """A set past the lazy-free threshold (a hashtable in Redis: members are not integers)."""
        self.assertReply(members, "SADD", key, *["member:%d" % i for i in range(members)])

    def freed(self):
        """lazyfreed_objects once nothing is pending."""
        wait_until(lambda: info(self.raw, "memory")["lazyfree_pending_objects"] == "0", 10)
        return int(info(self.raw, "memory")["lazyfreed_objects"])

    def test_fields_in_info_memory(self):
        fields = info(self.raw, "memory")
        self.assertEqual(fields["lazyfree_pending_objects"], "0")
        self.assertEqual(fields["lazyfreed_objects"], "0")
        self.assertNotIn("lazyfreed_objects", info(self.raw, "stats"))

    def test_unlink_frees_large_values_in_the_background(self):
        self.big_set("big")
        self.assertReply("OK", "SET", "small", "v")
        self.assertReply(2, "UNLINK", "big", "small", "missing")
        self.assertReply(0, "EXISTS", "big", "small")
        self.assertEqual(self.freed(), 1)  # the string goes inline
        self.assertReply("OK", "CONFIG", "RESETSTAT")
        self.assertEqual(self.freed(), 0)

    def test_del_follows_lazyfree_lazy_user_del(self):
        self.big_set("big")
        self.assertReply(1, "DEL", "big")
        self.assertEqual(self.freed(), 0)
        self.assertReply("OK", "CONFIG", "SET", "lazyfree-lazy-user-del", "yes")
        self.assertEqual(config_get(self.raw, "lazyfree-lazy-user-del"), b"yes")
        self.big_set("big")
        self.assertReply(1, "DEL", "big")
        self.assertEqual(self.freed(), 1)

    def test_flush_async_hands_over_every_key(self):
        self.assertReply("OK", "MSET", "a", "1", "b", "2")
        self.big_set("s")
        self.assertReply("OK", "SELECT", "1")
        self.assertReply("OK", "SET", "c", "3")
        self.assertReply("OK", "FLUSHDB", "ASYNC")
        self.assertEqual(self.freed(), 1)
        self.assertReply(0, "DBSIZE")
        self.assertReply("OK", "FLUSHALL", "async")
        self.assertEqual(self.freed(), 4)
        self.assertReply("OK", "SELECT", "0")
        self.assertReply(0, "DBSIZE")
        self.assertErr(SYNTAX, "FLUSHALL", "ASYNC", "SYNC")
        self.assertErr(SYNTAX, "FLUSHDB", "LAZY")

    def test_plain_flush_follows_lazyfree_lazy_user_flush(self):
        self.big_set("s")
        self.assertReply("OK", "FLUSHALL")
        self.assertEqual(self.freed(), 0)
        self.assertReply("OK", "CONFIG", "SET", "lazyfree-lazy-user-flush", "yes")
        self.big_set("s")
        self.assertReply("OK", "FLUSHDB")
        self.assertEqual(self.freed(), 1)
        self.big_set("s")
        self.assertReply("OK", "FLUSHALL", "SYNC")
        self.assertEqual(self.freed(), 1)

    def test_server_side_deletes_follow_lazyfree_lazy_server_del(self):
        self.assertReply("OK", "CONFIG", "SET", "lazyfree-lazy-server-del", "yes")
        self.big_set("s")
        self.assertReply("OK", "SET", "s", "x")  # overwritten
        self.big_set("a")
        self.big_set("b")
        self.assertReply("OK", "RENAME", "a", "b")  # the target's value goes
        self.assertReply(0, "SINTERSTORE", "b", "nosuchkey")  # an emptied destination
        self.assertEqual(self.freed(), 3)
        self.assertReply(1, "DEL", "s")  # the user's, not the server's
        self.assertEqual(self.freed(), 3)

    def test_expire_follows_lazyfree_lazy_expire(self):
        self.big_set("now")
        self.assertReply(1, "EXPIRE", "now", "-1")
        self.assertEqual(self.freed(), 0)
        self.assertReply("OK", "CONFIG", "SET", "lazyfree-lazy-expire", "yes")
        self.big_set("now")
        self.assertReply(1, "PEXPIREAT", "now", "1")
        self.big_set("soon")
        self.assertReply(1, "PEXPIRE", "soon", "10")
        # Active expiry (or this read, once due) deletes it.
        self.assertTrue(wait_until(lambda: self.raw.call("EXISTS", "soon") == 0, 10))
        self.assertEqual(self.freed(), 2)

    def test_used_memory_comes_back_after_unlink(self):
        before = int(info(self.raw, "memory")["used_memory"])
        for i in range(10):
            self.big_set("big:%d" % i, 20000)
        loaded = int(info(self.raw, "memory")["used_memory"])
        self.assertGreater(loaded - before, 10 * 20000 * 8)
        self.assertReply(10, "UNLINK", *["big:%d" % i for i in range(10)])
        self.assertEqual(self.freed(), 10)
        back = wait_until(
            lambda: int(info(self.raw, "memory")["used_memory"]) < before + (loaded - before) // 10,
            10)
        self.assertTrue(back, info(self.raw, "memory")["used_memory"])


if __name__ == "__main__":
    unittest.main()
