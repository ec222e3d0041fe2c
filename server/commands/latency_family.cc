// LATENCY LATEST|HISTORY|RESET|GRAPH|DOCTOR|HISTOGRAM|HELP over the latency monitor and the
// per-command histograms (server/stats/latency.h), as Redis 7.0 replies. GRAPH's drawing and
// DOCTOR's report are free text in Redis; ordis writes its own.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/families.h"

namespace ordis::server {
namespace {

void CmdLatencyLatest(CommandContext& ctx) {
  const auto latest = ctx.services.stats.monitor.LatestSamples();
  ctx.out.ArrayHeader(static_cast<int64_t>(latest.size()));
  for (const auto& l : latest) {
    ctx.out.ArrayHeader(4);
    ctx.out.Bulk(l.event);
    ctx.out.Integer(l.time_s);
    ctx.out.Integer(l.latest_ms);
    ctx.out.Integer(l.max_ms);
  }
}

void CmdLatencyHistory(CommandContext& ctx) {
  std::vector<LatencyMonitor::Sample> samples;
  ctx.services.stats.monitor.History(ctx.args[2], &samples);
  ctx.out.ArrayHeader(static_cast<int64_t>(samples.size()));
  for (const auto& s : samples) {
    ctx.out.ArrayHeader(2);
    ctx.out.Integer(s.time_s);
    ctx.out.Integer(s.ms);
  }
}

void CmdLatencyReset(CommandContext& ctx) {
  ctx.out.Integer(static_cast<int64_t>(ctx.services.stats.monitor.Reset(ctx.args.subspan(2))));
}

// One column per sample, oldest first: its height in rows of max/8 milliseconds, under a line
// giving the event, its range and the span of time shown.
void CmdLatencyGraph(CommandContext& ctx) {
  std::vector<LatencyMonitor::Sample> samples;
  if (!ctx.services.stats.monitor.History(ctx.args[2], &samples) || samples.empty()) {
    ctx.out.Error("ERR No samples available for event '" + std::string(ctx.args[2]) + "'");
    return;
  }
  uint32_t lo = UINT32_MAX, hi = 0;
  for (const auto& s : samples) {
    lo = std::min(lo, s.ms);
    hi = std::max(hi, s.ms);
  }
  constexpr int kRows = 8;
  std::string text = std::string(ctx.args[2]) + " - high " + std::to_string(hi) + " ms, low " +
                     std::to_string(lo) + " ms (all time high " + std::to_string(hi) + " ms)\n" +
                     std::string(samples.size(), '-') + "\n";
  for (int row = kRows; row >= 1; --row) {
    for (const auto& s : samples) {
      const uint64_t height = hi == 0 ? 0 : (uint64_t{s.ms} * kRows + hi - 1) / hi;
      text.push_back(height >= static_cast<uint64_t>(row) ? '#' : ' ');
    }
    text.push_back('\n');
  }
  text += std::string(samples.size(), '-') + "\n";
  text += "samples: " + std::to_string(samples.size()) + ", from " +
          std::to_string(ctx.now_ms / 1000 - samples.front().time_s) + " s ago to " +
          std::to_string(ctx.now_ms / 1000 - samples.back().time_s) + " s ago\n";
  ctx.out.Verbatim("txt", text);
}

// A report per event: samples, average, maximum, and the threshold to compare them with.
void CmdLatencyDoctor(CommandContext& ctx) {
  const int64_t threshold = ctx.config().latency_monitor_threshold_ms();
  const auto latest = ctx.services.stats.monitor.LatestSamples();
  std::string text;
  if (threshold == 0 && latest.empty()) {
    text =
        "Latency monitoring is off (latency-monitor-threshold 0): no events are recorded. Turn it "
        "on with CONFIG SET latency-monitor-threshold <milliseconds>.\n";
  } else if (latest.empty()) {
    text = "No event took " + std::to_string(threshold) +
           " ms or more since the monitor started or was reset.\n";
  } else {
    text = "Events that took " + std::to_string(threshold) + " ms or more:\n";
    for (const auto& l : latest) {
      std::vector<LatencyMonitor::Sample> samples;
      ctx.services.stats.monitor.History(l.event, &samples);
      uint64_t sum = 0;
      for (const auto& s : samples) sum += s.ms;
      char line[256];
      std::snprintf(line, sizeof line,
                    "- %s: %zu samples kept, average %llu ms, latest %u ms, all time high %u ms\n",
                    l.event.c_str(), samples.size(),
                    static_cast<unsigned long long>(samples.empty() ? 0 : sum / samples.size()),
                    l.latest_ms, l.max_ms);
      text += line;
    }
    text +=
        "\"command\" and \"fast-command\" are commands' own running times: see SLOWLOG GET for "
        "which ones, and INFO latencystats for each command's percentiles.\n";
  }
  ctx.out.Verbatim("txt", text);
}

// One command's histogram: calls and the power-of-two buckets, as a map.
void ReplyHistogram(CommandContext& ctx, const std::vector<uint64_t>& counts) {
  uint64_t calls = 0;
  for (uint64_t c : counts) calls += c;
  ctx.out.MapHeader(2);
  ctx.out.Bulk("calls");
  ctx.out.Integer(static_cast<int64_t>(calls));
  ctx.out.Bulk("histogram_usec");
  const auto buckets = LatencyHistogram::PowerOfTwoBuckets(counts);
  ctx.out.MapHeader(static_cast<int64_t>(buckets.size()));
  for (const auto& [usec, cumulative] : buckets) {
    ctx.out.Integer(usec);
    ctx.out.Integer(static_cast<int64_t>(cumulative));
  }
}

// LATENCY HISTOGRAM [command ...]: commands named (a container with its subcommands), or all,
// that have run since the last CONFIG RESETSTAT.
void CmdLatencyHistogram(CommandContext& ctx) {
  const CommandTable& table = ctx.services.commands;
  std::vector<const CommandSpec*> specs;
  if (ctx.args.size() == 2) {
    specs = table.flat();
  } else {
    for (size_t i = 2; i < ctx.args.size(); ++i) {
      // "config|get" names one subcommand, "config" the container and all of them.
      const std::string_view name = ctx.args[i];
      const size_t bar = name.find('|');
      const CommandSpec* spec = table.Find(name.substr(0, bar));
      if (spec != nullptr && bar != std::string_view::npos) {
        spec = CommandTable::FindSubcommand(*spec, name.substr(bar + 1));
      }
      if (spec == nullptr) continue;
      specs.push_back(spec);
      if (bar != std::string_view::npos) continue;
      for (const CommandSpec& sub : spec->subcommands) specs.push_back(&sub);
    }
  }
  std::vector<std::pair<const CommandSpec*, std::vector<uint64_t>>> with_data;
  for (const CommandSpec* spec : specs) {
    if (spec == nullptr || spec->id < 0) continue;
    std::vector<uint64_t> counts = ctx.services.stats.Histogram(static_cast<size_t>(spec->id));
    if (std::any_of(counts.begin(), counts.end(), [](uint64_t c) { return c > 0; })) {
      with_data.emplace_back(spec, std::move(counts));
    }
  }
  ctx.out.MapHeader(static_cast<int64_t>(with_data.size()));
  for (const auto& [spec, counts] : with_data) {
    ctx.out.Bulk(spec->name);
    ReplyHistogram(ctx, counts);
  }
}

void CmdLatencyHelp(CommandContext& ctx) {
  static constexpr std::string_view kLines[] = {
      "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "DOCTOR",
      "    Return a human readable latency analysis report.",
      "GRAPH <event>",
      "    Return an ASCII latency graph for the <event> class.",
      "HISTORY <event>",
      "    Return time-latency samples for the <event> class.",
      "LATEST",
      "    Return the latest latency samples for all events.",
      "RESET [<event> ...]",
      "    Reset latency data of one or more <event> classes.",
      "    (default: reset all data for all event classes)",
      "HISTOGRAM [COMMAND ...]",
      "    Return a cumulative distribution of latencies in the format of a histogram for the "
      "specified command names.",
      "    If no commands are specified then all histograms are replied.",
      "HELP",
      "    Prints this help.",
  };
  ReplyHelp(ctx.out, kLines);
}

}  // namespace

void RegisterLatencyFamily(CommandTable* table) {
  using namespace cmd;
  constexpr uint32_t kSub = kAdmin | kNoScript | kLoading | kStale;
  // clang-format off
  table->Register({
      {"latency", -2, 0, 0, 0, 0, nullptr, "server", "A container for latency diagnostics commands",
       {
           {"latency|latest", 2, kSub, 0, 0, 0, CmdLatencyLatest, "server",
            "Return the latest latency samples for all events."},
           {"latency|history", 3, kSub, 0, 0, 0, CmdLatencyHistory, "server",
            "Return timestamp-latency samples for the event."},
           {"latency|reset", -2, kSub, 0, 0, 0, CmdLatencyReset, "server",
            "Reset latency data for one or more events."},
           {"latency|graph", 3, kSub, 0, 0, 0, CmdLatencyGraph, "server",
            "Return a latency graph for the event."},
           {"latency|doctor", 2, kSub, 0, 0, 0, CmdLatencyDoctor, "server",
            "Return a human readable latency analysis report."},
           {"latency|histogram", -2, kSub, 0, 0, 0, CmdLatencyHistogram, "server",
            "Return the cumulative distribution of latencies of a subset of commands or all."},
           {"latency|help", 2, kLoading | kStale, 0, 0, 0, CmdLatencyHelp, "server",
            "Show helpful text about the different subcommands."},
       }},
  });
  // clang-format on
}

}  // namespace ordis::server
