#!/usr/bin/env bash
# The directory's first provisioning cycle during a shift change (issue 67): is the storm's
# callback p99 the same while Entra ID provisions 10,000 people?
#
#   scripts/bench-scim-sync.sh                          # 10,000 people; 10,000 phones x 7 apps over 60 s
#   BENCH_USERS=2000 BENCH_DEVICES=1000 scripts/bench-scim-sync.sh
#   HANDOVER_BIN=/path/to/handover scripts/bench-scim-sync.sh     # that binary (no build)
#
# Three runs, each on a fresh `handover serve` (SQLite, a SCIM token): (1) the sync alone
# (scripts/scim/sync.py: a filtered GET and a POST per person, as Entra's first cycle, then 10
# groups filled by PATCH), timed; (2) the storm alone (`handover bench shift-change --server`,
# no check-outs); (3) the storm with the sync started when the storm's window opens. Prints the
# sync's time and the two storms' callback p99, and their ratio. Writes the figures to $BENCH_OUT
# (.ci/artifacts). Loopback only; the generators share the machine's cores with the server.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
users=${BENCH_USERS:-10000}
devices=${BENCH_DEVICES:-10000}
window=${BENCH_WINDOW:-60}
out=${BENCH_OUT:-$root/.ci/artifacts}
mkdir -p "$out"
. scripts/bench/release-binary.sh   # $handover: $HANDOVER_BIN, or a release build
bin=$handover
py=$(command -v python3)
token=$("$py" -c 'import secrets; print(secrets.token_hex(32))')
server_pid=""
work=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true; fi
  server_pid=""
  [ -n "$work" ] && rm -rf "$work"
  work=""
}
trap stop_server EXIT
start_server() {
  work=$(mktemp -d /tmp/handover-scim-bench.XXXXXX)
  port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
  base="http://127.0.0.1:$port"
  HANDOVER_SCIM_TOKEN="$token" HANDOVER_PUBLIC_URL= HANDOVER_DATABASE_URL= "$bin" serve --host 127.0.0.1 --port "$port" \
    --data-dir "$work/data" --public-url "$base" >"$work/serve.out" 2>"$work/serve.err" &
  server_pid=$!
  for _ in $(seq 1 300); do grep -q "^Press Ctrl-C" "$work/serve.out" && break; sleep 0.1; done
  key=$(cat "$work/data/first-admin-key")
}
storm() {  # storm JSON-FILE
  "$bin" bench shift-change --server "$base" --admin-key "$key" --devices "$devices" --apps 7 --window "$window" --no-check-out \
    --dashboards 0 --json "$1"
}
p99() { "$py" -c 'import json,sys; f=json.load(open(sys.argv[1])); print(f["callbacks"]["latency"]["p99"])' "$1"; }

echo "== 1. the sync alone: $users people"
start_server
"$py" scripts/scim/sync.py "$base/scim/v2" "$token" --users "$users" --json "$out/scim-sync-alone.json"
stop_server

echo "== 2. the storm alone: $devices phones x 7 apps over $window s"
start_server
storm "$out/scim-storm-alone.json" | tail -20
stop_server

echo "== 3. the storm with the sync"
start_server
storm "$out/scim-storm-with-sync.json" > "$out/scim-storm-with-sync.txt" 2>&1 &
storm_pid=$!
until grep -q "^Storm:" "$out/scim-storm-with-sync.txt" 2>/dev/null || ! kill -0 "$storm_pid" 2>/dev/null; do sleep 0.2; done
"$py" scripts/scim/sync.py "$base/scim/v2" "$token" --users "$users" --json "$out/scim-sync-during-storm.json" || true
wait "$storm_pid" || true
tail -20 "$out/scim-storm-with-sync.txt"
stop_server

alone=$(p99 "$out/scim-storm-alone.json"); with=$(p99 "$out/scim-storm-with-sync.json")
"$py" - "$out" "$alone" "$with" <<'PY'
import json, sys
out, alone, during = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
sync_alone = json.load(open(f"{out}/scim-sync-alone.json"))
sync_during = json.load(open(f"{out}/scim-sync-during-storm.json"))
print(f"scim-sync: {sync_alone['users']} people alone in {sync_alone['seconds']} s; during the storm in {sync_during['seconds']} s; "
      f"storm callback p99 {alone:.1f} ms alone, {during:.1f} ms with the sync ({during / alone if alone else 0:.2f}x)")
PY
