// Bitmap commands: SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD BITFIELD_RO.
//
// A bitmap is a string value: bit 0 is the most significant bit of the first byte, and the string
// reads as zero past its end. An int-encoded string is read as its decimal text, and a write makes
// the value raw, as Redis does. Offsets, ranges, errors, events and their order are Redis 7.0's
// (checked against redis-server 7.0.15), including its quirks: BITCOUNT and BITPOS answer a
// missing key before looking at their range arguments, BITFIELD's overflow checks are Redis's
// arithmetic (a SET value far out of range saturates oddly), and a write that leaves the string
// as it was raises no event and marks no WATCH.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/number.h"
#include "server/command/arg_parser.h"
#include "server/command/errors.h"
#include "server/command/services.h"
#include "server/commands/families.h"
#include "server/commands/lookup.h"
#include "server/commands/string_access.h"

namespace ordis::server {
namespace {

using keyspace_events::kGeneric;
using keyspace_events::kString;

constexpr std::string_view kBadBitOffset = "ERR bit offset is not an integer or out of range";
constexpr std::string_view kBadBitValue = "ERR bit is not an integer or out of range";
constexpr std::string_view kBadBitposBit = "ERR The bit argument must be 1 or 0.";
constexpr std::string_view kBitopNotArity =
    "ERR BITOP NOT must be called with a single source key.";
constexpr std::string_view kBadBitfieldType =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 "
    "is.";
constexpr std::string_view kBadOverflowType = "ERR Invalid OVERFLOW type specified";
constexpr std::string_view kBitfieldRoWrite = "ERR BITFIELD_RO only supports the GET subcommand";

// --- Word-wise kernels ---------------------------------------------------------------------------

// The 8 bytes at p as a number whose most significant byte is p[0]: bit order of the bitmap.
inline uint64_t LoadBigEndian64(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  if constexpr (std::endian::native == std::endian::little) w = __builtin_bswap64(w);
  return w;
}

inline uint64_t LoadWord(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

inline void StoreWord(unsigned char* p, uint64_t w) { std::memcpy(p, &w, sizeof w); }

[[gnu::always_inline]] inline uint64_t PopCountBody(const unsigned char* p, size_t n) {
  // Four sums: independent dependency chains keep the popcount unit busy.
  uint64_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    c0 += static_cast<uint64_t>(__builtin_popcountll(LoadWord(p + i)));
    c1 += static_cast<uint64_t>(__builtin_popcountll(LoadWord(p + i + 8)));
    c2 += static_cast<uint64_t>(__builtin_popcountll(LoadWord(p + i + 16)));
    c3 += static_cast<uint64_t>(__builtin_popcountll(LoadWord(p + i + 24)));
  }
  for (; i + 8 <= n; i += 8) c0 += static_cast<uint64_t>(__builtin_popcountll(LoadWord(p + i)));
  for (; i < n; ++i) c1 += static_cast<uint64_t>(__builtin_popcount(p[i]));
  return c0 + c1 + c2 + c3;
}

#if defined(__x86_64__)
// The build targets baseline x86-64, whose __builtin_popcountll is a library call; the POPCNT
// instruction is used where the CPU has it.
[[gnu::target("popcnt")]] uint64_t PopCountHw(const unsigned char* p, size_t n) {
  return PopCountBody(p, n);
}
uint64_t PopCountSw(const unsigned char* p, size_t n) { return PopCountBody(p, n); }
uint64_t PopCount(const unsigned char* p, size_t n) {
  static const bool has_popcnt = __builtin_cpu_supports("popcnt");
  return has_popcnt ? PopCountHw(p, n) : PopCountSw(p, n);
}
#else
uint64_t PopCount(const unsigned char* p, size_t n) { return PopCountBody(p, n); }
#endif

// Set bits among bits first..last (inclusive) of the string at p, which holds them.
uint64_t CountBits(const unsigned char* p, uint64_t first, uint64_t last) {
  const uint64_t first_byte = first >> 3, last_byte = last >> 3;
  uint64_t count = PopCount(p + first_byte, last_byte - first_byte + 1);
  // Take back the bits of the edge bytes outside the range.
  const unsigned before = (0xff00u >> (first & 7)) & 0xff;  // bits left of `first`
  const unsigned after = (1u << (7 - (last & 7))) - 1;      // bits right of `last`
  count -= static_cast<uint64_t>(__builtin_popcount(p[first_byte] & before));
  count -= static_cast<uint64_t>(__builtin_popcount(p[last_byte] & after));
  return count;
}

// The first i (from i on, in steps of 64) whose 64 bytes before `end` are not all `flip`: where
// a search for bits that differ from flip's resumes byte by byte or word by word.
size_t SkipFlipped(const unsigned char* p, size_t i, size_t end, unsigned char flip) {
#if defined(__SSE2__)
  const __m128i skip = _mm_set1_epi8(static_cast<char>(flip));
  for (; i + 64 <= end; i += 64) {
    const __m128i a = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)), skip);
    const __m128i b =
        _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 16)), skip);
    const __m128i c =
        _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 32)), skip);
    const __m128i d =
        _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 48)), skip);
    const __m128i any = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(any, _mm_setzero_si128())) != 0xffff) break;
  }
