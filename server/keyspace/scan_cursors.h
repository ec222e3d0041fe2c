// SCAN cursors. SCAN walks keys in key order; its cursor must stay an opaque number, so a cursor is
// an id for the key to resume after, kept in a table bounded in entries and in key bytes (oldest
// cursors are forgotten first; an unknown cursor gets "ERR invalid cursor"). The byte bound keeps
// clients that abandon scans over long keys from growing it without limit; a single key larger
// than the budget is still kept, so memory stays within max(budget, largest key).
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
  static constexpr size_t kMaxKeyBytes = 64 * 1024 * 1024;

  // Returns a new non-zero cursor that resumes after `last_key`.
  uint64_t Save(std::string last_key);
  // The key to resume after, or nullopt for an unknown cursor.
  std::optional<std::string> Load(uint64_t cursor) const;

 private:
  mutable std::mutex mu_;
  uint64_t next_ = 1;                                        // GUARDED_BY(mu_)
  absl::flat_hash_map<uint64_t, std::string> resume_after_;  // GUARDED_BY(mu_)
  std::deque<uint64_t> order_;                               // GUARDED_BY(mu_)
  size_t key_bytes_ = 0;                                     // GUARDED_BY(mu_)
};

}  // namespace ordis::server
