#!/usr/bin/env bash
# Memory after deletes, through the server (issue 13): ordis and Debian's redis-server 7 each get
# the same sliding window of live keys with ever-increasing names (queues, job ids, sessions):
# SET key:i, then DEL key:(i - window), OPS times, through redis-cli --pipe. Prints, per server,
# RSS (/proc/<pid>/status VmRSS) and INFO used_memory before and after, dbsize, and ordis's INFO
# index leaves, inner nodes and index bytes. Memory that follows the live set ends near where a
# fresh server holding the window would be, whatever OPS is.
#
#   bench/index-churn.sh                 OPS=3000000 WINDOW=10000
#   OPS=1000000 WINDOW=100000 bench/index-churn.sh
#   ORDIS_ARGS="--index map" bench/index-churn.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ops=${OPS:-3000000}
window=${WINDOW:-10000}
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
build_ordis redis-server redis-tools

make_workdir

/usr/bin/python3 - "$workdir/churn.resp" "$ops" "$window" <<'PY'
import sys
path, ops, window = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def cmd(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)
with open(path, "wb") as f:
    for i in range(ops):
        f.write(cmd(b"SET", b"key:%012d" % i, b"abc"))
        if i >= window:
            f.write(cmd(b"DEL", b"key:%012d" % (i - window)))
PY

ordis_port=$(free_port)
redis_port=$(free_port)
mkdir -p "$workdir/ordis" "$workdir/redis"
# shellcheck disable=SC2086
"$root/build/server/ordis-server" --port "$ordis_port" --dir "$workdir/ordis" --save '' \
  --appendonly no ${ORDIS_ARGS:-} >>"$workdir/ordis.log" 2>&1 &
ordis_pid=$!
redis-server --port "$redis_port" --dir "$workdir/redis" --save '' --appendonly no \
  >>"$workdir/redis.log" 2>&1 &
redis_pid=$!
wait_ready "$ordis_port"
wait_ready "$redis_port"

mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1048576 }'; }

printf 'sliding window of %d live keys, %d SET + DEL (key:%%012d, 3-byte values)\n\n' "$window" "$ops"
printf '| server | RSS before | RSS after | used_memory before | used_memory after | dbsize | index leaves | inner nodes | index bytes |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for server in ordis redis; do
  if [ $server = ordis ]; then port=$ordis_port pid=$ordis_pid; else port=$redis_port pid=$redis_pid; fi
  r0=$(rss "$pid") u0=$(info_field "$port" memory used_memory)
  redis-cli -p "$port" --pipe <"$workdir/churn.resp" >/dev/null
  # The patchers finish what the last writes posted: give them a moment before reading.
  sleep 1
  r1=$(rss "$pid") u1=$(info_field "$port" memory used_memory)
  leaves=n/a inner=n/a bytes=n/a
  if [ $server = ordis ]; then
    leaves=$(info_field "$port" index index_leaves)
    inner=$(info_field "$port" index index_inner_nodes)
    bytes=$(($(info_field "$port" index index_bytes) + $(info_field "$port" index index_key_bytes)))
    bytes=$(mb "$bytes")
  fi
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$server" "$(mb "$r0")" "$(mb "$r1")" \
    "$(mb "$u0")" "$(mb "$u1")" "$(redis-cli -p "$port" dbsize)" "$leaves" "$inner" "$bytes"
done
