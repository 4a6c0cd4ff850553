import { connect, createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/config/app-config.js';
import { pooledTimeoutsMismatch, prepareDatabase } from '../src/database/prepare-database.js';
import { clientWithResponseDeadline } from '../src/database/response-deadline.js';
import { insertOrder, insertPet, orderStatus } from './support/factories.js';
import { expectErrorResponse } from './support/http-assertions.js';
import {
  createTestApp,
  startAppInstance,
  type AppInstance,
  type TestApp,
} from './support/test-app.js';

/**
 * The timeouts come from the role's settings on the database (no startup parameters, which
 * PgBouncer refuses): every session of the pool has them, and a long statement is cut off.
 * scripts/test-pgbouncer.sh runs this file through PgBouncer in transaction mode too.
 */
describe('database timeouts without startup parameters (e2e)', () => {
  const statementTimeoutMs = 1000;
  const db = { ...loadConfig({}).db, statementTimeoutMs };
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ db });
  });
  afterAll(() => t.close());

  it('gives the role on this database the statement and idle-in-transaction timeouts', async () => {
    const { rows } = await t.db.query<{ setconfig: string[] }>(
      `SELECT setconfig FROM pg_db_role_setting
        WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user)
          AND setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(rows[0].setconfig).toEqual(
      expect.arrayContaining([
        'statement_timeout=1000',
        'idle_in_transaction_session_timeout=2000',
      ]),
    );
  });

  it("has them in every session of the app's pool", async () => {
    const dataSource = t.app.get(DataSource);
    const sessions = await Promise.all(
      Array.from({ length: 3 }, () =>
        dataSource.query<Array<{ statement: string; idle: string }>>(
          `SELECT current_setting('statement_timeout') AS statement,
                  current_setting('idle_in_transaction_session_timeout') AS idle
             FROM pg_sleep(0.05)`,
        ),
      ),
    );
    for (const [session] of sessions) expect(session).toEqual({ statement: '1s', idle: '2s' });
  });

  it('cuts off a statement that runs longer than DB_STATEMENT_TIMEOUT_MS with 57014', async () => {
    const started = Date.now();
    await expect(t.app.get(DataSource).query('SELECT pg_sleep(5)')).rejects.toMatchObject({
      driverError: { code: '57014' },
    });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(statementTimeoutMs - 50);
    expect(elapsed).toBeLessThan(4000);
  });

  it('answers a request whose statement is cut off 503 SERVICE_UNAVAILABLE with Retry-After, not 500', async () => {
    const petId = await insertPet(t.db);
    const orderId = await insertOrder(t.db, { petId });
    // Another session holds the order's row, so the cancel's statement waits on its lock
    // until the statement timeout cuts it off.
    const holder = await t.db.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM orders WHERE id = $1 FOR UPDATE', [orderId]);
      const started = Date.now();
      const res = await t.http.delete(`/v1/store/orders/${orderId}`).set('Authorization', t.auth);
      expect(Date.now() - started).toBeGreaterThanOrEqual(statementTimeoutMs - 50);
      expectErrorResponse(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    // Nothing was changed, and the same request succeeds once the lock is gone.
    expect(await orderStatus(t.db, orderId)).toBe('pending');
    await t.http.delete(`/v1/store/orders/${orderId}`).set('Authorization', t.auth).expect(204);
  });

  it("finds the pool's sessions with the role's timeouts, and says how they differ when they do not", async () => {
    const dataSource = t.app.get(DataSource);
    await expect(pooledTimeoutsMismatch(dataSource, db)).resolves.toBeNull();
    // What a DATABASE_URL reaching another role or database would show: other values.
    const message = await pooledTimeoutsMismatch(dataSource, { ...db, statementTimeoutMs: 1500 });
    expect(message).toMatch(
      /^sessions of DATABASE_URL \(role \S+, database \S+\) run with statement_timeout=1000 ms, not 1500 and idle_in_transaction_session_timeout=2000 ms, not 3000: DATABASE_URL and DATABASE_DIRECT_URL must reach the same role and database/,
    );
  });

  it('leaves the settings alone when they are already right (no catalog write per start)', async () => {
    await expect(prepareDatabase(t.databaseUrl, db, true)).resolves.toEqual({
      applied: [],
      timeoutsChanged: false,
    });
    await expect(
      prepareDatabase(t.databaseUrl, { ...db, statementTimeoutMs: 1500 }, false),
    ).resolves.toEqual({ applied: [], timeoutsChanged: true });
    await expect(prepareDatabase(t.databaseUrl, db, false)).resolves.toEqual({
      applied: [],
      timeoutsChanged: true,
    });
  });

  describe('the answer deadline (DB_CONNECT_TIMEOUT_MS + DB_STATEMENT_TIMEOUT_MS)', () => {
    // Shorter than the role's statement timeout (1 s here), so the deadline ends the wait first:
    // as it does for a statement no server runs (PgBouncer queueing it while PostgreSQL is down).
    const deadlineMs = 300;
    let pool: pg.Pool;

    beforeAll(() => {
      pool = new pg.Pool({
        connectionString: t.databaseUrl,
        max: 1,
        Client: clientWithResponseDeadline(deadlineMs),
      });
    });
    afterAll(() => pool.end());

    async function failureOf(statement: () => Promise<unknown>): Promise<[Error, number]> {
      const started = Date.now();
      const error = await statement().then(
        () => new Error('answered'),
        (reason: unknown) => reason as Error,
      );
      return [error, Date.now() - started];
    }

    it.each([
      [
        'the pool (callback form, as the repositories read)',
        () => pool.query('SELECT pg_sleep(3)'),
      ],
      [
        'a client of the pool (promise form, as TypeORM runs statements)',
        async () => {
          const client = await pool.connect();
          try {
            return await client.query('SELECT pg_sleep(3)');
          } finally {
            client.release(true);
          }
        },
      ],
    ])('ends a statement unanswered past the deadline, through %s', async (_how, statement) => {
      const [error, elapsedMs] = await failureOf(statement);
      expect(error.message).toMatch(/Connection terminated/);
      expect(elapsedMs).toBeGreaterThanOrEqual(deadlineMs - 20);
      expect(elapsedMs).toBeLessThan(900);
      // The connection is dropped, not handed out again; the next statement gets a new one.
      await expect(pool.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    });

    it('gives each statement its own deadline, counted from when it was sent', async () => {
      const client = await pool.connect();
      try {
        // Answered within the deadline; the next one is sent when two thirds of it have passed.
        await client.query(`SELECT pg_sleep(${(deadlineMs * 2) / 3 / 1000})`);
        const [error, elapsedMs] = await failureOf(() => client.query('SELECT pg_sleep(3)'));
        expect(error.message).toMatch(/Connection terminated/);
        expect(elapsedMs).toBeGreaterThanOrEqual(deadlineMs - 20);
        expect(elapsedMs).toBeLessThan(900);
      } finally {
        client.release(true);
      }
    });

    it('leaves a statement answered in time alone, in both forms', async () => {
      await expect(pool.query('SELECT pg_sleep(0.05), 2 AS two')).resolves.toMatchObject({
        rows: [{ two: 2 }],
      });
      const client = await pool.connect();
      try {
        await expect(client.query('SELECT 3 AS three')).resolves.toMatchObject({
          rows: [{ three: 3 }],
        });
      } finally {
        client.release();
      }
      // No deadline left behind: a later wait past it ends nothing.
      await new Promise((resolve) => setTimeout(resolve, deadlineMs + 100));
      expect(pool.totalCount).toBe(1);
    });
  });

  describe('a database that stops answering, seen through the API', () => {
    const connectTimeoutMs = 300;
    const deadlineMs = connectTimeoutMs + statementTimeoutMs;
    let proxy: Server;
    let frozen = false;
    const sockets = new Set<Socket>();
    let instance: AppInstance;

    beforeAll(async () => {
      // Between the app and PostgreSQL: forwards every byte until frozen, then drops them with
      // the connections left open, as a database (or a PgBouncer queue) that never answers.
      const target = new URL(t.databaseUrl);
      proxy = createServer((client) => {
        const server = connect(Number(target.port || 5432), target.hostname);
        for (const [from, to] of [
          [client, server],
          [server, client],
        ]) {
          sockets.add(from);
          from.on('data', (chunk: Buffer) => {
            if (!frozen) to.write(chunk);
          });
          from.on('close', () => to.destroy());
          from.on('error', () => to.destroy());
        }
      });
      await new Promise<void>((listening) => proxy.listen(0, '127.0.0.1', listening));
      const proxied = new URL(t.databaseUrl);
      proxied.host = `127.0.0.1:${(proxy.address() as { port: number }).port}`;
      instance = await startAppInstance(proxied.toString(), {
        db: { ...db, connectTimeoutMs },
        // The key is checked once, before the freeze: what is left to wait on is the read.
        apiKeyCacheTtlMs: 60_000,
        // Reads on this primary only, whatever the run (npm run test:replicas has a standby).
        replicas: { ...loadConfig({}).replicas, urls: [] },
        redisUrl: undefined,
      });
    });
    afterAll(async () => {
      frozen = false;
      for (const socket of sockets) socket.destroy();
      await instance.close();
      await new Promise((closed) => proxy.close(closed));
    });

    it('answers a read 503 SERVICE_UNAVAILABLE with Retry-After once the deadline passes, not a hung request', async () => {
      await instance.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
      frozen = true;
      const started = Date.now();
      const res = await instance.http.get('/v1/categories').set('Authorization', t.auth);
      const elapsedMs = Date.now() - started;
      expectErrorResponse(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(elapsedMs).toBeGreaterThanOrEqual(deadlineMs - 50);
      expect(elapsedMs).toBeLessThan(deadlineMs + 3000);
      // Answering again, the app reads again: the stuck connection was dropped, not reused.
      frozen = false;
      await instance.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
    });
  });
});
