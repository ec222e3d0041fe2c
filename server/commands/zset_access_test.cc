#include "server/commands/zset_access.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace ordis::server {
namespace {

ScoreRange Range(std::string_view min, std::string_view max) {
  ScoreRange r;
  EXPECT_TRUE(ParseScoreRange(min, max, &r)) << min << " " << max;
  return r;
}

TEST(ZSetAccess, ScoreRangesAsRedisParsesThem) {
  ScoreRange r = Range("1.5", "(2");
  EXPECT_EQ(r.min, 1.5);
  EXPECT_FALSE(r.min_exclusive);
  EXPECT_EQ(r.max, 2);
  EXPECT_TRUE(r.max_exclusive);
  r = Range("-inf", "+inf");
  EXPECT_EQ(r.min, -INFINITY);
  EXPECT_EQ(r.max, INFINITY);
  EXPECT_EQ(Range("(-inf", "inf").max, INFINITY);
  // strtod's leniency, which Redis inherits: leading space, hex, an empty number (0), overflow.
  EXPECT_EQ(Range(" 2", "0x10").max, 16);
  r = Range("", "(");
  EXPECT_EQ(r.min, 0);
  EXPECT_EQ(r.max, 0);
  EXPECT_TRUE(r.max_exclusive);
  EXPECT_EQ(Range("1e999", "-1e999").min, INFINITY);
  // strtod stops at a NUL, as it does on Redis's argument.
  EXPECT_EQ(Range(std::string("3\0x", 3), "4").min, 3);

  ScoreRange bad;
  EXPECT_FALSE(ParseScoreRange("nan", "1", &bad));
  EXPECT_FALSE(ParseScoreRange("1", "(nan", &bad));
  EXPECT_FALSE(ParseScoreRange("x", "1", &bad));
  EXPECT_FALSE(ParseScoreRange("1", "2 ", &bad));
  EXPECT_FALSE(ParseScoreRange("[1", "2", &bad));
  EXPECT_FALSE(ParseScoreRange("((1", "2", &bad));
}

ZSetValue Make(std::initializer_list<std::pair<double, std::string_view>> entries) {
  ZSetValue z;
  for (const auto& [score, member] : entries) z.Insert(member, score, ZSetLimits{});
  return z;
}

TEST(ZSetAccess, ScoreRangesBecomeRankIntervals) {
  const ZSetValue z = Make({{1, "a"}, {2, "b"}, {2, "c"}, {3, "d"}, {INFINITY, "e"}});
  auto ranks = [&](std::string_view min, std::string_view max) {
    RankInterval in = RanksInScoreRange(z, Range(min, max));
    return std::pair<size_t, size_t>(in.first, in.first + in.size());
  };
  using P = std::pair<size_t, size_t>;
  EXPECT_EQ(ranks("-inf", "+inf"), P(0, 5));
  EXPECT_EQ(ranks("2", "2"), P(1, 3));
  EXPECT_EQ(ranks("(2", "3"), P(3, 4));
  EXPECT_EQ(ranks("1", "(2"), P(0, 1));
  EXPECT_EQ(ranks("inf", "inf"), P(4, 5));
  EXPECT_EQ(ranks("(3", "(inf"), P(4, 4));                       // empty
  EXPECT_EQ(RanksInScoreRange(z, Range("3", "1")).size(), 0u);   // min above max
  EXPECT_EQ(RanksInScoreRange(z, Range("(2", "2")).size(), 0u);  // equal bounds, one excluded
}

TEST(ZSetAccess, LexRangesBecomeRankIntervals) {
  const ZSetValue z = Make({{0, "a"}, {0, "b"}, {0, "bb"}, {0, "c"}});
  auto size = [&](std::string_view min, std::string_view max) {
    LexRange r;
    EXPECT_TRUE(ParseLexRange(min, max, &r));
    return RanksInLexRange(z, r).size();
  };
  EXPECT_EQ(size("-", "+"), 4u);
  EXPECT_EQ(size("[b", "[bb"), 2u);
  EXPECT_EQ(size("(b", "+"), 2u);
  EXPECT_EQ(size("-", "(b"), 1u);
  EXPECT_EQ(size("+", "-"), 0u);
  EXPECT_EQ(size("[c", "[a"), 0u);
  LexRange bad;
  EXPECT_FALSE(ParseLexRange("a", "+", &bad));
  EXPECT_FALSE(ParseLexRange("-", "++", &bad));
}

}  // namespace
}  // namespace ordis::server
