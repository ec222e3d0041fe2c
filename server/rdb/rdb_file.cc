#include "server/rdb/rdb_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <deque>

#include "base/number.h"
#include "persistence/rdb_payload.h"
#include "server/keyspace/eviction.h"

namespace ordis::server {
namespace {

namespace rdb = persistence::rdb;
using persistence::Status;

constexpr std::string_view kMagic = "REDIS";
constexpr int kMaxVersion = 11;  // Redis 7.2's; 7.0 writes 10, 6.x 9

// The file mapped read-only: records are read in place, and the kernel reads ahead.
class MappedFile {
 public:
  ~MappedFile() {
    if (data_ != nullptr) munmap(data_, size_);
  }
  Status Open(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::Error(path + ": " + std::strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
      close(fd);
      return Status::Error(path + ": " + std::strerror(errno));
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        close(fd);
        return Status::Error(path + ": mmap: " + std::strerror(errno));
      }
      data_ = p;
      madvise(data_, size_, MADV_SEQUENTIAL);
    }
    close(fd);
    return Status::Ok();
  }
  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

Status Malformed(const std::string& path, std::string_view what, size_t offset) {
  return Status::Error("RDB file " + path + ": " + std::string(what) + " at offset " +
                       std::to_string(offset));
}

// A key read from the file, to be sorted with the others and bulk-loaded. 40 bytes: sorting 10M of
// them is most of a large file's load.
struct KeyRecord {
  // The key's first 16 bytes, big-endian and zero-padded: comparisons end here unless two keys
  // share them, without touching the key's bytes in the file (a cache miss each, in hash order).
  // A key of at most 16 bytes is read back from here too.
  uint64_t prefix[2];
  const char* data;
  uint32_t size;
  uint32_t db;
  ObjectPtr obj;

