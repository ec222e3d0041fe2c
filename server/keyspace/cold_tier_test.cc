// The keyspace with a cold tier: demoted raw strings stay keys (type, TTL, count) while their
// values live on disk; readers get resident copies that are promoted once the exclusive lock is
// taken; writers promote in place; deleting, overwriting or flushing a cold key makes its record
// garbage; a renamed or moved cold key keeps its value; compaction moves the live records; a
// damaged record loses its key's value, never serves another's.
#include "server/keyspace/cold_tier.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "offload/dpdk.h"
#include "persistence/scratch_dir_test_support.h"
#include "persistence/tier_format.h"
#include "server/keyspace/eviction.h"
#include "server/keyspace/keyspace.h"
#include "server/keyspace/lazy_free.h"

namespace ordis::server {
namespace {

using persistence::kTierAlign;

constexpr int64_t kT0 = 1'700'000'000'000;

bool kRoom() { return true; }
bool kNoRoom() { return false; }

// 200 bytes that lz4 cannot shrink, so that records fill several segments.
std::string ValueOf(int i) {
  std::string v = "value-" + std::to_string(i) + "-";
  uint64_t x = 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(i + 1);
  while (v.size() < 200) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v += static_cast<char>(' ' + x % 90);
  }
  return v;
}

class ColdKeyspaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    offload::TierStoreOptions options;
    options.dir = dir_.path();
    options.segment_bytes = 4 * kTierAlign;  // about 70 records
    options.max_bytes = 256 * kTierAlign;
    options.batch_bytes = kTierAlign;
    options.ring_depth = 16;
    std::unique_ptr<offload::TierStore> store;
    const persistence::Status status = offload::TierStore::Open(options, &store);
    if (!status.ok()) GTEST_SKIP() << status.message();  // no io_uring: no tier
    ks_.SetTier(std::make_unique<ColdTier>(std::move(store), 64));
    for (int i = 0; i < kKeys; ++i) {
      ks_.Set(0, "k" + std::to_string(i), NewString(ValueOf(i), i % 2 ? kT0 + 100000 : kNoExpire));
    }
  }
  void DemoteAll() {
    for (int i = 0; i < kKeys; ++i) ASSERT_TRUE(ks_.Demote(0, "k" + std::to_string(i))) << i;
  }
  ColdTier::Stats Stats() const { return ks_.tier()->stats(); }

  static constexpr int kKeys = 100;
  persistence::ScratchDir dir_;
  Keyspace ks_{2};
};

TEST_F(ColdKeyspaceTest, ReadersGetCopiesThatArePromotedUnderTheExclusiveLock) {
  DemoteAll();
  EXPECT_EQ(Stats().cold_keys, static_cast<uint64_t>(kKeys));
  EXPECT_GT(Stats().cold_bytes, static_cast<uint64_t>(kKeys) * 200);  // records: key and header too
  EXPECT_FALSE(ks_.Demote(0, "k1"));                                  // already cold
  EXPECT_EQ(ks_.DbSize(0), static_cast<size_t>(kKeys));
  Object* stored = ks_.FindAny(0, "k3");
  ASSERT_TRUE(stored->cold());
  EXPECT_EQ(stored->expire_at_ms(), kT0 + 100000);  // the TTL stays in memory
  Object* copy = ks_.Find(0, "k3", kT0);
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy, stored);
  EXPECT_EQ(StringValue(*copy), ValueOf(3));
  EXPECT_EQ(copy->encoding(), ObjEncoding::kRaw);
  EXPECT_EQ(copy->expire_at_ms(), kT0 + 100000);
  EXPECT_TRUE(ks_.HasReadCopies());
  EXPECT_TRUE(stored->cold());  // readers change nothing
  ks_.PromoteReadCopies(kRoom);
  EXPECT_FALSE(ks_.HasReadCopies());
  EXPECT_FALSE(stored->cold());
  EXPECT_EQ(ks_.Find(0, "k3", kT0), stored);
  EXPECT_EQ(StringValue(*stored), ValueOf(3));
  EXPECT_EQ(Stats().promotions, 1u);
  EXPECT_EQ(Stats().cold_keys, static_cast<uint64_t>(kKeys - 1));
  // A copy whose key was written meanwhile is not promoted over the new value.
  ASSERT_NE(ks_.Find(0, "k4", kT0), nullptr);
  ks_.Set(0, "k4", NewString("new"));
  ks_.PromoteReadCopies(kRoom);
  EXPECT_EQ(StringValue(*ks_.Find(0, "k4", kT0)), "new");
  // An expired cold key is expired, not read.
  const uint64_t reads = Stats().reads;
  EXPECT_EQ(ks_.Find(0, "k5", kT0 + 200000), nullptr);
  EXPECT_EQ(Stats().reads, reads);
}

