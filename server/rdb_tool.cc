// ordis-rdb: converts an ordis snapshot (SAVE's file, or an append-only log's base) into a
// dump.rdb that redis-server 7 loads: the way back from ordis to Redis, as ordis loads a dump.rdb
// named by dbfilename on the way in.
//
//   ordis-rdb <snapshot> <dump.rdb> [databases]     (databases: as the server's; default 16)
#include <cstdio>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/number.h"
#include "server/commands/client_info.h"
#include "server/durability/snapshotter.h"
#include "server/rdb/rdb_file.h"

int main(int argc, char** argv) {
  using namespace ordis;
  using namespace ordis::server;
  int64_t databases = 16;
  if (argc < 3 || argc > 4 ||
      (argc == 4 && (!ParseInt64(argv[3], &databases) || databases < 1 || databases > 1 << 20))) {
    std::fprintf(stderr, "usage: %s <ordis snapshot> <dump.rdb> [databases]\n", argv[0]);
    return 2;
  }
  Keyspace keyspace(static_cast<int>(databases));
  const RdbLimits limits;  // Redis 7.0's defaults: the forms redis-server would choose
  const int64_t now_ms = NowMs();
  std::vector<std::string> libraries;
  persistence::Status status = LoadSnapshot(argv[1], keyspace, now_ms, limits.zset, &libraries);
  if (status.ok()) {
    status = WriteRdbFile(argv[2], keyspace, now_ms, limits, kRedisVersion, libraries);
  }
  if (!status.ok()) {
    std::fprintf(stderr, "ordis-rdb: %s\n", status.message().c_str());
    return 1;
  }
  uint64_t keys = 0;
  for (int db = 0; db < keyspace.num_dbs(); ++db) keys += keyspace.DbSize(db);
  std::printf("%llu keys and %zu function libraries written to %s\n",
              static_cast<unsigned long long>(keys), libraries.size(), argv[2]);
  return 0;
}
