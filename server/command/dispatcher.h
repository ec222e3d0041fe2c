// Runs commands: looks the name up, checks arity, auth and MULTI state against the command table,
// takes the keyspace lock the command's flags ask for, calls the handler, stages what it changed
// in the append-only log, records statistics. One per I/O thread (the CommandRunner the I/O layer
// calls), plus one for replaying the log at start-up.
//
// Thread safety: none; used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "offload/prefetcher.h"
#include "offload/request_parser.h"
#include "resp/out_buffer.h"
#include "server/acl/log.h"
#include "server/acl/user.h"
#include "server/command/client_state.h"
#include "server/command/command.h"
#include "server/command/command_table.h"
#include "server/command/services.h"
#include "server/net/command_sink.h"
#include "server/scripting/lua_engine.h"
#include "server/scripting/script.h"
#include "server/stats/stats.h"

namespace ordis::server {

class Dispatcher : public CommandRunner {
 public:
  // kOriginal: commands are looked up by their own names, not the ones rename-command gave them
  // (replaying the append-only log, which records those).
  enum class Names { kConfigured, kOriginal };
  // With a cold tier, a dispatcher of configured names (an I/O thread's) prefetches cold values.
  Dispatcher(const Services& services, ThreadStats& stats, Names names = Names::kConfigured);
  ~Dispatcher() override;

  // Releases the lock held for the batch, deletes the expired keys readers reported and promotes
  // the cold values they read.
  void EndBatch() override;
  // Returns once every log record staged by the commands run so far is written (durable under
  // appendfsync always): replies to them may go out. Exits the process if the log fails.
  void CommitLog();

  // EXEC: runs the queued commands of client under the exclusive lock, replying with an array.
  void ExecQueued(ClientState& client, resp::Writer& out);

  // A script's run (EVAL, EVALSHA, FCALL and their _RO forms).
  struct ScriptRun {
    std::string_view name;  // what its errors name: the SHA-1 (or the function)
    scripting::ScriptFlags flags;
    bool read_only = false;  // an _RO command or a no-writes script: writes are refused
    bool function = false;   // FCALL: name is a function of the loaded libraries
    std::span<const std::string_view> command = {};  // the caller's (FUNCTION STATS: a function's)
  };
  // This thread's Lua engine, current with the script cache (reset by a SCRIPT FLUSH since) and
  // the function libraries.
  scripting::LuaEngine& lua();
  // Runs the script compiled in lua() as run.name for client (lua() is not brought up to date
  // again first: what the command compiled or looked up is what runs), under the exclusive lock its
  // command's flags took: redis.call runs commands as Redis runs a script's (refusing noscript
  // ones, writes of read-only scripts, denyoom ones over maxmemory, what client's user may not
  // run), on a client of its own that starts in client's db, and the log records what they
  // changed as one record. Replies with the script's result.
  void RunScript(ClientState& client, const ScriptRun& run, std::span<const std::string_view> keys,
                 std::span<const std::string_view> argv, resp::Writer& out);

  // CommandRunner: the I/O layer's view. Sessions are the ClientStates the CommandSink made (or,
  // replaying the log, a ClientState of its own).
  bool NeedsAuth(const Session& session) const override;
  bool IdleTimeoutApplies(const Session& session) const override;
  void CollectKeys(const Session& session, std::span<const std::string_view> args) override;
  void PrefetchCollected() override;
  size_t Collected() const override { return prefetch_.size(); }
  bool WaitForColdValues(const Session& session, bool landed) override;
  void SubmitColdReads() override;
  int cold_reads_fd() const override;
  void ReapColdReads(absl::FunctionRef<void(uint64_t session_id)> landed) override;
  // One command from a client, replying through out (unless the client turned replies off).
  // Consecutive commands of one input batch that need the same keyspace lock run under one
  // acquisition; EndBatch() must follow the batch.
  void Run(Session& session, resp::Writer& out, std::span<const std::string_view> args) override;
  bool ResumeBlocked(Session& session, resp::Writer& out, bool timed_out) override;
  void SetBusyPoll(std::function<void()> poll) override { busy_poll_ = std::move(poll); }
  void RunWhileBusy(Session& session, resp::Writer& out,
                    std::span<const std::string_view> args) override;
  // Sends the BCAST invalidations of the turn, commits the log, then nudges the clients the turn's
  // writes served (BlockedClients).
  void EndTurn() override;

