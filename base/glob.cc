#include "base/glob.h"

#include <cctype>

namespace ordis {
namespace {

// Mirrors stringmatchlen_impl, including its nesting bound (a pattern with many '*' cannot make
// matching exponential) and the skip_longer_matches short-cut.
bool Match(const char* p, size_t plen, const char* s, size_t slen, bool nocase, bool* skip_longer,
           int nesting) {
  if (nesting > 1000) return false;
  auto fold = [nocase](char c) {
    return nocase ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : c;
  };
  while (plen && slen) {
    switch (p[0]) {
      case '*':
        while (plen > 1 && p[1] == '*') {
          ++p;
          --plen;
        }
        if (plen == 1) return true;
        while (slen) {
          if (Match(p + 1, plen - 1, s, slen, nocase, skip_longer, nesting + 1)) return true;
          if (*skip_longer) return false;
          ++s;
          --slen;
        }
        *skip_longer = true;
        return false;
      case '?':
        ++s;
        --slen;
        break;
      case '[': {
        ++p;
        --plen;
        bool negate = plen && p[0] == '^';
        if (negate) {
          ++p;
          --plen;
        }
        bool matched = false;
        while (true) {
          if (plen && p[0] == '\\' && plen >= 2) {
            ++p;
            --plen;
            if (p[0] == s[0]) matched = true;
          } else if (plen && p[0] == ']') {
            break;
          } else if (plen == 0) {
            --p;
            ++plen;
            break;
          } else if (plen >= 3 && p[1] == '-') {
            unsigned char start = static_cast<unsigned char>(fold(p[0]));
            unsigned char end = static_cast<unsigned char>(fold(p[2]));
            unsigned char c = static_cast<unsigned char>(fold(s[0]));
            if (start > end) std::swap(start, end);
            p += 2;
            plen -= 2;
            if (c >= start && c <= end) matched = true;
          } else if (fold(p[0]) == fold(s[0])) {
            matched = true;
          }
          ++p;
          --plen;
        }
        if (negate) matched = !matched;
        if (!matched) return false;
        ++s;
        --slen;
        break;
      }
      case '\\':
        if (plen >= 2) {
          ++p;
          --plen;
        }
        [[fallthrough]];
      default:
        if (fold(p[0]) != fold(s[0])) return false;
        ++s;
        --slen;
        break;
    }
    ++p;
    --plen;
    if (slen == 0) {
      while (plen && *p == '*') {
        ++p;
        --plen;
      }
      break;
    }
  }
  return plen == 0 && slen == 0;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase) {
  // Redis's KEYS and SCAN treat a lone "*" as match-all, which also covers the empty key.
  if (pattern == "*") return true;
  bool skip_longer = false;
  return Match(pattern.data(), pattern.size(), str.data(), str.size(), nocase, &skip_longer, 0);
}

std::string_view GlobLiteralPrefix(std::string_view pattern) {
  size_t i = 0;
  while (i < pattern.size()) {
    char c = pattern[i];
    if (c == '*' || c == '?' || c == '[' || c == '\\') break;
    ++i;
  }
  return pattern.substr(0, i);
}

}  // namespace ordis
