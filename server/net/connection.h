// One client connection: reads into a contiguous input buffer, parses every complete command in
// it (the whole batch a read delivered), hands them in order to the thread's CommandRunner, and
// writes the batch's replies with writev at the end of the loop turn.
//
// A batch whose cold values are being read ahead (CommandRunner::WaitForColdValues) waits: the
// connection stops reading, keeps the batch parsed, and runs it, then the rest of its input, once
// ColdValuesLanded says they are in (its later commands and replies stay in order). A command
// postponed by CLIENT PAUSE waits the same way, from that command on, until ResumePostponed.
//
// Thread safety: lives on one I/O thread at a time and is never touched from another; the I/O
// thread balancer may hand it to another thread between loop turns (Detach, then Attach there).
#pragma once

#include <event2/event.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "resp/out_buffer.h"
#include "resp/parser.h"
#include "resp/writer.h"
#include "server/net/input_buffer.h"
#include "server/net/session.h"

namespace ordis::server {

class IoThread;

class Connection {
 public:
  // session: the command layer's state for this client (CommandSink::NewSession).
  Connection(IoThread& thread, int fd, uint64_t id, std::unique_ptr<Session> session);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  void Start();
  // On the owning thread, when movable(): drops the event registrations; `to` owns the
  // connection from now on (it is freed through `to` even if never attached).
  void Detach(IoThread* to);
  // On the new owning thread: registers there and carries on.
  void Attach();
  // Whether the connection may be detached now: open, no input waiting for the loop turn's
  // processing and no replies waiting for the log commit.
  // A batch waiting for, or holding, values read ahead on this thread pins it too.
  // A blocked client pins it too (its wait's end is sent here), and so does a command postponed
  // by CLIENT PAUSE.
  bool movable() const {
    return !closed_ && !input_queued_ && !flush_scheduled_ && !waiting_ && !landed_ && !paused_ &&
           !resumed_ && !session_->blocked.load(std::memory_order_relaxed);
  }
  // The prepared batch waits for cold values (ProcessInput must not run).
  bool waiting() const { return waiting_; }
  // The cold values the waiting batch needs are in: it runs in the next loop turn.
  void ColdValuesLanded();
  bool closed() const { return closed_; }
  // The command CLIENT PAUSE postponed (Session::postponed) may run: it runs in the next loop
  // turn, then the rest of the input. A connection not waiting ignores it.
  void ResumePostponed();
  // Called by the thread after the loop turn's reads: pre-parses the first batch of commands the
  // read delivered and adds their keys to the runner's prefetch list, so the keys of every
  // connection that read in the turn are prefetched together; returns the list's size (without
  // the batch's keys if it waits for cold values). ProcessInput then runs that batch first.
  size_t PrepareBatch();
  // After PrepareBatch: runs every complete command in the input (the prepared batch first) and
  // schedules the replies' flush.
  void ProcessInput();
  // Closes now (the owning thread frees the object).
  void Close();

  Session& session() { return *session_; }
  const Session& session() const { return *session_; }
  size_t query_buffer_size() const { return in_.size(); }
  size_t output_size() const { return out_.size(); }
  // Called by cron: enforces the soft output limit and the idle timeout. Returns false if closed.
  bool CheckLimits(int64_t now_ms);
  // Nudged by a publisher (ConnectionHost::DeliverPushes): moves the session's waiting pub/sub
  // messages to the output and sends them, unless replies of this loop turn wait for the log's
  // commit (the messages then leave with them). A client past its output limit is closed.
  void DeliverPushes();
  // Nudged (ConnectionHost::Unblocked): the blocked client's wait ended; its reply goes out and
  // the rest of its input runs.
  void Unblocked();
  // While a script of this thread runs past busy-reply-threshold (IoThread::ServeWhileScriptBusy):
  // whether the connection is idle (nothing buffered or parsed, not waiting in any way, not the
  // one running the script, whose command is still in its input), and, when it is and its socket
  // is readable, reading and running its commands through CommandRunner::RunWhileBusy. Their
  // replies go out at once (nothing of theirs is logged), or with the turn's if some wait for it.
  bool IdleWhileScriptBusy() const;
  void ServeWhileScriptBusy();
  // A batch parsed in the turn the script began in and not run yet (its input is read, so no
  // poll): its commands run through RunWhileBusy too, and the turn finds it done.
  bool PreparedWhileScriptBusy() const;
  void RunPreparedWhileScriptBusy();
  // Called by the thread at the end of a loop turn, after the append-only log was committed:
  // sends the replies ProcessInput produced.
  void FlushScheduled();

