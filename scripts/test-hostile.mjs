// The scenarios of `npm run test:hostile` (scripts/test-hostile.sh prepares HOSTILE_WORK, the
// PostgreSQL cluster and nginx): two built instances behind nginx running
// deploy/nginx/nginx.conf on loopback, a private Redis, and hostile clients. Each scenario
// prints its figures (value and limit) and passes or fails on its own; HOSTILE_ONLY picks some.
import { randomBytes, createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import {
  createRun,
  describeExit,
  fileText,
  instanceEnv,
  printTable,
  printTail,
  runToVerdict,
  seedOrders,
  startInstance,
  stopCleanly,
  waitReady,
} from './lib/harness.mjs';
import { call as callOnce } from './lib/http-call.mjs';
import { collect, GC_HOOK_ARGS, mb, measuredEnv, scrape, settle } from './lib/metrics.mjs';
import { startRedis, waitRedis } from './lib/redis.mjs';
import { freePorts, startNginx } from './loopback-nginx.mjs';

const work = process.env.HOSTILE_WORK;
const nginxBin = process.env.HOSTILE_NGINX ?? 'nginx';
const pgPort = Number(process.env.HOSTILE_PG_PORT);
if (!work || !pgPort) {
  console.error('run this through scripts/test-hostile.sh (npm run test:hostile)');
  process.exit(2);
}

// The instances' request timeout, small so that slow bodies are cut within the test, and not
// below HEADERS_TIMEOUT_MS (the service refuses that; its default is 10 s where it reads
// REQUEST_TIMEOUT_MS, src/config/config-variables.ts). A service that does not know the variable
// ignores it, and slow bodies stay open. HOSTILE_ENV adds other variables (or another value).
const REQUEST_TIMEOUT_MS = 10000;
const TIMEOUT_ENV = { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) };
const EXTRA_ENV = Object.fromEntries(
  (process.env.HOSTILE_ENV ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

const NODE_ARGS = (process.env.HOSTILE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

const databaseUrl = `postgres://postgres@127.0.0.1:${pgPort}/petstore`;
const statsUrl = `postgres://postgres@127.0.0.1:${pgPort}/postgres`; // not counted in petstore's
const runId = Math.random().toString(36).slice(2, 10);
const newKey = () => `psk_${randomBytes(32).toString('base64url')}`;
const KEY = newKey(); // BOOTSTRAP_API_KEY
const AUTH = { authorization: `Bearer ${KEY}` };

const run = createRun({ work, watchdogMs: 6 * 60 * 1000 });
const { say, fail, failures, track } = run;

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const call = (options) => callOnce({ agent, ...options });

const instances = [];
const redis = { port: 0 };
let nginxPort = 0;
let petId = 0;

function start(instance) {
  startInstance(run, {
    work,
    instance,
    // Forced collections before each memory reading (test-only, scripts/lib/soak-gc-hook.mjs).
    // HOSTILE_NODE_ARGS: Node options for the instances (say, --cpu-prof --cpu-prof-dir=…).
    nodeArgs: [...GC_HOOK_ARGS, ...NODE_ARGS],
    env: {
      ...instanceEnv({
        databaseUrl,
        key: KEY,
        redisUrl: `redis://127.0.0.1:${redis.port}`,
        redisPrefix: `hostile:${runId}:`,
      }),
      ...measuredEnv(instance),
      // Request lines are needed: scenarios read them.
      LOG_LEVEL: 'info',
      // Keyed load is never limited by the per-minute limit; calls without a valid key keep
      // the default limit (60 a minute per address).
      RATE_LIMIT_PER_MINUTE: '1000000',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
      // Events are recorded (the outbox), not sent: nothing receives them here.
      WEBHOOK_DISPATCHER: 'false',
      ...TIMEOUT_ENV,
      ...EXTRA_ENV,
    },
  });
}

/** API keys made directly in the database, as `npm run apikey` would. */
async function insertKeys(db, keys) {
  for (const [name, key] of Object.entries(keys)) {
    await db.query('INSERT INTO api_keys (name, prefix, key_hash) VALUES ($1, $2, $3)', [
      `hostile ${name}`,
      key.slice(0, 12),
      createHash('sha256').update(key, 'utf8').digest('hex'),
    ]);
  }
}

/** `use(db)` with a client of the service's database, closed after. */
async function withDb(use) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    return await use(db);
  } finally {
    await db.end();
  }
}

const countOf = (text, pattern) => (text.match(pattern) ?? []).length;
const tally = (items, keyOf) => {
  const counts = {};
  for (const item of items) counts[keyOf(item)] = (counts[keyOf(item)] ?? 0) + 1;
  return counts;
};
const outcomeKey = (o) => (o.error ? `error ${o.error}` : String(o.status));
const percentile = (values, p) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
};

