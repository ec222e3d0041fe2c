#include "persistence/aof_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "base/fatal.h"
#include "persistence/aof_format.h"
#include "persistence/internal/posix_file.h"

namespace ordis::persistence {

using internal::ErrnoText;
using internal::ScopedFd;

namespace {

std::string At(uint64_t offset) { return " at offset " + std::to_string(offset); }

// Pending bytes kept allocated between flushes; a rare huge batch gives its memory back.
constexpr size_t kKeptPendingCapacity = 16 << 20;
// The reader's read size; records larger than this are read whole.
constexpr size_t kReadChunk = 1 << 20;

}  // namespace

// ---- writer ----

struct AofWriter::Impl {
  std::string path;
  ScopedFd fd;
  std::string pending;
  size_t pending_written = 0;  // prefix of pending already in the file (after a failed Flush)
  uint64_t size = 0;
};

Status AofWriter::Open(const std::string& path, std::unique_ptr<AofWriter>* out) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  bool created = false;
  for (;;) {
    impl->fd.Reset(internal::OpenFile(path, O_WRONLY | O_APPEND));
    if (impl->fd.valid() || errno != ENOENT) break;
    impl->fd.Reset(internal::OpenFile(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL));
    if (impl->fd.valid()) {
      created = true;
      break;
    }
    if (errno != EEXIST) break;  // EEXIST: created meanwhile, open it again
  }
  if (!impl->fd.valid()) return Status::Error("aof " + path + ": cannot open: " + ErrnoText(errno));
  struct stat st;
  if (::fstat(impl->fd.get(), &st) != 0) {
    return Status::Error("aof " + path + ": fstat failed: " + ErrnoText(errno));
  }
  impl->size = static_cast<uint64_t>(st.st_size);
  if (created) {
    // The file's name must survive a crash as well as its contents.
    const std::string dir = internal::DirName(path);
    if (const int err = internal::SyncDir(dir); err != 0) {
      return Status::Error("aof " + path + ": fsync of directory " + dir +
                           " failed: " + ErrnoText(err));
    }
  }
  out->reset(new AofWriter(std::move(impl)));
  return Status::Ok();
}

AofWriter::AofWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AofWriter::~AofWriter() = default;

void AofWriter::Add(std::string_view payload) {
  if (payload.size() > kAofMaxPayload) {
    // Framing it would write a wrong length: a log that loads as something else. Batches are
    // bounded far below this by the client query buffer limit, so this is a bug, not input.
    Fatal("aof " + impl_->path + ": a " + std::to_string(payload.size()) +
          "-byte record does not fit the 32-bit length field");
  }
  AppendAofRecord(payload, &impl_->pending);
}

bool AofWriter::has_pending() const { return impl_->pending_written < impl_->pending.size(); }

Status AofWriter::Flush(bool sync) {
  Impl& s = *impl_;
  if (has_pending()) {
    size_t written = 0;
    const int err = internal::WriteAll(s.fd.get(), s.pending.data() + s.pending_written,
                                       s.pending.size() - s.pending_written, &written);
    // What was written stays written: the retry continues after it (a crash in between leaves a
    // torn tail, which recovery truncates).
    s.pending_written += written;
    s.size += written;
    if (err != 0)
      return Status::Error("aof " + s.path + ": write" + At(s.size) + " failed: " + ErrnoText(err));
    if (s.pending.capacity() > kKeptPendingCapacity) {
      std::string().swap(s.pending);
    } else {
      s.pending.clear();
    }
    s.pending_written = 0;
  }
  return sync ? Sync() : Status::Ok();
}

Status AofWriter::Sync() {
  if (const int err = internal::SyncData(impl_->fd.get()); err != 0) {
    return Status::Error("aof " + impl_->path + ": fdatasync failed: " + ErrnoText(err));
  }
  return Status::Ok();
}

uint64_t AofWriter::size() const { return impl_->size; }

// ---- reader ----

struct AofReader::Impl {
  std::string path;
  ScopedFd fd;
  uint64_t file_size = 0;
  // buf holds file bytes from buf_offset on; pos indexes the next unread one.
  std::string buf;
  size_t pos = 0;
  uint64_t buf_offset = 0;
  uint64_t good_offset = 0;
  bool finished = false;
  End end = End::kClean;
  std::string error;

  uint64_t offset() const { return buf_offset + pos; }
  size_t available() const { return buf.size() - pos; }

  // Makes at least n bytes available unless the file ends first; false on a read error.
  bool Fill(size_t n) {
    if (available() >= n) return true;
    buf.erase(0, pos);  // invalidates the previous payload view, as the contract allows
    buf_offset += pos;
    pos = 0;
    while (buf.size() < n) {
      const size_t want = std::max(n - buf.size(), kReadChunk);
      const size_t old = buf.size();
      buf.resize(old + want);
      size_t got = 0;
      const int err = internal::ReadFull(fd.get(), buf.data() + old, want, &got);
      buf.resize(old + got);
      if (err != 0) {
        Finish(End::kCorrupt, "read" + At(buf_offset + old + got) + " failed: " + ErrnoText(err));
        return false;
      }
      if (got < want) break;  // end of file
    }
    return true;
  }

