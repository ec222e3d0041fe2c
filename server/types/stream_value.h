// The payload of a stream key: entries (an ID and field/value pairs) in ascending ID order, the
// stream's counters, and its consumer groups with their pending entries lists (Redis 7.0's stream
// model: t_stream.c, stream.h).
//
// Representation. Entries are packed in blocks, as Redis packs them in listpacks: a block holds up
// to stream-node-max-entries entries (deleted ones included) and about stream-node-max-bytes of
// them, and is one byte buffer:
//
//   master fields   varint count, then each field name (varint length + bytes): the fields of the
//                   block's first entry
//   entry           flags byte (kDeleted, kSameFields)
//                   varint ms - first.ms, then varint seq - first.seq when the ms are equal, else
//                   varint seq (IDs are delta-encoded against the block's first ID)
//                   kSameFields: each value (varint length + bytes), the names are the master's
//                   otherwise:   varint count, then field and value pairs
//
// Three values of a 3-field entry cost their bytes plus a length byte each, and the ID two or
// three bytes: no back-length (reverse iteration decodes a block's entry offsets first) and no
// per-element type byte, so a block is smaller than the listpack Redis would build for the same
// entries. Measured (100k XADD s * user user:<n> action click value <7n>, used_memory delta):
// ordis 27.1 bytes per entry, redis-server 7.0.15 32.1 bytes per entry (README "Streams").
//
// Blocks are kept in a std::map keyed by their first ID. Why not a B+tree or a radix tree as
// Redis's rax: a block holds ~100 entries, so 10M entries are 100k blocks, and the map's 48-byte
// node costs under one byte per entry; a lookup is O(log blocks + block). Blocks split where
// Redis's listpacks split (the same entry count and an emulation of the listpack's byte size,
// Block::lp_other), so approximate trimming (MAXLEN ~, which removes whole blocks only) leaves
// exactly the entries Redis leaves, and XINFO STREAM's radix-tree-keys is Redis's.
//
// Deletion (XDEL, exact trimming inside a block) marks the entry deleted in place, as Redis does; a
// block whose entries are all deleted is freed.
//
// Consumer groups: by name (bytewise order, as Redis's rax), each with its last delivered ID, its
// entries-read counter, its pending entries list (ID -> consumer, delivery time, delivery count)
// and its consumers (by name, each with the IDs of the group PEL it owns and its seen time).
//
// Thread safety: as the standard containers: const methods may run concurrently with each other; a
// non-const method needs exclusive access (the keyspace lock held exclusively).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"

namespace ordis::server {

struct StreamId {
  uint64_t ms = 0;
  uint64_t seq = 0;

  friend auto operator<=>(const StreamId&, const StreamId&) = default;
  static constexpr StreamId Max() { return {UINT64_MAX, UINT64_MAX}; }
  bool IsZero() const { return ms == 0 && seq == 0; }
  // The next (previous) ID; false (unchanged) at the largest (smallest) one.
  bool Increment();
  bool Decrement();
  // "ms-seq".
  std::string ToString() const;
  void AppendTo(std::string* out) const;
};

// When a block is full (stream-node-max-bytes, stream-node-max-entries; 0: no limit).
struct StreamNodeLimits {
  size_t max_bytes = 4096;
  size_t max_entries = 100;
};

// An entry's fields and values, alternating. Valid until the stream changes.
using StreamFields = std::span<const std::string_view>;
// Returns false to stop.
using StreamVisit = absl::FunctionRef<bool(StreamId id, StreamFields fields)>;

struct StreamConsumer;

// A pending entry: delivered to consumer and not acknowledged yet.
struct StreamNack {
  StreamConsumer* consumer = nullptr;
  int64_t delivery_time = 0;  // unix ms
  uint64_t delivery_count = 1;
};

struct StreamConsumer {
  std::string name;
  int64_t seen_time = 0;       // unix ms of its last read or claim
  std::set<StreamId> pending;  // its share of the group's PEL
};

struct StreamGroup {
  // Redis's SCG_INVALID_ENTRIES_READ: the group's position is not known as a count.
  static constexpr int64_t kInvalidEntriesRead = -1;

  StreamGroup() = default;
  StreamGroup(const StreamGroup& other) { *this = other; }  // deep: NACKs point at own consumers
  StreamGroup& operator=(const StreamGroup& other);
  StreamGroup(StreamGroup&&) noexcept = default;
  StreamGroup& operator=(StreamGroup&&) noexcept = default;

  StreamId last_id;
  int64_t entries_read = kInvalidEntriesRead;
  std::map<StreamId, StreamNack> pel;
  std::map<std::string, StreamConsumer, std::less<>> consumers;

  // The consumer called name, created (seen now) when missing if create; nullptr otherwise.
  StreamConsumer* FindConsumer(std::string_view name);
  StreamConsumer* CreateConsumer(std::string_view name, int64_t now_ms, bool* created);
  // Removes the consumer and its pending entries from the PEL; returns how many it had.
  size_t DeleteConsumer(std::string_view name);
  // Removes id from the PEL (and its consumer's); true iff it was pending.
  bool Ack(StreamId id);
};

class StreamValue {
 public:
  StreamValue() = default;
  StreamValue(const StreamValue&) = default;  // deep (groups copy their consumers)
  StreamValue& operator=(const StreamValue&) = default;
  StreamValue(StreamValue&&) noexcept = default;
  StreamValue& operator=(StreamValue&&) noexcept = default;

