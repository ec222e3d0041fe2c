// The arguments Redis 7.0 replaces by "(redacted)" wherever it shows a command (SLOWLOG, MONITOR):
// the secrets its commands redact while they parse (redactClientCommandArgument). One list for
// every place that shows commands.
#pragma once

#include <span>
#include <string_view>

namespace ordis::server {

inline constexpr std::string_view kRedacted = "(redacted)";

// Whether args[i] of the command args (args[0] its name, as sent) is a secret: AUTH's username and
// password; the username and password after HELLO's and MIGRATE's AUTH, MIGRATE's AUTH2; every
// rule of ACL SETUSER; the values of password parameters in CONFIG SET. Only the secrets the
// command's parser reaches count, as in Redis: MIGRATE's options end at KEYS, HELLO's at the
// first it refuses.
bool IsSecretArgument(std::span<const std::string_view> args, size_t i);

}  // namespace ordis::server
