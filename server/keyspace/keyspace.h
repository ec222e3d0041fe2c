// Keyspace: Redis's databases over the one ordered index.
//
// Every key of every database lives in one index::OrderedStore under the encoded key
// [physical db][space][user key]. The space byte leaves room for the sub-records of later types
// (sorted-set members and scores) without disturbing the order of top-level keys. Logical database
// numbers map to physical ids so SWAPDB is O(1).
//
// Expiry: a key past its TTL is logically gone at once. Readers (shared lock) skip it and report it
// through `expired` so the caller can delete it afterwards under the exclusive lock (lazy expiry);
// writers delete it on sight. ActiveExpireCycle samples keys with a TTL as Redis does.
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
#include "server/keyspace/object.h"
#include "server/keyspace/watch_registry.h"

namespace ordis::server {

// Told of changes before (and, for expiry, as) they happen; persistence uses it for consistent
// snapshots and for logging expiry deletions. All calls come under the exclusive lock.
class KeyspaceObserver {
 public:
  virtual ~KeyspaceObserver() = default;
  // key in db is about to change (be created, modified in place, get a new TTL, be deleted or
  // moved); obj is what it holds now, nullptr if nothing.
  virtual void BeforeKeyChange(int db, std::string_view key, const Object* obj) = 0;
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

  // shared. The live object at key, or nullptr. An expired key yields nullptr and is appended to
  // *expired when given.
  Object* Find(int db, std::string_view key, int64_t now_ms,
               std::vector<ExpiredKey>* expired = nullptr) const;
  // exclusive. As Find, but deletes an expired key on sight.
  Object* FindForWrite(int db, std::string_view key, int64_t now_ms);

  // exclusive. Stores obj at key, replacing (and freeing) any previous object and its TTL; obj's
  // own expire_at_ms is indexed. Returns the stored object.
  Object* Set(int db, std::string_view key, std::unique_ptr<Object> obj);
  // exclusive. Removes key; true iff it existed (expired or not).
  bool Delete(int db, std::string_view key);
  // exclusive. Moves the object at `from` to `to` in db `to_db`, replacing what is there.
  void Move(int db, std::string_view from, int to_db, std::string_view to);
  // exclusive. Sets (kNoExpire clears) the TTL of an object stored at key.
  void SetExpire(int db, std::string_view key, Object* obj, int64_t expire_at_ms);

  // exclusive. Every change to a key's value made in place (not through Set/Delete/Move/
  // SetExpire, which signal themselves) must call this: it marks WATCHers dirty. (The object
  // came from FindForWrite, which told the observer before the change.)
  void SignalModified(int db, std::string_view key) {
    ++changes_;
    watches_.Touch(db, key);
  }

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
  using LoadSource =
      absl::FunctionRef<bool(int* db, std::string_view* key, std::unique_ptr<Object>* obj)>;
  bool BulkLoad(LoadSource next, int64_t now_ms);

  // exclusive. Deletes expired keys reported by readers, if they are still expired.
  void ExpireReported(const std::vector<ExpiredKey>& keys, int64_t now_ms);
  // exclusive. One round of Redis's active expiry over every database: samples up to
  // `samples` keys with a TTL per database, deleting expired ones; returns how many it deleted.
  size_t ActiveExpireCycle(int64_t now_ms, int samples);

  // exclusive.
  void FlushDb(int db);
  void FlushAll();
  void SwapDb(int a, int b);

  // shared. Visits live keys of db in order from start (a user key bound) until visit returns
  // false. Expired keys are skipped (and reported when expired is given).
  using KeyVisitor = absl::FunctionRef<bool(std::string_view key, Object* obj)>;
  void Scan(int db, const index::ScanStart& start, index::Direction direction, int64_t now_ms,
            KeyVisitor visit, std::vector<ExpiredKey>* expired = nullptr) const;

  // No lock needed. Prefetches the index entries of these keys and the objects they point to (a
  // hint; see OrderedStore).
  struct KeyRef {
    int db;
    std::string_view key;
  };
  void Prefetch(std::span<const KeyRef> keys) const;

