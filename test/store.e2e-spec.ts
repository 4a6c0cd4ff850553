import { countRows, insertOrder, insertPet, orderStatus } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('store orders (e2e)', () => {
  let t: TestApp;
  let petId: number;

  beforeAll(async () => {
    t = await createTestApp();
    petId = await insertPet(t.db, { name: 'Rex' });
  });
  afterAll(() => t.close());

  describe('GET /v1/store/orders (listOrders)', () => {
    it('lists every order by id ascending, cancelled and shipped ones included', async () => {
      const pending = await insertOrder(t.db, { petId, quantity: 3 });
      const shipped = await insertOrder(t.db, {
        petId,
        status: 'shipped',
        shipDate: new Date('2026-11-20T10:00:00Z'),
      });
      const cancelled = await insertOrder(t.db, { petId, status: 'cancelled' });

      const res = await t.http.get('/v1/store/orders').set('Authorization', t.auth).expect(200);
      t.spec.check('listOrders', res);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const ids = (res.body as Array<{ id: number }>).map((order) => order.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      const byId = new Map((res.body as Array<{ id: number }>).map((order) => [order.id, order]));
      expect(byId.get(pending)).toEqual({
        id: pending,
        petId,
        quantity: 3,
        complete: false,
        status: 'pending',
      });
      expect(byId.get(shipped)).toEqual({
        id: shipped,
        petId,
        quantity: 1,
        shipDate: '2026-11-20T10:00:00.000Z',
        complete: true,
        status: 'shipped',
      });
      expect(byId.get(cancelled)).toMatchObject({ status: 'cancelled', complete: false });
      expect(res.body).toHaveLength(await countRows(t.db, 'orders'));
    });
  });

  describe('POST /v1/store/orders (placeOrder)', () => {
    it('places a pending order and points Location at it', async () => {
      const res = await t.http
        .post('/v1/store/orders')
        .set('Authorization', t.auth)
        .send({ petId, quantity: 2, shipDate: '2026-12-01T09:30:00+01:00' })
        .expect(201);
      t.spec.check('placeOrder', res);
      expect(res.body).toEqual({
        id: expect.any(Number),
        petId,
        quantity: 2,
        shipDate: '2026-12-01T08:30:00.000Z',
        complete: false,
        status: 'pending',
      });
      expect(res.headers.location).toBe(`/v1/store/orders/${res.body.id}`);
      const read = await t.http.get(res.headers.location).set('Authorization', t.auth).expect(200);
      expect(read.body).toEqual(res.body);
    });

    it('omits shipDate when none was given', async () => {
      const res = await t.http
        .post('/v1/store/orders')
        .set('Authorization', t.auth)
        .send({ petId, quantity: 1 })
        .expect(201);
      expect(res.body).not.toHaveProperty('shipDate');
    });

    it('answers 422 PET_NOT_FOUND for a pet that does not exist, and writes nothing', async () => {
      const before = await countRows(t.db, 'orders');
      // Sent as text: past 2^53 a JavaScript number could not even hold these ids.
      for (const missing of ['987654321', '9007199254740993', '9223372036854775807']) {
        const res = await t.http
          .post('/v1/store/orders')
          .set('Authorization', t.auth)
          .send(`{"petId": ${missing}, "quantity": 1}`)
          .set('Content-Type', 'application/json')
          .expect(422);
        t.spec.check('placeOrder', res);
        expect(res.body).toEqual({
          code: 'PET_NOT_FOUND',
          message: `Pet ${missing} does not exist.`,
          status: 422,
        });
      }
      expect(await countRows(t.db, 'orders')).toBe(before);
    });

    it('takes a pet id above 2^53 exactly, from the body to the database and back', async () => {
      // 2^53 + 1: JSON.parse reads it as 2^53, a pet that must not be chosen instead.
      const bigId = '9007199254740993';
      await t.db.query(
        `INSERT INTO pets (id, name, status) OVERRIDING SYSTEM VALUE
         VALUES ($1, 'Big', 'available'), ($2, 'Rounded', 'available')`,
        [bigId, '9007199254740992'],
      );
      const res = await t.http
        .post('/v1/store/orders')
        .set('Authorization', t.auth)
        .set('Content-Type', 'application/json')
        .send(`{"petId": ${bigId}, "quantity": 1}`)
        .expect(201);
      t.spec.check('placeOrder', res);
      expect(res.text).toContain(`"petId":${bigId},`);
      const { rows } = await t.db.query<{ petId: string }>(
        'SELECT pet_id::text AS "petId" FROM orders WHERE id = $1',
        [res.body.id],
      );
      expect(rows).toEqual([{ petId: bigId }]);
      // Every way an order is answered: read, shipped, listed in v1 and in v2, created under a key.
      const read = await t.http.get(res.headers.location).set('Authorization', t.auth).expect(200);
      const shipped = await t.http
        .post(`${res.headers.location}/ship`)
        .set('Authorization', t.auth)
        .expect(200);
      const v1List = await t.http.get('/v1/store/orders').set('Authorization', t.auth).expect(200);
      const v2Page = await t.http
        .get(`/v2/store/orders?petId=${bigId}`)
        .set('Authorization', t.auth)
        .expect(200);
      const keyed = await t.http
        .post('/v1/store/orders')
        .set('Authorization', t.auth)
        .set('Idempotency-Key', `big-pet-${Date.now()}`)
        .set('Content-Type', 'application/json')
        .send(`{"petId": ${bigId}, "quantity": 2}`)
        .expect(201);
      for (const answer of [read, shipped, v1List, v2Page, keyed]) {
        expect(answer.text).toContain(`"petId":${bigId},`);
      }
      expect(v2Page.body.data).toHaveLength(1);
    });

    const range = (field: string, max: string) => `${field} must be from 1 to ${max}`;
    const shipDateForm =
      'shipDate must be an ISO 8601 date-time with a time zone, like 2026-11-24T09:00:00Z';
    it.each([
      [{ quantity: 1 }, 'petId is required'],
      [{ petId: 1 }, 'quantity is required'],
      [{}, 'petId is required; quantity is required'],
      [{ petId: '1', quantity: 1 }, 'petId must be an integer, not a string'],
      [{ petId: 1, quantity: '5' }, 'quantity must be an integer, not a string'],
      [{ petId: 1, quantity: '2' }, 'quantity must be an integer, not a string'],
      [{ petId: 1.5, quantity: 1 }, 'petId must be an integer'],
      [{ petId: 0, quantity: 1 }, range('petId', '9223372036854775807')],
      [{ petId: -3, quantity: 1 }, range('petId', '9223372036854775807')],
      [{ petId: 1, quantity: 0 }, range('quantity', '1000')],
      [{ petId: 1, quantity: 1001 }, range('quantity', '1000')],
      [{ petId: 1, quantity: null }, 'quantity must be an integer, not null'],
      [
        { petId: [1], quantity: true },
        'petId must be an integer, not an array; quantity must be an integer, not a boolean',
      ],
      [{ petId: 1, quantity: 1, shipDate: 'tomorrow' }, shipDateForm],
      [{ petId: 1, quantity: 1, shipDate: '2026-12-01T09:30:00' }, shipDateForm],
      [
        { petId: 1, quantity: 1, shipDate: '2026-02-30T09:30:00Z' },
        'shipDate must be a real calendar date and time',
      ],
      [{ petId: 1, quantity: 1, shipDate: 1700000000 }, 'shipDate must be a string, not a number'],
      // The offset pushes it into year 10000 UTC, which no ISO 8601 client reads back.
      [
        { petId: 1, quantity: 1, shipDate: '9999-12-31T23:59:59-23:59' },
        'shipDate must fall within the years 0001 to 9999 in UTC',
      ],
      [
        { petId: 1, quantity: 1, constructor: { prototype: { polluted: true } } },
        'property constructor should not exist',
      ],
      [{ petId: 1, quantity: 1, toString: 'x' }, 'property toString should not exist'],
      [{ petId: 1, quantity: 1, status: 'shipped' }, 'property status should not exist'],
      [{ petId: 1, quantity: 1, complete: true }, 'property complete should not exist'],
      [{ petId: 1, quantity: 1, id: 5 }, 'property id should not exist'],
      [
        Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((name) => [name, 1])),
        'petId is required; quantity is required; property a should not exist; ' +
          'property b should not exist; property c should not exist; and 4 more',
      ],
    ])('answers 400 VALIDATION_FAILED saying what is wrong with %j', async (body, message) => {
      const before = await countRows(t.db, 'orders');
      const res = await t.http
        .post('/v1/store/orders')
        .set('Authorization', t.auth)
        .send(body)
        .expect(400);
      t.spec.check('placeOrder', res);
      expect(res.body).toEqual({ code: 'VALIDATION_FAILED', message, status: 400 });
      expect(await countRows(t.db, 'orders')).toBe(before);
    });
    it.each([
      [
        '{"petId": 9223372036854775808, "quantity": 1}',
        'petId must be from 1 to 9223372036854775807',
      ],
      ['{"petId": 1e30, "quantity": 1}', 'petId must be from 1 to 9223372036854775807'],
      [
        '{"petId": 9007199254740993.0, "quantity": 1}',
        'petId must be written exactly: beyond 2^53 only as an integer',
      ],
      ['{"petId": 7, "quantity": 18446744073709551616}', 'quantity must be from 1 to 1000'],
    ])('answers 400 VALIDATION_FAILED for the large number in %s', async (text, message) => {
      const res = await t.http
        .post('/v1/store/orders')
        .set('Authorization', t.auth)
        .set('Content-Type', 'application/json')
        .send(text)
        .expect(400);
      t.spec.check('placeOrder', res);
      expect(res.body).toEqual({ code: 'VALIDATION_FAILED', message, status: 400 });
    });

    it.each([
      ['{"petId": 7, "quantity": 5000, "quantity": 1}', 'quantity'],
      ['{"petId": 7, "quantity": 1, "quantity": 1}', 'quantity'],
      ['{"petId": 7, "quantity": 1, "shipDate": {"a": 1, "a": 2}}', 'a'],
      ['{"petId": 9223372036854775808, "petId": 7, "quantity": 1}', 'petId'],
    ])(
      'answers 400 MALFORMED_JSON for %s: a key twice in one object is not I-JSON, whichever value is last',
      async (text, key) => {
        const before = await countRows(t.db, 'orders');
        const res = await t.http
          .post('/v1/store/orders')
          .set('Authorization', t.auth)
          .set('Content-Type', 'application/json')
          .send(text)
          .expect(400);
        t.spec.check('placeOrder', res);
        expect(res.body).toEqual({
          code: 'MALFORMED_JSON',
          message: `The request body is not valid JSON: the key "${key}" appears twice in one object.`,
          status: 400,
        });
        expect(await countRows(t.db, 'orders')).toBe(before);
      },
    );
  });

  it('keeps ship dates within years 0001-9999 in the database too', async () => {
    await expect(
      insertOrder(t.db, { petId, shipDate: new Date('+010000-01-01T00:00:00Z') }),
    ).rejects.toMatchObject({ code: '23514', constraint: 'ck_orders_ship_date_range' });
  });

  describe('GET /v1/store/orders/{orderId} (getOrderById)', () => {
    it('reads one order', async () => {
      const id = await insertOrder(t.db, { petId, quantity: 4 });
      const res = await t.http
        .get(`/v1/store/orders/${id}`)
        .set('Authorization', t.auth)
        .expect(200);
      t.spec.check('getOrderById', res);
      expect(res.body).toEqual({ id, petId, quantity: 4, complete: false, status: 'pending' });
    });

    it.each(['123456789', '9223372036854775807'])(
      'answers 404 ORDER_NOT_FOUND for absent id %s',
      async (id) => {
        const res = await t.http
          .get(`/v1/store/orders/${id}`)
          .set('Authorization', t.auth)
          .expect(404);
        t.spec.check('getOrderById', res);
        expect(res.body).toEqual({
          code: 'ORDER_NOT_FOUND',
          message: `Order ${id} does not exist.`,
          status: 404,
        });
      },
    );
  });

  describe('DELETE /v1/store/orders/{orderId} (cancelOrder)', () => {
    it('cancels a pending order and keeps it listed as cancelled', async () => {
      const id = await insertOrder(t.db, { petId });
      const res = await t.http
        .delete(`/v1/store/orders/${id}`)
        .set('Authorization', t.auth)
        .expect(204);
      t.spec.check('cancelOrder', res);
      expect(res.text).toBe('');
      expect(await orderStatus(t.db, id)).toBe('cancelled');
      const list = await t.http.get('/v1/store/orders').set('Authorization', t.auth).expect(200);
      expect(list.body).toContainEqual({
        id,
        petId,
        quantity: 1,
        complete: false,
        status: 'cancelled',
      });
    });

    it('answers 204 again for a cancelled order and changes nothing', async () => {
      const id = await insertOrder(t.db, { petId, status: 'cancelled' });
      const res = await t.http
        .delete(`/v1/store/orders/${id}`)
        .set('Authorization', t.auth)
        .expect(204);
      t.spec.check('cancelOrder', res);
      expect(await orderStatus(t.db, id)).toBe('cancelled');
    });

    it('refuses to cancel a shipped order with 409 ORDER_ALREADY_SHIPPED', async () => {
      const id = await insertOrder(t.db, { petId, status: 'shipped' });
      const res = await t.http
        .delete(`/v1/store/orders/${id}`)
        .set('Authorization', t.auth)
        .expect(409);
      t.spec.check('cancelOrder', res);
      expect(res.body).toEqual({
        code: 'ORDER_ALREADY_SHIPPED',
        message: expect.any(String),
        status: 409,
      });
      expect(await orderStatus(t.db, id)).toBe('shipped');
    });

    it.each(['424242424', '9223372036854775807'])(
      'answers 404 ORDER_NOT_FOUND for absent id %s',
      async (id) => {
        const res = await t.http
          .delete(`/v1/store/orders/${id}`)
          .set('Authorization', t.auth)
          .expect(404);
        t.spec.check('cancelOrder', res);
        expect(res.body.code).toBe('ORDER_NOT_FOUND');
      },
    );
  });

  describe('POST /v1/store/orders/{orderId}/ship (shipOrder)', () => {
    it('ships a pending order: shipped, complete, shipDate now', async () => {
      const id = await insertOrder(t.db, { petId, shipDate: new Date('2030-01-01T00:00:00Z') });
      const before = Date.now();
      const res = await t.http
        .post(`/v1/store/orders/${id}/ship`)
        .set('Authorization', t.auth)
        .expect(200);
      t.spec.check('shipOrder', res);
      expect(res.body).toMatchObject({ id, petId, status: 'shipped', complete: true });
      const shipped = Date.parse(res.body.shipDate);
      expect(shipped).toBeGreaterThanOrEqual(before - 5000);
      expect(shipped).toBeLessThanOrEqual(Date.now() + 5000);
    });

    it('answers 200 with the order unchanged when it has already shipped', async () => {
      const shipDate = new Date('2026-11-01T12:00:00Z');
      const id = await insertOrder(t.db, { petId, status: 'shipped', shipDate });
      const res = await t.http
        .post(`/v1/store/orders/${id}/ship`)
        .set('Authorization', t.auth)
        .expect(200);
      t.spec.check('shipOrder', res);
      expect(res.body).toMatchObject({ status: 'shipped', shipDate: shipDate.toISOString() });
    });

    it('refuses to ship a cancelled order with 409 ORDER_NOT_PENDING', async () => {
      const id = await insertOrder(t.db, { petId, status: 'cancelled' });
      const res = await t.http
        .post(`/v1/store/orders/${id}/ship`)
        .set('Authorization', t.auth)
        .expect(409);
      t.spec.check('shipOrder', res);
      expect(res.body.code).toBe('ORDER_NOT_PENDING');
      expect(await orderStatus(t.db, id)).toBe('cancelled');
    });

    it('answers 404 ORDER_NOT_FOUND for an absent order', async () => {
      const res = await t.http
        .post('/v1/store/orders/77777777/ship')
        .set('Authorization', t.auth)
        .expect(404);
      t.spec.check('shipOrder', res);
      expect(res.body.code).toBe('ORDER_NOT_FOUND');
    });
  });

  describe('bad path ids', () => {
    const badIds = [
      '0',
      '-1',
      '+1',
      '1.0',
      '1e3',
      '0x10',
      'abc',
      '%201',
      '1%20',
      '01',
      '9223372036854775808',
      '99999999999999999999',
    ];
    const routes: Array<[string, 'get' | 'delete' | 'post', (id: string) => string]> = [
      ['getOrderById', 'get', (id) => `/v1/store/orders/${id}`],
      ['cancelOrder', 'delete', (id) => `/v1/store/orders/${id}`],
      ['shipOrder', 'post', (id) => `/v1/store/orders/${id}/ship`],
    ];
    it.each(routes)(
      '%s answers 400 VALIDATION_FAILED for every malformed id',
      async (operationId, method, path) => {
        for (const id of badIds) {
          const res = await t.http[method](path(id)).set('Authorization', t.auth);
          expect({ id, status: res.status, code: res.body.code }).toEqual({
            id,
            status: 400,
            code: 'VALIDATION_FAILED',
          });
          t.spec.check(operationId, res);
          expect(res.body.message).toContain('orderId');
        }
      },
    );
  });

  describe('concurrency', () => {
    it('parallel cancels and ships of one order make exactly one transition, never a 500', async () => {
      for (let round = 0; round < 5; round++) {
        const id = await insertOrder(t.db, { petId });
        const requests = Array.from({ length: 10 }, (_, i) =>
          i % 2 === 0
            ? t.http.delete(`/v1/store/orders/${id}`).set('Authorization', t.auth)
            : t.http.post(`/v1/store/orders/${id}/ship`).set('Authorization', t.auth),
        );
        const responses: Array<{ status: number }> = await Promise.all(requests);
        const final = await orderStatus(t.db, id);
        const cancels = responses.filter((_, i) => i % 2 === 0).map((res) => res.status);
        const ships = responses.filter((_, i) => i % 2 === 1).map((res) => res.status);
        if (final === 'cancelled') {
          expect(cancels.every((status) => status === 204)).toBe(true);
          expect(ships.every((status) => status === 409)).toBe(true);
        } else {
          expect(final).toBe('shipped');
          expect(ships.every((status) => status === 200)).toBe(true);
          expect(cancels.every((status) => status === 409)).toBe(true);
        }
      }
    });

    it('parallel cancels of one pending order all answer 204 and cancel it once', async () => {
      const id = await insertOrder(t.db, { petId });
      const responses: Array<{ status: number }> = await Promise.all(
        Array.from({ length: 8 }, () =>
          t.http.delete(`/v1/store/orders/${id}`).set('Authorization', t.auth),
        ),
      );
      expect(responses.map((res) => res.status)).toEqual(Array(8).fill(204));
      expect(await orderStatus(t.db, id)).toBe('cancelled');
    });
  });
});
