#include "server/durability/object_codec.h"

#include <cstring>
#include <type_traits>

#include "base/coding.h"

namespace ordis::server {
namespace {

// Reads from a payload, failing (and staying failed) on any overrun.
class PayloadReader {
 public:
  explicit PayloadReader(std::string_view in) : in_(in) {}
  bool ok() const { return ok_; }
  bool done() const { return in_.empty(); }
  // What is left to read.
  std::string_view Rest() const { return in_; }

  uint64_t Varint() {
    uint64_t v = 0;
    if (ok_ && !GetVarint(&in_, &v)) ok_ = false;
    return ok_ ? v : 0;
  }
  std::string_view String() {
    std::string_view s;
    if (ok_ && !GetLengthPrefixed(&in_, &s)) ok_ = false;
    return ok_ ? s : std::string_view();
  }
  double Double() {
    double d = 0;
    if (in_.size() < sizeof d) {
      ok_ = false;
      return 0;
    }
    std::memcpy(&d, in_.data(), sizeof d);
    in_.remove_prefix(sizeof d);
    return d;
  }
  // A count of elements, each at least min_bytes long: bounded by the bytes left, so a corrupt
  // count cannot make the caller reserve memory it will never fill.
  uint64_t Count(size_t min_bytes) {
    const uint64_t n = Varint();
    if (ok_ && n > in_.size() / min_bytes) ok_ = false;
    return ok_ ? n : 0;
  }

 private:
  std::string_view in_;
  bool ok_ = true;
};

void PutId(std::string* out, StreamId id) {
  PutVarint(out, id.ms);
  PutVarint(out, id.seq);
}

StreamId GetId(PayloadReader* in) {
  StreamId id;
  id.ms = in->Varint();
  id.seq = in->Varint();
  return id;
}

void EncodeStream(const StreamValue& v, std::string* out) {
  PutId(out, v.last_id());
  PutId(out, v.max_deleted_id());
  PutVarint(out, v.entries_added());
  v.EncodeBlocks(out);
  PutVarint(out, v.groups().size());
  for (const auto& [name, g] : v.groups()) {
    PutLengthPrefixed(out, name);
    PutId(out, g.last_id);
    PutVarint(out, static_cast<uint64_t>(g.entries_read + 1));  // -1 (unknown) is 0
    PutVarint(out, g.consumers.size());
    for (const auto& [cname, c] : g.consumers) {
      PutLengthPrefixed(out, cname);
      PutVarint(out, static_cast<uint64_t>(c.seen_time));
      PutVarint(out, c.pending.size());
      for (StreamId id : c.pending) {
        const StreamNack& nack = g.pel.at(id);
        PutId(out, id);
        PutVarint(out, static_cast<uint64_t>(nack.delivery_time));
        PutVarint(out, nack.delivery_count);
      }
    }
  }
}

bool DecodeStream(std::string_view payload, StreamValue* v) {
  PayloadReader head(payload);
  const StreamId last_id = GetId(&head);
  const StreamId max_deleted = GetId(&head);
  const uint64_t entries_added = head.Varint();
  if (!head.ok()) return false;
  // The blocks decode from the rest; the reader picks up after them.
  std::string_view rest = head.Rest();
  if (!v->DecodeBlocks(&rest, last_id, max_deleted, entries_added)) return false;
  PayloadReader in(rest);
  for (uint64_t n = in.Count(1); n > 0 && in.ok(); --n) {
    std::string_view name = in.String();
    if (!in.ok()) return false;
    auto [git, inserted] = v->groups().try_emplace(std::string(name));
    if (!inserted) return false;
    StreamGroup& g = git->second;
    g.last_id = GetId(&in);
    g.entries_read = static_cast<int64_t>(in.Varint()) - 1;
    for (uint64_t c = in.Count(1); c > 0 && in.ok(); --c) {
      std::string_view cname = in.String();
      bool created = false;
      StreamConsumer* consumer = g.CreateConsumer(cname, 0, &created);
      if (!created) return false;
      consumer->seen_time = static_cast<int64_t>(in.Varint());
      for (uint64_t p = in.Count(3); p > 0 && in.ok(); --p) {
        const StreamId id = GetId(&in);
        StreamNack nack{consumer, static_cast<int64_t>(in.Varint()), in.Varint()};
        if (!g.pel.emplace(id, nack).second) return false;
        consumer->pending.insert(id);
      }
    }
  }
  return in.ok() && in.done();
}

}  // namespace

void EncodeObject(const Object& obj, std::string* out) {
  if (obj.type() == ObjType::kString) {
    IntText scratch;
    out->append(obj.StringBytes(&scratch));
    return;
  }
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, StreamBox>) {
          EncodeStream(*v, out);
        } else if constexpr (std::is_same_v<T, ZSetValue>) {
          PutVarint(out, v.size());
          if (v.empty()) return;
          v.VisitFrom(0, false, [&](std::string_view member, double score) {
            PutLengthPrefixed(out, member);
            out->append(reinterpret_cast<const char*>(&score), sizeof score);
            return true;
          });
        } else if constexpr (std::is_same_v<T, HashValue>) {
          PutVarint(out, v.size());
          for (const auto& [field, value] : v) {
            PutLengthPrefixed(out, field);
            PutLengthPrefixed(out, value);
          }
        } else {  // ListValue, SetValue
          PutVarint(out, v.size());
          for (const auto& element : v) PutLengthPrefixed(out, element);
        }
      },
      obj.collection());
}

ObjectPtr DecodeObject(uint8_t type, std::string_view payload, const ZSetLimits& limits,
                       int64_t expire_at_ms) {
  if (type > static_cast<uint8_t>(ObjType::kHash) &&
      type != static_cast<uint8_t>(ObjType::kStream)) {
    return nullptr;
  }
  if (static_cast<ObjType>(type) == ObjType::kString) return NewString(payload, expire_at_ms);
  ObjectPtr obj = NewObject(static_cast<ObjType>(type), expire_at_ms);
  PayloadReader in(payload);
  switch (obj->type()) {
    case ObjType::kList: {
      ListValue& list = obj->list();
      for (uint64_t n = in.Count(1); n > 0 && in.ok(); --n) list.emplace_back(in.String());
      break;
    }
    case ObjType::kSet: {
      SetValue& set = obj->set();
      const uint64_t n = in.Count(1);
      set.reserve(n);
      for (uint64_t i = 0; i < n && in.ok(); ++i) {
        if (!set.insert(in.String())) return nullptr;  // a repeated member
      }
      break;
    }
    case ObjType::kHash: {
      HashValue& hash = obj->hash();
      const uint64_t n = in.Count(2);
      hash.reserve(n);
      for (uint64_t i = 0; i < n && in.ok(); ++i) {
        std::string_view field = in.String();
        std::string_view value = in.String();
        if (!hash.try_emplace(std::string(field), value).second) return nullptr;
      }
      break;
    }
    case ObjType::kZSet: {
      ZSetValue& zset = obj->zset();
      for (uint64_t n = in.Count(1 + sizeof(double)); n > 0 && in.ok(); --n) {
        std::string_view member = in.String();
        const double score = in.Double();
        if (!in.ok() || score != score) return nullptr;  // NaN is never a score
        if (!zset.Insert(member, score, limits)) return nullptr;
      }
      break;
    }
    case ObjType::kStream:
      if (!DecodeStream(payload, &obj->stream())) return nullptr;
      return obj;
    case ObjType::kString:
      break;
  }
  if (!in.ok() || !in.done() || obj->EmptyCollection()) return nullptr;
  return obj;
}

}  // namespace ordis::server
