// HyperLogLog values (server/types/hyperloglog.h). The reference bytes, registers and counts were
// read from redis-server 7.0.15 (PFADD, GET, PFCOUNT, PFDEBUG DECODE); hashes of whole values are
// MurmurHash64A with seed 0, computed from Redis's bytes by an independent implementation.
#include "server/types/hyperloglog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace ordis::server::hll {
namespace {

size_t Limit3000() { return 3000; }

std::string Header(char encoding,
                   std::string_view cache = std::string_view("\0\0\0\0\0\0\0\0", 8)) {
  std::string h("HYLL", 4);
  h += encoding;
  h.append(3, '\0');
  h.append(cache);
  return h;
}

// A dense value holding regs (one per byte).
std::string DenseOf(const std::vector<uint8_t>& regs) {
  std::string value = NewHll();
  EXPECT_TRUE(ToDense(&value));
  for (size_t i = 0; i < regs.size(); ++i) {
    const BytePatch p = DenseRegisterPatch(value, i, regs[i]);
    value.replace(p.offset, p.size, p.bytes());
  }
  return value;
}

void Apply(std::string* value, const BytePatch& p) { value->replace(p.offset, p.size, p.bytes()); }

TEST(HyperLogLogTest, MurmurHash64AAsRedis) {
  EXPECT_EQ(MurmurHash64A("", 0), 0u);
  EXPECT_EQ(MurmurHash64A("a", 0), 0x071717d2d36b6b11u);
  EXPECT_EQ(MurmurHash64A("hello", 0), 0x1e68d17c457bf117u);
  EXPECT_EQ(MurmurHash64A("12345678", 0), 0x758f67d162b2d202u);
  EXPECT_EQ(MurmurHash64A("123456789", 0), 0x4977490251674330u);
  EXPECT_EQ(MurmurHash64A("a", 0xadc83b19), 0x53d2470a9b43b1a7u);
}

TEST(HyperLogLogTest, ObserveAsRedis) {
  // PFADD x e; PFDEBUG DECODE x: "Z:12711 v:2,1 Z:3672" is register 12711 at 2.
  struct Case {
    std::string_view element;
    uint32_t index;
    uint8_t rank;
  };
  for (const Case& c : {Case{"a", 12711, 2}, Case{"b", 15780, 1}, Case{"c", 8436, 1},
                        Case{"", 5938, 2}, Case{"12345678", 10579, 3}}) {
    const Observation o = Observe(c.element);
    EXPECT_EQ(o.index, c.index) << c.element;
    EXPECT_EQ(o.rank, c.rank) << c.element;
  }
}

TEST(HyperLogLogTest, NewHllIsAnEmptySparseValueWithAValidCache) {
  const std::string value = NewHll();
  EXPECT_EQ(value, Header('\x01') + "\x7f\xff");
  EXPECT_TRUE(IsHll(value));
  EXPECT_EQ(EncodingOf(value), Encoding::kSparse);
  EXPECT_TRUE(CacheValid(value));
  EXPECT_EQ(CachedCardinality(value), 0u);
  EXPECT_EQ(DecodeSparse(value), "Z:16384");
  uint64_t card = 99;
  EXPECT_TRUE(Count(value, &card));
  EXPECT_EQ(card, 0u);
}

TEST(HyperLogLogTest, IsHllChecksWhatRedisChecks) {
  EXPECT_FALSE(IsHll(""));
  EXPECT_FALSE(IsHll("HYLL"));
  EXPECT_FALSE(IsHll(Header('\x01').substr(0, 15)));
  EXPECT_TRUE(IsHll(Header('\x01')));  // no opcodes at all: passes, counts as corrupt
  EXPECT_FALSE(IsHll("HYLX" + Header('\x01').substr(4)));
  EXPECT_FALSE(IsHll(Header('\x02') + "\x7f\xff"));
  EXPECT_FALSE(IsHll(Header('\x00') + "\x7f\xff"));  // dense of the wrong size
  EXPECT_TRUE(IsHll(Header('\x00') + std::string(kDenseSize - kHeaderSize, '\0')));
  EXPECT_FALSE(IsHll(Header('\x00') + std::string(kDenseSize - kHeaderSize + 1, '\0')));
}

TEST(HyperLogLogTest, AddingGivesRedisBytes) {
  std::string value = NewHll();
  EXPECT_EQ(Add(&value, "a", Limit3000), Update::kChanged);
  EXPECT_EQ(Add(&value, "b", Limit3000), Update::kChanged);
  EXPECT_EQ(Add(&value, "c", Limit3000), Update::kChanged);
  EXPECT_EQ(Add(&value, "a", Limit3000), Update::kUnchanged);
  EXPECT_FALSE(CacheValid(value));
  // Redis after PFADD h a b c; PFCOUNT h (the cache then holds 3).
  uint64_t card = 0;
  ASSERT_TRUE(Count(value, &card));
  EXPECT_EQ(card, 3u);
  Apply(&value, CachePatch(card));
  EXPECT_EQ(value, Header('\x01', std::string_view("\x03\0\0\0\0\0\0\0", 8)) +
                       "\x60\xf3\x80\x50\xb1\x84\x4b\xfb\x80\x42\x5a");
  EXPECT_EQ(DecodeSparse(value), "Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603");
  EXPECT_TRUE(CacheValid(value));
  EXPECT_EQ(CachedCardinality(value), 3u);
  Apply(&value, StaleCachePatch(value));
  EXPECT_FALSE(CacheValid(value));
  EXPECT_EQ(static_cast<uint8_t>(value[15]), 0x80);
  EXPECT_EQ(static_cast<uint8_t>(value[8]), 3);  // the stale count stays, as in Redis
}

// Elements e0, e1 ... added in order, PFCOUNT at each checkpoint: Redis's bytes before and after
// the count (the count fills the cache), its encoding and its count.
TEST(HyperLogLogTest, SparseGrowthAndPromotionGiveRedisBytesAndCounts) {
  struct Checkpoint {
    size_t n;
    size_t size;
    Encoding encoding;
    uint64_t before;
    uint64_t count;
    uint64_t after;
  };
  const Checkpoint checkpoints[] = {
      {1, 21, Encoding::kSparse, 0xf017b23e174e6cf1, 1, 0x7d6df1b4f4a8300b},
      {10, 48, Encoding::kSparse, 0xfbd8a9a29a4cdf01, 10, 0x30da02e1315394f7},
      {100, 285, Encoding::kSparse, 0x26594795a221a7cf, 100, 0x877543222fca0567},
      {500, 1068, Encoding::kSparse, 0xe7e8d3ad485e25e4, 506, 0xc8b8ef8bcbb5872e},
      {1000, 1906, Encoding::kSparse, 0x7ff7c5b5526b20be, 1008, 0x4c9a9f74ec3ce8ed},
      {1500, 2719, Encoding::kSparse, 0x4dab35e6d0e898cc, 1509, 0x6671ddc7c2a1f989},
      {2000, 12304, Encoding::kDense, 0x70ae3d9e8ec791c2, 2000, 0x934d1dd167e76afe},
      {5000, 12304, Encoding::kDense, 0x531b37f30073b09c, 4968, 0x86d06b4de4736ba4},
      {20000, 12304, Encoding::kDense, 0x7e977648f057003e, 19901, 0xc2b6cbfe1808b713},
      {100000, 12304, Encoding::kDense, 0x99e1a9f6907eb5cc, 100853, 0xc12fe9a6e624c2b2},
      {200000, 12304, Encoding::kDense, 0x5062ecae6e1fbc3b, 200859, 0xa276b844ffc1ac90},
  };
  std::string value = NewHll();
  size_t added = 0;
  for (const Checkpoint& c : checkpoints) {
    for (; added < c.n; ++added) {
      ASSERT_NE(Add(&value, "e" + std::to_string(added), Limit3000), Update::kCorrupt);
    }
    EXPECT_EQ(value.size(), c.size) << c.n;
    EXPECT_EQ(EncodingOf(value), c.encoding) << c.n;
    EXPECT_EQ(MurmurHash64A(value, 0), c.before) << c.n;
    uint64_t card = 0;
    ASSERT_TRUE(Count(value, &card));
    EXPECT_EQ(card, c.count) << c.n;
    Apply(&value, CachePatch(card));
    EXPECT_EQ(MurmurHash64A(value, 0), c.after) << c.n;
  }
}

TEST(HyperLogLogTest, SparseLimitIsAskedOnlyWhenTheValueGrows) {
  std::string value = NewHll();
  int asked = 0;
  auto limit = [&] {
    ++asked;
    return size_t{3000};
  };
  ASSERT_EQ(Add(&value, "a", limit), Update::kChanged);  // XZERO split: grows
  EXPECT_EQ(asked, 1);
  ASSERT_EQ(Add(&value, "a", limit), Update::kUnchanged);
  EXPECT_EQ(asked, 1);
  // Register 12711 holds 2 as a VAL of one register: raising it rewrites the byte.
  ASSERT_EQ(Raise(&value, 12711, 5, limit), Update::kChanged);
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(DecodeSparse(value), "Z:12711 v:5,1 Z:3672");
}

TEST(HyperLogLogTest, SparseTurnsDenseAtTheLimitOrPast32) {
  std::string value = NewHll();
  auto tiny = [] { return size_t{20}; };
  ASSERT_EQ(Add(&value, "a", tiny), Update::kChanged);  // 18 + 3 bytes > 20
  EXPECT_EQ(EncodingOf(value), Encoding::kDense);
  EXPECT_EQ(value.size(), kDenseSize);
  EXPECT_EQ(DenseRegister(value, 12711), 2);
  EXPECT_FALSE(CacheValid(value));

  std::string big = NewHll();
  ASSERT_EQ(Raise(&big, 100, 32, Limit3000), Update::kChanged);
  EXPECT_EQ(EncodingOf(big), Encoding::kSparse);
  ASSERT_EQ(Raise(&big, 200, 33, Limit3000), Update::kChanged);
  EXPECT_EQ(EncodingOf(big), Encoding::kDense);
  EXPECT_EQ(DenseRegister(big, 100), 32);
  EXPECT_EQ(DenseRegister(big, 200), 33);
  EXPECT_EQ(DenseRegister(big, 199), 0);
}

TEST(HyperLogLogTest, SparseSplitsAndMergesAsRedis) {
  std::string value = NewHll();
  ASSERT_EQ(Raise(&value, 1000, 2, Limit3000), Update::kChanged);
  EXPECT_EQ(DecodeSparse(value), "Z:1000 v:2,1 Z:15383");
  ASSERT_EQ(Raise(&value, 1001, 2, Limit3000), Update::kChanged);
  EXPECT_EQ(DecodeSparse(value), "Z:1000 v:2,2 Z:15382");
  ASSERT_EQ(Raise(&value, 1003, 2, Limit3000), Update::kChanged);
  EXPECT_EQ(DecodeSparse(value), "Z:1000 v:2,2 z:1 v:2,1 Z:15380");
  ASSERT_EQ(Raise(&value, 1002, 2, Limit3000), Update::kChanged);  // ZERO of one: VALs merge
  EXPECT_EQ(DecodeSparse(value), "Z:1000 v:2,4 Z:15380");
  ASSERT_EQ(Raise(&value, 1001, 3, Limit3000), Update::kChanged);  // a VAL run splits
  EXPECT_EQ(DecodeSparse(value), "Z:1000 v:2,1 v:3,1 v:2,2 Z:15380");
  ASSERT_EQ(Raise(&value, 1001, 1, Limit3000), Update::kUnchanged);
  ASSERT_EQ(Raise(&value, 1050, 1, Limit3000), Update::kChanged);  // a 45-register gap: ZERO
  EXPECT_EQ(DecodeSparse(value), "Z:1000 v:2,1 v:3,1 v:2,2 z:46 v:1,1 Z:15333");
  ASSERT_EQ(Raise(&value, 0, 1, Limit3000), Update::kChanged);
  ASSERT_EQ(Raise(&value, 16383, 7, Limit3000), Update::kChanged);
  EXPECT_EQ(DecodeSparse(value), "v:1,1 Z:999 v:2,1 v:3,1 v:2,2 z:46 v:1,1 Z:15332 v:7,1");
  std::vector<uint8_t> max(kRegisters, 0);
  ASSERT_TRUE(MergeMax(value, max.data()));
  EXPECT_EQ(max[0], 1);
  EXPECT_EQ(max[1001], 3);
  EXPECT_EQ(max[1003], 2);
  EXPECT_EQ(max[16383], 7);
  ASSERT_TRUE(ToDense(&value));
  for (size_t i = 0; i < kRegisters; ++i) ASSERT_EQ(DenseRegister(value, i), max[i]) << i;
}

TEST(HyperLogLogTest, DenseRegistersAndPatches) {
  std::vector<uint8_t> regs(kRegisters);
  for (size_t i = 0; i < kRegisters; ++i) regs[i] = static_cast<uint8_t>((i * 7 + i / 5) & 63);
  const std::string value = DenseOf(regs);
  ASSERT_EQ(value.size(), kDenseSize);
  for (size_t i = 0; i < kRegisters; ++i) ASSERT_EQ(DenseRegister(value, i), regs[i]) << i;
  // The last register lies in the last byte: its patch never reaches past the value.
  const BytePatch last = DenseRegisterPatch(value, kRegisters - 1, 63);
  EXPECT_EQ(last.offset + last.size, kDenseSize);
  EXPECT_EQ(DenseRegisterPatch(value, 1, 5).size, 2);  // bits 6-11
  std::string raised = value;
  EXPECT_EQ(Raise(&raised, 5, 63, Limit3000), Update::kChanged);
  EXPECT_EQ(Raise(&raised, 5, 63, Limit3000), Update::kUnchanged);
  EXPECT_EQ(DenseRegister(raised, 5), 63);
  EXPECT_EQ(DenseRegister(raised, 4), regs[4]);
  EXPECT_EQ(DenseRegister(raised, 6), regs[6]);
}

TEST(HyperLogLogTest, EstimatesOfExtremeRegistersAsRedis) {
  // Redis 7.0.15: PFCOUNT of a dense value whose registers are all 63, all 51 or all 50:
  // -9223372036854775808 (its rounding overflows); 8000 registers at 51 and the rest at 0:
  // 12712; the rest at 3: 184766.
  uint64_t card = 0;
  for (uint8_t v : {63, 51, 50}) {
    ASSERT_TRUE(Count(DenseOf(std::vector<uint8_t>(kRegisters, v)), &card));
    EXPECT_EQ(card, uint64_t{1} << 63) << int{v};
  }
  std::vector<uint8_t> regs(kRegisters, 0);
  std::fill(regs.begin(), regs.begin() + 8000, 51);
  ASSERT_TRUE(Count(DenseOf(regs), &card));
  EXPECT_EQ(card, 12712u);
  EXPECT_EQ(CountRegisters(regs.data()), 12712u);
  std::fill(regs.begin() + 8000, regs.end(), 3);
  ASSERT_TRUE(Count(DenseOf(regs), &card));
  EXPECT_EQ(card, 184766u);
  EXPECT_EQ(CountRegisters(regs.data()), 184766u);
}

TEST(HyperLogLogTest, CorruptSparseValuesAreRefusedUnchanged) {
  const std::string short_of = Header('\x01') + "\x7f\xfe";      // XZERO:16383
  const std::string past = Header('\x01') + "\x7f\xff\x80";      // XZERO:16384 VAL:1,1
  const std::string empty = Header('\x01');                      // no opcodes
  const std::string val_past = Header('\x01') + "\x7f\xfd\x83";  // 16382 zeros, 4 at 1
  for (const std::string& bad : {short_of, past, empty, val_past}) {
    uint64_t card;
    EXPECT_FALSE(Count(bad, &card));
    std::vector<uint8_t> max(kRegisters, 0);
    EXPECT_FALSE(MergeMax(bad, max.data()));
    std::string copy = bad;
    EXPECT_FALSE(ToDense(&copy));
    EXPECT_EQ(copy, bad);
    // Turning dense (a value past 32) needs a valid value.
    EXPECT_EQ(Raise(&copy, 5, 40, Limit3000), Update::kCorrupt);
    EXPECT_EQ(copy, bad);
  }
  // Registers the opcodes do not reach cannot be set; those they reach can, as in Redis.
  std::string copy = short_of;
  EXPECT_EQ(Raise(&copy, 16383, 1, Limit3000), Update::kCorrupt);
  EXPECT_EQ(copy, short_of);
  copy = empty;
  EXPECT_EQ(Raise(&copy, 0, 1, Limit3000), Update::kCorrupt);
  copy = past;
  EXPECT_EQ(Raise(&copy, 3, 1, Limit3000), Update::kChanged);
  EXPECT_EQ(DecodeSparse(copy), "z:3 v:1,1 Z:16380 v:1,1");
}

TEST(HyperLogLogTest, AnXZeroCutOffByTheEndReadsItsMissingByteAsZero) {
  // 0x7f alone: XZERO of (0x3f << 8 | 0) + 1 = 16129 registers, as Redis reads the terminator.
  const std::string cut = Header('\x01') + "\x7f";
  EXPECT_EQ(DecodeSparse(cut), "Z:16129");
  uint64_t card;
  EXPECT_FALSE(Count(cut, &card));
  // With 255 zeros before it the registers add up: a valid value.
  const std::string whole = Header('\x01') + "\x3f\x3f\x3f\x3e\x7f";
  EXPECT_EQ(DecodeSparse(whole), "z:64 z:64 z:64 z:63 Z:16129");
  ASSERT_TRUE(Count(whole, &card));
  EXPECT_EQ(card, 0u);
  std::string copy = whole;
  EXPECT_EQ(Raise(&copy, 16000, 1, Limit3000), Update::kCorrupt);  // the cut-off opcode itself
  EXPECT_EQ(copy, whole);
  EXPECT_EQ(Raise(&copy, 10, 1, Limit3000), Update::kChanged);
}

TEST(HyperLogLogTest, ToDenseKeepsTheHeader) {
  std::string value = Header('\x01', std::string_view("\x05\0\0\0\0\0\0\0", 8)) + "\x7f\xff";
  value[5] = 'x';  // an unused byte: copied as Redis copies the header
  ASSERT_TRUE(ToDense(&value));
  EXPECT_EQ(value.size(), kDenseSize);
  EXPECT_EQ(value.substr(0, 16),
            Header('\x00', std::string_view("\x05\0\0\0\0\0\0\0", 8)).replace(5, 1, "x"));
  EXPECT_EQ(value.substr(16), std::string(kDenseSize - kHeaderSize, '\0'));
  EXPECT_TRUE(ToDense(&value));  // already dense
}

TEST(HyperLogLogTest, MergedCountIsTheUnionsCount) {
  std::string a = NewHll(), b = NewHll(), both = NewHll();
  for (int i = 0; i < 3000; ++i) {
    Add(&a, "x" + std::to_string(i), Limit3000);
    Add(&both, "x" + std::to_string(i), Limit3000);
  }
  for (int i = 2000; i < 2500; ++i) {
    Add(&b, "x" + std::to_string(i), Limit3000);
    Add(&b, "y" + std::to_string(i), Limit3000);
    Add(&both, "y" + std::to_string(i), Limit3000);
  }
  ASSERT_EQ(EncodingOf(a), Encoding::kDense);
  ASSERT_EQ(EncodingOf(b), Encoding::kSparse);
  std::vector<uint8_t> max(kRegisters, 0);
  ASSERT_TRUE(MergeMax(a, max.data()));
  ASSERT_TRUE(MergeMax(b, max.data()));
  uint64_t expected = 0;
  ASSERT_TRUE(Count(both, &expected));
  EXPECT_EQ(CountRegisters(max.data()), expected);
}

// Random sparse bodies through every function, each read from an exact-size heap copy (so that
// a sanitizer build sees any read past the value): results stay HLLs, refusals change nothing.
TEST(HyperLogLogTest, ArbitrarySparseBytesAreSafe) {
  std::mt19937 rng(11);
  const uint8_t kInteresting[] = {0x00, 0x3f, 0x40, 0x7f, 0xff, 0x80, 0x83, 0xfc, 0x7e};
  for (int round = 0; round < 3000; ++round) {
    std::string value = Header('\x01', std::string_view("\0\0\0\0\0\0\0\x80", 8));
    const size_t n = rng() % 48;
    for (size_t i = 0; i < n; ++i) {
      value += static_cast<char>(rng() % 2 ? kInteresting[rng() % sizeof kInteresting] : rng());
    }
    const std::vector<char> exact(value.begin(), value.end());
    const std::string_view view(exact.data(), exact.size());
    ASSERT_TRUE(IsHll(view));
    uint64_t card;
    const bool valid = Count(view, &card);
    std::vector<uint8_t> max(kRegisters, 0);
    EXPECT_EQ(MergeMax(view, max.data()), valid);
    DecodeSparse(view);
    std::string dense(view);
    EXPECT_EQ(ToDense(&dense), valid);
    EXPECT_EQ(dense.size(), valid ? kDenseSize : value.size());
    for (int k = 0; k < 8; ++k) {
      std::string edited(view);
      const size_t index = rng() % kRegisters;
      const uint8_t v = static_cast<uint8_t>(1 + rng() % 40);
      const Update u = Raise(&edited, index, v, [&] { return size_t{20 + rng() % 80}; });
      if (u == Update::kCorrupt || u == Update::kUnchanged) {
        EXPECT_EQ(edited, value);
        continue;
      }
      ASSERT_TRUE(IsHll(edited));
      if (EncodingOf(edited) == Encoding::kDense) {
        EXPECT_EQ(DenseRegister(edited, index), v);
      } else {
        std::vector<uint8_t> regs(kRegisters, 0);
        // Valid before means valid after, with the register raised.
        if (valid) {
          ASSERT_TRUE(MergeMax(edited, regs.data()));
          EXPECT_EQ(regs[index], v);
        }
      }
    }
  }
}

TEST(HyperLogLogTest, SelfTestPasses) { EXPECT_EQ(SelfTest(3000), ""); }

}  // namespace
}  // namespace ordis::server::hll
