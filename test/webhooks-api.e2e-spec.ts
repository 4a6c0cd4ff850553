import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { ApiKeysService } from '../src/auth/api-keys.service.js';
import { loadConfig, type WebhookConfig } from '../src/config/app-config.js';
import { insertPet } from './support/factories.js';
import { expectErrorResponse, expectNoWrites, expectReplayOf } from './support/http-assertions.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { eventually } from './support/eventually.js';

function webhookSettings(overrides: Partial<WebhookConfig> = {}): WebhookConfig {
  return {
    ...loadConfig({}).webhooks,
    allowPrivateTargets: true,
    pollIntervalMs: 100,
    retryScheduleMs: [200],
    timeoutMs: 500,
    claimTtlMs: 1500,
    ...overrides,
  };
}

const PUBLIC_URL = 'https://93.184.216.34/hooks';

describe('webhook subscriptions: /v2/webhooks (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let otherAuth: string;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await createTestApp({ webhooks: webhookSettings() });
    otherAuth = `Bearer ${(await t.app.get(ApiKeysService).issue('other')).key}`;
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(async () => {
    receiver.reset();
    await t.db.query('DELETE FROM webhook_subscriptions');
  });

  const create = (body: object, auth = t.auth) =>
    t.http.post('/v2/webhooks').set('Authorization', auth).send(body);

  it('creates a subscription, shows its secret once, and points Location at it', async () => {
    const res = await create({
      url: receiver.url,
      events: ['order.placed', 'category.created'],
      description: 'warehouse',
    }).expect(201);
    t.specV2.check('createWebhook', res);
    expect(res.body).toEqual({
      id: expect.any(Number),
      url: receiver.url,
      events: ['order.placed', 'category.created'],
      description: 'warehouse',
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      enabled: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(res.headers.location).toBe(`/v2/webhooks/${res.body.id}`);
    const secret = res.body.secret as string;

    const read = await t.http.get(res.headers.location).set('Authorization', t.auth).expect(200);
    t.specV2.check('getWebhook', read);
    const { secret: _shown, ...withoutSecret } = res.body as Record<string, unknown>;
    expect(read.body).toEqual(withoutSecret);
    const list = await t.http.get('/v2/webhooks').set('Authorization', t.auth).expect(200);
    t.specV2.check('listWebhooks', list);
    expect(list.body).toEqual({ data: [withoutSecret], nextCursor: null });
    for (const answer of [read.text, list.text]) {
      expect(answer).not.toContain(secret.slice(6, 20));
    }
  });

  it('stores a description in Unicode NFC; right-to-left marks and line breaks are fine in it', async () => {
    const description = 'Cafe\u0301 \u05e9\u05dc\u05d5\u05dd\u200f\nline two';
    const res = await create({ url: receiver.url, events: ['order.placed'], description }).expect(
      201,
    );
    t.specV2.check('createWebhook', res);
    expect(res.body.description).toBe(description.normalize('NFC'));
    const { rows } = await t.db.query('SELECT description FROM webhook_subscriptions');
    expect(rows).toEqual([{ description: description.normalize('NFC') }]);
  });

  it('omits description when none was given', async () => {
    const res = await create({ url: receiver.url, events: ['order.shipped'] }).expect(201);
    expect(res.body).not.toHaveProperty('description');
  });

  it.each([
    ['url', { url: 'ftp://example.com/x', events: ['order.placed'] }],
    ['url', { url: '/relative/path', events: ['order.placed'] }],
    ['url', { url: 'https://user:pass@example.com/x', events: ['order.placed'] }],
    ['url', { url: `https://example.com/${'a'.repeat(2048)}`, events: ['order.placed'] }],
    ['url', { url: 42, events: ['order.placed'] }],
    ['url', { events: ['order.placed'] }],
    ['events', { url: PUBLIC_URL, events: [] }],
    ['events', { url: PUBLIC_URL, events: ['order.placed', 'order.placed'] }],
    ['events', { url: PUBLIC_URL, events: ['order.deleted'] }],
    ['events', { url: PUBLIC_URL, events: 'order.placed' }],
    ['events', { url: PUBLIC_URL }],
    ['description', { url: PUBLIC_URL, events: ['order.placed'], description: 'x'.repeat(501) }],
    ['description', { url: PUBLIC_URL, events: ['order.placed'], description: null }],
    ['description', { url: PUBLIC_URL, events: ['order.placed'], description: '\u200b\u2060' }],
    ['description', { url: PUBLIC_URL, events: ['order.placed'], description: 'abc\u202egpj' }],
    ['secret', { url: PUBLIC_URL, events: ['order.placed'], secret: 'whsec_mine' }],
  ])('refuses a bad %s (case %#) with 400 naming it, and stores nothing', async (field, body) => {
    const res = await create(body);
    expectErrorResponse(res, 400, 'VALIDATION_FAILED');
    expect(res.body.message).toContain(field);
    t.specV2.check('createWebhook', res);
    const { rows } = await t.db.query('SELECT count(*)::int AS n FROM webhook_subscriptions');
    expect(rows[0].n).toBe(0);
  });

  it('accepts at most 20 subscriptions per API key, even when created at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 24 }, () => create({ url: PUBLIC_URL, events: ['order.placed'] })),
    );
    expect(answers.filter((res) => res.status === 201)).toHaveLength(20);
    for (const res of answers.filter((answer) => answer.status !== 201)) {
      expectErrorResponse(res, 409, 'WEBHOOK_LIMIT_REACHED');
      t.specV2.check('createWebhook', res);
    }
    // Another key has its own 20.
    await create({ url: PUBLIC_URL, events: ['order.placed'] }, otherAuth).expect(201);
  });

  it("answers 404 WEBHOOK_NOT_FOUND for another key's subscription, exactly as for none", async () => {
    const mine = (await create({ url: PUBLIC_URL, events: ['order.placed'] }).expect(201)).body;
    for (const path of [`/v2/webhooks/${mine.id}`, `/v2/webhooks/${mine.id}/deliveries`]) {
      const theirs = await t.http.get(path).set('Authorization', otherAuth);
      expectErrorResponse(theirs, 404, 'WEBHOOK_NOT_FOUND');
      const none = await t.http
        .get(path.replace(String(mine.id), '9007199254740991'))
        .set('Authorization', t.auth);
      expectErrorResponse(none, 404, 'WEBHOOK_NOT_FOUND');
      expect(theirs.body.message).toBe(
        (none.body as { message: string }).message.replace('9007199254740991', String(mine.id)),
      );
    }
    const deleted = await t.http.delete(`/v2/webhooks/${mine.id}`).set('Authorization', otherAuth);
    expectErrorResponse(deleted, 404, 'WEBHOOK_NOT_FOUND');
    t.specV2.check('deleteWebhook', deleted);
    const list = await t.http.get('/v2/webhooks').set('Authorization', otherAuth).expect(200);
    expect(list.body).toEqual({ data: [], nextCursor: null });
    await t.http.get(`/v2/webhooks/${mine.id}`).set('Authorization', t.auth).expect(200);
  });

  it.each(['0', '-1', '1.5', 'abc', '9223372036854775808'])(
    'refuses the webhook id %s with 400',
    async (id) => {
      const res = await t.http.get(`/v2/webhooks/${id}`).set('Authorization', t.auth);
      expectErrorResponse(res, 400, 'VALIDATION_FAILED');
      expect(res.body.message).toContain('webhookId');
    },
  );

  it('delivers to each subscription the events of its types, whichever key made the change', async () => {
    const petId = await insertPet(t.db, { name: 'Shared' });
    const events = ['order.placed', 'category.created'];
    const subscriptions = [
      { auth: t.auth, ...(await create({ url: receiver.url, events }).expect(201)).body },
      {
        auth: otherAuth,
        ...(await create({ url: receiver.url, events }, otherAuth).expect(201)).body,
      },
    ] as Array<{ auth: string; id: number; secret: string }>;
    // One change by each key.
    const order = await t.http
      .post('/v2/store/orders')
      .set('Authorization', otherAuth)
      .send({ petId, quantity: 1 })
      .expect(201);
    const category = await t.http
      .post('/v2/categories')
      .set('Authorization', t.auth)
      .send({ name: 'lynx' })
      .expect(201);
    const expected = [`category.created ${category.body.id}`, `order.placed ${order.body.id}`];
    for (const { auth, id, secret } of subscriptions) {
      await eventually(async () => {
        const res = await t.http.get(`/v2/webhooks/${id}/deliveries`).set('Authorization', auth);
        const data = (res.body as { data: Array<{ status: string }> }).data;
        return data.length === 2 && data.every((d) => d.status === 'succeeded');
      });
      // What each subscription was sent: the requests its own secret signs.
      const signed = receiver.received.flatMap((entry) => {
        try {
          return [
            new Webhook(secret).verify(entry.body, entry.headers as Record<string, string>) as {
              type: string;
              data: { id: number };
            },
          ];
        } catch {
          return [];
        }
      });
      expect(signed.map((body) => `${body.type} ${body.data.id}`).sort()).toEqual(expected);
    }
    expect(receiver.received).toHaveLength(4);
  });

  it('is v2 only', async () => {
    const res = await t.http.get('/v1/webhooks').set('Authorization', t.auth);
    expectErrorResponse(res, 404, 'NOT_FOUND');
  });

  it('deletes a subscription: 204, then 404, and nothing new is delivered to it', async () => {
    const { id } = (await create({ url: receiver.url, events: ['category.created'] }).expect(201))
      .body;
    const res = await t.http.delete(`/v2/webhooks/${id}`).set('Authorization', t.auth).expect(204);
    t.specV2.check('deleteWebhook', res);
    expect(res.text).toBe('');
    await t.http.get(`/v2/webhooks/${id}`).set('Authorization', t.auth).expect(404);
    await t.http.post('/v2/categories').set('Authorization', t.auth).send({ name: 'kiwi' });
    await new Promise((wait) => setTimeout(wait, 400));
    expect(receiver.received).toHaveLength(0);
  });

  it('lists deliveries with their status, a page at a time', async () => {
    const { id } = (await create({ url: receiver.url, events: ['category.created'] }).expect(201))
      .body;
    receiver.answer = (_entry, index) => (index === 0 ? 500 : 200);
    for (const name of ['emu', 'yak', 'gnu']) {
      await t.http.post('/v2/categories').set('Authorization', t.auth).send({ name }).expect(201);
    }
    const path = `/v2/webhooks/${id}/deliveries`;
    await eventually(async () => {
      const res = await t.http.get(path).set('Authorization', t.auth);
      return (res.body.data as Array<{ status: string }>).every((d) => d.status === 'succeeded');
    });
    const all = await t.http.get(path).set('Authorization', t.auth).expect(200);
    const deliveries = (all.body as { data: Array<{ attempts: number }> }).data;
    t.specV2.check('listWebhookDeliveries', all);
    expect(all.body.nextCursor).toBeNull();
    expect(deliveries).toHaveLength(3);
    for (const delivery of deliveries) {
      expect(delivery).toEqual({
        eventId: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
        type: 'category.created',
        status: 'succeeded',
        attempts: expect.any(Number),
        lastResponseStatus: 200,
        lastAttemptAt: expect.any(String),
      });
    }
    expect(deliveries.map((d) => d.attempts).sort()).toEqual([1, 1, 2]);

    const first = await t.http.get(`${path}?limit=2&order=desc`).set('Authorization', t.auth);
    expect(first.status).toBe(200);
    t.specV2.check('listWebhookDeliveries', first);
    expect(first.body.data).toEqual(deliveries.slice(1).reverse());
    expect(first.headers.link).toBe(
      `<${path}?limit=2&order=desc&cursor=${first.body.nextCursor}>; rel="next"`,
    );
    const second = await t.http
      .get(String(first.headers.link).slice(1, -13))
      .set('Authorization', t.auth);
    expect(second.body).toEqual({ data: [deliveries[0]], nextCursor: null });

    const bad = await t.http.get(`${path}?limit=0`).set('Authorization', t.auth);
    expectErrorResponse(bad, 400, 'VALIDATION_FAILED');
    const unknown = await t.http.get(`${path}?status=failed`).set('Authorization', t.auth);
    expectErrorResponse(unknown, 400, 'VALIDATION_FAILED');
  });

  describe('Idempotency-Key on createWebhook', () => {
    /** A fresh key per test: records outlive the subscriptions that beforeEach deletes. */
    const newKey = () => `k-${randomBytes(8).toString('hex')}`;
    const createWithKey = (key: string, body: object, auth = t.auth) =>
      t.http.post('/v2/webhooks').set('Authorization', auth).set('Idempotency-Key', key).send(body);
    const subscriptions = async () =>
      (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_subscriptions'))
        .rows[0].n;

    it('a replay gets the first 201 again, secret included, and creates and emits nothing', async () => {
      const key = newKey();
      const body = { url: receiver.url, events: ['category.created'], description: 'once' };
      const first = await createWithKey(key, body).expect(201);
      t.specV2.check('createWebhook', first);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(first.body).toEqual({
        id: expect.any(Number),
        url: receiver.url,
        events: ['category.created'],
        description: 'once',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        enabled: true,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });
      // The text the API writes for a subscription made without the header.
      expect(first.text).toBe(JSON.stringify(first.body));
      expect(first.headers.location).toBe(`/v2/webhooks/${first.body.id}`);
      const read = await t.http.get(first.headers.location).set('Authorization', t.auth);
      const { secret, ...withoutSecret } = first.body as Record<string, unknown>;
      expect(read.body).toEqual(withoutSecret);

      await expectNoWrites(t.db, async () => {
        const replay = await createWithKey(key, body);
        t.specV2.check('createWebhook', replay);
        expectReplayOf(replay, first);
      });
      expect(await subscriptions()).toBe(1);

      // The secret is kept at rest only with the subscription, never in the record.
      const { rows } = await t.db.query<{ response_body: string }>(
        'SELECT response_body FROM idempotency_keys WHERE key = $1',
        [key],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].response_body).toBe(JSON.stringify(withoutSecret));
      expect(rows[0].response_body).not.toContain((secret as string).slice(6));

      // It signs with that secret: a delivery verifies with the replayed one.
      await t.http.post('/v2/categories').set('Authorization', t.auth).send({ name: 'okapi' });
      const [delivery] = await receiver.waitFor(1);
      expect(() =>
        new Webhook(secret as string).verify(
          delivery.body,
          delivery.headers as Record<string, string>,
        ),
      ).not.toThrow();
    });

    it('once the subscription is deleted, a replay is 404 WEBHOOK_NOT_FOUND: its secret went with it', async () => {
      const key = newKey();
      const body = { url: PUBLIC_URL, events: ['order.placed'] };
      const first = await createWithKey(key, body).expect(201);
      await t.http.delete(first.headers.location).set('Authorization', t.auth).expect(204);
      const replay = await createWithKey(key, body);
      expectErrorResponse(replay, 404, 'WEBHOOK_NOT_FOUND');
      t.specV2.check('createWebhook', replay);
      expect(replay.body.message).toContain(String(first.body.id));
      expect(replay.headers['idempotent-replayed']).toBeUndefined();
      expect(await subscriptions()).toBe(0);
    });

    it('the same key with another body is 422 IDEMPOTENCY_KEY_REUSED and creates nothing', async () => {
      const key = newKey();
      await createWithKey(key, { url: PUBLIC_URL, events: ['order.placed'] }).expect(201);
      await expectNoWrites(t.db, async () => {
        for (const other of [
          { url: PUBLIC_URL, events: ['order.shipped'] },
          { url: PUBLIC_URL, events: ['order.placed'], description: 'x' },
          { url: `${PUBLIC_URL}/other`, events: ['order.placed'] },
        ]) {
          const res = await createWithKey(key, other);
          expectErrorResponse(res, 422, 'IDEMPOTENCY_KEY_REUSED');
          t.specV2.check('createWebhook', res);
        }
      });
    });

    it('while the first request runs, a repeat is 409 IDEMPOTENCY_KEY_IN_USE with Retry-After: 1', async () => {
      const key = newKey();
      const body = { url: PUBLIC_URL, events: ['order.placed'] };
      const { rows } = await t.db.query<{ id: string }>(
        "SELECT id FROM api_keys WHERE name = 'e2e'",
      );
      // Hold the key's creation lock (webhook-subscription.repository.ts): the insert waits.
      const blocker = new pg.Client({ connectionString: t.databaseUrl });
      await blocker.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query('SELECT pg_advisory_xact_lock(7254400, $1)', [rows[0].id]);
        const running = createWithKey(key, body).then((res) => res);
        await eventually(async () => {
          const held = await t.db.query(
            "SELECT 1 FROM idempotency_keys WHERE key = $1 AND state = 'in_progress'",
            [key],
          );
          return held.rows.length === 1;
        });
        const inUse = await createWithKey(key, body);
        expectErrorResponse(inUse, 409, 'IDEMPOTENCY_KEY_IN_USE');
        expect(inUse.headers['retry-after']).toBe('1');
        t.specV2.check('createWebhook', inUse);
        await blocker.query('COMMIT');
        const first = await running;
        expect(first.status).toBe(201);
        expectReplayOf(await createWithKey(key, body), first);
        expect(await subscriptions()).toBe(1);
      } finally {
        await blocker.end();
      }
    });

    it('is scoped to the API key: the same key value under another API key creates its own', async () => {
      const key = newKey();
      const body = { url: PUBLIC_URL, events: ['order.placed'] };
      const mine = await createWithKey(key, body).expect(201);
      const theirs = await createWithKey(key, body, otherAuth).expect(201);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect(theirs.body.id).not.toBe(mine.body.id);
      expect(theirs.body.secret).not.toBe(mine.body.secret);
      expect(await subscriptions()).toBe(2);
      // Each key replays its own.
      expectReplayOf(await createWithKey(key, body, otherAuth), theirs);
      expectReplayOf(await createWithKey(key, body), mine);
    });

    it('remembers 409 WEBHOOK_LIMIT_REACHED, the operation’s own rejection, even once a place is free', async () => {
      for (let i = 0; i < 20; i++) {
        await create({ url: PUBLIC_URL, events: ['order.placed'] }).expect(201);
      }
      const key = newKey();
      const body = { url: PUBLIC_URL, events: ['order.shipped'] };
      const full = await createWithKey(key, body);
      expectErrorResponse(full, 409, 'WEBHOOK_LIMIT_REACHED');
      expect(full.headers['idempotent-replayed']).toBeUndefined();
      const list = await t.http.get('/v2/webhooks?limit=1').set('Authorization', t.auth);
      await t.http
        .delete(`/v2/webhooks/${list.body.data[0].id}`)
        .set('Authorization', t.auth)
        .expect(204);
      const replay = await createWithKey(key, body);
      expectErrorResponse(replay, 409, 'WEBHOOK_LIMIT_REACHED');
      expect(replay.headers['idempotent-replayed']).toBe('true');
      t.specV2.check('createWebhook', replay);
      expect(replay.text).toBe(full.text);
      expect(await subscriptions()).toBe(19);
      await createWithKey(newKey(), body).expect(201);
    });

    it('does not remember a request refused before it ran: a 400, then another body under that key, is a 201', async () => {
      const key = newKey();
      // Refused by validation, before the key is claimed.
      expectErrorResponse(
        await createWithKey(key, { url: PUBLIC_URL, events: [] }),
        400,
        'VALIDATION_FAILED',
      );
      // Refused by the URL check, after the claim: the key is freed.
      const unresolvable = await createWithKey(key, {
        url: 'https://no-such-host.invalid/hooks',
        events: ['order.placed'],
      });
      expectErrorResponse(unresolvable, 400, 'VALIDATION_FAILED');
      expect(unresolvable.body.message).toContain('url');
      const { rows } = await t.db.query('SELECT 1 FROM idempotency_keys WHERE key = $1', [key]);
      expect(rows).toHaveLength(0);
      await createWithKey(key, { url: PUBLIC_URL, events: ['order.placed'] }).expect(201);
    });
  });

  it('lists subscriptions a page at a time, by id', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await create({ url: PUBLIC_URL, events: ['order.placed'] }).expect(201)).body.id);
    }
    const first = await t.http.get('/v2/webhooks?limit=2').set('Authorization', t.auth);
    const firstPage = first.body as { data: Array<{ id: number }>; nextCursor: string };
    expect(firstPage.data.map((s) => s.id)).toEqual(ids.slice(0, 2));
    const second = await t.http
      .get(`/v2/webhooks?limit=2&cursor=${firstPage.nextCursor}`)
      .set('Authorization', t.auth)
      .expect(200);
    expect((second.body as { data: Array<{ id: number }> }).data.map((s) => s.id)).toEqual([
      ids[2],
    ]);
    expect(second.body.nextCursor).toBeNull();
    // An altered cursor is refused. The last character is replaced by another one for sure:
    // writing a fixed "AA" there left the cursor as it was once in 4 096 runs.
    const cursor = firstPage.nextCursor;
    const altered = `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;
    const tampered = await t.http
      .get(`/v2/webhooks?limit=2&cursor=${altered}`)
      .set('Authorization', t.auth);
    expectErrorResponse(tampered, 400, 'VALIDATION_FAILED');
  });
});

describe('webhook subscriptions to private addresses (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ webhooks: webhookSettings({ allowPrivateTargets: false }) });
  });
  afterAll(() => t.close());

  it.each([
    'http://127.0.0.1:8080/x',
    'http://localhost/x',
    'http://10.0.0.8/x',
    'http://192.168.1.20/x',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]/x',
    'http://[fd00::1]/x',
    'http://[::ffff:127.0.0.1]/x',
    'http://0.0.0.0/x',
    // IPv4 carried in IPv6: compatible, SIIT, NAT64, 6to4, Teredo
    'http://[::127.0.0.1]/x',
    'http://[::7f00:1]/x',
    'http://[::ffff:0:7f00:1]/x',
    'http://[64:ff9b::a9fe:a9fe]/x',
    'http://[64:ff9b:1::10.0.0.1]/x',
    'http://[2002:c0a8:101::1]/x',
    'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/x',
  ])('refuses %s with 400 while WEBHOOK_ALLOW_PRIVATE_TARGETS is off', async (url) => {
    const res = await t.http
      .post('/v2/webhooks')
      .set('Authorization', t.auth)
      .send({ url, events: ['order.placed'] });
    expectErrorResponse(res, 400, 'VALIDATION_FAILED');
    expect(res.body.message).toContain('url');
  });

  it('refuses a private url in updateWebhook too, and keeps the old one', async () => {
    const made = await t.http
      .post('/v2/webhooks')
      .set('Authorization', t.auth)
      .send({ url: PUBLIC_URL, events: ['order.placed'] })
      .expect(201);
    const id = made.body.id as number;
    for (const url of ['http://127.0.0.1/x', 'http://[::127.0.0.1]/x', 'http://hooks.invalid/x']) {
      const res = await t.http
        .patch(`/v2/webhooks/${id}`)
        .set('Authorization', t.auth)
        .send({ url });
      expectErrorResponse(res, 400, 'VALIDATION_FAILED');
      t.specV2.check('updateWebhook', res);
      expect(res.body.message).toContain('url');
    }
    const read = await t.http.get(`/v2/webhooks/${id}`).set('Authorization', t.auth).expect(200);
    expect(read.body.url).toBe(PUBLIC_URL);
    const moved = await t.http
      .patch(`/v2/webhooks/${id}`)
      .set('Authorization', t.auth)
      .send({ url: 'https://[64:ff9b::808:808]/hooks' })
      .expect(200);
    expect(moved.body.url).toBe('https://[64:ff9b::808:808]/hooks');
  });

  it('accepts a public address', async () => {
    await t.http
      .post('/v2/webhooks')
      .set('Authorization', t.auth)
      .send({ url: PUBLIC_URL, events: ['order.placed'] })
      .expect(201);
  });
});
