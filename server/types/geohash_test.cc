// Redis's geo encoding. The expected scores, positions, geohashes and distances are redis-server
// 7.0.15's replies to GEOADD (ZRANGE WITHSCORES), GEOPOS, GEOHASH and GEODIST for the same
// inputs; positions are compared as Redis prints them ("%.17Lf", trailing zeros removed).
#include "server/types/geohash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "base/number.h"

namespace ordis::server::geo {
namespace {

constexpr Point kPalermo{13.361389, 38.115556};
constexpr Point kCatania{15.087269, 37.502669};
constexpr Point kLondon{-0.1276, 51.5072};
constexpr Point kTop{180, 85.05112878};
constexpr Point kBottom{-180, -85.05112878};
constexpr Point kZero{0, 0};

std::string Printed(double v) { return FormatLongDouble(v); }

std::string Meters(double d) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.4f", d);
  return buf;
}

std::string Hash(double score) {
  const std::array<char, 11> h = StandardGeohash(score);
  return std::string(h.data(), h.size());
}

TEST(GeoEncode, ScoresAsRedisStoresThem) {
  EXPECT_EQ(ScoreBits(kPalermo), 3479099956230698u);
  EXPECT_EQ(ScoreBits(kCatania), 3479447370796909u);
  EXPECT_EQ(ScoreBits(kLondon), 2163557714838307u);
  EXPECT_EQ(ScoreBits(kZero), 3377699720527872u);
  EXPECT_EQ(ScoreBits(kBottom), 0u);
  // The top of both ranges is one past the last cell: bits 52 and 53 (3 * 2^52).
  EXPECT_EQ(ScoreBits(kTop), 13510798882111488u);
}

TEST(GeoEncode, ValidPositions) {
  EXPECT_TRUE(ValidPosition(kTop));
  EXPECT_TRUE(ValidPosition(kBottom));
  EXPECT_FALSE(ValidPosition({180.0000001, 0}));
  EXPECT_FALSE(ValidPosition({0, 85.05112879}));
  EXPECT_FALSE(ValidPosition({0, -85.05112879}));
  EXPECT_FALSE(ValidPosition({-INFINITY, 0}));
  Cell cell;
  EXPECT_FALSE(Encode(kLonRange, kLatRange, {0, 86}, kMaxStep, &cell));
  EXPECT_FALSE(Encode(kLonRange, kLatRange, kZero, 0, &cell));
  EXPECT_FALSE(Encode(kLonRange, kLatRange, kZero, 33, &cell));
}

TEST(GeoDecode, PositionsAsGeoposPrintsThem) {
  Point p = DecodeScore(3479099956230698.0);
  EXPECT_EQ(Printed(p.lon), "13.36138933897018433");
  EXPECT_EQ(Printed(p.lat), "38.11555639549629859");
  p = DecodeScore(3479447370796909.0);
  EXPECT_EQ(Printed(p.lon), "15.08726745843887329");
  EXPECT_EQ(Printed(p.lat), "37.50266842333162032");
  p = DecodeScore(2163557714838307.0);
  EXPECT_EQ(Printed(p.lon), "-0.12760072946548462");
  EXPECT_EQ(Printed(p.lat), "51.50720053692975853");
  p = DecodeScore(13510798882111488.0);  // clamped to the ranges
  EXPECT_EQ(Printed(p.lon), "180");
  EXPECT_EQ(Printed(p.lat), "85.0511287799999991");
  p = DecodeScore(0);
  EXPECT_EQ(Printed(p.lon), "-179.99999731779098511");
  EXPECT_EQ(Printed(p.lat), "-85.05112751263942528");
}

TEST(GeoDecode, ScoresThatAreNoGeohashDecodeAsInRedis) {
  // -1 converts to all ones, so both coordinates clamp to the top; 1e300 converts to 0; 2^52 is
  // the latitude's overflow bit.
  Point p = DecodeScore(-1);
  EXPECT_EQ(Printed(p.lon), "180");
  EXPECT_EQ(Printed(p.lat), "85.0511287799999991");
  p = DecodeScore(1e300);
  EXPECT_EQ(Printed(p.lon), "-179.99999731779098511");
  EXPECT_EQ(Printed(p.lat), "-85.05112751263942528");
  p = DecodeScore(4503599627370496.0);
  EXPECT_EQ(Printed(p.lon), "-179.99999731779098511");
  EXPECT_EQ(Printed(p.lat), "85.0511287799999991");
  EXPECT_EQ(BitsOfScore(-1), ~uint64_t{0});
  EXPECT_EQ(BitsOfScore(-INFINITY), uint64_t{1} << 63);
  EXPECT_EQ(BitsOfScore(INFINITY), 0u);
  EXPECT_EQ(BitsOfScore(1e19), 10000000000000000000u);
}

TEST(GeoHash, StandardStrings) {
  EXPECT_EQ(Hash(3479099956230698.0), "sqc8b49rny0");
  EXPECT_EQ(Hash(3479447370796909.0), "sqdtr74hyu0");
  EXPECT_EQ(Hash(13510798882111488.0), "bp05b5048p0");
  EXPECT_EQ(Hash(0), "00bh0hbj200");
  EXPECT_EQ(Hash(3377699720527872.0), "s0000000000");
  EXPECT_EQ(Hash(2163557714838307.0), "gcpvj0e54w0");
  EXPECT_EQ(Hash(-1), "bp05b5048p0");
  EXPECT_EQ(Hash(4503599627370496.0), "bp05b5048p0");
}

TEST(GeoDistance, AsGeodist) {
  auto at = [](Point p) { return DecodeScore(static_cast<double>(ScoreBits(p))); };
  EXPECT_EQ(Meters(Distance(at(kPalermo), at(kCatania))), "166274.1516");
  EXPECT_EQ(Meters(Distance(at(kPalermo), at(kLondon)) / 1000), "1824.3983");
  EXPECT_EQ(Meters(Distance(at(kTop), at(kBottom))), "18919844.5891");
  EXPECT_EQ(Meters(Distance(at(kZero), at(kLondon)) / 1609.34), "3559.8244");
  // Equal longitudes: the meridian's arc alone.
  EXPECT_EQ(Distance({10, 10}, {10, 10}), 0);
  EXPECT_EQ(Distance({10, 10}, {10, 11}), Distance({10, 11}, {10, 10}));
}

TEST(GeoCells, NeighboursWrapAround) {
  // Step 2: longitude 0 (of 0..3) and latitude 2 (of 0..3).
  Cell cell;
  ASSERT_TRUE(Encode(kLonRange, kLatRange, {-179.9, 0}, 2, &cell));
  EXPECT_EQ(cell, (Cell{0b0100, 2}));
  const Neighbours n = NeighboursOf(cell);
  EXPECT_EQ(n.east, (Cell{0b0110, 2}));   // longitude 1
  EXPECT_EQ(n.west, (Cell{0b1110, 2}));   // longitude 3: wrapped
  EXPECT_EQ(n.north, (Cell{0b0101, 2}));  // latitude 3
  EXPECT_EQ(n.south, (Cell{0b0001, 2}));  // latitude 1
  EXPECT_EQ(n.north_west, (Cell{0b1111, 2}));
  EXPECT_EQ(n.south_east, (Cell{0b0011, 2}));
  EXPECT_EQ(NeighboursOf(n.north).north, (Cell{0b0000, 2}));  // latitude wraps too
  const Interval scores = ScoreRange(cell);
  EXPECT_EQ(scores.min, static_cast<double>(uint64_t{4} << 48));
  EXPECT_EQ(scores.max, static_cast<double>(uint64_t{5} << 48));
}

TEST(GeoCells, AreaOfACell) {
  Cell cell;
  ASSERT_TRUE(Encode(kLonRange, kLatRange, {-179.9, 0}, 2, &cell));
  const Area area = Decode(kLonRange, kLatRange, cell);
  EXPECT_EQ(area.lon.min, -180);
  EXPECT_EQ(area.lon.max, -90);
  EXPECT_EQ(area.lat.min, 0);
  EXPECT_DOUBLE_EQ(area.lat.max, kLatMax / 2);
}

TEST(GeoCells, StepEstimate) {
  EXPECT_EQ(EstimateStep(0, 0), 26);
  EXPECT_EQ(EstimateStep(100000, 37), 7);
  EXPECT_EQ(EstimateStep(100000, 70), 6);
  EXPECT_EQ(EstimateStep(100000, -85), 5);
  EXPECT_EQ(EstimateStep(1, 0), 24);
  EXPECT_EQ(EstimateStep(1e-300, 0), 26);
  EXPECT_EQ(EstimateStep(INFINITY, 0), 1);
  EXPECT_EQ(EstimateStep(3e7, 0), 1);
}

TEST(GeoCells, DuplicateNeighboursAreWalkedOnce) {
  std::array<Cell, 9> cells;
  cells.fill(Cell{5, 1});
  cells[2] = Cell{};
  EXPECT_TRUE(CellToWalk(cells, 0, 0));
  EXPECT_TRUE(CellToWalk(cells, 1, 0));  // the centre is never compared with
  EXPECT_FALSE(CellToWalk(cells, 2, 1));
  EXPECT_FALSE(CellToWalk(cells, 3, 1));
  cells[4] = Cell{6, 1};
  EXPECT_TRUE(CellToWalk(cells, 4, 1));
}

// A search's cells hold every point of its shape, and the shape test agrees with Distance.
TEST(GeoCells, CoverTheShape) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> lon(-180, 180), lat(-84, 84), unit(0, 1);
  int inside = 0, outside = 0;
  for (int trial = 0; trial < 600; ++trial) {
    Shape shape;
    shape.center = {lon(rng), lat(rng)};
    shape.conversion = 1000;
    const bool box = trial % 2 == 1;
    shape.kind = box ? Shape::Kind::kBox : Shape::Kind::kRadius;
    // Mostly regional shapes, some reaching over a pole or around the globe.
    const double scale = trial % 5 == 0 ? 20000 : 500;
    shape.radius = 1 + unit(rng) * scale;
    shape.width = 1 + unit(rng) * scale * 1.6;
    shape.height = 1 + unit(rng) * scale * 1.6;
    const std::array<Cell, 9> cells = CoveringCells(shape);
    const ShapeTest test(shape);
    for (int i = 0; i < 200; ++i) {
      const double spread = trial % 5 == 0 ? 360 : 16;
      Point p{shape.center.lon + (unit(rng) - 0.5) * spread,
              shape.center.lat + (unit(rng) - 0.5) * spread / 2};
      if (p.lon > 180) p.lon -= 360;
      if (p.lon < -180) p.lon += 360;
      if (!ValidPosition(p)) continue;
      const double score = static_cast<double>(ScoreBits(p));
      const Point at = DecodeScore(score);
      double d = -1;
      const bool in = test.Contains(at, &d);
      const double expected = Distance(shape.center, at);
      EXPECT_GE(expected, test.LowerBound(at.lat));
      bool expected_in;
      if (box) {
        expected_in =
            Distance(shape.center, {shape.center.lon, at.lat}) <=
                shape.height * shape.conversion / 2 &&
            Distance(at, {shape.center.lon, at.lat}) <= shape.width * shape.conversion / 2;
      } else {
        expected_in = expected <= shape.radius * shape.conversion;
      }
      ASSERT_EQ(in, expected_in) << trial << " " << i;
      ++(in ? inside : outside);
      if (!in) continue;
      EXPECT_EQ(d, expected);
      const bool covered = std::any_of(cells.begin(), cells.end(), [&](Cell c) {
        if (c.none()) return false;
        const Interval r = ScoreRange(c);
        return score >= r.min && score < r.max;
      });
      // Redis's cover is an approximation: near a pole, or for a shape wider than a cell can
      // be, it can miss points, so only regional shapes away from the poles are checked.
      if (scale < 1000 && std::fabs(shape.center.lat) < 60) {
        EXPECT_TRUE(covered) << "trial " << trial << " point " << i;
      }
    }
  }
  // Both outcomes were tested, many times.
  EXPECT_GT(inside, 5000);
  EXPECT_GT(outside, 5000);
}

