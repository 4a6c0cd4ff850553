#!/usr/bin/env bash
# Rolling restart behind a real nginx, without Docker: two built instances of the service on
# loopback behind the machine's nginx (the Debian package, installed if missing) running
# deploy/nginx/nginx.conf, steady load from autocannon, and each instance in turn sent SIGTERM
# and started again. Fails on any failed request, any non-2xx answer, any connection error or
# reset (including one nginx hid by retrying a GET elsewhere: the same moment fails a POST),
# /health/ready not 503 right after SIGTERM, or an instance that does not exit 0. The rolling
# restart itself is scripts/test-lb.mjs; this wrapper makes a fresh database and drops it after;
# the rest (nginx, build, snapshot of dist/, clean-up) is scripts/lib/harness.sh.
# LB_KEEP=1 keeps the scratch folder (instance logs, nginx config and logs) for a look.
# LB_DIST=path runs another compiled copy than this checkout's dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/harness.sh

ADMIN_URL="${CI_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
DB="petstore_lb_$(od -An -N4 -tx4 /dev/urandom | tr -d ' \n')"
db_created=""
on_cleanup() {
  if [ -n "$db_created" ]; then
    psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  fi
}
harness_start lb LB_KEEP

find_nginx
if [ -z "$nginx_bin" ]; then
  install_packages nginx
  find_nginx
fi
echo "-- $("$nginx_bin" -v 2>&1)"

snapshot_app "${LB_DIST:-}"

echo "-- database $DB"
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  echo "FAIL: PostgreSQL on 127.0.0.1:5432 is not accepting connections" >&2
  exit 1
fi
psql "$ADMIN_URL" -qc "CREATE DATABASE $DB" >/dev/null
db_created=1
db_url="$(node -e "const u=new URL(process.argv[1]);u.pathname='/$DB';console.log(u.href)" "$ADMIN_URL")"

redis_url="redis://127.0.0.1:6379"
if ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  echo "-- warning: nothing listens on 127.0.0.1:6379; the instances run without REDIS_URL"
  redis_url=""
fi

export LB_WORK="$work" LB_DATABASE_URL="$db_url" LB_REDIS_URL="$redis_url" LB_NGINX="$nginx_bin"
run_scenario scripts/test-lb.mjs
