// What a key holds. The index maps encoded keys to handles that are Object pointers.
//
// An Object is one allocation whose size follows what it holds, so that the common case, a short
// string or an integer without a TTL, is one 16-byte block (jemalloc's size classes are 8, 16,
// 32, 48, 64, 80, ...; a block's size is rounded up to a multiple of 16, which is its class):
//
//   bytes 0-7   header: type and encoding (4 bits each), flags (TTL present, block size), lfu,
//               embstr length, access_s
//   bytes 8-15  expire_at_ms, only when the key has a TTL
//   then        the payload, by encoding (OBJECT ENCODING names the string ones as Redis does):
//                 kInt         int64_t                                    "int"
//                 kEmbStr      the bytes, up to 44, inline                "embstr"
//                 kRaw         RawString*, a malloc'd length-prefixed buffer   "raw"
//                              or, cold (demoted to the tier), its record's place   "raw" too
//                 kCollection  Collection*                    named from the value (keys_family)
//                              or, cold, its record's place
//
//   "abc", no TTL: 16 bytes. 12345 with a TTL: 32. A 32-byte value with a TTL: 48. A 44-byte
//   value: 64. Longer: 16 (24 with a TTL, so 32) plus the buffer. A list: 16 plus the list.
//
// The payload area is never smaller than 8 bytes, so a string moves between int, embstr and raw
// in place (APPEND, SETRANGE, INCR); only adding or removing a TTL changes the block's size, which
// reallocates the object: Keyspace::SetExpire returns its new address and re-points the index.
//
// Cold values (issue 14): a raw string's value or a collection may be demoted to the cold tier;
// the object stays where it is (the index and the TTL entry keep pointing at it) and its payload
// points to where the value lies instead. Only the keyspace demotes and promotes, under its
// exclusive lock, and it never hands a cold object to a command: accessors require a resident
// value.
//
// Thread safety: lfu and access_s are atomics that readers update under the keyspace's shared lock
// (relaxed: statistics, they order nothing); everything else changes only under the exclusive
// lock.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <variant>

#include "absl/container/flat_hash_map.h"
#include "offload/tier_files.h"
#include "server/types/set_value.h"
#include "server/types/stream_value.h"
#include "server/types/zset_value.h"

namespace ordis::server {

// on disk (snapshots): never renumber. Redis's OBJ_* numbers (5 is Redis's OBJ_MODULE, which ordis
// does not have).
enum class ObjType : uint8_t {
  kString = 0,
  kList = 1,
  kSet = 2,
  kZSet = 3,
  kHash = 4,
  kStream = 6,
};

// How a value is held (not on disk). Strings have Redis's three; the collection types one, whose
// OBJECT ENCODING name is computed from the value as it is now.
enum class ObjEncoding : uint8_t { kInt = 0, kEmbStr = 1, kRaw = 2, kCollection = 3 };

// How a new string value picks its encoding, after Redis's ways of making one.
enum class StringRule : uint8_t {
  // tryObjectEncoding (SET, MSET, GETSET, APPEND to a missing key, a value loaded from disk):
  // "int" for a canonical int64 of at most 20 characters, else "embstr" up to 44 bytes, else "raw".
  kTryInt,
  // createStringObject (INCRBYFLOAT's result): "embstr" up to 44 bytes, else "raw"; never "int".
  kBytes,
  // createObject (SETRANGE on a missing key): "raw".
  kRaw,
};

inline constexpr int64_t kNoExpire = -1;
// Redis's LFU_INIT_VAL: a new key's LFU counter (server/keyspace/eviction.h).
inline constexpr uint8_t kLfuInit = 5;

using ListValue = std::deque<std::string>;
// SetValue (server/types/set_value.h): members in a vector, found through a hash index of
// positions.
using HashValue = absl::flat_hash_map<std::string, std::string>;
// ZSetValue (server/types/zset_value.h): a small packed array or a hash index plus a counted
// B+tree.
// StreamValue (server/types/stream_value.h): entry blocks and consumer groups, boxed: it is 160
// bytes, and unboxed it made the variant, which every collection allocates, 168 bytes (jemalloc's
// 192 class) instead of 96; a 5-member sorted set cost 63 bytes a member instead of 43.
class StreamBox {
 public:
  StreamBox() : value_(std::make_unique<StreamValue>()) {}
  StreamBox(const StreamBox& other) : value_(std::make_unique<StreamValue>(*other.value_)) {}
  StreamBox& operator=(const StreamBox& other) {
    *value_ = *other.value_;
    return *this;
  }
  // A moved-from box holds nothing: it may only be destroyed or assigned to.
  StreamBox(StreamBox&&) noexcept = default;
  StreamBox& operator=(StreamBox&&) noexcept = default;

  StreamValue& operator*() { return *value_; }
  const StreamValue& operator*() const { return *value_; }
  const StreamValue* operator->() const { return value_.get(); }

