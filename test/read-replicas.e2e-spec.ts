import { Redis } from 'ioredis';
import pg from 'pg';
import { MetricsService } from '../src/metrics/metrics.service.js';
import { insertPet } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * DATABASE_REPLICA_URLS with replicas that can never take a read: a server that is not a hot
 * standby (the machine's own database) and one that does not listen. Every read answers from the
 * primary, and each write marks its key pending in Redis, then records the key's WAL position
 * there, the higher one kept. The real
 * standby (replay, lag, outages) is `npm run test:replicas`.
 */
const REDIS_URL = process.env.PETSTORE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NOT_A_STANDBY = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NOT_LISTENING = 'postgres://postgres@127.0.0.1:1/petstore';

describe('reads with replicas that cannot take them (e2e)', () => {
  let t: TestApp;
  let redis: Redis;
  let lastWrite: string;
  let pending: string;

  beforeAll(async () => {
    t = await createTestApp({
      redisUrl: REDIS_URL,
      replicas: { urls: [NOT_A_STANDBY, NOT_LISTENING], maxLagMs: 1000 },
    });
    redis = new Redis(REDIS_URL);
    const { rows } = await t.db.query<{ id: number }>(
      "SELECT id FROM api_keys WHERE name = 'e2e' ORDER BY id DESC LIMIT 1",
    );
    lastWrite = `petstore:last-write:${rows[0].id}`;
    pending = `petstore:write-pending:${rows[0].id}`;
    await redis.del(lastWrite, pending);
  });
  afterAll(async () => {
    await redis.del(lastWrite, pending);
    redis.disconnect();
    await t.close();
  });

  const reads = async (target: 'primary' | 'replica'): Promise<number> => {
    const metric = await t.app
      .get(MetricsService)
      .registry.getSingleMetric('petstore_db_reads_total')
      ?.get();
    return (metric?.values ?? [])
      .filter((value) => value.labels.target === target)
      .reduce((sum, value) => sum + value.value, 0);
  };

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

  /** Where the commit record of the transaction that inserted order `orderId` ends. */
  async function commitEndOfOrder(orderId: number, since: bigint): Promise<bigint> {
    const lsn = (at: bigint) => `${(at >> 32n).toString(16)}/${(at & 0xffffffffn).toString(16)}`;
    const [{ rows: inserted }, { rows: flushed }] = await Promise.all([
      t.db.query<{ xid: string }>('SELECT xmin::text AS xid FROM orders WHERE id = $1', [orderId]),
      // pg_walinspect reads no further than the flushed WAL: the commit is flushed by now.
      t.db.query<{ lsn: string }>('SELECT pg_current_wal_flush_lsn()::text AS lsn'),
    ]);
    const { rows } = await t.db.query<{ end: string }>(
      `SELECT end_lsn::text AS end FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)
        WHERE resource_manager = 'Transaction' AND record_type = 'COMMIT' AND xid = $3::xid`,
      [lsn(since), flushed[0].lsn, inserted[0].xid],
    );
    expect(rows).toHaveLength(1);
    return position(rows[0].end);
  }

  const position = (text: string): bigint => {
    const [high, low] = text.split('/');
    return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
  };

  async function until(check: () => boolean | Promise<boolean>): Promise<void> {
    for (const deadline = Date.now() + 5000; !(await check());) {
      if (Date.now() > deadline) throw new Error('not within 5 s');
      await new Promise((wait) => setTimeout(wait, 5));
    }
  }

  it("marks a write's key pending before its answer, then records a position past its commit as the key's last write", async () => {
    await t.db.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    const petId = await insertPet(t.db);
    const { rows } = await t.db.query<{ position: string }>(
      'SELECT pg_current_wal_insert_lsn()::text AS position',
    );
    const since = position(rows[0].position);
    const monitor = await redis.monitor();
    const commands: string[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => commands.push(args.join(' ')));
    try {
      const placed = await t.http
        .post('/v1/store/orders')
        .set('Authorization', t.auth)
        .send({ petId, quantity: 1 })
        .expect(201);
      // What the client sends Redis after the answer, through any connection, Redis takes after
      // the mark (MONITOR lists commands in the order Redis ran them).
      await redis.echo('answered');
      await until(async () => (await redis.exists(pending)) === 0);
      await until(() => commands.includes('echo answered'));
      const recorded = await redis.get(lastWrite);
      expect(recorded).toMatch(/^[0-9A-F]{16}$/);
      expect(BigInt(`0x${recorded}`)).toBeGreaterThanOrEqual(
        await commitEndOfOrder((placed.body as { id: number }).id, since),
      );
      expect(await redis.pttl(lastWrite)).toBeGreaterThan(50_000);
    } finally {
      monitor.disconnect();
    }
    // The mark was set (a 10 s expiry) before the answer came, by this instance's one command.
    const marks = commands.filter((command) => command.startsWith(`set ${pending} `));
    expect(marks).toHaveLength(1);
    expect(marks[0]).toMatch(new RegExp(`^set ${pending} \\S+ PX 10000$`));
    expect(commands.indexOf(marks[0])).toBeLessThan(commands.indexOf('echo answered'));
  });

  it("keeps the higher last write, and leaves a later write's pending mark in place", async () => {
    const petId = await insertPet(t.db);
    // A lower position (a slower instance's) never replaces a higher one.
    await redis.set(lastWrite, 'FFFFFFFF00000000');
    await t.http
      .post('/v1/store/orders')
      .set('Authorization', t.auth)
      .send({ petId, quantity: 1 })
      .expect(201);
    await until(async () => (await redis.exists(pending)) === 0);
    expect(await redis.get(lastWrite)).toBe('FFFFFFFF00000000');

    // Another instance marks the key while this one learns its position: that mark stays.
    await redis.del(lastWrite);
    const monitor = await redis.monitor();
    let marked = false;
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (!marked && args[0] === 'set' && args[1] === pending) {
        marked = true;
        void redis.set(pending, 'another-instance.1', 'PX', 10_000);
      }
    });
    try {
      await t.http
        .post('/v1/store/orders')
        .set('Authorization', t.auth)
        .send({ petId, quantity: 1 })
        .expect(201);
      await until(async () => (await redis.exists(lastWrite)) === 1);
    } finally {
      monitor.disconnect();
    }
    expect(await redis.get(pending)).toBe('another-instance.1');
    await redis.del(pending);
  });

  it('learns the positions of many writes with a few statements, at most one per 10 ms', async () => {
    const petId = await insertPet(t.db);
    const sentAt: number[] = [];
    const original = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      if (typeof args[0] === 'string' && args[0].includes('pg_current_wal_insert_lsn')) {
        sentAt.push(performance.now());
      }
      return Reflect.apply(original, this, args) as unknown;
    } as typeof original;
    const writes = 60;
    try {
      for (let batch = 0; batch < writes / 20; batch++) {
        await Promise.all(
          Array.from({ length: 20 }, () =>
            t.http
              .post('/v1/store/orders')
              .set('Authorization', t.auth)
              .send({ petId, quantity: 1 })
              .expect(201),
          ),
        );
      }
      await until(async () => (await redis.exists(pending)) === 0);
    } finally {
      pg.Client.prototype.query = original;
    }
    expect(sentAt.length).toBeGreaterThan(0);
    // Several writes finished within one 10 ms gap (here a third as many queries as writes).
    expect(sentAt.length).toBeLessThan(writes);
    for (let i = 1; i < sentAt.length; i++) {
      // Spaced 10 ms apart when asked for; each then waits a moment for a pooled connection.
      expect(sentAt[i] - sentAt[i - 1]).toBeGreaterThan(5);
    }
  });

  it('records nothing for a write refused before it reached the database', async () => {
    await redis.del(lastWrite, pending);
    await t.http
      .post('/v1/store/orders')
      .set('Authorization', t.auth)
      .send({ petId: 'one', quantity: 1 })
      .expect(400);
    await new Promise((wait) => setTimeout(wait, 50));
    expect(await redis.mget(lastWrite, pending)).toEqual([null, null]);
  });

  it('records nothing for a read', async () => {
    await redis.del(lastWrite, pending);
    await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
    await new Promise((wait) => setTimeout(wait, 50));
    expect(await redis.mget(lastWrite, pending)).toEqual([null, null]);
  });
});
