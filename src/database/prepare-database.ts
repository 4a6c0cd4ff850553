import { DataSource, type QueryRunner } from 'typeorm';
import type { AppConfig } from '../config/app-config.js';
import { runMigrations, withMigrationLock } from './migrate.js';
import { typeOrmOptions } from './typeorm-options.js';

/** The settings every session of the service's role on its database gets from PostgreSQL. */
export function roleSettings(db: AppConfig['db']): Record<string, string> {
  return {
    statement_timeout: String(db.statementTimeoutMs),
    idle_in_transaction_session_timeout: String(db.statementTimeoutMs * 2),
  };
}

/**
 * How a session of `dataSource` (the pool, maybe through PgBouncer) differs from the timeouts
 * the service gives its role on the direct connection, as a sentence; null when it does not.
 * They differ when DATABASE_URL reaches another role or database than DATABASE_DIRECT_URL
 * (a PgBouncer that maps to another user), or through server connections PgBouncer opened
 * before the settings changed: either way statements could run without the limit.
 */
export async function pooledTimeoutsMismatch(
  dataSource: DataSource,
  db: AppConfig['db'],
): Promise<string | null> {
  const rows = await dataSource.query<
    Array<{ name: string; setting: string; role: string; database: string }>
  >(
    `SELECT name, setting, current_user AS role, current_database() AS database FROM pg_settings
      WHERE name IN ('statement_timeout', 'idle_in_transaction_session_timeout')
      ORDER BY name DESC`,
  );
  const wanted = roleSettings(db);
  const wrong = rows.filter((row) => wanted[row.name] !== row.setting);
  if (wrong.length === 0) return null;
  const { role, database } = rows[0];
  return (
    `sessions of DATABASE_URL (role ${role}, database ${database}) run with ` +
    wrong.map((row) => `${row.name}=${row.setting} ms, not ${wanted[row.name]}`).join(' and ') +
    ': DATABASE_URL and DATABASE_DIRECT_URL must reach the same role and database; PgBouncer ' +
    'server connections opened before a change keep the old values until server_lifetime ' +
    'or RECONNECT'
  );
}

/**
 * Makes PostgreSQL give every new session of this role, on this database, the service's
 * timeouts (`ALTER ROLE CURRENT_USER IN DATABASE … SET`). Startup parameters would do the same
 * per connection, but PgBouncer refuses them ("unsupported startup parameter"); role settings
 * reach every server connection it opens, with nothing sent per transaction. Written only when
 * they differ, since concurrent catalog updates of one row fail ("tuple concurrently updated");
 * callers hold the migration lock. Returns whether it changed anything.
 */
export async function applyRoleTimeouts(
  runner: QueryRunner,
  db: AppConfig['db'],
): Promise<boolean> {
  const rows = (await runner.query(
    `SELECT current_database() AS database,
              (SELECT setconfig FROM pg_db_role_setting
                WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = current_user)
                  AND setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
              ) AS current`,
  )) as Array<{ database: string; current: string[] | null }>;
  const [{ database, current }] = rows;
  const wanted = Object.entries(roleSettings(db));
  const have = new Set(current ?? []);
  const missing = wanted.filter(([name, value]) => !have.has(`${name}=${value}`));
  if (missing.length === 0) return false;
  const quotedDatabase = `"${database.replaceAll('"', '""')}"`;
  for (const [name, value] of missing) {
    // Names are ours and values whole numbers (validated config): nothing to escape.
    await runner.query(
      `ALTER ROLE CURRENT_USER IN DATABASE ${quotedDatabase} SET ${name} = ${Number(value)}`,
    );
  }
  return true;
}

export interface PreparedDatabase {
  /** Names of the migrations this call applied. */
  applied: string[];
  /** Whether the role's timeouts were (re)written. */
  timeoutsChanged: boolean;
}

/**
 * What start-up does before the pool opens, over the direct connection and under the migration
 * lock: the role's timeouts (so the pool's sessions, opened afterwards, have them), then pending
 * migrations when `migrate` is set.
 */
export async function prepareDatabase(
  directUrl: string,
  db: AppConfig['db'],
  migrate: boolean,
): Promise<PreparedDatabase> {
  const dataSource = new DataSource(await typeOrmOptions(directUrl, { ...db, poolSize: 1 }));
  await dataSource.initialize();
  try {
    return await withMigrationLock(dataSource, async (runner) => {
      const timeoutsChanged = await applyRoleTimeouts(runner, db);
      const applied = migrate ? await runMigrations(dataSource, runner) : [];
      return { applied, timeoutsChanged };
    });
  } finally {
    await dataSource.destroy();
  }
}
