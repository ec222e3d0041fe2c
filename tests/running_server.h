// A real ordis server run in-process on a free port, for the stress tests that drive it over TCP
// (tests/connection_move_stress_test.cc, tests/eviction_stress_test.cc): ThreadSanitizer and
// AddressSanitizer then see the server's threads and the clients' alike.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/memory.h"
#include "server/config/config.h"
#include "server/server.h"
#include "tests/free_port.h"

namespace ordis::test {

class RunningServer {
 public:
  // `threads` I/O threads with the balancer off (connections stay where they are dealt), no
  // persistence; extra_args are further command-line flags (e.g. {"--maxmemory", "10mb"}).
  explicit RunningServer(int threads, std::vector<std::string> extra_args = {}) {
    for (int attempt = 0; attempt < 5 && !listening_; ++attempt) {
      port_ = FreePort();
      dir_ = ::testing::TempDir() + "ordis-stress-" + std::to_string(port_);
      std::error_code error;
      std::filesystem::create_directories(dir_, error);
      if (error) continue;
      std::vector<std::string> args = {"ordis-server",
                                       "--port",
                                       std::to_string(port_),
                                       "--threads",
                                       std::to_string(threads),
                                       "--adaptive-threads",
                                       "no",
                                       "--save",
                                       "",
                                       "--appendonly",
                                       "no",
                                       "--dir",
                                       dir_};
      args.insert(args.end(), extra_args.begin(), extra_args.end());
      std::promise<server::Server*> built;
      std::future<server::Server*> server = built.get_future();
      // As ordis-server's main: the server is built, run and destroyed on one thread whose heap
      // traffic counts in used_memory. (Built on the test's thread instead, what the I/O threads
      // later free of it would drive used_memory down, and maxmemory would mean something else.)
      runner_ = std::thread([args, &built]() mutable {
        base::MemoryAccountedThread accounted;
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        auto config = std::make_unique<server::Config>();
        config->LoadCommandLine(static_cast<int>(argv.size()), argv.data());
        server::Server instance(std::move(config));
        built.set_value(&instance);
        instance.Run();
      });
      server_ = server.get();
      listening_ = server_->WaitUntilListening();
      if (!listening_) {  // the port was taken meanwhile: Run returned
        runner_.join();
        server_ = nullptr;
      }
    }
  }
  ~RunningServer() {
    if (listening_) {
      server_->RequestShutdown();
      runner_.join();
    }
  }
  RunningServer(const RunningServer&) = delete;
  RunningServer& operator=(const RunningServer&) = delete;

  bool listening() const { return listening_; }
  int port() const { return port_; }
  server::Server& server() { return *server_; }

 private:
  int port_ = -1;
  std::string dir_;
  bool listening_ = false;
  server::Server* server_ = nullptr;  // lives on runner_'s stack until Run returns
  std::thread runner_;
};

}  // namespace ordis::test
