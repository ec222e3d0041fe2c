// What a command may use besides its client and its reply: the server's shared parts, each thread
// safe on its own. The composition root (server.h) builds one; the in-process family tests build
// another (commands/family_test_support.h).
#pragma once

#include "server/acl/log.h"
#include "server/acl/users.h"
#include "server/command/blocking.h"
#include "server/command/client_pause.h"
#include "server/command/client_registry.h"
#include "server/command/command_table.h"
#include "server/command/durability.h"
#include "server/command/memory_guard.h"
#include "server/command/monitor.h"
#include "server/command/pubsub.h"
#include "server/command/server_control.h"
#include "server/command/slowlog.h"
#include "server/command/tracking.h"
#include "server/config/config.h"
#include "server/keyspace/keyspace.h"
#include "server/keyspace/scan_cursors.h"
#include "server/scripting/function_libraries.h"
#include "server/scripting/running_script.h"
#include "server/scripting/script_cache.h"
#include "server/stats/stats.h"

namespace ordis::server {

// The lazyfree-lazy-* switches the keyspace applies to the server's own deletions; the server
// sets them at start-up and CONFIG SET after every change.
inline LazyFreePolicy LazyFreePolicyOf(const Config& config) {
  return {.eviction = config.lazyfree_lazy_eviction(),
          .expire = config.lazyfree_lazy_expire(),
          .server_del = config.lazyfree_lazy_server_del()};
}

struct Services {
  const CommandTable& commands;
  Config& config;
  Keyspace& keyspace;
  ClientRegistry& clients;
  ScanCursors& scan_cursors;
  ServerStats& stats;
  Durability& durability;
  ServerControl& control;
  acl::Users& users;
  acl::AclLog& acl_log;
  MemoryGuard& memory;
  scripting::ScriptCache& scripts;
  scripting::RunningScript& running_script;
  scripting::FunctionLibraries& functions;
  PubSub& pubsub;
  Tracking& tracking;
  Monitors& monitors;
  ClientPause& pause;
  BlockedClients& blocked;
  SlowLog& slowlog;

  // True iff the default user needs a password (it has none, or it is off): clients then start
  // unauthenticated. Not on the hot path: authenticated clients never ask.
  bool DefaultUserNeedsAuth() const {
    std::shared_ptr<const acl::User> user = users.Find("default");
    return user == nullptr || !user->enabled() || !user->nopass();
  }
  // True iff client must AUTH before commands other than the kNoAuth ones (Redis's authRequired).
  bool NeedsAuth(const ClientState& client) const {
    return !client.authenticated && DefaultUserNeedsAuth();
  }
};

}  // namespace ordis::server