TEST(GeoCells, SmallRadiusOnTheEquatorKeepsNearbyCells) {
  Shape shape;
  shape.center = {0.0001, 0.0001};
  shape.radius = 100;
  const std::array<Cell, 9> cells = CoveringCells(shape);
  EXPECT_FALSE(cells[0].none());
  // The centre sits at a corner of four cells: the cells reaching across it are searched.
  EXPECT_GE(std::count_if(cells.begin(), cells.end(), [](Cell c) { return !c.none(); }), 4);
}

int CompareInts(const int& a, const int& b) { return a > b ? 1 : a == b ? 0 : -1; }

std::vector<int> FirstSorted(std::vector<int> v, size_t k) {
  PartialQuicksort<int, decltype(&CompareInts)>(std::span<int>(v), k, &CompareInts).Run();
  v.resize(std::min(k, v.size()));
  return v;
}

TEST(GeoPartialQuicksort, SortsTheFirstK) {
  std::mt19937 rng(3);
  for (size_t n : {0, 1, 6, 7, 8, 40, 41, 100, 1000}) {
    std::vector<int> v(n);
    for (int& x : v) x = static_cast<int>(rng() % 50);
    std::vector<int> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (size_t k : {size_t{1}, size_t{3}, n / 2, n}) {
      if (k > n) continue;
      std::vector<int> expected(sorted.begin(), sorted.begin() + static_cast<long>(k));
      EXPECT_EQ(FirstSorted(v, k), expected) << n << " " << k;
    }
  }
}

