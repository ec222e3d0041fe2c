// The server's side of the append-only log: what gets logged, in what order, and when a reply may
// go out.
//
// Order: records are staged under the keyspace's exclusive lock, by the thread that made the
// change, so the log's order is the order changes were made. A record is one command (with a
// SELECT in front when its database differs from the previous record's, and a PEXPIREAT after it
// for each TTL it set, so relative TTLs replay as the absolute times they were), one EXEC (its
// commands as one record: a torn tail drops a transaction whole), or one expiry deletion (DEL).
//
// Group commit: staging does no I/O. Before a connection's replies go out, its thread calls
// Commit with the last record it staged. The first thread in becomes the leader: it takes every
// record staged so far (any thread's), writes them with one write and, under appendfsync always,
// one fdatasync, and wakes the threads whose records that covered; threads arriving meanwhile wait
// for the next round and are usually covered by it. Under everysec and no, Commit writes but does
// not sync; everysec's fdatasync runs once a second on the cron (SyncIfDue).
//
// Thread safety: thread safe; Stage* need the keyspace's exclusive lock held (they rely on it for
// ordering, not for memory safety).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "persistence/aof_file.h"
#include "persistence/status.h"
#include "server/command/durability.h"

namespace ordis::server {

enum class FsyncPolicy { kAlways, kEverySec, kNo };

class AofLog : public CommandLog {
 public:
  AofLog(std::unique_ptr<persistence::AofWriter> writer, FsyncPolicy policy);

  void set_policy(FsyncPolicy policy);

  // CommandLog.
  void BeginGroup() override;
  uint64_t EndGroup() override;
  uint64_t StageCommand(int db, std::span<const std::string_view> args) override;
  void SkipCommand() override;
  // An I/O error is returned to every waiter it affects; the records stay pending and the next
  // Commit retries them.
  persistence::Status Commit(uint64_t seq) override;
  // Notes a TTL the running command set; it is logged after that command (as PEXPIREAT).
  void NoteExpire(int db, std::string_view key, int64_t expire_at_ms);
  // Stages the deletion of a key that expired.
  uint64_t StageExpired(int db, std::string_view key);

  // everysec: fdatasync if a second has passed since the last one and something was written.
  void SyncIfDue(int64_t now_ms);
  // Writes and syncs everything staged (shutdown, before a rewrite switches files).
  persistence::Status Drain();

  // Makes new records go to writer (a rewrite's fresh incremental file); stages nothing itself.
  // Needs the exclusive keyspace lock (no Stage* concurrently). Records staged before the call are
  // written to the old file first.
  persistence::Status SwitchWriter(std::unique_ptr<persistence::AofWriter> writer);

  uint64_t file_size() const;
  bool last_write_ok() const;

 private:
  void AppendSelect(int db);
  void AppendArgs(std::span<const std::string_view> args);
  uint64_t CloseRecord();
  // After a command or deletion was appended: closes its record, or inside a group returns the
  // group's sequence number.
  uint64_t EndEntry();
  // The leader's round: writes staged records (mu_ held on entry and exit).
  persistence::Status WriteStaged(std::unique_lock<std::mutex>& lock, bool sync);

  mutable std::mutex mu_;
  std::condition_variable round_done_;
  std::unique_ptr<persistence::AofWriter> writer_;  // GUARDED_BY(mu_) when not writing
  FsyncPolicy policy_;                              // GUARDED_BY(mu_)
  // Staging (under the keyspace's exclusive lock, and mu_ for the staged queue).
  std::string record_;  // the record being built
  bool in_group_ = false;
  int last_db_ = -1;
  struct PendingExpire {
    int db;
    std::string key;
    int64_t at;
  };
  std::vector<PendingExpire> expires_;
  // GUARDED_BY(mu_): closed records not yet handed to writer_, back to back, and where each ends.
  std::string staged_bytes_;
  std::vector<size_t> staged_ends_;
  // The leader's round (only the thread with writing_ set touches them).
  std::string round_bytes_;
  std::vector<size_t> round_ends_;
  uint64_t staged_seq_ = 0;        // GUARDED_BY(mu_): sequence number of the last staged record
  uint64_t written_seq_ = 0;       // GUARDED_BY(mu_): last record written (synced if always)
  bool writing_ = false;           // GUARDED_BY(mu_): a leader is in its round
  bool dirty_since_sync_ = false;  // GUARDED_BY(mu_)
  int64_t last_sync_ms_ = 0;       // GUARDED_BY(mu_)
  bool last_write_ok_ = true;      // GUARDED_BY(mu_)
  uint64_t file_size_ = 0;         // GUARDED_BY(mu_): bytes written to the current file
};

}  // namespace ordis::server
