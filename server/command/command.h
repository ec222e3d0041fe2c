// The command model: one declarative CommandSpec per command, and the context a handler runs in.
// Arity, auth and flags are checked once by the Dispatcher, never inside handlers.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/number.h"
#include "resp/writer.h"
#include "server/keyspace/keyspace.h"
#include "server/stats/stats.h"

namespace ordis::server {

class Config;
class Dispatcher;
struct ClientState;
struct Services;

namespace cmd {
enum Flag : uint32_t {
  kWrite = 1 << 0,     // modifies the keyspace: runs under the exclusive lock
  kReadonly = 1 << 1,  // reads the keyspace: runs under the shared lock
  kFast = 1 << 2,      // O(1) or O(log n)
  kAdmin = 1 << 3,
  kNoAuth = 1 << 4,   // allowed before AUTH
  kNoMulti = 1 << 5,  // refused inside MULTI ("Command not allowed inside a transaction")
  kLoading = 1 << 6,
  kStale = 1 << 7,
  kDenyOom = 1 << 8,  // may grow memory
  kNoScript = 1 << 9,
  kKeyspaceWide = 1 << 10,  // touches many keys (KEYS, SCAN, FLUSHDB ...)
  // Not a Redis flag: a read that needs the exclusive lock (it may delete expired keys it meets).
  kExclusiveLock = 1 << 11,
  // Not a Redis flag: a command outside the keyspace family that reads it under the shared lock.
  kSharedLock = 1 << 12,
  // Not a Redis flag: MULTI EXEC DISCARD WATCH QUIT RESET run at once inside MULTI, never queued.
  kTransactionControl = 1 << 13,
  // Not a Redis flag: reads or changes only its keys' headers (existence, type, TTL), never their
  // values, so the cold tier reads nothing ahead for it (TTL is a read in Redis's key specs).
  kHeaderOnly = 1 << 14,
  kPubSub = 1 << 15,  // a pub/sub command (COMMAND INFO's "pubsub")
  // Not a Redis flag: allowed to a RESP2 client in subscriber mode ((P|S)(UN)SUBSCRIBE, PING,
  // QUIT, RESET); any other command is refused there.
  kSubscriberMode = 1 << 16,
  // Redis's allow_busy: runs while a script is busy (past busy-reply-threshold) instead of BUSY.
  kAllowBusy = 1 << 17,
  kBlocking = 1 << 18,  // may block the client (BLPOP ...; @blocking)
  // Redis's skip_monitor: MONITOR shows the command before it runs rather than after (EVAL,
  // EVALSHA, FCALL and their _RO forms: before their scripts' commands).
  kSkipMonitor = 1 << 19,
  // Redis's may_replicate (not shown by COMMAND INFO): not a write, but CLIENT PAUSE WRITE holds
  // it (EVAL, EVALSHA, FCALL, PUBLISH, SPUBLISH).
  kMayReplicate = 1 << 20,
  kSkipSlowlog = 1 << 21,  // Redis's skip_slowlog: never in SLOWLOG (EXEC: its commands are)
  kAsking = 1 << 22,       // Redis's asking (RESTORE-ASKING); cluster mode only, shown by COMMAND
};
}  // namespace cmd

// What a blocking command (BLPOP, BZPOPMIN, XREAD BLOCK ...) asks for when it finds nothing to
// serve: the client waits until a write to one of keys (in its db) may serve it, then the command
// runs again for it (command/blocking.h).
// A client that waits past its timeout gets a null array (RESP3 null), whatever the command.
struct BlockRequest {
  bool blocked = false;  // set by the handler, which then replies nothing
  // Set by the dispatcher: the command runs again for a client that waited, a key it waits on
  // having changed (XREADGROUP then tells a destroyed group from one never made).
  bool rerun = false;
  std::vector<std::string> keys;
  int64_t timeout_ms = 0;  // 0: forever
  // The type of value that can serve it: a key of another type leaves the client waiting.
  ObjType type = ObjType::kList;
  // XREADGROUP: the client is unblocked with an error when the key is deleted or changes type.
  bool unblock_on_delete = false;
  // What runs again when a key is ready, if not the command itself (XREAD's $ resolved to an ID).
  std::vector<std::string> args;
  // WAIT: no key can serve it, and its timeout replies the integer 0 (no replica acknowledged).
  bool timeout_replies_zero = false;
};

struct CommandContext {
  const Services& services;
  ClientState& client;
  resp::Writer& out;
  std::span<const std::string_view> args;
  // One time per command (per EXEC for a transaction, per script for a script's commands), as
  // Redis: what keys' expiry is judged by.
  int64_t now_ms;
  // Keys a reader found expired; the dispatcher deletes them after the command.
  std::vector<ExpiredKey>* expired;
  ThreadStats& thread_stats;  // the running thread's
  Dispatcher& dispatcher;     // the running thread's (EXEC runs the queue through it)
  // A write command whose effect its arguments do not determine (SPOP's random pick) sets this to
  // the command that replays its effect; the append-only log records that instead.
  std::vector<std::string>* propagate = nullptr;
  // Non-null when the command may block: a blocking command that finds nothing to serve fills it
  // in (BlockRequest::blocked) and replies nothing. Null inside MULTI and scripts, where it
  // replies as its timeout would.
  BlockRequest* block = nullptr;
  // A script's redis.call (a few commands answer differently there: XREAD BLOCK).
  bool from_script = false;

