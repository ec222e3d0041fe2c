#include "server/command/redaction.h"

#include <cstdint>

#include "base/number.h"
#include "server/command/arg_parser.h"

namespace ordis::server {
namespace {

// HELLO [protover [AUTH username password] [SETNAME clientname]], read as HELLO reads it.
bool HelloSecret(std::span<const std::string_view> args, size_t i) {
  int64_t protover = 0;
  if (args.size() < 2 || !ParseInt64(args[1], &protover) || protover < 2 || protover > 3) {
    return false;  // refused before its options
  }
  for (size_t j = 2; j < args.size() && j < i;) {
    const size_t more = args.size() - 1 - j;
    if (EqualsIgnoreCase(args[j], "auth") && more >= 2) {
      if (i <= j + 2) return true;
      j += 3;
    } else if (EqualsIgnoreCase(args[j], "setname") && more >= 1) {
      for (const char c : args[j + 1]) {
        if (c < '!' || c > '~') return false;  // an invalid name ends the parse
      }
      j += 2;
    } else {
      return false;
    }
  }
  return false;
}

// MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH password | AUTH2 username password]
// [KEYS key ...]: the options from the sixth argument to KEYS.
bool MigrateSecret(std::span<const std::string_view> args, size_t i) {
  for (size_t j = 6; j < args.size() && j < i; ++j) {
    const size_t more = args.size() - 1 - j;
    if (EqualsIgnoreCase(args[j], "copy") || EqualsIgnoreCase(args[j], "replace")) continue;
    size_t values;
    if (EqualsIgnoreCase(args[j], "auth") && more >= 1) {
      values = 1;
    } else if (EqualsIgnoreCase(args[j], "auth2") && more >= 2) {
      values = 2;
    } else {
      return false;  // KEYS, or a syntax error
    }
    if (i <= j + values) return true;
    j += values;
  }
  return false;
}

}  // namespace

bool IsSecretArgument(std::span<const std::string_view> args, size_t i) {
  if (i == 0 || i >= args.size()) return false;
  const std::string_view cmd = args[0];
  if (EqualsIgnoreCase(cmd, "auth")) return args.size() <= 3;  // AUTH [username] password
  if (EqualsIgnoreCase(cmd, "hello")) return HelloSecret(args, i);
  if (EqualsIgnoreCase(cmd, "migrate")) return MigrateSecret(args, i);
  if (EqualsIgnoreCase(cmd, "acl")) return i >= 2 && EqualsIgnoreCase(args[1], "setuser");
  // CONFIG SET name value ...: the values of password parameters.
  if (EqualsIgnoreCase(cmd, "config") && EqualsIgnoreCase(args[1], "set")) {
    if (i < 3 || (i - 2) % 2 != 1) return false;
    const std::string_view param = args[i - 1];
    return EqualsIgnoreCase(param, "requirepass") || EqualsIgnoreCase(param, "masterauth") ||
           EqualsIgnoreCase(param, "tls-key-file-pass") ||
           EqualsIgnoreCase(param, "tls-client-key-file-pass");
  }
  return false;
}

}  // namespace ordis::server
