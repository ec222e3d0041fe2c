// One io_uring for the cold tier's reads and writes: requests are queued, submitted together (one
// system call for a batch's misses) and completed through an eventfd that the owner's event loop
// watches, so a thread keeps serving other connections while its reads are on the disk. The
// disk answers many reads in flight far faster than one at a time (this VM's: about 16k random
// 4 KiB reads/s at depth 1, 105k at depth 256), which is what prefetching a batch's misses buys.
//
// Buffers for a file opened with O_DIRECT must be kTierAlign-aligned, as must offsets and
// lengths (TierBuffer; TierRecordSpan gives the aligned span holding a record).
//
// Thread safety: none; one owner thread per ring.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/functional/function_ref.h"
#include "offload/tier_files.h"
#include "persistence/status.h"

struct io_uring_sqe;

namespace ordis::offload {

// An aligned, owned byte buffer for direct I/O.
class TierBuffer {
 public:
  TierBuffer() = default;
  explicit TierBuffer(size_t bytes);
  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(char* p) const;
  };
  std::unique_ptr<char, Free> data_;
  size_t size_ = 0;
};

// The aligned part of a segment holding a record: read it, then the record starts `skip` bytes in.
struct TierSpan {
  uint64_t offset = 0;
  uint32_t length = 0;
  uint32_t skip = 0;
};
TierSpan TierRecordSpan(const TierLocation& at);

class TierRing {
 public:
  // depth: requests in flight at most.
  static persistence::Status Create(unsigned depth, std::unique_ptr<TierRing>* out);
  ~TierRing();
  TierRing(const TierRing&) = delete;
  TierRing& operator=(const TierRing&) = delete;

  // Readable when completions wait (Reap them); the owner's event loop watches it.
  int event_fd() const { return event_fd_; }
  // Queue a read or write of `length` bytes at `offset` of fd; `cookie` comes back with its
  // result. False when `depth` requests are already queued or in flight.
  bool Read(int fd, char* buf, uint32_t length, uint64_t offset, uint64_t cookie);
  bool Write(int fd, const char* buf, uint32_t length, uint64_t offset, uint64_t cookie);
  // Submits what is queued.
  persistence::Status Submit();
  // Calls done(cookie, result) for each completed request (result: bytes moved, or -errno);
  // with wait, blocks until at least one completes if any is in flight. Returns how many.
  size_t Reap(absl::FunctionRef<void(uint64_t cookie, int result)> done, bool wait = false);
  unsigned in_flight() const { return in_flight_; }

 private:
  TierRing() = default;
  // A submission entry, counted in flight; null when `depth` are.
  io_uring_sqe* NextSqe();
  struct Uring;
  std::unique_ptr<Uring> ring_;
  int event_fd_ = -1;
  unsigned depth_ = 0;
  unsigned in_flight_ = 0;  // queued or submitted, not yet reaped
};

}  // namespace ordis::offload
