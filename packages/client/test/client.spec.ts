import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import {
  PetstoreClient,
  PetstoreConnectionError,
  PetstoreError,
  PetstoreTimeoutError,
  verifyWebhook,
  WebhookVerificationError,
  type ErrorCode,
} from '../src/index.js';
import { backoffMs, retryAfterMs, retryingFetch, type RetryPolicy } from '../src/retry.js';

/*
 * The client's own rules, against a local HTTP server that answers as the test says: dropped
 * connections, 429 with Retry-After, 409 IDEMPOTENCY_KEY_IN_USE, hangs, pages. The client
 * against the real service is test/client.e2e-spec.ts.
 */

interface Seen {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}
type Answer = (seen: Seen, index: number, response: ServerResponse) => void;

/** A server on a free loopback port whose i-th request gets answers[i] (the last one after). */
async function serve(...answers: Answer[]) {
  const seen: Seen[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        method: request.method ?? '',
        url: new URL(request.url ?? '/', 'http://local'),
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(entry);
      const index = seen.length - 1;
      answers[Math.min(index, answers.length - 1)](entry, index, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  servers.push(server);
  return { seen, baseUrl: `http://127.0.0.1:${port}` };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Answer =>
  (_seen, _index, response) =>
    response
      .writeHead(status, { 'content-type': 'application/json', ...headers })
      .end(body === undefined ? undefined : JSON.stringify(body));
const error = (status: number, code: ErrorCode, headers: Record<string, string> = {}) =>
  json(status, { code, message: `a ${code}`, status }, { 'x-request-id': 'req-1', ...headers });
const drop: Answer = (_seen, _index, response) => response.socket?.destroy();
const hang: Answer = () => undefined;

const ORDER = { id: 1, petId: 7, quantity: 2, complete: false, status: 'pending' };

function clientOf(baseUrl: string, options: { maxRetries?: number; timeoutMs?: number } = {}) {
  return new PetstoreClient({ baseUrl, apiKey: 'psk_test', ...options });
}

describe('retries', () => {
  it('retries a read after a dropped connection, and answers the resource', async () => {
    const { seen, baseUrl } = await serve(drop, json(200, ORDER));
    await expect(clientOf(baseUrl).v2.orders.get(1)).resolves.toEqual(ORDER);
    expect(seen.map(({ method, url }) => `${method} ${url.pathname}`)).toEqual([
      'GET /v2/store/orders/1',
      'GET /v2/store/orders/1',
    ]);
    expect(seen[1].headers.authorization).toBe('Bearer psk_test');
  });

  it('honours Retry-After on 429 and 503, and gives up after maxRetries with the last answer', async () => {
    const { seen, baseUrl } = await serve(
      error(429, 'RATE_LIMITED', { 'retry-after': '0' }),
      error(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' }),
    );
    const failure = await clientOf(baseUrl)
      .v2.orders.get(1)
      .catch((e: unknown) => e);
    expect(seen).toHaveLength(3); // the first attempt and maxRetries (2) retries
    expect(failure).toBeInstanceOf(PetstoreError);
    expect(failure).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', requestId: 'req-1' });
  });

  it('takes maxRetries from the client, and from the call over the client', async () => {
    const busy = error(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' });
    const first = await serve(busy);
    await expect(clientOf(first.baseUrl, { maxRetries: 0 }).v2.orders.get(1)).rejects.toThrow(
      PetstoreError,
    );
    expect(first.seen).toHaveLength(1);

    const second = await serve(busy);
    await expect(
      clientOf(second.baseUrl, { maxRetries: 0 }).v2.orders.get(1, { maxRetries: 1 }),
    ).rejects.toThrow(PetstoreError);
    expect(second.seen).toHaveLength(2);
  });

  it('sends one generated Idempotency-Key with a create and each of its retries', async () => {
    const { seen, baseUrl } = await serve(
      drop,
      error(409, 'IDEMPOTENCY_KEY_IN_USE', { 'retry-after': '0' }),
      json(201, ORDER, { location: '/v2/store/orders/1' }),
    );
    await expect(clientOf(baseUrl).v2.orders.place({ petId: 7, quantity: 2 })).resolves.toEqual(
      ORDER,
    );
    const keys = seen.map(({ headers }) => headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    expect(seen.map(({ body }) => JSON.parse(body) as unknown)).toEqual(
      Array(3).fill({ petId: 7, quantity: 2 }),
    );

    // Another create gets another key; a caller's own key wins.
    await clientOf(baseUrl).v2.categories.create({ name: 'fish' }, { idempotencyKey: 'mine-1' });
    expect(seen.at(-1)?.headers['idempotency-key']).toBe('mine-1');
    await clientOf(baseUrl).v2.orders.place({ petId: 7, quantity: 2 });
    expect(seen.at(-1)?.headers['idempotency-key']).not.toBe(keys[0]);
  });

  it('retries a create with a key after a timeout, and never one without a key', async () => {
    const withKey = await serve(hang, json(201, ORDER));
    await expect(
      clientOf(withKey.baseUrl, { timeoutMs: 300 }).v2.orders.place({ petId: 7, quantity: 2 }),
    ).resolves.toEqual(ORDER);
    expect(withKey.seen).toHaveLength(2);

    // It may have run: sent again, it could place a second order.
    const withoutKey = await serve(hang, json(201, ORDER));
    const failure = await clientOf(withoutKey.baseUrl, { timeoutMs: 300 })
      .v2.orders.place({ petId: 7, quantity: 2 }, { idempotencyKey: false })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PetstoreTimeoutError);
    expect(withoutKey.seen).toHaveLength(1);
    expect(withoutKey.seen[0].headers['idempotency-key']).toBeUndefined();
  });

  it('retries a create without a key only when it cannot have run', async () => {
    // Refused by the limiter before it ran: retried. A 503 or a dropped connection: not.
    const limited = await serve(
      error(429, 'RATE_LIMITED', { 'retry-after': '0' }),
      json(201, ORDER),
    );
    await expect(
      clientOf(limited.baseUrl).v2.orders.place(
        { petId: 7, quantity: 2 },
        { idempotencyKey: false },
      ),
    ).resolves.toEqual(ORDER);
    expect(limited.seen).toHaveLength(2);

    const busy = await serve(
      error(503, 'SERVICE_UNAVAILABLE', { 'retry-after': '0' }),
      json(201, ORDER),
    );
    await expect(
      clientOf(busy.baseUrl).v2.orders.place({ petId: 7, quantity: 2 }, { idempotencyKey: false }),
    ).rejects.toMatchObject({ status: 503 });
    expect(busy.seen).toHaveLength(1);

    const dropped = await serve(drop, json(201, ORDER));
    await expect(
      clientOf(dropped.baseUrl).v2.orders.place(
        { petId: 7, quantity: 2 },
        { idempotencyKey: false },
      ),
    ).rejects.toThrow(PetstoreConnectionError);
    expect(dropped.seen).toHaveLength(1);
  });

  it('retries a create without a key when the connection never opened', async () => {
    let attempts = 0;
    const refused = Object.assign(new TypeError('fetch failed'), {
      cause: { code: 'ECONNREFUSED' },
    });
    const client = new PetstoreClient({
      baseUrl: 'http://127.0.0.1:9',
      apiKey: 'psk_test',
      maxRetries: 1,
      fetch: () => {
        attempts++;
        return Promise.reject(refused);
      },
    });
    const failure = await client.v2.orders
      .place({ petId: 7, quantity: 2 }, { idempotencyKey: false })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PetstoreConnectionError);
    expect((failure as Error).message).toContain('ECONNREFUSED');
    expect(attempts).toBe(2);
  });

  it('does not retry 409s other than IDEMPOTENCY_KEY_IN_USE, nor a client error', async () => {
    const { seen, baseUrl } = await serve(error(409, 'ORDER_ALREADY_SHIPPED'));
    await expect(clientOf(baseUrl).v2.orders.cancel(1)).rejects.toMatchObject({
      status: 409,
      code: 'ORDER_ALREADY_SHIPPED',
    });
    expect(seen).toHaveLength(1);
  });

  it('waits as Retry-After says (seconds or HTTP date), and backs off with jitter without it', async () => {
    const waits: number[] = [];
    const answers = [
      new Response('{}', { status: 429, headers: { 'retry-after': '3' } }),
      new Response('{}', { status: 429 }),
      new Response('{}', {
        status: 429,
        headers: { 'retry-after': 'Thu, 01 Jan 2099 00:00:00 GMT' },
      }),
    ];
    const policy: RetryPolicy = {
      maxRetries: 5,
      timeoutMs: 1000,
      fetch: () => Promise.resolve(answers.shift() ?? new Response('{}', { status: 200 })),
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
      random: () => 0.5,
    };
    const response = await retryingFetch(policy)(new Request('http://local/v2/pets'));
    // Three years away is more than a client should wait: the 429 is answered.
    expect(response.status).toBe(429);
    expect(waits).toEqual([3000, backoffMs(1, () => 0.5)]);
    expect(backoffMs(0, () => 0)).toBe(500);
    expect(backoffMs(1, () => 0.99)).toBeGreaterThanOrEqual(750);
    expect(backoffMs(10, () => 0)).toBe(8000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:10 GMT', Date.UTC(2026, 0, 1))).toBe(10_000);
    expect(retryAfterMs('soon')).toBeUndefined();
  });

  it('stops at once when the caller aborts', async () => {
    const { seen, baseUrl } = await serve(hang);
    const controller = new AbortController();
    const call = clientOf(baseUrl).v2.orders.get(1, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(call).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });
});

describe('errors', () => {
  it('gives the Error body as a PetstoreError whose code the compiler knows', async () => {
    const { baseUrl } = await serve(error(404, 'ORDER_NOT_FOUND'));
    const failure = await clientOf(baseUrl)
      .v2.orders.get(999)
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PetstoreError);
    const { status, code, message, requestId } = failure as PetstoreError;
    expect({ status, code, message, requestId }).toEqual({
      status: 404,
      code: 'ORDER_NOT_FOUND',
      message: 'a ORDER_NOT_FOUND',
      requestId: 'req-1',
    });
  });

  it('names an answer that is not an Error body UNEXPECTED_RESPONSE, with its status', async () => {
    const { baseUrl } = await serve((_seen, _index, response) =>
      response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'),
    );
    await expect(clientOf(baseUrl, { maxRetries: 0 }).v2.pets.get(1)).rejects.toMatchObject({
      status: 502,
      code: 'UNEXPECTED_RESPONSE',
    });
  });

  it('needs a base URL and a key, from options or the environment', () => {
    const saved = { ...process.env };
    try {
      delete process.env.PETSTORE_BASE_URL;
      delete process.env.PETSTORE_API_KEY;
      expect(() => new PetstoreClient({ apiKey: 'psk_x' })).toThrow(/PETSTORE_BASE_URL/);
      expect(() => new PetstoreClient({ baseUrl: 'http://x' })).toThrow(/PETSTORE_API_KEY/);
      process.env.PETSTORE_BASE_URL = 'http://x';
      process.env.PETSTORE_API_KEY = 'psk_x';
      expect(new PetstoreClient()).toBeInstanceOf(PetstoreClient);
    } finally {
      process.env = saved;
    }
  });
});

describe('pages', () => {
  it('follows nextCursor lazily to the end, keeping the limit and the filters', async () => {
    const pages: Record<string, { data: number[]; nextCursor: string | null }> = {
      '': { data: [1, 2], nextCursor: 'c2' },
      c2: { data: [3, 4], nextCursor: 'c3' },
      c3: { data: [5], nextCursor: null },
    };
    const { seen, baseUrl } = await serve((request, _index, response) =>
      json(200, pages[request.url.searchParams.get('cursor') ?? ''])(request, 0, response),
    );
    const list = clientOf(baseUrl).v2.orders.list({
      status: ['pending', 'shipped'],
      petId: 7,
      limit: 2,
    });
    expect(seen).toHaveLength(0); // nothing is asked before the walk

    const ids: number[] = [];
    for await (const order of list) ids.push(order as unknown as number);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(seen.map(({ url }) => url.search)).toEqual([
      '?petId=7&limit=2&status=pending%2Cshipped',
      '?petId=7&limit=2&status=pending%2Cshipped&cursor=c2',
      '?petId=7&limit=2&status=pending%2Cshipped&cursor=c3',
    ]);

    const sizes: number[] = [];
    for await (const page of list.pages()) sizes.push(page.data.length);
    expect(sizes).toEqual([2, 2, 1]);
  });

  it('stops the walk with the PetstoreError of a failed page', async () => {
    const { baseUrl } = await serve(
      json(200, { data: [1], nextCursor: 'bad' }),
      error(400, 'VALIDATION_FAILED'),
    );
    const walk = async () => {
      for await (const _ of clientOf(baseUrl).v2.pets.list()) void _;
    };
    await expect(walk()).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
  });
});

describe('verifyWebhook', () => {
  const oldSecret = `whsec_${Buffer.from('an old secret of 32 bytes, padded').toString('base64')}`;
  const newSecret = `whsec_${Buffer.from('the new secret of 32 bytes, padded').toString('base64')}`;
  const event = {
    id: 'evt_1',
    type: 'order.placed',
    createdAt: '2026-11-27T10:00:00.000Z',
    data: ORDER,
  };
  const body = JSON.stringify(event);

  function headersFor(...secrets: string[]) {
    const timestamp = new Date();
    const signature = secrets
      .map((secret) => new Webhook(secret).sign('evt_1', timestamp, body))
      .join(' ');
    return {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
  }

  it('returns the typed event of a delivery signed with the secret', () => {
    const verified = verifyWebhook(newSecret, headersFor(newSecret), body);
    expect(verified).toEqual(event);
    if (verified.type === 'order.placed') expect(verified.data.status).toBe('pending');
    // A fetch Headers and bytes work as well as Node's header object and a string.
    expect(
      verifyWebhook(newSecret, new Headers(headersFor(newSecret)), new TextEncoder().encode(body)),
    ).toEqual(event);
  });

  it('accepts either secret of a rotation, whose deliveries carry two signatures', () => {
    const headers = headersFor(oldSecret, newSecret);
    expect(verifyWebhook(oldSecret, headers, body)).toEqual(event);
    expect(verifyWebhook(newSecret, headers, body)).toEqual(event);
    expect(verifyWebhook([oldSecret, newSecret], headersFor(newSecret), body)).toEqual(event);
  });

  it('refuses another secret, a changed body and an old timestamp', () => {
    expect(() => verifyWebhook(oldSecret, headersFor(newSecret), body)).toThrow(
      WebhookVerificationError,
    );
    expect(() => verifyWebhook(newSecret, headersFor(newSecret), body.replace('7', '8'))).toThrow(
      WebhookVerificationError,
    );
    const old = {
      ...headersFor(newSecret),
      'webhook-timestamp': String(Math.floor(Date.now() / 1000) - 3600),
    };
    expect(() => verifyWebhook(newSecret, old, body)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook([], headersFor(newSecret), body)).toThrow(WebhookVerificationError);
  });
});
