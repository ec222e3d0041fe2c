#include "server/net/connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "base/clock.h"
#include "base/logging.h"
#include "server/net/io_thread.h"

namespace ordis::server {
namespace {

constexpr size_t kReadSize = 16 * 1024;
constexpr int kMaxIov = 64;

// Arms timer to fire at deadline_ms (the wall clock's milliseconds) or later, never before.
// libevent adds a relative timeout to the time it cached when the loop woke, which a long turn
// leaves behind the real time (a 500 ms BLPOP timed out 5.5 ms early): the cache is refreshed
// first, and the wait counted in microseconds.
void ArmTimer(event_base* base, event* timer, int64_t deadline_ms) {
  event_base_update_cache_time(base);
  // Deadlines are up to the end of int64 milliseconds (BLPOP k 9e15): the wait is worked out in
  // milliseconds first, so nothing overflows.
  const int64_t now_us = NowUs();
  const int64_t wait_ms = deadline_ms - now_us / 1000;
  const int64_t wait_us = wait_ms <= 0                  ? 0
                          : wait_ms >= INT64_MAX / 1000 ? INT64_MAX
                                                        : wait_ms * 1000 - now_us % 1000;
  timeval tv{static_cast<time_t>(wait_us / 1000000), static_cast<suseconds_t>(wait_us % 1000000)};
  evtimer_add(timer, &tv);
}
// Pending output allowed to a client that must authenticate first: Redis 7.0.15 closes such a
// client once its replies outgrow the 16 KiB reply buffer by 1 KiB (measured: 400 pipelined PINGs
// before AUTH, 13.6 KB of -NOAUTH, are answered; 1000 close the connection unanswered).
constexpr size_t kUnauthenticatedOutputLimit = 16 * 1024 + 1024;

std::string SockAddr(int fd, bool peer) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  int rc = peer ? getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len)
                : getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  if (rc != 0) return "?:0";
  char ip[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (ss.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&ss);
    inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
    port = ntohs(in->sin_port);
  } else if (ss.ss_family == AF_INET6) {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&ss);
    inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
    port = ntohs(in6->sin6_port);
  }
  return std::string(ip) + ":" + std::to_string(port);
}

// Redis 7.0's "local client" test (protected mode, enable-*-command local): the peer's address
// text is exactly 127.0.0.1 or ::1; other loopback addresses such as 127.0.0.2 are not local.
bool IsLoopbackPeer(std::string_view addr) {
  std::string_view ip = addr.substr(0, addr.rfind(':'));
  return ip == "127.0.0.1" || ip == "::1";
}

}  // namespace

