// The script running now, if any. Scripts run one at a time (under the keyspace's exclusive
// lock); other threads ask whether it has run past busy-reply-threshold, when they answer BUSY
// instead of waiting for the lock, and SCRIPT KILL asks it to stop.
//
// Thread safety: Begin, NoteWrite and End on the running script's thread; the rest anywhere.
#pragma once

#include <atomic>
#include <cstdint>

namespace ordis::server::scripting {

class RunningScript {
 public:
  void Begin(int64_t now_ms) {
    wrote_.store(false, std::memory_order_relaxed);
    kill_.store(false, std::memory_order_relaxed);
    started_ms_.store(now_ms, std::memory_order_release);
  }
  // The script changed the dataset: it may no longer be killed (its effects would be half done).
  void NoteWrite() { wrote_.store(true, std::memory_order_relaxed); }
  void End() { started_ms_.store(-1, std::memory_order_release); }

  bool Busy(int64_t now_ms, int64_t threshold_ms) const {
    const int64_t started = started_ms_.load(std::memory_order_acquire);
    return started >= 0 && now_ms - started >= threshold_ms;
  }
  enum class KillResult { kNotRunning, kUnkillable, kKilled };
  KillResult Kill() {
    if (started_ms_.load(std::memory_order_acquire) < 0) return KillResult::kNotRunning;
    if (wrote_.load(std::memory_order_relaxed)) return KillResult::kUnkillable;
    kill_.store(true, std::memory_order_relaxed);
    return KillResult::kKilled;
  }
  bool kill_requested() const { return kill_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> started_ms_{-1};  // -1: none running
  std::atomic<bool> wrote_{false};
  std::atomic<bool> kill_{false};
};

}  // namespace ordis::server::scripting
