#!/usr/bin/env bash
# Past the knee (issue 64): does the shift change level off at the server's capacity, or collapse?
#   1. a closed loop of whole hand-overs (`handover bench shift-change --closed-loop`) measures the
#      capacity on this machine today: hand-overs and callbacks a second (C). The knee is the storm
#      that offers what the loop finished: hand-overs/s x the window, in phones;
#   2. storms of 0.5x, 1x, 2x and 4x the knee over the same window (SQLite, no dashboards, the
#      phones checked out before the window as in the shift change), each its own fresh server.
# Then scripts/bench-overload-summary.py prints, per storm: phones, callbacks offered a second,
# goodput (callbacks recorded a second, first to last) and its ratio to C, 503s and tries again,
# requests unanswered, deadlines fired beyond those the stalls call for, runs failed by a
# time-out, callback p99 and whether the storm was clean; and writes a Mermaid chart for
# docs/operations.md ($BENCH_OUT/overload.md).
#
#   scripts/bench-overload.sh
#   BENCH_MULTIPLIERS="1 2" BENCH_WINDOW=60 scripts/bench-overload.sh
#   BENCH_KNEE=9000 scripts/bench-overload.sh          # skip the closed loop; use this knee
#   HANDOVER_BIN=/path/to/handover scripts/bench-overload.sh
#   BENCH_SERVE_ENV="HANDOVER_QUEUE_TARGET=off" ...    # the same storms without admission control
#
# Builds `handover` in release mode into .build-release unless HANDOVER_BIN is given. Loopback
# only; the load generator shares the machine with the server.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
window=${BENCH_WINDOW:-60}
multipliers=${BENCH_MULTIPLIERS:-0.5 1 2 4}
launchers=${BENCH_LAUNCHERS:-256}
out=${BENCH_OUT:-$root/.ci/artifacts/overload}
mkdir -p "$out"
. scripts/bench/release-binary.sh   # $handover: $HANDOVER_BIN, or a release build
# Settings for the servers the bench starts (they inherit its environment).
for assignment in ${BENCH_SERVE_ENV:-}; do export "${assignment?}"; done

if [ -n "${BENCH_KNEE:-}" ]; then
  knee=$BENCH_KNEE
else
  echo "== closed loop: $launchers launchers, 5 s + 30 s"
  "$handover" bench shift-change --closed-loop "$launchers" --duration 30 --warm-up 5 --window "$window" \
    --stall-rate 0 --failure-rate 0 --json "$out/closed-loop.json"
  knee=$(python3 -c "import json,sys; f=json.load(open(sys.argv[1])); print(round(f['handOversPerSecond']*float(sys.argv[2])))" \
    "$out/closed-loop.json" "$window")
fi
echo "== the knee: $knee phones over $window s"
for m in $multipliers; do
  phones=$(python3 -c "import math,sys; print(max(1, math.ceil(float(sys.argv[1])*int(sys.argv[2]))))" "$m" "$knee")
  echo "== storm at ${m}x the knee: $phones phones x 7 apps over $window s"
  "$handover" bench shift-change --devices "$phones" --window "$window" --stall-rate 0.05 --deadline 5 --dashboards 0 \
    --page-samples 0 --json "$out/storm-$m.json" || true
done
python3 scripts/bench-overload-summary.py "$out" $multipliers
