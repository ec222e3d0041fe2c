// Redis's maxmemory policies: which key goes when memory is over the limit, and the access
// statistics they rank keys by (the same bits OBJECT IDLETIME and OBJECT FREQ report).
//
// As Redis's: a pool of the best candidates seen so far survives between evictions; each
// eviction samples `maxmemory-samples` keys of every database (every key, or only keys with a
// TTL for the volatile policies) into the pool, then deletes the pool's best candidate that still
// exists. The pool makes a few samples per eviction approximate true LRU/LFU closely. Unlike
// Redis, evictions come in bursts (Evictor::Evict).
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
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
  // What happens to the keys the policy ranks first: deleted, or (with a cold tier) their values
  // demoted, the keys staying. Demotion ranks by LFU under an LFU policy, else by LRU, over every
  // key whose value is demotable (ColdTier::Demotable).
  enum class Action { kDelete, kDemote };
  explicit Evictor(Action action = Action::kDelete) : action_(action) {}

  // exclusive keyspace lock. Deletes (or demotes) keys in the order the policy ranks those sampled
  // (and pooled by earlier calls) while `more` says so, asked after each key that went; returns how
  // many went. Stops early when no key may go (noeviction, or a volatile policy with no key with a
  // TTL left). Keys are sampled and deleted in bursts: the samples of a burst descend the index
  // together, so one burst costs about one sample's cache misses, and the policy's ranking
  // differs from Redis's one-at-a-time only in when candidates are drawn, not in how many.
  size_t Evict(Keyspace& keyspace, const EvictionOptions& options, int64_t now_ms,
               absl::FunctionRef<bool()> more);

 private:
  static constexpr size_t kPoolSize = 16;  // Redis's EVPOOL_SIZE: what survives between bursts
  static constexpr int kBurst = 16;        // evictions per burst, each with its own samples
  // A burst's samples come in runs of neighbours, a descent each: 4 runs of 4 x
  // maxmemory-samples keys, not 16 of one, sample as many keys (SET at maxmemory: 3.32 vs 3.46
  // us of CPU per request) with the Zipf hit rate unchanged within a point.
  static constexpr int kRunsPerBurst = 4;
  // Demotion looks for resident values among keys that are mostly cold: a burst takes as many
  // more runs as there are keys per resident one (at most kMaxSpread times), so that it meets
  // about as many candidates as an eviction's burst. With the runs of an eviction, a tier holding
  // 88% of the values met two resident ones per burst of 16 demotions, the pool ran dry and the
  // values demoted were nearly any resident ones, hot ones too (1M keys of 512 bytes under
  // 128 MB, 90% of GETs on 10% of them: after 1.4M GETs 23% of them still read the disk with
  // the tier's doorkeeper sized, 10% with the runs spread too, 69% with only the runs spread).
  static constexpr uint64_t kMaxSpread = 16;
  int spread_ = 1;  // this call's: 1 for evictions
  // Plain bytes, so that keeping the pool in order moves a few hundred bytes, not strings (with
  // std::string keys, the moves of insertions and erasures were most of a pooled sample's cost).
  struct Candidate {
    uint64_t score;   // higher goes first
    size_t key_hash;  // tells most different keys apart without comparing them
    int db;
    uint32_t slot;  // its key: keys_[slot]
  };

  // A key buffer for a new candidate: a free one (its capacity kept), else a new one.
  uint32_t TakeSlot();
  std::string_view Key(const Candidate& c) const { return keys_[c.slot]; }
  // Samples a burst's worth of db's keys into the pool: maxmemory-samples per eviction.
  void Fill(Keyspace& keyspace, const EvictionOptions& options, int db, int64_t now_ms);
  uint64_t Score(const EvictionOptions& options, const Object& obj, int64_t now_ms) const;
  // Random policies: one burst of keys picked at random from the next database in turn.
  size_t EvictRandom(Keyspace& keyspace, bool with_ttl, absl::FunctionRef<bool()> more,
                     bool* stopped);
  // Deletes victims_ in order until `more` says stop; the rest go back to the pool when
  // `repool`. *stopped tells whether `more` stopped it. A victim the index could erase only
  // after rebuilding its leaf is passed over and dropped, unless the burst would otherwise evict
  // nothing.
  size_t EvictVictims(Keyspace& keyspace, bool with_ttl, bool repool,
                      absl::FunctionRef<bool()> more, bool* stopped);

  std::vector<Candidate> pool_;     // ascending score: the best candidate is last
  std::vector<Candidate> victims_;  // a burst's, best first
  std::vector<bool> passed_over_;   // victims_'s that were busy (Keyspace::Evict)
  std::vector<std::string> keys_;   // the keys of the pool's and victims' candidates, by slot
  std::vector<uint32_t> free_slots_;
  const Action action_;
  int next_db_ = 0;  // the random policies take databases in turn, as Redis
  std::mt19937_64 rng_{0x65766963};
};

}  // namespace ordis::server
