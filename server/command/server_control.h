// What commands may ask of the running server around them (SHUTDOWN, INFO server and threads),
// implemented by the composition root (server.h), which owns the I/O threads.
//
// Thread safety: thread safe.
#pragma once

#include <cstdint>
#include <vector>

namespace ordis::server {

struct ThreadsInfo {
  int active = 1;                   // threads that take connections
  uint64_t changes = 0;             // times the active count changed
  std::vector<size_t> connections;  // per thread
};

class ServerControl {
 public:
  // Stops the server: the I/O threads leave their loops and the process exits.
  virtual void RequestShutdown() = 0;
  // True once shutdown was requested: commands are no longer run (their connections close).
  virtual bool shutting_down() const = 0;
  // SHUTDOWN ran its final save (or was told NOSAVE): the server does not save again on exit.
  virtual void MarkShutdownSaved() = 0;
  // SHUTDOWN NOSAVE while a script is busy: the script's thread will not come back to its loop,
  // so the process ends here, at once (every acknowledged write is in the log already: replies
  // wait for its commit; the script's own effects are lost, as in Redis).
  [[noreturn]] virtual void ExitNow() = 0;

  virtual int64_t start_time_ms() const = 0;
  virtual int listening_port() const = 0;
  virtual ThreadsInfo Threads() const = 0;

 protected:
  ~ServerControl() = default;
};

}  // namespace ordis::server
