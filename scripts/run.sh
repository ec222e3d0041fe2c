#!/usr/bin/env bash
# Builds ordis-server (Release) and runs it in the foreground on 127.0.0.1:6379 with embedded
# defaults. Extra arguments go to the server: scripts/run.sh --port 7000 --threads 4
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh" $(cat "$root/scripts/build-packages.txt")
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" --target ordis-server -j"$(nproc)"
exec "$root/build/server/ordis-server" "$@"
