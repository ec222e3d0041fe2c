#include "server/config/config.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace ordis::server {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

std::string Cwd() {
  char buf[4096];
  return getcwd(buf, sizeof(buf)) ? std::string(buf) : std::string();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

// Each test gets a fresh directory for its config files, and the working directory back (CONFIG
// SET dir changes it).
class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cwd_ = Cwd();
    std::string tmpl = ::testing::TempDir() + "ordis_config_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    ASSERT_EQ(chdir(cwd_.c_str()), 0);
    std::string cmd = "rm -rf '" + dir_ + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  // Runs LoadCommandLine on {"ordis-server", args...}.
  static void Load(Config* config, const std::vector<std::string>& args) {
    std::vector<std::string> owned = {"ordis-server"};
    owned.insert(owned.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : owned) argv.push_back(a.data());
    argv.push_back(nullptr);
    config->LoadCommandLine(static_cast<int>(owned.size()), argv.data());
  }

  std::string cwd_;
  std::string dir_;
};

TEST_F(ConfigTest, Defaults) {
  Config c;
  EXPECT_EQ(c.port(), 6379);
  EXPECT_EQ(c.databases(), 16);
  EXPECT_EQ(c.maxclients(), 10000);
  EXPECT_EQ(c.timeout_s(), 0);
  EXPECT_EQ(c.proto_max_bulk_len(), 512LL * 1024 * 1024);
  EXPECT_EQ(c.Value("requirepass"), "");
  EXPECT_FALSE(c.lfu_policy());
  unsigned cores = std::thread::hardware_concurrency();
  EXPECT_EQ(c.threads(), cores == 0 ? 1 : static_cast<int>(cores));
  EXPECT_EQ(c.Value("port"), "6379");
  EXPECT_EQ(c.Value("maxmemory-policy"), "noeviction");
  EXPECT_EQ(c.Value("maxmemory"), "0");
  EXPECT_EQ(c.Value("appendonly"), "no");
  EXPECT_EQ(c.Value("save"), "3600 1 300 100 60 10000");
  EXPECT_EQ(c.Value("client-output-buffer-limit"),
            "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  EXPECT_EQ(c.Value("dir"), Cwd());
  EXPECT_EQ(c.Value("no-such-parameter"), "");
  EXPECT_EQ(c.config_file(), "");
  OutputBufferLimit normal = c.normal_output_limit();
  EXPECT_EQ(normal.hard_bytes, 0);
  EXPECT_EQ(normal.soft_bytes, 0);
  EXPECT_EQ(normal.soft_seconds, 0);
  EXPECT_EQ(c.bind_addresses(), std::vector<std::string>{"127.0.0.1"});
}

TEST_F(ConfigTest, FileThenFlagsOverride) {
  std::string file = Path("ordis.conf");
  WriteFile(file,
            "# a comment\n"
            "\n"
            "   # an indented comment\n"
            "port 7000\n"
            "maxclients 50\n"
            "MAXMEMORY-POLICY allkeys-LRU\n"
            "requirepass \"a b\"\n"
            "save 900 1 300 10\n"
            "bind 127.0.0.1 ::1\n"
            "proto-max-bulk-len 2mb\n"
            "timeout 5\n");
  Config c;
  Load(&c, {file, "--maxclients", "60", "--save", "100", "5", "--TIMEOUT", "7"});
  EXPECT_EQ(c.config_file(), file);
  EXPECT_EQ(c.port(), 7000);            // from the file, though immutable at runtime
  EXPECT_EQ(c.maxclients(), 60);        // the flag overrides the file
  EXPECT_EQ(c.timeout_s(), 7);          // flag names are case-insensitive
  EXPECT_EQ(c.Value("save"), "100 5");  // a flag's value runs to the next "--"
  EXPECT_EQ(c.Value("maxmemory-policy"), "allkeys-lru");
  EXPECT_EQ(c.Value("requirepass"), "a b");
  EXPECT_EQ(c.Value("requirepass"), "a b");
  EXPECT_EQ(c.bind_addresses(), (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_EQ(c.proto_max_bulk_len(), 2 * 1024 * 1024);
  EXPECT_EQ(c.Value("proto-max-bulk-len"), "2097152");
}

TEST_F(ConfigTest, FlagsWithoutFile) {
  Config c;
  Load(&c, {"--port", "7001", "--databases", "4", "--requirepass", "secret"});
  EXPECT_EQ(c.port(), 7001);
  EXPECT_EQ(c.databases(), 4);
  EXPECT_EQ(c.Value("requirepass"), "secret");
  EXPECT_EQ(c.config_file(), "");
}

TEST_F(ConfigTest, Include) {
  WriteFile(Path("base.conf"), "maxclients 77\nhz 20\n");
  WriteFile(Path("main.conf"), "include " + Path("base.conf") + "\nhz 30\n");
  Config c;
  Load(&c, {Path("main.conf")});
  EXPECT_EQ(c.maxclients(), 77);
  EXPECT_EQ(c.Value("hz"), "30");  // later lines win
  EXPECT_EQ(c.config_file(), Path("main.conf"));
}

TEST_F(ConfigTest, StartupErrorsThrow) {
  {
    Config c;
    EXPECT_THROW(Load(&c, {Path("missing.conf")}), ConfigError);
  }
  {
    WriteFile(Path("bad.conf"), "port 7000\nbogus-directive 1\n");
    Config c;
    try {
      Load(&c, {Path("bad.conf")});
      ADD_FAILURE() << "expected ConfigError";
    } catch (const ConfigError& e) {
      std::string what = e.what();
      EXPECT_NE(what.find("at line 2"), std::string::npos) << what;
      EXPECT_NE(what.find("bogus-directive"), std::string::npos) << what;
      EXPECT_NE(what.find("Bad directive"), std::string::npos) << what;
    }
  }
  {
    WriteFile(Path("quotes.conf"), "requirepass \"unbalanced\n");
    Config c;
    EXPECT_THROW(Load(&c, {Path("quotes.conf")}), ConfigError);
  }
  {
    WriteFile(Path("range.conf"), "port 70000\n");
    Config c;
    EXPECT_THROW(Load(&c, {Path("range.conf")}), ConfigError);
  }
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--port", "abc"},
                                             {"--port"},
                                             {"--port", "-1"},
                                             {"--no-such-flag", "1"},
                                             {"--maxclients", "10", "stray"},  // "10 stray"
                                             {"--"},
                                             {"--appendonly", "maybe"}}) {
    Config c;
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_THROW(Load(&c, args), ConfigError) << joined;
  }
  {
    Config c;
    EXPECT_THROW(Load(&c, {Path("missing.conf"), "--port", "1"}), ConfigError);
    WriteFile(Path("ok.conf"), "hz 11\n");
    // Only the first argument may be a file; a later bare word is an error.
    EXPECT_THROW(Load(&c, {Path("ok.conf"), "port", "1"}), ConfigError);
  }
}

TEST_F(ConfigTest, SetErrorTextsAsRedis) {
  Config c;
  EXPECT_EQ(c.Set({{"foo", "1"}}),
            "ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
  EXPECT_EQ(c.Set({{"maxclients", "abc"}}),
            "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument "
            "couldn't be parsed into an integer");
  EXPECT_EQ(c.Set({{"maxclients", "0"}}),
            "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must "
            "be between 1 and 4294967295 inclusive");
  EXPECT_EQ(c.Set({{"port", "7000"}}),
            "ERR CONFIG SET failed (possibly related to argument 'port') - can't set immutable "
            "config");
  EXPECT_EQ(c.Set({{"appendonly", "maybe"}}),
            "ERR CONFIG SET failed (possibly related to argument 'appendonly') - argument must "
            "be 'yes' or 'no'");
  EXPECT_EQ(c.Set({{"maxmemory", "lots"}}),
            "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be "
            "a memory value");
  EXPECT_EQ(c.Set({{"appendfsync", "sometimes"}}),
            "ERR CONFIG SET failed (possibly related to argument 'appendfsync') - argument(s) "
            "must be one of the following: everysec, always, no");
  EXPECT_EQ(c.Set({{"maxclients", "10"}, {"MaxClients", "20"}}),
            "ERR CONFIG SET failed (possibly related to argument 'MaxClients') - duplicate "
            "parameter");
  // The name in the error is the one the client sent.
  EXPECT_EQ(c.Set({{"MAXCLIENTS", "x"}}),
            "ERR CONFIG SET failed (possibly related to argument 'MAXCLIENTS') - argument "
            "couldn't be parsed into an integer");
  EXPECT_EQ(c.Value("maxclients"), "10000");
}

TEST_F(ConfigTest, SetAppliesAndCanonicalizes) {
  Config c;
  EXPECT_EQ(c.Set({}), "");
  EXPECT_EQ(c.Set({{"MAXCLIENTS", "123"},
                   {"timeout", "30"},
                   {"maxmemory", "1mb"},
                   {"appendonly", "YES"},
                   {"maxmemory-policy", "ALLKEYS-LFU"},
                   {"save", "900 1"},
                   {"requirepass", "pw"}}),
            "");
  EXPECT_EQ(c.maxclients(), 123);
  EXPECT_EQ(c.Value("maxclients"), "123");
  EXPECT_EQ(c.timeout_s(), 30);
  EXPECT_EQ(c.Value("maxmemory"), "1048576");
  EXPECT_EQ(c.Value("appendonly"), "yes");
  EXPECT_EQ(c.Value("maxmemory-policy"), "allkeys-lfu");
  EXPECT_TRUE(c.lfu_policy());
  EXPECT_EQ(c.Value("save"), "900 1");
  EXPECT_EQ(c.Value("requirepass"), "pw");
  // Clearing the password turns auth off.
  EXPECT_EQ(c.Set({{"requirepass", ""}}), "");
  EXPECT_EQ(c.Value("requirepass"), "");
  EXPECT_EQ(c.Set({{"maxmemory-policy", "volatile-lru"}}), "");
  EXPECT_FALSE(c.lfu_policy());
  EXPECT_EQ(c.Set({{"save", ""}}), "");
  EXPECT_EQ(c.Value("save"), "");
  EXPECT_NE(c.Set({{"save", "900"}}), "");
  EXPECT_NE(c.Set({{"save", "900 -1"}}), "");
  EXPECT_EQ(c.Set({{"proto-max-bulk-len", "1048576"}}), "");
  EXPECT_EQ(c.proto_max_bulk_len(), 1048576);
  EXPECT_NE(c.Set({{"proto-max-bulk-len", "1000"}}), "");  // below Redis's 1mb minimum
  EXPECT_EQ(c.proto_max_bulk_len(), 1048576);
}

TEST_F(ConfigTest, SetIsAllOrNothing) {
  Config c;
  std::string err = c.Set({{"maxclients", "100"}, {"timeout", "abc"}, {"hz", "20"}});
  EXPECT_EQ(err,
            "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument couldn't be "
            "parsed into an integer");
  EXPECT_EQ(c.maxclients(), 10000);
  EXPECT_EQ(c.Value("maxclients"), "10000");
  EXPECT_EQ(c.Value("hz"), "10");
  // An unknown name anywhere in the list also changes nothing.
  EXPECT_NE(c.Set({{"maxclients", "100"}, {"nope", "1"}}), "");
  EXPECT_EQ(c.maxclients(), 10000);
  // An immutable one too.
  EXPECT_NE(c.Set({{"maxclients", "100"}, {"databases", "2"}}), "");
  EXPECT_EQ(c.maxclients(), 10000);
  EXPECT_EQ(c.databases(), 16);
}

// "dir" is checked only when applied (chdir); a failure there still rolls back the others.
TEST_F(ConfigTest, SetDirAndRollbackOnDirFailure) {
  Config c;
  EXPECT_EQ(c.Set({{"dir", dir_}}, /*protected_allowed=*/true), "");
  char real[4096];
  ASSERT_NE(realpath(dir_.c_str(), real), nullptr);
  EXPECT_EQ(c.Value("dir"), real);
  EXPECT_EQ(Cwd(), real);

  std::string err = c.Set({{"timeout", "5"}, {"dir", dir_ + "/does/not/exist"}}, true);
  EXPECT_EQ(err,
            "ERR CONFIG SET failed (possibly related to argument 'dir') - No such file or "
            "directory");
  EXPECT_EQ(c.timeout_s(), 0);
  EXPECT_EQ(c.Value("timeout"), "0");
  EXPECT_EQ(c.Value("dir"), real);
}

// Regression: Config::Set rolls back values_ when applying "dir" fails, but not changed_, so a
// later CONFIG REWRITE writes the rejected value of every parameter applied before "dir" in the
// same CONFIG SET (here "timeout 5", though CONFIG GET timeout says 0).
TEST_F(ConfigTest, RewriteAfterFailedSetWritesNothingRejected) {
  std::string file = Path("ordis.conf");
  WriteFile(file, "maxclients 50\n");
  Config c;
  Load(&c, {file});
  EXPECT_NE(c.Set({{"timeout", "5"}, {"dir", dir_ + "/does/not/exist"}}, true), "");
  EXPECT_EQ(c.Value("timeout"), "0");
  EXPECT_EQ(c.Rewrite(), "");
  std::string text = ReadFile(file);
  EXPECT_EQ(text.find("timeout"), std::string::npos) << text;
  Config reloaded;
  Load(&reloaded, {file});
  EXPECT_EQ(reloaded.timeout_s(), 0);
}

TEST_F(ConfigTest, GetWithGlobPatterns) {
  Config c;
  auto port = c.Get({"port"});
  ASSERT_EQ(port.size(), 1u);
  EXPECT_EQ(port[0], (std::pair<std::string, std::string>{"port", "6379"}));
  // Case-insensitive patterns; a parameter matching several patterns appears once.
  EXPECT_EQ(c.Get({"PORT", "port", "p*t"}).size(), 1u);
  EXPECT_TRUE(c.Get({"no-such-*"}).empty());
  EXPECT_TRUE(c.Get({}).empty());

  auto max = c.Get({"max*"});
  std::vector<std::string> names;
  for (const auto& [name, value] : max) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"maxclients", "maxmemory", "maxmemory-clients",
                                             "maxmemory-eviction-tenacity", "maxmemory-policy",
                                             "maxmemory-samples"}));
  EXPECT_EQ(max[0].second, "10000");

  auto all = c.Get({"*"});
  EXPECT_GT(all.size(), 40u);
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].first, all[i].first);
  // Every parameter Get reports has the same value through Value().
  for (const auto& [name, value] : all) EXPECT_EQ(c.Value(name), value) << name;
  // Help lists every parameter.
  std::string help = Config::Help();
  for (const auto& [name, value] : all) {
    EXPECT_NE(help.find("  " + name + " (default: "), std::string::npos) << name;
  }
  EXPECT_NE(help.find("port (default: 6379) [start-up only]"), std::string::npos) << help;

  auto two = c.Get({"timeout", "hz"});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].first, "hz");  // in name order
  EXPECT_EQ(two[1].first, "timeout");
  EXPECT_EQ(c.Get({"[ht]*z"}).size(), 1u);  // "hz"
}