// Over the limit, a value read once stays cold (it would push out another, each read turning into
// a write); read again soon, it comes back.
TEST_F(ColdKeyspaceTest, OverTheLimitOnlyASecondReadPromotes) {
  DemoteAll();
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 10; ++i) ASSERT_NE(ks_.Find(0, "k" + std::to_string(i), kT0), nullptr);
    ks_.PromoteReadCopies(kNoRoom);
    EXPECT_FALSE(ks_.HasReadCopies());
    EXPECT_EQ(Stats().promotions, round == 0 ? 0u : 10u) << round;
  }
  EXPECT_FALSE(ks_.FindAny(0, "k3")->cold());
  EXPECT_TRUE(ks_.FindAny(0, "k30")->cold());
  // A read that did not promote still counts as an access (LRU, LFU, OBJECT IDLETIME).
  Object* copy = ks_.Find(0, "k31", kT0);
  ASSERT_NE(copy, nullptr);
  copy->access_s.store(4242, std::memory_order_relaxed);
  copy->lfu.store(42, std::memory_order_relaxed);
  ks_.PromoteReadCopies(kNoRoom);
  EXPECT_TRUE(ks_.FindAny(0, "k31")->cold());
  EXPECT_EQ(ks_.FindAny(0, "k31")->access_s.load(), 4242u);
  EXPECT_EQ(ks_.FindAny(0, "k31")->lfu.load(), 42);
}

