/**
 * npm run bench:webhooks — what events cost the operations that emit them, and whether the
 * dispatcher keeps up. The built service (production settings: service.ts) first sends
 * DISPATCH_BACKLOG pending deliveries, otherwise idle, to a local receiver that answers at once
 * (deliveries per second, its CPU and statements per delivery, connections the receiver saw).
 * Then it runs placeOrder and cancelOrder with no webhook subscription (the outbox CTE inserts
 * nothing), then with three subscriptions to every event (three deliveries per change, and the
 * dispatcher sending them meanwhile), alternating, three rounds each; the report gives the
 * median requests per second, the ratio with / without, the statements (round trips) per
 * request that PostgreSQL counted, and, with subscriptions, the deliveries sent per second, the
 * oldest pending delivery's age (sampled every SAMPLE_MS) and the pending ones at the end.
 *
 * BENCH_WEBHOOK_SPLIT=1 runs the dispatcher in an instance of its own (WEBHOOK_DISPATCHER=false
 * on the one that takes the requests, as docs/webhooks.md suggests under load) and reports each
 * instance's CPU: the dispatcher's share.
 * BENCH_DISPATCH_ONLY=1 times the dispatcher alone and writes no results file;
 * BENCH_CPU_PROF=<folder> has the service (both instances with BENCH_WEBHOOK_SPLIT=1) write its
 * V8 CPU profile there (`--cpu-prof`). WEBHOOK_CONCURRENCY, when set, is handed to the service.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { openBenchDatabase } from './database.js';
import { runMain, runNode } from './processes.js';
import { seedBase } from './seed.js';
import { median, startProductionService } from './service.js';
import {
  describeStatements,
  HARNESS_STATEMENT,
  measureLoad,
  snapshotStatements,
  statementsBetween,
  type Measured,
  type StatementCost,
} from './statements.js';
import { saveReport } from './report.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const ROUNDS = 3;
const CONNECTIONS = 20;
const SUBSCRIPTIONS = 3;
/** Pending orders made ready for each cancel run (more than a run can cancel). */
const CANCELLABLE = 60_000;
/** Pending deliveries the dispatcher alone is timed on. */
const DISPATCH_BACKLOG = Number(process.env.BENCH_DISPATCH_BACKLOG ?? 10_000);
/** How often the oldest pending delivery's age is sampled during a run with subscriptions. */
const SAMPLE_MS = 250;

/** How a run with subscriptions kept up: deliveries sent, and the backlog through the run. */
interface Backlog {
  deliveredPerSecond: number;
  maxOldestAgeS: number;
  pendingAtEnd: number;
}

/** Reads the backlog every SAMPLE_MS while `run` lasts. */
async function sampleBacklog<T>(
  client: pg.Client,
  run: () => Promise<T>,
): Promise<{ result: T; backlog: Backlog }> {
  const read = async () => {
    const { rows } = await client.query<{ pending: number; age: number | null; done: number }>(
      `SELECT ${HARNESS_STATEMENT} count(*) FILTER (WHERE status = 'pending')::int AS pending,
              extract(epoch FROM now() - min(created_at) FILTER (WHERE status = 'pending'))::float8 AS age,
              count(*) FILTER (WHERE status = 'succeeded')::int AS done
       FROM webhook_deliveries`,
    );
    return rows[0];
  };
  const start = await read();
  const started = performance.now();
  let maxOldestAgeS = start.age ?? 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await new Promise((wait) => setTimeout(wait, SAMPLE_MS));
      maxOldestAgeS = Math.max(maxOldestAgeS, (await read()).age ?? 0);
    }
  })();
  const result = await run();
  sampling = false;
  await sampler;
  const end = await read();
  const seconds = (performance.now() - started) / 1000;
  return {
    result,
    backlog: {
      deliveredPerSecond: (end.done - start.done) / seconds,
      maxOldestAgeS: Math.max(maxOldestAgeS, end.age ?? 0),
      pendingAtEnd: end.pending,
    },
  };
}

