#!/usr/bin/env bash
# Sorted-set instructions per request of two ordis builds, counted by callgrind (bench/vs-redis.sh's
# zset rows in requests/s drown a few percent in the noise of a shared machine). Each build loads
# z (1M members m:%012d, score 0) and zs (the same with score i) as bench/vs-redis.sh does, then
# serves each row's fixed load on one connection at -P 16; the table gives server instructions per
# request (per member added for the loads) and the ratio of the second build to the first.
#
#   bench/zset-instructions.sh BASE [NEW]   BASE, NEW: commits (built in $root/build-at-<sha>) or
#                                           paths to ordis-server binaries; NEW defaults to HEAD
#   REQUESTS=20000 bench/zset-instructions.sh ...   (requests per row; ZRANGE rows run a tenth)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:?usage: bench/zset-instructions.sh BASE [NEW]}
new=${2:-HEAD}
requests=${REQUESTS:-20000}
"$root/scripts/deps.sh" $(cat "$root/scripts/build-packages.txt") valgrind redis-tools
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

make_workdir

# name|requests|-r|redis-benchmark command (__rand_int__ is 12 digits: m:__rand_int__ is a member).
# The small rows make and then read 10k sets of 5 members (the small form).
rows=(
  "ZSCORE z m:rand|$requests|1000000|ZSCORE z m:__rand_int__"
  "ZRANK z m:rand|$requests|1000000|ZRANK z m:__rand_int__"
  "ZRANGE z 500000 500099|$((requests / 10))|1000000|ZRANGE z 500000 500099"
  "ZRANGEBYLEX z [m:rand + LIMIT 0 10|$requests|1000000|ZRANGEBYLEX z [m:__rand_int__ + LIMIT 0 10"
  "ZRANGEBYSCORE zs rand +inf LIMIT 0 10|$requests|1000000|ZRANGEBYSCORE zs __rand_int__ +inf LIMIT 0 10"
  "ZADD zs rand m:rand (move)|$requests|1000000|ZADD zs __rand_int__ m:__rand_int__"
  "ZADD z 0 n:rand (new)|$requests|1000000|ZADD z 0 n:__rand_int__"
  "ZADD s:rand of 5 (small sets)|$requests|10000|ZADD s:__rand_int__ 0 a 1 b 2 c 3 d 4 e"
  "ZRANGE s:rand 0 -1 WITHSCORES (small)|$requests|10000|ZRANGE s:__rand_int__ 0 -1 WITHSCORES"
  "ZSCORE s:rand c (small)|$requests|10000|ZSCORE s:__rand_int__ c"
)
zset_resp z zero >"$workdir/z.resp"
zset_resp zs index >"$workdir/zs.resp"
port=$(free_port)

# Prints, one a line, the server's instructions for loading z, for loading zs, then for each row:
# each stretch is counted from a zeroing to a dump (callgrind_control; dumps go to $out.1, .2 ...).
count() {
  local bin=$1 out="$workdir/callgrind.out" pid part=0 row name n range cmd
  rm -f "$out"*
  valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --port "$port" --save '' \
    --appendonly no --threads 1 --dir "$workdir" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  stretch() {  # command...: runs it between a zeroing and a dump, prints the dump's total
    callgrind_control -z "$pid" >/dev/null 2>&1
    "$@" >/dev/null 2>&1
    callgrind_control -d "$pid" >/dev/null 2>&1
    part=$((part + 1))
    callgrind_annotate "$out.$part" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
  }
  stretch redis-cli -p "$port" --pipe <"$workdir/z.resp"
  stretch redis-cli -p "$port" --pipe <"$workdir/zs.resp"
  for row in "${rows[@]}"; do
    IFS='|' read -r name n range cmd <<<"$row"
    # shellcheck disable=SC2086
    stretch redis-benchmark -p "$port" -c 1 -P 16 -n "$n" -r "$range" $cmd
  done
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  wait "$pid" || true
}

base_bin=$(ordis_binary "$base")
new_bin=$(ordis_binary "$new")
mapfile -t b < <(count "$base_bin")
mapfile -t n < <(count "$new_bin")
printf 'server instructions per request (per member for the loads), one connection, -P 16, --threads 1\n'
printf 'base %s, new %s\n\n' "$base" "$new"
printf '| row | requests | base instr/req | new instr/req | new/base |\n|---|---|---|---|---|\n'
names=("load z (ZADD of 1000, score 0)|1000000" "load zs (ZADD of 1000, score i)|1000000")
for row in "${rows[@]}"; do
  IFS='|' read -r name count _ <<<"$row"
  names+=("$name|$count")
done
for i in "${!names[@]}"; do
  IFS='|' read -r name count <<<"${names[$i]}"
  awk -v name="$name" -v c="$count" -v b="${b[$i]:-0}" -v n="${n[$i]:-0}" \
    'BEGIN { printf "| %s | %d | %.0f | %.0f | %s |\n", name, c, b / c, n / c, (b > 0 ? sprintf("%.4f", n / b) : "n/a") }'
done
