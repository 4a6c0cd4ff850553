import { join } from 'node:path';
import type { DataSourceOptions, MigrationInterface } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { clientNoticingCommits } from './served-request.js';
import { clientWithResponseDeadline } from './response-deadline.js';

type MigrationClass = new () => MigrationInterface;

/**
 * The migration classes from migrations/index. Compiled code finds them in dist/migrations;
 * tests (ts-jest) load the TypeScript sources from the top-level migrations/ folder. Classes,
 * not a glob, because TypeORM's own file loader cannot load TypeScript under Jest.
 */
export async function loadMigrations(): Promise<MigrationClass[]> {
  const compiled = import.meta.filename.endsWith('.js');
  const index = compiled
    ? join(import.meta.dirname, '..', 'migrations', 'index.js')
    : join(import.meta.dirname, '..', '..', 'migrations', 'index.ts');
  const module = (await import(index)) as { migrations: MigrationClass[] };
  return module.migrations;
}

export const MIGRATIONS_TABLE = 'typeorm_migrations';

/**
 * TypeORM options shared by the app, the CLI and the tests. `responseDeadline`, for the requests'
 * pool: each statement is answered within DB_CONNECT_TIMEOUT_MS + DB_STATEMENT_TIMEOUT_MS or
 * its connection is dropped (response-deadline.ts), the longest the service waits for a connection
 * (through PgBouncer, the wait for a server connection comes after the statement is sent) plus
 * the longest a server runs one. `noticeCommits`, with read routing: a request's statements
 * that may commit are noticed (served-request.ts). Not for migrations, which
 * run without a statement timeout.
 */
export async function typeOrmOptions(
  url: string,
  db: AppConfig['db'],
  {
    responseDeadline = false,
    noticeCommits = false,
  }: { responseDeadline?: boolean; noticeCommits?: boolean } = {},
): Promise<DataSourceOptions> {
  const Client = responseDeadline
    ? clientWithResponseDeadline(db.connectTimeoutMs + db.statementTimeoutMs)
    : undefined;
  return {
    type: 'postgres',
    url,
    synchronize: false,
    migrationsRun: false,
    migrations: await loadMigrations(),
    migrationsTableName: MIGRATIONS_TABLE,
    applicationName: 'petstore-api',
    poolSize: db.poolSize,
    connectTimeoutMS: db.connectTimeoutMs,
    extra: {
      // An exhausted pool fails fast. Statement timeouts are the role's settings
      // (prepare-database.ts): PgBouncer refuses them as startup parameters.
      connectionTimeoutMillis: db.connectTimeoutMs,
      ...(Client && { Client: noticeCommits ? clientNoticingCommits(Client) : Client }),
    },
  };
}
