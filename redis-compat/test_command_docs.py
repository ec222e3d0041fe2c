"""COMMAND INFO's key specs, COMMAND DOCS's documented syntax and COMMAND GETKEYS / GETKEYSANDFLAGS,
compared with redis-server 7.0.15's.

DifferentialTest starts a reference redis-server beside the server under test and walks COMMAND on
both: for every command and subcommand both know, the key specs and the documented arguments (with
since, doc_flags, deprecated_since, replaced_by, group) must be equal, wire types included, in
RESP2 and RESP3; and a list of calls gets the same GETKEYS and GETKEYSANDFLAGS replies. Against
redis-server itself it compares Redis with Redis, which checks the test. CommandDocsTest holds
expectations recorded from redis-server 7.0.15 and passes on both servers.

Intentional differences (ordis's, listed here so the comparison can skip them):
  * COMMAND DOCS carries no `complexity` and no `history`: they are Redis's prose, and complexity
    describes Redis's data structures, not ordis's (ordis's lists, key index and SCAN differ).
  * COMMAND DOCS's `summary` comes from ordis's command table (a few are worded differently).
  * COMMAND INFO's key specs carry no `notes`: Redis's prose; ordis's table says why in comments.
  * Commands one server lacks: ordis has no cluster, replication or module commands (ASKING,
    CLUSTER, FAILOVER, LOLWUT, MODULE, PSYNC, READONLY, READWRITE, REPLCONF, REPLICAOF, ROLE, SLAVEOF,
    SYNC) nor SCRIPT DEBUG; Redis 7.0 has no KRANGE, KCOUNT (ordis's own) nor CLIENT SETINFO and
    CLIENT NO-TOUCH (Redis 7.2's), which ordis documents on its own (checked when it is ordis).
  * GETKEYS / GETKEYSANDFLAGS of KRANGE: Redis does not know the command, ordis says it has no keys.
"""

import unittest

from harness import CrossServerTestCase, IS_ORDIS, Map, RSet, RawClient, ServerTestCase, Status


# Fields of COMMAND DOCS ordis leaves out (see above); summary is compared by neither.
DOCS_OMITTED = {b"complexity", b"history"}
DOCS_NOT_COMPARED = DOCS_OMITTED | {b"summary", b"subcommands"}