 private:
  enum class Locking { kByFlags, kHeld };
  enum class LockMode { kNone, kShared, kExclusive };
  // Run without the CLIENT REPLY handling.
  void DispatchCommand(ClientState& client, resp::Writer& out,
                       std::span<const std::string_view> args);
  // Takes the lock mode asks for (releasing what is held). False, holding nothing, when a script
  // has run past busy-reply-threshold with the lock: the caller answers BUSY or gives up.
  bool Hold(LockMode mode);
  bool Acquire(bool exclusive);
  bool ScriptBusy() const;
  // BUSY's text: it names SCRIPT KILL or FUNCTION KILL by what runs.
  std::string_view BusyError() const;
  // Exclusive lock held: what readers reported is applied (expired keys deleted, cold values
  // read promoted).
  void ApplyReported();
  // The spec of a command name (nullptr: unknown). A batch's commands are each looked up twice (at
  // its pre-parse and when run) and pipelines repeat a name: the last few names found, byte for
  // byte, answer without the table's case-folding hash (which was 8% of a pipelined PFADD's CPU,
  // and 1.7% of a pipelined EVALSHA's whose script calls three commands in turn).
  const CommandSpec* Lookup(std::string_view name) const;
  struct SeenName {
    char name[16];
    size_t size = 0;  // 0: none
    const CommandSpec* spec = nullptr;
  };
  mutable SeenName seen_names_[4];
  mutable size_t next_seen_name_ = 0;  // the slot the next name found replaces
  // The ACL check's fast path, inline on every command: no user (the log's replay), or a user
  // whose selector with allkeys and allchannels has the command. Measured with callgrind (GET and
  // SET, -P 16, a user with ~* &* +@all): 0.6% of the server's instructions; calling the
  // out-of-line AclDenial for every command cost 3.1%.
  bool AclAllows(ClientState& client, const CommandSpec& spec) {
    if (!client.user) return true;
    const acl::User* user = client.user.Current();
    return user != nullptr && user->Unrestricted(spec.id);
  }
  // The rest of the check, when AclAllows said no: "" when client's user may run spec with args
  // after all (its keys match); else the NOPERM error to reply (logged in ACL LOG and counted), or
  // kUserDeleted (no reply: the client is closing). At EXEC (at_exec) the error is Redis's "ACLs
  // rules changed ..." one.
  std::string_view AclDenial(const CommandSpec& spec, ClientState& client,
                             std::span<const std::string_view> args, acl::LogContext context,
                             bool at_exec = false);
  static constexpr std::string_view kUserDeleted = "-";
  // Counts a command that ran (commandstats, errors, latency histogram and monitor) and logs it
  // if slow (SLOWLOG). errors_before: out's error count before the command; the errors since that
  // nothing counted yet (EXEC's commands count their own) are the command's.
  void CountCall(const CommandSpec& spec, const ClientState& client,
                 std::span<const std::string_view> args, int64_t start_us, resp::Writer& out,
                 size_t errors_before);
  // Counts n error replies, of the code of the last error out wrote (INFO errorstats).
  void CountErrors(resp::Writer& out, size_t n);
  // block: where a blocking command may ask to wait (nullptr: it may not; it replies as its
  // timeout would). A command that blocked is not counted (its run that serves it is).
  void RunSpec(const CommandSpec& spec, ClientState& client, resp::Writer& out,
               std::span<const std::string_view> args, int64_t start_us, Locking locking,
               BlockRequest* block = nullptr);
  // Blocking commands (command/blocking.h). client's command asked to wait (block_request_).
  void BlockClient(ClientState& client, std::span<const std::string_view> args);
  // Exclusive lock held, after a command: runs the commands of the clients waiting on the keys
  // writes made ready, in the order they blocked, as long as the keys can serve them.
  void ServeReadyKeys();
  // The spec to run for args (a subcommand's for containers), or nullptr after replying with
  // the error (unknown command or subcommand, wrong arity).
  const CommandSpec* Resolve(ClientState& client, resp::Writer& out,
                             std::span<const std::string_view> args);
  void Reject(const CommandSpec* spec, ClientState& client, resp::Writer& out,
              std::string_view error);
  // The checks of who may run spec, as Redis's processCommand makes them first: authentication,
  // then the ACL. False after replying (or, for a deleted user, closing).
  bool Admit(const CommandSpec& spec, ClientState& client, resp::Writer& out,
             std::span<const std::string_view> args);
  // Redis's reject_cmd_on_oom: spec may grow memory (denyoom), or queues in MULTI, or is an EXEC
  // whose queue holds a denyoom command.
  bool MayGrowMemory(const CommandSpec& spec, const ClientState& client) const;

  class ScriptCaller;
  // From the running script's hook: past busy-reply-threshold, lets the I/O layer serve this
  // thread's other clients (busy_poll_), every kBusyPollMs at most.
  void ServeWhileBusy();
  static constexpr int64_t kBusyPollMs = 5;
  std::function<void()> busy_poll_;
  int64_t last_busy_poll_ms_ = 0;
  bool serving_while_busy_ = false;
  // One redis.call of the running script.
  void CallFromScript(const ScriptRun& run, resp::Writer& out,
                      std::span<const std::string_view> args);
  // The command (or subcommand) a script's args name, as redis.call finds it; nullptr for none.
  const CommandSpec* ScriptCommand(std::span<const std::string_view> args) const;
  // redis.acl_check_cmd: whether the running script's user may run args; nullopt for no command.
  std::optional<bool> ScriptUserMayRun(std::span<const std::string_view> args);

