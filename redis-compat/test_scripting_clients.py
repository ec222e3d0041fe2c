"""Lua scripting with real clients and whole servers: atomicity under concurrent clients, redis-py's
Script and Lock, redis-cli --eval, ACL, maxmemory, busy scripts with SCRIPT KILL, and the
append-only log (a script's effects, not the EVAL). Replies are Redis 7.0.15's; the helpers and
the single-connection tests are in test_scripting.py.
"""

import os
import signal
import subprocess
import tempfile
import threading
import time
import unittest

import redis
from redis.exceptions import LockNotOwnedError, NoScriptError, ResponseError

from harness import REDIS_CLI, Err, RawClient, Server, encode_command, run_threads, wait_until
from persist_util import dump_all
from test_scripting import (NOT_INTEGER, OOM, ScriptTestCase, call_once, ordis_bug, script_err,
                            sha1)

class AtomicityTest(ScriptTestCase):
    def test_incr_loop_against_concurrent_incrs(self):
        loop = ("local first = redis.call('incr', KEYS[1]) for i = 2, 1000 do "
                "local v = redis.call('incr', KEYS[1]) if v ~= first + i - 1 then "
                "return {first, i, v} end end return 'ok'")
        runs, writers, per_writer = 10, 8, 2000

        def work(i):
            c = RawClient(self.port)
            try:
                if i == writers:
                    for _ in range(runs):
                        self.assertEqual(c.call("EVAL", loop, "1", "ctr"), b"ok")
                    return
                for _ in range(per_writer // 250):
                    replies = []
                    c.send(encode_command("INCR", "ctr") * 250)
                    for _ in range(250):
                        replies.append(c.read_reply())
                    self.assertTrue(all(isinstance(v, int) for v in replies), replies[:3])
            finally:
                c.close()

        run_threads(work, writers + 1)
        self.assertReply(str(runs * 1000 + writers * per_writer).encode(), "GET", "ctr")

    def test_script_reads_see_no_interleaved_writes(self):
        check = ("local a = redis.call('get', KEYS[1]) for i = 1, 300 do "
                 "if redis.call('get', KEYS[1]) ~= a then return 'changed' end end "
                 "local b = redis.call('get', KEYS[2]) if a ~= b then "
                 "return 'torn: ' .. tostring(a) .. ' ' .. tostring(b) end return 'ok'")
        self.assertReply("OK", "MSET", "a", "init", "b", "init")
        stop = threading.Event()
        checks = []

        def work(i):
            c = RawClient(self.port)
            try:
                if i == 0:
                    try:
                        for _ in range(150):
                            checks.append(c.call("EVAL", check, "2", "a", "b"))
                    finally:
                        stop.set()
                    return
                n = 0
                while not stop.is_set():
                    batch = []
                    for _ in range(50):
                        v = "w%d-%d" % (i, n)
                        n += 1
                        batch += [("MULTI",), ("SET", "a", v), ("SET", "b", v), ("EXEC",)]
                    replies = c.pipeline(batch)
                    self.assertEqual(replies[-1], ["OK", "OK"])
            finally:
                c.close()

        run_threads(work, 5)
        self.assertEqual(checks, [b"ok"] * 150)

    def test_script_writes_are_seen_whole(self):
        write = ("redis.call('set', KEYS[1], ARGV[1]) "
                 "for i = 1, 300 do redis.call('incr', KEYS[3]) end "
                 "redis.call('set', KEYS[2], ARGV[1]) return 'ok'")
        self.assertReply("OK", "MSET", "a", "init", "b", "init")
        stop = threading.Event()
        torn = []

        def work(i):
            c = RawClient(self.port)
            try:
                if i < 2:
                    try:
                        for n in range(100):
                            self.assertEqual(c.call("EVAL", write, "3", "a", "b", "n%d" % i,
                                                    "s%d-%d" % (i, n)), b"ok")
                    finally:
                        stop.set()
                    return
                while not stop.is_set():
                    for a, b in c.pipeline([("MGET", "a", "b")] * 50):
                        if a != b:
                            torn.append((a, b))
            finally:
                c.close()

        run_threads(work, 6)
        self.assertEqual(torn, [])
        self.assertReply([b"30000", b"30000"], "MGET", "n0", "n1")


# -------------------------------------------------------------------------------------------------
# Clients: redis-py and redis-cli
# -------------------------------------------------------------------------------------------------


class RedisPyTest(ScriptTestCase):
    def test_register_script(self):
        s = self.r.register_script("return {KEYS[1], ARGV[1], redis.call('incr', KEYS[1])}")
        self.assertEqual(s(keys=["n"], args=["a"]), [b"n", b"a", 1])
        self.assertEqual(self.r.script_exists(s.sha), [True])
        self.assertTrue(self.r.script_flush())
        self.assertEqual(self.r.script_exists(s.sha), [False])
        # EVALSHA gets NOSCRIPT, and redis-py loads the script and runs it again.
        self.assertEqual(s(keys=["n"], args=["b"]), [b"n", b"b", 2])
        self.assertEqual(self.r.script_exists(s.sha), [True])
        self.r.script_flush()
        p = self.r.pipeline()
        s(keys=["n"], args=["c"], client=p)
        p.incr("n")
        s(keys=["n"], args=["d"], client=p)
        self.assertEqual(p.execute(), [[b"n", b"c", 3], 4, [b"n", b"d", 5]])

    def test_script_load_eval_evalsha(self):
        body = "return redis.call('set', KEYS[1], ARGV[1])"
        sha = self.r.script_load(body)
        self.assertEqual(sha, sha1(body))
        self.assertEqual(self.r.script_exists(sha, "0" * 40), [True, False])
        self.assertEqual(self.r.evalsha(sha, 1, "k", "v"), b"OK")
        self.assertEqual(self.r.eval("return redis.call('get', KEYS[1])", 1, "k"), b"v")
        self.assertEqual(self.r.eval("return {1, 2.5, 'x'}", 0), [1, 2, b"x"])
        with self.assertRaises(NoScriptError):
            self.r.evalsha("0" * 40, 0)
        with self.assertRaises(ResponseError) as e:
            self.r.eval("return redis.error_reply('MY failure')", 0)
        self.assertEqual(str(e.exception), "MY failure")
        with self.assertRaises(ResponseError) as e:
            self.r.eval("return redis.call('incr', KEYS[1])", 1, "k")
        self.assertEqual(str(e.exception), "value is not an integer or out of range script: "
                         "%s, on @user_script:1." % sha1("return redis.call('incr', KEYS[1])"))

    def test_lock(self):
        other = self.redis_client()
        a = self.r.lock("res", timeout=10, sleep=0.01)
        self.assertTrue(a.acquire(blocking=False))
        self.assertTrue(a.locked())
        self.assertTrue(a.owned())
        # extend adds to the TTL, or replaces it; reacquire puts the timeout back.
        self.assertTrue(a.extend(10))
        self.assertGreater(self.r.pttl("res"), 10_000)
        self.assertTrue(a.extend(5, replace_ttl=True))
        self.assertLessEqual(self.r.pttl("res"), 5_000)
        self.assertTrue(a.reacquire())
        self.assertGreater(self.r.pttl("res"), 5_000)
        # Not thread-local: b acquires in a thread below and releases here.
        b = other.lock("res", timeout=10, sleep=0.01, thread_local=False)
        self.assertFalse(b.acquire(blocking=False))
        self.assertFalse(b.acquire(blocking_timeout=0.1))
        self.assertFalse(b.owned())
        self.assertEqual(self.r.get("res"), a.local.token)
        # b blocks until a releases.
        got = []
        waiter = threading.Thread(target=lambda: got.append(b.acquire(blocking_timeout=20)))
        waiter.start()
        a.release()
        waiter.join(30)
        self.assertEqual(got, [True])
        self.assertEqual(self.r.get("res"), b.local.token)
        b.release()
        self.assertFalse(self.r.exists("res"))

    def test_lock_expires_and_the_waiter_takes_it(self):
        other = self.redis_client()
        a = self.r.lock("res2", timeout=0.3, sleep=0.01)
        self.assertTrue(a.acquire(blocking=False))
        b = other.lock("res2", timeout=10, sleep=0.01)
        self.assertTrue(b.acquire(blocking_timeout=20))  # after a's 300 ms
        with self.assertRaises(LockNotOwnedError):
            a.extend(1)
        with self.assertRaises(LockNotOwnedError):
            a.reacquire()
        with self.assertRaises(LockNotOwnedError):
            a.release()
        with other.lock("res3", timeout=5, blocking_timeout=1) as held:
            self.assertTrue(held.owned())
        self.assertFalse(self.r.exists("res3"))
        b.release()


class RedisCliEvalTest(ScriptTestCase):
    def cli_eval(self, body, *args):
        with tempfile.NamedTemporaryFile("w", suffix=".lua") as f:
            f.write(body)
            f.flush()
            r = subprocess.run([REDIS_CLI, "-p", str(self.port), "--eval", f.name] + list(args),
                               capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, b"")
        return r.stdout

    def test_eval_file(self):
        body = ("return {KEYS[1], KEYS[2], ARGV[1], ARGV[2], #KEYS, #ARGV, "
                "redis.call('set', KEYS[1], ARGV[1]).ok}\n")
        self.assertEqual(self.cli_eval(body, "key1", "key2", ",", "arg1", "arg2"),
                         b"key1\nkey2\narg1\narg2\n2\n2\nOK\n")
        self.assertReply(b"arg1", "GET", "key1")
        self.assertEqual(self.cli_eval("return {KEYS[1], ARGV[1], #KEYS, #ARGV}", "key1", ",",
                                       "arg1"), b"key1\narg1\n1\n1\n")
        incr = "return redis.call('incr', KEYS[1])"
        self.assertEqual(self.cli_eval(incr, "key1"),
                         script_err(NOT_INTEGER, incr).message.encode() + b"\n\n")
        self.assertEqual(self.cli_eval("return redis.call('incr', KEYS[1])", "n"), b"1\n")


# -------------------------------------------------------------------------------------------------
# ACL, maxmemory, busy scripts
# -------------------------------------------------------------------------------------------------


class ScriptAclTest(ScriptTestCase):
    def user(self, name, *rules):
        self.assertReply("OK", "ACL", "SETUSER", name, "on", ">pw", *rules)
        self.addCleanup(call_once, self.port, "ACL", "DELUSER", name)
        c = self.raw_client()
        self.assertEqual(c.call("AUTH", name, "pw"), "OK")
        return c

    def test_script_runs_with_the_callers_permissions(self):
        bob = self.user("bob", "~*", "+@all", "-set")
        body = "return redis.call('set', KEYS[1], 'v')"
        self.assertEqual(bob.call("EVAL", body, "1", "k"),
                         script_err("ERR The user executing the script can't run this command or "
                                    "subcommand", body))
        self.assertEqual(bob.call("EVAL", "return redis.pcall('set', KEYS[1], 'v')", "1", "k"),
                         Err("ERR The user executing the script can't run this command or "
                             "subcommand"))
        self.assertEqual(bob.call("EVAL", "return redis.call('incr', KEYS[1])", "1", "n"), 1)
        self.assertReply(None, "GET", "k")
        self.assertEqual(self.ev(body, ["k"]), "OK")  # the default user may
        dave = self.user("dave", "~*", "+@all", "-eval")
        self.assertEqual(dave.call("EVAL", "return 1", "0"),
                         Err("NOPERM this user has no permissions to run the 'eval' command"))
        self.assertEqual(dave.call("EVAL_RO", "return 1", "0"), 1)
        carol = self.user("carol", "~a*", "+@all")
        self.assertEqual(carol.call("EVAL", "return redis.call('set', KEYS[1], 'v')", "1", "akey"),
                         "OK")
        self.assertEqual(carol.call("EVAL", "return redis.call('get', KEYS[1])", "1", "bkey"),
                         Err("NOPERM this user has no permissions to access one of the keys used "
                             "as arguments"))

    def test_key_denied_inside_script(self):
        carol = self.user("carol", "~a*", "+@all")
        body = "return redis.call('set', 'bkey', 'v')"
        self.assertEqual(carol.call("EVAL", body, "0"),
                         script_err("ERR The user executing the script can't access at least one "
                                    "of the keys mentioned in the command arguments", body))

    def test_acl_check_cmd_answers_for_the_scripts_user(self):
        erin = self.user("erin", "+eval", "+get", "~a*", "&ch*")
        self.assertReply("OK", "ACL", "LOG", "RESET")

        def check(call):
            return erin.call("EVAL", "return redis.acl_check_cmd(%s)" % call, "0")

        self.assertEqual(check("'get', 'abc'"), 1)
        self.assertEqual(check("'GET', 'b'"), None)  # false: a key erin may not read
        self.assertEqual(check("'get'"), 1)  # arity is not checked
        self.assertEqual(check("'set', 'a', 'v'"), None)
        self.assertEqual(check("'publish', 'ch1', 'm'"), None)
        body = "return redis.acl_check_cmd('config', 'nosuch')"
        self.assertEqual(erin.call("EVAL", body, "0"),
                         script_err("ERR Invalid command passed to redis.acl_check_cmd()", body))
        self.assertEqual(erin.call("EVAL", "return {pcall(redis.acl_check_cmd, 'nosuch')}", "0"),
                         [None, b"ERR Invalid command passed to redis.acl_check_cmd()"])
        self.assertReply([], "ACL", "LOG")  # asking is not a denial
        self.assertReply(1, "EVAL", "return redis.acl_check_cmd('config', 'get')", "0")

    @ordis_bug
    def test_acl_log_names_the_calling_client(self):
        self.assertReply("OK", "ACL", "LOG", "RESET")
        bob = self.user("bob", "~*", "+@all", "-set")
        bob.call("CLIENT", "SETNAME", "bobconn")
        bob.call("EVAL", "return redis.call('set', KEYS[1], 'v')", "1", "k")
        entries = self.raw.call("ACL", "LOG")
        self.assertEqual(len(entries), 1, entries)
        entry = dict(zip(entries[0][::2], entries[0][1::2]))
        self.assertEqual(
            (entry[b"reason"], entry[b"context"], entry[b"object"], entry[b"username"]),
            (b"command", b"lua", b"set", b"bob"))
        fields = dict(f.split(b"=", 1) for f in entry[b"client-info"].split(b" "))
        self.assertEqual((fields[b"name"], fields[b"user"], fields[b"cmd"]),
                         (b"bobconn", b"bob", b"eval"))


class ScriptOomTest(ScriptTestCase):
    server_args = ("--maxmemory", "1", "--maxmemory-policy", "noeviction")

    def test_oom(self):
        self.assertErr(OOM, "SET", "k", "v")
        body = "return redis.call('set', KEYS[1], 'v')"
        # No shebang: the script runs, and its writes that may grow memory are refused.
        self.assertScriptErr(OOM, body, keys=["k"])
        self.assertEval(Err(OOM), "return redis.pcall('set', KEYS[1], 'v')", ["k"])
        self.assertScriptErr(OOM, "return redis.call('incr', KEYS[1])", keys=["n"])
        self.assertEval(None, "return redis.call('get', KEYS[1])", ["k"])
        self.assertEval(0, "redis.call('del', KEYS[1]) return redis.call('exists', KEYS[1])", ["k"])
        # allow-oom: it may write.
        self.assertEval("OK", "#!lua flags=allow-oom\n" + body, ["k"])
        self.assertEval(1, "#!lua flags=allow-oom\nreturn redis.call('incr', KEYS[1])", ["n"])
        self.assertReply(b"v", "GET", "k")
        self.assertEval(1, "return redis.call('expire', KEYS[1], '100')", ["n"])  # not denyoom
        # A script declaring it may write (a shebang without no-writes) does not even start.
        self.assertErr(OOM, "EVAL", "#!lua\nreturn redis.call('get', KEYS[1])", "1", "k")
        self.assertErr(OOM, "EVAL", "#!lua\nreturn 1", "0")
        sha = self.raw.call("SCRIPT", "LOAD", "#!lua\nreturn 2")
        self.assertEqual(sha, sha1("#!lua\nreturn 2").encode())
        self.assertErr(OOM, "EVALSHA", sha, "0")
        # Read-only ones do.
        self.assertEval(b"v", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", ["k"])
        self.assertReply(b"v", "EVAL_RO", "return redis.call('get', KEYS[1])", "1", "k")
        self.assertEval(1, "return 1")


# Spins for ARGV[1] ms of server time, after writing ARGV[2] to KEYS[1] if given.
SPIN = ("if ARGV[2] then redis.call('set', KEYS[1], ARGV[2]) end "
        "local function now() local t = redis.call('time') return t[1] * 1000000 + t[2] end "
        "local t0 = now() while now() - t0 < ARGV[1] * 1000 do end return 'done'")


class BusyScriptTest(ScriptTestCase):
    BUSY = Err("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
               "NOSAVE.")

    def setUp(self):
        super().setUp()
        self.assertReply("OK", "CONFIG", "SET", "busy-reply-threshold", "100")
        self.addCleanup(call_once, self.port, "CONFIG", "SET", "busy-reply-threshold", "5000")

    def test_script_kill(self):
        self.assertReply("OK", "SET", "k", "before")
        runner, other = self.raw_client(), self.raw_client()
        runner.send_command("EVAL", SPIN, "1", "k", "3000")
        try:
            # Past the threshold other clients get BUSY (before it they wait).
            self.assertTrue(wait_until(lambda: other.call("GET", "k") == self.BUSY, 2.5))
            self.assertEqual(other.call("SCRIPT", "KILL"), "OK")
        finally:
            reply = runner.read_reply()  # the script is over before the server stops
        self.assertEqual(reply, script_err("ERR Script killed by user with SCRIPT KILL...", SPIN))
        self.assertEqual(other.call("GET", "k"), b"before")
        self.assertReply([b"lua-time-limit", b"100"], "CONFIG", "GET", "lua-time-limit")  # alias

    def test_script_that_wrote_is_unkillable(self):
        unkillable = Err(
            "UNKILLABLE Sorry the script already executed write commands against the dataset. "
            "You can either wait the script termination or kill the server in a hard way using "
            "the SHUTDOWN NOSAVE command.")
        runner, other = self.raw_client(), self.raw_client()
        runner.send_command("EVAL", SPIN, "1", "k", "1500", "written")
        try:
            self.assertTrue(wait_until(lambda: other.call("PING") == self.BUSY, 1.2))
            self.assertEqual(other.call("SCRIPT", "KILL"), unkillable)
            # The writes are checked before the kind of script: FUNCTION KILL says so too.
            self.assertEqual(other.call("FUNCTION", "KILL"), unkillable)
        finally:
            reply = runner.read_reply()
        self.assertEqual(reply, b"done")
        self.assertEqual(other.call("GET", "k"), b"written")


    def test_function_busy_kill_and_stats(self):
        busy_function = Err("BUSY Redis is busy running a script. You can only call FUNCTION KILL "
                            "or SHUTDOWN NOSAVE.")
        self.assertEqual(self.raw.call("FUNCTION", "LOAD", "REPLACE", SPIN_LIBRARY), b"spinlib")
        runner, other = self.raw_client(), self.raw_client()
        runner.send_command("FCALL", "spin", "0", "3000")
        try:
            self.assertTrue(wait_until(lambda: other.call("PING") == busy_function, 2.5))
            self.assertEqual(other.call("SCRIPT", "KILL"), busy_function)
            stats = other.call("FUNCTION", "STATS")
            self.assertEqual(stats[0], b"running_script")
            running = stats[1]
            self.assertEqual(running[:4], [b"name", b"spin", b"command",
                                           [b"FCALL", b"spin", b"0", b"3000"]])
            self.assertEqual(running[4], b"duration_ms")
            self.assertGreaterEqual(running[5], 100)
            self.assertEqual(other.call("FUNCTION", "KILL"), "OK")
        finally:
            reply = runner.read_reply()
        # SCRIPT KILL's words for a function too; the line is wherever the kill found it.
        self.assertTrue(reply.message.startswith(
            "ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:"),
            reply.message)
        # During an EVAL, the function commands answer the EVAL's BUSY.
        runner.send_command("EVAL", SPIN, "0", "3000")
        try:
            self.assertTrue(wait_until(lambda: other.call("PING") == self.BUSY, 2.5))
            self.assertEqual(other.call("FUNCTION", "STATS"), self.BUSY)
            self.assertEqual(other.call("FUNCTION", "KILL"), self.BUSY)
            self.assertEqual(other.call("SCRIPT", "KILL"), "OK")
        finally:
            runner.read_reply()
        stats = other.call("FUNCTION", "STATS")
        self.assertEqual(stats[:2], [b"running_script", None])


class BusyScriptOneThreadTest(unittest.TestCase):
    """With one I/O thread the busy script's thread is everyone's: its clients, those connected
    before and those accepted while it runs, get BUSY; SCRIPT KILL stops a reader, SHUTDOWN
    without NOSAVE is refused and SHUTDOWN NOSAVE ends the server at once, as in Redis."""

    BUSY = BusyScriptTest.BUSY

    def setUp(self):
        self.srv = Server(threads=1).start()
        self.addCleanup(self.srv.stop)
        self.clients = []
        self.addCleanup(lambda: [c.close() for c in self.clients])

    def client(self):
        c = RawClient(self.srv.port)
        self.clients.append(c)
        return c

    def test_kill_and_shutdown_nosave_from_the_scripts_thread(self):
        admin, runner = self.client(), self.client()
        self.assertEqual(admin.call("CONFIG", "SET", "busy-reply-threshold", "100"), "OK")
        runner.send_command("EVAL", SPIN, "1", "k", "3000")
        # Connected after the EVAL was sent: its commands come after the script started (ordis
        # answers a command read in the script's own loop turn once the turn ends).
        fresh = self.client()
        self.assertTrue(wait_until(lambda: fresh.call("PING") == self.BUSY, 2.5))
        self.assertEqual(admin.call("GET", "k"), self.BUSY)  # connected before it
        self.assertEqual(fresh.call("SCRIPT", "KILL"), "OK")
        self.assertEqual(runner.read_reply(),
                         script_err("ERR Script killed by user with SCRIPT KILL...", SPIN))
        self.assertEqual(admin.call("PING"), "PONG")
        # A script that wrote: only SHUTDOWN NOSAVE stops it, and the server with it.
        runner.send_command("EVAL", SPIN, "1", "k", "3000", "written")
        probe = self.client()
        self.assertTrue(wait_until(lambda: probe.call("PING") == self.BUSY, 2.5))
        self.assertEqual(admin.call("SHUTDOWN"), self.BUSY)
        admin.send_command("SHUTDOWN", "NOSAVE")
        admin.wait_closed()
        runner.wait_closed()
        self.assertEqual(self.srv.proc.wait(timeout=10), 0)


SPIN_LIBRARY = ("#!lua name=spinlib\n"
                "local function now() local t = redis.call('time') return t[1] * 1000000 + t[2] end\n"
                "redis.register_function('spin', function(keys, args) "
                "local t0 = now() while now() - t0 < args[1] * 1000 do end return 'done' end)")


# -------------------------------------------------------------------------------------------------
# The append-only log
# -------------------------------------------------------------------------------------------------


class ScriptAofTest(unittest.TestCase):
    """Scripts' writes through a restart from the log, on both servers: the log holds the commands
    the script ran (TIME and SPOP results included), not the EVAL."""

    def setUp(self):
        self.srv = Server(["--appendonly", "yes", "--appendfsync", "always"], keep_dir=True).start()
        self.addCleanup(self.srv.remove_dir)

    def client(self, db=0):
        c = redis.Redis(host="127.0.0.1", port=self.srv.port, db=db, socket_timeout=20)
        self.addCleanup(c.close)
        return c

    def restart(self):
        status, log = self.srv.stop()
        self.assertIn(status, (0, -signal.SIGTERM), log)
        self.srv.start()

    def test_effects_replayed(self):
        marker = "-- effects-not-script %d" % os.getpid()
        body = marker + """
local t = redis.call('time')
redis.call('set', KEYS[1], t[1] .. '.' .. t[2])
local popped = redis.call('spop', KEYS[2], 3)
redis.call('rpush', KEYS[3], unpack(popped))
redis.call('hset', KEYS[4], 'pick', redis.call('srandmember', KEYS[2]), 'us', t[2])
redis.call('incrbyfloat', KEYS[5], '0.1')
redis.call('set', KEYS[6], t[2], 'EX', 1000)
redis.call('zadd', KEYS[7], t[2], 'm')
redis.call('select', 3)
redis.call('set', 'in-db3', t[2])
return popped
"""
        r = self.client()
        r.sadd("s", *range(200))
        keys = ["time", "s", "popped", "h", "f", "ttl", "z"]
        for _ in range(5):
            self.assertEqual(len(r.eval(body, len(keys), *keys)), 3)
        r.set("after", "in-db0")  # the caller's db is still 0 after the script's SELECT
        with self.assertRaises(ResponseError):
            r.eval("redis.call('set', KEYS[1], 'kept') redis.call('incr', KEYS[2])", 2, "partial",
                   "after")
        r.eval("redis.call('del', KEYS[1]) redis.call('rpush', KEYS[2], 'x')", 2, "f", "newlist")
        before = dump_all(self.srv.port)
        self.assertEqual(self.client(3).get("in-db3"), self.client().hget("h", "us"))
        self.restart()
        self.assertEqual(dump_all(self.srv.port), before)
        r = self.client()
        self.assertEqual(r.get("after"), b"in-db0")
        self.assertEqual(r.get("partial"), b"kept")
        self.assertEqual(r.scard("s"), 185)
        self.assertGreater(r.ttl("ttl"), 900)
        self.assertEqual(r.script_exists(sha1(body)), [False])  # the cache is not persisted
        for name in os.listdir(os.path.join(self.srv.dir, "appendonlydir")):
            with open(os.path.join(self.srv.dir, "appendonlydir", name), "rb") as f:
                self.assertNotIn(marker.encode(), f.read(), name)

    def test_set_repl_keeps_writes_out_of_the_log(self):
        # REPL_NONE and REPL_REPLICA leave the following writes out of the log, REPL_AOF and
        # REPL_ALL put them back; each run starts logged. The log replays what it holds: a TTL
        # set unlogged is not carried by the next logged write.
        r = self.client()
        r.set("ttl", "old")
        r.eval("redis.set_repl(redis.REPL_NONE) redis.call('set', 'none', '1') "
               "redis.call('set', 'ttl', 'new', 'EX', 1000) "
               "redis.set_repl(redis.REPL_AOF) redis.call('set', 'aof', '1') "
               "redis.set_repl(redis.REPL_REPLICA) redis.call('set', 'replica', '1') "
               "redis.set_repl(redis.REPL_ALL) redis.call('set', 'all', '1')", 0)
        r.eval("redis.call('set', 'next', '1')", 0)
        r.function_load("#!lua name=repl\nredis.register_function('unlogged', function() "
                        "redis.set_repl(redis.REPL_NONE) "
                        "return redis.call('set', 'fnone', '1') end)")
        self.assertEqual(r.fcall("unlogged", 0), b"OK")
        names = ("none", "aof", "replica", "all", "next", "fnone")
        self.assertEqual(r.exists(*names), 6)
        self.restart()
        r = self.client()
        self.assertEqual([r.exists(k) for k in names], [0, 1, 0, 1, 1, 0])
        self.assertEqual(r.get("ttl"), b"old")
        self.assertEqual(r.ttl("ttl"), -1)

    def test_sigterm_during_a_script(self):
        # ordis aborts (std::out_of_range in the script's redis.call, which gets no reply once the
        # shutdown began) when the script runs on one of its two I/O threads: so each slot once.
        self.srv.stop()
        for slot in range(4):
            self.srv.start()
            clients = [RawClient(self.srv.port) for _ in range(4)]
            for c in clients:
                self.addCleanup(c.close)
            clients[slot].send_command("EVAL", SPIN, "1", "k", "1000", "written-%d" % slot)
            time.sleep(0.3)  # puts the signal inside the one-second script, not a wait to pass
            status, log = self.srv.stop()
            self.assertIn(status, (0, -signal.SIGTERM), "slot %d: %s" % (slot, log))
            self.srv.start()
            self.assertEqual(self.client().get("k"), b"written-%d" % slot)  # the write was logged
            self.srv.stop()


if __name__ == "__main__":
    unittest.main()
