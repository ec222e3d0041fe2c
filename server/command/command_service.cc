#include "server/command/command_service.h"

#include "server/command/client_state.h"
#include "server/command/dispatcher.h"
#include "server/command/errors.h"
#include "server/command/transaction.h"

namespace ordis::server {

CommandService::CommandService(const Services& services, std::function<void(int64_t)> cron)
    : services_(services), cron_(std::move(cron)) {}

std::unique_ptr<Session> CommandService::NewSession() {
  auto client = std::make_unique<ClientState>();
  // As Redis: the default user has no password when none is required, so a client accepted then
  // stays authenticated even if requirepass is set later.
  client->user = services_.users.DefaultUser();
  client->authenticated = !services_.DefaultUserNeedsAuth();
  return client;
}

std::string_view CommandService::Refusal(const Session& session) {
  if (session.local || services_.DefaultUserNeedsAuth()) return "";
  if (services_.config.Value("protected-mode") != "yes") return "";
  return errors::kProtectedModeDenied;
}

void CommandService::SessionStarted(Session& session, ConnectionHost* host) {
  session.pushes.SetHost(host);
  services_.clients.Add(static_cast<ClientState*>(&session), host);
}

void CommandService::SessionMoved(Session& session, ConnectionHost* host) {
  session.pushes.SetHost(host);
  services_.clients.SetHost(session.id, host);
}

void CommandService::SessionEnded(Session& session) {
  ClientState& client = static_cast<ClientState&>(session);
  services_.pubsub.UnsubscribeAll(client, nullptr);  // no message reaches it after this
  services_.monitors.Remove(client);
  services_.tracking.Disable(client);
  services_.clients.Remove(session.id);
  if (client.blocked.load(std::memory_order_relaxed)) services_.blocked.Remove(session.id);
  UnwatchAll(services_.keyspace, client);
}

std::unique_ptr<CommandRunner> CommandService::NewRunner(ThreadStats& stats) {
  return std::make_unique<Dispatcher>(services_, stats);
}

void CommandService::Cron(int64_t now_ms) {
  services_.memory.NotePeak();
  cron_(now_ms);
}

}  // namespace ordis::server
