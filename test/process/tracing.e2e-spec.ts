import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import pg from 'pg';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { insertPet } from '../support/factories.js';
import { createTestDatabase, testRun } from '../support/test-database.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { eventually } from '../support/eventually.js';

const KEY = `psk_${randomBytes(32).toString('base64url')}`;
const REDIS_URL = process.env.PETSTORE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SERVER = 2;
const CLIENT = 3;

const traceId = () => randomBytes(16).toString('hex');
const spanId = () => randomBytes(8).toString('hex');
/** A caller's `traceparent` in `trace`, from a fresh span of its own, sampled unless said. */
const callerIn = (trace: string, sampled = true) =>
  `00-${trace}-${spanId()}-${sampled ? '01' : '00'}`;

/**
 * Tracing as operators run it (docs/operating.md, Tracing): the built service in its own
 * process with the preload, sending OTLP/JSON to a real OTLP/HTTP receiver on loopback.
 */
describe('tracing (real process, OTLP receiver)', () => {
  let databaseUrl: string;
  let db: pg.Pool;
  let otlp: OtlpReceiver;
  let receiver: WebhookReceiver;
  const services: ServiceProcess[] = [];

  const start = (env: Record<string, string> = {}) =>
    startService({
      DATABASE_URL: databaseUrl,
      BOOTSTRAP_API_KEY: KEY,
      LOG_LEVEL: 'info',
      REDIS_URL,
      RATE_LIMIT_REDIS_PREFIX: `petstore-test:${randomBytes(6).toString('hex')}:`,
      RATE_LIMIT_PER_MINUTE: '100000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '100',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      ...env,
    }).then((service) => {
      services.push(service);
      return service;
    });

  const call = (
    service: ServiceProcess,
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: unknown,
  ) =>
    fetch(`${service.url}${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${KEY}`,
        ...(body !== undefined && { 'Content-Type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  /** The spans of a trace, once its server span has arrived (and what came with it). */
  const traceOf = async (id: string, name: string): Promise<ReceivedSpan[]> => {
    await eventually(() =>
      otlp.trace(id).some((span) => span.kind === SERVER && span.name === name),
    );
    // The batch with the server span may trail its children's by one export.
    await new Promise((wait) => setTimeout(wait, 300));
    return otlp.trace(id);
  };

  /** Whether `span` descends from `ancestor` within `spans`. */
  const descends = (spans: ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan) => {
    for (let parent = span.parentSpanId; parent !== undefined;) {
      if (parent === ancestor.spanId) return true;
      parent = spans.find((candidate) => candidate.spanId === parent)?.parentSpanId;
    }
    return false;
  };

  beforeAll(async () => {
    databaseUrl = await createTestDatabase(
      `petstore_test_${testRun.runId()}_${randomBytes(4).toString('hex')}`,
    );
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    otlp = await new OtlpReceiver().start();
    receiver = await new WebhookReceiver().start();
  });
  afterEach(async () => {
    await Promise.all(services.splice(0).map((service) => service.stop()));
    receiver.reset();
  });
  afterAll(async () => {
    await db.end();
    await otlp.close();
    await receiver.close();
  });

  it('continues the caller’s trace: the route template names the server span, SQL and Redis spans are its children, the log line names the trace', async () => {
    const service = await start();
    const petId = await insertPet(db, { name: 'Traced' });
    const placeTrace = traceId();
    const placed = await call(
      service,
      'POST',
      '/v2/store/orders',
      { traceparent: callerIn(placeTrace) },
      { petId, quantity: 3 },
    );
    expect(placed.status).toBe(201);
    const { id: orderId } = (await placed.json()) as { id: number };
    // A route with interceptors of its own (JSON body, Idempotency-Key) gets its handler span
    // too, under the server span.
    const placing = await traceOf(placeTrace, 'POST /v2/store/orders');
    const placeServer = placing.find((span) => span.kind === SERVER);
    const placeHandler = placing.find((span) => span.name === 'handler /v2/store/orders');
    expect(placeHandler?.parentSpanId).toBe(placeServer?.spanId);

    const trace = traceId();
    const parent = spanId();
    const res = await call(service, 'GET', `/v2/store/orders/${orderId}`, {
      traceparent: `00-${trace}-${parent}-01`,
      tracestate: 'vendor=caller',
    });
    expect(res.status).toBe(200);

    const spans = await traceOf(trace, 'GET /v2/store/orders/{orderId}');
    const servers = spans.filter((span) => span.kind === SERVER);
    expect(servers).toHaveLength(1);
    const [server] = servers;
    expect(server.parentSpanId).toBe(parent);
    expect(server.attributes['http.route']).toBe('/v2/store/orders/{orderId}');
    expect(server.attributes['http.response.status_code']).toBe(200);
    expect(server.resource['service.name']).toBe('petstore-api');

    // The controller's span, under the server span, named by the same template.
    const handler = spans.find((span) => span.name === 'handler /v2/store/orders/{orderId}');
    expect(handler?.parentSpanId).toBe(server.spanId);
    expect(handler?.attributes['http.route']).toBe('/v2/store/orders/{orderId}');

    const queries = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql');
    const texts = queries.map((span) => span.attributes['db.query.text']).filter(Boolean);
    expect(texts.length).toBeGreaterThan(0);
    for (const span of queries) expect(descends(spans, span, server)).toBe(true);
    // The order's read: its text with the placeholder, never the id it was run with.
    expect(texts.some((text) => /FROM orders/.test(String(text)) && /\$1/.test(String(text)))).toBe(
      true,
    );
    // …and it runs in the controller's span.
    const orderRead = queries.find((span) =>
      /FROM orders/.test(String(span.attributes['db.query.text'])),
    );
    expect(
      orderRead !== undefined && handler !== undefined && descends(spans, orderRead, handler),
    ).toBe(true);
    for (const span of queries) {
      expect(Object.keys(span.attributes).filter((key) => /param|values/i.test(key))).toEqual([]);
    }
    // Taking a pooled connection makes no span (docs/operating.md, Tracing: what it costs).
    expect(spans.filter((span) => span.name.startsWith('pg-pool.'))).toEqual([]);

    const redis = spans.filter(
      (span) =>
        span.attributes['db.system.name'] === 'redis' || span.attributes['db.system'] === 'redis',
    );
    expect(redis.length).toBeGreaterThan(0);
    for (const span of redis) expect(descends(spans, span, server)).toBe(true);

    // Every span the request made is in this one trace.
    const otherServerSpans = otlp.spans.filter(
      (span) =>
        span.kind === SERVER &&
        span.attributes['url.path'] === `/v2/store/orders/${orderId}` &&
        span.traceId !== trace,
    );
    expect(otherServerSpans).toEqual([]);

    await eventually(() =>
      service.stdout.some((line) => line.includes(`"url":"/v2/store/orders/${orderId}"`)),
    );
    const line = JSON.parse(
      service.stdout.find((entry) => entry.includes(`"url":"/v2/store/orders/${orderId}"`)) ?? '{}',
    ) as { trace_id?: string; span_id?: string };
    expect(line.trace_id).toBe(trace);
    expect(spans.map((span) => span.spanId)).toContain(line.span_id);
  });

  it('names a request no route matched by its method alone', async () => {
    const service = await start();
    const trace = traceId();
    const res = await call(service, 'GET', '/v2/no/such/route', {
      traceparent: callerIn(trace),
    });
    expect(res.status).toBe(404);
    const [server] = await traceOf(trace, 'GET');
    expect(server.attributes['http.route']).toBeUndefined();
    expect(server.attributes['http.response.status_code']).toBe(404);
  });

  it('sends the spans it still holds when it stops on SIGTERM', async () => {
    // A batch that would wait a minute: only the shutdown's flush can send it in time.
    const service = await start({ OTEL_BSP_SCHEDULE_DELAY: '60000' });
    const trace = traceId();
    expect(
      (await call(service, 'GET', '/v1/categories', { traceparent: callerIn(trace) })).status,
    ).toBe(200);
    await new Promise((wait) => setTimeout(wait, 300));
    expect(otlp.trace(trace)).toEqual([]);
    service.child.kill('SIGTERM');
    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(otlp.trace(trace).some((span) => span.name === 'GET /v1/categories')).toBe(true);
  });

  it('delivers a webhook in the trace of the change: the attempt is a client span linked to it, the delivery carries its traceparent', async () => {
    const secret = randomBytes(32);
    await db.query('DELETE FROM webhook_subscriptions');
    await db.query(
      `INSERT INTO webhook_subscriptions (api_key_id, url, events, secret)
       VALUES ((SELECT min(id) FROM api_keys), $1, '{category.created}', $2)`,
      [receiver.url, secret],
    );
    const service = await start();
    const trace = traceId();
    const created = await call(
      service,
      'POST',
      '/v1/categories',
      { traceparent: callerIn(trace) },
      { name: `traced-${randomBytes(4).toString('hex')}` },
    );
    expect(created.status).toBe(201);

    await receiver.waitFor(1);
    const header = String(receiver.received[0].headers.traceparent);
    const [, headerTrace, headerSpan] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(header) ?? [];
    expect(headerTrace).toBe(trace);

    await eventually(() =>
      otlp.trace(trace).some((span) => span.kind === CLIENT && span.name.startsWith('webhook')),
    );
    const spans = await traceOf(trace, 'POST /v1/categories');
    const attempt = spans.find(
      (span) => span.kind === CLIENT && span.name === 'webhook category.created',
    );
    expect(attempt).toBeDefined();
    // The receiver's traceparent continues the attempt's span.
    expect(attempt?.spanId).toBe(headerSpan);
    // Linked to the span that made the change, in the request's trace.
    const server = spans.find((span) => span.kind === SERVER);
    expect(attempt?.links).toHaveLength(1);
    const [link] = attempt?.links ?? [];
    expect(link.traceId).toBe(trace);
    const changer = spans.find((span) => span.spanId === link.spanId);
    expect(changer).toBeDefined();
    expect(
      changer === server ||
        (server !== undefined && changer !== undefined && descends(spans, changer, server)),
    ).toBe(true);
    expect(attempt?.attributes['http.response.status_code']).toBe(200);
    expect(attempt?.attributes['webhook.delivery.attempt']).toBe(1);
  });

  it('keeps every API key, webhook secret, request body and SQL value out of every span', async () => {
    const secret = randomBytes(32);
    await db.query('DELETE FROM webhook_subscriptions');
    await db.query(
      `INSERT INTO webhook_subscriptions (api_key_id, url, events, secret)
       VALUES ((SELECT min(id) FROM api_keys), $1, '{category.created,order.placed}', $2)`,
      [receiver.url, secret],
    );
    const service = await start();
    const name = `secret-name-${randomBytes(6).toString('hex')}`;
    const description = `secret-description-${randomBytes(6).toString('hex')}`;
    const shipDate = '2031-07-19T08:09:10.123Z';
    const petName = `secret-pet-${randomBytes(6).toString('hex')}`;
    const petId = await insertPet(db, { name: petName });
    const trace = traceId();
    const traceparent = callerIn(trace);
    expect(
      (await call(service, 'POST', '/v1/categories', { traceparent }, { name, description }))
        .status,
    ).toBe(201);
    expect(
      (
        await call(
          service,
          'POST',
          '/v2/store/orders',
          { traceparent },
          { petId, quantity: 917, shipDate },
        )
      ).status,
    ).toBe(201);
    // A key where none belongs, in the query: the span must not keep it either.
    const otherKey = `psk_${randomBytes(32).toString('base64url')}`;
    await call(service, 'GET', `/v1/categories?api_key=${otherKey}`, { traceparent });
    // A key that does not exist: its lookup runs with the key's hash as its value.
    await fetch(`${service.url}/v1/categories`, {
      headers: { Authorization: `Bearer ${otherKey}`, traceparent },
    });

    await receiver.waitFor(2);
    await eventually(() => otlp.trace(trace).filter((span) => span.kind === CLIENT).length >= 2);
    await traceOf(trace, 'GET /v1/categories');

    const exported = otlp.rawBodies.join('\n');
    expect(exported).toContain(trace);
    const forbidden = [
      KEY,
      KEY.slice(4),
      otherKey,
      otherKey.slice(4),
      secret.toString('base64'),
      secret.toString('hex'),
      name,
      description,
      petName,
      shipDate,
      '"intValue":917',
      'secret-',
    ];
    for (const value of forbidden) expect(exported).not.toContain(value);
    // Nor any attribute named for parameters, bodies or headers that carry credentials.
    const keys = new Set(otlp.spans.flatMap((span) => Object.keys(span.attributes)));
    expect([...keys].filter((key) => /param|body|authorization|secret|values/i.test(key))).toEqual(
      [],
    );
  });

  it('respects the sampler variables: parentbased_traceidratio at 0 keeps a caller’s sampled trace only', async () => {
    const service = await start({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    const sampled = traceId();
    const unsampled = traceId();
    expect(
      (
        await call(service, 'GET', '/v1/categories', {
          traceparent: callerIn(sampled),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call(service, 'GET', '/v2/categories', {
          traceparent: callerIn(unsampled, false),
        })
      ).status,
    ).toBe(200);
    expect((await call(service, 'GET', '/v1/store/orders')).status).toBe(200);
    await traceOf(sampled, 'GET /v1/categories');
    await new Promise((wait) => setTimeout(wait, 500));
    expect(otlp.trace(unsampled)).toEqual([]);
    expect(otlp.spans.filter((span) => span.name === 'GET /v1/store/orders')).toEqual([]);
    // A request the sampler dropped still names its trace in its log line.
    const line = JSON.parse(
      service.stdout.find((entry) => entry.includes('"url":"/v2/categories"')) ?? '{}',
    ) as { trace_id?: string; span_id?: string };
    expect(line.trace_id).toBe(unsampled);
    expect(line.span_id).toMatch(/^[0-9a-f]{16}$/);
  });

  it('respects the sampler variables: traceidratio at 0 keeps nothing, not even a sampled caller’s trace', async () => {
    const before = otlp.spans.length;
    const service = await start({
      OTEL_TRACES_SAMPLER: 'traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0',
    });
    const trace = traceId();
    expect(
      (await call(service, 'GET', '/v1/categories', { traceparent: callerIn(trace) })).status,
    ).toBe(200);
    await new Promise((wait) => setTimeout(wait, 800));
    expect(otlp.spans.slice(before)).toEqual([]);
  });

  it('sends nothing with tracing off, and the log lines name no trace', async () => {
    const requestsBefore = otlp.requests;
    // An endpoint set but the exporter `none`: off.
    const service = await start({ OTEL_TRACES_EXPORTER: 'none' });
    const trace = traceId();
    expect(
      (await call(service, 'GET', '/v1/categories', { traceparent: callerIn(trace) })).status,
    ).toBe(200);
    await eventually(() => service.stdout.some((line) => line.includes('"url":"/v1/categories"')));
    await new Promise((wait) => setTimeout(wait, 800));
    expect(otlp.requests).toBe(requestsBefore);
    expect(service.stdout.filter((line) => line.includes('trace_id'))).toEqual([]);
  });

  it('loads no SDK with tracing off: the preload leaves the no-op tracer in place', () => {
    const probe = (env: Record<string, string>) =>
      spawnSync(
        process.execPath,
        [
          '--import',
          resolve('dist', 'tracing', 'register.js'),
          '--input-type=module',
          '-e',
          "import { trace } from '@opentelemetry/api'; const p = trace.getTracerProvider(); process.stdout.write(p.getDelegate().constructor.name);",
        ],
        { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' },
      ).stdout;
    expect(probe({})).toBe('NoopTracerProvider');
    expect(probe({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_SDK_DISABLED: 'true' })).toBe(
      'NoopTracerProvider',
    );
    expect(probe({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url })).not.toBe('NoopTracerProvider');
  });
});
