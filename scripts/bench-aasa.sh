#!/usr/bin/env bash
# Benchmarks AASA matching: the compiled UniversalLinks matcher against an NSRegularExpression
# baseline, on the same 50-component file and URL mix, in one release-built run on one thread.
#
#   scripts/bench-aasa.sh          decisions/s for both, and the ratio
#   scripts/bench-aasa.sh --ordo   also run the ordo-one/benchmark suite (slower to build)
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
swift build -c release --product aasa-bench 2>&1 | grep -E 'error|warning: unre' || true
.build/release/aasa-bench
if [ "${1:-}" = "--ordo" ]; then
  # One iteration decides the 16-URL mix: multiply its throughput by 16 for decisions/s.
  swift package --allow-writing-to-package-directory benchmark --target AASAMatching
fi
