// Streams in Redis's RDB encoding; rdb_value.h's dispatch for the stream types. Internal to
// server/rdb.
#pragma once

#include <cstdint>
#include <string>

#include "persistence/rdb_payload.h"
#include "server/keyspace/object.h"
#include "server/rdb/rdb_value.h"
#include "server/types/stream_value.h"

namespace ordis::server {

// Appends the type byte (version 2) and the stream, its nodes as the blocks hold them.
void AppendRdbStream(const StreamValue& stream, std::string* out);

// Reads a stream of type 15, 19 or 21. Its blocks are rebuilt under limits, deleted entries kept in
// place, so under the same limits as the writer's they are the payload's nodes.
RdbValueStatus ReadRdbStream(uint8_t type, persistence::rdb::Reader* in,
                             const StreamNodeLimits& limits, int64_t expire_at_ms, ObjectPtr* obj);

}  // namespace ordis::server
