#include "server/keyspace/eviction.h"

#include <algorithm>
#include <cstdint>

namespace ordis::server {

std::optional<EvictionPolicy> ParseEvictionPolicy(std::string_view name) {
  static constexpr std::pair<std::string_view, EvictionPolicy> kNames[] = {
      {"noeviction", EvictionPolicy::kNoEviction},
      {"allkeys-lru", EvictionPolicy::kAllKeysLru},
      {"allkeys-lfu", EvictionPolicy::kAllKeysLfu},
      {"allkeys-random", EvictionPolicy::kAllKeysRandom},
      {"volatile-lru", EvictionPolicy::kVolatileLru},
      {"volatile-lfu", EvictionPolicy::kVolatileLfu},
      {"volatile-random", EvictionPolicy::kVolatileRandom},
      {"volatile-ttl", EvictionPolicy::kVolatileTtl},
  };
  for (const auto& [n, p] : kNames) {
    if (n == name) return p;
  }
  return std::nullopt;
}

uint8_t LfuDecayed(const Object& obj, int64_t now_ms, int decay_minutes) {
  uint8_t counter = obj.lfu.load(std::memory_order_relaxed);
  if (decay_minutes <= 0) return counter;
  int64_t idle_s = static_cast<int64_t>(LruClockS(now_ms)) -
                   static_cast<int64_t>(obj.access_s.load(std::memory_order_relaxed));
  int64_t periods = idle_s > 0 ? idle_s / 60 / decay_minutes : 0;
  return periods >= counter ? 0 : static_cast<uint8_t>(counter - periods);
}

void LfuAccess(Object* obj, int64_t now_ms, int log_factor, int decay_minutes, double uniform) {
  uint8_t counter = LfuDecayed(*obj, now_ms, decay_minutes);
  if (counter < 255) {
    double base = counter > kLfuInit ? counter - kLfuInit : 0;
    if (uniform < 1.0 / (base * log_factor + 1)) ++counter;
  }
  obj->lfu.store(counter, std::memory_order_relaxed);
}

namespace {

bool IsVolatile(EvictionPolicy p) {
  return p == EvictionPolicy::kVolatileLru || p == EvictionPolicy::kVolatileLfu ||
         p == EvictionPolicy::kVolatileRandom || p == EvictionPolicy::kVolatileTtl;
}

bool IsRandom(EvictionPolicy p) {
  return p == EvictionPolicy::kAllKeysRandom || p == EvictionPolicy::kVolatileRandom;
}

}  // namespace

uint64_t Evictor::Score(const EvictionOptions& options, const Object& obj, int64_t now_ms) const {
  switch (options.policy) {
    case EvictionPolicy::kAllKeysLfu:
    case EvictionPolicy::kVolatileLfu:
      return 255 - LfuDecayed(obj, now_ms, options.lfu_decay_minutes);
    case EvictionPolicy::kVolatileTtl:
      // The soonest expiry first.
      return UINT64_MAX - static_cast<uint64_t>(obj.expire_at_ms());
    default: {
      int64_t idle = static_cast<int64_t>(LruClockS(now_ms)) -
                     static_cast<int64_t>(obj.access_s.load(std::memory_order_relaxed));
      return idle > 0 ? static_cast<uint64_t>(idle) : 0;
    }
  }
}

void Evictor::Fill(Keyspace& keyspace, const EvictionOptions& options, int db, int64_t now_ms) {
  auto offer = [&](std::string_view key, Object* obj) {
    uint64_t score = Score(options, *obj, now_ms);
    if (pool_.size() == kPoolSize && score <= pool_.front().score) return;
    // A key pooled twice has the same score unless time passed in between: compare keys only on
    // equal scores (a stale duplicate is dropped when its eviction finds nothing).
    for (const Candidate& c : pool_) {
      if (c.score == score && c.db == db && c.key == key) return;
    }
    Candidate entry;
    if (pool_.size() == kPoolSize) {
      entry = std::move(pool_.front());
      pool_.erase(pool_.begin());
    } else if (!spare_.empty()) {
      entry = std::move(spare_.back());
      spare_.pop_back();
    }
    entry.score = score;
    entry.db = db;
    entry.key.assign(key);
    auto at = std::upper_bound(pool_.begin(), pool_.end(), score,
                               [](uint64_t s, const Candidate& c) { return s < c.score; });
    pool_.insert(at, std::move(entry));
  };
  if (options.policy == EvictionPolicy::kVolatileTtl) {
    // The TTL space is ordered by expire time: the soonest keys are read, not sampled.
    int n = 0;
    keyspace.ScanByExpiry(db, [&](std::string_view key, int64_t, Object* obj) {
      offer(key, obj);
      return ++n < options.samples;
    });
    return;
  }
  keyspace.SampleKeys(db, IsVolatile(options.policy), options.samples, offer);
}

bool Evictor::EvictOne(Keyspace& keyspace, const EvictionOptions& options, int64_t now_ms, int* db,
                       std::string* key) {
  if (options.policy == EvictionPolicy::kNoEviction) return false;
  const bool with_ttl = IsVolatile(options.policy);
  auto has_candidates = [&](int d) {
    return with_ttl ? keyspace.ExpiresCount(d) > 0 : keyspace.DbSize(d) > 0;
  };
  const int dbs = keyspace.num_dbs();
  // A sample may find nothing though keys are left (its runs all deleted but not yet patched
  // away), and pooled candidates may all be gone: a few more rounds before concluding that
  // nothing may go.
  constexpr int kRounds = 16;
  if (IsRandom(options.policy)) {
    for (int i = 0; i < dbs * kRounds; ++i) {
      int d = next_db_++ % dbs;
      if (!has_candidates(d)) continue;
      bool picked = false;
      keyspace.SampleKeys(d, with_ttl, 1, [&](std::string_view k, Object*) {
        key->assign(k);
        picked = true;
      });
      if (picked && keyspace.Evict(d, *key, with_ttl)) {
        *db = d;
        return true;
      }
    }
    return false;
  }
  for (int round = 0; round < kRounds; ++round) {
    bool any = false;
    for (int d = 0; d < dbs; ++d) {
      if (has_candidates(d)) {
        any = true;
        Fill(keyspace, options, d, now_ms);
      }
    }
    if (!any) return false;
    // The best candidates first; one deleted or changed since it was pooled is dropped.
    while (!pool_.empty()) {
      Candidate best = std::move(pool_.back());
      pool_.pop_back();
      const bool evicted = best.db < dbs && keyspace.Evict(best.db, best.key, with_ttl);
      if (evicted) {
        *db = best.db;
        key->swap(best.key);
      }
      spare_.push_back(std::move(best));
      if (evicted) return true;
    }
  }
  return false;
}

}  // namespace ordis::server
