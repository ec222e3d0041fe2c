#!/usr/bin/env bash
# Builds a fuzzer (clang: libFuzzer, ASan, UBSan) and runs it for a bounded time over its corpus in
# fuzz-corpus/<target> (gitignored; seeded here). Crash inputs are written to the build directory.
#   scripts/fuzz.sh [seconds=600] [more libFuzzer flags...]     the RESP parser
#   FUZZ_TARGET=persistence scripts/fuzz.sh [seconds] [...]     the snapshot, log, manifest and tier
#                                                              segment readers
#   FUZZ_TARGET=acl scripts/fuzz.sh [seconds] [...]             ACL SETUSER rules, user lines, ACL files
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}
[ $# -gt 0 ] && shift
target=${FUZZ_TARGET:-resp}
"$root/scripts/deps.sh" clang python3-xxhash $(cat "$root/scripts/build-packages.txt")

# Each fuzzed layer depends on nothing else of ours, so it builds as its own project: the fuzzer
# does not wait for the server's dependencies or code.
case "$target" in
  resp) layer=resp fuzzer=resp_parser_fuzz build="$root/build-fuzz" ;;
  persistence) layer=persistence fuzzer=persistence_reader_fuzz build="$root/build-fuzz-persistence" ;;
  acl) layer=server/acl fuzzer=acl_rules_fuzz build="$root/build-fuzz-acl" ;;
  *) echo "FUZZ_TARGET must be resp, persistence or acl" >&2; exit 2 ;;
esac
corpus="$root/fuzz-corpus/$target"
CC=clang CXX=clang++ cmake -S "$root/$layer" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DORDIS_FUZZ=ON >/dev/null
cmake --build "$build" --target "$fuzzer" -j"$(nproc)"
mkdir -p "$corpus"

seed_persistence() {
  # Seeds: the first byte picks the reader (0 snapshot, 1 log, 2 manifest, 3 tier segment, 4 DUMP
  # payload, 5 packed containers); real files follow. The tier seed: records and padding as tier_format.h lays them out
  # (stored values uncompressed: lz4 blocks come from the fuzzer's mutations of the raw-length
  # field). The DUMP seed: redis-server 7.0.15's FUNCTION DUMP of one library (an LZF string).
  /usr/bin/python3 -c 'import sys; open(sys.argv[1], "wb").write(b"\x04" + bytes.fromhex(sys.argv[2]))' \
    "$corpus/seed-dump" f5c34056405b1f23216c7561206e616d653d6d796c69620a72656469732e72656769737465725f0b66756e6374696f6e28276d79400b02272c2040066012116b6579732c2061726773292072657475726e600c075b315d20656e64290a008d5936adc6e707da
  # redis-server 7.0.15's listpack of RPUSH l a 1 -5000 "hello world" 300 127 128 -1 70000
  # -9000000 5000000000 "": every encoding.
  /usr/bin/python3 -c 'import sys; open(sys.argv[1], "wb").write(b"\x05" + bytes.fromhex(sys.argv[2]))' \
    "$corpus/seed-listpack" 3f0000000c008161020101f178ec038b68656c6c6f20776f726c640cc12c027f01c08002dfff02f270110104f3c0ab76ff05f400f2052a01000000098001ff
  /usr/bin/python3 - "$corpus/seed-tier" <<'PY'
import struct, sys, xxhash
def record(key, value):
    head = struct.pack("<IIII", 0x3152544F, len(key), len(value), 0)
    check = xxhash.xxh64_intdigest(key + value, seed=xxhash.xxh64_intdigest(head))
    return head + struct.pack("<Q", check) + key + value
segment = record(b"user:1", b"hello") + record(b"", b"v" * 300)
segment += b"\0" * (-len(segment) % 4096) + record(b"k", b"")
open(sys.argv[1], "wb").write(b"\x03" + segment)
PY
  printf '\x02file appendonly.aof.1.base.osnap seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n' \
    >"$corpus/seed-manifest"
  if [ -x "$root/build/server/ordis-server" ]; then
    # A snapshot and a log written by the server itself.
    dir=$(mktemp -d)
    port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    "$root/build/server/ordis-server" --port "$port" --dir "$dir" --appendonly yes --save "" \
      >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
    redis-cli -p "$port" mset a 1 b 2 >/dev/null
    redis-cli -p "$port" zadd z 1 m 2 n >/dev/null
    redis-cli -p "$port" rpush l x y >/dev/null
    redis-cli -p "$port" save >/dev/null
    kill "$pid"; wait "$pid" 2>/dev/null || true
    { printf '\x00'; cat "$dir/dump.osnap"; } >"$corpus/seed-snapshot"
    { printf '\x01'; cat "$dir"/appendonlydir/*.incr.aof; } >"$corpus/seed-log"
    rm -rf "$dir"
  fi
}

seed_acl() {
  # Lines: "setuser <name> <rules...>" (ACL SETUSER) or "user <name> <rules...>" (a config line);
  # the whole input is also loaded as an ACL file.
  printf 'setuser alice on >pw ~k* %%R~r* %%W~w* &c* +get +set -@admin +config|get\n' >"$corpus/seed-setuser"
  printf 'setuser bob on nopass (~a* +get) (%%RW~b* +@string -append) clearselectors resetpass\n' \
    >"$corpus/seed-selectors"
  printf 'user default on nopass ~* &* +@all\nuser carol off #%s +select|0 allkeys\n' \
    "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881" >"$corpus/seed-file"
}

seed_resp() {
  # Each input starts with three bytes the fuzz target reads as options (bit 0: small limits, bit 1:
  # unauthenticated, bits 2-3: how to split) and a split seed; the client's bytes follow.
  seed() { printf '%b' "$2" >"$corpus/seed-$1"; }
  seed set '\x00\x00\x00*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n'
  seed pipeline '\x04\x12\x34*1\r\n$4\r\nPING\r\n*0\r\n*-1\r\n*2\r\n$4\r\nECHO\r\n$0\r\n\r\n'
  seed inline '\x08\x56\x78PING\r\nECHO "a\\x41\\n" '"'"'b\\'"'"'c'"'"'\n\r\n  \n'
  seed binary '\x0c\x9a\xbc*2\r\n$4\r\nECHO\r\n$6\r\na\x00\r\nb\n\r\n'
  seed limits '\x01\x00\x01*9\r\n*1\r\n$65\r\n'
  seed unauth '\x02\x00\x02*2\r\n$4\r\nAUTH\r\n$16385\r\n'
  seed errors '\x05\x00\x03*1\r\nX\r\n'

  # Tokens of the protocol, so mutations build headers and escapes rather than noise.
  cat >"$build/resp.dict" <<'DICT'
"\x0d\x0a"
"*"
"$"
"*1\x0d\x0a"
"$3\x0d\x0a"
"*-1\x0d\x0a"
"$-1\x0d\x0a"
"2147483647"
"536870912"
"\x22"
"'"
"\\x"
"\\'"
"\\\x22"
"\x00"
DICT
}

flags=(-max_total_time="$seconds" -artifact_prefix="$build/" -print_final_stats=1)
if [ "$target" = persistence ]; then
  seed_persistence
  flags+=(-rss_limit_mb=2048)
elif [ "$target" = acl ]; then
  seed_acl
else
  seed_resp
  flags+=(-dict="$build/resp.dict")
fi
exec "$build/$fuzzer" "${flags[@]}" "$@" "$corpus"
