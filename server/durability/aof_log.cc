#include "server/durability/aof_log.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "resp/writer.h"

namespace ordis::server {

AofLog::AofLog(std::unique_ptr<persistence::AofWriter> writer, FsyncPolicy policy)
    : writer_(std::move(writer)), policy_(policy), file_size_(writer_->size()) {}

void AofLog::set_policy(FsyncPolicy policy) {
  std::lock_guard lock(mu_);
  policy_ = policy;
}

void AofLog::AppendSelect(int db) {
  if (db == last_db_) return;
  const std::string number = absl::StrCat(db);
  const std::string_view select[] = {"SELECT", number};
  AppendArgs(select);
  last_db_ = db;
}

void AofLog::AppendArgs(std::span<const std::string_view> args) {
  resp::AppendCommand(&record_, args);
}

uint64_t AofLog::CloseRecord() {
  if (record_.empty()) return 0;
  std::lock_guard lock(mu_);
  // Back to back in one buffer, so staging allocates nothing in the steady state.
  staged_bytes_.append(record_);
  staged_ends_.push_back(staged_bytes_.size());
  record_.clear();
  return ++staged_seq_;
}

void AofLog::BeginGroup() { in_group_ = true; }

uint64_t AofLog::EndGroup() {
  in_group_ = false;
  return CloseRecord();
}

uint64_t AofLog::StageCommand(int db, std::span<const std::string_view> args) {
  AppendSelect(db);
  AppendArgs(args);
  for (const PendingExpire& e : expires_) {
    AppendSelect(e.db);
    const std::string at = absl::StrCat(e.at);
    const std::string_view pexpireat[] = {"PEXPIREAT", e.key, at};
    AppendArgs(pexpireat);
  }
  expires_.clear();
  return EndEntry();
}

void AofLog::SkipCommand() { expires_.clear(); }

void AofLog::NoteExpire(int db, std::string_view key, int64_t expire_at_ms) {
  expires_.push_back({db, std::string(key), expire_at_ms});
}

uint64_t AofLog::StageExpired(int db, std::string_view key) {
  AppendSelect(db);
  const std::string_view del[] = {"DEL", key};
  AppendArgs(del);
  return EndEntry();
}

uint64_t AofLog::EndEntry() {
  if (!in_group_) return CloseRecord();
  std::lock_guard lock(mu_);
  return staged_seq_ + 1;  // the group's record, once EndGroup closes it
}

persistence::Status AofLog::WriteStaged(std::unique_lock<std::mutex>& lock, bool sync) {
  if (staged_ends_.empty() && !sync) return persistence::Status::Ok();
  writing_ = true;
  // The round's records move to the spare buffers (whose capacity the next round reuses).
  round_bytes_.swap(staged_bytes_);
  round_ends_.swap(staged_ends_);
  const uint64_t batch_seq = staged_seq_;
  persistence::AofWriter* writer = writer_.get();
  // Framing, the write and the sync run without mu_: stagers keep staging the next round.
  lock.unlock();
  size_t begin = 0;
  for (size_t end : round_ends_) {
    writer->Add(std::string_view(round_bytes_).substr(begin, end - begin));
    begin = end;
  }
  round_bytes_.clear();
  round_ends_.clear();
  persistence::Status status = writer->Flush(sync);
  lock.lock();
  writing_ = false;
  file_size_ = writer->size();
  last_write_ok_ = status.ok();
  if (status.ok()) {
    written_seq_ = batch_seq;
    if (sync) {
      dirty_since_sync_ = false;
    } else {
      dirty_since_sync_ = true;
    }
  }
  // On failure the records stay in the writer's pending buffer (AofWriter keeps them), so the
  // next round retries them; written_seq_ does not move.
  round_done_.notify_all();
  return status;
}

persistence::Status AofLog::Commit(uint64_t seq) {
  if (seq == 0) return persistence::Status::Ok();
  std::unique_lock lock(mu_);
  while (written_seq_ < seq) {
    if (writing_) {
      round_done_.wait(lock);
      continue;
    }
    persistence::Status status = WriteStaged(lock, policy_ == FsyncPolicy::kAlways);
    if (!status.ok()) return status;
  }
  return persistence::Status::Ok();
}

void AofLog::SyncIfDue(int64_t now_ms) {
  std::unique_lock lock(mu_);
  if (policy_ != FsyncPolicy::kEverySec || now_ms - last_sync_ms_ < 1000) {
    // Records no client waits for (expiry deletions) still reach the file within a cron tick.
    if (!staged_ends_.empty() && !writing_) WriteStaged(lock, policy_ == FsyncPolicy::kAlways);
    return;
  }
  last_sync_ms_ = now_ms;
  while (writing_) round_done_.wait(lock);
  if (!staged_ends_.empty()) {
    WriteStaged(lock, true);
    return;
  }
  if (!dirty_since_sync_) return;
  dirty_since_sync_ = false;
  persistence::AofWriter* writer = writer_.get();
  writing_ = true;
  lock.unlock();
  persistence::Status status = writer->Sync();
  lock.lock();
  writing_ = false;
  if (!status.ok()) {
    last_write_ok_ = false;
    dirty_since_sync_ = true;
  }
  round_done_.notify_all();
}

persistence::Status AofLog::Drain() {
  std::unique_lock lock(mu_);
  while (writing_) round_done_.wait(lock);
  return WriteStaged(lock, true);
}

persistence::Status AofLog::SwitchWriter(std::unique_ptr<persistence::AofWriter> writer) {
  std::unique_lock lock(mu_);
  while (writing_) round_done_.wait(lock);
  persistence::Status status = WriteStaged(lock, true);
  if (!status.ok()) return status;
  while (writing_) round_done_.wait(lock);  // a leader may have started a round meanwhile
  writer_ = std::move(writer);
  file_size_ = writer_->size();
  last_db_ = -1;  // a new file starts without a selected database
  return persistence::Status::Ok();
}

uint64_t AofLog::file_size() const {
  std::lock_guard lock(mu_);
  return file_size_;
}

bool AofLog::last_write_ok() const {
  std::lock_guard lock(mu_);
  return last_write_ok_;
}

}  // namespace ordis::server
