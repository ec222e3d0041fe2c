// One I/O thread: a libevent event_base running the connections assigned to it, a task queue
// other threads post to (woken through an eventfd), and a periodic cron (client timeouts, output
// buffer soft limits; thread 0 also runs active expiry).
//
// Thread safety: Post() and Stop() may be called from any thread; everything else runs on the
// thread itself.
#pragma once

#include <event2/event.h>

#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/dispatcher.h"
#include "server/stats.h"

namespace ordis::server {

class Connection;
class Server;

class IoThread {
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
  // On this thread: close the connection with this id, if it lives here.
  void KillClient(uint64_t id);
  // On this thread: the connection's replies go out at the end of this loop turn, after one
  // commit of the append-only log for everything the turn's commands logged (Redis writes its
  // log and its replies in beforeSleep the same way).
  void ScheduleFlush(uint64_t client_id);

  event_base* base() { return base_; }
  Dispatcher& dispatcher() { return dispatcher_; }
  ThreadStats& stats() { return stats_; }
  Server& server() { return server_; }
  int index() const { return index_; }

 private:
  static void OnNotify(evutil_socket_t fd, short what, void* arg);
  static void OnCron(evutil_socket_t fd, short what, void* arg);
  static void OnFlush(evutil_socket_t fd, short what, void* arg);
  void Cron();

  Server& server_;
  int index_;
  event_base* base_;
  int notify_fd_;
  event* notify_event_;
  event* cron_event_;
  // Activated by the first ScheduleFlush of a turn; libevent runs it after the I/O callbacks
  // already active in the turn (it joins the end of the same active queue).
  event* flush_event_;
  std::vector<uint64_t> to_flush_;
  ThreadStats stats_;
  Dispatcher dispatcher_;
  std::thread thread_;

  std::mutex tasks_mu_;
  std::vector<std::function<void()>> tasks_;  // GUARDED_BY(tasks_mu_)

  absl::flat_hash_map<uint64_t, std::unique_ptr<Connection>> connections_;  // by client id
};

}  // namespace ordis::server