/** Whether a body is the Error body: exactly code, message and status, the status the answer's. */
function isErrorBody(text, status) {
  try {
    const body = JSON.parse(text);
    return (
      typeof body === 'object' &&
      body !== null &&
      Object.keys(body).sort().join() === 'code,message,status' &&
      typeof body.code === 'string' &&
      typeof body.message === 'string' &&
      body.status === status
    );
  } catch {
    return false;
  }
}

// ---- the scenarios ----
// Each gets `check(figure, value, limit, ok)`, records its figures, and may throw (a failure).
// They are numbered as in the issue; slow-bodies runs first, before anything else has moved the
// instances' memory (the 200 000-order lists leave tens of MB that V8 gives back only later).

const SCENARIOS = [
  {
    name: 'slow-bodies',
    title: '2. 200 slow request bodies, direct and through nginx',
    run: slowBodies,
  },
  {
    name: 'fair-shares',
    title: '1. one key with 30 long lists, other keys unharmed',
    run: fairShares,
  },
  { name: 'key-flood', title: '3. 4 000 random well-formed keys through nginx', run: keyFlood },
  { name: 'unicode', title: '4. Unicode and I-JSON', run: unicode },
  {
    name: 'client-errors',
    title: "5. requests Node's parser refuses, over raw sockets",
    run: clientErrors,
  },
  {
    name: 'key-in-logs',
    title: '6. a key as X-Request-Id and in a path, never logged',
    run: keyInLogs,
  },
  { name: 'kill-9', title: '7. kill -9 of an instance under order load', run: killNine },
  {
    name: 'aborted-posts',
    title: '8. 50 POSTs cut mid-body: truthful log lines',
    run: abortedPosts,
  },
];

// 1 ------------------------------------------------------------------------------------------

const ORDERS = 200_000;
const STREAMS = 30;
const FAIR_WINDOW_MS = 15000;
const OTHER_KEYS = 8;

/** A GET of the whole order list read slowly (a chunk every 50 ms) until the window ends. */
function slowList(greedyKey, until) {
  return new Promise((resolve) => {
    const started = Date.now();
    let bytes = 0;
    const request = http.request(
      {
        host: '127.0.0.1',
        port: nginxPort,
        path: '/v1/store/orders',
        headers: { authorization: `Bearer ${greedyKey}` },
        agent: false,
      },
      (response) => {
        const status = response.statusCode;
        const finish = (how) => {
          clearTimeout(stop);
          resolve({ status, how, bytes, ms: Date.now() - started });
        };
        const stop = setTimeout(
          () => {
            request.destroy();
            finish('open at the end of the window');
          },
          Math.max(0, until - Date.now()),
        );
        response.on('data', (chunk) => {
          bytes += chunk.length;
          response.pause();
          setTimeout(() => response.resume(), 50).unref();
        });
        response.on('end', () => finish('read to the end'));
        response.on('error', () => finish('cut'));
        response.on('aborted', () => finish('cut'));
      },
    );
    request.on('error', (error) =>
      resolve({ error: error.code ?? error.message, bytes, ms: Date.now() - started }),
    );
    request.end();
  });
}

