// Fitting maxclients to the process's open-file limit (RLIMIT_NOFILE), as Redis does at start-up
// and on CONFIG SET maxclients: raise the limit to what maxclients needs when the OS allows it,
// else report the largest maxclients that fits. Without this, clients past the limit make accept
// fail with EMFILE and wait in the backlog unanswered.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ordis::server {

struct DescriptorFit {
  int64_t maxclients;  // what fits: the request, or less when the limit could not be raised
  // Redis's start-up log lines about it (warnings when maxclients was lowered, else one notice
  // when the limit was raised; none when it already sufficed).
  std::vector<std::string> warnings;
  std::vector<std::string> notices;
  bool too_low = false;  // not even one client fits: the server must not start
};

// Descriptors the server needs besides its clients: Redis's 32 (listeners, files, the log), plus
// each I/O thread's event loop and wake-up descriptors.
int64_t ReservedDescriptors(int threads);

// Raises the soft (and if need be hard) limit towards maxclients + reserved, stepping down by 16
// as Redis does while the OS refuses, never below the current limit.
DescriptorFit FitDescriptorLimit(int64_t maxclients, int64_t reserved);

}  // namespace ordis::server
