// The keyspace's cold tier (issue 14): raw strings and whole collections demoted to disk and
// read back when a command needs them. The object stays where it is (object.h: a cold value's
// payload says where its value lies); only its value leaves memory. Keys, TTLs and the index stay
// resident. A collection's record holds it as snapshots encode it (the codec the server gives,
// SetCollectionCodec, from a layer above); it is promoted whole and read whole.
//
// The keyspace never hands a cold object to a command. A writer (exclusive lock) promotes it in
// place. A reader (shared lock) may not change it, so it gets a resident copy, held for its
// thread until the caller drops the copies; copies a command read are promoted later under the
// exclusive lock (PromoteCopies), so a value read twice is read from disk once, as expired keys a
// reader saw are deleted later.
//
// A record's key is the encoded key ([db][space][key]): a read checks it, so a record read for
// the wrong key is refused, never served. A record that cannot be read loses its key's value: the
// keyspace deletes the key and logs it (read_errors counts them).
//
// Prefetch (PD3): an I/O thread reads the cold values a batch needs ahead of it (ReadAhead, into
// its Prefetcher) and parks the connection; when the batch runs, a cold value its thread read
// ahead is taken from that thread's Loading Zone, and read synchronously only when not there. The
// Host View, when there is one, holds the keys known resident (PD3's Table 2: a promotion or a
// resident key found by a batch adds, a demotion or a deletion removes), so a batch asks the
// index only about the others.
//
// Thread safety: the keyspace's lock as marked; the tier store itself is behind a mutex (readers
// of both I/O threads and the snapshotter read it under the shared lock). Copies are per thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "offload/host_view.h"
#include "offload/prefetcher.h"
#include "offload/tier_store.h"
#include "server/keyspace/object.h"

namespace ordis::server {

class ColdTier {
 public:
  // How a collection becomes a record's bytes and back (server/durability/object_codec.h);
  // decode gives nullptr for bytes that do not decode (a record's checksum passed, but it was
  // written by a buggy writer).
  struct CollectionCodec {
    std::function<void(const Object& obj, std::string* out)> encode;
    std::function<ObjectPtr(ObjType type, std::string_view bytes, int64_t expire_at_ms)> decode;
  };

  // Values shorter than min_value_size stay resident (tier-min-value-size).
  ColdTier(std::unique_ptr<offload::TierStore> store, size_t min_value_size);
  ~ColdTier();
  ColdTier(const ColdTier&) = delete;
  ColdTier& operator=(const ColdTier&) = delete;

  // At start-up: collections are demoted too (without a codec only strings are).
  void SetCollectionCodec(CollectionCodec codec) { codec_ = std::move(codec); }
  // A resident raw string of at least min_value_size bytes and at most kMaxValueSize, or with a
  // codec a resident collection of at most kMaxCollectionElements (Demote checks its encoded size
  // against the same bounds, and one it refuses is not offered again until it is written).
  bool Demotable(const Object& obj) const;
  static constexpr size_t kMaxCollectionElements = 1 << 16;
  // At start-up: the Host View (offload/host_view.h); without one, every key a batch needs is
  // asked of the index.
  void SetHostView(std::unique_ptr<offload::HostView> view) { view_ = std::move(view); }
  const offload::HostView* host_view() const { return view_.get(); }
  // At start-up: why there is no Host View (DPDK's EAL did not start).
  void SetHostViewUnavailable(std::string why) { view_unavailable_ = std::move(why); }
  const std::string& host_view_unavailable() const { return view_unavailable_; }
  // On an I/O thread: cold values its commands read come from prefetcher's Loading Zone when
  // there; its figures join stats() until DetachPrefetcher (any thread).
  void AttachPrefetcher(offload::Prefetcher* prefetcher);
  void DetachPrefetcher(offload::Prefetcher* prefetcher);
  // shared. Queues the read of cold obj's record (at record_key, whose Host View digest is
  // `digest`) in prefetcher for waiter; false when the record is still in memory (no read is
  // needed) or the prefetcher has no room.
  bool ReadAhead(std::string_view record_key, uint64_t digest, const Object& obj, uint64_t waiter,
                 offload::Prefetcher& prefetcher);
  // shared. A batch found the key with `digest` resident though the view did not have it: added
  // (nothing demotes while the shared lock is held).
  void LearnResident(uint64_t digest);
  // exclusive. The key at record_key was deleted; FLUSHALL empties the view (ClearView).
  void KeyGone(std::string_view record_key);
  void ClearView();

