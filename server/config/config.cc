#include "server/config/config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <span>
#include <sstream>
#include <thread>

#include "base/glob.h"
#include "base/keyspace_events.h"
#include "base/logging.h"
#include "base/number.h"
#include "base/split_args.h"

namespace ordis::server {

// kKeyspaceEvents: notify-keyspace-events's class letters (base/keyspace_events.h); the kinds
// after it are syntaxes of Redis 7.0's own.
enum class Kind {
  kInt,
  kMemory,
  kBool,
  kString,
  kEnum,
  kOutputLimit,
  kSave,
  kKeyspaceEvents,
  kOctal,           // unixsocketperm: an octal number, printed in octal
  kShutdownFlags,   // shutdown-on-sig*: "default" or any of save|nosave, now, force
  kPercentiles,     // latency-tracking-info-percentiles: numbers 0..100, printed as "%f" trimmed
  kOomScoreValues,  // oom-score-adj-values: three integers -2000..2000
  kReplicaOf,       // replicaof: "<host> <port>", or "no one" (none, read back "")
};

// One row of the parameter table. Rows are written with designated initializers and name only the
// fields that differ from the defaults below.
struct Config::Param {
  std::string_view name;
  // Redis 7.0's older name for the same parameter (slave-* for replica-*, *-ziplist-* for
  // *-listpack-*, lua-time-limit): it reads and writes the same value, and CONFIG GET patterns
  // list both names, as Redis does.
  std::string_view alias = {};
  Kind kind;
  std::string_view default_value;
  // kInt, kMemory and kOctal: the inclusive bounds.
  int64_t min = 0;
  int64_t max = INT64_MAX;
  // kEnum: the accepted values, in the order the error message lists them.
  std::vector<std::string_view> choices = {};
  // Set only from the config file or the command line: CONFIG SET refuses it ("can't set
  // immutable config") and --help marks it [start-up only]. Otherwise CONFIG SET may change it.
  bool startup_only = false;
  // Accepted and reported for Redis compatibility, without effect in ordis yet (--help says so).
  bool no_effect_yet = false;
  // Redis's PROTECTED_CONFIG: CONFIG SET refuses it unless enable-protected-configs allows the
  // client (a writable dir and file name are how attackers make a server write a file of theirs).
  bool protected_config = false;
  // kString: a file or directory name inside dir, never a path ("filename" or "dirname" in the
  // error).
  std::string_view plain_name = {};
  // kMemory: the range is 0..2^64-1 (Redis's unsigned long long parameters), printed unsigned.
  bool unsigned_range = false;
  // kMemory: "N%" (N at most 100) is also accepted, and read back as such (maxmemory-clients).
  bool percent = false;
  // kInt: a value accepted within min..max is then held within these (hz: 0..INT_MAX, kept 1..500).
  int64_t clamp_min = INT64_MIN;
  int64_t clamp_max = INT64_MAX;
  // kEnum: a choice that reads back as an earlier synonym: {choice, as}.
  std::vector<std::pair<std::string_view, std::string_view>> synonyms = {};
  // Redis's debugging parameters: only CONFIG GET of the exact name shows them, never a pattern.
  bool hidden = false;
  // kString: "" or the reason the value is invalid.
  std::string (*check)(std::string_view value) = nullptr;
};

namespace {

std::string DefaultThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return std::to_string(n == 0 ? 1 : n);
}

// cluster-announce-hostname: what Redis 7.0 lets a node announce.
std::string CheckHostname(std::string_view name) {
  if (name.size() >= 256) return "Hostnames must be less than 256 characters";
  for (unsigned char c : name) {
    if (!std::isalnum(c) && c != '-' && c != '.') {
      return "Hostnames may only contain alphanumeric characters, hyphens or dots";
    }
  }
  return "";
}

// proc-title-template: "{{" and "}}" stand for braces, "{name}" for one of Redis's variables, a
// lone "}" for itself. Redis refuses a template that names anything else or that, with an empty
// title (and the server mode, empty outside cluster and sentinel), leaves only spaces.
std::string CheckProcTitleTemplate(std::string_view text) {
  static constexpr std::string_view kInvalid =
      "template format is invalid or contains unknown variables";
  // The variables and whether each expands to something when Redis checks a template.
  static constexpr std::pair<std::string_view, bool> kVariables[] = {
      {"title", false}, {"server-mode", false}, {"unixsocket", false}, {"listen-addr", true},
      {"port", true},   {"tls-port", true},     {"config-file", true}};
  bool printable = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      printable = true;
      ++i;
    } else if (c == '{') {
      size_t close = text.find('}', i + 1);
      if (close == std::string_view::npos) return std::string(kInvalid);
      std::string_view var = text.substr(i + 1, close - i - 1);
      const auto* known = std::find_if(std::begin(kVariables), std::end(kVariables),
                                       [&](const auto& v) { return v.first == var; });
      if (known == std::end(kVariables)) return std::string(kInvalid);
      printable |= known->second;
      i = close;
    } else {
      if (c == '}' && i + 1 < text.size() && text[i + 1] == '}') ++i;
      printable |= c != ' ';
    }
  }
  return printable ? "" : std::string(kInvalid);
}

