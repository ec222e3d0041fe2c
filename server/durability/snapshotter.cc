#include "server/durability/snapshotter.h"

#include <mutex>
#include <shared_mutex>
#include <utility>
#include <vector>

#include "server/durability/object_codec.h"

namespace ordis::server {
namespace {

// Keys per chunk under the shared lock: long enough to amortize the lock, short enough that
// writers wait at most about a millisecond.
constexpr size_t kChunkKeys = 512;
constexpr size_t kChunkBytes = 4 << 20;

struct OwnedRecord {
  int db;
  uint8_t type;
  int64_t expire_at_ms;
  std::string key;
  std::string payload;
};

}  // namespace

SnapshotDump::SnapshotDump(Keyspace& keyspace, int64_t now_ms)
    : keyspace_(keyspace), now_ms_(now_ms), frozen_(keyspace.num_dbs(), false) {}

std::string SnapshotDump::PositionKey(int db, std::string_view key) {
  std::string pos(1, static_cast<char>(db));
  pos.append(key);
  return pos;
}

bool SnapshotDump::Passed(int db, std::string_view key) const {
  if (db != cursor_db_) return db < cursor_db_;
  return cursor_started_ && key <= cursor_key_;
}

void SnapshotDump::Capture(int db, std::string_view key, const Object* obj) {
  if (Passed(db, key) || frozen_[db]) return;
  auto [it, inserted] = pre_images_.try_emplace(PositionKey(db, key));
  if (!inserted) return;  // the first change's pre-image is the snapshot's state
  PreImage& pre = it->second;
  // A key that had already expired at the snapshot's moment was not in it.
  if (obj == nullptr || (obj->has_ttl() && obj->expire_at_ms() <= now_ms_)) return;
  pre.present = true;
  pre.type = static_cast<uint8_t>(obj->type());
  pre.expire_at_ms = obj->expire_at_ms();
  EncodeObject(*obj, &pre.payload);
}

void SnapshotDump::BeforeKeyChange(int db, std::string_view key, const Object* obj) {
  Capture(db, key, obj);
}

void SnapshotDump::BeforeDbChange(int db) {
  // Everything not yet written in the database(s) is about to change: keep it all aside now.
  for (int d = db < 0 ? 0 : db; d < (db < 0 ? keyspace_.num_dbs() : db + 1); ++d) {
    if (d < cursor_db_) continue;
    index::ScanStart start = index::ScanStart::Edge();
    if (d == cursor_db_ && cursor_started_) start = index::ScanStart::After(cursor_key_);
    keyspace_.Scan(d, start, index::Direction::kForward, now_ms_,
                   [&](std::string_view key, Object* obj) {
                     Capture(d, key, keyspace_.Resident(d, key, obj));
                     keyspace_.DropReadCopies();
                     return true;
                   });
    frozen_[d] = true;
  }
}

persistence::Status SnapshotDump::Run(persistence::SnapshotWriter* writer, bool lock_held) {
  for (const auto& [name, code] : libraries_) {
    persistence::Status s = writer->Add({0, kFunctionLibraryRecord, kNoExpire, name, code});
    if (!s.ok()) return s;
  }
  std::vector<OwnedRecord> chunk;
  std::string position;
  const int num_dbs = keyspace_.num_dbs();
  while (cursor_db_ < num_dbs) {
    chunk.clear();
    {
      std::shared_lock lock(keyspace_.mu(), std::defer_lock);
      if (!lock_held) lock.lock();
      const int db = cursor_db_;
      size_t bytes = 0;
      bool db_done = true;
      auto add = [&](OwnedRecord r) {
        bytes += r.key.size() + r.payload.size();
        chunk.push_back(std::move(r));
      };
      // Writes the pre-images of db's keys after the cursor and before key (all of them when
      // inclusive_all): keys deleted since the snapshot's moment, merged in order with live keys.
      auto emit_pre_images_before = [&](std::string_view key, bool inclusive_all) {
        const std::string from = PositionKey(db, cursor_started_ ? cursor_key_ : "");
        auto it = cursor_started_ ? pre_images_.upper_bound(from) : pre_images_.lower_bound(from);
        while (it != pre_images_.end() && static_cast<uint8_t>(it->first[0]) == db) {
          std::string_view pre_key = std::string_view(it->first).substr(1);
          if (!inclusive_all && pre_key >= key) break;
          if (it->second.present) {
            add({db, it->second.type, it->second.expire_at_ms, std::string(pre_key),
                 std::move(it->second.payload)});
          }
          it = pre_images_.erase(it);
        }
      };
      index::ScanStart start = index::ScanStart::Edge();
      if (cursor_started_) start = index::ScanStart::After(cursor_key_);
      if (!frozen_[db]) {
        keyspace_.Scan(db, start, index::Direction::kForward, now_ms_,
                       [&](std::string_view key, Object* obj) {
                         if (chunk.size() >= kChunkKeys || bytes >= kChunkBytes) {
                           db_done = false;
                           return false;
                         }
                         emit_pre_images_before(key, false);
                         position = PositionKey(db, key);
                         auto pre = pre_images_.find(position);
                         if (pre != pre_images_.end()) {
                           // Absent: a key created after the snapshot's moment.
                           if (pre->second.present) {
                             add({db, pre->second.type, pre->second.expire_at_ms, std::string(key),
                                  std::move(pre->second.payload)});
                           }
                           pre_images_.erase(pre);
                         } else {
                           // A cold value whose record cannot be read is lost: not written.
                           if (const Object* value = keyspace_.Resident(db, key, obj)) {
                             OwnedRecord r{db,
                                           static_cast<uint8_t>(obj->type()),
                                           obj->expire_at_ms(),
                                           std::string(key),
                                           {}};
                             EncodeObject(*value, &r.payload);
                             add(std::move(r));
                             keyspace_.DropReadCopies();
                           }
                         }
                         cursor_started_ = true;
                         cursor_key_.assign(key);
                         return true;
                       });
      }
      if (db_done) {
        emit_pre_images_before({}, true);
        ++cursor_db_;
        cursor_started_ = false;
        cursor_key_.clear();
      }
    }
    for (const OwnedRecord& r : chunk) {
      persistence::Status s =
          writer->Add({static_cast<uint8_t>(r.db), r.type, r.expire_at_ms, r.key, r.payload});
      if (!s.ok()) return s;
      ++keys_written_;
    }
  }
  return persistence::Status::Ok();
}

namespace {

// Reads a snapshot's key records in order, collecting function libraries on the way.
class KeyRecords {
 public:
  KeyRecords(const std::string& path, Keyspace& keyspace, const ZSetLimits& limits)
      : path_(path), keyspace_(keyspace), limits_(limits) {}

