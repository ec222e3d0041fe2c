#include "server/net/listener.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "base/clock.h"
#include "base/logging.h"

namespace ordis::server {
namespace {

// Redis's reply to a connection over maxclients, written before closing it: the one error the
// I/O layer sends itself, before the connection has a session.
constexpr std::string_view kMaxClientsReply = "-ERR max number of clients reached\r\n";

constexpr int64_t kFirstBackoffMs = 10;
constexpr int64_t kMaxBackoffMs = 1000;
constexpr int64_t kAcceptErrorLogIntervalMs = 10'000;

}  // namespace

Listener::Listener(Config& config, IoThreadPool& threads, std::function<void()> on_stop_signal)
    : config_(config), threads_(threads), on_stop_signal_(std::move(on_stop_signal)) {}

Listener::~Listener() {
  threads_.set_accept_while_busy(nullptr);
  if (resume_event_ != nullptr) event_free(resume_event_);
  for (evconnlistener* l : listeners_) evconnlistener_free(l);
  for (event* ev : signal_events_) event_free(ev);
}

std::string Listener::Listen() {
  event_base* base = threads_.thread(0).base();
  const int port = config_.port();
  int backlog = 511;
  {
    int64_t b = 0;
    std::string v = config_.Value("tcp-backlog");
    if (!v.empty()) b = std::stoll(v);
    if (b > 0) backlog = static_cast<int>(b);
  }
  for (const std::string& bind : config_.bind_addresses()) {
    std::string host = bind[0] == '-' ? bind.substr(1) : bind;  // "-addr": optional in Redis
    if (host == "*") host = "0.0.0.0";
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST;
    addrinfo* res = nullptr;
    std::string port_text = std::to_string(port);
    if (getaddrinfo(host.c_str(), port_text.c_str(), &hints, &res) != 0 || res == nullptr) {
      return "Invalid bind address '" + bind + "'";
    }
    evconnlistener* listener =
        evconnlistener_new_bind(base, &Listener::OnAccept, this,
                                LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
                                backlog, res->ai_addr, static_cast<int>(res->ai_addrlen));
    freeaddrinfo(res);
    if (listener == nullptr) {
      if (bind[0] == '-') continue;
      return "Could not create server TCP listening socket " + host + ":" + std::to_string(port) +
             ": " + std::strerror(errno);
    }
    evconnlistener_set_error_cb(listener, &Listener::OnAcceptError);
    listeners_.push_back(listener);
  }
  if (listeners_.empty()) return "No listening socket";
  resume_event_ = evtimer_new(base, &Listener::OnResume, this);
  threads_.set_accept_while_busy([this] { AcceptWaiting(); });
  port_ = port;
  for (int sig : {SIGINT, SIGTERM}) {
    event* ev = evsignal_new(base, sig, &Listener::OnSignal, this);
    event_add(ev, nullptr);
    signal_events_.push_back(ev);
  }
  return "";
}

void Listener::OnSignal(evutil_socket_t, short, void* arg) {
  log::Warning("Received shutdown signal, scheduling shutdown...");
  static_cast<Listener*>(arg)->on_stop_signal_();
}

void Listener::OnAccept(evconnlistener*, evutil_socket_t fd, sockaddr*, int, void* arg) {
  static_cast<Listener*>(arg)->Accepted(fd);
}

void Listener::Accepted(int fd) {
  backoff_ms_ = 0;
  if (!threads_.Accept(fd)) {
    [[maybe_unused]] ssize_t n = write(fd, kMaxClientsReply.data(), kMaxClientsReply.size());
    close(fd);
    Bump(threads_.thread(0).stats()[Stat::kRejectedConnections]);
  }
}

void Listener::AcceptWaiting() {
  for (evconnlistener* listener : listeners_) {
    const evutil_socket_t listening = evconnlistener_get_fd(listener);
    evutil_make_socket_nonblocking(listening);  // libevent's already is; accept must not wait
    for (;;) {
      const int fd = accept4(listening, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0)
        break;  // none waiting (EAGAIN: the socket is non-blocking), or an error the
                // listener's own callback meets again once the loop runs
      Accepted(fd);
    }
  }
}

void Listener::OnAcceptError(evconnlistener*, void* arg) {
  auto* self = static_cast<Listener*>(arg);
  const int err = EVUTIL_SOCKET_ERROR();
  const int64_t now_ms = NowMs();
  if (self->last_error_log_ms_ < 0 ||
      now_ms - self->last_error_log_ms_ >= kAcceptErrorLogIntervalMs) {
    if (self->errors_not_logged_ > 0) {
      log::Warning("Accepting client connection: {} ({} more accept errors since the last report)",
                   std::strerror(err), self->errors_not_logged_);
    } else {
      log::Warning("Accepting client connection: {}", std::strerror(err));
    }
    self->last_error_log_ms_ = now_ms;
    self->errors_not_logged_ = 0;
  } else {
    ++self->errors_not_logged_;
  }
  if (err != EMFILE && err != ENFILE && err != ENOBUFS && err != ENOMEM) return;
  // The pending connection stays in the backlog until a descriptor frees up: pause every listener
  // (they share the shortage) and try again later.
  for (evconnlistener* l : self->listeners_) evconnlistener_disable(l);
  self->backoff_ms_ =
      self->backoff_ms_ == 0 ? kFirstBackoffMs : std::min(self->backoff_ms_ * 2, kMaxBackoffMs);
  timeval tv{static_cast<time_t>(self->backoff_ms_ / 1000),
             static_cast<suseconds_t>(self->backoff_ms_ % 1000 * 1000)};
  event_add(self->resume_event_, &tv);
}

void Listener::OnResume(evutil_socket_t, short, void* arg) {
  auto* self = static_cast<Listener*>(arg);
  for (evconnlistener* l : self->listeners_) evconnlistener_enable(l);
}

}  // namespace ordis::server
