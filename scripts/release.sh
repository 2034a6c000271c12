#!/usr/bin/env bash
# Builds the release archive: `handover` in release mode with the Swift standard library linked
# statically (no Swift toolchain needed where it runs; the system's libcurl4, which Foundation's
# URLSession uses, is the one library it needs beyond libc), its systemd unit, an example
# configuration and the operator's documents, in dist/handover-<version>-linux-<arch>.tar.gz.
#
#   scripts/release.sh            # build, pack, then check the archive (see below)
#   RELEASE_SKIP_BUILD=1 scripts/release.sh   # pack the last build again
#   RELEASE_BUILD_ONLY=1 scripts/release.sh   # build only (CI builds it while other checks run)
#   scripts/release.sh bare-root DIR          # only make the bare Debian root (RELEASE_BARE_ROOT=DIR uses it)
#
# The check unpacks the archive in a temporary folder and asserts: the binary links no Swift
# library dynamically (ldd), prints the version in Sources/HandoverProtocol/HandoverVersion.swift,
# starts with the example configuration on a fresh data directory, creates its database and
# answers /healthz with that version; `systemd-analyze verify` accepts the unit (when
# systemd-analyze is installed); and the same holds in a minimal Debian root made with
# debootstrap, started in a chroot (as root, when debootstrap is installed; RELEASE_CHROOT=0
# skips it). The build takes about 10 minutes on 2 cores the first time
# (its own scratch folder, .build-static).
set -euo pipefail
cd "$(dirname "$0")/.."
# make_bare_root SUITE DIR: a minimal Debian root (minbase, plus libcurl4 as INSTALL.md asks) in
# DIR, its log in DIR.log, from the mirror apt uses here when its sources name one (deb822 or
# one-line form), or debootstrap's own default.
make_bare_root() {
  local mirror
  mirror=$(sed -n 's#^URIs: *\([^ ]*/debian\)/*$#\1#p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
  [ -n "$mirror" ] || mirror=$(sed -n 's#^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*/debian\)/* .*#\2#p' /etc/apt/sources.list 2>/dev/null | head -1)
  debootstrap --variant=minbase --include=libcurl4 "$1" "$2" ${mirror:+"$mirror"} > "$2.log" 2>&1
}
# `scripts/release.sh bare-root DIR`: only make the bare root in DIR (for RELEASE_BARE_ROOT).
if [ "${1:-}" = bare-root ]; then
  suite=bookworm
  if [ -r /etc/os-release ] && grep -q '^ID=debian' /etc/os-release; then suite=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release); fi
  mkdir -p "${2:?usage: scripts/release.sh bare-root DIR}"
  make_bare_root "$suite" "$2"
  exit
fi
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
  # No debug information (-gnone, -g0): the archive's binary is stripped below, so the DWARF a
  # release build makes by default on Linux would only cost its compiles and its link.
  swift build -c release --product handover --scratch-path .build-static --static-swift-stdlib \
    -Xswiftc -gnone -Xcc -g0 -Xlinker -L"$links" 2>&1 | grep -E "error|warning: unre|Compiling handover|complete" || true
  rm -rf "$links"
fi
if [ -n "${RELEASE_BUILD_ONLY:-}" ]; then
  [ -x .build-static/release/handover ] || { echo "release: the build made no binary" >&2; exit 1; }
  exit 0
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
cp docs/operations.md docs/launcher.md docs/custody.md docs/people-and-roles.md docs/mdm.md docs/audit.md docs/shared-signals.md "$stage/$name/docs/"
cat > "$stage/$name/INSTALL.md" <<TEXT
# Installing Handover $version

    useradd --system --home-dir /var/lib/handover --shell /usr/sbin/nologin handover
    install -m 0755 bin/handover /usr/local/bin/handover
    install -d -m 0750 -g handover /etc/handover
    install -m 0640 -g handover handover.yaml /etc/handover/handover.yaml   # uncomment what you set
    handover config check /etc/handover/handover.yaml
    install -m 0644 handover.service /etc/systemd/system/handover.service
    systemctl daemon-reload && systemctl enable --now handover

