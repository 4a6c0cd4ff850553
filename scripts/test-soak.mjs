// The soak of `npm run test:soak` (scripts/test-soak.sh prepares SOAK_WORK, the PostgreSQL
// cluster and nginx): two built instances behind nginx, a private Redis, 100 000 orders, then
// SOAK_SECONDS of mixed load over keep-alive connections: small reads and writes, full and
// abandoned listOrders streams, unauthenticated calls over their rate limit (429), a Redis
// restart and a PostgreSQL restart. Passes only when, after the load:
// - RSS and event-loop handles of each instance come back within 10 % of their level after
//   warm-up (within 30 s of the end of the load); both readings are of an idle instance after
//   forced collections (settle, scripts/lib/soak-gc-hook.mjs), so they count what is held;
// - each pool is back to idle and pg_stat_activity holds no connection left busy;
// - no request failed outside the PostgreSQL outage, and the only 5xx are 503s inside it;
// - each instance recovered within 5 s of each restart.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import {
  createRun,
  instanceEnv,
  printInstanceStates,
  printTable,
  runToVerdict,
  seedOrders,
  startInstance,
  stopCleanly,
  waitReady,
} from './lib/harness.mjs';
import { call as callOnce } from './lib/http-call.mjs';
import { GC_HOOK_ARGS, mb, measuredEnv, median, scrape, settle } from './lib/metrics.mjs';
import { startRedis as startRedisOn, waitRedis as waitRedisOn } from './lib/redis.mjs';
import { freePorts, startNginx } from './loopback-nginx.mjs';

const work = process.env.SOAK_WORK;
const nginxBin = process.env.SOAK_NGINX ?? 'nginx';
const pgPort = Number(process.env.SOAK_PG_PORT);
const pgCtl = process.env.SOAK_PG_CTL;
const SECONDS = Number(process.env.SOAK_SECONDS);
if (!work || !pgPort || !pgCtl || !(SECONDS >= 30 && SECONDS <= 600)) {
  console.error('run this through scripts/test-soak.sh (npm run test:soak)');
  process.exit(2);
}

const KEY = 'psk_soak-test-key-0123456789abcdefghij';
const AUTH = { authorization: `Bearer ${KEY}` };
const ORDERS = 100_000;
const POOL_SIZE = 5;
const RECOVERY_LIMIT_MS = 5000;
const GROWTH_LIMIT = 1.1;
const SETTLE_MS = 30000;
const WARMUP_S = Math.min(60, Math.max(20, Math.round(SECONDS * 0.2)));
const MIXED_WORKERS = 4;
const databaseUrl = `postgres://postgres@127.0.0.1:${pgPort}/petstore`;
const runId = Math.random().toString(36).slice(2, 10);

// The pause after warm-up, the settling after the load and the restarts come on top of the load.
const run = createRun({ work, watchdogMs: (SECONDS + 240) * 1000 });
const { t0, say, fail, track } = run;

function sh(command) {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', command], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command}: exit ${code} ${stderr.trim()}`)),
    );
  });
}

// ---- HTTP over keep-alive connections ----

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
const call = (options) => callOnce({ agent, ...options });

// ---- the service, Redis, PostgreSQL ----

const redis = { port: 0, child: null };
const redisPrefix = `soak:${runId}:`;

const startRedis = () => startRedisOn(run, { work, redis });
const waitRedis = () => waitRedisOn(redis.port);

function start(instance) {
  startInstance(run, {
    work,
    instance,
    // --expose-gc and the hook: test-only, so that readings count live memory, not garbage.
    nodeArgs: GC_HOOK_ARGS,
    env: {
      ...instanceEnv({
        databaseUrl,
        key: KEY,
        redisUrl: `redis://127.0.0.1:${redis.port}`,
        redisPrefix,
      }),
      ...measuredEnv(instance),
      DB_POOL_SIZE: String(POOL_SIZE),
      LOG_LEVEL: 'warn',
      // Keyed load is counted (in Redis) but never limited; calls without a key are, at 30/min.
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '30',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    },
  });
}

// ---- load ----

const outcomes = []; // { kind, started, ended, status, error, ok }
let running = true;

