// DPDK's environment abstraction layer (EAL), which the Host View's hash table (rte_hash) needs,
// started once per process. These machines run ordis as root without hugepages or devices:
// `--no-huge --no-pci --no-shconf -l <core> -m <MB>` (--no-shconf lets several servers, or test
// processes, run at once; --in-memory is refused with --no-huge). Measured here: about 170 ms
// to start. When it cannot start, the server runs without the Host View and INFO tiering says
// why.
#pragma once

#include "persistence/status.h"

namespace ordis::offload {

// Starts EAL with `memory_mb` of heap unless it is started already; the first call's outcome
// is every later call's (EAL starts once per process).
persistence::Status StartDpdk(int memory_mb = 256);

}  // namespace ordis::offload