 private:
  std::unique_ptr<StreamValue> value_;
};
using Collection = std::variant<ListValue, SetValue, HashValue, ZSetValue, StreamBox>;

// A raw string's out-of-line buffer: one malloc'd block, its length before the bytes.
struct RawString {
  uint64_t size;
  uint64_t capacity;
  char data[];  // capacity bytes
};

// Where an int value's decimal form is rendered: Object::StringBytes writes into it.
struct IntText {
  char digits[24];  // "-9223372036854775808" is 20
};

class Object;
// Frees objects made by the functions below (NewString ... CloneObject).
struct ObjectDeleter {
  void operator()(Object* obj) const;
};
using ObjectPtr = std::unique_ptr<Object, ObjectDeleter>;

class Object {
 public:
  static constexpr size_t kMaxEmbStr = 44;  // Redis's OBJ_ENCODING_EMBSTR_SIZE_LIMIT
  static constexpr size_t kMaxIntChars = 20;

  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;

  ObjType type() const { return static_cast<ObjType>(type_encoding_ & 0x0f); }
  ObjEncoding encoding() const { return static_cast<ObjEncoding>(type_encoding_ >> 4); }
  bool has_ttl() const { return (flags_ & kHasTtl) != 0; }
  // Absolute unix time in ms, kNoExpire when the key has no TTL.
  int64_t expire_at_ms() const {
    if (!has_ttl()) return kNoExpire;
    int64_t at;
    __builtin_memcpy(&at, tail_, sizeof at);
    return at;
  }
  // The size of this object's own block (payload buffers and collections not included).
  size_t block_size() const { return static_cast<size_t>(flags_ >> 4) * 16; }
  // The size of a raw string's buffer, 0 for other encodings and a cold string.
  size_t raw_buffer_bytes() const;

  // --- cold values (keyspace only) ---

  // A cold value's payload is where its record lies, packed in its 8 bytes: segment (14 bits),
  // offset (26) and record size (24). The object stays 16 bytes: a cold key costs no more than
  // an int (tier-max-size is at most 16384 segments of at most 64 MB; larger records stay
  // resident).
  static constexpr int kColdSegmentBits = 14;
  static constexpr int kColdOffsetBits = 26;
  static constexpr int kColdSizeBits = 24;
  static_assert(kColdSegmentBits + kColdOffsetBits + kColdSizeBits == 64);
  static bool FitsCold(const offload::TierLocation& at) {
    return at.segment >> kColdSegmentBits == 0 && at.offset >> kColdOffsetBits == 0 &&
           at.size >> kColdSizeBits == 0;
  }
  bool cold() const { return (flags_ & kCold) != 0; }
  // The tier refused this collection's encoding (too short or too long) and it has not been
  // written since: demotion does not encode it again to find out (Keyspace::FindForWrite clears
  // it; a new object starts without it).
  bool demotion_refused() const { return (flags_ & kDemotionRefused) != 0; }
  void set_demotion_refused(bool refused) {
    flags_ = static_cast<uint8_t>(refused ? flags_ | kDemotionRefused : flags_ & ~kDemotionRefused);
  }
  // Precondition: cold().
  offload::TierLocation cold_location() const;
  // A resident raw string or collection becomes cold, its value at `at` in the tier (FitsCold):
  // the buffer or collection is freed. Type and encoding stay.
  void MakeCold(const offload::TierLocation& at);
  // A cold string becomes resident again with its value (read back from the tier), raw.
  void MakeResident(std::string_view value);
  // A cold collection becomes resident again with the collection of `from` (decoded from the
  // tier's record: same type), which is left holding none (only to be freed).
  void MakeResident(Object* from);
  // Compaction moved a cold value's record (to a place that FitsCold).
  void MoveCold(const offload::TierLocation& at);

  // --- strings (type() == kString) ---

  // The value's bytes. An int is rendered into *scratch and the view points there; otherwise it
  // points into the object. Valid until the object changes (and while *scratch lives).
  std::string_view StringBytes(IntText* scratch) const;
  size_t StringSize() const;
  // The int64 the value holds: kInt's own, or parsed (Redis's string2ll) from the bytes; false
  // when they are not one. INCR's reading.
  bool StringAsInt(int64_t* value) const;
  // APPEND: the value becomes raw (as Redis's dbUnshareStringValue makes it) and grows by tail.
  void AppendString(std::string_view tail);
  // SETRANGE: the value becomes raw, grows with zero bytes to offset + bytes.size() if shorter,
  // and bytes are written at offset.
  void WriteString(size_t offset, std::string_view bytes);
  // INCR and friends: the value becomes int.
  void SetInt(int64_t value);
  // Replaces the value in place, encoded by rule, if the new one needs a block of the same size;
  // false (nothing changed) when it does not.
  bool TryAssignString(std::string_view value, StringRule rule);

  // --- collections (type() != kString) ---

