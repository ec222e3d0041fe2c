// Keyspace: Redis's databases over the one ordered index.
//
// Every key of every database lives in one index::OrderedStore under the encoded key
// [physical db][space][...]. Logical database numbers map to physical ids so SWAPDB is O(1): a
// database's entries of every space move with its physical id.
//
//   space 0x01, keys:  [db][0x01][user key]                          -> Object*
//   space 0x02, TTLs:  [db][0x02][expire_at_ms, 8 bytes][user key]   -> the same Object*
//
// The TTL space: a key with a TTL has a second index entry whose key begins with its absolute
// expire time (big-endian, sign bit flipped, so byte order is time order), so a database's TTLs
// are ordered by expiry. Why there, rather than a side table of key copies (what ordis had) or
// Redis's expires dict sampled at random:
//  - active expiry walks the space from its start and deletes exactly what is due, O(expired)
//    rather than sampling (sampling found 20 of 1M short-lived keys at a time, and took 17 s to
//    expire 1M keys with PX 100);
//  - volatile-ttl eviction reads the soonest entries exactly (ScanByExpiry);
//  - a key without a TTL pays nothing, one with a TTL one index entry (its key bytes
//    prefix-compressed with its neighbours') and no copy of its name elsewhere;
//  - it reuses the index's order, concurrency and memory accounting.
// The entry's key is rebuilt from the object's expire time whenever it must be found (change,
// clear, delete), so Object carries no back-pointer. Every path that creates, changes, clears or
// moves a TTL (Set, SetExpire, Move, Delete, expiry, FlushDb/FlushAll, BulkLoad) keeps the two
// entries in step; DbSize, Scan and RandomKey see only space 0x01. Each database keeps a lower
// bound of its TTL entries' expire times (exact after each expiry walk), where the walk seeks: the
// leaves its deletes emptied are never walked again.
//
// Lazy free: a deletion unlinks the key at once and frees its value either here, under the lock,
// or (FreeMode::kLazy, when the value is large) on the LazyFree thread (lazy_free.h). Client
// deletions say which (DEL, UNLINK, FLUSH*: the command layer reads the lazyfree-lazy-user-*
// switches); the server's own follow LazyFreePolicy: evictions, expiry, and values a command
// deletes or overwrites as a side effect (SET over a set, RENAME's target, a *STORE destination).
//
// Expiry: a key past its TTL is logically gone at once. Readers (shared lock) skip it and report it
// through `expired` so the caller can delete it afterwards under the exclusive lock (lazy expiry);
// writers delete it on sight. ExpireDueKeys deletes due keys in expiry order for active expiry
// (server/keyspace/expiry.h), a bounded batch per call.
//
// Cold values (cold_tier.h): with a tier set, Demote sends a raw string's value to disk. No
// method hands out a cold object except where marked ("may be cold": its header, type and TTL
// are valid, its value is not): Find gives readers a resident copy (promoted under the exclusive
// lock later, PromoteReadCopies), FindForWrite and Move promote in place, and Resident gives a
// scan's visitor the value of an object it needs it of.
//
// Thread safety: the caller holds mu(): shared for the methods marked "shared", exclusive for
// everything else. Objects returned are valid while that lock is held. mu() prefers writers (see
// index/rw_lock.h).
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "base/clock.h"
#include "index/ordered_store.h"
#include "index/rw_lock.h"
#include "server/keyspace/cold_tier.h"
#include "server/keyspace/key_tracker.h"
#include "server/keyspace/key_waiters.h"
#include "server/keyspace/lazy_free.h"
#include "server/keyspace/notifier.h"
#include "server/keyspace/object.h"
#include "server/keyspace/watch_registry.h"

