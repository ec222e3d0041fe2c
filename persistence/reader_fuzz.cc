// libFuzzer target for the readers of snapshot files, append-only log files, manifests,
// cold-tier segments, DUMP payloads (rdb_payload.h) and the packed containers inside RDB values
// (rdb_containers.h: listpacks, ziplists, intsets). Input layout: one byte choosing the reader,
// then the file's bytes.
//
// Checks: every reader ends with records or an error, never a crash, a hang, a read outside its
// buffers or an allocation the file's size does not justify (AddressSanitizer's allocation limit
// catches that); a snapshot reader that reports its trailer verified has returned only records that
// lie inside the file; a tier record decoded whole re-encodes to a record that decodes to the same
// key and value; a listpack read whole, written again, reads back the same elements.

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "persistence/aof_file.h"
#include "persistence/manifest.h"
#include "persistence/rdb_containers.h"
#include "persistence/rdb_payload.h"
#include "persistence/snapshot_file.h"
#include "persistence/tier_format.h"

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
  const uint8_t which = data[0] % 6;
  using namespace ordis::persistence;
  if (which == 5) {
    // The same bytes as a listpack, a ziplist and an intset.
    const std::string_view blob(reinterpret_cast<const char*>(data + 1), size - 1);
    std::vector<std::string> elements;
    rdb::ListpackReader lp(blob);
    std::string_view e;
    while (lp.Next(&e)) elements.emplace_back(e);
    if (lp.ok()) {
      rdb::ListpackWriter writer;
      for (const auto& el : elements) writer.Append(el);
      const std::string again = writer.Finish();
      rdb::ListpackReader back(again);
      for (const auto& el : elements) {
        if (!back.Next(&e) || e != el) abort();
      }
      if (back.Next(&e) || !back.ok()) abort();
    }
    rdb::ZiplistReader zl(blob);
    while (zl.Next(&e)) {
    }
    rdb::IntsetReader is(blob);
    while (is.Next(&e)) {
    }
    return 0;
  }
  if (which == 4) {
    // A DUMP payload (FUNCTION RESTORE's): values read until the trailer, each string re-encoded
    // and read back the same.
    const std::string_view payload(reinterpret_cast<const char*>(data + 1), size - 1);
    rdb::Verify(payload);
    rdb::Reader reader(payload);
    uint8_t type;
    std::string s;
    while (reader.ReadByte(&type) && reader.ReadString(&s)) {
      std::string again;
      rdb::AppendString(&again, s);
      std::string back;
      if (!rdb::Reader(again).ReadString(&back) || back != s) abort();
    }
    return 0;
  }
  if (which == 3) {
    // A tier segment, scanned as compaction does: a record where its header says, else the next
    // aligned block.
    const std::string_view segment(reinterpret_cast<const char*>(data + 1), size - 1);
    size_t at = 0;
    while (at < segment.size()) {
      const std::string_view rest = segment.substr(at);
      size_t record_size = 0;
      if (!PeekTierRecordSize(rest, &record_size) || record_size > rest.size()) {
        at += kTierAlign - at % kTierAlign;
        continue;
      }
      std::string_view key;
      std::string value;
      if (DecodeTierRecord(rest.substr(0, record_size), &key, &value).ok()) {
        std::string again;
        AppendTierRecord(key, value, &again);
        std::string_view key2;
        std::string value2;
        if (!DecodeTierRecord(again, &key2, &value2).ok() || key2 != key || value2 != value) {
          abort();
        }
      }
      at += record_size;
    }
    return 0;
  }
  WriteFile(data + 1, size - 1);
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