Connection::Connection(IoThread& thread, int fd, uint64_t id, std::unique_ptr<Session> session)
    : thread_(&thread), fd_(fd), writer_(&out_), session_(std::move(session)) {
  session_->id = id;
  session_->fd = fd;
  session_->addr = SockAddr(fd, true);
  session_->laddr = SockAddr(fd, false);
  session_->local = IsLoopbackPeer(session_->addr);
  session_->created_ms = NowMs();
  session_->last_interaction_ms.store(session_->created_ms, std::memory_order_relaxed);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

Connection::~Connection() {
  if (pause_timer_) event_free(pause_timer_);
  if (block_timer_) event_free(block_timer_);
  if (read_event_) event_free(read_event_);
  if (write_event_) event_free(write_event_);
  if (fd_ >= 0) close(fd_);
}

void Connection::Start() {
  read_event_ =
      event_new(thread_->base(), fd_, EV_READ | EV_PERSIST, &Connection::OnReadable, this);
  write_event_ =
      event_new(thread_->base(), fd_, EV_WRITE | EV_PERSIST, &Connection::OnWritable, this);
  event_add(read_event_, nullptr);
}

void Connection::Detach(IoThread* to) {
  assert(movable());
  event_free(read_event_);
  event_free(write_event_);
  read_event_ = write_event_ = nullptr;
  if (pause_timer_ != nullptr) {  // not pending: a paused connection does not move
    event_free(pause_timer_);
    pause_timer_ = nullptr;
  }
  if (block_timer_ != nullptr) {  // not pending (a blocked client stays); made again there
    event_free(block_timer_);
    block_timer_ = nullptr;
  }
  write_armed_ = false;
  thread_ = to;
}

void Connection::Attach() {
  Start();
  if (session_->kill_requested.load(std::memory_order_relaxed)) {
    Close();
    return;
  }
  // Replies the old thread could not send yet (a client slow to read) go on from here, with
  // messages whose nudge went to the old thread; input holds at most an incomplete command,
  // finished by the next read.
  DeliverPushes();
}

void Connection::DeliverPushes() {
  // A client closing after its reply takes no more output, as in Redis (a monitor's own QUIT
  // line never reaches it).
  if (closed_ || session_->close_after_reply) return;
  if (session_->pushes.Take(&out_)) {
    log::Warning("Client id={} addr={} closed for overcoming of output buffer limits.",
                 session_->id, session_->addr);
    Bump(thread_->stats()[Stat::kOutputLimitDisconnections]);
    Close();
    return;
  }
  if (flush_scheduled_) return;  // behind replies waiting for the log's commit
  if (!out_.empty()) Flush();
  if (!closed_) OverHardLimit();
}

OutputBufferLimit Connection::OutputLimit() const {
  return session_->pubsub.load(std::memory_order_relaxed) ? thread_->config().pubsub_output_limit()
                                                          : thread_->config().normal_output_limit();
}

void Connection::Close() {
  if (closed_) return;
  closed_ = true;
  if (block_timer_) event_del(block_timer_);
  event_del(read_event_);
  event_del(write_event_);
  if (pause_timer_ != nullptr) event_del(pause_timer_);
  thread_->RemoveConnection(this);  // frees this on the next loop turn
}

void Connection::OnReadable(evutil_socket_t, short, void* arg) {
  auto* conn = static_cast<Connection*>(arg);
  if (!conn->closed_) conn->HandleRead();
}

void Connection::OnWritable(evutil_socket_t, short, void* arg) {
  auto* conn = static_cast<Connection*>(arg);
  // With a flush scheduled, the output may hold replies whose writes are not logged yet.
  if (!conn->closed_ && !conn->flush_scheduled_) conn->Flush();
}

void Connection::FlushScheduled() {
  flush_scheduled_ = false;
  if (!closed_) Flush();
}

Connection::ReadResult Connection::ReadInput() {
  size_t want = kReadSize;
  uint64_t pending = parser_.BulkBytesPending();
  if (pending > want) want = static_cast<size_t>(std::min<uint64_t>(pending, 64 * 1024 * 1024));
  char* dst = in_.Reserve(want);
  ssize_t n = read(fd_, dst, want);
  if (n <= 0) {
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return ReadResult::kNothing;
    Close();
    return ReadResult::kClosed;
  }
  in_.Commit(static_cast<size_t>(n));
  Bump(thread_->stats()[Stat::kNetInputBytes], static_cast<uint64_t>(n));
  Bump(thread_->stats()[Stat::kReadsProcessed]);
  // Counted as Redis counts its query buffer: what is not yet parsed into whole arguments (a
  // command's earlier arguments have moved to its argv there), so two 10 MB values fit in 16 MB.
  if (static_cast<int64_t>(in_.size() - parser_.ParsedBytes()) >
      thread_->config().query_buffer_limit()) {
    log::Warning("Closing client that reached max query buffer length: id={} addr={}", session_->id,
                 session_->addr);
    Close();
    return ReadResult::kClosed;
  }
  session_->last_interaction_ms.store(CoarseNowMs(), std::memory_order_relaxed);
  return ReadResult::kRead;
}

void Connection::ReplyProtocolError() {
  writer_.Error(parser_.ErrorText());
  Bump(thread_->stats()[Stat::kErrorReplies]);
  session_->close_after_reply = true;
}

void Connection::HandleRead() {
  if (waiting_ || landed_) {
    // The batch parsed before its wait points into the input buffer, which a read may move:
    // nothing is read until it has run. Parking leaves the read event on, so that a wait costs
    // no epoll_ctl for a client that sends nothing more until its replies come (a pipelining
    // client does not): only one that does has its event taken off, here, until then.
    event_del(read_event_);
    reads_deferred_ = true;
    return;
  }
  if (ReadInput() != ReadResult::kRead) return;
  // Run at the end of the loop turn's reads, with every connection that read in it: their keys
  // are prefetched together (IoThread::ProcessQueuedInput).
  if (!input_queued_) {
    input_queued_ = true;
    thread_->QueueInput(session_->id);
  }
}

bool Connection::ParseBatch() {
  batch_.clear();
  batch_args_.clear();
  std::string_view input = in_.view();
  size_t offset = 0;
  while (batch_.size() < kMaxBatch && offset < input.size()) {
    parser_.set_authenticated(!thread_->runner().NeedsAuth(*session_));
    size_t consumed = 0;
    resp::ParseStatus status = parser_.Parse(input.substr(offset), &consumed, &args_);
    if (status == resp::ParseStatus::kError) return false;
    if (status == resp::ParseStatus::kNeedMore) {
      if (batch_.empty())
        in_.Consume(consumed);  // skipped empty commands, if any
      else
        batch_.back().consumed += consumed;
      break;
    }
    batch_.push_back({batch_args_.size(), args_.size(), consumed});
    batch_args_.insert(batch_args_.end(), args_.begin(), args_.end());
    offset += consumed;
    // Inline arguments live in the parser until its next call: end the batch after one. Before
    // AUTH, parse one command at a time: AUTH changes the limits the next one is parsed with.
    const char* arg = args_[0].data();
    if (arg < input.data() || arg >= input.data() + input.size()) break;
    if (thread_->runner().NeedsAuth(*session_)) break;
  }
  return true;
}

void Connection::CollectBatchKeys() {
  CommandRunner& runner = thread_->runner();
  for (size_t i = next_command_; i < batch_.size(); ++i) {
    const ParsedCommand& cmd = batch_[i];
    runner.CollectKeys(*session_, {batch_args_.data() + cmd.first_arg, cmd.argc});
  }
}

size_t Connection::PrepareBatch() {
  input_queued_ = false;
  // A blocked client's input waits, unparsed, for the end of its wait.
  if (session_->blocked.load(std::memory_order_relaxed)) return 0;
  CommandRunner& runner = thread_->runner();
  // What each branch returns: the turn's lookup list as it stands after this batch, whose keys
  // leave it if the batch waits.
  if (landed_) {
    // Parsed before it waited; its input untouched since (no reads while waiting).
    CollectBatchKeys();
    runner.WaitForColdValues(*session_, /*landed=*/true);
    return runner.Collected();
  }
  if (resumed_) {
    // The postponed command and the rest of its batch, parsed before it waited (no reads since).
    resumed_ = false;
    CollectBatchKeys();
    if (runner.WaitForColdValues(*session_, /*landed=*/false)) Park();
    return runner.Collected();
  }
  resp::ParserLimits limits;
  limits.max_bulk_len = static_cast<uint64_t>(thread_->config().proto_max_bulk_len());
  parser_.set_limits(limits);
  batch_parse_ok_ = ParseBatch();
  CollectBatchKeys();
  if (runner.WaitForColdValues(*session_, /*landed=*/false)) {
    Park();
  } else {
    prepared_ = true;
  }
  return runner.Collected();
}

void Connection::Park() { waiting_ = true; }

void Connection::ResumeReads() {
  if (!reads_deferred_ || waiting_ || landed_ || paused_ || closed_) return;
  reads_deferred_ = false;
  event_add(read_event_, nullptr);
}

void Connection::ColdValuesLanded() {
  if (!waiting_ || closed_) return;
  waiting_ = false;
  landed_ = true;
  if (!input_queued_) {
    input_queued_ = true;
    thread_->QueueInput(session_->id);
  }
}

void Connection::Postpone() {
  paused_ = true;
  event_del(read_event_);
  if (pause_timer_ == nullptr) {
    pause_timer_ = evtimer_new(thread_->base(), &Connection::OnPauseTimer, this);
  }
  // A millisecond past the deadline: the pause is over when the command runs again.
  ArmTimer(thread_->base(), pause_timer_, session_->postponed_until_ms + 1);
}

void Connection::OnPauseTimer(evutil_socket_t, short, void* arg) {
  static_cast<Connection*>(arg)->ResumePostponed();
}

void Connection::ResumePostponed() {
  if (!paused_ || closed_) return;
  paused_ = false;
  resumed_ = true;
  session_->postponed.store(false, std::memory_order_relaxed);
  evtimer_del(pause_timer_);
  reads_deferred_ = false;
  event_add(read_event_, nullptr);
  if (!input_queued_) {
    input_queued_ = true;
    thread_->QueueInput(session_->id);
  }
}

void Connection::ProcessInput() {
  prepared_ = false;
  if (session_->blocked.load(std::memory_order_relaxed)) return;
  CommandRunner& runner = thread_->runner();
  landed_ = false;
  for (bool first = true; !closed_ && !session_->close_after_reply && in_.size() > 0;
       first = false) {
    // Pre-parse a batch of whole commands so their keys are prefetched together, then run them in
    // order. A protocol error is answered after the commands before it, as Redis does. The
    // first batch of a read was parsed and prefetched with the other connections' (PrepareBatch).
    bool parse_ok = batch_parse_ok_;
    if (!first) {
      parse_ok = ParseBatch();
      CollectBatchKeys();
      const bool wait = runner.WaitForColdValues(*session_, /*landed=*/false);
      runner.SubmitColdReads();
      runner.PrefetchCollected();
      if (wait) {
        batch_parse_ok_ = parse_ok;
        Park();
        break;
      }
    }
    for (size_t i = next_command_; i < batch_.size(); ++i) {
      const ParsedCommand& cmd = batch_[i];
      std::span<const std::string_view> args(batch_args_.data() + cmd.first_arg, cmd.argc);
      NoteRunning(args);
      runner.Run(*session_, writer_, args);
      if (session_->postponed.load(std::memory_order_relaxed)) {
        // CLIENT PAUSE: this command and the input after it wait, unread; the replies before
        // it go out.
        next_command_ = i;
        batch_parse_ok_ = parse_ok;
        Postpone();
        FinishProcessing();
        return;
      }
      in_.Consume(cmd.consumed);  // only now: args point into the buffer
      if (closed_ || OverHardLimit()) {
        next_command_ = 0;
        runner.EndBatch();
        return;
      }
      if (session_->close_after_reply) break;
      if (session_->blocked.load(std::memory_order_relaxed)) {
        Block();
        break;
      }
    }
    next_command_ = 0;
    if (session_->blocked.load(std::memory_order_relaxed)) break;
    if (!parse_ok && !session_->close_after_reply) ReplyProtocolError();
    if (batch_.empty()) break;  // waiting for the rest of a command
  }
  FinishProcessing();
}

void Connection::FinishProcessing() {
  thread_->runner().EndBatch();
  ResumeReads();
  in_.ShrinkIfIdle();
  session_->query_buffer_bytes.store(in_.size(), std::memory_order_relaxed);
  session_->query_buffer_capacity.store(in_.capacity(), std::memory_order_relaxed);
  session_->argv_bytes.store(0, std::memory_order_relaxed);
  if (!flush_scheduled_) {
    flush_scheduled_ = true;
    thread_->ScheduleFlush(session_->id);
  }
}

void Connection::Block() {
  batch_.clear();
  batch_args_.clear();
  batch_parse_ok_ = true;
  parser_.Restart();
  const int64_t deadline = session_->block_deadline_ms;
  if (deadline == 0) return;
  if (block_timer_ == nullptr) {
    block_timer_ = evtimer_new(thread_->base(), &Connection::OnBlockTimeout, this);
  }
  ArmTimer(thread_->base(), block_timer_, deadline);
}

void Connection::OnBlockTimeout(evutil_socket_t, short, void* arg) {
  auto* conn = static_cast<Connection*>(arg);
  if (conn->closed_ || !conn->session_->blocked.load(std::memory_order_relaxed)) return;
  // false: a write is serving it this moment; its nudge follows.
  if (conn->thread_->runner().ResumeBlocked(*conn->session_, conn->writer_, /*timed_out=*/true)) {
    conn->EndBlock();
  }
}

void Connection::Unblocked() {
  if (closed_ || !session_->blocked.load(std::memory_order_relaxed)) return;
  if (thread_->runner().ResumeBlocked(*session_, writer_, /*timed_out=*/false)) EndBlock();
}

void Connection::EndBlock() {
  if (block_timer_ != nullptr) evtimer_del(block_timer_);
  session_->last_interaction_ms.store(CoarseNowMs(), std::memory_order_relaxed);
  if (!flush_scheduled_) {
    flush_scheduled_ = true;
    thread_->ScheduleFlush(session_->id);
  }
  if (in_.size() > 0 && !input_queued_) {
    input_queued_ = true;
    thread_->QueueInput(session_->id);
  }
}

bool Connection::IdleWhileScriptBusy() const {
  return !closed_ && !input_queued_ && !waiting_ && !landed_ && !resumed_ && !prepared_ &&
         in_.size() == 0 && !parser_.InProgress() && !session_->close_after_reply &&
         !session_->blocked.load(std::memory_order_relaxed) &&
         !session_->postponed.load(std::memory_order_relaxed);
}

bool Connection::PreparedWhileScriptBusy() const {
  return prepared_ && !closed_ && !session_->close_after_reply &&
         !session_->blocked.load(std::memory_order_relaxed) &&
         !session_->postponed.load(std::memory_order_relaxed);
}

void Connection::RunPreparedWhileScriptBusy() {
  // Its batch was parsed in the turn the script began in; its turn will find nothing left.
  prepared_ = false;
  CommandRunner& runner = thread_->runner();
  for (size_t i = next_command_; i < batch_.size() && !session_->close_after_reply; ++i) {
    const ParsedCommand& cmd = batch_[i];
    runner.RunWhileBusy(*session_, writer_, {batch_args_.data() + cmd.first_arg, cmd.argc});
    in_.Consume(cmd.consumed);
    if (closed_ || OverHardLimit()) return;
  }
  if (!batch_parse_ok_ && !session_->close_after_reply) ReplyProtocolError();
  batch_.clear();
  batch_args_.clear();
  next_command_ = 0;
  batch_parse_ok_ = true;
  if (!flush_scheduled_) Flush();
}

void Connection::ServeWhileScriptBusy() {
  // All there is (the query buffer limit still holds).
  for (ReadResult read = ReadInput(); read != ReadResult::kNothing; read = ReadInput()) {
    if (read == ReadResult::kClosed) return;
  }
  CommandRunner& runner = thread_->runner();
  while (!closed_ && !session_->close_after_reply && in_.size() > 0) {
    parser_.set_authenticated(!runner.NeedsAuth(*session_));
    size_t consumed = 0;
    const resp::ParseStatus status = parser_.Parse(in_.view(), &consumed, &args_);
    if (status == resp::ParseStatus::kError) {
      ReplyProtocolError();
      break;
    }
    if (status == resp::ParseStatus::kNeedMore) {
      in_.Consume(consumed);  // empty commands skipped, as ParseBatch
      break;                  // the rest comes with a later read, run by the loop as usual
    }
    runner.RunWhileBusy(*session_, writer_, args_);
    in_.Consume(consumed);
    if (closed_ || OverHardLimit()) return;
  }
  if (!flush_scheduled_) Flush();
}

bool Connection::OverHardLimit() {
  if (out_.size() > kUnauthenticatedOutputLimit && thread_->runner().NeedsAuth(*session_)) {
    // A client that never authenticates must not make the server hold its replies.
    Bump(thread_->stats()[Stat::kOutputLimitDisconnections]);
    Close();
    return true;
  }
  const OutputBufferLimit limit = OutputLimit();
  if (limit.hard_bytes > 0 && static_cast<int64_t>(out_.size()) > limit.hard_bytes) {
    Bump(thread_->stats()[Stat::kOutputLimitDisconnections]);
    Close();
    return true;
  }
  return false;
}

bool Connection::CheckLimits(int64_t now_ms) {
  if (session_->kill_requested.load(std::memory_order_relaxed)) {  // missed its nudge while moving
    Close();
    return false;
  }
  const OutputBufferLimit limit = OutputLimit();
  if (limit.soft_bytes > 0 && static_cast<int64_t>(out_.size()) > limit.soft_bytes) {
    if (soft_limit_since_ms_ < 0) soft_limit_since_ms_ = now_ms;
    if (now_ms - soft_limit_since_ms_ >= limit.soft_seconds * 1000) {
      Bump(thread_->stats()[Stat::kOutputLimitDisconnections]);
      Close();
      return false;
    }
  } else {
    soft_limit_since_ms_ = -1;
  }
  // Idle means neither reading nor taking replies (writes count as interaction): a client that
  // stopped reading a large reply is idle however much output waits for it, as in Redis.
  int64_t timeout_s = thread_->config().timeout_s();
  if (timeout_s > 0 && !paused_ && thread_->runner().IdleTimeoutApplies(*session_) &&
      now_ms - session_->last_interaction_ms.load(std::memory_order_relaxed) > timeout_s * 1000) {
    Close();
    return false;
  }
  return true;
}

void Connection::NoteRunning(std::span<const std::string_view> args) {
  size_t bytes = 0;
  for (std::string_view a : args) bytes += a.size();
  session_->argv_bytes.store(bytes, std::memory_order_relaxed);
  session_->query_buffer_bytes.store(in_.size(), std::memory_order_relaxed);
  session_->query_buffer_capacity.store(in_.capacity(), std::memory_order_relaxed);
}

void Connection::Flush() {
  const size_t pending = out_.size();
  if (pending > 0) Bump(thread_->stats()[Stat::kWritesProcessed]);
  if (pending > session_->output_peak_bytes.load(std::memory_order_relaxed)) {
    session_->output_peak_bytes.store(pending, std::memory_order_relaxed);
  }
  while (!out_.empty()) {
    iovec iov[kMaxIov];
    int n = out_.FillIovec(iov, kMaxIov);
    ssize_t written = writev(fd_, iov, n);
    if (written < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) break;
      Close();
      return;
    }
    out_.Consume(static_cast<size_t>(written));
    Bump(thread_->stats()[Stat::kNetOutputBytes], static_cast<uint64_t>(written));
  }
  if (out_.size() < pending) {
    session_->last_interaction_ms.store(CoarseNowMs(), std::memory_order_relaxed);
  }
  session_->output_buffer_bytes.store(out_.size(), std::memory_order_relaxed);
  session_->output_buffer_chunks.store(static_cast<uint32_t>(out_.chunks()),
                                       std::memory_order_relaxed);
  if (out_.empty()) {
    if (write_armed_) {
      event_del(write_event_);
      write_armed_ = false;
    }
    if (session_->close_after_reply) {
      Close();
      return;
    }
    // A pipeline may have stopped mid-way for a protocol reason; input left is processed on the
    // next read.
  } else if (!write_armed_) {
    event_add(write_event_, nullptr);
    write_armed_ = true;
  }
}

}  // namespace ordis::server
