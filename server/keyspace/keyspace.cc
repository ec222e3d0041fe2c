#include "server/keyspace/keyspace.h"

#include <time.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cstring>
#include <mutex>
#include <utility>

#include "index/learned_store.h"

namespace ordis::server {
namespace {

// The spaces of a database (see keyspace.h).
constexpr char kSpaceKeys = 0x01;
constexpr char kSpaceTtl = 0x02;
constexpr size_t kPrefixLen = 2;                  // [db][space]
constexpr size_t kTtlPrefixLen = kPrefixLen + 8;  // [db][0x02][expire_at_ms]
// Keys a flush collects at a time (and hands to the lazy-free thread at a time).
constexpr size_t kFlushBatch = 4096;

// Big-endian with the sign bit flipped: byte order is numeric order, negative times included.
void AppendTime(std::string* out, int64_t ms) {
  uint64_t u = static_cast<uint64_t>(ms) ^ (uint64_t{1} << 63);
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(static_cast<char>(u >> shift));
}

int64_t ReadTime(std::string_view encoded_ttl_key) {
  uint64_t u = 0;
  for (size_t i = kPrefixLen; i < kTtlPrefixLen; ++i) {
    u = (u << 8) | static_cast<unsigned char>(encoded_ttl_key[i]);
  }
  return static_cast<int64_t>(u ^ (uint64_t{1} << 63));
}

Object* ToObject(index::ValueHandle h) { return reinterpret_cast<Object*>(h); }
index::ValueHandle ToHandle(Object* obj) { return reinterpret_cast<index::ValueHandle>(obj); }

// The values a flush drops: freed at once, or handed to the lazy-free thread kFlushBatch at a time,
// so that it frees while the flush goes on.
class FlushedValues {
 public:
  FlushedValues(LazyFree& lazy_free, FreeMode free, ColdTier* tier)
      : lazy_free_(lazy_free), free_(free), tier_(tier) {}
  ~FlushedValues() { lazy_free_.FreeAll(pending_); }
  FlushedValues(const FlushedValues&) = delete;
  FlushedValues& operator=(const FlushedValues&) = delete;

  void Add(Object* obj) {
    if (obj->cold()) tier_->Forget(*obj);
    if (free_ == FreeMode::kSync) {
      FreeObject(obj);
      return;
    }
    pending_.push_back(obj);
    if (pending_.size() == kFlushBatch) {
      lazy_free_.FreeAll(pending_);
      pending_.clear();
    }
  }

