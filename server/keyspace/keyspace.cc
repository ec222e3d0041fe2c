#include "server/keyspace/keyspace.h"

#include <time.h>

#include <cassert>
#include <chrono>
#include <cstring>
#include <mutex>
#include <utility>

#include "index/learned_store.h"

namespace ordis::server {
namespace {

// Top-level keys. Later types put their sub-records in other spaces.
constexpr char kSpaceKeys = 0x01;
constexpr size_t kPrefixLen = 2;

Object* ToObject(index::ValueHandle h) { return reinterpret_cast<Object*>(h); }
index::ValueHandle ToHandle(Object* obj) { return reinterpret_cast<index::ValueHandle>(obj); }

}  // namespace

Keyspace::Keyspace(int num_dbs, std::unique_ptr<index::OrderedStore> store)
    : store_(std::move(store)), physical_(num_dbs), dbs_(num_dbs) {
  assert(store_ != nullptr && store_->size() == 0);
  for (int i = 0; i < num_dbs; ++i) physical_[i].store(static_cast<uint8_t>(i));
}

Keyspace::Keyspace(int num_dbs) : Keyspace(num_dbs, index::NewLearnedStore()) {}

Keyspace::~Keyspace() {
  std::unique_lock lock(mu_);
  ClearAll();
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

Object* Keyspace::Lookup(int db, std::string_view key) const {
  auto h = store_->Get(EncodeKey(db, key));
  return h ? ToObject(*h) : nullptr;
}

Object* Keyspace::Find(int db, std::string_view key, int64_t now_ms,
                       std::vector<ExpiredKey>* expired) const {
  Object* obj = Lookup(db, key);
  if (obj == nullptr) return nullptr;
  if (IsExpired(obj, now_ms)) {
    if (expired != nullptr) expired->push_back({db, std::string(key)});
    return nullptr;
  }
  return obj;
}

Object* Keyspace::FindForWrite(int db, std::string_view key, int64_t now_ms) {
  Object* obj = Lookup(db, key);
  if (obj == nullptr) return nullptr;
  if (IsExpired(obj, now_ms)) {
    DeleteExpired(db, key);
    return nullptr;
  }
  // The caller may change obj in place from here on.
  NotifyBeforeChange(db, key, obj);
  return obj;
}

void Keyspace::FreeObject(Object* obj) { delete obj; }

void Keyspace::TtlAdd(Db& d, std::string_view key, Object* obj) {
  obj->ttl_slot = static_cast<uint32_t>(d.ttl_keys.size());
  d.ttl_keys.emplace_back(key);
}

void Keyspace::TtlRemove(int db, Db& d, Object* obj) {
  uint32_t slot = obj->ttl_slot;
  if (slot == kNoTtlSlot) return;
  obj->ttl_slot = kNoTtlSlot;
  if (slot + 1 != d.ttl_keys.size()) {
    d.ttl_keys[slot] = std::move(d.ttl_keys.back());
    Object* moved = Lookup(db, d.ttl_keys[slot]);
    moved->ttl_slot = slot;
  }
  d.ttl_keys.pop_back();
}

Object* Keyspace::Set(int db, std::string_view key, std::unique_ptr<Object> obj) {
  Db& d = PhysicalDb(db);
  NotifyBeforeChange(db, key, Lookup(db, key));
  Object* raw = obj.release();
  raw->ttl_slot = kNoTtlSlot;
  auto old = store_->Put(EncodeKey(db, key), ToHandle(raw));
  if (old) {
    Object* prev = ToObject(*old);
    TtlRemove(db, d, prev);
    FreeObject(prev);
  } else {
    ++d.keys;
  }
  if (raw->expire_at_ms != kNoExpire) {
    TtlAdd(d, key, raw);
    if (observer_ != nullptr) observer_->ExpireSet(db, key, raw->expire_at_ms);
  }
  watches_.Touch(db, key);
  return raw;
}

bool Keyspace::Delete(int db, std::string_view key) {
  Db& d = PhysicalDb(db);
  Object* obj = Lookup(db, key);
  if (obj == nullptr) return false;
  NotifyBeforeChange(db, key, obj);
  TtlRemove(db, d, obj);
  store_->Erase(EncodeKey(db, key));
  --d.keys;
  FreeObject(obj);
  watches_.Touch(db, key, /*deleted=*/true);
  return true;
}

void Keyspace::DeleteExpired(int db, std::string_view key) {
  if (!Delete(db, key)) return;
  expired_keys_.fetch_add(1, std::memory_order_relaxed);
  if (observer_ != nullptr) observer_->KeyExpired(db, key);
}

bool Keyspace::Evict(int db, std::string_view key) {
  if (!Delete(db, key)) return false;
  evicted_keys_.fetch_add(1, std::memory_order_relaxed);
  if (observer_ != nullptr) observer_->KeyEvicted(db, key);
  return true;
}

void Keyspace::Move(int db, std::string_view from, int to_db, std::string_view to) {
  Db& src = PhysicalDb(db);
  Object* obj = Lookup(db, from);
  if (obj == nullptr) return;
  NotifyBeforeChange(db, from, obj);
  TtlRemove(db, src, obj);
  store_->Erase(EncodeKey(db, from));
  --src.keys;
  watches_.Touch(db, from);
  Set(to_db, to, std::unique_ptr<Object>(obj));
}

void Keyspace::SetExpire(int db, std::string_view key, Object* obj, int64_t expire_at_ms) {
  Db& d = PhysicalDb(db);
  NotifyBeforeChange(db, key, obj);
  if (obj->expire_at_ms == kNoExpire && expire_at_ms != kNoExpire) {
    TtlAdd(d, key, obj);
  } else if (obj->expire_at_ms != kNoExpire && expire_at_ms == kNoExpire) {
    TtlRemove(db, d, obj);
  }
  obj->expire_at_ms = expire_at_ms;
  if (expire_at_ms != kNoExpire && observer_ != nullptr)
    observer_->ExpireSet(db, key, expire_at_ms);
  watches_.Touch(db, key);
}

void Keyspace::ExpireReported(const std::vector<ExpiredKey>& keys, int64_t now_ms) {
  for (const ExpiredKey& k : keys) {
    if (k.db >= num_dbs()) continue;  // databases may have been reconfigured meanwhile
    Object* obj = Lookup(k.db, k.key);
    if (obj != nullptr && IsExpired(obj, now_ms)) DeleteExpired(k.db, k.key);
  }
}

size_t Keyspace::ActiveExpireCycle(int64_t now_ms, int samples) {
  size_t deleted = 0;
  std::string key;
  for (int db = 0; db < num_dbs(); ++db) {
    Db& d = PhysicalDb(db);
    for (int i = 0; i < samples && !d.ttl_keys.empty(); ++i) {
      size_t slot = rng_() % d.ttl_keys.size();
      key = d.ttl_keys[slot];
      Object* obj = Lookup(db, key);
      if (obj != nullptr && IsExpired(obj, now_ms)) {
        DeleteExpired(db, key);
        ++deleted;
      }
    }
  }
  return deleted;
}

bool Keyspace::BulkLoad(LoadSource next, int64_t now_ms) {
  std::string encoded, previous;
  bool in_order = true;
  std::unique_ptr<Object> obj;
  int db;
  std::string_view key;
  store_->BulkLoad([&](std::string_view* out_key, index::ValueHandle* out_value) {
    while (next(&db, &key, &obj)) {
      if (obj->expire_at_ms != kNoExpire && obj->expire_at_ms <= now_ms) continue;
      encoded = EncodeKey(db, key);
      // The index requires strictly increasing keys; a source that breaks that ends the load.
      if (!previous.empty() && encoded <= previous) {
        in_order = false;
        return false;
      }
      previous = encoded;
      Db& d = PhysicalDb(db);
      Object* raw = obj.release();
      raw->ttl_slot = kNoTtlSlot;
      if (raw->expire_at_ms != kNoExpire) TtlAdd(d, key, raw);
      ++d.keys;
      *out_key = encoded;
      *out_value = ToHandle(raw);
      return true;
    }
    return false;
  });
  return in_order;
}

void Keyspace::FlushDb(int db) {
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
    ClearAll();
    watches_.TouchDb(db);
    return;
  }
  std::string prefix = EncodeKey(db, {});
  std::vector<std::pair<std::string, index::ValueHandle>> batch;
  // Collect in batches: the store's scan must finish before we erase.
  while (true) {
    batch.clear();
    store_->Scan(index::ScanStart::At(prefix), index::Direction::kForward,
                 [&](std::string_view k, index::ValueHandle h) {
                   if (k.substr(0, kPrefixLen) != prefix) return false;
                   batch.emplace_back(std::string(k), h);
                   return batch.size() < 4096;
                 });
    if (batch.empty()) break;
    for (auto& [k, h] : batch) {
      store_->Erase(k);
      FreeObject(ToObject(h));
    }
  }
  d.keys = 0;
  d.ttl_keys.clear();
  watches_.TouchDb(db);
}

void Keyspace::FlushAll() {
  if (observer_ != nullptr) observer_->BeforeDbChange(-1);
  for (const Db& d : dbs_) changes_ += d.keys;
  ClearAll();
  for (int db = 0; db < num_dbs(); ++db) watches_.TouchDb(db);
}

void Keyspace::ClearAll() {
  store_->Scan(index::ScanStart::Edge(), index::Direction::kForward,
               [&](std::string_view, index::ValueHandle h) {
                 FreeObject(ToObject(h));
                 return true;
               });
  store_->Clear();
  for (Db& d : dbs_) {
    d.keys = 0;
    d.ttl_keys.clear();
  }
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
  watches_.TouchDb(a);
  watches_.TouchDb(b);
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
  store_->GetBatch(views, found);
  for (const auto& h : found) {
    if (h) __builtin_prefetch(ToObject(*h));
  }
}

size_t Keyspace::DbSize(int db) const { return PhysicalDb(db).keys; }
size_t Keyspace::ExpiresCount(int db) const { return PhysicalDb(db).ttl_keys.size(); }

int64_t Keyspace::AvgTtlMs(int db, int64_t now_ms) const {
  const Db& d = PhysicalDb(db);
  if (d.ttl_keys.empty()) return 0;
  // Look at up to 128 keys spread over the TTL index: an estimate, as Redis's avg_ttl is.
  size_t n = d.ttl_keys.size();
  size_t step = n > 128 ? n / 128 : 1;
  int64_t sum = 0, count = 0;
  for (size_t i = 0; i < n; i += step) {
    Object* obj = Lookup(db, d.ttl_keys[i]);
    if (obj == nullptr) continue;
    int64_t left = obj->expire_at_ms - now_ms;
    sum += left > 0 ? left : 0;
    ++count;
  }
  return count ? sum / count : 0;
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
  size_t payload = bytes(obj.str);
  if (obj.coll) {
    payload += sizeof(Collection);
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, ListValue>) {
            for (const auto& e : v) payload += kElementOverhead + bytes(e);
          } else if constexpr (std::is_same_v<T, SetValue>) {
            payload += v.TableBytes();  // the member vector and the index of positions
            for (const std::string& m : v) payload += bytes(m);
          } else if constexpr (std::is_same_v<T, HashValue>) {
            for (const auto& [f, val] : v) payload += kElementOverhead + bytes(f) + bytes(val);
          } else {
            payload += v.MemoryUsage();  // ZSetValue
          }
        },
        *obj.coll);
  }
  return kIndexEntryOverhead + key.size() + kPrefixLen + sizeof(Object) + payload;
}

