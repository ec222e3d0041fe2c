// Redis's maxmemory policies: which key goes when memory is over the limit, and the access
// statistics they rank keys by (the same bits OBJECT IDLETIME and OBJECT FREQ report).
//
// As Redis's: a pool of the best candidates seen so far survives between evictions; each
// eviction samples `maxmemory-samples` keys of every database (every key, or only keys with a
// TTL for the volatile policies) into the pool, then deletes the pool's best candidate that still
// exists. The pool makes a few samples per eviction approximate true LRU/LFU closely.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "server/keyspace/keyspace.h"
#include "server/keyspace/object.h"

namespace ordis::server {

enum class EvictionPolicy : uint8_t {
  kNoEviction,
  kAllKeysLru,
  kAllKeysLfu,
  kAllKeysRandom,
  kVolatileLru,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
};

// Redis's names: "noeviction", "allkeys-lru", ... nullopt for another name.
std::optional<EvictionPolicy> ParseEvictionPolicy(std::string_view name);
inline bool IsLfu(EvictionPolicy p) {
  return p == EvictionPolicy::kAllKeysLfu || p == EvictionPolicy::kVolatileLfu;
}

// Seconds, the resolution of Object::access_s (Redis's LRU clock ticks every 1000 ms too).
inline uint32_t LruClockS(int64_t now_ms) { return static_cast<uint32_t>(now_ms / 1000); }

// Redis's logarithmic 8-bit access counter: a new key starts at kLfuInit (object.h); an access
// increments with probability 1 / ((counter - kLfuInit) * log_factor + 1); every `decay_minutes`
// without access take one off (the decay counts from the last access, Object::access_s).
uint8_t LfuDecayed(const Object& obj, int64_t now_ms, int decay_minutes);
// Records an access for LFU: decays the counter, then increments it by chance. `uniform` is a
// random number in [0, 1).
void LfuAccess(Object* obj, int64_t now_ms, int log_factor, int decay_minutes, double uniform);

struct EvictionOptions {
  EvictionPolicy policy = EvictionPolicy::kNoEviction;
  int samples = 5;            // maxmemory-samples
  int lfu_decay_minutes = 1;  // lfu-decay-time
};

class Evictor {
 public:
  // exclusive keyspace lock. Deletes the key the policy ranks first among those sampled (and
  // pooled by earlier calls); false when no key may go (noeviction, or a volatile policy with no
  // key with a TTL left). *db and *key say which key went.
  bool EvictOne(Keyspace& keyspace, const EvictionOptions& options, int64_t now_ms, int* db,
                std::string* key);

 private:
  static constexpr size_t kPoolSize = 16;  // Redis's EVPOOL_SIZE
  struct Candidate {
    uint64_t score;  // higher goes first
    int db;
    std::string key;
  };

  // Samples db's keys into the pool.
  void Fill(Keyspace& keyspace, const EvictionOptions& options, int db, int64_t now_ms);
  uint64_t Score(const EvictionOptions& options, const Object& obj, int64_t now_ms) const;

  std::vector<Candidate> pool_;   // ascending score: the best candidate is last
  std::vector<Candidate> spare_;  // entries dropped from the pool keep their key buffers here
  int next_db_ = 0;               // the random policies take databases in turn, as Redis
  std::mt19937_64 rng_{0x65766963};
};

}  // namespace ordis::server
