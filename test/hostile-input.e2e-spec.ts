import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import type { Response } from 'supertest';
import { insertCategory, insertOrder, insertPet } from './support/factories.js';
import { dataSnapshot } from './support/http-assertions.js';
import {
  CREATE_CATEGORY_RULES,
  CREATE_WEBHOOK_RULES,
  UPDATE_WEBHOOK_RULES,
  LIST_CATEGORIES_V2,
  LIST_ORDERS_V2,
  LIST_PETS_V2,
  MAX_BODY_BYTES,
  ORDER_STATUSES,
  PET_STATUSES,
  NOT_SENDABLE,
  PLACE_ORDER_RULES,
  KEY_LIKE_REQUEST_ID,
  SANE_REQUEST_ID,
  WEIRD_KEYS,
  authorizationCase,
  authorizationValues,
  contentTypeCase,
  decodedSegment,
  alterCursor,
  decodeQuery,
  deepJsonText,
  encodePathSegment,
  encodedIdText,
  expectContractError,
  expectError,
  expectSaneAnswer,
  expectSecretNotShown,
  extraHeaders,
  hostileJsonValue,
  hostileText,
  idempotencyKeyValue,
  isContractId,
  judgeIdempotencyKey,
  judgeAuthorization,
  judgeBody,
  judgeListQuery,
  jsonSpace,
  listQueryCase,
  nestingDepth,
  objectText,
  parseListDateTime,
  rawPercentId,
  receivedHeaderValue,
  shipDateInstant,
  storedName,
  storedProse,
  requestIdCase,
  sendUnlessRefused,
  subjectOf,
  weirdKey,
  writeDateTime,
  wrongTypeText,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HOSTS,
  type BodyRules,
  type BodyVerdict,
  type ContentTypeCase,
  type CursorCase,
  type IssuedCursor,
  type ListBinding,
  type ListQueryContext,
  type ListRules,
  type ListVerdict,
  type Member,
  type QueryPart,
} from './support/hostile-input.js';
import {
  contractOperations,
  specOf,
  webhookOperations,
  type Method,
} from './support/contract-operations.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/*
 * Hostile input, property-based (fast-check): path ids, bodies, headers and query strings no
 * client should send, for every operation of docs/api.md (and v2's lists' own parameters,
 * judged value by value). For every case: no 5xx; a 4xx is exactly the
 * Error body {code, message, status} with a code of docs/api.md; a 4xx wrote nothing (every table
 * the API writes is compared before and after); a 2xx only where docs/api.md allows it.
 *
 * Seeded and bounded: every property runs with SEED (set HOSTILE_SEED to explore another
 * one) and a fixed number of runs, so a failure replays exactly and the file takes seconds.
 * A failure reports the seed, the path and the counterexample (not shrunk: endOnFailure).
 *
 * Node's HTTP client refuses some requests before sending anything (header values with
 * controls or characters above U+00FF, for example). Those cases are counted as "not
 * sendable", never as failures; each property checks that most of its cases were sent.
 */

const SEED = Number(process.env.HOSTILE_SEED ?? 20261121);
const RUNS = {
  pathIds: 80,
  pathIdsWithoutKey: 40,
  bodyFields: 100,
  unknownFields: 60,
  bodyStructure: 80,
  contentTypes: 40,
  headers: 40,
  idempotencyKeys: 80,
  queries: 60,
  listQueries: 200,
} as const;

const SUCCESS_STATUSES = [200, 201, 204];
/** docs/api.md: an Order's shipDate, like 2026-11-21T10:00:00.000Z. */
const SHIP_DATE_FORMAT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Snapshot = Record<string, unknown[]>;
type OrderState = 'pending' | 'shipped' | 'cancelled';

/** What one property sent, for the summary printed at the end. */
interface Tally {
  property: string;
  runs: number;
  sent: number;
  notSendable: number;
  /** How often each status came back. */
  statuses: Map<number, number>;
}

const tallies: Tally[] = [];

function tally(property: string): Tally {
  const entry = { property, runs: 0, sent: 0, notSendable: 0, statuses: new Map<number, number>() };
  tallies.push(entry);
  return entry;
}

function countStatus(count: Tally, res: Response): void {
  count.sent++;
  count.statuses.set(res.status, (count.statuses.get(res.status) ?? 0) + 1);
}

function assertOptions<T>(numRuns: number): fc.Parameters<T> {
  return { seed: SEED, numRuns, endOnFailure: true };
}

/** Rows of `table` in `after` that `before` does not have. */
function addedRows(before: Snapshot, after: Snapshot, table: string): unknown[] {
  const seen = new Set(before[table].map((row) => JSON.stringify(row)));
  return after[table].filter((row) => !seen.has(JSON.stringify(row)));
}

/**
 * `after` equals `before` except for `table`, and for the events a change writes with it (the
 * outbox: one delivery per subscription), which may be added but never changed or removed.
 */
function expectUnchangedBut(before: Snapshot, after: Snapshot, table: string): void {
  const events = 'webhook_deliveries';
  expect(after[events].slice(0, before[events].length)).toEqual(before[events]);
  expect({ ...after, [table]: [], [events]: [] }).toEqual({ ...before, [table]: [], [events]: [] });
}

/**
 * A success wrote exactly one row of `table` (added it, or changed it in place), and nothing
 * else anywhere. Returns that row as it is now.
 */
function expectOneRowWritten(before: Snapshot, after: Snapshot, table: string): unknown {
  expectUnchangedBut(before, after, table);
  const written = addedRows(before, after, table) as Array<{ id: string }>;
  const replaced = addedRows(after, before, table) as Array<{ id: string }>;
  expect({ written: written.length, replaced: replaced.map((row) => row.id) }).toEqual({
    written: 1,
    replaced: replaced.length === 0 ? [] : [written[0].id],
  });
  return written[0];
}

