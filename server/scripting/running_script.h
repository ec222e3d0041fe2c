// The script running now, if any. Scripts run one at a time (under the keyspace's exclusive
// lock); other threads ask whether it has run past busy-reply-threshold, when they answer BUSY
// instead of waiting for the lock, SCRIPT KILL or FUNCTION KILL asks it to stop, and FUNCTION
// STATS describes a running function.
//
// Thread safety: Begin, NoteWrite and End on the running script's thread; the rest anywhere.
// Describe reads the running function's command under a mutex that End takes too: the command's
// arguments (the caller's, not copied) stay valid until End.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string_view>

#include "base/clock.h"

namespace ordis::server::scripting {

class RunningScript {
 public:
  // function: FCALL's function name (else an EVAL), command: its arguments, valid until End.
  void Begin(int64_t now_ms, std::string_view function = {},
             std::span<const std::string_view> command = {}) {
    wrote_.store(false, std::memory_order_relaxed);
    kill_.store(false, std::memory_order_relaxed);
    std::lock_guard lock(mu_);
    function_ = function;
    command_ = command;
    is_function_.store(!function.empty(), std::memory_order_relaxed);
    started_ms_.store(now_ms, std::memory_order_release);
  }
  // The script called a write command (Redis's SCRIPT_WRITE_DIRTY, set whether or not it changed
  // anything): it may no longer be killed (its effects would be half done), nor refused a command
  // for being over maxmemory.
  void NoteWrite() { wrote_.store(true, std::memory_order_relaxed); }
  bool wrote() const { return wrote_.load(std::memory_order_relaxed); }
  void End() {
    std::lock_guard lock(mu_);
    started_ms_.store(-1, std::memory_order_release);
    function_ = {};
    command_ = {};
  }
  // Whether the script running (or the last one) is a function: BUSY, SCRIPT KILL, FUNCTION KILL
  // and FUNCTION STATS answer by it.
  bool function() const { return is_function_.load(std::memory_order_relaxed); }
  // FUNCTION STATS: visit(name, command, duration) of the running function; false (nothing
  // visited) when no function runs.
  bool Describe(int64_t now_ms,
                const std::function<void(std::string_view, std::span<const std::string_view>,
                                         int64_t)>& visit) const {
    std::lock_guard lock(mu_);
    const int64_t started = started_ms_.load(std::memory_order_acquire);
    if (started < 0 || function_.empty()) return false;
    visit(function_, command_, now_ms - started);
    return true;
  }

  // Whether a script has run for threshold_ms or more. The clock is read only while one runs: this
  // is asked before every command.
  bool Busy(int64_t threshold_ms) const {
    const int64_t started = started_ms_.load(std::memory_order_acquire);
    return started >= 0 && NowMs() - started >= threshold_ms;
  }
  // kOtherKind: SCRIPT KILL of a function, or FUNCTION KILL of an EVAL (Redis answers BUSY). In
  // Redis's order: a script that wrote is kUnkillable whichever command asks.
  enum class KillResult { kNotRunning, kOtherKind, kUnkillable, kKilled };
  KillResult Kill(bool function) {
    if (started_ms_.load(std::memory_order_acquire) < 0) return KillResult::kNotRunning;
    if (wrote_.load(std::memory_order_relaxed)) return KillResult::kUnkillable;
    if (function != is_function_.load(std::memory_order_relaxed)) return KillResult::kOtherKind;
    kill_.store(true, std::memory_order_relaxed);
    return KillResult::kKilled;
  }
  bool kill_requested() const { return kill_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> started_ms_{-1};  // -1: none running
  std::atomic<bool> is_function_{false};
  mutable std::mutex mu_;
  std::string_view function_;                  // GUARDED_BY(mu_)
  std::span<const std::string_view> command_;  // GUARDED_BY(mu_)
  std::atomic<bool> wrote_{false};
  std::atomic<bool> kill_{false};
};

}  // namespace ordis::server::scripting
