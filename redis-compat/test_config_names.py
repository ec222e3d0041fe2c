"""Every Redis 7.0 configuration name (issue 17): CONFIG GET, CONFIG SET, the config file and
`--name value` flags know each name redis-server 7.0.15 lists in CONFIG GET *, with its default, its
kind (yes/no, enum, bounded integer, memory size, percentage, ...) and Redis's error texts; the
names kept for old configurations (slave-*, *-ziplist-*, lua-time-limit, slaveof) are aliases of
one value each; CONFIG SET stays all or nothing.

Every expectation was checked against redis-server 7.0.15 (Debian's build, with TLS, so its tls-*
names are listed). Where ordis differs on purpose, the difference is in a table below with its
reason, and the tests expect ordis's value only when running on ordis.
"""

import os
import shutil
import tempfile
import unittest

from harness import IS_ORDIS, Err, RawClient, Server, ServerTestCase, config_get

INT64_MAX = 2**63 - 1
INT64_MIN = -2**63

# Redis 7.0.15's parameters (not their aliases) as CONFIG GET * lists them on a server started with
# only --port: name -> (default, kind). port and dir (None) are the server's own. Kinds:
#   bool, str, "int LO HI", "mem LO HI" (a memory size, bounds in bytes), umem (a memory size up
#   to 2^64 - 1), mem% (a memory size or a percentage of maxmemory), "enum CHOICES", "flags
#   CHOICES" (several of them), immutable (start-up only), protected (CONFIG SET needs
#   enable-protected-configs), special (a syntax of its own: tested one by one).
PARAMS = {
    "acl-pubsub-default": ("resetchannels", "enum allchannels, resetchannels"),
    "aclfile": ("", "immutable"),
    "acllog-max-len": ("128", "int 0 9223372036854775807"),
    "active-defrag-cycle-max": ("25", "int 1 99"),
    "active-defrag-cycle-min": ("1", "int 1 99"),
    "active-defrag-ignore-bytes": ("104857600", "mem 1 9223372036854775807"),
    "active-defrag-max-scan-fields": ("1000", "int 1 9223372036854775807"),
    "active-defrag-threshold-lower": ("10", "int 0 1000"),
    "active-defrag-threshold-upper": ("100", "int 0 1000"),
    "active-expire-effort": ("1", "int 1 10"),
    "activedefrag": ("no", "bool"),
    "activerehashing": ("yes", "bool"),
    "always-show-logo": ("no", "immutable"),
    "aof-disable-auto-gc": ("no", "bool"),
    "aof-load-truncated": ("yes", "bool"),
    "aof-rewrite-incremental-fsync": ("yes", "bool"),
    "aof-timestamp-enabled": ("no", "bool"),
    "aof-use-rdb-preamble": ("yes", "bool"),
    "aof_rewrite_cpulist": ("", "immutable"),
    "appenddirname": ("appendonlydir", "immutable"),
    "appendfilename": ("appendonly.aof", "immutable"),
    "appendfsync": ("everysec", "enum everysec, always, no"),
    "appendonly": ("no", "bool"),
    "auto-aof-rewrite-min-size": ("67108864", "mem 0 9223372036854775807"),
    "auto-aof-rewrite-percentage": ("100", "int 0 2147483647"),
    "bgsave_cpulist": ("", "immutable"),
    "bind": ("* -::*", "special"),
    "bind-source-addr": ("", "str"),
    "bio_cpulist": ("", "immutable"),
    "busy-reply-threshold": ("5000", "int 0 9223372036854775807"),
    "client-output-buffer-limit": (
        "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60", "special"),
    "client-query-buffer-limit": ("1073741824", "mem 1048576 9223372036854775807"),
    "cluster-allow-pubsubshard-when-down": ("yes", "bool"),
    "cluster-allow-reads-when-down": ("no", "bool"),
    "cluster-allow-replica-migration": ("yes", "bool"),
    "cluster-announce-bus-port": ("0", "int 0 65535"),
    "cluster-announce-hostname": ("", "str"),
    "cluster-announce-ip": ("", "str"),
    "cluster-announce-port": ("0", "int 0 65535"),
    "cluster-announce-tls-port": ("0", "int 0 65535"),
    "cluster-config-file": ("nodes.conf", "immutable"),
    "cluster-enabled": ("no", "immutable"),
    "cluster-link-sendbuf-limit": ("0", "umem"),
    "cluster-migration-barrier": ("1", "int 0 2147483647"),
    "cluster-node-timeout": ("15000", "int 0 9223372036854775807"),
    "cluster-port": ("0", "immutable"),
    "cluster-preferred-endpoint-type": ("ip", "enum ip, hostname, unknown-endpoint"),
    "cluster-replica-no-failover": ("no", "bool"),
    "cluster-replica-validity-factor": ("10", "int 0 2147483647"),
    "cluster-require-full-coverage": ("yes", "bool"),
    "crash-log-enabled": ("yes", "bool"),
    "crash-memcheck-enabled": ("yes", "bool"),
    "daemonize": ("no", "immutable"),
    "databases": ("16", "immutable"),
    "dbfilename": ("dump.rdb", "protected"),
    "dir": (None, "special"),
    "disable-thp": ("yes", "immutable"),
    "dynamic-hz": ("yes", "bool"),
    "enable-debug-command": ("no", "immutable"),
    "enable-module-command": ("no", "immutable"),
    "enable-protected-configs": ("no", "immutable"),
    "hash-max-listpack-entries": ("512", "int 0 9223372036854775807"),
    "hash-max-listpack-value": ("64", "mem 0 9223372036854775807"),
    "hll-sparse-max-bytes": ("3000", "mem 0 9223372036854775807"),
    "hz": ("10", "int 0 2147483647"),
    "ignore-warnings": ("", "str"),
    "io-threads": ("1", "immutable"),
    "io-threads-do-reads": ("no", "immutable"),
    "jemalloc-bg-thread": ("yes", "bool"),
    "latency-monitor-threshold": ("0", "int 0 9223372036854775807"),
    "latency-tracking": ("yes", "bool"),
    "latency-tracking-info-percentiles": ("50 99 99.9", "special"),
    "lazyfree-lazy-eviction": ("no", "bool"),
    "lazyfree-lazy-expire": ("no", "bool"),
    "lazyfree-lazy-server-del": ("no", "bool"),
    "lazyfree-lazy-user-del": ("no", "bool"),
    "lazyfree-lazy-user-flush": ("no", "bool"),
    "lfu-decay-time": ("1", "int 0 2147483647"),
    "lfu-log-factor": ("10", "int 0 2147483647"),
    "list-compress-depth": ("0", "int 0 2147483647"),
    "list-max-listpack-size": ("-2", "int -2147483648 2147483647"),
    "logfile": ("", "immutable"),
    "loglevel": ("notice", "enum debug, verbose, notice, warning"),
    "masterauth": ("", "str"),
    "masteruser": ("", "str"),
    "maxclients": ("10000", "int 1 4294967295"),
    "maxmemory": ("0", "umem"),
    "maxmemory-clients": ("0", "mem%"),
    "maxmemory-eviction-tenacity": ("10", "int 0 100"),
    "maxmemory-policy": ("noeviction", "enum volatile-lru, volatile-lfu, volatile-random, volatile-ttl, "
                                       "allkeys-lru, allkeys-lfu, allkeys-random, noeviction"),
    "maxmemory-samples": ("5", "int 1 2147483647"),
    "min-replicas-max-lag": ("10", "int 0 2147483647"),
    "min-replicas-to-write": ("0", "int 0 2147483647"),
    "no-appendfsync-on-rewrite": ("no", "bool"),
    "notify-keyspace-events": ("", "special"),
    "oom-score-adj": ("no", "enum no, yes, relative, absolute"),
    "oom-score-adj-values": ("0 200 800", "special"),
    "pidfile": ("", "immutable"),
    "port": (None, "special"),
    "proc-title-template": ("{title} {listen-addr} {server-mode}", "str"),
    "propagation-error-behavior": ("ignore", "enum ignore, panic, panic-on-replicas"),
    "protected-mode": ("yes", "bool"),
    "proto-max-bulk-len": ("536870912", "mem 1048576 9223372036854775807"),
    "rdb-del-sync-files": ("no", "bool"),
    "rdb-save-incremental-fsync": ("yes", "bool"),
    "rdbchecksum": ("yes", "immutable"),
    "rdbcompression": ("yes", "bool"),
    "repl-backlog-size": ("1048576", "mem 1 9223372036854775807"),
    "repl-backlog-ttl": ("3600", "int 0 9223372036854775807"),
    "repl-disable-tcp-nodelay": ("no", "bool"),
    "repl-diskless-load": ("disabled", "enum disabled, on-empty-db, swapdb"),
    "repl-diskless-sync": ("yes", "bool"),
    "repl-diskless-sync-delay": ("5", "int 0 2147483647"),
    "repl-diskless-sync-max-replicas": ("0", "int 0 2147483647"),
    "repl-ping-replica-period": ("10", "int 1 2147483647"),
    "repl-timeout": ("60", "int 1 2147483647"),
    "replica-announce-ip": ("", "str"),
    "replica-announce-port": ("0", "int 0 65535"),
    "replica-announced": ("yes", "bool"),
    "replica-ignore-disk-write-errors": ("no", "bool"),
    "replica-ignore-maxmemory": ("yes", "bool"),
    "replica-lazy-flush": ("no", "bool"),
    "replica-priority": ("100", "int 0 2147483647"),
    "replica-read-only": ("yes", "bool"),
    "replica-serve-stale-data": ("yes", "bool"),
    "replicaof": ("", "immutable"),
    "requirepass": ("", "str"),
    "sanitize-dump-payload": ("no", "enum no, yes, clients"),
    "save": ("3600 1 300 100 60 10000", "special"),
    "server_cpulist": ("", "immutable"),
    "set-max-intset-entries": ("512", "int 0 9223372036854775807"),
    "set-proc-title": ("yes", "immutable"),
    "shutdown-on-sigint": ("default", "flags default, save, nosave, now, force"),
    "shutdown-on-sigterm": ("default", "flags default, save, nosave, now, force"),
    "shutdown-timeout": ("10", "int 0 2147483647"),
    "slowlog-log-slower-than": ("10000", "int -1 9223372036854775807"),
    "slowlog-max-len": ("128", "int 0 9223372036854775807"),
    "socket-mark-id": ("0", "immutable"),
    "stop-writes-on-bgsave-error": ("yes", "bool"),
    "stream-node-max-bytes": ("4096", "mem 0 9223372036854775807"),
    "stream-node-max-entries": ("100", "int 0 9223372036854775807"),
    "supervised": ("no", "immutable"),
    "syslog-enabled": ("no", "immutable"),
    "syslog-facility": ("local0", "immutable"),
    "syslog-ident": ("redis", "immutable"),
    "tcp-backlog": ("511", "immutable"),
    "tcp-keepalive": ("300", "int 0 2147483647"),
    "timeout": ("0", "int 0 2147483647"),
    "tls-auth-clients": ("yes", "enum no, yes, optional"),
    "tls-ca-cert-dir": ("", "str"),
    "tls-ca-cert-file": ("", "str"),
    "tls-cert-file": ("", "str"),
    "tls-ciphers": ("", "str"),
    "tls-ciphersuites": ("", "str"),
    "tls-client-cert-file": ("", "str"),
    "tls-client-key-file": ("", "str"),
    "tls-client-key-file-pass": ("", "str"),
    "tls-cluster": ("no", "bool"),
    "tls-dh-params-file": ("", "str"),
    "tls-key-file": ("", "str"),
    "tls-key-file-pass": ("", "str"),
    "tls-port": ("0", "int 0 65535"),
    "tls-prefer-server-ciphers": ("no", "bool"),
    "tls-protocols": ("", "str"),
    "tls-replication": ("no", "bool"),
    "tls-session-cache-size": ("20480", "int 0 2147483647"),
    "tls-session-cache-timeout": ("300", "int 0 2147483647"),
    "tls-session-caching": ("yes", "bool"),
    "tracking-table-max-keys": ("1000000", "int 0 9223372036854775807"),
    "unixsocket": ("", "immutable"),
    "unixsocketperm": ("0", "immutable"),
    "zset-max-listpack-entries": ("128", "int 0 9223372036854775807"),
    "zset-max-listpack-value": ("64", "mem 0 9223372036854775807"),
}

