#!/usr/bin/env bash
# The README's "Scaling out" advice followed for real: PgBouncer (Debian's package, installed if
# missing) in pool_mode = transaction with its default settings except default_pool_size, which
# is below DB_POOL_SIZE, and server_login_retry, 1 s as docs/operating.md advises, on a private
# port in front of the machine's PostgreSQL. Through it:
#   1. the e2e suite (the app's requests go through PgBouncer; migrations, their lock and the
#      role's timeouts over DATABASE_DIRECT_URL; test set-up stays direct), which includes the
#      statement-timeout check (test/database-timeouts.e2e-spec.ts) and the stream tests. The
#      outage test (test/process/database-outage.e2e-spec.ts) stops a PostgreSQL of its own, so
#      it starts a second PgBouncer with this pgbouncer.ini (PETSTORE_TEST_PGBOUNCER_BIN and
#      _INI) in front of it, and stops that PostgreSQL while its PgBouncer stays up;
#   2. five instances cold-started at once on an empty database with SEED_DEMO=true: every
#      migration applied exactly once, the demo data loaded once, all five ready.
# PGB_KEEP=1 keeps the scratch folder (PgBouncer's config and log, instance logs).
set -euo pipefail
cd "$(dirname "$0")/.."

ADMIN_URL="${CI_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
PG_HOST="$(node -e 'const u=new URL(process.argv[1]);process.stdout.write(u.hostname)' "$ADMIN_URL")"
PG_PORT="$(node -e 'const u=new URL(process.argv[1]);process.stdout.write(u.port||"5432")' "$ADMIN_URL")"
PG_USER="$(node -e 'const u=new URL(process.argv[1]);process.stdout.write(decodeURIComponent(u.username)||"postgres")' "$ADMIN_URL")"
POOL_SIZE=10
PGB_POOL_SIZE=4
work="$(mktemp -d /tmp/petstore-pgbouncer.XXXXXX)"
chmod 755 "$work"
DB="petstore_pgb_$(od -An -N4 -tx4 /dev/urandom | tr -d ' \n')"
db_created=""
pgb_pid=""
instance_pids=()

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  local pid
  for pid in "${instance_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${instance_pids[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [ -n "$pgb_pid" ]; then kill -TERM "$pgb_pid" 2>/dev/null || true; fi
  if [ -n "$db_created" ]; then
    psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  fi
  if [ -n "${PGB_KEEP:-}" ]; then echo "-- kept $work (PGB_KEEP)"; else rm -rf "$work"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

pgb_bin="$(command -v pgbouncer || true)"
[ -z "$pgb_bin" ] && [ -x /usr/sbin/pgbouncer ] && pgb_bin=/usr/sbin/pgbouncer
if [ -z "$pgb_bin" ]; then
  echo "-- installing pgbouncer (Debian package)"
  if [ "$(id -u)" != 0 ]; then echo "FAIL: pgbouncer is not installed and this is not root" >&2; exit 1; fi
  # Install only: the package must not start the system PgBouncer (policy-rc.d 101 = "do not").
  policy_rc_created=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    policy_rc_created=1
  fi
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null
  [ -n "$policy_rc_created" ] && rm -f /usr/sbin/policy-rc.d
  pgb_bin=/usr/sbin/pgbouncer
fi
echo "-- $("$pgb_bin" --version | head -1)"

PGB_PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close()})')"
# Defaults everywhere except: where to listen, trust auth for the local test role, transaction
# pooling, a server pool per database/user smaller than the service's pool, and a retry after a
# failed server login within a second instead of 15 (docs/operating.md: a PostgreSQL that comes
# back is used at once). Every e2e file has a database of its own, kept until the run ends: idle
# server connections are closed after 5 s instead of 10 minutes, or the pools of finished files
# add up past the server's max_connections (100 here) once the suite has enough files.
cat >"$work/pgbouncer.ini" <<INI
[databases]
* = host=$PG_HOST port=$PG_PORT

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGB_PORT
unix_socket_dir = $work
auth_type = trust
auth_file = $work/userlist.txt
pool_mode = transaction
default_pool_size = $PGB_POOL_SIZE
server_idle_timeout = 5
server_login_retry = 1
logfile = $work/pgbouncer.log
pidfile = $work/pgbouncer.pid
INI
printf '"%s" ""\n' "$PG_USER" >"$work/userlist.txt"
run_as=()
# PgBouncer refuses to run as root: as root, it drops to the postgres user.
[ "$(id -u)" = 0 ] && run_as=(-u postgres)
chown -R "$( [ "$(id -u)" = 0 ] && echo postgres || id -un )" "$work"
"$pgb_bin" -q "${run_as[@]}" "$work/pgbouncer.ini" &
pgb_pid=$!
PGB_URL="postgres://$PG_USER@127.0.0.1:$PGB_PORT"
for _ in $(seq 1 50); do
  psql "$PGB_URL/${ADMIN_URL##*/}" -Atqc 'SELECT 1' >/dev/null 2>&1 && break
  sleep 0.2
