#include "server/command/dispatcher.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "base/clock.h"
#include "base/logging.h"
#include "base/number.h"
#include "server/command/acl_bridge.h"
#include "server/command/client_state.h"
#include "server/command/errors.h"
#include "server/command/key_specs.h"
#include "server/command/transaction.h"

namespace ordis::server {
namespace {

bool ArityOk(const CommandSpec& spec, size_t argc) {
  return spec.arity > 0 ? argc == static_cast<size_t>(spec.arity)
                        : argc >= static_cast<size_t>(-spec.arity);
}

// Reads in flight per I/O thread, at most: the disk answers more the more it is given (105k
// random 4 KiB reads/s at depth 256, 56k at 64), and 50 clients of 16 pipelined GETs ask for 400
// a thread (at 256, a quarter of the cold GETs were refused and read synchronously). Values wait
// in a zone of 4096 entries, of which a value not asked for soon takes at most a quarter's time
// (LoadingZone). What reads ahead hold, in flight and waiting, is bounded by bytes apart.
constexpr unsigned kColdReadDepth = 1024;
constexpr uint32_t kLoadingZoneEntries = 4096;
constexpr uint64_t kMaxReadAheadBytes = 16u << 20;

// What a command does with a key's value, from its key spec's flags: a read-write (XADD, HSET,
// APPEND: RW, with or without ACCESS) needs the old value as much as a read does; an overwrite or
// removal does not; a look at existence, type or size (RO without ACCESS) needs the header only.
offload::KeyOp KeyOpOf(uint16_t flags) {
  if (flags & keyspec::kRW) return offload::KeyOp::kReadWrite;
  if (flags & (keyspec::kOW | keyspec::kRM)) return offload::KeyOp::kOverwrite;
  return (flags & keyspec::kAccess) ? offload::KeyOp::kRead : offload::KeyOp::kMetadata;
}

}  // namespace

Dispatcher::Dispatcher(const Services& services, ThreadStats& stats, Names names)
    : commands_(services.commands), services_(services), stats_(stats), names_(names) {
  if (services.keyspace.tier() == nullptr || names != Names::kConfigured) return;
  const persistence::Status status =
      offload::Prefetcher::Create(kColdReadDepth, kLoadingZoneEntries, &prefetcher_);
  // Without one, cold values are read synchronously: slower, still right.
  if (!status.ok()) log::Warning("Cold tier: no prefetching on a thread: {}", status.message());
}

Dispatcher::~Dispatcher() {
  services_.scripts.AddEngineBytes(-lua_bytes_reported_);
  if (prefetcher_attached_) services_.keyspace.tier()->DetachPrefetcher(prefetcher_.get());
}

Keyspace& CommandContext::keyspace() const { return services.keyspace; }
Config& CommandContext::config() const { return services.config; }
int CommandContext::db() const { return client.db.load(std::memory_order_relaxed); }

bool Dispatcher::NeedsAuth(const Session& session) const {
  return services_.NeedsAuth(static_cast<const ClientState&>(session));
}

bool Dispatcher::IdleTimeoutApplies(const Session& session) const {
  // A blocked client has a timeout of its own (Redis exempts it from `timeout` too).
  return !static_cast<const ClientState&>(session).in_multi &&
         !session.blocked.load(std::memory_order_relaxed);
}

std::string_view Dispatcher::AclDenial(const CommandSpec& spec, ClientState& client,
                                       std::span<const std::string_view> args,
                                       acl::LogContext context, bool at_exec) {
  const acl::User* user = client.user.Current();  // AclAllows: there is a user
  if (user == nullptr) {
    // Deleted (ACL DELUSER, or replaced by ACL LOAD): Redis disconnects its clients.
    client.close_after_reply = true;
    return kUserDeleted;
  }
  const acl::Verdict verdict = CheckCommand(*user, spec, args, &acl_keys_, &acl_channels_);
  if (verdict.ok()) return "";
  std::string_view object;
  acl::DenyReason reason;
  std::string_view error;
  switch (verdict.kind) {
    case acl::Verdict::kDeniedKey:
      reason = acl::DenyReason::kKey;
      object = acl_keys_[verdict.index].name;
      error = at_exec ? errors::kNoPermKeyAtExec : errors::kNoPermKey;
      Bump(stats_[Stat::kAclDeniedKey]);
      break;
    case acl::Verdict::kDeniedChannel:
      reason = acl::DenyReason::kChannel;
      object = acl_channels_[verdict.index].name;
      error = at_exec ? errors::kNoPermChannelAtExec : errors::kNoPermChannel;
      Bump(stats_[Stat::kAclDeniedChannel]);
      break;
    default:
      reason = acl::DenyReason::kCommand;
      object = spec.name;
      if (at_exec) {
        error = errors::kNoPermCommandAtExec;
      } else {
        denial_ = errors::NoPermCommand(spec.name);
        error = denial_;
      }
      Bump(stats_[Stat::kAclDeniedCmd]);
      break;
  }
  const int64_t now_ms = NowMs();
  services_.acl_log.Add(reason, context, object, user->name(),
                        services_.clients.Describe(commands_, client, now_ms), now_ms);
  return error;
}

const CommandSpec* Dispatcher::Lookup(std::string_view name) const {
  for (const SeenName& seen : seen_names_) {
    if (name.size() == seen.size && std::memcmp(name.data(), seen.name, name.size()) == 0) {
      return seen.spec;
    }
  }
  const CommandSpec* spec =
      names_ == Names::kOriginal ? commands_.FindOriginal(name) : commands_.Find(name);
  if (spec != nullptr && !name.empty() && name.size() <= sizeof seen_names_[0].name) {
    SeenName& seen = seen_names_[next_seen_name_];
    next_seen_name_ = (next_seen_name_ + 1) % std::size(seen_names_);
    std::memcpy(seen.name, name.data(), name.size());
    seen.size = name.size();
    seen.spec = spec;
  }
  return spec;
}

void Dispatcher::CollectKeys(const Session& session, std::span<const std::string_view> args) {
  const CommandSpec* spec = Lookup(args[0]);
  if (spec == nullptr) return;
  // The database the command will run in: the session's, unless a SELECT earlier in its batch
  // changes it first.
  if (&session != collect_session_) {
    collect_session_ = &session;
    collect_begin_ = prefetch_.size();
    collect_db_ = static_cast<const ClientState&>(session).db.load(std::memory_order_relaxed);
  }
  if (spec->name == "select" && args.size() == 2) {
    int64_t selected;
    if (ParseInt64(args[1], &selected) && selected >= 0 &&
        selected < services_.keyspace.num_dbs()) {
      collect_db_ = static_cast<int>(selected);
    }
    return;
  }
  const int db = collect_db_;
  const bool write = (spec->flags & cmd::kWrite) != 0;
  ForEachKeyPosition(*spec, args, [&](size_t i) {
    if (prefetch_.size() >= kMaxPrefetch) return false;
    prefetch_.push_back({db, args[i], write});
    return true;
  });
  if (prefetcher_ != nullptr) {
    NoteKeyUses(*spec, static_cast<const ClientState&>(session), db, args);
  }
}

void Dispatcher::PrefetchCollected() {
  if (prefetch_.size() >= 2) services_.keyspace.Prefetch(prefetch_);
  prefetch_.clear();
  collect_session_ = nullptr;
}

void Dispatcher::NoteKeyUses(const CommandSpec& spec, const ClientState& client, int db,
                             std::span<const std::string_view> args) {
  auto note = [&](const CommandSpec& command, std::span<const std::string_view> command_args) {
    const bool header_only = (command.flags & cmd::kHeaderOnly) != 0;
    ForEachKeyWithFlags(command, command_args, [&](size_t i, uint16_t flags) {
      request_parser_.Add(db, command_args[i],
                          header_only ? offload::KeyOp::kMetadata : KeyOpOf(flags));
    });
  };
  if (!(spec.flags & cmd::kTransactionControl)) {
    note(spec, args);
    return;
  }
  if (spec.name == "multi") request_parser_.BeginTransaction();
  if (spec.name == "discard") request_parser_.DiscardTransaction();
  if (spec.name != "exec") return;
  // A transaction begun in an earlier batch: its queued commands run now.
  if (client.in_multi) {
    for (const std::vector<std::string>& queued : client.queued) {
      argv_.assign(queued.begin(), queued.end());
      if (const CommandSpec* q = Lookup(argv_[0]); q != nullptr) note(*q, argv_);
    }
  }
  request_parser_.ExecTransaction();
}

bool Dispatcher::WaitForColdValues(const Session& session, bool landed) {
  const size_t batch_begin = &session == collect_session_ ? collect_begin_ : prefetch_.size();
  collect_session_ = nullptr;  // its batch is collected
  if (request_parser_.empty()) return false;
  if (landed || !services_.config.tier_prefetch()) {
    request_parser_.Clear();
    return false;
  }
  needed_.clear();
  for (const offload::KeyUse& use : request_parser_.Needed()) needed_.push_back({use.db, use.key});
  request_parser_.Clear();
  if (needed_.empty()) return false;
  if (!prefetcher_attached_) {
    // On the thread that runs this dispatcher's commands: they take values from its zone.
    services_.keyspace.tier()->AttachPrefetcher(prefetcher_.get());
    prefetcher_attached_ = true;
  }
  // Values read ahead are heap maxmemory counts: a sixteenth of it at most, per thread.
  const int64_t maxmemory = services_.config.maxmemory();
  prefetcher_->set_max_bytes(
      maxmemory > 0 ? std::clamp<uint64_t>(maxmemory / 16, 64u << 10, kMaxReadAheadBytes)
                    : kMaxReadAheadBytes);
  // Between batches the lock may still be held (the previous batch's): used as it is. Else it
  // is taken here and kept until SubmitColdReads, for every connection of the turn's group.
  if (held_ == LockMode::kNone) {
    if (!Hold(LockMode::kShared)) return false;  // a busy script: the batch's commands get BUSY
    locked_for_reads_ = true;
  }
  const size_t reads = services_.keyspace.ReadAhead(needed_, session.id, *prefetcher_);
  if (reads == 0) return false;
  Bump(stats_[Stat::kTierBatchesWaited]);
  // Its keys are looked up again when it runs, after the reads: not with this turn's batch.
  prefetch_.resize(std::min(prefetch_.size(), batch_begin));
  return true;
}

void Dispatcher::SubmitColdReads() {
  // Reads that fail to submit stay queued for the next submission.
  if (prefetcher_ != nullptr && prefetcher_->queued() > 0) {
    if (persistence::Status st = prefetcher_->Submit(); !st.ok()) {
      log::Warning("Cold tier: submitting reads ahead: {}", st.message());
    }
  }
  if (locked_for_reads_) {
    locked_for_reads_ = false;
    if (held_ == LockMode::kShared) Hold(LockMode::kNone);
  }
}

int Dispatcher::cold_reads_fd() const {
  return prefetcher_ != nullptr ? prefetcher_->event_fd() : -1;
}

void Dispatcher::ReapColdReads(absl::FunctionRef<void(uint64_t session_id)> landed) {
  if (prefetcher_ != nullptr) prefetcher_->Reap(landed);
}

void Dispatcher::Reject(const CommandSpec* spec, ClientState& client, resp::Writer& out,
                        std::string_view error) {
  if (spec != nullptr) Bump(stats_.per_command[spec->id][CommandStat::kRejectedCalls]);
  if (client.in_multi) client.multi_error = true;
  out.Error(error);
  CountErrors(out, 1);
}

const CommandSpec* Dispatcher::Resolve(ClientState& client, resp::Writer& out,
                                       std::span<const std::string_view> args) {
  const CommandSpec* spec = Lookup(args[0]);
  if (spec == nullptr) {
    Reject(nullptr, client, out, errors::UnknownCommand(args[0], args.data() + 1, args.size() - 1));
    return nullptr;
  }
  if (!spec->subcommands.empty() && (args.size() >= 2 || spec->handler == nullptr)) {
    if (args.size() < 2) {
      Reject(spec, client, out, errors::WrongArity(spec->name));
      return nullptr;
    }
    const CommandSpec* sub = CommandTable::FindSubcommand(*spec, args[1]);
    if (sub == nullptr) {
      Reject(spec, client, out, errors::UnknownSubcommand(spec->name, args[1]));
      return nullptr;
    }
    spec = sub;
  }
  if (!ArityOk(*spec, args.size())) {
    std::string error = errors::WrongArity(spec->name);
    if (client.in_multi && spec->name == "exec") {
      // Redis answers a rejected EXEC by discarding the transaction (execCommandAbort).
      DiscardTransaction(services_.keyspace, client);
      error = std::string(errors::kExecAbortBecause) + error.substr(std::size("ERR ") - 1);
    }
    Reject(spec, client, out, error);
    return nullptr;
  }
  return spec;
}

bool Dispatcher::Admit(const CommandSpec& spec, ClientState& client, resp::Writer& out,
                       std::span<const std::string_view> args) {
  if (!(spec.flags & cmd::kNoAuth) && services_.NeedsAuth(client)) {
    Reject(&spec, client, out, errors::kNoAuth);
    return false;
  }
  // Redis logs a denial while queuing a transaction with the "multi" context too.
  if (!AclAllows(client, spec)) {
    const acl::LogContext context =
        client.in_multi ? acl::LogContext::kMulti : acl::LogContext::kTopLevel;
    if (std::string_view denial = AclDenial(spec, client, args, context); !denial.empty()) {
      if (denial != kUserDeleted) Reject(&spec, client, out, denial);
      return false;
    }
  }
  return true;
}

bool Dispatcher::MayGrowMemory(const CommandSpec& spec, const ClientState& client) const {
  if (spec.flags & cmd::kDenyOom) return true;
  if (!client.in_multi) return false;
  // Queuing takes memory; EXEC grows it if it runs a command that may (DISCARD, QUIT, RESET never).
  if (!(spec.flags & cmd::kTransactionControl)) return true;
  return spec.name == "exec" && QueuedHasFlag(client, cmd::kDenyOom);
}

bool Dispatcher::MayReplicate(const CommandSpec& spec, const ClientState& client,
                              std::span<const std::string_view> args) const {
  constexpr uint32_t kReplicated = cmd::kWrite | cmd::kMayReplicate;
  if (EffectiveFlags(spec, args) & kReplicated) return true;
  return client.in_multi && spec.name == "exec" && QueuedHasFlag(client, kReplicated);
}

bool Dispatcher::QueuedHasFlag(const ClientState& client, uint32_t flags) const {
  std::vector<std::string_view> args;
  for (const std::vector<std::string>& queued : client.queued) {
    const CommandSpec* q = Lookup(queued[0]);
    if (q != nullptr && !q->subcommands.empty() && queued.size() >= 2) {
      q = CommandTable::FindSubcommand(*q, queued[1]);
    }
    if (q == nullptr) continue;
    args.assign(queued.begin(), queued.end());
    if (EffectiveFlags(*q, args) & flags) return true;
  }
  return false;
}

uint32_t Dispatcher::EffectiveFlags(const CommandSpec& spec,
                                    std::span<const std::string_view> args) const {
  static constexpr std::string_view kEvals[] = {"eval", "evalsha", "eval_ro", "evalsha_ro"};
  const bool eval = std::find(std::begin(kEvals), std::end(kEvals), spec.name) != std::end(kEvals);
  const bool fcall = spec.name == "fcall" || spec.name == "fcall_ro";
  if ((!eval && !fcall) || args.size() < 2) return spec.flags;
  scripting::ScriptFlags script;
  if (fcall) {
    const std::optional<scripting::ScriptFlags> found = services_.functions.FindFunction(args[1]);
    if (!found) return spec.flags;
    script = *found;
    script.declared = true;  // a function's flags are always its own
  } else {
    std::string body;
    std::string_view text = args[1];
    if (spec.name == "evalsha" || spec.name == "evalsha_ro") {
      const std::string sha = scripting::NormalizeSha(args[1]);
      if (sha.empty() || !services_.scripts.Find(sha, &body)) return spec.flags;
      text = body;
    }
    size_t code_start = 0;
    if (!scripting::ParseShebang(text, &script, &code_start).empty()) return spec.flags;
  }
  if (!script.declared) return spec.flags;
  uint32_t flags = spec.flags & ~(cmd::kStale | cmd::kDenyOom | cmd::kWrite | cmd::kMayReplicate);
  if (!script.allow_oom && !script.no_writes) flags |= cmd::kDenyOom;
  if (!script.no_writes) flags |= cmd::kWrite;
  if (script.allow_stale) flags |= cmd::kStale;
  return flags;
}

void Dispatcher::ClearCaching(ClientState& client, std::span<const std::string_view> args) {
  // CLIENT CACHING applies to the next command, or to the next transaction; a CLIENT command
  // (CACHING itself, TRACKINGINFO ...) in between keeps it, as in Redis.
  if (client.in_multi || client.postponed.load(std::memory_order_relaxed)) return;
  const CommandSpec* spec = Lookup(args[0]);
  if (spec == nullptr || spec->name != "client") client.tracking.caching = false;
}

void Dispatcher::Run(Session& session, resp::Writer& out, std::span<const std::string_view> args) {
  ClientState& client = static_cast<ClientState&>(session);
  // CLIENT REPLY: OFF discards every reply; SKIP discards the next command's.
  if (client.reply_mode == ReplyMode::kSkipNext) client.reply_mode = ReplyMode::kSkipThis;
  if (client.reply_mode == ReplyMode::kOn) {
    DispatchCommand(client, out, args);
    if (client.tracking.caching) ClearCaching(client, args);
    return;
  }
  resp::OutBuffer* const replies = out.out();
  out.set_out(&discarded_);
  DispatchCommand(client, out, args);
  // A command that turned replies on (CLIENT REPLY ON, RESET) has its own reply sent.
  if (client.reply_mode == ReplyMode::kOn) discarded_.MoveTo(replies);
  discarded_.Clear();
  out.set_out(replies);
  if (client.tracking.caching) ClearCaching(client, args);
  if (client.reply_mode == ReplyMode::kSkipThis) {
    // A command postponed by CLIENT PAUSE is still the one to skip when it runs.
    client.reply_mode =
        client.postponed.load(std::memory_order_relaxed) ? ReplyMode::kSkipNext : ReplyMode::kOn;
  }
}

void Dispatcher::DispatchCommand(ClientState& client, resp::Writer& out,
                                 std::span<const std::string_view> args) {
  if (services_.control.shutting_down()) {
    // The final save has been taken: nothing may change or be acknowledged after it.
    client.close_after_reply = true;
    return;
  }
  // Invalidations of keys the command changes go to its own client after its reply.
  Tracking::Running tracking(services_.tracking, client, out);
  const CommandSpec* spec = Resolve(client, out, args);
  if (spec == nullptr) return;
  // As Redis's processCommand: CLIENT LIST's cmd= (and the ACL LOG's client-info) name the
  // command even when it is refused or only queued.
  client.last_command_id.store(spec->id, std::memory_order_relaxed);
  if (!Admit(*spec, client, out, args)) return;
  if (client.in_multi && (spec->flags & cmd::kNoMulti)) {
    Reject(spec, client, out, errors::kNotAllowedInMulti);
    return;
  }
  if (!(spec->flags & cmd::kAllowBusy) && ScriptBusy()) {
    Reject(spec, client, out, BusyError());
    return;
  }
  // maxmemory: make room first, whatever the command (as Redis); refuse what may grow memory when
  // nothing more may go. Replaying the log refuses nothing (its commands were acknowledged; Redis
  // loads without the check too), but still demotes to the cold tier as memory fills.
  const bool replaying = names_ == Names::kOriginal;
  if (services_.memory.OverLimit() && (!replaying || services_.keyspace.tier() != nullptr)) {
    if (!Hold(LockMode::kExclusive)) {
      Reject(spec, client, out, BusyError());
      return;
    }
    if (services_.memory.Evict(NowMs()) == MemoryGuard::Outcome::kFull && !replaying &&
        MayGrowMemory(*spec, client)) {
      if (client.in_multi && spec->name == "exec") {
        DiscardTransaction(services_.keyspace, client);
        Reject(spec, client, out,
               std::string(errors::kExecAbortBecause) + std::string(errors::kOom));
      } else {
        Reject(spec, client, out, errors::kOom);
      }
      return;
    }
  }
  // A MONITOR client is a replica to Redis: it may not touch the keyspace.
  if (client.monitor.load(std::memory_order_relaxed) &&
      (spec->flags & (cmd::kWrite | cmd::kReadonly | cmd::kMayReplicate))) {
    Reject(spec, client, out, errors::kReplicaKeyspace);
    return;
  }
  // RESP2 subscriber mode: the connection carries messages, so only commands whose replies fit
  // among them (RESP3 tells pushes from replies, and allows everything).
  if (client.pubsub.load(std::memory_order_relaxed) && !(spec->flags & cmd::kSubscriberMode) &&
      client.protocol.load(std::memory_order_relaxed) == 2) {
    Reject(spec, client, out, errors::NotInSubscriberMode(spec->name));
    return;
  }
  // CLIENT PAUSE: the connection runs the command again when the pause ends (queuing one into
  // a transaction waits too, as in Redis).
  if (services_.pause.active() &&
      services_.pause.Postpone(client, MayReplicate(*spec, client, args))) {
    return;
  }
  if (client.in_multi && !(spec->flags & cmd::kTransactionControl)) {
    auto& queued = client.queued.emplace_back();
    queued.reserve(args.size());
    uint64_t bytes = client.multi_bytes.load(std::memory_order_relaxed);
    for (std::string_view a : args) {
      queued.emplace_back(a);
      bytes += a.size() + sizeof(void*);
    }
    client.multi_count.store(static_cast<int>(client.queued.size()), std::memory_order_relaxed);
    client.multi_bytes.store(bytes, std::memory_order_relaxed);
    out.SimpleString("QUEUED");
    return;
  }
  // Replaying the log never blocks (nothing could serve it).
  BlockRequest* block = names_ == Names::kConfigured ? &block_request_ : nullptr;
  if (block != nullptr) block->blocked = block->rerun = false;
  RunSpec(*spec, client, out, args, CommandStartUs(), Locking::kByFlags, block);
  if (block != nullptr && block->blocked) BlockClient(client, args);
  // As Redis's handleClientsBlockedOnKeys after each command: what the command (a whole EXEC or
  // script) made ready is served before anything else runs.
  if (services_.blocked.has_ready() && held_ == LockMode::kExclusive) ServeReadyKeys();
}

void Dispatcher::BlockClient(ClientState& client, std::span<const std::string_view> args) {
  BlockRequest& request = block_request_;
  BlockedClients::Waiter waiter;
  waiter.client_id = client.id;
  waiter.host = services_.clients.Host(client.id);
  waiter.db = client.db.load(std::memory_order_relaxed);
  waiter.protocol = client.protocol.load(std::memory_order_relaxed);
  if (request.args.empty()) {
    waiter.args.assign(args.begin(), args.end());
  } else {
    waiter.args = std::move(request.args);
    request.args.clear();
  }
  // BLPOP k k waits on k once.
  for (std::string& key : request.keys) {
    if (std::find(waiter.keys.begin(), waiter.keys.end(), key) == waiter.keys.end()) {
      waiter.keys.push_back(std::move(key));
    }
  }
  waiter.type = request.type;
  waiter.unblock_on_delete = request.unblock_on_delete;
  waiter.timeout_replies_zero = request.timeout_replies_zero;
  request.timeout_replies_zero = false;
  int64_t deadline = 0;
  if (request.timeout_ms > 0 && !CheckedAdd(NowMs(), request.timeout_ms, &deadline)) {
    deadline = 0;  // past the end of time: forever
  }
  client.block_deadline_ms = deadline;
  client.blocked.store(true, std::memory_order_relaxed);
  services_.blocked.Block(std::move(waiter));
}

void Dispatcher::ServeReadyKeys() {
  BlockedClients& blocked = services_.blocked;
  Keyspace& ks = services_.keyspace;
  // A served command may make more keys ready (BLMOVE's destination): until none is.
  while (blocked.TakeReady(&ready_keys_)) {
    for (const auto& [db, key] : ready_keys_) {
      if (db >= ks.num_dbs()) continue;
      uint64_t cursor = 0;
      for (;;) {
        const Object* obj = ks.FindHeader(db, key, NowMs(), &expired_);
        std::optional<ObjType> type;
        if (obj != nullptr) type = obj->type();
        std::optional<BlockedClients::Claim> claim =
            blocked.ClaimNext(db, key, type, &cursor, &to_wake_);
        if (!claim) break;
        const BlockedClients::Waiter& waiter = *claim->waiter;
        serve_client_.id = waiter.client_id;
        serve_client_.db.store(waiter.db, std::memory_order_relaxed);
        serve_client_.protocol.store(waiter.protocol, std::memory_order_relaxed);
        serve_writer_.set_protocol(waiter.protocol);
        serve_argv_.assign(waiter.args.begin(), waiter.args.end());
        serve_request_.blocked = false;
        serve_request_.rerun = true;
        const CommandSpec* spec = Lookup(serve_argv_[0]);
        RunSpec(*spec, serve_client_, serve_writer_, serve_argv_, NowUs(), Locking::kHeld,
                &serve_request_);
        if (serve_request_.blocked) {
          serve_out_.Clear();
          blocked.EndServe(*claim, nullptr, &to_wake_);
        } else {
          blocked.EndServe(*claim, &serve_out_, &to_wake_);
        }
      }
    }
  }
  if (!expired_.empty()) {
    ks.ExpireReported(expired_, NowMs());
    expired_.clear();
  }
}

void Dispatcher::EndTurn() {
  services_.tracking.BroadcastPending();
  CommitLog();
  // Only now: their replies report changes the log holds.
  for (const BlockedClients::Wake& wake : to_wake_) {
    if (wake.host != nullptr) wake.host->Unblocked(wake.client_id);
  }
  to_wake_.clear();
}

bool Dispatcher::ResumeBlocked(Session& session, resp::Writer& out, bool timed_out) {
  ClientState& client = static_cast<ClientState&>(session);
  if (!client.blocked.load(std::memory_order_relaxed)) return true;
  BlockedClients& blocked = services_.blocked;
  if (timed_out && blocked.End(client.id, {}) == BlockedClients::Cancel::kServing) return false;
  std::optional<BlockedClients::Outcome> outcome = blocked.Take(client.id);
  if (!outcome) return false;
  client.blocked.store(false, std::memory_order_relaxed);
  client.block_deadline_ms = 0;
  if (client.reply_mode == ReplyMode::kOff) return true;
  switch (outcome->kind) {
    case BlockedClients::Outcome::Kind::kServed:
      outcome->reply.MoveTo(out.out());
      break;
    case BlockedClients::Outcome::Kind::kTimedOut:
      if (outcome->zero) {
        out.Integer(0);
      } else {
        out.NullArray();
      }
      break;
    case BlockedClients::Outcome::Kind::kError:
      out.Error(outcome->error);
      CountErrors(out, 1);
      break;
  }
  return true;
}

bool Dispatcher::Hold(LockMode mode) {
  if (mode == held_) return true;
  index::RwLock& mu = services_.keyspace.mu();
  if (held_ == LockMode::kShared) mu.unlock_shared();
  if (held_ == LockMode::kExclusive) mu.unlock();
  held_ = LockMode::kNone;
  if (mode == LockMode::kNone) return true;
  if (!Acquire(mode == LockMode::kExclusive)) return false;
  held_ = mode;
  if (mode == LockMode::kExclusive) ApplyReported();
  return true;
}

std::string_view Dispatcher::BusyError() const {
  return services_.running_script.function() ? errors::kBusyFunction : errors::kBusyScript;
}

bool Dispatcher::ScriptBusy() const {
  return services_.running_script.Busy(services_.config.busy_reply_threshold_ms());
}

bool Dispatcher::Acquire(bool exclusive) {
  // In slices: a script past busy-reply-threshold keeps the lock, and this thread must answer
  // BUSY (and read the SCRIPT KILL that ends it) rather than wait it out.
  constexpr int kSliceMs = 10;
  index::RwLock& mu = services_.keyspace.mu();
  if (exclusive ? mu.try_lock() : mu.try_lock_shared()) return true;
  // Contended: the clock only now, so the uncontended path pays nothing for the count.
  const int64_t start_us = NowUs();
  bool taken;
  while (!(taken = exclusive ? mu.try_lock_for(kSliceMs) : mu.try_lock_shared_for(kSliceMs))) {
    if (ScriptBusy()) break;
  }
  Bump(stats_[Stat::kKeyspaceLockWaitUs], static_cast<uint64_t>(NowUs() - start_us));
  return taken;
}

void Dispatcher::ApplyReported() {
  if (!expired_.empty()) {
    // Lazy expiry of what readers saw, as soon as we may delete.
    services_.keyspace.ExpireReported(expired_, NowMs());
    expired_.clear();
  }
  // And the cold values they read come back into memory (past the limit, those read twice: the
  // next command's eviction step demotes colder ones).
  services_.keyspace.PromoteReadCopies([&] { return services_.memory.RoomToPromote(); });
}

void Dispatcher::EndBatch() {
  batch_clock_us_ = 0;  // what runs next may come after a wait
  Keyspace& ks = services_.keyspace;
  if (expired_.empty() && held_ != LockMode::kExclusive && ks.HasReadCopies()) {
    // Copies are made under the shared lock, which is held still: what they will promote is
    // chosen under it, and a batch whose reads promote nothing never takes the exclusive lock.
    // (Behind a busy script, what readers reported waits for a later batch.)
    if (held_ == LockMode::kNone && !Hold(LockMode::kShared)) return;
    if (!ks.SelectReadPromotions([&] { return services_.memory.RoomToPromote(); })) {
      Hold(LockMode::kNone);
      return;
    }
  }
  if (!expired_.empty() || ks.HasReadCopies()) {
    // Taking the lock applies them; holding it already, apply them here.
    if (held_ == LockMode::kExclusive) {
      ApplyReported();
    } else if (!Hold(LockMode::kExclusive)) {
      return;
    }
  }
  Hold(LockMode::kNone);
}

void Dispatcher::CommitLog() {
  if (log_seq_ != 0) {
    // Group commit: the batch's replies go out only once its records are written (durable under
    // appendfsync always).
    persistence::Status status = log_->Commit(log_seq_);
    log_seq_ = 0;
    if (!status.ok()) {
      // As Redis: with the log failing, an acknowledgement could be a lie; stop instead.
      log::Warning("Can't write to the append-only log: {}. Exiting...", status.message());
      std::_Exit(1);
    }
  }
}

void Dispatcher::RunSpec(const CommandSpec& spec, ClientState& client, resp::Writer& out,
                         std::span<const std::string_view> args, int64_t start_us, Locking locking,
                         BlockRequest* block) {
  // One clock read gives the command's time (Redis semantics: one "now" per command) and the
  // start of its duration for commandstats; a script's commands all have the script's start.
  int64_t now_ms =
      &client == &script_client_ && script_now_ms_ >= 0 ? script_now_ms_ : start_us / 1000;
  size_t errors_before = out.errors_written();
  if (locking == Locking::kByFlags) {
    const LockMode mode = (spec.flags & (cmd::kWrite | cmd::kExclusiveLock)) ? LockMode::kExclusive
                          : (spec.flags & (cmd::kReadonly | cmd::kSharedLock))
                              ? LockMode::kShared
                              : LockMode::kNone;  // e.g. EXEC and DEBUG SLEEP: no lock held
    if (!Hold(mode)) {
      Reject(&spec, client, out, BusyError());
      return;
    }
  }
  if (held_ == LockMode::kExclusive && services_.control.shutting_down()) {
    // SHUTDOWN saved under this lock: a write that waited for it must not run or be answered.
    client.close_after_reply = true;
    return;
  }
  client.last_command_id.store(spec.id, std::memory_order_relaxed);
  Keyspace& ks = services_.keyspace;
  // A script's commands after redis.set_repl(REPL_NONE or REPL_REPLICA) stay out of the log, as
  // in Redis 7.0 (replaying it then lacks their changes, as Redis's AOF does).
  const bool unlogged = &client == &script_client_ && !script_logged_;
  CommandLog* aof = held_ == LockMode::kExclusive && (spec.flags & cmd::kWrite) && !unlogged
                        ? services_.durability.log()
                        : nullptr;
  const uint64_t changes_before = aof != nullptr ? ks.changes() : 0;
  const int db = client.db.load(std::memory_order_relaxed);
  propagate_.clear();
  // Messages the command publishes to its own client go before its reply.
  PubSub::Running running(client, out.out());
  CommandContext ctx{services_,
                     client,
                     out,
                     args,
                     now_ms,
                     &expired_,
                     stats_,
                     *this,
                     aof != nullptr ? &propagate_ : nullptr,
                     block,
                     &client == &script_client_};
  // A script's command shows before the commands the script runs.
  if ((spec.flags & cmd::kSkipMonitor) && services_.monitors.active()) {
    FeedMonitors(client, args);
  }
  spec.handler(ctx);
  AfterCommand(spec, client, args);
  if (block != nullptr && block->blocked) return;  // it changed nothing, replied nothing
  if (unlogged) {
    if (CommandLog* log = services_.durability.log()) log->SkipCommand();
  }
  if (aof != nullptr && ks.changes() != changes_before) {
    // Staged under the exclusive lock: the log's order is the order of the changes.
    uint64_t seq;
    if (propagate_.empty() && commands_.has_renames()) {
      // Logged under the command's own name (FindOriginal replays it).
      std::vector<std::string_view> views(args.begin(), args.end());
      views[0] = Lookup(args[0])->name;
      seq = aof->StageCommand(db, views);
    } else if (propagate_.empty()) {
      seq = aof->StageCommand(db, args);
    } else {
      std::vector<std::string_view> views(propagate_.begin(), propagate_.end());
      seq = aof->StageCommand(db, views);
    }
    log_seq_ = std::max(log_seq_, seq);
    log_ = aof;
  }
  if (held_ == LockMode::kExclusive && !expired_.empty()) {
    services_.keyspace.ExpireReported(expired_, now_ms);
    expired_.clear();
  }
  CountCall(spec, client, args, start_us, out, errors_before);
}

void Dispatcher::CountCall(const CommandSpec& spec, const ClientState& client,
                           std::span<const std::string_view> args, int64_t start_us,
                           resp::Writer& out, size_t errors_before) {
  const size_t errors = out.errors_written() - std::max(errors_before, out.errors_counted());
  batch_clock_us_ = NowUs();
  const int64_t duration_us = std::max<int64_t>(batch_clock_us_ - start_us, 0);
  Counters<CommandStat>& cs = stats_.per_command[spec.id];
  Bump(cs[CommandStat::kCalls]);
  Bump(cs[CommandStat::kUsec], static_cast<uint64_t>(duration_us));
  if (services_.config.latency_tracking()) stats_.latency.Record(spec.id, duration_us * 1000);
  const int64_t monitor_ms = services_.config.latency_monitor_threshold_ms();
  if (monitor_ms > 0 && duration_us / 1000 >= monitor_ms) {
    services_.stats.monitor.Add(spec.flags & cmd::kFast ? "fast-command" : "command",
                                (start_us + duration_us) / 1000000,
                                static_cast<uint32_t>(duration_us / 1000));
  }
  const int64_t slower_than = services_.config.slowlog_slower_than_us();
  if (slower_than >= 0 && duration_us >= slower_than && !(spec.flags & cmd::kSkipSlowlog)) {
    // A script's commands show as Redis shows its Lua client's: "?:0", no name.
    const bool script = &client == &script_client_;
    const std::string name = script ? std::string() : services_.clients.Name(&client);
    services_.slowlog.Record(args, (start_us + duration_us) / 1000000, duration_us,
                             script ? std::string_view("?:0") : std::string_view(client.addr), name,
                             static_cast<size_t>(services_.config.slowlog_max_len()));
  }
  Bump(stats_[Stat::kCommandsProcessed]);
  if (errors > 0) {
    Bump(cs[CommandStat::kFailedCalls]);
    CountErrors(out, errors);
  }
}

void Dispatcher::CountErrors(resp::Writer& out, size_t n) {
  Bump(stats_[Stat::kErrorReplies], n);
  stats_.errors.Add(out.last_error_code(), n);
  out.MarkErrorsCounted();
}

void Dispatcher::FeedMonitors(ClientState& client, std::span<const std::string_view> args) {
  const bool from_script = &client == &script_client_;
  services_.monitors.Feed(client.db.load(std::memory_order_relaxed),
                          from_script ? std::string_view("lua") : std::string_view(client.addr),
                          args);
}

void Dispatcher::AfterCommand(const CommandSpec& spec, ClientState& client,
                              std::span<const std::string_view> args) {
  // A blocked client's command run again to serve it was shown when it blocked (as Redis 7.0,
  // which serves it without running it again).
  if (&client == &serve_client_) return;
  if (services_.monitors.active() && !(spec.flags & (cmd::kAdmin | cmd::kSkipMonitor))) {
    FeedMonitors(client, args);
  }
  // Client-side caching remembers what a read-only command read, for the script's caller when
  // a script runs it. EVAL_RO, EVALSHA_RO and FCALL_RO are read-only, but their own keys are not
  // remembered (Redis leaves them out: only their scripts' commands read).
  if ((spec.flags & cmd::kReadonly) && !(spec.flags & cmd::kPubSub)) {
    ClientState* caller = &client == &script_client_ ? script_caller_ : &client;
    if (caller != nullptr && Tracking::Remembers(*caller) && spec.group != "scripting") {
      KeyPositions(spec, args, &key_positions_);
      services_.tracking.Remember(*caller, args, key_positions_);
    }
  }
}

scripting::LuaEngine& Dispatcher::lua() {
  const uint64_t generation = services_.scripts.generation();
  bool changed = false;
  if (lua_ == nullptr) {
    lua_ = std::make_unique<scripting::LuaEngine>();
    lua_->Reset(generation);
    changed = true;
  } else if (lua_->generation() != generation) {
    lua_->Reset(generation);
    changed = true;
  }
  // The generation read before the libraries: a load in between is seen by the next call.
  const uint64_t function_generation = services_.functions.generation();
  if (lua_->function_generation() != function_generation) {
    lua_->LoadFunctions(services_.functions.All(), function_generation);
    changed = true;
  }
  // What a run holds is reported after it (RunScript); here only what a reset or load changed.
  if (changed) ReportLuaBytes();
  return *lua_;
}

void Dispatcher::ReportLuaBytes() {
  const int64_t bytes = static_cast<int64_t>(lua_->memory_bytes());
  services_.scripts.AddEngineBytes(bytes - lua_bytes_reported_);
  lua_bytes_reported_ = bytes;
}

class Dispatcher::ScriptCaller : public scripting::CommandCaller {
 public:
  ScriptCaller(Dispatcher& dispatcher, const ScriptRun& run) : dispatcher_(dispatcher), run_(run) {}
  void Call(std::span<const std::string_view> args, resp::Writer& out) override {
    dispatcher_.CallFromScript(run_, out, args);
  }
  std::optional<bool> UserMayRun(std::span<const std::string_view> args) override {
    return dispatcher_.ScriptUserMayRun(args);
  }
  bool Killed() override {
    dispatcher_.ServeWhileBusy();  // a SCRIPT KILL from this thread's clients arrives here
    return dispatcher_.services_.running_script.kill_requested();
  }
  std::string_view KilledError() const override { return errors::kScriptKilled; }
  void SetLogged(bool logged) override { dispatcher_.script_logged_ = logged; }