  std::string_view key() const { return {data, size}; }
  bool Short() const { return size <= sizeof prefix; }
  // Whether this key sorts before other's, given that their prefixes are equal: then of two short
  // keys the shorter is the other's prefix followed by zero bytes.
  bool TailBefore(const KeyRecord& other) const {
    return Short() && other.Short() ? size < other.size : key() < other.key();
  }
  bool SameKey(const KeyRecord& other) const {
    return db == other.db && prefix[0] == other.prefix[0] && prefix[1] == other.prefix[1] &&
           size == other.size && (Short() || key() == other.key());
  }
};

// Sorts what the file held by database and key and loads it through the keyspace's bulk load. Two
// records of one key make the file corrupt, as Redis says.
Status LoadSorted(const std::string& path, std::vector<KeyRecord> pending, Keyspace& keyspace,
                  int64_t now_ms) {
  std::sort(pending.begin(), pending.end(), [](const KeyRecord& a, const KeyRecord& b) {
    if (a.db != b.db) return a.db < b.db;
    if (a.prefix[0] != b.prefix[0]) return a.prefix[0] < b.prefix[0];
    if (a.prefix[1] != b.prefix[1]) return a.prefix[1] < b.prefix[1];
    return a.TailBefore(b);
  });
  for (size_t i = 1; i < pending.size(); ++i) {
    if (pending[i].SameKey(pending[i - 1])) {
      return Status::Error("RDB file " + path + ": key " + std::string(pending[i].key()) +
                           " appears twice");
    }
  }
  std::unique_lock lock(keyspace.mu());
  size_t next = 0;
  char short_key[sizeof KeyRecord::prefix];
  const bool in_order = keyspace.BulkLoad(
      [&](int* db, std::string_view* key, ObjectPtr* obj) {
        if (next == pending.size()) return false;
        // The objects were made in the file's order and are taken in key order: fetch ahead the
        // header the bulk load reads (its TTL), and a long key's bytes, or each is a cache miss.
        constexpr size_t kAhead = 16;
        if (next + kAhead < pending.size()) {
          const KeyRecord& ahead = pending[next + kAhead];
          __builtin_prefetch(ahead.obj.get());
          if (!ahead.Short()) __builtin_prefetch(ahead.data);
        }
        KeyRecord& r = pending[next++];
        *db = static_cast<int>(r.db);
        if (r.Short()) {
          for (size_t i = 0; i < r.size; ++i) {
            short_key[i] = static_cast<char>(r.prefix[i / 8] >> (56 - 8 * (i % 8)));
          }
          *key = std::string_view(short_key, r.size);
        } else {
          *key = r.key();
        }
        *obj = std::move(r.obj);
        return true;
      },
      now_ms);
  return in_order ? Status::Ok() : Status::Error("RDB file " + path + ": keys out of order");
}

}  // namespace

bool IsRdbFile(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char head[5];
  const bool rdb =
      read(fd, head, sizeof head) == sizeof head && std::string_view(head, sizeof head) == kMagic;
  close(fd);
  return rdb;
}

Status LoadRdbFile(const std::string& path, Keyspace& keyspace, int64_t now_ms,
                   const RdbLimits& limits, bool lfu_policy, std::vector<std::string>* libraries,
                   RdbLoadStats* stats) {
  MappedFile file;
  Status status = file.Open(path);
  if (!status.ok()) return status;
  const std::string_view bytes = file.bytes();
  int version = 0;
  for (size_t i = 5; i < 9 && i < bytes.size(); ++i) {
    version = bytes[i] >= '0' && bytes[i] <= '9' ? version * 10 + (bytes[i] - '0') : -1000;
  }
  if (bytes.size() < 9 || bytes.substr(0, 5) != kMagic || version < 1 || version > kMaxVersion) {
    return Status::Error("RDB file " + path + ": not an RDB file of version 1 to " +
                         std::to_string(kMaxVersion));
  }
  stats->version = version;
  rdb::Reader in(bytes.substr(9));
  auto offset = [&] { return 9 + in.position(); };
  // Keys are gathered and sorted, then bulk-loaded: the index builds its leaves from sorted input
  // far faster than it takes keys in the file's hash order one by one (1M keys: see the README).
  // A key views the mapped file unless it had to be decoded (an integer, LZF): then its bytes
  // live in decoded_keys.
  std::vector<KeyRecord> pending;
  std::deque<std::string> decoded_keys;
  std::string key_scratch;
  std::string_view key;
  int db = 0;
  int64_t expire_at = kNoExpire;
  int64_t idle_s = -1, freq = -1;
  std::string aux_key, aux_value;
  while (true) {
    uint8_t type;
    if (!in.ReadByte(&type)) return Malformed(path, "unexpected end of file", offset());
    switch (type) {
      case rdb::kOpcodeExpireTimeMs: {
        uint64_t ms;
        if (!in.ReadLittleEndian(8, &ms)) return Malformed(path, "bad expire time", offset());
        expire_at = static_cast<int64_t>(ms);
        continue;
      }
      case rdb::kOpcodeExpireTime: {
        uint64_t s;
        if (!in.ReadLittleEndian(4, &s)) return Malformed(path, "bad expire time", offset());
        expire_at = static_cast<int64_t>(s) * 1000;
        continue;
      }
      case rdb::kOpcodeIdle: {
        uint64_t idle;
        if (!in.ReadLength(&idle)) return Malformed(path, "bad idle time", offset());
        idle_s = static_cast<int64_t>(idle);
        continue;
      }
      case rdb::kOpcodeFreq: {
        uint8_t f;
        if (!in.ReadByte(&f)) return Malformed(path, "bad frequency", offset());
        freq = f;
        continue;
      }
      case rdb::kOpcodeSelectDb: {
        uint64_t n;
        if (!in.ReadLength(&n)) return Malformed(path, "bad database number", offset());
        if (n >= static_cast<uint64_t>(keyspace.num_dbs())) {
          return Status::Error("RDB file " + path + " has keys of database " + std::to_string(n) +
                               ", but the server has " + std::to_string(keyspace.num_dbs()) +
                               " (databases)");
        }
        db = static_cast<int>(n);
        continue;
      }
      case rdb::kOpcodeResizeDb: {
        uint64_t keys, expires;
        if (!in.ReadLength(&keys) || !in.ReadLength(&expires)) {
          return Malformed(path, "bad RESIZEDB", offset());
        }
        continue;
      }
      case rdb::kOpcodeAux:
        // redis-ver, ctime, used-mem, repl-*, aof-base, lua ...: nothing ordis needs.
        if (!in.ReadString(&aux_key) || !in.ReadString(&aux_value)) {
          return Malformed(path, "bad AUX field", offset());
        }
        continue;
      case rdb::kOpcodeFunction2:
        if (!in.ReadString(&aux_value)) return Malformed(path, "bad function library", offset());
        libraries->push_back(aux_value);
        continue;
      case rdb::kOpcodeFunctionPreGa:
        return Status::Error("RDB file " + path +
                             ": pre-release function format not supported (as Redis 7.0)");
      case rdb::kOpcodeModuleAux:
        return Status::Error("RDB file " + path + ": module data, and ordis loads no modules");
      case rdb::kOpcodeEof: {
        if (version >= 5) {
          const size_t end = 9 + in.position();
          uint64_t stored;
          if (!in.ReadLittleEndian(8, &stored)) return Malformed(path, "no checksum", offset());
          if (stored != 0 && rdb::Crc64(0, bytes.substr(0, end)) != stored) {
            return Status::Error("RDB file " + path + ": wrong checksum");
          }
        }
        return LoadSorted(path, std::move(pending), keyspace, now_ms);
      }
      default:
        break;
    }
    // A key: its name, then its value.
    const size_t at = offset();
    if (!in.ReadStringView(&key, &key_scratch)) return Malformed(path, "bad key", at);
    if (key.data() == key_scratch.data()) key = decoded_keys.emplace_back(std::move(key_scratch));
    ObjectPtr obj;
    switch (ReadRdbValue(type, &in, limits, expire_at, &obj)) {
      case RdbValueStatus::kOk:
        break;
      case RdbValueStatus::kEmpty:
        ++stats->empty;
        break;
      case RdbValueStatus::kUnsupported:
        return Status::Error("RDB file " + path + ": value of type " + std::to_string(type) +
                             " (a module value or a zipmap) at offset " + std::to_string(at) +
                             ", which ordis does not load");
      case RdbValueStatus::kMalformed:
        return Malformed(path, "bad value of type " + std::to_string(type), at);
    }
    if (obj != nullptr && expire_at != kNoExpire && expire_at <= now_ms) {
      ++stats->expired;  // as a master does, an expired key is not loaded
    } else if (obj != nullptr) {
      if (lfu_policy) {
        if (freq >= 0) obj->lfu.store(static_cast<uint8_t>(freq), std::memory_order_relaxed);
        obj->access_s.store(LruClockS(now_ms), std::memory_order_relaxed);
      } else {
        const uint32_t now_s = LruClockS(now_ms);
        const uint64_t idle = idle_s > 0 ? static_cast<uint64_t>(idle_s) : 0;
        obj->access_s.store(idle < now_s ? static_cast<uint32_t>(now_s - idle) : 0,
                            std::memory_order_relaxed);
      }
      if (key.size() > UINT32_MAX) return Malformed(path, "key too long", at);
      KeyRecord& r = pending.emplace_back();
      for (int w = 0; w < 2; ++w) {
        uint64_t v = 0;
        for (size_t i = 0; i < 8; ++i) {
          const size_t at = 8 * static_cast<size_t>(w) + i;
          v = (v << 8) | (at < key.size() ? static_cast<uint8_t>(key[at]) : 0);
        }
        r.prefix[w] = v;
      }
      r.data = key.data();
      r.size = static_cast<uint32_t>(key.size());
      r.db = static_cast<uint32_t>(db);
      r.obj = std::move(obj);
      ++stats->keys;
    }
    expire_at = kNoExpire;
    idle_s = freq = -1;
  }
}

namespace {

// Writes through a buffer, keeping the checksum of everything written.
class RdbWriter {
 public:
  ~RdbWriter() {
    if (fd_ >= 0) close(fd_);
  }
  Status Open(const std::string& path) {
    path_ = path;
    fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return fd_ < 0 ? Status::Error(path + ": " + std::strerror(errno)) : Status::Ok();
  }
  std::string& buffer() { return buffer_; }
  Status MaybeFlush() { return buffer_.size() >= (1 << 20) ? Flush() : Status::Ok(); }
  Status Flush() {
    crc_ = rdb::Crc64(crc_, buffer_);
    size_t done = 0;
    while (done < buffer_.size()) {
      const ssize_t n = write(fd_, buffer_.data() + done, buffer_.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return Status::Error(path_ + ": " + std::strerror(errno));
      done += static_cast<size_t>(n);
    }
    buffer_.clear();
    return Status::Ok();
  }
  // EOF, the checksum, and fsync.
  Status Finish() {
    buffer_.push_back(static_cast<char>(rdb::kOpcodeEof));
    Status status = Flush();
    if (!status.ok()) return status;
    rdb::AppendLittleEndian(&buffer_, crc_, 8);
    status = Flush();
    if (!status.ok()) return status;
    if (fsync(fd_) != 0) return Status::Error(path_ + ": fsync: " + std::strerror(errno));
    return Status::Ok();
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::string buffer_;
  uint64_t crc_ = 0;
};

void AppendAux(std::string* out, std::string_view key, std::string_view value) {
  out->push_back(static_cast<char>(rdb::kOpcodeAux));
  rdb::AppendString(out, key);
  rdb::AppendString(out, value);
}

}  // namespace

Status WriteRdbFile(const std::string& path, Keyspace& keyspace, int64_t now_ms,
                    const RdbLimits& limits, std::string_view redis_version,
                    const std::vector<std::string>& libraries) {
  RdbWriter writer;
  Status status = writer.Open(path);
  if (!status.ok()) return status;
  std::string& out = writer.buffer();
  out = "REDIS0010";
  AppendAux(&out, "redis-ver", redis_version);
  AppendAux(&out, "redis-bits", "64");
  AppendAux(&out, "ctime", std::to_string(now_ms / 1000));
  AppendAux(&out, "used-mem", "0");
  AppendAux(&out, "aof-base", "0");
  for (const std::string& code : libraries) {
    out.push_back(static_cast<char>(rdb::kOpcodeFunction2));
    rdb::AppendString(&out, code);
  }
  std::shared_lock lock(keyspace.mu());
  std::string value;
  for (int db = 0; db < keyspace.num_dbs() && status.ok(); ++db) {
    if (keyspace.DbSize(db) == 0) continue;
    out.push_back(static_cast<char>(rdb::kOpcodeSelectDb));
    rdb::AppendLength(&out, static_cast<uint64_t>(db));
    out.push_back(static_cast<char>(rdb::kOpcodeResizeDb));
    rdb::AppendLength(&out, keyspace.DbSize(db));
    rdb::AppendLength(&out, keyspace.ExpiresCount(db));
    keyspace.Scan(db, index::ScanStart::Edge(), index::Direction::kForward, now_ms,
                  [&](std::string_view key, Object* obj) {
                    const Object* resident = keyspace.Resident(db, key, obj);
                    if (resident == nullptr) {
                      status = Status::Error("the cold value of a key could not be read");
                      return false;
                    }
                    if (resident->has_ttl()) {
                      out.push_back(static_cast<char>(rdb::kOpcodeExpireTimeMs));
                      rdb::AppendLittleEndian(&out, static_cast<uint64_t>(resident->expire_at_ms()),
                                              8);
                    }
                    // The type byte, the key, then the value.
                    value.clear();
                    AppendRdbValue(*resident, limits, &value);
                    out.push_back(value[0]);
                    rdb::AppendString(&out, key);
                    out.append(value, 1);
                    status = writer.MaybeFlush();
                    return status.ok();
                  });
  }
  if (!status.ok()) return status;
  return writer.Finish();
}

}  // namespace ordis::server