namespace ordis::server {

// Told of changes before (and, for expiry, as) they happen; persistence uses it for consistent
// snapshots and for logging expiry deletions. All calls come under the exclusive lock.
class KeyspaceObserver {
 public:
  virtual ~KeyspaceObserver() = default;
  // key in db is about to change (be created, modified in place, get a new TTL, be deleted or
  // moved); obj is what it holds now, nullptr if nothing. The index may already point elsewhere
  // (a write that learns the old value from its own index update reports it then), but obj is
  // still intact: an observer keeps what it needs of obj and must not read the keyspace.
  virtual void BeforeKeyChange(int db, std::string_view key, const Object* obj) = 0;
  // Whether BeforeKeyChange reads obj's value now. A cold value is read from the tier for it only
  // then; otherwise obj may be cold (its header, type and TTL valid, its value not).
  virtual bool WantsValues() const { return true; }
  // Every key of db (all databases if db < 0) is about to change at once: FLUSHDB, FLUSHALL,
  // SWAPDB.
  virtual void BeforeDbChange(int db) = 0;
  // key in db was deleted because its TTL passed.
  virtual void KeyExpired(int db, std::string_view key) = 0;
  // key in db was deleted to make room under maxmemory.
  virtual void KeyEvicted(int db, std::string_view key) = 0;
  // key in db was given the absolute expire time expire_at_ms.
  virtual void ExpireSet(int db, std::string_view key, int64_t expire_at_ms) = 0;
};

// How a deleted value is freed.
enum class FreeMode : uint8_t {
  kSync,  // at once, by the deleting thread
  kLazy,  // on the lazy-free thread when large (LazyFree::Free decides), else at once
};

// Redis's lazyfree-lazy-eviction, lazyfree-lazy-expire and lazyfree-lazy-server-del: whether the
// deletions the server makes on its own free lazily.
struct LazyFreePolicy {
  bool eviction = false;
  bool expire = false;
  bool server_del = false;  // values a command deletes or overwrites as a side effect
};

// A (db, key) whose TTL has passed, seen by a reader that could not delete it.
struct ExpiredKey {
  int db;
  std::string key;
};

class Keyspace {
 public:
  static constexpr int kMaxDatabases = 256;  // the physical db id is one byte of the encoded key

  // The store must be empty. Without one, the learned-index tree with default options.
  Keyspace(int num_dbs, std::unique_ptr<index::OrderedStore> store);
  explicit Keyspace(int num_dbs);
  ~Keyspace();
  Keyspace(const Keyspace&) = delete;
  Keyspace& operator=(const Keyspace&) = delete;

  index::RwLock& mu() { return mu_; }
  int num_dbs() const { return static_cast<int>(physical_.size()); }
  WatchRegistry& watches() { return watches_; }
  // Before any command runs: the blocked clients, told of every key change as WATCHers are.
  void SetKeyWaiters(KeyWaiters* waiters) { waiters_ = waiters; }
  // Any lock. Keyspace notifications: the keyspace raises "expired", "evicted" and "new" (a key
  // added by Set or Move, as Redis's dbAdd) itself, commands the rest.
  KeyspaceNotifier& notifier() { return notifier_; }
  const KeyspaceNotifier& notifier() const { return notifier_; }
  // Any lock. Client-side caching: every key change and flush is reported to its listener.
  KeyTracker& tracker() { return tracker_; }