// The reading after warm-up is taken with the load paused, as the one after the load is taken
// with the load over: both of idle instances, so that requests in flight are not counted in one
// and missing from the other.
const WORKERS = MIXED_WORKERS + 2;
let pause = null; // { resumed, resume } while paused
let waiting = 0; // workers waiting at the pause
/** Whether a worker goes on; while the load is paused, it waits here first. */
async function going() {
  if (pause) {
    waiting++;
    await pause.resumed;
    waiting--;
  }
  return running;
}
async function pauseLoad() {
  let resume;
  pause = { resumed: new Promise((resolve) => (resume = resolve)) };
  pause.resume = resume;
  while (waiting < WORKERS) await sleep(50);
}
function resumeLoad() {
  pause.resume();
  pause = null;
}
let petId = 1;

function record(kind, outcome, ok) {
  outcomes.push({
    kind,
    started: outcome.started,
    ended: outcome.ended,
    status: outcome.status,
    error: outcome.error,
    ok,
  });
}

async function mixedWorker(nginxPort, index) {
  let n = 0;
  while (await going()) {
    n++;
    const pick = (n * 7 + index) % 10;
    if (pick < 4) {
      const o = await call({ port: nginxPort, path: '/v1/categories', headers: AUTH });
      record('GET /v1/categories', o, o.status === 200);
    } else if (pick < 6) {
      const o = await call({ port: nginxPort, path: `/v1/pets/${petId}`, headers: AUTH });
      record('GET /v1/pets/{id}', o, o.status === 200);
    } else {
      const placed = await call({
        port: nginxPort,
        method: 'POST',
        path: '/v1/store/orders',
        headers: AUTH,
        body: { petId, quantity: 1 },
      });
      record('POST /v1/store/orders', placed, placed.status === 201);
      if (placed.status === 201) {
        const { id } = JSON.parse(placed.body.toString('utf8'));
        const read = await call({ port: nginxPort, path: `/v1/store/orders/${id}`, headers: AUTH });
        record('GET /v1/store/orders/{id}', read, read.status === 200);
        const cancelled = await call({
          port: nginxPort,
          method: 'DELETE',
          path: `/v1/store/orders/${id}`,
          headers: AUTH,
        });
        record(
          'DELETE /v1/store/orders/{id}',
          cancelled,
          cancelled.status >= 200 && cancelled.status < 300,
        );
      }
    }
    await sleep(20);
  }
}

const streams = { full: 0, abandoned: 0, largest: 0 };
async function streamWorker(nginxPort) {
  let n = 0;
  while (await going()) {
    n++;
    if (n % 2 === 0) {
      // Halfway through a 100 000-order list (about 10 MB), the client hangs up.
      const o = await call({
        port: nginxPort,
        path: '/v1/store/orders',
        headers: AUTH,
        abandonAfter: 4 * 1024 * 1024,
        timeoutMs: 120000,
      });
      const ok = o.status === 200 && o.abandoned === true;
      if (ok) streams.abandoned++;
      record('listOrders, abandoned halfway', o, ok);
    } else {
      const o = await call({
        port: nginxPort,
        path: '/v1/store/orders',
        headers: AUTH,
        timeoutMs: 120000,
      });
      let count = -1;
      if (o.status === 200 && !o.error) {
        try {
          count = JSON.parse(o.body.toString('utf8')).length;
        } catch {
          count = -1;
        }
      }
      const ok = count >= ORDERS;
      if (ok) {
        streams.full++;
        streams.largest = Math.max(streams.largest, count);
      }
      record(
        'listOrders, read to the end',
        { ...o, error: o.error ?? (ok ? undefined : `${count} orders`) },
        ok,
      );
    }
    await sleep(300);
  }
}

async function limitedWorker(nginxPort) {
  while (await going()) {
    const o = await call({ port: nginxPort, path: '/v1/categories' });
    record('GET without a key (limited)', o, o.status === 401 || o.status === 429);
    await sleep(250);
  }
}

// ---- restarts ----

const windows = []; // { what, from, to } : outages
const recoveries = []; // { what, instance, ms }

