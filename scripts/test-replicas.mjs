// The scenario of `npm run test:replicas` (scripts/test-replicas.sh prepares REPLICAS_WORK, the
// primary and its hot standby): Redis and two instances with DATABASE_REPLICA_URLS, then
//   1. the listed reads (v1 and v2) go to the replica, counted by petstore_db_reads_total;
//      a 1M-order listOrders streamed from the replica while orders are placed on the primary
//      is complete, valid JSON and exactly one snapshot;
//      a key marked in Redis (a write whose position is not known yet) reads on the primary;
//   2. read-your-writes with replay paused: key A places an order through instance 1 and reads
//      it through instance 2 at once (primary), key B reads through instance 2 and does not see
//      it yet (the replica); the same once instance 1 has recorded the write's position;
//   3. the staleness bound: still paused past REPLICA_MAX_LAG_MS, key B reads on the primary;
//      replay resumed, on the replica again;
//   4. the standby stopped under load: no failed request, every read on the primary within 1 s,
//      on the replica again once it is back;
//   5. Redis stopped under load: no failed request, reads on the primary; back on the replica
//      once Redis is.
import { spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  createRun,
  printInstanceStates,
  printTail,
  runToVerdict,
  seedOrders,
  startInstance,
  waitReady,
} from './lib/harness.mjs';

const work = process.env.REPLICAS_WORK;
const primaryUrl = process.env.REPLICAS_PRIMARY_URL;
const standbyUrl = process.env.REPLICAS_STANDBY_URL;
const standbyCtl = process.env.REPLICAS_STANDBY_CTL;
const e2eAdminUrl = process.env.REPLICAS_E2E_ADMIN_URL;
const redisServer = process.env.REPLICAS_REDIS_SERVER ?? 'redis-server';
const redisPort = Number(process.env.REPLICAS_REDIS_PORT);
const [port1, port2, metrics1, metrics2] = (process.env.REPLICAS_PORTS ?? '')
  .split(',')
  .map(Number);
if (!work || !e2eAdminUrl || !primaryUrl || !standbyUrl || !standbyCtl || !redisPort || !metrics2) {
  console.error('run this through scripts/test-replicas.sh (npm run test:replicas)');
  process.exit(2);
}

const KEY_A = 'psk_replicas-key-a-0123456789abcdefghij';
const KEY_B = 'psk_replicas-key-b-0123456789abcdefghij';
const MAX_LAG_MS = 1000;
/** Past LIST_SINGLE_QUERY_ROWS (5000): listOrders streams a COPY in one transaction. */
const LONG_LIST_ORDERS = Number(process.env.REPLICAS_LONG_LIST_ORDERS ?? 1000000);
const START_DEADLINE_MS = 60000;
/**
 * The scenario takes about two minutes; the whole e2e suite with the replica, two workers on
 * two loaded cores, up to about twenty.
 */
const WATCHDOG_MS = 30 * 60_000;
const standbyName = `${new URL(standbyUrl).hostname}:${new URL(standbyUrl).port}`;

const run = createRun({ work, watchdogMs: WATCHDOG_MS });
const { say, fail } = run;
const instances = [
  { name: 'instance-1', port: port1, metricsPort: metrics1 },
  { name: 'instance-2', port: port2, metricsPort: metrics2 },
];
const [one, two] = instances;
let redis;

const auth = (key) => ({ authorization: `Bearer ${key}` });

