#!/usr/bin/env bash
# Checks that /openapi.yaml is a valid OpenAPI document and that a live server never answers
# generated requests with a server error (5xx).
#
#   scripts/check-openapi.sh            # build, start `handover serve` on loopback, check, stop
#
# Steps: pip-installs openapi-spec-validator and schemathesis when missing; builds `handover`;
# starts `handover serve` on a free 127.0.0.1 port with a temporary data directory; reads the
# admin key it prints; validates the served document; seeds an app, a device, a webhook and a
# Shared Signals receiver (a registered client, its client-credentials token, a poll stream); runs
# schemathesis (bounded: SCHEMATHESIS_MAX_EXAMPLES per operation, SCHEMATHESIS_MAX_TIME seconds)
# with the admin key, then on the Shared Signals stream routes with the receiver's token (half the
# time) and on POST /ssf/push with the push Authorization value (a quarter); stops the server. CHECK_OPENAPI_DATABASE_URL=postgres://… (an empty database) serves from
# PostgreSQL instead of SQLite. Exits non-zero on a spec error, a 5xx, or a response the document does not
# describe. Prints one summary line starting with "openapi:".
set -euo pipefail
cd "$(dirname "$0")/.."
max_examples=${SCHEMATHESIS_MAX_EXAMPLES:-30}
max_time=${SCHEMATHESIS_MAX_TIME:-240}
seed=${SCHEMATHESIS_SEED:-}
checks=${SCHEMATHESIS_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance}

fail() { echo "openapi: FAIL: $*" >&2; exit 1; }

# 1. Tools.
py=$(command -v python3 || command -v python) || fail "python3 is needed"
if ! command -v openapi-spec-validator >/dev/null 2>&1 || ! command -v schemathesis >/dev/null 2>&1; then
  echo "== pip install openapi-spec-validator schemathesis"
  "$py" -m pip install --quiet --disable-pip-version-check openapi-spec-validator 'schemathesis>=4,<5' \
    || fail "pip could not install openapi-spec-validator and schemathesis"
  hash -r
fi
command -v schemathesis >/dev/null 2>&1 || fail "schemathesis is not on PATH after pip install"

# 2. Build and start the server on a free loopback port with a fresh data directory.
echo "== swift build --product handover"
swift build --product handover 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\] ' || true
[ "${PIPESTATUS[0]}" = 0 ] || fail "swift build failed"
bin="$(swift build --show-bin-path)/handover"
[ -x "$bin" ] || fail "no handover binary at $bin"

work=$(mktemp -d /tmp/handover-openapi.XXXXXX)
port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
base="http://127.0.0.1:$port"
server_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=""
}
cleanup() { stop_server; rm -rf "$work"; }
trap cleanup EXIT

echo "== handover serve on $base (data in $work/data)"
db_args=()
[ -n "${CHECK_OPENAPI_DATABASE_URL:-}" ] && db_args=(--database "$CHECK_OPENAPI_DATABASE_URL") && echo "== on PostgreSQL (an empty database)"
# Its own origin as the public URL, so OpenID and Shared Signals have an issuer; and an identity
# provider as a Shared Signals transmitter, whose key set is the server's own JWKS (always there:
# a generated SET is refused for what it is, never for keys that could not be read).
HANDOVER_PUBLIC_URL= HANDOVER_DATABASE_URL= "$bin" serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" "${db_args[@]}" \
  --public-url "$base" --ssf-transmitter-issuer https://idp.example.com --ssf-transmitter-jwks-url "$base/oauth/jwks" \
  --ssf-push-authorization "Bearer schemathesis-push-0123456789" \
  >"$work/serve.out" 2>"$work/serve.err" &
