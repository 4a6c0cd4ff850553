import { insertCategory, insertOrder, insertPet } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

interface Document {
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

/**
 * Every answer writes a resource's keys in the order its schema lists them (the order a reader
 * of the reference sees), whichever path rendered it: a DTO, the service's own list renderer,
 * PostgreSQL for a remembered Idempotency-Key answer. JSON.parse keeps the order of the text.
 */
describe('answers write their keys in the order of their schemas (e2e)', () => {
  let t: TestApp;
  let v1: Document;
  let v2: Document;
  let petId: number;

  beforeAll(async () => {
    t = await createTestApp();
    v1 = (await t.http.get('/openapi/v1.json').expect(200)).body as Document;
    v2 = (await t.http.get('/openapi/v2.json').expect(200)).body as Document;
    const categoryId = await insertCategory(t.db, 'Key order', 'with a description');
    petId = await insertPet(t.db, { name: 'Ordered', categoryId });
    await insertOrder(t.db, { petId, status: 'shipped' });
    await insertOrder(t.db, { petId, status: 'pending' });
  });
  afterAll(() => t.close());

  /** The keys of `value` must be `schema`'s properties, those present, in the schema's order. */
  function expectSchemaOrder(document: Document, schema: string, value: unknown): void {
    const properties = Object.keys(document.components.schemas[schema]?.properties ?? {});
    expect(properties.length).toBeGreaterThan(0);
    const keys = Object.keys(value as object);
    expect({ schema, keys }).toEqual({
      schema,
      keys: properties.filter((property) => keys.includes(property)),
    });
  }

  async function answer(
    method: 'get' | 'post' | 'delete',
    path: string,
    body?: object,
    headers: Record<string, string> = {},
  ): Promise<unknown> {
    const request = t.http[method](path).set('Authorization', t.auth);
    for (const [name, value] of Object.entries(headers)) request.set(name, value);
    const res = await (body ? request.send(body) : request);
    expect(res.status).toBeLessThan(300);
    return JSON.parse(res.text) as unknown;
  }

  it('orders: listed, read, placed (with and without an Idempotency-Key, and replayed), shipped', async () => {
    for (const order of (await answer('get', '/v1/store/orders')) as unknown[]) {
      expectSchemaOrder(v1, 'Order', order);
    }
    const page = (await answer('get', '/v2/store/orders?limit=5')) as { data: unknown[] };
    for (const order of page.data) expectSchemaOrder(v2, 'Order', order);
    const placed = (await answer('post', '/v1/store/orders', { petId, quantity: 2 })) as {
      id: string;
    };
    expectSchemaOrder(v1, 'Order', placed);
    expectSchemaOrder(v1, 'Order', await answer('get', `/v1/store/orders/${placed.id}`));
    expectSchemaOrder(v1, 'Order', await answer('post', `/v1/store/orders/${placed.id}/ship`));
    const key = { 'Idempotency-Key': `key-order-${Date.now()}` };
    const first = await answer('post', '/v2/store/orders', { petId, quantity: 1 }, key);
    expectSchemaOrder(v2, 'Order', first);
    const replayed = await answer('post', '/v2/store/orders', { petId, quantity: 1 }, key);
    expectSchemaOrder(v2, 'Order', replayed);
    expect(Object.keys(replayed as object)).toEqual(Object.keys(first as object));
  });

  it('categories and pets: listed, created, read', async () => {
    for (const category of (await answer('get', '/v1/categories')) as unknown[]) {
      expectSchemaOrder(v1, 'Category', category);
    }
    expectSchemaOrder(
      v2,
      'Category',
      await answer('post', '/v2/categories', { name: `Ordered ${Date.now()}`, description: 'd' }),
    );
    expectSchemaOrder(v1, 'Pet', await answer('get', `/v1/pets/${petId}`));
    const pets = (await answer('get', '/v2/pets?limit=50')) as { data: unknown[] };
    for (const pet of pets.data) expectSchemaOrder(v2, 'Pet', pet);
  });
});
