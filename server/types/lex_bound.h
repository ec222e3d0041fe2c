// ZRANGEBYLEX-style bounds, shared by KRANGE/KCOUNT and the sorted-set lex commands:
// "[a" inclusive, "(a" exclusive, "-" below everything, "+" above everything.
#pragma once

#include <string_view>

namespace ordis::server {

struct LexBound {
  enum Kind { kMinusInf, kPlusInf, kInclusive, kExclusive } kind = kMinusInf;
  std::string_view key;  // a view into the argument it was parsed from

  // True iff key lies on the allowed side of this bound when it is the lower bound.
  bool AllowsAsMin(std::string_view k) const {
    switch (kind) {
      case kMinusInf:
        return true;
      case kPlusInf:
        return false;
      case kInclusive:
        return k >= key;
      case kExclusive:
        return k > key;
    }
    return false;
  }
  // True iff key lies on the allowed side of this bound when it is the upper bound.
  bool AllowsAsMax(std::string_view k) const {
    switch (kind) {
      case kMinusInf:
        return false;
      case kPlusInf:
        return true;
      case kInclusive:
        return k <= key;
      case kExclusive:
        return k < key;
    }
    return false;
  }
};

// Returns false for anything but "-", "+", "[..." or "(...".
inline bool ParseLexBound(std::string_view arg, LexBound* out) {
  if (arg.empty()) return false;
  switch (arg[0]) {
    case '-':
      if (arg.size() != 1) return false;
      out->kind = LexBound::kMinusInf;
      return true;
    case '+':
      if (arg.size() != 1) return false;
      out->kind = LexBound::kPlusInf;
      return true;
    case '[':
      out->kind = LexBound::kInclusive;
      out->key = arg.substr(1);
      return true;
    case '(':
      out->kind = LexBound::kExclusive;
      out->key = arg.substr(1);
      return true;
  }
  return false;
}

}  // namespace ordis::server
