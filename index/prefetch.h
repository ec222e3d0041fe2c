// Starting the loads of a byte range: every cache line it overlaps, its first and last too when
// they are only partly in it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ordis::index {

inline void PrefetchLines(const void* p, size_t bytes) {
  if (bytes == 0) return;
  constexpr uintptr_t kLine = 64;
  const uintptr_t first = reinterpret_cast<uintptr_t>(p) & ~(kLine - 1);
  const uintptr_t last = reinterpret_cast<uintptr_t>(p) + bytes - 1;
  for (uintptr_t line = first; line <= last; line += kLine) {
    __builtin_prefetch(reinterpret_cast<const void*>(line));
  }
}

}  // namespace ordis::index
