#include "server/config/descriptor_limit.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace ordis::server {

namespace {

// The most setrlimit can grant: the hard limit, or for root the kernel's nr_open. The search
// starts there, not at what maxclients asks (up to 2^32, a search of hours in steps of 16).
rlim_t Ceiling(const rlimit& limit) {
  rlim_t ceiling = limit.rlim_max;
  if (geteuid() == 0) {
    std::ifstream nr_open("/proc/sys/fs/nr_open");
    uint64_t n = 0;
    if (nr_open >> n) ceiling = std::max<rlim_t>(ceiling == RLIM_INFINITY ? 0 : ceiling, n);
  }
  return ceiling;
}

}  // namespace

int64_t ReservedDescriptors(int threads) { return 32 + 2 * static_cast<int64_t>(threads); }

DescriptorFit FitDescriptorLimit(int64_t maxclients, int64_t reserved) {
  DescriptorFit fit{maxclients, {}, {}, false};
  const auto wanted = static_cast<rlim_t>(maxclients + reserved);
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    fit.maxclients = 1024 - reserved;
    fit.warnings.push_back("Unable to obtain the current NOFILE limit (" +
                           std::string(std::strerror(errno)) +
                           "), assuming 1024 and setting the max clients configuration "
                           "accordingly.");
    return fit;
  }
  const rlim_t old_limit = limit.rlim_cur;
  if (old_limit >= wanted) return fit;
  constexpr rlim_t kStep = 16;
  rlim_t best = std::min(wanted, Ceiling(limit));
  int error = 0;
  while (best > old_limit) {
    rlimit attempt{best, std::max(best, limit.rlim_max)};
    if (setrlimit(RLIMIT_NOFILE, &attempt) == 0) break;
    error = errno;
    if (best < kStep) {
      best = old_limit;
      break;
    }
    best -= kStep;
  }
  best = std::max(best, old_limit);
  if (best >= wanted) {
    fit.notices.push_back("Increased maximum number of open files to " + std::to_string(wanted) +
                          " (it was originally set to " + std::to_string(old_limit) + ").");
    return fit;
  }
  fit.maxclients = static_cast<int64_t>(best) - reserved;
  if (fit.maxclients < 1) {
    fit.too_low = true;
    fit.warnings.push_back("Your current 'ulimit -n' of " + std::to_string(old_limit) +
                           " is not enough for the server to start. Please increase your open "
                           "file limit to at least " +
                           std::to_string(reserved + 1) + ". Exiting.");
    return fit;
  }
  fit.warnings.push_back("You requested maxclients of " + std::to_string(maxclients) +
                         " requiring at least " + std::to_string(wanted) +
                         " max file descriptors.");
  fit.warnings.push_back("Server can't set maximum open files to " + std::to_string(wanted) +
                         " because of OS error: " + std::strerror(error) + ".");
  fit.warnings.push_back("Current maximum open files is " + std::to_string(best) +
                         ". maxclients has been reduced to " + std::to_string(fit.maxclients) +
                         " to compensate for low ulimit. If you need higher maxclients increase "
                         "'ulimit -n'.");
  return fit;
}

}  // namespace ordis::server
