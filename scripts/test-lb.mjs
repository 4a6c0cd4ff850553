// The rolling restart of `npm run test:lb` (scripts/test-lb.sh prepares LB_WORK, the database
// and nginx): two instances started at once (migration lock), nginx in front running
// deploy/nginx/nginx.conf with loopback addresses, steady load through nginx, then each
// instance in turn sent SIGTERM, waited for (exit code 0) and started again.
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';
import {
  createRun,
  describeExit,
  instanceEnv,
  printTail,
  runToVerdict,
  startInstance,
  waitReady,
} from './lib/harness.mjs';
import { freePorts, startNginx } from './loopback-nginx.mjs';

const work = process.env.LB_WORK;
const databaseUrl = process.env.LB_DATABASE_URL;
const redisUrl = process.env.LB_REDIS_URL ?? '';
const nginxBin = process.env.LB_NGINX ?? 'nginx';
if (!work || !databaseUrl) {
  console.error('run this through scripts/test-lb.sh (npm run test:lb)');
  process.exit(2);
}

const KEY = 'psk_lb-rolling-restart-key-0123456789';
const DRAIN_MS = 2000; // SHUTDOWN_DRAIN_DELAY_MS of the instances
const SHUTDOWN_TIMEOUT_MS = 10000; // SHUTDOWN_TIMEOUT_MS of the instances
const FAIL_TIMEOUT_S = DRAIN_MS / 1000; // nginx fail_timeout, matched to the drain delay
const CONNECTIONS = 20;
const RATE = 300; // requests per second, over all connections: steady, not saturating 2 cores
const START_DEADLINE_MS = 60000;
const WATCHDOG_MS = 110000; // the whole run; well under CI's 2 minutes with setup
// nginx error-log lines of a request a replica dropped after nginx had sent it.
const DROPPED = /\(104: Connection reset by peer\)|prematurely closed|\(32: Broken pipe\)/;
const runId = Math.random().toString(36).slice(2, 10);
const fetch = globalThis.fetch;

const run = createRun({ work, watchdogMs: WATCHDOG_MS });
const { say, fail } = run;

/** Status of a GET, or the error code when there was no answer. */
async function probe(url, headers = {}) {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    return error.cause?.code ?? error.name ?? 'error';
  }
}

// ---- instances ----

function start(instance) {
  startInstance(run, {
    work,
    instance,
    env: {
      ...instanceEnv({ databaseUrl, key: KEY, redisUrl }),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '0',
      SHUTDOWN_DRAIN_DELAY_MS: String(DRAIN_MS),
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    },
  });
}

/** Whether the instance became ready; a failure is recorded when it did not. */
async function becameReady(instance) {
  try {
    await waitReady(run, instance, START_DEADLINE_MS);
    return true;
  } catch (error) {
    fail(error.message);
    return false;
  }
}

const exitCodes = [];

/** SIGTERM, readiness must turn 503 at once, then the process must exit 0 in time. */
async function terminate(instance, phase) {
  const sentAt = Date.now();
  instance.child.kill('SIGTERM');
  say(`SIGTERM ${instance.name} (pid ${instance.child.pid})`);
  await sleep(Math.min(300, DRAIN_MS / 4));
  const ready = await probe(`http://127.0.0.1:${instance.port}/health/ready`);
  say(`${instance.name} /health/ready right after SIGTERM: ${ready}`);
  if (ready !== 503)
    fail(`${instance.name}: /health/ready answered ${ready} after SIGTERM, not 503`);
  const result = await Promise.race([
    instance.exited,
    sleep(SHUTDOWN_TIMEOUT_MS + 5000).then(() => null),
  ]);
  if (!result) {
    fail(`${instance.name} did not exit within ${SHUTDOWN_TIMEOUT_MS / 1000 + 5}s of SIGTERM`);
    instance.child.kill('SIGKILL');
    await instance.exited;
    exitCodes.push(`${instance.name} ${phase}: killed after timeout`);
    return;
  }
  const took = Date.now() - sentAt;
  say(`${instance.name} exited: ${describeExit(result)} after ${took} ms`);
  exitCodes.push(`${instance.name} ${phase}: ${describeExit(result)} after ${took} ms`);
  if (result.signal || result.code !== 0)
    fail(`${instance.name} ${phase}: ${describeExit(result)}`);
  if (took < DRAIN_MS) {
    say(`note: ${instance.name} exited before the ${DRAIN_MS} ms drain delay was over`);
  }
}

// ---- load ----

const REQUESTS = [
  ['GET', '/v1/categories'],
  ['GET', '/v1/store/orders'],
  ['GET', '/v1/pets/1'],
];

