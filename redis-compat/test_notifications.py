"""Keyspace notifications (notify-keyspace-events): the classes and how CONFIG reports them, the
events of every write command ordis implements (new, set, del, expire, rename_from/rename_to, lpush,
hset, zadd, incrby, the *store commands ...), keymiss, expired (lazy and active) and evicted, published
as Redis publishes them on __keyspace@<db>__:<key> and __keyevent@<db>__:<event>.

Every expectation was recorded from redis-server 7.0.15 (the tables below) and holds against it.
"""

import unittest

from harness import Err, Push, RawClient, RespError, ServerTestCase, info

INVALID = ("ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - "
           "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.")

# (setup, command, events): the events the command raises with "AKEn", as "event key" (a key of
# another database as "key@db"), each published on both channels.
WRITE_EVENTS = [
    ([], ['SET', 'k', 'v'], ['new k', 'set k']),
    ([['SET', 'k', 'v']], ['SET', 'k', 'w'], ['set k']),
    ([], ['SET', 'k', 'v', 'EX', '100'], ['new k', 'set k', 'expire k']),
    ([['SET', 'k', 'v']], ['SET', 'k', 'v', 'NX'], []),
    ([['SET', 'k', 'v']], ['SET', 'k', 'w', 'GET'], ['set k']),
    ([['SET', 'k', 'v', 'EX', '100']], ['SET', 'k', 'w', 'KEEPTTL'], ['set k']),
    ([], ['SETNX', 'k', 'v'], ['new k', 'set k']),
    ([], ['SETEX', 'k', '100', 'v'], ['new k', 'set k', 'expire k']),
    ([], ['PSETEX', 'k', '100000', 'v'], ['new k', 'set k', 'expire k']),
    ([['SET', 'k', 'v']], ['GETSET', 'k', 'w'], ['set k']),
    ([['SET', 'k', 'v']], ['GETDEL', 'k'], ['del k']),
    ([['SET', 'k', 'v']], ['GETEX', 'k', 'EX', '100'], ['expire k']),
    ([['SET', 'k', 'v', 'EX', '100']], ['GETEX', 'k', 'PERSIST'], ['persist k']),
    ([['SET', 'k', 'v']], ['GETEX', 'k', 'PXAT', '1'], ['del k']),
    ([], ['MSET', 'a', '1', 'b', '2'], ['new a', 'set a', 'new b', 'set b']),
    ([], ['MSETNX', 'a', '1', 'b', '2'], ['new a', 'set a', 'new b', 'set b']),
    ([], ['APPEND', 'k', 'x'], ['new k', 'append k']),
    ([], ['INCR', 'n'], ['new n', 'incrby n']),
    ([['SET', 'n', '5']], ['DECR', 'n'], ['incrby n']),
    ([], ['INCRBY', 'n', '3'], ['new n', 'incrby n']),
    ([], ['DECRBY', 'n', '3'], ['new n', 'incrby n']),
    ([], ['INCRBYFLOAT', 'n', '1.5'], ['new n', 'incrbyfloat n']),
    ([], ['SETRANGE', 'k', '2', 'xy'], ['new k', 'setrange k']),
    ([['SET', 'k', 'v']], ['SETRANGE', 'k', '0', ''], []),
    ([['SET', 'a', '1'], ['SET', 'b', '2']], ['DEL', 'a', 'b', 'c'], ['del a', 'del b']),
    ([['SET', 'a', '1']], ['UNLINK', 'a'], ['del a']),
    ([['SET', 'a', '1']], ['RENAME', 'a', 'b'], ['new b', 'rename_from a', 'rename_to b']),
    ([['SET', 'a', '1'], ['SET', 'b', '2']], ['RENAME', 'a', 'b'], ['new b', 'rename_from a', 'rename_to b']),
    ([['SET', 'a', '1']], ['RENAME', 'a', 'a'], []),
    ([['SET', 'a', '1']], ['RENAMENX', 'a', 'b'], ['new b', 'rename_from a', 'rename_to b']),
    ([['SET', 'a', '1'], ['SET', 'b', '2']], ['RENAMENX', 'a', 'b'], []),
    ([['SET', 'a', '1']], ['COPY', 'a', 'b'], ['new b', 'copy_to b']),
    ([['SET', 'a', '1'], ['SET', 'b', '2']], ['COPY', 'a', 'b', 'REPLACE'], ['new b', 'copy_to b']),
    ([['SET', 'a', '1']], ['COPY', 'a', 'b', 'DB', '1'], ['new b@1', 'copy_to b@1']),
    ([['SET', 'a', '1']], ['MOVE', 'a', '1'], ['new a@1', 'move_from a', 'move_to a@1']),
    ([['SET', 'a', '1']], ['SWAPDB', '0', '1'], []),
    ([['SET', 'a', '1']], ['EXPIRE', 'a', '100'], ['expire a']),
    ([['SET', 'a', '1']], ['PEXPIRE', 'a', '100000'], ['expire a']),
    ([['SET', 'a', '1']], ['EXPIREAT', 'a', '4102444800'], ['expire a']),
    ([['SET', 'a', '1']], ['PEXPIREAT', 'a', '4102444800000'], ['expire a']),
    ([['SET', 'a', '1']], ['EXPIRE', 'a', '-1'], ['del a']),
    ([['SET', 'a', '1']], ['PEXPIREAT', 'a', '1'], ['del a']),
    ([['SET', 'a', '1', 'EX', '100']], ['EXPIRE', 'a', '200', 'NX'], []),
    ([['SET', 'a', '1', 'EX', '100']], ['PERSIST', 'a'], ['persist a']),
    ([['SET', 'a', '1']], ['PERSIST', 'a'], []),
    ([['SET', 'a', '1']], ['TOUCH', 'a'], []),
    ([['SET', 'a', '1']], ['FLUSHDB'], []),
    ([], ['LPUSH', 'l', 'a', 'b'], ['new l', 'lpush l']),
    ([], ['RPUSH', 'l', 'a'], ['new l', 'rpush l']),
    ([['RPUSH', 'l', 'a']], ['LPUSHX', 'l', 'b'], ['lpush l']),
    ([], ['LPUSHX', 'l', 'b'], []),
    ([['RPUSH', 'l', 'a']], ['RPUSHX', 'l', 'b'], ['rpush l']),
    ([['RPUSH', 'l', 'a', 'b']], ['LPOP', 'l'], ['lpop l']),
    ([['RPUSH', 'l', 'a']], ['RPOP', 'l'], ['rpop l', 'del l']),
    ([['RPUSH', 'l', 'a', 'b']], ['LPOP', 'l', '5'], ['lpop l', 'del l']),
    ([['RPUSH', 'l', 'a', 'b']], ['LINSERT', 'l', 'BEFORE', 'b', 'x'], ['linsert l']),
    ([['RPUSH', 'l', 'a', 'b']], ['LSET', 'l', '0', 'x'], ['lset l']),
    ([['RPUSH', 'l', 'a', 'b', 'a']], ['LREM', 'l', '0', 'a'], ['lrem l']),
    ([['RPUSH', 'l', 'a']], ['LREM', 'l', '0', 'a'], ['lrem l', 'del l']),
    ([['RPUSH', 'l', 'a', 'b', 'c']], ['LTRIM', 'l', '0', '0'], ['ltrim l']),
    ([['RPUSH', 'l', 'a', 'b', 'c']], ['LTRIM', 'l', '5', '6'], ['ltrim l', 'del l']),
    ([['RPUSH', 'l', 'a', 'b']], ['LMOVE', 'l', 'm', 'LEFT', 'RIGHT'], ['new m', 'rpush m', 'lpop l']),
    ([['RPUSH', 'l', 'a']], ['LMOVE', 'l', 'm', 'RIGHT', 'LEFT'], ['new m', 'lpush m', 'rpop l', 'del l']),
    ([['RPUSH', 'l', 'a', 'b']], ['RPOPLPUSH', 'l', 'l'], ['lpush l', 'rpop l']),
    ([['RPUSH', 'l', 'a'], ['RPUSH', 'm', 'z']], ['RPOPLPUSH', 'l', 'm'], ['lpush m', 'rpop l', 'del l']),
    ([], ['HSET', 'h', 'f', 'v', 'g', 'w'], ['new h', 'hset h']),
    ([['HSET', 'h', 'f', 'v']], ['HSET', 'h', 'f', 'v'], ['hset h']),
    ([], ['HSETNX', 'h', 'f', 'v'], ['new h', 'hset h']),
    ([['HSET', 'h', 'f', 'v']], ['HSETNX', 'h', 'f', 'v'], []),
    ([], ['HMSET', 'h', 'f', 'v'], ['new h', 'hset h']),
    ([['HSET', 'h', 'f', 'v', 'g', 'w']], ['HDEL', 'h', 'f'], ['hdel h']),
    ([['HSET', 'h', 'f', 'v']], ['HDEL', 'h', 'f'], ['hdel h', 'del h']),
    ([], ['HINCRBY', 'h', 'f', '2'], ['new h', 'hincrby h']),
    ([], ['HINCRBYFLOAT', 'h', 'f', '2.5'], ['new h', 'hincrbyfloat h']),
    ([], ['SADD', 's', 'a', 'b'], ['new s', 'sadd s']),
    ([['SADD', 's', 'a']], ['SADD', 's', 'a'], []),
    ([['SADD', 's', 'a', 'b']], ['SREM', 's', 'a'], ['srem s']),
    ([['SADD', 's', 'a']], ['SREM', 's', 'a'], ['srem s', 'del s']),
    ([['SADD', 's', 'a', 'b']], ['SPOP', 's'], ['spop s']),
    ([['SADD', 's', 'a']], ['SPOP', 's', '5'], ['spop s', 'del s']),
    ([['SADD', 's', 'a', 'b']], ['SMOVE', 's', 't', 'a'], ['srem s', 'new t', 'sadd t']),
    ([['SADD', 's', 'a']], ['SMOVE', 's', 't', 'a'], ['srem s', 'del s', 'new t', 'sadd t']),
    ([['SADD', 's', 'a', 'b'], ['SADD', 't', 'b']], ['SINTERSTORE', 'd', 's', 't'], ['new d', 'sinterstore d']),
    ([['SADD', 's', 'a'], ['SADD', 'd', 'x']], ['SINTERSTORE', 'd', 's', 't'], ['del d']),
    ([['SADD', 's', 'a']], ['SUNIONSTORE', 'd', 's', 't'], ['new d', 'sunionstore d']),
    ([['SADD', 's', 'a']], ['SDIFFSTORE', 'd', 's', 't'], ['new d', 'sdiffstore d']),
    ([], ['ZADD', 'z', '1', 'a', '2', 'b'], ['new z', 'zadd z']),
    ([['ZADD', 'z', '1', 'a']], ['ZADD', 'z', '1', 'a'], []),
    ([['ZADD', 'z', '1', 'a']], ['ZADD', 'z', 'INCR', '2', 'a'], ['zincr z']),
    ([], ['ZINCRBY', 'z', '2', 'a'], ['new z', 'zincr z']),
    ([['ZADD', 'z', '1', 'a', '2', 'b']], ['ZREM', 'z', 'a'], ['zrem z']),
    ([['ZADD', 'z', '1', 'a']], ['ZREM', 'z', 'a'], ['zrem z', 'del z']),
    ([['ZADD', 'z', '1', 'a', '2', 'b']], ['ZPOPMIN', 'z'], ['zpopmin z']),
    ([['ZADD', 'z', '1', 'a']], ['ZPOPMAX', 'z', '3'], ['zpopmax z', 'del z']),
    ([['ZADD', 'z', '1', 'a', '2', 'b']], ['ZREMRANGEBYRANK', 'z', '0', '0'], ['zremrangebyrank z']),
    ([['ZADD', 'z', '1', 'a', '2', 'b']], ['ZREMRANGEBYSCORE', 'z', '0', '5'], ['zremrangebyscore z', 'del z']),
    ([['ZADD', 'z', '0', 'a', '0', 'b']], ['ZREMRANGEBYLEX', 'z', '[a', '[a'], ['zremrangebylex z']),
    ([['ZADD', 'z', '1', 'a', '2', 'b']], ['ZRANGESTORE', 'd', 'z', '0', '-1'], ['new d', 'zrangestore d']),
    ([['ZADD', 'z', '1', 'a'], ['ZADD', 'd', '1', 'x']], ['ZRANGESTORE', 'd', 'z', '5', '6'], ['del d']),
    ([['ZADD', 'z', '1', 'a'], ['ZADD', 'y', '1', 'b']], ['ZUNIONSTORE', 'd', '2', 'z', 'y'], ['new d', 'zunionstore d']),
    ([['ZADD', 'z', '1', 'a'], ['ZADD', 'y', '1', 'b']], ['ZINTERSTORE', 'd', '2', 'z', 'y'], []),
    ([['ZADD', 'z', '1', 'a'], ['ZADD', 'y', '1', 'b'], ['SET', 'd', 'x']], ['ZINTERSTORE', 'd', '2', 'z', 'y'], ['del d']),
    ([['ZADD', 'z', '1', 'a'], ['ZADD', 'y', '1', 'b']], ['ZDIFFSTORE', 'd', '2', 'z', 'y'], ['new d', 'zdiffstore d']),
    ([['SET', 'k', 'v']], ['SET', 'k', 'w', 'PX', '1'], ['set k', 'expire k']),
    ([], ['XADD', 's', '1-1', 'f', 'v'], ['new s', 'xadd s']),
    ([], ['XADD', 's', 'NOMKSTREAM', '1-1', 'f', 'v'], []),
    ([['XADD', 's', '1-1', 'f', 'v']], ['XADD', 's', 'MAXLEN', '1', '2-1', 'f', 'v'], ['xadd s', 'xtrim s']),
    ([['XADD', 's', '1-1', 'f', 'v'], ['XADD', 's', '2-1', 'f', 'v']], ['XTRIM', 's', 'MAXLEN', '1'], ['xtrim s']),
    ([['XADD', 's', '1-1', 'f', 'v']], ['XTRIM', 's', 'MAXLEN', '5'], []),
    ([['XADD', 's', '1-1', 'f', 'v']], ['XDEL', 's', '1-1'], ['xdel s']),
    ([['XADD', 's', '1-1', 'f', 'v']], ['XDEL', 's', '9-9'], []),
    ([['XADD', 's', '1-1', 'f', 'v']], ['XSETID', 's', '5-5'], ['xsetid s']),
    ([], ['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM'], ['new s', 'xgroup-create s']),
    ([['XADD', 's', '1-1', 'f', 'v']], ['XGROUP', 'CREATE', 's', 'g', '0'], ['xgroup-create s']),
    ([['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM']], ['XGROUP', 'SETID', 's', 'g', '0'], ['xgroup-setid s']),
    ([['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM']], ['XGROUP', 'DESTROY', 's', 'g'], ['xgroup-destroy s']),
    ([['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM']], ['XGROUP', 'CREATECONSUMER', 's', 'g', 'c'],
     ['xgroup-createconsumer s']),
    ([['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM'], ['XGROUP', 'CREATECONSUMER', 's', 'g', 'c']],
     ['XGROUP', 'DELCONSUMER', 's', 'g', 'c'], ['xgroup-delconsumer s']),
    ([['XADD', 's', '1-1', 'f', 'v'], ['XGROUP', 'CREATE', 's', 'g', '0']],
     ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>'], ['xgroup-createconsumer s']),
    ([['XADD', 's', '1-1', 'f', 'v'], ['XGROUP', 'CREATE', 's', 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>']],
     ['XCLAIM', 's', 'g', 'd', '0', '1-1'], ['xgroup-createconsumer s']),
    ([['XADD', 's', '1-1', 'f', 'v'], ['XGROUP', 'CREATE', 's', 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>']],
     ['XAUTOCLAIM', 's', 'g', 'd', '0', '0'], ['xgroup-createconsumer s']),
    ([['XADD', 's', '1-1', 'f', 'v'], ['XGROUP', 'CREATE', 's', 'g', '0'],
      ['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>']], ['XACK', 's', 'g', '1-1'], []),
]

# (read command, keys reported by keymiss with "Em").
KEYMISS_EVENTS = [
(['GET', 'k'], ['k']),
    (['MGET', 'a', 'b'], ['a', 'b']),
    (['EXISTS', 'a', 'b'], ['a', 'b']),
    (['TYPE', 'k'], ['k']),
    (['TTL', 'k'], ['k']),
    (['PTTL', 'k'], ['k']),
    (['HGET', 'h', 'f'], ['h']),
    (['HGETALL', 'h'], ['h']),
    (['SMEMBERS', 's'], ['s']),
    (['SISMEMBER', 's', 'a'], ['s']),
    (['LRANGE', 'l', '0', '-1'], ['l']),
    (['LLEN', 'l'], ['l']),
    (['ZSCORE', 'z', 'a'], ['z']),
    (['ZRANGE', 'z', '0', '-1'], ['z']),
    (['STRLEN', 'k'], ['k']),
    (['GETRANGE', 'k', '0', '1'], ['k']),
    (['TOUCH', 'a'], ['a']),
    (['OBJECT', 'ENCODING', 'k'], []),
    (['SUNION', 'a', 'b'], ['a', 'b']),
    (['ZUNION', '2', 'a', 'b'], ['a', 'b']),
    (['INCR', 'k'], []),
    (['DEL', 'k'], []),
    (['SET', 'k', 'v', 'GET'], ['k']),
    (['GETDEL', 'k'], ['k']),
    (['RENAME', 'x', 'y'], []),
    (['COPY', 'x', 'y'], ['x']),
    (['HEXISTS', 'h', 'f'], ['h']),
    (['SCARD', 's'], ['s']),
    (['ZCARD', 'z'], ['z']),
    (['SRANDMEMBER', 's'], ['s']),
    (['EXPIRETIME', 'k'], ['k']),
    (['MEMORY', 'USAGE', 'k'], []),
    (['LINDEX', 'l', '0'], ['l']),
    (['LPOS', 'l', 'a'], ['l']),
    (['HRANDFIELD', 'h'], ['h']),
    (['ZRANK', 'z', 'a'], ['z']),
    (['SINTERCARD', '1', 'a'], ['a']),
    (['ZRANGESTORE', 'd', 'z', '0', '1'], ['z']),
    (['SINTERSTORE', 'd', 'a'], ['a']),
    (['WATCH', 'k'], []),
]


class EventsClient:
    """A subscriber to every keyspace and keyevent channel, reading a command's events up to a
    marker its own command publishes after it (events and marker go through one ordered path)."""

    def __init__(self, port):
        self.sub = RawClient(port)
        self.sub.call("PSUBSCRIBE", "__key*__:*")

    def close(self):
        self.sub.close()

    def until_marker(self, publisher):
        publisher.call("PUBLISH", "__keyspace@0__:MARK", "x")
        messages = []
        while True:
            kind, _, channel, data = self.sub.read_reply()
            assert kind == b"pmessage"
            if channel == b"__keyspace@0__:MARK":
                return messages
            messages.append((channel.decode(), data.decode()))

    def events(self, publisher):
        """The events since the last call, pairing each keyspace message with its keyevent twin."""
        messages = self.until_marker(publisher)
        out = []
        for i in range(0, len(messages), 2):
            (space, event), (keyevent, key) = messages[i], messages[i + 1]
            db = space[len("__keyspace@"):space.index("__:")]
            assert space == "__keyspace@%s__:%s" % (db, key), messages
            assert keyevent == "__keyevent@%s__:%s" % (db, event), messages
            out.append("%s %s" % (event, key) if db == "0" else "%s %s@%s" % (event, key, db))
        return out


class NotificationsTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.events = EventsClient(self.port)
        self._clients.append(self.events)

    def tearDown(self):
        self.raw.call("CONFIG", "SET", "notify-keyspace-events", "")
        super().tearDown()

    def test_config_text(self):
        cases = [("KEA", "AKE"), ("Ag$lshzxeKEtmdn", "AKEm"), ("g$lshzxetd", "A"), ("nmEK", "nKEm"),
                 ("zzK", "zK"), ("Exeg", "gxeE"), ("K$", "$K"), ("", "")]
        for given, reported in cases:
            self.assertEqual(self.raw.call("CONFIG", "SET", "notify-keyspace-events", given), "OK")
            self.assertEqual(self.raw.call("CONFIG", "GET", "notify-keyspace-events"),
                             [b"notify-keyspace-events", reported.encode()], given)
        self.assertEqual(self.raw.call("CONFIG", "SET", "notify-keyspace-events", "KEQ"), Err(INVALID))

    def test_every_write_command(self):
        self.assertEqual(self.raw.call("CONFIG", "SET", "notify-keyspace-events", "AKEn"), "OK")
        for setup, command, expected in WRITE_EVENTS:
            self.raw.call("FLUSHALL")
            for s in setup:
                self.raw.call(*s)
            self.events.until_marker(self.raw)
            reply = self.raw.call(*command)
            self.assertNotIsInstance(reply, RespError, command)
            self.assertEqual(self.events.events(self.raw), expected, (setup, command))

    def test_nothing_when_off_or_filtered(self):
        self.raw.call("SET", "k", "v")
        self.raw.call("DEL", "k")
        self.assertEqual(self.events.until_marker(self.raw), [])
        self.assertEqual(self.raw.call("CONFIG", "SET", "notify-keyspace-events", "Kl"), "OK")
        self.raw.call("SET", "k", "v")
        self.raw.call("RPUSH", "l", "a")
        self.assertEqual(self.events.until_marker(self.raw), [("__keyspace@0__:l", "rpush")])
        self.assertEqual(self.raw.call("CONFIG", "SET", "notify-keyspace-events", "E$"), "OK")
        self.raw.call("SET", "k", "v")
        self.assertEqual(self.events.until_marker(self.raw), [("__keyevent@0__:set", "k")])

    def test_keymiss(self):
        self.assertEqual(self.raw.call("CONFIG", "SET", "notify-keyspace-events", "Em"), "OK")
        for command, keys in KEYMISS_EVENTS:
            self.raw.call("FLUSHALL")
            self.raw.call(*command)
            self.assertEqual(self.events.until_marker(self.raw),
                             [("__keyevent@0__:keymiss", k) for k in keys], command)

    def test_expired_past_absolute_time(self):
        # Redis stores the key expired and deletes it at the next lookup; ordis deletes it at once.
        self.assertEqual(self.raw.call("CONFIG", "SET", "notify-keyspace-events", "AKE"), "OK")
        self.raw.call("SET", "k", "v")
        self.events.until_marker(self.raw)
        self.assertEqual(self.raw.call("SET", "k", "w", "PXAT", "1"), "OK")
        self.assertEqual(self.raw.call("EXISTS", "k"), 0)
        self.assertEqual(self.events.events(self.raw), ["set k", "expire k", "expired k"])

    def test_expired_by_the_expiry_cycle(self):
        self.assertEqual(self.raw.call("CONFIG", "SET", "notify-keyspace-events", "Ex"), "OK")
        self.raw.call("SET", "k", "v", "PX", "100")
        self.raw.call("SET", "other", "v")
        # Nothing reads k: only the server's own expiry deletes it. The read waits for the
        # message (up to the client's 20 s timeout), it does not sleep for a guessed time.
        self.assertEqual(self.events.sub.read_reply(),
                         [b"pmessage", b"__key*__:*", b"__keyevent@0__:expired", b"k"])
        self.assertEqual(self.raw.call("EXISTS", "k"), 0)

    def test_resp3_subscriber_gets_its_own_event_before_the_reply(self):
        self.assertEqual(self.raw.call("CONFIG", "SET", "notify-keyspace-events", "E$"), "OK")
        c = self.resp3_client()
        self.assertEqual(c.call("SUBSCRIBE", "__keyevent@0__:set"),
                         Push([b"subscribe", b"__keyevent@0__:set", 1]))
        c.send_command("SET", "k", "v")
        self.assertEqual(c.read_reply(), Push([b"message", b"__keyevent@0__:set", b"k"]))
        self.assertEqual(c.read_reply(), "OK")


class EvictedTest(ServerTestCase):
    server_args = ("--maxmemory-policy", "allkeys-random", "--notify-keyspace-events", "Ee")

    def test_evicted(self):
        events = EventsClient(self.port)
        self._clients.append(events)
        self.assertEqual(self.raw.call("CONFIG", "GET", "notify-keyspace-events"),
                         [b"notify-keyspace-events", b"eE"])
        used = int(info(self.raw, "memory")["used_memory"])
        self.assertEqual(self.raw.call("CONFIG", "SET", "maxmemory", str(used + (2 << 20))), "OK")
        value = "x" * 1024
        self.raw.send(b"".join(b"*3\r\n$3\r\nSET\r\n$%d\r\nkey:%06d\r\n$1024\r\n%s\r\n"
                               % (len(b"key:%06d" % i), i, value.encode()) for i in range(8000)))
        for _ in range(8000):
            self.assertEqual(self.raw.read_reply(), "OK")
        evicted = []
        for channel, key in events.until_marker(self.raw):
            self.assertEqual(channel, "__keyevent@0__:evicted")
            evicted.append(key)
        self.assertGreater(len(evicted), 1000)
        self.assertEqual(len(set(evicted)), len(evicted))
        self.assertEqual(self.raw.call("EXISTS", *evicted[:100]), 0)
        self.raw.call("CONFIG", "SET", "maxmemory", "0")


if __name__ == "__main__":
    unittest.main()
