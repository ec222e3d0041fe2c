// The CLIENT subcommands and MONITOR of client-side caching, monitoring and pausing (rows in
// connection_family.cc): MONITOR, CLIENT TRACKING | CACHING | GETREDIR | TRACKINGINFO | PAUSE |
// UNPAUSE, and Redis 7.2's CLIENT SETINFO | NO-TOUCH.
#pragma once

#include "server/command/command.h"

namespace ordis::server {

void CmdMonitor(CommandContext& ctx);
void CmdClientTracking(CommandContext& ctx);
void CmdClientCaching(CommandContext& ctx);
void CmdClientGetRedir(CommandContext& ctx);
void CmdClientTrackingInfo(CommandContext& ctx);
void CmdClientPause(CommandContext& ctx);
void CmdClientUnpause(CommandContext& ctx);
void CmdClientSetInfo(CommandContext& ctx);
void CmdClientNoTouch(CommandContext& ctx);

}  // namespace ordis::server