 private:
  static void OnReadable(evutil_socket_t fd, short what, void* arg);
  static void OnWritable(evutil_socket_t fd, short what, void* arg);
  void HandleRead();
  // One read into the input (sized for a large bulk argument in progress), under the query
  // buffer limit: kClosed when the peer left, the read failed or the limit was passed (the
  // connection is closed), kNothing when there was nothing to read.
  enum class ReadResult { kRead, kNothing, kClosed };
  ReadResult ReadInput();
  // A protocol error ends the connection: Redis's error, then close once replies are out.
  void ReplyProtocolError();
  // Parses up to kMaxBatch whole commands from the input into batch_. False on a protocol error
  // (the commands parsed before it are in batch_).
  bool ParseBatch();
  // Adds the batch's keys to the runner's prefetch list.
  void CollectBatchKeys();
  // The batch waits for its cold values: no reading until they landed and it ran (HandleRead
  // defers what arrives meanwhile).
  void Park();
  // Turns the read event back on if HandleRead took it off and nothing holds reads any more.
  void ResumeReads();
  // batch_[next_command_] was postponed (CLIENT PAUSE): no reading until ResumePostponed, which
  // the pause's end or its deadline (a timer) calls.
  void Postpone();
  static void OnPauseTimer(evutil_socket_t fd, short what, void* arg);
  // The end of ProcessInput: the batch's lock released, the replies' flush scheduled.
  void FinishProcessing();
  // A command blocked the client (Session::blocked): the rest of the batch is dropped, to be
  // parsed again from the input once the wait ends (reads go on meanwhile, so a client that
  // leaves is noticed); the wait's deadline is armed.
  void Block();
  // The wait ended (its reply written): replies go out, the input left runs.
  void EndBlock();
  static void OnBlockTimeout(evutil_socket_t fd, short what, void* arg);
  // Writes as much pending output as the socket takes; arms the write event for the rest.
  void Flush();
  // Before a command runs: what CLIENT LIST reports of it (its argument bytes, the input left).
  void NoteRunning(std::span<const std::string_view> args);
  // Replies wait for the end of the loop turn (IoThread::ScheduleFlush): every connection served
  // in the turn shares one commit of the log, and no reply leaves before its write is logged.
  bool flush_scheduled_ = false;
  bool OverHardLimit();
  // The client-output-buffer-limit class the client is in: pubsub while subscribed, else normal.
  OutputBufferLimit OutputLimit() const;

  IoThread* thread_;  // the owning thread
  int fd_;
  event* read_event_ = nullptr;
  event* write_event_ = nullptr;
  event* block_timer_ = nullptr;  // a blocked client's deadline
  bool write_armed_ = false;
  bool closed_ = false;

  InputBuffer in_;
  resp::Parser parser_;
  std::vector<std::string_view> args_;

  // The commands of the current batch: arguments are views into in_ (or, for an inline command,
  // which always ends a batch, into the parser).
  struct ParsedCommand {
    size_t first_arg;  // index into batch_args_
    size_t argc;
    size_t consumed;  // input bytes, including skipped empty commands after it
  };
  static constexpr size_t kMaxBatch = 32;
  std::vector<ParsedCommand> batch_;
  std::vector<std::string_view> batch_args_;
  bool input_queued_ = false;   // waiting for the loop turn's PrepareBatch/ProcessInput
  bool batch_parse_ok_ = true;  // what PrepareBatch's ParseBatch returned
  bool waiting_ = false;        // batch_ waits for cold values read ahead
  bool landed_ = false;         // they landed: batch_ runs next, as parsed
  // Input arrived while batch_ waited or was about to run: the read event is off until it has.
  bool reads_deferred_ = false;
  bool prepared_ = false;  // PrepareBatch parsed batch_, ProcessInput has not begun it
  // CLIENT PAUSE: batch_ from next_command_ waits (paused_), or runs next, as parsed (resumed_).
  bool paused_ = false;
  bool resumed_ = false;
  size_t next_command_ = 0;  // the first command of batch_ not run yet
  event* pause_timer_ = nullptr;

  resp::OutBuffer out_;
  resp::Writer writer_;
  int64_t soft_limit_since_ms_ = -1;

  std::unique_ptr<Session> session_;
};

}  // namespace ordis::server