function startLoad(nginxPort) {
  const byKind = {}; // "GET /v1/pets/1" -> { status -> count }
  const tally = (kind, status) => {
    byKind[kind] ??= {};
    byKind[kind][status] = (byKind[kind][status] ?? 0) + 1;
  };
  const errors = {};
  let posted = 0;
  const requests = [];
  // Per connection, a cycle of 3 x (the three GETs) then one POST with a unique name: a POST
  // applied twice (a retry nginx must not make) would come back 409 CATEGORY_EXISTS.
  for (let i = 0; i < 3; i++) {
    for (const [method, path] of REQUESTS) {
      requests.push({ method, path, onResponse: (status) => tally(`${method} ${path}`, status) });
    }
  }
  requests.push({
    method: 'POST',
    path: '/v1/categories',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    setupRequest: (request) => ({
      ...request,
      body: JSON.stringify({ name: `lb-${runId}-${++posted}`, description: 'rolling restart' }),
    }),
    onResponse: (status) => tally('POST /v1/categories', status),
  });
  let finish;
  const done = new Promise((resolve, reject) => {
    finish = { resolve, reject };
  });
  const instance = autocannon(
    {
      url: `http://127.0.0.1:${nginxPort}`,
      connections: CONNECTIONS,
      overallRate: RATE,
      duration: WATCHDOG_MS / 1000,
      timeout: 10,
      headers: { authorization: `Bearer ${KEY}` },
      requests,
    },
    (error, result) => (error ? finish.reject(error) : finish.resolve(result)),
  );
  instance.on('reqError', (error) => {
    const code = error?.code ?? error?.message ?? 'unknown';
    errors[code] = (errors[code] ?? 0) + 1;
  });
  return { instance, done, byKind, errors, posted: () => posted };
}

// ---- the run ----

