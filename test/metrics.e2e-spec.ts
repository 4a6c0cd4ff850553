import http from 'node:http';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type pg from 'pg';
import { DrainState } from '../src/lifecycle/drain-state.js';
import { MetricsService } from '../src/metrics/metrics.service.js';
import { insertPet } from './support/factories.js';
import { expectErrorResponse } from './support/http-assertions.js';
import { createTestApp, listeningOrigin, type TestApp } from './support/test-app.js';
import { eventually } from './support/eventually.js';

/** The value of one sample in Prometheus text, 0 when the series does not exist yet. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(/,(?=[a-zA-Z_]+=")/);
    if (wanted.every((label) => present.includes(label))) return Number(match[3]);
  }
  return 0;
}

async function insertOrders(db: pg.Pool, petId: number, count: number): Promise<void> {
  await db.query(
    `INSERT INTO orders (pet_id, quantity, status) SELECT $1, 1, 'pending' FROM generate_series(1, $2)`,
    [petId, count],
  );
}

describe('Prometheus metrics on METRICS_PORT (e2e)', () => {
  let t: TestApp;
  let metricsUrl: string;
  let baseUrl: string;

  const scrape = async (): Promise<string> => {
    const res = await fetch(metricsUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };
  const requests = (text: string, route: string, status: string, method = 'GET'): number =>
    sample(text, 'http_server_request_duration_seconds_count', {
      http_request_method: method,
      http_route: route,
      http_response_status_code: status,
    });

  beforeAll(async () => {
    t = await createTestApp({
      metrics: { port: 0, host: '127.0.0.1' },
      // Short, so that a request too slow to arrive is cut while the test waits.
      http: { keepAliveTimeoutMs: 65_000, headersTimeoutMs: 1000, requestTimeoutMs: 1500 },
      // Low enough to reach: one caller's budget per minute (the unit under test is the count).
      rateLimit: {
        redisKeyPrefix: 'petstore:test:',
        perKeyPerMinute: 3,
        unauthenticatedPerMinute: 0,
      },
    });
    baseUrl = await listeningOrigin(t);
    metricsUrl = `http://127.0.0.1:${t.app.get(MetricsService).address()!.port}/metrics`;
  });
  afterAll(() => t.close());

  it('serves /metrics on its own port, and the public port does not', async () => {
    expect(t.app.get(MetricsService).address()!.port).not.toBe(
      (t.app.getHttpServer().address() as AddressInfo).port,
    );
    expectErrorResponse(await t.http.get('/metrics'), 404, 'NOT_FOUND');
    const other = await fetch(metricsUrl.replace('/metrics', '/other'));
    expect(other.status).toBe(404);
  });

  it('counts each request by method, route pattern and status, and times it', async () => {
    const before = await scrape();
    const res = await fetch(`${baseUrl}/v1/categories`, { headers: { Authorization: t.auth } });
    expect(res.status).toBe(200);
    await res.text();
    await (
      await fetch(`${baseUrl}/v1/store/orders/999999`, { headers: { Authorization: t.auth } })
    ).text();
    await (await fetch(`${baseUrl}/nowhere`, { method: 'DELETE' })).text();
    // An answer is counted when its response closes, a moment after the client has it all.
    const counted = (text: string): number[] => [
      requests(text, '/v1/categories', '200') - requests(before, '/v1/categories', '200'),
      // The pattern, never the id.
      requests(text, '/v1/store/orders/:orderId', '404') -
        requests(before, '/v1/store/orders/:orderId', '404'),
      // No route matched: the route label is empty (OpenTelemetry leaves http.route out).
      requests(text, '', '404', 'DELETE') - requests(before, '', '404', 'DELETE'),
    ];
    let after = '';
    await eventually(async () => counted((after = await scrape())).every((n) => n >= 1), 2000);
    expect(counted(after)).toEqual([1, 1, 1]);
    expect(after).not.toMatch(/http_route="[^"]*999999/);
    const sum = (text: string): number =>
      sample(text, 'http_server_request_duration_seconds_sum', {
        http_route: '/v1/categories',
        http_response_status_code: '200',
      });
    expect(sum(after)).toBeGreaterThan(sum(before));
    expect(
      sample(after, 'http_server_request_duration_seconds_bucket', {
        http_route: '/v1/categories',
        http_response_status_code: '200',
        le: '+Inf',
      }),
    ).toBe(requests(after, '/v1/categories', '200'));
  });

  it('counts rate-limit rejections', async () => {
    const { key } = await import('../src/auth/api-keys.service.js').then(({ ApiKeysService }) =>
      t.app.get(ApiKeysService).issue('limited'),
    );
    const before = sample(await scrape(), 'petstore_rate_limit_rejections_total');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${baseUrl}/v1/categories`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      statuses.push(res.status);
      await res.text();
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const rejected = (text: string): number =>
      sample(text, 'petstore_rate_limit_rejections_total') - before;
    let after = '';
    await eventually(async () => rejected((after = await scrape())) >= 2, 2000);
    expect(rejected(after)).toBe(2);
    expect(requests(after, '/v1/categories', '429')).toBeGreaterThanOrEqual(2);
  });

  it('counts Idempotency-Key replays by operation and version, and only replays', async () => {
    const petId = await insertPet(t.db, { name: 'Replayed' });
    const { ApiKeysService } = await import('../src/auth/api-keys.service.js');
    // A key each: this app allows 3 requests per key and minute.
    const [orders, categories] = await Promise.all(
      ['replays-orders', 'replays-categories'].map(
        async (name) => `Bearer ${(await t.app.get(ApiKeysService).issue(name)).key}`,
      ),
    );
    const post = async (auth: string, path: string, body: object): Promise<string> => {
      const res = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: {
          Authorization: auth,
          'Content-Type': 'application/json',
          'Idempotency-Key': 'r1',
        },
        body: JSON.stringify(body),
      });
      await res.text();
      return `${res.status} ${res.headers.get('idempotent-replayed') ?? '-'}`;
    };
    const replays = (text: string, operation: string, version: string): number =>
      sample(text, 'petstore_idempotency_replays_total', { operation, version });
    const before = await scrape();

    const answers = [];
    for (let i = 0; i < 3; i++) {
      answers.push(await post(orders, '/v1/store/orders', { petId, quantity: 1 }));
    }
    answers.push(await post(categories, '/v2/categories', { name: 'replayed' }));
    answers.push(await post(categories, '/v2/categories', { name: 'replayed' }));
    // The same key value in v1 is another key: a first answer (409), not a replay.
    answers.push(await post(categories, '/v1/categories', { name: 'replayed' }));
    expect(answers).toEqual(['201 -', '201 true', '201 true', '201 -', '201 true', '409 -']);

    const after = await scrape();
    expect({
      placeOrderV1: replays(after, 'placeOrder', 'v1') - replays(before, 'placeOrder', 'v1'),
      createCategoryV2:
        replays(after, 'createCategory', 'v2') - replays(before, 'createCategory', 'v2'),
      createCategoryV1:
        replays(after, 'createCategory', 'v1') - replays(before, 'createCategory', 'v1'),
    }).toEqual({ placeOrderV1: 2, createCategoryV2: 1, createCategoryV1: 0 });
    expect(after).toMatch(/^# TYPE petstore_idempotency_replays_total counter$/m);
  });

  it('shows requests in flight, and an abandoned stream as status 499', async () => {
    const petId = await insertPet(t.db, { name: 'Metered' });
    // More than loopback socket buffers hold (about 9 MB): the answer cannot finish unread.
    await insertOrders(t.db, petId, 100_000);
    const { key } = await import('../src/auth/api-keys.service.js').then(({ ApiKeysService }) =>
      t.app.get(ApiKeysService).issue('streamer'),
    );
    const before = await scrape();
    const abandoned = (text: string): number => requests(text, '/v1/store/orders', '499');
    const request = http.get(`${baseUrl}/v1/store/orders`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    request.on('error', () => undefined);
    // The first bytes arrived, and the client stops reading: the answer is in flight.
    const response = await new Promise<http.IncomingMessage>((done) =>
      request.on('response', done),
    );
    response.pause();
    const during = await scrape();
    expect(
      sample(during, 'http_server_active_requests', { http_request_method: 'GET' }),
    ).toBeGreaterThanOrEqual(1);
    request.destroy();
    await eventually(async () => abandoned(await scrape()) - abandoned(before) === 1, 5000);
    let after = '';
    const active = (text: string): number =>
      sample(text, 'http_server_active_requests', { http_request_method: 'GET' });
    await eventually(async () => active((after = await scrape())) === 0, 2000);
    expect(requests(after, '/v1/store/orders', '200')).toBe(
      requests(before, '/v1/store/orders', '200'),
    );
  });

  /** Writes `raw` on a socket of its own; resolves with what came back once the server closed it. */
  function sendRaw(raw: string, options: { hangUpAfterMs?: number } = {}): Promise<string> {
    return new Promise((done, fail) => {
      const socket = connect(Number(new URL(baseUrl).port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', fail);
      socket.on('close', () => done(Buffer.concat(chunks).toString('utf8')));
      socket.write(raw);
      if (options.hangUpAfterMs !== undefined) {
        setTimeout(() => socket.destroy(), options.hangUpAfterMs);
      }
    });
  }

  const slowPost = (auth: string): string =>
    `POST /v1/categories HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${auth}\r\n` +
    'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":';

  it('counts a body slower than REQUEST_TIMEOUT_MS as 408 on its route, slow headers as a rejection', async () => {
    const { key } = await import('../src/auth/api-keys.service.js').then(({ ApiKeysService }) =>
      t.app.get(ApiKeysService).issue('slow-body'),
    );
    const refused = (text: string): number =>
      sample(text, 'petstore_http_refusals_total', { http_response_status_code: '408' });
    const before = await scrape();
    const [body, headers] = await Promise.all([
      sendRaw(slowPost(`Bearer ${key}`)),
      sendRaw('GET /v1/categories HTTP/1.1\r\nHost: localhost\r\n'),
    ]);
    expect([body.slice(0, 12), headers.slice(0, 12)]).toEqual(['HTTP/1.1 408', 'HTTP/1.1 408']);
    let after = '';
    await eventually(
      async () =>
        requests((after = await scrape()), '/v1/categories', '408', 'POST') -
          requests(before, '/v1/categories', '408', 'POST') ===
        1,
      2000,
    );
    expect(refused(after) - refused(before)).toBe(1);
    expect(after).toMatch(/^# TYPE petstore_http_refusals_total counter$/m);
  });

  it('counts a POST whose client left mid-body as 499, never as the status it was to have', async () => {
    const { key } = await import('../src/auth/api-keys.service.js').then(({ ApiKeysService }) =>
      t.app.get(ApiKeysService).issue('left-mid-body'),
    );
    const before = await scrape();
    const statuses = ['201', '400', '408', '499'];
    const count = (text: string): number[] =>
      statuses.map((status) => requests(text, '/v1/categories', status, 'POST'));
    await sendRaw(slowPost(`Bearer ${key}`), { hangUpAfterMs: 300 });
    let after = before;
    await eventually(async () => count((after = await scrape()))[3] - count(before)[3] === 1, 2000);
    expect(count(after).map((n, i) => n - count(before)[i])).toEqual([0, 0, 0, 1]);
  });

  it('reports the connection pool: used and idle connections, its maximum, waiting requests', async () => {
    await fetch(`${baseUrl}/v1/categories`, { headers: { Authorization: t.auth } });
    const text = await scrape();
    expect(sample(text, 'db_client_connection_max')).toBe(t.config.db.poolSize);
    expect(sample(text, 'db_client_connections_usage', { state: 'idle' })).toBeGreaterThanOrEqual(
      1,
    );
    // The scrape itself runs the readiness check, which may hold one connection meanwhile.
    expect(sample(text, 'db_client_connections_usage', { state: 'used' })).toBeLessThanOrEqual(1);
    expect(sample(text, 'db_client_connection_pending_requests')).toBe(0);
    expect(text).toMatch(/^# TYPE db_client_connection_pending_requests gauge$/m);
  });

  it('has process metrics: resident memory, heap, event-loop lag, handles', async () => {
    const text = await scrape();
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    for (const name of [
      'process_cpu_seconds_total',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_active_handles_total',
    ]) {
      expect(text).toMatch(new RegExp(`^${name} `, 'm'));
    }
  });

  it('leaves a scrape in test-output/metrics.txt, which CI checks with promtool', async () => {
    await fetch(`${baseUrl}/v1/categories`, { headers: { Authorization: t.auth } });
    await fetch(`${baseUrl}/v1/no-such-route`);
    const text = await scrape();
    expect(text).toMatch(/^http_server_request_duration_seconds_bucket\{/m);
    await mkdir(resolve('test-output'), { recursive: true });
    await writeFile(resolve('test-output', 'metrics.txt'), text);
  });

  it('answers "is this instance healthy?" with petstore_ready: 1, then 0 once draining', async () => {
    expect(sample(await scrape(), 'petstore_ready')).toBe(1);
    t.app.get(DrainState).begin();
    expect(sample(await scrape(), 'petstore_ready')).toBe(0);
    expect((await t.http.get('/health/ready')).status).toBe(503);
  });

  it('reports whether the database answers as petstore_database_up, apart from readiness', async () => {
    expect(sample(await scrape(), 'petstore_database_up')).toBe(1);
  });
});

describe('metrics without METRICS_PORT (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('opens no listener and has no /metrics on the public port', async () => {
    const metrics = t.app.get(MetricsService);
    expect(metrics.enabled).toBe(false);
    expect(metrics.address()).toBeUndefined();
    expectErrorResponse(await t.http.get('/metrics'), 404, 'NOT_FOUND');
  });
});
