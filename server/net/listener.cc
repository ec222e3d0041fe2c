#include "server/net/listener.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>

#include "base/logging.h"

namespace ordis::server {
namespace {

// Redis's reply to a connection over maxclients, written before closing it: the one error the
// I/O layer sends itself, before the connection has a session.
constexpr std::string_view kMaxClientsReply = "-ERR max number of clients reached\r\n";

}  // namespace

Listener::Listener(Config& config, IoThreadPool& threads, std::function<void()> on_stop_signal)
    : config_(config), threads_(threads), on_stop_signal_(std::move(on_stop_signal)) {}

Listener::~Listener() {
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
  auto* self = static_cast<Listener*>(arg);
  if (!self->threads_.Accept(fd)) {
    [[maybe_unused]] ssize_t n = write(fd, kMaxClientsReply.data(), kMaxClientsReply.size());
    close(fd);
    Bump(self->threads_.thread(0).stats()[Stat::kRejectedConnections]);
  }
}

void Listener::OnAcceptError(evconnlistener*, void*) {
  log::Warning("Accepting client connection: {}", std::strerror(errno));
}

}  // namespace ordis::server
