import { Redis } from 'ioredis';
import { MetricsService } from '../src/metrics/metrics.service.js';
import { insertPet } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * DATABASE_REPLICA_URLS with replicas that can never take a read: a server that is not a hot
 * standby (the machine's own database) and one that does not listen. Every read answers from the
 * primary, and each write records the key's WAL position in Redis, the higher one kept. The real
 * standby (replay, lag, outages) is `npm run test:replicas`.
 */
const REDIS_URL = process.env.PETSTORE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const NOT_A_STANDBY = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const NOT_LISTENING = 'postgres://postgres@127.0.0.1:1/petstore';

describe('reads with replicas that cannot take them (e2e)', () => {
  let t: TestApp;
  let redis: Redis;
  let keyId: number;

  beforeAll(async () => {
    t = await createTestApp({
      redisUrl: REDIS_URL,
      replicas: { urls: [NOT_A_STANDBY, NOT_LISTENING], maxLagMs: 1000 },
    });
    redis = new Redis(REDIS_URL);
    const { rows } = await t.db.query<{ id: number }>(
      "SELECT id FROM api_keys WHERE name = 'e2e' ORDER BY id DESC LIMIT 1",
    );
    keyId = rows[0].id;
    await redis.del(`petstore:last-write:${keyId}`);
  });
  afterAll(async () => {
    await redis.del(`petstore:last-write:${keyId}`);
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

  it("records each write's WAL position as the key's last write in Redis, the higher kept", async () => {
    const petId = await insertPet(t.db);
    const { rows } = await t.db.query<{ position: string }>(
      'SELECT pg_current_wal_insert_lsn()::text AS position',
    );
    const [high, low] = rows[0].position.split('/');
    const before = (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);

    await t.http
      .post('/v1/store/orders')
      .set('Authorization', t.auth)
      .send({ petId, quantity: 1 })
      .expect(201);
    const recorded = await redis.get(`petstore:last-write:${keyId}`);
    expect(recorded).toMatch(/^[0-9A-F]{16}$/);
    expect(BigInt(`0x${recorded}`)).toBeGreaterThan(before);
    expect(await redis.pttl(`petstore:last-write:${keyId}`)).toBeGreaterThan(50_000);

    // A lower position (a slower instance's) never replaces a higher one.
    await redis.set(`petstore:last-write:${keyId}`, 'FFFFFFFF00000000');
    await t.http
      .post('/v1/store/orders')
      .set('Authorization', t.auth)
      .send({ petId, quantity: 1 })
      .expect(201);
    expect(await redis.get(`petstore:last-write:${keyId}`)).toBe('FFFFFFFF00000000');
  });

  it('records nothing for a write refused before it reached the database', async () => {
    await redis.del(`petstore:last-write:${keyId}`);
    await t.http
      .post('/v1/store/orders')
      .set('Authorization', t.auth)
      .send({ petId: 'one', quantity: 1 })
      .expect(400);
    expect(await redis.get(`petstore:last-write:${keyId}`)).toBeNull();
  });

  it('records nothing for a read', async () => {
    await redis.del(`petstore:last-write:${keyId}`);
    await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
    expect(await redis.get(`petstore:last-write:${keyId}`)).toBeNull();
  });
});
