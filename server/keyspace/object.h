// What a key holds. The index maps encoded keys to handles that are Object pointers.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "server/types/set_value.h"
#include "server/types/zset_value.h"

namespace ordis::server {

// on disk (snapshots, later): never renumber. Same order as Redis's OBJ_* constants.
enum class ObjType : uint8_t { kString = 0, kList = 1, kSet = 2, kZSet = 3, kHash = 4 };

inline constexpr int64_t kNoExpire = -1;

using ListValue = std::deque<std::string>;
// SetValue (server/types/set_value.h): members in a vector, found through a hash index of
// positions.
using HashValue = absl::flat_hash_map<std::string, std::string>;

// ZSetValue (server/types/zset_value.h): a small packed array or a hash index plus a counted
// B+tree.

// Payload of the collection types, allocated only for them so a string key pays 8 bytes for it.
using Collection = std::variant<ListValue, SetValue, HashValue, ZSetValue>;

struct Object {
  ObjType type = ObjType::kString;
  // Logarithmic access counter for OBJECT FREQ (Redis's LFU counter), starts at LFU_INIT_VAL.
  std::atomic<uint8_t> lfu{5};
  // Seconds on the server's LRU clock at the last access, for OBJECT IDLETIME. Readers update it
  // under the shared lock, hence atomic (relaxed: a statistic, orders nothing).
  std::atomic<uint32_t> access_s{0};
  int64_t expire_at_ms = kNoExpire;  // absolute unix time in ms
  // The string was modified in place (APPEND, SETRANGE): Redis then reports encoding "raw".
  bool raw_encoding = false;
  std::string str;                   // kString payload
  std::unique_ptr<Collection> coll;  // payload of every other type

  ListValue& list() { return std::get<ListValue>(*coll); }
  SetValue& set() { return std::get<SetValue>(*coll); }
  HashValue& hash() { return std::get<HashValue>(*coll); }
  ZSetValue& zset() { return std::get<ZSetValue>(*coll); }

  // True iff a collection has no elements left (Redis then deletes the key).
  bool EmptyCollection() const;
};

// A new object of type t with an empty payload.
std::unique_ptr<Object> NewObject(ObjType t);
// A deep copy (COPY): payload, TTL and encoding hints; fresh access statistics.
std::unique_ptr<Object> CloneObject(const Object& obj);
// "string", "list", "set", "zset", "hash" (TYPE, SCAN TYPE).
std::string_view TypeName(ObjType t);

}  // namespace ordis::server
