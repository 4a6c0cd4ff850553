import type { Response } from 'supertest';
import { loadConfig } from '../src/config/app-config.js';
import { CONFIG_DEFAULTS } from '../src/config/config-variables.js';
import { insertCategory, insertPet } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** RFC 9110 IMF-fixdate, the preferred HTTP-date form: `Sat, 01 May 2027 00:00:00 GMT`. */
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

interface DeprecationHeaders {
  deprecation: string;
  sunset: string;
  link: string;
}

/** What the documented defaults (no PETS_* or CHANGELOG_URL set) must produce. */
const DEFAULT_HEADERS: DeprecationHeaders = {
  deprecation: `@${Date.parse(CONFIG_DEFAULTS.PETS_DEPRECATED_AT) / 1000}`,
  sunset: new Date(CONFIG_DEFAULTS.PETS_SUNSET_AT).toUTCString(),
  link: `<${loadConfig({}).changelogUrl}>; rel="deprecation"; type="text/html"`,
};

/**
 * Deprecation (RFC 9745), Sunset (RFC 8594) and Link, well-formed and with the expected values.
 * `successor` is the v2 address the Link must also name (rel="successor-version", RFC 5829):
 * given exactly when the path names a pet id.
 */
function expectDeprecationHeaders(
  res: Response,
  expected: DeprecationHeaders,
  successor?: string,
): void {
  const { deprecation, sunset, link } = res.headers as Record<string, string | undefined>;
  expect({ status: res.status, deprecation, sunset, link }).toEqual({
    status: res.status,
    ...expected,
    link:
      successor === undefined
        ? expected.link
        : `${expected.link}, <${successor}>; rel="successor-version"`,
  });
  expect(deprecation).toMatch(/^@\d+$/);
  expect(sunset).toMatch(IMF_FIXDATE);
  // Absolute, or relative to the service (its own /changelog, the default): RFC 8288 allows both.
  expect(link).toMatch(
    /^<(https?:\/\/|\/)[^<>\s]+>; rel="deprecation"; type="text\/html"(, <(https?:\/\/[^<>\s/]+)?\/v2\/pets\/[1-9][0-9]*>; rel="successor-version")?$/,
  );
  // RFC 9745 section 4: the sunset must not be earlier than the deprecation.
  expect(Date.parse(sunset!)).toBeGreaterThanOrEqual(Number(deprecation!.slice(1)) * 1000);
}

