import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import createClient, { type Client } from 'openapi-fetch';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import type { components, paths } from '../packages/client/src/generated/v1.js';
import type {
  components as componentsV2,
  operations as operationsV2,
  paths as pathsV2,
} from '../packages/client/src/generated/v2.js';
import { insertOrder, insertPet } from './support/factories.js';
import { createTestApp, listeningOrigin, type TestApp } from './support/test-app.js';

/*
 * Clients generated from the service's own documents, /openapi/v1.json and /openapi/v2.json:
 * types by openapi-typescript (committed as packages/client/src/generated/v1.ts and v2.ts, the
 * types of the @petstore/client package), calls by openapi-fetch. This file checks twice:
 * - at run time, that the committed types are exactly what openapi-typescript makes of the
 *   live documents (else: run `npm run client:types`, which runs this file with
 *   WRITE_CLIENT_TYPES=1 to rewrite them, then type-checks), and that the calls work;
 * - at compile time (`npm run typecheck`; Jest only transpiles), that the calls below fit the
 *   generated types, and that a wrong call does not (the @ts-expect-error lines).
 */

/** Each document the gate covers, and the file its types are committed as. */
const DOCUMENTS = [
  { version: 'v1', url: '/openapi/v1.json', file: 'v1.ts' },
  { version: 'v2', url: '/openapi/v2.json', file: 'v2.ts' },
] as const;
type DocumentVersion = (typeof DOCUMENTS)[number]['version'];

const WRITE = process.env.WRITE_CLIENT_TYPES === '1';

const typesFile = (file: string) =>
  fileURLToPath(new URL(`../packages/client/src/generated/${file}`, import.meta.url));

const header = (
  url: string,
) => `${COMMENT_HEADER}// Generated from the service's ${url} by \`npm run client:types\` (openapi-typescript's
// Node API, default options). Not hand-formatted: Prettier and ESLint skip it. The test
// test/generated-client.e2e-spec.ts fails when it no longer matches the live document.

`;

/** What openapi-typescript makes of a document: the committed file's exact text. */
async function generateTypes(url: string, document: unknown): Promise<string> {
  const ast = await openapiTS(structuredClone(document) as Parameters<typeof openapiTS>[0], {
    silent: true,
  });
  return header(url) + astToString(ast);
}

type Order = components['schemas']['Order'];
type ApiError = components['schemas']['Error'];
type OrderV2 = componentsV2['schemas']['Order'];
type ListOrdersQueryV2 = NonNullable<operationsV2['listOrders']['parameters']['query']>;

let t: TestApp;
/** The base URL of the running app; each version's client adds its prefix. */
let origin: string;
let petId: number;
const generated = {} as Record<DocumentVersion, string>;

beforeAll(async () => {
  t = await createTestApp();
  for (const { version, url, file } of DOCUMENTS) {
    generated[version] = await generateTypes(url, (await t.http.get(url).expect(200)).body);
    if (WRITE) await writeFile(typesFile(file), generated[version]);
  }
  petId = await insertPet(t.db, { name: 'Generated' });
  origin = await listeningOrigin(t);
}, 60_000);
afterAll(() => t.close());

/** A client of one version of the running app, with the test's API key. */
function clientOf<Paths extends object>(version: DocumentVersion): Client<Paths> {
  return createClient<Paths>({
    baseUrl: `${origin}/${version}`,
    headers: { Authorization: `Bearer ${t.apiKey}` },
  });
}

describe.each(DOCUMENTS)('the types generated from $url (e2e)', ({ version, url, file }) => {
  it(`match the live document (else run \`npm run client:types\`)`, async () => {
    const committed = await readFile(typesFile(file), 'utf8').catch(() => '');
    if (committed !== generated[version]) {
      const lines = { committed: committed.split('\n'), generated: generated[version].split('\n') };
      const at = lines.generated.findIndex((line, i) => line !== lines.committed[i]);
      throw new Error(
        `packages/client/src/generated/${file} is stale (${url}): run \`npm run client:types\` and commit it.\n` +
          `First difference at line ${at + 1}:\n` +
          `  committed: ${lines.committed[at] ?? '(end of file)'}\n` +
          `  generated: ${lines.generated[at] ?? '(end of file)'}`,
      );
    }
  });
});

it("gives @petstore/client the v2 document's info.version", async () => {
  const manifest = JSON.parse(
    await readFile(new URL('../packages/client/package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  const document = (await t.http.get('/openapi/v2.json').expect(200)).body as {
    info: { version: string };
  };
  expect(manifest.version).toBe(document.info.version);
});

describe('a client generated from /openapi/v1.json (e2e)', () => {
  let client: Client<paths>;

  beforeAll(() => {
    client = clientOf<paths>('v1');
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

describe('a client generated from /openapi/v2.json (e2e)', () => {
  let client: Client<pathsV2>;

  beforeAll(() => {
    client = clientOf<pathsV2>('v2');
  });

  it('reads a filtered list page by page, following nextCursor to the end', async () => {
    const paged = await insertPet(t.db, { name: 'Paged' });
    const other = await insertPet(t.db, { name: 'Other' });
    const matching: number[] = [];
    for (const status of ['pending', 'shipped', 'cancelled', 'pending', 'shipped'] as const) {
      const id = await insertOrder(t.db, { petId: paged, status });
      if (status !== 'cancelled') matching.unshift(id); // newest first, as order=desc lists them
      await insertOrder(t.db, { petId: other, status });
    }
    // Would not compile if the document lost a parameter or the order enum.
    const query: ListOrdersQueryV2 = { petId: paged, status: 'pending,shipped', order: 'desc' };

    const seen: OrderV2[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.GET('/store/orders', {
        params: { query: { ...query, limit: 2, cursor } },
      });
      expect(page.response.status).toBe(200);
      const next: string | null = page.data!.nextCursor;
      seen.push(...page.data!.data);
      expect(page.response.headers.has('link')).toBe(next !== null);
      cursor = next ?? undefined;
      pages++;
    } while (cursor !== undefined);

    expect(pages).toBe(2);
    expect(seen.map(({ id }) => id)).toEqual(matching);
    expect(seen.every((order) => order.petId === paged && order.status !== 'cancelled')).toBe(true);
  });

  it('places an order with an Idempotency-Key: a retry gets the same answer, replayed', async () => {
    const request = {
      params: { header: { 'Idempotency-Key': `generated-client-${Date.now()}` } },
      body: { petId, quantity: 3 },
    };
    const placed = await client.POST('/store/orders', request);
    expect(placed.response.status).toBe(201);
    const order: OrderV2 = placed.data!;
    expect(order).toEqual({
      id: expect.any(Number),
      petId,
      quantity: 3,
      complete: false,
      status: 'pending',
    });
    expect(placed.response.headers.get('location')).toBe(`/v2/store/orders/${order.id}`);
    expect(placed.response.headers.has('idempotent-replayed')).toBe(false);

    const retried = await client.POST('/store/orders', request);
    expect(retried.response.status).toBe(201);
    expect(retried.data).toEqual(order);
    expect(retried.response.headers.get('location')).toBe(`/v2/store/orders/${order.id}`);
    expect(retried.response.headers.get('idempotent-replayed')).toBe('true');
  });

  it('rejects a query the types reject too', async () => {
    const wrong = await client.GET('/store/orders', {
      // @ts-expect-error order is "asc" or "desc" in the document
      params: { query: { order: 'newest' } },
    });
    expect(wrong.response.status).toBe(400);
    const error: componentsV2['schemas']['Error'] | undefined = wrong.error;
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
  });
});
