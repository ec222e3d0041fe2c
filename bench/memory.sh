#!/usr/bin/env bash
# Memory per key, ordis beside Debian's redis-server 7 (issue 13): each row starts both servers
# empty, loads the same keys into each through redis-cli --pipe (in key order, and shuffled: writes
# all over the index leave its leaves' insert buffers partly filled, measured at once and again once
# the patchers have merged them, a second after the writes stop), and prints the growth of INFO
# used_memory and of RSS (/proc/<pid>/status VmRSS) per key, and the ratio ordis/redis. Then server
# CPU per request for GET and SET at -P 16 -c 50 (utime+stime from /proc/<pid>/stat over the run,
# divided by requests), both servers, alternating, median of the rounds.
#
# Last, SET at maxmemory: both servers with `maxmemory 50mb` and `allkeys-lru`, filled until they
# evict, then SET over 10M random keys, so every write evicts: requests/s and server CPU per
# request, pipelined (-P 16) and not, alternating, median of the rounds.
#
#   bench/memory.sh [rounds]   (rounds of the CPU rows; default 3)
#   ORDIS_BIN=path bench/memory.sh   (an ordis-server binary to use as it is)
#   KEYS=1000000 bench/memory.sh   (keys per row; the 1 KB row loads KEYS/10; the small sorted sets
#                                  row KEYS/2 members in sets of 5)
#
# Quote ratios, not absolute numbers: the machine is shared. Memory rows are single runs (memory
# does not depend on load); CPU rows are medians.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
keys=${KEYS:-1000000}
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
use_ordis_bin redis-server redis-tools

make_workdir

starts=0
start_servers() {
  starts=$((starts + 1))
  ordis_port=$(free_port)
  redis_port=$(free_port)
  mkdir -p "$workdir/ordis.$starts" "$workdir/redis.$starts"
  "$ORDIS_BIN" --port "$ordis_port" --dir "$workdir/ordis.$starts" \
    --save '' --appendonly no "$@" >>"$workdir/ordis.log" 2>&1 &
  ordis_pid=$!
  redis-server --port "$redis_port" --dir "$workdir/redis.$starts" --save '' --appendonly no \
    "$@" >>"$workdir/redis.log" 2>&1 &
  redis_pid=$!
  wait_ready "$ordis_port"
  wait_ready "$redis_port"
}

# Writes the RESP commands of a row to a file: name count kind.
generate() {
  /usr/bin/python3 - "$@" <<'PY'
import sys
path, count, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def cmd(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)
with open(path, "wb") as f:
    if kind == "zsmall":  # count members in sorted sets of 5 (the small form), scores 0..4
        for i in range(count // 5):
            args = ["ZADD", "zs:%012d" % i]
            for j in range(5):
                args += [str(j), "m:%012d" % j]
            f.write(cmd(*args))
    elif kind == "zset":
        for start in range(0, count, 1000):
            args = ["ZADD", "z"]
            for i in range(start, min(start + 1000, count)):
                args += ["0", "m:%012d" % i]
            f.write(cmd(*args))
    else:
        order = range(count)
        if kind.startswith("shuffled"):
            import random
            order = list(order)
            random.Random(13).shuffle(order)
        for i in order:
            key = "key:%012d" % i
            if kind in ("small", "shuffled", "shuffled-idle"):
                f.write(cmd("SET", key, "abc"))
            elif kind == "ttl":
                f.write(cmd("SET", key, "v" * 32, "EX", "3600"))
            elif kind == "int":
                f.write(cmd("SET", key, str(i)))
            elif kind == "1k":
                f.write(cmd("SET", key, "x" * 1024))
PY
}

rows=("keys, 3-byte values|$keys|small" "keys, 3-byte values, random order|$keys|shuffled"
  "keys, 3-byte values, random order, once idle|$keys|shuffled-idle" "keys, 32-byte values, EX 3600|$keys|ttl"
  "keys, integer values|$keys|int" "keys, 1 KB values|$((keys / 10))|1k"
  "sorted set members|$keys|zset" "small sorted sets (5 members), per member|$((keys / 2))|zsmall")
printf 'memory per key (used_memory and RSS growth over the load)\n\n'
printf '| row | count | ordis used B/key | redis used B/key | ratio | ordis RSS B/key | redis RSS B/key | ratio |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for row in "${rows[@]}"; do
  IFS='|' read -r name count kind <<<"$row"
  generate "$workdir/load.resp" "$count" "$kind"
  start_servers
  declare -A used=() resident=()
  for server in ordis redis; do
    if [ $server = ordis ]; then port=$ordis_port pid=$ordis_pid; else port=$redis_port pid=$redis_pid; fi
    u0=$(info_field "$port" memory used_memory) r0=$(rss "$pid")
    redis-cli -p "$port" --pipe <"$workdir/load.resp" >/dev/null
    if [ "$kind" = shuffled-idle ] && [ $server = ordis ]; then
      # A second without writes and the patchers merge the partly filled insert buffers.
      for _ in $(seq 1 100); do
        [ "$(info_field "$port" index index_buffer_slots)" = 0 ] && break
        sleep 0.1
      done
    fi
    u1=$(info_field "$port" memory used_memory) r1=$(rss "$pid")
    used[$server]=$(((u1 - u0) / count))
    resident[$server]=$(((r1 - r0) / count))
  done
  stop_servers
  awk -v n="$name" -v c="$count" -v ou="${used[ordis]}" -v ru="${used[redis]}" \
    -v orss="${resident[ordis]}" -v rrss="${resident[redis]}" 'BEGIN {
      printf "| %s | %d | %.1f | %.1f | %.2fx | %.1f | %.1f | %.2fx |\n", n, c, ou, ru, ou / ru,
        orss, rrss, orss / rrss }'
