// The I/O threads and how connections are spread over them: a new connection goes to the least
// loaded of the active threads; every 50 ms thread 0 samples the threads' and the machine's CPU
// use, lets the ThreadBalancer decide how many threads take connections, and moves connections
// to match (see thread_balancer.h for why).
//
// Thread safety: Accept and Balance run on thread 0; the accessors are safe from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "server/config/config.h"
#include "server/net/command_sink.h"
#include "server/net/io_thread.h"
#include "server/net/thread_balancer.h"
#include "server/stats/stats.h"

namespace ordis::server {

class IoThreadPool {
 public:
  // config's `threads` threads, thread i counting into stats.thread(i).
  IoThreadPool(Config& config, CommandSink& sink, ServerStats& stats);

  void Start();
  // Returns once every thread has left its loop.
  void Join();
  // Any thread: every thread leaves its loop (their connections are closed).
  void Stop();

  // Thread 0: a connection was accepted; false (and nothing done) when maxclients are connected.
  bool Accept(int fd);
  // Thread 0's balancing window.
  void Balance();
  // Thread 0, while a script of its own runs past busy-reply-threshold (so its loop does not run):
  // accepts the connections waiting, as the listener would (set by the listener).
  void set_accept_while_busy(std::function<void()> accept) {
    accept_while_busy_ = std::move(accept);
  }
  void AcceptWhileBusy() {
    if (accept_while_busy_) accept_while_busy_();
  }

  IoThread& thread(size_t i) { return *threads_[i]; }
  size_t size() const { return threads_.size(); }
  // Threads [0, active()) take new connections.
  int active() const { return active_.load(std::memory_order_relaxed); }
  uint64_t changes() const { return changes_.load(std::memory_order_relaxed); }
  // Connections living on (or on their way to) each thread.
  std::vector<size_t> Assigned() const;

 private:
  Config& config_;
  std::vector<std::unique_ptr<IoThread>> threads_;
  std::atomic<uint64_t> next_client_id_{1};
  // Thread 0 only: the balancer and its previous CPU readings.
  ThreadBalancer balancer_{1};
  std::vector<double> last_thread_cpu_;
  uint64_t last_commands_ = 0;      // the I/O threads' commands run, at the last window
  uint64_t last_lock_wait_us_ = 0;  // and the microseconds they waited for the keyspace lock
  double last_idle_s_ = -1;
  double last_sample_s_ = -1;
  std::atomic<int> active_{1};
  std::atomic<uint64_t> changes_{0};
  std::function<void()> accept_while_busy_;
};

}  // namespace ordis::server
