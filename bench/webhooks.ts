/**
 * npm run bench:webhooks — what events cost the operations that emit them. The built service
 * (production settings: service.ts) runs placeOrder and cancelOrder with no webhook
 * subscription (the outbox CTE inserts nothing), then with three subscriptions to every event
 * (three deliveries per change, and the dispatcher sending them to a local receiver),
 * alternating, three rounds each; the report gives the median requests per second, the ratio
 * with / without, and the statements (round trips) per request that PostgreSQL counted.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
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
  measureLoad,
  type Measured,
  type StatementCost,
} from './statements.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const ROUNDS = 3;
const CONNECTIONS = 20;
const SUBSCRIPTIONS = 3;
/** Pending orders made ready for each cancel run (more than a run can cancel). */
const CANCELLABLE = 60_000;

async function main(): Promise<void> {
  const app = resolve('.');
  const workDir = await mkdtemp(join(tmpdir(), 'petstore-bench-webhooks-'));
  const db = await openBenchDatabase(workDir, { statementStats: true });
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const env = { PATH: process.env.PATH ?? '', DATABASE_URL: db.url };
  const client = new pg.Client({ connectionString: db.url });
  let service: Awaited<ReturnType<typeof startProductionService>> | undefined;
  try {
    await runNode(join(app, 'dist', 'database', 'migrate.cli.js'), env, workDir);
    await client.connect();
    const data = await seedBase(client);
    service = await startProductionService({
      workDir,
      databaseUrl: db.url,
      apiKey: data.apiKey,
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    });
    const server = service;
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

    const results: Record<string, Record<'off' | 'on', Measured[]>> = {
      placeOrder: { off: [], on: [] },
      cancelOrder: { off: [], on: [] },
    };
    const load = loadavg()[0];
    await setSubscriptions(0);
    await place(); // warm-up
    for (let round = 1; round <= ROUNDS; round++) {
      for (const mode of ['off', 'on'] as const) {
        await setSubscriptions(mode === 'on' ? SUBSCRIPTIONS : 0);
        process.stderr.write(`round ${round}, webhooks ${mode}: placeOrder, cancelOrder …\n`);
        results.placeOrder[mode].push(await place());
        results.cancelOrder[mode].push(await cancel());
      }
    }
    const { rows: sent } = await client.query<{ status: string; n: string }>(
      'SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status ORDER BY status',
    );

    const date = new Date().toISOString().slice(0, 10);
    const lines = [
      `# What events cost placeOrder and cancelOrder (${date})`,
      '',
      `Built service, production settings (rate limiter on at 1 000 000/min, request logs at info to a file); ` +
        `PostgreSQL ${db.version} (${db.server}). Webhooks on = ${SUBSCRIPTIONS} subscriptions to every event ` +
        `(each change inserts ${SUBSCRIPTIONS} deliveries; the dispatcher sends them meanwhile). ${ROUNDS} alternating ` +
        `rounds of ${DURATION_S} s, ${CONNECTIONS} connections; medians. Load average ${load.toFixed(2)} at the ` +
        `start, ${loadavg()[0].toFixed(2)} at the end.`,
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
      `deliveries at the end: ${sent.map((r) => `${r.status} ${r.n}`).join(', ')}`,
      '',
      'statements/req: statements PostgreSQL executed for the requests (pg_stat_statements), each one',
      "round trip; background/req: the dispatcher's and purges' statements meanwhile, per request. Last round:",
      '',
      ...details,
    );
    const markdown = `${lines.join('\n')}\n`;
    const resultsDir = join(app, 'bench', 'results');
    await mkdir(resultsDir, { recursive: true });
    const file = join(resultsDir, `webhooks-${date}.md`);
    await writeFile(file, markdown);
    process.stdout.write(`${markdown}\nwritten to ${file}\n`);
  } finally {
    await service?.stop();
    await client.end().catch(() => undefined);
    receiver.close();
    await db.dispose();
    await rm(workDir, { recursive: true, force: true });
  }
}

runMain(main);
