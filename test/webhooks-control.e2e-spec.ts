import { Webhook } from 'standardwebhooks';
import { ApiKeysService } from '../src/auth/api-keys.service.js';
import { loadConfig, type WebhookConfig } from '../src/config/app-config.js';
import { MetricsService } from '../src/metrics/metrics.service.js';
import { insertPet } from './support/factories.js';
import { expectErrorResponse } from './support/http-assertions.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { WebhookReceiver, type ReceivedWebhook } from './support/webhook-receiver.js';
import { eventually } from './support/eventually.js';

/*
 * Webhooks that receivers and operators can run (docs/webhooks.md): updateWebhook, disabling
 * (requested, gone, failing), Retry-After, secret rotation, one delivery's attempts, sending
 * again, and deleteWebhook's promise. Real app, real PostgreSQL, real receivers on loopback
 * verifying with the standardwebhooks package.
 */

/** Fast polling, a short retry schedule, loopback receivers allowed, failing for 2 s disables. */
function webhookSettings(overrides: Partial<WebhookConfig> = {}): WebhookConfig {
  return {
    ...loadConfig({}).webhooks,
    allowPrivateTargets: true,
    pollIntervalMs: 100,
    retryScheduleMs: [200],
    timeoutMs: 500,
    claimTtlMs: 1500,
    disableAfterSeconds: 2,
    ...overrides,
  };
}

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Delivery {
  eventId: string;
  type: string;
  status: string;
  attempts: number;
  lastResponseStatus?: number;
  lastAttemptAt?: string;
  nextAttemptAt?: string;
}

