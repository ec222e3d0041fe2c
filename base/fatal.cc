#include "base/fatal.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>

namespace ordis {
namespace {

// acquire/release: a log installed before a crash is seen whole by the crashing thread.
std::atomic<void (*)(std::string_view)> fatal_log{nullptr};

}  // namespace

void Fatal(std::string_view message) {
  // write(2), not stdio: nothing to allocate or lock on the way down.
  [[maybe_unused]] ssize_t n = write(STDERR_FILENO, message.data(), message.size());
  n = write(STDERR_FILENO, "\n", 1);
  if (auto log = fatal_log.load(std::memory_order_acquire)) log(message);
  std::abort();
}

void SetFatalLog(void (*log)(std::string_view message)) {
  fatal_log.store(log, std::memory_order_release);
}

}  // namespace ordis
