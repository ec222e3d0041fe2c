#include "server/types/stream_value.h"

#include <cassert>
#include <charconv>
#include <cstring>
#include <utility>

#include "base/coding.h"
#include "base/number.h"

namespace ordis::server {
namespace {

constexpr uint8_t kDeleted = 1;                       // Redis's STREAM_ITEM_FLAG_DELETED
constexpr uint8_t kSameFields = 2;                    // STREAM_ITEM_FLAG_SAMEFIELDS
constexpr size_t kListpackMaxSize = size_t{1} << 30;  // STREAM_LISTPACK_MAX_SIZE

// --- Redis's listpack element sizes (listpack.c), for the node split rule ---

size_t ListpackIntSize(int64_t v) {
  if (v >= 0 && v <= 127) return 1;
  if (v >= -4096 && v <= 4095) return 2;
  if (v >= -32768 && v <= 32767) return 3;
  if (v >= -8388608 && v <= 8388607) return 4;
  if (v >= INT32_MIN && v <= INT32_MAX) return 5;
  return 9;
}

// An element: its encoding and its back-length.
size_t ListpackElement(size_t encoded) {
  size_t backlen = encoded <= 127        ? 1
                   : encoded < 16383     ? 2
                   : encoded < 2097151   ? 3
                   : encoded < 268435455 ? 4
                                         : 5;
  return encoded + backlen;
}

size_t ListpackInt(int64_t v) { return ListpackElement(ListpackIntSize(v)); }

// A string is stored as an integer when it is one in canonical form (lpStringToInt64).
size_t ListpackString(std::string_view s) {
  int64_t v;
  if (ParseInt64(s, &v)) return ListpackInt(v);
  const size_t n = s.size();
  return ListpackElement(n < 64 ? 1 + n : n < 4096 ? 2 + n : 5 + n);
}

void PutString(std::string* out, std::string_view s) {
  PutVarint(out, s.size());
  out->append(s);
}

bool GetString(std::string_view* in, std::string_view* s) { return GetLengthPrefixed(in, s); }

}  // namespace

// --- StreamId ---

bool StreamId::Increment() {
  if (seq == UINT64_MAX) {
    if (ms == UINT64_MAX) return false;
    ++ms;
    seq = 0;
  } else {
    ++seq;
  }
  return true;
}

bool StreamId::Decrement() {
  if (seq == 0) {
    if (ms == 0) return false;
    --ms;
    seq = UINT64_MAX;
  } else {
    --seq;
  }
  return true;
}

void StreamId::AppendTo(std::string* out) const {
  char buf[24];
  out->append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, ms).ptr - buf));
  out->push_back('-');
  out->append(buf, static_cast<size_t>(std::to_chars(buf, buf + sizeof buf, seq).ptr - buf));
}

std::string StreamId::ToString() const {
  std::string s;
  AppendTo(&s);
  return s;
}

// --- consumer groups ---

StreamGroup& StreamGroup::operator=(const StreamGroup& other) {
  if (this == &other) return *this;
  last_id = other.last_id;
  entries_read = other.entries_read;
  consumers = other.consumers;
  pel = other.pel;
  for (auto& [id, nack] : pel) nack.consumer = &consumers.find(nack.consumer->name)->second;
  return *this;
}

StreamConsumer* StreamGroup::FindConsumer(std::string_view name) {
  auto it = consumers.find(name);
  return it == consumers.end() ? nullptr : &it->second;
}

StreamConsumer* StreamGroup::CreateConsumer(std::string_view name, int64_t now_ms, bool* created) {
  auto [it, inserted] = consumers.try_emplace(std::string(name));
  if (inserted) {
    it->second.name = it->first;
    it->second.seen_time = now_ms;
  }
  if (created != nullptr) *created = inserted;
  return &it->second;
}

size_t StreamGroup::DeleteConsumer(std::string_view name) {
  auto it = consumers.find(name);
  if (it == consumers.end()) return 0;
  const size_t pending = it->second.pending.size();
  for (StreamId id : it->second.pending) pel.erase(id);
  consumers.erase(it);
  return pending;
}

bool StreamGroup::Ack(StreamId id) {
  auto it = pel.find(id);
  if (it == pel.end()) return false;
  it->second.consumer->pending.erase(id);
  pel.erase(it);
  return true;
}

// --- entries ---

