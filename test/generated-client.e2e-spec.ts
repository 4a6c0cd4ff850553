import { readFile, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import createClient, { type Client } from 'openapi-fetch';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import type { components, paths } from './generated/petstore-api.js';
import { insertPet } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/*
 * A client generated from the service's own /docs-json: types by openapi-typescript (committed
 * as test/generated/petstore-api.ts), calls by openapi-fetch. This file checks twice:
 * - at run time, that the committed types are exactly what openapi-typescript makes of the
 *   live document (else: run `npm run client:types`, which runs this file with
 *   WRITE_CLIENT_TYPES=1 to rewrite them, then type-checks), and that the calls work;
 * - at compile time (`npm run typecheck`; Jest only transpiles), that the calls below fit the
 *   generated types, and that a wrong call does not (the @ts-expect-error lines).
 */

const TYPES_FILE = fileURLToPath(new URL('./generated/petstore-api.ts', import.meta.url));
const WRITE = process.env.WRITE_CLIENT_TYPES === '1';

const HEADER = `${COMMENT_HEADER}// Generated from the service's /docs-json by \`npm run client:types\` (openapi-typescript's
// Node API, default options). Not hand-formatted: Prettier and ESLint skip it. The test
// test/generated-client.e2e-spec.ts fails when it no longer matches the live document.

`;

/** What openapi-typescript makes of the document: the committed file's exact text. */
async function generateTypes(document: unknown): Promise<string> {
  const ast = await openapiTS(structuredClone(document) as Parameters<typeof openapiTS>[0], {
    silent: true,
  });
  return HEADER + astToString(ast);
}

type Order = components['schemas']['Order'];
type ApiError = components['schemas']['Error'];

describe('a client generated from /docs-json (e2e)', () => {
  let t: TestApp;
  let client: Client<paths>;
  let generated: string;
  let petId: number;

  beforeAll(async () => {
    t = await createTestApp();
    generated = await generateTypes((await t.http.get('/docs-json').expect(200)).body);
    if (WRITE) await writeFile(TYPES_FILE, generated);
    petId = await insertPet(t.db, { name: 'Generated' });
    const server = t.app.getHttpServer();
    if (!server.listening) await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    client = createClient<paths>({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      headers: { Authorization: `Bearer ${t.apiKey}` },
    });
  }, 60_000);
  afterAll(() => t.close());

  it('uses types that match the live document (else run `npm run client:types`)', async () => {
    const committed = await readFile(TYPES_FILE, 'utf8').catch(() => '');
    if (committed !== generated) {
      const lines = { committed: committed.split('\n'), generated: generated.split('\n') };
      const at = lines.generated.findIndex((line, i) => line !== lines.committed[i]);
      throw new Error(
        `test/generated/petstore-api.ts is stale: run \`npm run client:types\` and commit it.\n` +
          `First difference at line ${at + 1}:\n` +
          `  committed: ${lines.committed[at] ?? '(end of file)'}\n` +
          `  generated: ${lines.generated[at] ?? '(end of file)'}`,
      );
    }
  });

  it('places, lists and cancels an order', async () => {
    const placed = await client.POST('/store/orders', { body: { petId, quantity: 2 } });
    expect(placed.response.status).toBe(201);
    const order: Order = placed.data!;
    // Would not compile if the document lost the status enum (a plain string is not assignable).
    const status: 'pending' | 'shipped' | 'cancelled' = order.status;
    // ...nor if it dropped one of the three.
    const everyStatus: Array<Order['status']> = ['pending', 'shipped', 'cancelled'];
    expect(everyStatus).toContain(status);
    expect(order).toEqual({ id: expect.any(Number), petId, quantity: 2, complete: false, status });
    expect(status).toBe('pending');
    expect(placed.response.headers.get('location')).toBe(`/v1/store/orders/${order.id}`);

    const listed = await client.GET('/store/orders');
    expect(listed.response.status).toBe(200);
    expect(listed.data).toContainEqual(order);

    const cancelled = await client.DELETE('/store/orders/{orderId}', {
      params: { path: { orderId: order.id } },
    });
    expect(cancelled.response.status).toBe(204);
    expect(cancelled.error).toBeUndefined();

    const after = await client.GET('/store/orders');
    const cancelledOrder: Order | undefined = after.data?.find(({ id }) => id === order.id);
    expect(cancelledOrder).toEqual({ ...order, status: 'cancelled' });
  });

  it('gets the typed Error body of a failed call', async () => {
    const missing = await client.DELETE('/store/orders/{orderId}', {
      params: { path: { orderId: 999_999 } },
    });
    const notFound: ApiError | undefined = missing.error;
    expect(notFound).toEqual({ code: 'ORDER_NOT_FOUND', message: expect.any(String), status: 404 });
  });

  it('rejects a body the types reject too', async () => {
    const wrong = await client.POST('/store/orders', {
      // @ts-expect-error quantity is an integer in the document, and the API does not coerce "2"
      body: { petId, quantity: '2' },
    });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
  });

  it('creates a category, and a duplicate name is a typed 409 CATEGORY_EXISTS', async () => {
    const name = 'hamster';
    const created = await client.POST('/categories', {
      body: { name, description: 'From the generated client' },
    });
    expect(created.response.status).toBe(201);
    expect(created.data).toEqual({
      id: expect.any(Number),
      name,
      description: 'From the generated client',
    });

    const duplicate = await client.POST('/categories', { body: { name: name.toUpperCase() } });
    expect(duplicate.data).toBeUndefined();
    const error: ApiError | undefined = duplicate.error;
    // Would not compile if the document's ErrorCode enum lost CATEGORY_EXISTS.
    const code: ApiError['code'] = 'CATEGORY_EXISTS';
    expect(error).toEqual({ code, message: expect.any(String), status: 409 });
    expect(error?.status).toBe(duplicate.response.status);
  });
});
