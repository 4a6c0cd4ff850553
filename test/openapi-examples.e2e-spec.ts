import type { Response } from 'supertest';
import { OpenApiValidator } from './support/openapi-validator.js';
import { createTestApp, type TestApp } from './support/test-app.js';

interface MediaType {
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface ResponseEntry {
  $ref?: string;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId: string;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, ResponseEntry>;
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { responses?: Record<string, ResponseEntry> };
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** The example values of a media type: its `example`, or each of its `examples`. */
function examplesOf(media: MediaType | undefined): unknown[] {
  if (media === undefined) return [];
  return [
    ...(media.example === undefined ? [] : [media.example]),
    ...Object.values(media.examples ?? {}).flatMap((example) =>
      example.value === undefined ? [] : [example.value],
    ),
  ];
}

/** What an example is checked as: a response of its status, through the e2e tests' own check. */
function asResponse(status: number, body: unknown): Response {
  return { status, body, text: JSON.stringify(body) } as unknown as Response;
}

/**
 * The reference (/reference) shows each operation's examples: an example request body, the
 * success answer and every error it can give. This walks both documents and fails on an
 * operation that lacks one, and on an example that its own schema refuses.
 */
describe('Examples in the OpenAPI documents (e2e)', () => {
  let t: TestApp;
  const documents: Record<string, OpenApiDocument> = {};

  beforeAll(async () => {
    t = await createTestApp();
    for (const version of ['1', '2']) {
      documents[version] = (await t.http.get(`/openapi/v${version}.json`).expect(200))
        .body as OpenApiDocument;
    }
  });
  afterAll(() => t.close());

  function operationsOf(document: OpenApiDocument): Operation[] {
    return Object.values(document.paths).flatMap((item) =>
      Object.entries(item)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([, operation]) => operation),
    );
  }

  describe.each(['1', '2'])('v%s', (version) => {
    it('gives every operation an example request body (when it takes one), a success example and an example on each error response', () => {
      const document = documents[version];
      const missing: string[] = [];
      for (const operation of operationsOf(document)) {
        const id = operation.operationId;
        if (operation.requestBody !== undefined) {
          if (examplesOf(operation.requestBody.content['application/json']).length === 0) {
            missing.push(`${id}: request body`);
          }
        }
        for (const [status, entry] of Object.entries(operation.responses)) {
          const shared = /^#\/components\/responses\/(.+)$/.exec(entry.$ref ?? '')?.[1];
          const response = shared === undefined ? entry : document.components!.responses![shared];
          // A 204 has no body to show.
          if (response.content === undefined) continue;
          if (examplesOf(response.content['application/json']).length === 0) {
            missing.push(`${id}: ${status}`);
          }
        }
      }
      expect(missing).toEqual([]);
    });

    it('has only examples that their schemas accept, with no keys beyond the documented ones', () => {
      const document = documents[version];
      const spec = new OpenApiValidator(
        document as unknown as ConstructorParameters<typeof OpenApiValidator>[0],
        `/openapi/v${version}.json`,
      );
      let checked = 0;
      for (const operation of operationsOf(document)) {
        const id = operation.operationId;
        for (const body of examplesOf(operation.requestBody?.content['application/json'])) {
          expect(() => spec.checkRequest(id, body)).not.toThrow();
          checked++;
        }
        for (const [status, entry] of Object.entries(operation.responses)) {
          const shared = /^#\/components\/responses\/(.+)$/.exec(entry.$ref ?? '')?.[1];
          const response = shared === undefined ? entry : document.components!.responses![shared];
          for (const body of examplesOf(response.content?.['application/json'])) {
            expect(() => spec.check(id, asResponse(Number(status), body))).not.toThrow();
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThan(operationsOf(document).length * 4);
    });
  });
});
