#!/usr/bin/env bash
# Builds bench/index_memory (Release, -DORDIS_BUILD_BENCH=ON, into build-bench/) and runs it; every
# argument goes to index_memory. It prints the learned tree's (index_bytes + key_bytes) per key
# for 1M server-shaped keys (ascending, random order, bulk load), then after a sliding window of
# 10k live keys over 3M Put+Erase, after erasing 90% at random, and after erasing everything,
# each beside a fresh store holding the same keys.
#
#   bench/index-memory.sh                       the defaults: --keys 1000000 --window 10000 --ops 3000000
#   bench/index-memory.sh --keys 200000 --ops 1000000
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
bin=$(build_bench_target index_memory)
exec "$bin" "$@"