# Calls whose keys both servers find alike, flags included: every way keys are placed (index,
# keyword, keynum, several specs, specs that cannot place a key, variable flags) and the errors.
GETKEYS_CALLS = [
    ["get", "a"], ["set", "a", "b"], ["set", "a", "b", "get"], ["set", "a", "b", "ex", "10", "get"],
    ["set", "a", "get"], ["mset", "a", "1", "b", "2"], ["del", "a", "b", "c"],
    ["lmove", "a", "b", "left", "right"], ["blmove", "a", "b", "left", "right", "0"],
    ["brpoplpush", "a", "b", "0"], ["blpop", "a", "b", "0"], ["bzpopmin", "a", "b", "0"],
    ["lmpop", "2", "a", "b", "left"], ["blmpop", "0", "2", "a", "b", "left", "count", "3"],
    ["zmpop", "1", "a", "min"], ["bzmpop", "0", "1", "a", "min"],
    ["sintercard", "2", "a", "b", "limit", "1"], ["zintercard", "2", "a", "b"],
    ["zunion", "2", "a", "b"], ["zunionstore", "d", "2", "a", "b"], ["zunionstore", "d", "0", "a"],
    ["zunionstore", "d", "3", "a", "b"], ["zinterstore", "d", "1", "a", "weights", "2"],
    ["zdiffstore", "d", "2", "a", "b"], ["zdiff", "2", "a", "b", "withscores"], ["zdiff", "-1", "a"],
    ["zdiff", "x", "a"], ["zrangestore", "d", "s", "0", "1"],
    ["eval", "s", "2", "a", "b", "c"], ["eval", "s", "0"], ["eval", "s", "5", "a"],
    ["eval", "s", "-1"], ["evalsha", "x", "1", "a"], ["eval_ro", "s", "1", "a"],
    ["evalsha_ro", "s", "1", "a"], ["fcall", "f", "2", "a", "b"], ["fcall_ro", "f", "1", "a"],
    ["fcall", "f", "0"],
    ["xread", "streams", "a", "b", "1", "2"], ["xread", "count", "1", "block", "0", "streams", "a", "0"],
    ["xread", "count", "1", "streams", "a", "b", "0"], ["xread", "streams", "a"],
    ["xreadgroup", "group", "g", "c", "streams", "a", "b", "0", "0"],
    ["xreadgroup", "group", "g", "c", "count", "1", "noack", "streams", "a", ">"],
    ["sort", "a"], ["sort", "a", "store", "d"], ["sort", "a", "by", "x", "get", "y", "store", "d"],
    ["sort", "a", "limit", "0", "1", "store", "d", "get", "#"], ["sort", "a", "store"],
    ["sort_ro", "a", "by", "x"],
    ["migrate", "h", "1", "k", "0", "1"], ["migrate", "h", "1", "", "0", "1", "keys", "a", "b"],
    ["migrate", "h", "1", "", "0", "1", "copy", "replace", "auth", "p", "keys", "a"],
    ["migrate", "h", "1", "", "0", "1", "auth2", "u", "p", "keys", "a"],
    ["migrate", "h", "1", "k", "0", "1", "keys", "a"],
    ["georadius", "k", "1", "2", "3", "m", "store", "s", "storedist", "t"],
    ["georadius", "k", "1", "2", "3", "m"], ["georadius", "k", "1", "2", "3", "m", "store"],
    ["georadius", "k", "1", "2", "3", "m", "count", "1", "store", "s"],
    ["georadiusbymember", "k", "m", "3", "m", "store", "s"],
    ["georadiusbymember", "k", "m", "3", "m", "storedist", "t"],
    ["georadius_ro", "k", "1", "2", "3", "m"],
    ["geosearchstore", "d", "s", "frommember", "m", "byradius", "1", "m"],
    ["geosearch", "k", "frommember", "m", "byradius", "1", "m"],
    ["bitop", "and", "d", "a", "b"], ["bitop", "not", "d", "a"],
    ["bitfield", "k", "get", "u8", "0"], ["bitfield", "k", "set", "u8", "0", "1"], ["bitfield", "k"],
    ["bitfield", "k", "incrby", "u8", "0", "1"], ["bitfield", "k", "overflow", "sat", "get", "u8", "0"],
    ["bitfield", "k", "get", "u8"], ["bitfield", "k", "foo"], ["bitfield_ro", "k", "get", "u8", "0"],
    ["pfmerge", "d", "a", "b"], ["pfmerge", "d"], ["pfcount", "a", "b"], ["pfdebug", "getreg", "k"],
    ["pfadd", "k", "a"], ["lcs", "a", "b"], ["copy", "a", "b"], ["copy", "a", "b", "db", "1", "replace"],
    ["rename", "a", "b"], ["renamenx", "a", "b"], ["smove", "a", "b", "m"],
    ["sinterstore", "d", "a", "b"], ["sunionstore", "d", "a"], ["sdiffstore", "d", "a", "b"],
    ["object", "encoding", "k"], ["object", "help"], ["object", "nosuch", "k"], ["memory", "usage", "k"],
    ["xgroup", "create", "s", "g", "0"], ["xgroup", "destroy", "s", "g"],
    ["xgroup", "setid", "s", "g", "0"], ["xgroup", "createconsumer", "s", "g", "c"],
    ["xgroup", "delconsumer", "s", "g", "c"], ["xinfo", "stream", "s"], ["xinfo", "groups", "s"],
    ["xinfo", "consumers", "s", "g"], ["watch", "a", "b"], ["exists", "a", "b"], ["touch", "a"],
    ["type", "a"], ["getex", "a", "persist"], ["restore", "k", "0", "x"],
    ["restore-asking", "k", "0", "x"], ["setbit", "k", "1", "1"], ["getbit", "k", "1"],
    ["bitcount", "k"], ["bitpos", "k", "1"], ["xadd", "s", "*", "f", "v"],
    ["xtrim", "s", "maxlen", "1"], ["xautoclaim", "s", "g", "c", "0", "0"],
    ["spublish", "c", "m"], ["ssubscribe", "a", "b"], ["sunsubscribe", "a"], ["publish", "c", "m"],
    ["config", "get", "x"], ["config", "get"], ["ping"], ["ping", "x", "y"], ["getkeys"],
    ["nosuch", "a"], ["get", "a", "b"], ["hset", "h", "f", "v"], ["zadd", "z", "1", "a"],
    ["linsert", "l", "before", "a", "b"], ["move", "a", "1"], ["dump", "a"], ["expire", "a", "1"],
    ["ttl", "a"], ["pttl", "a"], ["expiretime", "a"], ["getdel", "a"], ["incr", "a"],
    ["append", "a", "b"], ["sintercard", "0", "a"], ["lmpop", "0", "a", "left"],
    ["xread", "streams", "a", "b", "c"], ["eval", "s", "x"], ["fcall", "f", "-1"],
    ["georadius", "k", "1", "2", "3", "m", "store", "s", "storedist"], ["bitop", "and", "d"],
    ["migrate", "h", "1", "", "0", "1"], ["migrate", "h", "1", "", "0", "1", "keys"],
    ["sort", "a", "store", "d", "store", "e"], ["sort", "a", "by"], ["sort", "a", "get", "store"],
    ["sort_ro", "a", "store", "d"], ["zrangestore", "d", "s", "0"],
]


