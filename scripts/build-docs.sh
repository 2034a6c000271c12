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
for target in "${targets[@]}"; do
  echo "== docc: $target"
  log=$(mktemp)
  if ! swift package --allow-writing-to-directory .build/docs generate-documentation --target "$target" \
      --warnings-as-errors --output-path ".build/docs/$target.doccarchive" >"$log" 2>&1; then
    grep -E "warning|error" "$log" | grep -v "^\[" | head -40 >&2
    echo "docc: $target has documentation warnings or errors (above)" >&2
    rm -f "$log"
    exit 1
  fi
  rm -f "$log"
done
echo "docc: ${#targets[@]} catalog(s) built without warnings into .build/docs"
