import { createTestApp, type TestApp } from './support/test-app.js';

describe('HTTP hardening, proxies and CORS (e2e)', () => {
  describe('defaults', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(() => t.close());

    it('sends security headers suited to a JSON API, and no X-Powered-By', async () => {
      const res = await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
      expect(res.headers['content-security-policy']).toBe(
        "default-src 'none';frame-ancestors 'none'",
      );
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(res.headers['x-powered-by']).toBeUndefined();
    });

    it('lets the Swagger UI page load its own scripts and styles, and nothing from elsewhere', async () => {
      const res = await t.http.get('/docs').expect(200);
      const csp = res.headers['content-security-policy'];
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self' 'unsafe-inline'");
      expect(csp).not.toContain('https:');
      expect(csp).not.toContain('upgrade-insecure-requests');
      // Paths match in any case, as Express's routes do: /DOCS is the same page, same policy.
      const upper = await t.http.get('/DOCS').expect(200);
      expect(upper.headers['content-security-policy']).toBe(csp);
    });

    it('answers no cross-origin request unless CORS_ORIGINS is set', async () => {
      const res = await t.http
        .options('/v1/categories')
        .set('Origin', 'https://app.example.test')
        .set('Access-Control-Request-Method', 'GET');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('ignores X-Forwarded-For when no proxy is trusted', async () => {
      const u = await createTestApp({
        rateLimit: { redisKeyPrefix: 'x:', perKeyPerMinute: 0, unauthenticatedPerMinute: 2 },
      });
      try {
        const statuses: number[] = [];
        for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
          statuses.push(
            (await u.http.get('/v1/categories').set('X-Forwarded-For', address)).status,
          );
        }
        // One client (the socket's address) however the header varies: the third is limited.
        expect(statuses).toEqual([401, 401, 429]);
      } finally {
        await u.close();
      }
    });
  });

  describe('behind a trusted proxy (TRUST_PROXY=loopback)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({
        trustProxy: 'loopback',
        rateLimit: { redisKeyPrefix: 'x:', perKeyPerMinute: 0, unauthenticatedPerMinute: 2 },
      });
    });
    afterAll(() => t.close());

    it('limits the real client address from X-Forwarded-For, not the balancer', async () => {
      const first = [];
      for (let i = 0; i < 3; i++)
        first.push(
          (await t.http.get('/v1/categories').set('X-Forwarded-For', '198.51.100.7')).status,
        );
      expect(first).toEqual([401, 401, 429]);
      // Another client behind the same balancer has its own budget.
      await t.http.get('/v1/categories').set('X-Forwarded-For', '198.51.100.8').expect(401);
    });

    it('takes the address the trusted hop saw, so a client cannot pick its own', async () => {
      // The client prepends a fake address; the proxy appends the real one (198.51.100.9).
      const statuses = [];
      for (const fake of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
        statuses.push(
          (await t.http.get('/v1/categories').set('X-Forwarded-For', `${fake}, 198.51.100.9`))
            .status,
        );
      }
      expect(statuses).toEqual([401, 401, 429]);
    });
  });

  describe('with CORS_ORIGINS', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ corsOrigins: ['https://app.example.test'] });
    });
    afterAll(() => t.close());

    it('answers the preflight of an allowed origin, without a key', async () => {
      const res = await t.http
        .options('/v1/categories')
        .set('Origin', 'https://app.example.test')
        .set('Access-Control-Request-Method', 'POST')
        .set('Access-Control-Request-Headers', 'authorization,content-type');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://app.example.test');
    });

    it('lets the browser read the rate-limit, request-id and Location headers', async () => {
      const res = await t.http
        .get('/v1/categories')
        .set('Origin', 'https://app.example.test')
        .set('Authorization', t.auth)
        .expect(200);
      expect(res.headers['access-control-allow-origin']).toBe('https://app.example.test');
      const exposed = res.headers['access-control-expose-headers'].split(',');
      expect(exposed).toEqual(
        expect.arrayContaining([
          'Location',
          'X-Request-Id',
          'X-RateLimit-Remaining',
          'Retry-After',
        ]),
      );
    });

    it('does not allow another origin', async () => {
      const res = await t.http
        .get('/v1/categories')
        .set('Origin', 'https://evil.example.test')
        .set('Authorization', t.auth);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});
