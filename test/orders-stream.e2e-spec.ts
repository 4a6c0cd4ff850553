import http from 'node:http';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { ApiKeysService } from '../src/auth/api-keys.service.js';
import { loadConfig } from '../src/config/app-config.js';
import { insertPet } from './support/factories.js';
import { replicaCaughtUp } from './support/replica.js';
import { createTestApp, listeningOrigin, type TestApp } from './support/test-app.js';
import { eventually } from './support/eventually.js';

/**
 * listOrders as PostgreSQL rendered it before the service did (json_build_object, to_char): the
 * service's bytes must stay exactly these.
 */
const ORDERS_AS_POSTGRES_JSON = `
  SELECT coalesce('[' || string_agg(json_strip_nulls(json_build_object(
    'id', id, 'petId', pet_id, 'quantity', quantity,
    'shipDate', to_char(ship_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'complete', status = 'shipped', 'status', status))::text, ',' ORDER BY id) || ']', '[]') AS body
  FROM orders`;

/** Long listOrders statements (their COPY) still running on the server. */
const OPEN_LIST_CURSORS = `SELECT count(*) FROM pg_stat_activity
  WHERE datname = current_database() AND query LIKE '%batched_query_stream%' AND state <> 'idle'
    AND pid <> pg_backend_pid()`;
/**
 * The service's sessions in this database inside a transaction (the list's: its COPY under way,
 * or sent and waiting for the service to read it). Other suites may share the server.
 */
const LIST_SESSION_PIDS = `SELECT pid FROM pg_stat_activity
  WHERE datname = current_database() AND application_name = 'petstore-api'
    AND xact_start IS NOT NULL AND pid <> pg_backend_pid()`;

/**
 * Inserts `count` orders in one statement, in a mix of states: in a transaction of its own,
 * without the role's statement timeout (the app set it; this is test set-up, not a request).
 * With a standby (npm run test:replicas), returns once it has them: the app reads from it, and
 * these rows are no key's last write.
 */
async function insertOrders(db: pg.Pool, petId: number, count: number): Promise<void> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query(
      `INSERT INTO orders (pet_id, quantity, status, ship_date)
       SELECT $1, 1 + g % 10, s.status, CASE WHEN s.status = 'shipped' THEN now() END
       FROM generate_series(1, $2) g
       CROSS JOIN LATERAL (SELECT (ARRAY['pending', 'shipped', 'cancelled'])[1 + g % 3] AS status) s`,
      [petId, count],
    );
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  await replicaCaughtUp();
}

/** The app's connection pool, as the driver holds it. */
/**
 * Tests that watch the primary's pool and sessions read their lists there, in a run with a
 * replica too (npm run test:replicas streams a million orders from the replica).
 */
const ON_THE_PRIMARY = { replicas: { ...loadConfig({}).replicas, urls: [] } };

function pool(t: TestApp): pg.Pool {
  return (t.app.get(DataSource).driver as unknown as { master: pg.Pool }).master;
}

/**
 * Records the text of each statement the app's pool runs from now until stop() (which returns
 * them).
 */
function recordStatements(t: TestApp): { stop(): string[] } {
  const statements: string[] = [];
  const wrapped = new WeakSet<pg.PoolClient>();
  const onAcquire = (client: pg.PoolClient): void => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: typeof query }).query = (...args: unknown[]) => {
      const config = args[0] as string | { text: string };
      statements.push(typeof config === 'string' ? config : config.text);
      return query(...args);
    };
  };
  pool(t).on('acquire', onAcquire);
  return {
    stop() {
      pool(t).removeListener('acquire', onAcquire);
      return statements;
    },
  };
}

