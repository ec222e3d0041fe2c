// The payload of a persisted key: an Object's value as bytes, one encoding per type, read back into
// an equal Object. Snapshots (persistence/snapshot_file.h) carry it next to the key, the type and
// the absolute expire time, which stay outside the payload.
//
// Encodings (varint = LEB128, string = varint length + bytes):
//   string  the bytes themselves
//   list    varint count, then each element as a string, head first
//   set     varint count, then each member as a string
//   hash    varint count, then field and value strings
//   zset    varint count, then member string and 8-byte IEEE score (little-endian), ascending
//   stream  last ID, max deleted ID (IDs as varint ms, varint seq), varint entries added, the
//           entry blocks (StreamValue::EncodeBlocks: count, then each block's first and last ID,
//           listpack size, where its entries start, and its bytes), varint group count, then per
//           group: name, last delivered ID, varint entries read + 1 (0: unknown), varint consumer
//           count, then per consumer: name, varint seen time, varint pending count, then each
//           pending entry's ID, varint delivery time and varint delivery count
// Decode checks every length against the bytes left, so a payload that passed its block checksum
// but was written by a buggy or foreign writer still fails cleanly.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "server/keyspace/object.h"
#include "server/types/zset_value.h"

namespace ordis::server {

// Appends obj's value to *out.
void EncodeObject(const Object& obj, std::string* out);
// An object of type t from payload with the TTL given (kNoExpire: none), or nullptr if payload is
// malformed or t unknown. A string is encoded as Redis encodes one it loads (tryObjectEncoding:
// int, embstr or raw by its bytes); sorted sets are built under limits (the small or large form,
// as a fresh ZADD would choose).
ObjectPtr DecodeObject(uint8_t type, std::string_view payload, const ZSetLimits& limits,
                       int64_t expire_at_ms = kNoExpire);

}  // namespace ordis::server