  // shared. The live object at key, or nullptr. An expired key yields nullptr and is appended to
  // *expired when given. A cold value comes as a resident copy, held for the calling thread until
  // PromoteReadCopies or DropReadCopies; nullptr if its record cannot be read.
  Object* Find(int db, std::string_view key, int64_t now_ms,
               std::vector<ExpiredKey>* expired = nullptr) const;
  // shared. As Find, but a cold object comes as it is ("may be cold": header, type, TTL and
  // access fields valid, value not), read from nowhere: for commands that never look at the
  // value (EXISTS, TYPE, TTL, OBJECT, MEMORY USAGE, WATCH).
  Object* FindHeader(int db, std::string_view key, int64_t now_ms,
                     std::vector<ExpiredKey>* expired = nullptr) const;
  // exclusive. As Find, but deletes an expired key on sight, and promotes a cold value (a key
  // whose record cannot be read is deleted).
  Object* FindForWrite(int db, std::string_view key, int64_t now_ms);
  // exclusive. As FindForWrite for a command that changes only the key's header (EXPIRE,
  // PERSIST: SetExpire): the object may be cold, and its value is not read back.
  Object* FindHeaderForWrite(int db, std::string_view key, int64_t now_ms) {
    return FindLive(db, key, now_ms);
  }
  // exclusive. As FindForWrite for a command that replaces the value whatever it was (SET without
  // GET, MSET): a cold value is not read back, and its object ("may be cold") may be looked at
  // (type, TTL, access) and replaced through Set, not changed in place.
  Object* FindForReplace(int db, std::string_view key, int64_t now_ms);

  // --- the cold tier ---

  // exclusive, at start-up. Values may be demoted to `tier` from now on.
  void SetTier(std::unique_ptr<ColdTier> tier) { tier_ = std::move(tier); }
  ColdTier* tier() const { return tier_.get(); }
  // At start-up: a tier was asked for (tier-dir) but could not open; INFO tiering says why.
  void SetTierUnavailable(std::string why) { tier_unavailable_ = std::move(why); }
  const std::string& tier_unavailable() const { return tier_unavailable_; }
  // exclusive. Sends key's value to the tier if it is demotable (ColdTier::Demotable); true iff
  // it went.
  bool Demote(int db, std::string_view key);
  // shared. obj, which Scan visited at key (or ScanByExpiry, SampleKeys), resident: obj itself or
  // a copy held as Find's; nullptr if its record cannot be read.
  const Object* Resident(int db, std::string_view key, const Object* obj) const;
  // exclusive. Promotes what this thread's readers read cold (Find), as ColdTier::PromoteCopies
  // says (room: memory is under the limit), and drops its copies.
  void PromoteReadCopies(absl::FunctionRef<bool()> room);
  // shared. ColdTier::SelectPromotions: true when some of this thread's copies are to be
  // promoted (PromoteReadCopies, under the exclusive lock); the others are dropped.
  bool SelectReadPromotions(absl::FunctionRef<bool()> room);
  // Any lock. This thread holds copies of cold values.
  bool HasReadCopies() const { return tier_ != nullptr && tier_->HasCopies(); }
  // Any lock. Drops this thread's copies (a scan done with them).
  void DropReadCopies() const {
    if (tier_ != nullptr) tier_->DropCopies();
  }
  // exclusive. Compacts the tier's most garbage-laden segment if at least min_garbage of it is
  // garbage; *segment is the one compacted, -1 if none.
  persistence::Status CompactTier(double min_garbage, int64_t* segment);

  // exclusive. Stores obj at key, replacing (and freeing, as LazyFreePolicy::server_del says) any
  // previous object and its TTL; obj's own expire_at_ms is indexed. Returns the stored object.
  Object* Set(int db, std::string_view key, ObjectPtr obj);
  // exclusive. Removes key; true iff it existed (expired or not). A client's deletion (DEL,
  // UNLINK) says how its value is freed; one a command makes as a side effect follows
  // LazyFreePolicy::server_del.
  bool Delete(int db, std::string_view key, FreeMode free);
  bool Delete(int db, std::string_view key) { return Delete(db, key, ServerDelMode()); }
  // How a deletion because of a TTL frees its value (EXPIRE with a time past deletes as active
  // expiry does: LazyFreePolicy::expire).
  FreeMode expire_free_mode() const { return ModeOf(lazy_expire_); }
  // exclusive. Moves the object at `from` to `to` in db `to_db`, replacing what is there (freed as
  // Set frees it).
  void Move(int db, std::string_view from, int to_db, std::string_view to);
  // exclusive. Sets (kNoExpire clears) the TTL of obj, the object stored at key. Adding or removing
  // a TTL changes the object's size: it moves, and the index is re-pointed. Returns the object to
  // use from then on; obj is invalid when it differs.
  [[nodiscard]] Object* SetExpire(int db, std::string_view key, Object* obj, int64_t expire_at_ms);

