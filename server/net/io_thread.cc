#include "server/net/io_thread.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cassert>
#include <cstdint>
#include <mutex>

#include "server/command/command_table.h"
#include "server/net/connection.h"
#include "server/durability/persistence.h"
#include "server/server.h"

namespace ordis::server {

IoThread::IoThread(Server& server, int index)
    : server_(server),
      index_(index),
      base_(event_base_new()),
      notify_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      stats_(server.commands().flat().size()),
      dispatcher_(server, stats_) {
  notify_event_ = event_new(base_, notify_fd_, EV_READ | EV_PERSIST, &IoThread::OnNotify, this);
  event_add(notify_event_, nullptr);
  flush_event_ = event_new(base_, -1, 0, &IoThread::OnFlush, this);
  process_event_ = event_new(base_, -1, 0, &IoThread::OnProcess, this);
  cron_event_ = event_new(base_, -1, EV_PERSIST, &IoThread::OnCron, this);
  timeval every{0, 100 * 1000};  // 10 Hz, as Redis's default hz
  event_add(cron_event_, &every);
  if (index_ == 0) {
    balance_event_ = event_new(base_, -1, EV_PERSIST, &IoThread::OnBalance, this);
    timeval window{0, 50 * 1000};  // the ThreadBalancer's window
    event_add(balance_event_, &window);
  }
}

IoThread::~IoThread() {
  tasks_.clear();  // may hold connections awaiting deletion: free them before the base
  connections_.clear();
  event_free(notify_event_);
  event_free(cron_event_);
  if (balance_event_ != nullptr) event_free(balance_event_);
  event_free(flush_event_);
  event_free(process_event_);
  event_base_free(base_);
  close(notify_fd_);
}

void IoThread::Start() {
  thread_ = std::thread([this] {
    cpu_clock_.store(CurrentThreadCpuClock(), std::memory_order_relaxed);
    event_base_dispatch(base_);
    // Leaving the loop: close what is still connected, on this thread.
    for (auto& [id, conn] : connections_) server_.clients().Remove(id);
    connections_.clear();
  });
}

void IoThread::Join() {
  if (thread_.joinable()) thread_.join();
}

void IoThread::Post(std::function<void()> fn) {
  {
    std::lock_guard lock(tasks_mu_);
    tasks_.push_back(std::move(fn));
  }
  uint64_t one = 1;
  // The eventfd counter wakes the loop; a failed write means it is already signalled.
  [[maybe_unused]] ssize_t n = write(notify_fd_, &one, sizeof(one));
}

void IoThread::Stop() {
  Post([this] { event_base_loopbreak(base_); });
}

void IoThread::OnNotify(evutil_socket_t fd, short, void* arg) {
  auto* self = static_cast<IoThread*>(arg);
  uint64_t count;
  [[maybe_unused]] ssize_t n = read(fd, &count, sizeof(count));
  std::vector<std::function<void()>> tasks;
  {
    std::lock_guard lock(self->tasks_mu_);
    tasks.swap(self->tasks_);
  }
  for (auto& task : tasks) task();
}

void IoThread::OnCron(evutil_socket_t, short, void* arg) { static_cast<IoThread*>(arg)->Cron(); }

void IoThread::OnBalance(evutil_socket_t, short, void* arg) {
  static_cast<IoThread*>(arg)->server_.BalanceThreads();
}

void IoThread::Cron() {
  int64_t now_ms = NowMs();
  std::vector<Connection*> conns;
  conns.reserve(connections_.size());
  for (auto& [id, conn] : connections_) conns.push_back(conn.get());
  for (Connection* conn : conns) conn->CheckLimits(now_ms);
  if (index_ == 0) {
    server_.ActiveExpire(now_ms);
    server_.persistence().Cron(now_ms);
  }
}

void IoThread::AddConnection(int fd) {
  uint64_t id = server_.NextClientId();
  auto conn = std::make_unique<Connection>(*this, fd, id);
  Connection* raw = conn.get();
  connections_[id] = std::move(conn);
  server_.clients().Add(&raw->state(), this);
  raw->Start();
}

void IoThread::RemoveConnection(Connection* conn) {
  uint64_t id = conn->state().id;
  server_.clients().Remove(id);
  auto it = connections_.find(id);
  assert(it != connections_.end());
  // Freed on the next loop turn: the caller may still be inside one of conn's methods.
  std::shared_ptr<Connection> doomed(it->second.release());
  connections_.erase(it);
  AddAssigned(-1);
  Post([doomed] {});
}

void IoThread::ScheduleFlush(uint64_t client_id) {
  if (to_flush_.empty()) event_active(flush_event_, 0, 0);
  to_flush_.push_back(client_id);
}

void IoThread::QueueInput(uint64_t client_id) {
  if (to_process_.empty()) event_active(process_event_, 0, 0);
  to_process_.push_back(client_id);
}

void IoThread::OnProcess(evutil_socket_t, short, void* arg) {
  // Enough keys for their cache misses to overlap (the index looks up 32 at a time), few enough
  // that the first are still cached when their commands run.
  constexpr size_t kPrefetchGroup = 32;
  auto* self = static_cast<IoThread*>(arg);
  std::vector<Connection*>& conns = self->processing_;
  std::vector<Keyspace::KeyRef>& keys = self->prefetch_keys_;
  const std::vector<uint64_t>& ids = self->to_process_;
  for (size_t next = 0; next < ids.size();) {
    conns.clear();
    keys.clear();
    for (; next < ids.size() && keys.size() < kPrefetchGroup; ++next) {
      auto it = self->connections_.find(ids[next]);  // a connection closed meanwhile is gone
      if (it == self->connections_.end() || it->second->closed()) continue;
      it->second->PrepareBatch(&keys);
      conns.push_back(it->second.get());
    }
    // Unpipelined clients send one command per read: across the turn's connections there is
    // still a batch whose cache misses can overlap.
    if (keys.size() >= 2) self->server_.keyspace().Prefetch(keys);
    // A connection another one's command closed stays allocated until the next turn (see
    // RemoveConnection), so these pointers are valid; closed() says whether to skip it.
    for (Connection* conn : conns) {
      if (!conn->closed()) conn->ProcessInput();
    }
  }
  self->to_process_.clear();
  if (self->to_flush_.empty()) self->RunPendingMoves();
}

void IoThread::OnFlush(evutil_socket_t, short, void* arg) {
  auto* self = static_cast<IoThread*>(arg);
  self->dispatcher_.CommitLog();
  std::vector<uint64_t> ids;
  ids.swap(self->to_flush_);
  for (uint64_t id : ids) {
    auto it = self->connections_.find(id);  // a connection closed meanwhile is gone
    if (it != self->connections_.end()) it->second->FlushScheduled();
  }
  self->RunPendingMoves();
}

void IoThread::CloseConnection(uint64_t id) {
  Post([this, id] {
    auto it = connections_.find(id);
    // Not here: it moved away, and its kill_requested flag closes it on its new thread.
    if (it != connections_.end()) it->second->Close();
  });
}

void IoThread::MoveConnections(IoThread* to, size_t count) {
  if (to == this || count == 0) return;
  pending_moves_.push_back({to, count});
  // Input waiting for this turn's processing, and replies scheduled for its end, pin their
  // connections until the turn is over.
  if (to_process_.empty() && to_flush_.empty()) RunPendingMoves();
}

namespace {

// A connection on its way between threads. If the target never adopts it (shutdown), it leaves
// the client registry as it is freed.
struct Handoff {
  std::unique_ptr<Connection> conn;
  ClientRegistry* clients = nullptr;
  ~Handoff() {
    if (conn != nullptr) clients->Remove(conn->state().id);
  }
};

}  // namespace

void IoThread::RunPendingMoves() {
  for (const PendingMove& move : pending_moves_) {
    size_t left = move.count;
    for (auto it = connections_.begin(); left > 0 && it != connections_.end();) {
      if (!it->second->movable()) {
        ++it;
        continue;
      }
      uint64_t id = it->first;
      auto handoff = std::make_shared<Handoff>();
      handoff->conn = std::move(it->second);
      handoff->clients = &server_.clients();
      connections_.erase(it++);
      IoThread* to = move.to;
      handoff->conn->Detach(to);
      AddAssigned(-1);
      to->AddAssigned(1);
      server_.clients().SetHost(id, to);
      to->Post([to, handoff] { to->Adopt(std::move(handoff->conn)); });
      Bump(stats_.connections_moved);
      --left;
    }
  }
  pending_moves_.clear();
}

void IoThread::Adopt(std::unique_ptr<Connection> conn) {
  Connection* raw = conn.get();
  connections_[raw->state().id] = std::move(conn);
  raw->Attach();
}

}  // namespace ordis::server