 private:
  Dispatcher& dispatcher_;
  const ScriptRun& run_;
};

void Dispatcher::RunScript(ClientState& client, const ScriptRun& run,
                           std::span<const std::string_view> keys,
                           std::span<const std::string_view> argv, resp::Writer& out) {
  // The script's commands run as client's user, from client's db; a SELECT among them stays
  // the script's (Redis 7).
  script_client_.db.store(client.db.load(std::memory_order_relaxed), std::memory_order_relaxed);
  script_client_.user = client.user;
  script_client_.authenticated = true;
  script_client_.protocol.store(2, std::memory_order_relaxed);
  script_client_.no_touch = client.no_touch;
  script_caller_ = &client;
  // Its changes are one record of the log, as EXEC's (inside EXEC, part of EXEC's record).
  CommandLog* aof = services_.durability.log();
  const bool group = aof != nullptr && !in_exec_;
  if (group) aof->BeginGroup();
  ScriptCaller caller(*this, run);
  // The engine as the command left it when it compiled the script or looked the function up: a
  // SCRIPT FLUSH or FUNCTION change on another thread since is for the next command to see
  // (resetting here would lose the script just compiled).
  if (lua_ == nullptr) lua();
  scripting::LuaEngine& engine = *lua_;
  // Time stands still for the script's commands, as in Redis 7.0: a key expires when the script
  // starts or not at all while it runs, so what it did replays the same from the log.
  const int64_t started_ms = NowMs();
  script_now_ms_ = started_ms;
  script_logged_ = true;
  services_.running_script.Begin(started_ms, run.function ? run.name : std::string_view(),
                                 run.command);
  if (run.function) {
    engine.CallFunction(run.name, keys, argv, caller, out);
  } else {
    engine.Run(run.name, keys, argv, caller, out);
  }
  services_.running_script.End();
  script_now_ms_ = -1;
  script_logged_ = true;
  script_caller_ = nullptr;
  ReportLuaBytes();
  if (group) {
    log_seq_ = std::max(log_seq_, aof->EndGroup());
    log_ = aof;
  }
}

void Dispatcher::ServeWhileBusy() {
  if (!busy_poll_ || serving_while_busy_ || !ScriptBusy()) return;
  const int64_t now_ms = NowMs();
  if (now_ms - last_busy_poll_ms_ < kBusyPollMs) return;
  last_busy_poll_ms_ = now_ms;
  serving_while_busy_ = true;
  busy_poll_();
  serving_while_busy_ = false;
}

void Dispatcher::RunWhileBusy(Session& session, resp::Writer& out,
                              std::span<const std::string_view> args) {
  ClientState& client = static_cast<ClientState&>(session);
  const CommandSpec* spec = Resolve(client, out, args);
  if (spec == nullptr) return;
  client.last_command_id.store(spec->id, std::memory_order_relaxed);
  if (!Admit(*spec, client, out, args)) return;
  if (!(spec->flags & cmd::kAllowBusy)) {
    Reject(spec, client, out, BusyError());
    return;
  }
  // The script holds the keyspace's exclusive lock on this thread: nothing changes under these
  // commands (none writes), and nothing they report is applied (expired keys wait for later).
  std::vector<ExpiredKey> expired;
  const int64_t start_us = NowUs();
  CommandContext ctx{services_, client, out, args, start_us / 1000, &expired, stats_, *this};
  const size_t errors_before = out.errors_written();
  spec->handler(ctx);
  CountCall(*spec, client, args, start_us, out, errors_before);
}

const CommandSpec* Dispatcher::ScriptCommand(std::span<const std::string_view> args) const {
  const CommandSpec* spec = Lookup(args[0]);
  if (spec != nullptr && !spec->subcommands.empty() && args.size() >= 2) {
    spec = CommandTable::FindSubcommand(*spec, args[1]);
  }
  return spec;
}

std::optional<bool> Dispatcher::ScriptUserMayRun(std::span<const std::string_view> args) {
  const CommandSpec* spec = ScriptCommand(args);
  if (spec == nullptr) return std::nullopt;
  if (AclAllows(script_client_, *spec)) return true;
  // As Redis's ACLCheckAllUserCommandPerm: the verdict alone, nothing logged or counted.
  const acl::User* user = script_client_.user.Current();
  return user != nullptr && CheckCommand(*user, *spec, args, &acl_keys_, &acl_channels_).ok();
}

void Dispatcher::CallFromScript(const ScriptRun& run, resp::Writer& out,
                                std::span<const std::string_view> args) {
  const CommandSpec* spec = ScriptCommand(args);
  if (spec == nullptr) {
    out.Error(errors::kScriptUnknownCommand);
    return;
  }
  if (!ArityOk(*spec, args.size())) {
    out.Error(errors::kScriptWrongArity);
    return;
  }
  if (spec->flags & cmd::kNoScript) {
    out.Error(errors::kScriptNotAllowed);
    return;
  }
  if (!AclAllows(script_client_, *spec)) {
    std::string_view denial = AclDenial(*spec, script_client_, args, acl::LogContext::kLua);
    if (denial == kUserDeleted) {
      out.Error(errors::kNoAuth);
      return;
    }
    if (!denial.empty()) {
      out.Error(denial == errors::kNoPermKey       ? errors::kScriptNoPermKey
                : denial == errors::kNoPermChannel ? errors::kScriptNoPermChannel
                                                   : errors::kScriptNoPermCommand);
      return;
    }
  }
  // As Redis: a read-only script may not publish either (may-replicate counts as a write); a
  // denyoom command is refused over maxmemory only until the script's first write command, after
  // which stopping would leave its effects half done.
  if ((spec->flags & (cmd::kWrite | cmd::kMayReplicate)) && run.read_only) {
    out.Error(errors::kScriptWriteInReadOnly);
    return;
  }
  scripting::RunningScript& running = services_.running_script;
  if ((spec->flags & cmd::kDenyOom) && !run.flags.allow_oom && !running.wrote() &&
      services_.memory.OverLimit() &&
      services_.memory.Evict(NowMs()) == MemoryGuard::Outcome::kFull) {
    out.Error(errors::kOom);
    return;
  }
  if (spec->flags & cmd::kWrite) running.NoteWrite();
  RunSpec(*spec, script_client_, out, args, NowUs(), Locking::kHeld);
}

void Dispatcher::ExecQueued(ClientState& client, resp::Writer& out) {
  Keyspace& ks = services_.keyspace;
  if (!Hold(LockMode::kExclusive)) {  // released by the batch's EndBatch()
    out.Error(BusyError());
    return;
  }
  if (services_.control.shutting_down()) {
    client.close_after_reply = true;  // as in Run: nothing runs after SHUTDOWN's save
    return;
  }
  int64_t now_us = NowUs();
  int64_t now_ms = now_us / 1000;
  // A watched key that expired since WATCH counts as modified (Redis 7 isWatchedKeyExpired).
  bool expired_watch = false;
  for (const auto& [db, key] : client.watched_with_ttl) {
    if (db < ks.num_dbs() && ks.Find(db, key, now_ms) == nullptr) expired_watch = true;
  }
  if (client.watch.dirty.load(std::memory_order_acquire) || expired_watch) {
    out.NullArray();
    return;
  }
  out.ArrayHeader(static_cast<int64_t>(client.queued.size()));
  // The transaction is one record of the log: a torn tail drops it whole.
  CommandLog* aof = services_.durability.log();
  if (aof != nullptr) aof->BeginGroup();
  in_exec_ = true;
  for (const auto& queued : client.queued) {
    argv_.assign(queued.begin(), queued.end());
    const CommandSpec* spec = Lookup(argv_[0]);
    if (!spec->subcommands.empty() && argv_.size() >= 2) {
      spec = CommandTable::FindSubcommand(*spec, argv_[1]);  // resolved once already at queuing
    }
    // Queuing already checked name and arity; auth may have been revoked since.
    if (!(spec->flags & cmd::kNoAuth) && services_.NeedsAuth(client)) {
      out.Error(errors::kNoAuth);
      continue;
    }
    // So may the user's permissions (Redis checks them again at EXEC).
    std::string_view denial;
    if (!AclAllows(client, *spec)) {
      denial = AclDenial(*spec, client, argv_, acl::LogContext::kMulti, /*at_exec=*/true);
    }
    if (!denial.empty()) {
      if (denial == kUserDeleted) denial = errors::kNoAuth;
      out.Error(denial);
      CountErrors(out, 1);
      continue;
    }
    RunSpec(*spec, client, out, argv_, now_us, Locking::kHeld);
  }
  in_exec_ = false;
  if (aof != nullptr) {
    log_seq_ = std::max(log_seq_, aof->EndGroup());
    log_ = aof;
  }
}

}  // namespace ordis::server