#else
  const uint64_t skip = flip ? ~uint64_t{0} : 0;
  for (; i + 64 <= end; i += 64) {
    uint64_t any = 0;
    for (size_t w = 0; w < 64; w += 8) any |= LoadWord(p + i + w) ^ skip;
    if (any != 0) break;
  }
#endif
  return i;
}

// The position of the first bit equal to `bit` among bits first..last (inclusive, within the
// string at p), or -1.
int64_t FindBit(const unsigned char* p, uint64_t first, uint64_t last, bool bit) {
  const unsigned char flip = bit ? 0 : 0xff;  // searching for 0 is searching for 1 in ~p
  const uint64_t first_byte = first >> 3, last_byte = last >> 3;
  auto edge_byte = [&](uint64_t i) -> unsigned {
    unsigned v = static_cast<unsigned char>(p[i] ^ flip);
    if (i == first_byte) v &= 0xffu >> (first & 7);
    if (i == last_byte) v &= (0xff00u >> ((last & 7) + 1)) & 0xff;
    return v;
  };
  auto found = [](uint64_t byte, unsigned v) {
    return static_cast<int64_t>(byte * 8) + (std::countl_zero(static_cast<uint8_t>(v)));
  };
  uint64_t i = first_byte;
  if (unsigned v = edge_byte(i)) return found(i, v);
  if (i == last_byte) return -1;
  ++i;
  // Whole words short of the last byte (which may be masked): 64 bytes at a time while nothing
  // is found, then the word that has it.
  i = SkipFlipped(p, i, last_byte, flip);
  const uint64_t flip_word = bit ? 0 : ~uint64_t{0};
  for (; i + 8 <= last_byte; i += 8) {
    const uint64_t w = LoadBigEndian64(p + i) ^ flip_word;
    if (w != 0) return static_cast<int64_t>(i * 8) + std::countl_zero(w);
  }
  for (; i <= last_byte; ++i) {
    if (unsigned v = edge_byte(i)) return found(i, v);
  }
  return -1;
}

enum class BitOp { kAnd, kOr, kXor, kNot };

// dst[0..n) op= src[0..n), a word at a time (the compiler widens the loop further).
void CombineInto(unsigned char* dst, const unsigned char* src, size_t n, BitOp op) {
  size_t i = 0;
  switch (op) {
    case BitOp::kAnd:
      for (; i + 8 <= n; i += 8) StoreWord(dst + i, LoadWord(dst + i) & LoadWord(src + i));
      for (; i < n; ++i) dst[i] &= src[i];
      break;
    case BitOp::kOr:
      for (; i + 8 <= n; i += 8) StoreWord(dst + i, LoadWord(dst + i) | LoadWord(src + i));
      for (; i < n; ++i) dst[i] |= src[i];
      break;
    case BitOp::kXor:
      for (; i + 8 <= n; i += 8) StoreWord(dst + i, LoadWord(dst + i) ^ LoadWord(src + i));
      for (; i < n; ++i) dst[i] ^= src[i];
      break;
    case BitOp::kNot:
      break;
  }
}

// The result of op over sources, as long as the longest, shorter ones read as zero-padded.
std::string ComputeBitOp(BitOp op, const std::vector<std::string_view>& sources, size_t maxlen) {
  std::string result(sources[0]);
  result.resize(maxlen);  // zeros past the first source
  auto* out = reinterpret_cast<unsigned char*>(result.data());
  if (op == BitOp::kNot) {
    size_t i = 0;
    for (; i + 8 <= maxlen; i += 8) StoreWord(out + i, ~LoadWord(out + i));
    for (; i < maxlen; ++i) out[i] = static_cast<unsigned char>(~out[i]);
    return result;
  }
  // In blocks, so that the block of the result stays in cache while every source meets it.
  constexpr size_t kBlock = 4096;
  for (size_t begin = 0; begin < maxlen; begin += kBlock) {
    const size_t end = begin + kBlock < maxlen ? begin + kBlock : maxlen;
    for (size_t s = 1; s < sources.size(); ++s) {
      const std::string_view src = sources[s];
      const size_t have = std::clamp(src.size(), begin, end);  // the block's bytes src has
      CombineInto(out + begin, reinterpret_cast<const unsigned char*>(src.data()) + begin,
                  have - begin, op);
      // Past a source's end its bytes are zero: AND clears the rest; OR and XOR keep it.
      if (op == BitOp::kAnd && have < end) std::memset(out + have, 0, end - have);
    }
  }
  return result;
}