 private:
  LazyFree& lazy_free_;
  const FreeMode free_;
  ColdTier* const tier_;
  std::vector<Object*> pending_;
};

}  // namespace

Keyspace::Keyspace(int num_dbs, std::unique_ptr<index::OrderedStore> store)
    : store_(std::move(store)), physical_(num_dbs), dbs_(num_dbs) {
  assert(store_ != nullptr && store_->size() == 0);
  for (int i = 0; i < num_dbs; ++i) physical_[i].store(static_cast<uint8_t>(i));
}

Keyspace::Keyspace(int num_dbs) : Keyspace(num_dbs, index::NewLearnedStore()) {}

Keyspace::~Keyspace() {
  std::unique_lock lock(mu_);
  ClearAll(FreeMode::kSync);
}

std::string& Keyspace::EncodeKey(int db, std::string_view key) const {
  // One scratch buffer per thread: encoding is on every command's path and must not allocate.
  thread_local std::string buf;
  buf.clear();
  buf.push_back(static_cast<char>(physical_[db].load(std::memory_order_relaxed)));
  buf.push_back(kSpaceKeys);
  buf.append(key);
  return buf;
}

std::string& Keyspace::EncodeTtlKey(int db, int64_t expire_at_ms, std::string_view key) const {
  thread_local std::string buf;
  buf.clear();
  buf.push_back(static_cast<char>(physical_[db].load(std::memory_order_relaxed)));
  buf.push_back(kSpaceTtl);
  AppendTime(&buf, expire_at_ms);
  buf.append(key);
  return buf;
}

Object* Keyspace::Lookup(int db, std::string_view key) const {
  return LookupEncoded(EncodeKey(db, key));
}

Object* Keyspace::LookupEncoded(std::string_view encoded) const {
  auto h = store_->Get(encoded);
  return h ? ToObject(*h) : nullptr;
}

Object* Keyspace::FindHeader(int db, std::string_view key, int64_t now_ms,
                             std::vector<ExpiredKey>* expired) const {
  Object* obj = Lookup(db, key);
  if (obj == nullptr || !IsExpired(obj, now_ms)) return obj;
  if (expired != nullptr) expired->push_back({db, std::string(key)});
  return nullptr;
}

Object* Keyspace::Find(int db, std::string_view key, int64_t now_ms,
                       std::vector<ExpiredKey>* expired) const {
  Object* obj = FindHeader(db, key, now_ms, expired);
  if (obj != nullptr && obj->cold()) return tier_->Copy(EncodeKey(db, key), *obj, /*promote=*/true);
  return obj;
}

Object* Keyspace::FindLive(int db, std::string_view key, int64_t now_ms) {
  Object* obj = Lookup(db, key);
  if (obj == nullptr || !IsExpired(obj, now_ms)) return obj;
  DeleteExpired(db, key);
  return nullptr;
}

Object* Keyspace::FindForWrite(int db, std::string_view key, int64_t now_ms) {
  Object* obj = FindLive(db, key, now_ms);
  if (obj == nullptr || (obj->cold() && !PromoteOrLose(db, key, obj))) return nullptr;
  // The caller may change obj in place from here on: its size for the tier too.
  obj->set_demotion_refused(false);
  NotifyBeforeChange(db, key, obj);
  return obj;
}

Object* Keyspace::FindForReplace(int db, std::string_view key, int64_t now_ms) {
  Object* obj = FindLive(db, key, now_ms);
  // A resident value may be changed in place from here on; a cold one is replaced by Set, which
  // tells the observer itself.
  if (obj != nullptr && !obj->cold()) NotifyBeforeChange(db, key, obj);
  return obj;
}

bool Keyspace::PromoteOrLose(int db, std::string_view key, Object* obj) {
  if (tier_->Promote(EncodeKey(db, key), obj)) return true;
  DeleteFound(db, PhysicalDb(db), key, obj, FreeMode::kSync);
  return false;
}

bool Keyspace::Demote(int db, std::string_view key) {
  Object* obj = Lookup(db, key);
  return obj != nullptr && tier_->Demotable(*obj) && tier_->Demote(EncodeKey(db, key), obj);
}

const Object* Keyspace::Resident(int db, std::string_view key, const Object* obj) const {
  if (!obj->cold()) return obj;
  return tier_->Copy(EncodeKey(db, key), *obj, /*promote=*/false);
}

bool Keyspace::SelectReadPromotions(absl::FunctionRef<bool()> room) {
  if (tier_ == nullptr) return false;
  return tier_->SelectPromotions(
      [&](std::string_view record_key) { return LookupEncoded(record_key); }, room);
}

void Keyspace::PromoteReadCopies(absl::FunctionRef<bool()> room) {
  if (tier_ == nullptr) return;
  tier_->PromoteCopies([&](std::string_view record_key) { return LookupEncoded(record_key); },
                       room);
}

size_t Keyspace::ReadAhead(std::span<const KeyRef> keys, uint64_t waiter,
                           offload::Prefetcher& prefetcher) const {
  if (tier_ == nullptr || keys.empty()) return 0;
  std::vector<uint64_t> digests(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    digests[i] = offload::HostView::Digest(EncodeKey(keys[i].db, keys[i].key));
  }
  std::unique_ptr<bool[]> resident(new bool[keys.size()]());
  if (const offload::HostView* view = tier_->host_view(); view != nullptr) {
    view->Lookup(digests, std::span<bool>(resident.get(), keys.size()));
  }
  size_t queued = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (resident[i]) continue;
    const std::string& encoded = EncodeKey(keys[i].db, keys[i].key);
    const Object* obj = LookupEncoded(encoded);
    if (obj == nullptr) continue;
    if (!obj->cold()) {
      tier_->LearnResident(digests[i]);
    } else if (tier_->ReadAhead(encoded, digests[i], *obj, waiter, prefetcher)) {
      ++queued;
    }
  }
  return queued;
}

persistence::Status Keyspace::CompactTier(double min_garbage, int64_t* segment) {
  *segment = -1;
  if (tier_ == nullptr) return persistence::Status::Ok();
  // A record's key is the encoded key it was demoted from.
  return tier_->Compact(
      min_garbage,
      [&](std::string_view record_key, const offload::TierLocation& at) {
        const Object* obj = LookupEncoded(record_key);
        return obj != nullptr && obj->cold() && obj->cold_location() == at;
      },
      [&](std::string_view record_key, const offload::TierLocation& to) {
        LookupEncoded(record_key)->MoveCold(to);
      },
      segment);
}

void Keyspace::TtlAdd(int db, Db& d, std::string_view key, Object* obj) {
  const int64_t at = obj->expire_at_ms();
  if (at == kNoExpire) return;
  if (!store_->Put(EncodeTtlKey(db, at, key), ToHandle(obj))) {
    ++d.ttl_keys;
    d.ttl_sum_ms += at;
  }
  d.ttl_floor_ms = std::min(d.ttl_floor_ms, at);
}

