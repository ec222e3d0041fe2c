"""Lua scripting on one connection: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT LOAD|EXISTS|FLUSH.

Replies are Redis 7.0.15's as Debian ships it (with its security fixes: no getfenv/setfenv, a
read-only string metatable, CR/LF stripped from error and status replies). Covered: KEYS/ARGV and
numkeys errors, the script cache, compile and runtime error texts ("... script: <sha>, on
@user_script:N."), redis.call against redis.pcall, the conversions both ways in RESP2 and RESP3, the
sandbox, the cjson, cmsgpack, bit and struct libraries, what scripts may not call, read-only scripts
and shebang flags, MULTI/EXEC. Concurrency, real clients, ACL, maxmemory, busy scripts and the
append-only log are in test_scripting_clients.py.

cmsgpack tests compare packed bytes with Redis's as well as unpacked values. Tests marked
@ordis_bug are known server discrepancies: expected failures against ordis only.
"""

import hashlib
import json
import os
import unittest

import redis

from harness import IS_ORDIS, Err, Map, RawClient, Server, ServerTestCase, info, wait_until


def ordis_bug(test):
    """A test of Redis behaviour ordis does not have yet: an expected failure against ordis only."""
    return unittest.expectedFailure(test) if IS_ORDIS else test


def sha1(body):
    return hashlib.sha1(body.encode() if isinstance(body, str) else body).hexdigest()


def script_err(message, body, line=1):
    """The error a script raising `message` on `line` ends with."""
    return Err("%s script: %s, on @user_script:%d." % (message, sha1(body), line))


def call_once(port, *args):
    """One command on a connection of its own (cleanups run after a test's clients are closed)."""
    with RawClient(port) as c:
        return c.call(*args)


def global_err(name, body):
    return script_err("ERR user_script:1: Script attempted to access nonexistent global variable "
                      "'%s'" % name, body)


READONLY_TABLE = "ERR user_script:1: Attempt to modify a readonly table"
NOT_ALLOWED = "ERR This Redis command is not allowed from script"
WRITE_IN_RO = "ERR Write commands are not allowed from read-only scripts."
OOM = "OOM command not allowed when used memory > 'maxmemory'."
NOSCRIPT = "NOSCRIPT No matching script. Please use EVAL."
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
NOT_INTEGER = "ERR value is not an integer or out of range"
COMPILE = "ERR Error compiling script (new function): "


class ScriptTestCase(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.assertEqual(self.raw.call("SCRIPT", "FLUSH"), "OK")  # each test starts uncached

    def ev(self, body, keys=(), args=(), client=None):
        """EVAL body with keys and args on the raw client; returns the reply."""
        return (client or self.raw).call("EVAL", body, len(keys), *keys, *args)

    def assertEval(self, expected, body, keys=(), args=(), client=None):
        self.assertEqual(self.ev(body, keys, args, client), expected, body)

    def assertScriptErr(self, message, body, line=1, keys=(), args=()):
        self.assertEval(script_err(message, body, line), body, keys, args)


# -------------------------------------------------------------------------------------------------
# EVAL, EVALSHA and the script cache
# -------------------------------------------------------------------------------------------------


class EvalTest(ScriptTestCase):
    def test_keys_and_argv(self):
        self.assertEval([b"k1", b"k2", b"a1", 2, 1],
                        "return {KEYS[1], KEYS[2], ARGV[1], #KEYS, #ARGV}", ["k1", "k2"], ["a1"])
        self.assertEval(100, "return #ARGV", args=["a"] * 100)
        self.assertEval(b"\x00\xff\r\n", "return ARGV[1]", args=[b"\x00\xff\r\n"])
        self.assertEval([0, 0], "return {#KEYS, #ARGV}")
        self.assertEval(b"v", "redis.call('set', KEYS[1], ARGV[1]) "
                        "return redis.call('get', KEYS[1])", ["k"], ["v"])
        self.assertReply(b"v", "GET", "k")
        # KEYS is the script's own table: a change does not reach the next run.
        self.assertEval(b"z", "KEYS[1] = 'z' return KEYS[1]", ["a"])
        self.assertEval(b"a", "return KEYS[1]", ["a"])

    def test_numkeys_errors(self):
        for cmd in ("EVAL", "EVAL_RO"):
            self.assertErr("ERR Number of keys can't be negative", cmd, "return 1", "-1")
            self.assertErr("ERR Number of keys can't be greater than number of args", cmd,
                           "return 1", "2", "a")
            self.assertErr(NOT_INTEGER, cmd, "return 1", "x")
            self.assertErr(NOT_INTEGER, cmd, "return 1", "99999999999999999999")
            self.assertErr("ERR wrong number of arguments for '%s' command" % cmd.lower(), cmd,
                           "return 1")
        # numkeys is checked before the script is looked up.
        self.assertErr("ERR Number of keys can't be greater than number of args", "EVALSHA",
                       "f" * 40, "5")
        self.assertErr(NOT_INTEGER, "EVALSHA", "f" * 40, "x")

    def test_evalsha_and_script_cache(self):
        body = "return 'hello'"
        sha = sha1(body)
        self.assertReply([0, 0], "SCRIPT", "EXISTS", sha, "nope")
        self.assertErr(NOSCRIPT, "EVALSHA", sha, "0")
        self.assertErr(NOSCRIPT, "EVALSHA_RO", sha, "0")
        self.assertErr(NOSCRIPT, "EVALSHA", "fff", "0")
        self.assertReply(b"hello", "EVAL", body, "0")  # EVAL caches the body
        self.assertReply([1, 1, 0, 0], "SCRIPT", "EXISTS", sha, sha.upper(), "nope", sha[:39])
        self.assertReply(b"hello", "EVALSHA", sha, "0")
        self.assertReply(b"hello", "EVALSHA", sha.upper(), "0")
        self.assertReply(b"hello", "EVALSHA_RO", sha, "0")
        body2 = "return {KEYS[1], ARGV[1]}"
        self.assertReply(sha1(body2).encode(), "SCRIPT", "LOAD", body2)
        self.assertReply(sha1(body2).encode(), "SCRIPT", "LOAD", body2)  # again: same name
        self.assertReply([b"k", b"a"], "EVALSHA", sha1(body2), "1", "k", "a")
        # Other clients share the cache.
        self.assertEqual(self.raw_client().call("EVALSHA", sha, "0"), b"hello")

    def test_script_flush(self):
        body = "return 1"
        self.assertReply(sha1(body).encode(), "SCRIPT", "LOAD", body)
        self.assertReply("OK", "SCRIPT", "FLUSH")
        self.assertReply([0], "SCRIPT", "EXISTS", sha1(body))
        self.assertErr(NOSCRIPT, "EVALSHA", sha1(body), "0")
        for mode in ("ASYNC", "sync"):
            self.assertReply(sha1(body).encode(), "SCRIPT", "LOAD", body)
            self.assertReply("OK", "SCRIPT", "FLUSH", mode)
            self.assertErr(NOSCRIPT, "EVALSHA", sha1(body), "0")
        for bad in (("BOGUS",), ("ASYNC", "SYNC")):
            self.assertErr("ERR SCRIPT FLUSH only support SYNC|ASYNC option", "SCRIPT", "FLUSH",
                           *bad)

    def test_script_subcommand_errors(self):
        self.assertErr("ERR wrong number of arguments for 'script|load' command", "SCRIPT", "LOAD")
        self.assertErr("ERR wrong number of arguments for 'script|load' command", "SCRIPT", "LOAD",
                       "a", "b")
        self.assertErr("ERR wrong number of arguments for 'script|exists' command", "SCRIPT",
                       "EXISTS")
        self.assertErr("ERR wrong number of arguments for 'script|kill' command", "SCRIPT", "KILL",
                       "x")
        self.assertErr("ERR unknown subcommand 'BOGUS'. Try SCRIPT HELP.", "SCRIPT", "BOGUS")
        self.assertErr("ERR wrong number of arguments for 'script' command", "SCRIPT")
        self.assertErr("NOTBUSY No scripts in execution right now.", "SCRIPT", "KILL")

    def test_compile_errors(self):
        self.assertErr(COMPILE + "user_script:1: unexpected symbol near '<eof>'", "EVAL",
                       "return 1 +", "0")
        self.assertErr(COMPILE + "user_script:1: unexpected symbol near '+'", "SCRIPT", "LOAD",
                       "return +")
        self.assertErr(COMPILE + "user_script:3: 'end' expected (to close 'if' at line 1) near "
                       "'<eof>'", "EVAL", "if true then\nreturn 1\n",
                       "0")
        self.assertReply([0], "SCRIPT", "EXISTS", sha1("return 1 +"))  # not cached

    def test_runtime_error_texts(self):
        self.assertScriptErr("ERR user_script:1: boom", "error('boom')")
        self.assertScriptErr("ERR user_script:3: attempt to index local 'x' (a nil value)",
                             "\nlocal x = nil\nreturn x.y", line=3)
        self.assertScriptErr("ERR x", "error('x', 0)")
        self.assertScriptErr("ERR user_script:1: 123", "error(123)")
        self.assertScriptErr("ERR user_script:1: attempt to get length of field '?' (a nil value)",
                             "return #ARGV[1]")
        self.assertScriptErr("ERR user_script:1: attempt to perform arithmetic on a string value",
                             "return 'a' + 1")
        # The cached script names itself the same way when run by EVALSHA.
        body = "\n\nerror('late')"
        self.assertReply(sha1(body).encode(), "SCRIPT", "LOAD", body)
        self.assertErr("ERR user_script:3: late script: %s, on @user_script:3." % sha1(body),
                       "EVALSHA", sha1(body), "0")

    def test_eval_inside_multi(self):
        body = "return 'hello'"
        incr = "return redis.call('incr', KEYS[1])"
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "EVAL", incr, "1", "n")
        self.assertReply("QUEUED", "EVALSHA", sha1(body), "0")
        self.assertReply("QUEUED", "EVAL", incr, "1", "n")
        self.assertReply("QUEUED", "EVAL", "return 1 +", "0")
        self.assertReply("QUEUED", "EVAL", "return redis.call('get', KEYS[1])", "1", "n")
        self.assertReply("QUEUED", "SCRIPT", "LOAD", body)
        self.assertReply("QUEUED", "EVAL", "return 1", "x")
        self.assertReply([1, Err(NOSCRIPT), 2,
                          Err(COMPILE + "user_script:1: unexpected symbol near '<eof>'"),
                          b"2", sha1(body).encode(), Err(NOT_INTEGER)], "EXEC")
        self.assertReply(b"hello", "EVALSHA", sha1(body), "0")
        # Arity errors abort the transaction as for any command.
        self.assertReply("OK", "MULTI")
        self.assertErr("ERR wrong number of arguments for 'eval' command", "EVAL", "return 1")
        self.assertErr("EXECABORT Transaction discarded because of previous errors.", "EXEC")

    def test_script_flush_then_evalsha_inside_multi(self):
        body = "return redis.call('incr', KEYS[1])"
        self.assertReply(sha1(body).encode(), "SCRIPT", "LOAD", body)
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "EVALSHA", sha1(body), "1", "n")
        self.assertReply("QUEUED", "SCRIPT", "FLUSH")
        self.assertReply("QUEUED", "EVALSHA", sha1(body), "1", "n")
        self.assertReply([1, "OK", Err(NOSCRIPT)], "EXEC")
        self.assertReply(b"1", "GET", "n")

    def test_select_inside_script_stays_in_the_script(self):
        self.assertReply("OK", "SELECT", "2")
        self.assertEval(b"db5", "redis.call('set', 'k', 'db2') redis.call('select', 5) "
                        "redis.call('set', 'k', 'db5') return redis.call('get', 'k')")
        self.assertReply(b"db2", "GET", "k")  # the caller is still on db 2
        self.assertEval(b"db2", "return redis.call('get', 'k')")  # and so is the next script
        self.assertReply("OK", "SELECT", "5")
        self.assertReply(b"db5", "GET", "k")
        self.assertReply("OK", "MULTI")
        self.assertReply("QUEUED", "EVAL", "redis.call('select', 7) return redis.call('set', 'k', "
                         "'db7')", "0")
        self.assertReply("QUEUED", "GET", "k")
        self.assertReply(["OK", b"db5"], "EXEC")
        self.assertReply("OK", "SELECT", "7")
        self.assertReply(b"db7", "GET", "k")
        self.assertScriptErr("ERR DB index is out of range", "return redis.call('select', '99')")
        self.assertScriptErr(NOT_INTEGER, "return redis.call('select', 'x')")

    def test_time_stands_still_for_the_scripts_commands(self):
        # Redis 7.0 gives a script's commands the time the script started: a key that expires
        # while the script runs is still there for it (and is gone for the next command). Relative
        # times count by the clock, though: PTTL says 0 is left, and an expiry set after the wait
        # counts from then.
        body = ("redis.call('set', KEYS[1], 'v', 'px', 20) "
                "local t0 = redis.call('time') "
                "local elapsed = 0 "
                "while elapsed < 200000 do "
                "  local t = redis.call('time') "
                "  elapsed = (t[1] - t0[1]) * 1000000 + (t[2] - t0[2]) "
                "end "
                "redis.call('set', KEYS[2], 'v', 'px', 1000) "
                "redis.call('set', KEYS[3], 'v') "
                "redis.call('pexpire', KEYS[3], 1000) "
                "return {redis.call('get', KEYS[1]), redis.call('pttl', KEYS[1]), "
                "redis.call('exists', KEYS[1]), redis.call('pttl', KEYS[2]), "
                "redis.call('pttl', KEYS[3])}")
        reply = self.ev(body, ["k", "ex", "pexpire"])
        self.assertEqual(reply[:3], [b"v", 0, 1])
        # Counted from the script's start they would be 800 at most (a 200 ms wait).
        self.assertGreaterEqual(reply[3], 850)
        self.assertGreaterEqual(reply[4], 850)
        self.assertReply(None, "GET", "k")

