// Runs commands: looks the name up, checks arity, auth and MULTI state against the command table,
// takes the keyspace lock the command's flags ask for, calls the handler, records statistics.
#pragma once

#include <span>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "resp/out_buffer.h"
#include "server/command/command.h"
#include "server/stats/stats.h"

namespace ordis::server {

class AofLog;
class Server;

class Dispatcher {
 public:
  Dispatcher(Server& server, ThreadStats& stats) : server_(server), stats_(stats) {}

  // One command from a connection, replying through out (unless the client turned replies off).
  // Consecutive commands of one input batch that need the same keyspace lock run under one
  // acquisition; EndBatch() must follow the batch.
  void Dispatch(ClientState& client, resp::Writer& out, std::span<const std::string_view> args);
  // Releases the lock held for the batch and deletes the expired keys readers reported.
  void EndBatch();
  // Returns once every log record staged by the commands run so far is written (durable under
  // appendfsync always): replies to them may go out. Exits the process if the log fails.
  void CommitLog();

  // EXEC: runs the queued commands of client under the exclusive lock, replying with an array.
  void ExecQueued(ClientState& client, resp::Writer& out);

  ThreadStats& stats() { return stats_; }

 private:
  enum class Locking { kByFlags, kHeld };
  // Dispatch without the CLIENT REPLY handling.
  void DispatchCommand(ClientState& client, resp::Writer& out,
                       std::span<const std::string_view> args);
  enum class LockMode { kNone, kShared, kExclusive };
  void Hold(LockMode mode);
  void Run(const CommandSpec& spec, ClientState& client, resp::Writer& out,
           std::span<const std::string_view> args, int64_t start_us, Locking locking);
  // The spec to run for args (a subcommand's for containers), or nullptr after replying with
  // the error (unknown command or subcommand, wrong arity).
  const CommandSpec* Resolve(ClientState& client, resp::Writer& out,
                             std::span<const std::string_view> args);
  void Reject(const CommandSpec* spec, ClientState& client, resp::Writer& out,
              std::string_view error);

  Server& server_;
  ThreadStats& stats_;
  LockMode held_ = LockMode::kNone;
  std::vector<ExpiredKey> expired_;     // reported by readers during the batch
  std::vector<std::string_view> argv_;  // scratch for EXEC
  resp::OutBuffer discarded_;           // replies CLIENT REPLY OFF or SKIP drop
  std::vector<std::string> propagate_;  // a command's own log record (CommandContext::propagate)
  uint64_t aof_seq_ = 0;                // the last log record staged, committed by CommitLog
  AofLog* aof_log_ = nullptr;           // the log it went to (logs outlive appendonly no)
};

}  // namespace ordis::server