void Keyspace::TtlRemove(int db, Db& d, std::string_view key, const Object* obj) {
  const int64_t at = obj->expire_at_ms();
  if (at == kNoExpire) return;
  [[maybe_unused]] auto erased = store_->ErasePresent(EncodeTtlKey(db, at, key));
  assert(erased && ToObject(*erased) == obj);
  --d.ttl_keys;
  d.ttl_sum_ms -= at;
}

Object* Keyspace::Set(int db, std::string_view key, ObjectPtr obj) {
  Db& d = PhysicalDb(db);
  Object* raw = obj.release();
  // The old value comes from the Put, not a lookup before it: one descent, not two.
  auto old = store_->Put(EncodeKey(db, key), ToHandle(raw));
  NotifyBeforeChange(db, key, old ? ToObject(*old) : nullptr);
  if (old) {
    Object* prev = ToObject(*old);
    // The same expire time keeps its TTL entry, re-pointed by TtlAdd's Put.
    if (prev->expire_at_ms() != raw->expire_at_ms()) TtlRemove(db, d, key, prev);
    Free(prev, ServerDelMode());
  } else {
    ++d.keys;
    notifier_.Notify(keyspace_events::kNew, "new", db, key);
  }
  if (raw->has_ttl()) {
    TtlAdd(db, d, key, raw);
    if (observer_ != nullptr) observer_->ExpireSet(db, key, raw->expire_at_ms());
  }
  Touched(db, key);
  return raw;
}

bool Keyspace::Delete(int db, std::string_view key, FreeMode free) {
  Db& d = PhysicalDb(db);
  Object* obj = Lookup(db, key);
  if (obj == nullptr) return false;
  DeleteFound(db, d, key, obj, free);
  return true;
}

void Keyspace::DeleteFound(int db, Db& d, std::string_view key, Object* obj, FreeMode free) {
  [[maybe_unused]] auto erased = store_->ErasePresent(EncodeKey(db, key));
  assert(erased && ToObject(*erased) == obj);
  Deleted(db, d, key, obj, free);
}

void Keyspace::Deleted(int db, Db& d, std::string_view key, Object* obj, FreeMode free) {
  NotifyBeforeChange(db, key, obj);  // obj is still whole: observers may be told after the erase
  TtlRemove(db, d, key, obj);
  --d.keys;
  if (tier_ != nullptr && tier_->host_view() != nullptr) tier_->KeyGone(EncodeKey(db, key));
  Free(obj, free);
  Touched(db, key, /*deleted=*/true);
}

void Keyspace::DeleteExpired(int db, std::string_view key) {
  if (!Delete(db, key, ModeOf(lazy_expire_))) return;
  expired_keys_.fetch_add(1, std::memory_order_relaxed);
  if (observer_ != nullptr) observer_->KeyExpired(db, key);
  notifier_.Notify(keyspace_events::kExpired, "expired", db, key);
}

void Keyspace::RemoveExpired(int db, Db& d, std::string_view key, Object* obj) {
  DeleteFound(db, d, key, obj, ModeOf(lazy_expire_));
  expired_keys_.fetch_add(1, std::memory_order_relaxed);
  if (observer_ != nullptr) observer_->KeyExpired(db, key);
  notifier_.Notify(keyspace_events::kExpired, "expired", db, key);
}

bool Keyspace::Evict(int db, std::string_view key, bool only_with_ttl, bool* busy) {
  Db& d = PhysicalDb(db);
  if (only_with_ttl) {
    Object* obj = Lookup(db, key);
    if (obj == nullptr || !obj->has_ttl()) return false;  // PERSIST since it was pooled
    DeleteFound(db, d, key, obj, ModeOf(lazy_eviction_));
  } else {
    // A pooled key is most likely still there: erased in one descent, not a lookup and then
    // another, and the value learned from the erase.
    std::optional<index::ValueHandle> erased;
    if (busy == nullptr) {
      erased = store_->ErasePresent(EncodeKey(db, key));
    } else if (!store_->TryErasePresent(EncodeKey(db, key), &erased)) {
      *busy = true;
      return false;
    }
    if (!erased) return false;
    Deleted(db, d, key, ToObject(*erased), ModeOf(lazy_eviction_));
  }
  evicted_keys_.fetch_add(1, std::memory_order_relaxed);
  if (observer_ != nullptr) observer_->KeyEvicted(db, key);
  notifier_.Notify(keyspace_events::kEvicted, "evicted", db, key);
  return true;
}

void Keyspace::Move(int db, std::string_view from, int to_db, std::string_view to) {
  Db& src = PhysicalDb(db);
  Object* obj = Lookup(db, from);
  if (obj == nullptr) return;
  // A record names its key: a value moving to another key or database comes back first.
  if (obj->cold() && !PromoteOrLose(db, from, obj)) return;
  NotifyBeforeChange(db, from, obj);
  TtlRemove(db, src, from, obj);
  store_->ErasePresent(EncodeKey(db, from));
  --src.keys;
  Touched(db, from);
  Set(to_db, to, ObjectPtr(obj));
}

