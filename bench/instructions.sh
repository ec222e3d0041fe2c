#!/usr/bin/env bash
# Instructions per request of two ordis builds, counted by callgrind: repeatable on a shared,
# noisy machine where a few percent of throughput drown in the noise (bench/acl.sh's rounds vary
# 4-10%). Each build serves the same fixed load (one connection, -P 16, redis-benchmark SET and
# GET, 100k each) once as the default user and once as a user with ~* &* +@all (the default user
# again for a build without ACL); the table gives
# server instructions per request and the ratio of the second build to the first.
#
#   bench/instructions.sh BASE [NEW]   BASE, NEW: commits (built in $root/build-at-<sha>) or paths
#                                      to ordis-server binaries; NEW defaults to HEAD
#   REQUESTS=100000 bench/instructions.sh ...
#
# Issue 12's ACL cost: bench/instructions.sh 122e2eb (the commit before ACL) against HEAD.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${1:?usage: bench/instructions.sh BASE [NEW]}
new=${2:-HEAD}
requests=${REQUESTS:-100000}
"$root/scripts/deps.sh" $(cat "$root/scripts/build-packages.txt") valgrind redis-tools
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"

make_workdir

port=$(free_port)

# Instructions the server ran for the load, as user $2 ("" for default).
count() {
  local bin=$1 user=$2 out="$workdir/callgrind.out"
  rm -f "$out"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" --port "$port" --save '' \
    --threads 1 --dir "$workdir" >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 200); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  local auth=()
  # A build from before ACL serves the user rows as the default user: the cost of ACL is then
  # the new build's user row against the base's.
  if [ -n "$user" ] &&
    [ "$(redis-cli -p "$port" acl setuser "$user" on '>pw' '~*' '&*' '+@all')" = OK ]; then
    auth=(--user "$user" -a pw)
  fi
  redis-benchmark -p "$port" -c 1 -P 16 -n "$requests" -t set,get -q "${auth[@]}" >/dev/null 2>&1
  redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
  wait "$pid" || true
  callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}

base_bin=$(ordis_binary "$base")
new_bin=$(ordis_binary "$new")
printf 'server instructions per request: %d SET + %d GET, -P 16, one connection, --threads 1\n' \
  "$requests" "$requests"
printf 'base %s, new %s\n\n' "$base" "$new"
printf '| user | base instr/req | new instr/req | new/base |\n|---|---|---|---|\n'
for user in "" bench; do
  b=$(count "$base_bin" "$user")
  n=$(count "$new_bin" "$user")
  awk -v u="${user:-default}" -v b="$b" -v n="$n" -v r="$requests" \
    'BEGIN { printf "| %s | %.0f | %.0f | %.4f |\n", u, b / (2 * r), n / (2 * r), n / b }'
done
