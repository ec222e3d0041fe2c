#!/usr/bin/env bash
# Runs the same redis-benchmark invocations against ordis and Debian's redis-server 7, alternating
# server by server within each round, and prints requests/s (median over rounds) and the ratio
# ordis/redis per line. Quote the ratio, not the absolute numbers: the machine is shared.
#
#   bench/vs-redis.sh [rounds]          (default 3)
#   ORDIS_THREADS=2 bench/vs-redis.sh   (I/O threads for ordis; default: its own default)
#   ORDIS_ARGS="--index map" bench/vs-redis.sh   (any further ordis-server flags)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
"$root/scripts/deps.sh" $(cat "$root/scripts/build-packages.txt") redis-server redis-tools
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" --target ordis-server -j"$(nproc)" >/dev/null

free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
wait_ready() {
  for _ in $(seq 1 100); do
    redis-cli -p "$1" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "server on port $1 did not start" >&2
  exit 1
}

workdir=$(mktemp -d)
ordis_port=$(free_port)
redis_port=$(free_port)
ordis_args=(--port "$ordis_port")
[ -n "${ORDIS_THREADS:-}" ] && ordis_args+=(--threads "$ORDIS_THREADS")
# shellcheck disable=SC2206
[ -n "${ORDIS_ARGS:-}" ] && ordis_args+=($ORDIS_ARGS)
"$root/build/server/ordis-server" "${ordis_args[@]}" >"$workdir/ordis.log" 2>&1 &
ordis_pid=$!
(cd "$workdir" && exec redis-server --port "$redis_port" --save '' --appendonly no \
  >"$workdir/redis.log" 2>&1) &
redis_pid=$!
trap 'kill $ordis_pid $redis_pid 2>/dev/null; wait 2>/dev/null; rm -rf "$workdir"' EXIT
wait_ready "$ordis_port"
wait_ready "$redis_port"

# Both servers hold the same 1M keys before anything is measured.
for port in "$ordis_port" "$redis_port"; do
  redis-benchmark -p "$port" -q -n 1000000 -r 1000000 -P 64 -c 50 -t set >/dev/null 2>&1
done

# name | redis-benchmark arguments for ordis | for redis ("=" means the same)
tests=(
  "SET -P 1 -c 50|-c 50 -P 1 -n 200000 -r 1000000 -t set|="
  "GET -P 1 -c 50|-c 50 -P 1 -n 200000 -r 1000000 -t get|="
  "SET -P 16 -c 50|-c 50 -P 16 -n 1000000 -r 1000000 -t set|="
  "GET -P 16 -c 50|-c 50 -P 16 -n 1000000 -r 1000000 -t get|="
  "INCR -P 1 -c 50|-c 50 -P 1 -n 200000 -r 1000000 -t incr|="
  "MSET (10 keys) -P 1 -c 50|-c 50 -P 1 -n 100000 -r 1000000 -t mset|="
  "KRANGE 10 vs SCAN COUNT 10|-c 50 -P 1 -n 100000 -r 1000000 KRANGE [key:__rand_int__ + LIMIT 0 10|-c 50 -P 1 -n 100000 -r 1000000 SCAN __rand_int__ COUNT 10"
)

declare -A results
run() {  # port args... -> prints requests/s
  redis-benchmark -p "$1" --csv "${@:2}" 2>/dev/null | tail -n 1 | cut -d, -f2 | tr -d '"'
}
for round in $(seq 1 "$rounds"); do
  for i in "${!tests[@]}"; do
    IFS='|' read -r name ordis_cmd redis_cmd <<<"${tests[$i]}"
    [ "$redis_cmd" = "=" ] && redis_cmd=$ordis_cmd
    # shellcheck disable=SC2086
    results[$i,ordis,$round]=$(run "$ordis_port" $ordis_cmd)
    # shellcheck disable=SC2086
    results[$i,redis,$round]=$(run "$redis_port" $redis_cmd)
  done
done

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
printf '| %-28s | %14s | %14s | %6s |\n' "benchmark (median of $rounds)" "ordis req/s" "redis req/s" "ratio"
printf '|%s|%s|%s|%s|\n' "------------------------------" "----------------" "----------------" "--------"
for i in "${!tests[@]}"; do
  IFS='|' read -r name _ _ <<<"${tests[$i]}"
  o=(); r=()
  for round in $(seq 1 "$rounds"); do
    o+=("${results[$i,ordis,$round]}")
    r+=("${results[$i,redis,$round]}")
  done
  om=$(median "${o[@]}")
  rm_=$(median "${r[@]}")
  ratio=$(awk -v a="$om" -v b="$rm_" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "n/a" }')
  printf '| %-28s | %14.0f | %14.0f | %6s |\n' "$name" "$om" "$rm_" "$ratio"
done
