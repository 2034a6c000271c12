#!/usr/bin/env bash
# Stops a cluster started by scripts/start-postgres.sh: scripts/stop-postgres.sh DATA_DIR
set -u
pgdata=${1:?usage: scripts/stop-postgres.sh DATA_DIR}
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$pgbin/pg_ctl" -D "$pgdata" -m fast stop >/dev/null 2>&1; else "$pgbin/pg_ctl" -D "$pgdata" -m fast stop >/dev/null 2>&1; fi
rm -rf "$pgdata"
