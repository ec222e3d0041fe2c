// The server: configuration, the shared keyspace, the I/O threads and what they share (client
// registry, SCAN cursors, start-up facts for INFO).
//
// Thread safety: the accessors return objects that are themselves thread safe.
#pragma once

#include <event2/listener.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server/command/client_registry.h"
#include "server/command/command_table.h"
#include "server/config/config.h"
#include "server/net/io_thread.h"
#include "server/keyspace/keyspace.h"
#include "server/keyspace/scan_cursors.h"
#include "server/net/thread_balancer.h"

namespace ordis::server {

class Persistence;

class Server {
 public:
  explicit Server(std::unique_ptr<Config> config);
  ~Server();

  // Binds, starts the I/O threads and blocks until SHUTDOWN or a signal. Returns the exit code.
  int Run();
  // For a server run in-process (tests): blocks until Run listens (true) or failed to start
  // (false). threads() and listening_port() are safe to use after it returned true.
  bool WaitUntilListening();
  void RequestShutdown();
  // True once shutdown was requested: commands are no longer run (their connections close).
  bool shutting_down() const { return shutting_down_.load(std::memory_order_acquire); }
  // SHUTDOWN ran its final save (or was told NOSAVE): Run does not save again on the way out.
  void MarkShutdownSaved() { shutdown_saved_ = true; }

  Config& config() { return *config_; }
  Keyspace& keyspace() { return *keyspace_; }
  Persistence& persistence() { return *persistence_; }
  ClientRegistry& clients() { return clients_; }
  ScanCursors& scan_cursors() { return scan_cursors_; }
  const CommandTable& commands() const { return Commands(); }
  const std::vector<std::unique_ptr<IoThread>>& threads() const { return threads_; }

  bool AuthRequired() const { return config_->auth_required(); }
  // True iff client must AUTH before commands other than the kNoAuth ones.
  bool NeedsAuth(const ClientState& client) const {
    return !client.authenticated && AuthRequired();
  }
  OutputBufferLimit output_limit() const { return config_->normal_output_limit(); }
  uint64_t NextClientId() { return next_client_id_.fetch_add(1, std::memory_order_relaxed); }
  int64_t start_time_ms() const { return start_time_ms_; }
  int listening_port() const { return listening_port_; }
  uint64_t expired_stale_perc() const { return 0; }

  // Called by thread 0's cron: Redis's active expiry cycle with its time budget.
  void ActiveExpire(int64_t now_ms);
  // Called by thread 0 every 50 ms: samples the threads' and the machine's CPU use, lets the balancer
  // decide how many threads take connections, and moves connections to match.
  void BalanceThreads();
  // Threads [0, active_threads()) take new connections.
  int active_threads() const { return active_threads_.load(std::memory_order_relaxed); }
  uint64_t thread_changes() const { return thread_changes_.load(std::memory_order_relaxed); }
  void ResetStats();

 private:
  int Serve();  // Run's body
  static void OnAccept(evconnlistener* listener, evutil_socket_t fd, sockaddr* addr, int len,
                       void* arg);
  static void OnAcceptError(evconnlistener* listener, void* arg);
  static void OnSignal(evutil_socket_t sig, short what, void* arg);

  std::unique_ptr<Config> config_;
  std::unique_ptr<Keyspace> keyspace_;
  std::unique_ptr<Persistence> persistence_;
  ClientRegistry clients_;
  ScanCursors scan_cursors_;
  std::vector<std::unique_ptr<IoThread>> threads_;
  std::vector<evconnlistener*> listeners_;
  std::vector<event*> signal_events_;
  std::atomic<uint64_t> next_client_id_{1};
  // Thread 0's cron only: the balancer and its previous CPU readings.
  ThreadBalancer balancer_{1};
  std::vector<double> last_thread_cpu_;
  double last_idle_s_ = -1;
  double last_sample_s_ = -1;
  std::atomic<int> active_threads_{1};
  std::atomic<uint64_t> thread_changes_{0};
  std::atomic<bool> shutting_down_{false};
  std::atomic<bool> shutdown_saved_{false};
  int64_t start_time_ms_;
  int listening_port_ = 0;
  std::mutex started_mu_;
  std::condition_variable started_cv_;
  enum class StartState { kStarting, kListening, kFailed };
  StartState start_state_ = StartState::kStarting;  // GUARDED_BY(started_mu_)
};

}  // namespace ordis::server
