// A client's pub/sub messages on their way to its connection: publishers on any thread append
// frames (already in the client's protocol), the I/O thread that owns the connection takes them
// into its output when nudged (ConnectionHost::DeliverPushes) or when it adopts the connection.
// A slow subscriber never holds a publisher back: past its output limit it is marked, what waits
// for it is dropped, and its thread closes it.
//
// Thread safety: thread safe (one mutex, held for an append or a take).
#pragma once

#include <cstdint>
#include <mutex>
#include <string_view>

#include "resp/out_buffer.h"
#include "server/config/config.h"
#include "server/net/connection_host.h"

namespace ordis::server {

class PushOutbox {
 public:
  // Any thread. Queues one message frame for a connection that holds `held` bytes of output not
  // yet sent. The client is over its limit once held plus what is queued passes limit.hard_bytes,
  // or stays above limit.soft_bytes for limit.soft_seconds: then the frame and everything queued
  // are dropped, and so is every later frame. Returns the host to nudge with the client's id
  // (once per take: further frames ride on that nudge), or nullptr.
  ConnectionHost* Add(std::string_view frame, uint64_t held, const OutputBufferLimit& limit);
  // On the owning thread: appends what is queued to out and returns false; true (and nothing
  // appended) once the client passed its limit: the caller closes it.
  bool Take(resp::OutBuffer* out);
  // The I/O thread the connection is on, as it starts and whenever it moves. A nudge that reaches
  // a thread the connection has left is lost; the new thread takes on adoption.
  void SetHost(ConnectionHost* host);

 private:
  std::mutex mu_;
  resp::OutBuffer queued_;          // GUARDED_BY(mu_)
  ConnectionHost* host_ = nullptr;  // GUARDED_BY(mu_)
  bool nudged_ = false;             // GUARDED_BY(mu_): a nudge is on its way, no take since
  bool over_limit_ = false;         // GUARDED_BY(mu_)
  int64_t soft_since_ms_ = -1;      // GUARDED_BY(mu_): above the soft limit since
};

}  // namespace ordis::server