def tagged(value):
    """value with each RESP type spelled out, so that equal means equal on the wire (a set is not
    an array, a status is not a bulk), map fields kept in their order."""
    if isinstance(value, Map):
        return ("map", tuple((tagged(k), tagged(v)) for k, v in value.items()))
    if isinstance(value, RSet):
        return ("set", tuple(tagged(e) for e in value))
    if isinstance(value, list):
        return ("array", tuple(tagged(e) for e in value))
    if isinstance(value, Status):
        return ("status", str(value))
    if isinstance(value, bytes):
        return ("bulk", value)
    if value is None:
        return ("null",)
    return (type(value).__name__, value)


def pairs(value):
    """The (key, value) pairs of a map reply: a Map in RESP3, a flat array in RESP2."""
    if isinstance(value, Map):
        return list(value.items())
    return [(value[i], value[i + 1]) for i in range(0, len(value), 2)]


def info_by_name(reply):
    """COMMAND's entries by name, subcommands included (in Redis their order is a hash's)."""
    out = {}
    for entry in reply:
        out[entry[0]] = entry
        out.update(info_by_name(entry[9]))
    return out


def docs_by_name(reply):
    """COMMAND DOCS's entries by name, subcommands included, each as its list of fields."""
    out = {}
    for name, doc in pairs(reply):
        fields = pairs(doc)
        out[name] = fields
        for key, value in fields:
            if key == b"subcommands":
                out.update(docs_by_name(value))
    return out


def without_notes(key_specs):
    """A key-spec list with Redis's prose notes left out (ordis writes none)."""
    out = []
    for spec in key_specs:
        kept = [(k, v) for k, v in pairs(spec) if k != b"notes"]
        out.append(Map(kept) if isinstance(spec, Map) else [x for kv in kept for x in kv])
    return type(key_specs)(out)


