#!/usr/bin/env bash
# What ACL permission checks cost (issue 12: "ACL checks cost no more than 3% of SET/GET throughput
# at -P 16 with a user that has ~* and +@all"). Runs redis-benchmark -c 50 -P 16 SET and GET
# against ordis and Debian's redis-server 7 as three users:
#   default   the default user (nopass, ~* &* +@all: the unrestricted fast path)
#   ~* +@all  ACL SETUSER bench on >pw ~* &* +@all (what the criterion names; also unrestricted)
#   ~key:*    ACL SETUSER narrow on >pw ~key:* +@all (restricted keys: every key is matched
#             against the pattern; the benchmark's keys key:%012d all match)
# and prints, per row, the median requests/s and server CPU microseconds per request (utime+stime
# from /proc/<pid>/stat before and after each run, all threads, 10 ms ticks), the ratios to the
# same server's default user, and ordis/redis.
#
#   bench/acl.sh [rounds]        (default 5)
#   ACL_BENCH_N=2000000          requests per run (default 2000000: a few seconds per run)
#   QUIET_SECS=30 QUIET_MAX=900  before measuring, wait until no compiler (cc1plus, ninja,
#                                cmake --build) has run for QUIET_SECS seconds, at most QUIET_MAX;
#   RUN_QUIET_SECS=10            and before each run, while one runs, until it has been gone
#                                RUN_QUIET_SECS (at most QUIET_MAX); the counts are printed
#   ORDIS_THREADS=1              I/O threads for ordis. Default 1, not ordis's own default (one
#                                per core): on the 2-core machines here redis-benchmark takes the
#                                other core, and redis-server serves from one thread too.
#   ORDIS_ARGS="..."             further ordis-server flags
#   ROW_TIMEOUT=60               seconds one redis-benchmark run may take before it counts as n/a
#
# Like vs-redis.sh: builds ordis-server (Release) in $root/build, runs both servers in scratch
# directories with --save '' --appendonly no, preloads the same 1M keys into both, and alternates
# the servers run by run (the order of the users rotates from round to round). Each round measures
# every (test, user) on both servers; ratios are of medians over the rounds, and "paired" ratios
# (user run / default run of the same round) show the spread between rounds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-5}
n=${ACL_BENCH_N:-2000000}
quiet_secs=${QUIET_SECS:-30}
quiet_max=${QUIET_MAX:-900}
run_quiet_secs=${RUN_QUIET_SECS:-10}
row_timeout=${ROW_TIMEOUT:-60}
ordis_threads=${ORDIS_THREADS:-1}
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
build_ordis redis-server redis-tools

make_workdir

start_servers() {
  ordis_port=$(free_port)
  redis_port=$(free_port)
  mkdir -p "$workdir/ordis" "$workdir/redis"
  local ordis_args=(--port "$ordis_port" --dir "$workdir/ordis" --save '' --appendonly no --threads "$ordis_threads")
  # shellcheck disable=SC2206
  [ -n "${ORDIS_ARGS:-}" ] && ordis_args+=($ORDIS_ARGS)
  "$root/build/server/ordis-server" "${ordis_args[@]}" >>"$workdir/ordis.log" 2>&1 &
  ordis_pid=$!
  redis-server --port "$redis_port" --dir "$workdir/redis" --save '' --appendonly no >>"$workdir/redis.log" 2>&1 &
  redis_pid=$!
  wait_ready "$ordis_port"
  wait_ready "$redis_port"
}

# The compilers another engineer may run on this machine; pgrep never matches itself.
compiling() { pgrep -f 'cc1plus|ninja|cmake --build' >/dev/null; }
# Waits until no compiler has run for $1 seconds (polling every second), at most $2 seconds;
# returns 1 when it gave up. Sets waited.
wait_quiet() {  # quiet_secs max_secs
  local quiet=0
  waited=0
  while [ "$quiet" -lt "$1" ]; do
    if compiling; then quiet=0; else quiet=$((quiet + 1)); fi
    [ "$waited" -ge "$2" ] && return 1
    sleep 1
    waited=$((waited + 1))
  done
}

hz=$(getconf CLK_TCK)