TEST_F(ConfigTest, ClientOutputBufferLimit) {
  Config c;
  EXPECT_EQ(c.Set({{"client-output-buffer-limit", "normal 1mb 512kb 60"}}), "");
  EXPECT_EQ(c.Value("client-output-buffer-limit"),
            "normal 1048576 524288 60 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  OutputBufferLimit normal = c.normal_output_limit();
  EXPECT_EQ(normal.hard_bytes, 1048576);
  EXPECT_EQ(normal.soft_bytes, 524288);
  EXPECT_EQ(normal.soft_seconds, 60);

  // Classes not named keep their limits; "replica" is "slave"; case does not matter.
  EXPECT_EQ(c.Set({{"client-output-buffer-limit", "REPLICA 1gb 0 0 pubsub 10 20 30"}}), "");
  EXPECT_EQ(c.Value("client-output-buffer-limit"),
            "normal 1048576 524288 60 slave 1073741824 0 0 pubsub 10 20 30");
  EXPECT_EQ(c.normal_output_limit().hard_bytes, 1048576);

  EXPECT_EQ(c.Set({{"client-output-buffer-limit", "normal 0 0 0"}}), "");
  EXPECT_EQ(c.normal_output_limit().hard_bytes, 0);
  EXPECT_EQ(c.normal_output_limit().soft_seconds, 0);

  const std::string prefix =
      "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - ";
  EXPECT_EQ(c.Set({{"client-output-buffer-limit", "normal 1 2"}}),
            prefix + "Wrong number of arguments in buffer limit configuration.");
  EXPECT_EQ(c.Set({{"client-output-buffer-limit", ""}}),
            prefix + "Wrong number of arguments in buffer limit configuration.");
  EXPECT_EQ(c.Set({{"client-output-buffer-limit", "master 1 2 3"}}),
            prefix + "Invalid client class specified in buffer limit configuration.");
  EXPECT_EQ(c.Set({{"client-output-buffer-limit", "normal -1 0 0"}}),
            prefix + "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
  EXPECT_EQ(c.Set({{"client-output-buffer-limit", "normal 1 2 x"}}),
            prefix + "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
  EXPECT_EQ(c.Set({{"client-output-buffer-limit", "normal 1 2 3 pubsub 1 2"}}),
            prefix + "Wrong number of arguments in buffer limit configuration.");
  // A rejected update leaves every class as it was.
  EXPECT_EQ(c.Value("client-output-buffer-limit"),
            "normal 0 0 0 slave 1073741824 0 0 pubsub 10 20 30");

  // From a file, merged over the defaults.
  WriteFile(Path("obl.conf"), "client-output-buffer-limit normal 4kb 2kb 5\n");
  Config f;
  Load(&f, {Path("obl.conf")});
  EXPECT_EQ(f.Value("client-output-buffer-limit"),
            "normal 4096 2048 5 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
  EXPECT_EQ(f.normal_output_limit().soft_bytes, 2048);
}

TEST_F(ConfigTest, RewriteWithoutFileFails) {
  Config c;
  EXPECT_EQ(c.Rewrite(), "ERR The server is running without a config file");
}

TEST_F(ConfigTest, RewriteKeepsCommentsAndReplacesInPlace) {
  std::string file = Path("ordis.conf");
  WriteFile(file,
            "# top comment\n"
            "port 7002\n"
            "maxclients 50\n"
            "# middle comment\n"
            "hz 20\n"
            "maxclients 51\n");
  Config c;
  Load(&c, {file});
  EXPECT_EQ(c.maxclients(), 51);
  ASSERT_EQ(c.Set({{"maxclients", "99"}, {"timeout", "12"}, {"maxmemory", "2mb"}}), "");
  ASSERT_EQ(c.Rewrite(), "");
  EXPECT_EQ(ReadFile(file),
            "# top comment\n"
            "port 7002\n"
            "maxclients 99\n"
            "# middle comment\n"
            "hz 20\n"
            "# Generated by CONFIG REWRITE\n"
            "maxmemory 2097152\n"
            "timeout 12\n");
  // A second rewrite is stable.
  ASSERT_EQ(c.Rewrite(), "");
  std::string once = ReadFile(file);
  ASSERT_EQ(c.Rewrite(), "");
  EXPECT_EQ(ReadFile(file), once);
  // The file loads back to the same values.
  Config reloaded;
  Load(&reloaded, {file});
  EXPECT_EQ(reloaded.port(), 7002);
  EXPECT_EQ(reloaded.maxclients(), 99);
  EXPECT_EQ(reloaded.timeout_s(), 12);
  EXPECT_EQ(reloaded.Value("maxmemory"), "2097152");
  EXPECT_EQ(reloaded.Value("hz"), "20");
  // No temporary file is left behind.
  EXPECT_FALSE(std::ifstream(file + ".tmp").good());
}

TEST_F(ConfigTest, RewriteRoundTripsPlainStrings) {
  std::string file = Path("ordis.conf");
  WriteFile(file, "");
  Config c;
  Load(&c, {file});
  ASSERT_EQ(c.Set({{"requirepass", "s3cret"},
                   {"save", "900 1 300 10"},
                   {"client-output-buffer-limit", "normal 1mb 1mb 0"}}),
            "");
  ASSERT_EQ(c.Rewrite(), "");
  Config reloaded;
  Load(&reloaded, {file});
  for (const char* name : {"requirepass", "save", "client-output-buffer-limit"}) {
    EXPECT_EQ(reloaded.Value(name), c.Value(name)) << name;
  }
  // An empty string is written as "" and reads back empty.
  ASSERT_EQ(c.Set({{"requirepass", ""}}), "");
  ASSERT_EQ(c.Rewrite(), "");
  Config again;
  Load(&again, {file});
  EXPECT_EQ(again.Value("requirepass"), "");
}

// Regression: Config::Rewrite writes string values verbatim, without quoting as Redis's rewrite
// does (sdscatrepr), so a value with a quote, a leading/trailing space or a run of spaces cannot be
// read back: here the password `pa"ss word` makes the rewritten file fail to load ("Unbalanced
// quotes"), which would stop the server at its next start.
TEST_F(ConfigTest, RewriteQuotesStrings) {
  std::string file = Path("ordis.conf");
  WriteFile(file, "");
  Config c;
  Load(&c, {file});
  ASSERT_EQ(c.Set({{"requirepass", "pa\"ss  word "}}), "");
  ASSERT_EQ(c.Rewrite(), "");
  Config reloaded;
  ASSERT_NO_THROW(Load(&reloaded, {file})) << ReadFile(file);
  EXPECT_EQ(reloaded.Value("requirepass"), "pa\"ss  word ");
}

TEST_F(ConfigTest, IndexDefaultsAreLearnedStoreDefaults) {
  Config c;
  EXPECT_EQ(c.Value("index"), "learned");
  EXPECT_TRUE(c.learned_index());
  EXPECT_EQ(c.Value("index-leaf-error"), "8");
  EXPECT_EQ(c.Value("index-inner-error"), "4");
  EXPECT_EQ(c.Value("index-leaf-capacity"), "128");
  EXPECT_EQ(c.Value("index-insert-buffer"), "32");
  EXPECT_EQ(c.Value("index-patcher-threads"), "1");
  EXPECT_EQ(c.Value("index-hot-cache"), "yes");
  // The table's defaults are the struct's: one place to change a default would otherwise drift.
  index::LearnedStoreOptions want;
  index::LearnedStoreOptions got = c.learned_store_options();
  EXPECT_EQ(got.leaf_error, want.leaf_error);
  EXPECT_EQ(got.inner_error, want.inner_error);
  EXPECT_EQ(got.leaf_capacity, want.leaf_capacity);
  EXPECT_EQ(got.insert_buffer, want.insert_buffer);
  EXPECT_EQ(got.patcher_threads, want.patcher_threads);
  EXPECT_EQ(got.hot_cache, want.hot_cache);
}

TEST_F(ConfigTest, IndexParametersFromFileAndFlags) {
  WriteFile(Path("ordis.conf"), "index-leaf-error 2\nindex-insert-buffer 4\nindex-hot-cache no\n");
  Config c;
  Load(&c, {Path("ordis.conf"), "--index-leaf-capacity", "16", "--index-inner-error", "16",
            "--index-patcher-threads", "3", "--INDEX", "MAP"});
  EXPECT_EQ(c.Value("index"), "map");
  EXPECT_FALSE(c.learned_index());
  index::LearnedStoreOptions o = c.learned_store_options();
  EXPECT_EQ(o.leaf_error, 2);
  EXPECT_EQ(o.inner_error, 16);
  EXPECT_EQ(o.leaf_capacity, 16);
  EXPECT_EQ(o.insert_buffer, 4);
  EXPECT_EQ(o.patcher_threads, 3);
  EXPECT_FALSE(o.hot_cache);
  // The leaf error must stay below the leaf capacity, whichever comes first.
  Config later;
  Load(&later, {"--index-leaf-error", "100", "--index-leaf-capacity", "101"});
  EXPECT_EQ(later.learned_store_options().leaf_error, 100);
}

TEST_F(ConfigTest, IndexStartupErrors) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--index", "btree"},
           {"--index-leaf-error", "0"},
           {"--index-leaf-error", "1025"},
           {"--index-inner-error", "0"},
           {"--index-leaf-capacity", "7"},
           {"--index-leaf-capacity", "4097"},
           {"--index-insert-buffer", "0"},
           {"--index-insert-buffer", "1025"},
           {"--index-patcher-threads", "0"},
           {"--index-patcher-threads", "65"},
           {"--index-hot-cache", "maybe"},
           {"--index-leaf-error", "16", "--index-leaf-capacity", "16"},
           {"--index-leaf-capacity", "8"}}) {  // the default leaf error is 8
    Config c;
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_THROW(Load(&c, args), ConfigError) << joined;
  }
  WriteFile(Path("bad.conf"), "index-leaf-capacity 16\nindex-leaf-error 20\n");
  Config c;
  try {
    Load(&c, {Path("bad.conf")});
    ADD_FAILURE() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "index-leaf-error (20) must be less than index-leaf-capacity (16)");
  }
}