const std::vector<Config::Param>& Params() {
  // One row per parameter, wrapped at 100 columns (clang-format would put each field on a line).
  // clang-format off
  static const std::vector<Config::Param> params = {
      // Parameters ordis implements.
      {.name = "port", .kind = Kind::kInt, .default_value = "6379", .max = 65535,
       .startup_only = true},
      {.name = "bind", .kind = Kind::kString, .default_value = "127.0.0.1", .startup_only = true},
      // Without a password for the default user, serve only local clients (net/session.h).
      {.name = "protected-mode", .kind = Kind::kBool, .default_value = "yes"},
      // Default (set by Config()): the number of cores.
      {.name = "threads", .kind = Kind::kInt, .default_value = "", .min = 1, .max = 256,
       .startup_only = true},
      // ordis only: threads beyond the first take connections only while the active ones are
      // saturated and the machine has idle CPU (ThreadBalancer); no: spread over all from the
      // start.
      {.name = "adaptive-threads", .kind = Kind::kBool, .default_value = "yes"},
      // The default user's password (acl::Users::SetRequirePass); "" makes it nopass.
      {.name = "requirepass", .kind = Kind::kString, .default_value = ""},
      {.name = "aclfile", .kind = Kind::kString, .default_value = "", .startup_only = true},
      {.name = "acllog-max-len", .kind = Kind::kInt, .default_value = "128"},
      {.name = "acl-pubsub-default", .kind = Kind::kEnum, .default_value = "resetchannels",
       .choices = {"allchannels", "resetchannels"}},
      {.name = "maxclients", .kind = Kind::kInt, .default_value = "10000", .min = 1,
       .max = UINT32_MAX},
      {.name = "timeout", .kind = Kind::kInt, .default_value = "0", .max = INT32_MAX},
      // Default (set by Config()): the working directory at start.
      {.name = "dir", .kind = Kind::kString, .default_value = "", .protected_config = true},
      // Redis allows up to INT_MAX; the keyspace's key prefix holds a database in one byte.
      {.name = "databases", .kind = Kind::kInt, .default_value = "16", .min = 1, .max = 256,
       .startup_only = true},
      {.name = "proto-max-bulk-len", .kind = Kind::kMemory, .default_value = "536870912",
       .min = 1024 * 1024},
      {.name = "client-query-buffer-limit", .kind = Kind::kMemory, .default_value = "1073741824",
       .min = 1024 * 1024},
      {.name = "client-output-buffer-limit", .kind = Kind::kOutputLimit,
       .default_value = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
      // Beyond 2^63 (Redis takes up to 2^64-1) the mirror reads 0, no limit: what such a limit is.
      {.name = "maxmemory", .kind = Kind::kMemory, .default_value = "0", .unsigned_range = true},
      {.name = "maxmemory-policy", .kind = Kind::kEnum, .default_value = "noeviction",
       .choices = {"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru",
                   "allkeys-lfu", "allkeys-random", "noeviction"}},
      // Which deletions free large values on the lazy-free thread (server/keyspace/lazy_free.h).
      {.name = "lazyfree-lazy-eviction", .kind = Kind::kBool, .default_value = "no"},
      {.name = "lazyfree-lazy-expire", .kind = Kind::kBool, .default_value = "no"},
      {.name = "lazyfree-lazy-server-del", .kind = Kind::kBool, .default_value = "no"},
      {.name = "lazyfree-lazy-user-del", .kind = Kind::kBool, .default_value = "no"},
      {.name = "lazyfree-lazy-user-flush", .kind = Kind::kBool, .default_value = "no"},
      // The ordered index (index/): which store, and the learned tree's LearnedStoreOptions.
      {.name = "index", .kind = Kind::kEnum, .default_value = "learned",
       .choices = {"learned", "map"}, .startup_only = true},
      {.name = "index-leaf-error", .kind = Kind::kInt, .default_value = "8", .min = 1, .max = 1024,
       .startup_only = true},
      {.name = "index-inner-error", .kind = Kind::kInt, .default_value = "4", .min = 1, .max = 1024,
       .startup_only = true},
      {.name = "index-leaf-capacity", .kind = Kind::kInt, .default_value = "128", .min = 8,
       .max = 4096, .startup_only = true},
      {.name = "index-insert-buffer", .kind = Kind::kInt, .default_value = "32", .min = 1,
       .max = 1024, .startup_only = true},
      {.name = "index-patcher-threads", .kind = Kind::kInt, .default_value = "1", .min = 1,
       .max = 64, .startup_only = true},
      {.name = "index-hot-cache", .kind = Kind::kBool, .default_value = "yes",
       .startup_only = true},
      // The cold tier (issue 14, server/keyspace/cold_tier.h): off while tier-dir is empty.
      {.name = "tier-dir", .kind = Kind::kString, .default_value = "", .startup_only = true},
      // At most 16384 segments of 4 MB: what a cold object's packed location can point into.
      {.name = "tier-max-size", .kind = Kind::kMemory, .default_value = "1073741824",
       .min = 4 << 20, .max = int64_t{1} << 36, .startup_only = true},
      {.name = "tier-min-value-size", .kind = Kind::kInt, .default_value = "64", .min = 1,
       .max = INT32_MAX, .startup_only = true},
      // no: every cold value a command needs is read synchronously (to compare with prefetch).
      {.name = "tier-prefetch", .kind = Kind::kBool, .default_value = "yes"},
      {.name = "save", .kind = Kind::kSave, .default_value = "3600 1 300 100 60 10000"},
      {.name = "appendonly", .kind = Kind::kBool, .default_value = "no"},
      {.name = "appendfsync", .kind = Kind::kEnum, .default_value = "everysec",
       .choices = {"everysec", "always", "no"}},
      {.name = "appendfilename", .kind = Kind::kString, .default_value = "appendonly.aof",
       .startup_only = true, .plain_name = "filename"},
      {.name = "appenddirname", .kind = Kind::kString, .default_value = "appendonlydir",
       .startup_only = true, .plain_name = "dirname"},
      // Not "dump.rdb": the file is ordis's own format, which Redis tools must not mistake for RDB.
      {.name = "dbfilename", .kind = Kind::kString, .default_value = "dump.osnap",
       .protected_config = true, .plain_name = "filename"},
      {.name = "loglevel", .kind = Kind::kEnum, .default_value = "notice",
       .choices = {"debug", "verbose", "notice", "warning"}},
      {.name = "logfile", .kind = Kind::kString, .default_value = "", .startup_only = true},
      {.name = "tcp-backlog", .kind = Kind::kInt, .default_value = "511", .max = INT32_MAX,
       .startup_only = true},
      // Redis allows up to INT_MAX; the eviction sampler counts samples in an int per burst.
      {.name = "maxmemory-samples", .kind = Kind::kInt, .default_value = "5", .min = 1, .max = 64},
      {.name = "lfu-log-factor", .kind = Kind::kInt, .default_value = "10", .max = INT32_MAX},
      {.name = "lfu-decay-time", .kind = Kind::kInt, .default_value = "1", .max = INT32_MAX},
      {.name = "slowlog-log-slower-than", .kind = Kind::kInt, .default_value = "10000", .min = -1},
      {.name = "slowlog-max-len", .kind = Kind::kInt, .default_value = "128"},
      {.name = "latency-monitor-threshold", .kind = Kind::kInt, .default_value = "0"},
      {.name = "latency-tracking", .kind = Kind::kBool, .default_value = "yes"},
      // INFO latencystats reports these percentiles of each command's latency.
      {.name = "latency-tracking-info-percentiles", .kind = Kind::kPercentiles,
       .default_value = "50 99 99.9"},
      {.name = "notify-keyspace-events", .kind = Kind::kKeyspaceEvents, .default_value = ""},
      {.name = "aof-load-truncated", .kind = Kind::kBool, .default_value = "yes"},
      // ordis only: load the records before corruption in the middle of the log (else refuse).
      {.name = "aof-load-corrupted", .kind = Kind::kBool, .default_value = "no"},
      {.name = "auto-aof-rewrite-percentage", .kind = Kind::kInt, .default_value = "100",
       .max = INT32_MAX},
      {.name = "auto-aof-rewrite-min-size", .kind = Kind::kMemory, .default_value = "67108864"},
      // Encodings: zsets' here, the others' in what DUMP, OBJECT ENCODING and RDB files show.
      {.name = "hash-max-listpack-entries", .alias = "hash-max-ziplist-entries", .kind = Kind::kInt,
       .default_value = "512"},
      {.name = "hash-max-listpack-value", .alias = "hash-max-ziplist-value", .kind = Kind::kMemory,
       .default_value = "64"},
      {.name = "zset-max-listpack-entries", .alias = "zset-max-ziplist-entries", .kind = Kind::kInt,
       .default_value = "128"},
      {.name = "zset-max-listpack-value", .alias = "zset-max-ziplist-value", .kind = Kind::kMemory,
       .default_value = "64"},
      {.name = "hll-sparse-max-bytes", .kind = Kind::kMemory, .default_value = "3000"},
      {.name = "stream-node-max-bytes", .kind = Kind::kMemory, .default_value = "4096"},
      {.name = "stream-node-max-entries", .kind = Kind::kInt, .default_value = "100"},
      {.name = "set-max-intset-entries", .kind = Kind::kInt, .default_value = "512"},
      {.name = "list-max-listpack-size", .alias = "list-max-ziplist-size", .kind = Kind::kInt,
       .default_value = "-2", .min = INT32_MIN, .max = INT32_MAX},
      // How long a script runs before others get BUSY.
      {.name = "busy-reply-threshold", .alias = "lua-time-limit", .kind = Kind::kInt,
       .default_value = "5000"},
      {.name = "enable-debug-command", .kind = Kind::kEnum, .default_value = "no",
       .choices = {"no", "yes", "local"}, .startup_only = true},
      {.name = "enable-protected-configs", .kind = Kind::kEnum, .default_value = "no",
       .choices = {"no", "yes", "local"}, .startup_only = true},
      // ordis has no modules (and no MODULE command): accepted so Redis 7 files load.
      {.name = "enable-module-command", .kind = Kind::kEnum, .default_value = "no",
       .choices = {"no", "yes", "local"}, .startup_only = true},

      // Redis 7.0 parameters accepted and reported, without effect in ordis yet (README lists
      // them). General and process.
      {.name = "daemonize", .kind = Kind::kBool, .default_value = "no", .startup_only = true,
       .no_effect_yet = true},
      {.name = "pidfile", .kind = Kind::kString, .default_value = "", .startup_only = true,
       .no_effect_yet = true},
      {.name = "supervised", .kind = Kind::kEnum, .default_value = "no",
       .choices = {"upstart", "systemd", "auto", "no"}, .startup_only = true,
       .no_effect_yet = true},
      {.name = "always-show-logo", .kind = Kind::kBool, .default_value = "no", .startup_only = true,
       .no_effect_yet = true},
      {.name = "set-proc-title", .kind = Kind::kBool, .default_value = "yes", .startup_only = true,
       .no_effect_yet = true},
      {.name = "proc-title-template", .kind = Kind::kString,
       .default_value = "{title} {listen-addr} {server-mode}", .no_effect_yet = true,
       .check = CheckProcTitleTemplate},
      {.name = "syslog-enabled", .kind = Kind::kBool, .default_value = "no", .startup_only = true,
       .no_effect_yet = true},
      {.name = "syslog-ident", .kind = Kind::kString, .default_value = "redis",
       .startup_only = true, .no_effect_yet = true},
      {.name = "syslog-facility", .kind = Kind::kEnum, .default_value = "local0",
       .choices = {"user", "local0", "local1", "local2", "local3", "local4", "local5", "local6",
                   "local7"}, .startup_only = true, .no_effect_yet = true},
      {.name = "crash-log-enabled", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "crash-memcheck-enabled", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "disable-thp", .kind = Kind::kBool, .default_value = "yes", .startup_only = true,
       .no_effect_yet = true},
      {.name = "jemalloc-bg-thread", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "oom-score-adj", .kind = Kind::kEnum, .default_value = "no",
       .choices = {"no", "yes", "relative", "absolute"}, .no_effect_yet = true,
       .synonyms = {{"relative", "yes"}}},
      {.name = "oom-score-adj-values", .kind = Kind::kOomScoreValues, .default_value = "0 200 800",
       .no_effect_yet = true},
      {.name = "server_cpulist", .kind = Kind::kString, .default_value = "", .startup_only = true,
       .no_effect_yet = true},
      {.name = "bio_cpulist", .kind = Kind::kString, .default_value = "", .startup_only = true,
       .no_effect_yet = true},
      {.name = "aof_rewrite_cpulist", .kind = Kind::kString, .default_value = "",
       .startup_only = true, .no_effect_yet = true},
      {.name = "bgsave_cpulist", .kind = Kind::kString, .default_value = "", .startup_only = true,
       .no_effect_yet = true},
      {.name = "ignore-warnings", .kind = Kind::kString, .default_value = "", .no_effect_yet = true},
      {.name = "shutdown-timeout", .kind = Kind::kInt, .default_value = "10", .max = INT32_MAX,
       .no_effect_yet = true},
      {.name = "shutdown-on-sigint", .kind = Kind::kShutdownFlags, .default_value = "default",
       .choices = {"default", "save", "nosave", "now", "force"}, .no_effect_yet = true},
      {.name = "shutdown-on-sigterm", .kind = Kind::kShutdownFlags, .default_value = "default",
       .choices = {"default", "save", "nosave", "now", "force"}, .no_effect_yet = true},
      // Held as Redis holds it; ordis's cron runs at 10 Hz whatever it says (kExpirePeriod).
      {.name = "hz", .kind = Kind::kInt, .default_value = "10", .max = INT32_MAX,
       .no_effect_yet = true, .clamp_min = 1, .clamp_max = 500},
      {.name = "dynamic-hz", .kind = Kind::kBool, .default_value = "yes", .no_effect_yet = true},
      {.name = "activerehashing", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "active-expire-effort", .kind = Kind::kInt, .default_value = "1", .min = 1,
       .max = 10, .no_effect_yet = true},
      {.name = "maxmemory-clients", .kind = Kind::kMemory, .default_value = "0",
       .no_effect_yet = true, .percent = true},
      {.name = "maxmemory-eviction-tenacity", .kind = Kind::kInt, .default_value = "10",
       .max = 100, .no_effect_yet = true},
      {.name = "tracking-table-max-keys", .kind = Kind::kInt, .default_value = "1000000",
       .no_effect_yet = true},
      {.name = "list-compress-depth", .kind = Kind::kInt, .default_value = "0", .max = INT32_MAX,
       .no_effect_yet = true},
      {.name = "sanitize-dump-payload", .kind = Kind::kEnum, .default_value = "no",
       .choices = {"no", "yes", "clients"}, .no_effect_yet = true},
      {.name = "propagation-error-behavior", .kind = Kind::kEnum, .default_value = "ignore",
       .choices = {"ignore", "panic", "panic-on-replicas"}, .no_effect_yet = true},
      // Active defragmentation (Redis's needs its own jemalloc).
      {.name = "activedefrag", .kind = Kind::kBool, .default_value = "no", .no_effect_yet = true},
      {.name = "active-defrag-ignore-bytes", .kind = Kind::kMemory, .default_value = "104857600",
       .min = 1, .no_effect_yet = true},
      {.name = "active-defrag-threshold-lower", .kind = Kind::kInt, .default_value = "10",
       .max = 1000, .no_effect_yet = true},
      {.name = "active-defrag-threshold-upper", .kind = Kind::kInt, .default_value = "100",
       .max = 1000, .no_effect_yet = true},
      {.name = "active-defrag-cycle-min", .kind = Kind::kInt, .default_value = "1", .min = 1,
       .max = 99, .no_effect_yet = true},
      {.name = "active-defrag-cycle-max", .kind = Kind::kInt, .default_value = "25", .min = 1,
       .max = 99, .no_effect_yet = true},
      {.name = "active-defrag-max-scan-fields", .kind = Kind::kInt, .default_value = "1000",
       .min = 1, .no_effect_yet = true},
      // Networking.
      {.name = "tcp-keepalive", .kind = Kind::kInt, .default_value = "300", .max = INT32_MAX,
       .no_effect_yet = true},
      {.name = "unixsocket", .kind = Kind::kString, .default_value = "", .startup_only = true,
       .no_effect_yet = true},
      {.name = "unixsocketperm", .kind = Kind::kOctal, .default_value = "0", .max = 0777,
       .startup_only = true, .no_effect_yet = true},
      {.name = "socket-mark-id", .kind = Kind::kInt, .default_value = "0", .max = UINT32_MAX,
       .startup_only = true, .no_effect_yet = true},
      {.name = "bind-source-addr", .kind = Kind::kString, .default_value = "",
       .no_effect_yet = true},
      {.name = "io-threads", .kind = Kind::kInt, .default_value = "1", .min = 1, .max = 128,
       .startup_only = true, .no_effect_yet = true},
      {.name = "io-threads-do-reads", .kind = Kind::kBool, .default_value = "no",
       .startup_only = true, .no_effect_yet = true},
      // Snapshots and the log: ordis writes its own formats.
      {.name = "stop-writes-on-bgsave-error", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "rdbcompression", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "rdbchecksum", .kind = Kind::kBool, .default_value = "yes", .startup_only = true,
       .no_effect_yet = true},
      {.name = "rdb-del-sync-files", .kind = Kind::kBool, .default_value = "no",
       .no_effect_yet = true},
      {.name = "rdb-save-incremental-fsync", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "aof-use-rdb-preamble", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "aof-rewrite-incremental-fsync", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "aof-timestamp-enabled", .kind = Kind::kBool, .default_value = "no",
       .no_effect_yet = true},
      {.name = "aof-disable-auto-gc", .kind = Kind::kBool, .default_value = "no",
       .no_effect_yet = true},
      {.name = "no-appendfsync-on-rewrite", .kind = Kind::kBool, .default_value = "no",
       .no_effect_yet = true},
      // Debugging delays and the loading loop's pace: hidden in Redis's CONFIG GET patterns.
      {.name = "key-load-delay", .kind = Kind::kInt, .default_value = "0", .min = INT32_MIN,
       .max = INT32_MAX, .no_effect_yet = true, .hidden = true},
      {.name = "rdb-key-save-delay", .kind = Kind::kInt, .default_value = "0", .min = INT32_MIN,
       .max = INT32_MAX, .no_effect_yet = true, .hidden = true},
      {.name = "loading-process-events-interval-bytes", .kind = Kind::kInt,
       .default_value = "2097152", .min = 1024, .max = INT32_MAX, .no_effect_yet = true,
       .hidden = true},
      // Replication: ordis is always a master without replicas.
      {.name = "replicaof", .alias = "slaveof", .kind = Kind::kReplicaOf, .default_value = "",
       .startup_only = true, .no_effect_yet = true},
      {.name = "masterauth", .kind = Kind::kString, .default_value = "", .no_effect_yet = true},
      {.name = "masteruser", .kind = Kind::kString, .default_value = "", .no_effect_yet = true},
      {.name = "replica-read-only", .alias = "slave-read-only", .kind = Kind::kBool,
       .default_value = "yes", .no_effect_yet = true},
      {.name = "replica-serve-stale-data", .alias = "slave-serve-stale-data", .kind = Kind::kBool,
       .default_value = "yes", .no_effect_yet = true},
      {.name = "replica-ignore-maxmemory", .alias = "slave-ignore-maxmemory", .kind = Kind::kBool,
       .default_value = "yes", .no_effect_yet = true},
      {.name = "replica-lazy-flush", .alias = "slave-lazy-flush", .kind = Kind::kBool,
       .default_value = "no", .no_effect_yet = true},
      {.name = "replica-priority", .alias = "slave-priority", .kind = Kind::kInt,
       .default_value = "100", .max = INT32_MAX, .no_effect_yet = true},
      {.name = "replica-announce-ip", .alias = "slave-announce-ip", .kind = Kind::kString,
       .default_value = "", .no_effect_yet = true},
      {.name = "replica-announce-port", .alias = "slave-announce-port", .kind = Kind::kInt,
       .default_value = "0", .max = 65535, .no_effect_yet = true},
      {.name = "replica-announced", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "replica-ignore-disk-write-errors", .kind = Kind::kBool, .default_value = "no",
       .no_effect_yet = true},
      {.name = "min-replicas-to-write", .alias = "min-slaves-to-write", .kind = Kind::kInt,
       .default_value = "0", .max = INT32_MAX, .no_effect_yet = true},
      {.name = "min-replicas-max-lag", .alias = "min-slaves-max-lag", .kind = Kind::kInt,
       .default_value = "10", .max = INT32_MAX, .no_effect_yet = true},
      {.name = "repl-ping-replica-period", .alias = "repl-ping-slave-period", .kind = Kind::kInt,
       .default_value = "10", .min = 1, .max = INT32_MAX, .no_effect_yet = true},
      {.name = "repl-timeout", .kind = Kind::kInt, .default_value = "60", .min = 1,
       .max = INT32_MAX, .no_effect_yet = true},
      {.name = "repl-backlog-size", .kind = Kind::kMemory, .default_value = "1048576", .min = 1,
       .no_effect_yet = true},
      {.name = "repl-backlog-ttl", .kind = Kind::kInt, .default_value = "3600",
       .no_effect_yet = true},
      {.name = "repl-disable-tcp-nodelay", .kind = Kind::kBool, .default_value = "no",
       .no_effect_yet = true},
      {.name = "repl-diskless-sync", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "repl-diskless-sync-delay", .kind = Kind::kInt, .default_value = "5",
       .max = INT32_MAX, .no_effect_yet = true},
      {.name = "repl-diskless-sync-max-replicas", .kind = Kind::kInt, .default_value = "0",
       .max = INT32_MAX, .no_effect_yet = true},
      {.name = "repl-diskless-load", .kind = Kind::kEnum, .default_value = "disabled",
       .choices = {"disabled", "on-empty-db", "swapdb"}, .no_effect_yet = true},
      // Cluster: ordis runs standalone.
      {.name = "cluster-enabled", .kind = Kind::kBool, .default_value = "no", .startup_only = true,
       .no_effect_yet = true},
      {.name = "cluster-config-file", .kind = Kind::kString, .default_value = "nodes.conf",
       .startup_only = true, .no_effect_yet = true},
      {.name = "cluster-port", .kind = Kind::kInt, .default_value = "0", .max = 65535,
       .startup_only = true, .no_effect_yet = true},
      {.name = "cluster-node-timeout", .kind = Kind::kInt, .default_value = "15000",
       .no_effect_yet = true},
      {.name = "cluster-replica-validity-factor", .alias = "cluster-slave-validity-factor",
       .kind = Kind::kInt, .default_value = "10", .max = INT32_MAX, .no_effect_yet = true},
      {.name = "cluster-replica-no-failover", .alias = "cluster-slave-no-failover",
       .kind = Kind::kBool, .default_value = "no", .no_effect_yet = true},
      {.name = "cluster-migration-barrier", .kind = Kind::kInt, .default_value = "1",
       .max = INT32_MAX, .no_effect_yet = true},
      {.name = "cluster-allow-replica-migration", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "cluster-require-full-coverage", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "cluster-allow-reads-when-down", .kind = Kind::kBool, .default_value = "no",
       .no_effect_yet = true},
      {.name = "cluster-allow-pubsubshard-when-down", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "cluster-announce-ip", .kind = Kind::kString, .default_value = "",
       .no_effect_yet = true},
      {.name = "cluster-announce-hostname", .kind = Kind::kString, .default_value = "",
       .no_effect_yet = true, .check = CheckHostname},
      {.name = "cluster-announce-port", .kind = Kind::kInt, .default_value = "0", .max = 65535,
       .no_effect_yet = true},
      {.name = "cluster-announce-bus-port", .kind = Kind::kInt, .default_value = "0",
       .max = 65535, .no_effect_yet = true},
      {.name = "cluster-announce-tls-port", .kind = Kind::kInt, .default_value = "0",
       .max = 65535, .no_effect_yet = true},
      {.name = "cluster-preferred-endpoint-type", .kind = Kind::kEnum, .default_value = "ip",
       .choices = {"ip", "hostname", "unknown-endpoint"}, .no_effect_yet = true},
      {.name = "cluster-link-sendbuf-limit", .kind = Kind::kMemory, .default_value = "0",
       .no_effect_yet = true, .unsigned_range = true},
      // TLS: ordis serves plain TCP.
      {.name = "tls-port", .kind = Kind::kInt, .default_value = "0", .max = 65535,
       .no_effect_yet = true},
      {.name = "tls-cert-file", .kind = Kind::kString, .default_value = "", .no_effect_yet = true},
      {.name = "tls-key-file", .kind = Kind::kString, .default_value = "", .no_effect_yet = true},
      {.name = "tls-key-file-pass", .kind = Kind::kString, .default_value = "",
       .no_effect_yet = true},
      {.name = "tls-client-cert-file", .kind = Kind::kString, .default_value = "",
       .no_effect_yet = true},
      {.name = "tls-client-key-file", .kind = Kind::kString, .default_value = "",
       .no_effect_yet = true},
      {.name = "tls-client-key-file-pass", .kind = Kind::kString, .default_value = "",
       .no_effect_yet = true},
      {.name = "tls-dh-params-file", .kind = Kind::kString, .default_value = "",
       .no_effect_yet = true},
      {.name = "tls-ca-cert-file", .kind = Kind::kString, .default_value = "",
       .no_effect_yet = true},
      {.name = "tls-ca-cert-dir", .kind = Kind::kString, .default_value = "",
       .no_effect_yet = true},
      {.name = "tls-protocols", .kind = Kind::kString, .default_value = "", .no_effect_yet = true},
      {.name = "tls-ciphers", .kind = Kind::kString, .default_value = "", .no_effect_yet = true},
      {.name = "tls-ciphersuites", .kind = Kind::kString, .default_value = "",
       .no_effect_yet = true},
      {.name = "tls-prefer-server-ciphers", .kind = Kind::kBool, .default_value = "no",
       .no_effect_yet = true},
      {.name = "tls-auth-clients", .kind = Kind::kEnum, .default_value = "yes",
       .choices = {"no", "yes", "optional"}, .no_effect_yet = true},
      {.name = "tls-replication", .kind = Kind::kBool, .default_value = "no",
       .no_effect_yet = true},
      {.name = "tls-cluster", .kind = Kind::kBool, .default_value = "no", .no_effect_yet = true},
      {.name = "tls-session-caching", .kind = Kind::kBool, .default_value = "yes",
       .no_effect_yet = true},
      {.name = "tls-session-cache-size", .kind = Kind::kInt, .default_value = "20480",
       .max = INT32_MAX, .no_effect_yet = true},
      {.name = "tls-session-cache-timeout", .kind = Kind::kInt, .default_value = "300",
       .max = INT32_MAX, .no_effect_yet = true},
  };
  // clang-format on
  return params;
}

// Every name and alias, lower-case, to its row.
const std::map<std::string_view, const Config::Param*>& ParamsByName() {
  static const std::map<std::string_view, const Config::Param*> by_name = [] {
    std::map<std::string_view, const Config::Param*> m;
    for (const auto& p : Params()) {
      m[p.name] = &p;
      if (!p.alias.empty()) m[p.alias] = &p;
    }
    return m;
  }();
  return by_name;
}

// name: lower-case, a parameter's name or its alias.
const Config::Param* FindParam(std::string_view name) {
  const auto& by_name = ParamsByName();
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

// Redis 7.0 names it reads from files and flags but ignores (with one value), never reports.
bool IgnoredDirective(std::string_view name) {
  return name == "list-max-ziplist-entries" || name == "list-max-ziplist-value" ||
         name == "lua-replicate-commands";
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string SetFailed(std::string_view name, std::string_view why) {
  return "ERR CONFIG SET failed (possibly related to argument '" + std::string(name) + "') - " +
         std::string(why);
}

// A memory value as Redis reads one: digits (none reads 0, leading zeros are fine) and a unit b,
// k, kb, m, mb, g or gb in any case (k is 1000, kb 1024); never a sign. Counts past 2^64 - 1
// saturate.
bool ParseMemoryValue(std::string_view s, uint64_t* out) {
  size_t digits = 0;
  while (digits < s.size() && std::isdigit(static_cast<unsigned char>(s[digits]))) ++digits;
  std::string unit = Lower(s.substr(digits));
  static constexpr std::pair<std::string_view, uint64_t> kUnits[] = {
      {"", 1},           {"b", 1},           {"k", 1000},
      {"kb", 1024},      {"m", 1000 * 1000}, {"mb", 1024 * 1024},
      {"g", 1000000000}, {"gb", 1ull << 30}};
  const auto* u = std::find_if(std::begin(kUnits), std::end(kUnits),
                               [&](const auto& e) { return e.first == unit; });
  if (u == std::end(kUnits)) return false;
  uint64_t n = 0;
  for (size_t i = 0; i < digits; ++i) {
    const uint64_t d = static_cast<uint64_t>(s[i] - '0');
    n = n > (UINT64_MAX - d) / 10 ? UINT64_MAX : n * 10 + d;
  }
  *out = n > UINT64_MAX / u->second ? UINT64_MAX : n * u->second;
  return true;
}

// A value, single spaces apart, as Redis splits a multi-word CONFIG SET argument: "" is no
// words, and a doubled space makes an empty one.
std::vector<std::string_view> SplitOnSpaces(std::string_view value) {
  std::vector<std::string_view> words;
  if (value.empty()) return words;
  for (size_t start = 0;;) {
    size_t end = value.find(' ', start);
    words.push_back(value.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return words;
    start = end + 1;
  }
}

std::string ChoicesError(const Config::Param& p) {
  std::string list;
  for (auto c : p.choices) list += (list.empty() ? "" : ", ") + std::string(c);
  return "argument(s) must be one of the following: " + list;
}

// kInt and kMemory: v within p's bounds (then its clamp) as *out, or Redis's error.
std::string Bounded(const Config::Param& p, int64_t v, std::string* out) {
  if (v < p.min || v > p.max) {
    return "argument must be between " + std::to_string(p.min) + " and " + std::to_string(p.max) +
           " inclusive";
  }
  *out = std::to_string(std::clamp(v, p.clamp_min, p.clamp_max));
  return "";
}

// "%f" with its trailing zeros (and then a trailing point) dropped, as Redis prints percentiles.
std::string PercentileText(double v) {
  char buf[512];
  int n = std::snprintf(buf, sizeof(buf), "%f", v);
  std::string text(buf, n > 0 ? static_cast<size_t>(n) : 0);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

// Canonicalizes `value` for param p into *out; returns "" or the reason it is invalid.
std::string Canonicalize(const Config::Param& p, const std::string& value, std::string* out) {
  switch (p.kind) {
    case Kind::kInt: {
      int64_t v;
      if (!ParseInt64(value, &v)) return "argument couldn't be parsed into an integer";
      return Bounded(p, v, out);
    }
    case Kind::kMemory: {
      uint64_t bytes;
      if (ParseMemoryValue(value, &bytes)) {
        if (p.unsigned_range) {
          *out = std::to_string(bytes);
          return "";
        }
        // As Redis's signed parameters: a count past 2^63 - 1 reads negative, out of bounds.
        return Bounded(p, static_cast<int64_t>(bytes), out);
      }
      int64_t percent;
      if (p.percent && value.size() > 1 && value.back() == '%' &&
          ParseInt64(std::string_view(value).substr(0, value.size() - 1), &percent) &&
          percent >= 0) {
        if (percent > 100) return "percentage argument must be less or equal to 100";
        *out = percent == 0 ? "0" : std::to_string(percent) + "%";
        return "";
      }
      return p.percent ? "argument must be a memory or percent value"
                       : "argument must be a memory value";
    }
    case Kind::kOctal: {
      errno = 0;
      char* end = nullptr;
      long long v = std::strtoll(value.c_str(), &end, 8);
      if (errno != 0 || end == value.c_str() || *end != '\0') {
        return "argument couldn't be parsed as an octal number";
      }
      char buf[64];
      if (v < p.min || v > p.max) {
        std::snprintf(buf, sizeof(buf), "argument must be between %llo and %llo inclusive",
                      static_cast<unsigned long long>(p.min),
                      static_cast<unsigned long long>(p.max));
        return buf;
      }
      std::snprintf(buf, sizeof(buf), "%llo", static_cast<unsigned long long>(v));
      *out = buf;
      return "";
    }
    case Kind::kShutdownFlags: {
      // choices: "default" (no flag), then one flag each, in the order they read back.
      std::vector<std::string_view> words = SplitOnSpaces(value);
      if (words.empty()) return ChoicesError(p);
      std::vector<bool> given(p.choices.size());
      for (std::string_view w : words) {
        const std::string word = Lower(w);
        auto it = std::find(p.choices.begin(), p.choices.end(), word);
        if (it == p.choices.end()) return ChoicesError(p);
        given[static_cast<size_t>(it - p.choices.begin())] = true;
      }
      auto flag = [&](std::string_view name) {
        return given[static_cast<size_t>(std::find(p.choices.begin(), p.choices.end(), name) -
                                         p.choices.begin())];
      };
      if (flag("save") && flag("nosave")) {
        return "shutdown options SAVE and NOSAVE can't be used simultaneously";
      }
      std::string canon;
      for (size_t i = 1; i < p.choices.size(); ++i) {
        if (given[i]) canon += (canon.empty() ? "" : " ") + std::string(p.choices[i]);
      }
      *out = canon.empty() ? std::string(p.choices[0]) : canon;
      return "";
    }
    case Kind::kPercentiles: {
      std::string canon;
      for (std::string_view w : SplitOnSpaces(value)) {
        double v;
        if (!ParseDouble(w, &v)) return "Invalid latency-tracking-info-percentiles parameters";
        if (v < 0 || v > 100) {
          return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
        }
        canon += (canon.empty() ? "" : " ") + PercentileText(v);
      }
      *out = canon;
      return "";
    }
    case Kind::kOomScoreValues: {
      std::vector<std::string_view> words = SplitOnSpaces(value);
      if (words.size() != 3) return "wrong number of arguments";
      std::string canon;
      for (std::string_view w : words) {
        // strtol's syntax: a sign and leading zeros are fine, and an empty word (a doubled space)
        // reads 0.
        const std::string word(w);
        errno = 0;
        char* end = nullptr;
        long v = std::strtol(word.c_str(), &end, 10);
        if (errno != 0 || *end != '\0' || v < -2000 || v > 2000) {
          return "Invalid oom-score-adj-values, elements must be between -2000 and 2000.";
        }
        canon += (canon.empty() ? "" : " ") + std::to_string(v);
      }
      *out = canon;
      return "";
    }
    case Kind::kReplicaOf: {
      std::vector<std::string_view> words = SplitOnSpaces(value);
      if (words.size() != 2) return "wrong number of arguments";
      if (Lower(words[0]) == "no" && Lower(words[1]) == "one") {
        *out = "";
        return "";
      }
      int64_t port;
      if (!ParseInt64(words[1], &port) || port < 0 || port > 65535) return "Invalid master port";
      *out = std::string(words[0]) + " " + std::to_string(port);
      return "";
    }
    case Kind::kBool: {
      std::string v = Lower(value);
      if (v != "yes" && v != "no") return "argument must be 'yes' or 'no'";
      *out = v;
      return "";
    }
    case Kind::kEnum: {
      std::string v = Lower(value);
      if (std::find(p.choices.begin(), p.choices.end(), v) == p.choices.end()) {
        return ChoicesError(p);
      }
      for (const auto& [choice, as] : p.synonyms) {
        if (choice == v) v = as;
      }
      *out = v;
      return "";
    }
    case Kind::kString:
      if (!p.plain_name.empty() && value.find_first_of("/\\") != std::string::npos) {
        return std::string(p.name) + " can't be a path, just a " + std::string(p.plain_name);
      }
      if (p.check != nullptr) {
        std::string err = p.check(value);
        if (!err.empty()) return err;
      }
      *out = value;
      return "";
    case Kind::kSave: {
      std::vector<std::string> words;
      SplitArgs(value, &words);
      if (words.size() % 2 != 0) return "Invalid save parameters";
      std::string canon;
      for (const auto& w : words) {
        int64_t v;
        if (!ParseInt64(w, &v) || v < 0) return "Invalid save parameters";
        canon += (canon.empty() ? "" : " ") + std::to_string(v);
      }
      *out = canon;
      return "";
    }
    case Kind::kKeyspaceEvents: {
      uint32_t classes;
      if (!keyspace_events::Parse(value, &classes)) {
        return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.";
      }
      *out = keyspace_events::Text(classes);
      return "";
    }
    case Kind::kOutputLimit: {
      std::vector<std::string> words;
      SplitArgs(value, &words);
      if (words.empty() || words.size() % 4 != 0)
        return "Wrong number of arguments in buffer limit configuration.";
      for (size_t i = 0; i < words.size(); i += 4) {
        std::string cls = Lower(words[i]);
        if (cls != "normal" && cls != "slave" && cls != "replica" && cls != "pubsub") {
          return "Invalid client class specified in buffer limit configuration.";
        }
        int64_t hard, soft, secs;
        if (!ParseMemory(words[i + 1], &hard) || !ParseMemory(words[i + 2], &soft) ||
            !ParseInt64(words[i + 3], &secs) || hard < 0 || soft < 0 || secs < 0) {
          return "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
        }
      }
      *out = value;
      return "";
    }
  }
  return "unknown parameter kind";
}

// Merges a client-output-buffer-limit update into the current value (classes not named keep
// their limits), returning the canonical "normal h s t slave h s t pubsub h s t".
std::string MergeOutputLimits(const std::string& current, const std::string& update) {
  std::map<std::string, std::vector<std::string>> classes;
  for (const std::string* text : {&current, &update}) {
    std::vector<std::string> words;
    SplitArgs(*text, &words);
    for (size_t i = 0; i + 3 < words.size(); i += 4) {
      std::string cls = Lower(words[i]);
      if (cls == "replica") cls = "slave";
      int64_t hard = 0, soft = 0;
      ParseMemory(words[i + 1], &hard);
      ParseMemory(words[i + 2], &soft);
      classes[cls] = {std::to_string(hard), std::to_string(soft), words[i + 3]};
    }
  }
  std::string out;
  for (const char* cls : {"normal", "slave", "pubsub"}) {
    auto& v = classes[cls];
    if (v.empty()) v = {"0", "0", "0"};
    out += (out.empty() ? "" : " ") + std::string(cls) + " " + v[0] + " " + v[1] + " " + v[2];
  }
  return out;
}

// A value as a config-file word SplitArgs reads back unchanged: bare when it is a plain word,
// otherwise double-quoted with escapes (as Redis's sdscatrepr).
std::string QuoteForFile(const std::string& value) {
  bool plain = !value.empty();
  for (unsigned char c : value) {
    if (c <= ' ' || c >= 0x7f || c == '"' || c == '\\' || c == '\'') plain = false;
  }
  if (plain) return value;
  std::string out = "\"";
  for (unsigned char c : value) {
    switch (c) {
      // clang-format off
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      // clang-format on
      default:
        if (c < ' ' || c >= 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

// Words as one space-separated value, as a config line's value is read.
std::string JoinValue(std::span<const std::string> words) {
  std::string value;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) value += ' ';
    value += words[i];
  }
  return value;
}

std::string CurrentDir() {
  char buf[4096];
  return getcwd(buf, sizeof(buf)) ? std::string(buf) : std::string(".");
}

}  // namespace

Config::Config() {
  std::lock_guard lock(mu_);
  for (const auto& p : Params()) values_[std::string(p.name)] = std::string(p.default_value);
  values_["threads"] = DefaultThreads();
  values_["dir"] = CurrentDir();
  for (const auto& p : Params()) Mirror(std::string(p.name));
}

void Config::LoadCommandLine(int argc, char** argv) {
  int i = 1;
  if (i < argc && std::string_view(argv[i]).substr(0, 2) != "--") {
    LoadFile(argv[i]);
    ++i;
  }
  // As redis-server: "--name v1 v2 --other v" ; words up to the next "--" form the value.
  while (i < argc) {
    std::string_view flag(argv[i]);
    if (flag.substr(0, 2) != "--" || flag.size() == 2) {
      throw ConfigError("Invalid argument '" + std::string(flag) + "'; expected --name value");
    }
    std::vector<std::string> words = {Lower(flag.substr(2))};
    for (++i; i < argc && std::string_view(argv[i]).substr(0, 2) != "--"; ++i) {
      words.emplace_back(argv[i]);
    }
    std::lock_guard lock(mu_);
    std::string err = LoadDirectiveLocked(words);
    if (!err.empty()) throw ConfigError("--" + JoinValue(words) + ": " + err);
  }
  std::lock_guard lock(mu_);
  std::string err = CheckCombinationLocked();
  if (!err.empty()) throw ConfigError(err);
}

std::string Config::CheckCombinationLocked() const {
  // Start-up only parameters, so checked once everything is read, whatever the order of the lines
  // and flags. Checked with `index map` too: switching back to the learned tree must not turn a
  // configuration invalid.
  auto as_int = [&](const char* name) {
    int64_t n = 0;
    ParseInt64(values_.at(name), &n);
    return n;
  };
  int64_t leaf_error = as_int("index-leaf-error");
  int64_t leaf_capacity = as_int("index-leaf-capacity");
  if (leaf_error >= leaf_capacity) {
    // A leaf's model may then be off by more than the leaf holds: the bound bounds nothing.
    return "index-leaf-error (" + std::to_string(leaf_error) +
           ") must be less than index-leaf-capacity (" + std::to_string(leaf_capacity) + ")";
  }
  return "";
}

bool Config::learned_index() const { return Value("index") == "learned"; }

index::LearnedStoreOptions Config::learned_store_options() const {
  std::lock_guard lock(mu_);
  auto as_int = [&](const char* name) {
    int64_t n = 0;
    ParseInt64(values_.at(name), &n);
    return static_cast<int>(n);
  };
  index::LearnedStoreOptions o;
  o.leaf_error = as_int("index-leaf-error");
  o.inner_error = as_int("index-inner-error");
  o.leaf_capacity = as_int("index-leaf-capacity");
  o.insert_buffer = as_int("index-insert-buffer");
  o.patcher_threads = as_int("index-patcher-threads");
  o.hot_cache = values_.at("index-hot-cache") == "yes";
  return o;
}

void Config::LoadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError("Fatal error, can't open config file '" + path + "'");
  {
    std::lock_guard lock(mu_);
    config_file_ = path;
  }
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::vector<std::string> words;
    auto fail = [&](const std::string& why) {
      throw ConfigError(
          "*** FATAL CONFIG FILE ERROR ***\nReading the configuration file, at line " +
          std::to_string(lineno) + "\n>>> '" + line + "'\n" + why);
    };
    std::string_view trimmed(line);
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) {
      trimmed.remove_prefix(1);
    }
    if (trimmed.empty() || trimmed[0] == '#') continue;
    if (!SplitArgs(trimmed, &words)) fail("Unbalanced quotes in configuration line");
    if (words.empty()) continue;
    std::string name = Lower(words[0]);
    if (name == "include" && words.size() == 2) {
      LoadFile(words[1]);
      std::lock_guard lock(mu_);
      config_file_ = path;
      continue;
    }
    words[0] = name;
    std::lock_guard lock(mu_);
    std::string err = LoadDirectiveLocked(words);
    if (!err.empty()) fail(err);
  }
}

std::string Config::LoadDirectiveLocked(const std::vector<std::string>& words) {
  const std::string& name = words[0];
  // Their words are kept apart: "" (rename-command's "disable the command") must survive.
  if (name == "rename-command") {
    if (words.size() != 3) return "wrong number of arguments";
    command_renames_.emplace_back(words[1], words[2]);
    return "";
  }
  if (name == "user") {
    if (words.size() < 2) return "wrong number of arguments";
    user_directives_.push_back(words);
    return "";
  }
  if (IgnoredDirective(name) && words.size() == 2) return "";
  return SetLocked(name, JoinValue(std::span(words).subspan(1)), /*startup=*/true);
}

std::string Config::SetLocked(const std::string& name, const std::string& value, bool startup) {
  const Param* p = FindParam(name);
  if (p == nullptr) return "Bad directive or wrong number of arguments";
  if (!startup && p->startup_only) return "can't set immutable config";
  // An alias's value is its parameter's.
  const std::string key(p->name);
  std::string canon;
  std::string err = Canonicalize(*p, value, &canon);
  if (!err.empty()) return err;
  if (p->kind == Kind::kOutputLimit) canon = MergeOutputLimits(values_[key], canon);
  if (key == "dir") {
    if (chdir(canon.c_str()) != 0) return "No such file or directory";
    canon = CurrentDir();
  }
  if (key == "maxclients" && !startup) {
    int64_t wanted = 0;
    ParseInt64(canon, &wanted);
    DescriptorFit fit = FitDescriptorLimit(wanted, ReservedDescriptors(threads()));
    if (fit.maxclients < wanted) {
      return "The operating system is not able to handle the specified number of clients, try "
             "with " +
             std::to_string(fit.maxclients);
    }
  }
  values_[key] = canon;
  if (!startup) changed_[key] = canon;
  Mirror(key);
  if (p->kind == Kind::kKeyspaceEvents) {
    // The classes as given: with A, the text Redis reports drops n, but n stays on.
    uint32_t classes = 0;
    keyspace_events::Parse(value, &classes);
    notify_keyspace_events_ = classes;
  }
  return "";
}

void Config::Mirror(const std::string& name) {
  const std::string& v = values_[name];
  auto as_int = [&] {
    int64_t n = 0;
    ParseInt64(v, &n);
    return n;
  };
  // clang-format off
  if (name == "port") port_ = static_cast<int>(as_int());
  else if (name == "threads") threads_ = static_cast<int>(as_int());
  else if (name == "adaptive-threads") adaptive_threads_ = v == "yes";
  else if (name == "databases") databases_ = static_cast<int>(as_int());
  else if (name == "maxclients") maxclients_ = as_int();
  else if (name == "timeout") timeout_s_ = as_int();
  else if (name == "proto-max-bulk-len") proto_max_bulk_len_ = as_int();
  else if (name == "client-query-buffer-limit") query_buffer_limit_ = as_int();
  else if (name == "zset-max-listpack-entries") zset_max_listpack_entries_ = as_int();
  else if (name == "zset-max-listpack-value") zset_max_listpack_value_ = as_int();
  else if (name == "stream-node-max-bytes") stream_node_max_bytes_ = as_int();
  else if (name == "stream-node-max-entries") stream_node_max_entries_ = as_int();
  else if (name == "maxmemory") maxmemory_ = as_int();
  else if (name == "maxmemory-samples") maxmemory_samples_ = static_cast<int>(as_int());
  else if (name == "lfu-log-factor") lfu_log_factor_ = static_cast<int>(as_int());
  else if (name == "lfu-decay-time") lfu_decay_time_ = static_cast<int>(as_int());
  else if (name == "lazyfree-lazy-eviction") lazy_eviction_ = v == "yes";
  else if (name == "lazyfree-lazy-expire") lazy_expire_ = v == "yes";
  else if (name == "lazyfree-lazy-server-del") lazy_server_del_ = v == "yes";
  else if (name == "lazyfree-lazy-user-del") lazy_user_del_ = v == "yes";
  else if (name == "lazyfree-lazy-user-flush") lazy_user_flush_ = v == "yes";
  else if (name == "tier-prefetch") tier_prefetch_ = v == "yes";
  else if (name == "slowlog-log-slower-than") slowlog_slower_than_us_ = as_int();
  else if (name == "slowlog-max-len") slowlog_max_len_ = as_int();
  else if (name == "latency-monitor-threshold") latency_monitor_threshold_ms_ = as_int();
  else if (name == "latency-tracking") latency_tracking_ = v == "yes";
  else if (name == "busy-reply-threshold") busy_reply_threshold_ms_ = as_int();
  else if (name == "notify-keyspace-events") {
    uint32_t classes = 0;
    keyspace_events::Parse(v, &classes);
    notify_keyspace_events_ = classes;
  }
  else if (name == "maxmemory-policy") {
    // The canonical name in the parameter table: static storage, so readers hold a plain view.
    for (const std::string_view& choice : FindParam(name)->choices) {
      if (choice == v) maxmemory_policy_ = &choice;
    }
    lfu_policy_ = v.find("lfu") != std::string::npos;
  }
  else if (name == "loglevel") {
    log::Level level;
    if (log::ParseLevel(v, &level)) log::SetLevel(level);
  }
  // clang-format on
  else if (name == "client-output-buffer-limit") {
    std::vector<std::string> words;
    SplitArgs(v, &words);
    for (size_t i = 0; i + 3 < words.size(); i += 4) {
      AtomicOutputLimit* limit = words[i] == "normal"   ? &normal_limit_
                                 : words[i] == "pubsub" ? &pubsub_limit_
                                 : words[i] == "slave"  ? &replica_limit_
                                                        : nullptr;
      if (limit == nullptr) continue;
      int64_t hard = 0, soft = 0, seconds = 0;
      ParseInt64(words[i + 1], &hard);
      ParseInt64(words[i + 2], &soft);
      ParseInt64(words[i + 3], &seconds);
      limit->hard = hard;
      limit->soft = soft;
      limit->soft_seconds = seconds;
    }
  }
}

std::string Config::Set(const std::vector<std::pair<std::string, std::string>>& pairs,
                        bool protected_allowed) {
  std::lock_guard lock(mu_);
  // As Redis, every name is checked before any value, and every value before anything changes,
  // so a bad pair changes nothing. A name and its alias are two names: the later one wins.
  std::set<std::string> seen;
  for (const auto& [raw_name, value] : pairs) {
    std::string name = Lower(raw_name);
    const Param* p = FindParam(name);
    if (p == nullptr) {
      return "ERR Unknown option or number of arguments for CONFIG SET - '" + raw_name + "'";
    }
    if (p->startup_only) return SetFailed(raw_name, "can't set immutable config");
    if (p->protected_config && !protected_allowed) {
      return SetFailed(raw_name, "can't set protected config");
    }
    if (!seen.insert(name).second) return SetFailed(raw_name, "duplicate parameter");
  }
  for (const auto& [raw_name, value] : pairs) {
    std::string canon;
    std::string err = Canonicalize(*FindParam(Lower(raw_name)), value, &canon);
    if (!err.empty()) return SetFailed(raw_name, err);
  }
  auto saved_values = values_;
  auto saved_changed = changed_;
  for (const auto& [raw_name, value] : pairs) {
    std::string err = SetLocked(Lower(raw_name), value, /*startup=*/false);
    if (!err.empty()) {
      // Roll back the ones already applied (e.g. dir failing chdir), REWRITE's record included.
      values_ = std::move(saved_values);
      changed_ = std::move(saved_changed);
      for (const auto& p : Params()) Mirror(std::string(p.name));
      return SetFailed(raw_name, err);
    }
  }
  return "";
}

std::vector<std::pair<std::string, std::string>> Config::Get(
    const std::vector<std::string>& patterns) const {
  std::lock_guard lock(mu_);
  // As Redis: a plain name (no glob character) is looked up, hidden parameters included, and
  // reported as it was asked; a pattern is matched against every name and alias but the hidden.
  // Each parameter name is reported once, whatever its case.
  std::map<std::string, std::pair<std::string, std::string>> found;  // by lower-case name
  for (const auto& pattern : patterns) {
    if (pattern.find_first_of("*?[") == std::string::npos) {
      std::string name = Lower(pattern);
      const Param* p = FindParam(name);
      if (p != nullptr && !found.count(name)) {
        found[name] = {pattern, values_.at(std::string(p->name))};
      }
      continue;
    }
    for (const auto& p : Params()) {
      if (p.hidden) continue;
      for (std::string_view n : {p.name, p.alias}) {
        std::string name(n);
        if (n.empty() || found.count(name) || !GlobMatch(pattern, name, /*nocase=*/true)) continue;
        found[name] = {name, values_.at(std::string(p.name))};
      }
    }
  }
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(found.size());
  for (auto& [lower, pair] : found) out.push_back(std::move(pair));
  return out;
}

DescriptorFit Config::FitMaxClientsToDescriptors() {
  std::lock_guard lock(mu_);
  DescriptorFit fit = FitDescriptorLimit(maxclients(), ReservedDescriptors(threads()));
  if (fit.maxclients != maxclients() && !fit.too_low) {
    values_["maxclients"] = std::to_string(fit.maxclients);
    Mirror("maxclients");
  }
  return fit;
}

std::string Config::Value(std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = values_.find(std::string(name));
  if (it != values_.end()) return it->second;
  const Param* p = FindParam(name);  // an alias
  return p == nullptr ? std::string() : values_.at(std::string(p->name));
}

std::vector<std::pair<std::string, std::string>> Config::command_renames() const {
  std::lock_guard lock(mu_);
  return command_renames_;
}

std::vector<std::vector<std::string>> Config::user_directives() const {
  std::lock_guard lock(mu_);
  return user_directives_;
}

std::string Config::config_file() const {
  std::lock_guard lock(mu_);
  return config_file_;
}

std::vector<std::string> Config::bind_addresses() const {
  std::vector<std::string> out;
  SplitArgs(Value("bind"), &out);
  return out;
}

namespace {

// Multi-word parameters (save, client-output-buffer-limit, bind, ...) are written as their words;
// every other value as one quoted-if-needed word.
std::string RewriteValue(const std::string& name, const std::string& value) {
  const Config::Param* p = FindParam(name);
  bool multi_word =
      p != nullptr &&
      (p->kind == Kind::kSave || p->kind == Kind::kOutputLimit || p->kind == Kind::kShutdownFlags ||
       p->kind == Kind::kPercentiles || p->kind == Kind::kOomScoreValues || name == "bind");
  if (multi_word && !value.empty()) return value;
  return QuoteForFile(value);
}

}  // namespace

std::string Config::Rewrite() const {
  std::lock_guard lock(mu_);
  if (config_file_.empty()) return "ERR The server is running without a config file";
  std::ifstream in(config_file_);
  std::vector<std::string> lines;
  std::set<std::string> written;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> words;
    std::string_view t(line);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    if (!t.empty() && t[0] != '#' && SplitArgs(t, &words) && !words.empty()) {
      std::string name = Lower(words[0]);
      if (const Param* p = FindParam(name)) name = p->name;  // an alias's line is its parameter's
      auto it = changed_.find(name);
      if (it != changed_.end()) {
        if (written.insert(name).second)
          lines.push_back(name + " " + RewriteValue(name, it->second));
        continue;  // drop later duplicates of a rewritten directive
      }
    }
    lines.push_back(line);
  }
  bool header = false;
  for (const auto& [name, value] : changed_) {
    if (written.count(name)) continue;
    if (!header) lines.push_back("# Generated by CONFIG REWRITE");
    header = true;
    lines.push_back(name + " " + RewriteValue(name, value));
  }
  std::string tmp = config_file_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const auto& l : lines) out << l << "\n";
    out.flush();
    if (!out) return "ERR Rewriting config file: " + std::string(strerror(errno));
  }
  if (rename(tmp.c_str(), config_file_.c_str()) != 0) {
    return "ERR Rewriting config file: " + std::string(strerror(errno));
  }
  return "";
}

std::string Config::Help() {
  std::ostringstream out;
  out << "Usage: ordis-server [/path/to/ordis.conf] [--name value ...]\n"
         "       ordis-server --help\n\n"
         "Parameters (file directive or --flag; CONFIG GET/SET at runtime where mutable):\n";
  for (const auto& p : Params()) {
    std::string def(p.default_value);
    if (p.name == "threads") def = "number of cores";
    if (p.name == "dir") def = "working directory";
    for (std::string_view name : {p.name, p.alias}) {
      if (name.empty()) continue;
      out << "  " << name << " (default: " << (def.empty() ? "\"\"" : def) << ")"
          << (name == p.alias ? " [alias of " + std::string(p.name) + "]" : "")
          << (p.startup_only ? " [start-up only]" : "")
          << (p.no_effect_yet ? " [accepted for Redis compatibility; no effect yet]" : "") << "\n";
    }
  }
  return out.str();
}

}  // namespace ordis::server
