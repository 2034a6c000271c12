#!/usr/bin/env bash
# Server benchmarks with wrk on loopback, all in one run:
#   1. AASA requests/s, as a ratio to nginx serving the same bytes (target >= 0.5);
#   2. durable callback recordings/s with p99 latency on SQLite (target >= 2,000/s, p99 < 50 ms)
#      and on PostgreSQL (a private cluster on loopback, started and stopped here).
#
#   scripts/bench-server.sh [SECONDS]        # default 10 s per measurement
#   HANDOVER_BIN=/path/to/handover scripts/bench-server.sh   # measure that binary (no build)
#   BENCH_ONLY=aasa|callbacks scripts/bench-server.sh        # one part only
#   BENCH_ROUNDS=5 scripts/bench-server.sh                   # AASA rounds (default 3)
#   BENCH_SQLITE_ONLY=1 BENCH_ONLY=callbacks scripts/bench-server.sh   # callbacks on SQLite only
#   BENCH_CALLBACKS_PER_SECOND=20000 scripts/bench-server.sh # callback URLs prepared per second of the run (default 12000)
#
# The AASA rounds also measure a bare SwiftNIO server answering the same bytes
# (Benchmarks/Sources/nio-file-server, built here in release mode): not a target, a reading. What
# separates it from nginx is NIO's cost; what separates it from handover is handover's own.
#
# Needs wrk and nginx (installed with apt-get when missing). Builds `handover` in release mode
# into .build-release. Talks only to 127.0.0.1. Prints a summary table at the end.
#
# Fairness: wrk uses the same threads and connections against both servers; nginx runs one
# worker per core (as handover runs one event loop per core) and keeps connections open as
# handover does (keepalive_requests); each server is measured alone (the other one idle), after a
# 2 s warm-up. On a machine shared with other work the load moves between measurements, so the
# AASA part alternates handover and nginx for several rounds and reports the median of the
# rounds' ratios (each ratio from two measurements taken one after the other).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-10}
threads=${BENCH_THREADS:-2}
connections=${BENCH_CONNECTIONS:-32}
only=${BENCH_ONLY:-all}
rounds=${BENCH_ROUNDS:-3}
cores=$(nproc)
work=$(mktemp -d /tmp/handover-bench.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  [ -n "${HANDOVER_PG_DATA:-}" ] && scripts/stop-postgres.sh "$HANDOVER_PG_DATA"
  rm -rf "$work"
}
trap cleanup EXIT

for tool in wrk nginx; do
  if ! command -v "$tool" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$tool" ]; then
    echo "installing $tool" >&2
    # A fresh machine has no package index yet: read it first.
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$tool" >/dev/null
  fi
done
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

. scripts/bench/release-binary.sh   # $handover: $HANDOVER_BIN, or a release build

nio_server=
if [ "$only" = all ] || [ "$only" = aasa ]; then
  echo "== building nio-file-server (release), the bare SwiftNIO reading"
  (cd Benchmarks && swift build -c release --product nio-file-server 2>&1 | grep -E "error|complete" | tail -1) || true
  [ -x Benchmarks/.build/release/nio-file-server ] && nio_server="$root/Benchmarks/.build/release/nio-file-server"
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# start_server NAME [--database URL]: starts handover serve, sets PORT and KEY.
start_server() {
  local name=$1; shift
  PORT=$(free_port)
  LOG_LEVEL=error "$handover" serve --port "$PORT" --data-dir "$work/$name" "$@" > "$work/$name.out" 2>&1 &
  SERVER_PID=$!
  pids+=($SERVER_PID)
  for _ in $(seq 1 200); do grep -q "Press Ctrl-C" "$work/$name.out" 2>/dev/null && break; sleep 0.05; done
  # The first start writes its admin key to the data directory, not to the output.
  KEY=$(cat "$work/$name/first-admin-key" 2>/dev/null)
  [ -n "$KEY" ] || { echo "server $name did not start:"; cat "$work/$name.out"; exit 1; }
}

