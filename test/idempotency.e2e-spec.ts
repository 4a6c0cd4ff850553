import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Response } from 'supertest';
import { ApiKeysService } from '../src/auth/api-keys.service.js';
import { IdempotencyRepository } from '../src/idempotency/idempotency.repository.js';
import { IdempotencyService } from '../src/idempotency/idempotency.service.js';
import { requestFingerprint } from '../src/idempotency/idempotency-key.js';
import { orderJson } from '../src/store/order-json.js';
import { OrderRepository } from '../src/store/order.repository.js';
import { countRows, insertCategory, insertPet } from './support/factories.js';
import { countStatements } from './support/statement-counter.js';
import { expectErrorResponse, expectNoWrites, expectReplayOf } from './support/http-assertions.js';
import {
  createTestApp,
  startAppInstance,
  type AppInstance,
  type TestApp,
} from './support/test-app.js';

/** A fresh key per test: records outlive the test that made them. */
const newKey = () => `k-${randomBytes(8).toString('hex')}`;

async function idempotencyRecords(db: pg.Pool, key: string) {
  const { rows } = await db.query<{
    state: string;
    response_status: number | null;
    version: string;
    operation: string;
  }>(
    'SELECT state, response_status, version, operation FROM idempotency_keys WHERE key = $1 ORDER BY id',
    [key],
  );
  return rows;
}

