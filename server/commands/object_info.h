// What OBJECT and DEBUG OBJECT report of a value: its encoding's name as Redis 7.0 gives it, its
// reference count, and Redis's type code.
#pragma once

#include <cstdint>
#include <string_view>

#include "server/config/config.h"
#include "server/keyspace/object.h"

namespace ordis::server {

// Redis 7.0's encoding names. A string's is the encoding it is held in, chosen as Redis chooses
// (server/keyspace/object.h). A collection has one representation per type here, and the name is
// the one Redis would choose for the value as it is now (Redis never converts back to the compact
// form; this does).
std::string_view EncodingName(const Object& obj, const Config& config);

// OBJECT REFCOUNT: ordis shares no values between keys, so every value has one reference.
inline int64_t ObjectRefcount(const Object&) { return 1; }

// Redis's OBJ_* type codes (DEBUG DIGEST hashes them): string 0, list 1, set 2, zset 3, hash 4,
// stream 6.
int RedisTypeCode(ObjType type);

}  // namespace ordis::server
