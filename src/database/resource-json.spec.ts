import fc from 'fast-check';
import { CATEGORY_JSON } from '../categories/category-json.js';
import { CategoryDto } from '../categories/dto/category.dto.js';
import { OrderDto } from '../store/dto/order.dto.js';
import { OrderStatus, type Order } from '../store/order.entity.js';
import { ORDER_JSON } from '../store/order-json.js';
import { WebhookDeliveryDto } from '../webhooks/dto/webhook-delivery.dto.js';
import { WebhookDto } from '../webhooks/dto/webhook.dto.js';
import { WEBHOOK_EVENT_TYPES } from '../webhooks/webhook-events.js';
import { WEBHOOK_DELIVERY_JSON, WEBHOOK_JSON } from '../webhooks/webhook-json.js';
import type {
  WebhookDeliveryView,
  WebhookSubscription,
} from '../webhooks/webhook-subscription.repository.js';
import type { TextRow } from './batched-query-stream.js';
import { JsonBytes } from './json-bytes.js';
import {
  copyFieldText,
  integer,
  parseTextArray,
  resourceJson,
  text,
  type ResourceJson,
  type RowJson,
} from './resource-json.js';

/** Identity columns stop at 2^53 - 1 (the initial migration): the largest id the service assigns. */
const LARGEST_ASSIGNED_ID = Number.MAX_SAFE_INTEGER;

/*
 * Each resource's renderings in Node, held byte for byte to JSON.stringify of its DTO: the
 * JSON text of a row as PostgreSQL writes it in text (COPY, the order list), for every value
 * the columns can hold, and the same JSON as bytes from the row's bytes in COPY's text format
 * (the long list). PostgreSQL's own rendering is held to the same text against a real
 * server in test/resource-json.e2e-spec.ts.
 */

// ---------------------------------------------------------------------------------------------
// Values as PostgreSQL writes them in text (DateStyle ISO), for the text rows.

/** A timestamptz's text: `YYYY-MM-DD HH:MM:SS[.ffffff]±hh[:mm]`, at `offsetMinutes` from UTC. */
function timestamptzText(date: Date, extraMicroseconds: number, offsetMinutes: number): string {
  const local = new Date(date.getTime() + offsetMinutes * 60_000);
  const two = (n: number) => String(n).padStart(2, '0');
  const micros = local.getUTCMilliseconds() * 1000 + extraMicroseconds;
  const fraction = micros === 0 ? '' : `.${String(micros).padStart(6, '0')}`.replace(/0+$/, '');
  const sign = offsetMinutes < 0 ? '-' : '+';
  const offset = Math.abs(offsetMinutes);
  const zone = `${sign}${two(Math.floor(offset / 60))}${offset % 60 === 0 ? '' : `:${two(offset % 60)}`}`;
  return (
    `${String(local.getUTCFullYear()).padStart(4, '0')}-${two(local.getUTCMonth() + 1)}-` +
    `${two(local.getUTCDate())} ${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:` +
    `${two(local.getUTCSeconds())}${fraction}${zone}`
  );
}

/** A text[]'s text: elements quoted when PostgreSQL's array_out quotes them. */
function textArrayText(elements: readonly string[]): string {
  const element = (value: string) =>
    value === '' || /[{}",\\\s]/.test(value) || value.toUpperCase() === 'NULL'
      ? `"${value.replace(/["\\]/g, '\\$&')}"`
      : value;
  return `{${elements.map(element).join(',')}}`;
}

// ---------------------------------------------------------------------------------------------
// Arbitrary values of each column.

const id = fc.oneof(
  fc.integer({ min: 1, max: LARGEST_ASSIGNED_ID }),
  fc.constantFrom(1, LARGEST_ASSIGNED_ID, LARGEST_ASSIGNED_ID - 1, 2 ** 31, 2 ** 32 + 1),
);
/** Dates the API shows: the years 0001-9999, to the millisecond. */
const date = fc.date({
  min: new Date('0001-01-01T00:00:00.000Z'),
  max: new Date('9999-12-31T23:59:59.999Z'),
  noInvalidDate: true,
});
/** How PostgreSQL may write a date: its microseconds beyond the millisecond, its offset. */
const dateText = fc.record({
  extraMicroseconds: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999 })),
  offsetMinutes: fc.constantFrom(0, 0, 330, 840, -210, -480),
});
/** Any text PostgreSQL can store (no NUL): controls, quotes, backslashes, any plane. */
const anyText = fc
  .string({ unit: 'binary', maxLength: 40 })
  .map((value) => value.replaceAll('\u0000', ''));
