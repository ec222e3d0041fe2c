// The cold tier as the keyspace uses it: a value goes in (Demote) and comes back (Read) by the
// TierLocation Demote returned; Release makes its record garbage (the key was written, deleted or
// its value promoted).
//
// Demotions fill a batch in memory, which is written whole, with one aligned write through the
// ring, when the next record does not fit or on Flush; a written batch stays in memory until its
// write completes (past max_pending_batches, Flush waits for the oldest). A record is therefore
// readable the moment Demote returns: from memory while its batch is pending, from disk after. A
// batch whose write fails is kept in memory for good (its values are nowhere else) and the tier
// takes no more demotions: failed() says why.
//
// Read is synchronous (the fallback when a value was not prefetched): it submits the record's
// read and waits for it, reaping the writes that complete meanwhile.
//
// Thread safety: none; one caller at a time (the keyspace's exclusive lock).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "offload/tier_files.h"
#include "offload/tier_ring.h"
#include "persistence/status.h"

namespace ordis::offload {

struct TierStoreOptions {
  std::string dir;                     // tier-dir
  uint64_t max_bytes = 1ull << 30;     // tier-max-size
  uint64_t segment_bytes = 64u << 20;  // a multiple of kTierAlign, at most max_bytes
  // A batch's size: a multiple of kTierAlign, at most segment_bytes. A record larger than this
  // gets a batch of its own.
  uint32_t batch_bytes = 256u << 10;
  unsigned ring_depth = 256;
  // Batches written and not yet on disk at most: their buffers are memory maxmemory counts, so a
  // demotion waits for the disk beyond this (a slow disk under many demotions held eight 256 KB
  // batches against a 3 MB limit, and writes were refused).
  size_t max_pending_batches = 2;
};

class TierStore {
 public:
  static persistence::Status Open(const TierStoreOptions& options, std::unique_ptr<TierStore>* out);
  // Waits for the writes in flight (not for the batch being filled: Flush first to keep it).
  ~TierStore();
  TierStore(const TierStore&) = delete;
  TierStore& operator=(const TierStore&) = delete;

  // Whether a record of a key and value this long fits in a segment (at most: compressed, it may
  // be smaller).
  bool Fits(size_t key_size, size_t value_size) const;
  // Appends (key, value)'s record and sets *at to where it lies. An error, with nothing changed,
  // when the tier is full or failed, or the record cannot fit in a segment. The last free segment
  // is kept for compaction, which needs room to move live records before it frees a segment:
  // demotions find the tier full while only it is left (a tier of one segment has no spare).
  persistence::Status Demote(std::string_view key, std::string_view value, TierLocation* at);
  // The value of the record at `at`, which must be key's; an error names what failed (a torn,
  // corrupt or misdirected record is never served).
  persistence::Status Read(const TierLocation& at, std::string_view key, std::string* value);
  // For a read of the record at `at` through another ring (a prefetch): the descriptor of its
  // segment, the segment's generation (TierFiles::generation) and the aligned span to read.
  // False when the record is still in memory (Read copies it from there at once) or its segment
  // is gone. The descriptor stays valid until the next Compact.
  bool DiskSpan(const TierLocation& at, int* fd, uint32_t* generation, TierSpan* span) const;
  // The value in `data`, `got` bytes read for the record at `at` over `span`, which must be
  // key's: checked as Read checks it.
  static persistence::Status DecodeRead(const char* data, int got, const TierSpan& span,
                                        const TierLocation& at, std::string_view key,
                                        std::string* value);
  // The record at `at` no longer holds a value.
  void Release(const TierLocation& at);
  // Writes the batch being filled.
  persistence::Status Flush();
  // Reaps completed writes without waiting. The owner calls it from time to time (the server:
  // thread 0's cron, and a demotion that finds batches piling up); nothing watches the ring's
  // eventfd for it.
  void Poll();
  // Flush, then wait for every write in flight.
  persistence::Status Drain();

