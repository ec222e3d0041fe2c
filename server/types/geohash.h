// Redis's geo encoding, as pure functions: a position is a sorted-set score holding a 52-bit
// geohash (26 bits of longitude and 26 of latitude, interleaved), over longitudes [-180, 180] and
// Web Mercator's latitudes [-85.05112878, 85.05112878]. A search covers its shape with the cell
// holding the centre and that cell's 8 neighbours, at a precision (step) estimated from the
// shape's size; each cell is one score range [min, max) of the sorted set, and a point in a range
// is kept when it lies in the shape.
//
// Every computation follows redis-server 7.0's arithmetic operation for operation (the same
// conversions, the same order of floating-point operations, the same libm calls), so scores,
// decoded positions, distances, the cells searched and the points kept are bit for bit Redis's:
// replies that print them agree to the last digit. That includes Redis's odd corners: a latitude
// of exactly 85.05112878 (or a longitude of 180) sets a bit above the cell's, scores that are not
// geohashes decode as x86 converts them, and the duplicate-cell check looks back one cell only.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace ordis::server::geo {

inline constexpr double kLonMin = -180, kLonMax = 180;
inline constexpr double kLatMin = -85.05112878, kLatMax = 85.05112878;
// Bits per coordinate in a stored score.
inline constexpr int kMaxStep = 26;

struct Interval {
  double min = 0, max = 0;
};

struct Point {
  double lon = 0, lat = 0;
};

// A geohash cell: `step` bits of each coordinate, longitude bits at the odd positions and
// latitude bits at the even ones, most significant first. step 0 with no bits is no cell (a
// neighbour a search leaves out).
struct Cell {
  uint64_t bits = 0;
  int step = 0;
  bool none() const { return bits == 0 && step == 0; }
  bool operator==(const Cell&) const = default;
};

struct Area {
  Interval lon, lat;
};

// The ranges of stored positions (Redis's geohashGetCoordRange).
inline constexpr Interval kLonRange{kLonMin, kLonMax};
inline constexpr Interval kLatRange{kLatMin, kLatMax};
// The ranges of standard geohash strings (GEOHASH).
inline constexpr Interval kStandardLatRange{-90, 90};

// True iff GEOADD and FROMLONLAT accept the position.
bool ValidPosition(Point p);

// The cell of `step` (1..32) bits per coordinate holding p, over the ranges; false when p is not a
// valid position or lies outside the ranges.
bool Encode(Interval lon_range, Interval lat_range, Point p, int step, Cell* out);
// The score GEOADD stores for a valid position.
uint64_t ScoreBits(Point p);
// The area of a cell (its latitude and longitude bounds).
Area Decode(Interval lon_range, Interval lat_range, Cell cell);
// The bits a score holds, converted as Redis (compiled for x86-64) converts a double to uint64_t.
uint64_t BitsOfScore(double score);
// The position a score stands for: the centre of its cell, clamped to the valid ranges. Every
// score decodes, geohash or not.
Point DecodeScore(double score);
// Its latitude and longitude alone (for a search that can rule a point out by its latitude).
double DecodeLatitude(double score);
double DecodeLongitude(double score);
// GEOHASH's 11 characters: the position re-encoded over latitudes [-90, 90], in geohash base32,
// the last character always '0'.
std::array<char, 11> StandardGeohash(double score);

// Great-circle distance in meters (haversine, on Redis's earth radius).
double Distance(Point a, Point b);

// The 8 neighbours of a cell, wrapping around in longitude (and, as Redis, in latitude).
struct Neighbours {
  Cell north, south, east, west, north_east, north_west, south_east, south_west;
};
Neighbours NeighboursOf(Cell cell);

// The step a search of this radius (meters) around latitude lat starts from.
int EstimateStep(double radius_m, double lat);

// What a search looks for: a circle of `radius`, or an axis-aligned box of width x height, in a
// unit of `conversion` meters, around center.
struct Shape {
  enum class Kind { kRadius, kBox };
  Kind kind = Kind::kRadius;
  Point center;
  double conversion = 1;
  double radius = 0;
  double width = 0, height = 0;
};

// The cells a search walks, in Redis's order: the centre's, then north, south, east, west,
// north-east, north-west, south-east, south-west; none() for those the shape cannot reach.
std::array<Cell, 9> CoveringCells(const Shape& shape);

// The scores [min, max) of a cell's points.
Interval ScoreRange(Cell cell);

// Whether the cell must be walked after the ones before it: not none(), and not the same cell as
// the last one walked (Redis's check of adjacent duplicates, which never looks at the centre).
// last: the index of the last cell walked, or 0 for none yet.
bool CellToWalk(const std::array<Cell, 9>& cells, size_t i, size_t last);

// Tests points against one shape, each as Redis's radius or box check, with what depends on the
// centre alone computed once.
class ShapeTest {
 public:
  explicit ShapeTest(const Shape& shape);
  // Whether p lies in the shape; *distance its distance from the centre (meters) when it does.
  bool Contains(Point p, double* distance) const;
  // A lower bound of Distance(center, p) for any p at latitude lat, that holds for the computed
  // distance too (with a margin for rounding): cheap, so a search can skip points it proves too
  // far.
  double LowerBound(double lat) const;

