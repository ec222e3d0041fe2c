// The I/O thread a connection lives on, as the layers above it may address it.
#pragma once

#include <cstdint>

namespace ordis::server {

class ConnectionHost {
 public:
  // Any thread: closes the connection of client `id` soon. The caller first sets the client's
  // kill_requested flag, so a connection that moved to another thread meanwhile is closed there.
  virtual void CloseConnection(uint64_t id) = 0;
  // Any thread: pub/sub messages wait in client `id`'s outbox (net/push_outbox.h); its connection
  // takes them soon. A connection that moved meanwhile takes them on adoption.
  virtual void DeliverPushes(uint64_t id) = 0;
  // Any thread: client `id`'s postponed command (Session::postponed) may run now. A connection
  // not waiting ignores it.
  virtual void ResumePostponed(uint64_t id) = 0;
  // Any thread: the wait of blocked client `id` ended (CommandRunner::ResumeBlocked has its
  // reply). A blocked connection does not move between threads.
  virtual void Unblocked(uint64_t id) = 0;

 protected:
  ~ConnectionHost() = default;
};

}  // namespace ordis::server
