#include "server/types/zset_value.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ordis::server {
namespace {

using Entries = std::vector<std::pair<std::string, double>>;

template <typename Set>
Entries All(const Set& z, bool reverse = false) {
  Entries out;
  if (z.size() == 0) return out;
  z.VisitFrom(reverse ? z.size() - 1 : 0, reverse, [&](std::string_view m, double s) {
    out.emplace_back(std::string(m), s);
    return true;
  });
  return out;
}

// The reference: member -> score plus the (score, member) order.
struct Model {
  std::map<std::string, double> scores;
  std::set<std::pair<double, std::string>> order;

  bool Insert(const std::string& m, double s) {
    auto [it, added] = scores.try_emplace(m, s);
    if (!added) {
      order.erase({it->second, m});
      it->second = s;
    }
    order.emplace(s, m);
    return added;
  }
  bool Erase(const std::string& m) {
    auto it = scores.find(m);
    if (it == scores.end()) return false;
    order.erase({it->second, m});
    scores.erase(it);
    return true;
  }
  Entries All() const {
    Entries out;
    for (const auto& [s, m] : order) out.emplace_back(m, s);
    return out;
  }
};

TEST(ZSetValueTest, SmallSetKeepsOrderAndScores) {
  ZSetValue z;
  const ZSetLimits limits;
  EXPECT_TRUE(z.Insert("b", 2, limits));
  EXPECT_TRUE(z.Insert("a", 2, limits));
  EXPECT_TRUE(z.Insert("c", 1, limits));
  EXPECT_FALSE(z.Insert("c", 3, limits));
  EXPECT_TRUE(z.is_small());
  EXPECT_EQ(All(z), (Entries{{"a", 2}, {"b", 2}, {"c", 3}}));
  EXPECT_EQ(All(z, true), (Entries{{"c", 3}, {"b", 2}, {"a", 2}}));
  EXPECT_EQ(z.Score("c"), 3);
  EXPECT_EQ(z.Score("d"), std::nullopt);
  EXPECT_EQ(z.Rank("b"), 1u);
  EXPECT_EQ(z.Rank("zz"), std::nullopt);
  EXPECT_EQ(z.CountBefore([](double s, std::string_view) { return s < 3; }), 2u);
  EXPECT_TRUE(z.Erase("a"));
  EXPECT_FALSE(z.Erase("a"));
  EXPECT_EQ(All(z), (Entries{{"b", 2}, {"c", 3}}));
}

TEST(ZSetValueTest, NegativeZeroIsStoredAsZero) {
  ZSetValue z;
  z.Insert("a", -0.0, {});
  EXPECT_FALSE(std::signbit(*z.Score("a")));
}

TEST(ZSetValueTest, TurnsLargeAboveTheEntryLimitAndKeepsEverything) {
  ZSetValue z;
  const ZSetLimits limits{.max_small_entries = 4, .max_small_member = 64};
  for (int i = 0; i < 4; ++i) z.Insert("m" + std::to_string(i), i, limits);
  EXPECT_TRUE(z.is_small());
  z.Insert("m0", 10, limits);  // an update at the limit stays small
  EXPECT_TRUE(z.is_small());
  z.Insert("m4", 4, limits);
  EXPECT_FALSE(z.is_small());
  EXPECT_EQ(All(z), (Entries{{"m1", 1}, {"m2", 2}, {"m3", 3}, {"m4", 4}, {"m0", 10}}));
  z.EraseRanks(0, 3);  // a large set stays large
  EXPECT_FALSE(z.is_small());
  EXPECT_EQ(All(z), (Entries{{"m0", 10}}));
}

TEST(ZSetValueTest, TurnsLargeForALongMember) {
  ZSetValue z;
  const ZSetLimits limits{.max_small_entries = 128, .max_small_member = 8};
  ZSetValue first_long;  // large from its first member
  first_long.Insert(std::string(9, 'x'), 1, limits);
  EXPECT_FALSE(first_long.is_small());
  EXPECT_EQ(All(first_long), (Entries{{std::string(9, 'x'), 1}}));
  z.Insert("short", 1, limits);
  z.Insert(std::string(9, 'x'), 2, limits);
  EXPECT_FALSE(z.is_small());
  EXPECT_EQ(All(z), (Entries{{"short", 1}, {std::string(9, 'x'), 2}}));
}

TEST(ZSetValueTest, BinaryMembers) {
  for (size_t limit : {size_t{128}, size_t{0}}) {
    ZSetValue z;
    const ZSetLimits limits{.max_small_entries = limit, .max_small_member = 64};
    const std::string zero("\0", 1), mixed("a\0b", 3), empty;
    const std::string long_member(300, '\xff');  // a two-byte length prefix
    z.Insert(mixed, 1, limits);
    z.Insert(zero, 1, limits);
    z.Insert(empty, 1, limits);
    z.Insert(long_member, 1, limits);
    EXPECT_EQ(All(z), (Entries{{empty, 1}, {zero, 1}, {mixed, 1}, {long_member, 1}}));
    EXPECT_EQ(z.Rank(long_member), 3u);
  }
}

// The small form keeps integral scores up to 2^53 as varints and the rest as doubles: every
// score comes back exactly, in order, on either side of each encoding's bounds.
TEST(ZSetSmallTest, ScoresComeBackExactlyAcrossEncodings) {
  const double two53 = 9007199254740992.0;
  const std::vector<double> scores = {0,
                                      1,
                                      -1,
                                      31,
                                      -31,
                                      32,
                                      -32,
                                      0.5,
                                      -0.5,
                                      0.1,
                                      1.7e9,
                                      1.7e12,
                                      two53,
                                      -two53,
                                      two53 + 2,
                                      -two53 - 2,
                                      two53 - 1,
                                      4611686018427387904.0,  // 2^62
                                      9223372036854775808.0,  // 2^63: beyond int64
                                      -9223372036854775808.0,
                                      std::numeric_limits<double>::max(),
                                      std::numeric_limits<double>::lowest(),
                                      std::numeric_limits<double>::denorm_min(),
                                      -std::numeric_limits<double>::denorm_min(),
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity()};
  ZSetSmall z;
  Model model;
  for (size_t i = 0; i < scores.size(); ++i) {
    const std::string member = "s" + std::to_string(i);
    EXPECT_TRUE(z.Insert(member, scores[i]));
    model.Insert(member, scores[i]);
  }
  for (size_t i = 0; i < scores.size(); ++i) {
    EXPECT_EQ(z.Score("s" + std::to_string(i)), scores[i]) << i;
  }
  EXPECT_EQ(All(z), model.All());
  // Moves between encodings rewrite the entry in place.
  EXPECT_FALSE(z.Insert("s0", 0.25));
  EXPECT_FALSE(z.Insert("s7", 7));
  model.Insert("s0", 0.25);
  model.Insert("s7", 7);
  EXPECT_EQ(All(z), model.All());
}

// An entry is a score varint (or 1 + 8 bytes), a length and the member; the block holds the
// entries rounded up to the allocator's size class.
TEST(ZSetSmallTest, BlockHoldsTheEntriesPacked) {
  ZSetSmall z;
  EXPECT_EQ(z.MemoryUsage(), 0u);
  for (int i = 0; i < 5; ++i) z.Insert("m:00000000000" + std::to_string(i), i);
  EXPECT_EQ(z.encoded_size(), 5u * (1 + 1 + 14));
  EXPECT_GE(z.MemoryUsage(), z.encoded_size());
  z.Insert("m:000000000000", 0.5);
  EXPECT_EQ(z.encoded_size(), 4u * (1 + 1 + 14) + (9 + 1 + 14));
  z.Insert("m:000000000003", 1000);  // two-byte varint: 2 * ZigZag(1000) = 4000
  EXPECT_EQ(z.encoded_size(), 3u * (1 + 1 + 14) + (9 + 1 + 14) + (2 + 1 + 14));
  EXPECT_GE(z.MemoryUsage(), z.encoded_size());
  z.EraseRanks(0, 4);
  EXPECT_EQ(z.encoded_size(), 0u);
  EXPECT_EQ(z.MemoryUsage(), 0u);
  EXPECT_EQ(z.size(), 0u);
  EXPECT_TRUE(z.Insert("a", 1));
  EXPECT_EQ(All(z), (Entries{{"a", 1}}));
}

TEST(ZSetSmallTest, CopiesAndMovesAreIndependent) {
  ZSetSmall a;
  a.Insert("x", 1);
  a.Insert("y", 2.5);
  ZSetSmall b = a;
  b.Insert("z", 3);
  ZSetSmall c = std::move(b);
  a = c;
  a.Erase("x");
  EXPECT_EQ(All(c), (Entries{{"x", 1}, {"y", 2.5}, {"z", 3}}));
  EXPECT_EQ(All(a), (Entries{{"y", 2.5}, {"z", 3}}));
  ZSetSmall empty;
  c = empty;
  EXPECT_EQ(c.size(), 0u);
  EXPECT_EQ(All(c), Entries{});
}

TEST(ZSetTreeTest, OrderedLoadPacksLeaves) {
  ZSetTree tree;
  char member[32];
  constexpr int kN = 100000;
  for (int i = 0; i < kN; ++i) {
    snprintf(member, sizeof member, "m:%012d", i);
    ASSERT_TRUE(tree.Insert(member, 0));
  }
  ASSERT_EQ(tree.Validate(), "");
  // A record (9 + 14 bytes), a full leaf's 8.4 bytes per entry (512 bytes for 61), and the hash
  // index's 131,071 slots of 9 bytes (11.8 a member); inner nodes add about one byte.
  EXPECT_LT(tree.MemoryUsage() / kN, 23 + 9 + 13u);
  EXPECT_EQ(tree.Rank("m:000000054321"), 54321u);
}

TEST(ZSetTreeTest, CopiesAndMovesAreIndependent) {
  ZSetTree a;
  for (int i = 0; i < 1000; ++i) a.Insert("k" + std::to_string(i), i % 7);
  ZSetTree b = a;
  b.Erase("k1");
  b.Insert("new", -1);
  EXPECT_EQ(a.size(), 1000u);
  EXPECT_EQ(b.size(), 1000u);
  EXPECT_EQ(a.Score("new"), std::nullopt);
  EXPECT_EQ(b.Rank("new"), 0u);
  ZSetTree c = std::move(b);
  EXPECT_EQ(c.size(), 1000u);
  EXPECT_EQ(b.size(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty and usable
  b.Insert("x", 1);
  EXPECT_EQ(b.size(), 1u);
  EXPECT_EQ(a.Validate(), "");
  EXPECT_EQ(b.Validate(), "");
  EXPECT_EQ(c.Validate(), "");
}

// Random operations on both forms against the model; members and scores come from small
// alphabets so that updates, ties and re-insertions of erased separators are common.
class ZSetDifferentialTest : public testing::TestWithParam<size_t> {};

TEST_P(ZSetDifferentialTest, MatchesTheModel) {
  const size_t universe = GetParam();
  std::mt19937_64 rng(universe);
  ZSetValue z;
  Model model;
  const ZSetLimits limits{.max_small_entries = 16, .max_small_member = 64};
  auto member = [&] { return "m" + std::to_string(rng() % universe); };
  auto score = [&] { return static_cast<double>(static_cast<int>(rng() % 9) - 4) / 2; };
  for (int step = 0; step < 60000; ++step) {
    const int op = static_cast<int>(rng() % 100);
    if (op < 45) {
      const std::string m = member();
      const double s = score();
      ASSERT_EQ(z.Insert(m, s, limits), model.Insert(m, s)) << step;
    } else if (op < 70) {
      const std::string m = member();
      ASSERT_EQ(z.Erase(m), model.Erase(m)) << step;
    } else if (op < 72 && !model.scores.empty()) {
      const size_t n = model.order.size();
      size_t first = rng() % n, last = rng() % n;
      if (first > last) std::swap(first, last);
      if (rng() % 100 != 0) last = std::min(n - 1, first + rng() % 8);  // mostly short spans
      z.EraseRanks(first, last);
      auto it = std::next(model.order.begin(), static_cast<ptrdiff_t>(first));
      for (size_t i = first; i <= last; ++i) {
        model.scores.erase(it->second);
        it = model.order.erase(it);
      }
    } else if (op < 85) {
      const std::string m = member();
      auto it = model.scores.find(m);
      std::optional<size_t> rank;
      if (it != model.scores.end()) {
        rank = static_cast<size_t>(
            std::distance(model.order.begin(), model.order.find({it->second, m})));
      }
      ASSERT_EQ(z.Rank(m), rank) << step;
      ASSERT_EQ(z.Score(m),
                it == model.scores.end() ? std::nullopt : std::optional<double>(it->second));
    } else if (op < 95) {
      const double bound = score();
      const bool inclusive = rng() % 2;
      auto before = [&](double s, std::string_view) { return inclusive ? s <= bound : s < bound; };
      size_t expected = 0;
      for (const auto& [s, m] : model.order) expected += before(s, m);
      ASSERT_EQ(z.CountBefore(before), expected) << step;
    } else if (!model.order.empty()) {
      const size_t n = model.order.size();
      const size_t first = rng() % n;
      const bool reverse = rng() % 2;
      const size_t limit = 1 + rng() % 70;
      Entries got;
      z.VisitFrom(first, reverse, [&](std::string_view m, double s) {
        got.emplace_back(std::string(m), s);
        return got.size() < limit;
      });
      Entries all = model.All();
      Entries expected;
      for (size_t i = first; expected.size() < limit; reverse ? --i : ++i) {
        expected.push_back(all[i]);
        if ((reverse && i == 0) || (!reverse && i + 1 == n)) break;
      }
      ASSERT_EQ(got, expected) << step;
    }
    ASSERT_EQ(z.size(), model.scores.size()) << step;
  }
  EXPECT_EQ(All(z), model.All());
  EXPECT_GT(z.size(), universe / 4);  // the walk reached the large form's interesting sizes
}

INSTANTIATE_TEST_SUITE_P(Universes, ZSetDifferentialTest, testing::Values(10, 300, 5000));

// The tree alone, large enough for several inner levels, checked structurally as it goes.
TEST(ZSetTreeTest, StaysValidThroughGrowthAndShrinkage) {
  std::mt19937_64 rng(7);
  ZSetTree tree;
  Model model;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 40000; ++i) {
      const std::string m = "k" + std::to_string(rng() % 60000);
      const double s = static_cast<double>(rng() % 50);
      ASSERT_EQ(tree.Insert(m, s), model.Insert(m, s));
    }
    ASSERT_EQ(tree.Validate(), "") << round;
    while (model.scores.size() > 5000) {
      const size_t n = model.order.size();
      const size_t first = rng() % n;
      const size_t last = std::min(n - 1, first + rng() % 3000);
      tree.EraseRanks(first, last);
      auto it = std::next(model.order.begin(), static_cast<ptrdiff_t>(first));
      for (size_t i = first; i <= last; ++i) {
        model.scores.erase(it->second);
        it = model.order.erase(it);
      }
      ASSERT_EQ(tree.Validate(), "") << round;
    }
    ASSERT_EQ(All(tree), model.All());
  }
  tree.EraseRanks(0, tree.size() - 1);
  EXPECT_EQ(tree.size(), 0u);
  EXPECT_EQ(tree.Validate(), "");
}

// With equal scores the order is the members' order, and lex bounds are searches over it.
TEST(ZSetTreeTest, LexSearchesOverEqualScores) {
  std::mt19937_64 rng(11);
  ZSetValue z;
  std::set<std::string> members;
  for (int i = 0; i < 20000; ++i) {
    const std::string m = std::to_string(rng() % 100000);
    z.Insert(m, 0, {});
    members.insert(m);
  }
  for (int i = 0; i < 200; ++i) {
    const std::string bound = std::to_string(rng() % 100000);
    const size_t expected =
        static_cast<size_t>(std::distance(members.begin(), members.lower_bound(bound)));
    EXPECT_EQ(z.CountBefore([&](double, std::string_view m) { return m < bound; }), expected);
  }
}

}  // namespace
}  // namespace ordis::server