// Walks a block's entries in order. Fields are decoded only when asked for.
class StreamValue::Cursor {
 public:
  // False when the master fields are malformed.
  bool Open(StreamId first, const Block& b) {
    first_ = first;
    std::string_view in(b.data);
    uint64_t n;
    if (!GetVarint(&in, &n) || n > in.size()) return false;
    master_.resize(n);
    for (auto& f : master_) {
      if (!GetString(&in, &f)) return false;
    }
    if (b.data.size() - in.size() != b.entries_at) return false;
    data_ = b.data;
    pos_ = b.entries_at;
    return true;
  }
  bool Done() const { return pos_ >= data_.size(); }
  size_t pos() const { return pos_; }
  void Seek(size_t pos) { pos_ = pos; }

  // Reads the entry at pos(): its ID and flags, and (fields non-null) its fields and values;
  // moves past it. False when malformed.
  bool Next(StreamId* id, uint8_t* flags, std::vector<std::string_view>* fields) {
    std::string_view in = data_.substr(pos_);
    if (in.empty()) return false;
    *flags = static_cast<uint8_t>(in[0]);
    in.remove_prefix(1);
    uint64_t ms_delta, seq_part;
    if (!GetVarint(&in, &ms_delta) || !GetVarint(&in, &seq_part)) return false;
    id->ms = first_.ms + ms_delta;
    id->seq = ms_delta == 0 ? first_.seq + seq_part : seq_part;
    if (fields != nullptr) fields->clear();
    std::string_view s;
    if (*flags & kSameFields) {
      for (std::string_view name : master_) {
        if (!GetString(&in, &s)) return false;
        if (fields != nullptr) {
          fields->push_back(name);
          fields->push_back(s);
        }
      }
    } else {
      uint64_t n;
      if (!GetVarint(&in, &n) || n == 0 || n > in.size()) return false;
      for (uint64_t i = 0; i < 2 * n; ++i) {
        if (!GetString(&in, &s)) return false;
        if (fields != nullptr) fields->push_back(s);
      }
    }
    pos_ = data_.size() - in.size();
    return true;
  }

  const std::vector<std::string_view>& master() const { return master_; }

 private:
  StreamId first_;
  std::string_view data_;
  size_t pos_ = 0;
  std::vector<std::string_view> master_;
};

size_t StreamValue::ListpackBytes(const Block& b) {
  return 7 + ListpackInt(b.live) + ListpackInt(b.deleted) + b.lp_other;
}

void StreamValue::Append(StreamId id, std::span<const std::string_view> fields_values,
                         const StreamNodeLimits& limits) {
  assert(id > last_id_);
  assert(!fields_values.empty() && fields_values.size() % 2 == 0);
  const size_t numfields = fields_values.size() / 2;
  size_t totelelen = 0;
  for (std::string_view s : fields_values) totelelen += s.size();

  Block* b = blocks_.empty() ? nullptr : &blocks_.rbegin()->second;
  StreamId first = blocks_.empty() ? id : blocks_.rbegin()->first;
  if (b != nullptr) {
    size_t max_bytes = limits.max_bytes;
    if (max_bytes == 0 || max_bytes > kListpackMaxSize) max_bytes = kListpackMaxSize;
    if (ListpackBytes(*b) + totelelen >= max_bytes) {
      b = nullptr;
    } else if (limits.max_entries != 0 && b->live + b->deleted >= limits.max_entries) {
      b = nullptr;
    }
    if (b == nullptr) {
      blocks_.rbegin()->second.data.shrink_to_fit();  // full: no more appends
      first = id;
    }
  }
  uint8_t flags = 0;
  if (b == nullptr) {
    b = &blocks_[id];
    PutVarint(&b->data, numfields);
    b->lp_other = static_cast<uint32_t>(ListpackInt(static_cast<int64_t>(numfields)) +
                                        ListpackInt(0));  // the count and the terminator
    for (size_t i = 0; i < numfields; ++i) {
      PutString(&b->data, fields_values[2 * i]);
      b->lp_other += static_cast<uint32_t>(ListpackString(fields_values[2 * i]));
    }
    b->entries_at = static_cast<uint32_t>(b->data.size());
    flags = kSameFields;
  } else {
    // The same fields as the master entry, in the same order?
    std::string_view in(b->data);
    uint64_t n = 0;
    GetVarint(&in, &n);
    if (n == numfields) {
      size_t i = 0;
      std::string_view name;
      for (; i < numfields; ++i) {
        GetString(&in, &name);
        if (name != fields_values[2 * i]) break;
      }
      if (i == numfields) flags = kSameFields;
    }
  }
  const uint64_t ms_delta = id.ms - first.ms;
  b->data.push_back(static_cast<char>(flags));
  PutVarint(&b->data, ms_delta);
  PutVarint(&b->data, ms_delta == 0 ? id.seq - first.seq : id.seq);
  size_t lp = ListpackInt(flags) + ListpackInt(static_cast<int64_t>(ms_delta)) +
              ListpackInt(static_cast<int64_t>(id.seq - first.seq));
  size_t lp_count = numfields + 3;
  if (flags & kSameFields) {
    for (size_t i = 0; i < numfields; ++i) {
      PutString(&b->data, fields_values[2 * i + 1]);
      lp += ListpackString(fields_values[2 * i + 1]);
    }
  } else {
    PutVarint(&b->data, numfields);
    lp += ListpackInt(static_cast<int64_t>(numfields));
    for (std::string_view s : fields_values) {
      PutString(&b->data, s);
      lp += ListpackString(s);
    }
    lp_count += numfields + 1;
  }
  lp += ListpackInt(static_cast<int64_t>(lp_count));
  b->lp_other += static_cast<uint32_t>(lp);
  ++b->live;
  b->last = id;
  ++length_;
  ++entries_added_;
  last_id_ = id;
  if (length_ == 1) first_id_ = id;
}

