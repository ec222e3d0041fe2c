#!/usr/bin/env bash
# Loading a Redis dump.rdb at start-up: ordis against Debian's redis-server 7 on the same file.
#
#   bench/rdb-load.sh [keys] [rounds]   (default 10000000 keys, 3 rounds)
#   ORDIS_BIN=path bench/rdb-load.sh    (an ordis-server binary to use as it is)
#
# redis-server writes the file: DEBUG POPULATE <keys> key 16 (strings key:<n> -> 16-byte values),
# then SAVE. Each round then starts redis-server and ordis in turn (--dbfilename naming the file,
# --save '') and times each from exec until it answers PING with DBSIZE equal to the key count,
# reading the server's CPU (utime+stime from /proc/<pid>/stat) at that moment. Prints each round,
# the medians, and the ratios ordis/redis (below 1: ordis loads faster). The CPU figure is the
# steadier one on a shared machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
keys=${1:-10000000}
rounds=${2:-3}
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
use_ordis_bin redis-server redis-tools
make_workdir

port=$(free_port)
redis-server --port "$port" --dir "$workdir" --save '' --appendonly no \
  --enable-debug-command yes >/dev/null &
redis_pid=$!
wait_ready "$port"
redis-cli -p "$port" debug populate "$keys" key 16 >/dev/null
redis-cli -p "$port" save >/dev/null
stop_servers
echo "dump.rdb: $keys keys, $(stat -c %s "$workdir/dump.rdb") bytes"

# server -> "seconds cpu_seconds" for one start on the file.
time_load() {
  local who=$1 start pid ticks end
  port=$(free_port)
  start=$(date +%s.%N)
  if [ "$who" = redis ]; then
    redis-server --port "$port" --dir "$workdir" --dbfilename dump.rdb --save '' \
      --appendonly no >/dev/null &
    pid=$!
    redis_pid=$pid
  else
    "$ORDIS_BIN" --port "$port" --dir "$workdir" --dbfilename dump.rdb --save '' \
      --appendonly no >/dev/null &
    pid=$!
    ordis_pid=$pid
  fi
  until [ "$(redis-cli -p "$port" dbsize 2>/dev/null)" = "$keys" ]; do sleep 0.02; done
  end=$(date +%s.%N)
  ticks=$(cpu_ticks "$pid")
  stop_servers
  awk -v s="$start" -v e="$end" -v t="$ticks" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "%.3f %.3f\n", e - s, t / hz }'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -a redis_wall redis_cpu ordis_wall ordis_cpu
for round in $(seq 1 "$rounds"); do
  for who in redis ordis; do
    read -r wall cpu < <(time_load "$who")
    echo "round $round $who: ${wall}s wall, ${cpu}s CPU"
    if [ "$who" = redis ]; then redis_wall+=("$wall") redis_cpu+=("$cpu")
    else ordis_wall+=("$wall") ordis_cpu+=("$cpu"); fi
  done
done
rw=$(printf '%s\n' "${redis_wall[@]}" | median)
rc=$(printf '%s\n' "${redis_cpu[@]}" | median)
ow=$(printf '%s\n' "${ordis_wall[@]}" | median)
oc=$(printf '%s\n' "${ordis_cpu[@]}" | median)
echo
printf '%-8s %12s %12s\n' "" "wall (s)" "CPU (s)"
printf '%-8s %12s %12s\n' redis "$rw" "$rc" ordis "$ow" "$oc"
awk -v rw="$rw" -v rc="$rc" -v ow="$ow" -v oc="$oc" \
  'BEGIN { printf "ordis/redis: wall %.2fx, CPU %.2fx\n", ow / rw, oc / rc }'