  // When a command starts: the end of the one before it while their batch runs (CountCall reads
  // the clock, EndBatch forgets it), else the clock. One clock read a command instead of two: a
  // read (36 ns here) was 4% of the server's CPU in a pipelined PFADD.
  int64_t CommandStartUs() const { return batch_clock_us_ != 0 ? batch_clock_us_ : NowUs(); }
  int64_t batch_clock_us_ = 0;
  int64_t script_now_ms_ = -1;  // while a script runs: its start, its commands' "now"
  bool script_logged_ = true;   // whether the script's commands go to the log (redis.set_repl)

  const CommandTable& commands_;
  const Services& services_;
  ThreadStats& stats_;
  const Names names_;
  LockMode held_ = LockMode::kNone;
  std::vector<ExpiredKey> expired_;            // reported by readers during the batch
  std::vector<std::string_view> argv_;         // scratch for EXEC
  std::vector<acl::KeyRef> acl_keys_;          // scratch for AclDenial
  std::vector<acl::ChannelRef> acl_channels_;  // scratch for AclDenial
  std::string denial_;                         // AclDenial's error when it names the command
  resp::OutBuffer discarded_;                  // replies CLIENT REPLY OFF or SKIP drop
  std::vector<std::string> propagate_;  // a command's own log record (CommandContext::propagate)
  // Enough to overlap a turn's lookups; more would evict the first before they are used (each
  // lookup touches about ten cache lines). An MSET of 100k keys prefetches its first 256.
  static constexpr size_t kMaxPrefetch = 256;
  std::vector<Keyspace::KeyRef> prefetch_;  // CollectKeys' list, at most kMaxPrefetch
  // The session whose batch CollectKeys is going through, the database its next command runs in
  // (a SELECT in the batch changes it before the commands after it run), and where its keys
  // begin in prefetch_ (a batch that waits for cold values takes them out: it runs later).
  const Session* collect_session_ = nullptr;
  int collect_db_ = 0;
  size_t collect_begin_ = 0;
  // The cold tier's prefetch (nullptr without a tier): the uses of keys CollectKeys noted for
  // WaitForColdValues, and this thread's reads.
  void NoteKeyUses(const CommandSpec& spec, const ClientState& client, int db,
                   std::span<const std::string_view> args);
  std::unique_ptr<offload::Prefetcher> prefetcher_;
  bool prefetcher_attached_ = false;  // to the tier, from this dispatcher's thread
  // WaitForColdValues took the shared lock, held until SubmitColdReads: the reads' segment
  // files stay open until the kernel holds them.
  bool locked_for_reads_ = false;
  offload::RequestParser request_parser_;
  std::vector<Keyspace::KeyRef> needed_;       // WaitForColdValues' scratch
  std::unique_ptr<scripting::LuaEngine> lua_;  // made by the thread's first script
  int64_t lua_bytes_reported_ = 0;             // to the script cache, for INFO
  void ReportLuaBytes();
  ClientState script_client_;             // what a script's commands run as
  ClientState* script_caller_ = nullptr;  // whose script runs (tracking remembers its reads)
  std::vector<size_t> key_positions_;     // scratch for tracking
  // After spec ran for client with args: MONITOR's line (unless shown before it ran) and the keys
  // a tracking client read.
  void AfterCommand(const CommandSpec& spec, ClientState& client,
                    std::span<const std::string_view> args);
  // MONITOR's line for a command client ran with args.
  void FeedMonitors(ClientState& client, std::span<const std::string_view> args);
  // CLIENT CACHING's flag ends with a command that is not CLIENT, outside a transaction.
  void ClearCaching(ClientState& client, std::span<const std::string_view> args);
  // CLIENT PAUSE WRITE: spec run with args writes or may replicate (EXEC: a queued command of
  // client's does).
  bool MayReplicate(const CommandSpec& spec, const ClientState& client,
                    std::span<const std::string_view> args) const;
  // Whether a command client queued in MULTI has one of flags (by EffectiveFlags).
  bool QueuedHasFlag(const ClientState& client, uint32_t flags) const;
  // spec's flags for this run of it: a command that runs a script whose shebang declares its
  // flags takes write, denyoom and stale from them and is no may-replicate (Redis's
  // scriptFlagsToCmdFlags), so a no-writes script runs during CLIENT PAUSE WRITE; a script
  // without a shebang (or not found) keeps the command's own flags.
  uint32_t EffectiveFlags(const CommandSpec& spec, std::span<const std::string_view> args) const;
  BlockRequest block_request_;  // the running command's, when it may block
  // A blocked client's command run again for it (ServeReadyKeys): as whom, into what, and whether
  // it asked to wait again.
  ClientState serve_client_;
  resp::OutBuffer serve_out_;
  resp::Writer serve_writer_{&serve_out_};
  BlockRequest serve_request_;
  std::vector<std::string_view> serve_argv_;
  std::vector<std::pair<int, std::string>> ready_keys_;
  std::vector<BlockedClients::Wake> to_wake_;  // served since the last commit
  bool in_exec_ = false;                       // EXEC's group of the log is open
  uint64_t log_seq_ = 0;                       // the last log record staged, committed by CommitLog
  CommandLog* log_ = nullptr;                  // the log it went to (logs outlive appendonly no)
};

}  // namespace ordis::server
