// A reader-writer lock that prefers writers: once a writer waits, new readers wait behind it.
//
// Why not std::shared_mutex: glibc's rwlock prefers readers by default, and I/O threads that keep
// reading starved writers indefinitely (keyspace stress test). Why not absl::Mutex: Debian's
// abseil is not built with ThreadSanitizer, so TSAN cannot see it synchronize and the stress
// tests drown in false reports; TSAN understands pthread rwlocks natively.
//
// Thread safety: that is its job. Satisfies Lockable and SharedLockable, so std::unique_lock and
// std::shared_lock work with it.
#pragma once

#include <pthread.h>
#include <time.h>

#include <cstdlib>

#include "absl/base/thread_annotations.h"

namespace ordis::index {

class ABSL_LOCKABLE RwLock {
 public:
  RwLock() {
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    if (pthread_rwlock_init(&rw_, &attr) != 0) std::abort();
    pthread_rwlockattr_destroy(&attr);
  }
  ~RwLock() { pthread_rwlock_destroy(&rw_); }
  RwLock(const RwLock&) = delete;
  RwLock& operator=(const RwLock&) = delete;

  void lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { pthread_rwlock_wrlock(&rw_); }
  void unlock() ABSL_UNLOCK_FUNCTION() { pthread_rwlock_unlock(&rw_); }
  void lock_shared() ABSL_SHARED_LOCK_FUNCTION() { pthread_rwlock_rdlock(&rw_); }
  void unlock_shared() ABSL_UNLOCK_FUNCTION() { pthread_rwlock_unlock(&rw_); }
  bool try_lock() ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) {
    return pthread_rwlock_trywrlock(&rw_) == 0;
  }
  bool try_lock_shared() ABSL_SHARED_TRYLOCK_FUNCTION(true) {
    return pthread_rwlock_tryrdlock(&rw_) == 0;
  }
  // Waits at most timeout_ms; false if the lock was not taken.
  bool try_lock_for(int timeout_ms) ABSL_EXCLUSIVE_TRYLOCK_FUNCTION(true) {
    if (try_lock()) return true;
    const timespec deadline = Deadline(timeout_ms);
    return pthread_rwlock_timedwrlock(&rw_, &deadline) == 0;
  }
  bool try_lock_shared_for(int timeout_ms) ABSL_SHARED_TRYLOCK_FUNCTION(true) {
    if (try_lock_shared()) return true;
    const timespec deadline = Deadline(timeout_ms);
    return pthread_rwlock_timedrdlock(&rw_, &deadline) == 0;
  }

 private:
  static timespec Deadline(int timeout_ms) {
    timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += static_cast<long>(timeout_ms) * 1000000;
    t.tv_sec += t.tv_nsec / 1000000000;
    t.tv_nsec %= 1000000000;
    return t;
  }
  pthread_rwlock_t rw_;
};

}  // namespace ordis::index
