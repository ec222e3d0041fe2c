// What the command layer asks of snapshots and the append-only log, implemented by the durability
// layer (durability/persistence.h): the log's staging and group commit for the dispatcher, and
// the persistence commands (SAVE, BGSAVE, BGREWRITEAOF, LASTSAVE, SHUTDOWN, INFO persistence).
//
// Thread safety: thread safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "persistence/status.h"

namespace ordis::server {

// The append-only log as the dispatcher writes it. Stage* and the group calls need the keyspace's
// exclusive lock (the log's order is the order of the changes); Commit does not.
class CommandLog {
 public:
  // Starts a group: commands staged until EndGroup form one record (EXEC).
  virtual void BeginGroup() = 0;
  // Ends the group; returns the record's sequence number (0 if it was empty).
  virtual uint64_t EndGroup() = 0;
  // Stages one command run in db. Returns its record's sequence number (the group's, inside one).
  virtual uint64_t StageCommand(int db, std::span<const std::string_view> args) = 0;
  // The command just run is not logged (a script's, after redis.set_repl(REPL_NONE)): forgets
  // what it noted for its record (the TTLs it set), which would otherwise follow the next one.
  virtual void SkipCommand() = 0;
  // Returns once record seq is written (and durable under appendfsync always).
  virtual persistence::Status Commit(uint64_t seq) = 0;

 protected:
  ~CommandLog() = default;
};

struct PersistenceInfo {
  bool loading = false;
  uint64_t changes_since_save = 0;
  bool bgsave_in_progress = false;
  int64_t last_save_time_s = 0;
  bool last_bgsave_ok = true;
  int64_t last_bgsave_time_s = -1;
  int64_t current_save_time_s = -1;
  bool aof_enabled = false;
  bool aof_rewrite_in_progress = false;
  bool aof_rewrite_scheduled = false;
  int64_t last_rewrite_time_s = -1;
  int64_t current_rewrite_time_s = -1;
  bool last_rewrite_ok = true;
  bool aof_last_write_ok = true;
  uint64_t aof_current_size = 0;
  uint64_t aof_base_size = 0;
  uint64_t aof_rewrites = 0;
  uint64_t saves = 0;
  uint64_t loaded_keys = 0;
  int64_t load_time_ms = 0;
  int64_t job_start_ms = 0;
};

class Durability {
 public:
  // The log, or nullptr when appendonly is off. A log once opened stays valid as long as this
  // object, even after appendonly is turned off.
  virtual CommandLog* log() const = 0;

  // SAVE: a snapshot now; returns when it is on disk. *busy (and nothing done) while a background
  // job runs.
  virtual persistence::Status Save(bool* busy) = 0;
  // BGSAVE: "" when started, else Redis's error text. *scheduled when schedule was asked and
  // another job runs: the save starts after it.
  virtual std::string StartBgSave(bool schedule, bool* scheduled) = 0;
  // BGREWRITEAOF: "" when started, else Redis's error text; *scheduled when a job runs: the
  // rewrite starts after it.
  virtual std::string StartRewrite(bool* scheduled) = 0;
  // SHUTDOWN: waits for a running job, then under the exclusive keyspace lock saves if asked,
  // syncs the log and (on success, or always when force) stops the server, so no write is
  // acknowledged after the data was saved.
  virtual persistence::Status Shutdown(bool save, bool force) = 0;
  // DEBUG RELOAD, under the caller's exclusive keyspace lock: saves a snapshot (unless !save),
  // empties the keyspace (unless !flush) and loads the snapshot back, replacing keys of the same
  // names. An error names the step that failed ("save" or "load" first).
  virtual persistence::Status Reload(bool save, bool flush) = 0;
  virtual int64_t last_save_s() const = 0;
  virtual PersistenceInfo Info() const = 0;

 protected:
  ~Durability() = default;
};

}  // namespace ordis::server
