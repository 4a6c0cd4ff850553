import { randomBytes } from 'node:crypto';
import { displayPrefix, generateApiKey, hashApiKey } from '../src/auth/api-key.js';
import { ApiKeysService } from '../src/auth/api-keys.service.js';
import type { AppConfig } from '../src/config/app-config.js';
import { expectErrorResponse } from './support/http-assertions.js';
import { uncheckedByRateLimiter } from './support/metric-values.js';
import { countStatements } from './support/statement-counter.js';
import {
  createTestApp,
  listeningOrigin,
  startAppInstance,
  type AppInstance,
  type TestApp,
} from './support/test-app.js';
import { createTestDatabase, testRun, withClient } from './support/test-database.js';

const REDIS_URL = process.env.PETSTORE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const UNAUTHENTICATED_PER_MINUTE = 20;

/** Production's key cache, and an address budget small enough to reach in a test. */
const HOSTILE: Partial<AppConfig> = { apiKeyCacheTtlMs: 20_000 };
const rateLimit = (redisKeyPrefix: string) => ({
  redisKeyPrefix,
  perKeyPerMinute: 600,
  unauthenticatedPerMinute: UNAUTHENTICATED_PER_MINUTE,
});

/**
 * Sends `count` requests with distinct random well-formed keys, `concurrency` at a time,
 * spread over the instances in turn; answers how many got each status.
 */
