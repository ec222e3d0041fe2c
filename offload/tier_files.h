// The cold tier's segment files in `tier-dir` (records: persistence/tier_format.h). A segment is
// written once, front to back, in batches of whole kTierAlign blocks, and then only read, until
// compaction has moved its live records elsewhere and deletes it. The tier holds nothing across
// restarts (the snapshot and the log do): segments left by an earlier run are removed at Open.
//
// Files are opened with O_DIRECT where the file system takes it (ext4, xfs), so cold reads and
// demotions bypass the page cache that would otherwise hold the very data maxmemory pushed out;
// where it refuses (tmpfs), buffered, and direct() says so.
//
// Thread safety: Reserve, Seal and Remove from one thread (the tier's writer); fd() and the
// counters from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "persistence/status.h"

namespace ordis::offload {

// Where a record lies: its segment, its byte offset there and its size.
struct TierLocation {
  uint32_t segment = 0;
  uint32_t size = 0;
  uint64_t offset = 0;

  friend bool operator==(const TierLocation&, const TierLocation&) = default;
};

class TierFiles {
 public:
  // max_bytes: the tier's size (tier-max-size), in segments of segment_bytes (both multiples of
  // kTierAlign, segment_bytes <= max_bytes).
  static persistence::Status Open(const std::string& dir, uint64_t segment_bytes,
                                  uint64_t max_bytes, std::unique_ptr<TierFiles>* out);
  ~TierFiles();
  TierFiles(const TierFiles&) = delete;
  TierFiles& operator=(const TierFiles&) = delete;

  // Room for a batch of `bytes` (a multiple of kTierAlign, at most segment_bytes): the place its
  // write goes, in the active segment or a new one. An error when the tier is full (every
  // segment in use) or a file cannot be created.
  persistence::Status Reserve(uint64_t bytes, uint32_t* segment, uint64_t* offset);
  // The descriptor of a segment in use, or -1.
  int fd(uint32_t segment) const;
  // Counts the segment's removals: a read of it made before a removal (a prefetch in flight
  // while compaction ran) is told from one of the file that took its place.
  uint32_t generation(uint32_t segment) const {
    return slots_[segment].generation.load(std::memory_order_acquire);
  }
  // Records of `segment` that no longer hold a key's value (overwritten, deleted, promoted).
  void AddGarbage(uint32_t segment, uint64_t bytes);
  // Closes and deletes a segment every record of which is garbage or moved (compaction). No read
  // of it may be in flight or about to be submitted: its descriptor number is reused.
  persistence::Status Remove(uint32_t segment);

  // The segment Reserve fills now, -1 before the first reservation (from the writer's thread).
  int64_t active() const { return active_; }
  bool direct() const { return direct_; }
  uint64_t segment_bytes() const { return segment_bytes_; }
  // Bytes written to segments in use, and those of them that are garbage.
  uint64_t used_bytes() const { return used_.load(std::memory_order_relaxed); }
  uint64_t garbage_bytes() const { return garbage_.load(std::memory_order_relaxed); }
  // Per segment (compaction picks by them): written and garbage bytes; 0 and 0 when not in use.
  uint64_t written(uint32_t segment) const;
  uint64_t garbage(uint32_t segment) const;
  uint32_t capacity() const { return static_cast<uint32_t>(slots_.size()); }
  // Segments not in use (from the writer's thread).
  uint32_t free_segments() const;
  // Whether Reserve(bytes) would fit in the active segment, without a new one.
  bool ActiveHasRoom(uint64_t bytes) const {
    return active_ >= 0 &&
           slots_[active_].written.load(std::memory_order_relaxed) + bytes <= segment_bytes_;
  }

 private:
  struct Slot {
    std::atomic<int> fd{-1};
    std::atomic<uint64_t> written{0};
    std::atomic<uint64_t> garbage{0};
    std::atomic<uint32_t> generation{0};
  };
  TierFiles(std::string dir, uint64_t segment_bytes, uint32_t segments);
  std::string PathOf(uint32_t segment) const;
  persistence::Status Create(uint32_t segment);

  const std::string dir_;
  const uint64_t segment_bytes_;
  std::vector<Slot> slots_;
  bool direct_ = true;
  int64_t active_ = -1;  // the segment being filled, or none yet
  std::atomic<uint64_t> used_{0};
  std::atomic<uint64_t> garbage_{0};
};

}  // namespace ordis::offload
