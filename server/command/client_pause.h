// CLIENT PAUSE / CLIENT UNPAUSE: while clients are paused, a command that must wait (every command
// in ALL mode; in WRITE mode those that write or may replicate, as Redis 7.0's processCommand
// decides, EXEC of a transaction holding one included) is postponed instead of run: the client's
// connection keeps it unread and runs it again when the pause ends (net/session.h,
// Session::postponed). Nothing blocks an I/O thread: a postponed connection just stops reading.
// MONITOR clients are never paused (Redis never pauses replicas, which monitors are).
//
// Thread safety: thread safe. The pause is one relaxed load on every command while none is in
// force; deciding to postpone and recording the waiting client happen under one mutex with
// UNPAUSE, so no client waits for a pause that has ended (but for its deadline).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "server/command/client_registry.h"
#include "server/command/client_state.h"

namespace ordis::server {

class ClientPause {
 public:
  enum class Mode : uint8_t { kOff = 0, kWrite = 1, kAll = 2 };

  explicit ClientPause(ClientRegistry& clients) : clients_(clients) {}
  ClientPause(const ClientPause&) = delete;
  ClientPause& operator=(const ClientPause&) = delete;

  // CLIENT PAUSE: clients are paused until end_ms. A pause in force keeps its end if later and
  // its mode if stronger (ALL over WRITE), as in Redis.
  void Pause(int64_t end_ms, Mode mode);
  // CLIENT UNPAUSE: the pause ends and every postponed client resumes.
  void Unpause();
  // Whether any pause is in force (relaxed, as Postpone): callers skip working out `writes`.
  bool active() const {
    return static_cast<Mode>(mode_.load(std::memory_order_relaxed)) != Mode::kOff;
  }
  // Whether client's command must wait now (writes: it writes or may replicate). If so, client is
  // recorded as waiting and its Session::postponed and postponed_until_ms are set.
  bool Postpone(ClientState& client, bool writes) {
    // relaxed: a pause that starts while a command is on its way may let it through, as Redis
    // lets the commands of the event loop iteration that paused run.
    const auto mode = static_cast<Mode>(mode_.load(std::memory_order_relaxed));
    if (mode == Mode::kOff || (mode == Mode::kWrite && !writes)) return false;
    return PostponeSlow(client, writes);
  }

 private:
  bool PostponeSlow(ClientState& client, bool writes);
  // REQUIRES(mu_). The pause is over: off, and the waiting clients handed to the caller to resume.
  void EndLocked(std::vector<uint64_t>* waiting);
  void Resume(const std::vector<uint64_t>& ids);

  ClientRegistry& clients_;
  std::atomic<uint8_t> mode_{0};  // Mode; written under mu_
  std::mutex mu_;
  int64_t end_ms_ = 0;             // GUARDED_BY(mu_)
  std::vector<uint64_t> waiting_;  // GUARDED_BY(mu_): postponed clients, in order
};

}  // namespace ordis::server
