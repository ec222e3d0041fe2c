// The multi-part AOF manifest (as Redis 7's appendonly.aof.manifest): which base snapshot and which
// incremental logs, in order, make up the data set. A rewrite writes a new base and opens a new
// incremental log, then switches by replacing the manifest atomically (temporary file, fsync,
// rename, directory fsync); files no longer named are deleted afterwards.
//
// Text format, one file per line: "file <name> seq <n> type <b|i>\n", base first. Names are
// plain file names inside the AOF directory (no '/', no spaces).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "persistence/status.h"

namespace ordis::persistence {

struct Manifest {
  struct File {
    std::string name;
    uint64_t seq = 0;
    bool base = false;
  };
  std::vector<File> files;  // the base (if any) first, then incremental logs by seq

  // Reads dir/name. A missing manifest gives ok with *exists = false.
  static Status Load(const std::string& path, Manifest* out, bool* exists);
  // Writes it atomically at path.
  Status Store(const std::string& path) const;
};

// Creates dir (and parents) if missing.
Status EnsureDirectory(const std::string& dir);
// fsync of a directory, after a rename in it.
Status SyncDirectory(const std::string& dir);

}  // namespace ordis::persistence
