import {
  PetstoreClient,
  PetstoreError,
  verifyWebhook,
  type Order,
  type WebhookEvent,
} from '@petstore/client';
import { loadConfig } from '../src/config/app-config.js';
import { countRows, insertCategory, insertOrder, insertPet } from './support/factories.js';
import { createTestApp, listeningOrigin, type TestApp } from './support/test-app.js';
import { WebhookReceiver } from './support/webhook-receiver.js';
import { eventually } from './support/eventually.js';

/*
 * @petstore/client (packages/client) against the real service: every operation of both
 * versions, creates whose answers are lost and retried, and a delivery from the real
 * dispatcher verified with verifyWebhook. The client's own rules against a scripted server
 * are packages/client/test/client.spec.ts.
 */

let t: TestApp;
let receiver: WebhookReceiver;
let client: PetstoreClient;
let origin: string;
let petId: number;

beforeAll(async () => {
  receiver = await new WebhookReceiver().start();
  t = await createTestApp({
    webhooks: {
      ...loadConfig({}).webhooks,
      allowPrivateTargets: true,
      pollIntervalMs: 100,
      retryScheduleMs: [200],
      timeoutMs: 1000,
    },
  });
  origin = await listeningOrigin(t);
  client = new PetstoreClient({ baseUrl: origin, apiKey: t.apiKey });
  petId = await insertPet(t.db, { name: 'Client' });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

describe('@petstore/client, v2 (e2e)', () => {
  it('places, reads, ships and cancels orders, and lists them filtered, page after page', async () => {
    const placed = await client.v2.orders.place({ petId, quantity: 3 });
    expect(placed).toMatchObject({ petId, quantity: 3, status: 'pending', complete: false });
    await expect(client.v2.orders.get(placed.id)).resolves.toEqual(placed);

    const shipped = await client.v2.orders.ship(placed.id);
    expect(shipped).toMatchObject({ id: placed.id, status: 'shipped', complete: true });
    // Safe to repeat, as the client assumes when it retries a ship.
    await expect(client.v2.orders.ship(placed.id)).resolves.toEqual(shipped);

    const other = await client.v2.orders.place({ petId, quantity: 1 });
    await client.v2.orders.cancel(other.id);
    await expect(client.v2.orders.get(other.id)).resolves.toMatchObject({ status: 'cancelled' });

    const pending: number[] = [];
    for (let i = 0; i < 5; i++) pending.push(await insertOrder(t.db, { petId }));
    const seen: Order[] = [];
    const list = client.v2.orders.list({ status: ['pending'], petId, limit: 2 });
    for await (const order of list) seen.push(order);
    expect(seen.map(({ id }) => id)).toEqual(pending);
    let pages = 0;
    for await (const page of list.pages()) {
      pages++;
      expect(page.data.length).toBeLessThanOrEqual(2);
    }
    expect(pages).toBe(3);
    const both = await client.v2.orders.list({ status: ['shipped', 'cancelled'], petId }).toArray();
    expect(both.map(({ id }) => id).sort()).toEqual([placed.id, other.id].sort());
  });

  it('creates and lists categories, and finds pets by status and category', async () => {
    const category = await client.v2.categories.create({
      name: 'client-made',
      description: 'Via the client',
    });
    expect(category).toEqual({
      id: expect.any(Number),
      name: 'client-made',
      description: 'Via the client',
    });
    const names = (await client.v2.categories.list({ limit: 1 }).toArray()).map(({ name }) => name);
    expect(names).toContain('client-made');

    const birds = await insertCategory(t.db, 'client-birds');
    const sold = await insertPet(t.db, { name: 'Sold bird', categoryId: birds, status: 'sold' });
    const available = await insertPet(t.db, { name: 'Free bird', categoryId: birds });
    const found = await client.v2.pets.list({ categoryId: birds, status: ['available'] }).toArray();
    expect(found.map(({ id }) => id)).toEqual([available]);
    await expect(client.v2.pets.get(sold)).resolves.toMatchObject({ id: sold, status: 'sold' });
  });

  it('manages a webhook, and its delivery from the real dispatcher verifies with verifyWebhook', async () => {
    const created = await client.v2.webhooks.create({
      url: receiver.url,
      events: ['order.placed'],
    });
    expect(created.secret).toMatch(/^whsec_/);
    await expect(client.v2.webhooks.get(created.id)).resolves.toMatchObject({
      id: created.id,
      url: receiver.url,
    });
    expect((await client.v2.webhooks.list().toArray()).map(({ id }) => id)).toContain(created.id);

    const order = await client.v2.orders.place({ petId, quantity: 2 });
    const [delivery] = await receiver.waitFor(1);
    const event: WebhookEvent = verifyWebhook(created.secret, delivery.headers, delivery.body);
    expect(event.type).toBe('order.placed');
    if (event.type === 'order.placed') expect(event.data).toEqual(order);
    expect(() => verifyWebhook(created.secret, delivery.headers, `${delivery.body} `)).toThrow();

    const deliveries = await client.v2.webhooks.deliveries(created.id).toArray();
    expect(deliveries.map(({ eventId }) => eventId)).toContain(event.id);
    await client.v2.webhooks.delete(created.id);
    await expect(client.v2.webhooks.get(created.id)).rejects.toMatchObject({
      status: 404,
      code: 'WEBHOOK_NOT_FOUND',
    });
  });

  it('changes, rotates and sends again through the section-12 webhook operations', async () => {
    receiver.reset();
    const created = await client.v2.webhooks.create({
      url: receiver.url,
      events: ['order.placed'],
    });
    const changed = await client.v2.webhooks.update(created.id, {
      events: ['order.placed', 'order.shipped'],
      description: 'changed by the client',
    });
    expect(changed).toMatchObject({
      id: created.id,
      events: ['order.placed', 'order.shipped'],
      description: 'changed by the client',
      enabled: true,
    });

    // Either secret verifies during the overlap: the delivery carries both signatures.
    const rotated = await client.v2.webhooks.rotateSecret(created.id, {
      previousSecretExpiresInSeconds: 600,
    });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    const order = await client.v2.orders.place({ petId, quantity: 1 });
    const [delivery] = await receiver.waitFor(1);
    for (const secret of [created.secret, rotated.secret]) {
      expect(verifyWebhook(secret, delivery.headers, delivery.body)).toMatchObject({
        type: 'order.placed',
        data: order,
      });
    }

    const eventId = String(delivery.headers['webhook-id']);
    await eventually(
      async () =>
        (await client.v2.webhooks.getDelivery(created.id, eventId)).status === 'succeeded',
    );
    const detail = await client.v2.webhooks.getDelivery(created.id, eventId);
    expect(detail).toMatchObject({
      eventId,
      status: 'succeeded',
      event: { id: eventId, data: order },
    });
    expect(detail.attemptLog[0]).toMatchObject({ responseStatus: 200, error: null });

    const again = await client.v2.webhooks.redeliver(created.id, eventId);
    expect(again).toMatchObject({ eventId, status: 'pending' });
    const [, second] = await receiver.waitFor(2);
    expect(second.headers['webhook-id']).toBe(eventId);
    expect(second.body).toBe(delivery.body);
    await expect(
      client.v2.webhooks.recover(created.id, new Date(Date.now() - 60_000)),
    ).resolves.toEqual({ requeued: 0 });

    await client.v2.webhooks.update(created.id, { enabled: false });
    await expect(client.v2.webhooks.redeliver(created.id, eventId)).rejects.toMatchObject({
      status: 409,
      code: 'WEBHOOK_DISABLED',
    });
    await expect(
      client.v2.webhooks.getDelivery(created.id, 'evt_00000000000000000000000000000000'),
    ).rejects.toMatchObject({ status: 404, code: 'DELIVERY_NOT_FOUND' });
    await client.v2.webhooks.delete(created.id);
  });

  it('throws the typed PetstoreError of each rejection', async () => {
    const failures = await Promise.all([
      client.v2.orders.get(999_999_999).catch((e: unknown) => e),
      client.v2.orders.place({ petId: 999_999_999, quantity: 1 }).catch((e: unknown) => e),
      client.v2.categories.create({ name: 'client-made' }).catch((e: unknown) => e),
    ]);
    expect(failures.map((failure) => failure instanceof PetstoreError)).toEqual([true, true, true]);
    const [missing, noPet, duplicate] = failures as PetstoreError[];
    expect(missing).toMatchObject({ status: 404, code: 'ORDER_NOT_FOUND' });
    expect(missing.requestId).toMatch(/\S/);
    expect(noPet).toMatchObject({ status: 422, code: 'PET_NOT_FOUND' });
    expect(duplicate).toMatchObject({ status: 409, code: 'CATEGORY_EXISTS' });
    const order = await client.v2.orders.place({ petId, quantity: 1 });
    await client.v2.orders.ship(order.id);
    await expect(client.v2.orders.cancel(order.id)).rejects.toMatchObject({
      status: 409,
      code: 'ORDER_ALREADY_SHIPPED',
    });
  });
});

describe('@petstore/client, v1 (e2e)', () => {
  it('runs every v1 operation', async () => {
    const placed = await client.v1.orders.place({ petId, quantity: 1 });
    await expect(client.v1.orders.get(placed.id)).resolves.toEqual(placed);
    expect((await client.v1.orders.list()).map(({ id }) => id)).toContain(placed.id);
    await expect(client.v1.orders.ship(placed.id)).resolves.toMatchObject({ status: 'shipped' });
    const other = await client.v1.orders.place({ petId, quantity: 1 });
    await client.v1.orders.cancel(other.id);
    await expect(client.v1.orders.get(other.id)).resolves.toMatchObject({ status: 'cancelled' });

    const category = await client.v1.categories.create({ name: 'client-v1' });
    expect(await client.v1.categories.list()).toContainEqual(category);
    // The deprecated read still works; the client marks it @deprecated.
    await expect(client.v1.pets.get(petId)).resolves.toMatchObject({ id: petId, name: 'Client' });
  });
});

describe('@petstore/client, retries against the real service (e2e)', () => {
  it('20 concurrent place() calls whose answers are lost create exactly 20 orders', async () => {
    const before = await countRows(t.db, 'orders');
    let lost = 0;
    // Every first attempt reaches the service but its answer never reaches the caller: half
    // after the service answered (the retry is replayed), half at once (the retry races the
    // first attempt, gets 409 IDEMPOTENCY_KEY_IN_USE with Retry-After, and waits).
    const seenKeys = new Set<string>();
    const losing = new PetstoreClient({
      baseUrl: origin,
      apiKey: t.apiKey,
      fetch: async (request) => {
        const key = request.headers.get('idempotency-key') ?? '';
        if (seenKeys.has(key)) return fetch(request);
        seenKeys.add(key);
        lost++;
        const sent = fetch(request);
        if (lost % 2 === 0) await sent;
        else void sent.catch(() => undefined);
        throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
      },
    });
    const placed = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        losing.v2.orders.place({ petId, quantity: (i % 5) + 1 }),
      ),
    );
    expect(lost).toBe(20);
    expect(new Set(placed.map(({ id }) => id)).size).toBe(20);
    expect((await countRows(t.db, 'orders')) - before).toBe(20);
  });
});
