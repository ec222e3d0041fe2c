#include "server/types/hyperloglog.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace ordis::server::hll {
namespace {

constexpr uint64_t kSeed = 0xadc83b19ULL;
constexpr int kIndexBits = 14;
constexpr int kRankBits = 64 - kIndexBits;  // 50: ranks go to 51
constexpr size_t kDenseBytes = kDenseSize - kHeaderSize;
constexpr size_t kCacheOffset = 8;
constexpr size_t kStaleByte = 15;
constexpr uint8_t kStaleBit = 0x80;
constexpr size_t kZeroMaxRun = 64;
constexpr size_t kValMaxRun = 4;
// 0.5 / ln 2: the estimator's constant for m -> infinity.
constexpr double kAlphaInf = 0.721347520444481703680;

using Histogram = std::array<uint32_t, 64>;

const uint8_t* Bytes(std::string_view s) { return reinterpret_cast<const uint8_t*>(s.data()); }
uint8_t* Bytes(std::string* s) { return reinterpret_cast<uint8_t*>(s->data()); }

// --- dense registers ---

uint8_t GetDense(const uint8_t* regs, size_t index) {
  const size_t byte = index * 6 / 8;
  const unsigned shift = index * 6 % 8;
  unsigned v = regs[byte] >> shift;
  // A register starting at bit 0 or 2 of its byte ends there (the last one does).
  if (shift > 2) v |= static_cast<unsigned>(regs[byte + 1]) << (8 - shift);
  return static_cast<uint8_t>(v & 63);
}

// Writes v into the register starting at bit `shift` of b[0] (and going on into b[1] when shift
// is past 2).
void SetInBytes(uint8_t* b, unsigned shift, uint8_t v) {
  b[0] = static_cast<uint8_t>((b[0] & ~(63u << shift)) | (unsigned{v} << shift));
  if (shift > 2) {
    b[1] = static_cast<uint8_t>((b[1] & ~(63u >> (8 - shift))) | (unsigned{v} >> (8 - shift)));
  }
}

void SetDense(uint8_t* regs, size_t index, uint8_t v) {
  SetInBytes(regs + index * 6 / 8, index * 6 % 8, v);
}

// Calls visit(first, v0, v1, v2, v3) for the registers first..first+3 held by each 3 bytes.
template <typename Visit>
void ForEachDenseQuad(const uint8_t* regs, Visit visit) {
  for (size_t i = 0, r = 0; i < kDenseBytes; i += 3, r += 4) {
    const uint32_t w = regs[i] | uint32_t{regs[i + 1]} << 8 | uint32_t{regs[i + 2]} << 16;
    visit(r, w & 63, (w >> 6) & 63, (w >> 12) & 63, w >> 18);
  }
}

// --- sparse opcodes ---

bool IsZero(uint8_t b) { return (b & 0xc0) == 0; }
bool IsXZero(uint8_t b) { return (b & 0xc0) == 0x40; }
bool IsVal(uint8_t b) { return (b & 0x80) != 0; }
uint8_t ValValue(uint8_t b) { return static_cast<uint8_t>(((b >> 2) & 0x1f) + 1); }
size_t ValRun(uint8_t b) { return (b & 3u) + 1; }
uint8_t ValOp(uint8_t value, size_t run) {
  return static_cast<uint8_t>(0x80 | (value - 1) << 2 | (run - 1));
}

// The registers a ZERO or VAL opcode byte covers; 0 for an XZERO's first byte.
constexpr std::array<uint8_t, 256> kOneByteRun = [] {
  std::array<uint8_t, 256> runs{};
  for (int b = 0; b < 256; ++b) {
    runs[b] = (b & 0xc0) == 0 ? b + 1 : (b & 0x80) ? (b & 3) + 1 : 0;
  }
  return runs;
}();

struct Op {
  size_t run;     // registers covered
  uint8_t value;  // 0 for ZERO and XZERO
  uint8_t size;   // bytes
};

// The opcode at offset at (< s.size()). An XZERO cut off by the end reads its second byte as 0,
// as Redis reads the terminator after its string.
Op ReadOp(std::string_view s, size_t at) {
  const uint8_t b = static_cast<uint8_t>(s[at]);
  if (IsZero(b)) return {size_t{b} + 1, 0, 1};
  if (IsVal(b)) return {ValRun(b), ValValue(b), 1};
  const size_t low = at + 1 < s.size() ? static_cast<uint8_t>(s[at + 1]) : 0;
  return {((size_t{b} & 0x3f) << 8 | low) + 1, 0, 2};
}

// Appends the opcode for run zero registers (1 <= run <= 16384): ZERO up to 64, else XZERO.
void AppendZeros(uint8_t* seq, size_t* n, size_t run) {
  if (run > kZeroMaxRun) {
    seq[(*n)++] = static_cast<uint8_t>(0x40 | (run - 1) >> 8);
    seq[(*n)++] = static_cast<uint8_t>((run - 1) & 0xff);
  } else {
    seq[(*n)++] = static_cast<uint8_t>(run - 1);
  }
}

// Calls visit(first, run, value) for each VAL opcode of a sparse value. False when the opcodes
// do not cover exactly kRegisters registers (visit is never called past them).
template <typename Visit>
bool ForEachSparseVal(std::string_view value, Visit visit) {
  size_t covered = 0;
  for (size_t at = kHeaderSize; at < value.size();) {
    const Op op = ReadOp(value, at);
    if (op.run > kRegisters - covered) return false;
    if (op.value != 0) visit(covered, op.run, op.value);
    covered += op.run;
    at += op.size;
  }
  return covered == kRegisters;
}

// --- the estimator (Ertl) ---

double Sigma(double x) {
  if (x == 1.) return INFINITY;
  double y = 1, z = x, previous;
  do {
    x *= x;
    previous = z;
    z += x * y;
    y += y;
  } while (previous != z);
  return z;
}

double Tau(double x) {
  if (x == 0. || x == 1.) return 0.;
  double y = 1.0, z = 1 - x, previous;
  do {
    x = std::sqrt(x);
    previous = z;
    y *= 0.5;
    const double d = 1 - x;
    z -= d * d * y;  // Redis's pow(d, 2): the same correctly rounded square
  } while (previous != z);
  return z / 3;
}

uint64_t Estimate(const Histogram& h) {
  const double m = kRegisters;
  double z = m * Tau((m - h[kRankBits + 1]) / m);
  for (int j = kRankBits; j >= 1; --j) {
    z += h[j];
    z *= 0.5;
  }
  z += m * Sigma(h[0] / m);
  const double e = kAlphaInf * m * m / z;
  // Redis rounds with llroundl, which yields INT64_MIN for what does not fit (all registers at
  // 50 or more, say), and keeps that as the count.
  if (!(e < 9223372036854775808.0)) return uint64_t{1} << 63;
  return static_cast<uint64_t>(static_cast<double>(std::llround(e)));
}

Histogram Sum(const std::array<Histogram, 8>& parts) {
  Histogram h{};
  for (size_t j = 0; j < h.size(); ++j) {
    for (const Histogram& part : parts) h[j] += part[j];
  }
  return h;
}

Histogram DenseHistogram(const uint8_t* regs) {
  // Eight registers from each 6 bytes, read as one little-endian word; one histogram per
  // position, so that runs of equal registers do not wait on each other's increments.
  std::array<Histogram, 8> parts{};
  auto count8 = [&](uint64_t w) {
    for (int k = 0; k < 8; ++k) ++parts[k][(w >> (6 * k)) & 63];
  };
  size_t i = 0;
  for (; i + 8 <= kDenseBytes; i += 6) {
    uint64_t w;
    std::memcpy(&w, regs + i, 8);
    if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
    count8(w);
  }
  uint64_t w = 0;  // the last 6 bytes, which a word would read past
  for (size_t k = 0; k < 6; ++k) w |= uint64_t{regs[i + k]} << (8 * k);
  count8(w);
  return Sum(parts);
}

// Register index of a dense string value raised to v if lower.
Update RaiseDense(std::string* value, size_t index, uint8_t v) {
  uint8_t* regs = Bytes(value) + kHeaderSize;
  if (GetDense(regs, index) >= v) return Update::kUnchanged;
  SetDense(regs, index, v);
  (*value)[kStaleByte] = static_cast<char>((*value)[kStaleByte] | kStaleBit);
  return Update::kChanged;
}

Update Promote(std::string* value, size_t index, uint8_t v) {
  if (!ToDense(value)) return Update::kCorrupt;
  return RaiseDense(value, index, v);
}

Update RaiseSparse(std::string* value, size_t index, uint8_t v, SparseLimit sparse_limit) {
  if (v > kMaxSparseValue) return Promote(value, index, v);
  // Find the opcode covering the register: the hot loop of a sparse value, which looks at each
  // opcode's run alone. before: the registers of the opcode at `at` that come before index.
  std::string& s = *value;
  const uint8_t* const bytes = Bytes(&s);
  const size_t size = s.size();
  size_t at = kHeaderSize, before = index, previous = std::string::npos;
  for (;;) {
    if (at >= size) return Update::kCorrupt;  // the opcodes end before the register
    const uint8_t b = bytes[at];
    size_t run = kOneByteRun[b];
    if (run == 0) {  // XZERO
      run = ((size_t{b} & 0x3f) << 8 | (at + 1 < size ? bytes[at + 1] : 0)) + 1;
      if (before < run) break;
      before -= run;
      previous = at;
      at += 2;
      continue;
    }
    if (before < run) break;
    before -= run;
    previous = at;
    ++at;
  }
  const size_t first = index - before;
  const Op op = ReadOp(s, at);
  if (at + op.size > size) return Update::kCorrupt;  // an XZERO cut off by the end

  const bool is_val = op.value != 0;
  if (is_val && op.value >= v) return Update::kUnchanged;
  if (op.run == 1 && (is_val || op.size == 1)) {
    // A VAL or ZERO of one register becomes a VAL of the new value.
    s[at] = static_cast<char>(ValOp(v, 1));
  } else {
    // Split the opcode around the register: at worst XZERO-VAL-XZERO, 5 bytes.
    const size_t last = first + op.run - 1;
    uint8_t seq[5];
    size_t n = 0;
    if (is_val) {
      if (index != first) seq[n++] = ValOp(op.value, index - first);
      seq[n++] = ValOp(v, 1);
      if (index != last) seq[n++] = ValOp(op.value, last - index);
    } else {
      if (index != first) AppendZeros(seq, &n, index - first);
      seq[n++] = ValOp(v, 1);
      if (index != last) AppendZeros(seq, &n, last - index);
    }
    if (n > op.size && s.size() + (n - op.size) > sparse_limit()) return Promote(value, index, v);
    s.replace(at, op.size, reinterpret_cast<const char*>(seq), n);
  }

  // Merge adjacent VALs of one value, scanning up to 5 opcodes from the one before the change.
  size_t q = previous != std::string::npos ? previous : kHeaderSize;
  for (int scan = 5; q < s.size() && scan > 0; --scan) {
    const uint8_t b = static_cast<uint8_t>(s[q]);
    if (IsXZero(b)) {
      q += 2;
      continue;
    }
    if (IsZero(b)) {
      ++q;
      continue;
    }
    if (q + 1 < s.size()) {
      const uint8_t next = static_cast<uint8_t>(s[q + 1]);
      if (IsVal(next) && ValValue(b) == ValValue(next)) {
        const size_t run = ValRun(b) + ValRun(next);
        if (run <= kValMaxRun) {
          s[q + 1] = static_cast<char>(ValOp(ValValue(b), run));
          s.erase(q, 1);
          continue;  // the merged VAL may merge with the next one too
        }
      }
    }
    ++q;
  }
  s[kStaleByte] = static_cast<char>(s[kStaleByte] | kStaleBit);
  return Update::kChanged;
}

}  // namespace

