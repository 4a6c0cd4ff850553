import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { connect } from 'node:net';
import pg from 'pg';
import { insertPet } from '../support/factories.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, testRun } from '../support/test-database.js';
import { eventually } from '../support/eventually.js';

const KEY = `psk_${randomBytes(32).toString('base64url')}`;

interface RequestLine {
  level: number;
  msg: string;
  req: { id: string; method: string; url: string };
  res: { statusCode: number; aborted?: boolean; bytesSent?: number };
  responseTime: number;
  err?: string;
  route: string;
  keyPrefix?: string;
}

describe('request logs (real process)', () => {
  let service: ServiceProcess;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(
      `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
    );
    service = await startService({
      DATABASE_URL: databaseUrl,
      BOOTSTRAP_API_KEY: KEY,
      LOG_LEVEL: 'info',
    });
  });
  afterAll(() => service.stop());

  function requestLines(): RequestLine[] {
    return service.stdout
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as RequestLine)
      .filter((line) => line.req !== undefined);
  }

  function requestLinesOf(ids: (string | null)[]): RequestLine[] {
    return requestLines().filter((line) => ids.includes(line.req.id));
  }

  it('writes one JSON line per request with method, route, status, duration, request id and key prefix', async () => {
    const res = await fetch(`${service.url}/v1/store/orders/12345`, {
      headers: { Authorization: `Bearer ${KEY}`, 'X-Request-Id': 'trace-abc-1' },
    });
    expect(res.status).toBe(404);
    await eventually(() => service.stdout.some((line) => line.includes('trace-abc-1')), 5000);
    const lines = requestLines().filter((line) => line.req.id === 'trace-abc-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      req: { id: 'trace-abc-1', method: 'GET', url: '/v1/store/orders/12345' },
      res: { statusCode: 404 },
      route: '/v1/store/orders/:orderId',
      keyPrefix: KEY.slice(0, 12),
      msg: 'GET /v1/store/orders/:orderId 404',
    });
    expect(lines[0].responseTime).toEqual(expect.any(Number));
  });

  it('logs unknown routes and refused keys too, and never a key or an Authorization header', async () => {
    const wrongKey = `psk_${randomBytes(32).toString('base64url')}`;
    const refused = await fetch(`${service.url}/v1/categories`, {
      headers: { Authorization: `Bearer ${wrongKey}` },
    });
    const unknown = await fetch(`${service.url}/nope?token=${wrongKey}`);
    const ids = [refused.headers.get('x-request-id'), unknown.headers.get('x-request-id')];
    await eventually(() => requestLinesOf(ids).length === ids.length, 5000);
    const lines = requestLinesOf(ids);
    expect(lines.map((line) => [line.res.statusCode, line.route])).toEqual([
      [401, '/v1/categories'],
      [404, 'unmatched'],
    ]);
    const output = [...service.stdout, ...service.stderr].join('\n');
    expect(output).not.toContain(wrongKey);
    expect(output).not.toContain(KEY);
    expect(output.toLowerCase()).not.toContain('authorization');
  });

  it('replaces a request id that could be a key, and logs paths without anything like a key', async () => {
    const sentAsId = `psk_${randomBytes(32).toString('base64url')}`;
    const inPath = `psk_${randomBytes(32).toString('base64url')}`;
    const encodedInPath = `psk%5F${randomBytes(32).toString('base64url')}`;
    const answers = await Promise.all([
      fetch(`${service.url}/v1/categories`, {
        headers: { Authorization: `Bearer ${KEY}`, 'X-Request-Id': sentAsId },
      }),
      fetch(`${service.url}/v1/store/orders/${inPath}`, {
        headers: { Authorization: `Bearer ${KEY}` },
      }),
      fetch(`${service.url}/nope/${encodedInPath}`),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 400, 404]);
    const ids = answers.map((answer) => answer.headers.get('x-request-id') ?? '');
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    await eventually(() => requestLinesOf(ids).length === ids.length, 5000);
    const lines = requestLinesOf(ids);
    expect(lines.map((line) => line.req.url).sort()).toEqual(
      ['/nope/psk_[redacted]', '/v1/categories', '/v1/store/orders/psk_[redacted]'].sort(),
    );
    const output = [...service.stdout, ...service.stderr].join('\n');
    for (const secret of [sentAsId, inPath, encodedInPath]) {
      expect(output).not.toContain(secret);
    }
  });
});

/**
 * Answers that did not finish, and requests too slow to arrive, with the limits set low: each is
 * logged as what happened (docs/operating.md, Logs), never as the status it was to have.
 */
describe('request logs of unfinished answers and slow requests (real process)', () => {
  const STREAM_TIMEOUT_MS = 2000;
  let service: ServiceProcess;
  let db: pg.Pool;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase(
      `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
    );
    service = await startService({
      DATABASE_URL: databaseUrl,
      BOOTSTRAP_API_KEY: KEY,
      LOG_LEVEL: 'info',
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_TIMEOUT_MS: '1500',
      DB_STREAM_TIMEOUT_MS: String(STREAM_TIMEOUT_MS),
    });
    db = new pg.Pool({ connectionString: databaseUrl, max: 1 });
    // More than loopback socket buffers hold (about 9 MB): a list cannot finish unread.
    const petId = await insertPet(db, { name: 'Streamed' });
    await db.query(
      `INSERT INTO orders (pet_id, quantity, status) SELECT $1, 1, 'pending' FROM generate_series(1, 100000)`,
      [petId],
    );
  }, 60_000);
  afterAll(async () => {
    await service.stop();
    await db.end();
  });

  /** The request's line, once it is written. */
  async function lineOf(requestId: string): Promise<RequestLine> {
    const find = (): RequestLine | undefined =>
      service.stdout
        .filter((text) => text.startsWith('{') && text.includes(requestId))
        .map((text) => JSON.parse(text) as RequestLine)
        .find((parsed) => parsed.req?.id === requestId);
    await eventually(() => find() !== undefined, 5000, `a log line for ${requestId}`);
    return find()!;
  }

  /** Writes `raw`; hangs up after `hangUpAfterMs`, else waits for the server to close. */
  function sendRaw(raw: string, hangUpAfterMs?: number): Promise<string> {
    return new Promise((done) => {
      const socket = connect(service.port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => done(Buffer.concat(chunks).toString('utf8')));
      socket.write(raw);
      if (hangUpAfterMs !== undefined) setTimeout(() => socket.destroy(), hangUpAfterMs);
    });
  }

  const slowPost = (requestId: string): string =>
    `POST /v1/store/orders HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: ${requestId}\r\n` +
    `Authorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n` +
    'Content-Length: 100\r\n\r\n{"petId":';

  /** A listOrders request whose client reads nothing after the headers. */
  function stalledList(
    requestId: string,
  ): Promise<{ request: http.ClientRequest; response: http.IncomingMessage }> {
    return new Promise((done) => {
      const request = http.get(
        `${service.url}/v1/store/orders`,
        { headers: { Authorization: `Bearer ${KEY}`, 'X-Request-Id': requestId } },
        (response) => {
          response.pause();
          done({ request, response });
        },
      );
      request.on('error', () => undefined);
    });
  }

  it('logs a POST whose client left mid-body as aborted after 0 bytes, a warning, not 201', async () => {
    await sendRaw(slowPost('left-mid-body-1'), 300);
    const line = await lineOf('left-mid-body-1');
    expect(line).toMatchObject({
      level: 40,
      res: { statusCode: 499, aborted: true, bytesSent: 0 },
      route: '/v1/store/orders',
      msg: 'POST /v1/store/orders 499 aborted by the client after 0 bytes',
    });
    expect(line.err).toBeUndefined();
    // No order was placed: only the test's own are there.
    const { rows } = await db.query<{ count: string }>('SELECT count(*) FROM orders');
    expect(rows[0].count).toBe('100000');
  });

  it('logs a listOrders stream the client abandoned as aborted, with the bytes sent', async () => {
    const { request, response } = await stalledList('abandoned-list-1');
    expect(response.statusCode).toBe(200);
    // Read 100 kB of the body, then hang up: the service wrote at least that much.
    let received = 0;
    await new Promise<void>((done) => {
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= 100_000) {
          response.pause();
          done();
        }
      });
      response.resume();
    });
    request.destroy();
    const line = await lineOf('abandoned-list-1');
    expect(line).toMatchObject({
      level: 40,
      res: { statusCode: 499, aborted: true },
      route: '/v1/store/orders',
    });
    expect(line.res.bytesSent).toBeGreaterThan(received);
    expect(line.msg).toBe(
      `GET /v1/store/orders 499 aborted by the client after ${line.res.bytesSent} bytes`,
    );
  });

  it('logs a listOrders stream cut by DB_STREAM_TIMEOUT_MS as a warning that says why', async () => {
    const { request, response } = await stalledList('timed-out-list-1');
    try {
      expect(response.statusCode).toBe(200);
      await new Promise((wait) => setTimeout(wait, STREAM_TIMEOUT_MS));
      const line = await lineOf('timed-out-list-1');
      expect(line).toMatchObject({
        level: 40,
        res: { statusCode: 499, aborted: true },
        err: expect.stringContaining('DB_STREAM_TIMEOUT_MS'),
      });
      expect(line.msg).toMatch(
        /^GET \/v1\/store\/orders 499 cut by the service after \d+ bytes: the list took longer than 2000 ms/,
      );
    } finally {
      request.destroy();
    }
  });

  it('logs a body slower than REQUEST_TIMEOUT_MS as its 408, and headers too slow as refused', async () => {
    const [bodyAnswer, headersAnswer] = await Promise.all([
      sendRaw(slowPost('slow-body-1')),
      sendRaw('GET /v1/categories HTTP/1.1\r\nHost: localhost\r\n'),
    ]);
    expect(bodyAnswer.slice(0, 12)).toBe('HTTP/1.1 408');
    expect(await lineOf('slow-body-1')).toMatchObject({
      level: 40,
      res: { statusCode: 408 },
      route: '/v1/store/orders',
      msg: 'POST /v1/store/orders 408',
    });
    const refusedId = /X-Request-Id: (\S+)/.exec(headersAnswer)?.[1] ?? 'none';
    expect(await lineOf(refusedId)).toMatchObject({
      level: 40,
      res: { statusCode: 408 },
      err: 'ERR_HTTP_REQUEST_TIMEOUT',
      msg: 'refused before a request was read: 408 REQUEST_TIMEOUT (ERR_HTTP_REQUEST_TIMEOUT)',
    });
  });
});
