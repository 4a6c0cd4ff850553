#!/usr/bin/env bash
# npm run test:soak: mixed load for SOAK_SECONDS (30 to 600, default 120) against two built
# instances behind the machine's nginx (deploy/nginx/nginx.conf on loopback, as test:lb runs it),
# with a private Redis and a private PostgreSQL cluster, both restarted during the run. The run
# itself is scripts/test-soak.mjs; this wrapper checks the tools, builds, makes the scratch
# folder and the PostgreSQL cluster (initdb/pg_ctl from Debian's packages; as the user postgres
# when run as root, since PostgreSQL refuses root), and removes everything afterwards.
# SOAK_KEEP=1 keeps the scratch folder (instance, nginx, Redis and PostgreSQL logs).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

seconds="${SOAK_SECONDS:-120}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 30 ] || [ "$seconds" -gt 600 ]; then
  echo "SOAK_SECONDS must be a whole number from 30 to 600 (got \"$seconds\")" >&2
  exit 2
fi

work="$(mktemp -d /tmp/petstore-soak.XXXXXX)"
chmod 755 "$work" # nginx's workers (user nobody) and PostgreSQL (user postgres) write under it
pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
pgdata="$work/pg"
as_pg=()
pg_started=""
node_pid=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$node_pid" ] && kill -0 "$node_pid" 2>/dev/null; then
    kill -TERM "$node_pid" 2>/dev/null || true
    for _ in $(seq 1 80); do kill -0 "$node_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  # Only pids whose command line still names our scratch folder.
  if [ -f "$work/pids" ]; then
    local sig pid
    for sig in TERM KILL; do
      while read -r pid; do
        if grep -qF "$work" "/proc/$pid/cmdline" 2>/dev/null; then kill "-$sig" "$pid" 2>/dev/null || true; fi
      done <"$work/pids"
      [ "$sig" = TERM ] && sleep 1
    done
  fi
  if [ -n "$pg_started" ]; then
    "${as_pg[@]}" "$pg_bin/pg_ctl" stop -D "$pgdata" -m immediate -w >/dev/null 2>&1 || true
  fi
  if [ -n "${SOAK_KEEP:-}" ]; then echo "-- kept $work (SOAK_KEEP)"; else rm -rf "$work"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

nginx_bin="$(command -v nginx || true)"
[ -z "$nginx_bin" ] && [ -x /usr/sbin/nginx ] && nginx_bin=/usr/sbin/nginx
if [ -z "$nginx_bin" ] || [ -z "$pg_bin" ] || ! command -v redis-server >/dev/null; then
  missing=()
  [ -z "$nginx_bin" ] && missing+=(nginx)
  [ -z "$pg_bin" ] && missing+=(postgresql)
  command -v redis-server >/dev/null || missing+=(redis-server)
  if [ "$(id -u)" != 0 ]; then echo "FAIL: missing ${missing[*]} and this is not root" >&2; exit 1; fi
  echo "-- installing ${missing[*]} (Debian packages, not started)"
  # policy-rc.d 101: the packages must not start system services.
  policy_rc_created=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    policy_rc_created=1
  fi
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}") \
    >"$work/apt.log" 2>&1 || { tail -20 "$work/apt.log" >&2; echo "FAIL: apt-get install" >&2; exit 1; }
  [ -n "$policy_rc_created" ] && rm -f /usr/sbin/policy-rc.d
  nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
  pg_bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
fi

if [ ! -f dist/main.js ] || [ -n "$(find src migrations package.json package-lock.json tsconfig.json \
  tsconfig.build.json tsconfig.migrations.json -newer dist/main.js -print -quit)" ]; then
  echo "-- npm run build"
  npm run build --silent
fi
# The instances run a copy of dist/, so a rebuild meanwhile cannot change them.
mkdir -p "$work/app"
cp -r dist "$work/app/dist"
cp package.json CHANGELOG.md "$work/app/"
ln -s "$repo/node_modules" "$work/app/node_modules"

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

SOAK_SECONDS="$seconds" SOAK_WORK="$work" SOAK_NGINX="$nginx_bin" SOAK_PG_PORT="$pg_port" \
  SOAK_PG_CTL="$(printf '%q ' "${pg_ctl[@]}")" \
  node scripts/test-soak.mjs </dev/null &
node_pid=$!
wait "$node_pid"
