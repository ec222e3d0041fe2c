#include "server/types/zset_small.h"

#include <cstring>
#include <vector>

namespace ordis::server {

// A position in bytes_ and the entry it starts.
struct ZSetSmall::Cursor {
  explicit Cursor(const std::string& b, size_t at = 0) : bytes(b), offset(at) {}

  const std::string& bytes;
  size_t offset = 0;
  double score = 0;
  std::string_view member;
  size_t next = 0;  // offset of the following entry

  bool Load() {
    if (offset >= bytes.size()) return false;
    const char* p = bytes.data() + offset;
    std::memcpy(&score, p, sizeof score);
    uint32_t len;
    const char* m = GetVarint32(p + sizeof score, &len);
    member = std::string_view(m, len);
    next = static_cast<size_t>(m + len - bytes.data());
    return true;
  }
  bool Advance() {
    offset = next;
    return Load();
  }
};

size_t ZSetSmall::Find(std::string_view member) const {
  for (Cursor c{bytes_}; c.Load(); c.offset = c.next) {
    if (c.member == member) return c.offset;
  }
  return std::string::npos;
}

std::optional<double> ZSetSmall::Score(std::string_view member) const {
  const size_t offset = Find(member);
  if (offset == std::string::npos) return std::nullopt;
  Cursor c{bytes_, offset};
  c.Load();
  return c.score;
}

void ZSetSmall::EraseAt(size_t offset) {
  Cursor c{bytes_, offset};
  c.Load();
  bytes_.erase(offset, c.next - offset);
  --size_;
}

bool ZSetSmall::Insert(std::string_view member, double score) {
  const size_t existing = Find(member);
  if (existing != std::string::npos) EraseAt(existing);
  size_t at = bytes_.size();
  for (Cursor c{bytes_}; c.Load(); c.offset = c.next) {
    if (ZLess(score, member, c.score, c.member)) {
      at = c.offset;
      break;
    }
  }
  const auto len = static_cast<uint32_t>(member.size());
  char head[sizeof(double) + 5];
  std::memcpy(head, &score, sizeof score);
  char* end = PutVarint32(head + sizeof score, len);
  bytes_.insert(at, member);
  bytes_.insert(at, head, static_cast<size_t>(end - head));
  ++size_;
  if (member.size() > max_member_) max_member_ = member.size();
  return existing == std::string::npos;
}

bool ZSetSmall::Erase(std::string_view member) {
  const size_t offset = Find(member);
  if (offset == std::string::npos) return false;
  EraseAt(offset);
  return true;
}

std::optional<size_t> ZSetSmall::Rank(std::string_view member) const {
  size_t rank = 0;
  for (Cursor c{bytes_}; c.Load(); c.offset = c.next, ++rank) {
    if (c.member == member) return rank;
  }
  return std::nullopt;
}

size_t ZSetSmall::CountBefore(ZBefore before) const {
  size_t rank = 0;
  for (Cursor c{bytes_}; c.Load() && before(c.score, c.member); c.offset = c.next) ++rank;
  return rank;
}

void ZSetSmall::VisitFrom(size_t first, bool reverse, ZVisit visit) const {
  Cursor c{bytes_};
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
    Cursor at{bytes_, offsets[i]};
    at.Load();
    if (!visit(at.member, at.score)) return;
  }
}

void ZSetSmall::EraseRanks(size_t first, size_t last) {
  Cursor c{bytes_};
  c.Load();
  for (size_t rank = 0; rank < first; ++rank) c.Advance();
  const size_t begin = c.offset;
  for (size_t rank = first; rank <= last; ++rank) c.Advance();
  bytes_.erase(begin, c.offset - begin);
  size_ -= last - first + 1;
}

}  // namespace ordis::server
