// Clients blocked by BLPOP, BZPOPMIN, XREAD BLOCK and the like: who waits on which key, in the
// order they blocked, and what each is answered in the end.
//
// A client blocks inside its command, under the keyspace's exclusive lock, after finding nothing
// to serve it: a write that could serve it comes after it is registered, so no wakeup is lost.
// The keyspace tells this registry of every key it changes (KeyWaiters); a key someone waits on
// becomes ready. After each command the dispatcher, holding the lock, serves the ready keys: it
// runs each waiter's command again for it, first-blocked first, while the key holds a value of
// the type it waits for (Dispatcher::ServeReadyKeys); a run that again finds nothing leaves the
// client waiting. The reply, in the client's protocol, waits here until the client's thread takes
// it (Take); the writer nudges that thread once its log commit is done, so no reply leaves before
// the change it reports is logged.
//
// A waiter's end is decided once, under the mutex: served, timed out, unblocked by CLIENT
// UNBLOCK, its stream deleted, or gone with its connection. A serving run claims the waiter
// first; a timeout or CLIENT UNBLOCK meanwhile yields to the run's reply, if it makes one.
//
// Thread safety: thread safe (one mutex).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "resp/out_buffer.h"
#include "server/command/command.h"
#include "server/keyspace/key_waiters.h"
#include "server/net/connection_host.h"

namespace ordis::server {

class BlockedClients final : public KeyWaiters {
 public:
  struct Waiter {
    uint64_t client_id = 0;
    ConnectionHost* host = nullptr;  // the client's thread: a blocked connection does not move
    int db = 0;
    int protocol = 2;
    std::vector<std::string> args;  // what runs again for it
    std::vector<std::string> keys;  // distinct
    ObjType type = ObjType::kList;
    bool unblock_on_delete = false;
    bool timeout_replies_zero = false;  // BlockRequest's
  };

  // How a waiter ended, for its thread to reply.
  struct Outcome {
    enum class Kind : uint8_t { kServed, kTimedOut, kError };
    Kind kind = Kind::kTimedOut;
    resp::OutBuffer reply;   // kServed: the reply, in the client's protocol
    std::string_view error;  // kError: the error's text
    bool zero = false;       // kTimedOut: the reply is the integer 0 (WAIT), not a null array
  };

  // A client to nudge (ConnectionHost::Unblocked): its outcome waits.
  struct Wake {
    ConnectionHost* host;
    uint64_t client_id;
  };

  BlockedClients() = default;
  BlockedClients(const BlockedClients&) = delete;
  BlockedClients& operator=(const BlockedClients&) = delete;

  // exclusive lock. The client waits on waiter.keys.
  void Block(Waiter waiter);
  // Blocked clients (INFO's blocked_clients).
  size_t size() const { return count_.load(std::memory_order_relaxed); }

  // KeyWaiters (exclusive lock).
  void KeyChanged(int db, std::string_view key) override;
  void DbChanged(int db) override;

  // exclusive lock: the keys made ready since the last call, in the order they became ready;
  // false if none.
  bool TakeReady(std::vector<std::pair<int, std::string>>* keys);
  bool has_ready() const { return has_ready_.load(std::memory_order_relaxed); }

  // A waiter claimed for a serving run: valid until EndServe.
  struct Claim {
    uint64_t client_id;
    uint64_t seq;
    const Waiter* waiter;
  };
  // exclusive lock. The next waiter on (db, key) after *cursor that a value of key_type (nullopt:
  // the key is missing) may serve, claimed; *cursor moves past it. Waiters of a stream that is
  // gone (unblock_on_delete) end on the way with the UNBLOCKED error, appended to *wake.
  std::optional<Claim> ClaimNext(int db, std::string_view key, std::optional<ObjType> key_type,
                                 uint64_t* cursor, std::vector<Wake>* wake);
  // The serving run's end: reply non-null, the client is served with it (appended to *wake);
  // null, it found nothing and waits on, unless a timeout or CLIENT UNBLOCK came meanwhile
  // (then it ends so, appended to *wake).
  void EndServe(const Claim& claim, resp::OutBuffer* reply, std::vector<Wake>* wake);

  // What the client's thread may do about client_id.
  enum class Cancel : uint8_t {
    kNotBlocked,    // no such blocked client
    kEnded,         // ended by this call: its outcome waits, Take it
    kAlreadyEnded,  // ended before: its outcome waits (its nudge is on the way)
    kServing,       // a serving run holds it: the run's end nudges the client
  };
  // A timeout (error empty) or an error (CLIENT UNBLOCK ... ERROR) ends client_id's wait unless
  // it ended already. *host, when given, is set to the client's thread.
  Cancel End(uint64_t client_id, std::string_view error, ConnectionHost** host = nullptr);
  // CLIENT UNBLOCK (under the keyspace's exclusive lock, so no serving run holds the client):
  // End, and the client's thread is nudged. False if client_id was not waiting.
  bool Unblock(uint64_t client_id, std::string_view error);
  // The client's thread: its outcome, if its wait has ended (it is then no longer blocked).
  std::optional<Outcome> Take(uint64_t client_id);
  // The client's connection ends: forgotten, whatever its state.
  void Remove(uint64_t client_id);

 private:
  struct Entry {
    Waiter waiter;
    uint64_t seq;
    enum class State : uint8_t { kWaiting, kServing, kEnded } state = State::kWaiting;
    Outcome outcome;
    // A timeout or CLIENT UNBLOCK during a serving run: how it ends if the run serves nothing.
    bool end_requested = false;
    std::string_view end_error;
    bool gone = false;  // its connection ended during a serving run
  };
  struct Queue {
    std::deque<Entry*> entries;  // by seq
    size_t unblock_on_delete = 0;
    bool ready = false;
  };
  using Queues = absl::flat_hash_map<std::string, Queue>;

  // mu_ held: takes entry off its keys' queues and ends it with outcome; count_ falls.
  void EndLocked(Entry* entry, Outcome outcome);
  void MarkReadyLocked(int db, std::string_view key, Queue& queue);

  mutable std::mutex mu_;
  absl::flat_hash_map<uint64_t, std::unique_ptr<Entry>> clients_;  // GUARDED_BY(mu_)
  absl::flat_hash_map<int, Queues> queues_;                        // GUARDED_BY(mu_): by db
  std::vector<std::pair<int, std::string>> ready_;                 // GUARDED_BY(mu_)
  uint64_t next_seq_ = 1;                                          // GUARDED_BY(mu_)
  std::atomic<bool> has_ready_{false};
  std::atomic<size_t> count_{0};  // waiting or serving
};

}  // namespace ordis::server
