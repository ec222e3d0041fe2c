// Test support: makes writes past a file size fail with EFBIG (RLIMIT_FSIZE, SIGXFSZ ignored) for
// the scope's lifetime, to drive the writers' error paths with real short and failed writes.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

namespace ordis::persistence {

class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t max_bytes) {
    EXPECT_EQ(getrlimit(RLIMIT_FSIZE, &saved_limit_), 0);
    saved_handler_ = signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_limit_;
    limit.rlim_cur = max_bytes;
    EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &limit), 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &saved_limit_);
    signal(SIGXFSZ, saved_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_limit_{};
  sighandler_t saved_handler_ = SIG_DFL;
};

}  // namespace ordis::persistence
