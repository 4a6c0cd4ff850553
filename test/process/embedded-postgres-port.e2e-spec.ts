import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, startService, type ServiceProcess } from '../support/service-process.js';
import { eventually } from '../support/eventually.js';

const DB_URL_CLI = join(import.meta.dirname, '..', '..', 'dist', 'database', 'database-url.cli.js');

/** `npm run db:url` as the developer runs it, for a data folder: exit code, stdout, stderr. */
async function databaseUrlOf(
  folder: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [DB_URL_CLI], {
      env: { PATH: process.env.PATH ?? '', PETSTORE_DATA_DIR: folder },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Long enough for two first starts at once (initdb, migrations, demo data) on a busy machine. */
const FIRST_START_MS = 90_000;

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A free HTTP port below Linux's ephemeral range (32768 and up), where `listen(0)` never lands.
 * Each embedded PostgreSQL here takes its port with `listen(0)`: an HTTP port found the same way
 * and let go until its service binds it could be handed to the other service's PostgreSQL
 * first, and that service then stops on a taken port (seen once in CI).
 */
async function httpPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    if (await isFree(port)) return port;
  }
}

/** A program of someone else's holding a loopback port. */
async function holdPort(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((done, fail) =>
    server.once('error', fail).listen(port, '127.0.0.1', done),
  );
  return server;
}

async function release(server: Server): Promise<void> {
  await new Promise<void>((done) => server.close(() => done()));
}

