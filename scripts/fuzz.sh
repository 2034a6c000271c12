#!/usr/bin/env bash
# Runs a libFuzzer target over one of the pure modules.
#
#   scripts/fuzz.sh TARGET [SECONDS]
#
# TARGET is one of:
#   link   LinkCallbacks: every link kind, parsed and judged by the default and a strict policy
#   aasa   UniversalLinks: association-file parser, validator and matcher
#
# The harness in Fuzz/<TARGET>.swift is compiled together with the module's sources by
# `swiftc -sanitize=fuzzer,address`, so a crash, an overflow or a failed invariant stops the run.
# Corpus and crash files go to fuzz-out/<TARGET>/ (ignored by git). Exit code: 0 with no crash.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:-}
seconds=${2:-60}
case "$target" in
  link) module=LinkCallbacks ;;
  aasa) module=UniversalLinks ;;
  *) echo "usage: scripts/fuzz.sh link|aasa [SECONDS]" >&2; exit 2 ;;
esac
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "SECONDS must be a whole number, got '$seconds'" >&2; exit 2; }

out=fuzz-out/$target
mkdir -p "$out/corpus" "$out/crashes"
if [ -d "Fuzz/corpus/$target" ]; then cp -n Fuzz/corpus/"$target"/* "$out/corpus/" 2>/dev/null || true; fi

echo "building fuzz target '$target' ($module) ..."
mapfile -t sources < <(find "Sources/$module" -name '*.swift' | sort)
swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name "$module" \
  "${sources[@]}" "Fuzz/$target.swift" -o "$out/fuzzer" 2>&1 \
  | grep -v '^$' || true
[ -x "$out/fuzzer" ] || { echo "build failed" >&2; exit 1; }

echo "fuzzing '$target' for $seconds s ..."
set +e
"$out/fuzzer" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$out/crashes/" \
  -max_len=8192 "$out/corpus" 2>&1 | tee "$out/log.txt" | grep -E '^(#[0-9]+ +(pulse|DONE)|stat::|==|SUMMARY|Done)' 
status=${PIPESTATUS[0]}
set -e
execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$out/log.txt" | grep -Eo '[0-9]+$' || echo 0)
crashes=$(find "$out/crashes" -type f | wc -l)
echo "fuzz $target: $execs executions in $seconds s, $crashes crashes (exit $status)"
exit "$status"
