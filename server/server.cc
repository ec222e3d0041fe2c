#include "server/server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>

#include "index/learned_store.h"
#include "server/net/connection.h"
#include "server/net/cpu_usage.h"
#include "server/command/errors.h"
#include "server/durability/persistence.h"

namespace ordis::server {
namespace {

// The store behind the keyspace, from the start-up only `index` parameters.
std::unique_ptr<index::OrderedStore> NewIndexStore(const Config& config) {
  if (!config.learned_index()) return index::NewMapStore();
  return index::NewLearnedStore(config.learned_store_options());
}

}  // namespace

Server::Server(std::unique_ptr<Config> config)
    : config_(std::move(config)),
      keyspace_(std::make_unique<Keyspace>(config_->databases(), NewIndexStore(*config_))),
      start_time_ms_(NowMs()) {
  persistence_ = std::make_unique<Persistence>(*this);
}

Server::~Server() = default;

int Server::Run() {
  int rc = Serve();
  {
    std::lock_guard lock(started_mu_);
    if (start_state_ == StartState::kStarting) start_state_ = StartState::kFailed;
  }
  started_cv_.notify_all();
  return rc;
}

bool Server::WaitUntilListening() {
  std::unique_lock lock(started_mu_);
  started_cv_.wait(lock, [this] { return start_state_ != StartState::kStarting; });
  return start_state_ == StartState::kListening;
}

int Server::Serve() {
  signal(SIGPIPE, SIG_IGN);
  {
    // Data first, then the port: clients never see a half-loaded keyspace.
    persistence::Status status = persistence_->Start();
    if (!status.ok()) {
      std::fprintf(stderr, "Fatal error loading the data set: %s\n", status.message().c_str());
      return 1;
    }
  }
  int nthreads = config_->threads();
  for (int i = 0; i < nthreads; ++i) threads_.push_back(std::make_unique<IoThread>(*this, i));
  balancer_ = ThreadBalancer(nthreads);
  if (!config_->adaptive_threads()) balancer_.Reset(nthreads);
  active_threads_.store(balancer_.active(), std::memory_order_relaxed);
  event_base* accept_base = threads_[0]->base();

  int port = config_->port();
  int backlog = 511;
  {
    int64_t b = 0;
    std::string v = config_->Value("tcp-backlog");
    if (!v.empty()) b = std::stoll(v);
    if (b > 0) backlog = static_cast<int>(b);
  }
  for (const std::string& bind : config_->bind_addresses()) {
    std::string host = bind[0] == '-' ? bind.substr(1) : bind;  // "-addr": optional in Redis
    if (host == "*") host = "0.0.0.0";
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST;
    addrinfo* res = nullptr;
    std::string port_text = std::to_string(port);
    if (getaddrinfo(host.c_str(), port_text.c_str(), &hints, &res) != 0 || res == nullptr) {
      std::fprintf(stderr, "Invalid bind address '%s'\n", bind.c_str());
      return 1;
    }
    evconnlistener* listener = evconnlistener_new_bind(
        accept_base, &Server::OnAccept, this,
        LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC, backlog, res->ai_addr,
        static_cast<int>(res->ai_addrlen));
    freeaddrinfo(res);
    if (listener == nullptr) {
      if (bind[0] == '-') continue;
      std::fprintf(stderr, "Could not create server TCP listening socket %s:%d: %s\n",
                   host.c_str(), port, std::strerror(errno));
      return 1;
    }
    evconnlistener_set_error_cb(listener, &Server::OnAcceptError);
    listeners_.push_back(listener);
  }
  if (listeners_.empty()) {
    std::fprintf(stderr, "No listening socket\n");
    return 1;
  }
  listening_port_ = port;
  for (int sig : {SIGINT, SIGTERM}) {
    event* ev = evsignal_new(accept_base, sig, &Server::OnSignal, this);
    event_add(ev, nullptr);
    signal_events_.push_back(ev);
  }
  std::fprintf(stderr, "ordis ready to accept connections on port %d with %d I/O threads\n",
               port, nthreads);
  {
    std::lock_guard lock(started_mu_);
    start_state_ = StartState::kListening;
  }
  started_cv_.notify_all();
  for (auto& t : threads_) t->Start();
  for (auto& t : threads_) t->Join();
  for (evconnlistener* l : listeners_) evconnlistener_free(l);
  for (event* ev : signal_events_) event_free(ev);
  listeners_.clear();
  signal_events_.clear();
  threads_.clear();
  if (!shutdown_saved_) {
    // A signal: save when save points are configured (as Redis), and sync the log.
    persistence::Status status = persistence_->Shutdown(!config_->Value("save").empty(), true);
    if (!status.ok()) std::fprintf(stderr, "Error saving on shutdown: %s\n", status.message().c_str());
  }
  std::fprintf(stderr, "ordis is now ready to exit, bye bye...\n");
  return 0;
}

void Server::RequestShutdown() {
  if (shutting_down_.exchange(true)) return;
  for (auto& t : threads_) t->Stop();
}

void Server::OnSignal(evutil_socket_t, short, void* arg) {
  std::fprintf(stderr, "Received shutdown signal, scheduling shutdown...\n");
  static_cast<Server*>(arg)->RequestShutdown();
}

void Server::OnAccept(evconnlistener*, evutil_socket_t fd, sockaddr*, int, void* arg) {
  auto* self = static_cast<Server*>(arg);
  if (static_cast<int64_t>(self->clients_.size()) >= self->config_->maxclients()) {
    [[maybe_unused]] ssize_t n =
        write(fd, errors::kMaxClientsReply.data(), errors::kMaxClientsReply.size());
    close(fd);
    Bump(self->threads_[0]->stats().rejected_connections);
    return;
  }
  // The least loaded of the active threads (the first on a tie).
  size_t target = 0;
  const size_t active = static_cast<size_t>(self->active_threads());
  for (size_t i = 1; i < active && i < self->threads_.size(); ++i) {
    if (self->threads_[i]->assigned() < self->threads_[target]->assigned()) target = i;
  }
  IoThread* thread = self->threads_[target].get();
  thread->AddAssigned(1);
  Bump(thread->stats().connections_received);
  evutil_make_socket_nonblocking(fd);
  if (target == 0) {
    thread->AddConnection(fd);  // the accepting thread is thread 0
  } else {
    thread->Post([thread, fd] { thread->AddConnection(fd); });
  }
}

void Server::OnAcceptError(evconnlistener*, void*) {
  std::fprintf(stderr, "accept error: %s\n", std::strerror(errno));
}

void Server::ActiveExpire(int64_t now_ms) {
  // Redis's slow cycle: 20 samples per db; repeat while more than a quarter were expired, within
  // a budget of 25% of the cron period.
  constexpr int kSamples = 20;
  constexpr int64_t kBudgetUs = 25 * 1000;
  auto start = std::chrono::steady_clock::now();
  while (true) {
    size_t deleted;
    {
      std::unique_lock lock(keyspace_->mu());
      deleted = keyspace_->ActiveExpireCycle(now_ms, kSamples);
    }
    auto spent = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::steady_clock::now() - start)
                     .count();
    if (deleted * 4 <= static_cast<size_t>(kSamples) || spent > kBudgetUs) break;
  }
}

