// Active expiry: Redis's slow cycle, run by thread 0's cron ten times a second.
#pragma once

#include <cstdint>

#include "server/keyspace/keyspace.h"

namespace ordis::server {

// Samples keys with a TTL in every database and deletes the expired ones, repeating while more
// than a quarter of a round's samples were expired, within 25% of the cron period. Takes the
// keyspace's exclusive lock for each round.
void RunActiveExpiry(Keyspace& keyspace, int64_t now_ms);

}  // namespace ordis::server
