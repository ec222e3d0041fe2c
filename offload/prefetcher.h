// One I/O thread's prefetch path (PD3 section 7, ../shared/seeds/004): the cold values a
// connection's batch needs are read through this thread's own ring while the thread serves other
// connections; each read that lands is checked (TierStore::DecodeRead) and put in the thread's
// Loading Zone, where the batch's commands find it when the connection runs (CheckAndReturn).
//
// A read is asked for on behalf of a waiter (a connection); Reap names each waiter once every read
// it asked for has landed, whether its value arrived, was damaged (the command then reads it
// synchronously and reports the damage) or could not be put in the zone. Two waiters asking for
// the same record while its read is in flight share that read.
//
// Thread safety: none; the owner thread alone (the zone's consumers may be any thread).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "offload/loading_zone.h"
#include "offload/tier_files.h"
#include "offload/tier_ring.h"
#include "persistence/status.h"

namespace ordis::offload {

class Prefetcher {
 public:
  // depth: reads in flight at most; zone_entries: the Loading Zone's size.
  static persistence::Status Create(unsigned depth, uint32_t zone_entries,
                                    std::unique_ptr<Prefetcher>* out);
  ~Prefetcher();
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // Readable when reads landed (Reap them); the owner's event loop watches it.
  int event_fd() const { return ring_->event_fd(); }
  LoadingZone& zone() { return zone_; }

  // Queues the read, for `waiter`, of `key`'s record at `at` (digest: HostView::Digest of key):
  // `span` of the segment open as fd, of `generation` (TierStore::DiskSpan). False when `depth`
  // reads are in flight (the command will read the value itself).
  bool Read(uint64_t waiter, uint64_t digest, std::string_view key, const TierLocation& at, int fd,
            uint32_t generation, const TierSpan& span);
  // Submits the reads queued; the descriptors they name may close once it returns (the kernel
  // holds the files).
  persistence::Status Submit();
  // Puts the values of the reads that landed in the zone, and calls ready(waiter) for each
  // waiter none of whose reads is left in flight.
  void Reap(absl::FunctionRef<void(uint64_t waiter)> ready);
  // Reads in flight or queued; of them, queued and not yet submitted.
  unsigned in_flight() const { return ring_->in_flight(); }
  unsigned queued() const { return queued_; }
  // The memory reads ahead may hold at once: what the zone holds plus the reads in flight. A
  // read that would pass it is refused (the command reads the value itself). The zone's values
  // are heap the server counts toward maxmemory, so the owner sizes this from it.
  void set_max_bytes(uint64_t bytes) { max_bytes_ = bytes; }

  struct Stats {
    uint64_t reads = 0;         // submitted
    uint64_t shared = 0;        // asks that joined a read already in flight
    uint64_t ring_full = 0;     // asks refused: `depth` reads in flight, or max_bytes held
    uint64_t landed = 0;        // values put in the zone
    uint64_t damaged = 0;       // reads that failed or whose record did not check
    uint64_t zone_full = 0;     // values dropped: the zone had no room
    uint64_t zone_hits = 0;     // values commands took from the zone
    uint64_t zone_dropped = 0;  // values dropped unasked to make room in the zone
    Stats& operator+=(const Stats& other);  // several threads' together
  };
  // Any thread.
  Stats stats() const;

 private:
  struct InFlight {
    uint64_t digest = 0;
    std::string key;
    TierLocation at;
    uint32_t generation = 0;
    TierSpan span;
    TierBuffer buffer;
    std::vector<uint64_t> waiters;
  };
  Prefetcher(std::unique_ptr<TierRing> ring, uint32_t zone_entries, unsigned depth);
  void Landed(uint64_t slot, int result, absl::FunctionRef<void(uint64_t waiter)> ready);

  std::unique_ptr<TierRing> ring_;
  LoadingZone zone_;
  std::vector<InFlight> slots_;  // by cookie; `depth` of them
  std::vector<uint32_t> free_;   // slots not busy
  // Reads in flight by digest (a record asked for twice is read once).
  absl::flat_hash_map<uint64_t, uint32_t> by_digest_;
  absl::flat_hash_map<uint64_t, uint32_t> outstanding_;  // per waiter: reads not yet landed
  std::string value_;                                    // Reap's scratch
  uint64_t max_bytes_ = 16u << 20;
  uint64_t in_flight_bytes_ = 0;  // the spans being read
  unsigned queued_ = 0;           // reads queued since the last Submit
  // Written by the owner, read by INFO from any thread.
  std::atomic<uint64_t> reads_{0}, shared_{0}, ring_full_{0}, landed_{0}, damaged_{0},
      zone_full_{0};
};

}  // namespace ordis::offload
