// Tests' byte strings written as hex (payloads recorded from redis-server, for instance).
#pragma once

#include <string>
#include <string_view>

namespace ordis::base {

// "0a1b" is "\x0a\x1b"; a trailing odd digit is ignored.
inline std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

}  // namespace ordis::base
