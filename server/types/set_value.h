// The payload of a set key: distinct byte-string members with O(1) expected membership test,
// insertion, erasure and uniformly random pick (SPOP, SRANDMEMBER).
//
// Representation: the members live in a vector, at positions 0..size()-1 with no holes, so a
// random position is a random member. An index of positions finds a member's position; it hashes
// and compares a position by the member's bytes in the vector, so each member's bytes are stored
// once (the index costs a 4-byte slot and a control byte per table slot). Insertion appends;
// erasure moves the last member into the hole and re-indexes it (swap-with-last).
//
// Invariants:
//   - members are pairwise distinct, and index_ holds exactly the positions 0..size()-1, each once;
//   - index_'s hasher and comparator point at *members_, which is heap-allocated so that a move
//     keeps them valid (a move steals both; a copy builds a new index over its own vector).
//   - at most kMaxSize members: positions are 32-bit.
//
// Iteration order is the positions' order. It is not insertion order once anything was erased.
// References, iterators and positions stay valid until the next non-const call.
//
// Thread safety: none of its own, as the standard containers: const methods may run concurrently
// with each other (readers under the shared keyspace lock); a non-const method needs exclusive
// access (the keyspace lock held exclusively).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"

namespace ordis::server {

class SetValue {
 public:
  using const_iterator = std::vector<std::string>::const_iterator;
  static constexpr size_t kMaxSize = UINT32_MAX;

  SetValue();
  // A copy re-indexes its members: O(n).
  SetValue(const SetValue& other);
  SetValue& operator=(const SetValue& other);
  // Moves are O(1). The moved-from set is empty and usable (it allocates a fresh vector).
  SetValue(SetValue&& other);
  SetValue& operator=(SetValue&& other);
  ~SetValue() = default;

  size_t size() const { return members_->size(); }
  bool empty() const { return members_->empty(); }
  const_iterator begin() const { return members_->begin(); }
  const_iterator end() const { return members_->end(); }
  // The member at position pos (0 <= pos < size()). Erasing moves the last member to the erased
  // position, so a position names a member only until the next non-const call.
  const std::string& operator[](size_t pos) const { return (*members_)[pos]; }

  bool contains(std::string_view member) const { return index_.contains(member); }
  // Returns true iff member was absent (and is now added, at position size() - 1).
  // Requires size() < kMaxSize when member is absent.
  bool insert(std::string_view member);
  // Returns true iff member was present (and is now removed). O(1) expected.
  bool erase(std::string_view member);
  void clear();
  // Room for n members without reallocating the vector or rehashing the index.
  void reserve(size_t n);

  // A uniformly random member; requires !empty(). O(1).
  const std::string& RandomMember(std::mt19937_64& rng) const;
  // Removes a uniformly random member and returns it; requires !empty(). O(1) expected.
  std::string PopRandom(std::mt19937_64& rng);

  // Bytes of the vector and index allocations, not counting the members' own heap buffers
  // (strings longer than the small-string buffer): MEMORY USAGE adds those. An estimate: the index
  // is counted as capacity() slots of 4 bytes plus a control byte each.
  size_t TableBytes() const;

 private:
  using Members = std::vector<std::string>;

  // Hash and equality of index slots (positions) and probes (member bytes): a position stands for
  // the member it holds. is_transparent lets lookups take a std::string_view without a copy.
  struct PositionHash {
    using is_transparent = void;
    const Members* members = nullptr;
    size_t operator()(std::string_view member) const;
    size_t operator()(uint32_t pos) const { return (*this)(std::string_view((*members)[pos])); }
  };
  struct PositionEq {
    using is_transparent = void;
    const Members* members = nullptr;
    std::string_view Bytes(uint32_t pos) const { return (*members)[pos]; }
    std::string_view Bytes(std::string_view member) const { return member; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return Bytes(a) == Bytes(b);
    }
  };
  using Index = absl::flat_hash_set<uint32_t, PositionHash, PositionEq>;

  static Index NewIndex(const Members* members);
  // After the index slot of position pos was erased: moves the last member into pos, re-indexes
  // it, and shrinks the vector by one.
  void FillHole(uint32_t pos);

  std::unique_ptr<Members> members_;
  Index index_;
};

}  // namespace ordis::server