# -------------------------------------------------------------------------------------------------
# Errors: redis.call, redis.pcall, error_reply, status_reply
# -------------------------------------------------------------------------------------------------


class ErrorHandlingTest(ScriptTestCase):
    def test_call_raises_pcall_returns(self):
        self.assertReply("OK", "SET", "s", "abc")
        self.assertScriptErr(NOT_INTEGER, "return redis.call('incr', KEYS[1])", keys=["s"])
        self.assertEval(Err(NOT_INTEGER), "return redis.pcall('incr', KEYS[1])", ["s"])
        self.assertEval(b"table:" + NOT_INTEGER.encode(),
                        "local r = redis.pcall('incr', KEYS[1]) return type(r) .. ':' .. r.err",
                        ["s"])
        self.assertEval([Err(NOT_INTEGER), b"after"],
                        "return {redis.pcall('incr', KEYS[1]), 'after'}", ["s"])
        self.make_wrongtype_key("l")
        self.assertScriptErr(WRONGTYPE, "return redis.call('get', KEYS[1])", keys=["l"])
        self.assertEval(Err(WRONGTYPE), "return redis.pcall('get', KEYS[1])", ["l"])
        # A script that fails half way keeps the writes it made: there is no rollback.
        self.assertScriptErr(NOT_INTEGER, "redis.call('set', 'before', '1') "
                             "return redis.call('incr', KEYS[1])", keys=["s"])
        self.assertReply(b"1", "GET", "before")

    def test_call_argument_errors(self):
        self.assertScriptErr("ERR Unknown Redis command called from script",
                             "return redis.call('nosuch')")
        self.assertEval(Err("ERR Unknown Redis command called from script"),
                        "return redis.pcall('nosuch')")
        self.assertScriptErr("ERR Wrong number of args calling Redis command from script",
                             "return redis.call('get')")
        self.assertScriptErr("ERR Wrong number of args calling Redis command from script",
                             "return redis.call('incr', 'k', 'x')")
        self.assertScriptErr("ERR Please specify at least one argument for this redis lib call",
                             "return redis.call()")
        for arg in ("true", "{}", "nil"):
            body = "return redis.call('set', 'x', %s)" % arg
            self.assertScriptErr("ERR Lua redis lib command arguments must be strings or integers",
                                 body)
        self.assertEval(Err("ERR Lua redis lib command arguments must be strings or integers"),
                        "return redis.pcall('set', 'x', true)")
        self.assertScriptErr("ERR invalid expire time in 'set' command",
                             "return redis.call('set', KEYS[1], 'a', 'EX', -1)", keys=["x"])

    def test_error_and_status_replies(self):
        self.assertEval(Err("MY err"), "return redis.error_reply('MY err')")
        self.assertEval(Err("my err"), "return redis.error_reply('my err')")
        self.assertEval(Err("ERR "), "return redis.error_reply('')")  # only an empty one gets ERR
        self.assertEval("FINE", "return redis.status_reply('FINE')")
        self.assertEval(Err("x y"), "return {err='x y'}")
        self.assertEval(Err(""), "return {err=''}")
        self.assertEval("fine", "return {ok='fine'}")
        self.assertEval([1, 2, Err("inner")], "return {1, 2, {err='inner'}}")
        self.assertEval([1, "inner"], "return {1, {ok='inner'}}")
        self.assertEval([], "return {err=1}")  # not a string: an empty array
        self.assertEval([], "return {ok=1}")
        # CR and LF are replaced by spaces (they would break the protocol).
        self.assertEval(Err("ERR a  b"), "return redis.error_reply('a\\r\\nb')")
        self.assertEval("a  b", "return redis.status_reply('a\\r\\nb')")
        self.assertEval(Err("a b"), "return {err='a\\nb'}")
        self.assertEval("a b", "return {ok='a\\nb'}")
        self.assertEval([b"table", b"OK"], "local r = redis.call('set', 'x', 1) "
                        "return {type(r), r.ok}")

    def test_error_raised_with_a_table(self):
        self.assertEval(Err("CUSTOM thing script: %s, on @user_script:1."
                            % sha1("error({err='CUSTOM thing'})")), "error({err='CUSTOM thing'})")
        body = "error(redis.error_reply('CUSTOM thing'))"
        self.assertEval(Err("CUSTOM thing script: %s, on @user_script:1." % sha1(body)), body)
        body = "error(redis.error_reply('lower thing'))"
        self.assertEval(Err("lower thing script: %s, on @user_script:1." % sha1(body)), body)

    def test_lua_pcall(self):
        self.assertEval([None, b"user_script:1: abc"],
                        "local ok, e = pcall(function() error('abc') end) return {ok, e}")
        self.assertEval([None, b"x"], "return {pcall(error, 'x')}")
        self.assertEval([None, b"handled: user_script:1: z"],
                        "return {xpcall(function() error('z') end, "
                        "function(e) return 'handled: ' .. e end)}")
        self.assertEval([1, 5], "return {pcall(redis.call, 'incr', 'n'), "
                        "redis.call('incrby', 'n', 4)}")

    def test_pcall_turns_error_tables_into_strings(self):
        # Redis 7.0 wraps pcall: an error table raised inside becomes its err string, so the usual
        # `local ok, e = pcall(redis.call, ...) if not ok then return redis.error_reply(e) end`
        # works. ordis hands the table through.
        self.assertReply("OK", "SET", "s", "abc")
        self.assertEval(NOT_INTEGER.encode(),
                        "local ok, e = pcall(redis.call, 'incr', 's') return e")
        self.assertEval([b"false", b"string", b"ERR Unknown Redis command called from script"],
                        "local ok, e = pcall(redis.call, 'nosuch') "
                        "return {tostring(ok), type(e), e}")
        self.assertEval(b"X y", "local ok, e = pcall(error, redis.error_reply('X y')) return e")
        self.assertEval(Err(NOT_INTEGER), "local ok, e = pcall(redis.call, 'incr', 's') "
                        "return redis.error_reply(e)")
        self.assertScriptErr("ERR user_script:1: " + NOT_INTEGER,
                             "local ok, e = pcall(redis.call, 'incr', 's') error(e)")

    def test_error_without_a_message(self):
        self.assertScriptErr("ERR nil", "error()")  # ordis: "ERR (error object is not a string)"

    def test_error_reply_with_bad_arguments_returns_an_error(self):
        # Redis returns the error table (a reply without the script suffix); ordis raises.
        self.assertEval(Err("ERR wrong number or type of arguments"), "return redis.error_reply()")
        self.assertEval(Err("ERR wrong number or type of arguments"), "return redis.error_reply(1)")
        self.assertEval(Err("ERR wrong number or type of arguments"), "return redis.status_reply()")
        self.assertEval(b"table", "local e = redis.error_reply() return type(e)")