# Redis 7.0's older names: alias -> its parameter. Each reads and writes the parameter's value.
ALIASES = {
    "slaveof": "replicaof",
    "slave-read-only": "replica-read-only",
    "slave-serve-stale-data": "replica-serve-stale-data",
    "slave-ignore-maxmemory": "replica-ignore-maxmemory",
    "slave-lazy-flush": "replica-lazy-flush",
    "slave-priority": "replica-priority",
    "slave-announce-ip": "replica-announce-ip",
    "slave-announce-port": "replica-announce-port",
    "min-slaves-to-write": "min-replicas-to-write",
    "min-slaves-max-lag": "min-replicas-max-lag",
    "repl-ping-slave-period": "repl-ping-replica-period",
    "cluster-slave-no-failover": "cluster-replica-no-failover",
    "cluster-slave-validity-factor": "cluster-replica-validity-factor",
    "hash-max-ziplist-entries": "hash-max-listpack-entries",
    "hash-max-ziplist-value": "hash-max-listpack-value",
    "zset-max-ziplist-entries": "zset-max-listpack-entries",
    "zset-max-ziplist-value": "zset-max-listpack-value",
    "list-max-ziplist-size": "list-max-listpack-size",
    "lua-time-limit": "busy-reply-threshold",
}

# Redis's debugging parameters: CONFIG GET shows them only when asked for by their exact names.
HIDDEN = {"key-load-delay": "0", "rdb-key-save-delay": "0",
          "loading-process-events-interval-bytes": "2097152"}

