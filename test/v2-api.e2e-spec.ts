import { expectErrorResponse, expectNoWrites } from './support/http-assertions.js';
import { categoryRow, insertOrder, insertPet, orderStatus } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

interface Operation {
  operationId?: string;
  'x-stability'?: string;
  deprecated?: boolean;
  parameters?: Array<{ name: string; schema?: { maxLength?: number; pattern?: string } }>;
}
interface OpenApiDocument {
  info: { version: string };
  servers?: Array<{ url: string }>;
  tags?: Array<{ name: string }>;
  paths: Record<string, Record<string, Operation>>;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function operationsOf(document: OpenApiDocument): Array<[string, Operation]> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]): [string, Operation] => [`${method} ${path}`, operation]),
  );
}

/**
 * v2's operations (docs/api.md): v1's store and category operations, the pets (a list, and
 * getPet in place of v1's deprecated getPetById) and the webhooks.
 */
const V2_OPERATIONS = {
  listOrders: 'get /store/orders',
  placeOrder: 'post /store/orders',
  getOrderById: 'get /store/orders/{orderId}',
  shipOrder: 'post /store/orders/{orderId}/ship',
  cancelOrder: 'delete /store/orders/{orderId}',
  listCategories: 'get /categories',
  createCategory: 'post /categories',
  listPets: 'get /pets',
  getPet: 'get /pets/{petId}',
  createWebhook: 'post /webhooks',
  listWebhooks: 'get /webhooks',
  getWebhook: 'get /webhooks/{webhookId}',
  deleteWebhook: 'delete /webhooks/{webhookId}',
  listWebhookDeliveries: 'get /webhooks/{webhookId}/deliveries',
  updateWebhook: 'patch /webhooks/{webhookId}',
  rotateWebhookSecret: 'post /webhooks/{webhookId}/rotate-secret',
  getWebhookDelivery: 'get /webhooks/{webhookId}/deliveries/{eventId}',
  redeliverWebhookDelivery: 'post /webhooks/{webhookId}/deliveries/{eventId}/redeliver',
  recoverWebhookDeliveries: 'post /webhooks/{webhookId}/recover',
};

