#!/usr/bin/env bash
# The cold tier (issue 14) beside memory and beside Redis: four servers load the same KEYS keys of
# VALUE bytes (values lz4 cannot shrink), then answer uniform random GETs (redis-benchmark
# -r KEYS, -c 50, at -P 16 and -P 1), alternating, for ROUNDS rounds:
#   ordis-tier   maxmemory MAXMEM, noeviction, tier-dir: what does not fit goes to disk, and a
#                batch's cold values are read ahead while its connection waits (PD3's prefetch)
#   ordis-sync   the same with tier-prefetch no: every cold GET reads the disk while its thread
#                waits
#   ordis-mem    no maxmemory: everything in memory (the reference)
#   redis        Debian's redis-server, maxmemory MAXMEM, allkeys-lru (it answers only its hits)
# Prints requests/s and server CPU per request (utime+stime from /proc/<pid>/stat), the ratio to
# ordis-mem and (for ordis-tier) to ordis-sync, each server's share of GETs answered with a value,
# and the tier's INFO afterwards. Then two skewed loads (bench/skew_load, -c 50 -P 16 and -P 1,
# closed loop) with their p50 and p99 latency, the same way, each after WARMUP GETs at -P 16 that
# are not measured: Zipf ZIPF over the keys, and a hot set (HOT=F:S, 0.1:0.9 by default: a share S
# of the GETs uniform over a fraction F of the keys, the rest over the others), whose values fit in
# MAXMEM beside the keys while Zipf's have no such edge.
#
#   bench/tier.sh [rounds]    KEYS=1000000 VALUE=512 MAXMEM=128mb WARMUP=2000000 by default
#   ORDIS_BIN=path bench/tier.sh    (an ordis-server binary to use as it is)
#
# MAXMEM must hold every key (ordis keeps keys, TTLs and the index in memory: about 100 bytes a
# cold key today) or the tier server refuses writes. Quote ratios: the machine is shared.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-2}
keys=${KEYS:-1000000}
value=${VALUE:-512}
maxmem=${MAXMEM:-128mb}
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
use_ordis_bin redis-server redis-tools
skew_load=$(build_bench_target skew_load)
zipf=${ZIPF:-0.99}
hot=${HOT:-0.1:0.9}
warmup=${WARMUP:-2000000}
make_workdir

declare -A port=() pid=()
start() {  # name binary args...
  local name=$1 bin=$2
  shift 2
  port[$name]=$(free_port)
  mkdir -p "$workdir/$name"
  "$bin" --port "${port[$name]}" --dir "$workdir/$name" --save '' --appendonly no "$@" \
    >>"$workdir/$name.log" 2>&1 &
  pid[$name]=$!
  wait_ready "${port[$name]}"
}
cleanup() {
  for p in "${pid[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$workdir"
}
trap cleanup EXIT

/usr/bin/python3 - "$workdir/load.resp" "$keys" "$value" <<'PY'
import os, sys
path, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "wb") as f:
    for i in range(count):
        key = b"key:%012d" % i
        v = os.urandom(size // 2).hex().encode()[:size]  # hex: printable, about 2:1 for lz4 at best
        f.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(key), key, len(v), v))
PY

ordis=$ORDIS_BIN
start ordis-tier "$ordis" --maxmemory "$maxmem" --maxmemory-policy noeviction \
  --tier-dir "$workdir/ordis-tier/tier"
start ordis-sync "$ordis" --maxmemory "$maxmem" --maxmemory-policy noeviction \
  --tier-dir "$workdir/ordis-sync/tier" --tier-prefetch no
start ordis-mem "$ordis"
start redis redis-server --maxmemory "$maxmem" --maxmemory-policy allkeys-lru
servers=(ordis-tier ordis-sync ordis-mem redis)
for s in "${servers[@]}"; do
  redis-cli -p "${port[$s]}" --pipe <"$workdir/load.resp" | tail -1 | sed "s/^/$s load: /"
done

declare -A rps=() cpu=() answered=()
for round in $(seq 1 "$rounds"); do
  for pipeline in 16 1; do
    n=$((pipeline == 1 ? 50000 : 400000))
    for s in "${servers[@]}"; do
      p=${port[$s]}
      redis-cli -p "$p" config resetstat >/dev/null
      t0=$(cpu_ticks "${pid[$s]}") s0=$(date +%s.%N)
      redis-benchmark -p "$p" -c 50 -P "$pipeline" -n "$n" -r "$keys" -t get -q >/dev/null
      s1=$(date +%s.%N) t1=$(cpu_ticks "${pid[$s]}")
      rps[$pipeline,$s]+="$(awk -v a="$s0" -v b="$s1" -v n=$n 'BEGIN { printf "%.0f", n / (b - a) }') "
      cpu[$pipeline,$s]+="$(us_per_request $((t1 - t0)) "$n") "
      hits=$(info_field "$p" stats keyspace_hits) misses=$(info_field "$p" stats keyspace_misses)
      answered[$pipeline,$s]="$(awk -v h="$hits" -v m="$misses" 'BEGIN { printf "%.3f", h / (h + m) }')"
    done
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

