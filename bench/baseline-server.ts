/**
 * The practical limit: the benchmarked endpoints on bare `node:http` + `pg`, with the same
 * bearer check, the same SQL and the same JSON as the service, and nothing else (no framework,
 * no validation library, no logging). `npm run bench` runs it in its own process beside the
 * service and reports the service's numbers as a ratio of these.
 *
 * Environment: DATABASE_URL (required), PORT, DB_POOL_SIZE, DB_CONNECT_TIMEOUT_MS,
 * DB_STATEMENT_TIMEOUT_MS (as the service reads them), BASELINE_AUTH_CACHE_MS (0: look the key
 * up on every request, as src/auth does without a cache; > 0: keep a valid key that long, for
 * when the service caches key checks), BASELINE_CURSOR_BATCH (rows per cursor fetch).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import pg from 'pg';
import { Readable } from 'node:stream';
import Cursor from 'pg-cursor';

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
const authCacheMs = Number(env.BASELINE_AUTH_CACHE_MS ?? 0);
const cursorBatch = Number(env.BASELINE_CURSOR_BATCH ?? 1000);
/** `postgres`: PostgreSQL renders each order's JSON (when the service does); else Node does. */
const ordersJsonInPostgres = env.BASELINE_ORDERS_JSON === 'postgres';
/** > 0: the order cursor's connection gets this statement timeout for the stream's life. */
const streamTimeoutMs = Number(env.BASELINE_STREAM_TIMEOUT_MS ?? 0);

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
// The SQL, as in src/*/…repository.ts (TypeORM's find() calls written out).

const ORDER_COLUMNS = `id, pet_id AS "petId", quantity, ship_date AS "shipDate", status`;
const SQL = {
  apiKey: `SELECT id, prefix FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL LIMIT 1`,
  listCategories: `SELECT id, name, description FROM categories ORDER BY id ASC`,
  insertCategory: `INSERT INTO categories (name, description) VALUES ($1, $2)
       ON CONFLICT ((lower(name))) DO NOTHING
       RETURNING id, name, description`,
  listOrders: `SELECT ${ORDER_COLUMNS} FROM orders ORDER BY id`,
  listOrdersAsJson: `
  SELECT json_strip_nulls(json_build_object(
    'id', id, 'petId', pet_id, 'quantity', quantity,
    'shipDate', to_char(ship_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'complete', status = 'shipped', 'status', status))::text
  FROM orders ORDER BY id`,
  cancelOrder: `WITH target AS (
         SELECT id, status FROM orders WHERE id = $1 FOR UPDATE
       ), cancelled AS (
         UPDATE orders SET status = 'cancelled', updated_at = now()
         FROM target WHERE orders.id = target.id AND target.status = 'pending'
         RETURNING orders.id
       )
       SELECT target.status AS "previousStatus" FROM target`,
  petById: `SELECT p.id, p.name, p.status, c.id AS "categoryId", c.name AS "categoryName"
         FROM pets p LEFT JOIN categories c ON c.id = p.category_id
         WHERE p.id = $1`,
};