void Server::BalanceThreads() {
  const int n = static_cast<int>(threads_.size());
  if (n == 1) return;
  if (!config_->adaptive_threads()) {
    balancer_.Reset(n);
    last_sample_s_ = -1;  // the first window after adaptive-threads comes back only samples
  } else {
    const double now_s = static_cast<double>(NowUs()) * 1e-6;
    std::vector<double> cpu(n);
    for (int i = 0; i < n; ++i) cpu[i] = ThreadCpuSeconds(threads_[i]->cpu_clock());
    const double idle_s = MachineIdleSeconds();
    const double window_s = now_s - last_sample_s_;
    if (last_sample_s_ >= 0 && window_s > 0.01) {
      std::vector<double> active_cpu;
      for (int i = 0; i < balancer_.active(); ++i) {
        // A thread not yet running (or a clock that failed) counts as idle.
        bool known = cpu[i] >= 0 && last_thread_cpu_[i] >= 0;
        active_cpu.push_back(known ? (cpu[i] - last_thread_cpu_[i]) / window_s : 0);
      }
      double idle_cores =
          idle_s >= 0 && last_idle_s_ >= 0 ? (idle_s - last_idle_s_) / window_s : -1;
      balancer_.Update(active_cpu, idle_cores);
    }
    last_thread_cpu_ = std::move(cpu);
    last_idle_s_ = idle_s;
    last_sample_s_ = now_s;
  }
  if (balancer_.active() != active_threads()) {
    active_threads_.store(balancer_.active(), std::memory_order_relaxed);
    thread_changes_.fetch_add(1, std::memory_order_relaxed);
  }
  std::vector<size_t> assigned(n);
  for (int i = 0; i < n; ++i) assigned[i] = threads_[i]->assigned();
  for (const ConnectionMove& move : PlanMoves(assigned, active_threads())) {
    IoThread* from = threads_[move.from].get();
    IoThread* to = threads_[move.to].get();
    size_t count = move.count;
    from->Post([from, to, count] { from->MoveConnections(to, count); });
  }
}

void Server::ResetStats() {
  for (auto& t : threads_) {
    ThreadStats& s = t->stats();
    for (size_t i = 0; i < commands().flat().size(); ++i) {
      CommandStats& c = s.per_command[i];
      c.calls = 0;
      c.usec = 0;
      c.rejected_calls = 0;
      c.failed_calls = 0;
    }
    for (Counter* c : {&s.commands_processed, &s.connections_received, &s.rejected_connections,
                       &s.net_input_bytes, &s.net_output_bytes, &s.keyspace_hits,
                       &s.keyspace_misses, &s.error_replies, &s.output_limit_disconnections}) {
      c->store(0, std::memory_order_relaxed);
    }
  }
  keyspace_->ResetStats();
}

}  // namespace ordis::server
