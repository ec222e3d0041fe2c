#include "server/keyspace/expiry.h"

#include <chrono>
#include <mutex>

namespace ordis::server {

void RunActiveExpiry(Keyspace& keyspace, int64_t now_ms) {
  // Redis's slow cycle: 20 samples per db; repeat while more than a quarter were expired, within
  // a budget of 25% of the cron period.
  constexpr int kSamples = 20;
  constexpr int64_t kBudgetUs = 25 * 1000;
  auto start = std::chrono::steady_clock::now();
  while (true) {
    size_t deleted;
    {
      std::unique_lock lock(keyspace.mu());
      deleted = keyspace.ActiveExpireCycle(now_ms, kSamples);
    }
    auto spent = std::chrono::duration_cast<std::chrono::microseconds>(
                     std::chrono::steady_clock::now() - start)
                     .count();
    if (deleted * 4 <= static_cast<size_t>(kSamples) || spent > kBudgetUs) break;
  }
}

}  // namespace ordis::server
