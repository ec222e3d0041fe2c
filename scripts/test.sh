#!/usr/bin/env bash
# Builds ordis with its tests and runs every test through CTest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh" $(cat "$root/scripts/build-packages.txt" "$root/scripts/test-packages.txt")
cmake -S "$root" -B "$root/build-test" -DCMAKE_BUILD_TYPE=Release -DORDIS_BUILD_TESTS=ON >/dev/null
cmake --build "$root/build-test" -j"$(nproc)"
(cd "$root/build-test" && ctest --output-on-failure -j"$(nproc)" "$@")

# Concurrency stress tests again under ThreadSanitizer.
cmake -S "$root" -B "$root/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DORDIS_BUILD_TESTS=ON \
  -DORDIS_SANITIZE=thread >/dev/null
cmake --build "$root/build-tsan" -j"$(nproc)" --target index_test keyspace_stress_test
(cd "$root/build-tsan" && ctest --output-on-failure -R 'stress|Concurrent')