printf '\n%d keys of %d bytes, maxmemory %s; uniform GET, -c 50, median of %d rounds\n\n' \
  "$keys" "$value" "$maxmem" "$rounds"
printf '| server | pipeline | req/s | vs ordis-mem | vs ordis-sync | CPU us/req | vs ordis-mem | GETs answered |\n'
printf '|---|---|---|---|---|---|---|---|\n'
for pipeline in 16 1; do
  base_r=$(echo "${rps[$pipeline,ordis-mem]}" | median)
  base_c=$(echo "${cpu[$pipeline,ordis-mem]}" | median)
  sync_r=$(echo "${rps[$pipeline,ordis-sync]}" | median)
  for s in "${servers[@]}"; do
    awk -v s="$s" -v p="$pipeline" -v r="$(echo "${rps[$pipeline,$s]}" | median)" -v br="$base_r" \
      -v sr="$sync_r" -v c="$(echo "${cpu[$pipeline,$s]}" | median)" -v bc="$base_c" \
      -v a="${answered[$pipeline,$s]}" \
      'BEGIN { vs = s == "ordis-tier" ? sprintf("%.2fx", r / sr) : "";
               printf "| %s | -P %s | %d | %.2fx | %s | %.2f | %.2fx | %s |\n", s, p, r, r / br, vs, c, c / bc, a }'
  done
done

# A skewed load (skew_load prints key=value pairs), its arguments naming the distribution: first
# WARMUP requests at -P 16 that are not measured, so that each server's memory holds what the load
# makes hot (the same hot keys in every run: skew_load's --key-seed), then the rounds.
skewed() {
  local title=$1
  shift
  declare -A srps=() scpu=() sp50=() sp99=() sanswered=()
  for s in "${servers[@]}"; do
    "$skew_load" --port "${port[$s]}" --keys "$keys" "$@" --connections 50 --pipeline 16 \
      --requests "$warmup" --seed 0 >/dev/null
  done
  for round in $(seq 1 "$rounds"); do
    for pipeline in 16 1; do
      n=$((pipeline == 1 ? 100000 : 400000))
      for s in "${servers[@]}"; do
        t0=$(cpu_ticks "${pid[$s]}")
        out=$("$skew_load" --port "${port[$s]}" --keys "$keys" "$@" --connections 50 \
          --pipeline "$pipeline" --requests "$n" --seed "$round")
        t1=$(cpu_ticks "${pid[$s]}")
        srps[$pipeline,$s]+="$(echo "$out" | field rps) "
        scpu[$pipeline,$s]+="$(us_per_request $((t1 - t0)) "$n") "
        sp50[$pipeline,$s]+="$(echo "$out" | field p50_us) "
        sp99[$pipeline,$s]+="$(echo "$out" | field p99_us) "
        sanswered[$pipeline,$s]=$(awk -v h="$(echo "$out" | field hits)" -v n="$n" \
          'BEGIN { printf "%.3f", h / n }')
      done
    done
  done
  printf '\n%s (bench/skew_load, after %d GETs of warm-up), -c 50, median of %d rounds\n\n' \
    "$title" "$warmup" "$rounds"
  printf '| server | pipeline | req/s | vs ordis-mem | vs ordis-sync | CPU us/req | p50 us | p99 us | GETs answered |\n'
  printf '|---|---|---|---|---|---|---|---|---|\n'
  for pipeline in 16 1; do
    base_r=$(echo "${srps[$pipeline,ordis-mem]}" | median)
    sync_r=$(echo "${srps[$pipeline,ordis-sync]}" | median)
    for s in "${servers[@]}"; do
      awk -v s="$s" -v p="$pipeline" -v r="$(echo "${srps[$pipeline,$s]}" | median)" -v br="$base_r" \
        -v sr="$sync_r" -v c="$(echo "${scpu[$pipeline,$s]}" | median)" \
        -v p50="$(echo "${sp50[$pipeline,$s]}" | median)" -v p99="$(echo "${sp99[$pipeline,$s]}" | median)" \
        -v a="${sanswered[$pipeline,$s]}" \
        'BEGIN { vs = s == "ordis-tier" ? sprintf("%.2fx", r / sr) : "";
                 printf "| %s | -P %s | %d | %.2fx | %s | %.2f | %d | %d | %s |\n", s, p, r, r / br, vs, c, p50, p99, a }'
    done
  done
}
field() { tr ' ' '\n' | sed -n "s/^$1=//p"; }

skewed "Zipf $zipf GETs" --zipf "$zipf"
skewed "GETs of a hot set ($hot: that share of the GETs on that fraction of the keys)" --hot "$hot"
printf '\nordis-tier afterwards:\n'
redis-cli -p "${port[ordis-tier]}" info tiering | tr -d '\r' |
  grep -E 'cold|file|demotions|promotions|reads|errors|waited|zone|host_view'
redis-cli -p "${port[ordis-tier]}" info memory | tr -d '\r' | grep -E '^used_memory:|^maxmemory:'