users=(default bench narrow)
declare -A label=([default]="default" [bench]="~* &* +@all" [narrow]="~key:* +@all")
declare -A auth=([default]="" [bench]="--user bench -a pw" [narrow]="--user narrow -a pw")
setup_users() {  # port
  local out
  for rule in "bench on >pw ~* &* +@all" "narrow on >pw ~key:* +@all"; do
    # shellcheck disable=SC2086
    out=$(redis-cli -p "$1" ACL SETUSER $rule 2>&1)
    [ "$out" = OK ] || { echo "port $1: ACL SETUSER $rule answered $out" >&2; exit 1; }
  done
  # The users can do the benchmark's work, and narrow is really restricted (the check is live).
  for u in bench narrow; do
    out=$(redis-cli -p "$1" --user "$u" --pass pw --no-auth-warning SET key:000000000001 x 2>&1)
    [ "$out" = OK ] || { echo "port $1: SET as $u answered $out" >&2; exit 1; }
  done
  out=$(redis-cli -p "$1" --user narrow --pass pw --no-auth-warning GET other 2>&1)
  [[ "$out" == NOPERM* ]] || { echo "port $1: GET other as narrow answered '$out', expected NOPERM" >&2; exit 1; }
}

declare -A rps cpu errors
busy_runs=0 total_runs=0 paused=0
# server test user round: one redis-benchmark run into rps[] and cpu[] (us per request).
run() {
  local server=$1 test=$2 user=$3 round=$4 port pid c0 c1 out
  if [ "$server" = ordis ]; then port=$ordis_port pid=$ordis_pid; else port=$redis_port pid=$redis_pid; fi
  # A compiler started since: pause until it has been gone for RUN_QUIET_SECS (at most QUIET_MAX).
  if compiling; then
    wait_quiet "$run_quiet_secs" "$quiet_max" || true
    paused=$((paused + waited))
  fi
  compiling && busy_runs=$((busy_runs + 1))
  total_runs=$((total_runs + 1))
  c0=$(cpu_ticks "$pid")
  # shellcheck disable=SC2086
  out=$(timeout "$row_timeout" redis-benchmark -p "$port" ${auth[$user]} --csv -c 50 -P 16 -n "$n" \
    -r 1000000 -t "$test" 2>"$workdir/run.err") || true
  c1=$(cpu_ticks "$pid")
  compiling && busy_runs=$((busy_runs + 1))
  out=$(printf '%s\n' "$out" | tail -n 1 | cut -d, -f2 | tr -d '"')
  if [[ "$out" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
    rps[$server,$test,$user,$round]=$out
    cpu[$server,$test,$user,$round]=$(awk -v d=$((c1 - c0)) -v hz="$hz" -v n="$n" 'BEGIN { printf "%.3f", d * 1e6 / hz / n }')
  else
    [ -s "$workdir/run.err" ] || echo "no result within ${row_timeout}s" >"$workdir/run.err"
    errors[$server,$test,$user]=$(grep -v 'Using a password' "$workdir/run.err" | head -c 200 | tr '\n' ' ')
  fi
}

median() {
  printf '%s\n' "$@" | { grep -E '^[0-9.]+$' || true; } | sort -g |
    awk '{a[NR]=$1} END {if (NR == 0) print "n/a"; else print a[int((NR+1)/2)]}'
}
ratio() {  # a b -> a/b with 3 decimals, or n/a
  awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.3f", a / b; else print "n/a" }'
}
num() {  # a number rounded, or n/a as it is
  if [ "$1" = n/a ]; then echo n/a; else printf '%.0f' "$1"; fi
}
# values of the named array for server test user over the rounds
series() {  # array server test user
  local -n a=$1
  local r
  for r in $(seq 1 "$rounds"); do printf '%s\n' "${a[$2,$3,$4,$r]:-}"; done
}
# per-round ratios user/default of the named array: "min..max"
paired_spread() {  # array server test user
  local -n a=$1
  local r vals=()
  for r in $(seq 1 "$rounds"); do vals+=("$(ratio "${a[$2,$3,$4,$r]:-}" "${a[$2,$3,default,$r]:-}")"); done
  printf '%s\n' "${vals[@]}" | { grep -E '^[0-9.]+$' || true; } | sort -g |
    awk '{a[NR]=$1} END {if (NR == 0) print "n/a"; else printf "%s..%s (med %s)", a[1], a[NR], a[int((NR+1)/2)]}'
}

start_servers
setup_users "$ordis_port"
setup_users "$redis_port"
for port in "$ordis_port" "$redis_port"; do
  redis-benchmark -p "$port" -q -n 1000000 -r 1000000 -P 64 -c 50 -t set >/dev/null 2>&1
done
if wait_quiet "$quiet_secs" "$quiet_max"; then
  quiet_note="quiet: no compiler for ${quiet_secs}s before measuring (waited ${waited}s)"
else
  quiet_note="NOT quiet: a compiler still ran after ${quiet_max}s of waiting; measured anyway"
fi
echo "$quiet_note" >&2
for round in $(seq 1 "$rounds"); do
  order=("${users[@]:$(((round - 1) % 3))}" "${users[@]:0:$(((round - 1) % 3))}")
  for test in set get; do
    for user in "${order[@]}"; do
      run ordis "$test" "$user" "$round"
      run redis "$test" "$user" "$round"
    done
  done
  echo "round $round/$rounds done" >&2
done
stop_servers

echo "ACL cost: redis-benchmark -c 50 -P 16 -n $n -r 1000000 (1M keys preloaded), median of $rounds rounds;"
echo "ordis --threads $ordis_threads, redis-server $(redis-server --version | grep -o 'v=[0-9.]*' | cut -c3-); CPU = server utime+stime per request"
echo
printf '| %-18s | %9s | %7s | %7s | %7s | %9s | %7s | %7s | %7s | %11s |\n' \
  "test, user" "ordis r/s" "us/req" "rps/def" "cpu/def" "redis r/s" "us/req" "rps/def" "cpu/def" "ordis/redis"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' -------------------- ----------- --------- --------- --------- ----------- --------- --------- --------- -------------
declare -A med
for test in set get; do
  for user in "${users[@]}"; do
    for server in ordis redis; do
      mapfile -t v < <(series rps $server $test $user); med[$server,rps,$test,$user]=$(median "${v[@]}")
      mapfile -t v < <(series cpu $server $test $user); med[$server,cpu,$test,$user]=$(median "${v[@]}")
    done
    printf '| %-18s | %9s | %7s | %7s | %7s | %9s | %7s | %7s | %7s | %11s |\n' \
      "${test^^} ${label[$user]}" \
      "$(num "${med[ordis,rps,$test,$user]}")" "${med[ordis,cpu,$test,$user]}" \
      "$(ratio "${med[ordis,rps,$test,$user]}" "${med[ordis,rps,$test,default]}")" \
      "$(ratio "${med[ordis,cpu,$test,$user]}" "${med[ordis,cpu,$test,default]}")" \
      "$(num "${med[redis,rps,$test,$user]}")" "${med[redis,cpu,$test,$user]}" \
      "$(ratio "${med[redis,rps,$test,$user]}" "${med[redis,rps,$test,default]}")" \
      "$(ratio "${med[redis,cpu,$test,$user]}" "${med[redis,cpu,$test,default]}")" \
      "$(ratio "${med[ordis,rps,$test,$user]}" "${med[redis,rps,$test,$user]}")"
  done
done
echo
echo "paired ratios, user run / default run of the same round: min..max (median) over $rounds rounds"
for test in set get; do
  for user in bench narrow; do
    printf '  %-18s ordis r/s %s, cpu %s; redis r/s %s, cpu %s\n' "${test^^} ${label[$user]}" \
      "$(paired_spread rps ordis $test $user)" "$(paired_spread cpu ordis $test $user)" \
      "$(paired_spread rps redis $test $user)" "$(paired_spread cpu redis $test $user)"
  done
done
echo "spread of the default runs (max/min over rounds):"
for test in set get; do
  for server in ordis redis; do
    mapfile -t v < <(series rps $server $test default)
    printf '  %s %s r/s %s\n' "${test^^}" $server "$(printf '%s\n' "${v[@]}" | { grep -E '^[0-9.]+$' || true; } | sort -g |
      awk '{a[NR]=$1} END {if (NR) printf "%.3f (%.0f..%.0f)", a[NR]/a[1], a[1], a[NR]; else print "n/a"}')"
  done
done
echo "$quiet_note; runs paused ${paused}s for compilers; a compiler was running at the start or end of $busy_runs of $((total_runs * 2)) run boundaries"
for key in "${!errors[@]}"; do echo "n/a: $key: ${errors[$key]}"; done
exit 0
