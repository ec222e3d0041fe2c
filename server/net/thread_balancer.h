// ThreadBalancer: how many of the I/O threads take connections.
//
// More I/O threads only help while the active ones are saturated and the machine has a core to
// give: otherwise each thread handles a fraction of the requests per wake-up, and the wake-ups
// (an inter-processor interrupt for every reply a sleeping thread waits for, a VM exit on
// virtual machines) cost more than the second core brings. On 2 cores with redis-benchmark
// beside the server, unpipelined GET/SET ran at 0.75x the requests/s of one thread with two
// threads serving (machine half idle, 20x the context switches), while pipelined ones ran 1.3x
// faster (bench/vs-redis.sh). So connections start on one thread; the balancer adds a thread
// when the busiest active one is saturated and idle CPU exists, and gives one back when the load
// would fit in one thread fewer.
//
// Fed once per window (50 ms, thread 0) with each active thread's CPU use and the machine's idle
// CPU, both in cores. Growing takes one window that calls for it (a benchmark or a burst of
// pipelined load may last a second, and every window on too few threads is lost), giving a
// thread back takes three in a row (a lull of 150 ms), and the window after a change is skipped
// (connections are moving and its samples mix both layouts).
//
// Thread safety: none; one caller (IoThreadPool::Balance on thread 0).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace ordis::server {

class ThreadBalancer {
 public:
  // A thread using this much of a core is saturated.
  static constexpr double kSaturated = 0.9;
  // Idle cores the machine must have for a new thread to run on.
  static constexpr double kIdleToGrow = 0.5;
  // Give a thread back when the active ones' load fits in one fewer at this fill.
  static constexpr double kShrinkFill = 0.8;
  static constexpr int kGrowWindows = 1;
  static constexpr int kShrinkWindows = 3;

  explicit ThreadBalancer(int max_threads) : max_(max_threads < 1 ? 1 : max_threads) {}

  // One window: active_cpu[i] is the cores active thread i used, idle_cores the machine's idle
  // cores (negative if unknown: then only the threads' own use counts). Returns the number of
  // threads that should take connections from now on.
  int Update(std::span<const double> active_cpu, double idle_cores);

  int active() const { return active_; }
  // Sets the active count outright (adaptive mode off: every thread), forgetting pending votes.
  void Reset(int active);

 private:
  int max_;
  int active_ = 1;
  int grow_votes_ = 0;
  int shrink_votes_ = 0;
  int settle_windows_ = 0;
};

// Moves of connections that bring threads [0, active) to an even share and empty the rest, given
// how many each thread has. A thread at most a quarter (plus one) over its share keeps its
// connections: closes leave small imbalances that are not worth a move, and new connections go
// to the least loaded thread anyway.
struct ConnectionMove {
  int from;
  int to;
  size_t count;
};
std::vector<ConnectionMove> PlanMoves(std::span<const size_t> assigned, int active);

}  // namespace ordis::server
