#include "server/types/zset_small.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <vector>

namespace ordis::server {
namespace {

// Integral scores up to this magnitude are stored as integers: every one is exact in a double.
constexpr double kMaxIntegralScore = 9007199254740992.0;  // 2^53
constexpr uint64_t kDoubleScore = 1;                      // the score varint of a stored double
constexpr size_t kMaxScoreBytes = 10;                     // a 64-bit varint
constexpr size_t kMaxHeadBytes = kMaxScoreBytes + 5;      // and a 32-bit varint length

// Writes score's encoding at p; returns its end.
char* PutScore(char* p, double score) {
  if (score >= -kMaxIntegralScore && score <= kMaxIntegralScore) {
    const auto i = static_cast<int64_t>(score);
    if (static_cast<double>(i) == score) {
      const uint64_t zigzag = (static_cast<uint64_t>(i) << 1) ^ static_cast<uint64_t>(i >> 63);
      return PutVarintAt(p, zigzag << 1);
    }
  }
  p = PutVarintAt(p, kDoubleScore);
  std::memcpy(p, &score, sizeof score);
  return p + sizeof score;
}

double IntegerScore(uint64_t zigzag) {
  return static_cast<double>(static_cast<int64_t>(zigzag >> 1) ^ -static_cast<int64_t>(zigzag & 1));
}

const char* GetScore(const char* p, double* score) {
  uint64_t v = static_cast<uint8_t>(*p);
  if ((v & 0x81) == 0) {  // one byte, even: an integer within +-31, the common case
    *score = IntegerScore(v >> 1);
    return p + 1;
  }
  p = GetVarintAt(p, &v);
  if (v == kDoubleScore) {
    std::memcpy(score, p, sizeof *score);
    return p + sizeof *score;
  }
  *score = IntegerScore(v >> 1);
  return p;
}

// The end of the score at p, read without decoding it.
const char* SkipScore(const char* p) {
  if (static_cast<uint8_t>(*p) == kDoubleScore) return p + 1 + sizeof(double);
  while (static_cast<uint8_t>(*p) >= 0x80) ++p;
  return p + 1;
}

}  // namespace

// A position in the entries and the entry it starts.
struct ZSetSmall::Cursor {
  explicit Cursor(const ZSetSmall& set, size_t at = 0)
      : bytes(set.bytes_), used(set.used_), offset(at) {}

  const char* bytes;
  size_t used;
  size_t offset = 0;
  double score = 0;
  std::string_view member;
  size_t next = 0;  // offset of the following entry

