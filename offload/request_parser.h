// PD3's request parser (../shared/seeds/004, section 5.1): from a connection's pre-parsed batch,
// the keys whose current values its commands will need, so that the cold ones among them are
// fetched before the batch runs.
//
// The layer that knows the commands feeds it each command's keys in order, with how the command
// uses each (KeyOp, from the command table's flags and Redis's key specs). A read (or a write
// that depends on the old value) needs the value, unless the batch overwrote or deleted the key
// before it: a blind overwrite or a delete needs nothing, and the uses after it see what the
// batch wrote. Commands queued by a MULTI of the batch run, in order, at its EXEC; a DISCARD
// drops them (the keys they named first are forgotten; what they did to keys named before stays,
// costing at most a wasted read or one the command makes itself). The caller feeds a transaction
// begun in an earlier batch when its EXEC arrives.
//
// Thread safety: none; one per I/O thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace ordis::offload {

enum class KeyOp : uint8_t {
  kRead,       // returns or depends on the value (GET, HGETALL)
  kReadWrite,  // changes the value in place (APPEND, INCR, HSET)
  kOverwrite,  // replaces or deletes it whatever it was (SET, DEL)
  kMetadata,   // looks at the key's existence, type or size (EXISTS, TYPE, STRLEN)
};

// Whether a use of a key needs its value resident. kMetadata does not: EXISTS, TYPE, TTL,
// OBJECT and MEMORY USAGE read a cold key's header only (STRLEN, the exception, reads a cold
// value synchronously).
constexpr bool NeedsValue(KeyOp op) { return op == KeyOp::kRead || op == KeyOp::kReadWrite; }

struct KeyUse {
  int db;
  std::string_view key;
};

class RequestParser {
 public:
  // The next command of the batch names key in db and uses it so.
  void Add(int db, std::string_view key, KeyOp op);
  // MULTI, EXEC, DISCARD: the commands since BeginTransaction are queued; EXEC runs them, in
  // the order fed; DiscardTransaction forgets their uses.
  void BeginTransaction();
  void ExecTransaction() { transaction_start_ = SIZE_MAX; }
  void DiscardTransaction();
  // The batch's keys whose values are needed, each once, in order of first use.
  std::span<const KeyUse> Needed();
  bool empty() const { return uses_.empty(); }
  // Ready for the next batch.
  void Clear();

 private:
  struct Use {
    KeyUse key;
    bool needs_value;  // a use before any overwrite reads it
    bool overwritten;  // the batch replaced or deleted it: later uses need nothing
  };
  std::vector<Use> uses_;  // in order of first use, each key once
  // Keys seen in the batch (db, key) -> index in uses_.
  absl::flat_hash_map<std::pair<int, std::string_view>, size_t> seen_;
  size_t transaction_start_ = SIZE_MAX;  // uses_.size() at MULTI, SIZE_MAX outside one
  std::vector<KeyUse> needed_;           // Needed's
};

}  // namespace ordis::offload