void StreamValue::MarkDeleted(Blocks::iterator* it, size_t offset) {
  Block& b = (*it)->second;
  b.data[offset] = static_cast<char>(b.data[offset] | kDeleted);
  --b.live;
  ++b.deleted;
  --length_;
  if (b.live == 0) *it = blocks_.erase(*it);
}

bool StreamValue::Delete(StreamId id) {
  auto it = blocks_.upper_bound(id);
  if (it == blocks_.begin()) return false;
  --it;
  if (id > it->second.last) return false;
  Cursor c;
  if (!c.Open(it->first, it->second)) return false;
  StreamId at;
  uint8_t flags;
  while (!c.Done()) {
    const size_t offset = c.pos();
    if (!c.Next(&at, &flags, nullptr)) return false;
    if (at > id) return false;
    if (at == id) {
      if (flags & kDeleted) return false;
      MarkDeleted(&it, offset);
      if (id > max_deleted_) max_deleted_ = id;
      if (id == first_id_ || length_ == 0) RefreshFirstId();
      return true;
    }
  }
  return false;
}

bool StreamValue::Contains(StreamId id) const {
  bool found = false;
  Range(id, id, false, [&](StreamId, StreamFields) {
    found = true;
    return false;
  });
  return found;
}

StreamId StreamValue::LastLiveId() const {
  StreamId last;
  Range({}, StreamId::Max(), true, [&](StreamId id, StreamFields) {
    last = id;
    return false;
  });
  return last;
}

void StreamValue::RefreshFirstId() {
  first_id_ = {};
  if (length_ == 0) return;
  for (const auto& [first, b] : blocks_) {
    if (b.live == 0) continue;
    Cursor c;
    c.Open(first, b);
    StreamId id;
    uint8_t flags;
    while (!c.Done() && c.Next(&id, &flags, nullptr)) {
      if (!(flags & kDeleted)) {
        first_id_ = id;
        return;
      }
    }
  }
}

int64_t StreamValue::TrimEntries(const Trim& trim) {
  int64_t removed = 0;
  auto it = blocks_.begin();
  while (it != blocks_.end()) {
    if (trim.by == TrimBy::kMaxLen && length_ <= trim.maxlen) break;
    Block& b = it->second;
    const int64_t entries = b.live;
    if (trim.limit != 0 && removed + entries > trim.limit) break;
    const bool remove_block =
        trim.by == TrimBy::kMaxLen ? length_ - entries >= trim.maxlen : b.last < trim.minid;
    if (remove_block) {
      length_ -= static_cast<size_t>(entries);
      removed += entries;
      it = blocks_.erase(it);
      continue;
    }
    if (trim.approx) break;
    // Mark entries of this block deleted, up to the limit.
    Cursor c;
    if (!c.Open(it->first, b)) break;
    StreamId id;
    uint8_t flags;
    while (!c.Done()) {
      const size_t offset = c.pos();
      if (!c.Next(&id, &flags, nullptr)) break;
      const bool stop = trim.by == TrimBy::kMaxLen ? length_ <= trim.maxlen : id >= trim.minid;
      if (stop) break;
      if (!(flags & kDeleted)) {
        b.data[offset] = static_cast<char>(flags | kDeleted);
        --b.live;
        ++b.deleted;
        --length_;
        ++removed;
      }
    }
    break;  // as Redis: a block trimmed inside is the last one looked at (it may be left empty)
  }
  RefreshFirstId();
  return removed;
}