# Names Redis 7.0 still reads from a config file or a flag (with one value) and ignores.
IGNORED = ("list-max-ziplist-entries", "list-max-ziplist-value", "lua-replicate-commands")

# Where ordis's default differs from Redis 7.0's on purpose: name -> (ordis's default, why).
ORDIS_DEFAULTS = {
    "bind": ("127.0.0.1", "ordis listens on loopback unless bind says otherwise; Redis listens on "
                          "every interface, behind protected mode"),
    "dbfilename": ("dump.osnap", "the snapshot is in ordis's own format, which no Redis tool may "
                                 "take for an RDB file"),
}

# Where ordis's kind differs on purpose: name -> (ordis's kind, why).
ORDIS_KINDS = {
    "port": ("immutable", "start-up only in ordis: its listeners are not re-bound at run time"),
    "bind": ("immutable", "start-up only in ordis, as port"),
    "maxmemory-samples": ("int 1 64", "ordis's eviction sampler is sized for at most 64 samples a "
                                      "run (Redis: INT_MAX)"),
}

# Parameters written as several words in a config file (every other value is one quoted word).
MULTI_WORD = ("save", "client-output-buffer-limit", "oom-score-adj-values",
              "latency-tracking-info-percentiles", "shutdown-on-sigint", "shutdown-on-sigterm")


