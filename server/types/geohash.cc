#include "server/types/geohash.h"

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace ordis::server::geo {
namespace {

// Redis's constants, bit for bit: the degree-to-radian factor is the double nearest pi/180, and
// distances are on the earth's quadratic mean radius.
constexpr double kDegToRad = M_PI / 180.0;
constexpr double kEarthRadiusM = 6372797.560856;
// Half the equator's length on the Mercator projection: the largest radius a step estimate knows.
constexpr double kMercatorMaxM = 20037726.37;

constexpr uint64_t kEvenBits = 0x5555555555555555ULL;  // latitude
constexpr uint64_t kOddBits = 0xaaaaaaaaaaaaaaaaULL;   // longitude

double DegToRad(double deg) { return deg * kDegToRad; }
double RadToDeg(double rad) { return rad / kDegToRad; }

// The 32 bits of v at the even positions of the result.
uint64_t Spread(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000ffff0000ffffULL;
  x = (x | (x << 8)) & 0x00ff00ff00ff00ffULL;
  x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0fULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & kEvenBits;
  return x;
}

// The inverse: the bits at the even positions of v, packed.
uint32_t Compact(uint64_t v) {
  uint64_t x = v & kEvenBits;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0f0f0f0f0f0f0f0fULL;
  x = (x | (x >> 4)) & 0x00ff00ff00ff00ffULL;
  x = (x | (x >> 8)) & 0x0000ffff0000ffffULL;
  x = (x | (x >> 16)) & 0x00000000ffffffffULL;
  return static_cast<uint32_t>(x);
}

// x86-64's cvttsd2si: truncation, and INT64_MIN for anything out of range.
int64_t TruncateToInt64(double v) {
  constexpr double k2p63 = 9223372036854775808.0;
  if (v >= -k2p63 && v < k2p63) return static_cast<int64_t>(v);
  return INT64_MIN;
}

// A cell's bits below its size: all latitude (even) or longitude (odd) positions of step bits.
uint64_t CellMask(uint64_t positions, int step) { return positions >> (64 - 2 * step); }

// Moves a cell one place along one coordinate (dir +1 or -1), the other coordinate's bits kept as
// they are. The moved coordinate's bits are one counter spread over every other position: filling
// the gaps between them with ones lets a carry or borrow run through, and the mask drops it past
// the top, so the move wraps around.
Cell Move(Cell cell, uint64_t moved_positions, int dir) {
  const uint64_t kept_positions = ~moved_positions;
  const uint64_t gaps = CellMask(kept_positions, cell.step);
  uint64_t moved = cell.bits & moved_positions;
  if (dir > 0) {
    moved += gaps + 1;
  } else {
    moved = (moved | gaps) - (gaps + 1);
  }
  moved &= CellMask(moved_positions, cell.step);
  return {moved | (cell.bits & kept_positions), cell.step};
}

Cell MoveLon(Cell cell, int dir) { return Move(cell, kOddBits, dir); }
Cell MoveLat(Cell cell, int dir) { return Move(cell, kEvenBits, dir); }

double LatDistance(double lat1_r, double lat2_r) {
  return kEarthRadiusM * std::fabs(lat2_r - lat1_r);
}

// Redis's haversine on coordinates in radians, for longitudes that differ: v is the sine of half
// their difference (nonzero), cos_lat1 and cos_lat2 the cosines of the latitudes (a search computes
// its centre's once: the same value). Equal longitudes take LatDistance instead, as in Redis.
double GreatCircle(double v, double lat1_r, double lat2_r, double cos_lat1, double cos_lat2) {
  const double u = std::sin((lat2_r - lat1_r) / 2);
  const double a = u * u + cos_lat1 * cos_lat2 * v * v;
  return 2.0 * kEarthRadiusM * std::asin(std::sqrt(a));
}

// The sine GreatCircle takes, from point 1 to point 2.
double HalfLonSine(double lon1_r, double lon2_r) { return std::sin((lon2_r - lon1_r) / 2); }

// The search's bounding box: [min lon, min lat, max lon, max lat]. Its longitude span is the
// width at the latitude nearest the pole (Redis's approximation of the circle's extent).
std::array<double, 4> BoundingBox(const Shape& shape) {
  const bool radius = shape.kind == Shape::Kind::kRadius;
  const double height = shape.conversion * (radius ? shape.radius : shape.height / 2);
  const double width = shape.conversion * (radius ? shape.radius : shape.width / 2);
  const double lon = shape.center.lon, lat = shape.center.lat;
  const double lat_delta = RadToDeg(height / kEarthRadiusM);
  const double edge_lat = lat < 0 ? lat - lat_delta : lat + lat_delta;
  const double lon_delta = RadToDeg(width / kEarthRadiusM / std::cos(DegToRad(edge_lat)));
  return {lon - lon_delta, lat - lat_delta, lon + lon_delta, lat + lat_delta};
}

}  // namespace

bool ValidPosition(Point p) {
  return !(p.lon < kLonMin || p.lon > kLonMax || p.lat < kLatMin || p.lat > kLatMax);
}

bool Encode(Interval lon_range, Interval lat_range, Point p, int step, Cell* out) {
  if (step < 1 || step > 32 || !ValidPosition(p)) return false;
  if (p.lat < lat_range.min || p.lat > lat_range.max || p.lon < lon_range.min ||
      p.lon > lon_range.max) {
    return false;
  }
  const double cells = static_cast<double>(uint64_t{1} << step);
  const double lat_offset = (p.lat - lat_range.min) / (lat_range.max - lat_range.min) * cells;
  const double lon_offset = (p.lon - lon_range.min) / (lon_range.max - lon_range.min) * cells;
  // Narrowed to 32 bits as Redis narrows them: at the top of a range the offset is 2^step, one
  // bit above the cell's.
  const auto lat_bits = static_cast<uint32_t>(static_cast<int64_t>(lat_offset));
  const auto lon_bits = static_cast<uint32_t>(static_cast<int64_t>(lon_offset));
  *out = {Spread(lat_bits) | (Spread(lon_bits) << 1), step};
  return true;
}

uint64_t ScoreBits(Point p) {
  Cell cell;
  if (!Encode(kLonRange, kLatRange, p, kMaxStep, &cell)) return 0;
  return cell.bits;
}

namespace {

// One coordinate's bounds in a cell, from its bits: the cell's index along the axis, of 2^step.
// Dividing by 2^step is multiplying by its inverse, exactly.
Interval DecodeAxis(uint32_t index, double inverse_cells, Interval range) {
  const double scale = range.max - range.min;
  // The upper bound's index is a 32-bit sum in Redis, so it wraps to 0 for the top index.
  const uint32_t next = index + 1;
  return {range.min + (index * 1.0 * inverse_cells) * scale,
          range.min + (next * 1.0 * inverse_cells) * scale};
}

double InverseCells(int step) { return 1.0 / static_cast<double>(uint64_t{1} << step); }

// The centre of a bound, clamped to [lo, hi].
double Middle(Interval bounds, double lo, double hi) {
  double v = (bounds.min + bounds.max) / 2;
  if (v > hi) v = hi;
  if (v < lo) v = lo;
  return v;
}

}  // namespace

Area Decode(Interval lon_range, Interval lat_range, Cell cell) {
  const double inverse_cells = InverseCells(cell.step);
  return {DecodeAxis(Compact(cell.bits >> 1), inverse_cells, lon_range),
          DecodeAxis(Compact(cell.bits), inverse_cells, lat_range)};
}

uint64_t BitsOfScore(double score) {
  // How gcc converts a double to uint64_t on x86-64: directly below 2^63, else offset by 2^63.
  constexpr double k2p63 = 9223372036854775808.0;
  if (!(score >= k2p63)) return static_cast<uint64_t>(TruncateToInt64(score));
  return static_cast<uint64_t>(TruncateToInt64(score - k2p63)) ^ (uint64_t{1} << 63);
}

double DecodeLatitude(double score) {
  const uint32_t index = Compact(BitsOfScore(score));
  return Middle(DecodeAxis(index, InverseCells(kMaxStep), kLatRange), kLatMin, kLatMax);
}

double DecodeLongitude(double score) {
  const uint32_t index = Compact(BitsOfScore(score) >> 1);
  return Middle(DecodeAxis(index, InverseCells(kMaxStep), kLonRange), kLonMin, kLonMax);
}

Point DecodeScore(double score) { return {DecodeLongitude(score), DecodeLatitude(score)}; }

std::array<char, 11> StandardGeohash(double score) {
  static constexpr char kAlphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
  Cell cell;
  if (!Encode(kLonRange, kStandardLatRange, DecodeScore(score), kMaxStep, &cell)) cell.bits = 0;
  std::array<char, 11> out;
  // 52 bits make 10 characters and 2 bits; the 11th character is always '0', as in Redis.
  for (int i = 0; i < 10; ++i) out[i] = kAlphabet[(cell.bits >> (52 - (i + 1) * 5)) & 0x1f];
  out[10] = kAlphabet[0];
  return out;
}

double Distance(Point a, Point b) {
  const double lat1_r = DegToRad(a.lat), lat2_r = DegToRad(b.lat);
  const double v = HalfLonSine(DegToRad(a.lon), DegToRad(b.lon));
  if (v == 0.0) return LatDistance(lat1_r, lat2_r);
  return GreatCircle(v, lat1_r, lat2_r, std::cos(lat1_r), std::cos(lat2_r));
}

Neighbours NeighboursOf(Cell cell) {
  Neighbours n;
  n.east = MoveLon(cell, 1);
  n.west = MoveLon(cell, -1);
  n.north = MoveLat(cell, 1);
  n.south = MoveLat(cell, -1);
  n.north_east = MoveLat(MoveLon(cell, 1), 1);
  n.north_west = MoveLat(MoveLon(cell, -1), 1);
  n.south_east = MoveLat(MoveLon(cell, 1), -1);
  n.south_west = MoveLat(MoveLon(cell, -1), -1);
  return n;
}

int EstimateStep(double radius_m, double lat) {
  if (radius_m == 0) return kMaxStep;
  int step = 1;
  while (radius_m < kMercatorMaxM) {
    radius_m *= 2;
    ++step;
  }
  step -= 2;  // so that the radius fits in most cases
  // Cells narrow towards the poles.
  if (lat > 66 || lat < -66) {
    --step;
    if (lat > 80 || lat < -80) --step;
  }
  if (step < 1) step = 1;
  if (step > kMaxStep) step = kMaxStep;
  return step;
}

std::array<Cell, 9> CoveringCells(const Shape& shape) {
  const std::array<double, 4> bounds = BoundingBox(shape);
  const double min_lon = bounds[0], min_lat = bounds[1], max_lon = bounds[2], max_lat = bounds[3];
  double radius_m = shape.radius;
  if (shape.kind == Shape::Kind::kBox) {
    // The box's half diagonal.
    radius_m =
        std::sqrt((shape.width / 2) * (shape.width / 2) + (shape.height / 2) * (shape.height / 2));
  }
  radius_m *= shape.conversion;
  int step = EstimateStep(radius_m, shape.center.lat);

  Cell center;
  Neighbours n;
  Area area;
  auto cover_at = [&](int s) {
    Encode(kLonRange, kLatRange, shape.center, s, &center);
    n = NeighboursOf(center);
    area = Decode(kLonRange, kLatRange, center);
  };
  cover_at(step);
  // Near the edge of its cell the shape can reach past a neighbour: one step coarser then.
  const bool too_fine = Decode(kLonRange, kLatRange, n.north).lat.max < max_lat ||
                        Decode(kLonRange, kLatRange, n.south).lat.min > min_lat ||
                        Decode(kLonRange, kLatRange, n.east).lon.max < max_lon ||
                        Decode(kLonRange, kLatRange, n.west).lon.min > min_lon;
  if (step > 1 && too_fine) cover_at(--step);

  // Neighbours on a side the bounding box does not reach past the centre's cell are left out.
  if (step >= 2) {
    if (area.lat.min < min_lat) n.south = n.south_west = n.south_east = Cell{};
    if (area.lat.max > max_lat) n.north = n.north_east = n.north_west = Cell{};
    if (area.lon.min < min_lon) n.west = n.south_west = n.north_west = Cell{};
    if (area.lon.max > max_lon) n.east = n.south_east = n.north_east = Cell{};
  }
  return {center,       n.north,      n.south,      n.east,      n.west,
          n.north_east, n.north_west, n.south_east, n.south_west};
}

Interval ScoreRange(Cell cell) {
  const int shift = 52 - 2 * cell.step;
  return {static_cast<double>(cell.bits << shift), static_cast<double>((cell.bits + 1) << shift)};
}

bool CellToWalk(const std::array<Cell, 9>& cells, size_t i, size_t last) {
  if (cells[i].none()) return false;
  return last == 0 || !(cells[i] == cells[last]);
}

ShapeTest::ShapeTest(const Shape& shape)
    : shape_(shape),
      lon_r_(DegToRad(shape.center.lon)),
      lat_r_(DegToRad(shape.center.lat)),
      cos_lat_(std::cos(lat_r_)),
      radius_m_(shape.radius * shape.conversion),
      half_width_m_(shape.width * shape.conversion / 2),
      half_height_m_(shape.height * shape.conversion / 2) {
  // How far in longitude a point of the shape can be, on the sphere, widened by a margin far above
  // rounding; no bound when the shape may reach a pole. A circle of angular radius r around
  // latitude c spans asin(sin r / cos c) either side. A point the box keeps is within its half
  // height of the centre's latitude, so its parallel's cosine is at least that of the band's edge
  // nearest a pole, c', and along the parallel it lies within the half width w:
  // 2 R asin(cos(lat) sin(dlon / 2)) <= w bounds dlon by 2 asin(w / (2 R cos c')).
  constexpr double kMargin = 1 + 1e-7;
  constexpr double kHalfPi = M_PI / 2;
  double limit_r = INFINITY;
  if (shape.kind == Shape::Kind::kRadius) {
    const double r = radius_m_ / kEarthRadiusM * kMargin;
    if (r + std::fabs(lat_r_) < kHalfPi) limit_r = std::asin(std::sin(r) / cos_lat_);
  } else {
    const double edge = std::fabs(lat_r_) + half_height_m_ / kEarthRadiusM * kMargin;
    if (edge < kHalfPi) {
      const double x = half_width_m_ / (2 * kEarthRadiusM * std::cos(edge)) * kMargin;
      if (x < 1) limit_r = 2 * std::asin(x);
    }
  }
  lon_limit_ = RadToDeg(limit_r) * kMargin + 1e-9;
}

double ShapeTest::LowerBound(double lat) const {
  // The distance along the meridian: the great circle is never shorter. The computed haversine
  // can fall short of the true distance by rounding only, far less than the margin; below a
  // millimetre (where an underflow could make it 0) there is no bound.
  const double along_meridian = kEarthRadiusM * std::fabs(DegToRad(lat) - lat_r_);
  return along_meridian > 1e-3 ? along_meridian * (1 - 1e-7) : 0;
}

bool ShapeTest::Contains(Point p, double* distance) const {
  const double lat_r = DegToRad(p.lat), lon_r = DegToRad(p.lon);
  const bool radius = shape_.kind == Shape::Kind::kRadius;
  // Cheap rejections first, each of points the test below would reject too: the box's own first
  // test (the latitude's distance), the meridian's bound for a circle, the longitude's span.
  if (radius ? LowerBound(p.lat) > radius_m_ : LatDistance(lat_r, lat_r_) > half_height_m_) {
    return false;
  }
  double lon_gap = std::fabs(p.lon - shape_.center.lon);
  if (lon_gap > 180) lon_gap = 360 - lon_gap;
  if (lon_gap > lon_limit_) return false;

  const double v = HalfLonSine(lon_r_, lon_r);
  double cos_lat = 0;
  bool have_cos = false;  // computed only when the longitudes differ
  if (!radius) {
    // The longitude's distance along the point's parallel, from the point towards the centre as
    // Redis measures it.
    const double v_back = HalfLonSine(lon_r, lon_r_);
    if (v_back != 0.0) {
      cos_lat = std::cos(lat_r);
      have_cos = true;
      if (GreatCircle(v_back, lat_r, lat_r, cos_lat, cos_lat) > half_width_m_) return false;
    }
  }
  double d;
  if (v == 0.0) {
    d = LatDistance(lat_r_, lat_r);
  } else {
    if (!have_cos) cos_lat = std::cos(lat_r);
    d = GreatCircle(v, lat_r_, lat_r, cos_lat_, cos_lat);
  }
  if (radius && d > radius_m_) return false;
  *distance = d;
  return true;
}

}  // namespace ordis::server::geo
