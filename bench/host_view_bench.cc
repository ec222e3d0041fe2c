// host_view_bench: how fast a batch's keys are sorted into resident and not, three ways, in one
// run (issue 14): the Host View (DPDK's rte_hash, 64-bit digests, bulk lookups), an absl set of the
// same digests (one lookup per key), and the index itself (the learned tree's GetBatch, the lookup
// the pre-parse already makes, which finds the value's handle).
//
//   bench/host-view.sh [keys=1000000] [rounds=3]
//
// `keys` resident keys `key:%012d` behind the server's 2-byte (db, space) prefix, as many not
// resident (a different range: in the index, absent from the view and the set); lookups in batches
// of 32 (a pipelined batch's keys), half of each kind, uniformly random, the same stream for every
// contender. Prints millions of keys per second per contender (the best round) and each as a ratio
// to the absl set; a disagreement between contenders stops the run. One thread.
#include <absl/container/flat_hash_set.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "index/learned_store.h"
#include "offload/dpdk.h"
#include "offload/host_view.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kBatch = 32;

std::string Key(uint64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%c%ckey:%012llu", 0, 1, static_cast<unsigned long long>(i));
  return std::string(buf, 18);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ordis;
  const uint64_t keys = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  if (auto st = offload::StartDpdk(1024); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  std::unique_ptr<offload::HostView> view;
  if (auto st = offload::HostView::Create(static_cast<uint32_t>(keys + keys / 4), &view);
      !st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  absl::flat_hash_set<uint64_t> set;
  auto store = index::NewLearnedStore();
  std::vector<std::string> resident, cold;
  for (uint64_t i = 0; i < keys; ++i) {
    resident.push_back(Key(i));
    cold.push_back(Key(keys + i));
  }
  // The index holds every key, in order (a bulk of puts); the view and the set the resident ones.
  std::vector<std::string> all(resident);
  all.insert(all.end(), cold.begin(), cold.end());
  for (size_t i = 0; i < all.size(); ++i) store->Put(all[i], i < keys ? 1 : 2);
  for (const std::string& k : resident) {
    const uint64_t d = offload::HostView::Digest(k);
    if (!view->Add(d)) {
      std::fprintf(stderr, "Host View full\n");
      return 1;
    }
    set.insert(d);
  }
  store->Quiesce();
  // The stream: batches of 32, half resident, at random.
  std::mt19937_64 rng(1);
  const size_t lookups = 2000000;
  // Packed end to end and read in order, so the harness's own cache misses stay out of the
  // numbers (every key is 18 bytes).
  constexpr size_t kKeyLen = 18;
  std::string packed;
  std::vector<bool> expected;
  for (size_t i = 0; i < lookups; ++i) {
    const bool is_resident = rng() % 2 == 0;
    packed.append(is_resident ? resident[rng() % keys] : cold[rng() % keys]);
    expected.push_back(is_resident);
  }
  auto key_at = [&](size_t i) { return std::string_view(packed).substr(i * kKeyLen, kKeyLen); };
  struct Contender {
    const char* name;
    double best_mps = 0;
  };
  Contender contenders[] = {
      {"absl::flat_hash_set, digests"}, {"Host View (rte_hash bulk)"}, {"index GetBatch"}};
  std::vector<std::string_view> views(kBatch);
  std::vector<std::optional<index::ValueHandle>> found(kBatch);
  uint64_t digests[kBatch];
  bool out[kBatch];
  for (int round = 0; round < rounds; ++round) {
    for (int c = 0; c < 3; ++c) {
      const auto start = Clock::now();
      size_t agree = 0;
      for (size_t at = 0; at < lookups; at += kBatch) {
        const size_t n = std::min(kBatch, lookups - at);
        if (c == 0) {
          for (size_t i = 0; i < n; ++i) {
            out[i] = set.contains(offload::HostView::Digest(key_at(at + i)));
          }
        } else if (c == 1) {
          for (size_t i = 0; i < n; ++i) digests[i] = offload::HostView::Digest(key_at(at + i));
          view->Lookup(std::span<const uint64_t>(digests, n), std::span<bool>(out, n));
        } else {
          for (size_t i = 0; i < n; ++i) views[i] = key_at(at + i);
          store->GetBatch(std::span<const std::string_view>(views.data(), n),
                          std::span<std::optional<index::ValueHandle>>(found.data(), n));
          for (size_t i = 0; i < n; ++i) out[i] = found[i] && *found[i] == 1;
        }
        for (size_t i = 0; i < n; ++i) agree += out[i] == expected[at + i];
      }
      const double s = std::chrono::duration<double>(Clock::now() - start).count();
      if (agree != lookups) {
        std::fprintf(stderr, "%s: %zu of %zu answers wrong\n", contenders[c].name, lookups - agree,
                     lookups);
        return 1;
      }
      contenders[c].best_mps = std::max(contenders[c].best_mps, lookups / s / 1e6);
    }
  }
  std::printf("%llu resident keys, %llu not; %zu lookups in batches of %zu, best of %d rounds\n\n",
              static_cast<unsigned long long>(keys), static_cast<unsigned long long>(keys), lookups,
              kBatch, rounds);
  std::printf("| contender | M keys/s | x absl set |\n|---|---|---|\n");
  for (const Contender& c : contenders) {
    std::printf("| %s | %.1f | %.2fx |\n", c.name, c.best_mps, c.best_mps / contenders[0].best_mps);
  }
  return 0;
}
