// What the I/O layer and the command layer share about one client. The I/O layer fills in the
// connection's facts at accept and obeys the flags; the command layer derives its client state
// (command/client_state.h) from it and creates it (CommandSink::NewSession).
//
// Thread safety: owned by the connection's thread, except the fields marked "shared", which
// CLIENT LIST / CLIENT KILL / INFO read or set from other threads (atomics, relaxed: statistics
// and a flag the owner polls).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "server/net/push_outbox.h"

namespace ordis::server {

struct Session {
  virtual ~Session() = default;

  uint64_t id = 0;
  std::string addr;   // "ip:port" of the peer; immutable after accept
  std::string laddr;  // local "ip:port"; immutable after accept
  int fd = -1;
  // The peer is 127.0.0.1 or ::1: what protected mode and the "local" settings of
  // enable-debug-command and enable-protected-configs trust. Immutable after accept.
  bool local = false;
  int64_t created_ms = 0;
  // Set by a command (QUIT, CLIENT KILL of itself, SHUTDOWN): the connection closes once its
  // replies are sent.
  bool close_after_reply = false;
  // The command layer set blocked (below): when the client's wait ends, at the latest (unix ms;
  // 0: never). The connection runs nothing more until CommandRunner::ResumeBlocked says it ended.
  int64_t block_deadline_ms = 0;

  // shared
  std::atomic<int64_t> last_interaction_ms{0};
  // CLIENT LIST's buffer fields: the input not yet consumed (the running command's included) and
  // the buffer's size (qbuf, qbuf-free), the running command's argument bytes (argv-mem), the
  // replies not yet written, the chunks they are in and the most ever pending (omem, obl, oll,
  // rbp).
  std::atomic<uint64_t> query_buffer_bytes{0};
  std::atomic<uint64_t> query_buffer_capacity{0};
  std::atomic<uint64_t> argv_bytes{0};
  std::atomic<uint64_t> output_buffer_bytes{0};
  std::atomic<uint32_t> output_buffer_chunks{0};
  std::atomic<uint64_t> output_peak_bytes{0};
  // CLIENT KILL from any thread. The owner is nudged to close it at once; a connection moving
  // between threads when the nudge arrives is closed by its new owner (on adoption, or by cron).
  std::atomic<bool> kill_requested{false};
  // Subscribed to a channel, pattern or shard channel (pub/sub): the client is of the pubsub class
  // for client-output-buffer-limit, and CLIENT LIST flags it P. Set by the command layer.
  std::atomic<bool> pubsub{false};
  // Waiting inside a blocking command (BLPOP ...): CLIENT LIST flags it b. Set by the command
  // layer.
  std::atomic<bool> blocked{false};
  // Messages published to the client, waiting for its connection's thread (thread safe).
  PushOutbox pushes;

  // Set by the command layer instead of running a command while clients are paused (CLIENT
  // PAUSE): the connection keeps that command and the input after it, reads no more, and runs it
  // again once its host is told (ConnectionHost::ResumePostponed) or at postponed_until_ms,
  // whichever comes first; it clears the flag then. Shared: CLIENT LIST's flag b and INFO's
  // blocked_clients read it.
  std::atomic<bool> postponed{false};
  int64_t postponed_until_ms = 0;  // owned by the connection's thread
};

}  // namespace ordis::server