  bool Load() {
    if (offset >= used) return false;
    uint32_t len;
    const char* m = GetVarintAt(GetScore(bytes + offset, &score), &len);
    member = std::string_view(m, len);
    next = static_cast<size_t>(m + len - bytes);
    return true;
  }
  bool Advance() {
    offset = next;
    return Load();
  }
};

// --- Life cycle ---------------------------------------------------------------------------------

ZSetSmall::ZSetSmall(const ZSetSmall& other) : size_(other.size_) {
  if (other.used_ > 0) std::memcpy(Splice(0, 0, other.used_), other.bytes_, other.used_);
}

ZSetSmall& ZSetSmall::operator=(const ZSetSmall& other) {
  if (this != &other) *this = ZSetSmall(other);
  return *this;
}

ZSetSmall::ZSetSmall(ZSetSmall&& other) noexcept
    : bytes_(std::exchange(other.bytes_, nullptr)),
      used_(std::exchange(other.used_, 0)),
      capacity_(std::exchange(other.capacity_, 0)),
      size_(std::exchange(other.size_, 0)) {}

ZSetSmall& ZSetSmall::operator=(ZSetSmall&& other) noexcept {
  std::swap(bytes_, other.bytes_);
  std::swap(used_, other.used_);
  std::swap(capacity_, other.capacity_);
  std::swap(size_, other.size_);
  return *this;
}

ZSetSmall::~ZSetSmall() { std::free(bytes_); }

char* ZSetSmall::Splice(size_t offset, size_t removed, size_t inserted) {
  const size_t used = used_ - removed + inserted;
  const size_t tail = used_ - offset - removed;
  if (used == 0) {
    std::free(bytes_);
    bytes_ = nullptr;
    used_ = capacity_ = 0;
    return nullptr;
  }
  // A shrinking block moves its tail before the realloc cuts it off; a growing one after. Growth
  // within the block's size class needs no realloc; a shrink always asks (the allocator keeps the
  // block when the class stays).
  if (used < used_) std::memmove(bytes_ + offset + inserted, bytes_ + offset + removed, tail);
  if (used > capacity_ || used < used_) {
    auto* bytes = static_cast<char*>(std::realloc(bytes_, used));
    if (bytes == nullptr) throw std::bad_alloc();
    bytes_ = bytes;
    capacity_ = malloc_usable_size(bytes_);
  }
  if (used > used_) std::memmove(bytes_ + offset + inserted, bytes_ + offset + removed, tail);
  used_ = used;
  return bytes_ + offset;
}

// --- Operations ---------------------------------------------------------------------------------

size_t ZSetSmall::Find(std::string_view member) const {
  // Skips scores undecoded: ZADD looks each member up before inserting it.
  const char* end = bytes_ + used_;
  for (const char* p = bytes_; p < end;) {
    uint32_t len;
    const char* m = GetVarintAt(SkipScore(p), &len);
    if (len == member.size() && std::memcmp(m, member.data(), len) == 0) {
      return static_cast<size_t>(p - bytes_);
    }
    p = m + len;
  }
  return kNotFound;
}

std::optional<double> ZSetSmall::Score(std::string_view member) const {
  const size_t offset = Find(member);
  if (offset == kNotFound) return std::nullopt;
  Cursor c{*this, offset};
  c.Load();
  return c.score;
}

bool ZSetSmall::Insert(std::string_view member, double score) {
  // One pass finds both the member's entry, if any, and where the new entry goes.
  size_t existing = kNotFound, existing_size = 0, at = kNotFound;
  for (Cursor c{*this}; c.Load(); c.offset = c.next) {
    if (existing == kNotFound && c.member == member) {
      if (c.score == score) return false;
      existing = c.offset;
      existing_size = c.next - c.offset;
      if (at != kNotFound) break;
    }
    if (at == kNotFound && ZLess(score, member, c.score, c.member)) {
      at = c.offset;
      if (existing != kNotFound) break;
    }
  }
  if (at == kNotFound) at = used_;
  if (existing != kNotFound) {
    Splice(existing, existing_size, 0);
    if (at > existing) at -= existing_size;  // at is an entry's start: never inside the old one
    --size_;
  }
  char head[kMaxHeadBytes];
  char* end = PutVarintAt(PutScore(head, score), static_cast<uint32_t>(member.size()));
  const size_t head_size = static_cast<size_t>(end - head);
  char* entry = Splice(at, 0, head_size + member.size());
  std::memcpy(entry, head, head_size);
  std::memcpy(entry + head_size, member.data(), member.size());
  ++size_;
  return existing == kNotFound;
}

bool ZSetSmall::Erase(std::string_view member) {
  const size_t offset = Find(member);
  if (offset == kNotFound) return false;
  Cursor c{*this, offset};
  c.Load();
  Splice(offset, c.next - offset, 0);
  --size_;
  return true;
}

std::optional<size_t> ZSetSmall::Rank(std::string_view member) const {
  size_t rank = 0;
  for (Cursor c{*this}; c.Load(); c.offset = c.next, ++rank) {
    if (c.member == member) return rank;
  }
  return std::nullopt;
}

size_t ZSetSmall::CountBefore(ZBefore before) const {
  size_t rank = 0;
  for (Cursor c{*this}; c.Load() && before(c.score, c.member); c.offset = c.next) ++rank;
  return rank;
}

void ZSetSmall::VisitFrom(size_t first, bool reverse, ZVisit visit) const {
  Cursor c{*this};
  if (!reverse) {
    size_t rank = 0;
    for (c.Load(); rank < first; c.Advance()) ++rank;
    do {
      if (!visit(c.member, c.score)) return;
    } while (c.Advance());
    return;
  }
  // Entries have no backward links: note the offsets up to first, then walk them back.
  std::vector<size_t> offsets;
  offsets.reserve(first + 1);
  c.Load();
  for (size_t rank = 0; rank <= first; ++rank, c.Advance()) offsets.push_back(c.offset);
  for (size_t i = offsets.size(); i-- > 0;) {
    Cursor at{*this, offsets[i]};
    at.Load();
    if (!visit(at.member, at.score)) return;
  }
}

void ZSetSmall::EraseRanks(size_t first, size_t last) {
  Cursor c{*this};
  c.Load();
  for (size_t rank = 0; rank < first; ++rank) c.Advance();
  const size_t begin = c.offset;
  for (size_t rank = first; rank <= last; ++rank) c.Advance();
  Splice(begin, c.offset - begin, 0);
  size_ -= last - first + 1;
}

}  // namespace ordis::server