  // exclusive. Every change to a key's value made in place (not through Set/Delete/Move/
  // SetExpire, which signal themselves) must call this: it marks WATCHers dirty. (The object
  // came from FindForWrite, which told the observer before the change.)
  void SignalModified(int db, std::string_view key) {
    ++changes_;
    Touched(db, key);
  }

  // exclusive. A change that the log records and persistence counts as unsaved, but that WATCH
  // does not see (Redis's dirty counter): FUNCTION LOAD, DELETE, FLUSH, and a stream's group
  // bookkeeping (XACK, XREADGROUP, XCLAIM, XGROUP CREATE ...).
  void CountChange() { ++changes_; }

  // exclusive. At most one observer; nullptr removes it.
  void SetObserver(KeyspaceObserver* observer) { observer_ = observer; }
  // exclusive. While loading (replaying the append-only log), nothing expires: a replayed
  // command must see the keys its original saw (Redis does the same).
  void SetLoading(bool loading) { loading_ = loading; }
  bool loading() const { return loading_; }
  // Changes made so far (keys set, modified, expired or deleted): rdb_changes_since_last_save.
  uint64_t changes() const { return changes_.load(std::memory_order_relaxed); }

  // exclusive, with no other user of the keyspace (start-up). Loads keys into an empty keyspace
  // through the index's bulk load; next yields (db, key, object) in increasing (db, key) order
  // and returns false at the end. Keys already expired at now_ms are dropped. Returns false (having
  // loaded the keys before it) if the source breaks the order.
  using LoadSource = absl::FunctionRef<bool(int* db, std::string_view* key, ObjectPtr* obj)>;
  bool BulkLoad(LoadSource next, int64_t now_ms);

  // exclusive. Deletes expired keys reported by readers, if they are still expired.
  void ExpireReported(const std::vector<ExpiredKey>& keys, int64_t now_ms);
  // exclusive. Active expiry's step: deletes keys whose expire time is at or before now_ms,
  // soonest first within a database, at most max_keys in all; each call starts with the database
  // after the one the previous call stopped in, so one database's backlog cannot starve the
  // others. Returns how many it deleted; *more_due is set iff due keys remain (max_keys cut it
  // short). Nothing expires while loading.
  size_t ExpireDueKeys(int64_t now_ms, size_t max_keys, bool* more_due);
  // shared. True iff some key may be due at now_ms (a cheap check before taking the exclusive
  // lock; false means none is).
  bool MaybeDue(int64_t now_ms) const;
  // No lock needed. DEBUG SET-ACTIVE-EXPIRE: off, expired keys go only when a command meets them.
  void SetActiveExpire(bool on) { active_expire_.store(on, std::memory_order_relaxed); }
  bool active_expire() const { return active_expire_.load(std::memory_order_relaxed); }

  // exclusive. FreeMode::kLazy hands every value of the flushed keys to the lazy-free thread
  // (Redis's emptyDbAsync), whatever its size; the index is emptied here either way.
  void FlushDb(int db, FreeMode free = FreeMode::kSync);
  void FlushAll(FreeMode free = FreeMode::kSync);
  void SwapDb(int a, int b);

  // shared. Visits live keys of db in order from start (a user key bound) until visit returns
  // false. Expired keys are skipped (and reported when expired is given). Objects may be cold
  // (Resident gives the value).
  using KeyVisitor = absl::FunctionRef<bool(std::string_view key, Object* obj)>;
  void Scan(int db, const index::ScanStart& start, index::Direction direction, int64_t now_ms,
            KeyVisitor visit, std::vector<ExpiredKey>* expired = nullptr) const;

