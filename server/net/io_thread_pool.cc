#include "server/net/io_thread_pool.h"

#include <event2/util.h>

#include "base/clock.h"
#include "server/net/cpu_usage.h"

namespace ordis::server {

IoThreadPool::IoThreadPool(Config& config, CommandSink& sink, ServerStats& stats)
    : config_(config) {
  const int n = config.threads();
  for (int i = 0; i < n; ++i) {
    threads_.push_back(std::make_unique<IoThread>(*this, i, config, sink, stats.thread(i)));
  }
  balancer_ = ThreadBalancer(n);
  if (!config.adaptive_threads()) balancer_.Reset(n);
  active_.store(balancer_.active(), std::memory_order_relaxed);
}

void IoThreadPool::Start() {
  for (auto& t : threads_) t->Start();
}

void IoThreadPool::Join() {
  for (auto& t : threads_) t->Join();
}

void IoThreadPool::Stop() {
  for (auto& t : threads_) t->Stop();
}

std::vector<size_t> IoThreadPool::Assigned() const {
  std::vector<size_t> assigned;
  for (const auto& t : threads_) assigned.push_back(t->assigned());
  return assigned;
}

bool IoThreadPool::Accept(int fd) {
  // Connections living on the threads or on their way to one: the clients connected, counted
  // before their sessions are registered (INFO's connected_clients counts those), so a burst of
  // accepts cannot overshoot maxclients.
  size_t connected = 0;
  for (const auto& t : threads_) connected += t->assigned();
  if (static_cast<int64_t>(connected) >= config_.maxclients()) return false;
  // The least loaded of the active threads (the first on a tie).
  size_t target = 0;
  const size_t active = static_cast<size_t>(this->active());
  for (size_t i = 1; i < active && i < threads_.size(); ++i) {
    if (threads_[i]->assigned() < threads_[target]->assigned()) target = i;
  }
  IoThread* thread = threads_[target].get();
  thread->AddAssigned(1);
  Bump(thread->stats()[Stat::kConnectionsReceived]);
  evutil_make_socket_nonblocking(fd);
  const uint64_t id = next_client_id_.fetch_add(1, std::memory_order_relaxed);
  if (target == 0) {
    thread->AddConnection(fd, id);  // the accepting thread is thread 0
  } else {
    thread->Post([thread, fd, id] { thread->AddConnection(fd, id); });
  }
  return true;
}

void IoThreadPool::Balance() {
  const int n = static_cast<int>(threads_.size());
  if (n == 1) return;
  if (!config_.adaptive_threads()) {
    balancer_.Reset(n);
    last_sample_s_ = -1;  // the first window after adaptive-threads comes back only samples
  } else {
    const double now_s = static_cast<double>(NowUs()) * 1e-6;
    std::vector<double> cpu(n);
    uint64_t commands = 0, lock_wait_us = 0;
    for (int i = 0; i < n; ++i) {
      cpu[i] = ThreadCpuSeconds(threads_[i]->cpu_clock());
      commands += Read(threads_[i]->stats()[Stat::kCommandsProcessed]);
      lock_wait_us += Read(threads_[i]->stats()[Stat::kKeyspaceLockWaitUs]);
    }
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
      // (A stats reset between windows reads as an unknown rate.)
      const double ops_per_s = commands >= last_commands_
                                   ? static_cast<double>(commands - last_commands_) / window_s
                                   : -1;
      // (Inactive threads wait for nothing: they run no commands.)
      const double lock_wait_cores =
          lock_wait_us >= last_lock_wait_us_
              ? static_cast<double>(lock_wait_us - last_lock_wait_us_) * 1e-6 / window_s
              : -1;
      balancer_.Update(active_cpu, idle_cores, ops_per_s, lock_wait_cores);
    }
    last_commands_ = commands;
    last_lock_wait_us_ = lock_wait_us;
    last_thread_cpu_ = std::move(cpu);
    last_idle_s_ = idle_s;
    last_sample_s_ = now_s;
  }
  if (balancer_.active() != active()) {
    active_.store(balancer_.active(), std::memory_order_relaxed);
    changes_.fetch_add(1, std::memory_order_relaxed);
  }
  for (const ConnectionMove& move : PlanMoves(Assigned(), active())) {
    IoThread* from = threads_[move.from].get();
    IoThread* to = threads_[move.to].get();
    size_t count = move.count;
    from->Post([from, to, count] { from->MoveConnections(to, count); });
  }
}

}  // namespace ordis::server
