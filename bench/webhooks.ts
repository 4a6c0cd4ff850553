/**
 * npm run bench:webhooks — what events cost the operations that emit them. The built service
 * runs placeOrder and cancelOrder with no webhook subscription (the outbox CTE inserts
 * nothing), then with three subscriptions to every event (three deliveries per change, and
 * the dispatcher sending them to a local receiver), alternating, three rounds each; the
 * report gives the median requests per second and the ratio with / without.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { openBenchDatabase } from './database.js';
import { runLoad, type LoadResult } from './load.js';
import { freePort, runNode, startServer } from './processes.js';
import { seedBase } from './seed.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const ROUNDS = 3;
const CONNECTIONS = 20;
const SUBSCRIPTIONS = 3;
/** Pending orders made ready for each cancel run (more than a run can cancel). */
const CANCELLABLE = 60_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  const app = resolve('.');
  const workDir = await mkdtemp(join(tmpdir(), 'petstore-bench-webhooks-'));
  const db = await openBenchDatabase(workDir);
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const env = { PATH: process.env.PATH ?? '', DATABASE_URL: db.url, LOG_LEVEL: 'warn' };
  const client = new pg.Client({ connectionString: db.url });
  let service: Awaited<ReturnType<typeof startServer>> | undefined;
  try {
    await runNode(join(app, 'dist', 'database', 'migrate.cli.js'), env, workDir);
    await client.connect();
    const data = await seedBase(client);
    const port = await freePort();
    service = await startServer({
      name: 'service',
      script: join(app, 'dist', 'main.js'),
      cwd: workDir,
      port,
      readyPath: '/health/ready',
      env: {
        ...env,
        PORT: String(port),
        SEED_DEMO: 'false',
        LOG_FORMAT: 'json',
        BOOTSTRAP_API_KEY: data.apiKey,
        RATE_LIMIT_PER_MINUTE: '0',
        RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '0',
        SHUTDOWN_DRAIN_DELAY_MS: '0',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      },
    });
    const server = service;
    const headers = {
      authorization: `Bearer ${data.apiKey}`,
      'content-type': 'application/json',
    };
    const petId = data.petIds[0];
    const place = (): Promise<LoadResult> =>
      runLoad({
        url: `${server.baseUrl}/v1/store/orders`,
        connections: CONNECTIONS,
        durationS: DURATION_S,
        expectedStatus: 201,
        headers,
        requests: [{ method: 'POST', body: JSON.stringify({ petId, quantity: 1 }) }],
        serverCpuMs: () => server.cpuMs(),
      });
    const cancel = async (): Promise<LoadResult> => {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO orders (pet_id, quantity) SELECT $1, 1 FROM generate_series(1, $2::int)
         RETURNING id`,
        [petId, CANCELLABLE],
      );
      let next = 0;
      return runLoad({
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
      await client.query('DELETE FROM webhook_subscriptions');
      for (let i = 0; i < count; i++) {
        await client.query(
          `INSERT INTO webhook_subscriptions (api_key_id, url, events, secret)
           VALUES ((SELECT min(id) FROM api_keys), $1,
                   '{order.placed,order.shipped,order.cancelled,category.created}', $2)`,
          [receiverUrl, randomBytes(32)],
        );
      }
    };

    const results: Record<string, Record<'off' | 'on', LoadResult[]>> = {
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

    const lines = [
      `webhooks on = ${SUBSCRIPTIONS} subscriptions to every event (each change inserts ${SUBSCRIPTIONS} deliveries; the dispatcher sends them meanwhile)`,
      `${ROUNDS} alternating rounds of ${DURATION_S} s, ${CONNECTIONS} connections; medians; load average ${load.toFixed(2)} at the start, ${loadavg()[0].toFixed(2)} at the end`,
      '',
      '| operation | req/s off | req/s on | ratio on/off | p50 ms off | p50 ms on | errors |',
      '| --- | --- | --- | --- | --- | --- | --- |',
    ];
    for (const [operation, modes] of Object.entries(results)) {
      const rps = (mode: 'off' | 'on') => median(modes[mode].map((r) => r.requestsPerSecond));
      const p50 = (mode: 'off' | 'on') => median(modes[mode].map((r) => r.latencyP50Ms));
      const errors = [...modes.off, ...modes.on].reduce(
        (sum, r) => sum + r.errors + r.timeouts + r.unexpectedStatus,
        0,
      );
      lines.push(
        `| ${operation} | ${rps('off').toFixed(0)} | ${rps('on').toFixed(0)} | ${(rps('on') / rps('off')).toFixed(2)} | ${p50('off')} | ${p50('on')} | ${errors} |`,
      );
    }
    lines.push('', `deliveries at the end: ${sent.map((r) => `${r.status} ${r.n}`).join(', ')}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await service?.stop();
    await client.end().catch(() => undefined);
    receiver.close();
    await db.dispose();
    await rm(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