# -------------------------------------------------------------------------------------------------
# Conversions
# -------------------------------------------------------------------------------------------------


class ConversionTest(ScriptTestCase):
    def test_lua_to_resp2(self):
        cases = [
            ("return 1", 1), ("return 3.99", 3), ("return -3.99", -3), ("return 0.9999", 0),
            ("return 2^53", 9007199254740992), ("return -0.0", 0),
            ("return 1e300", -9223372036854775808), ("return 0/0", -9223372036854775808),
            ("return true", 1), ("return false", None), ("return nil", None),
            ("return ''", b""), ("return 'a\\0b'", b"a\x00b"), ("return {a=1}", []),
            ("return {1, 2.5, 'x', nil, 4}", [1, 2, b"x"]),  # an array ends at its first nil
            ("return {1, {2, {3, 'a'}}, true, false}", [1, [2, [3, b"a"]], 1, None]),
            ("return {'a', {}, 'b'}", [b"a", [], b"b"]), ("return {{}}", [[]]),
            ("return {0.5, -0.5, 1e3}", [0, 0, 1000]), ("return tostring(1/0)", b"inf"),
            ("return {'a', b=1}", [b"a"]),
        ]
        for body, expected in cases:
            self.assertEval(expected, body)
        self.assertRawReply(b"$-1\r\n", "EVAL", "return false", "0")
        self.assertRawReply(b"*4\r\n:1\r\n:1\r\n$-1\r\n$1\r\nx\r\n", "EVAL",
                            "return {1, true, false, 'x'}", "0")

    def test_resp2_to_lua(self):
        self.assertReply("OK", "SET", "s", "1")
        self.assertReply(2, "RPUSH", "l", "a", "b")
        cases = [
            ("local r = redis.call('incr', 's') return {type(r), r}", [b"number", 2]),
            ("local r = redis.call('get', 's') return {type(r), r}", [b"string", b"2"]),
            ("local r = redis.call('get', 'nokey') return {type(r), tostring(r)}",
             [b"boolean", b"false"]),
            ("local r = redis.call('mget', 's', 'nokey') return {type(r[1]), type(r[2]), #r}",
             [b"string", b"boolean", 2]),
            ("local r = redis.call('lrange', 'l', 0, -1) return {type(r), #r, r[1], r[2]}",
             [b"table", 2, b"a", b"b"]),
            ("return type(redis.call('lrange', 'nokey', 0, -1))", b"table"),
            ("local r = redis.call('ping') return {type(r), r.ok}", [b"table", b"PONG"]),
            ("local r = redis.pcall('get', 'l') return {type(r), r.err}",
             [b"table", WRONGTYPE.encode()]),
            ("return redis.call('incrbyfloat', 's', '1.5')", b"3.5"),
            ("return tonumber(redis.call('get', 's')) * 2", 7),
            ("return redis.call('get', 'nokey')", None),
            ("return redis.call('lrange', 'nokey', 0, -1)", []),
            ("return redis.call('set', 'x', 1)", "OK"),
        ]
        for body, expected in cases:
            self.assertEval(expected, body)

    def test_lua_numbers_as_command_arguments(self):
        for num, text in (("1", b"1"), ("12345678901234", b"12345678901234"), ("-0.5", b"-0.5"),
                          ("2.0", b"2"), ("1e20", b"1e+20"), ("1.5", b"1.5")):
            self.assertEval("OK", "return redis.call('set', 'x', %s)" % num)
            self.assertReply(text, "GET", "x")
        self.assertEval("OK", "return redis.call('set', KEYS[1], 1, 'EX', 100)", ["t"])
        self.assertReply(100, "TTL", "t")
        self.assertScriptErr(NOT_INTEGER, "return redis.call('set', KEYS[1], 'a', 'EX', 2.5)",
                             keys=["x"])

    def test_lua_numbers_formatted_with_17_digits(self):
        # Redis 7.0 turns a Lua number argument into text with "%.17g" (7.2 uses the shortest
        # text); ordis writes "3.7".
        self.assertEval("OK", "return redis.call('set', 'x', 3.7)")
        self.assertReply(b"3.7000000000000002", "GET", "x")
        self.assertEval("OK", "return redis.call('set', 'x', 0.1)")
        self.assertReply(b"0.10000000000000001", "GET", "x")
        self.assertEval(b"0.10000000000000001", "return redis.call('incrbyfloat', KEYS[1], 0.1)",
                        ["f"])

    def test_resp3_client(self):
        c = self.resp3_client()
        self.assertReply(1, "HSET", "h", "f", "v", client=c)
        self.assertReply(1, "SADD", "s", "m", client=c)
        self.assertReply(1, "ZADD", "z", "1.5", "a", client=c)
        cases = [
            # RESP3 replies turned to Lua and back, with redis.setresp(3).
            ("redis.setresp(3) return redis.call('hgetall', 'h')", b"%1\r\n$1\r\nf\r\n$1\r\nv\r\n"),
            ("redis.setresp(3) return redis.call('smembers', 's')", b"~1\r\n$1\r\nm\r\n"),
            ("redis.setresp(3) return redis.call('zscore', 'z', 'a')", b",1.5\r\n"),
            ("redis.setresp(3) return redis.call('get', 'nokey')", b"_\r\n"),
            ("redis.setresp(3) return tostring(redis.call('get', 'nokey'))", b"$3\r\nnil\r\n"),
            ("redis.setresp(2) return tostring(redis.call('get', 'nokey'))", b"$5\r\nfalse\r\n"),
            # Without setresp(3), the script sees RESP2 replies.
            ("return redis.call('hgetall', 'h')", b"*2\r\n$1\r\nf\r\n$1\r\nv\r\n"),
            ("return redis.call('zscore', 'z', 'a')", b"$3\r\n1.5\r\n"),
            # Lua tables that are RESP3 types.
            ("return {map={a=1}}", b"%1\r\n$1\r\na\r\n:1\r\n"),
            ("return {set={a=true}}", b"~1\r\n$1\r\na\r\n"),
            ("return {double=3.5}", b",3.5\r\n"),
            ("return {double='3.5'}", b"*0\r\n"),
            ("return {big_number='123456789012345678901234567890'}",
             b"(123456789012345678901234567890\r\n"),
            ("return {verbatim_string={format='txt', string='hello'}}", b"=9\r\ntxt:hello\r\n"),
            ("return {map={a={1,2}, b={map={c='d'}}}}", None),
            ("return true", b":1\r\n"), ("return false", b"_\r\n"), ("return nil", b"_\r\n"),
            ("return {1, true, false, 'x'}", b"*4\r\n:1\r\n:1\r\n_\r\n$1\r\nx\r\n"),
            ("return 3.7", b":3\r\n"),
        ]
        for body, expected in cases:
            if expected is None:
                self.assertEqual(self.ev(body, client=c),
                                 Map({b"a": [1, 2], b"b": Map({b"c": b"d"})}), body)
                continue
            self.assertRawReply(expected, "EVAL", body, "0", client=c)
        self.assertEval([b"table", b"table", b"v"], "redis.setresp(3) local r = "
                        "redis.call('hgetall', 'h') return {type(r), type(r.map), r.map.f}",
                        client=c)
        self.assertEval([b"table", b"true"], "redis.setresp(3) local r = redis.call('smembers', "
                        "'s') return {type(r.set), tostring(r.set.m)}", client=c)
        self.assertEval([b"table", b"1.5"], "redis.setresp(3) local r = redis.call('zscore', 'z', "
                        "'a') return {type(r), tostring(r.double)}", client=c)

    def test_resp3_types_to_a_resp2_client(self):
        self.assertReply(1, "HSET", "h", "f", "v")
        self.assertReply(1, "ZADD", "z", "1.5", "a")
        cases = [
            ("redis.setresp(3) return redis.call('hgetall', 'h')", b"*2\r\n$1\r\nf\r\n$1\r\nv\r\n"),
            ("redis.setresp(3) return redis.call('zscore', 'z', 'a')", b"$3\r\n1.5\r\n"),
            ("redis.setresp(3) return redis.call('get', 'nokey')", b"$-1\r\n"),
            ("return {map={a=1}}", b"*2\r\n$1\r\na\r\n:1\r\n"),
            ("return {set={a=true}}", b"*1\r\n$1\r\na\r\n"),
            ("return {double=3.5}", b"$3\r\n3.5\r\n"),
            ("return {big_number='123456789012345678901234567890'}",
             b"$30\r\n123456789012345678901234567890\r\n"),
            ("return {verbatim_string={format='txt', string='hello'}}", b"$5\r\nhello\r\n"),
            ("return {map={a={1,2}}}", b"*2\r\n$1\r\na\r\n*2\r\n:1\r\n:2\r\n"),
        ]
        for body, expected in cases:
            self.assertRawReply(expected, "EVAL", body, "0")
        self.assertScriptErr("ERR RESP version must be 2 or 3.", "redis.setresp(4)")
        self.assertScriptErr("ERR redis.setresp() requires one argument.", "redis.setresp()")