TEST_F(ConfigTest, IndexParametersAreImmutable) {
  Config c;
  for (const char* name : {"index", "index-leaf-error", "index-inner-error", "index-leaf-capacity",
                           "index-insert-buffer", "index-patcher-threads", "index-hot-cache"}) {
    std::string before = c.Value(name);
    EXPECT_EQ(c.Set({{name, before}}), "ERR CONFIG SET failed (possibly related to argument '" +
                                           std::string(name) + "') - can't set immutable config");
    EXPECT_EQ(c.Value(name), before);
  }
  EXPECT_EQ(c.Set({{"index-leaf-error", "4"}}),
            "ERR CONFIG SET failed (possibly related to argument 'index-leaf-error') - can't set "
            "immutable config");
  EXPECT_EQ(c.Set({{"timeout", "5"}, {"index", "map"}}),
            "ERR CONFIG SET failed (possibly related to argument 'index') - can't set immutable "
            "config");
  EXPECT_EQ(c.timeout_s(), 0);
  EXPECT_EQ(c.Value("index"), "learned");
  std::string help = Config::Help();
  EXPECT_NE(help.find("  index (default: learned) [start-up only]\n"), std::string::npos) << help;
  EXPECT_NE(help.find("  index-leaf-error (default: 8) [start-up only]\n"), std::string::npos);
  EXPECT_NE(help.find("  index-hot-cache (default: yes) [start-up only]\n"), std::string::npos);
}

