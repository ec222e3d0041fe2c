// MEMORY USAGE STATS DOCTOR PURGE MALLOC-STATS HELP
#include <string>
#include <vector>

#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/commands/families.h"
#include "server/commands/memory_report.h"

namespace ordis::server {
namespace {

// MEMORY USAGE key [SAMPLES count]
void CmdMemoryUsage(CommandContext& ctx) {
  if (ctx.args.size() == 5 && EqualsIgnoreCase(ctx.args[3], "SAMPLES")) {
    int64_t samples;
    if (!ParseInt64(ctx.args[4], &samples)) {
      ctx.out.Error(errors::kNotInteger);
      return;
    }
    if (samples < 0) {
      ctx.out.Error(errors::kSyntax);
      return;
    }
  } else if (ctx.args.size() != 3) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  // A cold key counts what is resident: its object and index entries, not its value.
  Object* obj = ctx.keyspace().FindHeader(ctx.db(), ctx.args[2], ctx.now_ms, ctx.expired);
  if (obj == nullptr) {
    ctx.out.NullBulk();
    return;
  }
  ctx.out.Integer(static_cast<int64_t>(Keyspace::MemoryUsage(ctx.args[2], *obj)));
}

// MEMORY STATS: Redis's map, with the fields ordis has (no Lua, functions, replicas or cluster
// yet: those entries are left out rather than reported as zero).
void CmdMemoryStats(CommandContext& ctx) {
  const MemoryReport m = ReadMemoryReport(ctx.services);
  const base::AllocatorStats& a = m.allocator;
  const uint64_t net = m.used > m.startup ? m.used - m.startup : 0;
  ctx.out.MapHeader(22);
  auto integer = [&](std::string_view name, int64_t v) {
    ctx.out.Bulk(name);
    ctx.out.Integer(v);
  };
  auto real = [&](std::string_view name, double v) {
    ctx.out.Bulk(name);
    ctx.out.Double(v);
  };
  integer("peak.allocated", static_cast<int64_t>(m.peak));
  integer("total.allocated", static_cast<int64_t>(m.used));
  integer("startup.allocated", static_cast<int64_t>(m.startup));
  integer("replication.backlog", 0);
  integer("clients.slaves", 0);
  integer("overhead.total", static_cast<int64_t>(m.overhead));
  integer("keys.count", static_cast<int64_t>(m.keys));
  integer("keys.bytes-per-key", m.keys ? static_cast<int64_t>(net / m.keys) : 0);
  integer("dataset.bytes", static_cast<int64_t>(m.dataset()));
  real("dataset.percentage", m.dataset_percentage());
  real("peak.percentage", m.peak_percentage());
  integer("allocator.allocated", static_cast<int64_t>(a.allocated));
  integer("allocator.active", static_cast<int64_t>(a.active));
  integer("allocator.resident", static_cast<int64_t>(a.resident));
  real("allocator-fragmentation.ratio", MemoryReport::Ratio(a.active, a.allocated));
  integer("allocator-fragmentation.bytes", MemoryReport::Difference(a.active, a.allocated));
  real("allocator-rss.ratio", MemoryReport::Ratio(a.resident, a.active));
  integer("allocator-rss.bytes", MemoryReport::Difference(a.resident, a.active));
  real("rss-overhead.ratio", MemoryReport::Ratio(m.rss, a.resident));
  integer("rss-overhead.bytes", MemoryReport::Difference(m.rss, a.resident));
  real("fragmentation", MemoryReport::Ratio(m.rss, m.used));
  integer("fragmentation.bytes", MemoryReport::Difference(m.rss, m.used));
}

// MEMORY DOCTOR: what in the figures deserves attention, in the same conditions Redis checks
// (its thresholds), in our own words.
void CmdMemoryDoctor(CommandContext& ctx) {
  const MemoryReport m = ReadMemoryReport(ctx.services);
  const base::AllocatorStats& a = m.allocator;
  constexpr uint64_t kSmall = 5 << 20;  // below this, ratios say nothing
  std::string report;
  if (m.used < kSmall) {
    report = "This instance holds too little memory for a diagnosis (under 5 MB used).\n";
  } else {
    std::vector<std::string> issues;
    if (m.peak > m.used * 3 / 2) {
      issues.push_back(
          "Peak memory: at some point the server used more than 150% of what it uses now "
          "(used_memory_peak). Fragmentation ratios may be high for that reason.");
    }
    // Each layer of memory against the one below it: worth a word past 10% and 10 MB.
    const struct {
      uint64_t outer, inner;
      const char* text;
    } layers[] = {
        {a.active, a.allocated,
         "Allocator fragmentation: the allocator's active pages exceed what is allocated by "
         "more than 10% (allocator_frag_ratio); MEMORY PURGE or a restart returns it."},
        {a.resident, a.active,
         "Allocator RSS: the allocator keeps more than 10% of resident pages it does not use "
         "(allocator_rss_ratio); MEMORY PURGE returns them to the system."},
        {m.rss, a.resident,
         "RSS overhead: the process is more than 10% larger than the allocator's resident "
         "pages (rss_overhead_ratio): memory held outside the allocator."},
    };
    for (const auto& layer : layers) {
      if (MemoryReport::Ratio(layer.outer, layer.inner) > 1.1 &&
          MemoryReport::Difference(layer.outer, layer.inner) > 10 << 20) {
        issues.push_back(layer.text);
      }
    }
    if (m.maxmemory > 0 && m.used > static_cast<uint64_t>(m.maxmemory) &&
        m.policy == "noeviction") {
      issues.push_back(
          "Memory is over maxmemory with maxmemory-policy noeviction: writes are refused with "
          "OOM until keys are deleted or the limit is raised.");
    }
    if (issues.empty()) {
      report = "No memory issues found in this instance.\n";
    } else {
      report = "Memory issues found in this instance:\n\n";
      for (const std::string& issue : issues) report += " * " + issue + "\n\n";
    }
  }
  ctx.out.Verbatim("txt", report);
}

// MEMORY PURGE
void CmdMemoryPurge(CommandContext& ctx) {
  base::PurgeAllocator();
  ctx.out.Ok();
}

// MEMORY MALLOC-STATS
void CmdMemoryMallocStats(CommandContext& ctx) {
  std::string report = base::AllocatorReport();
  if (report.empty()) report = "Stats not supported for the current allocator";
  ctx.out.Verbatim("txt", report);
}

// MEMORY HELP
void CmdMemoryHelp(CommandContext& ctx) {
  static constexpr std::string_view kHelp[] = {
      "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return memory problems reports.",
      "MALLOC-STATS",
      "    Return internal statistics report from the memory allocator.",
      "PURGE",
      "    Attempt to purge dirty pages for reclamation by the allocator.",
      "STATS",
      "    Return information about the memory usage of the server.",
      "USAGE <key> [SAMPLES <count>]",
      "    Return memory in bytes used by <key> and its value. Nested values are",
      "    sampled up to <count> times (default: 5, 0 means sample all).",
      "HELP",
      "    Print this help."};
  ReplyHelp(ctx.out, kHelp);
}

}  // namespace

void RegisterMemoryFamily(CommandTable* table) {
  using namespace cmd;
  // clang-format off
  table->Register({
      {"memory", -2, 0, 0, 0, 0, nullptr, "server", "A container for memory diagnostics commands",
       {
           {"memory|usage", -3, kReadonly, 2, 2, 1, CmdMemoryUsage, "server",
            "Estimate the memory usage of a key"},
           {"memory|stats", 2, kSharedLock, 0, 0, 0, CmdMemoryStats, "server", "Show memory usage details"},
           {"memory|doctor", 2, kSharedLock, 0, 0, 0, CmdMemoryDoctor, "server", "Outputs memory problems report"},
           {"memory|purge", 2, 0, 0, 0, 0, CmdMemoryPurge, "server",
            "Ask the allocator to release memory"},
           {"memory|malloc-stats", 2, 0, 0, 0, 0, CmdMemoryMallocStats, "server",
            "Show allocator internal stats"},
           {"memory|help", 2, kLoading | kStale, 0, 0, 0, CmdMemoryHelp, "server",
            "Show helpful text about the different subcommands"},
       }},
  });
  // clang-format on
}

}  // namespace ordis::server