async function fairShares(check, keys) {
  const errorLog = `${work}/nginx/error.log`;
  const before = fileText(errorLog);
  const until = Date.now() + FAIR_WINDOW_MS;
  const firstWave = [];
  const allStreams = [];
  const streamWorker = async (i) => {
    let first = true;
    while (Date.now() < until - 500) {
      const o = await slowList(keys.greedy, until);
      allStreams.push(o);
      if (first) firstWave[i] = o;
      first = false;
      if (o.status !== 200) await sleep(200);
    }
  };
  const others = [];
  const otherWorker = async (key, index) => {
    const headers = { authorization: `Bearer ${key}` };
    let n = index;
    while (Date.now() < until) {
      n++;
      let o;
      if (n % 3 === 0) {
        o = await call({
          port: nginxPort,
          method: 'POST',
          path: '/v1/store/orders',
          headers,
          body: { petId, quantity: 1 },
        });
        others.push({ kind: 'POST /v1/store/orders', ok: o.status === 201, ...o });
      } else if (n % 3 === 1) {
        o = await call({ port: nginxPort, path: '/v1/categories', headers });
        others.push({ kind: 'GET /v1/categories', ok: o.status === 200, ...o });
      } else {
        o = await call({ port: nginxPort, path: `/v1/pets/${petId}`, headers });
        others.push({ kind: 'GET /v1/pets/{id}', ok: o.status === 200, ...o });
      }
      await sleep(10);
    }
  };
  say(
    `${STREAMS} slow listOrders from one key, ${OTHER_KEYS * 2} workers on ${OTHER_KEYS} other keys, ${FAIR_WINDOW_MS / 1000}s`,
  );
  const started = Date.now();
  await Promise.all([
    ...Array.from({ length: STREAMS }, (_, i) => streamWorker(i)),
    ...keys.others.flatMap((key, i) => [otherWorker(key, i), otherWorker(key, i + 1)]),
  ]);
  const seconds = (Date.now() - started) / 1000;
  await sleep(1000);
  const added = fileText(errorLog).slice(before.length);

  const wave = tally(firstWave, outcomeKey);
  const failed = others.filter((o) => !o.ok);
  check('the 30 lists, first answer of each', JSON.stringify(wave), '-', true);
  check(
    'all lists in the window (answers)',
    `${allStreams.length}: ${JSON.stringify(tally(allStreams, outcomeKey))}`,
    '-',
    true,
  );
  check(
    'lists answered 200: read to the end / open at the end / cut',
    ['read to the end', 'open at the end of the window', 'cut']
      .map((how) => allStreams.filter((o) => o.status === 200 && o.how === how).length)
      .join(' / '),
    '-',
    true,
  );
  check(
    "other keys' requests (per second)",
    `${others.length} (${(others.length / seconds).toFixed(0)}/s)`,
    '-',
    true,
  );
  const otherMs = others.map((o) => o.ended - o.started);
  check(
    "other keys' answer times: median / p99 / max",
    `${percentile(otherMs, 0.5)} / ${percentile(otherMs, 0.99)} / ${Math.max(...otherMs)} ms`,
    '-',
    true,
  );
  for (const kind of new Set(others.map((o) => o.kind))) {
    const of = others.filter((o) => o.kind === kind);
    check(`  ${kind}`, JSON.stringify(tally(of, outcomeKey)), '-', true);
  }
  check("other keys' failures", failed.length, '0', failed.length === 0);
  const noLive = countOf(added, /no live upstreams/g);
  const disabled = countOf(added, /upstream server temporarily disabled/g);
  check('nginx error log: "no live upstreams"', noLive, '0', noLive === 0);
  check('nginx error log: "upstream server temporarily disabled"', disabled, '-', true);
}

// 2 ------------------------------------------------------------------------------------------

const SLOW_CONNECTIONS = 200;
const SLOW_CONTENT_LENGTH = 200;
const CUT_SLACK_MS = 2000; // on top of REQUEST_TIMEOUT_MS: the server checks its timers periodically
const SLOW_WAIT_MS = REQUEST_TIMEOUT_MS + 10000; // how long the test waits for a cut
const RSS_GROWTH_LIMIT = 20 * 1024 * 1024;

/** A POST whose body comes a byte a second; resolves when the server ends the connection. */
function slowBody(port, ticks) {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    let closed = false;
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const end = (how) => {
      if (closed) return;
      closed = true;
      ticks.delete(tick);
      socket.destroy();
      resolve({
        how,
        ms: Date.now() - started,
        status: /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? '-',
      });
    };
    socket.on('close', () => end('cut'));
    const tick = () => {
      if (Date.now() - started > SLOW_WAIT_MS) end('still open');
      else if (socket.writable) socket.write(' ');
    };
    socket.on('connect', () => {
      socket.write(
        `POST /v1/categories HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${KEY}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${SLOW_CONTENT_LENGTH}\r\n\r\n{`,
      );
      ticks.add(tick);
    });
  });
}

