// MONITOR: clients that receive every command the server runs, as Redis 7.0 shows it:
//
//   +1700000000.123456 [0 127.0.0.1:52331] "SET" "k" "v"
//
// unix time in microseconds, the database and the client's address ("lua" for a script's
// commands), then each argument quoted and escaped as Redis's sdscatrepr does. The dispatcher
// feeds a command after it ran (the db is the one it leaves), but EVAL, EVALSHA and FCALL (and
// their _RO forms) before their scripts' commands; administrative commands are never shown, and
// secrets (AUTH's, HELLO's and MIGRATE's credentials: redaction.h) are "(redacted)".
//
// Lines go through each monitor's outbox (net/push_outbox.h): a slow monitor never holds the
// server back; past the replica class of client-output-buffer-limit, it is closed.
//
// Thread safety: thread safe; every line is delivered under one mutex, so monitors see one order.
#pragma once

#include <atomic>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "server/command/client_state.h"
#include "server/config/config.h"

namespace ordis::server {

class Monitors {
 public:
  explicit Monitors(const Config& config) : config_(config) {}
  Monitors(const Monitors&) = delete;
  Monitors& operator=(const Monitors&) = delete;

  // MONITOR: false (and nothing changes) if client monitors already.
  bool Add(ClientState& client);
  // RESET and the connection's end.
  void Remove(ClientState& client);
  // Whether any client monitors (one relaxed load: the dispatcher's check on every command).
  bool active() const { return count_.load(std::memory_order_relaxed) > 0; }

  // One command of a client at origin (its address, or "lua") in db.
  void Feed(int db, std::string_view origin, std::span<const std::string_view> args);

  // The line Feed sends, without the time: ` [db origin] "arg" ...` + CRLF (tests).
  static void AppendLine(int db, std::string_view origin, std::span<const std::string_view> args,
                         std::string* out);

 private:
  const Config& config_;
  std::atomic<size_t> count_{0};
  std::mutex mu_;
  std::vector<ClientState*> monitors_;  // GUARDED_BY(mu_), in MONITOR order
  std::string line_;                    // GUARDED_BY(mu_)
};

}  // namespace ordis::server