async function main() {
  const [portA, portB, nginxPort] = await freePorts(3);
  const a = { name: 'a', port: portA };
  const b = { name: 'b', port: portB };

  say(`two instances at once on ${portA} and ${portB} (fresh database: the migration lock)`);
  start(a);
  start(b);
  const [readyA, readyB] = await Promise.all([becameReady(a), becameReady(b)]);
  if (!readyA || !readyB) return;

  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const twice = await db.query(
      'SELECT name FROM typeorm_migrations GROUP BY name HAVING count(*) > 1',
    );
    const { rows } = await db.query('SELECT count(*)::int AS n FROM categories');
    say(
      `migrations applied twice: ${twice.rowCount}; categories after the demo seed: ${rows[0].n}`,
    );
    if (twice.rowCount > 0) fail('a migration was applied twice');
    if (rows[0].n !== 3) fail(`the demo data was loaded ${rows[0].n / 3} times, not once`);
  } finally {
    await db.end();
  }

  const nginx = await startNginx({
    nginxBin,
    dir: `${work}/nginx`,
    nginxPort,
    ports: [portA, portB],
    failTimeoutS: FAIL_TIMEOUT_S,
    track: run.track,
    say,
  });
  const through = await probe(`http://127.0.0.1:${nginxPort}/v1/pets/1`, {
    authorization: `Bearer ${KEY}`,
  });
  if (through !== 200) throw new Error(`GET /v1/pets/1 through nginx answered ${through}`);

  // The wall clock too: nginx's error log has only that, to place its lines on this timeline.
  say(
    `load: ${CONNECTIONS} connections, ${RATE} requests/s through nginx (at ${new Date().toISOString()})`,
  );
  const load = startLoad(nginxPort);
  await sleep(2000);

  for (const instance of [a, b]) {
    await terminate(instance, 'rolling restart');
    start(instance);
    if (!(await becameReady(instance))) break;
    // Back in nginx's rotation once fail_timeout has passed since its last failure.
    await sleep(FAIL_TIMEOUT_S * 1000 + 1500);
  }

  load.instance.stop();
  const result = await load.done;
  say('load stopped');

  // Every POST answered 201 has its category (a POST sent twice would have come back 409).
  const db2 = new pg.Client({ connectionString: databaseUrl });
  await db2.connect();
  const created = (
    await db2.query(
      "SELECT count(*)::int AS n FROM categories WHERE name LIKE 'lb-' || $1 || '-%'",
      [runId],
    )
  ).rows[0].n;
  await db2.end();

  // nginx's view: which replica served what, and how many requests it passed to a second one.
  const accessLog = existsSync(`${work}/nginx/access.log`)
    ? readFileSync(`${work}/nginx/access.log`, 'utf8').trim().split('\n')
    : [];
  const perUpstream = {};
  let retried = 0;
  const nginxErrors = []; // answers nginx made up because no replica answered
  for (const line of accessLog) {
    const upstream = /upstream=(\S+(?:, \S+)*) upstream_status/.exec(line)?.[1] ?? '-';
    if (upstream.includes(',')) retried++;
    const upstreamStatus = /upstream_status=(\S+(?:, \S+)*) upstream_time/.exec(line)?.[1] ?? '-';
    const status = / (\d{3}) \d+ [\d.]+ upstream=/.exec(line)?.[1];
    if (status !== '499' && /\b50[24]\b|-/.test(upstreamStatus.split(', ').at(-1))) {
      nginxErrors.push(line);
    }
    const last = upstream.split(', ').at(-1);
    const label = last === `127.0.0.1:${portA}` ? 'a' : last === `127.0.0.1:${portB}` ? 'b' : last;
    perUpstream[label] = (perUpstream[label] ?? 0) + 1;
  }

  // nginx's upstream failures: a refused connection is harmless (nothing was sent, any request
  // goes to the other replica); a reset or close after sending is retried only for GET & co.
  const errorLog = existsSync(`${work}/nginx/error.log`)
    ? readFileSync(`${work}/nginx/error.log`, 'utf8')
    : '';
  // nginx writes one line per failure.
  const droppedLines = errorLog.split('\n').filter((line) => DROPPED.test(line));
  const upstreamFailures = {
    refused: (errorLog.match(/connect\(\) failed \(111/g) ?? []).length,
    'reset or closed after the request was sent': droppedLines.length,
    timeouts: (errorLog.match(/timed out/g) ?? []).length,
  };

  for (const instance of [a, b]) await terminate(instance, 'final stop');
  nginx.child.kill('SIGQUIT');
  const nginxExit = await Promise.race([nginx.exited, sleep(10000).then(() => null)]);
  exitCodes.push(`nginx: ${nginxExit ? describeExit(nginxExit) : 'did not stop within 10s'}`);
  if (!nginxExit || nginxExit.code !== 0) fail('nginx did not stop cleanly');

  const statuses = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([status, { count }]) => [status, count]),
  );
  const non2xx = Object.entries(statuses).filter(([status]) => !status.startsWith('2'));
  const resets = Object.entries(load.errors)
    .filter(([code]) => /RESET|EPIPE|hang up|closed/i.test(code))
    .reduce((sum, [, n]) => sum + n, 0);
  const posts201 = load.byKind['POST /v1/categories']?.[201] ?? 0;

  console.log('\n== rolling restart results');
  console.log(`requests completed: ${result.requests.total} in ${result.duration}s`);
  console.log(`2xx: ${result['2xx']}   non-2xx: ${result.non2xx}`);
  console.log(`by status: ${JSON.stringify(statuses)}`);
  for (const [kind, counts] of Object.entries(load.byKind)) {
    console.log(`  ${kind.padEnd(22)} ${JSON.stringify(counts)}`);
  }
  console.log(`errors: ${result.errors}   timeouts: ${result.timeouts}   resets: ${resets}`);
  if (Object.keys(load.errors).length > 0)
    console.log(`errors by code: ${JSON.stringify(load.errors)}`);
  const postAnswers = Object.values(load.byKind['POST /v1/categories'] ?? {}).reduce(
    (x, y) => x + y,
    0,
  );
  console.log(
    `POST /v1/categories: ${load.posted()} sent, ${postAnswers} answered (${posts201} with 201), ` +
      `${created} created (${load.posted() - postAnswers} unanswered: in flight when the load stopped, or failed)`,
  );
  console.log(
    `nginx: requests served by ${JSON.stringify(perUpstream)}; passed to a second replica: ${retried}`,
  );
  console.log(`nginx upstream failures: ${JSON.stringify(upstreamFailures)}`);
  if (nginxErrors.length > 0) {
    console.log(`nginx answered itself (no replica answered) ${nginxErrors.length} times:`);
    for (const line of nginxErrors.slice(0, 5)) console.log(`  ${line}`);
  }
  console.log(
    `latency ms: p50 ${result.latency.p50}, p99 ${result.latency.p99}, max ${result.latency.max}`,
  );
  console.log(`exit codes:\n  ${exitCodes.join('\n  ')}`);

  if (result.requests.total < 500) fail(`only ${result.requests.total} requests completed`);
  if (result.errors > 0 || result.timeouts > 0) {
    fail(`${result.errors} request errors (${result.timeouts} timeouts, ${resets} resets)`);
  }
  if (non2xx.length > 0) fail(`non-2xx answers: ${JSON.stringify(Object.fromEntries(non2xx))}`);
  // A reset after nginx sent the request is a request the service dropped: nginx retried it
  // only because it was a GET; the same moment would have failed a POST.
  const dropped = upstreamFailures['reset or closed after the request was sent'];
  if (dropped > 0) {
    // Each one, with its time and connection, since the error log's tail may not reach them.
    for (const line of droppedLines) console.log(`  ${line}`);
    fail(`nginx saw ${dropped} requests dropped by a replica (reset or closed after sending)`);
  }
  if (created < posts201) fail(`${created} categories created for ${posts201} answers 201`);
}

await runToVerdict(run, 'rolling restart', main, {
  explain: () => {
    for (const name of ['a', 'b']) {
      printTail(`last lines of instance ${name}'s log (LOG_LEVEL=warn)`, `${work}/${name}.log`);
    }
    printTail("last lines of nginx's error log", `${work}/nginx/error.log`);
  },
});