async function slowBodies(check) {
  const [a] = instances;
  // Before and after: settled readings (15 s of forced collections, as the soak's), which count
  // what the instance holds, not what V8 gives back later. During: one collection.
  const rssBefore = {};
  const rssDuring = {};
  await Promise.all(
    instances.map(async (instance) => (rssBefore[instance.name] = (await settle(instance)).rss)),
  );
  const ticks = new Set();
  const ticker = setInterval(() => ticks.forEach((tick) => tick()), 1000);
  say(
    `${SLOW_CONNECTIONS} slow bodies to instance a and ${SLOW_CONNECTIONS} through nginx (a byte a second, Content-Length ${SLOW_CONTENT_LENGTH})`,
  );
  let direct;
  let throughNginx;
  try {
    [direct, throughNginx] = await Promise.all([
      Promise.all(Array.from({ length: SLOW_CONNECTIONS }, () => slowBody(a.port, ticks))),
      Promise.all(Array.from({ length: SLOW_CONNECTIONS }, () => slowBody(nginxPort, ticks))),
      // While every connection is open (before the request timeout).
      sleep(REQUEST_TIMEOUT_MS / 2).then(async () => {
        for (const instance of instances) {
          await collect(instance);
          await sleep(1000); // for the freed memory to go back to the system
          rssDuring[instance.name] = (await scrape(instance)).rss;
        }
      }),
    ]);
  } finally {
    clearInterval(ticker);
  }
  await sleep(1000);
  const limit = REQUEST_TIMEOUT_MS + CUT_SLACK_MS;
  for (const [label, outcomes] of [
    ['direct to a', direct],
    ['through nginx', throughNginx],
  ]) {
    const cut = outcomes.filter((o) => o.how === 'cut');
    const inTime = cut.filter((o) => o.ms <= limit);
    const times = cut.map((o) => o.ms);
    // nginx buffers a body whole before passing it on (deploy/nginx/nginx.conf): a trickling
    // body is held by nginx, never by a replica, and nginx has no bound on a whole body. What
    // must hold through nginx is that no replica holds them (below), not the cut.
    const isDirect = label.startsWith('direct');
    check(
      `${label}: cut within ${limit / 1000}s (REQUEST_TIMEOUT_MS ${REQUEST_TIMEOUT_MS} + ${CUT_SLACK_MS})`,
      `${inTime.length} of ${outcomes.length} (still open after ${SLOW_WAIT_MS / 1000}s: ${outcomes.length - cut.length})`,
      isDirect ? `${outcomes.length}` : '- (held by nginx)',
      isDirect ? inTime.length === outcomes.length : true,
    );
    check(
      `${label}: time to the cut min / median / max`,
      times.length
        ? `${percentile(times, 0)} / ${percentile(times, 0.5)} / ${percentile(times, 1)} ms`
        : '-',
      '-',
      true,
    );
    check(
      `${label}: answers before the cut`,
      JSON.stringify(tally(outcomes, (o) => o.status)),
      '-',
      true,
    );
  }
  // Every 408 the instances logged is one of the direct slow bodies: none came through nginx.
  const timeouts = instances
    .map((instance) => fileText(`${work}/${instance.name}.log`))
    .join('\n')
    .split('\n')
    .filter((line) => line.includes('"statusCode":408')).length;
  check(
    'through nginx: slow bodies that reached a replica (its 408s beyond the direct ones)',
    `${timeouts - direct.filter((o) => o.status === '408').length}`,
    '0',
    timeouts === direct.filter((o) => o.status === '408').length,
  );
  const signed = (bytes) => `${bytes >= 0 ? '+' : ''}${mb(bytes)}`;
  const rssAfter = {};
  await Promise.all(
    instances.map(async (instance) => (rssAfter[instance.name] = (await settle(instance)).rss)),
  );
  for (const instance of instances) {
    const after = rssAfter[instance.name];
    const before = rssBefore[instance.name];
    const during = rssDuring[instance.name];
    check(
      `${instance.name}: RSS before → during → after (forced GC)`,
      `${mb(before)} → ${mb(during)} (${signed(during - before)}) → ${mb(after)} (${signed(after - before)})`,
      `+${mb(RSS_GROWTH_LIMIT)}`,
      Math.max(during, after) - before <= RSS_GROWTH_LIMIT,
    );
  }
}

// 3 ------------------------------------------------------------------------------------------

const FLOOD_REQUESTS = 4000;
const FLOOD_CONCURRENCY = 32;
const FLOOD_TRANSACTION_LIMIT = 100;
const FLOOD_ADDRESS = '127.0.0.2';
const floodAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

// A backend reports its counts to pg_stat_database when it goes idle, at most once a second,
// and when that meets a lock held by another backend, 10 s later (PostgreSQL's
// PGSTAT_IDLE_INTERVAL): only a reading 11 s after the last statement counts them all.
const STATS_DELAY_MS = 11000;

/** petstore's committed and rolled back transactions, once every backend has reported. */
async function settledTransactions(stats) {
  const read = async () =>
    Number(
      (
        await stats.query(
          "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = 'petstore'",
        )
      ).rows[0].n,
    );
  await sleep(STATS_DELAY_MS);
  let last = await read();
  for (let i = 0; i < 5; i++) {
    await sleep(1000);
    const now = await read();
    if (now === last) break;
    last = now;
  }
  return last;
}