done

# CPU per request: both servers preloaded with the small-value keys, GET and SET rows alternating.
generate "$workdir/load.resp" "$keys" small
start_servers
for port in $ordis_port $redis_port; do redis-cli -p "$port" --pipe <"$workdir/load.resp" >/dev/null; done
requests=2000000
declare -A cpu=()
for round in $(seq 1 "$rounds"); do
  for test in get set; do
    for server in ordis redis; do
      if [ $server = ordis ]; then port=$ordis_port pid=$ordis_pid; else port=$redis_port pid=$redis_pid; fi
      t0=$(cpu_ticks "$pid")
      redis-benchmark -p "$port" -c 50 -P 16 -n "$requests" -r "$keys" -t "$test" -q >/dev/null
      t1=$(cpu_ticks "$pid")
      cpu[$test,$server]+="$(us_per_request $((t1 - t0)) "$requests") "
    done
  done
done
stop_servers
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
printf '\nserver CPU per request (us), -c 50 -P 16, %d requests, median of %d rounds\n\n' "$requests" "$rounds"
printf '| test | ordis us/req | redis us/req | ratio |\n|---|---|---|---|\n'
for test in get set; do
  o=$(echo "${cpu[$test,ordis]}" | median)
  r=$(echo "${cpu[$test,redis]}" | median)
  awk -v t="${test^^}" -v o="$o" -v r="$r" 'BEGIN { printf "| %s | %.3f | %.3f | %.2fx |\n", t, o, r, o / r }'
done

# SET at maxmemory: every write of a new key evicts one.
start_servers --maxmemory 50mb --maxmemory-policy allkeys-lru
for port in $ordis_port $redis_port; do
  while [ "$(info_field "$port" stats evicted_keys)" = 0 ]; do
    redis-benchmark -p "$port" -c 50 -P 16 -n 500000 -r 10000000 -t set -q >/dev/null
  done
done
declare -A rps=() evcpu=()
# Pipelined (-P 16) and not (each request its own round trip, fewer of them: slower).
for round in $(seq 1 "$rounds"); do
  for pipeline in 16 1; do
    n=$((pipeline == 1 ? requests / 5 : requests))
    for server in ordis redis; do
      if [ $server = ordis ]; then port=$ordis_port pid=$ordis_pid; else port=$redis_port pid=$redis_pid; fi
      t0=$(cpu_ticks "$pid") s0=$(date +%s.%N)
      redis-benchmark -p "$port" -c 50 -P "$pipeline" -n "$n" -r 10000000 -t set -q >/dev/null
      s1=$(date +%s.%N) t1=$(cpu_ticks "$pid")
      rps[$pipeline,$server]+="$(awk -v a="$s0" -v b="$s1" -v n=$n 'BEGIN { printf "%.0f", n / (b - a) }') "
      evcpu[$pipeline,$server]+="$(us_per_request $((t1 - t0)) "$n") "
    done
  done
done
printf '\nSET at maxmemory 50mb, allkeys-lru, -r 10000000 -c 50, median of %d rounds\n\n' "$rounds"
printf '| pipeline | ordis req/s | redis req/s | ratio | ordis CPU us/req | redis CPU us/req | ratio |\n'
printf '|---|---|---|---|---|---|---|\n'
for pipeline in 16 1; do
  awk -v p="$pipeline" -v o="$(echo "${rps[$pipeline,ordis]}" | median)" \
    -v r="$(echo "${rps[$pipeline,redis]}" | median)" \
    -v oc="$(echo "${evcpu[$pipeline,ordis]}" | median)" \
    -v rc="$(echo "${evcpu[$pipeline,redis]}" | median)" \
    'BEGIN { printf "| -P %s | %d | %d | %.2fx | %.3f | %.3f | %.2fx |\n", p, o, r, o / r, oc, rc, oc / rc }'
done
printf '\n| server | keys held | evicted_keys |\n|---|---|---|\n'
for server in ordis redis; do
  if [ $server = ordis ]; then port=$ordis_port; else port=$redis_port; fi
  printf '| %s | %s | %s |\n' $server "$(redis-cli -p "$port" dbsize)" \
    "$(info_field "$port" stats evicted_keys)"
done
stop_servers
