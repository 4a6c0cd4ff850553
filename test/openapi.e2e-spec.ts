import type { Response } from 'supertest';
import { createTestApp, type TestApp } from './support/test-app.js';

interface MediaType {
  schema?: { $ref?: string } & Record<string, unknown>;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface ResponseEntry {
  $ref?: string;
  content?: Record<string, MediaType>;
  headers?: Record<string, { $ref?: string }>;
}
interface Operation {
  operationId?: string;
  deprecated?: boolean;
  security?: Array<Record<string, string[]>>;
  responses: Record<string, ResponseEntry>;
  requestBody?: { content: Record<string, MediaType> };
  'x-stability'?: string;
}
interface OpenApiDocument {
  openapi: string;
  info: { version: string };
  servers?: Array<{ url: string }>;
  security?: Array<Record<string, string[]>>;
  paths: Record<string, Record<string, unknown>>;
  components?: {
    schemas?: Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
    securitySchemes?: Record<string, { type?: string; scheme?: string }>;
    responses?: Record<string, ResponseEntry>;
    headers?: Record<string, unknown>;
  };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The v1 operations docs/api.md names (documented at /reference/v1): operationId → method and relative path. */
const CONTRACT_OPERATIONS = {
  listOrders: 'get /store/orders',
  placeOrder: 'post /store/orders',
  getOrderById: 'get /store/orders/{orderId}',
  shipOrder: 'post /store/orders/{orderId}/ship',
  cancelOrder: 'delete /store/orders/{orderId}',
  listCategories: 'get /categories',
  createCategory: 'post /categories',
  getPetById: 'get /pets/{petId}',
};

function operationsOf(
  document: OpenApiDocument,
): Array<{ id: string; method: string; path: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({
        id: String((operation as Operation).operationId),
        method,
        path,
        operation: operation as Operation,
      })),
  );
}

/** An operation's responses, each shared one (`$ref` to components.responses) looked up. */
function responsesOf(
  document: OpenApiDocument,
  operation: Operation,
): Array<[string, ResponseEntry]> {
  return Object.entries(operation.responses).map(([status, response]) => {
    const name = /^#\/components\/responses\/(.+)$/.exec(response.$ref ?? '')?.[1];
    return [status, name === undefined ? response : document.components!.responses![name]];
  });
}

/** The component schemas shaped like docs/api.md's Error: properties code, message, status. */
function errorSchemas(document: OpenApiDocument) {
  return Object.entries(document.components?.schemas ?? {}).filter(
    ([, schema]) =>
      Object.keys(schema.properties ?? {})
        .sort()
        .join() === 'code,message,status',
  );
}

async function fetchDocument(app: TestApp): Promise<OpenApiDocument> {
  const res = await app.http.get('/docs-json').expect(200);
  return res.body as OpenApiDocument;
}