async function keyFlood(check) {
  const stats = new pg.Client({ connectionString: statsUrl });
  await stats.connect();
  try {
    const s0 = await settledTransactions(stats);
    const floodStart = Date.now();
    let sent = 0;
    const outcomes = [];
    say(
      `${FLOOD_REQUESTS} requests with random keys through nginx, ${FLOOD_CONCURRENCY} at a time`,
    );
    await Promise.all(
      Array.from({ length: FLOOD_CONCURRENCY }, async () => {
        while (sent < FLOOD_REQUESTS) {
          sent++;
          outcomes.push(
            await call({
              port: nginxPort,
              path: '/v1/categories',
              headers: { authorization: `Bearer ${newKey()}` },
              // The attacker's own address: the limit it runs into is its own, and the other
              // scenarios' clients (127.0.0.1) are not blocked with it.
              localAddress: FLOOD_ADDRESS,
              agent: floodAgent,
            }),
          );
        }
      }),
    );
    const floodMs = Date.now() - floodStart;
    const s1 = await settledTransactions(stats);
    const floodWindow = Date.now() - floodStart;
    say(`idle for ${(floodWindow / 1000).toFixed(1)}s (the baseline)`);
    const idleStart = Date.now();
    // The same length: the idle time of the flood's length, then the same wait for the counts.
    await sleep(floodMs);
    const s2 = await settledTransactions(stats);
    const idleWindow = Date.now() - idleStart;
    const caused = s1 - s0 - (s2 - s1);
    check('answers', JSON.stringify(tally(outcomes, outcomeKey)), '-', true);
    check(
      'flood duration',
      `${floodMs} ms (${((FLOOD_REQUESTS * 1000) / floodMs).toFixed(0)} req/s)`,
      '-',
      true,
    );
    check(
      'PostgreSQL transactions: during the flood / idle baseline',
      `${s1 - s0} in ${(floodWindow / 1000).toFixed(1)}s / ${s2 - s1} in ${(idleWindow / 1000).toFixed(1)}s`,
      '-',
      true,
    );
    check(
      'transactions caused by the flood',
      caused,
      `< ${FLOOD_TRANSACTION_LIMIT}`,
      caused < FLOOD_TRANSACTION_LIMIT,
    );
  } finally {
    await stats.end();
  }
}

// 4 ------------------------------------------------------------------------------------------

async function unicode(check) {
  const post = (path, rawBody) =>
    call({ port: nginxPort, method: 'POST', path, headers: AUTH, rawBody });
  const expect = async (label, path, rawBody, status, code, extra) => {
    const o = await post(path, rawBody);
    const text = o.body?.toString('utf8') ?? '';
    let got = o.error ?? String(o.status);
    let errorBody = true;
    if (o.status >= 400) {
      errorBody = isErrorBody(text, o.status);
      const answered = errorBody ? JSON.parse(text).code : 'no Error body';
      got += ` ${answered}`;
    }
    const want = `${status}${code ? ` ${code}` : ''}`;
    const extraProblem = extra?.(o, text);
    const ok =
      o.status === status &&
      (status < 400 || errorBody) &&
      (!code || got === want) &&
      !extraProblem;
    check(label, `${got}${extraProblem ? ` (${extraProblem})` : ''}`, want, ok);
  };
  const json = (value) => Buffer.from(JSON.stringify(value), 'utf8');
  const name = `Café ${runId}`;
  await expect('"Café" in NFC', '/v1/categories', json({ name: name.normalize('NFC') }), 201);
  await expect(
    '"Café" again in NFD (the same name)',
    '/v1/categories',
    json({ name: name.normalize('NFD') }),
    409,
    'CATEGORY_EXISTS',
  );
  for (const [label, bytes] of [
    ['invalid UTF-8 in a name (C0 AF)', [0xc0, 0xaf]],
    ['invalid UTF-8 in a name (FF)', [0xff]],
  ]) {
    await expect(
      label,
      '/v1/categories',
      Buffer.concat([Buffer.from('{"name":"bad'), Buffer.from(bytes), Buffer.from(`${runId}"}`)]),
      400,
      'MALFORMED_JSON',
    );
  }
  await expect(
    'a name of U+200B only',
    '/v1/categories',
    json({ name: '\u200b' }),
    400,
    'VALIDATION_FAILED',
  );
  await expect(
    'a name with U+202E',
    '/v1/categories',
    json({ name: `abc\u202edef ${runId}` }),
    400,
    'VALIDATION_FAILED',
  );
  await expect(
    'a duplicate member ("quantity" twice)',
    '/v1/store/orders',
    Buffer.from(`{"petId":${petId},"quantity":5000,"quantity":1}`),
    400,
    'MALFORMED_JSON',
  );
  await expect(
    'petId 2^63',
    '/v1/store/orders',
    Buffer.from('{"petId":9223372036854775808,"quantity":1}'),
    400,
  );
  // Short names ("0" to "1jj" in base 36): 2 000 of them stay under the 16 KiB body limit.
  const unknown = { name: `many ${runId}` };
  for (let i = 0; i < 2000; i++) unknown[i.toString(36)] = 0;
  await expect('2 000 unknown members', '/v1/categories', json(unknown), 400, undefined, (o) =>
    o.bytes >= 1024 ? `body ${o.bytes} bytes, not under 1 KB` : undefined,
  );
}

// 5 ------------------------------------------------------------------------------------------