// Redis 7's protected configs: dir and dbfilename only when enable-protected-configs allows the
// client (the caller decides, from the setting and the client's address).
TEST_F(ConfigTest, ProtectedConfigsNeedPermission) {
  Config c;
  EXPECT_EQ(c.Set({{"dbfilename", "evil.sh"}}),
            "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set "
            "protected config");
  EXPECT_EQ(c.Set({{"timeout", "5"}, {"dir", dir_}}),
            "ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected "
            "config");
  EXPECT_EQ(c.timeout_s(), 0);  // all or nothing
  EXPECT_EQ(c.Value("dbfilename"), "dump.osnap");
  EXPECT_EQ(c.Set({{"dbfilename", "other.osnap"}}, /*protected_allowed=*/true), "");
  EXPECT_EQ(c.Value("dbfilename"), "other.osnap");
  EXPECT_EQ(c.Set({{"enable-protected-configs", "yes"}}, true),
            "ERR CONFIG SET failed (possibly related to argument 'enable-protected-configs') - "
            "can't set immutable config");
}

TEST_F(ConfigTest, FileNamesAreNeverPaths) {
  Config c;
  EXPECT_EQ(c.Set({{"dbfilename", "../escape.osnap"}}, true),
            "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - dbfilename can't "
            "be a path, just a filename");
  EXPECT_EQ(c.Set({{"dbfilename", "a\\b"}}, true),
            "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - dbfilename can't "
            "be a path, just a filename");
  Config from_flags;
  EXPECT_THROW(Load(&from_flags, {"--appendfilename", "dir/log.aof"}), ConfigError);
  Config dirname;
  try {
    Load(&dirname, {"--appenddirname", "/tmp/x"});
    ADD_FAILURE() << "accepted a path";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("appenddirname can't be a path, just a dirname"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(ConfigTest, RenameCommandKeepsEmptyNames) {
  std::string file = Path("ordis.conf");
  WriteFile(file, "rename-command CONFIG \"\"\nrename-command get get2\n");
  Config c;
  Load(&c, {file, "--rename-command", "SET", ""});
  using Renames = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(c.command_renames(), (Renames{{"CONFIG", ""}, {"get", "get2"}, {"SET", ""}}));
  std::string bad = Path("bad.conf");
  WriteFile(bad, "rename-command CONFIG\n");
  Config d;
  EXPECT_THROW(Load(&d, {bad}), ConfigError);
}

// Raising the soft limit within the hard one always works; the fit reports it as Redis logs it.
TEST_F(ConfigTest, DescriptorLimitRaisedWithinHardLimit) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < 2048) GTEST_SKIP() << "hard limit";
  rlimit low{256, saved.rlim_max};
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  DescriptorFit fit = FitDescriptorLimit(1000, 36);
  rlimit now{};
  getrlimit(RLIMIT_NOFILE, &now);
  setrlimit(RLIMIT_NOFILE, &saved);
  EXPECT_EQ(fit.maxclients, 1000);
  EXPECT_FALSE(fit.too_low);
  EXPECT_TRUE(fit.warnings.empty());
  ASSERT_EQ(fit.notices.size(), 1u);
  EXPECT_EQ(fit.notices[0],
            "Increased maximum number of open files to 1036 (it was originally set to 256).");
  EXPECT_EQ(now.rlim_cur, 1036u);
  // Already enough: nothing to say.
  DescriptorFit enough = FitDescriptorLimit(10, 36);
  EXPECT_TRUE(enough.notices.empty() && enough.warnings.empty());
}

std::string SetError(const std::string& name, const std::string& why) {
  return "ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why;
}

// Redis 7.0's older names read and write their parameter's one value, and patterns list both.
TEST_F(ConfigTest, AliasesShareTheirParametersValue) {
  Config c;
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"replicaof", "slaveof"},
      {"replica-read-only", "slave-read-only"},
      {"replica-serve-stale-data", "slave-serve-stale-data"},
      {"replica-ignore-maxmemory", "slave-ignore-maxmemory"},
      {"replica-lazy-flush", "slave-lazy-flush"},
      {"replica-priority", "slave-priority"},
      {"replica-announce-ip", "slave-announce-ip"},
      {"replica-announce-port", "slave-announce-port"},
      {"min-replicas-to-write", "min-slaves-to-write"},
      {"min-replicas-max-lag", "min-slaves-max-lag"},
      {"repl-ping-replica-period", "repl-ping-slave-period"},
      {"cluster-replica-no-failover", "cluster-slave-no-failover"},
      {"cluster-replica-validity-factor", "cluster-slave-validity-factor"},
      {"hash-max-listpack-entries", "hash-max-ziplist-entries"},
      {"hash-max-listpack-value", "hash-max-ziplist-value"},
      {"zset-max-listpack-entries", "zset-max-ziplist-entries"},
      {"zset-max-listpack-value", "zset-max-ziplist-value"},
      {"list-max-listpack-size", "list-max-ziplist-size"},
      {"busy-reply-threshold", "lua-time-limit"}};
  auto all = c.Get({"*"});
  for (const auto& [name, alias] : pairs) {
    EXPECT_EQ(c.Value(alias), c.Value(name)) << alias;
    EXPECT_EQ(
        std::count_if(all.begin(), all.end(), [&](const auto& kv) { return kv.first == alias; }), 1)
        << alias;
  }
  EXPECT_EQ(c.Set({{"slave-read-only", "no"}}), "");
  EXPECT_EQ(c.Value("replica-read-only"), "no");
  EXPECT_EQ(c.Set({{"replica-read-only", "yes"}}), "");
  EXPECT_EQ(c.Value("slave-read-only"), "yes");
  EXPECT_EQ(c.Get({"*read-only"}),
            (Pairs{{"replica-read-only", "yes"}, {"slave-read-only", "yes"}}));
  // Two names of one parameter in one CONFIG SET are not duplicates: the later one wins.
  EXPECT_EQ(c.Set({{"lua-time-limit", "100"}, {"busy-reply-threshold", "200"}}), "");
  EXPECT_EQ(c.busy_reply_threshold_ms(), 200);
  EXPECT_EQ(c.Value("lua-time-limit"), "200");
  EXPECT_EQ(c.Set({{"zset-max-ziplist-entries", "7"}, {"zset-max-ziplist-value", "1kb"}}), "");
  EXPECT_EQ(c.zset_max_listpack_entries(), 7);
  EXPECT_EQ(c.zset_max_listpack_value(), 1024);
  // An alias's error names the alias; a bad value changes neither name.
  EXPECT_EQ(c.Set({{"slave-priority", "-1"}}),
            SetError("slave-priority", "argument must be between 0 and 2147483647 inclusive"));
  EXPECT_EQ(c.Value("replica-priority"), "100");
  EXPECT_EQ(c.Set({{"slaveof", "127.0.0.1 6380"}}),
            SetError("slaveof", "can't set immutable config"));
  // From files and flags.
  WriteFile(Path("alias.conf"), "slave-priority 5\nhash-max-ziplist-value 1k\n");
  Config f;
  Load(&f, {Path("alias.conf"), "--LIST-MAX-ZIPLIST-SIZE", "-3", "--slaveof", "localhost", "7000"});
  EXPECT_EQ(f.Value("replica-priority"), "5");
  EXPECT_EQ(f.Value("hash-max-listpack-value"), "1000");
  EXPECT_EQ(f.Value("list-max-listpack-size"), "-3");
  EXPECT_EQ(f.Value("replicaof"), "localhost 7000");
  EXPECT_EQ(f.Value("slaveof"), "localhost 7000");
}

