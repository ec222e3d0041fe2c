// INFO [section [section ...]]
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "server/command/arg_parser.h"
#include "server/command/services.h"
#include "server/commands/client_info.h"
#include "server/commands/families.h"
#include "server/commands/memory_report.h"
#include "server/config/config.h"
#include "server/keyspace/eviction.h"
#include "server/scripting/script_cache.h"

namespace ordis::server {
namespace {

std::string Fixed2(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

class InfoBuilder {
 public:
  void Section(std::string_view name) {
    if (!text_.empty()) text_ += "\r\n";
    text_ += "# ";
    text_ += name;
    text_ += "\r\n";
  }
  template <typename T>
  void Field(std::string_view name, const T& value) {
    text_ += name;
    text_ += ':';
    if constexpr (std::is_arithmetic_v<T>) {
      text_ += std::to_string(value);
    } else {
      text_ += value;
    }
    text_ += "\r\n";
  }
  std::string& text() { return text_; }

 private:
  std::string text_;
};

// 40 hex digits drawn once per process: run_id (which = 0) and master_replid (1), as Redis's.
const std::string& ProcessId(int which) {
  static const std::array<std::string, 2> ids = [] {
    std::random_device rd;
    std::array<std::string, 2> out;
    for (auto& id : out) {
      for (int i = 0; i < 40; ++i) id.push_back("0123456789abcdef"[rd() % 16]);
    }
    return out;
  }();
  return ids[static_cast<size_t>(which)];
}

void ServerSection(CommandContext& ctx, InfoBuilder& b) {
  const ServerControl& s = ctx.services.control;
  utsname un{};
  uname(&un);
  int64_t uptime_s = (ctx.now_ms - s.start_time_ms()) / 1000;
  b.Section("Server");
  b.Field("redis_version", std::string(kRedisVersion));
  b.Field("ordis_version", std::string(kOrdisVersion));
  b.Field("redis_git_sha1", "00000000");
  b.Field("redis_git_dirty", 0);
  b.Field("redis_build_id", "0");
  b.Field("redis_mode", "standalone");
  b.Field("os", std::string(un.sysname) + " " + un.release + " " + un.machine);
  b.Field("arch_bits", static_cast<int>(sizeof(void*) * 8));
  b.Field("monotonic_clock", "POSIX clock_gettime");
  b.Field("multiplexing_api", "epoll");
  b.Field("atomicvar_api", "c11-builtin");
  b.Field("gcc_version", std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
                             std::to_string(__GNUC_PATCHLEVEL__));
  b.Field("process_id", static_cast<int64_t>(getpid()));
  b.Field("process_supervised", "no");
  b.Field("run_id", ProcessId(0));
  b.Field("tcp_port", s.listening_port());
  b.Field("server_time_usec", ctx.now_ms * 1000);
  b.Field("uptime_in_seconds", uptime_s);
  b.Field("uptime_in_days", uptime_s / 86400);
  b.Field("hz", 10);
  b.Field("configured_hz", 10);
  b.Field("lru_clock", LruClockS(ctx.now_ms) & ((1u << 24) - 1));  // Redis's 24-bit clock
  b.Field("executable", "ordis-server");
  b.Field("config_file", ctx.config().config_file());
  b.Field("io_threads_active", s.Threads().active);
}

void ClientsSection(CommandContext& ctx, InfoBuilder& b) {
  b.Section("Clients");
  b.Field("connected_clients", ctx.services.clients.size());
  b.Field("cluster_connections", 0);
  b.Field("maxclients", ctx.config().maxclients());
  // Clients whose command CLIENT PAUSE postponed count as blocked too, as in Redis.
  size_t postponed = 0;
  ctx.services.clients.ForEach([&](ClientState& c) {
    if (c.postponed.load(std::memory_order_relaxed)) ++postponed;
  });
  b.Field("blocked_clients", ctx.services.blocked.size() + postponed);
  b.Field("tracking_clients", ctx.services.tracking.tracking_clients());
}

void MemorySection(CommandContext& ctx, InfoBuilder& b) {
  const MemoryReport m = ReadMemoryReport(ctx.services);
  const base::AllocatorStats& a = m.allocator;
  b.Section("Memory");
  b.Field("used_memory", m.used);
  b.Field("used_memory_human", HumanBytes(m.used));
  b.Field("used_memory_rss", m.rss);
  b.Field("used_memory_rss_human", HumanBytes(m.rss));
  b.Field("used_memory_peak", m.peak);
  b.Field("used_memory_peak_human", HumanBytes(m.peak));
  b.Field("used_memory_peak_perc", Fixed2(m.peak_percentage()) + "%");
  b.Field("used_memory_overhead", m.overhead);
  b.Field("used_memory_startup", m.startup);
  b.Field("used_memory_dataset", m.dataset());
  b.Field("used_memory_dataset_perc", Fixed2(m.dataset_percentage()) + "%");
  b.Field("allocator_allocated", a.allocated);
  b.Field("allocator_active", a.active);
  b.Field("allocator_resident", a.resident);
  b.Field("total_system_memory", m.total_system_memory);
  b.Field("total_system_memory_human", HumanBytes(m.total_system_memory));
  // Scripts: every I/O thread's Lua engine together (it holds the functions too: Redis's
  // separate functions VM is 0 here).
  const scripting::ScriptCache& scripts = ctx.services.scripts;
  const uint64_t lua = static_cast<uint64_t>(std::max<int64_t>(0, scripts.engine_bytes()));
  b.Field("used_memory_lua", lua);
  b.Field("used_memory_vm_eval", lua);
  b.Field("used_memory_lua_human", HumanBytes(lua));
  b.Field("used_memory_scripts_eval", scripts.bytes());
  b.Field("number_of_cached_scripts", scripts.size());
  b.Field("number_of_functions", ctx.services.functions.function_count());
  b.Field("number_of_libraries", ctx.services.functions.library_count());
  b.Field("used_memory_vm_functions", 0);
  b.Field("used_memory_vm_total", lua);
  b.Field("used_memory_vm_total_human", HumanBytes(lua));
  const size_t function_bytes = ctx.services.functions.code_bytes();
  b.Field("used_memory_functions", function_bytes);
  b.Field("used_memory_scripts", scripts.bytes() + function_bytes);
  b.Field("used_memory_scripts_human", HumanBytes(scripts.bytes() + function_bytes));
  b.Field("maxmemory", m.maxmemory);
  b.Field("maxmemory_human", HumanBytes(static_cast<uint64_t>(m.maxmemory)));
  b.Field("maxmemory_policy", m.policy);
  b.Field("allocator_frag_ratio", Fixed2(MemoryReport::Ratio(a.active, a.allocated)));
  b.Field("allocator_frag_bytes", MemoryReport::Difference(a.active, a.allocated));
  b.Field("allocator_rss_ratio", Fixed2(MemoryReport::Ratio(a.resident, a.active)));
  b.Field("allocator_rss_bytes", MemoryReport::Difference(a.resident, a.active));
  b.Field("rss_overhead_ratio", Fixed2(MemoryReport::Ratio(m.rss, a.resident)));
  b.Field("rss_overhead_bytes", MemoryReport::Difference(m.rss, a.resident));
  b.Field("mem_fragmentation_ratio", Fixed2(MemoryReport::Ratio(m.rss, m.used)));
  b.Field("mem_fragmentation_bytes", MemoryReport::Difference(m.rss, m.used));
  // No replicas, no cluster: nothing is left out of what maxmemory counts.
  b.Field("mem_not_counted_for_evict", 0);
  b.Field("mem_clients_slaves", 0);  // no replication, no cluster
  b.Field("mem_replication_backlog", 0);
  b.Field("mem_total_replication_buffers", 0);
  b.Field("mem_cluster_links", 0);
  b.Field("mem_allocator", base::AllocatorName());
  b.Field("active_defrag_running", 0);
  b.Field("lazyfree_pending_objects", ctx.keyspace().lazy_free().pending());
  b.Field("lazyfreed_objects", ctx.keyspace().lazy_free().freed());
}

void PersistenceSection(CommandContext& ctx, InfoBuilder& b) {
  const PersistenceInfo p = ctx.services.durability.Info();
  auto status = [](bool ok) { return ok ? "ok" : "err"; };
  b.Section("Persistence");
  b.Field("loading", p.loading ? 1 : 0);
  b.Field("async_loading", 0);
  // No fork, so no copy-on-write (snapshots and rewrites dump from a thread).
  b.Field("current_cow_peak", 0);
  b.Field("current_cow_size", 0);
  b.Field("current_cow_size_age", 0);
  b.Field("current_fork_perc", "0.00");
  b.Field("rdb_changes_since_last_save", p.changes_since_save);
  b.Field("rdb_bgsave_in_progress", p.bgsave_in_progress ? 1 : 0);
  b.Field("rdb_last_save_time", p.last_save_time_s);
  b.Field("rdb_last_bgsave_status", status(p.last_bgsave_ok));
  b.Field("rdb_last_bgsave_time_sec", p.last_bgsave_time_s);
  b.Field("rdb_current_bgsave_time_sec", p.current_save_time_s);
  b.Field("rdb_saves", p.saves);
  b.Field("rdb_last_load_keys_loaded", p.loaded_keys);
  b.Field("aof_enabled", p.aof_enabled ? 1 : 0);
  b.Field("aof_rewrite_in_progress", p.aof_rewrite_in_progress ? 1 : 0);
  b.Field("aof_rewrite_scheduled", p.aof_rewrite_scheduled ? 1 : 0);
  b.Field("aof_last_rewrite_time_sec", p.last_rewrite_time_s);
  b.Field("aof_current_rewrite_time_sec", p.current_rewrite_time_s);
  b.Field("aof_last_bgrewrite_status", status(p.last_rewrite_ok));
  b.Field("aof_rewrites", p.aof_rewrites);
  b.Field("aof_last_write_status", status(p.aof_last_write_ok));
  if (p.aof_enabled) {
    b.Field("aof_current_size", p.aof_current_size);
    b.Field("aof_base_size", p.aof_base_size);
  }
  b.Field("rdb_last_cow_size", 0);
  b.Field("aof_last_cow_size", 0);
  b.Field("module_fork_in_progress", 0);
  b.Field("module_fork_last_cow_size", 0);
  b.Field("loading_loaded_keys_total", p.loaded_keys);
  b.Field("loading_time_ms", p.load_time_ms);
}

void StatsSection(CommandContext& ctx, InfoBuilder& b) {
  const ServerStats& t = ctx.services.stats;
  b.Section("Stats");
  b.Field("total_connections_received", t.Sum(Stat::kConnectionsReceived));
  b.Field("total_commands_processed", t.Sum(Stat::kCommandsProcessed));
  b.Field("instantaneous_ops_per_sec", static_cast<int64_t>(t.ops_rate.PerSecond()));
  b.Field("total_net_input_bytes", t.Sum(Stat::kNetInputBytes));
  b.Field("total_net_output_bytes", t.Sum(Stat::kNetOutputBytes));
  // No replication: its traffic is zero.
  b.Field("total_net_repl_input_bytes", 0);
  b.Field("total_net_repl_output_bytes", 0);
  b.Field("instantaneous_input_kbps", Fixed2(t.input_rate.PerSecond() / 1024));
  b.Field("instantaneous_output_kbps", Fixed2(t.output_rate.PerSecond() / 1024));
  b.Field("instantaneous_input_repl_kbps", "0.00");
  b.Field("instantaneous_output_repl_kbps", "0.00");
  b.Field("rejected_connections", t.Sum(Stat::kRejectedConnections));
  b.Field("sync_full", 0);
  b.Field("sync_partial_ok", 0);
  b.Field("sync_partial_err", 0);
  b.Field("expired_keys", ctx.keyspace().expired_keys());
  b.Field("evicted_keys", ctx.keyspace().evicted_keys());
  b.Field("evicted_clients", 0);  // maxmemory-clients has no effect in ordis
  // ordis never forks (snapshots and rewrites run on a thread): no fork, no copy-on-write.
  b.Field("total_forks", 0);
  b.Field("latest_fork_usec", 0);
  b.Field("keyspace_hits", t.Sum(Stat::kKeyspaceHits));
  b.Field("keyspace_misses", t.Sum(Stat::kKeyspaceMisses));
  b.Field("pubsub_channels", ctx.services.pubsub.Count(SubscriptionKind::kChannel));
  b.Field("pubsub_patterns", ctx.services.pubsub.Count(SubscriptionKind::kPattern));
  b.Field("pubsubshard_channels", ctx.services.pubsub.Count(SubscriptionKind::kShard));
  b.Field("client_output_buffer_limit_disconnections", t.Sum(Stat::kOutputLimitDisconnections));
  b.Field("tracking_total_keys", ctx.services.tracking.total_keys());
  b.Field("tracking_total_items", ctx.services.tracking.total_items());
  b.Field("tracking_total_prefixes", ctx.services.tracking.total_prefixes());
  b.Field("migrate_cached_sockets", 0);  // MIGRATE connects per call
  b.Field("slave_expires_tracked_keys", 0);
  b.Field("active_defrag_hits", 0);  // no active defragmentation
  b.Field("active_defrag_misses", 0);
  b.Field("active_defrag_key_hits", 0);
  b.Field("active_defrag_key_misses", 0);
  b.Field("total_active_defrag_time", 0);
  b.Field("current_active_defrag_time", 0);
  b.Field("total_error_replies", t.Sum(Stat::kErrorReplies));
  b.Field("dump_payload_sanitizations", 0);  // RESTORE checks every payload whole
  b.Field("total_reads_processed", t.Sum(Stat::kReadsProcessed));
  b.Field("total_writes_processed", t.Sum(Stat::kWritesProcessed));
  b.Field("io_threaded_reads_processed", 0);  // Redis's io-threads: ordis's threads are whole
  b.Field("io_threaded_writes_processed", 0);
  b.Field("acl_access_denied_auth", t.Sum(Stat::kAclDeniedAuth));
  b.Field("acl_access_denied_cmd", t.Sum(Stat::kAclDeniedCmd));
  b.Field("acl_access_denied_key", t.Sum(Stat::kAclDeniedKey));
  b.Field("acl_access_denied_channel", t.Sum(Stat::kAclDeniedChannel));
}

// ordis only: the I/O threads, how many take connections (ThreadBalancer) and what each holds.
void ThreadsSection(CommandContext& ctx, InfoBuilder& b) {
  const ThreadsInfo threads = ctx.services.control.Threads();
  b.Section("Threads");
  b.Field("io_threads", threads.connections.size());
  b.Field("io_threads_active", threads.active);
  b.Field("adaptive_threads", ctx.config().adaptive_threads() ? "yes" : "no");
  b.Field("io_threads_changes", threads.changes);
  b.Field("connections_moved", ctx.services.stats.Sum(Stat::kConnectionsMoved));
  for (size_t i = 0; i < threads.connections.size(); ++i) {
    b.Field("io_thread_" + std::to_string(i),
            "connections=" + std::to_string(threads.connections[i]) + ",keyspace_lock_wait_us=" +
                std::to_string(Read(ctx.services.stats.thread(i)[Stat::kKeyspaceLockWaitUs])));
  }
}

// A master without replicas (ordis does not replicate).
void ReplicationSection(CommandContext& ctx, InfoBuilder& b) {
  b.Section("Replication");
  b.Field("role", "master");
  b.Field("connected_slaves", 0);
  b.Field("master_failover_state", "no-failover");
  b.Field("master_replid", ProcessId(1));
  b.Field("master_replid2", std::string(40, '0'));
  b.Field("master_repl_offset", 0);
  b.Field("second_repl_offset", -1);
  b.Field("repl_backlog_active", 0);
  b.Field("repl_backlog_size", ctx.config().Value("repl-backlog-size").empty()
                                   ? std::string("1048576")
                                   : ctx.config().Value("repl-backlog-size"));
  b.Field("repl_backlog_first_byte_offset", 0);
  b.Field("repl_backlog_histlen", 0);
}

void CpuSection(InfoBuilder& b) {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  char buf[64];
  b.Section("CPU");
  std::snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(ru.ru_stime.tv_sec),
                static_cast<long>(ru.ru_stime.tv_usec));
  b.Field("used_cpu_sys", std::string(buf));
  std::snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(ru.ru_utime.tv_sec),
                static_cast<long>(ru.ru_utime.tv_usec));
  b.Field("used_cpu_user", std::string(buf));
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  std::snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(children.ru_stime.tv_sec),
                static_cast<long>(children.ru_stime.tv_usec));
  b.Field("used_cpu_sys_children", std::string(buf));
  std::snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(children.ru_utime.tv_sec),
                static_cast<long>(children.ru_utime.tv_usec));
  b.Field("used_cpu_user_children", std::string(buf));
  // The thread serving INFO stands for Redis's main thread.
  rusage self{};
  getrusage(RUSAGE_THREAD, &self);
  std::snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(self.ru_stime.tv_sec),
                static_cast<long>(self.ru_stime.tv_usec));
  b.Field("used_cpu_sys_main_thread", std::string(buf));
  std::snprintf(buf, sizeof(buf), "%ld.%06ld", static_cast<long>(self.ru_utime.tv_sec),
                static_cast<long>(self.ru_utime.tv_usec));
  b.Field("used_cpu_user_main_thread", std::string(buf));
}

