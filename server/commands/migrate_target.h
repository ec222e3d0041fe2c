// MIGRATE's connection to the target server: blocking, every step bounded by the command's
// timeout, as Redis's syncWrite/syncReadLine. A command runs it in its own turn (Redis blocks its
// one thread for it too); this is not the I/O layer's event loop and never touches it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ordis::server {

class MigrateTarget {
 public:
  MigrateTarget() = default;
  MigrateTarget(const MigrateTarget&) = delete;
  MigrateTarget& operator=(const MigrateTarget&) = delete;
  ~MigrateTarget();

  // Connects to host:port within timeout_ms; false on failure or timeout.
  bool Connect(const std::string& host, const std::string& port, int64_t timeout_ms);
  // Writes all of data; false on an error or the timeout.
  bool Write(std::string_view data);
  // Reads one reply line (without CRLF): "+OK", "-ERR ...". False on an error, the timeout or a
  // line longer than 64 KB.
  bool ReadLine(std::string* line);

 private:
  // Waits until the socket is ready for events; false on the deadline or an error.
  bool Wait(short events);

  int fd_ = -1;
  int64_t timeout_ms_ = 0;
  std::string buffer_;  // bytes read past the last line
};

}  // namespace ordis::server