Object* Keyspace::SetExpire(int db, std::string_view key, Object* obj, int64_t expire_at_ms) {
  Db& d = PhysicalDb(db);
  NotifyBeforeChange(db, key, obj);
  if (obj->expire_at_ms() != expire_at_ms) {
    TtlRemove(db, d, key, obj);
    Object* moved = SetObjectExpire(obj, expire_at_ms);
    if (moved != obj) store_->Put(EncodeKey(db, key), ToHandle(moved));
    obj = moved;
    TtlAdd(db, d, key, obj);
  }
  if (expire_at_ms != kNoExpire && observer_ != nullptr) {
    observer_->ExpireSet(db, key, expire_at_ms);
  }
  Touched(db, key);
  return obj;
}

void Keyspace::ExpireReported(const std::vector<ExpiredKey>& keys, int64_t now_ms) {
  for (const ExpiredKey& k : keys) {
    if (k.db >= num_dbs()) continue;  // databases may have been reconfigured meanwhile
    Object* obj = Lookup(k.db, k.key);
    if (obj != nullptr && IsExpired(obj, now_ms)) DeleteExpired(k.db, k.key);
  }
}

bool Keyspace::MaybeDue(int64_t now_ms) const {
  if (loading_) return false;
  for (const Db& d : dbs_) {
    if (d.ttl_keys > 0 && d.ttl_floor_ms <= now_ms) return true;
  }
  return false;
}

void Keyspace::CollectDue(int db, int64_t now_ms, size_t max_keys) {
  Db& d = PhysicalDb(db);
  std::string start = EncodeTtlKey(db, d.ttl_floor_ms, {});
  const std::string_view prefix = std::string_view(start).substr(0, kPrefixLen);
  const size_t first = due_.size();
  int64_t floor = INT64_MAX;  // the walk met no entry left behind
  store_->Scan(index::ScanStart::At(start), index::Direction::kForward,
               [&](std::string_view k, index::ValueHandle h) {
                 if (k.substr(0, kPrefixLen) != prefix) return false;
                 const int64_t at = ReadTime(k);
                 if (at > now_ms || due_.size() - first == max_keys) {
                   floor = at;
                   return false;
                 }
                 std::string_view user_key = k.substr(kTtlPrefixLen);
                 due_.push_back({static_cast<uint32_t>(due_bytes_.size()),
                                 static_cast<uint32_t>(user_key.size()), ToObject(h)});
                 due_bytes_.append(user_key);
                 return true;
               });
  d.ttl_floor_ms = floor;
}

int64_t Keyspace::FirstExpiry(int db) {
  Db& d = PhysicalDb(db);
  if (d.ttl_keys == 0) return INT64_MAX;
  const std::string start = EncodeTtlKey(db, d.ttl_floor_ms, {});
  const std::string_view prefix = std::string_view(start).substr(0, kPrefixLen);
  int64_t first = INT64_MAX;
  store_->Scan(index::ScanStart::At(start), index::Direction::kForward,
               [&](std::string_view k, index::ValueHandle) {
                 if (k.substr(0, kPrefixLen) == prefix) first = ReadTime(k);
                 return false;
               });
  d.ttl_floor_ms = first;
  return first;
}

size_t Keyspace::ExpireDueKeys(int64_t now_ms, size_t max_keys, bool* more_due) {
  *more_due = false;
  if (loading_) return 0;
  size_t deleted = 0;
  const int n = num_dbs();
  for (int i = 0; i < n && deleted < max_keys; ++i) {
    const int db = (expire_next_db_ + i) % n;
    Db& d = PhysicalDb(db);
    if (d.ttl_keys == 0 || d.ttl_floor_ms > now_ms) continue;
    due_.clear();
    due_bytes_.clear();
    CollectDue(db, now_ms, max_keys - deleted);
    for (const DueKey& due : due_) {
      RemoveExpired(db, d, std::string_view(due_bytes_).substr(due.offset, due.size), due.obj);
    }
    deleted += due_.size();
    if (deleted == max_keys) {
      // Stopped here: the next call starts with the databases after this one.
      expire_next_db_ = (db + 1) % n;
      for (int j = 0; j < n && !*more_due; ++j) *more_due = FirstExpiry(j) <= now_ms;
      return deleted;
    }
  }
  expire_next_db_ = (expire_next_db_ + 1) % n;
  return deleted;
}