// --- Arguments -----------------------------------------------------------------------------------

// Redis compares keywords and reads type names as C strings: up to a NUL byte.
std::string_view CString(std::string_view arg) { return arg.substr(0, arg.find('\0')); }

// The value of the keyword arg names in table (case-insensitive); false if none.
template <typename T, size_t N>
bool MatchKeyword(std::string_view arg, const std::pair<std::string_view, T> (&table)[N], T* out) {
  const std::string_view word = CString(arg);
  for (const auto& [name, value] : table) {
    if (EqualsIgnoreCase(word, name)) {
      *out = value;
      return true;
    }
  }
  return false;
}

// A bit offset: an integer from 0 while offset / 8 < proto-max-bulk-len (2^32 bits by default).
// For BITFIELD (`bits` > 0), "#n" is the n-th field of that width: offset n * bits.
bool ParseBitOffset(CommandContext& ctx, std::string_view arg, int bits, uint64_t* offset) {
  const bool field_index = bits > 0 && !arg.empty() && arg[0] == '#';
  int64_t v;
  if (!ParseInt64(field_index ? arg.substr(1) : arg, &v)) {
    ctx.out.Error(kBadBitOffset);
    return false;
  }
  // Redis multiplies in long long, which wraps in practice.
  if (field_index) v = static_cast<int64_t>(static_cast<uint64_t>(v) * static_cast<uint64_t>(bits));
  if (v < 0 || (v >> 3) >= ctx.config().proto_max_bulk_len()) {
    ctx.out.Error(kBadBitOffset);
    return false;
  }
  *offset = static_cast<uint64_t>(v);
  return true;
}

enum class RangeUnit { kByte, kBit };

// BYTE or BIT (the last argument of BITCOUNT's and BITPOS's range); replies a syntax error.
bool ParseRangeUnit(CommandContext& ctx, std::string_view arg, RangeUnit* unit) {
  static constexpr std::pair<std::string_view, RangeUnit> kUnits[] = {{"bit", RangeUnit::kBit},
                                                                      {"byte", RangeUnit::kByte}};
  if (MatchKeyword(arg, kUnits, unit)) return true;
  ctx.out.Error(errors::kSyntax);
  return false;
}

bool ParseIntOrReply(CommandContext& ctx, std::string_view arg, int64_t* v) {
  if (ParseInt64(arg, v)) return true;
  ctx.out.Error(errors::kNotInteger);
  return false;
}

// Start and end (inclusive) in units of total, negatives counting from the end, clamped to the
// string as Redis's BITCOUNT and BITPOS clamp them; start > end when the range is empty.
void NormalizeRange(int64_t total, int64_t* start, int64_t* end) {
  if (*start < 0) *start += total;
  if (*end < 0) *end += total;
  if (*start < 0) *start = 0;
  if (*end < 0) *end = 0;
  if (*end >= total) *end = total - 1;
}

// The string at key for a bit read, or nullptr (missing, or WRONGTYPE replied: *failed).
Object* LookupBitmapRead(CommandContext& ctx, std::string_view key, bool* failed) {
  *failed = false;
  Object* obj = LookupRead(ctx, key);
  if (obj != nullptr && obj->type() != ObjType::kString) {
    ctx.out.Error(errors::kWrongType);
    *failed = true;
    return nullptr;
  }
  return obj;
}

// A new raw string of `size` zero bytes at key (SETBIT and BITFIELD on a missing key). Redis
// sizes it exactly; past 1 MiB it is grown in place instead of copied from a temporary, so a
// large offset allocates its bitmap once.
Object* CreateZeroBitmap(CommandContext& ctx, std::string_view key, size_t size) {
  constexpr size_t kExactLimit = 1 << 20;
  ObjectPtr fresh = NewString(size <= kExactLimit ? std::string(size, '\0') : std::string(),
                              kNoExpire, StringRule::kRaw);
  if (size > kExactLimit) fresh->WriteString(size, {});
  fresh->access_s.store(LruClockS(ctx.now_ms), std::memory_order_relaxed);
  return ctx.keyspace().Set(ctx.db(), key, std::move(fresh));
}

