#!/usr/bin/env bash
# Rolling restart behind a real nginx, without Docker: two built instances of the service on
# loopback behind the machine's nginx (the Debian package, installed if missing) running
# deploy/nginx/nginx.conf, steady load from autocannon, and each instance in turn sent SIGTERM
# and started again. Fails on any failed request, any non-2xx answer, any connection error or
# reset (including one nginx hid by retrying a GET elsewhere: the same moment fails a POST),
# /health/ready not 503 right after SIGTERM, or an instance that does not exit 0. The rolling
# restart itself is scripts/test-lb.mjs;
# this wrapper installs nginx, builds, snapshots dist/, makes a fresh database and cleans up.
# LB_KEEP=1 keeps the scratch folder (instance logs, nginx config and logs) for a look.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

ADMIN_URL="${CI_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
DB="petstore_lb_$(od -An -N4 -tx4 /dev/urandom | tr -d ' \n')"
work="$(mktemp -d /tmp/petstore-lb.XXXXXX)"
db_created=""
policy_rc_created=""
node_pid=""

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # test-lb.mjs stops what it starts (on SIGTERM too: give it a few seconds); the sweep below
  # only catches what is left if it could not.
  if [ -n "$node_pid" ] && kill -0 "$node_pid" 2>/dev/null; then
    kill -TERM "$node_pid" 2>/dev/null || true
    for _ in $(seq 1 80); do kill -0 "$node_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  # A pid is signalled only while its command line still names our scratch folder.
  if [ -f "$work/pids" ]; then
    local sig pid
    for sig in TERM KILL; do
      while read -r pid; do
        if grep -qF "$work" "/proc/$pid/cmdline" 2>/dev/null; then kill "-$sig" "$pid" 2>/dev/null || true; fi
      done <"$work/pids"
      [ "$sig" = TERM ] && sleep 1
    done
  fi
  [ -n "$policy_rc_created" ] && rm -f /usr/sbin/policy-rc.d
  if [ -n "$db_created" ]; then
    psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  fi
  if [ -n "${LB_KEEP:-}" ]; then echo "-- kept $work (LB_KEEP)"; else rm -rf "$work"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

nginx_bin="$(command -v nginx || true)"
[ -z "$nginx_bin" ] && [ -x /usr/sbin/nginx ] && nginx_bin=/usr/sbin/nginx
if [ -z "$nginx_bin" ]; then
  echo "-- installing nginx (Debian package)"
  if [ "$(id -u)" != 0 ]; then echo "FAIL: nginx is not installed and this is not root" >&2; exit 1; fi
  # Install only: the package must not start the system nginx (policy-rc.d 101 = "do not").
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    policy_rc_created=1
  fi
  if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx) \
    >"$work/apt.log" 2>&1; then
    tail -20 "$work/apt.log" >&2
    echo "FAIL: nginx could not be installed with apt-get" >&2
    exit 1
  fi
  [ -n "$policy_rc_created" ] && rm -f /usr/sbin/policy-rc.d && policy_rc_created=""
  nginx_bin="$(command -v nginx || echo /usr/sbin/nginx)"
fi
echo "-- $("$nginx_bin" -v 2>&1)"

# Build unless dist/ is newer than every source it is made from.
if [ -n "${LB_DIST:-}" ]; then
  echo "-- running $LB_DIST (LB_DIST), not this checkout's dist/"
elif [ ! -f dist/main.js ] || [ ! -f dist/migrations/index.js ] \
  || [ -n "$(find src migrations package.json package-lock.json tsconfig.json tsconfig.build.json \
    tsconfig.migrations.json -newer dist/main.js -print -quit)" ]; then
  echo "-- npm run build"
  npm run build --silent
else
  echo "-- dist/ is current"
fi
# The instances run a copy of dist/, so a rebuild during the test cannot pull it from under a
# restart; node_modules and package.json ("type": "module") are the checkout's. LB_DIST=path
# runs another compiled copy instead (to try a change without touching dist/).
mkdir -p "$work/app"
cp -r "${LB_DIST:-dist}" "$work/app/dist"
cp package.json CHANGELOG.md "$work/app/"
ln -s "$repo/node_modules" "$work/app/node_modules"
chmod 755 "$work" # nginx's worker processes (user nobody) use temporary files under it

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

# In the background and waited for, so that a signal to this script is handled at once.
LB_WORK="$work" LB_DATABASE_URL="$db_url" LB_REDIS_URL="$redis_url" LB_NGINX="$nginx_bin" \
  node scripts/test-lb.mjs </dev/null &
node_pid=$!
wait "$node_pid"