  Collection& collection() { return *CollectionPtr(); }
  const Collection& collection() const { return *CollectionPtr(); }
  ListValue& list() { return std::get<ListValue>(collection()); }
  SetValue& set() { return std::get<SetValue>(collection()); }
  HashValue& hash() { return std::get<HashValue>(collection()); }
  ZSetValue& zset() { return std::get<ZSetValue>(collection()); }
  const ZSetValue& zset() const { return std::get<ZSetValue>(collection()); }
  StreamValue& stream() { return *std::get<StreamBox>(collection()); }
  const StreamValue& stream() const { return *std::get<StreamBox>(collection()); }
  // True iff a collection has no elements left (Redis then deletes the key). Never for a stream,
  // which lives on empty (XDEL, XTRIM and consumer groups keep it), as in Redis.
  bool EmptyCollection() const;

 private:
  friend ObjectPtr NewString(std::string_view, int64_t, StringRule);
  friend ObjectPtr NewInt(int64_t, int64_t);
  friend ObjectPtr NewObject(ObjType, int64_t);
  friend ObjectPtr CloneObject(const Object&);
  friend Object* SetObjectExpire(Object*, int64_t);
  friend void FreeObject(Object*);

  static constexpr uint8_t kHasTtl = 0x01;  // flags_: bits 4-7 are the block size / 16
  static constexpr uint8_t kCold = 0x02;
  static constexpr uint8_t kDemotionRefused = 0x04;

  Object(ObjType type, ObjEncoding encoding, bool ttl, size_t block_size);
  ~Object() = default;

  // A fresh block for a payload of payload_bytes (at least 8 are reserved), header written.
  static Object* Allocate(ObjType type, ObjEncoding encoding, int64_t expire_at_ms,
                          size_t payload_bytes);
  static size_t BlockSizeFor(bool ttl, size_t payload_bytes) {
    const size_t bytes = 8 + (ttl ? 8 : 0) + (payload_bytes < 8 ? 8 : payload_bytes);
    return (bytes + 15) & ~size_t{15};
  }

  char* payload() { return tail_ + (has_ttl() ? 8 : 0); }
  const char* payload() const { return tail_ + (has_ttl() ? 8 : 0); }
  size_t payload_capacity() const { return block_size() - 8 - (has_ttl() ? 8 : 0); }
  int64_t int_value() const;
  RawString* raw() const;
  Collection* CollectionPtr() const;
  void set_encoding(ObjEncoding e) {
    type_encoding_ = static_cast<uint8_t>((type_encoding_ & 0x0f) | (static_cast<uint8_t>(e) << 4));
  }
  // Writes value into the payload as encoding (as_int for kInt), which must fit; whatever the old
  // payload owned is already released.
  void StoreValue(std::string_view value, ObjEncoding encoding, int64_t as_int);
  // Makes the value raw with room for at least capacity bytes (keeping its bytes).
  RawString* MakeRaw(size_t capacity);
  // Frees a raw buffer or collection the payload owns.
  void ReleasePayload();

  uint8_t type_encoding_;  // type in bits 0-3, encoding in bits 4-7

  uint8_t flags_;

 public:
  // Logarithmic access counter for OBJECT FREQ and LFU eviction (Redis's LFU counter).
  std::atomic<uint8_t> lfu{kLfuInit};

 private:
  uint8_t embstr_size_ = 0;  // kEmbStr: the value's length

 public:
  // Seconds on the server's LRU clock at the last access, for OBJECT IDLETIME and LRU eviction.
  std::atomic<uint32_t> access_s{0};

 private:
  // The first 8 bytes after the header: the expire time or the payload's start. The block goes
  // on past it by block_size() - 16 bytes.
  alignas(8) char tail_[8];
};

static_assert(sizeof(Object) == 16);

// A string value encoded by rule (see StringRule), with the TTL given (kNoExpire: none).
ObjectPtr NewString(std::string_view value, int64_t expire_at_ms = kNoExpire,
                    StringRule rule = StringRule::kTryInt);
// An int-encoded string (INCR of a missing key).
ObjectPtr NewInt(int64_t value, int64_t expire_at_ms = kNoExpire);
// A new object of type t with an empty payload (an empty collection; for kString, "").
ObjectPtr NewObject(ObjType t, int64_t expire_at_ms = kNoExpire);
// A deep copy (COPY): payload, encoding and TTL; fresh access statistics.
ObjectPtr CloneObject(const Object& obj);
// Keyspace only (it re-points the index). Sets obj's expire time (kNoExpire: none) and returns the
// object to use from then on: obj itself when the TTL only changes, else (a TTL added or removed)
// a new block of the right size holding obj's value and statistics, obj's block freed.
Object* SetObjectExpire(Object* obj, int64_t expire_at_ms);
// Frees obj, its raw buffer or collection included.
void FreeObject(Object* obj);
// A string value's bytes as a std::string (allocates: for tests and cold paths).
inline std::string StringValue(const Object& obj) {
  IntText scratch;
  return std::string(obj.StringBytes(&scratch));
}
// "string", "list", "set", "zset", "hash", "stream" (TYPE, SCAN TYPE).
std::string_view TypeName(ObjType t);

}  // namespace ordis::server
