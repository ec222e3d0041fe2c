// What a connection's commands see and change: selected db, protocol, auth, MULTI queue, WATCH
// list, reply mode, name; on top of what the I/O layer shares (net/session.h). Owned by one
// connection on one I/O thread.
//
// Thread safety: fields are owned by the connection's thread, except those marked "shared", which
// CLIENT LIST / CLIENT INFO / INFO read from other threads (atomics, relaxed: statistics) and the
// name, which is written and read under ClientRegistry's mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "server/acl/users.h"
#include "server/keyspace/watch_registry.h"
#include "server/net/session.h"

namespace ordis::server {

// CLIENT REPLY: kSkipNext discards the next command's reply; while that command runs the mode is
// kSkipThis, and a command that sets kOn meanwhile (CLIENT REPLY ON, RESET) has its reply sent.
enum class ReplyMode { kOn, kOff, kSkipNext, kSkipThis };

// What a client subscribed to (command/pubsub.h). Changed by the client's own thread under
// PubSub's mutex; read by that thread alone.
struct Subscriptions {
  absl::flat_hash_set<std::string> channels;  // SUBSCRIBE
  std::vector<std::string> patterns;          // PSUBSCRIBE, in order (Redis keeps a list)
  absl::flat_hash_set<std::string> shard;     // SSUBSCRIBE
  // Redis's clientSubscriptionsCount: the count (P)SUBSCRIBE and (P)UNSUBSCRIBE reply with.
  size_t count() const { return channels.size() + patterns.size(); }
  // Subscriber mode (Session::pubsub): anything at all, shard channels included.
  bool any() const { return count() + shard.size() > 0; }
};

// CLIENT TRACKING (command/tracking.h). Changed by the client's own thread under Tracking's mutex
// and read by other threads under it (they deliver invalidations), except `caching`, which only
// the client's thread touches.
struct TrackingState {
  bool on = false;
  bool bcast = false;
  bool optin = false;
  bool optout = false;
  bool noloop = false;
  bool broken_redirect = false;  // the redirect's client was gone at an invalidation
  // CLIENT CACHING YES (OPTIN) / NO (OPTOUT) given: it applies to the next command (or the next
  // transaction), as Redis's CLIENT_TRACKING_CACHING.
  bool caching = false;
  uint64_t redirect = 0;           // 0: none
  std::set<std::string> prefixes;  // BCAST's, in order
};

// CLIENT LIST's tracking letters, in ClientState::tracking_flags.
enum TrackingFlag : uint8_t { kTrackingOn = 1, kTrackingBrokenRedirect = 2, kTrackingBcast = 4 };

struct ClientState : Session {
  bool authenticated = false;  // set at accept when no password is required
  acl::UserRef user;           // the default user until AUTH
  ReplyMode reply_mode = ReplyMode::kOn;

  // MULTI: queued commands as owned copies of their arguments.
  bool in_multi = false;
  bool multi_error = false;  // a command failed to queue: EXEC answers EXECABORT
  std::vector<std::vector<std::string>> queued;

  Subscriptions subscriptions;

  WatchState watch;
  std::vector<std::pair<int, std::string>> watched_keys;
  // Watched keys that were live with a TTL when watched: EXEC aborts if one expired since.
  std::vector<std::pair<int, std::string>> watched_with_ttl;

  std::string name;                   // GUARDED_BY(ClientRegistry::mu_) for cross-thread reads
  std::string user_name = "default";  // GUARDED_BY(ClientRegistry::mu_), as name
  // CLIENT SETINFO LIB-NAME / LIB-VER. GUARDED_BY(ClientRegistry::mu_), as name.
  std::string lib_name;
  std::string lib_ver;

  TrackingState tracking;
  // CLIENT NO-TOUCH ON: the client's reads leave keys' access time and LFU counter alone (TOUCH
  // excepted).
  bool no_touch = false;

  // shared
  std::atomic<int> db{0};
  std::atomic<int> protocol{2};
  std::atomic<int> last_command_id{-1};
  std::atomic<int> multi_count{-1};  // queued commands, -1 outside MULTI (CLIENT LIST "multi=")
  // The queued commands' bytes as Redis counts them (multi-mem=): arguments and a pointer each.
  std::atomic<uint64_t> multi_bytes{0};
  // CLIENT LIST's sub=, psub= and ssub=: the sizes of subscriptions' sets.
  std::atomic<int> sub_count{0};
  std::atomic<int> psub_count{0};
  std::atomic<int> ssub_count{0};
  // MONITOR: the client receives every command (command/monitor.h); CLIENT LIST's flag O.
  std::atomic<bool> monitor{false};
  // CLIENT LIST's t, R and B (TrackingFlag bits) and redir= (-1 when not tracking).
  std::atomic<uint8_t> tracking_flags{0};
  std::atomic<int64_t> tracking_redirect{-1};
};

}  // namespace ordis::server
