#include "server/net/io_thread.h"

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cassert>
#include <cstdint>
#include <mutex>

#include "base/clock.h"
#include "base/logging.h"
#include "base/memory.h"
#include "server/net/connection.h"
#include "server/net/io_thread_pool.h"

namespace ordis::server {
namespace {

// Timers on CLOCK_MONOTONIC rather than libevent's default coarse clock, whose ticks (4 ms here)
// let a blocked client's timeout fire that much before its deadline.
event_base* NewEventBase() {
  event_config* config = event_config_new();
  event_config_set_flag(config, EVENT_BASE_FLAG_PRECISE_TIMER);
  event_base* base = event_base_new_with_config(config);
  event_config_free(config);
  return base;
}

}  // namespace

IoThread::IoThread(IoThreadPool& pool, int index, Config& config, CommandSink& sink,
                   ThreadStats& stats)
    : pool_(pool),
      index_(index),
      config_(config),
      sink_(sink),
      stats_(stats),
      runner_(sink.NewRunner(stats)),
      base_(NewEventBase()),
      notify_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  notify_event_ = event_new(base_, notify_fd_, EV_READ | EV_PERSIST, &IoThread::OnNotify, this);
  event_add(notify_event_, nullptr);
  turn_end_event_ = event_new(base_, -1, 0, &IoThread::OnTurnEnd, this);
  runner_->SetBusyPoll([this] { ServeWhileScriptBusy(); });
  cron_event_ = event_new(base_, -1, EV_PERSIST, &IoThread::OnCron, this);
  timeval every{0, 100 * 1000};  // 10 Hz, as Redis's default hz
  event_add(cron_event_, &every);
  if (const int fd = runner_->cold_reads_fd(); fd >= 0) {
    cold_reads_event_ = event_new(base_, fd, EV_READ | EV_PERSIST, &IoThread::OnColdReads, this);
    event_add(cold_reads_event_, nullptr);
  }
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
  if (cold_reads_event_ != nullptr) event_free(cold_reads_event_);
  event_free(turn_end_event_);
  event_base_free(base_);
  close(notify_fd_);
}

namespace {
// The IoThread whose loop runs on this thread (nullptr elsewhere): set by the thread itself, so
// reading it needs no synchronization (thread_ is assigned after the thread starts).
thread_local IoThread* current_io_thread = nullptr;
}  // namespace

