// The listening sockets and the process's stop signals, on thread 0's event loop: accepted
// sockets go to the I/O threads (IoThreadPool::Accept); SIGINT and SIGTERM call the stop callback.
//
// Thread safety: construct and Listen before the threads start; the callbacks run on thread 0.
#pragma once

#include <event2/listener.h>

#include <functional>
#include <string>
#include <vector>

#include "server/config/config.h"
#include "server/net/io_thread_pool.h"
#include "server/stats/stats.h"

namespace ordis::server {

class Listener {
 public:
  Listener(Config& config, IoThreadPool& threads, std::function<void()> on_stop_signal);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Binds every `bind` address on `port`; "" or the reason the server cannot start.
  std::string Listen();
  int port() const { return port_; }

 private:
  static void OnAccept(evconnlistener* listener, evutil_socket_t fd, sockaddr* addr, int len,
                       void* arg);
  static void OnAcceptError(evconnlistener* listener, void* arg);
  static void OnSignal(evutil_socket_t sig, short what, void* arg);
  static void OnResume(evutil_socket_t fd, short what, void* arg);
  // A socket accepted: to a thread, or refused past maxclients.
  void Accepted(int fd);
  // IoThreadPool::AcceptWhileBusy: every connection waiting on the listening sockets.
  void AcceptWaiting();

  Config& config_;
  IoThreadPool& threads_;
  std::function<void()> on_stop_signal_;
  std::vector<evconnlistener*> listeners_;
  std::vector<event*> signal_events_;
  int port_ = 0;

  // Out of descriptors (or memory), accept fails at once and the socket stays readable: the
  // listeners pause (backoff_ms_, doubling while accepts keep failing) instead of spinning, and
  // the errors are logged at most once per kAcceptErrorLogIntervalMs, with a count.
  event* resume_event_ = nullptr;
  int64_t backoff_ms_ = 0;
  int64_t last_error_log_ms_ = -1;
  uint64_t errors_not_logged_ = 0;
};

}  // namespace ordis::server
