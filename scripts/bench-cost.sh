#!/usr/bin/env bash
# The cost of a whole hand-over (issue 64), SQLite beside PostgreSQL in one sitting: closed loops
# of `handover bench shift-change --closed-loop` (check-out, run start, 7 apps answering at once),
# alternating the databases for ROUNDS rounds, each on a fresh database. Each prints and writes
# ($BENCH_OUT/cost-<database>-<round>.json):
#   - hand-overs and callbacks a second;
#   - the CPU the measured span took: the Handover servers', PostgreSQL's (the postmaster and every
#     process it started, those that exited included), the generator's apart; per 1,000 hand-overs;
#   - PostgreSQL's statements (pg_stat_statements, BEGIN and COMMIT included) per hand-over and per
#     callback.
# Then a summary with the medians and PostgreSQL's ratios to SQLite.
#
#   scripts/bench-cost.sh [ROUNDS]                  # 3 rounds, 256 launchers, 5 s + 30 s each
#   BENCH_INSTANCES=2 scripts/bench-cost.sh         # PostgreSQL with two servers
#   HANDOVER_BIN=/path/to/handover scripts/bench-cost.sh
#
# Starts its own PostgreSQL cluster with pg_stat_statements preloaded (scripts/start-postgres.sh,
# port $BENCH_PG_PORT, 54360 by default) and stops it at the end. Release build in .build-release
# unless HANDOVER_BIN is given. Loopback only; the generator shares the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
rounds=${1:-3}
launchers=${BENCH_LAUNCHERS:-256}
instances=${BENCH_INSTANCES:-1}
out=${BENCH_OUT:-$root/.ci/artifacts/cost}
mkdir -p "$out"
. scripts/bench/release-binary.sh   # $handover: $HANDOVER_BIN, or a release build
eval "$(HANDOVER_PG_STATEMENTS=1 scripts/start-postgres.sh "${BENCH_PG_PORT:-54360}")"
trap 'scripts/stop-postgres.sh "$HANDOVER_PG_DATA"' EXIT
postmaster=$(head -1 "$HANDOVER_PG_DATA/postmaster.pid")
loop() {
  "$handover" bench shift-change --closed-loop "$launchers" --duration 30 --warm-up 5 --stall-rate 0 --failure-rate 0 "$@"
}
for round in $(seq 1 "$rounds"); do
  echo "== round $round: SQLite"
  loop --json "$out/cost-sqlite-$round.json" | sed -n '/^Closed loop:/,$p'
  database="handover_cost_$round"
  psql "$HANDOVER_PG_URL" -qc "CREATE DATABASE $database"
  echo "== round $round: PostgreSQL, $instances instance(s)"
  loop --database "${HANDOVER_PG_URL%/*}/$database" --instances "$instances" --postgres-pid "$postmaster" \
    --json "$out/cost-postgres-$round.json" | sed -n '/^Closed loop:/,$p'
done
python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
folder, rounds = sys.argv[1], int(sys.argv[2])
def load(name):
    return [json.load(open(f"{folder}/cost-{name}-{r}.json")) for r in range(1, rounds + 1)]
rows = {name: load(name) for name in ("sqlite", "postgres")}
def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None
print("\n| database | hand-overs/s | callbacks/s | CPU s per 1,000 hand-overs (Handover + PostgreSQL) | statements per callback | 503s in each round |")
print("|---|---|---|---|---|---|")
summary = {}
for name, figures in rows.items():
    handovers = med([f["handOversPerSecond"] for f in figures])
    callbacks = med([f["callbacksPerSecond"] for f in figures])
    cpu = med([(f.get("cost") or {}).get("cpuSecondsPer1000HandOvers") for f in figures])
    statements = med([(f.get("cost") or {}).get("statementsPerCallback") for f in figures])
    summary[name] = (callbacks, cpu)
    each = ", ".join(f"{(f.get('cost') or {}).get('cpuSecondsPer1000HandOvers', 0):.1f}" for f in figures)
    busy = [f.get("busyAnswers", 0) for f in figures]
    print(f"| {name} | {handovers:.1f} | {callbacks:.0f} | {cpu:.1f} ({each}) | {statements if statements is None else f'{statements:.2f}'} | {', '.join(map(str, busy))} |")
(sc, scpu), (pc, pcpu) = summary["sqlite"], summary["postgres"]
print(f"\nPostgreSQL / SQLite: callbacks/s {pc / sc:.2f}x (at least 0.9 wanted), CPU per hand-over {pcpu / scpu:.2f}x (at most 1.5 wanted)")
if any(f.get("busyAnswers", 0) for figures in rows.values() for f in figures):
    print("A round with 503s measured a server whose admission control cut its window: its launchers waited out Retry-After,\n"
          "the group commits' batches shrank, and statements and CPU per hand-over rose with them (docs/operations.md).")
PY
