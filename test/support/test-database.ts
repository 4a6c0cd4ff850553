import pg from 'pg';
import { DataSource } from 'typeorm';
import { CONFIG_DEFAULTS } from '../../src/config/config-variables.js';
import { runMigrationsLocked } from '../../src/database/migrate.js';
import { loadMigrations, typeOrmOptions } from '../../src/database/typeorm-options.js';
import { replicaCaughtUp } from './replica.js';

/** Set by global-setup.ts. */
function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value)
    throw new Error(`${name} is not set: run the e2e tests through jest (global-setup sets it)`);
  return value;
}

export const testRun = {
  adminUrl: () => requireEnv('PETSTORE_TEST_ADMIN_URL'),
  template: () => requireEnv('PETSTORE_TEST_TEMPLATE'),
  runId: () => requireEnv('PETSTORE_TEST_RUN_ID'),
};

/**
 * With PETSTORE_TEST_PGBOUNCER_URL (scripts/test-pgbouncer.sh), the URLs an app under test gets
 * for a database of the run's server: requests through PgBouncer (transaction pooling), and
 * the direct URL as DATABASE_DIRECT_URL. Other servers (a test's private cluster) stay direct.
 */
export function appDatabaseUrls(directUrl: string): { pooled: string; direct?: string } {
  const pgbouncer = process.env.PETSTORE_TEST_PGBOUNCER_URL;
  const admin = process.env.PETSTORE_TEST_ADMIN_URL;
  if (!pgbouncer || !admin || new URL(directUrl).host !== new URL(admin).host) {
    return { pooled: directUrl };
  }
  const pooled = new URL(pgbouncer);
  pooled.pathname = new URL(directUrl).pathname;
  return { pooled: pooled.toString(), direct: directUrl };
}

/** URL of `database` on the server that `serverUrl` points at. */
export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function withClient<T>(
  url: string,
  use: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

const TEMPLATE_LOCK_KEY = '7254400911348119';
let templateReady: Promise<void> | undefined;

/**
 * Migrates the run's template database once, whichever worker gets there first: the others
 * wait on an advisory lock and find it done (a comment on the database records that).
 */
function ensureMigratedTemplate(): Promise<void> {
  templateReady ??= withClient(testRun.adminUrl(), async (admin) => {
    const template = testRun.template();
    const marker = `migrated:${(await loadMigrations()).length}`;
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
    try {
      const { rows } = await admin.query<{ comment: string | null }>(
        `SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1`,
        [template],
      );
      if (rows[0]?.comment === marker) return;
      const dataSource = new DataSource(
        await typeOrmOptions(databaseUrl(testRun.adminUrl(), template), {
          poolSize: 1,
          connectTimeoutMs: CONFIG_DEFAULTS.DB_CONNECT_TIMEOUT_MS,
          statementTimeoutMs: CONFIG_DEFAULTS.DB_STATEMENT_TIMEOUT_MS,
          streamTimeoutMs: CONFIG_DEFAULTS.DB_STREAM_TIMEOUT_MS,
          maxStreams: 1,
          maxStreamsPerKey: 1,
          migrateOnStart: true,
        }),
      );
      await dataSource.initialize();
      try {
        await runMigrationsLocked(dataSource);
      } finally {
        await dataSource.destroy();
      }
      await admin.query(`COMMENT ON DATABASE ${admin.escapeIdentifier(template)} IS '${marker}'`);
    } finally {
      await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
    }
  });
  return templateReady;
}

/**
 * A fresh database cloned from the migrated template: each test file starts from an empty,
 * migrated schema in milliseconds, and files can run in parallel.
 */
export async function createTestDatabase(name: string): Promise<string> {
  await ensureMigratedTemplate();
  await withClient(testRun.adminUrl(), async (client) => {
    const sql = `CREATE DATABASE ${client.escapeIdentifier(name)} TEMPLATE ${client.escapeIdentifier(testRun.template())}`;
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(sql);
        return;
      } catch (error) {
        // 55006: another worker is cloning the template at this instant.
        if ((error as { code?: string }).code !== '55006' || attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  });
  // With the run's standby (test/support/replica.ts): the clone is there too before the app starts.
  await replicaCaughtUp();
  return databaseUrl(testRun.adminUrl(), name);
}