  // True when every byte from offset to the end of the file is zero: a file extended by a crash
  // before its data reached the disk.
  bool ZerosFrom(uint64_t from, std::string* read_error) {
    std::string chunk(kReadChunk, '\0');
    while (from < file_size) {
      size_t got = 0;
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kReadChunk, file_size - from));
      if (const int err = internal::PReadFull(fd.get(), chunk.data(), n, from, &got); err != 0) {
        *read_error = "read" + At(from) + " failed: " + ErrnoText(err);
        return false;
      }
      if (std::any_of(chunk.begin(), chunk.begin() + got, [](char c) { return c != 0; }))
        return false;
      if (got < n) break;
      from += got;
    }
    return true;
  }

  void Finish(End why, std::string what) {
    finished = true;
    end = why;
    if (why != End::kClean) error = "aof " + path + ": " + what;
  }

  // A bad record: a torn tail if only zeros follow it, else corruption.
  void BadRecord(uint64_t record_offset, uint64_t rest_from, const std::string& what) {
    std::string read_error;
    const std::string where = "record" + At(record_offset) + ": " + what;
    if (ZerosFrom(rest_from, &read_error)) {
      Finish(End::kTornTail, where + " (nothing but zeros after it: a torn tail)");
    } else if (!read_error.empty()) {
      Finish(End::kCorrupt, read_error);
    } else {
      Finish(End::kCorrupt, where);
    }
  }
};

Status AofReader::Open(const std::string& path, std::unique_ptr<AofReader>* out) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->fd.Reset(internal::OpenFile(path, O_RDONLY));
  if (!impl->fd.valid()) return Status::Error("aof " + path + ": cannot open: " + ErrnoText(errno));
  struct stat st;
  if (::fstat(impl->fd.get(), &st) != 0) {
    return Status::Error("aof " + path + ": fstat failed: " + ErrnoText(errno));
  }
  impl->file_size = static_cast<uint64_t>(st.st_size);
  out->reset(new AofReader(std::move(impl)));
  return Status::Ok();
}

AofReader::AofReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AofReader::~AofReader() = default;

bool AofReader::Next(std::string_view* payload) {
  Impl& s = *impl_;
  if (s.finished) return false;
  if (!s.Fill(kAofRecordHeaderSize)) return false;
  const uint64_t record_offset = s.offset();
  if (s.available() == 0) {
    s.Finish(End::kClean, "");
    return false;
  }
  if (s.available() < kAofRecordHeaderSize) {
    s.Finish(End::kTornTail, "record" + At(record_offset) + ": the file ends inside its header");
    return false;
  }
  std::string_view header_view(s.buf.data() + s.pos, kAofRecordHeaderSize);
  AofRecordHeader header;
  if (!header.DecodeFrom(&header_view)) {
    s.BadRecord(record_offset, record_offset + kAofRecordHeaderSize, "header check mismatch");
    return false;
  }
  // Compare with the file's size before reading so a length is never allocated beyond it.
  const uint64_t payload_offset = record_offset + kAofRecordHeaderSize;
  if (header.length > s.file_size - std::min(s.file_size, payload_offset) ||
      !s.Fill(kAofRecordHeaderSize + header.length) ||
      s.available() < kAofRecordHeaderSize + header.length) {
    if (!s.finished) {
      s.Finish(End::kTornTail, "record" + At(record_offset) + ": the file ends inside its " +
                                   std::to_string(header.length) + "-byte payload");
    }
    return false;
  }
  const std::string_view body(s.buf.data() + s.pos + kAofRecordHeaderSize, header.length);
  if (AofPayloadChecksum(body) != header.payload_checksum) {
    s.BadRecord(record_offset, payload_offset + header.length, "payload checksum mismatch");
    return false;
  }
  s.pos += kAofRecordHeaderSize + header.length;
  s.good_offset = s.offset();
  *payload = body;
  return true;
}

AofReader::End AofReader::end() const { return impl_->end; }
uint64_t AofReader::good_offset() const { return impl_->good_offset; }
const std::string& AofReader::error() const { return impl_->error; }

Status TruncateFile(const std::string& path, uint64_t size) {
  ScopedFd fd(internal::OpenFile(path, O_WRONLY));
  if (!fd.valid()) return Status::Error(path + ": cannot open to truncate: " + ErrnoText(errno));
  int rc;
  do {
    rc = ::ftruncate(fd.get(), static_cast<off_t>(size));
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    return Status::Error(path + ": truncate to " + std::to_string(size) +
                         " bytes failed: " + ErrnoText(errno));
  }
  if (const int err = internal::SyncAll(fd.get()); err != 0) {
    return Status::Error(path + ": fsync after truncate failed: " + ErrnoText(err));
  }
  if (const int err = fd.Close(); err != 0) {
    return Status::Error(path + ": close after truncate failed: " + ErrnoText(err));
  }
  return Status::Ok();
}

}  // namespace ordis::persistence
