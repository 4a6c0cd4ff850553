import { randomBytes } from 'node:crypto';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { createTestDatabase, testRun } from '../support/test-database.js';

const KEY = `psk_${randomBytes(32).toString('base64url')}`;

interface RequestLine {
  level: number;
  msg: string;
  req: { id: string; method: string; url: string };
  res: { statusCode: number };
  responseTime: number;
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

  it('writes one JSON line per request with method, route, status, duration, request id and key prefix', async () => {
    const res = await fetch(`${service.url}/v1/store/orders/12345`, {
      headers: { Authorization: `Bearer ${KEY}`, 'X-Request-Id': 'trace-abc-1' },
    });
    expect(res.status).toBe(404);
    await new Promise((wait) => setTimeout(wait, 200));
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
    await new Promise((wait) => setTimeout(wait, 200));
    const ids = [refused.headers.get('x-request-id'), unknown.headers.get('x-request-id')];
    const lines = requestLines().filter((line) => ids.includes(line.req.id));
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
    await new Promise((wait) => setTimeout(wait, 200));
    const lines = requestLines().filter((line) => ids.includes(line.req.id));
    expect(lines.map((line) => line.req.url).sort()).toEqual(
      ['/nope/psk_[redacted]', '/v1/categories', '/v1/store/orders/psk_[redacted]'].sort(),
    );
    const output = [...service.stdout, ...service.stderr].join('\n');
    for (const secret of [sentAsId, inPath, encodedInPath]) {
      expect(output).not.toContain(secret);
    }
  });
});
