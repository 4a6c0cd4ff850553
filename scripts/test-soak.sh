#!/usr/bin/env bash
# npm run test:soak: mixed load for SOAK_SECONDS (30 to 600, default 120) against two built
# instances behind the machine's nginx (deploy/nginx/nginx.conf on loopback, as test:lb runs it),
# with a private Redis and a private PostgreSQL cluster, both restarted during the run. The run
# itself is scripts/test-soak.mjs; this wrapper installs what is missing, builds, makes the
# PostgreSQL cluster (initdb/pg_ctl from Debian's packages; as the user postgres when run as
# root, since PostgreSQL refuses root), and removes everything afterwards (scripts/lib/harness.sh).
# SOAK_KEEP=1 keeps the scratch folder (instance, nginx, Redis and PostgreSQL logs).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/harness.sh

seconds="${SOAK_SECONDS:-120}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 30 ] || [ "$seconds" -gt 600 ]; then
  echo "SOAK_SECONDS must be a whole number from 30 to 600 (got \"$seconds\")" >&2
  exit 2
fi

pg_bin_dir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true; }
as_pg=()
pg_started=""
on_cleanup() {
  if [ -n "$pg_started" ]; then
    "${as_pg[@]}" "$pg_bin/pg_ctl" stop -D "$pgdata" -m immediate -w >/dev/null 2>&1 || true
  fi
}
harness_start soak SOAK_KEEP
pgdata="$work/pg"

find_nginx
pg_bin="$(pg_bin_dir)"
missing=()
[ -z "$nginx_bin" ] && missing+=(nginx)
[ -z "$pg_bin" ] && missing+=(postgresql)
command -v redis-server >/dev/null || missing+=(redis-server)
install_packages "${missing[@]}"
find_nginx
pg_bin="$(pg_bin_dir)"

snapshot_app

# A private PostgreSQL cluster on a free loopback port, so the test may stop and start it.
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin postgres
  as_pg=(runuser -u postgres --)
fi
mkdir -p "$pgdata"
[ "$(id -u)" = 0 ] && chown postgres "$pgdata"
pg_port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
"${as_pg[@]}" "$pg_bin/initdb" -D "$pgdata" -U postgres -A trust -E UTF8 --no-instructions >"$work/initdb.log" 2>&1 \
  || { cat "$work/initdb.log" >&2; exit 1; }
pg_opts="-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$pgdata -c max_connections=60 -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
pg_ctl=("${as_pg[@]}" "$pg_bin/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -o "$pg_opts")
"${pg_ctl[@]}" start -w >/dev/null
pg_started=1
echo "-- PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port ($pgdata)"
"$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qc "CREATE DATABASE petstore" >/dev/null

export SOAK_SECONDS="$seconds" SOAK_WORK="$work" SOAK_NGINX="$nginx_bin" SOAK_PG_PORT="$pg_port" \
  SOAK_PG_CTL="$(printf '%q ' "${pg_ctl[@]}")"
run_scenario scripts/test-soak.mjs
