// PD3's Host View (../shared/seeds/004, section 5.2): the set of keys whose values are resident,
// asked once per batch by an I/O thread before it takes the keyspace lock, so that only a batch's
// misses go looking for the cold tier. Kept by PD3's Table 2 rules: a write of a key or the
// promotion of its value adds it; a demotion or a delete removes it.
//
// PD3's structure, a bucketized cuckoo hash with batched lookups, is DPDK's rte_hash
// (rte_hash_lookup_bulk: 64 keys a call, their buckets prefetched together). rte_hash takes keys
// of one fixed size, so a key is held as the 64-bit digest of its encoded form (Digest). Two keys
// sharing a digest make a cold one look resident: its command then reads the value
// synchronously, slower but right. A full view leaves new keys out: they look cold, and the index,
// asked next, says they are not (a lookup spent, never a wrong value).
//
// Thread safety: any method from any thread. Lookups share a reader-writer lock of the view's own
// (one acquisition per batch); Add, Remove and Clear take it exclusively. rte_hash's own
// concurrency modes synchronize inside DPDK's library, where ThreadSanitizer cannot see it (it
// reported their reader and writer racing): the view locks where it can be checked. Needs
// StartDpdk() to have succeeded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <span>
#include <string_view>

#include "persistence/status.h"

struct rte_hash;

namespace ordis::offload {

class HostView {
 public:
  // Room for `entries` keys (rte_hash does not grow).
  static persistence::Status Create(uint32_t entries, std::unique_ptr<HostView>* out);
  ~HostView();
  HostView(const HostView&) = delete;
  HostView& operator=(const HostView&) = delete;

  static uint64_t Digest(std::string_view encoded_key);

  // False when the view is full (the key is left out).
  bool Add(uint64_t digest);
  void Remove(uint64_t digest);
  void Clear();
  // resident[i] tells whether digests[i] is in the view; any number of digests.
  void Lookup(std::span<const uint64_t> digests, std::span<bool> resident) const;
  size_t size() const;
  uint32_t capacity() const { return capacity_; }

 private:
  HostView(rte_hash* table, uint32_t capacity) : table_(table), capacity_(capacity) {}
  rte_hash* table_;
  uint32_t capacity_;
  mutable std::shared_mutex mu_;
};

}  // namespace ordis::offload