  // Live entries (XLEN).
  size_t size() const { return length_; }
  bool empty() const { return length_ == 0; }

  StreamId last_id() const { return last_id_; }
  // The first live entry's ID, 0-0 when empty.
  StreamId first_id() const { return first_id_; }
  StreamId max_deleted_id() const { return max_deleted_; }
  uint64_t entries_added() const { return entries_added_; }
  // XSETID: the caller checks the values are consistent with the entries.
  void set_last_id(StreamId id) { last_id_ = id; }
  void set_max_deleted_id(StreamId id) { max_deleted_ = id; }
  void set_entries_added(uint64_t n) { entries_added_ = n; }

  // XADD: appends an entry with id (> last_id()) and fields_values (field, value, ...; at least one
  // pair). Counts it in entries_added and makes it the last ID.
  void Append(StreamId id, std::span<const std::string_view> fields_values,
              const StreamNodeLimits& limits);
  // XDEL: marks the entry deleted; true iff it was a live entry. Updates max_deleted_id.
  bool Delete(StreamId id);
  // True iff id is a live entry.
  bool Contains(StreamId id) const;
  // The last live entry's ID (Redis's streamLastValidID), 0-0 when empty.
  StreamId LastLiveId() const;

  enum class TrimBy { kMaxLen, kMinId };
  struct Trim {
    TrimBy by = TrimBy::kMaxLen;
    uint64_t maxlen = 0;
    StreamId minid;
    bool approx = false;
    int64_t limit = 0;  // 0: none; else at most this many entries (whole blocks) go
  };
  // XTRIM and XADD's trimming, as Redis's streamTrim: whole blocks from the front, then (exact
  // trimming only) entries of one block marked deleted. Returns the entries removed.
  int64_t TrimEntries(const Trim& trim);

  // Visits the live entries with start <= id <= end, ascending (descending if reverse), until
  // visit returns false.
  void Range(StreamId start, StreamId end, bool reverse, StreamVisit visit) const;

  // Redis 7.0's lag bookkeeping (streamRangeHasTombstones,
  // streamEstimateDistanceFromFirstEverEntry): true iff a deleted entry may lie in [start, end]
  // (start null: from the beginning).
  bool RangeHasTombstones(const StreamId* start) const;
  // The logical read counter of id (entries added up to it), or kInvalidEntriesRead.
  int64_t EstimateDistance(StreamId id) const;

  std::map<std::string, StreamGroup, std::less<>>& groups() { return groups_; }
  const std::map<std::string, StreamGroup, std::less<>>& groups() const { return groups_; }

  // XINFO STREAM: radix-tree-keys (blocks) and radix-tree-nodes (the nodes Redis's rax would have
  // for these block keys, computed on the canonical compressed radix tree of their 16-byte keys).
  size_t block_count() const { return blocks_.size(); }
  size_t RadixTreeNodes() const;
  // Heap bytes (MEMORY USAGE).
  size_t MemoryUsage() const;

  // --- Redis's RDB form (server/rdb) ---

  // An entry as a block holds it, deleted ones included; flags are Redis's (1: deleted, 2: the
  // same field names as the block's first entry).
  struct BlockEntry {
    StreamId id;
    uint8_t flags = 0;
    std::vector<std::string_view> fields_values;
  };
  // Each block in ID order: its first entry's ID (Redis's master ID), its live and deleted counts,
  // its master field names, and its entries.
  using BlockVisit =
      absl::FunctionRef<void(StreamId master, uint32_t live, uint32_t deleted,
                             StreamFields master_fields, std::span<const BlockEntry> entries)>;
  void VisitBlocks(BlockVisit visit) const;

  // --- the snapshot codec ---

  // Appends the blocks as bytes (first ID, counters, the buffer) for DecodeBlocks.
  void EncodeBlocks(std::string* out) const;
  // Reads blocks EncodeBlocks wrote (checking every entry lies within its buffer) and the stream's
  // counters; false on malformed input (the value is then unspecified).
  bool DecodeBlocks(std::string_view* in, StreamId last_id, StreamId max_deleted,
                    uint64_t entries_added);

 private:
  struct Block {
    StreamId last;            // its last entry's ID, deleted or not
    uint32_t live = 0;        // entries not deleted
    uint32_t deleted = 0;     // entries marked deleted
    uint32_t lp_other = 0;    // Redis's listpack bytes except the header, live and deleted counts
    uint32_t entries_at = 0;  // where the entries start in data (after the master fields)
    std::string data;
  };
  using Blocks = std::map<StreamId, Block>;

  // Decodes the block's entries from offset on; see the .cc.
  class Cursor;

  // Redis's listpack size of the block (lpBytes), as its node split rule reads it.
  static size_t ListpackBytes(const Block& b);
  void RefreshFirstId();
  // Marks the entry at offset of block it deleted; frees the block when none is left (it then
  // points at the next block).
  void MarkDeleted(Blocks::iterator* it, size_t offset);

  Blocks blocks_;
  size_t length_ = 0;
  StreamId last_id_;
  StreamId first_id_;
  StreamId max_deleted_;
  uint64_t entries_added_ = 0;
  std::map<std::string, StreamGroup, std::less<>> groups_;
};

}  // namespace ordis::server
