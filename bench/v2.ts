/**
 * npm run bench:v2 — issue 8's performance targets, on the built service with production
 * settings over 1 000 000 orders: a page after 990 000 orders against the first page, a 1 %
 * filter against no filter, and placeOrder with a fresh Idempotency-Key each time against
 * placeOrder without, with the statements (round trips) each request costs, counted by
 * PostgreSQL (pg_stat_statements). Medians of alternating rounds. See bench/README.md.
 */
import type autocannon from 'autocannon';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { openBenchDatabase } from './database.js';
import { snapshotBackendCpu } from './postgres-cpu.js';
import { runMain, runNode } from './processes.js';
import { growOrders, seedBase } from './seed.js';
import { cursorAfter, getJson, median, startProductionService } from './service.js';
import { describeStatements, measureLoad, type Measured } from './statements.js';
import { DEEP_AFTER, SHIP_RANGE_1PCT } from './v2-cases.js';
import { saveReport } from './report.js';

const ORDERS = 1_000_000;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROOT = resolve(import.meta.dirname, '..');

interface Scenario {
  name: string;
  expectedStatus: number;
  requests: autocannon.Request[];
}

/** Target: `name` costs at most `limit` times `base`, in time per request. */
const COMPARISONS = [
  {
    name: 'page after 990 000 / first page',
    base: 'first page',
    other: 'page after 990 000',
    limit: 1.2,
  },
  { name: 'petId (1 %) / no filter', base: 'first page', other: 'petId (1 %)', limit: 2 },
  {
    name: 'ship date range (1 %) / no filter',
    base: 'first page',
    other: 'ship date range (1 %)',
    limit: 2,
  },
  {
    name: 'placeOrder + Idempotency-Key / placeOrder',
    base: 'placeOrder',
    other: 'placeOrder + Idempotency-Key',
    limit: null,
  },
] as const;

