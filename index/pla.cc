#include "index/pla.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ordis::index {
namespace {

LinearModel MakeModel(uint64_t x0, long double slope) {
  LinearModel m;
  m.x0 = x0;
  if (!(slope > 0)) return m;
  // Scale so the slope keeps ~62 significant bits; dx * slope then fits in 128 bits.
  int exp = 0;
  std::frexp(static_cast<double>(slope), &exp);  // slope = f * 2^exp, f in [0.5, 1)
  int shift = std::clamp(62 - exp, 0, 127);
  long double scaled = std::ldexp(slope, shift);
  if (scaled >= 18446744073709551615.0L) scaled = 18446744073709551615.0L;
  m.slope = static_cast<uint64_t>(scaled);
  m.shift = static_cast<uint8_t>(shift);
  return m;
}

// Largest |prediction - first position of x| over xs[start, start + count).
uint32_t MeasureError(std::span<const uint64_t> xs, size_t start, size_t count,
                      const LinearModel& m) {
  uint64_t worst = 0;
  for (size_t i = 0; i < count; ++i) {
    if (i > 0 && xs[start + i] == xs[start + i - 1]) continue;
    uint64_t p = m.Predict(xs[start + i]);
    uint64_t d = p > i ? p - i : i - p;
    worst = std::max(worst, d);
  }
  return static_cast<uint32_t>(std::min<uint64_t>(worst, std::numeric_limits<uint32_t>::max()));
}

// The greedy shrinking cone (FITing-tree / PGM's greedy variant) from xs[start]: extends while
// some slope through (x0, 0) keeps every distinct x within max_error of its first position.
// Returns how many points it covers and the cone's middle slope.
size_t Cone(std::span<const uint64_t> xs, size_t start, uint32_t max_error, size_t max_count,
            long double* slope) {
  const uint64_t x0 = xs[start];
  long double lo = 0, hi = std::numeric_limits<long double>::infinity();
  size_t i = 1;
  const size_t limit = std::min(max_count, xs.size() - start);
  for (; i < limit; ++i) {
    uint64_t x = xs[start + i];
    if (x == xs[start + i - 1]) continue;
    long double dx = static_cast<long double>(x - x0);
    long double y = static_cast<long double>(i);
    long double l = (y - max_error) / dx, h = (y + max_error) / dx;
    long double nlo = std::max(lo, l), nhi = std::min(hi, h);
    if (nlo > nhi) break;
    lo = nlo;
    hi = nhi;
  }
  *slope = std::isinf(hi) ? lo : (lo + hi) / 2;
  return i;
}

}  // namespace

std::vector<Segment> SegmentPla(std::span<const uint64_t> xs, uint32_t max_error,
                                size_t max_count) {
  std::vector<Segment> out;
  max_count = std::max<size_t>(max_count, 1);
  for (size_t start = 0; start < xs.size();) {
    long double slope;
    size_t n = Cone(xs, start, max_error, max_count, &slope);
    Segment s;
    s.start = start;
    s.count = n;
    s.model = MakeModel(xs[start], slope);
    s.error = MeasureError(xs, start, n, s.model);
    out.push_back(s);
    start += n;
  }
  return out;
}

Segment FitOne(std::span<const uint64_t> xs) {
  Segment s;
  s.count = xs.size();
  if (xs.empty()) return s;
  // The tightest cone that covers everything, else the line through the ends.
  long double slope = 0;
  bool covered = false;
  for (uint32_t bound : {1u, 4u, 16u, 64u}) {
    if (Cone(xs, 0, bound, xs.size(), &slope) == xs.size()) {
      covered = true;
      break;
    }
  }
  if (!covered) {
    uint64_t span = xs.back() - xs.front();
    slope = span == 0 ? 0 : static_cast<long double>(xs.size() - 1) / span;
  }
  s.model = MakeModel(xs.front(), slope);
  s.error = MeasureError(xs, 0, xs.size(), s.model);
  return s;
}

}  // namespace ordis::index
