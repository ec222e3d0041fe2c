// ordis-server [/path/to/ordis.conf] [--name value ...]
#include <cstdio>
#include <cstring>
#include <memory>

#include "base/logging.h"
#include "base/memory.h"
#include "server/config/config.h"
#include "server/server.h"

int main(int argc, char** argv) {
  using ordis::server::Config;
  ordis::base::MemoryAccountedThread accounted;
  ordis::base::StartAllocatorBackgroundPurge();
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(Config::Help().c_str(), stdout);
      return 0;
    }
    if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-v") == 0) {
      std::puts("ordis-server v=0.1.0 (Redis protocol 7.0 compatible)");
      return 0;
    }
  }
  auto config = std::make_unique<Config>();
  try {
    config->LoadCommandLine(argc, argv);
  } catch (const ordis::server::ConfigError& e) {
    ordis::log::Warning("Fatal config error: {}", e.what());
    return 1;
  }
  // As Redis: "" logs to standard output; a file that cannot be opened stops the start.
  if (std::string error; !ordis::log::SetFile(config->Value("logfile"), &error)) {
    ordis::log::Warning("Can't open the log file: {}", error);
    return 1;
  }
  ordis::server::Server server(std::move(config));
  return server.Run();
}