async function restartRedis(instances) {
  say('Redis: SIGTERM');
  const from = Date.now();
  redis.child.kill('SIGTERM');
  await redis.exited;
  await sleep(1000);
  startRedis();
  await waitRedis();
  const up = Date.now();
  say(`Redis: back after ${up - from} ms; waiting for each instance to count in it again`);
  const client = new Redis({ port: redis.port, maxRetriesPerRequest: 1 });
  client.on('error', () => undefined);
  let probe = 0;
  try {
    await Promise.all(
      instances.map(async (instance, i) => {
        const deadline = up + 15000;
        while (Date.now() < deadline) {
          // A call without a key from an address of its own: counted per address, in Redis.
          const address = `10.77.${i}.${++probe % 250}`;
          await call({
            port: instance.port,
            path: '/v1/categories',
            headers: { 'x-forwarded-for': address },
            timeoutMs: 2000,
          });
          const keys = await client.keys(`${redisPrefix}*${address}*`).catch(() => []);
          if (keys.length > 0) {
            recoveries.push({ what: 'Redis', instance: instance.name, ms: Date.now() - up });
            return;
          }
          await sleep(50);
        }
        recoveries.push({ what: 'Redis', instance: instance.name, ms: Number.POSITIVE_INFINITY });
      }),
    );
  } finally {
    client.disconnect();
  }
  windows.push({ what: 'Redis', from, to: Date.now() });
}

async function restartPostgres(instances, nginxPort) {
  say('PostgreSQL: pg_ctl stop -m fast');
  const from = Date.now();
  await sh(`${pgCtl} stop -m fast -w`);
  await sleep(2000);
  await sh(`${pgCtl} start -w`);
  const up = Date.now();
  say(`PostgreSQL: back after ${up - from} ms; waiting for each instance to serve again`);
  await Promise.all(
    instances.map(async (instance) => {
      const deadline = up + 15000;
      while (Date.now() < deadline) {
        const o = await call({
          port: instance.port,
          path: '/v1/categories',
          headers: AUTH,
          timeoutMs: 3000,
        });
        if (o.status === 200) {
          recoveries.push({ what: 'PostgreSQL', instance: instance.name, ms: Date.now() - up });
          return;
        }
        await sleep(50);
      }
      recoveries.push({
        what: 'PostgreSQL',
        instance: instance.name,
        ms: Number.POSITIVE_INFINITY,
      });
    }),
  );
  // nginx stops sending to a replica that failed for fail_timeout: clients see the recovery
  // once it sends again. The outage, for the requests it excuses, ends there.
  const deadline = up + 15000;
  let through = Number.POSITIVE_INFINITY;
  while (Date.now() < deadline) {
    const o = await call({
      port: nginxPort,
      path: '/v1/categories',
      headers: AUTH,
      timeoutMs: 3000,
    });
    if (o.status === 200) {
      through = Date.now() - up;
      break;
    }
    await sleep(50);
  }
  recoveries.push({ what: 'PostgreSQL', instance: 'through nginx', ms: through });
  windows.push({ what: 'PostgreSQL', from, to: Date.now() });
}

// ---- the run ----

/** The two instances: module-level, so that a failed run can say how each is doing. */
const instances = [];

