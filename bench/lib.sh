# What the bench scripts that run ordis beside redis-server share; source it once $root is set.
# Servers are tracked in $ordis_pid and $redis_pid (empty when not running).

# Installs the build's packages and any named, and builds ordis-server (Release) in $root/build.
build_ordis() {
  "$root/scripts/deps.sh" $(cat "$root/scripts/build-packages.txt") "$@"
  cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$root/build" --target ordis-server -j"$(nproc)" >/dev/null
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

cpu_ticks() {  # pid -> utime+stime of the process (all its threads), in clock ticks
  # Fields counted after the command name, which may hold spaces.
  awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}
