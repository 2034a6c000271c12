#!/usr/bin/env bash
# Benchmarks out-of-band operations on the embedded default (SQLite), in one run:
#   1. complete operations/s with p50/p99 latency: create (authentication, dispatched by link),
#      open the sealed payload on the phone, sign, redeem, succeeded; CONCURRENCY phones at once;
#   2. memory per pending operation: PENDING operations created and left unanswered; the server's
#      resident memory and the database's size before and after, per operation.
#
#   scripts/bench-oob.sh [SECONDS] [CONCURRENCY] [PENDING]     # defaults: 10 s, 8 phones, 2000
#
# Builds release binaries into .build-release and Benchmarks/.build. Talks only to 127.0.0.1.
# The cryptography of one operation alone is in the ordo-one benchmark:
#   (cd Benchmarks && swift package benchmark --target OutOfBandCrypto)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-10}
concurrency=${2:-8}
pending=${3:-2000}
work=$(mktemp -d /tmp/handover-bench-oob.XXXXXX)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "== building (release): handover, oob-bench"
swift build -c release --product handover --scratch-path .build-release 2>&1 | grep -E "error|complete" | tail -1 || true
(cd Benchmarks && swift build -c release --product oob-bench 2>&1 | grep -E "error|complete" | tail -1 || true)
handover="$root/.build-release/release/handover"
bench="$root/Benchmarks/.build/release/oob-bench"
[ -x "$handover" ] && [ -x "$bench" ] || { echo "bench-oob: build failed" >&2; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
echo "== handover serve on 127.0.0.1:$port, SQLite in $work/data"
LOG_LEVEL=error HANDOVER_DATABASE_URL= HANDOVER_PUBLIC_URL= "$handover" serve --port "$port" --data-dir "$work/data" > "$work/serve.out" 2>&1 &
server_pid=$!
for _ in $(seq 1 200); do grep -q "Press Ctrl-C" "$work/serve.out" 2>/dev/null && break; sleep 0.05; done
key=$(cat "$work/data/first-admin-key" 2>/dev/null)   # the first start writes it there, not to the output
[ -n "$key" ] || { echo "bench-oob: the server did not start: $(cat "$work/serve.out")" >&2; exit 1; }

echo "== $concurrency phones for ${seconds} s, then $pending pending operations"
out=$("$bench" "http://127.0.0.1:$port" "$key" "$server_pid" "$work/data" "$seconds" "$concurrency" "$pending")
echo "$out"
rate=$(awk '/^complete_operations_per_s/ {print $2}' <<<"$out")
p99=$(awk '/^latency_ms/ {print $5}' <<<"$out")
rss=$(awk '/^server_rss_bytes_per_pending/ {print $2}' <<<"$out")
db=$(awk '/^database_bytes_per_pending/ {print $2}' <<<"$out")
echo "oob: $rate complete operations/s (p99 $p99 ms, $concurrency phones, SQLite); per pending operation: $rss bytes of server memory, $db bytes of database"
