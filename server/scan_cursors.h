// SCAN cursors. SCAN walks keys in key order; its cursor must stay an opaque number, so a cursor is
// an id for the key to resume after, kept in a bounded table (oldest cursors are forgotten first;
// an unknown cursor gets "ERR invalid cursor").
//
// Thread safety: thread safe.
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace ordis::server {

class ScanCursors {
 public:
  static constexpr size_t kMaxCursors = 65536;

  // Returns a new non-zero cursor that resumes after `last_key`.
  uint64_t Save(std::string last_key);
  // The key to resume after, or nullopt for an unknown cursor.
  std::optional<std::string> Load(uint64_t cursor) const;

 private:
  mutable std::mutex mu_;
  uint64_t next_ = 1;                                         // GUARDED_BY(mu_)
  absl::flat_hash_map<uint64_t, std::string> resume_after_;  // GUARDED_BY(mu_)
  std::deque<uint64_t> order_;                                // GUARDED_BY(mu_)
};

}  // namespace ordis::server