TEST_F(ConfigTest, RewriteReplacesAnAliasLine) {
  std::string file = Path("ordis.conf");
  WriteFile(file, "slave-read-only yes\nlua-time-limit 100\n");
  Config c;
  Load(&c, {file});
  EXPECT_EQ(c.busy_reply_threshold_ms(), 100);
  ASSERT_EQ(c.Set({{"replica-read-only", "no"}, {"busy-reply-threshold", "300"}}), "");
  ASSERT_EQ(c.Rewrite(), "");
  EXPECT_EQ(ReadFile(file), "replica-read-only no\nbusy-reply-threshold 300\n");
  Config reloaded;
  Load(&reloaded, {file});
  EXPECT_EQ(reloaded.Value("slave-read-only"), "no");
  EXPECT_EQ(reloaded.busy_reply_threshold_ms(), 300);
}

// A plain name is reported as it was asked (Redis 7.0), once whatever its case.
TEST_F(ConfigTest, GetReportsAPlainNameAsAsked) {
  Config c;
  EXPECT_EQ(c.Get({"MaxMemory"}), (Pairs{{"MaxMemory", "0"}}));
  EXPECT_EQ(c.Get({"MAXMEMORY", "maxmemory", "max*ory"}), (Pairs{{"MAXMEMORY", "0"}}));
  EXPECT_EQ(c.Get({"Slave-Priority"}), (Pairs{{"Slave-Priority", "100"}}));
}