bool Keyspace::BulkLoad(LoadSource next, int64_t now_ms) {
  // The index takes every entry in key order: a database's keys ([db][0x01]...), then its TTL
  // entries ([db][0x02]...), which sort by expire time. So the TTL entries of a database are
  // gathered while its keys stream in, and emitted, sorted, before the next database's first key.
  struct PendingTtl {
    int64_t at;
    uint32_t offset, size;  // of the user key in ttl_bytes
    Object* obj;
  };
  std::vector<PendingTtl> ttls;
  std::string ttl_bytes;
  size_t ttl_next = 0;  // ttls[ttl_next..] are still to emit, once sorted
  bool emitting_ttls = false;
  int ttl_db = -1;  // the (logical) db the pending TTL entries belong to

  std::string encoded, previous;
  bool in_order = true, ended = false, held = false;
  ObjectPtr obj;
  int db = 0;
  std::string_view key;
  store_->BulkLoad([&](std::string_view* out_key, index::ValueHandle* out_value) {
    while (true) {
      if (emitting_ttls) {
        if (ttl_next < ttls.size()) {
          const PendingTtl& t = ttls[ttl_next++];
          *out_key = encoded =
              EncodeTtlKey(ttl_db, t.at, std::string_view(ttl_bytes).substr(t.offset, t.size));
          *out_value = ToHandle(t.obj);
          return true;
        }
        emitting_ttls = false;
        ttls.clear();
        ttl_bytes.clear();
        ttl_next = 0;
      }
      // The next live key, held until the TTL entries before it are out.
      while (!held && !ended) {
        if (!next(&db, &key, &obj)) {
          ended = true;
        } else if (!obj->has_ttl() || obj->expire_at_ms() > now_ms) {
          held = true;
          encoded = EncodeKey(db, key);
          // The index requires strictly increasing keys; a source that breaks that ends the load
          // (after the TTL entries of the keys loaded).
          if (!previous.empty() && encoded <= previous) {
            in_order = false;
            held = false;
            ended = true;
          }
        }
      }
      if (!ttls.empty() && (!held || db != ttl_db)) {
        std::sort(ttls.begin(), ttls.end(), [&](const PendingTtl& a, const PendingTtl& b) {
          if (a.at != b.at) return a.at < b.at;
          return std::string_view(ttl_bytes).substr(a.offset, a.size) <
                 std::string_view(ttl_bytes).substr(b.offset, b.size);
        });
        emitting_ttls = true;
        continue;
      }
      if (!held) return false;
      held = false;
      previous = EncodeKey(db, key);
      Db& d = PhysicalDb(db);
      Object* raw = obj.release();
      ++d.keys;
      if (raw->has_ttl()) {
        const int64_t at = raw->expire_at_ms();
        ttl_db = db;
        ttls.push_back(
            {at, static_cast<uint32_t>(ttl_bytes.size()), static_cast<uint32_t>(key.size()), raw});
        ttl_bytes.append(key);
        ++d.ttl_keys;
        d.ttl_sum_ms += at;
        d.ttl_floor_ms = std::min(d.ttl_floor_ms, at);
      }
      *out_key = previous;
      *out_value = ToHandle(raw);
      return true;
    }
  });
  return in_order;
}

void Keyspace::FlushDb(int db, FreeMode free) {
  Db& d = PhysicalDb(db);
  if (observer_ != nullptr) observer_->BeforeDbChange(db);
  changes_ += d.keys;
  bool only_db = true;
  for (int other = 0; other < num_dbs(); ++other) {
    if (other != db && PhysicalDb(other).keys > 0) only_db = false;
  }
  if (only_db) {
    // This db is the whole index: drop it at once, which also returns the index's memory (erasing
    // key by key leaves empty leaves behind).
    ClearAll(free);
    TouchedDb(db);
    tracker_.KeysFlushed();
    return;
  }
  // Every space of the physical db; each object is freed once, through its key-space entry.
  const std::string prefix = EncodeKey(db, {}).substr(0, 1);
  std::vector<std::pair<std::string, index::ValueHandle>> batch;
  FlushedValues values(lazy_free_, free, tier_.get());
  // Collect in batches: the store's scan must finish before we erase.
  while (true) {
    batch.clear();
    store_->Scan(index::ScanStart::At(prefix), index::Direction::kForward,
                 [&](std::string_view k, index::ValueHandle h) {
                   if (k.substr(0, 1) != prefix) return false;
                   batch.emplace_back(std::string(k), h);
                   return batch.size() < kFlushBatch;
                 });
    if (batch.empty()) break;
    for (auto& [k, h] : batch) {
      store_->ErasePresent(k);
      if (k[1] == kSpaceKeys) values.Add(ToObject(h));
    }
  }
  d = Db{};
  TouchedDb(db);
  tracker_.KeysFlushed();
}

