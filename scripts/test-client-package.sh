#!/usr/bin/env bash
# @petstore/client as a stranger gets it: `npm pack` in packages/client, the tarball installed
# into an empty project outside the repository (its dependencies from the registry, nothing
# from the repository on the path), a TypeScript file type-checked against its declarations,
# and both examples run from there against a running service: the receiver verifies the
# deliveries of the orders that the other example places and ships.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

ADMIN_URL="${CI_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
DB="petstore_client_test_$$"
KEY="psk_client-package-check-key-0123456"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

echo "-- npm pack in packages/client"
npm run build --silent -w @petstore/client
tarball="$(cd packages/client && npm pack --pack-destination "$work" --silent | tail -1)"
contents="$(tar -tzf "$work/$tarball")"
grep -q '^package/dist/index.js$' <<<"$contents" || fail "the tarball has no dist/index.js"
grep -q '^package/dist/index.d.ts$' <<<"$contents" || fail "the tarball has no dist/index.d.ts"
! grep -Eq '^package/(src|test)/' <<<"$contents" || fail "the tarball ships sources or tests"
echo "ok: $tarball ($(wc -l <<<"$contents") files)"

echo "-- installed into an empty project"
mkdir "$work/consumer"
cd "$work/consumer"
printf '{ "name": "consumer", "private": true, "type": "module" }\n' >package.json
typescript="$(node -p "require('$repo/node_modules/typescript/package.json').version")"
npm install --no-audit --no-fund --loglevel=error "$work/$tarball" "typescript@$typescript"
cp "$repo"/examples/*.mjs .
[ ! -e node_modules/@petstore/client/src ] || fail "the installed package has its sources"

cat >consumer.ts <<'TS'
import { PetstoreClient, PetstoreError, type ErrorCode, type Order } from '@petstore/client';
const client = new PetstoreClient({ baseUrl: 'http://localhost:3000', apiKey: 'psk_x' });
export async function firstPending(): Promise<Order | undefined> {
  for await (const order of client.v2.orders.list({ status: ['pending'] })) return order;
  return undefined;
}
export function describe(error: PetstoreError): string {
  const code: ErrorCode | 'UNEXPECTED_RESPONSE' = error.code;
  switch (code) {
    case 'ORDER_NOT_FOUND':
      return 'no such order';
    default:
      return code;
  }
}
// @ts-expect-error quantity is a number in the API's document
void client.v2.orders.place({ petId: 1, quantity: '2' });
TS
cat >tsconfig.json <<'JSON'
{
  "compilerOptions": {
    "strict": true,
    "noEmit": true,
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "target": "es2022",
    "lib": ["es2022", "dom", "dom.iterable"],
    "types": []
  },
  "files": ["consumer.ts"]
}
JSON
npx tsc -p tsconfig.json || fail "consumer.ts does not type-check"
echo "ok: a TypeScript consumer type-checks against the package's declarations (DOM lib, no Node types)"

echo "-- a service to run the examples against"
[ -f "$repo/dist/main.js" ] || (cd "$repo" && npm run build --silent)
psql "$ADMIN_URL" -qc "CREATE DATABASE $DB" >/dev/null
service_port="$(free_port)"
db_url="$(node -e "const u=new URL(process.argv[1]);u.pathname='/$DB';console.log(u.href)" "$ADMIN_URL")"
(cd "$repo" && exec env PORT="$service_port" DATABASE_URL="$db_url" BOOTSTRAP_API_KEY="$KEY" \
  SEED_DEMO=true LOG_LEVEL=warn WEBHOOK_ALLOW_PRIVATE_TARGETS=true WEBHOOK_POLL_INTERVAL_MS=200 \
  node dist/main >"$work/service.log" 2>&1) &
pids+=($!)
for _ in $(seq 1 60); do
  curl -fs "http://127.0.0.1:$service_port/health/ready" >/dev/null && break
  sleep 0.5
done
curl -fs "http://127.0.0.1:$service_port/health/ready" >/dev/null || { cat "$work/service.log"; fail "the service did not start"; }
export PETSTORE_BASE_URL="http://127.0.0.1:$service_port" PETSTORE_API_KEY="$KEY"

echo "-- examples/webhook-receiver.mjs and examples/place-order.mjs, from the consumer project"
PORT="$(free_port)" node webhook-receiver.mjs >"$work/receiver.log" 2>&1 &
receiver_pid=$!
pids+=("$receiver_pid")
for _ in $(seq 1 40); do grep -qs "^listening on" "$work/receiver.log" && break; sleep 0.25; done
grep -q '^listening on' "$work/receiver.log" || { cat "$work/receiver.log"; fail "the receiver did not start"; }
node place-order.mjs | tee "$work/place.log"
grep -q '^placed order' "$work/place.log" || fail "place-order.mjs placed no order"
grep -q '^shipped order' "$work/place.log" || fail "place-order.mjs shipped no order"
grep -q 'ORDER_ALREADY_SHIPPED' "$work/place.log" || fail "place-order.mjs did not see the typed error"
for type in order.placed order.shipped; do
  for _ in $(seq 1 40); do grep -q "^verified $type" "$work/receiver.log" && break; sleep 0.25; done
  grep -q "^verified $type" "$work/receiver.log" || { cat "$work/receiver.log"; fail "no verified $type delivery"; }
done
# The package promises Node 20+: the example again on every other Node this machine has.
for node_bin in /usr/bin/node /usr/local/bin/node; do
  [ -x "$node_bin" ] && [ "$(readlink -f "$node_bin")" != "$(readlink -f "$(command -v node)")" ] || continue
  echo "-- place-order.mjs on Node $("$node_bin" -v) ($node_bin)"
  "$node_bin" place-order.mjs | grep '^placed order' || fail "place-order.mjs failed on $("$node_bin" -v)"
done
! grep -q '^refused' "$work/receiver.log" || fail "the receiver refused a delivery"
sed 's/^/  receiver: /' "$work/receiver.log"
kill -TERM "$receiver_pid"
wait "$receiver_pid" || true
subscriptions="$(curl -fs -H "Authorization: Bearer $KEY" "$PETSTORE_BASE_URL/v2/webhooks")"
[ "$(node -p "JSON.parse(process.argv[1]).data.length" "$subscriptions")" = 0 ] \
  || fail "the receiver did not unsubscribe on SIGTERM"
echo "client package: passed"
