// Redis's keyspace notification classes (notify-keyspace-events): the bits, and the letters
// CONFIG SET reads and CONFIG GET writes them as (Redis 7.0's notify.c).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ordis::keyspace_events {

// A command raises an event of one class; it is published when that class is on, to the
// keyspace channel (K), the keyevent channel (E), or both.
enum Class : uint32_t {
  kKeyspace = 1 << 0,  // K: __keyspace@<db>__:<key> <event>
  kKeyevent = 1 << 1,  // E: __keyevent@<db>__:<event> <key>
  kGeneric = 1 << 2,   // g: DEL, EXPIRE, RENAME ...
  kString = 1 << 3,    // $
  kList = 1 << 4,      // l
  kSet = 1 << 5,       // s
  kHash = 1 << 6,      // h
  kZset = 1 << 7,      // z
  kExpired = 1 << 8,   // x: a key deleted because its TTL passed
  kEvicted = 1 << 9,   // e: a key deleted under maxmemory
  kStream = 1 << 10,   // t
  kKeyMiss = 1 << 11,  // m: a read of a missing key (not part of A)
  kModule = 1 << 12,   // d (ordis has no modules)
  kNew = 1 << 13,      // n: a key added (not part of A)
  // A: every class but m and n.
  kAll =
      kGeneric | kString | kList | kSet | kHash | kZset | kExpired | kEvicted | kStream | kModule,
};

// The classes of a notify-keyspace-events value; false on a letter Redis does not know.
bool Parse(std::string_view letters, uint32_t* classes);
// The value CONFIG GET reports, as Redis writes it: "A" for all of A's classes (and then, as in
// Redis, no "n"), else the class letters in Redis's order, then K, E and m.
std::string Text(uint32_t classes);

}  // namespace ordis::keyspace_events