void StreamValue::Range(StreamId start, StreamId end, bool reverse, StreamVisit visit) const {
  if (start > end || blocks_.empty()) return;
  std::vector<std::string_view> fields;
  StreamId id;
  uint8_t flags;
  Cursor c;
  if (!reverse) {
    auto it = blocks_.upper_bound(start);
    if (it != blocks_.begin()) --it;
    for (; it != blocks_.end() && it->first <= end; ++it) {
      if (it->second.last < start || it->second.live == 0) continue;
      if (!c.Open(it->first, it->second)) return;
      while (!c.Done()) {
        if (!c.Next(&id, &flags, &fields)) return;
        if (id > end) return;
        if ((flags & kDeleted) || id < start) continue;
        if (!visit(id, fields)) return;
      }
    }
    return;
  }
  auto it = blocks_.upper_bound(end);
  std::vector<size_t> offsets;
  while (it != blocks_.begin()) {
    --it;
    if (it->second.last < start) return;
    if (it->second.live == 0) continue;
    if (!c.Open(it->first, it->second)) return;
    offsets.clear();
    while (!c.Done()) {
      const size_t offset = c.pos();
      if (!c.Next(&id, &flags, nullptr)) return;
      if (id > end) break;
      if (!(flags & kDeleted) && id >= start) offsets.push_back(offset);
    }
    for (size_t i = offsets.size(); i-- > 0;) {
      c.Seek(offsets[i]);
      if (!c.Next(&id, &flags, &fields)) return;
      if (!visit(id, fields)) return;
    }
  }
}

bool StreamValue::RangeHasTombstones(const StreamId* start) const {
  if (length_ == 0 || max_deleted_.IsZero()) return false;
  if (first_id_ > max_deleted_) return false;  // the latest tombstone is before the first entry
  const StreamId from = start != nullptr ? *start : StreamId{};
  return from <= max_deleted_;
}

int64_t StreamValue::EstimateDistance(StreamId id) const {
  if (entries_added_ == 0) return 0;
  const auto added = static_cast<int64_t>(entries_added_);
  if (length_ == 0 && id <= last_id_) return added;
  if (id == last_id_) return added;
  if (id > last_id_) return StreamGroup::kInvalidEntriesRead;
  if (max_deleted_.IsZero() || max_deleted_ < first_id_) {
    // No fragmentation ahead.
    if (id < first_id_) return added - static_cast<int64_t>(length_);
    if (id == first_id_) return added - static_cast<int64_t>(length_) + 1;
  }
  return StreamGroup::kInvalidEntriesRead;
}

namespace {

// Nodes of the compressed radix tree (Redis's rax) holding keys[lo, hi), all of 16 bytes and
// sorted, below the node that has consumed depth bytes. A run of single-child nodes is one
// compressed node; a branching node, and each key's end, are nodes of their own.
size_t RaxNodes(const std::vector<std::string>& keys, size_t lo, size_t hi, size_t depth,
                bool parent_branches) {
  if (depth == 16) return 1;
  // Children by the byte at depth.
  size_t children = 0;
  for (size_t i = lo; i < hi;) {
    size_t j = i + 1;
    while (j < hi && keys[j][depth] == keys[i][depth]) ++j;
    ++children;
    i = j;
  }
  if (children == 1) {
    const size_t here = (depth == 0 || parent_branches) ? 1 : 0;
    return here + RaxNodes(keys, lo, hi, depth + 1, false);
  }
  size_t total = 1;
  for (size_t i = lo; i < hi;) {
    size_t j = i + 1;
    while (j < hi && keys[j][depth] == keys[i][depth]) ++j;
    total += RaxNodes(keys, i, j, depth + 1, true);
    i = j;
  }
  return total;
}

}  // namespace

