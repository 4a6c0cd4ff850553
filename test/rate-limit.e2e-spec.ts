import { randomBytes } from 'node:crypto';
import { expectErrorResponse } from './support/http-assertions.js';
import { uncheckedByRateLimiter } from './support/metric-values.js';
import {
  createTestApp,
  startAppInstance,
  type AppInstance,
  type TestApp,
} from './support/test-app.js';

const REDIS_URL = process.env.PETSTORE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('rate limits (e2e)', () => {
  describe('in memory, one instance', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({
        rateLimit: { redisKeyPrefix: 'unused:', perKeyPerMinute: 3, unauthenticatedPerMinute: 2 },
      });
    });
    afterAll(() => t.close());

    it('counts requests per API key and reports the budget in X-RateLimit headers', async () => {
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
        expect(res.headers['x-ratelimit-limit']).toBe('3');
        expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
        expect(Number(res.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60);
        remaining.push(res.headers['x-ratelimit-remaining']);
      }
      expect(remaining).toEqual(['2', '1', '0']);

      const limited = await t.http.get('/v1/store/orders').set('Authorization', t.auth).expect(429);
      expectErrorResponse(limited, 429, 'RATE_LIMITED');
      t.spec.check('listOrders', limited);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    });

    it('gives every key its own budget', async () => {
      const { ApiKeysService } = await import('../src/auth/api-keys.service.js');
      const { key } = await t.app.get(ApiKeysService).issue('second');
      const res = await t.http
        .get('/v1/categories')
        .set('Authorization', `Bearer ${key}`)
        .expect(200);
      expect(res.headers['x-ratelimit-remaining']).toBe('2');
    });

    it('limits requests without a valid key per client address, so guessing keys is slow', async () => {
      const statuses: number[] = [];
      for (const header of [
        undefined,
        'Bearer psk_guess1guess1guess1guess1guess1',
        'Bearer nonsense',
        undefined,
      ]) {
        const request = t.http.get('/v1/categories');
        statuses.push((header ? await request.set('Authorization', header) : await request).status);
      }
      expect(statuses).toEqual([401, 401, 429, 429]);
    });

    it('never limits the health probes', async () => {
      for (let i = 0; i < 5; i++) await t.http.get('/health/live').expect(200);
    });
  });

  it("counts a request without a valid key before refusing it: the 401 carries its address's budget, the 429 its Retry-After", async () => {
    const t = await createTestApp({
      rateLimit: { redisKeyPrefix: 'unused:', perKeyPerMinute: 5, unauthenticatedPerMinute: 2 },
    });
    try {
      const answers = [];
      for (let i = 0; i < 3; i++) {
        const res = await t.http.get('/v1/categories').set('Authorization', 'Bearer nonsense');
        answers.push({
          status: res.status,
          limit: res.headers['x-ratelimit-limit'],
          remaining: res.headers['x-ratelimit-remaining'],
          retryAfter: res.headers['retry-after'] === undefined ? undefined : 'set',
        });
      }
      expect(answers).toEqual([
        { status: 401, limit: '2', remaining: '1', retryAfter: undefined },
        { status: 401, limit: '2', remaining: '0', retryAfter: undefined },
        { status: 429, limit: '2', remaining: '0', retryAfter: 'set' },
      ]);
      // A valid key from the same address has its own budget, untouched by the refusals.
      const valid = await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
      expect(valid.headers['x-ratelimit-limit']).toBe('5');
      expect(valid.headers['x-ratelimit-remaining']).toBe('4');
    } finally {
      await t.close();
    }
  });

  it('turns limiting off with a limit of 0', async () => {
    const t = await createTestApp({
      rateLimit: { redisKeyPrefix: 'unused:', perKeyPerMinute: 0, unauthenticatedPerMinute: 0 },
    });
    try {
      for (let i = 0; i < 10; i++) {
        const res = await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      }
      for (let i = 0; i < 5; i++) await t.http.get('/v1/categories').expect(401);
    } finally {
      await t.close();
    }
  });

  describe('shared by two instances through Redis', () => {
    let t: TestApp;
    let second: AppInstance;

    beforeAll(async () => {
      // A prefix of its own: other runs may share this Redis.
      const rateLimit = {
        redisKeyPrefix: `petstore-test:${randomBytes(6).toString('hex')}:`,
        perKeyPerMinute: 4,
        unauthenticatedPerMinute: 3,
      };
      t = await createTestApp({ redisUrl: REDIS_URL, rateLimit });
      second = await startAppInstance(t.databaseUrl, { redisUrl: REDIS_URL, rateLimit });
    });
    afterAll(async () => {
      await second?.close();
      await t?.close();
    });

    it('counts one key across both instances', async () => {
      const answers: string[] = [];
      for (const instance of [t, second, t, second, t, second]) {
        const res = await instance.http.get('/v1/categories').set('Authorization', t.auth);
        answers.push(`${res.status}/${res.headers['x-ratelimit-remaining']}`);
      }
      expect(answers).toEqual(['200/3', '200/2', '200/1', '200/0', '429/0', '429/0']);
    });

    it('counts an address without a valid key across both instances', async () => {
      const statuses: number[] = [];
      for (const instance of [t, second, t, second])
        statuses.push((await instance.http.get('/v1/store/orders')).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
    });
  });

  it('lets requests through when Redis cannot be reached: the limiter must not take the API down', async () => {
    const t = await createTestApp({
      redisUrl: 'redis://127.0.0.1:1',
      rateLimit: {
        redisKeyPrefix: 'unreachable:',
        perKeyPerMinute: 1,
        unauthenticatedPerMinute: 1,
      },
    });
    try {
      for (let i = 0; i < 3; i++)
        await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
      // Each request went unchecked twice, and operators can see it: the address's block, looked
      // at before the key's lookup (the tests keep no keys in memory), and the key's count.
      expect(await uncheckedByRateLimiter(t)).toBe(6);
    } finally {
      await t.close();
    }
  });
});
