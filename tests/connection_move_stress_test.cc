// Connections moving between I/O threads under load, in-process so ThreadSanitizer sees both
// sides (scripts/test.sh runs it under TSAN and ASAN). A real server on a free port with three I/O
// threads; client threads pipeline INCRs on one key and check every reply, while a mover hands
// connections from thread to thread (IoThread::MoveConnections, what the balancer does), another
// client lists clients and reads INFO (the registry and the per-connection counters other
// threads read), and a killer closes connections with CLIENT KILL as they move.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "server/config.h"
#include "server/io_thread.h"
#include "server/server.h"

namespace ordis::server {
namespace {

int FreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

// A blocking RESP client, just enough for integer, status, bulk and error replies.
class Client {
 public:
  explicit Client(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~Client() { close(fd_); }
  bool ok() const { return ok_; }

  bool Send(const std::string& data) {
    size_t off = 0;
    while (off < data.size()) {
      ssize_t n = write(fd_, data.data() + off, data.size() - off);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  static std::string Command(const std::vector<std::string>& args) {
    std::string out = "*" + std::to_string(args.size()) + "\r\n";
    for (const std::string& a : args) out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
    return out;
  }
  // One reply: its first line (type byte included) and, for a bulk string, its payload. Arrays
  // are read whole and returned as their header line. False when the connection closed.
  bool Read(std::string* line, std::string* bulk = nullptr) {
    if (!ReadLine(line)) return false;
    if ((*line)[0] == '$') {
      long n = std::strtol(line->c_str() + 1, nullptr, 10);
      if (n < 0) return true;
      std::string payload;
      if (!ReadExact(static_cast<size_t>(n) + 2, &payload)) return false;
      if (bulk != nullptr) *bulk = payload.substr(0, static_cast<size_t>(n));
    } else if ((*line)[0] == '*') {
      long n = std::strtol(line->c_str() + 1, nullptr, 10);
      std::string element;
      for (long i = 0; i < n; ++i) {
        if (!Read(&element)) return false;
      }
    }
    return true;
  }
  // Reads until the server closes the connection.
  bool WaitClosed() {
    char buf[4096];
    while (true) {
      ssize_t n = read(fd_, buf, sizeof(buf));
      if (n <= 0) return true;
    }
  }

 private:
  bool Fill() {
    char buf[16384];
    ssize_t n = read(fd_, buf, sizeof(buf));
    if (n <= 0) return false;
    in_.append(buf, static_cast<size_t>(n));
    return true;
  }
  bool ReadLine(std::string* line) {
    size_t eol;
    while ((eol = in_.find("\r\n", pos_)) == std::string::npos) {
      if (!Fill()) return false;
    }
    *line = in_.substr(pos_, eol - pos_);
    pos_ = eol + 2;
    Compact();
    return true;
  }
  bool ReadExact(size_t n, std::string* out) {
    while (in_.size() - pos_ < n) {
      if (!Fill()) return false;
    }
    *out = in_.substr(pos_, n);
    pos_ += n;
    Compact();
    return true;
  }
  void Compact() {
    if (pos_ > 65536) {
      in_.erase(0, pos_);
      pos_ = 0;
    }
  }

  int fd_;
  bool ok_ = false;
  std::string in_;
  size_t pos_ = 0;
};

class RunningServer {
 public:
  explicit RunningServer(int threads) {
    for (int attempt = 0; attempt < 5 && !listening_; ++attempt) {
      port_ = FreePort();
      dir_ = ::testing::TempDir() + "ordis-move-" + std::to_string(port_);
      std::string mkdir = "mkdir -p " + dir_;
      if (std::system(mkdir.c_str()) != 0) continue;
      std::vector<std::string> args = {"ordis-server",      "--port", std::to_string(port_),
                                       "--threads",         std::to_string(threads),
                                       "--adaptive-threads", "no",     "--save",
                                       "",                  "--appendonly", "no",
                                       "--dir",             dir_};
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      auto config = std::make_unique<Config>();
      config->LoadCommandLine(static_cast<int>(argv.size()), argv.data());
      server_ = std::make_unique<Server>(std::move(config));
      runner_ = std::thread([this] { server_->Run(); });
      listening_ = server_->WaitUntilListening();
      if (!listening_) {  // the port was taken meanwhile: Run returned
        runner_.join();
        server_.reset();
      }
    }
  }
  ~RunningServer() {
    if (listening_) {
      server_->RequestShutdown();
      runner_.join();
    }
  }
  bool listening() const { return listening_; }
  int port() const { return port_; }
  Server& server() { return *server_; }

 private:
  int port_ = -1;
  std::string dir_;
  bool listening_ = false;
  std::unique_ptr<Server> server_;
  std::thread runner_;
};

TEST(ConnectionMoveTest, IncrementsExactWhileConnectionsMove) {
  constexpr int kThreads = 3;
  constexpr int kClients = 6;
  constexpr int kBatch = 20;
  constexpr int kRounds = 1000;
  RunningServer rs(kThreads);
  ASSERT_TRUE(rs.listening());
  const auto& io = rs.server().threads();

  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&] {
      Client client(rs.port());
      if (!client.ok()) {
        ++failures;
        return;
      }
      std::string batch;
      for (int i = 0; i < kBatch; ++i) batch += Client::Command({"INCR", "counter"});
      long last = 0;
      std::string line;
      for (int round = 0; round < kRounds; ++round) {
        if (!client.Send(batch)) {
          ++failures;
          return;
        }
        for (int i = 0; i < kBatch; ++i) {
          if (!client.Read(&line) || line[0] != ':') {
            ++failures;
            return;
          }
          long v = std::strtol(line.c_str() + 1, nullptr, 10);
          if (v <= last) ++failures;  // one connection's replies come back in order
          last = v;
        }
      }
    });
  }
  // Hands connections around the ring of threads as fast as the threads take the requests.
  std::thread mover([&] {
    for (int i = 0; !stop.load(); ++i) {
      IoThread* from = io[i % kThreads].get();
      IoThread* to = io[(i + 1) % kThreads].get();
      from->Post([from, to] { from->MoveConnections(to, 3); });
      std::this_thread::yield();
    }
  });
  // Reads what other threads' connections publish, while they move.
  std::thread observer([&] {
    Client client(rs.port());
    std::string line, bulk;
    while (!stop.load()) {
      if (!client.Send(Client::Command({"CLIENT", "LIST"})) || !client.Read(&line, &bulk) ||
          !client.Send(Client::Command({"INFO", "threads"})) || !client.Read(&line, &bulk)) {
        ++failures;
        return;
      }
    }
  });
  // Connections killed while they move close wherever they are.
  std::thread killer([&] {
    for (int round = 0; round < 20 && !stop.load(); ++round) {
      Client victim(rs.port());
      Client admin(rs.port());
      std::string line;
      if (!victim.Send(Client::Command({"CLIENT", "ID"})) || !victim.Read(&line)) {
        ++failures;
        return;
      }
      std::string id = line.substr(1);
      if (!admin.Send(Client::Command({"CLIENT", "KILL", "ID", id})) || !admin.Read(&line) ||
          line != ":1") {
        ++failures;
        return;
      }
      victim.WaitClosed();
    }
  });
  for (std::thread& t : clients) t.join();
  killer.join();
  stop.store(true);
  mover.join();
  observer.join();
  EXPECT_EQ(failures.load(), 0);

  Client check(rs.port());
  std::string line, bulk;
  ASSERT_TRUE(check.Send(Client::Command({"GET", "counter"})));
  ASSERT_TRUE(check.Read(&line, &bulk));
  EXPECT_EQ(bulk, std::to_string(kClients * kBatch * kRounds));
  ASSERT_TRUE(check.Send(Client::Command({"INFO", "threads"})));
  ASSERT_TRUE(check.Read(&line, &bulk));
  EXPECT_EQ(bulk.find("connections_moved:0\r\n"), std::string::npos) << bulk;
}

}  // namespace
}  // namespace ordis::server
