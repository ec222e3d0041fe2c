#include "base/split_args.h"

namespace ordis {
namespace {

// isspace() in the C locale, without its locale lookup and its undefined behaviour for bytes
// above 0x7f (which are never spaces).
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

}  // namespace

bool SplitArgsInto(std::string_view line, std::vector<std::string>* words, size_t* count) {
  // A transcription of sdssplitargs, which walks a NUL-terminated string: here reading at or past
  // the end yields '\0'.
  size_t& n = *count;
  n = 0;
  const char* p = line.data();
  const char* const end = p + line.size();
  auto at = [end](const char* q) { return q < end ? *q : '\0'; };
  while (true) {
    while (p < end && IsSpace(*p)) ++p;
    if (p == end) return true;
    if (n == words->size()) words->emplace_back();
    std::string& current = (*words)[n++];
    current.clear();
    bool in_double_quotes = false;
    bool in_single_quotes = false;
    bool done = false;
    while (!done) {
      const char c = at(p);
      if (in_double_quotes) {
        if (c == '\\' && at(p + 1) == 'x' && IsHexDigit(at(p + 2)) && IsHexDigit(at(p + 3))) {
          current.push_back(static_cast<char>(HexDigitValue(p[2]) * 16 + HexDigitValue(p[3])));
          p += 3;
        } else if (c == '\\' && at(p + 1) != '\0') {
          ++p;
          switch (*p) {
            case 'n':
              current.push_back('\n');
              break;
            case 'r':
              current.push_back('\r');
              break;
            case 't':
              current.push_back('\t');
              break;
            case 'b':
              current.push_back('\b');
              break;
            case 'a':
              current.push_back('\a');
              break;
            default:
              current.push_back(*p);
              break;
          }
        } else if (c == '"') {
          // A closing quote must be followed by a space or the end of the line.
          if (at(p + 1) != '\0' && !IsSpace(at(p + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;  // unterminated quotes
        } else {
          current.push_back(c);
        }
      } else if (in_single_quotes) {
        if (c == '\\' && at(p + 1) == '\'') {
          ++p;
          current.push_back('\'');
        } else if (c == '\'') {
          if (at(p + 1) != '\0' && !IsSpace(at(p + 1))) return false;
          done = true;
        } else if (c == '\0') {
          return false;
        } else {
          current.push_back(c);
        }
      } else {
        // Unlike the blank skipping above, a token ends only at these: "a\vb" is one argument.
        switch (c) {
          case ' ':
          case '\n':
          case '\r':
          case '\t':
          case '\0':
            done = true;
            break;
          case '"':
            in_double_quotes = true;
            break;
          case '\'':
            in_single_quotes = true;
            break;
          default:
            current.push_back(c);
            break;
        }
      }
      if (p < end) ++p;
    }
  }
}

bool SplitArgs(std::string_view line, std::vector<std::string>* words) {
  size_t count = 0;
  const bool ok = SplitArgsInto(line, words, &count);
  words->resize(count);
  return ok;
}

}  // namespace ordis