  persistence::Status Open() { return persistence::SnapshotReader::Open(path_, &reader_); }
  // The next key's record and its decoded value; false at the end or on an error (status()).
  bool Next(std::vector<std::string>* libraries, ObjectPtr* obj) {
    bool done = false;
    status_ = reader_->Next(&record_, &done);
    while (status_.ok() && !done && record_.type == kFunctionLibraryRecord) {
      if (libraries != nullptr) libraries->emplace_back(record_.payload);
      status_ = reader_->Next(&record_, &done);
    }
    if (!status_.ok() || done) return false;
    if (record_.db >= keyspace_.num_dbs()) {
      status_ = persistence::Status::Error("snapshot " + path_ + ": a key of database " +
                                           std::to_string(record_.db) + ", but the server has " +
                                           std::to_string(keyspace_.num_dbs()) + " (databases)");
      return false;
    }
    *obj = DecodeObject(record_.type, record_.payload, limits_, record_.expire_at_ms);
    if (*obj == nullptr) {
      status_ = persistence::Status::Error("snapshot " + path_ + ": malformed value of key #" +
                                           std::to_string(records_ + 1));
      return false;
    }
    ++records_;
    return true;
  }
  const persistence::SnapshotRecord& record() const { return record_; }
  const persistence::Status& status() const { return status_; }

 private:
  const std::string& path_;
  Keyspace& keyspace_;
  const ZSetLimits& limits_;
  std::unique_ptr<persistence::SnapshotReader> reader_;
  persistence::SnapshotRecord record_;
  persistence::Status status_ = persistence::Status::Ok();
  uint64_t records_ = 0;  // read so far, for the error message
};

}  // namespace

persistence::Status LoadSnapshot(const std::string& path, Keyspace& keyspace, int64_t now_ms,
                                 const ZSetLimits& limits, std::vector<std::string>* libraries) {
  KeyRecords records(path, keyspace, limits);
  persistence::Status status = records.Open();
  if (!status.ok()) return status;
  const bool in_order = keyspace.BulkLoad(
      [&](int* db, std::string_view* key, ObjectPtr* obj) {
        if (!records.Next(libraries, obj)) return false;
        *db = records.record().db;
        *key = records.record().key;
        return true;
      },
      now_ms);
  if (!records.status().ok()) return records.status();
  if (!in_order) return persistence::Status::Error("snapshot " + path + ": keys out of order");
  return persistence::Status::Ok();
}

persistence::Status MergeSnapshot(const std::string& path, Keyspace& keyspace, int64_t now_ms,
                                  const ZSetLimits& limits) {
  KeyRecords records(path, keyspace, limits);
  persistence::Status status = records.Open();
  if (!status.ok()) return status;
  ObjectPtr obj;
  while (records.Next(nullptr, &obj)) {
    if (obj->has_ttl() && obj->expire_at_ms() <= now_ms) continue;
    keyspace.Set(records.record().db, records.record().key, std::move(obj));
  }
  return records.status();
}

}  // namespace ordis::server
