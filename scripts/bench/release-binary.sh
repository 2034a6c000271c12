# Sourced by the bench scripts (from the repository's root, with $root set): sets $handover to
# $HANDOVER_BIN, or builds `handover` in release mode into .build-release and uses that.
if [ -n "${HANDOVER_BIN:-}" ]; then
  handover=$HANDOVER_BIN
else
  echo "== building handover (release)"
  swift build -c release --product handover --scratch-path .build-release 2>&1 | grep -E "error|complete" || true
  handover="$root/.build-release/release/handover"
fi
[ -x "$handover" ] || { echo "no handover binary at $handover" >&2; exit 1; }