async function main(): Promise<void> {
  const app = resolve('.');
  const workDir = await mkdtemp(join(tmpdir(), 'petstore-bench-webhooks-'));
  const db = await openBenchDatabase(workDir, { statementStats: true });
  let receiverConnections = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  receiver.on('connection', () => receiverConnections++);
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const env = { PATH: process.env.PATH ?? '', DATABASE_URL: db.url };
  const client = new pg.Client({ connectionString: db.url });
  let service: Awaited<ReturnType<typeof startProductionService>> | undefined;
  /** With BENCH_WEBHOOK_SPLIT=1, the instance that only dispatches. */
  let dispatcher: Awaited<ReturnType<typeof startProductionService>> | undefined;
  const split = process.env.BENCH_WEBHOOK_SPLIT === '1';
  try {
    await runNode(join(app, 'dist', 'database', 'migrate.cli.js'), env, workDir);
    await client.connect();
    const data = await seedBase(client);
    const profiles = process.env.BENCH_CPU_PROF?.trim();
    /** With BENCH_CPU_PROF, an instance's profile goes to <folder>/<name>. */
    const profiled = (name: string) =>
      profiles
        ? [
            '--cpu-prof',
            `--cpu-prof-dir=${resolve(profiles, name)}`,
            '--import',
            join(app, 'dist', 'tracing', 'register.js'),
          ]
        : undefined;
    const dispatcherEnv = {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      ...(process.env.WEBHOOK_CONCURRENCY
        ? { WEBHOOK_CONCURRENCY: process.env.WEBHOOK_CONCURRENCY }
        : {}),
    };
    service = await startProductionService({
      workDir,
      databaseUrl: db.url,
      apiKey: data.apiKey,
      nodeArgs: profiled('service'),
      env: { ...dispatcherEnv, ...(split ? { WEBHOOK_DISPATCHER: 'false' } : {}) },
    });
    if (split) {
      dispatcher = await startProductionService({
        name: 'dispatcher',
        workDir,
        databaseUrl: db.url,
        apiKey: data.apiKey,
        nodeArgs: profiled('dispatcher'),
        env: dispatcherEnv,
      });
    }
    const server = service;
    /** The instance whose dispatcher sends the deliveries. */
    const dispatching = dispatcher ?? service;
    /** CPU ms of the dispatcher-only instance over the "on" rounds, and of the API instance. */
    const splitCpu = { dispatcher: 0, api: 0 };
    const headers = {
      authorization: `Bearer ${data.apiKey}`,
      'content-type': 'application/json',
    };
    const petId = data.petIds[0];
    const place = (): Promise<Measured> =>
      measureLoad(client, {
        url: `${server.baseUrl}/v1/store/orders`,
        connections: CONNECTIONS,
        durationS: DURATION_S,
        expectedStatus: 201,
        headers,
        requests: [{ method: 'POST', body: JSON.stringify({ petId, quantity: 1 }) }],
        serverCpuMs: () => server.cpuMs(),
      });
    const cancel = async (): Promise<Measured> => {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO orders (pet_id, quantity) SELECT $1, 1 FROM generate_series(1, $2::int)
         RETURNING id`,
        [petId, CANCELLABLE],
      );
      let next = 0;
      return measureLoad(client, {
        url: server.baseUrl,
        connections: CONNECTIONS,
        durationS: DURATION_S,
        expectedStatus: 204,
        headers,
        requests: [
          {
            method: 'DELETE',
            setupRequest: (request) => ({
              ...request,
              path: `/v1/store/orders/${rows[next++ % rows.length].id}`,
            }),
          },
        ],
        serverCpuMs: () => server.cpuMs(),
      });
    };
    const setSubscriptions = async (count: number): Promise<void> => {
      // The delete cascades to the deliveries still pending (the next run does not pay for
      // them), which the dispatcher may hold locked meanwhile: a deadlock is retried.
      for (let attempt = 1; ; attempt++) {
        try {
          await client.query('DELETE FROM webhook_subscriptions');
          break;
        } catch (error) {
          if (attempt === 5 || (error as { code?: string }).code !== '40P01') throw error;
        }
      }
      for (let i = 0; i < count; i++) {
        await client.query(
          `INSERT INTO webhook_subscriptions (api_key_id, url, events, secret)
           VALUES ((SELECT min(id) FROM api_keys), $1,
                   '{order.placed,order.shipped,order.cancelled,category.created}', $2)`,
          [receiverUrl, randomBytes(32)],
        );
      }
    };

    /**
     * The dispatcher alone: DISPATCH_BACKLOG deliveries made due at once (one subscription),
     * timed until none is pending; the service's CPU and statements per delivery.
     */
    const dispatchAlone = async () => {
      await setSubscriptions(1);
      const payload = JSON.stringify({
        id: 'evt_bench',
        type: 'order.placed',
        createdAt: new Date().toISOString(),
        data: { id: 1, petId, quantity: 1, complete: false, status: 'placed' },
      });
      const statementsBefore = await snapshotStatements(client);
      const cpuBefore = dispatching.cpuMs() ?? 0;
      const connectionsBefore = receiverConnections;
      const started = performance.now();
      await client.query(
        `INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, payload, next_attempt_at)
         SELECT ${HARNESS_STATEMENT} (SELECT min(id) FROM webhook_subscriptions), 'evt_bench_' || i, 'order.placed', $1, now()
         FROM generate_series(1, $2::int) i`,
        [payload, DISPATCH_BACKLOG],
      );
      for (;;) {
        const { rows } = await client.query<{ pending: number }>(
          `SELECT ${HARNESS_STATEMENT} count(*)::int AS pending FROM webhook_deliveries WHERE status = 'pending'`,
        );
        if (rows[0].pending === 0) break;
        if (performance.now() - started > 600_000) throw new Error('the dispatcher did not finish');
        await new Promise((wait) => setTimeout(wait, 50));
      }
      const seconds = (performance.now() - started) / 1000;
      const cost = statementsBetween(
        statementsBefore,
        await snapshotStatements(client),
        DISPATCH_BACKLOG,
      );
      return {
        perSecond: DISPATCH_BACKLOG / seconds,
        cpuUsPerDelivery: (((dispatching.cpuMs() ?? 0) - cpuBefore) * 1000) / DISPATCH_BACKLOG,
        statementsPerDelivery: cost ? cost.perRequest + cost.backgroundPerRequest : null,
        statements: cost,
        connections: receiverConnections - connectionsBefore,
      };
    };

    const results: Record<string, Record<'off' | 'on', Measured[]>> = {
      placeOrder: { off: [], on: [] },
      cancelOrder: { off: [], on: [] },
    };
    const backlogs: Record<string, Backlog[]> = { placeOrder: [], cancelOrder: [] };
    const load = loadavg()[0];
    await setSubscriptions(0);
    await place(); // warm-up
    process.stderr.write(`dispatcher alone: ${DISPATCH_BACKLOG} deliveries …\n`);
    const alone = await dispatchAlone();
    if (process.env.BENCH_DISPATCH_ONLY === '1') {
      process.stdout.write(
        `dispatcher alone: ${JSON.stringify({ ...alone, statements: undefined })}\n`,
      );
      return;
    }
    for (let round = 1; round <= ROUNDS; round++) {
      for (const mode of ['off', 'on'] as const) {
        await setSubscriptions(mode === 'on' ? SUBSCRIPTIONS : 0);
        process.stderr.write(`round ${round}, webhooks ${mode}: placeOrder, cancelOrder …\n`);
        for (const [operation, run] of [
          ['placeOrder', place],
          ['cancelOrder', cancel],
        ] as const) {
          if (mode === 'off') {
            results[operation].off.push(await run());
          } else {
            const before = { api: server.cpuMs() ?? 0, dispatcher: dispatcher?.cpuMs() ?? 0 };
            const { result, backlog } = await sampleBacklog(client, run);
            splitCpu.api += (server.cpuMs() ?? 0) - before.api;
            splitCpu.dispatcher += (dispatcher?.cpuMs() ?? 0) - before.dispatcher;
            results[operation].on.push(result);
            backlogs[operation].push(backlog);
          }
        }
      }
    }
    const { rows: sent } = await client.query<{ status: string; n: string }>(
      'SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status ORDER BY status',
    );

    const date = new Date().toISOString().slice(0, 10);
    const lines = [
      `# What events cost placeOrder and cancelOrder, and whether the dispatcher keeps up (${date})`,
      '',
      ...(split
        ? [
            `The dispatcher in an instance of its own (BENCH_WEBHOOK_SPLIT=1): the requests go to an ` +
              `instance with WEBHOOK_DISPATCHER=false, a second one only dispatches. Over the rounds ` +
              `with subscriptions, CPU: dispatcher instance ${(splitCpu.dispatcher / 1000).toFixed(1)} s, ` +
              `API instance ${(splitCpu.api / 1000).toFixed(1)} s: the dispatcher's share ` +
              `${((100 * splitCpu.dispatcher) / (splitCpu.dispatcher + splitCpu.api)).toFixed(0)} %.`,
            '',
          ]
        : []),
      `Built service, production settings (rate limiter on at 1 000 000/min, request logs at info to a file); ` +
        `PostgreSQL ${db.version} (${db.server}). Webhooks on = ${SUBSCRIPTIONS} subscriptions to every event ` +
        `(each change inserts ${SUBSCRIPTIONS} deliveries; the dispatcher sends them meanwhile). ${ROUNDS} alternating ` +
        `rounds of ${DURATION_S} s, ${CONNECTIONS} connections; medians. Load average ${load.toFixed(2)} at the ` +
        `start, ${loadavg()[0].toFixed(2)} at the end.`,
      '',
      `Dispatcher alone (${DISPATCH_BACKLOG} due deliveries, one subscription, a receiver answering 204 at once): ` +
        `**${alone.perSecond.toFixed(0)} deliveries/s**, ${alone.cpuUsPerDelivery.toFixed(0)} µs of the service's CPU per delivery, ` +
        `${alone.statementsPerDelivery === null ? '—' : alone.statementsPerDelivery.toFixed(2)} statements per delivery, ` +
        `${alone.connections} connections opened to the receiver. Statements: ${describeStatements(alone.statements)}`,
      '',
      '| operation | req/s off | req/s on | ratio on/off | p50 ms off | p50 ms on | statements/req off | statements/req on | background/req on | errors |',
      '| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
    ];
    const details: string[] = [];
    for (const [operation, modes] of Object.entries(results)) {
      const of = (mode: 'off' | 'on', pick: (m: Measured) => number | null | undefined) =>
        median(modes[mode].map(pick).filter((v): v is number => typeof v === 'number'));
      const rps = (mode: 'off' | 'on') => of(mode, (m) => m.load.requestsPerSecond);
      const p50 = (mode: 'off' | 'on') => of(mode, (m) => m.load.latencyP50Ms);
      const counted = modes.on.some((m) => m.statements !== null);
      const statements = (mode: 'off' | 'on', pick: (s: StatementCost) => number) =>
        counted ? of(mode, (m) => (m.statements ? pick(m.statements) : null)).toFixed(2) : '—';
      const errors = [...modes.off, ...modes.on].reduce(
        (sum, m) => sum + m.load.errors + m.load.timeouts + m.load.unexpectedStatus,
        0,
      );
      lines.push(
        `| ${operation} | ${rps('off').toFixed(0)} | ${rps('on').toFixed(0)} | ${(rps('on') / rps('off')).toFixed(2)} | ${p50('off')} | ${p50('on')} | ${statements('off', (s) => s.perRequest)} | ${statements('on', (s) => s.perRequest)} | ${statements('on', (s) => s.backgroundPerRequest)} | ${errors} |`,
      );
      for (const mode of ['off', 'on'] as const) {
        details.push(
          `- ${operation}, webhooks ${mode}: ${describeStatements(modes[mode].at(-1)?.statements)}`,
        );
      }
    }
    lines.push(
      '',
      'With subscriptions, while the writes saturate the service: deliveries sent per second, the oldest pending',
      `delivery's age (maximum of samples every ${SAMPLE_MS} ms) and the deliveries pending at the end, medians of the rounds:`,
      '',
      '| operation | deliveries/s | deliveries/s per change/s | max oldest pending age s | pending at the end |',
      '| --- | --: | --: | --: | --: |',
    );
    for (const [operation, rounds] of Object.entries(backlogs)) {
      const of = (pick: (b: Backlog) => number) => median(rounds.map(pick));
      const changes = median(results[operation].on.map((m) => m.load.requestsPerSecond));
      lines.push(
        `| ${operation} | ${of((b) => b.deliveredPerSecond).toFixed(0)} | ${(of((b) => b.deliveredPerSecond) / changes).toFixed(2)} | ${of((b) => b.maxOldestAgeS).toFixed(1)} | ${of((b) => b.pendingAtEnd)} |`,
      );
    }
    lines.push(
      '',
      `deliveries at the end: ${sent.map((r) => `${r.status} ${r.n}`).join(', ')}`,
      '',
      'statements/req: statements PostgreSQL executed for the requests (pg_stat_statements), each one',
      "round trip; background/req: the dispatcher's and purges' statements meanwhile, per request. Last round:",
      '',
      ...details,
    );
    await saveReport(app, `webhooks-${date}${split ? '-split' : ''}`, lines);
  } finally {
    await dispatcher?.stop();
    await service?.stop();
    await client.end().catch(() => undefined);
    receiver.close();
    await db.dispose();
    await rm(workDir, { recursive: true, force: true });
  }
}

runMain(main);