uint64_t MurmurHash64A(std::string_view data, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const uint8_t* p = Bytes(data);
  const size_t len = data.size();
  uint64_t h = seed ^ (len * m);
  const uint8_t* const words_end = p + (len & ~size_t{7});
  for (; p != words_end; p += 8) {
    uint64_t k = 0;
    for (int i = 7; i >= 0; --i) k = k << 8 | p[i];  // little endian whatever the machine
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const size_t tail = len & 7;
  if (tail != 0) {
    for (size_t i = tail; i-- > 0;) h ^= uint64_t{p[i]} << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

Observation Observe(std::string_view element) {
  const uint64_t hash = MurmurHash64A(element, kSeed);
  const uint64_t rest = (hash >> kIndexBits) | uint64_t{1} << kRankBits;
  return {static_cast<uint32_t>(hash & (kRegisters - 1)),
          static_cast<uint8_t>(__builtin_ctzll(rest) + 1)};
}

bool IsHll(std::string_view value) {
  if (value.size() < kHeaderSize || value.substr(0, 4) != "HYLL") return false;
  const uint8_t encoding = static_cast<uint8_t>(value[4]);
  if (encoding == static_cast<uint8_t>(Encoding::kDense)) return value.size() == kDenseSize;
  return encoding == static_cast<uint8_t>(Encoding::kSparse);
}

std::string NewHll() {
  std::string value(kHeaderSize + 2, '\0');
  std::memcpy(value.data(), "HYLL", 4);
  value[4] = static_cast<char>(Encoding::kSparse);
  value[kHeaderSize] = static_cast<char>(0x40 | (kRegisters - 1) >> 8);
  value[kHeaderSize + 1] = static_cast<char>((kRegisters - 1) & 0xff);
  return value;
}

bool CacheValid(std::string_view value) {
  return (static_cast<uint8_t>(value[kStaleByte]) & kStaleBit) == 0;
}

uint64_t CachedCardinality(std::string_view value) {
  uint64_t card = 0;
  for (size_t i = 8; i-- > 0;) card = card << 8 | static_cast<uint8_t>(value[kCacheOffset + i]);
  return card;
}

BytePatch StaleCachePatch(std::string_view value) {
  BytePatch patch;
  patch.offset = kStaleByte;
  patch.size = 1;
  patch.data[0] = static_cast<char>(value[kStaleByte] | kStaleBit);
  return patch;
}

BytePatch CachePatch(uint64_t card) {
  BytePatch patch;
  patch.offset = kCacheOffset;
  patch.size = 8;
  for (size_t i = 0; i < 8; ++i) patch.data[i] = static_cast<char>(card >> (8 * i));
  return patch;
}

uint8_t DenseRegister(std::string_view value, size_t index) {
  return GetDense(Bytes(value) + kHeaderSize, index);
}

BytePatch DenseRegisterPatch(std::string_view value, size_t index, uint8_t v) {
  const size_t byte = index * 6 / 8;
  BytePatch patch;
  patch.offset = kHeaderSize + byte;
  patch.size = index * 6 % 8 > 2 ? 2 : 1;
  uint8_t bytes[2] = {};
  std::memcpy(bytes, value.data() + patch.offset, patch.size);
  SetInBytes(bytes, index * 6 % 8, v);
  std::memcpy(patch.data, bytes, patch.size);
  return patch;
}

Update Raise(std::string* value, size_t index, uint8_t v, SparseLimit sparse_limit) {
  if (EncodingOf(*value) == Encoding::kDense) return RaiseDense(value, index, v);
  return RaiseSparse(value, index, v, sparse_limit);
}

Update Add(std::string* value, std::string_view element, SparseLimit sparse_limit) {
  const Observation o = Observe(element);
  return Raise(value, o.index, o.rank, sparse_limit);
}

bool ToDense(std::string* value) {
  if (EncodingOf(*value) == Encoding::kDense) return true;
  std::string dense(kDenseSize, '\0');
  std::memcpy(dense.data(), value->data(), kHeaderSize);
  dense[4] = static_cast<char>(Encoding::kDense);
  uint8_t* regs = Bytes(&dense) + kHeaderSize;
  const bool ok = ForEachSparseVal(*value, [&](size_t first, size_t run, uint8_t v) {
    for (size_t i = first; i < first + run; ++i) SetDense(regs, i, v);
  });
  if (!ok) return false;
  *value = std::move(dense);
  return true;
}

bool MergeMax(std::string_view value, uint8_t* max) {
  if (EncodingOf(value) == Encoding::kDense) {
    ForEachDenseQuad(Bytes(value) + kHeaderSize,
                     [&](size_t r, uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
                       max[r] = std::max<uint8_t>(max[r], a);
                       max[r + 1] = std::max<uint8_t>(max[r + 1], b);
                       max[r + 2] = std::max<uint8_t>(max[r + 2], c);
                       max[r + 3] = std::max<uint8_t>(max[r + 3], d);
                     });
    return true;
  }
  return ForEachSparseVal(value, [&](size_t first, size_t run, uint8_t v) {
    for (size_t i = first; i < first + run; ++i) max[i] = std::max(max[i], v);
  });
}

bool Count(std::string_view value, uint64_t* card) {
  if (EncodingOf(value) == Encoding::kDense) {
    *card = Estimate(DenseHistogram(Bytes(value) + kHeaderSize));
    return true;
  }
  Histogram h{};
  size_t nonzero = 0;
  const bool ok = ForEachSparseVal(value, [&](size_t, size_t run, uint8_t v) {
    h[v] += static_cast<uint32_t>(run);
    nonzero += run;
  });
  if (!ok) return false;
  h[0] = static_cast<uint32_t>(kRegisters - nonzero);
  *card = Estimate(h);
  return true;
}

uint64_t CountRegisters(const uint8_t* registers) {
  std::array<Histogram, 8> parts{};  // as DenseHistogram's
  for (size_t i = 0; i < kRegisters; i += 8) {
    for (size_t k = 0; k < 8; ++k) ++parts[k][registers[i + k] & 63];
  }
  return Estimate(Sum(parts));
}

std::string DecodeSparse(std::string_view value) {
  std::string out;
  for (size_t at = kHeaderSize; at < value.size();) {
    const Op op = ReadOp(value, at);
    if (!out.empty()) out += ' ';
    if (op.value != 0) {
      out += "v:" + std::to_string(op.value) + "," + std::to_string(op.run);
    } else {
      out += (op.size == 1 ? "z:" : "Z:") + std::to_string(op.run);
    }
    at += op.size;
  }
  return out;
}

std::string SelfTest(size_t sparse_limit) {
  std::mt19937_64 rng(std::random_device{}());
  // 1: every register reads back what was written, its neighbours untouched.
  std::vector<uint8_t> regs(kDenseBytes, 0);
  std::vector<uint8_t> expected(kRegisters);
  for (int cycle = 0; cycle < 1000; ++cycle) {
    for (size_t i = 0; i < kRegisters; ++i) {
      expected[i] = static_cast<uint8_t>(rng() & 63);
      SetDense(regs.data(), i, expected[i]);
    }
    for (size_t i = 0; i < kRegisters; ++i) {
      const uint8_t got = GetDense(regs.data(), i);
      if (got != expected[i]) {
        return "TESTFAILED Register " + std::to_string(i) + " should be " +
               std::to_string(expected[i]) + " but is " + std::to_string(got);
      }
    }
  }
  // 2: the estimate stays within 6 standard errors, dense and sparse agreeing.
  std::string dense = NewHll();
  ToDense(&dense);
  std::string sparse = NewHll();
  auto limit = [&] { return sparse_limit; };
  const double relative_error = 1.04 / std::sqrt(static_cast<double>(kRegisters));
  const uint64_t seed = rng();
  uint64_t checkpoint = 1;
  for (uint64_t j = 1; j <= 10000000; ++j) {
    const uint64_t element = j ^ seed;
    char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>(element >> (8 * i));
    Add(&dense, {bytes, 8}, limit);
    Add(&sparse, {bytes, 8}, limit);
    if (j != checkpoint) continue;
    if (j < sparse_limit / 2 && EncodingOf(sparse) != Encoding::kSparse) {
      return "TESTFAILED sparse encoding not used";
    }
    uint64_t dense_count = 0, sparse_count = 0;
    Count(dense, &dense_count);
    if (!Count(sparse, &sparse_count) || dense_count != sparse_count) {
      return "TESTFAILED dense/sparse disagree";
    }
    const uint64_t error =
        dense_count > checkpoint ? dense_count - checkpoint : checkpoint - dense_count;
    // At 10 a collision is likely enough now and then to allow one.
    const uint64_t max_error =
        j == 10 ? 1 : static_cast<uint64_t>(std::ceil(relative_error * 6 * checkpoint));
    if (error > max_error) {
      return "TESTFAILED Too big error. card:" + std::to_string(checkpoint) +
             " abserr:" + std::to_string(error);
    }
    checkpoint *= 10;
  }
  return "";
}

}  // namespace ordis::server::hll
