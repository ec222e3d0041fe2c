// The server's log, with Redis's levels and line format (`pid:M 24 Nov 2026 00:45:01.123 * text`,
// the character after the time naming the level: . debug, - verbose, * notice, # warning), over
// spdlog. `loglevel` chooses what is written, `logfile` where ("" is standard output, as Redis).
// Messages are fmt format strings: log::Notice("listening on port {}", port).
//
// Thread safety: thread safe; a line is written whole, and flushed at once (logs are rare).
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>

namespace ordis::log {

enum class Level { kDebug, kVerbose, kNotice, kWarning };

// Redis 7.0's names: "debug", "verbose", "notice", "warning". False for another name.
bool ParseLevel(std::string_view name, Level* level);
void SetLevel(Level level);
// Writes to path from now on ("" for standard output); false (and no change) if it cannot be
// opened, with the reason in *error.
bool SetFile(const std::string& path, std::string* error);

bool Enabled(Level level);
void Write(Level level, std::string_view message);

template <typename... Args>
void At(Level level, fmt::format_string<Args...> format, Args&&... args) {
  if (Enabled(level)) Write(level, fmt::format(format, std::forward<Args>(args)...));
}
template <typename... Args>
void Debug(fmt::format_string<Args...> format, Args&&... args) {
  At(Level::kDebug, format, std::forward<Args>(args)...);
}
template <typename... Args>
void Verbose(fmt::format_string<Args...> format, Args&&... args) {
  At(Level::kVerbose, format, std::forward<Args>(args)...);
}
template <typename... Args>
void Notice(fmt::format_string<Args...> format, Args&&... args) {
  At(Level::kNotice, format, std::forward<Args>(args)...);
}
template <typename... Args>
void Warning(fmt::format_string<Args...> format, Args&&... args) {
  At(Level::kWarning, format, std::forward<Args>(args)...);
}

}  // namespace ordis::log
