// What a connection's commands see and change: selected db, protocol, auth, MULTI queue, WATCH
// list, reply mode. Owned by one connection on one I/O thread.
//
// Thread safety: fields are owned by the connection's thread, except those marked "shared", which
// CLIENT LIST / CLIENT INFO / INFO read from other threads (atomics, relaxed: statistics) and the
// name, which is written and read under ClientRegistry's mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "server/keyspace/watch_registry.h"

namespace ordis::server {

// CLIENT REPLY: kSkipNext discards the next command's reply; while that command runs the mode is
// kSkipThis, and a command that sets kOn meanwhile (CLIENT REPLY ON, RESET) has its reply sent.
enum class ReplyMode { kOn, kOff, kSkipNext, kSkipThis };

struct ClientState {
  uint64_t id = 0;
  std::string addr;   // "ip:port" of the peer; immutable after accept
  std::string laddr;  // local "ip:port"; immutable after accept
  int fd = -1;
  int64_t created_ms = 0;

  bool authenticated = false;  // set at accept when no password is required
  ReplyMode reply_mode = ReplyMode::kOn;
  bool close_after_reply = false;

  // MULTI: queued commands as owned copies of their arguments.
  bool in_multi = false;
  bool multi_error = false;  // a command failed to queue: EXEC answers EXECABORT
  std::vector<std::vector<std::string>> queued;

  WatchState watch;
  std::vector<std::pair<int, std::string>> watched_keys;
  // Watched keys that were live with a TTL when watched: EXEC aborts if one expired since.
  std::vector<std::pair<int, std::string>> watched_with_ttl;

  std::string name;  // GUARDED_BY(ClientRegistry::mu_) for cross-thread reads
  std::string lib_name, lib_ver;

  // shared
  std::atomic<int> db{0};
  std::atomic<int> protocol{2};
  std::atomic<int64_t> last_interaction_ms{0};
  std::atomic<int> last_command_id{-1};
  std::atomic<uint64_t> query_buffer_bytes{0};
  std::atomic<uint64_t> output_buffer_bytes{0};
  std::atomic<int> multi_count{-1};  // queued commands, -1 outside MULTI (CLIENT LIST "multi=")
  // CLIENT KILL from any thread. The owner is nudged to close it at once; a connection moving
  // between threads when the nudge arrives is closed by its new owner (on adoption, or by cron).
  std::atomic<bool> kill_requested{false};
};

}  // namespace ordis::server