describe('OpenAPI document and Swagger UI (e2e)', () => {
  let t: TestApp;
  let doc: OpenApiDocument;

  beforeAll(async () => {
    t = await createTestApp();
    doc = await fetchDocument(t);
  });
  afterAll(() => t.close());

  describe('GET /docs-json', () => {
    it('is served without an API key as an OpenAPI 3 document of API version 1.1.0', async () => {
      const res = await t.http.get('/docs-json').expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body.openapi).toMatch(/^3\.\d+\.\d+$/);
      expect(res.body.info.version).toBe('1.1.0');
      expect(typeof res.body.info.title).toBe('string');
    });

    it('documents exactly the eight operations of docs/api.md, at their methods and paths', () => {
      const documented = operationsOf(doc).map(({ id, method, path }) => [id, `${method} ${path}`]);
      expect(documented).toHaveLength(8);
      expect(Object.fromEntries(documented)).toEqual(CONTRACT_OPERATIONS);
    });

    it('closes every request body schema (unknown fields are refused: docs/api.md)', async () => {
      const v2 = (await t.http.get('/openapi/v2.json').expect(200)).body as OpenApiDocument;
      for (const document of [doc, v2]) {
        const schemas = (document as { components: { schemas: Record<string, object> } }).components
          .schemas;
        const bodies = operationsOf(document).flatMap(({ operation }) =>
          Object.values(operation.requestBody?.content ?? {}).map((media) =>
            String((media.schema as { $ref?: string }).$ref).replace('#/components/schemas/', ''),
          ),
        );
        expect(bodies.length).toBeGreaterThanOrEqual(2);
        for (const name of bodies) {
          expect({ name, closed: schemas[name] }).toEqual({
            name,
            closed: expect.objectContaining({ additionalProperties: false }),
          });
        }
      }
    });

    it('writes paths relative to the /v1 base address', () => {
      const paths = Object.keys(doc.paths);
      expect(paths.sort()).toEqual([
        '/categories',
        '/pets/{petId}',
        '/store/orders',
        '/store/orders/{orderId}',
        '/store/orders/{orderId}/ship',
      ]);
      for (const path of paths) expect(path).not.toMatch(/(^|\/)v1(\/|$)/);
    });

    it('leaves the health probes and the docs themselves out of the document', () => {
      for (const path of Object.keys(doc.paths)) {
        expect(path).not.toMatch(/health|docs/);
      }
    });

    it("registers the documentation's routes after the API's, so API requests are not tested against them", () => {
      // Express tries a request against each route in the order they were registered.
      const stack = (
        t.app.getHttpAdapter().getInstance() as {
          router: { stack: Array<{ route?: { path: string } }> };
        }
      ).router.stack;
      const paths = stack.map((layer) => layer.route?.path);
      const lastApiRoute = Math.max(
        ...paths.map((path, at) => (path !== undefined && /^\/v\d\//.test(path) ? at : -1)),
      );
      const documentation = paths.flatMap((path, at) =>
        path !== undefined && /^\/(docs|openapi|reference)/.test(path) ? [at] : [],
      );
      expect(documentation.length).toBeGreaterThanOrEqual(10);
      expect(Math.min(...documentation)).toBeGreaterThan(lastApiRoute);
    });

    it('lists only this instance, at the relative /v1, when no other address is configured', () => {
      expect(doc.servers?.map((server) => server.url)).toEqual(['/v1']);
    });

    it('lists this instance, then production and staging, each ending in /v1 exactly once', async () => {
      const configured = await createTestApp({
        publicBaseUrl: 'https://api.example.test',
        stagingBaseUrl: 'https://staging.example.test/v1',
      });
      try {
        const urls = (await fetchDocument(configured)).servers?.map((server) => server.url);
        expect(urls).toEqual([
          '/v1',
          'https://api.example.test/v1',
          'https://staging.example.test/v1',
        ]);
        for (const url of urls ?? []) {
          expect(url).toMatch(/\/v1$/);
          expect(url.match(/\/v1(?=\/|$)/g)).toHaveLength(1);
        }
      } finally {
        await configured.close();
      }
    });

    it('adds /v1 once to base addresses with a trailing slash or a path of their own', async () => {
      const configured = await createTestApp({
        publicBaseUrl: 'https://gateway.example.test/petstore/',
        stagingBaseUrl: 'https://staging.example.test/v1/',
      });
      try {
        const urls = (await fetchDocument(configured)).servers?.map((server) => server.url);
        expect(urls).toEqual([
          '/v1',
          'https://gateway.example.test/petstore/v1',
          'https://staging.example.test/v1',
        ]);
      } finally {
        await configured.close();
      }
    });

    it('requires a bearer API key on every operation, declared for the whole document', () => {
      const bearerSchemes = Object.entries(doc.components?.securitySchemes ?? {})
        .filter(([, scheme]) => scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'bearer')
        .map(([name]) => name);
      expect(bearerSchemes).toHaveLength(1);
      const [bearer] = bearerSchemes;
      expect(doc.security).toEqual([{ [bearer]: [] }]);
      for (const { id, operation } of operationsOf(doc)) {
        // An operation may repeat the requirement, but never drop it (`[]` or `{}` = anonymous).
        if (operation.security !== undefined) {
          expect({ id, security: operation.security }).toEqual({
            id,
            security: [{ [bearer]: [] }],
          });
        }
      }
    });

    it('marks placeOrder, getOrderById and shipOrder experimental, and no other operation', () => {
      const experimental = operationsOf(doc)
        .filter(({ operation }) => operation['x-stability'] === 'experimental')
        .map(({ id }) => id);
      expect(experimental.sort()).toEqual(['getOrderById', 'placeOrder', 'shipOrder']);
    });

    it('marks getPetById deprecated, and no other operation', () => {
      const deprecated = operationsOf(doc)
        .filter(({ operation }) => operation.deprecated === true)
        .map(({ id }) => id);
      expect(deprecated).toEqual(['getPetById']);
    });

    it('documents 401 on every operation', () => {
      for (const { id, operation } of operationsOf(doc)) {
        expect({ id, has401: '401' in operation.responses }).toEqual({ id, has401: true });
      }
    });

    it('documents X-Request-Id, the rate-limit headers and 431 on every operation of both documents, from shared components', async () => {
      const v2 = (await t.http.get('/openapi/v2.json').expect(200)).body as OpenApiDocument;
      const header = (name: string) => ({ $ref: `#/components/headers/${name}` });
      const rateLimit = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
      for (const document of [doc, v2]) {
        expect(Object.keys(document.components?.headers ?? {})).toEqual(
          expect.arrayContaining(['X-Request-Id', ...rateLimit]),
        );
        for (const { id, operation } of operationsOf(document)) {
          expect({ id, 431: operation.responses['431'] }).toEqual({
            id,
            431: { $ref: '#/components/responses/HeadersTooLarge' },
          });
          for (const [status, response] of Object.entries(operation.responses)) {
            if (status === '431') continue;
            const where = `${id} ${status}`;
            for (const name of ['X-Request-Id', ...rateLimit]) {
              expect({ where, [name]: response.headers?.[name] }).toEqual({
                where,
                [name]: header(name),
              });
            }
          }
        }
        // The 431 comes from the HTTP server, before the rate limits: the request id only.
        const tooLarge = document.components!.responses!.HeadersTooLarge;
        expect(Object.keys(tooLarge.headers ?? {})).toEqual(['X-Request-Id']);
      }
    });

    it('answers headers that are too large as its shared 431 documents, with an X-Request-Id', async () => {
      const res = await t.http
        .get('/v1/categories')
        .set('Authorization', t.auth)
        .set('X-Padding', 'x'.repeat(20 * 1024));
      expect(res.status).toBe(431);
      t.spec.check('listCategories', res);
      expect(res.headers['x-request-id']).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
    });

    it('gives every response with a body a JSON schema, and 204 no body', () => {
      for (const { id, operation } of operationsOf(doc)) {
        for (const [status, response] of responsesOf(doc, operation)) {
          const where = `${id} ${status}`;
          if (status === '204') {
            expect({ where, content: response.content }).toEqual({ where, content: undefined });
            continue;
          }
          expect({ where, mediaTypes: Object.keys(response.content ?? {}) }).toEqual({
            where,
            mediaTypes: ['application/json'],
          });
          expect({
            where,
            hasSchema: response.content?.['application/json'].schema !== undefined,
          }).toEqual({ where, hasSchema: true });
        }
      }
    });

    it('has one Error schema: exactly code, message and status, all required', () => {
      const found = errorSchemas(doc);
      expect(found).toHaveLength(1);
      const [, schema] = found[0];
      expect([...(schema.required ?? [])].sort()).toEqual(['code', 'message', 'status']);
    });

    it('documents every 4xx and 5xx with the Error schema and an example of its own status', () => {
      const [errorSchemaName] = errorSchemas(doc).map(([name]) => name);
      const errorRef = `#/components/schemas/${errorSchemaName}`;
      let checked = 0;
      for (const { id, operation } of operationsOf(doc)) {
        for (const [status, response] of responsesOf(doc, operation)) {
          if (!/^[45]\d\d$/.test(status)) continue;
          const where = `${id} ${status}`;
          const media = response.content?.['application/json'];
          expect({ where, ref: media?.schema?.$ref }).toEqual({ where, ref: errorRef });
          const examples = [
            ...(media?.example === undefined ? [] : [media.example]),
            ...Object.values(media?.examples ?? {}).map((example) => example.value),
          ];
          expect({ where, examples: examples.length > 0 }).toEqual({ where, examples: true });
          for (const example of examples) {
            const value = example as Record<string, unknown>;
            expect({ where, keys: Object.keys(value).sort(), status: value.status }).toEqual({
              where,
              keys: ['code', 'message', 'status'],
              status: Number(status),
            });
            expect(typeof value.code).toBe('string');
            expect(typeof value.message).toBe('string');
          }
          checked++;
        }
      }
      // 401 and 500 on all eight, plus the operation-specific errors.
      expect(checked).toBeGreaterThan(16);
    });
  });

  describe('GET /docs (Swagger UI)', () => {
    /** The src of every script and the href of every link tag in `html`. */
    function assetUrls(html: string): string[] {
      const tags = html.match(/<(script|link)\b[^>]*>/gi) ?? [];
      return tags.flatMap((tag) => {
        const url = /\b(?:src|href)\s*=\s*["']([^"']*)["']/i.exec(tag)?.[1];
        return url === undefined ? [] : [url];
      });
    }

    it('serves HTML without an API key whose scripts and stylesheets are not on another host', async () => {
      const res = await t.http.get('/docs').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      const urls = assetUrls(res.text);
      expect(urls.some((url) => /\.js(\?|$)/.test(url))).toBe(true);
      expect(urls.some((url) => /\.css(\?|$)/.test(url))).toBe(true);
      for (const url of urls) {
        expect(url).not.toMatch(/^(https?:)?\/\//i);
      }
    });

    it('serves every script and stylesheet the page references itself', async () => {
      const page = await t.http.get('/docs').expect(200);
      const urls = assetUrls(page.text);
      expect(urls.length).toBeGreaterThan(0);
      for (const url of urls) {
        const path = new URL(url, 'http://localhost/docs').pathname;
        const res = await t.http.get(path);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        expect(Number(res.headers['content-length'])).toBeGreaterThan(0);
      }
    });
  });

  describe('GET /reference (Redoc)', () => {
    it('redirects /reference and /reference/ to the v2 reference', async () => {
      for (const path of ['/reference', '/reference/']) {
        const res = await t.http.get(path).expect(302);
        expect(new URL(res.headers['location'], `http://localhost${path}`).pathname).toBe(
          '/reference/v2',
        );
      }
    });

    it.each(['1', '2'])(
      "serves /reference/v%s without an API key: Redoc over its version's document, a switch to the other",
      async (version) => {
        const res = await t.http.get(`/reference/v${version}`).expect(200);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        const specUrl = /<redoc spec-url="([^"]+)"/.exec(res.text)?.[1];
        expect(new URL(specUrl!, `http://localhost/reference/v${version}`).pathname).toBe(
          `/openapi/v${version}.json`,
        );
        const links = [...res.text.matchAll(/<a href="([^"]+)"/g)].map(
          ([, href]) => new URL(href, `http://localhost/reference/v${version}`).pathname,
        );
        expect(links).toEqual(['/reference/v2', '/reference/v1', '/docs']);
        // Scripts from the service only; no fonts, logos or stylesheets from elsewhere.
        expect(res.text).not.toMatch(/(https?:)?\/\/[a-z]/i);
      },
    );

    it("serves Redoc's bundle itself, as JavaScript", async () => {
      const page = await t.http.get('/reference/v2').expect(200);
      const src = /<script src="([^"]+)"/.exec(page.text)?.[1];
      const path = new URL(src!, 'http://localhost/reference/v2').pathname;
      expect(path).toBe('/reference/redoc.standalone.js');
      const res = await t.http.get(path).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/javascript/);
      expect(Number(res.headers['content-length'])).toBeGreaterThan(500_000);
      await t.http.get('/reference/redoc.standalone.js.LICENSE.txt').expect(200);
    });

    it("allows Redoc's blob: worker under /reference only, and nothing from elsewhere", async () => {
      const reference = (await t.http.get('/reference/v2').expect(200)).headers[
        'content-security-policy'
      ];
      expect(reference).toContain("worker-src 'self' blob:");
      expect(reference).toContain("script-src 'self'");
      expect(reference).not.toContain('https:');
      // Paths match in any case, as Express's routes do: /REFERENCE is the same page and policy.
      const upper = await t.http.get('/REFERENCE/v2').expect(200);
      expect(upper.headers['content-security-policy']).toBe(reference);
      const docs = (await t.http.get('/docs').expect(200)).headers['content-security-policy'];
      expect(docs).not.toContain('worker-src');
      expect(docs).not.toContain('blob:');
    });

    it('answers an unknown version with the Error body', async () => {
      const res = await t.http.get('/reference/v3').expect(404);
      expect(res.body).toEqual({ code: 'NOT_FOUND', message: expect.any(String), status: 404 });
    });
  });

  describe('health probes', () => {
    it.each(['/health/live', '/health/ready'])(
      '%s answers 200 without an API key',
      async (path) => {
        const res = await t.http.get(path).expect(200);
        expect(res.body.status).toBe('ok');
      },
    );
  });

  describe('the response check every e2e test uses', () => {
    const order = { id: 1, petId: 2, quantity: 1, complete: false, status: 'pending' };
    const response = (status: number, body: unknown) =>
      ({ status, body, text: JSON.stringify(body) }) as unknown as Response;

    it('accepts a documented status with a body of the documented shape', () => {
      expect(() => t.spec.check('getOrderById', response(200, order))).not.toThrow();
    });

    it('rejects an undocumented status, an extra key, a missing key and a wrong type', () => {
      expect(() => t.spec.check('getOrderById', response(418, order))).toThrow(/does not document/);
      expect(() => t.spec.check('getOrderById', response(200, { ...order, secret: 1 }))).toThrow(
        /additional/,
      );
      const { status: _status, ...withoutStatus } = order;
      expect(() => t.spec.check('getOrderById', response(200, withoutStatus))).toThrow(/status/);
      expect(() => t.spec.check('getOrderById', response(200, { ...order, id: '1' }))).toThrow(
        /integer/,
      );
      expect(() =>
        t.spec.check('cancelOrder', response(404, { code: 'ORDER_NOT_FOUND', message: 'x' })),
      ).toThrow(/status/);
    });
  });
});
