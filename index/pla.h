// Piecewise linear models over 64-bit model keys, as PGM builds them (greedy, fixed error bound),
// evaluated in fixed point: DPA-Store's traversers have no FPU, and an integer multiply-shift is
// as fast as a float multiply on the CPU while keeping full 64-bit key precision.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ordis::index {

// position = y0 + ((x - x0) * slope) >> shift, for x >= x0; y0 for x < x0.
struct LinearModel {
  uint64_t x0 = 0;
  uint64_t slope = 0;
  uint32_t y0 = 0;
  uint8_t shift = 0;

  uint64_t Predict(uint64_t x) const {
    if (x <= x0) return y0;
    unsigned __int128 dx = x - x0;
    return y0 + static_cast<uint64_t>((dx * slope) >> shift);
  }
};

// One piece of a segmentation: points [start, start + count) under `model`, whose predictions
// are within `error` of the true first position of each distinct x.
struct Segment {
  size_t start = 0;
  size_t count = 0;
  LinearModel model;
  uint32_t error = 0;
};

// Cuts sorted xs (duplicates allowed: a run of equal x shares the position of its first element)
// into segments whose models predict every position within `max_error`, each at most
// `max_count` long (a run of duplicates longer than that is cut anyway). Models are relative to
// their segment: position 0 is xs[start].
std::vector<Segment> SegmentPla(std::span<const uint64_t> xs, uint32_t max_error, size_t max_count);

// One model over all of xs (the greedy cone when it fits, else the line through the ends), with
// its measured error.
Segment FitOne(std::span<const uint64_t> xs);

}  // namespace ordis::index
