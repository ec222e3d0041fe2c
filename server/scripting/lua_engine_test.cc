#include "server/scripting/lua_engine.h"

#include <gtest/gtest.h>
#include <sys/uio.h>

#include <string>
#include <utility>
#include <vector>

#include "base/hex_test_support.h"
#include "resp/out_buffer.h"
#include "server/scripting/script.h"

namespace ordis::server::scripting {
namespace {

// Answers redis.call with canned replies and records what the script asked for.
class FakeCaller : public CommandCaller {
 public:
  void Call(std::span<const std::string_view> args, resp::Writer& out) override {
    calls.emplace_back(args.begin(), args.end());
    protocols.push_back(out.protocol());
    const std::string_view name = args[0];
    if (name == "ping") {
      out.SimpleString("PONG");
    } else if (name == "get") {
      out.NullBulk();
    } else if (name == "incr") {
      out.Error("ERR value is not an integer or out of range");
    } else if (name == "hgetall") {
      out.MapHeader(1);
      out.Bulk("f");
      out.Bulk("v");
    } else if (name == "echo") {
      out.Bulk(args[1]);
    } else {
      out.Integer(static_cast<int64_t>(args.size()));
    }
  }
  // The user may run get and ping, of any keys; no other command exists.
  std::optional<bool> UserMayRun(std::span<const std::string_view> args) override {
    checks.emplace_back(args.begin(), args.end());
    if (args[0] == "nosuch") return std::nullopt;
    return args[0] == "get" || args[0] == "ping";
  }
  void SetLogged(bool on) override { logged.push_back(on); }
  bool Killed() override { return killed; }
  std::string_view KilledError() const override {
    return "ERR Script killed by user with SCRIPT KILL...";
  }

  std::vector<std::vector<std::string>> calls;
  std::vector<std::vector<std::string>> checks;
  std::vector<int> protocols;
  std::vector<bool> logged;  // redis.set_repl's verdicts, in order
  bool killed = false;
};

std::string Flatten(resp::OutBuffer& buffer) {
  std::string bytes;
  struct iovec iov[16];
  while (!buffer.empty()) {
    const int n = buffer.FillIovec(iov, 16);
    size_t taken = 0;
    for (int i = 0; i < n; ++i) {
      bytes.append(static_cast<const char*>(iov[i].iov_base), iov[i].iov_len);
      taken += iov[i].iov_len;
    }
    buffer.Consume(taken);
  }
  return bytes;
}

class LuaEngineTest : public ::testing::Test {
 protected:
  // Compiles (if new) and runs body; returns the reply's bytes.
  std::string Eval(std::string_view body, std::vector<std::string_view> keys = {},
                   std::vector<std::string_view> argv = {}, int protocol = 2) {
    const std::string sha = Sha1Hex(body);
    if (!engine.Compiled(sha)) {
      std::string error = engine.Compile(sha, body, ScriptFlags{});
      if (!error.empty()) return "-" + error + "\r\n";
    }
    resp::OutBuffer buffer;
    resp::Writer out(&buffer);
    out.set_protocol(protocol);
    engine.Run(sha, keys, argv, caller, out);
    return Flatten(buffer);
  }
  std::string Named(std::string_view body, std::string_view error_at) {
    return std::string(error_at) + " script: " + Sha1Hex(body) + ", on @user_script:1.\r\n";
  }