class DifferentialTest(CrossServerTestCase):
    """The server under test beside a reference redis-server."""

    def clients(self, protocol):
        clients = [RawClient(self.server.port), RawClient(self.reference.port)]
        for c in clients:
            self.addCleanup(c.close)
            if protocol == 3:
                self.assertIsInstance(c.call("HELLO", "3"), Map)
        return clients

    def test_key_specs_equal(self):
        for protocol in (2, 3):
            ours, theirs = (info_by_name(c.call("COMMAND")) for c in self.clients(protocol))
            common = sorted(set(ours) & set(theirs))
            self.assertGreater(len(common), 300)
            for name in common:
                mine = ours[name][8]
                self.assertEqual(tagged(without_notes(mine)), tagged(without_notes(theirs[name][8])),
                                 "RESP%d COMMAND INFO %s key specs" % (protocol, name))
                if IS_ORDIS:
                    self.assertEqual(tagged(mine), tagged(without_notes(mine)), name)

    def test_commands_only_one_side_has(self):
        ours, theirs = (info_by_name(c.call("COMMAND")) for c in self.clients(2))
        only_redis = {b"asking", b"cluster", b"failover", b"lolwut", b"module", b"psync",
                      b"readonly", b"readwrite", b"replconf", b"replicaof", b"role", b"slaveof",
                      b"sync", b"script|debug"}
        only_ordis = {b"krange", b"kcount", b"client|setinfo", b"client|no-touch"}
        # Subcommands of commands ordis lacks altogether are not listed one by one.
        missing = {n for n in set(theirs) - set(ours) if n.split(b"|")[0] not in only_redis}
        self.assertEqual(missing - only_redis, set())
        self.assertEqual(set(ours) - set(theirs), only_ordis if IS_ORDIS else set())

    def test_scripting_and_client_flags_equal(self):
        # Flags and ACL categories: read-only scripts are readonly (not @read), containers have
        # no flags of their own.
        ours, theirs = (info_by_name(c.call("COMMAND")) for c in self.clients(2))
        names = [n for n in set(ours) & set(theirs)
                 if n.split(b"|")[0] in (b"eval", b"eval_ro", b"evalsha", b"evalsha_ro", b"fcall",
                                         b"fcall_ro", b"script", b"client")]
        self.assertGreater(len(names), 20)
        for name in sorted(names):
            self.assertEqual(sorted(ours[name][2]), sorted(theirs[name][2]), name)
            self.assertEqual(sorted(ours[name][6]), sorted(theirs[name][6]), name)

    def test_docs_equal(self):
        for protocol in (2, 3):
            ours, theirs = (docs_by_name(c.call("COMMAND", "DOCS")) for c in self.clients(protocol))
            common = sorted(set(ours) & set(theirs))
            self.assertGreater(len(common), 300)
            for name in common:
                mine = [(k, v) for k, v in ours[name] if k not in DOCS_NOT_COMPARED]
                ref = [(k, v) for k, v in theirs[name] if k not in DOCS_NOT_COMPARED]
                self.assertEqual(tagged(mine), tagged(ref), "RESP%d COMMAND DOCS %s" % (protocol, name))
                # What ordis leaves out, and nothing else (Redis compared with Redis: nothing).
                omitted = {k for k, _ in theirs[name]} - {k for k, _ in ours[name]}
                self.assertLessEqual(omitted, DOCS_OMITTED if IS_ORDIS else set(), name)
                subs = [{n for n, _ in pairs(v)} for doc in (ours[name], theirs[name])
                        for k, v in doc if k == b"subcommands"]
                if len(subs) == 2 and name not in (b"client", b"script"):
                    self.assertEqual(subs[0], subs[1], name)

    def test_getkeys_and_flags_equal(self):
        for protocol in (2, 3):
            ours, theirs = self.clients(protocol)
            for call in GETKEYS_CALLS:
                for sub in ("GETKEYS", "GETKEYSANDFLAGS"):
                    args = ("COMMAND", sub) + tuple(call)
                    self.assertEqual(tagged(ours.call(*args)), tagged(theirs.call(*args)),
                                     "RESP%d %r" % (protocol, args))

    def test_single_command_info_and_docs_equal_the_full_walk(self):
        # COMMAND INFO name / COMMAND DOCS name give what the walk gives, subcommand names too.
        c = self.clients(3)[0]
        walk = info_by_name(c.call("COMMAND"))
        docs = docs_by_name(c.call("COMMAND", "DOCS"))
        for name in (b"get", b"lmove", b"sort", b"xinfo", b"config|get", b"xgroup|create"):
            self.assertEqual(tagged(c.call("COMMAND", "INFO", name)), tagged([walk[name]]), name)
            one = docs_by_name(c.call("COMMAND", "DOCS", name))
            self.assertEqual(tagged(one[name]), tagged(docs[name]), name)


