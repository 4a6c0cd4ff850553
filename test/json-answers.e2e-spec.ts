import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * How a JSON answer is framed, whichever way it is written (src/common/http/send-streamed-json.ts):
 * straight through Node for the common answer, through Express's res.send() for the rest.
 */
describe('JSON answers (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const JSON_TYPE = 'application/json; charset=utf-8';

  it.each(['/v1/categories', '/v1/store/orders', '/v2/categories'])(
    'answers GET %s with its JSON type and the byte length of its body',
    async (path) => {
      const res = await t.http.get(path).set('Authorization', t.auth).buffer(true).expect(200);
      expect(res.headers['content-type']).toBe(JSON_TYPE);
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
      expect(() => JSON.parse(res.text) as unknown).not.toThrow();
    },
  );

  it.each(['/v1/categories', '/v1/store/orders'])(
    'answers HEAD %s with the headers of its GET and no body',
    async (path) => {
      const get = await t.http.get(path).set('Authorization', t.auth).expect(200);
      const head = await t.http.head(path).set('Authorization', t.auth).expect(200);
      expect(head.headers['content-type']).toBe(JSON_TYPE);
      expect(head.headers['content-length']).toBe(get.headers['content-length']);
      expect(head.text ?? '').toBe('');
    },
  );

  it('answers a GET whose If-None-Match is * with 304 and no body, as Express does', async () => {
    const res = await t.http
      .get('/v1/categories')
      .set('Authorization', t.auth)
      .set('If-None-Match', '*')
      .expect(304);
    expect(res.text ?? '').toBe('');
  });

  it('answers a conditional GET that is not fresh in full', async () => {
    const res = await t.http
      .get('/v1/categories')
      .set('Authorization', t.auth)
      .set('If-Modified-Since', new Date().toUTCString())
      .expect(200);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.text));
  });

  it('frames a created resource and an error the same way', async () => {
    const created = await t.http
      .post('/v1/categories')
      .set('Authorization', t.auth)
      .send({ name: `Framed ${Date.now()}` })
      .expect(201);
    expect(created.headers['content-type']).toBe(JSON_TYPE);
    expect(Number(created.headers['content-length'])).toBe(Buffer.byteLength(created.text));

    const missing = await t.http
      .get('/v1/store/orders/9007199254740991')
      .set('Authorization', t.auth)
      .expect(404);
    expect(missing.headers['content-type']).toBe(JSON_TYPE);
    expect(Number(missing.headers['content-length'])).toBe(Buffer.byteLength(missing.text));
    expect(missing.body).toMatchObject({ code: 'ORDER_NOT_FOUND', status: 404 });
  });
});
