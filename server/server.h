// The composition root: builds the server's parts and wires them together. It owns the keyspace,
// the client registry, the statistics, persistence, the command service the I/O threads run
// commands through, the I/O threads and the listener; and it is the ServerControl commands ask to
// stop the server or describe it.
//
// Thread safety: the accessors return objects that are themselves thread safe.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "base/memory.h"
#include "server/command/client_registry.h"
#include "server/command/command_service.h"
#include "server/command/memory_guard.h"
#include "server/command/server_control.h"
#include "server/command/services.h"
#include "server/config/config.h"
#include "server/durability/persistence.h"
#include "server/keyspace/expiry.h"
#include "server/keyspace/keyspace.h"
#include "server/keyspace/scan_cursors.h"
#include "server/net/io_thread_pool.h"
#include "server/net/listener.h"
#include "server/stats/stats.h"

namespace ordis::server {

class Server : public ServerControl {
 public:
  // used_memory: what maxmemory is checked against (tests give their own count).
  explicit Server(std::unique_ptr<Config> config,
                  MemoryGuard::UsedMemoryFn used_memory = base::UsedMemory);
  ~Server();

  // Loads the data, binds, starts the I/O threads and blocks until SHUTDOWN or a signal. Returns
  // the exit code.
  int Run();
  // For a server run in-process (tests): blocks until Run listens (true) or failed to start
  // (false). listening_port() is safe to use after it returned true.
  bool WaitUntilListening();
  // Run's first step, alone for commands run without I/O threads (the family tests): loads the
  // data set (log or snapshot) and opens the log.
  persistence::Status LoadData();
  // What commands run on.
  const Services& services() const { return services_; }
  // The I/O threads, once Run listens (tests that move connections by hand).
  IoThreadPool& TEST_io_threads() { return *threads_; }
  // What the I/O threads run commands through (the family tests run them the same way).
  CommandSink& TEST_command_sink() { return commands_; }

  // ServerControl.
  void RequestShutdown() override;
  bool shutting_down() const override { return shutting_down_.load(std::memory_order_acquire); }
  void MarkShutdownSaved() override { shutdown_saved_ = true; }
  [[noreturn]] void ExitNow() override;
  int64_t start_time_ms() const override { return start_time_ms_; }
  int listening_port() const override { return listening_port_; }
  ThreadsInfo Threads() const override;

  Config& config() { return *config_; }
  Keyspace& keyspace() { return *keyspace_; }

 private:
  // The cold tier, when tier-dir is set: without it (no io_uring, a directory that cannot be
  // made), the server runs with every value in memory.
  void OpenTier();
  int Serve();  // Run's body

  const int64_t start_time_ms_;
  std::unique_ptr<Config> config_;
  // What makes the configuration unusable (a bad rename-command or user line, an ACL file that
  // does not load): Run refuses to start.
  std::string config_error_;
  // The command table with the config file's rename-command lines applied (nullptr on error).
  std::unique_ptr<CommandTable> command_table_;
  std::unique_ptr<acl::Users> users_;  // from requirepass, the user lines or the ACL file
  acl::AclLog acl_log_;
  // Before the keyspace: its events (expiry, eviction threads) publish here until it is gone.
  PubSub pubsub_{*config_};
  // Before the keyspace, which tells it of key changes until it is gone.
  BlockedClients blocked_;
  SlowLog slowlog_;
  std::unique_ptr<Keyspace> keyspace_;
  ActiveExpiry active_expiry_{*keyspace_};  // runs from after loading until the I/O threads end
  ClientRegistry clients_;
  ScanCursors scan_cursors_;
  ServerStats stats_;
  Persistence persistence_;
  MemoryGuard memory_;
  scripting::ScriptCache scripts_;
  scripting::RunningScript running_script_;
  scripting::FunctionLibraries functions_;
  Tracking tracking_{*config_, clients_, keyspace_->tracker()};
  Monitors monitors_{*config_};
  ClientPause pause_{clients_};
  const Services services_;
  CommandService commands_;
  std::unique_ptr<IoThreadPool> threads_;  // made by Run
  std::unique_ptr<Listener> listener_;     // made by Run
  std::atomic<bool> shutting_down_{false};
  std::atomic<bool> shutdown_saved_{false};
  int listening_port_ = 0;
  std::mutex started_mu_;
  std::condition_variable started_cv_;
  enum class StartState { kStarting, kListening, kFailed };
  StartState start_state_ = StartState::kStarting;  // GUARDED_BY(started_mu_)
};

}  // namespace ordis::server