/** Writes `request` on a new connection to `port`; resolves with what came back until it closed. */
function rawExchange(port, request) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // A complete answer with a Content-Length: no need to wait for the close.
      const text = Buffer.concat(chunks).toString('utf8');
      const head = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, head))?.[1];
      if (
        head >= 0 &&
        length !== undefined &&
        Buffer.byteLength(text.slice(head + 4)) >= Number(length)
      ) {
        socket.destroy();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const head = text.indexOf('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0),
        body: head >= 0 ? text.slice(head + 4) : '',
      });
    });
    socket.on('connect', () => socket.write(request));
  });
}

async function clientErrors(check) {
  const [a] = instances;
  const auth = `Authorization: Bearer ${KEY}\r\n`;
  const cases = [
    ['no Host header', `GET /v1/categories HTTP/1.1\r\n${auth}Connection: close\r\n\r\n`, 400],
    [
      'Expect: 200-ok',
      `GET /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Expect: 200-ok\r\nConnection: close\r\n\r\n`,
      417,
    ],
    [
      'a malformed request line',
      'GET /v1/categories HTTP/1.1 and more\r\nHost: 127.0.0.1\r\n\r\n',
      400,
    ],
    [
      'headers over the limit (20 KB)',
      `GET /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${'a'.repeat(20000)}\r\n\r\n`,
      431,
    ],
  ];
  for (const [label, request, status] of cases) {
    const o = await rawExchange(a.port, request);
    const errorBody = isErrorBody(o.body, o.status);
    const body =
      o.body.length === 0
        ? 'empty body'
        : errorBody
          ? JSON.parse(o.body).code
          : `body ${JSON.stringify(o.body.slice(0, 60))}`;
    check(
      label,
      `${o.status || 'no answer'}, ${body}`,
      `${status} + Error body`,
      o.status === status && errorBody,
    );
  }
}

// 6 ------------------------------------------------------------------------------------------

async function keyInLogs(check, keys) {
  const [a] = instances;
  const key = keys.echo;
  const secret = key.slice(4); // what follows psk_: found however the prefix was written
  const echoed = [];
  for (const [label, port] of [
    ['through nginx', nginxPort],
    ['direct to a', a.port],
  ]) {
    const o = await call({
      port,
      path: '/v1/categories',
      headers: { ...AUTH, 'x-request-id': key },
    });
    const id = String(o.headers?.['x-request-id'] ?? '');
    check(
      `X-Request-Id: <key> ${label}: answer's X-Request-Id`,
      `${o.status}, ${id.includes(secret) ? 'the key' : JSON.stringify(id.slice(0, 40))}`,
      'not the key',
      !id.includes(secret),
    );
    echoed.push(id.includes(secret));
    const p = await call({ port, path: `/v1/pets/${key}`, headers: AUTH });
    check(`GET /v1/pets/<key> ${label}`, p.error ?? p.status, '-', true);
  }
  await sleep(1500); // the instances write their lines asynchronously
  for (const [label, file] of [
    ["instance a's log", `${work}/a.log`],
    ["instance b's log", `${work}/b.log`],
    ["nginx's access log", `${work}/nginx/access.log`],
  ]) {
    const lines = fileText(file)
      .split('\n')
      .filter((line) => line.includes(secret));
    check(`lines with the key in ${label}`, lines.length, '0', lines.length === 0);
    for (const line of lines.slice(0, 2))
      console.log(`    ${line.replaceAll(secret, '<key>').slice(0, 200)}`);
  }
  const errorLines = countOf(
    fileText(`${work}/nginx/error.log`),
    new RegExp(secret.replace(/[-]/g, '\\-'), 'g'),
  );
  check("lines with the key in nginx's error log", errorLines, '-', true);
}

// 7 ------------------------------------------------------------------------------------------

const KILL_WORKERS = 12;
const KILL_AFTER_MS = 3000;
const KILL_TAIL_MS = 4000; // load after the killed instance is back

