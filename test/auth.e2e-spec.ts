import { createHash, randomBytes } from 'node:crypto';
import type { Response, Test } from 'supertest';
import { ApiKeysService } from '../src/auth/api-keys.service.js';
import { insertCategory, insertOrder, insertPet, orderStatus } from './support/factories.js';
import { expectErrorResponse, expectNoWrites, pollUntil } from './support/http-assertions.js';
import {
  contractOperations,
  webhookOperations,
  specOf,
  type ContractOperation,
} from './support/contract-operations.js';
import { createTestApp, startAppInstance, type TestApp } from './support/test-app.js';

const CHALLENGE = 'Bearer realm="petstore"';
const INVALID_TOKEN_CHALLENGE = 'Bearer realm="petstore", error="invalid_token"';
/** docs/api.md: a revoked key stops working on every instance within 30 seconds. */
const REVOCATION_DEADLINE_MS = 30_000;

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function newKeyLikeString(): string {
  return `psk_${randomBytes(32).toString('base64url')}`;
}

describe('authentication (e2e)', () => {
  let t: TestApp;
  let petId: number;

  const operations = [
    ...contractOperations(() => ({ db: t.db, petId })),
    ...webhookOperations(() => ({ db: t.db })),
  ];

  /**
   * Arranges `operation` (writing the rows it needs now, outside any "writes nothing" check)
   * and returns a sender for it, taking the Authorization header value (none if undefined).
   */
  async function prepare(operation: ContractOperation): Promise<(authorization?: string) => Test> {
    const { path, body } = await operation.arrange();
    return (authorization) => {
      let req = t.http[operation.method](path);
      if (authorization !== undefined) req = req.set('Authorization', authorization);
      if (body !== undefined) req = req.send(body);
      return req;
    };
  }

  function expectUnauthorized(res: Response, challenge: string): void {
    expectErrorResponse(res, 401, 'UNAUTHORIZED');
    expect(res.headers['www-authenticate']).toBe(challenge);
  }

  beforeAll(async () => {
    t = await createTestApp();
    petId = await insertPet(t.db, { name: 'Rex' });
  });
  afterAll(() => t.close());

  describe('a path the router cannot decode', () => {
    it('is refused with 401 before anything else when no valid key comes with it', async () => {
      for (const path of [
        '/v1/store/orders/%zz',
        '/v1/pets/%E0%A4%A',
        '/V2/store/orders/%zz?limit=1',
        '/v2/webhooks/%',
      ]) {
        expectUnauthorized(await t.http.get(path), CHALLENGE);
        expectUnauthorized(
          await t.http.get(path).set('Authorization', `Bearer ${newKeyLikeString()}`),
          INVALID_TOKEN_CHALLENGE,
        );
      }
    });

    it('is left to the router outside the API versions', async () => {
      // No API route there: the not-found answer, not a 401.
      for (const path of ['/v10/pets/%zz', '/docs/%zz']) {
        expectErrorResponse(await t.http.get(path), 404, 'NOT_FOUND');
      }
    });

    it('is a 400 VALIDATION_FAILED with a valid key', async () => {
      const res = await t.http.get('/v1/store/orders/%zz').set('Authorization', t.auth);
      expectErrorResponse(res, 400, 'VALIDATION_FAILED');
    });
  });

  describe('a valid key', () => {
    it.each(operations)('$name works with the scheme word in any case', async (operation) => {
      for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
        const res = await (await prepare(operation))(`${scheme} ${t.apiKey}`);
        expect({ scheme, status: res.status }).toEqual({ scheme, status: operation.success });
        specOf(t, operation).check(operation.operationId, res);
      }
    });
  });

  describe('no key', () => {
    it.each(operations)(
      '$name answers 401 UNAUTHORIZED with a bare Bearer challenge and writes nothing',
      async (operation) => {
        const send = await prepare(operation);
        await expectNoWrites(t.db, async () => {
          const res = await send();
          expectUnauthorized(res, CHALLENGE);
          specOf(t, operation).check(operation.operationId, res);
        });
      },
    );

    it('treats an empty Authorization header as no key', async () => {
      const res = await t.http.get('/v1/store/orders').set('Authorization', '');
      expectUnauthorized(res, CHALLENGE);
      t.spec.check('listOrders', res);
    });
  });

  describe('a key that is not valid', () => {
    /** Authorization values that must not authenticate, with the credential they carry. */
    function invalidCredentials(): Array<{ label: string; header: string; secret?: string }> {
      const key = t.apiKey;
      const unknown = newKeyLikeString();
      return [
        { label: 'unknown well-formed key', header: `Bearer ${unknown}`, secret: unknown },
        { label: 'not a key at all', header: 'Bearer not-a-key', secret: 'not-a-key' },
        { label: 'psk_ and too short', header: 'Bearer psk_short', secret: 'psk_short' },
        {
          label: 'psk_ and characters outside base64url',
          header: `Bearer psk_${'!'.repeat(43)}`,
          secret: `psk_${'!'.repeat(43)}`,
        },
        { label: 'Basic scheme', header: 'Basic xyz', secret: 'xyz' },
        {
          label: 'a valid key under the Basic scheme',
          header: `Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
          secret: Buffer.from(`user:${key}`).toString('base64'),
        },
        { label: 'a valid key under another scheme', header: `Token ${key}`, secret: key },
        { label: 'a valid key with no scheme', header: key, secret: key },
        { label: 'Bearer with nothing after it', header: 'Bearer' },
        { label: 'Bearer with two tokens', header: 'Bearer a b' },
        { label: 'a valid key sent twice', header: `Bearer ${key} ${key}`, secret: key },
        {
          label: 'a valid key missing its last character',
          header: `Bearer ${key.slice(0, -1)}`,
          secret: key.slice(0, -1),
        },
        {
          label: 'a valid key cut to 26 characters (well-formed length)',
          header: `Bearer ${key.slice(0, 26)}`,
          secret: key.slice(0, 26),
        },
        {
          label: "a valid key's display prefix",
          header: `Bearer ${key.slice(0, 12)}`,
          secret: key.slice(0, 12),
        },
        { label: 'a valid key plus a character', header: `Bearer ${key}x`, secret: `${key}x` },
        {
          label: 'a valid key in upper case',
          header: `Bearer psk_${key.slice(4).toUpperCase()}`,
          secret: `psk_${key.slice(4).toUpperCase()}`,
        },
        {
          label: 'the stored SHA-256 hash of a valid key',
          header: `Bearer ${sha256(key)}`,
          secret: sha256(key),
        },
      ];
    }

    it.each(operations)(
      '$name answers 401 with error="invalid_token" for malformed, unknown and truncated keys, echoing none',
      async (operation) => {
        for (const { label, header, secret } of invalidCredentials()) {
          const send = await prepare(operation);
          await expectNoWrites(t.db, async () => {
            const res = await send(header);
            expect({
              label,
              status: res.status,
              challenge: res.headers['www-authenticate'],
            }).toEqual({ label, status: 401, challenge: INVALID_TOKEN_CHALLENGE });
            expectUnauthorized(res, INVALID_TOKEN_CHALLENGE);
            specOf(t, operation).check(operation.operationId, res);
            if (secret !== undefined) {
              expect({ label, leaked: res.text.includes(secret) }).toEqual({
                label,
                leaked: false,
              });
              expect({ label, leaked: JSON.stringify(res.headers).includes(secret) }).toEqual({
                label,
                leaked: false,
              });
            }
          });
        }
      },
    );
  });

  describe('revoked keys', () => {
    it(
      'a key that worked stops working on every operation once revoked, and other keys keep working',
      async () => {
        const service = t.app.get(ApiKeysService);
        const { key, record } = await service.issue('to-revoke');
        const before = await t.http.get('/v1/store/orders').set('Authorization', `Bearer ${key}`);
        expect(before.status).toBe(200);

        expect(await service.revoke(record.id)).toBe(true);
        const after = await pollUntil(
          () => t.http.get('/v1/store/orders').set('Authorization', `Bearer ${key}`),
          (res) => res.status === 401,
          REVOCATION_DEADLINE_MS,
        );
        expectUnauthorized(after, INVALID_TOKEN_CHALLENGE);
        t.spec.check('listOrders', after);

        for (const operation of operations) {
          const send = await prepare(operation);
          await expectNoWrites(t.db, async () => {
            const res = await send(`Bearer ${key}`);
            expect({ operation: operation.operationId, status: res.status }).toEqual({
              operation: operation.operationId,
              status: 401,
            });
            expectUnauthorized(res, INVALID_TOKEN_CHALLENGE);
            expect(res.text).not.toContain(key);
            specOf(t, operation).check(operation.operationId, res);
          });
        }

        const other = await t.http.get('/v1/store/orders').set('Authorization', t.auth);
        expect(other.status).toBe(200);
        const listed = (await service.list()).find((entry) => entry.id === record.id);
        expect(listed?.revokedAt).toBeInstanceOf(Date);
      },
      REVOCATION_DEADLINE_MS + 15_000,
    );
  });

  describe('authentication is checked before anything else', () => {
    let takenCategory: string;
    let pendingOrder: number;

    beforeAll(async () => {
      takenCategory = 'taken-by-auth-test';
      await insertCategory(t.db, takenCategory);
      pendingOrder = await insertOrder(t.db, { petId });
    });

    const json = 'application/json';
    /** Requests that a valid key would see refused with 400, 404, 409, 413, 415 or 422. */
    const requests: Array<[string, string, () => Test]> = [
      ['a bad path id', 'getOrderById', () => t.http.get('/v1/store/orders/abc')],
      ['a zero path id', 'cancelOrder', () => t.http.delete('/v1/store/orders/0')],
      ['a negative path id', 'shipOrder', () => t.http.post('/v1/store/orders/-1/ship')],
      ['an exponent path id', 'getPetById', () => t.http.get('/v1/pets/1e3')],
      ['an absent order', 'getOrderById', () => t.http.get('/v1/store/orders/987654321')],
      ['an absent pet', 'getPetById', () => t.http.get('/v1/pets/987654321')],
      [
        'a pending order to cancel',
        'cancelOrder',
        () => t.http.delete(`/v1/store/orders/${pendingOrder}`),
      ],
      [
        'a pending order to ship',
        'shipOrder',
        () => t.http.post(`/v1/store/orders/${pendingOrder}/ship`),
      ],
      [
        'malformed JSON',
        'createCategory',
        () => t.http.post('/v1/categories').set('Content-Type', json).send('{"name":'),
      ],
      [
        'a text/plain body',
        'createCategory',
        () => t.http.post('/v1/categories').set('Content-Type', 'text/plain').send('cats'),
      ],
      [
        'no Content-Type',
        'placeOrder',
        () => t.http.post('/v1/store/orders').send(Buffer.from('{"petId":1,"quantity":1}')),
      ],
      [
        'a body just over 16 KiB',
        'placeOrder',
        () =>
          t.http
            .post('/v1/store/orders')
            .set('Content-Type', json)
            .send(`{"petId":1,"quantity":1}${' '.repeat(16 * 1024)}`),
      ],
      [
        'a 1 MiB body',
        'createCategory',
        () =>
          t.http
            .post('/v1/categories')
            .set('Content-Type', json)
            .send(`{"name":"${'x'.repeat(1024 * 1024)}"}`),
      ],
      [
        'an invalid order',
        'placeOrder',
        () => t.http.post('/v1/store/orders').send({ quantity: 'many', status: 'shipped' }),
      ],
      [
        'an order for an absent pet',
        'placeOrder',
        () => t.http.post('/v1/store/orders').send({ petId: 987654321, quantity: 1 }),
      ],
      [
        'a category name that is taken',
        'createCategory',
        () => t.http.post('/v1/categories').send({ name: takenCategory.toUpperCase() }),
      ],
      [
        'a __proto__ key',
        'createCategory',
        () =>
          t.http
            .post('/v1/categories')
            .set('Content-Type', json)
            .send('{"name":"x","__proto__":{"polluted":true}}'),
      ],
    ];

    it.each(requests)(
      'a request without a key and with %s answers 401 and writes nothing',
      async (_label, operationId, send) => {
        await expectNoWrites(t.db, async () => {
          const res = await send();
          expectUnauthorized(res, CHALLENGE);
          t.spec.check(operationId, res);
        });
      },
    );

    it.each(requests)(
      'a request with an unknown key and with %s answers 401 and writes nothing',
      async (_label, operationId, send) => {
        await expectNoWrites(t.db, async () => {
          const res = await send().set('Authorization', `Bearer ${newKeyLikeString()}`);
          expectUnauthorized(res, INVALID_TOKEN_CHALLENGE);
          t.spec.check(operationId, res);
        });
        expect(await orderStatus(t.db, pendingOrder)).toBe('pending');
      },
    );
  });

  describe('key storage', () => {
    it('issues random psk_ keys of at least 128 bits', async () => {
      const service = t.app.get(ApiKeysService);
      const first = (await service.issue('entropy-1')).key;
      const second = (await service.issue('entropy-2')).key;
      // 22 base64url characters carry 132 bits.
      expect(first).toMatch(/^psk_[A-Za-z0-9_-]{22,}$/);
      expect(second).toMatch(/^psk_[A-Za-z0-9_-]{22,}$/);
      expect(first).not.toBe(second);
    });

    it('stores only the SHA-256 hex hash and a short display prefix, never the key', async () => {
      const { key, record } = await t.app.get(ApiKeysService).issue('storage');
      // Used once, so anything written on use (last_used_at, ...) is in the table too.
      await t.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(200);
      await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);

      const { rows } = await t.db.query<{ key_hash: string; prefix: string }>(
        'SELECT key_hash, prefix FROM api_keys WHERE id = $1',
        [record.id],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].key_hash).toBe(sha256(key));
      const { prefix } = rows[0];
      expect(prefix.startsWith('psk_')).toBe(true);
      expect(key.startsWith(prefix)).toBe(true);
      // What the prefix reveals leaves at least 128 bits (22 base64url characters) secret.
      expect(key.length - prefix.length).toBeGreaterThanOrEqual(22);

      // Neither key, nor its secret part, appears in any column of any table.
      const { rows: tables } = await t.db.query<{ name: string }>(
        `SELECT quote_ident(table_name) AS name FROM information_schema.tables
          WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
      );
      expect(tables.map((table) => table.name)).toContain('api_keys');
      for (const { name } of tables) {
        const { rows: texts } = await t.db.query<{ text: string }>(
          `SELECT t::text AS text FROM ${name} t`,
        );
        for (const secret of [key, key.slice(prefix.length), t.apiKey, t.apiKey.slice(12)]) {
          const found = texts.some((row) => row.text.includes(secret));
          expect({ table: name, found }).toEqual({ table: name, found: false });
        }
      }
    });
  });

  describe('BOOTSTRAP_API_KEY', () => {
    it('makes the configured key work from start-up, stored as its hash', async () => {
      const key = newKeyLikeString();
      const b = await createTestApp({ bootstrapApiKey: key });
      try {
        const res = await b.http.get('/v1/store/orders').set('Authorization', `Bearer ${key}`);
        expect(res.status).toBe(200);
        b.spec.check('listOrders', res);
        const { rows } = await b.db.query<{ prefix: string; revoked_at: Date | null }>(
          'SELECT prefix, revoked_at FROM api_keys WHERE key_hash = $1',
          [sha256(key)],
        );
        expect(rows).toEqual([{ prefix: expect.any(String), revoked_at: null }]);
        expect(key.startsWith(rows[0].prefix)).toBe(true);
        const { rows: all } = await b.db.query<{ text: string }>(
          'SELECT k::text AS text FROM api_keys k',
        );
        expect(all.some((row) => row.text.includes(key))).toBe(false);
      } finally {
        await b.close();
      }
    });

    it(
      'reinstates the configured key at start-up when it was revoked, without a second row',
      async () => {
        const key = newKeyLikeString();
        const b = await createTestApp({ bootstrapApiKey: key });
        const databaseUrl = b.db.options.connectionString;
        if (databaseUrl === undefined) throw new Error('the test database has no URL');
        try {
          await b.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(200);
          const { rows } = await b.db.query<{ id: string }>(
            'SELECT id FROM api_keys WHERE key_hash = $1',
            [sha256(key)],
          );
          expect(await b.app.get(ApiKeysService).revoke(Number(rows[0].id))).toBe(true);
          const revoked = await pollUntil(
            () => b.http.get('/v1/categories').set('Authorization', `Bearer ${key}`),
            (res) => res.status === 401,
            REVOCATION_DEADLINE_MS,
          );
          expectUnauthorized(revoked, INVALID_TOKEN_CHALLENGE);

          // A restart with the key still configured: it is revoked in the database at start.
          const restarted = await startAppInstance(databaseUrl, { bootstrapApiKey: key });
          try {
            const res = await restarted.http
              .get('/v1/categories')
              .set('Authorization', `Bearer ${key}`);
            expect(res.status).toBe(200);
            b.spec.check('listCategories', res);
          } finally {
            await restarted.close();
          }
          const { rows: after } = await b.db.query<{ revoked_at: Date | null }>(
            'SELECT revoked_at FROM api_keys WHERE key_hash = $1',
            [sha256(key)],
          );
          expect(after).toEqual([{ revoked_at: null }]);
          // The first instance shares the database, so the key works there again too.
          await b.http.get('/v1/categories').set('Authorization', `Bearer ${key}`).expect(200);
        } finally {
          await b.close();
        }
      },
      REVOCATION_DEADLINE_MS + 15_000,
    );

    it('reinstates a configured key that was revoked in the database before the first start', async () => {
      const key = newKeyLikeString();
      // As `apikey revoke` would leave it: a row with the key's hash, revoked.
      await t.db.query(
        `INSERT INTO api_keys (name, prefix, key_hash, revoked_at) VALUES ('ops', $1, $2, now())`,
        [key.slice(0, 12), sha256(key)],
      );
      const denied = await t.http.get('/v1/store/orders').set('Authorization', `Bearer ${key}`);
      expectUnauthorized(denied, INVALID_TOKEN_CHALLENGE);

      const databaseUrl = t.db.options.connectionString;
      if (databaseUrl === undefined) throw new Error('the test database has no URL');
      const instance = await startAppInstance(databaseUrl, { bootstrapApiKey: key });
      try {
        const res = await instance.http
          .get('/v1/store/orders')
          .set('Authorization', `Bearer ${key}`);
        expect(res.status).toBe(200);
        t.spec.check('listOrders', res);
      } finally {
        await instance.close();
      }
      const { rows } = await t.db.query<{ revoked_at: Date | null }>(
        'SELECT revoked_at FROM api_keys WHERE key_hash = $1',
        [sha256(key)],
      );
      expect(rows).toEqual([{ revoked_at: null }]);
    });
  });

  describe('routes outside /v1', () => {
    it('/docs-json serves the OpenAPI document without a key', async () => {
      const res = await t.http.get('/docs-json');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.openapi).toMatch(/^3\./);
      expect(res.headers['www-authenticate']).toBeUndefined();
    });

    it('/docs serves Swagger UI without a key', async () => {
      const res = await t.http.get('/docs');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('swagger');
      expect(res.headers['www-authenticate']).toBeUndefined();
    });

    it.each(['/health/live', '/health/ready'])('%s answers 200 without a key', async (path) => {
      const res = await t.http.get(path);
      expect(res.status).toBe(200);
      expect(res.headers['www-authenticate']).toBeUndefined();
    });
  });
});
