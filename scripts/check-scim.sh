#!/usr/bin/env bash
# Checks /scim/v2 with scim2-tester (RFC 7643/7644 conformance, a maintained tester we did not
# write) against a live `handover serve` on loopback.
#
#   scripts/check-scim.sh                       # SQLite in a temporary data directory
#   CHECK_SCIM_DATABASE_URL=postgres://… scripts/check-scim.sh   # an empty PostgreSQL database
#
# Installs scim2-tester 0.5.2 (and its client's httpx2 engine) when missing; starts the built
# `handover` (HANDOVER_BIN, or .build/debug/handover) with a SCIM token; runs scripts/scim/check.py;
# stops the server. Exits non-zero on any ERROR or CRITICAL result. Prints a line starting "scim:".
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "scim: FAIL: $*" >&2; exit 1; }
py=$(command -v python3) || fail "python3 is needed"
"$py" -c 'import scim2_tester, httpx2' 2>/dev/null \
  || "$py" -m pip install -q --disable-pip-version-check 'scim2-tester==0.5.2' 'scim2-client[httpx2]==0.13.2' 'scim2-models==0.12.3' \
  || fail "pip could not install scim2-tester"
bin=${HANDOVER_BIN:-.build/debug/handover}
[ -x "$bin" ] || fail "no handover binary at $bin (swift build --product handover)"

work=$(mktemp -d /tmp/handover-scim.XXXXXX)
port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
base="http://127.0.0.1:$port"
token=$("$py" -c 'import secrets; print(secrets.token_hex(32))')
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
db_args=()
[ -n "${CHECK_SCIM_DATABASE_URL:-}" ] && db_args=(--database "$CHECK_SCIM_DATABASE_URL")
echo "== handover serve on $base ${CHECK_SCIM_DATABASE_URL:+(PostgreSQL)}"
HANDOVER_SCIM_TOKEN="$token" HANDOVER_PUBLIC_URL= HANDOVER_DATABASE_URL= "$bin" serve --host 127.0.0.1 --port "$port" \
  --data-dir "$work/data" "${db_args[@]}" --public-url "$base" >"$work/serve.out" 2>"$work/serve.err" &
server_pid=$!
for _ in $(seq 1 300); do
  grep -q "^Press Ctrl-C" "$work/serve.out" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.out" "$work/serve.err" >&2; fail "handover serve exited"; }
  sleep 0.1
done
grep -q "^Press Ctrl-C" "$work/serve.out" || fail "handover serve did not start within 30 s"
"$py" scripts/scim/check.py "$base/scim/v2" "$token"