def kind_of(name):
    if IS_ORDIS and name in ORDIS_KINDS:
        return ORDIS_KINDS[name][0]
    return PARAMS[name][1]


def default_of(name):
    if IS_ORDIS and name in ORDIS_DEFAULTS:
        return ORDIS_DEFAULTS[name][0]
    return PARAMS[name][0]


def set_failed(name, why):
    return Err("ERR CONFIG SET failed (possibly related to argument '%s') - %s" % (name, why))


def between(lo, hi):
    return "argument must be between %s and %s inclusive" % (lo, hi)


def unknown(name):
    return Err("ERR Unknown option or number of arguments for CONFIG SET - '%s'" % name)


NOT_INT = "argument couldn't be parsed into an integer"
NOT_MEMORY = "argument must be a memory value"
NOT_MEMORY_OR_PERCENT = "argument must be a memory or percent value"
NOT_BOOL = "argument must be 'yes' or 'no'"
IMMUTABLE = "can't set immutable config"
PROTECTED = "can't set protected config"
BAD_TEMPLATE = "template format is invalid or contains unknown variables"
OOM_RANGE = "Invalid oom-score-adj-values, elements must be between -2000 and 2000."
PERCENTILE_RANGE = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
BAD_PERCENTILE = "Invalid latency-tracking-info-percentiles parameters"


def probes(name, kind, current):
    """(value, expected reply) pairs of CONFIG SET name value: values each kind refuses (so nothing
    changes), and the current value, which every settable parameter takes back."""
    ok = [(current, "OK")]
    words = kind.split(" ", 1)
    if kind == "immutable":
        return [(current, set_failed(name, IMMUTABLE))]
    if kind == "protected":
        return [(current, set_failed(name, PROTECTED))]
    if kind == "special":
        return []
    if kind == "bool":
        return ok + [(current.upper(), "OK"), ("maybe", set_failed(name, NOT_BOOL)),
                     ("1", set_failed(name, NOT_BOOL)), ("", set_failed(name, NOT_BOOL))]
    if kind == "str":
        return ok
    if words[0] in ("enum", "flags"):
        choices = set_failed(name, "argument(s) must be one of the following: " + words[1])
        return ok + [(current.upper(), "OK"), ("zz", choices), ("", choices)]
    if kind == "mem%":
        return ok + [("zz", set_failed(name, NOT_MEMORY_OR_PERCENT)),
                     ("-5%", set_failed(name, NOT_MEMORY_OR_PERCENT)),
                     ("101%", set_failed(name, "percentage argument must be less or equal to 100"))]
    if kind == "umem":
        return ok + [("zz", set_failed(name, NOT_MEMORY)), ("-1", set_failed(name, NOT_MEMORY)),
                     ("1tb", set_failed(name, NOT_MEMORY))]
    lo, hi = (int(b) for b in words[1].split())
    out_of_range = set_failed(name, between(lo, hi))
    if words[0] == "int":
        out = ok + [("zz", set_failed(name, NOT_INT)), ("1k", set_failed(name, NOT_INT)),
                    ("+1", set_failed(name, NOT_INT)), ("", set_failed(name, NOT_INT)),
                    ("99999999999999999999", set_failed(name, NOT_INT))]
    else:  # mem: a count past 2^63 - 1 reads negative in Redis's signed parameters
        out = ok + [("zz", set_failed(name, NOT_MEMORY)), ("-1", set_failed(name, NOT_MEMORY)),
                    ("1tb", set_failed(name, NOT_MEMORY)), ("1.5", set_failed(name, NOT_MEMORY)),
                    ("9223372036854775808", out_of_range)]
    if lo > INT64_MIN and (words[0] == "int" or lo > 0):
        out.append((str(lo - 1), out_of_range))
    if hi < INT64_MAX:
        out.append((str(hi + 1), out_of_range))
    return out