 private:
  Shape shape_;
  double lon_r_, lat_r_, cos_lat_;       // the centre's, in radians
  double radius_m_;                      // kRadius
  double half_width_m_, half_height_m_;  // kBox
  double lon_limit_;                     // degrees from the centre's longitude a point can be
};

// The order of a search's reply with COUNT, as Redis makes it: Redis puts its first k points in
// place with a partial quicksort (Bentley and McIlroy's "Engineering a Sort Function": a pivot that
// is the median of three elements, or past 40 elements the median of three such medians, a
// three-way partition, insertion sort below 7 elements), sorting only the parts that overlap the
// first k positions. Points at equal distances end where its swaps leave them, so this is that
// algorithm step for step; afterwards items[0, k) are the k first in cmp's order, sorted.
// cmp(a, b) is negative, zero or positive as a goes before, with or after b.
template <typename T, typename Cmp>
class PartialQuicksort {
 public:
  PartialQuicksort(std::span<T> items, size_t k, Cmp cmp) : items_(items), k_(k), cmp_(cmp) {}

  void Run() {
    if (k_ == 0) return;
    // The parts yet to sort, [begin, begin + n). Parts are disjoint, so the order they are sorted
    // in changes nothing; the larger of two waits, which bounds the list to log n parts.
    std::vector<std::pair<size_t, size_t>> parts = {{0, items_.size()}};
    while (!parts.empty()) {
      auto [begin, n] = parts.back();
      parts.pop_back();
      Partition(begin, n, &parts);
    }
  }

 private:
  int Compare(size_t i, size_t j) const { return cmp_(items_[i], items_[j]); }
  void Swap(size_t i, size_t j) { std::swap(items_[i], items_[j]); }
  void SwapRanges(size_t i, size_t j, size_t n) {
    for (size_t t = 0; t < n; ++t) Swap(i + t, j + t);
  }
  size_t Median(size_t a, size_t b, size_t c) const {
    if (Compare(a, b) < 0) {
      if (Compare(b, c) < 0) return b;
      return Compare(a, c) < 0 ? c : a;
    }
    if (Compare(b, c) > 0) return b;
    return Compare(a, c) < 0 ? a : c;
  }
  bool Wanted(size_t begin) const { return begin < k_; }

  // Sorts [begin, begin + n) if small, else partitions it and queues the parts that need sorting.
  void Partition(size_t begin, size_t n, std::vector<std::pair<size_t, size_t>>* parts) {
    if (n < 7) {
      for (size_t i = begin + 1; i < begin + n; ++i) {
        for (size_t j = i; j > begin && Compare(j - 1, j) > 0; --j) Swap(j, j - 1);
      }
      return;
    }
    size_t mid = begin + n / 2;
    if (n > 7) {
      size_t lo = begin, hi = begin + n - 1;
      if (n > 40) {
        const size_t d = n / 8;
        lo = Median(lo, lo + d, lo + 2 * d);
        mid = Median(mid - d, mid, mid + d);
        hi = Median(hi - 2 * d, hi - d, hi);
      }
      mid = Median(lo, mid, hi);
    }
    Swap(begin, mid);  // the pivot
    // While partitioning: [begin+1, eq_lo) equal to the pivot, [eq_lo, lo) before it, (hi, eq_hi]
    // after it, (eq_hi, end) equal to it.
    size_t eq_lo = begin + 1, lo = begin + 1;
    size_t hi = begin + n - 1, eq_hi = begin + n - 1;
    for (;;) {
      for (; lo <= hi; ++lo) {
        const int c = Compare(lo, begin);
        if (c > 0) break;
        if (c == 0) Swap(eq_lo++, lo);
      }
      for (; lo <= hi; --hi) {
        const int c = Compare(hi, begin);
        if (c < 0) break;
        if (c == 0) Swap(hi, eq_hi--);
      }
      if (lo > hi) break;
      Swap(lo++, hi--);
    }
    // The equal runs move to the middle.
    const size_t end = begin + n;
    size_t r = std::min(eq_lo - begin, lo - eq_lo);
    SwapRanges(begin, lo - r, r);
    r = std::min(eq_hi - hi, end - eq_hi - 1);
    SwapRanges(lo, end - r, r);
    const size_t before = lo - eq_lo, after = eq_hi - hi;
    std::pair<size_t, size_t> left{begin, before}, right{end - after, after};
    const bool sort_left = before > 1 && Wanted(left.first);
    const bool sort_right = after > 1 && Wanted(right.first);
    if (sort_left && sort_right && left.second < right.second) std::swap(left, right);
    if (sort_left) parts->push_back(left);
    if (sort_right) parts->push_back(right);
  }

  std::span<T> items_;
  size_t k_;
  Cmp cmp_;
};

}  // namespace ordis::server::geo
