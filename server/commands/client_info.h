// Client descriptions shared by CLIENT LIST/INFO/KILL and INFO clients.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "server/command/client_registry.h"
#include "server/command/client_state.h"
#include "server/command/command.h"

namespace ordis::server {

class CommandTable;

// The version reported to clients (HELLO, INFO redis_version): the Redis release whose command
// semantics and replies ordis follows. Client libraries gate features on it.
inline constexpr std::string_view kRedisVersion = "7.0.15";
inline constexpr std::string_view kOrdisVersion = "0.1.0";

// Redis accepts names of printable characters without spaces ('!' to '~').
bool ValidClientName(std::string_view name);

// Closes client id: the calling client after this reply, any other on its own thread.
void KillClient(CommandContext& ctx, uint64_t id);
// Closes every client whose user the predicate names (ACL DELUSER, ACL LOAD), as Redis does.
void KillClientsOfUsers(CommandContext& ctx,
                        const std::function<bool(std::string_view user)>& doomed);

// A client type as CLIENT LIST TYPE and CLIENT KILL TYPE name them: "normal", "pubsub" (a
// client subscribed to anything, as Redis's getClientType), or one of "master", "replica"
// ("slave"), which no ordis client is.
enum class ClientType { kNormal, kPubSub, kOther };
// False for a name Redis does not know.
bool ParseClientType(std::string_view name, ClientType* out);
ClientType TypeOf(const ClientState& c);

// CLIENT KILL's filters (new form).
struct ClientFilter {
  uint64_t id = 0;
  std::string addr, laddr, user;
  int64_t max_age_s = -1;
  bool skip_me = true;
  std::optional<ClientType> type;

  bool Matches(const ClientState& c, int64_t now_ms) const;
};

// Parses "<filter> <value> ..." pairs; returns "" or Redis's error text.
std::string ParseClientFilter(std::span<const std::string_view> pairs, ClientFilter* out);

}  // namespace ordis::server
