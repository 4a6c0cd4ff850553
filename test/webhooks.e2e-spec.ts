import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { loadConfig, type WebhookConfig } from '../src/config/app-config.js';
import { MetricsService } from '../src/metrics/metrics.service.js';
import { WebhookDeliveryRepository } from '../src/webhooks/webhook-delivery.repository.js';
import { insertPet } from './support/factories.js';
import { freePort } from './support/service-process.js';
import { countStatements } from './support/statement-counter.js';
import { startAppInstance, createTestApp, type TestApp } from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { eventually } from './support/eventually.js';

/** Fast polling, short retries and timeouts, loopback receivers allowed. */
function webhookSettings(overrides: Partial<WebhookConfig> = {}): WebhookConfig {
  return {
    ...loadConfig({}).webhooks,
    allowPrivateTargets: true,
    pollIntervalMs: 100,
    retryScheduleMs: [200, 300],
    timeoutMs: 500,
    claimTtlMs: 1500,
    ...overrides,
  };
}

const ALL_EVENTS = ['order.placed', 'order.shipped', 'order.cancelled', 'category.created'];

/** A subscription as createWebhook stores it; returns its id and the secret shown once. */
async function subscribe(
  db: pg.Pool,
  url: string,
  events: string[] = ALL_EVENTS,
): Promise<{ id: number; secret: string }> {
  const bytes = randomBytes(32);
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO webhook_subscriptions (api_key_id, url, events, secret)
     VALUES ((SELECT min(id) FROM api_keys), $1, $2, $3) RETURNING id`,
    [url, events, bytes],
  );
  return { id: Number(rows[0].id), secret: `whsec_${bytes.toString('base64')}` };
}

async function deliveries(
  db: pg.Pool,
  subscriptionId: number,
): Promise<Array<{ eventId: string; type: string; status: string; attempts: number }>> {
  const { rows } = await db.query<{
    eventId: string;
    type: string;
    status: string;
    attempts: number;
  }>(
    `SELECT event_id AS "eventId", event_type AS type, status, attempts
     FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY id`,
    [subscriptionId],
  );
  return rows;
}

function verified(secret: string, entry: { headers: Record<string, unknown>; body: string }) {
  return new Webhook(secret).verify(entry.body, entry.headers as Record<string, string>);
}

describe('webhooks (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let petId: number;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await createTestApp({
      webhooks: webhookSettings(),
      metrics: { port: 0, host: '127.0.0.1' },
    });
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

  const api = {
    place: (quantity = 1) =>
      t.http.post('/v1/store/orders').set('Authorization', t.auth).send({ petId, quantity }),
    ship: (id: number) => t.http.post(`/v1/store/orders/${id}/ship`).set('Authorization', t.auth),
    cancel: (id: number) => t.http.delete(`/v1/store/orders/${id}`).set('Authorization', t.auth),
    get: (id: number) => t.http.get(`/v1/store/orders/${id}`).set('Authorization', t.auth),
    createCategory: (name: string, description?: string) =>
      t.http.post('/v1/categories').set('Authorization', t.auth).send({ name, description }),
  };

  it('delivers every event type with its exact body and a valid Standard Webhooks signature', async () => {
    const { secret } = await subscribe(t.db, receiver.url);
    const started = Date.now();
    const placed = (await api.place(3).expect(201)).body as { id: number };
    const placedView = (await api.get(placed.id).expect(200)).body;
    const shipped = (await api.ship(placed.id).expect(200)).body;
    const other = (await api.place(1).expect(201)).body as { id: number };
    await api.cancel(other.id).expect(204);
    const cancelledView = (await api.get(other.id).expect(200)).body;
    const category = (await api.createCategory('hamster').expect(201)).body;

    const received = await receiver.waitFor(5);
    const bodies = received.map((entry) => verified(secret, entry) as Record<string, unknown>);
    const byType = (type: string, dataId: number) =>
      bodies.find((b) => b.type === type && (b.data as { id: number }).id === dataId);
    expect(byType('order.placed', placed.id)?.data).toEqual(placedView);
    expect(byType('order.shipped', placed.id)?.data).toEqual(shipped);
    expect(byType('order.placed', other.id)?.data).toEqual({ ...cancelledView, status: 'pending' });
    expect(byType('order.cancelled', other.id)?.data).toEqual(cancelledView);
    expect(byType('category.created', category.id)?.data).toEqual({
      id: category.id,
      name: 'hamster',
    });
    for (const [index, body] of bodies.entries()) {
      expect(Object.keys(body).sort()).toEqual(['createdAt', 'data', 'id', 'type']);
      expect(body.id).toMatch(/^evt_[0-9a-f]{32}$/);
      expect(body.id).toBe(received[index].headers['webhook-id']);
      expect(body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(received[index].headers['content-type']).toBe('application/json');
      expect(received[index].headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    }
    // Each event id is new; the first attempt starts within 2 s of its change.
    expect(new Set(bodies.map((body) => body.id)).size).toBe(5);
    expect(received[0].receivedAt - started).toBeLessThan(2000);
  });

  it('is verified by the receiver snippet of docs/webhooks.md, run as written', async () => {
    const { secret } = await subscribe(t.db, receiver.url);
    const order = (await api.place().expect(201)).body as { id: number };
    await api.cancel(order.id).expect(204);
    const received = await receiver.waitFor(2);
    const snippet = /```js\n([\s\S]*?)```/.exec(await readFile('docs/webhooks.md', 'utf8'))?.[1];
    expect(snippet).toContain('export function verifyWebhook');
    const dir = await mkdtemp(join(tmpdir(), 'webhook-receiver-'));
    try {
      await writeFile(join(dir, 'verify.mjs'), snippet ?? '');
      await writeFile(
        join(dir, 'check.mjs'),
        `import { verifyWebhook } from './verify.mjs';
         for (const [secret, headers, body] of JSON.parse(process.argv[2])) {
           try { console.log('ok ' + verifyWebhook(secret, headers, body).type); }
           catch (error) { console.log('refused: ' + error.message); }
         }`,
      );
      const wrongSecret = `whsec_${randomBytes(32).toString('base64')}`;
      const cases = [
        ...received.map((entry) => [secret, entry.headers, entry.body]),
        [secret, received[0].headers, received[0].body.replace('"pending"', '"shipped"')],
        [wrongSecret, received[0].headers, received[0].body],
        [secret, { ...received[0].headers, 'webhook-timestamp': '1700000000' }, received[0].body],
      ];
      const { stdout } = await promisify(execFile)(process.execPath, [
        join(dir, 'check.mjs'),
        JSON.stringify(cases),
      ]);
      expect(stdout.trim().split('\n')).toEqual([
        ...received.map((entry) => `ok ${(JSON.parse(entry.body) as { type: string }).type}`),
        'refused: invalid signature',
        'refused: invalid signature',
        'refused: timestamp out of tolerance',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('is received by the Express receiver of docs/webhooks.md, run as written', async () => {
    const [verify, receiverCode] = [
      ...(await readFile('docs/webhooks.md', 'utf8')).matchAll(/```js\n([\s\S]*?)```/g),
    ].map((match) => match[1]);
    expect(receiverCode).toContain("express.raw({ type: 'application/json' })");
    // Inside the project, so that its `import express` finds node_modules.
    await mkdir('test-output', { recursive: true });
    const dir = await mkdtemp(join(resolve('test-output'), 'express-receiver-'));
    let child: ChildProcess | undefined;
    try {
      await writeFile(join(dir, 'package.json'), '{"type": "module"}\n');
      await writeFile(join(dir, 'verify-webhook.js'), verify);
      await writeFile(join(dir, 'receiver.js'), receiverCode);
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/petstore`;
      const { id, secret } = await subscribe(t.db, url, ['order.placed', 'order.cancelled']);
      child = spawn(process.execPath, ['receiver.js'], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', PORT: String(port), WEBHOOK_SECRET: secret },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await eventually(() =>
        fetch(`http://127.0.0.1:${port}/`).then(
          () => true,
          () => false,
        ),
      );

      const order = (await api.place(2).expect(201)).body as { id: number };
      const placed = (await api.get(order.id).expect(200)).body as Record<string, unknown>;
      await api.cancel(order.id).expect(204);
      const cancelled = (await api.get(order.id).expect(200)).body as Record<string, unknown>;
      await eventually(async () =>
        (await deliveries(t.db, id)).every((delivery) => delivery.status === 'succeeded'),
      );
      const received = stdout.trim().split('\n');
      // Events may arrive in either order.
      expect(received.sort()).toEqual(
        [
          `order.placed ${JSON.stringify(placed)}`,
          `order.cancelled ${JSON.stringify(cancelled)}`,
        ].sort(),
      );
      expect((await deliveries(t.db, id)).map((delivery) => delivery.attempts)).toEqual([1, 1]);

      // The same event again (a repeat of a delivery): 204, not handled twice. A forged body,
      // and a body that is not JSON: 400, and the reason on stderr.
      const [first] = await deliveries(t.db, id);
      const body = JSON.stringify({ id: first.eventId, type: 'order.placed', data: placed });
      const signed = (payload: string, type = 'application/json') => {
        const now = new Date();
        return {
          'content-type': type,
          'webhook-id': first.eventId,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': new Webhook(secret).sign(first.eventId, now, payload),
        };
      };
      const post = (headers: Record<string, string>, payload: string) =>
        fetch(url, { method: 'POST', headers, body: payload }).then((answer) => answer.status);
      expect(await post(signed(body), body)).toBe(204);
      expect(await post(signed(body), body.replace('pending', 'shipped'))).toBe(400);
      expect(await post(signed(body, 'text/plain'), body)).toBe(400);
      expect(stdout.trim().split('\n')).toHaveLength(2);
      expect(stderr.trim().split('\n')).toEqual([
        'refused: invalid signature',
        expect.stringMatching(/^refused: /),
      ]);
    } finally {
      child?.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('signs with the subscription secret: another secret does not verify', async () => {
    await subscribe(t.db, receiver.url, ['category.created']);
    await api.createCategory('ferret').expect(201);
    const [entry] = await receiver.waitFor(1);
    const wrong = `whsec_${randomBytes(32).toString('base64')}`;
    expect(() => verified(wrong, entry)).toThrow();
  });

  it('sends only the types a subscription names, to every subscription of that type', async () => {
    const orders = await subscribe(t.db, receiver.url, ['order.cancelled']);
    const categories = await subscribe(t.db, receiver.url, ['category.created']);
    const order = (await api.place().expect(201)).body as { id: number };
    await api.cancel(order.id).expect(204);
    await api.createCategory('gerbil').expect(201);
    await receiver.waitFor(2);
    expect((await deliveries(t.db, orders.id)).map((d) => d.type)).toEqual(['order.cancelled']);
    expect((await deliveries(t.db, categories.id)).map((d) => d.type)).toEqual([
      'category.created',
    ]);
    // One change, one event id, whichever subscriptions receive it.
    const both = await subscribe(t.db, receiver.url, ['order.shipped']);
    const again = await subscribe(t.db, receiver.url, ['order.shipped']);
    const shippedOrder = (await api.place().expect(201)).body as { id: number };
    await api.ship(shippedOrder.id).expect(200);
    await eventually(async () => (await deliveries(t.db, again.id)).length === 1);
    expect((await deliveries(t.db, both.id))[0].eventId).toBe(
      (await deliveries(t.db, again.id))[0].eventId,
    );
  });

  it('records no event for a repeat that changes nothing or a refused change', async () => {
    const { id } = await subscribe(t.db, receiver.url);
    const order = (await api.place().expect(201)).body as { id: number };
    await api.cancel(order.id).expect(204);
    await api.cancel(order.id).expect(204);
    await api.ship(order.id).expect(409);
    const shipped = (await api.place().expect(201)).body as { id: number };
    await api.ship(shipped.id).expect(200);
    await api.ship(shipped.id).expect(200);
    await api.cancel(shipped.id).expect(409);
    await api.createCategory('chinchilla').expect(201);
    await api.createCategory('Chinchilla').expect(409);
    await t.http
      .post('/v1/store/orders')
      .set('Authorization', t.auth)
      .send({ petId: 999_999, quantity: 1 })
      .expect(422);
    expect((await deliveries(t.db, id)).map((d) => d.type)).toEqual([
      'order.placed',
      'order.cancelled',
      'order.placed',
      'order.shipped',
      'category.created',
    ]);
  });

  it('records no event for an Idempotency-Key replay of placeOrder or createCategory, in either version', async () => {
    const { id } = await subscribe(t.db, receiver.url);
    const key = `k-${randomBytes(8).toString('hex')}`;
    const creates = [
      { path: '/v1/store/orders', body: { petId, quantity: 2 } },
      { path: '/v2/store/orders', body: { petId, quantity: 2 } },
      { path: '/v1/categories', body: { name: `ibis-${key}` } },
      { path: '/v2/categories', body: { name: `newt-${key}` } },
    ];
    for (const { path, body } of creates) {
      for (const replayed of [undefined, 'true', 'true']) {
        const res = await t.http
          .post(path)
          .set('Authorization', t.auth)
          .set('Idempotency-Key', key)
          .send(body);
        expect({ path, status: res.status, replayed: res.headers['idempotent-replayed'] }).toEqual({
          path,
          status: 201,
          replayed,
        });
      }
    }
    expect((await deliveries(t.db, id)).map((d) => d.type)).toEqual([
      'order.placed',
      'order.placed',
      'category.created',
      'category.created',
    ]);
  });

  it('adds no statement to the operations that emit events', async () => {
    await subscribe(t.db, receiver.url);
    await subscribe(t.db, receiver.url);
    // The statements one request sends, apart from the API key check (the same with or
    // without webhooks) and the app's background work (the dispatcher's polls among them).
    const countQueries = (run: () => Promise<unknown>) => countStatements(run, [/api_keys/]);
    const placed = async () => ((await api.place().expect(201)).body as { id: number }).id;
    const [toCancel, otherToCancel, toShip, otherToShip] = [
      await placed(),
      await placed(),
      await placed(),
      await placed(),
    ];
    const name = `stmt-${randomBytes(4).toString('hex')}`;
    await t.db.query('DELETE FROM webhook_subscriptions');
    const withoutSubscribers = {
      place: await countQueries(() => api.place().expect(201)),
      cancel: await countQueries(() => api.cancel(toCancel).expect(204)),
      ship: await countQueries(() => api.ship(toShip).expect(200)),
      createCategory: await countQueries(() => api.createCategory(`${name}-a`).expect(201)),
    };
    const { id } = await subscribe(t.db, receiver.url);
    const withSubscribers = {
      place: await countQueries(() => api.place().expect(201)),
      cancel: await countQueries(() => api.cancel(otherToCancel).expect(204)),
      ship: await countQueries(() => api.ship(otherToShip).expect(200)),
      createCategory: await countQueries(() => api.createCategory(`${name}-b`).expect(201)),
    };
    expect(withSubscribers).toEqual(withoutSubscribers);
    // Each change and its events: one statement, one round trip.
    expect(withSubscribers).toEqual({ place: 1, cancel: 1, ship: 1, createCategory: 1 });
    // And that one statement wrote each event.
    expect((await deliveries(t.db, id)).map((d) => d.type)).toEqual([
      'order.placed',
      'order.cancelled',
      'order.shipped',
      'category.created',
    ]);
  });

  it('retries a failing receiver with the same webhook-id, then marks the delivery failed', async () => {
    const { id } = await subscribe(t.db, receiver.url, ['category.created']);
    receiver.answer = () => 500;
    await api.createCategory('axolotl').expect(201);
    await receiver.waitFor(3);
    await eventually(async () => (await deliveries(t.db, id))[0]?.status === 'failed');
    const [delivery] = await deliveries(t.db, id);
    expect(delivery.attempts).toBe(3);
    expect(receiver.received.map((entry) => entry.headers['webhook-id'])).toEqual([
      delivery.eventId,
      delivery.eventId,
      delivery.eventId,
    ]);
    // The retries waited the schedule (200 ms, then 300 ms).
    const [first, second, third] = receiver.received.map((entry) => entry.receivedAt);
    expect(second - first).toBeGreaterThanOrEqual(190);
    expect(third - second).toBeGreaterThanOrEqual(290);
    const { rows } = await t.db.query(
      `SELECT attempt, outcome, response_status AS "responseStatus", duration_ms AS "durationMs"
       FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE d.subscription_id = $1 ORDER BY attempt`,
      [id],
    );
    expect(rows).toEqual(
      [1, 2, 3].map((attempt) => ({
        attempt,
        outcome: 'failed',
        responseStatus: 500,
        durationMs: expect.any(Number),
      })),
    );
    // Nothing more after the last retry.
    await new Promise((wait) => setTimeout(wait, 600));
    expect(receiver.received).toHaveLength(3);
  });

  it('retries after a timeout and succeeds when the receiver recovers', async () => {
    const { id } = await subscribe(t.db, receiver.url, ['category.created']);
    receiver.answer = (_entry, index) => (index === 0 ? 'hang' : 204);
    await api.createCategory('capybara').expect(201);
    await receiver.waitFor(2);
    await eventually(async () => (await deliveries(t.db, id))[0]?.status === 'succeeded');
    expect((await deliveries(t.db, id))[0].attempts).toBe(2);
    const { rows } = await t.db.query(
      `SELECT a.outcome, a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE d.subscription_id = $1 ORDER BY attempt`,
      [id],
    );
    expect(rows).toEqual([
      { outcome: 'failed', error: 'timeout' },
      { outcome: 'succeeded', error: null },
    ]);
    expect(receiver.received[1].headers['webhook-id']).toBe(
      receiver.received[0].headers['webhook-id'],
    );
  });

  it('retries a refused connection and fails after the schedule', async () => {
    const closed = await new WebhookReceiver().start();
    const url = closed.url;
    await closed.close();
    const { id } = await subscribe(t.db, url, ['category.created']);
    await api.createCategory('wombat').expect(201);
    await eventually(async () => (await deliveries(t.db, id))[0]?.status === 'failed');
    const { rows } = await t.db.query(
      `SELECT a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE d.subscription_id = $1 ORDER BY attempt`,
      [id],
    );
    expect(rows).toEqual([1, 2, 3].map(() => ({ error: 'ECONNREFUSED' })));
  });

  it('does not follow redirects: a 3xx pointing at a working URL is a failed attempt', async () => {
    const REDIRECTS = [301, 302, 307, 308];
    // Each subscription's URL names the redirect its receiver answers; the Location points at
    // another path of the same receiver, which answers 200 to whoever follows.
    const redirect = (entry: { url: string }) => ({
      status: Number(new URL(entry.url, receiver.url).searchParams.get('redirect')),
      headers: { location: receiver.otherUrl },
    });
    receiver.answer = redirect;
    // A client that follows redirects (fetch) does reach the other path, with a 200.
    for (const status of REDIRECTS) {
      const followed = await fetch(`${receiver.url}?redirect=${status}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect({ status, followed: [followed.status, followed.redirected] }).toEqual({
        status,
        followed: [200, true],
      });
    }
    expect(receiver.elsewhere).toHaveLength(REDIRECTS.length);
    receiver.reset();
    receiver.answer = redirect;

    const subscriptions = new Map<number, number>();
    for (const status of REDIRECTS) {
      const { id } = await subscribe(t.db, `${receiver.url}?redirect=${status}`, [
        'category.created',
      ]);
      subscriptions.set(id, status);
    }
    await api.createCategory('okapi').expect(201);
    for (const id of subscriptions.keys()) {
      await eventually(async () => (await deliveries(t.db, id))[0]?.status === 'failed');
    }
    const { rows } = await t.db.query<{ subscriptionId: string; attempts: string[] }>(
      `SELECT d.subscription_id AS "subscriptionId",
              array_agg(a.outcome || ' ' || a.response_status ORDER BY a.attempt) AS attempts
       FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
       WHERE d.subscription_id = ANY ($1) GROUP BY d.subscription_id`,
      [[...subscriptions.keys()]],
    );
    // Every attempt (the first and both retries) failed with the 3xx itself.
    expect(
      Object.fromEntries(rows.map((row) => [Number(row.subscriptionId), row.attempts])),
    ).toEqual(
      Object.fromEntries(
        [...subscriptions].map(([id, status]) => [id, Array(3).fill(`failed ${status}`)]),
      ),
    );
    expect(receiver.received).toHaveLength(REDIRECTS.length * 3);
    expect(receiver.elsewhere).toEqual([]);
  });

  it('sends nothing new to a deleted subscription', async () => {
    const { id } = await subscribe(t.db, receiver.url, ['category.created']);
    await t.db.query('DELETE FROM webhook_subscriptions WHERE id = $1', [id]);
    await api.createCategory('quokka').expect(201);
    await new Promise((wait) => setTimeout(wait, 500));
    expect(receiver.received).toHaveLength(0);
    expect(await deliveries(t.db, id)).toEqual([]);
  });

  it('counts attempts and deliveries by outcome, and shows the pending backlog', async () => {
    const metricsUrl = `http://127.0.0.1:${t.app.get(MetricsService).address()?.port}/metrics`;
    const scrape = async (name: string) => {
      const text = await (await fetch(metricsUrl)).text();
      return Object.fromEntries(
        text
          .split('\n')
          .filter((line) => line.startsWith(name))
          .map((line) => [line.slice(0, line.lastIndexOf(' ')), Number(line.split(' ').pop())]),
      );
    };
    /** How much each series grew from one scrape to a later one. */
    const growth = (from: Record<string, number>, to: Record<string, number>) => (series: string) =>
      (to[series] ?? 0) - (from[series] ?? 0);
    const before = await scrape('petstore_webhook_');
    const { id } = await subscribe(t.db, receiver.url, ['category.created']);
    receiver.answer = (_entry, index) => (index === 0 ? 500 : 200);
    await api.createCategory('tapir').expect(201);
    await eventually(async () => (await deliveries(t.db, id))[0]?.status === 'succeeded');
    const after = await scrape('petstore_webhook_');
    const delta = growth(before, after);
    expect(delta('petstore_webhook_attempts_total{outcome="failed"}')).toBe(1);
    expect(delta('petstore_webhook_attempts_total{outcome="succeeded"}')).toBe(1);
    expect(delta('petstore_webhook_deliveries_total{outcome="succeeded"}')).toBe(1);
    expect(after['petstore_webhook_pending_deliveries']).toBe(0);
    expect(after['petstore_webhook_oldest_pending_age_seconds']).toBe(0);

    // A delivery whose every attempt fails (the first and both retries) has failed for good.
    receiver.answer = () => 500;
    await api.createCategory('tapir-failing').expect(201);
    await eventually(async () => (await deliveries(t.db, id))[1]?.status === 'failed');
    const failed = await scrape('petstore_webhook_');
    const since = growth(after, failed);
    expect(since('petstore_webhook_attempts_total{outcome="failed"}')).toBe(3);
    expect(since('petstore_webhook_attempts_total{outcome="succeeded"}')).toBe(0);
    expect(since('petstore_webhook_deliveries_total{outcome="failed"}')).toBe(1);
    expect(since('petstore_webhook_deliveries_total{outcome="succeeded"}')).toBe(0);
    expect(failed['petstore_webhook_pending_deliveries']).toBe(0);

    // Deliveries left pending (their subscription points nowhere for a minute) age.
    receiver.answer = () => 'hang';
    await t.db.query(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now() + interval '1 hour',
         created_at = now() - interval '90 seconds' WHERE subscription_id = $1`,
      [id],
    );
    const backlog = await scrape('petstore_webhook_');
    expect(backlog['petstore_webhook_pending_deliveries']).toBe(2);
    expect(backlog['petstore_webhook_oldest_pending_age_seconds']).toBeGreaterThanOrEqual(90);
  });

  it('purges finished deliveries past their retention, never pending ones', async () => {
    const { id } = await subscribe(t.db, receiver.url, ['category.created']);
    for (const name of ['old-a', 'old-b', 'old-c']) await api.createCategory(name).expect(201);
    await eventually(async () =>
      (await deliveries(t.db, id)).every((d) => d.status === 'succeeded'),
    );
    await t.db.query(
      `UPDATE webhook_deliveries SET created_at = now() - interval '31 days' WHERE subscription_id = $1`,
      [id],
    );
    await t.db.query(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now() + interval '1 hour'
       WHERE id = (SELECT min(id) FROM webhook_deliveries WHERE subscription_id = $1)`,
      [id],
    );
    const purged = await t.app.get(WebhookDeliveryRepository).purgeFinished(30 * 86_400_000, 1000);
    expect(purged).toBe(2);
    expect((await deliveries(t.db, id)).map((d) => d.status)).toEqual(['pending']);
  });

  it('makes each attempt exactly once with two instances on one database', async () => {
    const second = await startAppInstance(t.databaseUrl, { webhooks: webhookSettings() });
    try {
      const { id } = await subscribe(t.db, receiver.url, ['category.created']);
      // Every third event fails once, so retries are shared out too.
      receiver.answer = (entry) =>
        receiver.forEvent(entry.headers['webhook-id'] as string).length === 1 &&
        entry.body.includes('"twin-0-')
          ? 503
          : 200;
      const names = Array.from({ length: 30 }, (_, i) => `twin-${i % 3}-${i}`);
      await Promise.all(names.map((name) => api.createCategory(name).expect(201)));
      await eventually(
        async () => (await deliveries(t.db, id)).every((d) => d.status === 'succeeded'),
        40_000,
      );
      const rows = await deliveries(t.db, id);
      expect(rows).toHaveLength(30);
      const attempts = rows.reduce((sum, d) => sum + d.attempts, 0);
      expect(receiver.received).toHaveLength(attempts);
      expect(attempts).toBe(40);
      for (const row of rows) {
        expect(receiver.forEvent(row.eventId)).toHaveLength(row.attempts);
      }
    } finally {
      await second.close();
    }
  }, 60_000);
});

describe('webhooks to private addresses (e2e)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
    t = await createTestApp({
      webhooks: webhookSettings({ allowPrivateTargets: false, retryScheduleMs: [] }),
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('refuses to send to loopback when WEBHOOK_ALLOW_PRIVATE_TARGETS is off, at delivery time', async () => {
    const localhost = receiver.url.replace('127.0.0.1', 'localhost');
    const byAddress = await subscribe(t.db, receiver.url, ['category.created']);
    const byName = await subscribe(t.db, localhost, ['category.created']);
    await t.http
      .post('/v1/categories')
      .set('Authorization', t.auth)
      .send({ name: 'x' })
      .expect(201);
    for (const { id } of [byAddress, byName]) {
      await eventually(async () => (await deliveries(t.db, id))[0]?.status === 'failed');
    }
    const { rows } = await t.db.query(`SELECT DISTINCT error FROM webhook_attempts`);
    expect(rows).toEqual([{ error: 'the target is a private, loopback or link-local address' }]);
    expect(receiver.received).toHaveLength(0);
  });
});
