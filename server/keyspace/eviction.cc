#include "server/keyspace/eviction.h"

#include <algorithm>
#include <cstdint>

#include "absl/hash/hash.h"

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
  constexpr size_t kCapacity = kPoolSize + kBurst;  // a burst's victims leave kPoolSize behind
  auto offer = [&](std::string_view key, Object* obj) {
    if (action_ == Action::kDemote && !keyspace.tier()->Demotable(*obj)) return;
    uint64_t score = Score(options, *obj, now_ms);
    if (pool_.size() == kCapacity && score <= pool_.front().score) return;
    // A key pooled twice has the same score unless time passed in between: compare keys only on
    // equal scores and hashes (a stale duplicate is dropped when its eviction finds nothing).
    // Scores are often equal (LRU idle time counts seconds).
    const size_t key_hash = absl::Hash<std::string_view>{}(key);
    for (const Candidate& c : pool_) {
      if (c.score == score && c.key_hash == key_hash && c.db == db && Key(c) == key) return;
    }
    uint32_t slot;
    if (pool_.size() == kCapacity) {
      slot = pool_.front().slot;
      pool_.erase(pool_.begin());
    } else {
      slot = TakeSlot();
    }
    keys_[slot].assign(key);
    auto at = std::upper_bound(pool_.begin(), pool_.end(), score,
                               [](uint64_t s, const Candidate& c) { return s < c.score; });
    pool_.insert(at, Candidate{score, key_hash, db, slot});
  };
  if (options.policy == EvictionPolicy::kVolatileTtl) {
    // The TTL space is ordered by expire time: the soonest keys are read, not sampled (more runs
    // would read the same keys).
    int n = 0;
    keyspace.ScanByExpiry(db, [&](std::string_view key, int64_t, Object* obj) {
      offer(key, obj);
      return ++n < options.samples;
    });
    return;
  }
  keyspace.SampleKeys(db, IsVolatile(options.policy), options.samples * (kBurst / kRunsPerBurst),
                      kRunsPerBurst * spread_, offer);
}

uint32_t Evictor::TakeSlot() {
  if (free_slots_.empty()) {
    keys_.emplace_back();
    return static_cast<uint32_t>(keys_.size() - 1);
  }
  const uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  return slot;
}

size_t Evictor::EvictVictims(Keyspace& keyspace, bool with_ttl, bool repool,
                             absl::FunctionRef<bool()> more, bool* stopped) {
  // Not prefetched as a batch first (Keyspace::Prefetch): the victims' leaves are mostly those
  // the burst's samples just loaded, and the batch lookup cost more than it saved (SET at
  // maxmemory: 3.9 vs 3.5 us of CPU per request).
  //
  // Victims are often neighbours (a burst's samples are runs of them), and erasing a few into
  // one leaf fills its write buffer: the next victim there would have the I/O thread rebuild
  // the leaf, which the patchers do a moment later off it (SET at maxmemory: 5.7% of the I/O
  // thread's CPU was such rebuilds). Such victims are passed over and leave the pool (kept, the
  // same ones came back burst after burst: sampling rose to a fifth of the CPU), unless no other
  // victim of the burst went.
  const int dbs = keyspace.num_dbs();
  size_t evicted = 0;
  size_t next = 0;
  passed_over_.assign(victims_.size(), false);
  auto evict = [&](size_t i, bool* busy) {
    const Candidate& victim = victims_[i];
    // One deleted or changed since it was pooled is dropped.
    if (victim.db < dbs &&
        (action_ == Action::kDemote ? keyspace.Demote(victim.db, Key(victim))
                                    : keyspace.Evict(victim.db, Key(victim), with_ttl, busy))) {
      ++evicted;
      *stopped = !more();
    }
  };
  while (next < victims_.size() && !*stopped) {
    bool busy = false;
    evict(next, &busy);
    passed_over_[next++] = busy;
  }
  for (size_t i = 0; i < next && evicted == 0 && !*stopped; ++i) {
    if (passed_over_[i]) evict(i, nullptr);
  }
  // Not needed after all: still the best candidates, back to the pool's top in order (or gone).
  for (size_t i = victims_.size(); i-- > 0;) {
    if (repool && i >= next) {
      pool_.push_back(victims_[i]);
    } else {
      free_slots_.push_back(victims_[i].slot);
    }
  }
  victims_.clear();
  return evicted;
}

size_t Evictor::EvictRandom(Keyspace& keyspace, bool with_ttl, absl::FunctionRef<bool()> more,
                            bool* stopped) {
  const int d = next_db_++ % keyspace.num_dbs();
  if ((with_ttl ? keyspace.ExpiresCount(d) : keyspace.DbSize(d)) == 0) return 0;
  keyspace.SampleKeys(d, with_ttl, 1, kBurst, [&](std::string_view k, Object*) {
    const uint32_t slot = TakeSlot();
    keys_[slot].assign(k);
    victims_.push_back(Candidate{0, 0, d, slot});
  });
  return EvictVictims(keyspace, with_ttl, /*repool=*/false, more, stopped);
}

size_t Evictor::Evict(Keyspace& keyspace, const EvictionOptions& evicting, int64_t now_ms,
                      absl::FunctionRef<bool()> more) {
  EvictionOptions options = evicting;
  if (action_ == Action::kDemote) {
    if (keyspace.tier() == nullptr) return 0;
    options.policy =
        IsLfu(options.policy) ? EvictionPolicy::kAllKeysLfu : EvictionPolicy::kAllKeysLru;
  }
  if (options.policy == EvictionPolicy::kNoEviction) return 0;
  spread_ = 1;
  if (action_ == Action::kDemote) {
    const uint64_t resident = keyspace.ResidentKeys();
    const uint64_t keys = resident + keyspace.tier()->cold_keys();
    spread_ = static_cast<int>(std::min<uint64_t>(
        kMaxSpread, resident == 0 ? kMaxSpread : (keys + resident - 1) / resident));
  }
  const bool with_ttl = IsVolatile(options.policy);
  const int dbs = keyspace.num_dbs();
  // A sample may find nothing though keys are left (its runs all deleted but not yet patched
  // away), and pooled candidates may all be gone: a few more bursts that evict nothing before
  // concluding that nothing may go.
  constexpr int kFruitless = 16;
  size_t evicted = 0;
  bool stopped = false;
  for (int fruitless = 0;
       !stopped && fruitless < kFruitless * (IsRandom(options.policy) ? dbs : 1);) {
    size_t burst = 0;
    if (IsRandom(options.policy)) {
      burst = EvictRandom(keyspace, with_ttl, more, &stopped);
    } else {
      bool any = false;
      for (int d = 0; d < dbs; ++d) {
        if ((with_ttl ? keyspace.ExpiresCount(d) : keyspace.DbSize(d)) > 0) {
          any = true;
          Fill(keyspace, options, d, now_ms);
        }
      }
      if (!any) break;
      // The burst's victims: the pool's best.
      while (!pool_.empty() && victims_.size() < static_cast<size_t>(kBurst)) {
        victims_.push_back(pool_.back());
        pool_.pop_back();
      }
      burst = EvictVictims(keyspace, with_ttl, /*repool=*/true, more, &stopped);
    }
    evicted += burst;
    fruitless = burst == 0 ? fruitless + 1 : 0;
  }
  return evicted;
}

}  // namespace ordis::server
