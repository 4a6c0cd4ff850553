import { randomBytes } from 'node:crypto';
import { CATEGORY_JSON } from '../src/categories/category-json.js';
import { loadConfig } from '../src/config/app-config.js';
import type { TextRow } from '../src/database/batched-query-stream.js';
import type { ResourceJson } from '../src/database/resource-json.js';
import { ORDER_JSON } from '../src/store/order-json.js';
import { WEBHOOK_DELIVERY_JSON, WEBHOOK_JSON } from '../src/webhooks/webhook-json.js';
import { insertCategory, insertPet } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** Identity columns stop at 2^53 - 1 (the initial migration): the largest id the service assigns. */
const LARGEST_ASSIGNED_ID = Number.MAX_SAFE_INTEGER;

/*
 * Each resource's JSON three ways on the same rows of a real database, byte for byte: as
 * PostgreSQL renders it (its *_JSON.sql, what Idempotency-Key records and webhook events store),
 * as the API answers it (JSON.stringify of its DTO, and the order list rendered from text rows),
 * and as Node renders the rows read as text. The rows hold what the columns can: nulls, the
 * first and last instants of the years 0001-9999, microseconds, the largest id, every state,
 * and text with quotes, backslashes, controls and characters beyond the BMP.
 */

type AnyResourceJson = ResourceJson<never, unknown>;

/** Text no check refuses, with everything JSON escapes or PostgreSQL could write otherwise. */
const AWKWARD_TEXT = [
  'Tabs\tand\nlines\r, "quotes", back\\slash and é',
  'controls \u0001\u0008\u000b\u000c\u001f and DEL \u007f',
  'separators \u2028\u2029, </script> & \u00a0no-break',
  'beyond the BMP 🐕‍🦺 𝄞',
];

