// EVAL EVALSHA EVAL_RO EVALSHA_RO SCRIPT, run through the dispatcher; replies checked against
// Redis 7.0's.
#include <gtest/gtest.h>

#include "server/command/client_state.h"
#include "server/commands/family_test_support.h"
#include "server/config/config.h"
#include "server/scripting/script.h"

namespace ordis::server::test {
namespace {

class ScriptingFamilyTest : public FamilyTest {
 protected:
  // "<error> script: <sha of body>, on @user_script:<line>."
  static Reply ScriptErr(std::string_view error, std::string_view sha, int line = 1) {
    return Err(std::string(error) + " script: " + std::string(sha) +
               ", on @user_script:" + std::to_string(line) + ".");
  }
  static std::string Sha(std::string_view body) { return scripting::Sha1Hex(body); }
};

constexpr const char* kReturnOne = "return 1";
constexpr const char* kReturnOneSha = "e0e1f9fabfc9d4800c877a703b823ac0578ff8db";

TEST_F(ScriptingFamilyTest, EvalRunsCommandsWithKeysAndArgs) {
  EXPECT_EQ(Run({"eval", "return redis.call('set', KEYS[1], ARGV[1])", "1", "k", "v"}), Ok());
  EXPECT_EQ(Run({"get", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"eval", "return {KEYS[1], KEYS[2], ARGV[1]}", "2", "a", "b", "c"}),
            Strings({"a", "b", "c"}));
  EXPECT_EQ(Run({"eval", "return redis.call('incrby', KEYS[1], 5) + 1", "1", "n"}), Int(6));
  EXPECT_EQ(Run({"eval", kReturnOne, "x"}), Err("ERR value is not an integer or out of range"));
  EXPECT_EQ(Run({"eval", kReturnOne, "-1"}), Err("ERR Number of keys can't be negative"));
  EXPECT_EQ(Run({"eval", kReturnOne, "2", "a"}),
            Err("ERR Number of keys can't be greater than number of args"));
  EXPECT_EQ(Run({"eval", kReturnOne}), Err("ERR wrong number of arguments for 'eval' command"));
}

TEST_F(ScriptingFamilyTest, ScriptCacheAndEvalSha) {
  EXPECT_EQ(Run({"evalsha", kReturnOneSha, "0"}),
            Err("NOSCRIPT No matching script. Please use EVAL."));
  EXPECT_EQ(Run({"evalsha", "short", "0"}), Err("NOSCRIPT No matching script. Please use EVAL."));
  EXPECT_EQ(Run({"script", "load", kReturnOne}), Bulk(kReturnOneSha));
  EXPECT_EQ(
      Run({"script", "exists", kReturnOneSha, "E0E1F9FABFC9D4800C877A703B823AC0578FF8DB", "nope"}),
      Array({Int(1), Int(1), Int(0)}));
  EXPECT_EQ(Run({"evalsha", kReturnOneSha, "0"}), Int(1));
  const std::string memory = Run({"info", "memory"}).str;
  EXPECT_NE(memory.find("\r\nnumber_of_cached_scripts:1\r\n"), std::string::npos) << memory;
  EXPECT_EQ(memory.find("\r\nused_memory_lua:0\r\n"), std::string::npos) << memory;
  // Another client, as on another thread, finds it in the shared cache.
  EXPECT_EQ(NewClient().Run({"evalsha_ro", kReturnOneSha, "0"}), Int(1));
  EXPECT_EQ(Run({"script", "flush", "bad"}),
            Err("ERR SCRIPT FLUSH only support SYNC|ASYNC option"));
  EXPECT_EQ(Run({"script", "flush", "async"}), Ok());
  EXPECT_EQ(Run({"script", "exists", kReturnOneSha}), Array({Int(0)}));
  EXPECT_EQ(Run({"evalsha", kReturnOneSha, "0"}),
            Err("NOSCRIPT No matching script. Please use EVAL."));
  // EVAL caches what it runs; a script that does not compile is not cached.
  EXPECT_EQ(Run({"eval", kReturnOne, "0"}), Int(1));
  EXPECT_EQ(Run({"script", "exists", kReturnOneSha}), Array({Int(1)}));
  EXPECT_EQ(Run({"script", "load", "syntax error"}),
            Err("ERR Error compiling script (new function): user_script:1: '=' expected near "
                "'error'"));
  EXPECT_EQ(Run({"script", "kill"}), Err("NOTBUSY No scripts in execution right now."));
}

TEST_F(ScriptingFamilyTest, CommandErrorsInScripts) {
  const std::string unknown = "return redis.call('nosuch')";
  EXPECT_EQ(Run({"eval", unknown, "0"}), ScriptErr("ERR Unknown Redis command called from script",
                                                   "206396248e12c6e742fd7296250433c8d7343b74"));
  EXPECT_EQ(Run({"eval", "return redis.pcall('get')", "0"}),
            Err("ERR Wrong number of args calling Redis command from script"));
  const std::string watch = "return redis.call('watch', 'x')";
  EXPECT_EQ(Run({"eval", watch, "0"}),
            ScriptErr("ERR This Redis command is not allowed from script", Sha(watch)));
  EXPECT_EQ(Run({"eval", "return redis.pcall('multi')", "0"}),
            Err("ERR This Redis command is not allowed from script"));
  EXPECT_EQ(Run({"eval_ro", "return redis.call('set','a','b')", "0"}),
            ScriptErr("ERR Write commands are not allowed from read-only scripts.",
                      "ff967d0ae0e68b4f9e360fa91c54598bc25ad9b6"));
  EXPECT_EQ(Run({"eval", "#!lua flags=no-writes\nreturn redis.call('set','a','b')", "0"}),
            ScriptErr("ERR Write commands are not allowed from read-only scripts.",
                      "6acb400a50fe96e33eca4e0af6e9dcfb21193726", 2));
  EXPECT_EQ(Run({"eval_ro", "#!lua\nreturn 1", "0"}),
            Err("ERR Can not execute a script with write flag using *_ro command."));
  EXPECT_EQ(Run({"eval", "#!lua flags=bad\nreturn 1", "0"}),
            Err("ERR Unexpected flag in script shebang: bad"));
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
  EXPECT_EQ(Run({"set", "s", "x"}), Ok());
  const std::string incr = "return redis.call('incr', 's')";
  EXPECT_EQ(Run({"eval", incr, "0"}),
            ScriptErr("ERR value is not an integer or out of range", Sha(incr)));
}

TEST_F(ScriptingFamilyTest, SelectInAScriptIsTheScriptsOwn) {
  EXPECT_EQ(Run({"eval", "redis.call('select', 2); return redis.call('set','q','1')", "0"}), Ok());
  EXPECT_EQ(Run({"get", "q"}), Nil());
  EXPECT_EQ(Run({"select", "2"}), Ok());
  EXPECT_EQ(Run({"get", "q"}), Bulk("1"));
  EXPECT_EQ(Run({"eval", "return redis.call('get','q')", "0"}), Bulk("1"));
}

TEST_F(ScriptingFamilyTest, EvalInsideMulti) {
  EXPECT_EQ(Run({"multi"}), Ok());
  EXPECT_EQ(Run({"eval", "return redis.call('incr','cnt')", "0"}), Status("QUEUED"));
  EXPECT_EQ(Run({"incr", "cnt"}), Status("QUEUED"));
  EXPECT_EQ(Run({"exec"}), Array({Int(1), Int(2)}));
}

TEST_F(ScriptingFamilyTest, RepliesFollowTheCallersProtocol) {
  EXPECT_EQ(Run({"eval", "return false", "0"}), Nil());
  EXPECT_EQ(RunRaw({"eval", "return false", "0"}), "$-1\r\n");
  EXPECT_EQ(Run({"hello", "3"}).type, Reply::Type::kMap);
  EXPECT_EQ(RunRaw({"eval", "return false", "0"}), "_\r\n");
  EXPECT_EQ(RunRaw({"eval", "redis.setresp(3); return false", "0"}), "#f\r\n");
  EXPECT_EQ(RunRaw({"eval", "return {double=3.5}", "0"}), ",3.5\r\n");
  EXPECT_EQ(Run({"hset", "h", "f", "v"}), Int(1));
  EXPECT_EQ(Run({"eval", "redis.setresp(3); return redis.call('hgetall', 'h')", "0"}),
            Map({Bulk("f"), Bulk("v")}));
}

TEST_F(ScriptingFamilyTest, OverMaxmemory) {
  EXPECT_EQ(Run({"set", "k", "v"}), Ok());
  EXPECT_EQ(Run({"config", "set", "maxmemory", "1000000"}), Ok());
  FakeUsedMemory([] { return 2000000; });
  // Without a shebang, the script runs and its denyoom commands are refused.
  EXPECT_EQ(Run({"eval", "return redis.call('set','a','b')", "0"}),
            ScriptErr("OOM command not allowed when used memory > 'maxmemory'.",
                      "ff967d0ae0e68b4f9e360fa91c54598bc25ad9b6"));
  EXPECT_EQ(Run({"eval", "return redis.call('get','k')", "0"}), Bulk("v"));
  // Declared writers are refused whole, unless they allow OOM; no-writes scripts run.
  EXPECT_EQ(Run({"eval", "#!lua\nreturn 1", "0"}),
            Err("OOM command not allowed when used memory > 'maxmemory'."));
  EXPECT_EQ(Run({"eval", "#!lua flags=allow-oom\nreturn redis.call('set','a','b')", "0"}), Ok());
  EXPECT_EQ(Run({"eval", "#!lua flags=no-writes\nreturn redis.call('get','a')", "0"}), Bulk("b"));
  // Once the script has called a write command (here one that changed nothing), its denyoom
  // commands run: stopping it half-way would leave its effects half done.
  EXPECT_EQ(Run({"eval", "redis.call('del','nokey'); return redis.call('set','x','y')", "0"}),
            Ok());
  EXPECT_EQ(Run({"get", "x"}), Bulk("y"));
}

// A read-only script may not publish either: may-replicate commands count as writes.
TEST_F(ScriptingFamilyTest, ReadOnlyScriptsRefuseMayReplicateCommands) {
  const char* publish = "return redis.call('publish','ch','x')";
  EXPECT_EQ(Run({"eval_ro", publish, "0"}),
            ScriptErr("ERR Write commands are not allowed from read-only scripts.", Sha(publish)));
  const std::string no_writes = std::string("#!lua flags=no-writes\n") + publish;
  EXPECT_EQ(
      Run({"eval", no_writes, "0"}),
      ScriptErr("ERR Write commands are not allowed from read-only scripts.", Sha(no_writes), 2));
  EXPECT_EQ(Run({"eval", publish, "0"}), Int(0));
  const char* pfcount = "return redis.call('pfcount','h')";  // it may cache into the key
  EXPECT_EQ(Run({"eval_ro", pfcount, "0"}),
            ScriptErr("ERR Write commands are not allowed from read-only scripts.", Sha(pfcount)));
}

TEST_F(ScriptingFamilyTest, AclAppliesToTheCommandsAScriptCalls) {
  EXPECT_EQ(Run({"acl", "setuser", "u1", "on", "nopass", "~*", "+@all", "-set"}), Ok());
  TestClient& u1 = NewClient();
  EXPECT_EQ(u1.Run({"auth", "u1", "x"}), Ok());
  EXPECT_EQ(u1.Run({"eval", "return redis.call('set','a','b')", "0"}),
            ScriptErr("ERR The user executing the script can't run this command or subcommand",
                      "ff967d0ae0e68b4f9e360fa91c54598bc25ad9b6"));
  EXPECT_EQ(u1.Run({"eval", "return redis.pcall('get','a')", "0"}), Nil());
  EXPECT_EQ(Run({"acl", "setuser", "u2", "on", "nopass", "~k*", "+@all"}), Ok());
  TestClient& u2 = NewClient();
  EXPECT_EQ(u2.Run({"auth", "u2", "x"}), Ok());
  EXPECT_EQ(u2.Run({"eval", "return redis.pcall('get','other')", "0"}),
            Err("ERR The user executing the script can't access at least one of the keys "
                "mentioned in the command arguments"));
}

// Expectations from redis-server 7.0.15 with the same user.
TEST_F(ScriptingFamilyTest, AclCheckCmdAnswersForTheScriptsUser) {
  EXPECT_EQ(Run({"eval", "return redis.acl_check_cmd('config', 'get')", "0"}), Int(1));
  EXPECT_EQ(Run({"acl", "setuser", "u", "on", "nopass", "+eval", "+get", "~a*", "&ch*"}), Ok());
  TestClient& u = NewClient();
  EXPECT_EQ(u.Run({"auth", "u", "x"}), Ok());
  auto check = [&](const std::string& call) {
    return u.Run({"eval", "return redis.acl_check_cmd(" + call + ")", "0"});
  };
  EXPECT_EQ(check("'get', 'abc'"), Int(1));
  EXPECT_EQ(check("'GET', 'b'"), Nil());  // a key the user may not read
  EXPECT_EQ(check("'get'"), Int(1));      // arity is not checked, as in Redis
  EXPECT_EQ(check("'set', 'a', 'v'"), Nil());
  EXPECT_EQ(check("'publish', 'ch1', 'm'"), Nil());
  EXPECT_EQ(check("'config', 'nosuch'"),
            ScriptErr("ERR Invalid command passed to redis.acl_check_cmd()",
                      Sha("return redis.acl_check_cmd('config', 'nosuch')")));
  // Asking is not a denial: nothing in the ACL log, and nothing ran.
  EXPECT_EQ(Run({"acl", "log"}), Array({}));
  EXPECT_EQ(Run({"exists", "a"}), Int(0));
}

TEST_F(ScriptingFamilyTest, CommandsAScriptRunsCountInCommandStats) {
  EXPECT_EQ(Run({"eval", "redis.call('set','a','1'); return redis.call('get','a')", "0"}),
            Bulk("1"));
  const std::string info = Run({"info", "commandstats"}).str;
  EXPECT_NE(info.find("cmdstat_set:calls=1,"), std::string::npos) << info;
  EXPECT_NE(info.find("cmdstat_eval:calls=1,"), std::string::npos) << info;
}

constexpr const char* kLibrary =
    "#!lua name=mylib\n"
    "redis.register_function('myfunc', function(keys, args) return redis.call('set', keys[1], "
    "args[1]) end)\n"
    "redis.register_function{function_name='ro', callback=function(keys, args) return "
    "redis.call('get', keys[1]) end, flags={'no-writes'}, description='reads'}";

TEST_F(ScriptingFamilyTest, FunctionsLoadCallListDelete) {
  EXPECT_EQ(Run({"function", "load", kLibrary}), Bulk("mylib"));
  EXPECT_EQ(Run({"function", "load", kLibrary}), Err("ERR Library 'mylib' already exists"));
  EXPECT_EQ(Run({"function", "load", "replace", kLibrary}), Bulk("mylib"));
  EXPECT_EQ(Run({"fcall", "myfunc", "1", "k", "v"}), Ok());
  EXPECT_EQ(Run({"fcall", "RO", "1", "k"}), Bulk("v"));  // names have no case
  // Another client (as on another thread) loads the library into its own engine.
  EXPECT_EQ(NewClient().Run({"fcall_ro", "ro", "1", "k"}), Bulk("v"));
  EXPECT_EQ(Run({"fcall_ro", "myfunc", "1", "k", "v"}),
            Err("ERR Can not execute a script with write flag using *_ro command."));
  EXPECT_EQ(Run({"fcall", "nosuch", "0"}), Err("ERR Function not found"));
  EXPECT_EQ(Run({"fcall", "myfunc", "x"}), Err("ERR Bad number of keys provided"));
  EXPECT_EQ(
      Run({"function", "list"}),
      Array({Array({Bulk("library_name"), Bulk("mylib"), Bulk("engine"), Bulk("LUA"),
                    Bulk("functions"),
                    Array({Array({Bulk("name"), Bulk("myfunc"), Bulk("description"), Nil(),
                                  Bulk("flags"), Array({})}),
                           Array({Bulk("name"), Bulk("ro"), Bulk("description"), Bulk("reads"),
                                  Bulk("flags"), Array({Status("no-writes")})})})})}));
  EXPECT_EQ(Run({"function", "list", "libraryname", "x*"}), Array({}));
  EXPECT_EQ(Run({"function", "list", "bogus"}), Err("ERR Unknown argument bogus"));
  const std::string memory = Run({"info", "memory"}).str;
  EXPECT_NE(memory.find("\r\nnumber_of_functions:2\r\n"), std::string::npos) << memory;
  EXPECT_EQ(Run({"function", "delete", "nosuch"}), Err("ERR Library not found"));
  EXPECT_EQ(Run({"function", "delete", "mylib"}), Ok());
  EXPECT_EQ(Run({"fcall", "myfunc", "1", "k", "v"}), Err("ERR Function not found"));
}

// As in Redis 7.0: a function's redis table lacks breakpoint, debug and replicate_commands,
// which EVAL's has; the rest is the same, and as read-only.
TEST_F(ScriptingFamilyTest, FunctionsRedisTableHasNoDebugger) {
  const std::string probe =
      "return {type(redis.breakpoint), type(redis.debug), type(redis.replicate_commands), "
      "type(redis.call), type(redis.set_repl), redis.REPL_ALL}";
  EXPECT_EQ(Run({"function", "load",
                 "#!lua name=rt\nredis.register_function('rt', function() " + probe +
                     " end)\n"
                     "redis.register_function('w', function() rawset(redis, 'x', 1) end)"}),
            Bulk("rt"));
  EXPECT_EQ(Run({"fcall", "rt", "0"}), Array({Bulk("nil"), Bulk("nil"), Bulk("nil"),
                                              Bulk("function"), Bulk("function"), Int(3)}));
  EXPECT_EQ(Run({"eval", probe, "0"}), Array({Bulk("function"), Bulk("function"), Bulk("function"),
                                              Bulk("function"), Bulk("function"), Int(3)}));
  EXPECT_EQ(Run({"fcall", "w", "0"}),
            Err("ERR Attempt to modify a readonly table script: w, on @user_function:3."));
}

TEST_F(ScriptingFamilyTest, FunctionLoadErrorsAsRedis) {
  EXPECT_EQ(Run({"function", "load", "return 1"}), Err("ERR Missing library metadata"));
  EXPECT_EQ(Run({"function", "load", "#!lua\nreturn 1"}), Err("ERR Library name was not given"));
  EXPECT_EQ(Run({"function", "load", "#!lua name=x\nreturn 1"}),
            Err("ERR No functions registered"));
  EXPECT_EQ(Run({"function", "load", "#!lua name=z\nredis.call('set','a','b')"}),
            Err("ERR Error registering functions: ERR user_function:2: Script attempted to access "
                "nonexistent global variable 'call'"));
  // The load-time environment holds redis alone (Redis 7.0's), whatever the functions see later.
  EXPECT_EQ(Run({"function", "load",
                 "#!lua name=z2\nlocal s = string redis.register_function('s', function() "
                 "return 1 end)"}),
            Err("ERR Error registering functions: ERR user_function:2: Script attempted to access "
                "nonexistent global variable 'string'"));
  EXPECT_EQ(Run({"function", "load",
                 "#!lua name=z3\nx = 1 redis.register_function('s', function() return 1 end)"}),
            Err("ERR Error registering functions: ERR user_function:2: Attempt to modify a "
                "readonly table"));
  EXPECT_EQ(Run({"function", "load",
                 "#!lua name=z5\nlocal v = redis.LOG_WARNING + redis.REDIS_VERSION_NUM\n"
                 "redis.register_function('s', function() return type(string) end)"}),
            Bulk("z5"));
  EXPECT_EQ(Run({"fcall", "s", "0"}), Bulk("table"));
  EXPECT_EQ(Run({"function", "load", "#!lua name=z4\nsyntax error"}),
            Err("ERR Error compiling function: user_function:2: '=' expected near 'error'"));
  EXPECT_EQ(Run({"function", "load",
                 "#!lua name=z6\nredis.register_function{function_name='g', callback=function() "
                 "return 1 end, flags={'bad'}}"}),
            Err("ERR Error registering functions: ERR unknown flag given"));
  EXPECT_EQ(Run({"function", "load",
                 "#!lua name=y\nredis.register_function('f', function() error('boom') end)"}),
            Bulk("y"));
  EXPECT_EQ(Run({"fcall", "f", "0"}),
            Err("ERR user_function:2: boom script: f, on @user_function:2."));
  EXPECT_EQ(Run({"function", "flush", "bad"}),
            Err("ERR FUNCTION FLUSH only supports SYNC|ASYNC option"));
  EXPECT_EQ(Run({"function", "flush"}), Ok());
  EXPECT_EQ(Run({"function", "list"}), Array({}));
  EXPECT_EQ(Run({"function", "kill"}), Err("NOTBUSY No scripts in execution right now."));
}

}  // namespace
}  // namespace ordis::server::test
