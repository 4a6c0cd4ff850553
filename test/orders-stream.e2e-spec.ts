import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { insertPet } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** Inserts `count` orders in one statement, in a mix of states. */
async function insertOrders(db: pg.Pool, petId: number, count: number): Promise<void> {
  await db.query(
    `INSERT INTO orders (pet_id, quantity, status, ship_date)
     SELECT $1, 1 + g % 10, s.status, CASE WHEN s.status = 'shipped' THEN now() END
     FROM generate_series(1, $2) g
     CROSS JOIN LATERAL (SELECT (ARRAY['pending', 'shipped', 'cancelled'])[1 + g % 3] AS status) s`,
    [petId, count],
  );
}

/** The app's connection pool, as the driver holds it. */
function pool(t: TestApp): pg.Pool {
  return (t.app.get(DataSource).driver as unknown as { master: pg.Pool }).master;
}

async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((wait) => setTimeout(wait, 20));
  }
}

describe('GET /v1/store/orders streaming (e2e)', () => {
  let t: TestApp;
  let petId: number;
  let baseUrl: string;

  beforeAll(async () => {
    t = await createTestApp();
    petId = await insertPet(t.db, { name: 'Streamer' });
    await insertOrders(t.db, petId, 60_000);
    const server = t.app.getHttpServer();
    if (!server.listening) await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(() => t.close());

  it('streams every order as one JSON array, in id order, chunked', async () => {
    const res = await fetch(`${baseUrl}/v1/store/orders`, { headers: { Authorization: t.auth } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const orders = (await res.json()) as Array<{
      id: number;
      status: string;
      complete: boolean;
      shipDate?: string;
    }>;
    expect(orders).toHaveLength(60_000);
    for (let i = 1; i < orders.length; i++) {
      if (orders[i].id <= orders[i - 1].id) throw new Error(`order ${i} out of order`);
    }
    const shipped = orders.find((order) => order.status === 'shipped')!;
    expect(shipped.complete).toBe(true);
    expect(shipped.shipDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(orders.find((order) => order.status === 'pending')).not.toHaveProperty('shipDate');
  });

  it('returns the connection to the pool at once when the client hangs up halfway', async () => {
    const before = pool(t).totalCount;
    await new Promise<void>((done, fail) => {
      const request = http.get(
        `${baseUrl}/v1/store/orders`,
        { headers: { Authorization: t.auth } },
        (res) => {
          let received = 0;
          res.on('data', (chunk: Buffer) => {
            received += chunk.length;
            // Well into the stream, long before its end (several MB).
            if (received > 256 * 1024) {
              request.destroy();
              done();
            }
          });
          res.on('end', () => fail(new Error('the whole body arrived before the client hung up')));
        },
      );
      request.on('error', () => undefined);
    });
    await until(() => pool(t).idleCount === pool(t).totalCount, 2000);
    expect(pool(t).waitingCount).toBe(0);
    expect(pool(t).totalCount).toBeGreaterThanOrEqual(Math.min(before, 1));
    // No cursor is left running on the server either.
    await until(async () => {
      const { rows } = await t.db.query<{ count: string }>(
        `SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%json_strip_nulls%' AND state <> 'idle' AND pid <> pg_backend_pid()`,
      );
      return rows[0].count === '0';
    }, 2000);
    // And the pool serves the next request normally.
    const res = await fetch(`${baseUrl}/v1/store/orders`, { headers: { Authorization: t.auth } });
    expect((await res.json()) as unknown[]).toHaveLength(60_000);
  });

  it('cuts the response when the database fails midway: the client sees it truncated, not a success', async () => {
    const outcome = await new Promise<{ complete: boolean; received: number }>((done) => {
      http.get(`${baseUrl}/v1/store/orders`, { headers: { Authorization: t.auth } }, (res) => {
        let received = 0;
        let killed = false;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (!killed && received > 64 * 1024) {
            killed = true;
            res.pause();
            void t.db
              .query(
                `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%json_strip_nulls%' AND pid <> pg_backend_pid()`,
              )
              .then(() => setTimeout(() => res.resume(), 100));
          }
        });
        res.on('close', () => done({ complete: res.complete, received }));
      });
    });
    expect(outcome.complete).toBe(false);
    expect(outcome.received).toBeGreaterThan(64 * 1024);
    // The broken connection was dropped, not handed out again.
    await fetch(`${baseUrl}/v1/store/orders/1`, { headers: { Authorization: t.auth } }).then(
      (res) => expect(res.status).toBe(200),
    );
  });
});
