#!/usr/bin/env bash
# Builds bench/host_view_bench (Release, into build-bench/) and runs it: how fast a batch's keys
# are sorted into resident and not by the Host View (DPDK's rte_hash), an absl set and the index
# (issue 14). Arguments: [keys=1000000] [rounds=3].
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh" $(cat "$root/scripts/build-packages.txt")
cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release -DORDIS_BUILD_BENCH=ON >/dev/null
cmake --build "$root/build-bench" --target host_view_bench -j"$(nproc)" >/dev/null
exec "$root/build-bench/bench/host_view_bench" "$@"
