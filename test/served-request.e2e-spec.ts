import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { AuthenticatedRequest } from '../src/auth/api-key.guard.js';
import {
  ServedRequest,
  clientNoticingCommits,
  servedRequest,
  serving,
} from '../src/database/served-request.js';
import { appDatabaseUrls, createTestDatabase, testRun } from './support/test-database.js';

/**
 * The primary's client notices, for the request being served, a statement that may commit, and
 * sends nothing of its own: read-your-writes costs a write no statement. On the server the tests
 * run on (through PgBouncer when it is in front).
 */
describe('commits noticed for the request being served (real PostgreSQL)', () => {
  /** The statements the client sent, in order. */
  const sent: string[] = [];
  class RecordingClient extends pg.Client {}
  RecordingClient.prototype.query = function (this: pg.Client, ...args: unknown[]): unknown {
    const [first] = args;
    sent.push(typeof first === 'string' ? first : 'submittable');
    return Reflect.apply(pg.Client.prototype.query, this, args);
  } as pg.Client['query'];

  let direct: pg.Client;
  let pool: pg.Pool;
  const request = { method: 'POST' } as AuthenticatedRequest;

  beforeAll(async () => {
    const url = await createTestDatabase(
      `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
    );
    direct = new pg.Client({ connectionString: url });
    await direct.connect();
    await direct.query('CREATE TABLE t (id serial PRIMARY KEY, v int NOT NULL UNIQUE)');
    pool = new pg.Pool({
      connectionString: appDatabaseUrls(url).pooled,
      max: 1,
      Client: clientNoticingCommits(RecordingClient),
    });
  });
  afterAll(async () => {
    await pool?.end();
    await direct?.end();
  });
  beforeEach(() => {
    sent.length = 0;
  });

  it('notices a statement that commits on its own, and sends only that statement', async () => {
    const served = new ServedRequest(request, true);
    await serving(served, () => pool.query('INSERT INTO t (v) VALUES ($1)', [1]));
    expect(served.committed).toBe(true);
    expect(sent).toEqual(['INSERT INTO t (v) VALUES ($1)']);
  });

  it('notices nothing in a transaction block until its COMMIT', async () => {
    const served = new ServedRequest(request, true);
    const seen: boolean[] = [];
    await serving(served, async () => {
      const client = await pool.connect();
      try {
        for (const sql of ['BEGIN', 'INSERT INTO t (v) VALUES (2)', 'SELECT 1', 'COMMIT']) {
          seen.push(served.committed);
          await client.query(sql);
        }
      } finally {
        client.release();
      }
    });
    // Before BEGIN, the INSERT and the SELECT: nothing yet; the COMMIT then commits.
    expect(seen).toEqual([false, false, false, false]);
    expect(served.committed).toBe(true);
    expect(sent).toEqual(['BEGIN', 'INSERT INTO t (v) VALUES (2)', 'SELECT 1', 'COMMIT']);
  });

  it('notices nothing for a SELECT outside a block: it writes nothing', async () => {
    const served = new ServedRequest(request, true);
    await serving(served, () => pool.query('SELECT count(*) FROM t'));
    await serving(served, () => pool.query(' select 1'));
    expect(served.committed).toBe(false);
    expect(sent).toEqual(['SELECT count(*) FROM t', ' select 1']);
  });

  it('notices a rolled-back block as nothing', async () => {
    const served = new ServedRequest(request, true);
    await serving(served, async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('INSERT INTO t (v) VALUES (3)');
        await client.query('ROLLBACK');
      } finally {
        client.release();
      }
    });
    expect(served.committed).toBe(false);
  });

  it('notices a COPY (a submittable) as a commit', async () => {
    const served = new ServedRequest(request, true);
    await serving(served, async () => {
      const client = await pool.connect();
      try {
        await pipeline(
          Readable.from(['10\n', '11\n']),
          client.query(copyFrom('COPY t (v) FROM STDIN')),
        );
      } finally {
        client.release();
      }
    });
    expect(served.committed).toBe(true);
    expect((await direct.query('SELECT count(*)::int AS n FROM t WHERE v >= 10')).rows[0].n).toBe(
      2,
    );
  });

  it('notices nothing for a request that only reads, outside a request, or once it is answered', async () => {
    const reading = new ServedRequest({ method: 'GET' } as AuthenticatedRequest, false);
    await serving(reading, () => pool.query('INSERT INTO t (v) VALUES (4)'));
    expect(reading.committed).toBe(false);

    await pool.query('INSERT INTO t (v) VALUES (5)');
    expect(servedRequest()).toBeUndefined();

    const answered = new ServedRequest(request, true);
    answered.close();
    await serving(answered, () => pool.query('INSERT INTO t (v) VALUES (6)'));
    expect(answered.committed).toBe(false);
  });

  it('knows the request being served inside its context only', async () => {
    const served = new ServedRequest(request, true);
    await serving(served, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      expect(servedRequest()).toBe(served);
    });
    expect(servedRequest()).toBeUndefined();
  });
});
