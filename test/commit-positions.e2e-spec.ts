import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import {
  CommitPositions,
  clientLearningCommitPositions,
  recordingCommits,
} from '../src/database/commit-positions.js';
import { parseWalPosition } from '../src/database/wal-position.js';
import { appDatabaseUrls, createTestDatabase, testRun } from './support/test-database.js';

/**
 * The primary's client learns the WAL position after each commit of a request that records
 * them, in the commit's own round trip. Checked against the commit records themselves
 * (pg_walinspect), on the server the tests run on (through PgBouncer when it is in front).
 */
describe('commit positions (real PostgreSQL)', () => {
  /** What the client sent and received, in order. */
  const events: string[] = [];
  class RecordingClient extends pg.Client {}
  RecordingClient.prototype.query = function (this: pg.Client, ...args: unknown[]): unknown {
    const [first] = args;
    const text = typeof first === 'string' ? first : 'submittable';
    events.push(`send ${text}`);
    const answer: unknown = Reflect.apply(pg.Client.prototype.query, this, args);
    if (answer instanceof Promise) {
      void answer.then(
        () => events.push(`answer ${text}`),
        () => events.push(`error ${text}`),
      );
    }
    return answer;
  } as pg.Client['query'];

  let direct: pg.Client;
  let pool: pg.Pool;

  beforeAll(async () => {
    const url = await createTestDatabase(
      `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
    );
    direct = new pg.Client({ connectionString: url });
    await direct.connect();
    await direct.query('CREATE EXTENSION pg_walinspect');
    await direct.query('CREATE TABLE t (id serial PRIMARY KEY, v int NOT NULL UNIQUE)');
    pool = new pg.Pool({
      connectionString: appDatabaseUrls(url).pooled,
      max: 1,
      Client: clientLearningCommitPositions(RecordingClient),
    });
  });
  afterAll(async () => {
    await pool?.end();
    await direct?.end();
  });
  beforeEach(() => {
    events.length = 0;
  });

  async function insertPosition(): Promise<bigint> {
    const { rows } = await direct.query<{ lsn: string }>(
      'SELECT pg_current_wal_insert_lsn()::text AS lsn',
    );
    return parseWalPosition(rows[0].lsn);
  }

  /**
   * Where the commit record of transaction `xid` ends, among the records since `since` (read
   * once flushed: pg_walinspect reads no further; the WAL writer flushes within 200 ms).
   */
  async function commitEnd(since: bigint, xid: string, position: bigint): Promise<bigint> {
    const lsn = (at: bigint) => `${(at >> 32n).toString(16)}/${(at & 0xffffffffn).toString(16)}`;
    const flushed = async () => {
      const { rows } = await direct.query<{ lsn: string }>(
        'SELECT pg_current_wal_flush_lsn()::text AS lsn',
      );
      return parseWalPosition(rows[0].lsn);
    };
    for (let waited = 0; (await flushed()) < position && waited < 5000; waited += 50) {
      await new Promise((wait) => setTimeout(wait, 50));
    }
    const { rows } = await direct.query<{ end: string }>(
      `SELECT end_lsn::text AS end FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
        WHERE resource_manager = 'Transaction' AND record_type = 'COMMIT' AND xid = $3::xid`,
      [lsn(since), lsn(position), xid],
    );
    expect(rows).toHaveLength(1);
    return parseWalPosition(rows[0].end);
  }

  it('learns a position at or past the commit record of a statement that commits on its own, in its round trip', async () => {
    const since = await insertPosition();
    const commits = new CommitPositions();
    const { rows } = await recordingCommits(commits, () =>
      pool.query<{ xid: string }>(
        'INSERT INTO t (v) VALUES ($1) RETURNING pg_current_xact_id()::text AS xid',
        [1],
      ),
    );
    const { position, missed } = await commits.settle();
    expect(missed).toBe(false);
    expect(position).toBeGreaterThanOrEqual(await commitEnd(since, rows[0].xid, position!));
    // Both sent before either was answered: one round trip; the statement's answer is given
    // once the position is in.
    const insert = events.findIndex((event) => event.startsWith('send INSERT'));
    expect(events.slice(insert)).toEqual([
      expect.stringMatching(/^send INSERT/),
      expect.stringMatching(/^send SELECT pg_current_wal_insert_lsn/),
      expect.stringMatching(/^answer INSERT/),
      expect.stringMatching(/^answer SELECT pg_current_wal_insert_lsn/),
    ]);
  });

  it('asks nothing inside a transaction block until its COMMIT, then learns a position past it', async () => {
    const since = await insertPosition();
    const commits = new CommitPositions();
    const xid = await recordingCommits(commits, async () => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('INSERT INTO t (v) VALUES (2)');
        const { rows } = await client.query<{ xid: string }>(
          'SELECT pg_current_xact_id()::text AS xid',
        );
        await client.query('COMMIT');
        return rows[0].xid;
      } finally {
        client.release();
      }
    });
    const { position } = await commits.settle();
    expect(position).toBeGreaterThanOrEqual(await commitEnd(since, xid, position!));
    expect(events.filter((event) => event.startsWith('send'))).toEqual([
      'send BEGIN',
      'send INSERT INTO t (v) VALUES (2)',
      'send SELECT pg_current_xact_id()::text AS xid',
      'send COMMIT',
      expect.stringMatching(/^send SELECT pg_current_wal_insert_lsn/),
    ]);
  });

  it('still learns a position when the statement fails, and leaves the connection fit for a COPY', async () => {
    const commits = new CommitPositions();
    await expect(
      recordingCommits(commits, () => pool.query('INSERT INTO t (v) VALUES (1)')),
    ).rejects.toMatchObject({ code: '23505' });
    const { position, missed } = await commits.settle();
    expect(missed).toBe(false);
    expect(position).toBeGreaterThan(0n);
    // Pipeline mode is off again: a COPY (refused in pipeline mode) runs on the same connection.
    const client = await pool.connect();
    try {
      expect(client.pipeline).toBe(false);
      const chunks: Buffer[] = [];
      const copy = client.query(copyTo('COPY (SELECT v FROM t ORDER BY v) TO STDOUT'));
      for await (const chunk of copy) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe('1\n2\n');
    } finally {
      client.release();
    }
  });

  it('asks for no position outside a request that records them, nor once it has settled', async () => {
    await pool.query('SELECT 1');
    const commits = new CommitPositions();
    await commits.settle();
    await recordingCommits(commits, () => pool.query('INSERT INTO t (v) VALUES (3)'));
    expect(events.filter((event) => event.includes('pg_current_wal_insert_lsn'))).toEqual([]);
    expect((await commits.settle()).position).toBeUndefined();
  });

  it('settles as committed nothing when no statement was sent', async () => {
    expect(await new CommitPositions().settle()).toEqual({ position: undefined, missed: false });
  });
});
