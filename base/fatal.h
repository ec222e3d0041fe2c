// Stops the process on a state that must be impossible (a bug, never input), saying why.
#pragma once

#include <string_view>

namespace ordis {

// Writes message to standard error and, once the log is set up (base/logging.h), to the log as a
// warning; then aborts.
[[noreturn]] void Fatal(std::string_view message);

// Installed by the log: where Fatal's message also goes.
void SetFatalLog(void (*log)(std::string_view message));

}  // namespace ordis
