// SLOWLOG: the commands that ran longer than slowlog-log-slower-than microseconds, newest first,
// at most slowlog-max-len of them (Redis 7.0's slowlog.c semantics). Arguments are kept as Redis
// keeps them: at most 32 (the last saying how many more there were), each at most 128 bytes (with
// how many more), and secrets replaced by "(redacted)" (redaction.h).
//
// Thread safety: thread safe (one mutex, taken only by commands slower than the threshold and by
// SLOWLOG itself).
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ordis::server {

class SlowLog {
 public:
  struct Entry {
    uint64_t id;
    int64_t time_s;  // unix time the command ran
    int64_t duration_us;
    std::vector<std::string> args;
    std::string addr;  // the client's "ip:port"
    std::string name;  // the client's name
  };

  // Adds the command if it is slow enough; max_len entries are kept.
  void Record(std::span<const std::string_view> args, int64_t time_s, int64_t duration_us,
              std::string_view addr, std::string_view name, size_t max_len);
  // The newest count entries (all if count < 0), newest first.
  std::vector<Entry> Newest(int64_t count) const;
  size_t size() const;
  void Reset();

 private:
  mutable std::mutex mu_;
  std::deque<Entry> entries_;  // newest first
  uint64_t next_id_ = 0;
};

}  // namespace ordis::server
