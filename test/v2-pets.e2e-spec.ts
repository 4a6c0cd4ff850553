import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { seedDemoData } from '../src/database/demo-seed.js';
import { expectErrorResponse } from './support/http-assertions.js';
import { walkPages } from './support/pages.js';
import { insertCategory, insertPet } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

interface Pet {
  id: number;
  name: string;
  category?: { id: number; name: string };
  status: 'available' | 'pending' | 'sold';
}
const STATUSES = ['available', 'pending', 'sold'] as const;

/**
 * v2's pets (docs/api.md): listPets, paged and filtered with the rules of the other v2 lists
 * (Pages), and getPet, the successor of v1's deprecated getPetById, on real PostgreSQL.
 */
describe('v2 pets (e2e)', () => {
  let t: TestApp;
  let dog: number;
  let cat: number;
  let rabbit: number;
  /** Every pet of the fixture, as getPet answers each, by id. */
  let all: Pet[];

  async function get(path: string): Promise<Response> {
    const res = await t.http.get(path).set('Authorization', t.auth);
    t.specV2.check(
      path.startsWith('/v2/pets?') || path === '/v2/pets' ? 'listPets' : 'getPet',
      res,
    );
    return res;
  }

  /** Follows nextCursor (through the Link header, as a client can) to the end. */
  const walk = (first: string): Promise<Pet[]> => walkPages<Pet>(get, first, { maxPages: 100 });

  beforeAll(async () => {
    t = await createTestApp();
    dog = await insertCategory(t.db, 'dog');
    cat = await insertCategory(t.db, 'cat');
    rabbit = await insertCategory(t.db, 'rabbit');
    const categories = [dog, cat, rabbit, null];
    for (let i = 0; i < 30; i++) {
      await insertPet(t.db, {
        name: `Pet ${i}`,
        // Every fourth pet has no category.
        categoryId: categories[i % 4],
        status: STATUSES[i % 3 === 0 ? 0 : i % 5 === 0 ? 2 : 1],
      });
    }
    // Operators store pets with any int64 id: one beyond 2^53 is listed digit for digit.
    await t.db.query(
      `INSERT INTO pets (id, name, category_id, status) OVERRIDING SYSTEM VALUE
       VALUES (9007199254740993, 'Far', $1, 'available')`,
      [dog],
    );
    const { rows } = await t.db.query<{ id: string }>('SELECT id FROM pets ORDER BY id');
    all = [];
    for (const { id } of rows) {
      if (id === '9007199254740993') continue;
      all.push((await get(`/v2/pets/${id}`)).body as Pet);
    }
  });
  afterAll(() => t.close());

  /** The fixture's pets below 2^53 that `keep` keeps (the far one is checked on its own). */
  const near = (keep: (pet: Pet) => boolean = () => true): Pet[] => all.filter(keep);

  describe('GET /v2/pets/{petId} (getPet)', () => {
    it('answers the pet as v1 does, with its category, and no deprecation headers', async () => {
      const petId = await insertPet(t.db, { name: 'Rex', categoryId: dog, status: 'sold' });
      const res = await get(`/v2/pets/${petId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: petId,
        name: 'Rex',
        category: { id: dog, name: 'dog' },
        status: 'sold',
      });
      for (const name of ['deprecation', 'sunset', 'link'])
        expect(res.headers).not.toHaveProperty(name);
      const v1 = await t.http.get(`/v1/pets/${petId}`).set('Authorization', t.auth).expect(200);
      expect(v1.text).toBe(res.text);
      await t.db.query('DELETE FROM pets WHERE id = $1', [petId]);
    });

    it('omits category when the pet has none', async () => {
      const pet = near((p) => p.category === undefined)[0];
      const res = await get(`/v2/pets/${pet.id}`);
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('category');
    });

    it('answers a pet whose id is above 2^53 with its id digit for digit', async () => {
      const res = await get('/v2/pets/9007199254740993');
      expect(res.status).toBe(200);
      expect(res.text).toBe(
        `{"id":9007199254740993,"name":"Far","category":{"id":${dog},"name":"dog"},"status":"available"}`,
      );
    });

    it.each(['123456789', '9007199254740992', '9223372036854775807'])(
      'answers 404 PET_NOT_FOUND with the Error body for the absent id %s, without deprecation headers',
      async (id) => {
        const res = await get(`/v2/pets/${id}`);
        expectErrorResponse(res, 404, 'PET_NOT_FOUND');
        expect(res.body.message).toBe(`Pet ${id} does not exist.`);
        expect(res.headers).not.toHaveProperty('deprecation');
      },
    );

    it.each(['0', '-1', '+1', '1.5', '1e3', '0x10', 'abc', '01', '%201', '9223372036854775808'])(
      'answers 400 VALIDATION_FAILED naming petId for the path id %s',
      async (id) => {
        const res = await get(`/v2/pets/${id}`);
        expectErrorResponse(res, 400, 'VALIDATION_FAILED');
        expect(res.body.message).toContain('petId');
      },
    );

    it('answers 401 without a valid key, before looking at the id', async () => {
      for (const path of ['/v2/pets/1', '/v2/pets/abc']) {
        const res = await t.http.get(path);
        expectErrorResponse(res, 401, 'UNAUTHORIZED');
        t.specV2.check('getPet', res);
        expect(res.headers).not.toHaveProperty('deprecation');
      }
    });
  });

  describe('GET /v2/pets (listPets): pages', () => {
    it.each([1, 2, 7, 31, 100])('returns every pet once, by id, with limit %i', async (limit) => {
      const items = await walk(`/v2/pets?limit=${limit}`);
      expect(items.slice(0, -1)).toEqual(near());
      expect(items.at(-1)?.name).toBe('Far');
    });

    it('walks by id descending with order=desc', async () => {
      const items = await walk('/v2/pets?order=desc&limit=4');
      expect(items.slice(1)).toEqual([...near()].reverse());
      expect(items[0].name).toBe('Far');
    });

    it('writes an id above 2^53 digit for digit in a page, as getPet does', async () => {
      const res = await get(`/v2/pets?status=available&categoryId=${dog}&order=desc&limit=1`);
      expect(res.status).toBe(200);
      const one = await get('/v2/pets/9007199254740993');
      const prefix = `{"data":[${one.text}],`;
      expect(res.text.slice(0, prefix.length)).toBe(prefix);
    });

    it('answers 100 by default, and an empty page with nextCursor null when nothing matches', async () => {
      const res = await get('/v2/pets');
      expect(res.body.data).toHaveLength(31);
      expect(res.body.nextCursor).toBeNull();
      expect(res.headers.link).toBeUndefined();
      const none = await get('/v2/pets?categoryId=9223372036854775807');
      expect({ status: none.status, body: none.body, link: none.headers.link }).toEqual({
        status: 200,
        body: { data: [], nextCursor: null },
        link: undefined,
      });
    });

    it('repeats the path and the parameters as the client wrote them in Link', async () => {
      const res = await get(`/v2/pets?status=pending,available&limit=2&categoryId=${cat}`);
      expect(res.headers.link).toBe(
        `</v2/pets?status=pending,available&limit=2&categoryId=${cat}&cursor=${res.body.nextCursor}>; rel="next"`,
      );
    });

    it('sends Link as an absolute URL under PUBLIC_BASE_URL', async () => {
      const configured = await createTestApp({ publicBaseUrl: 'https://api.example.test/v1' });
      try {
        for (let i = 0; i < 2; i++) await insertPet(configured.db, { name: `Public ${i}` });
        const res = await configured.http
          .get('/v2/pets?limit=1')
          .set('Authorization', configured.auth)
          .expect(200);
        expect(res.headers.link).toBe(
          `<https://api.example.test/v2/pets?limit=1&cursor=${res.body.nextCursor}>; rel="next"`,
        );
      } finally {
        await configured.close();
      }
    });
  });

  describe('GET /v2/pets (listPets): filters', () => {
    const walkAll = (query: string) => walk(`/v2/pets?limit=4&${query}`);
    const far = (keep: (pet: { status: string; category?: { id: number } }) => boolean) =>
      keep({ status: 'available', category: { id: dog } });

    it.each([
      ['available'],
      ['pending'],
      ['sold'],
      ['available,sold'],
      ['sold,pending'],
      ['pending,sold,available'],
    ])('status=%s returns exactly the pets in those statuses', async (status) => {
      const wanted = status.split(',');
      const keep = (pet: { status: string }) => wanted.includes(pet.status);
      const items = await walkAll(`status=${status}`);
      expect(items.filter((pet) => pet.name !== 'Far')).toEqual(near(keep));
      expect(items.some((pet) => pet.name === 'Far')).toBe(far(keep));
      expect(items.length).toBeGreaterThan(0);
    });

    it('status with order=desc merges the statuses by id descending', async () => {
      const items = await walkAll('status=sold,pending&order=desc');
      expect(items).toEqual(near((pet) => pet.status !== 'available').reverse());
    });

    it('categoryId returns exactly that category’s pets', async () => {
      for (const category of [cat, rabbit]) {
        await expect(walkAll(`categoryId=${category}`)).resolves.toEqual(
          near((pet) => pet.category?.id === category),
        );
      }
      const dogs = await walkAll(`categoryId=${dog}`);
      expect(dogs.slice(0, -1)).toEqual(near((pet) => pet.category?.id === dog));
    });

    it('combines status and categoryId (AND), in either order', async () => {
      const keep = (pet: Pet) => pet.category?.id === cat && pet.status !== 'sold';
      const asc = await walkAll(`categoryId=${cat}&status=available,pending`);
      expect(asc).toEqual(near(keep));
      expect(asc.length).toBeGreaterThan(2);
      await expect(
        walkAll(`status=pending,available&categoryId=${cat}&order=desc`),
      ).resolves.toEqual(near(keep).reverse());
    });

    it('a cursor fits the same query written differently, and no other', async () => {
      const first = await get(`/v2/pets?limit=2&status=available,pending&categoryId=${cat}`);
      const cursor = first.body.nextCursor as string;
      const same = await get(
        `/v2/pets?order=asc&categoryId=%3${String(cat)}&status=pending,available&cursor=${cursor}`,
      );
      expect(same.status).toBe(200);
      for (const other of [
        `status=available&categoryId=${cat}`,
        `status=available,pending&categoryId=${dog}`,
        `status=available,pending`,
        `categoryId=${cat}`,
        `status=available,pending&categoryId=${cat}&order=desc`,
      ]) {
        const res = await get(`/v2/pets?${other}&cursor=${cursor}`);
        expectErrorResponse(res, 400, 'VALIDATION_FAILED');
        expect(res.body.message).toContain('cursor');
      }
    });

    it('refuses a cursor of another list, and its cursors are refused by the others', async () => {
      const pets = (await get('/v2/pets?limit=1')).body.nextCursor as string;
      const orders = await t.http
        .get(`/v2/store/orders?cursor=${pets}`)
        .set('Authorization', t.auth);
      expectErrorResponse(orders, 400, 'VALIDATION_FAILED');
      const categories = (await t.http.get('/v2/categories?limit=1').set('Authorization', t.auth))
        .body.nextCursor as string;
      const res = await get(`/v2/pets?cursor=${categories}`);
      expectErrorResponse(res, 400, 'VALIDATION_FAILED');
      expect(res.body.message).toContain('cursor');
    });
  });

  describe('GET /v2/pets (listPets): bad parameters are 400 VALIDATION_FAILED naming the parameter', () => {
    it.each([
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=01', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=%2B5', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=', 'limit'],
      ['limit', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['order=ASC', 'order'],
      ['order=random', 'order'],
      ['order=', 'order'],
      ['order=asc&order=asc', 'order'],
      ['status=adopted', 'status'],
      ['status=Available', 'status'],
      ['status=pending,', 'status'],
      ['status=,pending', 'status'],
      ['status=pending,,sold', 'status'],
      ['status=sold,sold', 'status'],
      ['status=available%20', 'status'],
      ['status=available&status=sold', 'status'],
      ['status=shipped', 'status'],
      ['status=', 'status'],
      ['categoryId=0', 'categoryId'],
      ['categoryId=-3', 'categoryId'],
      ['categoryId=007', 'categoryId'],
      ['categoryId=1.0', 'categoryId'],
      ['categoryId=0x10', 'categoryId'],
      ['categoryId=%2B1', 'categoryId'],
      ['categoryId=9223372036854775808', 'categoryId'],
      ['categoryId=abc', 'categoryId'],
      ['categoryId=', 'categoryId'],
      ['categoryId=1&categoryId=1', 'categoryId'],
      ['cursor=', 'cursor'],
      ['cursor=abc', 'cursor'],
      ['cursor=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'cursor'],
      ['petId=1', 'petId'],
      ['category=1', 'category'],
      ['shipDateFrom=2026-03-01T00:00:00Z', 'shipDateFrom'],
      ['name=Rex', 'name'],
      ['status%5B%5D=sold', 'status[]'],
      ['__proto__=1', '__proto__'],
    ])('GET /v2/pets?%s (names %s)', async (query, named) => {
      const res = await get(`/v2/pets?${query}`);
      expectErrorResponse(res, 400, 'VALIDATION_FAILED');
      expect(res.body.message).toContain(named);
      expect(res.headers.link).toBeUndefined();
    });

    it('checks the API key before the parameters', async () => {
      for (const key of [undefined, 'Bearer psk_thisKeyWasNeverIssuedToAnyone00']) {
        const req = t.http.get('/v2/pets?limit=0');
        const res = await (key === undefined ? req : req.set('Authorization', key));
        expectErrorResponse(res, 401, 'UNAUTHORIZED');
        t.specV2.check('listPets', res);
      }
    });
  });

  describe('the demo data', () => {
    it('makes a page of pets over the three categories and every status, v1 ids 1 to 4 unchanged', async () => {
      const demo = await createTestApp();
      try {
        await expect(seedDemoData(demo.app.get(DataSource).manager)).resolves.toBe(true);
        const res = await demo.http
          .get('/v2/pets?limit=1000')
          .set('Authorization', demo.auth)
          .expect(200);
        const pets = res.body.data as Pet[];
        expect(pets.length).toBeGreaterThanOrEqual(12);
        expect(pets.slice(0, 4).map(({ id, name, status }) => [id, name, status])).toEqual([
          [1, 'Rex', 'available'],
          [2, 'Luna', 'available'],
          [3, 'Thumper', 'pending'],
          [4, 'Bella', 'sold'],
        ]);
        expect(new Set(pets.map((pet) => pet.category?.name))).toEqual(
          new Set(['dog', 'cat', 'rabbit']),
        );
        for (const status of STATUSES) {
          expect(pets.filter((pet) => pet.status === status).length).toBeGreaterThan(2);
        }
        const available = await demo.http
          .get('/v2/pets?status=available')
          .set('Authorization', demo.auth)
          .expect(200);
        expect(available.body.data.length).toBeGreaterThanOrEqual(10);
      } finally {
        await demo.close();
      }
    });
  });
});
