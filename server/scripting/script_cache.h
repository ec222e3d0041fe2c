// The scripts EVAL and SCRIPT LOAD made known, by SHA-1: one cache for the server, which every
// thread's Lua engine compiles from on first use. SCRIPT FLUSH empties it and bumps its
// generation, which tells the engines to drop what they compiled.
//
// Thread safety: all methods are thread safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"

namespace ordis::server::scripting {

class ScriptCache {
 public:
  // Adds body (if new) and returns its SHA-1.
  std::string Add(std::string_view body);
  // The body of the script named sha (lowercase, as NormalizeSha gives it); false if unknown.
  bool Find(std::string_view sha, std::string* body) const;
  bool Contains(std::string_view sha) const;
  void Flush();

  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  size_t size() const;
  // The bodies' bytes and their names' (INFO's used_memory_scripts_eval).
  size_t bytes() const;
  // What the threads' Lua engines hold (INFO's used_memory_lua): each reports its changes.
  void AddEngineBytes(int64_t delta) { engine_bytes_.fetch_add(delta, std::memory_order_relaxed); }
  int64_t engine_bytes() const { return engine_bytes_.load(std::memory_order_relaxed); }

 private:
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, std::string> scripts_;  // GUARDED_BY(mu_)
  size_t bytes_ = 0;                                       // GUARDED_BY(mu_)
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> engine_bytes_{0};
};

}  // namespace ordis::server::scripting