The first start makes an admin key and writes it to /var/lib/handover/first-admin-key, readable by
the handover user only (the journal never sees it). Read it, keep it somewhere safe (a password
manager), and delete the file:

    cat /var/lib/handover/first-admin-key && rm /var/lib/handover/first-admin-key   # as root

Another key at any time, while the server runs (shown once; --scope admin, operator or viewer;
--expires-in 90d for one that ends):

    sudo -u handover handover admin create-key --scope admin --name "IT on-call" --data-dir /var/lib/handover   # or --database URL for PostgreSQL

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

# The same archive on a bare machine: a minimal Debian root made with debootstrap (minbase, plus
# libcurl4 as INSTALL.md asks; no Swift toolchain), the archive unpacked in /opt, the server
# started there in a chroot; it must answer /healthz (the chroot shares the network) and create
# its database. Needs root and debootstrap (CI installs it); RELEASE_CHROOT=0 skips it. The
# suite is this machine's Debian release (bookworm elsewhere); debootstrap fetches from the
# mirror apt's sources name here, or from its own default.
chrooted=
if [ "${RELEASE_CHROOT:-1}" != 0 ] && command -v debootstrap > /dev/null && [ "$(id -u)" = 0 ]; then
  suite=bookworm
  if [ -r /etc/os-release ] && grep -q '^ID=debian' /etc/os-release; then
    suite=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
  fi
  # RELEASE_BARE_ROOT: a root made earlier by this same run with `scripts/release.sh bare-root DIR`
  # (CI makes it in the background while the suite builds); otherwise it is made now.
  bare=${RELEASE_BARE_ROOT:-$(mktemp -d /tmp/handover-bare.XXXXXX)}
  cleanup_bare() {
    [ -n "${bare_pid:-}" ] && kill "$bare_pid" 2>/dev/null && wait "$bare_pid" 2>/dev/null
    if mountpoint -q "$bare/proc"; then umount "$bare/proc" || { echo "release: $bare/proc is still mounted; not removing $bare" >&2; return; }; fi
    rm -rf "$bare" "$bare.log"
  }
  trap 'rm -rf "$stage"; cleanup_bare' EXIT
  echo "== a bare Debian root ($suite, debootstrap --variant=minbase): no Swift toolchain"
  if [ -n "${RELEASE_BARE_ROOT:-}" ]; then
    [ -x "$bare/bin/sh" ] || { tail -20 "$bare.log" >&2 2>/dev/null; echo "release: RELEASE_BARE_ROOT=$bare holds no Debian root" >&2; exit 1; }
  else
    make_bare_root "$suite" "$bare" || { tail -20 "$bare.log" >&2; echo "release: debootstrap failed" >&2; exit 1; }
  fi
  if [ -n "$(find "$bare" -name 'libswiftCore*' -print -quit)" ] || [ -e "$bare/usr/bin/swift" ]; then
    echo "release: the bare root holds a Swift toolchain" >&2; exit 1
  fi
  tar -C "$bare/opt" -xzf "dist/$name.tar.gz"
  mount -t proc proc "$bare/proc" 2>/dev/null || true
  chroot "$bare" "/opt/$name/bin/handover" serve --config "/opt/$name/handover.yaml" --data-dir /var/lib/handover --port 0 \
    > "$bare.log" 2>&1 &
  bare_pid=$!
  url=
  for _ in $(seq 1 150); do
    url=$(sed -n 's/^Handover is listening on \(http:[^ ]*\).*/\1/p' "$bare.log" | head -1)
    [ -n "$url" ] && break
    sleep 0.2
  done
  [ -n "$url" ] || { cat "$bare.log" >&2; echo "release: the server did not start in the bare root" >&2; exit 1; }
  health=$(curl -fsS "$url/healthz")
  echo "$health" | grep -q "\"version\":\"$version\"" || { echo "release: /healthz in the bare root answered $health" >&2; exit 1; }
  [ -f "$bare/var/lib/handover/handover.sqlite" ] || { echo "release: no database in the bare root" >&2; exit 1; }
  cleanup_bare
  trap 'rm -rf "$stage"' EXIT
  chrooted=", in a bare $suite root too,"
fi
echo "release: dist/$name.tar.gz runs without a Swift toolchain's libraries$chrooted answers /healthz with $version, and its unit verifies"