size_t StreamValue::RadixTreeNodes() const {
  if (blocks_.empty()) return 1;  // the empty root
  std::vector<std::string> keys;
  keys.reserve(blocks_.size());
  for (const auto& [first, b] : blocks_) {
    std::string k(16, '\0');
    for (int i = 0; i < 8; ++i) {
      k[static_cast<size_t>(i)] = static_cast<char>(first.ms >> (56 - 8 * i));
      k[static_cast<size_t>(8 + i)] = static_cast<char>(first.seq >> (56 - 8 * i));
    }
    keys.push_back(std::move(k));
  }
  return RaxNodes(keys, 0, keys.size(), 0, false);
}

size_t StreamValue::MemoryUsage() const {
  constexpr size_t kMapNode = 48;  // a std::map node's links and color, rounded to its class
  size_t total = 0;
  for (const auto& [first, b] : blocks_) {
    total += kMapNode + sizeof(StreamId) + sizeof(Block);
    if (b.data.capacity() > 15) total += b.data.capacity() + 1;
  }
  for (const auto& [name, g] : groups_) {
    total += kMapNode + sizeof(std::string) + sizeof(StreamGroup) + name.size();
    total += g.pel.size() * (kMapNode + sizeof(StreamId) + sizeof(StreamNack));
    for (const auto& [cname, consumer] : g.consumers) {
      total += kMapNode + sizeof(std::string) + sizeof(StreamConsumer) + 2 * cname.size();
      total += consumer.pending.size() * (kMapNode + sizeof(StreamId));
    }
  }
  return total;
}

void StreamValue::VisitBlocks(BlockVisit visit) const {
  std::vector<BlockEntry> entries;
  for (const auto& [first, b] : blocks_) {
    Cursor cursor;
    if (!cursor.Open(first, b)) continue;  // blocks are checked when built or decoded
    entries.clear();
    while (!cursor.Done()) {
      BlockEntry& e = entries.emplace_back();
      if (!cursor.Next(&e.id, &e.flags, &e.fields_values)) {
        entries.pop_back();
        break;
      }
    }
    visit(first, b.live, b.deleted, cursor.master(), entries);
  }
}

void StreamValue::EncodeBlocks(std::string* out) const {
  PutVarint(out, blocks_.size());
  for (const auto& [first, b] : blocks_) {
    PutVarint(out, first.ms);
    PutVarint(out, first.seq);
    PutVarint(out, b.last.ms);
    PutVarint(out, b.last.seq);
    PutVarint(out, b.lp_other);
    PutVarint(out, b.entries_at);
    PutString(out, b.data);
  }
}

bool StreamValue::DecodeBlocks(std::string_view* in, StreamId last_id, StreamId max_deleted,
                               uint64_t entries_added) {
  blocks_.clear();
  length_ = 0;
  uint64_t n;
  if (!GetVarint(in, &n) || n > in->size()) return false;
  StreamId previous;
  bool any = false;
  std::vector<std::string_view> fields;
  for (uint64_t i = 0; i < n; ++i) {
    StreamId first, last;
    uint64_t lp_other, entries_at;
    std::string_view data;
    if (!GetVarint(in, &first.ms) || !GetVarint(in, &first.seq) || !GetVarint(in, &last.ms) ||
        !GetVarint(in, &last.seq) || !GetVarint(in, &lp_other) || !GetVarint(in, &entries_at) ||
        !GetString(in, &data) || lp_other > UINT32_MAX || entries_at > data.size()) {
      return false;
    }
    if (any && first <= previous) return false;
    Block& b = blocks_[first];
    b.last = last;
    b.lp_other = static_cast<uint32_t>(lp_other);
    b.entries_at = static_cast<uint32_t>(entries_at);
    b.data.assign(data);
    Cursor c;
    if (!c.Open(first, b)) return false;
    StreamId id;
    uint8_t flags;
    bool first_entry = true;
    while (!c.Done()) {
      if (!c.Next(&id, &flags, &fields)) return false;
      if (first_entry ? id != first : id <= previous) return false;
      if ((flags & kSameFields) && c.master().empty()) return false;
      first_entry = false;
      previous = id;
      if (flags & kDeleted) {
        ++b.deleted;
      } else {
        ++b.live;
      }
    }
    if (first_entry || previous != last) return false;
    length_ += b.live;
    any = true;
  }
  if (any && previous > last_id) return false;
  last_id_ = last_id;
  max_deleted_ = max_deleted;
  entries_added_ = entries_added;
  RefreshFirstId();
  return true;
}

}  // namespace ordis::server
