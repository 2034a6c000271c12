#!/usr/bin/env bash
# Builds the DocC documentation of the SDK and the pure modules, and fails on any warning (a
# broken symbol link, an undocumented topic that does not resolve, a malformed catalog).
#
#   scripts/build-docs.sh                  # every documented target
#   scripts/build-docs.sh HandoverClient   # one target
#
# Output: .build/docs/<Target>.doccarchive (open it in Xcode, or serve it as a static site with
# `swift package --disable-sandbox preview-documentation --target <Target>`).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(HandoverProtocol LinkCallbacks UniversalLinks QRCode OutOfBand TransparencyLog HandoverClient AppleSignIn APNs SessionTokens Mail)
mkdir -p .build/docs
# The targets' archives of an earlier run go first, so that each one checked below is this run's.
for target in "${targets[@]}"; do rm -rf ".build/docs/$target.doccarchive"; done
# One run of the plugin for every target: SwiftPM loads the package and plans the build once, not
# once per target (on 2 cores, eleven runs took 2 min 46 s and one takes about 1 min 15 s).
target_args=()
for target in "${targets[@]}"; do target_args+=(--target "$target"); done
echo "== docc: ${targets[*]}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
output=".build/docs"
# With one target the plugin writes the archive itself at --output-path; with several, each
# archive goes into that folder under its own name.
[ "${#targets[@]}" = 1 ] && output=".build/docs/${targets[0]}.doccarchive"
if ! swift package --allow-writing-to-directory .build/docs generate-documentation "${target_args[@]}" \
    --warnings-as-errors --output-path "$output" >"$log" 2>&1; then
  # DocC's diagnostics with their source excerpts, without the build's progress lines.
  grep -vE '^\[|^(Building|Build of|Extracting|Finished|Generated|Compiling|Write|Linking)' "$log" \
    | grep -vE 'which are unhandled; explicitly declare|CMakeLists\.txt$' | head -60 >&2
  echo "docc: documentation warnings or errors (above), in one of: ${targets[*]}" >&2
  exit 1
fi
for target in "${targets[@]}"; do
  [ -d ".build/docs/$target.doccarchive" ] || { tail -20 "$log" >&2; echo "docc: no archive for $target" >&2; exit 1; }
done
echo "docc: ${#targets[@]} catalog(s) built without warnings into .build/docs"
