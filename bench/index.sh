#!/usr/bin/env bash
# Builds bench/index_bench (Release, -DORDIS_BUILD_BENCH=ON, into build-bench/) and runs it; every
# argument goes to index_bench. It prints one table per key shape: ns/op of std::map,
# absl::btree_map and ordis's MapStore side by side, each as a ratio to absl::btree_map, plus index
# bytes per key. Quote the ratios, not the absolute numbers: the machine is usually shared.
#
#   bench/index.sh --quick            200,000 keys per shape (about a minute)
#   bench/index.sh --keys 1000000     1M keys
#   bench/index.sh                    10M keys, the issue's size (several GB of RAM, long)
#   bench/index.sh --shape url --reps 3
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
bin=$(build_bench_target index_bench)
exec "$bin" "$@"
