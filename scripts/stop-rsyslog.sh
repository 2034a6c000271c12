#!/usr/bin/env bash
# Stops an rsyslogd started by scripts/start-rsyslog.sh: scripts/stop-rsyslog.sh DIR
# Waits until it has exited (its port is free again). Keeps DIR: received.log stays readable, and
# start-rsyslog.sh on the same DIR starts again with the same certificates.
set -u
dir=${1:?usage: scripts/stop-rsyslog.sh DIR}
pid=$(cat "$dir/rsyslogd.pid" 2>/dev/null || true)
[ -n "$pid" ] || exit 0
# Only the rsyslogd of this DIR: the pid must still be an rsyslogd reading DIR/rsyslog.conf.
tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "rsyslogd .*$dir/rsyslog.conf" || exit 0
# Running: the process exists and is not a zombie waiting for its parent.
running() { [ -r "/proc/$pid/stat" ] && ! sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | grep -q '^Z'; }
kill -TERM "$pid" 2>/dev/null
for _ in $(seq 1 50); do
  running || exit 0
  sleep 0.1
done
kill -KILL "$pid" 2>/dev/null
rm -f "$dir/rsyslogd.pid"
exit 0
