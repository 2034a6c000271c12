#!/usr/bin/env bash
# Benchmarks the server's own sessions, in one run:
#   1. access-token verifications/s (SessionTokens: header, ES256 signature, claims, iss, exp; no
#      cache) as a fraction of a bare ES256 verify of the same bytes, one thread (target >= 0.6);
#   2. authenticated GET /api/v1/me requests/s with wrk, as a fraction of the unauthenticated
#      GET /healthz of the same server (target >= 0.8). The session comes from a real Sign in with
#      Apple against a local Apple-protocol server (Benchmarks' apple-signin-peer).
#
#   scripts/bench-sessions.sh [SECONDS]      # default 10 s per wrk run, 5 s per verify loop
#
# Needs wrk (installed with apt-get when missing). Builds release binaries into Benchmarks/.build
# and .build-release. Talks only to 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-10}
connections=${BENCH_CONNECTIONS:-32}
work=$(mktemp -d /tmp/handover-bench-sessions.XXXXXX)
pids=()
cleanup() {
  exec 3>&- 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

if ! command -v wrk >/dev/null 2>&1; then
  echo "installing wrk" >&2
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
fi

echo "== building (release): session-bench, apple-signin-peer, handover"
(cd Benchmarks && swift build -c release --product session-bench 2>&1 | grep -E "error|complete" | tail -1 || true)
(cd Benchmarks && swift build -c release --product apple-signin-peer 2>&1 | grep -E "error|complete" | tail -1 || true)
swift build -c release --product handover --scratch-path .build-release 2>&1 | grep -E "error|complete" | tail -1 || true
handover="$root/.build-release/release/handover"
bench_bin="$root/Benchmarks/.build/release"

echo "== 1. access-token verification vs raw ES256 (one thread, $(( seconds / 2 > 0 ? seconds / 2 : 1 )) s each)"
verify_out=$("$bench_bin/session-bench" "$(( seconds / 2 > 0 ? seconds / 2 : 1 ))")
echo "$verify_out"
raw=$(awk '/^raw_es256_verifications_per_s/ {print $2}' <<<"$verify_out")
full=$(awk '/^access_token_verifications_per_s/ {print $2}' <<<"$verify_out")

echo "== 2. wrk: GET /api/v1/me (signed in) vs GET /healthz"
mkfifo "$work/peer.in"
"$bench_bin/apple-signin-peer" "$work" < "$work/peer.in" > "$work/peer.out" 2>&1 &
pids+=($!)
exec 3>"$work/peer.in"
for _ in $(seq 1 200); do grep -q '^apple ' "$work/peer.out" 2>/dev/null && break; sleep 0.05; done
apple_url=$(awk '/^apple / {print $2}' "$work/peer.out")
[ -n "$apple_url" ] || { echo "apple-signin-peer did not start:"; cat "$work/peer.out"; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
LOG_LEVEL=error "$handover" serve --port "$port" --data-dir "$work/data" --session-ttl 3600 \
  --apple-client-ids com.example.bench --apple-team-id TEAM123456 --apple-key-id KEY1234567 \
  --apple-private-key-file "$work/AuthKey.p8" --apple-base-url "$apple_url" > "$work/server.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do grep -q "Press Ctrl-C" "$work/server.out" 2>/dev/null && break; sleep 0.05; done
grep -q "Press Ctrl-C" "$work/server.out" || { echo "server did not start:"; cat "$work/server.out"; exit 1; }
base="http://127.0.0.1:$port"
echo "$base" >&3
for _ in $(seq 1 200); do grep -q '^token ' "$work/peer.out" 2>/dev/null && break; sleep 0.05; done
token=$(awk '/^token / {print $2}' "$work/peer.out")
status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$base/api/v1/me")
[ "$status" = 200 ] || { echo "sign-in failed (GET /api/v1/me answered $status):"; cat "$work/peer.out"; exit 1; }

rps() { awk '/^Requests\/sec/ {print $2}'; }
run_wrk() { wrk -t2 -c"$connections" -d"${seconds}s" "$@" | tee -a "$work/wrk.log" | rps; }
# Interleave the two routes twice so drift on a shared machine hits both alike.
h1=$(run_wrk "$base/healthz"); m1=$(run_wrk -H "Authorization: Bearer $token" "$base/api/v1/me")
m2=$(run_wrk -H "Authorization: Bearer $token" "$base/api/v1/me"); h2=$(run_wrk "$base/healthz")
non2xx=$(grep -c "Non-2xx" "$work/wrk.log" || true)

python3 - "$raw" "$full" "$h1" "$h2" "$m1" "$m2" "$non2xx" <<'PY'
import sys
raw, full, h1, h2, m1, m2 = map(float, sys.argv[1:7])
non2xx = int(sys.argv[7])
health, me = (h1 + h2) / 2, (m1 + m2) / 2
print()
print("| measurement | value | target |")
print("|---|---|---|")
print(f"| raw ES256 verify (one thread) | {raw:,.0f}/s | |")
print(f"| access-token verification, every check, no cache | {full:,.0f}/s | |")
print(f"| ratio access token / raw verify | {full / raw:.2f} | >= 0.6 |")
print(f"| GET /healthz (wrk, mean of 2 runs) | {health:,.0f} req/s | |")
print(f"| GET /api/v1/me signed in (wrk, mean of 2 runs) | {me:,.0f} req/s | |")
print(f"| ratio /api/v1/me / /healthz | {me / health:.2f} | >= 0.8 |")
if non2xx:
    print(f"WARNING: {non2xx} wrk run(s) saw non-2xx answers")
PY
