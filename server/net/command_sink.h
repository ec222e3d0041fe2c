// What the I/O layer needs from the layer that runs commands (after Dragonfly's ServiceInterface):
// the I/O layer reads, parses and writes; the command layer implements these two interfaces and
// never sees a socket.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "resp/writer.h"
#include "server/net/connection_host.h"
#include "server/net/session.h"
#include "server/stats/stats.h"

namespace ordis::server {

// One per I/O thread, used by that thread alone: runs its connections' commands.
class CommandRunner {
 public:
  virtual ~CommandRunner() = default;

  // Whether the client must authenticate first: its input is then parsed one command at a time,
  // under the limits for unauthenticated clients.
  virtual bool NeedsAuth(const Session& session) const = 0;
  // Whether an idle client may be closed by the `timeout` parameter now.
  virtual bool IdleTimeoutApplies(const Session& session) const = 0;

  // Adds the keys of a command about to run to the turn's prefetch list (which has a bound of its
  // own).
  virtual void CollectKeys(const Session& session, std::span<const std::string_view> args) = 0;
  // Prefetches the listed keys (a hint) and empties the list.
  virtual void PrefetchCollected() = 0;
  // The list's size (a batch that waits for cold values takes its keys back out of it).
  virtual size_t Collected() const = 0;

  // The cold tier's prefetch: once the keys of one connection's batch are collected, starts
  // reading the cold values the batch needs and returns true when it must wait for them
  // (ReapColdReads names the session once they landed); false when it may run now. `landed`: the
  // batch waited already and its values are in this thread's Loading Zone; nothing is read.
  virtual bool WaitForColdValues(const Session& session, bool landed) = 0;
  // Submits the reads the WaitForColdValues calls since the last submission started: one system
  // call for a turn's connections. Must follow them before anything else runs on the thread.
  virtual void SubmitColdReads() = 0;
  // Readable when cold reads landed; -1 without a tier.
  virtual int cold_reads_fd() const = 0;
  // Calls landed(session id) for each session whose batch's reads all landed.
  virtual void ReapColdReads(absl::FunctionRef<void(uint64_t session_id)> landed) = 0;

  // Runs one command, replying through out. The commands of one batch run back to back;
  // EndBatch must follow the batch.
  virtual void Run(Session& session, resp::Writer& out, std::span<const std::string_view> args) = 0;
  virtual void EndBatch() = 0;
  // A command of session blocked it (Session::blocked). When ConnectionHost::Unblocked names it,
  // or at its deadline (timed_out), this writes the command's reply to out and returns true,
  // unblocking it; false while the wait goes on (a write is serving it that moment: its nudge
  // follows).
  virtual bool ResumeBlocked(Session& session, resp::Writer& out, bool timed_out) = 0;
  // The end of a loop turn, before any reply of the turn goes out: makes what the turn's
  // commands logged durable (one commit of the append-only log for every connection served).
  virtual void EndTurn() = 0;

  // A script that runs past busy-reply-threshold on this thread keeps the thread inside one
  // command: the runner calls poll now and then meanwhile (SetBusyPoll, before any command), and
  // the I/O layer runs its other clients' commands through RunWhileBusy, as Redis serves clients
  // between a busy script's instructions.
  virtual void SetBusyPoll(std::function<void()> poll) = 0;
  // One command while this thread's script is busy: the allow-busy ones (SCRIPT KILL, FUNCTION
  // KILL, SHUTDOWN NOSAVE, AUTH, MULTI ...) run without the lock the script holds; the rest answer
  // BUSY.
  virtual void RunWhileBusy(Session& session, resp::Writer& out,
                            std::span<const std::string_view> args) = 0;
};

// One per server; thread safe.
class CommandSink {
 public:
  virtual ~CommandSink() = default;

  // On the connection's thread, when it is accepted: the client's session (the I/O layer fills in
  // its facts and then calls SessionStarted).
  virtual std::unique_ptr<Session> NewSession() = 0;
  // Once the I/O layer filled in the session's facts: "" to serve the client, or the whole reply
  // (RESP, CRLF included) to send before closing it unserved (protected mode's -DENIED).
  virtual std::string_view Refusal(const Session& session) = 0;
  virtual void SessionStarted(Session& session, ConnectionHost* host) = 0;
  // The connection moved to another I/O thread.
  virtual void SessionMoved(Session& session, ConnectionHost* host) = 0;
  // As the connection closes (the session is freed afterwards): on its thread, or, for a
  // connection caught between threads at shutdown, on the thread that frees it.
  virtual void SessionEnded(Session& session) = 0;

  // A runner for one I/O thread, counting into that thread's statistics.
  virtual std::unique_ptr<CommandRunner> NewRunner(ThreadStats& stats) = 0;
  // Thread 0's cron, ten times a second: persistence (active expiry has its own thread).
  virtual void Cron(int64_t now_ms) = 0;
};

}  // namespace ordis::server