describe('webhooks that receivers and operators can run (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let otherAuth: string;
  let petId: number;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await createTestApp({
      webhooks: webhookSettings(),
      metrics: { port: 0, host: '127.0.0.1' },
    });
    otherAuth = `Bearer ${(await t.app.get(ApiKeysService).issue('other')).key}`;
    petId = await insertPet(t.db, { name: 'Rex' });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  beforeEach(async () => {
    receiver.reset();
    await t.db.query('DELETE FROM webhook_subscriptions');
  });

  const call = {
    create: (body: object) => t.http.post('/v2/webhooks').set('Authorization', t.auth).send(body),
    get: (id: number) => t.http.get(`/v2/webhooks/${id}`).set('Authorization', t.auth),
    update: (id: number, body: object, auth = t.auth) =>
      t.http.patch(`/v2/webhooks/${id}`).set('Authorization', auth).send(body),
    rotate: (id: number, body: object = {}, auth = t.auth) =>
      t.http.post(`/v2/webhooks/${id}/rotate-secret`).set('Authorization', auth).send(body),
    deliveries: async (id: number): Promise<Delivery[]> => {
      const res = await t.http
        .get(`/v2/webhooks/${id}/deliveries?limit=100`)
        .set('Authorization', t.auth)
        .expect(200);
      return (res.body as { data: Delivery[] }).data;
    },
    delivery: (id: number, eventId: string, auth = t.auth) =>
      t.http.get(`/v2/webhooks/${id}/deliveries/${eventId}`).set('Authorization', auth),
    redeliver: (id: number, eventId: string, auth = t.auth) =>
      t.http.post(`/v2/webhooks/${id}/deliveries/${eventId}/redeliver`).set('Authorization', auth),
    recover: (id: number, body: object, auth = t.auth) =>
      t.http.post(`/v2/webhooks/${id}/recover`).set('Authorization', auth).send(body),
    place: () =>
      t.http.post('/v1/store/orders').set('Authorization', t.auth).send({ petId, quantity: 1 }),
  };

  /** A subscription made through the API, to the receiver, for order.placed. */
  async function subscribe(
    events = ['order.placed'],
  ): Promise<{ id: number; secret: string; body: Record<string, unknown> }> {
    const res = await call.create({ url: receiver.url, events }).expect(201);
    const { secret, ...body } = res.body as Record<string, unknown>;
    return { id: body.id as number, secret: secret as string, body };
  }

  /** Places an order: answers the event id of its order.placed once the delivery is recorded. */
  async function placeOrder(subscriptionId: number): Promise<string> {
    const before = new Set((await call.deliveries(subscriptionId)).map((d) => d.eventId));
    await call.place().expect(201);
    const after = await call.deliveries(subscriptionId);
    const added = after.filter((d) => !before.has(d.eventId));
    expect(added).toHaveLength(1);
    return added[0].eventId;
  }

  async function deliveryOf(id: number, eventId: string): Promise<Delivery | undefined> {
    return (await call.deliveries(id)).find((d) => d.eventId === eventId);
  }

  async function settled(id: number, eventId: string, status: string): Promise<Delivery> {
    await eventually(async () => (await deliveryOf(id, eventId))?.status === status, 10_000);
    return (await deliveryOf(id, eventId)) as Delivery;
  }

  const metricsUrl = () => `http://127.0.0.1:${t.app.get(MetricsService).address()?.port}/metrics`;
  async function metric(series: string): Promise<number> {
    const text = await (await fetch(metricsUrl())).text();
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? 0 : Number(line.split(' ').pop());
  }

  const signaturesOf = (entry: ReceivedWebhook) =>
    String(entry.headers['webhook-signature']).split(' ');
  const verify = (secret: string, entry: ReceivedWebhook) =>
    new Webhook(secret).verify(entry.body, entry.headers as Record<string, string>);

  describe('the subscription resource', () => {
    it('is enabled when made, without disabledAt and disabledReason', async () => {
      const res = await call.create({ url: receiver.url, events: ['order.placed'] }).expect(201);
      t.specV2.check('createWebhook', res);
      expect(res.body.enabled).toBe(true);
      expect(res.body).not.toHaveProperty('disabledAt');
      expect(res.body).not.toHaveProperty('disabledReason');
      const read = await call.get(res.body.id as number).expect(200);
      expect(read.body.enabled).toBe(true);
    });
  });

  describe('updateWebhook', () => {
    it('changes each field on its own, answering the subscription', async () => {
      const { id, body } = await subscribe();
      const steps: Array<[object, object]> = [
        [{ description: 'warehouse' }, { description: 'warehouse' }],
        [
          { events: ['order.placed', 'category.created'] },
          { events: ['order.placed', 'category.created'] },
        ],
        [{ url: receiver.otherUrl }, { url: receiver.otherUrl }],
        [{ description: null }, {}],
      ];
      let expected: Record<string, unknown> = { ...body };
      for (const [change, effect] of steps) {
        const res = await call.update(id, change).expect(200);
        t.specV2.check('updateWebhook', res);
        expected = { ...expected, ...effect };
        if ('description' in change && change.description === null) delete expected.description;
        expect(res.body).toEqual(expected);
        expect((await call.get(id).expect(200)).body).toEqual(expected);
      }
    });

    it('sends every attempt after the answer to the new url, and new events only', async () => {
      const { id } = await subscribe();
      await call.update(id, { url: receiver.otherUrl, events: ['category.created'] }).expect(200);
      await call.place().expect(201);
      await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send({ name: `c${Date.now()}` })
        .expect(201);
      await eventually(() => receiver.elsewhere.length === 1);
      expect(JSON.parse(receiver.elsewhere[0].body).type).toBe('category.created');
      expect(receiver.received).toEqual([]);
      expect((await call.deliveries(id)).map((d) => d.type)).toEqual(['category.created']);
    });

    it('disables (requested) and enables again; disabling fails the pending deliveries', async () => {
      const { id } = await subscribe();
      // Its retry waits 30 s (Retry-After), so it is still pending whenever the test reads it.
      receiver.answer = () => ({ status: 503, headers: { 'retry-after': '30' } });
      const eventId = await placeOrder(id);
      await eventually(async () => (await deliveryOf(id, eventId))?.attempts === 1);
      // Pending, its retry to come: disabling fails it at once.
      const before = await metric(
        'petstore_webhook_subscriptions_disabled_total{reason="requested"}',
      );
      const disabled = await call.update(id, { enabled: false }).expect(200);
      t.specV2.check('updateWebhook', disabled);
      expect(disabled.body).toMatchObject({ enabled: false, disabledReason: 'requested' });
      expect(disabled.body.disabledAt).toMatch(ISO_MS);
      expect((await deliveryOf(id, eventId))?.status).toBe('failed');
      expect(
        await metric('petstore_webhook_subscriptions_disabled_total{reason="requested"}'),
      ).toBe(before + 1);
      // Events recorded while it is disabled get no delivery.
      await call.place().expect(201);
      expect(await call.deliveries(id)).toHaveLength(1);
      const received = receiver.received.length;

      // Disabling again changes nothing.
      const again = await call.update(id, { enabled: false }).expect(200);
      expect(again.body).toEqual(disabled.body);

      const enabled = await call.update(id, { enabled: true }).expect(200);
      t.specV2.check('updateWebhook', enabled);
      expect(enabled.body.enabled).toBe(true);
      expect(enabled.body).not.toHaveProperty('disabledAt');
      expect(enabled.body).not.toHaveProperty('disabledReason');
      await new Promise((wait) => setTimeout(wait, 500));
      expect(receiver.received).toHaveLength(received);
      receiver.answer = () => 204;
      const next = await placeOrder(id);
      await settled(id, next, 'succeeded');
    });

    it.each([
      ['an empty body', {}, 'at least one'],
      ['an unknown field', { secret: 'whsec_x' }, 'secret'],
      ['a relative url', { url: '/x' }, 'url'],
      ['url with user information', { url: 'https://u:p@93.184.216.34/x' }, 'url'],
      ['url null', { url: null }, 'url'],
      ['no events', { events: [] }, 'events'],
      ['an unknown event', { events: ['order.deleted'] }, 'events'],
      ['repeated events', { events: ['order.placed', 'order.placed'] }, 'events'],
      ['events null', { events: null }, 'events'],
      ['a long description', { description: 'x'.repeat(501) }, 'description'],
      ['a description of controls', { description: 'a\u0000b' }, 'description'],
      ['enabled as text', { enabled: 'false' }, 'enabled'],
      ['enabled null', { enabled: null }, 'enabled'],
    ])('refuses %s with 400 naming it, and changes nothing', async (_case, body, named) => {
      const { id, body: made } = await subscribe();
      const res = await call.update(id, body);
      expectErrorResponse(res, 400, 'VALIDATION_FAILED');
      t.specV2.check('updateWebhook', res);
      expect(res.body.message).toContain(named);
      expect((await call.get(id).expect(200)).body).toEqual(made);
    });

    it("answers 404 WEBHOOK_NOT_FOUND for another key's subscription and for none", async () => {
      const { id, body } = await subscribe();
      for (const res of [
        await call.update(id, { enabled: false }, otherAuth),
        await call.update(9007199254740991, { enabled: false }),
      ]) {
        expectErrorResponse(res, 404, 'WEBHOOK_NOT_FOUND');
        t.specV2.check('updateWebhook', res);
      }
      expect((await call.get(id).expect(200)).body).toEqual(body);
    });
  });

  describe('disabled automatically', () => {
    /**
     * The subscription as the read that first found it disabled answered it. A later read may
     * come from a replica that has replayed the caller's writes but not yet the dispatcher's
     * (read-your-writes covers a key's own writes: docs/operating.md, Read replicas).
     */
    async function readOnceDisabled(id: number): Promise<Record<string, unknown>> {
      let read: Record<string, unknown> = {};
      await eventually(async () => {
        read = (await call.get(id).expect(200)).body as Record<string, unknown>;
        return read.enabled === false;
      });
      return read;
    }

    it('at once when the receiver answers 410 Gone, counted', async () => {
      const before = await metric('petstore_webhook_subscriptions_disabled_total{reason="gone"}');
      const { id } = await subscribe();
      receiver.answer = () => 410;
      const first = await placeOrder(id);
      const read = await readOnceDisabled(id);
      expect(read).toMatchObject({ enabled: false, disabledReason: 'gone' });
      expect(read.disabledAt).toMatch(ISO_MS);
      expect(await deliveryOf(id, first)).toMatchObject({
        status: 'failed',
        attempts: 1,
        lastResponseStatus: 410,
      });
      expect(receiver.received).toHaveLength(1);
      expect(await metric('petstore_webhook_subscriptions_disabled_total{reason="gone"}')).toBe(
        before + 1,
      );
    });

    it('after WEBHOOK_DISABLE_AFTER_SECONDS of failures, a success restarting the clock', async () => {
      const before = await metric(
        'petstore_webhook_subscriptions_disabled_total{reason="failing"}',
      );
      const { id } = await subscribe();
      // Fails for 1.5 s (under the 2 s), succeeds once, then fails for good.
      let succeededAt = 0;
      const start = Date.now();
      receiver.answer = () => {
        if (succeededAt === 0 && Date.now() - start > 1500) {
          succeededAt = Date.now();
          return 204;
        }
        return 500;
      };
      // A stream of events keeps attempts coming (the schedule retries each once).
      const placing = (async () => {
        while (Date.now() - start < 6000 && (await call.get(id)).body.enabled === true) {
          await call.place().expect(201);
          await new Promise((wait) => setTimeout(wait, 150));
        }
      })();
      const read = await readOnceDisabled(id);
      await placing;
      expect(read).toMatchObject({ enabled: false, disabledReason: 'failing' });
      expect(succeededAt).toBeGreaterThan(0);
      // The clock restarted at a failure recorded after the success: 2 s after the success at
      // least (without the restart, about 2 s after the start). That failure may be one the
      // receiver answered just before the success, whose answer was recorded after it.
      expect(receiver.received.some((entry) => entry.receivedAt > succeededAt)).toBe(true);
      expect(Date.parse(read.disabledAt as string)).toBeGreaterThanOrEqual(succeededAt + 2000 - 50);
      // Pending deliveries fail with it (one recorded as it was disabled, at the next poll).
      await eventually(async () =>
        (await call.deliveries(id)).every((delivery) => delivery.status !== 'pending'),
      );
      expect(await metric('petstore_webhook_subscriptions_disabled_total{reason="failing"}')).toBe(
        before + 1,
      );
    });
  });

  describe('Retry-After from the receiver', () => {
    it.each([
      ['429, seconds', 429, () => '3', 3000],
      ['503, an HTTP date', 503, () => new Date(Date.now() + 5000).toUTCString(), 5000],
      ['503, capped at an hour', 503, () => '86400', 3_600_000],
    ])('%s: the next attempt waits as asked', async (_case, status, header, waitMs) => {
      const { id } = await subscribe();
      receiver.answer = () => ({ status, headers: { 'retry-after': header() } });
      const eventId = await placeOrder(id);
      await eventually(async () => (await deliveryOf(id, eventId))?.attempts === 1);
      await eventually(async () => (await deliveryOf(id, eventId))?.lastResponseStatus === status);
      const delivery = (await deliveryOf(id, eventId)) as Delivery;
      const waited =
        Date.parse(delivery.nextAttemptAt as string) - Date.parse(delivery.lastAttemptAt as string);
      // An HTTP date has whole seconds: up to a second less.
      expect(waited).toBeGreaterThanOrEqual(waitMs - 1100);
      expect(waited).toBeLessThanOrEqual(waitMs + 1000);
    });

    it('is a failed attempt: a 500 with Retry-After keeps to the schedule', async () => {
      const { id } = await subscribe();
      receiver.answer = (_entry, index) =>
        index === 0 ? { status: 500, headers: { 'retry-after': '3600' } } : 204;
      const eventId = await placeOrder(id);
      const done = await settled(id, eventId, 'succeeded');
      expect(done.attempts).toBe(2);
    });

    it('waits for the later of the schedule and Retry-After, and the attempt really waits', async () => {
      const { id } = await subscribe();
      receiver.answer = (_entry, index) =>
        index === 0 ? { status: 503, headers: { 'retry-after': '1' } } : 204;
      const eventId = await placeOrder(id);
      await settled(id, eventId, 'succeeded');
      const [first, second] = receiver.forEvent(eventId);
      expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(1000);
    });
  });

  describe('rotateWebhookSecret', () => {
    it('signs with the new and the previous secret, new first, until the previous expires', async () => {
      const { id, secret: first } = await subscribe();
      const res = await call.rotate(id).expect(200);
      t.specV2.check('rotateWebhookSecret', res);
      expect(res.body).toEqual({
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        previousSecretExpiresAt: expect.stringMatching(ISO_MS),
      });
      const second = res.body.secret as string;
      expect(second).not.toBe(first);
      const expiresIn = Date.parse(res.body.previousSecretExpiresAt as string) - Date.now();
      expect(Math.abs(expiresIn - 86_400_000)).toBeLessThan(10_000);
      // Shown nowhere else.
      for (const text of [
        (await call.get(id)).text,
        (await t.http.get('/v2/webhooks').set('Authorization', t.auth)).text,
      ]) {
        expect(text).not.toContain(second.slice(6, 20));
      }

      const eventId = await placeOrder(id);
      await settled(id, eventId, 'succeeded');
      const [entry] = receiver.forEvent(eventId);
      const signatures = signaturesOf(entry);
      expect(signatures).toHaveLength(2);
      expect(verify(second, entry)).toEqual(JSON.parse(entry.body));
      expect(verify(first, entry)).toEqual(JSON.parse(entry.body));
      // New first: the first signature alone verifies with the new secret.
      const onlyFirst = {
        ...entry,
        headers: { ...entry.headers, 'webhook-signature': signatures[0] },
      };
      expect(verify(second, onlyFirst)).toEqual(JSON.parse(entry.body));
      expect(() => verify(first, onlyFirst)).toThrow();
    });

    it('drops the older secret when rotated again during an overlap; 0 ends the overlap at once', async () => {
      const { id, secret: first } = await subscribe();
      const second = (await call.rotate(id).expect(200)).body.secret as string;
      const third = (await call.rotate(id, { previousSecretExpiresInSeconds: 60 }).expect(200)).body
        .secret as string;
      const eventId = await placeOrder(id);
      await settled(id, eventId, 'succeeded');
      const [entry] = receiver.forEvent(eventId);
      expect(signaturesOf(entry)).toHaveLength(2);
      expect(verify(third, entry)).toBeDefined();
      expect(verify(second, entry)).toBeDefined();
      expect(() => verify(first, entry)).toThrow();

      const fourth = await call.rotate(id, { previousSecretExpiresInSeconds: 0 }).expect(200);
      expect(Date.parse(fourth.body.previousSecretExpiresAt as string)).toBeLessThanOrEqual(
        Date.now() + 1000,
      );
      const next = await placeOrder(id);
      await settled(id, next, 'succeeded');
      const [last] = receiver.forEvent(next);
      expect(signaturesOf(last)).toHaveLength(1);
      expect(verify(fourth.body.secret as string, last)).toBeDefined();
      expect(() => verify(third, last)).toThrow();
    });

    it.each([
      [{ previousSecretExpiresInSeconds: 604801 }],
      [{ previousSecretExpiresInSeconds: -1 }],
      [{ previousSecretExpiresInSeconds: 1.5 }],
      [{ previousSecretExpiresInSeconds: '60' }],
      [{ previousSecretExpiresInSeconds: null }],
      [{ secret: 'whsec_mine' }],
    ])('refuses %j with 400, and keeps the secret', async (body) => {
      const { id, secret } = await subscribe();
      const res = await call.rotate(id, body);
      expectErrorResponse(res, 400, 'VALIDATION_FAILED');
      t.specV2.check('rotateWebhookSecret', res);
      const eventId = await placeOrder(id);
      await settled(id, eventId, 'succeeded');
      const [entry] = receiver.forEvent(eventId);
      expect(signaturesOf(entry)).toHaveLength(1);
      expect(verify(secret, entry)).toBeDefined();
    });

    it('under an Idempotency-Key, a replay answers the same new secret while it signs', async () => {
      const { id, secret: first } = await subscribe();
      const rotate = (key: string) =>
        t.http
          .post(`/v2/webhooks/${id}/rotate-secret`)
          .set('Authorization', t.auth)
          .set('Idempotency-Key', key)
          .send({ previousSecretExpiresInSeconds: 60 });
      const made = await rotate('rotate-1').expect(200);
      t.specV2.check('rotateWebhookSecret', made);
      expect(made.headers['idempotent-replayed']).toBeUndefined();
      const replay = await rotate('rotate-1').expect(200);
      t.specV2.check('rotateWebhookSecret', replay);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(made.body);
      // One rotation: the first secret still signs beside the new one.
      const eventId = await placeOrder(id);
      await settled(id, eventId, 'succeeded');
      const [entry] = receiver.forEvent(eventId);
      expect(signaturesOf(entry)).toHaveLength(2);
      expect(verify(made.body.secret as string, entry)).toBeDefined();
      expect(verify(first, entry)).toBeDefined();
      // Rotated again: the replay still answers its secret, now the previous one.
      await call.rotate(id, { previousSecretExpiresInSeconds: 60 }).expect(200);
      expect((await rotate('rotate-1').expect(200)).body).toEqual(made.body);
      // Once it no longer signs, the answer cannot be repeated.
      await call.rotate(id).expect(200);
      const gone = await rotate('rotate-1');
      expectErrorResponse(gone, 404, 'WEBHOOK_NOT_FOUND');
      // The same key with another body is another request.
      const reused = await t.http
        .post(`/v2/webhooks/${id}/rotate-secret`)
        .set('Authorization', t.auth)
        .set('Idempotency-Key', 'rotate-1')
        .send({});
      expectErrorResponse(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
    });

    it("answers 404 WEBHOOK_NOT_FOUND for another key's subscription", async () => {
      const { id } = await subscribe();
      const res = await call.rotate(id, {}, otherAuth);
      expectErrorResponse(res, 404, 'WEBHOOK_NOT_FOUND');
      t.specV2.check('rotateWebhookSecret', res);
    });
  });

  describe('getWebhookDelivery', () => {
    it('shows the event exactly as sent and each attempt, oldest first', async () => {
      const { id } = await subscribe();
      receiver.answer = (_entry, index) => (index === 0 ? 500 : 204);
      const eventId = await placeOrder(id);
      await settled(id, eventId, 'succeeded');
      const res = await call.delivery(id, eventId).expect(200);
      t.specV2.check('getWebhookDelivery', res);
      const listed = await deliveryOf(id, eventId);
      const [sent] = receiver.forEvent(eventId);
      expect(res.body).toEqual({
        ...listed,
        event: JSON.parse(sent.body),
        attemptLog: [
          {
            at: expect.stringMatching(ISO_MS),
            responseStatus: 500,
            durationMs: expect.any(Number),
            error: 'HTTP 500',
          },
          {
            at: expect.stringMatching(ISO_MS),
            responseStatus: 204,
            durationMs: expect.any(Number),
            error: null,
          },
        ],
      });
      expect(res.body.attemptLog[1].at).toBe(listed?.lastAttemptAt);
    });

    it('shows the last 20 attempts at most', async () => {
      const { id } = await subscribe();
      receiver.answer = () => 204;
      const eventId = await placeOrder(id);
      await settled(id, eventId, 'succeeded');
      await t.db.query(
        `INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, response_status, outcome, error)
         SELECT d.id, n, now() + n * interval '1 second', n, NULL, 'failed', 'timeout'
         FROM webhook_deliveries d, generate_series(2, 25) n WHERE d.event_id = $1`,
        [eventId],
      );
      const res = await call.delivery(id, eventId).expect(200);
      const log = res.body.attemptLog as Array<{ durationMs: number }>;
      expect(log.map((entry) => entry.durationMs)).toEqual(
        Array.from({ length: 20 }, (_, k) => k + 6),
      );
    });

    it('answers 404 DELIVERY_NOT_FOUND for an event it has no delivery of, 400 for a malformed id', async () => {
      const { id } = await subscribe();
      const other = await subscribe(['category.created']);
      const eventId = await placeOrder(id);
      for (const res of [
        await call.delivery(id, `evt_${'0'.repeat(32)}`),
        await call.delivery(other.id, eventId),
      ]) {
        expectErrorResponse(res, 404, 'DELIVERY_NOT_FOUND');
        t.specV2.check('getWebhookDelivery', res);
      }
      const malformed = await call.delivery(id, 'evt_XYZ');
      expectErrorResponse(malformed, 400, 'VALIDATION_FAILED');
      expect(malformed.body.message).toContain('eventId');
      const theirs = await call.delivery(id, eventId, otherAuth);
      expectErrorResponse(theirs, 404, 'WEBHOOK_NOT_FOUND');
    });
  });

  describe('redeliverWebhookDelivery', () => {
    it('sends it again with the same event id and body, at once, counting on', async () => {
      const before = await metric(
        'petstore_webhook_deliveries_sent_again_total{how="redelivered"}',
      );
      const { id, secret } = await subscribe();
      const eventId = await placeOrder(id);
      await settled(id, eventId, 'succeeded');
      const res = await call.redeliver(id, eventId).expect(202);
      t.specV2.check('redeliverWebhookDelivery', res);
      expect(res.body).toMatchObject({ eventId, status: 'pending', attempts: 1 });
      const done = await settled(id, eventId, 'succeeded');
      expect(done.attempts).toBe(2);
      const [first, again] = receiver.forEvent(eventId);
      expect(again.body).toBe(first.body);
      expect(verify(secret, again)).toEqual(JSON.parse(first.body));
      expect(await metric('petstore_webhook_deliveries_sent_again_total{how="redelivered"}')).toBe(
        before + 1,
      );
    });

    it('follows the retry schedule from its start', async () => {
      const { id } = await subscribe();
      receiver.answer = () => 500;
      const eventId = await placeOrder(id);
      // The schedule has one retry: two attempts, then failed.
      expect((await settled(id, eventId, 'failed')).attempts).toBe(2);
      await call.redeliver(id, eventId).expect(202);
      await eventually(async () => (await deliveryOf(id, eventId))?.attempts === 4);
      expect(await settled(id, eventId, 'failed')).toMatchObject({ attempts: 4 });
      const log = (await call.delivery(id, eventId).expect(200)).body.attemptLog as unknown[];
      expect(log).toHaveLength(4);
    });

    it('answers 409 DELIVERY_PENDING while pending, 409 WEBHOOK_DISABLED when disabled, 404 for none', async () => {
      const { id } = await subscribe();
      receiver.answer = () => 'hang';
      const eventId = await placeOrder(id);
      const pending = await call.redeliver(id, eventId);
      expectErrorResponse(pending, 409, 'DELIVERY_PENDING');
      t.specV2.check('redeliverWebhookDelivery', pending);
      await call.update(id, { enabled: false }).expect(200);
      const disabled = await call.redeliver(id, eventId);
      expectErrorResponse(disabled, 409, 'WEBHOOK_DISABLED');
      t.specV2.check('redeliverWebhookDelivery', disabled);
      const none = await call.redeliver(id, `evt_${'f'.repeat(32)}`);
      expectErrorResponse(none, 404, 'DELIVERY_NOT_FOUND');
      const theirs = await call.redeliver(id, eventId, otherAuth);
      expectErrorResponse(theirs, 404, 'WEBHOOK_NOT_FOUND');
      receiver.answerHanging(204);
    });
  });

  describe('recoverWebhookDeliveries', () => {
    it('sends every failed delivery since a time again, with the same ids and bodies', async () => {
      const before = await metric('petstore_webhook_deliveries_sent_again_total{how="recovered"}');
      const { id } = await subscribe();
      receiver.answer = () => 500;
      const old = await placeOrder(id);
      await settled(id, old, 'failed');
      await new Promise((wait) => setTimeout(wait, 50));
      const since = new Date().toISOString().replace('Z', '+00:00');
      const recent = [await placeOrder(id), await placeOrder(id)];
      for (const eventId of recent) await settled(id, eventId, 'failed');
      const sentBefore = new Map(recent.map((e) => [e, receiver.forEvent(e)[0].body]));

      receiver.answer = () => 204;
      const res = await call.recover(id, { since }).expect(202);
      t.specV2.check('recoverWebhookDeliveries', res);
      expect(res.body).toEqual({ requeued: 2 });
      for (const eventId of recent) {
        const done = await settled(id, eventId, 'succeeded');
        expect(done.attempts).toBe(3);
        expect(receiver.forEvent(eventId).at(-1)?.body).toBe(sentBefore.get(eventId));
      }
      expect((await deliveryOf(id, old))?.status).toBe('failed');
      expect(await metric('petstore_webhook_deliveries_sent_again_total{how="recovered"}')).toBe(
        before + 2,
      );
      // Nothing failed since: nothing to send.
      expect((await call.recover(id, { since }).expect(202)).body).toEqual({ requeued: 0 });
    });

    it('answers 409 WEBHOOK_DISABLED when disabled, 400 for a bad since, 404 for another key', async () => {
      const { id } = await subscribe();
      for (const since of ['2026-11-25T10:00:00', '2026-13-01T00:00:00Z', 'yesterday', 42]) {
        const res = await call.recover(id, { since });
        expectErrorResponse(res, 400, 'VALIDATION_FAILED');
        expect(res.body.message).toContain('since');
        t.specV2.check('recoverWebhookDeliveries', res);
      }
      expectErrorResponse(await call.recover(id, {}), 400, 'VALIDATION_FAILED');
      await call.update(id, { enabled: false }).expect(200);
      const disabled = await call.recover(id, { since: '2026-01-01T00:00:00Z' });
      expectErrorResponse(disabled, 409, 'WEBHOOK_DISABLED');
      t.specV2.check('recoverWebhookDeliveries', disabled);
      const theirs = await call.recover(id, { since: '2026-01-01T00:00:00Z' }, otherAuth);
      expectErrorResponse(theirs, 404, 'WEBHOOK_NOT_FOUND');
    });
  });

  describe('deleteWebhook', () => {
    it('racing a hanging receiver: no attempt arrives after the 204', async () => {
      const { id } = await subscribe();
      receiver.answer = () => 'hang';
      // Events keep coming while the delete runs.
      for (let k = 0; k < 3; k++) await call.place().expect(201);
      await receiver.waitFor(1);
      const started = Date.now();
      const placing = Promise.all([call.place(), call.place(), call.place()]);
      const res = await t.http.delete(`/v2/webhooks/${id}`).set('Authorization', t.auth);
      expect(res.status).toBe(204);
      t.specV2.check('deleteWebhook', res);
      const answeredAt = Date.now();
      // The attempt under way was waited for, within WEBHOOK_TIMEOUT_MS (500 ms) and a margin.
      expect(answeredAt - started).toBeLessThan(500 + 1500);
      await placing;
      const count = receiver.received.length;
      receiver.answerHanging(204);
      await new Promise((wait) => setTimeout(wait, 1500));
      expect(receiver.received.filter((entry) => entry.receivedAt > answeredAt)).toEqual([]);
      expect(receiver.received).toHaveLength(count);
      expectErrorResponse(await call.get(id), 404, 'WEBHOOK_NOT_FOUND');
    });
  });
  describe('connections and recording under load', () => {
    it('sends several deliveries to one receiver over one kept-alive connection, counted', async () => {
      const reusedBefore = await metric('petstore_webhook_connections_reused_total');
      await subscribe();
      for (let k = 0; k < 5; k++) {
        await call.place().expect(201);
        await receiver.waitFor(k + 1);
      }
      // One connection at most: the one opened for the first (or kept from the test before).
      expect(receiver.connections).toBeLessThanOrEqual(1);
      expect(await metric('petstore_webhook_connections_reused_total')).toBeGreaterThanOrEqual(
        reusedBefore + 4,
      );
      expect(await metric('petstore_webhook_connections_opened_total')).toBeGreaterThanOrEqual(1);
    });

    it('records attempts that end together, each in its attempt log', async () => {
      const { id } = await subscribe();
      let release: () => void = () => undefined;
      const released = new Promise<number>((answer) => (release = () => answer(204)));
      receiver.answer = () => released;
      for (let k = 0; k < 4; k++) await call.place().expect(201);
      await receiver.waitFor(4);
      release();
      await eventually(async () =>
        (await call.deliveries(id)).every((delivery) => delivery.status === 'succeeded'),
      );
      for (const delivery of await call.deliveries(id)) {
        const read = (await call.delivery(id, delivery.eventId).expect(200)).body as {
          attemptLog: Array<{ responseStatus: number; error: string | null }>;
        };
        expect(read.attemptLog).toEqual([
          expect.objectContaining({ responseStatus: 204, error: null }),
        ]);
      }
    });

    it('disables once when several attempts that end together answer 410', async () => {
      const before = await metric('petstore_webhook_subscriptions_disabled_total{reason="gone"}');
      const { id } = await subscribe();
      let release: () => void = () => undefined;
      const released = new Promise<number>((answer) => (release = () => answer(410)));
      receiver.answer = () => released;
      for (let k = 0; k < 4; k++) await call.place().expect(201);
      await receiver.waitFor(4);
      release();
      await eventually(async () => (await call.get(id)).body.enabled === false);
      expect((await call.get(id).expect(200)).body).toMatchObject({ disabledReason: 'gone' });
      await eventually(async () =>
        (await call.deliveries(id)).every((delivery) => delivery.status === 'failed'),
      );
      expect(await metric('petstore_webhook_subscriptions_disabled_total{reason="gone"}')).toBe(
        before + 1,
      );
    });
  });
});
