import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, testRun } from '../support/test-database.js';
import { eventually } from '../support/eventually.js';

const KEY = `psk_${randomBytes(32).toString('base64url')}`;

/** A raw HTTP/1.1 connection, to hold a request half-sent or a keep-alive socket idle. */
async function openSocket(
  port: number,
): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (data += chunk));
  const closed = new Promise<void>((done) => socket.once('close', () => done()));
  await new Promise<void>((done, fail) => socket.once('connect', done).once('error', fail));
  return { socket, received: () => data, closed };
}

describe('graceful shutdown on SIGTERM (real process)', () => {
  let databaseUrl: string;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase(
      `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
    );
  });
  afterEach(() => service?.stop());

  it('fails readiness at once, serves through the drain delay, finishes in-flight requests, then exits 0', async () => {
    service = await startService({
      DATABASE_URL: databaseUrl,
      BOOTSTRAP_API_KEY: KEY,
      SHUTDOWN_DRAIN_DELAY_MS: '1500',
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'info',
    });
    const { port, url } = service;
    await fetch(`${url}/health/ready`).then((res) => expect(res.status).toBe(200));

    // An idle keep-alive connection, and a request whose body is still on its way.
    const idle = await openSocket(port);
    idle.socket.write(`GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n`);
    await eventually(() => idle.received().includes('\r\n\r\n'), 5000);
    const body = JSON.stringify({ name: 'sent while draining' });
    const inFlight = await openSocket(port);
    inFlight.socket.write(
      `POST /v1/categories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((wait) => setTimeout(wait, 200));

    const signalledAt = Date.now();
    service.child.kill('SIGTERM');
    let ready = await fetch(`${url}/health/ready`);
    while (ready.status === 200 && Date.now() - signalledAt < 1000) {
      ready = await fetch(`${url}/health/ready`);
    }
    expect(ready.status).toBe(503);
    // "At once": well inside the drain delay.
    expect(Date.now() - signalledAt).toBeLessThan(500);
    expect(await ready.json()).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: 'Not ready: instance.',
      status: 503,
    });
    // Still serving as usual during the drain delay, keep-alive included.
    const during = await fetch(`${url}/v1/categories`, {
      headers: { Authorization: `Bearer ${KEY}` },
    });
    expect(during.status).toBe(200);
    expect(during.headers.get('connection')).toBe('keep-alive');

    // After the delay: no new connections, and the idle keep-alive socket is closed once it
    // has been idle a second...
    await idle.closed;
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(1500);
    // A new connection is refused (a fetch could reuse a kept-alive one, which is served).
    await expect(
      new Promise((connected, refused) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          connected('connected');
        });
        socket.once('error', refused);
      }),
    ).rejects.toThrow(/ECONNREFUSED/);
    expect(service.child.exitCode).toBeNull();

    // ...and the request in flight still completes.
    inFlight.socket.write(body.slice(5));
    await eventually(() => inFlight.received().includes('\r\n\r\n{'), 5000);
    expect(inFlight.received()).toMatch(/^HTTP\/1\.1 201 /);
    expect(inFlight.received()).toContain('"name":"sent while draining"');
    // Answered after the listener closed: the client is told to reconnect elsewhere.
    expect(inFlight.received()).toMatch(/\r\nConnection: close\r\n/i);

    expect(await service.exited).toEqual({ code: 0, signal: null });
    // The last request line, of the request finished while draining, was written before the
    // process ended.
    const lastLine = (lines: string[]) =>
      lines.some((line) => line.includes('"msg":"POST /v1/categories 201"'));
    await eventually(() => lastLine(service!.stdout), 5000);
    expect(lastLine(service.stdout)).toBe(true);
    // A planned shutdown is not an incident: readiness 503s log no errors and no stack traces.
    const output = [...service.stdout, ...service.stderr];
    expect(output.filter((line) => line.includes('"level":50'))).toEqual([]);
    expect(output.filter((line) => line.includes('"stack"'))).toEqual([]);
  });

  it('exits 1 once SHUTDOWN_TIMEOUT_MS passes with a request that never finishes', async () => {
    service = await startService({
      DATABASE_URL: databaseUrl,
      BOOTSTRAP_API_KEY: KEY,
      SHUTDOWN_DRAIN_DELAY_MS: '0',
      SHUTDOWN_TIMEOUT_MS: '1500',
    });
    const stuck = await openSocket(service.port);
    stuck.socket.write(
      `POST /v1/categories HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
    );
    await new Promise((wait) => setTimeout(wait, 200));
    const signalledAt = Date.now();
    service.child.kill('SIGTERM');
    expect(await service.exited).toEqual({ code: 1, signal: null });
    const took = Date.now() - signalledAt;
    expect(took).toBeGreaterThanOrEqual(1400);
    expect(took).toBeLessThan(5000);
    stuck.socket.destroy();
  });

  it('keeps idle connections longer than a balancer (65 s) and waits longer still for headers', async () => {
    service = await startService({ DATABASE_URL: databaseUrl, BOOTSTRAP_API_KEY: KEY });
    const res = await fetch(`${service.url}/health/live`);
    expect(res.headers.get('keep-alive')).toBe('timeout=65');
  });
});