async function floodWithRandomKeys(
  origins: string[],
  count: number,
  concurrency = 16,
): Promise<Record<number, number>> {
  const statuses: Record<number, number> = {};
  let sent = 0;
  const worker = async () => {
    while (sent < count) {
      const origin = origins[sent++ % origins.length];
      const res = await fetch(`${origin}/v1/categories`, {
        headers: { authorization: `Bearer ${generateApiKey()}` },
      });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

/**
 * The scans of api_keys that PostgreSQL itself counted on `database` (each key lookup is one;
 * the database is this test's own, fresh, so they start at 0). Backends report their counts
 * when they end, so every session on the database is ended first (the app is closed by then;
 * a PgBouncer may still hold some).
 */
async function keyScans(databaseUrl: string): Promise<number> {
  const database = new URL(databaseUrl).pathname.slice(1);
  await withClient(testRun.adminUrl(), async (admin) => {
    for (let attempt = 0; ; attempt++) {
      const { rowCount } = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`,
        [database],
      );
      if (rowCount === 0) return;
      if (attempt > 100) throw new Error(`sessions on ${database} did not end`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  return withClient(databaseUrl, async (db) => {
    const { rows } = await db.query<{ scans: string }>(
      `SELECT coalesce(seq_scan, 0) + coalesce(idx_scan, 0) AS scans
       FROM pg_stat_user_tables WHERE relname = 'api_keys'`,
    );
    return Number(rows[0].scans);
  });
}

describe('unknown API keys cost the database a bounded number of lookups (e2e)', () => {
  it('one instance: 400 distinct random keys from one address cost at most its budget of lookups', async () => {
    const databaseUrl = await createTestDatabase(
      `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
    );
    const app = await startAppInstance(databaseUrl, {
      ...HOSTILE,
      rateLimit: rateLimit('unused:'),
    });
    let statuses: Record<number, number>;
    let statements: number;
    try {
      const origin = await listeningOrigin(app);
      statements = await countStatements(async () => {
        statuses = await floodWithRandomKeys([origin], 400);
      });
    } finally {
      await app.close();
    }
    // The address's first 20 requests are looked up and refused; the 21st is looked up too and
    // blocks the address; the rest are 429 unasked.
    expect(statuses!).toEqual({
      401: UNAUTHENTICATED_PER_MINUTE,
      429: 400 - UNAUTHENTICATED_PER_MINUTE,
    });
    expect(statements).toBe(UNAUTHENTICATED_PER_MINUTE + 1);
    expect(await keyScans(databaseUrl)).toBe(UNAUTHENTICATED_PER_MINUTE + 1);
  });

  it('two instances sharing Redis: 4 000 requests with random keys cost at most 22 lookups, one address budget for both', async () => {
    const databaseUrl = await createTestDatabase(
      `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
    );
    const config = {
      ...HOSTILE,
      redisUrl: REDIS_URL,
      rateLimit: rateLimit(`petstore-test:${randomBytes(6).toString('hex')}:`),
    };
    const instances: AppInstance[] = [];
    let statuses: Record<number, number>;
    let statements: number;
    let unchecked = 0;
    try {
      instances.push(await startAppInstance(databaseUrl, config));
      instances.push(await startAppInstance(databaseUrl, config));
      const origins = await Promise.all(instances.map(listeningOrigin));
      statements = await countStatements(async () => {
        statuses = await floodWithRandomKeys(origins, 4000);
      });
      for (const instance of instances) unchecked += await uncheckedByRateLimiter(instance);
    } finally {
      for (const instance of instances) await instance.close();
    }
    // A count or check that Redis did not answer in time (a loaded machine) lets its request
    // through: one 401 or one lookup more at most, and counted, so the bounds still hold exactly.
    expect(Object.keys(statuses!).sort()).toEqual(['401', '429']);
    expect(statuses![401] + statuses![429]).toBe(4000);
    expect(statuses![401]).toBeGreaterThanOrEqual(UNAUTHENTICATED_PER_MINUTE);
    expect(statuses![401]).toBeLessThanOrEqual(UNAUTHENTICATED_PER_MINUTE + unchecked);
    // One budget for the address across both instances: its 20 lookups, and one more on each
    // instance at most (the one that blocks it), each one statement (one transaction).
    expect(statements!).toBeGreaterThan(UNAUTHENTICATED_PER_MINUTE);
    expect(statements!).toBeLessThanOrEqual(UNAUTHENTICATED_PER_MINUTE + 2 + unchecked);
    expect(await keyScans(databaseUrl)).toBe(statements!);
  });

  describe('with the production key cache', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({ ...HOSTILE, rateLimit: rateLimit('unused:') });
    });
    afterAll(() => t.close());

    it('a valid key: one lookup on its first use, then memory (no statement), on its own budget', async () => {
      const get = () => t.http.get('/v1/pets/1').set('Authorization', t.auth);
      // The pet lookup (404) and the key's.
      expect(await countStatements(() => get().expect(404))).toBe(2);
      const statements = await countStatements(async () => {
        for (let i = 0; i < 5; i++) {
          const res = await get();
          expect({ status: res.status, limit: res.headers['x-ratelimit-limit'] }).toEqual({
            status: 404,
            limit: '600',
          });
        }
      });
      expect(statements).toBe(5);
    });

    it('a refused key tried again is refused from memory: one lookup for 50 tries', async () => {
      const key = generateApiKey();
      const statuses: number[] = [];
      const statements = await countStatements(async () => {
        for (let i = 0; i < 50; i++) {
          statuses.push(
            (await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`)).status,
          );
        }
      });
      expect(statements).toBe(1);
      // Counted against the address all the same (a valid key never is): it is blocked now.
      expect(statuses).toEqual([
        ...Array(UNAUTHENTICATED_PER_MINUTE).fill(401),
        ...Array(50 - UNAUTHENTICATED_PER_MINUTE).fill(429),
      ]);
    });

    it('a valid key in memory keeps working from a blocked address, on its own budget, with no statement for the key', async () => {
      expectErrorResponse(
        await t.http.get('/v1/categories').set('Authorization', `Bearer ${generateApiKey()}`),
        429,
        'RATE_LIMITED',
      );
      const statements = await countStatements(async () => {
        for (let i = 0; i < 5; i++) {
          const res = await t.http.get('/v1/pets/1').set('Authorization', t.auth);
          expect({ status: res.status, limit: res.headers['x-ratelimit-limit'] }).toEqual({
            status: 404,
            limit: '600',
          });
        }
      });
      expect(statements).toBe(5);
    });

    it('requests without a key block their address, but not the lookup of a valid key from it', async () => {
      for (let i = 0; i <= UNAUTHENTICATED_PER_MINUTE; i++) await t.http.get('/v1/categories');
      expectErrorResponse(await t.http.get('/v1/categories'), 429, 'RATE_LIMITED');
      const { key } = await t.app.get(ApiKeysService).issue('behind the same address');
      await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(200);
    });

    it('a valid key memory does not hold, from an address with its budget of refused keys, waits out the block like any unknown key (no lookup)', async () => {
      // Distinct random keys: each a lookup the database refuses, until the budget is spent.
      for (let i = 0; i <= UNAUTHENTICATED_PER_MINUTE; i++) {
        await t.http.get('/v1/categories').set('Authorization', `Bearer ${generateApiKey()}`);
      }
      const { key } = await t.app.get(ApiKeysService).issue('new');
      const statements = await countStatements(async () => {
        const res = await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`);
        expectErrorResponse(res, 429, 'RATE_LIMITED');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      });
      expect(statements).toBe(0);
    });

    it('an undecodable path is counted too: unknown keys there cost no more lookups', async () => {
      // The address is blocked by now (previous tests): refused before any lookup.
      const statements = await countStatements(async () => {
        for (let i = 0; i < 10; i++) {
          const res = await t.http
            .get('/v1/pets/%E0%A4%A')
            .set('Authorization', `Bearer ${generateApiKey()}`);
          expectErrorResponse(res, 429, 'RATE_LIMITED');
        }
      });
      expect(statements).toBe(0);
    });
  });

  describe('a key made after a miss', () => {
    const ttlMs = 1500;
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({ apiKeyCacheTtlMs: ttlMs });
    });
    afterAll(() => t.close());

    it('made elsewhere (apikey create writes the database): works within API_KEY_CACHE_TTL_MS', async () => {
      const key = generateApiKey();
      await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(401);
      await t.db.query(`INSERT INTO api_keys (name, prefix, key_hash) VALUES ('late', $1, $2)`, [
        displayPrefix(key),
        hashApiKey(key),
      ]);
      const made = Date.now();
      // Remembered as refused for the TTL at most, then asked again.
      const status = () =>
        t.http
          .get('/v1/categories')
          .set('Authorization', `Bearer ${key}`)
          .then((res) => res.status);
      expect(await status()).toBe(401);
      while ((await status()) !== 200) {
        expect(Date.now() - made).toBeLessThan(ttlMs + 200);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    });

    it('made by this instance: works at once', async () => {
      const key = generateApiKey();
      await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(401);
      await t.app.get(ApiKeysService).ensureKey(key, 'configured');
      await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(200);
    });
  });
});