describe('Idempotency-Key on placeOrder and createCategory (e2e)', () => {
  let t: TestApp;
  let petId: number;

  beforeAll(async () => {
    t = await createTestApp();
    petId = await insertPet(t.db, { name: 'Rex' });
  });
  afterAll(() => t.close());

  const placeOrder = (key: string | undefined, body: object | string, app: AppInstance = t) => {
    let req = app.http.post('/v1/store/orders').set('Authorization', t.auth);
    if (key !== undefined) req = req.set('Idempotency-Key', key);
    return typeof body === 'string'
      ? req.set('Content-Type', 'application/json').send(body)
      : req.send(body);
  };
  const createCategory = (key: string | undefined, body: object, auth = t.auth) => {
    let req = t.http.post('/v1/categories').set('Authorization', auth);
    if (key !== undefined) req = req.set('Idempotency-Key', key);
    return req.send(body);
  };

  describe('a repeat with the same key and the same request', () => {
    it('placeOrder: gets the first 201 again (body, Location), with Idempotent-Replayed, and nothing is written', async () => {
      const key = newKey();
      const body = { petId, quantity: 2, shipDate: '2026-12-01T09:30:00+01:00' };
      const first = await placeOrder(key, body).expect(201);
      t.spec.check('placeOrder', first);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(first.body).toEqual({
        id: expect.any(Number),
        petId,
        quantity: 2,
        shipDate: '2026-12-01T08:30:00.000Z',
        complete: false,
        status: 'pending',
      });
      // Byte for byte what the API writes for an order without the header.
      expect(first.text).toBe(JSON.stringify(first.body));
      expect(first.headers.location).toBe(`/v1/store/orders/${first.body.id}`);

      await expectNoWrites(t.db, async () => {
        const replay = await placeOrder(key, body).expect(201);
        t.spec.check('placeOrder', replay);
        expectReplayOf(replay, first);
      });
      // The answer is the one remembered, not the order as it is now.
      await t.http.delete(first.headers.location).set('Authorization', t.auth).expect(204);
      expectReplayOf(await placeOrder(key, body), first);
    });

    it('is the same JSON value: key order and white space do not matter', async () => {
      const key = newKey();
      const first = await placeOrder(key, `{"petId":${petId},"quantity":3}`).expect(201);
      const replay = await placeOrder(key, `{ "quantity" : 3,\n  "petId": ${petId} }`);
      expectReplayOf(replay, first);
    });

    it('accepts the quoted form of the draft: "abc" is the key abc', async () => {
      const key = newKey();
      const first = await placeOrder(`"${key}"`, { petId, quantity: 1 }).expect(201);
      expectReplayOf(await placeOrder(key, { petId, quantity: 1 }), first);
      const quoted = `q\\"${key}`;
      const second = await placeOrder(`"${quoted}"`, { petId, quantity: 1 }).expect(201);
      expectReplayOf(await placeOrder(`q"${key}`, { petId, quantity: 1 }), second);
    });

    it('createCategory: gets the first 201 again, without Location (createCategory sends none)', async () => {
      const key = newKey();
      const body = { name: `  idem-${key}  `, description: 'Tabs\tand\nlines, "quotes" and é' };
      const first = await createCategory(key, body).expect(201);
      t.spec.check('createCategory', first);
      expect(first.body).toEqual({
        id: expect.any(Number),
        name: `idem-${key}`,
        description: body.description,
      });
      expect(first.text).toBe(JSON.stringify(first.body));
      expect(first.headers.location).toBeUndefined();
      await expectNoWrites(t.db, async () => {
        expectReplayOf(await createCategory(key, body), first);
      });
      const bare = await createCategory(newKey(), { name: `bare-${key}` }).expect(201);
      expect(bare.text).toBe(JSON.stringify({ id: bare.body.id, name: `bare-${key}` }));
    });
  });

  describe('the operation’s own rejections are remembered', () => {
    it('409 CATEGORY_EXISTS is replayed even once the name is free again', async () => {
      const key = newKey();
      const name = `taken-${key}`;
      const taken = await insertCategory(t.db, name);
      const first = await createCategory(key, { name });
      expectErrorResponse(first, 409, 'CATEGORY_EXISTS');
      t.spec.check('createCategory', first);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      await t.db.query('DELETE FROM categories WHERE id = $1', [taken]);
      await expectNoWrites(t.db, async () => {
        const replay = await createCategory(key, { name });
        expectErrorResponse(replay, 409, 'CATEGORY_EXISTS');
        expectReplayOf(replay, first);
      });
      // Without the key, the name is free.
      await createCategory(undefined, { name }).expect(201);
    });

    it('422 PET_NOT_FOUND is replayed even once the pet exists', async () => {
      const key = newKey();
      const missing = 987_654_321;
      const first = await placeOrder(key, { petId: missing, quantity: 1 });
      expectErrorResponse(first, 422, 'PET_NOT_FOUND');
      t.spec.check('placeOrder', first);
      await t.db.query(`INSERT INTO pets (id, name) OVERRIDING SYSTEM VALUE VALUES ($1, 'Late')`, [
        missing,
      ]);
      await expectNoWrites(t.db, async () => {
        expectReplayOf(await placeOrder(key, { petId: missing, quantity: 1 }), first);
      });
    });

    it('422 PET_NOT_FOUND for a pet id past 2^53 is remembered too', async () => {
      const key = newKey();
      const body = '{"petId": 9223372036854775807, "quantity": 1}';
      const first = await placeOrder(key, body);
      expectErrorResponse(first, 422, 'PET_NOT_FOUND');
      expectReplayOf(await placeOrder(key, body), first);
    });
  });

  describe('the same key with a different request', () => {
    it('is 422 IDEMPOTENCY_KEY_REUSED and writes nothing', async () => {
      const key = newKey();
      await placeOrder(key, { petId, quantity: 1 }).expect(201);
      await expectNoWrites(t.db, async () => {
        for (const body of [
          { petId, quantity: 2 },
          { petId, quantity: 1, shipDate: '2026-12-01T09:30:00Z' },
          `{"petId":${petId},"quantity":1000}`,
        ]) {
          const res = await placeOrder(key, body);
          expectErrorResponse(res, 422, 'IDEMPOTENCY_KEY_REUSED');
          t.spec.check('placeOrder', res);
          expect(res.headers['idempotent-replayed']).toBeUndefined();
        }
      });
      // 1.0 is the number 1: the same value.
      expect((await placeOrder(key, `{"petId":${petId},"quantity":1.0}`)).status).toBe(201);
    });

    it('createCategory: another name under the same key is 422', async () => {
      const key = newKey();
      await createCategory(key, { name: `one-${key}` }).expect(201);
      const res = await createCategory(key, { name: `two-${key}` });
      expectErrorResponse(res, 422, 'IDEMPOTENCY_KEY_REUSED');
      t.spec.check('createCategory', res);
    });
  });

  describe('while the first request is still running', () => {
    it('a repeat is 409 IDEMPOTENCY_KEY_IN_USE with Retry-After: 1; then it gets the answer', async () => {
      const key = newKey();
      const body = { petId, quantity: 4 };
      // Hold the pet's row: the order's foreign key check waits for it, mid-request.
      const blocker = new pg.Client({ connectionString: t.databaseUrl });
      await blocker.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query('SELECT id FROM pets WHERE id = $1 FOR UPDATE', [petId]);
        const running = placeOrder(key, body).then((res) => res);
        await waitFor(async () => (await idempotencyRecords(t.db, key)).length === 1);

        const inUse = await placeOrder(key, body);
        expectErrorResponse(inUse, 409, 'IDEMPOTENCY_KEY_IN_USE');
        expect(inUse.headers['retry-after']).toBe('1');
        t.spec.check('placeOrder', inUse);
        // Another body under that key is a client error, whatever the first request's state.
        expectErrorResponse(
          await placeOrder(key, { petId, quantity: 5 }),
          422,
          'IDEMPOTENCY_KEY_REUSED',
        );

        await blocker.query('COMMIT');
        const first = await running;
        expect(first.status).toBe(201);
        expectReplayOf(await placeOrder(key, body), first);
      } finally {
        await blocker.end();
      }
    });

    it.each(['v1', 'v2'])(
      '%s: 20 concurrent identical creates make exactly one order',
      async (version) => {
        const key = newKey();
        const body = { petId, quantity: 7 };
        const before = await countRows(t.db, 'orders');
        const answers = await Promise.all(
          Array.from({ length: 20 }, () =>
            t.http
              .post(`/${version}/store/orders`)
              .set('Authorization', t.auth)
              .set('Idempotency-Key', key)
              .send(body),
          ),
        );
        expect(await countRows(t.db, 'orders')).toBe(before + 1);
        const created = answers.filter((res) => res.status === 201);
        const inUse = answers.filter((res) => res.status === 409);
        expect(created.length + inUse.length).toBe(20);
        expect(created.length).toBeGreaterThanOrEqual(1);
        expect(new Set(created.map((res) => res.text)).size).toBe(1);
        expect(created.filter((res) => res.headers['idempotent-replayed'] !== 'true')).toHaveLength(
          1,
        );
        for (const res of inUse) expectErrorResponse(res, 409, 'IDEMPOTENCY_KEY_IN_USE');
      },
    );

    it('20 concurrent identical category creates make exactly one category', async () => {
      const key = newKey();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => createCategory(key, { name: `race-${key}` })),
      );
      const { rows } = await t.db.query('SELECT id FROM categories WHERE name = $1', [
        `race-${key}`,
      ]);
      expect(rows).toHaveLength(1);
      expect(answers.every((res) => [201, 409].includes(res.status))).toBe(true);
      for (const res of answers.filter((res) => res.status === 409)) {
        expectErrorResponse(res, 409, 'IDEMPOTENCY_KEY_IN_USE');
      }
    });
  });

  describe('a request that did not run is not remembered', () => {
    it.each([
      ['400 VALIDATION_FAILED', { petId, quantity: 0 }, 'application/json', 400],
      ['400 MALFORMED_JSON', '{"petId":', 'application/json', 400],
      ['415', 'petId=1', 'application/x-www-form-urlencoded', 415],
    ])('%s: the same key then runs', async (_name, body, contentType, status) => {
      const key = newKey();
      const res = await t.http
        .post('/v1/store/orders')
        .set('Authorization', t.auth)
        .set('Idempotency-Key', key)
        .set('Content-Type', contentType)
        .send(typeof body === 'string' ? body : JSON.stringify(body));
      expect(res.status).toBe(status);
      expect(await idempotencyRecords(t.db, key)).toEqual([]);
      await placeOrder(key, { petId, quantity: 1 }).expect(201);
    });

    it('413: a body over 16 KiB does not take the key', async () => {
      const key = newKey();
      const json = JSON.stringify({ petId, quantity: 1 });
      const res = await t.http
        .post('/v1/store/orders')
        .set('Authorization', t.auth)
        .set('Idempotency-Key', key)
        .set('Content-Type', 'application/json')
        .send(json + ' '.repeat(16 * 1024 + 1 - json.length));
      expectErrorResponse(res, 413, 'PAYLOAD_TOO_LARGE');
      expect(await idempotencyRecords(t.db, key)).toEqual([]);
      const retry = await placeOrder(key, { petId, quantity: 1 }).expect(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
    });

    it('429: a request over the rate limit does not take the key; the same key runs elsewhere', async () => {
      // An instance of its own with one request a minute per API key (in memory, per instance).
      const limited = await startAppInstance(t.databaseUrl, {
        rateLimit: { redisKeyPrefix: 'idem-429:', perKeyPerMinute: 1, unauthenticatedPerMinute: 0 },
      });
      try {
        await limited.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
        const key = newKey();
        const res = await placeOrder(key, { petId, quantity: 1 }, limited);
        expectErrorResponse(res, 429, 'RATE_LIMITED');
        expect(await idempotencyRecords(t.db, key)).toEqual([]);
        const retry = await placeOrder(key, { petId, quantity: 1 }).expect(201);
        expect(retry.headers['idempotent-replayed']).toBeUndefined();
      } finally {
        await limited.close();
      }
    });

    it('authentication comes first: a malformed Idempotency-Key without a valid API key is 401', async () => {
      const res = await t.http
        .post('/v1/store/orders')
        .set('Idempotency-Key', 'has spaces')
        .send({ petId, quantity: 1 });
      expectErrorResponse(res, 401, 'UNAUTHORIZED');
    });

    it('401: another caller’s refused request does not take the key', async () => {
      const key = newKey();
      const res = await createCategory(key, { name: `x-${key}` }, 'Bearer psk_not-a-real-key');
      expectErrorResponse(res, 401, 'UNAUTHORIZED');
      expect(await idempotencyRecords(t.db, key)).toEqual([]);
      await createCategory(key, { name: `x-${key}` }).expect(201);
    });

    it('a 5xx frees the key: a retry runs again', async () => {
      const key = newKey();
      await t.db.query(`
        CREATE FUNCTION fail_order_insert() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$;
        CREATE TRIGGER fail_order_insert BEFORE INSERT ON orders
          FOR EACH ROW EXECUTE FUNCTION fail_order_insert();`);
      try {
        expectErrorResponse(await placeOrder(key, { petId, quantity: 1 }), 500, 'INTERNAL_ERROR');
      } finally {
        await t.db.query(
          `DROP TRIGGER fail_order_insert ON orders; DROP FUNCTION fail_order_insert();`,
        );
      }
      expect(await idempotencyRecords(t.db, key)).toEqual([]);
      const retry = await placeOrder(key, { petId, quantity: 1 }).expect(201);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
    });
  });

  describe('scope: the API key, the version and the operation', () => {
    it('the same value under another API key, or for another operation, is unrelated', async () => {
      const key = newKey();
      const other = (await t.app.get(ApiKeysService).issue('idempotency-other')).key;
      const mine = await placeOrder(key, { petId, quantity: 1 }).expect(201);
      const theirs = await t.http
        .post('/v1/store/orders')
        .set('Authorization', `Bearer ${other}`)
        .set('Idempotency-Key', key)
        .send({ petId, quantity: 1 })
        .expect(201);
      expect(theirs.body.id).not.toBe(mine.body.id);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      // Another operation, another body: not a reuse.
      await createCategory(key, { name: `scope-${key}` }).expect(201);
      expect(
        (await idempotencyRecords(t.db, key)).map((record) => record.operation).sort(),
      ).toEqual(['createCategory', 'placeOrder', 'placeOrder']);
    });

    it('other operations ignore the header', async () => {
      const key = newKey();
      const order = await placeOrder(undefined, { petId, quantity: 1 }).expect(201);
      for (let i = 0; i < 2; i++) {
        await t.http
          .post(`${order.headers.location}/ship`)
          .set('Authorization', t.auth)
          .set('Idempotency-Key', key)
          .expect(200);
        await t.http
          .get('/v1/store/orders')
          .set('Idempotency-Key', 'bad key')
          .set('Authorization', t.auth)
          .expect(200);
      }
      expect(await idempotencyRecords(t.db, key)).toEqual([]);
    });
  });

  describe('v2', () => {
    const post = (path: string, key: string, body: object) =>
      t.http.post(path).set('Authorization', t.auth).set('Idempotency-Key', key).send(body);

    it('placeOrder: a replay gets the first 201 again with its /v2 Location', async () => {
      const key = newKey();
      const body = { petId, quantity: 3 };
      const first = await post('/v2/store/orders', key, body).expect(201);
      t.specV2.check('placeOrder', first);
      expect(first.headers.location).toBe(`/v2/store/orders/${first.body.id}`);
      await expectNoWrites(t.db, async () => {
        const replay = await post('/v2/store/orders', key, body).expect(201);
        t.specV2.check('placeOrder', replay);
        expectReplayOf(replay, first);
      });
      const reused = await post('/v2/store/orders', key, { petId, quantity: 4 }).expect(422);
      expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
      t.specV2.check('placeOrder', reused);
    });

    it('createCategory: a replay gets the first 201 again', async () => {
      const key = newKey();
      const first = await post('/v2/categories', key, { name: `v2-${key}` }).expect(201);
      const replay = await post('/v2/categories', key, { name: `v2-${key}` }).expect(201);
      t.specV2.check('createCategory', replay);
      expectReplayOf(replay, first);
    });

    it('the same key in v1 and in v2 is two unrelated keys', async () => {
      const key = newKey();
      const body = { petId, quantity: 1 };
      const v1 = await placeOrder(key, body).expect(201);
      const v2 = await post('/v2/store/orders', key, body).expect(201);
      expect(v2.body.id).not.toBe(v1.body.id);
      expect(v2.headers['idempotent-replayed']).toBeUndefined();
      expect(v2.headers.location).toBe(`/v2/store/orders/${v2.body.id}`);
      expect((await idempotencyRecords(t.db, key)).map((record) => record.version).sort()).toEqual([
        'v1',
        'v2',
      ]);
    });
  });

  describe('the record lives in PostgreSQL', () => {
    it('replays on a second instance sharing the database, and after a restart', async () => {
      const key = newKey();
      const body = { petId, quantity: 9 };
      const second = await startAppInstance(t.databaseUrl);
      let first: Response;
      try {
        first = await placeOrder(key, body).expect(201);
        expectReplayOf(await placeOrder(key, body, second), first);
      } finally {
        await second.close();
      }
      const restarted = await startAppInstance(t.databaseUrl);
      try {
        expectReplayOf(await placeOrder(key, body, restarted), first);
      } finally {
        await restarted.close();
      }
    });

    it('remembers for the retention time, then the key is free again', async () => {
      const key = newKey();
      const body = { petId, quantity: 1 };
      const first = await placeOrder(key, body).expect(201);
      const { rows } = await t.db.query<{ seconds: number }>(
        `SELECT extract(epoch FROM expires_at - now())::float8 AS seconds FROM idempotency_keys WHERE key = $1`,
        [key],
      );
      // The default retention: 24 hours.
      expect(rows[0].seconds).toBeGreaterThan(86_400 - 60);
      expect(rows[0].seconds).toBeLessThanOrEqual(86_400);
      await t.db.query(
        `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`,
        [key],
      );
      const again = await placeOrder(key, { petId, quantity: 2 }).expect(201);
      expect(again.body.id).not.toBe(first.body.id);
      expect(again.headers['idempotent-replayed']).toBeUndefined();
    });

    it('a request that died holding the key frees it when its lock expires', async () => {
      const key = newKey();
      const body = { petId, quantity: 1 };
      const { keyId } = (
        await t.db.query<{ keyId: string }>(`SELECT id AS "keyId" FROM api_keys WHERE name = 'e2e'`)
      ).rows[0];
      await t.db.query(
        `INSERT INTO idempotency_keys (api_key_id, version, operation, key, fingerprint, state,
           lock_token, locked_until, expires_at)
         VALUES ($1, 'v1', 'placeOrder', $2, $3, 'in_progress', gen_random_uuid(),
           now() + interval '1 hour', now() + interval '1 day')`,
        [keyId, key, requestFingerprint(body)],
      );
      expectErrorResponse(await placeOrder(key, body), 409, 'IDEMPOTENCY_KEY_IN_USE');
      await t.db.query(
        `UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE key = $1`,
        [key],
      );
      // Nothing was remembered, so any body may take it.
      const res = await placeOrder(key, { petId, quantity: 3 }).expect(201);
      expect(res.body.quantity).toBe(3);
    });

    it('a request that lost its key to a takeover writes nothing', async () => {
      const key = newKey();
      const repository = t.app.get(IdempotencyRepository);
      const { keyId } = (
        await t.db.query<{ keyId: string }>(`SELECT id AS "keyId" FROM api_keys WHERE name = 'e2e'`)
      ).rows[0];
      const scope = { apiKeyId: Number(keyId), version: 'v1', operation: 'placeOrder', key };
      const fingerprint = requestFingerprint({});
      const result = await repository.claim(scope, {
        fingerprint,
        token: crypto.randomUUID(),
        lockSeconds: 10,
        retentionSeconds: 60,
      });
      if (!('claimed' in result)) throw new Error('expected a claim');
      // Another request takes it over once the lock has expired.
      await t.db.query(
        `UPDATE idempotency_keys SET lock_token = gen_random_uuid() WHERE key = $1`,
        [key],
      );
      const before = await countRows(t.db, 'orders');
      const attachedWrite = repository.recordingAttachedWrite(result.claimed, {
        bodySql: orderJson('main'),
        locationPrefix: '/v1/store/orders/',
        rejection: { status: 422, body: '{}' },
        retentionSeconds: 60,
      });
      const { order, outputs } = await t.app
        .get(OrderRepository)
        .insertForExistingPet(String(petId), 1, null, [attachedWrite]);
      expect({ order, recorded: outputs[attachedWrite.name] }).toEqual({
        order: null,
        recorded: null,
      });
      expect(await countRows(t.db, 'orders')).toBe(before);
    });

    it('expired records are purged in batches, live ones kept', async () => {
      const keys = Array.from({ length: 5 }, newKey);
      for (const key of keys) await placeOrder(key, { petId, quantity: 1 }).expect(201);
      await t.db.query(
        `UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = ANY($1)`,
        [keys.slice(0, 4)],
      );
      const deleted = await t.app.get(IdempotencyService).purgeExpired(3);
      expect(deleted).toBeGreaterThanOrEqual(4);
      const { rows } = await t.db.query<{ key: string }>(
        'SELECT key FROM idempotency_keys WHERE key = ANY($1)',
        [keys],
      );
      expect(rows.map((row) => row.key)).toEqual([keys[4]]);
    });
  });

  describe('the header value', () => {
    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['a space inside', 'a b'],
      ['a character past ASCII', 'clé'],
      ['an empty quoted string', '""'],
      ['a quoted space', '"a b"'],
      ['a stray quote inside the quoted form', '"a"b"'],
      ['a bad escape in the quoted form', '"a\\b"'],
      ['257 characters quoted', `"${'k'.repeat(256)}"`],
    ])(
      'is 400 VALIDATION_FAILED naming Idempotency-Key when it is %s, writing nothing',
      async (_what, value) => {
        await expectNoWrites(t.db, async () => {
          for (const send of [
            () => placeOrder(value, { petId, quantity: 1 }),
            () => createCategory(value, { name: `h-${randomBytes(4).toString('hex')}` }),
          ]) {
            const res = await send();
            expectErrorResponse(res, 400, 'VALIDATION_FAILED');
            expect(res.body.message).toContain('Idempotency-Key');
          }
        });
      },
    );

    it('is 400 when sent twice, even with the same value', async () => {
      const key = newKey();
      await expectNoWrites(t.db, async () => {
        const res = await t.http
          .post('/v1/store/orders')
          .set('Authorization', t.auth)
          .set('Idempotency-Key', [key, key] as unknown as string) // two header lines
          .send({ petId, quantity: 1 });
        expectErrorResponse(res, 400, 'VALIDATION_FAILED');
        expect(res.body.message).toBe('Idempotency-Key must be sent once');
      });
    });

    it('takes 1 to 255 visible ASCII characters, and a lone double quote', async () => {
      const visible = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) =>
        String.fromCharCode(0x21 + i),
      ).join('');
      for (const key of ['k', '"', 'k'.repeat(255), visible, `"${'q'.repeat(255)}"`]) {
        const res = await placeOrder(key, { petId, quantity: 1 });
        expect({ key, status: res.status }).toEqual({ key, status: 201 });
      }
    });
  });

  describe('cost', () => {
    it('an idempotent create costs one round trip more than a plain one; a replay one in all', async () => {
      const plain = await countStatements(() =>
        placeOrder(undefined, { petId, quantity: 1 }).expect(201),
      );
      const key = newKey();
      const idempotent = await countStatements(() =>
        placeOrder(key, { petId, quantity: 1 }).expect(201),
      );
      const replay = await countStatements(() =>
        placeOrder(key, { petId, quantity: 1 }).expect(201),
      );
      // The test app checks the API key in the database on every request (cache off).
      expect(plain).toBeGreaterThanOrEqual(1);
      expect({ idempotent, replay }).toEqual({ idempotent: plain + 1, replay: plain });
    });
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