  // No lock needed. Prefetches the index entries of these keys and the objects they point to (a
  // hint; see OrderedStore).
  struct KeyRef {
    int db;
    std::string_view key;
    bool write = false;  // the batch's command writes it
  };
  void Prefetch(std::span<const KeyRef> keys) const;
  // shared. The prefetch of one batch (cold_tier.h): of these keys, whose values the batch
  // needs, those the Host View does not hold are looked up, and the reads of the cold ones on
  // disk queued in prefetcher for waiter. Returns how many reads the batch waits for (0: it may
  // run now). The caller submits them before it lets go of the lock: no compaction may close a
  // segment file they name (its descriptor number could be reused) before the kernel holds it.
  size_t ReadAhead(std::span<const KeyRef> keys, uint64_t waiter,
                   offload::Prefetcher& prefetcher) const;

  // shared. Visits db's keys with a TTL in expiry order, soonest first (expired ones included),
  // until visit returns false (volatile-ttl eviction). Objects may be cold.
  using TtlVisitor =
      absl::FunctionRef<bool(std::string_view key, int64_t expire_at_ms, Object* obj)>;
  void ScanByExpiry(int db, TtlVisitor visit) const;

  // shared. Keys in db, counting expired keys not yet deleted (as Redis's DBSIZE does).
  size_t DbSize(int db) const;
  // shared. Keys in db with a TTL, expired ones not yet deleted included.
  size_t ExpiresCount(int db) const;
  // shared. Keys of every database whose values are in memory: all of them without a cold tier.
  uint64_t ResidentKeys() const;
  // shared. Average remaining ms over db's keys with a TTL (a past TTL counts 0), 0 if none.
  // Exact unless more than 1024 keys are due and not yet deleted (active expiry behind): then a
  // little low.
  int64_t AvgTtlMs(int db, int64_t now_ms) const;

  // exclusive (it may delete expired keys it lands on). A random live key of db, or false.
  bool RandomKey(int db, int64_t now_ms, std::string* out);

  // exclusive. Visits up to `count` keys of db picked at random from each of `runs` random
  // points (fewer if db has fewer), only keys with a TTL when with_ttl; expired keys not yet
  // deleted included. For eviction, which wants many cheap samples rather than independent ones:
  // a run of neighbours from each point (index::OrderedStore::Sample), each key about equally
  // likely to be in it; the runs of one call overlap their cache misses. Objects may be cold.
  using SampleVisitor = absl::FunctionRef<void(std::string_view key, Object* obj)>;
  void SampleKeys(int db, bool with_ttl, int count, int runs, SampleVisitor visit);
  // exclusive. The object at key, expired or not, maybe cold (tests age keys through it).
  Object* FindAny(int db, std::string_view key) const { return Lookup(db, key); }
  // exclusive. Deletes key to make room under maxmemory, if it exists (and has a TTL when
  // only_with_ttl: a pooled candidate may have lost it since), its value freed as
  // LazyFreePolicy::eviction says; true iff it went. With `busy` given, a key the index could
  // erase only after rebuilding its node (OrderedStore::TryErasePresent) stays, and *busy says so.
  bool Evict(int db, std::string_view key, bool only_with_ttl, bool* busy = nullptr);

  // No lock needed. The switches for the server's own deletions (CONFIG SET may change them while
  // commands run; a deletion reads them once).
  void SetLazyFreePolicy(const LazyFreePolicy& policy) {
    lazy_eviction_.store(policy.eviction, std::memory_order_relaxed);
    lazy_expire_.store(policy.expire, std::memory_order_relaxed);
    lazy_server_del_.store(policy.server_del, std::memory_order_relaxed);
  }
  // No lock needed. The thread lazily freed values go to (INFO's figures, eviction's wait).
  LazyFree& lazy_free() { return lazy_free_; }
  const LazyFree& lazy_free() const { return lazy_free_; }

