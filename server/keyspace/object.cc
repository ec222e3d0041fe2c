#include "server/keyspace/object.h"

#include <cassert>
#include <cstdlib>
#include <cstring>
#include <new>

#include "base/number.h"

namespace ordis::server {
namespace {

// The encoding rule picks for value; *as_int is set when it is kInt.
ObjEncoding ChooseEncoding(std::string_view value, StringRule rule, int64_t* as_int) {
  switch (rule) {
    case StringRule::kTryInt:
      if (value.size() <= Object::kMaxIntChars && ParseInt64(value, as_int)) {
        return ObjEncoding::kInt;
      }
      [[fallthrough]];
    case StringRule::kBytes:
      return value.size() <= Object::kMaxEmbStr ? ObjEncoding::kEmbStr : ObjEncoding::kRaw;
    case StringRule::kRaw:
      break;
  }
  return ObjEncoding::kRaw;
}

// Bytes of payload an encoding needs for a value of value_size bytes.
size_t PayloadBytes(ObjEncoding encoding, size_t value_size) {
  return encoding == ObjEncoding::kEmbStr ? value_size : 8;
}

void* AllocateOrDie(size_t bytes) {
  void* p = std::malloc(bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

RawString* NewRawString(std::string_view bytes, size_t capacity) {
  auto* raw = static_cast<RawString*>(AllocateOrDie(sizeof(RawString) + capacity));
  raw->size = bytes.size();
  raw->capacity = capacity;
  if (!bytes.empty()) std::memcpy(raw->data, bytes.data(), bytes.size());
  return raw;
}

// Room for a raw string that must hold `needed` bytes, with slack as Redis's sdsMakeRoomFor
// leaves it, so that repeated APPENDs cost amortized O(1): double up to 1 MiB, then 1 MiB more.
size_t GreedyCapacity(size_t needed) {
  constexpr size_t kMaxPrealloc = 1 << 20;
  return needed < kMaxPrealloc ? needed * 2 : needed + kMaxPrealloc;
}

// Writes v's decimal form at out (room for 20 characters); returns its length.
size_t RenderInt(int64_t v, char* out) {
  char reversed[Object::kMaxIntChars];
  uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  size_t n = 0;
  do {
    reversed[n++] = static_cast<char>('0' + magnitude % 10);
    magnitude /= 10;
  } while (magnitude != 0);
  size_t len = 0;
  if (v < 0) out[len++] = '-';
  while (n > 0) out[len++] = reversed[--n];
  return len;
}

}  // namespace

void ObjectDeleter::operator()(Object* obj) const { FreeObject(obj); }

Object::Object(ObjType type, ObjEncoding encoding, bool ttl, size_t block_size)
    : type_encoding_(
          static_cast<uint8_t>(static_cast<uint8_t>(type) | (static_cast<uint8_t>(encoding) << 4))),
      flags_(static_cast<uint8_t>((ttl ? kHasTtl : 0) | ((block_size / 16) << 4))) {
  assert(block_size % 16 == 0 && block_size / 16 <= 15);
}

Object* Object::Allocate(ObjType type, ObjEncoding encoding, int64_t expire_at_ms,
                         size_t payload_bytes) {
  const bool ttl = expire_at_ms != kNoExpire;
  const size_t size = BlockSizeFor(ttl, payload_bytes);
  Object* obj = new (AllocateOrDie(size)) Object(type, encoding, ttl, size);
  if (ttl) std::memcpy(obj->tail_, &expire_at_ms, sizeof expire_at_ms);
  return obj;
}

int64_t Object::int_value() const {
  int64_t v;
  std::memcpy(&v, payload(), sizeof v);
  return v;
}

RawString* Object::raw() const {
  RawString* r;
  std::memcpy(&r, payload(), sizeof r);
  return r;
}

offload::TierLocation Object::cold_location() const {
  assert(cold());
  uint64_t packed;
  std::memcpy(&packed, payload(), sizeof packed);
  // Low to high: size, offset, segment.
  constexpr int kOffsetShift = kColdSizeBits, kSegmentShift = kColdSizeBits + kColdOffsetBits;
  return {static_cast<uint32_t>(packed >> kSegmentShift),
          static_cast<uint32_t>(packed & ((uint64_t{1} << kColdSizeBits) - 1)),
          (packed >> kOffsetShift) & ((uint64_t{1} << kColdOffsetBits) - 1)};
}

void Object::MoveCold(const offload::TierLocation& at) {
  assert(FitsCold(at));
  const uint64_t packed = (uint64_t{at.segment} << (kColdSizeBits + kColdOffsetBits)) |
                          (at.offset << kColdSizeBits) | at.size;
  std::memcpy(payload(), &packed, sizeof packed);
}

void Object::MakeCold(const offload::TierLocation& at) {
  assert((encoding() == ObjEncoding::kRaw || encoding() == ObjEncoding::kCollection) && !cold());
  ReleasePayload();
  MoveCold(at);
  flags_ |= kCold;
}

void Object::MakeResident(std::string_view value) {
  assert(cold() && encoding() == ObjEncoding::kRaw);
  flags_ &= static_cast<uint8_t>(~kCold);
  RawString* r = NewRawString(value, value.size());
  std::memcpy(payload(), &r, sizeof r);
}

void Object::MakeResident(Object* from) {
  assert(cold() && encoding() == ObjEncoding::kCollection && from->type() == type() &&
         from->encoding() == ObjEncoding::kCollection && !from->cold());
  flags_ &= static_cast<uint8_t>(~kCold);
  std::memcpy(payload(), from->payload(), sizeof(Collection*));
  Collection* none = nullptr;  // what ReleasePayload deletes: nothing
  std::memcpy(from->payload(), &none, sizeof none);
}

Collection* Object::CollectionPtr() const {
  Collection* c;
  std::memcpy(&c, payload(), sizeof c);
  return c;
}

void Object::StoreValue(std::string_view value, ObjEncoding encoding, int64_t as_int) {
  set_encoding(encoding);
  embstr_size_ = 0;
  switch (encoding) {
    case ObjEncoding::kInt:
      std::memcpy(payload(), &as_int, sizeof as_int);
      break;
    case ObjEncoding::kEmbStr:
      assert(value.size() <= payload_capacity());
      if (!value.empty()) std::memcpy(payload(), value.data(), value.size());
      embstr_size_ = static_cast<uint8_t>(value.size());
      break;
    case ObjEncoding::kRaw: {
      RawString* r = NewRawString(value, value.size());
      std::memcpy(payload(), &r, sizeof r);
      break;
    }
    case ObjEncoding::kCollection:
      assert(false);
      break;
  }
}

void Object::ReleasePayload() {
  if (cold()) {
    flags_ &= static_cast<uint8_t>(~kCold);  // nothing held: the record is the tier's
  } else if (encoding() == ObjEncoding::kRaw) {
    std::free(raw());
  } else if (encoding() == ObjEncoding::kCollection) {
    delete CollectionPtr();
  }
}

size_t Object::raw_buffer_bytes() const {
  if (cold()) return 0;
  return encoding() == ObjEncoding::kRaw ? sizeof(RawString) + raw()->capacity : 0;
}

std::string_view Object::StringBytes(IntText* scratch) const {
  assert(!cold());
  switch (encoding()) {
    case ObjEncoding::kInt:
      return {scratch->digits, RenderInt(int_value(), scratch->digits)};
    case ObjEncoding::kEmbStr:
      return {payload(), embstr_size_};
    case ObjEncoding::kRaw: {
      const RawString* r = raw();
      return {r->data, r->size};
    }
    case ObjEncoding::kCollection:
      break;
  }
  assert(false);
  return {};
}

size_t Object::StringSize() const {
  assert(!cold());
  IntText scratch;
  return StringBytes(&scratch).size();
}

bool Object::StringAsInt(int64_t* value) const {
  if (encoding() == ObjEncoding::kInt) {
    *value = int_value();
    return true;
  }
  IntText unused;
  return ParseInt64(StringBytes(&unused), value);
}

RawString* Object::MakeRaw(size_t capacity) {
  assert(!cold());
  if (encoding() == ObjEncoding::kRaw) {
    RawString* r = raw();
    if (r->capacity >= capacity) return r;
    const size_t grown = GreedyCapacity(capacity);
    r = static_cast<RawString*>(std::realloc(r, sizeof(RawString) + grown));
    if (r == nullptr) throw std::bad_alloc();
    r->capacity = grown;
    std::memcpy(payload(), &r, sizeof r);
    return r;
  }
  // int or embstr: nothing to release; the payload area (8 bytes at least) takes the pointer.
  IntText scratch;
  const std::string_view bytes = StringBytes(&scratch);
  RawString* r =
      NewRawString(bytes, capacity > bytes.size() ? GreedyCapacity(capacity) : bytes.size());
  set_encoding(ObjEncoding::kRaw);
  embstr_size_ = 0;
  std::memcpy(payload(), &r, sizeof r);
  return r;
}

void Object::AppendString(std::string_view tail) {
  const size_t size = StringSize();
  RawString* r = MakeRaw(size + tail.size());
  if (!tail.empty()) std::memcpy(r->data + r->size, tail.data(), tail.size());
  r->size += tail.size();
}

void Object::WriteString(size_t offset, std::string_view bytes) {
  const size_t needed = offset + bytes.size();
  const size_t size = StringSize();
  RawString* r = MakeRaw(needed > size ? needed : size);
  if (r->size < needed) {
    std::memset(r->data + r->size, 0, needed - r->size);
    r->size = needed;
  }
  if (!bytes.empty()) std::memcpy(r->data + offset, bytes.data(), bytes.size());
}

void Object::SetInt(int64_t value) {
  ReleasePayload();
  StoreValue({}, ObjEncoding::kInt, value);
}

bool Object::TryAssignString(std::string_view value, StringRule rule) {
  int64_t as_int = 0;
  const ObjEncoding encoding = ChooseEncoding(value, rule, &as_int);
  if (BlockSizeFor(has_ttl(), PayloadBytes(encoding, value.size())) != block_size()) return false;
  ReleasePayload();
  StoreValue(value, encoding, as_int);
  return true;
}

bool Object::EmptyCollection() const {
  if (type() == ObjType::kString) return false;
  return std::visit(
      [](const auto& v) {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, StreamBox>) {
          return false;  // a stream lives on empty
        } else {
          return v.empty();
        }
      },
      collection());
}

ObjectPtr NewString(std::string_view value, int64_t expire_at_ms, StringRule rule) {
  int64_t as_int = 0;
  const ObjEncoding encoding = ChooseEncoding(value, rule, &as_int);
  Object* obj = Object::Allocate(ObjType::kString, encoding, expire_at_ms,
                                 PayloadBytes(encoding, value.size()));
  obj->StoreValue(value, encoding, as_int);
  return ObjectPtr(obj);
}

ObjectPtr NewInt(int64_t value, int64_t expire_at_ms) {
  Object* obj = Object::Allocate(ObjType::kString, ObjEncoding::kInt, expire_at_ms, 8);
  obj->StoreValue({}, ObjEncoding::kInt, value);
  return ObjectPtr(obj);
}

ObjectPtr NewObject(ObjType t, int64_t expire_at_ms) {
  if (t == ObjType::kString) return NewString("", expire_at_ms);
  Collection* c = nullptr;
  switch (t) {
    case ObjType::kList:
      c = new Collection(std::in_place_type<ListValue>);
      break;
    case ObjType::kSet:
      c = new Collection(std::in_place_type<SetValue>);
      break;
    case ObjType::kZSet:
      c = new Collection(std::in_place_type<ZSetValue>);
      break;
    case ObjType::kHash:
      c = new Collection(std::in_place_type<HashValue>);
      break;
    case ObjType::kStream:
      c = new Collection(std::in_place_type<StreamBox>);
      break;
    case ObjType::kString:
      break;
  }
  Object* obj = Object::Allocate(t, ObjEncoding::kCollection, expire_at_ms, sizeof c);
  std::memcpy(obj->payload(), &c, sizeof c);
  return ObjectPtr(obj);
}

ObjectPtr CloneObject(const Object& obj) {
  assert(!obj.cold());
  if (obj.type() != ObjType::kString) {
    ObjectPtr copy = NewObject(obj.type(), obj.expire_at_ms());
    *copy->CollectionPtr() = obj.collection();
    return copy;
  }
  IntText scratch;
  const std::string_view bytes = obj.StringBytes(&scratch);
  Object* copy = Object::Allocate(ObjType::kString, obj.encoding(), obj.expire_at_ms(),
                                  PayloadBytes(obj.encoding(), bytes.size()));
  copy->StoreValue(bytes, obj.encoding(),
                   obj.encoding() == ObjEncoding::kInt ? obj.int_value() : 0);
  return ObjectPtr(copy);
}

Object* SetObjectExpire(Object* obj, int64_t expire_at_ms) {
  const bool ttl = expire_at_ms != kNoExpire;
  if (ttl == obj->has_ttl()) {
    if (ttl) std::memcpy(obj->tail_, &expire_at_ms, sizeof expire_at_ms);
    return obj;
  }
  const size_t payload_bytes =
      obj->encoding() == ObjEncoding::kEmbStr ? obj->embstr_size_ : size_t{8};
  Object* moved = Object::Allocate(obj->type(), obj->encoding(), expire_at_ms, payload_bytes);
  // The payload's bytes move: an int or embstr is copied, a raw buffer's or collection's pointer
  // changes owner.
  std::memcpy(moved->payload(), obj->payload(), payload_bytes < 8 ? 8 : payload_bytes);
  moved->embstr_size_ = obj->embstr_size_;
  moved->flags_ |= obj->flags_ & Object::kCold;
  moved->lfu.store(obj->lfu.load(std::memory_order_relaxed), std::memory_order_relaxed);
  moved->access_s.store(obj->access_s.load(std::memory_order_relaxed), std::memory_order_relaxed);
  obj->~Object();
  std::free(obj);
  return moved;
}

void FreeObject(Object* obj) {
  if (obj == nullptr) return;
  obj->ReleasePayload();
  obj->~Object();
  std::free(obj);
}

std::string_view TypeName(ObjType t) {
  switch (t) {
    case ObjType::kString:
      return "string";
    case ObjType::kList:
      return "list";
    case ObjType::kSet:
      return "set";
    case ObjType::kZSet:
      return "zset";
    case ObjType::kHash:
      return "hash";
    case ObjType::kStream:
      return "stream";
  }
  return "none";
}

}  // namespace ordis::server
