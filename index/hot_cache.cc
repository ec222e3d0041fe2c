// Hot-entry cache layout. A probe reads the Bloom filter (in the object), then one bucket line
// (tags, stamps and handles of 4 ways), then the key bytes of the way whose tag matches. The paper
// fits 4 pairs of 8-byte keys and values in a line; byte-string keys cannot, so they live in a
// parallel array of 32-byte slots, two to a line.
//
// The 64-bit key hash, sliced: bits 0..23 the three Bloom bit indices, 24..39 the bucket, 40..55
// the tag, 52..63 the WriteStamps stripe (which overlaps the tag harmlessly).
//
// Why a hit is current: see WriteStamps. The entry's stamp s was Stable when loaded before the
// value was read, so every write begun before s had ended and its value was visible to that read;
// a hit needs Load to still return s, so no write to the stripe has begun since.
//
// Bloom false positives: 256 bits with 3 hashes over the 128 default entries answer "maybe" for
// about 47% of absent keys (31% at the paper's 96); each costs one bucket probe, all in L1.
#include "index/hot_cache.h"

#include <xxhash.h>

#include <cassert>
#include <cstring>

namespace ordis::index {

uint64_t HashKey(std::string_view key) { return XXH3_64bits(key.data(), key.size()); }

namespace {

constexpr int kWays = 4;
constexpr uint64_t kTagMask = 0xffff;

// Removals (evictions, invalidations) tolerated before the Bloom filter is rebuilt from the live
// entries. Until then their bits only add false positives (each costs a bucket probe); rebuilding
// on every removal would scan all 128 entries per eviction.
constexpr uint32_t kRebuildAfterRemovals = 8;

// Never 0, so a way's word is 0 iff it is empty.
uint64_t TagOf(uint64_t hash) {
  uint64_t tag = (hash >> 40) & kTagMask;
  return tag == 0 ? 1 : tag;
}

// The three Bloom bit indices are bytes 0, 1 and 2 of the hash.
void BloomAdd(uint64_t* bloom, uint64_t hash) {
  for (int i = 0; i < 3; ++i) {
    unsigned bit = (hash >> (8 * i)) & 0xff;
    bloom[bit >> 6] |= uint64_t{1} << (bit & 63);
  }
}

bool BloomMayContain(const uint64_t* bloom, uint64_t hash) {
  for (int i = 0; i < 3; ++i) {
    unsigned bit = (hash >> (8 * i)) & 0xff;
    if ((bloom[bit >> 6] & (uint64_t{1} << (bit & 63))) == 0) return false;
  }
  return true;
}

}  // namespace

// stamp_tag[w]: the way's stamp (Stable, so its low 16 bits are free) | its tag; 0 = empty way.
struct alignas(64) HotCache::Bucket {
  uint64_t stamp_tag[kWays] = {};
  ValueHandle value[kWays] = {};
};

// A cached key: up to kInline bytes in the slot (most Redis keys), longer ones on the heap; both
// keep a slot at 32 bytes. bloom_hash keeps the hash's Bloom bytes for rebuilds without rehashing.
struct HotCache::KeySlot {
  static constexpr uint32_t kInline = 24;

  uint32_t size = 0;
  uint32_t bloom_hash = 0;
  union {
    char inline_bytes[kInline];
    char* heap;
  };

  KeySlot() {}
  ~KeySlot() { Reset(); }

  std::string_view view() const { return {size <= kInline ? inline_bytes : heap, size}; }

  void Assign(std::string_view key, uint64_t hash) {
    Reset();
    size = static_cast<uint32_t>(key.size());
    bloom_hash = static_cast<uint32_t>(hash);
    char* dst = size <= kInline ? inline_bytes : (heap = new char[size]);
    if (size > 0) std::memcpy(dst, key.data(), size);
  }