  // shared. Keys in db, counting expired keys not yet deleted (as Redis's DBSIZE does).
  size_t DbSize(int db) const;
  size_t ExpiresCount(int db) const;
  // shared. Sum over keys with a TTL sampled cheaply: average remaining ms, 0 if none.
  int64_t AvgTtlMs(int db, int64_t now_ms) const;

  // exclusive (it may delete expired keys it lands on). A random live key of db, or false.
  bool RandomKey(int db, int64_t now_ms, std::string* out);

  // exclusive. Visits up to `count` keys of db picked at random (fewer if db has fewer), only
  // keys with a TTL when with_ttl; expired keys not yet deleted included. For eviction, which
  // wants many cheap samples rather than independent ones: a run of neighbours from a random
  // point (index::OrderedStore::RandomPoint), each key about equally likely to start it.
  using SampleVisitor = absl::FunctionRef<void(std::string_view key, Object* obj)>;
  void SampleKeys(int db, bool with_ttl, int count, SampleVisitor visit);
  // exclusive. The object at key, expired or not (eviction checks its pooled candidates).
  Object* FindAny(int db, std::string_view key) const { return Lookup(db, key); }
  // exclusive. Deletes key to make room under maxmemory; true iff it existed.
  bool Evict(int db, std::string_view key);

  // No lock needed (the store is thread safe). The store's own figures for INFO's index section;
  // keys counts every record of the store (today one per top-level key).
  index::IndexStats IndexStats() const { return store_->Stats(); }

  uint64_t expired_keys() const { return expired_keys_.load(std::memory_order_relaxed); }
  uint64_t evicted_keys() const { return evicted_keys_.load(std::memory_order_relaxed); }
  void ResetStats() {
    expired_keys_.store(0, std::memory_order_relaxed);
    evicted_keys_.store(0, std::memory_order_relaxed);
  }

  // Bytes one key/object pair occupies, for MEMORY USAGE (approximate, as Redis's).
  static size_t MemoryUsage(std::string_view key, const Object& obj);

 private:
  struct Db {
    size_t keys = 0;
    std::vector<std::string> ttl_keys;  // keys with a TTL; Object::ttl_slot indexes this
  };

  std::string& EncodeKey(int db, std::string_view key) const;
  Db& PhysicalDb(int db) { return dbs_[physical_[db].load(std::memory_order_relaxed)]; }
  const Db& PhysicalDb(int db) const { return dbs_[physical_[db].load(std::memory_order_relaxed)]; }
  Object* Lookup(int db, std::string_view key) const;
  void TtlAdd(Db& d, std::string_view key, Object* obj);
  void TtlRemove(int db, Db& d, Object* obj);
  void DeleteExpired(int db, std::string_view key);
  void FreeObject(Object* obj);
  // Frees every object and empties the index (every database).
  void ClearAll();

  bool IsExpired(const Object* obj, int64_t now_ms) const {
    return !loading_ && obj->expire_at_ms != kNoExpire && obj->expire_at_ms <= now_ms;
  }
  void NotifyBeforeChange(int db, std::string_view key, const Object* obj) {
    ++changes_;
    if (observer_ != nullptr) observer_->BeforeKeyChange(db, key, obj);
  }

  mutable index::RwLock mu_;
  KeyspaceObserver* observer_ = nullptr;  // exclusive
  bool loading_ = false;                  // exclusive
  // Written under the exclusive lock, read by INFO without it.
  std::atomic<uint64_t> changes_{0};
  std::unique_ptr<index::OrderedStore> store_;
  // Logical db -> physical id. Atomic only so Prefetch may read it without the lock (relaxed: a
  // stale id just prefetches the wrong lines); changed by SwapDb under the exclusive lock.
  std::vector<std::atomic<uint8_t>> physical_;
  std::vector<Db> dbs_;  // by physical id
  WatchRegistry watches_;
  std::atomic<uint64_t> expired_keys_{0};
  std::atomic<uint64_t> evicted_keys_{0};
  std::mt19937_64 rng_{0x6f726469};  // exclusive: sampling and RANDOMKEY
};

}  // namespace ordis::server
