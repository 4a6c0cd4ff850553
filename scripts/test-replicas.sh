#!/usr/bin/env bash
# Read replicas for real, without Docker: a private PostgreSQL primary and a hot standby made
# from it with pg_basebackup -R (streaming, hot_standby_feedback = on), from Debian's PostgreSQL
# (installed if missing; run as the user postgres when this is root), a private Redis, and two
# built instances of the service with DATABASE_REPLICA_URLS pointing at the standby. The
# scenario is scripts/test-replicas.mjs: the listed reads go to the replica; read-your-writes
# across the two instances while replay is paused (pg_wal_replay_pause()); the staleness bound;
# the replica stopped under load and Redis stopped: no failed request, reads on the primary.
# Then the whole e2e suite with every app under test reading from the standby
# (test/support/replica.ts): REPLICAS_E2E_TESTS="test/a.e2e-spec.ts …" runs those files only.
# REPLICAS_LONG_LIST_ORDERS=N lists N seeded orders instead of 1 000 000.
# npm run bench:replicas runs scripts/bench-replicas.mjs on the same set-up (REPLICAS_SCENARIO,
# and REPLICAS_PRIMARY_OPTIONS: postgres options of the primary).
# REPLICAS_KEEP=1 keeps the scratch folder (server and instance logs).
# REPLICAS_PORT_BASE=N uses the fixed ports N+1 (primary), N+2 (standby), N+3 (Redis),
# N+10, N+11 (instances), N+12, N+13 (their metrics) instead of free ones.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/harness.sh

harness_start replicas REPLICAS_KEEP
install_missing postgresql redis-server

port() {
  if [ -n "${REPLICAS_PORT_BASE:-}" ]; then
    echo $((REPLICAS_PORT_BASE + $1))
  else
    node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
  fi
}

as_pg=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin postgres
  as_pg=(runuser -u postgres --)
fi

# Writes $work/NAME-ctl: pg_ctl for the cluster in $work/NAME on PORT (as the user postgres), so
# that the scenario can stop and start it.
write_ctl() {
  local name="$1" port="$2" extra="$3"
  local opts="-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work/$name -c max_connections=100 -c fsync=off -c full_page_writes=off $extra"
  cat >"$work/$name-ctl" <<CTL
#!/usr/bin/env bash
exec ${as_pg[*]} "$pg_bin/pg_ctl" -D "$work/$name" -l "$work/$name.log" -o "$opts" "\$@"
CTL
  chmod +x "$work/$name-ctl"
}

primary_port="$(port 1)"
standby_port="$(port 2)"
mkdir -p "$work/primary"
[ "$(id -u)" = 0 ] && chown postgres "$work/primary" && chmod 777 "$work"
"${as_pg[@]}" "$pg_bin/initdb" -D "$work/primary" -U postgres -A trust -E UTF8 --no-instructions >"$work/initdb.log" 2>&1 \
  || { cat "$work/initdb.log" >&2; exit 1; }
# wal_level = replica and max_wal_senders = 10 are PostgreSQL's defaults.
write_ctl primary "$primary_port" "${REPLICAS_PRIMARY_OPTIONS:-}"
"$work/primary-ctl" start -w >/dev/null
echo "-- PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') primary on 127.0.0.1:$primary_port"
"$pg_bin/psql" -h 127.0.0.1 -p "$primary_port" -U postgres -qc "CREATE DATABASE petstore" -c "CREATE DATABASE test" >/dev/null

# -R: standby.signal and primary_conninfo; -X stream: the WAL of the copy comes with it;
# --checkpoint=fast: the copy starts at once, not after a checkpoint spread over minutes.
"${as_pg[@]}" "$pg_bin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U postgres -D "$work/standby" -R -X stream \
  --checkpoint=fast \
  >"$work/basebackup.log" 2>&1 || { cat "$work/basebackup.log" >&2; exit 1; }
write_ctl standby "$standby_port" "-c hot_standby=on -c hot_standby_feedback=on -c max_standby_streaming_delay=-1"
"$work/standby-ctl" start -w >/dev/null
echo "-- hot standby on 127.0.0.1:$standby_port (pg_basebackup -R)"

stop_clusters() {
  "$work/standby-ctl" stop -m immediate -w >/dev/null 2>&1 || true
  "$work/primary-ctl" stop -m immediate -w >/dev/null 2>&1 || true
}
on_cleanup() { stop_clusters; }

snapshot_app "${REPLICAS_DIST:-}"

export REPLICAS_WORK="$work" \
  REPLICAS_PRIMARY_URL="postgres://postgres@127.0.0.1:$primary_port/petstore" \
  REPLICAS_STANDBY_URL="postgres://postgres@127.0.0.1:$standby_port/petstore" \
  REPLICAS_E2E_ADMIN_URL="postgres://postgres@127.0.0.1:$primary_port/test" \
  REPLICAS_STANDBY_CTL="$work/standby-ctl" \
  REPLICAS_REDIS_SERVER="$(command -v redis-server)" \
  REPLICAS_REDIS_PORT="$(port 3)" \
  REPLICAS_PORTS="$(port 10),$(port 11),$(port 12),$(port 13)"
run_scenario "${REPLICAS_SCENARIO:-scripts/test-replicas.mjs}"
