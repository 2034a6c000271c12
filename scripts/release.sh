#!/usr/bin/env bash
# Builds the release archive: `handover` in release mode with the Swift standard library linked
# statically (no Swift toolchain needed where it runs; the system's libcurl4, which Foundation's
# URLSession uses, is the one library it needs beyond libc), its systemd unit, an example
# configuration and the operator's documents, in dist/handover-<version>-linux-<arch>.tar.gz.
#
#   scripts/release.sh            # build, pack, then check the archive (see below)
#   RELEASE_SKIP_BUILD=1 scripts/release.sh   # pack the last build again
#
# The check unpacks the archive in a temporary folder and asserts: the binary links no Swift
# library dynamically (ldd), prints the version in Sources/HandoverProtocol/HandoverVersion.swift,
# starts with the example configuration on a fresh data directory, creates its database and
# answers /healthz with that version; and `systemd-analyze verify` accepts the unit (when
# systemd-analyze is installed). The build takes about 10 minutes on 2 cores the first time
# (its own scratch folder, .build-static).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/HandoverProtocol/HandoverVersion.swift)
[ -n "$version" ] || { echo "release: no version in HandoverVersion.swift" >&2; exit 1; }
arch=$(uname -m)
name="handover-$version-linux-$arch"
if [ -z "${RELEASE_SKIP_BUILD:-}" ]; then
  echo "== building handover $version (release, static Swift standard library)"
  # Foundation's URLSession (FoundationNetworking) needs libcurl, linked dynamically: the target
  # needs only the runtime package (Debian: libcurl4). Without its -dev package here, the
  # linker is shown the runtime library under the name it asks for.
  curl=$(ldconfig -p | sed -n 's/.*libcurl\.so\.4 (libc6,x86-64) => \(.*\)/\1/p' | head -1)
  [ -n "$curl" ] || curl=$(ls /usr/lib/*-linux-gnu/libcurl.so.4 2>/dev/null | head -1)
  [ -n "$curl" ] || { echo "release: libcurl.so.4 is not installed (apt-get install libcurl4)" >&2; exit 1; }
  links=$(mktemp -d)
  ln -s "$curl" "$links/libcurl.so"
  swift build -c release --product handover --scratch-path .build-static --static-swift-stdlib \
    -Xlinker -L"$links" 2>&1 | grep -E "error|warning: unre|Compiling handover|complete" || true
  rm -rf "$links"
fi
binary=.build-static/release/handover
[ -x "$binary" ] || { echo "release: no binary at $binary" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/bin" "$stage/$name/docs"
cp "$binary" "$stage/$name/bin/handover"
strip "$stage/$name/bin/handover" 2>/dev/null || true
cp packaging/handover.service "$stage/$name/"
"$binary" config example > "$stage/$name/handover.yaml"
cp README.md CHANGELOG.md "$stage/$name/"
cp docs/operations.md docs/launcher.md docs/custody.md docs/people-and-roles.md docs/mdm.md "$stage/$name/docs/"
cat > "$stage/$name/INSTALL.md" <<TEXT
# Installing Handover $version

    useradd --system --home-dir /var/lib/handover --shell /usr/sbin/nologin handover
    install -m 0755 bin/handover /usr/local/bin/handover
    install -d -m 0750 -g handover /etc/handover
    install -m 0640 -g handover handover.yaml /etc/handover/handover.yaml   # uncomment what you set
    handover config check /etc/handover/handover.yaml
    install -m 0644 handover.service /etc/systemd/system/handover.service
    systemctl daemon-reload && systemctl enable --now handover

It needs no Swift toolchain: the Swift standard library is inside the binary. Beyond libc it
links libcurl4, libstdc++6 and zlib1g (Debian: apt-get install libcurl4). The server keeps its
SQLite database and keys in /var/lib/handover (the unit's only writable path). Upgrading and
rolling back: docs/operations.md. What changed: CHANGELOG.md.
TEXT
mkdir -p dist
tar -C "$stage" -czf "dist/$name.tar.gz" "$name"
echo "== wrote dist/$name.tar.gz ($(du -h "dist/$name.tar.gz" | cut -f1))"

echo "== checking the archive"
check=$(mktemp -d)
tar -C "$check" -xzf "dist/$name.tar.gz"
bin="$check/$name/bin/handover"
if ldd "$bin" | grep -q "libswift"; then echo "release: the binary links Swift libraries dynamically:" >&2; ldd "$bin" >&2; exit 1; fi
[ "$("$bin" --version)" = "$version" ] || { echo "release: --version is not $version" >&2; exit 1; }
data="$check/data"
"$bin" serve --config "$check/$name/handover.yaml" --data-dir "$data" --port 0 > "$check/serve.log" 2>&1 &
pid=$!
url=
for _ in $(seq 1 100); do
  url=$(sed -n 's/^Handover is listening on \(http:[^ ]*\).*/\1/p' "$check/serve.log" | head -1)
  [ -n "$url" ] && break
  sleep 0.2
done
[ -n "$url" ] || { kill $pid; cat "$check/serve.log" >&2; echo "release: the server did not start" >&2; exit 1; }
health=$(curl -fsS "$url/healthz")
kill $pid; wait $pid 2>/dev/null || true
echo "$health" | grep -q "\"version\":\"$version\"" || { echo "release: /healthz answered $health" >&2; exit 1; }
[ -f "$data/handover.sqlite" ] || { echo "release: no database was created" >&2; exit 1; }
if command -v systemd-analyze > /dev/null; then
  unit="$check/handover.service"
  sed "s#/usr/local/bin/handover#$bin#" "$check/$name/handover.service" > "$unit"
  systemd-analyze verify "$unit"
fi
rm -rf "$check"
echo "release: dist/$name.tar.gz runs without a Swift toolchain's libraries, answers /healthz with $version, and its unit verifies"