describe('pets (e2e)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe('GET /v1/pets/{petId} (getPetById, deprecated)', () => {
    it('reads a pet with its category', async () => {
      const categoryId = await insertCategory(t.db, 'Dog', 'Domestic dogs');
      const petId = await insertPet(t.db, { name: 'Rex', categoryId, status: 'available' });
      const res = await t.http.get(`/v1/pets/${petId}`).set('Authorization', t.auth).expect(200);
      t.spec.check('getPetById', res);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        id: petId,
        name: 'Rex',
        category: { id: categoryId, name: 'Dog' },
        status: 'available',
      });
      expectDeprecationHeaders(res, DEFAULT_HEADERS, `/v2/pets/${petId}`);
    });

    it('omits category when the pet has none', async () => {
      const petId = await insertPet(t.db, { name: 'Stray', categoryId: null });
      const res = await t.http.get(`/v1/pets/${petId}`).set('Authorization', t.auth).expect(200);
      t.spec.check('getPetById', res);
      expect(res.body).toEqual({ id: petId, name: 'Stray', status: 'available' });
      expect(res.body).not.toHaveProperty('category');
      expectDeprecationHeaders(res, DEFAULT_HEADERS, `/v2/pets/${petId}`);
    });

    it.each(['pending', 'sold'] as const)('reports a %s pet with that status', async (status) => {
      const petId = await insertPet(t.db, { name: `Pet ${status}`, status });
      const res = await t.http.get(`/v1/pets/${petId}`).set('Authorization', t.auth).expect(200);
      t.spec.check('getPetById', res);
      expect(res.body).toEqual({ id: petId, name: `Pet ${status}`, status });
    });

    it('answers a pet whose id is above 2^53 with its id digit for digit', async () => {
      const id = '9223372036854775806';
      await t.db.query(
        `INSERT INTO pets (id, name, status) OVERRIDING SYSTEM VALUE VALUES ($1, 'Last', 'sold')`,
        [id],
      );
      const res = await t.http.get(`/v1/pets/${id}`).set('Authorization', t.auth).expect(200);
      t.spec.check('getPetById', res);
      expect(res.text).toBe(`{"id":${id},"name":"Last","status":"sold"}`);
    });

    it.each(['123456789', '9007199254740993', '9223372036854775807'])(
      'answers 404 PET_NOT_FOUND for absent id %s, with the deprecation headers',
      async (id) => {
        const res = await t.http.get(`/v1/pets/${id}`).set('Authorization', t.auth).expect(404);
        t.spec.check('getPetById', res);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toEqual({
          code: 'PET_NOT_FOUND',
          message: `Pet ${id} does not exist.`,
          status: 404,
        });
        expectDeprecationHeaders(res, DEFAULT_HEADERS, `/v2/pets/${id}`);
      },
    );

    it.each([
      '0',
      '-1',
      '+1',
      '1.5',
      '1.0',
      '1e3',
      '0x10',
      'abc',
      '01',
      '%201',
      '9223372036854775808',
      '99999999999999999999',
    ])(
      'answers 400 VALIDATION_FAILED naming petId for the id %s, with the deprecation headers',
      async (id) => {
        const res = await t.http.get(`/v1/pets/${id}`).set('Authorization', t.auth).expect(400);
        t.spec.check('getPetById', res);
        expect(res.body).toEqual({
          code: 'VALIDATION_FAILED',
          message: expect.stringContaining('petId'),
          status: 400,
        });
        expectDeprecationHeaders(res, DEFAULT_HEADERS);
      },
    );

    it('answers 401 without an Authorization header, with the deprecation headers', async () => {
      const petId = await insertPet(t.db, { name: 'Hidden' });
      const res = await t.http.get(`/v1/pets/${petId}`).expect(401);
      t.spec.check('getPetById', res);
      expect(res.body).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String), status: 401 });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="petstore"');
      expectDeprecationHeaders(res, DEFAULT_HEADERS, `/v2/pets/${petId}`);
    });

    it('answers 401 for an unknown key, with the deprecation headers', async () => {
      const res = await t.http
        .get('/v1/pets/1')
        .set('Authorization', 'Bearer psk_thisKeyWasNeverIssuedToAnyone00')
        .expect(401);
      t.spec.check('getPetById', res);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expectDeprecationHeaders(res, DEFAULT_HEADERS, '/v2/pets/1');
    });

    it('answers 401 before looking at a malformed id, with the deprecation headers', async () => {
      const res = await t.http.get('/v1/pets/abc').expect(401);
      t.spec.check('getPetById', res);
      expect(res.body.code).toBe('UNAUTHORIZED');
      expectDeprecationHeaders(res, DEFAULT_HEADERS);
    });
  });

  describe('configured deprecation', () => {
    let configured: TestApp;

    beforeAll(async () => {
      configured = await createTestApp({
        petsDeprecatedAt: new Date('2030-01-15T12:30:45Z'),
        petsSunsetAt: new Date('2031-06-30T08:00:00Z'),
        changelogUrl: 'https://docs.example.test/changelog#pets-v1',
      });
    });
    afterAll(() => configured.close());

    const configuredHeaders: DeprecationHeaders = {
      deprecation: '@1894710645',
      sunset: 'Mon, 30 Jun 2031 08:00:00 GMT',
      link: '<https://docs.example.test/changelog#pets-v1>; rel="deprecation"; type="text/html"',
    };

    it('carries the configured dates and changelog on a 200', async () => {
      const petId = await insertPet(configured.db, { name: 'Configured' });
      const res = await configured.http
        .get(`/v1/pets/${petId}`)
        .set('Authorization', configured.auth)
        .expect(200);
      configured.spec.check('getPetById', res);
      expectDeprecationHeaders(res, configuredHeaders, `/v2/pets/${petId}`);
    });

    it('carries the configured dates and changelog on 400, 401 and 404 too', async () => {
      const badId = await configured.http.get('/v1/pets/0').set('Authorization', configured.auth);
      const noKey = await configured.http.get('/v1/pets/1');
      const absent = await configured.http
        .get('/v1/pets/424242')
        .set('Authorization', configured.auth);
      expect([badId.status, noKey.status, absent.status]).toEqual([400, 401, 404]);
      for (const [res, successor] of [
        [badId, undefined],
        [noKey, '/v2/pets/1'],
        [absent, '/v2/pets/424242'],
      ] as const) {
        configured.spec.check('getPetById', res);
        expectDeprecationHeaders(res, configuredHeaders, successor);
      }
    });
  });

  describe('the successor in v2 (Link rel="successor-version", RFC 5829)', () => {
    it('names GET /v2/pets/{petId}, which answers the same pet without deprecation headers', async () => {
      const categoryId = await insertCategory(t.db, 'Successor', null);
      const petId = await insertPet(t.db, { name: 'Heir', categoryId, status: 'pending' });
      const v1 = await t.http.get(`/v1/pets/${petId}`).set('Authorization', t.auth).expect(200);
      const successor = /<([^>]+)>; rel="successor-version"/.exec(v1.headers.link)?.[1];
      expect(successor).toBe(`/v2/pets/${petId}`);
      const v2 = await t.http.get(successor!).set('Authorization', t.auth).expect(200);
      t.specV2.check('getPet', v2);
      expect(v2.body).toEqual(v1.body);
      for (const name of ['deprecation', 'sunset', 'link'])
        expect(v2.headers).not.toHaveProperty(name);
    });

    it('names the id as the path decodes it (percent-encoded digits)', async () => {
      const petId = await insertPet(t.db, { name: 'Encoded' });
      const encoded = [...String(petId)].map((digit) => `%3${digit}`).join('');
      const res = await t.http.get(`/v1/pets/${encoded}`).set('Authorization', t.auth).expect(200);
      expectDeprecationHeaders(res, DEFAULT_HEADERS, `/v2/pets/${petId}`);
    });

    it('is absolute under PUBLIC_BASE_URL (without its version), like the changelog link', async () => {
      const configured = await createTestApp({ publicBaseUrl: 'https://api.example.test/v1/' });
      try {
        const petId = await insertPet(configured.db, { name: 'Public' });
        const res = await configured.http
          .get(`/v1/pets/${petId}`)
          .set('Authorization', configured.auth)
          .expect(200);
        configured.spec.check('getPetById', res);
        expect(res.headers.link).toBe(
          `${DEFAULT_HEADERS.link}, <https://api.example.test/v2/pets/${petId}>; rel="successor-version"`,
        );
      } finally {
        await configured.close();
      }
    });
  });

  describe('other operations', () => {
    it('do not carry the deprecation headers', async () => {
      const res = await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
      expect(res.headers).not.toHaveProperty('deprecation');
      expect(res.headers).not.toHaveProperty('sunset');
    });
  });
});