  // Compaction: the segment with the most garbage, if at least `min_garbage` of its bytes are
  // (and none of its batches is still pending), has its live records appended anew and is
  // deleted. live(key, at) says whether the record at `at` still holds key's value; moved(key,
  // to) re-points the key to the copy (readable at once, from its batch). *segment is the one
  // compacted, -1 when none qualified. On an error (the tier full, a read failing) the segment
  // stays, and the records already moved are valid in both places; a corrupt record also keeps
  // the segment (its key cannot be told, so neither can whether it was live).
  using LiveFn = absl::FunctionRef<bool(std::string_view key, const TierLocation& at)>;
  using MovedFn = absl::FunctionRef<void(std::string_view key, const TierLocation& to)>;
  persistence::Status Compact(double min_garbage, LiveFn live, MovedFn moved, int64_t* segment);

  const TierFiles& files() const { return *files_; }
  // Why demotions stop, empty while they do not.
  const std::string& failed() const { return failed_; }

  struct Stats {
    uint64_t demoted = 0;        // records appended
    uint64_t demoted_bytes = 0;  // their values' bytes
    uint64_t reads = 0;          // records read back
    uint64_t disk_reads = 0;     // of them, read from disk (the others from a pending batch)
    uint64_t read_errors = 0;
    uint64_t batches = 0;  // batch writes completed
    uint64_t write_errors = 0;
    uint64_t pending_batches = 0;  // filled or written, not yet on disk
    uint64_t compactions = 0;      // segments compacted and deleted
    uint64_t moved = 0;            // live records they moved
  };
  Stats stats() const;

 private:
  struct Batch {
    TierBuffer buffer;
    uint32_t segment = 0;
    uint64_t offset = 0;
    uint32_t used = 0;  // record bytes; the write's length is that padded to kTierAlign
    bool failed = false;
  };

  TierStore(const TierStoreOptions& options, std::unique_ptr<TierFiles> files,
            std::unique_ptr<TierRing> ring);
  // Appends an encoded record to the batch being filled, reserving a new batch when it does not
  // fit; sets *at. `compacting` may take the last free segment.
  persistence::Status Append(std::string_view record, TierLocation* at, bool compacting);
  // Reads length bytes at offset of segment into read_ and waits: *got is the bytes read.
  persistence::Status ReadSync(uint32_t segment, uint64_t offset, uint32_t length, int* got);
  // The segment Compact should take, -1 for none.
  int64_t CompactionCandidate(double min_garbage) const;
  // A record of record_size bytes fits in a segment, padding included.
  bool RecordFits(size_t record_size) const;
  // Reaps completed requests (waiting for one if `wait` and any is in flight): writes finish.
  void ReapWrites(bool wait);
  // A submission slot, reaping (and waiting for) completions while the ring is full.
  void MakeRoom();
  void OnWritten(uint64_t cookie, int result);
  // The bytes of a record still in memory, empty when it is only on disk.
  std::string_view InMemory(const TierLocation& at) const;

  const TierStoreOptions options_;
  std::unique_ptr<TierFiles> files_;
  // The batch being filled: its records, and the room reserved for it in a segment.
  std::string filling_;
  uint32_t filling_segment_ = 0;
  uint64_t filling_offset_ = 0;
  uint64_t filling_capacity_ = 0;      // 0: no batch is being filled
  std::map<uint64_t, Batch> written_;  // by cookie: batches written or failed, not yet reaped
  uint64_t next_cookie_ = 0;
  std::string record_;                // Demote's scratch
  TierBuffer read_;                   // Read's
  std::vector<TierBuffer> orphaned_;  // reads given up on: the kernel may still fill them
  std::string failed_;
  Stats stats_;
  std::unique_ptr<TierRing> ring_;  // last: destroyed first, waiting for what it has in flight
};

}  // namespace ordis::offload