  // What a relative time counts from (an EX, an EXPIRE's seconds, what TTL says is left): now_ms,
  // but the clock inside a script, as Redis 7.0 (mstime() there, not the script's time).
  int64_t ClockMs() const { return from_script ? NowMs() : now_ms; }

  Keyspace& keyspace() const;
  Config& config() const;
  int db() const;
  // Raises keyspace event `event` of class cls (keyspace_events::Class) on key of the client's
  // database: where every command's notifications go (nothing but a bit test when they are off).
  void Notify(uint32_t cls, std::string_view event, std::string_view key) const {
    keyspace().notifier().Notify(cls, event, db(), key);
  }
  ThreadStats& stats() { return thread_stats; }
};

using CommandHandler = void (*)(CommandContext& ctx);

struct CommandSpec {
  std::string_view name;  // lower case
  int arity;              // > 0: exactly; < 0: at least -arity (the name counts)
  uint32_t flags;
  int first_key;  // 0: no keys
  int last_key;   // negative: counts from the end (-1 is the last argument)
  int key_step;
  CommandHandler handler;
  std::string_view group;  // COMMAND DOCS group: string, generic, connection, server, transactions
  std::string_view summary;
  // A container command (CLIENT, CONFIG ...) dispatches on its first argument to these, named
  // "container|sub" as Redis 7 names them; each has its own arity, flags and key positions.
  std::vector<CommandSpec> subcommands = {};
  // > 0: the argument that says how many keys follow it (ZUNION numkeys key ...), after the keys
  // first_key..last_key name (ZUNIONSTORE's destination).
  int numkeys_arg = 0;
  // Non-empty: the keys follow this keyword, the first argument from keys_keyword_from on (never
  // the last) that equals it case-insensitively, and are the first half of the arguments after it
  // (XREAD ... STREAMS key [key ...] id [id ...]): Redis's keyword begin_search with a range
  // find_keys of limit 2. Such keys, and numkeys ones, make COMMAND INFO report movablekeys.
  std::string_view keys_keyword = {};
  int keys_keyword_from = 0;
  // Set when the keys follow rules of the command's own (Redis's getkeys_proc: MIGRATE, whose key
  // argument gives way to its KEYS list): appends their positions. The fields above are then
  // what COMMAND INFO reports.
  using KeyFinder = void (*)(std::span<const std::string_view> args, std::vector<size_t>* out);
  KeyFinder find_keys = nullptr;

  // True iff where the keys are depends on the arguments (Redis's movablekeys).
  bool movable_keys() const {
    return numkeys_arg > 0 || !keys_keyword.empty() || find_keys != nullptr;
  }

  // Filled by the table: position for per-command statistics.
  int id = -1;
};

// Replies to a HELP subcommand: one status line per element.
inline void ReplyHelp(resp::Writer& out, std::span<const std::string_view> lines) {
  out.ArrayHeader(static_cast<int64_t>(lines.size()));
  for (std::string_view line : lines) out.SimpleString(line);
}

// Calls visit(position) for each key argument of args, as the spec's key positions describe them,
// until visit returns false: the one reading of them (COMMAND GETKEYS, the batch prefetch, the
// ACL check). CommandTable::Register guarantees key_step >= 1 when there are keys. A numkeys
// argument that is not a count of arguments present names no keys (the command refuses it), nor
// does a missing keyword. keys_keyword is lower case.
template <typename Visit>
void ForEachKeyPosition(const CommandSpec& spec, std::span<const std::string_view> args,
                        Visit visit) {
  if (spec.find_keys != nullptr) {
    std::vector<size_t> positions;
    spec.find_keys(args, &positions);
    for (size_t p : positions) {
      if (!visit(p)) return;
    }
    return;
  }
  const int n = static_cast<int>(args.size());
  if (spec.first_key > 0) {
    const int last = spec.last_key < 0 ? n + spec.last_key : spec.last_key;
    for (int i = spec.first_key; i <= last && i < n; i += spec.key_step) {
      if (!visit(static_cast<size_t>(i))) return;
    }
  }
  int64_t count = 0;
  if (spec.numkeys_arg > 0 && spec.numkeys_arg < n && ParseInt64(args[spec.numkeys_arg], &count) &&
      count > 0 && count < n - spec.numkeys_arg) {
    for (int i = spec.numkeys_arg + 1; i <= spec.numkeys_arg + count; ++i) {
      if (!visit(static_cast<size_t>(i))) return;
    }
  }
  if (!spec.keys_keyword.empty()) {
    auto is_keyword = [&](std::string_view a) {
      if (a.size() != spec.keys_keyword.size()) return false;
      for (size_t j = 0; j < a.size(); ++j) {
        const char c = a[j] >= 'A' && a[j] <= 'Z' ? static_cast<char>(a[j] + 32) : a[j];
        if (c != spec.keys_keyword[j]) return false;
      }
      return true;
    };
    for (int i = spec.keys_keyword_from; i < n - 1; ++i) {
      if (!is_keyword(args[static_cast<size_t>(i)])) continue;
      const int first = i + 1;
      for (int k = first; k < first + (n - first) / 2; ++k) {
        if (!visit(static_cast<size_t>(k))) return;
      }
      return;
    }
  }
}

// The positions of the key arguments, in order.
void KeyPositions(const CommandSpec& spec, std::span<const std::string_view> args,
                  std::vector<size_t>* out);

}  // namespace ordis::server
