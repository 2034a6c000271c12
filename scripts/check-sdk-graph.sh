#!/usr/bin/env bash
# What an iOS app resolves when it adds Handover for the SDK alone.
#
#   scripts/check-sdk-graph.sh            # resolve, list, and build the consumer
#   CHECK_BUILD=0 scripts/check-sdk-graph.sh   # resolve and list only
#
# Makes a throwaway app package (in a temporary folder) that depends on this checkout by path,
# with the `Server` trait off (`traits: []`), and on the `HandoverClient` product only; resolves
# it; prints every package it resolved; fails if any server package is among them; then builds
# the app (a file that imports HandoverClient and uses it), so the SDK is known to compile without
# the server's packages. CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
identity=$(basename "$root" | tr '[:upper:]' '[:lower:]')
work=$(mktemp -d /tmp/handover-sdk-consumer.XXXXXX)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/Sources/ShiftApp"
cat > "$work/Package.swift" <<SWIFT
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "ShiftApp",
    platforms: [.macOS(.v14), .iOS(.v16)],
    dependencies: [
        .package(path: "$root", traits: []),
    ],
    targets: [
        .executableTarget(name: "ShiftApp", dependencies: [.product(name: "HandoverClient", package: "$identity")]),
    ]
)
SWIFT
cat > "$work/Sources/ShiftApp/main.swift" <<'SWIFT'
import HandoverClient

// An app that receives ULC logouts: the receiver compiles and links without any server package.
let receiver = LogoutReceiver.self
print("HandoverClient linked: \(receiver)")
SWIFT

echo "== resolving an app package that depends on HandoverClient only (traits: [])"
(cd "$work" && swift package resolve >/dev/null)
resolved=$(cd "$work" && swift package show-dependencies --format flatlist 2>/dev/null || true)
if [ -z "$resolved" ]; then
  # Older toolchains have no flatlist: read the names from the JSON tree.
  resolved=$(cd "$work" && swift package show-dependencies --format json | python3 -c '
import json, sys
def walk(node, seen):
    for child in node.get("dependencies", []):
        seen.add(child["identity"]); walk(child, seen)
    return seen
print("\n".join(sorted(walk(json.load(sys.stdin), set()))))')
fi
resolved=$(echo "$resolved" | grep -v "^$identity\$" | sort -u)
count=$(echo "$resolved" | grep -c . || true)
echo "resolved $count package(s) besides Handover:"
echo "$resolved" | sed 's/^/  /'

forbidden="vapor fluent fluent-kit fluent-sqlite-driver fluent-postgres-driver sqlite-nio sqlite-kit postgres-nio postgres-kit sql-kit swift-nio swift-nio-ssl swift-nio-http2 swift-nio-extras swift-http-structured-headers async-http-client jwt-kit"
bad=""
for name in $forbidden; do
  if echo "$resolved" | grep -qx "$name"; then bad="$bad $name"; fi
done
if [ -n "$bad" ]; then
  echo "FAIL: the SDK's consumer resolved server packages:$bad" >&2
  exit 1
fi
echo "ok: no server package resolved"

if [ "${CHECK_BUILD:-1}" = 1 ]; then
  echo "== building the app package"
  (cd "$work" && swift build 2>&1 | grep -E "error|warning: |Compiling|Build complete" | grep -v "^\[" | tail -5)
  (cd "$work" && swift run -q ShiftApp)
fi
