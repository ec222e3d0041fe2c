#include "offload/dpdk.h"

#include <rte_eal.h>
#include <rte_errno.h>

#include <mutex>
#include <string>
#include <thread>
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
    // On a thread of its own: EAL pins the thread that starts it to its main core (every thread
    // started after would inherit that), and its own fixed structures, about 2 MB of heap
    // (measured: used_memory 0.7 MB -> 2.7 MB at start-up), stay out of used_memory, as its heap
    // (an anonymous mapping) is: they are the library's, not data maxmemory bounds.
    std::thread([&] {
      if (rte_eal_init(static_cast<int>(args.size()), argv.data()) < 0) {
        outcome = persistence::Status::Error(std::string("DPDK EAL did not start: ") +
                                             rte_strerror(rte_errno));
      }
    }).join();
  });
  return outcome;
}

}  // namespace ordis::offload
