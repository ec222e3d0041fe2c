#include "server/durability/persistence.h"

#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <utility>

#include "base/logging.h"
#include "base/memory.h"
#include "base/split_args.h"
#include "resp/out_buffer.h"
#include "resp/parser.h"
#include "resp/writer.h"
#include "server/command/client_state.h"
#include "server/command/dispatcher.h"
#include "server/command/errors.h"
#include "server/config/config.h"
#include "server/rdb/rdb_file.h"
#include "server/scripting/function_libraries.h"

namespace ordis::server {
namespace {

using persistence::Status;

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

uint64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

FsyncPolicy PolicyFrom(const std::string& value) {
  if (value == "always") return FsyncPolicy::kAlways;
  if (value == "no") return FsyncPolicy::kNo;
  return FsyncPolicy::kEverySec;
}

// Redis retries a failed background save only after this long (CONFIG_BGSAVE_RETRY_DELAY).
constexpr int64_t kRetryAfterFailureMs = 5000;

}  // namespace

Persistence::Persistence(Config& config, Keyspace& keyspace, ServerControl& control)
    : config_(config), keyspace_(keyspace), control_(control) {}

ZSetLimits Persistence::ZSetLimitsFromConfig() const {
  return {static_cast<size_t>(config_.zset_max_listpack_entries()),
          static_cast<size_t>(config_.zset_max_listpack_value())};
}

Persistence::~Persistence() {
  JoinJob();
  std::unique_lock lock(keyspace_.mu());
  keyspace_.SetObserver(nullptr);
}

// --- Paths --------------------------------------------------------------------------------------

std::string Persistence::Dir() const { return config_.Value("dir"); }
std::string Persistence::SnapshotPath() const { return Dir() + "/" + config_.Value("dbfilename"); }
std::string Persistence::ConfiguredAofDir() const {
  return Dir() + "/" + config_.Value("appenddirname");
}
std::string Persistence::AofDir() const { return log_dir_.empty() ? ConfiguredAofDir() : log_dir_; }
std::string Persistence::AofPath(const std::string& name) const { return AofDir() + "/" + name; }
std::string Persistence::ManifestPath() const {
  return AofPath(config_.Value("appendfilename") + ".manifest");
}
std::string Persistence::BaseName(uint64_t seq) const {
  return config_.Value("appendfilename") + "." + std::to_string(seq) + ".base.osnap";
}
std::string Persistence::IncrName(uint64_t seq) const {
  return config_.Value("appendfilename") + "." + std::to_string(seq) + ".incr.aof";
}

// --- Start-up -----------------------------------------------------------------------------------

Status Persistence::Start(const Services& services) {
  services_ = &services;
  const int64_t start_ms = NowMs();
  const bool appendonly = config_.Value("appendonly") == "yes";
  last_save_s_ = control_.start_time_ms() / 1000;
  loading_ = true;
  Status status = Status::Ok();
  bool have_log = false;
  if (appendonly) {
    log_dir_ = ConfiguredAofDir();
    status = persistence::EnsureDirectory(AofDir());
    if (!status.ok()) return status;
    status = persistence::Manifest::Load(ManifestPath(), &manifest_, &have_log);
    if (!status.ok()) return status;
    for (const auto& f : manifest_.files) next_seq_ = std::max(next_seq_, f.seq + 1);
    if (have_log) status = LoadLog(manifest_, services);
  }
  if (!have_log && status.ok() && FileExists(SnapshotPath())) {
    std::vector<std::string> libraries;
    if (IsRdbFile(SnapshotPath())) {
      // A dump.rdb from Redis (migration): loaded once; the next save writes ordis's format.
      RdbLoadStats loaded;
      status = LoadRdbFile(SnapshotPath(), keyspace_, start_ms, RdbLimits::FromConfig(config_),
                           config_.lfu_policy(), &libraries, &loaded);
      if (status.ok()) {
        log::Notice(
            "Loaded Redis RDB file {} (version {}): {} keys; {} expired and {} empty ones "
            "skipped",
            SnapshotPath(), loaded.version, loaded.keys, loaded.expired, loaded.empty);
      }
    } else {
      status =
          LoadSnapshot(SnapshotPath(), keyspace_, start_ms, ZSetLimitsFromConfig(), &libraries);
    }
    if (status.ok()) status = LoadFunctionLibraries(libraries);
  }
  loading_ = false;
  if (!status.ok()) return status;
  {
    uint64_t keys = 0;
    {
      std::shared_lock lock(keyspace_.mu());
      for (int db = 0; db < keyspace_.num_dbs(); ++db) keys += keyspace_.DbSize(db);
    }
    std::lock_guard lock(info_mu_);
    info_.loaded_keys = keys;
    info_.load_time_ms = NowMs() - start_ms;
    changes_at_save_ = keyspace_.changes();
  }
  {
    std::unique_lock lock(keyspace_.mu());
    keyspace_.SetObserver(this);
  }
  if (appendonly) {
    if (!have_log || manifest_.files.empty() || !manifest_.files.front().base || log_cut_) {
      // A log starts from a base snapshot of what is loaded now (also after loading only the part
      // of a log before its corruption: the new base replaces every file named before).
      status = Rewrite();
      if (!status.ok()) return status;
    } else {
      std::unique_ptr<persistence::AofWriter> writer;
      status = persistence::AofWriter::Open(AofPath(manifest_.files.back().name), &writer);
      if (!status.ok()) return status;
      {
        std::unique_lock lock(keyspace_.mu());
        OpenLog(std::move(writer));
      }
      std::lock_guard lock(info_mu_);
      info_.aof_base_size = FileSize(AofPath(manifest_.files.front().name));
    }
  }
  return Status::Ok();
}

Status Persistence::LoadLog(const persistence::Manifest& manifest, const Services& services) {
  size_t first_incr = 0;
  if (!manifest.files.empty() && manifest.files.front().base) {
    std::vector<std::string> libraries;
    Status status = LoadSnapshot(AofPath(manifest.files.front().name), keyspace_, NowMs(),
                                 ZSetLimitsFromConfig(), &libraries);
    if (status.ok()) status = LoadFunctionLibraries(libraries);
    if (!status.ok()) return status;
    first_incr = 1;
  }
  // Replayed commands are not statistics (Redis runs them outside call()): their own block.
  ThreadStats stats(services.commands.flat().size());
  Dispatcher dispatcher(services, stats, Dispatcher::Names::kOriginal);
  {
    std::unique_lock lock(keyspace_.mu());
    keyspace_.SetLoading(true);
  }
  Status status = Status::Ok();
  for (size_t i = first_incr; i < manifest.files.size() && status.ok() && !log_cut_; ++i) {
    status =
        ReplayFile(AofPath(manifest.files[i].name), i + 1 == manifest.files.size(), dispatcher);
  }
  std::unique_lock lock(keyspace_.mu());
  keyspace_.SetLoading(false);
  return status;
}

Status Persistence::LoadFunctionLibraries(const std::vector<std::string>& libraries) {
  if (libraries.empty()) return Status::Ok();
  ThreadStats stats(services_->commands.flat().size());
  Dispatcher dispatcher(*services_, stats, Dispatcher::Names::kOriginal);
  ClientState client;
  client.authenticated = true;
  resp::OutBuffer reply;
  resp::Writer out(&reply);
  for (const std::string& code : libraries) {
    const std::string_view args[] = {"function", "load", "replace", code};
    dispatcher.Run(client, out, args);
    dispatcher.EndBatch();
    iovec first;  // an error reply is short: one chunk
    std::string_view text;
    if (reply.FillIovec(&first, 1) == 1) {
      text = {static_cast<const char*>(first.iov_base), first.iov_len};
    }
    if (!text.empty() && text[0] == '-') {
      return Status::Error("snapshot: a function library does not load: " +
                           std::string(text.substr(1, text.find('\r') - 1)));
    }
    reply.Clear();
  }
  return Status::Ok();
}

std::vector<std::pair<std::string, std::string>> Persistence::LibrariesForDump() const {
  std::vector<std::pair<std::string, std::string>> out;
  if (services_ == nullptr) return out;
  for (scripting::Library& library : services_->functions.All()) {
    out.emplace_back(std::move(library.name), std::move(library.code));
  }
  return out;
}

Status Persistence::ReplayFile(const std::string& path, bool last, Dispatcher& dispatcher) {
  std::unique_ptr<persistence::AofReader> reader;
  Status status = persistence::AofReader::Open(path, &reader);
  if (!status.ok()) return status;
  ClientState client;
  client.authenticated = true;
  resp::OutBuffer discard;
  resp::Writer out(&discard);
  resp::Parser parser;
  std::vector<std::string_view> args;
  std::string_view payload;
  uint64_t records = 0;
  while (reader->Next(&payload)) {
    ++records;
    while (!payload.empty()) {
      size_t consumed = 0;
      if (parser.Parse(payload, &consumed, &args) != resp::ParseStatus::kCommand) {
        return Status::Error("append-only file " + path + ": record #" + std::to_string(records) +
                             " does not hold whole commands");
      }
      dispatcher.Run(client, out, args);
      discard.Clear();
      payload.remove_prefix(consumed);
    }
    dispatcher.EndBatch();
  }
  switch (reader->end()) {
    case persistence::AofReader::End::kClean:
      return Status::Ok();
    case persistence::AofReader::End::kTornTail:
      if (last && config_.Value("aof-load-truncated") == "yes") {
        log::Warning(
            "!!! Warning: short read while loading the append-only file {}: {}; truncating it "
            "at offset {} (aof-load-truncated yes)",
            path, reader->error(), reader->good_offset());
        return persistence::TruncateFile(path, reader->good_offset());
      }
      return Status::Error(reader->error());
    case persistence::AofReader::End::kCorrupt:
      break;
  }
  if (config_.Value("aof-load-corrupted") != "yes") {
    return Status::Error(reader->error() +
                         " (to load the records before it, start with aof-load-corrupted yes)");
  }
  log::Warning(
      "!!! Warning: {}; loaded the {} records before it and nothing after it "
      "(aof-load-corrupted yes); a new base replaces the damaged log",
      reader->error(), records);
  log_cut_ = true;
  return persistence::TruncateFile(path, reader->good_offset());
}

// --- Snapshots ----------------------------------------------------------------------------------

Status Persistence::Dump(const std::string& path, bool lock_held) {
  const int64_t now_ms = NowMs();
  std::unique_ptr<persistence::SnapshotWriter> writer;
  Status status = persistence::SnapshotWriter::Open(path + ".tmp", path, now_ms, &writer);
  if (!status.ok()) return status;
  SnapshotDump dump(keyspace_, now_ms);
  if (lock_held) {
    dump.set_function_libraries(LibrariesForDump());
    status = dump.Run(writer.get(), true);  // nothing changes meanwhile: no observer needed
  } else {
    {
      std::unique_lock lock(keyspace_.mu());
      dump.set_function_libraries(LibrariesForDump());
      active_dump_ = &dump;
    }
    status = dump.Run(writer.get());
    std::unique_lock lock(keyspace_.mu());
    active_dump_ = nullptr;
  }
  if (status.ok()) status = writer->Commit();
  return status;
}

Status Persistence::Save(bool* busy) {
  *busy = job_running_.exchange(true);
  if (*busy) return Status::Ok();
  Status status = SaveSnapshot(false);
  job_running_ = false;
  return status;
}

Status Persistence::Reload(bool save, bool flush) {
  if (job_running_.exchange(true)) return Status::Error("save: a background job is running");
  Status status = save ? SaveSnapshot(/*lock_held=*/true) : Status::Ok();
  if (!status.ok()) {
    status = Status::Error("save: " + status.message());
  } else if (IsRdbFile(SnapshotPath())) {
    status = Status::Error("load: " + SnapshotPath() + " is a Redis RDB file");
  } else {
    if (flush) keyspace_.FlushAll();
    status = MergeSnapshot(SnapshotPath(), keyspace_, NowMs(), ZSetLimitsFromConfig());
    if (!status.ok()) status = Status::Error("load: " + status.message());
  }
  job_running_ = false;
  if (status.ok()) log::Notice("DB reloaded by DEBUG RELOAD");
  return status;
}

Status Persistence::SaveSnapshot(bool lock_held) {
  const uint64_t changes = keyspace_.changes();
  Status status = Dump(SnapshotPath(), lock_held);
  std::lock_guard lock(info_mu_);
  if (status.ok()) {
    last_save_s_ = NowMs() / 1000;
    changes_at_save_ = changes;
    ++info_.saves;
  }
  return status;
}

std::string Persistence::StartBgSave(bool schedule, bool* scheduled) {
  *scheduled = false;
  if (StartJob(false)) return "";
  bool saving;
  {
    std::lock_guard lock(info_mu_);
    saving = info_.bgsave_in_progress;
  }
  if (saving) return std::string(errors::kBgSaveInProgress);
  // A rewrite (or SAVE) holds the job slot: as Redis, SCHEDULE runs the save after it.
  if (!schedule) return std::string(errors::kBgSaveOtherChild);
  bgsave_scheduled_ = true;
  *scheduled = true;
  return "";
}

bool Persistence::StartJob(bool rewrite) {
  if (job_running_.exchange(true)) return false;
  {
    // In progress from the moment the command is answered, not from when the thread runs.
    std::lock_guard lock(info_mu_);
    job_start_ms_ = NowMs();
    if (rewrite) {
      info_.aof_rewrite_in_progress = true;
    } else {
      info_.bgsave_in_progress = true;
    }
  }
  std::lock_guard lock(job_mu_);
  if (job_.joinable()) job_.join();  // the previous job has ended (job_running_ was false)
  job_ = std::thread([this, rewrite] {
    base::MemoryAccountedThread accounted;
    RunJob(rewrite);
  });
  return true;
}

void Persistence::JoinJob() {
  std::lock_guard lock(job_mu_);
  if (job_.joinable()) job_.join();
}

void Persistence::OpenLog(std::unique_ptr<persistence::AofWriter> writer) {
  logs_.push_back(
      std::make_unique<AofLog>(std::move(writer), PolicyFrom(config_.Value("appendfsync"))));
  aof_.store(logs_.back().get(), std::memory_order_release);
}

void Persistence::CloseLog() {
  AofLog* log;
  {
    std::unique_lock lock(keyspace_.mu());
    log = aof_.exchange(nullptr);
  }
  if (log == nullptr) return;
  persistence::Status status = log->Drain();
  if (!status.ok()) {
    log::Warning("Error syncing the append-only log: {}", status.message());
  }
}

std::string Persistence::StartRewrite(bool* scheduled) {
  if (aof() == nullptr) {
    // Redis 7 with appendonly no writes a fresh log anyway; ordis needs the log open to keep the
    // writes that arrive during the rewrite, so it says so instead.
    return "ERR the append-only log is off (appendonly no)";
  }
  {
    std::lock_guard lock(info_mu_);
    if (info_.aof_rewrite_in_progress) {
      return "ERR Background append only file rewriting already in progress";
    }
  }
  // A save running: Redis schedules the rewrite ("... rewriting scheduled") for when it ends.
  *scheduled = !StartJob(true);
  if (*scheduled) rewrite_scheduled_ = true;
  return "";
}

void Persistence::RunJob(bool rewrite) {
  const int64_t start_ms = NowMs();
  Status status = Status::Ok();
  if (rewrite) {
    status = Rewrite();
  } else {
    status = SaveSnapshot(false);
  }
  if (status.ok()) {
    log::Notice("Background {} terminated with success", rewrite ? "AOF rewrite" : "saving");
  } else {
    log::Warning("Background {} failed: {}", rewrite ? "append-only log rewrite" : "save",
                 status.message());
  }
  {
    std::lock_guard lock(info_mu_);
    const int64_t seconds = (NowMs() - start_ms) / 1000;
    if (rewrite) {
      info_.aof_rewrite_in_progress = false;
      info_.last_rewrite_ok = status.ok();
      info_.last_rewrite_time_s = seconds;
      if (status.ok()) ++info_.aof_rewrites;
    } else {
      info_.bgsave_in_progress = false;
      info_.last_bgsave_ok = status.ok();
      info_.last_bgsave_time_s = seconds;
    }
  }
  last_save_attempt_ms_ = NowMs();
  job_running_ = false;  // last: a new job may start (and join this thread) from here on
}

// --- The log's rewrite --------------------------------------------------------------------------

Status Persistence::Rewrite() {
  const uint64_t seq = next_seq_++;
  const int64_t now_ms = NowMs();
  const std::string manifest_path = ManifestPath();
  Status status = persistence::EnsureDirectory(AofDir());
  if (!status.ok()) return status;
  std::unique_ptr<persistence::AofWriter> incr;
  status = persistence::AofWriter::Open(AofPath(IncrName(seq)), &incr);
  if (!status.ok()) return status;
  std::unique_ptr<persistence::SnapshotWriter> base;
  status = persistence::SnapshotWriter::Open(AofPath(BaseName(seq)) + ".tmp",
                                             AofPath(BaseName(seq)), now_ms, &base);
  if (!status.ok()) return status;
  SnapshotDump dump(keyspace_, now_ms);
  {
    // One instant: writes after it go to the new incremental file, and the dump shows the
    // keyspace as it was at it. The manifest lists the new file before anything lands in it, so
    // a crash during the rewrite loses nothing.
    std::unique_lock lock(keyspace_.mu());
    if (aof() == nullptr) {
      OpenLog(std::move(incr));
    } else {
      status = aof()->SwitchWriter(std::move(incr));
      if (!status.ok()) return status;
    }
    manifest_.files.push_back({IncrName(seq), seq, false});
    status = manifest_.Store(manifest_path);
    if (!status.ok()) return status;
    dump.set_function_libraries(LibrariesForDump());
    active_dump_ = &dump;
  }
  status = dump.Run(base.get());
  {
    std::unique_lock lock(keyspace_.mu());
    active_dump_ = nullptr;
  }
  if (status.ok()) status = base->Commit();
  if (!status.ok()) return status;  // the manifest still names the old base and every increment
  std::set<std::string> obsolete;
  {
    std::unique_lock lock(keyspace_.mu());
    persistence::Manifest next;
    next.files.push_back({BaseName(seq), seq, true});
    // Increments opened after this rewrite's (none today: rewrites do not overlap) stay.
    for (const auto& f : manifest_.files) {
      if (!f.base && f.seq >= seq) {
        next.files.push_back(f);
      } else {
        obsolete.insert(f.name);
      }
    }
    status = next.Store(manifest_path);
    if (!status.ok()) return status;
    manifest_ = std::move(next);
  }
  for (const std::string& name : obsolete) unlink(AofPath(name).c_str());
  std::lock_guard lock(info_mu_);
  info_.aof_base_size = FileSize(AofPath(BaseName(seq)));
  return Status::Ok();
}

// --- Cron and shutdown --------------------------------------------------------------------------

void Persistence::Cron(int64_t now_ms) {
  // CONFIG SET appendonly / appendfsync take effect here.
  const bool want_log = config_.Value("appendonly") == "yes";
  if (!want_log && aof() != nullptr && !job_running_) {
    CloseLog();
    log_dir_.clear();  // a log opened later goes to the dir of that time
  }
  if (AofLog* log = aof()) {
    log->set_policy(PolicyFrom(config_.Value("appendfsync")));
    log->SyncIfDue(now_ms);
  }
  if (job_running_) return;
  if (want_log && aof() == nullptr) {
    // Turned on at run time: a rewrite writes the base and opens the log (Redis does the same).
    bool last_ok;
    {
      std::lock_guard lock(info_mu_);
      last_ok = info_.last_rewrite_ok;
    }
    if (!last_ok && now_ms - last_save_attempt_ms_ < kRetryAfterFailureMs) return;
    log_dir_ = ConfiguredAofDir();
    StartJob(true);
    return;
  }
  if (bgsave_scheduled_.exchange(false)) {
    StartJob(false);
    return;
  }
  if (rewrite_scheduled_.exchange(false)) {
    bool scheduled;
    StartRewrite(&scheduled);
    return;
  }
  // save <seconds> <changes> rules.
  const uint64_t changes = keyspace_.changes();
  uint64_t since;
  bool last_ok;
  {
    std::lock_guard lock(info_mu_);
    since = changes - changes_at_save_;
    last_ok = info_.last_bgsave_ok;
  }
  if (since > 0 && (last_ok || now_ms - last_save_attempt_ms_ >= kRetryAfterFailureMs)) {
    std::vector<std::string> words;
    SplitArgs(config_.Value("save"), &words);
    for (size_t i = 0; i + 1 < words.size(); i += 2) {
      const int64_t seconds = std::stoll(words[i]);
      const uint64_t needed = std::stoull(words[i + 1]);
      if (since >= needed && now_ms - last_save_s_ * 1000 >= seconds * 1000) {
        log::Notice("{} changes in {} seconds. Saving...", needed, seconds);
        StartJob(false);
        return;
      }
    }
  }
  // Automatic rewrite when the log outgrows its base.
  if (AofLog* log = aof()) {
    const int64_t percentage = std::stoll(config_.Value("auto-aof-rewrite-percentage"));
    const uint64_t min_size = std::stoull(config_.Value("auto-aof-rewrite-min-size"));
    uint64_t base;
    {
      std::lock_guard lock(info_mu_);
      base = info_.aof_base_size;
    }
    const uint64_t total = base + log->file_size();
    if (percentage > 0 && total >= min_size && base > 0 &&
        (total - base) * 100 / base >= static_cast<uint64_t>(percentage)) {
      log::Notice("Starting automatic rewriting of the append-only log");
      StartJob(true);
    }
  }
}

Status Persistence::Shutdown(bool save, bool force) {
  // Take the job slot, so no background job starts between here and the exit.
  while (job_running_.exchange(true)) JoinJob();
  JoinJob();
  std::unique_lock lock(keyspace_.mu());
  Status status = Status::Ok();
  if (save) status = SaveSnapshot(true);
  if (AofLog* log = aof()) {
    Status drained = log->Drain();
    if (status.ok()) status = drained;
  }
  if (status.ok() || force) {
    control_.RequestShutdown();
  } else {
    job_running_ = false;  // the server goes on
  }
  return status;
}

PersistenceInfo Persistence::Info() const {
  PersistenceInfo info;
  {
    std::lock_guard lock(info_mu_);
    info = info_;
    info.job_start_ms = job_start_ms_;
    info.changes_since_save = keyspace_.changes() - changes_at_save_;
  }
  info.loading = loading_;
  const int64_t running_s = (NowMs() - info.job_start_ms) / 1000;
  info.current_save_time_s = info.bgsave_in_progress ? running_s : -1;
  info.current_rewrite_time_s = info.aof_rewrite_in_progress ? running_s : -1;
  info.last_save_time_s = last_save_s_;
  AofLog* log = aof();
  info.aof_enabled = log != nullptr;
  info.aof_rewrite_scheduled = rewrite_scheduled_;
  if (log != nullptr) {
    info.aof_last_write_ok = log->last_write_ok();
    info.aof_current_size = info.aof_base_size + log->file_size();
  }
  return info;
}

// --- Observer -----------------------------------------------------------------------------------

void Persistence::BeforeKeyChange(int db, std::string_view key, const Object* obj) {
  if (active_dump_ != nullptr) active_dump_->BeforeKeyChange(db, key, obj);
}

void Persistence::BeforeDbChange(int db) {
  if (active_dump_ != nullptr) active_dump_->BeforeDbChange(db);
}

void Persistence::KeyExpired(int db, std::string_view key) {
  if (AofLog* log = aof()) log->StageExpired(db, key);
}

// Evicted, as expired: the log deletes the key (Redis propagates both as DEL).
void Persistence::KeyEvicted(int db, std::string_view key) { KeyExpired(db, key); }

void Persistence::ExpireSet(int db, std::string_view key, int64_t expire_at_ms) {
  if (AofLog* log = aof()) log->NoteExpire(db, key, expire_at_ms);
}

}  // namespace ordis::server
