// Thin POSIX wrappers for the persistence files: they retry EINTR and short transfers and return an
// errno value (0 on success) so that callers can build messages naming the file and the offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ordis::persistence::internal {

// Owns a file descriptor; closes it (ignoring errors) unless Release()d.
class ScopedFd {
 public:
  ScopedFd() = default;
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  void Reset(int fd = -1);
  // Closes now and reports close()'s errno: after a write, a close error can mean lost data.
  int Close();

 private:
  int fd_ = -1;
};

// strerror text of err, thread-safe.
std::string ErrnoText(int err);

// open(2) retried on EINTR; returns the fd or -1 with errno set.
int OpenFile(const std::string& path, int flags, int mode = 0644);
// Writes all n bytes; *written counts what reached the file even on error.
int WriteAll(int fd, const char* data, size_t n, size_t* written);
// Reads until n bytes or end of file; *got counts what was read.
int ReadFull(int fd, char* buf, size_t n, size_t* got);
int PReadFull(int fd, char* buf, size_t n, uint64_t offset, size_t* got);
int SyncData(int fd);  // fdatasync
int SyncAll(int fd);   // fsync
// Opens dir and fsyncs it, so that a rename or a creation in it is durable.
int SyncDir(const std::string& dir);
// The directory part of path ("." for a bare name, "/" for a file in the root).
std::string DirName(const std::string& path);

}  // namespace ordis::persistence::internal