void Keyspace::FlushAll(FreeMode free) {
  if (observer_ != nullptr) observer_->BeforeDbChange(-1);
  for (const Db& d : dbs_) changes_ += d.keys;
  ClearAll(free);
  for (int db = 0; db < num_dbs(); ++db) TouchedDb(db);
  tracker_.KeysFlushed();
}

void Keyspace::ClearAll(FreeMode free) {
  // The scan stays here: the store is read without the lock (Prefetch, INFO), so it cannot be
  // swapped for an empty one and handed over whole as Redis hands over its dicts.
  {
    FlushedValues values(lazy_free_, free, tier_.get());
    store_->Scan(index::ScanStart::Edge(), index::Direction::kForward,
                 [&](std::string_view k, index::ValueHandle h) {
                   if (k[1] == kSpaceKeys) values.Add(ToObject(h));  // TTL entries share them
                   return true;
                 });
  }
  store_->Clear();
  if (tier_ != nullptr) tier_->ClearView();
  for (Db& d : dbs_) d = Db{};
}

void Keyspace::SwapDb(int a, int b) {
  if (observer_ != nullptr) {
    observer_->BeforeDbChange(a);
    observer_->BeforeDbChange(b);
  }
  ++changes_;
  uint8_t pa = physical_[a].load(std::memory_order_relaxed);
  physical_[a].store(physical_[b].load(std::memory_order_relaxed), std::memory_order_relaxed);
  physical_[b].store(pa, std::memory_order_relaxed);
  TouchedDb(a);
  TouchedDb(b);
}

void Keyspace::Scan(int db, const index::ScanStart& start, index::Direction direction,
                    int64_t now_ms, KeyVisitor visit, std::vector<ExpiredKey>* expired) const {
  std::string prefix = EncodeKey(db, {});
  index::ScanStart encoded_start;
  std::string start_key;
  if (start.unbounded) {
    if (direction == index::Direction::kForward) {
      start_key = prefix;
      encoded_start = index::ScanStart::At(start_key);
    } else {
      // Everything below the next space of this db.
      start_key = prefix;
      start_key.back() = static_cast<char>(kSpaceKeys + 1);
      encoded_start = index::ScanStart::After(start_key);
    }
  } else {
    start_key = prefix;
    start_key.append(start.key);
    encoded_start = {start_key, start.inclusive, false};
  }
  store_->Scan(encoded_start, direction, [&](std::string_view k, index::ValueHandle h) {
    if (k.size() < kPrefixLen || std::memcmp(k.data(), prefix.data(), kPrefixLen) != 0) {
      return false;
    }
    std::string_view user_key = k.substr(kPrefixLen);
    Object* obj = ToObject(h);
    if (IsExpired(obj, now_ms)) {
      if (expired != nullptr) expired->push_back({db, std::string(user_key)});
      return true;
    }
    return visit(user_key, obj);
  });
}

void Keyspace::Prefetch(std::span<const KeyRef> keys) const {
  thread_local std::vector<std::string> encoded;
  thread_local std::vector<std::string_view> views;
  encoded.resize(std::max(encoded.size(), keys.size()));
  views.clear();
  for (size_t i = 0; i < keys.size(); ++i) {
    encoded[i] = EncodeKey(keys[i].db, keys[i].key);
    views.push_back(encoded[i]);
  }
  // Two stages, each overlapping the batch's cache misses: the index entries, then (the entries
  // now cached) the objects they point to. A handle freed meanwhile only wastes a prefetch.
  store_->Prefetch(views);
  thread_local std::vector<std::optional<index::ValueHandle>> found;
  found.resize(views.size());
  constexpr size_t kChunk = 32;
  for (size_t at = 0; at < views.size(); at += kChunk) {
    const size_t n = std::min(kChunk, views.size() - at);
    bool writes[kChunk];
    for (size_t i = 0; i < n; ++i) writes[i] = keys[at + i].write;
    store_->GetBatch(std::span(views).subspan(at, n), std::span(found).subspan(at, n),
                     std::span<const bool>(writes, n));
  }
  for (const auto& h : found) {
    if (h) __builtin_prefetch(ToObject(*h));
  }
}

void Keyspace::ScanByExpiry(int db, TtlVisitor visit) const {
  const std::string start = EncodeTtlKey(db, PhysicalDb(db).ttl_floor_ms, {});
  const std::string_view prefix = std::string_view(start).substr(0, kPrefixLen);
  store_->Scan(index::ScanStart::At(start), index::Direction::kForward,
               [&](std::string_view k, index::ValueHandle h) {
                 if (k.substr(0, kPrefixLen) != prefix) return false;
                 return visit(k.substr(kTtlPrefixLen), ReadTime(k), ToObject(h));
               });
}

