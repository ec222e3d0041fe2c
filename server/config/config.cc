#include "server/config/config.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "base/glob.h"
#include "base/number.h"
#include "base/split_args.h"

namespace ordis::server {

enum class Kind { kInt, kMemory, kBool, kString, kEnum, kOutputLimit, kSave };

struct Config::Param {
  std::string_view name;
  Kind kind;
  std::string_view default_value;
  bool is_mutable;
  bool live;  // false: accepted for Redis compatibility, no effect in ordis yet
  int64_t min = 0;
  int64_t max = INT64_MAX;
  std::vector<std::string_view> choices = {};
};

namespace {

std::string DefaultThreads() {
  unsigned n = std::thread::hardware_concurrency();
  return std::to_string(n == 0 ? 1 : n);
}

const std::vector<Config::Param>& Params() {
  static const std::vector<Config::Param> params = {
      // Parameters ordis implements.
      {"port", Kind::kInt, "6379", false, true, 0, 65535},
      {"bind", Kind::kString, "127.0.0.1", false, true},
      {"threads", Kind::kInt, "", false, true, 1, 256},  // default: number of cores
      // ordis only: threads beyond the first take connections only while the active ones are
      // saturated and the machine has idle CPU (ThreadBalancer); no: spread over all from the start.
      {"adaptive-threads", Kind::kBool, "yes", true, true},
      {"requirepass", Kind::kString, "", true, true},
      {"maxclients", Kind::kInt, "10000", true, true, 1, 2147483647},
      {"timeout", Kind::kInt, "0", true, true, 0, 2147483647},
      {"dir", Kind::kString, "", true, true},  // default: working directory at start
      {"databases", Kind::kInt, "16", false, true, 1, 256},
      {"proto-max-bulk-len", Kind::kMemory, "536870912", true, true, 1024 * 1024, INT64_MAX},
      {"client-query-buffer-limit", Kind::kMemory, "1073741824", true, true, 1024 * 1024, INT64_MAX},
      {"client-output-buffer-limit", Kind::kOutputLimit,
       "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60", true, true},
      {"hz", Kind::kInt, "10", true, true, 1, 500},
      {"maxmemory-policy", Kind::kEnum, "noeviction", true, true, 0, 0,
       {"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru",
        "allkeys-lfu", "allkeys-random", "noeviction"}},
      // The ordered index (index/): which store, and the learned tree's LearnedStoreOptions.
      {"index", Kind::kEnum, "learned", false, true, 0, 0, {"learned", "map"}},
      {"index-leaf-error", Kind::kInt, "8", false, true, 1, 1024},
      {"index-inner-error", Kind::kInt, "4", false, true, 1, 1024},
      {"index-leaf-capacity", Kind::kInt, "128", false, true, 8, 4096},
      {"index-insert-buffer", Kind::kInt, "32", false, true, 1, 1024},
      {"index-patcher-threads", Kind::kInt, "1", false, true, 1, 64},
      {"index-hot-cache", Kind::kBool, "yes", false, true},
      // Redis parameters accepted and reported, without effect in ordis yet (README lists them).
      {"maxmemory", Kind::kMemory, "0", true, false},
      {"save", Kind::kSave, "3600 1 300 100 60 10000", true, true},
      {"appendonly", Kind::kBool, "no", true, true},
      {"appendfsync", Kind::kEnum, "everysec", true, true, 0, 0, {"always", "everysec", "no"}},
      {"appendfilename", Kind::kString, "appendonly.aof", false, true},
      {"appenddirname", Kind::kString, "appendonlydir", false, true},
      // Not "dump.rdb": the file is ordis's own format, which Redis tools must not mistake for RDB.
      {"dbfilename", Kind::kString, "dump.osnap", true, true},
      {"loglevel", Kind::kEnum, "notice", true, false, 0, 0,
       {"debug", "verbose", "notice", "warning", "nothing"}},
      {"logfile", Kind::kString, "", false, false},
      {"daemonize", Kind::kBool, "no", false, false},
      {"pidfile", Kind::kString, "", false, false},
      {"protected-mode", Kind::kBool, "yes", true, false},
      {"tcp-backlog", Kind::kInt, "511", false, true, 0, INT32_MAX},
      {"tcp-keepalive", Kind::kInt, "300", true, false, 0, INT32_MAX},
      {"io-threads", Kind::kInt, "1", false, false, 1, 128},
      {"maxmemory-samples", Kind::kInt, "5", true, false, 1, 64},
      {"lfu-log-factor", Kind::kInt, "10", true, false, 0, INT32_MAX},
      {"lfu-decay-time", Kind::kInt, "1", true, false, 0, INT32_MAX},
      {"active-expire-effort", Kind::kInt, "1", true, false, 1, 10},
      {"lazyfree-lazy-eviction", Kind::kBool, "no", true, false},
      {"lazyfree-lazy-expire", Kind::kBool, "no", true, false},
      {"lazyfree-lazy-server-del", Kind::kBool, "no", true, false},
      {"lazyfree-lazy-user-del", Kind::kBool, "no", true, false},
      {"lazyfree-lazy-user-flush", Kind::kBool, "no", true, false},
      {"slowlog-log-slower-than", Kind::kInt, "10000", true, false, -1, INT64_MAX},
      {"slowlog-max-len", Kind::kInt, "128", true, false, 0, INT64_MAX},
      {"latency-monitor-threshold", Kind::kInt, "0", true, false, 0, INT64_MAX},
      {"latency-tracking", Kind::kBool, "yes", true, false},
      {"notify-keyspace-events", Kind::kString, "", true, false},
      {"stop-writes-on-bgsave-error", Kind::kBool, "yes", true, false},
      {"rdbcompression", Kind::kBool, "yes", true, false},
      {"rdbchecksum", Kind::kBool, "yes", true, false},
      {"aof-load-truncated", Kind::kBool, "yes", true, true},
      // ordis only: load the records before corruption in the middle of the log (else refuse).
      {"aof-load-corrupted", Kind::kBool, "no", true, true},
      {"aof-use-rdb-preamble", Kind::kBool, "yes", true, false},
      {"auto-aof-rewrite-percentage", Kind::kInt, "100", true, true, 0, INT32_MAX},
      {"auto-aof-rewrite-min-size", Kind::kMemory, "67108864", true, true},
      {"activerehashing", Kind::kBool, "yes", true, false},
      {"always-show-logo", Kind::kBool, "no", false, false},
      {"supervised", Kind::kEnum, "no", false, false, 0, 0, {"upstart", "systemd", "auto", "no"}},
      {"unixsocket", Kind::kString, "", false, false},
      {"cluster-enabled", Kind::kBool, "no", false, false},
      {"replica-read-only", Kind::kBool, "yes", true, false},
      {"hash-max-listpack-entries", Kind::kInt, "512", true, false},
      {"hash-max-listpack-value", Kind::kInt, "64", true, false},
      {"zset-max-listpack-entries", Kind::kInt, "128", true, false},
      {"zset-max-listpack-value", Kind::kInt, "64", true, false},
      {"set-max-intset-entries", Kind::kInt, "512", true, false},
      {"list-max-listpack-size", Kind::kInt, "-2", true, false, -5, INT64_MAX},
      {"busy-reply-threshold", Kind::kInt, "5000", true, false},
      {"lua-time-limit", Kind::kInt, "5000", true, false},
      {"enable-debug-command", Kind::kEnum, "no", false, true, 0, 0, {"no", "yes", "local"}},
  };
  return params;
}

const Config::Param* FindParam(std::string_view name) {
  for (const auto& p : Params()) {
    if (p.name == name) return &p;
  }
  return nullptr;
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

// Canonicalizes `value` for param p into *out; returns "" or the reason it is invalid.
std::string Canonicalize(const Config::Param& p, const std::string& value, std::string* out) {
  switch (p.kind) {
    case Kind::kInt: {
      int64_t v;
      if (!ParseInt64(value, &v)) return "argument couldn't be parsed into an integer";
      if (v < p.min || v > p.max) {
        return "argument must be between " + std::to_string(p.min) + " and " +
               std::to_string(p.max) + " inclusive";
      }
      *out = std::to_string(v);
      return "";
    }
    case Kind::kMemory: {
      int64_t v;
      if (!ParseMemory(value, &v) || v < 0) return "argument must be a memory value";
      if (v < p.min || v > p.max) {
        return "argument must be between " + std::to_string(p.min) + " and " +
               std::to_string(p.max) + " inclusive";
      }
      *out = std::to_string(v);
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
      for (auto c : p.choices) {
        if (c == v) {
          *out = v;
          return "";
        }
      }
      std::string list;
      for (auto c : p.choices) list += (list.empty() ? "" : ", ") + std::string(c);
      return "argument(s) must be one of the following: " + list;
    }
    case Kind::kString:
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
    case Kind::kOutputLimit: {
      std::vector<std::string> words;
      SplitArgs(value, &words);
      if (words.empty() || words.size() % 4 != 0) return "Wrong number of arguments in buffer limit configuration.";
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
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
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
    std::string name = Lower(flag.substr(2));
    std::string value;
    bool first = true;
    ++i;
    while (i < argc && std::string_view(argv[i]).substr(0, 2) != "--") {
      if (!first) value += ' ';
      value += argv[i];
      first = false;
      ++i;
    }
    std::lock_guard lock(mu_);
    std::string err = SetLocked(name, value, /*startup=*/true);
    if (!err.empty()) throw ConfigError("--" + name + " " + value + ": " + err);
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
      throw ConfigError("*** FATAL CONFIG FILE ERROR ***\nReading the configuration file, at line " +
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
    std::string value;
    for (size_t w = 1; w < words.size(); ++w) value += (w > 1 ? " " : "") + words[w];
    std::lock_guard lock(mu_);
    std::string err = SetLocked(name, value, /*startup=*/true);
    if (!err.empty()) fail(err);
  }
}

std::string Config::SetLocked(const std::string& name, const std::string& value, bool startup) {
  const Param* p = FindParam(name);
  if (p == nullptr) return "Bad directive or wrong number of arguments";
  if (!startup && !p->is_mutable) return "can't set immutable config";
  std::string canon;
  std::string err = Canonicalize(*p, value, &canon);
  if (!err.empty()) return err;
  if (p->kind == Kind::kOutputLimit) canon = MergeOutputLimits(values_[name], canon);
  if (name == "dir") {
    if (chdir(canon.c_str()) != 0) return "No such file or directory";
    canon = CurrentDir();
  }
  values_[name] = canon;
  if (!startup) changed_[name] = canon;
  Mirror(name);
  return "";
}

void Config::Mirror(const std::string& name) {
  const std::string& v = values_[name];
  auto as_int = [&] {
    int64_t n = 0;
    ParseInt64(v, &n);
    return n;
  };
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
  else if (name == "requirepass") auth_required_ = !v.empty();
  else if (name == "maxmemory-policy") lfu_policy_ = v.find("lfu") != std::string::npos;
  else if (name == "client-output-buffer-limit") {
    std::vector<std::string> words;
    SplitArgs(v, &words);
    for (size_t i = 0; i + 3 < words.size(); i += 4) {
      if (words[i] != "normal") continue;
      int64_t hard = 0, soft = 0, seconds = 0;
      ParseInt64(words[i + 1], &hard);
      ParseInt64(words[i + 2], &soft);
      ParseInt64(words[i + 3], &seconds);
      out_hard_ = hard;
      out_soft_ = soft;
      out_soft_seconds_ = seconds;
    }
  }
}

std::string Config::Set(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::lock_guard lock(mu_);
  // Validate everything first so a bad pair changes nothing.
  std::set<std::string> seen;
  for (const auto& [raw_name, value] : pairs) {
    std::string name = Lower(raw_name);
    const Param* p = FindParam(name);
    if (p == nullptr || !seen.insert(name).second) {
      if (p != nullptr) return SetFailed(raw_name, "duplicate parameter");
      return "ERR Unknown option or number of arguments for CONFIG SET - '" + raw_name + "'";
    }
    if (!p->is_mutable) return SetFailed(raw_name, "can't set immutable config");
    std::string canon;
    std::string err = Canonicalize(*p, value, &canon);
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
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : values_) {
    for (const auto& pattern : patterns) {
      if (GlobMatch(pattern, name, /*nocase=*/true)) {
        out.emplace_back(name, value);
        break;
      }
    }
  }
  return out;
}

std::string Config::Value(std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = values_.find(std::string(name));
  return it == values_.end() ? std::string() : it->second;
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

bool Config::CheckPassword(std::string_view password) const {
  std::lock_guard lock(mu_);
  auto it = values_.find("requirepass");
  return it != values_.end() && !it->second.empty() && it->second == password;
}

namespace {

// Multi-word parameters (save, client-output-buffer-limit, bind) are written as their words; every
// other value as one quoted-if-needed word.
std::string RewriteValue(const std::string& name, const std::string& value) {
  const Config::Param* p = FindParam(name);
  bool multi_word = p != nullptr && (p->kind == Kind::kSave || p->kind == Kind::kOutputLimit ||
                                     name == "bind");
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
      auto it = changed_.find(name);
      if (it != changed_.end()) {
        if (written.insert(name).second) lines.push_back(name + " " + RewriteValue(name, it->second));
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
    out << "  " << p.name << " (default: " << (def.empty() ? "\"\"" : def) << ")"
        << (p.is_mutable ? "" : " [start-up only]")
        << (p.live ? "" : " [accepted for Redis compatibility; no effect yet]") << "\n";
  }
  return out.str();
}

}  // namespace ordis::server
