#include "base/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>

#include "base/fatal.h"

namespace ordis::log {
namespace {

// Redis's levels on spdlog's: debug and verbose below notice, as trace and debug are below info.
spdlog::level::level_enum ToSpdlog(Level level) {
  switch (level) {
    case Level::kDebug:
      return spdlog::level::trace;
    case Level::kVerbose:
      return spdlog::level::debug;
    case Level::kNotice:
      return spdlog::level::info;
    case Level::kWarning:
      return spdlog::level::warn;
  }
  return spdlog::level::info;
}

// %* in the pattern: Redis's level character.
class RedisLevelFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    char c = '#';
    if (msg.level == spdlog::level::trace) c = '.';
    if (msg.level == spdlog::level::debug) c = '-';
    if (msg.level == spdlog::level::info) c = '*';
    dest.push_back(c);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<RedisLevelFlag>();
  }
};

std::shared_ptr<spdlog::logger> NewLogger(spdlog::sink_ptr sink, Level level) {
  auto logger = std::make_shared<spdlog::logger>("ordis", std::move(sink));
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  // "M": the process's role, master, as Redis prints it.
  formatter->add_flag<RedisLevelFlag>('*').set_pattern("%P:M %d %b %Y %H:%M:%S.%e %* %v");
  logger->set_formatter(std::move(formatter));
  logger->set_level(ToSpdlog(level));
  logger->flush_on(spdlog::level::trace);
  return logger;
}

// relaxed: the level only filters; a line racing with a change may be written or not.
std::atomic<Level> current_level{Level::kNotice};
std::mutex logger_mu;
std::shared_ptr<spdlog::logger> logger;  // GUARDED_BY(logger_mu)

std::shared_ptr<spdlog::logger> Logger() {
  std::lock_guard lock(logger_mu);
  if (logger == nullptr) {
    logger = NewLogger(std::make_shared<spdlog::sinks::stdout_sink_mt>(), current_level.load());
    SetFatalLog([](std::string_view message) { Write(Level::kWarning, message); });
  }
  return logger;
}

}  // namespace

bool ParseLevel(std::string_view name, Level* level) {
  static constexpr std::pair<std::string_view, Level> kNames[] = {{"debug", Level::kDebug},
                                                                  {"verbose", Level::kVerbose},
                                                                  {"notice", Level::kNotice},
                                                                  {"warning", Level::kWarning}};
  for (const auto& [n, l] : kNames) {
    if (n == name) {
      *level = l;
      return true;
    }
  }
  return false;
}

void SetLevel(Level level) {
  current_level.store(level, std::memory_order_relaxed);
  Logger()->set_level(ToSpdlog(level));
}

bool SetFile(const std::string& path, std::string* error) {
  if (!path.empty()) {
    // As Redis, the file must open as it is: spdlog would create missing directories.
    FILE* probe = std::fopen(path.c_str(), "a");
    if (probe == nullptr) {
      *error = std::strerror(errno);
      return false;
    }
    std::fclose(probe);
  }
  spdlog::sink_ptr sink;
  try {
    if (path.empty()) {
      sink = std::make_shared<spdlog::sinks::stdout_sink_mt>();
    } else {
      sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path);  // appends, as Redis
    }
  } catch (const spdlog::spdlog_ex& e) {
    *error = e.what();
    return false;
  }
  auto fresh = NewLogger(std::move(sink), current_level.load(std::memory_order_relaxed));
  std::lock_guard lock(logger_mu);
  logger = std::move(fresh);
  return true;
}

bool Enabled(Level level) { return level >= current_level.load(std::memory_order_relaxed); }

void Write(Level level, std::string_view message) { Logger()->log(ToSpdlog(level), message); }

}  // namespace ordis::log
