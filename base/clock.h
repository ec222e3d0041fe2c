// The server's clocks: Redis's notion of "now" is unix time, read once per command.
#pragma once

#include <cstdint>

namespace ordis {

// Current unix time in milliseconds / microseconds.
int64_t NowMs();
int64_t NowUs();
// Unix time in milliseconds from the kernel's coarse clock (a few ms of resolution, no TSC read):
// for idle bookkeeping on every read.
int64_t CoarseNowMs();

}  // namespace ordis
