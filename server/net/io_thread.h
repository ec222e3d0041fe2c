// One I/O thread: a libevent event_base running the connections assigned to it, a task queue
// other threads post to (woken through an eventfd), a CommandRunner for its connections'
// commands, and a periodic cron (client timeouts, output buffer soft limits; thread 0 also runs
// the command layer's cron and the thread balancer).
// Connections can move between threads (ThreadBalancer): the source detaches them between loop
// turns and posts them to the target, which adopts them.
//
// A loop turn (Turn) runs in phases, in this order: read every connection the kernel reported
// ready; pre-parse each one's first batch and prefetch all their keys together (a batch whose
// cold values must be read first waits, and runs in the turn after they landed); run the
// commands; commit the append-only log once; send every connection's replies.
//
// Thread safety: Post(), Stop(), CloseConnection(), DeliverPushes(), ResumePostponed(),
// assigned(), AddAssigned() and cpu_clock() may be called from any thread; everything else runs on
// the thread itself.
#pragma once

#include <event2/event.h>
#include <poll.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/config/config.h"
#include "server/net/command_sink.h"
#include "server/net/connection_host.h"
#include "server/net/cpu_usage.h"
#include "server/stats/stats.h"

namespace ordis::server {

class Connection;
class IoThreadPool;

class IoThread : public ConnectionHost {
 public:
  IoThread(IoThreadPool& pool, int index, Config& config, CommandSink& sink, ThreadStats& stats);
  ~IoThread();

  void Start();
  void Join();
  // Runs fn on this thread soon.
  void Post(std::function<void()> fn);
  // Asks the loop to exit; connections are closed.
  void Stop();

  // On this thread: adopt an accepted socket as client id.
  void AddConnection(int fd, uint64_t id);
  void RemoveConnection(Connection* conn);
  // ConnectionHost.
  void CloseConnection(uint64_t id) override;
  void DeliverPushes(uint64_t id) override;
  void ResumePostponed(uint64_t id) override;
  void Unblocked(uint64_t id) override;
  // On this thread: hands up to `count` connections to `to`, as soon as none of them has replies
  // waiting for the end of the loop turn.
  void MoveConnections(IoThread* to, size_t count);
  // On this thread: takes over a connection another thread detached.
  void Adopt(std::unique_ptr<Connection> conn);

  // Connections assigned to this thread: living here or on their way (counted by whoever assigns
  // them, so a burst of accepts sees its own choices).
  size_t assigned() const { return assigned_.load(std::memory_order_relaxed); }
  void AddAssigned(int64_t delta) {
    assigned_.fetch_add(static_cast<size_t>(delta), std::memory_order_relaxed);
  }
  // This thread's CPU clock (kNoCpuClock until the thread runs).
  clockid_t cpu_clock() const { return cpu_clock_.load(std::memory_order_relaxed); }
  // On this thread: the connection's replies go out at the end of this loop turn, after one
  // commit of the append-only log for everything the turn's commands logged (Redis writes its
  // log and its replies in beforeSleep the same way).
  void ScheduleFlush(uint64_t client_id);
  // The connection read input: it is processed after the loop turn's other reads, with them, so
  // their keys are prefetched together.
  void QueueInput(uint64_t client_id);

  event_base* base() { return base_; }
  CommandRunner& runner() { return *runner_; }
  Config& config() { return config_; }
  ThreadStats& stats() { return stats_; }

 private:
  static void OnNotify(evutil_socket_t fd, short what, void* arg);
  static void OnCron(evutil_socket_t fd, short what, void* arg);
  static void OnBalance(evutil_socket_t fd, short what, void* arg);
  static void OnTurnEnd(evutil_socket_t fd, short what, void* arg);
  // Cold values read ahead landed: their connections run in this turn.
  static void OnColdReads(evutil_socket_t fd, short what, void* arg);
  // Makes Turn run at the end of this loop turn (once, however many connections ask).
  void EndTurnSoon();
  // The loop turn after its reads, phase by phase.
  void Turn();
  void ProcessQueuedInput();  // pre-parse, prefetch, execute
  // The runner's busy poll: a script of this thread runs past busy-reply-threshold. The idle
  // connections with input get their commands run (CommandRunner::RunWhileBusy); new connections
  // wait for the script's end.
  void ServeWhileScriptBusy();
  void FlushScheduled();  // send the turn's replies
  void Cron();
  void RunPendingMoves();
  // Runs serve on each connection of *ids still on this thread, *ids emptied first (the turn's
  // unblocked clients, its publishes' subscribers).
  void ServeHere(std::vector<uint64_t>* ids, void (Connection::*serve)());

  IoThreadPool& pool_;
  int index_;
  Config& config_;
  CommandSink& sink_;
  ThreadStats& stats_;
  std::unique_ptr<CommandRunner> runner_;
  event_base* base_;
  int notify_fd_;
  event* notify_event_;
  event* cron_event_;
  event* balance_event_ = nullptr;     // thread 0 only: IoThreadPool::Balance every 50 ms
  event* cold_reads_event_ = nullptr;  // with a cold tier: CommandRunner::cold_reads_fd()
  // Activated by the turn's first QueueInput or ScheduleFlush; libevent runs it after the I/O
  // callbacks already active in the turn (it joins the end of the same active queue).
  event* turn_end_event_;
  std::vector<uint64_t> to_process_;
  std::vector<uint64_t> to_flush_;
  std::vector<Connection*> processing_;  // ProcessQueuedInput's scratch
  struct PendingMove {
    IoThread* to;
    size_t count;
  };
  std::vector<PendingMove> pending_moves_;
  std::atomic<size_t> assigned_{0};
  std::atomic<clockid_t> cpu_clock_{kNoCpuClock};
  std::thread thread_;

  std::mutex tasks_mu_;
  std::vector<std::function<void()>> tasks_;  // GUARDED_BY(tasks_mu_)
  // Clients whose outboxes hold messages (DeliverPushes): ids rather than tasks, so a publish
  // reaching many subscribers allocates nothing per subscriber. GUARDED_BY(tasks_mu_)
  std::vector<uint64_t> pushes_;

  // Inside Turn, on this thread: clients unblocked by this thread's commands, resumed at the end
  // of the turn.
  bool in_turn_ = false;
  std::vector<pollfd> busy_fds_;  // ServeWhileScriptBusy's scratch
  std::vector<Connection*> busy_connections_;
  std::vector<Connection*> busy_prepared_;
  std::vector<uint64_t> unblocked_here_;
  std::vector<uint64_t> pushes_here_;  // subscribers of this turn's publishes on this thread

  absl::flat_hash_map<uint64_t, std::unique_ptr<Connection>> connections_;  // by client id
};

}  // namespace ordis::server