async function main(): Promise<void> {
  const workDir = await mkdtemp(join(tmpdir(), 'petstore-bench-v2-'));
  const db = await openBenchDatabase(workDir, { statementStats: true });
  const client = new pg.Client({ connectionString: db.url, application_name: 'petstore-bench' });
  let service: Awaited<ReturnType<typeof startProductionService>> | undefined;
  try {
    const env = { PATH: process.env.PATH ?? '', DATABASE_URL: db.url };
    await runNode(join(ROOT, 'dist', 'database', 'migrate.cli.js'), env, workDir);
    await client.connect();
    await client.query('SET statement_timeout = 0');
    const data = await seedBase(client);
    await growOrders(client, data.petIds, ORDERS, `orders → ${ORDERS.toLocaleString('en')}`);
    service = await startProductionService({ workDir, databaseUrl: db.url, apiKey: data.apiKey });
    const server = service;

    process.stderr.write(`walking ${DEEP_AFTER.toLocaleString('en')} orders for a cursor …\n`);
    const deepCursor = await cursorAfter(
      server.baseUrl,
      data.apiKey,
      '/v2/store/orders',
      DEEP_AFTER,
    );
    const petId = data.petIds[0];
    const page = (query: string): autocannon.Request[] => [
      { method: 'GET', path: `/v2/store/orders?limit=100${query}` },
    ];
    const body = JSON.stringify({ petId, quantity: 1 });
    const scenarios: Scenario[] = [
      { name: 'first page', expectedStatus: 200, requests: page('') },
      { name: 'page after 990 000', expectedStatus: 200, requests: page(`&cursor=${deepCursor}`) },
      { name: 'petId (1 %)', expectedStatus: 200, requests: page(`&petId=${petId}`) },
      { name: 'ship date range (1 %)', expectedStatus: 200, requests: page(`&${SHIP_RANGE_1PCT}`) },
      { name: 'placeOrder', expectedStatus: 201, requests: [{ method: 'POST', body }] },
      {
        name: 'placeOrder + Idempotency-Key',
        expectedStatus: 201,
        requests: [
          {
            method: 'POST',
            body,
            // A fresh key each time: every request creates (none is a replay).
            setupRequest: (request) => ({
              ...request,
              headers: { ...request.headers, 'idempotency-key': randomUUID() },
            }),
          },
        ],
      },
    ];
    // Every page scenario answers a full page before it is timed.
    for (const scenario of scenarios.filter((s) => s.expectedStatus === 200)) {
      const path = scenario.requests[0]?.path ?? '';
      const answer = await getJson(server.baseUrl, path, data.apiKey);
      const items = (answer.body as { data?: unknown[] } | null)?.data?.length;
      if (answer.status !== 200 || items !== 100) {
        throw new Error(`${scenario.name}: GET ${path} answered ${answer.status}, ${items} items`);
      }
    }

    const run = (scenario: Scenario, durationS: number): Promise<Measured> =>
      measureLoad(client, {
        url: `${server.baseUrl}/v2/store/orders`,
        connections: CONNECTIONS,
        durationS,
        expectedStatus: scenario.expectedStatus,
        headers: { authorization: `Bearer ${data.apiKey}`, 'content-type': 'application/json' },
        requests: scenario.requests,
        serverCpuMs: () => server.cpuMs(),
        postgresCpu: () => snapshotBackendCpu(client),
      });

    const loadAtStart = loadavg()
      .map((value) => value.toFixed(2))
      .join(', ');
    for (const scenario of scenarios) {
      process.stderr.write(`warm-up: ${scenario.name}\n`);
      await run(scenario, 2);
    }
    const results = new Map<string, Measured[]>(scenarios.map((s) => [s.name, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternate the order, so no scenario always runs after the same neighbour.
      const order = round % 2 === 1 ? scenarios : [...scenarios].reverse();
      for (const scenario of order) {
        process.stderr.write(`round ${round}/${ROUNDS}: ${scenario.name}\n`);
        results.get(scenario.name)?.push(await run(scenario, DURATION_S));
      }
    }
    const loadAtEnd = loadavg()
      .map((value) => value.toFixed(2))
      .join(', ');

    const summary = (name: string) => {
      const runs = results.get(name) ?? [];
      const of = (pick: (m: Measured) => number | null | undefined) =>
        median(runs.map(pick).filter((v): v is number => typeof v === 'number'));
      return {
        rps: of((m) => m.load.requestsPerSecond),
        p50: of((m) => m.load.latencyP50Ms),
        p99: of((m) => m.load.latencyP99Ms),
        cpu: of((m) => m.load.serverCpuUsPerRequest),
        pgCpu: of((m) => m.load.postgresCpuUsPerRequest),
        statements: of((m) => m.statements?.perRequest),
        background: of((m) => m.statements?.backgroundPerRequest),
        counted: runs.some((m) => m.statements !== null),
        failures: runs.reduce(
          (sum, m) => sum + m.load.errors + m.load.timeouts + m.load.unexpectedStatus,
          0,
        ),
        detail: runs.at(-1)?.statements,
      };
    };
    const fixed = (value: number, digits = 0) => value.toFixed(digits);
    const date = new Date().toISOString().slice(0, 10);
    const lines = [
      `# v2 pages and idempotent creates on ${ORDERS.toLocaleString('en')} orders (${date})`,
      '',
      `Built service, production settings (rate limiter on at 1 000 000/min, request logs at info to a file); ` +
        `PostgreSQL ${db.version} (${db.server}). autocannon, ${CONNECTIONS} connections, ${ROUNDS} alternating ` +
        `rounds of ${DURATION_S} s after a 2 s warm-up; medians. Load average (1, 5, 15 min) ${loadAtStart} at ` +
        `the start, ${loadAtEnd} at the end, on ${process.env.BENCH_CPUS ?? 'the'} machine's cores.`,
      '',
      '| scenario | req/s | p50 ms | p99 ms | server CPU µs/req | PostgreSQL CPU µs/req | statements/req | background/req | errors |',
      '| --- | --: | --: | --: | --: | --: | --: | --: | --: |',
      ...scenarios.map((scenario) => {
        const s = summary(scenario.name);
        return `| ${scenario.name} | ${fixed(s.rps)} | ${s.p50} | ${s.p99} | ${fixed(s.cpu)} | ${fixed(s.pgCpu)} | ${s.counted ? fixed(s.statements, 2) : '—'} | ${s.counted ? fixed(s.background, 2) : '—'} | ${s.failures} |`;
      }),
      '',
      '| comparison | time/request ratio (req/s) | p50 ratio | server CPU ratio | extra statements/req | target |',
      '| --- | --: | --: | --: | --: | --- |',
      ...COMPARISONS.map((c) => {
        const base = summary(c.base);
        const other = summary(c.other);
        // Closed loop (each connection waits for its answer): time per request = connections / req/s.
        const ratio = base.rps / other.rps;
        const extra = other.statements - base.statements;
        // Within 0.01: a request cut off at the end of a run may have run its first statement only.
        const roundTrips = !(base.counted && other.counted)
          ? 'not counted (no pg_stat_statements)'
          : `${extra < 1.01 ? '✓' : '✗'} at most one extra round trip`;
        const target =
          c.limit === null ? roundTrips : `${ratio <= c.limit ? '✓' : '✗'} ≤ ${c.limit}×`;
        return `| ${c.name} | ${fixed(ratio, 2)} | ${fixed(other.p50 / base.p50, 2)} | ${fixed(other.cpu / base.cpu, 2)} | ${base.counted ? fixed(extra, 2) : '—'} | ${target} |`;
      }),
      '',
      'statements/req: statements PostgreSQL executed for the requests (pg_stat_statements calls over the',
      "run ÷ requests sent), each one message and one round trip; background/req: the service's own work meanwhile",
      '(webhook dispatcher, purges, last-use flush), per request. The statements of the last round:',
      '',
      ...scenarios.flatMap((scenario) => [
        `- ${scenario.name}: ${describeStatements(summary(scenario.name).detail)}`,
      ]),
    ];
    await saveReport(ROOT, `v2-${date}`, lines);
    if (scenarios.some((scenario) => summary(scenario.name).failures > 0)) process.exitCode = 1;
  } finally {
    await service?.stop();
    await client.end().catch(() => undefined);
    await db.dispose();
    await rm(workDir, { recursive: true, force: true });
  }
}

runMain(main);