class CommandDocsTest(ServerTestCase):
    """Replies recorded from redis-server 7.0.15."""

    def test_getkeysandflags(self):
        self.assertReply([[b"a", ["RW", "access", "delete"]], [b"b", ["RW", "insert"]]],
                         "COMMAND", "GETKEYSANDFLAGS", "LMOVE", "a", "b", "left", "right")
        self.assertReply([[b"a", ["OW", "update"]]], "COMMAND", "GETKEYSANDFLAGS", "set", "a", "b")
        self.assertReply([[b"a", ["RW", "access", "update"]]],
                         "COMMAND", "GETKEYSANDFLAGS", "set", "a", "b", "get")
        self.assertReply([[b"a", ["RO", "access"]], [b"d", ["OW", "update"]]],
                         "COMMAND", "GETKEYSANDFLAGS", "sort", "a", "by", "x", "store", "d")
        self.assertReply([[b"k", ["RO"]]], "COMMAND", "GETKEYSANDFLAGS", "memory", "usage", "k")
        self.assertReply([], "COMMAND", "GETKEYSANDFLAGS", "eval", "return 1", "0")

    def test_getkeysandflags_errors(self):
        self.assertErr("ERR Invalid command specified", "COMMAND", "GETKEYSANDFLAGS", "nosuch", "a")
        self.assertErr("ERR The command has no key arguments",
                       "COMMAND", "GETKEYSANDFLAGS", "config", "get", "x")
        self.assertErr("ERR Invalid number of arguments specified for command",
                       "COMMAND", "GETKEYSANDFLAGS", "get", "a", "b")
        self.assertErr("ERR Invalid arguments specified for command",
                       "COMMAND", "GETKEYSANDFLAGS", "zunionstore", "d", "0", "a")
        self.assertErr("ERR wrong number of arguments for 'command|getkeysandflags' command",
                       "COMMAND", "GETKEYSANDFLAGS", "get")
        self.assertErr("ERR wrong number of arguments for 'command|getkeys' command",
                       "COMMAND", "GETKEYS", "get")

    def test_getkeysandflags_resp3_flags_are_a_set(self):
        c = self.resp3_client()
        c.send_command("COMMAND", "GETKEYSANDFLAGS", "lmove", "a", "b", "left", "right")
        want = (b"*2\r\n*2\r\n$1\r\na\r\n~3\r\n+RW\r\n+access\r\n+delete\r\n"
                b"*2\r\n$1\r\nb\r\n~2\r\n+RW\r\n+insert\r\n")
        self.assertEqual(c.read_raw(len(want)), want)

    def test_info_key_specs_of_several_specs(self):
        specs = self.raw.call("COMMAND", "INFO", "zunionstore")[0][8]
        self.assertEqual(specs, [
            [b"flags", ["OW", "update"],
             b"begin_search", [b"type", b"index", b"spec", [b"index", 1]],
             b"find_keys", [b"type", b"range", b"spec",
                            [b"lastkey", 0, b"keystep", 1, b"limit", 0]]],
            [b"flags", ["RO", "access"],
             b"begin_search", [b"type", b"index", b"spec", [b"index", 2]],
             b"find_keys", [b"type", b"keynum", b"spec",
                            [b"keynumidx", 0, b"firstkey", 1, b"keystep", 1]]]])
        xread = self.raw.call("COMMAND", "INFO", "xread")[0][8]
        self.assertEqual(xread, [
            [b"flags", ["RO", "access"],
             b"begin_search", [b"type", b"keyword", b"spec", [b"keyword", b"STREAMS", b"startfrom", 1]],
             b"find_keys", [b"type", b"range", b"spec", [b"lastkey", -1, b"keystep", 1, b"limit", 2]]]])

    def test_info_resp3_key_specs_and_no_subcommands_are_sets(self):
        c = self.resp3_client()
        entry = c.call("COMMAND", "INFO", "get")[0]
        self.assertIsInstance(entry[8], RSet)
        self.assertIsInstance(entry[9], RSet)
        self.assertEqual(entry[9], [])
        self.assertNotIsInstance(c.call("COMMAND", "INFO", "config")[0][9], RSet)

    def test_info_and_docs_of_a_subcommand_by_full_name(self):
        self.assertEqual(self.raw.call("COMMAND", "INFO", "CONFIG|GET")[0][0], b"config|get")
        self.assertReply([None], "COMMAND", "INFO", "get|x")
        docs = self.raw.call("COMMAND", "DOCS", "config|get")
        self.assertEqual(docs[0], b"config|get")

    def test_docs_since_and_arguments(self):
        doc = dict(pairs(self.raw.call("COMMAND", "DOCS", "lmove")[1]))
        self.assertEqual(doc[b"since"], b"6.2.0")
        self.assertEqual(doc[b"arguments"][0],
                         [b"name", b"source", b"type", b"key", b"key_spec_index", 0])
        self.assertEqual(doc[b"arguments"][2],
                         [b"name", b"wherefrom", b"type", b"oneof", b"arguments",
                          [[b"name", b"left", b"type", b"pure-token", b"token", b"LEFT"],
                           [b"name", b"right", b"type", b"pure-token", b"token", b"RIGHT"]]])
        getset = dict(pairs(self.raw.call("COMMAND", "DOCS", "getset")[1]))
        self.assertEqual(getset[b"doc_flags"], ["deprecated"])
        self.assertEqual(getset[b"deprecated_since"], b"6.2.0")
        self.assertEqual(getset[b"replaced_by"], b"`SET` with the `!GET` argument")

    def test_help(self):
        lines = self.raw.call("COMMAND", "HELP")
        self.assertEqual(lines[17:19], ["GETKEYSANDFLAGS <full-command>",
                                        "    Return the keys and the access flags from a full Redis "
                                        "command."])
        self.assertEqual(len(lines), 21)

    @unittest.skipUnless(IS_ORDIS, "ordis's own commands")
    def test_docs_of_ordis_commands(self):
        krange = dict(pairs(self.raw.call("COMMAND", "DOCS", "krange")[1]))
        self.assertEqual(krange[b"since"], b"0.1.0")
        self.assertEqual([a[1] for a in krange[b"arguments"]],
                         [b"min", b"max", b"rev", b"limit", b"withvalues"])
        setinfo = dict(pairs(self.raw.call("COMMAND", "DOCS", "client|setinfo")[1]))
        self.assertEqual(setinfo[b"since"], b"7.2.0")
        self.assertErr("ERR The command has no key arguments", "COMMAND", "GETKEYS", "krange", "a", "b")


if __name__ == "__main__":
    unittest.main()
