#!/usr/bin/env bash
# Generates the API code from Sources/HandoverServer/openapi.yaml, the one description of the
# HTTP API, with Apple's swift-openapi-generator:
#
#   Sources/HandoverServer/API/Generated/   types and the handler protocol (Tools/OpenAPIGenerator/server.yaml)
#   Sources/HandoverClient/Fleet/Generated/ types and the client FleetServer uses (Tools/OpenAPIGenerator/client.yaml)
#   Sources/DeviceSimulator/Generated/      the simulator's and load generator's set-up bodies (Tools/OpenAPIGenerator/simulator.yaml)
#
# and then embeds the YAML itself (scripts/embed-openapi.sh), which the server serves.
#
#   scripts/generate-openapi.sh           # rewrite the generated files
#   scripts/generate-openapi.sh --check   # exit 1 when a generated file is not the YAML's (CI)
#
# The generator lives in its own package (Tools/OpenAPIGenerator), so neither the server's nor an
# app's package graph resolves it; its first build takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
yaml=Sources/HandoverServer/openapi.yaml
tool=Tools/OpenAPIGenerator
echo "generate-openapi: building swift-openapi-generator ($tool)" >&2
swift build --package-path "$tool" --product swift-openapi-generator -q >&2
generator="$(swift build --package-path "$tool" --show-bin-path)/swift-openapi-generator"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
stale=0
for pair in server:Sources/HandoverServer/API/Generated client:Sources/HandoverClient/Fleet/Generated simulator:Sources/DeviceSimulator/Generated; do
  name=${pair%%:*}
  folder=${pair#*:}
  "$generator" generate --config "$tool/$name.yaml" --output-directory "$scratch/$name" "$yaml" > "$scratch/$name.log" 2>&1 \
    || { cat "$scratch/$name.log" >&2; exit 1; }
  # The server's operations as values, served by a handler made for each request (APIRoutes).
  if [ "$name" = server ]; then python3 scripts/openapi/server-operations.py "$scratch/$name/Server.swift"; fi
  if [ "${1:-}" = --check ]; then
    if ! diff -r -q "$scratch/$name" "$folder" > /dev/null 2>&1; then
      echo "generate-openapi: $folder is not what $yaml generates; run scripts/generate-openapi.sh" >&2
      diff -r "$scratch/$name" "$folder" | head -20 >&2 || true
      stale=1
    fi
  else
    rm -rf "$folder"
    mkdir -p "$folder"
    cp "$scratch/$name"/*.swift "$folder/"
    echo "generate-openapi: wrote $folder ($(cat "$folder"/*.swift | wc -l) lines)" >&2
  fi
done
bash scripts/embed-openapi.sh ${1:+"$1"}
exit $stale
