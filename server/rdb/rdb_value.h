// One value in Redis's RDB encoding (rdb.c's rdbSaveObject / rdbLoadObject, Redis 7.0): what DUMP
// and RESTORE carry, what MIGRATE moves and what a dump.rdb holds per key.
//
// Writing picks the type byte Redis 7.0 would for the value as it is now, under the same limits:
// a string as rdbSaveRawString writes it; a list as a quicklist of listpacks split where RPUSH
// would split them; a set as an intset when it would be one; a hash or sorted set as a listpack
// when it would be one, else element by element (a sorted set from its highest score down, as
// Redis does). So a DUMP here is byte-identical to Redis's wherever Redis's own bytes follow from
// the value alone (not for hashes, whose listpack order is Redis's insertion order).
//
// Reading accepts every type Redis 6, 7.0 and 7.2 write (RDB 9 to 11): the element-by-element
// forms, ziplists, intsets, listpacks (7.2's sets too), quicklists of either and streams. Zipmaps
// (Redis < 2.6) and module values are refused. Each value is checked whole (lengths, packed
// containers, duplicates), so corrupt bytes fail without changing anything.
#pragma once

#include <cstdint>
#include <string>

#include "persistence/rdb_payload.h"
#include "server/config/config.h"
#include "server/keyspace/object.h"
#include "server/types/stream_value.h"
#include "server/types/zset_value.h"

namespace ordis::server {

// The compact-form limits (Redis's *-max-listpack-*, set-max-intset-entries).
struct RdbLimits {
  size_t hash_max_listpack_entries = 512;
  size_t hash_max_listpack_value = 64;
  size_t set_max_intset_entries = 512;
  int64_t list_max_listpack_size = -2;
  ZSetLimits zset;
  StreamNodeLimits stream;

  static RdbLimits FromConfig(const Config& config);
};

// Whether Redis would hold the set as an intset, the hash as a listpack (OBJECT ENCODING).
bool SetFitsIntset(const SetValue& set, const RdbLimits& limits);
bool HashFitsListpack(const HashValue& hash, const RdbLimits& limits);

// How Redis would lay a list out in quicklist nodes (DEBUG OBJECT's ql_* fields): nodes, elements
// and the nodes' listpack bytes.
struct QuicklistShape {
  size_t nodes = 0;
  size_t elements = 0;
  size_t bytes = 0;
};
QuicklistShape QuicklistShapeOf(const ListValue& list, const RdbLimits& limits);

// Appends obj's type byte and value. obj must be resident.
void AppendRdbValue(const Object& obj, const RdbLimits& limits, std::string* out);

// A DUMP payload of obj: its value, the RDB version and the checksum.
std::string DumpPayload(const Object& obj, const RdbLimits& limits);

enum class RdbValueStatus {
  kOk,
  kMalformed,    // cut short, bad lengths, a corrupt container, duplicates, a NaN score
  kEmpty,        // a well-formed empty collection: Redis skips such a key when loading a file
  kUnsupported,  // a module value or a zipmap
};

// Reads a value of the given type byte from in into an object with the TTL given (kNoExpire:
// none). On any status but kOk, *obj is null.
RdbValueStatus ReadRdbValue(uint8_t type, persistence::rdb::Reader* in, const RdbLimits& limits,
                            int64_t expire_at_ms, ObjectPtr* obj);

}  // namespace ordis::server