// Redis's debugging parameters answer only to their exact names.
TEST_F(ConfigTest, HiddenParametersNeedTheirExactName) {
  Config c;
  for (const char* name :
       {"key-load-delay", "rdb-key-save-delay", "loading-process-events-interval-bytes"}) {
    EXPECT_EQ(c.Get({name}).size(), 1u) << name;
    EXPECT_TRUE(c.Get({std::string(name) + "*"}).empty()) << name;
  }
  auto all = c.Get({"*"});
  for (const auto& [name, value] : all) EXPECT_NE(name, "key-load-delay");
  EXPECT_EQ(c.Set({{"key-load-delay", "-5"}}), "");
  EXPECT_EQ(c.Value("key-load-delay"), "-5");
  EXPECT_EQ(c.Set({{"loading-process-events-interval-bytes", "1k"}}),
            SetError("loading-process-events-interval-bytes",
                     "argument couldn't be parsed into an integer"));
  EXPECT_EQ(c.Set({{"loading-process-events-interval-bytes", "1000"}}),
            SetError("loading-process-events-interval-bytes",
                     "argument must be between 1024 and 2147483647 inclusive"));
}

// Redis's memtoull: "k" is 1000 and "kb" 1024, any case; no digits reads 0; no sign.
TEST_F(ConfigTest, MemoryValuesAsRedis) {
  Config c;
  const std::vector<std::pair<std::string, std::string>> accepted = {
      {"1gb", "1073741824"}, {"100mb", "104857600"},
      {"4k", "4000"},        {"4kb", "4096"},
      {"1KB", "1024"},       {"2G", "2000000000"},
      {"3m", "3000000"},     {"7b", "7"},
      {"007", "7"},          {"", "0"},
      {"kb", "0"},           {"12345", "12345"}};
  for (const auto& [value, bytes] : accepted) {
    EXPECT_EQ(c.Set({{"maxmemory", value}}), "") << value;
    EXPECT_EQ(c.Value("maxmemory"), bytes) << value;
  }
  for (const char* value : {"-1", "-0", "+5", " 5", "5 ", "1tb", "1.5", "0x10", "1 k", "1e3"}) {
    EXPECT_EQ(c.Set({{"maxmemory", value}}),
              SetError("maxmemory", "argument must be a memory value"))
        << value;
  }
  // maxmemory is unsigned (to 2^64 - 1); a signed parameter reads a larger count as negative.
  EXPECT_EQ(c.Set({{"maxmemory", "18446744073709551615"}}), "");
  EXPECT_EQ(c.Value("maxmemory"), "18446744073709551615");
  EXPECT_EQ(c.maxmemory(), 0);  // so large a limit is none
  EXPECT_EQ(c.Set({{"maxmemory", "99999999999999999999"}}), "");
  EXPECT_EQ(c.Value("maxmemory"), "18446744073709551615");
  EXPECT_EQ(c.Set({{"maxmemory", "1mb"}}), "");
  EXPECT_EQ(c.maxmemory(), 1 << 20);
  EXPECT_EQ(c.Set({{"stream-node-max-bytes", "99999999999999999999"}}),
            SetError("stream-node-max-bytes",
                     "argument must be between 0 and 9223372036854775807 inclusive"));
  EXPECT_EQ(c.Set({{"stream-node-max-bytes", "8kb"}}), "");
  EXPECT_EQ(c.stream_node_max_bytes(), 8192);
  EXPECT_EQ(c.Set({{"client-query-buffer-limit", "1k"}}),
            SetError("client-query-buffer-limit",
                     "argument must be between 1048576 and 9223372036854775807 inclusive"));
  EXPECT_EQ(c.Set({{"hll-sparse-max-bytes", "4k"}}), "");
  EXPECT_EQ(c.Value("hll-sparse-max-bytes"), "4000");
}