async function killNine(check) {
  const b = instances[1];
  const killPet = await withDb(async (db) => {
    const pet = (
      await db.query(
        "INSERT INTO pets (name, status) VALUES ($1, 'available') RETURNING id::int AS id",
        [`kill-${runId}`],
      )
    ).rows[0].id;
    const keyId = (
      await db.query('SELECT id FROM api_keys WHERE key_hash = $1', [
        createHash('sha256').update(KEY).digest('hex'),
      ])
    ).rows[0].id;
    await db.query(
      "INSERT INTO webhook_subscriptions (api_key_id, url, events, secret) VALUES ($1, 'https://hooks.example.com/hostile', ARRAY['order.placed'], $2)",
      [keyId, randomBytes(32)],
    );
    return pet;
  });
  const outcomes = [];
  let running = true;
  const worker = async (index) => {
    let n = index;
    while (running) {
      n++;
      if (n % 3 === 0) {
        const o = await call({
          port: nginxPort,
          path: '/v1/categories',
          headers: AUTH,
          timeoutMs: 15000,
        });
        outcomes.push({ kind: 'GET /v1/categories', ok: o.status === 200, ...o });
      } else {
        const o = await call({
          port: nginxPort,
          method: 'POST',
          path: '/v1/store/orders',
          headers: AUTH,
          body: { petId: killPet, quantity: 1 },
          timeoutMs: 15000,
        });
        let id;
        if (o.status === 201) id = String(JSON.parse(o.body.toString('utf8')).id);
        outcomes.push({ kind: 'POST /v1/store/orders', ok: o.status === 201, id, ...o });
      }
    }
  };
  const errorLog = `${work}/nginx/error.log`;
  const errorsBefore = fileText(errorLog).length;
  say(`order load through nginx: ${KILL_WORKERS} workers`);
  const workers = Array.from({ length: KILL_WORKERS }, (_, i) => worker(i));
  await sleep(KILL_AFTER_MS);
  const killedAt = Date.now();
  b.child.kill('SIGKILL');
  say(`kill -9 b (pid ${b.child.pid})`);
  const exit = await b.exited;
  const diedAt = Date.now();
  say(`b: ${describeExit(exit)}`);
  start(b);
  await waitReady(run, b, 60000);
  await sleep(KILL_TAIL_MS);
  running = false;
  await Promise.all(workers);

  const placed = outcomes.filter((o) => o.id !== undefined).map((o) => o.id);
  const { stored, withEvent, inDatabase } = await withDb(async (db) => ({
    stored: (
      await db.query('SELECT count(*)::int AS n FROM orders WHERE id = ANY ($1::bigint[])', [
        placed,
      ])
    ).rows[0].n,
    withEvent: (
      await db.query(
        `SELECT count(DISTINCT payload::json -> 'data' ->> 'id')::int AS n FROM webhook_deliveries
         WHERE event_type = 'order.placed' AND payload::json -> 'data' ->> 'id' = ANY ($1::text[])`,
        [placed],
      )
    ).rows[0].n,
    inDatabase: (
      await db.query('SELECT count(*)::int AS n FROM orders WHERE pet_id = $1', [killPet])
    ).rows[0].n,
  }));
  // What b was doing when it died: nginx logs each request it had sent there and lost.
  const lost = fileText(errorLog)
    .slice(errorsBefore)
    .split('\n')
    .filter(
      (line) =>
        /prematurely closed|reset by peer|Broken pipe/.test(line) &&
        line.includes(`upstream: "http://127.0.0.1:${b.port}/`),
    );
  const inFlight = outcomes.filter((o) => o.started <= diedAt && o.ended >= killedAt);
  const failed = outcomes.filter((o) => !o.ok);
  const failedLater = failed.filter((o) => o.started > diedAt);
  check(
    'requests',
    `${outcomes.length}: ${JSON.stringify(tally(outcomes, (o) => `${o.kind} ${outcomeKey(o)}`))}`,
    '-',
    true,
  );
  check(
    'orders answered 201 / stored',
    `${placed.length} / ${stored}`,
    'all stored',
    stored === placed.length,
  );
  check(
    'orders answered 201 with their order.placed event (outbox)',
    `${withEvent} of ${placed.length}`,
    'all',
    withEvent === placed.length,
  );
  check('orders in the database, answered or not', inDatabase, '-', true);
  check(
    "requests open from the kill to b's exit (both instances) / lost on b (nginx's error log)",
    `${inFlight.length} / ${lost.length}`,
    '-',
    true,
  );
  check(
    'failed requests: sent before b died / after',
    `${failed.length - failedLater.length} / ${failedLater.length}`,
    `≤ ${lost.length} (lost on b) / 0`,
    failedLater.length === 0 && failed.length <= lost.length,
  );
}

// 8 ------------------------------------------------------------------------------------------

const HALF_BODIES = 50;

async function abortedPosts(check) {
  const [a] = instances;
  const ids = Array.from({ length: HALF_BODIES }, (_, i) => `half-body-${runId}-${i}`);
  const body = JSON.stringify({ name: `half ${runId}`, description: 'x'.repeat(60) });
  say(`${HALF_BODIES} POST /v1/categories to a, half the body sent, then the client hangs up`);
  await Promise.all(
    ids.map(
      (id) =>
        new Promise((resolve) => {
          const socket = net.connect(a.port, '127.0.0.1');
          socket.on('error', () => undefined);
          socket.on('close', resolve);
          socket.on('connect', () => {
            socket.write(
              `POST /v1/categories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${KEY}\r\n` +
                `X-Request-Id: ${id}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` +
                body.slice(0, body.length / 2),
            );
            setTimeout(() => socket.destroy(), 300);
          });
        }),
    ),
  );
  await sleep(1500);
  const wanted = new Set(ids);
  const lines = [];
  for (const line of fileText(`${work}/a.log`).split('\n')) {
    if (!line.includes('half-body-')) continue;
    try {
      const entry = JSON.parse(line);
      if (wanted.has(entry.req?.id)) lines.push(entry);
    } catch {
      // not a JSON line
    }
  }
  const claims201 = lines.filter((entry) => entry.res?.statusCode === 201);
  check(
    'their request lines: by status and message',
    `${lines.length}: ${JSON.stringify(tally(lines, (entry) => `${entry.res?.statusCode} ${entry.msg}`))}`,
    '-',
    true,
  );
  check('lines claiming 201', claims201.length, '0', claims201.length === 0);
  const created = await withDb(
    async (db) =>
      (
        await db.query('SELECT count(*)::int AS n FROM categories WHERE name = $1', [
          `half ${runId}`,
        ])
      ).rows[0].n,
  );
  check('categories created by them', created, '0', created === 0);
}