  // No lock needed (the store is thread safe). The store's own figures for INFO's index section;
  // keys counts every record of the store: one per key, one more per key with a TTL.
  index::IndexStats IndexStats() const { return store_->Stats(); }
  // Index memory on its way back (index::OrderedStore::RetiredBytes). Any thread, no lock.
  uint64_t IndexRetiredBytes() const { return store_->RetiredBytes(); }

  uint64_t expired_keys() const { return expired_keys_.load(std::memory_order_relaxed); }
  uint64_t evicted_keys() const { return evicted_keys_.load(std::memory_order_relaxed); }
  void ResetStats() {
    expired_keys_.store(0, std::memory_order_relaxed);
    evicted_keys_.store(0, std::memory_order_relaxed);
    lazy_free_.ResetStats();
  }

  // Bytes one key/object pair occupies, for MEMORY USAGE (approximate, as Redis's).
  static size_t MemoryUsage(std::string_view key, const Object& obj);

 private:
  // A database's counts, by physical id (they move with it on SWAPDB).
  struct Db {
    size_t keys = 0;      // entries in its key space
    size_t ttl_keys = 0;  // entries in its TTL space
    // Sum of the TTL entries' expire times (for AvgTtlMs; 128 bits: 10M times near 2^41 overflow
    // 64).
    __int128 ttl_sum_ms = 0;
    // No TTL entry expires before this: where the expiry walk seeks. Lowered by every TTL added,
    // set by each walk to the first entry it left; INT64_MAX when there is none.
    int64_t ttl_floor_ms = INT64_MAX;
  };

  std::string& EncodeKey(int db, std::string_view key) const;
  // [physical db][0x02][expire_at_ms][key], in a second per-thread buffer (EncodeKey's may be in
  // use).
  std::string& EncodeTtlKey(int db, int64_t expire_at_ms, std::string_view key) const;
  Db& PhysicalDb(int db) { return dbs_[physical_[db].load(std::memory_order_relaxed)]; }
  const Db& PhysicalDb(int db) const { return dbs_[physical_[db].load(std::memory_order_relaxed)]; }
  Object* Lookup(int db, std::string_view key) const;
  // exclusive. The object at key, maybe cold, or nullptr; an expired key is deleted on sight.
  Object* FindLive(int db, std::string_view key, int64_t now_ms);
  // The object at an encoded key ([db][space][key]: a tier record's key), or nullptr.
  Object* LookupEncoded(std::string_view encoded) const;
  // The TTL entry of obj (stored at key) is added, removed or re-pointed; obj->expire_at_ms names
  // it. No-ops for an object without a TTL.
  void TtlAdd(int db, Db& d, std::string_view key, Object* obj);
  void TtlRemove(int db, Db& d, std::string_view key, const Object* obj);
  void Free(Object* obj, FreeMode free) {
    if (obj->cold()) tier_->Forget(*obj);
    if (free == FreeMode::kLazy) {
      lazy_free_.Free(obj);
    } else {
      FreeObject(obj);
    }
  }
  static FreeMode ModeOf(const std::atomic<bool>& lazy) {
    return lazy.load(std::memory_order_relaxed) ? FreeMode::kLazy : FreeMode::kSync;
  }
  FreeMode ServerDelMode() const { return ModeOf(lazy_server_del_); }
  // Deletes key, found holding obj: its index entry, then Deleted.
  void DeleteFound(int db, Db& d, std::string_view key, Object* obj, FreeMode free);
  // The rest of a deletion once key's index entry (which held obj) is erased: observers told, the
  // TTL entry and the count dropped, obj freed as `free` says, WATCHers touched.
  void Deleted(int db, Db& d, std::string_view key, Object* obj, FreeMode free);
  void DeleteExpired(int db, std::string_view key);
  // As DeleteExpired, for an object the TTL walk found.
  void RemoveExpired(int db, Db& d, std::string_view key, Object* obj);
  // Due keys of one database, soonest first, at most max_keys: appended to due_.
  void CollectDue(int db, int64_t now_ms, size_t max_keys);
  // The soonest expire time in db (INT64_MAX if none), which becomes its floor.
  int64_t FirstExpiry(int db);
  // Frees every object (as `free` says) and empties the index (every database).
  void ClearAll(FreeMode free);

