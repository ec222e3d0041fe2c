// Walks a command's arguments, keeping the first error so a handler checks once at the end
// (after Dragonfly's CmdArgParser).
#pragma once

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "base/number.h"
#include "server/command/errors.h"

namespace ordis::server {

inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
    if (x != y) return false;
  }
  return true;
}

// A count argument that must be >= 0, as Redis's getPositiveLongFromObjectOrReply: anything else
// (not an integer included) is errors::kNotPositive (or the command's own message).
inline bool ParseNonNegative(std::string_view arg, int64_t* out) {
  return ParseInt64(arg, out) && *out >= 0;
}

// A SCAN-family cursor as Redis parses it (strtoul: optional sign, digits, no leading space, the
// whole argument, no overflow). False means "ERR invalid cursor".
inline bool ParseScanCursor(std::string_view arg, uint64_t* cursor) {
  if (arg.empty() || std::isspace(static_cast<unsigned char>(arg[0]))) return false;
  std::string text(arg);
  char* end = nullptr;
  errno = 0;
  *cursor = std::strtoul(text.c_str(), &end, 10);
  return *end == '\0' && errno != ERANGE;
}

class ArgParser {
 public:
  ArgParser(std::span<const std::string_view> args, size_t start) : args_(args), pos_(start) {}

  bool HasNext() const { return pos_ < args_.size(); }
  size_t remaining() const { return args_.size() - pos_; }
  std::string_view Peek() const { return HasNext() ? args_[pos_] : std::string_view(); }

  // The next argument; records a syntax error if there is none.
  std::string_view Next() {
    if (!HasNext()) {
      Fail(errors::kSyntax);
      return {};
    }
    return args_[pos_++];
  }
  // Consumes the next argument iff it equals word (case-insensitively).
  bool Accept(std::string_view word) {
    if (HasNext() && EqualsIgnoreCase(args_[pos_], word)) {
      ++pos_;
      return true;
    }
    return false;
  }
  int64_t NextInt(std::string_view error = errors::kNotInteger) {
    std::string_view s = Next();
    int64_t v = 0;
    if (ok() && !ParseInt64(s, &v)) Fail(error);
    return v;
  }

  void Fail(std::string_view error) {
    if (error_.empty()) error_ = error;
  }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  std::span<const std::string_view> args_;
  size_t pos_;
  std::string error_;
};

}  // namespace ordis::server
