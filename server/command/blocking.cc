#include "server/command/blocking.h"

#include <algorithm>

#include "server/command/errors.h"

namespace ordis::server {
namespace {

// Heterogeneous lookup in absl's string maps takes absl::string_view (not std's, in this build).
absl::string_view Key(std::string_view s) { return {s.data(), s.size()}; }

}  // namespace

void BlockedClients::Block(Waiter waiter) {
  std::lock_guard lock(mu_);
  auto entry = std::make_unique<Entry>();
  entry->seq = next_seq_++;
  entry->waiter = std::move(waiter);
  Entry* raw = entry.get();
  Queues& queues = queues_[raw->waiter.db];
  for (const std::string& key : raw->waiter.keys) {
    Queue& queue = queues[key];
    queue.entries.push_back(raw);
    if (raw->waiter.unblock_on_delete) ++queue.unblock_on_delete;
  }
  // A client blocks once at a time: an earlier entry can only be an outcome it never took.
  clients_[raw->waiter.client_id] = std::move(entry);
  count_.fetch_add(1, std::memory_order_relaxed);
  waiting_.store(true, std::memory_order_relaxed);
}

void BlockedClients::MarkReadyLocked(int db, std::string_view key, Queue& queue) {
  if (queue.ready) return;
  queue.ready = true;
  ready_.emplace_back(db, std::string(key));
  has_ready_.store(true, std::memory_order_relaxed);
}

void BlockedClients::KeyChanged(int db, std::string_view key) {
  std::lock_guard lock(mu_);
  auto queues = queues_.find(db);
  if (queues == queues_.end()) return;
  auto it = queues->second.find(Key(key));
  if (it != queues->second.end()) MarkReadyLocked(db, key, it->second);
}

void BlockedClients::DbChanged(int db) {
  std::lock_guard lock(mu_);
  auto queues = queues_.find(db);
  if (queues == queues_.end()) return;
  for (auto& [key, queue] : queues->second) MarkReadyLocked(db, key, queue);
}

bool BlockedClients::TakeReady(std::vector<std::pair<int, std::string>>* keys) {
  std::lock_guard lock(mu_);
  has_ready_.store(false, std::memory_order_relaxed);
  if (ready_.empty()) return false;
  keys->swap(ready_);
  ready_.clear();
  for (const auto& [db, key] : *keys) {
    auto queues = queues_.find(db);
    if (queues == queues_.end()) continue;
    auto it = queues->second.find(Key(key));
    if (it != queues->second.end()) it->second.ready = false;
  }
  return true;
}

std::optional<BlockedClients::Claim> BlockedClients::ClaimNext(int db, std::string_view key,
                                                               std::optional<ObjType> key_type,
                                                               uint64_t* cursor,
                                                               std::vector<Wake>* wake) {
  std::lock_guard lock(mu_);
  for (;;) {  // again after ending a waiter: its queue may have gone with it
    auto queues = queues_.find(db);
    if (queues == queues_.end()) return std::nullopt;
    auto it = queues->second.find(Key(key));
    if (it == queues->second.end()) return std::nullopt;
    Queue& queue = it->second;
    // Without a value to serve anyone, only the waiters of a deleted stream have an end coming.
    if (!key_type.has_value() && queue.unblock_on_delete == 0) return std::nullopt;
    // Entries leave the queue meanwhile (served, timed out): the cursor is a seq, not a position.
    Entry* ended = nullptr;
    for (Entry* entry : queue.entries) {
      if (entry->seq <= *cursor || entry->state != Entry::State::kWaiting) continue;
      *cursor = entry->seq;
      if (key_type == entry->waiter.type) {
        entry->state = Entry::State::kServing;
        return Claim{entry->waiter.client_id, entry->seq, &entry->waiter};
      }
      if (entry->waiter.unblock_on_delete) {
        ended = entry;
        break;
      }
    }
    if (ended == nullptr) return std::nullopt;
    Outcome outcome;
    outcome.kind = Outcome::Kind::kError;
    outcome.error = errors::kUnblockedStreamDeleted;
    wake->push_back({ended->waiter.host, ended->waiter.client_id});
    EndLocked(ended, std::move(outcome));
  }
}

void BlockedClients::EndServe(const Claim& claim, resp::OutBuffer* reply, std::vector<Wake>* wake) {
  std::lock_guard lock(mu_);
  auto it = clients_.find(claim.client_id);
  if (it == clients_.end() || it->second->seq != claim.seq) return;
  Entry* entry = it->second.get();
  if (entry->gone) {  // its connection ended during the run: the reply goes nowhere
    EndLocked(entry, Outcome{});
    clients_.erase(it);
    return;
  }
  if (reply == nullptr && !entry->end_requested) {
    entry->state = Entry::State::kWaiting;
    return;
  }
  Outcome outcome;
  if (reply != nullptr) {
    outcome.kind = Outcome::Kind::kServed;
    reply->MoveTo(&outcome.reply);
  } else {
    outcome.kind = entry->end_error.empty() ? Outcome::Kind::kTimedOut : Outcome::Kind::kError;
    outcome.error = entry->end_error;
  }
  wake->push_back({entry->waiter.host, entry->waiter.client_id});
  EndLocked(entry, std::move(outcome));
}

void BlockedClients::EndLocked(Entry* entry, Outcome outcome) {
  Queues& queues = queues_[entry->waiter.db];
  for (const std::string& key : entry->waiter.keys) {
    auto it = queues.find(key);
    if (it == queues.end()) continue;
    Queue& queue = it->second;
    auto pos = std::find(queue.entries.begin(), queue.entries.end(), entry);
    if (pos != queue.entries.end()) queue.entries.erase(pos);
    if (entry->waiter.unblock_on_delete) --queue.unblock_on_delete;
    if (queue.entries.empty()) queues.erase(it);
  }
  if (queues.empty()) queues_.erase(entry->waiter.db);
  entry->state = Entry::State::kEnded;
  outcome.zero = entry->waiter.timeout_replies_zero;
  entry->outcome = std::move(outcome);
  if (count_.fetch_sub(1, std::memory_order_relaxed) == 1) {
    waiting_.store(false, std::memory_order_relaxed);
  }
}

BlockedClients::Cancel BlockedClients::End(uint64_t client_id, std::string_view error,
                                           ConnectionHost** host) {
  std::lock_guard lock(mu_);
  auto it = clients_.find(client_id);
  if (it == clients_.end()) return Cancel::kNotBlocked;
  Entry* entry = it->second.get();
  if (host != nullptr) *host = entry->waiter.host;
  switch (entry->state) {
    case Entry::State::kWaiting: {
      Outcome outcome;
      outcome.kind = error.empty() ? Outcome::Kind::kTimedOut : Outcome::Kind::kError;
      outcome.error = error;
      EndLocked(entry, std::move(outcome));
      return Cancel::kEnded;
    }
    case Entry::State::kServing:
      if (!entry->end_requested) {
        entry->end_requested = true;
        entry->end_error = error;
      }
      return Cancel::kServing;
    case Entry::State::kEnded:
      break;
  }
  return Cancel::kAlreadyEnded;
}

bool BlockedClients::Unblock(uint64_t client_id, std::string_view error) {
  ConnectionHost* host = nullptr;
  switch (End(client_id, error, &host)) {
    case Cancel::kEnded:
      if (host != nullptr) host->Unblocked(client_id);
      return true;
    case Cancel::kServing:
      return true;  // the run's end nudges it
    default:
      return false;
  }
}

std::optional<BlockedClients::Outcome> BlockedClients::Take(uint64_t client_id) {
  std::lock_guard lock(mu_);
  auto it = clients_.find(client_id);
  if (it == clients_.end() || it->second->state != Entry::State::kEnded) return std::nullopt;
  std::optional<Outcome> outcome(std::move(it->second->outcome));
  clients_.erase(it);
  return outcome;
}

void BlockedClients::Remove(uint64_t client_id) {
  std::lock_guard lock(mu_);
  auto it = clients_.find(client_id);
  if (it == clients_.end()) return;
  Entry* entry = it->second.get();
  if (entry->state == Entry::State::kServing) {
    entry->gone = true;  // the run reads its waiter still; EndServe forgets it
    return;
  }
  if (entry->state == Entry::State::kWaiting) EndLocked(entry, Outcome{});
  clients_.erase(it);
}

}  // namespace ordis::server
