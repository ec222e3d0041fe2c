// DPA-Store's hot-entry cache (../shared/seeds/000, section 3.1.2), per thread, plus the striped
// write stamps that keep every thread's cache coherent with writes made on other threads.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "index/ordered_store.h"

namespace ordis::index {

// XXH3-64 of the key: the one hash both types below take, each from its own bits (hot_cache.cc).
uint64_t HashKey(std::string_view key);

// Cross-thread invalidation: ordis has no key->thread affinity (DPA-Store's clients steer each key
// to one thread), so a write on one thread must invalidate entries that other threads cached.
// Each stripe word: low 16 bits = writers in progress, high 48 bits = a sequence bumped when a
// write begins. A value read under a Stable stamp s is current for as long as Load still returns s.
// Writer: BeginWrite(h); publish the value with a release store; EndWrite(h). Reader: s = Load(h);
// read the value with acquire loads (so a later Load cannot move above them).
//
// Thread safety: every method from any thread.
class WriteStamps {
 public:
  static constexpr size_t kStripes = 4096;  // stripe = the hash's top 12 bits
  // acquire: pairs with EndWrite's release; a Stable result means every write begun before it
  // has ended and its stores are visible to the lookup that follows.
  uint64_t Load(uint64_t hash) const { return Word(hash).load(std::memory_order_acquire); }
  // seq_cst RMW: the bump is ordered before the writer's value store, so a reader that sees the
  // new value and then Loads sees the bump.
  void BeginWrite(uint64_t hash) { Word(hash).fetch_add(1 + (uint64_t{1} << 16)); }
  // release: pairs with Load's acquire.
  void EndWrite(uint64_t hash) { Word(hash).fetch_sub(1, std::memory_order_release); }
  static bool Stable(uint64_t stamp) { return (stamp & 0xffff) == 0; }

 private:
  std::atomic<uint64_t>& Word(uint64_t hash) const { return words_[hash >> 52]; }

  // Packed 8 to a cache line (32 KiB), not one per line (256 KiB): every Get loads a stamp, so the
  // array must stay in L1/L2; the price is that a write costs readers of the 7 neighbouring
  // stripes one coherence miss (but not their cached entries).
  alignas(64) mutable std::atomic<uint64_t> words_[kStripes];
};

// Hot key -> value-handle pairs in buckets of 4 ways, a cache line each. Admission is sampled (the
// paper's choice over counting accesses); eviction takes an empty way, else a random one. A key
// can also be cached as absent: a batch's lookup of a key about to be created answers the
// command's own lookup that follows.
//
// The paper guards the buckets with a Bloom filter. Not here: the whole cache is 2 KiB of bucket
// lines that stay in L1, whose 16-bit tags reject a miss about as cheaply as the filter's bits,
// while a filter must be rebuilt as entries leave, which the lookup batches' forced admissions
// make constant: the rebuilds alone were 3% of the server's CPU on uniform GETs (perf, -P 16).
//
// Thread safety: none; each thread owns its HotCache (the index keeps one thread_local per thread).
class HotCache {
 public:
  // buckets: a power of two, at most 65536. admit_one_in: an offered new key is admitted with
  // probability 1/admit_one_in (1 = always).
  explicit HotCache(size_t buckets = 128, uint32_t admit_one_in = 8);
  ~HotCache();

  // What the cache knows of a key: nothing (ask the index), or the index's answer, the key absent
  // or present with a value.
  enum class Known { kNothing, kAbsent, kPresent };
  // Entries carry the stamp loaded BEFORE the index lookup that produced their answer; a hit needs
  // current_stamp (stamps.Load(hash), read by the caller) to equal it, so it is also Stable.
  // *value is set when kPresent.
  Known Lookup(std::string_view key, uint64_t hash, uint64_t current_stamp, ValueHandle* value);
  // Offers a lookup's answer (nullopt: absent). Ignored unless Stable(stamp_before_lookup). A key
  // already cached is refreshed; a new one is admitted at the sampling rate, or always if force.
  void Offer(std::string_view key, uint64_t hash, std::optional<ValueHandle> value,
             uint64_t stamp_before_lookup, bool force = false);
  void Invalidate(std::string_view key, uint64_t hash);  // a local write: drops the entry
  void Clear();  // drops every entry; the counters keep counting

  uint64_t lookups() const { return lookups_; }
  uint64_t hits() const { return hits_; }
  // True iff key is in its bucket, whatever its stamp.
  bool TEST_InBucket(std::string_view key, uint64_t hash) const;

 private:
  struct Bucket;
  struct KeySlot;

  size_t BucketOf(uint64_t hash) const { return (hash >> 24) & bucket_mask_; }
  int Find(std::string_view key, uint64_t hash, size_t bucket) const;  // the way, or -1

  std::unique_ptr<Bucket[]> buckets_;
  std::unique_ptr<KeySlot[]> keys_;  // keys_[bucket * 4 + way]
  size_t bucket_mask_;
  uint32_t admit_one_in_;
  uint64_t rng_;
  uint64_t lookups_ = 0;
  uint64_t hits_ = 0;
};

}  // namespace ordis::index
