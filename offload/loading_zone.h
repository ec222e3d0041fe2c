// PD3's Loading Zone (../shared/seeds/004, section 7.2): a ring of values fetched from the cold
// tier ahead of the commands that need them. A command whose key is cold asks CheckAndReturn
// before it would read the tier itself; the answer never blocks, it is the value or a miss.
//
// One zone per I/O thread: that thread is the only producer (it reaps its ring's reads and puts
// the values here); any thread may consume. As in PD3, a consumer copies Head and walks to Tail
// comparing keys, so consumers never write a shared pointer; taking an entry is one CAS on its
// state. An entry carries the location it was read from (and its segment's generation,
// TierFiles::generation), and a consumer names the location its key's object points to now: a
// value read before the key was written, deleted or demoted again (to another place, or to the
// same place of a segment since removed and reused) is never returned, whatever the order of the
// read and the write.
//
// Entry states (a generation counter beside them makes a recycled entry's CAS fail):
//   kEmpty -> kProduced (Put) -> kClaimed (a consumer won the CAS and copies the value)
//          -> kTaken (copied); or kProduced -> kDropped (Put needed the room first).
// The producer recycles kEmpty, kTaken and kDropped entries in ring order, and drops a value not
// asked for while a quarter of the ring was put after it (prefetched and not asked for soon, it
// is likely not wanted, and it would lengthen every consumer's walk); a full zone drops its
// oldest unclaimed value and refuses only when that one is being copied.
//
// Thread safety: Put from the owner thread; CheckAndReturn and the counters from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "offload/tier_files.h"

namespace ordis::offload {

class LoadingZone {
 public:
  explicit LoadingZone(uint32_t entries);
  ~LoadingZone();
  LoadingZone(const LoadingZone&) = delete;
  LoadingZone& operator=(const LoadingZone&) = delete;

  // The owner thread: makes `value`, read from `at` (of a segment of `generation`) for the key
  // with `digest`, available. False when no room could be made (the value is dropped).
  bool Put(uint64_t digest, const TierLocation& at, uint32_t generation, std::string value);
  // Any thread: the value for the key with `digest` whose object points to `at` (its segment of
  // `generation` now), moved into *value and taken out of the zone; false when none is there.
  bool CheckAndReturn(uint64_t digest, const TierLocation& at, uint32_t generation,
                      std::string* value);

  uint64_t hits() const { return hits_.load(std::memory_order_relaxed); }
  // Bytes of the values held (put and neither taken nor dropped): the owner bounds it.
  uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  enum State : uint64_t { kEmpty = 0, kProduced = 1, kClaimed = 2, kTaken = 3, kDropped = 4 };
  static constexpr uint64_t kStateBits = 3;
  static uint64_t StateOf(uint64_t word) { return word & ((1u << kStateBits) - 1); }
  static uint64_t Word(uint64_t generation, State s) { return generation << kStateBits | s; }

  struct Entry {
    std::atomic<uint64_t> word{Word(0, kEmpty)};
    std::atomic<uint64_t> digest{0};
    std::atomic<uint64_t> segment_and_size{0};  // segment << 32 | size
    std::atomic<uint64_t> offset{0};
    std::atomic<uint32_t> segment_generation{0};
    std::atomic<std::string*> value{nullptr};
  };
  static uint64_t Pack(const TierLocation& at) { return uint64_t{at.segment} << 32 | at.size; }
  // The owner: makes the entry at head_ reusable if it can; false when it is being copied.
  bool Reclaim();
  // The owner: moves head_ past the entries taken or dropped (and values left unasked-for a
  // quarter of the ring ago), so consumers' walks (head to tail) cover the values still
  // waiting, not the whole ring.
  void Recycle();

  const uint32_t capacity_;
  std::unique_ptr<Entry[]> entries_;
  std::atomic<uint64_t> head_{0};  // the oldest entry not yet recycled
  std::atomic<uint64_t> tail_{0};  // one past the newest
  std::atomic<uint64_t> hits_{0};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> bytes_{0};
};

}  // namespace ordis::offload
