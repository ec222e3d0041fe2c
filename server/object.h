// What a key holds. The index maps encoded keys to handles that are Object pointers.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace ordis::server {

// on disk (snapshots, later): never renumber.
enum class ObjType : uint8_t { kString = 0 };

inline constexpr int64_t kNoExpire = -1;
inline constexpr uint32_t kNoTtlSlot = UINT32_MAX;

struct Object {
  ObjType type = ObjType::kString;
  // Logarithmic access counter for OBJECT FREQ (Redis's LFU counter), starts at LFU_INIT_VAL.
  std::atomic<uint8_t> lfu{5};
  // Seconds on the server's LRU clock at the last access, for OBJECT IDLETIME. Readers update it
  // under the shared lock, hence atomic (relaxed: a statistic, orders nothing).
  std::atomic<uint32_t> access_s{0};
  // Position in the database's TtlIndex, kNoTtlSlot when the key has no TTL.
  uint32_t ttl_slot = kNoTtlSlot;
  int64_t expire_at_ms = kNoExpire;  // absolute unix time in ms
  // The string was modified in place (APPEND, SETRANGE): Redis then reports encoding "raw".
  bool raw_encoding = false;
  std::string str;  // kString payload
};

}  // namespace ordis::server
