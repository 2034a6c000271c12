#!/usr/bin/env bash
# Durable callback recordings per second on SQLite, two `handover` binaries in one run:
# alternates OLD and NEW for ROUNDS rounds (scripts/bench-server.sh's callbacks part each time),
# then prints each round's ratio NEW/OLD and the median. On a shared machine the load moves
# between measurements, so one pair says little; the median of several says what changed.
#
#   scripts/bench-compare.sh OLD_BINARY NEW_BINARY [ROUNDS] [SECONDS]   # default 4 rounds of 10 s
#
# Build OLD from an earlier commit with, for example:
#   git worktree add /tmp/old <commit> && swift build -c release --product handover --package-path /tmp/old
set -euo pipefail
cd "$(dirname "$0")/.."
old=${1:?usage: scripts/bench-compare.sh OLD_BINARY NEW_BINARY [ROUNDS] [SECONDS]}
new=${2:?usage: scripts/bench-compare.sh OLD_BINARY NEW_BINARY [ROUNDS] [SECONDS]}
rounds=${3:-4}
seconds=${4:-10}
for binary in "$old" "$new"; do [ -x "$binary" ] || { echo "bench-compare: $binary is not an executable" >&2; exit 64; }; done
measure() {
  HANDOVER_BIN=$1 BENCH_ONLY=callbacks BENCH_SQLITE_ONLY=1 scripts/bench-server.sh "$seconds" 2>/dev/null \
    | awk '/^callbacks on sqlite:/ {print $4}'
}
ratios=()
for round in $(seq 1 "$rounds"); do
  a=$(measure "$old"); b=$(measure "$new")
  ratio=$(python3 -c "print(f'{$b / $a:.3f}')")
  ratios+=("$ratio")
  echo "round $round/$rounds: old $a/s, new $b/s, ratio $ratio"
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | python3 -c 'import sys; v=[float(x) for x in sys.stdin]; n=len(v); print(f"{(v[n//2] if n%2 else (v[n//2-1]+v[n//2])/2):.3f}")')
echo "callbacks/s on SQLite, new/old: median ratio $median over $rounds rounds (target >= 0.9)"