void IoThread::Start() {
  thread_ = std::thread([this] {
    current_io_thread = this;
    base::MemoryAccountedThread accounted;
    cpu_clock_.store(CurrentThreadCpuClock(), std::memory_order_relaxed);
    event_base_dispatch(base_);
    // Leaving the loop: close what is still connected, on this thread.
    for (auto& [id, conn] : connections_) sink_.SessionEnded(conn->session());
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
  std::vector<uint64_t> pushes;
  {
    std::lock_guard lock(self->tasks_mu_);
    tasks.swap(self->tasks_);
    pushes.swap(self->pushes_);
  }
  for (auto& task : tasks) task();
  for (uint64_t id : pushes) {
    auto it = self->connections_.find(id);  // gone, or moved: its new thread takes them
    if (it != self->connections_.end()) it->second->DeliverPushes();
  }
}

void IoThread::OnCron(evutil_socket_t, short, void* arg) { static_cast<IoThread*>(arg)->Cron(); }

void IoThread::OnBalance(evutil_socket_t, short, void* arg) {
  static_cast<IoThread*>(arg)->pool_.Balance();
}

void IoThread::Cron() {
  int64_t now_ms = NowMs();
  std::vector<Connection*> conns;
  conns.reserve(connections_.size());
  for (auto& [id, conn] : connections_) conns.push_back(conn.get());
  for (Connection* conn : conns) conn->CheckLimits(now_ms);
  if (index_ == 0) sink_.Cron(now_ms);
}

void IoThread::AddConnection(int fd, uint64_t id) {
  auto conn = std::make_unique<Connection>(*this, fd, id, sink_.NewSession());
  if (std::string_view refusal = sink_.Refusal(conn->session()); !refusal.empty()) {
    // Protected mode: the reason goes out on the bare socket and the connection is closed (with
    // its session, never started).
    [[maybe_unused]] ssize_t n = write(fd, refusal.data(), refusal.size());
    // Closing with unread input would reset the connection and could destroy the reply before the
    // client reads it: end our side first and drop the client's first request if it is here.
    shutdown(fd, SHUT_WR);
    char discard[4096];
    while (read(fd, discard, sizeof(discard)) > 0) {
    }
    Bump(stats_[Stat::kRejectedConnections]);
    log::Verbose("Refused {} (client id={})", conn->session().addr, id);
    AddAssigned(-1);
    return;
  }
  Connection* raw = conn.get();
  connections_[id] = std::move(conn);
  sink_.SessionStarted(raw->session(), this);
  log::Verbose("Accepted {} (client id={})", raw->session().addr, id);
  raw->Start();
}

void IoThread::RemoveConnection(Connection* conn) {
  uint64_t id = conn->session().id;
  log::Verbose("Client id={} addr={} closed", id, conn->session().addr);
  sink_.SessionEnded(conn->session());
  auto it = connections_.find(id);
  assert(it != connections_.end());
  // Freed on the next loop turn: the caller may still be inside one of conn's methods.
  std::shared_ptr<Connection> doomed(it->second.release());
  connections_.erase(it);
  AddAssigned(-1);
  Post([doomed] {});
}

void IoThread::CloseConnection(uint64_t id) {
  Post([this, id] {
    auto it = connections_.find(id);
    // Not here: it moved away, and its kill_requested flag closes it on its new thread.
    if (it != connections_.end()) it->second->Close();
  });
}

void IoThread::DeliverPushes(uint64_t id) {
  if (current_io_thread == this && in_turn_) {
    pushes_here_.push_back(id);  // Turn delivers them with its replies
    return;
  }
  bool wake;
  {
    std::lock_guard lock(tasks_mu_);
    // Non-empty lists mean the eventfd was written and OnNotify has not taken them yet.
    wake = tasks_.empty() && pushes_.empty();
    pushes_.push_back(id);
  }
  if (wake) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(notify_fd_, &one, sizeof(one));
  }
}

void IoThread::ResumePostponed(uint64_t id) {
  Post([this, id] {
    auto it = connections_.find(id);  // closed meanwhile: gone (a postponed one never moves)
    if (it != connections_.end()) it->second->ResumePostponed();
  });
}

void IoThread::Unblocked(uint64_t id) {
  if (current_io_thread == this && in_turn_) {
    unblocked_here_.push_back(id);  // Turn resumes it once the turn's log commit is done
    return;
  }
  Post([this, id] {
    auto it = connections_.find(id);  // closed meanwhile: gone (a blocked one does not move)
    if (it != connections_.end()) it->second->Unblocked();
  });
}

void IoThread::QueueInput(uint64_t client_id) {
  EndTurnSoon();
  to_process_.push_back(client_id);
}

void IoThread::ScheduleFlush(uint64_t client_id) {
  EndTurnSoon();
  to_flush_.push_back(client_id);
}

void IoThread::EndTurnSoon() {
  // The turn's first queued connection activates the event; Turn empties both lists.
  if (to_process_.empty() && to_flush_.empty()) event_active(turn_end_event_, 0, 0);
}

void IoThread::OnTurnEnd(evutil_socket_t, short, void* arg) { static_cast<IoThread*>(arg)->Turn(); }

void IoThread::OnColdReads(evutil_socket_t, short, void* arg) {
  auto* self = static_cast<IoThread*>(arg);
  self->runner_->ReapColdReads([self](uint64_t id) {
    auto it = self->connections_.find(id);  // closed meanwhile: gone
    if (it != self->connections_.end()) it->second->ColdValuesLanded();
  });
}

void IoThread::Turn() {
  // The reads of the turn have run (libevent's read callbacks, each queuing its connection).
  in_turn_ = true;
  ProcessQueuedInput();  // pre-parse each connection's first batch, prefetch, run the commands
  runner_->EndTurn();    // one commit of the append-only log for every command of the turn
  in_turn_ = false;
  // Clients the turn's writes served on this thread: their replies leave with the turn's, not a
  // loop pass later through the eventfd (a BRPOP/LPUSH ping-pong's two extra wakeups).
  ServeHere(&unblocked_here_, &Connection::Unblocked);
  // Subscribers on this thread of the turn's publishes, likewise: through the eventfd each turn
  // that published cost an eventfd write, a loop pass and its read (PUBLISH -P 1).
  ServeHere(&pushes_here_, &Connection::DeliverPushes);
  FlushScheduled();   // only now may the replies go out
  RunPendingMoves();  // connections the balancer asked to move, now that none is mid-turn
  // An unblocked client's input left to run (queued above, after the turn's processing).
  if (!to_process_.empty() || !to_flush_.empty()) event_active(turn_end_event_, 0, 0);
}

void IoThread::ServeHere(std::vector<uint64_t>* ids, void (Connection::*serve)()) {
  std::vector<uint64_t> taken;
  taken.swap(*ids);  // what serve adds waits for the next turn
  for (uint64_t id : taken) {
    auto it = connections_.find(id);  // closed meanwhile: gone
    if (it != connections_.end()) (it->second.get()->*serve)();
  }
}

void IoThread::ServeWhileScriptBusy() {
  if (index_ == 0) pool_.AcceptWhileBusy();  // the listener is this thread's
  // Collected first: a command may close its connection (QUIT), which leaves connections_.
  busy_fds_.clear();
  busy_connections_.clear();
  busy_prepared_.clear();
  for (auto& [id, conn] : connections_) {
    if (conn->PreparedWhileScriptBusy()) {
      busy_prepared_.push_back(conn.get());
    } else if (conn->IdleWhileScriptBusy()) {
      busy_fds_.push_back({conn->session().fd, POLLIN, 0});
      busy_connections_.push_back(conn.get());
    }
  }
  for (Connection* conn : busy_prepared_) conn->RunPreparedWhileScriptBusy();
  if (busy_fds_.empty() || poll(busy_fds_.data(), busy_fds_.size(), 0) <= 0) return;
  for (size_t i = 0; i < busy_fds_.size(); ++i) {
    if (busy_fds_[i].revents != 0) busy_connections_[i]->ServeWhileScriptBusy();
  }
}

void IoThread::ProcessQueuedInput() {
  // Enough keys for their cache misses to overlap (the index looks up 32 at a time), few enough
  // that the first are still cached when their commands run.
  constexpr size_t kPrefetchGroup = 32;
  std::vector<Connection*>& conns = processing_;
  const std::vector<uint64_t>& ids = to_process_;
  for (size_t next = 0; next < ids.size();) {
    conns.clear();
    size_t keys = 0;
    for (; next < ids.size() && keys < kPrefetchGroup; ++next) {
      auto it = connections_.find(ids[next]);  // a connection closed meanwhile is gone
      if (it == connections_.end() || it->second->closed()) continue;
      keys = it->second->PrepareBatch();
      conns.push_back(it->second.get());
    }
    // The cold values the group's batches wait for go to the disk together.
    runner_->SubmitColdReads();
    // Unpipelined clients send one command per read: across the turn's connections there is
    // still a batch whose cache misses can overlap.
    runner_->PrefetchCollected();
    // A connection another one's command closed stays allocated until the next turn (see
    // RemoveConnection), so these pointers are valid; closed() says whether to skip it.
    for (Connection* conn : conns) {
      if (!conn->closed() && !conn->waiting()) conn->ProcessInput();
    }
  }
  to_process_.clear();
}

void IoThread::FlushScheduled() {
  std::vector<uint64_t> ids;
  ids.swap(to_flush_);
  for (uint64_t id : ids) {
    auto it = connections_.find(id);  // a connection closed meanwhile is gone
    if (it != connections_.end()) it->second->FlushScheduled();
  }
}

void IoThread::MoveConnections(IoThread* to, size_t count) {
  if (to == this || count == 0) return;
  pending_moves_.push_back({to, count});
  // Input waiting for this turn's processing, and replies scheduled for its end, pin their
  // connections until the turn is over.
  if (to_process_.empty() && to_flush_.empty()) RunPendingMoves();
}

namespace {

// A connection on its way between threads. If the target never adopts it (shutdown), its
// session ends as it is freed.
struct Handoff {
  std::unique_ptr<Connection> conn;
  CommandSink* sink = nullptr;
  ~Handoff() {
    if (conn != nullptr) sink->SessionEnded(conn->session());
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
      auto handoff = std::make_shared<Handoff>();
      handoff->conn = std::move(it->second);
      handoff->sink = &sink_;
      connections_.erase(it++);
      IoThread* to = move.to;
      handoff->conn->Detach(to);
      AddAssigned(-1);
      to->AddAssigned(1);
      sink_.SessionMoved(handoff->conn->session(), to);
      to->Post([to, handoff] { to->Adopt(std::move(handoff->conn)); });
      Bump(stats_[Stat::kConnectionsMoved]);
      --left;
    }
  }
  pending_moves_.clear();
}

void IoThread::Adopt(std::unique_ptr<Connection> conn) {
  Connection* raw = conn.get();
  connections_[raw->session().id] = std::move(conn);
  raw->Attach();
}

}  // namespace ordis::server
