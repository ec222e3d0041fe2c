#include "persistence/internal/posix_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace ordis::persistence::internal {

void ScopedFd::Reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

int ScopedFd::Close() {
  if (fd_ < 0) return 0;
  // No retry on EINTR: on Linux the descriptor is released either way, and a retry could close a
  // descriptor another thread has just been given.
  const int rc = ::close(fd_);
  fd_ = -1;
  return rc == 0 ? 0 : errno;
}

std::string ErrnoText(int err) { return std::error_code(err, std::generic_category()).message(); }

int OpenFile(const std::string& path, int flags, int mode) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

int WriteAll(int fd, const char* data, size_t n, size_t* written) {
  *written = 0;
  while (*written < n) {
    const ssize_t rc = ::write(fd, data + *written, n - *written);
    if (rc < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (rc == 0) return EIO;  // write(2) never returns 0 for n > 0; do not spin if it does
    *written += static_cast<size_t>(rc);
  }
  return 0;
}

int ReadFull(int fd, char* buf, size_t n, size_t* got) {
  *got = 0;
  while (*got < n) {
    const ssize_t rc = ::read(fd, buf + *got, n - *got);
    if (rc < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (rc == 0) break;
    *got += static_cast<size_t>(rc);
  }
  return 0;
}

int PReadFull(int fd, char* buf, size_t n, uint64_t offset, size_t* got) {
  *got = 0;
  while (*got < n) {
    const ssize_t rc = ::pread(fd, buf + *got, n - *got, static_cast<off_t>(offset + *got));
    if (rc < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (rc == 0) break;
    *got += static_cast<size_t>(rc);
  }
  return 0;
}

int SyncData(int fd) {
  int rc;
  do {
    rc = ::fdatasync(fd);
  } while (rc != 0 && errno == EINTR);
  return rc == 0 ? 0 : errno;
}

int SyncAll(int fd) {
  int rc;
  do {
    rc = ::fsync(fd);
  } while (rc != 0 && errno == EINTR);
  return rc == 0 ? 0 : errno;
}

int SyncDir(const std::string& dir) {
  ScopedFd fd(OpenFile(dir, O_RDONLY | O_DIRECTORY));
  if (!fd.valid()) return errno;
  if (const int err = SyncAll(fd.get()); err != 0) return err;
  return fd.Close();
}

std::string DirName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace ordis::persistence::internal
