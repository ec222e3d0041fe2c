#include "offload/prefetcher.h"

#include "offload/tier_store.h"

namespace ordis::offload {
namespace {

void Bump(std::atomic<uint64_t>& counter) { counter.fetch_add(1, std::memory_order_relaxed); }

}  // namespace

persistence::Status Prefetcher::Create(unsigned depth, uint32_t zone_entries,
                                       std::unique_ptr<Prefetcher>* out) {
  std::unique_ptr<TierRing> ring;
  if (persistence::Status st = TierRing::Create(depth, &ring); !st.ok()) return st;
  out->reset(new Prefetcher(std::move(ring), zone_entries, depth));
  return persistence::Status::Ok();
}

Prefetcher::Prefetcher(std::unique_ptr<TierRing> ring, uint32_t zone_entries, unsigned depth)
    : ring_(std::move(ring)), zone_(zone_entries), slots_(depth) {
  free_.reserve(depth);
  for (unsigned i = depth; i > 0; --i) free_.push_back(i - 1);
}

// The ring is destroyed after the slots' buffers otherwise: it goes first, waiting for the reads
// still in flight into them.
Prefetcher::~Prefetcher() { ring_.reset(); }

bool Prefetcher::Read(uint64_t waiter, uint64_t digest, std::string_view key,
                      const TierLocation& at, int fd, uint32_t generation, const TierSpan& span) {
  if (auto it = by_digest_.find(digest); it != by_digest_.end()) {
    InFlight& read = slots_[it->second];
    if (read.at == at && read.generation == generation && read.key == key) {
      read.waiters.push_back(waiter);
      ++outstanding_[waiter];
      Bump(shared_);
      return true;
    }
  }
  if (free_.empty() || zone_.bytes() + in_flight_bytes_ + span.length > max_bytes_) {
    Bump(ring_full_);
    return false;
  }
  const uint32_t slot = free_.back();
  InFlight& read = slots_[slot];
  // A buffer per read, freed when it lands: what reads ahead hold stays within max_bytes.
  read.buffer = TierBuffer(span.length);
  if (!ring_->Read(fd, read.buffer.data(), span.length, span.offset, slot)) {
    Bump(ring_full_);
    return false;
  }
  free_.pop_back();
  ++queued_;
  in_flight_bytes_ += span.length;
  read.digest = digest;
  read.key.assign(key);
  read.at = at;
  read.generation = generation;
  read.span = span;
  read.waiters.assign(1, waiter);
  by_digest_[digest] = slot;  // a later read of another record of the key takes the entry
  ++outstanding_[waiter];
  Bump(reads_);
  return true;
}

persistence::Status Prefetcher::Submit() {
  persistence::Status status = ring_->Submit();
  if (status.ok()) queued_ = 0;
  return status;
}

void Prefetcher::Reap(absl::FunctionRef<void(uint64_t waiter)> ready) {
  ring_->Reap([&](uint64_t cookie, int result) { Landed(cookie, result, ready); });
}

void Prefetcher::Landed(uint64_t slot, int result, absl::FunctionRef<void(uint64_t waiter)> ready) {
  InFlight& read = slots_[slot];
  in_flight_bytes_ -= read.span.length;
  if (TierStore::DecodeRead(read.buffer.data(), result, read.span, read.at, read.key, &value_)
          .ok()) {
    if (zone_.Put(read.digest, read.at, read.generation, std::move(value_))) {
      Bump(landed_);
    } else {
      Bump(zone_full_);
    }
  } else {
    Bump(damaged_);
  }
  value_.clear();
  read.buffer = TierBuffer();
  if (auto it = by_digest_.find(read.digest); it != by_digest_.end() && it->second == slot) {
    by_digest_.erase(it);
  }
  for (uint64_t waiter : read.waiters) {
    auto it = outstanding_.find(waiter);
    if (--it->second == 0) {
      outstanding_.erase(it);
      ready(waiter);
    }
  }
  read.waiters.clear();
  free_.push_back(static_cast<uint32_t>(slot));
}

Prefetcher::Stats& Prefetcher::Stats::operator+=(const Stats& other) {
  reads += other.reads;
  shared += other.shared;
  ring_full += other.ring_full;
  landed += other.landed;
  damaged += other.damaged;
  zone_full += other.zone_full;
  zone_hits += other.zone_hits;
  zone_dropped += other.zone_dropped;
  return *this;
}

Prefetcher::Stats Prefetcher::stats() const {
  Stats s;
  s.reads = reads_.load(std::memory_order_relaxed);
  s.shared = shared_.load(std::memory_order_relaxed);
  s.ring_full = ring_full_.load(std::memory_order_relaxed);
  s.landed = landed_.load(std::memory_order_relaxed);
  s.damaged = damaged_.load(std::memory_order_relaxed);
  s.zone_full = zone_full_.load(std::memory_order_relaxed);
  s.zone_hits = zone_.hits();
  s.zone_dropped = zone_.dropped();
  return s;
}

}  // namespace ordis::offload
