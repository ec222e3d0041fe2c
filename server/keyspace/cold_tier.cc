#include "server/keyspace/cold_tier.h"

#include <algorithm>
#include <bit>
#include <utility>
#include <variant>
#include <vector>

#include "base/logging.h"

namespace ordis::server {
namespace {

struct HeldCopy {
  const ColdTier* owner;
  ObjectPtr copy;
  std::string record_key;
  offload::TierLocation from;
  bool promote;
  bool selected = false;  // SelectPromotions kept it: PromoteCopies promotes it
};

size_t ElementCount(const StreamBox& s) { return s->size() + s->groups().size(); }
template <typename Value>
size_t ElementCount(const Value& v) {
  return v.size();
}

// This thread's copies (of every tier: tests run several keyspaces in one process).
thread_local std::vector<HeldCopy> t_copies;
// This thread's prefetcher and the tier it reads for.
thread_local const ColdTier* t_prefetch_tier = nullptr;
thread_local offload::Prefetcher* t_prefetcher = nullptr;

}  // namespace

ColdTier::ColdTier(std::unique_ptr<offload::TierStore> store, size_t min_value_size)
    : min_value_size_(std::max<size_t>(min_value_size, Object::kMaxEmbStr + 1)),
      store_(std::move(store)) {}

ColdTier::~ColdTier() { DropCopies(); }

bool ColdTier::Demotable(const Object& obj) const {
  if (obj.cold() || obj.demotion_refused()) return false;
  if (obj.type() != ObjType::kString) {
    if (!codec_.encode) return false;
    // Bounded before encoding: a collection far over kMaxValueSize is not encoded to find out.
    const size_t elements =
        std::visit([](const auto& v) { return ElementCount(v); }, obj.collection());
    return elements > 0 && elements <= kMaxCollectionElements;
  }
  if (obj.encoding() != ObjEncoding::kRaw) return false;
  const size_t size = obj.StringSize();
  return size >= min_value_size_ && size <= kMaxValueSize;
}

bool ColdTier::Demote(std::string_view record_key, Object* obj) {
  IntText unused;
  std::string encoded;
  std::string_view value;
  if (obj->type() == ObjType::kString) {
    value = obj->StringBytes(&unused);
  } else {
    codec_.encode(*obj, &encoded);
    if (encoded.size() < min_value_size_ || encoded.size() > kMaxValueSize) {
      obj->set_demotion_refused(true);  // until it is written: sampled again, it is not encoded
      return false;
    }
    value = encoded;
  }
  offload::TierLocation at;
  {
    std::lock_guard lock(mu_);
    // Batches written since are let go of once on disk (a non-blocking look at completions).
    if (store_->stats().pending_batches > 1) store_->Poll();
    // A record too large for a segment stays resident; the tier still takes others.
    if (!store_->Fits(record_key.size(), value.size())) return false;
    if (!store_->Demote(record_key, value, &at).ok()) {
      accepting_.store(false, std::memory_order_relaxed);
      return false;
    }
    if (!Object::FitsCold(at)) {  // a tier configured past what an object can point into
      store_->Release(at);
      accepting_.store(false, std::memory_order_relaxed);
      return false;
    }
  }
  cold_keys_.fetch_add(1, std::memory_order_relaxed);
  cold_bytes_.fetch_add(at.size, std::memory_order_relaxed);
  demotions_.fetch_add(1, std::memory_order_relaxed);
  obj->MakeCold(at);
  if (view_ != nullptr) view_->Remove(offload::HostView::Digest(record_key));
  return true;
}

bool ColdTier::ReadValue(std::string_view record_key, const Object& obj, std::string* value) {
  if (t_prefetch_tier == this) {
    // Under the keyspace's lock no compaction removes the segment: its generation is current.
    const offload::TierLocation at = obj.cold_location();
    if (t_prefetcher->zone().CheckAndReturn(offload::HostView::Digest(record_key), at,
                                            store_->files().generation(at.segment), value)) {
      return true;
    }
  }
  reads_.fetch_add(1, std::memory_order_relaxed);
  persistence::Status status = persistence::Status::Ok();
  {
    std::lock_guard lock(mu_);
    status = store_->Read(obj.cold_location(), record_key, value);
  }
  if (status.ok()) return true;
  read_errors_.fetch_add(1, std::memory_order_relaxed);
  log::Warning("Cold tier: the value of a key of {} bytes is lost: {}", record_key.size(),
               status.message());
  return false;
}

bool ColdTier::Promote(std::string_view record_key, Object* obj) {
  std::string value;
  return ReadValue(record_key, *obj, &value) && MakeResident(record_key, obj, value);
}

ObjectPtr ColdTier::Materialize(std::string_view record_key, const Object& obj,
                                std::string_view value) {
  ObjectPtr copy = obj.type() == ObjType::kString
                       ? NewString(value, obj.expire_at_ms(), StringRule::kRaw)
                       : codec_.decode(obj.type(), value, obj.expire_at_ms());
  if (copy == nullptr) {
    read_errors_.fetch_add(1, std::memory_order_relaxed);
    log::Warning("Cold tier: the value of a key of {} bytes is lost: its {} does not decode",
                 record_key.size(), TypeName(obj.type()));
    return nullptr;
  }
  copy->lfu.store(obj.lfu.load(std::memory_order_relaxed), std::memory_order_relaxed);
  copy->access_s.store(obj.access_s.load(std::memory_order_relaxed), std::memory_order_relaxed);
  return copy;
}

bool ColdTier::MakeResident(std::string_view record_key, Object* obj, std::string_view value) {
  if (obj->type() != ObjType::kString) {
    ObjectPtr decoded = Materialize(record_key, *obj, value);
    if (decoded == nullptr) return false;
    MakeResident(record_key, obj, decoded.get());
    return true;
  }
  Forget(*obj);
  obj->MakeResident(value);
  Promoted(record_key);
  return true;
}

void ColdTier::MakeResident(std::string_view record_key, Object* obj, Object* copy) {
  Forget(*obj);
  if (obj->type() == ObjType::kString) {
    IntText unused;
    obj->MakeResident(copy->StringBytes(&unused));
  } else {
    obj->MakeResident(copy);
  }
  Promoted(record_key);
}

void ColdTier::Promoted(std::string_view record_key) {
  promotions_.fetch_add(1, std::memory_order_relaxed);
  if (view_ != nullptr) ViewAdd(offload::HostView::Digest(record_key));
}

void ColdTier::ViewAdd(uint64_t digest) {
  if (!view_->Add(digest)) view_full_.fetch_add(1, std::memory_order_relaxed);
}

void ColdTier::AttachPrefetcher(offload::Prefetcher* prefetcher) {
  t_prefetch_tier = this;
  t_prefetcher = prefetcher;
  std::lock_guard lock(prefetchers_mu_);
  prefetchers_.push_back(prefetcher);
}

void ColdTier::DetachPrefetcher(offload::Prefetcher* prefetcher) {
  if (t_prefetcher == prefetcher) {
    t_prefetch_tier = nullptr;
    t_prefetcher = nullptr;
  }
  std::lock_guard lock(prefetchers_mu_);
  std::erase(prefetchers_, prefetcher);
}

bool ColdTier::ReadAhead(std::string_view record_key, uint64_t digest, const Object& obj,
                         uint64_t waiter, offload::Prefetcher& prefetcher) {
  const offload::TierLocation at = obj.cold_location();
  int fd;
  uint32_t generation;
  offload::TierSpan span;
  std::lock_guard lock(mu_);
  if (!store_->DiskSpan(at, &fd, &generation, &span)) return false;
  return prefetcher.Read(waiter, digest, record_key, at, fd, generation, span);
}

void ColdTier::LearnResident(uint64_t digest) {
  if (view_ == nullptr) return;
  view_learned_.fetch_add(1, std::memory_order_relaxed);
  ViewAdd(digest);
}

void ColdTier::KeyGone(std::string_view record_key) {
  if (view_ != nullptr) view_->Remove(offload::HostView::Digest(record_key));
}

void ColdTier::ClearView() {
  if (view_ != nullptr) view_->Clear();
}

ObjectPtr ColdTier::LoadCopy(std::string_view record_key, const Object& obj) {
  std::string value;
  if (!ReadValue(record_key, obj, &value)) return nullptr;
  return Materialize(record_key, obj, value);
}

Object* ColdTier::Copy(std::string_view record_key, const Object& obj, bool promote) {
  ObjectPtr copy = LoadCopy(record_key, obj);
  if (copy == nullptr) return nullptr;
  Object* held = copy.get();
  t_copies.push_back(
      {this, std::move(copy), std::string(record_key), obj.cold_location(), promote});
  return held;
}

namespace {

// Whether copy c (of obj, found by its record key) is to be promoted; records its accesses on obj
// and asks the doorkeeper `recent` (once: c remembers a yes, but not that obj still holds it).
bool Select(HeldCopy& c, Object* obj, absl::FunctionRef<bool()> room,
            std::span<std::atomic<uint64_t>> recent) {
  // Written, deleted, or promoted by an earlier copy since (under the shared lock, too, after
  // SelectPromotions kept it): nothing to do.
  if (obj == nullptr || !obj->cold() || obj->cold_location() != c.from) return false;
  if (c.selected) return true;
  // The reads' accesses were recorded on the copy: they count whether or not it is promoted.
  obj->lfu.store(c.copy->lfu.load(std::memory_order_relaxed), std::memory_order_relaxed);
  obj->access_s.store(c.copy->access_s.load(std::memory_order_relaxed), std::memory_order_relaxed);
  if (!room()) {
    // Readers of several threads may race on a slot: the doorkeeper only grows less exact. The
    // hash is the Host View's digest, the same in every process (absl's is seeded per process,
    // which made which keys share a slot, and so a test of second reads, change from run to run).
    const uint64_t hash = offload::HostView::Digest(c.record_key) | 1;  // 0 marks an empty slot
    std::atomic<uint64_t>& slot = recent[hash % recent.size()];
    if (slot.exchange(hash, std::memory_order_relaxed) != hash) return false;
    slot.store(0, std::memory_order_relaxed);
  }
  c.selected = true;
  return true;
}

}  // namespace

bool ColdTier::SelectPromotions(absl::FunctionRef<Object*(std::string_view record_key)> find,
                                absl::FunctionRef<bool()> room) {
  bool any = false;
  std::erase_if(t_copies, [&](HeldCopy& c) {
    if (c.owner != this) return false;
    const bool keep = c.promote && Select(c, find(c.record_key), room, recent_reads());
    any = any || keep;
    return !keep;
  });
  return any;
}

void ColdTier::PromoteCopies(absl::FunctionRef<Object*(std::string_view record_key)> find,
                             absl::FunctionRef<bool()> room) {
  for (HeldCopy& c : t_copies) {
    if (c.owner != this || !c.promote) continue;
    Object* obj = find(c.record_key);
    if (!Select(c, obj, room, recent_reads())) continue;
    MakeResident(c.record_key, obj, c.copy.get());
  }
  DropCopies();
}

bool ColdTier::HasCopies() const {
  return std::any_of(t_copies.begin(), t_copies.end(),
                     [&](const HeldCopy& c) { return c.owner == this; });
}

void ColdTier::DropCopies() {
  std::erase_if(t_copies, [&](const HeldCopy& c) { return c.owner == this; });
}

void ColdTier::Forget(const Object& obj) {
  const offload::TierLocation at = obj.cold_location();
  {
    std::lock_guard lock(mu_);
    store_->Release(at);
  }
  cold_keys_.fetch_sub(1, std::memory_order_relaxed);
  cold_bytes_.fetch_sub(at.size, std::memory_order_relaxed);
}

void ColdTier::Poll() {
  std::lock_guard lock(mu_);
  store_->Poll();
}

persistence::Status ColdTier::Flush() {
  std::lock_guard lock(mu_);
  return store_->Drain();
}

persistence::Status ColdTier::Compact(double min_garbage, offload::TierStore::LiveFn live,
                                      offload::TierStore::MovedFn moved, int64_t* segment) {
  std::lock_guard lock(mu_);
  persistence::Status status = store_->Compact(min_garbage, live, moved, segment);
  if (status.ok() && *segment >= 0 && store_->failed().empty()) {
    accepting_.store(true, std::memory_order_relaxed);
  }
  return status;
}

size_t ColdTier::DoorkeeperSlotsFor(uint64_t resident, uint64_t max_bytes) const {
  const size_t ceiling = std::max<size_t>(
      kMinDoorkeeper, std::bit_floor(std::min<uint64_t>(kMaxDoorkeeper, max_bytes / 8)));
  const size_t now = doorkeeper_slots();
  if (resident > now || resident < now / 4) {
    return std::clamp<size_t>(std::bit_ceil(std::max<uint64_t>(resident, 1)), kMinDoorkeeper,
                              ceiling);
  }
  return std::min(now, ceiling);
}

void ColdTier::SizeDoorkeeper(uint64_t resident, uint64_t max_bytes) {
  const size_t slots = DoorkeeperSlotsFor(resident, max_bytes);
  if (slots == doorkeeper_slots()) return;
  recent_reads_.reset(new std::atomic<uint64_t>[slots] {});
  recent_size_.store(slots, std::memory_order_relaxed);
}

ColdTier::Stats ColdTier::stats() const {
  Stats s;
  s.cold_keys = cold_keys_.load(std::memory_order_relaxed);
  s.cold_bytes = cold_bytes_.load(std::memory_order_relaxed);
  s.demotions = demotions_.load(std::memory_order_relaxed);
  s.promotions = promotions_.load(std::memory_order_relaxed);
  s.reads = reads_.load(std::memory_order_relaxed);
  s.read_errors = read_errors_.load(std::memory_order_relaxed);
  if (view_ != nullptr) {
    s.view_keys = view_->size();
    s.view_capacity = view_->capacity();
  }
  s.view_learned = view_learned_.load(std::memory_order_relaxed);
  s.view_full = view_full_.load(std::memory_order_relaxed);
  {
    std::lock_guard lock(prefetchers_mu_);
    for (const offload::Prefetcher* p : prefetchers_) s.prefetch += p->stats();
  }
  std::lock_guard lock(mu_);
  s.store = store_->stats();
  s.file_bytes = store_->files().used_bytes();
  s.garbage_bytes = store_->files().garbage_bytes();
  s.failed = store_->failed();
  return s;
}

}  // namespace ordis::server
