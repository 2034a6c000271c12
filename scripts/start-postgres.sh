#!/usr/bin/env bash
# Starts a private PostgreSQL cluster on 127.0.0.1 for tests and benchmarks, and prints its URL.
#
#   eval "$(scripts/start-postgres.sh PORT)"   # sets HANDOVER_PG_URL, HANDOVER_PG_DATA; installs postgresql if missing
#   HANDOVER_PG_STATEMENTS=1 scripts/start-postgres.sh PORT   # with pg_stat_statements preloaded
#   scripts/stop-postgres.sh "$HANDOVER_PG_DATA"
#
# The server refuses to run as root, so as root the cluster belongs to the postgres user.
set -euo pipefail
port=${1:-54329}
if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
  echo "installing postgresql with apt-get" >&2
  export DEBIAN_FRONTEND=noninteractive
  if [ "$(id -u)" = 0 ]; then apt-get update -qq >&2 && apt-get install -y -qq postgresql postgresql-client >/dev/null; else sudo apt-get update -qq >&2 && sudo apt-get install -y -qq postgresql postgresql-client >/dev/null; fi
fi
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
pgdata=$(mktemp -d /tmp/handover-pg.XXXXXX)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "$(id -u)" = 0 ]; then chown postgres "$pgdata"; fi
as_pg "$pgbin/initdb" -D "$pgdata" -A trust -U handover >/dev/null
# HANDOVER_PG_STATEMENTS=1 preloads pg_stat_statements, counting BEGIN and COMMIT too (utility
# statements are round trips as well), for `handover bench shift-change --closed-loop` and the cost guard.
statements=
[ "${HANDOVER_PG_STATEMENTS:-0}" = 1 ] && statements="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track_utility=on"
as_pg "$pgbin/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w \
  -o "-p $port -k $pgdata -c listen_addresses=127.0.0.1 -c max_connections=300 $statements" start >/dev/null
echo "export HANDOVER_PG_URL=postgres://handover@127.0.0.1:$port/postgres"
echo "export HANDOVER_PG_DATA=$pgdata"