// Redis's "%.3f"-free percentile label: p50, p99, p99.9.
std::string PercentileLabel(double p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "p%g", p);
  return buf;
}

void ErrorStatsSection(CommandContext& ctx, InfoBuilder& b) {
  b.Section("Errorstats");
  for (const auto& [code, n] : ctx.services.stats.ErrorCodes()) {
    b.Field("errorstat_" + code, "count=" + std::to_string(n));
  }
}

// latency-tracking-info-percentiles of each command's latency histogram, in microseconds.
void LatencyStatsSection(CommandContext& ctx, InfoBuilder& b) {
  b.Section("Latencystats");
  std::vector<double> percentiles;
  std::string setting = ctx.config().Value("latency-tracking-info-percentiles");
  for (size_t start = 0; start < setting.size();) {
    size_t end = setting.find(' ', start);
    if (end == std::string::npos) end = setting.size();
    double p;
    if (end > start && ParseDouble(std::string_view(setting).substr(start, end - start), &p)) {
      percentiles.push_back(p);
    }
    start = end + 1;
  }
  const auto& all = ctx.services.commands.flat();
  for (size_t i = 0; i < all.size(); ++i) {
    const std::vector<uint64_t> counts = ctx.services.stats.Histogram(i);
    if (std::all_of(counts.begin(), counts.end(), [](uint64_t c) { return c == 0; })) continue;
    std::string value;
    for (double p : percentiles) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%s=%.3f", PercentileLabel(p).c_str(),
                    static_cast<double>(LatencyHistogram::ValueAtPercentile(counts, p)) / 1000.0);
      value += (value.empty() ? "" : ",") + std::string(buf);
    }
    b.Field("latency_percentiles_usec_" + std::string(all[i]->name), value);
  }
}