server_pid=$!
key=""
for _ in $(seq 1 300); do
  # The first start writes its admin key to the data directory (never to the output, a log).
  grep -q "^Press Ctrl-C" "$work/serve.out" && key=$(cat "$work/data/first-admin-key" 2>/dev/null || true)
  [ -n "$key" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.out" "$work/serve.err" >&2; fail "handover serve exited"; }
  sleep 0.1
done
[ -n "$key" ] || { cat "$work/serve.out" "$work/serve.err" >&2; fail "handover serve wrote no admin key within 30 s"; }
auth="Authorization: Bearer $key"

# 3. Validate the served document.
curl -fsS "$base/openapi.yaml" -o "$work/openapi.yaml" || fail "GET /openapi.yaml failed"
openapi-spec-validator "$work/openapi.yaml" >"$work/validator.log" 2>&1 \
  || { cat "$work/validator.log" >&2; fail "openapi-spec-validator rejected /openapi.yaml"; }
echo "== openapi-spec-validator: $(tail -1 "$work/validator.log")"

# 4. Seed a little data so GETs find something.
post() {
  local code
  code=$(curl -sS -o "$work/seed.json" -w '%{http_code}' -X POST -H "${3:-$auth}" -H 'Content-Type: application/json' \
    --data "$2" "$base$1") || fail "POST $1: no answer"
  [ "$code" = 201 ] || { cat "$work/seed.json" >&2; fail "seeding POST $1 answered $code"; }
}
post /api/v1/apps '{"name":"Notes","appIDs":["ABCDE12345.com.example.notes"],"logoutAction":"https://notes.example.com/logout"}'
post /api/v1/apps '{"name":"Launcher","role":"launcher","appIDs":["ABCDE12345.com.example.launcher"]}'
post /api/v1/devices '{"name":"ward-7-phone-3"}'
post /api/v1/webhooks '{"url":"https://mdm.example.com/hooks/handover","events":["run.completed","run.failed"]}'
# A Shared Signals receiver: a registered client, its client-credentials token, a poll stream.
post /oauth/register '{"client_name":"schemathesis receiver"}'
client=$("$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["client_id"] + ":" + d["client_secret"])' "$work/seed.json")
signals_token=$(curl -fsS -u "$client" -d grant_type=client_credentials "$base/oauth/token" \
  | "$py" -c 'import json,sys; print(json.load(sys.stdin)["access_token"])') || fail "no client-credentials token"
post /ssf/stream '{"delivery":{"method":"urn:ietf:rfc:8936"}}' "Authorization: Bearer $signals_token"

# 5. Schemathesis.
echo "== schemathesis run (checks: $checks; at most $max_examples examples per operation, $max_time s)"
args=(run "$base/openapi.yaml" --url "$base" -H "$auth" --checks "$checks" --max-examples "$max_examples"
      --max-time "$max_time" --request-timeout 10 --workers 2 --phases examples,coverage,fuzzing
      --report har --report-har-path "$work/requests.har" --output-truncate true
      # An operation's event stream stays open until the operation ends (up to 600 s), longer than
      # any request timeout, and schemathesis reuses ids from earlier answers: these two streams are
      # tested by OutOfBandOperationTests instead.
      --exclude-path-regex '\{operationID\}/events$')
[ -n "$seed" ] && args+=(--seed "$seed")
# A serializer for the SETs of POST /ssf/push (application/secevent+jwt).
export SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH="$(pwd)/scripts/openapi${PYTHONPATH:+:$PYTHONPATH}"
set +e
(cd "$work" && schemathesis "${args[@]}" --exclude-path-regex '^/ssf/') 2>&1 | tee "$work/schemathesis.log"   # its .schemathesis cache stays in $work
st_status=${PIPESTATUS[0]}
# The Shared Signals management and poll routes take the receiver's client-credentials token,
# not the admin key: a second run gives them that.
echo "== schemathesis run: the Shared Signals stream and poll routes, with a client-credentials token"
signals_args=(run "$base/openapi.yaml" --url "$base" -H "Authorization: Bearer $signals_token" --checks "$checks"
              --max-examples "$max_examples" --max-time $(( max_time / 2 )) --request-timeout 30 --workers 2 --phases examples,coverage,fuzzing
              --report har --report-har-path "$work/signals.har" --output-truncate true
              --include-path-regex '^/ssf/(stream|status|subjects|verify|poll)')
[ -n "$seed" ] && signals_args+=(--seed "$seed")
(cd "$work" && schemathesis "${signals_args[@]}") 2>&1 | tee "$work/signals.log"
signals_status=${PIPESTATUS[0]}
[ "$st_status" = 0 ] && st_status=$signals_status
# POST /ssf/push takes the Authorization value the server was started with.
echo "== schemathesis run: POST /ssf/push, with the push Authorization value"
push_args=(run "$base/openapi.yaml" --url "$base" -H "Authorization: Bearer schemathesis-push-0123456789" --checks "$checks"
           --max-examples "$max_examples" --max-time $(( max_time / 4 )) --request-timeout 30 --workers 2 --phases examples,coverage,fuzzing
           --report har --report-har-path "$work/push.har" --output-truncate true --include-path-regex '^/ssf/push$')
[ -n "$seed" ] && push_args+=(--seed "$seed")
(cd "$work" && schemathesis "${push_args[@]}") 2>&1 | tee "$work/push.log"
push_status=${PIPESTATUS[0]}
[ "$st_status" = 0 ] && st_status=$push_status
set -e
stop_server

# 6. Summarise from the recorded requests: every request the run made and every 5xx.
read -r requests errors operations < <("$py" - "$work/requests.har" "$work/signals.har" "$work/push.har" <<'PY'
import json, sys, re
entries = []
for path in sys.argv[1:]:
    try:
        entries += json.load(open(path))["log"]["entries"]
    except Exception:
        pass
ops = set()
for e in entries:
    url = re.sub(r"^https?://[^/]+", "", e["request"]["url"]).split("?")[0]
    ops.add(e["request"]["method"] + " " + re.sub(r"/[^/]*[0-9a-fA-F-]{36}[^/]*|(?<=/cb)/.*", "/{id}", url))
print(len(entries), sum(1 for e in entries if e["response"]["status"] >= 500), len(ops))
PY
)
tested=$(cat "$work/schemathesis.log" "$work/signals.log" "$work/push.log" | grep -oE 'Tested: *[0-9]+' | grep -oE '[0-9]+' | awk '{s+=$1} END {print s}' || true)
cases=$(cat "$work/schemathesis.log" "$work/signals.log" "$work/push.log" | grep -oE '[0-9]+ generated' | grep -oE '[0-9]+' | awk '{s+=$1} END {print s}' || true)
if [ "$errors" != 0 ]; then
  grep -h 'internal_error\|error' "$work/serve.err" | tail -20 >&2 || true
fi
summary="operations tested ${tested:-?}, test cases ${cases:-?}, requests $requests, server errors (5xx) $errors, schemathesis exit $st_status"
if [ "$st_status" = 0 ] && [ "$errors" = 0 ] && [ "$requests" != 0 ]; then
  echo "openapi: OK: document valid; $summary"
else
  echo "openapi: FAIL: $summary" >&2
  exit 1
fi