  // Larger values stay resident: a record must fit a segment and an object's packed location.
  static constexpr size_t kMaxValueSize = 1 << 20;
  // The tier's segment size (compaction reads one under the keyspace's exclusive lock).
  static constexpr uint64_t kSegmentBytes = 4 << 20;
  // The tier took the last demotion offered (it refuses when full or failed; compaction that
  // frees a segment lets it try again).
  bool accepting() const { return accepting_.load(std::memory_order_relaxed); }
  // exclusive. obj's value goes to the tier and obj becomes cold; false, obj unchanged, when the
  // tier refuses it (full, failed).
  bool Demote(std::string_view record_key, Object* obj);
  // exclusive. Cold obj becomes resident; false, obj unchanged, when its record cannot be read.
  bool Promote(std::string_view record_key, Object* obj);
  // shared. A resident copy of cold obj, held for this thread until PromoteCopies or DropCopies;
  // nullptr when its record cannot be read. `promote`: PromoteCopies offers it back.
  Object* Copy(std::string_view record_key, const Object& obj, bool promote);
  // shared. A resident copy of cold obj owned by the caller; nullptr when its record cannot be
  // read.
  ObjectPtr LoadCopy(std::string_view record_key, const Object& obj);
  // exclusive. Promotes the objects this thread's copies were made from to be promoted, found by
  // record key, if still cold at the location the copy was read from; then drops every copy.
  // While `room` says memory is short, only a value read from the tier for the second time
  // lately is promoted (room is then made by demoting colder values): a value read once does not
  // push out another, so uniform reads over data larger than memory do not turn every read into a
  // write, while a hot value is not read from disk twice in a row.
  void PromoteCopies(absl::FunctionRef<Object*(std::string_view record_key)> find,
                     absl::FunctionRef<bool()> room);
  // shared. PromoteCopies' choice made first, so that a batch whose reads promote nothing needs
  // no exclusive lock: each copy's accesses go back to its object, and the copies not to be
  // promoted are dropped. True when some remain (PromoteCopies promotes them).
  bool SelectPromotions(absl::FunctionRef<Object*(std::string_view record_key)> find,
                        absl::FunctionRef<bool()> room);
  bool HasCopies() const;  // this thread's
  void DropCopies();       // this thread's
  // exclusive. Cold obj is about to be freed: its record is garbage.
  void Forget(const Object& obj);
  // The doorkeeper that asks for a second read has about as many slots as memory holds values:
  // a value read again within about that many cold reads is promoted. Too few slots (a fixed
  // 4096 before) and the keys of a hot set larger than a few thousand are rarely read twice
  // before their slot is taken, so a hot set that fits in memory stays on disk (measured: 1M
  // keys of 512 bytes under 128 MB, 90% of GETs on 10% of them: 69% of the GETs reading the disk
  // after 1.4M GETs, 23% with the slots sized, and 10%, the share outside the hot set, with the
  // demotions' sampling spread too, Evictor::kMaxSpread). Too many and values read twice by
  // chance push out hotter ones. Its size: `resident` (values in memory) rounded up to a power of
  // two, within [kMinDoorkeeper, max_bytes / 8 slots]; it grows when resident passes it and
  // shrinks when resident falls under a quarter of it.
  size_t DoorkeeperSlotsFor(uint64_t resident, uint64_t max_bytes) const;
  size_t doorkeeper_slots() const { return recent_size_.load(std::memory_order_relaxed); }
  // exclusive. Resizes (and so empties) the doorkeeper to DoorkeeperSlotsFor; nothing when that
  // is its size (MemoryGuard asks before each eviction step).
  void SizeDoorkeeper(uint64_t resident, uint64_t max_bytes);
  static constexpr size_t kMinDoorkeeper = 4096;
  static constexpr size_t kMaxDoorkeeper = 1 << 20;
  // Any lock. Lets go of the batches whose writes completed.
  void Poll();
  // exclusive. Every demoted value written to disk and the writes waited for (compaction takes
  // only segments with nothing pending in memory).
  persistence::Status Flush();
  // exclusive. Compaction: see offload::TierStore::Compact. live(record_key, at) tells whether a
  // key still holds that record; moved re-points it.
  persistence::Status Compact(double min_garbage, offload::TierStore::LiveFn live,
                              offload::TierStore::MovedFn moved, int64_t* segment);

