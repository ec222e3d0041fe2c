#!/usr/bin/env bash
# Active expiry, ordis beside Debian's redis-server 7 (issue 13): each round starts both servers
# empty, loads the same KEYS keys `SET key:%012d v PX <ttl>` into each through redis-cli --pipe,
# and polls DBSIZE (every 10 ms; DBSIZE expires nothing) until it is 0. Prints how long after the
# last key's expiry (the end of the load plus the TTL) the database was empty, and used_memory
# before the load, at its end and once empty.
#
#   bench/expiry.sh [rounds]          (default 1)
#   KEYS=1000000 TTL_MS=100 bench/expiry.sh
#   ORDIS_BIN=build-test/server/ordis-server bench/expiry.sh   (skip the build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-1}
keys=${KEYS:-1000000}
ttl_ms=${TTL_MS:-100}
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
use_ordis_bin redis-server redis-tools

make_workdir

/usr/bin/python3 - "$workdir/load.resp" "$keys" "$ttl_ms" <<'PY'
import sys
path, count, ttl = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
with open(path, "wb") as f:
    for i in range(count):
        key = b"key:%012d" % i
        f.write(b"*5\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$1\r\nv\r\n$2\r\nPX\r\n$%d\r\n%s\r\n"
                % (len(key), key, len(ttl), ttl))
PY

now_ms() { date +%s%3N; }

printf '| server | round | keys | load s | empty after expiry, s | used_memory before / loaded / empty, MB |\n'
printf '|---|---|---|---|---|---|\n'
for round in $(seq 1 "$rounds"); do
  for server in ordis redis; do
    port=$(free_port)
    mkdir -p "$workdir/$server.$round"
    if [ $server = ordis ]; then
      "$ORDIS_BIN" --port "$port" --dir "$workdir/$server.$round" --save '' --appendonly no \
        >>"$workdir/ordis.log" 2>&1 &
      ordis_pid=$!
    else
      redis-server --port "$port" --dir "$workdir/$server.$round" --save '' --appendonly no \
        >>"$workdir/redis.log" 2>&1 &
      redis_pid=$!
    fi
    wait_ready "$port"
    u0=$(info_field "$port" memory used_memory)
    t0=$(now_ms)
    redis-cli -p "$port" --pipe <"$workdir/load.resp" >/dev/null
    t1=$(now_ms)
    u1=$(info_field "$port" memory used_memory)
    deadline=$((t1 + 60000))
    while [ "$(redis-cli -p "$port" dbsize)" != 0 ] && [ "$(now_ms)" -lt $deadline ]; do sleep 0.01; done
    t2=$(now_ms)
    u2=$(info_field "$port" memory used_memory)
    awk -v s=$server -v r="$round" -v n="$keys" -v load=$((t1 - t0)) -v gone=$((t2 - t1 - ttl_ms)) \
      -v u0="$u0" -v u1="$u1" -v u2="$u2" 'BEGIN {
        printf "| %s | %d | %d | %.2f | %.2f | %.1f / %.1f / %.1f |\n", s, r, n, load / 1000,
          gone / 1000, u0 / 1048576, u1 / 1048576, u2 / 1048576 }'
    stop_servers
  done
done
