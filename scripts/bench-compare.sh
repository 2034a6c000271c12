#!/usr/bin/env bash
# Two `handover` builds side by side in one run, as ratios a noisy machine cannot fake:
#   - closed-loop callback recordings/s on SQLite (scripts/bench-server.sh's callbacks part:
#     wrk -t2 -c32, durable recordings), with p99;
#   - the same server's /healthz requests/s right after, and callbacks / healthz;
#   - a shift change (scripts/bench-shift-change.sh, SQLite, BENCH_STORM_DEVICES phones x 7 apps
#     over 60 s, 5 % stalls, 50 dashboards): clean or not, callback p99.
# The builds alternate, REF then NEW, for ROUNDS rounds; the summary gives each round's ratios
# and their medians, so a change that trades the closed-loop rate for the storm (or back)
# shows it.
#
#   scripts/bench-compare.sh REF NEW [ROUNDS] [SECONDS]     # default 3 rounds of 10 s
#   scripts/bench-compare.sh 39f22d9 .build-release/release/handover
#   BENCH_STORM_DEVICES=0 scripts/bench-compare.sh REF NEW  # no storm (default 2000 phones)
#
# REF and NEW are each a binary or a commit. A commit is built in release mode once, in a
# worktree under .build-bench/ (about 10 minutes), and kept there. The pinned reference is
# 39f22d9, the last commit before issue 17 (3,231-3,644 recordings/s when issue 37 was filed).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
usage="usage: scripts/bench-compare.sh REF NEW [ROUNDS] [SECONDS]   (each a binary or a commit)"
ref=${1:?$usage}
new=${2:?$usage}
rounds=${3:-3}
seconds=${4:-10}
storm_devices=${BENCH_STORM_DEVICES:-2000}
work=$(mktemp -d /tmp/handover-compare.XXXXXX)
trap 'rm -rf "$work"' EXIT

# binary_for REF_OR_NEW: prints the binary, building a commit in .build-bench/ first.
binary_for() {
  local what=$1
  if [ -x "$what" ] && [ -f "$what" ]; then echo "$what"; return; fi
  local commit
  commit=$(git rev-parse --short=12 "$what^{commit}" 2>/dev/null) \
    || { echo "bench-compare: '$what' is neither an executable nor a commit" >&2; exit 64; }
  local tree="$root/.build-bench/$commit"
  if [ ! -x "$tree/.build-release/release/handover" ]; then
    echo "== building $commit (release) in .build-bench/$commit" >&2
    [ -d "$tree" ] || git worktree add --detach -f "$tree" "$commit" >/dev/null
    (cd "$tree" && swift build -c release --product handover --scratch-path .build-release 2>&1 | grep -E "error|complete" >&2) || true
  fi
  [ -x "$tree/.build-release/release/handover" ] || { echo "bench-compare: the build of $commit failed" >&2; exit 1; }
  echo "$tree/.build-release/release/handover"
}
ref_bin=$(binary_for "$ref")
new_bin=$(binary_for "$new")

# closed_loop BINARY: prints "rate p99 healthz".
closed_loop() {
  HANDOVER_BIN=$1 BENCH_ONLY=callbacks BENCH_SQLITE_ONLY=1 scripts/bench-server.sh "$seconds" 2>/dev/null > "$work/server.out"
  local rate p99 healthz
  rate=$(awk '/^callbacks on sqlite:/ {print $4}' "$work/server.out")
  p99=$(awk '/^callbacks on sqlite:/ {for (i = 1; i <= NF; i++) if ($i == "p99") print $(i + 1)}' "$work/server.out" | tr -d ,)
  healthz=$(awk '/^healthz on sqlite:/ {print $4}' "$work/server.out")
  echo "${rate:-0} ${p99:-n/a} ${healthz:-0}"
}

# storm BINARY: prints "clean|NOT-clean p99_ms" (or "- -" when BENCH_STORM_DEVICES=0).
storm() {
  [ "$storm_devices" -gt 0 ] || { echo "- -"; return; }
  local out="$work/storm"; rm -rf "$out"
  local verdict=clean
  HANDOVER_BIN=$1 BENCH_ONLY=sqlite BENCH_DEVICES=$storm_devices BENCH_OUT=$out \
    bash scripts/bench-shift-change.sh > "$work/storm.out" 2>&1 || verdict=NOT-clean
  local p99
  p99=$(python3 -c 'import json, sys; print(round(json.load(open(sys.argv[1]))["callbacks"]["latency"]["p99"], 1))' \
    "$out/shift-change-sqlite.json" 2>/dev/null || echo n/a)
  echo "$verdict $p99"
}

ratio() { python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{a / b:.3f}' if b else 'n/a')" "$1" "$2"; }
median() { printf '%s\n' "$@" | grep -v n/a | sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "n/a"; else print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

echo "REF: $ref ($ref_bin)"
echo "NEW: $new ($new_bin)"
echo
echo "| round | build | callbacks/s | p99 | /healthz req/s | callbacks / healthz | storm ($storm_devices phones) | storm p99 ms |"
echo "|---|---|---|---|---|---|---|---|"
new_over_ref=(); ref_share=(); new_share=(); ref_storm=(); new_storm=()
for round in $(seq 1 "$rounds"); do
  for side in REF NEW; do
    if [ "$side" = REF ]; then bin=$ref_bin; else bin=$new_bin; fi
    read -r rate p99 healthz < <(closed_loop "$bin")
    read -r verdict storm_p99 < <(storm "$bin")
    share=$(ratio "$rate" "$healthz")
    echo "| $round | $side | $rate | $p99 | $healthz | $share | $verdict | $storm_p99 |"
    if [ "$side" = REF ]; then ref_rate=$rate; ref_share+=("$share"); ref_storm+=("$storm_p99")
    else new_over_ref+=("$(ratio "$rate" "$ref_rate")"); new_share+=("$share"); new_storm+=("$storm_p99"); fi
  done
done
echo
echo "closed-loop callbacks/s, NEW / REF: median $(median "${new_over_ref[@]}") (rounds: ${new_over_ref[*]})"
echo "callbacks / healthz in the same run: REF median $(median "${ref_share[@]}"), NEW median $(median "${new_share[@]}") (target >= 0.15)"
[ "$storm_devices" -gt 0 ] && echo "storm callback p99 ms: REF median $(median "${ref_storm[@]}") (${ref_storm[*]}), NEW median $(median "${new_storm[@]}") (${new_storm[*]})"
true
