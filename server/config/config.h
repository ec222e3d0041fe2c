// Server configuration: redis.conf-style file, `--name value` flags, CONFIG GET/SET/REWRITE.
//
// Every parameter is a row in one table (config.cc) with its kind, default, bounds and whether
// CONFIG SET may change it. Parameters ordis reads on hot paths are mirrored into atomics; the rest
// are read under the mutex. Redis parameters that change nothing in ordis yet are accepted and
// reported by CONFIG GET so existing redis.conf files and client libraries keep working; the
// README lists them.
//
// Thread safety: all methods are thread safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "index/learned_store.h"
#include "server/config/descriptor_limit.h"

namespace ordis::server {

struct OutputBufferLimit {
  int64_t hard_bytes = 0;  // 0: none
  int64_t soft_bytes = 0;
  int64_t soft_seconds = 0;
};

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Config {
 public:
  Config();

  // Start-up only; throw ConfigError with a message naming the offending line or flag.
  // argv as main's: [config-file] [--name value ...]
  void LoadCommandLine(int argc, char** argv);
  void LoadFile(const std::string& path);

  // CONFIG SET name value [name value ...]: all or nothing. Returns "" or Redis's error text.
  // protected_allowed: enable-protected-configs allows this client to set protected parameters.
  std::string Set(const std::vector<std::pair<std::string, std::string>>& pairs,
                  bool protected_allowed = false);
  // CONFIG GET patterns: (name, value) of every parameter matching any pattern, deduplicated.
  std::vector<std::pair<std::string, std::string>> Get(
      const std::vector<std::string>& patterns) const;
  // CONFIG REWRITE: rewrites the start-up file with current values. Returns "" or error text.
  std::string Rewrite() const;

  // Start-up, before listening: raises the open-file limit for maxclients or lowers maxclients
  // to fit it (the caller logs the result's lines and stops if too_low).
  DescriptorFit FitMaxClientsToDescriptors();

  std::string Value(std::string_view name) const;
  std::string config_file() const;
  // rename-command directives in order: (command, new name), "" disabling the command.
  std::vector<std::pair<std::string, std::string>> command_renames() const;
  // "user <name> <rules...>" directives in order, each as its words ("user" first).
  std::vector<std::vector<std::string>> user_directives() const;
  // The text of --help: every parameter with its default.
  static std::string Help();

  // Hot-path mirrors, updated whenever the parameter changes.
  int port() const { return port_.load(std::memory_order_relaxed); }
  int threads() const { return threads_.load(std::memory_order_relaxed); }
  bool adaptive_threads() const { return adaptive_threads_.load(std::memory_order_relaxed); }
  int databases() const { return databases_.load(std::memory_order_relaxed); }
  int64_t maxclients() const { return maxclients_.load(std::memory_order_relaxed); }
  int64_t timeout_s() const { return timeout_s_.load(std::memory_order_relaxed); }
  int64_t proto_max_bulk_len() const { return proto_max_bulk_len_.load(std::memory_order_relaxed); }
  bool lfu_policy() const { return lfu_policy_.load(std::memory_order_relaxed); }
  int64_t maxmemory() const { return maxmemory_.load(std::memory_order_relaxed); }
  std::string_view maxmemory_policy() const {
    return *maxmemory_policy_.load(std::memory_order_relaxed);
  }
  int maxmemory_samples() const { return maxmemory_samples_.load(std::memory_order_relaxed); }
  int lfu_log_factor() const { return lfu_log_factor_.load(std::memory_order_relaxed); }
  int lfu_decay_time() const { return lfu_decay_time_.load(std::memory_order_relaxed); }
  // lazyfree-lazy-*: whether each kind of deletion frees large values on the lazy-free thread.
  bool lazyfree_lazy_eviction() const { return lazy_eviction_.load(std::memory_order_relaxed); }
  bool lazyfree_lazy_expire() const { return lazy_expire_.load(std::memory_order_relaxed); }
  bool lazyfree_lazy_server_del() const { return lazy_server_del_.load(std::memory_order_relaxed); }
  bool lazyfree_lazy_user_del() const { return lazy_user_del_.load(std::memory_order_relaxed); }
  bool lazyfree_lazy_user_flush() const { return lazy_user_flush_.load(std::memory_order_relaxed); }
  bool tier_prefetch() const { return tier_prefetch_.load(std::memory_order_relaxed); }
  // busy-reply-threshold (alias lua-time-limit): how long a script runs before others get BUSY.
  // slowlog-log-slower-than (negative: off) and slowlog-max-len.
  int64_t slowlog_slower_than_us() const {
    return slowlog_slower_than_us_.load(std::memory_order_relaxed);
  }
  int64_t slowlog_max_len() const { return slowlog_max_len_.load(std::memory_order_relaxed); }
  // latency-monitor-threshold (ms; 0: off) and latency-tracking.
  int64_t latency_monitor_threshold_ms() const {
    return latency_monitor_threshold_ms_.load(std::memory_order_relaxed);
  }
  bool latency_tracking() const { return latency_tracking_.load(std::memory_order_relaxed); }
  int64_t busy_reply_threshold_ms() const {
    return busy_reply_threshold_ms_.load(std::memory_order_relaxed);
  }
  // notify-keyspace-events as keyspace_events::Class bits.
  uint32_t notify_keyspace_events() const {
    return notify_keyspace_events_.load(std::memory_order_relaxed);
  }
  // client-output-buffer-limit's normal and pubsub classes.
  OutputBufferLimit normal_output_limit() const { return normal_limit_.Load(); }
  OutputBufferLimit pubsub_output_limit() const { return pubsub_limit_.Load(); }
  // The replica class: MONITOR clients are in it, as in Redis.
  OutputBufferLimit replica_output_limit() const { return replica_limit_.Load(); }
  int64_t query_buffer_limit() const { return query_buffer_limit_.load(std::memory_order_relaxed); }
  // zset-max-listpack-entries / zset-max-listpack-value, read by every sorted-set insertion.
  int64_t zset_max_listpack_entries() const {
    return zset_max_listpack_entries_.load(std::memory_order_relaxed);
  }
  int64_t zset_max_listpack_value() const {
    return zset_max_listpack_value_.load(std::memory_order_relaxed);
  }
  // stream-node-max-bytes / stream-node-max-entries, read by every XADD.
  int64_t stream_node_max_bytes() const {
    return stream_node_max_bytes_.load(std::memory_order_relaxed);
  }
  int64_t stream_node_max_entries() const {
    return stream_node_max_entries_.load(std::memory_order_relaxed);
  }
  std::vector<std::string> bind_addresses() const;
  // The ordered index (start-up only parameters): `index learned` (else the reference map store)
  // and the learned tree's options from the index-* parameters.
  bool learned_index() const;
  index::LearnedStoreOptions learned_store_options() const;

  struct Param;

 private:
  std::string SetLocked(const std::string& name, const std::string& value, bool startup);
  // One start-up directive (a config line or a --flag) as its words, the lower-case name first:
  // rename-command and user lines are kept as words, every other parameter is set. Returns "" or
  // the reason it is invalid.
  std::string LoadDirectiveLocked(const std::vector<std::string>& words);
  void Mirror(const std::string& name);
  // Constraints between start-up parameters; "" or the reason the combination is invalid.
  std::string CheckCombinationLocked() const;

  mutable std::mutex mu_;
  std::map<std::string, std::string> values_;   // GUARDED_BY(mu_); canonical text by name
  std::map<std::string, std::string> changed_;  // GUARDED_BY(mu_); set since start-up, for REWRITE
  std::string config_file_;                     // GUARDED_BY(mu_)
  std::vector<std::pair<std::string, std::string>> command_renames_;  // GUARDED_BY(mu_)
  std::vector<std::vector<std::string>> user_directives_;             // GUARDED_BY(mu_)

  std::atomic<int> port_{6379};
  std::atomic<int> threads_{1};
  std::atomic<bool> adaptive_threads_{true};
  std::atomic<int> databases_{16};
  std::atomic<int64_t> maxclients_{10000};
  std::atomic<int64_t> timeout_s_{0};
  std::atomic<int64_t> proto_max_bulk_len_{512ll * 1024 * 1024};
  std::atomic<bool> lfu_policy_{false};
  std::atomic<int64_t> maxmemory_{0};
  std::atomic<int64_t> busy_reply_threshold_ms_{5000};
  std::atomic<int64_t> slowlog_slower_than_us_{10000};
  std::atomic<int64_t> slowlog_max_len_{128};
  std::atomic<int64_t> latency_monitor_threshold_ms_{0};
  std::atomic<bool> latency_tracking_{true};
  std::atomic<const std::string_view*> maxmemory_policy_{nullptr};  // set by the constructor
  std::atomic<int> maxmemory_samples_{5};
  std::atomic<int> lfu_log_factor_{10};
  std::atomic<int> lfu_decay_time_{1};
  std::atomic<bool> lazy_eviction_{false};
  std::atomic<bool> lazy_expire_{false};
  std::atomic<bool> lazy_server_del_{false};
  std::atomic<bool> lazy_user_del_{false};
  std::atomic<bool> lazy_user_flush_{false};
  std::atomic<bool> tier_prefetch_{true};
  std::atomic<uint32_t> notify_keyspace_events_{0};
  struct AtomicOutputLimit {
    std::atomic<int64_t> hard{0}, soft{0}, soft_seconds{0};
    OutputBufferLimit Load() const {
      return {hard.load(std::memory_order_relaxed), soft.load(std::memory_order_relaxed),
              soft_seconds.load(std::memory_order_relaxed)};
    }
  };
  AtomicOutputLimit normal_limit_;
  AtomicOutputLimit pubsub_limit_;
  AtomicOutputLimit replica_limit_;
  std::atomic<int64_t> query_buffer_limit_{1ll << 30};
  std::atomic<int64_t> zset_max_listpack_entries_{128};
  std::atomic<int64_t> zset_max_listpack_value_{64};
  std::atomic<int64_t> stream_node_max_bytes_{4096};
  std::atomic<int64_t> stream_node_max_entries_{100};
};

}  // namespace ordis::server
