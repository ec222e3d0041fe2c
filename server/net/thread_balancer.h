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
// A thread added is on trial: when the commands per second of the windows after it are not
// kMinGain of those before, it is given back and growth waits (kFirstBackoff windows, doubling
// to kMaxBackoff while trials keep failing). Threads that mostly take turns at the keyspace's
// exclusive lock (SET at maxmemory, every write evicting) are saturated yet gain nothing: on 2
// cores the second thread cost 15% more CPU per SET at the same requests/s.
//
// A trial passed once proves nothing about the load that follows: a cache filling up gains from
// two threads until it reaches maxmemory, then every write evicts and the threads take turns at
// the lock. So while the active threads wait for the keyspace lock (kLockBound of a core between
// them, kLockWindows in a row), one is given back on trial too: it stays given back unless the
// commands per second fall below 1 / kMinGain of those before, which counts as a failed growth
// trial. A thread that proves its worth so comes back, and such trials wait as growth does (SET
// at maxmemory on 2 cores: the threads waited 0.33 of a core each; unpipelined SET 0.01, GET 0).
//
// Fed once per window (50 ms, thread 0) with each active thread's CPU use and the machine's idle
// CPU, both in cores, and the commands run per second. Growing takes one window that calls for it
// (a benchmark or a burst of pipelined load may last a second, and every window on too few threads
// is lost), giving a thread back takes three in a row (a lull of 150 ms), and the window after a
// change is skipped (connections are moving and its samples mix both layouts).
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
  // A thread added stays when the kTrialWindows after it ran this many times the commands per
  // second of the window that asked for it.
  static constexpr double kMinGain = 1.1;
  static constexpr int kTrialWindows = 4;
  static constexpr int kFirstBackoff = 100;  // 5 s
  static constexpr int kMaxBackoff = 1200;   // 1 min
  // Cores the active threads spent waiting for the keyspace lock, summed, that start a trial of
  // one thread fewer after kLockWindows such windows in a row.
  static constexpr double kLockBound = 0.3;
  static constexpr int kLockWindows = 3;

  explicit ThreadBalancer(int max_threads) : max_(max_threads < 1 ? 1 : max_threads) {}

  // One window: active_cpu[i] is the cores active thread i used, idle_cores the machine's idle
  // cores (negative if unknown: then only the threads' own use counts), ops_per_s the commands
  // run per second (negative if unknown: no trials), lock_wait_cores the cores the active
  // threads spent waiting for the keyspace lock (negative if unknown). Returns the number of
  // threads that should take connections from now on.
  int Update(std::span<const double> active_cpu, double idle_cores, double ops_per_s = -1,
             double lock_wait_cores = -1);

  int active() const { return active_; }
  // Sets the active count outright (adaptive mode off: every thread), forgetting pending votes.
  void Reset(int active);

 private:
  int max_;
  int active_ = 1;
  int grow_votes_ = 0;
  int shrink_votes_ = 0;
  int settle_windows_ = 0;
  // Starts a trial of the count just set, measured against ops_per_s.
  void StartTrial(bool grew, double ops_per_s);

  // The trial of the thread added or given back last: the rate before it (negative: no trial),
  // the windows measured since and their rates' sum.
  double trial_baseline_ = -1;
  bool trial_grew_ = false;
  int trial_windows_ = 0;
  double trial_sum_ = 0;
  int grow_backoff_ = 0;  // windows left before growing may be tried again
  int next_backoff_ = kFirstBackoff;
  // Windows in a row the threads waited kLockBound for the lock, and those rates' sum.
  int lock_votes_ = 0;
  double lock_sum_ = 0;
  int lock_backoff_ = 0;  // windows left before the lock may start a trial again
  int next_lock_backoff_ = kFirstBackoff;
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
