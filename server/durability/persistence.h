// Persistence: snapshots (SAVE, BGSAVE, save rules, SHUTDOWN) and the append-only log (group
// commit, rewrite, multi-part manifest), and loading them at start-up.
//
// Files (in `dir`):
//   <dbfilename>                          the snapshot (persistence/snapshot_file.h)
//   <appenddirname>/<appendfilename>.manifest            which files make up the log
//   <appenddirname>/<appendfilename>.<seq>.base.osnap    the log's base snapshot
//   <appenddirname>/<appendfilename>.<seq>.incr.aof      commands since that base
// With appendonly yes the log is the source of truth at start-up (as in Redis); else the snapshot.
//
// Background work (BGSAVE, BGREWRITEAOF) runs on one job thread at a time, dumping a consistent
// view without fork (server/durability/snapshotter.h); this class is the keyspace's observer and
// forwards changes to the running dump and expiry deletions to the log.
//
// Thread safety: thread safe. Observer calls come under the keyspace's exclusive lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "persistence/manifest.h"
#include "persistence/status.h"
#include "server/command/durability.h"
#include "server/command/server_control.h"
#include "server/command/services.h"
#include "server/config/config.h"
#include "server/durability/aof_log.h"
#include "server/durability/snapshotter.h"
#include "server/keyspace/keyspace.h"

namespace ordis::server {

class Dispatcher;

class Persistence : public KeyspaceObserver, public Durability {
 public:
  // control: asked to stop the server after SHUTDOWN's save; its start time is the first
  // LASTSAVE.
  Persistence(Config& config, Keyspace& keyspace, ServerControl& control);
  ~Persistence() override;

  // Start-up, before any client: loads the data set (log or snapshot) and opens the log, replaying
  // the log's commands through a dispatcher over services. A non-ok status is fatal; its message
  // goes to the operator.
  persistence::Status Start(const Services& services);

  // Durability (command/durability.h). Shutdown is also the path of a signal, with no clients
  // left.
  CommandLog* log() const override { return aof(); }
  persistence::Status Save(bool* busy) override;
  std::string StartBgSave(bool schedule, bool* scheduled) override;
  std::string StartRewrite(bool* scheduled) override;
  persistence::Status Shutdown(bool save, bool force) override;
  persistence::Status Reload(bool save, bool flush) override;
  int64_t last_save_s() const override { return last_save_s_.load(); }
  PersistenceInfo Info() const override;

  // Thread 0's cron, ten times a second: save rules, automatic rewrite, everysec fsync, reaping
  // the finished job.
  void Cron(int64_t now_ms);
  // The log, or nullptr when appendonly is off. A log once opened lives as long as this object, so
  // a pointer to it stays valid after appendonly is turned off.
  AofLog* aof() const { return aof_.load(std::memory_order_acquire); }

  // KeyspaceObserver.
  void BeforeKeyChange(int db, std::string_view key, const Object* obj) override;
  bool WantsValues() const override { return active_dump_ != nullptr; }
  void BeforeDbChange(int db) override;
  void KeyExpired(int db, std::string_view key) override;
  void KeyEvicted(int db, std::string_view key) override;
  void ExpireSet(int db, std::string_view key, int64_t expire_at_ms) override;

  // The sorted-set limits values are decoded under (zset-max-listpack-entries / -value, read now):
  // snapshots', the log's and the cold tier's.
  ZSetLimits ZSetLimitsFromConfig() const;

 private:
  std::string Dir() const;
  std::string SnapshotPath() const;
  // Where the log lives while it is open (log_dir_), else where the configuration puts it.
  std::string AofDir() const;
  std::string ConfiguredAofDir() const;
  std::string AofPath(const std::string& name) const;
  std::string ManifestPath() const;
  std::string BaseName(uint64_t seq) const;
  std::string IncrName(uint64_t seq) const;

  // Replays the log's files through a dispatcher over services.
  persistence::Status LoadLog(const persistence::Manifest& manifest, const Services& services);
  persistence::Status ReplayFile(const std::string& path, bool last, Dispatcher& dispatcher);
  // Writes a snapshot of the keyspace to path (via a dump that observes changes if clients run).
  persistence::Status Dump(const std::string& path, bool lock_held = false);
  // SAVE's bookkeeping around Dump.
  persistence::Status SaveSnapshot(bool lock_held);
  // Switches the log to a fresh incremental file and starts a base dump (under the exclusive
  // lock), then finishes the rewrite on the calling thread.
  persistence::Status Rewrite();
  // Starts a BGSAVE or a rewrite on the job thread; false if a job is running.
  bool StartJob(bool rewrite);
  void RunJob(bool rewrite);
  // Waits for the job thread, if any.
  void JoinJob();

  Config& config_;
  Keyspace& keyspace_;
  ServerControl& control_;
  const Services* services_ = nullptr;  // from Start
  // Under the exclusive keyspace lock: the function libraries, for a dump starting now.
  std::vector<std::pair<std::string, std::string>> LibrariesForDump() const;
  // Start-up: loads the libraries a snapshot held, as FUNCTION LOAD REPLACE would.
  persistence::Status LoadFunctionLibraries(const std::vector<std::string>& libraries);
  // Opens the log on writer (the exclusive keyspace lock held).
  void OpenLog(std::unique_ptr<persistence::AofWriter> writer);
  // appendonly was set to no: stop logging (Redis's stopAppendOnly).
  void CloseLog();

  std::atomic<AofLog*> aof_{nullptr};
  std::vector<std::unique_ptr<AofLog>> logs_;  // every log opened; the last is aof_ when on
  persistence::Manifest manifest_;             // under the exclusive keyspace lock or job ownership
  uint64_t next_seq_ = 1;
  // The log's directory, fixed when the log opens (start-up, or appendonly turned on): a CONFIG SET
  // dir while it is on moves snapshots, never the log, so the log's files (and every write it
  // acknowledged) stay together in one directory. Written only while no job runs.
  std::string log_dir_;
  // Start-up loaded a log only up to its corruption (aof-load-corrupted yes).
  bool log_cut_ = false;

  SnapshotDump* active_dump_ = nullptr;  // exclusive keyspace lock

  std::mutex job_mu_;
  std::thread job_;  // GUARDED_BY(job_mu_); may hold an ended job until the next starts
  std::atomic<bool> job_running_{false};
  std::atomic<bool> rewrite_scheduled_{false};
  std::atomic<bool> bgsave_scheduled_{false};

  mutable std::mutex info_mu_;
  PersistenceInfo info_;  // GUARDED_BY(info_mu_), the counters that are not atomics
  std::atomic<int64_t> last_save_s_{0};
  uint64_t changes_at_save_ = 0;  // GUARDED_BY(info_mu_)
  int64_t job_start_ms_ = 0;      // GUARDED_BY(info_mu_)
  std::atomic<int64_t> last_save_attempt_ms_{0};
  std::atomic<bool> loading_{false};
};

}  // namespace ordis::server