describe('v2 beside v1 (e2e)', () => {
  let t: TestApp;
  let petId: number;

  beforeAll(async () => {
    t = await createTestApp();
    petId = await insertPet(t.db, { name: 'Versioned' });
  });
  afterAll(() => t.close());

  describe('the documents', () => {
    let v1: OpenApiDocument;
    let v2: OpenApiDocument;

    beforeAll(async () => {
      v1 = (await t.http.get('/openapi/v1.json').expect(200)).body as OpenApiDocument;
      v2 = (await t.http.get('/openapi/v2.json').expect(200)).body as OpenApiDocument;
    });

    it('serves /openapi/v1.json byte for byte as /docs-json', async () => {
      const [docsJson, openapiV1] = await Promise.all([
        t.http.get('/docs-json').expect(200),
        t.http.get('/openapi/v1.json').expect(200),
      ]);
      expect(openapiV1.headers['content-type']).toBe(docsJson.headers['content-type']);
      expect(openapiV1.text).toBe(docsJson.text);
      expect(v1.info.version).toBe('1.1.0');
    });

    it('serves /openapi/v2.json without an API key, as version 2.0.0-beta.1 (CHANGELOG.md) with its own server', () => {
      expect(v2.info.version).toBe('2.0.0-beta.1');
      expect(v2.servers?.map((server) => server.url)).toEqual(['/v2']);
      expect(v2.tags?.map((tag) => tag.name)).toEqual(['store', 'categories', 'pets', 'webhooks']);
    });

    it("documents v1's store and category operations, with the same operationIds, the pets (getPet, not getPetById) and the webhooks", () => {
      const documented = Object.fromEntries(
        operationsOf(v2).map(([where, operation]) => [operation.operationId, where]),
      );
      expect(documented).toEqual(V2_OPERATIONS);
      for (const path of Object.keys(v2.paths)) expect(path).not.toMatch(/(^|\/)v\d/);
    });

    it('marks every v2 operation x-stability: beta, and none deprecated', () => {
      for (const [where, operation] of operationsOf(v2)) {
        expect({
          where,
          stability: operation['x-stability'],
          deprecated: operation.deprecated,
        }).toEqual({
          where,
          stability: 'beta',
          deprecated: undefined,
        });
      }
    });

    it('keeps beta out of the v1 document', () => {
      for (const [where, operation] of operationsOf(v1)) {
        expect({ where, stability: operation['x-stability'] }).not.toEqual({
          where,
          stability: 'beta',
        });
      }
    });

    it.each([
      ['/store/orders', ['pending', 'shipped', 'cancelled']],
      ['/pets', ['available', 'pending', 'sold']],
    ])(
      'bounds the status filter of %s as the service does: every status once is the longest value',
      async (path, statuses) => {
        const schema = v2.paths[path].get.parameters?.find((p) => p.name === 'status')?.schema;
        const pattern = new RegExp(schema?.pattern ?? '(?!)');
        const every = statuses.join(',');
        expect(every).toMatch(pattern);
        expect(every.length).toBe(schema?.maxLength);
        await t.http.get(`/v2${path}?status=${every}`).set('Authorization', t.auth).expect(200);
        // One character more names a status twice or one that does not exist: refused alike.
        const longer = `${every},${statuses[0]}`;
        expect(longer).not.toMatch(pattern);
        const res = await t.http.get(`/v2${path}?status=${longer}`).set('Authorization', t.auth);
        expectErrorResponse(res, 400, 'VALIDATION_FAILED');
      },
    );

    it("replaces a base address's trailing version with the document's own", async () => {
      const configured = await createTestApp({
        publicBaseUrl: 'https://api.example.test/v1/',
        stagingBaseUrl: 'https://staging.example.test/petstore',
      });
      try {
        const urls = async (path: string) =>
          ((await configured.http.get(path).expect(200)).body as OpenApiDocument).servers?.map(
            (server) => server.url,
          );
        await expect(urls('/openapi/v2.json')).resolves.toEqual([
          '/v2',
          'https://api.example.test/v2',
          'https://staging.example.test/petstore/v2',
        ]);
        await expect(urls('/openapi/v1.json')).resolves.toEqual([
          '/v1',
          'https://api.example.test/v1',
          'https://staging.example.test/petstore/v1',
        ]);
      } finally {
        await configured.close();
      }
    });
  });

  describe('routing', () => {
    it.each([
      '/v2/pets/1/orders',
      '/v3/store/orders',
      '/v2/nothing',
      '/v1/health/live',
      '/v2/health/ready',
    ])('%s is 404 NOT_FOUND', async (path) => {
      expectErrorResponse(await t.http.get(path).set('Authorization', t.auth), 404, 'NOT_FOUND');
    });

    it('keeps the health probes outside every version', async () => {
      await t.http.get('/health/live').expect(200);
      await t.http.get('/health/ready').expect(200);
    });

    it('asks for an API key on /v2 as on /v1', async () => {
      const res = await t.http.get(`/v2/store/orders/1`);
      expectErrorResponse(res, 401, 'UNAUTHORIZED');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="petstore"');
      t.specV2.check('getOrderById', res);
    });

    it('answers a path the router cannot decode with 401 before anything else', async () => {
      expectErrorResponse(await t.http.get('/v2/store/orders/%E0%A4%A'), 401, 'UNAUTHORIZED');
    });
  });

  describe('the store operations', () => {
    it('places an order with Location under /v2, seen by v1 at once', async () => {
      const res = await t.http
        .post('/v2/store/orders')
        .set('Authorization', t.auth)
        .send({ petId, quantity: 3 })
        .expect(201);
      t.specV2.check('placeOrder', res);
      expect(res.body).toEqual({
        id: expect.any(Number),
        petId,
        quantity: 3,
        complete: false,
        status: 'pending',
      });
      expect(res.headers.location).toBe(`/v2/store/orders/${res.body.id}`);
      const v1 = await t.http
        .get(`/v1/store/orders/${res.body.id}`)
        .set('Authorization', t.auth)
        .expect(200);
      expect(v1.body).toEqual(res.body);
    });

    it('keeps v1 placing orders with Location under /v1', async () => {
      const res = await t.http
        .post('/v1/store/orders')
        .set('Authorization', t.auth)
        .send({ petId, quantity: 1 })
        .expect(201);
      expect(res.headers.location).toBe(`/v1/store/orders/${res.body.id}`);
    });

    it('applies the input rules of v1: unknown pet 422, unknown field 400, nothing written', async () => {
      await expectNoWrites(t.db, async () => {
        const unknownPet = await t.http
          .post('/v2/store/orders')
          .set('Authorization', t.auth)
          .send({ petId: 987654321, quantity: 1 });
        expectErrorResponse(unknownPet, 422, 'PET_NOT_FOUND');
        t.specV2.check('placeOrder', unknownPet);
        const unknownField = await t.http
          .post('/v2/store/orders')
          .set('Authorization', t.auth)
          .send({ petId, quantity: 1, color: 'red' });
        expectErrorResponse(unknownField, 400, 'VALIDATION_FAILED');
        expect(unknownField.body.message).toContain('color');
        const text = await t.http
          .post('/v2/store/orders')
          .set('Authorization', t.auth)
          .set('Content-Type', 'text/plain')
          .send('hello');
        expectErrorResponse(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
      });
    });

    it('reads, ships and cancels through v2', async () => {
      const toShip = await insertOrder(t.db, { petId });
      const read = await t.http
        .get(`/v2/store/orders/${toShip}`)
        .set('Authorization', t.auth)
        .expect(200);
      t.specV2.check('getOrderById', read);
      const shipped = await t.http
        .post(`/v2/store/orders/${toShip}/ship`)
        .set('Authorization', t.auth)
        .expect(200);
      t.specV2.check('shipOrder', shipped);
      expect(shipped.body).toMatchObject({ id: toShip, status: 'shipped', complete: true });

      const cancelShipped = await t.http
        .delete(`/v2/store/orders/${toShip}`)
        .set('Authorization', t.auth);
      expectErrorResponse(cancelShipped, 409, 'ORDER_ALREADY_SHIPPED');
      t.specV2.check('cancelOrder', cancelShipped);

      const toCancel = await insertOrder(t.db, { petId });
      const cancelled = await t.http
        .delete(`/v2/store/orders/${toCancel}`)
        .set('Authorization', t.auth)
        .expect(204);
      t.specV2.check('cancelOrder', cancelled);
      await expect(orderStatus(t.db, toCancel)).resolves.toBe('cancelled');
      const shipCancelled = await t.http
        .post(`/v2/store/orders/${toCancel}/ship`)
        .set('Authorization', t.auth);
      expectErrorResponse(shipCancelled, 409, 'ORDER_NOT_PENDING');
    });

    it.each(['0', '-1', '1e3', '9223372036854775808', 'abc'])(
      'refuses the path id %s with 400 VALIDATION_FAILED',
      async (id) => {
        const res = await t.http.get(`/v2/store/orders/${id}`).set('Authorization', t.auth);
        expectErrorResponse(res, 400, 'VALIDATION_FAILED');
        t.specV2.check('getOrderById', res);
      },
    );

    it('answers 404 ORDER_NOT_FOUND for an id that names nothing', async () => {
      const res = await t.http
        .get('/v2/store/orders/9223372036854775807')
        .set('Authorization', t.auth);
      expectErrorResponse(res, 404, 'ORDER_NOT_FOUND');
      t.specV2.check('getOrderById', res);
    });
  });

  describe('the category operations', () => {
    it('creates a category through v2, unique ignoring case across versions', async () => {
      const res = await t.http
        .post('/v2/categories')
        .set('Authorization', t.auth)
        .send({ name: '  Ferret ', description: 'Made in v2' })
        .expect(201);
      t.specV2.check('createCategory', res);
      expect(res.body).toEqual({
        id: expect.any(Number),
        name: 'Ferret',
        description: 'Made in v2',
      });
      await expect(categoryRow(t.db, res.body.id)).resolves.toEqual({
        name: 'Ferret',
        description: 'Made in v2',
      });
      const taken = await t.http
        .post('/v1/categories')
        .set('Authorization', t.auth)
        .send({ name: 'FERRET' });
      expectErrorResponse(taken, 409, 'CATEGORY_EXISTS');
      const takenV2 = await t.http
        .post('/v2/categories')
        .set('Authorization', t.auth)
        .send({ name: 'ferret' });
      expectErrorResponse(takenV2, 409, 'CATEGORY_EXISTS');
      t.specV2.check('createCategory', takenV2);
    });

    it('refuses malformed JSON with 400 MALFORMED_JSON', async () => {
      const res = await t.http
        .post('/v2/categories')
        .set('Authorization', t.auth)
        .set('Content-Type', 'application/json')
        .send('{"name":');
      expectErrorResponse(res, 400, 'MALFORMED_JSON');
      t.specV2.check('createCategory', res);
    });
  });
});