TEST_F(ConfigTest, PercentOfMaxmemory) {
  Config c;
  EXPECT_EQ(c.Set({{"maxmemory-clients", "10%"}}), "");
  EXPECT_EQ(c.Value("maxmemory-clients"), "10%");
  EXPECT_EQ(c.Set({{"maxmemory-clients", "100%"}}), "");
  EXPECT_EQ(c.Value("maxmemory-clients"), "100%");
  EXPECT_EQ(c.Set({{"maxmemory-clients", "101%"}}),
            SetError("maxmemory-clients", "percentage argument must be less or equal to 100"));
  for (const char* value : {"-5%", "%", "x%", "1.5%", "abc"}) {
    EXPECT_EQ(c.Set({{"maxmemory-clients", value}}),
              SetError("maxmemory-clients", "argument must be a memory or percent value"))
        << value;
  }
  EXPECT_EQ(c.Value("maxmemory-clients"), "100%");
  EXPECT_EQ(c.Set({{"maxmemory-clients", "0%"}}), "");
  EXPECT_EQ(c.Value("maxmemory-clients"), "0");
  EXPECT_EQ(c.Set({{"maxmemory-clients", "1kb"}}), "");
  EXPECT_EQ(c.Value("maxmemory-clients"), "1024");
}

TEST_F(ConfigTest, IntegersAsRedis) {
  Config c;
  for (const char* value : {"", "+5", "007", "-0", " 5", "1k", "5.0", "99999999999999999999"}) {
    EXPECT_EQ(c.Set({{"timeout", value}}),
              SetError("timeout", "argument couldn't be parsed into an integer"))
        << value;
  }
  // hz: any int accepted, held within 1..500.
  EXPECT_EQ(c.Set({{"hz", "1000"}}), "");
  EXPECT_EQ(c.Value("hz"), "500");
  EXPECT_EQ(c.Set({{"hz", "0"}}), "");
  EXPECT_EQ(c.Value("hz"), "1");
  EXPECT_EQ(c.Set({{"hz", "-1"}}),
            SetError("hz", "argument must be between 0 and 2147483647 inclusive"));
  EXPECT_EQ(c.Set({{"list-max-listpack-size", "-2147483649"}}),
            SetError("list-max-listpack-size",
                     "argument must be between -2147483648 and 2147483647 inclusive"));
  EXPECT_EQ(c.Set({{"active-defrag-cycle-max", "100"}}),
            SetError("active-defrag-cycle-max", "argument must be between 1 and 99 inclusive"));
  EXPECT_EQ(c.Set({{"acllog-max-len", "9223372036854775807"}}), "");
  Config flags;
  EXPECT_THROW(Load(&flags, {"--socket-mark-id", "4294967296"}), ConfigError);
  Load(&flags, {"--socket-mark-id", "4294967295", "--hz", "9999"});
  EXPECT_EQ(flags.Value("hz"), "500");
}

TEST_F(ConfigTest, EnumsAsRedis) {
  Config c;
  EXPECT_EQ(c.Set({{"oom-score-adj", "RELATIVE"}}), "");
  EXPECT_EQ(c.Value("oom-score-adj"), "yes");  // Redis reports the first name of the value
  EXPECT_EQ(c.Set({{"oom-score-adj", "absolute"}}), "");
  EXPECT_EQ(c.Value("oom-score-adj"), "absolute");
  EXPECT_EQ(c.Set({{"repl-diskless-load", "x"}}),
            SetError("repl-diskless-load",
                     "argument(s) must be one of the following: disabled, on-empty-db, swapdb"));
  EXPECT_EQ(c.Set({{"tls-auth-clients", "Optional"}}), "");
  EXPECT_EQ(c.Value("tls-auth-clients"), "optional");
  Config f;
  try {
    Load(&f, {"--syslog-facility", "local8"});
    ADD_FAILURE() << "accepted local8";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("argument(s) must be one of the following: user, local0, "
                                         "local1, local2, local3, local4, local5, local6, local7"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(ConfigTest, ShutdownFlags) {
  Config c;
  EXPECT_EQ(c.Value("shutdown-on-sigint"), "default");
  EXPECT_EQ(c.Set({{"shutdown-on-sigint", "NOSAVE force now"}}), "");
  EXPECT_EQ(c.Value("shutdown-on-sigint"), "nosave now force");
  EXPECT_EQ(c.Set({{"shutdown-on-sigterm", "default save"}}), "");
  EXPECT_EQ(c.Value("shutdown-on-sigterm"), "save");
  EXPECT_EQ(c.Set({{"shutdown-on-sigterm", "save nosave"}}),
            SetError("shutdown-on-sigterm",
                     "shutdown options SAVE and NOSAVE can't be used simultaneously"));
  const std::string choices =
      "argument(s) must be one of the following: default, save, nosave, now, force";
  for (const char* value : {"", "later", "save  now", " save"}) {
    EXPECT_EQ(c.Set({{"shutdown-on-sigterm", value}}), SetError("shutdown-on-sigterm", choices))
        << value;
  }
  EXPECT_EQ(c.Value("shutdown-on-sigterm"), "save");
  Config f;
  Load(&f, {"--shutdown-on-sigint", "now", "save"});
  EXPECT_EQ(f.Value("shutdown-on-sigint"), "save now");
}

TEST_F(ConfigTest, LatencyPercentiles) {
  Config c;
  EXPECT_EQ(c.Value("latency-tracking-info-percentiles"), "50 99 99.9");
  const std::vector<std::pair<std::string, std::string>> accepted = {{"99.12345678", "99.123457"},
                                                                     {"50.0 99.00 1e1", "50 99 10"},
                                                                     {"-0", "-0"},
                                                                     {"1e-7", "0"},
                                                                     {"+5 0x10", "5 16"},
                                                                     {"100 0", "100 0"},
                                                                     {"", ""}};
  for (const auto& [value, text] : accepted) {
    EXPECT_EQ(c.Set({{"latency-tracking-info-percentiles", value}}), "") << value;
    EXPECT_EQ(c.Value("latency-tracking-info-percentiles"), text) << value;
  }
  for (const char* value : {"x", "nan", " 5", "5 ", "50,99", "5  5"}) {
    EXPECT_EQ(c.Set({{"latency-tracking-info-percentiles", value}}),
              SetError("latency-tracking-info-percentiles",
                       "Invalid latency-tracking-info-percentiles parameters"))
        << value;
  }
  for (const char* value : {"inf", "100.0000001", "-1", "50 101"}) {
    EXPECT_EQ(c.Set({{"latency-tracking-info-percentiles", value}}),
              SetError("latency-tracking-info-percentiles",
                       "latency-tracking-info-percentiles parameters should sit between "
                       "[0.0,100.0]"))
        << value;
  }
  EXPECT_EQ(c.Value("latency-tracking-info-percentiles"), "");
}

TEST_F(ConfigTest, OomScoreAdjValues) {
  Config c;
  EXPECT_EQ(c.Set({{"oom-score-adj-values", "007 +1 -2000"}}), "");
  EXPECT_EQ(c.Value("oom-score-adj-values"), "7 1 -2000");
  for (const char* value : {"1 2", "1 2 3 4", " 1 2 3", "1 2 3 ", ""}) {
    EXPECT_EQ(c.Set({{"oom-score-adj-values", value}}),
              SetError("oom-score-adj-values", "wrong number of arguments"))
        << value;
  }
  for (const char* value : {"1.0 2 3", "a b c", "0 2001 0", "1 2 99999999999999999999"}) {
    EXPECT_EQ(c.Set({{"oom-score-adj-values", value}}),
              SetError("oom-score-adj-values",
                       "Invalid oom-score-adj-values, elements must be between -2000 and 2000."))
        << value;
  }
  EXPECT_EQ(c.Value("oom-score-adj-values"), "7 1 -2000");
  EXPECT_EQ(c.Set({{"oom-score-adj-values", "1  2"}}), "");  // the empty word reads 0
  EXPECT_EQ(c.Value("oom-score-adj-values"), "1 0 2");
}

TEST_F(ConfigTest, ReplicaofAndOctal) {
  Config c;
  Load(&c, {"--replicaof", "NO", "ONE", "--unixsocketperm", "0700"});
  EXPECT_EQ(c.Value("replicaof"), "");
  EXPECT_EQ(c.Value("unixsocketperm"), "700");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--replicaof", "host"},
                                             {"--replicaof", "host", "1", "2"},
                                             {"--slaveof", "host", "65536"},
                                             {"--slaveof", "host", "x"},
                                             {"--unixsocketperm", "8"},
                                             {"--unixsocketperm", "1000"}}) {
    Config bad;
    EXPECT_THROW(Load(&bad, args), ConfigError) << args[0] << " " << args[1];
  }
  Config perm;
  try {
    Load(&perm, {"--unixsocketperm", "1000"});
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("argument must be between 0 and 777 inclusive"),
              std::string::npos)
        << e.what();
  }
  Config port;
  try {
    Load(&port, {"--replicaof", "host", "-1"});
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("Invalid master port"), std::string::npos) << e.what();
  }
}