describe('resource JSON: PostgreSQL, the API and Node write the same bytes (e2e)', () => {
  let t: TestApp;
  let apiKeyId: string;

  const get = (path: string) => t.http.get(path).set('Authorization', t.auth).expect(200);

  /** PostgreSQL's rendering of `table`'s rows matching `where`, by id. */
  async function renderedByPostgres(
    json: AnyResourceJson,
    table: string,
    where = 'true',
  ): Promise<string[]> {
    const { rows } = await t.db.query<{ json: string }>(
      `SELECT (${json.sql('r')})::text AS json
       FROM (SELECT ${json.columns()} FROM ${table} WHERE ${where}) AS r ORDER BY r.id`,
    );
    return rows.map((row) => row.json);
  }

  /** Node's rendering of the same rows read as text, in the session time zone `zone`. */
  async function renderedFromText(
    json: AnyResourceJson,
    table: string,
    where: string,
    zone: string,
  ): Promise<string[]> {
    const client = await t.db.connect();
    try {
      await client.query(`SET TimeZone = '${zone}'`);
      const result = await client.query<TextRow>({
        text: `SELECT ${json.columns()} FROM ${table} WHERE ${where} ORDER BY id`,
        rowMode: 'array',
        types: { getTypeParser: () => (value: string) => value },
      });
      return result.rows.map((row) => json.fromText(row));
    } finally {
      await client.query('RESET TimeZone');
      client.release();
    }
  }

  /** Both Node renderings equal PostgreSQL's, which is returned. */
  async function renderedAlike(
    json: AnyResourceJson,
    table: string,
    where = 'true',
  ): Promise<string[]> {
    const byPostgres = await renderedByPostgres(json, table, where);
    expect(byPostgres.length).toBeGreaterThan(0);
    // UTC as the order list reads it; a zone with a half-hour offset takes the other path.
    for (const zone of ['UTC', 'Asia/Kathmandu']) {
      expect({ zone, rendered: await renderedFromText(json, table, where, zone) }).toEqual({
        zone,
        rendered: byPostgres,
      });
    }
    return byPostgres;
  }

  const page = (items: string[]) => `{"data":[${items.join(',')}],"nextCursor":null}`;

  beforeAll(async () => {
    t = await createTestApp({
      // Events stay in the outbox, as written: this file reads them there.
      webhooks: { ...loadConfig({}).webhooks, dispatcherEnabled: false, allowPrivateTargets: true },
    });
    ({ id: apiKeyId } = (
      await t.db.query<{ id: string }>(`SELECT id FROM api_keys WHERE name = 'e2e'`)
    ).rows[0]);
  });
  afterAll(() => t.close());

  it('orders: every state, no ship date, years 0001 and 9999, microseconds, the largest id', async () => {
    const petId = await insertPet(t.db);
    await t.db.query(
      `INSERT INTO pets (id, name) OVERRIDING SYSTEM VALUE VALUES (${LARGEST_ASSIGNED_ID}, 'Last');
       INSERT INTO orders (pet_id, quantity, status, ship_date) VALUES
         (${petId}, 1, 'pending', NULL),
         (${petId}, 1000, 'pending', '2026-02-03 04:05:06.7+00'),
         (${petId}, 2, 'shipped', '9999-12-31 23:59:59.999999+00'),
         (${petId}, 3, 'cancelled', '0001-01-01 00:00:00+00'),
         (${petId}, 4, 'shipped', '2026-11-25 05:03:54.000999+00'),
         (${petId}, 5, 'cancelled', NULL);
       INSERT INTO orders (id, pet_id, quantity, status, ship_date) OVERRIDING SYSTEM VALUE
         VALUES (${LARGEST_ASSIGNED_ID}, ${LARGEST_ASSIGNED_ID}, 6, 'shipped', '2000-02-29 12:00:00.123456+01')`,
    );
    const byPostgres = await renderedAlike(ORDER_JSON, 'orders');
    expect(byPostgres).toHaveLength(7);
    expect(byPostgres.at(-1)).toBe(
      `{"id":${LARGEST_ASSIGNED_ID},"petId":${LARGEST_ASSIGNED_ID},"quantity":6,` +
        `"shipDate":"2000-02-29T11:00:00.123Z","complete":true,"status":"shipped"}`,
    );

    // listOrders: v1 renders the text rows, v2 serialises the DTOs; getOrderById the DTO.
    expect((await get('/v1/store/orders')).text).toBe(`[${byPostgres.join(',')}]`);
    expect((await get('/v2/store/orders?limit=1000')).text).toBe(page(byPostgres));
    for (const json of byPostgres) {
      const { id } = JSON.parse(json) as { id: number };
      expect((await get(`/v1/store/orders/${id}`)).text).toBe(json);
      expect((await get(`/v2/store/orders/${id}`)).text).toBe(json);
    }
  });

  it('categories: with and without a description, any text', async () => {
    await insertCategory(t.db, 'plain');
    for (const [i, description] of AWKWARD_TEXT.entries()) {
      await insertCategory(t.db, `${description.split(' ')[0]} "${i}" \\ 🐾`, description);
    }
    const byPostgres = await renderedAlike(CATEGORY_JSON, 'categories');
    expect((await get('/v1/categories')).text).toBe(`[${byPostgres.join(',')}]`);
    expect((await get('/v2/categories?limit=1000')).text).toBe(page(byPostgres));
  });

  it('webhook subscriptions: with and without a description, dates at both ends', async () => {
    await t.db.query(
      `INSERT INTO webhook_subscriptions
         (api_key_id, url, events, description, secret, created_at, enabled, disabled_at, disabled_reason)
       VALUES ($1, 'https://93.184.216.34/a', '{order.placed}', NULL, $2, '0001-01-01 00:00:00+00',
               true, NULL, NULL),
              ($1, 'https://93.184.216.34/b?q="x"&y=\\', '{category.created,order.shipped,order.placed,order.cancelled}',
               $3, $2, '9999-12-31 23:59:59.999999+00', false, '9999-12-31 23:59:59.999999+00', 'gone'),
              ($1, 'https://93.184.216.34/c', '{order.cancelled,order.placed}', $4, $2, now(),
               false, now(), 'requested')`,
      [apiKeyId, randomBytes(32), AWKWARD_TEXT[0], AWKWARD_TEXT[3]],
    );
    const byPostgres = await renderedAlike(
      WEBHOOK_JSON,
      'webhook_subscriptions',
      `api_key_id = ${apiKeyId}`,
    );
    expect((await get('/v2/webhooks?limit=100')).text).toBe(page(byPostgres));
    for (const json of byPostgres) {
      const { id } = JSON.parse(json) as { id: number };
      expect((await get(`/v2/webhooks/${id}`)).text).toBe(json);
    }
  });

  it('webhook deliveries: every status, with and without their optional fields', async () => {
    const { rows } = await t.db.query<{ id: string }>(
      `INSERT INTO webhook_subscriptions (api_key_id, url, events, secret)
       VALUES ($1, 'https://93.184.216.34/d', '{order.placed}', $2) RETURNING id`,
      [apiKeyId, randomBytes(32)],
    );
    const subscriptionId = rows[0].id;
    const eventId = () => `evt_${randomBytes(16).toString('hex')}`;
    await t.db.query(
      `INSERT INTO webhook_deliveries (subscription_id, event_id, event_type, payload, status,
         attempts, next_attempt_at, last_attempt_at, last_response_status)
       VALUES ($1, $2, 'order.placed', '{}', 'pending', 0, now(), NULL, NULL),
              ($1, $3, 'order.shipped', '{}', 'pending', 2, '9999-12-31 23:59:59.999999+00',
               '0001-01-01 00:00:00+00', 503),
              ($1, $4, 'order.cancelled', '{}', 'succeeded', 1, NULL, now(), 204),
              ($1, $5, 'category.created', '{}', 'failed', 8, NULL, '2026-11-25 05:03:54.000999+00', NULL)`,
      [subscriptionId, eventId(), eventId(), eventId(), eventId()],
    );
    const byPostgres = await renderedAlike(
      WEBHOOK_DELIVERY_JSON,
      'webhook_deliveries',
      `subscription_id = ${subscriptionId}`,
    );
    expect((await get(`/v2/webhooks/${subscriptionId}/deliveries?limit=100`)).text).toBe(
      page(byPostgres),
    );
  });

  it('creates answer the same bytes with and without an Idempotency-Key, and events carry them', async () => {
    const created = await t.http
      .post('/v2/webhooks')
      .set('Authorization', t.auth)
      .send({ url: 'https://93.184.216.34/e', events: ['order.placed', 'category.created'] })
      .expect(201);
    const petId = await insertPet(t.db);
    const post = (path: string, body: object, key?: string) => {
      const request = t.http.post(path).set('Authorization', t.auth);
      return (key === undefined ? request : request.set('Idempotency-Key', key))
        .send(body)
        .expect(201);
    };
    const order = { petId, quantity: 2, shipDate: '2026-12-01T09:30:00.123+01:00' };
    const webhook = { url: 'https://93.184.216.34/f', events: ['order.placed'], description: 'x' };
    const creates = [
      { path: '/v1/store/orders', body: order, shown: (id: number) => `/v1/store/orders/${id}` },
      {
        path: '/v2/categories',
        body: { name: 'made', description: 'Tabs\tand\nlines, "quotes", back\\slash, é 🐕' },
      },
      { path: '/v2/webhooks', body: webhook, shown: (id: number) => `/v2/webhooks/${id}` },
    ];
    for (const { path, body, shown } of creates) {
      for (const key of [undefined, randomBytes(8).toString('hex')]) {
        const res = await post(path, key === undefined ? body : uniquely(body, key), key);
        const { id, secret } = res.body as { id: number; secret?: string };
        const stored =
          shown === undefined
            ? (await renderedByPostgres(CATEGORY_JSON, 'categories', `id = ${id}`))[0]
            : (await get(shown(id))).text;
        const expected =
          secret === undefined
            ? stored
            : `${stored.slice(0, -1)},"secret":${JSON.stringify(secret)}}`;
        expect({ path, key, text: res.text }).toEqual({ path, key, text: expected });
      }
    }

    // The events' data: the resource as the API shows it, byte for byte.
    const { rows } = await t.db.query<{ payload: string }>(
      `SELECT payload FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY id`,
      [created.body.id],
    );
    expect(rows).toHaveLength(4);
    for (const { payload } of rows) {
      const data = payload.slice(payload.indexOf('"data" : ') + '"data" : '.length, -1);
      const { id, petId: orderPetId } = JSON.parse(data) as { id: number; petId?: number };
      const shown =
        orderPetId === undefined
          ? (await renderedByPostgres(CATEGORY_JSON, 'categories', `id = ${id}`))[0]
          : (await get(`/v1/store/orders/${id}`)).text;
      expect(data).toBe(shown);
    }
  });
});

/** `body` made distinct per key where a second create of the same body would be refused. */
function uniquely(body: object, key: string): object {
  return 'name' in body ? { ...body, name: `made-${key}` } : body;
}
