/**
 * What the two bare servers of `npm run bench` do for each endpoint, on `pg` alone: the raw
 * baseline (baseline-server.ts, on `node:http`) and the bare Nest floor (bare-nest-server.ts).
 * The same bearer check, SQL and JSON as the service, and the same headers (the request id, the
 * security headers, the rate-limit headers from the service's count per key, the deprecation
 * headers), so each answer has the service's bytes; nothing else: no validation library, no
 * logging, no metrics. Each server only routes requests here and sends what comes back.
 *
 * Environment (as the harness gives both): the service's DATABASE_URL (required) and DB_*
 * variables, read by the service's own configuration; BASELINE_AUTH_CACHE_MS (0: look the key up
 * on every request, as src/auth does without a cache; > 0: keep a valid key that long, for when
 * the service caches key checks), BASELINE_LIST_SINGLE_ROWS (the service's
 * LIST_SINGLE_QUERY_ROWS, which the harness reads from the build), BASELINE_SERVICE_DIST (the
 * service's build: its configuration, statements and columns, see service-build.ts). The
 * BASELINE_* variables are required.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { OrderCopyJson } from './order-copy-json.js';
import { loadStatements } from './service-build.js';

export const JSON_TYPE = 'application/json; charset=utf-8';
const REALM = 'Bearer realm="petstore"';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  /** The API's error body (docs/api.md). */
  body(): { code: string; message: string; status: number } {
    return { code: this.code, message: this.message, status: this.status };
  }
}

/** JSON of GET /v1/categories' elements and POST /v1/categories' answer (CategoryDto). */
export interface CategoryJson {
  id: number;
  name: string;
  description?: string;
}

/** JSON of GET /v1/pets/{id} (PetDto). */
export interface PetJson {
  id: number;
  name: string;
  category?: { id: number; name: string };
  status: string;
}

interface CategoryRow {
  id: string;
  name: string;
  description: string | null;
}

interface PetRow {
  id: string;
  name: string;
  status: string;
  categoryId: string | null;
  categoryName: string | null;
}

/**
 * An order row as PostgreSQL sent it, each column's text (no type parsing), in the order of the
 * service's list (id, petId, quantity, shipDate, status): what OrderCopyJson and orderJson write.
 */
type OrderTextRow = [string, string, string, string | null, string];

/** Rows of every shape, for the start-up check of the renderers against the service's. */
const SAMPLE_ORDERS: OrderTextRow[] = [
  ['1', '2', '3', null, 'pending'],
  ['9007199254740991', '100', '1', '2026-11-25 05:03:54.571234+00', 'shipped'],
  ['42', '7', '250', '2026-01-02 03:04:05+00', 'cancelled'],
  ['43', '7', '5', '2026-01-02 03:04:05.1+00', 'pending'],
];

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex -- as above, line breaks and tabs allowed
const CONTROL_EXCEPT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;
const API_KEY_PATTERN = /^psk_[A-Za-z0-9_-]{22,128}$/;
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const INT64_MAX = 9223372036854775807n;
const MAX_BODY_BYTES = 16 * 1024;
const TEXT_TYPES = { getTypeParser: () => (value: string) => value };

/** The caller's X-Request-Id when it is sane, else a new one (src/common/http). */
export function requestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (value === undefined || value === '') throw new Error(`${name} is required`);
  return value;
}