/** An answer's status and JSON, or the error code when there was none. */
async function call(instance, method, path, key, body) {
  try {
    const response = await fetch(`http://127.0.0.1:${instance.port}${path}`, {
      method,
      headers: { ...auth(key), ...(body && { 'content-type': 'application/json' }) },
      body: body && JSON.stringify(body),
      signal: AbortSignal.timeout(10000),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  } catch (error) {
    return { status: error.cause?.code ?? error.name ?? 'error' };
  }
}

/** petstore_db_reads_total of the instance: { primary, replica }. */
async function reads(instance) {
  const text = await (await fetch(`http://127.0.0.1:${instance.metricsPort}/metrics`)).text();
  const count = (target) => {
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`petstore_db_reads_total{target="${target}"`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };
  const gauge = (name) => {
    const line = text.split('\n').find((l) => l.startsWith(`${name}{replica="${standbyName}"}`));
    return line ? Number(line.split(' ').at(-1)) : NaN;
  };
  return {
    primary: count('primary'),
    replica: count('replica'),
    lag: gauge('petstore_db_replica_lag_seconds'),
    up: gauge('petstore_db_replica_up'),
  };
}

/** Both instances' counts added. */
async function allReads() {
  const [a, b] = await Promise.all(instances.map(reads));
  return { primary: a.primary + b.primary, replica: a.replica + b.replica };
}

/** Waits until `check()` is true, polling every 50 ms; the ms it took, or throws. */
async function within(ms, what, check) {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (await check()) return Date.now() - start;
    await sleep(50);
  }
  throw new Error(`${what}: not within ${ms} ms`);
}

function startRedis() {
  const log = openSync(`${work}/redis.log`, 'a');
  const child = spawn(
    redisServer,
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', log, log] },
  );
  run.track(child);
  redis = { child, exited: new Promise((resolve) => child.on('exit', resolve)) };
  say(`Redis on 127.0.0.1:${redisPort} (pid ${child.pid})`);
}

function standby(...args) {
  return new Promise((resolve, reject) => {
    const child = spawn(standbyCtl, args, { stdio: 'ignore' });
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`pg_ctl ${args[0]}: exit ${code}`)),
    );
  });
}

