// Point-in-time snapshots of the keyspace, written while the server keeps serving, without fork.
//
// A dump walks the databases in (db, key) order, a chunk of keys at a time under the shared lock,
// encoding each object (server/durability/object_codec.h) and writing outside the lock. Between
// chunks the writers run; the keyspace tells the dump (as its observer, through Persistence) before
// any key changes, and a key the dump has not reached yet has its current state kept aside first
// (its pre-image, or "absent" for a key about to be created). The dump then writes a key's
// pre-image instead of its live object, and writes pre-images of keys deleted since the start, so
// the file holds exactly the keyspace as it was when the dump began. A key is copied at most once,
// and only if it changes before the dump reaches it.
//
// Thread safety: BeforeKeyChange and BeforeDbChange run under the keyspace's exclusive lock; Run
// runs on one thread and takes the shared lock itself. Pre-images are touched only under the lock.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/btree_map.h"
#include "persistence/snapshot_file.h"
#include "persistence/status.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server {

class SnapshotDump {
 public:
  // The snapshot's moment is now_ms: keys expired by then are left out.
  SnapshotDump(Keyspace& keyspace, int64_t now_ms);

  // exclusive lock.
  void BeforeKeyChange(int db, std::string_view key, const Object* obj);
  void BeforeDbChange(int db);

  // The function libraries (FUNCTION LOAD's code, by library name) as they were at the
  // snapshot's moment: Run writes them first, as records of type kFunctionLibraryRecord.
  void set_function_libraries(std::vector<std::pair<std::string, std::string>> libraries) {
    libraries_ = std::move(libraries);
  }

  // Writes every key into writer (which the caller then commits). Keys written so far count in
  // keys_written(). Takes the shared lock chunk by chunk, unless the caller holds the keyspace
  // lock for the whole dump (lock_held: SHUTDOWN's final save, which no write may follow).
  persistence::Status Run(persistence::SnapshotWriter* writer, bool lock_held = false);
  uint64_t keys_written() const { return keys_written_; }

 private:
  struct PreImage {
    bool present = false;
    uint8_t type = 0;
    int64_t expire_at_ms = -1;
    std::string payload;
  };
  static std::string PositionKey(int db, std::string_view key);
  // True iff the dump has already written (db, key)'s position.
  bool Passed(int db, std::string_view key) const;
  void Capture(int db, std::string_view key, const Object* obj);

  Keyspace& keyspace_;
  const int64_t now_ms_;
  std::vector<std::pair<std::string, std::string>> libraries_;
  // Keyed by PositionKey: a db byte, then the key, so the map's order is the dump's.
  absl::btree_map<std::string, PreImage> pre_images_;
  // The dump has written everything before db cursor_db_, and in it every key <= cursor_key_
  // (nothing yet when !cursor_started_).
  int cursor_db_ = 0;
  bool cursor_started_ = false;
  std::string cursor_key_;
  uint64_t keys_written_ = 0;
  // Databases whose whole remainder was captured (FLUSHDB, FLUSHALL, SWAPDB): their live keys no
  // longer say anything about the snapshot's moment.
  std::vector<bool> frozen_;
};

// A snapshot record that is not a key: a function library (db 0, the library's name as the key,
// its code as the payload), before every key. Redis's RDB opcode for one.
inline constexpr uint8_t kFunctionLibraryRecord = 245;

// Loads the snapshot at path into an empty keyspace (start-up, no other users); keys that expired
// by now_ms are dropped. The function libraries' code is appended to *libraries, for the caller to
// load (they need a Lua engine).
persistence::Status LoadSnapshot(const std::string& path, Keyspace& keyspace, int64_t now_ms,
                                 const ZSetLimits& limits, std::vector<std::string>* libraries);

// DEBUG RELOAD: loads the snapshot at path into a keyspace in use, under the caller's exclusive
// lock, key by key through Keyspace::Set (a key already there is replaced); keys that expired by
// now_ms are dropped. Function libraries stay as loaded.
persistence::Status MergeSnapshot(const std::string& path, Keyspace& keyspace, int64_t now_ms,
                                  const ZSetLimits& limits);

}  // namespace ordis::server