def another_value(kind, current):
    """A value other than current that a parameter of this kind takes."""
    if kind == "bool":
        return "no" if current == "yes" else "yes"
    if kind == "str":
        return "10.0.0.1"
    return str(int(current) + 1)


class BareServer(Server):
    """Started with --port only (and ordis's thread flags): every other parameter at its default."""

    def args(self, port):
        a = [self.path, "--port", str(port)]
        if IS_ORDIS:
            a += ["--threads", str(self.threads), "--adaptive-threads", "no"]
        return a + self.extra_args


class FileServer(Server):
    """Started as `<binary> <config file>`, the file written from a template (@PORT@ replaced)."""

    def __init__(self, conf_path, template):
        super().__init__()
        self.conf_path = conf_path
        self.template = template

    def args(self, port):
        with open(self.conf_path, "w") as f:
            f.write(self.template.replace("@PORT@", str(port)))
        a = [self.path, self.conf_path]
        if IS_ORDIS:
            a += ["--threads", str(self.threads), "--adaptive-threads", "no"]
        return a


def all_params(client):
    reply = client.call("CONFIG", "GET", "*")
    return dict(zip((n.decode() for n in reply[0::2]), (v.decode() for v in reply[1::2])))


def mismatches(got, dir_path, port):
    """The (name, got, expected) of every Redis 7.0 parameter and alias not at its default."""
    bad = []
    for name in sorted(PARAMS):
        expected = default_of(name)
        if name == "port":
            expected = str(port)
        elif name == "dir":
            expected = os.path.realpath(dir_path)
        if got.get(name) != expected:
            bad.append((name, got.get(name), expected))
    for alias, name in sorted(ALIASES.items()):
        if got.get(alias) != got.get(name):
            bad.append((alias, got.get(alias), got.get(name)))
    return bad


# ---------------------------------------------------------------------------------------------------------
# Names and defaults
# ---------------------------------------------------------------------------------------------------------


class NamesAndDefaultsTest(ServerTestCase):
    """A server started with --port only: every name Redis 7.0 lists, each at Redis's default."""

    @classmethod
    def setUpClass(cls):
        cls.server = BareServer().start()
        cls.port = cls.server.port

    def test_every_name_is_listed(self):
        names = set(all_params(self.raw))
        redis_names = set(PARAMS) | set(ALIASES)
        self.assertEqual(sorted(redis_names - names), [])
        if not IS_ORDIS:
            self.assertEqual(sorted(names - redis_names), [])  # the tables here are complete
        self.assertEqual(sorted(names & set(HIDDEN)), [])

    def test_defaults(self):
        self.assertEqual(mismatches(all_params(self.raw), self.server.dir, self.port), [])

    def test_differences_are_differences(self):
        for name, (value, why) in ORDIS_DEFAULTS.items():
            self.assertNotEqual(value, PARAMS[name][0], name)
            self.assertTrue(why)
        for name, (kind, why) in ORDIS_KINDS.items():
            self.assertNotEqual(kind, PARAMS[name][1], name)
            self.assertTrue(why)

    def test_hidden_names_need_their_exact_names(self):
        for name, value in HIDDEN.items():
            self.assertReply([name.encode(), value.encode()], "CONFIG", "GET", name)
            self.assertReply([], "CONFIG", "GET", name[:-1] + "?")
        self.assertReply([b"KEY-LOAD-DELAY", b"0"], "CONFIG", "GET", "KEY-LOAD-DELAY")
        self.assertReply([], "CONFIG", "GET", "key-*")

    def test_plain_names_are_reported_as_asked(self):
        self.assertReply([b"Slave-Priority", b"100"], "CONFIG", "GET", "Slave-Priority")
        self.assertReply([b"TIMEOUT", b"0"], "CONFIG", "GET", "TIMEOUT", "timeout", "t?meout")


# ---------------------------------------------------------------------------------------------------------
# Kinds, values and error texts
# ---------------------------------------------------------------------------------------------------------