// Ties end where Redis's partial sort leaves them: GEOSEARCH t FROMLONLAT 10 10 BYRADIUS 100 km
// COUNT k on redis-server 7.0.15, for k (10.9538 km), a..h (0.0003 km), i and j (10.9537 km),
// found in that order.
TEST(GeoPartialQuicksort, TiesAsRedis) {
  struct P {
    char name;
    int rank;
  };
  const std::vector<P> found = {{'k', 2}, {'a', 0}, {'b', 0}, {'c', 0}, {'d', 0}, {'e', 0},
                                {'f', 0}, {'g', 0}, {'h', 0}, {'i', 1}, {'j', 1}};
  auto run = [&](size_t k, bool desc) {
    std::vector<P> v = found;
    auto cmp = [desc](const P& a, const P& b) {
      const int c = a.rank > b.rank ? 1 : a.rank == b.rank ? 0 : -1;
      return desc ? -c : c;
    };
    PartialQuicksort<P, decltype(cmp)>(std::span<P>(v), k, cmp).Run();
    std::string names;
    for (size_t i = 0; i < k; ++i) names += v[i].name;
    return names;
  };
  EXPECT_EQ(run(3, false), "gab");
  EXPECT_EQ(run(9, false), "gabcdefhj");
  EXPECT_EQ(run(10, false), "gabcdefhji");
  EXPECT_EQ(run(3, true), "kji");
  EXPECT_EQ(run(10, true), "kjibdefgha");
}

}  // namespace
}  // namespace ordis::server::geo
