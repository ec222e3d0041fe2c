#include "server/command/transaction.h"

namespace ordis::server {

void UnwatchAll(Keyspace& keyspace, ClientState& c) {
  if (!c.watched_keys.empty()) keyspace.watches().UnwatchAll(c.watched_keys, &c.watch);
  c.watched_keys.clear();
  c.watched_with_ttl.clear();
  c.watch.dirty.store(false, std::memory_order_relaxed);
}

void DiscardTransaction(Keyspace& keyspace, ClientState& c) {
  c.in_multi = false;
  c.multi_error = false;
  c.queued.clear();
  c.multi_count.store(-1, std::memory_order_relaxed);
  c.multi_bytes.store(0, std::memory_order_relaxed);
  UnwatchAll(keyspace, c);
}

}  // namespace ordis::server