class KindsTest(ServerTestCase):
    """Each parameter's kind: what CONFIG SET refuses, with Redis's text, and how values read back."""

    def assert_set_reads_back(self, name, value, expected):
        before = config_get(self.raw, name)
        try:
            self.assertReply("OK", "CONFIG", "SET", name, value)
            self.assertEqual(config_get(self.raw, name), expected.encode(), (name, value))
        finally:
            self.assertReply("OK", "CONFIG", "SET", name, before)

    def test_refused_values_change_nothing(self):
        before = all_params(self.raw)
        failures = []
        for name in sorted(PARAMS):
            for value, expected in probes(name, kind_of(name), before[name]):
                got = self.raw.call("CONFIG", "SET", name, value)
                if got != expected:
                    failures.append((name, value, got, expected))
        self.assertEqual(failures, [])
        self.assertEqual(all_params(self.raw), before)

    def test_special_syntaxes_refused(self):
        before = all_params(self.raw)
        cases = [
            ("save", "1", "Invalid save parameters"),
            ("save", "x y", "Invalid save parameters"),
            ("client-output-buffer-limit", "zz",
             "Wrong number of arguments in buffer limit configuration."),
            ("client-output-buffer-limit", "master 1 2 3",
             "Invalid client class specified in buffer limit configuration."),
            ("notify-keyspace-events", "!", "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."),
            ("oom-score-adj-values", "1 2", "wrong number of arguments"),
            ("oom-score-adj-values", "1 2 3 ", "wrong number of arguments"),
            ("oom-score-adj-values", "0 2001 0", OOM_RANGE),
            ("oom-score-adj-values", "1.0 2 3", OOM_RANGE),
            ("latency-tracking-info-percentiles", "x", BAD_PERCENTILE),
            ("latency-tracking-info-percentiles", "nan", BAD_PERCENTILE),
            ("latency-tracking-info-percentiles", " 50", BAD_PERCENTILE),
            ("latency-tracking-info-percentiles", "50 101", PERCENTILE_RANGE),
            ("latency-tracking-info-percentiles", "inf", PERCENTILE_RANGE),
            ("shutdown-on-sigint", "save nosave",
             "shutdown options SAVE and NOSAVE can't be used simultaneously"),
            ("shutdown-on-sigterm", "save  now",
             "argument(s) must be one of the following: default, save, nosave, now, force"),
            ("cluster-announce-hostname", "a_b",
             "Hostnames may only contain alphanumeric characters, hyphens or dots"),
            ("cluster-announce-hostname", "a" * 256, "Hostnames must be less than 256 characters"),
            ("proc-title-template", "{title}", BAD_TEMPLATE),
            ("proc-title-template", "{title", BAD_TEMPLATE),
            ("proc-title-template", "{nope} x", BAD_TEMPLATE),
            ("proc-title-template", "", BAD_TEMPLATE),
            ("maxmemory", "1 k", NOT_MEMORY),
        ]
        for name, value, why in cases:
            self.assertReply(set_failed(name, why), "CONFIG", "SET", name, value)
        self.assertEqual(all_params(self.raw), before)

    def test_memory_sizes(self):
        for value, expected in [("1gb", "1073741824"), ("100mb", "104857600"), ("4k", "4000"),
                                ("4kb", "4096"), ("1KB", "1024"), ("2G", "2000000000"),
                                ("007", "7"), ("", "0"), ("18446744073709551615", None)]:
            self.assert_set_reads_back("maxmemory", value, expected or value)
        self.assert_set_reads_back("auto-aof-rewrite-min-size", "64MB", "67108864")
        self.assert_set_reads_back("hash-max-listpack-value", "1k", "1000")
        self.assert_set_reads_back("stream-node-max-bytes", "8kb", "8192")

    def test_percentages(self):
        self.assert_set_reads_back("maxmemory-clients", "10%", "10%")
        self.assert_set_reads_back("maxmemory-clients", "100%", "100%")
        self.assert_set_reads_back("maxmemory-clients", "0%", "0")
        self.assert_set_reads_back("maxmemory-clients", "1mb", "1048576")

    def test_integers_and_enums(self):
        self.assert_set_reads_back("hz", "1000", "500")  # any int, kept within 1..500
        self.assert_set_reads_back("hz", "0", "1")
        self.assert_set_reads_back("slowlog-log-slower-than", "-1", "-1")
        self.assert_set_reads_back("list-max-listpack-size", "-5", "-5")
        self.assert_set_reads_back("key-load-delay", "-5", "-5")
        self.assert_set_reads_back("appendfsync", "ALWAYS", "always")
        self.assert_set_reads_back("oom-score-adj", "relative", "yes")  # the value's first name
        self.assert_set_reads_back("oom-score-adj", "Absolute", "absolute")
        self.assert_set_reads_back("replica-read-only", "NO", "no")

    def test_special_syntaxes(self):
        self.assert_set_reads_back("shutdown-on-sigint", "NOSAVE force now", "nosave now force")
        self.assert_set_reads_back("shutdown-on-sigterm", "default save", "save")
        self.assert_set_reads_back("latency-tracking-info-percentiles", "99.12345678 0x10 -0 1e-7",
                                   "99.123457 16 -0 0")
        self.assert_set_reads_back("latency-tracking-info-percentiles", "", "")
        self.assert_set_reads_back("oom-score-adj-values", "007 +1 -2000", "7 1 -2000")
        self.assert_set_reads_back("oom-score-adj-values", "1  2", "1 0 2")
        for template in ("{port}", "a}b", "{{}}", "{title}{port}", " abc "):
            self.assert_set_reads_back("proc-title-template", template, template)
        self.assert_set_reads_back("cluster-announce-hostname", "A-b.c9", "A-b.c9")
        self.assert_set_reads_back("notify-keyspace-events", "KEA", "AKE")
        self.assert_set_reads_back("notify-keyspace-events", "Ex", "xE")
        self.assert_set_reads_back("save", "900 1 300 10", "900 1 300 10")
        self.assert_set_reads_back(
            "client-output-buffer-limit", "pubsub 64mb 16mb 90",
            "normal 0 0 0 slave 268435456 67108864 60 pubsub 67108864 16777216 90")


