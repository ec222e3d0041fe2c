# What the bench scripts that run ordis beside redis-server share; source it once $root is set.
# Servers are tracked in $ordis_pid and $redis_pid (empty when not running).

# Installs the build's packages and any named, and builds ordis-server (Release) in $root/build.
build_ordis() {
  "$root/scripts/deps.sh" $(cat "$root/scripts/build-packages.txt") "$@"
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$root/build" --target ordis-server -j"$(nproc)" >/dev/null
}

# Installs the build's packages and builds a benchmark program (Release, -DORDIS_BUILD_BENCH=ON)
# in $root/build-bench; prints its path.
# (Called in a command substitution, where set -e does not hold: each step returns on failure.)
build_bench_target() {
  "$root/scripts/deps.sh" $(cat "$root/scripts/build-packages.txt") || return 1
  cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release -DORDIS_BUILD_BENCH=ON \
    >/dev/null || return 1
  cmake --build "$root/build-bench" --target "$1" -j"$(nproc)" >/dev/null || return 1
  echo "$root/build-bench/bench/$1"
}

# $ORDIS_BIN if the caller set it (a build to use as is, packages not installed), else ordis built
# by build_ordis (its arguments: packages the benchmark needs).
use_ordis_bin() {
  if [ -z "${ORDIS_BIN:-}" ]; then
    build_ordis "$@"
    ORDIS_BIN="$root/build/server/ordis-server"
  fi
}

# A scratch directory in $workdir, removed when the script exits, with any servers it started.
make_workdir() {
  workdir=$(mktemp -d)
  ordis_pid="" redis_pid=""
  trap 'stop_servers; rm -rf "$workdir"' EXIT
}

free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_ready() {  # port: waits until a server answers PING there (exits after 10 s)
  for _ in $(seq 1 100); do
    redis-cli -p "$1" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "server on port $1 did not start" >&2
  exit 1
}

stop_servers() {
  local pid
  for pid in $ordis_pid $redis_pid; do kill "$pid" 2>/dev/null || true; done
  for pid in $ordis_pid $redis_pid; do wait "$pid" 2>/dev/null || true; done
  ordis_pid="" redis_pid=""
}

info_field() {  # port section field -> the field's value in that INFO section
  redis-cli -p "$1" info "$2" | tr -d '\r' | awk -F: -v f="$3" '$1 == f { print $2 }'
}

rss() { awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$1/status"; }  # pid -> resident bytes

cpu_ticks() {  # pid -> utime+stime of the process (all its threads), in clock ticks
  # Fields counted after the command name, which may hold spaces.
  awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

us_per_request() {  # ticks requests -> server CPU microseconds per request
  awk -v t="$1" -v n="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.4f", t / hz / n * 1e6 }'
}

# An ordis-server binary for a commit (built Release in $root/build-at-<sha>, its sources checked
# out under $workdir for the build) or a path to a binary (printed as it is).
ordis_binary() {
  if [ -x "$1" ]; then
    echo "$1"
    return
  fi
  local sha tree build
  sha=$(git -C "$root" rev-parse --short "$1")
  tree="$workdir/src-$sha"
  build="$root/build-at-$sha"
  git -C "$root" worktree add --detach "$tree" "$sha" >/dev/null 2>&1
  cmake -S "$tree" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" --target ordis-server -j"$(nproc)" >/dev/null
  git -C "$root" worktree remove --force "$tree" >/dev/null
  echo "$build/server/ordis-server"
}

# RESP of ZADD key commands of 1000 members each: m:%012d for i in 0..999999, score 0 or i, i
# ascending or (shuffled) in a fixed random order.
zset_resp() {  # key zero|index|shuffled
  /usr/bin/python3 - "$1" "$2" <<'EOF'
import random, sys
key, how = sys.argv[1].encode(), sys.argv[2]
n, batch = 1_000_000, 1000
order = list(range(n))
if how == "shuffled":
    random.Random(1).shuffle(order)
head = b"*%d\r\n$4\r\nZADD\r\n$%d\r\n%s\r\n" % (2 + 2 * batch, len(key), key)
out = sys.stdout.buffer
for start in range(0, n, batch):
    parts = [head]
    for i in order[start:start + batch]:
        s = b"%d" % i if how == "index" else b"0"
        parts.append(b"$%d\r\n%s\r\n$14\r\nm:%012d\r\n" % (len(s), s, i))
    out.write(b"".join(parts))
EOF
}