async function onStandby(sql) {
  const client = new pg.Client(standbyUrl);
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** LONG_LIST_ORDERS orders on the primary in one INSERT … SELECT, then replayed on the standby. */
async function seedLongList() {
  const started = Date.now();
  const seeder = new pg.Client(primaryUrl);
  await seeder.connect();
  let lsn;
  try {
    await seedOrders(seeder, LONG_LIST_ORDERS);
    lsn = (await seeder.query('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0].lsn;
  } finally {
    await seeder.end();
  }
  const seeded = Date.now();
  await within(120000, 'the seeded orders replayed on the standby', async () => {
    const [row] = await onStandby(
      `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS replayed`,
    );
    return row.replayed;
  });
  say(
    `seeded ${LONG_LIST_ORDERS} orders on the primary in ${seeded - started} ms, ` +
      `replayed on the standby ${Date.now() - seeded} ms later`,
  );
}

/**
 * Streams v1 listOrders through instance 2 (key B) while key A places orders one after another
 * through instance 1. One writer, so ids commit in order and any snapshot holds exactly the ids
 * up to some id: the list must be exactly the standby's ids up to its highest, each once.
 */
async function listWhileWriting(petId) {
  const [{ count: atStart }] = await onStandby('SELECT count(*)::int AS count FROM orders');
  const before = await reads(two);
  const writer = { running: true, placed: [], failed: [] };
  const writing = (async () => {
    while (writer.running) {
      const { status, json } = await call(one, 'POST', '/v1/store/orders', KEY_A, {
        petId,
        quantity: 1,
      });
      if (status === 201) writer.placed.push(json.id);
      else writer.failed.push(status);
    }
  })();
  // pg_stat_activity on the standby shows the COPY while it runs.
  let copySeen = false;
  const watching = (async () => {
    while (writer.running && !copySeen) {
      const rows = await onStandby(
        `SELECT 1 FROM pg_stat_activity WHERE query LIKE '%COPY (%' AND pid <> pg_backend_pid()`,
      );
      copySeen = rows.length > 0;
      await sleep(20);
    }
  })();
  await sleep(200);
  const placedBefore = writer.placed.length;
  const started = Date.now();
  const response = await fetch(`http://127.0.0.1:${two.port}/v1/store/orders`, {
    headers: auth(KEY_B),
    signal: AbortSignal.timeout(120000),
  });
  const text = await response.text();
  const took = Date.now() - started;
  const placedDuring = writer.placed.length - placedBefore;
  writer.running = false;
  await Promise.all([writing, watching]);
  const after = await reads(two);
  let list;
  try {
    list = JSON.parse(text);
  } catch (error) {
    fail(`the 1M listOrders is not valid JSON (${text.length} bytes): ${error.message}`);
    return;
  }
  if (response.status !== 200 || !Array.isArray(list)) {
    fail(`the 1M listOrders: ${response.status}`);
    return;
  }
  const ids = Int32Array.from(list, (order) => order.id).sort();
  const highest = ids.at(-1);
  let duplicates = 0;
  for (let i = 1; i < ids.length; i++) if (ids[i] === ids[i - 1]) duplicates++;
  // Caught up with the primary (the writer has stopped), the standby's ids up to the highest.
  const lsn = await onPrimaryLsn();
  await within(30000, 'the standby caught up after the writes', async () => {
    const [row] = await onStandby(`SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS done`);
    return row.done;
  });
  const expected = Int32Array.from(
    (await onStandby(`SELECT id FROM orders WHERE id <= ${highest} ORDER BY id`)).map((r) => r.id),
  );
  const [{ count: atEnd }] = await onStandby('SELECT count(*)::int AS count FROM orders');
  let missing = 0;
  let extra = 0;
  for (let i = 0, j = 0; i < ids.length || j < expected.length;) {
    if (j >= expected.length || (i < ids.length && ids[i] < expected[j])) {
      extra++;
      i++;
    } else if (i >= ids.length || expected[j] < ids[i]) {
      missing++;
      j++;
    } else {
      i++;
      j++;
    }
  }
  say(
    `1M listOrders on the replica: ${response.status}, ${list.length} orders ` +
      `(${(text.length / 1e6).toFixed(0)} MB) in ${took} ms; ${atStart} rows before, ${atEnd} after; ` +
      `${placedDuring} orders placed meanwhile through instance-1 (${writer.failed.length} failed); ` +
      `${duplicates} duplicate, ${missing} missing, ${extra} unknown ids; ` +
      `instance-2 reads: replica +${after.replica - before.replica}, primary +${after.primary - before.primary}; ` +
      `COPY seen in the standby's pg_stat_activity: ${copySeen}`,
  );
  if (duplicates || missing || extra) fail('the 1M listOrders is not exactly one snapshot');
  if (list.length < atStart || list.length < LONG_LIST_ORDERS)
    fail(`the 1M listOrders has ${list.length} orders, fewer than the ${atStart} before it`);
  if (placedDuring === 0) fail('no order was placed while the list streamed');
  if (writer.failed.length) fail(`placeOrder failed during the list: ${writer.failed.slice(0, 3)}`);
  if (atEnd <= list.length) fail('the writes during the list are not after its snapshot');
  if (after.replica - before.replica !== 1 || after.primary !== before.primary)
    fail('the 1M listOrders did not run on the replica');
  if (!copySeen) fail("the COPY was not seen in the standby's pg_stat_activity");
}

/** The id of API key `key`, found by its hash as the service stores it (the built app's own). */
async function keyIdOf(key) {
  const { hashApiKey } = await import(pathToFileURL(`${work}/app/dist/auth/api-key.js`).href);
  const client = new pg.Client(primaryUrl);
  await client.connect();
  try {
    const { rows } = await client.query('SELECT id FROM api_keys WHERE key_hash = $1', [
      hashApiKey(key),
    ]);
    return rows[0].id;
  } finally {
    await client.end();
  }
}

async function onPrimaryLsn() {
  const client = new pg.Client(primaryUrl);
  await client.connect();
  try {
    return (await client.query('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0].lsn;
  } finally {
    await client.end();
  }
}

/**
 * Listed reads, round-robin over both instances and `paths`, by `workers` at once until
 * `stop()`; counts answers that are not 200.
 */
function load(key, paths, workers = 6) {
  const state = { done: 0, failed: [], running: true };
  const worker = async (w) => {
    for (let i = w; state.running; i += workers) {
      const instance = instances[i % 2];
      const path = paths[i % paths.length];
      const { status } = await call(instance, 'GET', path, key);
      state.done++;
      if (status !== 200) state.failed.push(`${instance.name} GET ${path}: ${status}`);
    }
  };
  const all = Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
  state.stop = async () => {
    state.running = false;
    await all;
    return state;
  };
  return state;
}

async function main() {
  startRedis();
  const env = {
    DATABASE_URL: primaryUrl,
    DATABASE_REPLICA_URLS: standbyUrl,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
    SEED_DEMO: 'true',
    RATE_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '0',
    METRICS_HOST: '127.0.0.1',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'warn',
  };
  // One at a time: the second starts on a migrated, seeded database; each brings its key.
  startInstance(run, {
    work,
    instance: one,
    env: { ...env, BOOTSTRAP_API_KEY: KEY_A, METRICS_PORT: String(one.metricsPort) },
  });
  await waitReady(run, one, START_DEADLINE_MS);
  startInstance(run, {
    work,
    instance: two,
    env: { ...env, BOOTSTRAP_API_KEY: KEY_B, METRICS_PORT: String(two.metricsPort) },
  });
  await waitReady(run, two, START_DEADLINE_MS);
  await within(5000, 'the replica up and caught up on both instances', async () => {
    const all = await Promise.all(instances.map(reads));
    return all.every((r) => r.up === 1 && r.lag === 0);
  });

  // 1. Every listed read, v1 and v2, on the replica.
  const pets = await call(one, 'GET', '/v2/pets?limit=5', KEY_A);
  const orders = await call(one, 'GET', '/v2/store/orders?limit=5', KEY_A);
  if (pets.status !== 200 || orders.status !== 200) throw new Error('no demo pets or orders');
  const petId = pets.json.data[0].id;
  const orderId = orders.json.data[0].id;
  const listed = [
    '/v1/store/orders',
    `/v1/store/orders/${orderId}`,
    '/v2/store/orders',
    `/v2/store/orders/${orderId}`,
    '/v1/categories',
    '/v2/categories',
    `/v1/pets/${petId}`,
    '/v2/pets',
    `/v2/pets/${petId}`,
    '/v2/webhooks',
  ];
  let before = await allReads();
  for (const path of listed) {
    for (const instance of instances) {
      const { status } = await call(instance, 'GET', path, KEY_B);
      if (status !== 200) fail(`${instance.name} GET ${path}: ${status}`);
    }
  }
  let after = await allReads();
  const onReplica = after.replica - before.replica;
  const onPrimary = after.primary - before.primary;
  say(`listed reads: ${onReplica} on the replica, ${onPrimary} on the primary`);
  if (onReplica !== listed.length * 2 || onPrimary !== 0) {
    fail(`expected all ${listed.length * 2} listed reads on the replica`);
  }

  // 1a. A key marked in Redis, as an instance marks it before a write's answer while the
  // write's position is not known yet: its reads go to the primary until the mark ends, by its
  // instance removing it or by its time passing.
  const keyWrites = `petstore:writes:${await keyIdOf(KEY_B)}`;
  const marker = new Redis(`redis://127.0.0.1:${redisPort}`);
  try {
    before = await reads(two);
    await marker.hset(keyWrites, 'scenario', String(Date.now() + 10_000));
    const marked = await call(two, 'GET', '/v2/categories', KEY_B);
    await marker.hset(keyWrites, 'scenario', String(Date.now() - 1));
    const expired = await call(two, 'GET', '/v2/categories', KEY_B);
    await marker.hdel(keyWrites, 'scenario');
    const unmarked = await call(two, 'GET', '/v2/categories', KEY_B);
    after = await reads(two);
    say(
      `key B marked: ${marked.status}, mark expired: ${expired.status}, unmarked: ` +
        `${unmarked.status}; instance-2 reads: primary +${after.primary - before.primary}, ` +
        `replica +${after.replica - before.replica}`,
    );
    if (after.primary - before.primary !== 1 || after.replica - before.replica !== 2) {
      fail('expected the marked key on the primary (1 read), then on the replica (2)');
    }
  } finally {
    marker.disconnect();
  }

  // 1b. A 1M-order listOrders (the COPY path, one snapshot) streamed from the replica while
  // key A places orders through the other instance: complete, valid JSON, one snapshot.
  await seedLongList();
  await listWhileWriting(petId);

  // 2. Read-your-writes across instances, replay paused.
  await onStandby('SELECT pg_wal_replay_pause()');
  await within(2000, 'replay paused', async () => {
    const [row] = await onStandby('SELECT pg_get_wal_replay_pause_state() AS state');
    return row.state === 'paused';
  });
  say('replay paused on the standby');
  const placed = await call(one, 'POST', '/v1/store/orders', KEY_A, { petId, quantity: 1 });
  if (placed.status !== 201) throw new Error(`placeOrder through instance-1: ${placed.status}`);
  const newId = placed.json.id;
  before = await reads(two);
  const mine = await call(two, 'GET', `/v1/store/orders/${newId}`, KEY_A);
  const mineV2 = await call(two, 'GET', `/v2/store/orders?limit=1&order=desc`, KEY_A);
  const theirs = await call(two, 'GET', `/v1/store/orders/${newId}`, KEY_B);
  after = await reads(two);
  say(
    `key A through instance-2: ${mine.status}, newest ${mineV2.json?.data?.[0]?.id}; ` +
      `key B: ${theirs.status}; instance-2 reads: primary +${after.primary - before.primary}, ` +
      `replica +${after.replica - before.replica}`,
  );
  if (mine.status !== 200)
    fail(`key A did not read its own order through instance-2: ${mine.status}`);
  if (mineV2.json?.data?.[0]?.id !== newId)
    fail('key A did not list its own order through instance-2');
  if (theirs.status !== 404)
    fail(`key B read the order from the paused replica: ${theirs.status}, not 404`);
  if (after.primary - before.primary !== 2 || after.replica - before.replica !== 1) {
    fail('expected key A on the primary (2 reads) and key B on the replica (1)');
  }
  // 2b. Once instance-1 has replaced its mark with the write's position, key A still reads on
  // the primary (the paused replica has not replayed that position), key B on the replica.
  const keyAWrites = `petstore:writes:${await keyIdOf(KEY_A)}`;
  const watcher = new Redis(`redis://127.0.0.1:${redisPort}`);
  try {
    const learned = await within(1000, "key A's position learned, its mark gone", async () => {
      const { position, ...marks } = await watcher.hgetall(keyAWrites);
      return position !== undefined && Object.keys(marks).length === 0;
    });
    before = await reads(two);
    const mineAgain = await call(two, 'GET', `/v1/store/orders/${newId}`, KEY_A);
    const theirsAgain = await call(two, 'GET', `/v1/store/orders/${newId}`, KEY_B);
    after = await reads(two);
    say(
      `key A's position learned ${learned} ms after the reads; key A: ${mineAgain.status}, ` +
        `key B: ${theirsAgain.status}; instance-2 reads: primary +${after.primary - before.primary}, ` +
        `replica +${after.replica - before.replica}`,
    );
    if (mineAgain.status !== 200 || theirsAgain.status !== 404) {
      fail('expected key A to see its order (primary) and key B not yet (replica)');
    }
    if (after.primary - before.primary !== 1 || after.replica - before.replica !== 1) {
      fail('expected key A on the primary (1 read) and key B on the replica (1)');
    }
  } finally {
    watcher.disconnect();
  }

  // 3. Staleness: still paused past REPLICA_MAX_LAG_MS, key B goes to the primary.
  const stale = await within(
    MAX_LAG_MS + 1500,
    'key B on the primary once the lag passed the bound',
    async () => {
      const { status } = await call(two, 'GET', `/v1/store/orders/${newId}`, KEY_B);
      return status === 200;
    },
  );
  const lagged = await reads(two);
  say(`key B sees the order (primary) ${stale} ms after the write; replica lag ${lagged.lag} s`);
  if (!(lagged.lag > MAX_LAG_MS / 1000))
    fail(`lag metric ${lagged.lag} s, expected above the bound`);
  await onStandby('SELECT pg_wal_replay_resume()');
  before = await reads(two);
  const back = await within(3000, 'key B on the replica again after resume', async () => {
    const { status } = await call(two, 'GET', `/v1/store/orders/${newId}`, KEY_B);
    const now = await reads(two);
    return status === 200 && now.replica > before.replica;
  });
  say(`replay resumed: key B reads the order on the replica again within ${back} ms`);

  // 4. The standby stopped under load.
  const paths = listed.filter((path) => path !== '/v1/store/orders');
  let traffic = load(KEY_B, paths);
  await sleep(1000);
  const stopping = Date.now();
  await standby('stop', '-m', 'fast', '-w');
  const stoppedAt = Date.now();
  say(`standby stopped (pg_ctl stop -m fast, ${stoppedAt - stopping} ms)`);
  await sleep(1000);
  const atOneSecond = await allReads();
  await sleep(1000);
  const atTwoSeconds = await allReads();
  say(
    `1 s to 2 s after the stop: ${atTwoSeconds.replica - atOneSecond.replica} reads on the replica, ` +
      `${atTwoSeconds.primary - atOneSecond.primary} on the primary`,
  );
  if (atTwoSeconds.replica !== atOneSecond.replica)
    fail('reads still went to the stopped replica after 1 s');
  if (atTwoSeconds.primary <= atOneSecond.primary) fail('no reads on the primary after the stop');
  await standby('start', '-w');
  const restartedAt = Date.now();
  await within(10000, 'reads on the replica again after it returned', async () => {
    const now = await allReads();
    return now.replica > atTwoSeconds.replica;
  });
  say(
    `standby started again: reads on it after ${Date.now() - restartedAt} ms ` +
      `(${((restartedAt - stoppedAt) / 1000).toFixed(1)} s down)`,
  );
  let result = await traffic.stop();
  say(`load through the replica outage: ${result.done} requests, ${result.failed.length} failed`);
  for (const failure of result.failed.slice(0, 5)) fail(failure);

  // 5. Redis stopped under load (key A writes too).
  traffic = load(KEY_A, paths);
  await sleep(500);
  redis.child.kill('SIGTERM');
  await redis.exited;
  say('Redis stopped');
  await sleep(1000);
  const written = await call(one, 'POST', '/v1/store/orders', KEY_A, { petId, quantity: 2 });
  if (written.status !== 201) fail(`placeOrder with Redis down: ${written.status}`);
  const redisOne = await allReads();
  await sleep(1000);
  const redisTwo = await allReads();
  say(
    `Redis down: ${redisTwo.replica - redisOne.replica} reads on the replica, ` +
      `${redisTwo.primary - redisOne.primary} on the primary in 1 s`,
  );
  if (redisTwo.replica !== redisOne.replica) fail('reads went to the replica while Redis was down');
  const ownWhileDown = await call(two, 'GET', `/v1/store/orders/${written.json?.id}`, KEY_A);
  if (ownWhileDown.status !== 200)
    fail(`key A's order placed while Redis was down: ${ownWhileDown.status}`);
  startRedis();
  const redisBack = await within(
    10000,
    'reads on the replica again after Redis returned',
    async () => {
      const now = await allReads();
      return now.replica > redisTwo.replica;
    },
  );
  say(`Redis started again: reads on the replica after ${redisBack} ms`);
  result = await traffic.stop();
  say(`load through the Redis outage: ${result.done} requests, ${result.failed.length} failed`);
  for (const failure of result.failed.slice(0, 5)) fail(failure);

  // 6. e2e files with every app under test reading from the standby (test/support/replica.ts).
  await e2eWithReplica();
}

/**
 * The whole e2e suite (or the files of REPLICAS_E2E_TESTS), every app under test reading from
 * the standby. The files under test/process start service processes of their own, with the
 * settings they test, and those read from the primary.
 */
async function e2eWithReplica() {
  const files = (process.env.REPLICAS_E2E_TESTS ?? '').split(/\s+/).filter(Boolean);
  const started = Date.now();
  const log = openSync(`${work}/e2e.log`, 'a');
  const child = spawn(
    process.execPath,
    [
      '--experimental-vm-modules',
      '--no-warnings=ExperimentalWarning',
      'node_modules/jest/bin/jest.js',
      '--selectProjects',
      'e2e',
      '-w',
      '2',
      '--',
      ...files,
    ],
    {
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        DATABASE_URL: e2eAdminUrl,
        PETSTORE_TEST_REPLICA_URL: databaseUrlOf(standbyUrl, 'postgres'),
        PETSTORE_TEST_REPLICA_REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      },
    },
  );
  run.track(child);
  const code = await new Promise((resolve) => child.on('exit', resolve));
  const summary = readFileSync(`${work}/e2e.log`, 'utf8')
    .split('\n')
    .filter((line) => /^(Tests|Test Suites):/.test(line));
  say(
    `e2e with the replica (${files.length ? `${files.length} files` : 'the whole suite'}): exit ${code} in ${Date.now() - started} ms; ` +
      summary.join('; '),
  );
  if (code !== 0) {
    printTail('e2e log', `${work}/e2e.log`, 120);
    fail('the e2e files failed with the replica');
  }
}

function databaseUrlOf(serverUrl, database) {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

await runToVerdict(run, 'read replicas', main, {
  explain: () => {
    printInstanceStates(work, instances);
    printTail('standby log', `${work}/standby.log`);
  },
});
