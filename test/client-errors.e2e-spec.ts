import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import type { Response } from 'supertest';
import { expectErrorResponse } from './support/http-assertions.js';
import { SANE_REQUEST_ID } from './support/hostile-input.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/** An answer read off a raw socket: what supertest's Response gives, from bytes we wrote. */
interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Short enough for a test to wait for; HEADERS_TIMEOUT_MS <= REQUEST_TIMEOUT_MS, as required. */
const HEADERS_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 1500;

/**
 * Requests Node's HTTP server refuses or would answer itself, and no HTTP client sends them, so
 * these tests write bytes on a socket and read the answer until the server closes it.
 */
describe('requests the HTTP server refuses (e2e)', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp({
      http: {
        keepAliveTimeoutMs: 65_000,
        headersTimeoutMs: HEADERS_TIMEOUT_MS,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
      },
    });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  function send(raw: string): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const [head = '', ...rest] = text.split('\r\n\r\n');
        const [statusLine = '', ...headerLines] = head.split('\r\n');
        const headers = Object.fromEntries(
          headerLines.map((line) => {
            const colon = line.indexOf(':');
            return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
          }),
        );
        const bodyText = rest.join('\r\n\r\n');
        let body: unknown = bodyText;
        try {
          body = JSON.parse(bodyText);
        } catch {
          // Not JSON: the assertions show the text.
        }
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
        socket.destroy();
      });
      // write, not end: a half-closed socket makes Node abort the request in flight.
      socket.write(raw);
    });
  }

  function expectJsonError(answer: RawAnswer, status: number, code: string): void {
    // The same checks as for every Error body; the raw answer has the fields they read.
    expectErrorResponse(answer as unknown as Response, status, code);
    expect(answer.headers['connection']).toBe('close');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['x-request-id']).toMatch(SANE_REQUEST_ID);
    expect(Number(answer.headers['content-length'])).toBe(
      Buffer.byteLength(JSON.stringify(answer.body)),
    );
  }

  const get = (headers: string): string =>
    `GET /v1/categories HTTP/1.1\r\nHost: localhost\r\n${headers}Connection: close\r\n\r\n`;

  it('answers 431 HEADERS_TOO_LARGE with the Error body for 20 KiB of headers', async () => {
    const answer = await send(get(`X-Padding: ${'a'.repeat(20 * 1024)}\r\n`));
    expectJsonError(answer, 431, 'HEADERS_TOO_LARGE');
  });

  it('answers 431 HEADERS_TOO_LARGE for many small headers adding up past the limit', async () => {
    const many = Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'b'.repeat(50)}\r\n`).join('');
    expectJsonError(await send(get(many)), 431, 'HEADERS_TOO_LARGE');
  });

  it('serves a request whose headers are large but within the limit', async () => {
    const answer = await send(
      get(`Authorization: ${t.auth}\r\nX-Padding: ${'a'.repeat(12_000)}\r\n`),
    );
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 200,
      body: expect.any(Array),
    });
  });

  it('answers 400 VALIDATION_FAILED with the Error body for a request line that is not HTTP', async () => {
    expectJsonError(await send('HELLO THERE\r\n\r\n'), 400, 'VALIDATION_FAILED');
  });

  it('answers 400 VALIDATION_FAILED for a header name with a space in it', async () => {
    expectJsonError(await send(get('Bad Header: x\r\n')), 400, 'VALIDATION_FAILED');
  });

  it('answers 400 VALIDATION_FAILED for a body framed by both Content-Length and chunked', async () => {
    const raw =
      'POST /v1/categories HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
      'Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n';
    expectJsonError(await send(raw), 400, 'VALIDATION_FAILED');
  });

  it('answers 413 PAYLOAD_TOO_LARGE for chunk extensions over the parser limit', async () => {
    const raw =
      `POST /v1/categories HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${t.auth}\r\n` +
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
      `2;ext=${'x'.repeat(20 * 1024)}\r\n{}\r\n0\r\n\r\n`;
    expectJsonError(await send(raw), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('keeps serving after refused requests', async () => {
    await send('HELLO THERE\r\n\r\n');
    await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
  });

  it('answers 400 VALIDATION_FAILED with the Error body for an HTTP/1.1 request without Host', async () => {
    const answer = await send('GET /v1/categories HTTP/1.1\r\nX-Request-Id: no-host-1\r\n\r\n');
    expectJsonError(answer, 400, 'VALIDATION_FAILED');
    expect((answer.body as { message: string }).message).toMatch(/Host/);
    // Answered by the app, not by Node: the request's own id, and the app's security headers.
    expect(answer.headers['x-request-id']).toBe('no-host-1');
    expect(answer.headers['content-security-policy']).toBeDefined();
  });

  it('serves an HTTP/1.0 request without Host (HTTP/1.0 has none)', async () => {
    const answer = await send('GET /health/live HTTP/1.0\r\n\r\n');
    expect(answer.status).toBe(200);
  });

  it('answers 417 EXPECTATION_FAILED with the Error body for an Expect other than 100-continue', async () => {
    const raw =
      'POST /v1/categories HTTP/1.1\r\nHost: localhost\r\nExpect: 200-ok\r\n' +
      `Authorization: ${t.auth}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`;
    const answer = await send(raw);
    expectJsonError(answer, 417, 'EXPECTATION_FAILED');
    expect(answer.headers['content-security-policy']).toBeDefined();
  });

  it('still meets Expect: 100-continue', async () => {
    const body = JSON.stringify({ name: `continued-${Date.now()}` });
    const raw =
      'POST /v1/categories HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\n' +
      `Authorization: ${t.auth}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    const text = await sendForText(raw);
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 Created\r\n/);
  });

  it('answers 408 REQUEST_TIMEOUT with the Error body for a body slower than REQUEST_TIMEOUT_MS', async () => {
    const started = Date.now();
    const raw =
      'POST /v1/categories HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: slow-body-1\r\n' +
      `Authorization: ${t.auth}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`;
    const answer = await send(raw);
    expectJsonError(answer, 408, 'REQUEST_TIMEOUT');
    // Through the request's own answer: its id, not a made-up one.
    expect(answer.headers['x-request-id']).toBe('slow-body-1');
    // Cut within the check interval (a second) of the limit, not Node's 30 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(Date.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS + 2000);
    // Nothing was created from the part that arrived.
    const { rows } = await t.db.query<{ count: string }>('SELECT count(*) FROM categories');
    const res = await t.http.get('/v1/categories').set('Authorization', t.auth).expect(200);
    expect(res.body).toHaveLength(Number(rows[0].count));
  });

  it('adds no 408 to a request answered before its slow body arrived, and closes it at the limit', async () => {
    const started = Date.now();
    // No key: refused (401) before the body is read; the body never completes.
    const raw =
      'POST /v1/categories HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
      'Content-Length: 100\r\n\r\n{"name":';
    const text = await sendForText(raw);
    expect(text.match(/HTTP\/1\.1 \d+/g)).toEqual(['HTTP/1.1 401']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(Date.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS + 2000);
  });

  it('answers 408 REQUEST_TIMEOUT with the Error body for headers slower than HEADERS_TIMEOUT_MS', async () => {
    const started = Date.now();
    const answer = await send('GET /v1/categories HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    expectJsonError(answer, 408, 'REQUEST_TIMEOUT');
    expect(Date.now() - started).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
    expect(Date.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS + 1000);
  });

  it('keeps an idle keep-alive connection past HEADERS_TIMEOUT_MS (only requests are timed)', async () => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const get = 'GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n';
    socket.write(get);
    await new Promise((wait) => setTimeout(wait, REQUEST_TIMEOUT_MS + 1500));
    expect(socket.destroyed).toBe(false);
    socket.write(get);
    await new Promise((wait) => setTimeout(wait, 300));
    socket.destroy();
    const statuses = Buffer.concat(received)
      .toString('latin1')
      .match(/HTTP\/1\.1 \d+/g);
    expect(statuses).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
  });

  it('closes a refused connection the client keeps half open, at HEADERS_TIMEOUT_MS', async () => {
    const server = t.app.getHttpServer();
    const accepted: Socket[] = [];
    const onConnection = (serverSide: Socket): number => accepted.push(serverSide);
    server.on('connection', onConnection);
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    try {
      socket.on('data', () => undefined);
      const ended = new Promise((done) => socket.once('end', done));
      const started = Date.now();
      socket.write('HELLO THERE\r\n\r\n');
      await ended;
      // The client never closes its side; the server does not wait for it for good: the
      // refused request never completed, so its headers' time limit still ends it.
      const serverSide = accepted.find((each) => each.remotePort === socket.localPort);
      expect(serverSide?.destroyed).toBe(false);
      await new Promise((done) => serverSide!.once('close', done));
      expect(Date.now() - started).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 100);
      expect(Date.now() - started).toBeLessThan(HEADERS_TIMEOUT_MS + 1500);
    } finally {
      server.off('connection', onConnection);
      socket.destroy();
    }
  });

  /** The whole answer as text, for answers of more than one message (100 Continue). */
  function sendForText(raw: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', reject);
      socket.on('end', () => {
        resolve(Buffer.concat(chunks).toString('utf8'));
        socket.destroy();
      });
      socket.write(raw);
    });
  }
});
