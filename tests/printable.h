// Test support: binary keys in assertion messages, non-printable bytes as \xHH.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace ordis::test_support {

inline std::string Printable(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace ordis::test_support
