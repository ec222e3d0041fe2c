#include "base/clock.h"

#include <time.h>

#include <chrono>

namespace ordis {

int64_t NowMs() { return NowUs() / 1000; }

int64_t NowUs() {
  using namespace std::chrono;
  return duration_cast<microseconds>(system_clock::now().time_since_epoch()).count();
}

int64_t CoarseNowMs() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace ordis