// The doorkeeper holds about as many slots as memory holds values, a power of two within its
// bounds and a 64th of maxmemory, with room to move: it grows when the resident count passes it
// and shrinks only under a quarter of it. A resize empties it: reads before it do not count.
TEST_F(ColdKeyspaceTest, TheDoorkeeperFollowsTheValuesInMemory) {
  ColdTier& tier = *ks_.tier();
  constexpr uint64_t kMiB = 1 << 20;
  EXPECT_EQ(tier.doorkeeper_slots(), ColdTier::kMinDoorkeeper);
  EXPECT_EQ(tier.DoorkeeperSlotsFor(100, 8 * kMiB), ColdTier::kMinDoorkeeper);
  EXPECT_EQ(tier.DoorkeeperSlotsFor(100'000, 8 * kMiB), 131072u);
  EXPECT_EQ(tier.DoorkeeperSlotsFor(100'000, 64 << 10), 8192u);  // 64 KB: 8192 slots of 8 bytes
  EXPECT_EQ(tier.DoorkeeperSlotsFor(100'000'000, 1ull << 40), ColdTier::kMaxDoorkeeper);
  tier.SizeDoorkeeper(100'000, 8 * kMiB);
  EXPECT_EQ(tier.doorkeeper_slots(), 131072u);
  EXPECT_EQ(tier.DoorkeeperSlotsFor(40'000, 8 * kMiB), 131072u);
  EXPECT_EQ(tier.DoorkeeperSlotsFor(30'000, 8 * kMiB), 32768u);

  DemoteAll();
  ASSERT_NE(ks_.Find(0, "k1", kT0), nullptr);
  ks_.PromoteReadCopies(kNoRoom);
  tier.SizeDoorkeeper(10, 8 * kMiB);
  EXPECT_EQ(tier.doorkeeper_slots(), ColdTier::kMinDoorkeeper);
  for (int read = 0; read < 2; ++read) {
    ASSERT_NE(ks_.Find(0, "k1", kT0), nullptr);
    ks_.PromoteReadCopies(kNoRoom);
    EXPECT_EQ(ks_.FindAny(0, "k1")->cold(), read == 0) << read;
  }
}

// Demotion samples resident values among keys that are mostly cold: a burst spreads its runs
// over as many more leaves as there are keys per resident one, so the values it demotes are the
// least recently used of many, not of the two or three an eviction's runs would meet.
TEST_F(ColdKeyspaceTest, DemotionFindsTheColdestResidentValues) {
  DemoteAll();
  constexpr int kMore = 2000, kResident = 100;
  const uint32_t now_s = LruClockS(kT0);
  for (int i = 0; i < kMore; ++i) {
    const std::string key = "s" + std::to_string(i);
    ks_.Set(0, key, NewString(ValueOf(i)));
    // Every 20th key stays in memory; half of those were used long ago.
    Object* obj = ks_.FindAny(0, key);
    obj->access_s.store(i % 40 == 0 ? now_s - 1000 : now_s, std::memory_order_relaxed);
    if (i % 20 != 0) {
      ASSERT_TRUE(ks_.Demote(0, key)) << key;
    }
  }
  ASSERT_EQ(Stats().cold_keys, static_cast<uint64_t>(kKeys + kMore - kResident));
  Evictor demoter(Evictor::Action::kDemote);
  EvictionOptions options;
  options.policy = EvictionPolicy::kAllKeysLru;
  int left = 30;
  EXPECT_EQ(demoter.Evict(ks_, options, kT0, [&] { return --left > 0; }), 30u);
  int old_demoted = 0;
  for (int i = 0; i < kMore; i += 20) {
    if (ks_.FindAny(0, "s" + std::to_string(i))->cold()) {
      EXPECT_EQ(i % 40, 0) << "a recently used value was demoted: s" << i;
      ++old_demoted;
    }
  }
  EXPECT_EQ(old_demoted, 30);
}

// The choice is made under the shared lock first: a batch whose reads would promote nothing
// drops its copies there (their accesses recorded) and needs no exclusive lock; one with a
// second read keeps that copy for PromoteReadCopies, which does not ask the doorkeeper again.
TEST_F(ColdKeyspaceTest, PromotionsAreChosenUnderTheSharedLock) {
  DemoteAll();
  Object* copy = ks_.Find(0, "k40", kT0);
  ASSERT_NE(copy, nullptr);
  copy->access_s.store(777, std::memory_order_relaxed);
  EXPECT_FALSE(ks_.SelectReadPromotions(kNoRoom));
  EXPECT_FALSE(ks_.HasReadCopies());
  EXPECT_EQ(ks_.FindAny(0, "k40")->access_s.load(), 777u);
  ASSERT_NE(ks_.Find(0, "k40", kT0), nullptr);  // read again soon
  ASSERT_NE(ks_.Find(0, "k41", kT0), nullptr);  // read once
  EXPECT_TRUE(ks_.SelectReadPromotions(kNoRoom));
  ks_.PromoteReadCopies(kNoRoom);
  EXPECT_FALSE(ks_.FindAny(0, "k40")->cold());
  EXPECT_TRUE(ks_.FindAny(0, "k41")->cold());
  EXPECT_FALSE(ks_.HasReadCopies());
  // With room, every copy is kept.
  ASSERT_NE(ks_.Find(0, "k42", kT0), nullptr);
  EXPECT_TRUE(ks_.SelectReadPromotions(kRoom));
  ks_.PromoteReadCopies(kRoom);
  EXPECT_FALSE(ks_.FindAny(0, "k42")->cold());
}

// Told of a cold key's deletion, an observer that keeps old values (a snapshot running) gets the
// value, read for it and freed after; one that does not gets the cold object and no disk read.
// Either way the deleting thread holds no copy (expiry and eviction threads never drop any).
class ValueObserver : public KeyspaceObserver {
 public:
  explicit ValueObserver(bool wants) : wants_(wants) {}
  void BeforeKeyChange(int, std::string_view, const Object* obj) override {
    seen.push_back(obj == nullptr ? "none" : obj->cold() ? "cold" : StringValue(*obj));
  }
  bool WantsValues() const override { return wants_; }
  void BeforeDbChange(int) override {}
  void KeyExpired(int, std::string_view) override {}
  void KeyEvicted(int, std::string_view) override {}
  void ExpireSet(int, std::string_view, int64_t) override {}
  std::vector<std::string> seen;

 private:
  const bool wants_;
};

TEST_F(ColdKeyspaceTest, ObserversGetColdValuesOnlyWhenTheyKeepThem) {
  DemoteAll();
  ValueObserver quiet(false), keeping(true);
  ks_.SetObserver(&quiet);
  const uint64_t reads = Stats().reads;
  ASSERT_TRUE(ks_.Delete(0, "k1"));
  EXPECT_EQ(quiet.seen, std::vector<std::string>{"cold"});
  EXPECT_EQ(Stats().reads, reads);
  ks_.SetObserver(&keeping);
  ASSERT_TRUE(ks_.Delete(0, "k2"));
  EXPECT_EQ(keeping.seen, std::vector<std::string>{ValueOf(2)});
  EXPECT_EQ(Stats().reads, reads + 1);
  EXPECT_FALSE(ks_.HasReadCopies());
  ks_.SetObserver(nullptr);
}

TEST_F(ColdKeyspaceTest, WritersPromoteInPlace) {
  DemoteAll();
  Object* obj = ks_.FindForWrite(0, "k7", kT0);
  ASSERT_NE(obj, nullptr);
  EXPECT_FALSE(obj->cold());
  obj->AppendString("!");
  EXPECT_EQ(StringValue(*ks_.Find(0, "k7", kT0)), ValueOf(7) + "!");
  EXPECT_FALSE(ks_.HasReadCopies());
  // Renamed and moved to another database: the value follows.
  ks_.Move(0, "k8", 0, "renamed");
  ks_.Move(0, "k9", 1, "k9");
  EXPECT_EQ(StringValue(*ks_.Find(0, "renamed", kT0)), ValueOf(8));
  EXPECT_EQ(StringValue(*ks_.Find(1, "k9", kT0)), ValueOf(9));
  ks_.DropReadCopies();
}

TEST_F(ColdKeyspaceTest, HeadersOfColdKeysAreReadWithoutTheirValues) {
  DemoteAll();
  const uint64_t reads = Stats().reads;
  Object* obj = ks_.FindHeader(0, "k5", kT0);
  ASSERT_NE(obj, nullptr);
  EXPECT_TRUE(obj->cold());
  EXPECT_EQ(obj->type(), ObjType::kString);
  EXPECT_EQ(obj->expire_at_ms(), kT0 + 100000);
  EXPECT_FALSE(ks_.HasReadCopies());
  EXPECT_EQ(Stats().reads, reads);
  // An expired key is reported, as Find reports it.
  std::vector<ExpiredKey> expired;
  EXPECT_EQ(ks_.FindHeader(0, "k5", kT0 + 200000, &expired), nullptr);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].key, "k5");
  // What is resident of a cold key: no value.
  EXPECT_LT(Keyspace::MemoryUsage("k4", *ks_.FindHeader(0, "k4", kT0)), ValueOf(4).size());
}

TEST_F(ColdKeyspaceTest, ReplacingAColdValueDoesNotReadIt) {
  DemoteAll();
  const uint64_t reads = Stats().reads;
  Object* obj = ks_.FindForReplace(0, "k2", kT0);
  ASSERT_NE(obj, nullptr);
  EXPECT_TRUE(obj->cold());  // its header only: type, TTL, access
  EXPECT_EQ(obj->type(), ObjType::kString);
  ks_.Set(0, "k2", NewString("new"));
  EXPECT_EQ(StringValue(*ks_.Find(0, "k2", kT0)), "new");
  EXPECT_EQ(Stats().reads, reads);
  EXPECT_EQ(Stats().cold_keys, static_cast<uint64_t>(kKeys - 1));
  // A resident value is found as FindForWrite finds it.
  obj = ks_.FindForReplace(0, "k2", kT0);
  ASSERT_NE(obj, nullptr);
  EXPECT_FALSE(obj->cold());
  // An expired key is deleted on sight.
  EXPECT_EQ(ks_.FindForReplace(0, "k3", kT0 + 200000), nullptr);
  EXPECT_EQ(ks_.FindAny(0, "k3"), nullptr);
}

// A codec of the test's own for collections (the server's is the snapshot codec, a layer up):
// hashes as length-prefixed fields and values; lists encode to bytes that never decode.
ColdTier::CollectionCodec TestCodec() {
  return {.encode =
              [](const Object& obj, std::string* out) {
                if (obj.type() != ObjType::kHash) {
                  out->assign(100, 'x');
                  return;
                }
                for (const auto& [f, v] : std::get<HashValue>(obj.collection())) {
                  for (const std::string* s : {&f, &v}) {
                    out->append(std::to_string(s->size())).push_back(':');
                    out->append(*s);
                  }
                }
              },
          .decode = [](ObjType type, std::string_view bytes, int64_t expire_at_ms) -> ObjectPtr {
            if (type != ObjType::kHash) return nullptr;
            ObjectPtr obj = NewObject(ObjType::kHash, expire_at_ms);
            std::string parts[2];
            for (int n = 0; !bytes.empty(); ++n) {
              const size_t colon = bytes.find(':');
              const size_t len = std::stoul(std::string(bytes.substr(0, colon)));
              parts[n % 2] = bytes.substr(colon + 1, len);
              bytes.remove_prefix(colon + 1 + len);
              if (n % 2 == 1) obj->hash().emplace(parts[0], parts[1]);
            }
            return obj;
          }};
}

// Collections go whole: demoted with the codec, read as copies, promoted by adopting the copy's
// collection, promoted in place by writers; bytes that do not decode lose the key, as a damaged
// record does.
TEST_F(ColdKeyspaceTest, CollectionsAreDemotedAndPromotedWhole) {
  ObjectPtr hash = NewObject(ObjType::kHash, kT0 + 100000);
  for (int i = 0; i < 20; ++i) hash->hash().emplace("f" + std::to_string(i), ValueOf(i));
  const HashValue want = hash->hash();
  ks_.Set(0, "h", std::move(hash));
  ObjectPtr list = NewObject(ObjType::kList);
  for (int i = 0; i < 5; ++i) list->list().push_back(ValueOf(i));
  ks_.Set(0, "l", std::move(list));
  Object* stored = ks_.FindAny(0, "h");
  EXPECT_FALSE(ks_.tier()->Demotable(*stored));  // no codec: strings only
  ks_.tier()->SetCollectionCodec(TestCodec());
  const size_t resident_usage = Keyspace::MemoryUsage("h", *stored);
  ASSERT_TRUE(ks_.Demote(0, "h"));
  ASSERT_EQ(ks_.FindAny(0, "h"), stored);
  EXPECT_TRUE(stored->cold());
  EXPECT_EQ(stored->type(), ObjType::kHash);
  EXPECT_EQ(stored->expire_at_ms(), kT0 + 100000);
  EXPECT_EQ(FreeEffort(*stored), 1u);
  EXPECT_LT(Keyspace::MemoryUsage("h", *stored), resident_usage / 10);
  EXPECT_GT(Stats().cold_bytes, 20u * 200);

  Object* copy = ks_.Find(0, "h", kT0);
  ASSERT_NE(copy, nullptr);
  EXPECT_NE(copy, stored);
  EXPECT_EQ(copy->hash(), want);
  EXPECT_TRUE(stored->cold());
  ks_.PromoteReadCopies(kRoom);
  EXPECT_FALSE(stored->cold());
  EXPECT_EQ(stored->hash(), want);
  EXPECT_EQ(Stats().cold_keys, 0u);

  ASSERT_TRUE(ks_.Demote(0, "h"));
  Object* written = ks_.FindForWrite(0, "h", kT0);
  ASSERT_EQ(written, stored);
  EXPECT_FALSE(written->cold());
  EXPECT_EQ(written->hash(), want);
  EXPECT_EQ(Stats().promotions, 2u);

  // A list the codec cannot decode: readers get nothing, a writer loses the key.
  ASSERT_TRUE(ks_.Demote(0, "l"));
  EXPECT_EQ(ks_.Find(0, "l", kT0), nullptr);
  EXPECT_EQ(Stats().read_errors, 1u);
  EXPECT_EQ(ks_.FindForWrite(0, "l", kT0), nullptr);
  EXPECT_EQ(ks_.FindAny(0, "l"), nullptr);
  EXPECT_EQ(Stats().cold_keys, 0u);

  // Encoded shorter than tier-min-value-size: refused, and not encoded again until written.
  ObjectPtr tiny = NewObject(ObjType::kHash);
  tiny->hash().emplace("f", "v");
  ks_.Set(0, "tiny", std::move(tiny));
  EXPECT_TRUE(ks_.tier()->Demotable(*ks_.FindAny(0, "tiny")));
  EXPECT_FALSE(ks_.Demote(0, "tiny"));
  EXPECT_FALSE(ks_.tier()->Demotable(*ks_.FindAny(0, "tiny")));
  Object* tiny_written = ks_.FindForWrite(0, "tiny", kT0);
  ASSERT_NE(tiny_written, nullptr);
  tiny_written->hash().emplace("field", ValueOf(1));
  EXPECT_TRUE(ks_.tier()->Demotable(*tiny_written));
  EXPECT_TRUE(ks_.Demote(0, "tiny"));

  ObjectPtr large = NewObject(ObjType::kList);
  large->list().resize(ColdTier::kMaxCollectionElements + 1);
  ks_.Set(0, "large", std::move(large));
  EXPECT_FALSE(ks_.tier()->Demotable(*ks_.FindAny(0, "large")));
}

// The prefetch path over the keyspace: a batch's cold values read ahead into this thread's
// Loading Zone are what its commands get, with no synchronous read; a write racing a read ahead
// wins (the zone's value is for a location the key no longer points to); keys the Host View holds
// are not looked up, and resident keys found are learned into it.
TEST_F(ColdKeyspaceTest, BatchesReadAheadIntoTheLoadingZone) {
  std::unique_ptr<offload::HostView> view;
  if (offload::StartDpdk().ok() && offload::HostView::Create(1024, &view).ok()) {
    ks_.tier()->SetHostView(std::move(view));
  }
  DemoteAll();
  ASSERT_TRUE(ks_.tier()->Flush().ok());  // on disk: nothing left in a batch in memory
  std::unique_ptr<offload::Prefetcher> prefetcher;
  ASSERT_TRUE(offload::Prefetcher::Create(64, 64, &prefetcher).ok());
  ks_.tier()->AttachPrefetcher(prefetcher.get());
  // Reads land one by one: the event fd may wake the reaper before the last of a waiter's.
  auto reap = [&](uint64_t want) {
    std::vector<uint64_t> ready;
    while (ready.empty()) {
      pollfd p{prefetcher->event_fd(), POLLIN, 0};
      ASSERT_EQ(poll(&p, 1, 10'000), 1);
      prefetcher->Reap([&](uint64_t waiter) { ready.push_back(waiter); });
    }
    EXPECT_EQ(ready, std::vector<uint64_t>{want});
  };
  std::vector<std::string> names;
  for (int i = 0; i < 10; ++i) names.push_back("k" + std::to_string(i));
  std::vector<Keyspace::KeyRef> keys;
  for (const std::string& name : names) keys.push_back({0, name});
  keys.push_back({0, "missing"});
  EXPECT_EQ(ks_.ReadAhead(keys, 7, *prefetcher), 10u);
  ASSERT_TRUE(prefetcher->Submit().ok());  // the caller submits, still under the lock
  reap(7);
  const uint64_t reads = Stats().reads;
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(StringValue(*ks_.Find(0, names[i], kT0)), ValueOf(i)) << i;
  }
  EXPECT_EQ(Stats().reads, reads);  // every value from the zone
  EXPECT_EQ(Stats().prefetch.zone_hits, 10u);
  ks_.PromoteReadCopies(kRoom);  // resident now; the view (if any) holds them
  if (ks_.tier()->host_view() != nullptr) {
    EXPECT_EQ(ks_.tier()->host_view()->size(), 10u);
  }
  EXPECT_EQ(ks_.ReadAhead(keys, 8, *prefetcher), 0u);  // resident: nothing to read

  // A write lands while k20's read is in flight, and the key is demoted again elsewhere.
  std::vector<Keyspace::KeyRef> k20 = {{0, "k20"}};
  EXPECT_EQ(ks_.ReadAhead(k20, 9, *prefetcher), 1u);
  ASSERT_TRUE(prefetcher->Submit().ok());
  ks_.Set(0, "k20", NewString(ValueOf(1000)));
  ASSERT_TRUE(ks_.Demote(0, "k20"));
  reap(9);
  EXPECT_EQ(StringValue(*ks_.Find(0, "k20", kT0)), ValueOf(1000));
  EXPECT_EQ(Stats().prefetch.zone_hits, 10u);
  EXPECT_EQ(Stats().reads, reads + 1);  // the stale value was not taken: read synchronously
  ks_.DropReadCopies();
  if (ks_.tier()->host_view() != nullptr) {
    // Resident keys a batch finds are learned; a deleted one leaves the view.
    const size_t held = ks_.tier()->host_view()->size();
    ks_.Set(0, "fresh", NewString(ValueOf(2000)));
    std::vector<Keyspace::KeyRef> fresh = {{0, "fresh"}};
    EXPECT_EQ(ks_.ReadAhead(fresh, 10, *prefetcher), 0u);
    EXPECT_EQ(ks_.tier()->host_view()->size(), held + 1);
    EXPECT_EQ(Stats().view_learned, 1u);
    EXPECT_TRUE(ks_.Delete(0, "fresh"));
    EXPECT_EQ(ks_.tier()->host_view()->size(), held);
  }
  ks_.tier()->DetachPrefetcher(prefetcher.get());
}

TEST_F(ColdKeyspaceTest, OnlyLongRawStringsAreDemoted) {
  ks_.Set(0, "int", NewString("12345"));
  ks_.Set(0, "embstr", NewString(std::string(44, 'e')));
  ks_.Set(0, "short-raw", NewString(std::string(60, 'r')));
  ks_.Set(0, "set", NewObject(ObjType::kSet));
  for (const char* key : {"int", "embstr", "short-raw", "set", "missing"}) {
    EXPECT_FALSE(ks_.Demote(0, key)) << key;
  }
  EXPECT_EQ(Stats().cold_keys, 0u);
}

TEST_F(ColdKeyspaceTest, GoneColdKeysLeaveGarbage) {
  DemoteAll();
  ASSERT_TRUE(ks_.tier()->Flush().ok());
  const uint64_t garbage = Stats().garbage_bytes;
  EXPECT_TRUE(ks_.Delete(0, "k10"));
  ks_.Set(0, "k11", NewString("over"));
  EXPECT_EQ(Stats().cold_keys, static_cast<uint64_t>(kKeys - 2));
  EXPECT_GT(Stats().garbage_bytes, garbage);
  ks_.FlushAll();
  EXPECT_EQ(Stats().cold_keys, 0u);
  EXPECT_EQ(Stats().cold_bytes, 0u);
}

TEST_F(ColdKeyspaceTest, CompactionMovesLiveRecords) {
  DemoteAll();
  ASSERT_TRUE(ks_.tier()->Flush().ok());
  for (int i = 0; i < kKeys; i += 4) {
    for (int j = i; j < i + 3; ++j) ASSERT_TRUE(ks_.Delete(0, "k" + std::to_string(j)));
  }
  int compacted = 0;
  for (;;) {
    int64_t segment = -1;
    ASSERT_TRUE(ks_.CompactTier(0.5, &segment).ok());
    if (segment < 0) break;
    ++compacted;
    ASSERT_LT(compacted, 100);
  }
  EXPECT_GT(compacted, 0);
  EXPECT_GT(Stats().store.moved, 0u);
  for (int i = 3; i < kKeys; i += 4) {
    EXPECT_EQ(StringValue(*ks_.Find(0, "k" + std::to_string(i), kT0)), ValueOf(i)) << i;
  }
  EXPECT_EQ(Stats().read_errors, 0u);
  ks_.DropReadCopies();
}

TEST_F(ColdKeyspaceTest, ADamagedRecordLosesItsKeyOnly) {
  DemoteAll();
  ASSERT_TRUE(ks_.tier()->Flush().ok());
  const offload::TierLocation at = ks_.FindAny(0, "k20")->cold_location();
  {
    const int fd = open(dir_.File("tier-" + std::to_string(at.segment) + ".seg").c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    const char junk = 'J';
    ASSERT_EQ(pwrite(fd, &junk, 1, static_cast<off_t>(at.offset + at.size - 1)), 1);
    ASSERT_EQ(fsync(fd), 0);
    close(fd);
  }
  EXPECT_EQ(ks_.Find(0, "k20", kT0), nullptr);
  EXPECT_EQ(Stats().read_errors, 1u);
  EXPECT_EQ(ks_.FindForWrite(0, "k20", kT0), nullptr);  // and the writer deletes it
  EXPECT_EQ(ks_.FindAny(0, "k20"), nullptr);
  EXPECT_EQ(StringValue(*ks_.Find(0, "k21", kT0)), ValueOf(21));
  ks_.DropReadCopies();
}

// Readers of both I/O threads read cold values at once under the shared lock (ThreadSanitizer).
TEST_F(ColdKeyspaceTest, ConcurrentReadersUnderTheSharedLock) {
  DemoteAll();
  std::vector<std::thread> readers;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&, t] {
      for (int round = 0; round < 20; ++round) {
        std::shared_lock lock(ks_.mu());
        for (int i = t; i < kKeys; i += 3) {
          Object* obj = ks_.Find(0, "k" + std::to_string(i), kT0);
          if (obj == nullptr || StringValue(*obj) != ValueOf(i)) ++wrong;
        }
        ks_.DropReadCopies();
      }
    });
  }
  for (auto& r : readers) r.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace ordis::server