describe('GET /v1/store/orders streaming (e2e)', () => {
  let t: TestApp;
  let petId: number;
  let baseUrl: string;

  beforeAll(async () => {
    t = await createTestApp();
    petId = await insertPet(t.db, { name: 'Streamer' });
    await insertOrders(t.db, petId, 60_000);
    baseUrl = await listeningOrigin(t);
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

  it('sends the bytes PostgreSQL rendered before, through the COPY (60 000 orders)', async () => {
    // Ship dates with and without fractions, microseconds, and at both ends of the range.
    await t.db.query(`UPDATE orders SET ship_date = CASE id % 4
        WHEN 0 THEN timestamptz '2026-03-01 10:00:00.123456+00'
        WHEN 1 THEN timestamptz '0001-01-01 00:00:00+00'
        WHEN 2 THEN timestamptz '9999-12-31 23:59:59.999999+00' ELSE ship_date END
      WHERE id % 97 = 0 AND status <> 'shipped'`);
    const [expected, res] = await Promise.all([
      t.db.query<{ body: string }>(ORDERS_AS_POSTGRES_JSON),
      fetch(`${baseUrl}/v1/store/orders`, { headers: { Authorization: t.auth } }),
    ]);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body.length).toBe(expected.rows[0].body.length);
    expect(body === expected.rows[0].body).toBe(true);
  });

  it('costs one statement, one round trip, and is sent with its length, for a list that fits in one batch', async () => {
    const small = await createTestApp(ON_THE_PRIMARY);
    try {
      const pet = await insertPet(small.db, { name: 'Small' });
      await insertOrders(small.db, pet, 4999);
      await small.db.query(
        `UPDATE orders SET ship_date = '2026-11-25 10:33:54.571234+05:30' WHERE id % 2 = 0`,
      );
      const recording = recordStatements(small);
      const res = await small.http.get('/v1/store/orders').set('Authorization', small.auth);
      const statements = recording.stop();
      expect(res.status).toBe(200);
      expect(res.body).toHaveLength(4999);
      // Whole, it goes out with its length, as one write, not chunked.
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
      expect(res.headers['transfer-encoding']).toBeUndefined();
      const listStatements = statements.filter((text) => /FROM orders/.test(text));
      expect(listStatements).toHaveLength(1);
      expect(listStatements[0]).not.toMatch(/DECLARE|FETCH/);
      const expected = await small.db.query<{ body: string }>(ORDERS_AS_POSTGRES_JSON);
      expect(res.text === expected.rows[0].body).toBe(true);
      // An empty list is an empty array.
      await small.db.query('TRUNCATE orders');
      const empty = await small.http.get('/v1/store/orders').set('Authorization', small.auth);
      expect(empty.text).toBe('[]');
    } finally {
      await small.close();
    }
  });
});

describe('GET /v1/store/orders: limits (e2e)', () => {
  let t: TestApp;
  let baseUrl: string;
  // Two slots, one per key: one key's lists cannot take the other's.
  const db = { ...loadConfig({}).db, maxStreams: 2, maxStreamsPerKey: 1, streamTimeoutMs: 3000 };

  beforeAll(async () => {
    t = await createTestApp({ db, ...ON_THE_PRIMARY });
    // More than the sockets' buffers hold, so a client that stops reading stalls the stream.
    await insertOrders(t.db, await insertPet(t.db, { name: 'Limits' }), 200_000);
    baseUrl = await listeningOrigin(t);
  }, 60_000);
  afterAll(() => t.close());

  /** A list request whose client reads nothing after the headers (a stalled client). */
  function stalledList(
    auth = t.auth,
  ): Promise<{ request: http.ClientRequest; response: http.IncomingMessage }> {
    return new Promise((done) => {
      const request = http.get(
        `${baseUrl}/v1/store/orders`,
        { headers: { Authorization: auth } },
        (response) => {
          response.pause();
          done({ request, response });
        },
      );
      request.on('error', () => undefined);
    });
  }

  it('gives each key its share of the stream slots (429 past it), answers 503 past DB_MAX_STREAMS, then serves again', async () => {
    const keys = t.app.get(ApiKeysService);
    const [other, third] = await Promise.all([keys.issue('e2e other'), keys.issue('e2e third')]);
    const held: Array<{ request: http.ClientRequest }> = [];
    try {
      const first = await stalledList();
      held.push(first);
      expect(first.response.statusCode).toBe(200);

      // The same key again: over its share (its own doing), whatever the instance has free.
      // Refused before any statement reads the orders: the list is long while one streams.
      const refusedStatements = recordStatements(t);
      const again = await t.http.get('/v1/store/orders').set('Authorization', t.auth);
      expect(refusedStatements.stop().filter((text) => /FROM orders/.test(text))).toEqual([]);
      expect(again.status).toBe(429);
      expect(again.headers['retry-after']).toBe('1');
      expect(again.body).toEqual({
        code: 'RATE_LIMITED',
        message:
          'This API key already has its share of order lists being sent at once (1); retry when one has finished.',
        status: 429,
      });

      // Another key still gets its list.
      const second = await stalledList(`Bearer ${other.key}`);
      held.push(second);
      expect(second.response.statusCode).toBe(200);

      // Every slot taken: a third key gets the instance's 503.
      const fullStatements = recordStatements(t);
      const full = await t.http.get('/v1/store/orders').set('Authorization', `Bearer ${third.key}`);
      expect(fullStatements.stop().filter((text) => /FROM orders/.test(text))).toEqual([]);
      expect(full.status).toBe(503);
      expect(full.headers['retry-after']).toBe('1');
      expect(full.body).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'Too many order lists are being sent right now; retry shortly.',
        status: 503,
      });
      // Other operations keep their connections.
      await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
    } finally {
      for (const list of held) list.request.destroy();
    }
    await eventually(() => pool(t).idleCount === pool(t).totalCount, 2000);
    const freed = await stalledList();
    expect(freed.response.statusCode).toBe(200);
    freed.request.destroy();
    await eventually(() => pool(t).idleCount === pool(t).totalCount, 2000);
  });

  it('drops the connection of a list cut halfway, so its cancel cannot reach another request', async () => {
    // A cancel request names a server session, not a statement: had this session gone back to
    // the pool, a cancel arriving late would fail whichever request used it next.
    const stalled = await stalledList();
    let copyPid: number | undefined;
    try {
      expect(stalled.response.statusCode).toBe(200);
      await eventually(async () => {
        const { rows } = await t.db.query<{ pid: number }>(LIST_SESSION_PIDS);
        copyPid = rows.length === 1 ? rows[0].pid : undefined;
        return copyPid !== undefined;
      }, 5000);
    } finally {
      // Even when the test fails: a stalled list would hold the key's only stream slot.
      stalled.request.destroy();
    }
    // The session that ran the COPY ends, and no COPY is left running on the server.
    await eventually(async () => {
      const { rows } = await t.db.query<{ count: string }>(
        'SELECT count(*) FROM pg_stat_activity WHERE pid = $1',
        [copyPid],
      );
      return rows[0].count === '0';
    }, 2000);
    await eventually(async () => {
      const { rows } = await t.db.query<{ count: string }>(OPEN_LIST_CURSORS);
      return rows[0].count === '0';
    }, 2000);
    // The pool holds nothing busy and serves the next request normally.
    await eventually(() => pool(t).idleCount === pool(t).totalCount, 2000);
    expect(pool(t).waitingCount).toBe(0);
    const res = await t.http.get('/v2/store/orders?limit=5').set('Authorization', t.auth);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(5);
  });

  it('cuts a list that takes longer than DB_STREAM_TIMEOUT_MS and frees its connection', async () => {
    const started = Date.now();
    const stalled = await stalledList();
    expect(stalled.response.statusCode).toBe(200);
    await eventually(
      () => pool(t).totalCount > 0 && pool(t).idleCount === pool(t).totalCount,
      10_000,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(db.streamTimeoutMs - 100);
    // Reading again, the client finds the body cut short, not complete.
    const complete = new Promise<boolean>((done) =>
      stalled.response.on('close', () => done(stalled.response.complete)),
    );
    stalled.response.resume();
    expect(await complete).toBe(false);
    await eventually(async () => {
      const { rows } = await t.db.query<{ count: string }>(OPEN_LIST_CURSORS);
      return rows[0].count === '0';
    }, 2000);
  });

  // On the larger table: the server must still be reading the list from the database when it
  // fails, and a 60 000-order list can sit whole in the sockets' buffers by then.
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
                `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%batched_query_stream%' AND pid <> pg_backend_pid()`,
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
    await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
  });
});

