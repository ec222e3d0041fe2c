// HyperLogLog values in Redis 7.0's byte format, so that a value moves between ordis and
// redis-server unchanged (GET, DUMP/RESTORE, replication) and counts the same on both:
//
//   bytes 0-3    "HYLL"
//   byte  4      encoding: 0 dense, 1 sparse
//   bytes 5-7    unused (kept as found)
//   bytes 8-15   the cached cardinality, little endian; bit 7 of byte 15 set: stale
//   then         16384 registers of 6 bits:
//     dense:   packed from the least significant bit, register i at bit 6i (12288 bytes);
//     sparse:  run lengths, opcodes ZERO 00xxxxxx (x+1 zero registers, 1-64), XZERO 01xxxxxx
//              yyyyyyyy (xy+1 zero registers, 1-16384) and VAL 1vvvvvxx (x+1 registers, 1-4, of
//              value v+1, 1-32).
//
// An element hashes with MurmurHash64A (seed 0xadc83b19): the low 14 bits pick its register,
// the position of the lowest set bit of the other 50 (1-51) is its rank, and a register keeps
// the largest rank it saw. A new value is sparse; it turns dense when a register would pass 32
// or the sparse bytes would pass hll-sparse-max-bytes. The count is Ertl's improved estimator
// over the registers' histogram ("New cardinality estimation algorithms for HyperLogLog
// sketches", arXiv:1702.01284), computed in the same double operations as Redis 7.0.
//
// Sparse edits follow Redis's own steps (which opcode splits into which, the merge of adjacent
// VALs after a change), so the same additions give the same bytes. Any bytes are safe to hand
// in: a sparse value whose opcodes do not cover exactly 16384 registers is corrupt, and no
// function reads or writes outside the value it is given.
//
// Thread safety: pure functions of their arguments.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/functional/function_ref.h"

namespace ordis::server::hll {

inline constexpr size_t kRegisters = 16384;
inline constexpr size_t kHeaderSize = 16;
inline constexpr size_t kDenseSize = kHeaderSize + kRegisters * 6 / 8;  // 12304
inline constexpr uint8_t kMaxSparseValue = 32;

enum class Encoding : uint8_t { kDense = 0, kSparse = 1 };

// Redis's MurmurHash64A: 8-byte words read little endian on any machine.
uint64_t MurmurHash64A(std::string_view data, uint64_t seed);

// What adding an element does: register `index` is raised to at least `rank` (1-51).
struct Observation {
  uint32_t index;
  uint8_t rank;
};
Observation Observe(std::string_view element);

// Whether a string passes Redis's check of an HLL (isHLLObjectOrReply): the header, "HYLL", a
// known encoding, and a dense value exactly kDenseSize bytes. The registers are not checked.
bool IsHll(std::string_view value);
// Preconditions for the rest, unless said: IsHll(value).
inline Encoding EncodingOf(std::string_view value) {
  return static_cast<Encoding>(static_cast<uint8_t>(value[4]));
}

// An empty HLL as PFADD creates it: sparse (XZERO:16384), cached cardinality 0.
std::string NewHll();

bool CacheValid(std::string_view value);
uint64_t CachedCardinality(std::string_view value);

// A change of a few bytes of a value in place: the value's bytes from offset become bytes().
struct BytePatch {
  size_t offset = 0;
  uint8_t size = 0;
  char data[8] = {};
  std::string_view bytes() const { return {data, size}; }
};
// The cache marked stale (what every change of the registers does).
BytePatch StaleCachePatch(std::string_view value);
// The cache holding card.
BytePatch CachePatch(uint64_t card);
// Dense only: register index's value, and the patch setting it to v (0-63).
uint8_t DenseRegister(std::string_view value, size_t index);
BytePatch DenseRegisterPatch(std::string_view value, size_t index, uint8_t v);

enum class Update { kUnchanged, kChanged, kCorrupt };
// hll-sparse-max-bytes: asked for only when a sparse value grows.
using SparseLimit = absl::FunctionRef<size_t()>;

// Raises register index of *value to v if lower, marking the cache stale then; a sparse value
// may turn dense (past the limit, or for v > 32). kCorrupt (value unchanged) when a sparse
// value's opcodes do not reach the register, or it must turn dense and is corrupt.
Update Raise(std::string* value, size_t index, uint8_t v, SparseLimit sparse_limit);
// Raise by an element's observation.
Update Add(std::string* value, std::string_view element, SparseLimit sparse_limit);
// Makes a sparse value dense (cache copied); false (value unchanged) when it is corrupt.
bool ToDense(std::string* value);

// Raises each max[i] (kRegisters of them) to register i of value; false when value is a corrupt
// sparse one (max then partly raised).
bool MergeMax(std::string_view value, uint8_t* max);
// The estimated cardinality of value's registers; false when value is a corrupt sparse one.
bool Count(std::string_view value, uint64_t* card);
// The estimate for kRegisters registers held one per byte (PFCOUNT of several keys).
uint64_t CountRegisters(const uint8_t* registers);

// PFDEBUG DECODE: a sparse value's opcodes as "Z:8436 v:1,1 z:3 ...".
std::string DecodeSparse(std::string_view value);

// PFSELFTEST: register access and estimate error, dense and sparse side by side. "" when it
// passes, else Redis's "TESTFAILED ..." text.
std::string SelfTest(size_t sparse_limit);

}  // namespace ordis::server::hll
