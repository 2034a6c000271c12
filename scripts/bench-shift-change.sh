#!/usr/bin/env bash
# The shift change at hospital scale, with `handover bench shift-change` (see its --help):
#   1. on SQLite, one server;
#   2. on PostgreSQL (a private cluster on loopback, started and stopped here), two servers
#      sharing the database, the phones split between them (BENCH_INSTANCES=1 for one server).
# Each launcher checks its phone out by badge before its run (the bench's loopback badge
# directory is the servers' badge lookup). Each storm prints its figures (check-outs and their
# p50/p99/max, runs, callbacks lost, duplicates, callback p50/p99/max, the recording rate, how
# late deadlines fired, RSS before/peak/after) and writes them to $BENCH_OUT/shift-change-*.json,
# and the dashboard's custody CSV of the day to $BENCH_OUT/custody-*.csv (check it with
# scripts/check-custody-csv.py FILE N).
#
#   scripts/bench-shift-change.sh                    # 10,000 phones x 7 apps over 60 s, 5 % stalls
#   BENCH_DEVICES=300 BENCH_WINDOW=30 scripts/bench-shift-change.sh      # CI's small version
#   BENCH_ONLY=sqlite|postgres scripts/bench-shift-change.sh
#   BENCH_DASHBOARDS=0 scripts/bench-shift-change.sh                     # no live dashboards (50 by default)
#   BENCH_CHECK_OUT=0 scripts/bench-shift-change.sh                      # no check-outs (the baseline)
#   BENCH_CHECK_OUT=window scripts/bench-shift-change.sh                 # each phone checked out right before its run
#   HANDOVER_BIN=/path/to/handover scripts/bench-shift-change.sh        # that binary (no build)
#
# Builds `handover` in release mode into .build-release unless HANDOVER_BIN is given. Exits 1
# when a storm is not clean (a check-out refused or not checked in by its run, a callback lost, a
# run unfinished, a duplicate accepted, a deadline missed, a request unanswered). Loopback only. The load generator runs on the same machine as
# the servers: on 2 cores it takes about a third of the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
devices=${BENCH_DEVICES:-10000}
apps=${BENCH_APPS:-7}
window=${BENCH_WINDOW:-60}
stalls=${BENCH_STALL_RATE:-0.05}
deadline=${BENCH_DEADLINE:-5}
dashboards=${BENCH_DASHBOARDS:-50}
only=${BENCH_ONLY:-all}
check_out=()
[ "${BENCH_CHECK_OUT:-1}" = 0 ] && check_out=(--no-check-out)
[ "${BENCH_CHECK_OUT:-1}" = window ] && check_out=(--check-out-in-window)
out=${BENCH_OUT:-$root/.ci/artifacts}
mkdir -p "$out"
# Only the cluster this script started is stopped (CI exports its own HANDOVER_PG_DATA).
own_pg_data=
cleanup() { [ -n "$own_pg_data" ] && scripts/stop-postgres.sh "$own_pg_data"; true; }
trap cleanup EXIT

. scripts/bench/release-binary.sh   # $handover: $HANDOVER_BIN, or a release build

status=0
storm() {
  local name=$1; shift
  echo "== shift change on $name: $devices phones x $apps apps over $window s, $stalls stalls"
  "$handover" bench shift-change --devices "$devices" --apps "$apps" --window "$window" --stall-rate "$stalls" \
    --deadline "$deadline" --dashboards "$dashboards" --json "$out/shift-change-$name.json" \
    --custody-csv "$out/custody-$name.csv" ${check_out[@]+"${check_out[@]}"} "$@" || status=1
}

if [ "$only" = all ] || [ "$only" = sqlite ]; then
  storm sqlite
fi
if [ "$only" = all ] || [ "$only" = postgres ]; then
  eval "$(scripts/start-postgres.sh "${BENCH_PG_PORT:-54341}")"
  own_pg_data=$HANDOVER_PG_DATA
  storm postgres --database "$HANDOVER_PG_URL" --instances "${BENCH_INSTANCES:-2}"
fi
exit $status