function requiredNumber(env: NodeJS.ProcessEnv, name: string): number {
  const value = Number(required(env, name));
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number`);
  return value;
}

/** The endpoints' work, from the environment and the service's build; throws on anything missing. */
export async function openEndpoints(env: NodeJS.ProcessEnv) {
  const authCacheMs = requiredNumber(env, 'BASELINE_AUTH_CACHE_MS');
  const listSingleRows = requiredNumber(env, 'BASELINE_LIST_SINGLE_ROWS');
  const service = await loadStatements(required(env, 'BASELINE_SERVICE_DIST'));
  checkRenderers((row) => service.ORDER_JSON.fromText(row));
  const config = service.loadConfig(env);
  if (config.databaseUrl === undefined) throw new Error('DATABASE_URL is required');
  const { poolSize, connectTimeoutMs, statementTimeoutMs, streamTimeoutMs } = config.db;
  const petDeprecationHeaders = service.petDeprecationHeaders(config);

  // The statement timeouts are the role's settings on this database (the migration sets them:
  // src/database/prepare-database.ts), as for the service.
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    max: poolSize,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: 'petstore-bench-baseline',
  });
  pool.on('error', (error) =>
    process.stderr.write(`baseline: idle client error: ${error.message}\n`),
  );

  const { orderStatements, categoryStatements, petStatements } = service;
  /** The service's statements; the key lookup is TypeORM's findOneBy written out. */
  const SQL = {
    apiKey: `SELECT id, prefix FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL LIMIT 1`,
    listCategories: categoryStatements.listAll().sql,
    listOrders: orderStatements.listAll().sql,
  };

  // ---------------------------------------------------------------------------------------
  // The bearer check of src/auth: well-formed key, SHA-256, one lookup of an unrevoked key.

  const authCache = new Map<string, number>();

  /** The valid key's hash, by which its requests are counted; else the 401. */
  async function authenticate(header: string | undefined): Promise<string> {
    if (header === undefined || header.trim() === '') {
      throw new HttpError(
        401,
        'UNAUTHORIZED',
        'An API key is required: send "Authorization: Bearer <API_KEY>".',
        { 'WWW-Authenticate': REALM },
      );
    }
    const token = BEARER.exec(header)?.[1];
    if (token !== undefined && API_KEY_PATTERN.test(token)) {
      const hash = createHash('sha256').update(token, 'utf8').digest('hex');
      if (authCacheMs > 0 && (authCache.get(hash) ?? 0) > Date.now()) return hash;
      const { rows } = await pool.query<{ id: string; prefix: string }>(SQL.apiKey, [hash]);
      if (rows.length > 0) {
        if (authCacheMs > 0) authCache.set(hash, Date.now() + authCacheMs);
        return hash;
      }
    }
    throw new HttpError(
      401,
      'UNAUTHORIZED',
      'The API key is missing, malformed, unknown or revoked.',
      { 'WWW-Authenticate': `${REALM}, error="invalid_token"` },
    );
  }

  // ---------------------------------------------------------------------------------------
  // The headers of every answer: the service's security headers and its limiter's, both from
  // its build (the limiter's in-memory count per key and its headers; the bench's limit,
  // RATE_LIMIT_PER_MINUTE as the service is given it, is never reached); none with it off (0).

  function setSecurityHeaders(response: ServerResponse): void {
    for (const [name, value] of service.API_SECURITY_HEADERS) response.setHeader(name, value);
  }

  const perKeyPerMinute = config.rateLimit.perKeyPerMinute;
  const counts = new service.MemoryRateLimitStorage();

  function countRequest(keyHash: string, response: ServerResponse): void {
    if (perKeyPerMinute === 0) return;
    const counted = counts.hit(
      keyHash,
      service.RATE_LIMIT_WINDOW_MS,
      perKeyPerMinute,
      service.RATE_LIMIT_BLOCK_MS,
    );
    service.setCountedHeaders(response, perKeyPerMinute, counted);
  }

  // ---------------------------------------------------------------------------------------
  // Categories and pets

  async function listCategories(): Promise<CategoryJson[]> {
    const { rows } = await pool.query<CategoryRow>(SQL.listCategories);
    return rows.map(categoryJson);
  }

  async function createCategory(body: Record<string, unknown>): Promise<CategoryJson> {
    for (const key of Object.keys(body)) {
      if (key !== 'name' && key !== 'description') {
        throw new HttpError(400, 'VALIDATION_FAILED', `property ${key} should not exist`);
      }
    }
    const name = text(
      typeof body.name === 'string' ? body.name.trim() : body.name,
      'name',
      1,
      64,
      CONTROL,
    );
    const description =
      body.description === undefined
        ? null
        : text(body.description, 'description', 0, 500, CONTROL_EXCEPT_WHITESPACE);
    const insert = categoryStatements.insertUnlessNameTaken(name, description);
    const { rows } = await pool.query<CategoryRow | { id: null }>(insert.sql, [...insert.params]);
    const row = rows[0];
    if (!row || row.id === null) {
      throw new HttpError(409, 'CATEGORY_EXISTS', `A category named "${name}" exists already.`);
    }
    return categoryJson(row);
  }

  async function getPet(rawId: string): Promise<PetJson> {
    const id = pathId(rawId, 'petId');
    const find = petStatements.findByIdWithCategory(id);
    const { rows } = await pool.query<PetRow>(find.sql, [...find.params]);
    const row = rows[0];
    if (!row) throw new HttpError(404, 'PET_NOT_FOUND', `Pet ${id} does not exist.`);
    // The keys in the schema's order, as the service writes them: category before status.
    return row.categoryId === null
      ? { id: Number(row.id), name: row.name, status: row.status }
      : {
          id: Number(row.id),
          name: row.name,
          category: { id: Number(row.categoryId), name: row.categoryName ?? '' },
          status: row.status,
        };
  }

  // ---------------------------------------------------------------------------------------
  // Orders

  async function cancelOrder(rawId: string): Promise<void> {
    const id = pathId(rawId, 'orderId');
    const cancel = orderStatements.cancelIfPending(id);
    const { rows } = await pool.query<{ previousStatus: string }>(cancel.sql, [...cancel.params]);
    const previous = rows[0]?.previousStatus;
    if (previous === undefined) {
      throw new HttpError(404, 'ORDER_NOT_FOUND', `Order ${id} does not exist.`);
    }
    if (previous === 'shipped') {
      throw new HttpError(409, 'ORDER_ALREADY_SHIPPED', `Order ${id} has shipped already.`);
    }
  }

  /**
   * Every order, with the service's statements (src/database/batched-query-stream.ts): up to
   * `listSingleRows`, one statement, sent with its length; beyond, in one read-only
   * transaction (BEGIN and the SET LOCAL timeouts in one message), COPY … TO STDOUT, its rows
   * rendered by OrderCopyJson as they arrive and written at once, with backpressure (nothing
   * is read while the socket's buffer is full), then COMMIT. An error before the first byte is
   * a 500; after it the connection is cut, so the client sees a truncated body.
   */
  async function sendOrderList(response: ServerResponse): Promise<void> {
    const client = await pool.connect();
    let inTransaction = false;
    let broken: Error | undefined;
    try {
      // Two statements in one message: pg answers with both results.
      const [, select] = (await client.query({
        text: `SET LOCAL TimeZone = 'UTC'; ${SQL.listOrders} LIMIT ${listSingleRows + 1}`,
        rowMode: 'array',
        types: TEXT_TYPES,
      })) as unknown as [unknown, pg.QueryArrayResult<OrderTextRow>];
      const rows = select.rows;
      if (rows.length <= listSingleRows) {
        let json = '[';
        for (const [index, row] of rows.entries()) {
          json += index === 0 ? orderJson(row) : `,${orderJson(row)}`;
        }
        json += ']';
        response.writeHead(200, {
          'Content-Type': JSON_TYPE,
          'Content-Length': Buffer.byteLength(json),
        });
        response.end(json);
        return;
      }
      inTransaction = true;
      await client.query(
        `BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.max(statementTimeoutMs, streamTimeoutMs)};
         SET LOCAL idle_in_transaction_session_timeout = ${streamTimeoutMs};
         SET LOCAL TimeZone = 'UTC'`,
      );
      response.writeHead(200, { 'Content-Type': JSON_TYPE });
      const end = await copyOrders(client, response).catch((error: Error) => {
        // A COPY cut short leaves the connection mid-protocol: it is dropped, not reused.
        broken = error;
        throw error;
      });
      await client.query('COMMIT');
      inTransaction = false;
      response.end(end);
    } finally {
      if (inTransaction && broken === undefined) {
        await client.query('ROLLBACK').catch((error: Error) => (broken = error));
      }
      client.release(broken);
    }
  }

  /** The COPY's rows written to `response` as they come; resolves with the array's end. */
  function copyOrders(client: pg.PoolClient, response: ServerResponse): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const copy = client.query(copyTo(`COPY (${SQL.listOrders}) TO STDOUT`));
      const json = new OrderCopyJson();
      const fail = (error: Error): void => {
        response.off('close', onClose);
        copy.destroy();
        reject(error);
      };
      const onClose = (): void => fail(new Error('the client closed the connection'));
      response.once('close', onClose);
      copy.on('data', (chunk: Buffer) => {
        let pieces: Buffer[];
        try {
          pieces = json.render(chunk);
        } catch (error) {
          return fail(error as Error);
        }
        let room = true;
        for (const piece of pieces) room = response.write(piece) && room;
        if (!room) {
          copy.pause();
          response.once('drain', () => copy.resume());
        }
      });
      copy.once('error', fail);
      copy.once('end', () => {
        response.off('close', onClose);
        try {
          resolve(json.end());
        } catch (error) {
          fail(error as Error);
        }
      });
    });
  }

  return {
    petDeprecationHeaders,
    /** The service's, so that an answer's Keep-Alive header is the service's too. */
    keepAliveTimeoutMs: config.http.keepAliveTimeoutMs,
    setSecurityHeaders,
    authenticate,
    countRequest,
    listCategories,
    createCategory,
    getPet,
    cancelOrder,
    sendOrderList,
    ready: async (): Promise<void> => {
      await pool.query('SELECT 1');
    },
    close: (): Promise<void> => pool.end(),
  };
}

function categoryJson(row: CategoryRow): CategoryJson {
  const category: CategoryJson = { id: Number(row.id), name: row.name };
  if (row.description !== null) category.description = row.description;
  return category;
}

/**
 * The raw renderers must write what the service's ORDER_JSON.fromText writes, row for row, or
 * they are not the service's JSON (a column added or moved, a format changed): stops the server.
 */
function checkRenderers(fromText: (row: Array<string | null>) => string): void {
  const expected = `[${SAMPLE_ORDERS.map(fromText).join(',')}]`;
  const copy = new OrderCopyJson();
  // COPY's text format: tabs between fields, \N for null, a newline after each row.
  const copyText = SAMPLE_ORDERS.map((row) => `${row.map((field) => field ?? '\\N').join('\t')}\n`);
  const fromCopy = Buffer.concat([...copy.render(Buffer.from(copyText.join(''))), copy.end()]);
  const fromRows = `[${SAMPLE_ORDERS.map(orderJson).join(',')}]`;
  for (const [name, json] of [
    ['OrderCopyJson', fromCopy.toString('utf8')],
    ['orderJson', fromRows],
  ]) {
    if (json !== expected) {
      throw new Error(`${name} writes ${json}, the service ${expected}`);
    }
  }
}

/**
 * An order row as OrderDto's JSON, keys in the service's order, written from the columns' text:
 * ids and quantity are already JSON, the ship date is UTC text (TimeZone is set to UTC) cut to
 * milliseconds.
 */
function orderJson([id, petId, quantity, shipDate, status]: OrderTextRow): string {
  const ship =
    shipDate === null
      ? ''
      : `,"shipDate":"${shipDate.slice(0, 10)}T${shipDate.slice(11, 19)}.${`${shipDate.slice(20, -3)}000`.slice(0, 3)}Z"`;
  return `{"id":${id},"petId":${petId},"quantity":${quantity}${ship},"complete":${status === 'shipped'},"status":"${status}"}`;
}

function pathId(raw: string, name: string): string {
  if (!/^[1-9][0-9]{0,18}$/.test(raw) || BigInt(raw) > INT64_MAX) {
    throw new HttpError(
      400,
      'VALIDATION_FAILED',
      `${name} must be a whole number from 1 to ${INT64_MAX} written in decimal digits`,
    );
  }
  return raw;
}

function text(value: unknown, field: string, min: number, max: number, forbidden: RegExp): string {
  const length = typeof value === 'string' ? [...value].length : -1;
  if (
    typeof value !== 'string' ||
    length < min ||
    length > max ||
    !value.isWellFormed() ||
    forbidden.test(value)
  ) {
    throw new HttpError(400, 'VALIDATION_FAILED', `${field} must be ${min} to ${max} characters`);
  }
  return value;
}

/** A JSON object body of at most 16 KB, or the service's error for it. */
export async function readJsonObject(request: IncomingMessage): Promise<Record<string, unknown>> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The body must be application/json.');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      throw new HttpError(413, 'PAYLOAD_TOO_LARGE', `The body exceeds ${MAX_BODY_BYTES} bytes.`, {
        Connection: 'close',
      });
    }
    chunks.push(chunk);
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'MALFORMED_JSON', 'The request body is not valid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'VALIDATION_FAILED', 'The request body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}
