// Active expiry: deletes the keys nobody reads once their TTL has passed, on a thread of its own.
//
// Effort follows Redis's (expire.c): a slow cycle every 100 ms (Redis's default hz 10) runs for at
// most 25 ms; when it stops with keys still due, fast cycles of at most 1 ms follow, each starting
// at least 2 ms after the previous one, until none is due or the next slow cycle is near. So a
// backlog gets up to about 60% of one core and an idle server a shared-lock check ten times a
// second. Redis samples 20 keys of a database's TTL table per round and repeats while more than a
// quarter of them were expired; here the TTL space is ordered by expire time (keyspace.h), so every
// key a cycle looks at is due, and a cycle goes on while its last batch was full.
//
// Each batch is one hold of the keyspace's exclusive lock for at most kExpireBatchKeys deletions:
// clients' commands run between batches. On its own thread, a cycle stops no I/O thread from
// serving its connections (Redis runs its 25 ms cycles on the thread that serves every client).
//
// Thread safety: Start and Stop from one thread. The expiry thread takes keyspace.mu() itself.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server {

// Deletions per exclusive-lock hold: about 0.1-0.3 ms of work (a deletion costs 0.5-2 us: two
// index erases, the object's free, the observers).
inline constexpr size_t kExpireBatchKeys = 128;
inline constexpr auto kExpirePeriod = std::chrono::milliseconds(100);
inline constexpr auto kSlowCycleBudget = std::chrono::milliseconds(25);  // 25% of the period
inline constexpr auto kFastCycleBudget = std::chrono::milliseconds(1);
inline constexpr auto kFastCycleEvery = std::chrono::milliseconds(2);

// One cycle: batches of Keyspace::ExpireDueKeys, each under the exclusive lock and with the time
// read afresh, until no key is due or `budget` has passed. Returns true iff keys were still due
// when it stopped. Takes keyspace.mu() itself (the caller must not hold it).
bool RunExpiryCycle(Keyspace& keyspace, std::chrono::microseconds budget);

class ActiveExpiry {
 public:
  explicit ActiveExpiry(Keyspace& keyspace) : keyspace_(keyspace) {}
  ~ActiveExpiry() { Stop(); }
  ActiveExpiry(const ActiveExpiry&) = delete;
  ActiveExpiry& operator=(const ActiveExpiry&) = delete;

  void Start();
  // Returns once the thread has ended (at once if it never started).
  void Stop();

 private:
  void Run();
  // Waits until `until` or Stop; false iff stopping.
  bool WaitUntil(std::chrono::steady_clock::time_point until);

  Keyspace& keyspace_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace ordis::server
