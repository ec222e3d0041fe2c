#!/usr/bin/env bash
# Runs the same redis-benchmark invocations against ordis and Debian's redis-server 7, alternating
# server by server within each round, and prints requests/s and server CPU per request (utime+stime
# of the server process from /proc/<pid>/stat over the run, divided by -n), each the median over
# rounds, and the ratios ordis/redis per line. Quote the ratios, not the absolute numbers: the
# machine is shared.
#
#   bench/vs-redis.sh [rounds] [section...]   (default 3 rounds; sections: strings zset scripting
#                                              pubsub blocking streams types persistence snapshot, default
#                                              strings zset scripting)
#   ORDIS_THREADS=2 bench/vs-redis.sh   (I/O threads for ordis; default: its own default)
#   ORDIS_BIN=path bench/vs-redis.sh    (an ordis-server binary to use as it is; default: build
#                                        one, Release, in build/)
#   ORDIS_ARGS="--index map" bench/vs-redis.sh   (any further ordis-server flags)
#   ROW_TIMEOUT=20 bench/vs-redis.sh    (seconds one redis-benchmark run may take before it counts as n/a)
#
# Each section starts both servers afresh. strings: 1M string keys, then SET/GET/... rows.
# zset: one sorted set z of 1M members m:%012d (all score 0) loaded with ZADDs of 1000 members
# through redis-cli --pipe, memory per member from INFO used_memory before and after, the same for
# zr (the members added in random order) and zs (score i), then read rows, then ZADD rows (which
# grow z).
# scripting: preloaded as in strings, then SCRIPT LOAD of a script of three commands (INCR of a
# counter key, SET of a key, GET of it) into both servers, and EVALSHA rows beside the GET rows of
# strings for reference.
# persistence: both servers with --appendonly yes and --appendfsync everysec (each in its own
# directory; INFO persistence must say aof_enabled:1), preloaded as in strings, SET rows; then fresh
# servers with appendfsync always, SET -P 16; the same on fresh servers without the log; prints how
# much each appendonlydir grew over the rows (and the rewrites). Not run unless named.
# snapshot: SNAPSHOT_KEYS keys (default 10M; bench/snapshot.sh [keys] runs it alone): SAVE time, file
# size and the time a restart takes to load the snapshot, one server at a time. Not run unless named.
# pubsub: PUBLISH to a channel with 10 subscribers (one reader process holding 10 connections), then
# SET with notify-keyspace-events KEA (nobody subscribed: the cost of raising the events) beside SET
# with notifications off; requests/s and the server's CPU per request. Not run unless named.
# blocking: bench/blocking_bench.c (built with cc into the scratch directory) against each server:
# a BRPOP/LPUSH ping-pong between two connections (1 pair, then 8 pairs at once), round trips per
# second with their p50/p99 latency, and BZPOPMIN served by ZADD (8 waiters, 2 producers adding
# one member at a time), ZADDs per second; with the server's CPU per operation. BLOCKING_SECONDS
# (default 2) is each run's measured window. Not run unless named.
# streams: memory per entry of 100k XADD s * user user:<n> action click value <n> (used_memory before
# and after, redis-benchmark -P 64), then XADD with MAXLEN ~ 1000000 at -P 1 and -P 16 into a fresh
# stream, and XRANGE of 10 entries from a random ID of the 100k-entry stream. Not run unless named.
# types: bitmaps, HyperLogLog and geo. A 10M-bit bitmap `bits` (1M SETBITs of pseudo-random offsets),
# an HLL `hll` of 1M elements and `hll2` of 100k, and a geo set `geo` of 100k members spread over
# Europe (all through redis-cli --pipe, the same data on both servers); then SETBIT, GETBIT,
# BITCOUNT (whole and a 1000-byte range), BITPOS, PFADD, PFCOUNT (one key, cached; two keys,
# merged per call), GEOADD of new members and GEOSEARCH (radius and box, COUNT 10: about 1,000
# points lie within 100 km, so a search is hundreds of microseconds and its rows are short) rows.
# Not run unless named.
# Every server runs in a fresh scratch directory with --save '' (and --appendonly no unless the
# section turns the log on).
# A row whose run fails (error reply, timeout) prints n/a; the reason is listed below the table.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-3}
shift || true
sections=("$@")
[ ${#sections[@]} -eq 0 ] && sections=(strings zset scripting)
row_timeout=${ROW_TIMEOUT:-20}
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
use_ordis_bin redis-server redis-tools

make_workdir

# Each server runs in a scratch directory of its own (--dir), with the flags given after the
# defaults --save '' --appendonly no (later flags win, on both servers).
server_flags() {  # flags... -> the command-line flags for either server, one per line
  printf '%s\n' --save '' --appendonly no "$@"
}
start_ordis() {  # dir [flags...]: starts ordis on $ordis_port in dir (made if missing), sets ordis_pid
  local dir=$1 flags
  shift
  mkdir -p "$dir"
  mapfile -t flags < <(server_flags "$@")
  local ordis_args=(--port "$ordis_port" --dir "$dir" "${flags[@]}")
  [ -n "${ORDIS_THREADS:-}" ] && ordis_args+=(--threads "$ORDIS_THREADS")
  # shellcheck disable=SC2206
  [ -n "${ORDIS_ARGS:-}" ] && ordis_args+=($ORDIS_ARGS)
  "$ORDIS_BIN" "${ordis_args[@]}" >>"$workdir/ordis.log" 2>&1 &
  ordis_pid=$!
}
start_redis() {  # dir [flags...]: starts redis-server on $redis_port in dir, sets redis_pid
  local dir=$1 flags
  shift
  mkdir -p "$dir"
  mapfile -t flags < <(server_flags "$@")
  redis-server --port "$redis_port" --dir "$dir" "${flags[@]}" >>"$workdir/redis.log" 2>&1 &
  redis_pid=$!
}
# Starts ordis and redis, empty, on fresh ports and in fresh directories ($ordis_dir, $redis_dir),
# with the given flags for both: sets ordis_port, redis_port and their pids.
starts=0
start_servers() {
  starts=$((starts + 1))
  ordis_dir=$workdir/ordis.$starts redis_dir=$workdir/redis.$starts
  ordis_port=$(free_port)
  redis_port=$(free_port)
  start_ordis "$ordis_dir" "$@"
  start_redis "$redis_dir" "$@"
  wait_ready "$ordis_port"
  wait_ready "$redis_port"
}

declare -A results errors cpu
# port args... -> prints requests/s, or nothing when the run failed (reason in $workdir/run.err).
run() {
  local out
  out=$(timeout "$row_timeout" redis-benchmark -p "$1" --csv "${@:2}" 2>"$workdir/run.err") || true
  out=$(printf '%s\n' "$out" | tail -n 1 | cut -d, -f2 | tr -d '"')
  if [[ "$out" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
    echo "$out"
  elif [ ! -s "$workdir/run.err" ]; then
    echo "no result within ${row_timeout}s" >"$workdir/run.err"
  fi
}

requests_of() {  # redis-benchmark arguments -> the requests of the run (-n, default 100000)
  local n=100000
  while [ $# -gt 1 ]; do
    [ "$1" = -n ] && n=$2
    shift
  done
  echo "$n"
}

# Runs the rows of the named array for all rounds, alternating the servers, into
# results[row,server,round] (requests/s) and cpu[row,server,round] (the server's CPU microseconds
# per request over the run; empty when the run failed).
# A row is "name|redis-benchmark arguments for ordis|for redis" ("=" means the same).
measure() {
  local -n rows=$1
  local round row name ordis_cmd redis_cmd server port pid args t0 t1
  for round in $(seq 1 "$rounds"); do
    for row in "${rows[@]}"; do
      IFS='|' read -r name ordis_cmd redis_cmd <<<"$row"
      [ "$redis_cmd" = "=" ] && redis_cmd=$ordis_cmd
      for server in ordis redis; do
        if [ $server = ordis ]; then port=$ordis_port pid=$ordis_pid; read -ra args <<<"$ordis_cmd"
        else port=$redis_port pid=$redis_pid; read -ra args <<<"$redis_cmd"; fi
        t0=$(cpu_ticks "$pid" 2>/dev/null) || t0=""
        results[$name,$server,$round]=$(run "$port" "${args[@]}")
        t1=$(cpu_ticks "$pid" 2>/dev/null) || t1=""
        cpu[$name,$server,$round]=""
        if [ -n "${results[$name,$server,$round]}" ] && [ -n "$t0" ] && [ -n "$t1" ]; then
          cpu[$name,$server,$round]=$(us_per_request $((t1 - t0)) "$(requests_of "${args[@]}")")
        fi
        if [ -z "${results[$name,$server,$round]}" ] && [ -z "${errors[$name,$server]:-}" ]; then
          errors[$name,$server]=$(head -c 200 "$workdir/run.err" | tr '\n' ' ' | sed 's/ *$//')
        fi
      done
    done
  done
}

# Sends each row's command once to both servers, __rand_int__ as 000000123456, and notes under the
# table where the replies differ (the row would not compare the same work). For read-only rows.
same_replies() {
  local -n rows=$1
  local row name cmd args i
  for row in "${rows[@]}"; do
    IFS='|' read -r name cmd _ <<<"$row"
    read -ra args <<<"$cmd"
    for i in "${!args[@]}"; do [[ ${args[$i]} =~ ^[A-Z] ]] && break; done
    args=("${args[@]:$i}")
    args=("${args[@]//__rand_int__/000000123456}")
    if [ "$(redis-cli -p "$ordis_port" "${args[@]}" 2>&1)" != "$(redis-cli -p "$redis_port" "${args[@]}" 2>&1)" ]; then
      errors[$name,reply]="ordis and redis answer ${args[*]} differently"
    fi
  done
}

# Median of the numeric arguments (empty ones are failed runs), or n/a when there are none.
median() {
  printf '%s\n' "$@" | { grep -E '^[0-9.]+$' || true; } | sort -g |
    awk '{a[NR]=$1} END {if (NR == 0) print "n/a"; else print a[int((NR+1)/2)]}'
}
ratio() {  # a b -> a/b as "0.00x", or n/a
  awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2fx", a / b; else print "n/a" }'
}
num() {  # a number rounded, or n/a as it is
  if [ "$1" = n/a ]; then echo n/a; else printf '%.0f' "$1"; fi
}
num3() {  # a number with 3 decimals, or n/a as it is
  if [ "$1" = n/a ]; then echo n/a; else printf '%.3f' "$1"; fi
}

# Prints the table of the named arrays' rows, then the reasons of the n/a runs.
report() {
  local name om rm_ oc rc round o r oc_ rc_
  printf '| %-40s | %14s | %14s | %6s | %16s | %16s | %6s |\n' "benchmark (median of $rounds)" \
    "ordis req/s" "redis req/s" "ratio" "ordis CPU us/req" "redis CPU us/req" "ratio"
  printf '|%s|%s|%s|%s|%s|%s|%s|\n' "------------------------------------------" "----------------" \
    "----------------" "--------" "------------------" "------------------" "--------"
  local -n rows_
  for rows_ in "$@"; do
    for row in "${rows_[@]}"; do
      IFS='|' read -r name _ _ <<<"$row"
      o=(); r=(); oc_=(); rc_=()
      for round in $(seq 1 "$rounds"); do
        o+=("${results[$name,ordis,$round]}")
        r+=("${results[$name,redis,$round]}")
        oc_+=("${cpu[$name,ordis,$round]}")
        rc_+=("${cpu[$name,redis,$round]}")
      done
      om=$(median "${o[@]}")
      rm_=$(median "${r[@]}")
      oc=$(median "${oc_[@]}")
      rc=$(median "${rc_[@]}")
      printf '| %-40s | %14s | %14s | %6s | %16s | %16s | %6s |\n' "$name" "$(num "$om")" "$(num "$rm_")" \
        "$(ratio "$om" "$rm_")" "$(num3 "$oc")" "$(num3 "$rc")" "$(ratio "$oc" "$rc")"
    done
  done
  for rows_ in "$@"; do
    for row in "${rows_[@]}"; do
      IFS='|' read -r name _ _ <<<"$row"
      for server in ordis redis; do
        [ -n "${errors[$name,$server]:-}" ] && echo "n/a: $server, $name: ${errors[$name,$server]}"
      done
      [ -n "${errors[$name,reply]:-}" ] && echo "warning: $name: ${errors[$name,reply]}"
    done
  done
  return 0
}

strings_rows=(
  "SET -P 1 -c 50|-c 50 -P 1 -n 200000 -r 1000000 -t set|="
  "GET -P 1 -c 50|-c 50 -P 1 -n 200000 -r 1000000 -t get|="
  "SET -P 16 -c 50|-c 50 -P 16 -n 1000000 -r 1000000 -t set|="
  "GET -P 16 -c 50|-c 50 -P 16 -n 1000000 -r 1000000 -t get|="
  "INCR -P 1 -c 50|-c 50 -P 1 -n 200000 -r 1000000 -t incr|="
  "MSET (10 keys) -P 1 -c 50|-c 50 -P 1 -n 100000 -r 1000000 -t mset|="
  "KRANGE 10 vs SCAN COUNT 10|-c 50 -P 1 -n 100000 -r 1000000 KRANGE [key:__rand_int__ + LIMIT 0 10|-c 50 -P 1 -n 100000 -r 1000000 SCAN __rand_int__ COUNT 10"
)
# Both servers get the same keys (1M random SETs over 1M names) before anything is measured.
preload_keys() {
  local port
  for port in "$ordis_port" "$redis_port"; do
    redis-benchmark -p "$port" -q -n 1000000 -r 1000000 -P 64 -c 50 -t set >/dev/null 2>&1
  done
}
section_strings() {
  start_servers
  preload_keys
  measure strings_rows
  stop_servers
  echo "strings: 1M keys loaded"
  report strings_rows
}

# Three commands in one EVALSHA: INCR of a counter, SET of a (preloaded) key to the 3-byte value the
# preload wrote, GET of it. SCRIPT LOAD answers the SHA1 of the body, so the rows can name it now.
scripting_body="redis.call('incr', KEYS[1]); redis.call('set', KEYS[2], ARGV[1]); return redis.call('get', KEYS[2])"
scripting_sha=$(printf '%s' "$scripting_body" | sha1sum | cut -d' ' -f1)
row_named() {  # array name -> that array's row of that name (exits when there is none)
  local -n rows_named=$1
  local row
  for row in "${rows_named[@]}"; do
    [ "${row%%|*}" = "$2" ] && { echo "$row"; return; }
  done
  echo "no row '$2' in $1" >&2
  exit 1
}
scripting_evalsha_rows=(
  "EVALSHA incr+set+get -P 1 -c 50|-c 50 -P 1 -n 200000 -r 1000000 EVALSHA $scripting_sha 2 counter:__rand_int__ key:__rand_int__ xxx|="
  "EVALSHA incr+set+get -P 16 -c 50|-c 50 -P 16 -n 500000 -r 1000000 EVALSHA $scripting_sha 2 counter:__rand_int__ key:__rand_int__ xxx|="
)
# Each EVALSHA row after the strings section's GET row of the same pipeline, for reference.
scripting_rows=(
  "$(row_named strings_rows "GET -P 1 -c 50")"
  "${scripting_evalsha_rows[0]}"
  "$(row_named strings_rows "GET -P 16 -c 50")"
  "${scripting_evalsha_rows[1]}"
)
section_scripting() {
  start_servers
  preload_keys
  local server port sha
  for server in ordis redis; do
    [ $server = ordis ] && port=$ordis_port || port=$redis_port
    sha=$(redis-cli -p "$port" script load "$scripting_body" 2>&1)
    if [ "$sha" != "$scripting_sha" ]; then
      echo "$server: SCRIPT LOAD answered '$sha', expected $scripting_sha" >&2
      exit 1
    fi
  done
  # The script writes, but the reply (GET of the key it just SET) is the same on both servers;
  # a NOSCRIPT or a script error on one of them shows here.
  same_replies scripting_evalsha_rows
  measure scripting_rows
  stop_servers
  echo "scripting: 1M keys loaded as in strings; EVALSHA of: $scripting_body"
  report scripting_rows
}

# redis-benchmark's __rand_int__ is 12 digits, zero padded: m:__rand_int__ names a member m:%012d.
zset_read_rows=(
  "ZSCORE -P 1|-c 50 -P 1 -n 300000 -r 1000000 ZSCORE z m:__rand_int__|="
  "ZSCORE -P 16|-c 50 -P 16 -n 1000000 -r 1000000 ZSCORE z m:__rand_int__|="
  "ZRANGE z 0 99 -P 1|-c 50 -P 1 -n 150000 ZRANGE z 0 99|="
  "ZRANGE z 500000 500099 -P 1|-c 50 -P 1 -n 150000 ZRANGE z 500000 500099|="
  "ZRANGEBYLEX [m:rand + LIMIT 100 -P 1|-c 50 -P 1 -n 100000 -r 1000000 ZRANGEBYLEX z [m:__rand_int__ + LIMIT 0 100|="
  "ZRANGEBYLEX [m:rand + LIMIT 10 -P 16|-c 50 -P 16 -n 500000 -r 1000000 ZRANGEBYLEX z [m:__rand_int__ + LIMIT 0 10|="
  "ZRANGEBYSCORE rand +inf LIMIT 10 -P 1|-c 50 -P 1 -n 200000 -r 1000000 ZRANGEBYSCORE zs __rand_int__ +inf LIMIT 0 10|="
  "ZRANGEBYSCORE rand +inf LIMIT 10 -P 16|-c 50 -P 16 -n 500000 -r 1000000 ZRANGEBYSCORE zs __rand_int__ +inf LIMIT 0 10|="
)
# Mostly new members n:%012d (100M possible) into the big set z: after the read rows.
zset_write_rows=(
  "ZADD z 0 n:rand (new) -P 1|-c 50 -P 1 -n 200000 -r 100000000 ZADD z 0 n:__rand_int__|="
  "ZADD z 0 n:rand (new) -P 16|-c 50 -P 16 -n 500000 -r 100000000 ZADD z 0 n:__rand_int__|="
)

# Loads file into the key on port and prints "used_memory delta/member rss delta/member".
load_zset() {  # port key file
  local u0 r0 u1 r1 out card
  u0=$(info_field "$1" memory used_memory); r0=$(info_field "$1" memory used_memory_rss)
  out=$(redis-cli -p "$1" --pipe <"$3" 2>&1)
  card=$(redis-cli -p "$1" zcard "$2")
  if ! grep -q 'errors: 0, replies: 1000$' <<<"$out" || [ "$card" != 1000000 ]; then
    echo "loading $2 on port $1 failed (ZCARD $card): $out" >&2
    exit 1
  fi
  u1=$(info_field "$1" memory used_memory); r1=$(info_field "$1" memory used_memory_rss)
  awk -v u0="$u0" -v u1="$u1" -v r0="$r0" -v r1="$r1" 'BEGIN { printf "%.1f %.1f", (u1 - u0) / 1e6, (r1 - r0) / 1e6 }'
}
section_zset() {
  zset_resp z zero >"$workdir/z.resp"
  zset_resp zr shuffled >"$workdir/zr.resp"
  zset_resp zs index >"$workdir/zs.resp"
  start_servers
  local -A mem
  local server port key
  for key in z zr zs; do
    for server in ordis redis; do
      [ $server = ordis ] && port=$ordis_port || port=$redis_port
      mem[$key,$server]=$(load_zset "$port" "$key" "$workdir/$key.resp") || exit 1
    done
  done
  same_replies zset_read_rows
  measure zset_read_rows
  measure zset_write_rows
  stop_servers
  echo "sorted sets: z = 1M members m:%012d with score 0 (grown by the ZADD rows), zr = the same added in random order, zs = the same with score i"
  report zset_read_rows zset_write_rows
  echo
  printf '| %-46s | %8s | %8s | %6s |\n' "memory per member, bytes (1M members m:%012d)" ordis redis ratio
  printf '|%s|%s|%s|%s|\n' "------------------------------------------------" "----------" "----------" "--------"
  local label o r
  for key in z zr zs; do
    case $key in
      z) label="z (score 0)" ;;
      zr) label="zr (score 0, random order)" ;;
      zs) label="zs (score i)" ;;
    esac
    read -r o _ <<<"${mem[$key,ordis]}"; read -r r _ <<<"${mem[$key,redis]}"
    printf '| %-46s | %8s | %8s | %6s |\n' "$label: used_memory delta" "$o" "$r" "$(ratio "$o" "$r")"
    read -r _ o <<<"${mem[$key,ordis]}"; read -r _ r <<<"${mem[$key,redis]}"
    printf '| %-46s | %8s | %8s | %6s |\n' "$label: RSS delta" "$o" "$r" "$(ratio "$o" "$r")"
  done
}

# Writes: both servers with the append-only log on (--appendonly yes, each in its own directory),
# appendfsync everysec and then, on fresh servers, always. Redis's other defaults stay (RDB preamble,
# automatic rewrite at 100% growth and 64 MB); snapshots off on both (--save '').
persistence_everysec_rows=(
  "SET -P 16 -c 50 (everysec)|-c 50 -P 16 -n 1000000 -r 1000000 -t set|="
  "SET -P 1 -c 50 (everysec)|-c 50 -P 1 -n 200000 -r 1000000 -t set|="
)
persistence_always_rows=(
  "SET -P 16 -c 50 (always)|-c 50 -P 16 -n 200000 -r 1000000 -t set|="
)
# The same without the log, on fresh servers too: what the log costs each server in this run.
persistence_off_rows=(
  "SET -P 16 -c 50 (appendonly no)|-c 50 -P 16 -n 1000000 -r 1000000 -t set|="
)
log_bytes() {  # dir -> bytes in dir/appendonlydir
  du -sb "$1/appendonlydir" 2>/dev/null | cut -f1
}
# Measures the named rows on fresh servers started with the log on and the given appendfsync;
# exits when a server does not report aof_enabled:1, notes when a log did not grow.
measure_logged() {  # rows appendfsync
  local server port dir before after rewrites
  start_servers --appendonly yes --appendfsync "$2"
  for server in ordis redis; do
    [ $server = ordis ] && port=$ordis_port || port=$redis_port
    if [ "$(info_field "$port" persistence aof_enabled)" != 1 ]; then
      echo "$server: INFO persistence does not say aof_enabled:1 with --appendonly yes" >&2
      exit 1
    fi
  done
  preload_keys  # as the strings section: SETs over keys that exist (the preload is logged too)
  declare -A before
  for server in ordis redis; do
    [ $server = ordis ] && dir=$ordis_dir || dir=$redis_dir
    before[$server]=$(log_bytes "$dir")
  done
  measure "$1"
  sleep 1.5  # everysec: what is written reaches the file within a second or so
  for server in ordis redis; do
    [ $server = ordis ] && dir=$ordis_dir || dir=$redis_dir
    after=$(log_bytes "$dir")
    [ $server = ordis ] && port=$ordis_port || port=$redis_port
    rewrites=$(info_field "$port" persistence aof_rewrites)
    log_growth[$2,$server]="$(awk -v a="${before[$server]:-0}" -v b="$after" 'BEGIN { printf "%+.0f MB", (b - a) / 1e6 }')"
    log_growth[$2,$server]+=" ($rewrites rewrites)"
    # A rewrite replaces the preload's records by a compact base, so the directory may shrink.
    if [ "${after:-0}" -le "${before[$server]:-0}" ] && [ "${rewrites:-0}" = 0 ]; then
      log_growth[$2,$server]+=" (did not grow!)"
    fi
  done
  stop_servers
}
declare -A log_growth
section_persistence() {
  measure_logged persistence_everysec_rows everysec
  measure_logged persistence_always_rows always
  start_servers
  preload_keys
  measure persistence_off_rows
  stop_servers
  echo "persistence: --appendonly yes, fresh servers for each appendfsync (and without the log), each preloaded as the strings section; SET of 3-byte values over 1M keys"
  report persistence_everysec_rows persistence_always_rows persistence_off_rows
  local f
  for f in everysec always; do
    echo "appendonlydir change over the $f rows: ordis ${log_growth[$f,ordis]}, redis ${log_growth[$f,redis]}"
  done
}

# snapshot: SNAPSHOT_KEYS (default 10M) keys key:%d with 16-byte values, the same RESP file piped
# into each server alone (redis, then ordis, to keep the peak memory down); then SAVE timed, the
# snapshot's size, and SNAPSHOT_LOADS (default 3) restarts on the same directory, each timed from
# the process's start until it answers PING and DBSIZE is the key count.
snapshot_resp() {  # keys -> RESP of SET key:%d <16 digits> for each key, on stdout
  /usr/bin/python3 - "$1" <<'EOF'
import sys
n, chunk = int(sys.argv[1]), 100_000
out = sys.stdout.buffer
for start in range(0, n, chunk):
    parts = []
    for i in range(start, min(n, start + chunk)):
        k = b"key:%d" % i
        parts.append(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$16\r\n%016d\r\n" % (len(k), k, i * 2654435761 % 10**16))
    out.write(b"".join(parts))
EOF
}
# Polls every 10 ms (a new connection each time) until the server on port answers PING with PONG
# and DBSIZE with keys; prints the milliseconds since start_ns. Fails when the process is gone,
# when DBSIZE stays another number for a second, or after 10 minutes.
wait_loaded() {  # port pid keys start_ns
  /usr/bin/python3 - "$@" <<'EOF'
import os, socket, sys, time
port, pid, keys, t0 = (int(a) for a in sys.argv[1:5])
def ask(cmd):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(cmd)
            data = b""
            while not data.endswith(b"\r\n"):
                d = s.recv(4096)
                if not d:
                    break
                data += d
            return data
    except OSError:
        return b""
wrong_since, last = None, b""
while time.time_ns() - t0 < 600e9:
    if ask(b"PING\r\n").startswith(b"+PONG"):
        last = ask(b"DBSIZE\r\n")
        if last == b":%d\r\n" % keys:
            print("%.0f" % ((time.time_ns() - t0) / 1e6))
            sys.exit(0)
        if last.startswith(b":"):
            wrong_since = wrong_since or time.time()
            if time.time() - wrong_since > 1:
                break
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit("the server exited while loading")
    time.sleep(0.01)
sys.exit("DBSIZE is %r after restart, expected %d" % (last.strip().decode(), keys))
EOF
}
now_ns() { date +%s%N; }
secs() {  # from_ns to_ns -> seconds, 3 decimals
  awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'
}
declare -A snap
# Starts $server (ordis or redis) alone on a fresh port in $dir: sets port and pid.
start_one() {
  if [ "$server" = ordis ]; then
    ordis_port=$(free_port); port=$ordis_port; start_ordis "$dir"; pid=$ordis_pid
  else
    redis_port=$(free_port); port=$redis_port; start_redis "$dir"; pid=$redis_pid
  fi
}
# Exits unless key:0, the middle key and the last one hold the values snapshot_resp wrote.
snapshot_spot_check() {  # port keys server round
  local i want got
  for i in 0 $(($2 / 2)) $(($2 - 1)); do
    want=$(printf '%016d' $((i * 2654435761 % 10000000000000000)))
    got=$(redis-cli -p "$1" get "key:$i")
    if [ "$got" != "$want" ]; then
      echo "$3: after restart $4, GET key:$i answered '$got', expected $want" >&2
      exit 1
    fi
  done
}
# Loads the RESP file into a fresh server, SAVEs, then restarts it on the snapshot; into snap[].
snapshot_one() {  # server keys file
  local server=$1 keys=$2 file=$3 dir=$workdir/snap.$1 port pid t0 t1 out round ms loads=()
  start_one
  wait_ready "$port"
  t0=$(now_ns)
  out=$(redis-cli -p "$port" --pipe <"$file" 2>&1)
  t1=$(now_ns)
  snap[$server,pipe]=$(secs "$t0" "$t1")
  if ! grep -q "errors: 0, replies: $keys\$" <<<"$out" || [ "$(redis-cli -p "$port" dbsize)" != "$keys" ]; then
    echo "$server: loading $keys keys failed (DBSIZE $(redis-cli -p "$port" dbsize)): $out" >&2
    exit 1
  fi
  snap[$server,mem]=$(awk -v u="$(info_field "$port" memory used_memory)" 'BEGIN { printf "%.1f", u / 1e6 }')
  t0=$(now_ns)
  out=$(redis-cli -p "$port" save 2>&1)
  t1=$(now_ns)
  [ "$out" = OK ] || { echo "$server: SAVE answered $out" >&2; exit 1; }
  snap[$server,save]=$(secs "$t0" "$t1")
  snap[$server,file]=$(redis-cli -p "$port" config get dbfilename | tail -n 1)
  snap[$server,size]=$(awk -v s="$(stat -c %s "$dir/${snap[$server,file]}")" 'BEGIN { printf "%.1f", s / 1e6 }')
  stop_servers
  for round in $(seq 1 "${SNAPSHOT_LOADS:-3}"); do
    t0=$(now_ns)
    start_one
    if ! ms=$(wait_loaded "$port" "$pid" "$keys" "$t0"); then
      echo "$server: restart $round on $dir (${snap[$server,file]}, $keys keys) failed; its log ends:" >&2
      tail -n 5 "$workdir/$server.log" >&2
      exit 1
    fi
    loads+=("$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1e3 }')")
    snapshot_spot_check "$port" "$keys" "$server" "$round"
    if [ "$server" = ordis ]; then
      snap[$server,reported]=$(awk -v m="$(info_field "$port" persistence loading_time_ms)" 'BEGIN { printf "%.3f", m / 1e3 }')
    else
      snap[$server,reported]=$(grep -o 'DB loaded from disk: [0-9.]* seconds' "$workdir/redis.log" | tail -n 1 | awk '{print $5}')
    fi
    stop_servers
  done
  snap[$server,loads]="${loads[*]}"
  snap[$server,load]=$(median "${loads[@]}")
}
snapshot_row() {  # label field
  printf '| %-58s | %10s | %10s | %11s |\n' "$1" "${snap[ordis,$2]}" "${snap[redis,$2]}" "$(ratio "${snap[ordis,$2]}" "${snap[redis,$2]}")"
}
section_snapshot() {
  local keys=${SNAPSHOT_KEYS:-10000000} nloads=${SNAPSHOT_LOADS:-3} t0 t1
  t0=$(now_ns)
  snapshot_resp "$keys" >"$workdir/snapshot.resp"
  t1=$(now_ns)
  echo "snapshot: $keys keys key:%d, 16-byte values ($(du -m "$workdir/snapshot.resp" | cut -f1) MB of RESP, generated in $(secs "$t0" "$t1") s); one server at a time"
  snapshot_one redis "$keys" "$workdir/snapshot.resp"
  snapshot_one ordis "$keys" "$workdir/snapshot.resp"
  rm -f "$workdir/snapshot.resp"
  printf '| %-58s | %10s | %10s | %11s |\n' "snapshot, $keys keys" ordis redis "ordis/redis"
  printf '|%s|%s|%s|%s|\n' "------------------------------------------------------------" "------------" "------------" "-------------"
  snapshot_row "load through redis-cli --pipe, s" pipe
  snapshot_row "used_memory after loading, MB" mem
  snapshot_row "SAVE, s" save
  snapshot_row "snapshot file size, MB (${snap[ordis,file]} / ${snap[redis,file]})" size
  snapshot_row "restart until PING and DBSIZE = $keys, s (median of $nloads)" load
  snapshot_row "load time the server reports, s (last restart)" reported
  echo "restarts, s: ordis ${snap[ordis,loads]}; redis ${snap[redis,loads]}"
  echo "(reported: ordis INFO persistence loading_time_ms; redis its log's \"DB loaded from disk\")"
  echo "snapshot load speedup, redis / ordis restart time: $(ratio "${snap[redis,load]}" "${snap[ordis,load]}") (target: at least 1.50x)"
}

# pubsub: 10 subscribers of channel ch on each server, held by one reader process per server that
# discards what arrives (so the readers take little of the machine the servers share).
publish_rows=(
  "PUBLISH (10 subscribers) -P 1 -c 50|-c 50 -P 1 -n 200000 PUBLISH ch hello-subscribers|="
  "PUBLISH (10 subscribers) -P 16 -c 50|-c 50 -P 16 -n 500000 PUBLISH ch hello-subscribers|="
)
# SET with notifications off, then on for every class (KEA) with nobody listening.
notify_off_rows=(
  "SET -P 16 -c 50 (notifications off)|-c 50 -P 16 -n 1000000 -r 1000000 -t set|="
)
notify_on_rows=(
  "SET -P 16 -c 50 (notify KEA)|-c 50 -P 16 -n 1000000 -r 1000000 -t set|="
  "SET -P 1 -c 50 (notify KEA)|-c 50 -P 1 -n 200000 -r 1000000 -t set|="
)
start_subscribers() {  # port count channel: a reader process holding count subscriptions
  /usr/bin/python3 - "$@" <<'EOF' &
import selectors, socket, sys
port, count, channel = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()
sel = selectors.DefaultSelector()
for _ in range(count):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"*2\r\n$9\r\nSUBSCRIBE\r\n$%d\r\n%s\r\n" % (len(channel), channel))
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ)
while sel.get_map():
    for key, _ in sel.select():
        try:
            if not key.fileobj.recv(1 << 20):
                sel.unregister(key.fileobj)
        except (BlockingIOError, ConnectionResetError):
            pass
EOF
  subscriber_pids+=($!)
}
numsub() { redis-cli -p "$1" pubsub numsub "$2" | tail -n 1; }  # port channel
section_pubsub() {
  subscriber_pids=()
  start_servers
  local server port
  for port in "$ordis_port" "$redis_port"; do start_subscribers "$port" 10 ch; done
  for port in "$ordis_port" "$redis_port"; do
    for _ in $(seq 1 100); do [ "$(numsub "$port" ch)" = 10 ] && break; sleep 0.1; done
  done
  same_replies publish_rows
  measure publish_rows
  for server in ordis redis; do
    [ $server = ordis ] && port=$ordis_port || port=$redis_port
    # A subscriber closed at its output limit would make the rows compare different work.
    if [ "$(numsub "$port" ch)" != 10 ]; then
      errors[${publish_rows[0]%%|*},reply]="$server: $(numsub "$port" ch) of 10 subscribers left"
    fi
  done
  kill "${subscriber_pids[@]}" 2>/dev/null || true
  preload_keys
  measure notify_off_rows
  for port in "$ordis_port" "$redis_port"; do
    redis-cli -p "$port" config set notify-keyspace-events KEA >/dev/null
  done
  measure notify_on_rows
  stop_servers
  echo "pubsub: 10 subscribers of ch (one reader process per server); then 1M keys loaded, SET without and with notify-keyspace-events KEA, nobody subscribed"
  report publish_rows notify_off_rows notify_on_rows
}

# blocking: bench/blocking_bench.c's runs, each "name|arguments after the port"; every run leaves
# the keys it used empty. An operation is a ping-pong round trip (two blocked clients served) or a
# ZADD that a blocked BZPOPMIN takes.
blocking_rows=(
  "BRPOP/LPUSH ping-pong, 1 pair|pingpong 1"
  "BRPOP/LPUSH ping-pong, 8 pairs|pingpong 8"
  "BZPOPMIN served by ZADD, 8 waiters 2 producers|bzpopmin 8 2"
)
declare -A p50 p99
# Like measure, with blocking_bench instead of redis-benchmark: results[] operations/s, p50[] and
# p99[] latency in microseconds, cpu[] the server's CPU microseconds per operation of the run.
measure_blocking() {
  local round row name args server port pid t0 t1 out rate lat50 lat99 ops
  for round in $(seq 1 "$rounds"); do
    for row in "${blocking_rows[@]}"; do
      IFS='|' read -r name args <<<"$row"
      for server in ordis redis; do
        if [ $server = ordis ]; then port=$ordis_port pid=$ordis_pid; else port=$redis_port pid=$redis_pid; fi
        t0=$(cpu_ticks "$pid" 2>/dev/null) || t0=""
        # shellcheck disable=SC2086
        out=$(timeout "$row_timeout" "$blocking_bench" "$port" $args "${BLOCKING_SECONDS:-2}" 2>"$workdir/run.err") || out=""
        t1=$(cpu_ticks "$pid" 2>/dev/null) || t1=""
        results[$name,$server,$round]="" p50[$name,$server,$round]="" p99[$name,$server,$round]=""
        cpu[$name,$server,$round]=""
        if read -r rate lat50 lat99 ops <<<"$out" && [[ "$ops" =~ ^[0-9]+$ ]]; then
          results[$name,$server,$round]=$rate p50[$name,$server,$round]=$lat50 p99[$name,$server,$round]=$lat99
          [ -n "$t0" ] && [ -n "$t1" ] && cpu[$name,$server,$round]=$(us_per_request $((t1 - t0)) "$ops")
        elif [ -z "${errors[$name,$server]:-}" ]; then
          [ -s "$workdir/run.err" ] || echo "no result within ${row_timeout}s" >"$workdir/run.err"
          errors[$name,$server]=$(head -c 200 "$workdir/run.err" | tr '\n' ' ' | sed 's/ *$//')
        fi
      done
    done
  done
}
num1() {  # a number with 1 decimal, or n/a as it is
  if [ "$1" = n/a ]; then echo n/a; else printf '%.1f' "$1"; fi
}
report_blocking() {
  local row name round server v
  local -A med
  printf '| %-46s | %10s | %10s | %6s | %15s | %15s | %6s | %6s | %9s | %9s | %6s |\n' \
    "benchmark (median of $rounds)" "ordis op/s" "redis op/s" ratio "ordis p50/p99" "redis p50/p99" \
    "p50" "p99" "ordis CPU" "redis CPU" "CPU"
  printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' "------------------------------------------------" \
    "------------" "------------" "--------" "-----------------" "-----------------" "--------" \
    "--------" "-----------" "-----------" "--------"
  for row in "${blocking_rows[@]}"; do
    IFS='|' read -r name _ <<<"$row"
    for server in ordis redis; do
      for v in results p50 p99 cpu; do
        local -n arr=$v
        local vals=()
        for round in $(seq 1 "$rounds"); do vals+=("${arr[$name,$server,$round]}"); done
        med[$v,$server]=$(median "${vals[@]}")
        unset -n arr
      done
    done
    printf '| %-46s | %10s | %10s | %6s | %15s | %15s | %6s | %6s | %9s | %9s | %6s |\n' "$name" \
      "$(num "${med[results,ordis]}")" "$(num "${med[results,redis]}")" \
      "$(ratio "${med[results,ordis]}" "${med[results,redis]}")" \
      "$(num1 "${med[p50,ordis]}") / $(num1 "${med[p99,ordis]}")" \
      "$(num1 "${med[p50,redis]}") / $(num1 "${med[p99,redis]}")" \
      "$(ratio "${med[p50,ordis]}" "${med[p50,redis]}")" "$(ratio "${med[p99,ordis]}" "${med[p99,redis]}")" \
      "$(num3 "${med[cpu,ordis]}")" "$(num3 "${med[cpu,redis]}")" "$(ratio "${med[cpu,ordis]}" "${med[cpu,redis]}")"
  done
  for row in "${blocking_rows[@]}"; do
    IFS='|' read -r name _ <<<"$row"
    for server in ordis redis; do
      [ -n "${errors[$name,$server]:-}" ] && echo "n/a: $server, $name: ${errors[$name,$server]}"
    done
  done
  return 0
}
section_blocking() {
  blocking_bench=$workdir/blocking_bench
  cc -O2 -pthread -o "$blocking_bench" "$root/bench/blocking_bench.c"
  start_servers
  measure_blocking
  local server port
  for server in ordis redis; do
    [ $server = ordis ] && port=$ordis_port || port=$redis_port
    # Every run pops what it pushed: a key left over means a lost or duplicated element.
    [ "$(redis-cli -p "$port" dbsize)" = 0 ] || echo "warning: $server holds $(redis-cli -p "$port" dbsize) keys after the blocking rows"
  done
  stop_servers
  echo "blocking: bench/blocking_bench.c, ${BLOCKING_SECONDS:-2} s measured per run after 0.3 s of warm-up; op/s: ping-pong round trips (two blocked clients served each) or ZADDs (each taken by a blocked BZPOPMIN); p50/p99: latency of a round trip or a ZADD, in us; CPU: the server's CPU us per operation of the run. Ratios ordis/redis: op/s higher is better, latency and CPU lower is better."
  report_blocking
}

stream_write_rows=(
  "XADD MAXLEN ~ 1000000 -P 1|-c 50 -P 1 -n 300000 -r 1000000 XADD w MAXLEN ~ 1000000 * user user:__rand_int__ action click|="
  "XADD MAXLEN ~ 1000000 -P 16|-c 50 -P 16 -n 1000000 -r 1000000 XADD w MAXLEN ~ 1000000 * user user:__rand_int__ action click|="
)
# The stream s holds IDs <ms>-<n> for a few ms values: a bare ms of __rand_int__ (12 digits, far
# past every entry) finds nothing, so the start is the stream's first ID and XRANGE reads 10.
stream_read_rows=(
  "XRANGE s - + COUNT 10 -P 1|-c 50 -P 1 -n 300000 XRANGE s - + COUNT 10|="
  "XRANGE s - + COUNT 10 -P 16|-c 50 -P 16 -n 1000000 XRANGE s - + COUNT 10|="
)
section_streams() {
  start_servers
  local server port u0 u1 n
  for server in ordis redis; do
    [ $server = ordis ] && port=$ordis_port || port=$redis_port
    u0=$(info_field "$port" memory used_memory)
    redis-benchmark -p "$port" -c 1 -P 64 -n 100000 -r 1000 \
      XADD s '*' user user:__rand_int__ action click value __rand_int__ >/dev/null
    u1=$(info_field "$port" memory used_memory)
    n=$(redis-cli -p "$port" xlen s)
    echo "$server: $n entries, $(awk -v a="$u0" -v b="$u1" -v n="$n" 'BEGIN { printf "%.1f", (b - a) / n }') bytes per entry (used_memory), MEMORY USAGE $(redis-cli -p "$port" memory usage s)"
  done
  measure stream_write_rows
  measure stream_read_rows
  stop_servers
  echo "streams: 100k entries of 3 fields in s; XADD with approximate trimming into w"
  report stream_write_rows stream_read_rows
}

# The types section's rows. Bit offsets are fixed: __rand_int__'s leading zeros are no offset.
types_write_rows=(
  "SETBIT bits 1234567 1 -P 16|-c 50 -P 16 -n 1000000 SETBIT bits 1234567 1|="
  "PFADD hll rand -P 1|-c 50 -P 1 -n 200000 -r 100000000 PFADD hll __rand_int__|="
  "PFADD hll rand -P 16|-c 50 -P 16 -n 1000000 -r 100000000 PFADD hll __rand_int__|="
  "GEOADD geo2 (new members) -P 16|-c 50 -P 16 -n 500000 -r 100000000 GEOADD geo2 13.361389 38.115556 m:__rand_int__|="
)
types_read_rows=(
  "GETBIT bits 7654321 -P 16|-c 50 -P 16 -n 1000000 GETBIT bits 7654321|="
  "BITCOUNT bits (1.25 MB) -P 1|-c 50 -P 1 -n 20000 BITCOUNT bits|="
  "BITCOUNT bits 0 999 -P 16|-c 50 -P 16 -n 500000 BITCOUNT bits 0 999|="
  "BITPOS bits 0 -P 1|-c 50 -P 1 -n 100000 BITPOS bits 0|="
  "PFCOUNT hll -P 16|-c 50 -P 16 -n 1000000 PFCOUNT hll|="
  "PFCOUNT hll hll2 -P 1|-c 50 -P 1 -n 20000 PFCOUNT hll hll2|="
  "GEOSEARCH radius 100 km COUNT 10 -P 1|-c 50 -P 1 -n 5000 GEOSEARCH geo FROMLONLAT 10 50 BYRADIUS 100 km ASC COUNT 10|="
  "GEOSEARCH radius 100 km COUNT 10 -P 16|-c 50 -P 16 -n 10000 GEOSEARCH geo FROMLONLAT 10 50 BYRADIUS 100 km ASC COUNT 10|="
  "GEOSEARCH box 200x200 km COUNT 10 -P 1|-c 50 -P 1 -n 5000 GEOSEARCH geo FROMLONLAT 10 50 BYBOX 200 200 km ASC COUNT 10|="
  "GEODIST geo m:1 m:2 -P 16|-c 50 -P 16 -n 1000000 GEODIST geo m:1 m:2 km|="
)
section_types() {
  # 100k points in lon 0..20, lat 40..60, from a fixed linear congruential sequence.
  awk 'BEGIN { x = 12345; for (i = 0; i < 100000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648; lon = x / 2147483648 * 20
      x = (x * 1103515245 + 12345) % 2147483648; lat = 40 + x / 2147483648 * 20
      m = "m:" i; lo = sprintf("%.6f", lon); la = sprintf("%.6f", lat)
      printf "*5\r\n$6\r\nGEOADD\r\n$3\r\ngeo\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(lo), lo, length(la), la, length(m), m } }' \
    >"$workdir/geo.resp"
  # 1M SETBITs at offsets below 10M; PFADDs of 1000 elements each: 1M into hll, 100k into hll2.
  awk 'BEGIN { x = 777; for (i = 0; i < 1000000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648; o = int(x / 2147483648 * 10000000) ""
      printf "*4\r\n$6\r\nSETBIT\r\n$4\r\nbits\r\n$%d\r\n%s\r\n$1\r\n1\r\n", length(o), o } }' \
    >"$workdir/bits.resp"
  awk 'BEGIN { for (c = 0; c < 1100; c++) {
      key = c < 1000 ? "hll" : "hll2"
      printf "*1002\r\n$5\r\nPFADD\r\n$%d\r\n%s\r\n", length(key), key
      for (j = 0; j < 1000; j++) { e = "e:" (c * 1000 + j); printf "$%d\r\n%s\r\n", length(e), e } } }' \
    >"$workdir/hll.resp"
  start_servers
  local port file replies
  for port in "$ordis_port" "$redis_port"; do
    for file in bits:1000000 hll:1100 geo:100000; do
      replies=${file#*:}
      if ! redis-cli -p "$port" --pipe <"$workdir/${file%%:*}.resp" | grep -q "errors: 0, replies: $replies\$"; then
        echo "loading ${file%%:*} on port $port failed" >&2
        exit 1
      fi
    done
  done
  same_replies types_read_rows
  measure types_read_rows
  measure types_write_rows
  stop_servers
  echo "types: bits (10M-bit bitmap), hll (1M PFADDs), hll2 (100k), geo (100k points, lon 0..20 lat 40..60)"
  report types_read_rows types_write_rows
}

for section in "${sections[@]}"; do
  case $section in
    strings) section_strings ;;
    zset) section_zset ;;
    scripting) section_scripting ;;
    pubsub) section_pubsub ;;
    blocking) section_blocking ;;
    streams) section_streams ;;
    types) section_types ;;
    persistence) section_persistence ;;
    snapshot) section_snapshot ;;
    *) echo "unknown section $section (strings, zset, scripting, pubsub, blocking, streams, types, persistence, snapshot)" >&2; exit 2 ;;
  esac
  echo
done