# ---------------------------------------------------------------------------------------------------------
# Aliases
# ---------------------------------------------------------------------------------------------------------


class AliasesTest(ServerTestCase):
    def test_alias_and_name_share_one_value(self):
        for alias, name in sorted(ALIASES.items()):
            kind = kind_of(name)
            current = config_get(self.raw, name).decode()
            self.assertEqual(config_get(self.raw, alias).decode(), current, alias)
            if kind == "immutable":
                self.assertReply(set_failed(alias, IMMUTABLE), "CONFIG", "SET", alias, current)
                continue
            other = another_value(kind.split()[0], current)
            try:
                self.assertReply("OK", "CONFIG", "SET", alias, other)
                self.assertEqual(config_get(self.raw, name).decode(), other, alias)
            finally:
                self.assertReply("OK", "CONFIG", "SET", name, current)
            self.assertEqual(config_get(self.raw, alias).decode(), current, alias)

    def test_patterns_list_both_names(self):
        def names(pattern):
            return set(all_params_matching(self.raw, pattern))

        self.assertEqual(names("*ziplist*"), {"hash-max-ziplist-entries", "hash-max-ziplist-value",
                                              "zset-max-ziplist-entries", "zset-max-ziplist-value",
                                              "list-max-ziplist-size"})
        self.assertEqual(names("slave*"), {"slaveof", "slave-read-only", "slave-serve-stale-data",
                                           "slave-ignore-maxmemory", "slave-lazy-flush",
                                           "slave-priority", "slave-announce-ip",
                                           "slave-announce-port"})
        self.assertEqual(names("*read-only"), {"replica-read-only", "slave-read-only"})
        self.assertEqual(names("lua-time-limit"), {"lua-time-limit"})

    def test_two_names_in_one_set_the_later_wins(self):
        try:
            self.assertReply("OK", "CONFIG", "SET", "slave-read-only", "no", "replica-read-only", "yes")
            self.assertEqual(config_get(self.raw, "slave-read-only"), b"yes")
            self.assertReply("OK", "CONFIG", "SET", "lua-time-limit", "100", "busy-reply-threshold",
                             "200")
            self.assertEqual(config_get(self.raw, "lua-time-limit"), b"200")
            self.assertReply(set_failed("slave-read-only", NOT_BOOL), "CONFIG", "SET",
                             "replica-read-only", "no", "slave-read-only", "maybe")
            self.assertEqual(config_get(self.raw, "replica-read-only"), b"yes")
        finally:
            self.assertReply("OK", "CONFIG", "SET", "replica-read-only", "yes",
                             "busy-reply-threshold", "5000")


def all_params_matching(client, pattern):
    reply = client.call("CONFIG", "GET", pattern)
    return [n.decode() for n in reply[0::2]]


# ---------------------------------------------------------------------------------------------------------
# CONFIG SET: errors and all or nothing
# ---------------------------------------------------------------------------------------------------------