// The string at key made raw and at least `size` bytes long (zeros appended), created if missing,
// for a bit write; nullptr after replying WRONGTYPE. *grew: created or lengthened.
Object* BitmapForWrite(CommandContext& ctx, std::string_view key, size_t size, bool* grew) {
  bool failed;
  Object* obj = FindStringForWrite(ctx, key, &failed);
  if (failed) return nullptr;
  if (obj == nullptr) {
    *grew = true;
    return CreateZeroBitmap(ctx, key, size);
  }
  const size_t before = obj->StringSize();
  obj->WriteString(size > before ? size : before, {});  // raw, as Redis unshares it
  *grew = size > before;
  return obj;
}

// --- SETBIT GETBIT -------------------------------------------------------------------------------

// SETBIT key offset value
void CmdSetBit(CommandContext& ctx) {
  uint64_t offset;
  if (!ParseBitOffset(ctx, ctx.args[2], 0, &offset)) return;
  int64_t value;
  if (!ParseInt64(ctx.args[3], &value) || (value & ~int64_t{1}) != 0) {
    ctx.out.Error(kBadBitValue);
    return;
  }
  const std::string_view key = ctx.args[1];
  const uint64_t byte = offset >> 3;
  const unsigned mask = 0x80u >> (offset & 7);
  bool grew;
  Object* obj = BitmapForWrite(ctx, key, byte + 1, &grew);
  if (obj == nullptr) return;
  IntText scratch;
  const auto old_byte = static_cast<unsigned char>(obj->StringBytes(&scratch)[byte]);
  const bool old_bit = (old_byte & mask) != 0;
  if (grew || old_bit != (value == 1)) {
    const auto new_byte = static_cast<char>(value ? (old_byte | mask) : (old_byte & ~mask));
    obj->WriteString(byte, std::string_view(&new_byte, 1));
    ctx.keyspace().SignalModified(ctx.db(), key);
    ctx.Notify(kString, "setbit", key);
  }
  ctx.out.Integer(old_bit ? 1 : 0);
}

// GETBIT key offset
void CmdGetBit(CommandContext& ctx) {
  uint64_t offset;
  if (!ParseBitOffset(ctx, ctx.args[2], 0, &offset)) return;
  bool failed;
  const Object* obj = LookupBitmapRead(ctx, ctx.args[1], &failed);
  if (failed) return;
  int bit = 0;
  if (obj != nullptr) {
    IntText scratch;
    const std::string_view bytes = obj->StringBytes(&scratch);
    const uint64_t byte = offset >> 3;
    if (byte < bytes.size()) {
      bit = (static_cast<unsigned char>(bytes[byte]) & (0x80u >> (offset & 7))) != 0;
    }
  }
  ctx.out.Integer(bit);
}

// --- BITCOUNT BITPOS -----------------------------------------------------------------------------

// The string at key for BITCOUNT and BITPOS; false once the command has replied: WRONGTYPE, or
// missing_reply for a missing key (Redis 7.0 answers that before it reads the range).
bool ReadBitmapOrReply(CommandContext& ctx, int64_t missing_reply, IntText* scratch,
                       std::string_view* bytes) {
  bool failed;
  const Object* obj = LookupBitmapRead(ctx, ctx.args[1], &failed);
  if (failed) return false;
  if (obj == nullptr) {
    ctx.out.Integer(missing_reply);
    return false;
  }
  *bytes = obj->StringBytes(scratch);
  return true;
}

// The bits start..end (in units of `unit`, negatives from the end) cover in a string of len
// bytes, clamped as Redis's BITCOUNT and BITPOS clamp them; false when none.
bool RangeToBits(int64_t len, RangeUnit unit, int64_t start, int64_t end, uint64_t* first,
                 uint64_t* last) {
  NormalizeRange(unit == RangeUnit::kBit ? len * 8 : len, &start, &end);
  if (start > end) return false;
  *first = static_cast<uint64_t>(unit == RangeUnit::kBit ? start : start * 8);
  *last = static_cast<uint64_t>(unit == RangeUnit::kBit ? end : end * 8 + 7);
  return true;
}

