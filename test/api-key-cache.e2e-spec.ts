import { ApiKeysService } from '../src/auth/api-keys.service.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('API key checks from memory (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ apiKeyCacheTtlMs: 1500 });
  });
  afterAll(() => t.close());

  it('trusts a verified key without asking the database, and refuses it once the entry expires after a revocation', async () => {
    const { key, record } = await t.app.get(ApiKeysService).issue('cached');
    await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(200);

    // Revoked behind the service's back: the cached entry still answers, so no query was made.
    await t.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [record.id]);
    await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(200);

    await new Promise((wait) => setTimeout(wait, 1600));
    await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(401);
  });

  it('records last_used_at off the request path, in one write per key', async () => {
    const { key, record } = await t.app.get(ApiKeysService).issue('busy');
    for (let i = 0; i < 5; i++)
      await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(200);
    const lastUsed = async () =>
      (
        await t.db.query<{ last_used_at: Date | null }>(
          'SELECT last_used_at FROM api_keys WHERE id = $1',
          [record.id],
        )
      ).rows[0].last_used_at;
    expect(await lastUsed()).toBeNull();

    // The minute timer (or shutdown) flushes; call it directly here.
    await t.app.get(ApiKeysService).flushLastUsed();
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    expect(Date.now() - first!.getTime()).toBeLessThan(10_000);
  });
});
