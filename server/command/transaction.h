// Transaction state changes shared by the transaction commands, RESET and the dispatcher.
#pragma once

#include "server/command/client_state.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server {

// Forgets every key the client watches and clears its dirty flag.
void UnwatchAll(Keyspace& keyspace, ClientState& client);
// Leaves MULTI: drops the queue and the error flag, and unwatches (as EXEC and DISCARD do).
void DiscardTransaction(Keyspace& keyspace, ClientState& client);

}  // namespace ordis::server
