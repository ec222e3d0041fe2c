// Transactions: MULTI EXEC DISCARD WATCH UNWATCH.
//
// EXEC runs the whole queue under the keyspace's exclusive lock, so no other client's command
// interleaves (isolation) and WATCH's check-then-run is atomic.
#include <algorithm>

#include "server/command/dispatcher.h"
#include "server/command/errors.h"
#include "server/command/transaction.h"
#include "server/commands/families.h"

namespace ordis::server {
namespace {

// MULTI
void CmdMulti(CommandContext& ctx) {
  if (ctx.client.in_multi) {
    ctx.out.Error(errors::kMultiNested);
    return;
  }
  ctx.client.in_multi = true;
  ctx.client.multi_count.store(0, std::memory_order_relaxed);
  ctx.out.Ok();
}

// EXEC
void CmdExec(CommandContext& ctx) {
  if (!ctx.client.in_multi) {
    ctx.out.Error(errors::kExecWithoutMulti);
    return;
  }
  if (ctx.client.multi_error) {
    ctx.out.Error(errors::kExecAbort);
  } else {
    ctx.dispatcher.ExecQueued(ctx.client, ctx.out);
  }
  DiscardTransaction(ctx.keyspace(), ctx.client);
}

// DISCARD
void CmdDiscard(CommandContext& ctx) {
  if (!ctx.client.in_multi) {
    ctx.out.Error(errors::kDiscardWithoutMulti);
    return;
  }
  DiscardTransaction(ctx.keyspace(), ctx.client);
  ctx.out.Ok();
}

// WATCH key [key ...]
void CmdWatch(CommandContext& ctx) {
  ClientState& c = ctx.client;
  if (c.in_multi) {
    ctx.out.Error(errors::kWatchInMulti);
    return;
  }
  for (size_t i = 1; i < ctx.args.size(); ++i) {
    std::pair<int, std::string> entry(ctx.db(), std::string(ctx.args[i]));
    if (std::find(c.watched_keys.begin(), c.watched_keys.end(), entry) != c.watched_keys.end()) {
      continue;
    }
    // Register before reading the key: a write after this point marks us dirty. (Under the shared
    // lock no write runs in between, so the expiry state read next is the one at registration.)
    std::vector<ExpiredKey> expired;
    Object* obj = ctx.keyspace().FindHeader(entry.first, entry.second, ctx.now_ms, &expired);
    ctx.keyspace().watches().Watch(entry.first, entry.second, &c.watch, !expired.empty());
    ctx.expired->insert(ctx.expired->end(), expired.begin(), expired.end());
    if (obj != nullptr && obj->has_ttl()) c.watched_with_ttl.push_back(entry);
    c.watched_keys.push_back(std::move(entry));
  }
  ctx.out.Ok();
}

// UNWATCH
void CmdUnwatch(CommandContext& ctx) {
  UnwatchAll(ctx.keyspace(), ctx.client);
  ctx.out.Ok();
}

}  // namespace

void RegisterTransactionFamily(CommandTable* table) {
  using namespace cmd;
  // One row per command.
  // clang-format off
  table->Register({
      {"multi", 1, kAllowBusy | kNoScript | kLoading | kStale | kFast | kTransactionControl, 0, 0, 0, CmdMulti, "transactions",
       "Mark the start of a transaction block"},
      {"exec", 1, kNoScript | kLoading | kStale | kSkipSlowlog | kTransactionControl, 0, 0, 0, CmdExec, "transactions",
       "Execute all commands issued after MULTI"},
      {"discard", 1, kAllowBusy | kNoScript | kLoading | kStale | kFast | kTransactionControl, 0, 0, 0, CmdDiscard,
       "transactions", "Discard all commands issued after MULTI"},
      {"watch", -2, kAllowBusy | kNoScript | kLoading | kStale | kFast | kTransactionControl | kSharedLock, 1, -1, 1,
       CmdWatch, "transactions",
       "Watch the given keys to determine execution of the MULTI/EXEC block"},
      {"unwatch", 1, kAllowBusy | kNoScript | kLoading | kStale | kFast, 0, 0, 0, CmdUnwatch, "transactions",
       "Forget about all watched keys"},
  });
  // clang-format on
}

}  // namespace ordis::server
