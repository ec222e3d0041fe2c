#!/usr/bin/env bash
# Builds bench/host_view_bench (Release, into build-bench/) and runs it: how fast a batch's keys
# are sorted into resident and not by the Host View (DPDK's rte_hash), an absl set and the index
# (issue 14). Arguments: [keys=1000000] [rounds=3].
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
bin=$(build_bench_target host_view_bench)
exec "$bin" "$@"