interface OrderRow {
  id: string;
  petId: string;
  quantity: number;
  shipDate: Date | null;
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

// ---------------------------------------------------------------------------------------------
// Responses

const JSON_TYPE = 'application/json; charset=utf-8';
const REALM = 'Bearer realm="petstore"';
/** The defaults of PETS_DEPRECATED_AT, PETS_SUNSET_AT and CHANGELOG_URL (src/pets/pets-deprecation.ts). */
const DEPRECATION_HEADERS = {
  Deprecation: `@${Math.floor(Date.parse('2026-11-01T00:00:00Z') / 1000)}`,
  Sunset: new Date('2027-05-01T00:00:00Z').toUTCString(),
  Link: '<https://petstore.example/changelog>; rel="deprecation"; type="text/html"',
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
  const { rows } = await pool.query<CategoryRow>(SQL.insertCategory, [name, description]);
  const row = rows[0];
  if (!row) {
    throw new HttpError(409, 'CATEGORY_EXISTS', `A category named "${name}" exists already.`);
  }
  sendJson(response, 201, categoryDto(row));
}

/** Same JSON as src/store/dto/order.dto.ts, keys in the same order. */
function orderJson(row: OrderRow): string {
  const dto: Record<string, unknown> = {
    id: Number(row.id),
    petId: Number(row.petId),
    quantity: row.quantity,
    complete: row.status === 'shipped',
    status: row.status,
  };
  if (row.shipDate) dto.shipDate = row.shipDate.toISOString();
  return JSON.stringify(dto);
}

const FLUSH_BYTES = 64 * 1024;

/** Rows through a pg-cursor, `cursorBatch` at a time, as a Readable (as the service reads them). */
function cursorStream(client: pg.PoolClient, text: string, rowMode: 'array' | undefined): Readable {
  const cursor = client.query(new Cursor(text, [], rowMode ? { rowMode } : {}));
  return new Readable({
    objectMode: true,
    highWaterMark: cursorBatch,
    read() {
      cursor.read(cursorBatch, (error, rows) => {
        if (error) return this.destroy(error);
        for (const row of rows) this.push(row);
        if (rows.length < cursorBatch) this.push(null);
      });
    },
    destroy(error, callback) {
      cursor.close(() => callback(error));
    },
  });
}

/**
 * Every order, streamed: a server-side cursor fetches `cursorBatch` rows at a time, and the JSON
 * array is written in 64 KiB pieces; when the socket's buffer is full the cursor waits (memory
 * stays flat whatever the table size). An error before the first byte is a 500; after it the
 * connection is cut, so the client sees a truncated body rather than a false success.
 *
 * A cursor is one statement for its whole life, so the pool's statement timeout would cut a long
 * list: with BASELINE_STREAM_TIMEOUT_MS the connection gets a longer one while it streams, set
 * and reset the way src/store/order.repository.ts does.
 */
async function listOrders(response: ServerResponse): Promise<void> {
  const client = await pool.connect();
  let released = false;
  const release = (error?: Error): void => {
    if (!released) {
      released = true;
      client.release(error);
    }
  };
  if (streamTimeoutMs > 0) {
    try {
      await client.query(`SELECT set_config('statement_timeout', $1, false)`, [
        String(streamTimeoutMs),
      ]);
    } catch (error) {
      release(error as Error);
      throw error;
    }
  }
  const stream = ordersJsonInPostgres
    ? cursorStream(client, SQL.listOrdersAsJson, 'array')
    : cursorStream(client, SQL.listOrders, undefined);
  let pending = '[';
  let first = true;
  const flush = (): void => {
    if (!response.headersSent) {
      response.writeHead(200, { 'Content-Type': JSON_TYPE });
    }
    const ok = response.write(pending);
    pending = '';
    if (!ok) {
      stream.pause();
      response.once('drain', () => stream.resume());
    }
  };
  await new Promise<void>((resolve) => {
    stream.on('data', (row: OrderRow | string[]) => {
      const json = Array.isArray(row) ? (row[0] ?? 'null') : orderJson(row);
      pending += first ? json : `,${json}`;
      first = false;
      if (pending.length >= FLUSH_BYTES) flush();
    });
    stream.on('end', () => {
      response.end(`${pending}]`);
      if (streamTimeoutMs > 0) {
        client.query('RESET statement_timeout').then(
          () => release(),
          (error: Error) => release(error),
        );
      } else {
        release();
      }
      resolve();
    });
    stream.on('error', (error: Error) => {
      release(error);
      sendError(response, error);
      resolve();
    });
    response.on('close', () => {
      if (!response.writableFinished) {
        // The client went away mid-stream: stop reading and drop the connection's portal.
        stream.destroy();
        release(new Error('client closed the connection'));
        resolve();
      }
    });
  });
}

async function cancelOrder(id: string, response: ServerResponse): Promise<void> {
  const { rows } = await pool.query<{ previousStatus: string }>(SQL.cancelOrder, [id]);
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
