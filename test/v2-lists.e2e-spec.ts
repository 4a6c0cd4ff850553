import type { Response } from 'supertest';
import { expectErrorResponse } from './support/http-assertions.js';
import { NEXT_LINK, walkPages, type Page } from './support/pages.js';
import { insertCategory, insertOrder, insertPet } from './support/factories.js';
import { createTestApp, startAppInstance, type TestApp } from './support/test-app.js';

interface Order {
  id: number;
  petId: number;
  quantity: number;
  shipDate?: string;
  complete: boolean;
  status: 'pending' | 'shipped' | 'cancelled';
}

/**
 * v2's paged lists (docs/api.md, Pages) on real PostgreSQL: walks that return exactly what one
 * unpaginated query would, under concurrent writes too; each filter's boundaries; every bad
 * parameter; cursors that were altered or reused elsewhere.
 */
describe('v2 paged lists (e2e)', () => {
  let t: TestApp;
  let petA: number;
  let petB: number;
  /** Every order of the fixture, as v1 lists them (by id). */
  let all: Order[];

  const T0 = Date.parse('2026-03-01T00:00:00.000Z');
  const hours = (n: number) => new Date(T0 + n * 3_600_000);

  async function get(path: string): Promise<Response> {
    const res = await t.http.get(path).set('Authorization', t.auth);
    t.specV2.check(path.startsWith('/v2/categories') ? 'listCategories' : 'listOrders', res);
    return res;
  }

  /** Follows nextCursor (through the Link header, as a client can) to the end. */
  const walk = <T>(first: string, between?: (page: number) => Promise<void>): Promise<T[]> =>
    walkPages<T>(get, first, { maxPages: 500, between });

  async function listV1(): Promise<Order[]> {
    return (await t.http.get('/v1/store/orders').set('Authorization', t.auth).expect(200))
      .body as Order[];
  }

  beforeAll(async () => {
    t = await createTestApp();
    petA = await insertPet(t.db, { name: 'Alpha' });
    petB = await insertPet(t.db, { name: 'Beta' });
    const statuses = ['pending', 'shipped', 'cancelled'] as const;
    for (let i = 0; i < 30; i++) {
      await insertOrder(t.db, {
        petId: i % 3 === 0 ? petB : petA,
        quantity: (i % 5) + 1,
        status: statuses[i % 3 === 1 ? 1 : i % 7 === 0 ? 2 : 0],
        // Every fourth order has no ship date; the others spread over 30 hours.
        shipDate: i % 4 === 3 ? null : hours(i),
      });
    }
    all = await listV1();
  });
  afterAll(() => t.close());

  describe('walking the pages', () => {
    it.each([1, 2, 7, 30, 100])(
      'returns every order once, in order, with limit %i (and no empty last page)',
      async (limit) => {
        const pages: number[] = [];
        const items = await walk<Order>(`/v2/store/orders?limit=${limit}`, (page) => {
          pages.push(page);
          return Promise.resolve();
        });
        expect(items).toEqual(all);
        expect(pages).toHaveLength(Math.ceil(all.length / limit) - 1);
      },
    );

    it('walks by id descending with order=desc', async () => {
      await expect(walk<Order>('/v2/store/orders?order=desc&limit=4')).resolves.toEqual(
        [...all].reverse(),
      );
    });

    it('answers 100 by default', async () => {
      const many = await createTestApp();
      try {
        const pet = await insertPet(many.db);
        await many.db.query(
          `INSERT INTO orders (pet_id, quantity) SELECT $1, 1 FROM generate_series(1, 101)`,
          [pet],
        );
        const res = await many.http.get('/v2/store/orders').set('Authorization', many.auth);
        expect(res.status).toBe(200);
        expect(res.body.data).toHaveLength(100);
        expect(res.body.nextCursor).toEqual(expect.any(String));
        const last = await many.http
          .get(`/v2/store/orders?cursor=${res.body.nextCursor}`)
          .set('Authorization', many.auth);
        expect(last.body.data).toHaveLength(1);
        expect(last.body.nextCursor).toBeNull();
      } finally {
        await many.close();
      }
    });

    it('answers an empty page with nextCursor null when nothing matches', async () => {
      const res = await get('/v2/store/orders?petId=9007199254740991');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ data: [], nextCursor: null });
      expect(res.headers.link).toBeUndefined();
    });

    it('lets the limit change from page to page', async () => {
      const first = await get('/v2/store/orders?limit=3&status=pending');
      const second = await get(
        `/v2/store/orders?status=pending&limit=5&cursor=${first.body.nextCursor}`,
      );
      expect(second.status).toBe(200);
      const pending = all.filter((order) => order.status === 'pending');
      expect([...first.body.data, ...second.body.data]).toEqual(pending.slice(0, 8));
    });

    it('repeats the path and the parameters as the client wrote them in Link', async () => {
      const res = await get(
        '/v2/store/orders?status=shipped,pending&limit=2&shipDateFrom=2026-03-01T01:00:00%2B01:00',
      );
      expect(res.headers.link).toBe(
        `</v2/store/orders?status=shipped,pending&limit=2&shipDateFrom=2026-03-01T01:00:00%2B01:00&cursor=${res.body.nextCursor}>; rel="next"`,
      );
    });

    it('leaves the cursor out of Link however its name is written, so Link names one cursor', async () => {
      const first = await get('/v2/store/orders?limit=2');
      // %63ursor is cursor, percent-encoded.
      const res = await get(`/v2/store/orders?limit=2&%63ursor=${first.body.nextCursor}`);
      expect(res.status).toBe(200);
      expect(res.headers.link).toBe(
        `</v2/store/orders?limit=2&cursor=${res.body.nextCursor}>; rel="next"`,
      );
      const next = await get(NEXT_LINK.exec(res.headers.link)![1]);
      expect({ status: next.status, data: next.body.data }).toEqual({
        status: 200,
        data: all.slice(4, 6),
      });
    });

    it.each(['asc', 'desc'])(
      'gives no item twice and skips none while orders are placed and cancelled between pages (%s)',
      async (order) => {
        const own = await createTestApp();
        try {
          const pet = await insertPet(own.db);
          const ids: number[] = [];
          for (let i = 0; i < 20; i++) ids.push(await insertOrder(own.db, { petId: pet }));
          const cancelled = new Set<number>();
          const seen: number[] = [];
          let path: string | undefined = `/v2/store/orders?status=pending&limit=3&order=${order}`;
          for (let page = 0; path !== undefined; page++) {
            const res: Response = await own.http.get(path).set('Authorization', own.auth);
            expect(res.status).toBe(200);
            own.specV2.check('listOrders', res);
            seen.push(...(res.body as Page<Order>).data.map((item) => item.id));
            path = NEXT_LINK.exec(res.headers.link ?? '')?.[1];
            // Between pages: a new order, an unread one cancelled, a read one cancelled.
            await insertOrder(own.db, { petId: pet });
            const unread = ids.filter((id) => !seen.includes(id) && !cancelled.has(id));
            const victim = order === 'asc' ? unread.at(-1) : unread[0];
            for (const id of [victim, seen[0]]) {
              if (id === undefined) continue;
              cancelled.add(id);
              await own.db.query(`UPDATE orders SET status = 'cancelled' WHERE id = $1`, [id]);
            }
          }
          expect(new Set(seen).size).toBe(seen.length);
          const sorted = [...seen].sort((a, b) => a - b);
          expect(seen).toEqual(order === 'asc' ? sorted : sorted.reverse());
          // Every order that stayed pending for the whole walk was returned.
          for (const id of ids.filter((id) => !cancelled.has(id))) expect(seen).toContain(id);
        } finally {
          await own.close();
        }
      },
    );

    it('keeps every cursor valid on another instance and after a restart (shared key)', async () => {
      const first = await get('/v2/store/orders?limit=5&status=pending,cancelled');
      const other = await startAppInstance(t.databaseUrl);
      try {
        const res = await other.http
          .get(`/v2/store/orders?limit=5&status=pending,cancelled&cursor=${first.body.nextCursor}`)
          .set('Authorization', t.auth)
          .expect(200);
        const matching = all.filter((order) => order.status !== 'shipped');
        expect(res.body.data).toEqual(matching.slice(5, 10));
      } finally {
        await other.close();
      }
    });
  });

  describe('filters', () => {
    const walkAll = (query: string) => walk<Order>(`/v2/store/orders?limit=4&${query}`);

    it.each([
      ['pending'],
      ['shipped'],
      ['cancelled'],
      ['pending,shipped'],
      ['cancelled,pending'],
      ['shipped,cancelled,pending'],
    ])('status=%s returns exactly the orders in those statuses', async (status) => {
      const wanted = status.split(',');
      await expect(walkAll(`status=${status}`)).resolves.toEqual(
        all.filter((order) => wanted.includes(order.status)),
      );
    });

    it('status with order=desc merges the statuses by id descending', async () => {
      await expect(walkAll('status=pending,cancelled&order=desc')).resolves.toEqual(
        all.filter((order) => order.status !== 'shipped').reverse(),
      );
    });

    it('petId returns exactly that pet’s orders, alone and with a status', async () => {
      await expect(walkAll(`petId=${petB}`)).resolves.toEqual(
        all.filter((order) => order.petId === petB),
      );
      await expect(walkAll(`petId=${petA}&status=shipped`)).resolves.toEqual(
        all.filter((order) => order.petId === petA && order.status === 'shipped'),
      );
    });

    it('shipDateFrom is inclusive and shipDateTo exclusive, to the microsecond', async () => {
      // hours(4) and hours(10) are ship dates of the fixture.
      const from = hours(4).toISOString();
      const to = hours(10).toISOString();
      const between = (a: number, b: number) =>
        all.filter(
          (order) =>
            order.shipDate !== undefined &&
            Date.parse(order.shipDate) >= a &&
            Date.parse(order.shipDate) < b,
        );
      const inRange = await walkAll(`shipDateFrom=${from}&shipDateTo=${to}`);
      expect(inRange).toEqual(between(hours(4).getTime(), hours(10).getTime()));
      expect(inRange.map((order) => order.shipDate)).toContain(from);
      expect(inRange.map((order) => order.shipDate)).not.toContain(to);
      // One microsecond later the first one is out; one later the last one is in.
      const justAfter = await walkAll(
        `shipDateFrom=${from.replace('Z', '001Z')}&shipDateTo=${to.replace('.000Z', '.000001Z')}`,
      );
      expect(justAfter).toEqual(between(hours(4).getTime() + 1, hours(10).getTime() + 1));
    });

    it('reads offsets as the instants they name', async () => {
      // 2026-03-01T05:00:00+05:00 is hours(0); 2026-02-28T23:00:00-03:00 is hours(2).
      await expect(
        walkAll('shipDateFrom=2026-03-01T05:00:00%2B05:00&shipDateTo=2026-02-28T23:00:00-03:00'),
      ).resolves.toEqual(
        all.filter(
          (order) =>
            order.shipDate !== undefined &&
            Date.parse(order.shipDate) >= hours(0).getTime() &&
            Date.parse(order.shipDate) < hours(2).getTime(),
        ),
      );
    });

    it('never matches an order without a ship date, even with an open range', async () => {
      const from = await walkAll('shipDateFrom=0001-01-01T00:00:00Z');
      expect(from).toEqual(all.filter((order) => order.shipDate !== undefined));
      const to = await walkAll('shipDateTo=9999-12-31T23:59:59.999999Z');
      expect(to).toEqual(from);
    });

    it('takes a year 0000 as written when its offset makes it 0001 in UTC (the range is in UTC)', async () => {
      // 0000-12-31T23:30:00-01:00 is 0001-01-01T00:30:00Z: every ship date of the fixture is later.
      await expect(walkAll('shipDateFrom=0000-12-31T23:30:00-01:00')).resolves.toEqual(
        all.filter((order) => order.shipDate !== undefined),
      );
      const before = await get('/v2/store/orders?shipDateTo=0000-12-31T23:30:00-01:00');
      expect({ status: before.status, body: before.body }).toEqual({
        status: 200,
        body: { data: [], nextCursor: null },
      });
    });

    it('combines every filter (AND)', async () => {
      const res = await walkAll(
        `petId=${petA}&status=pending,shipped&shipDateFrom=${hours(2).toISOString()}&shipDateTo=${hours(20).toISOString()}&order=desc`,
      );
      expect(res).toEqual(
        all
          .filter(
            (order) =>
              order.petId === petA &&
              order.status !== 'cancelled' &&
              order.shipDate !== undefined &&
              Date.parse(order.shipDate) >= hours(2).getTime() &&
              Date.parse(order.shipDate) < hours(20).getTime(),
          )
          .reverse(),
      );
      expect(res.length).toBeGreaterThan(2);
    });
  });

  describe('bad parameters are 400 VALIDATION_FAILED naming the parameter', () => {
    const ORDER_CASES: Array<[query: string, named: string]> = [
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=01', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=1e2', 'limit'],
      ['limit=%2B5', 'limit'],
      ['limit=%205', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=', 'limit'],
      ['limit', 'limit'],
      ['limit=1&limit=2', 'limit'],
      ['order=ASC', 'order'],
      ['order=random', 'order'],
      ['order=', 'order'],
      ['order=asc&order=asc', 'order'],
      ['status=done', 'status'],
      ['status=Pending', 'status'],
      ['status=pending,', 'status'],
      ['status=,pending', 'status'],
      ['status=pending,,shipped', 'status'],
      ['status=pending,pending', 'status'],
      ['status=pending%20', 'status'],
      ['status=pending&status=shipped', 'status'],
      ['status=', 'status'],
      ['petId=0', 'petId'],
      ['petId=-3', 'petId'],
      ['petId=007', 'petId'],
      ['petId=1.0', 'petId'],
      ['petId=0x10', 'petId'],
      ['petId=9223372036854775808', 'petId'],
      ['petId=abc', 'petId'],
      ['petId=', 'petId'],
      ['shipDateFrom=2026-03-01', 'shipDateFrom'],
      ['shipDateFrom=2026-03-01T00:00:00', 'shipDateFrom'],
      ['shipDateFrom=2026-02-30T00:00:00Z', 'shipDateFrom'],
      ['shipDateFrom=2026-03-01T24:00:00Z', 'shipDateFrom'],
      ['shipDateFrom=2026-03-01T00:00:60Z', 'shipDateFrom'],
      ['shipDateFrom=2026-03-01T00:00:00%2B24:00', 'shipDateFrom'],
      ['shipDateFrom=2026-03-01T00:00:00.1234567Z', 'shipDateFrom'],
      ['shipDateFrom=2026-03-01t00:00:00z', 'shipDateFrom'],
      ['shipDateFrom=2026-03-01T00:00:00+01:00', 'shipDateFrom'],
      ['shipDateFrom=0000-12-31T23:00:00Z', 'shipDateFrom'],
      ['shipDateFrom=0000-12-31T23:30:00%2B01:00', 'shipDateFrom'],
      ['shipDateFrom=0001-01-01T00:30:00%2B01:00', 'shipDateFrom'],
      ['shipDateTo=9999-12-31T23:30:00-01:00', 'shipDateTo'],
      ['shipDateTo=10000-01-01T00:00:00Z', 'shipDateTo'],
      ['shipDateTo=now', 'shipDateTo'],
      ['shipDateTo=', 'shipDateTo'],
      ['shipDateFrom=2026-03-02T00:00:00Z&shipDateTo=2026-03-02T00:00:00Z', 'shipDateFrom'],
      ['shipDateFrom=2026-03-02T01:00:00%2B01:00&shipDateTo=2026-03-02T00:00:00Z', 'shipDateFrom'],
      ['shipDateFrom=2026-03-03T00:00:00Z&shipDateTo=2026-03-02T00:00:00Z', 'shipDateFrom'],
      ['cursor=', 'cursor'],
      ['cursor=abc', 'cursor'],
      ['cursor=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'cursor'],
      ['cursor=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%3D', 'cursor'],
      ['sort=id', 'sort'],
      ['Limit=10', 'Limit'],
      ['offset=10', 'offset'],
      ['page=2', 'page'],
      ['status%5B%5D=pending', 'status[]'],
      ['__proto__=1', '__proto__'],
      ['webhookId=1', 'webhookId'],
    ];

    it.each(ORDER_CASES)('GET /v2/store/orders?%s (names %s)', async (query, named) => {
      const res = await get(`/v2/store/orders?${query}`);
      expectErrorResponse(res, 400, 'VALIDATION_FAILED');
      expect(res.body.message).toContain(named);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['order=up', 'order'],
      ['cursor=abc', 'cursor'],
      ['status=pending', 'status'],
      ['petId=1', 'petId'],
      ['shipDateFrom=2026-03-01T00:00:00Z', 'shipDateFrom'],
      ['order=asc&order=desc', 'order'],
      ['limit=', 'limit'],
    ])('GET /v2/categories?%s (names %s)', async (query, named) => {
      const res = await get(`/v2/categories?${query}`);
      expectErrorResponse(res, 400, 'VALIDATION_FAILED');
      expect(res.body.message).toContain(named);
    });

    it('checks the API key before the parameters', async () => {
      const res = await t.http.get('/v2/store/orders?limit=0');
      expectErrorResponse(res, 401, 'UNAUTHORIZED');
      t.specV2.check('listOrders', res);
    });
  });

  describe('cursors', () => {
    async function firstCursor(query: string): Promise<string> {
      const res = await get(`/v2/store/orders?limit=2&${query}`);
      expect(res.body.nextCursor).toEqual(expect.any(String));
      return res.body.nextCursor as string;
    }
    const refused = async (path: string) => {
      const res = await get(path);
      expectErrorResponse(res, 400, 'VALIDATION_FAILED');
      expect(res.body.message).toContain('cursor');
    };

    it('are opaque strings of 32 URL-safe characters', async () => {
      expect(await firstCursor('')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    });

    it('refuse any altered character', async () => {
      const cursor = await firstCursor('status=pending');
      for (let i = 0; i < cursor.length; i++) {
        const altered = `${cursor.slice(0, i)}${cursor[i] === 'A' ? 'B' : 'A'}${cursor.slice(i + 1)}`;
        await refused(`/v2/store/orders?status=pending&cursor=${altered}`);
      }
    });

    it('refuse a cursor whose id was changed to skip ahead, even re-encoded', async () => {
      const cursor = await firstCursor('');
      const bytes = Buffer.from(cursor, 'base64url');
      bytes.writeBigUInt64BE(bytes.readBigUInt64BE(0) + 10n, 0);
      await refused(`/v2/store/orders?cursor=${bytes.toString('base64url')}`);
    });

    it.each([
      ['status=pending', 'status=shipped'],
      ['status=pending', 'status=pending,shipped'],
      ['status=pending', ''],
      ['', 'status=pending'],
      ['petId=1', 'petId=2'],
      ['shipDateFrom=2026-03-01T00:00:00Z', 'shipDateFrom=2026-03-01T00:00:01Z'],
      ['shipDateFrom=2026-03-01T00:00:00Z', 'shipDateTo=2026-03-01T00:00:00Z'],
      ['order=asc', 'order=desc'],
      ['order=desc', ''],
    ])('issued for %s are refused with %s', async (issued, reused) => {
      const fixtureQuery = issued.replace('petId=1', `petId=${petA}`);
      const cursor = await firstCursor(fixtureQuery);
      const sep = reused === '' ? '' : '&';
      await refused(
        `/v2/store/orders?${reused.replace('petId=1', `petId=${petA}`)}${sep}cursor=${cursor}`,
      );
    });

    it('fit the same query written differently (status order, offset, default order)', async () => {
      const cursor = await firstCursor('status=pending,shipped&shipDateFrom=2026-03-01T00:00:00Z');
      const res = await get(
        `/v2/store/orders?order=asc&shipDateFrom=2026-03-01T01:00:00%2B01:00&status=shipped,pending&cursor=${cursor}`,
      );
      expect(res.status).toBe(200);
    });

    it('of one list are refused by the other', async () => {
      const orders = await firstCursor('');
      await refused(`/v2/categories?cursor=${orders}`);
      for (let i = 0; i < 3; i++) await insertCategory(t.db, `cursor-${i}`);
      const categories = (await get('/v2/categories?limit=1')).body.nextCursor as string;
      await refused(`/v2/store/orders?cursor=${categories}`);
    });
  });

  describe('GET /v2/categories', () => {
    it('walks every category by id, ascending and descending, with limit, cursor and order', async () => {
      for (let i = 0; i < 7; i++) await insertCategory(t.db, `walk-${i}`);
      const v1 = (await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200))
        .body as unknown[];
      await expect(walk('/v2/categories?limit=3')).resolves.toEqual(v1);
      await expect(walk('/v2/categories?order=desc&limit=2')).resolves.toEqual([...v1].reverse());
      await expect(walk('/v2/categories')).resolves.toEqual(v1);
    });
  });

  describe('with PUBLIC_BASE_URL', () => {
    it('sends Link as an absolute URL under the public address, without its version', async () => {
      const configured = await createTestApp({ publicBaseUrl: 'https://api.example.test/v1' });
      try {
        for (let i = 0; i < 2; i++) await insertCategory(configured.db, `public-${i}`);
        const res = await configured.http
          .get('/v2/categories?limit=1')
          .set('Authorization', configured.auth)
          .expect(200);
        expect(res.headers.link).toBe(
          `<https://api.example.test/v2/categories?limit=1&cursor=${res.body.nextCursor}>; rel="next"`,
        );
      } finally {
        await configured.close();
      }
    });
  });
});