api() { curl -sf -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' "$@"; }

# prepare_callbacks COUNT: registers apps and a device, creates runs, writes the callback URLs.
prepare_callbacks() {
  local want=$1 apps=100
  for i in $(seq 1 $apps); do
    api -X POST "http://127.0.0.1:$PORT/api/v1/apps" \
      -d "{\"name\":\"bench$i\",\"appIDs\":[\"ABCDE12345.com.example.bench$i\"],\"logoutAction\":\"https://bench$i.example.com/logout\",\"deadlineSeconds\":300}" >/dev/null
  done
  local device; device=$(api -X POST "http://127.0.0.1:$PORT/api/v1/devices" -d '{"name":"bench-phone"}')
  local id; id=$(echo "$device" | python3 -c 'import json,sys; print(json.load(sys.stdin)["device"]["id"])')
  local devkey; devkey=$(echo "$device" | python3 -c 'import json,sys; print(json.load(sys.stdin)["key"])')
  : > "$work/urls.txt"
  local runs=$(( (want + apps - 1) / apps ))
  for _ in $(seq 1 $runs); do
    curl -sf -X POST -H "Authorization: Bearer $devkey" "http://127.0.0.1:$PORT/api/v1/devices/$id/logout-runs" \
      | python3 -c '
import json, sys, urllib.parse
for item in json.load(sys.stdin)["items"]:
    q = urllib.parse.urlsplit(item["link"]).query
    callback = urllib.parse.urlsplit(urllib.parse.parse_qs(q)["ulc-success"][0])
    print(callback.path + "?" + callback.query)' >> "$work/urls.txt"
  done
}

# measure LABEL URL [wrk args]: prints requests/s, p99 ms, non-2xx count.
measure() {
  local label=$1 url=$2; shift 2
  wrk -t"$threads" -c"$connections" -d"${seconds}s" --latency "$@" "$url" > "$work/$label.wrk" 2>&1
  local rps p99 non2xx total
  rps=$(awk '/Requests\/sec/ {print $2}' "$work/$label.wrk")
  p99=$(awk '$1=="99%" {print $2}' "$work/$label.wrk")
  non2xx=$(awk '/Non-2xx/ {print $5}' "$work/$label.wrk"); non2xx=${non2xx:-0}
  total=$(awk '/requests in/ {print $1}' "$work/$label.wrk")
  echo "$label $rps $p99 $non2xx $total"
}

stop_server() { kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; }

# warm_up URL: 2 s of the same load, not recorded.
warm_up() { wrk -t"$threads" -c"$connections" -d2s "$1" >/dev/null 2>&1 || true; }

aasa() {
  echo "== AASA: handover vs nginx, same bytes"
  start_server aasa
  api -X POST "http://127.0.0.1:$PORT/api/v1/apps" -d '{"name":"launcher","role":"launcher","appIDs":["ABCDE12345.com.example.launcher"]}' >/dev/null
  for i in 1 2 3; do
    api -X POST "http://127.0.0.1:$PORT/api/v1/apps" -d "{\"name\":\"app$i\",\"appIDs\":[\"ABCDE12345.com.example.app$i\"],\"logoutAction\":\"https://app$i.example.com/logout\",\"paths\":[\"/app$i/*\"]}" >/dev/null
  done
  mkdir -p "$work/www/.well-known"
  local url="http://127.0.0.1:$PORT/.well-known/apple-app-site-association"
  curl -sf "$url" > "$work/www/.well-known/apple-app-site-association"
  # nginx's workers run as an unprivileged user: let them read the file (mktemp -d is 0700), or
  # nginx answers 403 and the comparison is with an error page.
  chmod a+rx "$work" "$work/www" "$work/www/.well-known"
  chmod a+r "$work/www/.well-known/apple-app-site-association"
  local ours_url=$url

  NGINX_PORT=$(free_port)
  cat > "$work/nginx.conf" <<CONF
worker_processes $cores;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  default_type application/json;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $work/www;
    location = /.well-known/apple-app-site-association { default_type application/json; add_header Cache-Control "public, max-age=300"; etag on; }
  }
}
CONF
  "$nginx_bin" -c "$work/nginx.conf" -p "$work"
  sleep 0.3
  local nginx_url="http://127.0.0.1:$NGINX_PORT/.well-known/apple-app-site-association"
  curl -sf "$nginx_url" | cmp -s - "$work/www/.well-known/apple-app-site-association" \
    || { echo "nginx does not serve the same bytes with 200:"; curl -si "$nginx_url" | head -5; exit 1; }
  local nio_url= nio_pid=
  if [ -n "$nio_server" ]; then
    local nio_port; nio_port=$(free_port)
    "$nio_server" "$nio_port" /.well-known/apple-app-site-association "$work/www/.well-known/apple-app-site-association" > "$work/nio.out" 2>&1 &
    nio_pid=$!; pids+=($nio_pid)
    nio_url="http://127.0.0.1:$nio_port/.well-known/apple-app-site-association"
    for _ in $(seq 1 100); do curl -sf -o /dev/null "$nio_url" && break; sleep 0.05; done
    curl -sf "$nio_url" | cmp -s - "$work/www/.well-known/apple-app-site-association" \
      || { echo "nio-file-server does not serve the same bytes:"; cat "$work/nio.out"; exit 1; }
  fi

  local ours=() theirs=() ratios=() nio_ratios=() bad=0 r o_rps o_p99 o_bad n_rps n_p99 n_bad b_rps b_p99 b_bad nio_text
  for r in $(seq 1 "$rounds"); do
    warm_up "$ours_url"
    read -r _ o_rps o_p99 o_bad _ < <(measure "aasa-handover-$r" "$ours_url")
    warm_up "$nginx_url"
    read -r _ n_rps n_p99 n_bad _ < <(measure "aasa-nginx-$r" "$nginx_url")
    bad=$((bad + o_bad + n_bad))
    ours+=("$o_rps"); theirs+=("$n_rps"); ratios+=("$(python3 -c "print(round($o_rps / $n_rps, 3))")")
    nio_text=
    if [ -n "$nio_url" ]; then
      warm_up "$nio_url"
      read -r _ b_rps b_p99 b_bad _ < <(measure "aasa-nio-$r" "$nio_url")
      bad=$((bad + b_bad))
      nio_ratios+=("$(python3 -c "print(round($b_rps / $n_rps, 3))")")
      nio_text="; bare SwiftNIO $b_rps req/s (p99 $b_p99), ratio ${nio_ratios[-1]}"
    fi
    echo "AASA round $r: handover $o_rps req/s (p99 $o_p99), nginx $n_rps req/s (p99 $n_p99), ratio ${ratios[-1]}$nio_text"
  done
  [ -n "$nio_pid" ] && kill "$nio_pid" 2>/dev/null || true
  kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  rm -f "$work/nginx.pid"
  stop_server
  median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
  ours_rps=$(median "${ours[@]}"); nginx_rps=$(median "${theirs[@]}"); aasa_ratio=$(median "${ratios[@]}")
  aasa_rounds="${ratios[*]}"
  [ ${#nio_ratios[@]} -gt 0 ] && nio_ratio="$(median "${nio_ratios[@]}") (rounds: ${nio_ratios[*]})"
  if [ "$bad" != 0 ]; then aasa_ratio="$aasa_ratio (INVALID: $bad non-2xx answers)"; fi
  local bytes; bytes=$(wc -c < "$work/www/.well-known/apple-app-site-association")
  echo "AASA ($bytes bytes, median of $rounds rounds): handover $ours_rps req/s, nginx $nginx_rps req/s, ratio $aasa_ratio (rounds: $aasa_rounds)"
}

ours_rps=n/a; nginx_rps=n/a; aasa_ratio=n/a; aasa_rounds=; nio_ratio=n/a
sqlite_rps=n/a; sqlite_p99=n/a; postgres_rps=n/a; postgres_p99=n/a
if [ "$only" = all ] || [ "$only" = aasa ]; then aasa; fi

callbacks() {
  local name=$1; shift
  start_server "$name" "$@"
  # Enough URLs for the run: past them, wrk sends each again, and a nonce's second use is a 409
  # that caps the rate at URLs / seconds and puts the duplicates' answers into the p99 (6,000/s
  # was that cap until a build reached it).
  local want; want=$(python3 -c "print(int($seconds * ${BENCH_CALLBACKS_PER_SECOND:-12000}))")
  prepare_callbacks "$want"
  # A fleet's callbacks come from many devices at once, each run one app at a time: shuffle, so
  # that consecutive requests belong to different runs rather than queueing on one run's lock.
  shuf "$work/urls.txt" -o "$work/urls.txt"
  local count; count=$(wc -l < "$work/urls.txt")
  read -r _ rps p99 bad total < <(URLS_FILE="$work/urls.txt" WRK_THREADS=$threads measure "callbacks-$name" "http://127.0.0.1:$PORT/" -s scripts/bench/callbacks.lua)
  local durable; durable=$(python3 -c "print(round(($total - $bad) / $seconds, 1))")
  echo "callbacks on $name: $durable durable recordings/s (2xx), p99 $p99, $bad non-2xx of $total ($count URLs prepared)"
  [ "$total" -lt "$count" ] || echo "WARNING: every prepared URL was used: the rate is a lower bound and the p99 holds 409s; raise BENCH_CALLBACKS_PER_SECOND" >&2
  # The same server's bare request rate, right after: the reference the callback rate is read
  # against (a ratio holds on a machine whose speed moves from one run to the next).
  local healthz
  read -r _ healthz _ _ _ < <(measure "healthz-$name" "http://127.0.0.1:$PORT/healthz")
  echo "healthz on $name: $healthz requests/s; callbacks / healthz $(python3 -c "print(round($durable / $healthz, 3))")"
  eval "${name}_rps=$durable; ${name}_p99=$p99; ${name}_bad=$bad"
  stop_server
}

if [ "$only" = all ] || [ "$only" = callbacks ]; then
  echo "== durable callback recordings: SQLite"
  callbacks sqlite
  if [ "${BENCH_SQLITE_ONLY:-0}" != 1 ]; then
    echo "== durable callback recordings: PostgreSQL"
    if eval "$(scripts/start-postgres.sh "$(free_port)")"; then
      callbacks postgres --database "$HANDOVER_PG_URL"
    fi
  fi
fi

echo
echo "| measurement | result | target |"
echo "|---|---|---|"
echo "| AASA req/s, handover / nginx (median of $rounds rounds) | $ours_rps / $nginx_rps; ratio $aasa_ratio (rounds: $aasa_rounds) | >= 0.5 |"
echo "| AASA req/s, bare SwiftNIO / nginx (reading, not handover) | ratio $nio_ratio | |"
echo "| callback recordings/s, SQLite | $sqlite_rps, p99 $sqlite_p99 | >= 2000/s, p99 < 50 ms |"
echo "| callback recordings/s, PostgreSQL | $postgres_rps, p99 $postgres_p99 | (reported) |"
echo "(wrk -t$threads -c$connections -d${seconds}s on 127.0.0.1 after a 2 s warm-up for AASA; nginx: $cores workers; $cores cores shared by wrk, the server and the database)"
