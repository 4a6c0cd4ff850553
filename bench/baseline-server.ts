/**
 * The practical limit: the benchmarked endpoints on bare `node:http` + `pg`, with the same
 * bearer check, the same SQL and the same JSON as the service, and nothing else (no framework,
 * no validation library, no logging). `npm run bench` runs it in its own process beside the
 * service and reports the service's numbers as a ratio of these.
 *
 * Environment: DATABASE_URL (required), PORT, DB_POOL_SIZE, DB_CONNECT_TIMEOUT_MS,
 * DB_STATEMENT_TIMEOUT_MS, DB_STREAM_TIMEOUT_MS (as the service reads them), BASELINE_AUTH_CACHE_MS
 * (0: look the key up on every request, as src/auth does without a cache; > 0: keep a valid key
 * that long, for when the service caches key checks), BASELINE_LIST_SINGLE_ROWS and
 * BASELINE_LIST_BATCH_ROWS (the order list's one-statement limit and rows per FETCH: the
 * service's, which the harness reads from the build), BASELINE_SERVICE_DIST (the service's
 * build, whose statement builders give the writes' SQL, events included).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const env = process.env;
const databaseUrl = env.DATABASE_URL;
if (!databaseUrl) {
  process.stderr.write('baseline: DATABASE_URL is required\n');
  process.exit(1);
}
const port = Number(env.PORT ?? 3100);
const poolSize = Number(env.DB_POOL_SIZE ?? 10);
const connectTimeoutMs = Number(env.DB_CONNECT_TIMEOUT_MS ?? 2000);
const statementTimeoutMs = Number(env.DB_STATEMENT_TIMEOUT_MS ?? 5000);
const streamTimeoutMs = Number(env.DB_STREAM_TIMEOUT_MS ?? 300_000);
const authCacheMs = Number(env.BASELINE_AUTH_CACHE_MS ?? 0);
const listSingleRows = Number(env.BASELINE_LIST_SINGLE_ROWS ?? 5000);
const listBatchRows = Number(env.BASELINE_LIST_BATCH_ROWS ?? 5000);

/** Same pool settings as src/database/typeorm-options.ts. */
const pool = new pg.Pool({
  connectionString: databaseUrl,
  max: poolSize,
  connectionTimeoutMillis: connectTimeoutMs,
  statement_timeout: statementTimeoutMs,
  idle_in_transaction_session_timeout: statementTimeoutMs * 2,
  application_name: 'petstore-bench-baseline',
});
pool.on('error', (error) =>
  process.stderr.write(`baseline: idle client error: ${error.message}\n`),
);

// ---------------------------------------------------------------------------------------------
// The SQL, as in src/*/…repository.ts (TypeORM's find() calls written out). The two writes
// come from the service's own build: each also records its webhook event (the outbox), which
// a hand-written copy had missed.

/** SQL text and its parameters, as the service's statement builders make them. */
interface Statement {
  sql: string;
  params: readonly unknown[];
}
/** What src/categories/category-statements.ts and src/store/order-statements.ts export. */
interface ServiceStatements {
  categoryStatements: {
    insertUnlessNameTaken: (name: string, description: string | null) => Statement;
  };
  orderStatements: { cancelIfPending: (id: string) => Statement };
}
/** The statement builders of the service's build (BASELINE_SERVICE_DIST). */
async function serviceStatements(): Promise<ServiceStatements> {
  const dist = env.BASELINE_SERVICE_DIST;
  if (!dist) throw new Error("BASELINE_SERVICE_DIST (the service's dist/) is required");
  const load = async (path: string): Promise<Partial<ServiceStatements>> =>
    (await import(pathToFileURL(join(dist, path)).href)) as Partial<ServiceStatements>;
  const { categoryStatements } = await load('categories/category-statements.js');
  const { orderStatements } = await load('store/order-statements.js');
  if (!categoryStatements || !orderStatements) {
    throw new Error(`${dist} lacks the statement builders`);
  }
  return { categoryStatements, orderStatements };
}
const { categoryStatements, orderStatements } = await serviceStatements();

const SQL = {
  apiKey: `SELECT id, prefix FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL LIMIT 1`,
  listCategories: `SELECT id, name, description FROM categories ORDER BY id ASC`,
  /** As src/store/order.repository.ts's listAllAsJson, run as src/database/batched-query-stream.ts does. */
  listOrders: `SELECT id, pet_id, quantity, ship_date, status FROM orders ORDER BY id`,
  petById: `SELECT p.id, p.name, p.status, c.id AS "categoryId", c.name AS "categoryName"
         FROM pets p LEFT JOIN categories c ON c.id = p.category_id
         WHERE p.id = $1`,
};

/** An order row as PostgreSQL sent it: each column's text (no type parsing). */
type OrderTextRow = [string, string, string, string | null, string];
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

// ---------------------------------------------------------------------------------------------
// Responses

