// Hot-entry cache layout. A probe reads one bucket line (tags, stamps and handles of 4 ways), then
// the key bytes of the way whose tag matches. The paper fits 4 pairs of 8-byte keys and values in
// a line; byte-string keys cannot, so they live in a parallel array of 32-byte slots, two to a
// line.
//
// The 64-bit key hash, sliced: bits 24..39 the bucket, 40..54 the tag, 52..63 the WriteStamps
// stripe (which overlaps the tag harmlessly).
//
// Why a hit is current: see WriteStamps. The entry's stamp s was Stable when loaded before the
// value was read, so every write begun before s had ended and its value was visible to that read;
// a hit needs Load to still return s, so no write to the stripe has begun since.
#include "index/hot_cache.h"

#include <xxhash.h>

#include <cassert>
#include <cstring>

namespace ordis::index {

uint64_t HashKey(std::string_view key) { return XXH3_64bits(key.data(), key.size()); }

namespace {

constexpr int kWays = 4;
// A way's word: its stamp (Stable, so its low 16 bits are free), an absent-key flag and a 15-bit
// tag; 0 = empty way.
constexpr uint64_t kTagMask = 0x7fff;
constexpr uint64_t kAbsent = 0x8000;
constexpr uint64_t kStampMask = ~uint64_t{0xffff};

// Never 0, so a way's word is 0 iff it is empty.
uint64_t TagOf(uint64_t hash) {
  uint64_t tag = (hash >> 40) & kTagMask;
  return tag == 0 ? 1 : tag;
}

}  // namespace

// stamp_tag[w]: the way's word (see kTagMask).
struct alignas(64) HotCache::Bucket {
  uint64_t stamp_tag[kWays] = {};
  ValueHandle value[kWays] = {};
};

// A cached key: up to kInline bytes in the slot (most Redis keys), longer ones on the heap; both
// keep a slot at 32 bytes.
struct HotCache::KeySlot {
  static constexpr uint32_t kInline = 24;

  uint32_t size = 0;
  union {
    char inline_bytes[kInline];
    char* heap;
  };

  KeySlot() {}
  ~KeySlot() { Reset(); }

  std::string_view view() const { return {size <= kInline ? inline_bytes : heap, size}; }

  void Assign(std::string_view key) {
    Reset();
    size = static_cast<uint32_t>(key.size());
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

HotCache::Known HotCache::Lookup(std::string_view key, uint64_t hash, uint64_t current_stamp,
                                 ValueHandle* value) {
  ++lookups_;
  size_t bucket = BucketOf(hash);
  int w = Find(key, hash, bucket);
  // An unstable current_stamp has low bits set, so it never equals a stored stamp. A stale entry
  // stays until evicted or refreshed by the Offer that follows this miss.
  if (w < 0) return Known::kNothing;
  const uint64_t word = buckets_[bucket].stamp_tag[w];
  if ((word & kStampMask) != current_stamp) return Known::kNothing;
  ++hits_;
  if (word & kAbsent) return Known::kAbsent;
  *value = buckets_[bucket].value[w];
  return Known::kPresent;
}

void HotCache::Offer(std::string_view key, uint64_t hash, std::optional<ValueHandle> value,
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
    keys_[bucket * kWays + w].Assign(key);
  }
  b.stamp_tag[w] = stamp_before_lookup | (value ? 0 : kAbsent) | TagOf(hash);
  b.value[w] = value.value_or(0);
}

void HotCache::Invalidate(std::string_view key, uint64_t hash) {
  size_t bucket = BucketOf(hash);
  int w = Find(key, hash, bucket);
  if (w < 0) return;
  buckets_[bucket].stamp_tag[w] = 0;
  keys_[bucket * kWays + w].Reset();
}

void HotCache::Clear() {
  for (size_t i = 0; i <= bucket_mask_; ++i) {
    buckets_[i] = Bucket{};
    for (int w = 0; w < kWays; ++w) keys_[i * kWays + w].Reset();
  }
}

bool HotCache::TEST_InBucket(std::string_view key, uint64_t hash) const {
  return Find(key, hash, BucketOf(hash)) >= 0;
}

}  // namespace ordis::index