describe('GET /v1/store/orders: the answer deadline spares the COPY (e2e)', () => {
  let t: TestApp;
  let baseUrl: string;
  // Statements get an answer within DB_CONNECT_TIMEOUT_MS + DB_STATEMENT_TIMEOUT_MS (1 s here) or
  // lose their connection; a list's COPY is one statement as long as its client takes to read.
  const db = { ...loadConfig({}).db, connectTimeoutMs: 500, statementTimeoutMs: 500 };
  const count = 200_000;

  beforeAll(async () => {
    t = await createTestApp({ db, ...ON_THE_PRIMARY });
    // More than the sockets' buffers hold, so a client that stops reading stalls the COPY.
    await insertOrders(t.db, await insertPet(t.db, { name: 'Slow reader' }), count);
    baseUrl = await listeningOrigin(t);
  }, 60_000);
  afterAll(() => t.close());

  it('sends a whole list to a client that stops reading for longer than the deadline', async () => {
    const outcome = await new Promise<{ status?: number; complete: boolean; body: string }>(
      (done) => {
        http.get(`${baseUrl}/v1/store/orders`, { headers: { Authorization: t.auth } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.pause();
          setTimeout(() => res.resume(), 2500);
          res.on('close', () =>
            done({
              status: res.statusCode,
              complete: res.complete,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        });
      },
    );
    expect({ status: outcome.status, complete: outcome.complete }).toEqual({
      status: 200,
      complete: true,
    });
    expect(JSON.parse(outcome.body)).toHaveLength(count);
  }, 30_000);
});
