import type { Response, Test } from 'supertest';
import { insertPet } from './support/factories.js';
import { expectErrorResponse, expectNoWrites } from './support/http-assertions.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const MAX_BODY_BYTES = 16 * 1024;
const JSON_TYPE = 'application/json';
/** What the app generates, and what it accepts from a caller as it is. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

type HttpMethod = 'get' | 'put' | 'patch' | 'post' | 'delete';

interface BodyOperation {
  operationId: 'createCategory' | 'placeOrder';
  path: string;
  /** A body the operation accepts (201), fresh on every call. */
  validBody(): Record<string, unknown>;
}

interface Answer {
  label: string;
  status: number;
  /** The documented operation answering, checked against /docs-json; none for other routes. */
  operationId?: string;
  send(): Test;
}

describe('HTTP errors (e2e)', () => {
  let t: TestApp;
  let petId: number;
  let seq = 0;

  beforeAll(async () => {
    t = await createTestApp();
    petId = await insertPet(t.db, { name: 'Rex' });
  });
  afterAll(() => t.close());

  describe('unknown routes', () => {
    const routes: Array<[Uppercase<HttpMethod>, string]> = [
      ['GET', '/v1/nope'],
      ['GET', '/v3/store/orders'],
      ['GET', '/v2/pets/1/orders'],
      ['POST', '/v2/pets'],
      ['GET', '/v2/nope'],
      ['GET', '/v1/store'],
      ['PUT', '/v1/categories'],
      ['PATCH', '/v1/store/orders/1'],
      ['GET', '/'],
      ['GET', '/v1'],
      ['DELETE', '/v1/categories'],
      ['POST', '/v1/pets/1'],
      ['GET', '/v1/store/orders/1/ship'],
      ['GET', '/v1/health/live'],
      ['GET', '/health'],
      ['GET', '/nope'],
    ];
    const send = (method: Uppercase<HttpMethod>, path: string): Test =>
      t.http[method.toLowerCase() as HttpMethod](path);

    it.each(routes)(
      '%s %s answers 404 NOT_FOUND with the Error body, without a key',
      async (method, path) => {
        await expectNoWrites(t.db, async () => {
          const res = await send(method, path);
          expectErrorResponse(res, 404, 'NOT_FOUND');
          expect(res.headers['www-authenticate']).toBeUndefined();
        });
      },
    );

    it.each(routes)(
      '%s %s answers 404 NOT_FOUND with the Error body, with a valid key',
      async (method, path) => {
        await expectNoWrites(t.db, async () => {
          const res = await send(method, path).set('Authorization', t.auth);
          expectErrorResponse(res, 404, 'NOT_FOUND');
        });
      },
    );
  });

  const bodyOperations: BodyOperation[] = [
    {
      operationId: 'createCategory',
      path: '/v1/categories',
      validBody: () => ({ name: `http-errors-${++seq}` }),
    },
    {
      operationId: 'placeOrder',
      path: '/v1/store/orders',
      validBody: () => ({ petId, quantity: 1 }),
    },
  ];

  describe.each(bodyOperations)(
    '$operationId request bodies',
    ({ operationId, path, validBody }) => {
      /** POST with a valid key; the caller adds Content-Type and body. */
      const post = (): Test => t.http.post(path).set('Authorization', t.auth);

      /** Sends `send()`, expects the given error, and shows that nothing was written. */
      async function expectRefused(
        send: () => Test,
        status: number,
        code: string,
      ): Promise<Response> {
        let res: Response | undefined;
        await expectNoWrites(t.db, async () => {
          res = await send();
          expectErrorResponse(res, status, code);
          t.spec.check(operationId, res);
        });
        return res as Response;
      }

      it('accepts application/json with charset=utf-8', async () => {
        const body = validBody();
        const res = await post()
          .set('Content-Type', 'application/json; charset=utf-8')
          .send(JSON.stringify(body));
        expect(res.status).toBe(201);
        t.spec.check(operationId, res);
        expect(res.body).toMatchObject(body);
      });

      it('answers 415 UNSUPPORTED_MEDIA_TYPE when the Content-Type header is missing', async () => {
        await expectRefused(
          // A Buffer body: superagent sends it without a Content-Type of its own.
          () => post().send(Buffer.from(JSON.stringify(validBody()))),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
      });

      it.each([
        ['text/plain', () => JSON.stringify({ name: 'plain' })],
        ['text/plain; charset=utf-8', () => JSON.stringify({ name: 'plain' })],
        ['application/x-www-form-urlencoded', () => 'name=form&petId=1&quantity=1'],
        [
          'multipart/form-data; boundary=XyZ',
          () =>
            '--XyZ\r\nContent-Disposition: form-data; name="name"\r\n\r\nmultipart\r\n--XyZ--\r\n',
        ],
        ['application/xml', () => '<category><name>xml</name></category>'],
      ])('answers 415 UNSUPPORTED_MEDIA_TYPE for Content-Type %s', async (type, body) => {
        await expectRefused(
          () => post().set('Content-Type', type).send(body()),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
      });

      it('answers 415 UNSUPPORTED_MEDIA_TYPE for a multipart form built by the client', async () => {
        await expectRefused(
          () => post().field('name', 'multipart').field('petId', '1').field('quantity', '1'),
          415,
          'UNSUPPORTED_MEDIA_TYPE',
        );
      });

      it.each(['application/json; charset=latin1', 'application/json; charset=iso-8859-1'])(
        'answers 415 UNSUPPORTED_MEDIA_TYPE for an unsupported charset: %s',
        async (type) => {
          await expectRefused(
            () => post().set('Content-Type', type).send(JSON.stringify(validBody())),
            415,
            'UNSUPPORTED_MEDIA_TYPE',
          );
        },
      );

      it.each([
        ['an unclosed object', '{'],
        ['a missing value', '{"name":}'],
        ['a trailing comma', '{"name":"comma","petId":1,"quantity":1,}'],
        ['single quotes', "{'name':'quotes'}"],
        ['white space only', '   '],
        ['a bare word', 'hello'],
        ['two objects', '{"a":1}{"b":2}'],
        ['a truncated string', '{"name":"cut'],
      ])('answers 400 MALFORMED_JSON for %s', async (_label, body) => {
        await expectRefused(
          () => post().set('Content-Type', JSON_TYPE).send(body),
          400,
          'MALFORMED_JSON',
        );
      });

      it('answers 400 MALFORMED_JSON for an empty body sent as application/json', async () => {
        // Decided from docs/api.md: a JSON body must be a JSON text (RFC 8259: one value), and
        // zero bytes are not one: JSON.parse('') throws, so the body "is not parsable JSON"
        // (docs/api.md, Errors), exactly like a body of white space only, which the app already answers
        // MALFORMED_JSON. body-parser maps an empty body to {} as a courtesy, which would turn
        // the answer into VALIDATION_FAILED for missing fields; docs/api.md leaves no room
        // for that special case.
        await expectRefused(
          () => post().set('Content-Type', JSON_TYPE).set('Content-Length', '0'),
          400,
          'MALFORMED_JSON',
        );
      });

      it.each([
        ['a number', '5'],
        ['a string', '"name"'],
        ['true', 'true'],
        ['null', 'null'],
        ['an empty array', '[]'],
        ['an array of a valid body', null],
      ])('answers 400 VALIDATION_FAILED for JSON that is not an object: %s', async (_l, body) => {
        const text = body ?? JSON.stringify([validBody()]);
        await expectRefused(
          () => post().set('Content-Type', JSON_TYPE).send(text),
          400,
          'VALIDATION_FAILED',
        );
      });

      it('accepts a valid body of exactly 16 KiB', async () => {
        const json = JSON.stringify(validBody());
        const text = json + ' '.repeat(MAX_BODY_BYTES - Buffer.byteLength(json));
        expect(Buffer.byteLength(text)).toBe(MAX_BODY_BYTES);
        const res = await post().set('Content-Type', JSON_TYPE).send(text);
        expect(res.status).toBe(201);
        t.spec.check(operationId, res);
      });

      it('answers 413 PAYLOAD_TOO_LARGE for a valid body of 16 KiB + 1 byte', async () => {
        const json = JSON.stringify(validBody());
        const text = json + ' '.repeat(MAX_BODY_BYTES + 1 - Buffer.byteLength(json));
        expect(Buffer.byteLength(text)).toBe(MAX_BODY_BYTES + 1);
        await expectRefused(
          () => post().set('Content-Type', JSON_TYPE).send(text),
          413,
          'PAYLOAD_TOO_LARGE',
        );
      });

      it('answers 413 PAYLOAD_TOO_LARGE for a 1 MiB body', async () => {
        await expectRefused(
          () =>
            post()
              .set('Content-Type', JSON_TYPE)
              .send({ ...validBody(), padding: 'x'.repeat(1024 * 1024) }),
          413,
          'PAYLOAD_TOO_LARGE',
        );
      });

      it('answers 413 PAYLOAD_TOO_LARGE for a chunked body over 16 KiB (no Content-Length)', async () => {
        await expectRefused(
          () => {
            const req = post().set('Content-Type', JSON_TYPE);
            // Writing before end() sends the body with Transfer-Encoding: chunked.
            req.write('{"name":"chunked","padding":"');
            for (let i = 0; i < 20; i++) req.write('x'.repeat(1024));
            req.write('"}');
            return req;
          },
          413,
          'PAYLOAD_TOO_LARGE',
        );
      });

      it.each([
        ['at the top', '{"__proto__":{"polluted":"yes"},"name":"proto","petId":1,"quantity":1}'],
        ['alone', '{"__proto__":{"polluted":"yes"}}'],
        ['inside a field', '{"name":{"__proto__":{"polluted":"yes"}},"petId":1,"quantity":1}'],
        ['nested in an unknown field', '{"x":{"y":{"__proto__":{"polluted":"yes"}}}}'],
      ])(
        'answers 400 VALIDATION_FAILED for a __proto__ key %s and pollutes nothing',
        async (_l, body) => {
          await expectRefused(
            () => post().set('Content-Type', JSON_TYPE).send(body),
            400,
            'VALIDATION_FAILED',
          );
          // The app runs in this process: a polluted Object.prototype would show here.
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      );

      it.each([
        ['100 arrays', 100, (depth: number) => '['.repeat(depth) + ']'.repeat(depth)],
        ['100 objects', 100, (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)],
        ['5000 arrays', 5000, (depth: number) => '['.repeat(depth) + ']'.repeat(depth)],
      ])(
        'answers 400 VALIDATION_FAILED, never 500, for %s nested inside an unknown field',
        async (_label, depth, nest) => {
          const json = JSON.stringify(validBody());
          const text = `${json.slice(0, -1)},"junk":${nest(depth)}}`;
          expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_BODY_BYTES);
          await expectRefused(
            () => post().set('Content-Type', JSON_TYPE).send(text),
            400,
            'VALIDATION_FAILED',
          );
        },
      );

      /**
       * POSTs these bytes as they are, as application/json (superagent would otherwise
       * serialize a Buffer as JSON).
       */
      const postBytes = (bytes: Buffer, type = JSON_TYPE): Test =>
        post()
          .set('Content-Type', type)
          .serialize((body: Buffer) => body as unknown as string)
          .send(bytes);

      /** The members of `body` as JSON text, without the braces. */
      const members = (body: Record<string, unknown>): string => JSON.stringify(body).slice(1, -1);

      it.each([
        ['at the top, another value last', (m: string) => `{${m},"x":1,"x":2}`, 'x'],
        ['at the top, the same value twice', (m: string) => `{${m},${m}}`, null],
        ['one of them escaped', (m: string) => `{${m},"y":1,"\\u0079":1}`, 'y'],
        ['nested in an unknown field', (m: string) => `{${m},"z":{"a":[{"b":1,"b" :2}]}}`, 'b'],
        ['in an array body', (m: string) => `[{${m},"w":1,"w":1}]`, 'w'],
        [
          'and a body nested too deep',
          (m: string) => `{${m},"v":1,"v":2,"deep":${'['.repeat(100)}${']'.repeat(100)}}`,
          'v',
        ],
      ])(
        'answers 400 MALFORMED_JSON naming the key for a key written twice in one object, %s (I-JSON)',
        async (_label, text, key) => {
          const valid = members(validBody());
          const res = await expectRefused(
            () => post().set('Content-Type', JSON_TYPE).send(text(valid)),
            400,
            'MALFORMED_JSON',
          );
          const repeated = key ?? Object.keys(validBody())[0];
          expect(res.body.message).toBe(
            `The request body is not valid JSON: the key "${repeated}" appears twice in one object.`,
          );
        },
      );

      it('quotes at most 40 characters of a long duplicated key', async () => {
        const key = `${'k'.repeat(5000)}\\n`;
        const res = await expectRefused(
          () =>
            post()
              .set('Content-Type', JSON_TYPE)
              .send(`{${members(validBody())},"${key}":1,"${key}":2}`),
          400,
          'MALFORMED_JSON',
        );
        expect(res.body.message).toBe(
          `The request body is not valid JSON: the key "${'k'.repeat(40)}"… appears twice in one object.`,
        );
      });

      it('accepts the same key in different objects, and keys that differ only in case or form', async () => {
        const body = validBody();
        const text = `{${members(body)}}`.replace(/}$/, ',"n":{"a":1,"A":2,"é":3,"e\u0301":4}}');
        // An unknown field: refused by the validator (400 VALIDATION_FAILED), not as JSON.
        await expectRefused(
          () => post().set('Content-Type', JSON_TYPE).send(text),
          400,
          'VALIDATION_FAILED',
        );
      });

      it.each([
        ['an overlong "/" (C0 AF)', [0xc0, 0xaf]],
        ['a byte that is never UTF-8 (FF)', [0xff]],
        ['a lone continuation byte (80)', [0x80]],
        ['a truncated sequence (E2 82)', [0xe2, 0x82]],
        ['an encoded surrogate (ED A0 80)', [0xed, 0xa0, 0x80]],
        ['a code point beyond U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80]],
      ])(
        'answers 400 MALFORMED_JSON for bytes that are not UTF-8 inside a string: %s',
        async (_label, bytes) => {
          // The bad bytes inside a string value of an unknown field and of a known one.
          for (const field of ['note', Object.keys(validBody())[0]]) {
            const json = JSON.stringify({ ...validBody(), [field]: 'AB' });
            const [head, tail] = json.split('AB');
            const body = Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]);
            const res = await expectRefused(() => postBytes(body), 400, 'MALFORMED_JSON');
            expect(res.body.message).toBe('The request body is not valid UTF-8.');
          }
        },
      );

      it('accepts a UTF-8 byte order mark before the JSON text', async () => {
        const body = validBody();
        const res = await postBytes(Buffer.from(`\ufeff${JSON.stringify(body)}`));
        expect(res.status).toBe(201);
        t.spec.check(operationId, res);
        expect(res.body).toMatchObject(body);
      });

      it.each([
        ['utf-16le', 'utf16le'],
        ['utf-16', 'utf16le'],
        ['utf-32', 'utf8'],
      ] as const)(
        'answers 415 UNSUPPORTED_MEDIA_TYPE for charset=%s: JSON is exchanged as UTF-8',
        async (charset, encoding) => {
          const res = await expectRefused(
            () =>
              postBytes(
                Buffer.from(JSON.stringify(validBody()), encoding),
                `application/json; charset=${charset}`,
              ),
            415,
            'UNSUPPORTED_MEDIA_TYPE',
          );
          expect(res.body.message).toBe(
            'The request body must be JSON encoded as UTF-8 (charset=utf-8, or none).',
          );
        },
      );

      it('answers 2000 unknown fields with a short message that names five of them', async () => {
        // Short keys (0, 1, ..., 1jj in base 36), so that 2000 of them fit in 16 KiB.
        const unknown = Object.fromEntries(
          Array.from({ length: 2000 }, (_, i) => [i.toString(36), 0]),
        );
        const text = JSON.stringify({ ...validBody(), ...unknown });
        expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_BODY_BYTES);
        const res = await expectRefused(
          () => post().set('Content-Type', JSON_TYPE).send(text),
          400,
          'VALIDATION_FAILED',
        );
        expect(Buffer.byteLength(res.text)).toBeLessThan(1024);
        expect(res.body.message).toMatch(/^(property \w+ should not exist; ){5}and 1995 more$/);
      });
    },
  );

  // Headers every response carries, or must not: one request per kind of answer.
  /** One request per kind of answer: successes, 4xx of each kind, unknown routes, docs. */
  const answers: Answer[] = [
    {
      label: 'a list',
      status: 200,
      operationId: 'listOrders',
      send: () => t.http.get('/v1/store/orders').set('Authorization', t.auth),
    },
    {
      label: 'a creation',
      status: 201,
      operationId: 'createCategory',
      send: () =>
        t.http
          .post('/v1/categories')
          .set('Authorization', t.auth)
          .send({ name: `request-id-${++seq}` }),
    },
    {
      label: 'a bad path id',
      status: 400,
      operationId: 'getOrderById',
      send: () => t.http.get('/v1/store/orders/abc').set('Authorization', t.auth),
    },
    {
      label: 'no key',
      status: 401,
      operationId: 'listOrders',
      send: () => t.http.get('/v1/store/orders'),
    },
    {
      label: 'an absent pet',
      status: 404,
      operationId: 'getPetById',
      send: () => t.http.get('/v1/pets/987654321').set('Authorization', t.auth),
    },
    { label: 'an unknown route', status: 404, send: () => t.http.get('/v1/nope') },
    { label: 'an unknown version', status: 404, send: () => t.http.get('/v3/store/orders') },
    {
      label: 'a body over 16 KiB',
      status: 413,
      operationId: 'createCategory',
      send: () =>
        t.http
          .post('/v1/categories')
          .set('Authorization', t.auth)
          .send({ name: 'x'.repeat(MAX_BODY_BYTES) }),
    },
    {
      label: 'a text/plain body',
      status: 415,
      operationId: 'createCategory',
      send: () =>
        t.http
          .post('/v1/categories')
          .set('Authorization', t.auth)
          .set('Content-Type', 'text/plain')
          .send('x'),
    },
    { label: 'a path outside /v1', status: 404, send: () => t.http.get('/') },
    { label: 'the liveness probe', status: 200, send: () => t.http.get('/health/live') },
    { label: 'Swagger UI', status: 200, send: () => t.http.get('/docs') },
    { label: 'the OpenAPI document', status: 200, send: () => t.http.get('/docs-json') },
  ];

  describe('X-Request-Id', () => {
    /** Sends every kind of answer with the given X-Request-Id (none if undefined). */
    async function idsOfEveryAnswer(
      sent: string | undefined,
    ): Promise<Array<{ label: string; status: number; id: string | undefined }>> {
      const seen: Array<{ label: string; status: number; id: string | undefined }> = [];
      for (const { label, status, operationId, send } of answers) {
        const req = send();
        const res = await (sent === undefined ? req : req.set('X-Request-Id', sent));
        expect({ label, status: res.status }).toEqual({ label, status });
        if (operationId !== undefined) t.spec.check(operationId, res);
        seen.push({ label, status, id: res.headers['x-request-id'] });
      }
      return seen;
    }

    it('every response carries a generated one, different for each request', async () => {
      const seen = await idsOfEveryAnswer(undefined);
      for (const { label, id } of seen) {
        expect({ label, idIsSane: id !== undefined && SANE_REQUEST_ID.test(id) }).toEqual({
          label,
          idIsSane: true,
        });
      }
      expect(new Set(seen.map(({ id }) => id)).size).toBe(answers.length);
    });

    it.each([
      ['abc-123', 'abc-123'],
      ['req.42:retry_1', 'req.42:retry_1'],
      ['of 128 characters', 'z'.repeat(128)],
    ])('a sane caller id (%s) is echoed on every response', async (_label, sent) => {
      for (const { label, id } of await idsOfEveryAnswer(sent)) {
        expect({ label, id }).toEqual({ label, id: sent });
      }
    });

    // Every sample carries "z", which a generated (hexadecimal) id cannot contain, so a
    // trimmed or cleaned-up copy of the caller's value is told apart from a fresh id.
    it.each([
      ['129 characters', 'z'.repeat(129)],
      ['a space', 'zz 123'],
      ['a double quote', 'zz"123'],
      ['a single quote', "zz'123"],
      ['angle brackets', '<zz>'],
      ['a semicolon', 'zz;123'],
      ['nothing in it', ''],
    ])('a caller id with %s is replaced by a generated one', async (_label, sent) => {
      for (const { label, id } of await idsOfEveryAnswer(sent)) {
        expect({
          label,
          idIsSane: id !== undefined && SANE_REQUEST_ID.test(id),
          echoesCaller: id !== undefined && (id === sent || id.includes('z')),
        }).toEqual({ label, idIsSane: true, echoesCaller: false });
      }
    });
  });

  describe('X-Powered-By', () => {
    it('no response names the framework', async () => {
      for (const { label, status, operationId, send } of answers) {
        const res = await send();
        expect({ label, status: res.status, poweredBy: res.headers['x-powered-by'] }).toEqual({
          label,
          status,
          poweredBy: undefined,
        });
        if (operationId !== undefined) t.spec.check(operationId, res);
      }
    });
  });
});