// part / whole as a percentage, 0 when whole is 0.
std::string Percent(uint64_t part, uint64_t whole) {
  return Fixed2(whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

void IndexSection(CommandContext& ctx, InfoBuilder& b) {
  // The index parameters are start-up only, so the config says which store was built.
  const Config& config = ctx.config();
  bool learned = config.learned_index();
  bool hot_cache = learned && config.Value("index-hot-cache") == "yes";
  index::IndexStats s = ctx.keyspace().IndexStats();
  b.Section("Index");
  b.Field("index_kind", learned ? "learned" : "map");
  b.Field("index_keys", s.keys);
  b.Field("index_leaves", s.leaves);
  b.Field("index_inner_nodes", s.inner_nodes);
  b.Field("index_depth", s.depth);
  b.Field("index_model_error_mean", Fixed2(s.mean_model_error));
  b.Field("index_model_error_max", s.max_model_error);
  b.Field("index_buffered_entries", s.buffered_entries);
  b.Field("index_buffer_slots", s.buffer_slots);
  b.Field("index_buffer_fill", Percent(s.buffered_entries, s.buffer_slots));
  b.Field("index_patches", s.patches);
  b.Field("index_splits", s.splits);
  b.Field("index_merges", s.merges);
  b.Field("index_idle_flushes", s.idle_flushes);
  b.Field("index_bytes", s.index_bytes);
  b.Field("index_key_bytes", s.key_bytes);
  b.Field(
      "index_bytes_per_key",
      Fixed2(s.keys == 0 ? 0.0 : static_cast<double>(s.index_bytes) / static_cast<double>(s.keys)));
  b.Field("index_retired_pending", s.retired_pending);
  b.Field("index_retired_bytes", s.retired_bytes);
  b.Field("hot_cache", hot_cache ? "enabled" : "disabled");
  b.Field("hot_cache_lookups", s.hot_cache_lookups);
  b.Field("hot_cache_hits", s.hot_cache_hits);
  b.Field("hot_cache_hit_rate", Percent(s.hot_cache_hits, s.hot_cache_lookups));
}

void CommandStatsSection(CommandContext& ctx, InfoBuilder& b) {
  b.Section("Commandstats");
  const ServerStats& t = ctx.services.stats;
  const auto& all = ctx.services.commands.flat();
  for (size_t i = 0; i < all.size(); ++i) {
    const uint64_t calls = t.Sum(i, CommandStat::kCalls);
    const uint64_t rejected = t.Sum(i, CommandStat::kRejectedCalls);
    if (calls == 0 && rejected == 0) continue;
    const uint64_t usec = t.Sum(i, CommandStat::kUsec);
    char buf[256];
    double per_call = calls ? static_cast<double>(usec) / static_cast<double>(calls) : 0;
    std::snprintf(buf, sizeof(buf),
                  "calls=%" PRIu64 ",usec=%" PRIu64 ",usec_per_call=%.2f,rejected_calls=%" PRIu64
                  ",failed_calls=%" PRIu64,
                  calls, usec, per_call, rejected, t.Sum(i, CommandStat::kFailedCalls));
    b.Field("cmdstat_" + std::string(all[i]->name), std::string(buf));
  }
}

// The cold tier (server/keyspace/cold_tier.h): values on disk, and what moving them cost.
void TieringSection(CommandContext& ctx, InfoBuilder& b) {
  b.Section("Tiering");
  const Keyspace& ks = ctx.keyspace();
  const ColdTier* tier = ks.tier();
  b.Field("tier_enabled", tier != nullptr ? 1 : 0);
  if (tier == nullptr) {
    if (!ks.tier_unavailable().empty()) b.Field("tier_unavailable", ks.tier_unavailable());
    return;
  }
  const ColdTier::Stats s = tier->stats();
  b.Field("tier_dir", ctx.config().Value("tier-dir"));
  b.Field("tier_cold_keys", s.cold_keys);
  b.Field("tier_cold_bytes", s.cold_bytes);
  b.Field("tier_file_bytes", s.file_bytes);
  b.Field("tier_garbage_bytes", s.garbage_bytes);
  b.Field("tier_demotions", s.demotions);
  b.Field("tier_promotions", s.promotions);
  // Reads of cold values: ahead of their batches (prefetch), then synchronous ones.
  b.Field("tier_prefetch", ctx.config().tier_prefetch() ? "yes" : "no");
  b.Field("tier_batches_waited", ctx.services.stats.Sum(Stat::kTierBatchesWaited));
  b.Field("tier_prefetch_reads", s.prefetch.reads);
  b.Field("tier_prefetch_shared", s.prefetch.shared);
  b.Field("tier_prefetch_ring_full", s.prefetch.ring_full);
  b.Field("tier_prefetch_damaged", s.prefetch.damaged);
  b.Field("tier_loading_zone_puts", s.prefetch.landed);
  b.Field("tier_loading_zone_hits", s.prefetch.zone_hits);
  b.Field("tier_loading_zone_full", s.prefetch.zone_full);
  b.Field("tier_loading_zone_dropped", s.prefetch.zone_dropped);
  b.Field("tier_reads", s.reads);  // synchronous: not prefetched, or not taken from the zone
  b.Field("tier_disk_reads", s.store.disk_reads);
  b.Field("tier_host_view", tier->host_view() != nullptr ? 1 : 0);
  if (tier->host_view() == nullptr) {
    b.Field("tier_host_view_unavailable", tier->host_view_unavailable());
  } else {
    b.Field("tier_host_view_keys", s.view_keys);
    b.Field("tier_host_view_capacity", s.view_capacity);
    b.Field("tier_host_view_learned", s.view_learned);  // resident keys it did not hold
    b.Field("tier_host_view_full", s.view_full);
  }
  b.Field("tier_read_errors", s.read_errors);
  b.Field("tier_batches_written", s.store.batches);
  b.Field("tier_pending_batches", s.store.pending_batches);
  b.Field("tier_write_errors", s.store.write_errors);
  b.Field("tier_compactions", s.store.compactions);
  b.Field("tier_compaction_moved", s.store.moved);
  b.Field("tier_accepting", tier->accepting() ? 1 : 0);
  if (!s.failed.empty()) b.Field("tier_failed", s.failed);
}

void KeyspaceSection(CommandContext& ctx, InfoBuilder& b) {
  b.Section("Keyspace");
  Keyspace& ks = ctx.keyspace();
  for (int db = 0; db < ks.num_dbs(); ++db) {
    size_t keys = ks.DbSize(db);
    if (keys == 0) continue;
    b.Field("db" + std::to_string(db),
            "keys=" + std::to_string(keys) + ",expires=" + std::to_string(ks.ExpiresCount(db)) +
                ",avg_ttl=" + std::to_string(ks.AvgTtlMs(db, ctx.now_ms)));
  }
}

// INFO [section ...]: "default" (no argument), "all", "everything", or section names.
void CmdInfo(CommandContext& ctx) {
  static constexpr std::string_view kDefault[] = {
      "server",  "clients",    "memory",  "persistence", "stats", "replication", "cpu",
      "modules", "errorstats", "cluster", "threads",     "index", "keyspace"};
  std::vector<std::string_view> wanted;
  bool all = false;
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    std::string_view s = ctx.args[i];
    if (EqualsIgnoreCase(s, "all") || EqualsIgnoreCase(s, "everything")) {
      all = true;
    } else if (EqualsIgnoreCase(s, "default")) {
      wanted.insert(wanted.end(), std::begin(kDefault), std::end(kDefault));
    } else {
      wanted.push_back(s);
    }
  }
  if (ctx.args.size() == 1) wanted.assign(std::begin(kDefault), std::end(kDefault));
  auto want = [&](std::string_view name) {
    if (all) return true;
    for (auto w : wanted) {
      if (EqualsIgnoreCase(w, name)) return true;
    }
    return false;
  };
  InfoBuilder b;
  if (want("server")) ServerSection(ctx, b);
  if (want("clients")) ClientsSection(ctx, b);
  if (want("memory")) MemorySection(ctx, b);
  if (want("persistence")) PersistenceSection(ctx, b);
  if (want("stats")) StatsSection(ctx, b);
  if (want("replication")) ReplicationSection(ctx, b);
  if (want("cpu")) CpuSection(b);
  if (want("modules")) b.Section("Modules");  // ordis loads no modules
  if (want("threads")) ThreadsSection(ctx, b);
  if (want("index")) IndexSection(ctx, b);
  if (want("tiering")) TieringSection(ctx, b);
  if (want("commandstats")) CommandStatsSection(ctx, b);
  if (want("errorstats")) ErrorStatsSection(ctx, b);
  if (want("latencystats")) LatencyStatsSection(ctx, b);
  if (want("cluster")) {
    b.Section("Cluster");
    b.Field("cluster_enabled", 0);
  }
  if (want("keyspace")) KeyspaceSection(ctx, b);
  ctx.out.Verbatim("txt", b.text());
}

}  // namespace

void RegisterInfo(CommandTable* table) {
  using namespace cmd;
  // One row per command.
  // clang-format off
  table->Register({
      {"info", -1, kLoading | kStale | kSharedLock, 0, 0, 0, CmdInfo, "server",
       "Get information and statistics about the server"},
  });
  // clang-format on
}

}  // namespace ordis::server
