// Client-side caching (CLIENT TRACKING), as Redis 7.0 does it.
//
// Default mode: the keys a tracking client reads (the key arguments of its read-only commands,
// including those a script of it runs) are remembered in one table, key -> client ids, keys named
// without their database as in Redis. A change to a remembered key (KeyChanged, which the keyspace
// reports for every write, TTL change, deletion, expiry and eviction) sends each of its clients an
// invalidation and forgets the key. BCAST mode: a client registers prefixes instead ("" when none),
// and every change to a key under a prefix is queued for it; the queue goes out as one message per
// prefix (the keys in order, once each) at the end of a loop turn (BroadcastPending), as Redis
// sends it in beforeSleep. A flush (FLUSHDB, FLUSHALL) sends every tracking client a null
// invalidation and forgets every key.
//
// An invalidation goes to the client in RESP3 (a push: invalidate [keys] or invalidate nil), or,
// with REDIRECT, to the redirect's client: as a push if it speaks RESP3, as a message of the
// __redis__:invalidate channel if it is a RESP2 subscriber (of any channel), and not at all
// otherwise; a redirect whose client is gone marks the tracking client broken (and tells a RESP3
// one so). Messages go through each receiver's outbox (net/push_outbox.h), so a writer never waits
// for a reader; the invalidations a command causes to its own client go after its reply
// (Running), as from Redis 7.0. NOLOOP leaves out the changes the client made itself.
//
// Thread safety: thread safe. One mutex guards the table, the prefixes and every client's
// TrackingState (but its `caching`), so a key read on one I/O thread and written on another is
// invalidated whichever comes first: the read remembers its keys under the keyspace lock it read
// them under, and the keyspace reports a write under its exclusive lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "resp/writer.h"
#include "server/command/client_registry.h"
#include "server/command/client_state.h"
#include "server/config/config.h"
#include "server/keyspace/key_tracker.h"

namespace ordis::server {

// CLIENT TRACKING ON's options.
struct TrackingOptions {
  uint64_t redirect = 0;
  bool bcast = false;
  bool optin = false;
  bool optout = false;
  bool noloop = false;
  std::vector<std::string_view> prefixes;
};

class Tracking final : public KeyChangeListener {
 public:
  // tracker: the keyspace's, turned on while something may need invalidating.
  Tracking(const Config& config, ClientRegistry& clients, KeyTracker& tracker)
      : config_(config), clients_(clients), tracker_(tracker) {}
  Tracking(const Tracking&) = delete;
  Tracking& operator=(const Tracking&) = delete;

  // CLIENT TRACKING ON: "" once client tracks with options, or the error to reply (Redis's
  // checks, in its order). Options replace the previous ones; prefixes add to them.
  std::string Enable(ClientState& client, const TrackingOptions& options);
  // CLIENT TRACKING OFF, RESET and the connection's end. The keys the client read stay
  // remembered until they change (as in Redis), but reach it no more.
  void Disable(ClientState& client);

  // After a read-only command (not a pub/sub one) of caller or of a script caller runs, under the
  // keyspace lock it ran under: remembers its keys for caller if caller tracks in default mode
  // and OPTIN/OPTOUT with CLIENT CACHING allow it.
  void Remember(ClientState& caller, std::span<const std::string_view> args,
                std::span<const size_t> key_positions);
  // Whether Remember may do anything for client (its caller skips finding the keys otherwise).
  static bool Remembers(const ClientState& client) {
    const TrackingState& t = client.tracking;
    return t.on && !t.bcast && !(t.optin && !t.caching) && !(t.optout && t.caching);
  }

  // KeyChangeListener: under the keyspace's exclusive lock.
  void KeyChanged(std::string_view key) override;
  void KeysFlushed() override;

  // The end of a loop turn (and thread 0's cron, for changes made off the I/O threads): sends
  // the BCAST invalidations queued since the last call.
  void BroadcastPending();

  // While client's command runs on this thread (a top-level command: EXEC and scripts count as
  // one): its own changes are left out for NOLOOP, and the invalidations it causes to itself
  // go to out after its reply, when Running ends.
  class Running {
   public:
    Running(Tracking& tracking, ClientState& client, resp::Writer& out);
    ~Running();
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;

   private:
    Tracking& tracking_;
    ClientState& client_;
    resp::Writer& out_;
  };

  // INFO: clients tracking, keys remembered, (key, client) pairs, BCAST prefixes.
  size_t tracking_clients() const { return clients_on_.load(std::memory_order_relaxed); }
  size_t total_keys() const;
  size_t total_items() const;
  size_t total_prefixes() const;

 private:
  struct Prefix {
    std::vector<ClientState*> clients;  // in registration order
    // Keys changed since the last broadcast -> the client that changed it last (0: none).
    std::map<std::string, uint64_t, std::less<>> keys;
  };

  // REQUIRES(mu_). One invalidation for client: payload is the message's value (an array of keys
  // or a null), already in RESP.
  void Send(ClientState& client, std::string_view payload);
  // REQUIRES(mu_). Appends frame to c's outbox and nudges its thread.
  void Deliver(ClientState& c, std::string_view frame);
  // REQUIRES(mu_). Turns the keyspace's reports on iff anything may need invalidating.
  void UpdateActive();
  // REQUIRES(mu_). The client's flags for CLIENT LIST.
  static void PublishFlags(ClientState& client);
  // The self-invalidations of Running's command, sent after its reply.
  void FinishRunning(ClientState& client, resp::Writer& out);

  const Config& config_;
  ClientRegistry& clients_;
  KeyTracker& tracker_;
  std::atomic<size_t> clients_on_{0};
  // Set when BCAST keys are queued; BroadcastPending's cheap check.
  std::atomic<bool> broadcast_pending_{false};

  mutable std::mutex mu_;
  // key -> ids of the clients that read it (a client that stopped tracking stays until the key
  // changes, as in Redis).
  absl::flat_hash_map<std::string, absl::flat_hash_set<uint64_t>> table_;  // GUARDED_BY(mu_)
  size_t items_ = 0;                                                       // GUARDED_BY(mu_)
  absl::flat_hash_map<uint64_t, ClientState*> on_;                         // GUARDED_BY(mu_)
  std::map<std::string, Prefix, std::less<>> prefixes_;                    // GUARDED_BY(mu_)
  std::string frame_;                                                      // GUARDED_BY(mu_)
  // FinishRunning's client, whose messages go to self_out_ rather than its outbox.
  ClientState* self_client_ = nullptr;   // GUARDED_BY(mu_)
  resp::OutBuffer* self_out_ = nullptr;  // GUARDED_BY(mu_)
};

}  // namespace ordis::server
