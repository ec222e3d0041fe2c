#include "offload/loading_zone.h"

#include <algorithm>

namespace ordis::offload {

LoadingZone::LoadingZone(uint32_t entries)
    : capacity_(std::max<uint32_t>(entries, 1)), entries_(new Entry[capacity_]) {}

LoadingZone::~LoadingZone() {
  for (uint32_t i = 0; i < capacity_; ++i) delete entries_[i].value.load(std::memory_order_relaxed);
}

bool LoadingZone::Reclaim() {
  const uint64_t head = head_.load(std::memory_order_relaxed);
  Entry& e = entries_[head % capacity_];
  uint64_t word = e.word.load(std::memory_order_acquire);
  if (StateOf(word) == kProduced) {
    // Never asked for: dropped, unless a consumer claims it first.
    if (e.word.compare_exchange_strong(word, Word(word >> kStateBits, kDropped),
                                       std::memory_order_acq_rel)) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      bytes_.fetch_sub(e.value.load(std::memory_order_relaxed)->size(), std::memory_order_relaxed);
      word = Word(word >> kStateBits, kDropped);
    }
  }
  if (StateOf(word) == kClaimed || StateOf(word) == kProduced) return false;
  // Empty, taken or dropped: no consumer touches its value any more.
  delete e.value.exchange(nullptr, std::memory_order_relaxed);
  head_.store(head + 1, std::memory_order_release);
  return true;
}

void LoadingZone::Recycle() {
  const uint64_t tail = tail_.load(std::memory_order_relaxed);
  for (uint64_t head = head_.load(std::memory_order_relaxed); head < tail; ++head) {
    Entry& e = entries_[head % capacity_];
    const uint64_t state = StateOf(e.word.load(std::memory_order_acquire));
    const bool waiting = state == kProduced || state == kClaimed;
    // A value not asked for while a quarter of the ring was put after it is dropped: left over
    // (read ahead for a batch that found it elsewhere), it would lengthen every walk.
    if (waiting && tail - head <= capacity_ / 4) break;
    if (!Reclaim()) break;  // being copied
  }
}

bool LoadingZone::Put(uint64_t digest, const TierLocation& at, uint32_t generation,
                      std::string value) {
  // Consumers walk from head to tail: entries already taken leave the walk at once.
  Recycle();
  const uint64_t tail = tail_.load(std::memory_order_relaxed);
  while (tail - head_.load(std::memory_order_relaxed) >= capacity_) {
    if (!Reclaim()) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
  }
  Entry& e = entries_[tail % capacity_];
  // Recycled by Reclaim (or never used): its value is gone and no consumer can claim it.
  const uint64_t next = (e.word.load(std::memory_order_relaxed) >> kStateBits) + 1;
  e.digest.store(digest, std::memory_order_relaxed);
  e.segment_and_size.store(Pack(at), std::memory_order_relaxed);
  e.offset.store(at.offset, std::memory_order_relaxed);
  e.segment_generation.store(generation, std::memory_order_relaxed);
  bytes_.fetch_add(value.size(), std::memory_order_relaxed);
  e.value.store(new std::string(std::move(value)), std::memory_order_relaxed);
  // Publishes the fields above to a consumer that sees this state.
  e.word.store(Word(next, kProduced), std::memory_order_release);
  tail_.store(tail + 1, std::memory_order_release);
  return true;
}

bool LoadingZone::CheckAndReturn(uint64_t digest, const TierLocation& at, uint32_t generation,
                                 std::string* value) {
  // PD3's replicated Head: this consumer's own copy, walked to Tail; nothing shared is written
  // but the one entry taken.
  const uint64_t tail = tail_.load(std::memory_order_acquire);
  for (uint64_t i = head_.load(std::memory_order_acquire); i < tail; ++i) {
    Entry& e = entries_[i % capacity_];
    uint64_t word = e.word.load(std::memory_order_acquire);
    if (StateOf(word) != kProduced) continue;
    // Fields of a later generation may be read here if the entry was recycled meanwhile: the CAS
    // below then fails on the generation.
    if (e.digest.load(std::memory_order_relaxed) != digest ||
        e.segment_and_size.load(std::memory_order_relaxed) != Pack(at) ||
        e.offset.load(std::memory_order_relaxed) != at.offset ||
        e.segment_generation.load(std::memory_order_relaxed) != generation) {
      continue;
    }
    const uint64_t entry_generation = word >> kStateBits;
    if (!e.word.compare_exchange_strong(word, Word(entry_generation, kClaimed),
                                        std::memory_order_acq_rel)) {
      continue;
    }
    *value = std::move(*e.value.load(std::memory_order_relaxed));
    bytes_.fetch_sub(value->size(), std::memory_order_relaxed);
    e.word.store(Word(entry_generation, kTaken), std::memory_order_release);
    hits_.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  return false;
}

}  // namespace ordis::offload
