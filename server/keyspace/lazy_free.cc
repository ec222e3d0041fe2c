#include "server/keyspace/lazy_free.h"

#include <system_error>
#include <variant>

#include "base/memory.h"

namespace ordis::server {
namespace {

// Queue slots kept between rounds: a flushed dataset's batches come 4096 at a time.
constexpr size_t kKeptCapacity = 4096;

}  // namespace

size_t FreeEffort(const Object& obj) {
  if (obj.type() == ObjType::kString || obj.cold()) return 1;  // a cold value's is the tier's
  return std::visit(
      [](const auto& v) -> size_t {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, ZSetValue>) {
          if (v.is_small()) return 1;
        }
        if constexpr (std::is_same_v<T, StreamBox>) {
          // Redis's effort for a stream: its radix tree's nodes, and each group's PEL.
          size_t effort = v->block_count();
          for (const auto& [name, g] : v->groups()) effort += 1 + g.pel.size();
          return effort;
        } else {
          // Redis counts a list's quicklist nodes, each of many elements; here each element of
          // every collection is a string of its own.
          return v.size();
        }
      },
      obj.collection());
}

LazyFree::~LazyFree() {
  std::thread thread;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    thread.swap(thread_);
  }
  work_.notify_all();
  // The thread drains the queue before it ends; without a thread the queue is empty (objects are
  // queued only once it runs).
  if (thread.joinable()) thread.join();
}

bool LazyFree::Free(Object* obj) {
  if (FreeEffort(*obj) > kThreshold && pending() < kMaxPending && Enqueue({&obj, 1})) return true;
  FreeObject(obj);
  return false;
}

void LazyFree::FreeAll(std::span<Object* const> objs) {
  if (objs.empty() || Enqueue(objs)) return;
  for (Object* obj : objs) FreeObject(obj);
}

bool LazyFree::Enqueue(std::span<Object* const> objs) {
  {
    std::lock_guard lock(mu_);
    if (!thread_.joinable()) {
      try {
        thread_ = std::thread([this] { Run(); });
      } catch (const std::system_error&) {
        return false;  // no thread to be had: the caller frees inline
      }
    }
    // release: pairs with the acquire in pending(); raised before the thread can lower it.
    pending_.fetch_add(objs.size(), std::memory_order_release);
    queue_.insert(queue_.end(), objs.begin(), objs.end());
  }
  work_.notify_one();
  return true;
}

bool LazyFree::WaitIdle(std::chrono::microseconds timeout) {
  std::unique_lock lock(mu_);
  return idle_.wait_for(lock, timeout, [this] { return pending() == 0; });
}

void LazyFree::TEST_Hold(bool hold) {
  {
    std::lock_guard lock(mu_);
    held_ = hold;
  }
  work_.notify_all();
}

void LazyFree::Run() {
  base::MemoryAccountedThread accounted;
  std::vector<Object*> batch;
  std::unique_lock lock(mu_);
  while (true) {
    work_.wait(lock, [this] { return (!queue_.empty() && !held_) || stop_; });
    if (queue_.empty()) return;  // stopping, and everything queued is freed
    batch.swap(queue_);
    lock.unlock();
    for (Object* obj : batch) {
      FreeObject(obj);
      freed_.fetch_add(1, std::memory_order_relaxed);  // relaxed: a statistic, orders nothing
      // release: whoever sees the count drop (eviction waiting for memory) sees the free done.
      pending_.fetch_sub(1, std::memory_order_release);
    }
    batch.clear();
    // A flush queues a pointer per key: don't keep that much room once it is freed.
    if (batch.capacity() > kKeptCapacity) std::vector<Object*>().swap(batch);
    lock.lock();
    // Under mu_, so a WaitIdle between its check and its wait cannot miss it.
    if (pending() == 0) idle_.notify_all();
  }
}

}  // namespace ordis::server