  struct Stats {
    uint64_t cold_keys = 0;
    uint64_t cold_bytes = 0;  // their records' bytes in the tier (values compressed where it paid)
    uint64_t demotions = 0;
    uint64_t promotions = 0;
    uint64_t reads = 0;                   // records read back synchronously (copies and promotions)
    offload::Prefetcher::Stats prefetch;  // every I/O thread's (zone_hits: values commands took)
    uint64_t view_keys = 0;
    uint64_t view_capacity = 0;
    uint64_t view_learned = 0;  // keys a batch found resident the view did not hold
    uint64_t view_full = 0;     // adds refused: the view was full
    uint64_t read_errors = 0;
    offload::TierStore::Stats store;
    uint64_t file_bytes = 0;
    uint64_t garbage_bytes = 0;
    std::string failed;
  };
  Stats stats() const;  // any thread, no keyspace lock
  uint64_t cold_keys() const { return cold_keys_.load(std::memory_order_relaxed); }

 private:
  // Reads obj's value into *value (under mu_); false on a damaged or unreadable record.
  bool ReadValue(std::string_view record_key, const Object& obj, std::string* value);
  // A resident object like cold obj holding value (a collection decoded); nullptr, logged and
  // counted as a read error, when a collection's bytes do not decode.
  ObjectPtr Materialize(std::string_view record_key, const Object& obj, std::string_view value);
  // Cold obj (at record_key) becomes resident with value, its record garbage; false (obj
  // unchanged) when a collection's bytes do not decode.
  bool MakeResident(std::string_view record_key, Object* obj, std::string_view value);
  // The same with the resident copy of its value (a collection's is moved out of it).
  void MakeResident(std::string_view record_key, Object* obj, Object* copy);
  // The value at record_key was made resident: counted, and the Host View told.
  void Promoted(std::string_view record_key);
  void ViewAdd(uint64_t digest);

  const size_t min_value_size_;
  CollectionCodec codec_;
  mutable std::mutex mu_;  // guards store_
  std::unique_ptr<offload::TierStore> store_;
  // Hashes of record keys read from the tier lately, one per slot: the second read finds its own
  // (a doorkeeper, as TinyLFU's). Replaced under the exclusive lock, read under the shared one.
  std::unique_ptr<std::atomic<uint64_t>[]> recent_reads_ {
    new std::atomic<uint64_t>[kMinDoorkeeper] {}
  };
  std::atomic<size_t> recent_size_{kMinDoorkeeper};
  std::span<std::atomic<uint64_t>> recent_reads() {
    return {recent_reads_.get(), recent_size_.load(std::memory_order_relaxed)};
  }
  std::atomic<bool> accepting_{true};
  std::atomic<uint64_t> cold_keys_{0};
  std::atomic<uint64_t> cold_bytes_{0};
  std::atomic<uint64_t> demotions_{0};
  std::atomic<uint64_t> promotions_{0};
  std::atomic<uint64_t> reads_{0};
  std::atomic<uint64_t> read_errors_{0};
  std::unique_ptr<offload::HostView> view_;
  std::string view_unavailable_ = "not started";
  std::atomic<uint64_t> view_learned_{0};
  std::atomic<uint64_t> view_full_{0};
  mutable std::mutex prefetchers_mu_;
  std::vector<offload::Prefetcher*> prefetchers_;  // GUARDED_BY(prefetchers_mu_)
};

}  // namespace ordis::server