size_t Keyspace::DbSize(int db) const { return PhysicalDb(db).keys; }
size_t Keyspace::ExpiresCount(int db) const { return PhysicalDb(db).ttl_keys; }

uint64_t Keyspace::ResidentKeys() const {
  uint64_t keys = 0;
  for (const Db& d : dbs_) keys += d.keys;
  const uint64_t cold = tier_ != nullptr ? tier_->cold_keys() : 0;
  return keys > cold ? keys - cold : 0;
}

int64_t Keyspace::AvgTtlMs(int db, int64_t now_ms) const {
  const Db& d = PhysicalDb(db);
  if (d.ttl_keys == 0) return 0;
  // The sum of remaining times is the sum of expire times minus now for each key, except that
  // keys already due count 0: those are the first entries of the TTL space, normally few (active
  // expiry deletes them), walked here up to a bound; due keys past it count below 0.
  constexpr size_t kMaxDueWalked = 1024;
  __int128 due_sum = 0;
  size_t due = 0;
  ScanByExpiry(db, [&](std::string_view, int64_t at, Object*) {
    if (at > now_ms || due == kMaxDueWalked) return false;
    due_sum += at;
    ++due;
    return true;
  });
  __int128 remaining = d.ttl_sum_ms - due_sum - static_cast<__int128>(now_ms) * (d.ttl_keys - due);
  if (remaining < 0) remaining = 0;
  return static_cast<int64_t>(remaining / static_cast<__int128>(d.ttl_keys));
}

namespace {

// The first 8 bytes of k after skip, big-endian and zero-padded.
uint64_t Window(std::string_view k, size_t skip) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) {
    v = (v << 8) | (skip + i < k.size() ? static_cast<unsigned char>(k[skip + i]) : 0);
  }
  return v;
}

// A byte string uniformly placed between first and last in the 8 bytes after their common
// prefix, so a seek to it lands in proportion to where keys actually are.
std::string PointBetween(std::string_view first, std::string_view last, std::mt19937_64& rng) {
  size_t common = 0;
  while (common < first.size() && common < last.size() && first[common] == last[common]) ++common;
  uint64_t lo = Window(first, common), hi = Window(last, common);
  uint64_t span = hi - lo;  // hi >= lo: first <= last
  uint64_t u = lo + (span == UINT64_MAX ? rng() : rng() % (span + 1));
  std::string point(first.substr(0, common));
  for (int i = 7; i >= 0; --i) point.push_back(static_cast<char>(u >> (8 * i)));
  return point;
}

}  // namespace

bool Keyspace::RandomKey(int db, int64_t now_ms, std::string* out) {
  // The store has no rank access, so: seek to a point interpolated between the first and last key,
  // then walk a uniform offset of up to kWalk keys, wrapping at the end. For up to kWalk keys this
  // is exactly uniform; beyond, the walk evens out local differences in key density.
  constexpr size_t kWalk = 64;
  for (int attempt = 0; attempt < 100 && DbSize(db) > 0; ++attempt) {
    std::string first, last, key;
    Object* obj = nullptr;
    auto grab = [](std::string* dst) {
      return [dst](std::string_view k, Object*) {
        dst->assign(k);
        return false;
      };
    };
    // INT64_MIN as "now": expired keys are candidates too; one drawn is deleted and we retry.
    Scan(db, index::ScanStart::Edge(), index::Direction::kForward, INT64_MIN, grab(&first));
    Scan(db, index::ScanStart::Edge(), index::Direction::kReverse, INT64_MIN, grab(&last));
    std::string point = PointBetween(first, last, rng_);
    size_t steps = rng_() % std::min(DbSize(db), kWalk);
    auto walk = [&](std::string_view k, Object* o) {
      key.assign(k);
      obj = o;
      return steps-- > 0;
    };
    Scan(db, index::ScanStart::At(point), index::Direction::kForward, INT64_MIN, walk);
    // The walk stops with steps wrapped to SIZE_MAX; otherwise it ran off the end and continues
    // from the first key (steps < DbSize, so it wraps at most once).
    if (steps != SIZE_MAX) {
      Scan(db, index::ScanStart::Edge(), index::Direction::kForward, INT64_MIN, walk);
    }
    if (obj == nullptr) return false;
    if (IsExpired(obj, now_ms)) {
      DeleteExpired(db, key);
      continue;
    }
    *out = std::move(key);
    return true;
  }
  return false;
}

