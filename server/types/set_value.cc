#include "server/types/set_value.h"

#include <cassert>
#include <utility>

#include "absl/hash/hash.h"

namespace ordis::server {

size_t SetValue::PositionHash::operator()(std::string_view member) const {
  return absl::Hash<std::string_view>{}(member);
}

SetValue::Index SetValue::NewIndex(const Members* members) {
  return Index(0, PositionHash{members}, PositionEq{members});
}

SetValue::SetValue() : members_(std::make_unique<Members>()), index_(NewIndex(members_.get())) {}

SetValue::SetValue(const SetValue& other)
    : members_(std::make_unique<Members>(*other.members_)), index_(NewIndex(members_.get())) {
  index_.reserve(members_->size());
  for (uint32_t pos = 0; pos < members_->size(); ++pos) index_.insert(pos);
}

SetValue& SetValue::operator=(const SetValue& other) {
  SetValue copy(other);
  *this = std::move(copy);
  return *this;
}

SetValue::SetValue(SetValue&& other)
    : members_(std::move(other.members_)), index_(std::move(other.index_)) {
  other.members_ = std::make_unique<Members>();
  other.index_ = NewIndex(other.members_.get());
}

SetValue& SetValue::operator=(SetValue&& other) {
  // Swapping the index swaps its hasher and comparator too, so each still points at the vector
  // it indexes.
  SetValue taken(std::move(other));
  members_.swap(taken.members_);
  index_.swap(taken.index_);
  return *this;
}

bool SetValue::insert(std::string_view member) {
  bool added = false;
  // One probe: abseil's lazy_emplace calls the lambda only when member is absent, with the slot
  // already chosen. The vector must hold the member before the position is constructed (the
  // index may hash it from then on).
  index_.lazy_emplace(member, [&](const Index::constructor& construct) {
    assert(members_->size() < kMaxSize);
    members_->emplace_back(member);
    construct(static_cast<uint32_t>(members_->size() - 1));
    added = true;
  });
  return added;
}

bool SetValue::erase(std::string_view member) {
  auto it = index_.find(member);
  if (it == index_.end()) return false;
  const uint32_t pos = *it;
  index_.erase(it);
  FillHole(pos);
  return true;
}

void SetValue::FillHole(uint32_t pos) {
  const uint32_t last = static_cast<uint32_t>(members_->size() - 1);
  if (pos != last) {
    auto moved = index_.find(std::string_view((*members_)[last]));
    assert(moved != index_.end());
    // Rewriting the slot in place keeps the table consistent: a slot's hash is its member's, and
    // the member moves with the new position.
    const_cast<uint32_t&>(*moved) = pos;
    (*members_)[pos] = std::move((*members_)[last]);
  }
  members_->pop_back();
}

void SetValue::clear() {
  members_->clear();
  index_.clear();
}

void SetValue::reserve(size_t n) {
  members_->reserve(n);
  index_.reserve(n);
}

const std::string& SetValue::RandomMember(std::mt19937_64& rng) const {
  assert(!empty());
  return (*members_)[std::uniform_int_distribution<size_t>(0, size() - 1)(rng)];
}

std::string SetValue::PopRandom(std::mt19937_64& rng) {
  assert(!empty());
  const auto pos = static_cast<uint32_t>(std::uniform_int_distribution<size_t>(0, size() - 1)(rng));
  auto it = index_.find(std::string_view((*members_)[pos]));
  assert(it != index_.end() && *it == pos);
  index_.erase(it);
  std::string popped = std::move((*members_)[pos]);
  FillHole(pos);
  return popped;
}

size_t SetValue::TableBytes() const {
  return sizeof(Members) + members_->capacity() * sizeof(std::string) +
         index_.capacity() * (sizeof(uint32_t) + 1);
}

}  // namespace ordis::server