# -------------------------------------------------------------------------------------------------
# Sandbox and libraries
# -------------------------------------------------------------------------------------------------


class SandboxTest(ScriptTestCase):
    def test_globals_are_read_only(self):
        for body in ("x = 1", "_G.x = 1", "function f() return 1 end", "redis.call = nil",
                     "string.len = nil", "cjson.encode = nil", "table.foo = 1", "math.pi = 3",
                     "bit.band = nil", "cmsgpack.pack = nil", "KEYS = {}"):
            self.assertScriptErr(READONLY_TABLE, body)
        self.assertScriptErr("ERR Attempt to modify a readonly table", "rawset(_G, 'x', 1)")
        body = "loadstring('x = 1')()"
        self.assertEval(Err('ERR [string "x = 1"]:1: Attempt to modify a readonly table script: '
                            '%s, on x = 1:1.' % sha1(body)), body)
        self.assertEval(7, "local function f() return 7 end return f()")
        self.assertEval(1, "local t = {} t.x = 1 return t.x")
        self.assertEval(b"hi!", "local t = setmetatable({}, {__index = function(t, k) "
                        "return k .. '!' end}) return t.hi")
        self.assertEval(1, "return _G.string == string")
        self.assertEval(b"ABC", "return ('abc'):upper()")

    def test_missing_globals(self):
        for name in ("x", "os", "io", "loadfile", "dofile", "require", "print", "module", "debug",
                     "newproxy", "package"):
            body = "return type(%s)" % name
            self.assertEval(global_err(name, body), body)
        self.assertEval(global_err("os", "return os.time()"), "return os.time()")

    def test_allowed_builtins(self):
        self.assertEval(2, "local f = loadstring('return 1+1') return f()")
        self.assertEval(b"kk", "return loadstring('return KEYS[1]')()", ["kk"])
        self.assertEval(b'[string "return +"]:1: unexpected symbol near \'+\'',
                        "local f, e = loadstring('return +') return e")
        self.assertEval([2, b"end"], "local co = coroutine.create(function(a) "
                        "coroutine.yield(a + 1) return 'end' end) "
                        "local _, x = coroutine.resume(co, 1) local _, y = coroutine.resume(co) "
                        "return {x, y}")
        self.assertEval(3, "return select('#', 1, 2, 3)")
        self.assertEval(b"Lua 5.1", "return _VERSION")
        self.assertEval(b"true", "return tostring(collectgarbage('count') > 0)")
        self.assertEval(b"5-x-1.50", "return string.format('%d-%s-%.2f', 5, 'x', 1.5)")
        self.assertEval(b"a,b,c", "return table.concat({'a','b','c'}, ',')")
        self.assertEval(16, "return tonumber('0x10')")
        self.assertEval(b"3.1415926535898", "return tostring(math.pi)")

    @ordis_bug
    def test_no_getfenv_setfenv_and_sealed_tables(self):
        # Debian's Redis 7.0.15 removes getfenv and setfenv, seals the string metatable and keeps
        # the library tables real (enumerable) tables; ordis has the first two and proxies the
        # tables (pairs(string) is empty).
        for name in ("getfenv", "setfenv"):
            body = "return type(%s)" % name
            self.assertEval(global_err(name, body), body)
        self.assertScriptErr(READONLY_TABLE, "getmetatable('').__index = {}")
        self.assertScriptErr("ERR Attempt to modify a readonly table", "setmetatable(_G, nil)")
        self.assertEval(1, "return getmetatable('').__index == string")
        self.assertEval(1, "return rawget(_G, 'string') == string")
        self.assertEval(1, "return next(string) ~= nil")
        body = ("local n = 0 for _, lib in ipairs({string, table, math, cjson, bit, cmsgpack, "
                "redis}) do for _ in pairs(lib) do n = n + 1 end end return n")
        self.assertGreater(self.ev(body), 100)

    def test_math_random_is_redis_rand48(self):
        # Redis's math.random is its own rand48: the same seed gives the same numbers everywhere.
        self.assertEval([745, 343], "math.randomseed(42) return {math.random(1000), "
                        "math.random(1000)}")