TEST_F(ConfigTest, ValidatedStrings) {
  Config c;
  EXPECT_EQ(c.Set({{"cluster-announce-hostname", "A-b.c9"}}), "");
  EXPECT_EQ(c.Set({{"cluster-announce-hostname", "a_b"}}),
            SetError("cluster-announce-hostname",
                     "Hostnames may only contain alphanumeric characters, hyphens or dots"));
  EXPECT_EQ(c.Set({{"cluster-announce-hostname", std::string(255, 'a')}}), "");
  EXPECT_EQ(c.Set({{"cluster-announce-hostname", std::string(256, 'a')}}),
            SetError("cluster-announce-hostname", "Hostnames must be less than 256 characters"));
  const std::string invalid = "template format is invalid or contains unknown variables";
  for (const char* t : {"{port}", "abc", " abc ", "{{}}", "}", "a}b", "{title}{port}",
                        "{config-file}", "{listen-addr}", "{title} {listen-addr} {server-mode}"}) {
    EXPECT_EQ(c.Set({{"proc-title-template", t}}), "") << t;
  }
  for (const char* t : {"{title}", "{title} ", "{title", "x}{", "{}", "{TITLE} x", "",
                        "{server-mode}", "{unixsocket}"}) {
    EXPECT_EQ(c.Set({{"proc-title-template", t}}), SetError("proc-title-template", invalid)) << t;
  }
}

// Redis checks every name (unknown, immutable, protected, duplicate) before any value.
TEST_F(ConfigTest, SetChecksNamesBeforeValues) {
  Config c;
  EXPECT_EQ(c.Set({{"timeout", "abc"}, {"foo", "1"}}),
            "ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
  EXPECT_EQ(c.Set({{"timeout", "abc"}, {"daemonize", "no"}}),
            SetError("daemonize", "can't set immutable config"));
  EXPECT_EQ(c.Set({{"timeout", "abc"}, {"timeout", "5"}}),
            SetError("timeout", "duplicate parameter"));
  EXPECT_EQ(c.Set({{"timeout", "5"}, {"hz", "20"}, {"slave-read-only", "maybe"}}),
            SetError("slave-read-only", "argument must be 'yes' or 'no'"));
  EXPECT_EQ(c.timeout_s(), 0);
  EXPECT_EQ(c.Value("hz"), "10");
  for (const char* name : {"daemonize", "rdbchecksum", "replicaof", "unixsocketperm", "io-threads",
                           "cluster-enabled", "syslog-ident", "set-proc-title", "disable-thp",
                           "server_cpulist", "cluster-config-file", "socket-mark-id"}) {
    EXPECT_EQ(c.Set({{name, c.Value(name)}}), SetError(name, "can't set immutable config")) << name;
  }
}

// Names Redis 7.0 still reads from files (one value, ignored) but no longer knows otherwise.
TEST_F(ConfigTest, DeprecatedDirectivesAreIgnored) {
  WriteFile(Path("old.conf"), "list-max-ziplist-entries 512\nlist-max-ziplist-value 64\n");
  Config c;
  Load(&c, {Path("old.conf"), "--lua-replicate-commands", "yes"});
  EXPECT_TRUE(c.Get({"list-max-ziplist-entries", "lua-replicate-commands"}).empty());
  EXPECT_EQ(c.Set({{"lua-replicate-commands", "yes"}}),
            "ERR Unknown option or number of arguments for CONFIG SET - 'lua-replicate-commands'");
  Config two;
  EXPECT_THROW(Load(&two, {"--list-max-ziplist-entries", "5", "6"}), ConfigError);
}

// --help marks what has no effect, and nothing ordis reads.
TEST_F(ConfigTest, HelpMarksWhatHasNoEffect) {
  std::string help = Config::Help();
  const std::string no_effect = " [accepted for Redis compatibility; no effect yet]\n";
  EXPECT_NE(help.find("  tls-port (default: 0)" + no_effect), std::string::npos) << help;
  EXPECT_NE(help.find("  slave-read-only (default: yes) [alias of replica-read-only]" + no_effect),
            std::string::npos);
  EXPECT_NE(help.find("  lua-time-limit (default: 5000) [alias of busy-reply-threshold]\n"),
            std::string::npos);
  for (const char* used :
       {"hash-max-listpack-entries", "hash-max-listpack-value", "set-max-intset-entries",
        "list-max-listpack-size", "zset-max-listpack-value", "hll-sparse-max-bytes",
        "latency-tracking-info-percentiles", "stream-node-max-bytes", "busy-reply-threshold",
        "protected-mode", "tcp-backlog"}) {
    size_t at = help.find(std::string("  ") + used + " (default: ");
    ASSERT_NE(at, std::string::npos) << used;
    std::string line = help.substr(at, help.find('\n', at) - at + 1);
    EXPECT_EQ(line.find("no effect"), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace ordis::server
