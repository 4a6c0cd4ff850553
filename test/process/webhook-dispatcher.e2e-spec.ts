import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, testRun } from '../support/test-database.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';

const KEY = `psk_${randomBytes(32).toString('base64url')}`;

/** The dispatcher as operators run it: the built service in its own process. */
describe('webhook dispatcher across a crash and a graceful stop (real process)', () => {
  let databaseUrl: string;
  let db: pg.Pool;
  let receiver: WebhookReceiver;
  const services: ServiceProcess[] = [];

  /** `undefined` leaves a variable out: the service's default applies. */
  const start = (env: Record<string, string | undefined> = {}) =>
    startService(
      Object.fromEntries(
        Object.entries({
          DATABASE_URL: databaseUrl,
          BOOTSTRAP_API_KEY: KEY,
          RATE_LIMIT_PER_MINUTE: '0',
          WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
          WEBHOOK_POLL_INTERVAL_MS: '100',
          WEBHOOK_TIMEOUT_MS: '5000',
          WEBHOOK_CLAIM_TTL_MS: '6000',
          WEBHOOK_RETRY_SCHEDULE: '0.2',
          SHUTDOWN_DRAIN_DELAY_MS: '0',
          ...env,
        }).filter((entry): entry is [string, string] => entry[1] !== undefined),
      ),
    ).then((service) => {
      services.push(service);
      return service;
    });

  const subscribe = async () => {
    await db.query('DELETE FROM webhook_subscriptions');
    await db.query(
      `INSERT INTO webhook_subscriptions (api_key_id, url, events, secret)
       VALUES ((SELECT min(id) FROM api_keys), $1, '{category.created}', $2)`,
      [receiver.url, randomBytes(32)],
    );
  };

  const createCategory = (service: ServiceProcess, name: string) =>
    fetch(`${service.url}/v1/categories`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name }),
    }).then((res) => expect(res.status).toBe(201));

  const attempts = async () =>
    (
      await db.query<{ attempt: number; outcome: string | null }>(
        'SELECT attempt, outcome FROM webhook_attempts ORDER BY delivery_id, attempt',
      )
    ).rows;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase(
      `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
    );
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    receiver = await new WebhookReceiver().start();
  });
  afterEach(async () => {
    await Promise.all(services.splice(0).map((service) => service.stop()));
    receiver.reset();
  });
  afterAll(async () => {
    await db.end();
    await receiver.close();
  });

  it('retries a delivery cut off by kill -9 once its claim runs out after the restart', async () => {
    const first = await start();
    await subscribe();
    receiver.answer = (_entry, index) => (index === 0 ? 'hang' : 200);
    await createCategory(first, 'killed');
    await receiver.waitFor(1);
    first.child.kill('SIGKILL');
    await first.exited;

    // A shorter claim after the restart only to keep the test short; the first one holds.
    const second = await start({ WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_CLAIM_TTL_MS: '1500' });
    await receiver.waitFor(2, 15_000);
    expect(receiver.received[1].headers['webhook-id']).toBe(
      receiver.received[0].headers['webhook-id'],
    );
    await eventually(async () => (await attempts()).some((a) => a.outcome === 'succeeded'));
    expect(await attempts()).toEqual([
      { attempt: 1, outcome: 'interrupted' },
      { attempt: 2, outcome: 'succeeded' },
    ]);
    const { rows } = await db.query('SELECT status, attempts FROM webhook_deliveries');
    expect(rows).toEqual([{ status: 'succeeded', attempts: 2 }]);
    await second.stop();
  });

  it('finishes the attempts in flight on SIGTERM before it exits 0', async () => {
    await db.query('DELETE FROM webhook_deliveries');
    const service = await start();
    await subscribe();
    let release: () => void = () => undefined;
    const answered = new Promise<void>((done) => (release = done));
    receiver.answer = () => 'hang';
    await createCategory(service, 'drained');
    await receiver.waitFor(1);
    service.child.kill('SIGTERM');
    // The receiver answers a second later; the instance waits for it.
    setTimeout(() => {
      receiver.answerHanging(200);
      release();
    }, 1000);
    const exit = await service.exited;
    await answered;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(await attempts()).toEqual([{ attempt: 1, outcome: 'succeeded' }]);
    expect(receiver.received).toHaveLength(1);
  });

  it('has at most WEBHOOK_CONCURRENCY attempts in flight, and delivers them all', async () => {
    await db.query('DELETE FROM webhook_deliveries');
    const service = await start({ WEBHOOK_CONCURRENCY: '2' });
    await subscribe();
    // Held longer than all six changes take and than a poll interval: an instance that
    // claimed past its limit would have them all in flight at once.
    receiver.answer = () => new Promise((answer) => setTimeout(() => answer(200), 400));
    for (let i = 0; i < 6; i++) await createCategory(service, `busy-${i}`);
    await eventually(async () => {
      const { rows } = await db.query<{ status: string }>('SELECT status FROM webhook_deliveries');
      return rows.length === 6 && rows.every((row) => row.status === 'succeeded');
    });
    expect(receiver.received).toHaveLength(6);
    expect(new Set(receiver.received.map((entry) => entry.headers['webhook-id'])).size).toBe(6);
    // Both slots used, never a third.
    expect(receiver.maxInFlight).toBe(2);
  });

  it('starts the first attempt within 2 s of the change with the default poll interval', async () => {
    const service = await start({ WEBHOOK_POLL_INTERVAL_MS: undefined });
    await subscribe();
    // Each change after the first comes just after the poll that claimed the one before:
    // it waits nearly a whole interval, the slowest case.
    for (let i = 0; i < 3; i++) {
      const changed = Date.now();
      await createCategory(service, `timely-${i}`);
      const [entry] = (await receiver.waitFor(i + 1)).slice(i);
      expect(entry.receivedAt - changed).toBeLessThan(2000);
    }
  });
});
