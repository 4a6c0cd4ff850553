import { DataSource, MigrationExecutor, type QueryRunner } from 'typeorm';

/** Any fixed 64-bit number; all instances of the service agree on it. */
const MIGRATION_LOCK_KEY = '7254400911348117';

/**
 * Runs `work` on one session while holding a PostgreSQL advisory lock, so several instances
 * starting together do it one after the other. A session lock: `dataSource` must be a direct
 * connection (DATABASE_DIRECT_URL), never one pooled per transaction, or lock and unlock could
 * land on different server connections.
 */
export async function withMigrationLock<T>(
  dataSource: DataSource,
  work: (runner: QueryRunner) => Promise<T>,
): Promise<T> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    // Migrations may rebuild large tables: no statement timeout on this session.
    await runner.query('SET statement_timeout = 0');
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await work(runner);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    // The session ends with the short-lived direct DataSource; nothing of it outlives that.
    await runner.release();
  }
}

/** Applies pending migrations on `runner`, each in its own transaction; returns their names. */
export async function runMigrations(
  dataSource: DataSource,
  runner: QueryRunner,
): Promise<string[]> {
  const executor = new MigrationExecutor(dataSource, runner);
  executor.transaction = 'each';
  const applied = await executor.executePendingMigrations();
  return applied.map((migration) => migration.name);
}

/**
 * Applies pending migrations while holding the migration lock: instances starting together
 * apply each migration once; the others wait, then find nothing to do.
 */
export function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  return withMigrationLock(dataSource, (runner) => runMigrations(dataSource, runner));
}