done
psql "$PGB_URL/${ADMIN_URL##*/}" -Atqc 'SELECT 1' >/dev/null
echo "-- PgBouncer on 127.0.0.1:$PGB_PORT, pool_mode = transaction, default_pool_size = $PGB_POOL_SIZE (DB_POOL_SIZE = $POOL_SIZE), server_login_retry = 1"

npm run build --silent

echo "== 1. the e2e suite through PgBouncer"
PETSTORE_TEST_PGBOUNCER_URL="$PGB_URL" PETSTORE_TEST_PGBOUNCER_BIN="$pgb_bin" \
  PETSTORE_TEST_PGBOUNCER_INI="$work/pgbouncer.ini" DATABASE_URL="$ADMIN_URL" DB_POOL_SIZE=$POOL_SIZE \
  node --experimental-vm-modules --no-warnings=ExperimentalWarning node_modules/jest/bin/jest.js \
  --selectProjects e2e -- ${PGB_TESTS:-}

echo "== 2. five instances cold-started at once on an empty database, through PgBouncer"
psql "$ADMIN_URL" -qc "CREATE DATABASE $DB" >/dev/null
db_created=1
direct_url="${ADMIN_URL%/*}/$DB"
for i in 1 2 3 4 5; do
  port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close()})')"
  echo "$port" >"$work/port.$i"
  env -i PATH="$PATH" NODE_ENV=production LOG_FORMAT=json LOG_LEVEL=info PORT="$port" \
    DATABASE_URL="$PGB_URL/$DB" DATABASE_DIRECT_URL="$direct_url" DB_POOL_SIZE=$POOL_SIZE \
    SEED_DEMO=true SHUTDOWN_DRAIN_DELAY_MS=0 \
    node dist/main.js >"$work/instance.$i.log" 2>&1 &
  instance_pids+=($!)
done
for i in 1 2 3 4 5; do
  port="$(cat "$work/port.$i")"
  ok=""
  for _ in $(seq 1 300); do
    if curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1; then ok=1; break; fi
    kill -0 "${instance_pids[$((i - 1))]}" 2>/dev/null || break
    sleep 0.2
  done
  if [ -z "$ok" ]; then
    echo "FAIL: instance $i is not ready"; cat "$work/instance.$i.log"; exit 1
  fi
done
expected_migrations="$(node -e 'import("./dist/migrations/index.js").then(m=>process.stdout.write(String(m.migrations.length)))')"
applied="$(psql "$direct_url" -Atqc 'SELECT count(*) FROM typeorm_migrations')"
distinct="$(psql "$direct_url" -Atqc 'SELECT count(DISTINCT name) FROM typeorm_migrations')"
categories="$(psql "$direct_url" -Atqc 'SELECT count(*) FROM categories')"
orders="$(psql "$direct_url" -Atqc 'SELECT count(*) FROM orders')"
migration_logs="$(cat "$work"/instance.*.log | grep -c 'applied migrations' || true)"
seed_logs="$(cat "$work"/instance.*.log | grep -c 'loaded the demo data' || true)"
echo "   migrations: $applied rows ($distinct distinct) of $expected_migrations; applied by $migration_logs instance(s)"
echo "   demo data: $categories categories, $orders orders; loaded by $seed_logs instance(s)"
[ "$applied" = "$expected_migrations" ] && [ "$distinct" = "$expected_migrations" ] &&
  [ "$migration_logs" = 1 ] && [ "$categories" = 3 ] && [ "$orders" = 4 ] && [ "$seed_logs" = 1 ] ||
  { echo "FAIL: migrations or demo data not applied exactly once"; exit 1; }
for i in 1 2 3 4 5; do
  port="$(cat "$work/port.$i")"
  status="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/categories")"
  [ "$status" = 401 ] || { echo "FAIL: instance $i answered $status without a key"; exit 1; }
done
echo "PASS: PgBouncer (transaction pooling): e2e suite (the outage test through PgBouncer too), five cold starts (migrations once, demo data once)"