// BITCOUNT key [start end [BYTE | BIT]]
void CmdBitCount(CommandContext& ctx) {
  IntText scratch;
  std::string_view bytes;
  if (!ReadBitmapOrReply(ctx, 0, &scratch, &bytes)) return;
  const auto len = static_cast<int64_t>(bytes.size());
  const size_t argc = ctx.args.size();
  int64_t start = 0, end = len - 1;
  RangeUnit unit = RangeUnit::kByte;
  if (argc == 4 || argc == 5) {
    if (!ParseIntOrReply(ctx, ctx.args[2], &start) || !ParseIntOrReply(ctx, ctx.args[3], &end)) {
      return;
    }
    // Both from the end and reversed: empty, before the unit is even read (Redis's order).
    if (start < 0 && end < 0 && start > end) {
      ctx.out.Integer(0);
      return;
    }
    if (argc == 5 && !ParseRangeUnit(ctx, ctx.args[4], &unit)) return;
  } else if (argc != 2) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  uint64_t first, last;
  if (!RangeToBits(len, unit, start, end, &first, &last)) {
    ctx.out.Integer(0);
    return;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  ctx.out.Integer(static_cast<int64_t>(CountBits(p, first, last)));
}

// BITPOS key bit [start [end [BYTE | BIT]]]
void CmdBitPos(CommandContext& ctx) {
  int64_t bit;
  if (!ParseIntOrReply(ctx, ctx.args[2], &bit)) return;
  if (bit != 0 && bit != 1) {
    ctx.out.Error(kBadBitposBit);
    return;
  }
  IntText scratch;
  std::string_view bytes;
  // A missing key is all zeros, without end.
  if (!ReadBitmapOrReply(ctx, bit ? -1 : 0, &scratch, &bytes)) return;
  const auto len = static_cast<int64_t>(bytes.size());
  const size_t argc = ctx.args.size();
  int64_t start = 0, end = len - 1;
  RangeUnit unit = RangeUnit::kByte;
  bool end_given = false;
  if (argc >= 4 && argc <= 6) {
    // Redis's order: start, then the unit, then end.
    if (!ParseIntOrReply(ctx, ctx.args[3], &start)) return;
    if (argc == 6 && !ParseRangeUnit(ctx, ctx.args[5], &unit)) return;
    if (argc >= 5) {
      if (!ParseIntOrReply(ctx, ctx.args[4], &end)) return;
      end_given = true;
    }
  } else if (argc != 3) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  uint64_t first, last;
  if (!RangeToBits(len, unit, start, end, &first, &last)) {
    ctx.out.Integer(-1);  // an empty range has neither bit
    return;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  int64_t pos = FindBit(p, first, last, bit == 1);
  // No clear bit in the string: without an end, the zeros past it count.
  if (pos < 0 && bit == 0 && !end_given) pos = static_cast<int64_t>(last + 1);
  ctx.out.Integer(pos);
}

// --- BITOP ---------------------------------------------------------------------------------------

// BITOP AND | OR | XOR | NOT destkey key [key ...]
void CmdBitOp(CommandContext& ctx) {
  static constexpr std::pair<std::string_view, BitOp> kOps[] = {
      {"and", BitOp::kAnd}, {"or", BitOp::kOr}, {"xor", BitOp::kXor}, {"not", BitOp::kNot}};
  BitOp op;
  if (!MatchKeyword(ctx.args[1], kOps, &op)) {
    ctx.out.Error(errors::kSyntax);
    return;
  }
  if (op == BitOp::kNot && ctx.args.size() != 4) {
    ctx.out.Error(kBitopNotArity);
    return;
  }
  const size_t count = ctx.args.size() - 3;
  std::vector<std::string_view> sources(count);
  std::vector<IntText> scratch(count);
  size_t maxlen = 0;
  for (size_t i = 0; i < count; ++i) {
    bool failed;
    const Object* obj = LookupBitmapRead(ctx, ctx.args[3 + i], &failed);
    if (failed) return;
    if (obj == nullptr) continue;  // an empty string
    sources[i] = obj->StringBytes(&scratch[i]);
    if (sources[i].size() > maxlen) maxlen = sources[i].size();
  }
  const std::string_view dest = ctx.args[2];
  if (maxlen == 0) {
    if (ctx.keyspace().Delete(ctx.db(), dest)) ctx.Notify(kGeneric, "del", dest);
    ctx.out.Integer(0);
    return;
  }
  // Computed before the destination is replaced: it may be one of the sources.
  const std::string result = ComputeBitOp(op, sources, maxlen);
  Object* existing = ctx.keyspace().FindForReplace(ctx.db(), dest, ctx.now_ms);
  StoreString(ctx, dest, result, kNoExpire, existing, StringRule::kRaw);
  ctx.Notify(kString, "set", dest);
  ctx.out.Integer(static_cast<int64_t>(maxlen));
}

// --- BITFIELD ------------------------------------------------------------------------------------

enum class Overflow { kWrap, kSat, kFail };
enum class FieldOp { kGet, kSet, kIncrBy };

struct FieldCommand {
  FieldOp op;
  Overflow overflow;  // the OVERFLOW in force where it appears
  bool is_signed;
  int bits;
  uint64_t offset;
  int64_t value;  // SET's value, INCRBY's increment
};

// i1..i64 or u1..u63 (u64's values would not fit the protocol's signed integers).
bool ParseFieldType(CommandContext& ctx, std::string_view arg, bool* is_signed, int* bits) {
  const std::string_view type = CString(arg);
  int64_t width;
  const bool ok = !type.empty() && (type[0] == 'i' || type[0] == 'u') &&
                  ParseInt64(type.substr(1), &width) && width >= 1 &&
                  width <= (type[0] == 'i' ? 64 : 63);
  if (!ok) {
    ctx.out.Error(kBadBitfieldType);
    return false;
  }
  *is_signed = type[0] == 'i';
  *bits = static_cast<int>(width);
  return true;
}

// Parses the sub-operations; false after replying the first error, in argument order.
bool ParseBitfield(CommandContext& ctx, std::vector<FieldCommand>* ops, bool* writes,
                   uint64_t* highest_bit) {
  Overflow overflow = Overflow::kWrap;
  *writes = false;
  *highest_bit = 0;
  const size_t argc = ctx.args.size();
  for (size_t i = 2; i < argc; ++i) {
    const size_t rest = argc - i - 1;
    const std::string_view word = CString(ctx.args[i]);
    FieldCommand fc{};
    if (EqualsIgnoreCase(word, "get") && rest >= 2) {
      fc.op = FieldOp::kGet;
    } else if (EqualsIgnoreCase(word, "set") && rest >= 3) {
      fc.op = FieldOp::kSet;
    } else if (EqualsIgnoreCase(word, "incrby") && rest >= 3) {
      fc.op = FieldOp::kIncrBy;
    } else if (EqualsIgnoreCase(word, "overflow") && rest >= 1) {
      static constexpr std::pair<std::string_view, Overflow> kModes[] = {
          {"wrap", Overflow::kWrap}, {"sat", Overflow::kSat}, {"fail", Overflow::kFail}};
      if (!MatchKeyword(ctx.args[++i], kModes, &overflow)) {
        ctx.out.Error(kBadOverflowType);
        return false;
      }
      continue;
    } else {
      ctx.out.Error(errors::kSyntax);
      return false;
    }
    fc.overflow = overflow;
    if (!ParseFieldType(ctx, ctx.args[i + 1], &fc.is_signed, &fc.bits)) return false;
    if (!ParseBitOffset(ctx, ctx.args[i + 2], fc.bits, &fc.offset)) return false;
    if (fc.op != FieldOp::kGet) {
      *writes = true;
      const uint64_t last_bit = fc.offset + static_cast<uint64_t>(fc.bits) - 1;
      if (last_bit > *highest_bit) *highest_bit = last_bit;
      if (!ParseIntOrReply(ctx, ctx.args[i + 3], &fc.value)) return false;
    }
    ops->push_back(fc);
    i += fc.op == FieldOp::kGet ? 2 : 3;
  }
  return true;
}

// The 9 bytes from `byte` on, zero past the string's end, as a 72-bit number whose bit 71 is the
// first byte's first bit: a field of up to 64 bits starting in that byte lies within it.
unsigned __int128 LoadWindow(std::string_view bytes, uint64_t byte) {
  unsigned __int128 w = 0;
  for (uint64_t i = 0; i < 9; ++i) {
    const unsigned char b =
        byte + i < bytes.size() ? static_cast<unsigned char>(bytes[byte + i]) : 0;
    w = (w << 8) | b;
  }
  return w;
}

// The field of `bits` bits from bit first_bit (0-7) of the window's first byte, unsigned.
uint64_t WindowField(unsigned __int128 window, unsigned first_bit, int bits) {
  const unsigned shift = 72 - first_bit - static_cast<unsigned>(bits);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  return static_cast<uint64_t>(window >> shift) & mask;
}

int64_t SignExtend(uint64_t v, int bits) {
  if (bits < 64 && (v & (uint64_t{1} << (bits - 1)))) v |= ~uint64_t{0} << bits;
  return static_cast<int64_t>(v);
}

// Writes the low `bits` bits of v as the field at bit offset `offset` of obj's string (long
// enough already).
void WriteField(Object* obj, uint64_t offset, int bits, uint64_t v) {
  IntText scratch;
  const uint64_t byte = offset >> 3;
  const auto first_bit = static_cast<unsigned>(offset & 7);
  unsigned __int128 window = LoadWindow(obj->StringBytes(&scratch), byte);
  const unsigned shift = 72 - first_bit - static_cast<unsigned>(bits);
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  window &= ~(static_cast<unsigned __int128>(mask) << shift);
  window |= static_cast<unsigned __int128>(v & mask) << shift;
  const size_t n = (first_bit + static_cast<unsigned>(bits) + 7) / 8;
  char out[9];
  for (size_t i = 0; i < 9; ++i) out[i] = static_cast<char>(window >> (8 * (8 - i)));
  obj->WriteString(byte, std::string_view(out, n));
}

// Redis's overflow rules for value + incr in an unsigned field of `bits` bits. Returns 0 when it
// fits, 1 above the maximum, -1 below zero; *result is what WRAP or SAT stores then.
int UnsignedOverflow(uint64_t value, int64_t incr, int bits, Overflow mode, uint64_t* result) {
  const uint64_t max = (uint64_t{1} << bits) - 1;  // bits <= 63
  const auto max_incr = static_cast<int64_t>(max - value);
  const auto min_incr = static_cast<int64_t>(0 - value);
  int direction = 0;
  if (value > max || (incr > 0 && incr > max_incr)) {
    direction = 1;
  } else if (incr < 0 && incr < min_incr) {
    direction = -1;
  } else {
    return 0;
  }
  if (mode == Overflow::kWrap) {
    *result = (value + static_cast<uint64_t>(incr)) & max;
  } else if (mode == Overflow::kSat) {
    *result = direction > 0 ? max : 0;
  }
  return direction;
}

// The same for a signed field. The comparisons are Redis's, so a SET value far outside the range
// saturates as Redis saturates it (the increment room wraps around for values near INT64_MIN).
int SignedOverflow(int64_t value, int64_t incr, int bits, Overflow mode, int64_t* result) {
  const int64_t max = bits == 64 ? INT64_MAX : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = -max - 1;
  const auto max_incr =
      static_cast<int64_t>(static_cast<uint64_t>(max) - static_cast<uint64_t>(value));
  const auto min_incr =
      static_cast<int64_t>(static_cast<uint64_t>(min) - static_cast<uint64_t>(value));
  int direction = 0;
  if (value > max || (bits != 64 && incr > max_incr) ||
      (value >= 0 && incr > 0 && incr > max_incr)) {
    direction = 1;
  } else if (value < min || (bits != 64 && incr < min_incr) ||
             (value < 0 && incr < 0 && incr < min_incr)) {
    direction = -1;
  } else {
    return 0;
  }
  if (mode == Overflow::kWrap) {
    uint64_t sum = static_cast<uint64_t>(value) + static_cast<uint64_t>(incr);
    if (bits < 64) sum = static_cast<uint64_t>(SignExtend(sum & ((uint64_t{1} << bits) - 1), bits));
    *result = static_cast<int64_t>(sum);
  } else if (mode == Overflow::kSat) {
    *result = direction > 0 ? max : min;
  }
  return direction;
}

enum class WriteOutcome { kRefused, kUnchanged, kChanged };

// One SET or INCRBY on obj: replies the old value (SET) or the new one (INCRBY) and stores the
// new one, or replies nil when FAIL refuses it.
WriteOutcome RunFieldWrite(CommandContext& ctx, Object* obj, const FieldCommand& fc) {
  IntText scratch;
  const unsigned __int128 window = LoadWindow(obj->StringBytes(&scratch), fc.offset >> 3);
  const uint64_t old_bits = WindowField(window, static_cast<unsigned>(fc.offset & 7), fc.bits);
  uint64_t new_bits;
  int64_t reply;
  int over;
  if (fc.is_signed) {
    const int64_t old_value = SignExtend(old_bits, fc.bits);
    int64_t limited = 0, new_value;
    if (fc.op == FieldOp::kIncrBy) {
      over = SignedOverflow(old_value, fc.value, fc.bits, fc.overflow, &limited);
      new_value = over ? limited
                       : static_cast<int64_t>(static_cast<uint64_t>(old_value) +
                                              static_cast<uint64_t>(fc.value));
      reply = new_value;
    } else {
      over = SignedOverflow(fc.value, 0, fc.bits, fc.overflow, &limited);
      new_value = over ? limited : fc.value;
      reply = old_value;
    }
    new_bits = static_cast<uint64_t>(new_value);
  } else {
    uint64_t limited = 0;
    if (fc.op == FieldOp::kIncrBy) {
      over = UnsignedOverflow(old_bits, fc.value, fc.bits, fc.overflow, &limited);
      new_bits = over ? limited : old_bits + static_cast<uint64_t>(fc.value);
      reply = static_cast<int64_t>(new_bits);
    } else {
      over = UnsignedOverflow(static_cast<uint64_t>(fc.value), 0, fc.bits, fc.overflow, &limited);
      new_bits = over ? limited : static_cast<uint64_t>(fc.value);
      reply = static_cast<int64_t>(old_bits);
    }
  }
  if (over != 0 && fc.overflow == Overflow::kFail) {
    ctx.out.NullBulk();
    return WriteOutcome::kRefused;
  }
  ctx.out.Integer(reply);
  const uint64_t mask = fc.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << fc.bits) - 1;
  if ((new_bits & mask) == old_bits) return WriteOutcome::kUnchanged;
  WriteField(obj, fc.offset, fc.bits, new_bits);
  return WriteOutcome::kChanged;
}

void ReplyFieldGet(CommandContext& ctx, std::string_view bytes, const FieldCommand& fc) {
  const uint64_t v =
      WindowField(LoadWindow(bytes, fc.offset >> 3), static_cast<unsigned>(fc.offset & 7), fc.bits);
  ctx.out.Integer(fc.is_signed ? SignExtend(v, fc.bits) : static_cast<int64_t>(v));
}

void Bitfield(CommandContext& ctx, bool read_only_command) {
  std::vector<FieldCommand> ops;
  bool writes;
  uint64_t highest_bit;
  if (!ParseBitfield(ctx, &ops, &writes, &highest_bit)) return;
  const std::string_view key = ctx.args[1];
  if (!writes) {
    bool failed;
    const Object* obj = LookupBitmapRead(ctx, key, &failed);
    if (failed) return;
    IntText scratch;
    const std::string_view bytes = obj != nullptr ? obj->StringBytes(&scratch) : std::string_view();
    ctx.out.ArrayHeader(static_cast<int64_t>(ops.size()));
    for (const FieldCommand& fc : ops) ReplyFieldGet(ctx, bytes, fc);
    return;
  }
  if (read_only_command) {
    ctx.out.Error(kBitfieldRoWrite);
    return;
  }
  bool grew;
  Object* obj = BitmapForWrite(ctx, key, (highest_bit >> 3) + 1, &grew);
  if (obj == nullptr) return;
  ctx.out.ArrayHeader(static_cast<int64_t>(ops.size()));
  bool modified = false;
  for (const FieldCommand& fc : ops) {
    if (fc.op == FieldOp::kGet) {
      IntText scratch;
      ReplyFieldGet(ctx, obj->StringBytes(&scratch), fc);
      continue;
    }
    // Redis counts every stored write as a change once the string grew, even one that stored
    // the value the field had.
    const WriteOutcome outcome = RunFieldWrite(ctx, obj, fc);
    modified = modified || outcome == WriteOutcome::kChanged ||
               (grew && outcome == WriteOutcome::kUnchanged);
  }
  if (modified) {
    ctx.keyspace().SignalModified(ctx.db(), key);
    ctx.Notify(kString, "setbit", key);
  } else if (grew) {
    // Every write refused (FAIL), yet the string grew: Redis raises nothing, but the log must
    // still replay the growth.
    ctx.keyspace().CountChange();
  }
}

// BITFIELD key [GET type offset | SET type offset value | INCRBY type offset increment |
//   OVERFLOW WRAP | SAT | FAIL] ...
void CmdBitfield(CommandContext& ctx) { Bitfield(ctx, false); }

// BITFIELD_RO key [GET type offset] ...
void CmdBitfieldRo(CommandContext& ctx) { Bitfield(ctx, true); }

}  // namespace

void RegisterBitmapFamily(CommandTable* table) {
  using namespace cmd;
  constexpr uint32_t kW = kWrite | kDenyOom;
  // clang-format off
  table->Register({
      {"setbit", 4, kW, 1, 1, 1, CmdSetBit, "bitmap", "Sets or clears the bit at offset in the string value stored at key"},
      {"getbit", 3, kReadonly | kFast, 1, 1, 1, CmdGetBit, "bitmap", "Returns the bit value at offset in the string value stored at key"},
      {"bitcount", -2, kReadonly, 1, 1, 1, CmdBitCount, "bitmap", "Count set bits in a string"},
      {"bitpos", -3, kReadonly, 1, 1, 1, CmdBitPos, "bitmap", "Find first bit set or clear in a string"},
      {"bitop", -4, kW, 2, -1, 1, CmdBitOp, "bitmap", "Perform bitwise operations between strings"},
      {"bitfield", -2, kW, 1, 1, 1, CmdBitfield, "bitmap", "Perform arbitrary bitfield integer operations on strings"},
      {"bitfield_ro", -2, kReadonly | kFast, 1, 1, 1, CmdBitfieldRo, "bitmap", "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD"},
  });
  // clang-format on
}

}  // namespace ordis::server
