import { Redis } from 'ioredis';
import pg from 'pg';
import { parseWalPosition } from '../src/database/wal-position.js';
import { insertPet } from './support/factories.js';
import { metricTotal } from './support/metric-values.js';
import { monitorRedis } from './support/redis-monitor.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { eventually } from './support/eventually.js';

/**
 * DATABASE_REPLICA_URLS with replicas that can never take a read: a server that is not a hot
 * standby (the machine's own database) and one that does not listen. Every read answers from the
 * primary, and each write marks its key in Redis, then records the key's WAL position
 * there, the higher one kept. The real
 * standby (replay, lag, outages) is `npm run test:replicas`.
 */
const REDIS_URL = process.env.PETSTORE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NOT_A_STANDBY = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NOT_LISTENING = 'postgres://postgres@127.0.0.1:1/petstore';

describe('reads with replicas that cannot take them (e2e)', () => {
  let t: TestApp;
  let redis: Redis;
  /** The e2e key's writes in Redis: `position`, and a field per instance that marked it. */
  let writes: string;

  beforeAll(async () => {
    t = await createTestApp({
      redisUrl: REDIS_URL,
      replicas: { urls: [NOT_A_STANDBY, NOT_LISTENING], maxLagMs: 1000 },
    });
    redis = new Redis(REDIS_URL);
    const { rows } = await t.db.query<{ id: number }>(
      "SELECT id FROM api_keys WHERE name = 'e2e' ORDER BY id DESC LIMIT 1",
    );
    writes = `petstore:writes:${rows[0].id}`;
    await redis.del(writes);
  });
  afterAll(async () => {
    await redis.del(writes);
    redis.disconnect();
    await t.close();
  });

  const reads = (target: 'primary' | 'replica'): Promise<number> =>
    metricTotal(t, 'petstore_db_reads_total', { target });

  it('answers every listed read from the primary, none failing', async () => {
    // Several polls (every 100 ms) have found neither replica usable.
    await new Promise((wait) => setTimeout(wait, 400));
    const petId = await insertPet(t.db);
    const before = await reads('primary');
    for (const path of [
      '/v1/store/orders',
      '/v2/store/orders',
      '/v1/categories',
      '/v2/categories',
      `/v1/pets/${petId}`,
      `/v2/pets/${petId}`,
      '/v2/pets',
      '/v2/webhooks',
    ]) {
      await t.http.get(path).set('Authorization', t.auth).expect(200);
    }
    expect(await reads('primary')).toBe(before + 8);
    expect(await reads('replica')).toBe(0);
  });

  it('polls a server that is not a hot standby on one connection, and one that is down by trying again', async () => {
    const connects = { notAStandby: 0, notListening: 0 };
    // Counted on the way through: every connection is a real one.
    const prototype = pg.Client.prototype as unknown as {
      connect: (this: pg.Client, ...args: unknown[]) => unknown;
    };
    const connect = prototype.connect;
    prototype.connect = function (...args) {
      const parameters = (this as unknown as { connectionParameters: pg.ClientConfig })
        .connectionParameters;
      if (parameters.application_name === 'petstore-api replica poll') {
        if (parameters.port === 1) connects.notListening++;
        else connects.notAStandby++;
      }
      return Reflect.apply(connect, this, args);
    };
    try {
      // Ten polls of each (every 100 ms).
      await new Promise((wait) => setTimeout(wait, 1000));
    } finally {
      prototype.connect = connect;
    }
    // The standby-that-is-not answers: its connection stays open (one, if it was dropped).
    expect(connects.notAStandby).toBeLessThanOrEqual(1);
    // The one that does not listen is tried again at each poll, so it is found once it is back.
    expect(connects.notListening).toBeGreaterThanOrEqual(5);
    // Neither is up nor within any lag bound, in the metrics operators read.
    const notAStandby = new URL(NOT_A_STANDBY);
    for (const replica of [
      '127.0.0.1:1',
      `${notAStandby.hostname}:${notAStandby.port || '5432'}`,
    ]) {
      expect(await metricTotal(t, 'petstore_db_replica_up', { replica })).toBe(0);
      expect(await metricTotal(t, 'petstore_db_replica_lag_seconds', { replica })).toBe(Infinity);
    }
  });

  /**
   * Where the commit record of the transaction that inserted order `orderId` ends, found among
   * the records after `since` once flushed (pg_walinspect reads no further than the flushed WAL,
   * which trails the commit where commits do not wait for the flush).
   */
  async function commitEndOfOrder(orderId: number, since: string): Promise<bigint> {
    let end: string | undefined;
    await eventually(async () => {
      const { rows: flushed } = await t.db.query<{ past: boolean }>(
        'SELECT pg_current_wal_flush_lsn() > $1::pg_lsn AS past',
        [since],
      );
      if (!flushed[0].past) return false;
      const { rows } = await t.db.query<{ end: string }>(
        `SELECT end_lsn::text AS end FROM pg_get_wal_records_info($1::pg_lsn, pg_current_wal_flush_lsn())
          WHERE resource_manager = 'Transaction' AND record_type = 'COMMIT'
            AND xid = (SELECT xmin FROM orders WHERE id = $2)`,
        [since, orderId],
      );
      end = rows[0]?.end;
      return end !== undefined;
    }, 5000);
    return parseWalPosition(end!);
  }

  /** The instances' marks on the key: fields other than its position. */
  const marks = async (): Promise<Record<string, string>> => {
    const { position: _position, ...fields } = await redis.hgetall(writes);
    return fields;
  };
  const unmarked = async (): Promise<boolean> => Object.keys(await marks()).length === 0;

  it("marks a write's key before its answer, then records a position past its commit as the key's", async () => {
    await t.db.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    const petId = await insertPet(t.db);
    const { rows } = await t.db.query<{ position: string }>(
      'SELECT pg_current_wal_insert_lsn()::text AS position',
    );
    const since = rows[0].position;
    const monitor = await monitorRedis(REDIS_URL);
    const commands: string[] = [];
    monitor.onCommand((args) => commands.push(args.join(' ')));
    const sentAt = Date.now();
    try {
      const placed = await t.http
        .post('/v1/store/orders')
        .set('Authorization', t.auth)
        .send({ petId, quantity: 1 })
        .expect(201);
      // What the client sends Redis after the answer, through any connection, Redis takes after
      // the mark (MONITOR lists commands in the order Redis ran them).
      await redis.echo('answered');
      await eventually(unmarked);
      await eventually(() => commands.includes('echo answered'));
      const recorded = await redis.hget(writes, 'position');
      expect(recorded).toMatch(/^[0-9A-F]{16}$/);
      expect(BigInt(`0x${recorded}`)).toBeGreaterThanOrEqual(
        await commitEndOfOrder((placed.body as { id: number }).id, since),
      );
      expect(await redis.pttl(writes)).toBeGreaterThan(50_000);
    } finally {
      monitor.stop();
    }
    // The mark was set, valid for 10 s, before the answer came, by this instance's one command.
    const marking = commands.filter((command) => command.startsWith(`hset ${writes} `));
    expect(marking).toHaveLength(1);
    const until10s = Number(marking[0].split(' ')[3]);
    expect(until10s).toBeGreaterThanOrEqual(sentAt + 10_000);
    expect(until10s).toBeLessThan(Date.now() + 10_000);
    expect(commands.indexOf(marking[0])).toBeLessThan(commands.indexOf('echo answered'));
  });

  it("keeps the higher position, and leaves another instance's mark in place", async () => {
    const petId = await insertPet(t.db);
    // A lower position (a slower instance's) never replaces a higher one.
    await redis.hset(writes, 'position', 'FFFFFFFF00000000');
    await t.http
      .post('/v1/store/orders')
      .set('Authorization', t.auth)
      .send({ petId, quantity: 1 })
      .expect(201);
    await eventually(unmarked);
    expect(await redis.hget(writes, 'position')).toBe('FFFFFFFF00000000');

    // Another instance's mark: this instance's position does not end it.
    await redis.del(writes);
    const theirs = String(Date.now() + 10_000);
    await redis.hset(writes, 'another-instance', theirs);
    await t.http
      .post('/v1/store/orders')
      .set('Authorization', t.auth)
      .send({ petId, quantity: 1 })
      .expect(201);
    await eventually(async () => (await redis.hexists(writes, 'position')) === 1);
    expect(await marks()).toEqual({ 'another-instance': theirs });
    await redis.del(writes);
  });

  it('learns the positions of many writes with fewer statements than writes, asked at most every 10 ms', async () => {
    const petId = await insertPet(t.db);
    let positionQueries = 0;
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (typeof args[0] === 'string' && args[0].includes('pg_current_wal_insert_lsn')) {
        positionQueries++;
      }
      return Reflect.apply(original, this, args) as unknown;
    } as typeof original;
    const monitor = await monitorRedis(REDIS_URL);
    let markings = 0;
    monitor.onCommand((args) => {
      if (args[0] === 'hset' && args[1] === writes) markings++;
    });
    // All at once: the hundred finish in much less than a second, even on a busy machine.
    const placed = 100;
    const started = performance.now();
    try {
      await Promise.all(
        Array.from({ length: placed }, () =>
          t.http
            .post('/v1/store/orders')
            .set('Authorization', t.auth)
            .send({ petId, quantity: 1 })
            .expect(201),
        ),
      );
      await eventually(unmarked);
    } finally {
      pg.Client.prototype.query = original;
      monitor.stop();
    }
    const elapsedMs = performance.now() - started;
    expect(positionQueries).toBeGreaterThan(0);
    // Asked 10 ms apart at least, on whole milliseconds (each may then wait for a pooled
    // connection before it is sent).
    expect(positionQueries).toBeLessThanOrEqual(2 + elapsedMs / 10);
    // Several writes finished within one gap (46 queries for the hundred with both cores busy
    // besides), and a write while this instance's mark stands marks nothing again.
    expect(positionQueries).toBeLessThan(placed);
    expect(markings).toBeGreaterThan(0);
    expect(markings).toBeLessThanOrEqual(positionQueries);
  });

  it('records nothing for a write refused before it reached the database', async () => {
    await redis.del(writes);
    await t.http
      .post('/v1/store/orders')
      .set('Authorization', t.auth)
      .send({ petId: 'one', quantity: 1 })
      .expect(400);
    await new Promise((wait) => setTimeout(wait, 50));
    expect(await redis.exists(writes)).toBe(0);
  });

  it('records nothing for a read', async () => {
    await redis.del(writes);
    await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
    await new Promise((wait) => setTimeout(wait, 50));
    expect(await redis.exists(writes)).toBe(0);
  });
});