// ---- the run ----

async function main() {
  const only = (process.env.HOSTILE_ONLY ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = only.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `HOSTILE_ONLY: no scenario ${unknown.join(', ')} (there are ${SCENARIOS.map((s) => s.name).join(', ')})`,
    );
  }
  const chosen = only.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => only.includes(s.name));
  say(`scenarios: ${chosen.map((s) => s.name).join(', ')}`);
  say(`instance timeouts: ${JSON.stringify({ ...TIMEOUT_ENV, ...EXTRA_ENV })}`);

  const ports = await freePorts(8);
  redis.port = ports[0];
  startRedis(run, { work, redis });
  await waitRedis(redis.port);
  say(`Redis on 127.0.0.1:${redis.port}`);
  instances.push({ name: 'a', port: ports[1], metricsPort: ports[2], gcPort: ports[6] });
  instances.push({ name: 'b', port: ports[3], metricsPort: ports[4], gcPort: ports[7] });
  // One first (migrations and the demo data), then the other.
  start(instances[0]);
  await waitReady(run, instances[0], 90000);
  start(instances[1]);
  await waitReady(run, instances[1], 90000);

  const keys = {
    greedy: newKey(),
    echo: newKey(),
    others: Array.from({ length: OTHER_KEYS }, newKey),
  };
  await withDb(async (db) => {
    // The long list only where it is read.
    const orders = chosen.some((s) => s.name === 'fair-shares') ? ORDERS : 0;
    petId = await seedOrders(db, orders);
    if (orders > 0) say(`${orders} orders inserted`);
    await insertKeys(db, {
      greedy: keys.greedy,
      echo: keys.echo,
      ...Object.fromEntries(keys.others.map((k, i) => [`other ${i}`, k])),
    });
  });

  nginxPort = ports[5];
  const nginx = await startNginx({
    nginxBin,
    dir: `${work}/nginx`,
    nginxPort,
    ports: instances.map((instance) => instance.port),
    track,
    say,
  });

  const results = [];
  for (const scenario of chosen) {
    console.log(`\n== ${scenario.title} [${scenario.name}]`);
    const figures = [];
    const check = (figure, value, limit, ok) => {
      figures.push([figure, value, limit, limit === '-' ? '' : ok ? 'ok' : 'FAIL']);
      if (!ok) fail(`${scenario.name}: ${figure}: ${value} (want ${limit})`);
    };
    const failedBefore = failures.length;
    try {
      await scenario.run(check, keys);
    } catch (error) {
      check(
        'the scenario ran to its end',
        error instanceof Error ? error.message : String(error),
        'no error',
        false,
      );
    }
    printTable(['figure', 'value', 'limit', ''], figures);
    const passed = failures.length === failedBefore;
    results.push([scenario.name, passed ? 'passed' : `FAILED (${failures.length - failedBefore})`]);
    // Each instance must still be up for the next scenario.
    for (const instance of instances) {
      const o = await call({ port: instance.port, path: '/health/ready', timeoutMs: 5000 });
      if (o.status !== 200)
        fail(`${scenario.name}: ${instance.name} not ready afterwards (${o.error ?? o.status})`);
    }
  }

  console.log('\n== summary');
  printTable(['scenario', 'result'], results);

  await stopCleanly(run, nginx, instances);
}

await runToVerdict(run, 'hostile', main, {
  stopped: () => {
    agent.destroy();
    floodAgent.destroy();
  },
  explain: () => {
    for (const name of ['a', 'b']) {
      const lines = fileText(`${work}/${name}.log`)
        .split('\n')
        .filter((line) => /"level":(50|60)/.test(line));
      if (lines.length > 0) {
        console.log(
          `\n-- ${name}: ${lines.length} error lines, the first: ${lines[0].slice(0, 600)}`,
        );
      }
    }
    printTail("last lines of nginx's error log", `${work}/nginx/error.log`, 10);
  },
});