  LuaEngine engine;
  FakeCaller caller;
};

TEST_F(LuaEngineTest, ConvertsScriptResultsAsRedis) {
  EXPECT_EQ(Eval("return 3.99"), ":3\r\n");
  EXPECT_EQ(Eval("return 'x'"), "$1\r\nx\r\n");
  EXPECT_EQ(Eval("return {1,2,nil,4}"), "*2\r\n:1\r\n:2\r\n");
  EXPECT_EQ(Eval("return {1,{2,'a'}}"), "*2\r\n:1\r\n*2\r\n:2\r\n$1\r\na\r\n");
  EXPECT_EQ(Eval("return true"), ":1\r\n");
  EXPECT_EQ(Eval("return false"), "$-1\r\n");
  EXPECT_EQ(Eval("return nil"), "$-1\r\n");
  EXPECT_EQ(Eval("return false", {}, {}, 3), "_\r\n");
  EXPECT_EQ(Eval("redis.setresp(3); return false", {}, {}, 3), "#f\r\n");
  EXPECT_EQ(Eval("redis.setresp(3); return true", {}, {}, 2), ":1\r\n");
  EXPECT_EQ(Eval("return {ok='fine'}"), "+fine\r\n");
  EXPECT_EQ(Eval("return {err='My Error'}"), "-My Error\r\n");
  EXPECT_EQ(Eval("return {ok='x', err='y'}"), "-y\r\n");
  EXPECT_EQ(Eval("return redis.error_reply('E1')"), "-ERR E1\r\n");
  EXPECT_EQ(Eval("return redis.error_reply('-E1 x')"), "-E1 x\r\n");
  EXPECT_EQ(Eval("return redis.status_reply('S1')"), "+S1\r\n");
  EXPECT_EQ(Eval("return {double=3.5}"), "$3\r\n3.5\r\n");
  EXPECT_EQ(Eval("return {double=3.5}", {}, {}, 3), ",3.5\r\n");
  EXPECT_EQ(Eval("return {map={a=1}}"), "*2\r\n$1\r\na\r\n:1\r\n");
  EXPECT_EQ(Eval("return {set={a=true}}", {}, {}, 3), "~1\r\n$1\r\na\r\n");
  EXPECT_EQ(Eval("return {big_number='123'}"), "$3\r\n123\r\n");
  EXPECT_EQ(Eval("return KEYS[1]..ARGV[1]..#KEYS..#ARGV", {"k"}, {"a", "b"}), "$4\r\nka12\r\n");
  // A table containing itself ends where Lua's stack does, as in Redis (it crashed the server).
  const std::string circular = Eval("local t = {} t[1] = t return t");
  EXPECT_TRUE(circular.ends_with("*1\r\n-ERR reached lua stack limit\r\n")) << circular.size();
  EXPECT_GT(circular.size(), 7000u * 4);
}

TEST_F(LuaEngineTest, ConvertsCommandRepliesAsRedis) {
  EXPECT_EQ(Eval("return redis.call('ping')"), "+PONG\r\n");
  EXPECT_EQ(Eval("return redis.call('ping').ok"), "$4\r\nPONG\r\n");
  EXPECT_EQ(Eval("return type(redis.call('get','k'))"), "$7\r\nboolean\r\n");
  EXPECT_EQ(Eval("redis.setresp(3); return type(redis.call('get','k'))"), "$3\r\nnil\r\n");
  EXPECT_EQ(Eval("return redis.call('hgetall','h')"), "*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
  EXPECT_EQ(Eval("redis.setresp(3); return redis.call('hgetall','h').map.f"), "$1\r\nv\r\n");
  EXPECT_EQ(caller.protocols.back(), 3);
  EXPECT_EQ(Eval("return redis.pcall('incr','a').err"),
            "$43\r\nERR value is not an integer or out of range\r\n");
  const char* call_incr = "return redis.call('incr','a')";
  EXPECT_EQ(Eval(call_incr), Named(call_incr, "-ERR value is not an integer or out of range"));
  // Numbers become the shortest text that reads back the same, as Redis writes them.
  EXPECT_EQ(Eval("return redis.call('echo', 0.1 + 0.2)"), "$19\r\n0.30000000000000004\r\n");
  EXPECT_EQ(Eval("return redis.call('echo', 1e20)"), "$5\r\n1e+20\r\n");
  EXPECT_EQ(Eval("return redis.call('echo', 12)"), "$2\r\n12\r\n");
  // The same for the other function that names a command (redis-server 7.0.15's replies).
  for (const std::string function : {"redis.call", "redis.acl_check_cmd"}) {
    const std::string no_args = "return " + function + "()";
    EXPECT_EQ(Eval(no_args),
              Named(no_args, "-ERR Please specify at least one argument for this redis lib call"));
    const std::string table_arg = "return " + function + "('set', 'a', {})";
    EXPECT_EQ(Eval(table_arg),
              Named(table_arg, "-ERR Lua redis lib command arguments must be strings or integers"));
  }
  EXPECT_TRUE(caller.checks.empty());  // the argument errors never reach the caller
}

TEST_F(LuaEngineTest, ErrorsNameTheScriptAndLine) {
  const char* raised = "error('boom')";
  EXPECT_EQ(Eval(raised), Named(raised, "-ERR user_script:1: boom"));
  const char* table = "error({err='boom'})";
  EXPECT_EQ(Eval(table), Named(table, "-boom"));
  const std::string second_line = "local x = 1\nerror({err='E2 two'})";
  EXPECT_EQ(Eval(second_line),
            "-E2 two script: " + Sha1Hex(second_line) + ", on @user_script:2.\r\n");
  EXPECT_EQ(Eval("syntax error here"),
            "-ERR Error compiling script (new function): user_script:1: '=' expected near "
            "'error'\r\n");
  const char* sha_args = "return redis.sha1hex()";
  EXPECT_EQ(Eval(sha_args), Named(sha_args, "-ERR wrong number of arguments"));
  EXPECT_EQ(Eval("return redis.sha1hex('')"),
            "$40\r\nda39a3ee5e6b4b0d3255bfef95601890afd80709\r\n");
  const char* resp4 = "return redis.setresp(4)";
  EXPECT_EQ(Eval(resp4), Named(resp4, "-ERR RESP version must be 2 or 3."));
}

// The replies of redis-server 7.0.15 to the same scripts.
TEST_F(LuaEngineTest, AclCheckCmdAsksTheCallerAndRaisesItsErrors) {
  EXPECT_EQ(Eval("return redis.acl_check_cmd('get', 'k', 1.5)"), ":1\r\n");
  EXPECT_EQ(Eval("return redis.acl_check_cmd('set', 'k', 'v')"), "$-1\r\n");  // false
  ASSERT_EQ(caller.checks.size(), 2u);
  EXPECT_EQ(caller.checks[0], (std::vector<std::string>{"get", "k", "1.5"}));
  EXPECT_TRUE(caller.calls.empty());  // nothing ran
  const char* unknown = "return redis.acl_check_cmd('nosuch')";
  EXPECT_EQ(Eval(unknown), Named(unknown, "-ERR Invalid command passed to redis.acl_check_cmd()"));
  EXPECT_EQ(Eval("return {pcall(redis.acl_check_cmd, 'nosuch')}"),
            "*2\r\n$-1\r\n$51\r\nERR Invalid command passed to redis.acl_check_cmd()\r\n");
  EXPECT_EQ(caller.checks.size(), 4u);
}

TEST_F(LuaEngineTest, SandboxAsRedis) {
  for (const char* name : {"os", "io", "loadfile", "dofile", "print", "require", "debug", "package",
                           "module", "newproxy"}) {
    const std::string body = std::string("return ") + name;
    EXPECT_EQ(Eval(body), Named(body, std::string("-ERR user_script:1: Script attempted to access "
                                                  "nonexistent global variable '") +
                                          name + "'"))
        << name;
  }
  for (const char* write : {"a = 1", "string.x = 1", "redis.x = 1", "_G.x = 1", "cjson.x = 1"}) {
    EXPECT_EQ(Eval(write), Named(write, "-ERR user_script:1: Attempt to modify a readonly table"))
        << write;
  }
  const char* raw = "rawset(_G, 'x', 1)";
  EXPECT_EQ(Eval(raw), Named(raw, "-ERR Attempt to modify a readonly table"));
  const char* getfenv = "return getfenv(0)";
  EXPECT_EQ(Eval(getfenv),
            Named(getfenv,
                  "-ERR user_script:1: Script attempted to access nonexistent global "
                  "variable 'getfenv'"));
  EXPECT_EQ(Eval("return type(getmetatable(_G))"), "$5\r\ntable\r\n");
  EXPECT_EQ(Eval("local t = {}; t.x = 1; return t.x"), ":1\r\n");
  EXPECT_EQ(Eval("return type(loadstring)"), "$8\r\nfunction\r\n");
  EXPECT_EQ(Eval("return redis.REDIS_VERSION_NUM"), ":458767\r\n");
  // Nothing a script did survives it in the globals.
  EXPECT_EQ(Eval("return string.x"), "$-1\r\n");
}

TEST_F(LuaEngineTest, LibrariesAsRedis) {
  EXPECT_EQ(Eval("return cjson.encode({a=1})"), "$7\r\n{\"a\":1}\r\n");
  EXPECT_EQ(Eval("return cjson.decode('[1,2,{\"a\":null}]')[3].a == cjson.null and 1 or 0"),
            ":1\r\n");
  EXPECT_EQ(Eval("return bit.band(7,3)"), ":3\r\n");
  EXPECT_EQ(Eval("return bit.tohex(255)"), "$8\r\n000000ff\r\n");
  // Redis's rand48: a seed gives Redis's numbers.
  EXPECT_EQ(Eval("math.randomseed(42) return {math.random(1000), math.random(1000)}"),
            "*2\r\n:745\r\n:343\r\n");
  // CVE-2024-31449: a digit count of -2^31 overflowed lua-bitop's buffer.
  EXPECT_EQ(Eval("return bit.tohex(65535, -2147483648)"), "$8\r\n0000FFFF\r\n");
  EXPECT_EQ(Eval("return bit.tohex(1, 2^31)"), "$8\r\n00000001\r\n");
  EXPECT_EQ(Eval("local ok, e = pcall(redis.call, 'incr', 'a'); return e"),
            "$43\r\nERR value is not an integer or out of range\r\n");
  EXPECT_EQ(Eval("return cmsgpack.pack(1.5)"), std::string("$5\r\n\xca\x3f\xc0\x00\x00\r\n", 11));
  EXPECT_EQ(Eval("return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2)}"),
            "*3\r\n:2\r\n:1\r\n:2\r\n");
  const char* truncated = "return cmsgpack.unpack('\\147\\1')";
  EXPECT_EQ(Eval(truncated), Named(truncated, "-ERR user_script:1: Missing bytes in input."));
  EXPECT_EQ(Eval("return {cmsgpack.unpack(cmsgpack.pack(1,'a',{1,2},{x=1}))}"),
            "*4\r\n:1\r\n$1\r\na\r\n*2\r\n:1\r\n:2\r\n*0\r\n");
  EXPECT_EQ(Eval("return cmsgpack.pack({1,2,3})"), "$4\r\n\x93\x01\x02\x03\r\n");
  EXPECT_EQ(Eval("return cmsgpack.unpack(cmsgpack.pack({x='y'})).x"), "$1\r\ny\r\n");
}

// Bytes recorded from redis-server 7.0.15: whole numbers in int64's range as integers (unsigned
// forms for n >= 0, 2^53 and beyond too), the rest as float32 when exact, else float64.
TEST_F(LuaEngineTest, CmsgpackPacksNumbersAsRedis) {
  const std::pair<const char*, const char*> cases[] = {
      {"0", "00"},
      {"-0.0", "00"},
      {"127", "7f"},
      {"128", "cc80"},
      {"-32", "e0"},
      {"-33", "d0df"},
      {"65536", "ce00010000"},
      {"-32769", "d2ffff7fff"},
      {"2^31", "ce80000000"},
      {"-2^31", "d280000000"},
      {"-2^31-1", "d3ffffffff7fffffff"},
      {"2^32", "cf0000000100000000"},
      {"-2^32", "d3ffffffff00000000"},
      {"2^53", "cf0020000000000000"},
      {"2^53+2", "cf0020000000000002"},
      {"-2^53", "d3ffe0000000000000"},
      {"2^62", "cf4000000000000000"},
      {"2^63-2^10", "cf7ffffffffffffc00"},
      {"-2^63", "d38000000000000000"},
      {"2^63", "ca5f000000"},
      {"-2^63-2^11", "cbc3e0000000000001"},
      {"2^64", "ca5f800000"},
      {"1.5", "ca3fc00000"},
      {"-2.25", "cac0100000"},
      {"0.1", "cb3fb999999999999a"},
      {"1e300", "cb7e37e43c8800759c"},
      {"3.4028234663852886e38", "ca7f7fffff"},
      {"2^-149", "ca00000001"},
      {"1e-40", "cb37a16c262777579c"},
      {"1/0", "ca7f800000"},
      {"-1/0", "caff800000"},
  };
  for (const auto& [number, hex] : cases) {
    const std::string packed = base::FromHex(hex);
    EXPECT_EQ(Eval(std::string("return cmsgpack.pack(") + number + ")"),
              "$" + std::to_string(packed.size()) + "\r\n" + packed + "\r\n")
        << number;
  }
  // As keys and values of tables too; they unpack to the same numbers.
  EXPECT_EQ(Eval("return cmsgpack.pack({2^53})"),
            "$10\r\n" + base::FromHex("91cf0020000000000000") + "\r\n");
  EXPECT_EQ(Eval("return cmsgpack.unpack(cmsgpack.pack(2^62)) == 2^62 and "
                 "cmsgpack.unpack(cmsgpack.pack(-2^63)) == -2^63 and "
                 "cmsgpack.unpack(cmsgpack.pack(2^64)) == 2^64"),
            ":1\r\n");
  EXPECT_EQ(Eval("return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT, "
                 "cmsgpack._DESCRIPTION}"),
            "*4\r\n$8\r\ncmsgpack\r\n$18\r\nlua-cmsgpack 0.4.0\r\n"
            "$40\r\nCopyright (C) 2012, Salvatore Sanfilippo\r\n"
            "$36\r\nMessagePack C implementation for Lua\r\n");
}

// lua-MessagePack is compiled on cmsgpack's first call, not with the state: scripts that never
// pack keep a small heap for the periodic GC step to walk.
TEST_F(LuaEngineTest, CmsgpackLoadsOnFirstUse) {
  const char* collect = "collectgarbage('collect') return collectgarbage('count')";
  EXPECT_EQ(Eval(collect).front(), ':');
  const size_t before = engine.memory_bytes();
  EXPECT_EQ(Eval("return cmsgpack.pack('a')"),
            "$2\r\n\xa1"
            "a\r\n");
  Eval(collect);
  EXPECT_GT(engine.memory_bytes(), before + 30 * 1024);
  // Once loaded, the sandbox is as before: the library's globals are not the script's.
  EXPECT_EQ(Eval("return type(rawget(_G, 'require'))"), "$3\r\nnil\r\n");
}

TEST_F(LuaEngineTest, StructAsRedis) {
  EXPECT_EQ(Eval("return struct.pack('>I2', 258)"), "$2\r\n\x01\x02\r\n");
  EXPECT_EQ(Eval("return {struct.unpack('<i4', struct.pack('<i4', -2))}"), "*2\r\n:-2\r\n:5\r\n");
  EXPECT_EQ(Eval("return {struct.unpack('>i3', '\\255\\255\\254')}"), "*2\r\n:-2\r\n:4\r\n");
  EXPECT_EQ(Eval("return struct.size('!8bd')"), ":16\r\n");
  EXPECT_EQ(Eval("return {struct.unpack('bc0', '\\3abcd')}"), "*2\r\n$3\r\nabc\r\n:5\r\n");
  EXPECT_EQ(Eval("return {struct.unpack('s', 'ab\\0cd')}"), "*2\r\n$2\r\nab\r\n:4\r\n");
  const char* short_data = "return struct.unpack('>I4', 'ab')";
  EXPECT_EQ(
      Eval(short_data),
      Named(short_data, "-ERR user_script:1: bad argument #2 to 'unpack' (data string too short)"));
  const char* bad_option = "return struct.pack('q', 1)";
  EXPECT_EQ(Eval(bad_option),
            Named(bad_option,
                  "-ERR user_script:1: bad argument #1 to 'pack' (invalid format option 'q')"));
}

// redis.set_repl tells the caller whether what follows is logged: REPL_AOF's bit decides.
TEST_F(LuaEngineTest, SetReplSaysWhetherCommandsAreLogged) {
  EXPECT_EQ(Eval("redis.set_repl(redis.REPL_NONE) redis.set_repl(redis.REPL_AOF) "
                 "redis.set_repl(redis.REPL_REPLICA) redis.set_repl(redis.REPL_ALL)"),
            "$-1\r\n");
  EXPECT_EQ(caller.logged, (std::vector<bool>{false, true, false, true}));
  caller.logged.clear();
  const char* bad = "redis.set_repl(4)";
  EXPECT_EQ(Eval(bad), Named(bad,
                             "-ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, "
                             "REPL_ALL or REPL_NONE."));
  EXPECT_TRUE(caller.logged.empty());
}

TEST_F(LuaEngineTest, KillStopsTheScriptEvenThroughPcall) {
  caller.killed = true;
  const char* loop = "while true do pcall(function() while true do end end) end";
  const std::string reply = Eval(loop);
  EXPECT_TRUE(reply.starts_with("-ERR Script killed by user with SCRIPT KILL...")) << reply;
  caller.killed = false;
  EXPECT_EQ(Eval("return 1"), ":1\r\n");
}

TEST_F(LuaEngineTest, ResetForgetsCompiledScripts) {
  EXPECT_EQ(Eval("return 1"), ":1\r\n");
  EXPECT_NE(engine.Compiled(Sha1Hex("return 1")), nullptr);
  engine.Reset(7);
  EXPECT_EQ(engine.generation(), 7u);
  EXPECT_EQ(engine.Compiled(Sha1Hex("return 1")), nullptr);
  EXPECT_GT(engine.memory_bytes(), 0u);
}

TEST(Shebang, ReadsFlagsAsRedis) {
  ScriptFlags flags;
  size_t start = 0;
  EXPECT_EQ(ParseShebang("return 1", &flags, &start), "");
  EXPECT_FALSE(flags.declared);
  EXPECT_EQ(start, 0u);
  EXPECT_EQ(ParseShebang("#!lua flags=no-writes,allow-oom\nreturn 1", &flags, &start), "");
  EXPECT_TRUE(flags.declared && flags.no_writes && flags.allow_oom && !flags.allow_stale);
  EXPECT_EQ(start, 31u);
  EXPECT_EQ(ParseShebang("#!lua\nreturn 1", &flags, &start), "");
  EXPECT_TRUE(flags.declared && !flags.no_writes);
  EXPECT_EQ(ParseShebang("#!lua flags=bad\n", &flags, &start),
            "ERR Unexpected flag in script shebang: bad");
  EXPECT_EQ(ParseShebang("#!lua name=x\n", &flags, &start),
            "ERR Unknown lua shebang option: name=x");
  EXPECT_EQ(ParseShebang("#!luax\n", &flags, &start),
            "ERR Unexpected engine in script shebang: #!luax");
}

}  // namespace
}  // namespace ordis::server::scripting
