// A leaf's insert buffer (DPA-Store section 3.1): writes to a leaf append here, readers search it
// newest-first before the leaf, and the writer that fills the last slot posts the leaf to the
// patchers, which merge buffer and leaf into new leaves.
//
// Two counters: a writer reserves a slot with `reserved`, waits until `published` reaches it (so
// writes to one leaf take effect in slot order and same-key writes never reorder), writes its
// entry and publishes it by advancing `published`. Readers read only slots below `published`.
// A patcher that must replace the leaf before its buffer fills (a merge) seals it: it moves
// `reserved` to `capacity` itself, so later writers find the buffer full and wait for the leaf's
// replacement, and merges the entries below where `reserved` stood.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>

#include "index/ordered_store.h"
#include "index/prefetch.h"

namespace ordis::index::learned {

struct BufferEntry {
  uint64_t version;  // global write version: scans at an older read version skip it
  uint64_t head;     // the key's model key in its leaf: sorts entries mostly without memcmp
  ValueHandle value;
  const char* key;
  uint32_t len;
  bool erase;  // a delete marker: hides the key in the leaf
  bool added;  // a write of a key that is not among the leaf's own keys (only buffers hold it)

  std::string_view Key() const { return {key, len}; }
};

struct InsertBuffer {
  std::atomic<uint32_t> reserved{0};
  std::atomic<uint32_t> published{0};
  uint32_t capacity = 0;
  // Keys the published entries added to the leaf minus those they removed: the leaf's live keys
  // are its n plus this. Relaxed: it only decides when a thinned leaf asks to be merged.
  std::atomic<int32_t> live_delta{0};
  std::atomic<bool> merge_posted{false};  // a writer asked the patchers to merge the thinned leaf
  // The idle sweep's marks, touched only by the sweeping patcher: `published` as its last visit
  // found it, and the time (steady clock, ms) of the visit that first saw that count.
  uint32_t swept_published = 0;
  uint32_t swept_ms = 0;
  // Key bytes of the entries: a bump arena sized for typical keys; longer ones get their own
  // allocation. Written only by the writer holding the publish turn; a batch about to write reads
  // arena_used to load ahead where its key goes.
  uint32_t arena_size = 0;
  std::atomic<uint32_t> arena_used{0};
  char* arena = nullptr;
  // Low 32 bits of each entry's key hash, apart from the entries: a lookup scans these 4-byte
  // tags (two cache lines for 32 slots) and reads an entry only on a match.
  uint32_t* tags = nullptr;
  BufferEntry entries[];

  static constexpr uint32_t kArenaBytesPerSlot = 32;

  // The allocation of a buffer of `capacity` slots (keys too long for the arena come apart).
  static size_t BytesFor(uint32_t capacity) {
    return sizeof(InsertBuffer) + capacity * (sizeof(BufferEntry) + sizeof(uint32_t)) +
           size_t{capacity} * kArenaBytesPerSlot;
  }

  static InsertBuffer* New(uint32_t capacity) {
    size_t arena = size_t{capacity} * kArenaBytesPerSlot;
    size_t bytes = BytesFor(capacity);
    void* mem = std::malloc(bytes);
    if (mem == nullptr) throw std::bad_alloc();
    auto* b = new (mem) InsertBuffer;
    b->capacity = capacity;
    b->tags = reinterpret_cast<uint32_t*>(b->entries + capacity);
    b->arena_size = static_cast<uint32_t>(arena);
    b->arena = reinterpret_cast<char*>(b->tags + capacity);
    return b;
  }

  static void Delete(InsertBuffer* b) {
    uint32_t n = std::min(b->published.load(std::memory_order_acquire), b->capacity);
    for (uint32_t i = 0; i < n; ++i) {
      if (!b->InArena(b->entries[i].key)) std::free(const_cast<char*>(b->entries[i].key));
    }
    b->~InsertBuffer();
    std::free(b);
  }

  const char* CopyKey(std::string_view key) {
    char* dst;
    const uint32_t used = arena_used.load(std::memory_order_relaxed);
    if (key.size() <= arena_size - used) {
      dst = arena + used;
      arena_used.store(used + static_cast<uint32_t>(key.size()), std::memory_order_relaxed);
    } else {
      dst = static_cast<char*>(std::malloc(key.size() + 1));
      if (dst == nullptr) throw std::bad_alloc();
    }
    if (!key.empty()) std::memcpy(dst, key.data(), key.size());
    return dst;
  }

  size_t bytes() const { return BytesFor(capacity); }
  static uint32_t Tag(uint64_t hash) { return static_cast<uint32_t>(hash); }
  // Starts loading the header and the tags without reading the header first (the tags' offset
  // follows from the capacity, which the store knows).
  static void Prefetch(const InsertBuffer* b, uint32_t capacity) {
    __builtin_prefetch(b);
    const char* tags = reinterpret_cast<const char*>(b + 1) + capacity * sizeof(BufferEntry);
    PrefetchLines(tags, capacity * sizeof(uint32_t));
  }

  // Starts loading for write where the next entry and its key go.
  void PrefetchNextSlot() {
    const uint32_t slot = reserved.load(std::memory_order_relaxed);
    if (slot >= capacity) return;
    __builtin_prefetch(&entries[slot], 1);
    __builtin_prefetch(reinterpret_cast<const char*>(&entries[slot + 1]) - 1, 1);
    __builtin_prefetch(arena + arena_used.load(std::memory_order_relaxed), 1);
  }

 private:
  bool InArena(const char* p) const { return p >= arena && p <= arena + arena_size; }
};

}  // namespace ordis::index::learned