  void Reset() {
    if (size > kInline) delete[] heap;
    size = 0;
  }
};

HotCache::HotCache(size_t buckets, uint32_t admit_one_in)
    : buckets_(new Bucket[buckets]),
      keys_(new KeySlot[buckets * kWays]),
      bucket_mask_(buckets - 1),
      admit_one_in_(admit_one_in == 0 ? 1 : admit_one_in),
      rng_(reinterpret_cast<uintptr_t>(this)) {
  static_assert(sizeof(Bucket) == 64 && sizeof(KeySlot) == 32);
  assert(buckets > 0 && (buckets & (buckets - 1)) == 0 && buckets <= 65536);
}

HotCache::~HotCache() = default;

int HotCache::Find(std::string_view key, uint64_t hash, size_t bucket) const {
  const Bucket& b = buckets_[bucket];
  const KeySlot* keys = &keys_[bucket * kWays];
  uint64_t tag = TagOf(hash);
  for (int w = 0; w < kWays; ++w) {
    if ((b.stamp_tag[w] & kTagMask) == tag && keys[w].view() == key) return w;
  }
  return -1;
}

std::optional<ValueHandle> HotCache::Lookup(std::string_view key, uint64_t hash,
                                            uint64_t current_stamp) {
  ++lookups_;
  if (!BloomMayContain(bloom_, hash)) return std::nullopt;
  size_t bucket = BucketOf(hash);
  int w = Find(key, hash, bucket);
  // An unstable current_stamp has low bits set, so it never equals a stored stamp. A stale entry
  // stays until evicted or refreshed by the Offer that follows this miss.
  if (w < 0 || (buckets_[bucket].stamp_tag[w] & ~kTagMask) != current_stamp) return std::nullopt;
  ++hits_;
  return buckets_[bucket].value[w];
}

void HotCache::Offer(std::string_view key, uint64_t hash, ValueHandle value,
                     uint64_t stamp_before_lookup, bool force) {
  if (!WriteStamps::Stable(stamp_before_lookup)) return;  // the value read may be mid-write
  size_t bucket = BucketOf(hash);
  Bucket& b = buckets_[bucket];
  int w = Find(key, hash, bucket);
  if (w < 0) {
    // splitmix64: the sampling coin and the victim way.
    uint64_t r = rng_ += 0x9e3779b97f4a7c15;
    r = (r ^ (r >> 30)) * 0xbf58476d1ce4e5b9;
    r = (r ^ (r >> 27)) * 0x94d049bb133111eb;
    r ^= r >> 31;
    if (!force && ((r & 0xffffffff) * admit_one_in_) >> 32 != 0) return;
    w = static_cast<int>(r >> 62);
    for (int e = 0; e < kWays; ++e) {
      if (b.stamp_tag[e] == 0) {
        w = e;
        break;
      }
    }
    keys_[bucket * kWays + w].Assign(key, hash);
    BloomAdd(bloom_, hash);
    if (b.stamp_tag[w] != 0) Removed();  // the evicted key's bits stay until the next rebuild
  }
  b.stamp_tag[w] = stamp_before_lookup | TagOf(hash);
  b.value[w] = value;
}

void HotCache::Invalidate(std::string_view key, uint64_t hash) {
  if (!BloomMayContain(bloom_, hash)) return;
  size_t bucket = BucketOf(hash);
  int w = Find(key, hash, bucket);
  if (w < 0) return;
  buckets_[bucket].stamp_tag[w] = 0;
  keys_[bucket * kWays + w].Reset();
  Removed();
}

void HotCache::Removed() {
  if (++removed_since_rebuild_ < kRebuildAfterRemovals) return;
  removed_since_rebuild_ = 0;
  std::memset(bloom_, 0, sizeof(bloom_));
  for (size_t i = 0; i <= bucket_mask_; ++i) {
    for (int w = 0; w < kWays; ++w) {
      if (buckets_[i].stamp_tag[w] != 0) BloomAdd(bloom_, keys_[i * kWays + w].bloom_hash);
    }
  }
}

void HotCache::Clear() {
  for (size_t i = 0; i <= bucket_mask_; ++i) {
    buckets_[i] = Bucket{};
    for (int w = 0; w < kWays; ++w) keys_[i * kWays + w].Reset();
  }
  std::memset(bloom_, 0, sizeof(bloom_));
  removed_since_rebuild_ = 0;
}

bool HotCache::TEST_InBucket(std::string_view key, uint64_t hash) const {
  return Find(key, hash, BucketOf(hash)) >= 0;
}

}  // namespace ordis::index
