#include "offload/dpdk.h"

#include <rte_eal.h>
#include <rte_errno.h>
#include <sched.h>

#include <mutex>
#include <string>
#include <vector>

namespace ordis::offload {

persistence::Status StartDpdk(int memory_mb) {
  static std::once_flag once;
  static persistence::Status outcome = persistence::Status::Ok();
  std::call_once(once, [memory_mb] {
    std::vector<std::string> args = {"ordis", "--no-huge", "--no-pci", "--no-shconf", "-l", "0",
                                     "-m", std::to_string(memory_mb), "--no-telemetry",
                                     // EAL's notices would go to standard output.
                                     "--log-level", "*:error"};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // EAL pins the calling thread to its main core, and every thread started after it would
    // inherit that: the server's threads keep the cores they had.
    cpu_set_t cores;
    const bool saved = sched_getaffinity(0, sizeof(cores), &cores) == 0;
    if (rte_eal_init(static_cast<int>(args.size()), argv.data()) < 0) {
      outcome = persistence::Status::Error(std::string("DPDK EAL did not start: ") +
                                           rte_strerror(rte_errno));
    }
    if (saved) sched_setaffinity(0, sizeof(cores), &cores);
  });
  return outcome;
}

}  // namespace ordis::offload
