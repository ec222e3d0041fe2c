#!/usr/bin/env bash
# Lazy free, ordis beside Debian's redis-server 7 (issue 13): a set of MEMBERS members (23-byte
# members: one allocation each in both servers) is deleted with DEL, then again with UNLINK, while
# two other clients send PING and GET back to back, one request in flight each. Prints how long the
# deleting command took to answer, the slowest PING and GET answered from just before it was sent
# to 200 ms after its reply, and used_memory before the load, loaded, and once nothing is pending
# on the lazy-free thread.
#
#   bench/lazyfree.sh                  (MEMBERS=1000000)
#   ORDIS_BIN=build-test/server/ordis-server bench/lazyfree.sh   (skip the build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
members=${MEMBERS:-1000000}
# shellcheck source=bench/lib.sh
source "$root/bench/lib.sh"
use_ordis_bin redis-server redis-tools

make_workdir

/usr/bin/python3 - "$workdir/load.resp" "$members" <<'PY'
import sys
path, count = sys.argv[1], int(sys.argv[2])
with open(path, "wb") as f:
    for start in range(0, count, 1000):
        batch = [b"member:%016d" % i for i in range(start, min(start + 1000, count))]
        f.write(b"*%d\r\n$4\r\nSADD\r\n$3\r\nbig\r\n" % (len(batch) + 2))
        for m in batch:
            f.write(b"$%d\r\n%s\r\n" % (len(m), m))
PY

ordis_port=$(free_port)
redis_port=$(free_port)
"$ORDIS_BIN" --port "$ordis_port" --save "" --appendonly no >"$workdir/ordis.log" 2>&1 &
ordis_pid=$!
redis-server --port "$redis_port" --save "" --appendonly no >"$workdir/redis.log" 2>&1 &
redis_pid=$!
wait_ready "$ordis_port"
wait_ready "$redis_port"

printf '| server | command | reply ms | slowest PING ms | slowest GET ms | used_memory before / loaded / after, MB |\n'
printf '|---|---|---|---|---|---|\n'
for server in ordis redis; do
  port=$ordis_port
  [ "$server" = redis ] && port=$redis_port
  for command in DEL UNLINK; do
    redis-cli -p "$port" set small v >/dev/null
    /usr/bin/python3 - "$server" "$port" "$command" "$workdir/load.resp" <<'PY'
import socket, sys, threading, time

server, port, command, load = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

class Conn:
    """One connection reading whole RESP replies (simple, error, integer and bulk)."""

    def __init__(self):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def line(self):
        while b"\r\n" not in self.buf:
            self.buf += self.s.recv(65536)
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def reply(self):
        line = self.line()
        if line[:1] != b"$" or line == b"$-1":
            return line
        n = int(line[1:])
        while len(self.buf) < n + 2:
            self.buf += self.s.recv(65536)
        body, self.buf = self.buf[:n], self.buf[n + 2:]
        return body

    def call(self, request):
        self.s.sendall(request)
        return self.reply()


def used_memory(c):
    text = c.call(b"INFO memory\r\n").decode()
    return int(text.split("used_memory:")[1].split("\r\n")[0]) / 1e6

admin = Conn()
before = used_memory(admin)
with open(load, "rb") as f:
    body = f.read()
admin.s.sendall(body)
for _ in range(body.count(b"SADD")):
    admin.reply()
loaded = used_memory(admin)

stop = threading.Event()
samples = {"PING": [], "GET": []}  # (sent, latency)

def probe(name, request):
    c = Conn()
    while not stop.is_set():
        t0 = time.perf_counter()
        c.call(request)
        samples[name].append((t0, time.perf_counter() - t0))
    c.s.close()

threads = [threading.Thread(target=probe, args=("PING", b"PING\r\n")),
           threading.Thread(target=probe, args=("GET", b"GET small\r\n"))]
for t in threads:
    t.start()
time.sleep(0.3)
sent = time.perf_counter()
admin.call(command.encode() + b" big\r\n")
answered = time.perf_counter()
time.sleep(0.2)
stop.set()
for t in threads:
    t.join()
deadline = time.time() + 60
while b"lazyfree_pending_objects:0\r\n" not in admin.call(b"INFO memory\r\n"):
    if time.time() > deadline:
        sys.exit("lazy free still pending after 60 s")
    time.sleep(0.01)
after = used_memory(admin)

def slowest(name):
    window = [lat for t0, lat in samples[name] if t0 + lat >= sent and t0 <= answered + 0.2]
    return max(window) * 1000

print("| %s | %s | %.1f | %.1f | %.1f | %.1f / %.1f / %.1f |" % (
    server, command, (answered - sent) * 1000, slowest("PING"), slowest("GET"), before, loaded,
    after))
PY
  done
done