size_t Keyspace::MemoryUsage(std::string_view key, const Object& obj) {
  constexpr size_t kIndexEntryOverhead = 64;  // index entry, slot and hash slot
  constexpr size_t kElementOverhead = 48;     // container node or slot per element, estimated
  auto bytes = [](const std::string& s) { return s.capacity() > 15 ? s.capacity() + 1 : 0; };
  size_t total = kIndexEntryOverhead + kPrefixLen + key.size() + obj.block_size();
  if (obj.has_ttl()) total += kIndexEntryOverhead + kTtlPrefixLen + key.size();
  if (obj.type() == ObjType::kString) return total + obj.raw_buffer_bytes();
  if (obj.cold()) return total;  // what is resident: the value is the tier's
  total += sizeof(Collection);
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, ListValue>) {
          for (const auto& e : v) total += kElementOverhead + bytes(e);
        } else if constexpr (std::is_same_v<T, SetValue>) {
          total += v.TableBytes();  // the member vector and the index of positions
          for (const std::string& m : v) total += bytes(m);
        } else if constexpr (std::is_same_v<T, HashValue>) {
          for (const auto& [f, val] : v) total += kElementOverhead + bytes(f) + bytes(val);
        } else if constexpr (std::is_same_v<T, StreamBox>) {
          total += sizeof(StreamValue) + v->MemoryUsage();
        } else {
          total += v.MemoryUsage();  // ZSetValue
        }
      },
      obj.collection());
  return total;
}

void Keyspace::SampleKeys(int db, bool with_ttl, int count, int runs, SampleVisitor visit) {
  // Keys with a TTL are sampled from the TTL space, where each has its own entry: the same walk,
  // another prefix, and the user key after the expire time.
  if ((with_ttl ? ExpiresCount(db) : DbSize(db)) == 0) return;
  std::string prefix = EncodeKey(db, {});
  if (with_ttl) prefix.back() = kSpaceTtl;
  const size_t user_key_at = with_ttl ? kTtlPrefixLen : kPrefixLen;
  auto in_space = [&](std::string_view k) {
    return k.size() >= kPrefixLen && std::memcmp(k.data(), prefix.data(), kPrefixLen) == 0;
  };
  std::string end = prefix;
  end.back() = static_cast<char>(end.back() + 1);
  const size_t entries = with_ttl ? ExpiresCount(db) : DbSize(db);
  // A run of neighbours from a random point of the space costs one descent (Redis's
  // dictGetSomeKeys also takes consecutive buckets); the eviction pool, kept between evictions,
  // gathers the best of many runs. The visitor reads each object's access bits: the runs are
  // gathered first and their objects prefetched, so their cache misses overlap.
  sample_randoms_.resize(static_cast<size_t>(runs));
  for (uint64_t& r : sample_randoms_) r = rng_();
  // One buffer for every sampled key, not a string each: 80 keys copied per eviction burst.
  sample_scratch_.clear();
  sample_keys_.clear();
  const bool sampled = store_->Sample(prefix, end, sample_randoms_, static_cast<size_t>(count),
                                      [&](std::string_view k, index::ValueHandle h) {
                                        sample_keys_.append(k.substr(user_key_at));
                                        Object* obj = ToObject(h);
                                        __builtin_prefetch(obj);
                                        sample_scratch_.push_back({sample_keys_.size(), obj});
                                      });
  if (sampled) {
    const std::string_view keys = sample_keys_;
    size_t key_begin = 0;
    for (const SampledKey& s : sample_scratch_) {
      visit(keys.substr(key_begin, s.key_end - key_begin), s.obj);
      key_begin = s.key_end;
    }
    return;
  }
  std::string seek;
  // The store cannot pick: points interpolated between the first and last key.
  auto visit_first_from = [&](bool* found) {
    store_->Scan(index::ScanStart::At(seek), index::Direction::kForward,
                 [&](std::string_view k, index::ValueHandle h) {
                   if (in_space(k)) {
                     visit(k.substr(user_key_at), ToObject(h));
                     *found = true;
                   }
                   return false;
                 });
  };
  // The first and last entry (past the space prefix) bound the points; one entry needs no more.
  std::string first, last;
  auto grab = [&](std::string* dst) {
    return [&, dst](std::string_view k, index::ValueHandle) {
      if (in_space(k)) dst->assign(k.substr(kPrefixLen));
      return false;
    };
  };
  store_->Scan(index::ScanStart::At(prefix), index::Direction::kForward, grab(&first));
  store_->Scan(index::ScanStart::After(end), index::Direction::kReverse, grab(&last));
  for (int i = 0; i < count * runs && static_cast<size_t>(i) < entries; ++i) {
    seek = prefix;
    seek.append(PointBetween(first, last, rng_));
    bool found = false;
    visit_first_from(&found);
    if (!found) {
      // Past the last entry (the point's padding sorts after it): wrap to the first.
      seek = prefix + first;
      std::optional<index::ValueHandle> h = store_->Get(seek);
      if (h) visit(std::string_view(seek).substr(user_key_at), ToObject(*h));
    }
  }
}

}  // namespace ordis::server