/** The exit code, or what the service was doing instead when `timeoutMs` ran out. */
async function exitCodeWithin(service: ServiceProcess, timeoutMs: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`still running after ${timeoutMs} ms`), timeoutMs);
  });
  try {
    return await Promise.race([service.exited.then((exit) => exit.code), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `npm start` without DATABASE_URL in two checkouts at once: each data folder keeps an embedded
 * PostgreSQL port of its own (docs/configuration.md, EMBEDDED_PG_PORT). The service runs as
 * `node dist/main.js` with only a data folder set, the way `npm start` runs it. The steps run in
 * order on the same two folders, as a developer meets them.
 */
describe('the embedded PostgreSQL port of a data folder (real processes)', () => {
  const folders: string[] = [];
  const running = new Set<ServiceProcess>();
  let first: string;
  let second: string;
  let firstPort: number;

  async function dataFolder(): Promise<string> {
    const folder = await mkdtemp(join(tmpdir(), 'petstore-embedded-'));
    // As root, PostgreSQL runs as the `postgres` user, which must reach the folder.
    await chmod(folder, 0o755);
    folders.push(folder);
    return folder;
  }

  /** Starts the service on `folder`'s embedded PostgreSQL; resolves once it printed its key. */
  async function start(folder: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
    const service = await startService(
      { PORT: String(await httpPort()), PETSTORE_DATA_DIR: folder, ...env },
      { liveWithinMs: FIRST_START_MS },
    );
    running.add(service);
    await eventually(
      () => service.stdout.some((line) => line.includes('Development key:')),
      10_000,
      'the development key',
    );
    const ready = await fetch(`${service.url}/health/ready`);
    expect(ready.status).toBe(200);
    return service;
  }

  /** Ctrl-C: the service stops and its PostgreSQL with it. */
  async function stop(service: ServiceProcess, folder: string): Promise<void> {
    service.child.kill('SIGINT');
    expect(await exitCodeWithin(service, 20_000)).toBe(0);
    running.delete(service);
    expect(existsSync(join(folder, 'postgres', 'postmaster.pid'))).toBe(false);
  }

  const rememberedPort = (folder: string) =>
    Number(readFileSync(join(folder, 'postgres-port'), 'utf8'));
  const announcedPort = (service: ServiceProcess) => {
    const found = service.stdout
      .map((line) => /embedded PostgreSQL on port (\d+)/.exec(line)?.[1])
      .find((port) => port !== undefined);
    return found === undefined ? undefined : Number(found);
  };

  beforeAll(async () => {
    first = await dataFolder();
    second = await dataFolder();
  });

  afterAll(async () => {
    for (const service of running) {
      service.child.kill('SIGINT');
      const timer = setTimeout(() => service.child.kill('SIGKILL'), 15_000);
      await service.exited;
      clearTimeout(timer);
    }
    for (const folder of folders) {
      // A server left behind by a failed step: PostgreSQL's lock file names its process.
      const lockFile = join(folder, 'postgres', 'postmaster.pid');
      if (existsSync(lockFile)) {
        try {
          process.kill(Number(readFileSync(lockFile, 'utf8').split('\n')[0]), 'SIGQUIT');
        } catch {
          // gone already
        }
      }
      await rm(folder, { recursive: true, force: true });
    }
  });

  it(
    'two data folders started at once both come up, each on a free port of its own',
    async () => {
      const [a, b] = await Promise.all([start(first), start(second)]);
      firstPort = rememberedPort(first);
      const secondPort = rememberedPort(second);
      expect(firstPort).not.toBe(secondPort);
      expect(announcedPort(a)).toBe(firstPort);
      expect(announcedPort(b)).toBe(secondPort);
      await Promise.all([stop(a, first), stop(b, second)]);
    },
    FIRST_START_MS * 1.5,
  );

  it('starts again on the port its data folder remembers', async () => {
    const service = await start(first);
    expect(announcedPort(service)).toBe(firstPort);
    expect(rememberedPort(first)).toBe(firstPort);
    await stop(service, first);
  }, 60_000);

  it('npm run db:url prints the URL of the running embedded database, and says when none runs', async () => {
    const service = await start(first);
    const answer = await databaseUrlOf(first);
    expect(answer).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^postgres:\/\/\S+\n$/),
      stderr: '',
    });
    const client = new pg.Client({ connectionString: answer.stdout.trim() });
    await client.connect();
    try {
      const { rows } = await client.query<{ pets: number }>(
        'SELECT count(*)::int AS pets FROM pets',
      );
      expect(rows[0].pets).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
    await stop(service, first);
    expect(await databaseUrlOf(first)).toEqual({
      code: 1,
      stdout: '',
      stderr: `The embedded PostgreSQL of ${first} is not running: start the service (npm start) and ask again.\n`,
    });
  }, 60_000);

  it('a taken HTTP port stops the start in one line, and the embedded PostgreSQL with it', async () => {
    const port = await freePort();
    const blocker = await holdPort(port);
    try {
      const service = await startService(
        { PETSTORE_DATA_DIR: first, PORT: String(port) },
        { waitUntilLive: false },
      );
      running.add(service);
      expect(await exitCodeWithin(service, 30_000)).toBe(1);
      expect(service.stderr.filter((line) => line.trim() !== '')).toEqual([
        expect.stringMatching(new RegExp(`^start-up failed: port ${port} is already in use`)),
      ]);
      expect(existsSync(join(first, 'postgres', 'postmaster.pid'))).toBe(false);
    } finally {
      await release(blocker);
    }
  }, 60_000);

  it('moves to a free port, remembered, when another program holds the remembered one, and says so', async () => {
    const blocker = await holdPort(firstPort);
    try {
      const service = await start(first);
      const movedTo = rememberedPort(first);
      expect(movedTo).not.toBe(firstPort);
      expect(announcedPort(service)).toBe(movedTo);
      const warnings = [...service.stdout, ...service.stderr].filter((line) =>
        line.includes(`port ${firstPort}, remembered in`),
      );
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`moves to port ${movedTo} (set EMBEDDED_PG_PORT`);
      await stop(service, first);
    } finally {
      await release(blocker);
    }
  }, 60_000);

  it('EMBEDDED_PG_PORT wins over the remembered port, and is remembered in turn', async () => {
    const asked = await freePort();
    const service = await start(second, { EMBEDDED_PG_PORT: String(asked) });
    expect(announcedPort(service)).toBe(asked);
    expect(rememberedPort(second)).toBe(asked);
    await stop(service, second);
  }, 60_000);

  it('EMBEDDED_PG_PORT held by another program: exit 1 and one line naming it', async () => {
    const taken = await freePort();
    const blocker = await holdPort(taken);
    try {
      const service = await startService(
        { PETSTORE_DATA_DIR: second, EMBEDDED_PG_PORT: String(taken) },
        { waitUntilLive: false },
      );
      running.add(service);
      expect(await exitCodeWithin(service, 15_000)).toBe(1);
      const lines = service.stderr.filter((line) => line.trim() !== '');
      expect(lines).toEqual([
        expect.stringMatching(
          new RegExp(`^start-up failed: EMBEDDED_PG_PORT=${taken} is taken by another program`),
        ),
      ]);
    } finally {
      await release(blocker);
    }
  }, 30_000);
});