const nullable = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: null });

/** The timestamptz text of `value`, or null; before year 1 in a negative offset, in UTC. */
function dateOrNull(
  value: Date | null,
  { extraMicroseconds, offsetMinutes }: { extraMicroseconds: number; offsetMinutes: number },
): string | null {
  if (value === null) return null;
  const bc = value.getTime() + offsetMinutes * 60_000 < Date.parse('0001-01-01T00:00:00Z');
  return timestamptzText(value, extraMicroseconds, bc ? 0 : offsetMinutes);
}

/** A text row as COPY TO writes it: tab-separated, `\\N` for null, its escapes, no newline. */
function copyRow(row: TextRow): Buffer {
  const escapes: Record<string, string> = {
    '\\': '\\\\',
    '\b': '\\b',
    '\f': '\\f',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\v': '\\v',
  };
  const fields = row.map((field) =>
    field === null ? '\\N' : field.replace(/[\\\b\f\n\r\t\v]/g, (c) => escapes[c]),
  );
  return Buffer.from(fields.join('\t'), 'utf8');
}

/** `json`'s rendering of `row` from its COPY bytes, inside other bytes, in small buffers. */
function fromCopy(json: Pick<RowJson, 'fromCopy'>, row: TextRow): string {
  const bytes = copyRow(row);
  const src = Buffer.concat([Buffer.from('x\ty\n'), bytes, Buffer.from('\nz')]);
  const out = new JsonBytes(16);
  json.fromCopy(src, 4, 4 + bytes.length, out);
  return Buffer.concat(out.take()).toString('utf8');
}

/**
 * What a property test asserts of each resource: the row's text and bytes, the same JSON, with
 * the generated code and without it (where Node refuses code generation).
 */
function expectRenderings(
  json: RowJson & Pick<ResourceJson<never, unknown>, 'interpreted'>,
  row: TextRow,
  expected: string,
): void {
  expect(json.fromText(row)).toBe(expected);
  expect(json.interpreted.fromText(row)).toBe(expected);
  expect(fromCopy(json, row)).toBe(expected);
}

/** The object an answer serialises, with the generated code and without it: the same JSON. */
function expectSameViews<Source>(json: ResourceJson<Source, unknown>, source: Source): void {
  expect(JSON.stringify(json.interpreted.view(source))).toBe(JSON.stringify(json.view(source)));
}

// ---------------------------------------------------------------------------------------------

