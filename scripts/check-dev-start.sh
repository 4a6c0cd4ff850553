#!/usr/bin/env bash
# The README's first command, as a newcomer runs it: `npm start` with no DATABASE_URL starts an
# embedded PostgreSQL on a free port, loads demo data, prints the /docs address and a development
# key; Ctrl-C stops both; the next start finds the data, the key and the port again.
set -euo pipefail
cd "$(dirname "$0")/.."

data="$(mktemp -d)"
chmod 755 "$data"
port="$(node -e "const s=require('net').createServer().listen(0,()=>{console.log(s.address().port);s.close()})")"
log="$data/start.log"
pid=""
cleanup() {
  [ -n "$pid" ] && kill -INT "$pid" 2>/dev/null && sleep 2 || true
  pkill -f "postgres -D $data/postgres" 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT

start() {
  : >"$log"
  # setsid: its own process group, so the INT below reaches npm, node and PostgreSQL like Ctrl-C.
  setsid env -u DATABASE_URL -u EMBEDDED_PG_PORT PORT="$port" PETSTORE_DATA_DIR="$data" npm start >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 120); do
    grep -q "Development key:" "$log" && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; echo "FAIL: npm start exited" >&2; exit 1; }
    sleep 0.5
  done
  cat "$log" >&2; echo "FAIL: no development key printed" >&2; exit 1
}
ctrl_c() {
  kill -INT -- "-$pid"
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  if kill -0 "$pid" 2>/dev/null; then echo "FAIL: still running after Ctrl-C" >&2; exit 1; fi
  pid=""
  sleep 1
  if pgrep -f "postgres -D $data/postgres" >/dev/null; then echo "FAIL: PostgreSQL still runs after Ctrl-C" >&2; exit 1; fi
  echo "ok: Ctrl-C stopped the service and its PostgreSQL"
}

start
grep -q "Swagger UI:      http://localhost:$port/docs" "$log" || { echo "FAIL: no /docs address printed" >&2; exit 1; }
grep -q "Reference:       http://localhost:$port/reference" "$log" || { echo "FAIL: no /reference address printed" >&2; exit 1; }
curl -fs -o /dev/null "http://localhost:$port/reference/redoc.standalone.js" \
  || { echo "FAIL: npm start does not serve Redoc's bundle" >&2; exit 1; }
key="$(sed -n 's/.*Development key: \(psk_[A-Za-z0-9_-]*\).*/\1/p' "$log")"
pg_port="$(sed -n 's/.*embedded PostgreSQL on port \([0-9]*\),.*/\1/p' "$log")"
[ -n "$pg_port" ] && [ "$(cat "$data/postgres-port")" = "$pg_port" ] \
  || { echo "FAIL: the embedded PostgreSQL's port is not announced and remembered" >&2; exit 1; }
orders="$(curl -fs -H "Authorization: Bearer $key" "http://localhost:$port/v1/store/orders")"
count="$(node -e "console.log(JSON.parse(process.argv[1]).length)" "$orders")"
[ "$count" -ge 3 ] || { echo "FAIL: expected the demo orders, got $orders" >&2; exit 1; }
echo "ok: first start printed /docs and a key that lists $count demo orders"
curl -fs -o /dev/null -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
  -d '{"name":"kept across restarts"}' "http://localhost:$port/v1/categories"
ctrl_c

start
key2="$(sed -n 's/.*Development key: \(psk_[A-Za-z0-9_-]*\).*/\1/p' "$log")"
[ "$key2" = "$key" ] || { echo "FAIL: the development key changed across restarts" >&2; exit 1; }
grep -q "embedded PostgreSQL on port $pg_port," "$log" \
  || { echo "FAIL: the embedded PostgreSQL did not start on its remembered port $pg_port" >&2; exit 1; }
categories="$(curl -fs -H "Authorization: Bearer $key" "http://localhost:$port/v1/categories")"
grep -q "kept across restarts" <<<"$categories" || { echo "FAIL: data lost across restarts" >&2; exit 1; }
orders2="$(curl -fs -H "Authorization: Bearer $key" "http://localhost:$port/v1/store/orders")"
[ "$(node -e "console.log(JSON.parse(process.argv[1]).length)" "$orders2")" = "$count" ] \
  || { echo "FAIL: demo data loaded twice" >&2; exit 1; }
echo "ok: second start found the data, the same key and PostgreSQL port, and loaded no demo data again"
ctrl_c
echo "development start path: passed"