describe(`hostile input, property-based (fast-check seed ${SEED})`, () => {
  let t: TestApp;
  let petId: number;
  let takenCategory: string;
  const prototypeKeysBefore = Object.getOwnPropertyNames(Object.prototype).sort();
  const arrayPrototypeKeysBefore = Object.getOwnPropertyNames(Array.prototype).sort();

  beforeAll(async () => {
    t = await createTestApp();
    const categoryId = await insertCategory(t.db, 'Dogs', 'Loyal');
    takenCategory = 'Dogs';
    petId = await insertPet(t.db, { name: 'Rex', categoryId });
    await insertPet(t.db, { name: 'Tom', status: 'sold' });
    for (const status of ['pending', 'shipped', 'cancelled', 'pending'] as const) {
      await insertOrder(t.db, { petId, quantity: 2, status });
    }
  });

  afterAll(async () => {
    await t?.close();
    const lines = tallies.map(({ property, runs, sent, notSendable, statuses }) => {
      const seen = [...statuses].sort(([a], [b]) => a - b).map(([status, n]) => `${status}×${n}`);
      return `  ${property}: ${runs} runs, ${sent} sent (${seen.join(' ')}), ${notSendable} not sendable`;
    });
    process.stdout.write(`[hostile-input] fast-check seed ${SEED}\n${lines.join('\n')}\n`);
  });

  async function petExists(id: string | number): Promise<boolean> {
    if (typeof id === 'number' && !Number.isSafeInteger(id)) return false;
    const { rows } = await t.db.query('SELECT 1 FROM pets WHERE id = $1', [String(id)]);
    return rows.length > 0;
  }

  async function categoryTaken(name: string): Promise<boolean> {
    const { rows } = await t.db.query('SELECT 1 FROM categories WHERE lower(name) = lower($1)', [
      name,
    ]);
    return rows.length > 0;
  }

  // -------------------------------------------------------------------------------------------
  // Path ids
  // -------------------------------------------------------------------------------------------

  /** How a generated id reaches the app. */
  type IdCase =
    | { kind: 'encoded'; id: string }
    | { kind: 'raw'; segment: string }
    | { kind: 'existing'; state: OrderState | 'pet'; decorate: string };

  interface IdOperation {
    operationId: 'getOrderById' | 'shipOrder' | 'cancelOrder' | 'getPetById' | 'getPet';
    /** The API version whose document describes it (v1 unless said). */
    version?: '2';
    method: Method;
    path: (segment: string) => string;
    /** What an id of docs/api.md answers, given what it names. */
    expected(target: OrderState | 'pet' | undefined): { status: number; code?: string };
    /** The state the order must be in afterwards, when the answer is a success. */
    after?: (state: OrderState) => OrderState;
  }

  const idOperations: IdOperation[] = [
    {
      operationId: 'getOrderById',
      method: 'get',
      path: (id) => `/v1/store/orders/${id}`,
      expected: (state) =>
        state && state !== 'pet' ? { status: 200 } : { status: 404, code: 'ORDER_NOT_FOUND' },
    },
    {
      operationId: 'shipOrder',
      method: 'post',
      path: (id) => `/v1/store/orders/${id}/ship`,
      expected: (state) =>
        state === undefined || state === 'pet'
          ? { status: 404, code: 'ORDER_NOT_FOUND' }
          : state === 'cancelled'
            ? { status: 409, code: 'ORDER_NOT_PENDING' }
            : { status: 200 },
      after: () => 'shipped',
    },
    {
      operationId: 'cancelOrder',
      method: 'delete',
      path: (id) => `/v1/store/orders/${id}`,
      expected: (state) =>
        state === undefined || state === 'pet'
          ? { status: 404, code: 'ORDER_NOT_FOUND' }
          : state === 'shipped'
            ? { status: 409, code: 'ORDER_ALREADY_SHIPPED' }
            : { status: 204 },
      after: () => 'cancelled',
    },
    {
      operationId: 'getPetById',
      method: 'get',
      path: (id) => `/v1/pets/${id}`,
      expected: (target) =>
        target === 'pet' ? { status: 200 } : { status: 404, code: 'PET_NOT_FOUND' },
    },
    {
      operationId: 'getPet',
      version: '2',
      method: 'get',
      path: (id) => `/v2/pets/${id}`,
      expected: (target) =>
        target === 'pet' ? { status: 200 } : { status: 404, code: 'PET_NOT_FOUND' },
    },
  ];

  // How a real id is written: as it is, percent-encoded digits (the same id once decoded), or
  // with a sign, a leading zero, a decimal part or full-width digits (400).
  const idDecoration = fc.constantFrom(
    '',
    '',
    '',
    '%',
    '0',
    '+',
    '-',
    ' ',
    '.0',
    'e0',
    'full-width',
  );

  const idCase: fc.Arbitrary<IdCase> = fc.oneof(
    { weight: 5, arbitrary: encodedIdText.map((id) => ({ kind: 'encoded' as const, id })) },
    { weight: 2, arbitrary: rawPercentId.map((segment) => ({ kind: 'raw' as const, segment })) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('existing' as const),
        state: fc.constantFrom<OrderState | 'pet'>('pending', 'shipped', 'cancelled', 'pet'),
        decorate: idDecoration,
      }),
    },
  );

  /** The path segment to send, and the id the app receives (undefined: it cannot decode). */
  async function arrangeId(c: IdCase): Promise<{ segment: string; received: string | undefined }> {
    if (c.kind === 'encoded') return { segment: encodePathSegment(c.id), received: c.id };
    if (c.kind === 'raw') return { segment: c.segment, received: decodedSegment(c.segment) };
    const id = String(
      c.state === 'pet' ? petId : await insertOrder(t.db, { petId, status: c.state }),
    );
    return decorateId(id, c.decorate);
  }

  /** A real id as written by `decorate` (see idCase), and what the app receives. */
  function decorateId(id: string, decorate: string): { segment: string; received: string } {
    switch (decorate) {
      case '':
        return { segment: id, received: id };
      case '%':
        return {
          segment: [...id].map((d) => `%3${d}`).join(''),
          received: id,
        };
      case 'full-width': {
        const wide = [...id].map((d) => String.fromCharCode(0xff10 + Number(d))).join('');
        return { segment: encodePathSegment(wide), received: wide };
      }
      case '.0':
      case 'e0':
        return { segment: id + decorate, received: id + decorate };
      default:
        return {
          segment: encodePathSegment(decorate + id),
          received: decorate + id,
        };
    }
  }

  /** Sends a path-id request; NOT_SENDABLE when the client refuses the path. */
  async function sendPathId(
    operation: IdOperation,
    c: IdCase,
    authorization: string | undefined,
  ): Promise<
    | { res: Response; segment: string; received: string | undefined; before: Snapshot }
    | typeof NOT_SENDABLE
  > {
    const { segment, received } = await arrangeId(c);
    const before = await dataSnapshot(t.db);
    const res = await sendUnlessRefused(() => {
      const req = t.http[operation.method](operation.path(segment));
      return authorization === undefined ? req : req.set('Authorization', authorization);
    });
    return res === NOT_SENDABLE ? res : { res, segment, received, before };
  }

  describe('path ids', () => {
    it.each(idOperations)(
      `$operationId, valid key: any path id answers 400 VALIDATION_FAILED, or what a valid id names; never 5xx (${RUNS.pathIds} runs)`,
      async (operation) => {
        const count = tally(`${operation.operationId} path ids, valid key`);
        await fc.assert(
          fc.asyncProperty(idCase, async (c) => {
            count.runs++;
            const sent = await sendPathId(operation, c, t.auth);
            if (sent === NOT_SENDABLE) {
              count.notSendable++;
              return;
            }
            countStatus(count, sent.res);
            const { res, segment, received, before } = sent;
            const echoes = [segment, received ?? ''];
            expectSaneAnswer(res);
            // What the id names, as it was before the request.
            let target: OrderState | 'pet' | undefined;
            if (received === undefined || !isContractId(received)) {
              expectError(res, 400, 'VALIDATION_FAILED', echoes);
            } else {
              const row = before.orders.find((o) => (o as { id: string }).id === received) as
                { status: OrderState } | undefined;
              target =
                operation.operationId === 'getPetById' || operation.operationId === 'getPet'
                  ? before.pets.some((p) => (p as { id: string }).id === received)
                    ? 'pet'
                    : undefined
                  : row?.status;
              const expected = operation.expected(target);
              expect({ id: received, target, status: res.status, code: res.body?.code }).toEqual({
                id: received,
                target,
                status: expected.status,
                code: expected.code,
              });
              if (res.status >= 400) expectContractError(res, echoes);
            }
            specOf(t, { version: operation.version ?? '1' }).check(operation.operationId, res);

            const after = await dataSnapshot(t.db);
            if (res.status >= 400 || operation.after === undefined) {
              expect(after).toEqual(before);
            } else {
              // A success of ship or cancel changes that one order, and nothing else (shipping a
              // shipped order or cancelling a cancelled one changes nothing at all).
              if (target === operation.after(target as OrderState)) {
                expect(after).toEqual(before);
              } else {
                expect(expectOneRowWritten(before, after, 'orders')).toMatchObject({
                  id: received,
                  status: operation.after(target as OrderState),
                });
              }
            }
          }),
          assertOptions(RUNS.pathIds),
        );
        expect(count.sent).toBeGreaterThan(count.runs / 2);
      },
    );

    it.each(idOperations)(
      `$operationId, no valid key: any path id answers 401 UNAUTHORIZED and writes nothing, never 5xx (${RUNS.pathIdsWithoutKey} runs)`,
      async (operation) => {
        const count = tally(`${operation.operationId} path ids, no valid key`);
        await fc.assert(
          fc.asyncProperty(
            idCase,
            fc.constantFrom(undefined, 'Bearer psk_unknown', 'Basic eDp5'),
            async (c, authorization) => {
              count.runs++;
              const sent = await sendPathId(operation, c, authorization);
              if (sent === NOT_SENDABLE) {
                count.notSendable++;
                return;
              }
              countStatus(count, sent.res);
              const { res, segment, received, before } = sent;
              // docs/api.md: authentication is checked before anything else is looked at.
              expectError(res, 401, 'UNAUTHORIZED', [segment, received ?? '']);
              specOf(t, { version: operation.version ?? '1' }).check(operation.operationId, res);
              expect(await dataSnapshot(t.db)).toEqual(before);
            },
          ),
          assertOptions(RUNS.pathIdsWithoutKey),
        );
        expect(count.sent).toBeGreaterThan(count.runs / 2);
      },
    );
  });

  // -------------------------------------------------------------------------------------------
  // Webhook subscription ids
  // -------------------------------------------------------------------------------------------

  /** A subscription id: any text, or a real subscription of this key, another key or none. */
  type WebhookIdCase =
    | Exclude<IdCase, { kind: 'existing' }>
    | { kind: 'subscription'; owner: 'mine' | 'theirs' | 'deleted'; decorate: string };

  const webhookIdCase: fc.Arbitrary<WebhookIdCase> = fc.oneof(
    { weight: 4, arbitrary: encodedIdText.map((id) => ({ kind: 'encoded' as const, id })) },
    { weight: 1, arbitrary: rawPercentId.map((segment) => ({ kind: 'raw' as const, segment })) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('subscription' as const),
        owner: fc.constantFrom<'mine' | 'theirs' | 'deleted'>('mine', 'mine', 'theirs', 'deleted'),
        decorate: idDecoration,
      }),
    },
  );

  type SubscriptionRow = { id: string; api_key_id: string } & Record<string, unknown>;

  const webhookIdOperations: Array<{
    operationId: 'getWebhook' | 'updateWebhook' | 'deleteWebhook' | 'listWebhookDeliveries';
    method: Method;
    path: (segment: string) => string;
    /** A valid body, for the operations that take one. */
    body?: object;
    success: number;
    /** The subscriptions a success on subscription `id` leaves (none: it writes nothing). */
    written?: (rows: SubscriptionRow[], id: string) => SubscriptionRow[];
  }> = [
    { operationId: 'getWebhook', method: 'get', path: (id) => `/v2/webhooks/${id}`, success: 200 },
    {
      operationId: 'updateWebhook',
      method: 'patch',
      path: (id) => `/v2/webhooks/${id}`,
      body: { description: 'Renamed through a hostile id' },
      success: 200,
      written: (rows, id) =>
        rows.map((row) =>
          row.id === id ? { ...row, description: 'Renamed through a hostile id' } : row,
        ),
    },
    {
      operationId: 'deleteWebhook',
      method: 'delete',
      path: (id) => `/v2/webhooks/${id}`,
      success: 204,
      written: (rows, id) => rows.filter((row) => row.id !== id),
    },
    {
      operationId: 'listWebhookDeliveries',
      method: 'get',
      path: (id) => `/v2/webhooks/${id}/deliveries`,
      success: 200,
    },
  ];

  /** This suite's API key, and another one (issued once, on first use). */
  let webhookOwners: { mine: string; theirs: string } | undefined;

  /**
   * The path segment to send and the id the app receives, as arrangeId; for a real
   * subscription, also its secret (which no answer may show).
   */
  async function arrangeWebhookId(
    c: WebhookIdCase,
  ): Promise<{ segment: string; received: string | undefined; secret?: Buffer }> {
    if (c.kind !== 'subscription') return arrangeId(c);
    if (!webhookOwners) {
      const { ApiKeysService } = await import('../src/auth/api-keys.service.js');
      await t.app.get(ApiKeysService).issue('hostile-other');
      const { rows } = await t.db.query<{ mine: string; theirs: string }>(
        `SELECT min(id) AS mine, max(id) AS theirs FROM api_keys`,
      );
      webhookOwners = rows[0];
    }
    const secret = randomBytes(32);
    const { rows } = await t.db.query<{ id: string }>(
      `INSERT INTO webhook_subscriptions (api_key_id, url, events, secret)
       VALUES ($1, 'https://93.184.216.34/hooks', '{order.placed}', $2) RETURNING id`,
      [c.owner === 'theirs' ? webhookOwners.theirs : webhookOwners.mine, secret],
    );
    const id = rows[0].id;
    if (c.owner === 'deleted') {
      await t.db.query('DELETE FROM webhook_subscriptions WHERE id = $1', [id]);
    }
    return { ...decorateId(id, c.decorate), secret };
  }

  describe('webhook subscription ids', () => {
    it.each(webhookIdOperations)(
      `$operationId: any path id answers 400 VALIDATION_FAILED, 404 WEBHOOK_NOT_FOUND unless it names this key's subscription, never 5xx, never its secret; only an update or a delete of its own writes (${RUNS.pathIds} runs)`,
      async (operation) => {
        const count = tally(`${operation.operationId} path ids`);
        await fc.assert(
          fc.asyncProperty(webhookIdCase, async (c) => {
            count.runs++;
            const { segment, received, secret } = await arrangeWebhookId(c);
            const before = await dataSnapshot(t.db);
            const res = await sendUnlessRefused(() => {
              const req = t.http[operation.method](operation.path(segment)).set(
                'Authorization',
                t.auth,
              );
              return operation.body === undefined ? req : req.send(operation.body);
            });
            if (res === NOT_SENDABLE) {
              count.notSendable++;
              return;
            }
            countStatus(count, res);
            const echoes = [segment, received ?? ''];
            expectSaneAnswer(res);
            if (secret !== undefined) expectSecretNotShown(res, secret);
            const own =
              received !== undefined &&
              before.webhook_subscriptions.some(
                (row) =>
                  (row as { id: string }).id === received &&
                  (row as { api_key_id: string }).api_key_id === webhookOwners?.mine,
              );
            if (received === undefined || !isContractId(received)) {
              expectError(res, 400, 'VALIDATION_FAILED', echoes);
            } else if (own) {
              expect({ id: received, status: res.status }).toEqual({
                id: received,
                status: operation.success,
              });
            } else {
              expectError(res, 404, 'WEBHOOK_NOT_FOUND');
            }
            t.specV2.check(operation.operationId, res);
            const after = await dataSnapshot(t.db);
            if (own && operation.written !== undefined) {
              expect(after.webhook_subscriptions).toEqual(
                operation.written(before.webhook_subscriptions as SubscriptionRow[], received),
              );
              expectUnchangedBut(before, after, 'webhook_subscriptions');
            } else {
              expect(after).toEqual(before);
            }
            // Bounded: the other properties' events go to every subscription.
            await t.db.query('DELETE FROM webhook_subscriptions');
          }),
          assertOptions(RUNS.pathIds),
        );
        expect(count.sent).toBeGreaterThan(count.runs / 2);
      },
    );
  });

  // -------------------------------------------------------------------------------------------
  // Headers
  // -------------------------------------------------------------------------------------------

  const operations = contractOperations(() => ({ db: t.db, petId }));
  /** v2's webhook reads, for the query strings (their writes have properties of their own). */
  const webhookReads = webhookOperations(() => ({ db: t.db })).filter(
    (operation) => operation.method === 'get',
  );

  describe('headers', () => {
    it.each(operations)(
      `$name: any Authorization, Content-Type, X-Request-Id and other headers answer 401 unless the key is valid (writing nothing), never 5xx (${RUNS.headers} runs)`,
      async (operation) => {
        const count = tally(`${operation.name} headers`);
        await fc.assert(
          fc.asyncProperty(
            authorizationCase,
            contentTypeCase,
            requestIdCase,
            extraHeaders,
            async (authorization, contentType, requestId, extra) => {
              count.runs++;
              const { path, body: json } = await operation.arrange();
              const body = json === undefined ? undefined : JSON.stringify(json);
              const auth = authorizationValues(authorization, t.apiKey);
              const before = await dataSnapshot(t.db);
              const res = await sendUnlessRefused(() => {
                let req = t.http[operation.method](path);
                if (auth !== undefined) {
                  req = req.set('Authorization', (auth.length === 1 ? auth[0] : auth) as string);
                }
                if (requestId !== undefined) req = req.set('X-Request-Id', requestId);
                for (const [name, value] of extra) req = req.set(name, value);
                if (contentType.value !== undefined)
                  req = req.set('Content-Type', contentType.value);
                // Text goes out as it is; with no Content-Type, a Buffer, so that the client adds
                // none of its own (given a Buffer and a JSON type, it would serialise the Buffer).
                if (body !== undefined) {
                  req = req.send(contentType.value === undefined ? Buffer.from(body) : body);
                }
                return req;
              });
              if (res === NOT_SENDABLE) {
                count.notSendable++;
                return;
              }
              countStatus(count, res);
              expectSaneAnswer(res);

              // X-Request-Id: the caller's when sane and not shaped like a key, else a generated
              // one (docs/operating.md).
              const sentId = requestId === undefined ? undefined : receivedHeaderValue(requestId);
              if (
                sentId !== undefined &&
                SANE_REQUEST_ID.test(sentId) &&
                !KEY_LIKE_REQUEST_ID.test(sentId)
              ) {
                expect(res.headers['x-request-id']).toBe(sentId);
              } else {
                expect(res.headers['x-request-id']).not.toBe(sentId);
              }

              const key = judgeAuthorization(auth, t.apiKey);
              const echoes = [...(auth ?? []), t.apiKey];
              if (key === 'missing' || key === 'invalid') {
                expectError(res, 401, 'UNAUTHORIZED', echoes);
                expect(res.headers['www-authenticate']).toBe(
                  key === 'missing'
                    ? 'Bearer realm="petstore"'
                    : 'Bearer realm="petstore", error="invalid_token"',
                );
                // A refused key is never echoed (the credentials: what follows the scheme word).
                for (const value of auth ?? []) {
                  const credentials = receivedHeaderValue(value)
                    .replace(/^\S+\s+/, '')
                    .trim();
                  if (credentials.length >= 8) expect(res.text).not.toContain(credentials);
                }
              } else if (key === 'valid') {
                if (body === undefined || contentType.verdict === 'json') {
                  expect(res.status).toBe(operation.success);
                } else if (contentType.verdict === 'other') {
                  expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
                } else {
                  expect([operation.success, 400, 415]).toContain(res.status);
                  if (res.status === 400) expectError(res, 400, 'MALFORMED_JSON');
                }
              } else {
                // Several Authorization headers: refused, or the first one counts.
                expect([401, operation.success, 400, 415]).toContain(res.status);
              }
              if (res.status >= 400) expectContractError(res, echoes);
              specOf(t, operation).check(operation.operationId, res);

              const after = await dataSnapshot(t.db);
              if (!SUCCESS_STATUSES.includes(res.status) || operation.writes === undefined) {
                expect(after).toEqual(before);
              } else {
                expectOneRowWritten(before, after, operation.writes);
              }
            },
          ),
          assertOptions(RUNS.headers),
        );
        expect(count.sent).toBeGreaterThan(count.runs / 2);
      },
    );

    it(`placeOrder and createCategory: any Idempotency-Key answers 201, a replay, 422 IDEMPOTENCY_KEY_REUSED or 400 naming the header, never 5xx (${RUNS.idempotencyKeys} runs)`, async () => {
      const count = tally('Idempotency-Key');
      // Both versions' creates.
      const idempotent = operations.filter((operation) =>
        ['placeOrder', 'createCategory'].includes(operation.operationId),
      );
      /** First answers by version, operation and key (the record outlives the run). */
      const firstAnswers = new Map<string, Response>();
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...idempotent),
          idempotencyKeyValue,
          async (operation, value) => {
            count.runs++;
            // placeOrder's body is the same every time (a repeat is a replay); createCategory's
            // name is new every time (a repeat is a reuse).
            const { path, body } = await operation.arrange();
            const before = await dataSnapshot(t.db);
            const res = await sendUnlessRefused(() =>
              t.http[operation.method](path)
                .set('Authorization', t.auth)
                .set('Idempotency-Key', value)
                .send(body),
            );
            if (res === NOT_SENDABLE) {
              count.notSendable++;
              return;
            }
            countStatus(count, res);
            expectSaneAnswer(res);
            specOf(t, operation).check(operation.operationId, res);
            const after = await dataSnapshot(t.db);
            const key = judgeIdempotencyKey(value);
            const first = firstAnswers.get(`${operation.version} ${operation.operationId} ${key}`);
            if (key === undefined) {
              expectError(res, 400, 'VALIDATION_FAILED', [value]);
              expect(res.body.message).toContain('Idempotency-Key');
            } else if (first === undefined) {
              expect(res.status).toBe(operation.success);
              expect(res.headers['idempotent-replayed']).toBeUndefined();
              firstAnswers.set(`${operation.version} ${operation.operationId} ${key}`, res);
              expectOneRowWritten(before, after, operation.writes ?? 'orders');
              return;
            } else if (operation.operationId === 'placeOrder') {
              expect({
                status: res.status,
                text: res.text,
                location: res.headers.location,
                replayed: res.headers['idempotent-replayed'],
              }).toEqual({
                status: first.status,
                text: first.text,
                location: first.headers.location,
                replayed: 'true',
              });
            } else {
              expectError(res, 422, 'IDEMPOTENCY_KEY_REUSED');
            }
            expect(after).toEqual(before);
          },
        ),
        assertOptions(RUNS.idempotencyKeys),
      );
      expect(count.sent).toBeGreaterThan(count.runs / 2);
    });
  });

  // -------------------------------------------------------------------------------------------
  // Query strings
  // -------------------------------------------------------------------------------------------

  describe('query strings', () => {
    const query = fc.oneof(
      fc.webQueryParameters(),
      fc.constantFrom(
        ...['__proto__[polluted]=yes', 'constructor[prototype][polluted]=yes', '__proto__.x=1'],
        ...['a=%', '%zz=1', '&&&', '=', 'a[b][c][d][e][f][g][h]=1', 'petId=0&quantity=-1'],
        ...['status=shipped', 'id=1', `x=${'q'.repeat(4000)}`, 'a=1&a=2&a=3', 'a[]=1&a[1000]=2'],
      ),
      fc
        .array(fc.tuple(weirdKey, fc.string({ maxLength: 20 })), { maxLength: 4 })
        .map((pairs) =>
          pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
        ),
    );

    it(`any query string on any operation answers its success or 400, never 5xx (${RUNS.queries} runs)`, async () => {
      const count = tally('query strings');
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...operations, ...webhookReads),
          query,
          async (operation, q) => {
            count.runs++;
            const { path, body: json } = await operation.arrange();
            const body = json === undefined ? undefined : JSON.stringify(json);
            const before = await dataSnapshot(t.db);
            const res = await sendUnlessRefused(() => {
              const req = t.http[operation.method](`${path}?${q}`).set('Authorization', t.auth);
              return body === undefined
                ? req
                : req.set('Content-Type', 'application/json').send(body);
            });
            if (res === NOT_SENDABLE) {
              count.notSendable++;
              return;
            }
            countStatus(count, res);
            expectSaneAnswer(res);
            expect([operation.success, 400]).toContain(res.status);
            if (res.status === 400) expectError(res, 400, 'VALIDATION_FAILED', [q]);
            specOf(t, operation).check(operation.operationId, res);
            const after = await dataSnapshot(t.db);
            if (res.status >= 400 || operation.writes === undefined) {
              expect(after).toEqual(before);
            } else {
              expectOneRowWritten(before, after, operation.writes);
            }
          },
        ),
        assertOptions(RUNS.queries),
      );
      expect(count.sent).toBe(count.runs);
    });

    /*
     * v2's three lists, from their real parameter names (docs/api.md
     * "Pages"): valid values, near-misses and junk in any combination and order, judged by
     * judgeListQuery from the docs alone. A valid query must answer exactly the page the
     * docs say; any other, 400 naming a parameter that is wrong.
     */
    describe('v2 list parameters', () => {
      let context: ListQueryContext;
      /** Every cursor the lists answered, with the query it was answered for. */
      const issued = new Map<string, IssuedCursor>();
      /** What a cursor is bound to, besides the list. */
      const BOUND = ['status', 'petId', 'categoryId', 'shipDateFrom', 'shipDateTo', 'order'];

      beforeAll(async () => {
        // Orders over four pets and every status; ship dates that repeat (ties on the edge of
        // a range), none, and the first and last instants a filter can name; a pet without
        // orders. Over 100 orders and categories, so that the default limit cuts a page.
        const pets = [petId];
        for (const name of ['Ada', 'Bob', 'Cy']) pets.push(await insertPet(t.db, { name }));
        const idle = await insertPet(t.db, { name: 'Idle' });
        const t0 = Date.parse('2026-03-01T00:00:00.000Z');
        const shipDates: Array<string | null> = [];
        for (let i = 0; i < 120; i++) {
          const at = t0 + (i % 17) * 5 * 3_600_000 + ((i % 17) % 3);
          shipDates.push(i % 5 === 4 ? null : new Date(at).toISOString());
        }
        shipDates.push('0001-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z');
        for (const [i, shipDate] of shipDates.entries()) {
          const status = ORDER_STATUSES[(i * 5 + Math.floor(i / 3)) % 3];
          await t.db.query(
            'INSERT INTO orders (pet_id, quantity, status, ship_date) VALUES ($1, $2, $3, $4::timestamptz)',
            [
              pets[i % pets.length],
              (i % 9) + 1,
              // A shipped order has a ship date (a check constraint).
              shipDate === null && status === 'shipped' ? 'pending' : status,
              shipDate,
            ],
          );
        }
        const categories: number[] = [];
        for (let i = 0; i < 105; i++) {
          categories.push(
            await insertCategory(t.db, `Page ${i}`, i % 2 === 0 ? null : `Category ${i}`),
          );
        }
        // Over 100 pets too, over three categories (and none) and every status; a category
        // without pets.
        const petCategories = [categories[0], categories[1], categories[2], null];
        for (let i = 0; i < 100; i++) {
          await insertPet(t.db, {
            name: `Pet ${i}`,
            categoryId: petCategories[i % 4],
            status: PET_STATUSES[(i * 2 + Math.floor(i / 4)) % 3],
          });
        }
        const instants = shipDates.flatMap((d) => (d === null ? [] : [parseListDateTime(d)!]));
        context = {
          petIds: [...pets, idle].map(String),
          categoryIds: [categories[0], categories[1], categories[2], categories[3]].map(String),
          instants: [...new Set(instants)],
        };
      });

      /** Asks `rules`' list for a page of `query`; its nextCursor, remembered with its query. */
      async function issue(rules: ListRules, query: string): Promise<string | undefined> {
        const verdict = judgeListQuery(query, rules, issued);
        const res = await t.http.get(`${rules.path}?${query}`).set('Authorization', t.auth);
        expect({ query, status: res.status, valid: verdict.valid }).toEqual({
          query,
          status: 200,
          valid: true,
        });
        if (verdict.valid) remember(verdict, res);
        return (res.body as { nextCursor: string | null }).nextCursor ?? undefined;
      }

      function remember(verdict: { binding: ListBinding }, res: Response): void {
        const { data, nextCursor } = res.body as {
          data: Array<{ id: number }>;
          nextCursor: unknown;
        };
        if (typeof nextCursor === 'string' && data.length > 0) {
          issued.set(nextCursor, { binding: verdict.binding, lastId: BigInt(data.at(-1)!.id) });
        }
      }

      /**
       * Valid filters (`pairs`, decoded) written otherwise, with the same meaning: the pairs
       * reversed, statuses reversed, ship dates at another offset, the default order explicit
       * or left out, a digit of the pet id percent-encoded.
       */
      function rewritten(pairs: Array<[string, string]>): string {
        const written = pairs.reverse().flatMap(([name, value]): string[] => {
          switch (name) {
            case 'status':
              return [`status=${value.split(',').reverse().join('%2C')}`];
            case 'petId':
            case 'categoryId':
              return [`${name}=%3${value}`];
            case 'order':
              return value === 'asc' ? [] : [`order=${value}`];
            default: {
              const instant = parseListDateTime(value)!;
              // -10:00 unless that leaves the four-digit years, then +00:00.
              const at = writeDateTime(instant, -600, 6);
              const text =
                parseListDateTime(at) === instant
                  ? at
                  : writeDateTime(instant, 0, 6, { zulu: false });
              return [`${name}=${text}`];
            }
          }
        });
        return pairs.some(([name]) => name === 'order')
          ? written.join('&')
          : [...written, 'order=asc'].join('&');
      }

      /**
       * The filters of `pairs` with one of them changed: dropped, added, another pet, another
       * set of statuses, a ship date a microsecond further out.
       */
      function otherFilter(
        rules: ListRules,
        pairs: Array<[string, string]>,
        at: number,
      ): Array<[string, string]> {
        const changes: Array<Array<[string, string]>> = [];
        const given = (name: string) => pairs.some(([n]) => n === name);
        const without = (name: string) => pairs.filter(([n]) => n !== name);
        for (const [name, value] of pairs) {
          if (name === 'order') continue;
          changes.push(without(name));
          if (name === 'petId' || name === 'categoryId') {
            const ids = name === 'petId' ? context.petIds : context.categoryIds;
            changes.push([...without(name), [name, ids.find((id) => id !== value)!]]);
          } else if (name === 'status') {
            const items = value.split(',');
            const others = rules.statuses.filter((status) => !items.includes(status));
            changes.push([
              ...without(name),
              [name, [...items.slice(1), ...others.slice(0, 1)].join(',')],
            ]);
          } else {
            const shift = name === 'shipDateFrom' ? -1n : 1n;
            changes.push([
              ...without(name),
              [name, writeDateTime(parseListDateTime(value)! + shift, 0, 6)],
            ]);
          }
        }
        const id = rules.list === 'pets' ? 'categoryId' : 'petId';
        const ids = rules.list === 'pets' ? context.categoryIds : context.petIds;
        if (!given(id)) changes.push([...pairs, [id, ids[at % 3]]]);
        if (!given('status')) changes.push([...pairs, ['status', rules.statuses[at % 3]]]);
        return changes[at % changes.length];
      }

      /** A cursor as the case has it: issued by the service for some query, then mangled. */
      async function cursorFor(rules: ListRules, c: CursorCase, rest: string): Promise<string> {
        if (c.source === 'forged') return c.forged;
        const write = (pairs: Array<[string, string]>) =>
          pairs.map(([n, v]) => `${n}=${encodeURIComponent(v)}`).join('&');
        let from = rules;
        let query = c.issuer;
        if (c.source === 'other-list') {
          from = rules.list === 'orders' ? LIST_CATEGORIES_V2 : LIST_ORDERS_V2;
          query = c.at % 2 === 0 ? '' : 'order=desc';
        } else if (c.source !== 'other') {
          const pairs = decodeQuery(rest).filter(([name]) => BOUND.includes(name));
          const desc = pairs.some(([name, value]) => name === 'order' && value === 'desc');
          const flipped: Array<[string, string]> = [
            ...pairs.filter(([name]) => name !== 'order'),
            ['order', desc ? 'asc' : 'desc'],
          ];
          // The query's own filters (changed as the case says) when they are valid; else none.
          const issuing = !judgeListQuery(write(pairs), rules, issued).valid
            ? ''
            : {
                same: () => write(pairs),
                rewritten: () => rewritten([...pairs]),
                'other-order': () => write(flipped),
                'other-filter': () => write(otherFilter(rules, pairs, c.at)),
              }[c.source]();
          query = judgeListQuery(issuing, rules, issued).valid ? issuing : '';
        }
        const and = query === '' ? '' : '&';
        const cursor =
          (await issue(from, `${query}${and}limit=${c.depth}`)) ??
          (await issue(from, `${query}${and}limit=1`)) ??
          // Fewer than two items match: a cursor of the whole list.
          (await issue(from, 'limit=1'));
        return alterCursor(cursor!, c);
      }

      /** The query string to send: the parts in order, each cursor fetched from the service. */
      async function render(rules: ListRules, parts: QueryPart[]): Promise<string> {
        const rest = parts.flatMap((part) => ('text' in part ? [part.text] : [])).join('&');
        const texts: string[] = [];
        for (const part of parts) {
          texts.push(
            'text' in part
              ? part.text
              : `${part.cursorName}=${await cursorFor(rules, part.cursor, rest)}`,
          );
        }
        return texts.join('&');
      }

      interface ListItem {
        id: bigint;
        json: Record<string, unknown>;
        status?: string;
        petId?: string;
        categoryId?: string;
        /** Microseconds, as stored. */
        shipDate?: bigint;
      }

      /** Every item of the list as the database holds it, and as the API shows it. */
      async function allItems(rules: ListRules, before: Snapshot): Promise<ListItem[]> {
        if (rules.list === 'categories') {
          return (
            before.categories as Array<{ id: string; name: string; description: string | null }>
          ).map(({ id, name, description }) => ({
            id: BigInt(id),
            json: { id: Number(id), name, ...(description === null ? {} : { description }) },
          }));
        }
        if (rules.list === 'pets') {
          const { rows } = await t.db.query<{
            id: string;
            name: string;
            status: string;
            category_id: string | null;
            category_name: string | null;
          }>(
            `SELECT p.id, p.name, p.status, p.category_id, c.name AS category_name
             FROM pets p LEFT JOIN categories c ON c.id = p.category_id ORDER BY p.id`,
          );
          return rows.map((row) => ({
            id: BigInt(row.id),
            status: row.status,
            categoryId: row.category_id ?? undefined,
            json: {
              id: Number(row.id),
              name: row.name,
              status: row.status,
              ...(row.category_id === null
                ? {}
                : { category: { id: Number(row.category_id), name: row.category_name } }),
            },
          }));
        }
        // Ship dates to the microsecond (a JavaScript Date would cut them to milliseconds).
        const { rows } = await t.db.query<{
          id: string;
          pet_id: string;
          quantity: number;
          status: string;
          ship_date: string | null;
        }>(
          `SELECT id, pet_id, quantity, status,
             to_char(ship_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS ship_date
           FROM orders ORDER BY id`,
        );
        return rows.map((row) => {
          const shipDate = row.ship_date === null ? undefined : parseListDateTime(row.ship_date)!;
          // docs/api.md: UTC with milliseconds (the microseconds cut).
          const millis =
            shipDate === undefined ? undefined : shipDate - (((shipDate % 1000n) + 1000n) % 1000n);
          return {
            id: BigInt(row.id),
            status: row.status,
            petId: row.pet_id,
            shipDate,
            json: {
              id: Number(row.id),
              petId: Number(row.pet_id),
              quantity: row.quantity,
              ...(millis === undefined ? {} : { shipDate: writeDateTime(millis, 0, 3) }),
              complete: row.status === 'shipped',
              status: row.status,
            },
          };
        });
      }

      /** Does `item` match the filters of `binding` (all must hold)? */
      const matches = (item: ListItem, binding: ListBinding): boolean =>
        (binding.statuses === undefined || binding.statuses.includes(item.status!)) &&
        (binding.petId === undefined || binding.petId === item.petId) &&
        (binding.categoryId === undefined || binding.categoryId === item.categoryId) &&
        (binding.from === undefined ||
          (item.shipDate !== undefined && item.shipDate >= binding.from)) &&
        (binding.to === undefined || (item.shipDate !== undefined && item.shipDate < binding.to));

      /** A valid query: 200 and exactly its page, with nextCursor and Link as docs/api.md has them. */
      async function expectPage(
        rules: ListRules,
        query: string,
        verdict: Extract<ListVerdict, { valid: true }>,
        res: Response,
        before: Snapshot,
      ): Promise<void> {
        expect({ query, status: res.status, body: res.status === 200 ? 'page' : res.body }).toEqual(
          {
            query,
            status: 200,
            body: 'page',
          },
        );
        const body = res.body as { data: Array<{ id: number }>; nextCursor: string | null };
        expect({ query, keys: Object.keys(body).sort() }).toEqual({
          query,
          keys: ['data', 'nextCursor'],
        });
        const { binding, limit, after } = verdict;
        const byId = new Map((await allItems(rules, before)).map((item) => [item.id, item]));
        // Each item matches the filters, in the order asked for, after the cursor, within the limit.
        const ids = body.data.map((item) => BigInt(item.id));
        const wrong = ids.filter((id) => {
          const item = byId.get(id);
          return item === undefined || !matches(item, binding);
        });
        const sorted = [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        if (binding.order === 'desc') sorted.reverse();
        expect({
          query,
          wrong,
          inOrder: ids.join() === sorted.join() && new Set(ids).size === ids.length,
        }).toEqual({
          query,
          wrong: [],
          inOrder: true,
        });
        expect({ query, count: ids.length, limit, within: ids.length <= limit }).toEqual({
          query,
          count: ids.length,
          limit,
          within: true,
        });
        // Exactly the page: every matching item after the cursor, the first `limit` of them.
        const remaining = [...byId.values()]
          .filter((item) => matches(item, binding))
          .filter(
            (item) =>
              after === undefined || (binding.order === 'asc' ? item.id > after : item.id < after),
          )
          .sort((a, b) => (a.id < b.id ? -1 : 1) * (binding.order === 'asc' ? 1 : -1));
        expect({ query, data: body.data, more: body.nextCursor !== null }).toEqual({
          query,
          data: remaining.slice(0, limit).map((item) => item.json),
          more: remaining.length > limit,
        });
        // Link: present exactly while nextCursor is not null; this request's parameters, as
        // written, with cursor set to nextCursor.
        const link = res.headers.link as string | undefined;
        if (body.nextCursor === null) {
          expect({ query, link }).toEqual({ query, link: undefined });
          return;
        }
        expect({ query, cursor: body.nextCursor.length }).toEqual({ query, cursor: 32 });
        const target = /^<([^>]*)>; rel="next"$/.exec(link ?? '')?.[1] ?? '';
        expect({ query, link, path: target.slice(0, target.indexOf('?')) }).toEqual({
          query,
          link,
          path: rules.path,
        });
        const linked = decodeQuery(target.slice(target.indexOf('?') + 1));
        expect({
          query,
          link,
          parameters: linked.filter(([name]) => name !== 'cursor'),
          cursors: linked.filter(([name]) => name === 'cursor').map(([, value]) => value),
        }).toEqual({
          query,
          link,
          parameters: decodeQuery(query).filter(([name]) => name !== 'cursor'),
          cursors: [body.nextCursor],
        });
        remember(verdict, res);
      }

      /** An invalid query: 400 VALIDATION_FAILED whose message is about a parameter that is wrong. */
      function expectRefusal(rules: ListRules, query: string, bad: string[], res: Response): void {
        const pairs = decodeQuery(query);
        // What the message may quote back (names, values), as it is or as JSON.
        const echoes = [query, ...pairs.flat()].flatMap((text) => [
          text,
          JSON.stringify(text).slice(1, -1),
        ]);
        expect({ query, status: res.status, bad }).toEqual({ query, status: 400, bad });
        expectError(res, 400, 'VALIDATION_FAILED', echoes);
        const message = res.body.message as string;
        const subject = subjectOf(message, [...rules.parameters, ...pairs.map(([name]) => name)]);
        expect({
          query,
          message,
          bad,
          subject,
          namesABadOne: subject !== undefined && bad.includes(subject),
        }).toEqual({
          query,
          message,
          bad,
          subject,
          namesABadOne: true,
        });
        expect({ query, link: res.headers.link }).toEqual({ query, link: undefined });
      }

      it.each([LIST_ORDERS_V2, LIST_CATEGORIES_V2, LIST_PETS_V2])(
        `v2 $operationId: its own parameters (valid, near-miss, repeated, issued and altered cursors), unknown names and junk, in any order: valid answers 200 with exactly the page docs/api.md says (filters, order, limit, cursor, Link), anything else 400 VALIDATION_FAILED naming a bad parameter; never 5xx, nothing written (${RUNS.listQueries} runs)`,
        async (rules) => {
          const count = tally(`v2 ${rules.operationId} query parameters`);
          let valid = 0;
          await fc.assert(
            fc.asyncProperty(listQueryCase(rules, context), async (parts) => {
              count.runs++;
              const query = await render(rules, parts);
              const verdict = judgeListQuery(query, rules, issued);
              const before = await dataSnapshot(t.db);
              const res = await sendUnlessRefused(() =>
                t.http.get(`${rules.path}?${query}`).set('Authorization', t.auth),
              );
              if (res === NOT_SENDABLE) {
                count.notSendable++;
                return;
              }
              countStatus(count, res);
              expectSaneAnswer(res);
              t.specV2.check(rules.operationId, res);
              if (verdict.valid) {
                valid++;
                await expectPage(rules, query, verdict, res, before);
              } else {
                expectRefusal(rules, query, verdict.bad, res);
              }
              expect(await dataSnapshot(t.db)).toEqual(before);
            }),
            assertOptions(RUNS.listQueries),
          );
          expect(count.sent).toBe(count.runs);
          // Both sides of the oracle were exercised, not just one.
          const invalid = count.runs - valid;
          expect({ valid, invalid, both: Math.min(valid, invalid) > count.runs / 5 }).toEqual({
            valid,
            invalid,
            both: true,
          });
        },
        // 200 runs, each with requests and a read-back of the database: more than the default
        // 30 s on a busy machine, or with a read replica (test data written with SQL waits for
        // the standby to replay it).
        120_000,
      );
    });
  });

  // -------------------------------------------------------------------------------------------
  // Bodies
  // -------------------------------------------------------------------------------------------

  /** A field of a body operation and the JSON text of its values (mostly valid ones). */
  type FieldValues = Array<[name: string, values: fc.Arbitrary<string>, optional: boolean]>;

  /** A resource as it stands, read before and after a case (BodyOperation.readBack). */
  interface ReadBack {
    /** What the API shows of it. */
    shown: Record<string, unknown>;
    /** Its row, every column. */
    stored: Record<string, unknown>;
  }

  interface BodyOperation {
    operationId: 'placeOrder' | 'createCategory' | 'createWebhook' | 'updateWebhook';
    version: '1' | '2';
    /** post creates a row of `table`; patch changes the one row the path names. */
    method: 'post' | 'patch';
    /**
     * Runs before each case, before the snapshot (room under a limit, the resource to change),
     * and answers the path to send to. `run` numbers the cases, so what it arranges can vary.
     */
    arrange(run: number): Promise<string>;
    table: 'orders' | 'categories' | 'webhook_subscriptions';
    rules: BodyRules;
    fields: () => FieldValues;
    /** What a body that passes validation answers. */
    outcome(value: Record<string, unknown>): Promise<{ status: number; code?: string }>;
    /** The resource a patch changes, read before and after each case: a 4xx leaves it as it was. */
    readBack?(path: string): Promise<ReadBack>;
    /** Secrets no answer may show (docs/api.md: a subscription's, only in its creation answer). */
    secrets?(): Buffer[];
    /**
     * Checks a success: the answer, the one row it wrote (added, or changed in place) as it is
     * now, and the resource before and after (readBack's operations only).
     */
    checkSuccess(
      value: Record<string, unknown>,
      res: Response,
      row: unknown,
      readBack?: { before: ReadBack; after: ReadBack },
    ): void;
  }

  const mostly = <T>(likely: T, otherwise: T): fc.Arbitrary<T> =>
    fc.oneof({ weight: 3, arbitrary: fc.constant(likely) }, fc.constant(otherwise));

  /** Every field, each with a value from its arbitrary. */
  const completeMembers = (fields: FieldValues): fc.Arbitrary<Member[]> =>
    fc
      .tuple(...fields.map(([, values]) => values))
      .map((values) => values.map((value, i) => ({ key: JSON.stringify(fields[i][0]), value })));

  /**
   * Bodies of the operation's own fields: each present (required ones mostly) or not, its value
   * valid or of a wrong type, at its edges, hostile text; keys sometimes written with escapes
   * ("\u0070etId" is petId); a field sometimes twice (duplicate keys: the last one counts, as
   * in JSON.parse); odd white space.
   */
  function fieldBodies(fields: FieldValues): fc.Arbitrary<string> {
    return fc
      .tuple(
        fc.tuple(
          ...fields.map(([name, values, optional]) =>
            fc.record({
              name: fc.constant(name),
              keep: optional ? fc.boolean() : mostly(true, false),
              value: values,
              escapedKey: mostly(false, true),
            }),
          ),
        ),
        fc.nat(),
        mostly(false, true),
        fc.oneof(fields[0][1], fields[fields.length - 1][1]),
        jsonSpace,
      )
      .map(([chosen, at, repeat, repeated, space]) => {
        const members: Member[] = chosen
          .filter(({ keep }) => keep)
          .map(({ name, value, escapedKey }) => ({
            key: escapedKey
              ? `"\\u${name.charCodeAt(0).toString(16).padStart(4, '0')}${name.slice(1)}"`
              : JSON.stringify(name),
            value,
          }));
        if (repeat && members.length > 0) {
          // The same key twice, either value first: only the last one counts.
          const twice = members[at % members.length];
          members.splice(at % (members.length + 1), 0, { key: twice.key, value: repeated });
        }
        return objectText(members, space);
      });
  }

  /**
   * A complete body plus unknown fields: names that mean something to JavaScript objects
   * (__proto__, constructor, prototype, toString, ...), near-misses of the real names, random
   * names, with any value. docs/api.md: an unknown field is 400 VALIDATION_FAILED.
   */
  function unknownFieldBodies(fields: FieldValues): fc.Arbitrary<string> {
    const extra = fc.oneof(
      fc
        .tuple(weirdKey, fc.oneof(fc.constant('1'), fc.constant('"x"'), wrongTypeText))
        .map(([key, value]) => ({ key: JSON.stringify(key), value })),
      fc.constantFrom(
        // __proto__ written with escapes is still __proto__ once parsed.
        { key: '"\\u005f\\u005fproto\\u005f\\u005f"', value: '{"polluted":"yes"}' },
        { key: '"__proto__"', value: '{"polluted":"yes","petId":1}' },
        { key: '"constructor"', value: '{"prototype":{"polluted":"yes"}}' },
        { key: '"prototype"', value: '{"polluted":"yes"}' },
      ),
    );
    return fc
      .tuple(
        completeMembers(fields),
        fc.array(extra, { minLength: 1, maxLength: 3 }),
        fc.nat(),
        jsonSpace,
      )
      .map(([members, extras, at, space]) => {
        const all = [...members];
        all.splice(at % (all.length + 1), 0, ...extras);
        return objectText(all, space);
      });
  }

  /** Pads a body with white space, or a string field, to exactly `bytes` bytes. */
  function padTo(members: Member[], bytes: number, where: 'space' | 'field'): string {
    const plain = objectText(members);
    if (where === 'space') {
      return plain + ' '.repeat(Math.max(0, bytes - Buffer.byteLength(plain)));
    }
    const field = members[0];
    const base = objectText([{ key: field.key, value: '""' }, ...members.slice(1)]);
    const room = Math.max(0, bytes - Buffer.byteLength(base));
    // Two-byte characters, so bytes and characters differ; ASCII for an odd byte.
    const text = 'é'.repeat(Math.floor(room / 2)) + ' '.repeat(room % 2);
    return objectText([{ key: field.key, value: JSON.stringify(text) }, ...members.slice(1)]);
  }

  /**
   * Everything but a well-formed object of fields: any JSON value, deep nesting (alone or in a
   * field), sizes just under, at and over the 16 KiB limit, huge values, malformed text.
   */
  function structureBodies(fields: FieldValues): fc.Arbitrary<string> {
    const complete = completeMembers(fields);
    const someBody = fieldBodies(fields);
    return fc.oneof(
      hostileJsonValue.map((value) => JSON.stringify(value) ?? 'null'),
      deepJsonText,
      fc
        .tuple(complete, deepJsonText, fc.nat())
        .map(([members, deep, at]) =>
          objectText(
            members.map((m, i) => (i === at % members.length ? { ...m, value: deep } : m)),
          ),
        ),
      fc
        .tuple(
          complete,
          fc.integer({ min: MAX_BODY_BYTES - 3, max: MAX_BODY_BYTES + 3 }),
          fc.constantFrom<'space' | 'field'>('space', 'field'),
        )
        .map(([members, bytes, where]) => padTo(members, bytes, where)),
      fc
        .tuple(complete, fc.integer({ min: 1000, max: 4 * MAX_BODY_BYTES }), fc.nat())
        .map(([members, length, at]) =>
          objectText(
            members.map((m, i) =>
              i === at % members.length ? { ...m, value: JSON.stringify('x'.repeat(length)) } : m,
            ),
          ),
        ),
      fc
        .tuple(someBody, fc.nat())
        .map(([text, at]) => text.slice(0, at % Math.max(1, text.length))),
      fc
        .tuple(
          someBody,
          fc.nat(),
          fc.constantFrom(',', ':', '{', '}', '"', '\\', "'", '\u0000', 'x'),
        )
        .map(([text, at, c]) => {
          const i = at % Math.max(1, text.length);
          return text.slice(0, i) + c + text.slice(i);
        }),
      someBody.map((text) => `\ufeff${text}`),
      hostileText,
      fc.constantFrom('', ' ', 'null', '[]', '{}', '{"a":1}{"b":2}', '{"a":1,}', 'NaN', '\u0000'),
    );
  }

  /** An optional description (categories, subscriptions): at most 500 characters. */
  const descriptionText = fc.oneof(
    { weight: 3, arbitrary: fc.string({ maxLength: 40 }).map((s) => JSON.stringify(s)) },
    { weight: 2, arbitrary: hostileText.map((s) => JSON.stringify(s)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 498, max: 502 }), fc.constantFrom('d', '😀', '\n'))
        .map(([n, c]) => JSON.stringify(c.repeat(n))),
    },
    { weight: 2, arbitrary: wrongTypeText },
  );

  /** A webhook URL of known hosts (public, private, unresolvable), then mangled now and then. */
  const wellFormedWebhookUrl = fc
    .tuple(
      fc.constantFrom('https://', 'http://', 'HTTPS://', 'hTtP://'),
      fc.oneof(
        // Mostly public, so that many cases get as far as the 201.
        fc.constantFrom(...WEBHOOK_HOSTS.filter(([, v]) => v === 'ok').map(([host]) => host)),
        fc.constantFrom(...WEBHOOK_HOSTS.map(([host]) => host)),
      ),
      fc.constantFrom('', '', '', ':443', ':8080', ':0', ':65536', ':x'),
      fc.webPath(),
      fc.option(fc.webQueryParameters(), { nil: undefined }),
      fc.option(fc.webFragments(), { nil: undefined }),
    )
    .map(
      ([scheme, host, port, path, query, fragment]) =>
        `${scheme}${host}${port}${path}${query === undefined ? '' : `?${query}`}${fragment === undefined ? '' : `#${fragment}`}`,
    );
  const webhookUrlText = fc.oneof(
    { weight: 10, arbitrary: wellFormedWebhookUrl.map((url) => JSON.stringify(url)) },
    {
      weight: 5,
      arbitrary: fc
        .tuple(
          wellFormedWebhookUrl,
          fc.nat(),
          fc.constantFrom(
            ...[' ', '\t', '\n', '\u0000', '\u0001', '\u007f', 'é', '😀', '\ud800', '\u2028'],
            ...['<', '>', '"', '\\', '^', '`', '|', '{', '}', '@', 'user:pw@', '%00', '%', '#'],
          ),
        )
        .map(([url, at, c]) => {
          // Half the time in the last characters (path, query, fragment), where the host
          // still parses and only the character itself is wrong.
          const i = at % 2 === 0 ? url.length - (at % 5) / 2 : at % (url.length + 1);
          return JSON.stringify(url.slice(0, i) + c + url.slice(i));
        }),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          ...['ftp://93.184.216.34/x', '/relative', 'https:93.184.216.34/x', 'https://', ''],
          ...['https:///x', '//93.184.216.34/x', 'https://user@93.184.216.34/', 'javascript:x'],
          ...['https://:pw@93.184.216.34/', 'data:text/plain,x', 'https://93.184.216.34.invalid'],
        )
        .map((url) => JSON.stringify(url)),
    },
    {
      // Around the 2048-character limit.
      weight: 1,
      arbitrary: fc
        .integer({ min: 2044, max: 2052 })
        .map((n) => JSON.stringify(`https://93.184.216.34/${'a'.repeat(n - 22)}`)),
    },
    { weight: 1, arbitrary: hostileText.map((s) => JSON.stringify(s)) },
    { weight: 2, arbitrary: wrongTypeText },
  );

  /**
   * A subscription's events: sets of the real types mostly; repeats, unknown types and
   * near-misses; arrays far longer than the four types (to well over 16 KiB); wrong types.
   */
  const webhookEventsText = fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .shuffledSubarray(WEBHOOK_EVENT_TYPES, { minLength: 1 })
        .map((events) => JSON.stringify(events)),
    },
    {
      // Repeats, unknown types, near-misses, an empty list.
      weight: 2,
      arbitrary: fc
        .array(
          fc.constantFrom(
            ...WEBHOOK_EVENT_TYPES,
            ...['order.deleted', 'ORDER.PLACED', 'order.placed ', '', '*', 'order.*'],
          ),
          { maxLength: 6 },
        )
        .map((events) => JSON.stringify(events)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 5, max: 2000 }), fc.nat())
        .map(([length, at]) =>
          JSON.stringify(
            Array.from(
              { length },
              (_, i) => WEBHOOK_EVENT_TYPES[(i + at) % WEBHOOK_EVENT_TYPES.length],
            ),
          ),
        ),
    },
    { weight: 2, arbitrary: wrongTypeText },
  );

  /** updateWebhook's `enabled`: true or false mostly; else what careless clients send for one. */
  const enabledText = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('true', 'false') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        ...['"true"', '"false"', '1', '0', '"on"', '"yes"', '""', '[true]', '{"enabled":true}'],
      ),
    },
    { weight: 1, arbitrary: wrongTypeText },
  );

  /** A field's values, or now and then null. */
  const orNull = (values: fc.Arbitrary<string>): fc.Arbitrary<string> =>
    fc.oneof({ weight: 6, arbitrary: values }, { weight: 1, arbitrary: fc.constant('null') });

  const pick = (row: Record<string, unknown>, columns: readonly string[]) =>
    Object.fromEntries(columns.map((column) => [column, row[column]]));

  /** The columns of a subscription no field of updateWebhook changes. */
  const UNCHANGED_COLUMNS = [
    'id',
    'api_key_id',
    'secret',
    'previous_secret',
    'previous_secret_expires_at',
    'secret_rotations',
    'created_at',
  ];

  /** The subscription updateWebhook's current case changes, and its secrets. */
  let subscriptionToChange: { id: string; secrets: Buffer[] } | undefined;

  /**
   * A fresh subscription of this key for each updateWebhook case, alone (none is left to
   * receive the other cases' events), in one of the states a change can find it in, by case
   * number: enabled, disabled at its owner's request, or disabled by its receiver's 410 after
   * failing a while; with a description or none; its secret rotated (the previous one still
   * signing) or not. Answers its path.
   */
  async function arrangeSubscriptionToChange(run: number): Promise<string> {
    await t.db.query('DELETE FROM webhook_subscriptions');
    const reason = [null, 'requested', 'gone'][run % 3];
    const secret = randomBytes(32);
    const previous = run % 4 < 2 ? null : randomBytes(32);
    const { rows } = await t.db.query<{ id: string }>(
      `INSERT INTO webhook_subscriptions (api_key_id, url, events, description, secret,
         previous_secret, previous_secret_expires_at, secret_rotations,
         enabled, disabled_at, disabled_reason, failing_since)
       VALUES ((SELECT min(id) FROM api_keys), 'https://93.184.216.34/hooks',
         '{order.placed,order.shipped}', $1, $2,
         $3::bytea, CASE WHEN $3::bytea IS NULL THEN NULL ELSE now() + interval '1 day' END,
         CASE WHEN $3::bytea IS NULL THEN 0 ELSE 1 END,
         $4::text IS NULL, CASE WHEN $4::text IS NULL THEN NULL ELSE now() END, $4::text,
         CASE WHEN $4::text = 'gone' THEN now() - interval '1 hour' END)
       RETURNING id`,
      [run % 2 === 0 ? 'Order updates for the warehouse' : null, secret, previous, reason],
    );
    subscriptionToChange = { id: rows[0].id, secrets: previous ? [secret, previous] : [secret] };
    return `/v2/webhooks/${rows[0].id}`;
  }

  /** The subscription at `path`, as getWebhook shows it and as its row holds it. */
  async function readSubscription(path: string): Promise<ReadBack> {
    const shown = await t.http.get(path).set('Authorization', t.auth);
    expect({ path, status: shown.status }).toEqual({ path, status: 200 });
    t.specV2.check('getWebhook', shown);
    const { rows } = await t.db.query<Record<string, unknown>>(
      'SELECT * FROM webhook_subscriptions WHERE id = $1',
      [subscriptionToChange?.id],
    );
    return { shown: shown.body as Record<string, unknown>, stored: rows[0] };
  }

  const bodyOperations: BodyOperation[] = [
    {
      operationId: 'placeOrder',
      version: '1',
      method: 'post',
      arrange: () => Promise.resolve('/v1/store/orders'),
      table: 'orders',
      rules: PLACE_ORDER_RULES,
      fields: () => [
        [
          'petId',
          fc.oneof(
            { weight: 6, arbitrary: fc.constant(String(petId)) },
            { weight: 1, arbitrary: fc.constantFrom('987654321', `${petId}.0`, `${petId}e0`) },
            { weight: 2, arbitrary: wrongTypeText },
            { weight: 1, arbitrary: fc.constant(JSON.stringify(String(petId))) },
          ),
          false,
        ],
        [
          'quantity',
          fc.oneof(
            { weight: 6, arbitrary: fc.integer({ min: 1, max: 1000 }).map(String) },
            { weight: 1, arbitrary: fc.constantFrom('0', '1001', '1e3', '1E0', '10.0', '"5"') },
            { weight: 2, arbitrary: wrongTypeText },
          ),
          false,
        ],
        [
          'shipDate',
          fc.oneof(
            {
              weight: 3,
              arbitrary: fc
                .tuple(
                  fc.date({
                    min: new Date('0001-01-01T00:00:00Z'),
                    max: new Date('9999-12-31T23:59:59Z'),
                    noInvalidDate: true,
                  }),
                  fc.constantFrom('Z', '+00:00', '-00:00', '+14:00', '-12:00', '+23:59', '-23:59'),
                )
                .map(([date, offset]) => JSON.stringify(date.toISOString().replace('Z', offset))),
            },
            {
              weight: 2,
              arbitrary: fc
                .constantFrom(
                  ...['2026-11-24T09:00:00Z', '2026-11-24T09:00:00.123456789+02:00'],
                  ...['9999-12-31T23:59:59-23:59', '9999-12-31T23:59:59.999-00:01'],
                  ...['0001-01-01T00:00:00+00:01', '0001-01-01T00:00:00+23:59'],
                  ...['0000-01-01T00:00:00Z', '2026-02-29T00:00:00Z', '2024-02-29T00:00:00Z'],
                  ...['2026-11-24T23:59:60Z', '2026-11-24t09:00:00z', '2026-11-24T09:00Z'],
                  ...['2026-11-24', 'tomorrow', '', '2026-13-01T00:00:00Z', '1e3'],
                  ...['2026-11-24T09:00:00', '2026-11-24T09:00:00+24:00'],
                  ...['+002026-11-24T09:00:00Z', '2026-11-24T09:00:00.1234567890Z'],
                )
                .map((s) => JSON.stringify(s)),
            },
            { weight: 1, arbitrary: hostileText.map((s) => JSON.stringify(s)) },
            { weight: 1, arbitrary: wrongTypeText },
          ),
          true,
        ],
      ],
      outcome: async (value) =>
        (await petExists(value.petId as number))
          ? { status: 201 }
          : { status: 422, code: 'PET_NOT_FOUND' },
      checkSuccess: (value, res, row) => {
        expect(res.body).toEqual({
          id: expect.any(Number),
          petId: value.petId,
          quantity: value.quantity,
          complete: false,
          status: 'pending',
          ...(value.shipDate === undefined ? {} : { shipDate: expect.any(String) }),
        });
        if (value.shipDate !== undefined) {
          // docs/api.md: ISO 8601 UTC with milliseconds, the instant that was sent.
          const shipDate = res.body.shipDate as string;
          const sent = shipDateInstant(value.shipDate as string);
          expect({ shipDate, format: SHIP_DATE_FORMAT.test(shipDate) }).toEqual({
            shipDate,
            format: true,
          });
          expect({ shipDate, sent, answered: Date.parse(shipDate) }).toEqual({
            shipDate,
            sent,
            answered: sent,
          });
        }
        expect(res.headers.location).toBe(`/v1/store/orders/${res.body.id}`);
        expect(row).toEqual(
          expect.objectContaining({
            id: String(res.body.id),
            pet_id: String(value.petId),
            quantity: value.quantity,
            status: 'pending',
          }),
        );
      },
    },
    {
      operationId: 'createCategory',
      version: '1',
      method: 'post',
      arrange: () => Promise.resolve('/v1/categories'),
      table: 'categories',
      rules: CREATE_CATEGORY_RULES,
      fields: () => [
        [
          'name',
          fc.oneof(
            {
              weight: 4,
              arbitrary: fc
                .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }), fc.nat())
                .map(([name, n]) => JSON.stringify(`${name} ${n}`)),
            },
            {
              // The taken name in any case, with surrounding white space.
              weight: 1,
              arbitrary: fc
                .tuple(
                  fc.mixedCase(fc.constant(takenCategory)),
                  fc.constantFrom('', ' ', '\t', '\u00a0', '\ufeff', '\u2028', '\n '),
                )
                .map(([name, space]) => JSON.stringify(`${space}${name}${space}`)),
            },
            {
              // Around the 64-character limit, in characters of one or two UTF-16 units.
              weight: 2,
              arbitrary: fc
                .tuple(
                  fc.integer({ min: 60, max: 68 }),
                  fc.constantFrom('a', '😀', 'é', 'e\u0301', '\u00a0'),
                  fc.constantFrom('', '  ', '\t'),
                  fc.nat(),
                )
                .map(([n, c, pad, tag]) => {
                  const head = String(tag);
                  const repeats = Math.max(0, n - head.length);
                  return JSON.stringify(pad + head + c.repeat(repeats) + pad);
                }),
            },
            {
              weight: 3,
              arbitrary: fc
                .tuple(hostileText, fc.nat())
                .map(([s, n]) => JSON.stringify(`${s}${n}`)),
            },
            { weight: 2, arbitrary: wrongTypeText },
          ),
          false,
        ],
        ['description', descriptionText, true],
      ],
      outcome: async (value) =>
        (await categoryTaken(storedName(value.name as string)))
          ? { status: 409, code: 'CATEGORY_EXISTS' }
          : { status: 201 },
      checkSuccess: (value, res, row) => {
        const name = storedName(value.name as string);
        const description =
          value.description === undefined ? undefined : storedProse(value.description as string);
        expect(res.body).toEqual({
          id: expect.any(Number),
          name,
          ...(description === undefined ? {} : { description }),
        });
        expect(row).toEqual({ id: String(res.body.id), name, description: description ?? null });
      },
    },
    {
      operationId: 'createWebhook',
      version: '2',
      method: 'post',
      // Room under the 20-per-key limit; none left behind to receive the other cases' events.
      arrange: async () => {
        await t.db.query('DELETE FROM webhook_subscriptions');
        return '/v2/webhooks';
      },
      table: 'webhook_subscriptions',
      rules: CREATE_WEBHOOK_RULES,
      fields: () => [
        ['url', webhookUrlText, false],
        ['events', webhookEventsText, false],
        ['description', descriptionText, true],
      ],
      outcome: () => Promise.resolve({ status: 201 }),
      checkSuccess: (value, res, row) => {
        const description =
          value.description === undefined ? undefined : storedProse(value.description as string);
        expect(res.body).toEqual({
          id: expect.any(Number),
          url: value.url,
          events: value.events,
          ...(description === undefined ? {} : { description }),
          createdAt: expect.stringMatching(SHIP_DATE_FORMAT),
          enabled: true,
          secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        });
        expect(res.headers.location).toBe(`/v2/webhooks/${res.body.id}`);
        // The secret shown is the one it signs with.
        const secret = Buffer.from((res.body.secret as string).slice(6), 'base64');
        expect(row).toEqual(
          expect.objectContaining({
            id: String(res.body.id),
            url: value.url,
            events: value.events,
            description: description ?? null,
            secret,
          }),
        );
      },
    },
    {
      operationId: 'updateWebhook',
      version: '2',
      method: 'patch',
      arrange: arrangeSubscriptionToChange,
      table: 'webhook_subscriptions',
      readBack: readSubscription,
      secrets: () => subscriptionToChange?.secrets ?? [],
      rules: UPDATE_WEBHOOK_RULES,
      // Every field may be left out; null now and then, which only description may be.
      fields: () => [
        ['url', orNull(webhookUrlText), true],
        ['events', orNull(webhookEventsText), true],
        ['description', orNull(descriptionText), true],
        ['enabled', orNull(enabledText), true],
      ],
      outcome: () => Promise.resolve({ status: 200 }),
      checkSuccess: (value, res, row, readBack) => {
        const { before, after } = readBack!;
        const was = before.shown;
        // The fields sent, as createWebhook would store them; the others as they were.
        const expected: Record<string, unknown> = { ...was };
        if (value.url !== undefined) expected.url = value.url;
        if (value.events !== undefined) expected.events = value.events;
        if (value.description === null) delete expected.description;
        else if (value.description !== undefined) {
          expected.description = storedProse(value.description as string);
        }
        // docs/api.md: false disables (requested) an enabled one and keeps a disabled one's
        // reason and time; true enables, clearing both.
        if (value.enabled === true) {
          expected.enabled = true;
          delete expected.disabledAt;
          delete expected.disabledReason;
        } else if (value.enabled === false && was.enabled === true) {
          expected.enabled = false;
          expected.disabledAt = expect.stringMatching(SHIP_DATE_FORMAT);
          expected.disabledReason = 'requested';
        }
        expect(res.body).toEqual(expected);
        // Read back: the change is the subscription's now, and its row says the same.
        expect(after.shown).toEqual(res.body);
        expect(row).toMatchObject({
          url: expected.url,
          events: expected.events,
          description: expected.description ?? null,
        });
        // What no field names stays as it was: the owner, the secrets, createdAt.
        const enabling = value.enabled === true && was.enabled === false;
        expect(pick(after.stored, UNCHANGED_COLUMNS)).toEqual(
          pick(before.stored, UNCHANGED_COLUMNS),
        );
        expect(after.stored.failing_since).toEqual(enabling ? null : before.stored.failing_since);
      },
    },
  ];

  /** application/json as every client should send it. */
  const JSON_CONTENT: ContentTypeCase = { value: 'application/json', verdict: 'json' };

  /** The answers a verdict allows once the business outcome is known. */
  async function allowedAnswers(
    operation: BodyOperation,
    verdict: BodyVerdict,
    contentType: ContentTypeCase['verdict'],
  ): Promise<Array<{ status: number; code?: string }>> {
    // docs/api.md: a body that is not application/json is 415, whatever it holds.
    if (contentType === 'other') return [{ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' }];
    const answers: Array<{ status: number; code?: string }> = [];
    // application/json with odd parameters: read as JSON, or refused as not UTF-8 (415) or
    // unreadable (400).
    if (contentType === 'open') {
      answers.push({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
      answers.push({ status: 400, code: 'MALFORMED_JSON' });
    }
    // RFC 8259 8.1: a parser may ignore a byte order mark, or refuse it.
    if (verdict.bom) answers.push({ status: 400, code: 'MALFORMED_JSON' });
    if (verdict.kind === 'refused')
      return [...answers, { status: verdict.status, code: verdict.code }];
    answers.push(await operation.outcome(verdict.value));
    if (verdict.kind === 'open') answers.push({ status: 400, code: 'VALIDATION_FAILED' });
    return answers;
  }

  /**
   * Sends one body (as `contentType` says) and checks the answer against docs/api.md's verdict
   * on it, and what it wrote.
   */
  async function checkBody(
    operation: BodyOperation,
    text: string,
    count: Tally,
    contentType: ContentTypeCase = JSON_CONTENT,
  ): Promise<void> {
    count.runs++;
    const path = await operation.arrange(count.runs);
    const verdict = judgeBody(text, operation.rules);
    const allowed = await allowedAnswers(operation, verdict, contentType.verdict);
    const before = await dataSnapshot(t.db);
    const readBefore = await operation.readBack?.(path);
    const res = await sendUnlessRefused(() => {
      const req = t.http[operation.method](path).set('Authorization', t.auth);
      if (contentType.value !== undefined) req.set('Content-Type', contentType.value);
      // Without a Content-Type, a Buffer, so that the client adds none of its own.
      return req.send(contentType.value === undefined ? Buffer.from(text) : text);
    });
    if (res === NOT_SENDABLE) {
      count.notSendable++;
      return;
    }
    countStatus(count, res);
    expectSaneAnswer(res);
    for (const secret of operation.secrets?.() ?? []) expectSecretNotShown(res, secret);
    const answer = { status: res.status, code: res.body?.code as unknown };
    const matched = allowed.some(
      (a) => a.status === answer.status && (a.code === undefined || a.code === answer.code),
    );
    expect({ verdict: verdict.kind, answer, allowed: matched ? 'matched' : allowed }).toEqual({
      verdict: verdict.kind,
      answer,
      allowed: 'matched',
    });
    specOf(t, operation).check(operation.operationId, res);

    const after = await dataSnapshot(t.db);
    const readAfter = await operation.readBack?.(path);
    if (res.status >= 400) {
      expectContractError(res, verdict.keys);
      expect(after).toEqual(before);
      expect(readAfter).toEqual(readBefore);
      if (
        verdict.kind === 'refused' &&
        verdict.fields.length > 0 &&
        res.status === verdict.status &&
        res.body.code === verdict.code
      ) {
        // docs/api.md: the message names the field (or the guard that refused it).
        const names = [...verdict.fields];
        if (verdict.keys.includes('__proto__')) names.push('__proto__');
        const parsed: unknown = JSON.parse(
          Buffer.from(text)
            .toString('utf8')
            .replace(/^\ufeff/, ''),
        );
        if (nestingDepth(parsed) >= 30) names.push('nested');
        const message = res.body.message as string;
        expect({ message, namesAField: names.some((n) => message.includes(n)) }).toEqual({
          message,
          namesAField: true,
        });
      }
    } else {
      expect(SUCCESS_STATUSES).toContain(res.status);
      // One row written, the one the answer is about: added by a post, changed (or left as it
      // was) by a patch; nothing else anywhere.
      const { table } = operation;
      const id = String(res.body.id);
      const others = (snapshot: Snapshot) =>
        snapshot[table].filter((row) => (row as { id: string }).id !== id);
      expectUnchangedBut(before, after, table);
      expect(others(after)).toEqual(others(before));
      const row = after[table].find((row) => (row as { id: string }).id === id);
      const existed = before[table].length !== others(before).length;
      expect({ id, written: row !== undefined, existed }).toEqual({
        id,
        written: true,
        existed: operation.method === 'patch',
      });
      operation.checkSuccess(
        (verdict as { value: Record<string, unknown> }).value,
        res,
        row,
        readBefore && readAfter && { before: readBefore, after: readAfter },
      );
    }
    // The app runs in this process: a polluted prototype would show here.
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeysBefore);
  }

  describe('bodies (valid key, application/json)', () => {
    it.each(bodyOperations)(
      `$operationId: its own fields with any values (wrong types, edges, unicode, NUL, lone surrogates, duplicate and escaped keys) answer as docs/api.md says; a 4xx writes nothing (${RUNS.bodyFields} runs)`,
      async (operation) => {
        const count = tally(`${operation.operationId} body fields`);
        await fc.assert(
          fc.asyncProperty(fieldBodies(operation.fields()), (text) =>
            checkBody(operation, text, count),
          ),
          assertOptions(RUNS.bodyFields),
        );
        expect(count.sent).toBe(count.runs);
      },
    );

    it.each(bodyOperations)(
      `$operationId: unknown fields (__proto__, constructor, prototype, toString, near-misses, random) answer 400 VALIDATION_FAILED and write nothing (${RUNS.unknownFields} runs)`,
      async (operation) => {
        const count = tally(`${operation.operationId} unknown fields`);
        await fc.assert(
          fc.asyncProperty(unknownFieldBodies(operation.fields()), (text) =>
            checkBody(operation, text, count),
          ),
          assertOptions(RUNS.unknownFields),
        );
        expect(count.sent).toBe(count.runs);
      },
    );

    it.each(bodyOperations)(
      `$operationId: any JSON value, deep nesting, sizes around 16 KiB and malformed text answer 400/413 (or as a valid body), never 5xx; a 4xx writes nothing (${RUNS.bodyStructure} runs)`,
      async (operation) => {
        const count = tally(`${operation.operationId} body structure`);
        await fc.assert(
          fc.asyncProperty(structureBodies(operation.fields()), (text) =>
            checkBody(operation, text, count),
          ),
          assertOptions(RUNS.bodyStructure),
        );
        expect(count.sent).toBe(count.runs);
      },
    );
  });

  describe('bodies (valid key, any Content-Type)', () => {
    it.each(bodyOperations)(
      `$operationId: any Content-Type, or none, with bodies of its own fields: application/json is judged as those bodies are, any other media type answers 415 UNSUPPORTED_MEDIA_TYPE; a 4xx writes nothing (${RUNS.contentTypes} runs)`,
      async (operation) => {
        const count = tally(`${operation.operationId} content types`);
        await fc.assert(
          fc.asyncProperty(fieldBodies(operation.fields()), contentTypeCase, (text, contentType) =>
            checkBody(operation, text, count, contentType),
          ),
          assertOptions(RUNS.contentTypes),
        );
        expect(count.sent).toBeGreaterThan(count.runs / 2);
      },
    );
  });

  // -------------------------------------------------------------------------------------------
  // After all of it
  // -------------------------------------------------------------------------------------------

  describe('after all of it', () => {
    it('every order and category the hostile input left behind still reads back as docs/api.md says', async () => {
      // What was accepted above must not break the reads of every other client.
      const orders = await t.http.get('/v1/store/orders').set('Authorization', t.auth);
      expect(orders.status).toBe(200);
      // docs/api.md: shipDate is ISO 8601 UTC with milliseconds, 2026-11-21T10:00:00.000Z.
      const badShipDates = (orders.body as Array<{ shipDate?: string }>).filter(
        (order) => order.shipDate !== undefined && !SHIP_DATE_FORMAT.test(order.shipDate),
      );
      expect(badShipDates).toEqual([]);
      t.spec.check('listOrders', orders);
      const categories = await t.http.get('/v1/categories').set('Authorization', t.auth);
      expect(categories.status).toBe(200);
      t.spec.check('listCategories', categories);
      const { rows } = await t.db.query<{ id: string }>(
        'SELECT id FROM orders WHERE ship_date IS NOT NULL ORDER BY id',
      );
      for (const { id } of rows) {
        const order = await t.http.get(`/v1/store/orders/${id}`).set('Authorization', t.auth);
        expect({ id, status: order.status }).toEqual({ id, status: 200 });
        t.spec.check('getOrderById', order);
        // One order, one representation: the list and the single read agree.
        expect(orders.body).toContainEqual(order.body);
      }
    });

    it('left Object.prototype and Array.prototype as they were (no prototype pollution)', () => {
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeysBefore);
      expect(Object.getOwnPropertyNames(Array.prototype).sort()).toEqual(arrayPrototypeKeysBefore);
      const plain: Record<string, unknown> = {};
      expect(Object.keys(plain)).toEqual([]);
      const keys = [
        'polluted',
        'x',
        'petId',
        ...WEIRD_KEYS.filter((k) => !(k in Object.prototype)),
      ];
      for (const key of keys) {
        expect({ key, value: plain[key] }).toEqual({ key, value: undefined });
      }
    });
  });
});
