// What the commands that write strings share (the string, bitmap and HyperLogLog families): the
// string at a key for a write, storing a new value, and the proto-max-bulk-len check.
#pragma once

#include <cstdint>
#include <string_view>

#include "server/command/command.h"
#include "server/keyspace/object.h"

namespace ordis::server {

// Writes value at key as a string encoded by rule, with the given TTL (kNoExpire for none).
// `existing` is what the caller's FindForReplace (or FindForWrite) returned for key (nullptr if
// nothing): a resident string there whose block has the new value's size is overwritten in place,
// saving a second index lookup and an allocation. An absolute TTL already in the past deletes the
// key instead (false returned), where Redis stores it expired. The LFU counter carries over to the
// new value, as Redis's dbSetValue keeps it. The caller raises the command's keyspace event.
bool StoreString(CommandContext& ctx, std::string_view key, std::string_view value,
                 int64_t expire_at_ms, Object* existing, StringRule rule = StringRule::kTryInt);

// The string at key for a write command, or nullptr; replies WRONGTYPE and sets *failed when the
// key holds another type. `reads`: the command returns the value it replaces (GETSET, GETDEL,
// GETEX), which Redis looks up as a read: the hit or miss is counted, a miss raises "keymiss".
Object* FindStringForWrite(CommandContext& ctx, std::string_view key, bool* failed,
                           bool reads = false);

// False, after replying Redis's "string exceeds maximum allowed size", when a string of size bytes
// would pass proto-max-bulk-len.
bool WithinBulkLimit(CommandContext& ctx, uint64_t size);

}  // namespace ordis::server