class LibrariesTest(ScriptTestCase):
    def test_cjson(self):
        cases = [
            ("return cjson.encode({1, 2, 'x', true, false})", b'[1,2,"x",true,false]'),
            ("return cjson.encode({a={b={1,2,{c='d'}}}})", b'{"a":{"b":[1,2,{"c":"d"}]}}'),
            ("return cjson.encode(3.5)", b"3.5"), ("return cjson.encode(0.1)", b"0.1"),
            ("return cjson.encode(1/3)", b"0.33333333333333"),
            ("return cjson.encode(1e20)", b"1e+20"),
            ("return cjson.encode('a\"b\\\\c/\\n')", b'"a\\"b\\\\c\\/\\n"'),
            ("return cjson.encode('\\1\\127\\195\\169')", b'"\\u0001\\u007f\xc3\xa9"'),
            ("return cjson.encode(cjson.null)", b"null"), ("return cjson.encode({})", b"{}"),
            ("return cjson.encode({[1]=1, [3]=3})", b"[1,null,3]"),
            ("return cjson.encode({1,2,nil,4})", b"[1,2,null,4]"),
            ("return cjson.encode({'a', b=1})", None),
            ("return cjson.decode(ARGV[1]) == cjson.null", 1, "null"),
            ("return cjson.decode(ARGV[1])", [1, b"two", [3]], '[1, "two", [3]]'),
            ("return cjson.decode(ARGV[1])", b"\xc3\xa9\n", '"\\u00e9\\n"'),
            ("return cjson.encode(cjson.decode(ARGV[1]))", b'{"a":[1,2,{"b":null}]}',
             '{"a":[1,2,{"b":null}]}'),
            ("return tostring(cjson.decode('123456789012'))", b"123456789012"),
            ("return tostring(cjson.decode('1e2'))", b"100"),
            ("local t = cjson.decode(ARGV[1]) return {t.a, t.b[1], t.b[2], tostring(t.c), "
             "type(t.n), tostring(t.f)}", [b"x", 1, 2, b"true", b"userdata", b"1.5"],
             '{"a":"x","b":[1,2],"c":true,"n":null,"f":1.5}'),
        ]
        for body, expected, *args in cases:
            if expected is None:
                self.assertEqual(json.loads(self.ev(body)), {"1": "a", "b": 1})
                continue
            self.assertEval(expected, body, args=args)
        errors = [
            ("return cjson.encode({[1]=1, [30]=3})", "Cannot serialise table: excessively sparse "
             "array"),
            ("return cjson.encode(function() end)",
             "Cannot serialise function: type not supported"),
            ("return cjson.encode(1/0)", "Cannot serialise number: must not be NaN or Inf"),
            ("local t = {} local c = t for i=1,1100 do c[1] = {} c = c[1] end "
             "return cjson.encode(t)", "Cannot serialise, excessive nesting (1001)"),
            ("return cjson.decode('[' .. string.rep('[', 1100) .. string.rep(']', 1100) .. ']')",
             "Found too many nested data structures (1001) at character 1001"),
        ]
        for body, message in errors:
            self.assertScriptErr("ERR user_script:1: " + message, body)
        decode = "return cjson.decode(ARGV[1])"
        for arg, message in (("{bad", "Expected object key string but found invalid token at "
                              "character 2"),
                             ("[1,2", "Expected comma or array end but found T_END at character 5"),
                             ("", "Expected value but found T_END at character 1")):
            self.assertScriptErr("ERR user_script:1: " + message, decode, args=[arg])

    def test_cmsgpack_packs_numbers_as_redis(self):
        # Whole numbers in int64's range as integers (unsigned forms for n >= 0, 2^53 and beyond
        # too), others as float32 when exact (2^63, 2^64), else float64.
        cases = [
            ("0", "00"), ("-0.0", "00"), ("127", "7f"), ("128", "cc80"), ("-32", "e0"),
            ("-33", "d0df"), ("65536", "ce00010000"), ("-32769", "d2ffff7fff"),
            ("2^31", "ce80000000"), ("-2^31", "d280000000"), ("-2^31-1", "d3ffffffff7fffffff"),
            ("2^32", "cf0000000100000000"), ("-2^32", "d3ffffffff00000000"),
            ("2^53", "cf0020000000000000"), ("2^53+2", "cf0020000000000002"),
            ("-2^53", "d3ffe0000000000000"), ("2^62", "cf4000000000000000"),
            ("2^63-2^10", "cf7ffffffffffffc00"), ("-2^63", "d38000000000000000"),
            ("2^63", "ca5f000000"), ("-2^63-2^11", "cbc3e0000000000001"), ("2^64", "ca5f800000"),
            ("1.5", "ca3fc00000"), ("-2.25", "cac0100000"), ("0.1", "cb3fb999999999999a"),
            ("1e300", "cb7e37e43c8800759c"), ("3.4028234663852886e38", "ca7f7fffff"),
            ("2^-149", "ca00000001"), ("1e-40", "cb37a16c262777579c"), ("1/0", "ca7f800000"),
            ("-1/0", "caff800000"),
            ("{2^53}, {[2^63]=2^64}", "91cf002000000000000081ca5f000000ca5f800000"),
        ]
        for expr, packed in cases:
            self.assertEval(bytes.fromhex(packed), "return cmsgpack.pack(%s)" % expr)
        self.assertEval(1, "return cmsgpack.unpack(cmsgpack.pack(2^62)) == 2^62 and "
                        "cmsgpack.unpack(cmsgpack.pack(-2^63)) == -2^63 and "
                        "cmsgpack.unpack(cmsgpack.pack(2^64)) == 2^64")
        self.assertEval([b"cmsgpack", b"lua-cmsgpack 0.4.0",
                         b"Copyright (C) 2012, Salvatore Sanfilippo",
                         b"MessagePack C implementation for Lua"],
                        "return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT, "
                        "cmsgpack._DESCRIPTION}")

    def test_cmsgpack_round_trips(self):
        cases = [
            ("{cmsgpack.unpack(cmsgpack.pack(1, -2, 'abc', 127, 128, 255, 256, 65535, 65536, -32, "
             "-33, -128, -129, -32768, -32769, 70000, 5000000000, -5000000000))}",
             [1, -2, b"abc", 127, 128, 255, 256, 65535, 65536, -32, -33, -128, -129, -32768, -32769,
              70000, 5000000000, -5000000000]),
            ("{tostring(cmsgpack.unpack(cmsgpack.pack(1.5))), tostring(cmsgpack.unpack("
             "cmsgpack.pack(0.1))), tostring(cmsgpack.unpack(cmsgpack.pack(-2.25)))}",
             [b"1.5", b"0.1", b"-2.25"]),
            ("{cmsgpack.unpack(cmsgpack.pack({1, 2, 3}))}", [[1, 2, 3]]),
            ("(function() local t = cmsgpack.unpack(cmsgpack.pack({1, {2, 'x'}, {k='v'}})) "
             "return {t[1], t[2][1], t[2][2], t[3].k} end)()", [1, 2, b"x", b"v"]),
            ("cmsgpack.unpack(cmsgpack.pack({a={b={c=3}}})).a.b.c", 3),
            ("(function() local a, b, c = cmsgpack.unpack(cmsgpack.pack(true, false, nil)) "
             "return {tostring(a), tostring(b), tostring(c)} end)()", [b"true", b"false", b"nil"]),
            ("(function() local t = {} for i = 1, 20 do t['k' .. i] = i end "
             "local u = cmsgpack.unpack(cmsgpack.pack(t)) local n = 0 for k, v in pairs(u) do "
             "if t[k] ~= v then return k end n = n + 1 end return n end)()", 20),
            ("cmsgpack.unpack(cmsgpack.pack(ARGV[1]))", b"\x00\xff" * 40000),
        ]
        for size in (31, 32, 255, 256, 65535, 65536):
            cases.append(("cmsgpack.unpack(cmsgpack.pack(string.rep('x', %d))) == string.rep('x', "
                          "%d)" % (size, size), 1))
        for size in (15, 16, 65536):
            cases.append(("(function() local t = {} for i = 1, %d do t[i] = i end "
                          "local u = cmsgpack.unpack(cmsgpack.pack(t)) return {#u, u[1], u[%d]} "
                          "end)()" % (size, size), [size, 1, size]))
        for expr, expected in cases:
            body = "return " + expr
            self.assertEval(expected, body, args=[b"\x00\xff" * 40000])
        # Bytes packed elsewhere (what a client's msgpack library sends) unpack as in Redis.
        unpack = "return cmsgpack.unpack(ARGV[1])"
        for data, expected in ((b"\x93\x01\x02\xa3abc", [1, 2, b"abc"]), (b"\xcd\x01\x00", 256),
                               (b"\xd0\xfe", -2), (b"\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00", 1)):
            self.assertEval(expected, unpack, args=[data])
        self.assertEval(b"1.5", "return tostring(cmsgpack.unpack(ARGV[1]))",
                        args=[b"\xca\x3f\xc0\x00\x00"])
        self.assertEval(b"v", "return cmsgpack.unpack(ARGV[1]).k", args=[b"\x81\xa1k\xa1v"])
        self.assertEval(b"\x01\x02\xa3abc", "return cmsgpack.pack(1, 2, 'abc')")
        self.assertEval(b"\x93\x01\x02\x03\x81\xa1a\x01", "return cmsgpack.pack({1, 2, 3}, {a=1})")

    def test_cmsgpack_errors_and_partial_unpack(self):
        # ordis: no unpack_one/unpack_limit, and its errors are lua-MessagePack's, without the
        # script suffix.
        self.assertEval([1, 1], "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2))}")
        self.assertEval([-1], "return {cmsgpack.unpack_one(cmsgpack.pack(1, 2), 2)}")
        self.assertEval([2, 1, 2], "return {cmsgpack.unpack_limit(cmsgpack.pack(1, 2, 3), 2)}")
        unpack = "return cmsgpack.unpack(ARGV[1])"
        self.assertScriptErr("ERR user_script:1: Bad data format in input.", unpack, args=[b"\xc1"])
        self.assertScriptErr("ERR user_script:1: Missing bytes in input.", unpack,
                             args=[b"\x93\x01"])
        self.assertScriptErr("ERR user_script:1: bad argument #0 to 'pack' (MessagePack pack needs "
                             "input.)", "return cmsgpack.pack()")

    def test_bit(self):
        self.assertEval([15, 7, 6, -1, 1024, 15, -16, 878082066, 2014458966, 2018915346, -1, 5],
                        "return {bit.band(0xff, 0x0f), bit.bor(1, 2, 4), bit.bxor(5, 3), "
                        "bit.bnot(0), bit.lshift(1, 10), bit.rshift(-1, 28), bit.arshift(-256, 4), "
                        "bit.rol(0x12345678, 8), bit.ror(0x12345678, 8), bit.bswap(0x12345678), "
                        "bit.tobit(0xffffffff), bit.tobit(2^32 + 5)}")
        self.assertEval([b"000000ff", b"ffffffff", b"ff", b"00FF", b"678"],
                        "return {bit.tohex(255), bit.tohex(-1), bit.tohex(255, 2), "
                        "bit.tohex(255, -4), bit.tohex(0x12345678, 3)}")
        self.assertScriptErr("ERR user_script:1: bad argument #1 to 'band' (number expected, got "
                             "no value)", "return bit.band()")
        self.assertScriptErr("ERR user_script:1: bad argument #1 to 'band' (number expected, got "
                             "string)", "return bit.band('x')")

    def test_sha1hex(self):
        self.assertEval(b"da39a3ee5e6b4b0d3255bfef95601890afd80709", "return redis.sha1hex('')")
        self.assertEval(sha1("abc").encode(), "return redis.sha1hex('abc')")
        self.assertEval(sha1("123").encode(), "return redis.sha1hex(123)")
        self.assertEval(sha1(b"\x00\xff" * 1000).encode(), "return redis.sha1hex(ARGV[1])",
                        args=[b"\x00\xff" * 1000])
        self.assertScriptErr("ERR wrong number of arguments", "return redis.sha1hex()")

    def test_struct(self):
        self.assertEval(b"\x01\x02", "return struct.pack('>I2', 258)")
        self.assertEval([258, 3], "return {struct.unpack('>I2', ARGV[1])}", args=[b"\x01\x02"])
        self.assertEval(4, "return struct.size('>i')")

    def test_redis_table(self):
        version = info(self.raw, "server")["redis_version"]
        major, minor, patch = (int(p) for p in version.split("."))
        self.assertEval([version.encode(), (major << 16) | (minor << 8) | patch],
                        "return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM}")
        self.assertEval([0, 1, 2, 3, 0, 1, 2, 2, 3],
                        "return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, "
                        "redis.LOG_WARNING, redis.REPL_NONE, redis.REPL_AOF, redis.REPL_REPLICA, "
                        "redis.REPL_SLAVE, redis.REPL_ALL}")
        self.assertEval(b"true", "return tostring(redis.replicate_commands())")
        self.assertEval(None, "return redis.set_repl(redis.REPL_ALL)")
        self.assertScriptErr("ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL "
                             "or REPL_NONE.", "return redis.set_repl(99)")
        self.assertEval(b"false", "return tostring(redis.breakpoint())")
        self.assertEval(None, "return redis.debug('x')")

    def test_redis_log(self):
        marker = "scripting-marker-%d" % os.getpid()
        self.assertEval(None, "return redis.log(redis.LOG_WARNING, ARGV[1], 'more', 3)",
                        args=[marker])
        self.assertEval(None, "return redis.log(redis.LOG_DEBUG, 'debug-' .. ARGV[1])",
                        args=[marker])
        self.assertScriptErr("ERR redis.log() requires two arguments or more.",
                             "return redis.log(redis.LOG_WARNING)")
        self.assertScriptErr("ERR Invalid debug level.", "return redis.log(99, 'x')")
        self.assertScriptErr("ERR First argument must be a number (log level).",
                             "return redis.log('x', 'x')")
        self.assertTrue(wait_until(lambda: marker + " more 3" in self.server.log_text(), 5),
                        "the warning is not in the log")
        self.assertNotIn("debug-" + marker, self.server.log_text())  # below the log level

    def test_redis_table_extras(self):
        self.assertEval(b"true", "return tostring(redis.acl_check_cmd('set', 'x', 'y'))")
        self.assertScriptErr("ERR Invalid command passed to redis.acl_check_cmd()",
                             "return tostring(redis.acl_check_cmd('nosuch'))")
        self.assertScriptErr("ERR redis.set_repl() requires two arguments.",
                             "return redis.set_repl()")


