#!/usr/bin/env bash
# Snapshot benchmark against Debian's redis-server 7: vs-redis.sh's snapshot section alone.
#
#   bench/snapshot.sh [keys]   (default 10000000; e.g. bench/snapshot.sh 1000000 for a quick run)
#   SNAPSHOT_LOADS=5 bench/snapshot.sh   (restarts timed per server, median printed; default 3)
#
# Loads the keys key:%d with 16-byte values into each server in turn (redis, then ordis) through
# redis-cli --pipe, times SAVE, reports the snapshot's size (dump.rdb / dump.osnap) and times restarts
# on that directory until the server answers PING and DBSIZE is the key count.
set -euo pipefail
SNAPSHOT_KEYS=${1:-10000000} exec "$(dirname "$0")/vs-redis.sh" 1 snapshot
