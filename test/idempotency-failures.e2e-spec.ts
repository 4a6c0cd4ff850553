import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { loadConfig } from '../src/config/app-config.js';
import { countRows, insertPet } from './support/factories.js';
import { expectErrorResponse } from './support/http-assertions.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { testRun, withClient } from './support/test-database.js';

/** Short, so the tests that wait it out stay short; longer than the 503's usual 5 s. */
const LOCK_SECONDS = 6;
const newKey = () => `k-${randomBytes(8).toString('hex')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A create with an Idempotency-Key whose create fails (docs/api.md, Idempotency-Key): the key
 * is freed; when it cannot be, the 503 tells the client to wait until its lock is over, so a
 * client that obeys Retry-After never meets 409 IDEMPOTENCY_KEY_IN_USE.
 */
describe('Idempotency-Key when the create fails (e2e)', () => {
  let t: TestApp;
  let petId: number;

  beforeAll(async () => {
    t = await createTestApp({
      idempotency: {
        ...loadConfig({ LOG_LEVEL: 'silent' }).idempotency,
        lockSeconds: LOCK_SECONDS,
      },
    });
    petId = await insertPet(t.db, { name: 'Rex' });
  });
  afterAll(() => t.close());

  const placeOrder = (key: string) =>
    t.http
      .post('/v1/store/orders')
      .set('Authorization', t.auth)
      .set('Idempotency-Key', key)
      .send({ petId, quantity: 2 });

  /** Seconds left on the key's lock, by the database's clock; null: no record. */
  const lockLeft = async (key: string) => {
    const { rows } = await t.db.query<{ left: number | null }>(
      `SELECT extract(epoch FROM locked_until - now())::float AS left
       FROM idempotency_keys WHERE key = $1`,
      [key],
    );
    return rows.length === 0 ? null : rows[0].left;
  };

  /** SQL raising `sqlstate` before every `event` on `table`; answers the SQL that removes it. */
  const failEvery = async (event: string, table: string, sqlstate: string) => {
    const name = `fail_${table}_${event.toLowerCase().replace(/ /g, '_')}`;
    await t.db.query(`
      CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS
        $$ BEGIN RAISE EXCEPTION 'injected rejection' USING ERRCODE = '${sqlstate}'; END $$;
      CREATE TRIGGER ${name} BEFORE ${event} ON ${table}
        FOR EACH ROW EXECUTE FUNCTION ${name}();`);
    return `DROP TRIGGER IF EXISTS ${name} ON ${table}; DROP FUNCTION IF EXISTS ${name}();`;
  };

  /** Waits Retry-After from the moment the answer arrived, as an obedient client does. */
  const obey = async (answer: Response, receivedAt: number) => {
    const seconds = Number(answer.headers['retry-after']);
    expect(Number.isInteger(seconds) && seconds > 0).toBe(true);
    await sleep(receivedAt + seconds * 1000 - Date.now());
  };

  it('a create the database refuses frees its key: a retry runs at once', async () => {
    const key = newKey();
    const restore = await failEvery('INSERT', 'orders', '57P03');
    let refused: Response;
    try {
      refused = await placeOrder(key);
    } finally {
      await t.db.query(restore);
    }
    expectErrorResponse(refused, 503, 'SERVICE_UNAVAILABLE');
    expect(refused.headers['retry-after']).toBe('5');
    expect(await lockLeft(key)).toBeNull();
    const retry = await placeOrder(key).expect(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a claim the database fails may have taken the key all the same: Retry-After outlasts a lock taken then', async () => {
    const key = newKey();
    const restore = await failEvery('INSERT', 'idempotency_keys', '57P03');
    let refused: Response;
    try {
      refused = await placeOrder(key);
    } finally {
      await t.db.query(restore);
    }
    expectErrorResponse(refused, 503, 'SERVICE_UNAVAILABLE');
    expect(refused.headers['retry-after']).toBe(String(LOCK_SECONDS + 1));
    await placeOrder(key).expect(201);
  });

  it('when the key cannot be freed either, Retry-After outlasts its lock: the obedient retry runs, never 409', async () => {
    const key = newKey();
    const orders = await countRows(t.db, 'orders');
    const restoreOrders = await failEvery('INSERT', 'orders', '57P03');
    const restoreRelease = await failEvery('DELETE', 'idempotency_keys', '57P03');
    let refused: Response;
    let receivedAt: number;
    try {
      refused = await placeOrder(key);
      receivedAt = Date.now();
      expectErrorResponse(refused, 503, 'SERVICE_UNAVAILABLE');
      t.spec.check('placeOrder', refused);
      // The key is still held, and Retry-After lasts longer than its lock.
      const left = await lockLeft(key);
      expect(left).toBeGreaterThan(LOCK_SECONDS - 2);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(left!);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(LOCK_SECONDS + 1);
    } finally {
      await t.db.query(restoreOrders + restoreRelease);
    }
    // A client that does not wait meets the lock it left behind.
    expectErrorResponse(await placeOrder(key), 409, 'IDEMPOTENCY_KEY_IN_USE');

    await obey(refused, receivedAt);
    const retry = await placeOrder(key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await countRows(t.db, 'orders')).toBe(orders + 1);
  });

  it('when the database refuses connections mid-create: 503, and the retry after Retry-After runs, never 409', async () => {
    const key = newKey();
    const database = new URL(t.databaseUrl).pathname.slice(1);
    // The order's insert ends every session of the app (its own too), and no new one is let in.
    await t.db.query(`
      CREATE FUNCTION end_app_sessions() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        PERFORM pg_terminate_backend(pid) FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'petstore-api'
            AND pid <> pg_backend_pid();
        PERFORM pg_terminate_backend(pg_backend_pid());
        RETURN NEW;
      END $$;
      CREATE TRIGGER end_app_sessions BEFORE INSERT ON orders
        FOR EACH ROW EXECUTE FUNCTION end_app_sessions();`);
    const admin = (sql: string) => withClient(testRun.adminUrl(), (client) => client.query(sql));
    await admin(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
    let refused: Response;
    let receivedAt: number;
    try {
      refused = await placeOrder(key);
      receivedAt = Date.now();
    } finally {
      await admin(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
      await t.db.query(
        'DROP TRIGGER end_app_sessions ON orders; DROP FUNCTION end_app_sessions();',
      );
    }
    expectErrorResponse(refused, 503, 'SERVICE_UNAVAILABLE');
    // The key is held (nothing could free it), and Retry-After lasts longer than its lock.
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan((await lockLeft(key))!);
    await obey(refused, receivedAt);
    const retry = await placeOrder(key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });
});