  bool IsExpired(const Object* obj, int64_t now_ms) const {
    return !loading_ && obj->has_ttl() && obj->expire_at_ms() <= now_ms;
  }
  void NotifyBeforeChange(int db, std::string_view key, const Object* obj) {
    ++changes_;
    if (observer_ == nullptr) return;
    // The observer may keep the old value (a snapshot's pre-image): it needs it resident, in a
    // copy freed as soon as it is told (deletions run on threads that never drop held copies).
    if (obj != nullptr && obj->cold() && observer_->WantsValues()) {
      ObjectPtr copy = tier_->LoadCopy(EncodeKey(db, key), *obj);
      observer_->BeforeKeyChange(db, key, copy.get());  // nullptr: the value is lost
      return;
    }
    observer_->BeforeKeyChange(db, key, obj);
  }
  // Cold obj at key made resident in place; a key whose record cannot be read is deleted, and
  // false returned.
  bool PromoteOrLose(int db, std::string_view key, Object* obj);

  mutable index::RwLock mu_;
  KeyspaceObserver* observer_ = nullptr;  // exclusive
  bool loading_ = false;                  // exclusive
  std::atomic<bool> active_expire_{true};
  // Written under the exclusive lock, read by INFO without it.
  std::atomic<uint64_t> changes_{0};
  std::unique_ptr<index::OrderedStore> store_;
  // Logical db -> physical id. Atomic only so Prefetch may read it without the lock (relaxed: a
  // stale id just prefetches the wrong lines); changed by SwapDb under the exclusive lock.
  std::vector<std::atomic<uint8_t>> physical_;
  std::vector<Db> dbs_;  // by physical id
  WatchRegistry watches_;
  KeyWaiters* waiters_ = nullptr;
  // Tell WATCHers and blocked clients that key (every key of db) changed.
  void Touched(int db, std::string_view key, bool deleted = false) {
    watches_.Touch(db, key, deleted);
    if (waiters_ != nullptr && waiters_->waiting()) waiters_->KeyChanged(db, key);
    tracker_.KeyChanged(key);
  }
  void TouchedDb(int db) {
    watches_.TouchDb(db);
    if (waiters_ != nullptr && waiters_->waiting()) waiters_->DbChanged(db);
  }
  KeyspaceNotifier notifier_;
  KeyTracker tracker_;
  std::atomic<uint64_t> expired_keys_{0};
  std::atomic<uint64_t> evicted_keys_{0};
  std::atomic<bool> lazy_eviction_{false};
  std::atomic<bool> lazy_expire_{false};
  std::atomic<bool> lazy_server_del_{false};
  // Values handed over are unlinked: it may go before or after the store.
  LazyFree lazy_free_;
  std::unique_ptr<ColdTier> tier_;  // nullptr: no tier
  std::string tier_unavailable_;
  std::mt19937_64 rng_{0x6f726469};  // exclusive: RANDOMKEY
  // exclusive: SampleKeys' runs, their keys back to back in one buffer (kept between calls), each
  // sample its key's end there and its object.
  struct SampledKey {
    size_t key_end;
    Object* obj;
  };
  std::vector<SampledKey> sample_scratch_;
  std::string sample_keys_;
  std::vector<uint64_t> sample_randoms_;  // exclusive: SampleKeys' points
  // exclusive: ExpireDueKeys's next database, and its scratch (the due keys' bytes back to back).
  int expire_next_db_ = 0;
  struct DueKey {
    uint32_t offset, size;
    Object* obj;
  };
  std::vector<DueKey> due_;
  std::string due_bytes_;
};

}  // namespace ordis::server
