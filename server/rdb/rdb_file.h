// Redis's dump.rdb files (rdb.c's layout, RDB 9 to 11: what Redis 6, 7.0 and 7.2 write): loading
// one into the keyspace at start-up, and writing the keyspace as one (tools/ordis-rdb) that
// redis-server 7 loads.
//
//   "REDIS" and a 4-digit version, then records: AUX (two strings), SELECTDB, RESIZEDB, FUNCTION2
//   (a library's code), EXPIRETIME_MS / EXPIRETIME, IDLE / FREQ (before the key they describe),
//   a key (type byte, key string, value: rdb_value.h), and EOF followed by a CRC-64 of
//   everything before it (0: not computed).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "persistence/status.h"
#include "server/keyspace/keyspace.h"
#include "server/rdb/rdb_value.h"

namespace ordis::server {

// Whether the file at path starts as an RDB file does ("REDIS").
bool IsRdbFile(const std::string& path);

struct RdbLoadStats {
  uint64_t keys = 0;     // loaded
  uint64_t expired = 0;  // skipped: already expired at now_ms
  uint64_t empty = 0;    // skipped: empty collections (as Redis skips them)
  int version = 0;
};

// Loads the RDB file at path into keyspace, which must be empty and have no other user (start-up;
// the exclusive lock is taken here), as Redis's rdbLoad does
// on a master: keys already expired are skipped, idle time and frequency are kept. Function
// libraries' code goes to *libraries, for the caller to load. A malformed file, a wrong checksum, a
// module value or a database index past num_dbs is an error naming the problem; keys loaded before
// it stay (the caller refuses to start).
persistence::Status LoadRdbFile(const std::string& path, Keyspace& keyspace, int64_t now_ms,
                                const RdbLimits& limits, bool lfu_policy,
                                std::vector<std::string>* libraries, RdbLoadStats* stats);

// Writes every key of keyspace (shared lock taken here) and the libraries (their code) to path as
// an RDB 10 file, with aux fields as redis-server 7.0 writes them (redis-ver: redis_version).
persistence::Status WriteRdbFile(const std::string& path, Keyspace& keyspace, int64_t now_ms,
                                 const RdbLimits& limits, std::string_view redis_version,
                                 const std::vector<std::string>& libraries);

}  // namespace ordis::server