describe('resource JSON', () => {
  describe('an order', () => {
    const order: fc.Arbitrary<Order> = fc.record({
      id,
      petId: id,
      quantity: fc.integer({ min: 1, max: 1000 }),
      shipDate: nullable(date),
      status: fc.constantFrom(...Object.values(OrderStatus)),
    });
    const textRow = (
      value: Order,
      shipText: { extraMicroseconds: number; offsetMinutes: number },
    ) =>
      [
        String(value.id),
        String(value.petId),
        String(value.quantity),
        dateOrNull(value.shipDate, shipText),
        value.status,
      ] satisfies TextRow;

    it('is selected as these columns, in this order', () => {
      expect(ORDER_JSON.columns()).toBe(
        'id, pet_id AS "petId", quantity, ship_date AS "shipDate", status',
      );
      expect(ORDER_JSON.columns('orders')).toBe(
        'orders.id, orders.pet_id AS "petId", orders.quantity, orders.ship_date AS "shipDate", orders.status',
      );
    });

    it('is written { id, petId, quantity, shipDate?, complete, status }', () => {
      const shipped: Order = {
        id: 42,
        petId: 7,
        quantity: 2,
        shipDate: new Date('2026-11-21T10:00:00.000Z'),
        status: OrderStatus.Shipped,
      };
      expect(JSON.stringify(OrderDto.from(shipped))).toBe(
        '{"id":42,"petId":7,"quantity":2,"shipDate":"2026-11-21T10:00:00.000Z","complete":true,"status":"shipped"}',
      );
      expect(
        JSON.stringify(OrderDto.from({ ...shipped, shipDate: null, status: OrderStatus.Pending })),
      ).toBe('{"id":42,"petId":7,"quantity":2,"complete":false,"status":"pending"}');
    });

    it.each(Object.values(OrderStatus))('is complete only once shipped: %s', (status) => {
      const dto = OrderDto.from({ id: 1, petId: 1, quantity: 1, shipDate: null, status });
      expect(dto.complete).toBe(status === OrderStatus.Shipped);
    });

    it('from its text row and its COPY bytes, is JSON.stringify(OrderDto.from(order)) byte for byte', () => {
      fc.assert(
        fc.property(order, dateText, (value, shipText) => {
          expectRenderings(
            ORDER_JSON,
            textRow(value, shipText),
            JSON.stringify(OrderDto.from(value)),
          );
          expectSameViews(ORDER_JSON, value);
        }),
        { numRuns: 1000 },
      );
    });

    it.each([
      ['the first instant of year 1', '0001-01-01 00:00:00+00', '0001-01-01T00:00:00.000Z'],
      ['the last of year 9999', '9999-12-31 23:59:59.999999+00', '9999-12-31T23:59:59.999Z'],
      [
        'microseconds cut, never rounded',
        '2026-11-25 05:03:54.000999+00',
        '2026-11-25T05:03:54.000Z',
      ],
      ['a tenth of a second', '2026-11-25 05:03:54.1+00', '2026-11-25T05:03:54.100Z'],
    ])('writes a ship date at %s as the DTO does', (_, shipText, iso) => {
      const row: TextRow = ['1', '2', '3', shipText, 'shipped'];
      const value: Order = {
        id: 1,
        petId: 2,
        quantity: 3,
        shipDate: new Date(iso),
        status: OrderStatus.Shipped,
      };
      expectRenderings(ORDER_JSON, row, JSON.stringify(OrderDto.from(value)));
      expect(OrderDto.from(value).shipDate).toBe(iso);
    });

    it('writes a text id beyond 2^53 - 1 digit for digit (ids stop there; none is rounded)', () => {
      expectRenderings(
        ORDER_JSON,
        ['9223372036854775807', '9007199254740993', '1', null, 'pending'],
        '{"id":9223372036854775807,"petId":9007199254740993,"quantity":1,"complete":false,"status":"pending"}',
      );
    });

    it('is rendered by PostgreSQL from a row of its columns', () => {
      expect(ORDER_JSON.sql('main')).toBe(
        `json_strip_nulls(json_build_object('id', main.id, 'petId', main."petId", 'quantity', main.quantity, ` +
          `'shipDate', to_char(main."shipDate" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), ` +
          `'complete', main.status = 'shipped', 'status', main.status))`,
      );
    });
  });

  describe('a category', () => {
    const category = fc.record({ id, name: anyText, description: nullable(anyText) });

    it('is written { id, name, description? }', () => {
      expect(JSON.stringify(CategoryDto.from({ id: 3, name: 'dog', description: 'Dogs' }))).toBe(
        '{"id":3,"name":"dog","description":"Dogs"}',
      );
      expect(JSON.stringify(CategoryDto.from({ id: 3, name: 'dog', description: null }))).toBe(
        '{"id":3,"name":"dog"}',
      );
    });

    it('from its text row and its COPY bytes, is JSON.stringify(CategoryDto.from(category)) byte for byte', () => {
      expect(CATEGORY_JSON.columns()).toBe('id, name, description');
      fc.assert(
        fc.property(category, (value) => {
          const row: TextRow = [String(value.id), value.name, value.description];
          expectRenderings(CATEGORY_JSON, row, JSON.stringify(CategoryDto.from(value)));
          expectSameViews(CATEGORY_JSON, value);
        }),
        { numRuns: 1000 },
      );
    });
  });

  describe('a webhook subscription', () => {
    const subscription: fc.Arbitrary<WebhookSubscription> = fc.record({
      id,
      url: anyText,
      events: fc.shuffledSubarray([...WEBHOOK_EVENT_TYPES], { minLength: 1 }),
      description: nullable(anyText),
      createdAt: date,
      enabled: fc.boolean(),
      disabledAt: nullable(date),
      disabledReason: nullable(
        fc.constantFrom('requested' as const, 'gone' as const, 'failing' as const),
      ),
    });

    it('is written { id, url, events, description?, createdAt, enabled, disabledAt?, disabledReason? }', () => {
      const value: WebhookSubscription = {
        id: 12,
        url: 'https://hooks.example.com/petstore',
        events: ['order.placed', 'order.cancelled'],
        description: 'Warehouse',
        createdAt: new Date('2026-11-25T10:00:00.000Z'),
        enabled: false,
        disabledAt: new Date('2026-11-26T10:00:00.000Z'),
        disabledReason: 'gone',
      };
      expect(JSON.stringify(WebhookDto.from(value))).toBe(
        '{"id":12,"url":"https://hooks.example.com/petstore","events":["order.placed","order.cancelled"],' +
          '"description":"Warehouse","createdAt":"2026-11-25T10:00:00.000Z","enabled":false,' +
          '"disabledAt":"2026-11-26T10:00:00.000Z","disabledReason":"gone"}',
      );
    });

    it('from its text row and its COPY bytes, is JSON.stringify(WebhookDto.from(subscription)) byte for byte', () => {
      expect(WEBHOOK_JSON.columns()).toBe(
        'id, url, events, description, created_at AS "createdAt", enabled, ' +
          'disabled_at AS "disabledAt", disabled_reason AS "disabledReason"',
      );
      fc.assert(
        fc.property(subscription, dateText, dateText, (value, createdText, disabledText) => {
          const row: TextRow = [
            String(value.id),
            value.url,
            textArrayText(value.events),
            value.description,
            dateOrNull(value.createdAt, createdText),
            value.enabled ? 't' : 'f',
            dateOrNull(value.disabledAt, disabledText),
            value.disabledReason,
          ];
          expectRenderings(WEBHOOK_JSON, row, JSON.stringify(WebhookDto.from(value)));
          expectSameViews(WEBHOOK_JSON, value);
        }),
        { numRuns: 1000 },
      );
    });
  });

  describe('a webhook delivery', () => {
    const delivery: fc.Arbitrary<WebhookDeliveryView> = fc.record({
      id: id.map(String),
      eventId: fc.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: fc.constantFrom(...WEBHOOK_EVENT_TYPES),
      status: fc.constantFrom('pending' as const, 'succeeded' as const, 'failed' as const),
      attempts: fc.integer({ min: 0, max: 1000 }),
      lastResponseStatus: nullable(fc.integer({ min: 100, max: 999 })),
      lastAttemptAt: nullable(date),
      nextAttemptAt: nullable(date),
    });

    it('is written { eventId, type, status, attempts, lastResponseStatus?, lastAttemptAt?, nextAttemptAt? }', () => {
      const value: WebhookDeliveryView = {
        id: '5',
        eventId: 'evt_5f0c6f3b2a8e4d4b9e3c1a7d2b6e8f10',
        type: 'order.cancelled',
        status: 'pending',
        attempts: 1,
        lastResponseStatus: 503,
        lastAttemptAt: new Date('2026-11-25T10:00:02.000Z'),
        nextAttemptAt: new Date('2026-11-25T10:00:07.000Z'),
      };
      expect(JSON.stringify(WebhookDeliveryDto.from(value))).toBe(
        '{"eventId":"evt_5f0c6f3b2a8e4d4b9e3c1a7d2b6e8f10","type":"order.cancelled","status":"pending",' +
          '"attempts":1,"lastResponseStatus":503,"lastAttemptAt":"2026-11-25T10:00:02.000Z",' +
          '"nextAttemptAt":"2026-11-25T10:00:07.000Z"}',
      );
    });

    it('from its text row and its COPY bytes, is JSON.stringify(WebhookDeliveryDto.from(delivery)) byte for byte', () => {
      expect(WEBHOOK_DELIVERY_JSON.columns()).toBe(
        'id, event_id AS "eventId", event_type AS type, status, attempts, ' +
          'last_response_status AS "lastResponseStatus", last_attempt_at AS "lastAttemptAt", ' +
          'next_attempt_at AS "nextAttemptAt"',
      );
      fc.assert(
        fc.property(delivery, dateText, (value, dates) => {
          const row: TextRow = [
            value.id,
            value.eventId,
            value.type,
            value.status,
            String(value.attempts),
            value.lastResponseStatus === null ? null : String(value.lastResponseStatus),
            dateOrNull(value.lastAttemptAt, dates),
            dateOrNull(value.nextAttemptAt, dates),
          ];
          expectRenderings(
            WEBHOOK_DELIVERY_JSON,
            row,
            JSON.stringify(WebhookDeliveryDto.from(value)),
          );
          expectSameViews(WEBHOOK_DELIVERY_JSON, value);
        }),
        { numRuns: 1000 },
      );
    });
  });

  describe('a definition', () => {
    const thing = resourceJson<{ id: number; name: string }, unknown>({ id: 'id', name: 'name' }, [
      { from: 'id', kind: integer },
      { key: 'label', from: 'name', kind: text },
    ]);

    it('refuses names it could not write into SQL as they are', () => {
      expect(() =>
        resourceJson<{ id: number }, unknown>({ id: 'id; DROP TABLE x' }, [
          { from: 'id', kind: integer },
        ]),
      ).toThrow(/not a plain name/);
      expect(() =>
        resourceJson<{ id: number }, unknown>({ id: 'id' }, [
          { key: "it's", from: 'id', kind: integer },
        ]),
      ).toThrow(/not a plain JSON key/);
    });

    it('refuses a row without a value its JSON requires, rather than write a wrong answer', () => {
      expect(() => thing.fromText(['1', null])).toThrow(/"label": has no value/);
      expect(() => fromCopy(thing, ['1', null])).toThrow(/"label": has no value/);
      expect(() => thing.view({ id: 1, name: null as unknown as string })).toThrow(
        /label has no value/,
      );
      expect(() => thing.interpreted.fromText(['1', null])).toThrow(/"label": has no value/);
      expect(() => thing.interpreted.view({ id: 1, name: null as unknown as string })).toThrow(
        /label has no value/,
      );
    });

    it('refuses a COPY row with more or fewer fields than its columns', () => {
      expect(() => fromCopy(thing, ['1'])).toThrow(/without 2 fields/);
      expect(() => fromCopy(thing, ['1', 'x', 'y'])).toThrow(/without 2 fields/);
    });

    it('writes a key under its own name, from the column it names', () => {
      expect(thing.fromText(['1', 'x'])).toBe('{"id":1,"label":"x"}');
      expect(fromCopy(thing, ['1', 'x'])).toBe('{"id":1,"label":"x"}');
      expect(thing.sql('r')).toBe(
        `json_strip_nulls(json_build_object('id', r.id, 'label', r.name))`,
      );
    });

    it('opens the object with whichever field comes first when the first ones may be left out', () => {
      interface Sparse {
        a: string | null;
        b: string | null;
        c: number;
      }
      const sparse = resourceJson<Sparse, unknown>({ a: 'a', b: 'b', c: 'c' }, [
        { from: 'a', kind: text, optional: true },
        { from: 'b', kind: text, optional: true },
        { from: 'c', kind: integer },
      ]);
      const allOptional = resourceJson<Pick<Sparse, 'a' | 'b'>, unknown>({ a: 'a', b: 'b' }, [
        { from: 'a', kind: text, optional: true },
        { from: 'b', kind: text, optional: true },
      ]);
      for (const [a, b] of [
        [null, null],
        ['x', null],
        [null, 'y'],
        ['x', 'y'],
      ]) {
        expectRenderings(
          sparse,
          [a, b, '3'],
          JSON.stringify({ a: a ?? undefined, b: b ?? undefined, c: 3 }),
        );
        expectRenderings(
          allOptional,
          [a, b],
          JSON.stringify({ a: a ?? undefined, b: b ?? undefined }),
        );
      }
    });
  });

  describe("COPY's text format", () => {
    it('undoes the backslash escapes COPY TO writes', () => {
      // A tab, a newline, a carriage return, a backslash and the text "\N" inside fields.
      const field = (text: string) => copyFieldText(Buffer.from(text), 0, Buffer.byteLength(text));
      expect(field('a\\tb')).toBe('a\tb');
      expect(field('x\\ny\\rz')).toBe('x\ny\rz');
      expect(field('\\\\')).toBe('\\');
      expect(field('\\\\N')).toBe('\\N');
      expect(field('\\b\\f\\v é')).toBe('\b\f\v é');
    });

    it('writes every character below U+0080 of a text field as JSON.stringify does', () => {
      const all = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code))
        .join('')
        .slice(1);
      const named = resourceJson<{ name: string }, unknown>({ name: 'name' }, [
        { from: 'name', kind: text },
      ]);
      expect(fromCopy(named, [all])).toBe(JSON.stringify({ name: all }));
    });
  });

  describe('parseTextArray', () => {
    it.each([
      ['{}', []],
      ['{order.placed}', ['order.placed']],
      ['{a,b}', ['a', 'b']],
      ['{"",x}', ['', 'x']],
      ['{"a b","c,d","e\\"f","g\\\\h","{i}","NULL"}', ['a b', 'c,d', 'e"f', 'g\\h', '{i}', 'NULL']],
    ])('reads %s', (value, elements) => {
      expect(parseTextArray(value)).toEqual(elements);
    });

    it('reads back every array of strings as PostgreSQL writes it', () => {
      fc.assert(
        fc.property(fc.array(anyText, { maxLength: 6 }), (elements) => {
          expect(parseTextArray(textArrayText(elements))).toEqual(elements);
        }),
        { numRuns: 1000 },
      );
    });

    it.each([['{a,NULL}'], ['a,b'], ['{"a}']])('refuses %s', (value) => {
      expect(() => parseTextArray(value)).toThrow();
    });
  });
});