class SetTest(ServerTestCase):
    def test_error_texts(self):
        self.assertReply(unknown("foo"), "CONFIG", "SET", "foo", "1")
        self.assertReply(set_failed("daemonize", IMMUTABLE), "CONFIG", "SET", "daemonize", "no")
        self.assertReply(set_failed("rdbchecksum", IMMUTABLE), "CONFIG", "SET", "rdbchecksum", "yes")
        self.assertReply(set_failed("replicaof", IMMUTABLE), "CONFIG", "SET", "replicaof",
                         "127.0.0.1 6380")
        self.assertReply(set_failed("appendonly", NOT_BOOL), "CONFIG", "SET", "appendonly", "maybe")
        self.assertReply(set_failed("maxclients", between(1, 4294967295)), "CONFIG", "SET",
                         "maxclients", "0")
        self.assertReply(set_failed("timeout", NOT_INT), "CONFIG", "SET", "timeout", "x")
        self.assertReply(set_failed("appendfsync", "argument(s) must be one of the following: "
                                                   "everysec, always, no"),
                         "CONFIG", "SET", "appendfsync", "sometimes")

    def test_every_name_before_any_value(self):
        self.assertReply(unknown("foo"), "CONFIG", "SET", "timeout", "abc", "foo", "1")
        self.assertReply(set_failed("daemonize", IMMUTABLE), "CONFIG", "SET", "timeout", "abc",
                         "daemonize", "no")
        self.assertReply(set_failed("TIMEOUT", "duplicate parameter"), "CONFIG", "SET", "timeout",
                         "5", "TIMEOUT", "6")
        self.assertEqual(config_get(self.raw, "timeout"), b"0")

    def test_all_or_nothing(self):
        before = all_params(self.raw)
        self.assertReply(set_failed("slave-read-only", NOT_BOOL), "CONFIG", "SET", "timeout", "5",
                         "maxmemory", "1mb", "hz", "20", "slave-priority", "7", "slave-read-only",
                         "maybe")
        self.assertReply(set_failed("tls-port", between(0, 65535)), "CONFIG", "SET",
                         "maxmemory-clients", "10%", "shutdown-on-sigint", "now", "tls-port", "-1")
        self.assertEqual(all_params(self.raw), before)

    def test_ignored_names_are_unknown_here(self):
        for name in IGNORED:
            self.assertReply(unknown(name), "CONFIG", "SET", name, "1")
            self.assertReply([], "CONFIG", "GET", name)


# ---------------------------------------------------------------------------------------------------------
# The config file and flags
# ---------------------------------------------------------------------------------------------------------


def file_word(value):
    return '"%s"' % value.replace("\\", "\\\\").replace('"', '\\"')


class StartupTest(unittest.TestCase):
    def start(self, server):
        server.start()
        self.addCleanup(server.stop)
        client = RawClient(server.port)
        self.addCleanup(client.close)
        return client

    def test_every_name_in_a_config_file(self):
        conf_dir = os.path.realpath(self.make_dir())
        lines = ["port @PORT@", "dir " + file_word(conf_dir), "bind 127.0.0.1",
                 "replicaof no one", "slaveof no one"]
        for name in sorted(set(PARAMS) | set(ALIASES) | set(HIDDEN)):
            if name in ("port", "dir", "bind", "replicaof", "slaveof"):
                continue
            value = HIDDEN.get(name) or default_of(ALIASES.get(name, name))
            if name in MULTI_WORD and value:
                lines.append("%s %s" % (name, value))
            else:
                lines.append("%s %s" % (name, file_word(value)))
        server = FileServer(os.path.join(conf_dir, "all.conf"), "\n".join(lines) + "\n")
        client = self.start(server)
        got = all_params(client)
        got["bind"] = default_of("bind")  # given in the file
        self.assertEqual(mismatches(got, conf_dir, server.port), [])
        for name, value in HIDDEN.items():
            self.assertEqual(config_get(client, name), value.encode())

    def test_every_alias_as_a_flag(self):
        values = {}
        for alias, name in sorted(ALIASES.items()):
            if name != "replicaof":  # a replica of nothing would answer -MASTERDOWN
                values[alias] = another_value(PARAMS[name][1].split()[0], default_of(name))
        flags = ["--slaveof", "no", "one"]
        for alias, value in values.items():
            flags += ["--" + alias, value]
        client = self.start(Server(flags))
        for alias, value in values.items():
            self.assertEqual(config_get(client, ALIASES[alias]), value.encode(), alias)
        self.assertEqual(config_get(client, "replicaof"), b"")

    def test_ignored_names_load(self):
        conf_dir = self.make_dir()
        server = FileServer(os.path.join(conf_dir, "old.conf"),
                            "port @PORT@\nbind 127.0.0.1\nsave \"\"\ndir %s\n"
                            "list-max-ziplist-entries 512\nlist-max-ziplist-value 64\n"
                            % file_word(conf_dir))
        client = self.start(server)
        self.assertEqual(client.call("CONFIG", "GET", "list-max-ziplist-e*", "list-max-ziplist-v*"), [])
        flagged = self.start(Server(["--lua-replicate-commands", "yes"]))
        self.assertEqual(flagged.call("CONFIG", "GET", "lua-replicate-commands"), [])

    def make_dir(self):
        path = tempfile.mkdtemp(prefix="ordis-compat-names-")
        self.addCleanup(shutil.rmtree, path, True)
        return path


if __name__ == "__main__":
    unittest.main()
