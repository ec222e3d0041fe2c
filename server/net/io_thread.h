// One I/O thread: a libevent event_base running the connections assigned to it, a task queue
// other threads post to (woken through an eventfd), and a periodic cron (client timeouts, output
// buffer soft limits; thread 0 also runs active expiry and persistence) and, on thread 0, the
// thread balancer.
// Connections can move between threads (ThreadBalancer): the source detaches them between loop
// turns and posts them to the target, which adopts them.
//
// Thread safety: Post(), Stop(), assigned() and cpu_clock() may be called from any thread;
// everything else runs on the thread itself.
#pragma once

#include <event2/event.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/net/connection_host.h"
#include "server/net/cpu_usage.h"
#include "server/command/dispatcher.h"
#include "server/keyspace/keyspace.h"
#include "server/stats/stats.h"

namespace ordis::server {

class Connection;
class Server;

class IoThread : public ConnectionHost {
 public:
  IoThread(Server& server, int index);
  ~IoThread();

  void Start();
  void Join();
  // Runs fn on this thread soon.
  void Post(std::function<void()> fn);
  // Asks the loop to exit; connections are closed.
  void Stop();

  // On this thread: adopt an accepted socket.
  void AddConnection(int fd);
  void RemoveConnection(Connection* conn);
  // ConnectionHost.
  void CloseConnection(uint64_t id) override;
  // On this thread: hands up to `count` connections to `to`, as soon as none of them has replies
  // waiting for the end of the loop turn.
  void MoveConnections(IoThread* to, size_t count);
  // On this thread: takes over a connection another thread detached.
  void Adopt(std::unique_ptr<Connection> conn);

  // Connections assigned to this thread: living here or on their way (counted by whoever assigns
  // them, so a burst of accepts sees its own choices).
  size_t assigned() const { return assigned_.load(std::memory_order_relaxed); }
  void AddAssigned(int64_t delta) { assigned_.fetch_add(static_cast<size_t>(delta), std::memory_order_relaxed); }
  // This thread's CPU clock (kNoCpuClock until the thread runs).
  clockid_t cpu_clock() const { return cpu_clock_.load(std::memory_order_relaxed); }
  // On this thread: the connection's replies go out at the end of this loop turn, after one
  // commit of the append-only log for everything the turn's commands logged (Redis writes its
  // log and its replies in beforeSleep the same way).
  void ScheduleFlush(uint64_t client_id);
  // The connection read input: it is processed after the loop turn's other reads, with them
  // (OnProcess), so their keys are prefetched together.
  void QueueInput(uint64_t client_id);

  event_base* base() { return base_; }
  Dispatcher& dispatcher() { return dispatcher_; }
  ThreadStats& stats() { return stats_; }
  Server& server() { return server_; }
  int index() const { return index_; }

 private:
  static void OnNotify(evutil_socket_t fd, short what, void* arg);
  static void OnCron(evutil_socket_t fd, short what, void* arg);
  static void OnBalance(evutil_socket_t fd, short what, void* arg);
  static void OnFlush(evutil_socket_t fd, short what, void* arg);
  static void OnProcess(evutil_socket_t fd, short what, void* arg);
  void Cron();
  void RunPendingMoves();

  Server& server_;
  int index_;
  event_base* base_;
  int notify_fd_;
  event* notify_event_;
  event* cron_event_;
  event* balance_event_ = nullptr;  // thread 0 only: Server::BalanceThreads every 50 ms
  // Activated by the first ScheduleFlush of a turn; libevent runs it after the I/O callbacks
  // already active in the turn (it joins the end of the same active queue).
  event* flush_event_;
  std::vector<uint64_t> to_flush_;
  // Activated by the first QueueInput of a turn; runs after the turn's reads, before the flush.
  event* process_event_;
  std::vector<uint64_t> to_process_;
  std::vector<Connection*> processing_;           // OnProcess's scratch
  std::vector<Keyspace::KeyRef> prefetch_keys_;   // OnProcess's scratch
  struct PendingMove {
    IoThread* to;
    size_t count;
  };
  std::vector<PendingMove> pending_moves_;
  std::atomic<size_t> assigned_{0};
  std::atomic<clockid_t> cpu_clock_{kNoCpuClock};
  ThreadStats stats_;
  Dispatcher dispatcher_;
  std::thread thread_;

  std::mutex tasks_mu_;
  std::vector<std::function<void()>> tasks_;  // GUARDED_BY(tasks_mu_)

  absl::flat_hash_map<uint64_t, std::unique_ptr<Connection>> connections_;  // by client id
};

}  // namespace ordis::server
