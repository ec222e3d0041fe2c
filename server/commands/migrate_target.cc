#include "server/commands/migrate_target.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace ordis::server {

MigrateTarget::~MigrateTarget() {
  if (fd_ >= 0) close(fd_);
}

bool MigrateTarget::Wait(short events) {
  pollfd p{fd_, events, 0};
  while (true) {
    const int n = poll(&p, 1, static_cast<int>(timeout_ms_));
    if (n < 0 && errno == EINTR) continue;
    return n == 1 && (p.revents & (events | POLLHUP | POLLERR)) != 0;
  }
}

bool MigrateTarget::Connect(const std::string& host, const std::string& port, int64_t timeout_ms) {
  timeout_ms_ = timeout_ms;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* addrs = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &addrs) != 0) return false;
  bool connected = false;
  for (addrinfo* a = addrs; a != nullptr && !connected; a = a->ai_next) {
    fd_ = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd_ < 0) continue;
    // Writable in time counts as connected, as Redis's connBlockingConnect: a refused connection
    // then fails the first write ("error or timeout writing to target instance", Redis's reply).
    connected =
        connect(fd_, a->ai_addr, a->ai_addrlen) == 0 || (errno == EINPROGRESS && Wait(POLLOUT));
    if (!connected) {
      close(fd_);
      fd_ = -1;
    }
  }
  freeaddrinfo(addrs);
  if (connected) {
    const int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return connected;
}

bool MigrateTarget::Write(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      if (!Wait(POLLOUT)) return false;
    } else {
      return false;
    }
  }
  return true;
}

bool MigrateTarget::ReadLine(std::string* line) {
  constexpr size_t kMaxLine = 64 << 10;
  while (true) {
    const size_t end = buffer_.find("\r\n");
    if (end != std::string::npos) {
      line->assign(buffer_, 0, end);
      buffer_.erase(0, end + 2);
      return true;
    }
    if (buffer_.size() > kMaxLine) return false;
    char chunk[4096];
    const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && errno == EAGAIN) {
      if (!Wait(POLLIN)) return false;
    } else {
      return false;
    }
  }
}

}  // namespace ordis::server
