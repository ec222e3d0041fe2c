// The command layer as the I/O layer sees it (net/command_sink.h): sessions are ClientStates,
// registered for CLIENT LIST / KILL and INFO; each I/O thread runs its commands through a
// Dispatcher of its own.
//
// Thread safety: thread safe (every method acts on the calling thread's session or on thread-safe
// services).
#pragma once

#include <functional>
#include <memory>

#include "server/command/services.h"
#include "server/net/command_sink.h"

namespace ordis::server {

class CommandService : public CommandSink {
 public:
  // cron: thread 0's periodic work (persistence's save rules and the log's fsync), called ten
  // times a second. Active expiry has a thread of its own (server/keyspace/expiry.h).
  CommandService(const Services& services, std::function<void(int64_t now_ms)> cron);

  std::unique_ptr<Session> NewSession() override;
  // Protected mode: with no password for the default user, only local clients are served.
  std::string_view Refusal(const Session& session) override;
  void SessionStarted(Session& session, ConnectionHost* host) override;
  void SessionMoved(Session& session, ConnectionHost* host) override;
  void SessionEnded(Session& session) override;
  std::unique_ptr<CommandRunner> NewRunner(ThreadStats& stats) override;
  void Cron(int64_t now_ms) override;

 private:
  const Services& services_;
  std::function<void(int64_t)> cron_;
};

}  // namespace ordis::server
