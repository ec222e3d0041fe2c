// Test support shared by map_store_test.cc and learned_store_test.cc: random keys by shape, scans
// collected into vectors, scan bounds near keys, and the key scheme of the concurrent tests.
// Each generator draws from the Rng in a fixed order: the tests' seeds depend on it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "index/ordered_store.h"

namespace ordis::index::test_support {

using Rng = std::mt19937_64;

// The expected contents: std::map orders std::string by unsigned bytes, as memcmp does.
using Model = std::map<std::string, ValueHandle>;

// Uniform in [0, n).
inline uint64_t Uniform(Rng& rng, uint64_t n) {
  return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng);
}

// 8 bytes, most significant first: keys that order as the integers do.
inline std::string BigEndian64(uint64_t v) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i) {
    out[i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Key shapes. Each test file's KeyGen builds its own Binary16 pool and Adversarial keys, aimed at
// what its store compares (MapStore's 24-byte prefixes, the learned store's first 8 bytes).

// The seeds mix in the numeric value: renumbering changes every shape's keys.
enum class Shape { kUserIds, kBinary16, kUrlLike, kAdversarial };

// Every shape, in the order the parameterized tests list them.
inline constexpr Shape kShapes[] = {Shape::kUserIds, Shape::kBinary16, Shape::kUrlLike,
                                    Shape::kAdversarial};

// The name in the parameterized tests' names.
inline const char* ShapeName(Shape s) {
  switch (s) {
    case Shape::kUserIds:
      return "UserIds";
    case Shape::kBinary16:
      return "Binary16";
    case Shape::kUrlLike:
      return "UrlLike";
    case Shape::kAdversarial:
      return "Adversarial";
  }
  return "?";
}

// "user:" and one of 30000 numbers, zero-padded to 12 digits.
inline std::string RandomUserId(Rng& rng) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "user:%012d", static_cast<int>(Uniform(rng, 30000)));
  return buf;
}

// A URL from a few hosts and path segments, some of them prefixes of others.
inline std::string RandomUrl(Rng& rng) {
  static const char* kHosts[] = {"a.com", "example.com", "example.co", "example.com.au", "x.io"};
  static const char* kSegments[] = {"",       "api",           "v1",    "v2",
                                    "users",  "user",          "items", "i",
                                    "static", "static-assets", "img",   "index.html"};
  std::string k = Uniform(rng, 3) == 0 ? "http://" : "https://";
  k += kHosts[Uniform(rng, std::size(kHosts))];
  int depth = static_cast<int>(Uniform(rng, 5));
  for (int i = 0; i < depth; ++i) {
    k += '/';
    k += kSegments[Uniform(rng, std::size(kSegments))];
  }
  if (Uniform(rng, 2) == 0) {
    k += '/';
    k += std::to_string(Uniform(rng, 500));
  }
  if (Uniform(rng, 4) == 0) {
    k += "?q=";
    k += std::to_string(Uniform(rng, 50));
  }
  return k;
}

// One of the bytes at the edges of comparisons: 00, 01, 'a', 7f, 80 (signed vs unsigned), ff.
inline char RandomTailByte(Rng& rng) {
  static const char kTail[] = {'\0', '\x01', 'a', '\x7f', '\x80', '\xff'};
  return kTail[Uniform(rng, std::size(kTail))];
}

// 0 to max_len edge bytes, to append to a shared prefix.
inline std::string RandomTail(Rng& rng, size_t max_len) {
  std::string t;
  size_t n = Uniform(rng, max_len + 1);
  for (size_t i = 0; i < n; ++i) t.push_back(RandomTailByte(rng));
  return t;
}

// ---------------------------------------------------------------------------------------------
// Scans and their bounds.

// One entry a scan visited.
struct Visit {
  std::string key;
  ValueHandle value;
  bool operator==(const Visit&) const = default;
};

// The first `limit` entries a scan visits, in its order; none for limit 0.
inline std::vector<Visit> ScanN(const OrderedStore& store, const ScanStart& start, Direction dir,
                                size_t limit) {
  std::vector<Visit> out;
  if (limit == 0) return out;
  store.Scan(start, dir, [&](std::string_view k, ValueHandle v) {
    out.push_back({std::string(k), v});
    return out.size() < limit;
  });
  return out;
}

// `k`, or two times in three `k` nudged to fall just before or after it: a trailing zero byte,
// the last byte dropped, the last byte +-1.
inline std::string NudgedBound(Rng& rng, std::string k) {
  switch (Uniform(rng, 6)) {
    case 0:
      k.push_back('\0');
      break;
    case 1:
      if (!k.empty()) k.pop_back();
      break;
    case 2:
      if (!k.empty()) k.back() = static_cast<char>(k.back() + 1);
      break;
    case 3:
      if (!k.empty()) k.back() = static_cast<char>(k.back() - 1);
      break;
    default:
      break;
  }
  return k;
}

// Every key, and every key with a byte added (00 or ff), removed or changed (last byte +-1).
inline std::vector<std::string> BoundsAround(const std::vector<std::string>& keys) {
  std::vector<std::string> bounds;
  for (const std::string& k : keys) {
    bounds.push_back(k);
    bounds.push_back(k + std::string(1, '\0'));
    bounds.push_back(k + "\xff");
    if (!k.empty()) {
      bounds.push_back(k.substr(0, k.size() - 1));
      std::string up = k, down = k;
      up.back() = static_cast<char>(up.back() + 1);
      down.back() = static_cast<char>(down.back() - 1);
      bounds.push_back(up);
      bounds.push_back(down);
    }
  }
  return bounds;
}

// ---------------------------------------------------------------------------------------------
// Keys of the concurrent tests. They interleave: "k000123:s" is stable (present throughout, never
// modified), "k000123:w<t>" is owned by writer t. A value encodes its key so readers can check
// they got the right one.

// The stable key numbered i.
inline std::string StableKey(int i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "k%06d:s", i);
  return buf;
}

// Writer `writer`'s key numbered i.
inline std::string WriterKey(int i, int writer) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "k%06d:w%d", i, writer);
  return buf;
}

// Value for (i, owner) where owner 0 is the stable set and t+1 is writer t; `version` changes on
// each rewrite.
inline ValueHandle MakeValue(int i, int owner, uint32_t version) {
  return (static_cast<uint64_t>(version) << 32) | (static_cast<uint64_t>(i) << 8) |
         static_cast<uint64_t>(owner);
}

// True iff `v` was made by MakeValue for the (i, owner) that `k` names.
inline bool ValueMatchesKey(std::string_view k, ValueHandle v) {
  if (k.size() < 9 || k[0] != 'k' || k[7] != ':') return false;
  int i = std::stoi(std::string(k.substr(1, 6)));
  int owner;
  if (k.substr(8) == "s") {
    owner = 0;
  } else if (k.size() == 10 && k[8] == 'w') {
    owner = k[9] - '0' + 1;
  } else {
    return false;
  }
  return (v & 0xffffffffu) == ((static_cast<uint64_t>(i) << 8) | static_cast<uint64_t>(owner));
}

}  // namespace ordis::index::test_support