void Keyspace::SampleKeys(int db, bool with_ttl, int count, SampleVisitor visit) {
  if (with_ttl) {
    const std::vector<std::string>& ttl_keys = PhysicalDb(db).ttl_keys;
    for (int i = 0; i < count && !ttl_keys.empty(); ++i) {
      const std::string& key = ttl_keys[rng_() % ttl_keys.size()];
      visit(key, Lookup(db, key));
    }
    return;
  }
  if (DbSize(db) == 0) return;
  const std::string prefix = EncodeKey(db, {});
  auto in_db = [&](std::string_view k) {
    return k.size() >= kPrefixLen && std::memcmp(k.data(), prefix.data(), kPrefixLen) == 0;
  };
  std::string end = prefix;
  end.back() = static_cast<char>(kSpaceKeys + 1);
  // One random point, then the keys that follow it, wrapping at the end of the db: a run of
  // neighbours costs one descent (Redis's dictGetSomeKeys also takes consecutive buckets); the
  // eviction pool, kept between evictions, gathers the best of many runs.
  std::string seek = store_->RandomPoint(prefix, end, rng_());
  if (!seek.empty()) {
    int visited = 0;
    const int want = static_cast<int>(std::min<size_t>(count, DbSize(db)));
    auto run = [&](std::string_view k, index::ValueHandle h) {
      if (!in_db(k)) return false;
      visit(k.substr(kPrefixLen), ToObject(h));
      return ++visited < want;
    };
    store_->Scan(index::ScanStart::At(seek), index::Direction::kForward, run);
    if (visited < want) {
      seek = prefix;
      store_->Scan(index::ScanStart::At(seek), index::Direction::kForward, run);
    }
    return;
  }
  // The store cannot pick: points interpolated between the first and last key.
  auto visit_first_from = [&](bool* found) {
    store_->Scan(index::ScanStart::At(seek), index::Direction::kForward,
                 [&](std::string_view k, index::ValueHandle h) {
                   if (in_db(k)) {
                     visit(k.substr(kPrefixLen), ToObject(h));
                     *found = true;
                   }
                   return false;
                 });
  };
  std::string first, last;
  auto grab = [&](std::string* dst) {
    return [&, dst](std::string_view k, index::ValueHandle) {
      if (in_db(k)) dst->assign(k.substr(kPrefixLen));
      return false;
    };
  };
  store_->Scan(index::ScanStart::At(prefix), index::Direction::kForward, grab(&first));
  store_->Scan(index::ScanStart::After(end), index::Direction::kReverse, grab(&last));
  for (int i = 0; i < count && static_cast<size_t>(i) < DbSize(db); ++i) {
    seek = prefix;
    seek.append(PointBetween(first, last, rng_));
    bool found = false;
    visit_first_from(&found);
    if (!found) {
      // Past the last key (the point's padding sorts after it): wrap to the first.
      seek = prefix + first;
      std::optional<index::ValueHandle> h = store_->Get(seek);
      if (h) visit(first, ToObject(*h));
    }
  }
}

}  // namespace ordis::server
