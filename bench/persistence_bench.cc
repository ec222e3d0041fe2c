// Throughput of the persistence file formats: a snapshot of N small records written (Commit's
// fsync included) and read back, and an append-only log of N records written in batches of 100
// and read back. Usage: persistence_bench [dir] [records]; dir defaults to /tmp.
//
// Records look like a cache's: "user:<n>:session" keys and 20-200 byte payloads, half
// text-like (compressible), half random.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "persistence/aof_file.h"
#include "persistence/snapshot_file.h"

namespace {

using ordis::persistence::AofReader;
using ordis::persistence::AofWriter;
using ordis::persistence::SnapshotReader;
using ordis::persistence::SnapshotRecord;
using ordis::persistence::SnapshotWriter;
using ordis::persistence::Status;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void Check(const Status& s) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    std::exit(1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "/tmp";
  const size_t n = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1'000'000;
  std::mt19937_64 rng(1);
  std::vector<std::string> keys(n), payloads(n);
  size_t raw_bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    keys[i] = "user:" + std::to_string(i) + ":session";
    const size_t size = 20 + rng() % 180;
    std::string& p = payloads[i];
    if (i % 2 == 0) {
      while (p.size() < size) p += "{\"cart\":[" + std::to_string(rng() % 1000) + "],\"ok\":true}";
      p.resize(size);
    } else {
      for (size_t j = 0; j < size; ++j) p.push_back(static_cast<char>(rng()));
    }
    raw_bytes += keys[i].size() + p.size();
  }
  const double raw_mb = static_cast<double>(raw_bytes) / (1 << 20);

  const std::string snap = dir + "/persistence_bench.osnap";
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<SnapshotWriter> writer;
  Check(SnapshotWriter::Open(snap + ".tmp", snap, 0, &writer));
  for (size_t i = 0; i < n; ++i) Check(writer->Add({0, 1, -1, keys[i], payloads[i]}));
  Check(writer->Commit());
  double secs = Seconds(start);
  const double file_mb = static_cast<double>(writer->bytes_written()) / (1 << 20);
  std::printf(
      "snapshot write: %zu records, %.1f MB keys+payloads -> %.1f MB file (%.2fx), "
      "%.2f s, %.0f MB/s\n",
      n, raw_mb, file_mb, raw_mb / file_mb, secs, raw_mb / secs);

  start = std::chrono::steady_clock::now();
  std::unique_ptr<SnapshotReader> reader;
  Check(SnapshotReader::Open(snap, &reader));
  size_t count = 0;
  for (;;) {
    SnapshotRecord record;
    bool done = false;
    Check(reader->Next(&record, &done));
    if (done) break;
    ++count;
  }
  secs = Seconds(start);
  std::printf("snapshot read:  %zu records, %.2f s, %.0f MB/s\n", count, secs, raw_mb / secs);
  ::unlink(snap.c_str());

  const std::string aof = dir + "/persistence_bench.aof";
  ::unlink(aof.c_str());
  start = std::chrono::steady_clock::now();
  std::unique_ptr<AofWriter> log;
  Check(AofWriter::Open(aof, &log));
  for (size_t i = 0; i < n; ++i) {
    log->Add(payloads[i]);
    if (i % 100 == 99) Check(log->Flush(false));
  }
  Check(log->Flush(true));
  secs = Seconds(start);
  std::printf("aof write:      %zu records in batches of 100, %.2f s, %.0f MB/s\n", n, secs,
              static_cast<double>(log->size()) / (1 << 20) / secs);

  start = std::chrono::steady_clock::now();
  std::unique_ptr<AofReader> log_reader;
  Check(AofReader::Open(aof, &log_reader));
  std::string_view payload;
  count = 0;
  while (log_reader->Next(&payload)) ++count;
  secs = Seconds(start);
  std::printf("aof read:       %zu records, end %s, %.2f s, %.0f MB/s\n", count,
              log_reader->end() == AofReader::End::kClean ? "clean" : "NOT CLEAN", secs,
              static_cast<double>(log->size()) / (1 << 20) / secs);
  ::unlink(aof.c_str());
  return 0;
}