const JSON_TYPE = 'application/json; charset=utf-8';
const REALM = 'Bearer realm="petstore"';
/** The defaults of PETS_DEPRECATED_AT, PETS_SUNSET_AT and CHANGELOG_URL (src/pets/pets-deprecation.ts). */
const DEPRECATION_HEADERS = {
  Deprecation: `@${Math.floor(Date.parse('2026-11-01T00:00:00Z') / 1000)}`,
  Sunset: new Date('2027-05-01T00:00:00Z').toUTCString(),
  Link: '</changelog>; rel="deprecation"; type="text/html"',
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

function sendError(response: ServerResponse, error: unknown): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const known =
    error instanceof HttpError
      ? error
      : new HttpError(500, 'INTERNAL_ERROR', 'An unexpected error occurred; it has been logged.');
  if (!(error instanceof HttpError)) {
    process.stderr.write(`baseline: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  for (const [name, value] of Object.entries(known.headers)) response.setHeader(name, value);
  sendJson(response, known.status, {
    code: known.code,
    message: known.message,
    status: known.status,
  });
}

// ---------------------------------------------------------------------------------------------
// The bearer check of src/auth: well-formed key, SHA-256, one lookup of an unrevoked key.

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;
const API_KEY_PATTERN = /^psk_[A-Za-z0-9_-]{22,128}$/;
const authCache = new Map<string, number>();

async function authenticate(request: IncomingMessage): Promise<void> {
  const header = request.headers.authorization;
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
    if (authCacheMs > 0 && (authCache.get(hash) ?? 0) > Date.now()) return;
    const { rows } = await pool.query<{ id: string; prefix: string }>(SQL.apiKey, [hash]);
    if (rows.length > 0) {
      if (authCacheMs > 0) authCache.set(hash, Date.now() + authCacheMs);
      return;
    }
  }
  throw new HttpError(
    401,
    'UNAUTHORIZED',
    'The API key is missing, malformed, unknown or revoked.',
    { 'WWW-Authenticate': `${REALM}, error="invalid_token"` },
  );
}

// ---------------------------------------------------------------------------------------------
// Input

const INT64_MAX = 9223372036854775807n;

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

const MAX_BODY_BYTES = 16 * 1024;

async function readJsonObject(request: IncomingMessage): Promise<Record<string, unknown>> {
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

// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex -- as above, line breaks and tabs allowed
const CONTROL_EXCEPT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

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

// ---------------------------------------------------------------------------------------------
// Handlers

async function listCategories(response: ServerResponse): Promise<void> {
  const { rows } = await pool.query<CategoryRow>(SQL.listCategories);
  sendJson(response, 200, rows.map(categoryDto));
}

function categoryDto(row: CategoryRow): Record<string, unknown> {
  const dto: Record<string, unknown> = { id: Number(row.id), name: row.name };
  if (row.description !== null) dto.description = row.description;
  return dto;
}

async function createCategory(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readJsonObject(request);
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
  sendJson(response, 201, categoryDto(row));
}

/**
 * Same JSON as src/store/dto/order.dto.ts, keys in the same order, written from the columns'
 * text: ids and quantity are already JSON, the ship date is UTC text (TimeZone is set to UTC)
 * cut to milliseconds.
 */
function orderJson([id, petId, quantity, shipDate, status]: OrderTextRow): string {
  const ship =
    shipDate === null
      ? ''
      : `,"shipDate":"${shipDate.slice(0, 10)}T${shipDate.slice(11, 19)}.${`${shipDate.slice(20, -3)}000`.slice(0, 3)}Z"`;
  return `{"id":${id},"petId":${petId},"quantity":${quantity}${ship},"complete":${status === 'shipped'},"status":"${status}"}`;
}

function ordersJson(rows: OrderTextRow[], first: boolean): string {
  let json = '';
  for (const row of rows) {
    json += first ? orderJson(row) : `,${orderJson(row)}`;
    first = false;
  }
  return json;
}

const TEXT_TYPES = { getTypeParser: () => (value: string) => value };

/** Rows of the last statement of `text` (one message, one round trip), as text. */
async function textRows(client: pg.PoolClient, text: string): Promise<OrderTextRow[]> {
  const result = (await client.query({ text, rowMode: 'array', types: TEXT_TYPES })) as
    pg.QueryArrayResult<OrderTextRow> | Array<pg.QueryArrayResult<OrderTextRow>>;
  return Array.isArray(result) ? result[result.length - 1].rows : result.rows;
}

/**
 * Every order, with the service's statements: up to `listSingleRows`, one statement; beyond,
 * one read-only transaction (SET LOCAL timeouts, DECLARE and the first FETCH in one message,
 * FETCH per batch, COMMIT). Each batch is written as it arrives; while the socket's buffer is
 * full no FETCH is sent (memory stays flat whatever the table size). An error before the first
 * byte is a 500; after it the connection is cut, so the client sees a truncated body.
 */
async function listOrders(response: ServerResponse): Promise<void> {
  const client = await pool.connect();
  let inTransaction = false;
  try {
    const rows = await textRows(
      client,
      `SET LOCAL TimeZone = 'UTC'; ${SQL.listOrders} LIMIT ${listSingleRows + 1}`,
    );
    if (rows.length <= listSingleRows) {
      const text = `[${ordersJson(rows, true)}]`;
      response.writeHead(200, {
        'Content-Type': JSON_TYPE,
        'Content-Length': Buffer.byteLength(text),
      });
      response.end(text);
      return;
    }
    inTransaction = true;
    let batch = await textRows(
      client,
      `BEGIN READ ONLY; SET LOCAL statement_timeout = ${statementTimeoutMs};
       SET LOCAL idle_in_transaction_session_timeout = ${streamTimeoutMs};
       SET LOCAL TimeZone = 'UTC';
       DECLARE orders_list NO SCROLL CURSOR FOR ${SQL.listOrders};
       FETCH ${listBatchRows} FROM orders_list`,
    );
    response.writeHead(200, { 'Content-Type': JSON_TYPE });
    let json = `[${ordersJson(batch, true)}`;
    while (batch.length === listBatchRows) {
      if (!response.write(json) && !(await drained(response))) {
        throw new Error('the client closed the connection');
      }
      batch = await textRows(client, `FETCH ${listBatchRows} FROM orders_list`);
      json = ordersJson(batch, false);
    }
    await client.query('COMMIT');
    inTransaction = false;
    response.end(`${json}]`);
  } finally {
    let broken: Error | undefined;
    if (inTransaction) {
      // A connection that cannot roll back is dropped rather than reused.
      await client.query('ROLLBACK').catch((error: Error) => (broken = error));
    }
    client.release(broken);
  }
}

/** true once the response's buffer has drained, false if the client went away first. */
function drained(response: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const onDrain = (): void => {
      response.off('close', onClose);
      resolve(true);
    };
    const onClose = (): void => {
      response.off('drain', onDrain);
      resolve(false);
    };
    response.once('drain', onDrain);
    response.once('close', onClose);
  });
}

async function cancelOrder(id: string, response: ServerResponse): Promise<void> {
  const cancel = orderStatements.cancelIfPending(id);
  const { rows } = await pool.query<{ previousStatus: string }>(cancel.sql, [...cancel.params]);
  const previous = rows[0]?.previousStatus;
  if (previous === undefined) {
    throw new HttpError(404, 'ORDER_NOT_FOUND', `Order ${id} does not exist.`);
  }
  if (previous === 'shipped') {
    throw new HttpError(409, 'ORDER_ALREADY_SHIPPED', `Order ${id} has shipped already.`);
  }
  response.writeHead(204);
  response.end();
}

async function getPet(id: string, response: ServerResponse): Promise<void> {
  const { rows } = await pool.query<PetRow>(SQL.petById, [id]);
  const row = rows[0];
  if (!row) {
    throw new HttpError(404, 'PET_NOT_FOUND', `Pet ${id} does not exist.`);
  }
  const dto: Record<string, unknown> = { id: Number(row.id), name: row.name, status: row.status };
  if (row.categoryId !== null) {
    dto.category = { id: Number(row.categoryId), name: row.categoryName ?? '' };
  }
  sendJson(response, 200, dto);
}

// ---------------------------------------------------------------------------------------------
// Routing

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const ORDER_PATH = /^\/v1\/store\/orders\/([^/]+)$/;
const PET_PATH = /^\/v1\/pets\/([^/]+)$/;

async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const given = request.headers['x-request-id'];
  response.setHeader(
    'X-Request-Id',
    typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID(),
  );
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const method = request.method ?? 'GET';

  if (path === '/health/live' || path === '/health/ready') {
    if (path === '/health/ready') await pool.query('SELECT 1');
    return sendJson(response, 200, { status: 'ok' });
  }
  const pet = PET_PATH.exec(path);
  if (pet) {
    for (const [name, value] of Object.entries(DEPRECATION_HEADERS)) {
      response.setHeader(name, value);
    }
  }
  const order = ORDER_PATH.exec(path);
  const known =
    (path === '/v1/categories' && (method === 'GET' || method === 'POST')) ||
    (path === '/v1/store/orders' && method === 'GET') ||
    (order !== null && method === 'DELETE') ||
    (pet !== null && method === 'GET');
  if (!known) {
    throw new HttpError(404, 'NOT_FOUND', 'No such route.');
  }
  await authenticate(request);
  if (path === '/v1/categories') {
    return method === 'GET' ? listCategories(response) : createCategory(request, response);
  }
  if (path === '/v1/store/orders') return listOrders(response);
  if (order?.[1] !== undefined) return cancelOrder(pathId(order[1], 'orderId'), response);
  if (pet?.[1] !== undefined) return getPet(pathId(pet[1], 'petId'), response);
}

const server = createServer((request, response) => {
  route(request, response).catch((error: unknown) => sendError(response, error));
});

server.listen(port, () => {
  process.stdout.write(`baseline listening on ${port}\n`);
});

function shutdown(): void {
  server.close();
  server.closeAllConnections();
  pool.end().then(
    () => process.exit(0),
    () => process.exit(1),
  );
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