async function main() {
  const ports = await freePorts(8);
  redis.port = ports[0];
  startRedis();
  await waitRedis();
  say(`Redis on 127.0.0.1:${redis.port}`);

  instances.push({ name: 'a', port: ports[1], metricsPort: ports[2], gcPort: ports[6] });
  instances.push({ name: 'b', port: ports[3], metricsPort: ports[4], gcPort: ports[7] });
  for (const instance of instances) start(instance);
  await Promise.all(instances.map((instance) => waitReady(run, instance, 90000)));
  say('both instances ready');

  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    // The service makes DB_STATEMENT_TIMEOUT_MS the role's setting; seeding may take longer.
    petId = await seedOrders(db, ORDERS);
  } finally {
    await db.end();
  }
  say(`${ORDERS} orders inserted`);

  const nginxPort = ports[5];
  const nginx = await startNginx({
    nginxBin,
    dir: `${work}/nginx`,
    nginxPort,
    ports: instances.map((instance) => instance.port),
    failTimeoutS: 2,
    track,
    say,
  });

  let loadStart = Date.now();
  const at = (seconds) => sleep(Math.max(0, loadStart + seconds * 1000 - Date.now()));
  say(
    `load for ${SECONDS}s (warm-up ${WARMUP_S}s): ${MIXED_WORKERS} mixed workers, 1 stream, 1 over its limit`,
  );
  const workers = [
    // WORKERS of them
    ...Array.from({ length: MIXED_WORKERS }, (_, i) => mixedWorker(nginxPort, i)),
    streamWorker(nginxPort),
    limitedWorker(nginxPort),
  ];

  await at(WARMUP_S);
  // Warm means every kind of work has run a few times, the long streams included (on a loaded
  // machine they are slow): their buffers set the memory the process settles at.
  while ((streams.full < 2 || streams.abandoned < 2) && Date.now() - loadStart < SECONDS * 400) {
    await sleep(200);
  }
  const warmedUp = (Date.now() - loadStart) / 1000;
  const pausedAt = Date.now();
  await pauseLoad();
  say(
    `load paused after ${warmedUp.toFixed(0)}s of warm-up (in flight: ${Date.now() - pausedAt} ms)`,
  );
  const baseline = {};
  await Promise.all(
    instances.map(async (instance) => {
      const s = await settle(instance);
      baseline[instance.name] = s;
      say(`after warm-up, ${instance.name}: RSS ${mb(s.rss)}, handles ${s.handles}`);
    }),
  );
  resumeLoad();
  // The pause does not count as load: the schedule moves on by its length.
  loadStart += Date.now() - pausedAt;
  const measured = SECONDS - warmedUp;
  await at(warmedUp + measured * 0.3);
  await restartRedis(instances);
  await at(warmedUp + measured * 0.6);
  await restartPostgres(instances, nginxPort);
  await at(SECONDS);
  running = false;
  say('load stopping');
  await Promise.all(workers);
  agent.destroy();
  say('load stopped');

  // ---- checks ----
  // "Come back": each instance gets up to SETTLE_MS after the load to return within the limit
  // (readings as after warm-up, see settle); a leak never does.
  const after = {};
  const settleStart = Date.now();
  await Promise.all(
    instances.map(async (instance) => {
      let e = await settle(instance);
      const b = baseline[instance.name];
      const back = () => e.rss <= b.rss * GROWTH_LIMIT && e.handles <= b.handles * GROWTH_LIMIT;
      while (!back() && Date.now() - settleStart < SETTLE_MS) e = await settle(instance);
      after[instance.name] = { ...e, after: Date.now() - settleStart };
    }),
  );

  const pools = {};
  for (const instance of instances) {
    const deadline = Date.now() + 10000;
    let s = await scrape(instance);
    while ((s.used > 0 || s.pending > 0) && Date.now() < deadline) {
      await sleep(200);
      s = await scrape(instance);
    }
    pools[instance.name] = s;
  }
  const check = new pg.Client({ connectionString: databaseUrl, application_name: 'soak-check' });
  await check.connect();
  const activity = (
    await check.query(
      `SELECT state, count(*)::int AS n, count(*) FILTER (WHERE now() - state_change > interval '1 second')::int AS stuck
       FROM pg_stat_activity WHERE application_name = 'petstore-api' GROUP BY state`,
    )
  ).rows;
  await check.end();
  const backends = activity.reduce((sum, row) => sum + row.n, 0);
  const busy = activity
    .filter((row) => row.state !== 'idle')
    .reduce((sum, row) => sum + row.stuck, 0);

  const inWindow = (o, what) =>
    windows.some((w) => (!what || w.what === what) && o.started <= w.to && o.ended >= w.from);
  const failed = outcomes.filter((o) => !o.ok);
  const outside = failed.filter((o) => !inWindow(o, 'PostgreSQL'));
  const inside = failed.filter((o) => inWindow(o, 'PostgreSQL'));
  const bad5xx = outcomes.filter(
    (o) => o.status >= 500 && !(o.status === 503 && inWindow(o, 'PostgreSQL')),
  );
  const insideNot503 = inside.filter(
    (o) => o.status !== 503 && !(o.kind.startsWith('listOrders') && o.status === 200),
  );

  // ---- the tables ----
  const kinds = [...new Set(outcomes.map((o) => o.kind))];
  const rows = kinds.map((kind) => {
    const of = outcomes.filter((o) => o.kind === kind);
    const statuses = {};
    for (const o of of) {
      const key = o.error ? `error ${o.error}` : String(o.status);
      statuses[key] = (statuses[key] ?? 0) + 1;
    }
    return [kind, of.length, of.filter((o) => o.ok).length, JSON.stringify(statuses)];
  });
  const durations = outcomes
    .filter((o) => o.kind === 'GET /v1/categories' && o.ok)
    .map((o) => o.ended - o.started);

  console.log(
    `\n== soak: ${SECONDS}s of load (warm-up ${warmedUp.toFixed(0)}s), ${outcomes.length} requests`,
  );
  printTable(['requests', 'sent', 'as expected', 'answers'], rows);
  console.log('');
  const checks = [];
  const add = (figure, value, limit, ok) => {
    checks.push([figure, value, limit, ok ? 'ok' : 'FAIL']);
    if (!ok) fail(`${figure}: ${value} (limit ${limit})`);
  };
  for (const instance of instances) {
    const b = baseline[instance.name];
    const e = after[instance.name];
    add(
      `${instance.name}: RSS after warm-up → after the load`,
      `${mb(b.rss)} → ${mb(e.rss)} (${((e.rss / b.rss - 1) * 100).toFixed(1)} %, ${(e.after / 1000).toFixed(0)} s after the load)`,
      '+10 %',
      e.rss <= b.rss * GROWTH_LIMIT,
    );
    checks.push([
      `${instance.name}: V8 heap used / heap total / external (after GC)`,
      `${mb(b.heap)} → ${mb(e.heap)} / ${mb(b.heapTotal)} → ${mb(e.heapTotal)} / ${mb(b.external)} → ${mb(e.external)}`,
      '-',
      '',
    ]);
    add(
      `${instance.name}: event-loop handles`,
      `${b.handles} → ${e.handles}`,
      '+10 %',
      e.handles <= b.handles * GROWTH_LIMIT,
    );
    const p = pools[instance.name];
    add(
      `${instance.name}: pool used / idle / waiting`,
      `${p.used} / ${p.idle} / ${p.pending}`,
      'used 0, waiting 0',
      p.used === 0 && p.pending === 0,
    );
  }
  add(
    'pg_stat_activity: service connections / busy for over 1 s',
    `${backends} / ${busy}`,
    `≤ ${2 * POOL_SIZE} / 0`,
    backends <= 2 * POOL_SIZE && busy === 0,
  );
  for (const r of recoveries) {
    add(
      `${r.instance}: recovery after the ${r.what} restart`,
      Number.isFinite(r.ms) ? `${r.ms} ms` : 'never (15 s)',
      `${RECOVERY_LIMIT_MS} ms`,
      r.ms <= RECOVERY_LIMIT_MS,
    );
  }
  add('failed requests outside the PostgreSQL outage', outside.length, '0', outside.length === 0);
  add(
    'failed during the PostgreSQL outage (503s, cut streams)',
    inside.length,
    'only 503 or a cut stream',
    insideNot503.length === 0,
  );
  add('5xx other than 503 during the PostgreSQL outage', bad5xx.length, '0', bad5xx.length === 0);
  add(
    '429 answers (over the limit)',
    outcomes.filter((o) => o.status === 429).length,
    '> 0',
    outcomes.some((o) => o.status === 429),
  );
  add(
    'listOrders read to the end / abandoned halfway',
    `${streams.full} / ${streams.abandoned} (largest ${streams.largest})`,
    '≥ 1 / ≥ 1',
    streams.full >= 1 && streams.abandoned >= 1,
  );
  checks.push([
    'GET /v1/categories latency p50 / p99',
    `${median(durations)} ms / ${[...durations].sort((x, y) => x - y)[Math.floor(durations.length * 0.99)]} ms`,
    '-',
    '',
  ]);
  printTable(['figure', 'value', 'limit', ''], checks);
  for (const o of outside.slice(0, 10)) {
    console.log(
      `  failed outside the outage: ${o.kind} at ${((o.started - t0) / 1000).toFixed(1)}s: ${o.error ?? o.status}`,
    );
  }

  // The cause of a 5xx is in the instance's own log; CI keeps no scratch folder, so say it here.
  if (bad5xx.length > 0) {
    for (const instance of instances) {
      const errors = readFileSync(`${work}/${instance.name}.log`, 'utf8')
        .split('\n')
        .filter((line) => line.includes('"level":50') && line.includes('"stack"'));
      for (const line of errors.slice(0, 3))
        console.log(`  ${instance.name}: ${line.slice(0, 900)}`);
    }
  }

  await stopCleanly(run, nginx, instances);
}

await runToVerdict(run, 'soak', main, {
  stopped: () => (running = false),
  explain: () => printInstanceStates(work, instances),
});