class BitToHexTest(unittest.TestCase):
    """bit.tohex with INT32_MIN digits (CVE-2024-31449): Redis clamps it; on a server of its own,
    since an unpatched lua-bitop dies of it."""

    def test_tohex_int32_min(self):
        server = Server().start()
        self.addCleanup(server.stop)
        c = RawClient(server.port)
        self.addCleanup(c.close)
        self.assertEqual(c.call("EVAL", "return bit.tohex(65535, -2147483648)", "0"), b"0000FFFF")
        self.assertEqual(c.call("EVAL", "return bit.tohex(1, 2^31)", "0"), b"00000001")
        self.assertEqual(c.call("PING"), "PONG")


# -------------------------------------------------------------------------------------------------
# What scripts may run
# -------------------------------------------------------------------------------------------------


class RestrictionsTest(ScriptTestCase):
    def test_commands_not_allowed_from_scripts(self):
        for args in ("'multi'", "'exec'", "'discard'", "'watch', 'x'", "'unwatch'",
                     "'eval', 'return 1', '0'", "'evalsha', 'x', '0'", "'eval_ro', 'return 1', '0'",
                     "'script', 'load', 'return 1'", "'script', 'flush'", "'script', 'exists', 'x'",
                     "'script', 'kill'", "'client', 'list'", "'client', 'id'", "'auth', 'x'",
                     "'hello', '2'", "'reset'", "'quit'", "'save'", "'bgsave'", "'bgrewriteaof'",
                     "'shutdown'", "'debug', 'sleep', '0'", "'acl', 'whoami'",
                     "'acl', 'setuser', 'x'", "'config', 'get', 'x'",
                     "'config', 'set', 'maxmemory', '0'"):
            self.assertScriptErr(NOT_ALLOWED, "return redis.call(%s)" % args)
        self.assertEval(Err(NOT_ALLOWED), "return redis.pcall('multi')")
        # Commands that are allowed, some of them not deterministic.
        for args, expected in (("'ping'", "PONG"), ("'echo', 'x'", b"x"), ("'dbsize'", 0),
                               ("'randomkey'", None), ("'keys', '*'", []), ("'flushdb'", "OK"),
                               ("'scan', '0'", [b"0", []]), ("'spop', 'nokey'", None)):
            self.assertEval(expected, "return redis.call(%s)" % args)
        self.assertEval(2, "return #redis.call('time')")

    def test_eval_ro(self):
        self.assertReply("OK", "SET", "k", "v")
        self.assertReply(b"v", "EVAL_RO", "return redis.call('get', KEYS[1])", "1", "k")
        for body in ("return redis.call('set', KEYS[1], 'x')", "return redis.call('del', KEYS[1])",
                     "return redis.call('expire', KEYS[1], 10)", "return redis.call('flushall')"):
            self.assertErr(script_err(WRITE_IN_RO, body).message, "EVAL_RO", body, "1", "k")
        self.assertReply(Err(WRITE_IN_RO), "EVAL_RO", "return redis.pcall('set', KEYS[1], 'x')",
                         "1", "k")
        self.assertReply("PONG", "EVAL_RO", "return redis.call('ping')", "0")
        self.assertReply(b"v", "GET", "k")
        body = "return redis.call('set', KEYS[1], ARGV[1])"
        self.assertReply(sha1(body).encode(), "SCRIPT", "LOAD", body)
        self.assertErr(script_err(WRITE_IN_RO, body).message, "EVALSHA_RO", sha1(body), "1", "k",
                       "w")
        self.assertReply("OK", "EVALSHA", sha1(body), "1", "k", "w")
        self.assertReply(b"w", "GET", "k")

    def test_shebang_flags(self):
        self.assertReply("OK", "SET", "k", "v")
        body = "#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'x')"
        self.assertScriptErr(WRITE_IN_RO, body, line=2, keys=["k"])
        self.assertEval(b"v", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", ["k"])
        self.assertReply(b"v", "EVAL_RO",
                         "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "1", "k")
        for shebang in ("#!lua", "#!lua flags=allow-oom"):
            self.assertErr("ERR Can not execute a script with write flag using *_ro command.",
                           "EVAL_RO", shebang + "\nreturn redis.call('get', KEYS[1])", "1", "k")
        self.assertEval("OK", "#!lua\nreturn redis.call('set', KEYS[1], 'y')", ["k"])
        for flags in ("", "allow-oom,no-writes", "allow-stale,no-cluster,allow-cross-slot-keys"):
            self.assertEval(1, "#!lua flags=%s\nreturn 1" % flags)
        self.assertEval(1, "#!lua  flags=no-writes\nreturn 1")
        # Line numbers count the shebang line.
        self.assertScriptErr("ERR user_script:3: here", "#!lua\n\nerror('here')", line=3)
        self.assertErr(COMPILE + "user_script:2: unexpected symbol near '<eof>'", "EVAL",
                       "#!lua\nreturn x +", "0")

    def test_shebang_errors(self):
        for body, message in (
                ("#!lua flags=bogus\nreturn 1", "ERR Unexpected flag in script shebang: bogus"),
                ("#!lua flags=no-writes,bogus\nreturn 1",
                 "ERR Unexpected flag in script shebang: bogus"),
                ("#!lua flags=NO-WRITES\nreturn 1",
                 "ERR Unexpected flag in script shebang: NO-WRITES"),
                ("#!python\nreturn 1", "ERR Unexpected engine in script shebang: #!python"),
                ("#!luA\nreturn 1", "ERR Unexpected engine in script shebang: #!luA"),
                ("#!lua name=x\nreturn 1", "ERR Unknown lua shebang option: name=x"),
                ("#!lua flags=no-writes name=foo\nreturn 1",
                 "ERR Unknown lua shebang option: name=foo")):
            self.assertErr(message, "EVAL", body, "0")
            self.assertErr(message, "SCRIPT", "LOAD", body)

    def test_shebang_without_newline(self):
        for body in ("#!lua", "#!lua flags=no-writes", "#!"):
            self.assertErr("ERR Invalid script shebang", "EVAL", body, "0")


# -------------------------------------------------------------------------------------------------
# Atomicity
# -------------------------------------------------------------------------------------------------



# -------------------------------------------------------------------------------------------------
# FUNCTION and FCALL
# -------------------------------------------------------------------------------------------------

LIBRARY = ("#!lua name=lib\n"
           "redis.register_function('incr_by', function(keys, args) "
           "return redis.call('incrby', keys[1], args[1]) end)\n"
           "redis.register_function{function_name='peek', description='reads a key', "
           "flags={'no-writes'}, callback=function(keys) return redis.call('get', keys[1]) end}")


class FunctionTest(ScriptTestCase):
    def setUp(self):
        super().setUp()
        self.assertEqual(self.raw.call("FUNCTION", "FLUSH"), "OK")

    def test_redis_py_function_load_fcall_list(self):
        r = redis.Redis(port=self.port)
        self.addCleanup(r.close)
        self.assertEqual(r.function_load(LIBRARY), b"lib")
        self.assertEqual(r.fcall("incr_by", 1, "n", 5), 5)
        self.assertEqual(r.fcall("INCR_BY", 1, "n", 2), 7)
        self.assertEqual(r.fcall_ro("peek", 1, "n"), b"7")
        with self.assertRaises(redis.exceptions.ResponseError) as e:
            r.fcall_ro("incr_by", 1, "n", 1)
        self.assertEqual(str(e.exception),
                         "Can not execute a script with write flag using *_ro command.")
        listing = r.function_list(withcode=True)
        self.assertEqual(len(listing), 1)
        entry = dict(zip(listing[0][::2], listing[0][1::2]))
        self.assertEqual(entry[b"library_name"], b"lib")
        self.assertEqual(entry[b"library_code"], LIBRARY.encode())
        functions = [dict(zip(f[::2], f[1::2])) for f in entry[b"functions"]]
        self.assertEqual(sorted((f[b"name"], f[b"description"], f[b"flags"]) for f in functions),
                         [(b"incr_by", None, []), (b"peek", b"reads a key", [b"no-writes"])])
        with self.assertRaises(redis.exceptions.ResponseError) as e:
            r.function_load(LIBRARY)
        self.assertEqual(str(e.exception), "Library 'lib' already exists")
        self.assertEqual(r.function_load(LIBRARY, replace=True), b"lib")
        self.assertTrue(r.function_delete("lib"))
        with self.assertRaises(redis.exceptions.ResponseError) as e:
            r.fcall("incr_by", 1, "n", 1)
        self.assertEqual(str(e.exception), "Function not found")

    def test_errors_name_the_function(self):
        self.assertEqual(self.raw.call(
            "FUNCTION", "LOAD", "#!lua name=e\nredis.register_function('boom', function() "
            "return redis.call('incr', 'e:s') end)"), b"e")
        self.assertReply("OK", "SET", "e:s", "x")
        self.assertReply(Err(NOT_INTEGER + " script: boom, on @user_function:2."), "FCALL", "boom",
                         "0")
        self.assertReply(Err("ERR Error registering functions: ERR user_function:2: Script "
                             "attempted to access nonexistent global variable 'KEYS'"),
                         "FUNCTION", "LOAD", "#!lua name=k\nlocal k = KEYS redis.register_function("
                         "'k', function() return 1 end)")


    def test_load_time_environment_is_redis_only(self):
        # A library's code runs with the global redis alone, and in it only register_function,
        # log, LOG_* and REDIS_VERSION(_NUM); its functions see every global when called.
        for name in ("string", "math", "table", "pairs", "tostring", "type", "pcall", "cjson",
                     "cmsgpack", "bit", "struct", "_G", "loadstring", "error"):
            self.assertReply(Err("ERR Error registering functions: ERR user_function:2: Script "
                                 "attempted to access nonexistent global variable '%s'" % name),
                             "FUNCTION", "LOAD", "#!lua name=g\nlocal x = %s "
                             "redis.register_function('g', function() return 1 end)" % name)
        for field in ("call", "setresp", "set_repl", "sha1hex", "REPL_ALL"):
            self.assertReply(Err("ERR Error registering functions: ERR user_function:2: Script "
                                 "attempted to access nonexistent global variable '%s'" % field),
                             "FUNCTION", "LOAD", "#!lua name=f\nlocal x = redis.%s "
                             "redis.register_function('f', function() return 1 end)" % field)
        self.assertReply(b"ok", "FUNCTION", "LOAD",
                         "#!lua name=ok\nlocal v = {redis.log, redis.LOG_DEBUG, redis.LOG_VERBOSE, "
                         "redis.LOG_NOTICE, redis.LOG_WARNING, redis.REDIS_VERSION, "
                         "redis.REDIS_VERSION_NUM}\nredis.register_function('ok', function() "
                         "return {#v, type(string), tostring(math.floor(1.5))} end)")
        self.assertReply([7, b"table", b"1"], "FCALL", "ok", "0")
        self.assertReply([], "FUNCTION", "LIST", "LIBRARYNAME", "g")  # nothing was loaded

    def test_function_redis_table_has_no_debugger(self):
        # Redis 7.0's functions have no redis.breakpoint, redis.debug nor redis.replicate_commands
        # (EVAL has them); the table is read-only as EVAL's is.
        probe = ("return {type(redis.breakpoint), type(redis.debug), "
                 "type(redis.replicate_commands), type(redis.call), type(redis.set_repl), "
                 "redis.REPL_ALL}")
        self.assertReply(b"rt", "FUNCTION", "LOAD",
                         "#!lua name=rt\nredis.register_function('rt', function() " + probe +
                         " end)\nredis.register_function('w', function() rawset(redis, 'x', 1) "
                         "end)")
        self.assertReply([b"nil", b"nil", b"nil", b"function", b"function", 3], "FCALL", "rt", "0")
        self.assertEval([b"function"] * 5 + [3], probe)
        self.assertReply(Err("ERR Attempt to modify a readonly table script: w, on "
                             "@user_function:3."), "FCALL", "w", "0")

if __name__ == "__main__":
    unittest.main()


class FunctionPersistenceTest(unittest.TestCase):
    """Function libraries survive a restart from a snapshot and from the append-only log (a crash
    after FUNCTION LOAD with appendfsync always, and after a rewrite), as Redis keeps them in its
    RDB and AOF."""

    LIB2 = "#!lua name=lib2\nredis.register_function('two', function() return 2 end)"

    def setUp(self):
        self.srv = Server(("--appendfsync", "always"), keep_dir=True).start()
        self.addCleanup(self.srv.remove_dir)
        self.addCleanup(self.srv.stop)

    def client(self):
        c = redis.Redis(port=self.srv.port)
        self.addCleanup(c.close)
        return c

    @staticmethod
    def rewrite_done(r, before):
        persistence = r.info("persistence")
        return (int(persistence["aof_rewrites"]) > before
                and persistence["aof_rewrite_in_progress"] == 0)

    def test_snapshot_keeps_libraries(self):
        r = self.client()
        self.assertEqual(r.function_load(LIBRARY), b"lib")
        self.assertEqual(r.save(), True)
        self.srv.kill()
        self.srv.start()
        r = self.client()
        self.assertEqual(r.fcall("incr_by", 1, "n", 5), 5)
        self.assertEqual(r.function_list()[0][1], b"lib")

    def test_log_keeps_loads_and_deletes(self):
        r = self.client()
        self.assertEqual(r.config_set("appendonly", "yes"), True)
        # The log is on once its first rewrite is done.
        self.assertTrue(wait_until(lambda: self.rewrite_done(r, 0), 30))
        self.assertEqual(r.function_load(LIBRARY), b"lib")
        self.assertEqual(r.function_load(self.LIB2), b"lib2")
        self.assertEqual(r.function_delete("lib"), True)
        self.srv.kill()  # crash: only the log has them
        self.srv.extra_args = ["--appendfsync", "always", "--appendonly", "yes"]
        self.srv.start()
        r = self.client()
        self.assertEqual(r.fcall("two", 0), 2)
        self.assertEqual([entry[1] for entry in r.function_list()], [b"lib2"])
        # A rewrite's base holds them too.
        before = int(r.info("persistence")["aof_rewrites"])
        r.bgrewriteaof()
        self.assertTrue(wait_until(lambda: self.rewrite_done(r, before), 30))
        self.srv.kill()
        self.srv.start()
        r = self.client()
        self.assertEqual(r.fcall("two", 0), 2)


def _crc64_jones(data, crc=0):
    """Redis's crc64, to seal hand-made payloads."""
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x95AC9329AC4BC9B5 if crc & 1 else crc >> 1
    return crc


def _seal(body):
    body += b"\n\x00"  # RDB version 10
    return body + _crc64_jones(body).to_bytes(8, "little")


def _function_payload(*codes):
    body = b""
    for code in codes:
        code = code.encode()
        assert len(code) < 16384
        body += b"\xf5" + bytes([0x40 | (len(code) >> 8), len(code) & 0xff]) + code
    return _seal(body)


class FunctionDumpRestoreTest(ScriptTestCase):
    LIB_X = "#!lua name=x\nredis.register_function('fx', function() return 'x' end)"
    LIB_Y = "#!lua name=y\nredis.register_function('fy', function() return 'y' end)"
    LIB_X2 = "#!lua name=x\nredis.register_function('fx2', function() return 'x2' end)"
    LIB_CLASH = "#!lua name=other\nredis.register_function('fx', function() return 'o' end)"

    def setUp(self):
        super().setUp()
        self.assertEqual(self.raw.call("FUNCTION", "FLUSH"), "OK")

    def names(self):
        return sorted(entry[1] for entry in self.raw.call("FUNCTION", "LIST"))

    def test_dump_restore_round_trip_and_policies(self):
        c = self.raw
        self.assertEqual(c.call("FUNCTION", "LOAD", LIBRARY), b"lib")
        self.assertEqual(c.call("FUNCTION", "RESTORE", c.call("FUNCTION", "DUMP")),
                         Err("ERR Library lib already exists"))
        self.assertEqual(c.call("FUNCTION", "LOAD", self.LIB_X), b"x")
        payload = c.call("FUNCTION", "DUMP")  # both; their order is the server's
        self.assertEqual(c.call("FUNCTION", "RESTORE", payload, "append").message[:12],
                         "ERR Library ")
        self.assertEqual(c.call("FUNCTION", "RESTORE", payload, "REPLACE"), "OK")
        self.assertEqual(c.call("FUNCTION", "FLUSH"), "OK")
        self.assertEqual(c.call("FUNCTION", "RESTORE", payload), "OK")
        self.assertEqual(self.names(), [b"lib", b"x"])
        self.assertEqual(c.call("FCALL", "fx", 0), b"x")
        self.assertEqual(c.call("FUNCTION", "LOAD", "REPLACE", self.LIB_X2), b"x")
        self.assertEqual(c.call("FUNCTION", "RESTORE", payload, "flush"), "OK")
        self.assertEqual(c.call("FCALL", "fx", 0), b"x")
        self.assertEqual(c.call("FCALL", "fx2", 0), Err("ERR Function not found"))
        # An empty registry dumps to a bare trailer, which restores to nothing.
        self.assertEqual(c.call("FUNCTION", "FLUSH"), "OK")
        empty = c.call("FUNCTION", "DUMP")
        self.assertEqual(len(empty), 10)
        self.assertEqual(c.call("FUNCTION", "RESTORE", empty), "OK")
        self.assertEqual(self.names(), [])

    def test_restore_is_all_or_nothing(self):
        c = self.raw
        self.assertEqual(c.call("FUNCTION", "LOAD", self.LIB_CLASH), b"other")
        # fx belongs to another library: even REPLACE refuses, and y is not loaded either.
        payload = _function_payload(self.LIB_Y, self.LIB_X)
        self.assertEqual(c.call("FUNCTION", "RESTORE", payload, "REPLACE"),
                         Err("ERR Function fx already exists"))
        self.assertEqual(self.names(), [b"other"])
        self.assertEqual(c.call("FUNCTION", "RESTORE", payload, "FLUSH"), "OK")
        self.assertEqual(self.names(), [b"x", b"y"])
        # A payload whose second library does not compile loads nothing.
        self.assertEqual(c.call("FUNCTION", "FLUSH"), "OK")
        bad = _function_payload(self.LIB_Y, "return 1")
        self.assertEqual(c.call("FUNCTION", "RESTORE", bad), Err("ERR Missing library metadata"))
        self.assertEqual(self.names(), [])

    def test_bad_payloads(self):
        c = self.raw
        wrong = "ERR DUMP payload version or checksum are wrong"
        self.assertEqual(c.call("FUNCTION", "RESTORE", "garbage"), Err(wrong))
        payload = bytearray(_function_payload(self.LIB_Y))
        payload[5] ^= 1
        self.assertEqual(c.call("FUNCTION", "RESTORE", bytes(payload)), Err(wrong))
        future = b"\x0b\x00"
        self.assertEqual(c.call("FUNCTION", "RESTORE",
                                future + _crc64_jones(future).to_bytes(8, "little")), Err(wrong))
        self.assertEqual(c.call("FUNCTION", "RESTORE", _seal(b"\x05")),
                         Err("ERR given type is not a function"))
        self.assertEqual(c.call("FUNCTION", "RESTORE", _seal(b"\xf5")),
                         Err("ERR Failed loading library payload"))
        self.assertEqual(c.call("FUNCTION", "RESTORE", _seal(b"\xf5\x03abc")),
                         Err("ERR Missing library metadata"))
        self.assertEqual(c.call("FUNCTION", "RESTORE", _seal(b""), "bad"),
                         Err("ERR Wrong restore policy given, value should be either FLUSH, "
                             "APPEND or REPLACE."))
        self.assertEqual(c.call("FUNCTION", "RESTORE", _seal(b""), "replace", "x"),
                         Err("ERR unknown subcommand or wrong number of arguments for 'RESTORE'. "
                             "Try FUNCTION HELP."))

    def test_redis_py_and_redis_cli_functions_rdb_style_round_trip(self):
        r = redis.Redis(port=self.port)
        self.addCleanup(r.close)
        self.assertEqual(r.function_load(LIBRARY), b"lib")
        dumped = r.function_dump()
        self.assertEqual(r.function_flush(), True)
        self.assertEqual(r.function_restore(dumped), True)
        self.assertEqual(r.fcall("incr_by", 1, "n", 3), 3)
