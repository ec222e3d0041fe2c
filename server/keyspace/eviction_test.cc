// The evictor over an index that sometimes cannot take an erase at once (a learned leaf whose
// write buffer is full until its patch): such victims are passed over while others can go, and
// taken anyway when nothing else could, so a full buffer never turns eviction into OOM.
#include "server/keyspace/eviction.h"

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "index/learned_store.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server {
namespace {

constexpr int64_t kNowMs = 1'700'000'000'000;

// A learned store whose TryErasePresent refuses the keys in `busy` (encoded keys end with the
// user key), as a full insert buffer would.
class BusyStore : public index::OrderedStore {
 public:
  explicit BusyStore(std::set<std::string>* busy) : busy_(busy) {}

  std::optional<index::ValueHandle> Get(std::string_view key) const override {
    return inner_->Get(key);
  }
  using OrderedStore::GetBatch;
  void GetBatch(std::span<const std::string_view> keys,
                std::span<std::optional<index::ValueHandle>> found,
                std::span<const bool> writes) const override {
    inner_->GetBatch(keys, found, writes);
  }
  std::optional<index::ValueHandle> Put(std::string_view key, index::ValueHandle value) override {
    return inner_->Put(key, value);
  }
  std::optional<index::ValueHandle> Erase(std::string_view key) override {
    return inner_->Erase(key);
  }
  std::optional<index::ValueHandle> ErasePresent(std::string_view key) override {
    return inner_->ErasePresent(key);
  }
  bool TryErasePresent(std::string_view key, std::optional<index::ValueHandle>* erased) override {
    for (const std::string& b : *busy_) {
      if (key.ends_with(b)) {
        ++refused;
        return false;
      }
    }
    return inner_->TryErasePresent(key, erased);
  }
  void Scan(const index::ScanStart& start, index::Direction direction,
            index::ScanVisitor visit) const override {
    inner_->Scan(start, direction, visit);
  }
  size_t size() const override { return inner_->size(); }
  bool Sample(std::string_view lo, std::string_view hi, std::span<const uint64_t> randoms,
              size_t count, SampleVisitor visit) const override {
    return inner_->Sample(lo, hi, randoms, count, visit);
  }
  void BulkLoad(index::BulkSource next) override { inner_->BulkLoad(std::move(next)); }
  void Clear() override { inner_->Clear(); }
  index::IndexStats Stats() const override { return inner_->Stats(); }

  int refused = 0;

 private:
  std::set<std::string>* busy_;
  std::unique_ptr<index::OrderedStore> inner_ = index::NewLearnedStore();
};

class EvictorBusyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = std::make_unique<BusyStore>(&busy_);
    store_ = store.get();
    ks_ = std::make_unique<Keyspace>(1, std::move(store));
    std::unique_lock lock(ks_->mu());
    // Keys o0..o9 idle longest (the policy's first choices), then 90 younger ones.
    for (int i = 0; i < 100; ++i) {
      const std::string key = (i < 10 ? "o" : "y") + std::to_string(i);
      Object* obj = ks_->Set(0, key, NewString("v"));
      obj->access_s.store(LruClockS(kNowMs) - (i < 10 ? 1000 : 10), std::memory_order_relaxed);
    }
  }

  size_t Evict(size_t keys) {
    std::unique_lock lock(ks_->mu());
    size_t left = keys;
    return evictor_.Evict(*ks_, options_, kNowMs, [&] { return --left > 0; });
  }

  bool Has(std::string_view key) {
    std::unique_lock lock(ks_->mu());
    return ks_->FindAny(0, key) != nullptr;
  }

  std::set<std::string> busy_;
  BusyStore* store_ = nullptr;
  std::unique_ptr<Keyspace> ks_;
  Evictor evictor_;
  EvictionOptions options_{.policy = EvictionPolicy::kAllKeysLru, .samples = 100};
};

TEST_F(EvictorBusyTest, TakesTheOldestKeysFirst) {
  EXPECT_EQ(Evict(5), 5u);
  int oldest_left = 0;
  for (int i = 0; i < 10; ++i) oldest_left += Has("o" + std::to_string(i));
  EXPECT_EQ(oldest_left, 5);  // the 5 that went were among the oldest
  EXPECT_EQ(store_->refused, 0);
}

TEST_F(EvictorBusyTest, PassesOverKeysTheIndexCannotEraseYet) {
  for (int i = 0; i < 10; ++i) busy_.insert("o" + std::to_string(i));
  EXPECT_EQ(Evict(5), 5u);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(Has("o" + std::to_string(i))) << i;
  EXPECT_GT(store_->refused, 0);
  std::unique_lock lock(ks_->mu());
  EXPECT_EQ(ks_->DbSize(0), 95u);
  EXPECT_EQ(ks_->evicted_keys(), 5u);
}

TEST_F(EvictorBusyTest, TakesABusyKeyWhenNoOtherCanGo) {
  // Every key busy: each burst erases one anyway, so eviction still makes room.
  for (int i = 0; i < 100; ++i) busy_.insert((i < 10 ? "o" : "y") + std::to_string(i));
  EXPECT_EQ(Evict(20), 20u);
  std::unique_lock lock(ks_->mu());
  EXPECT_EQ(ks_->DbSize(0), 80u);
}

}  // namespace
}  // namespace ordis::server
